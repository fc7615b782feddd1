/* bench.c - build/tc-bench: BENCH.md's kernel set through tc.h's C API,
   next to the baselines compiled into the same binary.

   Families (the CSV `family` column):
     tc          tc.h's VM: compiled once, tc_plan_create, then tc_plan_run
                 with caller outputs on a tc_pool of 1, 2, ... threads
     tc-opencl   tc_opencl.h's runner (built when OpenCL and the header exist)
     naive       tools/bench_naive.c, -O3 -march=native, rows split over
                 pthreads started per call (nothing spins between calls)
     naive-ffm   the same loops compiled with -ffast-math
     blas        OpenBLAS: sgemm, sgemv, 64 sgemm calls, im2col + sgemm
   Every result is checked against a float64 reference computed here from
   the same inputs, with a tolerance that allows for float32 rounding in any
   summation order (see tol_sum) -> `ok` / `MISMATCH`.

   Usage: tc-bench [--csv] [--quick] [--threads 1,2] [--family F,...]
                   [--blas-core auto|keep|NAME] [KERNEL ...]
   Timing rule: warm-up calls, then at least 7 timed calls (CLOCK_MONOTONIC);
   median, min and max are reported. tc and the naive loops, at every
   thread count, take their calls in turn, round after round (see
   "Interleaved timing"), so that their ratios compare calls made under the
   same load;
   tc-opencl and OpenBLAS are timed alone. No figure is asserted anywhere. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define TC_IMPLEMENTATION
#include "tc.h"
/* tc_opencl.h: the runner with TC_BENCH_OPENCL (and TC_OPENCL_RUNNER); its
   C emitter (tc_c_emit) for --random needs no OpenCL. */
#define TC_OPENCL_IMPLEMENTATION
#include "tc_opencl.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(TC_BENCH_BLAS)
#include <cblas.h>
#endif

/* The two compiled copies of the naive loops: prototypes only here. */
#define BENCH_NAIVE_DECLS
#define BENCH_PREFIX naive_
#include "bench_naive.c"
#undef BENCH_PREFIX
#define BENCH_PREFIX nffm_
#include "bench_naive.c"
#undef BENCH_PREFIX

#define MAX_THREADS 16
#define MAX_THREAD_COUNTS 8 /* entries of --threads */
#define MAX_ROWS 512
#define F32_U (1.0 / 16777216.0) /* unit roundoff of float32, 2^-24 */

/* ==== Options and rows ===================================================== */

typedef struct bench_opts {
    int csv, quick;
    int threads[MAX_THREAD_COUNTS], n_threads;
    const char *families; /* comma list; NULL = all */
    const char *blas_core; /* auto, keep or an OpenBLAS core name */
    char **kernels;       /* positional kernel names */
    int n_kernels;
    double target_s; /* time spent timing one variant */
    int random_n;    /* --random N: the random generality benchmark (bench_random.c) */
    uint64_t seed;   /* --seed */
    int dump, keep;  /* --dump: print the generated defs; --keep: keep the C's directory */
    int max_rounds;  /* 0: rep_count's own; else at most this many (--random: many defs) */
} bench_opts;

typedef struct timing {
    double med, min, max; /* seconds */
    int reps;
} timing;

enum { ROW_OK, ROW_MISMATCH, ROW_ERROR };

typedef struct row {
    int kernel; /* index into kernels[] */
    const char *family, *variant;
    int threads;
    timing t;
    int status;
    double err_ratio; /* worst |got - ref| / tol */
    char note[480];
} row;

/* ==== Kernel specs ========================================================= */

typedef struct tspec {
    const char *name;
    int rank;
    int64_t shape[4];
    float lo, hi; /* inputs: uniform data in [lo, hi) */
} tspec;

typedef struct naive_family {
    const char *name;
    void (*mm)(const float *, const float *, float *, int64_t, int64_t, int64_t, int64_t, int64_t);
    void (*mv)(const float *, const float *, float *, int64_t, int64_t, int64_t, int64_t);
    void (*bmm)(const float *, const float *, float *, int64_t, int64_t, int64_t, int64_t, int64_t,
                int64_t);
    void (*conv2d)(const float *, const float *, float *, int64_t, int64_t, int64_t, int64_t,
                   int64_t, int64_t, int64_t, int64_t, int64_t);
    void (*maxpool2x2)(const float *, float *, int64_t, int64_t, int64_t, int64_t, int64_t);
    void (*ew_tanh)(const float *, const float *, const float *, float *, int64_t, int64_t);
    void (*ew_fma)(const float *, const float *, const float *, float *, int64_t, int64_t);
    void (*stencil3)(const float *, float *, int64_t, int64_t);
    void (*softmax)(const float *, float *, int64_t, int64_t, int64_t);
    void (*layernorm)(const float *, const float *, const float *, float *, int64_t, int64_t,
                      int64_t);
    void (*rowsum)(const float *, float *, int64_t, int64_t, int64_t);
    float (*sum_all)(const float *, int64_t, int64_t);
} naive_family;

static const naive_family fam_naive = {
    "naive",        naive_mm,      naive_mv,        naive_bmm,      naive_conv2d,
    naive_maxpool2x2, naive_ew_tanh, naive_ew_fma, naive_stencil3, naive_softmax,
    naive_layernorm, naive_rowsum, naive_sum_all};
static const naive_family fam_ffm = {
    "naive-ffm",   nffm_mm,      nffm_mv,        nffm_bmm,      nffm_conv2d,
    nffm_maxpool2x2, nffm_ew_tanh, nffm_ew_fma, nffm_stencil3, nffm_softmax,
    nffm_layernorm, nffm_rowsum, nffm_sum_all};

typedef struct kstate kstate;
typedef struct kspec {
    const char *kernel, *size, *src;
    int n_in, n_out, checked; /* checked: the output compared with the reference */
    tspec in[3], out[4];
    /* outputs BENCH.md calls intermediates (softmax's e, layernorm's d):
       tc is told they are not wanted (tc_run_desc.discard), as a fused C
       loop would not store them */
    const unsigned char *discard;
    double flops, bytes; /* per call; 0 = not reported */
    int64_t split;       /* units the naive loops are split over */
    const char *naive_variant;
    void (*naive)(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part);
    void (*finish)(kstate *k, int parts); /* combines per-thread parts (sum) */
    void (*reference)(const kstate *k, double *ref, double *tol);
    const char *blas_variant; /* NULL: no BLAS baseline */
    void (*blas)(kstate *k, int threads);
} kspec;

struct kstate {
    const kspec *s;
    float *in[3], *out[4];
    float part[MAX_THREADS];
    float *scratch; /* im2col columns */
};

static int64_t numel(const tspec *t) {
    int64_t n = 1;
    int d;
    for (d = 0; d < t->rank; d++) n *= t->shape[d];
    return n;
}
static const float *IN(const kstate *k, int i) { return k->in[i]; }
static float *OUT(const kstate *k) { return k->out[k->s->checked]; }
static int64_t SH(const kstate *k, int i, int d) { return k->s->in[i].shape[d]; }

/* ==== Naive adapters: one call computes units [lo, hi) ===================== */

static void nv_mm(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    (void)part;
    f->mm(IN(k, 0), IN(k, 1), OUT(k), SH(k, 0, 0), SH(k, 1, 1), SH(k, 0, 1), lo, hi);
}
static void nv_mv(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    (void)part;
    f->mv(IN(k, 0), IN(k, 1), OUT(k), SH(k, 0, 0), SH(k, 0, 1), lo, hi);
}
static void nv_bmm(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    (void)part;
    f->bmm(IN(k, 0), IN(k, 1), OUT(k), SH(k, 0, 0), SH(k, 0, 1), SH(k, 1, 2), SH(k, 0, 2), lo, hi);
}
static void nv_conv2d(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    (void)part;
    f->conv2d(IN(k, 0), IN(k, 1), OUT(k), SH(k, 0, 0), SH(k, 0, 1), SH(k, 0, 2), SH(k, 0, 3),
              SH(k, 1, 0), SH(k, 1, 2), SH(k, 1, 3), lo, hi);
}
static void nv_maxpool(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    (void)part;
    f->maxpool2x2(IN(k, 0), OUT(k), SH(k, 0, 0) * SH(k, 0, 1), SH(k, 0, 2), SH(k, 0, 3), lo, hi);
}
static void nv_ew_tanh(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    (void)part;
    f->ew_tanh(IN(k, 0), IN(k, 1), IN(k, 2), OUT(k), lo, hi);
}
static void nv_ew_fma(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    (void)part;
    f->ew_fma(IN(k, 0), IN(k, 1), IN(k, 2), OUT(k), lo, hi);
}
static void nv_stencil3(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    (void)part;
    f->stencil3(IN(k, 0), OUT(k), lo, hi);
}
static void nv_softmax(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    (void)part;
    f->softmax(IN(k, 0), OUT(k), SH(k, 0, 1), lo, hi);
}
static void nv_layernorm(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    (void)part;
    f->layernorm(IN(k, 0), IN(k, 1), IN(k, 2), OUT(k), SH(k, 0, 1), lo, hi);
}
static void nv_rowsum(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    (void)part;
    f->rowsum(IN(k, 0), OUT(k), SH(k, 0, 1), lo, hi);
}
static void nv_sum(const naive_family *f, kstate *k, int64_t lo, int64_t hi, int part) {
    k->part[part] = f->sum_all(IN(k, 0), lo, hi);
}
static void finish_sum(kstate *k, int parts) { /* the parts in order, in float */
    float s = k->part[0];
    int p;
    for (p = 1; p < parts; p++) s += k->part[p];
    OUT(k)[0] = s;
}

/* ==== float64 references and tolerances ==================================== */

/* A float32 sum of K terms p_k, in any order, carries rounding errors whose
   sum is about u/sqrt(3) * sqrt(sum of squared partial sums); for terms of
   random sign the partial sums of a sequential order give
   sqrt((K/2 + 1) * sum p_k^2), the largest of the usual orders (blocked and
   pairwise partials are smaller). 10x that is ~17 standard deviations:
   loose for every legitimate order, tight enough that a dropped block of
   terms or a wrong index fails. */
static double tol_sum(double K, double sumsq) {
    return 10.0 * F32_U * sqrt((K / 2.0 + 1.0) * sumsq) + 1e-30;
}

/* ref/tol rows [0, M) of A(MxK) * B(KxN): i,k,j order in double. */
static void ref_matmul(const float *A, const float *B, int64_t M, int64_t N, int64_t K,
                       double *ref, double *tol) {
    double *sq = (double *)malloc((size_t)N * sizeof(double));
    int64_t i, j, k;
    if (!sq) abort();
    for (i = 0; i < M; i++) {
        double *acc = ref + i * N;
        for (j = 0; j < N; j++) acc[j] = sq[j] = 0.0;
        for (k = 0; k < K; k++) {
            const double a = A[i * K + k];
            const float *b = B + k * N;
            for (j = 0; j < N; j++) {
                const double p = a * (double)b[j];
                acc[j] += p;
                sq[j] += p * p;
            }
        }
        for (j = 0; j < N; j++) tol[i * N + j] = tol_sum((double)K, sq[j]);
    }
    free(sq);
}
static void ref_mm(const kstate *k, double *ref, double *tol) {
    ref_matmul(IN(k, 0), IN(k, 1), SH(k, 0, 0), SH(k, 1, 1), SH(k, 0, 1), ref, tol);
}
static void ref_bmm(const kstate *k, double *ref, double *tol) {
    const int64_t NB = SH(k, 0, 0), M = SH(k, 0, 1), K = SH(k, 0, 2), N = SH(k, 1, 2);
    int64_t b;
    for (b = 0; b < NB; b++)
        ref_matmul(IN(k, 0) + b * M * K, IN(k, 1) + b * K * N, M, N, K, ref + b * M * N,
                   tol + b * M * N);
}
static void ref_mv(const kstate *k, double *ref, double *tol) {
    const int64_t M = SH(k, 0, 0), N = SH(k, 0, 1);
    int64_t i, j;
    for (i = 0; i < M; i++) {
        double s = 0.0, sq = 0.0;
        for (j = 0; j < N; j++) {
            const double p = (double)IN(k, 0)[i * N + j] * (double)IN(k, 1)[j];
            s += p;
            sq += p * p;
        }
        ref[i] = s;
        tol[i] = tol_sum((double)N, sq);
    }
}
static void ref_conv2d(const kstate *k, double *ref, double *tol) {
    const int64_t N = SH(k, 0, 0), C = SH(k, 0, 1), H = SH(k, 0, 2), W = SH(k, 0, 3);
    const int64_t O = SH(k, 1, 0), KH = SH(k, 1, 2), KW = SH(k, 1, 3);
    const int64_t OH = H - KH + 1, OW = W - KW + 1, P = OH * OW;
    double *sq = (double *)malloc((size_t)P * sizeof(double));
    int64_t n, o, c, kh, kw, h, w, e;
    if (!sq) abort();
    for (n = 0; n < N; n++)
        for (o = 0; o < O; o++) {
            double *acc = ref + (n * O + o) * P;
            for (e = 0; e < P; e++) acc[e] = sq[e] = 0.0;
            for (c = 0; c < C; c++)
                for (kh = 0; kh < KH; kh++)
                    for (kw = 0; kw < KW; kw++) {
                        const double wt = IN(k, 1)[((o * C + c) * KH + kh) * KW + kw];
                        const float *in = IN(k, 0) + ((n * C + c) * H + kh) * W + kw;
                        for (h = 0; h < OH; h++)
                            for (w = 0; w < OW; w++) {
                                const double p = wt * (double)in[h * W + w];
                                acc[h * OW + w] += p;
                                sq[h * OW + w] += p * p;
                            }
                    }
            for (e = 0; e < P; e++) tol[(n * O + o) * P + e] = tol_sum((double)(C * KH * KW), sq[e]);
        }
    free(sq);
}
static void ref_maxpool(const kstate *k, double *ref, double *tol) {
    const int64_t NC = SH(k, 0, 0) * SH(k, 0, 1), H = SH(k, 0, 2), W = SH(k, 0, 3);
    const int64_t OH = H / 2, OW = W / 2;
    int64_t p, h, w;
    for (p = 0; p < NC; p++)
        for (h = 0; h < OH; h++)
            for (w = 0; w < OW; w++) {
                const float *q = IN(k, 0) + p * H * W + 2 * h * W + 2 * w;
                double m = q[0];
                if (q[1] > m) m = q[1];
                if (q[W] > m) m = q[W];
                if (q[W + 1] > m) m = q[W + 1];
                ref[(p * OH + h) * OW + w] = m;
                tol[(p * OH + h) * OW + w] = 0.0; /* exact */
            }
}
/* tanh(a*x + b): a few ulp of the result, plus the rounding of a*x + b
   (tanh' <= 1) when the argument is computed in float. */
static void ref_ew_tanh(const kstate *k, double *ref, double *tol) {
    const int64_t n = numel(&k->s->in[0]);
    int64_t i;
    for (i = 0; i < n; i++) {
        const double ax = (double)IN(k, 0)[i] * (double)IN(k, 1)[i];
        ref[i] = tanh(ax + (double)IN(k, 2)[i]);
        tol[i] = 4.0 * F32_U * (fabs(ax) + fabs((double)IN(k, 2)[i])) + 16.0 * F32_U * fabs(ref[i]);
    }
}
/* a*x + b: one rounding (fma) or two. */
static void ref_ew_fma(const kstate *k, double *ref, double *tol) {
    const int64_t n = numel(&k->s->in[0]);
    int64_t i;
    for (i = 0; i < n; i++) {
        const double ax = (double)IN(k, 0)[i] * (double)IN(k, 1)[i];
        ref[i] = ax + (double)IN(k, 2)[i];
        tol[i] = 4.0 * F32_U * (fabs(ax) + fabs((double)IN(k, 2)[i])) + 1e-30;
    }
}
static void ref_stencil3(const kstate *k, double *ref, double *tol) {
    const int64_t n = numel(&k->s->out[0]);
    const float *x = IN(k, 0);
    int64_t i;
    for (i = 0; i < n; i++) {
        ref[i] = ((double)x[i] + (double)x[i + 1] + (double)x[i + 2]) / 3.0;
        tol[i] = 8.0 * F32_U * (fabs((double)x[i]) + fabs((double)x[i + 1]) + fabs((double)x[i + 2])) + 1e-30;
    }
}
/* Y = exp(x - max) / sum: exp to a few ulp, the sum of N positive terms
   within (N-1)u in any order, one division: relative 1e-4 covers it. */
static void ref_softmax(const kstate *k, double *ref, double *tol) {
    const int64_t M = SH(k, 0, 0), N = SH(k, 0, 1);
    int64_t i, j;
    for (i = 0; i < M; i++) {
        const float *x = IN(k, 0) + i * N;
        double mx = x[0], s = 0.0;
        for (j = 1; j < N; j++) mx = x[j] > mx ? x[j] : mx;
        for (j = 0; j < N; j++) s += (ref[i * N + j] = exp((double)x[j] - mx));
        for (j = 0; j < N; j++) {
            ref[i * N + j] /= s;
            tol[i * N + j] = 1e-4 * ref[i * N + j];
        }
    }
}
/* The mean's float error (a sum of N terms |x/N| <= 4/N) shifts every d of
   the row; var and the division add relative errors: 1e-4 * (1 + |Y|). */
static void ref_layernorm(const kstate *k, double *ref, double *tol) {
    const int64_t M = SH(k, 0, 0), N = SH(k, 0, 1);
    const float *g = IN(k, 1), *b = IN(k, 2);
    int64_t i, j;
    for (i = 0; i < M; i++) {
        const float *x = IN(k, 0) + i * N;
        double mean = 0.0, var = 0.0, sd;
        for (j = 0; j < N; j++) mean += (double)x[j];
        mean /= (double)N;
        for (j = 0; j < N; j++) var += ((double)x[j] - mean) * ((double)x[j] - mean);
        sd = sqrt(var / (double)N + 1e-5);
        for (j = 0; j < N; j++) {
            ref[i * N + j] = ((double)x[j] - mean) / sd * (double)g[j] + (double)b[j];
            tol[i * N + j] = 1e-4 * (1.0 + fabs(ref[i * N + j]));
        }
    }
}
static void ref_rowsum(const kstate *k, double *ref, double *tol) {
    const int64_t M = SH(k, 0, 0), N = SH(k, 0, 1);
    int64_t i, j;
    for (i = 0; i < M; i++) {
        double s = 0.0, sq = 0.0;
        for (j = 0; j < N; j++) {
            const double v = IN(k, 0)[i * N + j];
            s += v;
            sq += v * v;
        }
        ref[i] = s;
        tol[i] = tol_sum((double)N, sq);
    }
}
static void ref_sum(const kstate *k, double *ref, double *tol) {
    const int64_t n = numel(&k->s->in[0]);
    double s = 0.0, sq = 0.0;
    int64_t i;
    for (i = 0; i < n; i++) {
        const double v = IN(k, 0)[i];
        s += v;
        sq += v * v;
    }
    ref[0] = s;
    tol[0] = tol_sum((double)n, sq);
}

/* ==== OpenBLAS baselines ==================================================== */
#if defined(TC_BENCH_BLAS)
static void bl_mm(kstate *k, int threads) {
    const int M = (int)SH(k, 0, 0), K = (int)SH(k, 0, 1), N = (int)SH(k, 1, 1);
    (void)threads;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, IN(k, 0), K, IN(k, 1),
                N, 0.0f, OUT(k), N);
}
static void bl_mv(kstate *k, int threads) {
    const int M = (int)SH(k, 0, 0), N = (int)SH(k, 0, 1);
    (void)threads;
    cblas_sgemv(CblasRowMajor, CblasNoTrans, M, N, 1.0f, IN(k, 0), N, IN(k, 1), 1, 0.0f, OUT(k),
                1);
}
static void bl_bmm(kstate *k, int threads) { /* one sgemm per batch */
    const int NB = (int)SH(k, 0, 0), M = (int)SH(k, 0, 1), K = (int)SH(k, 0, 2);
    const int N = (int)SH(k, 1, 2);
    int b;
    (void)threads;
    for (b = 0; b < NB; b++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f,
                    IN(k, 0) + (int64_t)b * M * K, K, IN(k, 1) + (int64_t)b * K * N, N, 0.0f,
                    OUT(k) + (int64_t)b * M * N, N);
}
#endif

/* ==== Threads for the baselines ============================================ */

typedef void (*part_fn)(void *ctx, int64_t lo, int64_t hi, int part);
typedef struct split_job {
    part_fn fn;
    void *ctx;
    int64_t lo, hi;
    int part;
} split_job;

static void *split_worker(void *p) {
    split_job *j = (split_job *)p;
    j->fn(j->ctx, j->lo, j->hi, j->part);
    return NULL;
}

/* Runs fn over [0, total) cut into `threads` equal parts: the caller does
   part 0, one pthread per other part, all joined before returning. Threads
   are started per call, so none spins between calls. */
static void run_split(part_fn fn, void *ctx, int64_t total, int threads) {
    pthread_t tid[MAX_THREADS];
    split_job job[MAX_THREADS];
    int started[MAX_THREADS];
    int t;
    for (t = 0; t < threads; t++) {
        job[t].fn = fn;
        job[t].ctx = ctx;
        job[t].lo = total * t / threads;
        job[t].hi = total * (t + 1) / threads;
        job[t].part = t;
        started[t] = 0;
    }
    for (t = 1; t < threads; t++)
        started[t] = pthread_create(&tid[t], NULL, split_worker, &job[t]) == 0;
    split_worker(&job[0]);
    for (t = 1; t < threads; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        else split_worker(&job[t]); /* could not start: do it here */
    }
}

#if defined(TC_BENCH_BLAS)
/* im2col of image n: col[(c*KH + kh)*KW + kw][h*OW + w] = I(n, c, h+kh, w+kw). */
static void im2col_part(void *ctx, int64_t lo, int64_t hi, int part) {
    kstate *k = (kstate *)ctx;
    const int64_t C = SH(k, 0, 1), H = SH(k, 0, 2), W = SH(k, 0, 3);
    const int64_t KH = SH(k, 1, 2), KW = SH(k, 1, 3), OH = H - KH + 1, OW = W - KW + 1;
    int64_t n, c, kh, kw, h;
    (void)part;
    for (n = lo; n < hi; n++) {
        float *col = k->scratch + n * C * KH * KW * OH * OW;
        for (c = 0; c < C; c++)
            for (kh = 0; kh < KH; kh++)
                for (kw = 0; kw < KW; kw++) {
                    const float *in = IN(k, 0) + ((n * C + c) * H + kh) * W + kw;
                    float *dst = col + ((c * KH + kh) * KW + kw) * OH * OW;
                    for (h = 0; h < OH; h++) memcpy(dst + h * OW, in + h * W, (size_t)OW * 4);
                }
    }
}
/* conv2d as im2col (split over images on the same threads) + one sgemm per
   image: Out[n] (O x OH*OW) = W1 (O x C*KH*KW) * col[n]. */
static void bl_conv2d(kstate *k, int threads) {
    const int64_t N = SH(k, 0, 0), C = SH(k, 0, 1), H = SH(k, 0, 2), W = SH(k, 0, 3);
    const int64_t O = SH(k, 1, 0), KH = SH(k, 1, 2), KW = SH(k, 1, 3);
    const int P = (int)((H - KH + 1) * (W - KW + 1)), CK = (int)(C * KH * KW);
    int64_t n;
    run_split(im2col_part, k, N, threads);
    for (n = 0; n < N; n++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)O, P, CK, 1.0f, IN(k, 1), CK,
                    k->scratch + n * CK * P, P, 0.0f, OUT(k) + n * O * P, P);
}
#define BLAS(variant, fn) .blas_variant = variant, .blas = fn
#else
#define BLAS(variant, fn) .blas_variant = NULL, .blas = NULL
#endif

/* ==== The kernel set (BENCH.md) ============================================ */

#define T1(n, a, lo, hi) {n, 1, {a, 0, 0, 0}, lo, hi}
#define T2(n, a, b, lo, hi) {n, 2, {a, b, 0, 0}, lo, hi}
#define T3(n, a, b, c, lo, hi) {n, 3, {a, b, c, 0}, lo, hi}
#define T4(n, a, b, c, d, lo, hi) {n, 4, {a, b, c, d}, lo, hi}
#define N16M ((int64_t)1 << 24)

static const char SRC_MM[] = "def mm(float(M,K) A, float(K,N) B) -> (C) {\n"
                             "    C(i,j) +=! A(i,k) * B(k,j)\n}\n";
static const char SRC_MV[] = "def mv(float(M,N) A, float(N) x) -> (y) {\n"
                             "    y(i) +=! A(i,j) * x(j)\n}\n";
static const char SRC_BMM[] = "def bmm(float(NB,M,K) A, float(NB,K,N) B) -> (C) {\n"
                              "    C(b,i,j) +=! A(b,i,k) * B(b,k,j)\n}\n";
static const char SRC_CONV2D[] =
    "def conv2d(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
    "    Out(n,o,h,w) +=! I(n,c,h+kh,w+kw) * W1(o,c,kh,kw)\n}\n";
static const char SRC_MAXPOOL[] =
    "def maxpool2x2(float(N,C,H,W) I) -> (Out) {\n"
    "    Out(n,c,h,w) max=! I(n,c,2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, w in "
    "0:W/2\n}\n";
static const char SRC_EW_TANH[] = "def ew_tanh(float(N) a, float(N) x, float(N) b) -> (y) {\n"
                                  "    y(i) = tanh(a(i) * x(i) + b(i))\n}\n";
static const char SRC_EW_FMA[] = "def ew_fma(float(N) a, float(N) x, float(N) b) -> (y) {\n"
                                 "    y(i) = a(i) * x(i) + b(i)\n}\n";
static const char SRC_SOFTMAX[] = "def softmax(float(M,N) X) -> (mx, e, s, Y) {\n"
                                  "    mx(i) max=! X(i,j)\n"
                                  "    e(i,j) = exp(X(i,j) - mx(i))\n"
                                  "    s(i) +=! e(i,j)\n"
                                  "    Y(i,j) = e(i,j) / s(i)\n}\n";
static const char SRC_LAYERNORM[] =
    "def layernorm(float(M,N) X, float(N) g, float(N) b) -> (mean, d, var, Y) {\n"
    "    mean(i) +=! X(i,j) / N\n"
    "    d(i,j) = X(i,j) - mean(i)\n"
    "    var(i) +=! d(i,j) * d(i,j) / N\n"
    "    Y(i,j) = d(i,j) / sqrt(var(i) + 1e-5) * g(j) + b(j)\n}\n";
static const char SRC_STENCIL3[] = "def stencil3(float(N) x) -> (y) {\n"
                                   "    y(i) = (x(i) + x(i+1) + x(i+2)) / 3.0 where i in 0:N-2\n}\n";
static const char SRC_SUM[] = "def sum_all(float(N) x) -> (s) {\n    s +=! x(i)\n}\n";
static const char SRC_ROWSUM[] = "def rowsum(float(M,N) A) -> (r) {\n    r(i) +=! A(i,j)\n}\n";

#define MM_SPEC(sz, n)                                                                            \
    {.kernel = "mm", .size = sz, .src = SRC_MM, .n_in = 2, .n_out = 1, .checked = 0,              \
     .in = {T2("A", n, n, -1, 1), T2("B", n, n, -1, 1)}, .out = {T2("C", n, n, 0, 0)},            \
     .flops = 2.0 * n * n * n, .split = n, .naive_variant = "ikj", .naive = nv_mm,                \
     .reference = ref_mm, BLAS("sgemm", bl_mm)}

/* mx, e, s of softmax; mean, d, var of layernorm: all but Y */
static const unsigned char INTERMEDIATES[4] = {1, 1, 1, 0};

static const kspec kernels[] = {
    MM_SPEC("512^3", 512),
    MM_SPEC("1024^3", 1024),
    {.kernel = "mv", .size = "4096x4096", .src = SRC_MV, .n_in = 2, .n_out = 1,
     .in = {T2("A", 4096, 4096, -1, 1), T1("x", 4096, -1, 1)}, .out = {T1("y", 4096, 0, 0)},
     .flops = 2.0 * 4096 * 4096, .bytes = 4.0 * (4096.0 * 4096 + 4096 + 4096), .split = 4096,
     .naive_variant = "dot", .naive = nv_mv, .reference = ref_mv, BLAS("sgemv", bl_mv)},
    {.kernel = "bmm", .size = "64x128^3", .src = SRC_BMM, .n_in = 2, .n_out = 1,
     .in = {T3("A", 64, 128, 128, -1, 1), T3("B", 64, 128, 128, -1, 1)},
     .out = {T3("C", 64, 128, 128, 0, 0)}, .flops = 2.0 * 64 * 128 * 128 * 128, .split = 64,
     .naive_variant = "ikj", .naive = nv_bmm, .reference = ref_bmm,
     BLAS("sgemm-loop", bl_bmm)},
    {.kernel = "conv2d", .size = "8x64x56x56*64x64x3x3", .src = SRC_CONV2D, .n_in = 2,
     .n_out = 1, .in = {T4("I", 8, 64, 56, 56, -1, 1), T4("W1", 64, 64, 3, 3, -0.1f, 0.1f)},
     .out = {T4("Out", 8, 64, 54, 54, 0, 0)}, .flops = 2.0 * 8 * 64 * 54 * 54 * 64 * 9,
     .split = 8 * 64, .naive_variant = "direct", .naive = nv_conv2d, .reference = ref_conv2d,
     BLAS("im2col+sgemm", bl_conv2d)},
    {.kernel = "maxpool2x2", .size = "8x64x112x112", .src = SRC_MAXPOOL, .n_in = 1, .n_out = 1,
     .in = {T4("I", 8, 64, 112, 112, -1, 1)}, .out = {T4("Out", 8, 64, 56, 56, 0, 0)},
     .bytes = 4.0 * (8.0 * 64 * 112 * 112 + 8.0 * 64 * 56 * 56), .split = 8 * 64,
     .naive_variant = "loops", .naive = nv_maxpool, .reference = ref_maxpool, BLAS(NULL, NULL)},
    {.kernel = "ew_tanh", .size = "16M", .src = SRC_EW_TANH, .n_in = 3, .n_out = 1,
     .in = {T1("a", N16M, -1, 1), T1("x", N16M, -2, 2), T1("b", N16M, -1, 1)},
     .out = {T1("y", N16M, 0, 0)}, .bytes = 16.0 * (double)N16M, .split = N16M,
     .naive_variant = "loops", .naive = nv_ew_tanh, .reference = ref_ew_tanh, BLAS(NULL, NULL)},
    {.kernel = "ew_fma", .size = "16M", .src = SRC_EW_FMA, .n_in = 3, .n_out = 1,
     .in = {T1("a", N16M, -1, 1), T1("x", N16M, -2, 2), T1("b", N16M, -1, 1)},
     .out = {T1("y", N16M, 0, 0)}, .bytes = 16.0 * (double)N16M, .split = N16M,
     .naive_variant = "loops", .naive = nv_ew_fma, .reference = ref_ew_fma, BLAS(NULL, NULL)},
    {.kernel = "softmax", .size = "4096x1024", .src = SRC_SOFTMAX, .n_in = 1, .n_out = 4,
     .checked = 3, .in = {T2("X", 4096, 1024, -4, 4)},
     .out = {T1("mx", 4096, 0, 0), T2("e", 4096, 1024, 0, 0), T1("s", 4096, 0, 0),
             T2("Y", 4096, 1024, 0, 0)},
     .discard = INTERMEDIATES, .bytes = 8.0 * 4096 * 1024, .split = 4096,
     .naive_variant = "loops", .naive = nv_softmax,
     .reference = ref_softmax, BLAS(NULL, NULL)},
    {.kernel = "layernorm", .size = "4096x1024", .src = SRC_LAYERNORM, .n_in = 3, .n_out = 4,
     .checked = 3,
     .in = {T2("X", 4096, 1024, -4, 4), T1("g", 1024, 0.5f, 1.5f), T1("b", 1024, -0.5f, 0.5f)},
     .out = {T1("mean", 4096, 0, 0), T2("d", 4096, 1024, 0, 0), T1("var", 4096, 0, 0),
             T2("Y", 4096, 1024, 0, 0)},
     .discard = INTERMEDIATES, .bytes = 8.0 * 4096 * 1024 + 8.0 * 1024, .split = 4096,
     .naive_variant = "loops",
     .naive = nv_layernorm, .reference = ref_layernorm, BLAS(NULL, NULL)},
    {.kernel = "stencil3", .size = "16M", .src = SRC_STENCIL3, .n_in = 1, .n_out = 1,
     .in = {T1("x", N16M, -1, 1)}, .out = {T1("y", N16M - 2, 0, 0)},
     .bytes = 8.0 * (double)(N16M - 1), .split = N16M - 2, .naive_variant = "loops",
     .naive = nv_stencil3, .reference = ref_stencil3, BLAS(NULL, NULL)},
    {.kernel = "sum", .size = "16M", .src = SRC_SUM, .n_in = 1, .n_out = 1,
     .in = {T1("x", N16M, -1, 1)}, .out = {{"s", 0, {0, 0, 0, 0}, 0, 0}},
     .bytes = 4.0 * (double)N16M, .split = N16M, .naive_variant = "loops", .naive = nv_sum,
     .finish = finish_sum, .reference = ref_sum, BLAS(NULL, NULL)},
    {.kernel = "rowsum", .size = "4096x4096", .src = SRC_ROWSUM, .n_in = 1, .n_out = 1,
     .in = {T2("A", 4096, 4096, -1, 1)}, .out = {T1("r", 4096, 0, 0)},
     .bytes = 4.0 * (4096.0 * 4096 + 4096), .split = 4096, .naive_variant = "loops",
     .naive = nv_rowsum, .reference = ref_rowsum, BLAS(NULL, NULL)},
};
#define N_KERNELS ((int)(sizeof kernels / sizeof kernels[0]))

/* ==== Data ================================================================= */

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint64_t fnv1a(const char *s, uint64_t h) {
    while (*s) h = (h ^ (unsigned char)*s++) * 0x100000001B3ull;
    return h;
}
/* Deterministic uniform [lo, hi) with 24-bit resolution, seeded by the
   kernel, its size and the tensor's name: the same inputs on every run. */
static void fill_uniform(float *p, int64_t n, float lo, float hi, uint64_t seed) {
    uint64_t s = seed;
    int64_t i;
    for (i = 0; i < n; i++) {
        const float u = (float)(splitmix64(&s) >> 40) * (1.0f / 16777216.0f);
        p[i] = lo + (hi - lo) * u;
    }
}

static void *alloc_aligned(size_t bytes) {
    void *p = NULL;
    bytes = (bytes + 63) / 64 * 64;
    if (bytes == 0) bytes = 64;
    return posix_memalign(&p, 64, bytes) == 0 ? p : NULL;
}

static void kstate_free(kstate *k) {
    int i;
    for (i = 0; i < 3; i++) free(k->in[i]);
    for (i = 0; i < 4; i++) free(k->out[i]);
    free(k->scratch);
    memset(k, 0, sizeof *k);
}

static int kstate_init(kstate *k, const kspec *s) {
    int i;
    memset(k, 0, sizeof *k);
    k->s = s;
    for (i = 0; i < s->n_in; i++) {
        const int64_t n = numel(&s->in[i]);
        k->in[i] = (float *)alloc_aligned((size_t)n * sizeof(float));
        if (!k->in[i]) return 0;
        fill_uniform(k->in[i], n, s->in[i].lo, s->in[i].hi,
                     fnv1a(s->in[i].name, fnv1a(s->size, fnv1a(s->kernel, 0xCBF29CE484222325ull))));
    }
    for (i = 0; i < s->n_out; i++) {
        const int64_t n = numel(&s->out[i]);
        k->out[i] = (float *)alloc_aligned((size_t)n * sizeof(float));
        if (!k->out[i]) return 0;
        memset(k->out[i], 0, (size_t)n * sizeof(float));
    }
    if (s->blas && strcmp(s->kernel, "conv2d") == 0) { /* im2col columns of every image */
        const int64_t cols = SH(k, 0, 0) * SH(k, 0, 1) * SH(k, 1, 2) * SH(k, 1, 3) *
                             (SH(k, 0, 2) - SH(k, 1, 2) + 1) * (SH(k, 0, 3) - SH(k, 1, 3) + 1);
        k->scratch = (float *)alloc_aligned((size_t)cols * sizeof(float));
        if (!k->scratch) return 0;
    }
    return 1;
}

/* ==== Timing and checking ================================================== */

typedef int (*call_fn)(void *ctx, char *msg, size_t cap); /* 0: ok; else msg says why */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define MAX_REPS 101

/* How many timed calls a variant gets, from how long one call took: an odd
   number, at least 7 and more while they fit in target_s; 5 (BENCH.md's
   minimum) when a call takes over a second, so that a slow variant does not
   stretch `make bench` past a few minutes; 3 with --quick. */
static int rep_count(const bench_opts *o, double call_s) {
    int reps = o->quick ? 3 : (int)(o->target_s / (call_s > 1e-9 ? call_s : 1e-9));
    if (!o->quick && reps < 7) reps = call_s > 1.0 ? 5 : 7;
    if (reps > MAX_REPS) reps = MAX_REPS;
    if (o->max_rounds && reps > o->max_rounds) reps = o->max_rounds;
    return reps | 1;
}
/* Warm-up calls before timing: none with --quick or for slow calls. */
static int warm_count(const bench_opts *o, double call_s) {
    return o->quick ? 0 : call_s < 0.01 ? 3 : call_s < 0.1 ? 1 : 0;
}

static void set_timing(timing *t, double *times, int reps) {
    qsort(times, (size_t)reps, sizeof times[0], cmp_double);
    t->med = times[reps / 2];
    t->min = times[0];
    t->max = times[reps - 1];
    t->reps = reps;
}

/* One variant timed alone: the first call, warm-up calls, then the timed
   calls back to back (tc-opencl, and OpenBLAS, whose workers spin between
   calls and would slow whatever ran next). */
static int time_calls(const bench_opts *o, call_fn fn, void *ctx, timing *t, char *msg,
                      size_t cap) {
    double times[MAX_REPS], t0, first;
    int warm, reps, r;
    t0 = now_s();
    if (fn(ctx, msg, cap)) return 1;
    first = now_s() - t0;
    warm = warm_count(o, first);
    for (r = 0; r < warm; r++)
        if (fn(ctx, msg, cap)) return 1;
    reps = rep_count(o, first);
    for (r = 0; r < reps; r++) {
        t0 = now_s();
        if (fn(ctx, msg, cap)) return 1;
        times[r] = now_s() - t0;
    }
    set_timing(t, times, reps);
    return 0;
}

/* 1 when every |got - ref| <= tol (NaN fails); *worst = max |got - ref| / tol. */
static int check_output(const float *got, const double *ref, const double *tol, int64_t n,
                        double *worst) {
    double w = 0.0;
    int ok = 1;
    int64_t i;
    for (i = 0; i < n; i++) {
        const double e = fabs((double)got[i] - ref[i]);
        if (!(e <= tol[i])) ok = 0;
        if (e != e) w = INFINITY;
        else if (e > 0.0) {
            const double r = tol[i] > 0.0 ? e / tol[i] : INFINITY;
            if (r > w) w = r;
        }
    }
    *worst = w;
    return ok;
}

/* ==== Rows ================================================================= */

typedef struct bench {
    bench_opts o;
    row rows[MAX_ROWS];
    int n_rows;
    tc_pool *pool[MAX_THREAD_COUNTS]; /* one per entry of o.threads */
    char pool_err[MAX_THREAD_COUNTS][480];
    char blas_info[320];
    char ocl_info[480];
#if defined(TC_BENCH_OPENCL)
    tc_ocl_runner *ocl; /* NULL: no tc-opencl rows (ocl_info says why) */
#endif
} bench;

static row *new_row(bench *b, int ki, const char *family, const char *variant, int threads) {
    row *r;
    if (b->n_rows >= MAX_ROWS) return NULL;
    r = &b->rows[b->n_rows++];
    memset(r, 0, sizeof *r);
    r->kernel = ki;
    r->family = family;
    r->variant = variant;
    r->threads = threads;
    r->status = ROW_ERROR;
    return r;
}

static row *error_row(bench *b, int ki, const char *family, const char *variant, int threads,
                      const char *msg) {
    row *r = new_row(b, ki, family, variant, threads);
    if (r) snprintf(r->note, sizeof r->note, "%s", msg);
    return r;
}

/* The checked output poisoned (NaN) before a variant's first call, and
   graded after it. */
static void poison_output(kstate *k) {
    memset(OUT(k), 0xff, (size_t)numel(&k->s->out[k->s->checked]) * sizeof(float));
}
static void grade_output(row *r, const kstate *k, const double *ref, const double *tol) {
    const int64_t n = numel(&k->s->out[k->s->checked]);
    r->status = check_output(OUT(k), ref, tol, n, &r->err_ratio) ? ROW_OK : ROW_MISMATCH;
}

/* Poisons the checked output, times fn, checks the result. */
static row *measure(bench *b, kstate *k, int ki, const char *family, const char *variant,
                    int threads, call_fn fn, void *ctx, const double *ref, const double *tol) {
    row *r = new_row(b, ki, family, variant, threads);
    if (!r) return NULL;
    poison_output(k);
    if (time_calls(&b->o, fn, ctx, &r->t, r->note, sizeof r->note)) {
        r->status = ROW_ERROR;
        return r;
    }
    grade_output(r, k, ref, tol);
    return r;
}

/* ==== Interleaved timing ====================================================
   tc and the naive loops, at every thread count, are timed in rounds, one
   timed call of each variant in turn, so that a neighbour's load on this
   shared machine falls on every variant alike rather than on whichever ran
   in that second: timed one after another, layernorm's ratio to naive-ffm
   moved between 0.5x and 1.0x from run to run, and a kernel's 2-thread
   over 1-thread speedup between 1.4x and 1.9x. A round takes the variants
   of one thread count after another, fewest threads first, each group
   starting one variant further on than in the round before. A variant's
   timed calls come right after untimed ones of its own for WARM_RUN_S
   (unless a call takes WARM_S or more), so they run as calls made back to
   back do: the pool's workers are awake and spinning, and no worker
   spinning after another variant's call is left to slow a timed one.
   Where a round goes from fewer threads to more, the first variant's
   untimed calls last WARM_WAKE_S: a virtual CPU the hypervisor let idle
   while one thread ran comes back slowly. mm 512 at 2 threads, after 100
   ms of one busy thread, took 1.39, 1.09, 1.06, then 1.02 ms and less;
   layernorm 4096 x 1024 at 2 threads, in a lineup with the 1-thread
   variants and 4 ms of untimed calls before each, took 0.91-1.00 ms (tc)
   and 0.85-1.01 (naive-ffm) in 6 runs, against 0.62-0.65 and 0.70-0.90
   with the 2-thread variants alone; with 20 ms before every variant,
   0.63-0.65 and 0.68-0.71 in the full lineup, and 0.55-0.73 and
   0.64-0.95 in 6 runs grouped as here (`make bench` then 2m45s, from
   about 1m45s). (A thread that sleeps gives its virtual CPU back:
   with a 0.3 ms sleep after every call instead, layernorm and softmax ran
   up to twice as slow as back to back.) All variants share the inputs and
   the output buffer, so each finds the caches as the one before left
   them. */
#define MAX_CONTENDERS 24
#define WARM_S 0.05
#define WARM_RUN_S 0.004
#define WARM_WAKE_S 0.02

typedef struct contender {
    row *r;
    call_fn fn;
    void *ctx;
    double first; /* the checking call's time, s */
    double times[MAX_REPS];
} contender;

typedef struct lineup {
    contender c[MAX_CONTENDERS];
    int n;
} lineup;

/* Poisons the checked output (NaN), makes one call and checks it; a variant
   that ran joins the lineup, its context kept until time_lineup. */
static row *enlist(bench *b, lineup *L, kstate *k, int ki, const char *family,
                   const char *variant, int threads, call_fn fn, void *ctx, const double *ref,
                   const double *tol) {
    row *r = new_row(b, ki, family, variant, threads);
    contender *c;
    double t0;
    if (!r) return NULL;
    poison_output(k);
    t0 = now_s();
    if (fn(ctx, r->note, sizeof r->note)) return r; /* ROW_ERROR */
    if (L->n == MAX_CONTENDERS) {
        snprintf(r->note, sizeof r->note, "tc-bench: more than %d variants", MAX_CONTENDERS);
        return r;
    }
    c = &L->c[L->n++];
    c->first = now_s() - t0;
    c->r = r;
    c->fn = fn;
    c->ctx = ctx;
    grade_output(r, k, ref, tol);
    return r;
}

/* Timed calls a variant makes back to back in each round: as many as fit
   in the round's mean call, so a fast variant (tc beside naive mm 1024 at
   145 ms) gets more than a round's worth of samples; its share of the
   rounds still spans them all. Odd, so that with the rounds' odd count the
   median is one call's time; at most MAX_REPS in all. */
static int burst_count(const contender *v, double mean_s, int rounds) {
    int burst = (int)(mean_s / (v->first > 1e-9 ? v->first : 1e-9) + 0.5);
    if (burst > MAX_REPS / rounds) burst = MAX_REPS / rounds;
    if (burst % 2 == 0) burst--;
    return burst < 1 ? 1 : burst;
}

/* Untimed calls of v for `span` seconds (at least one), unless its calls
   take WARM_S or more; 1 when a call failed. */
static int warm_up(contender *v, double span) {
    const double end = now_s() + span;
    if (v->first >= WARM_S) return 0;
    do {
        if (v->fn(v->ctx, v->r->note, sizeof v->r->note)) return 1;
    } while (now_s() < end);
    return 0;
}

/* The lineup's variants in order of thread count (stable, so each group
   keeps the families' order); group[j]: the first index of j's group, and
   group_n[j] its size. */
static void group_by_threads(lineup *L, int *group, int *group_n) {
    int i, j, k;
    for (i = 1; i < L->n; i++) { /* insertion sort: a handful of variants */
        const contender c = L->c[i];
        for (j = i; j > 0 && L->c[j - 1].r->threads > c.r->threads; j--) L->c[j] = L->c[j - 1];
        L->c[j] = c;
    }
    for (i = 0; i < L->n; i = j) {
        for (j = i; j < L->n && L->c[j].r->threads == L->c[i].r->threads; j++) continue;
        for (k = i; k < j; k++) {
            group[k] = i;
            group_n[k] = j - i;
        }
    }
}

/* Every variant of the lineup: warm-up rounds, then timed rounds; the
   counts follow from a round's mean call (its slowest, when that takes over
   a second). A variant whose call fails leaves the rounds with its error. */
static void time_lineup(const bench_opts *o, lineup *L) {
    double sum = 0.0, slowest = 0.0, mean;
    int reps, warm, r, j, i, n = L->n, burst[MAX_CONTENDERS], group[MAX_CONTENDERS],
        group_n[MAX_CONTENDERS], last_threads = 0;
    if (n == 0) return;
    for (j = 0; j < n; j++) {
        sum += L->c[j].first;
        if (L->c[j].first > slowest) slowest = L->c[j].first;
    }
    mean = sum / n;
    warm = warm_count(o, mean);
    reps = rep_count(o, slowest > 1.0 ? slowest : mean);
    group_by_threads(L, group, group_n);
    for (j = 0; j < n; j++) burst[j] = o->quick ? 1 : burst_count(&L->c[j], mean, reps);
    for (r = -warm; r < reps; r++)
        for (j = 0; j < n; j++) {
            const int at = group[j] + (r + warm + j - group[j]) % group_n[j];
            contender *v = &L->c[at];
            const int rise = v->r->threads > last_threads;
            if (v->r->status == ROW_ERROR) continue;
            last_threads = v->r->threads;
            if (warm_up(v, rise ? WARM_WAKE_S : WARM_RUN_S)) {
                v->r->status = ROW_ERROR;
                continue;
            }
            for (i = 0; i < burst[at] && v->r->status != ROW_ERROR; i++) {
                const double t0 = now_s();
                if (v->fn(v->ctx, v->r->note, sizeof v->r->note)) v->r->status = ROW_ERROR;
                else if (r >= 0) v->times[r * burst[at] + i] = now_s() - t0;
            }
        }
    for (j = 0; j < n; j++)
        if (L->c[j].r->status != ROW_ERROR)
            set_timing(&L->c[j].r->t, L->c[j].times, reps * burst[j]);
}

static const row *find_row(const bench *b, int ki, const char *family, int threads) {
    int i;
    for (i = 0; i < b->n_rows; i++) {
        const row *r = &b->rows[i];
        if (r->kernel == ki && r->threads == threads && strcmp(r->family, family) == 0 &&
            r->status != ROW_ERROR)
            return r;
    }
    return NULL;
}

static int family_on(const bench *b, const char *family) {
    const char *p = b->o.families;
    const size_t len = strlen(family);
    if (!p) return 1;
    while (*p) {
        const char *e = strchr(p, ',');
        const size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == len && strncmp(p, family, n) == 0) return 1;
        p += n + (e ? 1 : 0);
    }
    return 0;
}

/* ==== Family: tc ============================================================ */

typedef struct tc_call {
    tc_plan *plan;
    tc_run_desc rd;
} tc_call;

static int call_tc(void *ctx, char *msg, size_t cap) {
    tc_call *c = (tc_call *)ctx;
    tc_error err;
    if (tc_plan_run(c->plan, &c->rd, &err) == TC_OK) return 0;
    snprintf(msg, cap, "tc_plan_run: %s: %s", tc_status_name(err.code), err.msg);
    return 1;
}

static void set_tensors(const kstate *k, tc_tensor *in, tc_tensor *out) {
    const kspec *s = k->s;
    int i, d;
    for (i = 0; i < s->n_in; i++) {
        memset(&in[i], 0, sizeof in[i]);
        in[i].dtype = TC_FLOAT32;
        in[i].rank = s->in[i].rank;
        for (d = 0; d < s->in[i].rank; d++) in[i].shape[d] = s->in[i].shape[d];
        in[i].data = k->in[i];
    }
    for (i = 0; i < s->n_out; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].dtype = TC_FLOAT32;
        out[i].rank = s->out[i].rank;
        for (d = 0; d < s->out[i].rank; d++) out[i].shape[d] = s->out[i].shape[d];
        out[i].data = k->out[i];
    }
}

/* Bitwise comparison of each thread count's result with the first one's:
   tc promises identical results for every thread count. */
static void compare_bitwise(row *r, const kstate *k, float **first, int *first_threads) {
    const size_t bytes = (size_t)numel(&k->s->out[k->s->checked]) * sizeof(float);
    size_t len;
    if (!r || r->status == ROW_ERROR) return;
    if (!*first) {
        *first = (float *)malloc(bytes);
        if (*first) memcpy(*first, OUT(k), bytes);
        *first_threads = r->threads;
        return;
    }
    if (memcmp(*first, OUT(k), bytes) == 0) return;
    len = strlen(r->note);
    snprintf(r->note + len, sizeof r->note - len, "%sresult differs bitwise from %d thread(s)",
             len ? "; " : "", *first_threads);
}

/* tc's variants of one kernel: a plan per thread count, kept until they
   are timed. */
typedef struct tc_family {
    tc_program *prog;
    tc_tensor in[3], out[4];
    tc_call call[MAX_THREAD_COUNTS]; /* one per entry of o.threads */
} tc_family;

static void enlist_tc(bench *b, lineup *L, tc_family *F, kstate *k, int ki, const double *ref,
                      const double *tol) {
    const kspec *s = k->s;
    tc_compile_desc cd;
    tc_error err;
    char msg[400];
    float *first = NULL;
    int first_threads = 0, t;
    memset(&cd, 0, sizeof cd);
    cd.source = s->src;
    cd.name = s->kernel;
    if (tc_compile(&cd, &F->prog, &err) != TC_OK) {
        snprintf(msg, sizeof msg, "tc_compile: %s: %s", tc_status_name(err.code), err.msg);
        for (t = 0; t < b->o.n_threads; t++) error_row(b, ki, "tc", "plan", b->o.threads[t], msg);
        return;
    }
    set_tensors(k, F->in, F->out);
    for (t = 0; t < b->o.n_threads; t++) {
        tc_call *c = &F->call[t];
        c->rd.inputs = F->in;
        c->rd.n_inputs = s->n_in;
        c->rd.outputs = F->out;
        c->rd.n_outputs = s->n_out;
        c->rd.discard = s->discard;
        c->rd.pool = b->pool[t];
        if (!b->pool[t]) {
            error_row(b, ki, "tc", "plan", b->o.threads[t], b->pool_err[t]);
            continue;
        }
        if (tc_plan_create(F->prog, &c->rd, &c->plan, &err) != TC_OK) {
            snprintf(msg, sizeof msg, "tc_plan_create: %s: %s", tc_status_name(err.code), err.msg);
            error_row(b, ki, "tc", "plan", b->o.threads[t], msg);
            continue;
        }
        compare_bitwise(enlist(b, L, k, ki, "tc", "plan", b->o.threads[t], call_tc, c, ref, tol), k,
                        &first, &first_threads);
    }
    free(first);
}

static void tc_family_free(tc_family *F) {
    int t;
    for (t = 0; t < MAX_THREAD_COUNTS; t++) tc_plan_free(F->call[t].plan);
    tc_program_free(F->prog);
}

/* ==== Family: tc-opencl ===================================================== */
#if defined(TC_BENCH_OPENCL)
/* The first OpenCL device, sizes baked into the kernels. A machine without
   a platform gets no tc-opencl rows, and the preamble says why. */
static void ocl_setup(bench *b) {
    tc_ocl_runner_desc d;
    tc_error err;
    memset(&d, 0, sizeof d);
    if (tc_ocl_runner_create(&d, &b->ocl, &err) != TC_OK) {
        b->ocl = NULL;
        snprintf(b->ocl_info, sizeof b->ocl_info, "tc-opencl: no rows: %s: %s",
                 tc_status_name(err.code), err.msg);
        return;
    }
    snprintf(b->ocl_info, sizeof b->ocl_info,
             "tc-opencl: device \"%s\" (first platform; threads column = online CPUs; each "
             "call includes host<->device copies)",
             tc_ocl_runner_device_name(b->ocl));
}
static void ocl_teardown(bench *b) { tc_ocl_runner_free(b->ocl); }

typedef struct ocl_call {
    tc_ocl_runner *r;
    const tc_program *prog;
    tc_run_desc rd;
} ocl_call;

static int call_ocl(void *ctx, char *msg, size_t cap) {
    ocl_call *c = (ocl_call *)ctx;
    tc_error err;
    if (tc_ocl_run(c->r, c->prog, &c->rd, &err) == TC_OK) return 0;
    snprintf(msg, cap, "tc_ocl_run: %s: %s", tc_status_name(err.code), err.msg);
    return 1;
}

static void run_ocl(bench *b, kstate *k, int ki, const double *ref, const double *tol) {
    const int threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    tc_compile_desc cd;
    tc_tensor in[3], out[4];
    tc_error err;
    ocl_call c;
    if (!b->ocl) return;
    memset(&cd, 0, sizeof cd);
    memset(&c, 0, sizeof c);
    cd.source = k->s->src;
    cd.name = k->s->kernel;
    if (tc_compile(&cd, (tc_program **)&c.prog, &err) != TC_OK) {
        char msg[400];
        snprintf(msg, sizeof msg, "tc_compile: %s: %s", tc_status_name(err.code), err.msg);
        error_row(b, ki, "tc-opencl", "baked", threads, msg);
        return;
    }
    set_tensors(k, in, out);
    c.r = b->ocl;
    c.rd.inputs = in;
    c.rd.n_inputs = k->s->n_in;
    c.rd.outputs = out;
    c.rd.n_outputs = k->s->n_out;
    measure(b, k, ki, "tc-opencl", "baked", threads, call_ocl, &c, ref, tol);
    tc_program_free((tc_program *)c.prog);
}
#endif

/* ==== Families: naive, naive-ffm, blas ===================================== */

typedef struct naive_call {
    const naive_family *f;
    kstate *k;
    int threads;
} naive_call;

static void naive_part(void *ctx, int64_t lo, int64_t hi, int part) {
    naive_call *c = (naive_call *)ctx;
    c->k->s->naive(c->f, c->k, lo, hi, part);
}
static int call_naive(void *ctx, char *msg, size_t cap) {
    naive_call *c = (naive_call *)ctx;
    (void)msg;
    (void)cap;
    run_split(naive_part, c, c->k->s->split, c->threads);
    if (c->k->s->finish) c->k->s->finish(c->k, c->threads);
    return 0;
}

/* calls: one per entry of o.threads, kept until they are timed. */
static void enlist_naive(bench *b, lineup *L, naive_call *calls, kstate *k, int ki,
                         const naive_family *f, const double *ref, const double *tol) {
    int t;
    for (t = 0; t < b->o.n_threads; t++) {
        naive_call *c = &calls[t];
        c->f = f;
        c->k = k;
        c->threads = b->o.threads[t];
        enlist(b, L, k, ki, f->name, k->s->naive_variant, c->threads, call_naive, c, ref, tol);
    }
}

#if defined(TC_BENCH_BLAS)
typedef struct blas_call {
    kstate *k;
    int threads;
} blas_call;

static int call_blas(void *ctx, char *msg, size_t cap) {
    blas_call *c = (blas_call *)ctx;
    (void)msg;
    (void)cap;
    c->k->s->blas(c->k, c->threads);
    return 0;
}

static void run_blas(bench *b, kstate *k, int ki, const double *ref, const double *tol) {
    struct timespec settle = {0, 300 * 1000 * 1000};
    int t, threaded = 0;
    for (t = 0; t < b->o.n_threads; t++) {
        blas_call c;
        c.k = k;
        c.threads = b->o.threads[t];
        openblas_set_num_threads(c.threads);
        threaded |= c.threads > 1;
        measure(b, k, ki, "blas", k->s->blas_variant, c.threads, call_blas, &c, ref, tol);
    }
    openblas_set_num_threads(1);
    /* OpenBLAS workers spin for a while after a threaded call: let them go
       to sleep before the next kernel's figures are taken. */
    if (threaded) nanosleep(&settle, NULL);
}
#endif

/* ==== Output =============================================================== */

static const char *status_word(int status) { return status == ROW_OK ? "ok" : "MISMATCH"; }

static void print_csv_header(void) {
    printf("family,kernel,size,variant,threads,ms_med,ms_min,ms_max,reps,gflops,gbs,check\n");
}

static void print_csv_row(const row *r) {
    const kspec *s = &kernels[r->kernel];
    char gf[32] = "", gb[32] = "";
    if (r->status == ROW_ERROR) { /* no figure: the variant failed to run */
        printf("%s,%s,%s,%s,%d,,,,0,,,MISMATCH\n", r->family, s->kernel, s->size, r->variant,
               r->threads);
        return;
    }
    if (s->flops > 0) snprintf(gf, sizeof gf, "%.2f", s->flops / r->t.med * 1e-9);
    if (s->bytes > 0) snprintf(gb, sizeof gb, "%.2f", s->bytes / r->t.med * 1e-9);
    printf("%s,%s,%s,%s,%d,%.4f,%.4f,%.4f,%d,%s,%s,%s\n", r->family, s->kernel, s->size,
           r->variant, r->threads, r->t.med * 1e3, r->t.min * 1e3, r->t.max * 1e3, r->t.reps, gf,
           gb, status_word(r->status));
}

static void print_table_header(void) {
    printf("%-10s %-20s %-9s %-12s %3s %9s %9s %9s %4s %8s %7s %-8s %7s %7s %7s %7s\n", "kernel",
           "size", "family", "variant", "thr", "ms_med", "ms_min", "ms_max", "reps", "GFLOP/s",
           "GB/s", "check", "err/tol", "x_naive", "x_ffm", "x_blas");
}

/* tc speed over a baseline's (same kernel, same thread count): > 1 = tc faster. */
static void format_ratio(const bench *b, const row *r, const char *family, char *buf, size_t cap) {
    const row *base = find_row(b, r->kernel, family, r->threads);
    if (base && r->status != ROW_ERROR && strncmp(r->family, "tc", 2) == 0)
        snprintf(buf, cap, "%.2fx", base->t.med / r->t.med);
    else
        snprintf(buf, cap, "-");
}

static void print_table_row(const bench *b, const row *r) {
    const kspec *s = &kernels[r->kernel];
    char gf[32] = "-", gb[32] = "-", err[32], xn[32], xf[32], xb[32];
    printf("%-10s %-20s %-9s %-12s %3d ", s->kernel, s->size, r->family, r->variant, r->threads);
    if (r->status == ROW_ERROR) {
        printf("error: %s\n", r->note);
        return;
    }
    if (s->flops > 0) snprintf(gf, sizeof gf, "%.1f", s->flops / r->t.med * 1e-9);
    if (s->bytes > 0) snprintf(gb, sizeof gb, "%.1f", s->bytes / r->t.med * 1e-9);
    snprintf(err, sizeof err, "%.2g", r->err_ratio);
    format_ratio(b, r, "naive", xn, sizeof xn);
    format_ratio(b, r, "naive-ffm", xf, sizeof xf);
    format_ratio(b, r, "blas", xb, sizeof xb);
    printf("%9.3f %9.3f %9.3f %4d %8s %7s %-8s %7s %7s %7s %7s%s%s\n", r->t.med * 1e3,
           r->t.min * 1e3, r->t.max * 1e3, r->t.reps, gf, gb, status_word(r->status), err, xn, xf,
           xb, r->note[0] ? "  " : "", r->note);
}

/* ==== Summary: the figures issue 4's bars talk about ======================= */

static int has_threads(const bench *b, int threads) {
    int t;
    for (t = 0; t < b->o.n_threads; t++)
        if (b->o.threads[t] == threads) return 1;
    return 0;
}

static int kernel_index(const char *kernel, const char *size) {
    int i;
    for (i = 0; i < N_KERNELS; i++)
        if (strcmp(kernels[i].kernel, kernel) == 0 && (!size || strcmp(kernels[i].size, size) == 0))
            return i;
    return -1;
}

/* Time of family `base` over family `fam`'s, both `ok`; 0 when either is missing. */
static double speed_ratio(const bench *b, int ki, const char *fam, int thr, const char *base,
                          int base_thr) {
    const row *r = find_row(b, ki, fam, thr), *q = find_row(b, ki, base, base_thr);
    if (!r || !q || r->status != ROW_OK || q->status != ROW_OK) return 0.0;
    return q->t.med / r->t.med;
}

/* One ratio against its bar; a `naive` figure > 0 is the same ratio for the
   naive loops in this run, for context. */
static void print_bar_beside(const char *what, double x, double bar, double naive) {
    if (x <= 0.0) printf("  %-48s n.a.", what);
    else printf("  %-48s %6.2fx   (bar >= %.1fx: %s)", what, x, bar, x >= bar ? "met" : "NOT met");
    if (naive > 0.0) printf("   naive loops %.2fx", naive);
    printf("\n");
}
static void print_bar(const char *what, double x, double bar) { print_bar_beside(what, x, bar, 0.0); }

static void summary_geomean(const bench *b, int thr, const char *base, double bar, double min_bar) {
    double logsum = 0.0, worst = 0.0, gm;
    int n = 0, i, worst_i = -1;
    for (i = 0; i < N_KERNELS; i++) {
        const double x = speed_ratio(b, i, "tc", thr, base, thr);
        if (x <= 0.0) continue;
        logsum += log(x);
        n++;
        if (worst_i < 0 || x < worst) worst = x, worst_i = i;
    }
    if (n == 0) {
        printf("  %d thr: tc vs %s, geomean: n.a. (no pair of ok figures)\n", thr, base);
        return;
    }
    gm = exp(logsum / n);
    printf("  %d thr: tc vs %s, geomean over %d kernels: %.2fx, lowest %.2fx (%s %s)", thr, base, n,
           gm, worst, kernels[worst_i].kernel, kernels[worst_i].size);
    if (bar > 0.0)
        printf("   (bars >= %.1fx, lowest >= %.1fx: %s)", bar, min_bar,
               gm >= bar && worst >= min_bar ? "met" : "NOT met");
    printf("\n");
}

static void print_summary(const bench *b) {
    static const char *const speedup_set[][2] = {
        {"mm", "1024^3"}, {"mm", "512^3"}, {"bmm", NULL}, {"conv2d", NULL}, {"ew_tanh", NULL}};
    static const char *const ffm_set[] = {"ew_tanh", "softmax", "layernorm"};
    char what[96];
    size_t i;
    printf("\nSummary (speed ratios, same run; only `ok` figures count):\n");
    if (has_threads(b, 1)) {
        summary_geomean(b, 1, "naive", 1.5, 1.0);
    }
    if (!has_threads(b, 2)) return;
    summary_geomean(b, 2, "naive", 0.0, 0.0);
    print_bar("2 thr: mm 1024^3 tc vs blas sgemm", speed_ratio(b, kernel_index("mm", "1024^3"), "tc", 2, "blas", 2), 0.4);
    print_bar("2 thr: conv2d tc vs im2col+sgemm", speed_ratio(b, kernel_index("conv2d", NULL), "tc", 2, "blas", 2), 0.4);
    for (i = 0; i < sizeof ffm_set / sizeof ffm_set[0]; i++) {
        snprintf(what, sizeof what, "2 thr: %s tc vs naive-ffm", ffm_set[i]);
        print_bar(what, speed_ratio(b, kernel_index(ffm_set[i], NULL), "tc", 2, "naive-ffm", 2), 0.8);
    }
    if (!has_threads(b, 1)) return;
    for (i = 0; i < sizeof speedup_set / sizeof speedup_set[0]; i++) {
        const int ki = kernel_index(speedup_set[i][0], speedup_set[i][1]);
        snprintf(what, sizeof what, "tc 2 thr vs 1 thr: %s %s", kernels[ki].kernel, kernels[ki].size);
        print_bar_beside(what, speed_ratio(b, ki, "tc", 2, "tc", 1), 1.7,
                         speed_ratio(b, ki, "naive", 2, "naive", 1));
    }
}

/* ==== Compile time and per-call overhead ==================================== */

/* Median of repeated tc_compile calls (each timed alone), in microseconds;
   -1 when compilation fails (msg says why). */
static double compile_median_us(const char *src, int *calls, char *msg, size_t cap) {
    static double times[4001];
    const double start = now_s();
    int n = 0;
    while (n < 4001 && (n < 51 || now_s() - start < 0.3)) {
        tc_compile_desc cd;
        tc_program *prog = NULL;
        tc_error err;
        double t0;
        memset(&cd, 0, sizeof cd);
        cd.source = src;
        t0 = now_s();
        if (tc_compile(&cd, &prog, &err) != TC_OK) {
            snprintf(msg, cap, "%s: %s", tc_status_name(err.code), err.msg);
            return -1.0;
        }
        times[n++] = now_s() - t0;
        tc_program_free(prog);
    }
    qsort(times, (size_t)n, sizeof times[0], cmp_double);
    *calls = n;
    return times[n / 2] * 1e6;
}

static void print_compile_times(void) {
    static const struct { const char *name, *src; } defs[] = {{"conv2d", SRC_CONV2D},
                                                             {"softmax", SRC_SOFTMAX},
                                                             {"layernorm", SRC_LAYERNORM}};
    size_t i;
    printf("\nCompile time (tc_compile: parse, check, range inference, lowering, bytecode):\n");
    for (i = 0; i < sizeof defs / sizeof defs[0]; i++) {
        char msg[400];
        int calls = 0;
        const double us = compile_median_us(defs[i].src, &calls, msg, sizeof msg);
        if (us < 0) printf("  %-10s error: %s\n", defs[i].name, msg);
        else printf("  %-10s %8.1f us  (median of %d calls; bar < 100 us: %s)\n", defs[i].name, us,
                    calls, us < 100.0 ? "met" : "NOT met");
    }
    printf("  front end alone: n.a. (the public API has no front-end-only entry point)\n");
}

typedef struct tiny_run {
    const tc_program *prog;
    tc_plan *plan;     /* NULL: tc_run */
    tc_run_desc rd;
} tiny_run;

/* Median over batches of `per` calls of the mean time per call, in us. */
static double tiny_median_us(tiny_run *t, int batches, int per, char *msg, size_t cap) {
    static double times[1001];
    int bt, i;
    for (bt = 0; bt < batches && bt < 1001; bt++) {
        const double t0 = now_s();
        for (i = 0; i < per; i++) {
            tc_error err;
            const tc_status st =
                t->plan ? tc_plan_run(t->plan, &t->rd, &err) : tc_run(t->prog, &t->rd, &err);
            if (st != TC_OK) {
                snprintf(msg, cap, "%s: %s", tc_status_name(err.code), err.msg);
                return -1.0;
            }
        }
        times[bt] = (now_s() - t0) / per;
    }
    qsort(times, (size_t)bt, sizeof times[0], cmp_double);
    return times[bt / 2] * 1e6;
}

static void print_tiny_line(const char *what, tiny_run *t, int batches, int per, double bar) {
    char msg[400];
    const double us = tiny_median_us(t, batches, per, msg, sizeof msg);
    if (us < 0) printf("  %-34s error: %s\n", what, msg);
    else if (bar > 0)
        printf("  %-34s %8.3f us  (bar < %.0f us: %s)\n", what, us, bar, us < bar ? "met" : "NOT met");
    else printf("  %-34s %8.3f us\n", what, us);
}

/* The 4x4 inputs are multiples of 1/4 below 1: every product and sum is
   exact in float, so the result must match exactly. */
static int check_4x4(const float *A, const float *B, const float *C) {
    int i, j, k;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++) {
            float s = 0.0f;
            for (k = 0; k < 4; k++) s += A[i * 4 + k] * B[k * 4 + j];
            if (C[i * 4 + j] != s) return 0;
        }
    return 1;
}

/* A 4x4 matmul through the API: the fixed cost of one call. */
static void print_overhead(const bench *b) {
    float A[16], B[16], C[16];
    tc_compile_desc cd;
    tc_program *prog = NULL;
    tc_tensor in[2], out[1];
    tc_error err;
    tiny_run t;
    int i;
    printf("\nPer-call overhead, 4x4 matmul (median over batches of calls):\n");
    memset(&cd, 0, sizeof cd);
    cd.source = SRC_MM;
    if (tc_compile(&cd, &prog, &err) != TC_OK) {
        printf("  error: tc_compile: %s: %s\n", tc_status_name(err.code), err.msg);
        return;
    }
    for (i = 0; i < 16; i++) A[i] = B[i] = (float)(i % 5) * 0.25f;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    for (i = 0; i < 2; i++) {
        in[i].dtype = TC_FLOAT32;
        in[i].rank = 2;
        in[i].shape[0] = in[i].shape[1] = 4;
    }
    in[0].data = A;
    in[1].data = B;
    out[0] = in[0];
    out[0].data = C;
    memset(&t, 0, sizeof t);
    t.prog = prog;
    t.rd.inputs = in;
    t.rd.n_inputs = 2;
    t.rd.outputs = out;
    t.rd.n_outputs = 1;
    for (i = -1; i < b->o.n_threads; i++) { /* -1: no pool (the calling thread) */
        char what[64];
        t.rd.pool = i < 0 ? NULL : b->pool[i];
        if (i >= 0 && !t.rd.pool) continue;
        if (tc_plan_create(prog, &t.rd, &t.plan, &err) != TC_OK) {
            printf("  error: tc_plan_create: %s: %s\n", tc_status_name(err.code), err.msg);
            break;
        }
        if (i < 0) snprintf(what, sizeof what, "tc_plan_run, no pool");
        else snprintf(what, sizeof what, "tc_plan_run, pool of %d", b->o.threads[i]);
        print_tiny_line(what, &t, 201, 200, i < 0 ? 2.0 : 0.0);
        tc_plan_free(t.plan);
        t.plan = NULL;
    }
    t.rd.pool = NULL;
    memset(C, 0xff, sizeof C);
    print_tiny_line("tc_run (no plan), no pool", &t, 101, 50, 0.0);
    printf("  result: %s\n", check_4x4(A, B, C) ? "ok" : "MISMATCH");
    tc_program_free(prog);
}

/* ==== OpenBLAS core type ==================================================== */
#if defined(TC_BENCH_BLAS)
/* 2: AVX-512 kernels, 1: AVX2 kernels, 0: older. */
static int core_level(const char *core) {
    static const char *const avx512[] = {"skylakex", "cooperlake", "sapphirerapids"};
    static const char *const avx2[] = {"haswell", "zen"};
    size_t i;
    for (i = 0; i < sizeof avx512 / sizeof avx512[0]; i++)
        if (core && strcasecmp(core, avx512[i]) == 0) return 2;
    for (i = 0; i < sizeof avx2 / sizeof avx2[0]; i++)
        if (core && strcasecmp(core, avx2[i]) == 0) return 1;
    return 0;
}
static int cpu_level(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return 2;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#endif
    return 0;
}

/* OpenBLAS reads OPENBLAS_CORETYPE once, in a constructor, before main. The
   environment here sets it to Haswell (AVX2 kernels, half speed), and with
   it unset OpenBLAS 0.3.21 does not know every AVX-512 CPU either (it falls
   back to Prescott, SSE3). So: when the kernels OpenBLAS picked are below
   what the CPU runs, set OPENBLAS_CORETYPE to the best core type and
   re-execute once (--blas-core keep: measure whatever was picked). */
static void blas_setup(char **argv, const bench_opts *o, char *info, size_t cap) {
    const char *env = getenv("OPENBLAS_CORETYPE"), *prev = getenv("TC_BENCH_REEXEC");
    const char *picked = openblas_get_corename();
    const char *want = NULL;
    char note[160] = "";
    if (strcmp(o->blas_core, "auto") == 0) {
        const int level = cpu_level();
        if (core_level(picked) < level) want = level == 2 ? "SkylakeX" : "Haswell";
    } else if (strcmp(o->blas_core, "keep") != 0 && strcasecmp(picked, o->blas_core) != 0)
        want = o->blas_core;
    if (want && !prev) {
        char buf[160];
        snprintf(buf, sizeof buf, "%s|%s", picked, env ? env : "(unset)");
        setenv("TC_BENCH_REEXEC", buf, 1);
        setenv("OPENBLAS_CORETYPE", want, 1);
        fflush(NULL);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "tc-bench: warning: could not re-execute with OPENBLAS_CORETYPE=%s: %s\n",
                want, strerror(errno));
    }
    if (prev) {
        const char *bar = strchr(prev, '|');
        snprintf(note, sizeof note, "; set by tc-bench: OpenBLAS alone picked %.*s with "
                 "OPENBLAS_CORETYPE=%s", bar ? (int)(bar - prev) : 0, prev, bar ? bar + 1 : "?");
        unsetenv("TC_BENCH_REEXEC");
    } else if (env)
        fprintf(stderr, "tc-bench: warning: OPENBLAS_CORETYPE=%s is still set: OpenBLAS runs "
                "its %s kernels (run with env -u OPENBLAS_CORETYPE)\n", env, picked);
    snprintf(info, cap, "OpenBLAS core: %s (%s)%s", picked, openblas_get_config(), note);
}
#endif

#include "bench_random.c"

/* ==== Command line ========================================================== */

static void usage(FILE *f) {
    int i;
    fprintf(f,
            "usage: tc-bench [--csv] [--quick] [--threads 1,2] [--family F,...]\n"
            "                [--blas-core auto|keep|NAME] [KERNEL ...]\n"
            "       tc-bench --random N [--seed S] [--csv] [--quick] [--dump] [--keep]\n"
            "                [--family F,...] [DEF ...]\n"
            "  --csv        only the CSV lines of BENCH.md (header first)\n"
            "  --quick      fewer calls (smoke test; figures are rough)\n"
            "  --threads    thread counts to measure (default 1,2)\n"
            "  --family     tc,tc-opencl,naive,naive-ffm,blas (default all)\n"
            "  --blas-core  OpenBLAS core type: auto (the best the CPU runs), keep, or a name\n"
            "  --random N   N random defs (bench_random.c) against their C from tc_c_emit,\n"
            "               compiled -O3 -march=native -ffast-math; --seed S (default 1);\n"
            "               --dump prints the defs only; --keep keeps the C's directory;\n"
            "               --family ew,reduce,contract,stencil,short,pipeline and def\n"
            "               names (r017_ew) pick among the N; exit status 1 when a def\n"
            "               mismatched or failed\n"
            "kernels:");
    for (i = 0; i < N_KERNELS; i++)
        if (i == 0 || strcmp(kernels[i].kernel, kernels[i - 1].kernel) != 0)
            fprintf(f, " %s", kernels[i].kernel);
    fprintf(f, "\n");
}

static int parse_threads(bench_opts *o, const char *s) {
    o->n_threads = 0;
    while (*s) {
        char *end;
        const long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > MAX_THREADS || o->n_threads >= MAX_THREAD_COUNTS) return 0;
        o->threads[o->n_threads++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return 0;
    }
    return o->n_threads > 0;
}

/* Options and kernel names in any order; kernels go to o->kernels (argv-sized). */
static int parse_args(bench_opts *o, int argc, char **argv, char **kernel_names) {
    int i;
    o->threads[0] = 1;
    o->threads[1] = 2;
    o->n_threads = 2;
    o->blas_core = "auto";
    o->target_s = 0.25;
    o->seed = 1;
    o->kernels = kernel_names;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--csv") == 0) o->csv = 1;
        else if (strcmp(a, "--quick") == 0) o->quick = 1;
        else if (strcmp(a, "--threads") == 0 && i + 1 < argc) {
            if (!parse_threads(o, argv[++i])) {
                fprintf(stderr, "tc-bench: bad --threads '%s'\n", argv[i]);
                return 0;
            }
        } else if (strcmp(a, "--family") == 0 && i + 1 < argc) o->families = argv[++i];
        else if (strcmp(a, "--blas-core") == 0 && i + 1 < argc) o->blas_core = argv[++i];
        else if ((strcmp(a, "--random") == 0 || strcmp(a, "--seed") == 0) && i + 1 < argc) {
            char *end;
            const unsigned long long v = strtoull(argv[++i], &end, 10);
            if (end == argv[i] || *end || (a[2] == 'r' && (v < 1 || v > RB_MAX_DEFS))) {
                fprintf(stderr, "tc-bench: bad %s '%s'\n", a, argv[i]);
                return 0;
            }
            if (a[2] == 'r') o->random_n = (int)v;
            else o->seed = v;
        } else if (strcmp(a, "--dump") == 0) o->dump = 1;
        else if (strcmp(a, "--keep") == 0) o->keep = 1;
        else if (a[0] == '-') {
            fprintf(stderr, "tc-bench: unknown option '%s'\n", a);
            return 0;
        } else if (kernel_index(a, NULL) < 0 && !rb_is_def_name(a)) {
            fprintf(stderr, "tc-bench: unknown kernel '%s'\n", a);
            return 0;
        } else
            o->kernels[o->n_kernels++] = argv[i];
    }
    return 1;
}

static int kernel_selected(const bench_opts *o, const kspec *s) {
    int i;
    if (o->n_kernels == 0) return 1;
    for (i = 0; i < o->n_kernels; i++)
        if (strcmp(o->kernels[i], s->kernel) == 0) return 1;
    return 0;
}

/* ==== Main ================================================================== */

/* Every family on one kernel: tc and the naive loops interleaved, then
   tc-opencl and OpenBLAS each on its own (OpenBLAS's spinning workers must
   not overlap the others' figures), then the kernel's rows. */
static void run_kernel(bench *b, int ki) {
    const kspec *s = &kernels[ki];
    const int64_t n = numel(&s->out[s->checked]);
    kstate k;
    double *ref = (double *)malloc((size_t)n * sizeof(double));
    double *tol = (double *)malloc((size_t)n * sizeof(double));
    const int first_row = b->n_rows;
    static tc_family F[1];       /* the variants being timed: kept off the stack */
    static lineup L[1];
    static naive_call naive_calls[2][MAX_THREAD_COUNTS];
    int i;
    if (!ref || !tol || !kstate_init(&k, s)) {
        fprintf(stderr, "tc-bench: %s %s: out of memory\n", s->kernel, s->size);
        free(ref);
        free(tol);
        kstate_free(&k);
        return;
    }
    s->reference(&k, ref, tol);
    memset(F, 0, sizeof *F);
    L->n = 0;
    if (family_on(b, "tc")) enlist_tc(b, L, F, &k, ki, ref, tol);
    if (family_on(b, "naive")) enlist_naive(b, L, naive_calls[0], &k, ki, &fam_naive, ref, tol);
    if (family_on(b, "naive-ffm")) enlist_naive(b, L, naive_calls[1], &k, ki, &fam_ffm, ref, tol);
    time_lineup(&b->o, L);
    tc_family_free(F);
#if defined(TC_BENCH_OPENCL)
    if (family_on(b, "tc-opencl")) run_ocl(b, &k, ki, ref, tol);
#endif
#if defined(TC_BENCH_BLAS)
    if (family_on(b, "blas") && s->blas) run_blas(b, &k, ki, ref, tol);
#endif
    for (i = first_row; i < b->n_rows; i++) {
        if (b->o.csv) print_csv_row(&b->rows[i]);
        else print_table_row(b, &b->rows[i]);
    }
    if (!b->o.csv && b->n_rows > first_row) printf("\n");
    fflush(stdout);
    free(ref);
    free(tol);
    kstate_free(&k);
}

static void create_pools(bench *b) {
    int t;
    for (t = 0; t < b->o.n_threads; t++) {
        tc_error err;
        if (tc_pool_create(b->o.threads[t], NULL, &b->pool[t], &err) != TC_OK) {
            b->pool[t] = NULL;
            snprintf(b->pool_err[t], sizeof b->pool_err[t], "tc_pool_create(%d): %s: %s",
                     b->o.threads[t], tc_status_name(err.code), err.msg);
        }
    }
}

static void print_preamble(const bench *b) {
    FILE *f = b->o.csv ? stderr : stdout;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(f, "tc-bench: tc.h %s (tc_version %d), %ld CPUs; tc.h and the naive loops built "
            "-O3 -march=native%s\n", TC_VERSION_STRING, tc_version(), cpus,
            b->o.quick ? "; --quick: rough figures" : "");
    if (b->blas_info[0]) fprintf(f, "%s\n", b->blas_info);
#if !defined(TC_BENCH_BLAS)
    fprintf(f, "OpenBLAS: not built in (no cblas.h / -lopenblas): no blas rows\n");
#endif
    if (b->ocl_info[0]) fprintf(f, "%s\n", b->ocl_info);
    if (!b->o.csv) {
        printf("x_naive, x_ffm, x_blas: tc's speed over that baseline's at the same thread count "
               "(> 1: tc faster); err/tol: worst error over its tolerance.\n\n");
        print_table_header();
    }
    fflush(f);
}

int main(int argc, char **argv) {
    bench *b = (bench *)calloc(1, sizeof(bench));
    char **names = (char **)calloc((size_t)argc + 1, sizeof(char *));
    int i, t;
    if (!b || !names) return 1;
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (!parse_args(&b->o, argc, argv, names)) {
        usage(stderr);
        return 2;
    }
    for (i = 0; i < b->o.n_kernels; i++)
        if ((b->o.random_n > 0) != rb_is_def_name(b->o.kernels[i])) {
            fprintf(stderr, b->o.random_n ? "tc-bench: '%s' is no generated def (r017_ew, ...)\n"
                                          : "tc-bench: '%s' needs --random N\n", b->o.kernels[i]);
            usage(stderr);
            return 2;
        }
    if (b->o.random_n > 0) {
        const int rc = rb_main(b);
        free(names);
        free(b);
        return rc;
    }
#if defined(TC_BENCH_BLAS)
    blas_setup(argv, &b->o, b->blas_info, sizeof b->blas_info);
    openblas_set_num_threads(1);
#endif
#if defined(TC_BENCH_OPENCL)
    if (family_on(b, "tc-opencl")) ocl_setup(b);
#endif
    if (family_on(b, "tc")) create_pools(b);
    print_preamble(b);
    if (b->o.csv) print_csv_header();
    for (i = 0; i < N_KERNELS; i++)
        if (kernel_selected(&b->o, &kernels[i])) run_kernel(b, i);
    if (!b->o.csv) {
        print_summary(b);
        if (family_on(b, "tc")) {
            print_compile_times();
            print_overhead(b);
        }
        printf("\nCSV (BENCH.md):\n");
        print_csv_header();
        for (i = 0; i < b->n_rows; i++) print_csv_row(&b->rows[i]);
    }
#if defined(TC_BENCH_OPENCL)
    ocl_teardown(b);
#endif
    for (t = 0; t < b->o.n_threads; t++) tc_pool_free(b->pool[t]);
    free(names);
    free(b);
    return 0;
}
