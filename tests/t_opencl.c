/* t_opencl: the OpenCL back end (tc_opencl.h).

   Emission (always): golden sources of matmul, conv2d and softmax
   (tests/golden/NAME.cl; TC_UPDATE_GOLDEN=1 rewrites them), baked sizes, names
   OpenCL reserves, float64 refused when not allowed, malformed IR refused,
   allocation failures.

   Running (with -DTC_OPENCL_RUNNER and an OpenCL platform, PoCL in CI):
   every kernel family of tests/kernel_cases.h and every builtin run through
   tc_ocl_run (sizes baked in or as kernel arguments), and must match
   the VM (tc_run) on the same inputs: integers and element-wise float work
   exactly, float reductions within kernel_cases.h's relative tolerance
   (1e-4 float32, 1e-12 float64), builtins within a few ulp. Then the
   error paths: a build failure carries its log, float64 on a device without
   it, a gather out of range (TC_ERR_BOUNDS, caller outputs untouched),
   a buffer larger than the device allows, a missing device or platform
   ("no OpenCL platform", checked in a child process whose ICD loader sees
   no vendors), the VM's argument checks, the program cache and allocation
   failure injection. Without a platform the running tests print
   "skipped: no OpenCL platform" and count as skipped, not passed. */
#define _DEFAULT_SOURCE
#define TC_IMPLEMENTATION
#include "tc.h"
#define TC_OPENCL_IMPLEMENTATION
#include "tc_opencl.h"
#include "harness.h"
#include "ref_eval.h"
#include "kernel_cases.h"
#include "fail_alloc.h"
#if defined(TC_OPENCL_RUNNER)
#include <sys/wait.h>
#include <unistd.h>
#endif

#define OT_MAX_IO 128

/* PoCL and its LLVM keep allocations for the life of the process (caches,
   pass registries): LeakSanitizer reports them at exit. They are not ours;
   this hook (read by LSan at start-up, unused otherwise) suppresses leaks
   whose stack passes through those libraries, for this test only. The same
   list is tests/lsan_opencl.supp, for LSAN_OPTIONS=suppressions=... */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
    return "leak:libpocl.so\nleak:libLLVM\nleak:libOpenCL.so\nleak:libclang\n";
}

static int g_skipped;

static tc_program *ot_compile(const char *src) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    tc_status st;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    st = tc_compile(&cd, &p, &err);
    CHECKF(st == TC_OK && p, "compile failed: %s: %s\n%s", tc_status_name(st), err.msg, src);
    return st == TC_OK ? p : NULL;
}
static const tc_ir_def *ot_ir(const tc_program *p) {
    return tc_program_ir(p, tc_program_find(p, NULL));
}

/* ---- emission ------------------------------------------------------------ */

static char *ot_read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    char *s;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = (char *)malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

/* The symbolic source of a kernel equals tests/golden/<name>.cl. */
static void ot_golden(const char *name, const char *src) {
    tc_program *p = ot_compile(src);
    char path[256], *text = NULL, *want;
    tc_error err;
    tc_status st;
    const char *update = getenv("TC_UPDATE_GOLDEN");
    if (!p) return;
    snprintf(path, sizeof path, "tests/golden/%s.cl", name);
    st = tc_ocl_emit(ot_ir(p), NULL, 1, NULL, &text, &err);
    CHECKF(st == TC_OK && text, "%s: emit: %s", name, err.msg);
    if (st == TC_OK && update && strcmp(update, "1") == 0) {
        FILE *f = fopen(path, "wb");
        CHECKF(f != NULL, "cannot write %s", path);
        if (f) {
            fputs(text, f);
            fclose(f);
            printf("rewrote %s\n", path);
        }
    } else if (st == TC_OK) {
        want = ot_read_file(path);
        CHECKF(want != NULL, "cannot read %s (run from the repository root; "
                             "TC_UPDATE_GOLDEN=1 writes it)", path);
        CHECKF(want && strcmp(want, text) == 0,
               "%s: the emitted source differs from %s (codegen drift? TC_UPDATE_GOLDEN=1 "
               "rewrites it)\n--- emitted ---\n%s", name, path, text);
        free(want);
    }
    tc_ocl_free_source(text, NULL);
    tc_program_free(p);
}

static void test_golden(void) {
    ot_golden("mm", KC_MM);
    ot_golden("conv2d", KC_CONV);
    ot_golden("softmax", KC_SOFTMAX);
}

/* Emits p's def (NULL sizes: symbolic); the caller frees. */
static char *ot_emit(const tc_program *p, const int64_t *sx, int fp64, tc_status *st,
                     tc_error *err) {
    char *text = NULL;
    *st = tc_ocl_emit(ot_ir(p), sx, fp64, NULL, &text, err);
    return text;
}

static void test_emit_basics(void) {
    tc_program *p = ot_compile(KC_MM);
    tc_error err;
    tc_status st;
    char *text = NULL;
    int64_t sx[64];
    tc_tensor in[2];
    if (!p) return;
    /* argument checks */
    CHECK(tc_ocl_emit(ot_ir(p), NULL, 1, NULL, NULL, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_ocl_emit(NULL, NULL, 1, NULL, &text, &err) == TC_ERR_INVALID_ARGUMENT && !text);
    CHECK(tc_ocl_emit(NULL, NULL, 1, NULL, &text, NULL) == TC_ERR_INVALID_ARGUMENT);
    tc_ocl_free_source(NULL, NULL);
    /* symbolic: size arguments, the statement as a comment, FP_CONTRACT off */
    text = ot_emit(p, NULL, 0, &st, &err);
    CHECK(st == TC_OK && text);
    CHECK(text && strstr(text, "/* C(i,j) +=! A(i,k) * B(k,j) */"));
    CHECK(text && strstr(text, "__kernel void mm_C_s0("));
    CHECK(text && strstr(text, "const long K"));
    CHECK(text && strstr(text, "#pragma OPENCL FP_CONTRACT OFF"));
    CHECK(text && !strstr(text, "cl_khr_fp64"));
    tc_ocl_free_source(text, NULL);
    /* baked: the sizes become constants */
    memset(in, 0, sizeof in);
    in[0].dtype = in[1].dtype = TC_FLOAT32;
    in[0].rank = in[1].rank = 2;
    in[0].shape[0] = 3, in[0].shape[1] = 5, in[1].shape[0] = 5, in[1].shape[1] = 7;
    in[0].data = in[1].data = sx; /* not read */
    CHECK(ot_ir(p)->n_sx <= 64);
    st = tc_bind_sizes(p, tc_program_find(p, NULL), in, 2, sx, &err);
    CHECKF(st == TC_OK, "bind: %s", err.msg);
    text = ot_emit(p, sx, 0, &st, &err);
    CHECK(st == TC_OK && text);
    CHECK(text && strstr(text, "k < 5; k++") && strstr(text, "if (tc_r >= 21L) return;"));
    CHECK(text && !strstr(text, "const long K") && strstr(text, "M = 3, K = 5, N = 7"));
    tc_ocl_free_source(text, NULL);
    tc_program_free(p);
}

/* float64 is refused when the device lacks it, naming what needs it. */
static void test_emit_fp64(void) {
    static const char *const srcs[] = {
        "def d(double(N) x) -> (y) { y(i) = x(i) * 2.0 }",
        "def d2(float(N) x) -> (y) { y(i) = float(double(x(i)) / 3.0) }"};
    static const char *const want[] = {"is float64, but", "line 1 computes in float64"};
    int i;
    for (i = 0; i < 2; i++) {
        tc_program *p = ot_compile(srcs[i]);
        tc_error err;
        tc_status st;
        char *text;
        if (!p) continue;
        text = ot_emit(p, NULL, 0, &st, &err);
        CHECKF(st == TC_ERR_UNSUPPORTED && !text && strstr(err.msg, want[i]) &&
                   strstr(err.msg, "cl_khr_fp64"),
               "%s: %s", tc_status_name(st), err.msg);
        text = ot_emit(p, NULL, 1, &st, &err);
        CHECK(st == TC_OK && text && strstr(text, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"));
        tc_ocl_free_source(text, NULL);
        tc_program_free(p);
    }
}

/* Names OpenCL C reserves (keywords, types, macros) or that look like the
   emitter's own are renamed tc_u_<name>; others stay as written. */
#define OT_NAMES_SRC                                                                               \
    "def kernel(float(global) local, float(global) M_PI, int32(global) tc_n) -> (float4, y) {\n"   \
    "    float4(i) = local(i) + M_PI(i) * float(tc_n(i))\n"                                        \
    "    y(i) = float4(i) * 2.0\n}\n"
static void test_emit_names(void) {
    tc_program *p = ot_compile(OT_NAMES_SRC);
    tc_error err;
    tc_status st;
    char *text;
    if (!p) return;
    text = ot_emit(p, NULL, 1, &st, &err);
    CHECKF(st == TC_OK && text, "%s", err.msg);
    CHECK(text && strstr(text, "__global float *restrict tc_u_float4"));
    CHECK(text && strstr(text, "tc_u_local") && strstr(text, "tc_u_M_PI") &&
          strstr(text, "tc_u_tc_n") && strstr(text, "const long tc_u_global"));
    CHECK(text && strstr(text, "__global float *restrict y,"));
    CHECK(text && strstr(text, "__kernel void kernel_float4_s0("));
    tc_ocl_free_source(text, NULL);
    tc_program_free(p);
}

/* Malformed hand-built IR is refused, never followed out of range. */
static void test_emit_malformed(void) {
    tc_ir_tensor t[1];
    tc_sx sx[2];
    tc_ir_loop loop;
    tc_ir_node nodes[2];
    tc_ir_stmt st;
    tc_ir_def d;
    const char *names[1] = {"N"};
    char *text = NULL;
    tc_error err;
    memset(t, 0, sizeof t);
    memset(sx, 0, sizeof sx);
    memset(&loop, 0, sizeof loop);
    memset(nodes, 0, sizeof nodes);
    memset(&st, 0, sizeof st);
    memset(&d, 0, sizeof d);
    sx[0].op = TC_SX_CONST;
    sx[1].op = TC_SX_VAR;
    t[0].name = "y";
    t[0].dtype = TC_FLOAT32;
    t[0].rank = 1;
    t[0].kind = TC_TENSOR_OUTPUT;
    t[0].extent[0] = 1;
    loop.name = "i";
    loop.lo = 0;
    loop.hi = 1;
    nodes[0].op = TC_IR_CONST;
    nodes[0].dtype = TC_FLOAT32;
    nodes[0].fval = 1.5;
    nodes[1].op = TC_IR_NEG;
    nodes[1].dtype = TC_FLOAT32;
    nodes[1].nargs = 1;
    nodes[1].args[0] = 0;
    st.tensor = 0;
    st.n_loops = 1;
    st.loops = &loop;
    st.n_nodes = 2;
    st.nodes = nodes;
    st.value = 1;
    st.text = "y(i) = -1.5";
    d.name = "hand";
    d.n_outputs = d.n_tensors = 1;
    d.tensors = t;
    d.n_sizevars = 1;
    d.sizevars = names;
    d.n_sx = 2;
    d.sx = sx;
    d.n_stmts = 1;
    d.stmts = &st;
    CHECK(tc_ocl_emit(&d, NULL, 0, NULL, &text, &err) == TC_OK && text &&
          strstr(text, "y[i] = (-1.5f);"));
    tc_ocl_free_source(text, NULL);
    text = NULL;
    nodes[1].args[0] = 1; /* operand not before its user */
    CHECK(tc_ocl_emit(&d, NULL, 0, NULL, &text, &err) == TC_ERR_INVALID_ARGUMENT && !text);
    nodes[1].args[0] = 0;
    loop.hi = 7; /* size expression out of range */
    CHECK(tc_ocl_emit(&d, NULL, 0, NULL, &text, &err) == TC_ERR_INVALID_ARGUMENT && !text);
    loop.hi = 1;
    nodes[1].op = TC_IR_CALL;
    nodes[1].builtin = TC_BUILTIN_ATAN2; /* wrong arity */
    CHECK(tc_ocl_emit(&d, NULL, 0, NULL, &text, &err) == TC_ERR_INVALID_ARGUMENT && !text);
}

static void test_emit_oom(void) {
    tc_program *p = ot_compile(KC_SOFTMAX "def g(float(N) A, int32(M) I) -> (O) {\n"
                                          "    O(i) = I(i) > 0 ? A(I(i)) + A(I(i) - 1) : 0.0\n}\n");
    long n;
    int ok = 1, steps = 0;
    if (!p) return;
    for (n = 1; n < 100000; n++) {
        fa_state f;
        tc_allocator a;
        tc_error err;
        char *text = NULL;
        tc_status st;
        memset(&f, 0, sizeof f);
        f.fail_at = n;
        a = fa_allocator(&f);
        a.realloc_fn = NULL; /* exercise the alloc+free emulation of realloc */
        st = tc_ocl_emit(ot_ir(p), NULL, 1, &a, &text, &err);
        tc_ocl_free_source(text, &a);
        if (f.live != 0 || (st != TC_OK && (st != TC_ERR_OUT_OF_MEMORY || text))) ok = 0;
        steps++;
        if (st == TC_OK) break;
    }
    CHECKF(ok && steps > 3, "emission under failing allocations (%d steps)", steps);
    tc_program_free(p);
}

/* ---- running -------------------------------------------------------------- */
#if defined(TC_OPENCL_RUNNER)
static tc_ocl_runner *g_baked, *g_sym; /* sizes baked in / sizes as arguments */

static tc_status ot_ocl(tc_ocl_runner *r, const tc_program *p, const tc_tensor *in, int n_in,
                        tc_tensor *out, int n_out, tc_error *err) {
    tc_run_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.inputs = in;
    rd.n_inputs = n_in;
    rd.outputs = out;
    rd.n_outputs = n_out;
    return tc_ocl_run(r, p, &rd, err);
}

/* Caller buffers: copies of pre, or (pre NULL) outputs the library allocates. */
static void ot_outputs(const tc_tensor *pre, tc_tensor *out, int n) {
    int i;
    memset(out, 0, sizeof(tc_tensor) * (size_t)n);
    for (i = 0; pre && i < n; i++) out[i] = kc_copy(&pre[i]);
}

/* Runs case k on the VM and on the runners (mask: 1 sizes baked in, 2 sizes
   as arguments); outputs must agree. */
static void ot_run_case(const kc_case *k, int mask) {
    tc_program *p = ot_compile(k->src);
    const tc_ir_def *d;
    tc_tensor in[OT_MAX_IO], want[OT_MAX_IO], got[OT_MAX_IO], pre[OT_MAX_IO];
    tc_error err;
    tc_status st;
    char why[512];
    kc_rng rng;
    int n_in, n_out, i, r, have_pre = 0;
    if (!p) return;
    d = ot_ir(p);
    n_in = d->n_inputs;
    n_out = d->n_outputs;
    CHECK(n_in <= OT_MAX_IO && n_out <= OT_MAX_IO);
    rng.s = 777 + (uint64_t)strlen(k->src) * 13 + (uint64_t)strlen(k->sizes);
    if (!kc_make_inputs(d, k->sizes, k->ranges, &rng, in, why, sizeof why)) {
        CHECKF(0, "%s: %s", k->family, why);
        tc_program_free(p);
        return;
    }
    if (k->accumulate) { /* prefilled caller buffers: every run adds to the same contents */
        memset(pre, 0, sizeof pre);
        st = tc_infer_shapes(p, NULL, in, n_in, pre, n_out, &err);
        CHECKF(st == TC_OK, "%s: infer: %s", k->family, err.msg);
        for (i = 0; st == TC_OK && i < n_out; i++) {
            pre[i].data = calloc((size_t)ref_numel(&pre[i]) + 1, tc_dtype_size(pre[i].dtype));
            kc_fill(&pre[i], 0.5, 1.5, 0, &rng);
        }
        have_pre = st == TC_OK;
    }
    ot_outputs(have_pre ? pre : NULL, want, n_out);
    st = kc_vm(p, in, n_in, want, n_out, NULL, &err);
    CHECKF(st == TC_OK, "%s (%s): tc_run: %s", k->family, k->sizes, err.msg);
    for (r = 0; st == TC_OK && r < 2; r++) {
        tc_ocl_runner *R = r ? g_sym : g_baked;
        tc_status so;
        if (!(mask & (1 << r))) continue;
        ot_outputs(have_pre ? pre : NULL, got, n_out);
        so = ot_ocl(R, p, in, n_in, got, n_out, &err);
        CHECKF(so == TC_OK, "%s (%s, %s): tc_ocl_run: %s: %s", k->family, k->sizes,
               r ? "symbolic" : "baked", tc_status_name(so), err.msg);
        for (i = 0; so == TC_OK && i < n_out; i++) {
            int ok = kc_compare(&got[i], &want[i], k->tol, why, sizeof why);
            CHECKF(ok, "%s (%s, %s sizes): output %s: %s", k->family, k->sizes,
                   r ? "symbolic" : "baked", d->tensors[d->n_inputs + i].name, why);
        }
        for (i = 0; i < n_out; i++) {
            if (have_pre) free(got[i].data);
            else tc_ocl_tensor_free(R, &got[i]);
        }
    }
    for (i = 0; i < n_out; i++) {
        if (have_pre) free(want[i].data);
        else tc_tensor_free(p, &want[i]);
    }
    if (have_pre) kc_free_tensors(pre, n_out);
    kc_free_tensors(in, n_in);
    tc_program_free(p);
}

/* Each family runs with sizes baked in or as arguments, alternately (every
   OpenCL build costs PoCL a fraction of a second; both forms are covered
   across the families, and test_ocl_cases runs both on every case). */
static void test_families(void) {
    int i;
    for (i = 0; i < KC_N_CASES; i++) {
        th_current = kc_cases[i].family;
        ot_run_case(&kc_cases[i], 1 << (i & 1));
    }
    th_current = "families";
}

/* Kernels aimed at the emitter's own choices. */
static const kc_case ot_cases[] = {
    /* SELECT: the read in the branch not taken never happens */
    {"pad-select",
     "def pad(float(N) I) -> (O) { O(i) = (i >= 2 && i < N + 2) ? I(i - 2) : -1.0 where i in "
     "0:N+4 }",
     "N=37", 0, KC_EXACT, 0},
    {"pad2d-select",
     "def pad2(float(H,W) I) -> (O) {\n"
     "    O(h,w) = (h >= 1 && h < H + 1 && w >= 1 && w < W + 1) ? I(h - 1, w - 1) * 2.0 : 0.0\n"
     "        where h in 0:H+2, w in 0:W+2\n}\n",
     "H=6 W=9", 0, KC_EXACT, 0},
    {"padded-conv",
     "def pconv(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
     "    Out(n,o,h,w) +=! (h + kh >= 1 && h + kh < H + 1 && w + kw >= 1 && w + kw < W + 1)\n"
     "        ? I(n, c, h + kh - 1, w + kw - 1) * W1(o,c,kh,kw) : 0.0\n"
     "        where n in 0:N, o in 0:O, c in 0:C, h in 0:H, w in 0:W, kh in 0:KH, kw in 0:KW\n}\n",
     "N=2 C=3 H=7 W=6 O=4 KH=3 KW=3", 0, KC_REDUCE, 0},
    /* a gather guarded by a select: out-of-range indices are never read */
    {"guarded-gather",
     "def gg(float(N) A, int32(M) I) -> (O) { O(i) = (I(i) >= 0 && I(i) < N) ? A(I(i)) : 0.0 }",
     "N=10 M=200", "I=-5:15", KC_EXACT, 0},
    /* nested selects whose branches share a node */
    {"select-shared",
     "def ss(float(N) A, float(N) B) -> (O) {\n"
     "    O(i) = A(i) > 0.0 ? (B(i) > 0.0 ? A(i) * B(i) + A(i) : A(i) - B(i)) : B(i) * B(i)\n}\n",
     "N=300", 0, KC_EXACT, 0},
    /* 2-D gather with int64 indices, mixed with an affine dimension */
    {"gather-2d",
     "def g2(float(V,D) T, int64(L) R) -> (E) { E(i,j) = T(R(i), j) * T(R(i), D - 1 - j) }",
     "V=12 D=5 L=40", "R=0:11", KC_EXACT, 0},
    /* gathered index arithmetic in int8 */
    {"gather-int8", "def g8(float(N) A, int8(M) I) -> (O) { O(i) = A(int32(I(i)) % N) }",
     "N=9 M=50", "I=-100:100", KC_EXACT, 0},
    /* `!` on a statement whose loops do not cover the tensor: init kernel */
    {"init-partial",
     "def ip(float(N) x) -> (y, z) {\n    y(i) = x(i)\n    z(i) max=! y(i) + 1.0 where i in "
     "2:N\n}\n",
     "N=20", 0, KC_EXACT, 0},
    {"init-partial-acc", "def ipa(float(N) x) -> (y) { y(i) +=! x(i + 1) where i in 1:N-1 }",
     "N=20", 0, KC_EXACT, 1},
    /* where bounds with comparisons and ?: (size expressions: a kernel argument) */
    {"select-bound",
     "def sb(float(N) x) -> (y) { y(i) = x(i) * 2.0 where i in (N > 8 && !(N == 9) ? 2 : 0):"
     "(N >= 30 ? N - 3 : N) }",
     "N=37", 0, KC_EXACT, 0},
    /* a temporary, and an output written by two statements */
    {"temporaries",
     "def tmp(float(M,N) X) -> (Y) {\n    T(i,j) = X(i,j) * X(i,j)\n    Y(i) +=! T(i,j)\n"
     "    Y(i) += 1.0\n}\n",
     "M=8 N=33", 0, KC_REDUCE, 0},
    /* float16 accumulation into caller buffers, int64 wrap, uint64 floor */
    {"half-acc", "def ha(float16(M,N) X) -> (float16(M) s) { s(i) += X(i,j) }", "M=5 N=9", 0,
     KC_REDUCE, 1},
    {"wrap-int64",
     "def w64(int64(N) a, int64(N) b) -> (c, d) { c(i) = a(i) * b(i) - a(i)\n d(i) = -a(i) / b(i) "
     "}",
     "N=300", "a=* b=*", KC_EXACT, 0},
    /* an integer reduction whose value is a ?: (the combine wraps it: it keeps
       its parentheses), and && guarding a shifted read */
    {"reduce-select-int",
     "def rs(float(N) B) -> (Y, Z, G) { Y(i) +=! (B(i) > 0.0 || k >= 0) ? 1 : 0 where k in 0:2\n"
     " Z(i) +=! (k > 0) ? int32(B(i)) : 2 where k in 0:2\n"
     " G(i) = i > 0 && B(i - 1) > 0.0 ? 1 : 0 where i in 0:N }",
     "N=300", "B=-3:3", KC_EXACT, 0},
    /* min/max of a ?: of narrow integers: C promotes the ?: to int, and
       max(int, uchar) is ambiguous in OpenCL C (the kernel did not build) */
    {"minmax-select-narrow",
     "def mn(uint8(N) a, int8(N) b, uint16(N) c, int16(N) d) -> (w, x, y, z) {\n"
     " w(i) = max(a(i) > 1 ? a(i) : c(i) > 5 ? a(i) : 7, a(i))\n"
     " x(i) = min(b(i) < 0 ? b(i) : -b(i), b(i))\n"
     " y(i) = max(c(i), d(i) > 0 ? c(i) : 3)\n"
     " z(i) = min(d(i) > 0 ? d(i) : -d(i), d(i)) }",
     "N=300", "a=* b=* c=* d=*", KC_EXACT, 0},
    {"divmod-uint64",
     "def du(uint64(N) a, uint64(N) b) -> (c, d) { c(i) = a(i) / b(i)\n d(i) = a(i) % b(i) }",
     "N=300", "a=* b=0:3", KC_EXACT, 0},
    {"divmod-int16-edge",
     "def di(int16(N) a, int16(N) b) -> (c, d) { c(i) = a(i) / b(i)\n d(i) = a(i) % b(i) }",
     "N=300", "a=-32768:-32760 b=-2:1", KC_EXACT, 0},
    /* saturating casts with NaN and out-of-range values */
    {"cast-saturate",
     "def cs(float(N) x) -> (a, b, c, d) {\n    a(i) = int8(x(i) * 100.0)\n"
     "    b(i) = uint16(x(i) * 1e5)\n    c(i) = int64(x(i) * 1e19)\n    d(i) = uint8(x(i) / "
     "0.0)\n}\n",
     "N=200", "x=-3:3", KC_EXACT, 0},
    /* every float min/max choice on ties and NaN, and fmin/fmax */
    {"minmax-nan",
     "def mm0(float(N) a, float(N) b) -> (c, d, e, f, g) {\n"
     "    c(i) = min(a(i) / a(i), b(i))\n    d(i) = max(b(i), a(i) / a(i))\n"
     "    e(i) = fmin(a(i) * 0.0, -(b(i) * 0.0))\n    f(i) = fmax(-(a(i) * 0.0), b(i) * 0.0)\n"
     "    g(i) min=! a(i) / a(i) where i in 0:N\n}\n",
     "N=64", "a=-2:2", KC_EXACT, 0},
    /* a larger elementwise chain: exercises locals and precedence */
    {"expression",
     "def ex(float(N) a, int32(N) k) -> (y) {\n"
     "    y(i) = (a(i) - 1.0) * (a(i) + 2.0) / (1.0 + a(i) * a(i)) - float(k(i) / 3 - k(i) % 3) "
     "* 0.25\n}\n",
     "N=500", "k=-50:50", KC_EXACT, 0},
    /* a rank-5 output (more dims than OpenCL's 3 work-item dimensions) */
    {"rank5",
     "def r5(float(A,B,C,D,E) X) -> (Y) { Y(a,b,c,d,e) = X(a,b,c,d,e) * float(a + b * 2 - c + d - "
     "e) }",
     "A=2 B=3 C=2 D=4 E=3", 0, KC_EXACT, 0},
    /* OpenCL-reserved names */
    {"names", OT_NAMES_SRC, "global=40", "tc_n=-3:3", KC_EXACT, 0},
};

/* Statements that read the tensor they write at another element, or while
   reducing, have no order-independent meaning: the front end rejects them
   (TC_ERR_UNSUPPORTED), so no back end has to pick an order. */
static const char *const ot_self_reads[] = {
    "def sr(float(N) x) -> (y) {\n    y(i) = x(i)\n    y(i) += y(i - 1) * 0.5 where i in 1:N\n}\n",
    "def so(float(M,N) x) -> (y) {\n    y(i) = 1.0 where i in 0:M\n"
    "    y(i) += y(i) * x(i,j) where j in 0:N\n}\n",
    "def soi(float(M,N) x) -> (y) {\n    y(i) = 2.0 where i in 0:M\n"
    "    y(i) +=! y(i) * 0.5 + x(i,j)\n}\n",
};

static void ot_check_self_read(const char *src) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    CHECKF(tc_compile(&cd, &p, &err) == TC_ERR_UNSUPPORTED && err.line == 3,
           "self-read accepted or wrong error: %s", err.msg);
    tc_program_free(p);
}

static void test_ocl_cases(void) {
    int i;
    for (i = 0; i < (int)(sizeof ot_cases / sizeof ot_cases[0]); i++) {
        th_current = ot_cases[i].family;
        ot_run_case(&ot_cases[i], 3);
    }
    th_current = "self-read";
    for (i = 0; i < (int)(sizeof ot_self_reads / sizeof ot_self_reads[0]); i++)
        ot_check_self_read(ot_self_reads[i]);
    th_current = "ocl-cases";
}

/* Every builtin in one def per float type, each on a domain where it is defined. */
typedef struct ot_builtin {
    const char *name;
    int arity;
    const char *lo_hi; /* range of every argument */
} ot_builtin;
static const ot_builtin ot_builtins[] = {
    {"acos", 1, "-0.99:0.99"}, {"acosh", 1, "1:5"}, {"asin", 1, "-0.99:0.99"},
    {"asinh", 1, "-5:5"}, {"atan", 1, "-5:5"}, {"atanh", 1, "-0.95:0.95"}, {"cbrt", 1, "-10:10"},
    {"ceil", 1, "-10:10"}, {"cos", 1, "-6:6"}, {"cosh", 1, "-5:5"}, {"cospi", 1, "-3:3"},
    {"cyl_bessel_i0", 1, "-40:40"}, {"cyl_bessel_i1", 1, "-40:40"}, {"erf", 1, "-3:3"},
    {"erfc", 1, "-3:3"}, {"erfcinv", 1, "0.001:1.999"}, {"erfcx", 1, "-2:30"},
    {"erfinv", 1, "-0.999:0.999"}, {"exp", 1, "-10:10"}, {"exp10", 1, "-4:4"},
    {"exp2", 1, "-10:10"}, {"expm1", 1, "-3:3"}, {"fabs", 1, "-10:10"}, {"floor", 1, "-10:10"},
    {"j0", 1, "-40:40"}, {"j1", 1, "-40:40"}, {"lgamma", 1, "0.1:6"}, {"log", 1, "0.01:10"},
    {"log10", 1, "0.01:10"}, {"log1p", 1, "-0.9:10"}, {"log2", 1, "0.01:10"},
    {"logb", 1, "0.01:1000"}, {"normcdf", 1, "-5:5"}, {"normcdfinv", 1, "0.02:0.98"},
    {"rcbrt", 1, "0.1:10"}, {"round", 1, "-10:10"}, {"rsqrt", 1, "0.01:10"}, {"sin", 1, "-6:6"},
    {"sinh", 1, "-5:5"}, {"sinpi", 1, "-3:3"}, {"sqrt", 1, "0:100"}, {"tan", 1, "-1.4:1.4"},
    {"tanh", 1, "-5:5"}, {"tgamma", 1, "0.1:6"}, {"trunc", 1, "-10:10"}, {"y0", 1, "0.1:40"},
    {"y1", 1, "0.1:40"}, {"atan2", 2, "-3:3"}, {"copysign", 2, "-3:3"}, {"fdim", 2, "-3:3"},
    {"fdivide", 2, "0.5:3"}, {"fmax", 2, "-3:3"}, {"fmin", 2, "-3:3"}, {"fmod", 2, "0.5:10"},
    {"hypot", 2, "-5:5"}, {"nextafter", 2, "-3:3"}, {"pow", 2, "0.1:3"},
    {"remainder", 2, "0.5:10"}, {"rhypot", 2, "-5:5"}, {"fma", 3, "-3:3"}, {"norm3d", 3, "-3:3"},
    {"rnorm3d", 3, "-3:3"}, {"norm4d", 4, "-3:3"}, {"rnorm4d", 4, "-3:3"},
};
#define OT_N_BUILTINS ((int)(sizeof ot_builtins / sizeof ot_builtins[0]))

static void test_builtins(void) {
    static char src[16384], ranges[8192];
    int t, i, a, covered[TC_BUILTIN_COUNT];
    memset(covered, 0, sizeof covered);
    for (i = 0; i < OT_N_BUILTINS; i++)
        for (t = 0; t < TC_BUILTIN_COUNT; t++)
            if (strcmp(tc_builtin_name((tc_builtin)t), ot_builtins[i].name) == 0) covered[t] = 1;
    for (t = 0; t < TC_BUILTIN_COUNT; t++)
        CHECKF(covered[t], "builtin %s has no OpenCL test", tc_builtin_name((tc_builtin)t));
    for (t = 0; t < 2; t++) {
        const char *ty = t ? "double" : "float";
        size_t n = 0, m = 0;
        kc_case k;
        n += (size_t)snprintf(src + n, sizeof src - n, "def builtins_%s(", ty);
        for (i = 0; i < OT_N_BUILTINS; i++)
            for (a = 0; a < ot_builtins[i].arity; a++) {
                n += (size_t)snprintf(src + n, sizeof src - n, "%s%s(N) %s_%d", i + a ? ", " : "",
                                      ty, ot_builtins[i].name, a);
                m += (size_t)snprintf(ranges + m, sizeof ranges - m, "%s_%d=%s ",
                                      ot_builtins[i].name, a, ot_builtins[i].lo_hi);
            }
        n += (size_t)snprintf(src + n, sizeof src - n, ") -> (");
        for (i = 0; i < OT_N_BUILTINS; i++)
            n += (size_t)snprintf(src + n, sizeof src - n, "%so_%s", i ? ", " : "",
                                  ot_builtins[i].name);
        n += (size_t)snprintf(src + n, sizeof src - n, ") {\n");
        for (i = 0; i < OT_N_BUILTINS; i++) {
            n += (size_t)snprintf(src + n, sizeof src - n, "    o_%s(i) = %s(", ot_builtins[i].name,
                                  ot_builtins[i].name);
            for (a = 0; a < ot_builtins[i].arity; a++)
                n += (size_t)snprintf(src + n, sizeof src - n, "%s%s_%d(i)", a ? ", " : "",
                                      ot_builtins[i].name, a);
            n += (size_t)snprintf(src + n, sizeof src - n, ")\n");
        }
        snprintf(src + n, sizeof src - n, "}\n");
        k.family = t ? "builtins-float64" : "builtins-float32";
        k.src = src;
        k.sizes = "N=400";
        k.ranges = ranges;
        k.tol = KC_LOOSE;
        k.accumulate = 0;
        th_current = k.family;
        CHECK(n < sizeof src - 8 && m < sizeof ranges - 8);
        ot_run_case(&k, 3);
    }
    th_current = "builtins";
}

/* The helpers' tails: erfcinv and normcdfinv down to the smallest normal,
   erfinv up to 1, normcdf's far left, Bessel I where sqrt(2 pi x) would
   overflow (an inf, not a NaN). */
static void test_builtin_tails(void) {
    static const char *const src[2] = {
        "def tails_float(float(N) x, float(N) b) -> (a1, a2, a3, a4, a5, a6) {\n"
        "    a1(i) = erfcinv(exp(-x(i)))\n    a2(i) = normcdfinv(exp(-x(i)))\n"
        "    a3(i) = erfinv(1.0 - exp(-x(i) / 4.0))\n    a4(i) = normcdf(-x(i) / 2.0)\n"
        "    a5(i) = cyl_bessel_i0(b(i))\n    a6(i) = cyl_bessel_i1(-b(i))\n}\n",
        "def tails_double(double(N) x, double(N) b) -> (a1, a2, a3, a4, a5, a6) {\n"
        "    a1(i) = erfcinv(exp(-x(i)))\n    a2(i) = normcdfinv(exp(-x(i)))\n"
        "    a3(i) = erfinv(1.0 - exp(-x(i) / 4.0))\n    a4(i) = normcdf(-x(i) / 2.0)\n"
        "    a5(i) = cyl_bessel_i0(b(i))\n    a6(i) = cyl_bessel_i1(-b(i))\n}\n"};
    static const char *const ranges[2] = {"x=0:85 b=1e37:3e38", "x=0:700 b=1e306:1e308"};
    int t;
    for (t = 0; t < 2; t++) {
        kc_case k;
        k.family = t ? "builtin-tails-float64" : "builtin-tails-float32";
        k.src = src[t];
        k.sizes = "N=400";
        k.ranges = ranges[t];
        k.tol = KC_LOOSE;
        k.accumulate = 0;
        th_current = k.family;
        ot_run_case(&k, 3);
    }
    th_current = "builtins";
}

/* Results at the ends of the builtins' ranges, on both back ends, against
   C99's: signs of zero (j1 and cyl_bessel_i1 are odd, a negative tgamma
   that underflows is -0), rhypot of huge values (a subnormal, not 0), y0
   of subnormals (x / 2 rounds there). A zero wants its sign; others 1e-6
   (float) or 1e-14 (double) relative. */
static void test_builtin_edges(void) {
    static const char *const src[2] = {
        "def edges_float(float(N) a, float(N) g, float(N) h) -> (j, b, t, r, y) {\n"
        "    j(i) = j1(a(i))\n    b(i) = cyl_bessel_i1(a(i))\n    t(i) = tgamma(g(i))\n"
        "    r(i) = rhypot(h(i), h(i))\n    y(i) = y0(h(i))\n}\n",
        "def edges_double(double(N) a, double(N) g, double(N) h) -> (j, b, t, r, y) {\n"
        "    j(i) = j1(a(i))\n    b(i) = cyl_bessel_i1(a(i))\n    t(i) = tgamma(g(i))\n"
        "    r(i) = rhypot(h(i), h(i))\n    y(i) = y0(h(i))\n}\n"};
    const double inf = (double)INFINITY;
    const double in[2][3][3] = {{{-0.0, -inf, 0.0}, {-40.5, -41.5, 3.0}, {3e38, 1.4e-45, 3.0}},
                                {{-0.0, -inf, 0.0}, {-190.5, -191.5, 3.0}, {1.7e308, 5e-324, 3.0}}};
    /* per output j, b, t, r, y: the three values; NAN where not checked */
    const double want[2][5][3] = {
        {{-0.0, -0.0, 0.0}, {-0.0, -inf, 0.0}, {-0.0, 0.0, 2.0},
         {2.3570226e-39, (double)NAN, 0.23570226039551584}, {(double)NAN, -65.823213, 0.37685001001279038}},
        {{-0.0, -0.0, 0.0}, {-0.0, -inf, 0.0}, {-0.0, 0.0, 2.0},
         {4.159451654038515e-309, (double)NAN, 0.23570226039551584},
         {(double)NAN, -473.99907342300431, 0.37685001001279038}}};
    int t, o, i, v;
    for (t = 0; t < 2; t++) {
        tc_dtype dt = t ? TC_FLOAT64 : TC_FLOAT32;
        size_t es = tc_dtype_size(dt);
        tc_program *p;
        tc_tensor tin[3], tout[2][5];
        tc_run_desc rd;
        tc_error e;
        if (t == 1 && !tc_ocl_runner_has_fp64(g_baked)) break;
        if (!(p = ot_compile(src[t]))) return;
        memset(tin, 0, sizeof tin);
        memset(tout, 0, sizeof tout);
        for (i = 0; i < 3; i++) {
            tin[i].dtype = dt;
            tin[i].rank = 1;
            tin[i].shape[0] = 3;
            tin[i].data = malloc(3 * es);
            for (v = 0; v < 3; v++) {
                if (t) ((double *)tin[i].data)[v] = in[t][i][v];
                else ((float *)tin[i].data)[v] = (float)in[t][i][v];
            }
        }
        for (v = 0; v < 2; v++)
            for (o = 0; o < 5; o++) {
                tout[v][o].dtype = dt;
                tout[v][o].rank = 1;
                tout[v][o].shape[0] = 3;
                tout[v][o].data = calloc(3, es);
            }
        memset(&rd, 0, sizeof rd);
        rd.inputs = tin;
        rd.n_inputs = 3;
        rd.n_outputs = 5;
        rd.outputs = tout[0];
        CHECKF(tc_run(p, &rd, &e) == TC_OK, "%s", e.msg);
        rd.outputs = tout[1];
        CHECKF(tc_ocl_run(g_baked, p, &rd, &e) == TC_OK, "%s", e.msg);
        for (v = 0; v < 2; v++)
            for (o = 0; o < 5; o++)
                for (i = 0; i < 3; i++) {
                    double w = want[t][o][i], got = t ? ((double *)tout[v][o].data)[i]
                                                      : (double)((float *)tout[v][o].data)[i];
                    int ok = w != w || (w == 0 ? got == 0 && !signbit(got) == !signbit(w)
                                               : w == got || fabs(got - w) <= fabs(w) * (t ? 1e-14 : 1e-6));
                    CHECKF(ok, "%s on %s: output %d, element %d: %.17g, want %.17g", t ? "double" : "float",
                           v ? "OpenCL" : "the VM", o, i, got, w);
                }
        for (i = 0; i < 3; i++) free(tin[i].data);
        for (v = 0; v < 2; v++)
            for (o = 0; o < 5; o++) free(tout[v][o].data);
        tc_program_free(p);
    }
}

/* Float tensor of the given shape, filled with a ramp (data malloc'ed). */
static tc_tensor ot_tensor(tc_dtype dt, int rank, int64_t d0, int64_t d1) {
    tc_tensor t;
    int64_t i, n;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.rank = rank;
    t.shape[0] = d0;
    t.shape[1] = d1;
    n = rank == 0 ? 1 : rank == 1 ? d0 : d0 * d1;
    t.data = calloc((size_t)n + 1, tc_dtype_size(dt));
    for (i = 0; i < n && dt == TC_FLOAT32; i++)
        ((float *)t.data)[i] = (float)(i % 13) * 0.5f - 2.0f;
    return t;
}

/* The VM and the runner fail the same way: status and message. */
static void ot_same_failure(const char *what, const tc_program *p, const char *entry,
                            const tc_tensor *in, int n_in, tc_tensor *out, int n_out,
                            tc_status want) {
    tc_run_desc rd;
    tc_error e1, e2;
    tc_status s1, s2;
    memset(&rd, 0, sizeof rd);
    rd.entry = entry;
    rd.inputs = in;
    rd.n_inputs = n_in;
    rd.outputs = out;
    rd.n_outputs = n_out;
    s1 = tc_run(p, &rd, &e1);
    s2 = tc_ocl_run(g_baked, p, &rd, &e2);
    CHECKF(s1 == want && s2 == want && strcmp(e1.msg, e2.msg) == 0,
           "%s: VM %s (%s), OpenCL %s (%s)", what, tc_status_name(s1), e1.msg,
           tc_status_name(s2), e2.msg);
}

/* Discarded outputs (tc_run_desc.discard): the runner leaves them alone,
   like the VM, and the wanted one matches a run that keeps everything. */
static void test_discard(void) {
    tc_program *p = ot_compile("def softmax(float(M,N) X) -> (mx, e, s, Y) {\n"
                               " mx(i) max=! X(i,j)\n e(i,j) = exp(X(i,j) - mx(i))\n"
                               " s(i) +=! e(i,j)\n Y(i,j) = e(i,j) / s(i)\n}\n");
    static const unsigned char keep_y[4] = {1, 1, 1, 0};
    tc_tensor in[1], all[4], some[4];
    tc_run_desc rd;
    tc_error e;
    float sentinel = -7.0f;
    int i, same = 1;
    if (!p) return;
    in[0] = ot_tensor(TC_FLOAT32, 2, 5, 300);
    memset(all, 0, sizeof all);
    memset(some, 0, sizeof some);
    some[1].data = &sentinel; /* e: never written, not even checked */
    memset(&rd, 0, sizeof rd);
    rd.inputs = in;
    rd.n_inputs = 1;
    rd.outputs = all;
    rd.n_outputs = 4;
    CHECK(tc_ocl_run(g_baked, p, &rd, &e) == TC_OK);
    rd.outputs = some;
    rd.discard = keep_y;
    CHECKF(tc_ocl_run(g_baked, p, &rd, &e) == TC_OK, "discard run: %s", e.msg);
    CHECK(some[0].data == NULL && some[2].data == NULL && some[0].rank == 0);
    CHECK(some[1].data == &sentinel && sentinel == -7.0f);
    for (i = 0; all[3].data && some[3].data && i < 5 * 300; i++)
        same &= ((const float *)all[3].data)[i] == ((const float *)some[3].data)[i];
    CHECK(all[3].data && some[3].data && same);
    for (i = 0; i < 4; i++) tc_ocl_tensor_free(g_baked, &all[i]);
    tc_ocl_tensor_free(g_baked, &some[3]);
    kc_free_tensors(in, 1);
    tc_program_free(p);
}

static void test_run_checks(void) {
    tc_program *p = ot_compile(KC_MM);
    tc_program *pre = ot_compile(kc_cases[0].src);
    tc_tensor in[2], out[1];
    int64_t strides[2] = {1, 1};
    if (!p || !pre) {
        tc_program_free(p);
        tc_program_free(pre);
        return;
    }
    in[0] = ot_tensor(TC_FLOAT32, 2, 3, 4);
    in[1] = ot_tensor(TC_FLOAT32, 2, 5, 6); /* K is 4 in A, 5 in B */
    memset(out, 0, sizeof out);
    ot_same_failure("size variable conflict", p, NULL, in, 2, out, 1, TC_ERR_SHAPE);
    ot_same_failure("wrong input count", p, NULL, in, 1, out, 1, TC_ERR_INVALID_ARGUMENT);
    ot_same_failure("unknown entry", p, "nope", in, 2, out, 1, TC_ERR_NAME);
    free(in[1].data);
    in[1] = ot_tensor(TC_FLOAT32, 2, 4, 6);
    { /* dtype */
        tc_tensor two[2];
        two[0] = in[0];
        two[1] = in[1];
        two[1].dtype = TC_INT32;
        ot_same_failure("wrong dtype", p, NULL, two, 2, out, 1, TC_ERR_TYPE);
        two[1] = in[1];
        two[1].rank = 3;
        ot_same_failure("wrong rank", p, NULL, two, 2, out, 1, TC_ERR_SHAPE);
        two[1] = in[1];
        two[1].data = NULL;
        ot_same_failure("NULL data", p, NULL, two, 2, out, 1, TC_ERR_INVALID_ARGUMENT);
    }
    out[0] = ot_tensor(TC_FLOAT32, 2, 3, 7);
    ot_same_failure("caller output shape", p, NULL, in, 2, out, 1, TC_ERR_SHAPE);
    out[0].shape[1] = 6;
    out[0].dtype = TC_FLOAT64;
    ot_same_failure("caller output dtype", p, NULL, in, 2, out, 1, TC_ERR_TYPE);
    out[0].dtype = TC_FLOAT32;
    out[0].strides = strides;
    ot_same_failure("strided output", p, NULL, in, 2, out, 1, TC_ERR_UNSUPPORTED);
    out[0].strides = NULL;
    ot_same_failure("wrong output count", p, NULL, in, 2, out, 0, TC_ERR_INVALID_ARGUMENT);
    {
        tc_error e;
        tc_run_desc rd;
        memset(&rd, 0, sizeof rd);
        CHECK(tc_ocl_run(NULL, p, &rd, &e) == TC_ERR_INVALID_ARGUMENT);
        CHECK(tc_ocl_run(g_baked, NULL, &rd, &e) == TC_ERR_INVALID_ARGUMENT);
        CHECK(tc_ocl_run(g_baked, p, NULL, NULL) == TC_ERR_INVALID_ARGUMENT);
    }
    free(out[0].data);
    kc_free_tensors(in, 2);
    { /* a run-time precondition: C must hold i + j */
        tc_program *q = ot_compile("def pre(float(N) B, float(M) C, float(K) D) -> (A) {"
                                   " A(i,j) = B(i) * C(i+j) * D(j) }");
        tc_tensor x[3];
        x[0] = ot_tensor(TC_FLOAT32, 1, 4, 0);
        x[1] = ot_tensor(TC_FLOAT32, 1, 6, 0);
        x[2] = ot_tensor(TC_FLOAT32, 1, 5, 0);
        memset(out, 0, sizeof out);
        if (q) ot_same_failure("precondition", q, NULL, x, 3, out, 1, TC_ERR_BOUNDS);
        CHECK(out[0].data == NULL);
        kc_free_tensors(x, 3);
        tc_program_free(q);
    }
    tc_program_free(p);
    tc_program_free(pre);
}

/* A gather out of range: TC_ERR_BOUNDS in the VM's words, and the caller's
   outputs are left as they were. */
static void ot_gather_oob(tc_ocl_runner *R, tc_dtype it, int64_t bad_value) {
    tc_program *p = ot_compile(
        it == TC_INT32 ? "def emb(float(V,D) W, int32(L) Idx) -> (E, F) {\n"
                         "    E(i,j) = W(Idx(i), j)\n    F(i) = float(i) where i in 0:L\n}\n"
                       : "def emb(float(V,D) W, int64(L) Idx) -> (E, F) {\n"
                         "    E(i,j) = W(Idx(i), j)\n    F(i) = float(i) where i in 0:L\n}\n");
    tc_tensor in[2], out[2], out2[2];
    tc_error e1, e2;
    tc_status s1, s2;
    int i, untouched = 1;
    if (!p) return;
    in[0] = ot_tensor(TC_FLOAT32, 2, 5, 3);
    in[1] = ot_tensor(it, 1, 6, 0);
    for (i = 0; i < 6; i++) {
        int64_t v = i == 4 ? bad_value : i % 5;
        if (it == TC_INT32) ((int32_t *)in[1].data)[i] = (int32_t)v;
        else ((int64_t *)in[1].data)[i] = v;
    }
    out[0] = ot_tensor(TC_FLOAT32, 2, 6, 3);
    out[1] = ot_tensor(TC_FLOAT32, 1, 6, 0);
    for (i = 0; i < 18; i++) ((float *)out[0].data)[i] = 42.0f;
    for (i = 0; i < 6; i++) ((float *)out[1].data)[i] = 43.0f;
    s1 = kc_vm(p, in, 2, out, 2, NULL, &e1);
    s2 = ot_ocl(R, p, in, 2, out, 2, &e2);
    for (i = 0; i < 18; i++) untouched &= ((float *)out[0].data)[i] == 42.0f;
    for (i = 0; i < 6; i++) untouched &= ((float *)out[1].data)[i] == 43.0f;
    CHECKF(s1 == TC_ERR_BOUNDS && s2 == TC_ERR_BOUNDS && strcmp(e1.msg, e2.msg) == 0,
           "gather %s %lld: VM %s (%s), OpenCL %s (%s)", tc_dtype_name(it), (long long)bad_value,
           tc_status_name(s1), e1.msg, tc_status_name(s2), e2.msg);
    CHECK(untouched);
    memset(out2, 0, sizeof out2); /* library-allocated outputs stay unallocated */
    s2 = ot_ocl(R, p, in, 2, out2, 2, &e2);
    CHECK(s2 == TC_ERR_BOUNDS && out2[0].data == NULL && out2[1].data == NULL);
    kc_free_tensors(out, 2);
    kc_free_tensors(in, 2);
    tc_program_free(p);
}

static void test_gather_bounds(void) {
    ot_gather_oob(g_baked, TC_INT32, 7);
    ot_gather_oob(g_sym, TC_INT32, -3);
    ot_gather_oob(g_baked, TC_INT64, (int64_t)1 << 40);
    ot_gather_oob(g_sym, TC_INT64, -((int64_t)1 << 35) - 5);
}

/* A buffer larger than the device allows: a clear TC_ERR_LIMIT before
   anything is allocated. */
static void test_too_large(void) {
    tc_program *p = ot_compile("def outer(float(N) a, float(M) b) -> (C) { C(i,j) = a(i) * b(j) }");
    tc_tensor in[2], out[1];
    tc_error e;
    tc_status st;
    if (!p) return;
    in[0] = ot_tensor(TC_FLOAT32, 1, 300000, 0);
    in[1] = ot_tensor(TC_FLOAT32, 1, 300000, 0);
    memset(out, 0, sizeof out);
    st = ot_ocl(g_baked, p, in, 2, out, 1, &e);
    CHECKF(st == TC_ERR_LIMIT && strstr(e.msg, "tensor C needs 360000000000 bytes") &&
               strstr(e.msg, "largest buffer") && out[0].data == NULL,
           "%s: %s", tc_status_name(st), e.msg);
    kc_free_tensors(in, 2);
    tc_program_free(p);
}

/* A build failure carries the call, the code and the compiler's log. */
static void test_build_failure(void) {
    cl_program prog = NULL;
    tc_error e;
    tc_status st = tc__ocl_build(g_baked, "__kernel void broken(__global float *x) { x[0] = y; }",
                                 &prog, &e);
    CHECKF(st == TC_ERR_BACKEND && prog == NULL &&
               strstr(e.msg, "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11): ") &&
               strstr(e.msg, "y"),
           "%s: %s", tc_status_name(st), e.msg);
    CHECK(strcmp(tc__ocl_cl_name(-5), "CL_OUT_OF_RESOURCES") == 0);
    CHECK(strcmp(tc__ocl_cl_name(-9999), "unknown OpenCL error") == 0);
}

/* float64 on a device without cl_khr_fp64 (simulated): a clear error. */
static void test_no_fp64(void) {
    tc_program *p = ot_compile("def d(double(N) x) -> (y) { y(i) = x(i) * 2.0 }");
    tc_tensor in[1], out[1];
    tc_error e;
    tc_status st;
    int saved = g_baked->has_fp64;
    if (!p) return;
    in[0] = ot_tensor(TC_FLOAT64, 1, 5, 0);
    memset(out, 0, sizeof out);
    g_baked->has_fp64 = 0;
    st = ot_ocl(g_baked, p, in, 1, out, 1, &e);
    g_baked->has_fp64 = saved;
    CHECKF(st == TC_ERR_UNSUPPORTED && strstr(e.msg, "float64") && strstr(e.msg, "cl_khr_fp64") &&
               out[0].data == NULL,
           "%s: %s", tc_status_name(st), e.msg);
    kc_free_tensors(in, 1);
    tc_program_free(p);
}

static void test_devices(void) {
    tc_ocl_runner_desc d;
    tc_ocl_runner *r = NULL;
    tc_error e;
    tc_status st;
    memset(&d, 0, sizeof d);
    d.device_index = 99;
    st = tc_ocl_runner_create(&d, &r, &e);
    CHECKF(st == TC_ERR_INVALID_ARGUMENT && !r && strstr(e.msg, "device 99 does not exist"), "%s",
           e.msg);
    d.device_index = 0;
    d.platform_index = 7;
    st = tc_ocl_runner_create(&d, &r, &e);
    CHECKF(st == TC_ERR_INVALID_ARGUMENT && !r && strstr(e.msg, "platform 7 does not exist"), "%s",
           e.msg);
    d.platform_index = -1;
    CHECK(tc_ocl_runner_create(&d, &r, &e) == TC_ERR_INVALID_ARGUMENT && !r);
    CHECK(tc_ocl_runner_create(NULL, NULL, &e) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_ocl_runner_device_name(NULL) == NULL && tc_ocl_runner_has_fp64(NULL) == 0);
    tc_ocl_runner_free(NULL);
}

/* No platform at all: a child process whose ICD loader finds no vendors. */
static void test_no_platform(const char *self) {
    int fd[2], status = 0;
    char buf[512];
    ssize_t n, got = 0;
    pid_t pid;
    if (pipe(fd) != 0) {
        CHECK(0);
        return;
    }
    pid = fork();
    if (pid == 0) {
        char *argv[3];
        dup2(fd[1], 1);
        close(fd[0]);
        setenv("OCL_ICD_VENDORS", "/nonexistent/tc-no-vendors", 1);
        argv[0] = (char *)self;
        argv[1] = (char *)"--no-platform-child";
        argv[2] = NULL;
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(fd[1]);
    while (pid > 0 && (n = read(fd[0], buf + got, sizeof buf - 1 - (size_t)got)) > 0) got += n;
    buf[got > 0 ? got : 0] = '\0';
    close(fd[0]);
    if (pid > 0) waitpid(pid, &status, 0);
    CHECKF(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
               strstr(buf, "TC_ERR_UNSUPPORTED: no OpenCL platform"),
           "child said: %s", buf);
}
static int ot_no_platform_child(void) {
    tc_ocl_runner *r = NULL;
    tc_error e;
    tc_status st = tc_ocl_runner_create(NULL, &r, &e);
    printf("%s: %s\n", tc_status_name(st), e.msg);
    tc_ocl_runner_free(r);
    return 0;
}

/* Built programs are cached per source: per shape when sizes are baked in,
   once per def when they are arguments; the oldest goes past the limit. */
static void test_cache(void) {
    tc_program *p = ot_compile("def sc(float(N) x) -> (y) { y(i) = x(i) * 3.0 + 1.0 }");
    tc_ocl_runner_desc d;
    tc_ocl_runner *rb = NULL, *rs = NULL;
    tc_error e;
    int n, ok = 1;
    memset(&d, 0, sizeof d);
    CHECK(tc_ocl_runner_create(&d, &rb, &e) == TC_OK);
    d.sizes_as_args = 1;
    CHECK(tc_ocl_runner_create(&d, &rs, &e) == TC_OK);
    for (n = 1; p && rb && rs && n <= TC_OCL_MAX_CACHE + 3; n++) {
        tc_tensor in[1], out[1];
        int r, i;
        in[0] = ot_tensor(TC_FLOAT32, 1, n, 0);
        for (r = 0; r < 2; r++) {
            memset(out, 0, sizeof out);
            if (ot_ocl(r ? rs : rb, p, in, 1, out, 1, &e) != TC_OK) ok = 0;
            for (i = 0; out[0].data && i < n; i++)
                ok &= ((float *)out[0].data)[i] == ((float *)in[0].data)[i] * 3.0f + 1.0f;
            tc_ocl_tensor_free(r ? rs : rb, &out[0]);
        }
        if (n == 2) CHECK(rb->n_cache == 2 && rs->n_cache == 1);
        kc_free_tensors(in, 1);
    }
    CHECKF(ok, "%s", e.msg);
    CHECK(!rb || rb->n_cache == TC_OCL_MAX_CACHE);
    CHECK(!rs || rs->n_cache == 1);
    tc_ocl_runner_free(rb);
    tc_ocl_runner_free(rs);
    tc_program_free(p);
}

/* Strided (transposed) inputs are packed; empty tensors work. */
static void test_layouts(void) {
    tc_program *p = ot_compile(KC_MM);
    tc_tensor in[2], o1[1], o2[1];
    int64_t st[2] = {1, 3}; /* A is 4x3 viewed as its transpose 3x4 */
    tc_error e;
    char why[256];
    int r;
    if (!p) return;
    in[0] = ot_tensor(TC_FLOAT32, 2, 3, 4);
    in[0].strides = st;
    in[1] = ot_tensor(TC_FLOAT32, 2, 4, 5);
    for (r = 0; r < 2; r++) {
        memset(o1, 0, sizeof o1);
        memset(o2, 0, sizeof o2);
        CHECK(kc_vm(p, in, 2, o1, 1, NULL, &e) == TC_OK);
        CHECKF(ot_ocl(r ? g_sym : g_baked, p, in, 2, o2, 1, &e) == TC_OK, "%s", e.msg);
        CHECKF(kc_compare(&o2[0], &o1[0], KC_REDUCE, why, sizeof why), "strided: %s", why);
        tc_tensor_free(p, &o1[0]);
        tc_ocl_tensor_free(r ? g_sym : g_baked, &o2[0]);
    }
    kc_free_tensors(in, 2);
    { /* K = 0: C is all zeros; M = 0, N = 0: C is empty (against the reference:
         the VM divides by zero on an empty contraction at the time of writing) */
        static const int64_t shapes[3][3] = {{2, 0, 3}, {0, 4, 3}, {3, 4, 0}};
        int s;
        for (s = 0; s < 3; s++) {
            in[0] = ot_tensor(TC_FLOAT32, 2, shapes[s][0], shapes[s][1]);
            in[1] = ot_tensor(TC_FLOAT32, 2, shapes[s][1], shapes[s][2]);
            for (r = 0; r < 2; r++) {
                memset(o1, 0, sizeof o1);
                memset(o2, 0, sizeof o2);
                CHECK(ref_run(p, NULL, in, 2, o1, 1, why, sizeof why) == TC_OK);
                CHECKF(ot_ocl(r ? g_sym : g_baked, p, in, 2, o2, 1, &e) == TC_OK, "%s", e.msg);
                CHECKF(kc_compare(&o2[0], &o1[0], KC_EXACT, why, sizeof why), "empty: %s", why);
                CHECK(o2[0].data != NULL);
                ref_free_outputs(o1, 1);
                tc_ocl_tensor_free(r ? g_sym : g_baked, &o2[0]);
            }
            kc_free_tensors(in, 2);
        }
    }
    tc_program_free(p);
}

/* Every allocation of a runner and a run may fail: TC_ERR_OUT_OF_MEMORY,
   nothing leaked, until the whole sequence succeeds. */
static void test_run_oom(void) {
    tc_program *p = ot_compile(KC_SOFTMAX);
    long n;
    int ok = 1, steps = 0, done = 0;
    if (!p) return;
    for (n = 1; n < 2000 && !done; n++) {
        fa_state f;
        tc_ocl_runner_desc d;
        tc_ocl_runner *r = NULL;
        tc_tensor in[1], out[4];
        tc_error e;
        tc_status st;
        int i;
        memset(&f, 0, sizeof f);
        memset(&d, 0, sizeof d);
        f.fail_at = n;
        d.allocator = fa_allocator(&f);
        d.allocator.realloc_fn = NULL;
        in[0] = ot_tensor(TC_FLOAT32, 2, 3, 4);
        memset(out, 0, sizeof out);
        st = tc_ocl_runner_create(&d, &r, &e);
        if (st == TC_OK) st = ot_ocl(r, p, in, 1, out, 4, &e);
        if (st != TC_OK && st != TC_ERR_OUT_OF_MEMORY) ok = 0;
        done = st == TC_OK;
        for (i = 0; i < 4; i++) tc_ocl_tensor_free(r, &out[i]);
        tc_ocl_runner_free(r);
        if (f.live != 0) ok = 0;
        kc_free_tensors(in, 1);
        steps++;
    }
    CHECKF(ok && done && steps > 5, "runner under failing allocations (%d steps)", steps);
    tc_program_free(p);
}
#endif /* TC_OPENCL_RUNNER */

int main(int argc, char **argv) {
#if defined(TC_OPENCL_RUNNER)
    if (argc > 1 && strcmp(argv[1], "--no-platform-child") == 0) return ot_no_platform_child();
#endif
    (void)argc;
    (void)argv;
    RUN(test_golden);
    RUN(test_emit_basics);
    RUN(test_emit_fp64);
    RUN(test_emit_names);
    RUN(test_emit_malformed);
    RUN(test_emit_oom);
#if defined(TC_OPENCL_RUNNER)
    {
        tc_ocl_runner_desc rd;
        tc_error err;
        tc_status st;
        memset(&rd, 0, sizeof rd);
        st = tc_ocl_runner_create(&rd, &g_baked, &err);
        if (st == TC_ERR_UNSUPPORTED && strcmp(err.msg, "no OpenCL platform") == 0) {
            printf("skipped: no OpenCL platform\n");
            g_skipped++;
        } else {
            CHECKF(st == TC_OK, "runner: %s: %s", tc_status_name(st), err.msg);
            rd.sizes_as_args = 1;
            st = tc_ocl_runner_create(&rd, &g_sym, &err);
            CHECKF(st == TC_OK, "runner: %s: %s", tc_status_name(st), err.msg);
        }
        if (g_baked && g_sym) {
            printf("OpenCL device: %s (fp64 %s)\n", tc_ocl_runner_device_name(g_baked),
                   tc_ocl_runner_has_fp64(g_baked) ? "yes" : "no");
            RUN(test_families);
            RUN(test_ocl_cases);
            RUN(test_builtins);
            RUN(test_builtin_tails);
            RUN(test_builtin_edges);
            RUN(test_run_checks);
            RUN(test_discard);
            RUN(test_gather_bounds);
            RUN(test_too_large);
            RUN(test_build_failure);
            RUN(test_no_fp64);
            RUN(test_devices);
            th_current = "test_no_platform";
            test_no_platform(argv[0]);
            RUN(test_cache);
            RUN(test_layouts);
            RUN(test_run_oom);
        }
        tc_ocl_runner_free(g_baked);
        tc_ocl_runner_free(g_sym);
    }
#else
    printf("skipped: OpenCL runner not built (no OpenCL headers or loader)\n");
    g_skipped++;
#endif
    if (g_skipped) printf("SKIPPED %d\n", g_skipped);
    return th_report();
}
