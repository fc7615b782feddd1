/* Threads: results bitwise identical for 1, 2, 3 and 7 threads (reductions
   are never split); one program run from several threads at once; plans
   reused across pools. Built also with TSan. */
#include "tc.h" /* the implementation: tests/tc_impl.c, linked */
#define TC_MAX_THREADS 64 /* the limit tc_impl.c is built with: tc.h's default */
#include "harness.h"
#include <pthread.h>
#include <stdint.h>

typedef struct tv_kernel {
    const char *src;
    int n_in, n_out;
    int rank[3];
    int64_t shape[3][4];
} tv_kernel;

static const tv_kernel tv_kernels[] = {
    {"def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }", 2, 1,
     {2, 2}, {{67, 131}, {131, 301}}},
    /* panels too big for each thread's own: shared (tc__contract_share) */
    {"def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }", 2, 1,
     {2, 2}, {{200, 1100}, {1100, 300}}},
    {"def conv(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
     " Out(n,o,h,w) +=! I(n,c,h+kh,w+kw) * W1(o,c,kh,kw)\n}", 2, 1, {4, 4},
     {{1, 256, 20, 20}, {64, 256, 3, 3}}},
    {"def rowsum(float(M,N) A) -> (r) { r(i) +=! A(i,j) }", 1, 1, {2}, {{300, 1111}}},
    {"def sum_all(float(N) x) -> (s) { s +=! x(i) }", 1, 1, {1}, {{100003}}},
    {"def softmax(float(M,N) X) -> (mx, e, s, Y) {\n mx(i) max=! X(i,j)\n e(i,j) = exp(X(i,j) - mx(i))\n"
     " s(i) +=! e(i,j)\n Y(i,j) = e(i,j) / s(i)\n}", 1, 4, {2}, {{97, 515}}},
    {"def conv(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
     " Out(n,o,h,w) +=! I(n,c,h+kh,w+kw) * W1(o,c,kh,kw)\n}", 2, 1, {4, 4},
     {{2, 5, 23, 19}, {6, 5, 3, 3}}},
    {"def ln(float(M,N) X, float(N) g, float(N) b) -> (mean, d, var, Y) {\n"
     " mean(i) +=! X(i,j) / N\n d(i,j) = X(i,j) - mean(i)\n var(i) +=! d(i,j) * d(i,j) / N\n"
     " Y(i,j) = d(i,j) / sqrt(var(i) + 1e-5) * g(j) + b(j)\n}", 3, 4, {2, 1, 1},
     {{129, 700}, {700}, {700}}},
    {"def ew(float(N) a, float(N) x, float(N) b) -> (y) { y(i) = tanh(a(i) * x(i) + b(i)) }", 3, 1,
     {1, 1, 1}, {{70001}, {70001}, {70001}}},
    {"def pool(float(N,C,H,W) I) -> (O) {\n O(n,c,h,w) max=! I(n,c,2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2, h in 0:H/2, w in 0:W/2\n}",
     1, 1, {4}, {{3, 4, 40, 38}}},
};

static float tv_rand(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* Runs kernel k with the pool (NULL: caller only); outputs allocated. */
static int tv_run(const tc_program *p, const tv_kernel *k, tc_tensor *in, tc_tensor *out,
                  tc_pool *pool) {
    tc_run_desc rd;
    tc_error err;
    int i;
    memset(&rd, 0, sizeof rd);
    rd.inputs = in;
    rd.n_inputs = k->n_in;
    rd.outputs = out;
    rd.n_outputs = k->n_out;
    rd.pool = pool;
    for (i = 0; i < k->n_out; i++) memset(&out[i], 0, sizeof out[i]);
    if (tc_run(p, &rd, &err) != TC_OK) {
        fprintf(stderr, "run: %s\n", err.msg);
        return 0;
    }
    return 1;
}

static size_t tv_bytes(const tc_tensor *t) {
    size_t n = tc_dtype_size(t->dtype);
    int d;
    for (d = 0; d < t->rank; d++) n *= (size_t)t->shape[d];
    return n;
}

static tc_pool *tv_pools[4];
static const int tv_threads[4] = {1, 2, 3, 7};

static void test_identical_across_threads(void) {
    size_t k;
    for (k = 0; k < sizeof tv_kernels / sizeof tv_kernels[0]; k++) {
        const tv_kernel *K = &tv_kernels[k];
        tc_compile_desc cd;
        tc_program *p = NULL;
        tc_tensor in[3], ref[4], out[4];
        tc_error err;
        uint32_t seed = 12345u + (uint32_t)k;
        int i, t, o;
        memset(&cd, 0, sizeof cd);
        cd.source = K->src;
        th_current = K->src;
        CHECKF(tc_compile(&cd, &p, &err) == TC_OK, "%s", err.msg);
        if (!p) continue;
        for (i = 0; i < K->n_in; i++) {
            size_t n = 1, e;
            int d;
            memset(&in[i], 0, sizeof in[i]);
            in[i].dtype = TC_FLOAT32;
            in[i].rank = K->rank[i];
            for (d = 0; d < K->rank[i]; d++) n *= (size_t)(in[i].shape[d] = K->shape[i][d]);
            in[i].data = malloc(n * 4);
            for (e = 0; e < n; e++) ((float *)in[i].data)[e] = tv_rand(&seed);
        }
        CHECK(tv_run(p, K, in, ref, NULL));
        for (t = 0; t < 4; t++) {
            int same = tv_run(p, K, in, out, tv_pools[t]);
            for (o = 0; o < K->n_out && same; o++)
                same = memcmp(out[o].data, ref[o].data, tv_bytes(&ref[o])) == 0;
            CHECKF(same, "%d threads differ", tv_threads[t]);
            for (o = 0; o < K->n_out; o++) tc_tensor_free(p, &out[o]);
        }
        for (o = 0; o < K->n_out; o++) tc_tensor_free(p, &ref[o]);
        for (i = 0; i < K->n_in; i++) free(in[i].data);
        tc_program_free(p);
    }
}

/* One immutable program, four caller threads at once, each with its own
   plan and pool use. */
typedef struct tv_job {
    const tc_program *p;
    tc_pool *pool;
    float *a, *b, *c;
    int ok;
} tv_job;

static void *tv_worker(void *arg) {
    tv_job *j = (tv_job *)arg;
    tc_tensor in[2], out[1];
    tc_run_desc rd;
    tc_plan *plan = NULL;
    tc_error err;
    int r;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dtype = in[1].dtype = out[0].dtype = TC_FLOAT32;
    in[0].rank = in[1].rank = out[0].rank = 2;
    in[0].shape[0] = 50; in[0].shape[1] = 40; in[0].data = j->a;
    in[1].shape[0] = 40; in[1].shape[1] = 60; in[1].data = j->b;
    out[0].shape[0] = 50; out[0].shape[1] = 60; out[0].data = j->c;
    memset(&rd, 0, sizeof rd);
    rd.inputs = in; rd.n_inputs = 2; rd.outputs = out; rd.n_outputs = 1; rd.pool = j->pool;
    j->ok = tc_plan_create(j->p, &rd, &plan, &err) == TC_OK;
    for (r = 0; r < 20 && j->ok; r++) j->ok = tc_plan_run(plan, &rd, &err) == TC_OK;
    tc_plan_free(plan);
    return NULL;
}

static void test_shared_program(void) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    static float a[50 * 40], b[40 * 60], c[4][50 * 60];
    tv_job jobs[4];
    pthread_t th[4];
    uint32_t seed = 7;
    int i;
    memset(&cd, 0, sizeof cd);
    cd.source = "def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }";
    CHECK(tc_compile(&cd, &p, &err) == TC_OK);
    if (!p) return;
    for (i = 0; i < 50 * 40; i++) a[i] = tv_rand(&seed);
    for (i = 0; i < 40 * 60; i++) b[i] = tv_rand(&seed);
    for (i = 0; i < 4; i++) {
        jobs[i].p = p;
        jobs[i].pool = i == 0 ? NULL : tv_pools[i]; /* separate pools: one caller each */
        jobs[i].a = a;
        jobs[i].b = b;
        jobs[i].c = c[i];
        pthread_create(&th[i], NULL, tv_worker, &jobs[i]);
    }
    for (i = 0; i < 4; i++) pthread_join(th[i], NULL);
    for (i = 0; i < 4; i++) CHECK(jobs[i].ok);
    for (i = 1; i < 4; i++) CHECK(memcmp(c[0], c[i], sizeof c[0]) == 0);
    tc_program_free(p);
}

static void test_pool_api(void) {
    tc_pool *pl = NULL;
    tc_error err;
    CHECK(tc_pool_create(-1, NULL, &pl, &err) == TC_ERR_INVALID_ARGUMENT && pl == NULL);
    CHECK(tc_pool_create(0, NULL, &pl, &err) == TC_OK && tc_pool_num_threads(pl) >= 1); /* the CPUs */
    tc_pool_free(pl);
    pl = NULL;
    CHECK(tc_pool_create(TC_MAX_THREADS + 1, NULL, &pl, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_pool_create(2, NULL, NULL, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_pool_num_threads(NULL) == 1);
    tc_pool_free(NULL);
}

int main(void) {
    int i;
    tc_error err;
    for (i = 0; i < 4; i++) {
        if (tc_pool_create(tv_threads[i], NULL, &tv_pools[i], &err) != TC_OK) {
            fprintf(stderr, "pool: %s\n", err.msg);
            return 1;
        }
#if defined(TC_NO_THREADS)
        CHECK(tc_pool_num_threads(tv_pools[i]) == 1); /* everything runs on the caller */
#else
        CHECK(tc_pool_num_threads(tv_pools[i]) == tv_threads[i]);
#endif
    }
    RUN(test_identical_across_threads);
    RUN(test_shared_program);
    RUN(test_pool_api);
    for (i = 0; i < 4; i++) tc_pool_free(tv_pools[i]);
    return th_report();
}
