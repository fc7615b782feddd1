/* ==== [tc:config] Configuration defaults and implementation includes ====== */
#if defined(TC_MALLOC) != defined(TC_FREE) || defined(TC_MALLOC) != defined(TC_REALLOC)
#error "tc.h: define all of TC_MALLOC, TC_REALLOC and TC_FREE, or none"
#endif
#if !defined(TC_MALLOC)
#include <stdlib.h>
#define TC_MALLOC(sz, ud) ((void)(ud), malloc(sz))
#define TC_REALLOC(p, oldsz, newsz, ud) ((void)(ud), (void)(oldsz), realloc((p), (newsz)))
#define TC_FREE(p, ud) ((void)(ud), free(p))
#endif
#if !defined(TC_ASSERT)
#include <assert.h>
#define TC_ASSERT(c) assert(c)
#endif
#ifndef TC_MAX_THREADS
#define TC_MAX_THREADS 64
#endif
#ifndef TC_BLOCK
#define TC_BLOCK 256
#endif
#ifndef TC_MAX_DEPTH
#define TC_MAX_DEPTH 256
#endif
#ifndef TC_MAX_SOURCE
#define TC_MAX_SOURCE (16 * 1024 * 1024)
#endif
#ifndef TC_ARENA_CHUNK
#define TC_ARENA_CHUNK 16384
#endif

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h> /* vsnprintf only: the library never prints */
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TC__PRIVATE static __attribute__((unused))
#else
#define TC__PRIVATE static
#endif

/* ==== [tc:util] Allocation, arena, errors, strings, checked math ========== */

/* Every allocation goes through the program's allocator (or the macros). */
TC__PRIVATE void *tc__mem_alloc(const tc_allocator *a, size_t size) {
    if (size == 0) size = 1;
    if (a && a->alloc_fn) return a->alloc_fn(size, a->user);
    return TC_MALLOC(size, a ? a->user : NULL);
}
TC__PRIVATE void *tc__mem_realloc(const tc_allocator *a, void *p, size_t old_size,
                                  size_t new_size) {
    if (new_size == 0) new_size = 1;
    if (a && a->realloc_fn) return a->realloc_fn(p, old_size, new_size, a->user);
    if (a && a->alloc_fn) { /* alloc+free given without realloc: emulate */
        void *q = a->alloc_fn(new_size, a->user);
        if (!q) return NULL;
        if (p) {
            memcpy(q, p, old_size < new_size ? old_size : new_size);
            if (a->free_fn) a->free_fn(p, a->user);
        }
        return q;
    }
    return TC_REALLOC(p, old_size, new_size, a ? a->user : NULL);
}
TC__PRIVATE void tc__mem_free(const tc_allocator *a, void *p) {
    if (!p) return;
    if (a && a->alloc_fn) {
        if (a->free_fn) a->free_fn(p, a->user);
        return;
    }
    TC_FREE(p, a ? a->user : NULL);
}

/* Arena: chunks from the allocator, freed all at once. Memory is zeroed and
   aligned for any scalar. A compiled program owns one arena. */
typedef struct tc__chunk {
    struct tc__chunk *next;
    size_t size, used;
    /* data follows, aligned */
} tc__chunk;
typedef struct tc__arena {
    tc_allocator alloc;
    tc__chunk *head;
} tc__arena;

#define TC__ALIGN 16
#define TC__CHUNK_HDR ((sizeof(tc__chunk) + TC__ALIGN - 1) / TC__ALIGN * TC__ALIGN)

TC__PRIVATE void *tc__arena_alloc_raw(tc__arena *A, size_t size) {
    tc__chunk *c = A->head;
    size_t need = (size + TC__ALIGN - 1) / TC__ALIGN * TC__ALIGN;
    void *p;
    if (size > ((size_t)-1) / 2) return NULL;
    if (!c || c->size - c->used < need) {
        size_t sz = need > TC_ARENA_CHUNK ? need : TC_ARENA_CHUNK;
        c = (tc__chunk *)tc__mem_alloc(&A->alloc, TC__CHUNK_HDR + sz);
        if (!c) return NULL;
        c->size = sz;
        c->used = 0;
        c->next = A->head;
        A->head = c;
    }
    p = (char *)c + TC__CHUNK_HDR + c->used;
    c->used += need;
    memset(p, 0, size);
    return p;
}
TC__PRIVATE void tc__arena_free_all(tc__arena *A) {
    tc__chunk *c = A->head;
    while (c) {
        tc__chunk *next = c->next;
        tc__mem_free(&A->alloc, c);
        c = next;
    }
    A->head = NULL;
}

/* A source span: 1-based line and column, byte offset and length. */
typedef struct tc__span {
    int line, col, offset, length;
} tc__span;

/* Compile context shared by every phase. The first error wins: once
   `failed` is set, phases unwind and return failure without reporting. */
typedef struct tc__ctx {
    tc__arena *arena;
    const char *src;  /* the program's copy of the source */
    size_t src_len;
    tc_error *err;    /* never NULL */
    int failed;
    int max_depth;
    tc_error *warnings;
    int n_warnings, cap_warnings;
} tc__ctx;

TC__PRIVATE void tc__vformat_error(tc_error *e, tc_status code, tc__span sp, const char *fmt,
                                   va_list ap) {
    e->code = code;
    e->line = sp.line;
    e->col = sp.col;
    e->offset = sp.offset;
    e->length = sp.length;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

/* Sets a plain error (no source position) on an optional tc_error. */
TC__PRIVATE tc_status tc__set_error(tc_error *e, tc_status code, const char *fmt, ...) {
    va_list ap;
    tc__span none = {0, 0, 0, 0};
    if (!e) return code;
    va_start(ap, fmt);
    tc__vformat_error(e, code, none, fmt, ap);
    va_end(ap);
    return code;
}

/* Reports the first error of a compile; always returns 0 (failure). */
TC__PRIVATE int tc__fail(tc__ctx *C, tc_status code, tc__span sp, const char *fmt, ...) {
    va_list ap;
    if (C->failed) return 0;
    C->failed = 1;
    va_start(ap, fmt);
    tc__vformat_error(C->err, code, sp, fmt, ap);
    va_end(ap);
    return 0;
}

TC__PRIVATE void *tc__alloc(tc__ctx *C, size_t size) {
    void *p;
    if (C->failed) return NULL;
    p = tc__arena_alloc_raw(C->arena, size);
    if (!p) {
        tc__span none = {0, 0, 0, 0};
        tc__fail(C, TC_ERR_OUT_OF_MEMORY, none, "out of memory (%lu bytes)",
                 (unsigned long)size);
    }
    return p;
}
/* n elements of `size` bytes, overflow-checked. */
TC__PRIVATE void *tc__alloc_n(tc__ctx *C, size_t n, size_t size) {
    if (size && n > ((size_t)-1) / 2 / size) {
        tc__span none = {0, 0, 0, 0};
        tc__fail(C, TC_ERR_LIMIT, none, "allocation size overflows");
        return NULL;
    }
    return tc__alloc(C, n * size);
}

/* Grows an arena array so it holds at least `need` elements. */
TC__PRIVATE int tc__grow(tc__ctx *C, void **ptr, int *cap, int need, size_t elem) {
    int ncap;
    void *np;
    if (need <= *cap) return 1;
    ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > INT_MAX / 2) {
            tc__span none = {0, 0, 0, 0};
            return tc__fail(C, TC_ERR_LIMIT, none, "too many elements");
        }
        ncap *= 2;
    }
    np = tc__alloc_n(C, (size_t)ncap, elem);
    if (!np) return 0;
    if (*ptr && *cap) memcpy(np, *ptr, (size_t)*cap * elem);
    *ptr = np;
    *cap = ncap;
    return 1;
}

/* Collects a warning (never printed by the library). */
TC__PRIVATE void tc__warn(tc__ctx *C, tc__span sp, const char *fmt, ...) {
    va_list ap;
    tc_error *w;
    if (C->failed) return;
    if (!tc__grow(C, (void **)&C->warnings, &C->cap_warnings, C->n_warnings + 1,
                  sizeof(tc_error)))
        return;
    w = &C->warnings[C->n_warnings++];
    va_start(ap, fmt);
    tc__vformat_error(w, TC_OK, sp, fmt, ap);
    va_end(ap);
}

TC__PRIVATE char *tc__strndup(tc__ctx *C, const char *s, size_t n) {
    char *p = (char *)tc__alloc(C, n + 1);
    if (p) memcpy(p, s, n);
    return p;
}
TC__PRIVATE char *tc__strdup(tc__ctx *C, const char *s) { return tc__strndup(C, s, strlen(s)); }
/* printf into the arena. */
TC__PRIVATE char *tc__strfmt(tc__ctx *C, const char *fmt, ...) {
    va_list ap;
    char tmp[512];
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof tmp) n = (int)sizeof tmp - 1;
    return tc__strndup(C, tmp, (size_t)n);
}

/* Checked 64-bit arithmetic: returns 0 on overflow. */
TC__PRIVATE int tc__add64(int64_t a, int64_t b, int64_t *r) {
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 0;
    *r = a + b;
    return 1;
}
TC__PRIVATE int tc__sub64(int64_t a, int64_t b, int64_t *r) {
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return 0;
    *r = a - b;
    return 1;
}
TC__PRIVATE int tc__mul64(int64_t a, int64_t b, int64_t *r) {
    if (a == 0 || b == 0) {
        *r = 0;
        return 1;
    }
    if ((a == -1 && b == INT64_MIN) || (b == -1 && a == INT64_MIN)) return 0;
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
              : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b))
        return 0;
    *r = a * b;
    return 1;
}
/* Floor division and modulo (SEMANTICS.md §4): x/0 = x%0 = 0. */
TC__PRIVATE int64_t tc__floordiv64(int64_t a, int64_t b) {
    int64_t q;
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0 - (uint64_t)a); /* wraps for INT64_MIN */
    q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}
TC__PRIVATE int64_t tc__floormod64(int64_t a, int64_t b) {
    int64_t m;
    if (b == 0 || b == -1) return 0;
    m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
}

/* ==== [tc:tables] Dtypes, statuses, builtins ============================== */

static const struct {
    const char *name;
    size_t size;
    char kind;
    const char *npy;
} tc__dtypes[TC_DTYPE_COUNT] = {
#define TC__DTYPE_INFO(name, str, size, kind, npy) {str, size, kind, npy},
    TC_DTYPES(TC__DTYPE_INFO)
#undef TC__DTYPE_INFO
};

/* Spellings accepted in source besides the canonical names. */
static const struct {
    const char *alias;
    tc_dtype dtype;
} tc__dtype_aliases[] = {{"half", TC_FLOAT16}, {"float", TC_FLOAT32}, {"double", TC_FLOAT64},
                         {"byte", TC_UINT8},   {"int", TC_INT32}};

TC_API const char *tc_dtype_name(tc_dtype t) {
    return (unsigned)t < TC_DTYPE_COUNT ? tc__dtypes[t].name : NULL;
}
TC_API size_t tc_dtype_size(tc_dtype t) {
    return (unsigned)t < TC_DTYPE_COUNT ? tc__dtypes[t].size : 0;
}
TC_API const char *tc_dtype_npy(tc_dtype t) {
    return (unsigned)t < TC_DTYPE_COUNT ? tc__dtypes[t].npy : NULL;
}
TC_API int tc_dtype_from_name(const char *s, tc_dtype *out) {
    size_t i;
    if (!s) return 0;
    for (i = 0; i < TC_DTYPE_COUNT; i++)
        if (strcmp(s, tc__dtypes[i].name) == 0) {
            if (out) *out = (tc_dtype)i;
            return 1;
        }
    for (i = 0; i < sizeof tc__dtype_aliases / sizeof tc__dtype_aliases[0]; i++)
        if (strcmp(s, tc__dtype_aliases[i].alias) == 0) {
            if (out) *out = tc__dtype_aliases[i].dtype;
            return 1;
        }
    return 0;
}
TC__PRIVATE int tc__dtype_is_float(tc_dtype t) { return tc__dtypes[t].kind == 'f'; }
TC__PRIVATE int tc__dtype_is_int(tc_dtype t) { /* integral, bool excluded */
    return tc__dtypes[t].kind == 'i' || tc__dtypes[t].kind == 'u';
}
TC__PRIVATE int tc__dtype_is_signed(tc_dtype t) { return tc__dtypes[t].kind == 'i'; }

static const struct {
    const char *name, *message;
} tc__statuses[TC_STATUS_COUNT] = {
#define TC__STATUS_INFO(name, msg) {"TC_" #name, msg},
    TC_STATUS_LIST(TC__STATUS_INFO)
#undef TC__STATUS_INFO
};
TC_API const char *tc_status_name(tc_status s) {
    return (unsigned)s < TC_STATUS_COUNT ? tc__statuses[s].name : "TC_UNKNOWN_STATUS";
}
TC_API const char *tc_status_message(tc_status s) {
    return (unsigned)s < TC_STATUS_COUNT ? tc__statuses[s].message : "unknown status";
}
TC_API int tc_version(void) { return TC_VERSION_NUM; }

static const struct {
    const char *name;
    int arity;
} tc__builtins[TC_BUILTIN_COUNT] = {
#define TC__BUILTIN_INFO(id, name, arity) {name, arity},
    TC_BUILTINS(TC__BUILTIN_INFO)
#undef TC__BUILTIN_INFO
};
TC_API const char *tc_builtin_name(tc_builtin b) {
    return (unsigned)b < TC_BUILTIN_COUNT ? tc__builtins[b].name : NULL;
}
TC_API int tc_builtin_arity(tc_builtin b) {
    return (unsigned)b < TC_BUILTIN_COUNT ? tc__builtins[b].arity : -1;
}
/* Builtin id by name, or -1. */
TC__PRIVATE int tc__builtin_find(const char *name, size_t len) {
    int i;
    for (i = 0; i < TC_BUILTIN_COUNT; i++)
        if (strlen(tc__builtins[i].name) == len && memcmp(tc__builtins[i].name, name, len) == 0)
            return i;
    return -1;
}

static const struct {
    const char *name;
    int arity;
    const char *doc;
} tc__ir_ops[TC_IR_OP_COUNT] = {
#define TC__IR_OP_INFO(name, nargs, doc) {#name, nargs, doc},
    TC_IR_OPS(TC__IR_OP_INFO)
#undef TC__IR_OP_INFO
};
static const char *const tc__reduce_names[TC_REDUCE_COUNT] = {
#define TC__REDUCE_INFO(name, str) str,
    TC_REDUCTIONS(TC__REDUCE_INFO)
#undef TC__REDUCE_INFO
};

/* ==== [tc:tokens] Lexical tokens (one table: lexer, parser, messages) ===== */
/* clang-format off */
#define TC__TOKENS(X)                                                            \
    X(EOF, "end of input") X(IDENT, "identifier") X(INT, "integer")              \
    X(FLOAT, "number")                                                           \
    X(DEF, "def") X(WHERE, "where") X(IN, "in") X(EXISTS, "exists")              \
    X(LPAREN, "(") X(RPAREN, ")") X(LBRACE, "{") X(RBRACE, "}")                  \
    X(LBRACKET, "[") X(RBRACKET, "]") X(COMMA, ",") X(DOT, ".") X(COLON, ":")    \
    X(SEMI, ";") X(QUESTION, "?") X(ARROW, "->")                                 \
    X(ASSIGN, "=") X(PLUS_EQ, "+=") X(TIMES_EQ, "*=") X(MIN_EQ, "min=")          \
    X(MAX_EQ, "max=") X(PLUS_EQ_B, "+=!") X(TIMES_EQ_B, "*=!")                   \
    X(MIN_EQ_B, "min=!") X(MAX_EQ_B, "max=!")                                    \
    X(EQ, "==") X(NE, "!=") X(LT, "<") X(LE, "<=") X(GT, ">") X(GE, ">=")        \
    X(AND, "&&") X(OR, "||") X(NOT, "!") X(PLUS, "+") X(MINUS, "-")              \
    X(STAR, "*") X(SLASH, "/") X(PERCENT, "%")
/* clang-format on */
typedef enum tc__tok {
#define TC__TOK_ENUM(name, text) TC__T_##name,
    TC__TOKENS(TC__TOK_ENUM)
#undef TC__TOK_ENUM
    TC__T_COUNT
} tc__tok;
static const char *const tc__tok_text[TC__T_COUNT] = {
#define TC__TOK_TEXT(name, text) text,
    TC__TOKENS(TC__TOK_TEXT)
#undef TC__TOK_TEXT
};

/* ==== [tc:ast] The syntax tree: what the parser builds, sema reads ========
   All nodes live in the compile arena. Names are NUL-terminated arena copies.
   Every node keeps the span of its source text. */

/* clang-format off */
#define TC__EXPR_KINDS(X)                                                        \
    X(INT,     "integer literal: ival (dtype int32, or int64 when it does not fit)") \
    X(FLOAT,   "float literal: fval (float32)")                                  \
    X(IDENT,   "name: size variable, index variable, 0-rank tensor or let")      \
    X(UNARY,   "op args[0]: op is TC__T_MINUS, TC__T_PLUS or TC__T_NOT")         \
    X(BINARY,  "args[0] op args[1]: op is an operator token")                    \
    X(TERNARY, "args[0] ? args[1] : args[2]")                                    \
    X(CALL,    "name(args): tensor read, builtin, min/max or cast (dtype name)") \
    X(DIM,     "name.ival: extent of dimension ival of tensor name")
/* clang-format on */
typedef enum tc__expr_kind {
#define TC__EXPR_ENUM(name, doc) TC__E_##name,
    TC__EXPR_KINDS(TC__EXPR_ENUM)
#undef TC__EXPR_ENUM
    TC__E_COUNT
} tc__expr_kind;

typedef struct tc__expr tc__expr;
struct tc__expr {
    tc__expr_kind kind;
    tc__span span;      /* the whole expression */
    tc__tok op;         /* UNARY, BINARY */
    int64_t ival;       /* INT value; DIM dimension number */
    double fval;        /* FLOAT value */
    const char *name;   /* IDENT, CALL, DIM */
    tc__span name_span; /* IDENT, CALL, DIM */
    int nargs;
    tc__expr **args;
};

typedef enum tc__where_kind {
    TC__W_RANGE,  /* name in lo:hi   (also  name = [lo, hi[ ) */
    TC__W_LET,    /* name = expr */
    TC__W_EXISTS  /* exists expr */
} tc__where_kind;
typedef struct tc__where {
    tc__where_kind kind;
    tc__span span, name_span;
    const char *name;       /* RANGE, LET */
    tc__expr *lo, *hi;      /* RANGE */
    tc__expr *expr;         /* LET, EXISTS */
} tc__where;

typedef struct tc__stmt {
    tc__span span; /* whole statement, where clauses included */
    int is_call;   /* 1: outs = callee(args) */
    /* comprehension: lhs(idx...) reduce[!] rhs where ... */
    const char *lhs;
    tc__span lhs_span;
    int n_idx;
    const char **idx;
    tc__span *idx_spans;
    tc_reduce reduce;
    int init; /* `!` */
    tc__span op_span;
    tc__expr *rhs;
    int n_where;
    tc__where *where;
    /* call: outs... = callee(args...) (names only) */
    int n_outs;
    const char **outs;
    tc__span *out_spans;
    const char *callee;
    tc__span callee_span;
    int n_args;
    const char **args;
    tc__span *arg_spans;
} tc__stmt;

typedef struct tc__param {
    const char *name;
    tc__span span, name_span;
    int has_type;  /* outputs may omit the type: -> (C) */
    tc_dtype dtype;
    int rank;      /* 0 for scalars; only meaningful when has_type */
    tc__expr **dims; /* rank entries, each IDENT (size variable) or INT */
} tc__param;

typedef struct tc__def {
    const char *name;
    tc__span span, name_span;
    int n_inputs, n_outputs, n_stmts;
    tc__param *inputs, *outputs;
    tc__stmt *stmts;
} tc__def;

typedef struct tc__ast {
    int n_defs;
    tc__def *defs;
} tc__ast;

/* ==== [tc:program] The compiled program =================================== */
struct tc_program {
    tc_allocator alloc;
    tc__arena arena; /* everything below lives here */
    char *source;
    size_t source_len;
    int n_defs;
    tc_ir_def *ir;   /* n_defs */
    void **backend;  /* n_defs: the VM's compiled form of each def */
    int n_warnings;
    tc_error *warnings;
};

/* ==== [tc:sx] Size expressions: evaluation and printing =================== */

TC_API tc_status tc_sx_eval(const tc_ir_def *d, const int64_t *var_values,
                            const int64_t *input_values, int64_t *out, tc_error *err) {
    int i;
    if (!d || !out || (d->n_sizevars && !var_values))
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_sx_eval: NULL argument");
    for (i = 0; i < d->n_sx; i++) {
        const tc_sx *s = &d->sx[i];
        int64_t a = 0, b = 0, r = 0;
        int ok = 1;
        if (s->op >= TC_SX_ADD) {
            a = out[s->a];
            b = out[s->b];
        }
        switch (s->op) {
        case TC_SX_CONST: r = s->value; break;
        case TC_SX_VAR: r = var_values[s->value]; break;
        case TC_SX_SCALAR:
            if (!input_values)
                return tc__set_error(err, TC_ERR_INVALID_ARGUMENT,
                                     "size depends on the value of input %s",
                                     d->tensors[s->value].name);
            r = input_values[s->value];
            break;
        case TC_SX_ADD: ok = tc__add64(a, b, &r); break;
        case TC_SX_SUB: ok = tc__sub64(a, b, &r); break;
        case TC_SX_MUL: ok = tc__mul64(a, b, &r); break;
        case TC_SX_DIV: r = tc__floordiv64(a, b); break;
        case TC_SX_MOD: r = tc__floormod64(a, b); break;
        case TC_SX_MIN: r = a < b ? a : b; break;
        case TC_SX_MAX: r = a > b ? a : b; break;
        case TC_SX_OP_COUNT: ok = 0; break;
        }
        if (!ok) {
            char buf[128];
            tc_sx_format(d, i, buf, sizeof buf);
            return tc__set_error(err, TC_ERR_LIMIT, "size expression %s overflows 64 bits", buf);
        }
        out[i] = r;
    }
    return TC_OK;
}

/* Appends to a bounded buffer, counting what it would have written. */
typedef struct tc__buf {
    char *p;
    size_t cap, len;
} tc__buf;
TC__PRIVATE void tc__bprintf(tc__buf *b, const char *fmt, ...) {
    va_list ap;
    int n;
    char *dst = b->len < b->cap ? b->p + b->len : NULL;
    size_t room = b->len < b->cap ? b->cap - b->len : 0;
    va_start(ap, fmt);
    n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0) b->len += (size_t)n;
}
TC__PRIVATE int tc__buf_done(tc__buf *b) {
    if (b->cap) b->p[b->len < b->cap ? b->len : b->cap - 1] = '\0';
    return b->len > INT_MAX ? INT_MAX : (int)b->len;
}

/* Binding strength of an sx as printed: 1 + -, 2 * / %, 3 atoms. */
TC__PRIVATE int tc__sx_prec(const tc_sx *s) {
    switch (s->op) {
    case TC_SX_ADD: case TC_SX_SUB: return 1;
    case TC_SX_MUL: case TC_SX_DIV: case TC_SX_MOD: return 2;
    case TC_SX_CONST: return s->value < 0 ? 0 : 3;
    default: return 3;
    }
}
TC__PRIVATE void tc__sx_print(const tc_ir_def *d, int id, tc__buf *b, int min_prec) {
    const tc_sx *s = &d->sx[id];
    int prec = tc__sx_prec(s), paren = prec < min_prec;
    static const char *const ops[] = {"+", "-", "*", "/", "%"};
    if (paren) tc__bprintf(b, "(");
    switch (s->op) {
    case TC_SX_CONST: tc__bprintf(b, "%lld", (long long)s->value); break;
    case TC_SX_VAR: tc__bprintf(b, "%s", d->sizevars[s->value]); break;
    case TC_SX_SCALAR: tc__bprintf(b, "%s", d->tensors[s->value].name); break;
    case TC_SX_MIN: case TC_SX_MAX:
        tc__bprintf(b, s->op == TC_SX_MIN ? "min(" : "max(");
        tc__sx_print(d, s->a, b, 0);
        tc__bprintf(b, ", ");
        tc__sx_print(d, s->b, b, 0);
        tc__bprintf(b, ")");
        break;
    case TC_SX_ADD:
        /* a + (-c) reads better as a - c */
        if (d->sx[s->b].op == TC_SX_CONST && d->sx[s->b].value < 0 &&
            d->sx[s->b].value != INT64_MIN) {
            tc__sx_print(d, s->a, b, 1);
            tc__bprintf(b, " - %lld", -(long long)d->sx[s->b].value);
            break;
        }
        /* fall through */
    case TC_SX_SUB: case TC_SX_MUL: case TC_SX_DIV: case TC_SX_MOD:
        tc__sx_print(d, s->a, b, prec);
        tc__bprintf(b, " %s ", ops[s->op - TC_SX_ADD]);
        tc__sx_print(d, s->b, b, prec + 1);
        break;
    case TC_SX_OP_COUNT: break;
    }
    if (paren) tc__bprintf(b, ")");
}
TC_API int tc_sx_format(const tc_ir_def *d, int id, char *buf, size_t cap) {
    tc__buf b;
    b.p = buf;
    b.cap = buf ? cap : 0;
    b.len = 0;
    if (!d || id < 0 || id >= d->n_sx) {
        tc__bprintf(&b, "?");
        return tc__buf_done(&b);
    }
    tc__sx_print(d, id, &b, 0);
    return tc__buf_done(&b);
}

/* ==== [tc:errfmt] Error rendering: file:line:col, source line, caret ====== */
TC_API int tc_error_format(const tc_error *e, const char *file, const char *src, char *buf,
                           size_t cap) {
    tc__buf b;
    b.p = buf;
    b.cap = buf ? cap : 0;
    b.len = 0;
    if (!e) return 0;
    if (!file) file = "<tc>";
    if (e->line > 0)
        tc__bprintf(&b, "%s:%d:%d: %s: %s\n", file, e->line, e->col,
                    e->code == TC_OK ? "warning" : "error", e->msg);
    else
        tc__bprintf(&b, "%s: %s: %s\n", file, e->code == TC_OK ? "warning" : "error", e->msg);
    if (src && e->line > 0 && e->offset >= 0 && (size_t)e->offset <= strlen(src)) {
        const char *start = src + e->offset, *end;
        int i, n, len = e->length > 0 ? e->length : 1;
        while (start > src && start[-1] != '\n') start--;
        end = start;
        while (*end && *end != '\n') end++;
        n = (int)(src + e->offset - start);
        tc__bprintf(&b, "%.*s\n", (int)(end - start), start);
        for (i = 0; i < n; i++) tc__bprintf(&b, "%c", start[i] == '\t' ? '\t' : ' ');
        tc__bprintf(&b, "^");
        if (len > (int)(end - start) - n) len = (int)(end - start) - n;
        for (i = 1; i < len; i++) tc__bprintf(&b, "~");
        tc__bprintf(&b, "\n");
    }
    return tc__buf_done(&b);
}
