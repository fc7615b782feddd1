/* tests/ref_eval.h: a naive reference evaluator of tc.h's loop-nest IR.

   The correctness oracle of the VM. It reads a def only through the public
   IR (tc_program_ir) and interprets it the slowest, plainest way: bind the
   size variables from the input shapes (its own code, not tc_bind_sizes;
   tc_sx_eval evaluates the size expressions), verify the checks, allocate
   outputs and temporaries zeroed, then for each statement apply `!` with
   the reduction's identity and walk every point of the loops in plain
   order, evaluating the node tree recursively per point. Integers follow
   SEMANTICS.md §4 (floor division, x/0 = 0, wrapping), floats are computed
   in the node's dtype (min/max ignore NaN, float -> int saturates, NaN ->
   0), float16 rounds to nearest-even on store, builtins go through double
   libm rounded to the node dtype. Nothing is shared with the VM's
   scheduling or kernels.

   Use: tests define _DEFAULT_SOURCE (for j0, y0 ...) and TC_IMPLEMENTATION,
   include tc.h, then this file.

     ref_run(prog, entry, inputs, n_in, outputs, n_out, msg, cap)
       outputs with data NULL are allocated (free with ref_free_outputs);
       caller buffers are used as they are (accumulating statements add to
       their contents). Returns TC_OK or an error status with msg. */
#ifndef TC_REF_EVAL_H
#define TC_REF_EVAL_H
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define REF_FN static __attribute__((unused))
#else
#define REF_FN static
#endif

/* glibc has these in libm; -std=c99 hides their prototypes. */
double j0(double);
double j1(double);
double y0(double);
double y1(double);

/* A value: f for float dtypes, u for the others (the bit pattern,
   sign-extended for signed types, 0/1 for bool). */
typedef struct ref_val {
    double f;
    uint64_t u;
} ref_val;

REF_FN int ref_is_float(tc_dtype t) {
    return t == TC_FLOAT16 || t == TC_FLOAT32 || t == TC_FLOAT64;
}
REF_FN int ref_is_signed(tc_dtype t) {
    return t == TC_INT8 || t == TC_INT16 || t == TC_INT32 || t == TC_INT64;
}
/* Truncates to the dtype's width and extends back to 64 bits. */
REF_FN uint64_t ref_wrap(tc_dtype t, uint64_t u) {
    int bits = (int)tc_dtype_size(t) * 8;
    uint64_t mask;
    if (t == TC_BOOL) return u != 0;
    if (bits >= 64) return u;
    mask = ((uint64_t)1 << bits) - 1;
    u &= mask;
    if (ref_is_signed(t) && ((u >> (bits - 1)) & 1)) u |= ~mask;
    return u;
}
REF_FN double ref_round(tc_dtype t, double x) { return t == TC_FLOAT64 ? x : (double)(float)x; }

/* ---- float16 <-> float32, by the definition of the format ---- */
REF_FN float ref_half_to_float(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0)
        v = ldexp((double)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexp((double)(m + 1024), e - 25);
    return (float)((h & 0x8000) ? -v : v);
}
/* Round to nearest, ties to even (rint in the default rounding mode), from
   a double directly: half(x) of a float64 x rounds once. */
REF_FN uint16_t ref_double_to_half(double f) {
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    double a = fabs(f), r;
    int ex;
    if (isnan(f)) return (uint16_t)(sign | 0x7e00);
    if (a >= 65520.0) return (uint16_t)(sign | 0x7c00);
    if (a < ldexp(1.0, -14)) return (uint16_t)(sign | (uint16_t)rint(a * ldexp(1.0, 24)));
    frexp(a, &ex);               /* a in [2^(ex-1), 2^ex) */
    r = rint(ldexp(a, 11 - ex)); /* 11 significant bits: [1024, 2048] */
    if (r >= 2048.0) {
        r = 1024.0;
        ex++;
    }
    if (ex - 1 + 15 >= 31) return (uint16_t)(sign | 0x7c00);
    return (uint16_t)(sign | (uint16_t)((ex - 1 + 15) << 10) | (uint16_t)(r - 1024.0));
}
REF_FN uint16_t ref_float_to_half(float f) { return ref_double_to_half((double)f); }

/* ---- element load/store in the tensor's storage dtype ---- */
REF_FN ref_val ref_load(tc_dtype t, const void *p) {
    ref_val v = {0, 0};
    uint64_t u = 0;
    if (t == TC_FLOAT16) {
        uint16_t h;
        memcpy(&h, p, 2);
        v.f = (double)ref_half_to_float(h);
    } else if (t == TC_FLOAT32) {
        float x;
        memcpy(&x, p, 4);
        v.f = (double)x;
    } else if (t == TC_FLOAT64) {
        memcpy(&v.f, p, 8);
    } else { /* little-endian: the value is in the low bytes */
        memcpy(&u, p, tc_dtype_size(t));
        v.u = ref_wrap(t, u);
    }
    return v;
}
REF_FN void ref_store(tc_dtype t, void *p, ref_val v) {
    size_t n = tc_dtype_size(t);
    uint64_t u = v.u; /* little-endian: the low bytes are the value */
    if (t == TC_FLOAT16) {
        uint16_t h = ref_float_to_half((float)v.f);
        memcpy(p, &h, 2);
    } else if (t == TC_FLOAT32) {
        float x = (float)v.f;
        memcpy(p, &x, 4);
    } else if (t == TC_FLOAT64) {
        memcpy(p, &v.f, 8);
    } else {
        if (t == TC_BOOL) u = u != 0;
        memcpy(p, &u, n);
    }
}

/* ---- arithmetic per SEMANTICS.md §4 ---- */
REF_FN int64_t ref_floordiv(int64_t a, int64_t b) {
    int64_t q, r;
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0 - (uint64_t)a); /* INT64_MIN / -1 wraps */
    q = a / b;
    r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) q--;
    return q;
}
REF_FN int64_t ref_floormod(int64_t a, int64_t b) {
    int64_t r;
    if (b == 0 || b == -1) return 0;
    r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
/* Signed/unsigned/bool comparison: <0, 0, >0. */
REF_FN int ref_cmp_int(tc_dtype t, uint64_t a, uint64_t b) {
    if (ref_is_signed(t)) return (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b;
    return a < b ? -1 : a > b;
}
REF_FN int ref_cmp(tc_dtype t, ref_val a, ref_val b) { /* floats: NaN compares as unordered (2) */
    if (!ref_is_float(t)) return ref_cmp_int(t, a.u, b.u);
    if (a.f < b.f) return -1;
    if (a.f > b.f) return 1;
    return a.f == b.f ? 0 : 2;
}
/* Float %: the divisor's sign (numpy's np.mod), from the exact fmod. */
REF_FN float ref_modf(float a, float b) {
    float r = fmodf(a, b);
    if (r == 0) return b < 0 ? -0.0f : 0.0f;
    return (r < 0) != (b < 0) ? r + b : r;
}
REF_FN double ref_mod(double a, double b) {
    double r = fmod(a, b);
    if (r == 0) return b < 0 ? -0.0 : 0.0;
    return (r < 0) != (b < 0) ? r + b : r;
}
REF_FN ref_val ref_arith_float(tc_ir_op op, tc_dtype t, double x, double y) {
    ref_val r = {0, 0};
    if (t == TC_FLOAT32) { /* in float, as the element type says (§7) */
        float a = (float)x, b = (float)y, c = 0;
        switch (op) {
        case TC_IR_NEG: c = -a; break;
        case TC_IR_ADD: c = a + b; break;
        case TC_IR_SUB: c = a - b; break;
        case TC_IR_MUL: c = a * b; break;
        case TC_IR_DIV: c = a / b; break;
        case TC_IR_MOD: c = ref_modf(a, b); break;
        case TC_IR_MIN: c = b != b ? a : a != a ? b : b < a ? b : a; break; /* NaN ignored */
        case TC_IR_MAX: c = b != b ? a : a != a ? b : b > a ? b : a; break;
        default: break;
        }
        r.f = (double)c;
        return r;
    }
    switch (op) {
    case TC_IR_NEG: r.f = -x; break;
    case TC_IR_ADD: r.f = x + y; break;
    case TC_IR_SUB: r.f = x - y; break;
    case TC_IR_MUL: r.f = x * y; break;
    case TC_IR_DIV: r.f = x / y; break;
    case TC_IR_MOD: r.f = ref_mod(x, y); break;
    case TC_IR_MIN: r.f = y != y ? x : x != x ? y : y < x ? y : x; break;
    case TC_IR_MAX: r.f = y != y ? x : x != x ? y : y > x ? y : x; break;
    default: break;
    }
    return r;
}
REF_FN ref_val ref_arith_int(tc_ir_op op, tc_dtype t, uint64_t a, uint64_t b) {
    ref_val r = {0, 0};
    uint64_t u = 0;
    int sgn = ref_is_signed(t);
    switch (op) {
    case TC_IR_NEG: u = 0 - a; break;
    case TC_IR_ADD: u = a + b; break;
    case TC_IR_SUB: u = a - b; break;
    case TC_IR_MUL: u = a * b; break;
    case TC_IR_DIV:
        u = sgn ? (uint64_t)ref_floordiv((int64_t)a, (int64_t)b) : (b ? a / b : 0);
        break;
    case TC_IR_MOD:
        u = sgn ? (uint64_t)ref_floormod((int64_t)a, (int64_t)b) : (b ? a % b : 0);
        break;
    case TC_IR_MIN: u = ref_cmp_int(t, b, a) < 0 ? b : a; break;
    case TC_IR_MAX: u = ref_cmp_int(t, b, a) > 0 ? b : a; break;
    default: break;
    }
    r.u = ref_wrap(t, u);
    return r;
}

/* Conversion between node dtypes: C semantics where C defines them; float
   -> int saturates to the target's range (NaN -> 0), never UB. */
REF_FN uint64_t ref_saturate(tc_dtype to, double x) {
    int bits = (int)tc_dtype_size(to) * 8;
    double lo = ref_is_signed(to) ? -ldexp(1.0, bits - 1) : 0.0;
    double hi = ref_is_signed(to) ? ldexp(1.0, bits - 1) : ldexp(1.0, bits); /* exclusive */
    if (x != x) return 0;
    if (x < lo) return ref_is_signed(to) ? ref_wrap(to, (uint64_t)1 << (bits - 1)) : 0;
    if (x >= hi)
        return ref_is_signed(to) ? ref_wrap(to, ((uint64_t)1 << (bits - 1)) - 1)
                                 : ref_wrap(to, UINT64_MAX);
    x = trunc(x);
    return ref_is_signed(to) ? ref_wrap(to, (uint64_t)(int64_t)x) : (uint64_t)x;
}

REF_FN ref_val ref_cast(tc_dtype to, tc_dtype from, ref_val v) {
    ref_val r = {0, 0};
    if (ref_is_float(to)) {
        if (ref_is_float(from))
            r.f = v.f;
        else if (to == TC_FLOAT32)
            r.f = ref_is_signed(from) ? (double)(float)(int64_t)v.u : (double)(float)v.u;
        else
            r.f = ref_is_signed(from) ? (double)(int64_t)v.u : (double)v.u;
        r.f = ref_round(to, r.f);
        return r;
    }
    if (ref_is_float(from)) {
        r.u = to == TC_BOOL ? v.f != 0 : ref_saturate(to, v.f);
        return r;
    }
    r.u = ref_wrap(to, v.u);
    return r;
}

/* ---- builtins: double libm, or the definition for the exotic ones ---- */
#define REF_PI 3.14159265358979323846
REF_FN double ref_i0(double x) { /* sum (x/2)^2k / (k!)^2 */
    double t = 1, s = 1, q = x * x / 4;
    int k;
    for (k = 1; k < 500 && t > 1e-18 * s; k++)
        s += (t *= q / ((double)k * k));
    return s;
}
REF_FN double ref_i1(double x) { /* sum (x/2)^(2k+1) / (k! (k+1)!) */
    double t = x / 2, s = t, q = x * x / 4;
    int k;
    for (k = 1; k < 500 && fabs(t) > 1e-18 * fabs(s); k++)
        s += (t *= q / ((double)k * (k + 1)));
    return s;
}
/* Inverse of an increasing function by bisection: slow and plainly right. */
REF_FN double ref_invert(double (*f)(double), double y, double lo, double hi) {
    int i;
    for (i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (f(mid) < y)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}
REF_FN double ref_normcdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }
REF_FN double ref_erfinv(double y) {
    if (y <= -1 || y >= 1) return y == 1 ? INFINITY : y == -1 ? -INFINITY : NAN;
    return ref_invert(erf, y, -6, 6);
}
REF_FN double ref_normcdfinv(double y) {
    if (y <= 0 || y >= 1) return y == 0 ? -INFINITY : y == 1 ? INFINITY : NAN;
    return ref_invert(ref_normcdf, y, -40, 40);
}
REF_FN double ref_builtin(tc_builtin b, tc_dtype t, const double *x) {
    switch (b) {
    case TC_BUILTIN_ACOS: return acos(x[0]);
    case TC_BUILTIN_ACOSH: return acosh(x[0]);
    case TC_BUILTIN_ASIN: return asin(x[0]);
    case TC_BUILTIN_ASINH: return asinh(x[0]);
    case TC_BUILTIN_ATAN: return atan(x[0]);
    case TC_BUILTIN_ATANH: return atanh(x[0]);
    case TC_BUILTIN_CBRT: return cbrt(x[0]);
    case TC_BUILTIN_CEIL: return ceil(x[0]);
    case TC_BUILTIN_COS: return cos(x[0]);
    case TC_BUILTIN_COSH: return cosh(x[0]);
    case TC_BUILTIN_COSPI: return cos(REF_PI * x[0]);
    case TC_BUILTIN_CYL_BESSEL_I0: return ref_i0(x[0]);
    case TC_BUILTIN_CYL_BESSEL_I1: return ref_i1(x[0]);
    case TC_BUILTIN_ERF: return erf(x[0]);
    case TC_BUILTIN_ERFC: return erfc(x[0]);
    case TC_BUILTIN_ERFCINV: return ref_erfinv(1 - x[0]);
    case TC_BUILTIN_ERFCX: return exp(x[0] * x[0]) * erfc(x[0]);
    case TC_BUILTIN_ERFINV: return ref_erfinv(x[0]);
    case TC_BUILTIN_EXP: return exp(x[0]);
    case TC_BUILTIN_EXP10: return pow(10.0, x[0]);
    case TC_BUILTIN_EXP2: return exp2(x[0]);
    case TC_BUILTIN_EXPM1: return expm1(x[0]);
    case TC_BUILTIN_FABS: return fabs(x[0]);
    case TC_BUILTIN_FLOOR: return floor(x[0]);
    case TC_BUILTIN_J0: return j0(x[0]);
    case TC_BUILTIN_J1: return j1(x[0]);
    case TC_BUILTIN_LGAMMA: return lgamma(x[0]);
    case TC_BUILTIN_LOG: return log(x[0]);
    case TC_BUILTIN_LOG10: return log10(x[0]);
    case TC_BUILTIN_LOG1P: return log1p(x[0]);
    case TC_BUILTIN_LOG2: return log2(x[0]);
    case TC_BUILTIN_LOGB: return logb(x[0]);
    case TC_BUILTIN_NORMCDF: return ref_normcdf(x[0]);
    case TC_BUILTIN_NORMCDFINV: return ref_normcdfinv(x[0]);
    case TC_BUILTIN_RCBRT: return 1 / cbrt(x[0]);
    case TC_BUILTIN_ROUND: return round(x[0]);
    case TC_BUILTIN_RSQRT: return 1 / sqrt(x[0]);
    case TC_BUILTIN_SIN: return sin(x[0]);
    case TC_BUILTIN_SINH: return sinh(x[0]);
    case TC_BUILTIN_SINPI: return sin(REF_PI * x[0]);
    case TC_BUILTIN_SQRT: return sqrt(x[0]);
    case TC_BUILTIN_TAN: return tan(x[0]);
    case TC_BUILTIN_TANH: return tanh(x[0]);
    case TC_BUILTIN_TGAMMA: return tgamma(x[0]);
    case TC_BUILTIN_TRUNC: return trunc(x[0]);
    case TC_BUILTIN_Y0: return y0(x[0]);
    case TC_BUILTIN_Y1: return y1(x[0]);
    case TC_BUILTIN_ATAN2: return atan2(x[0], x[1]);
    case TC_BUILTIN_COPYSIGN: return copysign(x[0], x[1]);
    case TC_BUILTIN_FDIM: return fdim(x[0], x[1]);
    case TC_BUILTIN_FDIVIDE: return x[0] / x[1];
    case TC_BUILTIN_FMAX: return fmax(x[0], x[1]);
    case TC_BUILTIN_FMIN: return fmin(x[0], x[1]);
    case TC_BUILTIN_FMOD: return fmod(x[0], x[1]);
    case TC_BUILTIN_HYPOT: return hypot(x[0], x[1]);
    case TC_BUILTIN_NEXTAFTER:
        return t == TC_FLOAT32 ? (double)nextafterf((float)x[0], (float)x[1])
                               : nextafter(x[0], x[1]);
    case TC_BUILTIN_POW: return pow(x[0], x[1]);
    case TC_BUILTIN_REMAINDER: return remainder(x[0], x[1]);
    case TC_BUILTIN_RHYPOT: return 1 / hypot(x[0], x[1]);
    case TC_BUILTIN_FMA:
        return t == TC_FLOAT32 ? (double)fmaf((float)x[0], (float)x[1], (float)x[2])
                               : fma(x[0], x[1], x[2]);
    case TC_BUILTIN_NORM3D: return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    case TC_BUILTIN_RNORM3D: return 1 / sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    case TC_BUILTIN_NORM4D: return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
    case TC_BUILTIN_RNORM4D: return 1 / sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
    default: return NAN;
    }
}

/* ---- the interpreter ---- */
typedef struct ref_buf { /* one tensor of the def */
    tc_dtype dtype;
    int rank;
    int64_t shape[TC_MAX_RANK], stride[TC_MAX_RANK]; /* strides in elements */
    char *data;
    int owned; /* 1: freed at the end (temporaries) */
} ref_buf;

typedef struct ref_ctx {
    const tc_ir_def *d;
    ref_buf *bufs;
    int64_t *sxv;
    const tc_ir_stmt *st; /* the statement being run */
    int64_t *loopv;       /* its loop values */
    tc_status status;
    char *msg;
    size_t cap;
} ref_ctx;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
REF_FN tc_status
ref_fail(ref_ctx *c, tc_status s, const char *fmt, ...) {
    va_list ap;
    if (c->status != TC_OK) return c->status; /* the first error wins */
    c->status = s;
    va_start(ap, fmt);
    if (c->msg && c->cap) vsnprintf(c->msg, c->cap, fmt, ap);
    va_end(ap);
    return s;
}

static ref_val ref_node(ref_ctx *c, int id);

/* Element address of tensor t at idx, or NULL (with the error set). */
REF_FN char *ref_addr(ref_ctx *c, int t, const int64_t *idx, int gather, const char *what) {
    const ref_buf *b = &c->bufs[t];
    int64_t off = 0;
    int k;
    for (k = 0; k < b->rank; k++) {
        if (idx[k] < 0 || idx[k] >= b->shape[k]) {
            ref_fail(c, gather ? TC_ERR_BOUNDS : TC_ERR_BACKEND,
                     gather ? "ref: gather out of range: %s index %lld, extent %lld"
                            : "ref: IR bug: unchecked %s access at index %lld, extent %lld",
                     c->d->tensors[t].name, (long long)idx[k], (long long)b->shape[k]);
            (void)what;
            return NULL;
        }
        off += idx[k] * b->stride[k];
    }
    return b->data + off * (int64_t)tc_dtype_size(b->dtype);
}

REF_FN ref_val ref_read(ref_ctx *c, const tc_ir_node *n) {
    const tc_ir_tensor *t = &c->d->tensors[n->tensor];
    int64_t idx[TC_MAX_RANK];
    ref_val v = {0, 0};
    int k, l, gather = 0;
    char *p;
    for (k = 0; k < t->rank; k++) {
        const tc_ir_index *ix = &n->index[k];
        if (ix->affine) {
            idx[k] = c->sxv[ix->offset];
            for (l = 0; l < c->st->n_loops; l++)
                idx[k] += ix->coef[l] * c->loopv[l];
        } else {
            ref_val iv = ref_node(c, ix->node);
            gather = 1;
            idx[k] = (int64_t)iv.u; /* unsigned indices above INT64_MAX are out of range anyway */
            if (!ref_is_signed(c->st->nodes[ix->node].dtype) && iv.u > (uint64_t)INT64_MAX)
                idx[k] = INT64_MAX;
        }
    }
    if (c->status != TC_OK) return v;
    p = ref_addr(c, n->tensor, idx, gather, "read");
    return p ? ref_load(t->dtype, p) : v;
}

REF_FN ref_val ref_call(ref_ctx *c, const tc_ir_node *n) {
    double x[4] = {0, 0, 0, 0};
    ref_val r = {0, 0};
    int k;
    for (k = 0; k < n->nargs && k < 4; k++) {
        x[k] = ref_node(c, n->args[k]).f;
        if (!ref_is_float(c->st->nodes[n->args[k]].dtype))
            ref_fail(c, TC_ERR_BACKEND, "ref: IR bug: %s argument %d is not a float",
                     tc_builtin_name(n->builtin), k);
    }
    if (n->nargs != tc_builtin_arity(n->builtin))
        ref_fail(c, TC_ERR_BACKEND, "ref: IR bug: %s called with %lld arguments, wants %lld",
                 tc_builtin_name(n->builtin), (long long)n->nargs,
                 (long long)tc_builtin_arity(n->builtin));
    r.f = ref_round(n->dtype, ref_builtin(n->builtin, n->dtype, x));
    return r;
}

/* The IR promises one operand dtype for arithmetic and comparisons. */
REF_FN void ref_check_operands(ref_ctx *c, const tc_ir_node *n, tc_dtype want) {
    int k;
    for (k = 0; k < n->nargs; k++)
        if (c->st->nodes[n->args[k]].dtype != want)
            ref_fail(c, TC_ERR_BACKEND, "ref: IR bug: operand %d of op %d is %s, operand 0 is %s",
                     k, (int)n->op, tc_dtype_name(c->st->nodes[n->args[k]].dtype),
                     tc_dtype_name(want));
}

REF_FN ref_val ref_node(ref_ctx *c, int id) {
    const tc_ir_node *n = &c->st->nodes[id];
    ref_val r = {0, 0}, a, b = {0, 0};
    tc_dtype at;
    if (c->status != TC_OK) return r;
    if (id < 0 || id >= c->st->n_nodes) {
        ref_fail(c, TC_ERR_BACKEND, "ref: IR bug: node id %d out of %d", id, c->st->n_nodes);
        return r;
    }
    switch (n->op) {
    case TC_IR_CONST:
        if (ref_is_float(n->dtype))
            r.f = ref_round(n->dtype, n->fval);
        else
            r.u = ref_wrap(n->dtype, (uint64_t)n->ival);
        return r;
    case TC_IR_INDEX: r.u = ref_wrap(n->dtype, (uint64_t)c->loopv[n->loop]); return r;
    case TC_IR_SIZE: r.u = ref_wrap(n->dtype, (uint64_t)c->sxv[n->sx]); return r;
    case TC_IR_READ: return ref_read(c, n);
    case TC_IR_CALL: return ref_call(c, n);
    case TC_IR_SELECT: /* only the chosen branch is evaluated */
        a = ref_node(c, n->args[0]);
        return ref_node(c, a.u ? n->args[1] : n->args[2]);
    case TC_IR_AND:
    case TC_IR_OR:
        a = ref_node(c, n->args[0]);
        if ((n->op == TC_IR_AND) == (a.u != 0)) a = ref_node(c, n->args[1]);
        r.u = a.u != 0;
        return r;
    case TC_IR_NOT: r.u = ref_node(c, n->args[0]).u == 0; return r;
    case TC_IR_CAST:
        return ref_cast(n->dtype, c->st->nodes[n->args[0]].dtype, ref_node(c, n->args[0]));
    case TC_IR_HALF:
        r.f = (double)ref_half_to_float(ref_double_to_half(ref_node(c, n->args[0]).f));
        return r;
    default: break;
    }
    at = c->st->nodes[n->args[0]].dtype;
    a = ref_node(c, n->args[0]);
    if (n->nargs > 1) b = ref_node(c, n->args[1]);
    ref_check_operands(c, n, at);
    switch (n->op) {
    case TC_IR_LT: r.u = ref_cmp(at, a, b) == -1; return r;
    case TC_IR_LE: r.u = ref_cmp(at, a, b) == -1 || ref_cmp(at, a, b) == 0; return r;
    case TC_IR_GT: r.u = ref_cmp(at, a, b) == 1; return r;
    case TC_IR_GE: r.u = ref_cmp(at, a, b) == 1 || ref_cmp(at, a, b) == 0; return r;
    case TC_IR_EQ: r.u = ref_cmp(at, a, b) == 0; return r;
    case TC_IR_NE: r.u = ref_cmp(at, a, b) != 0; return r;
    default: break;
    }
    if (at != n->dtype)
        ref_fail(c, TC_ERR_BACKEND, "ref: IR bug: %s operands for a %s node (op %d)",
                 tc_dtype_name(at), tc_dtype_name(n->dtype), (int)n->op);
    if (ref_is_float(n->dtype)) return ref_arith_float(n->op, n->dtype, a.f, b.f);
    if (n->dtype == TC_BOOL) { /* bool arithmetic: computed as integers, stored as != 0 */
        r = ref_arith_int(n->op, TC_INT64, a.u, b.u);
        r.u = r.u != 0;
        return r;
    }
    return ref_arith_int(n->op, n->dtype, a.u, b.u);
}

/* Reduction identity in the tensor's compute dtype. */
REF_FN ref_val ref_identity(tc_reduce red, tc_dtype t) {
    ref_val v = {0, 0};
    int bits = (int)tc_dtype_size(t) * 8;
    if (red == TC_REDUCE_PROD) {
        v.f = 1;
        v.u = 1;
    } else if (red == TC_REDUCE_MIN || red == TC_REDUCE_MAX) {
        int mx = red == TC_REDUCE_MIN;
        if (ref_is_float(t))
            v.f = mx ? INFINITY : -INFINITY;
        else if (t == TC_BOOL)
            v.u = (uint64_t)mx;
        else if (ref_is_signed(t))
            v.u = ref_wrap(t, mx ? (((uint64_t)1 << (bits - 1)) - 1) : ((uint64_t)1 << (bits - 1)));
        else
            v.u = mx ? ref_wrap(t, UINT64_MAX) : 0;
    }
    return v;
}
REF_FN ref_val ref_combine(tc_reduce red, tc_dtype t, ref_val acc, ref_val v) {
    static const tc_ir_op ops[TC_REDUCE_COUNT] = {TC_IR_ADD, TC_IR_ADD, TC_IR_MUL, TC_IR_MIN,
                                                  TC_IR_MAX};
    if (red == TC_REDUCE_ASSIGN) return v;
    if (t == TC_BOOL) { /* + and max are "or", * and min are "and" */
        acc.u = (red == TC_REDUCE_SUM || red == TC_REDUCE_MAX) ? (acc.u | v.u) : (acc.u & v.u);
        return acc;
    }
    if (ref_is_float(t))
        return ref_arith_float(ops[red], t == TC_FLOAT16 ? TC_FLOAT32 : t, acc.f, v.f);
    return ref_arith_int(ops[red], t, acc.u, v.u);
}

/* Runs one statement: init, then every point of the loops in plain order. */
REF_FN void ref_stmt(ref_ctx *c, const tc_ir_stmt *s) {
    ref_buf *out = &c->bufs[s->tensor];
    tc_dtype ct = out->dtype == TC_FLOAT16 ? TC_FLOAT32 : out->dtype;
    int64_t idx[TC_MAX_RANK], lo[64], hi[64], loopv[64], n = 1, i;
    int l, k, rank = out->rank;
    c->st = s;
    c->loopv = loopv;
    if (s->n_loops > 64 || s->n_loops < rank) {
        ref_fail(c, TC_ERR_BACKEND, "ref: stmt: %d loops for rank %d", s->n_loops, rank);
        return;
    }
    if (c->d->tensors[s->tensor].kind == TC_TENSOR_INPUT)
        ref_fail(c, TC_ERR_BACKEND, "ref: IR bug: statement writes input %s",
                 c->d->tensors[s->tensor].name);
    if (s->value < 0 || s->value >= s->n_nodes || s->nodes[s->value].dtype != ct)
        ref_fail(c, TC_ERR_BACKEND, "ref: IR bug: value node %d of %s is not %s", s->value,
                 c->d->tensors[s->tensor].name, tc_dtype_name(ct));
    if (c->status != TC_OK) return;
    for (k = 0; k < rank; k++)
        n *= out->shape[k];
    if (s->init) {
        ref_val id = ref_identity(s->reduce, ct);
        for (i = 0; i < n; i++)
            ref_store(out->dtype, out->data + i * (int64_t)tc_dtype_size(out->dtype), id);
    }
    for (l = 0; l < s->n_loops; l++) {
        lo[l] = c->sxv[s->loops[l].lo];
        hi[l] = c->sxv[s->loops[l].hi];
        if (lo[l] >= hi[l]) return; /* empty domain */
        loopv[l] = lo[l];
    }
    for (;;) {
        char *p;
        ref_val v = ref_node(c, s->value);
        for (k = 0; k < rank; k++)
            idx[k] = loopv[k];
        p = c->status == TC_OK ? ref_addr(c, s->tensor, idx, 0, "write") : NULL;
        if (!p) return;
        ref_store(out->dtype, p, ref_combine(s->reduce, ct, ref_load(out->dtype, p), v));
        for (l = s->n_loops - 1; l >= 0; l--) { /* odometer: last loop innermost */
            if (++loopv[l] < hi[l]) break;
            loopv[l] = lo[l];
        }
        if (l < 0) return;
    }
}

/* Binds size variables from input shapes, evaluates every sx. */
REF_FN tc_status ref_bind(ref_ctx *c, const tc_tensor *in, int n_in) {
    const tc_ir_def *d = c->d;
    int64_t vars[256], scalars[64];
    int bound[256], i, k;
    tc_error err;
    if (d->n_sizevars > 256 || d->n_inputs > 64)
        return ref_fail(c, TC_ERR_LIMIT, "ref: %s: too many sizes (%d, %d)", d->name, d->n_sizevars,
                        d->n_inputs);
    if (n_in != d->n_inputs)
        return ref_fail(c, TC_ERR_INVALID_ARGUMENT, "ref: %s wants %d inputs, got %d", d->name,
                        d->n_inputs, n_in);
    memset(bound, 0, sizeof bound);
    for (i = 0; i < d->n_inputs; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        scalars[i] = 0;
        if (in[i].dtype != t->dtype || in[i].rank != t->rank || (!in[i].data && t->rank == 0))
            return ref_fail(c, TC_ERR_SHAPE, "ref: input %s: dtype/rank %d/%d mismatch", t->name,
                            (int)in[i].dtype, in[i].rank);
        if (t->rank == 0 && !ref_is_float(t->dtype))
            scalars[i] = (int64_t)ref_load(t->dtype, in[i].data).u;
        for (k = 0; k < t->rank; k++) {
            const tc_sx *s = &d->sx[t->extent[k]];
            if (s->op != TC_SX_VAR) continue;
            if (bound[s->value] && vars[s->value] != in[i].shape[k])
                return ref_fail(c, TC_ERR_SHAPE,
                                "ref: size variable bound twice (input %s: %lld vs %lld)", t->name,
                                (long long)vars[s->value], (long long)in[i].shape[k]);
            vars[s->value] = in[i].shape[k];
            bound[s->value] = 1;
        }
    }
    for (i = 0; i < d->n_sizevars; i++)
        if (!bound[i])
            return ref_fail(c, TC_ERR_BACKEND, "ref: size variable %s not bound by any input",
                            d->sizevars[i]);
    if (tc_sx_eval(d, vars, scalars, c->sxv, &err) != TC_OK)
        return ref_fail(c, err.code, "ref: tc_sx_eval failed: %s", err.msg);
    for (i = 0; i < d->n_inputs; i++)
        for (k = 0; k < d->tensors[i].rank; k++)
            if (c->sxv[d->tensors[i].extent[k]] != in[i].shape[k])
                return ref_fail(c, TC_ERR_SHAPE, "ref: input %s: extent %lld, shape says %lld",
                                d->tensors[i].name, (long long)c->sxv[d->tensors[i].extent[k]],
                                (long long)in[i].shape[k]);
    return TC_OK;
}

/* Run-time checks, before anything is written. */
REF_FN tc_status ref_checks(ref_ctx *c) {
    int i, l;
    for (i = 0; i < c->d->n_checks; i++) {
        const tc_ir_check *k = &c->d->checks[i];
        int64_t a = c->sxv[k->a], b = c->sxv[k->b];
        if (k->stmt >= 0) {
            const tc_ir_stmt *s = &c->d->stmts[k->stmt];
            for (l = 0; l < s->n_loops; l++)
                if (c->sxv[s->loops[l].lo] >= c->sxv[s->loops[l].hi]) break;
            if (l < s->n_loops) continue; /* empty domain: the check does not apply */
        }
        if (k->kind == TC_CHECK_LE ? !(a <= b) : a != b)
            return ref_fail(c, TC_ERR_BOUNDS, "ref: check failed: %s (%lld vs %lld)",
                            k->what ? k->what : "?", (long long)a, (long long)b);
    }
    return TC_OK;
}

/* Sets up output and temporary buffers (caller's or zeroed new ones). */
REF_FN tc_status ref_buffers(ref_ctx *c, const tc_tensor *in, tc_tensor *out, int n_out) {
    const tc_ir_def *d = c->d;
    int i, k;
    if (n_out != d->n_outputs)
        return ref_fail(c, TC_ERR_INVALID_ARGUMENT, "ref: %s returns %d outputs, got %d", d->name,
                        d->n_outputs, n_out);
    for (i = 0; i < d->n_tensors; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        ref_buf *b = &c->bufs[i];
        int64_t n = 1;
        b->dtype = t->dtype;
        b->rank = t->rank;
        for (k = t->rank - 1; k >= 0; k--) {
            b->shape[k] = i < d->n_inputs ? in[i].shape[k] : c->sxv[t->extent[k]];
            if (b->shape[k] < 0)
                return ref_fail(c, TC_ERR_SHAPE, "ref: %s has a negative extent %lld in dim %d",
                                t->name, (long long)b->shape[k], k);
            b->stride[k] = (i < d->n_inputs && in[i].strides) ? in[i].strides[k] : n;
            n *= b->shape[k];
            if (n > ((int64_t)1 << 32))
                return ref_fail(c, TC_ERR_LIMIT, "ref: %s too large (%lld elements)", t->name,
                                (long long)n);
        }
        if (i < d->n_inputs) {
            b->data = (char *)in[i].data;
        } else if (i < d->n_inputs + d->n_outputs && out[i - d->n_inputs].data) {
            const tc_tensor *o = &out[i - d->n_inputs];
            if (o->dtype != t->dtype || o->rank != t->rank)
                return ref_fail(c, TC_ERR_SHAPE, "ref: output %s: dtype/rank %d/%d mismatch",
                                t->name, (int)o->dtype, o->rank);
            for (k = 0; k < t->rank; k++)
                if (o->shape[k] != b->shape[k])
                    return ref_fail(c, TC_ERR_SHAPE, "ref: output %s: shape %lld, expected %lld",
                                    t->name, (long long)o->shape[k], (long long)b->shape[k]);
            b->data = (char *)o->data;
        } else {
            b->data = (char *)calloc((size_t)(n ? n : 1), tc_dtype_size(t->dtype));
            b->owned = 1;
            if (!b->data)
                return ref_fail(c, TC_ERR_OUT_OF_MEMORY, "ref: %s: %lld elements", t->name,
                                (long long)n);
        }
    }
    return TC_OK;
}

/* Runs one def's IR (see ref_run). */
REF_FN tc_status ref_run_def(const tc_ir_def *d, const tc_tensor *inputs, int n_inputs,
                             tc_tensor *outputs, int n_outputs, char *msg, size_t cap) {
    ref_ctx c;
    int i, k;
    memset(&c, 0, sizeof c);
    c.msg = msg;
    c.cap = cap;
    if (msg && cap) msg[0] = 0;
    c.d = d;
    if (!c.d) return ref_fail(&c, TC_ERR_INVALID_ARGUMENT, "ref: no such def");
    c.sxv = (int64_t *)calloc((size_t)c.d->n_sx + 1, sizeof(int64_t));
    c.bufs = (ref_buf *)calloc((size_t)c.d->n_tensors + 1, sizeof(ref_buf));
    if (!c.sxv || !c.bufs) ref_fail(&c, TC_ERR_OUT_OF_MEMORY, "ref: out of memory");
    if (c.status == TC_OK && ref_bind(&c, inputs, n_inputs) == TC_OK &&
        ref_buffers(&c, inputs, outputs, n_outputs) == TC_OK && ref_checks(&c) == TC_OK)
        for (i = 0; i < c.d->n_stmts && c.status == TC_OK; i++)
            ref_stmt(&c, &c.d->stmts[i]);
    for (i = 0; c.bufs && i < c.d->n_tensors; i++) {
        ref_buf *b = &c.bufs[i];
        int is_out = i >= c.d->n_inputs && i < c.d->n_inputs + c.d->n_outputs;
        if (is_out && b->owned && c.status == TC_OK) { /* hand allocated outputs over */
            tc_tensor *o = &outputs[i - c.d->n_inputs];
            o->dtype = b->dtype;
            o->rank = b->rank;
            for (k = 0; k < b->rank; k++)
                o->shape[k] = b->shape[k];
            o->data = b->data;
        } else if (b->owned) {
            free(b->data);
        }
    }
    free(c.sxv);
    free(c.bufs);
    return c.status;
}

REF_FN tc_status ref_run(const tc_program *p, const char *entry, const tc_tensor *inputs,
                         int n_inputs, tc_tensor *outputs, int n_outputs, char *msg, size_t cap) {
    const tc_ir_def *d = tc_program_ir(p, tc_program_find(p, entry));
    if (!d) {
        if (msg && cap) snprintf(msg, cap, "ref: no def %s", entry ? entry : "(default)");
        return TC_ERR_INVALID_ARGUMENT;
    }
    return ref_run_def(d, inputs, n_inputs, outputs, n_outputs, msg, cap);
}

/* Frees outputs that ref_run allocated. */
REF_FN void ref_free_outputs(tc_tensor *outputs, int n) {
    int i;
    for (i = 0; i < n; i++) {
        free(outputs[i].data);
        outputs[i].data = NULL;
    }
}

REF_FN int64_t ref_numel(const tc_tensor *t) {
    int64_t n = 1;
    int k;
    for (k = 0; k < t->rank; k++)
        n *= t->shape[k];
    return n;
}
#endif
