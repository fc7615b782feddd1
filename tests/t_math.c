/* [tc:math]: every builtin against known values (double and float), the
   vector float kernels against libm double over a dense sample of all float
   bit patterns (asserting the error bounds stated in tc.h [tc:math]),
   special values, scalar/block agreement, and float16 conversion. */
#define TC_IMPLEMENTATION
#include "tc.h"
#include "harness.h"

#include <float.h>
#include <stdint.h>

/* Sanitizer builds run a sparser dense sample (same code, fewer points). */
#if defined(__SANITIZE_ADDRESS__)
#define TM_STRIDE 4099u
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TM_STRIDE 4099u
#endif
#endif
#ifndef TM_STRIDE
#define TM_STRIDE 97u
#endif

static uint32_t tm_f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float tm_u2f(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint64_t tm_d2u(double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
static uint32_t tm_rng = 12345u;
static uint32_t tm_rand(void) { /* xorshift32 */
    tm_rng ^= tm_rng << 13;
    tm_rng ^= tm_rng >> 17;
    tm_rng ^= tm_rng << 5;
    return tm_rng;
}
static double tm_uniform(double lo, double hi) {
    return lo + (hi - lo) * ((double)tm_rand() / 4294967296.0);
}

/* Error of float y against the exact value r, in ulps of float at r
   (subnormal ulp 2^-149; past FLT_MAX, the ulp of FLT_MAX). */
static double tm_ulp_err(float y, double r) {
    float rf = (float)r;
    int e;
    double u;
    if (r != r) return y != y ? 0.0 : 1e30;
    if (y != y) return 1e30;
    if (isinf(y)) return (isinf(rf) && (y > 0) == (r > 0)) ? 0.0 : 1e30;
    if (isinf(rf)) rf = r > 0 ? 3.40282347e38f : -3.40282347e38f;
    if (rf == 0.0f) return fabs((double)y - r) / ldexp(1.0, -149);
    (void)frexp((double)rf, &e); /* |rf| in [2^(e-1), 2^e) */
    if (e - 1 < -126) e = -125;
    u = ldexp(1.0, e - 1 - 23);
    return fabs((double)y - r) / u;
}

static double tm_rel(double got, double want) {
    if (got == want) return 0.0;
    if (want == 0.0) return fabs(got);
    return fabs(got - want) / fabs(want);
}

/* ---- double reference: known values ------------------------------------- */

typedef struct tm_known {
    tc_builtin b;
    double a[4];
    double want;
    double tol; /* relative */
} tm_known;

#define K1(id, x, w, t) {TC_BUILTIN_##id, {x, 0, 0, 0}, w, t}
#define K2(id, x, y, w, t) {TC_BUILTIN_##id, {x, y, 0, 0}, w, t}
#define K3(id, x, y, z, w, t) {TC_BUILTIN_##id, {x, y, z, 0}, w, t}
#define K4(id, x, y, z, v, w, t) {TC_BUILTIN_##id, {x, y, z, v}, w, t}

/* Reference values from a 40-digit computation (mpmath). */
static const tm_known tm_known_values[] = {
    K1(ACOS, 0.5, 1.0471975511965977, 4e-16), K1(ACOSH, 2, 1.3169578969248167, 4e-16),
    K1(ASIN, 0.5, 0.52359877559829887, 4e-16), K1(ASINH, 1, 0.88137358701954303, 4e-16),
    K1(ATAN, 1, 0.78539816339744831, 4e-16), K1(ATANH, 0.5, 0.54930614433405485, 4e-16),
    K1(CBRT, -27, -3, 4e-16), K1(CEIL, -1.5, -1, 0), K1(COS, 1, 0.54030230586813972, 4e-16),
    K1(COSH, 1, 1.5430806348152438, 4e-16), K1(COSPI, 0.3, 0.58778525229247313, 4e-16),
    K1(COSPI, 0.5, 0, 0), K1(COSPI, -7, -1, 0),
    K1(CYL_BESSEL_I0, 1, 1.2660658777520083, 1e-15),
    K1(CYL_BESSEL_I0, 0.1, 1.0025015629340956, 1e-15),
    K1(CYL_BESSEL_I0, 10, 2815.7166284662545, 1e-14),
    K1(CYL_BESSEL_I0, -40, 14894774793419900.0, 1e-14),
    K1(CYL_BESSEL_I0, 700, 1.5295933476718737e+302, 1e-13),
    K1(CYL_BESSEL_I1, 1, 0.56515910399248503, 1e-15),
    K1(CYL_BESSEL_I1, 0.1, 0.050062526047092695, 1e-15),
    K1(CYL_BESSEL_I1, 10, 2670.9883037012547, 1e-14),
    K1(CYL_BESSEL_I1, -40, -14707396163259353.0, 1e-14),
    K1(CYL_BESSEL_I1, 700, 1.5285003902339007e+302, 1e-13),
    K1(ERF, 0.5, 0.52049987781304654, 4e-16), K1(ERFC, 0.5, 0.47950012218695346, 4e-16),
    K1(ERFCINV, 0.1, 1.1630871536766741, 1e-15), K1(ERFCINV, 1e-10, 4.5728249673894853, 1e-15),
    K1(ERFCINV, 1e-300, 26.209469960516124, 1e-14), K1(ERFCINV, 1.5, -0.47693627620446987, 1e-15),
    K1(ERFCINV, 1.9, -1.1630871536766741, 1e-15),
    K1(ERFCX, 10, 0.056140992743822586, 1e-15), K1(ERFCX, 1, 0.427583576155807, 1e-15),
    K1(ERFCX, -1, 5.0089800807622835, 1e-15), K1(ERFCX, 0.5, 0.61569034419292587, 1e-15),
    K1(ERFCX, 30, 0.018795888861416751, 1e-15), K1(ERFCX, 1e5, 5.6418958351954681e-6, 1e-15),
    K1(ERFCX, -10, 5.3762342836322709e+43, 1e-14),
    K1(ERFINV, 0.5, 0.47693627620446987, 1e-15), K1(ERFINV, -0.3, -0.27246271472675435, 1e-15),
    K1(ERFINV, 0.9, 1.1630871536766742, 1e-15), K1(ERFINV, 1e-10, 8.8622692545275801e-11, 1e-15),
    K1(ERFINV, 0.999999, 3.4589107372795, 1e-10), /* condition number ~1e5 near 1 */
    K1(EXP, 1, 2.7182818284590452, 4e-16), K1(EXP10, -3.5, 0.00031622776601683793, 4e-16),
    K1(EXP10, 2, 100, 4e-16), K1(EXP2, -1.5, 0.35355339059327376, 4e-16),
    K1(EXPM1, 1e-10, 1.00000000005e-10, 4e-16), K1(FABS, -2, 2, 0), K1(FLOOR, -1.5, -2, 0),
    K1(J0, 1, 0.76519768655796655, 1e-15), K1(J0, 2.5, -0.048383776468197996, 1e-14),
    K1(J0, -10, -0.24593576445134834, 1e-14), K1(J0, 30, -0.086367983581040211, 1e-14),
    K1(J0, 100, 0.019985850304223122, 1e-13), K1(J0, 0.001, 0.99999975000001562, 1e-15),
    K1(J0, 1e5, -0.0017192011162359722, 1e-11),
    K1(J1, 1, 0.44005058574493352, 1e-15), K1(J1, 2.5, 0.49709410246427404, 1e-14),
    K1(J1, 10, 0.043472746168861437, 1e-13), K1(J1, -30, 0.11875106261662294, 1e-14),
    K1(J1, 100, -0.077145352014112158, 1e-13), K1(J1, 0.001, 0.00049999993750000261, 1e-15),
    K1(J1, 1e5, 0.0018467575628825677, 1e-11),
    K1(LGAMMA, 0.5, 0.57236494292470009, 4e-16), K1(LOG, 10, 2.3025850929940457, 4e-16),
    /* lgamma at its zeros 1 and 2 (log|Gamma| there kept no digit), and below 2^-1024,
       where Gamma overflows (values: mpmath, 30 digits) */
    K1(LGAMMA, 1 - 0x1p-53, 6.4083812134800072e-17, 1e-15),
    K1(LGAMMA, 2 - 0x1p-52, -9.3876980655431168e-17, 1e-15),
    K1(LGAMMA, 1 + 0x1p-52, -1.2816762426960008e-16, 1e-15),
    K1(LGAMMA, 0.9999999999, 5.7721571274281784e-11, 1e-15),
    K1(LGAMMA, 1.5, -0.12078223763524522, 4e-16), K1(LGAMMA, 2.4999, 0.28461255726068264, 4e-16),
    K1(LGAMMA, 1.25, -0.098271836421813161, 4e-16), K1(LGAMMA, 2.2, 0.096947466790638873, 4e-16),
    K1(LGAMMA, 1.4652607067553254, -0.12147992716645026, 4e-16), /* near its minimum */
    K1(LGAMMA, 0.6, 0.39823385806923493, 4e-16), K1(LGAMMA, 0.7369176928299779, 0.21770603745335434, 4e-16),
    K1(LGAMMA, 4.9406564584124654e-324, 744.44007192138127, 4e-16),
    K1(LGAMMA, -1e-310, 713.80137882815417, 4e-16),
    K1(LOG10, 1000, 3, 4e-16), K1(LOG1P, 1e-10, 9.9999999995000004e-11, 4e-16),
    K1(LOG2, 10, 3.3219280948873623, 4e-16), K1(LOGB, 10, 3, 0),
    K1(NORMCDF, 1.96, 0.97500210485177957, 1e-15), K1(NORMCDF, -3, 0.0013498980316300945, 1e-15),
    K1(NORMCDF, -30, 4.9067139271481871e-198, 1e-14), K1(NORMCDF, 0, 0.5, 0),
    K1(NORMCDFINV, 0.975, 1.9599639845400542, 1e-15),
    K1(NORMCDFINV, 1e-10, -6.3613409024040562, 1e-15),
    K1(NORMCDFINV, 0.01, -2.3263478740408411, 1e-15),
    K1(NORMCDFINV, 0.999, 3.0902323061678135, 1e-13), K1(NORMCDFINV, 0.5, 0, 0),
    K1(RCBRT, 8, 0.5, 4e-16), K1(RCBRT, 2, 0.79370052598409974, 4e-16), K1(ROUND, 2.5, 3, 0),
    /* rcbrt to half an ulp (1 / cbrt was 5 ulp off), also where x y^3 needs scaling */
    K1(RCBRT, 1.5758961861157801e-187, 1.8513596686339116e+62, 1.2e-16),
    K1(RCBRT, 4.9406564584124654e-324, 5.8713564569345831e+107, 1.2e-16),
    K1(RCBRT, 1.7e308, 1.8051655059781123e-103, 1.2e-16), K1(RCBRT, -3, -0.6933612743506347, 1.2e-16),
    K1(ROUND, -2.5, -3, 0), K1(RSQRT, 4, 0.5, 0), K1(SIN, 1, 0.84147098480789651, 4e-16),
    K1(SINH, 1, 1.1752011936438015, 4e-16), K1(SINPI, 0.3, 0.80901699437494742, 4e-16),
    K1(SINPI, 1e10 + 0.25, 0.70710678118654752, 4e-16), K1(SINPI, -0.5, -1, 0),
    K1(SQRT, 2, 1.414213562373095, 4e-16), K1(TAN, 1, 1.5574077246549022, 4e-16),
    K1(TANH, 0.5, 0.46211715726000976, 4e-16), K1(TGAMMA, 4.5, 11.631728396567449, 1e-15),
    K1(TRUNC, -2.7, -2, 0),
    K1(Y0, 1, 0.088256964215676958, 1e-14), K1(Y0, 2.5, 0.49807035961523189, 1e-14),
    K1(Y0, 10, 0.055671167283599391, 1e-13), K1(Y0, 30, -0.11729573168666403, 1e-14),
    K1(Y0, 100, -0.077244313365083152, 1e-13), K1(Y0, 0.001, -4.4714166113759233, 1e-15),
    K1(Y0, 1e5, 0.0018467661588650641, 1e-11),
    K1(Y0, 4.9406564584124654e-324, -473.99907342300431, 1e-15), /* x / 2 is not x's half */
    K1(Y0, 1.4821969375237396e-323, -473.29967511787219, 1e-15),
    K1(J0, 1e308, -2.4706564120790078e-155, 1e-10), /* pi x overflows */
    K1(Y0, 0.8799023529192989, -0.012118327765172715, 4e-16), /* near a zero: log(x / 2) exact */
    K1(Y0, 0.9095205043090375, 0.013896873778369012, 1e-14),
    K1(Y1, 1, -0.78121282130028872, 1e-14), K1(Y1, 2.5, 0.1459181379667858, 1e-14),
    K1(Y1, 10, 0.24901542420695388, 1e-14), K1(Y1, 30, 0.084425570661747235, 1e-13),
    K1(Y1, 100, -0.020372312002759793, 1e-13), K1(Y1, 0.001, -636.62216723113941, 1e-15),
    K1(Y1, 1e5, 0.0017192103500882563, 1e-11),
    K2(ATAN2, 1, -1, 2.3561944901923449, 4e-16), K2(COPYSIGN, 3, -0.0, -3, 0),
    K2(FDIM, 5, 3, 2, 0), K2(FDIM, 3, 5, 0, 0), K2(FDIVIDE, 1, 4, 0.25, 0),
    K2(FMAX, 1, 2, 2, 0), K2(FMIN, 1, 2, 1, 0), K2(FMOD, 7, 3, 1, 0), K2(HYPOT, 3, 4, 5, 0),
    K2(NEXTAFTER, 1, 2, 1.0000000000000002, 0), K2(POW, 2, 10, 1024, 0),
    K2(REMAINDER, 7, 4, -1, 0), K2(RHYPOT, 3, 4, 0.2, 4e-16), K3(FMA, 2, 3, 4, 10, 0),
    K2(RHYPOT, 1.7e308, 1.7e308, 4.159451654038515e-309, 1e-15), /* subnormal, not 0 */
    K4(RNORM4D, 1.7e308, 1.7e308, 1.7e308, 1.7e308, 2.9411764705882354e-309, 1e-15),
    K3(NORM3D, 3, 4, 12, 13, 0), K3(NORM3D, 3e300, 4e300, 12e300, 13e300, 4e-16),
    K3(NORM3D, 3e-310, 4e-310, 12e-310, 13e-310, 1e-13), K3(RNORM3D, 3, 4, 12, 1.0 / 13, 4e-16),
    K4(NORM4D, 1, 2, 2, 4, 5, 0), K4(RNORM4D, 1, 2, 2, 4, 0.2, 4e-16),
};

static void test_known_f64(void) {
    size_t i;
    int seen[TC_BUILTIN_COUNT];
    memset(seen, 0, sizeof seen);
    for (i = 0; i < sizeof tm_known_values / sizeof tm_known_values[0]; i++) {
        const tm_known *k = &tm_known_values[i];
        double got = tc__math_f64(k->b, k->a);
        seen[k->b] = 1;
        CHECKF(tm_rel(got, k->want) <= k->tol, "%s(%.17g, %.17g) = %.17g, want %.17g",
               tc_builtin_name(k->b), k->a[0], k->a[1], got, k->want);
    }
    for (i = 0; i < TC_BUILTIN_COUNT; i++) CHECKF(seen[i], "no known value for builtin %d", (int)i);
}

/* The same values through the float entry points: within 2 ulp of the
   exact value (the float kernels' bounds are at most 2). */
static void test_known_f32(void) {
    size_t i;
    for (i = 0; i < sizeof tm_known_values / sizeof tm_known_values[0]; i++) {
        const tm_known *k = &tm_known_values[i];
        float a[4], got, blk;
        double da[4];
        int j;
        double w = k->want;
        for (j = 0; j < 4; j++) {
            a[j] = (float)k->a[j];
            da[j] = (double)a[j];
        }
        if (fabs(w) > 3.4e38 || (fabs(w) < 1.2e-38 && w != 0)) continue; /* not a float */
        if ((double)a[0] != k->a[0] || (double)a[1] != k->a[1] || (double)a[2] != k->a[2] ||
            (double)a[3] != k->a[3] || k->tol > 1e-13)
            w = tc__math_f64(k->b, da); /* the float arguments' exact result */
        got = tc__math_f32(k->b, a);
        tc__math_block_f32(k->b, &blk, &a[0], &a[1], &a[2], &a[3], 1);
        CHECKF(tm_ulp_err(got, w) <= 2.0, "%sf(%.9g, %.9g) = %.9g, want %.9g",
               tc_builtin_name(k->b), (double)a[0], (double)a[1], (double)got, w);
        CHECKF(tm_f2u(got) == tm_f2u(blk), "%s: scalar %.9g block %.9g", tc_builtin_name(k->b),
               (double)got, (double)blk);
    }
}

/* ---- double: special values --------------------------------------------- */

static double tm_f64_1(tc_builtin b, double x) {
    double a[4] = {0, 0, 0, 0};
    a[0] = x;
    return tc__math_f64(b, a);
}
static int tm_same_d(double got, double want) { /* bitwise, any nan for nan */
    if (want != want) return got != got;
    return tm_d2u(got) == tm_d2u(want);
}

static void test_special_f64(void) {
    const double inf = (double)INFINITY, nan = (double)NAN;
    struct {
        tc_builtin b;
        double x, want;
    } t[] = {
        {TC_BUILTIN_J0, 0.0, 1.0}, {TC_BUILTIN_J0, inf, 0.0}, {TC_BUILTIN_J0, -inf, 0.0},
        {TC_BUILTIN_J0, nan, nan}, {TC_BUILTIN_J1, -0.0, -0.0}, {TC_BUILTIN_J1, 0.0, 0.0},
        {TC_BUILTIN_J1, inf, 0.0}, {TC_BUILTIN_J1, -inf, -0.0}, {TC_BUILTIN_Y1, 5e-324, -inf},
        {TC_BUILTIN_Y0, 0.0, -inf}, {TC_BUILTIN_Y0, -1.0, nan},
        {TC_BUILTIN_Y0, inf, 0.0}, {TC_BUILTIN_Y1, 0.0, -inf}, {TC_BUILTIN_Y1, -0.5, nan},
        {TC_BUILTIN_Y1, inf, 0.0}, {TC_BUILTIN_Y1, nan, nan},
        {TC_BUILTIN_CYL_BESSEL_I0, 0.0, 1.0}, {TC_BUILTIN_CYL_BESSEL_I0, -inf, inf},
        {TC_BUILTIN_CYL_BESSEL_I0, 720.0, inf}, {TC_BUILTIN_CYL_BESSEL_I1, -0.0, -0.0},
        {TC_BUILTIN_CYL_BESSEL_I1, -inf, -inf}, {TC_BUILTIN_CYL_BESSEL_I1, nan, nan},
        {TC_BUILTIN_ERFINV, 1.0, inf}, {TC_BUILTIN_ERFINV, -1.0, -inf},
        {TC_BUILTIN_ERFINV, 1.5, nan}, {TC_BUILTIN_ERFINV, -0.0, -0.0},
        {TC_BUILTIN_ERFINV, nan, nan}, {TC_BUILTIN_ERFCINV, 0.0, inf},
        {TC_BUILTIN_ERFCINV, 2.0, -inf}, {TC_BUILTIN_ERFCINV, -0.5, nan},
        {TC_BUILTIN_ERFCINV, 2.5, nan}, {TC_BUILTIN_ERFCINV, 1.0, 0.0},
        {TC_BUILTIN_NORMCDFINV, 0.0, -inf}, {TC_BUILTIN_NORMCDFINV, 1.0, inf},
        {TC_BUILTIN_NORMCDFINV, 1.5, nan}, {TC_BUILTIN_NORMCDF, -inf, 0.0},
        {TC_BUILTIN_NORMCDF, inf, 1.0}, {TC_BUILTIN_NORMCDF, nan, nan},
        {TC_BUILTIN_ERFCX, inf, 0.0}, {TC_BUILTIN_ERFCX, -inf, inf},
        {TC_BUILTIN_ERFCX, -30.0, inf}, {TC_BUILTIN_ERFCX, nan, nan},
        {TC_BUILTIN_ERFCX, 0.0, 1.0}, {TC_BUILTIN_SINPI, -0.0, -0.0},
        {TC_BUILTIN_SINPI, 1.0, 0.0}, {TC_BUILTIN_SINPI, -2.0, -0.0},
        {TC_BUILTIN_SINPI, 1e300, 0.0}, {TC_BUILTIN_SINPI, inf, nan},
        {TC_BUILTIN_COSPI, 0.5, 0.0}, {TC_BUILTIN_COSPI, -1.5, 0.0},
        {TC_BUILTIN_COSPI, 1e300, 1.0}, {TC_BUILTIN_COSPI, -inf, nan},
        {TC_BUILTIN_COSPI, 4503599627370497.0, -1.0}, {TC_BUILTIN_RSQRT, 0.0, inf},
        {TC_BUILTIN_RSQRT, -0.0, -inf}, {TC_BUILTIN_RSQRT, inf, 0.0},
        {TC_BUILTIN_RSQRT, -1.0, nan}, {TC_BUILTIN_RCBRT, -0.0, -inf},
        {TC_BUILTIN_RCBRT, -inf, -0.0}, {TC_BUILTIN_EXP10, -inf, 0.0},
        {TC_BUILTIN_EXP10, 309.0, inf}, {TC_BUILTIN_LGAMMA, 1.0, 0.0}, {TC_BUILTIN_LGAMMA, 2.0, 0.0},
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        double got = tm_f64_1(t[i].b, t[i].x);
        CHECKF(tm_same_d(got, t[i].want), "%s(%g) = %g, want %g", tc_builtin_name(t[i].b),
               t[i].x, got, t[i].want);
    }
    {
        double a[4] = {inf, nan, 1.0, 0.0}, b[4] = {nan, 1.0, 1.0, 1.0};
        double z[4] = {-0.0, 0.0, 0.0, 0.0};
        CHECK(tc__math_f64(TC_BUILTIN_NORM3D, a) == inf);
        CHECK(tc__math_f64(TC_BUILTIN_NORM4D, a) == inf);
        CHECK(tc__math_f64(TC_BUILTIN_NORM3D, b) != tc__math_f64(TC_BUILTIN_NORM3D, b));
        CHECK(tc__math_f64(TC_BUILTIN_RNORM3D, z) == inf);
        CHECK(tm_same_d(tc__math_f64(TC_BUILTIN_FMIN, z), -0.0));
        CHECK(tm_same_d(tc__math_f64(TC_BUILTIN_FMAX, z), 0.0));
        CHECK(tc__math_f64(TC_BUILTIN_FMAX, b) == 1.0); /* fmax(nan, 1) = 1 */
        CHECK(tc__math_f64(TC_BUILTIN_FMIN, b) == 1.0);
    }
}

/* Symmetries and inverse pairs over many points: erfinv(erf(x)) = x,
   normcdfinv(normcdf(x)) = x, the Wronskian J1 Y0 - J0 Y1 = 2/(pi x)
   (ties J and Y across the three algorithms and their seams). */
static void test_identities_f64(void) {
    int i, bad_inv = 0, bad_norm = 0, bad_wr = 0;
    double worst_wr = 0.0;
    for (i = 0; i < 20000; i++) {
        double x = tm_uniform(-5.5, 5.5), y = tm_f64_1(TC_BUILTIN_ERF, x);
        double back = tm_f64_1(TC_BUILTIN_ERFINV, y);
        double cond = fabs(y) < 1.0 ? 1.0 + fabs(1.0 / (x * 2.0 / 1.7724538509055160 *
                                                       exp(-x * x)) * y) : 1e300;
        if (fabs(y) < 1.0 && fabs(back - x) > 4e-16 * cond * fabs(x) + 1e-300) bad_inv++;
        x = tm_uniform(-37.0, 8.0);
        {   /* p carries ~2e-16 p (left) or 1e-16 (right): x moves by that over the pdf */
            double p = tm_f64_1(TC_BUILTIN_NORMCDF, x), pdf = exp(-0.5 * x * x) / 2.5066282746310002;
            back = tm_f64_1(TC_BUILTIN_NORMCDFINV, p);
            if (p < 1.0 && fabs(back - x) > 1e-14 * (1.0 + fabs(x)) + 4.5e-16 * p / pdf) bad_norm++;
        }
        x = exp(tm_uniform(-6.0, 7.0));
        {
            double j0 = tm_f64_1(TC_BUILTIN_J0, x), j1 = tm_f64_1(TC_BUILTIN_J1, x);
            double y0 = tm_f64_1(TC_BUILTIN_Y0, x), y1 = tm_f64_1(TC_BUILTIN_Y1, x);
            double w = 2.0 / (3.14159265358979323846 * x), scale = fabs(j1 * y0) + fabs(j0 * y1);
            double err = fabs(j1 * y0 - j0 * y1 - w) / (scale > w ? scale : w);
            if (err > worst_wr) worst_wr = err;
            if (err > 1e-13) bad_wr++;
        }
    }
    CHECKF(bad_inv == 0, "erfinv(erf(x)) off at %d points", bad_inv);
    CHECKF(bad_norm == 0, "normcdfinv(normcdf(x)) off at %d points", bad_norm);
    CHECKF(bad_wr == 0, "Wronskian off at %d points (worst %g)", bad_wr, worst_wr);
}

/* ---- float kernels: dense ulp sweep -------------------------------------- */

typedef double (*tm_ref_fn)(double);
static double tm_ref_exp10(double x) { return pow(10.0, x); }
static double tm_ref_rsqrt(double x) { return 1.0 / sqrt(x); }

typedef struct tm_kernel {
    tc_builtin b;
    tm_ref_fn ref;
    double bound;    /* ulp, as stated in tc.h [tc:math] */
    unsigned stride; /* dense sweep: every stride-th bit pattern (x TM_STRIDE / 97) */
} tm_kernel;

/* The transcendental kernels get the densest sweep; sin/cos are swept
   less densely (libm's reference is slow for the half of all floats past
   2^20) and the exact ones least. */
static const tm_kernel tm_kernels[] = {
    {TC_BUILTIN_EXP, exp, 1.5, 97},           {TC_BUILTIN_EXP2, exp2, 1.5, 291},
    {TC_BUILTIN_EXP10, tm_ref_exp10, 1.5, 291}, {TC_BUILTIN_EXPM1, expm1, 2.0, 291},
    {TC_BUILTIN_LOG, log, 1.5, 97},           {TC_BUILTIN_LOG2, log2, 1.5, 291},
    {TC_BUILTIN_LOG10, log10, 1.5, 291},      {TC_BUILTIN_LOG1P, log1p, 1.5, 291},
    {TC_BUILTIN_TANH, tanh, 2.0, 97},         {TC_BUILTIN_ERF, erf, 2.0, 97},
    {TC_BUILTIN_SIN, sin, 0.501, 997},        {TC_BUILTIN_COS, cos, 0.501, 997},
    {TC_BUILTIN_SQRT, sqrt, 0.5, 291},        {TC_BUILTIN_RSQRT, tm_ref_rsqrt, 0.501, 291},
    {TC_BUILTIN_TRUNC, trunc, 0.0, 997},     {TC_BUILTIN_FLOOR, floor, 0.0, 997},
    {TC_BUILTIN_CEIL, ceil, 0.0, 997},       {TC_BUILTIN_ROUND, round, 0.0, 997},
    {TC_BUILTIN_FABS, fabs, 0.0, 997},
};

#define TM_BATCH 4096
static void tm_sweep_batch(const tm_kernel *k, const float *xs, int n, double *worst,
                           float *worst_x) {
    float ys[TM_BATCH];
    int i;
    tc__math_block_f32(k->b, ys, xs, NULL, NULL, NULL, n);
    for (i = 0; i < n; i++) {
        double e = tm_ulp_err(ys[i], k->ref((double)xs[i]));
        if (e > *worst) {
            *worst = e;
            *worst_x = xs[i];
        }
    }
}

static void test_ulp_sweep(void) {
    size_t k;
    for (k = 0; k < sizeof tm_kernels / sizeof tm_kernels[0]; k++) {
        static float xs[TM_BATCH];
        double worst = 0.0;
        float worst_x = 0.0f;
        uint64_t u;
        int n = 0, i;
        /* every TM_STRIDE-th bit pattern: all signs, exponents, nan, inf */
        for (u = 0; u < 0x100000000ull; u += tm_kernels[k].stride * (TM_STRIDE / 97u)) {
            xs[n++] = tm_u2f((uint32_t)u);
            if (n == TM_BATCH) {
                tm_sweep_batch(&tm_kernels[k], xs, n, &worst, &worst_x);
                n = 0;
            }
        }
        /* random values where the kernels switch formulas */
        for (i = 0; i < 64; i++) {
            for (n = 0; n < TM_BATCH; n++) {
                double r = (i % 2) ? tm_uniform(-12.0, 12.0) : tm_uniform(-1.2, 1.2);
                xs[n] = (float)(i % 4 < 2 ? r : exp(r * 8.0));
            }
            tm_sweep_batch(&tm_kernels[k], xs, n, &worst, &worst_x);
        }
        CHECKF(worst <= tm_kernels[k].bound, "%s: max error %.3f ulp at x = %.9g (bound %.3f)",
               tc_builtin_name(tm_kernels[k].b), worst, (double)worst_x, tm_kernels[k].bound);
        printf("  %-6s max error %.3f ulp (bound %.3f)\n", tc_builtin_name(tm_kernels[k].b), worst,
               tm_kernels[k].bound);
    }
}

/* Denser over the ranges that matter most for exp and tanh: every 5th
   float and its negative, in [0.5, 4) for exp; for tanh in [0.125, 10.5),
   across its switch to the exp form at 0.625 and its clamp at 10, where
   it must also be exactly odd. */
static void test_ulp_exhaustive_ranges(void) {
    static const struct {
        tc_builtin b;
        float lo, hi;
    } rs[2] = {{TC_BUILTIN_EXP, 0.5f, 4.0f}, {TC_BUILTIN_TANH, 0.125f, 10.5f}};
    int k;
    for (k = 0; k < 2; k++) {
        static float xs[TM_BATCH], ys[TM_BATCH];
        const tm_kernel *kern = NULL;
        double worst = 0.0;
        float worst_x = 0.0f;
        uint32_t u, lo = tm_f2u(rs[k].lo), hi = tm_f2u(rs[k].hi);
        size_t j;
        int n = 0, i, odd = rs[k].b == TC_BUILTIN_TANH, asym = 0;
        for (j = 0; j < sizeof tm_kernels / sizeof tm_kernels[0]; j++)
            if (tm_kernels[j].b == rs[k].b) kern = &tm_kernels[j];
        for (u = lo; u < hi || n > 0; u += TM_STRIDE == 97u ? 5u : 611u) {
            if (u < hi) {
                xs[n++] = tm_u2f(u);
                xs[n++] = -tm_u2f(u);
                if (n < TM_BATCH) continue;
            }
            tm_sweep_batch(kern, xs, n, &worst, &worst_x);
            if (odd) {
                tc__math_block_f32(rs[k].b, ys, xs, NULL, NULL, NULL, n);
                for (i = 0; i < n; i += 2) asym += tm_f2u(ys[i + 1]) != (tm_f2u(ys[i]) ^ 0x80000000u);
            }
            n = 0;
        }
        CHECKF(worst <= kern->bound, "%s on [%g, %g): %.3f ulp at %.9g", tc_builtin_name(rs[k].b),
               (double)rs[k].lo, (double)rs[k].hi, worst, (double)worst_x);
        CHECKF(asym == 0, "%s not odd at %d points", tc_builtin_name(rs[k].b), asym);
        printf("  %-6s max error %.3f ulp on [%g, %g)\n", tc_builtin_name(rs[k].b), worst,
               (double)rs[k].lo, (double)rs[k].hi);
    }
}

/* ---- float kernels: special values --------------------------------------- */

static int tm_same_f(float got, float want) { /* bitwise; any nan for nan */
    if (want != want) return got != got;
    return tm_f2u(got) == tm_f2u(want);
}

static void test_special_f32(void) {
    const float inf = INFINITY, nan = NAN, dmin = 1.40129846e-45f;
    struct {
        tc_builtin b;
        float x, want;
    } t[] = {
        {TC_BUILTIN_EXP, 0.0f, 1.0f}, {TC_BUILTIN_EXP, -0.0f, 1.0f}, {TC_BUILTIN_EXP, inf, inf},
        {TC_BUILTIN_EXP, -inf, 0.0f}, {TC_BUILTIN_EXP, nan, nan}, {TC_BUILTIN_EXP, 88.8f, inf},
        {TC_BUILTIN_EXP, 1e30f, inf}, {TC_BUILTIN_EXP, -104.0f, 0.0f},
        {TC_BUILTIN_EXP, -1e30f, 0.0f}, {TC_BUILTIN_EXP, dmin, 1.0f},
        {TC_BUILTIN_EXP, -103.28f, dmin}, /* e^-103.28 = 1.48e-45: rounds to the min subnormal */
        {TC_BUILTIN_EXP2, 0.0f, 1.0f}, {TC_BUILTIN_EXP2, 10.0f, 1024.0f},
        {TC_BUILTIN_EXP2, -149.0f, dmin}, {TC_BUILTIN_EXP2, -150.0f, 0.0f},
        {TC_BUILTIN_EXP2, -126.0f, 1.17549435e-38f}, {TC_BUILTIN_EXP2, 127.0f, 1.70141183e38f},
        {TC_BUILTIN_EXP2, 128.0f, inf}, {TC_BUILTIN_EXP2, -inf, 0.0f},
        {TC_BUILTIN_EXP2, nan, nan}, {TC_BUILTIN_EXP10, 0.0f, 1.0f},
        {TC_BUILTIN_EXP10, 39.0f, inf}, {TC_BUILTIN_EXP10, -46.0f, 0.0f},
        {TC_BUILTIN_EXP10, inf, inf}, {TC_BUILTIN_EXP10, nan, nan},
        {TC_BUILTIN_EXPM1, 0.0f, 0.0f}, {TC_BUILTIN_EXPM1, -0.0f, -0.0f},
        {TC_BUILTIN_EXPM1, dmin, dmin}, {TC_BUILTIN_EXPM1, -dmin, -dmin},
        {TC_BUILTIN_EXPM1, 1e-20f, 1e-20f}, {TC_BUILTIN_EXPM1, inf, inf},
        {TC_BUILTIN_EXPM1, -inf, -1.0f}, {TC_BUILTIN_EXPM1, -30.0f, -1.0f},
        {TC_BUILTIN_EXPM1, 89.0f, inf}, {TC_BUILTIN_EXPM1, nan, nan},
        {TC_BUILTIN_LOG, 1.0f, 0.0f}, {TC_BUILTIN_LOG, 0.0f, -inf}, {TC_BUILTIN_LOG, -0.0f, -inf},
        {TC_BUILTIN_LOG, -1.0f, nan}, {TC_BUILTIN_LOG, inf, inf}, {TC_BUILTIN_LOG, -inf, nan},
        {TC_BUILTIN_LOG, nan, nan}, {TC_BUILTIN_LOG2, 8.0f, 3.0f},
        {TC_BUILTIN_LOG2, dmin, -149.0f}, {TC_BUILTIN_LOG2, 0.0f, -inf},
        {TC_BUILTIN_LOG2, 0.5f, -1.0f}, {TC_BUILTIN_LOG2, 1.0f, 0.0f},
        {TC_BUILTIN_LOG10, 1.0f, 0.0f}, {TC_BUILTIN_LOG10, -2.0f, nan},
        {TC_BUILTIN_LOG10, 0.0f, -inf}, {TC_BUILTIN_LOG1P, 0.0f, 0.0f},
        {TC_BUILTIN_LOG1P, -0.0f, -0.0f}, {TC_BUILTIN_LOG1P, dmin, dmin},
        {TC_BUILTIN_LOG1P, -dmin, -dmin}, {TC_BUILTIN_LOG1P, -1.0f, -inf},
        {TC_BUILTIN_LOG1P, -2.0f, nan}, {TC_BUILTIN_LOG1P, inf, inf},
        {TC_BUILTIN_LOG1P, -inf, nan}, {TC_BUILTIN_LOG1P, nan, nan},
        {TC_BUILTIN_TANH, 0.0f, 0.0f}, {TC_BUILTIN_TANH, -0.0f, -0.0f},
        {TC_BUILTIN_TANH, dmin, dmin}, {TC_BUILTIN_TANH, -1e-30f, -1e-30f},
        {TC_BUILTIN_TANH, 10.0f, 1.0f}, {TC_BUILTIN_TANH, -1e30f, -1.0f},
        {TC_BUILTIN_TANH, inf, 1.0f}, {TC_BUILTIN_TANH, -inf, -1.0f},
        {TC_BUILTIN_TANH, nan, nan}, {TC_BUILTIN_TANH, 9.5f, 1.0f}, {TC_BUILTIN_TANH, -20.0f, -1.0f},
        {TC_BUILTIN_TANH, 3.0e38f, 1.0f}, {TC_BUILTIN_TANH, 9.53674316e-07f, 9.53674316e-07f},
        {TC_BUILTIN_ERF, 0.0f, 0.0f}, {TC_BUILTIN_ERF, -0.0f, -0.0f},
        {TC_BUILTIN_ERF, 4.0f, 1.0f}, {TC_BUILTIN_ERF, -1e30f, -1.0f},
        {TC_BUILTIN_ERF, -inf, -1.0f}, {TC_BUILTIN_ERF, inf, 1.0f}, {TC_BUILTIN_ERF, nan, nan},
        {TC_BUILTIN_SIN, 0.0f, 0.0f}, {TC_BUILTIN_SIN, -0.0f, -0.0f}, {TC_BUILTIN_SIN, dmin, dmin},
        {TC_BUILTIN_SIN, -dmin, -dmin}, {TC_BUILTIN_SIN, inf, nan}, {TC_BUILTIN_SIN, -inf, nan},
        {TC_BUILTIN_SIN, nan, nan}, {TC_BUILTIN_COS, 0.0f, 1.0f}, {TC_BUILTIN_COS, -0.0f, 1.0f},
        {TC_BUILTIN_COS, dmin, 1.0f}, {TC_BUILTIN_COS, inf, nan}, {TC_BUILTIN_COS, nan, nan},
        {TC_BUILTIN_SQRT, 4.0f, 2.0f}, {TC_BUILTIN_SQRT, 0.0f, 0.0f},
        {TC_BUILTIN_SQRT, -0.0f, -0.0f}, {TC_BUILTIN_SQRT, -1.0f, nan},
        {TC_BUILTIN_SQRT, -dmin, nan}, {TC_BUILTIN_SQRT, inf, inf}, {TC_BUILTIN_SQRT, -inf, nan},
        {TC_BUILTIN_SQRT, nan, nan}, {TC_BUILTIN_SQRT, 2.0f * dmin, 5.29395592e-23f},
        {TC_BUILTIN_RSQRT, 4.0f, 0.5f}, {TC_BUILTIN_RSQRT, 0.0f, inf},
        {TC_BUILTIN_RSQRT, -0.0f, -inf}, {TC_BUILTIN_RSQRT, inf, 0.0f},
        {TC_BUILTIN_RSQRT, -4.0f, nan}, {TC_BUILTIN_RSQRT, nan, nan},
        {TC_BUILTIN_RSQRT, 2.0f * dmin, 1.88894659e22f},
        {TC_BUILTIN_TRUNC, -0.5f, -0.0f}, {TC_BUILTIN_TRUNC, 2.99999976f, 2.0f},
        {TC_BUILTIN_TRUNC, -8388607.5f, -8388607.0f}, {TC_BUILTIN_TRUNC, 1e30f, 1e30f},
        {TC_BUILTIN_TRUNC, inf, inf}, {TC_BUILTIN_TRUNC, nan, nan},
        {TC_BUILTIN_FLOOR, -0.5f, -1.0f}, {TC_BUILTIN_FLOOR, -0.0f, -0.0f},
        {TC_BUILTIN_FLOOR, 0.5f, 0.0f}, {TC_BUILTIN_FLOOR, -8388607.5f, -8388608.0f},
        {TC_BUILTIN_FLOOR, -inf, -inf}, {TC_BUILTIN_CEIL, -0.5f, -0.0f},
        {TC_BUILTIN_CEIL, 0.5f, 1.0f}, {TC_BUILTIN_CEIL, dmin, 1.0f},
        {TC_BUILTIN_CEIL, 8388607.5f, 8388608.0f}, {TC_BUILTIN_ROUND, 0.5f, 1.0f},
        {TC_BUILTIN_ROUND, -0.5f, -1.0f}, {TC_BUILTIN_ROUND, 0.49999997f, 0.0f},
        {TC_BUILTIN_ROUND, -0.49999997f, -0.0f}, {TC_BUILTIN_ROUND, 2.5f, 3.0f},
        {TC_BUILTIN_ROUND, 8388607.5f, 8388608.0f}, {TC_BUILTIN_ROUND, -1e30f, -1e30f},
        {TC_BUILTIN_ROUND, nan, nan}, {TC_BUILTIN_FABS, -0.0f, 0.0f},
        {TC_BUILTIN_FABS, -inf, inf}, {TC_BUILTIN_FABS, -dmin, dmin},
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        float a[4] = {0.0f, 0.0f, 0.0f, 0.0f}, got;
        a[0] = t[i].x;
        got = tc__math_f32(t[i].b, a);
        CHECKF(tm_same_f(got, t[i].want), "%sf(%.9g) = %.9g, want %.9g", tc_builtin_name(t[i].b),
               (double)t[i].x, (double)got, (double)t[i].want);
    }
}

/* Extremes checked against the stated bounds (not exact bits). */
static void test_edges_f32(void) {
    static const float xs[] = {1.40129846e-45f, 2.80259693e-45f, 1.17549421e-38f,
                               1.17549435e-38f, 1e-30f, 1e-7f, 5.96046448e-08f, 0.693147182f,
                               88.7228317f, 88.7228394f, 88.72287f, -87.3365479f, -103.0f,
                               -103.972076f, 38.5f, -37.9f, -45.1f, 127.9f, -126.5f, -148.9f,
                               3.40282347e38f, 1048575.9f, 1048576.0f, 3e7f, 1e20f, 0.625f,
                               0.62499994f, 0.99999994f, 1.0f, 3.94999981f, 9.1f, 0.293f};
    size_t k, i;
    for (k = 0; k < sizeof tm_kernels / sizeof tm_kernels[0]; k++) {
        for (i = 0; i < sizeof xs / sizeof xs[0]; i++) {
            int s;
            for (s = 0; s < 2; s++) {
                float x = s ? -xs[i] : xs[i], a[4] = {0.0f, 0.0f, 0.0f, 0.0f}, y;
                double e;
                a[0] = x;
                y = tc__math_f32(tm_kernels[k].b, a);
                e = tm_ulp_err(y, tm_kernels[k].ref((double)x));
                CHECKF(e <= tm_kernels[k].bound, "%sf(%.9g) = %.9g: %.3f ulp",
                       tc_builtin_name(tm_kernels[k].b), (double)x, (double)y, e);
            }
        }
    }
}

/* Two-argument kernels against their exact double results. */
static void test_binary_f32(void) {
    static const float vals[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, -3.75f, 1e-40f, -1e-40f,
                                 3e38f, -3e38f, INFINITY, -INFINITY, NAN, 0.1f, 7.0f};
    const int nv = (int)(sizeof vals / sizeof vals[0]);
    static const tc_builtin bs[] = {TC_BUILTIN_FMIN, TC_BUILTIN_FMAX, TC_BUILTIN_COPYSIGN,
                                    TC_BUILTIN_FDIM, TC_BUILTIN_FDIVIDE};
    size_t k;
    int i, j;
    for (k = 0; k < sizeof bs / sizeof bs[0]; k++) {
        int bad = 0;
        for (i = 0; i < nv; i++) {
            for (j = 0; j < nv; j++) {
                float a[4] = {0.0f, 0.0f, 0.0f, 0.0f}, got;
                double d[4] = {0.0, 0.0, 0.0, 0.0};
                a[0] = vals[i];
                a[1] = vals[j];
                d[0] = (double)vals[i];
                d[1] = (double)vals[j];
                got = tc__math_f32(bs[k], a);
                if (!tm_same_f(got, (float)tc__math_f64(bs[k], d))) {
                    bad++;
                    fprintf(stderr, "  %s(%g, %g) = %g\n", tc_builtin_name(bs[k]), (double)a[0],
                            (double)a[1], (double)got);
                }
            }
        }
        CHECKF(bad == 0, "%s: %d mismatches", tc_builtin_name(bs[k]), bad);
    }
    {
        float a[4] = {-0.0f, 0.0f, 0.0f, 0.0f};
        CHECK(tm_f2u(tc__math_f32(TC_BUILTIN_FMIN, a)) == 0x80000000u);
        CHECK(tm_f2u(tc__math_f32(TC_BUILTIN_FMAX, a)) == 0u);
        a[0] = 0.0f;
        a[1] = -0.0f;
        CHECK(tm_f2u(tc__math_f32(TC_BUILTIN_FMIN, a)) == 0x80000000u);
        CHECK(tm_f2u(tc__math_f32(TC_BUILTIN_FMAX, a)) == 0u);
    }
}

/* ---- scalar / block agreement ------------------------------------------- */

/* Every builtin over random blocks of every length 1..70: the block gives
   the same bits as the scalar entry point lane by lane, also in place. */
static void test_block_matches_scalar(void) {
    int b, n, i, bad = 0, bad_alias = 0;
    static float x0[80], x1[80], x2[80], x3[80], y[80], inplace[80];
    static double d0[80], d1[80], d2[80], d3[80], dy[80];
    for (b = 0; b < TC_BUILTIN_COUNT; b++) {
        for (n = 1; n <= 70; n += (n < 20 ? 1 : 7)) {
            for (i = 0; i < n; i++) {
                x0[i] = (float)((tm_rand() % 8 == 0) ? tm_uniform(-100.0, 100.0)
                                                     : tm_uniform(-1.5, 1.5));
                x1[i] = (float)tm_uniform(-3.0, 3.0);
                x2[i] = (float)tm_uniform(-3.0, 3.0);
                x3[i] = (float)tm_uniform(-3.0, 3.0);
                d0[i] = (double)x0[i];
                d1[i] = (double)x1[i];
                d2[i] = (double)x2[i];
                d3[i] = (double)x3[i];
            }
            x0[0] = (n % 3 == 0) ? NAN : x0[0];
            d0[0] = (double)x0[0];
            tc__math_block_f32((tc_builtin)b, y, x0, x1, x2, x3, n);
            memcpy(inplace, x0, sizeof inplace);
            tc__math_block_f32((tc_builtin)b, inplace, inplace, x1, x2, x3, n);
            tc__math_block_f64((tc_builtin)b, dy, d0, d1, d2, d3, n);
            for (i = 0; i < n; i++) {
                float a[4];
                double da[4];
                a[0] = x0[i];
                a[1] = x1[i];
                a[2] = x2[i];
                a[3] = x3[i];
                da[0] = d0[i];
                da[1] = d1[i];
                da[2] = d2[i];
                da[3] = d3[i];
                if (!tm_same_f(y[i], tc__math_f32((tc_builtin)b, a)) ||
                    !tm_same_d(dy[i], tc__math_f64((tc_builtin)b, da)))
                    bad++;
                if (!tm_same_f(inplace[i], y[i])) bad_alias++;
            }
        }
    }
    CHECKF(bad == 0, "%d lanes differ between block and scalar", bad);
    CHECKF(bad_alias == 0, "%d lanes differ when dst == a0", bad_alias);
}

/* ---- float64 block kernels (exp, tanh) ----------------------------------- */

/* Error of double y against the reference r, in ulps of double at r
   (subnormal ulp 2^-1074). The reference is long double's expl / tanhl
   where long double is wider than double (x86's 80 bits: libm's double
   tanh is itself up to 2 ulp off), else libm's double with 2 ulp more. */
#if LDBL_MANT_DIG >= 64
typedef long double tm_ref;
#define TM_REF_EXP(x) expl(x)
#define TM_REF_TANH(x) tanhl(x)
#define TM_REF_SLACK 0.0
#else
typedef double tm_ref;
#define TM_REF_EXP(x) exp(x)
#define TM_REF_TANH(x) tanh(x)
#define TM_REF_SLACK 2.0
#endif
static double tm_ulp_err_d(double y, tm_ref r) {
    int e;
    if (r != r) return y != y ? 0.0 : 1e30;
    if (y != y) return 1e30;
    if ((double)r > DBL_MAX || (double)r < -DBL_MAX || isinf(y)) return (y == (double)r) ? 0.0 : 1e30;
    if (r == 0) return fabs(y) / ldexp(1.0, -1074);
    (void)frexp((double)r, &e);
    if (e - 1 < -1022) e = -1021;
    return (double)((y > r ? (tm_ref)y - r : r - (tm_ref)y) / (tm_ref)ldexp(1.0, e - 1 - 52));
}
/* The largest error of the float64 block kernel of b (exp or tanh) over
   4096 uniform points of [lo, hi). */
static double tm_worst_d(tc_builtin b, double lo, double hi) {
    static double x[4096], y[4096];
    double worst = 0.0;
    int i;
    for (i = 0; i < 4096; i++) x[i] = tm_uniform(lo, hi);
    tc__math_block_f64(b, y, x, NULL, NULL, NULL, 4096);
    for (i = 0; i < 4096; i++) {
        tm_ref r = b == TC_BUILTIN_EXP ? TM_REF_EXP((tm_ref)x[i]) : TM_REF_TANH((tm_ref)x[i]);
        double e = tm_ulp_err_d(y[i], r);
        if (e > worst) worst = e;
    }
    return worst;
}
static void test_f64_kernels(void) {
    static const struct { double lo, hi; } exp_ranges[] = {
        {-1e-300, 1e-300}, {-1e-8, 1e-8}, {-1.0, 1.0}, {-30.0, 30.0}, {-745.2, -700.0},
        {-740.0, 709.78}, {700.0, 709.78}};
    static const struct { double lo, hi; } tanh_ranges[] = {
        {-1e-300, 1e-300}, {-1e-6, 1e-6}, {-0.6, 0.6}, {0.5, 0.6}, {-3.0, 3.0}, {-22.0, 22.0}};
    double worst_exp = 0.0, worst_tanh = 0.0, inf = INFINITY;
    int r, i, bad_special = 0;
    for (r = 0; r < (int)(sizeof exp_ranges / sizeof exp_ranges[0]); r++) {
        double e = tm_worst_d(TC_BUILTIN_EXP, exp_ranges[r].lo, exp_ranges[r].hi);
        if (e > worst_exp) worst_exp = e;
    }
    for (r = 0; r < (int)(sizeof tanh_ranges / sizeof tanh_ranges[0]); r++) {
        double e = tm_worst_d(TC_BUILTIN_TANH, tanh_ranges[r].lo, tanh_ranges[r].hi);
        if (e > worst_tanh) worst_tanh = e;
    }
    CHECKF(worst_exp <= 1.0 + TM_REF_SLACK, "float64 exp kernel: %.2f ulp off", worst_exp);
    CHECKF(worst_tanh <= 2.0 + TM_REF_SLACK, "float64 tanh kernel: %.2f ulp off", worst_tanh);
    { /* special values, through the block and the scalar entry point alike */
        static const double xs[] = {0.0, -0.0, 1.0, -1.0, 709.8, 710.0, 1e300, -746.0, -1e300, -745.0,
                                    30.0, -30.0, 19.5, 1e-310, -1e-310};
        double in[18], out[18], t[18];
        int n = (int)(sizeof xs / sizeof xs[0]);
        for (i = 0; i < n; i++) in[i] = xs[i];
        in[n] = inf;
        in[n + 1] = -inf;
        in[n + 2] = NAN;
        tc__math_block_f64(TC_BUILTIN_EXP, out, in, NULL, NULL, NULL, n + 3);
        tc__math_block_f64(TC_BUILTIN_TANH, t, in, NULL, NULL, NULL, n + 3);
        for (i = 0; i < n + 3; i++) {
            double a[4] = {0, 0, 0, 0};
            a[0] = in[i];
            if (!tm_same_d(out[i], exp(in[i])) && tm_ulp_err_d(out[i], TM_REF_EXP((tm_ref)in[i])) > 1.0 + TM_REF_SLACK)
                bad_special++;
            if (!tm_same_d(t[i], tanh(in[i])) && tm_ulp_err_d(t[i], TM_REF_TANH((tm_ref)in[i])) > 2.0 + TM_REF_SLACK)
                bad_special++;
            if (!tm_same_d(out[i], tc__math_f64(TC_BUILTIN_EXP, a))) bad_special++;
            if (!tm_same_d(t[i], tc__math_f64(TC_BUILTIN_TANH, a))) bad_special++;
            if ((tm_d2u(t[i]) >> 63) != (tm_d2u(in[i]) >> 63) && in[i] == in[i]) bad_special++; /* odd */
        }
        CHECK(tm_same_d(out[0], 1.0) && tm_same_d(out[1], 1.0));
        CHECK(tm_same_d(t[1], -0.0) && tm_same_d(t[n], 1.0) && tm_same_d(t[n + 1], -1.0));
        CHECK(out[n] == inf && tm_same_d(out[n + 1], 0.0) && out[n + 2] != out[n + 2]);
        CHECK(out[5] == inf && out[7] == 0.0 && out[9] > 0.0 && t[n + 2] != t[n + 2]);
    }
    CHECKF(bad_special == 0, "%d special values off", bad_special);
}

/* ---- float16 ------------------------------------------------------------- */

/* Reference: the value of a half, from its fields. */
static double tm_half_value(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp((double)m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                         : ldexp((double)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* exp's short path (a block within [-80, 80]: one scale factor, no
   clamp) gives the bits of the full lane function: every TM_STRIDE-th
   float of [-80, 80], both ends exactly, and a block that crosses the
   bound takes the full path for all its lanes. */
/* exp's lane functions over n lanes: the full one, or the short one. */
static void tm_exp_lanes(float *y, const float *x, int n, int full) {
    int i;
    for (i = 0; i < n; i++) y[i] = full ? tc__math_exp_lane(x[i]) : tc__math_exp_short_lane(x[i]);
}

static void test_exp_short_path(void) {
    enum { B = 256 };
    float x[B], ys[B], yf[B];
    uint32_t u, lim = tm_f2u(80.0f), bad = 0, n = 0;
    int k, i;
    for (k = 0; k < 2; k++)
        for (u = 0; u <= lim; u += n == B ? 0 : TM_STRIDE) {
            x[n++] = tm_u2f(u | (k ? 0x80000000u : 0u));
            if (u + TM_STRIDE > lim && x[n - 1] != (k ? -80.0f : 80.0f)) x[n++] = k ? -80.0f : 80.0f;
            if (n < B && u + TM_STRIDE <= lim) continue;
            tm_exp_lanes(ys, x, (int)n, 0);
            tm_exp_lanes(yf, x, (int)n, 1);
            for (i = 0; i < (int)n; i++) bad += memcmp(&ys[i], &yf[i], 4) != 0;
            n = 0;
            if (u + TM_STRIDE > lim) break;
        }
    CHECKF(bad == 0, "exp's short path differs from the full one on %u inputs", bad);
    for (i = 0; i < B; i++) x[i] = -100.0f + 0.75f * (float)i; /* crosses +-80 */
    tc__math_block_exp_of(ys, x, TC_OP_COUNT, 0.0f, B);
    tm_exp_lanes(yf, x, B, 1);
    CHECK(memcmp(ys, yf, sizeof ys) == 0);
    CHECK(ys[0] > 0.0f && ys[0] < 1e-43f && ys[B - 1] == HUGE_VALF);
}

/* exp(x - s) and exp(x + s) in one pass (tc__math_block_exp_of) give the
   bits of the two steps, within range, straying past it (at any lane of a
   block, the short last chunk included), with NaN, and in place. */
static void test_exp_of(void) {
    enum { B = 203 };
    static const float sv[5] = {3.0f, -0.625f, 79.0f, -200.0f, 1e-3f};
    float x[B], y[B], w[B], t[B];
    int k, op, i, stray, bad = 0;
    uint32_t r = 12345u;
    for (k = 0; k < 5; k++)
        for (op = 0; op < 2; op++)
            for (stray = -1; stray < B; stray += 67) {
                for (i = 0; i < B; i++) {
                    r = r * 1664525u + 1013904223u;
                    x[i] = ((float)(r >> 8) / 16777216.0f - 0.5f) * 20.0f;
                }
                if (stray >= 0) x[stray] = stray % 2 ? 95.0f : tm_u2f(0x7fc00000u);
                for (i = 0; i < B; i++) t[i] = op ? x[i] + sv[k] : x[i] - sv[k];
                tm_exp_lanes(w, t, B, 1);
                tc__math_block_exp_of(y, x, op ? TC_OP_ADD : TC_OP_SUB, sv[k], B);
                bad += memcmp(y, w, sizeof y) != 0;
                tc__math_block_exp_of(x, x, op ? TC_OP_ADD : TC_OP_SUB, sv[k], B); /* in place */
                bad += memcmp(x, w, sizeof x) != 0;
            }
    CHECKF(bad == 0, "exp(x -+ s) in one pass differs from the two steps in %d blocks", bad);
}

static void test_half_roundtrip(void) {
    uint32_t h;
    int bad_val = 0, bad_back = 0, bad_block = 0;
    static uint16_t hs[65536], back[65536];
    static float fs[65536];
    for (h = 0; h < 65536; h++) {
        float f = tc__half_to_float((uint16_t)h);
        double v = tm_half_value((uint16_t)h);
        uint16_t r = tc__float_to_half(f);
        hs[h] = (uint16_t)h;
        if (v != v ? f == f : (double)f != v || (v == 0 && (tm_f2u(f) >> 31) != (h >> 15)))
            bad_val++;
        if (v != v ? ((r & 0x7c00u) != 0x7c00u || !(r & 0x3ffu) || (r >> 15) != (h >> 15) ||
                      (r & 0x1ffu) != (h & 0x1ffu))
                   : r != h)
            bad_back++;
    }
    CHECKF(bad_val == 0, "%d halves decode wrongly", bad_val);
    CHECKF(bad_back == 0, "%d halves do not round-trip", bad_back);
    tc__half_to_float_block(fs, hs, 65536);
    tc__float_to_half_block(back, fs, 65536);
    for (h = 0; h < 65536; h++) {
        if (tm_f2u(fs[h]) != tm_f2u(tc__half_to_float((uint16_t)h))) bad_block++;
        if (back[h] != tc__float_to_half(fs[h])) bad_block++;
    }
    CHECKF(bad_block == 0, "%d block conversions differ from scalar", bad_block);
}

/* Reference rounding float -> half: nearest of the two neighbouring
   halves by exact double arithmetic, ties to the even code, 65520 and up
   to inf. */
static uint16_t tm_half_ref(float f) {
    double a = fabs((double)f);
    uint16_t sign = (uint16_t)((tm_f2u(f) >> 16) & 0x8000u), lo = 0, hi = 0x7c00;
    if (f != f) return (uint16_t)(sign | 0x7e00u);
    if (a >= 65520.0) return (uint16_t)(sign | 0x7c00u);
    while (hi - lo > 1) { /* largest code with value <= a */
        uint16_t mid = (uint16_t)((lo + hi) / 2);
        if (tm_half_value(mid) <= a) lo = mid;
        else hi = mid;
    }
    if (tm_half_value(lo) != a) {
        double dl = a - tm_half_value(lo), dh = tm_half_value((uint16_t)(lo + 1)) - a;
        if (dh < dl || (dh == dl && (lo & 1u))) lo = (uint16_t)(lo + 1);
    }
    return (uint16_t)(sign | lo);
}

static void test_half_rounding(void) {
    uint32_t u, h;
    int bad = 0, ties = 0;
    for (u = 0; u < 0x7f800000u; u += 2039u) { /* a sweep over all magnitudes */
        float f = tm_u2f(u);
        if (tc__float_to_half(f) != tm_half_ref(f)) bad++;
        if (tc__float_to_half(-f) != tm_half_ref(-f)) bad++;
    }
    for (h = 0; h < 0x7bffu; h++) { /* every midpoint (a float), and one float each side */
        double mid = 0.5 * (tm_half_value((uint16_t)h) + tm_half_value((uint16_t)(h + 1)));
        float m = (float)mid, below = nextafterf(m, 0.0f), above = nextafterf(m, INFINITY);
        uint16_t even = (h & 1u) ? (uint16_t)(h + 1) : (uint16_t)h;
        if ((double)m != mid) bad++;
        if (tc__float_to_half(m) != even) ties++;
        if (tc__float_to_half(-m) != (even | 0x8000u)) ties++;
        if (tc__float_to_half(below) != h) bad++;
        if (tc__float_to_half(above) != h + 1) bad++;
    }
    CHECKF(bad == 0, "%d floats round to the wrong half", bad);
    CHECKF(ties == 0, "%d ties not rounded to even", ties);
    CHECK(tc__float_to_half(65504.0f) == 0x7bffu);
    CHECK(tc__float_to_half(65519.996f) == 0x7bffu);
    CHECK(tc__float_to_half(65520.0f) == 0x7c00u);
    CHECK(tc__float_to_half(-1e10f) == 0xfc00u);
    CHECK(tc__float_to_half(2.98023224e-08f) == 0x0000u); /* 2^-25: tie to even (0) */
    CHECK(tc__float_to_half(2.98023259e-08f) == 0x0001u); /* just above */
    CHECK(tc__float_to_half(1e-30f) == 0x0000u);
    CHECK(tc__float_to_half(-1e-30f) == 0x8000u);
    CHECK(tc__float_to_half(6.10351562e-05f) == 0x0400u); /* 2^-14, smallest normal */
    CHECK(tc__float_to_half(6.09755516e-05f) == 0x03ffu); /* largest subnormal */
    CHECK(tc__float_to_half(1.0f) == 0x3c00u);
    CHECK(tc__float_to_half(1.00048828f) == 0x3c00u); /* 1 + 2^-11: tie to even */
    CHECK(tc__float_to_half(1.00146484f) == 0x3c02u); /* 1 + 3 * 2^-11: tie to even (up) */
    CHECK((tc__float_to_half(NAN) & 0x7fffu) > 0x7c00u);
}

/* The nearest half's value to a double, as tm_half_ref finds it for a
   float (an independent oracle for the HALF cast of a float64). */
static double tm_half_round_d(double x) {
    double a = fabs(x), v;
    uint16_t lo = 0, hi = 0x7c00;
    if (x != x) return x;
    if (a >= 65520.0) return x < 0 ? -INFINITY : INFINITY;
    while (hi - lo > 1) {
        uint16_t mid = (uint16_t)((lo + hi) / 2);
        if (tm_half_value(mid) <= a) lo = mid;
        else hi = mid;
    }
    v = tm_half_value(lo);
    if (v != a) {
        double dl = a - v, dh = tm_half_value((uint16_t)(lo + 1)) - a;
        if (dh < dl || (dh == dl && (lo & 1u))) v = tm_half_value((uint16_t)(lo + 1));
    }
    return signbit(x) ? -v : v;
}

/* The VM's cast to float16 of a float32 or float64 value (tc__k_half, the
   value kept in its type): the nearest half's value, bit for bit, over a
   sweep of magnitudes and every midpoint with its neighbours; a nan stays
   a nan of the same sign (float32: quieted, payload kept). */
static void test_half_cast(void) {
    enum { N = 4096 };
    static float fx[N], fy[N];
    static double dx[N], dy[N];
    uint32_t u = 0, h = 0;
    int bad = 0, n, i;
    while (u < 0x7fc00100u || h < 0x7bffu) {
        for (n = 0; n < N - 8 && u < 0x7fc00100u; u += 2039u) { /* magnitudes, then some nans */
            fx[n] = tm_u2f(u);
            fx[n + 1] = -fx[n];
            dx[n] = (double)fx[n] * (1.0 + 0x1p-40);
            dx[n + 1] = -(double)fx[n] * (1.0 - 0x1p-40);
            n += 2;
        }
        for (; n < N - 8 && h < 0x7bffu; h++) { /* a midpoint, the floats and doubles beside it */
            double mid = 0.5 * (tm_half_value((uint16_t)h) + tm_half_value((uint16_t)(h + 1)));
            fx[n] = (float)mid;
            fx[n + 1] = nextafterf((float)mid, 0.0f);
            fx[n + 2] = -nextafterf((float)mid, INFINITY);
            dx[n] = mid;
            dx[n + 1] = nextafter(mid, 0.0);
            dx[n + 2] = -nextafter(mid, INFINITY);
            n += 3;
        }
        tc__k_half(TC_FLOAT32, fy, fx, n);
        tc__k_half(TC_FLOAT64, dy, dx, n);
        for (i = 0; i < n; i++) {
            float wf = fx[i] != fx[i] ? tm_u2f(tm_f2u(fx[i]) | 0x00400000u)
                                      : (float)tm_half_round_d((double)fx[i]);
            double wd = tm_half_round_d(dx[i]);
            bad += tm_f2u(fy[i]) != tm_f2u(wf);
            bad += memcmp(&dy[i], &wd, sizeof wd) != 0;
        }
    }
    CHECKF(bad == 0, "%d values cast to float16 wrongly", bad);
}

/* ---- misc ---------------------------------------------------------------- */

static void test_arity(void) {
    int b;
    for (b = 0; b < TC_BUILTIN_COUNT; b++)
        CHECKF(tc__math_arity((tc_builtin)b) == tc_builtin_arity((tc_builtin)b), "arity of %s",
               tc_builtin_name((tc_builtin)b));
}

int main(void) {
    RUN(test_arity);
    RUN(test_known_f64);
    RUN(test_known_f32);
    RUN(test_special_f64);
    RUN(test_identities_f64);
    RUN(test_special_f32);
    RUN(test_edges_f32);
    RUN(test_binary_f32);
    RUN(test_block_matches_scalar);
    RUN(test_f64_kernels);
    RUN(test_exp_short_path);
    RUN(test_exp_of);
    RUN(test_ulp_sweep);
    RUN(test_ulp_exhaustive_ranges);
    RUN(test_half_roundtrip);
    RUN(test_half_rounding);
    RUN(test_half_cast);
    return th_report();
}
