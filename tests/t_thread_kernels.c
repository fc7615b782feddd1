/* t_thread_kernels: results are bitwise identical for every thread count
   (no pool, pools of 1, 2, 3 and 7 threads), also when several caller
   threads run one program at once; sizes large enough that threads split
   the work. Built with TSan too (tests/t_thread*.c). */
#define _DEFAULT_SOURCE
/* the implementation: tests/tc_impl.c, linked in */
#include "tc.h"
#include "harness.h"
#include "ref_eval.h"
#include "kernel_cases.h"
#include <pthread.h>

/* Sanitizer builds leave out the cases whose reference alone takes
   seconds there (about 35M multiply-adds: panels too big for a thread to
   keep need that many); t_vm checks the chunk split itself. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KT_SANITIZED 1
#endif
#endif
#ifndef KT_SANITIZED
#define KT_SANITIZED 0
#endif

#define KT_MAX_OUT 8
#define KT_N_POOLS 4
static const int kt_threads[KT_N_POOLS] = {1, 2, 3, 7};
static tc_pool *kt_pools[KT_N_POOLS];

static const kc_case kt_cases[] = {
    {"matmul", KC_MM, "M=64 K=70 N=90", 0, KC_REDUCE, 0},
    /* engine: 3 k blocks, 2 N blocks, tasks in chunks per thread count */
    {"matmul-kblocks", KC_MM, "M=72 K=600 N=90", 0, KC_REDUCE, 0},
#if !KT_SANITIZED
    /* engine: one group (N block), its panels too big to keep: 2 chunks a
       thread, the first half bigger (shrink: 8 tasks in 3, 3, 1, 1 at 2
       threads, 2, 2, 2, 1, 1, 0 at 3; the tests' builds have no AVX) */
    {"matmul-shrink", KC_MM, "M=128 K=9000 N=32", 0, KC_REDUCE, 0},
    /* ... two groups: even chunks */
    {"matmul-2groups", KC_MM, "M=64 K=1100 N=600", 0, KC_REDUCE, 0},
#endif
    {"matmul-batched", KC_BMM, "NB=8 M=16 K=20 N=24", 0, KC_REDUCE, 0},
    {"matvec", KC_MV, "M=100 N=300", 0, KC_REDUCE, 0},
    {"avgpool-mul",
     "def apm(float(N,C,H,W) I) -> (O) {\n"
     "    O(n,c,h,w) +=! I(n,c,2*h+kh,2*w+kw) * 0.3 where kh in 0:2, kw in 0:2\n}\n",
     "N=2 C=5 H=40 W=66", 0, KC_REDUCE, 0},
    /* reductions along short rows, several to a block (chunks end mid-block) */
    {"foldred-65", KC_FOLDRED, "M=3 N=61 K=65", "X=-2:2 w=-1:1 s=-1:1", KC_LOOSE, 0},
    {"foldred-40", KC_FOLDRED, "M=5 N=37 K=40", "X=-2:2 w=-1:1 s=-1:1", KC_LOOSE, 0},
    /* a sum's last op and step in one pass, blocks split across chunks */
    {"acc-op",
     "def acc(float(K,M) X, float(K,M) Y, float(K) w, double(K,M) D, float s) -> (a, b, c, d, e) {\n"
     "    a(i) +=! X(k,i) * Y(k,i)\n"
     "    b(i) +=! X(k,i) - w(k)\n"
     "    c(i) +=! w(k) - X(k,i)\n"
     "    d(i) +=! D(k,i) + D(k,i) * 0.5\n"
     "    e(i) +=! w(k) * s where i in 0:M\n}\n",
     "K=9 M=1500", 0, KC_REDUCE, 0},
    {"conv2d", KC_CONV, "N=2 C=4 H=18 W=17 O=8 KH=3 KW=3", 0, KC_REDUCE, 0},
    {"conv2d-strided", KC_SCONV, "N=2 C=3 H=21 W=20 O=5 KH=3 KW=3", 0, KC_REDUCE, 0},
    {"conv2d-grouped", KC_GCONV, "N=2 G=4 C=3 H=12 W=11 O=3 KH=3 KW=3", 0, KC_REDUCE, 0},
    {"maxpool", KC_MAXPOOL, "N=2 C=8 H=16 W=18", 0, KC_EXACT, 0},
    {"maxpool-rows", KC_MAXPOOL, "N=2 C=7 H=112 W=114", 0, KC_EXACT, 0},
    {"maxpool-acc", KC_POOL("max=", "float", "2", "2", "2"), "N=3 C=7 H=64 W=66", 0, KC_EXACT,
     1},
    {"maxpool-3x3-s2", KC_POOL("max=!", "float", "3", "3", "2"), "N=2 C=6 H=63 W=65", 0,
     KC_EXACT, 0},
    {"maxpool-int8", KC_POOL("max=!", "int8", "2", "2", "2"), "N=2 C=9 H=60 W=70", "I=*",
     KC_EXACT, 0},
    {"sumpool", KC_POOL("+=!", "float", "2", "2", "2"), "N=2 C=7 H=64 W=66", 0, KC_REDUCE, 0},
    {"maxpool-then-scale",
     "def mps(float(N,C,H,W) I) -> (P, R) {\n"
     "    P(n,c,h,w) max=! I(n,c,2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, "
     "w in 0:W/2\n"
     "    R(n,c,h,w) = P(n,c,h,w) * 2.0\n}\n",
     "N=2 C=7 H=64 W=66", 0, KC_EXACT, 0},
    {"softmax", KC_SOFTMAX, "M=37 N=300", "X=-4:4", KC_REDUCE, 0},
    {"layernorm", KC_LAYERNORM, "M=33 N=200", "X=-4:4", KC_REDUCE, 0},
    {"stencil3", KC_STENCIL3, "N=5000", 0, KC_EXACT, 0},
    {"sum", KC_SUM, "N=20000", 0, KC_REDUCE, 0},
    {"sum-segments", KC_SUM, "N=400000", 0, KC_REDUCE, 0}, /* 7 segments (tc__vm_plan_segments) */
    {"rowsum-segments", KC_ROWSUM, "M=3 N=200000", 0, KC_REDUCE, 0},
    {"sum2-collapsed", "def cs2(float(M,N) A) -> (s) { s +=! A(i,j) }", "M=300 N=500", 0, KC_REDUCE, 0},
    /* segments along the outer reduction loop (seg_rows): a weighted total,
       a sum from row 1 over three loops, a bytecode body (int32) */
    {"weighted-total-segments", "def wt(float(M,N) A, float(N) w) -> (s) { s +=! A(i,j) * w(j) }",
     "M=700 N=500", 0, KC_REDUCE, 0},
    {"offset-sum-segments", "def os(float(M,K,N) A) -> (s) { s +=! A(i,k,j) where i in 1:M }",
     "M=90 K=7 N=333", 0, KC_REDUCE, 0},
    {"int-total-segments", "def it(int32(M,N) A, int32(N) w) -> (s) { s +=! A(i,j) * w(j) }",
     "M=400 N=700", "A=-100:100 w=-100:100", KC_EXACT, 0},
    {"contract-collapsed",
     "def cc(float(M,K,L) A, float(K,L,N) B) -> (C) { C(i,j) +=! A(i,k,l) * B(k,l,j) }",
     "M=40 K=6 L=9 N=50", 0, KC_REDUCE, 0},
    {"rowsum", KC_ROWSUM, "M=50 N=1000", 0, KC_REDUCE, 0},
    {"gather", KC_GATHER32, "V=50 D=64 L=100", "Idx=0:49", KC_EXACT, 0},
    {"gather64", KC_GATHER64, "V=50 D=3 L=1000", "Idx=0:49", KC_EXACT, 0},
    {"ew_tanh", KC_EW_TANH, "N=10000", "x=-2:2", KC_LOOSE, 0},
    {"ew_fma", KC_EW_FMA, "N=10000", 0, KC_EXACT, 0},
    {"mlp", KC_MLP, "B=32 I=40 J=30 K=20", 0, KC_REDUCE, 0},
    {"reductions", KC_REDUCTIONS, "M=40 N=100", "X=0.5:1.5", KC_REDUCE, 0},
    {"reductions-acc", KC_REDUCTIONS_ACC, "M=40 N=100", "X=0.5:1.5", KC_REDUCE, 1},
    {"int-reductions", KC_INT_RED("int32"), "M=40 N=60", "X=*", KC_EXACT, 0},
    {"int8-ew", KC_INT_EW("int8"), "N=5000", "a=* b=-5:5", KC_EXACT, 0},
    {"scalar-2d", "def s2(float(M,N) A) -> (s) { s +=! A(i,j) }", "M=70 N=90", 0, KC_REDUCE, 0},
    {"half", "def eh(float16(M,N) a) -> (s, c) { s(i) +=! a(i,j)\n c(i,j) = a(i,j) * 0.3 }",
     "M=40 N=130", "a=-2:2", KC_REDUCE, 0},
    /* reductions along the row (64 partials, then a fold) and the division
       by a row's value, with rows split between threads */
    {"rowred-sum", KC_ROWRED_SUM("float"), "M=150 N=1100", "A=-1:1 m=-1:1 v=0:4", KC_REDUCE, 0},
    {"rowred-minmax-f64", KC_ROWRED_MINMAX("double"), "M=120 N=513", "A=-4:4 m=0.5:2", KC_EXACT,
     0},
    {"rowred-int32", KC_ROWRED_INT, "M=200 N=300", "A=* m=*", KC_EXACT, 0},
    {"rowred-3d", KC_ROWRED_3D, "B=6 M=20 N=700", "A=-1:1 m=-1:1", KC_REDUCE, 0},
    {"divu", KC_DIVU("float"), "M=300 N=1500", "X=^! s=~!", KC_EXACT, 0},
    {"divu-f64", KC_DIVU("double"), "M=200 N=1030", "X=^! s=~!", KC_EXACT, 0},
    {"divu-affine", KC_DIVU_AFFINE("float"), "M=200 N=1100", "X=^! s=~! g=-2:2 b=-1:1", KC_EXACT,
     0},
    {"rows-forms", KC_ROWS_FORMS, "M=300 N=700", "X=-4:4 g=0.5:1.5 m=-1:1", KC_REDUCE, 0},
    {"rows-divu", KC_ROWS_DIVU, "M=300 N=530", "X=^! s=~! g=-2:2", KC_EXACT, 0},
    {"rows-offset", KC_ROWS_OFFSET, "M=300 N=600", "X=-4:4 m=0.5:2 g=-2:2", KC_EXACT, 0},
};
#define KT_N_CASES ((int)(sizeof kt_cases / sizeof kt_cases[0]))

static tc_program *kt_compile(const char *src) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    CHECKF(tc_compile(&cd, &p, &err) == TC_OK, "compile: %s at %d:%d", err.msg, err.line, err.col);
    return p;
}

/* One run into caller buffers that start as copies of `pre` (or zeroed). */
static tc_status kt_run(const tc_program *p, const tc_tensor *in, int n_in, const tc_tensor *like,
                        const tc_tensor *pre, tc_tensor *out, int n_out, tc_pool *pool,
                        tc_error *err) {
    int i;
    for (i = 0; i < n_out; i++) {
        out[i] = pre ? kc_copy(&pre[i]) : like[i];
        if (!pre)
            out[i].data = calloc((size_t)ref_numel(&like[i]) + 1, tc_dtype_size(like[i].dtype));
    }
    return kc_vm(p, in, n_in, out, n_out, pool, err);
}

typedef struct kt_job { /* one caller thread running a shared program */
    const tc_program *p;
    const tc_tensor *in, *like, *pre, *expect;
    int n_in, n_out, reps;
    tc_pool *pool;
    int ok;
} kt_job;

static void *kt_job_main(void *arg) {
    kt_job *j = (kt_job *)arg;
    int r, i;
    j->ok = 1;
    for (r = 0; r < j->reps; r++) {
        tc_tensor o[KT_MAX_OUT];
        tc_error err;
        if (kt_run(j->p, j->in, j->n_in, j->like, j->pre, o, j->n_out, j->pool, &err) != TC_OK)
            j->ok = 0;
        for (i = 0; i < j->n_out; i++) {
            if (j->ok && !kc_bitwise_equal(&o[i], &j->expect[i])) j->ok = 0;
            free(o[i].data);
        }
    }
    return NULL;
}

/* Three caller threads at once: two without a pool, one with the 2-pool. */
static void kt_concurrent(const kc_case *k, const tc_program *p, const tc_tensor *in, int n_in,
                          const tc_tensor *like, const tc_tensor *pre, const tc_tensor *expect,
                          int n_out) {
    pthread_t th[3];
    kt_job jobs[3];
    int i, started[3];
    for (i = 0; i < 3; i++) {
        jobs[i].p = p, jobs[i].in = in, jobs[i].like = like, jobs[i].pre = pre;
        jobs[i].expect = expect, jobs[i].n_in = n_in, jobs[i].n_out = n_out, jobs[i].reps = 2;
        jobs[i].pool = i == 2 ? kt_pools[1] : NULL;
        jobs[i].ok = 0;
        started[i] = pthread_create(&th[i], NULL, kt_job_main, &jobs[i]) == 0;
    }
    for (i = 0; i < 3; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        CHECKF(started[i] && jobs[i].ok, "%s: concurrent caller %d differs", k->family, i);
    }
}

static void kt_case(const kc_case *k) {
    tc_program *p = kt_compile(k->src);
    const tc_ir_def *d;
    tc_tensor in[16], want[KT_MAX_OUT], pre[KT_MAX_OUT], base[KT_MAX_OUT], o[KT_MAX_OUT];
    tc_error err;
    char why[256];
    kc_rng rng = {4242};
    int i, t, n_in, n_out;
    tc_status st;
    if (!p) return;
    d = tc_program_ir(p, tc_program_find(p, NULL));
    n_in = d->n_inputs;
    n_out = d->n_outputs;
    memset(want, 0, sizeof want);
    if (!kc_make_inputs(d, k->sizes, k->ranges, &rng, in, why, sizeof why) ||
        ref_run(p, NULL, in, n_in, want, n_out, why, sizeof why) != TC_OK) {
        CHECKF(0, "%s: %s", k->family, why);
        tc_program_free(p);
        return;
    }
    for (i = 0; i < n_out; i++) {
        pre[i] = kc_copy(&want[i]);
        if (k->accumulate) kc_fill(&pre[i], 0.5, 1.5, 0, &rng);
    }
    /* the baseline: the calling thread only */
    st = kt_run(p, in, n_in, want, k->accumulate ? pre : NULL, base, n_out, NULL, &err);
    CHECKF(st == TC_OK, "%s: tc_run: %s", k->family, err.msg);
    if (st == TC_OK && !k->accumulate)
        for (i = 0; i < n_out; i++)
            CHECKF(kc_compare(&base[i], &want[i], k->tol, why, sizeof why),
                   "%s: output %d vs reference: %s", k->family, i, why);
    for (t = 0; st == TC_OK && t < KT_N_POOLS; t++) {
        int same = 1;
        tc_status s2 =
            kt_run(p, in, n_in, want, k->accumulate ? pre : NULL, o, n_out, kt_pools[t], &err);
        for (i = 0; i < n_out; i++) {
            if (s2 == TC_OK) same &= kc_bitwise_equal(&o[i], &base[i]);
            free(o[i].data);
        }
        CHECKF(s2 == TC_OK && same, "%s: %d threads differ from 1 (%s)", k->family, kt_threads[t],
               s2 == TC_OK ? "results" : err.msg);
    }
    if (st == TC_OK) kt_concurrent(k, p, in, n_in, want, k->accumulate ? pre : NULL, base, n_out);
    kc_free_tensors(base, n_out);
    kc_free_tensors(pre, n_out);
    ref_free_outputs(want, n_out);
    kc_free_tensors(in, n_in);
    tc_program_free(p);
}

/* A plan run again on new data with threads: nothing from the last run
   (a thread's packed panels) is taken for this one's. */
static void test_plan_rerun(void) {
    enum { M = 40, K = 300, N = 24 }; /* one N block: every task packs the same panels */
    static float A[M * K], B[2][K * N], C[2][M * N], C1[M * N];
    tc_program *p = kt_compile(KC_MM);
    tc_tensor in[2], out[1];
    tc_run_desc rd;
    tc_plan *plan = NULL;
    tc_error err;
    int i, r;
    if (!p) return;
    for (i = 0; i < M * K; i++) A[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    for (i = 0; i < K * N; i++) {
        B[0][i] = (float)((i * 53) % 97) / 48.0f - 1.0f;
        B[1][i] = (float)((i * 29) % 89) / 44.0f - 1.0f;
    }
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dtype = in[1].dtype = out[0].dtype = TC_FLOAT32;
    in[0].rank = in[1].rank = out[0].rank = 2;
    in[0].shape[0] = M, in[0].shape[1] = K, in[0].data = A;
    in[1].shape[0] = K, in[1].shape[1] = N;
    out[0].shape[0] = M, out[0].shape[1] = N;
    memset(&rd, 0, sizeof rd);
    rd.inputs = in, rd.n_inputs = 2, rd.outputs = out, rd.n_outputs = 1;
    for (r = 0; r < 2; r++) { /* each B alone, on the calling thread */
        in[1].data = B[r], out[0].data = C[r];
        CHECKF(tc_run(p, &rd, &err) == TC_OK, "rerun: %s", err.msg);
    }
    rd.pool = kt_pools[1]; /* 2 threads */
    in[1].data = B[0], out[0].data = C1;
    CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_OK, "rerun: %s", err.msg);
    for (r = 0; plan && r < 4; r++) { /* B[0], B[1], B[0], B[1] through one plan */
        in[1].data = B[r % 2];
        CHECKF(tc_plan_run(plan, &rd, &err) == TC_OK, "rerun: %s", err.msg);
        CHECKF(memcmp(C1, C[r % 2], sizeof C1) == 0, "rerun %d differs from a fresh run", r);
    }
    tc_plan_free(plan);
    tc_program_free(p);
}

/* Pools are reusable across programs and survive many small runs. */
static void test_pool_reuse(void) {
    tc_program *p = kt_compile(KC_EW_FMA);
    float a[3] = {1, 2, 3}, x[3] = {4, 5, 6}, b[3] = {7, 8, 9}, y[3];
    tc_tensor in[3], out[1];
    tc_run_desc rd;
    tc_error err;
    int r, ok = 1;
    if (!p) return;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    for (r = 0; r < 3; r++)
        in[r].dtype = TC_FLOAT32, in[r].rank = 1, in[r].shape[0] = 3;
    in[0].data = a, in[1].data = x, in[2].data = b;
    out[0].dtype = TC_FLOAT32, out[0].rank = 1, out[0].shape[0] = 3, out[0].data = y;
    memset(&rd, 0, sizeof rd);
    rd.inputs = in, rd.n_inputs = 3, rd.outputs = out, rd.n_outputs = 1;
    for (r = 0; r < 200; r++) {
        rd.pool = kt_pools[r % KT_N_POOLS];
        memset(y, 0, sizeof y);
        ok &= tc_run(p, &rd, &err) == TC_OK && y[0] == 11 && y[1] == 18 && y[2] == 27;
    }
    CHECK(ok);
    CHECK(tc_pool_num_threads(kt_pools[3]) == 7);
    tc_program_free(p);
}

int main(void) {
    int i;
    tc_error err;
    for (i = 0; i < KT_N_POOLS; i++)
        CHECKF(tc_pool_create(kt_threads[i], NULL, &kt_pools[i], &err) == TC_OK, "pool %d: %s",
               kt_threads[i], err.msg);
    for (i = 0; i < KT_N_CASES; i++) {
        th_current = kt_cases[i].family;
        kt_case(&kt_cases[i]);
    }
    RUN(test_plan_rerun);
    RUN(test_pool_reuse);
    for (i = 0; i < KT_N_POOLS; i++)
        tc_pool_free(kt_pools[i]);
    return th_report();
}
