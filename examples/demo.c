/* demo.c - embedding tc.h: compile once, run many times through a plan on
   a pool of threads, and report errors the way a compiler does.

       make demo        (cc -std=c99 -O2 -I. examples/demo.c -lm -pthread)

   The pattern for an application:
     1. tc_compile once at start-up (errors carry line:col; tc_error_format
        renders them with the source line and a caret),
     2. tc_pool_create once (worker threads sleep between runs),
     3. tc_plan_create once per input shape, then tc_plan_run per call:
        with caller-owned outputs a planned run allocates nothing,
     4. free in reverse order. Nothing in tc.h prints, exits or aborts. */
#define TC_IMPLEMENTATION
#include "tc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kernels =
    "# Two defs in one source; a run names the one it wants.\n"
    "def matmul(float(M, K) A, float(K, N) B) -> (C) {\n"
    "    C(i, j) +=! A(i, k) * B(k, j)\n"
    "}\n"
    "def softmax(float(N, D) X) -> (Y) {\n"
    "    mx(n) max=! X(n, d)\n"
    "    e(n, d) = exp(X(n, d) - mx(n))\n"
    "    s(n) +=! e(n, d)\n"
    "    Y(n, d) = e(n, d) / s(n)\n"
    "}\n";

/* Prints an error as "file:line:col: error: msg", the line and a caret. */
static void report(const tc_error *err, const char *file, const char *src) {
    char buf[1024];
    tc_error_format(err, file, src, buf, sizeof buf);
    fprintf(stderr, "%s", buf);
}

/* 1. A source with a mistake: the error points at it. */
static int demo_compile_error(void) {
    const char *bad = "def scale(float(N) x) -> (y) {\n"
                      "    y(i) = x(i) * alpha\n"
                      "}\n";
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    memset(&cd, 0, sizeof cd);
    cd.source = bad;
    printf("-- compiling a source with a mistake (expected to fail):\n");
    if (tc_compile(&cd, &p, &err) == TC_OK) {
        tc_program_free(p);
        printf("   unexpectedly compiled\n");
        return 1;
    }
    fflush(stdout);
    report(&err, "scale.tc", bad);
    printf("   status %s (%s)\n", tc_status_name(err.code), tc_status_message(err.code));
    return 0;
}

/* 2. Compile once, plan once, run many: 100 matmuls through one plan. */
static int demo_matmul(const tc_program *prog, tc_pool *pool) {
    enum { M = 64, K = 48, N = 32, RUNS = 100 };
    static float a[M * K], b[K * N], c[M * N];
    tc_tensor in[2], out[1];
    tc_run_desc rd;
    tc_plan *plan = NULL;
    tc_error err;
    double max_err = 0;
    int r, i, j, k;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dtype = TC_FLOAT32, in[0].rank = 2, in[0].shape[0] = M, in[0].shape[1] = K, in[0].data = a;
    in[1].dtype = TC_FLOAT32, in[1].rank = 2, in[1].shape[0] = K, in[1].shape[1] = N, in[1].data = b;
    out[0].dtype = TC_FLOAT32, out[0].rank = 2, out[0].shape[0] = M, out[0].shape[1] = N;
    out[0].data = c; /* caller-owned: a planned run allocates nothing */
    memset(&rd, 0, sizeof rd);
    rd.entry = "matmul";
    rd.inputs = in, rd.n_inputs = 2;
    rd.outputs = out, rd.n_outputs = 1;
    rd.pool = pool;
    if (tc_plan_create(prog, &rd, &plan, &err) != TC_OK) {
        report(&err, "demo", NULL);
        return 1;
    }
    for (r = 0; r < RUNS; r++) {
        for (i = 0; i < M * K; i++) a[i] = (float)((i * 7 + r) % 13) - 6.0f;
        for (i = 0; i < K * N; i++) b[i] = (float)((i * 5 + 2 * r) % 11) * 0.25f;
        if (tc_plan_run(plan, &rd, &err) != TC_OK) {
            report(&err, "demo", NULL);
            tc_plan_free(plan);
            return 1;
        }
    }
    for (i = 0; i < M; i++) /* check the last run against plain loops */
        for (j = 0; j < N; j++) {
            double ref = 0;
            for (k = 0; k < K; k++) ref += (double)a[i * K + k] * (double)b[k * N + j];
            if (fabs(ref - (double)c[i * N + j]) > max_err) max_err = fabs(ref - (double)c[i * N + j]);
        }
    tc_plan_free(plan);
    printf("-- matmul %dx%d * %dx%d: %d runs through one plan on %d threads, max |error| %g\n", M,
           K, K, N, RUNS, tc_pool_num_threads(pool), max_err);
    return max_err > 1e-3;
}

/* 3. One-off run with library-allocated outputs (freed with tc_tensor_free). */
static int demo_softmax(const tc_program *prog, tc_pool *pool) {
    float x[3 * 4] = {1, 2, 3, 4, 0, 0, 0, 0, -1, 5, 2, 0.5f};
    tc_tensor in[1], out[1];
    tc_run_desc rd;
    tc_error err;
    int n, d, bad = 0;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out); /* data NULL: tc_run allocates and fills shape */
    in[0].dtype = TC_FLOAT32, in[0].rank = 2, in[0].shape[0] = 3, in[0].shape[1] = 4, in[0].data = x;
    memset(&rd, 0, sizeof rd);
    rd.entry = "softmax";
    rd.inputs = in, rd.n_inputs = 1;
    rd.outputs = out, rd.n_outputs = 1;
    rd.pool = pool;
    if (tc_run(prog, &rd, &err) != TC_OK) {
        report(&err, "demo", NULL);
        return 1;
    }
    printf("-- softmax of a 3x4 matrix (rows sum to 1):\n");
    for (n = 0; n < 3; n++) {
        const float *y = (const float *)out[0].data + n * 4;
        double sum = 0;
        printf("  ");
        for (d = 0; d < 4; d++) {
            printf(" %.4f", (double)y[d]);
            sum += (double)y[d];
        }
        printf("   sum %.6f\n", sum);
        bad |= fabs(sum - 1.0) > 1e-5;
    }
    tc_tensor_free(prog, &out[0]);
    return bad;
}

/* 4. A run with inputs that do not fit the signature: an error, nothing written. */
static int demo_run_error(const tc_program *prog) {
    float a[6] = {0}, b[6] = {0}, c[4] = {0};
    tc_tensor in[2], out[1];
    tc_run_desc rd;
    tc_error err;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dtype = TC_FLOAT32, in[0].rank = 2, in[0].shape[0] = 2, in[0].shape[1] = 3, in[0].data = a;
    in[1].dtype = TC_FLOAT32, in[1].rank = 2, in[1].shape[0] = 2, in[1].shape[1] = 3, in[1].data = b;
    out[0].data = c; /* shapes are checked before anything is written */
    out[0].dtype = TC_FLOAT32, out[0].rank = 2, out[0].shape[0] = 2, out[0].shape[1] = 2;
    memset(&rd, 0, sizeof rd);
    rd.entry = "matmul";
    rd.inputs = in, rd.n_inputs = 2;
    rd.outputs = out, rd.n_outputs = 1;
    printf("-- matmul of 2x3 by 2x3 (expected to fail):\n");
    if (tc_run(prog, &rd, &err) == TC_OK) {
        printf("   unexpectedly ran\n");
        return 1;
    }
    fflush(stdout);
    report(&err, "demo", NULL);
    printf("   status %s\n", tc_status_name(err.code));
    return 0;
}

int main(void) {
    tc_compile_desc cd;
    tc_program *prog = NULL;
    tc_pool *pool = NULL;
    tc_error err;
    int failed = 0;
    printf("tc.h %s demo\n", TC_VERSION_STRING);
    failed |= demo_compile_error();
    memset(&cd, 0, sizeof cd);
    cd.source = kernels;
    if (tc_compile(&cd, &prog, &err) != TC_OK) { /* compile once */
        report(&err, "kernels.tc", kernels);
        return 1;
    }
    if (tc_pool_create(2, NULL, &pool, &err) != TC_OK) { /* threads once */
        report(&err, "demo", NULL);
        tc_program_free(prog);
        return 1;
    }
    failed |= demo_matmul(prog, pool);
    failed |= demo_softmax(prog, pool);
    failed |= demo_run_error(prog);
    tc_pool_free(pool);
    tc_program_free(prog);
    printf(failed ? "demo FAILED\n" : "demo ok\n");
    return failed;
}
