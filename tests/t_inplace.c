/* Runs in place: an output that shares its buffer with an input. Every
   in-place result is compared bitwise against the same run with separate
   buffers, the separate output buffer holding the bytes the shared one
   held before the run (what `+=` without `!` accumulates into, and what
   unwritten elements keep), at 1, 2 and 4 threads, through tc_run and
   through a plan (run twice). Where the run may go straight into the
   buffer (tc.h's tc_run comment), a planned run must allocate nothing;
   where it must stage, it allocates its scratch copy. */
/* the implementation: tests/tc_impl.c, linked in */
#include "tc.h"
#include "harness.h"
#include "fail_alloc.h"
#include <stdint.h>

#define IP_DIRECT 1 /* a planned run in place allocates nothing */
#define IP_STAGED 0 /* ... allocates (its scratch copy) */
#define IP_ANY (-1)

typedef struct ip_arg {
    tc_dtype dt;
    int rank;
    int64_t shape[4];
    const int64_t *strides; /* inputs only; NULL: contiguous */
    size_t off;             /* bytes from the buffer's start */
} ip_arg;

static fa_state ip_fa;
static tc_pool *ip_pools[3];
static const int ip_threads[3] = {1, 2, 4};

static tc_program *ip_compile(const char *src) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    cd.allocator = fa_allocator(&ip_fa);
    CHECKF(tc_compile(&cd, &p, &err) == TC_OK, "%s: %s", src, err.msg);
    return p;
}

static int64_t ip_numel(const ip_arg *a) {
    int64_t n = 1;
    int d;
    for (d = 0; d < a->rank; d++) n *= a->shape[d];
    return n;
}

static void ip_tensor(tc_tensor *t, const ip_arg *a, unsigned char *base) {
    int d;
    memset(t, 0, sizeof *t);
    t->dtype = a->dt;
    t->rank = a->rank;
    for (d = 0; d < a->rank; d++) t->shape[d] = a->shape[d];
    t->strides = a->strides;
    t->data = base + a->off;
}

static void ip_desc(tc_run_desc *rd, tc_tensor *tin, const ip_arg *in, int nin, unsigned char *inbase,
                    tc_tensor *tout, const ip_arg *out, int nout, unsigned char *outbase, tc_pool *pool) {
    int i;
    for (i = 0; i < nin; i++) ip_tensor(&tin[i], &in[i], inbase);
    for (i = 0; i < nout; i++) ip_tensor(&tout[i], &out[i], outbase);
    memset(rd, 0, sizeof *rd);
    rd->inputs = tin;
    rd->n_inputs = nin;
    rd->outputs = tout;
    rd->n_outputs = nout;
    rd->pool = pool;
}

/* Small exact float32 values in [-2, 2), from a fixed seed. */
static void ip_fill(unsigned char *buf, size_t bytes, unsigned seed) {
    uint32_t x = seed * 2654435761u + 12345u;
    size_t i;
    for (i = 0; i + 4 <= bytes; i += 4) {
        float f;
        x = x * 1664525u + 1013904223u;
        f = (float)((x >> 8) & 0xffff) / 16384.0f - 2.0f;
        memcpy(buf + i, &f, 4);
    }
}

/* The def run in place on buf (its inputs and outputs where the args put
   them), against separate buffers: the inputs in a copy A of buf, the
   outputs in another copy B. buf must then be A with each output's bytes
   from B. expect: IP_DIRECT, IP_STAGED or IP_ANY for the planned run. */
static void ip_check(const char *what, tc_program *p, const ip_arg *in, int nin, const ip_arg *out,
                     int nout, unsigned char *buf, size_t bytes, int expect) {
    unsigned char *A = (unsigned char *)malloc(bytes), *B = (unsigned char *)malloc(bytes);
    unsigned char *E = (unsigned char *)malloc(bytes);
    tc_tensor tin[8], tout[8];
    tc_run_desc rd;
    tc_error err;
    tc_status st;
    int i, k, rep;
    if (!p || !A || !B || !E) {
        CHECK(!"ip_check: setup");
        free(A), free(B), free(E);
        return;
    }
    memcpy(A, buf, bytes);
    memcpy(B, buf, bytes);
    ip_desc(&rd, tin, in, nin, A, tout, out, nout, B, NULL);
    st = tc_run(p, &rd, &err);
    CHECKF(st == TC_OK, "%s: separate buffers: %s", what, err.msg);
    memcpy(E, A, bytes);
    for (i = 0; i < nout; i++)
        memcpy(E + out[i].off, B + out[i].off, (size_t)ip_numel(&out[i]) * tc_dtype_size(out[i].dt));
    for (k = 0; k < 3; k++) {
        tc_plan *plan = NULL;
        memcpy(buf, A, bytes);
        ip_desc(&rd, tin, in, nin, buf, tout, out, nout, buf, ip_pools[k]);
        st = tc_run(p, &rd, &err);
        CHECKF(st == TC_OK && memcmp(buf, E, bytes) == 0, "%s: tc_run in place, %d thread(s): %s %s",
               what, ip_threads[k], tc_status_name(st), err.msg);
        st = tc_plan_create(p, &rd, &plan, &err);
        CHECKF(st == TC_OK, "%s: plan: %s", what, err.msg);
        for (rep = 0; rep < 2 && plan; rep++) {
            long before = ip_fa.count, allocs;
            memcpy(buf, A, bytes);
            st = tc_plan_run(plan, &rd, &err);
            allocs = ip_fa.count - before;
            CHECKF(st == TC_OK && memcmp(buf, E, bytes) == 0,
                   "%s: planned run in place, %d thread(s), run %d: %s %s", what, ip_threads[k], rep,
                   tc_status_name(st), err.msg);
            if (expect == IP_DIRECT)
                CHECKF(allocs == 0, "%s: a direct run in place allocated %ld time(s)", what, allocs);
            if (expect == IP_STAGED)
                CHECKF(allocs > 0, "%s: expected a staged run, which allocates", what);
        }
        tc_plan_free(plan);
    }
    free(A), free(B), free(E);
}

/* ---- the game step and other element-wise defs: straight into the buffer ---- */

static const char *step_src =
    "def step(float(N,C) P, float(N,C) V, float dt) -> (P2) { P2(i,c) = P(i,c) + V(i,c) * dt }";

/* P at 0, V after it, dt after V; P2 over P (or over V). */
static void step_case(tc_program *p, int64_t n, int64_t c, int over_v, int expect) {
    size_t e = (size_t)(n * c) * 4, bytes = 2 * e + 4;
    unsigned char *buf = (unsigned char *)malloc(bytes);
    ip_arg in[3], out[1];
    char what[96];
    float dt = 0.0166f;
    if (!buf) return;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dt = in[1].dt = in[2].dt = TC_FLOAT32;
    in[0].rank = in[1].rank = 2;
    in[0].shape[0] = in[1].shape[0] = n;
    in[0].shape[1] = in[1].shape[1] = c;
    in[1].off = e;
    in[2].off = 2 * e;
    out[0] = in[0];
    out[0].off = over_v ? e : 0;
    ip_fill(buf, bytes, (unsigned)(n * 31 + c));
    memcpy(buf + 2 * e, &dt, 4);
    snprintf(what, sizeof what, "step %lldx%lld, P2 over %s", (long long)n, (long long)c,
             over_v ? "V" : "P");
    ip_check(what, p, in, 3, out, 1, buf, bytes, expect);
    free(buf);
}

static void test_game_step(void) {
    tc_program *p = ip_compile(step_src);
    static const int64_t sizes[][2] = {{1, 1}, {1, 3}, {7, 3}, {33, 17}, {1000, 3}, {257, 513},
                                       {2048, 1024}}; /* the last streams with separate buffers */
    int k;
    if (!p) return;
    for (k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        step_case(p, sizes[k][0], sizes[k][1], 0, IP_DIRECT);
        if (k % 2) step_case(p, sizes[k][0], sizes[k][1], 1, IP_DIRECT); /* V is read as it is written */
    }
    tc_program_free(p);
}

/* One input X of n x c float32 at 0, maybe a row vector b(c) and a scalar
   s after it; the one output over X. */
static void unary_case(const char *src, int64_t n, int64_t c, int with_b, int with_s, int expect,
                       int huge) {
    tc_program *p = ip_compile(src);
    size_t e = (size_t)(n * c) * 4, bytes = e + (size_t)c * 4 + 4;
    unsigned char *buf = (unsigned char *)malloc(bytes);
    ip_arg in[3], out[1];
    int nin = 1;
    char what[160];
    if (!p || !buf) {
        free(buf);
        tc_program_free(p);
        return;
    }
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dt = TC_FLOAT32;
    in[0].rank = 2;
    in[0].shape[0] = n;
    in[0].shape[1] = c;
    ip_fill(buf, bytes, (unsigned)(n + 7 * c));
    if (with_b) {
        in[nin].dt = TC_FLOAT32;
        in[nin].rank = 1;
        in[nin].shape[0] = c;
        in[nin++].off = e;
    }
    if (with_s) {
        float s = huge ? 1e-11f : 3.0f;
        in[nin].dt = TC_FLOAT32;
        in[nin++].off = e + (size_t)c * 4;
        memcpy(buf + e + (size_t)c * 4, &s, 4);
    }
    if (huge) { /* quotients past 2^50: the uniform division redoes such runs of lanes */
        int64_t i;
        for (i = 0; i < n * c; i += 3) {
            float f = (i % 2 ? 1e30f : -3e29f);
            memcpy(buf + (size_t)i * 4, &f, 4);
        }
    }
    out[0] = in[0];
    snprintf(what, sizeof what, "%s at %lldx%lld", src, (long long)n, (long long)c);
    ip_check(what, p, in, nin, out, 1, buf, bytes, expect);
    free(buf);
    tc_program_free(p);
}

static void test_elementwise(void) {
    static const int64_t sizes[][2] = {{1, 1}, {5, 7}, {64, 64}, {3, 1025}, {2048, 1024}};
    int k;
    for (k = 0; k < 5; k++) {
        int64_t n = sizes[k][0], c = sizes[k][1];
        unary_case("def f(float(N,C) X) -> (Y) { Y(i,j) = X(i,j) }", n, c, 0, 0, IP_DIRECT, 0);
        unary_case("def f(float(N,C) X) -> (Y) { Y(i,j) = X(i,j) * X(i,j) }", n, c, 0, 0, IP_DIRECT, 0);
        unary_case("def f(float(N,C) X, float(C) b) -> (Y) { Y(i,j) = X(i,j) * 2.0 + b(j) }", n, c, 1, 0,
                   IP_DIRECT, 0);
        unary_case("def f(float(N,C) X, float(C) b) -> (Y) { Y(i,j) = tanh(X(i,j) * 0.5 - b(j)) }", n, c,
                   1, 0, IP_DIRECT, 0);
        unary_case("def f(float(N,C) X, float s) -> (Y) { Y(i,j) = X(i,j) / s }", n, c, 0, 1, IP_DIRECT, 1);
        unary_case("def f(float(N,C) X, float s) -> (Y) { Y(i,j) = (X(i,j) + 1.0) / s - X(i,j) }", n, c, 0,
                   1, IP_DIRECT, 1);
        unary_case("def f(float(N,C) X) -> (Y) { Y(i,j) = exp(X(i,j) - 1.0) }", n, c, 0, 0, IP_DIRECT, 0);
        unary_case("def f(float(N,C) X) -> (Y) { Y(i,j) = X(i,j) > 0.0 ? X(i,j) : 0.1 * X(i,j) }", n, c, 0,
                   0, IP_DIRECT, 0);
        /* `+=` without `!`: the output's old values are X's */
        unary_case("def f(float(N,C) X) -> (Y) { Y(i,j) += X(i,j) * 2.0 }", n, c, 0, 0, IP_DIRECT, 0);
        unary_case("def f(float(N,C) X) -> (Y) { Y(i,j) max= X(i,j) - 1.0 }", n, c, 0, 0, IP_DIRECT, 0);
        /* `!` fills the output before the statement reads X: staged */
        unary_case("def f(float(N,C) X) -> (Y) { Y(i,j) +=! X(i,j) * 2.0 }", n, c, 0, 0, IP_STAGED, 0);
        /* part of the rows only: the others keep X's values */
        unary_case("def f(float(N,C) X) -> (float(N,C) Y) { Y(i,j) = X(i,j) + 1.0 where i in N/2:N }", n, c,
                   0, 0, IP_DIRECT, 0);
    }
}

/* int32 in place, and a 0-rank output over a 0-rank input. */
static void test_other_dtypes(void) {
    tc_program *p = ip_compile("def f(int32(N) I) -> (O) { O(i) = I(i) * 3 + 1 }");
    tc_program *q = ip_compile("def g(float a) -> (b) { b = a * 2.0 + 1.0 }");
    unsigned char buf[4 * 1000];
    ip_arg in[1], out[1];
    int i;
    memset(in, 0, sizeof in);
    in[0].dt = TC_INT32;
    in[0].rank = 1;
    in[0].shape[0] = 1000;
    for (i = 0; i < 1000; i++) {
        int32_t v = i * 7919 - 300000;
        memcpy(buf + 4 * i, &v, 4);
    }
    out[0] = in[0];
    ip_check("int32 in place", p, in, 1, out, 1, buf, sizeof buf, IP_DIRECT);
    memset(in, 0, sizeof in);
    in[0].dt = TC_FLOAT32;
    out[0] = in[0];
    ip_fill(buf, 4, 3);
    ip_check("0-rank in place", q, in, 1, out, 1, buf, 4, IP_DIRECT);
    tc_program_free(p);
    tc_program_free(q);
}

/* ---- reads that are not at the written element: staged ---- */

static void vec_case(const char *what, const char *src, int64_t n, int out_dt_f64, int expect) {
    tc_program *p = ip_compile(src);
    size_t bytes = (size_t)n * 8;
    unsigned char *buf = (unsigned char *)malloc(bytes);
    ip_arg in[1], out[1];
    if (!p || !buf) {
        free(buf);
        tc_program_free(p);
        return;
    }
    memset(in, 0, sizeof in);
    in[0].dt = TC_FLOAT32;
    in[0].rank = 1;
    in[0].shape[0] = n;
    out[0] = in[0];
    if (out_dt_f64) out[0].dt = TC_FLOAT64;
    ip_fill(buf, bytes, (unsigned)n);
    ip_check(what, p, in, 1, out, 1, buf, bytes, expect);
    free(buf);
    tc_program_free(p);
}

static void test_shifted(void) {
    static const int64_t sizes[] = {2, 17, 1000, 100003};
    int k;
    for (k = 0; k < 4; k++) {
        int64_t n = sizes[k];
        vec_case("O(i) = I((i + 1) % N)", "def f(float(N) I) -> (float(N) O) { O(i) = I((i + 1) % N) }", n, 0,
                 IP_STAGED);
        vec_case("O(i) = I(i + 1) ? :", "def f(float(N) I) -> (float(N) O) { O(i) = i < N - 1 ? I(i + 1) : I(i) }",
                 n, 0, IP_STAGED);
        vec_case("O(i) = I(i - 1)", "def f(float(N) I) -> (float(N) O) { O(i) = I(i - 1) where i in 1:N }",
                 n, 0, IP_STAGED);
        vec_case("O(i) = I(N - 1 - i)", "def f(float(N) I) -> (O) { O(i) = I(N - 1 - i) }", n, 0, IP_STAGED);
        vec_case("stencil", "def f(float(N) I) -> (float(N) O) { O(i) = (I(i - 1) + I(i)) / 3.0 where i in 1:N }",
                 n, 0, IP_STAGED);
        /* another dtype over the same bytes (and more of them) */
        vec_case("float64 over float32", "def f(float(N) I) -> (O) { O(i) = float64(I(i)) * 0.5 }", n, 1,
                 IP_STAGED);
    }
}

static void square_case(const char *what, const char *src, int64_t n, int nin, int alias, int expect) {
    tc_program *p = ip_compile(src);
    size_t e = (size_t)(n * n) * 4, bytes = e * (size_t)nin;
    unsigned char *buf = (unsigned char *)malloc(bytes);
    ip_arg in[2], out[1];
    int i;
    if (!p || !buf) {
        free(buf);
        tc_program_free(p);
        return;
    }
    memset(in, 0, sizeof in);
    for (i = 0; i < nin; i++) {
        in[i].dt = TC_FLOAT32;
        in[i].rank = 2;
        in[i].shape[0] = in[i].shape[1] = n;
        in[i].off = e * (size_t)i;
    }
    out[0] = in[alias];
    ip_fill(buf, bytes, (unsigned)n * 5u);
    ip_check(what, p, in, nin, out, 1, buf, bytes, expect);
    free(buf);
    tc_program_free(p);
}

static void test_transpose_matmul(void) {
    static const int64_t sizes[] = {1, 3, 64, 65, 200};
    const char *mm = "def mm(float(N,N) A, float(N,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }";
    int k;
    for (k = 0; k < 5; k++) {
        int64_t n = sizes[k];
        square_case("transpose", "def t(float(N,N) A) -> (B) { B(i,j) = A(j,i) }", n, 1, 0,
                    n > 1 ? IP_STAGED : IP_ANY);
        square_case("A + A^T", "def t(float(N,N) A) -> (B) { B(i,j) = A(i,j) + A(j,i) }", n, 1, 0,
                    n > 1 ? IP_STAGED : IP_ANY);
        square_case("matmul, C over A", mm, n, 2, 0, IP_STAGED);
        square_case("matmul, C over B", mm, n, 2, 1, IP_STAGED);
    }
}

/* Reductions: into an output over an input the def does not read (direct),
   and over one it reads (staged). */
static void test_reductions(void) {
    static const int64_t sizes[][2] = {{1, 1}, {7, 5}, {300, 129}, {4, 140000}}; /* the last in segments */
    int k;
    for (k = 0; k < 4; k++) {
        int64_t n = sizes[k][0], c = sizes[k][1];
        size_t e = (size_t)(n * c) * 4, bytes = e + (size_t)n * 4;
        unsigned char *buf = (unsigned char *)malloc(bytes);
        ip_arg in[2], out[2];
        tc_program *p = ip_compile("def rs(float(N,K) X, float(N) b) -> (Y) { Y(i) += X(i,k) }");
        tc_program *q = ip_compile("def rs(float(N,K) X, float(N) b) -> (Y) { Y(i) +=! X(i,k) * b(i) }");
        tc_program *r = ip_compile("def rs(float(N,K) X, float(N) b) -> (Y) { Y(i) += X(i,k) + b(i) }");
        tc_program *c2 = ip_compile("def ctr(float(N,C) X) -> (m, Y) {\n"
                                    "  m(i) +=! X(i,c)\n"
                                    "  Y(i,c) = X(i,c) - m(i) / C\n}");
        if (buf && p && q && r && c2) {
            memset(in, 0, sizeof in);
            memset(out, 0, sizeof out);
            in[0].dt = in[1].dt = TC_FLOAT32;
            in[0].rank = 2;
            in[0].shape[0] = n;
            in[0].shape[1] = c;
            in[1].rank = 1;
            in[1].shape[0] = n;
            in[1].off = e;
            out[0] = in[1];
            ip_fill(buf, bytes, (unsigned)(n * c));
            ip_check("Y(i) += X(i,k), Y over the unread b", p, in, 2, out, 1, buf, bytes, IP_DIRECT);
            ip_check("Y(i) +=! X(i,k) * b(i), Y over b", q, in, 2, out, 1, buf, bytes, IP_STAGED);
            ip_check("Y(i) += X(i,k) + b(i), Y over b", r, in, 2, out, 1, buf, bytes, IP_STAGED);
            /* row centering: m from X first, then Y over X reads X at each written element */
            out[0] = in[1]; /* m where b was */
            out[1] = in[0];
            ip_check("centering, Y over X", c2, in, 1, out, 2, buf, bytes, IP_DIRECT);
        }
        free(buf);
        tc_program_free(p);
        tc_program_free(q);
        tc_program_free(r);
        tc_program_free(c2);
    }
}

/* Several statements: the input read before the output's writer (at each
   element: direct; elsewhere: staged) and after it (staged). */
static void test_multi_statement(void) {
    static const int64_t sizes[][2] = {{1, 1}, {9, 4}, {1000, 33}, {4096, 256}};
    const char *before = "def f(float(N,C) X) -> (S, Y) {\n S(i,c) = X(i,c) * 3.0\n Y(i,c) = X(i,c) + S(i,c)\n}";
    const char *row0 = "def f(float(N,C) X) -> (S, Y) {\n S(i,c) = X(i,c) + X(0,c)\n Y(i,c) = X(i,c) - S(i,c)\n}";
    const char *after = "def f(float(N,C) X) -> (Y, Z) {\n Y(i,c) = X(i,c) + 1.0\n Z(i,c) = X(i,c) * 2.0\n}";
    const char *temp = "def f(float(N,C) P, float(N,C) V, float dt) -> (T, P2) {\n"
                       " T(i,c) = V(i,c) * dt\n P2(i,c) = P(i,c) + T(i,c)\n}";
    int k;
    for (k = 0; k < 4; k++) {
        int64_t n = sizes[k][0], c = sizes[k][1];
        size_t e = (size_t)(n * c) * 4, bytes = 3 * e + 4;
        unsigned char *buf = (unsigned char *)malloc(bytes);
        ip_arg in[3], out[2];
        tc_program *pb = ip_compile(before), *pr = ip_compile(row0), *pa = ip_compile(after);
        tc_program *pt = ip_compile(temp);
        float dt = 0.25f;
        if (buf && pb && pr && pa && pt) {
            memset(in, 0, sizeof in);
            in[0].dt = TC_FLOAT32;
            in[0].rank = 2;
            in[0].shape[0] = n;
            in[0].shape[1] = c;
            in[1] = in[0];
            in[1].off = e;
            in[2].dt = TC_FLOAT32;
            in[2].off = 3 * e;
            ip_fill(buf, bytes, (unsigned)(n + c));
            memcpy(buf + 3 * e, &dt, 4);
            out[0] = in[0];
            out[0].off = 2 * e; /* S or Y apart */
            out[1] = in[0];     /* Y or Z over X */
            ip_check("S = 3X, then Y = X + S over X", pb, in, 1, out, 2, buf, bytes, IP_DIRECT);
            ip_check("S reads X's row 0, Y over X", pr, in, 1, out, 2, buf, bytes, n > 1 ? IP_STAGED : IP_ANY);
            out[0] = in[0];     /* Y over X, read again after it */
            out[1] = in[0];
            out[1].off = 2 * e;
            ip_check("Y over X, then Z reads X", pa, in, 1, out, 2, buf, bytes, IP_STAGED);
            out[0] = in[0];
            out[0].off = 2 * e; /* T apart, P2 over P */
            out[1] = in[0];
            ip_check("T = V dt, P2 = P + T over P", pt, in, 3, out, 2, buf, bytes, IP_DIRECT);
        }
        free(buf);
        tc_program_free(pb);
        tc_program_free(pr);
        tc_program_free(pa);
        tc_program_free(pt);
    }
}

/* Overlap that is not the same buffer: another base pointer, other
   strides. Staged, with the separate buffers' result. */
static void test_partial_overlap(void) {
    tc_program *p = ip_compile(step_src);
    tc_program *q = ip_compile("def f(float(N,C) X) -> (Y) { Y(i,j) = X(i,j) + 1.0 }");
    int64_t n = 37, c = 19;
    size_t e = (size_t)(n * c) * 4, bytes = 2 * e + 4 + 64;
    unsigned char *buf = (unsigned char *)malloc(bytes);
    ip_arg in[3], out[1];
    static const int64_t tstr[2] = {1, 37}; /* X read transposed: X(i,j) at j * 37 + i */
    float dt = 0.5f;
    if (buf && p && q) {
        memset(in, 0, sizeof in);
        in[0].dt = in[1].dt = in[2].dt = TC_FLOAT32;
        in[0].rank = in[1].rank = 2;
        in[0].shape[0] = in[1].shape[0] = n;
        in[0].shape[1] = in[1].shape[1] = c;
        in[1].off = e;
        in[2].off = 2 * e;
        ip_fill(buf, bytes, 77);
        memcpy(buf + 2 * e, &dt, 4);
        out[0] = in[0];
        out[0].off = 4; /* one element on: over P and one of V's */
        ip_check("P2 one element past P", p, in, 3, out, 1, buf, bytes, IP_STAGED);
        out[0].off = e - 4 * (size_t)c; /* P's last row and V's first rows */
        ip_check("P2 over P's tail and V's head", p, in, 3, out, 1, buf, bytes, IP_STAGED);
        /* X with strides {1, N}: the same base pointer, another layout */
        in[0].strides = tstr;
        out[0] = in[0];
        out[0].strides = NULL;
        ip_check("X strided, Y over its bytes", q, in, 1, out, 1, buf, bytes, IP_STAGED);
    }
    free(buf);
    tc_program_free(p);
    tc_program_free(q);
}

/* int32 input, float32 output over the same bytes. */
static void test_dtype_alias(void) {
    tc_program *p = ip_compile("def f(int32(N) I) -> (F) { F(i) = float(I(i)) * 0.5 }");
    tc_program *q = ip_compile("def f(float(N) X) -> (B) { B(i) = int32(X(i) * 100.0) }");
    unsigned char buf[4 * 999];
    ip_arg in[1], out[1];
    int i;
    memset(in, 0, sizeof in);
    in[0].dt = TC_INT32;
    in[0].rank = 1;
    in[0].shape[0] = 999;
    for (i = 0; i < 999; i++) {
        int32_t v = i * 100003 - 50000000;
        memcpy(buf + 4 * i, &v, 4);
    }
    out[0] = in[0];
    out[0].dt = TC_FLOAT32;
    ip_check("float32 over int32", p, in, 1, out, 1, buf, sizeof buf, IP_STAGED);
    in[0].dt = TC_FLOAT32;
    out[0].dt = TC_INT32;
    ip_fill(buf, sizeof buf, 5);
    ip_check("int32 over float32", q, in, 1, out, 1, buf, sizeof buf, IP_STAGED);
    tc_program_free(p);
    tc_program_free(q);
}

/* ---- plans whose pointers change from run to run ---- */

static void step_desc(tc_run_desc *rd, tc_tensor *in, tc_tensor *out, float *P, float *V, float *dt,
                      float *P2, int64_t n, int64_t c) {
    int k;
    memset(in, 0, 3 * sizeof *in);
    memset(out, 0, sizeof *out);
    for (k = 0; k < 2; k++) {
        in[k].dtype = TC_FLOAT32;
        in[k].rank = 2;
        in[k].shape[0] = n;
        in[k].shape[1] = c;
    }
    in[2].dtype = TC_FLOAT32;
    in[0].data = P, in[1].data = V, in[2].data = dt;
    out[0] = in[0];
    out[0].data = P2;
    memset(rd, 0, sizeof *rd);
    rd->inputs = in, rd->n_inputs = 3, rd->outputs = out, rd->n_outputs = 1;
}

static void test_plan_pointers(void) {
    enum { N = 300, C = 40, E = N * C };
    tc_program *p = ip_compile(step_src);
    float *P = (float *)malloc(sizeof(float) * E), *V = (float *)malloc(sizeof(float) * E);
    float *Q = (float *)malloc(sizeof(float) * E), *R = (float *)malloc(sizeof(float) * E);
    float *ref = (float *)malloc(sizeof(float) * E), dt = 0.125f;
    tc_tensor in[3], out[1];
    tc_run_desc rd;
    tc_plan *plan = NULL;
    tc_error err;
    long before;
    int step;
    if (!p || !P || !V || !Q || !R || !ref) goto done;
    ip_fill((unsigned char *)P, sizeof(float) * E, 1);
    ip_fill((unsigned char *)V, sizeof(float) * E, 2);
    memcpy(Q, P, sizeof(float) * E);
    /* a plan made in place: in place on P, then separate buffers, then in place on Q */
    step_desc(&rd, in, out, P, V, &dt, P, N, C);
    CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_OK, "%s", err.msg);
    for (step = 0; step < 3 && plan; step++) { /* three frames of the game */
        before = ip_fa.count;
        CHECKF(tc_plan_run(plan, &rd, &err) == TC_OK, "%s", err.msg);
        CHECK(ip_fa.count == before);
    }
    /* the same three frames with separate buffers, through the same plan */
    for (step = 0; step < 3 && plan; step++) {
        step_desc(&rd, in, out, Q, V, &dt, R, N, C);
        before = ip_fa.count;
        CHECKF(tc_plan_run(plan, &rd, &err) == TC_OK, "%s", err.msg);
        CHECK(ip_fa.count == before);
        memcpy(Q, R, sizeof(float) * E);
    }
    CHECK(memcmp(P, Q, sizeof(float) * E) == 0);
    /* in place on other pointers (R, Q) through the same plan */
    memcpy(R, Q, sizeof(float) * E);
    step_desc(&rd, in, out, R, V, &dt, R, N, C);
    before = ip_fa.count;
    CHECKF(plan && tc_plan_run(plan, &rd, &err) == TC_OK, "%s", err.msg);
    CHECK(ip_fa.count == before);
    step_desc(&rd, in, out, Q, V, &dt, ref, N, C);
    CHECKF(plan && tc_plan_run(plan, &rd, &err) == TC_OK && memcmp(R, ref, sizeof(float) * E) == 0,
           "%s", err.msg);
    tc_plan_free(plan);
    plan = NULL;
    /* a plan made with separate buffers, run in place: staged (it allocates), same result */
    step_desc(&rd, in, out, Q, V, &dt, R, N, C);
    CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_OK, "%s", err.msg);
    memcpy(R, Q, sizeof(float) * E);
    step_desc(&rd, in, out, R, V, &dt, R, N, C);
    before = ip_fa.count;
    CHECKF(plan && tc_plan_run(plan, &rd, &err) == TC_OK && memcmp(R, ref, sizeof(float) * E) == 0,
           "%s", err.msg);
    CHECK(ip_fa.count > before);
    tc_plan_free(plan);
    plan = NULL;
    /* a plan made with no outputs, run in place: staged too */
    step_desc(&rd, in, out, Q, V, &dt, NULL, N, C);
    rd.outputs = NULL, rd.n_outputs = 0;
    CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_OK, "%s", err.msg);
    memcpy(R, Q, sizeof(float) * E);
    step_desc(&rd, in, out, R, V, &dt, R, N, C);
    CHECKF(plan && tc_plan_run(plan, &rd, &err) == TC_OK && memcmp(R, ref, sizeof(float) * E) == 0,
           "%s", err.msg);
    tc_plan_free(plan);
done:
    free(P), free(V), free(Q), free(R), free(ref);
    tc_program_free(p);
}

/* ---- failures leave the buffer as it was ---- */

static void test_failures(void) {
    tc_program *g = ip_compile("def g(float(N) X, int32(N) I) -> (Y) { Y(i) = X(I(i)) + X(i) }");
    tc_program *lg = ip_compile("def g(float(N) X, int32(N) I) -> (J, Y) {\n"
                                " J(i) = I(i) * 2\n Y(i) = X(J(i)) + X(i)\n}");
    tc_program *w = ip_compile("def f(float(N) X, float(N) Z) -> (Y) { Y(i) = X(i) + Z(i) }");
    tc_program *two = ip_compile("def f(float(N) X) -> (Y, Z) {\n Y(i) = X(i) + 1.0\n Z(i) = X(i) - 1.0\n}");
    float X[8], saved[8], Y2[8];
    int32_t I[8] = {0, 1, 2, 3, 4, 5, 6, 9}, J[8];
    tc_tensor in[2], out[2];
    tc_run_desc rd;
    tc_plan *plan = NULL;
    tc_error err;
    tc_status st;
    int k;
    if (!g || !lg || !w || !two) goto done;
    for (k = 0; k < 8; k++) X[k] = saved[k] = (float)k * 1.5f;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dtype = TC_FLOAT32, in[0].rank = 1, in[0].shape[0] = 8, in[0].data = X;
    in[1].dtype = TC_INT32, in[1].rank = 1, in[1].shape[0] = 8, in[1].data = I;
    out[0] = in[0];
    memset(&rd, 0, sizeof rd);
    rd.inputs = in, rd.n_inputs = 2, rd.outputs = out, rd.n_outputs = 1;
    /* a gather out of bounds, Y over X: checked before anything is written */
    st = tc_run(g, &rd, &err);
    CHECKF(st == TC_ERR_BOUNDS && memcmp(X, saved, sizeof X) == 0, "%s %s", tc_status_name(st), err.msg);
    CHECKF(tc_plan_create(g, &rd, &plan, &err) == TC_OK, "%s", err.msg);
    st = plan ? tc_plan_run(plan, &rd, &err) : TC_ERR_INVALID_ARGUMENT;
    CHECKF(st == TC_ERR_BOUNDS && memcmp(X, saved, sizeof X) == 0, "plan: %s %s", tc_status_name(st), err.msg);
    tc_plan_free(plan);
    plan = NULL;
    I[7] = 7; /* in bounds now: Y(i) = X(i) + X(i) */
    st = tc_run(g, &rd, &err);
    CHECKF(st == TC_OK && X[7] == 21.0f && X[1] == 3.0f, "%s %s", tc_status_name(st), err.msg);
    memcpy(X, saved, sizeof X);
    /* a gather whose indices the def computes fails as the run goes: staged, untouched */
    for (k = 0; k < 8; k++) I[k] = k % 4;
    I[7] = 4; /* J(7) = 8 is out of bounds */
    out[0].dtype = TC_INT32, out[0].data = J;
    out[1] = in[0];
    rd.n_outputs = 2;
    for (k = 0; k < 8; k++) J[k] = -1;
    st = tc_run(lg, &rd, &err);
    CHECKF(st == TC_ERR_BOUNDS && memcmp(X, saved, sizeof X) == 0 && J[0] == -1, "late: %s %s",
           tc_status_name(st), err.msg);
    I[7] = 3;
    st = tc_run(lg, &rd, &err);
    CHECKF(st == TC_OK && X[7] == saved[6] + saved[7] && X[0] == 0.0f && X[1] == saved[2] + saved[1],
           "late, in bounds: %s %s", tc_status_name(st), err.msg);
    memcpy(X, saved, sizeof X);
    /* a shape that fails the check, in place: nothing written */
    in[1].dtype = TC_FLOAT32, in[1].shape[0] = 7, in[1].data = Y2;
    out[0] = in[0];
    rd.n_outputs = 1;
    st = tc_run(w, &rd, &err);
    CHECKF(st == TC_ERR_SHAPE && memcmp(X, saved, sizeof X) == 0, "%s %s", tc_status_name(st), err.msg);
    /* two outputs over one buffer: refused, whatever the input */
    rd.n_inputs = 1;
    out[0] = out[1] = in[0];
    out[1].data = Y2;
    rd.n_outputs = 2;
    out[0].data = Y2;
    st = tc_run(two, &rd, &err);
    CHECKF(st == TC_ERR_INVALID_ARGUMENT && strstr(err.msg, "output Z shares memory with output Y"),
           "%s %s", tc_status_name(st), err.msg);
    out[0].data = out[1].data = X;
    st = tc_run(two, &rd, &err);
    CHECKF(st == TC_ERR_INVALID_ARGUMENT && memcmp(X, saved, sizeof X) == 0, "%s %s", tc_status_name(st),
           err.msg);
    out[1].data = Y2; /* Y over X, Z apart: Z reads X after Y wrote it, so staged */
    st = tc_run(two, &rd, &err);
    CHECKF(st == TC_OK && X[3] == saved[3] + 1.0f && Y2[3] == saved[3] - 1.0f, "%s %s", tc_status_name(st),
           err.msg);
done:
    tc_program_free(g);
    tc_program_free(lg);
    tc_program_free(w);
    tc_program_free(two);
}

/* Every allocation of a staged run in place fails in turn: each failure is
   out of memory with the buffer untouched, and nothing leaks. */
static void test_alloc_failure(void) {
    enum { N = 50 };
    fa_state fa;
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_plan *plan = NULL;
    tc_tensor in[1], out[1];
    tc_run_desc rd;
    tc_error err;
    tc_status st;
    float A[N * N], saved[N * N], ref[N * N];
    long k;
    int i, j, ok = 0;
    memset(&fa, 0, sizeof fa);
    memset(&cd, 0, sizeof cd);
    cd.source = "def t(float(N,N) A) -> (B) { B(i,j) = A(j,i) * 2.0 }";
    cd.allocator = fa_allocator(&fa);
    CHECK(tc_compile(&cd, &p, &err) == TC_OK);
    if (!p) return;
    for (i = 0; i < N * N; i++) A[i] = saved[i] = (float)i * 0.25f;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) ref[i * N + j] = saved[j * N + i] * 2.0f;
    memset(in, 0, sizeof in);
    in[0].dtype = TC_FLOAT32, in[0].rank = 2, in[0].shape[0] = in[0].shape[1] = N, in[0].data = A;
    out[0] = in[0];
    memset(&rd, 0, sizeof rd);
    rd.inputs = in, rd.n_inputs = 1, rd.outputs = out, rd.n_outputs = 1;
    for (k = 1; k < 10000 && !ok; k++) { /* tc_run: the plan's allocations, then the staging */
        fa.fail_at = fa.count + k;
        fa.sticky = 0;
        st = tc_run(p, &rd, &err);
        if (st == TC_OK) ok = 1;
        else
            CHECKF(st == TC_ERR_OUT_OF_MEMORY && memcmp(A, saved, sizeof A) == 0,
                   "allocation %ld: %s %s", k, tc_status_name(st), err.msg);
    }
    fa.fail_at = 0;
    CHECKF(ok && memcmp(A, ref, sizeof A) == 0, "after %ld failures", k);
    memcpy(A, saved, sizeof A);
    CHECK(tc_plan_create(p, &rd, &plan, &err) == TC_OK);
    fa.fail_at = fa.count + 1; /* the planned run's scratch copy */
    st = plan ? tc_plan_run(plan, &rd, &err) : TC_ERR_INVALID_ARGUMENT;
    CHECKF(st == TC_ERR_OUT_OF_MEMORY && strstr(err.msg, "staging B") && memcmp(A, saved, sizeof A) == 0,
           "%s %s", tc_status_name(st), err.msg);
    fa.fail_at = 0;
    st = plan ? tc_plan_run(plan, &rd, &err) : TC_ERR_INVALID_ARGUMENT;
    CHECKF(st == TC_OK && memcmp(A, ref, sizeof A) == 0, "%s", err.msg);
    tc_plan_free(plan);
    tc_program_free(p);
    CHECKF(fa.live == 0, "%ld blocks leaked", fa.live);
}

int main(void) {
    tc_error err;
    int k;
    for (k = 0; k < 3; k++)
        if (tc_pool_create(ip_threads[k], NULL, &ip_pools[k], &err) != TC_OK) {
            fprintf(stderr, "pool: %s\n", err.msg);
            return 1;
        }
    RUN(test_game_step);
    RUN(test_elementwise);
    RUN(test_other_dtypes);
    RUN(test_shifted);
    RUN(test_transpose_matmul);
    RUN(test_reductions);
    RUN(test_multi_statement);
    RUN(test_partial_overlap);
    RUN(test_dtype_alias);
    RUN(test_plan_pointers);
    RUN(test_failures);
    RUN(test_alloc_failure);
    for (k = 0; k < 3; k++) tc_pool_free(ip_pools[k]);
    CHECKF(ip_fa.live == 0, "%ld blocks leaked", ip_fa.live);
    return th_report();
}
