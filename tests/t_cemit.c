/* t_cemit: the C99 back end (tc_c_emit in tc_opencl.h).

   Every kernel family of tests/kernel_cases.h (the BENCH.md kernels among
   them), every builtin in float and double, and the cases below (integer
   division and modulo at their edges, saturating casts, gathers, ?:,
   bool, float16, temporaries, size expressions, 0-rank outputs) are
   emitted as C, sizes as arguments or baked in (alternately), renamed
   k<N>_<def> so that all of them make one C file. That file is compiled
   once with $CC -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -shared
   (no fast-math, no contraction: -std=c99) and loaded with dlopen; each
   <def>_call then runs on the inputs and must equal tests/ref_eval.h's
   serial evaluation: integers, bools and floats bit for bit, floats
   within kernel_cases.h's KC_LOOSE tolerance where a builtin is called
   (libm's expf against the reference's double). Outputs of the
   accumulating cases start as the same random contents on both sides.
   tests/golden/mm.c pins matmul's emitted text. Then the error codes (a failed check, a gather out of range, a negative
   size), the span backstop (an IR whose loop runs past the written tensor
   is refused at run time, nothing written), the emitter's argument checks, allocation failures, and clang
   (when installed) compiling the same file warning-free, with
   -O3 -march=native -ffast-math as well, and every def of the fuzz corpus
   (tests/fuzz/compile_run) compiled -Werror by gcc and clang; the corpus
   entry defs also run (sizes 2 to 4) against ref_eval, equal or both
   stopping. */
#define _DEFAULT_SOURCE
#define TC_IMPLEMENTATION
#include "tc.h"
#define TC_OPENCL_IMPLEMENTATION
#include "tc_opencl.h"
#include "harness.h"
#include "ref_eval.h"
#include "kernel_cases.h"
#include "fail_alloc.h"
#include "tools/c_driver.h"
#include <dirent.h>
#include <dlfcn.h>
#include <unistd.h>

#define CE_MAX_IO 128

/* Cases aimed at the C dialect's own spellings. */
static const kc_case ce_extra[] = {
    {"idiv-int32", "def idv(int32(N) a, int32(N) b) -> (q, r) { q(i) = a(i) / b(i)\n r(i) = a(i) % b(i) }",
     "N=300", "a=* b=-3:3", KC_EXACT, 0},
    {"idiv-int8", "def idv8(int8(N) a, int8(N) b) -> (q, r, n) {\n"
     "    q(i) = a(i) / b(i)\n    r(i) = a(i) % b(i)\n    n(i) = -a(i) * b(i)\n}\n",
     "N=300", "a=* b=-2:2", KC_EXACT, 0},
    {"idiv-int64", "def idv64(int64(N) a, int64(N) b) -> (q, r) { q(i) = a(i) / b(i)\n r(i) = a(i) % b(i) }",
     "N=300", "a=* b=*", KC_EXACT, 0},
    {"idiv-uint16", "def idvu(uint16(N) a, uint16(N) b) -> (q, r, m) {\n"
     "    q(i) = a(i) / b(i)\n    r(i) = a(i) % b(i)\n    m(i) = a(i) * b(i)\n}\n",
     "N=300", "a=* b=0:3", KC_EXACT, 0},
    {"fmod-float", "def fm(float(N) a, float(N) b) -> (r) { r(i) = a(i) % b(i) }", "N=200",
     "a=-10:10 b=-3:3", KC_EXACT, 0},
    {"casts-saturate",
     "def sat(float(N) x, double(N) y) -> (a, b, c, d, e, f) {\n"
     "    a(i) = int8(x(i))\n    b(i) = uint8(x(i))\n    c(i) = int32(x(i) * 1e8)\n"
     "    d(i) = uint64(y(i) * 1e19)\n    e(i) = int64(y(i) * 1e19)\n    f(i) = uint16(y(i))\n}\n",
     "N=300", "x=-300:300 y=-70000:70000", KC_EXACT, 0},
    {"select-gather",
     "def sg(float(V) T, int32(N) I) -> (o) { o(i) = I(i) >= 0 && I(i) < V ? T(I(i)) : -1.0 }",
     "V=7 N=100", "I=-3:9", KC_EXACT, 0},
    {"bool-logic",
     "def bl(bool(N) a, bool(N) b, float(N) x) -> (c, d, e) {\n"
     "    c(i) = a(i) && !b(i) || x(i) > 0.5\n    d(i) = a(i) != b(i)\n"
     "    e(i) = a(i) ? x(i) : -x(i)\n}\n",
     "N=100", 0, KC_EXACT, 0},
    {"half-store",
     "def hs(float16(N) a, float(N) x) -> (b, c, s) {\n"
     "    b(i) = a(i) * 3.0 + x(i)\n    c(i) = half(x(i) * 1e4)\n    s +=! a(i)\n}\n",
     "N=300", "a=-4:4 x=-1e4:1e4", KC_EXACT, 0},
    {"temps-chain",
     "def tmp(float(M,N) X) -> (Y) {\n"
     "    T(i,j) = X(i,j) * 2.0\n    U(i) +=! T(i,j)\n    Y(i,j) = T(i,j) - U(i)\n}\n",
     "M=9 N=13", 0, KC_EXACT, 0},
    {"size-expr",
     "def se(float(N) x, float(K) w) -> (y) { y(i) +=! x(2*i+k) * w(k) where i in 0:(N-K)/2+1 }",
     "N=41 K=5", 0, KC_EXACT, 0},
    {"mm-ikj-int8", "def mmi8(int8(M,K) A, int8(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
     "M=5 K=7 N=33", "A=* B=*", KC_EXACT, 0},
    {"mm-ikj-minmax", "def mmx(float(M,K) A, float(K,N) B) -> (C, D) {\n"
     "    C(i,j) max=! A(i,k) * B(k,j)\n    D(i,j) min= A(i,k) - B(k,j)\n}\n",
     "M=5 K=7 N=33", 0, KC_EXACT, 1},
    {"reads-own-element", "def rs(float(N) x) -> (y) {\n    y(i) = x(i)\n    y(i) += y(i) * x(i)\n}\n",
     "N=11", 0, KC_EXACT, 0},
    {"limits-compare", /* comparisons gcc's -Wtype-limits calls always true or false */
     "def lim(uint32(N) a, uint8(N) b, int8(N) c, float(V) T, int32(N) I) -> (x, y, z) {\n"
     "    x(i) = a(i) >= 0u ? 1 : 2\n    y(i) = b(i) <= uint8(255) && c(i) > int8(-128)\n"
     "    z(i) = 0u > a(i) || int8(127) >= c(i) ? T(I(i)) : 0.0\n}\n",
     "N=60 V=5", "a=* b=* c=* I=0:4", KC_EXACT, 0},
    {"self-compare", /* x == x: clang's -Wtautological-compare for integers; floats keep NaN's */
     "def selfc(float(N) x, int32(N) k) -> (y, z) {\n"
     "    y(i) = x(i) != x(i) ? 0.0 : x(i)\n    z(i) = k(i) == k(i) && k(i) >= k(i) ? 1 : 0\n}\n",
     "N=40", "x=~? k=*", KC_EXACT, 0},
    {"names-c-reserved",
     "def free(float(N) calloc, float(N) malloc, float(N) expf) -> (size_t, int8_t) {\n"
     "    size_t(main) = calloc(main) + malloc(main)\n    int8_t(main) = expf(main)\n}\n",
     "N=5", 0, KC_EXACT, 0},
};
#define CE_N_EXTRA ((int)(sizeof ce_extra / sizeof ce_extra[0]))

/* The builtins as t_opencl runs them: one def per float type. */
static const struct {
    const char *name;
    int arity;
    const char *lo_hi;
} ce_builtins[] = {
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
#define CE_N_BUILTINS ((int)(sizeof ce_builtins / sizeof ce_builtins[0]))
static char ce_bsrc[2][16384], ce_branges[2][8192];

/* One case through the whole test. */
typedef struct ce_run {
    kc_case k;
    tc_program *p;
    const tc_ir_def *d;
    char name[64];
    int baked, loose, vm, ok;
    int soft; /* corpus: inputs that cannot be made or sizes that fail their checks skip it */
    tc_tensor in[CE_MAX_IO], pre[CE_MAX_IO];
    int64_t vars[64];
} ce_run;

static const char *ce_cc(void) {
    const char *cc = getenv("CC");
    return cc && *cc ? cc : "cc";
}

/* The two builtin defs (every builtin, float then double). */
static void ce_builtin_cases(kc_case *out) {
    int t, i, a;
    for (t = 0; t < 2; t++) {
        const char *ty = t ? "double" : "float";
        char *src = ce_bsrc[t], *rg = ce_branges[t];
        size_t n = 0, m = 0, cap = sizeof ce_bsrc[t], rcap = sizeof ce_branges[t];
        n += (size_t)snprintf(src + n, cap - n, "def builtins_%s(", ty);
        for (i = 0; i < CE_N_BUILTINS; i++)
            for (a = 0; a < ce_builtins[i].arity; a++) {
                n += (size_t)snprintf(src + n, cap - n, "%s%s(N) %s_%d", i + a ? ", " : "", ty,
                                      ce_builtins[i].name, a);
                m += (size_t)snprintf(rg + m, rcap - m, "%s_%d=%s ", ce_builtins[i].name, a,
                                      ce_builtins[i].lo_hi);
            }
        n += (size_t)snprintf(src + n, cap - n, ") -> (");
        for (i = 0; i < CE_N_BUILTINS; i++)
            n += (size_t)snprintf(src + n, cap - n, "%so_%s", i ? ", " : "", ce_builtins[i].name);
        n += (size_t)snprintf(src + n, cap - n, ") {\n");
        for (i = 0; i < CE_N_BUILTINS; i++) {
            n += (size_t)snprintf(src + n, cap - n, "    o_%s(i) = %s(", ce_builtins[i].name,
                                  ce_builtins[i].name);
            for (a = 0; a < ce_builtins[i].arity; a++)
                n += (size_t)snprintf(src + n, cap - n, "%s%s_%d(i)", a ? ", " : "",
                                      ce_builtins[i].name, a);
            n += (size_t)snprintf(src + n, cap - n, ")\n");
        }
        snprintf(src + n, cap - n, "}\n");
        out[t].family = t ? "builtins-float64" : "builtins-float32";
        out[t].src = src;
        out[t].sizes = "N=400";
        out[t].ranges = rg;
        out[t].tol = KC_LOOSE;
        out[t].accumulate = 0;
    }
}

static tc_program *ce_compile(const char *src) {
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

static int ce_calls_builtin(const tc_ir_def *d) {
    int s, i;
    for (s = 0; s < d->n_stmts; s++)
        for (i = 0; i < d->stmts[s].n_nodes; i++)
            if (d->stmts[s].nodes[i].op == TC_IR_CALL) return 1;
    return 0;
}

/* A float16 tensor written by a reduction: ref_eval rounds it at every
   step, the C (as the VM and OpenCL) once, at the store. */
static int ce_half_reduction(const tc_ir_def *d) {
    int s;
    for (s = 0; s < d->n_stmts; s++)
        if (d->tensors[d->stmts[s].tensor].dtype == TC_FLOAT16 &&
            d->stmts[s].reduce != TC_REDUCE_ASSIGN)
            return 1;
    return 0;
}

/* Prepares case r (inputs, prefilled outputs, size variables) and appends
   its C to f. */
static void ce_prepare(ce_run *r, int idx, FILE *f) {
    tc_ir_def renamed;
    tc_error err;
    tc_status st;
    int64_t sx[4096];
    char why[512], *text = NULL;
    kc_rng rng;
    int i, v;
    r->p = ce_compile(r->k.src);
    if (!r->p) return;
    r->d = tc_program_ir(r->p, tc_program_find(r->p, NULL));
    CHECK(r->d->n_inputs <= CE_MAX_IO && r->d->n_outputs <= CE_MAX_IO && r->d->n_sx <= 4096 &&
          r->d->n_sizevars <= 64);
    rng.s = 777 + (uint64_t)strlen(r->k.src) * 13 + (uint64_t)strlen(r->k.sizes);
    if (!kc_make_inputs(r->d, r->k.sizes, r->k.ranges, &rng, r->in, why, sizeof why)) {
        CHECKF(r->soft, "%s: %s", r->k.family, why);
        return;
    }
    st = tc_bind_sizes(r->p, tc_program_find(r->p, NULL), r->in, r->d->n_inputs, sx, &err);
    CHECKF(st == TC_OK || r->soft, "%s: bind sizes: %s", r->k.family, err.msg);
    if (st != TC_OK) return;
    for (v = 0; v < r->d->n_sizevars; v++)
        for (i = 0; i < r->d->n_sx; i++)
            if (r->d->sx[i].op == TC_SX_VAR && r->d->sx[i].value == v) r->vars[v] = sx[i];
    memset(r->pre, 0, sizeof r->pre);
    st = tc_infer_shapes(r->p, NULL, r->in, r->d->n_inputs, r->pre, r->d->n_outputs, &err);
    CHECKF(st == TC_OK, "%s: infer: %s", r->k.family, err.msg);
    for (i = 0; st == TC_OK && i < r->d->n_outputs; i++) {
        r->pre[i].data = calloc((size_t)ref_numel(&r->pre[i]) + 1, tc_dtype_size(r->pre[i].dtype));
        if (r->k.accumulate) kc_fill(&r->pre[i], 0.5, 1.5, 0, &rng);
    }
    if (st != TC_OK) return;
    r->baked = idx & 1;
    r->loose = r->k.tol == KC_LOOSE || ce_calls_builtin(r->d) || ce_half_reduction(r->d);
    renamed = *r->d;
    snprintf(r->name, sizeof r->name, "k%d_%s", idx, r->d->name);
    renamed.name = r->name;
    st = tc_c_emit(&renamed, r->baked ? sx : NULL, 0, NULL, &text, &err);
    CHECKF(st == TC_OK && text, "%s: tc_c_emit: %s", r->k.family, err.msg);
    if (st == TC_OK) fputs(text, f);
    tc_ocl_free_source(text, NULL);
    r->ok = st == TC_OK;
}

static char *ce_read_file_n(const char *path, long *len) {
    FILE *f = fopen(path, "rb");
    char *s;
    long n;
    *len = 0;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = (char *)malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (s) s[n] = '\0';
    fclose(f);
    *len = n;
    return s;
}
static char *ce_read_file(const char *path) {
    long n;
    return ce_read_file_n(path, &n);
}

typedef int (*ce_call_fn)(void *const *, const int64_t *);
static int ce_stopped; /* corpus runs where the C and the reference both stopped */

/* Runs case r's C and the reference on the same inputs and compares. */
static void ce_check(ce_run *r, void *lib) {
    tc_tensor got[CE_MAX_IO], want[CE_MAX_IO];
    void *ptr[2 * CE_MAX_IO];
    char sym[96], why[512], msg[512];
    ce_call_fn fn;
    int i, n_in = r->d->n_inputs, n_out = r->d->n_outputs, rc;
    tc_status st;
    snprintf(sym, sizeof sym, "%s_call", r->name);
    *(void **)(&fn) = dlsym(lib, sym);
    CHECKF(fn != NULL, "%s: no symbol %s", r->k.family, sym);
    if (!fn) return;
    for (i = 0; i < n_out; i++) {
        got[i] = kc_copy(&r->pre[i]);
        want[i] = kc_copy(&r->pre[i]);
    }
    for (i = 0; i < n_in; i++) ptr[i] = r->in[i].data;
    for (i = 0; i < n_out; i++) ptr[n_in + i] = got[i].data;
    rc = fn(ptr, r->vars);
    if (!r->soft)
        CHECKF(rc == 0, "%s (%s, %s): %s returned %d", r->k.family, r->k.sizes,
               r->baked ? "baked" : "symbolic", sym, rc);
    if (r->vm) { /* ref_eval takes 16 sizes at most; the builtin defs have 88 */
        tc_error err;
        st = kc_vm(r->p, r->in, n_in, want, n_out, NULL, &err);
        CHECKF(st == TC_OK, "%s: tc_run: %s", r->k.family, err.msg);
    } else {
        st = ref_run_def(r->d, r->in, n_in, want, n_out, msg, sizeof msg);
        if (r->soft && rc != 0) ce_stopped++;
        if (r->soft) /* a gather out of range: both stop (the C with 2) */
            CHECKF((st == TC_OK) == (rc == 0) && (rc == 0 || rc == 2 || st != TC_ERR_BOUNDS),
                   "%s (%s): reference %s (%s), the C returned %d", r->k.family, r->k.sizes,
                   tc_status_name(st), msg, rc);
        else CHECKF(st == TC_OK, "%s: reference: %s", r->k.family, msg);
    }
    for (i = 0; rc == 0 && st == TC_OK && i < n_out; i++) {
        int ok = kc_compare(&got[i], &want[i], r->loose ? KC_LOOSE : KC_EXACT, why, sizeof why);
        CHECKF(ok, "%s (%s, %s sizes): output %s: %s", r->k.family, r->k.sizes,
               r->baked ? "baked" : "symbolic", r->d->tensors[n_in + i].name, why);
    }
    kc_free_tensors(got, n_out);
    kc_free_tensors(want, n_out);
}

static int ce_system(const char *cmd) {
    int rc = system(cmd);
    return rc == 0;
}

static int ce_have(const char *prog) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
    return ce_system(cmd);
}

/* All cases: emit, compile (two halves at once), load, run, compare. */
static void test_cases(const char *dir) {
    static ce_run runs[KC_N_CASES + CE_N_EXTRA + 2];
    kc_case bk[2];
    int n = 0, i, half;
    char path[2][512], so[2][512], cmd[4096];
    FILE *f[2];
    void *lib[2];
    ce_builtin_cases(bk);
    for (i = 0; i < KC_N_CASES; i++) runs[n++].k = kc_cases[i];
    for (i = 0; i < CE_N_EXTRA; i++) runs[n++].k = ce_extra[i];
    runs[n].vm = 1;
    runs[n++].k = bk[0];
    runs[n].vm = 1;
    runs[n++].k = bk[1];
    half = n / 2;
    for (i = 0; i < 2; i++) {
        snprintf(path[i], sizeof path[i], "%s/all%d.c", dir, i);
        snprintf(so[i], sizeof so[i], "%s/all%d.so", dir, i);
        f[i] = fopen(path[i], "wb");
        CHECKF(f[i] != NULL, "cannot write %s", path[i]);
        if (!f[i]) return;
    }
    for (i = 0; i < n; i++) {
        th_current = runs[i].k.family;
        ce_prepare(&runs[i], i, f[i >= half]);
    }
    th_current = "cases";
    fclose(f[0]);
    fclose(f[1]);
    snprintf(cmd, sizeof cmd,
             "%s -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -shared -fPIC -o %s %s -lm & "
             "%s -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -shared -fPIC -o %s %s -lm; "
             "s=$?; wait $! && [ $s = 0 ]",
             ce_cc(), so[0], path[0], ce_cc(), so[1], path[1]);
    CHECKF(ce_system(cmd), "compiling the emitted C failed: %s", cmd);
    for (i = 0; i < 2; i++) {
        lib[i] = dlopen(so[i], RTLD_NOW | RTLD_LOCAL);
        CHECKF(lib[i] != NULL, "dlopen %s: %s", so[i], dlerror());
    }
    for (i = 0; i < n; i++) {
        th_current = runs[i].k.family;
        if (runs[i].ok && lib[i >= half]) ce_check(&runs[i], lib[i >= half]);
        if (runs[i].d) {
            kc_free_tensors(runs[i].in, runs[i].d->n_inputs);
            kc_free_tensors(runs[i].pre, runs[i].d->n_outputs);
        }
        tc_program_free(runs[i].p);
    }
    th_current = "cases";
    printf("%d defs emitted, compiled and compared\n", n);
    if (ce_have("clang")) { /* the other compiler, warning-free */
        snprintf(cmd, sizeof cmd,
                 "clang -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only %s %s", path[0],
                 path[1]);
        CHECKF(ce_system(cmd), "%s", cmd);
    } else
        printf("clang not installed: its compile check skipped\n");
    for (i = 0; i < 2 && lib[i]; i++) dlclose(lib[i]);
}

/* text (emitted with TC_C_DRIVER_TABLES) and the CLI's main after it, as
   `tc c --driver` writes them. */
static void ce_put_driven(FILE *f, const char *text) {
    fputs(text, f);
    fputs(tc_c_driver_io_text, f);
    fputs(tc_c_driver_main_text, f);
}

/* A def compiled alone into dir/name.so, its _call symbol. */
static ce_call_fn ce_build_one(const char *dir, const char *src, const int64_t *sx,
                               const char *name, void **lib) {
    tc_program *p = ce_compile(src);
    char path[512], so[512], cmd[2048], *text = NULL, sym[96];
    tc_error err;
    ce_call_fn fn = NULL;
    FILE *f;
    *lib = NULL;
    if (!p) return NULL;
    CHECK(tc_c_emit(tc_program_ir(p, tc_program_find(p, NULL)), sx, TC_C_DRIVER_TABLES, NULL, &text,
                    &err) == TC_OK);
    snprintf(path, sizeof path, "%s/%s.c", dir, name);
    snprintf(so, sizeof so, "%s/%s.so", dir, name);
    f = fopen(path, "wb");
    if (f && text) ce_put_driven(f, text);
    if (f) fclose(f);
    tc_ocl_free_source(text, NULL);
    snprintf(cmd, sizeof cmd,
             "%s -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -shared -fPIC -o %s %s -lm",
             ce_cc(), so, path);
    CHECKF(ce_system(cmd), "%s", cmd);
    *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    CHECKF(*lib != NULL, "dlopen %s", so);
    snprintf(sym, sizeof sym, "%s_call", tc_program_ir(p, 0)->name);
    if (*lib) *(void **)(&fn) = dlsym(*lib, sym);
    CHECK(fn != NULL);
    tc_program_free(p);
    return fn;
}

/* Writes the defs of srcs (the first with its driver) to dir/name.c and
   compiles it -O3 -march=native -ffast-math -Werror with $CC and clang. */
static void ce_build_o3(const char *dir, const char *name, const char *const *srcs, int n) {
    char path[512], cmd[1024];
    FILE *f;
    int i;
    snprintf(path, sizeof path, "%s/%s.c", dir, name);
    f = fopen(path, "wb");
    CHECK(f != NULL);
    for (i = 0; f && i < n; i++) {
        tc_program *p = ce_compile(srcs[i]);
        char *text = NULL;
        tc_error err;
        if (!p) continue;
        CHECK(tc_c_emit(tc_program_ir(p, 0), NULL, i == 0 ? TC_C_DRIVER_TABLES : 0, NULL, &text,
                        &err) == TC_OK);
        if (text && i == 0) ce_put_driven(f, text);
        else if (text) fputs(text, f);
        tc_ocl_free_source(text, NULL);
        tc_program_free(p);
    }
    if (f) fclose(f);
    snprintf(cmd, sizeof cmd,
             "%s -std=c99 -O3 -march=native -ffast-math -Wall -Wextra -Wpedantic -Werror -c -o "
             "/dev/null %s",
             ce_cc(), path);
    CHECKF(ce_system(cmd), "%s", cmd);
    if (ce_have("clang")) {
        snprintf(cmd, sizeof cmd,
                 "clang -std=c99 -O3 -march=native -ffast-math -Wall -Wextra -Wpedantic -Werror "
                 "-c -o /dev/null %s",
                 path);
        CHECKF(ce_system(cmd), "%s", cmd);
    }
}

/* The BENCH.md kernels (the first kernel_cases of their names) built as
   the benchmark builds them, -O3 -march=native -ffast-math, mm with its
   driver: warning-free (the optimizer's warnings: -O1 saw none of the
   driver's with no size variables); and a def without size variables,
   with its driver. */
static void test_bench_flags(const char *dir) {
    static const char *const srcs[] = {KC_MM, KC_MV, KC_BMM, KC_CONV, KC_MAXPOOL, KC_EW_TANH,
                                       KC_EW_FMA, KC_SOFTMAX, KC_LAYERNORM, KC_STENCIL3, KC_SUM,
                                       KC_ROWSUM};
    static const char *const scalar[] = {"def sc(double a, double b) -> (c) { c = a * b - a }"};
    ce_build_o3(dir, "bench", srcs, (int)(sizeof srcs / sizeof srcs[0]));
    ce_build_o3(dir, "scalar", scalar, 1);
}

/* The span backstop: matmul's IR with loop j run to K instead of N (a
   wrong proof, as range inference could have made): the C refuses to run
   (TC_C_ERR_CHECK) when K > N, and writes nothing, rather than writing
   past C. */
static void test_span_backstop(const char *dir) {
    tc_program *p = ce_compile(KC_MM);
    const tc_ir_def *d;
    tc_ir_def bad;
    tc_ir_stmt st;
    tc_ir_loop loops[8];
    char path[512], so[512], cmd[2048], *text = NULL;
    tc_error err;
    FILE *f;
    void *lib;
    ce_call_fn fn = NULL;
    int l, sx_k = -1, sx_n = -1;
    if (!p) return;
    d = tc_program_ir(p, 0);
    bad = *d;
    st = d->stmts[0];
    CHECK(st.n_loops == 3 && d->n_sizevars == 3);
    for (l = 0; l < st.n_loops && l < 8; l++) loops[l] = st.loops[l];
    for (l = 0; l < d->n_sx; l++) {
        if (d->sx[l].op == TC_SX_VAR && d->sx[l].value == 1) sx_k = l;
        if (d->sx[l].op == TC_SX_VAR && d->sx[l].value == 2) sx_n = l;
    }
    CHECK(sx_k >= 0 && sx_n >= 0 && loops[1].hi == sx_n);
    loops[1].hi = sx_k; /* j in 0:K */
    st.loops = loops;
    bad.stmts = &st;
    bad.name = "mm_bad";
    CHECK(tc_c_emit(&bad, NULL, 0, NULL, &text, &err) == TC_OK);
    snprintf(path, sizeof path, "%s/mm_bad.c", dir);
    snprintf(so, sizeof so, "%s/mm_bad.so", dir);
    f = fopen(path, "wb");
    if (f && text) fputs(text, f);
    if (f) fclose(f);
    tc_ocl_free_source(text, NULL);
    snprintf(cmd, sizeof cmd,
             "%s -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -shared -fPIC -o %s %s -lm",
             ce_cc(), so, path);
    CHECKF(ce_system(cmd), "%s", cmd);
    lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (lib) *(void **)(&fn) = dlsym(lib, "mm_bad_call");
    CHECK(fn != NULL);
    if (fn) {
        float a[12] = {0}, b[12] = {0}, c[12];
        void *t[3];
        int64_t v[3];
        int i, same = 1;
        t[0] = a, t[1] = b, t[2] = c;
        for (i = 0; i < 12; i++) c[i] = 5;
        v[0] = 2, v[1] = 3, v[2] = 2; /* M, K, N: j would reach 2 in a 2-column C */
        CHECK(fn(t, v) == TC_C_ERR_CHECK);
        for (i = 0; i < 12; i++) same &= c[i] == 5;
        CHECK(same);
        v[1] = 2; /* K == N: the same loops, in bounds */
        CHECK(fn(t, v) == 0 && c[0] == 0 && c[3] == 0 && c[4] == 5);
    }
    if (lib) dlclose(lib);
    tc_program_free(p);
}

/* Every def of the fuzz corpus (tests/fuzz/compile_run: two bytes of run
   options, then the source) that compiles, emitted (renamed f<N>_<def>)
   into one file: gcc -O1 and clang compile it with -Werror. */
static void test_corpus(const char *dir) {
    const char *cdir = "tests/fuzz/compile_run";
    DIR *dp = opendir(cdir);
    struct dirent *de;
    char path[1024], out[512], cmd[2048];
    FILE *f;
    int n = 0;
    CHECKF(dp != NULL, "cannot open %s (run from the repository root)", cdir);
    if (!dp) return;
    snprintf(out, sizeof out, "%s/corpus.c", dir);
    f = fopen(out, "wb");
    CHECK(f != NULL);
    while (f && (de = readdir(dp)) != NULL) {
        tc_compile_desc cd;
        tc_program *p = NULL;
        tc_error err;
        char *src;
        long len;
        int i;
        if (de->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", cdir, de->d_name);
        src = ce_read_file_n(path, &len);
        if (!src || len < 2) {
            free(src);
            continue;
        }
        memset(&cd, 0, sizeof cd);
        cd.source = src + 2;
        if (tc_compile(&cd, &p, &err) == TC_OK) {
            for (i = 0; i < tc_program_num_defs(p); i++) {
                tc_ir_def d = *tc_program_ir(p, i);
                char name[96], *text = NULL;
                snprintf(name, sizeof name, "f%d_%s", n, d.name);
                d.name = name;
                CHECKF(tc_c_emit(&d, NULL, 0, NULL, &text, &err) == TC_OK, "%s: %s", path, err.msg);
                if (text) fputs(text, f);
                tc_ocl_free_source(text, NULL);
                n++;
            }
            tc_program_free(p);
        }
        free(src);
    }
    closedir(dp);
    if (f) fclose(f);
    CHECKF(n >= 50, "only %d corpus defs", n);
    snprintf(cmd, sizeof cmd, "%s -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -c -o /dev/null %s",
             ce_cc(), out);
    CHECKF(ce_system(cmd), "%s", cmd);
    if (ce_have("clang")) {
        snprintf(cmd, sizeof cmd,
                 "clang -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only %s", out);
        CHECKF(ce_system(cmd), "%s", cmd);
    }
    printf("%d corpus defs emitted and compiled\n", n);
}

/* The corpus defs that run: each entry def (the last of its file) on
   random inputs with every size variable 2, 3 or 4, equal to ref_eval bit
   for bit (KC_LOOSE where a builtin is called), or both stopping (a gather
   out of range, a failed check). Sizes that fail the def's checks, and
   defs ref_eval cannot run, are skipped. */
static void test_corpus_run(const char *dir) {
    static ce_run runs[128];
    static char *srcs[128], sizes[128][256];
    const char *cdir = "tests/fuzz/compile_run";
    DIR *dp = opendir(cdir);
    struct dirent *de;
    char path[1024], out[512], so[512], cmd[2048];
    FILE *f;
    void *lib = NULL;
    int n = 0, i, ran = 0;
    if (!dp) return;
    snprintf(out, sizeof out, "%s/corpus_run.c", dir);
    snprintf(so, sizeof so, "%s/corpus_run.so", dir);
    f = fopen(out, "wb");
    while (f && n < 128 && (de = readdir(dp)) != NULL) {
        long len;
        tc_compile_desc cd;
        tc_program *p = NULL;
        tc_error err;
        if (de->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", cdir, de->d_name);
        srcs[n] = ce_read_file_n(path, &len);
        if (!srcs[n] || len < 2) {
            free(srcs[n]);
            continue;
        }
        memset(&cd, 0, sizeof cd);
        cd.source = srcs[n] + 2;
        if (tc_compile(&cd, &p, &err) == TC_OK) {
            const tc_ir_def *d = tc_program_ir(p, tc_program_find(p, NULL));
            size_t m = 0;
            int v;
            for (v = 0; v < d->n_sizevars && m < sizeof sizes[n] - 40; v++)
                m += (size_t)snprintf(sizes[n] + m, sizeof sizes[n] - m, "%s=%d ", d->sizevars[v],
                                      2 + (v + n) % 3);
            tc_program_free(p);
            memset(&runs[n], 0, sizeof runs[n]);
            runs[n].k.family = de->d_name[0] ? srcs[n] + 2 : "corpus";
            runs[n].k.src = srcs[n] + 2;
            runs[n].k.sizes = sizes[n];
            runs[n].k.tol = KC_EXACT;
            runs[n].soft = 1;
            th_current = de->d_name;
            ce_prepare(&runs[n], 1000 + 2 * n, f); /* symbolic sizes */
            n++;
        } else free(srcs[n]);
    }
    closedir(dp);
    if (f) fclose(f);
    snprintf(cmd, sizeof cmd,
             "%s -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -shared -fPIC -o %s %s -lm", ce_cc(),
             so, out);
    CHECKF(ce_system(cmd), "%s", cmd);
    lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    CHECKF(lib != NULL, "dlopen %s", so);
    for (i = 0; i < n; i++) {
        th_current = "corpus-run";
        if (runs[i].ok && lib && !runs[i].vm) {
            ce_check(&runs[i], lib);
            ran++;
        }
        if (runs[i].d) {
            kc_free_tensors(runs[i].in, runs[i].d->n_inputs);
            kc_free_tensors(runs[i].pre, runs[i].d->n_outputs);
        }
        tc_program_free(runs[i].p);
        free(srcs[i]);
    }
    if (lib) dlclose(lib);
    CHECKF(ran >= 40, "only %d corpus defs ran", ran);
    printf("%d corpus defs run: %d compared, %d stopped on both sides\n", ran, ran - ce_stopped,
           ce_stopped);
}

/* Return codes: a run-time check, a gather out of range, a negative size,
   a baked size given another value. The driver's main() is in these files
   too (it must link into a shared object as well). */
static void test_errors(const char *dir) {
    void *lib;
    float x[16] = {0}, y[16] = {0}, w[16] = {1, 2, 3};
    int32_t idx[4] = {0, 1, 5, 2};
    void *t[4];
    int64_t v[4];
    ce_call_fn fn;
    /* precondition: A(i,j) reads C(i+j): M >= N + K - 1, checked before anything */
    fn = ce_build_one(dir, "def pre(float(N) B, float(M) C, float(K) D) -> (A) { A(i,j) = B(i) * C(i+j) * D(j) }",
                      NULL, "pre", &lib);
    if (fn) {
        t[0] = x;
        t[1] = x;
        t[2] = x;
        t[3] = y;
        v[0] = 2, v[1] = 2, v[2] = 2; /* N, M, K: C needs 3 elements */
        y[0] = 7;
        CHECK(fn(t, v) == TC_C_ERR_CHECK && y[0] == 7);
        v[1] = 3;
        CHECK(fn(t, v) == 0 && y[0] == 0);
        v[1] = -1;
        CHECK(fn(t, v) == TC_C_ERR_SIZE);
    }
    if (lib) dlclose(lib);
    fn = ce_build_one(dir, "def emb(float(V) W, int32(L) I) -> (E) { E(i) = W(I(i)) }", NULL, "emb",
                      &lib);
    if (fn) {
        t[0] = w;
        t[1] = idx;
        t[2] = y;
        v[0] = 3, v[1] = 4; /* V, L: idx[2] = 5 is out of range */
        CHECK(fn(t, v) == TC_C_ERR_GATHER);
        v[0] = 6;
        CHECK(fn(t, v) == 0 && y[0] == 1 && y[1] == 2 && y[2] == 0 && y[3] == 3);
    }
    if (lib) dlclose(lib);
    /* a size from a 0-rank input, baked: another value is refused */
    {
        int32_t R = 3;
        float xs[4] = {1, 2, 3, 4}, out[12] = {0};
        tc_program *p = ce_compile("def tile(float(N) x, int32 R) -> (y) { y(r,i) = x(i) where r in 0:R }");
        tc_tensor in[2];
        int64_t sx[64];
        tc_error err;
        memset(in, 0, sizeof in);
        in[0].dtype = TC_FLOAT32;
        in[0].rank = 1;
        in[0].shape[0] = 4;
        in[0].data = xs;
        in[1].dtype = TC_INT32;
        in[1].data = &R;
        if (p && tc_bind_sizes(p, 0, in, 2, sx, &err) == TC_OK) {
            fn = ce_build_one(dir, "def tile(float(N) x, int32 R) -> (y) { y(r,i) = x(i) where r in 0:R }",
                              sx, "tile", &lib);
            if (fn) {
                t[0] = xs;
                t[1] = &R;
                t[2] = out;
                CHECK(fn(t, NULL) == 0 && out[4] == 1 && out[11] == 4);
                R = 2;
                CHECK(fn(t, NULL) == TC_C_ERR_SIZE);
            }
            if (lib) dlclose(lib);
        } else CHECK(0);
        tc_program_free(p);
    }
}

/* matmul's C, symbolic sizes, equals tests/golden/mm.c (the benchmark's
   baseline: a change to its loops shows here; TC_UPDATE_GOLDEN=1 rewrites
   it). */
static void test_golden(void) {
    tc_program *p = ce_compile(KC_MM);
    const char *path = "tests/golden/mm.c", *update = getenv("TC_UPDATE_GOLDEN");
    char *text = NULL, *want;
    tc_error err;
    if (!p) return;
    CHECK(tc_c_emit(tc_program_ir(p, 0), NULL, 0, NULL, &text, &err) == TC_OK && text);
    if (text && update && strcmp(update, "1") == 0) {
        FILE *f = fopen(path, "wb");
        CHECKF(f != NULL, "cannot write %s", path);
        if (f) fputs(text, f);
        if (f) fclose(f);
        printf("rewrote %s\n", path);
    } else if (text) {
        want = ce_read_file(path);
        CHECKF(want && strcmp(want, text) == 0,
               "the emitted mm differs from %s (TC_UPDATE_GOLDEN=1 rewrites it)\n%s", path, text);
        free(want);
    }
    tc_ocl_free_source(text, NULL);
    tc_program_free(p);
}

/* The emitter's own contract: argument checks, flags, allocation failures. */
static void test_api(void) {
    tc_program *p = ce_compile(KC_SOFTMAX);
    const tc_ir_def *d;
    tc_error err;
    char *text = NULL;
    int steps = 0, ok = 1;
    if (!p) return;
    d = tc_program_ir(p, 0);
    CHECK(tc_c_emit(d, NULL, 0, NULL, NULL, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_c_emit(NULL, NULL, 0, NULL, &text, &err) == TC_ERR_INVALID_ARGUMENT && !text);
    CHECK(tc_c_emit(d, NULL, 4, NULL, &text, &err) == TC_ERR_INVALID_ARGUMENT && !text);
    CHECK(tc_c_emit(d, NULL, TC_C_DRIVER_TABLES, NULL, &text, NULL) == TC_OK && text);
    CHECK(text && strstr(text, "int softmax(const float *restrict X, float *restrict mx"));
    CHECK(text && strstr(text, "int softmax_call(void *const *tensors, const int64_t *sizevars)"));
    CHECK(text && strstr(text, "static int tc_drv_call(void *const *p, const int64_t *v)"));
    /* the library emits no main and nothing that prints: that is the CLI's */
    CHECK(text && !strstr(text, "main(") && !strstr(text, "printf") && !strstr(text, "stdio"));
    tc_ocl_free_source(text, NULL);
    text = NULL;
    CHECK(tc_c_emit(d, NULL, 0, NULL, &text, NULL) == TC_OK && text && !strstr(text, "main("));
    tc_ocl_free_source(text, NULL);
    for (steps = 0; steps < 100000; steps++) { /* every allocation may fail */
        fa_state fs;
        tc_allocator a;
        tc_status st;
        memset(&fs, 0, sizeof fs);
        fs.fail_at = steps + 1;
        a = fa_allocator(&fs);
        text = NULL;
        st = tc_c_emit(d, NULL, TC_C_DRIVER_TABLES, &a, &text, &err);
        if (st == TC_OK) {
            tc_ocl_free_source(text, &a);
            ok &= fs.live == 0;
            break;
        }
        ok &= st == TC_ERR_OUT_OF_MEMORY && !text && fs.live == 0;
    }
    CHECKF(ok && steps > 3, "emission under failing allocations (%d steps)", steps);
    tc_program_free(p);
}

int main(void) {
    char dir[] = "/tmp/t_cemit.XXXXXX", cmd[600];
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_api);
    RUN(test_golden);
    th_current = "cases";
    test_cases(dir);
    th_current = "bench-flags";
    test_bench_flags(dir);
    th_current = "corpus";
    test_corpus(dir);
    test_corpus_run(dir);
    th_current = "errors";
    test_errors(dir);
    th_current = "span-backstop";
    test_span_backstop(dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!getenv("TC_KEEP")) (void)system(cmd);
    else printf("kept %s\n", dir);
    return th_report();
}
