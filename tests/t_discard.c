/* t_discard: tc_run_desc.discard. A discarded output is computed as a
   temporary and the caller's tensor is left exactly as it was (data
   pointer, dtype, rank, shape, contents; data NULL is not allocated).
   Wanted outputs must be bitwise the same with and without discard, for
   every thread count, through tc_run and through plans (made with one
   pool, run with another), also where the VM keeps a temporary's rows
   per thread ("staged": one row group alone touches it and its first
   statement writes its rows whole with `=`) and where it must not (read
   by a statement outside the group, written partially or by `+=` first,
   read across rows). A plan runs only with the flags it was made with;
   allocation failures leave nothing behind. */
#define _DEFAULT_SOURCE
/* linked with tc.h built with 256-byte arena chunks (tests/tc_impl.c,
   TC_ARENA_CHUNK=256 in the Makefile): every plan allocation can fail on
   its own */
#include "tc.h"
#include "harness.h"
#include "ref_eval.h"
#include "kernel_cases.h"
#include "fail_alloc.h"

#define DC_MAX 8
#define DC_SENTINEL 0xA5
#define DC_N_POOLS 3
static tc_pool *dc_pools[DC_N_POOLS]; /* 1, 2 and 3 threads */
static const int64_t dc_garbage_strides[TC_MAX_RANK] = {9, 9, 9, 9, 9, 9, 9, 9};

static tc_program *dc_compile(const char *src, const tc_allocator *a, tc_error *err) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error local;
    tc_status st;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    if (a) cd.allocator = *a;
    st = tc_compile(&cd, &p, err ? err : &local);
    if (!a) CHECKF(st == TC_OK, "compile: %s\n%s", (err ? err : &local)->msg, src);
    return p;
}
static const tc_ir_def *dc_ir(const tc_program *p) {
    return tc_program_ir(p, tc_program_find(p, NULL));
}
static size_t dc_bytes(const tc_tensor *t) {
    return (size_t)ref_numel(t) * tc_dtype_size(t->dtype);
}
static int dc_same_desc(const tc_tensor *a, const tc_tensor *b) {
    int k;
    if (a->dtype != b->dtype || a->rank != b->rank || a->strides != b->strides || a->data != b->data)
        return 0;
    for (k = 0; k < TC_MAX_RANK; k++)
        if (a->shape[k] != b->shape[k]) return 0;
    return 1;
}
static int dc_sentinel_ok(const void *p, size_t n) {
    const unsigned char *c = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++)
        if (c[i] != DC_SENTINEL) return 0;
    return 1;
}

/* How a run is made: tc_run into zeroed caller buffers, tc_run with the
   wanted outputs allocated by the library, or a plan (made with
   plan_pool, run twice with pool: both runs must agree). */
enum { DC_CALLER, DC_LIBRARY, DC_PLAN };
typedef struct dc_how {
    int mode;
    tc_pool *pool, *plan_pool;
    const char *what;
} dc_how;

/* A discarded output gets, alternately, a caller buffer full of a
   sentinel or data NULL with a garbage dtype, rank, shape and strides. */
static void dc_discarded_desc(const tc_tensor *shape, int i, int mode, tc_tensor *o) {
    int k;
    *o = *shape;
    o->strides = NULL;
    if ((i + mode) & 1) {
        size_t bytes = dc_bytes(shape) + 1;
        o->data = malloc(bytes);
        memset(o->data, DC_SENTINEL, bytes);
        return;
    }
    o->data = NULL;
    o->dtype = TC_INT8;
    o->rank = 5;
    o->strides = dc_garbage_strides;
    for (k = 0; k < TC_MAX_RANK; k++)
        o->shape[k] = 12345 + k;
}

static tc_status dc_plan_run(const tc_program *p, tc_run_desc *rd, const dc_how *h, tc_tensor *out,
                             const tc_tensor *shapes, int n_out, tc_error *err) {
    tc_plan *plan = NULL;
    tc_tensor first[DC_MAX];
    tc_status st;
    int i, same = 1;
    rd->pool = h->plan_pool;
    st = tc_plan_create(p, rd, &plan, err);
    rd->pool = h->pool;
    if (st == TC_OK) st = tc_plan_run(plan, rd, err);
    for (i = 0; i < n_out; i++) { /* the first run's results; the second overwrites */
        first[i].data = NULL;
        if (st == TC_OK && !(rd->discard && rd->discard[i])) first[i] = kc_copy(&out[i]);
    }
    if (st == TC_OK) st = tc_plan_run(plan, rd, err);
    for (i = 0; i < n_out; i++) {
        if (st == TC_OK && first[i].data) same &= memcmp(first[i].data, out[i].data, dc_bytes(&shapes[i])) == 0;
        free(first[i].data);
    }
    CHECKF(same, "%s: a plan's second run differs from its first", h->what);
    tc_plan_free(plan);
    return st;
}

/* One run of p (n_out outputs shaped like shapes[]) as h says, with the
   discard flags disc (NULL: none). Discarded outputs must come back as
   they went in. got[i] of a wanted output: a malloc'ed copy (data NULL
   when the run failed). */
static tc_status dc_run(const tc_program *p, const tc_tensor *in, int n_in, const tc_tensor *shapes,
                        int n_out, const unsigned char *disc, const dc_how *h, tc_tensor *got,
                        tc_error *err) {
    tc_tensor out[DC_MAX], saved[DC_MAX];
    tc_run_desc rd;
    tc_status st;
    int i;
    for (i = 0; i < n_out; i++) {
        if (disc && disc[i])
            dc_discarded_desc(&shapes[i], i, h->mode, &out[i]);
        else if (h->mode == DC_LIBRARY)
            memset(&out[i], 0, sizeof out[i]);
        else {
            out[i] = shapes[i];
            out[i].strides = NULL;
            out[i].data = calloc(dc_bytes(&shapes[i]) + 1, 1);
        }
        saved[i] = out[i];
    }
    memset(&rd, 0, sizeof rd);
    rd.inputs = in;
    rd.n_inputs = n_in;
    rd.outputs = out;
    rd.n_outputs = n_out;
    rd.discard = disc;
    rd.pool = h->pool;
    if (h->mode == DC_PLAN) st = dc_plan_run(p, &rd, h, out, shapes, n_out, err);
    else st = tc_run(p, &rd, err);
    for (i = 0; i < n_out; i++) {
        got[i].data = NULL;
        if (disc && disc[i]) {
            CHECKF(dc_same_desc(&out[i], &saved[i]), "%s: discarded output %d: its tensor changed",
                   h->what, i);
            CHECKF(!out[i].data || dc_sentinel_ok(out[i].data, dc_bytes(&shapes[i]) + 1),
                   "%s: discarded output %d: its buffer was written", h->what, i);
            free(saved[i].data);
            continue;
        }
        if (st == TC_OK) {
            CHECKF(out[i].data && kc_same_shape(&out[i], &shapes[i]), "%s: output %d: no data or shape",
                   h->what, i);
            if (out[i].data) {
                got[i] = shapes[i];
                got[i].strides = NULL;
                got[i].data = malloc(dc_bytes(&shapes[i]) + 1);
                memcpy(got[i].data, out[i].data, dc_bytes(&shapes[i]));
            }
        } else if (h->mode == DC_LIBRARY) {
            CHECKF(out[i].data == NULL, "%s: failed run left output %d allocated", h->what, i);
        }
        if (h->mode == DC_LIBRARY) tc_tensor_free(p, &out[i]);
        else free(out[i].data);
    }
    return st;
}

/* The run variants every case goes through. */
static int dc_hows(dc_how *h) {
    int n = 0, t;
    for (t = -1; t < DC_N_POOLS; t++) {
        h[n].mode = DC_CALLER, h[n].pool = t < 0 ? NULL : dc_pools[t], h[n].plan_pool = NULL;
        h[n++].what = t < 0 ? "tc_run" : t == 0 ? "tc_run, 1 thread" : t == 1 ? "tc_run, 2 threads"
                                                                               : "tc_run, 3 threads";
    }
    h[n].mode = DC_LIBRARY, h[n].pool = NULL, h[n].plan_pool = NULL, h[n++].what = "tc_run, library outputs";
    h[n].mode = DC_LIBRARY, h[n].pool = dc_pools[2], h[n].plan_pool = NULL;
    h[n++].what = "tc_run, library outputs, 3 threads";
    h[n].mode = DC_PLAN, h[n].pool = dc_pools[2], h[n].plan_pool = dc_pools[2], h[n++].what = "plan, 3 threads";
    h[n].mode = DC_PLAN, h[n].pool = dc_pools[1], h[n].plan_pool = dc_pools[2];
    h[n++].what = "plan made for 3 threads, run with 2";
    h[n].mode = DC_PLAN, h[n].pool = dc_pools[2], h[n].plan_pool = NULL;
    h[n++].what = "plan made for 1 thread, run with 3";
    h[n].mode = DC_PLAN, h[n].pool = NULL, h[n].plan_pool = dc_pools[1];
    h[n++].what = "plan made for 2 threads, run with 1";
    return n;
}

static void dc_flags_name(const unsigned char *disc, int n, char *buf) {
    int i;
    for (i = 0; i < n; i++)
        buf[i] = disc && disc[i] ? 'd' : '-';
    buf[n] = 0;
}

/* ---- softmax and layernorm: every discard subset, thread count, mode ---- */
#define DC_SOFTMAX_TEMPS                                                                           \
    "def softmax_t(float(M,N) X) -> (Y) {\n    mx(i) max=! X(i,j)\n"                               \
    "    e(i,j) = exp(X(i,j) - mx(i))\n    s(i) +=! e(i,j)\n    Y(i,j) = e(i,j) / s(i)\n}\n"
#define DC_LAYERNORM_TEMPS                                                                         \
    "def layernorm_t(float(M,N) X, float(N) g, float(N) b) -> (Y) {\n"                             \
    "    mean(i) +=! X(i,j) / N\n    d(i,j) = X(i,j) - mean(i)\n"                                  \
    "    var(i) +=! d(i,j) * d(i,j) / N\n"                                                         \
    "    Y(i,j) = d(i,j) / sqrt(var(i) + 1e-5) * g(j) + b(j)\n}\n"

static const unsigned char dc_subsets[][4] = {
    {0, 0, 0, 0}, /* none */
    {1, 1, 1, 0}, /* all but Y */
    {0, 1, 0, 0}, /* only e / d */
    {1, 0, 1, 0}, /* the row values only */
    {0, 1, 1, 0},
    {0, 0, 0, 1}, /* Y only */
    {1, 1, 1, 1}, /* nothing wanted */
    {0, 7, 0, 0}, /* any nonzero flag */
};
#define DC_N_SUBSETS ((int)(sizeof dc_subsets / sizeof dc_subsets[0]))

/* Baseline: no discard, one thread, checked against the reference; then
   every subset and run variant bitwise against it; then the def with
   temporaries in place of the first three outputs gives the same Y. */
static void dc_norm_case(const char *src, const char *temps_src, const char *sizes,
                         const char *ranges) {
    tc_program *p = dc_compile(src, NULL, NULL), *pt = dc_compile(temps_src, NULL, NULL);
    const tc_ir_def *d;
    tc_tensor in[4], shapes[DC_MAX], want[DC_MAX], base[DC_MAX], got[DC_MAX];
    dc_how hows[16];
    tc_error err;
    tc_status st;
    char why[256], fl[DC_MAX + 1];
    kc_rng rng = {99};
    int i, s, h, n_in, n_out, n_hows = dc_hows(hows);
    dc_how plain;
    if (!p || !pt) {
        tc_program_free(p);
        tc_program_free(pt);
        return;
    }
    d = dc_ir(p);
    n_in = d->n_inputs;
    n_out = d->n_outputs;
    memset(want, 0, sizeof want);
    memset(shapes, 0, sizeof shapes);
    if (!kc_make_inputs(d, sizes, ranges, &rng, in, why, sizeof why)) {
        CHECKF(0, "%s: %s", sizes, why);
        tc_program_free(p);
        tc_program_free(pt);
        return;
    }
    st = tc_infer_shapes(p, NULL, in, n_in, shapes, n_out, &err);
    CHECKF(st == TC_OK, "%s: infer: %s", sizes, err.msg);
    CHECKF(ref_run(p, NULL, in, n_in, want, n_out, why, sizeof why) == TC_OK, "%s: reference: %s",
           sizes, why);
    plain.mode = DC_CALLER, plain.pool = NULL, plain.plan_pool = NULL, plain.what = "baseline";
    st = dc_run(p, in, n_in, shapes, n_out, NULL, &plain, base, &err);
    CHECKF(st == TC_OK, "%s %s: %s", d->name, sizes, err.msg);
    for (i = 0; st == TC_OK && i < n_out; i++)
        CHECKF(kc_compare(&base[i], &want[i], KC_REDUCE, why, sizeof why), "%s %s: output %s: %s",
               d->name, sizes, d->tensors[n_in + i].name, why);
    for (s = 0; st == TC_OK && s < DC_N_SUBSETS; s++) {
        dc_flags_name(dc_subsets[s], n_out, fl);
        for (h = 0; h < n_hows; h++) {
            tc_status st2 = dc_run(p, in, n_in, shapes, n_out, dc_subsets[s], &hows[h], got, &err);
            CHECKF(st2 == TC_OK, "%s %s discard %s, %s: %s", d->name, sizes, fl, hows[h].what, err.msg);
            for (i = 0; st2 == TC_OK && i < n_out; i++) {
                if (dc_subsets[s][i]) continue;
                CHECKF(kc_bitwise_equal(&got[i], &base[i]),
                       "%s %s discard %s, %s: output %s differs from the run without discard",
                       d->name, sizes, fl, hows[h].what, d->tensors[n_in + i].name);
            }
            kc_free_tensors(got, n_out);
        }
    }
    for (h = 0; st == TC_OK && h < n_hows; h++) { /* temporaries: Y the same */
        tc_tensor sh1 = shapes[n_out - 1];
        tc_status st2 = dc_run(pt, in, n_in, &sh1, 1, NULL, &hows[h], got, &err);
        CHECKF(st2 == TC_OK && kc_bitwise_equal(&got[0], &base[n_out - 1]),
               "%s %s, %s: Y with temporaries differs from Y with outputs (%s)", d->name, sizes,
               hows[h].what, st2 == TC_OK ? "results" : err.msg);
        kc_free_tensors(got, 1);
    }
    kc_free_tensors(base, n_out);
    ref_free_outputs(want, n_out);
    kc_free_tensors(in, n_in);
    tc_program_free(p);
    tc_program_free(pt);
}

static const char *const dc_norm_sizes[] = {
    "M=1 N=1",    "M=3 N=5",     "M=37 N=1000", "M=64 N=1024", "M=5 N=3000",
    "M=100 N=700", "M=2 N=17",   "M=0 N=5",     "M=4 N=0",
};
#define DC_N_NORM_SIZES ((int)(sizeof dc_norm_sizes / sizeof dc_norm_sizes[0]))

static void test_softmax(void) {
    int k;
    for (k = 0; k < DC_N_NORM_SIZES; k++)
        dc_norm_case(KC_SOFTMAX, DC_SOFTMAX_TEMPS, dc_norm_sizes[k], "X=-4:4");
}
static void test_layernorm(void) {
    int k;
    for (k = 0; k < DC_N_NORM_SIZES; k++)
        dc_norm_case(KC_LAYERNORM, DC_LAYERNORM_TEMPS, dc_norm_sizes[k],
                     "X=-4:4 g=0.5:1.5 b=-0.5:0.5");
}

/* ---- temporaries and discarded outputs against values computed here ----
   X holds small multiples of 0.5, so every sum below is exact in float. */
static float dc_xval(int64_t k) { return (float)((k * 7 + k / 13 * 5) % 17 - 8) * 0.5f; }

/* Runs src on the float32 input X (rank 2 or 3) with every run variant:
   each wanted output must equal expect[i] bitwise. */
static void dc_expect(const char *name, const char *src, const int64_t *xshape, int xrank,
                      const unsigned char *disc, float *const *expect, int n_out) {
    tc_program *p = dc_compile(src, NULL, NULL);
    tc_tensor in[1], shapes[DC_MAX], got[DC_MAX];
    dc_how hows[16];
    tc_error err;
    int64_t k, n = 1;
    int i, h, n_hows = dc_hows(hows);
    if (!p) return;
    memset(in, 0, sizeof in);
    memset(shapes, 0, sizeof shapes);
    in[0].dtype = TC_FLOAT32;
    in[0].rank = xrank;
    for (i = 0; i < xrank; i++)
        n *= in[0].shape[i] = xshape[i];
    in[0].data = malloc((size_t)n * 4 + 4);
    for (k = 0; k < n; k++)
        ((float *)in[0].data)[k] = dc_xval(k);
    CHECKF(tc_infer_shapes(p, NULL, in, 1, shapes, n_out, &err) == TC_OK, "%s: infer: %s", name,
           err.msg);
    for (h = 0; h < n_hows; h++) {
        tc_status st = dc_run(p, in, 1, shapes, n_out, disc, &hows[h], got, &err);
        CHECKF(st == TC_OK, "%s (%lld x %lld), %s: %s", name, (long long)xshape[0],
               (long long)xshape[1], hows[h].what, err.msg);
        for (i = 0; st == TC_OK && i < n_out; i++) {
            int64_t m = ref_numel(&shapes[i]), bad = -1;
            if (disc && disc[i]) continue;
            for (k = 0; k < m && bad < 0; k++)
                if (memcmp(&((float *)got[i].data)[k], &expect[i][k], 4) != 0) bad = k;
            CHECKF(bad < 0, "%s (%lld x %lld), %s: output %d element %lld: got %g, want %g", name,
                   (long long)xshape[0], (long long)xshape[1], hows[h].what, i, (long long)bad,
                   bad < 0 ? 0.0 : (double)((float *)got[i].data)[bad],
                   bad < 0 ? 0.0 : (double)expect[i][bad]);
        }
        kc_free_tensors(got, n_out);
    }
    free(in[0].data);
    tc_program_free(p);
}

static const int64_t dc_shapes2[][2] = {{1, 1}, {3, 5}, {2, 17}, {37, 1000}, {64, 1024},
                                        {5, 3000}, {200, 300}, {64, 64}};
#define DC_N_SHAPES2 ((int)(sizeof dc_shapes2 / sizeof dc_shapes2[0]))

static float *dc_alloc(int64_t n) { return (float *)calloc((size_t)n + 1, sizeof(float)); }

/* Kinds of defs with a temporary t, each with its expected outputs. */
enum {
    DC_T_SAME_GROUP,  /* t written whole, read in the same row group: staged */
    DC_T_READ_LATER,  /* t also read by a column sum outside the group */
    DC_T_PARTIAL,     /* t written from column 1 on: column 0 stays 0 */
    DC_T_PARTIAL_ACC, /* t written partially, then added to over whole rows */
    DC_T_SHORT,       /* t written whole over j in 0:N-1 */
    DC_T_ACC_FIRST,   /* t first written by `+=` */
    DC_T_TRANSPOSED,  /* t read across rows: t(j,i) */
    DC_T_AFTER_GAP,   /* t read again after a statement that ends the group */
    DC_T_REWRITTEN,   /* t written whole, then `+=` in the group */
    DC_T_ROWS_FROM_2, /* the group's rows start at 2: staged rows are offset */
    DC_T_COUNT
};
static const char *const dc_temp_src[DC_T_COUNT] = {
    "def f(float(M,N) X) -> (Y) {\n    t(i,j) = X(i,j) * 2.0\n    Y(i,j) = t(i,j) + 1.0\n}\n",
    "def f(float(M,N) X) -> (Y, Z) {\n    t(i,j) = X(i,j) * 2.0\n    Y(i,j) = t(i,j) + 1.0\n"
    "    Z(j) +=! t(i,j)\n}\n",
    "def f(float(M,N) X) -> (Y) {\n    t(i,j) = X(i,j) * 2.0 where j in 1:N\n"
    "    Y(i,j) = t(i,j) + X(i,j)\n}\n",
    "def f(float(M,N) X) -> (Y) {\n    t(i,j) = X(i,j) where j in 1:N\n"
    "    t(i,j) += X(i,j) * 4.0\n    Y(i,j) = t(i,j) - 0.5\n}\n",
    "def f(float(M,N) X) -> (Y) {\n    t(i,j) = X(i,j) * 2.0 where j in 0:N-1\n"
    "    Y(i,j) = t(i,j) + 1.0\n}\n",
    "def f(float(M,N) X) -> (Y) {\n    t(i,j) += X(i,j)\n    Y(i,j) = t(i,j) * 3.0\n}\n",
    "def f(float(M,N) X) -> (Y) {\n    t(i,j) = X(i,j) * 2.0\n    Y(i,j) = t(j,i) + 1.0\n}\n",
    "def f(float(M,N) X) -> (Y, Z) {\n    t(i,j) = X(i,j) * 2.0\n    Y(i,j) = t(i,j) + 1.0\n"
    "    c(j) +=! X(i,j)\n    Z(i,j) = t(i,j) * c(j)\n}\n",
    "def f(float(M,N) X) -> (Y) {\n    t(i,j) = X(i,j)\n    t(i,j) += 1.0\n"
    "    Y(i,j) = t(i,j) * 2.0\n}\n",
    "def f(float(M,N) X) -> (Y) {\n    t(i,j) = X(i,j) * 2.0 where i in 2:M\n"
    "    Y(i,j) = t(i,j) + 1.0 where i in 2:M\n}\n",
};
static const char *const dc_temp_name[DC_T_COUNT] = {
    "same group", "read outside the group", "partial write", "partial write, then +=",
    "whole write over 0:N-1", "+= first", "read across rows", "read after the group ends",
    "rewritten in the group", "rows from 2"};

/* The expected outputs of kind k on X (M x N); returns how many. */
static int dc_temp_expect(int k, const float *X, int64_t M, int64_t N, float **e) {
    int64_t i, j;
    e[0] = dc_alloc(M * N);
    e[1] = dc_alloc(M * N);
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            float x = X[i * N + j], t = x * 2.0f;
            switch (k) {
            case DC_T_SAME_GROUP: e[0][i * N + j] = t + 1.0f; break;
            case DC_T_READ_LATER:
                e[0][i * N + j] = t + 1.0f;
                e[1][j] += t;
                break;
            case DC_T_PARTIAL: e[0][i * N + j] = (j ? t : 0.0f) + x; break;
            case DC_T_PARTIAL_ACC: e[0][i * N + j] = (j ? x : 0.0f) + x * 4.0f - 0.5f; break;
            case DC_T_SHORT:
                if (j < N - 1) e[0][i * (N - 1) + j] = t + 1.0f;
                break;
            case DC_T_ACC_FIRST: e[0][i * N + j] = x * 3.0f; break;
            case DC_T_TRANSPOSED: e[0][j * M + i] = t + 1.0f; break; /* Y is N x M */
            case DC_T_AFTER_GAP:
                e[0][i * N + j] = t + 1.0f;
                e[1][j] += x; /* c(j); Z below */
                break;
            case DC_T_REWRITTEN: e[0][i * N + j] = (x + 1.0f) * 2.0f; break;
            default: e[0][i * N + j] = i >= 2 ? t + 1.0f : 0.0f; break; /* rows 0, 1: not written */
            }
        }
    if (k == DC_T_AFTER_GAP) {
        float *c = e[1];
        e[1] = dc_alloc(M * N);
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++)
                e[1][i * N + j] = X[i * N + j] * 2.0f * c[j];
        free(c);
    }
    return k == DC_T_READ_LATER || k == DC_T_AFTER_GAP ? 2 : 1;
}

static void test_temporaries(void) {
    int k, s;
    for (k = 0; k < DC_T_COUNT; k++)
        for (s = 0; s < DC_N_SHAPES2; s++) {
            int64_t M = dc_shapes2[s][0], N = dc_shapes2[s][1], i;
            float *X = dc_alloc(M * N), *e[2];
            int n_out;
            if ((k == DC_T_SHORT && N < 2) || (k == DC_T_ROWS_FROM_2 && M < 3)) {
                free(X);
                continue;
            }
            for (i = 0; i < M * N; i++)
                X[i] = dc_xval(i);
            n_out = dc_temp_expect(k, X, M, N, e);
            dc_expect(dc_temp_name[k], dc_temp_src[k], dc_shapes2[s], 2, NULL, e, n_out);
            free(e[0]);
            free(e[1]);
            free(X);
        }
}

/* A 3-D temporary: rows of the group are along the first loop. */
static void test_temporary_3d(void) {
    static const int64_t sh[][3] = {{1, 1, 1}, {3, 4, 5}, {40, 20, 100}, {7, 3, 2000}};
    static const char *const src =
        "def f3(float(B,M,N) X) -> (Y) {\n    t(b,i,j) = X(b,i,j) * 2.0\n"
        "    Y(b,i,j) = t(b,i,j) - X(b,i,j) * 0.5\n}\n";
    int s;
    for (s = 0; s < 4; s++) {
        int64_t n = sh[s][0] * sh[s][1] * sh[s][2], i;
        float *e[1];
        e[0] = dc_alloc(n);
        for (i = 0; i < n; i++)
            e[0][i] = dc_xval(i) * 2.0f - dc_xval(i) * 0.5f;
        dc_expect("3-D temporary", src, sh[s], 3, NULL, e, 1);
        free(e[0]);
    }
}

/* Discarded outputs that a later, unrelated statement reads: a column sum
   (outside the row group) and a read across rows. */
static void test_discarded_read_later(void) {
    static const char *const src_sum =
        "def f(float(M,N) X) -> (e, Y, Z) {\n    e(i,j) = X(i,j) * 2.0\n"
        "    Y(i,j) = e(i,j) + 1.0\n    Z(j) +=! e(i,j)\n}\n";
    static const char *const src_tr =
        "def f(float(M,N) X) -> (e, Y, Z) {\n    e(i,j) = X(i,j) * 2.0\n"
        "    Y(i,j) = e(i,j) + 1.0\n    Z(i,j) = e(j,i) * 3.0\n}\n";
    static const unsigned char d100[3] = {1, 0, 0}, d101[3] = {1, 0, 1}, d110[3] = {1, 1, 0};
    int s;
    for (s = 0; s < DC_N_SHAPES2; s++) {
        int64_t M = dc_shapes2[s][0], N = dc_shapes2[s][1], i, j;
        float *e[3];
        e[0] = NULL;
        e[1] = dc_alloc(M * N);
        e[2] = dc_alloc(M * N);
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) {
                float t = dc_xval(i * N + j) * 2.0f;
                e[1][i * N + j] = t + 1.0f;
                e[2][j] += t;
            }
        dc_expect("discarded e, column sum Z", src_sum, dc_shapes2[s], 2, d100, e, 3);
        dc_expect("discarded e and Z", src_sum, dc_shapes2[s], 2, d101, e, 3);
        memset(e[2], 0, sizeof(float) * (size_t)(M * N));
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++)
                e[2][j * M + i] = dc_xval(i * N + j) * 2.0f * 3.0f; /* Z is N x M */
        dc_expect("discarded e, Z reads it across rows", src_tr, dc_shapes2[s], 2, d100, e, 3);
        dc_expect("discarded e and Y, Z reads e across rows", src_tr, dc_shapes2[s], 2, d110, e,
                  3);
        free(e[1]);
        free(e[2]);
    }
}

/* ---- plans keep their flags; outputs untouched; gathers ---- */
#define DC_NAMED_SOFTMAX                                                                           \
    "def sm(float(M,N) X) -> (rowmax, expo, total, prob) {\n    rowmax(i) max=! X(i,j)\n"          \
    "    expo(i,j) = exp(X(i,j) - rowmax(i))\n    total(i) +=! expo(i,j)\n"                        \
    "    prob(i,j) = expo(i,j) / total(i)\n}\n"
enum { DC_SM_M = 40, DC_SM_N = 900 };
static float dc_sm_x[DC_SM_M * DC_SM_N];

static void dc_sm_tensors(tc_tensor *in, tc_tensor *out, float (*buf)[DC_SM_M * DC_SM_N]) {
    int i;
    memset(in, 0, sizeof *in);
    in->dtype = TC_FLOAT32, in->rank = 2, in->shape[0] = DC_SM_M, in->shape[1] = DC_SM_N;
    in->data = dc_sm_x;
    for (i = 0; i < 4; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].dtype = TC_FLOAT32;
        out[i].rank = i == 1 || i == 3 ? 2 : 1;
        out[i].shape[0] = DC_SM_M;
        out[i].shape[1] = out[i].rank == 2 ? DC_SM_N : 0;
        out[i].data = buf[i];
        memset(buf[i], DC_SENTINEL, sizeof buf[i]);
    }
}
static int dc_all_sentinel(float (*buf)[DC_SM_M * DC_SM_N]) {
    int i;
    for (i = 0; i < 4; i++)
        if (!dc_sentinel_ok(buf[i], sizeof buf[i])) return 0;
    return 1;
}

static void test_plan_flags(void) {
    static float buf[4][DC_SM_M * DC_SM_N], ref[4][DC_SM_M * DC_SM_N];
    static const unsigned char only_e[4] = {0, 1, 0, 0}, e_and_total[4] = {0, 1, 1, 0},
                               prob_only[4] = {0, 0, 0, 1}, zeros[4] = {0, 0, 0, 0},
                               e_seven[4] = {0, 7, 0, 0};
    tc_program *p = dc_compile(DC_NAMED_SOFTMAX, NULL, NULL);
    tc_tensor in, out[4], lib[4];
    tc_run_desc rd;
    tc_plan *plan = NULL, *plan0 = NULL;
    tc_error err;
    int i;
    if (!p) return;
    dc_sm_tensors(&in, out, ref);
    memset(&rd, 0, sizeof rd);
    rd.inputs = &in, rd.n_inputs = 1, rd.outputs = out, rd.n_outputs = 4;
    CHECK(tc_run(p, &rd, &err) == TC_OK); /* ref: every output */
    dc_sm_tensors(&in, out, buf);
    rd.discard = only_e;
    rd.pool = dc_pools[2];
    CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_OK, "%s", err.msg);
    if (!plan) {
        tc_program_free(p);
        return;
    }
    /* other flags: refused, naming the output, nothing written or allocated */
    rd.discard = NULL;
    CHECK(tc_plan_run(plan, &rd, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECKF(strstr(err.msg, "expo") != NULL, "message: %s", err.msg);
    CHECK(dc_all_sentinel(buf));
    rd.discard = e_and_total;
    CHECK(tc_plan_run(plan, &rd, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECKF(strstr(err.msg, "total") != NULL, "message: %s", err.msg);
    CHECK(dc_all_sentinel(buf));
    rd.discard = zeros;
    CHECK(tc_plan_run(plan, &rd, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECKF(strstr(err.msg, "expo") != NULL, "message: %s", err.msg);
    CHECK(dc_all_sentinel(buf));
    memset(lib, 0, sizeof lib); /* library outputs: none allocated by a refused run */
    rd.outputs = lib;
    rd.discard = prob_only;
    CHECK(tc_plan_run(plan, &rd, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECKF(strstr(err.msg, "expo") != NULL || strstr(err.msg, "prob") != NULL, "message: %s",
           err.msg);
    for (i = 0; i < 4; i++)
        CHECK(lib[i].data == NULL && lib[i].rank == 0 && lib[i].shape[0] == 0);
    rd.outputs = out;
    /* the right flags (any nonzero value): the plan still works */
    rd.discard = e_seven;
    CHECKF(tc_plan_run(plan, &rd, &err) == TC_OK, "%s", err.msg);
    CHECK(dc_sentinel_ok(buf[1], sizeof buf[1]));
    CHECK(memcmp(buf[0], ref[0], sizeof buf[0]) == 0 && memcmp(buf[2], ref[2], sizeof buf[2]) == 0);
    CHECK(memcmp(buf[3], ref[3], sizeof buf[3]) == 0);
    tc_plan_free(plan);
    /* a plan made without flags refuses a run that discards */
    rd.discard = zeros;
    CHECK(tc_plan_create(p, &rd, &plan0, &err) == TC_OK);
    dc_sm_tensors(&in, out, buf);
    rd.discard = prob_only;
    CHECK(tc_plan_run(plan0, &rd, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECKF(strstr(err.msg, "prob") != NULL, "message: %s", err.msg);
    CHECK(dc_all_sentinel(buf));
    rd.discard = NULL; /* NULL and all zero are the same flags */
    CHECK(tc_plan_run(plan0, &rd, &err) == TC_OK);
    for (i = 0; i < 4; i++)
        CHECK(memcmp(buf[i], ref[i], sizeof buf[i]) == 0);
    tc_plan_free(plan0);
    tc_program_free(p);
}

/* Discarded outputs: a caller buffer keeps its sentinel; data NULL stays
   NULL and its descriptor is not filled in; wanted ones with data NULL
   are allocated as usual. Everything discarded: the run does nothing
   visible and succeeds. */
static void test_untouched(void) {
    static float buf[4][DC_SM_M * DC_SM_N], ref[4][DC_SM_M * DC_SM_N];
    static const unsigned char all_but_prob[4] = {1, 1, 1, 0}, all[4] = {1, 1, 1, 1};
    tc_program *p = dc_compile(DC_NAMED_SOFTMAX, NULL, NULL);
    tc_tensor in, out[4], keep[4];
    tc_run_desc rd;
    tc_error err;
    int i, k, pass;
    if (!p) return;
    dc_sm_tensors(&in, out, ref);
    memset(&rd, 0, sizeof rd);
    rd.inputs = &in, rd.n_inputs = 1, rd.outputs = out, rd.n_outputs = 4;
    CHECK(tc_run(p, &rd, &err) == TC_OK);
    for (pass = 0; pass < 2; pass++) {
        dc_sm_tensors(&in, out, buf);
        out[0].data = NULL; /* discarded, data NULL, descriptor garbage */
        out[0].dtype = TC_UINT16, out[0].rank = 7, out[0].shape[0] = -3, out[0].shape[1] = 99;
        out[2].data = NULL, out[2].rank = 0, out[2].shape[0] = 0;
        if (pass) out[3].data = NULL, out[3].rank = 0, out[3].shape[0] = out[3].shape[1] = 0;
        for (i = 0; i < 4; i++)
            keep[i] = out[i];
        rd.discard = all_but_prob;
        rd.pool = pass ? dc_pools[2] : NULL;
        CHECKF(tc_run(p, &rd, &err) == TC_OK, "%s", err.msg);
        for (i = 0; i < 3; i++)
            CHECKF(dc_same_desc(&out[i], &keep[i]), "pass %d: discarded output %d changed", pass, i);
        CHECK(out[0].data == NULL && out[2].data == NULL && out[0].shape[0] == -3);
        CHECK(out[2].rank == 0 && out[2].shape[0] == 0);
        CHECK(dc_sentinel_ok(buf[1], sizeof buf[1]) && dc_sentinel_ok(buf[0], sizeof buf[0]) &&
              dc_sentinel_ok(buf[2], sizeof buf[2]));
        CHECK(out[3].data != NULL && out[3].rank == 2 && out[3].shape[0] == DC_SM_M &&
              out[3].shape[1] == DC_SM_N);
        CHECK(out[3].data && memcmp(out[3].data, ref[3], sizeof ref[3]) == 0);
        if (pass) tc_tensor_free(p, &out[3]);
    }
    dc_sm_tensors(&in, out, buf);
    out[1].data = NULL;
    for (i = 0; i < 4; i++)
        keep[i] = out[i];
    rd.discard = all;
    for (k = 0; k < 2; k++) {
        rd.pool = k ? dc_pools[1] : NULL;
        CHECKF(tc_run(p, &rd, &err) == TC_OK, "%s", err.msg);
        for (i = 0; i < 4; i++)
            CHECK(dc_same_desc(&out[i], &keep[i]));
        CHECK(dc_all_sentinel(buf));
    }
    tc_program_free(p);
}

/* A gather whose indices the def computes (checked as the run goes, with
   the caller's outputs staged): with discarded outputs, a failing gather
   still leaves everything untouched, and a passing one is right. */
static void test_late_gather(void) {
    static const char *const src =
        "def g(float(M,N) X, int32(L) I) -> (k, e, Y, E) {\n    k(l) = I(l) * 2\n"
        "    e(i,j) = X(i,j) * 2.0\n    Y(i,j) = e(i,j) + 1.0\n    E(l,j) = Y(k(l), j)\n}\n";
    static const unsigned char d_ke[4] = {1, 1, 0, 0}, d_key[4] = {1, 1, 1, 0};
    enum { M = 9, N = 600, L = 4 };
    static float X[M * N], Y[M * N], E[L * N];
    tc_program *p = dc_compile(src, NULL, NULL);
    int32_t good[L] = {4, 0, 2, 1}, bad[L] = {0, 1, 5, 2}, kbuf[L];
    tc_tensor in[2], out[4];
    tc_run_desc rd;
    tc_error err;
    int i, j, r, ok;
    if (!p) return;
    for (i = 0; i < M * N; i++)
        X[i] = dc_xval(i);
    memset(in, 0, sizeof in);
    in[0].dtype = TC_FLOAT32, in[0].rank = 2, in[0].shape[0] = M, in[0].shape[1] = N, in[0].data = X;
    in[1].dtype = TC_INT32, in[1].rank = 1, in[1].shape[0] = L;
    memset(out, 0, sizeof out);
    out[0].dtype = TC_INT32, out[0].rank = 1, out[0].shape[0] = L, out[0].data = kbuf;
    out[1].dtype = TC_FLOAT32, out[1].rank = 2, out[1].shape[0] = M, out[1].shape[1] = N;
    out[2] = out[1], out[2].data = Y;
    out[3].dtype = TC_FLOAT32, out[3].rank = 2, out[3].shape[0] = L, out[3].shape[1] = N;
    out[3].data = E;
    memset(&rd, 0, sizeof rd);
    rd.inputs = in, rd.n_inputs = 2, rd.outputs = out, rd.n_outputs = 4;
    for (r = 0; r < 4; r++) {
        rd.discard = r & 1 ? d_key : d_ke;
        rd.pool = r & 2 ? dc_pools[2] : NULL;
        memset(Y, DC_SENTINEL, sizeof Y), memset(E, DC_SENTINEL, sizeof E);
        memset(kbuf, DC_SENTINEL, sizeof kbuf);
        in[1].data = bad; /* k(2) = 10 is past Y's 9 rows */
        CHECK(tc_run(p, &rd, &err) == TC_ERR_BOUNDS);
        CHECK(dc_sentinel_ok(Y, sizeof Y) && dc_sentinel_ok(E, sizeof E) &&
              dc_sentinel_ok(kbuf, sizeof kbuf));
        CHECK(out[1].data == NULL && out[1].rank == 2);
        in[1].data = good;
        CHECKF(tc_run(p, &rd, &err) == TC_OK, "%s", err.msg);
        ok = dc_sentinel_ok(kbuf, sizeof kbuf);
        for (i = 0; i < L; i++)
            for (j = 0; j < N; j++)
                ok &= E[i * N + j] == dc_xval(good[i] * 2 * N + j) * 2.0f + 1.0f;
        for (i = 0; !(r & 1) && i < M * N; i++)
            ok &= Y[i] == X[i] * 2.0f + 1.0f;
        if (r & 1) ok &= dc_sentinel_ok(Y, sizeof Y);
        CHECKF(ok, "late gather, run %d: wrong results or a discarded output written", r);
        CHECK(out[1].data == NULL);
    }
    tc_program_free(p);
}

/* ---- allocation failures ---- */

/* compile; a plan with discard into caller buffers; tc_run with library
   outputs and discards; a pool and a pooled run with discard. */
static tc_status dc_sequence(fa_state *f, const float *want, int *ok) {
    static float buf[4][DC_SM_M * DC_SM_N];
    static const unsigned char all_but_prob[4] = {1, 1, 1, 0}, only_e[4] = {0, 1, 0, 0};
    tc_allocator a = fa_allocator(f);
    tc_program *p;
    tc_plan *plan = NULL;
    tc_pool *pool = NULL;
    tc_tensor in, out[4];
    tc_run_desc rd;
    tc_error err;
    tc_status st;
    int i;
    p = dc_compile(DC_NAMED_SOFTMAX, &a, &err);
    if (!p) return err.code;
    dc_sm_tensors(&in, out, buf);
    memset(&rd, 0, sizeof rd);
    rd.inputs = &in, rd.n_inputs = 1, rd.outputs = out, rd.n_outputs = 4;
    rd.discard = all_but_prob;
    st = tc_plan_create(p, &rd, &plan, &err);
    if (st == TC_OK) st = tc_plan_run(plan, &rd, &err);
    *ok &= dc_sentinel_ok(buf[0], sizeof buf[0]) && dc_sentinel_ok(buf[1], sizeof buf[1]);
    if (st == TC_OK) *ok &= memcmp(buf[3], want, sizeof buf[3]) == 0;
    else *ok &= dc_sentinel_ok(buf[3], sizeof buf[3]);
    tc_plan_free(plan);
    if (st == TC_OK) {
        memset(out, 0, sizeof out);
        st = tc_run(p, &rd, &err);
        for (i = 0; i < 3; i++)
            *ok &= out[i].data == NULL && out[i].rank == 0;
        *ok &= st == TC_OK ? out[3].data && memcmp(out[3].data, want, sizeof buf[3]) == 0
                           : out[3].data == NULL;
        tc_tensor_free(p, &out[3]);
    }
    if (st == TC_OK) st = tc_pool_create(2, &a, &pool, &err);
    if (st == TC_OK) {
        memset(out, 0, sizeof out);
        rd.pool = pool, rd.discard = only_e;
        st = tc_run(p, &rd, &err);
        *ok &= out[1].data == NULL;
        if (st == TC_OK) *ok &= out[3].data && memcmp(out[3].data, want, sizeof buf[3]) == 0;
        for (i = 0; i < 4; i++)
            *ok &= st == TC_OK ? (i == 1 || out[i].data != NULL) : out[i].data == NULL;
        for (i = 0; i < 4; i++)
            tc_tensor_free(p, &out[i]);
    }
    tc_pool_free(pool);
    tc_program_free(p);
    return st;
}

static void dc_sweep(int sticky, const float *want) {
    int done = 0, steps = 0, bad_status = 0, leaks = 0, wrong = 0;
    long n;
    for (n = 1; n < 100000 && !done; n++) {
        fa_state f;
        int ok = 1;
        tc_status st;
        memset(&f, 0, sizeof f);
        f.fail_at = n;
        f.sticky = sticky;
        st = dc_sequence(&f, want, &ok);
        steps++;
        if (f.live != 0 && leaks++ < 5) fprintf(stderr, "N=%ld: %ld blocks leaked\n", n, f.live);
        if (!ok && wrong++ < 5) fprintf(stderr, "N=%ld: wrong result (%s)\n", n, tc_status_name(st));
        if (f.failed == 0) {
            done = 1;
            CHECKF(st == TC_OK, "sequence failed without an injected failure: %s",
                   tc_status_name(st));
        } else if (st != TC_ERR_OUT_OF_MEMORY && bad_status++ < 5) {
            fprintf(stderr, "N=%ld: %s, want TC_ERR_OUT_OF_MEMORY\n", n, tc_status_name(st));
        }
    }
    CHECKF(done && steps > 10, "never ran through (%d steps)", steps);
    CHECKF(bad_status == 0, "%d steps returned another status than out of memory", bad_status);
    CHECKF(leaks == 0, "%d steps leaked", leaks);
    CHECKF(wrong == 0, "%d steps gave wrong results or wrote discarded outputs", wrong);
}

static void test_alloc_failures(void) {
    static float ref[4][DC_SM_M * DC_SM_N];
    tc_program *p = dc_compile(DC_NAMED_SOFTMAX, NULL, NULL);
    tc_tensor in, out[4];
    tc_run_desc rd;
    tc_error err;
    if (!p) return;
    dc_sm_tensors(&in, out, ref);
    memset(&rd, 0, sizeof rd);
    rd.inputs = &in, rd.n_inputs = 1, rd.outputs = out, rd.n_outputs = 4;
    CHECK(tc_run(p, &rd, &err) == TC_OK);
    tc_program_free(p);
    dc_sweep(0, ref[3]);
    dc_sweep(1, ref[3]);
}

int main(void) {
    tc_error err;
    int i;
    for (i = 0; i < DC_SM_M * DC_SM_N; i++)
        dc_sm_x[i] = (float)((i * 37 % 101) - 50) / 12.5f;
    for (i = 0; i < DC_N_POOLS; i++)
        CHECKF(tc_pool_create(i + 1, NULL, &dc_pools[i], &err) == TC_OK, "pool: %s", err.msg);
    RUN(test_softmax);
    RUN(test_layernorm);
    RUN(test_temporaries);
    RUN(test_temporary_3d);
    RUN(test_discarded_read_later);
    RUN(test_plan_flags);
    RUN(test_untouched);
    RUN(test_late_gather);
    RUN(test_alloc_failures);
    for (i = 0; i < DC_N_POOLS; i++)
        tc_pool_free(dc_pools[i]);
    return th_report();
}
