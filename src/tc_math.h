/* ==== [tc:math] Scalar and block math for builtins ======================== */
/* Every TC builtin in double (tc__math_f64, the reference), in float
   (tc__math_f32) and over a block of lanes (tc__math_block_f32/_f64), plus
   float16 <-> float conversion for float16 storage.

   Functions C99 <math.h> lacks (or declares only under feature macros:
   j0 j1 y0 y1 exp10) are written here: Bessel J/Y by power series below 2,
   Miller's backward recurrence up to 25 and Hankel's asymptotic expansion
   above; I0/I1 by power series and the asymptotic expansion; erfinv and
   erfcinv by a closed-form first guess and Halley steps on erf/erfc; erfcx
   by its asymptotic series for large x. Accuracy is stated next to each.

   The float block kernels for the common builtins are branch-free lane
   functions (range reduction, polynomial, selects for the special cases)
   applied over fixed chunks of TC__MATH_CHUNK lanes held in local arrays, a
   shape compilers vectorize even at -O2 (no aliasing to prove, no
   remainder loop). The scalar float entry point runs the same chunk code,
   so a value gets the same bits whether it is computed alone or in a block
   of any length: results never depend on how lanes are split. */

#define TC__MATH_CHUNK 16

/* Lane functions are always inlined into the chunk loops; the block
   functions never into their callers, so each is compiled (and vectorized)
   the same way wherever it is used. */
#if defined(__clang__)
#define TC__MATH_INLINE static __inline__ __attribute__((always_inline, unused))
#define TC__MATH_BLOCK_FN static __attribute__((noinline, unused))
#elif defined(__GNUC__)
#define TC__MATH_INLINE static __inline__ __attribute__((always_inline, unused))
#define TC__MATH_BLOCK_FN static __attribute__((noinline, noclone, unused))
#else
#define TC__MATH_INLINE static
#define TC__MATH_BLOCK_FN static
#endif

#define TC__MATH_PI 3.14159265358979323846
#define TC__MATH_SQRT2 1.41421356237309504880
#define TC__MATH_SQRTPI 1.77245385090551602730 /* sqrt(pi) */
#define TC__MATH_EULER 0.57721566490153286061  /* Euler's gamma */

TC__MATH_INLINE uint32_t tc__math_f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
TC__MATH_INLINE float tc__math_u2f(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
TC__MATH_INLINE uint64_t tc__math_d2u(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
TC__MATH_INLINE double tc__math_u2d(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Arity of a builtin (1..4), from the X-macro. */
TC__PRIVATE int tc__math_arity(tc_builtin b) {
#define TC__MATH_ARITY(id, name, arity) arity,
    static const unsigned char arity[TC_BUILTIN_COUNT + 1] = {TC_BUILTINS(TC__MATH_ARITY) 1};
#undef TC__MATH_ARITY
    return (unsigned)b < (unsigned)TC_BUILTIN_COUNT ? arity[b] : 1;
}

/* ---- double: functions C99 lacks --------------------------------------- */

/* sin(pi x) and cos(pi x) with exact reduction (fmod by 2 is exact), exact
   zeros at the integers / half-integers (+0, IEEE sinPi/cosPi) and the
   accuracy of libm sin/cos on |r| <= pi/4. */
TC__PRIVATE double tc__math_sinpi_cospi(double x, int want_cos) {
    double ax = fabs(x), r, v;
    if (x != x || ax == (double)INFINITY) return x - x; /* nan */
    r = fmod(ax, 2.0);
    if (want_cos) {
        if (r <= 0.25) v = cos(TC__MATH_PI * r);
        else if (r <= 0.75) v = -sin(TC__MATH_PI * (r - 0.5));
        else if (r <= 1.25) v = -cos(TC__MATH_PI * (r - 1.0));
        else if (r <= 1.75) v = sin(TC__MATH_PI * (r - 1.5));
        else v = cos(TC__MATH_PI * (r - 2.0));
        return v == 0.0 ? 0.0 : v;
    }
    if (r <= 0.25) v = sin(TC__MATH_PI * r);
    else if (r <= 0.75) v = cos(TC__MATH_PI * (r - 0.5));
    else if (r <= 1.25) v = -sin(TC__MATH_PI * (r - 1.0));
    else if (r <= 1.75) v = -cos(TC__MATH_PI * (r - 1.5));
    else v = sin(TC__MATH_PI * (r - 2.0));
    if (v == 0.0) v = 0.0;
    return signbit(x) ? -v : v;
}

/* log|Gamma(x)| without glibc's lgamma, which writes the global `signgam`
   (a data race when programs run on several threads). Gamma itself is
   accurate to an ulp or so below its overflow at 171; above that the
   Stirling series is exact to double precision; negative x reflects. */
TC__PRIVATE double tc__math_lgamma(double x) {
    double z, series;
    if (x != x) return x;
    if (x == HUGE_VAL || x == -HUGE_VAL) return HUGE_VAL;
    if (x <= 0.0 && floor(x) == x) return HUGE_VAL; /* poles */
    if (x < -100.0) /* reflection: Gamma(x) Gamma(1-x) = pi / sin(pi x) */
        return log(3.14159265358979323846 / fabs(tc__math_sinpi_cospi(x, 0))) -
               tc__math_lgamma(1.0 - x);
    if (x < 170.0) return log(fabs(tgamma(x)));
    z = 1.0 / (x * x);
    series = (1.0 / 12.0 - z * (1.0 / 360.0 - z * (1.0 / 1260.0 - z / 1680.0))) / x;
    return (x - 0.5) * log(x) - x + 0.91893853320467274178 + series;
}

/* Asymptotic (Hankel) sums for order nu (0 or 1) at large x:
   P = sum (-1)^k a_2k / x^2k, Q = sum (-1)^k a_2k+1 / x^2k+1 with
   a_k = prod_{j<=k} (4nu^2 - (2j-1)^2) / (k! 8^k). For x > 25 the terms
   fall below 1e-17 well before they start to grow (smallest ~ e^-2x). */
TC__PRIVATE void tc__math_hankel_pq(double x, int nu, double *P, double *Q) {
    double mu = 4.0 * (double)(nu * nu), a = 1.0, p = 1.0, q = 0.0, xi = 1.0 / x;
    int k;
    for (k = 1; k < 60; k++) {
        double odd = (double)(2 * k - 1);
        a *= (mu - odd * odd) / (8.0 * (double)k) * xi;
        if (k % 4 == 1) q += a;
        else if (k % 4 == 2) p -= a;
        else if (k % 4 == 3) q -= a;
        else p += a;
        if (fabs(a) < 1e-18) break;
    }
    *P = p;
    *Q = q;
}

/* J0, J1, Y0, Y1 for x > 25 from the Hankel expansion: relative error
   ~1e-15 away from the zeros, absolute ~1e-16 * sqrt(2/(pi x)) near them.
   cos/sin(x - pi/4) and (x - 3pi/4) come from libm's exactly reduced
   cos x and sin x, so huge x stays accurate. */
TC__PRIVATE void tc__math_bessel_large(double x, double out[4]) {
    double P0, Q0, P1, Q1, c = cos(x), s = sin(x), amp = sqrt(2.0 / (TC__MATH_PI * x));
    double c0 = (c + s) / TC__MATH_SQRT2, s0 = (s - c) / TC__MATH_SQRT2; /* x - pi/4 */
    double c1 = (s - c) / TC__MATH_SQRT2, s1 = -(s + c) / TC__MATH_SQRT2; /* x - 3pi/4 */
    tc__math_hankel_pq(x, 0, &P0, &Q0);
    tc__math_hankel_pq(x, 1, &P1, &Q1);
    out[0] = amp * (P0 * c0 - Q0 * s0);
    out[1] = amp * (P1 * c1 - Q1 * s1);
    out[2] = amp * (P0 * s0 + Q0 * c0);
    out[3] = amp * (P1 * s1 + Q1 * c1);
}

/* 0 < x <= 2: power series (A&S 9.1.10, 9.1.11, 9.1.13), no cancellation
   to speak of; relative error ~1e-16 (J), ~1e-15 (Y). */
TC__PRIVATE void tc__math_bessel_small(double x, double out[4]) {
    double t = 0.25 * x * x, lg = log(0.5 * x), term0 = 1.0, term1 = 1.0;
    double j0 = 1.0, j1 = 1.0, sy0 = 0.0, sy1, h = 0.0;
    int k;
    sy1 = -2.0 * TC__MATH_EULER + 1.0; /* k = 0: psi(1) + psi(2) */
    for (k = 1; k < 30; k++) {
        double dk = (double)k;
        term0 *= -t / (dk * dk);            /* (-t)^k / k!^2 */
        term1 *= -t / (dk * (dk + 1.0));    /* (-t)^k / (k! (k+1)!) */
        h += 1.0 / dk;                      /* H_k */
        j0 += term0;
        j1 += term1;
        sy0 -= h * term0;                   /* (-1)^(k+1) H_k t^k / k!^2 */
        sy1 += (2.0 * h + 1.0 / (dk + 1.0) - 2.0 * TC__MATH_EULER) * term1;
        if (fabs(term0) < 1e-18) break;
    }
    j1 *= 0.5 * x;
    out[0] = j0;
    out[1] = j1;
    out[2] = (2.0 / TC__MATH_PI) * ((lg + TC__MATH_EULER) * j0 + sy0);
    out[3] = -2.0 / (TC__MATH_PI * x) + (2.0 / TC__MATH_PI) * lg * j1 -
             (0.5 * x / TC__MATH_PI) * sy1;
}

/* 2 < x <= 25: Miller's backward recurrence J_{k-1} = (2k/x) J_k - J_{k+1}
   from order N, normalized by J0 + 2 sum J_2k = 1; Y0 and Y1 from the
   Neumann series over the same values:
     Y0 = (2/pi) [(ln(x/2) + g) J0 - 2 sum (-1)^k J_2k / k]
     Y1 = (2/pi) [(ln(x/2) + g) J1 - J0/x + sum (-1)^k (J_2k-1 - J_2k+1) / k].
   Absolute error ~1e-16 (relative ~1e-15 away from the zeros). */
TC__PRIVATE void tc__math_bessel_mid(double x, double out[4]) {
    int n = 2 * ((int)(0.5 * x) + 24), k;
    double fk1 = 0.0, fk = 1e-30, norm = 0.0, s0 = 0.0, s1 = 0.0, f0, f1 = 0.0, lg;
    for (k = n; k >= 1; k--) { /* entering: fk = f_k, fk1 = f_{k+1} */
        double fkm = (2.0 * (double)k / x) * fk - fk1;
        if (k % 2 == 0) {
            norm += 2.0 * fk;
            s0 += (k % 4 == 0 ? 1.0 : -1.0) * fk / (double)(k / 2);
        } else { /* odd k appears as J_{2m-1} (m = (k+1)/2) and -J_{2m+1} (m = (k-1)/2) */
            int m = (k + 1) / 2;
            s1 += (m % 2 == 0 ? 1.0 : -1.0) * fk / (double)m;
            if (k >= 3) s1 -= ((m - 1) % 2 == 0 ? 1.0 : -1.0) * fk / (double)(m - 1);
        }
        if (k == 1) f1 = fk;
        fk1 = fk;
        fk = fkm;
    }
    f0 = fk;
    norm += f0;
    lg = log(0.5 * x) + TC__MATH_EULER;
    out[0] = f0 / norm;
    out[1] = f1 / norm;
    out[2] = (2.0 / TC__MATH_PI) * (lg * out[0] - 2.0 * s0 / norm);
    out[3] = (2.0 / TC__MATH_PI) * (lg * out[1] - out[0] / x + s1 / norm);
}

/* which: 0 j0, 1 j1, 2 y0, 3 y1 (C99/POSIX meaning, CUDA's j0 etc.). */
TC__PRIVATE double tc__math_bessel(double x, int which) {
    double out[4], ax = fabs(x);
    if (x != x) return x;
    if (which >= 2) { /* Y: defined for x > 0 only */
        if (x < 0.0) return (double)NAN;
        if (x == 0.0) return -(double)INFINITY;
    }
    if (ax == (double)INFINITY) return 0.0;
    if (ax == 0.0) return which == 0 ? 1.0 : x; /* j1(+-0) = +-0 */
    if (ax <= 2.0) tc__math_bessel_small(ax, out);
    else if (ax <= 25.0) tc__math_bessel_mid(ax, out);
    else tc__math_bessel_large(ax, out);
    return which == 1 && x < 0.0 ? -out[1] : out[which];
}

/* I0 and I1 (modified Bessel, first kind). |x| <= 30: power series of
   positive terms (relative error ~1e-15); beyond: e^x/sqrt(2 pi x) times
   the asymptotic series sum (-1)^k a_k(nu)/x^k (terms < 1e-18 long before
   they grow), with e^x split in two factors so the result overflows only
   where the true value does. */
TC__PRIVATE double tc__math_bessel_i(double x, int nu) {
    double ax = fabs(x), r;
    int k;
    if (x != x) return x;
    if (ax <= 30.0) {
        double t = 0.25 * x * x, term = nu ? 0.5 * ax : 1.0;
        r = term;
        for (k = 1; k < 200; k++) {
            term *= t / ((double)k * (double)(k + nu));
            r += term;
            if (term < 1e-17 * r) break;
        }
    } else if (ax == (double)INFINITY) {
        r = ax;
    } else {
        double mu = 4.0 * (double)(nu * nu), a = 1.0, s = 1.0, h = exp(0.5 * ax);
        for (k = 1; k < 60; k++) {
            double odd = (double)(2 * k - 1);
            a *= -(mu - odd * odd) / (8.0 * (double)k * ax);
            s += a;
            if (fabs(a) < 1e-18) break;
        }
        r = h * (h / sqrt(2.0 * TC__MATH_PI * ax) * s);
    }
    return nu && signbit(x) ? -r : r;
}

/* exp(x*x) without the rounding error of x*x: x = hi + lo with hi of 26
   bits, so hi*hi is exact and the rest is a small correction. */
TC__PRIVATE double tc__math_exp_sq(double x) {
    double c, hi, lo;
    if (fabs(x) > 1e150) return (double)INFINITY;
    c = 134217729.0 * x; /* 2^27 + 1: Veltkamp split */
    hi = c - (c - x);
    lo = x - hi;
    return exp(hi * hi) * exp(lo * (2.0 * hi + lo));
}

/* erfcx(x) = exp(x^2) erfc(x). x < 10: the product (exp(x^2) taken
   exactly, erfc from libm): relative error ~1e-15, overflow to +inf below
   about -26.6 where the true value overflows. x >= 10: the asymptotic
   series 1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k, whose terms shrink
   below 1e-17 within ~10 steps: relative error ~1e-16. */
TC__PRIVATE double tc__math_erfcx(double x) {
    double ix, v, s = 1.0, term = 1.0;
    int k;
    if (x != x) return x;
    if (x < 10.0) return x < -26.7 ? (double)INFINITY : tc__math_exp_sq(x) * erfc(x);
    if (x == (double)INFINITY) return 0.0;
    ix = 1.0 / x;
    v = 0.5 * ix * ix; /* 1/(2x^2), underflows harmlessly to 0 */
    for (k = 1; k < 40; k++) {
        term *= -(double)(2 * k - 1) * v;
        s += term;
        if (fabs(term) < 1e-17) break;
    }
    return ix / TC__MATH_SQRTPI * s;
}

/* First guess for erf(x) = y from ln(1 - y^2) = lm (Winitzki's closed
   form, relative error < 2e-3 over the whole range). */
TC__PRIVATE double tc__math_erfinv_guess(double lm) {
    const double a = 0.147, b = 2.0 / (TC__MATH_PI * a);
    double t = b + 0.5 * lm;
    return sqrt(sqrt(t * t - lm / a) - t);
}

/* x >= 0 with erf(x) = y, 0 <= y <= 0.5: Halley on f = erf(x) - y
   (f'' = -2x f', so the step is d / (1 + x d) with d = f/f'). Three steps
   from the 2e-3 guess reach the double limit (cubic convergence). */
TC__PRIVATE double tc__math_erfinv_small(double y) {
    double x = tc__math_erfinv_guess(log1p(-y * y));
    int i;
    if (y == 0.0) return y;
    for (i = 0; i < 4; i++) {
        double d = (erf(x) - y) * (0.5 * TC__MATH_SQRTPI) * tc__math_exp_sq(x);
        x -= d / (1.0 + x * d);
    }
    return x;
}

/* x > 0 with erfc(x) = z, 0 < z <= 0.5: Halley on f = erfc(x) - z in the
   scaled form d = f/f' = -(sqrt(pi)/2) (erfcx(x) - exp(x^2 + ln z)), which
   stays finite where erfc underflows (z down to the smallest subnormal). */
TC__PRIVATE double tc__math_erfcinv_small(double z) {
    double lz = log(z), x = tc__math_erfinv_guess(lz + log(2.0 - z));
    int i;
    for (i = 0; i < 5; i++) {
        double d = -(0.5 * TC__MATH_SQRTPI) * (tc__math_erfcx(x) - exp(x * x + lz));
        double step = d / (1.0 + x * d);
        x -= step;
        if (fabs(step) < 1e-17 * x) break;
    }
    return x;
}

/* erfinv: relative error ~2e-16 (Halley on libm erf/erfc). The complement
   1 - |y| is exact for |y| >= 0.5, so y near 1 keeps full precision. */
TC__PRIVATE double tc__math_erfinv(double y) {
    double ay = fabs(y), x;
    if (y != y || ay > 1.0) return (double)NAN;
    if (ay == 1.0) return y * (double)INFINITY;
    if (y == 0.0) return y; /* +-0 */
    x = ay <= 0.5 ? tc__math_erfinv_small(ay) : tc__math_erfcinv_small(1.0 - ay);
    return y < 0.0 ? -x : x;
}

/* erfcinv on [0, 2]: 2 - z and 1 - z are exact where they are used. */
TC__PRIVATE double tc__math_erfcinv(double z) {
    if (z != z || z < 0.0 || z > 2.0) return (double)NAN;
    if (z == 0.0) return (double)INFINITY;
    if (z == 2.0) return -(double)INFINITY;
    if (z <= 0.5) return tc__math_erfcinv_small(z);
    if (z >= 1.5) return -tc__math_erfcinv_small(2.0 - z);
    return tc__math_erfinv(1.0 - z);
}

/* normcdf(x) = erfc(t) / 2 at t = -x/sqrt(2). The rounding error d of t
   (from an fma and a two-part 1/sqrt 2) enters to first order,
   erfc(t + d) = erfc(t) - d (2/sqrt pi) e^-t^2, which keeps the far left
   tail (normcdf(-37) ~ 1e-300, where erfc's slope is huge) accurate to
   ~1e-15 instead of ~1e-13. */
TC__PRIVATE double tc__math_normcdf(double x) {
    const double c_hi = 0.70710678118654757, c_lo = -4.8336466567264567e-17;
    double t = -x * c_hi, d = fma(-x, c_hi, -t) - x * c_lo;
    if (!(fabs(x) < 40.0)) return x != x ? x : x > 0.0 ? 1.0 : 0.0; /* nan, saturated */
    return 0.5 * erfc(t) - d * exp(-t * t) / TC__MATH_SQRTPI;
}

/* sqrt(sum a_i^2) over n <= 4 values without overflow or underflow: scale
   by a power of two (exact) taken from the largest magnitude. An infinite
   argument gives +inf even beside a nan (as hypot does). */
TC__PRIVATE double tc__math_norm(const double *a, int n) {
    double m = 0.0, s = 0.0;
    int i, e, has_nan = 0;
    for (i = 0; i < n; i++) {
        double v = fabs(a[i]);
        if (v == (double)INFINITY) return v;
        if (v != v) has_nan = 1;
        else if (v > m) m = v;
    }
    if (has_nan) return (double)NAN;
    if (m == 0.0) return 0.0;
    (void)frexp(m, &e);
    for (i = 0; i < n; i++) {
        double v = ldexp(a[i], -e);
        s += v * v;
    }
    return ldexp(sqrt(s), e);
}

/* fmin/fmax with C99 nan handling and a fixed choice for signed zeros
   (min(-0, +0) = -0, max = +0), the same in every entry point. */
TC__PRIVATE double tc__math_fminmax(double x, double y, int is_max) {
    if (x != x) return y;
    if (y != y) return x;
    if (x == y) return x == 0.0 ? (is_max ? (signbit(x) ? y : x) : (signbit(x) ? x : y)) : x;
    return (x < y) != is_max ? x : y;
}

/* The reference: every builtin in double, CUDA/C99 meaning. */
TC__PRIVATE double tc__math_f64(tc_builtin b, const double *a) {
    double x = a[0];
    switch (b) {
    case TC_BUILTIN_ACOS: return acos(x);
    case TC_BUILTIN_ACOSH: return acosh(x);
    case TC_BUILTIN_ASIN: return asin(x);
    case TC_BUILTIN_ASINH: return asinh(x);
    case TC_BUILTIN_ATAN: return atan(x);
    case TC_BUILTIN_ATANH: return atanh(x);
    case TC_BUILTIN_CBRT: return cbrt(x);
    case TC_BUILTIN_CEIL: return ceil(x);
    case TC_BUILTIN_COS: return cos(x);
    case TC_BUILTIN_COSH: return cosh(x);
    case TC_BUILTIN_COSPI: return tc__math_sinpi_cospi(x, 1);
    case TC_BUILTIN_CYL_BESSEL_I0: return tc__math_bessel_i(x, 0);
    case TC_BUILTIN_CYL_BESSEL_I1: return tc__math_bessel_i(x, 1);
    case TC_BUILTIN_ERF: return erf(x);
    case TC_BUILTIN_ERFC: return erfc(x);
    case TC_BUILTIN_ERFCINV: return tc__math_erfcinv(x);
    case TC_BUILTIN_ERFCX: return tc__math_erfcx(x);
    case TC_BUILTIN_ERFINV: return tc__math_erfinv(x);
    case TC_BUILTIN_EXP: return exp(x);
    case TC_BUILTIN_EXP10: return pow(10.0, x);
    case TC_BUILTIN_EXP2: return exp2(x);
    case TC_BUILTIN_EXPM1: return expm1(x);
    case TC_BUILTIN_FABS: return fabs(x);
    case TC_BUILTIN_FLOOR: return floor(x);
    case TC_BUILTIN_J0: return tc__math_bessel(x, 0);
    case TC_BUILTIN_J1: return tc__math_bessel(x, 1);
    case TC_BUILTIN_LGAMMA: return tc__math_lgamma(x);
    case TC_BUILTIN_LOG: return log(x);
    case TC_BUILTIN_LOG10: return log10(x);
    case TC_BUILTIN_LOG1P: return log1p(x);
    case TC_BUILTIN_LOG2: return log2(x);
    case TC_BUILTIN_LOGB: return logb(x);
    case TC_BUILTIN_NORMCDF: return tc__math_normcdf(x);
    case TC_BUILTIN_NORMCDFINV: return -TC__MATH_SQRT2 * tc__math_erfcinv(2.0 * x);
    case TC_BUILTIN_RCBRT: return 1.0 / cbrt(x);
    case TC_BUILTIN_ROUND: return round(x);
    case TC_BUILTIN_RSQRT: return 1.0 / sqrt(x);
    case TC_BUILTIN_SIN: return sin(x);
    case TC_BUILTIN_SINH: return sinh(x);
    case TC_BUILTIN_SINPI: return tc__math_sinpi_cospi(x, 0);
    case TC_BUILTIN_SQRT: return sqrt(x);
    case TC_BUILTIN_TAN: return tan(x);
    case TC_BUILTIN_TANH: return tanh(x);
    case TC_BUILTIN_TGAMMA: return tgamma(x);
    case TC_BUILTIN_TRUNC: return trunc(x);
    case TC_BUILTIN_Y0: return tc__math_bessel(x, 2);
    case TC_BUILTIN_Y1: return tc__math_bessel(x, 3);
    case TC_BUILTIN_ATAN2: return atan2(x, a[1]);
    case TC_BUILTIN_COPYSIGN: return copysign(x, a[1]);
    case TC_BUILTIN_FDIM: return fdim(x, a[1]);
    case TC_BUILTIN_FDIVIDE: return x / a[1];
    case TC_BUILTIN_FMAX: return tc__math_fminmax(x, a[1], 1);
    case TC_BUILTIN_FMIN: return tc__math_fminmax(x, a[1], 0);
    case TC_BUILTIN_FMOD: return fmod(x, a[1]);
    case TC_BUILTIN_HYPOT: return hypot(x, a[1]);
    case TC_BUILTIN_NEXTAFTER: return nextafter(x, a[1]);
    case TC_BUILTIN_POW: return pow(x, a[1]);
    case TC_BUILTIN_REMAINDER: return remainder(x, a[1]);
    case TC_BUILTIN_RHYPOT: return 1.0 / hypot(x, a[1]);
    case TC_BUILTIN_FMA: return fma(x, a[1], a[2]);
    case TC_BUILTIN_NORM3D: return tc__math_norm(a, 3);
    case TC_BUILTIN_RNORM3D: return 1.0 / tc__math_norm(a, 3);
    case TC_BUILTIN_NORM4D: return tc__math_norm(a, 4);
    case TC_BUILTIN_RNORM4D: return 1.0 / tc__math_norm(a, 4);
    case TC_BUILTIN_COUNT: break;
    }
    return (double)NAN;
}

/* ---- float lane kernels ------------------------------------------------ */
/* Branch-free: every special case is a select (or falls out of the
   arithmetic, as nan does), so a loop of lanes vectorizes. Out-of-range
   lanes compute garbage that a select discards, never undefined behaviour:
   no float->int conversions, shifts only on unsigned values, no short-
   circuit && / || (they are branches too).
   Error bounds: |result - exact| in ulps of float at the exact value (the
   exact value from libm in double; 0.5 = correctly rounded; subnormal
   results count in units of 2^-149). "Measured" is the maximum over every
   3rd float bit pattern, with and without fma contraction (-march=native
   and plain -O2); tests/t_math.c asserts the stated bound over every 97th
   to 997th pattern plus random values. */

/* c ? a : b (c is 0 or 1) through bit masks. Written as a ternary, gcc
   threads jumps through the constant arms and then no longer if-converts
   (vectorizes) the loop; masks it leaves alone. */
TC__MATH_INLINE float tc__math_sel(int c, float a, float b) {
    uint32_t m = 0u - (uint32_t)c;
    return tc__math_u2f((tc__math_f2u(a) & m) | (tc__math_f2u(b) & ~m));
}
TC__MATH_INLINE uint32_t tc__math_selu(int c, uint32_t a, uint32_t b) {
    uint32_t m = 0u - (uint32_t)c;
    return (a & m) | (b & ~m);
}
/* a * b + c, fused where the target has a fast fma (then compilers emit
   and vectorize the instruction), else two roundings. Kernels are within
   their stated bounds either way; each build gives fixed bits. */
#if defined(FP_FAST_FMAF) || defined(__FMA__) || defined(__ARM_FEATURE_FMA)
#define TC__MATH_FMAF(a, b, c) fmaf(a, b, c)
#define TC__MATH_FMA(a, b, c) fma(a, b, c)
#else
#define TC__MATH_FMAF(a, b, c) ((a) * (b) + (c))
#define TC__MATH_FMA(a, b, c) ((a) * (b) + (c))
#endif
/* Horner: c0 + x (c1 + x (c2 + ...)). */
TC__MATH_INLINE float tc__math_poly2(float x, float c0, float c1, float c2) {
    return TC__MATH_FMAF(x, TC__MATH_FMAF(x, c2, c1), c0);
}
TC__MATH_INLINE float tc__math_poly4(float x, float c0, float c1, float c2, float c3, float c4) {
    return TC__MATH_FMAF(x, TC__MATH_FMAF(x, tc__math_poly2(x, c2, c3, c4), c1), c0);
}
TC__MATH_INLINE float tc__math_poly5(float x, float c0, float c1, float c2, float c3, float c4,
                                     float c5) {
    return TC__MATH_FMAF(x, tc__math_poly4(x, c1, c2, c3, c4, c5), c0);
}
TC__MATH_INLINE float tc__math_poly6(float x, float c0, float c1, float c2, float c3, float c4,
                                     float c5, float c6) {
    return TC__MATH_FMAF(x, tc__math_poly5(x, c1, c2, c3, c4, c5, c6), c0);
}
TC__MATH_INLINE float tc__math_poly8(float x, float c0, float c1, float c2, float c3, float c4,
                                     float c5, float c6, float c7, float c8) {
    return TC__MATH_FMAF(x, TC__MATH_FMAF(x, tc__math_poly6(x, c2, c3, c4, c5, c6, c7, c8), c1), c0);
}
TC__MATH_INLINE double tc__math_poly4d(double x, double c0, double c1, double c2, double c3,
                                       double c4) {
    return TC__MATH_FMA(x, TC__MATH_FMA(x, TC__MATH_FMA(x, TC__MATH_FMA(x, c4, c3), c2), c1), c0);
}

/* x limited to [lo, hi]; nan stays nan. */
TC__MATH_INLINE float tc__math_clamp(float x, float lo, float hi) {
    return tc__math_sel(x < lo, lo, tc__math_sel(x > hi, hi, x));
}

#define TC__MATH_SHIFTER 12582912.0f /* 1.5 * 2^23: x + it rounds x to an integer */
#define TC__MATH_LN2_HI 0.693145751953125f /* 15 bits: k * hi is exact */
#define TC__MATH_LN2_LO 1.42860682e-06f
#define TC__MATH_LOG2E 1.44269504f

/* p * 2^k for k = kb - 256 in [-252, 254], as two normal power-of-two
   factors: the first product is exact, the second rounds once into the
   subnormal range or overflows to inf exactly where p * 2^k does. */
TC__MATH_INLINE float tc__math_ldexp_lane(float p, uint32_t kb) {
    uint32_t k1b = kb >> 1;
    return p * tc__math_u2f((k1b - 1u) << 23) * tc__math_u2f((kb - k1b - 1u) << 23);
}

/* Cody-Waite reduction x = k ln2 + r, |r| <= 0.35 (x within [-104, 89]):
   returns r, sets *kb = k + 256 and *kf = k. */
TC__MATH_INLINE float tc__math_exp_reduce(float x, uint32_t *kb, float *kf) {
    float t = x * TC__MATH_LOG2E + TC__MATH_SHIFTER;
    *kf = t - TC__MATH_SHIFTER;
    *kb = tc__math_f2u(t) - tc__math_f2u(TC__MATH_SHIFTER) + 256u;
    return (x - *kf * TC__MATH_LN2_HI) - *kf * TC__MATH_LN2_LO;
}

/* e^r - 1 on |r| <= 0.35: r + r^2 (minimax degree 4), rel. error 0.06 ulp. */
TC__MATH_INLINE float tc__math_expm1_poly(float r) {
    float q = tc__math_poly4(r, 0.49999994f, 0.166665152f, 0.0416684486f, 0.008369416f,
                             0.00138140016f);
    return TC__MATH_FMAF(r * r, q, r);
}

/* exp: max error 1.5 ulp (measured 0.98). */
TC__MATH_INLINE float tc__math_exp_lane(float x) {
    uint32_t kb;
    float kf, xc = tc__math_clamp(x, -104.0f, 89.0f);
    float r = tc__math_exp_reduce(xc, &kb, &kf);
    return tc__math_ldexp_lane(1.0f + tc__math_expm1_poly(r), kb); /* nan propagates */
}

/* exp2: r = x - round(x) is exact; 2^r - 1 minimax degree 6 (0.08 ulp,
   refitted around the float-rounded linear coefficient).
   Max error 1.5 ulp (measured 1.07). */
TC__MATH_INLINE float tc__math_exp2_lane(float x) {
    float xc = tc__math_clamp(x, -152.0f, 129.0f);
    float t = xc + TC__MATH_SHIFTER, r = xc - (t - TC__MATH_SHIFTER);
    uint32_t kb = tc__math_f2u(t) - tc__math_f2u(TC__MATH_SHIFTER) + 256u;
    float p = tc__math_poly5(r, 0.693147242f, 0.240226552f, 0.0555026196f, 0.00961745158f,
                             0.00134232105f, 0.00015658683f);
    return tc__math_ldexp_lane(TC__MATH_FMAF(r, p, 1.0f), kb); /* nan propagates */
}

/* exp10: x = k log10(2) + r (two-part constant), 10^r - 1 minimax degree
   7 in r itself (no rounded r*ln10; low coefficients rounded to float
   first, the rest refitted: 0.03 ulp). Max error 1.5 ulp (measured 1.20). */
TC__MATH_INLINE float tc__math_exp10_lane(float x) {
    float xc = tc__math_clamp(x, -46.0f, 40.0f);
    float t = xc * 3.32192809f + TC__MATH_SHIFTER, kf = t - TC__MATH_SHIFTER;
    uint32_t kb = tc__math_f2u(t) - tc__math_f2u(TC__MATH_SHIFTER) + 256u;
    float r = (xc - kf * 0.301025390625f) - kf * 4.60503898e-06f;
    float p = tc__math_poly6(r, 2.30258512f, 2.65094924f, 2.0346787f, 1.17121899f, 0.538903832f,
                             0.208714694f, 0.0873127878f);
    return tc__math_ldexp_lane(TC__MATH_FMAF(r, p, 1.0f), kb); /* nan propagates */
}

/* expm1 = 2^k (e^r - 1) + (2^k - 1), arranged so nothing cancels:
   k > 0: 2^k (((1 - 2^-k) + r) + r^2 q(r)), the first sum taken before the
   small r^2 term so e^r - 1 (often negative) is never rounded on its own;
   k <= 0: 2^k (e^r - 1) + (2^k - 1), both terms exact for the k that
   matter. Max error 2 ulp (measured 1.28). */
TC__MATH_INLINE float tc__math_expm1_lane(float x) {
    uint32_t kb, kc;
    float kf, xc = tc__math_clamp(x, -18.0f, 89.0f);
    float r = tc__math_exp_reduce(xc, &kb, &kf), r2 = r * r, em, pos, neg, s, c;
    float q = tc__math_poly4(r, 0.49999994f, 0.166665152f, 0.0416684486f, 0.008369416f,
                             0.00138140016f);
    em = TC__MATH_FMAF(r2, q, r);
    kc = tc__math_selu(kb < 286u, kb, 286u);         /* 2^-k: k clamped to 30 */
    c = 1.0f - tc__math_u2f((383u - kc) << 23);      /* 1 - 2^-k */
    pos = tc__math_ldexp_lane(TC__MATH_FMAF(r2, q, c + r), kb);
    s = tc__math_u2f((kb - 129u) << 23);             /* 2^k, k in [-26, 0] */
    neg = TC__MATH_FMAF(s, em, s - 1.0f);
    return tc__math_sel(x == 0.0f, x, tc__math_sel(kb > 256u, pos, neg)); /* keeps -0; nan propagates */
}

/* Splits positive finite x (subnormals too) as 2^e (1 + f), 1 + f in
   [sqrt(1/2), sqrt(2)); returns f, sets *ef = e. */
TC__MATH_INLINE float tc__math_log_split(float x, float *ef) {
    int sub = x < 1.17549435e-38f;
    float xs = tc__math_sel(sub, x * 8388608.0f, x); /* subnormal: * 2^23 */
    uint32_t u = tc__math_f2u(xs), field = (u + 0x004afb0du) >> 23; /* 1 - bits(sqrt .5) */
    *ef = (float)(int32_t)field - tc__math_sel(sub, 150.0f, 127.0f);
    return tc__math_u2f(u - (field << 23) + 0x3f800000u) - 1.0f;
}

/* log(1 + f) - f for f in [sqrt(1/2) - 1, sqrt(2) - 1], as -s (f - R(s^2))
   with s = f / (2 + f) and 2 atanh(s) = 2s + s R: the leading f stays
   exact and the correction is small, so its rounding hardly shows.
   R: minimax degree 3 in s^2, error 0.01 ulp of the log. */
TC__MATH_INLINE float tc__math_log1p_tail(float f) {
    float s = f / (2.0f + f), z = s * s;
    float R = z * tc__math_poly2(z, 0.666667759f, 0.399775356f, 0.298718631f);
    return -s * (f - R);
}

/* Special values of log-like functions of x (the argument of log). */
TC__MATH_INLINE float tc__math_log_special(float x, float y) {
    float ninf = -tc__math_u2f(0x7f800000u), nan = tc__math_u2f(0x7fc00000u);
    float bad = tc__math_sel(x == 0.0f, ninf, tc__math_sel(x < 0.0f, nan, x));
    return tc__math_sel((x > 0.0f) & (x < tc__math_u2f(0x7f800000u)), y, bad);
}

/* log: e ln2 (two parts, the high product exact) + f + tail.
   Max error 1.5 ulp (measured 0.89). */
TC__MATH_INLINE float tc__math_log_lane(float x) {
    float e, f = tc__math_log_split(x, &e);
    float y = e * TC__MATH_LN2_HI + (f + (e * TC__MATH_LN2_LO + tc__math_log1p_tail(f)));
    return tc__math_log_special(x, y);
}

/* f * C + t * C for a constant C = Ch + Cl (Ch of 12 bits) with the
   leading product exact: f is split into 12 + 12 bits, fh * Ch needs 24. */
TC__MATH_INLINE float tc__math_mul_const(float f, float t, float ch, float cl) {
    float fh = tc__math_u2f(tc__math_f2u(f) & 0xfffff000u), fl = f - fh;
    return fh * ch + (fl * ch + (f * cl + t * (ch + cl)));
}

/* log2: e + log(1 + f) log2(e). Max error 1.5 ulp (measured 1.14). */
TC__MATH_INLINE float tc__math_log2_lane(float x) {
    float e, f = tc__math_log_split(x, &e);
    float y = e + tc__math_mul_const(f, tc__math_log1p_tail(f), 1.44287109375f, -0.000176052861f);
    return tc__math_log_special(x, y);
}

/* log10: e log10(2) (two parts) + log(1 + f) log10(e). Max error 1.5 ulp
   (measured 1.16). */
TC__MATH_INLINE float tc__math_log10_lane(float x) {
    float e, f = tc__math_log_split(x, &e);
    float y = e * 0.301025390625f +
              (tc__math_mul_const(f, tc__math_log1p_tail(f), 0.434326171875f, -3.16899717e-05f) +
               e * 4.60503898e-06f);
    return tc__math_log_special(x, y);
}

/* log1p: split u = 1 + x, but take f = 2^-e (1 + x) - 1 from x itself:
   (2^-e - 1) + 2^-e x, two exact terms whose rounded sum fh and error fl
   (2Sum) carry what rounding 1 + x would lose; fl enters to first order,
   fl / (1 + f). For e > 24 that no longer matters and f = m - 1 is used.
   Max error 1.5 ulp (measured 0.94). */
TC__MATH_INLINE float tc__math_log1p_lane(float x) {
    float u = 1.0f + x, e, f = tc__math_log_split(u, &e), s, sx, fh, fl, bv, y;
    float ec = tc__math_sel(e < 24.0f, e, 24.0f);
    s = tc__math_u2f((uint32_t)(int32_t)(127.0f - ec) << 23); /* 2^-e */
    sx = s * x;
    fh = (s - 1.0f) + sx;
    bv = fh - (s - 1.0f);
    fl = ((s - 1.0f) - (fh - bv)) + (sx - bv);
    fl = tc__math_sel(e <= 24.0f, fl * (1.0f - fh + fh * fh), 0.0f);
    f = tc__math_sel(e <= 24.0f, fh, f);
    y = e * TC__MATH_LN2_HI + (f + (e * TC__MATH_LN2_LO + (fl + tc__math_log1p_tail(f))));
    return tc__math_sel(x == 0.0f, x, tc__math_log_special(u, y));
}

/* tanh: |x| < 0.625: x + x^3 P(x^2) (minimax degree 4, 0.07 ulp), odd, so
   tiny x and -0 come out exact; else 1 - 2 / (e^2|x| + 1), saturating to
   exactly +-1 from |x| = 9.1 (the true value rounds to 1 from 9.01).
   Max error 2 ulp (measured 1.32). */
TC__MATH_INLINE float tc__math_tanh_lane(float x) {
    uint32_t sign = tc__math_f2u(x) & 0x80000000u, kb;
    float a = tc__math_u2f(tc__math_f2u(x) & 0x7fffffffu), z = a * a, kf, r, big, y;
    float small = TC__MATH_FMAF(a * z, tc__math_poly4(z, -0.333332807f, 0.133314416f, -0.0537397154f,
                                                      0.0206390861f, -0.0057049864f), a);
    float ac = tc__math_sel(a > 9.1f, 9.1f, a); /* nan stays nan */
    r = tc__math_exp_reduce(ac + ac, &kb, &kf); /* k in [0, 27]: one scale factor */
    big = 1.0f - 2.0f / ((1.0f + tc__math_expm1_poly(r)) * tc__math_u2f((kb - 129u) << 23) + 1.0f);
    y = tc__math_sel(a < 0.625f, small, big);
    return tc__math_u2f(tc__math_f2u(y) | sign); /* odd; -0 stays -0 */
}

/* erf: |x| < 1: x + x P(x^2) (minimax degree 6 in x^2, 0.02 ulp; the 1
   split off so the rounded 2/sqrt(pi) costs nothing); else
   1 - exp(Q(|x| - 1)) with Q ~ log(erfc), minimax degree 8 on [1, 3.95]
   (past 3.95 erf rounds to 1). Q is expanded at 1, where erfc matters most,
   so its Horner sums do not cancel there. Max error 2 ulp (measured 1.35). */
TC__MATH_INLINE float tc__math_erf_lane(float x) {
    uint32_t sign = tc__math_f2u(x) & 0x80000000u, kb;
    float a = tc__math_u2f(tc__math_f2u(x) & 0x7fffffffu), z = a * a, kf, r, big, u, q, y;
    float small = TC__MATH_FMAF(a, tc__math_poly6(z, 0.128379166f, -0.37612626f, 0.112835936f,
                                                  -0.0268541072f, 0.0051888139f, -0.000801404938f,
                                                  7.86563469e-05f), a);
    u = tc__math_clamp(a, 1.0f, 3.95f) - 1.0f; /* nan stays nan */
    q = tc__math_poly8(u, -1.84960556f, -2.63896751f, -0.843106866f, -0.0415646248f, 0.0100495592f,
                       -0.00201645098f, 0.000293016201f, -2.30573987e-05f, 2.12061394e-07f);
    r = tc__math_exp_reduce(q, &kb, &kf); /* q in [-18.1, -1.8]: k in [-27, -2] */
    big = 1.0f - (1.0f + tc__math_expm1_poly(r)) * tc__math_u2f((kb - 129u) << 23);
    y = tc__math_sel(a < 1.0f, small, big);
    return tc__math_u2f(tc__math_f2u(y) | sign); /* odd; -0 stays -0 */
}

/* Nearest integer of |v| < 2^51, in double. */
TC__MATH_INLINE double tc__math_rint_d(double v) {
    const double shifter = 6755399441055744.0; /* 1.5 * 2^52 */
    return (v + shifter) - shifter;
}

/* sin and cos, computed in double: reduction x = k pi/2 + r with a 33-bit
   first constant (k < 2^20, so k * P1 and x - k * P1 are exact), Taylor
   polynomials to r^11 / r^12 on |r| <= pi/4 (truncation < 1e-11), one
   final rounding: max error 0.501 ulp (measured 0.500). The quadrant picks
   +-sin or +-cos by arithmetic on 0/1 doubles, no integer compares. Lanes
   with |x| >= 2^20 (and inf) are redone by the caller with libm. */
#define TC__MATH_TRIG_MAX 1048576.0f
TC__MATH_INLINE int tc__math_trig_far(float x) { /* past the reduction range, or inf */
    return (x >= TC__MATH_TRIG_MAX) | (x <= -TC__MATH_TRIG_MAX);
}
TC__MATH_INLINE float tc__math_sincos_lane(float x, int want_cos) {
    double xd = (double)tc__math_sel(tc__math_trig_far(x), 0.0f, x);
    double k = tc__math_rint_d(xd * 0.63661977236758138), kq = k + (double)want_cos;
    double r = (xd - k * 1.5707963267341256) - k * 6.0771005065061922e-11, z = r * r;
    double q = kq - 4.0 * tc__math_rint_d((kq - 1.5) * 0.25); /* kq mod 4 */
    double h = tc__math_rint_d((q - 0.5) * 0.5), odd = q - 2.0 * h; /* q = 2h + odd */
    double sn = TC__MATH_FMA(r * z, tc__math_poly4d(z, -1.0 / 6, 1.0 / 120, -1.0 / 5040,
                                                    1.0 / 362880, -1.0 / 39916800), r);
    double cs = TC__MATH_FMA(z * z, tc__math_poly4d(z, 1.0 / 24, -1.0 / 720, 1.0 / 40320,
                                                    -1.0 / 3628800, 1.0 / 479001600), 1.0 - 0.5 * z);
    float v = (float)((1.0 - 2.0 * h) * ((1.0 - odd) * sn + odd * cs));
    return tc__math_sel((x != x) | ((x == 0.0f) & (want_cos == 0)), x, v); /* nan, sin(+-0) */
}

/* 1/sqrt in double for positive finite d: bit-trick estimate and three
   Newton steps (3.5e-2 -> 2e-3 -> 5e-6 -> 4e-11). */
TC__MATH_INLINE double tc__math_rsqrt_newton(double d) {
    double y = tc__math_u2d(0x5fe6eb3bfb58d000u - (tc__math_d2u(d) >> 1));
    y = y * (1.5 - 0.5 * d * y * y);
    y = y * (1.5 - 0.5 * d * y * y);
    return y * (1.5 - 0.5 * d * y * y);
}

/* rsqrt: the double Newton value (4e-11) rounded once: max error 0.501
   ulp (measured 0.500). rsqrt(+-0) = +-inf, rsqrt(inf) = 0, negative: nan. */
TC__MATH_INLINE float tc__math_rsqrt_lane(float x) {
    int ok = (x > 0.0f) & (x < tc__math_u2f(0x7f800000u));
    float y = (float)tc__math_rsqrt_newton((double)tc__math_sel(ok, x, 1.0f));
    float special = tc__math_sel(x > 0.0f, 0.0f, tc__math_sel(x == x, tc__math_u2f(0x7fc00000u), x));
    special = tc__math_sel(x == 0.0f, tc__math_u2f(tc__math_f2u(x) | 0x7f800000u), special);
    return tc__math_sel(ok, y, special);
}

/* Rounding to integers (exact). |x| >= 2^23 (and inf, nan) is already an
   integer; below, |x| + 2^23 - 2^23 rounds |x| to an integer (to nearest)
   and a select steps it down to the truncation. No float->int conversion:
   gcc treats those as trapping and will not vectorize them under a select.
   The sign of zero is kept (trunc(-0.5) = -0). */
TC__MATH_INLINE float tc__math_trunc_lane(float x) {
    float a = tc__math_u2f(tc__math_f2u(x) & 0x7fffffffu), r = (a + 8388608.0f) - 8388608.0f;
    float t = tc__math_sel(r > a, r - 1.0f, r);
    t = tc__math_u2f(tc__math_f2u(t) | (tc__math_f2u(x) & 0x80000000u));
    return tc__math_sel(a < 8388608.0f, t, x);
}
TC__MATH_INLINE float tc__math_floor_lane(float x) {
    float t = tc__math_trunc_lane(x);
    return tc__math_sel(t > x, t - 1.0f, t);
}
TC__MATH_INLINE float tc__math_ceil_lane(float x) {
    float t = tc__math_trunc_lane(x);
    return tc__math_sel(t < x, t + 1.0f, t);
}
/* Half-way cases away from zero (C99 round). x - t is exact. */
TC__MATH_INLINE float tc__math_round_lane(float x) {
    float t = tc__math_trunc_lane(x), d = x - t;
    return tc__math_sel(d >= 0.5f, t + 1.0f, tc__math_sel(d <= -0.5f, t - 1.0f, t));
}
TC__MATH_INLINE float tc__math_fabs_lane(float x) {
    return tc__math_u2f(tc__math_f2u(x) & 0x7fffffffu);
}
/* fmin/fmax: a nan argument yields the other; min(-0, +0) = -0 and
   max(-0, +0) = +0 (by or-ing / and-ing the bits of equal values). */
TC__MATH_INLINE float tc__math_fmin_lane(float x, float y) {
    float m = tc__math_sel(x < y, x, y);
    m = tc__math_sel(x == y, tc__math_u2f(tc__math_f2u(x) | tc__math_f2u(y)), m);
    return tc__math_sel(x != x, y, tc__math_sel(y != y, x, m));
}
TC__MATH_INLINE float tc__math_fmax_lane(float x, float y) {
    float m = tc__math_sel(x > y, x, y);
    m = tc__math_sel(x == y, tc__math_u2f(tc__math_f2u(x) & tc__math_f2u(y)), m);
    return tc__math_sel(x != x, y, tc__math_sel(y != y, x, m));
}
TC__MATH_INLINE float tc__math_copysign_lane(float x, float y) {
    return tc__math_u2f((tc__math_f2u(x) & 0x7fffffffu) | (tc__math_f2u(y) & 0x80000000u));
}
TC__MATH_INLINE float tc__math_fdim_lane(float x, float y) {
    return tc__math_sel((x != x) | (y != y), x + y, tc__math_sel(x > y, x - y, 0.0f));
}
TC__MATH_INLINE float tc__math_div_lane(float x, float y) { return x / y; }

/* ---- float blocks ------------------------------------------------------ */

/* Lanes go in chunks of TC__MATH_CHUNK at a fixed count, read straight
   from the input (a zero-padded local copy for the last, short chunk) into
   a local result array, then stored: the fixed count and the local arrays
   let compilers vectorize at -O2 without alias checks or a scalar
   remainder, and dst may equal an input. (Loading full chunks into a
   local array too lets gcc forward the copied values around the loop,
   which defeats its if-conversion.) */
TC__MATH_INLINE const float *tc__math_chunk_src(float *pad, const float *a, int i, int m) {
    if (m == TC__MATH_CHUNK) return a + i;
    memset(pad, 0, sizeof(float) * TC__MATH_CHUNK);
    memcpy(pad, a + i, sizeof(float) * (size_t)m);
    return pad;
}
TC__MATH_INLINE void tc__math_chunk_store(float *dst, const float *y, int m) {
    if (m == TC__MATH_CHUNK) memcpy(dst, y, sizeof(float) * TC__MATH_CHUNK);
    else memcpy(dst, y, sizeof(float) * (size_t)m);
}

#define TC__MATH_BLOCK1(name, lane)                                             \
    TC__MATH_BLOCK_FN void name(float *dst, const float *a, int n) {            \
        int i, j;                                                               \
        for (i = 0; i < n; i += TC__MATH_CHUNK) {                               \
            float pad[TC__MATH_CHUNK], y[TC__MATH_CHUNK];                       \
            int m = n - i < TC__MATH_CHUNK ? n - i : TC__MATH_CHUNK;            \
            const float *x = tc__math_chunk_src(pad, a, i, m);                  \
            for (j = 0; j < TC__MATH_CHUNK; j++) y[j] = lane(x[j]);             \
            tc__math_chunk_store(dst + i, y, m);                                \
        }                                                                       \
    }
#define TC__MATH_BLOCK2(name, lane)                                             \
    TC__MATH_BLOCK_FN void name(float *dst, const float *a, const float *b, int n) { \
        int i, j;                                                               \
        for (i = 0; i < n; i += TC__MATH_CHUNK) {                               \
            float pad[TC__MATH_CHUNK], padb[TC__MATH_CHUNK], y[TC__MATH_CHUNK]; \
            int m = n - i < TC__MATH_CHUNK ? n - i : TC__MATH_CHUNK;            \
            const float *x = tc__math_chunk_src(pad, a, i, m);                  \
            const float *w = tc__math_chunk_src(padb, b, i, m);                 \
            for (j = 0; j < TC__MATH_CHUNK; j++) y[j] = lane(x[j], w[j]);       \
            tc__math_chunk_store(dst + i, y, m);                                \
        }                                                                       \
    }

TC__MATH_BLOCK1(tc__math_block_exp, tc__math_exp_lane)
TC__MATH_BLOCK1(tc__math_block_exp2, tc__math_exp2_lane)
TC__MATH_BLOCK1(tc__math_block_exp10, tc__math_exp10_lane)
TC__MATH_BLOCK1(tc__math_block_expm1, tc__math_expm1_lane)
TC__MATH_BLOCK1(tc__math_block_log, tc__math_log_lane)
TC__MATH_BLOCK1(tc__math_block_log2, tc__math_log2_lane)
TC__MATH_BLOCK1(tc__math_block_log10, tc__math_log10_lane)
TC__MATH_BLOCK1(tc__math_block_log1p, tc__math_log1p_lane)
TC__MATH_BLOCK1(tc__math_block_tanh, tc__math_tanh_lane)
TC__MATH_BLOCK1(tc__math_block_erf, tc__math_erf_lane)
TC__MATH_BLOCK1(tc__math_block_rsqrt, tc__math_rsqrt_lane)
TC__MATH_BLOCK1(tc__math_block_trunc, tc__math_trunc_lane)
TC__MATH_BLOCK1(tc__math_block_floor, tc__math_floor_lane)
TC__MATH_BLOCK1(tc__math_block_ceil, tc__math_ceil_lane)
TC__MATH_BLOCK1(tc__math_block_round, tc__math_round_lane)
TC__MATH_BLOCK1(tc__math_block_fabs, tc__math_fabs_lane)
TC__MATH_BLOCK2(tc__math_block_fmin, tc__math_fmin_lane)
TC__MATH_BLOCK2(tc__math_block_fmax, tc__math_fmax_lane)
TC__MATH_BLOCK2(tc__math_block_copysign, tc__math_copysign_lane)
TC__MATH_BLOCK2(tc__math_block_fdim, tc__math_fdim_lane)
TC__MATH_BLOCK2(tc__math_block_div, tc__math_div_lane)

/* sqrt: libm. It is correctly rounded and compilers inline it as the
   scalar instruction (errno keeps it from vectorizing); a branch-free
   double-precision Newton kernel with an exact midpoint fix-up measured
   twice as slow as that even with AVX-512. */
TC__MATH_BLOCK_FN void tc__math_block_sqrt(float *dst, const float *a, int n) {
    int i;
    for (i = 0; i < n; i++) dst[i] = sqrtf(a[i]);
}

/* sin/cos: the vector kernel for every lane, then libm (in double, so
   one rounding) for the rare lanes past the kernel's reduction range. */
TC__MATH_BLOCK_FN void tc__math_block_sincos(float *dst, const float *a, int n, int want_cos) {
    int i, j;
    for (i = 0; i < n; i += TC__MATH_CHUNK) {
        float pad[TC__MATH_CHUNK], y[TC__MATH_CHUNK];
        int m = n - i < TC__MATH_CHUNK ? n - i : TC__MATH_CHUNK, far = 0;
        const float *x = tc__math_chunk_src(pad, a, i, m);
        for (j = 0; j < TC__MATH_CHUNK; j++) {
            y[j] = tc__math_sincos_lane(x[j], want_cos);
            far |= tc__math_trig_far(x[j]);
        }
        for (j = 0; far && j < TC__MATH_CHUNK; j++)
            if (tc__math_trig_far(x[j]))
                y[j] = (float)(want_cos ? cos((double)x[j]) : sin((double)x[j]));
        tc__math_chunk_store(dst + i, y, m);
    }
}

/* The builtins with a vector kernel; returns 0 for the others. */
TC__PRIVATE int tc__math_block_fast_f32(tc_builtin b, float *dst, const float *a0,
                                        const float *a1, int n) {
    switch (b) {
    case TC_BUILTIN_EXP: tc__math_block_exp(dst, a0, n); return 1;
    case TC_BUILTIN_EXP2: tc__math_block_exp2(dst, a0, n); return 1;
    case TC_BUILTIN_EXP10: tc__math_block_exp10(dst, a0, n); return 1;
    case TC_BUILTIN_EXPM1: tc__math_block_expm1(dst, a0, n); return 1;
    case TC_BUILTIN_LOG: tc__math_block_log(dst, a0, n); return 1;
    case TC_BUILTIN_LOG2: tc__math_block_log2(dst, a0, n); return 1;
    case TC_BUILTIN_LOG10: tc__math_block_log10(dst, a0, n); return 1;
    case TC_BUILTIN_LOG1P: tc__math_block_log1p(dst, a0, n); return 1;
    case TC_BUILTIN_TANH: tc__math_block_tanh(dst, a0, n); return 1;
    case TC_BUILTIN_ERF: tc__math_block_erf(dst, a0, n); return 1;
    case TC_BUILTIN_SIN: tc__math_block_sincos(dst, a0, n, 0); return 1;
    case TC_BUILTIN_COS: tc__math_block_sincos(dst, a0, n, 1); return 1;
    case TC_BUILTIN_SQRT: tc__math_block_sqrt(dst, a0, n); return 1;
    case TC_BUILTIN_RSQRT: tc__math_block_rsqrt(dst, a0, n); return 1;
    case TC_BUILTIN_TRUNC: tc__math_block_trunc(dst, a0, n); return 1;
    case TC_BUILTIN_FLOOR: tc__math_block_floor(dst, a0, n); return 1;
    case TC_BUILTIN_CEIL: tc__math_block_ceil(dst, a0, n); return 1;
    case TC_BUILTIN_ROUND: tc__math_block_round(dst, a0, n); return 1;
    case TC_BUILTIN_FABS: tc__math_block_fabs(dst, a0, n); return 1;
    case TC_BUILTIN_FMIN: tc__math_block_fmin(dst, a0, a1, n); return 1;
    case TC_BUILTIN_FMAX: tc__math_block_fmax(dst, a0, a1, n); return 1;
    case TC_BUILTIN_COPYSIGN: tc__math_block_copysign(dst, a0, a1, n); return 1;
    case TC_BUILTIN_FDIM: tc__math_block_fdim(dst, a0, a1, n); return 1;
    case TC_BUILTIN_FDIVIDE: tc__math_block_div(dst, a0, a1, n); return 1;
    default: return 0;
    }
}

/* ---- float scalar ------------------------------------------------------ */

/* Builtins without a float libm function go through the double reference
   (one rounding of a near-exact double: <= 0.5 ulp + a hair). */
TC__PRIVATE float tc__math_f32_via_f64(tc_builtin b, const float *a) {
    double d[4] = {0.0, 0.0, 0.0, 0.0};
    int i, n = tc__math_arity(b);
    for (i = 0; i < n; i++) d[i] = (double)a[i];
    return (float)tc__math_f64(b, d);
}

/* Builtins without a vector kernel: float libm where C99 has it. */
TC__PRIVATE float tc__math_f32_libm(tc_builtin b, const float *a) {
    float x = a[0];
    switch (b) {
    case TC_BUILTIN_ACOS: return acosf(x);
    case TC_BUILTIN_ACOSH: return acoshf(x);
    case TC_BUILTIN_ASIN: return asinf(x);
    case TC_BUILTIN_ASINH: return asinhf(x);
    case TC_BUILTIN_ATAN: return atanf(x);
    case TC_BUILTIN_ATANH: return atanhf(x);
    case TC_BUILTIN_CBRT: return cbrtf(x);
    case TC_BUILTIN_COSH: return coshf(x);
    case TC_BUILTIN_ERFC: return erfcf(x);
    case TC_BUILTIN_LGAMMA: return (float)tc__math_lgamma((double)x);
    case TC_BUILTIN_LOGB: return logbf(x);
    case TC_BUILTIN_SINH: return sinhf(x);
    case TC_BUILTIN_TAN: return tanf(x);
    case TC_BUILTIN_TGAMMA: return tgammaf(x);
    case TC_BUILTIN_ATAN2: return atan2f(x, a[1]);
    case TC_BUILTIN_FMOD: return fmodf(x, a[1]);
    case TC_BUILTIN_HYPOT: return hypotf(x, a[1]);
    case TC_BUILTIN_NEXTAFTER: return nextafterf(x, a[1]);
    case TC_BUILTIN_POW: return powf(x, a[1]);
    case TC_BUILTIN_REMAINDER: return remainderf(x, a[1]);
    case TC_BUILTIN_FMA: return fmaf(x, a[1], a[2]);
    default: return tc__math_f32_via_f64(b, a);
    }
}

/* One float value. Builtins with a vector kernel run it (a block of one),
   so a lane gets the same bits alone as in any block. */
TC__PRIVATE float tc__math_f32(tc_builtin b, const float *a) {
    float y;
    if (tc__math_block_fast_f32(b, &y, a, tc__math_arity(b) > 1 ? a + 1 : NULL, 1)) return y;
    return tc__math_f32_libm(b, a);
}

/* ---- blocks ------------------------------------------------------------ */

TC__PRIVATE void tc__math_block_f32(tc_builtin b, float *dst, const float *a0, const float *a1,
                                    const float *a2, const float *a3, int n) {
    int i;
    float a[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (tc__math_block_fast_f32(b, dst, a0, a1, n)) return;
    for (i = 0; i < n; i++) {
        a[0] = a0[i];
        if (a1) a[1] = a1[i];
        if (a2) a[2] = a2[i];
        if (a3) a[3] = a3[i];
        dst[i] = tc__math_f32_libm(b, a);
    }
}

/* Doubles: libm per lane (the common unary ones without the dispatch). */
#define TC__MATH_LOOP_F64(fn)                                                   \
    for (i = 0; i < n; i++) dst[i] = fn(a0[i]);                                 \
    return

TC__PRIVATE void tc__math_block_f64(tc_builtin b, double *dst, const double *a0, const double *a1,
                                    const double *a2, const double *a3, int n) {
    int i;
    double a[4] = {0.0, 0.0, 0.0, 0.0};
    switch (b) {
    case TC_BUILTIN_EXP: TC__MATH_LOOP_F64(exp);
    case TC_BUILTIN_LOG: TC__MATH_LOOP_F64(log);
    case TC_BUILTIN_TANH: TC__MATH_LOOP_F64(tanh);
    case TC_BUILTIN_SQRT: TC__MATH_LOOP_F64(sqrt);
    case TC_BUILTIN_FABS: TC__MATH_LOOP_F64(fabs);
    case TC_BUILTIN_SIN: TC__MATH_LOOP_F64(sin);
    case TC_BUILTIN_COS: TC__MATH_LOOP_F64(cos);
    default: break;
    }
    for (i = 0; i < n; i++) {
        a[0] = a0[i];
        if (a1) a[1] = a1[i];
        if (a2) a[2] = a2[i];
        if (a3) a[3] = a3[i];
        dst[i] = tc__math_f64(b, a);
    }
}

/* ---- float16 ----------------------------------------------------------- */

/* Exact: every half is a float. Subnormal halves are m * 2^-24, computed
   as a float product (exact). */
TC__MATH_INLINE float tc__math_half_to_float_lane(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (uint32_t)(h >> 10) & 0x1fu;
    uint32_t m = (uint32_t)h & 0x3ffu;
    uint32_t normal = sign | ((e + 112u) << 23) | (m << 13);
    uint32_t infnan = sign | 0x7f800000u | (m << 13);
    uint32_t sub = sign | tc__math_f2u((float)m * 5.9604644775390625e-8f); /* 2^-24 */
    return tc__math_u2f(tc__math_selu(e == 0, sub, tc__math_selu(e == 31, infnan, normal)));
}

/* Round to nearest even; overflow to inf; nan stays nan (quiet, sign and
   top payload bits kept). Normal range: add the rounding bias to the bits
   and let the carry ripple into the exponent. Subnormal range: adding 0.5
   (2^-1) makes the float hardware round at the half's 2^-24 quantum. */
TC__MATH_INLINE uint16_t tc__math_float_to_half_lane(float f) {
    uint32_t u = tc__math_f2u(f), sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    uint32_t lsb = (a >> 13) & 1u;
    uint32_t normal = (a - 0x38000000u + 0x0fffu + lsb) >> 13; /* rebias 127 -> 15 */
    uint32_t sub = tc__math_f2u(tc__math_u2f(a) + 0.5f) - 0x3f000000u;
    uint32_t nan = 0x7e00u | ((a >> 13) & 0x3ffu);
    uint32_t r = tc__math_selu(a < 0x38800000u, sub, normal);  /* below 2^-14: subnormal */
    r = tc__math_selu(a >= 0x477ff000u, 0x7c00u, r);            /* from 65520: inf */
    r = tc__math_selu(a > 0x7f800000u, nan, r);
    return (uint16_t)(sign | r);
}

TC__PRIVATE float tc__half_to_float(uint16_t h) { return tc__math_half_to_float_lane(h); }
TC__PRIVATE uint16_t tc__float_to_half(float f) { return tc__math_float_to_half_lane(f); }

/* Blocks in chunks, as the float kernels (see tc__math_chunk_src). */
TC__MATH_BLOCK_FN void tc__half_to_float_block(float *dst, const uint16_t *src, int n) {
    int i, j;
    for (i = 0; i < n; i += TC__MATH_CHUNK) {
        uint16_t pad[TC__MATH_CHUNK];
        float y[TC__MATH_CHUNK];
        int m = n - i < TC__MATH_CHUNK ? n - i : TC__MATH_CHUNK;
        const uint16_t *x = src + i;
        if (m < TC__MATH_CHUNK) {
            memset(pad, 0, sizeof pad);
            memcpy(pad, src + i, sizeof(uint16_t) * (size_t)m);
            x = pad;
        }
        for (j = 0; j < TC__MATH_CHUNK; j++) y[j] = tc__math_half_to_float_lane(x[j]);
        tc__math_chunk_store(dst + i, y, m);
    }
}
TC__MATH_BLOCK_FN void tc__float_to_half_block(uint16_t *dst, const float *src, int n) {
    int i, j;
    for (i = 0; i < n; i += TC__MATH_CHUNK) {
        float pad[TC__MATH_CHUNK];
        uint16_t y[TC__MATH_CHUNK];
        int m = n - i < TC__MATH_CHUNK ? n - i : TC__MATH_CHUNK;
        const float *x = tc__math_chunk_src(pad, src, i, m);
        for (j = 0; j < TC__MATH_CHUNK; j++) y[j] = tc__math_float_to_half_lane(x[j]);
        memcpy(dst + i, y, sizeof(uint16_t) * (size_t)m);
    }
}
