/* bench_naive.c - the naive C baselines of tc-bench (BENCH.md's kernel set).

   The loops a C programmer writes first: the obvious loop nest, in the
   cache-friendly order where there is one (i,k,j for matmul, the reduction
   outside the output rows for conv2d), no blocking, no intrinsics, no
   threads. Each function computes the part [lo, hi) of its outermost
   parallel loop, so tc-bench can split a call over threads by rows.

   The file is compiled twice into the benchmark (tools/bench.mk): plain
   `-O3 -march=native` as the `naive` family and with `-ffast-math` added as
   `naive-ffm` (which lets gcc vectorize expf/tanhf through libmvec and
   reassociate float sums). BENCH_PREFIX gives each copy its own names.

   Used as a header too: bench.c includes this file with BENCH_NAIVE_DECLS
   defined (once per prefix) to get the prototypes; without it the file also
   defines the functions. Each kernel follows its TC definition statement by
   statement (BENCH.md), with float32 accumulators. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef BENCH_PREFIX
#error "define BENCH_PREFIX (naive_ or nffm_) when compiling bench_naive.c"
#endif
#define BN_CAT2(a, b) a##b
#define BN_CAT(a, b) BN_CAT2(a, b)
#define BN(name) BN_CAT(BENCH_PREFIX, name)

/* Matmul-like kernels: rows [lo, hi) of the output. */
void BN(mm)(const float *A, const float *B, float *C, int64_t M, int64_t N, int64_t K,
            int64_t lo, int64_t hi);
void BN(mv)(const float *A, const float *x, float *y, int64_t M, int64_t N, int64_t lo, int64_t hi);
void BN(bmm)(const float *A, const float *B, float *C, int64_t NB, int64_t M, int64_t N,
             int64_t K, int64_t lo, int64_t hi); /* batches [lo, hi) */
/* conv2d: output planes (n, o) numbered n*O + o in [lo, hi). */
void BN(conv2d)(const float *Img, const float *W1, float *Out, int64_t N, int64_t C, int64_t H,
                int64_t W, int64_t O, int64_t KH, int64_t KW, int64_t lo, int64_t hi);
/* maxpool2x2: input planes (n, c) numbered n*C + c in [lo, hi). */
void BN(maxpool2x2)(const float *Img, float *Out, int64_t NC, int64_t H, int64_t W, int64_t lo,
                    int64_t hi);
/* Element-wise kernels: elements [lo, hi). */
void BN(ew_tanh)(const float *a, const float *x, const float *b, float *y, int64_t lo, int64_t hi);
void BN(ew_fma)(const float *a, const float *x, const float *b, float *y, int64_t lo, int64_t hi);
void BN(stencil3)(const float *x, float *y, int64_t lo, int64_t hi); /* y elements */
/* Row kernels: rows [lo, hi) of an M x N input. */
void BN(softmax)(const float *X, float *Y, int64_t N, int64_t lo, int64_t hi);
void BN(layernorm)(const float *X, const float *g, const float *b, float *Y, int64_t N, int64_t lo,
                   int64_t hi);
void BN(rowsum)(const float *A, float *r, int64_t N, int64_t lo, int64_t hi);
/* sum_all: the float sum of x[lo, hi) (the caller adds the parts in order). */
float BN(sum_all)(const float *x, int64_t lo, int64_t hi);

#ifndef BENCH_NAIVE_DECLS

/* C(i,j) +=! A(i,k) * B(k,j): i,k,j order, the inner loop streams a row of B
   into a row of C. */
void BN(mm)(const float *A, const float *B, float *C, int64_t M, int64_t N, int64_t K,
            int64_t lo, int64_t hi) {
    int64_t i, j, k;
    (void)M;
    for (i = lo; i < hi; i++) {
        float *c = C + i * N;
        for (j = 0; j < N; j++) c[j] = 0.0f;
        for (k = 0; k < K; k++) {
            const float a = A[i * K + k];
            const float *b = B + k * N;
            for (j = 0; j < N; j++) c[j] += a * b[j];
        }
    }
}

/* y(i) +=! A(i,j) * x(j): one dot product per row. */
void BN(mv)(const float *A, const float *x, float *y, int64_t M, int64_t N, int64_t lo,
            int64_t hi) {
    int64_t i, j;
    (void)M;
    for (i = lo; i < hi; i++) {
        const float *a = A + i * N;
        float s = 0.0f;
        for (j = 0; j < N; j++) s += a[j] * x[j];
        y[i] = s;
    }
}

/* C(b,i,j) +=! A(b,i,k) * B(b,k,j): the mm loops per batch. */
void BN(bmm)(const float *A, const float *B, float *C, int64_t NB, int64_t M, int64_t N,
             int64_t K, int64_t lo, int64_t hi) {
    int64_t b;
    (void)NB;
    for (b = lo; b < hi; b++)
        BN(mm)(A + b * M * K, B + b * K * N, C + b * M * N, M, N, K, 0, M);
}

/* Out(n,o,h,w) +=! I(n,c,h+kh,w+kw) * W1(o,c,kh,kw): per output plane, the
   reduction (c, kh, kw) outside, a scaled input window added row by row. */
void BN(conv2d)(const float *Img, const float *W1, float *Out, int64_t N, int64_t C, int64_t H,
                int64_t W, int64_t O, int64_t KH, int64_t KW, int64_t lo, int64_t hi) {
    const int64_t OH = H - KH + 1, OW = W - KW + 1;
    int64_t p, c, kh, kw, h, w;
    (void)N;
    for (p = lo; p < hi; p++) {
        const int64_t n = p / O, o = p % O;
        float *out = Out + p * OH * OW;
        for (h = 0; h < OH * OW; h++) out[h] = 0.0f;
        for (c = 0; c < C; c++)
            for (kh = 0; kh < KH; kh++)
                for (kw = 0; kw < KW; kw++) {
                    const float wt = W1[((o * C + c) * KH + kh) * KW + kw];
                    const float *in = Img + ((n * C + c) * H + kh) * W + kw;
                    for (h = 0; h < OH; h++)
                        for (w = 0; w < OW; w++) out[h * OW + w] += in[h * W + w] * wt;
                }
    }
}

/* Out(n,c,h,w) max=! I(n,c,2*h+kh,2*w+kw), kh, kw in 0:2. */
void BN(maxpool2x2)(const float *Img, float *Out, int64_t NC, int64_t H, int64_t W, int64_t lo,
                    int64_t hi) {
    const int64_t OH = H / 2, OW = W / 2;
    int64_t p, h, w;
    (void)NC;
    for (p = lo; p < hi; p++) {
        const float *in = Img + p * H * W;
        float *out = Out + p * OH * OW;
        for (h = 0; h < OH; h++)
            for (w = 0; w < OW; w++) {
                const float *q = in + 2 * h * W + 2 * w;
                float m = -INFINITY;
                m = q[0] > m ? q[0] : m;
                m = q[1] > m ? q[1] : m;
                m = q[W] > m ? q[W] : m;
                m = q[W + 1] > m ? q[W + 1] : m;
                out[h * OW + w] = m;
            }
    }
}

/* y(i) = tanh(a(i) * x(i) + b(i)) */
void BN(ew_tanh)(const float *a, const float *x, const float *b, float *y, int64_t lo,
                 int64_t hi) {
    int64_t i;
    for (i = lo; i < hi; i++) y[i] = tanhf(a[i] * x[i] + b[i]);
}

/* y(i) = a(i) * x(i) + b(i) */
void BN(ew_fma)(const float *a, const float *x, const float *b, float *y, int64_t lo, int64_t hi) {
    int64_t i;
    for (i = lo; i < hi; i++) y[i] = a[i] * x[i] + b[i];
}

/* y(i) = (x(i) + x(i+1) + x(i+2)) / 3.0 */
void BN(stencil3)(const float *x, float *y, int64_t lo, int64_t hi) {
    int64_t i;
    for (i = lo; i < hi; i++) y[i] = (x[i] + x[i + 1] + x[i + 2]) / 3.0f;
}

/* mx = max over the row, e = exp(X - mx) (kept in Y), s = sum of e, Y = e / s. */
void BN(softmax)(const float *X, float *Y, int64_t N, int64_t lo, int64_t hi) {
    int64_t i, j;
    for (i = lo; i < hi; i++) {
        const float *x = X + i * N;
        float *y = Y + i * N;
        float mx = -INFINITY, s = 0.0f;
        for (j = 0; j < N; j++) mx = x[j] > mx ? x[j] : mx;
        for (j = 0; j < N; j++) y[j] = expf(x[j] - mx);
        for (j = 0; j < N; j++) s += y[j];
        for (j = 0; j < N; j++) y[j] = y[j] / s;
    }
}

/* mean = sum of X/N, d = X - mean (kept in Y), var = sum of d*d/N,
   Y = d / sqrt(var + 1e-5) * g + b. */
void BN(layernorm)(const float *X, const float *g, const float *b, float *Y, int64_t N, int64_t lo,
                   int64_t hi) {
    const float n = (float)N;
    int64_t i, j;
    for (i = lo; i < hi; i++) {
        const float *x = X + i * N;
        float *y = Y + i * N;
        float mean = 0.0f, var = 0.0f, sd;
        for (j = 0; j < N; j++) mean += x[j] / n;
        for (j = 0; j < N; j++) y[j] = x[j] - mean;
        for (j = 0; j < N; j++) var += y[j] * y[j] / n;
        sd = sqrtf(var + 1e-5f);
        for (j = 0; j < N; j++) y[j] = y[j] / sd * g[j] + b[j];
    }
}

/* r(i) +=! A(i,j) */
void BN(rowsum)(const float *A, float *r, int64_t N, int64_t lo, int64_t hi) {
    int64_t i, j;
    for (i = lo; i < hi; i++) {
        const float *a = A + i * N;
        float s = 0.0f;
        for (j = 0; j < N; j++) s += a[j];
        r[i] = s;
    }
}

/* s +=! x(i) */
float BN(sum_all)(const float *x, int64_t lo, int64_t hi) {
    float s = 0.0f;
    int64_t i;
    for (i = lo; i < hi; i++) s += x[i];
    return s;
}

#endif /* BENCH_NAIVE_DECLS */
