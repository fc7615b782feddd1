/* Front end: semantic checks, types, calls, range inference and the
   loop-nest IR, through tc_compile and tc_program_ir. */
/* Small arena chunks: every allocation is its own chunk, so the
   allocation-failure test below reaches every failure path. */
#define TC_ARENA_CHUNK 64
#define TC_IMPLEMENTATION
#include "tc.h"
#include "harness.h"

static tc_program *P;
static const tc_ir_def *D;
static tc_error E;

/* Compiles src; D = the IR of def `name` (NULL: the last def). */
static int compile_def(const char *src, const char *name) {
    tc_compile_desc cd;
    tc_program_free(P);
    P = NULL;
    D = NULL;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    if (tc_compile(&cd, &P, &E) != TC_OK) {
        fprintf(stderr, "  compile failed: %d:%d: %s\n", E.line, E.col, E.msg);
        return 0;
    }
    D = tc_program_ir(P, tc_program_find(P, name));
    return D != NULL;
}
static int compile(const char *src) { return compile_def(src, NULL); }

/* The error of compiling src: code, line, col, and a piece of the message. */
static void expect_error(const char *src, tc_status code, int line, int col, const char *piece) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error e;
    tc_status st;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    st = tc_compile(&cd, &p, &e);
    CHECKF(st == code && e.code == code, "want %s, got %s (%s) for: %s", tc_status_name(code),
           tc_status_name(st), e.msg, src);
    CHECKF(e.line == line && e.col == col, "want %d:%d, got %d:%d (%s)", line, col, e.line, e.col,
           e.msg);
    CHECKF(!piece || strstr(e.msg, piece), "message \"%s\" lacks \"%s\"", e.msg, piece);
    CHECK(p == NULL);
}

static int tensor_id(const char *name) {
    int i;
    for (i = 0; D && i < D->n_tensors; i++)
        if (strcmp(D->tensors[i].name, name) == 0) return i;
    return -1;
}
static const tc_ir_tensor *tensor(const char *name) {
    int i = tensor_id(name);
    return i >= 0 ? &D->tensors[i] : NULL;
}

/* sx id as text ("H - KH + 1"); four rotating buffers. */
static const char *sxs(int id) {
    static char buf[4][128];
    static int k;
    k = (k + 1) % 4;
    tc_sx_format(D, id, buf[k], sizeof buf[k]);
    return buf[k];
}

/* Value of sx id for sizes given as "N=5 M=3" (size variables, or 0-rank
   integer inputs by name). */
static int64_t sxv(int id, const char *sizes) {
    int64_t vars[32] = {0}, ins[32] = {0}, out[4096];
    const char *s = sizes;
    tc_error e;
    while (*s) {
        char name[32];
        long long v;
        int n = 0, i;
        if (sscanf(s, " %31[A-Za-z_0-9] = %lld%n", name, &v, &n) != 2) break;
        s += n;
        for (i = 0; i < D->n_sizevars; i++)
            if (strcmp(D->sizevars[i], name) == 0) vars[i] = v;
        for (i = 0; i < D->n_inputs; i++)
            if (strcmp(D->tensors[i].name, name) == 0) ins[i] = v;
    }
    if (D->n_sx > 4096 || tc_sx_eval(D, vars, ins, out, &e) != TC_OK) return -999999;
    return out[id];
}

static const tc_ir_stmt *stmt(int i) { return D && i < D->n_stmts ? &D->stmts[i] : NULL; }
static const tc_ir_loop *loop(int s, const char *name) {
    int l;
    for (l = 0; stmt(s) && l < stmt(s)->n_loops; l++)
        if (strcmp(stmt(s)->loops[l].name, name) == 0) return &stmt(s)->loops[l];
    return NULL;
}
/* "[lo, hi)" of a loop as text. */
static const char *range_text(int s, const char *name) {
    static char buf[4][256];
    static int k;
    const tc_ir_loop *l = loop(s, name);
    k = (k + 1) % 4;
    if (!l) return "?";
    snprintf(buf[k], sizeof buf[k], "[%s, %s)", sxs(l->lo), sxs(l->hi));
    return buf[k];
}
static const char *extent_text(const char *t, int d) {
    return tensor(t) ? sxs(tensor(t)->extent[d]) : "?";
}
static const char *min_text(const char *t, int d) { return tensor(t) ? sxs(tensor(t)->min[d]) : "?"; }

static int warnings_containing(const char *piece) {
    int i, n = 0;
    for (i = 0; i < tc_program_num_warnings(P); i++)
        if (strstr(tc_program_warning(P, i)->msg, piece)) n++;
    return n;
}

#define CHECK_STR(got, want) CHECKF(strcmp((got), (want)) == 0, "got \"%s\", want \"%s\"", (got), (want))

/* ---- Seed 001: range inference worked examples ---------------------------- */

static void test_matmul(void) {
    const tc_ir_stmt *s;
    CHECK(compile("def mat_mul(float(I, K) B, float(K, J) C) -> A {\n"
                  "  A(i, j) +=! B(i, k) * C(k, j)\n}"));
    if (!D) return;
    CHECK_STR(D->name, "mat_mul");
    CHECK(D->n_inputs == 2 && D->n_outputs == 1 && D->n_tensors == 3);
    CHECK(D->n_sizevars == 3);
    CHECK_STR(D->sizevars[0], "I");
    CHECK_STR(D->sizevars[1], "K");
    CHECK_STR(D->sizevars[2], "J");
    CHECK(D->tensors[0].kind == TC_TENSOR_INPUT && D->tensors[2].kind == TC_TENSOR_OUTPUT);
    CHECK(D->sx[D->tensors[0].extent[0]].op == TC_SX_VAR && D->sx[D->tensors[0].extent[0]].value == 0);
    CHECK_STR(extent_text("A", 0), "I");
    CHECK_STR(extent_text("A", 1), "J");
    CHECK_STR(min_text("A", 0), "0");
    CHECK(tensor("A")->dtype == TC_FLOAT32 && tensor("A")->rank == 2);
    s = stmt(0);
    CHECK(D->n_stmts == 1 && s->tensor == 2 && s->reduce == TC_REDUCE_SUM && s->init == 1);
    CHECK(s->n_loops == 3 && s->line == 2);
    CHECK_STR(s->text, "A(i, j) +=! B(i, k) * C(k, j)");
    CHECK_STR(s->loops[0].name, "i");
    CHECK_STR(s->loops[1].name, "j");
    CHECK_STR(s->loops[2].name, "k");
    CHECK(!s->loops[0].reduction && !s->loops[1].reduction && s->loops[2].reduction);
    CHECK_STR(range_text(0, "k"), "[0, K)");
    /* nodes: READ B, READ C, MUL, with affine maps */
    CHECK(s->n_nodes == 3 && s->value == 2);
    CHECK(s->nodes[0].op == TC_IR_READ && s->nodes[0].tensor == 0);
    CHECK(s->nodes[0].index[0].affine && s->nodes[0].index[0].coef[0] == 1 &&
          s->nodes[0].index[0].coef[1] == 0 && s->nodes[0].index[0].coef[2] == 0);
    CHECK(s->nodes[0].index[1].coef[2] == 1 && sxv(s->nodes[0].index[1].offset, "") == 0);
    CHECK(s->nodes[1].op == TC_IR_READ && s->nodes[1].tensor == 1);
    CHECK(s->nodes[2].op == TC_IR_MUL && s->nodes[2].args[0] == 0 && s->nodes[2].args[1] == 1 &&
          s->nodes[2].dtype == TC_FLOAT32);
    CHECK(D->n_checks == 0 && tc_program_num_warnings(P) == 0);
}

static void test_stencils_001(void) {
    /* A(i) = B(i) + C(i-2): i in [2, N); A has N elements, written from 2 */
    CHECK(compile("def s(float(N) B, float(N) C) -> (A) { A(i) = B(i) + C(i-2) }"));
    CHECK_STR(range_text(0, "i"), "[2, N)");
    CHECK_STR(extent_text("A", 0), "N");
    CHECK_STR(min_text("A", 0), "2");
    /* A(i) += B(i + k) * K(k): k from K first, then i */
    CHECK(compile("def c(float(N) B, float(M) K) -> (A) { A(i) +=! B(i + k) * K(k) }"));
    CHECK_STR(range_text(0, "k"), "[0, M)");
    CHECK_STR(range_text(0, "i"), "[0, N - M + 1)");
    CHECK(sxv(tensor("A")->extent[0], "N=10 M=3") == 8);
    CHECK(stmt(0)->loops[1].reduction && !stmt(0)->loops[0].reduction);
    CHECK(D->n_checks == 0);
}

static void test_preconditions(void) {
    const tc_ir_check *c;
    /* C(i + j) did not bound i or j: a run-time check, and a warning */
    CHECK(compile("def p(float(I) B, float(L) C, float(J) D) -> (A) {\n"
                  "  A(i, j) = B(i) * C(i + j) * D(j)\n}"));
    if (!D) return;
    CHECK_STR(extent_text("A", 0), "I");
    CHECK_STR(extent_text("A", 1), "J");
    CHECK(D->n_checks == 1);
    c = &D->checks[0];
    CHECK(c->kind == TC_CHECK_LE && c->stmt == 0);
    CHECK_STR(sxs(c->a), "I + J - 2");
    CHECK_STR(sxs(c->b), "L - 1");
    CHECK_STR(c->what, "C(i + j) at line 2, dimension 0");
    CHECK(sxv(c->a, "I=3 J=4 L=6") == 5 && sxv(c->b, "I=3 J=4 L=6") == 5);
    CHECK(warnings_containing("C(i + j)") == 1);
    CHECK(tc_program_warning(P, 0)->line == 2 && tc_program_warning(P, 0)->col == 20);
    /* With constant sizes the precondition is decided at compile time */
    CHECK(compile("def p(float(3) B, float(6) C, float(4) D) -> (A) { A(i, j) = B(i) * C(i + j) * D(j) }"));
    CHECK(D && D->n_checks == 0 && tc_program_num_warnings(P) == 0);
    expect_error("def p(float(3) B, float(5) C, float(4) D) -> (A) {\n A(i, j) = B(i) * C(i + j) * D(j) }",
                 TC_ERR_RANGE, 2, 19, "reaches 5, but C has size 5");
}

static void test_lut(void) {
    const tc_ir_stmt *s;
    CHECK(compile("def lut(float(J) B, int32(I) C) -> (A) { A(i) = B(C(i)) }"));
    if (!D) return;
    s = stmt(0);
    CHECK_STR(range_text(0, "i"), "[0, I)");
    CHECK(s->n_nodes == 2 && s->nodes[0].op == TC_IR_READ && s->nodes[0].tensor == 1 &&
          s->nodes[0].dtype == TC_INT32);
    CHECK(s->nodes[1].op == TC_IR_READ && s->nodes[1].tensor == 0 && !s->nodes[1].index[0].affine &&
          s->nodes[1].index[0].node == 0);
    CHECK(D->n_checks == 0);
    /* a gather is bounds-checked per element, as documented: no warning */
    CHECK(tc_program_num_warnings(P) == 0);
    /* int64 indices stay int64; uint8 ones become int32 */
    CHECK(compile("def g(float(N, E) T, int64(L) ix) -> (O) { O(l, e) = T(ix(l), e) }"));
    CHECK(stmt(0)->nodes[0].dtype == TC_INT64 && !stmt(0)->nodes[1].index[0].affine &&
          stmt(0)->nodes[1].index[1].affine);
    CHECK(compile("def g(float(N) T, uint8(L) ix) -> (O) { O(l) = T(ix(l)) }"));
    CHECK(stmt(0)->nodes[1].op == TC_IR_CAST && stmt(0)->nodes[1].dtype == TC_INT32 &&
          stmt(0)->nodes[2].index[0].node == 1);
    /* the clamped form of seed 001 */
    CHECK(compile("def lut(float(J) B, int32(I) C) -> (A) { A(i) = B(max(min(C(i), J-1), 0)) }"));
    CHECK(D && stmt(0)->nodes[stmt(0)->value].op == TC_IR_READ);
    /* seed 001 indexes with a float tensor: an integral index is required */
    expect_error("def lut(float(J) B, float(I) C) -> (A) { A(i) = B(C(i)) }", TC_ERR_TYPE, 1, 51,
                 "must be an integer, not float32");
}

static void test_reverted(void) {
    /* corrected: 0 <= 10 - i < I gives 11 - I <= i < 11; with i >= 0 */
    CHECK(compile("def reverted(float(I) B) -> (A) { A(i) = B(10 - i) }"));
    if (!D) return;
    CHECK_STR(range_text(0, "i"), "[max(0, 11 - I), 11)");
    CHECK_STR(extent_text("A", 0), "11");
    CHECK_STR(min_text("A", 0), "max(0, 11 - I)");
    CHECK(sxv(tensor("A")->min[0], "I=5") == 6);
    CHECK(sxv(tensor("A")->min[0], "I=20") == 0);
    CHECK(stmt(0)->nodes[0].index[0].coef[0] == -1 && sxv(stmt(0)->nodes[0].index[0].offset, "") == 10);
    CHECK(D->n_checks == 0);
    /* plain reversal */
    CHECK(compile("def rev(float(N) B) -> (A) { A(i) = B(N - 1 - i) }"));
    CHECK_STR(range_text(0, "i"), "[0, N)");
    CHECK_STR(extent_text("A", 0), "N");
}

static void test_subsample(void) {
    CHECK(compile("def subsample_2(float(I) B) -> (A) { A(i) = B(2*i) }"));
    CHECK_STR(range_text(0, "i"), "[0, (I + 1) / 2)");
    CHECK(sxv(tensor("A")->extent[0], "I=7") == 4 && sxv(tensor("A")->extent[0], "I=8") == 4);
    CHECK(stmt(0)->nodes[0].index[0].coef[0] == 2);
    /* a dynamic stride is not affine: a where clause is required */
    expect_error("def subsample_2(float(I) B, int32(1) S) -> (A) {\n  A(i) = B(S(0)*i)\n}",
                 TC_ERR_RANGE, 2, 10, "cannot infer the range of i");
    CHECK(compile("def subsample_2(float(I) B, int32(1) S) -> (A) { A(i) = B(S(0)*i) where i in 0:I }"));
    CHECK(D && !stmt(0)->nodes[stmt(0)->value].index[0].affine);
}

static void test_average_pool(void) {
    CHECK(compile("def average_pool_2(float(I) B) -> (A) { A(i) = B(2*i) + B(2*i + 1) }"));
    CHECK_STR(range_text(0, "i"), "[0, I / 2)");
    CHECK(sxv(tensor("A")->extent[0], "I=7") == 3);
    CHECK(compile("def average_pool_2(float(I) B) -> (A) { A(i) +=! B(2*i + k) where k = [0, 2[ }"));
    CHECK_STR(range_text(0, "i"), "[0, I / 2)");
    CHECK_STR(range_text(0, "k"), "[0, 2)");
    CHECK(D && D->n_checks == 0);
    CHECK(compile("def average_pool_2(float(I) B) -> (A) { A(i) +=! B(2*i + k) where k in 0:2 }"));
    CHECK_STR(extent_text("A", 0), "I / 2");
}

/* ---- Seeds 000 and 003 --------------------------------------------------- */

static void test_seed_003(void) {
    CHECK(compile("def mv(float(R,C) A, float(C) B) -> (o) {\no(i) +=! A(i,j) * B(j)\n}"));
    CHECK_STR(extent_text("o", 0), "R");
    CHECK_STR(range_text(0, "j"), "[0, C)");
    CHECK(tc_program_num_warnings(P) == 0);
    /* without ! it accumulates into the caller's buffer: a warning */
    CHECK(compile("def mv(float(R,C) A, float(C) B) -> (o) {\no(i) += A(i,j) * B(j)\n}"));
    CHECK(D && stmt(0)->init == 0 && stmt(0)->reduce == TC_REDUCE_SUM);
    CHECK(warnings_containing("+= without !") == 1);
    CHECK(tc_program_warning(P, 0)->line == 2 && tc_program_warning(P, 0)->col == 6);
    /* the README's matmul, corrected */
    CHECK(compile("def mm(float(X,Y) A, float(Y,Z) B) -> (R) {\nR(i,k) +=! A(i,j) * B(j,k)\n}"));
    CHECK_STR(extent_text("R", 0), "X");
    CHECK_STR(extent_text("R", 1), "Z");
    CHECK_STR(range_text(0, "j"), "[0, Y)");
    /* the README's matmul as written reduces over k with +=: valid, but R is X x Y */
    CHECK(compile("def mm(float(X,Y) A, float(Y,Z) B) -> (R) {\nR(i,j) += A(i,j) * B(j,k)\n}"));
    CHECK_STR(extent_text("R", 1), "Y");
    CHECK(compile("def conv(float(B,IP,H,W) input, float(OP,IP,KH,KW) weight) -> (output) {\n"
                  "output(b, op, h, w) +=! input(b, ip, h + kh, w + kw) * weight(op, ip, kh, kw)\n}"));
    CHECK_STR(extent_text("output", 2), "H - KH + 1");
    CHECK_STR(extent_text("output", 3), "W - KW + 1");
    CHECK_STR(extent_text("output", 1), "OP");
    CHECK(compile("def maxpool2x2(float(B,C,H,W) input) -> (output) {\n"
                  "output(b,c,i,j) max=! input(b,c,2*i + kw, 2*j + kh)\n"
                  "where kw = [0, 2[, kh = [0, 2[\n}"));
    CHECK_STR(extent_text("output", 2), "H / 2");
    CHECK_STR(extent_text("output", 3), "W / 2");
    CHECK(D && D->n_checks == 0 && stmt(0)->reduce == TC_REDUCE_MAX);
}

/* ---- Convolutions, pooling, gradients, stencils --------------------------- */

static void test_conv(void) {
    const tc_ir_stmt *s;
    CHECK(compile("def conv2d(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
                  "    Out(n,o,h,w) +=! I(n,c,h+kh,w+kw) * W1(o,c,kh,kw)\n}"));
    if (!D) return;
    s = stmt(0);
    CHECK(s->n_loops == 7);
    CHECK_STR(s->loops[4].name, "c");
    CHECK_STR(s->loops[5].name, "kh");
    CHECK_STR(s->loops[6].name, "kw");
    CHECK_STR(range_text(0, "h"), "[0, H - KH + 1)");
    CHECK_STR(range_text(0, "kh"), "[0, KH)");
    CHECK_STR(range_text(0, "c"), "[0, C)");
    CHECK(sxv(tensor("Out")->extent[2], "N=8 C=64 H=56 W=56 O=64 KH=3 KW=3") == 54);
    CHECK(s->nodes[0].index[2].coef[2] == 1 && s->nodes[0].index[2].coef[5] == 1);
    CHECK(D->n_checks == 0);
    /* strided */
    CHECK(compile("def sconv(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
                  "    Out(n,o,h,w) +=! I(n,c,2*h+kh,2*w+kw) * W1(o,c,kh,kw)\n}"));
    CHECK_STR(range_text(0, "h"), "[0, (H - KH + 2) / 2)");
    CHECK(sxv(tensor("Out")->extent[2], "H=7 KH=3 W=8 KW=3") == 3);
    CHECK(sxv(tensor("Out")->extent[3], "H=7 KH=3 W=8 KW=3") == 3);
    CHECK(D && D->n_checks == 0);
    /* grouped: the channel index is an affine combination */
    CHECK(compile("def gconv(float(N,G,C,H,W) I, float(G,O,C,KH,KW) W1) -> (Out) {\n"
                  "    Out(n,g,o,h,w) +=! I(n,g,c,h+kh,w+kw) * W1(g,o,c,kh,kw)\n}"));
    CHECK_STR(extent_text("Out", 1), "G");
    CHECK_STR(extent_text("Out", 3), "H - KH + 1");
}

static void test_pooling(void) {
    CHECK(compile("def maxpool2x2(float(N,C,H,W) I) -> (Out) {\n"
                  "    Out(n,c,h,w) max=! I(n,c,2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, w in 0:W/2\n}"));
    if (!D) return;
    CHECK_STR(extent_text("Out", 2), "H / 2");
    CHECK(sxv(tensor("Out")->extent[2], "N=8 C=64 H=112 W=112") == 56);
    /* the where ranges are fixed; I's reads are proven in bounds (2*(H/2) <= H) */
    CHECK(D->n_checks == 0 && tc_program_num_warnings(P) == 0);
    CHECK(stmt(0)->loops[4].reduction && stmt(0)->loops[5].reduction);
    /* average pooling with a general window */
    /* K * h is not affine (size coefficient): h needs a where clause */
    expect_error("def avgpool(float(N,H) I, int32 K) -> (O) {\n    O(n,h) +=! I(n, K*h + k) / K where k in 0:K\n}",
                 TC_ERR_RANGE, 2, 16, "range of h");
    CHECK(compile("def avgpool(float(N,H) I, int32 K) -> (O) {\n"
                  "    O(n,h) +=! I(n, K*h + k) / K where k in 0:K, h in 0:H/K\n}"));
    CHECK_STR(extent_text("O", 1), "H / K");
    CHECK(D->sx[tensor("O")->extent[1]].op == TC_SX_DIV);
    CHECK(sxv(tensor("O")->extent[1], "N=2 H=10 K=3") == 3);
}

static void test_pool_scalar_window(void) {
    /* 0-rank integer inputs in where ranges are TC_SX_SCALAR */
    CHECK(compile("def f(float(N) X, int64 S) -> (Y) { Y(i) = X(i) where i in 0:min(N, S) }"));
    if (!D) return;
    CHECK(D->sx[D->sx[tensor("Y")->extent[0]].a].op == TC_SX_VAR ||
          D->sx[D->sx[tensor("Y")->extent[0]].b].op == TC_SX_SCALAR);
    CHECK(sxv(tensor("Y")->extent[0], "N=10 S=4") == 4);
    CHECK(D->n_checks == 0); /* min(N, S) - 1 <= N - 1 */
    expect_error("def f(float(N) X, float S) -> (Y) { Y(i) = X(i) where i in 0:S }", TC_ERR_TYPE,
                 1, 62, "`S` is not a size");
    expect_error("def f(float(N) X) -> (Y) { Y(i) = X(i) where i in 0:N / 1.5 }", TC_ERR_TYPE, 1, 57,
                 "not a size expression");
    expect_error("def f(float(N) X) -> (Y) { Y(i) +=! X(j) where j in 0:N, i in 0:j }", TC_ERR_TYPE, 1, 65,
                 "`j` is not a size: index variables");
}

static void test_conv_gradients(void) {
    /* weight gradient: n,o,h,w from dO; c from I; then kh,kw from I(h+kh) */
    CHECK(compile("def gw(float(N,C,H,W) I, float(N,O,HO,WO) dO) -> (dW) {\n"
                  "  dW(o,c,kh,kw) +=! dO(n,o,h,w) * I(n,c,h+kh,w+kw)\n}"));
    if (!D) return;
    CHECK_STR(extent_text("dW", 2), "H - HO + 1");
    CHECK_STR(extent_text("dW", 3), "W - WO + 1");
    CHECK_STR(range_text(0, "n"), "[0, N)");
    CHECK(D->n_checks == 0);
    /* input gradient: the output index is not a plain variable in the
       forward access, so guard the read (never performed when out of range) */
    CHECK(compile("def gi(float(N,O,HO,WO) dO, float(O,C,KH,KW) W1) -> (dI) {\n"
                  "  dI(n,c,y,x) +=! ((y - kh >= 0 && y - kh < HO && x - kw >= 0 && x - kw < WO)\n"
                  "      ? dO(n,o,y - kh,x - kw) : 0) * W1(o,c,kh,kw)\n"
                  "      where y in 0:HO + KH - 1, x in 0:WO + KW - 1, n in 0:N\n}"));
    if (!D) return;
    CHECK_STR(extent_text("dI", 2), "HO + KH - 1");
    CHECK_STR(range_text(0, "o"), "[0, O)");
    CHECK_STR(range_text(0, "kh"), "[0, KH)");
    CHECK(D->n_checks == 0);
    /* the guarded read is checked where it is read, as the guard intends: no warning */
    CHECK(tc_program_num_warnings(P) == 0);
    {
        const tc_ir_stmt *s = stmt(0);
        int i, general = 0, affine = 0;
        for (i = 0; i < s->n_nodes; i++)
            if (s->nodes[i].op == TC_IR_READ && s->nodes[i].tensor == 0) {
                general = !s->nodes[i].index[2].affine && !s->nodes[i].index[3].affine;
                affine = s->nodes[i].index[0].affine && s->nodes[i].index[1].affine;
            }
        CHECK(general && affine);
    }
}

static void test_shift_and_stencils(void) {
    CHECK(compile("def sh(float(I) X) -> (O) { O(i) = X(i - 1) }"));
    CHECK_STR(range_text(0, "i"), "[1, I + 1)");
    CHECK_STR(extent_text("O", 0), "I + 1");
    CHECK_STR(min_text("O", 0), "1");
    CHECK(compile("def two(float(5) B) -> (A) { A(i, j) = B(i) + B(j + 3) }"));
    CHECK_STR(extent_text("A", 0), "5");
    CHECK_STR(extent_text("A", 1), "2");
    CHECK(compile("def stencil3(float(N) x) -> (y) {\n"
                  "    y(i) = (x(i) + x(i+1) + x(i+2)) / 3.0 where i in 0:N-2\n}"));
    CHECK_STR(extent_text("y", 0), "N - 2");
    CHECK(D && D->n_checks == 0 && tc_program_num_warnings(P) == 0);
    CHECK(compile("def st3(float(N) x) -> (y) { y(i) = x(i) + x(i+1) + x(i+2) }"));
    CHECK_STR(extent_text("y", 0), "N - 2");
    CHECK(compile("def lap(float(H, W) X) -> (Y) {\n"
                  "  Y(i, j) = X(i + 1, j) + X(i - 1, j) + X(i, j + 1) + X(i, j - 1) - 4 * X(i, j)\n}"));
    CHECK_STR(range_text(0, "i"), "[1, H - 1)");
    CHECK_STR(range_text(0, "j"), "[1, W - 1)");
    CHECK_STR(extent_text("Y", 0), "H - 1");
    CHECK_STR(min_text("Y", 1), "1");
    /* where ranges on the left-hand side reaching past the written size */
    /* Y's second write covers [0, N): the where range is proven wrong */
    expect_error("def w(float(N) X) -> (Y) { Y(i) = X(i)\n Y(i) = 0 where i in 0:N+1 }",
                 TC_ERR_RANGE, 2, 17, "left-hand side Y(i) at line 2, dimension 0: the index reaches N, but Y has size N");
}

/* ---- Statements: temporaries, outputs, several writes, 0-rank ------------- */

static void test_softmax(void) {
    CHECK(compile("def softmax(float(M,N) X) -> (Y) {\n"
                  "    mx(i) max=! X(i,j)\n"
                  "    e(i,j) = exp(X(i,j) - mx(i))\n"
                  "    s(i) +=! e(i,j)\n"
                  "    Y(i,j) = e(i,j) / s(i)\n}"));
    if (!D) return;
    CHECK(D->n_tensors == 5 && D->n_outputs == 1 && D->n_stmts == 4);
    CHECK(tensor("mx")->kind == TC_TENSOR_TEMP && tensor_id("mx") == 2);
    CHECK(tensor("e")->kind == TC_TENSOR_TEMP && tensor_id("e") == 3);
    CHECK(tensor("s")->kind == TC_TENSOR_TEMP && tensor_id("Y") == 1);
    CHECK_STR(extent_text("e", 1), "N");
    CHECK(stmt(1)->nodes[3].op == TC_IR_CALL && stmt(1)->nodes[3].builtin == TC_BUILTIN_EXP);
    CHECK(stmt(3)->tensor == 1 && stmt(0)->reduce == TC_REDUCE_MAX);
    CHECK(D->n_checks == 0 && tc_program_num_warnings(P) == 0);
}

static void test_several_writes(void) {
    /* the first write defines the shape; later ones are bound by it */
    CHECK(compile("def f(float(N) X) -> (Y) {\n  Y(i) = X(i)\n  Y(i) += X(i + 1)\n}"));
    if (!D) return;
    CHECK_STR(extent_text("Y", 0), "N");
    CHECK_STR(range_text(1, "i"), "[0, N - 1)");
    CHECK(tc_program_num_warnings(P) == 0);
    CHECK(compile("def f(float(N) X) -> (Y) {\n  Y(i) = X(i) where i in 2:N\n  Y(i) = X(i) where i in 1:2\n}"));
    CHECK_STR(min_text("Y", 0), "1");
    /* a later write reaching past a constant size */
    expect_error("def f(float(4) X) -> (Y) {\n  Y(i) = X(i)\n  Y(i) = 1.0 where i in 0:5\n}",
                 TC_ERR_RANGE, 3, 20, "reaches 4, but Y has size 4");
    /* typed output with symbolic dims: an EQ check */
    CHECK(compile("def f(float(N) X, float(M) Z) -> (float(M) Y) { Y(i) = X(i) }"));
    if (!D) return;
    CHECK(D->n_checks == 1 && D->checks[0].kind == TC_CHECK_EQ && D->checks[0].stmt == -1);
    CHECK_STR(sxs(D->checks[0].a), "N");
    CHECK_STR(sxs(D->checks[0].b), "M");
    CHECK_STR(extent_text("Y", 0), "M");
    expect_error("def f(float(4) A) -> (float(3) B) { B(i) = A(i) }", TC_ERR_SHAPE, 1, 23,
                 "declared with dimension 0 = 3, but its inferred extent is 4");
    CHECK(compile("def f(float(4) A) -> (float(4) B) { B(i) = A(i) }"));
    CHECK(D && D->n_checks == 0);
}

static void test_scalars(void) {
    CHECK(compile("def f(float alpha, float(N) X) -> (float s, Y) {\n"
                  "  s +=! X(i) * alpha\n  Y(i) = X(i) * s\n}"));
    if (!D) return;
    CHECK(tensor("alpha")->rank == 0 && tensor("s")->rank == 0 && tensor("s")->kind == TC_TENSOR_OUTPUT);
    CHECK(stmt(0)->n_loops == 1 && stmt(0)->loops[0].reduction);
    CHECK(stmt(0)->nodes[1].op == TC_IR_READ && stmt(0)->nodes[1].tensor == 0);
    CHECK(compile("def g(float(N) X) -> (t) { t = X(2) + 1 }"));
    CHECK(D && stmt(0)->n_loops == 0 && tensor("t")->rank == 0);
    CHECK(compile("def sum_all(float(N) x) -> (s) { s +=! x(i) }"));
    CHECK(D && stmt(0)->n_loops == 1 && stmt(0)->init == 1);
}

static void test_td_and_sizes(void) {
    CHECK(compile("def td(float(N,M) A) -> (B, S) {\n  B(i) = A(i, A.1 - 1) where i in 0:A.0\n"
                  "  S(j) +=! B(i) * N where j in 0:B.0 / 2\n}"));
    if (!D) return;
    CHECK_STR(extent_text("B", 0), "N");
    CHECK_STR(extent_text("S", 0), "N / 2");
    CHECK(stmt(0)->nodes[0].index[1].affine && strcmp(sxs(stmt(0)->nodes[0].index[1].offset), "M - 1") == 0);
    CHECK(D->n_checks == 1 && D->checks[0].stmt == 0);
    CHECK_STR(sxs(D->checks[0].b), "M - 1");
    CHECK(stmt(1)->nodes[1].op == TC_IR_SIZE && stmt(1)->nodes[1].dtype == TC_INT32);
    CHECK(compile("def f(float(N) A) -> (B) { B(i) = A(i) * A.0 }"));
    CHECK(D && stmt(0)->nodes[1].op == TC_IR_SIZE && stmt(0)->nodes[2].op == TC_IR_CAST);
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i) * B.0 }", TC_ERR_NAME, 1, 42,
                 "size of B is not known");
    expect_error("def f(float(N) A) -> (B) { B(i) = A.1 }", TC_ERR_TYPE, 1, 35, "A has 1 dimension");
}

/* ---- Types ---------------------------------------------------------------- */

/* dtype of output o of "def f(<params>) -> (o) { o(i) = <rhs> }" */
static int out_type(const char *params, const char *rhs) {
    char src[512];
    snprintf(src, sizeof src, "def f(%s) -> (o) { o(i) = %s where i in 0:N }", params, rhs);
    if (!compile(src)) return -1;
    return (int)tensor("o")->dtype;
}

static void test_types(void) {
    const char *ps = "int8(N) a, uint8(N) b, uint32(N) c, half(N) h, double(N) d, float(N) f, "
                     "int64(N) l, uint64(N) u, bool(N) z, int16(N) s";
    CHECK(out_type(ps, "a(i) + 1") == TC_INT32);  /* literals are int32 (SEMANTICS §1) */
    CHECK(out_type(ps, "a(i) + 300") == TC_INT32); /* does not fit: int32 */
    CHECK(out_type(ps, "a(i) + b(i)") == TC_INT8); /* signed with unsigned: signed, wider width */
    CHECK(out_type(ps, "s(i) + b(i)") == TC_INT16);
    CHECK(out_type(ps, "b(i) + c(i)") == TC_UINT32);
    CHECK(out_type(ps, "c(i) + 1") == TC_INT32);  /* unsigned with signed: signed */
    CHECK(out_type(ps, "c(i) - a(i)") == TC_INT32);
    CHECK(out_type(ps, "u(i) + l(i)") == TC_INT64);
    CHECK(out_type(ps, "a(i) * 2.5") == TC_FLOAT32);
    CHECK(out_type(ps, "l(i) * f(i)") == TC_FLOAT32);
    CHECK(out_type(ps, "d(i) * 2.5") == TC_FLOAT64);
    CHECK(out_type(ps, "f(i) + d(i)") == TC_FLOAT64);
    CHECK(out_type(ps, "h(i) * 2.0") == TC_FLOAT32); /* 2.0 is float32: the wider */
    CHECK(out_type(ps, "h(i) + h(i)") == TC_FLOAT16);
    CHECK(out_type(ps, "h(i) + f(i)") == TC_FLOAT32);
    CHECK(out_type(ps, "z(i) + z(i)") == TC_INT32); /* bool acts as int32 in arithmetic */
    CHECK(out_type(ps, "z(i) && f(i) > 0") == TC_BOOL);
    CHECK(out_type(ps, "!z(i)") == TC_BOOL);
    CHECK(out_type(ps, "z(i) ? a(i) : 0") == TC_INT32);
    CHECK(out_type(ps, "min(a(i), b(i))") == TC_INT8);
    CHECK(out_type(ps, "max(f(i), 0)") == TC_FLOAT32);
    CHECK(out_type(ps, "exp(a(i))") == TC_FLOAT32);
    CHECK(out_type(ps, "pow(d(i), 2)") == TC_FLOAT64);
    CHECK(out_type(ps, "exp(h(i))") == TC_FLOAT16);
    CHECK(out_type(ps, "fma(h(i), f(i), 1)") == TC_FLOAT32);
    CHECK(out_type(ps, "int32(f(i))") == TC_INT32);
    CHECK(out_type(ps, "half(f(i))") == TC_FLOAT16);
    CHECK(out_type(ps, "i") == TC_INT32);
    CHECK(out_type(ps, "N + i") == TC_INT32);
    CHECK(out_type(ps, "-b(i)") == TC_UINT8);
    CHECK(out_type(ps, "-z(i)") == TC_INT32);
    CHECK(out_type(ps, "a(i) % 3") == TC_INT32);
    CHECK(out_type(ps, "a(i) % int8(3)") == TC_INT8);
    CHECK(out_type(ps, "d(i) * 0.1") == TC_FLOAT64);
    CHECK(out_type(ps, "3000000000") == TC_INT64);
}

static void test_type_nodes(void) {
    const tc_ir_stmt *s;
    /* CASTs make operands agree; float16 reads are float32 nodes */
    CHECK(compile("def f(half(N) h, double(N) d) -> (o) { o(i) = h(i) + d(i) }"));
    if (!D) return;
    s = stmt(0);
    CHECK(s->nodes[0].op == TC_IR_READ && s->nodes[0].dtype == TC_FLOAT32);
    CHECK(s->nodes[2].op == TC_IR_CAST && s->nodes[2].dtype == TC_FLOAT64 && s->nodes[2].args[0] == 0);
    CHECK(s->nodes[3].op == TC_IR_ADD && s->nodes[3].dtype == TC_FLOAT64);
    /* the stored value has the tensor's compute dtype: widening store */
    CHECK(compile("def f(float(N) x) -> (double(N) o) { o(i) = x(i) }"));
    CHECK(D && stmt(0)->nodes[stmt(0)->value].op == TC_IR_CAST &&
          stmt(0)->nodes[stmt(0)->value].dtype == TC_FLOAT64);
    CHECK(compile("def f(half(N) x) -> (half(N) o) { o(i) = x(i) * 2 }"));
    CHECK(D && stmt(0)->nodes[stmt(0)->value].dtype == TC_FLOAT32 && tensor("o")->dtype == TC_FLOAT16);
    CHECK(stmt(0)->nodes[1].op == TC_IR_CONST && stmt(0)->nodes[1].fval == 2.0);
    CHECK(compile("def f(int32(N) x) -> (float(N) o) { o(i) = x(i) }"));
    CHECK(D && stmt(0)->nodes[1].op == TC_IR_CAST);
    CHECK(compile("def f(float(N) x) -> (float(N) o) { o(i) = 0 }"));
    CHECK(D && stmt(0)->nodes[0].op == TC_IR_CONST && stmt(0)->nodes[0].dtype == TC_FLOAT32);
    CHECK(compile("def f(uint8(N) x) -> (o) { o(i) = x(i) < 3 }"));
    s = stmt(0);
    CHECK(D && s->nodes[s->value].op == TC_IR_LT && s->nodes[s->value].dtype == TC_BOOL &&
          s->nodes[s->nodes[s->value].args[0]].dtype == TC_INT32 &&
          s->nodes[s->nodes[s->value].args[1]].op == TC_IR_CONST &&
          s->nodes[s->nodes[s->value].args[1]].ival == 3);
    /* a float literal is float32 (SEMANTICS.md 1): beside a float64 it is
       0.1f widened, not the double 0.1 */
    CHECK(compile("def f(double(N) d) -> (o) { o(i) = d(i) * 0.1 }"));
    s = stmt(0);
    CHECK(D && s->nodes[s->value].dtype == TC_FLOAT64 &&
          s->nodes[s->nodes[s->value].args[1]].op == TC_IR_CONST &&
          s->nodes[s->nodes[s->value].args[1]].fval == (double)0.1f);
    /* a statement may read what it writes only at the element it writes */
    expect_error("def f(float(N) x) -> (y) {\n  y(i) = x(i)\n  y(i) += y(i - 1) where i in 1:N\n}",
                 TC_ERR_UNSUPPORTED, 3, 11, "at an element other than the one written");
    expect_error("def f(float(N,M) x) -> (y) {\n  y(i) = x(i, 0)\n  y(i) += y(i) * x(i, j)\n}",
                 TC_ERR_UNSUPPORTED, 3, 11, "while reducing");
    expect_error("def f(float(N) x) -> (y) {\n  y(i) = x(i)\n  y(i) = 2.0 * x(i) + y(i + 1)\n}",
                 TC_ERR_UNSUPPORTED, 3, 23, "at an element other than the one written"); /* the read */
    CHECK(compile("def f(float(N) x) -> (y) {\n  y(i) = x(i)\n  y(i) = y(i) * 2.0 + 1.0\n}"));
    /* narrowing stores need a cast */
    expect_error("def f(double(N) A) -> (float(N) B) { B(i) = A(i) }", TC_ERR_TYPE, 1, 45,
                 "B holds float32 but the right-hand side is float64");
    expect_error("def f(float(N) A) -> (int32(N) B) { B(i) = A(i) }", TC_ERR_TYPE, 1, 44, "int32(...)");
    expect_error("def f(int32(N) A) -> (uint32(N) B) { B(i) = A(i) }", TC_ERR_TYPE, 1, 45, NULL);
}

/* ---- Errors in TC terms, with positions ----------------------------------- */

static void test_name_errors(void) {
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i) }\ndef f(float(N) A) -> (B) { B(i) = A(i) }",
                 TC_ERR_NAME, 2, 5, "defined twice");
    expect_error("def f(float(N) A, float(N) A) -> (B) { B(i) = A(i) }", TC_ERR_NAME, 1, 28,
                 "declared twice");
    expect_error("def f(float(N) A) -> (A) { A(i) = A(i) }", TC_ERR_NAME, 1, 23,
                 "both an input and an output");
    expect_error("def f(float(N) A) -> (B) {\n  A(i) = 1.0 where i in 0:N\n  B(i) = A(i) }", TC_ERR_NAME, 2, 3,
                 "inputs are immutable");
    expect_error("def f(float(N) A, float(N) N) -> (B) { B(i) = A(i) }", TC_ERR_NAME, 1, 13,
                 "names a tensor");
    expect_error("def f(float(N) exp) -> (B) { B(i) = exp(i) }", TC_ERR_NAME, 1, 16, "builtin");
    expect_error("def f(float(float) A) -> (B) { B(i) = A(i) }", TC_ERR_NAME, 1, 13, "type name");
    expect_error("def f(float(N) A) -> (B) { B(i) = foo(A(i)) }", TC_ERR_NAME, 1, 35,
                 "unknown tensor or function `foo`");
    expect_error("def f(float(N) A) -> (B) {\n  B(i) = A(i) + C(i)\n  C(i) = A(i) }", TC_ERR_NAME, 2, 17,
                 "C is read before any statement writes it");
    expect_error("def f(float(N) A) -> (B, C) { B(i) = A(i) }", TC_ERR_NAME, 1, 26,
                 "output C is never written");
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i) where k in 0:3 }", TC_ERR_NAME, 1, 46,
                 "not an index variable");
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i) where i in 0:Q }", TC_ERR_NAME, 1, 53,
                 "unknown size `Q`");
    expect_error("def f(float(N) A) -> (B) { B(i) = x where x = y, y = x + A(i) }", TC_ERR_NAME, 1, 54,
                 "in terms of itself");
    expect_error("def f(float(N) A) -> (B) { B(N) = A(0) }", TC_ERR_NAME, 1, 30,
                 "already the name of a size variable");
    expect_error("def f(float(N) A) -> (B) { N(i) = A(i) }", TC_ERR_NAME, 1, 28, "size variable");
    expect_error("def f(float(N) A) -> (float(M) B) { B(i) = A(i) }", TC_ERR_NAME, 1, 29,
                 "appears in no input type");
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i) + N(i) }", TC_ERR_NAME, 1, 42,
                 "is a size variable, not a tensor");
    expect_error("def g(float(N) A) -> (B) { B(i) = A(i) }\ndef f(float(N) A) -> (B) { B(i) = g(A(i)) }",
                 TC_ERR_NAME, 2, 35, "is a def");
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i) where x = A(i), x = 2 }", TC_ERR_NAME, 1, 56,
                 "defined twice");
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i) * exp }", TC_ERR_NAME, 1, 42, "builtin");
}

static void test_type_errors(void) {
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i, 0) }", TC_ERR_TYPE, 1, 35,
                 "A has 1 dimension but is used with 2 indices");
    expect_error("def f(float(N, M) A) -> (B) { B(i) = A(i) }", TC_ERR_TYPE, 1, 38,
                 "A has 2 dimensions but is used with 1 index");
    expect_error("def f(float(N, M) A) -> (B) { B(i) = A }", TC_ERR_TYPE, 1, 38, "A has 2 dimensions");
    expect_error("def f(float(N) A) -> (B) {\n B(i) = A(i)\n B(i, j) = A(j) }", TC_ERR_TYPE, 3, 2,
                 "B has 1 dimension but is written with 2 indices");
    expect_error("def f(float(N) A) -> (B) { B(i) = A(1.5) }", TC_ERR_TYPE, 1, 37,
                 "index 0 of A must be an integer, not float32");
    expect_error("def f(float(N) A, bool(N) Z) -> (B) { B(i) = A(Z(i)) }", TC_ERR_TYPE, 1, 48,
                 "must be an integer, not bool");
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i) ? 1 : 0 }", TC_ERR_TYPE, 1, 35,
                 "condition of ?: must be bool");
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i) > 0 && 1 }", TC_ERR_TYPE, 1, 47,
                 "operand of && must be bool");
    expect_error("def f(float(N) A) -> (B) { B(i) = !A(i) }", TC_ERR_TYPE, 1, 36, "operand of ! must be bool");
    expect_error("def f(float(N) A) -> (B) { B(i) = tanh(A(i), 1) }", TC_ERR_TYPE, 1, 35,
                 "tanh takes 1 argument, 2 given");
    expect_error("def f(float(N) A) -> (B) { B(i) = pow(A(i)) }", TC_ERR_TYPE, 1, 35,
                 "pow takes 2 arguments, 1 given");
    expect_error("def f(float(N) A) -> (B) { B(i) = max(A(i)) }", TC_ERR_TYPE, 1, 35, "max takes 2 arguments");
    expect_error("def f(float(N) A) -> (B) { B(i) = int32(A(i), 2) }", TC_ERR_TYPE, 1, 35, "takes 1 argument");
    expect_error("def f(float(M,K) A, float(K,N) B) -> (C) {\n  C(i,j) = A(i,k) * B(k,j)\n}", TC_ERR_TYPE,
                 2, 16,
                 "k appears only on the right, so C(i, j) reduces over it: use +=, *=, min= or max= "
                 "(with ! to initialise)");
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i) > 0\n C(i) +=! B(i) }", TC_ERR_TYPE, 2, 7,
                 "+= on bool tensor C");
}

static void test_range_errors(void) {
    expect_error("def f(float(N) A) -> (B) { B(i) = A(0) }", TC_ERR_RANGE, 1, 30,
                 "cannot infer the range of i: i indexes no tensor on the right-hand side; add `where i in 0:<size>`");
    expect_error("def f(float(N) A, float(M) B) -> (C) { C(i) +=! A(i + k) * B(i + k) }", TC_ERR_RANGE, 1,
                 42, "cannot infer the ranges of i, k: i is used only in A(i + k), B(i + k); add `where i in 0:<size>`");
    expect_error("def f(float(N) A) -> (B) { B(i) = 1.0 where i in -1:N }", TC_ERR_RANGE, 1, 45,
                 "left-hand side B(i) at line 1, dimension 0: the index can be -1, below 0");
    expect_error("def f(float(3) A) -> (B) { B(i) = A(i + 5) where i in 0:2 }", TC_ERR_RANGE, 1, 35,
                 "the index reaches 6, but A has size 3");
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i) where i in 0:N+1 }", TC_ERR_RANGE, 1, 35,
                 "the index reaches N, but A has size N");
    expect_error("def f(float(N) A) -> (B) { B(i) = A(i * i) }", TC_ERR_RANGE, 1, 35,
                 "A(i * i), whose index is not affine");
    /* an empty where range reaches no index: no error, no check */
    CHECK(compile("def f(float(N) A) -> (B) { B(i) = A(i)\n B(i) += A(i - 9) where i in -1:-2 }"));
    CHECK(D && D->n_checks == 0);
    /* where ranges on left-hand indices below 0, symbolic: a run-time check */
    CHECK(compile("def f(float(N) A, int32 P) -> (B) { B(i) = 1.0 where i in P:N }"));
    if (!D) return;
    CHECK(D->n_checks == 1 && D->checks[0].kind == TC_CHECK_LE);
    CHECK_STR(D->checks[0].what, "left-hand side B(i) at line 1, dimension 0");
    CHECK(D->sx[D->checks[0].b].op == TC_SX_SCALAR && D->sx[D->checks[0].b].value == 1);
}

static void test_shape_errors(void) {
    expect_error("def f(float(4) A) -> (float(3, 4) B) { B(i, j) = A(i) where j in 0:4 }", TC_ERR_SHAPE, 1,
                 23, "dimension 0 = 3, but its inferred extent is 4");
    expect_error("def g(float(3) X) -> (Y) { Y(i) = X(i) }\ndef f(float(4) A) -> (B) { B = g(A) }",
                 TC_ERR_SHAPE, 2, 34, "dimension 0 of A is 4, but g needs 3");
    expect_error("def g(float(N, N) X) -> (Y) { Y(i) = X(i, i) }\ndef f(float(4, 5) A) -> (B) { B = g(A) }",
                 TC_ERR_SHAPE, 2, 37, "dimension 1 of A is 5, but g needs 4");
    expect_error("def g(float(N) X) -> (Y) { Y(i) = X(i) }\ndef f(float(4, 5) A) -> (B) { B = g(A) }",
                 TC_ERR_SHAPE, 2, 37, "A has 2 dimensions, but g's parameter X has 1");
}

/* ---- Lets, exists, ?: ------------------------------------------------------ */

static void test_lets_exists(void) {
    const tc_ir_stmt *s;
    CHECK(compile("def f(float(N) A) -> (B) { B(i) = x * x + (x > 0 ? x : -x) where x = A(i) + 1 }"));
    if (!D) return;
    s = stmt(0);
    /* x's nodes computed once and shared (it is used outside ?: first) */
    CHECK(s->n_nodes == 9 && s->nodes[3].op == TC_IR_MUL && s->nodes[3].args[0] == 2 &&
          s->nodes[3].args[1] == 2);
    CHECK(s->nodes[7].op == TC_IR_SELECT && s->nodes[7].args[1] == 2);
    /* a let used only inside a branch is computed there, and again outside */
    CHECK(compile("def f(float(N) A) -> (B) { B(i) = (A(i) > 0 ? y : 0) + y where y = A(i) * 2 }"));
    s = stmt(0);
    {
        int i, muls = 0;
        for (i = 0; i < s->n_nodes; i++) muls += s->nodes[i].op == TC_IR_MUL;
        CHECK(muls == 2);
    }
    /* lets in indices are followed by the affine analysis */
    CHECK(compile("def f(float(N) A) -> (B) { B(i) = A(j) where j = i + 1 }"));
    CHECK_STR(range_text(0, "i"), "[0, N - 1)");
    /* exists constrains, is never evaluated */
    CHECK(compile("def ex(float(N) A, float(M) C) -> (B) { B(i) = A(i) where exists C(i) }"));
    CHECK_STR(extent_text("B", 0), "min(N, M)");
    CHECK(D && stmt(0)->n_nodes == 1);
    CHECK(sxv(tensor("B")->extent[0], "N=5 M=3") == 3);
}

static void test_select_guard(void) {
    const tc_ir_stmt *s;
    CHECK(compile("def pad(float(H) I, int32 P) -> (O) {\n"
                  "  O(h) = (h >= P && h < H + P) ? I(h - P) : 0 where h in 0:H+2*P\n}"));
    if (!D) return;
    s = stmt(0);
    CHECK(D->n_checks == 0);
    CHECK(s->nodes[s->value].op == TC_IR_SELECT);
    CHECK(s->nodes[s->nodes[s->value].args[1]].op == TC_IR_READ &&
          !s->nodes[s->nodes[s->value].args[1]].index[0].affine);
    CHECK(s->nodes[s->nodes[s->value].args[2]].op == TC_IR_CONST &&
          s->nodes[s->nodes[s->value].args[2]].dtype == TC_FLOAT32);
    CHECK_STR(extent_text("O", 0), "H + P * 2");
    CHECK(sxv(tensor("O")->extent[0], "H=5 P=2") == 9);
    /* a branch read proven in bounds stays affine */
    CHECK(compile("def f(float(N) A) -> (B) { B(i) = A(i) > 0 ? A(i) : 0 }"));
    s = stmt(0);
    CHECK(D && s->n_nodes == 6 && s->nodes[3].op == TC_IR_READ && s->nodes[3].index[0].affine);
    CHECK(tc_program_num_warnings(P) == 0);
}

/* ---- Constant folding --------------------------------------------------- */

/* Runs def `name` of P on n-element A, B (dtype t) and the scalars s[]
   (their dtypes st[]) into out. */
static int run_ab(const char *name, tc_dtype t, const void *a, const void *b, int n,
                  const tc_dtype *st, const void *const *s, int ns, void *out) {
    tc_tensor in[6], o;
    tc_run_desc rd;
    int i;
    memset(in, 0, sizeof in);
    memset(&o, 0, sizeof o);
    memset(&rd, 0, sizeof rd);
    for (i = 0; i < 2; i++) {
        in[i].dtype = t;
        in[i].rank = 1;
        in[i].shape[0] = n;
        in[i].data = (void *)(i ? b : a);
    }
    for (i = 0; i < ns; i++) {
        in[2 + i].dtype = st[i];
        in[2 + i].data = (void *)s[i];
    }
    o.dtype = t;
    o.rank = 1;
    o.shape[0] = n;
    o.data = out;
    rd.entry = name;
    rd.inputs = in;
    rd.n_inputs = 2 + ns;
    rd.outputs = &o;
    rd.n_outputs = 1;
    return tc_run(P, &rd, &E) == TC_OK;
}

/* O(i) = expr, where $0..$3 stand for the literals lit[]: folded at
   compile time (def f), against the same with each literal an input scalar
   of the literal's type (def g, computed by the VM's lanes): the same bits,
   and f's value node `op` with `nodes` nodes (0: any). */
static void fold_case(const char *expr, const char *const *lit, int nlit, int dbl, tc_ir_op op,
                      int nodes) {
    static const double vals[] = {1.5, -2.25, 0.0, -0.0, 3.0, 1e30, -7.125, 0.5, 2.0, -1.0};
    char src[2048], fe[512], ge[512], params[256];
    tc_dtype st[4];
    const void *sp[4];
    float sf[4];
    int32_t si[4];
    uint32_t su[4];
    double a[37], b[37], of[37], og[37];
    float af[37], bf[37];
    int i, k, n = 37, pf = 0, pg = 0;
    const char *e;
    params[0] = 0;
    for (i = 0; i < nlit; i++) {
        const char *l = lit[i];
        int isf = strchr(l, '.') != NULL, isu = strchr(l, 'u') != NULL;
        st[i] = isf ? TC_FLOAT32 : isu ? TC_UINT32 : TC_INT32;
        sf[i] = (float)strtod(l, NULL);
        si[i] = (int32_t)strtol(l, NULL, 10);
        su[i] = (uint32_t)strtoul(l, NULL, 10);
        sp[i] = isf ? (const void *)&sf[i] : isu ? (const void *)&su[i] : (const void *)&si[i];
        sprintf(params + strlen(params), ", %s s%d", tc_dtype_name(st[i]), i);
    }
    for (e = expr; *e; e++) {
        if (*e == '$') {
            k = e[1] - '0';
            pf += sprintf(fe + pf, "%s", lit[k]);
            pg += sprintf(ge + pg, "s%d", k);
            e++;
        } else {
            fe[pf++] = *e;
            ge[pg++] = *e;
        }
    }
    fe[pf] = ge[pg] = 0;
    sprintf(src, "def f(%s(N) A, %s(N) B) -> (O) { O(i) = %s }\n"
                 "def g(%s(N) A, %s(N) B%s) -> (O) { O(i) = %s }\n",
            dbl ? "double" : "float", dbl ? "double" : "float", fe, dbl ? "double" : "float",
            dbl ? "double" : "float", params, ge);
    CHECKF(compile_def(src, "f"), "%s", src);
    if (!D) return;
    CHECKF(D->stmts[0].nodes[D->stmts[0].value].op == op, "%s: value op %d", fe,
           (int)D->stmts[0].nodes[D->stmts[0].value].op);
    CHECKF(!nodes || D->stmts[0].n_nodes == nodes, "%s: %d nodes", fe, D->stmts[0].n_nodes);
    for (i = 0; i < n; i++) {
        a[i] = vals[i % 10] * (1 + i / 10);
        b[i] = vals[(i * 3 + 1) % 10] - i;
        af[i] = (float)a[i];
        bf[i] = (float)b[i];
    }
    CHECKF(run_ab("f", dbl ? TC_FLOAT64 : TC_FLOAT32, dbl ? (void *)a : (void *)af,
                  dbl ? (void *)b : (void *)bf, n, NULL, NULL, 0, of), "%s: %s", fe, E.msg);
    CHECKF(run_ab("g", dbl ? TC_FLOAT64 : TC_FLOAT32, dbl ? (void *)a : (void *)af,
                  dbl ? (void *)b : (void *)bf, n, st, sp, nlit, og), "%s: %s", ge, E.msg);
    CHECKF(memcmp(of, og, (size_t)n * (dbl ? 8 : 4)) == 0, "%s: folded and run-time differ", fe);
}

/* A value compared with itself: < and > are false for any value (NaN
   too); a float's ==, <=, >= and != stay (NaN), an integer's fold. */
static void test_fold_self(void) {
    float a[4] = {1.0f, NAN, -0.0f, INFINITY}, b[4] = {5.0f, 6.0f, 7.0f, 8.0f}, o[4];
    const tc_ir_stmt *s;
    CHECK(compile("def f(float(N) A, float(N) B) -> (O) { O(i) = A(i) > A(i) ? A(i) : B(i) }"));
    s = D ? stmt(0) : NULL;
    CHECK(s && s->n_nodes == 1 && s->nodes[s->value].op == TC_IR_READ);
    CHECK(compile("def f(float(N) A, float(N) B) -> (O) { O(i) = exp(A(i)) < exp(A(i)) ? A(i) : B(i) }"));
    s = D ? stmt(0) : NULL;
    CHECK(s && s->n_nodes == 1 && s->nodes[s->value].op == TC_IR_READ);
    CHECK(compile("def f(float(N) A, float(N) B) -> (O) { O(i) = A(i) >= A(i) ? A(i) : B(i) }"));
    s = D ? stmt(0) : NULL;
    CHECK(s && s->nodes[s->value].op == TC_IR_SELECT);
    CHECK(run_ab("f", TC_FLOAT32, a, b, 4, NULL, NULL, 0, o));
    CHECK(o[0] == 1.0f && o[1] == 6.0f && o[3] == INFINITY);
    CHECK(compile("def f(float(N) A, float(N) B) -> (O) { O(i) = A(i) != A(i) ? B(i) : A(i) }"));
    CHECK(run_ab("f", TC_FLOAT32, a, b, 4, NULL, NULL, 0, o));
    CHECK(o[0] == 1.0f && o[1] == 6.0f);
    CHECK(compile("def f(int32(N) A, int32(N) B) -> (O) { O(i) = A(i) <= A(i) && A(i) == A(i) ? A(i) : B(i) }"));
    s = D ? stmt(0) : NULL;
    CHECK(s && s->n_nodes == 1 && s->nodes[s->value].op == TC_IR_READ && s->nodes[s->value].tensor == 0);
    CHECK(compile("def f(int32(N) A, int32(N) B) -> (O) { O(i) = A(i) != A(i) || A(i) < A(i) ? A(i) : B(i) }"));
    s = D ? stmt(0) : NULL;
    CHECK(s && s->n_nodes == 1 && s->nodes[s->value].op == TC_IR_READ && s->nodes[s->value].tensor == 1);
    /* different reads are not the same value */
    CHECK(compile("def f(float(N) A, float(N) B) -> (O) { O(i) = A(i) > B(i) ? A(i) : B(i) }"));
    s = D ? stmt(0) : NULL;
    CHECK(s && s->nodes[s->value].op == TC_IR_SELECT);
}

static void test_fold(void) {
    const char *l1[] = {"2.0", "2.0", "1.25", "3.0"}, *l2[] = {"1.0", "3.0", "0.1", "0.7"};
    const char *l3[] = {"0.0", "0.0", "2.0"}, *l4[] = {"1.0", "2.0", "0.5"};
    const char *l5[] = {"-1", "1u"}, *l6[] = {"3", "2"}, *l7[] = {"0.0", "1", "2"};
    const char *l8[] = {"0.0", "-0.0"}, *l9[] = {"3", "-4", "2"}, *l10[] = {"3", "7u"};
    const char *l11[] = {"0.75", "3.0", "2.0", "1.5"}, *l12[] = {"16777217", "1"};
    const tc_ir_stmt *s;
    int j;
    for (j = 0; j < 2; j++) {
        fold_case("($0 > $1 ? A(i) : B(i)) * min($2, $3)", l1, 4, j, TC_IR_MUL, 3);
        fold_case("A(i) * ($0 / $1) + $2 * $3", l2, 4, j, TC_IR_ADD, 5);
        fold_case("max(A(i), min($0 / $1, $2))", l3, 3, j, TC_IR_MAX, 3);
        fold_case("A(i) + exp($0) * sqrt($1) - tanh($2)", l4, 3, j, TC_IR_SUB, 0);
        fold_case("$0 < $1 ? A(i) : B(i)", l5, 2, j, TC_IR_READ, 1);
        fold_case("($0 > $1 && A(i) > 0.0) ? A(i) : B(i)", l6, 2, j, TC_IR_SELECT, 0);
        fold_case("(A(i) > $0 || $1 < $2) ? A(i) : B(i)", l7, 3, j, TC_IR_READ, 1);
        fold_case("min($0, $1) * A(i) + max($1, $0)", l8, 2, j, TC_IR_ADD, 0);
        fold_case("max(min($0, $1), $2) + A(i)", l9, 3, j, TC_IR_ADD, 3);
        fold_case("A(i) * max($0, $1)", l10, 2, j, TC_IR_MUL, 3);
        fold_case("fma(min($2, $1), max(A(i), $1), A(i)) + fma(($0 > $1 ? A(i) : A(i)), ($2 / ($3 "
                  "+ fabs($2))), B(i))", l11, 4, j, TC_IR_ADD, 0);
        fold_case("A(i) + float($0 + $1)", l12, 2, j, TC_IR_ADD, 0);
    }
    /* c ? a : a is a, whatever c; the condition's nodes are dropped */
    CHECK(compile("def f(float(N) A, float(N) B) -> (O) { O(i) = B(i) > 0.0 ? A(i) + 1.0 : A(i) + 1.0 }"));
    s = D ? stmt(0) : NULL;
    CHECK(s && s->n_nodes == 3 && s->nodes[s->value].op == TC_IR_ADD);
    /* reads folded away still bound the ranges */
    CHECK(compile("def f(float(N) A, float(M) B) -> (O) { O(i) = 1 > 2 ? B(i) : A(i) }"));
    CHECK(D && stmt(0)->n_nodes == 1);
    CHECK_STR(range_text(0, "i"), "[0, min(N, M))");
    CHECK(compile("def f(float(N) A) -> (O) { O(i) = 1 > 2 ? A(i + 2) : 0.0 }"));
    CHECK_STR(range_text(0, "i"), "[0, N - 2)");
    CHECK(D && stmt(0)->nodes[stmt(0)->value].op == TC_IR_CONST);
    test_fold_self();
}

/* ---- TC-to-TC calls ------------------------------------------------------- */

static void test_calls(void) {
    CHECK(compile("def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }\n"
                  "def mlp(float(B,I) X, float(I,H) W1, float(H,O) W2) -> (Y) {\n"
                  "    h = mm(X, W1)\n"
                  "    r(b,k) = max(h(b,k), 0)\n"
                  "    Y = mm(r, W2)\n}"));
    if (!D) return;
    CHECK_STR(D->name, "mlp");
    CHECK(D->n_stmts == 3 && D->n_tensors == 6);
    CHECK(tensor("h")->kind == TC_TENSOR_TEMP && tensor("r")->kind == TC_TENSOR_TEMP);
    CHECK_STR(extent_text("h", 1), "H");
    CHECK_STR(extent_text("Y", 0), "B");
    CHECK_STR(extent_text("Y", 1), "O");
    CHECK(stmt(0)->tensor == tensor_id("h") && stmt(2)->tensor == tensor_id("Y"));
    CHECK_STR(range_text(2, "k"), "[0, H)");
    CHECK(stmt(0)->nodes[0].tensor == tensor_id("X"));
    CHECK(D->n_checks == 0 && D->n_sizevars == 4);
    CHECK(tc_program_num_defs(P) == 2 && tc_program_find(P, "mm") == 0);
    /* callee temporaries get fresh names; two calls, two sets */
    CHECK(compile("def sq(float(N) A) -> (B) { T(i) = A(i) * A(i)\n B(i) = T(i) + 1 }\n"
                  "def f(float(N) X) -> (Z) { Y = sq(X)\n Z = sq(Y) }"));
    if (!D) return;
    CHECK(D->n_stmts == 4 && D->n_tensors == 5);
    CHECK(tensor("sq.T") && tensor("sq.2.T") && tensor("Y") && tensor("Y")->kind == TC_TENSOR_TEMP);
    CHECK(stmt(2)->tensor == tensor_id("sq.2.T"));
    /* many names (hashed past a few): a chain of 300 temporaries, each found */
    {
        static char src[16384];
        int k, n = 0;
        n += sprintf(src + n, "def chain(float(N) A) -> (B) {\n T0(i) = A(i)\n");
        for (k = 1; k < 300; k++) n += sprintf(src + n, " T%d(i) = T%d(i) + 1.0\n", k, k - 1);
        sprintf(src + n, " B(i) = T299(i) * T0(i)\n}\n");
        CHECK(compile(src));
        CHECK(D && D->n_stmts == 301 && tensor("T299") && tensor("T0") &&
              stmt(300)->tensor == tensor_id("B"));
    }
    /* a call inside an inlined callee: the names of both calls */
    CHECK(compile("def sq(float(N) A) -> (B) { T(i) = A(i) * A(i)\n B(i) = T(i) + 1 }\n"
                  "def q(float(N) A) -> (B) { U = sq(A)\n B = sq(U) }\n"
                  "def f(float(N) X) -> (Z) { Y = q(X)\n Z = q(Y) }"));
    if (!D) return;
    CHECK(D->n_stmts == 8 && D->n_tensors == 9);
    CHECK(tensor("q.sq.T") && tensor("q.sq.2.T") && tensor("q.2.sq.3.T") && tensor("q.2.sq.4.T"));
    CHECK(tensor("q.U") && tensor("q.2.U") && stmt(6)->tensor == tensor_id("q.2.sq.4.T"));
    /* symbolic shapes that must agree at a call: an EQ check */
    CHECK(compile("def add(float(N) A, float(N) B) -> (C) { C(i) = A(i) + B(i) }\n"
                  "def f(float(P) X, float(Q) Y) -> (Z) { Z = add(X, Y) }"));
    if (!D) return;
    CHECK(D->n_checks == 1 && D->checks[0].kind == TC_CHECK_EQ);
    CHECK_STR(sxs(D->checks[0].a), "Q");
    CHECK_STR(sxs(D->checks[0].b), "P");
    CHECK(strstr(D->checks[0].what, "call to add at line 2") != NULL);
    CHECK_STR(range_text(0, "i"), "[0, min(P, Q))");
    /* typed callee outputs give the type; several results */
    CHECK(compile("def two(float(N) A) -> (double(N) B, C) { B(i) = A(i)\n C(i) = A(i) > 0 }\n"
                  "def f(float(N) X) -> (U, V) { U, V = two(X) }"));
    CHECK(D && tensor("U")->dtype == TC_FLOAT64 && tensor("V")->dtype == TC_BOOL);
    /* errors at the call */
    expect_error("def g(float(N) A) -> (B) { B(i) = A(i) }\ndef f(double(N) X) -> (Y) { Y = g(X) }",
                 TC_ERR_TYPE, 2, 35, "argument 1 of g: X is float64, but g's parameter A is float32");
    expect_error("def g(float(N) A) -> (B) { B(i) = A(i) }\ndef f(float(N) X) -> (Y) { Y = g(X, X) }",
                 TC_ERR_TYPE, 2, 28, "g takes 1 input and returns 1; the call has 2 and 1");
    /* one result and an unknown callee: the parser reads a 0-rank statement */
    expect_error("def f(float(N) X) -> (Y) { Y = h(X) }", TC_ERR_NAME, 1, 32,
                 "unknown tensor or function `h`");
    expect_error("def f(float(N) X) -> (Y, Z) { Y, Z = h(X) }", TC_ERR_NAME, 1, 38, "unknown def `h`");
    expect_error("def f(float(N) X) -> (Y) { Y = f(X) }", TC_ERR_NAME, 1, 32, "by this def itself");
    expect_error("def f(float(N) X) -> (Y, Z) { Y, Z = f(X) }", TC_ERR_NAME, 1, 38, "by this def itself");
    expect_error("def f(float(N) X) -> (Y) { Y = g(X) }\ndef g(float(N) A) -> (B) { B(i) = A(i) }",
                 TC_ERR_NAME, 1, 32, "later");
    expect_error("def g(float(N) A) -> (B) { B(i) = A(i) }\ndef f(float(N) X) -> (Y) { Y = g(X)\n X = g(Y) }",
                 TC_ERR_NAME, 3, 2, "inputs are immutable");
    expect_error("def g(float(N) A) -> (B) { B(i) = A(i) }\ndef f(float(N) X) -> (Y) { Y = g(Z) }",
                 TC_ERR_NAME, 2, 34, "`Z` is not a tensor");
}

/* ---- Output mins, where ranges, misc ------------------------------------- */

static void test_text_and_lines(void) {
    CHECK(compile("# a comment\ndef f(float(N) A) -> (B) {\n  B(i)   =\n    A(i)  # trailing\n"
                  "    * 2.0 // more\n}"));
    if (!D) return;
    CHECK_STR(stmt(0)->text, "B(i) = A(i) * 2.0");
    CHECK(stmt(0)->line == 3 && D->line == 2);
    /* a lone \r ends a line (old Mac files), also a comment's */
    CHECK(compile("# a comment\rdef f(float(N) A) -> (B) {\r  B(i)   =\r    A(i)  # trailing\r"
                  "    * 2.0 // more\r}"));
    if (!D) return;
    CHECK_STR(stmt(0)->text, "B(i) = A(i) * 2.0");
    CHECK(stmt(0)->line == 3 && D->line == 2);
    expect_error("def f(float(N) A) -> (B)\r{\r  B(i) = C(i)\r}\r", TC_ERR_NAME, 3, 10, "C");
    CHECK(compile("def f(float(N) A) -> (B) {\n  B(i)\f=\vA(i) }")); /* \f and \v are spaces */
    if (D) CHECK_STR(stmt(0)->text, "B(i) = A(i)");
    expect_error("def f(float(N) A) -> (B)\r\n{\r  B(i) = C(i)\n}\r", TC_ERR_NAME, 3, 10, "C");
}

static void test_performance_shape(void) {
    /* many statements and deep expressions compile without blowing up */
    char src[20000];
    size_t n = 0;
    int i;
    n += (size_t)snprintf(src + n, sizeof src - n, "def f(float(N) A) -> (Z) {\n T0(i) = A(i)\n");
    for (i = 1; i < 200; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, " T%d(i) = T%d(i) + A(i) * %d\n", i, i - 1, i);
    snprintf(src + n, sizeof src - n, " Z(i) = T199(i) }\n");
    CHECK(compile(src));
    CHECK(D && D->n_stmts == 201 && D->n_tensors == 202 && D->n_checks == 0);
    /* a chain of lets, each used twice: linear, not exponential */
    n = (size_t)snprintf(src, sizeof src, "def f(float(N) A) -> (B) { B(i) = A(l0 - l0 + i) where i in 0:N");
    for (i = 0; i < 40; i++) n += (size_t)snprintf(src + n, sizeof src - n, ", l%d = l%d + l%d", i, i + 1, i + 1);
    snprintf(src + n, sizeof src - n, ", l40 = i }");
    CHECK(compile(src));
    CHECK(D && stmt(0)->n_nodes < 100 && stmt(0)->nodes[stmt(0)->value].op == TC_IR_READ);
    /* a chain of 1,100 sums: the checker's limit, with a message that says so */
    n = (size_t)snprintf(src, sizeof src, "def f(float(N) A) -> (B) { B(i) = A(i)");
    for (i = 0; i < 1100; i++) n += (size_t)snprintf(src + n, sizeof src - n, " + A(i)");
    snprintf(src + n, sizeof src - n, " }");
    expect_error(src, TC_ERR_LIMIT, 1, 35, "too long or nested too deeply: more than 1088");
    /* rank limit on a left-hand side (the parser reports it, at the 9th index) */
    expect_error("def f(float(N) A) -> (B) { B(a,b,c,d,e,f,g,h,k) = A(a) }", TC_ERR_LIMIT, 1, 46, NULL);
}

/* Allocation failure N, for N = 0, 1, ...: every step fails cleanly with
   TC_ERR_OUT_OF_MEMORY and frees everything, until the compile succeeds. */
static long oom_budget, oom_live;
static void *oom_alloc(size_t n, void *u) {
    (void)u;
    if (oom_budget-- <= 0) return NULL;
    oom_live++;
    return malloc(n);
}
static void oom_free(void *p, void *u) {
    (void)u;
    if (p) oom_live--;
    free(p);
}
static void test_alloc_failures(void) {
    const char *src =
        "def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }\n"
        "def mlp(float(B,I) X, float(I,H) W1, float(H,O) W2) -> (Y, T) {\n h = mm(X, W1)\n"
        " r(b,k) = max(h(b,k), 0) > 1 ? h(b,k) : exp(h(b,k))\n Y = mm(r, W2)\n"
        " T(b) += Y(b, o) * X(b, 0) where exists W2(0, o)\n}";
    long n;
    int ok = 0, clean = 1;
    for (n = 0; n < 100000 && !ok; n++) {
        tc_compile_desc cd;
        tc_program *p = NULL;
        tc_error e;
        tc_status st;
        memset(&cd, 0, sizeof cd);
        cd.source = src;
        cd.allocator.alloc_fn = oom_alloc;
        cd.allocator.free_fn = oom_free;
        oom_budget = n;
        oom_live = 0;
        st = tc_compile(&cd, &p, &e);
        /* T's += without ! (X(b, 0), at a constant index, is checked but not warned about) */
        if (st == TC_OK) ok = p != NULL && tc_program_num_warnings(p) == 1;
        else if (st != TC_ERR_OUT_OF_MEMORY || p != NULL) clean = 0;
        tc_program_free(p);
        if (oom_live != 0) clean = 0;
    }
    CHECK(ok && clean && n > 20);
}

/* Mutated valid sources: every compile either succeeds or fails with a
   code and a message, never crashes (the sanitizer build runs this too). */
static void test_mutations(void) {
    static const char *seeds[] = {
        "def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }\ndef mlp(float(B,I) X, "
        "float(I,H) W1, float(H,O) W2) -> (Y) {\n h = mm(X, W1)\n r(b,k) = max(h(b,k), 0)\n Y = mm(r, W2)\n}",
        "def conv2d(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) { Out(n,o,h,w) +=! "
        "I(n,c,2*h+kh,w+kw) * W1(o,c,kh,kw) }",
        "def pad(float(H) I, int32 P) -> (O) { O(h) = (h >= P && h < H + P) ? I(h - P) : 0 where h in 0:H+2*P }",
        "def f(float(N) A, int64(L) ix, half(N) h) -> (B, float(N) C) { B(i) = x * x + (x > 0 ? x : -x) "
        "where x = A(i) + h(i), exists A(i+1)\n C(j) = B(j) + A(ix(j) % N) where j in 0:B.0 }",
        "def sq(float(N) A) -> (B, C) { T(i) = A(i) * A(i)\n B(i) = T(i) + 1\n C(i) = min(T(i), 2) }\n"
        "def f(float(N) X) -> (Z) { Y, W = sq(X)\n Z, V = sq(Y) }"};
    static const char *toks[] = {"i", "j", "k", "N", "A", "B", "(", ")", ",", "+", "-", "*", "/", "?",
                                 ":", "=", "+=!", "where", " in ", "0", "2.5", "exp(", "A.0", "&&",
                                 "!", "<", "int8", "x", "-1", "1000000000000"};
    unsigned long long r = 88172645463325252ull;
    char buf[1024];
    int it, bad = 0, compiled = 0;
    for (it = 0; it < 4000; it++) {
        const char *s;
        size_t len, pos;
        tc_compile_desc cd;
        tc_program *p = NULL;
        tc_error e;
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        s = seeds[r % 5];
        len = strlen(s);
        memcpy(buf, s, len + 1);
        pos = (size_t)(r >> 20) % (len + 1);
        if ((r >> 8) % 2 && pos < len) { /* delete a few bytes */
            size_t dl = 1 + (size_t)(r >> 40) % 4;
            if (pos + dl > len) dl = len - pos;
            memmove(buf + pos, buf + pos + dl, len - pos - dl + 1);
        } else { /* insert a token */
            const char *t = toks[(r >> 30) % (sizeof toks / sizeof toks[0])];
            size_t tl = strlen(t);
            memmove(buf + pos + tl, buf + pos, len - pos + 1);
            memcpy(buf + pos, t, tl);
        }
        memset(&cd, 0, sizeof cd);
        cd.source = buf;
        if (tc_compile(&cd, &p, &e) == TC_OK) compiled += p != NULL;
        else if (p || e.code == TC_OK || !e.msg[0] || e.line <= 0) bad++;
        tc_program_free(p);
    }
    CHECK(bad == 0);
    CHECK(compiled > 100);
}


/* ---- What new users and the original project's programs hit ---------------- */

/* A read in a ?: branch bounds its index like any read when nothing else
   does, whatever other (resolved) indices it holds: the original project's
   masked convolution. */
static void test_branch_inference(void) {
    CHECK(compile("def g(float(N) A, float(K) W) -> (O) { O(i) +=! (K > 0) ? A(i + k) * W(k) : 0.0 }"));
    if (!D) return;
    CHECK_STR(range_text(0, "k"), "[0, K)");
    CHECK_STR(range_text(0, "i"), "[0, N - K + 1)");
    CHECK_STR(extent_text("O", 0), "N - K + 1");
    CHECK(sxv(tensor("O")->extent[0], "N=8 K=3") == 6);
    /* a read the ?: guards does not narrow the range the other reads give */
    CHECK(compile("def h(float(N) B, float(3) A) -> (O) { O(i) = B(i) + (i < 3 ? A(i) : 0.0) }"));
    if (!D) return;
    CHECK_STR(range_text(0, "i"), "[0, N)");
    /* 2D masked convolution, as the original project writes it */
    CHECK(compile("def mc(float(H, W) I, float(KH, KW) K) -> (O) {\n"
                  "  O(h, w) +=! (KH > 1) ? I(h + kh, w + kw) * K(kh, kw) : 0.0\n}"));
    if (!D) return;
    CHECK_STR(range_text(0, "h"), "[0, H - KH + 1)");
    CHECK_STR(range_text(0, "w"), "[0, W - KW + 1)");
}

/* "cannot infer": each read once, however many of its dimensions use the
   variable; the suggested range is the read's size only where the index is
   the variable itself. */
static void test_range_error_text(void) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error e;
    const char *m;
    memset(&cd, 0, sizeof cd);
    cd.source = "def f(float(N, M) A) -> (O) { O(i) +=! A(i + k, i + k) }";
    CHECK(tc_compile(&cd, &p, &e) == TC_ERR_RANGE && p == NULL);
    m = strstr(e.msg, "A(i + k, i + k)");
    CHECKF(m && !strstr(m + 1, "A(i + k, i + k)"), "listed twice: %s", e.msg);
    CHECKF(strstr(e.msg, "0:<size>") != NULL, "%s", e.msg);
}

/* The original grammar's equivalence annotation: parsed, then ignored. */
static void test_equivalence_annotation(void) {
    CHECK(compile("def mm(float(M,K) A, float(K,N) B) -> (O) {\n"
                  "  O(i,j) +=! A(i,k) * B(k,j) <=> matmul(A(i,k), B(k,j))\n}"));
    if (!D) return;
    CHECK(D->n_stmts == 1 && D->n_checks == 0);
    CHECK_STR(range_text(0, "k"), "[0, K)");
    CHECK(compile("def f(float(N) A) -> (O) { O(i) = A(i) <=> copy(A(i)) where i in 0:N }"));
    CHECK(compile("def f(float(N) A) -> (O) { O(i) = A(i) where i in 0:N <=> copy(A(i)) }"));
    CHECK(compile("def f(float(N) A) -> (O, P) { O(i) = A(i) <=> id(A(i))\n P(i) = O(i) <=> id() }"));
    CHECK(D && D->n_stmts == 2);
    /* `a <= b` is still a comparison */
    CHECK(compile("def f(float(N) A) -> (O) { O(i) = A(i) <= A(0) ? 1.0 : 0.0 }"));
    expect_error("def f(float(N) A) -> (O) { O(i) = A(i) <=> copy }", TC_ERR_SYNTAX, 1, 44,
                 "after '<=>'");
    expect_error("def f(float(N) A) -> (O) { O(i) = A(i) <=> 3 }", TC_ERR_SYNTAX, 1, 44,
                 "after '<=>'");
    expect_error("def f(float(N) A) -> (O) { O(i) = A(i) <=> copy(A(i) }", TC_ERR_SYNTAX, 1, 54,
                 "argument list of copy");
    expect_error("def f(float(N) A) -> (O) { O(i) = A(i) <=> c(A(i)) <=> c(A(i)) }", TC_ERR_SYNTAX,
                 1, 52, NULL);
}

/* A name that no tensor is indexed by and no where ranges is a forgotten
   scalar, not a reduction index: say so, with the declaration to add. */
static void test_undeclared_scalar(void) {
    expect_error("def step(float(N,C) P, float(N,C) V) -> (P2) {\n"
                 "  P2(i,c) = P(i,c) + V(i,c) * dt\n}",
                 TC_ERR_NAME, 2, 31, "dt is not declared");
    expect_error("def step(float(N,C) P, float(N,C) V) -> (P2) { P2(i,c) +=! P(i,c) + V(i,c) * dt }",
                 TC_ERR_NAME, 1, 78, "declare it as a parameter (float dt)");
    expect_error("def f(float(N) A) -> (O) { O(i) = A(i) * t where t = s * 2 }", TC_ERR_NAME, 1, 54,
                 "s is not declared");
    /* an index in an exists clause, a where range, or inside a gather is an index */
    CHECK(compile("def f(float(N) A, float(K) W) -> (O) { O(i) +=! A(i) * 2.0 where exists W(k) }"));
    CHECK(compile("def f(float(N) A) -> (O) { O(i) +=! A(i) * k where k in 0:4 }"));
    CHECK(compile("def f(float(N) A, int32(M) C) -> (O) { O(i) +=! A(C(k)) where i in 0:1 }"));
    CHECK(compile("def f(float(N) A) -> (O) { O(i) = A(i) * dt where dt in 0:3 }") == 0);
    CHECK(compile("def f(float(N) A, float dt) -> (O) { O(i) = A(i) * dt }"));
    /* through lets, and a cycle of lets ends (its error is another one) */
    expect_error("def f(float(N) A) -> (O) { O(i) = A(i) * t where t = u * 2, u = s + 1 }",
                 TC_ERR_NAME, 1, 65, "s is not declared");
    CHECK(compile("def f(float(N) A, float(M) B) -> (O) { O(i) +=! A(i) * t where t = B(k) }"));
    {
        tc_compile_desc cd;
        tc_program *p = NULL;
        tc_error e;
        memset(&cd, 0, sizeof cd);
        cd.source = "def f(float(N) A) -> (O) { O(i) = A(i) * a + q where a = b, b = a }";
        CHECK(tc_compile(&cd, &p, &e) != TC_OK && p == NULL && e.msg[0]);
    }
}

/* Warnings: only what a user can act on, each with its def. */
static void test_warnings(void) {
    /* an image tool: guarded borders, constant-index columns, a gather */
    CHECK(compile("def blur(float(H, W) I) -> (O) {\n"
                  "  O(y, x) = (x > 0 && x < W - 1) ? (I(y, x - 1) + I(y, x) + I(y, x + 1)) / 3.0 "
                  ": I(y, x) where y in 0:H, x in 0:W\n}\n"
                  "def border(float(H, W) I) -> (L, R) {\n"
                  "  L(y) = I(y, 0) where y in 0:H\n  R(y) = I(y, W - 1) where y in 0:H\n}\n"
                  "def lut(float(256) T, uint8(H, W) I) -> (O) { O(y, x) = T(I(y, x)) }\n"
                  "def acc(float(N) A) -> (S) { S(j) += A(i) where j in 0:1 }\n"
                  "def odd(float(I) X) -> (O) { O(i) = X(2*i + 1) where i in 0:(I+1)/2 }"));
    if (!D) return;
    CHECKF(tc_program_num_warnings(P) == 2, "%d warnings", tc_program_num_warnings(P));
    CHECK(warnings_containing("+= without !") == 1);
    CHECK(warnings_containing("X(2*i + 1)") == 1);
    CHECK(tc_program_warning_def(P, 0) == 3 && tc_program_warning_def(P, 1) == 4);
    CHECK(tc_program_warning_def(P, 2) == -1 && tc_program_warning_def(P, -1) == -1);
    CHECK(tc_program_warning_def(NULL, 0) == -1);
}

int main(void) {
    RUN(test_matmul);
    RUN(test_stencils_001);
    RUN(test_preconditions);
    RUN(test_lut);
    RUN(test_reverted);
    RUN(test_subsample);
    RUN(test_average_pool);
    RUN(test_seed_003);
    RUN(test_conv);
    RUN(test_pooling);
    RUN(test_pool_scalar_window);
    RUN(test_conv_gradients);
    RUN(test_shift_and_stencils);
    RUN(test_softmax);
    RUN(test_several_writes);
    RUN(test_scalars);
    RUN(test_td_and_sizes);
    RUN(test_types);
    RUN(test_type_nodes);
    RUN(test_name_errors);
    RUN(test_type_errors);
    RUN(test_range_errors);
    RUN(test_shape_errors);
    RUN(test_lets_exists);
    RUN(test_select_guard);
    RUN(test_fold);
    RUN(test_calls);
    RUN(test_text_and_lines);
    RUN(test_performance_shape);
    RUN(test_alloc_failures);
    RUN(test_mutations);
    RUN(test_branch_inference);
    RUN(test_range_error_text);
    RUN(test_equivalence_annotation);
    RUN(test_undeclared_scalar);
    RUN(test_warnings);
    tc_program_free(P);
    return th_report();
}
