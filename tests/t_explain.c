/* tc_plan_describe and the choices it reports. For statement families
   (not only BENCH.md's kernels) the mechanism a plan picks is pinned by a
   phrase of its description, so that a change of choice is seen and
   meant. The mechanisms added with it are checked for results: loops
   merged into one run of lanes (short rows: float(N,3), float(N,4,4),
   lower bounds other than 0, strided inputs that may not merge) and short
   filters on the lane tile, contractions over converted operands (int8,
   uint8, float16, int32 into float64) and integer ones, each against a plain loop here and
   bitwise across 1, 2 and 3 threads. */
/* the implementation: tests/tc_impl.c, linked in */
#include "tc.h"
#include "harness.h"
#include <stdint.h>

static tc_pool *ex_pools[3];
static const int ex_threads[3] = {1, 2, 3};

typedef struct ex_in {
    int rank;
    int64_t shape[4];
    const int64_t *strides; /* NULL: contiguous */
    int64_t alloc;          /* elements to allocate (0: the product of the shape) */
} ex_in;

static tc_program *ex_compile(const char *src) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    CHECKF(tc_compile(&cd, &p, &err) == TC_OK, "%s: %s", src, err.msg);
    return p;
}

static int64_t ex_numel(const ex_in *a) {
    int64_t n = 1;
    int d;
    for (d = 0; d < a->rank; d++) n *= a->shape[d];
    return a->alloc ? a->alloc : n;
}

/* Exact small float32 values from a fixed seed. */
static float *ex_data(const ex_in *a, unsigned seed) {
    int64_t n = ex_numel(a), i;
    float *p = (float *)malloc((size_t)(n ? n : 1) * sizeof(float));
    uint32_t x = seed * 2654435761u + 7u;
    for (i = 0; p && i < n; i++) {
        x = x * 1664525u + 1013904223u;
        p[i] = (float)((x >> 9) & 0xff) / 32.0f - 4.0f;
    }
    return p;
}

static void ex_tensors(tc_tensor *t, const ex_in *in, float **data, int n) {
    int i, d;
    for (i = 0; i < n; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].dtype = TC_FLOAT32;
        t[i].rank = in[i].rank;
        for (d = 0; d < in[i].rank; d++) t[i].shape[d] = in[i].shape[d];
        t[i].strides = in[i].strides;
        t[i].data = data[i];
    }
}

/* The description of the plan for these inputs at `threads` (the pool of
   ex_pools), into buf. */
static int ex_describe(const tc_program *p, const ex_in *in, int n_in, int pool, char *buf,
                       size_t cap) {
    tc_tensor t[4];
    float *data[4];
    tc_run_desc rd;
    tc_plan *plan = NULL;
    tc_error err;
    int i, ok, need;
    for (i = 0; i < n_in; i++) data[i] = ex_data(&in[i], (unsigned)i + 1);
    ex_tensors(t, in, data, n_in);
    memset(&rd, 0, sizeof rd);
    rd.inputs = t;
    rd.n_inputs = n_in;
    rd.pool = ex_pools[pool];
    ok = tc_plan_create(p, &rd, &plan, &err) == TC_OK;
    CHECKF(ok, "%s", err.msg);
    buf[0] = '\0';
    if (ok) {
        need = tc_plan_describe(plan, NULL, 0);
        CHECK(tc_plan_describe(plan, buf, cap) == need);
        CHECK((size_t)need < cap && strlen(buf) == (size_t)need);
    }
    tc_plan_free(plan);
    for (i = 0; i < n_in; i++) free(data[i]);
    return ok;
}

/* Statement `stmt` (from 1) of the description: its paragraph. */
static const char *ex_stmt(const char *text, int stmt, char *out, size_t cap) {
    char head[32];
    const char *a, *b;
    snprintf(head, sizeof head, "\nstatement %d,", stmt);
    a = strstr(text, head);
    out[0] = '\0';
    if (!a) return out;
    b = strstr(a + 1, "\nstatement ");
    snprintf(out, cap, "%.*s", (int)(b ? b - a : (long)strlen(a)), a);
    return out;
}

typedef struct ex_case {
    const char *what, *src;
    int n_in;
    ex_in in[3];
    int stmt;                /* from 1 */
    const char *has, *lacks; /* phrases of that statement's paragraph (lacks may be NULL) */
} ex_case;

static const int64_t ex_rows4[2] = {4, 1}; /* float(N,3) rows 4 apart: a view */

static const ex_case ex_cases[] = {
    {"short rows merge: float(N,3) times a literal",
     "def f(float(N,C) P) -> (O) { O(i,c) = P(i,c) * 2.0 }", 1, {{2, {1000, 3}, NULL, 0}}, 1,
     "merged into the next", NULL},
    {"... the same with a 0-rank input",
     "def f(float(N,C) P, float s) -> (O) { O(i,c) = P(i,c) * s }", 2,
     {{2, {1000, 3}, NULL, 0}, {0, {0}, NULL, 0}}, 1, "fused element-wise kernels", "bytecode"},
    {"... rank 3, two merges", "def f(float(N,A,B) P, float(N,A,B) Q) -> (O) { O(i,a,b) = P(i,a,b) + Q(i,a,b) }",
     2, {{3, {50, 4, 4}, NULL, 0}, {3, {50, 4, 4}, NULL, 0}}, 1, "b 0:800 (lanes)", NULL},
    {"... not through a broadcast along the rows",
     "def f(float(N,C) P, float(N) s) -> (O) { O(i,c) = P(i,c) * s(i) }", 2,
     {{2, {1000, 3}, NULL, 0}, {1, {1000}, NULL, 0}}, 1, NULL, "merged"},
    {"... not through a view whose rows are apart",
     "def f(float(N,C) P) -> (O) { O(i,c) = P(i,c) * 2.0 }", 1, {{2, {1000, 3}, ex_rows4, 4000}}, 1,
     NULL, "merged"},
    {"... short rows with a per-column operand fold into blocks",
     "def f(float(B,N,C) X, float(C) sc, float(C) of) -> (O) { O(b,i,c) = X(b,i,c) * sc(c) + of(c) }", 3,
     {{3, {3, 5000, 4}, NULL, 0}, {1, {4}, NULL, 0}, {1, {4}, NULL, 0}}, 1, "512 short rows to a block",
     NULL},
    {"... and with a per-row operand",
     "def f(float(M,N) X, float(M) cv, float(N) rv) -> (O) { O(i,j) = X(i,j) * cv(i) + rv(j) }", 3,
     {{2, {700, 13}, NULL, 0}, {1, {700}, NULL, 0}, {1, {13}, NULL, 0}}, 1, "157 short rows to a block", NULL},
    {"a sum along the lanes' loop whose value is one op: made and summed in one pass",
     "def f(float(N,C) P) -> (O) { O(i) +=! P(i,c) * P(i,c) }", 1, {{2, {1000, 3}, NULL, 0}}, 1,
     "the value's last op summed in the same pass", NULL},
    {"a row's uniform value made by a fused chain (ss(i) / N + eps) before the op",
     "def f(float(M,N) X, float(N) g, float(M) ss) -> (Y) { Y(i,j) = X(i,j) * rsqrt(ss(i) / N + 1e-6) * g(j) }", 3,
     {{2, {40, 600}, NULL, 0}, {1, {600}, NULL, 0}, {1, {40}, NULL, 0}}, 1, "fused element-wise kernels",
     "bytecode"},
    {"... but over rows that fold, once a row on one lane a row",
     "def f(float(M,N) X, float(N) g, float(M) ss) -> (Y) { Y(i,j) = X(i,j) * rsqrt(ss(i) / N + 1e-6) * g(j) }", 3,
     {{2, {40, 300}, NULL, 0}, {1, {300}, NULL, 0}, {1, {40}, NULL, 0}}, 1, "6 short rows to a block", NULL},
    {"... long rows stay rows", "def f(float(N,C) P) -> (O) { O(i,c) = P(i,c) * 2.0 }", 1,
     {{2, {64, 2048}, NULL, 0}}, 1, "(rows)", "merged"},
    {"element-wise chain", "def f(float(N) a, float(N) x, float(N) b) -> (y) { y(i) = a(i) * x(i) + b(i) }",
     3, {{1, {4096}, NULL, 0}, {1, {4096}, NULL, 0}, {1, {4096}, NULL, 0}}, 1,
     "fused element-wise kernels", NULL},
    {"row max", "def f(float(M,N) X) -> (m) { m(i) max=! X(i,j) }", 1, {{2, {64, 1024}, NULL, 0}}, 1,
     "reduced along the lanes", NULL},
    {"matmul", "def f(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }", 2,
     {{2, {64, 64}, NULL, 0}, {2, {64, 64}, NULL, 0}}, 1, "GEMM panels", NULL},
    {"matrix times vector, a long K", "def f(float(M,N) A, float(N) x) -> (y) { y(i) +=! A(i,j) * x(j) }",
     2, {{2, {256, 256}, NULL, 0}, {1, {256}, NULL, 0}}, 1, "rows of X dotted with Y", NULL},
    {"a 5-tap filter: its input read in place, each tap's product summed in the same pass",
     "def f(float(H,W) I, float(K) w) -> (T) { T(y,x) +=! I(y,x+k) * w(k) }", 2,
     {{2, {40, 300}, NULL, 0}, {1, {5}, NULL, 0}}, 1, "the value's last op summed in the same pass",
     "register-blocked"},
    {"... not on the lane tile, whose one-row tiles would pack the input once per use",
     "def f(float(R,L) X, float(K) w) -> (O) { O(r,i) +=! X(r,i+2*k+1) * w(k) }", 2,
     {{2, {40, 700}, NULL, 0}, {1, {7}, NULL, 0}}, 1, "a tile would have one row", "GEMM"},
    {"... but over rows shorter than 128 lanes, the tile walks its tables instead of a step a block",
     "def f(float(C,H,W) X, float(C,KH,KW) K) -> (O) { O(c,h,w) +=! X(c,h+kh,w+kw) * K(c,kh,kw) }", 2,
     {{3, {4, 20, 30}, NULL, 0}, {3, {4, 3, 3}, NULL, 0}}, 1, "register-blocked contraction tile", NULL},
    {"a reduction along short rows folds the rows into blocks",
     "def f(float(M,N,K) X) -> (O) { O(i,j) max=! fabs(X(i,j,k)) }", 1, {{3, {5, 60, 96}, NULL, 0}}, 1,
     "21 short rows to a block, partial sums across lanes", NULL},
    {"... its value's last op made as the rows are reduced",
     "def f(float(M,N,K) X) -> (O) { O(i,j) max=! fabs(X(i,j,k)) }", 1, {{3, {5, 60, 96}, NULL, 0}}, 1,
     "the value's last op reduced in the same pass", NULL},
    {"... a bare read's short rows too, not one element-wise call a row",
     "def f(float(M,N,K) X) -> (O) { O(i,j) max=! X(i,j,k) }", 1, {{3, {5, 60, 159}, NULL, 0}}, 1,
     "12 short rows to a block", "element-wise kernels,"},
    {"... a whole row a block: the op reduced in the same pass",
     "def f(float(M,N) X) -> (O) { O(i) max=! fabs(X(i,j)) }", 1, {{2, {5, 1665}, NULL, 0}}, 1,
     "the value's last op reduced in the same pass", NULL},
    {"a valid-range stencil's rows (W-1 written, W read) fold, copied row by row, below 256 lanes",
     "def f(float(H,W) X) -> (O) { O(i,j) = (X(i,j) + X(i,j+1) + X(i+1,j) + X(i+1,j+1)) * 3.0 }", 1,
     {{2, {40, 200}, NULL, 0}}, 1, "10 short rows to a block", NULL},
    {"... rows of 256 lanes read in place, a row a block",
     "def f(float(H,W) X) -> (O) { O(i,j) = (X(i,j) + X(i,j+1) + X(i+1,j) + X(i+1,j+1)) * 3.0 }", 1,
     {{2, {40, 257}, NULL, 0}}, 1, "bytecode over blocks", "short rows"},
    {"... with a read along the rows and one per row",
     "def f(float(M,K) X, float(K) w, float(M) s) -> (O) { O(i) +=! sqrt(fabs(X(i,k) * w(k))) + s(i) }", 3,
     {{2, {300, 40}, NULL, 0}, {1, {40}, NULL, 0}, {1, {300}, NULL, 0}}, 1, "51 short rows to a block", NULL},
    {"... not rows longer than half a block",
     "def f(float(M,N,K) X) -> (O) { O(i,j) max=! fabs(X(i,j,k)) }", 1, {{3, {2, 10, 1100}, NULL, 0}}, 1,
     "partial sums across lanes", "short rows"},
    {"a reduction along a middle loop over short rows: its steps fold into blocks",
     "def f(float(M,N,K) X) -> (O) { O(i,k) max=! fabs(X(i,j,k)) }", 1, {{3, {4, 300, 40}, NULL, 0}}, 1,
     "51 reduction steps to a block", NULL},
    {"a small matrix per point: its rows folded, not the GEMM panels or the lane tile",
     "def f(float(N,C) P, float(C,C) R) -> (O) { O(i,c) +=! P(i,d) * R(d,c) }", 2,
     {{2, {1000, 3}, NULL, 0}, {2, {3, 3}, NULL, 0}}, 1, "682 short rows to a block", "GEMM"},
    {"pooling", "def f(float(H,W) I) -> (O) { O(h,w) max=! I(2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, w in 0:W/2 }",
     1, {{2, {64, 256}, NULL, 0}}, 1, "window reduction", NULL},
    {"average pooling by a product: the window from memory",
     "def f(float(H,W) I) -> (O) { O(h,w) +=! I(2*h+kh,2*w+kw) * 0.25 where kh in 0:2, kw in 0:2, h in 0:H/2, w in 0:W/2 }",
     1, {{2, {64, 256}, NULL, 0}}, 1, "each value multiplied first", NULL},
    {"a strided read along the lanes",
     "def f(float(N,C) P) -> (O) { O(c,i) = P(i,c) + 1.0 }", 1, {{2, {1000, 700}, NULL, 0}}, 1, "bytecode",
     NULL},
    {"softmax rows", "def f(float(M,N) X) -> (mx, e) { mx(i) max=! X(i,j)\n e(i,j) = exp(X(i,j) - mx(i)) }",
     1, {{2, {64, 1024}, NULL, 0}}, 2, "row group of statements 1-2", NULL},
};

static void test_pinned(void) {
    char text[8192], para[4096];
    size_t k;
    for (k = 0; k < sizeof ex_cases / sizeof ex_cases[0]; k++) {
        const ex_case *c = &ex_cases[k];
        tc_program *p;
        th_current = c->what;
        if (!(p = ex_compile(c->src))) continue;
        if (ex_describe(p, c->in, c->n_in, 1, text, sizeof text)) {
            ex_stmt(text, c->stmt, para, sizeof para);
            CHECKF(para[0] != '\0', "no statement %d in:\n%s", c->stmt, text);
            if (c->has) CHECKF(strstr(para, c->has) != NULL, "want \"%s\" in:\n%s", c->has, para);
            if (c->lacks) CHECKF(strstr(para, c->lacks) == NULL, "want no \"%s\" in:\n%s", c->lacks, para);
        }
        tc_program_free(p);
    }
    th_current = "";
}

/* The gather case, with its int32 indices. */
static void test_gather(void) {
    tc_program *p = ex_compile("def f(float(N) X, int32(M) ix) -> (O) { O(i) = X(ix(i)) }");
    tc_tensor t[2];
    float x[100];
    int32_t ix[50];
    tc_run_desc rd;
    tc_plan *plan = NULL;
    tc_error err;
    char text[4096];
    int i;
    if (!p) return;
    for (i = 0; i < 100; i++) x[i] = (float)i;
    for (i = 0; i < 50; i++) ix[i] = (i * 7) % 100;
    memset(t, 0, sizeof t);
    t[0].dtype = TC_FLOAT32, t[0].rank = 1, t[0].shape[0] = 100, t[0].data = x;
    t[1].dtype = TC_INT32, t[1].rank = 1, t[1].shape[0] = 50, t[1].data = ix;
    memset(&rd, 0, sizeof rd);
    rd.inputs = t;
    rd.n_inputs = 2;
    CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_OK, "%s", err.msg);
    tc_plan_describe(plan, text, sizeof text);
    CHECKF(strstr(text, "it gathers") && strstr(text, "read X gathered"), "%s", text);
    CHECK(tc_plan_describe(NULL, text, sizeof text) == 0 && text[0] == '\0');
    CHECK(tc_plan_describe(plan, text, 8) > 8 && strlen(text) == 7); /* truncated, terminated */
    tc_plan_free(plan);
    tc_program_free(p);
}

/* Runs src on inputs in (outputs allocated by tc_run) at every pool and
   compares output 0 with ref (n elements, row-major, untouched elements
   0) bitwise; every thread count gives the same bits. */
static void ex_check_run(const char *what, const char *src, const ex_in *in, int n_in,
                         void (*ref)(float *const *in, float *out), int64_t n_out) {
    tc_program *p = ex_compile(src);
    float *data[3], *want = (float *)calloc((size_t)n_out + 1, sizeof(float));
    tc_tensor t[3], out;
    tc_run_desc rd;
    tc_error err;
    int i, k;
    th_current = what;
    if (!p || !want) {
        free(want);
        tc_program_free(p);
        return;
    }
    for (i = 0; i < n_in; i++) data[i] = ex_data(&in[i], (unsigned)i + 3);
    ref(data, want);
    ex_tensors(t, in, data, n_in);
    for (k = 0; k < 3; k++) {
        memset(&out, 0, sizeof out);
        memset(&rd, 0, sizeof rd);
        rd.inputs = t;
        rd.n_inputs = n_in;
        rd.pool = ex_pools[k];
        rd.outputs = &out;
        rd.n_outputs = 1;
        if (strstr(src, "where i in 1:N")) { /* row 0 is not written: a zeroed caller buffer */
            out.dtype = TC_FLOAT32;
            out.rank = in[0].rank;
            memcpy(out.shape, in[0].shape, sizeof in[0].shape);
            out.data = calloc((size_t)n_out, sizeof(float));
        }
        CHECKF(tc_run(p, &rd, &err) == TC_OK, "%d threads: %s", ex_threads[k], err.msg);
        if (out.data) {
            int64_t bad = -1, e;
            for (e = 0; e < n_out && bad < 0; e++)
                if (memcmp(&((float *)out.data)[e], &want[e], sizeof(float)) != 0) bad = e;
            CHECKF(bad < 0, "%d threads: element %lld is %g, want %g", ex_threads[k], (long long)bad,
                   bad < 0 ? 0.0 : (double)((float *)out.data)[bad], bad < 0 ? 0.0 : (double)want[bad]);
            if (strstr(src, "where i in 1:N")) free(out.data);
            else tc_tensor_free(p, &out);
        }
    }
    for (i = 0; i < n_in; i++) free(data[i]);
    free(want);
    tc_program_free(p);
    th_current = "";
}

static void ref_scale3(float *const *in, float *out) {
    int64_t e;
    for (e = 0; e < 1001 * 3; e++) out[e] = in[0][e] * 2.0f;
}
static void ref_scale3_view(float *const *in, float *out) {
    int64_t i, c;
    for (i = 0; i < 1001; i++)
        for (c = 0; c < 3; c++) out[i * 3 + c] = in[0][i * 4 + c] * 2.0f;
}
static void ref_shift3(float *const *in, float *out) { /* O(i,c) = P(i+1,c) * s over 0:N-1 */
    int64_t e;
    for (e = 0; e < 1000 * 3; e++) out[e] = in[0][e + 3] * in[1][0];
}
static void ref_from1(float *const *in, float *out) { /* rows 1.. only */
    int64_t e;
    for (e = 3; e < 1001 * 3; e++) out[e] = in[0][e] - 1.0f;
}
static void ref_add444(float *const *in, float *out) {
    int64_t e;
    for (e = 0; e < 37 * 4 * 4; e++) out[e] = in[0][e] + in[1][e];
}
static void ref_filter5(float *const *in, float *out) {
    int64_t y, x, k;
    for (y = 0; y < 33; y++)
        for (x = 0; x < 301 - 4; x++) {
            float acc = 0.0f;
            for (k = 0; k < 5; k++) acc += in[0][y * 301 + x + k] * in[1][k];
            out[y * 297 + x] = acc;
        }
}

static void ref_scale_cols(float *const *in, float *out) { /* X(b,i,c) * sc(c) + of(c) */
    int64_t e;
    for (e = 0; e < 3 * 1001 * 3; e++) out[e] = in[0][e] * in[1][e % 3] + in[2][e % 3];
}

static void ref_row_col(float *const *in, float *out) { /* X(i,j) * cv(i) + rv(j), 700 x 13 */
    int64_t i, j;
    for (i = 0; i < 700; i++)
        for (j = 0; j < 13; j++) out[i * 13 + j] = in[0][i * 13 + j] * in[1][i] + in[2][j];
}

/* A plan run twice, the per-column operands changed in place between the
   runs: a folded statement's periodic reads are filled once a run per
   thread (tc__vm_load_periodic), never kept from the run before. */
static void test_periodic_rerun(void) {
    tc_program *p = ex_compile(
        "def f(float(B,N,C) X, float(C) sc, float(C) of) -> (O) { O(b,i,c) = X(b,i,c) * sc(c) + of(c) }");
    static float x[3 * 1001 * 3], o[3 * 1001 * 3];
    float sc[3], of[3];
    tc_tensor t[4];
    tc_run_desc rd;
    tc_plan *plan = NULL;
    tc_error err;
    int e, run, k;
    if (!p) return;
    for (e = 0; e < 3 * 1001 * 3; e++) x[e] = (float)(e % 97) * 0.25f;
    memset(t, 0, sizeof t);
    t[0].dtype = TC_FLOAT32, t[0].rank = 3, t[0].shape[0] = 3, t[0].shape[1] = 1001, t[0].shape[2] = 3;
    t[0].data = x;
    t[1].dtype = TC_FLOAT32, t[1].rank = 1, t[1].shape[0] = 3, t[1].data = sc;
    t[2].dtype = TC_FLOAT32, t[2].rank = 1, t[2].shape[0] = 3, t[2].data = of;
    t[3] = t[0];
    t[3].data = o;
    for (k = 0; k < 3; k++) {
        memset(&rd, 0, sizeof rd);
        rd.inputs = t;
        rd.n_inputs = 3;
        rd.outputs = &t[3];
        rd.n_outputs = 1;
        rd.pool = ex_pools[k];
        CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_OK, "%s", err.msg);
        for (run = 0; run < 2 && plan; run++) {
            int bad = -1;
            for (e = 0; e < 3; e++) sc[e] = (float)(run * 3 + e + 1), of[e] = (float)(run - e);
            CHECKF(tc_plan_run(plan, &rd, &err) == TC_OK, "%s", err.msg);
            for (e = 0; e < 3 * 1001 * 3 && bad < 0; e++)
                if (o[e] != x[e] * sc[e % 3] + of[e % 3]) bad = e;
            CHECKF(bad < 0, "%d threads, run %d: element %d is %g", ex_threads[k], run, bad,
                   bad < 0 ? 0.0 : (double)o[bad]);
        }
        tc_plan_free(plan);
        plan = NULL;
    }
    tc_program_free(p);
}

static void test_results(void) {
    static const ex_in n3[1] = {{2, {1001, 3}, NULL, 0}};
    static const ex_in n3s[2] = {{2, {1001, 3}, NULL, 0}, {0, {0}, NULL, 0}};
    static const ex_in view[1] = {{2, {1001, 3}, ex_rows4, 4004}};
    static const ex_in c444[2] = {{3, {37, 4, 4}, NULL, 0}, {3, {37, 4, 4}, NULL, 0}};
    static const ex_in filt[2] = {{2, {33, 301}, NULL, 0}, {1, {5}, NULL, 0}};
    ex_check_run("float(N,3) * 2.0", "def f(float(N,C) P) -> (O) { O(i,c) = P(i,c) * 2.0 }", n3, 1,
                 ref_scale3, 1001 * 3);
    ex_check_run("a view of float(N,3)", "def f(float(N,C) P) -> (O) { O(i,c) = P(i,c) * 2.0 }", view, 1,
                 ref_scale3_view, 1001 * 3);
    ex_check_run("shifted rows times a 0-rank input",
                 "def f(float(N,C) P, float s) -> (O) { O(i,c) = P(i+1,c) * s where i in 0:N-1 }", n3s, 2,
                 ref_shift3, 1000 * 3);
    ex_check_run("rows from 1", "def f(float(N,C) P) -> (O) { O(i,c) = P(i,c) - 1.0 where i in 1:N }", n3, 1,
                 ref_from1, 1001 * 3);
    ex_check_run("float(N,4,4) + float(N,4,4)",
                 "def f(float(N,A,B) P, float(N,A,B) Q) -> (O) { O(i,a,b) = P(i,a,b) + Q(i,a,b) }", c444, 2,
                 ref_add444, 37 * 16);
    {
        static const ex_in cols[3] = {{3, {3, 1001, 3}, NULL, 0}, {1, {3}, NULL, 0}, {1, {3}, NULL, 0}};
        ex_check_run("short rows times per-column operands, folded",
                     "def f(float(B,N,C) X, float(C) sc, float(C) of) -> (O) { O(b,i,c) = X(b,i,c) * sc(c) + of(c) }",
                     cols, 3, ref_scale_cols, 3 * 1001 * 3);
    }
    {
        static const ex_in rc[3] = {{2, {700, 13}, NULL, 0}, {1, {700}, NULL, 0}, {1, {13}, NULL, 0}};
        ex_check_run("short rows times a per-row and a per-column operand, folded",
                     "def f(float(M,N) X, float(M) cv, float(N) rv) -> (O) { O(i,j) = X(i,j) * cv(i) + rv(j) }",
                     rc, 3, ref_row_col, 700 * 13);
    }
    ex_check_run("a 5-tap filter", "def f(float(H,W) I, float(K) w) -> (T) { T(y,x) +=! I(y,x+k) * w(k) }",
                 filt, 2, ref_filter5, 33 * 297);
}

/* A contraction whose operands are converted as the tile reads them:
   int8 rows (X, constant along the lanes), uint8 and float16 columns (Y,
   packed), int32 into float64, int8 into int32 and int32 times uint8 into
   int64 (integer tiles). Exact values: the products and sums are exact,
   so any order of them gives the plain loop's bits. */
typedef struct ex_cast {
    const char *src;
    tc_dtype a, w, out; /* A(M,K), W(K,N), C */
} ex_cast;

static double ex_elem(tc_dtype t, const void *p, int64_t i) {
    switch (t) {
    case TC_INT8: return ((const int8_t *)p)[i];
    case TC_UINT8: return ((const uint8_t *)p)[i];
    case TC_INT32: return ((const int32_t *)p)[i];
    case TC_FLOAT16: { /* the halves written below: k / 8 for small k */
        uint16_t h = ((const uint16_t *)p)[i];
        int e = (h >> 10) & 31, m = h & 1023;
        double v = e ? (1.0 + m / 1024.0) * ldexp(1.0, e - 15) : m / 1024.0 * ldexp(1.0, -14);
        return (h & 0x8000) ? -v : v;
    }
    case TC_INT64: return (double)((const int64_t *)p)[i];
    case TC_FLOAT64: return ((const double *)p)[i];
    default: return ((const float *)p)[i];
    }
}

/* Element i of a tensor of dtype t: small exact values. */
static void ex_put(tc_dtype t, void *p, int64_t i, int v) {
    switch (t) {
    case TC_INT8: ((int8_t *)p)[i] = (int8_t)(v % 100); break;
    case TC_UINT8: ((uint8_t *)p)[i] = (uint8_t)(v & 255); break;
    case TC_INT32: ((int32_t *)p)[i] = v * 1001; break;
    case TC_FLOAT16: { /* (v % 16) / 8: sign, exponent, mantissa by hand */
        int k = v % 16, neg = k < 0, e = 0;
        uint16_t h = 0;
        if (neg) k = -k;
        if (k) {
            double m = k / 8.0;
            while (m >= 2.0) m /= 2.0, e++;
            while (m < 1.0) m *= 2.0, e--;
            h = (uint16_t)(((e + 15) << 10) | (int)((m - 1.0) * 1024.0));
        }
        ((uint16_t *)p)[i] = (uint16_t)(h | (neg ? 0x8000 : 0));
        break;
    }
    default: ((float *)p)[i] = (float)((v % 32) - 16) / 4.0f; break;
    }
}

static void test_cast_contraction(void) {
    static const ex_cast cases[] = {
        {"def f(int8(M,K) A, float(K,N) W) -> (C) { C(i,j) +=! float(A(i,k)) * W(k,j) }", TC_INT8, TC_FLOAT32, TC_FLOAT32},
        {"def f(float(M,K) A, uint8(K,N) W) -> (C) { C(i,j) +=! A(i,k) * float(W(k,j)) }", TC_FLOAT32, TC_UINT8, TC_FLOAT32},
        {"def f(float(M,K) A, float16(K,N) W) -> (C) { C(i,j) +=! A(i,k) * W(k,j) }", TC_FLOAT32, TC_FLOAT16, TC_FLOAT32},
        {"def f(float(M,K) A, int32(K,N) W) -> (C) { C(i,j) +=! double(A(i,k)) * double(W(k,j)) }", TC_FLOAT32, TC_INT32, TC_FLOAT64},
        {"def f(int8(M,K) A, int8(K,N) W) -> (C) { C(i,j) +=! int32(A(i,k)) * int32(W(k,j)) }", TC_INT8, TC_INT8, TC_INT32},
        {"def f(int32(M,K) A, uint8(K,N) W) -> (C) { C(i,j) +=! int64(A(i,k)) * int64(W(k,j)) }", TC_INT32, TC_UINT8, TC_INT64},
    };
    const int64_t M = 37, K = 45, N = 70;
    size_t c;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tc_program *p = ex_compile(cases[c].src);
        void *A = malloc((size_t)(M * K) * 8), *W = malloc((size_t)(K * N) * 8);
        double *want = (double *)malloc((size_t)(M * N) * sizeof(double));
        tc_tensor t[2], out;
        tc_run_desc rd;
        tc_plan *plan = NULL;
        tc_error err;
        char text[4096];
        int64_t i, j, k;
        int pool;
        th_current = cases[c].src;
        if (!p || !A || !W || !want) {
            free(A), free(W), free(want), tc_program_free(p);
            continue;
        }
        for (i = 0; i < M * K; i++) ex_put(cases[c].a, A, i, (int)(i * 7 % 61) - 30);
        for (i = 0; i < K * N; i++) ex_put(cases[c].w, W, i, (int)(i * 13 % 53) - 26);
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) {
                double acc = 0.0;
                for (k = 0; k < K; k++) acc += ex_elem(cases[c].a, A, i * K + k) * ex_elem(cases[c].w, W, k * N + j);
                want[i * N + j] = acc;
            }
        memset(t, 0, sizeof t);
        t[0].dtype = cases[c].a, t[0].rank = 2, t[0].shape[0] = M, t[0].shape[1] = K, t[0].data = A;
        t[1].dtype = cases[c].w, t[1].rank = 2, t[1].shape[0] = K, t[1].shape[1] = N, t[1].data = W;
        memset(&rd, 0, sizeof rd);
        rd.inputs = t;
        rd.n_inputs = 2;
        CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_OK, "%s", err.msg);
        tc_plan_describe(plan, text, sizeof text);
        CHECKF(strstr(text, "register-blocked contraction tile") != NULL, "%s", text);
        tc_plan_free(plan);
        for (pool = 0; pool < 3; pool++) {
            int64_t bad = -1;
            memset(&out, 0, sizeof out);
            rd.pool = ex_pools[pool];
            rd.outputs = &out;
            rd.n_outputs = 1;
            CHECKF(tc_run(p, &rd, &err) == TC_OK, "%s", err.msg);
            if (!out.data) continue;
            CHECK(out.dtype == cases[c].out);
            for (i = 0; i < M * N && bad < 0; i++)
                if (ex_elem(out.dtype, out.data, i) != want[i]) bad = i;
            CHECKF(bad < 0, "%d threads: element %lld is %g, want %g", ex_threads[pool], (long long)bad,
                   bad < 0 ? 0.0 : ex_elem(out.dtype, out.data, bad), bad < 0 ? 0.0 : want[bad]);
            tc_tensor_free(p, &out);
        }
        free(A), free(W), free(want);
        tc_program_free(p);
    }
    th_current = "";
}

int main(void) {
    int k;
    tc_error err;
    for (k = 0; k < 3; k++)
        if (tc_pool_create(ex_threads[k], NULL, &ex_pools[k], &err) != TC_OK) {
            fprintf(stderr, "tc_pool_create: %s\n", err.msg);
            return 1;
        }
    RUN(test_pinned);
    RUN(test_gather);
    RUN(test_results);
    RUN(test_periodic_rerun);
    RUN(test_cast_contraction);
    for (k = 0; k < 3; k++) tc_pool_free(ex_pools[k]);
    return th_report();
}
