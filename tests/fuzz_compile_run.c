/* fuzz_compile_run: libFuzzer target for tc_compile and tc_run.
   Input: byte 0 chooses how to run (below), byte 1 seeds the shapes and
   values, the rest is TC source (up to its first NUL). When the source
   compiles, the entry (or, by byte 0, every def) runs on tiny
   deterministic inputs: size variables 0..4 (zero sizes included), values
   small (gathers sometimes miss), 0-rank integer inputs 0..6 or -3. Every
   allocation goes through a counting allocator that refuses requests
   above 64 MiB; after each input no block may be live. Every failure must
   be a status in range with a message, and render with tc_error_format.
   A def whose iteration space is huge at these sizes (a constant
   `where i in 0:10^12`: real work, not a bug) is bound but not run.
     byte 0, bits 0-1: 0 tc_run, 1 tc_run on a 2-thread pool, 2 a plan
     (made once, run twice), 3 caller-allocated outputs (shapes from
     tc_infer_shapes) and random discard flags; bit 2: every def, by name;
     bit 3: some size variables up to 600 (several VM blocks). On a pool
     the run is repeated on one thread: outputs must match bit for bit.
   Built by `make fuzz` (clang -fsanitize=fuzzer,address,undefined, with
   tests/tc_impl.c); tests/t_fuzz_replay.c feeds it the committed corpus
   tests/fuzz/compile_run/ in the normal test run. */
#include "tc.h" /* the implementation: tests/tc_impl.c, linked */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_FAIL /* the replay driver counts failures instead */
#define FUZZ_FAIL(what, src)                                                                   \
    do {                                                                                       \
        fprintf(stderr, "fuzz_compile_run: %s\n%s\n", what, src);                              \
        abort();                                                                               \
    } while (0)
#endif

#define FCR_MAX_ALLOC ((size_t)64 << 20)
#define FCR_MAX_SRC 8192
#define FCR_MAX_POINTS ((int64_t)1 << 22) /* loop iterations per def, all statements */

typedef struct fcr_mem {
    long live;
} fcr_mem;
static void *fcr_alloc(size_t n, void *u) {
    void *p = n > FCR_MAX_ALLOC ? NULL : malloc(n);
    if (p) ((fcr_mem *)u)->live++;
    return p;
}
static void *fcr_realloc(void *p, size_t o, size_t n, void *u) {
    void *q = n > FCR_MAX_ALLOC ? NULL : realloc(p, n);
    (void)o;
    if (q && !p) ((fcr_mem *)u)->live++;
    return q;
}
static void fcr_free(void *p, void *u) {
    if (p) ((fcr_mem *)u)->live--;
    free(p);
}

typedef struct fcr_rng {
    uint64_t s;
} fcr_rng;
static uint32_t fcr_next(fcr_rng *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}
static int fcr_rand(fcr_rng *r, int n) { return n > 0 ? (int)(fcr_next(r) % (uint32_t)n) : 0; }

/* A status and its error agree; a failure has a message that renders. */
static void fcr_check_err(tc_status st, const tc_error *err, const char *src, const char *what) {
    char buf[1024];
    int n;
    if ((unsigned)st >= TC_STATUS_COUNT) FUZZ_FAIL("status out of range", src);
    if (st == TC_OK) return;
    if (err->code != st) FUZZ_FAIL(what, src);
    if (!err->msg[0]) FUZZ_FAIL("a failure without a message", src);
    n = tc_error_format(err, "fuzz.tc", src, buf, sizeof buf);
    if (n <= 0 || (n < (int)sizeof buf && n != (int)strlen(buf)) || strncmp(buf, "fuzz.tc", 7))
        FUZZ_FAIL("tc_error_format", src);
}

static int64_t fcr_numel(const tc_tensor *t) {
    int64_t n = 1;
    int k;
    for (k = 0; k < t->rank; k++) n *= t->shape[k];
    return n;
}

/* Inputs for def d: sizes from vars, constant extents as declared when
   small; values small. Returns 0 when an input would be too large. */
static int fcr_inputs(const tc_ir_def *d, tc_tensor *in, const int64_t *vars, fcr_rng *r) {
    int i, k;
    memset(in, 0, sizeof(tc_tensor) * (size_t)d->n_inputs);
    for (i = 0; i < d->n_inputs; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        size_t es = tc_dtype_size(t->dtype);
        int64_t n, j;
        in[i].dtype = t->dtype;
        in[i].rank = t->rank;
        for (k = 0; k < t->rank; k++) {
            const tc_sx *s = &d->sx[t->extent[k]];
            in[i].shape[k] = s->op == TC_SX_VAR ? vars[s->value % 16]
                             : s->op == TC_SX_CONST && s->value >= 0 && s->value <= 64 ? s->value
                                                                                       : 1;
        }
        n = fcr_numel(&in[i]);
        if (n > ((int64_t)1 << 20)) return 0;
        in[i].data = calloc((size_t)n + 1, es ? es : 1);
        if (!in[i].data) return 0;
        for (j = 0; j < n; j++) {
            unsigned char *p = (unsigned char *)in[i].data + j * (int64_t)es;
            int v = t->rank == 0 ? (fcr_rand(r, 12) == 0 ? -3 : fcr_rand(r, 7))
                                 : fcr_rand(r, 10) - 3;
            switch (t->dtype) {
            case TC_FLOAT32: {
                float f = (float)v * 0.75f;
                memcpy(p, &f, 4);
                break;
            }
            case TC_FLOAT64: {
                double f = (double)v * 0.75;
                memcpy(p, &f, 8);
                break;
            }
            case TC_FLOAT16: { /* small integers' float16 bits: 0x3C00 is 1.0 */
                static const uint16_t h[10] = {0xC200, 0xC000, 0xBC00, 0, 0x3C00,
                                               0x4000, 0x4200, 0x4400, 0x4500, 0x4600};
                memcpy(p, &h[v + 3 < 0 ? 0 : v + 3 > 9 ? 9 : v + 3], 2);
                break;
            }
            case TC_BOOL: *p = (unsigned char)(v & 1); break;
            default: { /* integers: little-endian two's complement, as wide as es */
                int64_t w = v;
                uint64_t u = (uint64_t)w;
                size_t b;
                for (b = 0; b < es; b++) p[b] = (unsigned char)(u >> (8 * b));
            }
            }
        }
    }
    return 1;
}

static void fcr_free_inputs(tc_tensor *in, int n) {
    int i;
    for (i = 0; i < n; i++) free(in[i].data);
}

/* Loop iterations of d at these inputs, or -1 when the sizes do not bind. */
static int64_t fcr_points(const tc_program *p, int def, const tc_ir_def *d, const tc_tensor *in,
                          const char *src) {
    int64_t *sx = (int64_t *)malloc(sizeof(int64_t) * (size_t)(d->n_sx + 1)), total = 0;
    tc_error err;
    tc_status st;
    int s, l;
    if (!sx) return -1;
    memset(&err, 0, sizeof err);
    st = tc_bind_sizes(p, def, in, d->n_inputs, sx, &err);
    fcr_check_err(st, &err, src, "tc_bind_sizes: inconsistent error");
    if (st != TC_OK) {
        free(sx);
        return -1;
    }
    for (s = 0; s < d->n_stmts; s++) {
        const tc_ir_stmt *t = &d->stmts[s];
        int64_t pts = 1;
        for (l = 0; l < t->n_loops; l++) {
            int64_t lo = sx[t->loops[l].lo], hi = sx[t->loops[l].hi], e;
            uint64_t ue = hi <= lo ? 0 : (uint64_t)hi - (uint64_t)lo;
            e = ue > (uint64_t)FCR_MAX_POINTS ? FCR_MAX_POINTS + 1 : (int64_t)ue;
            pts = pts > FCR_MAX_POINTS ? pts : pts * e;
            if (pts > FCR_MAX_POINTS) pts = FCR_MAX_POINTS + 1;
        }
        /* an init (`!`) touches the whole output too */
        total += pts;
        if (total > FCR_MAX_POINTS) break;
    }
    free(sx);
    return total;
}

static tc_pool *fcr_pool; /* one for the process: threads are slow to start */
static long fcr_compiled, fcr_runs, fcr_runs_ok; /* for the replay's report */

/* Outputs of two runs bit for bit (a run's result depends on nothing but
   its inputs: not the thread count). */
static int fcr_same(const tc_tensor *a, const tc_tensor *b, int n) {
    int i;
    for (i = 0; i < n; i++) {
        size_t bytes = (size_t)fcr_numel(&a[i]) * tc_dtype_size(a[i].dtype);
        if (a[i].dtype != b[i].dtype || a[i].rank != b[i].rank ||
            memcmp(a[i].shape, b[i].shape, sizeof a[i].shape) != 0)
            return 0;
        if (bytes && (!a[i].data || !b[i].data || memcmp(a[i].data, b[i].data, bytes) != 0))
            return 0;
    }
    return 1;
}

/* Output o run in place over input t (same dtype and shape; the caller's
   buffers, outputs zeroed but o, which starts as t's bytes): the status
   and every output as with separate buffers, the separate o starting as
   a copy of t (tc_run's in-place contract), on the pool when there is one. */
static void fcr_inplace(const tc_program *p, const tc_ir_def *d, const tc_tensor *in,
                        const tc_tensor *shapes, int o, int t, const char *src) {
    tc_tensor ins[32], sep[32], ip[32];
    tc_run_desc rd;
    tc_error err;
    tc_status s1, s2;
    size_t tb = (size_t)fcr_numel(&in[t]) * tc_dtype_size(in[t].dtype);
    int i, ok = 1;
    memcpy(ins, in, sizeof(tc_tensor) * (size_t)d->n_inputs);
    ins[t].data = malloc(tb + 1);
    if (!ins[t].data) return;
    memcpy(ins[t].data, in[t].data, tb);
    for (i = 0; i < d->n_outputs; i++) {
        size_t b = (size_t)fcr_numel(&shapes[i]) * tc_dtype_size(shapes[i].dtype);
        sep[i] = ip[i] = shapes[i];
        sep[i].data = calloc(b + 1, 1);
        ip[i].data = i == o ? ins[t].data : calloc(b + 1, 1);
        if (!sep[i].data || !ip[i].data) ok = 0;
    }
    if (ok) {
        memcpy(sep[o].data, in[t].data, tb);
        memset(&rd, 0, sizeof rd);
        rd.entry = d->name;
        rd.inputs = in, rd.n_inputs = d->n_inputs, rd.n_outputs = d->n_outputs;
        rd.pool = fcr_pool;
        rd.outputs = sep;
        s1 = tc_run(p, &rd, &err);
        fcr_check_err(s1, &err, src, "tc_run: inconsistent error");
        rd.inputs = ins, rd.outputs = ip;
        s2 = tc_run(p, &rd, &err);
        fcr_check_err(s2, &err, src, "tc_run in place: inconsistent error");
        if (s1 != s2) FUZZ_FAIL("a run in place and one into separate buffers: statuses", src);
        if (s1 == TC_OK && !fcr_same(sep, ip, d->n_outputs))
            FUZZ_FAIL("a run in place and one into separate buffers: outputs", src);
    }
    for (i = 0; i < d->n_outputs; i++) {
        free(sep[i].data);
        if (i != o) free(ip[i].data);
    }
    free(ins[t].data);
}

static void fcr_run_def(const tc_program *p, int def, int mode, int big, fcr_rng *r,
                        const char *src) {
    const tc_ir_def *d = tc_program_ir(p, def);
    tc_tensor in[32], out[32];
    unsigned char discard[32];
    int64_t vars[16];
    tc_run_desc rd;
    tc_error err;
    tc_status st;
    int i;
    char buf[512];
    if (!d) FUZZ_FAIL("tc_program_ir: NULL for a def in range", src);
    if (d->n_inputs > 32 || d->n_outputs > 32) return;
    tc_disasm(p, def, buf, sizeof buf); /* renderings never fail, truncate quietly */
    tc_ir_format_loops(d, buf, sizeof buf);
    for (i = 0; i < 16; i++) vars[i] = fcr_rand(r, 6) == 0 ? 0 : 1 + fcr_rand(r, 4);
    for (i = 0; big && i < 16; i++) /* several VM blocks along some dimensions */
        vars[i] = i % 2 ? 1 + fcr_rand(r, 8) : 1 + fcr_rand(r, 600);
    if (!fcr_inputs(d, in, vars, r)) {
        fcr_free_inputs(in, d->n_inputs);
        return;
    }
    memset(out, 0, sizeof out);
    memset(&rd, 0, sizeof rd);
    rd.entry = d->name;
    rd.inputs = in, rd.n_inputs = d->n_inputs, rd.outputs = out, rd.n_outputs = d->n_outputs;
    memset(&err, 0, sizeof err);
    st = tc_infer_shapes(p, d->name, in, d->n_inputs, out, d->n_outputs, &err);
    fcr_check_err(st, &err, src, "tc_infer_shapes: inconsistent error");
    {
        int64_t pts = fcr_points(p, def, d, in, src);
        if (pts > FCR_MAX_POINTS) {
            fcr_free_inputs(in, d->n_inputs);
            return;
        }
    }
    if (mode == 3 && st == TC_OK) { /* the caller's buffers, some outputs discarded */
        for (i = 0; i < d->n_outputs; i++) {
            int64_t n = fcr_numel(&out[i]);
            discard[i] = (unsigned char)(fcr_rand(r, 3) == 0);
            out[i].data = n <= ((int64_t)1 << 20)
                              ? calloc((size_t)n + 1, tc_dtype_size(out[i].dtype) + 1)
                              : NULL;
            if (!out[i].data) discard[i] = 1;
        }
        rd.discard = discard;
    } else {
        memset(out, 0, sizeof out);
    }
    if (mode == 1) {
        if (!fcr_pool && tc_pool_create(2, NULL, &fcr_pool, &err) != TC_OK) fcr_pool = NULL;
        rd.pool = fcr_pool;
    }
    memset(&err, 0, sizeof err);
    if (mode == 2) {
        tc_plan *plan = NULL;
        st = tc_plan_create(p, &rd, &plan, &err);
        fcr_check_err(st, &err, src, "tc_plan_create: inconsistent error");
        if ((st == TC_OK) != (plan != NULL)) FUZZ_FAIL("tc_plan_create: plan and status", src);
        for (i = 0; plan && i < 2; i++) {
            int k;
            memset(&err, 0, sizeof err);
            st = tc_plan_run(plan, &rd, &err);
            fcr_check_err(st, &err, src, "tc_plan_run: inconsistent error");
            for (k = 0; k < d->n_outputs; k++) tc_tensor_free(p, &out[k]);
            memset(out, 0, sizeof out);
        }
        tc_plan_free(plan);
    } else {
        st = tc_run(p, &rd, &err);
        fcr_check_err(st, &err, src, "tc_run: inconsistent error");
        if (mode == 1 && rd.pool) { /* the same run on the calling thread alone */
            tc_tensor one[32];
            tc_status st1;
            memset(one, 0, sizeof one);
            rd.outputs = one;
            rd.pool = NULL;
            st1 = tc_run(p, &rd, &err);
            fcr_check_err(st1, &err, src, "tc_run: inconsistent error");
            if (st1 != st) FUZZ_FAIL("a pool's run and a one-thread run: different statuses", src);
            if (st == TC_OK && !fcr_same(out, one, d->n_outputs))
                FUZZ_FAIL("a pool's run and a one-thread run: different outputs", src);
            for (i = 0; i < d->n_outputs; i++) tc_tensor_free(p, &one[i]);
        }
    }
    if (mode == 3 && st == TC_OK) { /* an output over an input of its dtype and shape */
        int o = fcr_rand(r, d->n_outputs), t;
        for (t = 0; t < d->n_inputs; t++)
            if (in[t].dtype == out[o].dtype && in[t].rank == out[o].rank && !in[t].strides &&
                memcmp(in[t].shape, out[o].shape, sizeof(int64_t) * (size_t)in[t].rank) == 0 &&
                fcr_numel(&in[t]) <= ((int64_t)1 << 20)) {
                fcr_inplace(p, d, in, out, o, t, src);
                break;
            }
    }
    fcr_runs++;
    fcr_runs_ok += st == TC_OK;
    for (i = 0; i < d->n_outputs; i++) {
        if (mode == 3 && rd.discard) free(out[i].data);
        else tc_tensor_free(p, &out[i]);
    }
    fcr_free_inputs(in, d->n_inputs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *src;
    size_t n;
    int mode = size > 0 ? data[0] & 3 : 0, all = size > 0 && (data[0] & 4);
    int big = size > 0 && (data[0] & 8);
    fcr_rng rng;
    fcr_mem mem = {0};
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    tc_status st;
    rng.s = (uint64_t)(size > 1 ? data[1] : 0) * 0x100000001B3ull + (size > 0 ? data[0] >> 4 : 0);
    n = size > 2 ? size - 2 : 0;
    if (n > FCR_MAX_SRC) n = FCR_MAX_SRC;
    src = (char *)malloc(n + 1);
    if (!src) return 0;
    if (n) memcpy(src, data + 2, n);
    src[n] = 0;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    cd.allocator.alloc_fn = fcr_alloc;
    cd.allocator.realloc_fn = fcr_realloc;
    cd.allocator.free_fn = fcr_free;
    cd.allocator.user = &mem;
    memset(&err, 0, sizeof err);
    st = tc_compile(&cd, &p, &err);
    fcr_check_err(st, &err, src, "tc_compile: inconsistent error");
    if ((st == TC_OK) != (p != NULL)) FUZZ_FAIL("tc_compile: program and status", src);
    if (p) {
        int w, nd = tc_program_num_defs(p), def;
        for (w = 0; w < tc_program_num_warnings(p); w++) {
            const tc_error *we = tc_program_warning(p, w);
            char buf[512];
            if (!we || tc_error_format(we, "fuzz.tc", tc_program_source(p), buf, sizeof buf) <= 0)
                FUZZ_FAIL("a warning that does not render", src);
        }
        if (all) {
            for (def = 0; def < nd && def < 8; def++)
                fcr_run_def(p, def, mode, big, &rng, src);
        } else {
            def = tc_program_find(p, NULL);
            if (def < 0 || def >= nd) FUZZ_FAIL("tc_program_find(NULL): no default entry", src);
            fcr_run_def(p, def, mode, big, &rng, src);
        }
        tc_program_free(p);
        fcr_compiled++;
    }
    if (mem.live != 0) FUZZ_FAIL("blocks leaked", src);
    free(src);
    return 0;
}
