/* threads.c - one compiled program shared by several threads.

       cc -std=c99 -O2 -I. examples/threads.c -o threads -lm -pthread

   A tc_program is immutable after tc_compile, so threads may run it at the
   same time with no locking. Each thread owns its plan (and would own its
   pool, if it wanted intra-run parallelism too). Here four threads each
   run a layer-norm on their own data, many times, and check the result. */
#define TC_IMPLEMENTATION
#include "tc.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const char *layernorm =
    "def layernorm(float(N, D) X, float(D) g, float(D) b) -> (Y) {\n"
    "    mean(n) +=! X(n, d) / D\n"
    "    var(n) +=! (X(n, d) - mean(n)) * (X(n, d) - mean(n)) / D\n"
    "    Y(n, d) = (X(n, d) - mean(n)) * rsqrt(var(n) + 1e-5) * g(d) + b(d)\n"
    "}\n";

enum { N = 16, D = 64, THREADS = 4, RUNS = 200 };

typedef struct worker {
    const tc_program *prog; /* shared, read-only */
    int id;
    float x[N * D], g[D], b[D], y[N * D];
    double max_err;
    tc_error err;
    int failed;
} worker;

static void *work(void *arg) {
    worker *w = (worker *)arg;
    tc_tensor in[3], out[1];
    tc_run_desc rd;
    tc_plan *plan = NULL;
    int r, i, n;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dtype = TC_FLOAT32, in[0].rank = 2, in[0].shape[0] = N, in[0].shape[1] = D, in[0].data = w->x;
    in[1].dtype = TC_FLOAT32, in[1].rank = 1, in[1].shape[0] = D, in[1].data = w->g;
    in[2].dtype = TC_FLOAT32, in[2].rank = 1, in[2].shape[0] = D, in[2].data = w->b;
    out[0].dtype = TC_FLOAT32, out[0].rank = 2, out[0].shape[0] = N, out[0].shape[1] = D;
    out[0].data = w->y;
    memset(&rd, 0, sizeof rd);
    rd.inputs = in, rd.n_inputs = 3;
    rd.outputs = out, rd.n_outputs = 1;
    if (tc_plan_create(w->prog, &rd, &plan, &w->err) != TC_OK) {
        w->failed = 1;
        return NULL;
    }
    for (i = 0; i < D; i++) w->g[i] = 1.0f + 0.01f * (float)i, w->b[i] = 0.5f;
    for (r = 0; r < RUNS && !w->failed; r++) {
        for (i = 0; i < N * D; i++) w->x[i] = (float)((i * 31 + r * 7 + w->id * 13) % 97) * 0.1f;
        if (tc_plan_run(plan, &rd, &w->err) != TC_OK) w->failed = 1;
    }
    for (n = 0; n < N && !w->failed; n++) { /* check the last run */
        double mean = 0, var = 0;
        for (i = 0; i < D; i++) mean += (double)w->x[n * D + i] / D;
        for (i = 0; i < D; i++) var += ((double)w->x[n * D + i] - mean) * ((double)w->x[n * D + i] - mean) / D;
        for (i = 0; i < D; i++) {
            double ref = ((double)w->x[n * D + i] - mean) / sqrt(var + 1e-5) * (double)w->g[i] + (double)w->b[i];
            double e = fabs(ref - (double)w->y[n * D + i]);
            if (e > w->max_err) w->max_err = e;
        }
    }
    tc_plan_free(plan);
    return NULL;
}

int main(void) {
    static worker workers[THREADS];
    pthread_t tid[THREADS];
    tc_compile_desc cd;
    tc_program *prog = NULL;
    tc_error err;
    int i, failed = 0;
    memset(&cd, 0, sizeof cd);
    cd.source = layernorm;
    if (tc_compile(&cd, &prog, &err) != TC_OK) {
        char msg[1024];
        tc_error_format(&err, "layernorm.tc", layernorm, msg, sizeof msg);
        fputs(msg, stderr);
        return 1;
    }
    for (i = 0; i < THREADS; i++) {
        workers[i].prog = prog;
        workers[i].id = i;
        if (pthread_create(&tid[i], NULL, work, &workers[i]) != 0) return 1;
    }
    for (i = 0; i < THREADS; i++) pthread_join(tid[i], NULL);
    for (i = 0; i < THREADS; i++) {
        if (workers[i].failed) {
            fprintf(stderr, "thread %d: %s\n", i, workers[i].err.msg);
            failed = 1;
        } else {
            printf("thread %d: %d layer norms of %dx%d, max |error| %.2g\n", i, RUNS, N, D,
                   workers[i].max_err);
            failed |= workers[i].max_err > 1e-4;
        }
    }
    tc_program_free(prog);
    printf(failed ? "threads FAILED\n" : "threads ok\n");
    return failed;
}
