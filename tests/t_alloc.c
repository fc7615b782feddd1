/* t_alloc: allocation-failure injection (Lua's debug_realloc idea). A
   tc_allocator fails the Nth allocation (or every one from the Nth on),
   for N = 1, 2, ... until the whole sequence compile, infer, plan, plan
   run, run with library-allocated outputs, pool, pooled run succeeds.
   Every failing step must return TC_ERR_OUT_OF_MEMORY, leave nothing
   allocated (a live-block count, and LeakSanitizer in the ASan build) and
   never crash. Results of the steps that succeed are checked. */
/* linked with tc.h built with 256-byte arena chunks (tests/tc_impl.c,
   TC_ARENA_CHUNK=256 in the Makefile): many more allocations to fail */
#include "tc.h"
#include "harness.h"
#include "fail_alloc.h"

static const char *const fa_source = "def sq(float(N) x) -> (y) { y(i) = x(i) * x(i) }\n"
                                     "def f(float(M,N) X, int32(L) Idx) -> (Y, E, q) {\n"
                                     "    mx(i) max=! X(i,j)\n"
                                     "    e(i,j) = exp(X(i,j) - mx(i))\n"
                                     "    s(i) +=! e(i,j)\n"
                                     "    Y(i,j) = e(i,j) / s(i)\n"
                                     "    E(l,j) = Y(Idx(l), j)\n"
                                     "    q = sq(s)\n"
                                     "}\n";

#define FA_M 5
#define FA_N 300
#define FA_L 4
static float fa_x[FA_M * FA_N];
static int32_t fa_idx[FA_L] = {4, 0, 2, 2};

static void fa_inputs(tc_tensor *in) {
    memset(in, 0, 2 * sizeof *in);
    in[0].dtype = TC_FLOAT32, in[0].rank = 2, in[0].shape[0] = FA_M, in[0].shape[1] = FA_N;
    in[0].data = fa_x;
    in[1].dtype = TC_INT32, in[1].rank = 1, in[1].shape[0] = FA_L, in[1].data = fa_idx;
}

/* Softmax rows sum to 1 and E repeats the rows of Y named by Idx. */
static int fa_results_ok(const tc_tensor *o) {
    const float *y = (const float *)o[0].data, *e = (const float *)o[1].data;
    const float *q = (const float *)o[2].data;
    int i, j;
    if (!y || !e || !q || o[0].shape[0] != FA_M || o[0].shape[1] != FA_N) return 0;
    for (i = 0; i < FA_M; i++) {
        double s = 0;
        for (j = 0; j < FA_N; j++)
            s += y[i * FA_N + j];
        if (fabs(s - 1) > 1e-4) return 0;
    }
    for (i = 0; i < FA_L; i++)
        for (j = 0; j < FA_N; j++)
            if (e[i * FA_N + j] != y[fa_idx[i] * FA_N + j]) return 0;
    return q[0] > 0;
}

/* One pass of the whole sequence. Returns the first failing status (TC_OK
   when everything ran); *ok is cleared when a result is wrong. */
static tc_status fa_sequence(fa_state *f, int *ok) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_plan *plan = NULL;
    tc_pool *pool = NULL;
    tc_allocator a = fa_allocator(f);
    tc_tensor in[2], out[3], mine[3];
    float buf[3][FA_M * FA_N];
    tc_run_desc rd;
    tc_error err;
    tc_status st;
    int i;
    memset(&cd, 0, sizeof cd);
    cd.source = fa_source;
    cd.allocator = a;
    st = tc_compile(&cd, &p, &err);
    if (st != TC_OK) {
        *ok &= p == NULL && err.code == st;
        return st;
    }
    fa_inputs(in);
    memset(out, 0, sizeof out);
    st = tc_infer_shapes(p, "f", in, 2, out, 3, &err);
    memset(&rd, 0, sizeof rd);
    rd.entry = "f", rd.inputs = in, rd.n_inputs = 2, rd.n_outputs = 3;
    if (st == TC_OK) { /* a plan with caller buffers */
        for (i = 0; i < 3; i++)
            mine[i] = out[i], mine[i].data = buf[i];
        rd.outputs = mine;
        st = tc_plan_create(p, &rd, &plan, &err);
        if (st == TC_OK) st = tc_plan_run(plan, &rd, &err);
        if (st == TC_OK) *ok &= fa_results_ok(mine);
        tc_plan_free(plan);
    }
    if (st == TC_OK) { /* library-allocated outputs */
        memset(out, 0, sizeof out);
        rd.outputs = out;
        st = tc_run(p, &rd, &err);
        for (i = 0; i < 3; i++)
            *ok &= st == TC_OK ? out[i].data != NULL : out[i].data == NULL;
        if (st == TC_OK) *ok &= fa_results_ok(out);
        for (i = 0; i < 3; i++)
            tc_tensor_free(p, &out[i]);
    }
    if (st == TC_OK) st = tc_pool_create(2, &a, &pool, &err);
    if (st == TC_OK) {
        memset(out, 0, sizeof out);
        rd.outputs = out, rd.pool = pool;
        st = tc_run(p, &rd, &err);
        if (st == TC_OK) *ok &= fa_results_ok(out);
        for (i = 0; i < 3; i++)
            tc_tensor_free(p, &out[i]);
    }
    tc_pool_free(pool);
    tc_program_free(p);
    return st;
}

static void fa_sweep(int sticky) {
    fa_state f;
    long n;
    int done = 0, steps = 0, bad_status = 0, leaks = 0, wrong = 0;
    for (n = 1; n < 200000 && !done; n++) {
        tc_status st;
        int ok = 1;
        memset(&f, 0, sizeof f);
        f.fail_at = n;
        f.sticky = sticky;
        st = fa_sequence(&f, &ok);
        steps++;
        if (f.live != 0 && leaks++ < 5) fprintf(stderr, "N=%ld: %ld blocks leaked\n", n, f.live);
        if (!ok && wrong++ < 5)
            fprintf(stderr, "N=%ld: wrong result or state (%s)\n", n, tc_status_name(st));
        if (f.failed == 0) { /* allocation N never happened: the sequence ran through */
            done = 1;
            CHECKF(st == TC_OK, "full sequence failed without an injected failure: %s",
                   tc_status_name(st));
        } else if (st != TC_ERR_OUT_OF_MEMORY && bad_status++ < 5) {
            fprintf(stderr, "N=%ld: status %s, want TC_ERR_OUT_OF_MEMORY\n", n, tc_status_name(st));
        }
    }
    CHECKF(done, "never ran through after %d steps", steps);
    CHECKF(steps > 3, "only %d allocations: the allocator is not used", steps);
    CHECKF(bad_status == 0, "%d steps returned another status than TC_ERR_OUT_OF_MEMORY",
           bad_status);
    CHECKF(leaks == 0, "%d steps leaked", leaks);
    CHECKF(wrong == 0, "%d steps gave wrong results", wrong);
}
static void test_fail_nth(void) { fa_sweep(0); }
static void test_fail_from_nth(void) { fa_sweep(1); }

/* Compile errors under allocation failure: the error or OOM, never a leak. */
static void test_failing_compile_errors(void) {
    static const char *const bad[] = {
        "def f(float(N) a) -> (b) { b(i) = a(i) + }",
        "def f(float(N) a) -> (b) { b(i) = c(i) }",
        "def f(float(N) a) -> (b) { b(i) +=! a(i) * a(j) * q }",
        "def f(float(N) a) -> (b) { b(i) = a(i + j) }",
    };
    int k, leaks = 0, bad_status = 0;
    long n;
    for (k = 0; k < 4; k++) {
        tc_status clean;
        tc_program *p = NULL;
        tc_compile_desc cd;
        tc_error err;
        memset(&cd, 0, sizeof cd);
        cd.source = bad[k];
        clean = tc_compile(&cd, &p, &err);
        CHECKF(clean != TC_OK && clean != TC_ERR_OUT_OF_MEMORY && !p, "%s compiled", bad[k]);
        tc_program_free(p);
        for (n = 1; n < 100000; n++) {
            fa_state f;
            tc_status st;
            memset(&f, 0, sizeof f);
            f.fail_at = n;
            cd.allocator = fa_allocator(&f);
            p = NULL;
            st = tc_compile(&cd, &p, &err);
            tc_program_free(p);
            if (f.live) leaks++;
            if (st != clean && st != TC_ERR_OUT_OF_MEMORY) bad_status++;
            if (!f.failed) break;
        }
    }
    CHECKF(leaks == 0, "%d leaking steps", leaks);
    CHECKF(bad_status == 0, "%d steps with an unexpected status", bad_status);
}

/* A planned run where one output is to be allocated and a later one is
   the caller's, and that allocation fails: the caller's buffer stays the
   caller's (the failure once freed it, from a stale flag of an earlier run
   whose outputs were all allocated). */
static void test_failing_mixed_outputs(void) {
    static float x[4] = {1, 2, 3, 4}, mine[4] = {9, 9, 9, 9};
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_plan *plan = NULL;
    tc_tensor in, out[2];
    tc_run_desc rd;
    tc_error err;
    fa_state f;
    int i;
    memset(&cd, 0, sizeof cd);
    memset(&f, 0, sizeof f);
    memset(&in, 0, sizeof in);
    memset(out, 0, sizeof out);
    memset(&rd, 0, sizeof rd);
    cd.source = "def f(float(N) X) -> (A, B) {\n A(i) = X(i) * 2.0\n B(i) = X(i)\n}";
    cd.allocator = fa_allocator(&f);
    in.dtype = TC_FLOAT32, in.rank = 1, in.shape[0] = 4, in.data = x;
    out[0] = out[1] = in;
    out[0].data = out[1].data = NULL;
    rd.inputs = &in, rd.n_inputs = 1, rd.outputs = out, rd.n_outputs = 2;
    CHECK(tc_compile(&cd, &p, &err) == TC_OK && tc_plan_create(p, &rd, &plan, &err) == TC_OK);
    if (!plan) return;
    CHECK(tc_plan_run(plan, &rd, &err) == TC_OK); /* both allocated */
    tc_tensor_free(p, &out[0]);
    tc_tensor_free(p, &out[1]);
    out[0] = out[1] = in;
    out[0].data = NULL; /* A: allocated */
    out[1].data = mine; /* B: the caller's */
    f.fail_at = f.count + 1; /* the allocation of A */
    CHECK(tc_plan_run(plan, &rd, &err) == TC_ERR_OUT_OF_MEMORY);
    CHECKF(out[0].data == NULL && out[1].data == mine, "outputs %p %p", out[0].data, out[1].data);
    for (i = 0; i < 4; i++) CHECK(mine[i] == 9.0f);
    f.fail_at = 0;
    CHECK(tc_plan_run(plan, &rd, &err) == TC_OK && out[1].data == mine && mine[3] == 4.0f);
    CHECK(out[0].data && ((float *)out[0].data)[3] == 8.0f);
    tc_tensor_free(p, &out[0]);
    tc_plan_free(plan);
    tc_program_free(p);
    CHECKF(f.live == 0, "%ld blocks live", f.live);
}

int main(void) {
    int i;
    for (i = 0; i < FA_M * FA_N; i++)
        fa_x[i] = (float)((i * 37 % 101) - 50) / 25.0f;
    RUN(test_fail_nth);
    RUN(test_fail_from_nth);
    RUN(test_failing_compile_errors);
    RUN(test_failing_mixed_outputs);
    return th_report();
}
