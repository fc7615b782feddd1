/* Lexer and parser: AST shapes for every construct, every syntax error
   class with its code and line:col, nesting limits, allocation failures,
   and a fuzz pass (random bytes and mutations of valid sources). Calls
   tc__parse directly: the test includes the implementation. Also the
   randomized test of the size-expression simplifier and prover
   (prover_fuzz.h), which needs the implementation too. */
#define TC_IMPLEMENTATION
#include "tc.h"
#include "harness.h"
#include "prover_fuzz.h"

/* One parse with its own arena and context. Not copyable (C.arena points
   into it). */
typedef struct pt {
    tc__arena arena;
    tc__ctx C;
    tc_error err;
    tc__ast ast;
    int ok;
} pt;

static int parse_len(pt *t, const char *src, size_t len, int max_depth) {
    memset(t, 0, sizeof *t);
    t->C.arena = &t->arena;
    t->C.err = &t->err;
    t->C.src = src;
    t->C.src_len = len;
    t->C.max_depth = max_depth;
    t->ok = tc__parse(&t->C, &t->ast);
    return t->ok;
}
static int parse(pt *t, const char *src) { return parse_len(t, src, strlen(src), 0); }
static void done(pt *t) { tc__arena_free_all(&t->arena); }

/* Parses src, expecting success; reports the error otherwise. */
static int parse_ok(pt *t, const char *src) {
    int ok = parse(t, src);
    CHECKF(ok, "%d:%d %s (%s)\n%s", t->err.line, t->err.col, t->err.msg,
           tc_status_name(t->err.code), src);
    return ok;
}

/* The source text of a span. */
static const char *span_text(const char *src, tc__span s, char *buf, size_t cap) {
    snprintf(buf, cap, "%.*s", s.length, src + s.offset);
    return buf;
}

/* Expressions as s-expressions: (+ a (* b c)), f(x, y), T.1, (? c a b). */
static void expr_str_rec(const tc__expr *e, char *buf, size_t cap, size_t *len) {
    int i;
#define EMIT(...)                                                              \
    do {                                                                       \
        int n_ = snprintf(buf + *len, *len < cap ? cap - *len : 0, __VA_ARGS__); \
        if (n_ > 0) *len += (size_t)n_;                                        \
        if (*len >= cap) *len = cap - 1;                                       \
    } while (0)
    if (!e) {
        EMIT("NULL");
        return;
    }
    switch (e->kind) {
    case TC__E_INT: EMIT("%lld", (long long)e->ival); break;
    case TC__E_FLOAT: EMIT("%gf", e->fval); break;
    case TC__E_IDENT: EMIT("%s", e->name); break;
    case TC__E_DIM: EMIT("%s.%lld", e->name, (long long)e->ival); break;
    case TC__E_CALL:
        EMIT("%s(", e->name);
        for (i = 0; i < e->nargs; i++) {
            if (i) EMIT(", ");
            expr_str_rec(e->args[i], buf, cap, len);
        }
        EMIT(")");
        break;
    case TC__E_UNARY:
        EMIT("(%s ", tc__tok_text[e->op]);
        expr_str_rec(e->args[0], buf, cap, len);
        EMIT(")");
        break;
    case TC__E_BINARY:
    case TC__E_TERNARY:
        EMIT("(%s", e->kind == TC__E_TERNARY ? "?" : tc__tok_text[e->op]);
        for (i = 0; i < e->nargs; i++) {
            EMIT(" ");
            expr_str_rec(e->args[i], buf, cap, len);
        }
        EMIT(")");
        break;
    default: EMIT("?kind%d", (int)e->kind); break;
    }
#undef EMIT
}
static const char *expr_str(const tc__expr *e, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    expr_str_rec(e, buf, cap, &len);
    return buf;
}

/* Parses `def f(...) -> (O) { O(i) = <rhs> }` and returns the rhs as an
   s-expression (or "ERROR ..."). */
static const char *rhs_str(const char *rhs, char *buf, size_t cap) {
    char src[512];
    pt t;
    snprintf(src, sizeof src,
             "def f(float(N) A, float(N) B, float(N) C, float(N, N) T, float a, float b,\n"
             "      float c, float d, float e, float x) -> (O) {\n  O(i) = %s\n}\n",
             rhs);
    if (!parse(&t, src)) snprintf(buf, cap, "ERROR %d:%d %s", t.err.line, t.err.col, t.err.msg);
    else expr_str(t.ast.defs[0].stmts[0].rhs, buf, cap);
    done(&t);
    return buf;
}
#define CHECK_RHS(rhs, want)                                                  \
    do {                                                                      \
        char b_[512];                                                         \
        rhs_str(rhs, b_, sizeof b_);                                          \
        CHECKF(strcmp(b_, want) == 0, "%s -> %s, want %s", rhs, b_, want);    \
    } while (0)

/* ---- lexer ---- */

/* Lexes src and compares the token kinds (ending with EOF). */
static int lex_kinds(const char *src, const tc__tok *want, int n) {
    tc__arena arena;
    tc__ctx C;
    tc_error err;
    tc__lexer L;
    tc__token t;
    int i, ok = 1;
    memset(&arena, 0, sizeof arena);
    memset(&C, 0, sizeof C);
    memset(&err, 0, sizeof err);
    C.arena = &arena;
    C.err = &err;
    C.src = src;
    C.src_len = strlen(src);
    tc__lex_init(&L, &C);
    for (i = 0; i < n; i++) {
        tc__lex_next(&L, &t);
        if (t.kind != want[i]) {
            fprintf(stderr, "  token %d of \"%s\": %s, want %s\n", i, src, tc__tok_text[t.kind],
                    tc__tok_text[want[i]]);
            ok = 0;
            break;
        }
    }
    tc__arena_free_all(&arena);
    return ok && !C.failed;
}

static void test_lex_tokens(void) {
    static const tc__tok t1[] = {TC__T_IDENT,  TC__T_PLUS_EQ_B, TC__T_IDENT, TC__T_TIMES_EQ,
                                 TC__T_MIN_EQ, TC__T_MAX_EQ_B,  TC__T_EOF};
    static const tc__tok t2[] = {TC__T_IDENT, TC__T_LPAREN, TC__T_IDENT,  TC__T_COMMA,
                                 TC__T_IDENT, TC__T_RPAREN, TC__T_EQ,     TC__T_IDENT,
                                 TC__T_NE,    TC__T_NOT,    TC__T_IDENT,  TC__T_EOF};
    static const tc__tok t3[] = {TC__T_IDENT, TC__T_DOT, TC__T_INT, TC__T_PLUS,
                                 TC__T_FLOAT, TC__T_STAR, TC__T_FLOAT, TC__T_EOF};
    static const tc__tok t4[] = {TC__T_ARROW, TC__T_MINUS, TC__T_LE, TC__T_LT, TC__T_GE,
                                 TC__T_GT,    TC__T_AND,   TC__T_OR, TC__T_SLASH,
                                 TC__T_PERCENT, TC__T_EOF};
    static const tc__tok t5[] = {TC__T_DEF,   TC__T_WHERE, TC__T_IN,    TC__T_EXISTS,
                                 TC__T_IDENT, TC__T_IDENT, TC__T_LBRACKET, TC__T_RBRACKET,
                                 TC__T_LBRACE, TC__T_RBRACE, TC__T_COLON, TC__T_SEMI,
                                 TC__T_QUESTION, TC__T_EOF};
    static const tc__tok t6[] = {TC__T_IDENT, TC__T_ASSIGN, TC__T_IDENT, TC__T_EOF};
    static const tc__tok t7[] = {TC__T_IDENT, TC__T_EQ, TC__T_IDENT, TC__T_PLUS_EQ, TC__T_NOT,
                                 TC__T_IDENT, TC__T_EOF};
    static const tc__tok t8[] = {TC__T_INT, TC__T_INT, TC__T_EOF};
    CHECK(lex_kinds("s +=! x *= min= max=!", t1, 7));
    CHECK(lex_kinds("min(a, b) == max != !c", t2, 12));
    CHECK(lex_kinds("T.1 + .5 * 1.5", t3, 8));
    CHECK(lex_kinds("-> - <= < >= > && || / %", t4, 11));
    CHECK(lex_kinds("def where in exists define inx [ ] { } : ; ?", t5, 14));
    CHECK(lex_kinds("min = y", t6, 4));       /* 'min =' with a space is a name */
    CHECK(lex_kinds("min==y += !z", t7, 7)); /* 'min==' is a comparison */
    CHECK(lex_kinds("# a comment ( @\n12 // another \xff\n 0x1f", t8, 3));
}

static void test_lex_spans(void) {
    const char *src = "def f(float(N) A)\n  -> (B) {\n\tB(i) = A(i) # c\n}";
    tc__arena arena;
    tc__ctx C;
    tc_error err;
    tc__lexer L;
    tc__token t;
    int n = 0, seen_tab = 0;
    memset(&arena, 0, sizeof arena);
    memset(&C, 0, sizeof C);
    C.arena = &arena;
    C.err = &err;
    C.src = src;
    C.src_len = strlen(src);
    tc__lex_init(&L, &C);
    for (;;) {
        tc__lex_next(&L, &t);
        /* every token's line/col agrees with its offset */
        {
            int line = 1, col = 1, i;
            for (i = 0; i < t.span.offset; i++) {
                if (src[i] == '\n') line++, col = 1;
                else col++;
            }
            CHECKF(t.span.line == line && t.span.col == col, "token %d at %d:%d, want %d:%d", n,
                   t.span.line, t.span.col, line, col);
        }
        if (t.kind == TC__T_ARROW) CHECK(t.span.line == 2 && t.span.col == 3 && t.span.length == 2);
        if (t.kind == TC__T_IDENT && src[t.span.offset] == 'B' && t.span.line == 3) {
            CHECK(t.span.col == 2); /* a tab is one column */
            seen_tab = 1;
        }
        if (t.kind == TC__T_EOF) break;
        n++;
    }
    CHECK(seen_tab);
    CHECK(n == 24);
    CHECK(t.span.line == 4 && t.span.col == 2 && t.span.offset == (int)strlen(src));
    tc__arena_free_all(&arena);
}

static void test_literals(void) {
    CHECK_RHS("0x1F + 0X10", "(+ 31 16)");
    CHECK_RHS("9223372036854775807", "9223372036854775807");
    CHECK_RHS("0x7fffffffffffffff", "9223372036854775807");
    CHECK_RHS("0", "0");
    CHECK_RHS("1.5 + 1e3 + 2.5e-1f + .5 + 1. + 1.5F + 0.0 + 00.5 + 1E+2",
              "(+ (+ (+ (+ (+ (+ (+ (+ 1.5f 1000f) 0.25f) 0.5f) 1f) 1.5f) 0f) 0.5f) 100f)");
    CHECK_RHS("1e-50", "1e-50f");
    {
        pt t;
        if (parse_ok(&t, "def f(float x) -> (y) { y = 0.1 + 3.4028234e38 + 1e-50 }")) {
            const tc__expr *e = t.ast.defs[0].stmts[0].rhs;
            CHECK(e->args[0]->args[0]->kind == TC__E_FLOAT);
            CHECK(e->args[0]->args[0]->fval == 0.1); /* correctly rounded */
            CHECK(e->args[0]->args[1]->fval == 3.4028234e38);
            CHECK(e->args[1]->fval == 1e-50);
        }
        done(&t);
    }
    {
        /* a long mantissa is still correctly rounded */
        pt t;
        if (parse_ok(&t, "def f(float x) -> (y) { y = 0.1000000000000000000000000000000000000000"
                         "00000000000000000000000000000000000000000000000000000000001 + "
                         "123456789012345678901234567890.5e-29 }")) {
            const tc__expr *e = t.ast.defs[0].stmts[0].rhs;
            CHECK(e->args[0]->fval == 0.1);
            CHECK(e->args[1]->fval == 1.234567890123456789012345678905);
        }
        done(&t);
    }
    {
        /* hex floats round once, subnormal results too (0x1.7ffffffffffffffp-1074
           is below 1.5 ulp of the smallest subnormal: 2^-1074, not 2^-1073) */
        pt t;
        if (parse_ok(&t, "def f(float x) -> (y) { y = 0x1.7ffffffffffffffp-1074 + 0x1.8p-1074 + "
                         "0x1p-1075 + 0x1.0000000000001p-1075 + 0x1.fffffffffffff8p-1 + 0X.8P1 }")) {
            const tc__expr *e = t.ast.defs[0].stmts[0].rhs;
            const tc__expr *x[6];
            int k;
            for (k = 5; k > 0; k--, e = e->args[0]) x[k] = e->args[1];
            x[0] = e;
            CHECK(x[0]->fval == ldexp(1.0, -1074));
            CHECK(x[1]->fval == ldexp(1.0, -1073)); /* a tie: to even */
            CHECK(x[2]->fval == 0.0);               /* a tie: to even */
            CHECK(x[3]->fval == ldexp(1.0, -1074));
            CHECK(x[4]->fval == 1.0); /* a tie at 2^-54: to even */
            CHECK(x[5]->fval == 1.0);
        }
        done(&t);
    }
    {
        /* float32 values round once from the digits: via the double they
           would land on the tie between 1 and its successor, and round to 1 */
        pt t;
        if (parse_ok(&t, "def f(float x) -> (y) { y = 1.0000000596046447753906250001 + "
                         "0x1.000001000000001p0 + 1.000000059604644775390625 }")) {
            const tc__expr *e = t.ast.defs[0].stmts[0].rhs;
            const double up = 1.0 + ldexp(1.0, -23);
            CHECK(e->args[0]->args[0]->fval32 == up);
            CHECK(e->args[0]->args[1]->fval32 == up);
            CHECK(e->args[1]->fval32 == 1.0); /* the tie itself: to even */
            CHECK(e->args[0]->args[0]->fval == 1.0000000596046448);
        }
        done(&t);
    }
}

/* ---- definitions, parameters, outputs ---- */

static void test_defs_and_params(void) {
    const char *src = "def add(float(N) A, float(N) B) -> (C) {\n"
                      "  C(i) = A(i) + B(i)\n"
                      "}\n"
                      "def mm(float(M, K) A, double(K, 3) B, int32 s, half h) -> (float(M, 3) C, D) {\n"
                      "  C(m, n) +=! A(m, k) * B(k, n)\n"
                      "  D(m) max=! C(m, n)\n"
                      "}\n"
                      "def one(float(N) A) -> B { B(i) = A(i) }\n"
                      "def none() -> (float s) { s = 1 }\n"
                      "def tone(uint8(N) A) -> int64(N) B { B(i) = int64(A(i)) }";
    pt t;
    char b[256];
    if (parse_ok(&t, src)) {
        const tc__def *d0 = &t.ast.defs[0], *d1 = &t.ast.defs[1], *d2 = &t.ast.defs[2];
        const tc__def *d3 = &t.ast.defs[3], *d4 = &t.ast.defs[4];
        CHECK(t.ast.n_defs == 5);
        CHECK(strcmp(d0->name, "add") == 0 && d0->n_inputs == 2 && d0->n_outputs == 1);
        CHECK(d0->name_span.line == 1 && d0->name_span.col == 5);
        CHECK(d0->span.line == 1 && d0->span.col == 1);
        CHECK(strcmp(span_text(src, d0->span, b, sizeof b),
                     "def add(float(N) A, float(N) B) -> (C) {\n  C(i) = A(i) + B(i)\n}") == 0);
        CHECK(d0->inputs[0].has_type && d0->inputs[0].dtype == TC_FLOAT32);
        CHECK(d0->inputs[0].rank == 1 && d0->inputs[0].dims[0]->kind == TC__E_IDENT);
        CHECK(strcmp(d0->inputs[0].dims[0]->name, "N") == 0);
        CHECK(strcmp(span_text(src, d0->inputs[1].span, b, sizeof b), "float(N) B") == 0);
        CHECK(strcmp(d0->inputs[1].name, "B") == 0 && d0->inputs[1].name_span.col == 30);
        CHECK(!d0->outputs[0].has_type && strcmp(d0->outputs[0].name, "C") == 0);
        CHECK(d0->n_stmts == 1);

        CHECK(strcmp(d1->name, "mm") == 0 && d1->n_inputs == 4 && d1->n_outputs == 2);
        CHECK(d1->inputs[0].rank == 2 && strcmp(d1->inputs[0].dims[1]->name, "K") == 0);
        CHECK(d1->inputs[1].dtype == TC_FLOAT64 && d1->inputs[1].rank == 2);
        CHECK(d1->inputs[1].dims[1]->kind == TC__E_INT && d1->inputs[1].dims[1]->ival == 3);
        CHECK(d1->inputs[2].has_type && d1->inputs[2].rank == 0 && d1->inputs[2].dtype == TC_INT32);
        CHECK(strcmp(d1->inputs[2].name, "s") == 0);
        CHECK(d1->inputs[3].dtype == TC_FLOAT16 && d1->inputs[3].rank == 0);
        CHECK(d1->outputs[0].has_type && d1->outputs[0].dtype == TC_FLOAT32);
        CHECK(d1->outputs[0].rank == 2 && d1->outputs[0].dims[1]->ival == 3);
        CHECK(strcmp(d1->outputs[0].name, "C") == 0);
        CHECK(!d1->outputs[1].has_type && strcmp(d1->outputs[1].name, "D") == 0);
        CHECK(d1->n_stmts == 2);
        CHECK(d1->stmts[0].reduce == TC_REDUCE_SUM && d1->stmts[0].init == 1);
        CHECK(d1->stmts[1].reduce == TC_REDUCE_MAX && d1->stmts[1].init == 1);
        CHECK(d1->stmts[1].span.line == 6 && d1->stmts[1].span.col == 3);

        CHECK(d2->n_outputs == 1 && strcmp(d2->outputs[0].name, "B") == 0); /* -> B */
        CHECK(d3->n_inputs == 0 && d3->n_outputs == 1 && d3->outputs[0].has_type);
        CHECK(d3->outputs[0].rank == 0 && d3->outputs[0].dtype == TC_FLOAT32);
        CHECK(d3->stmts[0].n_idx == 0 && strcmp(d3->stmts[0].lhs, "s") == 0);
        CHECK(d4->inputs[0].dtype == TC_UINT8 && d4->outputs[0].dtype == TC_INT64);
        CHECK(d4->outputs[0].rank == 1 && d4->outputs[0].has_type);
        CHECK(strcmp(expr_str(d4->stmts[0].rhs, b, sizeof b), "int64(A(i))") == 0);
    }
    done(&t);
}

static void test_all_types(void) {
    static const struct {
        const char *name;
        tc_dtype dt;
    } types[] = {{"bool", TC_BOOL},       {"int8", TC_INT8},       {"int16", TC_INT16},
                 {"int32", TC_INT32},     {"int64", TC_INT64},     {"uint8", TC_UINT8},
                 {"uint16", TC_UINT16},   {"uint32", TC_UINT32},   {"uint64", TC_UINT64},
                 {"float16", TC_FLOAT16}, {"half", TC_FLOAT16},    {"float32", TC_FLOAT32},
                 {"float", TC_FLOAT32},   {"float64", TC_FLOAT64}, {"double", TC_FLOAT64},
                 {"byte", TC_UINT8},      {"int", TC_INT32}};
    size_t i;
    for (i = 0; i < sizeof types / sizeof types[0]; i++) {
        char src[256];
        pt t;
        snprintf(src, sizeof src, "def f(%s(N, 4) A, %s s) -> (%s(N) C) { C(i) = A(i, 0) }",
                 types[i].name, types[i].name, types[i].name);
        if (parse_ok(&t, src)) {
            const tc__def *d = &t.ast.defs[0];
            CHECKF(d->inputs[0].dtype == types[i].dt && d->inputs[1].dtype == types[i].dt &&
                       d->outputs[0].dtype == types[i].dt,
                   "%s", types[i].name);
            CHECK(d->inputs[0].rank == 2 && d->inputs[1].rank == 0 && d->outputs[0].rank == 1);
        }
        done(&t);
    }
}

/* ---- statements ---- */

static void test_reductions(void) {
    static const struct {
        const char *op;
        tc_reduce r;
        int init;
    } ops[] = {{"=", TC_REDUCE_ASSIGN, 0},  {"+=", TC_REDUCE_SUM, 0},  {"*=", TC_REDUCE_PROD, 0},
               {"min=", TC_REDUCE_MIN, 0},  {"max=", TC_REDUCE_MAX, 0}, {"+=!", TC_REDUCE_SUM, 1},
               {"*=!", TC_REDUCE_PROD, 1},  {"min=!", TC_REDUCE_MIN, 1},
               {"max=!", TC_REDUCE_MAX, 1}};
    size_t i;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        char src[256], b[128];
        pt t;
        snprintf(src, sizeof src,
                 "def f(float(N, M) A) -> (C, s) {\n  C(i) %s A(i, j)\n  s %s A(i, j)\n}",
                 ops[i].op, ops[i].op);
        if (parse_ok(&t, src)) {
            const tc__stmt *s0 = &t.ast.defs[0].stmts[0], *s1 = &t.ast.defs[0].stmts[1];
            CHECKF(s0->reduce == ops[i].r && s0->init == ops[i].init, "%s", ops[i].op);
            CHECKF(s1->reduce == ops[i].r && s1->init == ops[i].init, "%s", ops[i].op);
            CHECK(!s0->is_call && s0->n_idx == 1 && strcmp(s0->idx[0], "i") == 0);
            CHECK(s0->idx_spans[0].line == 2 && s0->idx_spans[0].col == 5);
            CHECK(s1->n_idx == 0 && strcmp(s1->lhs, "s") == 0);
            CHECK(strcmp(span_text(src, s0->op_span, b, sizeof b), ops[i].op) == 0);
            CHECK(s0->op_span.line == 2 && s0->op_span.col == 8);
            CHECK(strcmp(expr_str(s1->rhs, b, sizeof b), "A(i, j)") == 0);
        }
        done(&t);
    }
}

static void test_where(void) {
    const char *src = "def f(float(N) B, float(N) D) -> (A, E) {\n"
                      "  A(i) = B(2*i + k) where k in 0:2, x = 3 * N, exists B(i),\n"
                      "         kw = [0, N / 2[ where j in 1:N-1\n"
                      "  E(i) = D(i) where i in 0:N\n"
                      "  A(i) += B(i)\n"
                      "}";
    pt t;
    char b[256];
    if (parse_ok(&t, src)) {
        const tc__def *d = &t.ast.defs[0];
        const tc__stmt *s = &d->stmts[0];
        CHECK(d->n_stmts == 3);
        CHECK(s->n_where == 5);
        CHECK(s->where[0].kind == TC__W_RANGE && strcmp(s->where[0].name, "k") == 0);
        CHECK(strcmp(expr_str(s->where[0].lo, b, sizeof b), "0") == 0);
        CHECK(strcmp(expr_str(s->where[0].hi, b, sizeof b), "2") == 0);
        CHECK(strcmp(span_text(src, s->where[0].span, b, sizeof b), "k in 0:2") == 0);
        CHECK(s->where[0].name_span.line == 2 && s->where[0].name_span.col == 27);
        CHECK(s->where[1].kind == TC__W_LET && strcmp(s->where[1].name, "x") == 0);
        CHECK(strcmp(expr_str(s->where[1].expr, b, sizeof b), "(* 3 N)") == 0);
        CHECK(s->where[2].kind == TC__W_EXISTS && s->where[2].name == NULL);
        CHECK(strcmp(expr_str(s->where[2].expr, b, sizeof b), "B(i)") == 0);
        CHECK(s->where[3].kind == TC__W_RANGE && strcmp(s->where[3].name, "kw") == 0);
        CHECK(strcmp(expr_str(s->where[3].lo, b, sizeof b), "0") == 0);
        CHECK(strcmp(expr_str(s->where[3].hi, b, sizeof b), "(/ N 2)") == 0);
        CHECK(strcmp(span_text(src, s->where[3].span, b, sizeof b), "kw = [0, N / 2[") == 0);
        CHECK(s->where[4].kind == TC__W_RANGE && strcmp(s->where[4].name, "j") == 0);
        CHECK(strcmp(expr_str(s->where[4].hi, b, sizeof b), "(- N 1)") == 0);
        CHECK(strcmp(span_text(src, s->span, b, sizeof b),
                     "A(i) = B(2*i + k) where k in 0:2, x = 3 * N, exists B(i),\n"
                     "         kw = [0, N / 2[ where j in 1:N-1") == 0);
        CHECK(d->stmts[1].n_where == 1 && strcmp(d->stmts[1].where[0].name, "i") == 0);
        CHECK(d->stmts[2].n_where == 0 && d->stmts[2].reduce == TC_REDUCE_SUM);
    }
    done(&t);
}

static void test_precedence(void) {
    CHECK_RHS("a + b * c", "(+ a (* b c))");
    CHECK_RHS("a * b + c", "(+ (* a b) c)");
    CHECK_RHS("a - b - c", "(- (- a b) c)");
    CHECK_RHS("a / b % c * d", "(* (% (/ a b) c) d)");
    CHECK_RHS("a < b && c", "(&& (< a b) c)");
    CHECK_RHS("a || b && c", "(|| a (&& b c))");
    CHECK_RHS("a && b || c && d", "(|| (&& a b) (&& c d))");
    CHECK_RHS("a == b < c", "(== a (< b c))");
    CHECK_RHS("a >= b != c <= d", "(!= (>= a b) (<= c d))");
    CHECK_RHS("a > b == c", "(== (> a b) c)");
    CHECK_RHS("a + b < c - d", "(< (+ a b) (- c d))");
    CHECK_RHS("-a * b", "(* (- a) b)");
    CHECK_RHS("- -a", "(- (- a))");
    CHECK_RHS("!a && b", "(&& (! a) b)");
    CHECK_RHS("!!a", "(! (! a))");
    CHECK_RHS("+a", "a");
    CHECK_RHS("a - +b", "(- a b)");
    CHECK_RHS("-(a + b)", "(- (+ a b))");
    CHECK_RHS("(a + b) * c", "(* (+ a b) c)");
    CHECK_RHS("a ? b : c", "(? a b c)");
    CHECK_RHS("a ? b : c ? d : e", "(? a b (? c d e))");
    CHECK_RHS("a ? b ? c : d : e", "(? a (? b c d) e)");
    CHECK_RHS("a < b ? a + 1 : b * 2", "(? (< a b) (+ a 1) (* b 2))");
    CHECK_RHS("(i >= 1 && i < N + 1) ? A(i - 1) : 0.5f",
              "(? (&& (>= i 1) (< i (+ N 1))) A((- i 1)) 0.5f)");
    CHECK_RHS("a-1", "(- a 1)");
    CHECK_RHS("a - -1", "(- a (- 1))");
}

static void test_calls_and_reads(void) {
    CHECK_RHS("exp(A(i)) + fma(a, b, c)", "(+ exp(A(i)) fma(a, b, c))");
    CHECK_RHS("int32(x) + float(a) * double(b)", "(+ int32(x) (* float(a) double(b)))");
    CHECK_RHS("min(a, b) + max(A(i), 0)", "(+ min(a, b) max(A(i), 0))");
    CHECK_RHS("B(C(i))", "B(C(i))");
    CHECK_RHS("B(int32(C(i)) + 1)", "B((+ int32(C(i)) 1))");
    CHECK_RHS("T(i, j + 1) * T.1", "(* T(i, (+ j 1)) T.1)");
    CHECK_RHS("T.0 + T . 1 - A.0", "(- (+ T.0 T.1) A.0)");
    CHECK_RHS("A(T.1 - 1 - i)", "A((- (- T.1 1) i))");
    CHECK_RHS("f()", "f()");
    {
        /* spans of expressions cover their whole text */
        const char *src = "def f(float(N) A, float(N) B) -> (O) {\n"
                          "  O(i) = (A(i) + 1) * -B(N.0 - i) ? +x : y\n}";
        pt t;
        char b[256];
        if (parse_ok(&t, src)) {
            const tc__expr *e = t.ast.defs[0].stmts[0].rhs, *m = e->args[0];
            CHECK(strcmp(span_text(src, e->span, b, sizeof b),
                         "(A(i) + 1) * -B(N.0 - i) ? +x : y") == 0);
            CHECK(strcmp(span_text(src, m->span, b, sizeof b), "(A(i) + 1) * -B(N.0 - i)") == 0);
            CHECK(strcmp(span_text(src, m->args[0]->span, b, sizeof b), "(A(i) + 1)") == 0);
            CHECK(strcmp(span_text(src, m->args[1]->span, b, sizeof b), "-B(N.0 - i)") == 0);
            CHECK(strcmp(span_text(src, m->args[1]->args[0]->name_span, b, sizeof b), "B") == 0);
            CHECK(strcmp(span_text(src, m->args[1]->args[0]->args[0]->span, b, sizeof b),
                         "N.0 - i") == 0);
            CHECK(strcmp(span_text(src, e->args[1]->span, b, sizeof b), "+x") == 0);
            CHECK(e->args[1]->kind == TC__E_IDENT);
            CHECK(e->span.line == 2 && e->span.col == 10);
        }
        done(&t);
    }
}

static void test_call_statements(void) {
    const char *src = "def f(float(N) X) -> (Y, Z) { Y(i) = X(i)  Z(i) = X(i) }\n"
                      "def g(float(N) A) -> (B, C, D, s, t, u, v) {\n"
                      "  B, C = f(A)\n"
                      "  D = f(A)\n"
                      "  s = exp(A(0))\n"
                      "  t = h(A)\n"
                      "  u = f(A) + 1\n"
                      "  v = f(A) where i in 0:1\n"
                      "  D, E = f(A)\n"
                      "  w = g(A)\n" /* g is not defined before its own body */
                      "}";
    pt t;
    char b[256];
    if (parse_ok(&t, src)) {
        const tc__def *d = &t.ast.defs[1];
        const tc__stmt *s = d->stmts;
        CHECK(d->n_stmts == 8);
        CHECK(s[0].is_call && s[0].n_outs == 2 && strcmp(s[0].outs[0], "B") == 0);
        CHECK(strcmp(s[0].outs[1], "C") == 0 && strcmp(s[0].callee, "f") == 0);
        CHECK(s[0].n_args == 1 && strcmp(s[0].args[0], "A") == 0);
        CHECK(s[0].out_spans[1].line == 3 && s[0].out_spans[1].col == 6);
        CHECK(s[0].callee_span.col == 10 && s[0].arg_spans[0].col == 12);
        CHECK(strcmp(span_text(src, s[0].span, b, sizeof b), "B, C = f(A)") == 0);
        CHECK(s[1].is_call && s[1].n_outs == 1 && strcmp(s[1].outs[0], "D") == 0);
        CHECK(!s[2].is_call && s[2].n_idx == 0 && strcmp(s[2].lhs, "s") == 0);
        CHECK(!s[3].is_call && strcmp(expr_str(s[3].rhs, b, sizeof b), "h(A)") == 0);
        CHECK(!s[4].is_call && strcmp(expr_str(s[4].rhs, b, sizeof b), "(+ f(A) 1)") == 0);
        CHECK(!s[5].is_call && s[5].n_where == 1);
        CHECK(s[6].is_call && s[6].n_outs == 2);
        CHECK(!s[7].is_call);
    }
    done(&t);
    if (parse_ok(&t, "def f() -> (a) { a = 1 }\ndef g(float x) -> (y, z) { y, z = f() }")) {
        const tc__stmt *s = &t.ast.defs[1].stmts[0];
        CHECK(s->is_call && s->n_args == 0 && s->n_outs == 2);
    }
    done(&t);
}

static void test_layout(void) {
    /* comments of both kinds, ';' separators, statements on one line, where
       lists ending at the next statement */
    const char *src = "# leading comment\n"
                      "// another\n"
                      "def f(float(N) A /* not a comment? */) -> (B) { }\n";
    pt t;
    CHECK(!parse(&t, src)); /* '/' then '*': C block comments are not TC */
    done(&t);
    src = "# leading comment\n"
          "def f(float(N) A, // the input\n"
          "      float(N) Z) -> (B, C, D) { # body\n"
          "  B(i) = A(i); C(i) = B(i) ;; D(i) = C(i) where i in 0:N # trailing\n"
          "  B(i) += A(i + k) where k in 0:2 C(i) = 2 * B(i)\n"
          "  D(i) = -C(i)\n"
          "  // done\n"
          "}// end\n"
          "def g(float x) -> (y) {}";
    if (parse_ok(&t, src)) {
        const tc__def *d = &t.ast.defs[0];
        CHECK(t.ast.n_defs == 2 && d->n_inputs == 2 && d->n_stmts == 6);
        CHECK(d->stmts[2].n_where == 1 && d->stmts[3].n_where == 1);
        CHECK(strcmp(d->stmts[4].lhs, "C") == 0 && d->stmts[4].span.line == 5);
        CHECK(d->stmts[5].rhs->kind == TC__E_UNARY);
        CHECK(t.ast.defs[1].n_stmts == 0);
    }
    done(&t);
    /* CRLF line ends and tabs */
    if (parse_ok(&t, "def f(float(N) A) -> (B) {\r\n\tB(i) = A(i)\r\n}\r\n")) {
        CHECK(t.ast.defs[0].stmts[0].span.line == 2 && t.ast.defs[0].stmts[0].span.col == 2);
    }
    done(&t);
    /* A() on the left is a 0-rank write too; empty dims are rank 0 */
    if (parse_ok(&t, "def f(float() A) -> (B) { B() = A() }")) {
        CHECK(t.ast.defs[0].inputs[0].rank == 0 && t.ast.defs[0].stmts[0].n_idx == 0);
    }
    done(&t);
}

/* ---- errors: code and exact line:col ---- */

typedef struct err_case {
    const char *src;
    tc_status code;
    int line, col;
} err_case;

static void check_error_case(const err_case *c, size_t len) {
    pt t;
    int ok = parse_len(&t, c->src, len, 0);
    CHECKF(!ok && t.err.code == c->code && t.err.line == c->line && t.err.col == c->col,
           "source:\n%s\ngot %s %d:%d \"%s\", want %s %d:%d", c->src, tc_status_name(t.err.code),
           t.err.line, t.err.col, t.err.msg, tc_status_name(c->code), c->line, c->col);
    CHECK(t.ast.n_defs == 0 && t.ast.defs == NULL);
    CHECK(t.err.offset >= 0 && (size_t)(t.err.offset + t.err.length) <= len);
    if (getenv("TC_SHOW_ERRORS")) {
        char buf[1024];
        tc_error_format(&t.err, "t.tc", c->src, buf, sizeof buf);
        printf("%s", buf);
    }
    done(&t);
}

#define HDR "def f(float(N) A) -> (B) {\n" /* statements start on line 2 */
static const err_case error_cases[] = {
    /* unterminated things */
    {HDR "  B(i) = A(i)\n", TC_ERR_SYNTAX, 3, 1},
    {HDR "  B(i) = A(i)\ndef g(float x) -> (y) { y = x }", TC_ERR_SYNTAX, 3, 1},
    {HDR "  B(i) = A(i\n}", TC_ERR_SYNTAX, 3, 1},
    {HDR "  B(i) = (A(i) + 1 }", TC_ERR_SYNTAX, 2, 20},
    {HDR "  B(i) = i > 0 ? A(i) }", TC_ERR_SYNTAX, 2, 23},
    {"def f(float(N) A", TC_ERR_SYNTAX, 1, 17},
    {"def f(float(N A) -> (B) { }", TC_ERR_SYNTAX, 1, 15},
    {"def f(float(N) A) -> (B, C { }", TC_ERR_SYNTAX, 1, 28},
    /* bad characters and tokens */
    {HDR "  B(i) = A(i) @ 1\n}", TC_ERR_SYNTAX, 2, 15},
    {HDR "  B(i) = A(i) \xc3\xa9\n}", TC_ERR_SYNTAX, 2, 15},
    {HDR "  B(i) = A(i) & A(i)\n}", TC_ERR_SYNTAX, 2, 15},
    {HDR "  B(i) = A(i) | A(i)\n}", TC_ERR_SYNTAX, 2, 15},
    {HDR "  B(i) = A(i) $\n}", TC_ERR_SYNTAX, 2, 15},
    {HDR "  B(i) = A(i) /* c */\n}", TC_ERR_SYNTAX, 2, 16},
    {"def f(float(N) A) -> (B) {\x01}", TC_ERR_SYNTAX, 1, 27},
    /* numbers */
    {HDR "  B(i) = A(i) + 9223372036854775808\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 0x10000000000000000\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 18446744073709551616u\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 0x\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 0x1.8\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 0x1p\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 0x1p3u\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 019\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 10lL\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 10uu\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 1.5u\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 1e400\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 1e999999999999\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(2i)\n}", TC_ERR_SYNTAX, 2, 12},
    {HDR "  B(i) = A(i) + 1f\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) + 1e\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i) * A.x\n}", TC_ERR_SYNTAX, 2, 19},
    {HDR "  B(i) = A(i) * A.1.5\n}", TC_ERR_SYNTAX, 2, 19},
    /* definitions */
    {"", TC_ERR_SYNTAX, 1, 1},
    {"# only a comment\n", TC_ERR_SYNTAX, 2, 1},
    {"foo", TC_ERR_SYNTAX, 1, 1},
    {"def (float(N) A) -> (B) { }", TC_ERR_SYNTAX, 1, 5},
    {"def where(float(N) A) -> (B) { }", TC_ERR_SYNTAX, 1, 5},
    {"def f float(N) A) -> (B) { }", TC_ERR_SYNTAX, 1, 7},
    {"def f(floot(N) A) -> (B) { }", TC_ERR_SYNTAX, 1, 7},
    {"def f(float(N) A, B) -> (C) { }", TC_ERR_SYNTAX, 1, 19},
    {"def f(float(N) A,) -> (C) { }", TC_ERR_SYNTAX, 1, 18},
    {"def f(float(N) A B) -> (C) { }", TC_ERR_SYNTAX, 1, 18},
    {"def f(float(N,) A) -> (C) { }", TC_ERR_SYNTAX, 1, 15},
    {"def f(float(N) A) -> (C,) { }", TC_ERR_SYNTAX, 1, 25},
    {"def f(float(N+1) A) -> (C) { }", TC_ERR_SYNTAX, 1, 14},
    {"def f(float(N, 1.5) A) -> (C) { }", TC_ERR_SYNTAX, 1, 16},
    {"def f(float(N)) -> (C) { }", TC_ERR_SYNTAX, 1, 15},
    {"def f(float(N) A) (B) { }", TC_ERR_SYNTAX, 1, 19},
    {"def f(float(N) A) -> () { }", TC_ERR_SYNTAX, 1, 23},
    {"def f(float(N) A) -> { }", TC_ERR_SYNTAX, 1, 22},
    {"def f(float(N) A) -> B, C { }", TC_ERR_SYNTAX, 1, 23},
    {"def f(float(N) A) -> (B) B(i) = A(i) }", TC_ERR_SYNTAX, 1, 26},
    {"def f(float(N) A) -> (float(N) 3) { }", TC_ERR_SYNTAX, 1, 32},
    {"def f(float(N) A) -> (B) { } }", TC_ERR_SYNTAX, 1, 30},
    /* statements */
    {HDR "  3 = A(0)\n}", TC_ERR_SYNTAX, 2, 3},
    {HDR "  (B(i)) = A(i)\n}", TC_ERR_SYNTAX, 2, 3},
    {HDR "  B(i + 1) = A(i)\n}", TC_ERR_SYNTAX, 2, 7},
    {HDR "  B(0) = A(0)\n}", TC_ERR_SYNTAX, 2, 5},
    {HDR "  B(i, i) = A(i)\n}", TC_ERR_NAME, 2, 8},
    {HDR "  B(i j) = A(i)\n}", TC_ERR_SYNTAX, 2, 7},
    {HDR "  B(i) A(i)\n}", TC_ERR_SYNTAX, 2, 8},
    {HDR "  B(i) -= A(i)\n}", TC_ERR_SYNTAX, 2, 8},
    {HDR "  B(i) /= A(i)\n}", TC_ERR_SYNTAX, 2, 8},
    {HDR "  B(i) == A(i)\n}", TC_ERR_SYNTAX, 2, 8},
    {HDR "  B(i) += \n}", TC_ERR_SYNTAX, 3, 1},
    {HDR "  B(i) = A(i) +\n}", TC_ERR_SYNTAX, 3, 1},
    {HDR "  B(i) = A(i) * * A(i)\n}", TC_ERR_SYNTAX, 2, 17},
    {HDR "  B(i) = A(i,)\n}", TC_ERR_SYNTAX, 2, 14},
    {HDR "  B(i) = A(i) B(i)\n}", TC_ERR_SYNTAX, 3, 1},
    {HDR "  B(i) = A(i) where\n}", TC_ERR_SYNTAX, 3, 1},
    {HDR "  B(i) = A(i) where i in 0 N\n}", TC_ERR_SYNTAX, 2, 28},
    {HDR "  B(i) = A(i) where i of 0:N\n}", TC_ERR_SYNTAX, 2, 23},
    {HDR "  B(i) = A(i) where i = [0, N]\n}", TC_ERR_SYNTAX, 2, 30},
    {HDR "  B(i) = A(i) where i = [0 N[\n}", TC_ERR_SYNTAX, 2, 28},
    {HDR "  B(i) = A(i) where i = [0, N) \n}", TC_ERR_SYNTAX, 2, 30},
    {HDR "  B(i) = A(i) where 3\n}", TC_ERR_SYNTAX, 2, 21},
    {HDR "  B(i) = A(i) where i in 0:N,\n}", TC_ERR_SYNTAX, 3, 1},
    {HDR "  B(i) = A(i) where exists\n}", TC_ERR_SYNTAX, 3, 1},
    {HDR "  x, 3 = f(A)\n}", TC_ERR_SYNTAX, 2, 6},
    {HDR "  x, y(i) = f(A)\n}", TC_ERR_SYNTAX, 2, 7},
    {HDR "  x, y = 3\n}", TC_ERR_SYNTAX, 2, 10},
    {HDR "  x, y = f A\n}", TC_ERR_SYNTAX, 2, 12},
    {HDR "  x, y = f(A + 1)\n}", TC_ERR_SYNTAX, 2, 14},
    {HDR "  x, y = f(A(i))\n}", TC_ERR_SYNTAX, 2, 13},
    {HDR "  x, y = f(A\n}", TC_ERR_SYNTAX, 3, 1},
    {HDR "  x, y = f(A,)\n}", TC_ERR_SYNTAX, 2, 14},
    {HDR "  B(i) = A(i)\n  def\n}", TC_ERR_SYNTAX, 3, 3},
    /* limits */
    {HDR "  B(a, b, c, d, e, f, g, h, i) = A(a)\n}", TC_ERR_LIMIT, 2, 29},
    {"def f(float(A, B, C, D, E, F, G, H, I) X) -> (B) { }", TC_ERR_LIMIT, 1, 37},
};

static void test_errors(void) {
    size_t i;
    for (i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++)
        check_error_case(&error_cases[i], strlen(error_cases[i].src));
    {
        /* a NUL byte inside the source length is an unexpected character */
        static const char src[] = "def f(float(N) A) -> (B) {\0 }";
        err_case c = {src, TC_ERR_SYNTAX, 1, 27};
        check_error_case(&c, sizeof src - 1);
    }
}

/* Syntax errors come out of tc_compile with their code and position, and
   a context that has already failed is left alone. */
static void test_through_api(void) {
    tc_compile_desc d;
    tc_program *p = NULL;
    tc_error e;
    pt t;
    memset(&d, 0, sizeof d);
    d.source = "def f(float(N) A) -> (B) {\n  B(i) = A(i) +\n}";
    CHECK(tc_compile(&d, &p, &e) == TC_ERR_SYNTAX && p == NULL);
    CHECK(e.code == TC_ERR_SYNTAX && e.line == 3 && e.col == 1 && e.offset == 43);
    d.source = "def f(float x) -> (y) { y = ((((x)))) }";
    d.max_depth = 3;
    CHECK(tc_compile(&d, &p, &e) == TC_ERR_LIMIT && e.line == 1 && e.col == 32);
    memset(&t, 0, sizeof t);
    t.C.arena = &t.arena;
    t.C.err = &t.err;
    t.C.src = "def f(float x) -> (y) { y = x }";
    t.C.src_len = strlen(t.C.src);
    t.C.failed = 1;
    CHECK(tc__parse(&t.C, &t.ast) == 0 && t.err.code == TC_OK && t.ast.n_defs == 0);
    t.C.failed = 0;
    CHECK(tc__parse(&t.C, &t.ast) == 1 && t.ast.n_defs == 1);
    done(&t);
}

/* ---- nesting limits ---- */

/* Builds "def f(float x) -> (y) { y = <prefix * n> x <suffix * n> }". */
static char *nested(const char *prefix, const char *mid, const char *suffix, int n) {
    size_t lp = strlen(prefix), lm = strlen(mid), ls = strlen(suffix), k = 0;
    const char *head = "def f(float x) -> (y) { y = ", *tail = " }";
    char *s = (char *)malloc(strlen(head) + (size_t)n * (lp + ls) + lm + strlen(tail) + 1);
    int i;
    memcpy(s, head, strlen(head));
    k = strlen(head);
    for (i = 0; i < n; i++, k += lp) memcpy(s + k, prefix, lp);
    memcpy(s + k, mid, lm);
    k += lm;
    for (i = 0; i < n; i++, k += ls) memcpy(s + k, suffix, ls);
    memcpy(s + k, tail, strlen(tail) + 1);
    return s;
}

static void check_nesting(const char *prefix, const char *mid, const char *suffix, int n,
                          int max_depth, int want_ok) {
    char *s = nested(prefix, mid, suffix, n);
    pt t;
    int ok = parse_len(&t, s, strlen(s), max_depth);
    CHECKF(ok == want_ok && (ok || t.err.code == TC_ERR_LIMIT), "%s%s%s x %d (max %d): %s %s",
           prefix, mid, suffix, n, max_depth, ok ? "ok" : tc_status_name(t.err.code), t.err.msg);
    if (!ok) CHECK(t.err.line == 1 && t.err.col > 28);
    done(&t);
    free(s);
}

static void test_nesting(void) {
    check_nesting("(", "x", ")", 100000, 0, 0);
    check_nesting("-", "x", "", 100000, 0, 0);
    check_nesting("!", "x", "", 100000, 0, 0);
    check_nesting("f(", "x", ")", 100000, 0, 0);
    check_nesting("x ? x : ", "x", "", 100000, 0, 0);
    check_nesting("", "x", " + x", 100000, 0, 1); /* binary chains are loops */
    check_nesting("", "x", "*x-x<x", 100000, 0, 1);
    check_nesting("x+", "x", "", 100000, 0, 1);
    /* the bound: the right-hand side is depth 1, each '(' or unary adds 1 */
    check_nesting("(", "x", ")", TC_MAX_DEPTH - 1, 0, 1);
    check_nesting("(", "x", ")", TC_MAX_DEPTH, 0, 0);
    check_nesting("-", "x", "", TC_MAX_DEPTH - 1, 0, 1);
    check_nesting("-", "x", "", TC_MAX_DEPTH, 0, 0);
    check_nesting("(", "x", ")", 9, 10, 1);
    check_nesting("(", "x", ")", 10, 10, 0);
    check_nesting("(-", "x", ")", 4, 10, 1);
    check_nesting("(-", "x", ")", 5, 10, 0);
    check_nesting("(", "x", ")", 5000, 10000, 1);
}

/* ---- allocation failures ---- */

typedef struct fail_alloc {
    int left, count;
} fail_alloc;
static void *fa_alloc(size_t size, void *user) {
    fail_alloc *f = (fail_alloc *)user;
    if (f->left-- <= 0) return NULL;
    f->count++;
    return malloc(size);
}
static void fa_free(void *p, void *user) {
    fail_alloc *f = (fail_alloc *)user;
    if (p) f->count--;
    free(p);
}

static void test_out_of_memory(void) {
    /* a source big enough to need several arena chunks */
    char *src = nested("", "x", " + x(i, j, k)", 3000);
    int n, seen_oom = 0, succeeded = 0;
    for (n = 0; n < 200 && !succeeded; n++) {
        fail_alloc f;
        pt t;
        memset(&t, 0, sizeof t);
        f.left = n;
        f.count = 0;
        t.arena.alloc.alloc_fn = fa_alloc;
        t.arena.alloc.free_fn = fa_free;
        t.arena.alloc.user = &f;
        t.C.arena = &t.arena;
        t.C.err = &t.err;
        t.C.src = src;
        t.C.src_len = strlen(src);
        t.ok = tc__parse(&t.C, &t.ast);
        if (t.ok) succeeded = 1;
        else {
            CHECKF(t.err.code == TC_ERR_OUT_OF_MEMORY && t.err.line == 0, "n=%d: %s", n,
                   t.err.msg);
            seen_oom = 1;
        }
        tc__arena_free_all(&t.arena);
        CHECK(f.count == 0);
    }
    CHECK(seen_oom && succeeded);
    free(src);
}

/* ---- fuzz ---- */

typedef struct rng {
    uint64_t s;
} rng;
static uint32_t rng_next(rng *r) { /* xorshift64* */
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (uint32_t)((r->s * 2685821657736338717ULL) >> 32);
}
static uint32_t rng_below(rng *r, uint32_t n) { return n ? rng_next(r) % n : 0; }

/* Parses exactly len bytes held in a buffer of that size (no NUL after
   it: ASan catches any read past the end) and checks the contract. */
static void fuzz_one(const char *bytes, size_t len) {
    char *buf = (char *)malloc(len ? len : 1);
    pt t;
    int ok, i, j;
    memcpy(buf, bytes, len);
    ok = parse_len(&t, buf, len, 0);
    if (!ok) {
        CHECKF(t.err.code != TC_OK && t.err.line >= 1 && t.err.col >= 1 && t.err.msg[0],
               "code %d at %d:%d", (int)t.err.code, t.err.line, t.err.col);
        CHECK(t.err.offset >= 0 && (size_t)(t.err.offset + t.err.length) <= len);
        CHECK(t.err.code == TC_ERR_SYNTAX || t.err.code == TC_ERR_NAME ||
              t.err.code == TC_ERR_LIMIT);
    } else {
        CHECK(t.ast.n_defs >= 1);
        for (i = 0; i < t.ast.n_defs; i++) {
            const tc__def *d = &t.ast.defs[i];
            CHECK(d->name && d->n_outputs >= 1 && d->span.line >= 1);
            CHECK((size_t)(d->span.offset + d->span.length) <= len);
            for (j = 0; j < d->n_stmts; j++)
                CHECK(d->stmts[j].span.length > 0 &&
                      (size_t)(d->stmts[j].span.offset + d->stmts[j].span.length) <= len &&
                      (d->stmts[j].is_call || d->stmts[j].rhs));
        }
    }
    done(&t);
    free(buf);
}

static const char *const fuzz_seeds[] = {
    "def mm(float(M,K) A, float(K,N) B) -> (C) {\n  C(m,n) +=! A(m,k) * B(k,n)\n}\n",
    ("def f(float(N) B, float(N) D) -> (A, E) {\n"
     "  A(i) = B(2*i + k) where k in 0:2, x = 3 * N, exists B(i), kw = [0, N / 2[\n"
     "  E(i) = i > 0 ? D(i - 1) : -D(i) # c\n  s max=! E(i) // d\n}"),
    ("def f(float(N) X) -> (Y, Z) { Y(i) = X(i); Z(i) = exp(X(i)) }\n"
     "def g(float(N) A, half h, int(3) I) -> (B, C) { B, C = f(A) D = f(A) }"),
    "def c(float(N, M) T, uint8(N) G) -> (O) { O(i) min= T(G(i), j) * T.1 + 0x1f - 1.5e-3f }",
};
static const char *const fuzz_tokens[] = {
    "def ", "f", "(", ")", "{", "}", "[", "]", ",", ".", ":", ";", "?", "->", "=", "+=", "*=",
    "min=", "max=", "+=!", "*=!", "min=!", "max=!", "==", "!=", "<", "<=", ">", ">=", "&&",
    "||", "!", "+", "-", "*", "/", "%", " where ", " in ", " exists ", "float", "int32", "(N)",
    "A", "i", "0", "1.5", "0x10", "\n", " ", "#c\n", "//c\n", "T.1", "min(", "max(", "@", "\xff",
};

static void test_fuzz(void) {
    rng r;
    int iter;
    char buf[600];
    r.s = 0x9E3779B97F4A7C15ULL;
    for (iter = 0; iter < 3000; iter++) { /* random bytes */
        size_t len = rng_below(&r, 80), k;
        for (k = 0; k < len; k++) buf[k] = (char)rng_below(&r, 256);
        fuzz_one(buf, len);
    }
    for (iter = 0; iter < 3000; iter++) { /* random token soup after a header */
        size_t len = 0;
        int n = (int)rng_below(&r, 40);
        const char *head = iter % 2 ? "def f(float(N) A) -> (B) { B(i) = " : "";
        memcpy(buf, head, strlen(head));
        len = strlen(head);
        while (n-- > 0) {
            const char *tok = fuzz_tokens[rng_below(&r, sizeof fuzz_tokens / sizeof *fuzz_tokens)];
            if (len + strlen(tok) >= sizeof buf) break;
            memcpy(buf + len, tok, strlen(tok));
            len += strlen(tok);
        }
        fuzz_one(buf, len);
    }
    for (iter = 0; iter < 6000; iter++) { /* mutations of valid sources */
        const char *seed = fuzz_seeds[iter % (sizeof fuzz_seeds / sizeof *fuzz_seeds)];
        size_t len = strlen(seed);
        int m, muts = 1 + (int)rng_below(&r, 4);
        memcpy(buf, seed, len);
        for (m = 0; m < muts; m++) {
            size_t at = rng_below(&r, (uint32_t)len + 1);
            switch (rng_below(&r, 5)) {
            case 0: /* delete a byte */
                if (at < len) memmove(buf + at, buf + at + 1, len - at - 1), len--;
                break;
            case 1: /* insert a byte */
                if (len + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, len - at);
                    buf[at] = (char)rng_below(&r, 256);
                    len++;
                }
                break;
            case 2: /* flip a byte */
                if (at < len) buf[at] = (char)(buf[at] ^ (1 << rng_below(&r, 8)));
                break;
            case 3: /* truncate */
                len = at;
                break;
            default: /* insert a token */
            {
                const char *tok =
                    fuzz_tokens[rng_below(&r, sizeof fuzz_tokens / sizeof *fuzz_tokens)];
                size_t tl = strlen(tok);
                if (len + tl < sizeof buf) {
                    memmove(buf + at + tl, buf + at, len - at);
                    memcpy(buf + at, tok, tl);
                    len += tl;
                }
            }
            }
        }
        fuzz_one(buf, len);
    }
    /* the unmutated seeds parse */
    for (iter = 0; iter < (int)(sizeof fuzz_seeds / sizeof *fuzz_seeds); iter++) {
        pt t;
        parse_ok(&t, fuzz_seeds[iter]);
        done(&t);
    }
}

int main(void) {
    RUN(test_lex_tokens);
    RUN(test_lex_spans);
    RUN(test_literals);
    RUN(test_defs_and_params);
    RUN(test_all_types);
    RUN(test_reductions);
    RUN(test_where);
    RUN(test_precedence);
    RUN(test_calls_and_reads);
    RUN(test_call_statements);
    RUN(test_layout);
    RUN(test_errors);
    RUN(test_through_api);
    RUN(test_nesting);
    RUN(test_out_of_memory);
    RUN(test_fuzz);
    RUN(prover_fuzz);
    return th_report();
}
