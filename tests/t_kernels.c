/* t_kernels: every kernel family of the execution issue, run by the VM
   (one thread, pools of 2 and 3, a plan) and by the naive reference
   evaluator (tests/ref_eval.h) on fixed-seed random inputs. Integers and
   element-wise float work must match exactly, float reductions within a
   relative tolerance, builtins within a few ulp; thread counts and plans
   must match the single-threaded run bitwise. */
#define _DEFAULT_SOURCE
/* The references below are the plain IEEE operations, each rounded: clang
   would fuse a * b + c into one fma by default (gcc does not in ISO C). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
/* the implementation: tests/tc_impl.c, linked in */
#include "tc.h"
#include "harness.h"
#include "ref_eval.h"
#include "kernel_cases.h"

#define KC_MAX_OUT 16

static tc_pool *g_pool2, *g_pool3;

static tc_program *kc_compile(const char *src, const char *what) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    tc_status st;
    char buf[1024];
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    cd.name = what;
    st = tc_compile(&cd, &p, &err);
    if (st != TC_OK) tc_error_format(&err, what, src, buf, sizeof buf);
    CHECKF(st == TC_OK && p, "%s: compile failed: %s: %s", what, tc_status_name(st),
           st != TC_OK ? buf : "");
    return st == TC_OK ? p : NULL;
}

/* Caller buffers shaped like `like`: copies of `pre` when given, else zeroed. */
static void kc_buffers(const tc_tensor *like, const tc_tensor *pre, tc_tensor *out, int n) {
    int i;
    for (i = 0; i < n; i++) {
        if (pre)
            out[i] = kc_copy(&pre[i]);
        else {
            out[i] = like[i];
            out[i].data = calloc((size_t)ref_numel(&like[i]) + 1, tc_dtype_size(like[i].dtype));
        }
    }
}

static void kc_free_vm(const tc_program *p, tc_tensor *t, int n) {
    int i;
    for (i = 0; i < n; i++)
        tc_tensor_free(p, &t[i]);
}

/* tc_infer_shapes agrees with the reference's shapes. */
static void kc_check_infer(const tc_program *p, const kc_case *k, const tc_tensor *in, int n_in,
                           const tc_tensor *want, int n_out) {
    tc_tensor sh[KC_MAX_OUT];
    tc_error err;
    tc_status st;
    int i, same = 1;
    memset(sh, 0, sizeof sh);
    st = tc_infer_shapes(p, NULL, in, n_in, sh, n_out, &err);
    for (i = 0; st == TC_OK && i < n_out; i++)
        same &= kc_same_shape(&sh[i], &want[i]);
    CHECKF(st == TC_OK && same, "%s (%s): tc_infer_shapes: %s %s", k->family, k->sizes,
           tc_status_name(st), st ? err.msg : "shapes differ from the reference");
}

/* Runs the VM again (mode KC_POOL: with `pool`; KC_PLAN: through a plan;
   KC_UNCHECKED: without gather checks) and compares bitwise with `got`. */
enum { KC_POOL, KC_PLAN, KC_UNCHECKED };
static void kc_check_same(const tc_program *p, const kc_case *k, const tc_tensor *in, int n_in,
                          const tc_tensor *got, const tc_tensor *pre, int n_out, tc_pool *pool,
                          int mode) {
    static const char *const what[] = {"pool", "plan", "unchecked gathers"};
    tc_tensor o[KC_MAX_OUT];
    tc_error err;
    tc_status st;
    int i, same = 1;
    kc_buffers(got, pre, o, n_out);
    if (mode == KC_PLAN) {
        tc_plan *plan = NULL;
        tc_run_desc rd;
        memset(&rd, 0, sizeof rd);
        rd.inputs = in;
        rd.n_inputs = n_in;
        rd.outputs = o;
        rd.n_outputs = n_out;
        st = tc_plan_create(p, &rd, &plan, &err);
        if (st == TC_OK) st = tc_plan_run(plan, &rd, &err);
        tc_plan_free(plan);
    } else if (mode == KC_UNCHECKED) {
        tc_run_desc rd;
        memset(&rd, 0, sizeof rd);
        rd.inputs = in;
        rd.n_inputs = n_in;
        rd.outputs = o;
        rd.n_outputs = n_out;
        rd.unchecked_gathers = 1;
        st = tc_run(p, &rd, &err);
    } else {
        st = kc_vm(p, in, n_in, o, n_out, pool, &err);
    }
    for (i = 0; st == TC_OK && i < n_out; i++)
        same &= kc_bitwise_equal(&o[i], &got[i]);
    CHECKF(st == TC_OK && same, "%s (%s): %s (%d threads) differs from one thread: %s %s",
           k->family, k->sizes, what[mode], pool ? tc_pool_num_threads(pool) : 1,
           tc_status_name(st), st ? err.msg : "");
    kc_free_tensors(o, n_out);
}

/* Compares every output of the VM with the reference's. */
static void kc_check_outputs(const kc_case *k, const tc_ir_def *d, const tc_tensor *got,
                             const tc_tensor *want, int n_out) {
    char why[256];
    int i;
    for (i = 0; i < n_out; i++) {
        int ok = kc_compare(&got[i], &want[i], k->tol, why, sizeof why);
        CHECKF(ok, "%s (%s): output %s: %s", k->family, k->sizes, d->tensors[d->n_inputs + i].name,
               why);
    }
}

static void kc_run_case(const kc_case *k) {
    tc_program *p = kc_compile(k->src, k->family);
    const tc_ir_def *d;
    tc_tensor in[16], want[KC_MAX_OUT], pre[KC_MAX_OUT], got[KC_MAX_OUT];
    tc_error err;
    tc_status st;
    char why[512];
    kc_rng rng;
    int n_in, n_out;
    if (!p) return;
    d = tc_program_ir(p, tc_program_find(p, NULL));
    n_in = d->n_inputs;
    n_out = d->n_outputs;
    rng.s = 12345 + (uint64_t)strlen(k->src) * 7 + (uint64_t)strlen(k->sizes);
    memset(want, 0, sizeof want);
    memset(got, 0, sizeof got);
    if (!kc_make_inputs(d, k->sizes, k->ranges, &rng, in, why, sizeof why)) {
        CHECKF(0, "%s: %s", k->family, why);
        tc_program_free(p);
        return;
    }
    st = ref_run(p, NULL, in, n_in, want, n_out, why, sizeof why);
    CHECKF(st == TC_OK, "%s (%s): reference failed: %s", k->family, k->sizes, why);
    if (st == TC_OK) {
        kc_check_infer(p, k, in, n_in, want, n_out);
        if (k->accumulate) { /* prefilled caller buffers: both add to the same contents */
            int i;
            kc_buffers(want, NULL, pre, n_out);
            for (i = 0; i < n_out; i++)
                kc_fill(&pre[i], 0.5, 1.5, 0, &rng);
            kc_free_tensors(want, n_out);
            kc_buffers(pre, pre, want, n_out);
            st = ref_run(p, NULL, in, n_in, want, n_out, why, sizeof why);
            CHECKF(st == TC_OK, "%s: reference (accumulate) failed: %s", k->family, why);
            kc_buffers(pre, pre, got, n_out);
        }
        st = kc_vm(p, in, n_in, got, n_out, NULL, &err);
        CHECKF(st == TC_OK, "%s (%s): tc_run: %s: %s", k->family, k->sizes, tc_status_name(st),
               err.msg);
        if (st == TC_OK) {
            const tc_tensor *start = k->accumulate ? pre : NULL;
            kc_check_outputs(k, d, got, want, n_out);
            kc_check_same(p, k, in, n_in, got, start, n_out, g_pool2, KC_POOL);
            kc_check_same(p, k, in, n_in, got, start, n_out, g_pool3, KC_POOL);
            kc_check_same(p, k, in, n_in, got, start, n_out, NULL, KC_PLAN);
            if (strstr(k->family, "gather"))
                kc_check_same(p, k, in, n_in, got, start, n_out, NULL, KC_UNCHECKED);
        }
        if (k->accumulate) {
            kc_free_tensors(pre, n_out);
            kc_free_tensors(got, n_out);
        } else {
            kc_free_vm(p, got, n_out);
        }
        ref_free_outputs(want, n_out);
    }
    kc_free_tensors(in, n_in);
    tc_program_free(p);
}

static void test_families(void) {
    int i;
    for (i = 0; i < KC_N_CASES; i++) {
        th_current = kc_cases[i].family;
        kc_run_case(&kc_cases[i]);
    }
}

/* ---- every builtin, float32 and float64, on a domain where it is defined ---- */
typedef struct kc_builtin_case {
    const char *name;
    int arity;
    const char *ranges; /* x0 x1 x2 x3 */
    int exact;          /* IEEE-exact operations must match bitwise */
} kc_builtin_case;

static const kc_builtin_case kc_builtins[] = {
    {"acos", 1, "x0=-0.99:0.99", 0},
    {"acosh", 1, "x0=1:5", 0},
    {"asin", 1, "x0=-0.99:0.99", 0},
    {"asinh", 1, "x0=-5:5", 0},
    {"atan", 1, "x0=-5:5", 0},
    {"atanh", 1, "x0=-0.95:0.95", 0},
    {"cbrt", 1, "x0=-10:10", 0},
    {"ceil", 1, "x0=-10:10", 1},
    {"cos", 1, "x0=-6:6", 0},
    {"cosh", 1, "x0=-5:5", 0},
    {"cospi", 1, "x0=-3:3", 0},
    {"cyl_bessel_i0", 1, "x0=-5:5", 0},
    {"cyl_bessel_i1", 1, "x0=-5:5", 0},
    {"erf", 1, "x0=-3:3", 0},
    {"erfc", 1, "x0=-3:3", 0},
    {"erfcinv", 1, "x0=0.05:1.95", 0},
    {"erfcx", 1, "x0=-2:5", 0},
    {"erfinv", 1, "x0=-0.95:0.95", 0},
    {"exp", 1, "x0=-10:10", 0},
    {"exp10", 1, "x0=-4:4", 0},
    {"exp2", 1, "x0=-10:10", 0},
    {"expm1", 1, "x0=-3:3", 0},
    {"fabs", 1, "x0=-10:10", 1},
    {"floor", 1, "x0=-10:10", 1},
    {"j0", 1, "x0=-10:10", 0},
    {"j1", 1, "x0=-10:10", 0},
    {"lgamma", 1, "x0=0.1:6", 0},
    {"log", 1, "x0=0.01:10", 0},
    {"log10", 1, "x0=0.01:10", 0},
    {"log1p", 1, "x0=-0.9:10", 0},
    {"log2", 1, "x0=0.01:10", 0},
    {"logb", 1, "x0=0.01:1000", 1},
    {"normcdf", 1, "x0=-5:5", 0},
    {"normcdfinv", 1, "x0=0.02:0.98", 0},
    {"rcbrt", 1, "x0=0.1:10", 0},
    {"round", 1, "x0=-10:10", 1},
    {"rsqrt", 1, "x0=0.01:10", 0},
    {"sin", 1, "x0=-6:6", 0},
    {"sinh", 1, "x0=-5:5", 0},
    {"sinpi", 1, "x0=-3:3", 0},
    {"sqrt", 1, "x0=0:100", 1},
    {"tan", 1, "x0=-1.4:1.4", 0},
    {"tanh", 1, "x0=-5:5", 0},
    {"tgamma", 1, "x0=0.1:6", 0},
    {"trunc", 1, "x0=-10:10", 1},
    {"y0", 1, "x0=0.1:10", 0},
    {"y1", 1, "x0=0.1:10", 0},
    {"atan2", 2, "x0=-3:3 x1=-3:3", 0},
    {"copysign", 2, "x0=-3:3 x1=-3:3", 1},
    {"fdim", 2, "x0=-3:3 x1=-3:3", 1},
    {"fdivide", 2, "x0=-3:3 x1=0.5:3", 0},
    {"fmax", 2, "x0=-3:3 x1=-3:3", 1},
    {"fmin", 2, "x0=-3:3 x1=-3:3", 1},
    {"fmod", 2, "x0=-10:10 x1=0.5:3", 1},
    {"hypot", 2, "x0=-5:5 x1=-5:5", 0},
    {"nextafter", 2, "x0=-3:3 x1=-3:3", 1},
    {"pow", 2, "x0=0.1:5 x1=-3:3", 0},
    {"remainder", 2, "x0=-10:10 x1=0.5:3", 1},
    {"rhypot", 2, "x0=-5:5 x1=-5:5", 0},
    {"fma", 3, "x0=-3:3 x1=-3:3 x2=-3:3", 1},
    {"norm3d", 3, "x0=-3:3 x1=-3:3 x2=-3:3", 0},
    {"rnorm3d", 3, "x0=-3:3 x1=-3:3 x2=-3:3", 0},
    {"norm4d", 4, "x0=-3:3 x1=-3:3 x2=-3:3 x3=-3:3", 0},
    {"rnorm4d", 4, "x0=-3:3 x1=-3:3 x2=-3:3 x3=-3:3", 0},
};

static void test_builtins(void) {
    int i, t, covered[TC_BUILTIN_COUNT];
    memset(covered, 0, sizeof covered);
    for (i = 0; i < (int)(sizeof kc_builtins / sizeof kc_builtins[0]); i++) {
        const kc_builtin_case *b = &kc_builtins[i];
        for (t = 0; t < 2; t++) {
            char src[512], fam[64];
            const char *ty = t ? "double" : "float";
            kc_case k;
            int a, n = snprintf(src, sizeof src, "def b_%s(", b->name);
            for (a = 0; a < b->arity; a++)
                n += snprintf(src + n, sizeof src - (size_t)n, "%s%s(N) x%d", a ? ", " : "", ty, a);
            n += snprintf(src + n, sizeof src - (size_t)n, ") -> (o) { o(i) = %s(", b->name);
            for (a = 0; a < b->arity; a++)
                n += snprintf(src + n, sizeof src - (size_t)n, "%sx%d(i)", a ? ", " : "", a);
            snprintf(src + n, sizeof src - (size_t)n, ") }");
            snprintf(fam, sizeof fam, "builtin-%s-%s", b->name, ty);
            k.family = fam;
            k.src = src;
            k.sizes = "N=300";
            k.ranges = b->ranges;
            k.tol = b->exact ? KC_EXACT : KC_LOOSE;
            k.accumulate = 0;
            th_current = fam;
            kc_run_case(&k);
        }
        for (t = 0; t < TC_BUILTIN_COUNT; t++)
            if (strcmp(tc_builtin_name((tc_builtin)t), b->name) == 0) covered[t] = 1;
    }
    for (t = 0; t < TC_BUILTIN_COUNT; t++)
        CHECKF(covered[t], "builtin %s has no test", tc_builtin_name((tc_builtin)t));
    { /* integer arguments are converted to float32; mixed widths give double */
        static const kc_case mixed[] = {
            {"builtin-int-arg", "def bi(int32(N) k) -> (o) { o(i) = sqrt(k(i)) }", "N=50",
             "k=0:1000", KC_EXACT, 0},
            {"builtin-mixed", "def bm(double(N) a, float(N) b) -> (o) { o(i) = pow(a(i), b(i)) }",
             "N=50", "a=0.5:2 b=-2:2", KC_LOOSE, 0},
        };
        for (i = 0; i < 2; i++) {
            th_current = mixed[i].family;
            kc_run_case(&mixed[i]);
        }
    }
}

/* ---- inputs with strides: run and match, or rejected with a clear error ---- */
static void test_strided_input(void) {
    tc_program *p = kc_compile(KC_MM, "strided");
    tc_tensor in[2], want[1], got[1];
    int64_t st_a[2];
    tc_error err;
    tc_status st;
    char why[256];
    kc_rng rng = {99};
    float *abuf;
    if (!p) return;
    memset(in, 0, sizeof in);
    memset(want, 0, sizeof want);
    memset(got, 0, sizeof got);
    /* A (5x7) as the transpose of a 7x5 buffer */
    in[0].dtype = in[1].dtype = TC_FLOAT32;
    in[0].rank = in[1].rank = 2;
    in[0].shape[0] = 5, in[0].shape[1] = 7;
    in[1].shape[0] = 7, in[1].shape[1] = 4;
    abuf = (float *)malloc(35 * sizeof(float));
    in[0].data = abuf;
    in[1].data = malloc(28 * sizeof(float));
    kc_fill(&in[0], -1, 1, 0, &rng);
    kc_fill(&in[1], -1, 1, 0, &rng);
    st_a[0] = 1;
    st_a[1] = 5;
    in[0].strides = st_a;
    st = ref_run(p, NULL, in, 2, want, 1, why, sizeof why);
    CHECKF(st == TC_OK, "reference: %s", why);
    st = kc_vm(p, in, 2, got, 1, NULL, &err);
    CHECKF(st == TC_OK || st == TC_ERR_UNSUPPORTED || st == TC_ERR_INVALID_ARGUMENT,
           "strided input: %s: %s", tc_status_name(st), err.msg);
    if (st == TC_OK)
        CHECKF(kc_compare(&got[0], &want[0], KC_REDUCE, why, sizeof why), "%s", why);
    else
        CHECKF(strstr(err.msg, "stride") != NULL, "rejection does not say why: %s", err.msg);
    kc_free_vm(p, got, 1);
    ref_free_outputs(want, 1);
    kc_free_tensors(in, 2);
    tc_program_free(p);
}

/* ---- pooling on NaN, infinities and signed zeros ----
   min=/max= ignore NaN: the accumulator starts at the identity and takes a
   value only when it compares beyond it, in window order (so of -0 and +0
   the first wins, and a window of NaNs gives the identity); `max=` without
   `!` then folds that into the output with the NaN-aware max. Checked
   bitwise on the fused path (in place in the output) and the accumulating
   one, 2x2 (pair kernels) and 3x3 windows, float and double. */
static double kc_pool_pick(kc_rng *r) {
    static const double v[8] = {0.0, -0.0, 1.0, -1.0, 2.0, HUGE_VAL, -HUGE_VAL, 0.0};
    unsigned k = (unsigned)(kc_next(r) % 9);
    return k == 8 ? nan("") : v[k];
}
static double kc_pool_step(int mx, double m, double v) { return mx ? (v > m ? v : m) : (v < m ? v : m); }
static double kc_pool_fold(int mx, double o, double a) {
    if (o != o) return a;
    return mx ? (a > o ? a : o) : (a < o ? a : o);
}

static void kc_pool_special(int dbl, int mx, int acc, int k, int st) {
    const int64_t H = 9, W = 37, C = 2, OH = (H + st - k) / st, OW = (W + st - k) / st;
    char src[512], kk[8], ss[8];
    tc_program *p;
    tc_tensor in[1], out[1];
    tc_error err;
    kc_rng rng = {(uint64_t)(dbl * 16 + mx * 8 + acc * 4 + k + st)};
    size_t es = dbl ? sizeof(double) : sizeof(float);
    int64_t i, c, h, w, a, b, bad = -1;
    double *want = (double *)malloc(sizeof(double) * (size_t)(C * OH * OW));
    snprintf(kk, sizeof kk, "%d", k);
    snprintf(ss, sizeof ss, "%d", st);
    snprintf(src, sizeof src,
             "def pool(%s(N,C,H,W) I) -> (Out) {\n    Out(n,c,h,w) %s I(n,c,%s*h+kh,%s*w+kw) "
             "where kh in 0:%s, kw in 0:%s, h in 0:(H+%s-%s)/%s, w in 0:(W+%s-%s)/%s\n}\n",
             dbl ? "double" : "float", mx ? (acc ? "max=" : "max=!") : (acc ? "min=" : "min=!"),
             ss, ss, kk, kk, ss, kk, ss, ss, kk, ss);
    p = kc_compile(src, "pool-special");
    if (!p || !want) {
        free(want);
        tc_program_free(p);
        return;
    }
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dtype = out[0].dtype = dbl ? TC_FLOAT64 : TC_FLOAT32;
    in[0].rank = out[0].rank = 4;
    in[0].shape[0] = out[0].shape[0] = 1;
    in[0].shape[1] = out[0].shape[1] = C;
    in[0].shape[2] = H, in[0].shape[3] = W;
    out[0].shape[2] = OH, out[0].shape[3] = OW;
    in[0].data = malloc(es * (size_t)(C * H * W));
    out[0].data = malloc(es * (size_t)(C * OH * OW));
    for (i = 0; i < C * H * W; i++) {
        double v = kc_pool_pick(&rng);
        if (dbl) ((double *)in[0].data)[i] = v;
        else ((float *)in[0].data)[i] = (float)v;
    }
    for (i = 0; i < C * OH * OW; i++) {
        double v = acc ? kc_pool_pick(&rng) : 5.0; /* `!`: overwritten */
        if (dbl) ((double *)out[0].data)[i] = v;
        else ((float *)out[0].data)[i] = (float)v;
    }
    for (c = 0; c < C; c++)
        for (h = 0; h < OH; h++)
            for (w = 0; w < OW; w++) {
                double m = mx ? -HUGE_VAL : HUGE_VAL, o;
                i = (c * OH + h) * OW + w;
                for (a = 0; a < k; a++)
                    for (b = 0; b < k; b++) {
                        int64_t j = (c * H + st * h + a) * W + st * w + b;
                        double v = dbl ? ((double *)in[0].data)[j] : ((float *)in[0].data)[j];
                        m = kc_pool_step(mx, m, v);
                    }
                o = dbl ? ((double *)out[0].data)[i] : ((float *)out[0].data)[i];
                want[i] = acc ? kc_pool_fold(mx, o, m) : m;
            }
    CHECKF(kc_vm(p, in, 1, out, 1, NULL, &err) == TC_OK, "%s: %s", src, err.msg);
    for (i = 0; i < C * OH * OW && bad < 0; i++) {
        float f = (float)want[i];
        if (dbl ? memcmp(&want[i], (double *)out[0].data + i, es) != 0
                : memcmp(&f, (float *)out[0].data + i, es) != 0)
            bad = i;
    }
    CHECKF(bad < 0, "%s: element %lld differs", src, (long long)bad);
    free(in[0].data);
    free(out[0].data);
    free(want);
    tc_program_free(p);
}

static void test_pool_special(void) {
    int dbl, mx, acc, k;
    for (dbl = 0; dbl < 2; dbl++)
        for (mx = 0; mx < 2; mx++)
            for (acc = 0; acc < 2; acc++)
                for (k = 2; k <= 3; k++) {
                    kc_pool_special(dbl, mx, acc, k, 2);
                    kc_pool_special(dbl, mx, acc, k, 1);
                }
}

/* ---- the order of a row's float sums, and a chain dividing first, bitwise ----
   A reduction along the row keeps 64 partials (element j into partial
   j % 64, in order) and folds them in a fixed tree: the part beyond the
   largest power of two first, then halves. Computed here in that order and
   compared bit for bit, for bare loads, one op, a pair and the forms that
   go back to blocks (a uniform operand first, a divisor not a power of
   two), at row lengths around the 64 partials and the 512-lane block. The
   inputs span 2^-12 to 2^12, so another order gives other bits; max and
   min see rows of +0, -0 and -1 (or 1), where ties decide the zero's sign.
   Chains whose first or last link divides by a row's value, Y = A / s(i)
   * B + C, Z = (A + B) / s(i) and W = (A * B - C) / s(i), are checked
   against the plain IEEE operations, s(i) within and beyond the fast
   division's range, A with zeros. */
/* Float32 tensors t[0..] of M rows, ranks[k] '1' (M) or '2' (M x N), with
   room for M x N elements; kc_f32_free frees them. */
static void kc_f32_alloc(tc_tensor *t, const char *ranks, int64_t M, int64_t N) {
    int k;
    for (k = 0; ranks[k]; k++) {
        memset(&t[k], 0, sizeof t[k]);
        t[k].dtype = TC_FLOAT32;
        t[k].rank = ranks[k] - '0';
        t[k].shape[0] = M;
        t[k].shape[1] = N;
        t[k].data = malloc(sizeof(float) * (size_t)(M * N + 1));
    }
}
static void kc_f32_free(tc_tensor *t, int n) {
    int k;
    for (k = 0; k < n; k++) free(t[k].data);
}

/* A float reduction's operation: mx 1 max, -1 min, 0 sum; 2 product. */
static float kc_red_op(int mx, float a, float b) {
    return mx == 1 ? (b > a ? b : a) : mx == -1 ? (b < a ? b : a) : mx == 2 ? a * b : a + b;
}
static float kc_red_id(int mx) {
    return mx == 1 ? -HUGE_VALF : mx == -1 ? HUGE_VALF : mx == 2 ? 1.0f : 0.0f;
}

/* tc__k_fold's tree over n values: the part beyond the largest power of
   two first, then halves. */
static float kc_fold_partials(float *q, int64_t n, int mx) {
    int64_t h = 1, i;
    if (n < 1) return kc_red_id(mx);
    while (h * 2 <= n) h *= 2;
    for (;;) {
        for (i = 0; i < n - h; i++) q[i] = kc_red_op(mx, q[i], q[i + h]);
        if (h == 1) break;
        n = h;
        h /= 2;
    }
    return q[0];
}

#ifndef TC_SEG_LANES /* tc.h's default (t_stream sets its own) */
#define TC_SEG_LANES 65536
#endif

/* The order the VM reduces a row of n float values in, written out: 64
   partials, element j in partial j % 64, folded; a row of 2 * TC_SEG_LANES
   values or more in segments of TC_SEG_LANES, each reduced so, then their
   values folded in the same tree. */
static float kc_row_reduce(const float *v, int64_t n, int mx) {
    const int64_t seg = n >= 2 * (int64_t)TC_SEG_LANES ? TC_SEG_LANES : n;
    int64_t n_seg = seg ? (n + seg - 1) / seg : 0, s, j;
    float *vals = (float *)malloc(sizeof(float) * (size_t)(n_seg + 1)), q[64], r;
    for (s = 0; s < n_seg; s++) {
        int64_t m = n - s * seg < seg ? n - s * seg : seg;
        for (j = 0; j < 64; j++) q[j] = kc_red_id(mx);
        for (j = 0; j < m; j++) q[j % 64] = kc_red_op(mx, q[j % 64], v[s * seg + j]);
        vals[s] = kc_fold_partials(q, m < 64 ? m : 64, mx);
    }
    r = kc_fold_partials(vals, n_seg, mx);
    free(vals);
    return r;
}

static float kc_row_value(int k, float a, float b, float n) {
    switch (k) {
    case 0: return a;
    case 1: return a * 2.0f;
    case 2: return a / n;
    case 3: return a * b / n;
    case 4: return (a + b) * a;
    case 5: return a * 3.0f + b;
    default: return a / 3.0f;
    }
}

static void kc_row_order(int64_t N) {
    const char *src =
        "def rows(float(M,N) A, float(M,N) B, float(M) s, float(M,N) C, float(M,N) D, float(M,N) E) -> "
        "(r0, r1, r2, r3, r4, r5, r6, r7, r8, Y, Z, W) {\n"
        "    r0(i) +=! A(i,j)\n    r1(i) +=! A(i,j) * 2.0\n    r2(i) +=! A(i,j) / N\n"
        "    r3(i) +=! A(i,j) * B(i,j) / N\n    r4(i) +=! (A(i,j) + B(i,j)) * A(i,j)\n"
        "    r5(i) +=! A(i,j) * 3.0 + B(i,j)\n    r6(i) max=! D(i,j)\n    r7(i) min=! E(i,j)\n"
        "    r8(i) +=! A(i,j) / 3.0\n"
        "    Y(i,j) = A(i,j) / s(i) * B(i,j) + C(i,j)\n    Z(i,j) = (A(i,j) + B(i,j)) / s(i)\n"
        "    W(i,j) = (A(i,j) * B(i,j) - C(i,j)) / s(i)\n}\n";
    static const float sv[4] = {1.7f, -3.0e-3f, 1.0e-30f, 6.0e14f};
    const int64_t M = 4;
    tc_program *p = kc_compile(src, "row-order");
    tc_tensor in[6], out[12];
    tc_error err;
    kc_rng rng = {(uint64_t)N * 31 + 5};
    float *q = (float *)malloc(sizeof(float) * (size_t)N), *A, *B, *C, *S, *D, *E;
    int64_t i, j, bad_r = -1, bad_y = -1;
    int k;
    kc_f32_alloc(in, "221222", M, N);
    kc_f32_alloc(out, "111111111222", M, N);
    A = (float *)in[0].data, B = (float *)in[1].data, S = (float *)in[2].data, C = (float *)in[3].data;
    D = (float *)in[4].data, E = (float *)in[5].data;
    for (i = 0; i < M * N; i++) {
        A[i] = (float)ldexp(kc_unif(&rng) * 2.0 - 1.0, (int)(kc_next(&rng) % 25) - 12);
        B[i] = (float)ldexp(kc_unif(&rng) * 2.0 - 1.0, (int)(kc_next(&rng) % 25) - 12);
        C[i] = (float)(kc_unif(&rng) - 0.5);
        if (kc_next(&rng) % 16 == 0) A[i] = 0.0f;
        D[i] = (kc_next(&rng) % 8 == 0) ? -1.0f : (kc_next(&rng) % 2) ? 0.0f : -0.0f; /* max ties */
        E[i] = -D[i];
    }
    for (i = 0; i < M; i++) S[i] = sv[i % 4];
    if (p && q && kc_vm(p, in, 6, out, 12, NULL, &err) == TC_OK) {
        for (k = 0; k < 9; k++)
            for (i = 0; i < M; i++) {
                int mx = k == 6 ? 1 : k == 7 ? -1 : 0;
                float got = ((float *)out[k].data)[i], want;
                for (j = 0; j < N; j++)
                    q[j] = k == 6 ? D[i * N + j] : k == 7 ? E[i * N + j]
                                  : kc_row_value(k, A[i * N + j], B[i * N + j], (float)N);
                want = kc_row_reduce(q, N, mx);
                if (memcmp(&got, &want, sizeof got) != 0 && bad_r < 0) bad_r = k * 1000 + i;
            }
        for (i = 0; i < M * N; i++) {
            float want = A[i] / S[i / N] * B[i] + C[i], got = ((float *)out[9].data)[i];
            float wz = (A[i] + B[i]) / S[i / N], gz = ((float *)out[10].data)[i];
            float ww = (A[i] * B[i] - C[i]) / S[i / N], gw = ((float *)out[11].data)[i];
            if (memcmp(&got, &want, sizeof got) != 0 && bad_y < 0) bad_y = i;
            if (memcmp(&gz, &wz, sizeof gz) != 0 && bad_y < 0) bad_y = M * N + i;
            if (memcmp(&gw, &ww, sizeof gw) != 0 && bad_y < 0) bad_y = 2 * M * N + i;
        }
        CHECKF(bad_r < 0, "row sums, N=%lld: output r%lld row %lld differs from the 64-partial order",
               (long long)N, (long long)(bad_r / 1000), (long long)(bad_r % 1000));
        CHECKF(bad_y < 0, "%s, N=%lld: element %lld differs",
               bad_y < M * N ? "A / s(i) * B + C" : bad_y < 2 * M * N ? "(A + B) / s(i)" : "(A * B - C) / s(i)",
               (long long)N, (long long)(bad_y % (M * N)));
    } else {
        CHECKF(0, "row-order N=%lld: %s", (long long)N, p ? err.msg : "compile");
    }
    kc_f32_free(in, 6);
    kc_f32_free(out, 12);
    free(q);
    tc_program_free(p);
}

/* A reduction right after the statement that writes its rows runs inside
   that statement's pass (tc__vm_plan_absorb): checked bit for bit against
   the 64-partial order over the rows as written, for each reduction, after
   a whole-row producer (exp(x - m), a chain) and block-wise ones (a
   builtin, a chain dividing first), with one thread and three. */
static void kc_absorb_order(int64_t N, tc_pool *pool) {
    const char *src =
        "def absorb(float(M,N) A, float(M,N) B, float(M) m) -> (e, s, u, mx, v, mn, w, pr) {\n"
        "    e(i,j) = exp(A(i,j) - m(i))\n    s(i) +=! e(i,j)\n"
        "    u(i,j) = tanh(A(i,j) * B(i,j))\n    mx(i) max=! u(i,j)\n"
        "    v(i,j) = A(i,j) * B(i,j) + 1.0\n    mn(i) min=! v(i,j)\n"
        "    w(i,j) = A(i,j) / m(i) + 1.0\n    pr(i) *=! w(i,j)\n}\n";
    const int64_t M = 5;
    tc_program *p = kc_compile(src, "absorb");
    tc_tensor in[3], out[8];
    tc_error err;
    kc_rng rng = {(uint64_t)N * 17 + 3};
    int64_t i, bad = -1;
    int k;
    kc_f32_alloc(in, "221", M, N);
    kc_f32_alloc(out, "21212121", M, N);
    for (i = 0; i < M * N; i++) {
        ((float *)in[0].data)[i] = (float)(kc_unif(&rng) * 2.0 - 1.0);
        ((float *)in[1].data)[i] = (float)ldexp(kc_unif(&rng) * 2.0 - 1.0, (int)(kc_next(&rng) % 9) - 4);
    }
    for (i = 0; i < M; i++) ((float *)in[2].data)[i] = 2.0f + (float)i;
    if (p && kc_vm(p, in, 3, out, 8, pool, &err) == TC_OK) {
        for (k = 0; k < 4; k++) {
            const float *x = (const float *)out[2 * k].data, *got = (const float *)out[2 * k + 1].data;
            int mx = k == 1 ? 1 : k == 2 ? -1 : k == 3 ? 2 : 0;
            for (i = 0; i < M; i++) {
                float want = kc_row_reduce(x + i * N, N, mx);
                if (memcmp(&want, &got[i], sizeof want) != 0 && bad < 0) bad = k * 1000 + i;
            }
        }
        CHECKF(bad < 0, "absorbed reduction, N=%lld, %s: output %d row %lld differs from the 64-partial order",
               (long long)N, pool ? "pool" : "one thread", (int)(bad / 1000) * 2 + 1, (long long)(bad % 1000));
    } else {
        CHECKF(0, "absorb N=%lld: %s", (long long)N, p ? err.msg : "compile");
    }
    kc_f32_free(in, 3);
    kc_f32_free(out, 8);
    tc_program_free(p);
}

/* A sum of the squares of the row the statement before writes with one op
   on a scalar runs inside that statement's pass (tc__vm_row_fuse:
   layernorm's d and var): each written row and each sum checked bit for
   bit, the sums against the 64-partial order over the rows as written; a
   row's value, a constant, a divisor a power of two or not; one thread and
   three. */
static void kc_square_sum_order(int64_t N, tc_pool *pool) {
    const char *src =
        "def sq(float(M,N) A, float(M) m) -> (d, v, e, w, f, u) {\n"
        "    d(i,j) = A(i,j) - m(i)\n    v(i) +=! d(i,j) * d(i,j) / N\n"
        "    e(i,j) = A(i,j) * 3.0\n    w(i) +=! e(i,j) * e(i,j)\n"
        "    f(i,j) = A(i,j) + m(i)\n    u(i) +=! f(i,j) * f(i,j) / 3.0\n}\n";
    const int64_t M = 5;
    tc_program *p = kc_compile(src, "square-sum");
    tc_tensor in[2], out[6];
    tc_error err;
    kc_rng rng = {(uint64_t)N * 29 + 5};
    float *q = (float *)malloc(sizeof(float) * (size_t)N);
    int64_t i, j, bad = -1;
    int k;
    kc_f32_alloc(in, "21", M, N);
    kc_f32_alloc(out, "212121", M, N);
    for (i = 0; i < M * N; i++)
        ((float *)in[0].data)[i] = (float)ldexp(kc_unif(&rng) * 2.0 - 1.0, (int)(kc_next(&rng) % 17) - 8);
    for (i = 0; i < M; i++) ((float *)in[1].data)[i] = (float)(kc_unif(&rng) - 0.5);
    if (p && q && kc_vm(p, in, 2, out, 6, pool, &err) == TC_OK) {
        const float *A = (const float *)in[0].data, *m = (const float *)in[1].data;
        for (k = 0; k < 3; k++) {
            const float *x = (const float *)out[2 * k].data, *got = (const float *)out[2 * k + 1].data;
            for (i = 0; i < M; i++) {
                float want;
                for (j = 0; j < N; j++) {
                    float a = A[i * N + j], r = k == 0 ? a - m[i] : k == 1 ? a * 3.0f : a + m[i];
                    if (memcmp(&r, &x[i * N + j], sizeof r) != 0 && bad < 0) bad = k * 1000 + i;
                    q[j] = k == 0 ? r * r / (float)N : k == 1 ? r * r : r * r / 3.0f;
                }
                want = kc_row_reduce(q, N, 0);
                if (memcmp(&want, &got[i], sizeof want) != 0 && bad < 0) bad = k * 1000 + 500 + i;
            }
        }
        CHECKF(bad < 0, "sum of squares after its row, N=%lld, %s: output %d row %lld differs",
               (long long)N, pool ? "pool" : "one thread", (int)(bad / 1000) * 2 + (bad % 1000 >= 500),
               (long long)(bad % 500));
    } else {
        CHECKF(0, "square-sum N=%lld: %s", (long long)N, p ? err.msg : "compile");
    }
    kc_f32_free(in, 2);
    kc_f32_free(out, 6);
    free(q);
    tc_program_free(p);
}

/* Reduction loops every read steps through as one (A(i,j) summed over
   both, row-major) are one loop (tc__vm_plan_collapse): the whole matrix
   reduces as one row of M * N values, in kc_row_reduce's order. */
static void kc_collapse_order(int64_t M, int64_t N) {
    const char *src = "def sum2(float(M,N) A, float(M,N) B) -> (s, mx) {\n"
                      "    s +=! A(i,j)\n    mx max=! A(i,j) * B(i,j)\n}\n";
    tc_program *p = kc_compile(src, "collapse-order");
    tc_tensor in[2], out[2];
    tc_error err;
    kc_rng rng = {(uint64_t)(M * N) * 7 + 1};
    float *A, *B, *prod = (float *)malloc(sizeof(float) * (size_t)(M * N));
    int64_t i;
    kc_f32_alloc(in, "22", M, N);
    kc_f32_alloc(out, "00", M, N);
    A = (float *)in[0].data, B = (float *)in[1].data;
    for (i = 0; i < M * N; i++) {
        A[i] = (float)ldexp(kc_unif(&rng) * 2.0 - 1.0, (int)(kc_next(&rng) % 5) - 2);
        B[i] = (float)(kc_unif(&rng) * 2.0 - 1.0);
        prod[i] = A[i] * B[i];
    }
    if (p && prod && kc_vm(p, in, 2, out, 2, g_pool3, &err) == TC_OK) {
        float want_s = kc_row_reduce(A, M * N, 0), want_m = kc_row_reduce(prod, M * N, 1);
        CHECKF(memcmp(out[0].data, &want_s, sizeof want_s) == 0 && memcmp(out[1].data, &want_m, sizeof want_m) == 0,
               "collapsed loops, M=%lld N=%lld: s %.9g (want %.9g), mx %.9g (want %.9g)", (long long)M,
               (long long)N, (double)*(float *)out[0].data, (double)want_s, (double)*(float *)out[1].data,
               (double)want_m);
    } else {
        CHECKF(0, "collapse-order M=%lld N=%lld: %s", (long long)M, (long long)N, p ? err.msg : "compile");
    }
    kc_f32_free(in, 2);
    kc_f32_free(out, 2);
    free(prod);
    tc_program_free(p);
}

/* A 2x2 stride-2 window summed in the loops' order, ((q00 + q01) + q10) +
   q11, for pools 3 to 9 outputs wide (a narrow pool keeps its output loop
   as the lane loop; tc__vm_pick_lane; at 1 or 2 the two lanes of kw win,
   partial sums), plain and divided by 4. */
static void kc_window_order(int64_t W) {
    const char *src = "def pw(float(H,W) I) -> (O, Q) {\n"
                      "    O(h,w) +=! I(2*h+kh,2*w+kw) where kh in 0:2, kw in 0:2\n"
                      "    Q(h,w) +=! I(2*h+kh,2*w+kw) / 4.0 where kh in 0:2, kw in 0:2\n}\n";
    tc_program *p = kc_compile(src, "window-order");
    tc_tensor in[1], out[2];
    tc_error err;
    kc_rng rng = {(uint64_t)W * 13 + 5};
    int64_t H = 6, i, h, w, bad = 0;
    float *I;
    kc_f32_alloc(in, "2", H, 2 * W);
    kc_f32_alloc(out, "22", H / 2, W);
    I = (float *)in[0].data;
    for (i = 0; i < H * 2 * W; i++) I[i] = (float)ldexp(kc_unif(&rng) * 2.0 - 1.0, (int)(kc_next(&rng) % 9) - 4);
    if (p && kc_vm(p, in, 1, out, 2, g_pool3, &err) == TC_OK) {
        for (h = 0; h < H / 2; h++)
            for (w = 0; w < W; w++) {
                const float *q = I + 2 * h * 2 * W + 2 * w;
                float o = 0.0f, d = 0.0f;
                o = o + q[0], o = o + q[1], o = o + q[2 * W], o = o + q[2 * W + 1];
                d = d + q[0] / 4.0f, d = d + q[1] / 4.0f, d = d + q[2 * W] / 4.0f, d = d + q[2 * W + 1] / 4.0f;
                bad += memcmp((float *)out[0].data + h * W + w, &o, sizeof o) != 0;
                bad += memcmp((float *)out[1].data + h * W + w, &d, sizeof d) != 0;
            }
        CHECKF(bad == 0, "2x2 windows %lld wide: %lld sums not in the loops' order", (long long)W, (long long)bad);
    } else {
        CHECKF(0, "window-order W=%lld: %s", (long long)W, p ? err.msg : "compile");
    }
    kc_f32_free(in, 1);
    kc_f32_free(out, 2);
    tc_program_free(p);
}

static void test_row_order(void) {
    /* ... 131100: three segments (tc__vm_plan_segments), the last of 28 lanes */
    static const int64_t n[] = {1, 7, 63, 64, 65, 100, 511, 513, 1024, 1100, 131100};
    size_t k;
    for (k = 0; k < sizeof n / sizeof n[0]; k++) {
        kc_row_order(n[k]);
        kc_absorb_order(n[k], NULL);
        kc_absorb_order(n[k], g_pool3);
        kc_square_sum_order(n[k], NULL);
        kc_square_sum_order(n[k], g_pool3);
    }
    kc_collapse_order(5, 77);
    kc_collapse_order(3, 50021); /* 150063 values: segments too */
    for (k = 3; k <= 9; k++) kc_window_order((int64_t)k);
}

/* ---- run-time errors: both oracles fail, with the VM's status as specified ---- */
static void kc_expect_error(const char *src, const char *sizes, const char *ranges, tc_status want,
                            const char *what) {
    tc_program *p = kc_compile(src, what);
    tc_tensor in[8], o[KC_MAX_OUT];
    const tc_ir_def *d;
    tc_error err;
    tc_status st, rst;
    char why[256];
    kc_rng rng = {7};
    if (!p) return;
    d = tc_program_ir(p, tc_program_find(p, NULL));
    memset(o, 0, sizeof o);
    if (kc_make_inputs(d, sizes, ranges, &rng, in, why, sizeof why)) {
        rst = ref_run(p, NULL, in, d->n_inputs, o, d->n_outputs, why, sizeof why);
        CHECKF(rst != TC_OK, "%s: the reference did not fail", what);
        ref_free_outputs(o, d->n_outputs);
        memset(&err, 0, sizeof err);
        st = kc_vm(p, in, d->n_inputs, o, d->n_outputs, NULL, &err);
        CHECKF(st == want, "%s: got %s (%s), want %s", what, tc_status_name(st), err.msg,
               tc_status_name(want));
        CHECKF(st == TC_OK || err.msg[0] != 0, "%s: no message", what);
        if (st == TC_OK) kc_free_vm(p, o, d->n_outputs);
        kc_free_tensors(in, d->n_inputs);
    } else {
        CHECKF(0, "%s: %s", what, why);
    }
    tc_program_free(p);
}

static void test_run_errors(void) {
    kc_expect_error(KC_GATHER32, "V=10 D=3 L=20", "Idx=0:10", TC_ERR_BOUNDS, "gather past the end");
    kc_expect_error(KC_GATHER64, "V=10 D=3 L=20", "Idx=-3:3", TC_ERR_BOUNDS, "gather below 0");
    kc_expect_error("def sgt(float(V) w, int32(N) Idx) -> (s) { s +=! w(Idx(i)) }", "V=100 N=131100",
                    "Idx=0:100", TC_ERR_BOUNDS, "gather in a reduction run in segments");
    kc_expect_error(
        "def pre(float(N) B, float(M) C, float(K) D) -> (A) { A(i,j) = B(i) * C(i+j) * D(j) }",
        "N=4 M=7 K=5", 0, TC_ERR_BOUNDS, "precondition");
    kc_expect_error("def tile(float(N) x, int32 R) -> (y) { y(r,i) = x(i) where r in 0:R }", "N=3",
                    "R=-2:-2", TC_ERR_SHAPE, "negative extent from a scalar");
    kc_expect_error(KC_CONV, "N=1 C=1 H=1 W=5 O=1 KH=3 KW=2", 0, TC_ERR_SHAPE,
                    "kernel larger than the input");
}

/* ---- the oracle itself, on hand-built IR: C(i,j) +=! A(i,k) * B(k,j) ---- */
static void test_reference_self(void) {
    /* sx: 0 M, 1 K, 2 N, 3 const 0 */
    static const tc_sx sx[4] = {
        {TC_SX_VAR, 0, 0, 0}, {TC_SX_VAR, 0, 0, 1}, {TC_SX_VAR, 0, 0, 2}, {TC_SX_CONST, 0, 0, 0}};
    static const char *const vars[3] = {"M", "K", "N"};
    static const int64_t ca[3] = {1, 0, 0}, cak[3] = {0, 0, 1}, cbk[3] = {0, 0, 1},
                         cb[3] = {0, 1, 0};
    static const tc_ir_index ia[2] = {{1, ca, 3, 0}, {1, cak, 3, 0}};
    static const tc_ir_index ib[2] = {{1, cbk, 3, 0}, {1, cb, 3, 0}};
    static const tc_ir_loop loops[3] = {{"i", 3, 0, 0}, {"j", 3, 2, 0}, {"k", 3, 1, 1}};
    tc_ir_tensor tens[3];
    tc_ir_node nodes[3];
    tc_ir_stmt stmt;
    tc_ir_def d;
    float a[6] = {1, 2, 3, 4, 5, 6}, b[12], want[8];
    tc_tensor in[2], out[1];
    char why[256];
    int i, j, k, ok = 1;
    for (i = 0; i < 12; i++)
        b[i] = (float)(i * 0.5 - 2);
    memset(tens, 0, sizeof tens);
    memset(nodes, 0, sizeof nodes);
    memset(&stmt, 0, sizeof stmt);
    memset(&d, 0, sizeof d);
    tens[0].name = "A", tens[0].dtype = TC_FLOAT32, tens[0].rank = 2, tens[0].extent[0] = 0,
    tens[0].extent[1] = 1;
    tens[1].name = "B", tens[1].dtype = TC_FLOAT32, tens[1].rank = 2, tens[1].extent[0] = 1,
    tens[1].extent[1] = 2;
    tens[2].name = "C", tens[2].dtype = TC_FLOAT32, tens[2].rank = 2, tens[2].extent[0] = 0,
    tens[2].extent[1] = 2, tens[2].kind = TC_TENSOR_OUTPUT;
    nodes[0].op = TC_IR_READ, nodes[0].dtype = TC_FLOAT32, nodes[0].tensor = 0, nodes[0].index = ia;
    nodes[1].op = TC_IR_READ, nodes[1].dtype = TC_FLOAT32, nodes[1].tensor = 1, nodes[1].index = ib;
    nodes[2].op = TC_IR_MUL, nodes[2].dtype = TC_FLOAT32, nodes[2].nargs = 2, nodes[2].args[0] = 0,
    nodes[2].args[1] = 1;
    stmt.tensor = 2, stmt.reduce = TC_REDUCE_SUM, stmt.init = 1, stmt.n_loops = 3,
    stmt.loops = loops;
    stmt.n_nodes = 3, stmt.nodes = nodes, stmt.value = 2;
    d.name = "mm", d.n_inputs = 2, d.n_outputs = 1, d.n_tensors = 3, d.tensors = tens;
    d.n_sizevars = 3, d.sizevars = vars, d.n_sx = 4, d.sx = sx, d.n_stmts = 1, d.stmts = &stmt;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dtype = in[1].dtype = TC_FLOAT32;
    in[0].rank = in[1].rank = 2;
    in[0].shape[0] = 2, in[0].shape[1] = 3, in[0].data = a;
    in[1].shape[0] = 3, in[1].shape[1] = 4, in[1].data = b;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 4; j++) {
            float s = 0;
            for (k = 0; k < 3; k++)
                s += a[i * 3 + k] * b[k * 4 + j];
            want[i * 4 + j] = s;
        }
    CHECKF(ref_run_def(&d, in, 2, out, 1, why, sizeof why) == TC_OK, "%s", why);
    CHECK(out[0].rank == 2 && out[0].shape[0] == 2 && out[0].shape[1] == 4);
    for (i = 0; out[0].data && i < 8; i++)
        ok &= ((float *)out[0].data)[i] == want[i];
    CHECK(ok);
    ref_free_outputs(out, 1);
    in[1].shape[0] = 4; /* K bound to 3 and 4 */
    CHECK(ref_run_def(&d, in, 2, out, 1, why, sizeof why) == TC_ERR_SHAPE);
    /* float16 rounding: every half survives a round trip; ties go to even */
    for (i = 0, ok = 1; i < 65536; i++) {
        float f = ref_half_to_float((uint16_t)i);
        if (f == f) ok &= ref_float_to_half(f) == (uint16_t)i;
    }
    CHECK(ok);
    CHECK(ref_float_to_half(1.0f + 1.0f / 2048) == 0x3c00);
    CHECK(ref_float_to_half(1.0f + 3.0f / 2048) == 0x3c02);
    CHECK(ref_float_to_half(65519.0f) == 0x7bff && ref_float_to_half(65520.0f) == 0x7c00);
    CHECK(ref_floordiv(-7, 2) == -4 && ref_floormod(-7, 2) == 1 && ref_floormod(7, -2) == -1);
    CHECK(ref_floordiv(5, 0) == 0 && ref_floormod(5, 0) == 0);
    CHECK(ref_wrap(TC_INT8, 200) == (uint64_t)-56 && ref_wrap(TC_UINT8, 300) == 44);
}

/* ---- a lane reduction's one op with a -0 scalar, bitwise ----
   O(i) min=! X(i,k) + s and max=! with s = -0: X + -0 is X, so a row of
   1s, 2s and -0s has the minimum -0 (never +0: no +0 is in the row), a row
   of -1s, -2s and -0s the maximum -0; rows of 96 (folded several to a
   block, the op made as the rows are reduced: sp->lane_op), and for the
   other paths rows of 5 (lanes along the rows' loop) and 1300 (the
   element-wise kernels). A scalar spread as 0 + s would give +0. */
static void test_lane_op_zeros(void) {
    static const int64_t lens[3] = {5, 96, 1300};
    int li, mx;
    for (li = 0; li < 3; li++)
        for (mx = 0; mx < 2; mx++) {
            const int64_t M = 40, K = lens[li];
            char src[160];
            tc_program *p;
            tc_tensor in[2], out[1];
            tc_error err;
            float s = -0.0f, *X = (float *)malloc(sizeof(float) * (size_t)(M * K)), *O;
            int64_t i, bad = -1;
            kc_rng rng = {(uint64_t)(li * 2 + mx + 1)};
            snprintf(src, sizeof src, "def f(float(M,K) X, float s) -> (O) {\n    O(i) %s X(i,k) + s\n}\n",
                     mx ? "max=!" : "min=!");
            p = kc_compile(src, "lane-op-zeros");
            if (!p || !X) {
                free(X);
                tc_program_free(p);
                return;
            }
            for (i = 0; i < M * K; i++) {
                unsigned r = (unsigned)(kc_next(&rng) % 4);
                X[i] = r == 0 ? -0.0f : (float)(mx ? -(int)r : (int)r);
            }
            for (i = 0; i < M; i++) X[i * K + (i % K)] = -0.0f; /* every row has one */
            memset(in, 0, sizeof in);
            memset(out, 0, sizeof out);
            in[0].dtype = in[1].dtype = out[0].dtype = TC_FLOAT32;
            in[0].rank = 2, in[0].shape[0] = M, in[0].shape[1] = K, in[0].data = X;
            in[1].rank = 0, in[1].data = &s;
            out[0].rank = 1, out[0].shape[0] = M;
            out[0].data = O = (float *)malloc(sizeof(float) * (size_t)M);
            CHECKF(O && kc_vm(p, in, 2, out, 1, NULL, &err) == TC_OK, "%s: %s", src, err.msg);
            for (i = 0; O && i < M && bad < 0; i++) {
                float want = -0.0f;
                if (memcmp(&O[i], &want, sizeof want) != 0) bad = i;
            }
            CHECKF(bad < 0, "%s, rows of %lld: row %lld is %g, not -0", src, (long long)K, (long long)bad,
                   bad >= 0 ? (double)O[bad] : 0.0);
            free(X);
            free(O);
            tc_program_free(p);
        }
}

int main(void) {
    tc_error err;
    RUN(test_reference_self);
    CHECKF(tc_pool_create(2, NULL, &g_pool2, &err) == TC_OK, "pool: %s", err.msg);
    CHECKF(tc_pool_create(3, NULL, &g_pool3, &err) == TC_OK, "pool: %s", err.msg);
    RUN(test_families);
    RUN(test_builtins);
    RUN(test_strided_input);
    RUN(test_pool_special);
    RUN(test_row_order);
    RUN(test_lane_op_zeros);
    RUN(test_run_errors);
    tc_pool_free(g_pool2);
    tc_pool_free(g_pool3);
    return th_report();
}
