/* tc_opencl.h - v0.2.0 - OpenCL C and C99 back ends for tc.h - MIT licence (end of tc.h)

   One emitter, two dialects: OpenCL C kernels (tc_ocl_emit, run by the
   optional runner) and a self-contained C99 file per def (tc_c_emit, the
   CLI's `tc c`).

   QUICK START
       #define TC_IMPLEMENTATION
       #include "tc.h"
       #define TC_OPENCL_IMPLEMENTATION   // in the same file as, or after, tc.h
       #include "tc_opencl.h"

       // 1. Source only (no OpenCL headers or runtime needed):
       char *cl = NULL;
       const tc_ir_def *ir = tc_program_ir(prog, tc_program_find(prog, NULL));
       if (tc_ocl_emit(ir, NULL, 1, NULL, &cl, &err) == TC_OK) {
           save_kernels(cl);                 // yours: cl is NUL-terminated OpenCL C
           tc_ocl_free_source(cl, NULL);
       }

       // 1b. The same def as C99: int <def>(...) and <def>_call(...):
       char *c = NULL;
       if (tc_c_emit(ir, NULL, TC_C_DRIVER_TABLES, NULL, &c, &err) == TC_OK) { ... }

       // 2. Running (compile with -DTC_OPENCL_RUNNER, link -lOpenCL):
       tc_ocl_runner *r = NULL;
       if (tc_ocl_runner_create(NULL, &r, &err) != TC_OK) { ...err.msg... }
       tc_ocl_run(r, prog, &rd, &err);      // same tc_run_desc, checks and errors as tc_run
       tc_ocl_runner_free(r);

   BUILD
       cc -O2 app.c -lm -pthread                                  (emission only)
       cc -O2 -DTC_OPENCL_RUNNER app.c -lOpenCL -lm -pthread      (with the runner)

   CONFIGURATION
       macro                      default     meaning
       TC_OPENCL_RUNNER           off         compile the runner (needs <CL/cl.h>, -lOpenCL)
       CL_TARGET_OPENCL_VERSION   120         the OpenCL API level the runner is written for
       TC_OCL_API                 TC_API      linkage of the public functions
       TC_OCL_MAX_CACHE           16          built programs a runner keeps (least recently used go)
       TC_MALLOC/TC_REALLOC/TC_FREE           honoured when defined, as in tc.h

   WHAT IS EMITTED
       OpenCL C 1.2, one kernel per statement, named <def>_<tensor>_s<statement>,
       with the statement as a comment above it. Each work-item computes one
       element of the written tensor (the statement's non-reduction loops,
       flattened) and runs the reduction loops itself, so results do not depend
       on the launch. A statement with `!` gets a <kernel>_init kernel that sets
       the whole tensor to the reduction's identity, unless its loops cover the
       whole tensor (then the accumulator starts at the identity). A statement
       that reads the tensor it writes at another element runs on one work-item
       in plain loop order, as tests/ref_eval.h does (the VM reads a block of
       old values at a time there, so its result depends on TC_BLOCK).
       Tensors keep their TC names; sizes are kernel arguments (long) or
       constants. Integer arithmetic wraps, / and % round toward negative
       infinity with x/0 = x%0 = 0, casts from float saturate (NaN -> 0), and
       min/max follow the VM's NaN rule: all bit for bit. Builtins are OpenCL's
       (a few ulp), with the ones OpenCL lacks written out as helper functions.
       Division and sqrt are correctly rounded where the device offers it, and
       FP_CONTRACT is off, so a*b+c is never fused. Gathers are bounds-checked:
       an index out of range records (code, dimension, index) in an error
       buffer and the read is skipped; the runner turns it into TC_ERR_BOUNDS.

   WHAT IS EMITTED AS C99 (tc_c_emit)
       One file, standard headers only, clean under -std=c99 -Wall -Wextra
       -Wpedantic (gcc, clang; also -O3 -march=native -ffast-math):
       tc_<def>_sizes (every size expression, extents, overflow and the
       run-time checks), int <def>(typed inputs, outputs, sizes) with the
       statements as nested for loops, int <def>_call(tensors, sizevars),
       and with TC_C_DRIVER_TABLES the tables a driver's main() reads. The
       arithmetic rules are the OpenCL kernels', through helpers where C99
       lacks them (integer min/max, saturating casts, sinpi, float16 bits);
       builtins are libm's, spelled per type (expf). Loop order: see
       tc__ocl_c_ikj. Gathers out of range return TC_C_ERR_GATHER. Helpers
       sit under #ifndef guards, so several emitted files (distinct def
       names, one with driver tables at most) can be one translation unit.

   THREADING
       Emission is pure. A runner belongs to one thread at a time; a tc_program
       may be run by several runners at once.

   ERRORS
       As in tc.h: tc_status plus tc_error. Every OpenCL failure is
       TC_ERR_BACKEND naming the call and the code ("clBuildProgram:
       CL_BUILD_PROGRAM_FAILURE (-11)"), a build failure carries the build log.
       No OpenCL platform at all is TC_ERR_UNSUPPORTED, "no OpenCL platform".
*/
#ifndef TC_OPENCL_H_INCLUDED
#define TC_OPENCL_H_INCLUDED

#ifndef TC_H_INCLUDED
#error "tc_opencl.h: include tc.h first"
#endif

/* ==== [tc:ocl-api] Emission and runner API ================================= */
#ifndef TC_OCL_API
#define TC_OCL_API TC_API
#endif

/* OpenCL C source for def d. sx_values: NULL = sizes are kernel arguments
   (one program for every shape), else the def's n_sx size values (from
   tc_bind_sizes) baked in as constants. allow_fp64: 0 makes any float64
   tensor or value a TC_ERR_UNSUPPORTED error naming it (a device without
   cl_khr_fp64); 1 enables the extension where needed. a: NULL = default
   allocator. On success *source_out is NUL-terminated text owned by the
   caller (free with tc_ocl_free_source and the same allocator). */
TC_OCL_API tc_status tc_ocl_emit(const struct tc_ir_def *d, const int64_t *sx_values,
                                 int allow_fp64, const tc_allocator *a, char **source_out,
                                 tc_error *err);
TC_OCL_API void tc_ocl_free_source(char *src, const tc_allocator *a); /* NULL is a no-op */

/* C99 source for def d (tc c): a self-contained file, standard headers
   only, defining
       int <def>(const T *in..., T *out..., int64_t size...)  (typed)
       int <def>_call(void *const *tensors, const int64_t *sizevars)
   tensors: inputs then outputs in IR order; sizevars: d->sizevars in order
   (ignored when baked). T is the storage type: float, double, int8_t ...
   uint64_t, bool as uint8_t (0/1), float16 as uint16_t bits. Both return 0
   or one of the TC_C_ERR_ codes, and never write outside the buffers (the
   caller's, sized by the sizes given; they must not overlap; temporaries
   are malloc'ed inside). sx_values: NULL = sizes are the typed function's
   trailing arguments, else the def's n_sx values (tc_bind_sizes) baked in.
   flags: TC_C_DRIVER_TABLES also emits, for a main() of the caller's, the
   def's tables (tc_name, tc_code, tc_esize, tc_rank, tc_var_name,
   tc_dim_sx, tc_dim_var, enum TC_N_IN ...) and int tc_drv_sizes(p, v, sx),
   int tc_drv_call(p, v); `tc c --driver` appends tools/c_driver.h's main
   (`./prog NAME=in.npy ... -o OUTDIR`).
   The emitted functions keep no state: calls on distinct buffers may run
   at once. Free *out with tc_ocl_free_source and the same allocator. */
#define TC_C_DRIVER_TABLES 1
#define TC_C_ERR_CHECK 1  /* a run-time check (tc_ir_check) failed, or an access would leave
                             its tensor (the span backstop); nothing written */
#define TC_C_ERR_GATHER 2 /* a gather index out of range; outputs may be partly written */
#define TC_C_ERR_NOMEM 3  /* a temporary could not be allocated; nothing written */
#define TC_C_ERR_SIZE 4   /* a size overflows 64 bits or is negative, or a 0-rank size input
                             differs from the baked value; nothing written */
TC_OCL_API tc_status tc_c_emit(const struct tc_ir_def *d, const int64_t *sx_values, int flags,
                               const tc_allocator *a, char **out, tc_error *err);

#if defined(TC_OPENCL_RUNNER)
typedef struct tc_ocl_runner tc_ocl_runner; /* context, queue, built programs; one thread */

typedef struct tc_ocl_runner_desc { /* zero-initialise; NULL desc = all defaults */
    int platform_index;             /* 0: the first platform */
    int device_index;               /* 0: the first device of that platform */
    tc_allocator allocator;         /* runner state and outputs the runner allocates */
    int sizes_as_args;              /* 1: one program per def for every shape (sizes are
                                       kernel arguments); 0: sizes baked in, one program
                                       per def and shape (faster kernels) */
} tc_ocl_runner_desc;

/* Picks the platform and device and makes a context and queue. No platform:
   TC_ERR_UNSUPPORTED "no OpenCL platform"; an index past the end:
   TC_ERR_INVALID_ARGUMENT naming how many there are. */
TC_OCL_API tc_status tc_ocl_runner_create(const tc_ocl_runner_desc *d, tc_ocl_runner **out,
                                          tc_error *err);
TC_OCL_API void tc_ocl_runner_free(tc_ocl_runner *r); /* NULL is a no-op */
TC_OCL_API const char *tc_ocl_runner_device_name(const tc_ocl_runner *r);
TC_OCL_API int tc_ocl_runner_has_fp64(const tc_ocl_runner *r);

/* tc_run on the OpenCL device: the same desc, checks (tc_bind_sizes first),
   errors and results. Outputs with data NULL are allocated with the runner's
   allocator (free them with tc_ocl_tensor_free); caller buffers are written
   only when the whole run succeeded (a gather out of range is TC_ERR_BOUNDS
   and leaves them untouched). Gathers are always checked on the device:
   unchecked_gathers and pool are ignored. Built programs are cached in r. */
TC_OCL_API tc_status tc_ocl_run(tc_ocl_runner *r, const tc_program *p, const tc_run_desc *d,
                                tc_error *err);
TC_OCL_API void tc_ocl_tensor_free(tc_ocl_runner *r, tc_tensor *t); /* data set to NULL */
#endif /* TC_OPENCL_RUNNER */

#endif /* TC_OPENCL_H_INCLUDED */

/* ========================================================================== */
/*                              IMPLEMENTATION                                */
/* ========================================================================== */
#if defined(TC_OPENCL_IMPLEMENTATION) && !defined(TC__OCL_IMPLEMENTED)
#define TC__OCL_IMPLEMENTED

/* ==== [tc:ocl-config] Configuration and private helpers ===================== */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h> /* snprintf and vsnprintf only */
#include <stdlib.h>
#include <string.h>

#ifndef TC_OCL_MAX_CACHE
#define TC_OCL_MAX_CACHE 16
#endif
/* Deepest expression the emitter follows (the front end bounds nesting far
   below this; hand-built IR is cut off here instead of the C stack). */
#define TC__OCL_MAX_DEPTH 2000

#if defined(__GNUC__) || defined(__clang__)
#define TC__OCL_PRIVATE static __attribute__((unused))
#else
#define TC__OCL_PRIVATE static
#endif

TC__OCL_PRIVATE void *tc__ocl_alloc(const tc_allocator *a, size_t size) {
    if (size == 0) size = 1;
    if (a && a->alloc_fn) return a->alloc_fn(size, a->user);
#if defined(TC_MALLOC)
    return TC_MALLOC(size, a ? a->user : NULL);
#else
    return malloc(size);
#endif
}
TC__OCL_PRIVATE void tc__ocl_free(const tc_allocator *a, void *p) {
    if (!p) return;
    if (a && a->alloc_fn) {
        if (a->free_fn) a->free_fn(p, a->user);
        return;
    }
#if defined(TC_MALLOC)
    TC_FREE(p, a ? a->user : NULL);
#else
    free(p);
#endif
}
/* Zeroed array of n elements, overflow-checked; NULL on failure. */
TC__OCL_PRIVATE void *tc__ocl_calloc(const tc_allocator *a, size_t n, size_t size) {
    void *p;
    if (size && n > ((size_t)-1) / 2 / size) return NULL;
    p = tc__ocl_alloc(a, n * size);
    if (p) memset(p, 0, n * size > 0 ? n * size : 1);
    return p;
}

TC__OCL_PRIVATE tc_status tc__ocl_error(tc_error *e, tc_status code, const char *fmt, ...) {
    va_list ap;
    if (!e) return code;
    memset(e, 0, sizeof *e);
    e->code = code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

/* A growable string; after an allocation failure it stays as it is and
   `oom` is set, so callers check once at the end. */
typedef struct tc__ocl_str {
    char *p;
    size_t len, cap;
    int oom;
    const tc_allocator *a;
} tc__ocl_str;

TC__OCL_PRIVATE void tc__ocl_str_init(tc__ocl_str *s, const tc_allocator *a) {
    s->p = NULL;
    s->len = s->cap = 0;
    s->oom = 0;
    s->a = a;
}
TC__OCL_PRIVATE void tc__ocl_str_free(tc__ocl_str *s) {
    tc__ocl_free(s->a, s->p);
    s->p = NULL;
    s->len = s->cap = 0;
}
TC__OCL_PRIVATE int tc__ocl_str_reserve(tc__ocl_str *s, size_t extra) {
    size_t ncap;
    char *np;
    if (s->oom) return 0;
    if (s->len + extra + 1 <= s->cap) return 1;
    ncap = s->cap ? s->cap : 256;
    while (ncap < s->len + extra + 1) {
        if (ncap > ((size_t)-1) / 4) {
            s->oom = 1;
            return 0;
        }
        ncap *= 2;
    }
    np = (char *)tc__ocl_alloc(s->a, ncap);
    if (!np) {
        s->oom = 1;
        return 0;
    }
    if (s->p) memcpy(np, s->p, s->len + 1);
    else np[0] = '\0';
    tc__ocl_free(s->a, s->p);
    s->p = np;
    s->cap = ncap;
    return 1;
}
TC__OCL_PRIVATE void tc__ocl_puts(tc__ocl_str *s, const char *t) {
    size_t n = strlen(t);
    if (!tc__ocl_str_reserve(s, n)) return;
    memcpy(s->p + s->len, t, n + 1);
    s->len += n;
}
TC__OCL_PRIVATE void tc__ocl_printf(tc__ocl_str *s, const char *fmt, ...) {
    va_list ap;
    char tmp[256];
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        tc__ocl_puts(s, tmp);
        return;
    }
    if (!tc__ocl_str_reserve(s, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(s->p + s->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}
/* Detaches the text (NULL after an allocation failure). */
TC__OCL_PRIVATE char *tc__ocl_str_take(tc__ocl_str *s) {
    char *p;
    if (!tc__ocl_str_reserve(s, 0)) {
        tc__ocl_str_free(s);
        return NULL;
    }
    p = s->p;
    s->p = NULL;
    s->len = s->cap = 0;
    return p;
}

/* A small arena for one emission: blocks freed together at the end. */
typedef struct tc__ocl_block {
    struct tc__ocl_block *next;
} tc__ocl_block;
typedef struct tc__ocl_arena {
    const tc_allocator *a;
    tc__ocl_block *head;
    int oom;
} tc__ocl_arena;

TC__OCL_PRIVATE void *tc__ocl_arena_alloc(tc__ocl_arena *A, size_t n, size_t size) {
    tc__ocl_block *b;
    size_t hdr = (sizeof(tc__ocl_block) + 15) / 16 * 16;
    if (size && n > ((size_t)-1) / 4 / size) {
        A->oom = 1;
        return NULL;
    }
    b = (tc__ocl_block *)tc__ocl_alloc(A->a, hdr + n * size);
    if (!b) {
        A->oom = 1;
        return NULL;
    }
    memset(b, 0, hdr + n * size);
    b->next = A->head;
    A->head = b;
    return (char *)b + hdr;
}
TC__OCL_PRIVATE void tc__ocl_arena_free(tc__ocl_arena *A) {
    while (A->head) {
        tc__ocl_block *n = A->head->next;
        tc__ocl_free(A->a, A->head);
        A->head = n;
    }
}

/* ==== [tc:ocl-types] Dtypes in OpenCL C ==================================== */

/* Per dtype, in OpenCL C and then in C99: storage type in buffers, compute
   type of values, the unsigned type integer arithmetic wraps in; and the
   helper suffix. float16 is stored as half (vload_half/vstore_half_rte) in
   OpenCL and as its bits (uint16_t, tc_h2f/tc_f2h) in C, computed in float;
   bool is stored as a 0/1 byte, computed as bool. Last, the .npy type code
   the C driver reads and writes. */
/* clang-format off */
#define TC__OCL_TYPES(X)                                                                   \
    X(BOOL,    "uchar",  "bool",   "uint",  "uint8_t",  "bool",     "uint32_t", "b", "b1")    \
    X(INT8,    "char",   "char",   "uint",  "int8_t",   "int8_t",   "uint32_t", "i8", "i1")   \
    X(INT16,   "short",  "short",  "uint",  "int16_t",  "int16_t",  "uint32_t", "i16", "i2")  \
    X(INT32,   "int",    "int",    "uint",  "int32_t",  "int32_t",  "uint32_t", "i32", "i4")  \
    X(INT64,   "long",   "long",   "ulong", "int64_t",  "int64_t",  "uint64_t", "i64", "i8")  \
    X(UINT8,   "uchar",  "uchar",  "uint",  "uint8_t",  "uint8_t",  "uint32_t", "u8", "u1")   \
    X(UINT16,  "ushort", "ushort", "uint",  "uint16_t", "uint16_t", "uint32_t", "u16", "u2")  \
    X(UINT32,  "uint",   "uint",   "uint",  "uint32_t", "uint32_t", "uint32_t", "u32", "u4")  \
    X(UINT64,  "ulong",  "ulong",  "ulong", "uint64_t", "uint64_t", "uint64_t", "u64", "u8")  \
    X(FLOAT16, "half",   "float",  "",      "uint16_t", "float",    "",         "f", "f2")    \
    X(FLOAT32, "float",  "float",  "",      "float",    "float",    "",         "f", "f4")    \
    X(FLOAT64, "double", "double", "",      "double",   "double",   "",         "d", "f8")
/* clang-format on */
static const struct {
    tc_dtype dt;
    const char *storage, *compute, *wrap, *c_storage, *c_compute, *c_wrap, *sfx, *npy;
} tc__ocl_types[TC_DTYPE_COUNT] = {
    {TC_DTYPE_UNSET, "", "", "", "", "", "", "", ""},
#define TC__OCL_TYPE_INFO(dt, st, ct, wt, cst, cct, cwt, sfx, npy)                                 \
    {TC_##dt, st, ct, wt, cst, cct, cwt, sfx, npy},
    TC__OCL_TYPES(TC__OCL_TYPE_INFO)
#undef TC__OCL_TYPE_INFO
};
/* The dialect's spellings (c99: 0 OpenCL C, 1 C99). */
TC__OCL_PRIVATE const char *tc__ocl_ctype(int c99, tc_dtype t) {
    return c99 ? tc__ocl_types[t].c_compute : tc__ocl_types[t].compute;
}
TC__OCL_PRIVATE const char *tc__ocl_storage(int c99, tc_dtype t) {
    return c99 ? tc__ocl_types[t].c_storage : tc__ocl_types[t].storage;
}
TC__OCL_PRIVATE const char *tc__ocl_wrap(int c99, tc_dtype t) {
    return c99 ? tc__ocl_types[t].c_wrap : tc__ocl_types[t].wrap;
}

TC__OCL_PRIVATE int tc__ocl_dt_ok(tc_dtype t) {
    return t != TC_DTYPE_UNSET && (unsigned)t < (unsigned)TC_DTYPE_COUNT;
}
TC__OCL_PRIVATE int tc__ocl_is_float(tc_dtype t) {
    return t == TC_FLOAT16 || t == TC_FLOAT32 || t == TC_FLOAT64;
}
TC__OCL_PRIVATE int tc__ocl_is_signed(tc_dtype t) {
    return t == TC_INT8 || t == TC_INT16 || t == TC_INT32 || t == TC_INT64;
}
TC__OCL_PRIVATE int tc__ocl_is_int(tc_dtype t) {
    return tc__ocl_is_signed(t) || t == TC_UINT8 || t == TC_UINT16 || t == TC_UINT32 ||
           t == TC_UINT64;
}
/* uint and ulong arithmetic needs no wrapping help; narrower and signed types do. */
TC__OCL_PRIVATE int tc__ocl_plain_arith(tc_dtype t) {
    return tc__ocl_is_float(t) || t == TC_UINT32 || t == TC_UINT64;
}

/* ==== [tc:ocl-names] TC names as OpenCL C identifiers =======================
   A TC name is used as written unless OpenCL C reserves it (keywords, types,
   vector types, the built-ins the kernels call, macros) or it starts with
   tc_ (the emitter's own names) or _ (reserved in C): then it becomes
   tc_u_<name>. Loop names that equal a tensor or size name become tc_i_<name>. */
static const char *const tc__ocl_reserved[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "uchar",
    "ushort", "uint", "ulong", "half", "quad", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t",
    "global", "local", "constant", "private", "kernel", "read_only", "write_only", "read_write",
    "uniform", "pipe", "complex", "imaginary", "event_t", "sampler_t", "image1d_t",
    "image1d_array_t", "image1d_buffer_t", "image2d_t", "image2d_array_t", "image3d_t",
    "get_global_id", "atomic_cmpxchg", "min", "max", "fmin", "fmax", "isnan", "isinf",
    "fabs", "copysign", "exp", "log", "sqrt", "erf", "erfc", "cos", "sin", "hypot", "cbrt",
    "fmod", "frexp", "ldexp", "signbit", "asm", "typeof", "generic", "NULL", "INFINITY", "NAN",
    "MAXFLOAT", "HUGE_VAL", "HUGE_VALF", "FLT_EPSILON", "DBL_EPSILON", "vload_half",
    "vstore_half_rte", "as_int", "select"};

TC__OCL_PRIVATE int tc__ocl_is_vector_type(const char *s) {
    static const char *const bases[] = {"char", "uchar", "short", "ushort", "int", "uint", "long",
                                        "ulong", "float", "double", "half", "bool", "quad"};
    size_t i;
    for (i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        size_t n = strlen(bases[i]);
        if (strncmp(s, bases[i], n) == 0 && s[n] >= '0' && s[n] <= '9') return 1;
    }
    return 0;
}
TC__OCL_PRIVATE int tc__ocl_c_reserved(const char *s);
TC__OCL_PRIVATE int tc__ocl_is_reserved(int c99, const char *s) {
    size_t i;
    int upper = 1, underscore = 0;
    const char *c;
    if (strncmp(s, "tc_", 3) == 0 || s[0] == '_') return 1;
    if (c99 && tc__ocl_c_reserved(s)) return 1;
    if (strncmp(s, "convert_", 8) == 0 || strncmp(s, "as_", 3) == 0 ||
        strncmp(s, "vload", 5) == 0 || strncmp(s, "vstore", 6) == 0 ||
        strncmp(s, "atomic_", 7) == 0 || strncmp(s, "get_", 4) == 0)
        return 1;
    for (i = 0; i < sizeof tc__ocl_reserved / sizeof tc__ocl_reserved[0]; i++)
        if (strcmp(s, tc__ocl_reserved[i]) == 0) return 1;
    if (tc__ocl_is_vector_type(s)) return 1;
    /* FLT_MAX, M_PI, CL_VERSION_1_2, CLK_...: macro-like names */
    for (c = s; *c; c++) {
        if (*c >= 'a' && *c <= 'z') upper = 0;
        if (*c == '_') underscore = 1;
    }
    return upper && underscore;
}
/* '.' (in the names of an inlined call's temporaries: g.T, g.2.T) as '_'. */
TC__OCL_PRIVATE void tc__ocl_undot(char *s) {
    for (; s && *s; s++)
        if (*s == '.') *s = '_';
}
/* The OpenCL spelling of a TC name (arena copy). */
TC__OCL_PRIVATE char *tc__ocl_name(tc__ocl_arena *A, int c99, const char *tc_name) {
    const char *pre = tc__ocl_is_reserved(c99, tc_name) ? "tc_u_" : "";
    size_t n = strlen(pre) + strlen(tc_name) + 1;
    char *s = (char *)tc__ocl_arena_alloc(A, n, 1);
    if (s) snprintf(s, n, "%s%s", pre, tc_name);
    return s;
}
/* Tensor t's spelling: a temporary of an inlined call (g.T) becomes
   tc_t<t>_g_T, which no TC name can be (those starting tc_ are renamed)
   and which the tensor number keeps apart from g_T or g.T's other forms. */
TC__OCL_PRIVATE char *tc__ocl_tensor_name(tc__ocl_arena *A, int c99, const char *tc_name, int t) {
    size_t n = strlen(tc_name) + 32;
    char *s;
    if (!strchr(tc_name, '.')) return tc__ocl_name(A, c99, tc_name);
    s = (char *)tc__ocl_arena_alloc(A, n, 1);
    if (s) snprintf(s, n, "tc_t%d_%s", t, tc_name);
    tc__ocl_undot(s);
    return s;
}

/* ==== [tc:ocl-analysis] What each statement's kernels need ==================
   Shared by the emitter and the runner, so both agree on kernel names,
   argument lists and error codes. */

typedef struct tc__ocl_stmt_info {
    int n_lhs;          /* non-reduction loops (the written tensor's rank) */
    int reads_self;     /* the right-hand side reads the written tensor */
    int serial;         /* ... at another element: one work-item runs the nest */
    int fused_init;     /* `!` applied by starting the accumulator at the identity */
    int init_kernel;    /* `!` applied by a separate kernel first */
    int n_gathers;      /* bounds-checked reads */
    int gather_base;    /* error codes gather_base + 1 .. gather_base + n_gathers */
    int uses_fp64;      /* a float64 value or tensor */
} tc__ocl_stmt_info;

/* Value of sx id when baked, or whether it is the constant v when symbolic. */
TC__OCL_PRIVATE int tc__ocl_sx_is(const tc_ir_def *d, const int64_t *baked, int id, int64_t v) {
    if (baked) return baked[id] == v;
    return d->sx[id].op == TC_SX_CONST && d->sx[id].value == v;
}
TC__OCL_PRIVATE int tc__ocl_sx_same(const tc_ir_def *d, const int64_t *baked, int a, int b) {
    if (baked) return baked[a] == baked[b];
    if (a == b) return 1;
    if (d->sx[a].op == TC_SX_CONST && d->sx[b].op == TC_SX_CONST)
        return d->sx[a].value == d->sx[b].value;
    return d->sx[a].op == TC_SX_VAR && d->sx[b].op == TC_SX_VAR && d->sx[a].value == d->sx[b].value;
}

TC__OCL_PRIVATE int tc__ocl_is_gather(const tc_ir_def *d, const tc_ir_node *nd) {
    int k;
    if (nd->op != TC_IR_READ) return 0;
    for (k = 0; k < d->tensors[nd->tensor].rank; k++)
        if (!nd->index[k].affine) return 1;
    return 0;
}
/* A read of the written tensor at exactly the element being written. */
TC__OCL_PRIVATE int tc__ocl_reads_own(const tc_ir_def *d, const int64_t *baked,
                                      const tc_ir_stmt *st, const tc_ir_node *nd) {
    int k, l, rank = d->tensors[st->tensor].rank;
    for (k = 0; k < rank; k++) {
        const tc_ir_index *ix = &nd->index[k];
        if (!ix->affine || !tc__ocl_sx_is(d, baked, ix->offset, 0)) return 0;
        for (l = 0; l < st->n_loops; l++)
            if (ix->coef[l] != (l == k ? 1 : 0)) return 0;
    }
    return 1;
}

TC__OCL_PRIVATE void tc__ocl_analyze(const tc_ir_def *d, const int64_t *baked, int s,
                                     int gather_base, tc__ocl_stmt_info *in) {
    const tc_ir_stmt *st = &d->stmts[s];
    const tc_ir_tensor *t = &d->tensors[st->tensor];
    int i, covers = 1;
    memset(in, 0, sizeof *in);
    in->n_lhs = t->rank;
    in->gather_base = gather_base;
    in->uses_fp64 = t->dtype == TC_FLOAT64;
    for (i = 0; i < st->n_nodes; i++) {
        const tc_ir_node *nd = &st->nodes[i];
        if (nd->dtype == TC_FLOAT64) in->uses_fp64 = 1;
        if (nd->op != TC_IR_READ) continue;
        if (d->tensors[nd->tensor].dtype == TC_FLOAT64) in->uses_fp64 = 1;
        if (tc__ocl_is_gather(d, nd)) in->n_gathers++;
        if (nd->tensor == st->tensor) {
            in->reads_self = 1;
            if (!tc__ocl_reads_own(d, baked, st, nd)) in->serial = 1;
        }
    }
    for (i = 0; i < t->rank; i++)
        if (!tc__ocl_sx_is(d, baked, st->loops[i].lo, 0) ||
            !tc__ocl_sx_same(d, baked, st->loops[i].hi, t->extent[i]))
            covers = 0;
    if (st->init) {
        in->fused_init = covers && !in->reads_self;
        in->init_kernel = !in->fused_init;
    }
}

/* Kernel name: <def>_<tensor>_s<statement>[_init]. */
TC__OCL_PRIVATE void tc__ocl_kernel_name(const tc_ir_def *d, int s, int init, char *buf,
                                         size_t cap) {
    snprintf(buf, cap, "%s%s_%s_s%d%s", strncmp(d->name, "tc_", 3) == 0 ? "tc_u_" : "", d->name,
             d->tensors[d->stmts[s].tensor].name, s, init ? "_init" : "");
    tc__ocl_undot(buf); /* unique by the statement number */
}

/* Marks what a statement's main kernel takes as arguments: tensors (tmark)
   and, for symbolic sizes, size variables (vmark) and other non-constant
   size expressions (smark). */
TC__OCL_PRIVATE void tc__ocl_mark_sx(const tc_ir_def *d, int id, unsigned char *vmark,
                                     unsigned char *smark) {
    const tc_sx *x = &d->sx[id];
    if (x->op == TC_SX_CONST) return;
    if (x->op == TC_SX_VAR) vmark[x->value] = 1;
    else smark[id] = 1;
}
TC__OCL_PRIVATE void tc__ocl_mark_args(const tc_ir_def *d, int s, unsigned char *tmark,
                                       unsigned char *vmark, unsigned char *smark) {
    const tc_ir_stmt *st = &d->stmts[s];
    const tc_ir_tensor *w = &d->tensors[st->tensor];
    int i, k;
    memset(tmark, 0, (size_t)d->n_tensors);
    memset(vmark, 0, (size_t)(d->n_sizevars ? d->n_sizevars : 1));
    memset(smark, 0, (size_t)(d->n_sx ? d->n_sx : 1));
    tmark[st->tensor] = 1;
    for (k = 1; k < w->rank; k++) tc__ocl_mark_sx(d, w->extent[k], vmark, smark);
    for (i = 0; i < st->n_loops; i++) {
        tc__ocl_mark_sx(d, st->loops[i].lo, vmark, smark);
        tc__ocl_mark_sx(d, st->loops[i].hi, vmark, smark);
    }
    for (i = 0; i < st->n_nodes; i++) {
        const tc_ir_node *nd = &st->nodes[i];
        if (nd->op == TC_IR_SIZE) tc__ocl_mark_sx(d, nd->sx, vmark, smark);
        if (nd->op != TC_IR_READ) continue;
        tmark[nd->tensor] = 1;
        for (k = 0; k < d->tensors[nd->tensor].rank; k++) {
            const tc_ir_index *ix = &nd->index[k];
            if (k > 0 || !ix->affine)
                tc__ocl_mark_sx(d, d->tensors[nd->tensor].extent[k], vmark, smark);
            if (ix->affine) tc__ocl_mark_sx(d, ix->offset, vmark, smark);
        }
    }
}

/* Structural checks on the IR, so the emitter never indexes out of range
   (the front end's IR passes them; hand-built IR may not). */
TC__OCL_PRIVATE const char *tc__ocl_check_node(const tc_ir_def *d, const tc_ir_stmt *st, int i) {
    const tc_ir_node *nd = &st->nodes[i];
    int k;
    if ((unsigned)nd->op >= (unsigned)TC_IR_OP_COUNT || !tc__ocl_dt_ok(nd->dtype) ||
        nd->dtype == TC_FLOAT16)
        return "bad node op or dtype";
    if (nd->nargs < 0 || nd->nargs > 4) return "bad argument count";
    for (k = 0; k < nd->nargs; k++)
        if (nd->args[k] < 0 || nd->args[k] >= i) return "operand not before its user";
    switch (nd->op) {
    case TC_IR_INDEX:
        return nd->loop < 0 || nd->loop >= st->n_loops ? "bad loop" : NULL;
    case TC_IR_HALF:
        return nd->nargs != 1 || (nd->dtype != TC_FLOAT32 && nd->dtype != TC_FLOAT64) ||
                       st->nodes[nd->args[0]].dtype != nd->dtype
                   ? "bad float16 rounding"
                   : NULL;
    case TC_IR_SIZE: return nd->sx < 0 || nd->sx >= d->n_sx ? "bad size expression" : NULL;
    case TC_IR_CALL:
        return (unsigned)nd->builtin >= (unsigned)TC_BUILTIN_COUNT ||
                       tc_builtin_arity(nd->builtin) != nd->nargs
                   ? "bad builtin"
                   : NULL;
    case TC_IR_READ:
        if (nd->tensor < 0 || nd->tensor >= d->n_tensors) return "bad tensor";
        if (d->tensors[nd->tensor].rank > 0 && !nd->index) return "read without index";
        for (k = 0; k < d->tensors[nd->tensor].rank; k++) {
            const tc_ir_index *ix = &nd->index[k];
            if (ix->affine && (!ix->coef || ix->offset < 0 || ix->offset >= d->n_sx))
                return "bad affine index";
            if (!ix->affine && (ix->node < 0 || ix->node >= i)) return "bad gather index";
        }
        return NULL;
    default: return NULL;
    }
}
TC__OCL_PRIVATE tc_status tc__ocl_validate(const tc_ir_def *d, tc_error *err) {
    int s, i, k;
    for (i = 0; i < d->n_tensors; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        if (!tc__ocl_dt_ok(t->dtype) || t->rank < 0 || t->rank > TC_MAX_RANK || !t->name)
            return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "IR: bad tensor %d", i);
        for (k = 0; k < t->rank; k++)
            if (t->extent[k] < 0 || t->extent[k] >= d->n_sx)
                return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "IR: bad extent of %s", t->name);
    }
    for (i = 0; i < d->n_sx; i++)
        if (d->sx[i].op == TC_SX_VAR && (d->sx[i].value < 0 || d->sx[i].value >= d->n_sizevars))
            return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "IR: bad size variable");
    for (s = 0; s < d->n_stmts; s++) {
        const tc_ir_stmt *st = &d->stmts[s];
        if (st->tensor < 0 || st->tensor >= d->n_tensors ||
            st->n_loops < d->tensors[st->tensor].rank || st->value < 0 ||
            st->value >= st->n_nodes || (unsigned)st->reduce >= (unsigned)TC_REDUCE_COUNT)
            return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "IR: bad statement %d", s);
        for (i = 0; i < st->n_loops; i++)
            if (st->loops[i].lo < 0 || st->loops[i].lo >= d->n_sx || st->loops[i].hi < 0 ||
                st->loops[i].hi >= d->n_sx || !st->loops[i].name)
                return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "IR: bad loop in statement %d",
                                     s);
        for (i = 0; i < st->n_nodes; i++) {
            const char *why = tc__ocl_check_node(d, st, i);
            if (why)
                return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "IR: statement %d node %d: %s",
                                     s, i, why);
        }
    }
    return TC_OK;
}

/* ==== [tc:ocl-helpers] OpenCL C helper functions ============================
   Written once as templates: $T is the float type, $S its suffix (f or d)
   in helper names, $f the literal suffix, $E the type's epsilon. Integer
   division helpers are generated per dtype. */

/* clang-format off */
#define TC__OCL_HELPERS(X)                                                                   \
    X(C99, "C99 only: what OpenCL C has built in and C99 lacks (sinpi and cospi as "       \
           "the VM's, exact reduction by fmod)",                                              \
      "$T tc_exp10_$S($T x) { return pow(10$f, x); }\n"                                    \
      "$T tc_rsqrt_$S($T x) { return 1$f / sqrt(x); }\n"                                   \
      "$T tc_c_sincospi_$S($T x, int want_cos)\n{\n"                                        \
      "    const $T pi = 3.14159265358979323846$f;\n"                                        \
      "    $T r, v;\n"                                                                     \
      "    if (x != x || isinf(x)) return x - x;\n"                                         \
      "    r = fmod(fabs(x), 2$f);\n"                                                       \
      "    if (want_cos) {\n"                                                               \
      "        if (r <= 0.25$f) v = cos(pi * r);\n"                                          \
      "        else if (r <= 0.75$f) v = -sin(pi * (r - 0.5$f));\n"                           \
      "        else if (r <= 1.25$f) v = -cos(pi * (r - 1$f));\n"                             \
      "        else if (r <= 1.75$f) v = sin(pi * (r - 1.5$f));\n"                            \
      "        else v = cos(pi * (r - 2$f));\n"                                              \
      "        return v == 0$f ? 0$f : v;\n    }\n"                                          \
      "    if (r <= 0.25$f) v = sin(pi * r);\n"                                              \
      "    else if (r <= 0.75$f) v = cos(pi * (r - 0.5$f));\n"                                \
      "    else if (r <= 1.25$f) v = -sin(pi * (r - 1$f));\n"                                 \
      "    else if (r <= 1.75$f) v = -cos(pi * (r - 1.5$f));\n"                               \
      "    else v = sin(pi * (r - 2$f));\n"                                                  \
      "    if (v == 0$f) v = 0$f;\n"                                                        \
      "    return signbit(x) ? -v : v;\n}\n")                                               \
    X(MINMAX, "min/max: NaN ignored, the VM's choice on ties",                               \
      "$T tc_min_$S($T x, $T y) { return (y < x || x != x) ? y : x; }\n"                     \
      "$T tc_max_$S($T x, $T y) { return (y > x || x != x) ? y : x; }\n")                    \
    X(FMOD, "%: the sign of the divisor, as for integers (fmod, then + y)",                  \
      "$T tc_mod_$S($T x, $T y)\n{\n"                                                        \
      "    $T r = fmod(x, y);\n"                                                             \
      "    if (r == 0) return copysign(0$f, y);\n"                                           \
      "    return (r < 0) != (y < 0) ? r + y : r;\n}\n")                                     \
    X(HALF, "half(x): x rounded to float16, ties to even (as the VM's tc__round_half)",     \
      "$T tc_half_$S($T x)\n{\n"                                                           \
      "    $T a = fabs(x), q, y, f;\n"                                                      \
      "    if (!(a < 65520$f)) return isnan(x) ? x : copysign(($T)INFINITY, x);\n"          \
      "    q = a < 6.103515625e-05$f ? 5.9604644775390625e-08$f : ldexp(1$f, ilogb(a) - 10);\n" \
      "    y = a / q;\n    f = floor(y);\n"                                                 \
      "    if (y - f > 0.5$f || (y - f == 0.5$f && fmod(f, 2$f) != 0$f)) f += 1$f;\n"       \
      "    return copysign(f * q, x);\n}\n")                                                \
    X(FMINMAX, "fmin/fmax builtins: C99 NaN rule, min(-0, +0) = -0, max = +0",               \
      "$T tc_fmin_$S($T x, $T y)\n{\n"                                                       \
      "    if (x != x) return y;\n    if (y != y) return x;\n"                              \
      "    if (x == y) return x == 0 ? (signbit(x) ? x : y) : x;\n"                          \
      "    return x < y ? x : y;\n}\n"                                                       \
      "$T tc_fmax_$S($T x, $T y)\n{\n"                                                       \
      "    if (x != x) return y;\n    if (y != y) return x;\n"                              \
      "    if (x == y) return x == 0 ? (signbit(x) ? y : x) : x;\n"                          \
      "    return x > y ? x : y;\n}\n")                                                      \
    X(SIMPLE, "builtins OpenCL spells differently, or whose zeros need a sign "              \
              "(IEEE sinPi, cosPi, an underflowing negative tgamma)",                        \
      "$T tc_rcbrt_$S($T x) { return 1$f / cbrt(x); }\n"                                     \
      "$T tc_fdivide_$S($T x, $T y) { return x / y; }\n"                                     \
      "$T tc_sinpi_$S($T x) { $T r = sinpi(x); return r == 0$f ? copysign(0$f, x) : r; }\n" \
      "$T tc_cospi_$S($T x) { $T r = cospi(x); return r == 0$f ? 0$f : r; }\n"               \
      "$T tc_tgamma_$S($T x) /* a negative result that underflows is -0 */\n{\n"             \
      "    $T r = tgamma(x);\n"                                                              \
      "    return r == 0$f && x < 0$f && fmod(floor(x), 2$f) != 0$f ? -0$f : r;\n}\n"        \
      "$T tc_normcdf_$S($T x)\n{\n"                                                          \
      "    /* -x / sqrt 2 as t + d (c_lo: Newton's correction of c_hi); the rounding d\n"   \
      "       enters to first order, erfc(t + d) = erfc(t) - d (2/sqrt pi) exp(-t^2) */\n"  \
      "    const $T c_hi = 0.70710678118654757$f, c_lo = fma(-c_hi, c_hi, 0.5$f) / (2$f * c_hi);\n" \
      "    $T t = -x * c_hi, d = fma(-x, c_hi, -t) - x * c_lo;\n"                          \
      "    if (!(fabs(x) < 40$f)) return isnan(x) ? x : x > 0$f ? 1$f : 0$f;\n"             \
      "    return 0.5$f * erfc(t) - d * exp(-t * t) * 0.5641895835477563$f;\n}\n")          \
    X(NORM, "norm3d/norm4d and (r = 1) rhypot/rnorm3d/rnorm4d: scaled by a power of two, "   \
            "no overflow or underflow (a reciprocal scaled back once, rounding once)",       \
      "$T tc_norm_$S($T a, $T b, $T c, $T d, int r)\n{\n"                                    \
      "    $T m = fmax(fmax(fabs(a), fabs(b)), fmax(fabs(c), fabs(d)));\n"                   \
      "    int e;\n"                                                                         \
      "    if (isinf(a) || isinf(b) || isinf(c) || isinf(d)) return r ? 0 : ($T)INFINITY;\n" \
      "    if (isnan(a) || isnan(b) || isnan(c) || isnan(d)) return ($T)NAN;\n"              \
      "    if (m == 0) return r ? ($T)INFINITY : 0;\n"                                       \
      "    (void)frexp(m, &e);\n"                                                            \
      "    a = ldexp(a, -e); b = ldexp(b, -e); c = ldexp(c, -e); d = ldexp(d, -e);\n"        \
      "    m = sqrt(a * a + b * b + c * c + d * d);\n"                                       \
      "    return r ? ldexp(1$f / m, -e) : ldexp(m, e);\n}\n")                               \
    X(BESSEL_I, "cyl_bessel_i0/i1: power series to 30 (all terms positive), then the "      \
                "asymptotic expansion with exp(x) split so it overflows only with I_n",      \
      "$T tc_bessel_i_$S($T x, int n)\n{\n"                                                  \
      "    $T a = fabs(x), r, t, s;\n    int k;\n"                                           \
      "    if (isnan(x)) return x;\n"                                                        \
      "    if (isinf(a)) return n && x < 0 ? -a : a;\n"                                      \
      "    if (a <= 30$f) {\n"                                                               \
      "        /* q = x^2 / 4 rounds by e; the term of q^k carries it k times */\n"          \
      "        $T aa = a * a, e = aa > 0 ? fma(a, a, -aa) / aa : 0;\n"                       \
      "        $T q = 0.25$f * aa, kt = 0;\n"                                                \
      "        t = n ? 0.5$f * a : 1$f;\n        s = t;\n"                                   \
      "        for (k = 1; k < 200; k++) {\n"                                                \
      "            t *= q / (($T)k * ($T)(k + n));\n            s += t;\n"                   \
      "            kt += ($T)k * t;\n"                                                       \
      "            if (t <= s * $E) break;\n        }\n        r = s + e * kt;\n"            \
      "    } else {\n"                                                                       \
      "        $T mu = ($T)(4 * n * n), e = exp(0.5$f * a);\n"                               \
      "        t = 1$f;\n        s = 1$f;\n"                                                 \
      "        for (k = 1; k < 40; k++) {\n"                                                 \
      "            $T m = ($T)(2 * k - 1);\n"                                                \
      "            t *= -(mu - m * m) / (($T)k * 8$f * a);\n            s += t;\n"           \
      "            if (fabs(t) <= s * $E) break;\n        }\n"                               \
      "        r = e * (e / (2.5066282746310002$f * sqrt(a))) * s;\n    }\n"                \
      "    return n ? copysign(r, x) : r; /* odd: i1(-0) = -0 */\n}\n")                      \
    X(BESSEL_JY, "j0 j1 y0 y1 (which = 0..3): series below 1e-3, Miller's backward "        \
                 "recurrence to 25 (normalized by J0 + 2 sum J2k = 1, Neumann series for "    \
                 "Y0 and Y1 from the same J_n), Hankel's expansion beyond",                  \
      "$T tc_bessel_jy_$S($T x, int which)\n{\n"                                             \
      "    const $T g = 0.5772156649015329$f, tp = 0.6366197723675814$f;\n"                  \
      "    int nu = which & 1, second = which >> 1, n, m, k;\n"                              \
      "    $T a = fabs(x), j0, j1, v, vp, vm, sum, y0s, y1s, lg;\n"                          \
      "    if (isnan(x)) return x;\n"                                                        \
      "    if (second && x < 0) return ($T)NAN;\n"                                           \
      "    if (second && x == 0) return -($T)INFINITY;\n"                                    \
      "    if (isinf(a)) return which == 1 ? copysign(($T)0, x) : 0; /* j1 is odd */\n"      \
      "    if (a > 25$f) {\n"                                                                \
      "        $T mu = ($T)(4 * nu * nu), z = 8$f * a, t = 1$f, p = 1$f, q = 0$f;\n"         \
      "        $T sn = sin(a), cs = cos(a), cc, ss, f, r;\n"                                 \
      "        for (k = 1; k < 40; k++) {\n"                                                 \
      "            $T mm = ($T)(2 * k - 1);\n"                                               \
      "            t *= (mu - mm * mm) / (($T)k * z);\n"                                     \
      "            if ((k & 3) == 1) q += t;\n            else if ((k & 3) == 2) p -= t;\n"  \
      "            else if ((k & 3) == 3) q -= t;\n            else p += t;\n"               \
      "            if (fabs(t) < $E * 0.25$f) break;\n        }\n"                           \
      "        cc = nu ? sn - cs : cs + sn;\n        ss = nu ? -sn - cs : sn - cs;\n"        \
      "        f = 0.7978845608028654$f / sqrt(a) * 0.7071067811865476$f;\n"                 \
      "        if (second) return f * (p * ss + q * cc);\n"                                  \
      "        r = f * (p * cc - q * ss);\n"                                                 \
      "        return nu && x < 0 ? -r : r;\n    }\n"                                        \
      "    lg = 0.5$f * a; /* log(a / 2), a / 2 rounding for some subnormals */\n"           \
      "    lg = (lg + lg == a ? log(lg) : log(a) - 0.6931471805599453$f) + g;\n"             \
      "    if (a < 1e-3$f) {\n"                                                              \
      "        j0 = 1$f - 0.25$f * a * a;\n        j1 = 0.5$f * a - 0.0625$f * a * a * a;\n"  \
      "        if (!second) return nu ? copysign(j1, x) : j0; /* j1(-0) = -0 */\n"           \
      "        if (!nu) return tp * (lg * j0 + 0.25$f * a * a);\n"                           \
      "        return -tp / a + a / 3.141592653589793$f * (lg - 0.5$f);\n    }\n"           \
      "    m = 2 * ((int)(0.5$f * a) + 20);\n"                                               \
      "    vp = 0$f; v = 1$f; sum = 0$f; y0s = 0$f; y1s = 0$f;\n"                           \
      "    for (n = m; n >= 1; n--) {\n"                                                     \
      "        vm = ($T)(2 * n) / a * v - vp;\n"                                             \
      "        if ((n & 1) == 0) {\n"                                                        \
      "            k = n / 2;\n"                                                             \
      "            sum += 2$f * v;\n"                                                        \
      "            y0s += ((k & 1) ? -v : v) / ($T)k;\n"                                     \
      "            y1s += ((k & 1) ? vp - vm : vm - vp) / ($T)k;\n"                          \
      "        }\n"                                                                          \
      "        vp = v;\n        v = vm;\n"                                                   \
      "        if (fabs(v) > 1e10$f) {\n"                                                    \
      "            v *= 1e-10$f; vp *= 1e-10$f; sum *= 1e-10$f;\n"                           \
      "            y0s *= 1e-10$f; y1s *= 1e-10$f;\n        }\n    }\n"                      \
      "    sum += v;\n    j0 = v / sum;\n    j1 = vp / sum;\n"                               \
      "    if (!second) return nu ? (x < 0 ? -j1 : j1) : j0;\n"                              \
      "    if (!nu) return tp * lg * j0 - 2$f * tp * y0s / sum;\n"                           \
      "    return -tp * j0 / a + tp * lg * j1 + tp * y1s / sum;\n}\n")                       \
    X(ERFCX, "erfcx: exp(x*x) (x*x split exactly by fma) times erfc below 4, the "          \
             "continued fraction above; 2 exp(x*x) - erfcx(-x) for x < 0",                   \
      "$T tc_expsq_$S($T x) { $T h = x * x; return exp(h) * (1$f + fma(x, x, -h)); }\n"     \
      "$T tc_erfcx_pos_$S($T x)\n{\n"                                                        \
      "    $T f = x;\n    int k;\n"                                                          \
      "    if (x < 4$f) return tc_expsq_$S(x) * erfc(x);\n"                                  \
      "    for (k = 32; k >= 1; k--) f = x + ($T)k * 0.5$f / f;\n"                           \
      "    return 0.5641895835477563$f / f;\n}\n"                                            \
      "$T tc_erfcx_$S($T x)\n{\n"                                                            \
      "    if (isnan(x)) return x;\n"                                                        \
      "    if (x >= 0$f) return tc_erfcx_pos_$S(x);\n"                                       \
      "    if (x < -26.7$f) return ($T)INFINITY;\n"                                          \
      "    return 2$f * tc_expsq_$S(x) - tc_erfcx_pos_$S(-x);\n}\n")                         \
    X(ERFINV, "erfinv, erfcinv, normcdfinv: the VM's method (tc.h tc__math_erfcinv): "     \
              "Winitzki's closed-form first guess, then Halley steps on erf, or on erfc "    \
              "scaled by erfcx so the tail down to the smallest z converges; the "           \
              "complement 1 - y is exact where it is taken",                                 \
      "$T tc_erfinv_guess_$S($T lm)\n{\n"                                                    \
      "    $T t = 4.330746750799873$f + 0.5$f * lm;\n"                                       \
      "    return sqrt(sqrt(t * t - lm / 0.147$f) - t);\n}\n"                                \
      "$T tc_erfinv_small_$S($T y)\n{\n"                                                     \
      "    $T x = tc_erfinv_guess_$S(log1p(-y * y)), d;\n    int i;\n"                       \
      "    if (y == 0$f) return y;\n"                                                        \
      "    for (i = 0; i < 4; i++) {\n"                                                      \
      "        d = (erf(x) - y) * 0.8862269254527579$f * tc_expsq_$S(x);\n"                 \
      "        x -= d / (1$f + x * d);\n    }\n"                                             \
      "    return x;\n}\n"                                                                   \
      "$T tc_erfcinv_small_$S($T z)\n{\n"                                                    \
      "    $T lz = log(z), x = tc_erfinv_guess_$S(lz + log(2$f - z)), h, d, step;\n"         \
      "    int i;\n"                                                                         \
      "    for (i = 0; i < 5; i++) {\n"                                                      \
      "        h = x * x;\n"                                                                 \
      "        d = -0.8862269254527579$f * (tc_erfcx_$S(x) - exp(h + lz) * (1$f + fma(x, x, -h)));\n" \
      "        step = d / (1$f + x * d);\n        x -= step;\n"                              \
      "        if (fabs(step) <= $E * x) break;\n    }\n"                                    \
      "    return x;\n}\n"                                                                   \
      "$T tc_erfinv_$S($T y)\n{\n"                                                           \
      "    $T a = fabs(y), x;\n"                                                             \
      "    if (!(a <= 1$f)) return ($T)NAN;\n"                                               \
      "    if (a == 1$f) return y * ($T)INFINITY;\n"                                         \
      "    if (y == 0$f) return y;\n"                                                        \
      "    x = a <= 0.5$f ? tc_erfinv_small_$S(a) : tc_erfcinv_small_$S(1$f - a);\n"         \
      "    return y < 0$f ? -x : x;\n}\n"                                                    \
      "$T tc_erfcinv_$S($T z)\n{\n"                                                          \
      "    if (!(z >= 0$f && z <= 2$f)) return ($T)NAN;\n"                                   \
      "    if (z == 0$f) return ($T)INFINITY;\n"                                             \
      "    if (z == 2$f) return -($T)INFINITY;\n"                                            \
      "    if (z <= 0.5$f) return tc_erfcinv_small_$S(z);\n"                                 \
      "    if (z >= 1.5$f) return -tc_erfcinv_small_$S(2$f - z);\n"                          \
      "    return tc_erfinv_$S(1$f - z);\n}\n"                                               \
      "$T tc_normcdfinv_$S($T p) { return 0$f - 1.4142135623730951$f * tc_erfcinv_$S(2$f * p); }\n")
/* clang-format on */
typedef enum tc__ocl_helper {
#define TC__OCL_HELPER_ENUM(id, doc, text) TC__OCL_H_##id,
    TC__OCL_HELPERS(TC__OCL_HELPER_ENUM)
#undef TC__OCL_HELPER_ENUM
    TC__OCL_H_COUNT
} tc__ocl_helper;
static const struct {
    const char *doc, *text;
} tc__ocl_helper_text[TC__OCL_H_COUNT] = {
#define TC__OCL_HELPER_INFO(id, doc, text) {doc, text},
    TC__OCL_HELPERS(TC__OCL_HELPER_INFO)
#undef TC__OCL_HELPER_INFO
};

/* How each builtin is spelled: an OpenCL built-in, or a helper (with the
   helper group that defines it and the text before the type suffix). */
typedef struct tc__ocl_call {
    const char *name;  /* OpenCL built-in, or helper prefix ("tc_erfinv_") */
    int helper;        /* -1: built-in */
    const char *extra; /* appended argument (bessel order), or NULL */
} tc__ocl_call;

static const struct {
    tc_builtin b;
    const char *name; /* helper prefix; the type suffix follows */
    int helper;
    const char *extra;
} tc__ocl_calls[] = {
    {TC_BUILTIN_CYL_BESSEL_I0, "tc_bessel_i_", TC__OCL_H_BESSEL_I, "0"},
    {TC_BUILTIN_CYL_BESSEL_I1, "tc_bessel_i_", TC__OCL_H_BESSEL_I, "1"},
    {TC_BUILTIN_J0, "tc_bessel_jy_", TC__OCL_H_BESSEL_JY, "0"},
    {TC_BUILTIN_J1, "tc_bessel_jy_", TC__OCL_H_BESSEL_JY, "1"},
    {TC_BUILTIN_Y0, "tc_bessel_jy_", TC__OCL_H_BESSEL_JY, "2"},
    {TC_BUILTIN_Y1, "tc_bessel_jy_", TC__OCL_H_BESSEL_JY, "3"},
    {TC_BUILTIN_ERFCX, "tc_erfcx_", TC__OCL_H_ERFCX, NULL},
    {TC_BUILTIN_ERFINV, "tc_erfinv_", TC__OCL_H_ERFINV, NULL},
    {TC_BUILTIN_ERFCINV, "tc_erfcinv_", TC__OCL_H_ERFINV, NULL},
    {TC_BUILTIN_NORMCDFINV, "tc_normcdfinv_", TC__OCL_H_ERFINV, NULL},
    {TC_BUILTIN_NORMCDF, "tc_normcdf_", TC__OCL_H_SIMPLE, NULL},
    {TC_BUILTIN_SINPI, "tc_sinpi_", TC__OCL_H_SIMPLE, NULL},
    {TC_BUILTIN_COSPI, "tc_cospi_", TC__OCL_H_SIMPLE, NULL},
    {TC_BUILTIN_TGAMMA, "tc_tgamma_", TC__OCL_H_SIMPLE, NULL},
    {TC_BUILTIN_RCBRT, "tc_rcbrt_", TC__OCL_H_SIMPLE, NULL},
    {TC_BUILTIN_FDIVIDE, "tc_fdivide_", TC__OCL_H_SIMPLE, NULL},
    {TC_BUILTIN_FMIN, "tc_fmin_", TC__OCL_H_FMINMAX, NULL},
    {TC_BUILTIN_FMAX, "tc_fmax_", TC__OCL_H_FMINMAX, NULL},
    {TC_BUILTIN_NORM3D, "tc_norm_", TC__OCL_H_NORM, "0"},
    {TC_BUILTIN_NORM4D, "tc_norm_", TC__OCL_H_NORM, "0"},
    {TC_BUILTIN_RHYPOT, "tc_norm_", TC__OCL_H_NORM, "1"},
    {TC_BUILTIN_RNORM3D, "tc_norm_", TC__OCL_H_NORM, "1"},
    {TC_BUILTIN_RNORM4D, "tc_norm_", TC__OCL_H_NORM, "1"}};

TC__OCL_PRIVATE tc__ocl_call tc__ocl_builtin_call(int c99, tc_builtin b) {
    tc__ocl_call c;
    size_t i;
    c.name = tc_builtin_name(b); /* the rest are OpenCL built-ins of the same name */
    c.helper = -1;
    c.extra = NULL;
    if (c99 && (b == TC_BUILTIN_EXP10 || b == TC_BUILTIN_RSQRT)) { /* not in C99 */
        c.name = b == TC_BUILTIN_EXP10 ? "tc_exp10_" : "tc_rsqrt_";
        c.helper = TC__OCL_H_C99;
        return c;
    }
    for (i = 0; i < sizeof tc__ocl_calls / sizeof tc__ocl_calls[0]; i++)
        if (tc__ocl_calls[i].b == b) {
            c.name = tc__ocl_calls[i].name;
            c.helper = tc__ocl_calls[i].helper;
            c.extra = tc__ocl_calls[i].extra;
        }
    return c;
}

/* C99 <math.h> functions whose float form ends in f (expf): OpenCL C
   overloads them, C99 spells them per type. */
static const char *const tc__ocl_c_math[] = {
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "atan2", "cbrt", "ceil", "copysign",
    "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "fdim", "floor", "fma",
    "fmax", "fmin", "fmod", "frexp", "hypot", "ilogb", "ldexp", "lgamma", "log", "log10",
    "log1p", "log2", "logb", "nextafter", "pow", "remainder", "round", "sin", "sinh", "sqrt",
    "tan", "tanh", "tgamma", "trunc"};
TC__OCL_PRIVATE int tc__ocl_c_is_math(const char *s, size_t n) {
    size_t i;
    for (i = 0; i < sizeof tc__ocl_c_math / sizeof tc__ocl_c_math[0]; i++)
        if (strlen(tc__ocl_c_math[i]) == n && strncmp(s, tc__ocl_c_math[i], n) == 0) return 1;
    return 0;
}
/* C99: a call of an OpenCL built-in in a template, as C99 spells it for
   float type t (fmod( -> fmodf(, sinpi( -> tc_c_sincospi_f(x, 0)'s form is
   written in the templates themselves); returns the characters consumed
   (0: not an identifier start). */
TC__OCL_PRIVATE size_t tc__ocl_c_ident(tc__ocl_str *s, const char *text, const char *p, int dbl) {
    size_t n = 0;
    char buf[64];
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_')) return 0;
    if (p > text && ((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                     (p[-1] >= '0' && p[-1] <= '9') || p[-1] == '_' || p[-1] == '$'))
        return 0;
    while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
           (p[n] >= '0' && p[n] <= '9') || p[n] == '_')
        n++;
    if (n >= sizeof buf - 2) n = sizeof buf - 3;
    memcpy(buf, p, n);
    buf[n] = '\0';
    tc__ocl_puts(s, buf);
    if (p[n] == '(' && !dbl && tc__ocl_c_is_math(p, n)) tc__ocl_puts(s, "f");
    return n;
}
/* sinpi(x) and cospi(x) in a template, for C99: tc_c_sincospi_<S>(x, 0/1)
   (the argument is a plain name in the templates). */
TC__OCL_PRIVATE size_t tc__ocl_c_sincospi(tc__ocl_str *s, const char *p, int dbl) {
    int cosine = strncmp(p, "cospi(", 6) == 0;
    const char *close;
    if (!cosine && strncmp(p, "sinpi(", 6) != 0) return 0;
    close = strchr(p + 6, ')');
    if (!close) return 0;
    tc__ocl_printf(s, "tc_c_sincospi_%s(%.*s, %d)", dbl ? "d" : "f", (int)(close - p - 6), p + 6,
                   cosine);
    return (size_t)(close - p) + 1;
}

/* Writes a helper template for float type t (FLOAT32 or FLOAT64); c99:
   C99 spellings, each function TC_C_INLINE (static inline). */
TC__OCL_PRIVATE void tc__ocl_put_template(int c99, tc__ocl_str *s, const char *text, tc_dtype t) {
    const char *p;
    int dbl = t == TC_FLOAT64;
    for (p = text; *p; p++) {
        char buf[2];
        if (c99 && (p == text || p[-1] == '\n') && strncmp(p, "$T ", 3) == 0)
            tc__ocl_puts(s, "TC_C_INLINE ");
        if (c99 && (p == text || p[-1] != '_')) {
            size_t n = tc__ocl_c_sincospi(s, p, dbl);
            if (!n) n = tc__ocl_c_ident(s, text, p, dbl);
            if (n) {
                p += n - 1;
                continue;
            }
        }
        if (*p == '$' && p[1]) {
            p++;
            switch (*p) {
            case 'T': tc__ocl_puts(s, dbl ? "double" : "float"); continue;
            case 'S': tc__ocl_puts(s, dbl ? "d" : "f"); continue;
            case 'f': { /* 1$f -> 1.0f: a suffix needs a float literal */
                const char *q = p - 2;
                while (q >= text && *q >= '0' && *q <= '9') q--;
                if (q < p - 2 && (q < text || (*q != '.' && *q != 'e' && *q != '-' &&
                                              *q != '+')))
                    tc__ocl_puts(s, ".0");
                else if (q < p - 2 && (*q == '-' || *q == '+') && q > text && q[-1] != 'e')
                    tc__ocl_puts(s, ".0");
                tc__ocl_puts(s, dbl ? "" : "f");
                continue;
            }
            case 'E': tc__ocl_puts(s, dbl ? "DBL_EPSILON" : "FLT_EPSILON"); continue;
            default: break;
            }
        }
        buf[0] = *p;
        buf[1] = '\0';
        tc__ocl_puts(s, buf);
    }
}

/* ==== [tc:ocl-emit] The emitter ============================================ */

typedef struct tc__ocl_emitter {
    const tc_ir_def *d;
    const int64_t *baked; /* NULL: symbolic sizes */
    tc__ocl_arena A;
    tc__ocl_str *out;
    int indent;
    int failed; /* a limit was hit (the error is set); oom is tracked by str/arena */
    tc_error *err;
    char **tname, **vname; /* OpenCL names of tensors and size variables */
    /* per statement */
    const tc_ir_stmt *st;
    int stmt;
    tc__ocl_stmt_info info;
    char **lname;          /* loop names */
    int *uses, *avail;     /* use counts; scope level where a local exists (0: none) */
    unsigned char *local;  /* node is computed into a local tc_v<id> */
    unsigned char *marks;  /* kernel arguments: tensors, size variables, other sizes */
    int level, depth, next_gather;
    /* helpers needed, per float type (0 float, 1 double) */
    unsigned char need[TC__OCL_H_COUNT][2];
    unsigned char need_div[TC_DTYPE_COUNT], need_bounds;
    /* the C99 dialect (tc_c_emit): flags, and what only C needs */
    int c99, c_flags;
    unsigned char *sx_used; /* C: sx ids the body names as tc_s<id> */
    unsigned char need_minmax[TC_DTYPE_COUNT], need_sat[TC_DTYPE_COUNT][2], need_half_io;
} tc__ocl_emitter;

TC__OCL_PRIVATE void tc__ocl_line(tc__ocl_emitter *E, const char *fmt, ...) {
    va_list ap;
    char tmp[512];
    int i, n;
    for (i = 0; i < E->indent; i++) tc__ocl_puts(E->out, "    ");
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof tmp) tc__ocl_puts(E->out, tmp);
    else if (n >= 0) {
        tc__ocl_str t;
        tc__ocl_str_init(&t, E->out->a);
        if (tc__ocl_str_reserve(&t, (size_t)n)) {
            va_start(ap, fmt);
            vsnprintf(t.p, (size_t)n + 1, fmt, ap);
            va_end(ap);
            tc__ocl_puts(E->out, t.p);
        } else E->out->oom = 1;
        tc__ocl_str_free(&t);
    }
    tc__ocl_puts(E->out, "\n");
}

/* -- literals ---------------------------------------------------------- */

/* c99: long is not 64 bits everywhere, long long is */
TC__OCL_PRIVATE void tc__ocl_put_i64(int c99, tc__ocl_str *s, int64_t v) {
    int big = v > INT_MAX || v < INT_MIN;
    const char *L = c99 ? "LL" : "L";
    if (v == INT64_MIN) tc__ocl_printf(s, "(-9223372036854775807%s - 1%s)", L, L);
    else if (v < 0) tc__ocl_printf(s, "(%lld%s)", (long long)v, big ? L : "");
    else tc__ocl_printf(s, "%lld%s", (long long)v, big ? L : "");
}
/* A float literal that reads back to the same value ('.' forced, locale
   commas undone). */
TC__OCL_PRIVATE void tc__ocl_put_float(tc__ocl_str *s, double v, int dbl) {
    char tmp[64], *c;
    if (v != v) {
        tc__ocl_puts(s, dbl ? "((double)NAN)" : "NAN");
        return;
    }
    if (v == (double)INFINITY || v == -(double)INFINITY) {
        tc__ocl_puts(s, v < 0 ? (dbl ? "(-(double)INFINITY)" : "(-INFINITY)")
                              : (dbl ? "((double)INFINITY)" : "INFINITY"));
        return;
    }
    if (dbl) snprintf(tmp, sizeof tmp, "%.17g", v);
    else snprintf(tmp, sizeof tmp, "%.9g", (double)(float)v);
    for (c = tmp; *c; c++)
        if (*c == ',') *c = '.';
    if (!strpbrk(tmp, ".en")) strcat(tmp, ".0");
    if (tmp[0] == '-') tc__ocl_printf(s, "(%s%s)", tmp, dbl ? "" : "f");
    else tc__ocl_printf(s, "%s%s", tmp, dbl ? "" : "f");
}
/* A constant of dtype t given as an integer bit pattern or a float. */
TC__OCL_PRIVATE void tc__ocl_put_const(int c99, tc__ocl_str *s, tc_dtype t, int64_t iv, double fv) {
    const char *L = c99 ? "LL" : "L";
    switch (t) {
    case TC_BOOL: tc__ocl_puts(s, iv ? "true" : "false"); break;
    case TC_INT8: tc__ocl_printf(s, "((%s)%d)", tc__ocl_ctype(c99, t), (int)(int8_t)iv); break;
    case TC_INT16: tc__ocl_printf(s, "((%s)%d)", tc__ocl_ctype(c99, t), (int)(int16_t)iv); break;
    case TC_INT32:
        if ((int32_t)iv == INT32_MIN) tc__ocl_puts(s, "(-2147483647 - 1)");
        else tc__ocl_put_i64(c99, s, (int32_t)iv);
        break;
    case TC_INT64:
        if (iv == INT64_MIN) tc__ocl_printf(s, "(-9223372036854775807%s - 1%s)", L, L);
        else if (iv < 0) tc__ocl_printf(s, "(%lld%s)", (long long)iv, L);
        else tc__ocl_printf(s, "%lld%s", (long long)iv, L);
        break;
    case TC_UINT8:
        tc__ocl_printf(s, "((%s)%u)", tc__ocl_ctype(c99, t), (unsigned)(uint8_t)iv);
        break;
    case TC_UINT16:
        tc__ocl_printf(s, "((%s)%u)", tc__ocl_ctype(c99, t), (unsigned)(uint16_t)iv);
        break;
    case TC_UINT32: tc__ocl_printf(s, "%luu", (unsigned long)(uint32_t)iv); break;
    case TC_UINT64:
        tc__ocl_printf(s, "%llu%s", (unsigned long long)(uint64_t)iv, c99 ? "ULL" : "UL");
        break;
    case TC_FLOAT16: case TC_FLOAT32: tc__ocl_put_float(s, fv, 0); break;
    case TC_FLOAT64: tc__ocl_put_float(s, fv, 1); break;
    case TC_DTYPE_UNSET: case TC_DTYPE_COUNT: break;
    }
}
/* The identity of a reduction in dtype t (ASSIGN: 0). */
TC__OCL_PRIVATE void tc__ocl_put_identity(int c99, tc__ocl_str *s, tc_reduce r, tc_dtype t) {
    static const int64_t imax[TC_DTYPE_COUNT] = {0,          1,         127,   32767,
                                                 2147483647, INT64_MAX, 255,   65535,
                                                 4294967295LL, -1,      0,     0,     0};
    static const int64_t imin[TC_DTYPE_COUNT] = {0, 0, -128, -32768, INT32_MIN, INT64_MIN, 0,
                                                 0, 0, 0,    0,      0,         0};
    int is_f = tc__ocl_is_float(t);
    switch (r) {
    case TC_REDUCE_PROD: tc__ocl_put_const(c99, s, t, 1, 1.0); break;
    case TC_REDUCE_MIN: tc__ocl_put_const(c99, s, t, imax[t], (double)INFINITY); break;
    case TC_REDUCE_MAX:
        tc__ocl_put_const(c99, s, t, imin[t], is_f ? -(double)INFINITY : 0.0);
        break;
    default: tc__ocl_put_const(c99, s, t, 0, 0.0); break;
    }
}

/* -- sizes and offsets ------------------------------------------------- */

/* Size expression id: a literal when baked or constant, else its name. */
TC__OCL_PRIVATE void tc__ocl_put_sx(tc__ocl_emitter *E, tc__ocl_str *s, int id) {
    const tc_sx *x = &E->d->sx[id];
    if (E->baked) tc__ocl_put_i64(E->c99, s, E->baked[id]);
    else if (x->op == TC_SX_CONST) tc__ocl_put_i64(E->c99, s, x->value);
    else if (x->op == TC_SX_VAR) tc__ocl_puts(s, E->vname[x->value]);
    else {
        tc__ocl_printf(s, "tc_s%d", id);
        if (E->sx_used) E->sx_used[id] = 1; /* C: copied from tc_sx[] at the top */
    }
}
/* hi - lo of a loop (just hi when lo is 0). */
TC__OCL_PRIVATE void tc__ocl_put_extent(tc__ocl_emitter *E, tc__ocl_str *s, const tc_ir_loop *l) {
    if (E->baked) {
        tc__ocl_put_i64(E->c99, s, E->baked[l->hi] - E->baked[l->lo]);
        return;
    }
    if (tc__ocl_sx_is(E->d, NULL, l->lo, 0)) {
        tc__ocl_put_sx(E, s, l->hi);
        return;
    }
    tc__ocl_puts(s, "(");
    tc__ocl_put_sx(E, s, l->hi);
    tc__ocl_puts(s, " - ");
    tc__ocl_put_sx(E, s, l->lo);
    tc__ocl_puts(s, ")");
}
/* One affine index: sum of coef * loop, plus the offset. */
TC__OCL_PRIVATE void tc__ocl_put_affine(tc__ocl_emitter *E, tc__ocl_str *s, const tc_ir_index *ix) {
    int l, terms = 0;
    for (l = 0; l < E->st->n_loops; l++) {
        int64_t c = ix->coef[l];
        if (c == 0) continue;
        if (terms == 0) {
            if (c == -1) tc__ocl_puts(s, "-");
            else if (c != 1) tc__ocl_printf(s, "%lld * ", (long long)c);
        } else if (c == 1) tc__ocl_puts(s, " + ");
        else if (c == -1) tc__ocl_puts(s, " - ");
        else if (c > 0) tc__ocl_printf(s, " + %lld * ", (long long)c);
        else if (c != INT64_MIN) tc__ocl_printf(s, " - %lld * ", (long long)-c);
        else tc__ocl_printf(s, E->c99 ? " + (-9223372036854775807LL - 1LL) * "
                                      : " + (-9223372036854775807L - 1L) * ");
        tc__ocl_puts(s, E->lname[l]);
        terms++;
    }
    if (!tc__ocl_sx_is(E->d, E->baked, ix->offset, 0) || terms == 0) {
        int64_t v = 0;
        int is_const = E->baked || E->d->sx[ix->offset].op == TC_SX_CONST;
        if (is_const) v = E->baked ? E->baked[ix->offset] : E->d->sx[ix->offset].value;
        if (terms == 0) tc__ocl_put_sx(E, s, ix->offset);
        else if (is_const && v < 0 && v != INT64_MIN) tc__ocl_printf(s, " - %lld", (long long)-v);
        else {
            tc__ocl_puts(s, " + ");
            tc__ocl_put_sx(E, s, ix->offset);
        }
    }
}
/* The row-major element offset of a tensor access: idx[k] is the text of
   dimension k's index (NULL: affine index ix[k]). */
TC__OCL_PRIVATE void tc__ocl_put_offset(tc__ocl_emitter *E, tc__ocl_str *s, int tensor,
                                        const tc_ir_index *ix, char **idx) {
    const tc_ir_tensor *t = &E->d->tensors[tensor];
    int k;
    if (t->rank == 0) {
        tc__ocl_puts(s, "0");
        return;
    }
    for (k = 0; k < t->rank - 2; k++) tc__ocl_puts(s, "(");
    for (k = 0; k < t->rank; k++) {
        if (k > 0) {
            if (k > 1) tc__ocl_puts(s, ")");
            tc__ocl_puts(s, " * ");
            tc__ocl_put_sx(E, s, t->extent[k]);
            tc__ocl_puts(s, " + ");
        }
        if (idx && idx[k]) tc__ocl_puts(s, idx[k]);
        else {
            tc__ocl_str tmp;
            tc__ocl_str_init(&tmp, s->a);
            tc__ocl_put_affine(E, &tmp, &ix[k]);
            if (tmp.oom) s->oom = 1;
            else if (t->rank > 1 && (strchr(tmp.p, ' ') || tmp.p[0] == '-'))
                tc__ocl_printf(s, "(%s)", tmp.p);
            else tc__ocl_puts(s, tmp.p);
            tc__ocl_str_free(&tmp);
        }
    }
}
/* The offset of the element a statement writes: (loop 0, ..., loop r-1). */
TC__OCL_PRIVATE void tc__ocl_put_lhs_offset(tc__ocl_emitter *E, tc__ocl_str *s) {
    tc__ocl_put_offset(E, s, E->st->tensor, NULL, E->lname);
}
/* Load and store of one element (float16 through vload/vstore_half, bool
   as a 0/1 byte). */
TC__OCL_PRIVATE void tc__ocl_put_load(tc__ocl_emitter *E, tc__ocl_str *s, int tensor,
                                      const char *off) {
    const char *name = E->tname[tensor];
    switch (E->d->tensors[tensor].dtype) {
    case TC_FLOAT16:
        if (E->c99) tc__ocl_printf(s, "tc_h2f(%s[%s])", name, off);
        else tc__ocl_printf(s, "vload_half(%s, %s)", off, name);
        break;
    case TC_BOOL: tc__ocl_printf(s, "(%s[%s] != 0)", name, off); break;
    default: tc__ocl_printf(s, "%s[%s]", name, off); break;
    }
}
TC__OCL_PRIVATE void tc__ocl_store_line(tc__ocl_emitter *E, int tensor, const char *off,
                                        const char *val) {
    const char *name = E->tname[tensor];
    switch (E->d->tensors[tensor].dtype) {
    case TC_FLOAT16:
        if (E->c99) tc__ocl_line(E, "%s[%s] = tc_f2h(%s);", name, off, val);
        else tc__ocl_line(E, "vstore_half_rte(%s, %s, %s);", val, off, name);
        break;
    case TC_BOOL:
        tc__ocl_line(E, "%s[%s] = (%s)(%s);", name, off, E->c99 ? "uint8_t" : "uchar", val);
        break;
    default: tc__ocl_line(E, "%s[%s] = %s;", name, off, val); break;
    }
}

/* -- expressions --------------------------------------------------------
   Nodes used once are written inline; nodes used twice or more, gathers
   (bounds check first) and SELECTs whose branches need statements become
   locals tc_v<id>. A SELECT is `c ? a : b` when both branches are plain
   expressions (C evaluates only the chosen one), else if/else blocks whose
   locals live in their own scope. Either way the unselected branch never
   reads memory. */

TC__OCL_PRIVATE void tc__ocl_expr(tc__ocl_emitter *E, tc__ocl_str *s, int n, int top);


TC__OCL_PRIVATE void tc__ocl_open(tc__ocl_emitter *E, tc__ocl_str *s, int top) {
    (void)E;
    if (!top) tc__ocl_puts(s, "(");
}
TC__OCL_PRIVATE void tc__ocl_close(tc__ocl_emitter *E, tc__ocl_str *s, int top) {
    (void)E;
    if (!top) tc__ocl_puts(s, ")");
}

/* a OP b in dtype t: floats, uint and ulong as written; bool as the VM's
   saturating logic; other integers through their wrap type. */
TC__OCL_PRIVATE void tc__ocl_put_arith_text(int c99, tc__ocl_str *s, tc_ir_op op, tc_dtype t,
                                            const char *a, const char *b, int top) {
    static const char *const sym[] = {"+", "-", "*"};
    const char *o = sym[op == TC_IR_ADD ? 0 : op == TC_IR_SUB ? 1 : 2];
    if (t == TC_BOOL) {
        o = op == TC_IR_ADD ? "|" : op == TC_IR_SUB ? "^" : "&";
        tc__ocl_printf(s, top ? "%s %s %s" : "(%s %s %s)", a, o, b);
    } else if (tc__ocl_plain_arith(t)) {
        tc__ocl_printf(s, top ? "%s %s %s" : "(%s %s %s)", a, o, b);
    } else {
        const char *w = tc__ocl_wrap(c99, t);
        tc__ocl_printf(s, "((%s)((%s)%s %s (%s)%s))", tc__ocl_ctype(c99, t), w, a, o, w, b);
    }
}
/* The reduction's combine of acc and v in compute dtype t. */
TC__OCL_PRIVATE void tc__ocl_put_combine(int c99, tc__ocl_str *s, tc_reduce r, tc_dtype t,
                                         const char *acc, const char *v) {
    int dbl = t == TC_FLOAT64;
    switch (r) {
    case TC_REDUCE_ASSIGN: tc__ocl_puts(s, v); break;
    case TC_REDUCE_SUM: tc__ocl_put_arith_text(c99, s, TC_IR_ADD, t, acc, v, 1); break;
    case TC_REDUCE_PROD: tc__ocl_put_arith_text(c99, s, TC_IR_MUL, t, acc, v, 1); break;
    case TC_REDUCE_MIN: case TC_REDUCE_MAX: {
        const char *mm = r == TC_REDUCE_MIN ? "min" : "max";
        if (t == TC_BOOL) tc__ocl_printf(s, "%s %s %s", acc, r == TC_REDUCE_MIN ? "&" : "|", v);
        else if (tc__ocl_is_float(t))
            tc__ocl_printf(s, "tc_%s_%s(%s, %s)", mm, dbl ? "d" : "f", acc, v);
        else if (c99) /* C has no integer min/max: tc_min_<sfx> helpers */
            tc__ocl_printf(s, "tc_%s_%s(%s, (%s)(%s))", mm, tc__ocl_types[t].sfx, acc,
                           tc__ocl_ctype(c99, t), v);
        else /* v cast: a ?: of uchar operands is an int in C, and max(uchar, int) is ambiguous */
            tc__ocl_printf(s, "%s(%s, (%s)(%s))", mm, acc, tc__ocl_ctype(c99, t), v);
        break;
    }
    case TC_REDUCE_COUNT: break;
    }
}

/* Appends the text of operand n to a fresh string; the caller frees it. */
TC__OCL_PRIVATE void tc__ocl_operand(tc__ocl_emitter *E, tc__ocl_str *t, int n) {
    tc__ocl_str_init(t, E->out->a);
    tc__ocl_expr(E, t, n, 0);
    if (!t->p) tc__ocl_puts(t, "");
}

/* An integer comparison with a constant at its type's limit (u >= 0,
   x <= INT8_MAX, 0 > u): 1 always true, 0 always false, -1 neither; *keep:
   the other operand (0 left, 1 right). */
TC__OCL_PRIVATE int tc__ocl_c_tautology(tc__ocl_emitter *E, const tc_ir_node *nd, int *keep) {
    const tc_ir_node *x = &E->st->nodes[nd->args[0]], *y = &E->st->nodes[nd->args[1]];
    tc_dtype t = x->dtype;
    int bits = (int)tc_dtype_size(t) * 8, side, at_min, at_max;
    tc_ir_op op = nd->op;
    int64_t c;
    if (!tc__ocl_is_int(t) || op < TC_IR_LT || op > TC_IR_GE) return -1;
    if (y->op == TC_IR_CONST) side = 1;
    else if (x->op == TC_IR_CONST) side = 0;
    else return -1;
    c = side ? y->ival : x->ival;
    if (tc__ocl_is_signed(t)) { /* the value as that many bits, sign-extended */
        int64_t m = bits < 64 ? (int64_t)1 << (bits - 1) : INT64_MIN;
        if (bits < 64) c = (int64_t)(((uint64_t)c & (((uint64_t)1 << bits) - 1)) ^ (uint64_t)m) - m;
        at_min = c == (bits < 64 ? -m : INT64_MIN);
        at_max = c == (bits < 64 ? m - 1 : INT64_MAX);
    } else {
        uint64_t u = bits < 64 ? (uint64_t)c & (((uint64_t)1 << bits) - 1) : (uint64_t)c;
        at_min = u == 0;
        at_max = u == (bits < 64 ? ((uint64_t)1 << bits) - 1 : UINT64_MAX);
    }
    *keep = !side;
    if (!side) /* c OP x as x OP' c */
        op = op == TC_IR_LT ? TC_IR_GT : op == TC_IR_LE ? TC_IR_GE : op == TC_IR_GT ? TC_IR_LT
                                                                                     : TC_IR_LE;
    if (at_min && op == TC_IR_GE) return 1;
    if (at_min && op == TC_IR_LT) return 0;
    if (at_max && op == TC_IR_LE) return 1;
    if (at_max && op == TC_IR_GT) return 0;
    return -1;
}

TC__OCL_PRIVATE void tc__ocl_put_binary(tc__ocl_emitter *E, tc__ocl_str *s, const tc_ir_node *nd,
                                        int top) {
    tc__ocl_str a, b;
    tc_dtype t = E->st->nodes[nd->args[0]].dtype; /* operand dtype (comparisons give bool) */
    int f = tc__ocl_is_float(t), dbl = t == TC_FLOAT64;
    tc__ocl_operand(E, &a, nd->args[0]);
    tc__ocl_operand(E, &b, nd->args[1]);
    if (a.oom || b.oom) s->oom = 1;
    else switch (nd->op) {
    case TC_IR_ADD: case TC_IR_SUB: case TC_IR_MUL:
        tc__ocl_put_arith_text(E->c99, s, nd->op, t, a.p, b.p, top);
        break;
    case TC_IR_DIV: case TC_IR_MOD:
        if (t == TC_BOOL) tc__ocl_printf(s, nd->op == TC_IR_DIV ? "(%s & %s)" : "false", a.p, b.p);
        else if (f && nd->op == TC_IR_DIV)
            tc__ocl_printf(s, top ? "%s / %s" : "(%s / %s)", a.p, b.p);
        else if (f) tc__ocl_printf(s, "tc_mod_%s(%s, %s)", dbl ? "d" : "f", a.p, b.p);
        else tc__ocl_printf(s, "tc_%s_%s(%s, %s)", nd->op == TC_IR_DIV ? "div" : "mod",
                            tc__ocl_types[t].sfx, a.p, b.p);
        break;
    case TC_IR_MIN: case TC_IR_MAX: {
        const char *mm = nd->op == TC_IR_MIN ? "min" : "max";
        if (t == TC_BOOL)
            tc__ocl_printf(s, "(%s %s %s)", a.p, nd->op == TC_IR_MIN ? "&" : "|", b.p);
        else if (f) tc__ocl_printf(s, "tc_%s_%s(%s, %s)", mm, dbl ? "d" : "f", a.p, b.p);
        else if (E->c99)
            tc__ocl_printf(s, "tc_%s_%s(%s, %s)", mm, tc__ocl_types[t].sfx, a.p, b.p);
        else if (tc_dtype_size(t) < 4) /* C promotes a narrow operand (a ?: of uchars) to int */
            tc__ocl_printf(s, "%s((%s)%s, (%s)%s)", mm, tc__ocl_ctype(0, t), a.p,
                           tc__ocl_ctype(0, t), b.p);
        else tc__ocl_printf(s, "%s(%s, %s)", mm, a.p, b.p);
        break;
    }
    default: {
        static const char *const cmp[] = {"<", "<=", ">", ">=", "==", "!=", "&&", "||"};
        int keep = -1, taut = E->c99 ? tc__ocl_c_tautology(E, nd, &keep) : -1;
        tc_dtype ot = E->st->nodes[nd->args[0]].dtype;
        if (E->c99 && taut < 0 && nd->op <= TC_IR_NE && !tc__ocl_is_float(ot) &&
            strcmp(a.p, b.p) == 0) { /* x == x of integers: clang's -Wtautological-compare */
            keep = 0;
            taut = nd->op == TC_IR_LE || nd->op == TC_IR_GE || nd->op == TC_IR_EQ;
        }
        if (taut >= 0) /* C: gcc's -Wtype-limits would flag it; the operand is still evaluated */
            tc__ocl_printf(s, "((void)%s, %s)", keep ? b.p : a.p, taut ? "true" : "false");
        else {
            tc__ocl_open(E, s, top);
            tc__ocl_printf(s, "%s %s %s", a.p, cmp[nd->op - TC_IR_LT], b.p);
            tc__ocl_close(E, s, top);
        }
        break;
    }
    }
    tc__ocl_str_free(&a);
    tc__ocl_str_free(&b);
}

TC__OCL_PRIVATE void tc__ocl_put_cast(tc__ocl_emitter *E, tc__ocl_str *s, const tc_ir_node *nd) {
    tc__ocl_str a;
    tc_dtype from = E->st->nodes[nd->args[0]].dtype, to = nd->dtype;
    tc__ocl_operand(E, &a, nd->args[0]);
    if (a.oom) s->oom = 1;
    else if (from == to) tc__ocl_puts(s, a.p);
    else if (to == TC_BOOL) tc__ocl_printf(s, "(%s != 0)", a.p);
    else if (tc__ocl_is_float(from) && !tc__ocl_is_float(to) && E->c99) /* tc_sat_<to>_<from> */
        tc__ocl_printf(s, "tc_sat_%s_%s(%s)", tc__ocl_types[to].sfx, tc__ocl_types[from].sfx, a.p);
    else if (tc__ocl_is_float(from) && !tc__ocl_is_float(to)) /* saturating, NaN -> 0 */
        tc__ocl_printf(s, "convert_%s_sat_rtz(%s)", tc__ocl_ctype(0, to), a.p);
    else tc__ocl_printf(s, "((%s)%s)", tc__ocl_ctype(E->c99, to), a.p);
    tc__ocl_str_free(&a);
}

TC__OCL_PRIVATE void tc__ocl_put_call(tc__ocl_emitter *E, tc__ocl_str *s, const tc_ir_node *nd) {
    tc__ocl_call c = tc__ocl_builtin_call(E->c99, nd->builtin);
    const char *sfx = nd->dtype == TC_FLOAT64 ? "d" : "f";
    int k;
    if (E->c99 && c.helper < 0 && nd->dtype != TC_FLOAT64) sfx = "f"; /* expf, tanhf */
    else if (c.helper < 0) sfx = "";
    tc__ocl_printf(s, "%s%s(", c.name, sfx);
    for (k = 0; k < nd->nargs; k++) {
        if (k) tc__ocl_puts(s, ", ");
        tc__ocl_expr(E, s, nd->args[k], 1);
    }
    for (; c.helper == TC__OCL_H_NORM && k < 4; k++) /* tc_norm takes four values */
        tc__ocl_puts(s, nd->dtype == TC_FLOAT64 ? ", 0.0" : ", 0.0f");
    if (c.extra) tc__ocl_printf(s, ", %s", c.extra);
    tc__ocl_puts(s, ")");
}

/* Node n written as an expression (its operands may emit locals first). */
TC__OCL_PRIVATE void tc__ocl_put_op(tc__ocl_emitter *E, tc__ocl_str *s, int n, int top) {
    const tc_ir_node *nd = &E->st->nodes[n];
    tc__ocl_str a;
    switch (nd->op) {
    case TC_IR_CONST: tc__ocl_put_const(E->c99, s, nd->dtype, nd->ival, nd->fval); break;
    case TC_IR_INDEX: case TC_IR_SIZE: {
        tc__ocl_str v;
        tc__ocl_str_init(&v, s->a);
        if (nd->op == TC_IR_INDEX) tc__ocl_puts(&v, E->lname[nd->loop]);
        else tc__ocl_put_sx(E, &v, nd->sx);
        if (v.oom) s->oom = 1;
        else if (nd->dtype == TC_INT64) tc__ocl_puts(s, v.p);
        else tc__ocl_printf(s, "((%s)%s)", tc__ocl_ctype(E->c99, nd->dtype), v.p);
        tc__ocl_str_free(&v);
        break;
    }
    case TC_IR_READ: {
        tc__ocl_str off;
        tc__ocl_str_init(&off, s->a);
        tc__ocl_put_offset(E, &off, nd->tensor, nd->index, NULL);
        if (off.oom) s->oom = 1;
        else tc__ocl_put_load(E, s, nd->tensor, off.p);
        tc__ocl_str_free(&off);
        break;
    }
    case TC_IR_NEG: case TC_IR_NOT:
        tc__ocl_operand(E, &a, nd->args[0]);
        if (a.oom) s->oom = 1;
        else if (nd->op == TC_IR_NOT) tc__ocl_printf(s, "(!%s)", a.p);
        else if (nd->dtype == TC_BOOL) tc__ocl_puts(s, a.p);
        else if (tc__ocl_plain_arith(nd->dtype) && tc__ocl_is_float(nd->dtype))
            tc__ocl_printf(s, "(-%s)", a.p);
        else
            tc__ocl_printf(
                s, "((%s)-(%s)%s)", tc__ocl_ctype(E->c99, nd->dtype),
                tc__ocl_wrap(E->c99, nd->dtype)[0] ? tc__ocl_wrap(E->c99, nd->dtype)
                                                    : (E->c99 ? "uint32_t" : "uint"),
                a.p);
        tc__ocl_str_free(&a);
        break;
    case TC_IR_SELECT: {
        tc__ocl_str c, x, y;
        tc__ocl_operand(E, &c, nd->args[0]);
        tc__ocl_operand(E, &x, nd->args[1]);
        tc__ocl_operand(E, &y, nd->args[2]);
        if (c.oom || x.oom || y.oom) s->oom = 1;
        else tc__ocl_printf(s, top ? "%s ? %s : %s" : "(%s ? %s : %s)", c.p, x.p, y.p);
        tc__ocl_str_free(&c);
        tc__ocl_str_free(&x);
        tc__ocl_str_free(&y);
        break;
    }
    case TC_IR_CAST: tc__ocl_put_cast(E, s, nd); break;
    case TC_IR_HALF:
        tc__ocl_operand(E, &a, nd->args[0]);
        if (a.oom) s->oom = 1;
        else tc__ocl_printf(s, "tc_half_%s(%s)", nd->dtype == TC_FLOAT64 ? "d" : "f", a.p);
        tc__ocl_str_free(&a);
        break;
    case TC_IR_CALL: tc__ocl_put_call(E, s, nd); break;
    case TC_IR_OP_COUNT: break;
    default: tc__ocl_put_binary(E, s, nd, top); break;
    }
}

TC__OCL_PRIVATE void tc__ocl_scope_open(tc__ocl_emitter *E) {
    E->level++;
    E->indent++;
}
TC__OCL_PRIVATE void tc__ocl_scope_close(tc__ocl_emitter *E) {
    int i;
    for (i = 0; i < E->st->n_nodes; i++)
        if (E->avail[i] >= E->level) E->avail[i] = 0;
    E->level--;
    E->indent--;
}

/* Emits `node text` into a line with fmt ("... %s ..."). */
TC__OCL_PRIVATE void tc__ocl_expr_line(tc__ocl_emitter *E, int n, const char *fmt) {
    tc__ocl_str t;
    tc__ocl_str_init(&t, E->out->a);
    tc__ocl_expr(E, &t, n, 1);
    if (t.oom) E->out->oom = 1;
    else tc__ocl_line(E, fmt, t.p ? t.p : "");
    tc__ocl_str_free(&t);
}

TC__OCL_PRIVATE void tc__ocl_local_select(tc__ocl_emitter *E, int n) {
    const tc_ir_node *nd = &E->st->nodes[n];
    char fmt[64];
    tc__ocl_line(E, "%s tc_v%d;", tc__ocl_ctype(E->c99, nd->dtype), n);
    tc__ocl_expr_line(E, nd->args[0], "if (%s) {");
    snprintf(fmt, sizeof fmt, "tc_v%d = %%s;", n);
    tc__ocl_scope_open(E);
    tc__ocl_expr_line(E, nd->args[1], fmt);
    tc__ocl_scope_close(E);
    tc__ocl_line(E, "} else {");
    tc__ocl_scope_open(E);
    tc__ocl_expr_line(E, nd->args[2], fmt);
    tc__ocl_scope_close(E);
    tc__ocl_line(E, "}");
}

/* A gather: index values into locals, each checked against its extent; an
   index out of range records (code, dimension, index) and skips the read. */
TC__OCL_PRIVATE void tc__ocl_local_gather(tc__ocl_emitter *E, int n) {
    const tc_ir_node *nd = &E->st->nodes[n];
    const tc_ir_tensor *t = &E->d->tensors[nd->tensor];
    char *idx[TC_MAX_RANK], names[TC_MAX_RANK][32];
    tc__ocl_str cond, off, load;
    int k, code = E->uses[E->st->n_nodes + n];
    tc__ocl_str_init(&cond, E->out->a);
    for (k = 0; k < t->rank; k++) {
        char fmt[64];
        idx[k] = NULL;
        if (nd->index[k].affine) continue;
        snprintf(names[k], sizeof names[k], "tc_x%d_%d", n, k);
        idx[k] = names[k];
        snprintf(fmt, sizeof fmt, E->c99 ? "const int64_t %s = (int64_t)%%s;" : "const long %s = (long)%%s;", names[k]);
        tc__ocl_expr_line(E, nd->index[k].node, fmt);
        if (E->c99) { /* C: the run stops, returning TC_C_ERR_GATHER */
            tc__ocl_str ext;
            tc__ocl_str_init(&ext, E->out->a);
            tc__ocl_put_sx(E, &ext, t->extent[k]);
            if (ext.oom) E->out->oom = 1;
            else tc__ocl_line(E, "if (%s < 0 || %s >= %s) goto tc_gather_fail;", names[k], names[k], ext.p);
            tc__ocl_str_free(&ext);
            continue;
        }
        if (cond.len) tc__ocl_puts(&cond, " && ");
        tc__ocl_printf(&cond, "tc_in_bounds(%s, ", names[k]);
        tc__ocl_put_sx(E, &cond, t->extent[k]);
        tc__ocl_printf(&cond, ", tc_err, %d, %d)", code, k);
    }
    tc__ocl_str_init(&off, E->out->a);
    tc__ocl_str_init(&load, E->out->a);
    tc__ocl_put_offset(E, &off, nd->tensor, nd->index, idx);
    if (!off.oom) tc__ocl_put_load(E, &load, nd->tensor, off.p);
    if (!E->c99) tc__ocl_line(E, "%s tc_v%d = 0;", tc__ocl_ctype(0, nd->dtype), n);
    if (cond.oom || off.oom || load.oom) E->out->oom = 1;
    else if (E->c99) /* the indices were checked above, each on its own line */
        tc__ocl_line(E, "const %s tc_v%d = %s;", tc__ocl_ctype(1, nd->dtype), n, load.p);
    else tc__ocl_line(E, "if (%s) tc_v%d = %s;", cond.p, n, load.p);
    tc__ocl_str_free(&cond);
    tc__ocl_str_free(&off);
    tc__ocl_str_free(&load);
}

TC__OCL_PRIVATE void tc__ocl_ensure_local(tc__ocl_emitter *E, int n) {
    const tc_ir_node *nd = &E->st->nodes[n];
    char fmt[64];
    if (E->avail[n]) return;
    if (nd->op == TC_IR_SELECT) tc__ocl_local_select(E, n);
    else if (tc__ocl_is_gather(E->d, nd)) tc__ocl_local_gather(E, n);
    else {
        tc__ocl_str t;
        tc__ocl_str_init(&t, E->out->a);
        tc__ocl_put_op(E, &t, n, 1);
        snprintf(fmt, sizeof fmt, "const %s tc_v%d = %%s;", tc__ocl_ctype(E->c99, nd->dtype), n);
        if (t.oom) E->out->oom = 1;
        else tc__ocl_line(E, fmt, t.p ? t.p : "");
        tc__ocl_str_free(&t);
    }
    E->avail[n] = E->level;
}

TC__OCL_PRIVATE void tc__ocl_expr(tc__ocl_emitter *E, tc__ocl_str *s, int n, int top) {
    if (E->failed) return;
    if (++E->depth > TC__OCL_MAX_DEPTH) {
        E->failed = 1;
        tc__ocl_error(E->err, TC_ERR_LIMIT, "expression deeper than %d nodes", TC__OCL_MAX_DEPTH);
        E->depth--;
        return;
    }
    if (E->local[n]) {
        tc__ocl_ensure_local(E, n);
        tc__ocl_printf(s, "tc_v%d", n);
    } else tc__ocl_put_op(E, s, n, top);
    E->depth--;
}

/* Use counts, gather codes and the local/inline decision for a statement.
   uses[0..n) counts, uses[n..2n) gather codes. */
TC__OCL_PRIVATE void tc__ocl_plan_nodes(tc__ocl_emitter *E) {
    const tc_ir_stmt *st = E->st;
    int i, k, n = st->n_nodes, g = E->info.gather_base;
    unsigned char *stmts = E->local + n; /* "its inline text needs statements" */
    for (i = 0; i < n; i++) {
        const tc_ir_node *nd = &st->nodes[i];
        for (k = 0; k < nd->nargs; k++) E->uses[nd->args[k]]++;
        if (nd->op == TC_IR_READ)
            for (k = 0; k < E->d->tensors[nd->tensor].rank; k++)
                if (!nd->index[k].affine) E->uses[nd->index[k].node]++;
        if (tc__ocl_is_gather(E->d, nd)) E->uses[n + i] = ++g;
    }
    E->uses[st->value]++;
    for (i = 0; i < n; i++) {
        const tc_ir_node *nd = &st->nodes[i];
        int leaf = nd->op == TC_IR_CONST || nd->op == TC_IR_INDEX || nd->op == TC_IR_SIZE;
        E->local[i] = (unsigned char)(!leaf && (E->uses[i] >= 2 || tc__ocl_is_gather(E->d, nd)));
        if (nd->op == TC_IR_SELECT && !E->local[i])
            E->local[i] = (unsigned char)(stmts[nd->args[1]] || stmts[nd->args[2]]);
        stmts[i] = E->local[i];
        for (k = 0; k < nd->nargs; k++) stmts[i] = (unsigned char)(stmts[i] | stmts[nd->args[k]]);
    }
}

/* -- kernels ----------------------------------------------------------- */

/* The statement text as a comment (no comment terminators, one line). */
TC__OCL_PRIVATE void tc__ocl_comment_line(tc__ocl_emitter *E, const char *prefix,
                                          const char *text) {
    tc__ocl_str c;
    const char *p;
    tc__ocl_str_init(&c, E->out->a);
    tc__ocl_puts(&c, prefix);
    for (p = text ? text : ""; *p; p++) {
        char ch[2];
        ch[0] = (*p == '\n' || *p == '\r' || *p == '\t') ? ' ' : *p;
        ch[1] = '\0';
        tc__ocl_puts(&c, ch);
        if (p[0] == '*' && p[1] == '/') tc__ocl_puts(&c, " "); /* no comment end */
    }
    if (c.oom) E->out->oom = 1;
    else tc__ocl_line(E, "/* %s */", c.p);
    tc__ocl_str_free(&c);
}

/* Parameter list of a statement's main kernel (the runner sets arguments
   in this order: tensors, size variables, other sizes, tc_n, tc_err). */
TC__OCL_PRIVATE void tc__ocl_params(tc__ocl_emitter *E, tc__ocl_str *p, const char *sep) {
    const tc_ir_def *d = E->d;
    unsigned char *tm = E->marks, *vm = tm + d->n_tensors, *sm = vm + d->n_sizevars;
    int i, w = E->st->tensor;
    tc__ocl_mark_args(d, E->stmt, tm, vm, sm);
    tc__ocl_printf(p, "__global %s *restrict %s", tc__ocl_types[d->tensors[w].dtype].storage,
                   E->tname[w]);
    for (i = 0; i < d->n_tensors; i++)
        if (tm[i] && i != w)
            tc__ocl_printf(p, "%s__global const %s *restrict %s", sep,
                           tc__ocl_types[d->tensors[i].dtype].storage, E->tname[i]);
    if (!E->baked) {
        for (i = 0; i < d->n_sizevars; i++)
            if (vm[i]) tc__ocl_printf(p, "%sconst long %s", sep, E->vname[i]);
        for (i = 0; i < d->n_sx; i++)
            if (sm[i]) {
                char f[160];
                tc_sx_format(d, i, f, sizeof f);
                tc__ocl_printf(p, "%sconst long tc_s%d /* %s */", sep, i, f);
            }
        tc__ocl_printf(p, "%sconst long tc_n", sep);
    }
    if (E->info.n_gathers) tc__ocl_printf(p, "%s__global int *tc_err", sep);
}

TC__OCL_PRIVATE void tc__ocl_kernel_head(tc__ocl_emitter *E, const char *name, const char *params) {
    tc__ocl_line(E, "__kernel void %s(%s)", name, params);
    tc__ocl_line(E, "{");
    E->indent++;
}

/* Work-item -> the statement's non-reduction loop values, innermost fastest. */
TC__OCL_PRIVATE void tc__ocl_decompose(tc__ocl_emitter *E, int64_t n_items) {
    const tc_ir_stmt *st = E->st;
    int k;
    tc__ocl_line(E, "long tc_r = (long)get_global_id(0);");
    if (E->baked) tc__ocl_line(E, "if (tc_r >= %lldL) return;", (long long)n_items);
    else tc__ocl_line(E, "if (tc_r >= tc_n) return;");
    for (k = E->info.n_lhs - 1; k >= 0; k--) {
        tc__ocl_str lo, ext;
        tc__ocl_str_init(&lo, E->out->a);
        tc__ocl_str_init(&ext, E->out->a);
        if (!tc__ocl_sx_is(E->d, E->baked, st->loops[k].lo, 0)) {
            tc__ocl_put_sx(E, &lo, st->loops[k].lo);
            tc__ocl_puts(&lo, " + ");
        } else tc__ocl_puts(&lo, "");
        tc__ocl_put_extent(E, &ext, &st->loops[k]);
        if (lo.oom || ext.oom) E->out->oom = 1;
        else if (k > 0) {
            tc__ocl_line(E, "const long %s = %stc_r %% %s;", E->lname[k], lo.p, ext.p);
            tc__ocl_line(E, "tc_r /= %s;", ext.p);
        } else tc__ocl_line(E, "const long %s = %stc_r;", E->lname[k], lo.p);
        tc__ocl_str_free(&lo);
        tc__ocl_str_free(&ext);
    }
}

TC__OCL_PRIVATE void tc__ocl_for(tc__ocl_emitter *E, int l) {
    const tc_ir_loop *lp = &E->st->loops[l];
    tc__ocl_str lo, hi;
    tc__ocl_str_init(&lo, E->out->a);
    tc__ocl_str_init(&hi, E->out->a);
    tc__ocl_put_sx(E, &lo, lp->lo);
    tc__ocl_put_sx(E, &hi, lp->hi);
    if (lo.oom || hi.oom) E->out->oom = 1;
    else
        tc__ocl_line(E, "for (%s %s = %s; %s < %s; %s++) {", E->c99 ? "int64_t" : "long",
                     E->lname[l], lo.p, E->lname[l], hi.p, E->lname[l]);
    tc__ocl_str_free(&lo);
    tc__ocl_str_free(&hi);
    E->indent++;
}
TC__OCL_PRIVATE void tc__ocl_end(tc__ocl_emitter *E) {
    E->indent--;
    tc__ocl_line(E, "}");
}

/* The value and its store: locals, then the combine into tc_acc (register
   form) or straight into memory (memory form, when the statement reads
   what it writes). */
TC__OCL_PRIVATE void tc__ocl_update(tc__ocl_emitter *E, const char *off, int memory) {
    const tc_ir_stmt *st = E->st;
    tc_dtype ct = st->nodes[st->value].dtype;
    tc__ocl_str v, c, ld;
    /* `tc_acc += v` takes v bare; a combine wraps it ((uint)tc_acc + (uint)(v)),
       so there it keeps its parentheses (a ?: value would bind wrongly) */
    int plain = !memory && (st->reduce == TC_REDUCE_SUM || st->reduce == TC_REDUCE_PROD) &&
                tc__ocl_plain_arith(ct);
    /* C99: X[off] += v in memory too, where the stored type is the computed one */
    int c_inplace = memory && E->c99 && tc__ocl_plain_arith(ct) &&
                    (st->reduce == TC_REDUCE_SUM || st->reduce == TC_REDUCE_PROD) &&
                    E->d->tensors[st->tensor].dtype == ct;
    memset(E->avail, 0, sizeof(int) * (size_t)st->n_nodes);
    E->level = 1;
    tc__ocl_str_init(&v, E->out->a);
    tc__ocl_str_init(&c, E->out->a);
    tc__ocl_str_init(&ld, E->out->a);
    tc__ocl_expr(E, &v, st->value, plain || c_inplace);
    if (!v.p) tc__ocl_puts(&v, "");
    if (memory) tc__ocl_put_load(E, &ld, st->tensor, off);
    else tc__ocl_puts(&ld, "tc_acc");
    if (!v.oom && !ld.oom) tc__ocl_put_combine(E->c99, &c, st->reduce, ct, ld.p, v.p);
    if (v.oom || c.oom || ld.oom) E->out->oom = 1;
    else if (c_inplace)
        tc__ocl_line(E, "%s[%s] %s= %s;", E->tname[st->tensor], off,
                     st->reduce == TC_REDUCE_SUM ? "+" : "*", v.p);
    else if (memory) tc__ocl_store_line(E, st->tensor, off, c.p);
    else if (plain)
        tc__ocl_line(E, "tc_acc %s= %s;", st->reduce == TC_REDUCE_SUM ? "+" : "*", v.p);
    else tc__ocl_line(E, "tc_acc = %s;", c.p);
    tc__ocl_str_free(&v);
    tc__ocl_str_free(&c);
    tc__ocl_str_free(&ld);
}

TC__OCL_PRIVATE void tc__ocl_body(tc__ocl_emitter *E, const char *off) {
    const tc_ir_stmt *st = E->st;
    tc_dtype ct = st->nodes[st->value].dtype;
    int l, first = E->info.serial ? 0 : E->info.n_lhs;
    int memory = E->info.reads_self;
    for (l = first; l < st->n_loops && memory; l++) tc__ocl_for(E, l);
    if (memory) {
        tc__ocl_update(E, off, 1);
        for (l = first; l < st->n_loops; l++) tc__ocl_end(E);
        return;
    }
    if (st->n_loops == E->info.n_lhs && st->reduce == TC_REDUCE_ASSIGN) {
        tc__ocl_str v;
        tc__ocl_str_init(&v, E->out->a);
        memset(E->avail, 0, sizeof(int) * (size_t)st->n_nodes);
        E->level = 1;
        tc__ocl_expr(E, &v, st->value, 1);
        if (v.oom) E->out->oom = 1;
        else tc__ocl_store_line(E, st->tensor, off, v.p ? v.p : "");
        tc__ocl_str_free(&v);
        return;
    }
    {
        tc__ocl_str init;
        tc__ocl_str_init(&init, E->out->a);
        if (E->info.fused_init) tc__ocl_put_identity(E->c99, &init, st->reduce, ct);
        else tc__ocl_put_load(E, &init, st->tensor, off);
        if (init.oom) E->out->oom = 1;
        else tc__ocl_line(E, "%s tc_acc = %s;", tc__ocl_ctype(E->c99, ct), init.p);
        tc__ocl_str_free(&init);
    }
    for (l = first; l < st->n_loops; l++) tc__ocl_for(E, l);
    tc__ocl_update(E, off, 0);
    for (l = first; l < st->n_loops; l++) tc__ocl_end(E);
    tc__ocl_store_line(E, st->tensor, off, "tc_acc");
}

/* Number of work-items of the main kernel (baked sizes), 0 when empty. */
TC__OCL_PRIVATE int64_t tc__ocl_items(const tc_ir_def *d, const int64_t *sx, int s, int serial) {
    const tc_ir_stmt *st = &d->stmts[s];
    int64_t n = 1;
    int k;
    for (k = 0; k < (serial ? st->n_loops : d->tensors[st->tensor].rank); k++) {
        int64_t e = sx[st->loops[k].hi] - sx[st->loops[k].lo];
        if (e <= 0) return 0;
        if (!serial && n > INT64_MAX / e) return -1;
        if (!serial) n *= e;
    }
    return serial ? 1 : n;
}

TC__OCL_PRIVATE void tc__ocl_main_kernel(tc__ocl_emitter *E) {
    char name[512];
    tc__ocl_str params, off;
    int64_t n_items = E->baked ? tc__ocl_items(E->d, E->baked, E->stmt, E->info.serial) : 1;
    tc__ocl_kernel_name(E->d, E->stmt, 0, name, sizeof name);
    tc__ocl_str_init(&params, E->out->a);
    tc__ocl_str_init(&off, E->out->a);
    {
        char sep[560];
        size_t k, w = strlen("__kernel void (") + strlen(name);
        sep[0] = ',';
        sep[1] = '\n';
        for (k = 0; k < w && k < sizeof sep - 3; k++) sep[2 + k] = ' ';
        sep[2 + k] = '\0';
        tc__ocl_params(E, &params, sep);
    }
    tc__ocl_comment_line(E, "", E->st->text);
    tc__ocl_kernel_head(E, name, params.p ? params.p : "");
    tc__ocl_put_lhs_offset(E, &off);
    if (n_items == 0) tc__ocl_line(E, "/* empty iteration domain: never launched */");
    else if (E->info.serial) {
        tc__ocl_line(E, "if (get_global_id(0) != 0) return;");
        tc__ocl_comment_line(
            E, "", "reads the tensor it writes at other elements: one work-item, loop order");
        if (!off.oom) tc__ocl_body(E, off.p);
    } else {
        tc__ocl_decompose(E, n_items);
        if (!off.oom) tc__ocl_body(E, off.p);
    }
    tc__ocl_end(E);
    tc__ocl_line(E, "");
    if (params.oom || off.oom) E->out->oom = 1;
    tc__ocl_str_free(&params);
    tc__ocl_str_free(&off);
}

TC__OCL_PRIVATE void tc__ocl_init_kernel(tc__ocl_emitter *E) {
    const tc_ir_tensor *t = &E->d->tensors[E->st->tensor];
    char name[512];
    tc__ocl_str id;
    tc_dtype ct = E->st->nodes[E->st->value].dtype;
    tc__ocl_kernel_name(E->d, E->stmt, 1, name, sizeof name);
    tc__ocl_str_init(&id, E->out->a);
    tc__ocl_put_identity(0, &id, E->st->reduce, ct);
    tc__ocl_line(E, "/* `!`: every element of %s starts at %s */", E->tname[E->st->tensor],
                 id.p ? id.p : "");
    if (E->baked) {
        int64_t n = 1;
        int k;
        for (k = 0; k < t->rank; k++) n *= E->baked[t->extent[k]];
        tc__ocl_line(E, "__kernel void %s(__global %s *restrict %s)", name,
                     tc__ocl_types[t->dtype].storage, E->tname[E->st->tensor]);
        tc__ocl_line(E, "{");
        E->indent++;
        tc__ocl_line(E, "const long tc_r = (long)get_global_id(0);");
        tc__ocl_line(E, "if (tc_r >= %lldL) return;", (long long)n);
    } else {
        tc__ocl_line(E, "__kernel void %s(__global %s *restrict %s, const long tc_n)", name,
                     tc__ocl_types[t->dtype].storage, E->tname[E->st->tensor]);
        tc__ocl_line(E, "{");
        E->indent++;
        tc__ocl_line(E, "const long tc_r = (long)get_global_id(0);");
        tc__ocl_line(E, "if (tc_r >= tc_n) return;");
    }
    if (!id.oom) tc__ocl_store_line(E, E->st->tensor, "tc_r", id.p);
    else E->out->oom = 1;
    tc__ocl_end(E);
    tc__ocl_line(E, "");
    tc__ocl_str_free(&id);
}

TC__OCL_PRIVATE void tc__ocl_c_stmt(tc__ocl_emitter *E);

/* Per statement scratch: loop names, node plans; then both kernels (C99:
   the statement's loop nest). */
TC__OCL_PRIVATE void tc__ocl_emit_stmt(tc__ocl_emitter *E, int s, int gather_base) {
    const tc_ir_def *d = E->d;
    const tc_ir_stmt *st = &d->stmts[s];
    size_t n = (size_t)st->n_nodes, marks = (size_t)(d->n_tensors + d->n_sizevars + d->n_sx);
    int l, k;
    E->st = st;
    E->stmt = s;
    tc__ocl_analyze(d, E->baked, s, gather_base, &E->info);
    E->lname = (char **)tc__ocl_arena_alloc(&E->A, (size_t)st->n_loops + 1, sizeof(char *));
    E->uses = (int *)tc__ocl_arena_alloc(&E->A, 2 * n + 1, sizeof(int));
    E->avail = (int *)tc__ocl_arena_alloc(&E->A, n + 1, sizeof(int));
    E->local = (unsigned char *)tc__ocl_arena_alloc(&E->A, 2 * n + 1, 1);
    E->marks = (unsigned char *)tc__ocl_arena_alloc(&E->A, marks + 3, 1);
    if (E->A.oom) return;
    for (l = 0; l < st->n_loops; l++) {
        const char *nm = st->loops[l].name;
        int clash = 0;
        for (k = 0; k < d->n_tensors; k++) clash |= strcmp(nm, d->tensors[k].name) == 0;
        for (k = 0; k < d->n_sizevars; k++) clash |= strcmp(nm, d->sizevars[k]) == 0;
        if (clash) {
            size_t len = strlen(nm) + 6;
            E->lname[l] = (char *)tc__ocl_arena_alloc(&E->A, len, 1);
            if (E->lname[l]) snprintf(E->lname[l], len, "tc_i_%s", nm);
        } else E->lname[l] = tc__ocl_name(&E->A, E->c99, nm);
        if (!E->lname[l]) return;
    }
    tc__ocl_plan_nodes(E);
    if (E->c99) {
        tc__ocl_c_stmt(E);
        return;
    }
    if (E->info.init_kernel) tc__ocl_init_kernel(E);
    tc__ocl_main_kernel(E);
}

/* -- the whole program ------------------------------------------------- */

TC__OCL_PRIVATE void tc__ocl_c_scan(tc__ocl_emitter *E);

/* Which helpers the def needs, and whether it computes in float64. */
TC__OCL_PRIVATE void tc__ocl_scan_helpers(tc__ocl_emitter *E) {
    const tc_ir_def *d = E->d;
    int s, i;
    for (s = 0; s < d->n_stmts; s++) {
        const tc_ir_stmt *st = &d->stmts[s];
        tc_dtype vt = st->nodes[st->value].dtype;
        if ((st->reduce == TC_REDUCE_MIN || st->reduce == TC_REDUCE_MAX) && tc__ocl_is_float(vt))
            E->need[TC__OCL_H_MINMAX][vt == TC_FLOAT64] = 1;
        for (i = 0; i < st->n_nodes; i++) {
            const tc_ir_node *nd = &st->nodes[i];
            tc_dtype at = nd->nargs > 0 ? st->nodes[nd->args[0]].dtype : nd->dtype;
            if ((nd->op == TC_IR_DIV || nd->op == TC_IR_MOD) && tc__ocl_is_int(at))
                E->need_div[at] = 1;
            if (nd->op == TC_IR_MOD && tc__ocl_is_float(at)) E->need[TC__OCL_H_FMOD][at == TC_FLOAT64] = 1;
            if (nd->op == TC_IR_HALF) E->need[TC__OCL_H_HALF][nd->dtype == TC_FLOAT64] = 1;
            if ((nd->op == TC_IR_MIN || nd->op == TC_IR_MAX) && tc__ocl_is_float(at))
                E->need[TC__OCL_H_MINMAX][at == TC_FLOAT64] = 1;
            if (nd->op == TC_IR_CALL) {
                tc__ocl_call c = tc__ocl_builtin_call(E->c99, nd->builtin);
                if (c.helper >= 0) E->need[c.helper][nd->dtype == TC_FLOAT64] = 1;
            }
            if (tc__ocl_is_gather(d, nd)) E->need_bounds = 1;
        }
    }
    for (i = 0; i < 2; i++) /* erfcinv's Halley steps call erfcx */
        if (E->need[TC__OCL_H_ERFINV][i]) E->need[TC__OCL_H_ERFCX][i] = 1;
    if (E->c99) tc__ocl_c_scan(E);
}

TC__OCL_PRIVATE void tc__ocl_emit_divmod(tc__ocl_emitter *E, tc_dtype t) {
    const char *T = tc__ocl_ctype(E->c99, t), *sfx = tc__ocl_types[t].sfx;
    const char *W = tc__ocl_wrap(E->c99, t), *pre = E->c99 ? "TC_C_INLINE " : "";
    if (!tc__ocl_is_signed(t)) {
        tc__ocl_line(E, "%s%s tc_div_%s(%s x, %s y) { return y ? (%s)(x / y) : (%s)0; }", pre, T,
                     sfx, T, T, T, T);
        tc__ocl_line(E, "%s%s tc_mod_%s(%s x, %s y) { return y ? (%s)(x %% y) : (%s)0; }", pre, T,
                     sfx, T, T, T, T);
        return;
    }
    tc__ocl_line(E, "%s%s tc_div_%s(%s x, %s y)", pre, T, sfx, T, T);
    tc__ocl_line(E, "{");
    tc__ocl_line(E, "    %s q, r;", T);
    tc__ocl_line(E, "    if (y == 0) return 0;");
    tc__ocl_line(E, "    if (y == -1) return (%s)-(%s)x;", T, W);
    tc__ocl_line(E, "    q = (%s)(x / y);", T);
    tc__ocl_line(E, "    r = (%s)(x %% y);", T);
    tc__ocl_line(E, "    return (r != 0 && ((r < 0) != (y < 0))) ? (%s)(q - 1) : q;", T);
    tc__ocl_line(E, "}");
    tc__ocl_line(E, "%s%s tc_mod_%s(%s x, %s y)", pre, T, sfx, T, T);
    tc__ocl_line(E, "{");
    tc__ocl_line(E, "    %s r;", T);
    tc__ocl_line(E, "    if (y == 0 || y == -1) return 0;");
    tc__ocl_line(E, "    r = (%s)(x %% y);", T);
    tc__ocl_line(E, "    return (r != 0 && ((r < 0) != (y < 0))) ? (%s)(r + y) : r;", T);
    tc__ocl_line(E, "}");
}

TC__OCL_PRIVATE void tc__ocl_emit_helpers(tc__ocl_emitter *E) {
    int h, t, any = 0;
    for (t = 0; t < TC_DTYPE_COUNT; t++)
        if (E->need_div[t]) {
            if (!any) tc__ocl_line(E, "/* Integer / and %%: floor division, x / 0 = x %% 0 = 0 */");
            any = 1;
            tc__ocl_emit_divmod(E, (tc_dtype)t);
        }
    if (any) tc__ocl_line(E, "");
    if (E->need_bounds) {
        tc__ocl_line(E, "/* Gather bounds check: the first index out of range records");
        tc__ocl_line(E, "   (code, dimension, index low, index high) in tc_err. */");
        tc__ocl_line(E,
                     "int tc_in_bounds(long x, long n, __global int *tc_err, int code, int dim)");
        tc__ocl_line(E, "{");
        tc__ocl_line(E, "    if (x >= 0 && x < n) return 1;");
        tc__ocl_line(E, "    if (atomic_cmpxchg(tc_err, 0, code) == 0) {");
        tc__ocl_line(E, "        tc_err[1] = dim;");
        tc__ocl_line(E, "        tc_err[2] = as_int((uint)x);");
        tc__ocl_line(E, "        tc_err[3] = as_int((uint)(x >> 32));");
        tc__ocl_line(E, "    }");
        tc__ocl_line(E, "    return 0;");
        tc__ocl_line(E, "}");
        tc__ocl_line(E, "");
    }
    for (h = 0; h < TC__OCL_H_COUNT; h++)
        for (t = 0; t < 2; t++)
            if (E->need[h][t]) {
                tc__ocl_comment_line(E, "", tc__ocl_helper_text[h].doc);
                tc__ocl_put_template(E->c99, E->out, tc__ocl_helper_text[h].text,
                                     t ? TC_FLOAT64 : TC_FLOAT32);
                tc__ocl_line(E, "");
            }
}

TC__OCL_PRIVATE void tc__ocl_emit_header(tc__ocl_emitter *E, int fp64) {
    const tc_ir_def *d = E->d;
    int i, v;
    tc__ocl_line(E, "/* OpenCL C 1.2 for TC def %s (line %d), generated by tc_opencl.h.", d->name,
                 d->line);
    tc__ocl_line(E, "   One kernel per statement: each work-item computes one element of the");
    tc__ocl_line(E, "   written tensor and runs the reduction loops itself.");
    if (E->baked) {
        tc__ocl_str s;
        tc__ocl_str_init(&s, E->out->a);
        for (v = 0; v < d->n_sizevars; v++)
            for (i = 0; i < d->n_sx; i++)
                if (d->sx[i].op == TC_SX_VAR && d->sx[i].value == v) {
                    tc__ocl_printf(&s, "%s%s = %lld", s.len ? ", " : "", d->sizevars[v],
                                   (long long)E->baked[i]);
                    break;
                }
        tc__ocl_line(E, "   Sizes are baked in%s%s. */", s.len ? ": " : "", s.p ? s.p : "");
        if (s.oom) E->out->oom = 1;
        tc__ocl_str_free(&s);
    } else
        tc__ocl_line(E, "   Sizes are kernel arguments; tc_n is the number of work-items. */");
    tc__ocl_line(E, "#pragma OPENCL FP_CONTRACT OFF");
    if (fp64) tc__ocl_line(E, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable");
    tc__ocl_line(E, "");
}

/* The first float64 tensor or value of the def, for the error message. */
TC__OCL_PRIVATE tc_status tc__ocl_fp64_error(const tc_ir_def *d, tc_error *err) {
    int s, i;
    for (s = 0; s < d->n_stmts; s++) {
        const tc_ir_stmt *st = &d->stmts[s];
        if (d->tensors[st->tensor].dtype == TC_FLOAT64)
            return tc__ocl_error(err, TC_ERR_UNSUPPORTED,
                                 "tensor %s is float64, but the OpenCL device does not support "
                                 "double precision (cl_khr_fp64)", d->tensors[st->tensor].name);
        for (i = 0; i < st->n_nodes; i++)
            if (st->nodes[i].op == TC_IR_READ &&
                d->tensors[st->nodes[i].tensor].dtype == TC_FLOAT64)
                return tc__ocl_error(err, TC_ERR_UNSUPPORTED,
                                     "tensor %s is float64, but the OpenCL device does not support "
                                     "double precision (cl_khr_fp64)",
                                     d->tensors[st->nodes[i].tensor].name);
    }
    for (s = 0; s < d->n_stmts; s++)
        for (i = 0; i < d->stmts[s].n_nodes; i++)
            if (d->stmts[s].nodes[i].dtype == TC_FLOAT64)
                return tc__ocl_error(err, TC_ERR_UNSUPPORTED,
                                     "the statement at line %d computes in float64, but the "
                                     "OpenCL device does not support double precision "
                                     "(cl_khr_fp64)", d->stmts[s].line);
    return tc__ocl_error(err, TC_ERR_UNSUPPORTED, "float64 is not supported by the device");
}

/* Emits everything into E->out. */
TC__OCL_PRIVATE tc_status tc__ocl_emit_def(tc__ocl_emitter *E, int allow_fp64) {
    const tc_ir_def *d = E->d;
    int i, s, fp64 = 0, gathers = 0;
    tc__ocl_stmt_info info;
    for (s = 0; s < d->n_stmts; s++) {
        tc__ocl_analyze(d, E->baked, s, 0, &info);
        fp64 |= info.uses_fp64;
    }
    if (fp64 && !allow_fp64) return tc__ocl_fp64_error(d, E->err);
    E->tname = (char **)tc__ocl_arena_alloc(&E->A, (size_t)d->n_tensors + 1, sizeof(char *));
    E->vname = (char **)tc__ocl_arena_alloc(&E->A, (size_t)d->n_sizevars + 1, sizeof(char *));
    for (i = 0; E->tname && i < d->n_tensors; i++)
        E->tname[i] = tc__ocl_tensor_name(&E->A, E->c99, d->tensors[i].name, i);
    for (i = 0; E->vname && i < d->n_sizevars; i++)
        E->vname[i] = tc__ocl_name(&E->A, E->c99, d->sizevars[i]);
    if (E->A.oom) return TC_ERR_OUT_OF_MEMORY;
    tc__ocl_scan_helpers(E);
    tc__ocl_emit_header(E, fp64);
    tc__ocl_emit_helpers(E);
    for (s = 0; s < d->n_stmts && !E->failed && !E->A.oom; s++) {
        tc__ocl_emit_stmt(E, s, gathers);
        gathers += E->info.n_gathers;
    }
    if (E->failed) return E->err ? E->err->code : TC_ERR_LIMIT;
    if (E->A.oom || E->out->oom) return TC_ERR_OUT_OF_MEMORY;
    return TC_OK;
}

/* ==== [tc:ocl-c99] The C99 dialect: one function per def (tc_c_emit) ==========
   The same emitter, with E->c99 set: the statements become nested loops in
   one function, the sizes and checks a function of their own, and with
   TC_C_DRIVER_TABLES the tables and adapters a driver's main() uses. */

/* Names C99 or the emitted code reserves beyond OpenCL's: library
   functions and objects the emitted file uses, <math.h> (every builtin
   and its float and long double forms), and types (*_t). */
static const char *const tc__ocl_c_words[] = {
    "main", "malloc", "calloc", "realloc", "free", "memcpy", "memset", "memcmp", "strcmp",
    "strncmp", "strlen", "strchr", "strstr", "strtoll", "fopen", "fclose", "fread", "fwrite",
    "fprintf", "printf", "snprintf", "fputs", "fputc", "ferror", "FILE", "stderr", "stdout",
    "stdin", "EOF", "errno", "exit", "abort", "abs", "labs", "llabs", "div", "ldiv", "isfinite",
    "isnormal", "fpclassify", "signgam", "_Bool", "_Complex", "_Imaginary", "offsetof",
    "assert"};

TC__OCL_PRIVATE int tc__ocl_c_reserved(const char *s) {
    size_t n = strlen(s), i;
    int b;
    if (n > 2 && strcmp(s + n - 2, "_t") == 0) return 1;
    for (i = 0; i < sizeof tc__ocl_c_words / sizeof tc__ocl_c_words[0]; i++)
        if (strcmp(s, tc__ocl_c_words[i]) == 0) return 1;
    if (tc__ocl_c_is_math(s, n)) return 1;
    if (n > 1 && (s[n - 1] == 'f' || s[n - 1] == 'l') && tc__ocl_c_is_math(s, n - 1)) return 1;
    for (b = 0; b < TC_BUILTIN_COUNT; b++) {
        const char *bn = tc_builtin_name((tc_builtin)b);
        size_t m = strlen(bn);
        if (strncmp(s, bn, m) == 0 && (s[m] == '\0' || (s[m + 1] == '\0' && s[m] == 'f')))
            return 1;
    }
    return 0;
}

/* What the C file needs beyond the shared helpers. */
TC__OCL_PRIVATE void tc__ocl_c_scan(tc__ocl_emitter *E) {
    const tc_ir_def *d = E->d;
    int s, i;
    for (i = 0; i < d->n_tensors; i++)
        if (d->tensors[i].dtype == TC_FLOAT16) E->need_half_io = 1;
    if (E->need_half_io) E->need[TC__OCL_H_HALF][0] = 1; /* tc_f2h rounds with tc_half_f */
    if (E->need[TC__OCL_H_SIMPLE][0]) E->need[TC__OCL_H_C99][0] = 1; /* sinpi, cospi */
    if (E->need[TC__OCL_H_SIMPLE][1]) E->need[TC__OCL_H_C99][1] = 1;
    for (i = 0; i < d->n_sx && !E->baked; i++) {
        tc_sx_op op = d->sx[i].op;
        if (op == TC_SX_DIV || op == TC_SX_MOD) E->need_div[TC_INT64] = 1;
        if (op == TC_SX_MIN || op == TC_SX_MAX) E->need_minmax[TC_INT64] = 1;
    }
    for (s = 0; s < d->n_stmts; s++) {
        const tc_ir_stmt *st = &d->stmts[s];
        tc_dtype vt = st->nodes[st->value].dtype;
        if ((st->reduce == TC_REDUCE_MIN || st->reduce == TC_REDUCE_MAX) && tc__ocl_is_int(vt))
            E->need_minmax[vt] = 1;
        for (i = 0; i < st->n_nodes; i++) {
            const tc_ir_node *nd = &st->nodes[i];
            tc_dtype at = nd->nargs > 0 ? st->nodes[nd->args[0]].dtype : nd->dtype;
            if ((nd->op == TC_IR_MIN || nd->op == TC_IR_MAX) && tc__ocl_is_int(at))
                E->need_minmax[at] = 1;
            if (nd->op == TC_IR_CAST && tc__ocl_is_float(at) && tc__ocl_is_int(nd->dtype))
                E->need_sat[nd->dtype][at == TC_FLOAT64] = 1;
        }
    }
}

/* #ifndef guards, so that several emitted files can be one translation unit. */
TC__OCL_PRIVATE void tc__ocl_c_guard(tc__ocl_emitter *E, const char *what, const char *sfx) {
    tc__ocl_line(E, "#ifndef TC_C_HELPER_%s_%s", what, sfx);
    tc__ocl_line(E, "#define TC_C_HELPER_%s_%s", what, sfx);
}

/* Size arithmetic: int64, overflow noted in *o (the VM's tc_sx_eval fails there). */
static const char tc__ocl_c_sx_text[] =
    "TC_C_INLINE int64_t tc_sx_add(int64_t a, int64_t b, int *o)\n{\n"
    "    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) *o = 1;\n"
    "    return (int64_t)((uint64_t)a + (uint64_t)b);\n}\n"
    "TC_C_INLINE int64_t tc_sx_sub(int64_t a, int64_t b, int *o)\n{\n"
    "    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) *o = 1;\n"
    "    return (int64_t)((uint64_t)a - (uint64_t)b);\n}\n"
    "TC_C_INLINE int64_t tc_sx_mul(int64_t a, int64_t b, int *o)\n{\n"
    "    if (a != 0 && b != 0) {\n"
    "        if ((a == -1 && b == INT64_MIN) || (b == -1 && a == INT64_MIN)) *o = 1;\n"
    "        else if (a != -1 && b != -1) {\n"
    "            int64_t q = (int64_t)((uint64_t)a * (uint64_t)b);\n"
    "            if (q / b != a) *o = 1;\n"
    "        }\n"
    "    }\n"
    "    return (int64_t)((uint64_t)a * (uint64_t)b);\n}\n";

/* float16 storage as bits: exact widening, and narrowing that rounds to
   nearest even (tc_half_f) then packs. */
static const char tc__ocl_c_half_text[] =
    "TC_C_INLINE float tc_h2f(uint16_t h)\n{\n"
    "    int e = (h >> 10) & 31, m = h & 1023;\n"
    "    float v = e == 31 ? (m ? NAN : INFINITY)\n"
    "            : e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(m | 1024), e - 25);\n"
    "    return (h & 0x8000) ? -v : v;\n}\n"
    "TC_C_INLINE uint16_t tc_f2h(float x)\n{\n"
    "    uint16_t s = signbit(x) ? 0x8000 : 0;\n"
    "    float a;\n"
    "    int e;\n"
    "    if (x != x) return (uint16_t)(s | 0x7e00);\n"
    "    a = fabsf(tc_half_f(x));\n"
    "    if (isinf(a)) return (uint16_t)(s | 0x7c00);\n"
    "    if (a < 6.103515625e-05f) return (uint16_t)(s | (uint16_t)(a * 16777216.0f));\n"
    "    a = frexpf(a, &e);\n"
    "    return (uint16_t)(s | (uint16_t)((e + 14) << 10) | (uint16_t)(a * 2048.0f - 1024.0f));\n"
    "}\n";

/* Integer min/max (the VM's: y when y is smaller/larger, else x). */
TC__OCL_PRIVATE void tc__ocl_c_minmax(tc__ocl_emitter *E, tc_dtype t) {
    const char *T = tc__ocl_ctype(1, t), *sfx = tc__ocl_types[t].sfx;
    tc__ocl_c_guard(E, "MINMAX", sfx);
    tc__ocl_line(E, "TC_C_INLINE %s tc_min_%s(%s x, %s y) { return y < x ? y : x; }", T, sfx, T, T);
    tc__ocl_line(E, "TC_C_INLINE %s tc_max_%s(%s x, %s y) { return y > x ? y : x; }", T, sfx, T, T);
    tc__ocl_line(E, "#endif");
}
/* float -> integer casts: toward zero, saturating, NaN -> 0 (convert_T_sat_rtz). */
TC__OCL_PRIVATE void tc__ocl_c_sat(tc__ocl_emitter *E, tc_dtype to, int dbl) {
    static const char *const lim[][2] = {{"", ""}, {"", ""}, /* unset, bool */
        {"-128.0", "128.0"}, {"-32768.0", "32768.0"}, {"-2147483648.0", "2147483648.0"},
        {"-9223372036854775808.0", "9223372036854775808.0"}, {"-1.0", "256.0"},
        {"-1.0", "65536.0"}, {"-1.0", "4294967296.0"}, {"-1.0", "18446744073709551616.0"}};
    static const char *const ext[][2] = {{"", ""}, {"", ""}, {"INT8_MIN", "INT8_MAX"},
        {"INT16_MIN", "INT16_MAX"}, {"INT32_MIN", "INT32_MAX"}, {"INT64_MIN", "INT64_MAX"},
        {"0", "UINT8_MAX"}, {"0", "UINT16_MAX"}, {"0", "UINT32_MAX"}, {"0", "UINT64_MAX"}};
    const char *T = tc__ocl_ctype(1, to), *F = dbl ? "double" : "float", *f = dbl ? "" : "f";
    char g[32];
    snprintf(g, sizeof g, "%s_%s", tc__ocl_types[to].sfx, dbl ? "d" : "f");
    tc__ocl_c_guard(E, "SAT", g);
    tc__ocl_line(E, "TC_C_INLINE %s tc_sat_%s(%s x)", T, g, F);
    tc__ocl_line(E, "{");
    tc__ocl_line(E, "    if (x != x) return 0;");
    tc__ocl_line(E, "    if (x <= %s%s) return %s;", lim[to][0], f, ext[to][0]);
    tc__ocl_line(E, "    if (x >= %s%s) return %s;", lim[to][1], f, ext[to][1]);
    tc__ocl_line(E, "    return (%s)x;", T);
    tc__ocl_line(E, "}");
    tc__ocl_line(E, "#endif");
}

/* Every helper the def needs, each under its guard. */
TC__OCL_PRIVATE void tc__ocl_c_helpers(tc__ocl_emitter *E) {
    int h, t;
    tc__ocl_c_guard(E, "SX", "I64");
    tc__ocl_puts(E->out, "/* Size arithmetic in int64; an overflow sets *o. */\n");
    tc__ocl_puts(E->out, tc__ocl_c_sx_text);
    tc__ocl_line(E, "#endif");
    for (t = 0; t < TC_DTYPE_COUNT; t++)
        if (E->need_div[t]) {
            tc__ocl_c_guard(E, "DIV", tc__ocl_types[t].sfx);
            tc__ocl_line(E, "/* Integer / and %%: floor division, x / 0 = x %% 0 = 0 */");
            tc__ocl_emit_divmod(E, (tc_dtype)t);
            tc__ocl_line(E, "#endif");
        }
    for (t = 0; t < TC_DTYPE_COUNT; t++)
        if (E->need_minmax[t]) tc__ocl_c_minmax(E, (tc_dtype)t);
    for (t = 0; t < TC_DTYPE_COUNT; t++) {
        if (E->need_sat[t][0]) tc__ocl_c_sat(E, (tc_dtype)t, 0);
        if (E->need_sat[t][1]) tc__ocl_c_sat(E, (tc_dtype)t, 1);
    }
    for (h = 0; h < TC__OCL_H_COUNT; h++)
        for (t = 0; t < 2; t++)
            if (E->need[h][t]) {
                char id[16];
                snprintf(id, sizeof id, "%d", h);
                tc__ocl_c_guard(E, id, t ? "d" : "f");
                tc__ocl_comment_line(E, "", tc__ocl_helper_text[h].doc);
                tc__ocl_put_template(1, E->out, tc__ocl_helper_text[h].text,
                                     t ? TC_FLOAT64 : TC_FLOAT32);
                tc__ocl_line(E, "#endif");
            }
    if (E->need_half_io) {
        tc__ocl_c_guard(E, "HALF", "IO");
        tc__ocl_puts(E->out, "/* float16 tensors are stored as their bits */\n");
        tc__ocl_puts(E->out, tc__ocl_c_half_text);
        tc__ocl_line(E, "#endif");
    }
    tc__ocl_line(E, "");
}

/* -- loop order -------------------------------------------------------- */

/* dep[i]: node i depends on loop l. */
TC__OCL_PRIVATE void tc__ocl_c_deps(const tc__ocl_emitter *E, int l, unsigned char *dep) {
    const tc_ir_stmt *st = E->st;
    int i, k;
    for (i = 0; i < st->n_nodes; i++) {
        const tc_ir_node *nd = &st->nodes[i];
        dep[i] = (unsigned char)(nd->op == TC_IR_INDEX && nd->loop == l);
        for (k = 0; k < nd->nargs; k++) dep[i] |= dep[nd->args[k]];
        for (k = 0; nd->op == TC_IR_READ && k < E->d->tensors[nd->tensor].rank; k++)
            dep[i] |= (unsigned char)(nd->index[k].affine ? nd->index[k].coef[l] != 0
                                                          : dep[nd->index[k].node]);
    }
}
/* Every read that moves with loop l walks memory with unit stride: l in
   its last dimension, coefficient 1, and in no other dimension. */
TC__OCL_PRIVATE int tc__ocl_c_unit_stride(tc__ocl_emitter *E, int l) {
    const tc_ir_stmt *st = E->st;
    unsigned char *dep = (unsigned char *)tc__ocl_arena_alloc(&E->A, (size_t)st->n_nodes + 1, 1);
    int i, k;
    if (!dep) return 0;
    tc__ocl_c_deps(E, l, dep);
    for (i = 0; i < st->n_nodes; i++) {
        const tc_ir_node *nd = &st->nodes[i];
        int r = nd->op == TC_IR_READ ? E->d->tensors[nd->tensor].rank : 0;
        if (nd->op != TC_IR_READ || !dep[i]) continue;
        if (r == 0 || !nd->index[r - 1].affine || nd->index[r - 1].coef[l] != 1) return 0;
        for (k = 0; k < r - 1; k++)
            if (nd->index[k].affine ? nd->index[k].coef[l] != 0 : dep[nd->index[k].node])
                return 0;
    }
    return 1;
}
/* THE LOOP-ORDER RULE. A reduction whose innermost output loop j (the
   written tensor's contiguous dimension) is unit-stride for every read
   that moves with it runs i-k-j: the output loops but j, the reduction
   loops, then j, accumulating into the output (after the `!` fill), so a
   compiler vectorises along j: matmul (B(k,j), C(i,j); A(i,k) is one value
   per row), batched matmul, convolutions (I(n,c,h+kh,w+kw) along w), column
   sums. Otherwise (j strides or there is no output loop: row sums, matvec,
   dot products, A * B^T, pooling with stride 2) a scalar accumulator
   inside the output loops: for i, j: acc = init; for k: acc op= v; store.
   A convolution goes along the output row too, although its innermost
   reduction (kw) is unit-stride: a reduction of 3 steps gives the compiler
   no vector loop, the output row does. Either way each element's reduction runs in ascending order of
   the reduction indices, the IR's (and tests/ref_eval.h's), so without
   -ffast-math the results equal a plain serial evaluation. Not for
   float16 outputs (memory would round every step), nor statements that
   read what they write (those run the IR's loop order). */
TC__OCL_PRIVATE int tc__ocl_c_ikj(tc__ocl_emitter *E) {
    const tc_ir_stmt *st = E->st;
    int r = E->info.n_lhs;
    if (E->info.reads_self || r == 0 || st->n_loops == r || st->reduce == TC_REDUCE_ASSIGN ||
        E->d->tensors[st->tensor].dtype == TC_FLOAT16)
        return 0;
    return tc__ocl_c_unit_stride(E, r - 1);
}

/* The `!` fill: every element of the written tensor set to the identity. */
TC__OCL_PRIVATE void tc__ocl_c_fill(tc__ocl_emitter *E) {
    const tc_ir_tensor *t = &E->d->tensors[E->st->tensor];
    tc__ocl_str n, id;
    int k;
    tc__ocl_str_init(&n, E->out->a);
    tc__ocl_str_init(&id, E->out->a);
    tc__ocl_put_identity(1, &id, E->st->reduce, E->st->nodes[E->st->value].dtype);
    for (k = 0; k < t->rank; k++) {
        if (k) tc__ocl_puts(&n, " * ");
        tc__ocl_put_sx(E, &n, t->extent[k]);
    }
    if (t->rank == 0) tc__ocl_puts(&n, "1");
    if (n.oom || id.oom) E->out->oom = 1;
    else {
        tc__ocl_line(E, "for (int64_t tc_r = 0; tc_r < %s; tc_r++) /* `!` */", n.p);
        E->indent++;
        tc__ocl_store_line(E, E->st->tensor, "tc_r", id.p);
        E->indent--;
    }
    tc__ocl_str_free(&n);
    tc__ocl_str_free(&id);
}

/* Before the statement's outermost loop when it is an output loop and no
   gather can stop the run inside it: the loop is shared over OpenMP's
   threads when the C is compiled with -fopenmp (each iteration writes its
   own elements), and nothing without it. */
TC__OCL_PRIVATE void tc__ocl_c_parallel(tc__ocl_emitter *E) {
    int n;
    for (n = 0; n < E->st->n_nodes; n++)
        if (tc__ocl_is_gather(E->d, &E->st->nodes[n])) return;
    tc__ocl_line(E, "#if defined(_OPENMP)");
    tc__ocl_line(E, "#pragma omp parallel for");
    tc__ocl_line(E, "#endif");
}

/* One statement as a block of nested loops. */
TC__OCL_PRIVATE void tc__ocl_c_stmt(tc__ocl_emitter *E) {
    const tc_ir_stmt *st = E->st;
    int l, r = E->info.n_lhs, ikj = tc__ocl_c_ikj(E);
    tc__ocl_str off;
    tc__ocl_str_init(&off, E->out->a);
    tc__ocl_comment_line(E, "", st->text);
    tc__ocl_line(E, "{");
    E->indent++;
    if (E->info.init_kernel || (ikj && st->init)) tc__ocl_c_fill(E);
    tc__ocl_put_lhs_offset(E, &off);
    if (off.oom) E->out->oom = 1;
    else if (E->info.reads_self) {
        if (E->info.serial)
            tc__ocl_comment_line(E, "", "reads the tensor it writes at other elements: loop order");
        E->info.serial = 1; /* every loop, in order, through memory */
        tc__ocl_body(E, off.p);
    } else if (ikj) {
        tc__ocl_comment_line(E, "", "i-k-j order: the innermost loop walks the output row");
        if (r > 1) tc__ocl_c_parallel(E);
        for (l = 0; l < r - 1; l++) tc__ocl_for(E, l);
        for (l = r; l < st->n_loops; l++) tc__ocl_for(E, l);
        tc__ocl_for(E, r - 1);
        tc__ocl_update(E, off.p, 1);
        for (l = 0; l < st->n_loops; l++) tc__ocl_end(E);
    } else {
        if (r > 0) tc__ocl_c_parallel(E);
        for (l = 0; l < r; l++) tc__ocl_for(E, l);
        tc__ocl_body(E, off.p);
        for (l = 0; l < r; l++) tc__ocl_end(E);
    }
    E->indent--;
    tc__ocl_line(E, "}");
    tc__ocl_str_free(&off);
}

/* -- the sizes function ------------------------------------------------ */

/* Parameter list: typed tensors (inputs const), then size variables
   unless baked. which: 0 inputs only (the sizes function), 1 all tensors
   of the interface (inputs then outputs), restrict-qualified. */
TC__OCL_PRIVATE void tc__ocl_c_params(tc__ocl_emitter *E, tc__ocl_str *p, int all) {
    const tc_ir_def *d = E->d;
    int i, n = all ? d->n_inputs + d->n_outputs : d->n_inputs, any = 0;
    for (i = 0; i < n; i++, any = 1)
        tc__ocl_printf(p, "%s%s%s *%s%s", any ? ", " : "", i < d->n_inputs ? "const " : "",
                       tc__ocl_storage(1, d->tensors[i].dtype), all ? "restrict " : "",
                       E->tname[i]);
    for (i = 0; !E->baked && i < d->n_sizevars; i++, any = 1)
        tc__ocl_printf(p, "%sint64_t %s", any ? ", " : "", E->vname[i]);
}
/* The arguments matching tc__ocl_c_params(E, p, all) (names only). */
TC__OCL_PRIVATE void tc__ocl_c_args(tc__ocl_emitter *E, tc__ocl_str *p, int all) {
    const tc_ir_def *d = E->d;
    int i, n = all ? d->n_inputs + d->n_outputs : d->n_inputs, any = 0;
    for (i = 0; i < n; i++, any = 1) tc__ocl_printf(p, "%s%s", any ? ", " : "", E->tname[i]);
    for (i = 0; !E->baked && i < d->n_sizevars; i++, any = 1)
        tc__ocl_printf(p, "%s%s", any ? ", " : "", E->vname[i]);
}

/* sx id as the sizes function reads it: a literal, a size variable, or an
   earlier tc_sx entry. */
TC__OCL_PRIVATE void tc__ocl_c_sxref(tc__ocl_emitter *E, tc__ocl_str *s, int id) {
    const tc_sx *x = &E->d->sx[id];
    if (E->baked) tc__ocl_put_i64(1, s, E->baked[id]);
    else if (x->op == TC_SX_CONST) tc__ocl_put_i64(1, s, x->value);
    else if (x->op == TC_SX_VAR) tc__ocl_puts(s, E->vname[x->value]);
    else tc__ocl_printf(s, "tc_sx[%d]", id);
}
/* tc_sx[id] = its value (symbolic sizes). */
TC__OCL_PRIVATE void tc__ocl_c_sx_line(tc__ocl_emitter *E, int id) {
    static const char *const cmp[] = {"<", "<=", ">", ">=", "==", "!=", "&&", "||"};
    const tc_sx *x = &E->d->sx[id];
    tc__ocl_str a, b, v;
    tc__ocl_str_init(&a, E->out->a);
    tc__ocl_str_init(&b, E->out->a);
    tc__ocl_str_init(&v, E->out->a);
    if (x->op >= TC_SX_ADD) {
        tc__ocl_c_sxref(E, &a, x->a);
        tc__ocl_c_sxref(E, &b, x->b);
    }
    if (a.oom || b.oom) v.oom = 1;
    else switch (x->op) {
    case TC_SX_CONST: case TC_SX_VAR: tc__ocl_c_sxref(E, &v, id); break;
    case TC_SX_SCALAR: {
        const char *nm = E->tname[x->value];
        if (E->d->tensors[x->value].dtype == TC_UINT64)
            tc__ocl_line(E, "if (%s[0] > (uint64_t)INT64_MAX) return 4;", nm);
        tc__ocl_printf(&v, "(int64_t)%s[0]", nm);
        break;
    }
    case TC_SX_ADD: tc__ocl_printf(&v, "tc_sx_add(%s, %s, &tc_ovf)", a.p, b.p); break;
    case TC_SX_SUB: tc__ocl_printf(&v, "tc_sx_sub(%s, %s, &tc_ovf)", a.p, b.p); break;
    case TC_SX_MUL: tc__ocl_printf(&v, "tc_sx_mul(%s, %s, &tc_ovf)", a.p, b.p); break;
    case TC_SX_DIV: tc__ocl_printf(&v, "tc_div_i64(%s, %s)", a.p, b.p); break;
    case TC_SX_MOD: tc__ocl_printf(&v, "tc_mod_i64(%s, %s)", a.p, b.p); break;
    case TC_SX_MIN: tc__ocl_printf(&v, "tc_min_i64(%s, %s)", a.p, b.p); break;
    case TC_SX_MAX: tc__ocl_printf(&v, "tc_max_i64(%s, %s)", a.p, b.p); break;
    case TC_SX_SELECT: {
        tc__ocl_str c;
        tc__ocl_str_init(&c, E->out->a);
        tc__ocl_c_sxref(E, &c, (int)x->value);
        tc__ocl_printf(&v, "%s ? %s : %s", c.p ? c.p : "0", a.p, b.p);
        tc__ocl_str_free(&c);
        break;
    }
    case TC_SX_OP_COUNT: break;
    default: tc__ocl_printf(&v, "(int64_t)(%s %s %s)", a.p, cmp[x->op - TC_SX_LT], b.p); break;
    }
    if (v.oom) E->out->oom = 1;
    else tc__ocl_line(E, "tc_sx[%d] = %s;", id, v.p ? v.p : "0");
    tc__ocl_str_free(&a);
    tc__ocl_str_free(&b);
    tc__ocl_str_free(&v);
}

/* The domain of statement s is not empty (for checks that apply only then). */
TC__OCL_PRIVATE void tc__ocl_c_nonempty(tc__ocl_emitter *E, tc__ocl_str *s, int stmt) {
    const tc_ir_stmt *st = &E->d->stmts[stmt];
    int l;
    for (l = 0; l < st->n_loops; l++) {
        tc__ocl_puts(s, l ? " && " : "");
        tc__ocl_c_sxref(E, s, st->loops[l].hi);
        tc__ocl_puts(s, " > ");
        tc__ocl_c_sxref(E, s, st->loops[l].lo);
    }
    if (st->n_loops == 0) tc__ocl_puts(s, "1");
}

/* Nodes evaluated wherever the statement runs: not those only under a
   branch of ?: or the right of && and || (tc.h's tc__vm_mark_sure). */
TC__OCL_PRIVATE void tc__ocl_c_mark_sure(const tc_ir_def *d, const tc_ir_stmt *st,
                                         unsigned char *sure) {
    int i, k;
    memset(sure, 0, (size_t)st->n_nodes + 1);
    sure[st->value] = 1;
    for (i = st->n_nodes - 1; i >= 0; i--) {
        const tc_ir_node *nd = &st->nodes[i];
        int n = nd->op == TC_IR_SELECT || nd->op == TC_IR_AND || nd->op == TC_IR_OR ? 1 : nd->nargs;
        if (!sure[i]) continue;
        for (k = 0; k < n && k < 4; k++) sure[nd->args[k]] = 1;
        for (k = 0; nd->op == TC_IR_READ && k < d->tensors[nd->tensor].rank; k++)
            if (!nd->index[k].affine) sure[nd->index[k].node] = 1;
    }
}
/* One dimension's index is loop l itself over [0, extent): nothing to check. */
TC__OCL_PRIVATE int tc__ocl_c_trivial(tc__ocl_emitter *E, const tc_ir_stmt *st,
                                      const tc_ir_index *ix, int ext) {
    int l, one = -1;
    if (!tc__ocl_sx_is(E->d, E->baked, ix->offset, 0)) return 0;
    for (l = 0; l < st->n_loops; l++) {
        if (ix->coef[l] == 0) continue;
        if (ix->coef[l] != 1 || one >= 0) return 0;
        one = l;
    }
    return one >= 0 && tc__ocl_sx_is(E->d, E->baked, st->loops[one].lo, 0) &&
           tc__ocl_sx_same(E->d, E->baked, st->loops[one].hi, ext);
}
/* The lowest (hi 0) or highest (hi 1) value of an affine index over the
   statement's loops, in int64 with overflow noted: offset + the sum of
   coef * (lo or hi - 1), terms that are 0 left out. */
TC__OCL_PRIVATE void tc__ocl_c_span_end(tc__ocl_emitter *E, tc__ocl_str *s, const tc_ir_stmt *st,
                                        const tc_ir_index *ix, int hi) {
    tc__ocl_str acc, term;
    int l, n = 0;
    tc__ocl_str_init(&acc, E->out->a);
    if (!tc__ocl_sx_is(E->d, E->baked, ix->offset, 0)) {
        tc__ocl_c_sxref(E, &acc, ix->offset);
        n++;
    }
    for (l = 0; l < st->n_loops; l++) {
        int64_t c = ix->coef[l];
        int up = (c > 0) == (hi != 0);
        if (c == 0 || (!up && tc__ocl_sx_is(E->d, E->baked, st->loops[l].lo, 0))) continue;
        tc__ocl_str_init(&term, E->out->a);
        if (c != 1) {
            tc__ocl_puts(&term, "tc_sx_mul(");
            tc__ocl_put_i64(1, &term, c);
            tc__ocl_puts(&term, ", ");
        }
        tc__ocl_c_sxref(E, &term, up ? st->loops[l].hi : st->loops[l].lo);
        if (up) tc__ocl_puts(&term, " - 1");
        if (c != 1) tc__ocl_puts(&term, ", &tc_ovf)");
        if (n++ == 0) tc__ocl_puts(&acc, term.p ? term.p : "0");
        else {
            tc__ocl_str t2;
            tc__ocl_str_init(&t2, E->out->a);
            tc__ocl_printf(&t2, "tc_sx_add(%s, %s, &tc_ovf)", acc.p ? acc.p : "0",
                           term.p ? term.p : "0");
            if (term.oom || acc.oom) t2.oom = 1;
            tc__ocl_str_free(&acc);
            acc = t2;
        }
        tc__ocl_str_free(&term);
    }
    if (n == 0) tc__ocl_puts(&acc, "0");
    if (acc.oom) s->oom = 1;
    else tc__ocl_puts(s, acc.p);
    tc__ocl_str_free(&acc);
}
/* The backstop behind range inference's proofs (tc_bind_sizes has it
   too): each statement's write and the affine reads it surely makes lie
   inside their tensors, or the call returns 1 before writing anything. */
TC__OCL_PRIVATE void tc__ocl_c_spans(tc__ocl_emitter *E) {
    const tc_ir_def *d = E->d;
    int s, i, k, l, lines = 0;
    for (s = 0; s < d->n_stmts; s++) {
        const tc_ir_stmt *st = &d->stmts[s];
        const tc_ir_tensor *w = &d->tensors[st->tensor];
        unsigned char *sure = (unsigned char *)tc__ocl_arena_alloc(&E->A, (size_t)st->n_nodes + 1, 1);
        tc__ocl_str lhs, all, c;
        if (!sure) return;
        tc__ocl_str_init(&lhs, E->out->a);
        tc__ocl_str_init(&all, E->out->a);
        for (l = 0; l < st->n_loops; l++) {
            tc__ocl_str *t = l < w->rank ? &lhs : &all;
            tc__ocl_puts(t, t->len ? " && " : "");
            tc__ocl_c_sxref(E, t, st->loops[l].hi);
            tc__ocl_puts(t, " > ");
            tc__ocl_c_sxref(E, t, st->loops[l].lo);
        }
        if (!lhs.len) tc__ocl_puts(&lhs, "1");
        for (k = 0; k < w->rank; k++) {
            const tc_sx *lo = &d->sx[st->loops[k].lo];
            int lo_ok = E->baked ? E->baked[st->loops[k].lo] >= 0
                                 : lo->op == TC_SX_CONST && lo->value >= 0;
            int hi_ok = tc__ocl_sx_same(d, E->baked, st->loops[k].hi, w->extent[k]);
            if (lo_ok && hi_ok) continue;
            tc__ocl_str_init(&c, E->out->a);
            if (!lo_ok) {
                tc__ocl_c_sxref(E, &c, st->loops[k].lo);
                tc__ocl_puts(&c, hi_ok ? " < 0" : " < 0 || ");
            }
            if (!hi_ok) {
                tc__ocl_c_sxref(E, &c, st->loops[k].hi);
                tc__ocl_puts(&c, " > ");
                tc__ocl_c_sxref(E, &c, w->extent[k]);
            }
            if (c.oom || lhs.oom) E->out->oom = 1;
            else tc__ocl_line(E, "if ((%s) && (%s)) return 1; /* line %d writes %s */", lhs.p, c.p,
                              st->line, w->name);
            lines++;
            tc__ocl_str_free(&c);
        }
        if (all.len) tc__ocl_puts(&all, " && ");
        tc__ocl_puts(&all, lhs.p ? lhs.p : "1");
        tc__ocl_c_mark_sure(d, st, sure);
        for (i = 0; i < st->n_nodes; i++) {
            const tc_ir_node *nd = &st->nodes[i];
            if (nd->op != TC_IR_READ || !sure[i]) continue;
            for (k = 0; k < d->tensors[nd->tensor].rank; k++) {
                const tc_ir_index *ix = &nd->index[k];
                int ext = d->tensors[nd->tensor].extent[k];
                if (!ix->affine || tc__ocl_c_trivial(E, st, ix, ext)) continue;
                tc__ocl_str_init(&c, E->out->a);
                tc__ocl_c_span_end(E, &c, st, ix, 0);
                if (c.p && strcmp(c.p, "0") == 0) c.len = 0, c.p[0] = '\0'; /* min 0 */
                else tc__ocl_puts(&c, " < 0 || ");
                tc__ocl_c_span_end(E, &c, st, ix, 1);
                tc__ocl_puts(&c, " >= ");
                tc__ocl_c_sxref(E, &c, ext);
                if (c.oom || all.oom) E->out->oom = 1;
                else tc__ocl_line(E, "if ((%s) && (%s)) return 1; /* line %d reads %s */", all.p, c.p,
                                  st->line, d->tensors[nd->tensor].name);
                lines++;
                tc__ocl_str_free(&c);
            }
        }
        tc__ocl_str_free(&lhs);
        tc__ocl_str_free(&all);
    }
    if (lines) tc__ocl_line(E, "if (tc_ovf) return 4;");
}

/* tc_sx[i] = every size expression's value (baked: the literal, and a
   0-rank size input must still hold the value it had). */
TC__OCL_PRIVATE void tc__ocl_c_sx_values(tc__ocl_emitter *E) {
    const tc_ir_def *d = E->d;
    int i;
    for (i = 0; i < d->n_sx; i++) {
        tc__ocl_str v;
        if (!E->baked) {
            tc__ocl_c_sx_line(E, i);
            continue;
        }
        tc__ocl_str_init(&v, E->out->a);
        tc__ocl_put_i64(1, &v, E->baked[i]);
        if (v.oom) E->out->oom = 1;
        else tc__ocl_line(E, "tc_sx[%d] = %s;", i, v.p);
        tc__ocl_str_free(&v);
        if (d->sx[i].op == TC_SX_SCALAR)
            tc__ocl_line(E, "if ((int64_t)%s[0] != tc_sx[%d]) return 4;", E->tname[d->sx[i].value],
                         i);
    }
}
/* Extents are not negative (each sx once), and each output's and
   temporary's byte count fits in int64. */
TC__OCL_PRIVATE void tc__ocl_c_extents(tc__ocl_emitter *E) {
    const tc_ir_def *d = E->d;
    int i, k;
    for (i = 0; i < d->n_tensors; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        tc__ocl_str n;
        for (k = 0; k < t->rank; k++) {
            int j, l, seen = 0;
            for (j = 0; j <= i && !seen; j++)
                for (l = 0; l < (j < i ? d->tensors[j].rank : k); l++)
                    seen |= d->tensors[j].extent[l] == t->extent[k];
            if (!seen && (d->sx[t->extent[k]].op != TC_SX_CONST || E->baked))
                tc__ocl_line(E, "if (tc_sx[%d] < 0) return 4; /* %s dimension %d */", t->extent[k],
                             t->name, k);
        }
        if (t->kind == TC_TENSOR_INPUT || t->rank == 0) continue;
        tc__ocl_str_init(&n, E->out->a);
        tc__ocl_printf(&n, "%d", (int)tc_dtype_size(t->dtype));
        for (k = 0; k < t->rank; k++) {
            tc__ocl_str m;
            tc__ocl_str_init(&m, E->out->a);
            tc__ocl_printf(&m, "tc_sx_mul(%s, tc_sx[%d], &tc_ovf)", n.p ? n.p : "1", t->extent[k]);
            if (n.oom) m.oom = 1;
            tc__ocl_str_free(&n);
            n = m;
        }
        if (n.oom) E->out->oom = 1;
        else tc__ocl_line(E, "(void)%s; /* bytes of %s */", n.p, t->name);
        tc__ocl_str_free(&n);
    }
    tc__ocl_line(E, "if (tc_ovf) return 4;");
}
/* The def's run-time checks (tc_ir_check), each with what it guards. */
TC__OCL_PRIVATE void tc__ocl_c_checks(tc__ocl_emitter *E) {
    const tc_ir_def *d = E->d;
    int i;
    for (i = 0; i < d->n_checks; i++) {
        const tc_ir_check *c = &d->checks[i];
        tc__ocl_str cond;
        tc__ocl_str_init(&cond, E->out->a);
        if (c->stmt >= 0 && c->stmt < d->n_stmts) {
            tc__ocl_c_nonempty(E, &cond, c->stmt);
            tc__ocl_puts(&cond, " && ");
        }
        tc__ocl_puts(&cond, "!(");
        tc__ocl_c_sxref(E, &cond, c->a);
        tc__ocl_puts(&cond, c->kind == TC_CHECK_LE ? " <= " : " == ");
        tc__ocl_c_sxref(E, &cond, c->b);
        tc__ocl_puts(&cond, ")");
        tc__ocl_comment_line(E, "", c->what ? c->what : "check");
        if (cond.oom) E->out->oom = 1;
        else tc__ocl_line(E, "if (%s) return 1;", cond.p);
        tc__ocl_str_free(&cond);
    }
}
/* static int tc_<def>_sizes(inputs, sizes, int64_t *tc_sx): the size
   values, extents, checks and spans, in tc_bind_sizes's order. */
TC__OCL_PRIVATE void tc__ocl_c_sizes_fn(tc__ocl_emitter *E, const char *fn) {
    const tc_ir_def *d = E->d;
    tc__ocl_str p;
    int i;
    tc__ocl_str_init(&p, E->out->a);
    tc__ocl_c_params(E, &p, 0);
    tc__ocl_line(E, "/* Every size expression of %s into tc_sx; 0, 1 (a run-time check fails)", d->name);
    tc__ocl_line(E, "   or 4 (a size overflows 64 bits or is negative, or a 0-rank size input");
    tc__ocl_line(E, "   does not hold the value baked in). */");
    tc__ocl_line(E, "static int tc_%s_sizes(%s%sint64_t *tc_sx)", fn, p.p ? p.p : "", p.len ? ", " : "");
    tc__ocl_line(E, "{");
    E->indent++;
    tc__ocl_line(E, "int tc_ovf = 0;");
    tc__ocl_line(E, "(void)tc_sx;");
    for (i = 0; i < d->n_inputs; i++) tc__ocl_line(E, "(void)%s;", E->tname[i]);
    for (i = 0; !E->baked && i < d->n_sizevars; i++) tc__ocl_line(E, "(void)%s;", E->vname[i]);
    tc__ocl_c_sx_values(E);
    tc__ocl_c_extents(E);
    tc__ocl_c_checks(E);
    tc__ocl_c_spans(E);
    tc__ocl_line(E, "return 0;");
    E->indent--;
    tc__ocl_line(E, "}");
    tc__ocl_line(E, "");
    if (p.oom) E->out->oom = 1;
    tc__ocl_str_free(&p);
}

/* -- the def's function ------------------------------------------------ */

/* Does any statement name tensor t? */
TC__OCL_PRIVATE int tc__ocl_c_mentions(const tc_ir_def *d, int t) {
    int s, i;
    for (s = 0; s < d->n_stmts; s++) {
        if (d->stmts[s].tensor == t) return 1;
        for (i = 0; i < d->stmts[s].n_nodes; i++)
            if (d->stmts[s].nodes[i].op == TC_IR_READ && d->stmts[s].nodes[i].tensor == t)
                return 1;
    }
    return 0;
}

/* The temporaries: zeroed (as the VM's), all freed on every return. */
TC__OCL_PRIVATE void tc__ocl_c_temps(tc__ocl_emitter *E, int alloc) {
    const tc_ir_def *d = E->d;
    int i, k, first = d->n_inputs + d->n_outputs;
    tc__ocl_str any;
    if (first >= d->n_tensors) return;
    if (!alloc) {
        for (i = first; i < d->n_tensors; i++) tc__ocl_line(E, "free(%s);", E->tname[i]);
        return;
    }
    tc__ocl_str_init(&any, E->out->a);
    for (i = first; i < d->n_tensors; i++) {
        const tc_ir_tensor *t = &d->tensors[i];
        const char *T = tc__ocl_storage(1, t->dtype);
        tc__ocl_str n;
        tc__ocl_str_init(&n, E->out->a);
        for (k = 0; k < t->rank; k++) {
            tc__ocl_puts(&n, k ? " * (size_t)" : "(size_t)");
            tc__ocl_put_sx(E, &n, t->extent[k]);
        }
        if (t->rank == 0) tc__ocl_puts(&n, "1");
        if (n.oom) E->out->oom = 1;
        else
            tc__ocl_line(E, "%s *%s = (%s *)calloc(%s + 1, sizeof(%s));", T, E->tname[i], T, n.p,
                         T);
        tc__ocl_printf(&any, "%s!%s", any.len ? " || " : "", E->tname[i]);
        tc__ocl_str_free(&n);
    }
    if (any.oom) E->out->oom = 1;
    else tc__ocl_line(E, "if (%s) {", any.p);
    E->indent++;
    tc__ocl_c_temps(E, 0);
    tc__ocl_line(E, "return 3;");
    E->indent--;
    tc__ocl_line(E, "}");
    tc__ocl_str_free(&any);
}

/* The body: every statement, into E->out; then the prologue (the sizes it
   names) in front. */
TC__OCL_PRIVATE void tc__ocl_c_function(tc__ocl_emitter *E, const char *fn, int gathers) {
    const tc_ir_def *d = E->d;
    tc__ocl_str *out = E->out, body, p, a;
    int s, i, g = 0;
    tc__ocl_str_init(&body, out->a);
    tc__ocl_str_init(&p, out->a);
    tc__ocl_str_init(&a, out->a);
    E->out = &body;
    E->indent = 1;
    for (s = 0; s < d->n_stmts && !E->failed && !E->A.oom; s++) {
        tc__ocl_emit_stmt(E, s, g);
        g += E->info.n_gathers;
    }
    if (body.oom) out->oom = 1;
    E->out = out;
    E->indent = 0;
    tc__ocl_c_params(E, &p, 1);
    tc__ocl_c_args(E, &a, 0);
    tc__ocl_line(E, "/* TC def %s (line %d). Returns 0; 1 a run-time check failed, 2 a gather", d->name, d->line);
    tc__ocl_line(E, "   index is out of range (outputs may be partly written), 3 out of memory,");
    tc__ocl_line(E, "   4 a size overflows or is negative. Buffers must not overlap. */");
    tc__ocl_line(E, "int %s(%s)", fn, p.len ? p.p : "void");
    tc__ocl_line(E, "{");
    E->indent++;
    tc__ocl_line(E, "int64_t tc_sx[%d];", d->n_sx > 0 ? d->n_sx : 1);
    tc__ocl_line(E, "const int tc_rc = tc_%s_sizes(%s%stc_sx);", fn, a.p ? a.p : "", a.len ? ", " : "");
    tc__ocl_line(E, "if (tc_rc != 0) return tc_rc;");
    for (i = 0; i < d->n_inputs + d->n_outputs; i++)
        if (!tc__ocl_c_mentions(d, i)) tc__ocl_line(E, "(void)%s;", E->tname[i]);
    for (i = d->n_inputs + d->n_outputs; i < d->n_tensors; i++) { /* tc__ocl_c_temps names them */
        int k;
        for (k = 0; k < d->tensors[i].rank; k++) E->sx_used[d->tensors[i].extent[k]] = 1;
    }
    for (i = 0; i < d->n_sx; i++)
        if (E->sx_used[i] && !E->baked && d->sx[i].op != TC_SX_CONST && d->sx[i].op != TC_SX_VAR)
            tc__ocl_line(E, "const int64_t tc_s%d = tc_sx[%d];", i, i);
    tc__ocl_c_temps(E, 1);
    if (body.p) tc__ocl_puts(E->out, body.p);
    tc__ocl_c_temps(E, 0);
    tc__ocl_line(E, "return 0;");
    if (gathers) {
        E->indent--;
        tc__ocl_line(E, "tc_gather_fail:");
        E->indent++;
        tc__ocl_c_temps(E, 0);
        tc__ocl_line(E, "return 2;");
    }
    E->indent--;
    tc__ocl_line(E, "}");
    tc__ocl_line(E, "");
    if (p.oom || a.oom) out->oom = 1;
    tc__ocl_str_free(&body);
    tc__ocl_str_free(&p);
    tc__ocl_str_free(&a);
}

/* int <def>_call(void *const *tensors, const int64_t *sizevars). */
TC__OCL_PRIVATE void tc__ocl_c_call_fn(tc__ocl_emitter *E, const char *fn) {
    const tc_ir_def *d = E->d;
    int i, n = d->n_inputs + d->n_outputs;
    tc__ocl_str a;
    tc__ocl_str_init(&a, E->out->a);
    for (i = 0; i < n; i++)
        tc__ocl_printf(&a, "%s(%s%s *)tensors[%d]", i ? ", " : "", i < d->n_inputs ? "const " : "",
                       tc__ocl_storage(1, d->tensors[i].dtype), i);
    for (i = 0; !E->baked && i < d->n_sizevars; i++)
        tc__ocl_printf(&a, "%ssizevars[%d]", a.len ? ", " : "", i);
    tc__ocl_line(E, "/* The generic entry: tensors = inputs then outputs (%d), sizevars = the", n);
    tc__ocl_line(E, "   def's %d size variables in order%s. */", d->n_sizevars,
                 E->baked ? " (ignored: baked in)" : "");
    tc__ocl_line(E, "int %s_call(void *const *tensors, const int64_t *sizevars)", fn);
    tc__ocl_line(E, "{");
    if (n == 0) tc__ocl_line(E, "    (void)tensors;");
    if (E->baked || d->n_sizevars == 0) tc__ocl_line(E, "    (void)sizevars;");
    if (a.oom) E->out->oom = 1;
    else tc__ocl_line(E, "    return %s(%s);", fn, a.p ? a.p : "");
    tc__ocl_line(E, "}");
    tc__ocl_line(E, "");
    tc__ocl_str_free(&a);
}

/* -- the driver -------------------------------------------------------- */

/* static const int name[n][w] = {...} from f(i, k) (-1 past a rank). */
TC__OCL_PRIVATE void tc__ocl_c_table(tc__ocl_emitter *E, const char *name, int n, int w,
                                     int (*f)(const tc__ocl_emitter *, int, int)) {
    tc__ocl_str t;
    int i, k;
    tc__ocl_str_init(&t, E->out->a);
    for (i = 0; i < (n ? n : 1); i++) {
        tc__ocl_puts(&t, i ? ", {" : "{");
        for (k = 0; k < w; k++) tc__ocl_printf(&t, "%s%d", k ? ", " : "", n ? f(E, i, k) : -1);
        tc__ocl_puts(&t, "}");
    }
    if (t.oom) E->out->oom = 1;
    else tc__ocl_line(E, "static const int %s[%d][%d] = {%s};", name, n ? n : 1, w, t.p);
    tc__ocl_str_free(&t);
}
TC__OCL_PRIVATE int tc__ocl_c_dim_sx(const tc__ocl_emitter *E, int i, int k) {
    return k < E->d->tensors[i].rank ? E->d->tensors[i].extent[k] : -1;
}
TC__OCL_PRIVATE int tc__ocl_c_dim_var(const tc__ocl_emitter *E, int i, int k) {
    const tc_sx *x;
    if (k >= E->d->tensors[i].rank) return -1;
    x = &E->d->sx[E->d->tensors[i].extent[k]];
    return x->op == TC_SX_VAR ? (int)x->value : -1;
}

/* static const T name[] = {v0, v1, ...} over the inputs and outputs:
   what(E, i, buf) writes entry i. */
TC__OCL_PRIVATE void tc__ocl_c_list(tc__ocl_emitter *E, const char *decl, int n,
                                    void (*what)(const tc__ocl_emitter *, int, tc__ocl_str *)) {
    tc__ocl_str t;
    int i;
    tc__ocl_str_init(&t, E->out->a);
    for (i = 0; i < n; i++) {
        if (i) tc__ocl_puts(&t, ", ");
        what(E, i, &t);
    }
    if (t.oom) E->out->oom = 1;
    else tc__ocl_line(E, "static const %s[] = {%s};", decl,
                      n ? t.p : strstr(decl, "char") ? "\"\"" : "0");
    tc__ocl_str_free(&t);
}
TC__OCL_PRIVATE void tc__ocl_c_name_of(const tc__ocl_emitter *E, int i, tc__ocl_str *t) {
    tc__ocl_printf(t, "\"%s\"", E->d->tensors[i].name);
}
TC__OCL_PRIVATE void tc__ocl_c_code_of(const tc__ocl_emitter *E, int i, tc__ocl_str *t) {
    tc__ocl_printf(t, "\"%s\"", tc__ocl_types[E->d->tensors[i].dtype].npy);
}
TC__OCL_PRIVATE void tc__ocl_c_esize_of(const tc__ocl_emitter *E, int i, tc__ocl_str *t) {
    tc__ocl_printf(t, "%d", (int)tc_dtype_size(E->d->tensors[i].dtype));
}
TC__OCL_PRIVATE void tc__ocl_c_rank_of(const tc__ocl_emitter *E, int i, tc__ocl_str *t) {
    tc__ocl_printf(t, "%d", E->d->tensors[i].rank);
}
TC__OCL_PRIVATE void tc__ocl_c_var_of(const tc__ocl_emitter *E, int i, tc__ocl_str *t) {
    tc__ocl_printf(t, "\"%s\"", E->d->sizevars[i]);
}

/* What a driver's main() needs of the def: the tables of its inputs and
   outputs (names, npy codes, element sizes, ranks, the size variables and
   the sx index of every extent) and adapters to its sizes function and
   entry, tc_drv_sizes(p, v, sx) and tc_drv_call(p, v). The main itself,
   with its file I/O and messages, is the caller's (the CLI's: tools/
   c_driver.h): the library prints nothing, not even in text it emits. */
TC__OCL_PRIVATE void tc__ocl_c_driver(tc__ocl_emitter *E, const char *fn) {
    const tc_ir_def *d = E->d;
    int i, n_in = d->n_inputs, n_io = d->n_inputs + d->n_outputs, w = 1;
    tc__ocl_str args;
    tc__ocl_str_init(&args, E->out->a);
    for (i = 0; i < n_io; i++)
        if (d->tensors[i].rank > w) w = d->tensors[i].rank;
    for (i = 0; i < n_in; i++)
        tc__ocl_printf(&args, "%s(const %s *)p[%d]", i ? ", " : "",
                       tc__ocl_storage(1, d->tensors[i].dtype), i);
    for (i = 0; !E->baked && i < d->n_sizevars; i++)
        tc__ocl_printf(&args, "%sv[%d]", args.len ? ", " : "", i);
    tc__ocl_line(E, "");
    tc__ocl_line(E, "/* the driver's view of %s: inputs then outputs */", d->name);
    tc__ocl_line(E, "enum { TC_N_IN = %d, TC_N_IO = %d, TC_N_VARS = %d, TC_N_SX = %d, TC_W = %d };",
                 n_in, n_io, d->n_sizevars, d->n_sx, w);
    tc__ocl_line(E, "static const char tc_def_name[] = \"%s\";", d->name);
    tc__ocl_c_list(E, "char *const tc_name", n_io, tc__ocl_c_name_of);
    tc__ocl_c_list(E, "char *const tc_code", n_io, tc__ocl_c_code_of);
    tc__ocl_c_list(E, "size_t tc_esize", n_io, tc__ocl_c_esize_of);
    tc__ocl_c_list(E, "int tc_rank", n_io, tc__ocl_c_rank_of);
    tc__ocl_c_list(E, "char *const tc_var_name", d->n_sizevars, tc__ocl_c_var_of);
    tc__ocl_c_table(E, "tc_dim_sx", n_io, w, tc__ocl_c_dim_sx);
    tc__ocl_c_table(E, "tc_dim_var", n_in, w, tc__ocl_c_dim_var);
    tc__ocl_line(E, "static int tc_drv_sizes(void *const *p, const int64_t *v, int64_t *sx)");
    tc__ocl_line(E, "{");
    tc__ocl_line(E, "    (void)p;");
    tc__ocl_line(E, "    (void)v;");
    if (args.oom) E->out->oom = 1;
    else tc__ocl_line(E, "    return tc_%s_sizes(%s%ssx);", fn, args.p ? args.p : "", args.len ? ", " : "");
    tc__ocl_line(E, "}");
    tc__ocl_line(E, "static int tc_drv_call(void *const *p, const int64_t *v) { return %s_call(p, v); }",
                 fn);
    tc__ocl_str_free(&args);
}

/* The whole C file into E->out. */
TC__OCL_PRIVATE tc_status tc__ocl_c_emit_def(tc__ocl_emitter *E) {
    const tc_ir_def *d = E->d;
    tc__ocl_str *out = E->out, code;
    const char *fn;
    int i, s, gathers = 0;
    tc__ocl_stmt_info info;
    for (s = 0; s < d->n_stmts; s++) {
        tc__ocl_analyze(d, E->baked, s, 0, &info);
        gathers += info.n_gathers;
    }
    E->tname = (char **)tc__ocl_arena_alloc(&E->A, (size_t)d->n_tensors + 1, sizeof(char *));
    E->vname = (char **)tc__ocl_arena_alloc(&E->A, (size_t)d->n_sizevars + 1, sizeof(char *));
    E->sx_used = (unsigned char *)tc__ocl_arena_alloc(&E->A, (size_t)d->n_sx + 1, 1);
    fn = tc__ocl_name(&E->A, 1, d->name);
    for (i = 0; E->tname && i < d->n_tensors; i++) {
        E->tname[i] = tc__ocl_tensor_name(&E->A, 1, d->tensors[i].name, i);
        if (E->tname[i] && fn && strcmp(E->tname[i], fn) == 0) /* a parameter would hide it */
            E->tname[i] = tc__ocl_tensor_name(&E->A, 1, "tc_", i);
    }
    for (i = 0; E->vname && i < d->n_sizevars; i++) E->vname[i] = tc__ocl_name(&E->A, 1, d->sizevars[i]);
    if (E->A.oom || !fn) return TC_ERR_OUT_OF_MEMORY;
    tc__ocl_scan_helpers(E);
    /* the function first (it decides which sizes it names), helpers last */
    tc__ocl_str_init(&code, out->a);
    E->out = &code;
    tc__ocl_c_sizes_fn(E, fn);
    tc__ocl_c_function(E, fn, gathers);
    tc__ocl_c_call_fn(E, fn);
    if (E->c_flags & TC_C_DRIVER_TABLES) tc__ocl_c_driver(E, fn);
    if (code.oom) out->oom = 1;
    E->out = out;
    tc__ocl_line(E, "/* C99 for TC def %s (line %d), generated by tc_opencl.h (tc_c_emit).", d->name,
                 d->line);
    tc__ocl_line(E, "   int %s(inputs..., outputs..., sizes...) and %s_call(tensors, sizevars);", fn, fn);
    tc__ocl_line(E, "   sizes are %s. Same results as the TC VM: integers wrap, / and %% floor", E->baked ? "baked in" : "arguments");
    tc__ocl_line(E, "   with x / 0 = x %% 0 = 0, float -> int casts saturate; without -ffast-math");
    tc__ocl_line(E, "   every value is rounded as a serial evaluation in loop order rounds it. */");
    tc__ocl_line(E, "#include <float.h>");
    tc__ocl_line(E, "#include <math.h>");
    tc__ocl_line(E, "#include <stdbool.h>");
    tc__ocl_line(E, "#include <stdint.h>");
    tc__ocl_line(E, "#include <stdlib.h>");
    tc__ocl_line(E, "");
    tc__ocl_line(E, "#ifndef TC_C_INLINE /* helpers: unused ones are no warning */");
    tc__ocl_line(E, "#if defined(__GNUC__) || defined(__clang__)");
    tc__ocl_line(E, "#define TC_C_INLINE static inline __attribute__((unused))");
    tc__ocl_line(E, "#else");
    tc__ocl_line(E, "#define TC_C_INLINE static inline");
    tc__ocl_line(E, "#endif");
    tc__ocl_line(E, "#endif");
    tc__ocl_c_helpers(E);
    if (code.p) tc__ocl_puts(E->out, code.p);
    tc__ocl_str_free(&code);
    if (E->failed) return E->err ? E->err->code : TC_ERR_LIMIT;
    if (E->A.oom || E->out->oom) return TC_ERR_OUT_OF_MEMORY;
    return TC_OK;
}

TC_OCL_API tc_status tc_c_emit(const tc_ir_def *d, const int64_t *sx_values, int flags,
                               const tc_allocator *a, char **out, tc_error *err) {
    tc__ocl_emitter E;
    tc__ocl_str text;
    tc_error local;
    tc_status st;
    if (!err) err = &local;
    memset(err, 0, sizeof *err);
    if (!out) return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "tc_c_emit: out is NULL");
    *out = NULL;
    if (!d) return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "tc_c_emit: no def");
    if (flags & ~TC_C_DRIVER_TABLES)
        return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "tc_c_emit: unknown flags 0x%x",
                             (unsigned)flags);
    st = tc__ocl_validate(d, err);
    if (st != TC_OK) return st;
    memset(&E, 0, sizeof E);
    tc__ocl_str_init(&text, a);
    E.d = d;
    E.baked = sx_values;
    E.A.a = a;
    E.out = &text;
    E.err = err;
    E.c99 = 1;
    E.c_flags = flags;
    st = tc__ocl_c_emit_def(&E);
    tc__ocl_arena_free(&E.A);
    if (st == TC_OK) *out = tc__ocl_str_take(&text);
    else tc__ocl_str_free(&text);
    if (st == TC_OK && !*out) st = TC_ERR_OUT_OF_MEMORY;
    if (st == TC_ERR_OUT_OF_MEMORY) return tc__ocl_error(err, st, "out of memory emitting C");
    return st;
}

TC_OCL_API tc_status tc_ocl_emit(const tc_ir_def *d, const int64_t *sx_values, int allow_fp64,
                                 const tc_allocator *a, char **source_out, tc_error *err) {
    tc__ocl_emitter E;
    tc__ocl_str out;
    tc_error local;
    tc_status st;
    if (!err) err = &local;
    memset(err, 0, sizeof *err);
    if (!source_out)
        return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "tc_ocl_emit: source_out is NULL");
    *source_out = NULL;
    if (!d) return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "tc_ocl_emit: no def");
    st = tc__ocl_validate(d, err);
    if (st != TC_OK) return st;
    memset(&E, 0, sizeof E);
    tc__ocl_str_init(&out, a);
    E.d = d;
    E.baked = sx_values;
    E.A.a = a;
    E.out = &out;
    E.err = err;
    st = tc__ocl_emit_def(&E, allow_fp64);
    tc__ocl_arena_free(&E.A);
    if (st == TC_OK) *source_out = tc__ocl_str_take(&out);
    else tc__ocl_str_free(&out);
    if (st == TC_OK && !*source_out) st = TC_ERR_OUT_OF_MEMORY;
    if (st == TC_ERR_OUT_OF_MEMORY)
        return tc__ocl_error(err, st, "out of memory emitting OpenCL C");
    return st;
}

TC_OCL_API void tc_ocl_free_source(char *src, const tc_allocator *a) { tc__ocl_free(a, src); }

/* ==== [tc:ocl-runner] Build, cache and run on an OpenCL device =============== */
#if defined(TC_OPENCL_RUNNER)
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#if defined(__APPLE__)
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

/* OpenCL status codes by name (the numbers are fixed by the standard). */
static const struct {
    int code;
    const char *name;
} tc__ocl_cl_codes[] = {
    {0, "CL_SUCCESS"}, {-1, "CL_DEVICE_NOT_FOUND"}, {-2, "CL_DEVICE_NOT_AVAILABLE"},
    {-3, "CL_COMPILER_NOT_AVAILABLE"}, {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {-5, "CL_OUT_OF_RESOURCES"}, {-6, "CL_OUT_OF_HOST_MEMORY"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"}, {-8, "CL_MEM_COPY_OVERLAP"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH"}, {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    {-11, "CL_BUILD_PROGRAM_FAILURE"}, {-12, "CL_MAP_FAILURE"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"}, {-15, "CL_COMPILE_PROGRAM_FAILURE"},
    {-16, "CL_LINKER_NOT_AVAILABLE"}, {-17, "CL_LINK_PROGRAM_FAILURE"},
    {-18, "CL_DEVICE_PARTITION_FAILED"}, {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    {-30, "CL_INVALID_VALUE"}, {-31, "CL_INVALID_DEVICE_TYPE"}, {-32, "CL_INVALID_PLATFORM"},
    {-33, "CL_INVALID_DEVICE"}, {-34, "CL_INVALID_CONTEXT"}, {-35, "CL_INVALID_QUEUE_PROPERTIES"},
    {-36, "CL_INVALID_COMMAND_QUEUE"}, {-37, "CL_INVALID_HOST_PTR"},
    {-38, "CL_INVALID_MEM_OBJECT"}, {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
    {-40, "CL_INVALID_IMAGE_SIZE"}, {-41, "CL_INVALID_SAMPLER"}, {-42, "CL_INVALID_BINARY"},
    {-43, "CL_INVALID_BUILD_OPTIONS"}, {-44, "CL_INVALID_PROGRAM"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE"}, {-46, "CL_INVALID_KERNEL_NAME"},
    {-47, "CL_INVALID_KERNEL_DEFINITION"}, {-48, "CL_INVALID_KERNEL"},
    {-49, "CL_INVALID_ARG_INDEX"}, {-50, "CL_INVALID_ARG_VALUE"}, {-51, "CL_INVALID_ARG_SIZE"},
    {-52, "CL_INVALID_KERNEL_ARGS"}, {-53, "CL_INVALID_WORK_DIMENSION"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE"}, {-55, "CL_INVALID_WORK_ITEM_SIZE"},
    {-56, "CL_INVALID_GLOBAL_OFFSET"}, {-57, "CL_INVALID_EVENT_WAIT_LIST"},
    {-58, "CL_INVALID_EVENT"}, {-59, "CL_INVALID_OPERATION"}, {-60, "CL_INVALID_GL_OBJECT"},
    {-61, "CL_INVALID_BUFFER_SIZE"}, {-62, "CL_INVALID_MIP_LEVEL"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE"}, {-64, "CL_INVALID_PROPERTY"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR"}, {-66, "CL_INVALID_COMPILER_OPTIONS"},
    {-67, "CL_INVALID_LINKER_OPTIONS"}, {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    {-69, "CL_INVALID_PIPE_SIZE"}, {-70, "CL_INVALID_DEVICE_QUEUE"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"}};

TC__OCL_PRIVATE const char *tc__ocl_cl_name(cl_int code) {
    size_t i;
    for (i = 0; i < sizeof tc__ocl_cl_codes / sizeof tc__ocl_cl_codes[0]; i++)
        if (tc__ocl_cl_codes[i].code == code) return tc__ocl_cl_codes[i].name;
    return "unknown OpenCL error";
}
/* Every OpenCL failure: TC_ERR_BACKEND naming the call and the code. */
TC__OCL_PRIVATE tc_status tc__ocl_cl_fail(tc_error *err, const char *call, cl_int code) {
    return tc__ocl_error(err, TC_ERR_BACKEND, "%s: %s (%d)", call, tc__ocl_cl_name(code),
                         (int)code);
}

typedef struct tc__ocl_entry {
    char *source; /* the key: the emitted text (it encodes the def and baked sizes) */
    size_t len;
    uint64_t hash;
    cl_program prog;
    cl_kernel *kernels; /* per statement: [2s] main, [2s+1] init (NULL when none) */
    int n_kernels;
    unsigned long used;
} tc__ocl_entry;

struct tc_ocl_runner {
    tc_allocator alloc;
    cl_platform_id platform;
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue;
    int has_fp64, is_cpu, sizes_as_args;
    cl_ulong max_alloc;
    char options[128];
    char device_name[128];
    tc__ocl_entry cache[TC_OCL_MAX_CACHE];
    int n_cache;
    unsigned long tick;
};

/* -- runner creation --------------------------------------------------- */

TC__OCL_PRIVATE tc_status tc__ocl_pick_platform(const tc_ocl_runner_desc *d, const tc_allocator *a,
                                                cl_platform_id *out, tc_error *err) {
    cl_uint n = 0;
    cl_platform_id *ids;
    cl_int rc = clGetPlatformIDs(0, NULL, &n);
    if (rc == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (rc == CL_SUCCESS && n == 0))
        return tc__ocl_error(err, TC_ERR_UNSUPPORTED, "no OpenCL platform");
    if (rc != CL_SUCCESS) return tc__ocl_cl_fail(err, "clGetPlatformIDs", rc);
    if (d->platform_index < 0 || (cl_uint)d->platform_index >= n)
        return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT,
                             "OpenCL platform %d does not exist (there are %u)", d->platform_index,
                             (unsigned)n);
    ids = (cl_platform_id *)tc__ocl_calloc(a, n, sizeof *ids);
    if (!ids) return tc__ocl_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    rc = clGetPlatformIDs(n, ids, NULL);
    *out = ids[d->platform_index];
    tc__ocl_free(a, ids);
    return rc == CL_SUCCESS ? TC_OK : tc__ocl_cl_fail(err, "clGetPlatformIDs", rc);
}

TC__OCL_PRIVATE tc_status tc__ocl_pick_device(const tc_ocl_runner_desc *d, const tc_allocator *a,
                                              cl_platform_id p, cl_device_id *out, tc_error *err) {
    cl_uint n = 0;
    cl_device_id *ids;
    cl_int rc = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    if (rc == CL_DEVICE_NOT_FOUND || (rc == CL_SUCCESS && n == 0))
        return tc__ocl_error(err, TC_ERR_UNSUPPORTED, "OpenCL platform %d has no device",
                             d->platform_index);
    if (rc != CL_SUCCESS) return tc__ocl_cl_fail(err, "clGetDeviceIDs", rc);
    if (d->device_index < 0 || (cl_uint)d->device_index >= n)
        return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT,
                             "OpenCL device %d does not exist on platform %d (there are %u)",
                             d->device_index, d->platform_index, (unsigned)n);
    ids = (cl_device_id *)tc__ocl_calloc(a, n, sizeof *ids);
    if (!ids) return tc__ocl_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    rc = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids, NULL);
    *out = ids[d->device_index];
    tc__ocl_free(a, ids);
    return rc == CL_SUCCESS ? TC_OK : tc__ocl_cl_fail(err, "clGetDeviceIDs", rc);
}

/* Device facts the runner needs: name, type, fp64, buffer limit, options. */
TC__OCL_PRIVATE tc_status tc__ocl_query_device(tc_ocl_runner *r, tc_error *err) {
    cl_device_type type = 0;
    cl_device_fp_config dfp = 0, sfp = 0;
    char ver[64];
    cl_int rc;
    memset(ver, 0, sizeof ver);
    rc =
        clGetDeviceInfo(r->device, CL_DEVICE_NAME, sizeof r->device_name - 1, r->device_name, NULL);
    if (rc == CL_SUCCESS) rc = clGetDeviceInfo(r->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    if (rc == CL_SUCCESS)
        rc = clGetDeviceInfo(r->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof r->max_alloc,
                             &r->max_alloc, NULL);
    if (rc == CL_SUCCESS)
        rc = clGetDeviceInfo(r->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof sfp, &sfp, NULL);
    if (rc == CL_SUCCESS)
        rc = clGetDeviceInfo(r->device, CL_DEVICE_OPENCL_C_VERSION, sizeof ver - 1, ver, NULL);
    if (rc != CL_SUCCESS) return tc__ocl_cl_fail(err, "clGetDeviceInfo", rc);
    /* CL_DEVICE_DOUBLE_FP_CONFIG is 0 (or refused) without cl_khr_fp64 */
    if (clGetDeviceInfo(r->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof dfp, &dfp, NULL) !=
        CL_SUCCESS)
        dfp = 0;
    r->has_fp64 = dfp != 0;
    r->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    r->options[0] = '\0';
    /* "OpenCL C 1.2 ...": ask for 1.2 where the device has it */
    if (strncmp(ver, "OpenCL C ", 9) == 0 && (ver[9] > '1' || (ver[9] == '1' && ver[11] >= '2')))
        strcat(r->options, "-cl-std=CL1.2 ");
    /* IEEE division and sqrt, like the VM (OpenCL allows 2.5 ulp otherwise) */
    if (sfp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
        strcat(r->options, "-cl-fp32-correctly-rounded-divide-sqrt");
    return TC_OK;
}

TC_OCL_API tc_status tc_ocl_runner_create(const tc_ocl_runner_desc *desc, tc_ocl_runner **out,
                                          tc_error *err) {
    tc_ocl_runner_desc d;
    tc_ocl_runner *r;
    tc_error local;
    tc_status st;
    cl_platform_id plat = NULL;
    cl_device_id dev = NULL;
    cl_int rc;
    if (!err) err = &local;
    memset(err, 0, sizeof *err);
    if (!out)
        return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "tc_ocl_runner_create: out is NULL");
    *out = NULL;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if ((st = tc__ocl_pick_platform(&d, &d.allocator, &plat, err)) != TC_OK) return st;
    if ((st = tc__ocl_pick_device(&d, &d.allocator, plat, &dev, err)) != TC_OK) return st;
    r = (tc_ocl_runner *)tc__ocl_calloc(&d.allocator, 1, sizeof *r);
    if (!r) return tc__ocl_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    r->alloc = d.allocator;
    r->platform = plat;
    r->device = dev;
    r->sizes_as_args = d.sizes_as_args;
    if ((st = tc__ocl_query_device(r, err)) != TC_OK) {
        tc_ocl_runner_free(r);
        return st;
    }
    r->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    if (rc != CL_SUCCESS) {
        r->ctx = NULL;
        tc_ocl_runner_free(r);
        return tc__ocl_cl_fail(err, "clCreateContext", rc);
    }
    r->queue = clCreateCommandQueue(r->ctx, dev, 0, &rc);
    if (rc != CL_SUCCESS) {
        r->queue = NULL;
        tc_ocl_runner_free(r);
        return tc__ocl_cl_fail(err, "clCreateCommandQueue", rc);
    }
    *out = r;
    return TC_OK;
}

TC__OCL_PRIVATE void tc__ocl_entry_release(tc_ocl_runner *r, tc__ocl_entry *e) {
    int i;
    for (i = 0; e->kernels && i < e->n_kernels; i++)
        if (e->kernels[i]) clReleaseKernel(e->kernels[i]);
    if (e->prog) clReleaseProgram(e->prog);
    tc__ocl_free(&r->alloc, e->kernels);
    tc__ocl_free(&r->alloc, e->source);
    memset(e, 0, sizeof *e);
}

TC_OCL_API void tc_ocl_runner_free(tc_ocl_runner *r) {
    int i;
    tc_allocator a;
    if (!r) return;
    for (i = 0; i < r->n_cache; i++) tc__ocl_entry_release(r, &r->cache[i]);
    if (r->queue) clReleaseCommandQueue(r->queue);
    if (r->ctx) clReleaseContext(r->ctx);
    a = r->alloc;
    tc__ocl_free(&a, r);
}
TC_OCL_API const char *tc_ocl_runner_device_name(const tc_ocl_runner *r) {
    return r ? r->device_name : NULL;
}
TC_OCL_API int tc_ocl_runner_has_fp64(const tc_ocl_runner *r) { return r ? r->has_fp64 : 0; }

/* -- building and the program cache ------------------------------------ */

TC__OCL_PRIVATE uint64_t tc__ocl_hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* Builds source text; a failure carries the build log (whitespace folded). */
TC__OCL_PRIVATE tc_status tc__ocl_build(tc_ocl_runner *r, const char *src, cl_program *out,
                                        tc_error *err) {
    cl_int rc, brc;
    size_t len = strlen(src), n = 0;
    cl_program prog = clCreateProgramWithSource(r->ctx, 1, &src, &len, &rc);
    *out = NULL;
    if (rc != CL_SUCCESS) return tc__ocl_cl_fail(err, "clCreateProgramWithSource", rc);
    brc = clBuildProgram(prog, 1, &r->device, r->options, NULL, NULL);
    if (brc != CL_SUCCESS) {
        char *log = NULL;
        tc__ocl_cl_fail(err, "clBuildProgram", brc);
        if (clGetProgramBuildInfo(prog, r->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) ==
                CL_SUCCESS &&
            n > 1 && (log = (char *)tc__ocl_alloc(&r->alloc, n + 1)) != NULL &&
            clGetProgramBuildInfo(prog, r->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) ==
                CL_SUCCESS) {
            size_t i, j = strlen(err->msg);
            log[n] = '\0';
            if (j + 3 < sizeof err->msg) {
                err->msg[j++] = ':';
                err->msg[j++] = ' ';
            }
            for (i = 0; log[i] && j + 1 < sizeof err->msg; i++) {
                int space = log[i] == ' ' || log[i] == '\n' || log[i] == '\t' || log[i] == '\r';
                if (space && err->msg[j - 1] == ' ') continue;
                err->msg[j++] = space ? ' ' : log[i];
            }
            err->msg[j] = '\0';
        }
        tc__ocl_free(&r->alloc, log);
        clReleaseProgram(prog);
        return TC_ERR_BACKEND;
    }
    *out = prog;
    return TC_OK;
}

TC__OCL_PRIVATE tc_status tc__ocl_make_kernels(tc_ocl_runner *r, const tc_ir_def *d,
                                               const int64_t *baked, tc__ocl_entry *e,
                                               tc_error *err) {
    int s, k;
    e->n_kernels = 2 * d->n_stmts;
    e->kernels =
        (cl_kernel *)tc__ocl_calloc(&r->alloc, (size_t)e->n_kernels + 1, sizeof(cl_kernel));
    if (!e->kernels) return tc__ocl_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    for (s = 0; s < d->n_stmts; s++) {
        tc__ocl_stmt_info info;
        tc__ocl_analyze(d, baked, s, 0, &info);
        for (k = 0; k < 1 + info.init_kernel; k++) {
            char name[512];
            cl_int rc;
            tc__ocl_kernel_name(d, s, k, name, sizeof name);
            e->kernels[2 * s + k] = clCreateKernel(e->prog, name, &rc);
            if (rc != CL_SUCCESS) {
                e->kernels[2 * s + k] = NULL;
                return tc__ocl_cl_fail(err, "clCreateKernel", rc);
            }
        }
    }
    return TC_OK;
}

/* The built program for def d (sizes baked in unless the runner takes them
   as arguments): from the cache, or emitted, built and cached. */
TC__OCL_PRIVATE tc_status tc__ocl_get_program(tc_ocl_runner *r, const tc_ir_def *d,
                                              const int64_t *baked, tc__ocl_entry **out,
                                              tc_error *err) {
    char *src = NULL;
    tc__ocl_entry fresh, *slot;
    tc_status st = tc_ocl_emit(d, baked, r->has_fp64, &r->alloc, &src, err);
    size_t len;
    uint64_t h;
    int i, victim = 0;
    if (st != TC_OK) return st;
    len = strlen(src);
    h = tc__ocl_hash(src, len);
    for (i = 0; i < r->n_cache; i++) {
        tc__ocl_entry *e = &r->cache[i];
        if (e->hash == h && e->len == len && memcmp(e->source, src, len) == 0) {
            e->used = ++r->tick;
            tc__ocl_free(&r->alloc, src);
            *out = e;
            return TC_OK;
        }
    }
    memset(&fresh, 0, sizeof fresh);
    fresh.source = src;
    fresh.len = len;
    fresh.hash = h;
    st = tc__ocl_build(r, src, &fresh.prog, err);
    if (st == TC_OK) st = tc__ocl_make_kernels(r, d, baked, &fresh, err);
    if (st != TC_OK) {
        tc__ocl_entry_release(r, &fresh);
        return st;
    }
    if (r->n_cache < TC_OCL_MAX_CACHE) victim = r->n_cache++;
    else {
        for (i = 1; i < r->n_cache; i++)
            if (r->cache[i].used < r->cache[victim].used) victim = i;
        tc__ocl_entry_release(r, &r->cache[victim]);
    }
    slot = &r->cache[victim];
    *slot = fresh;
    slot->used = ++r->tick;
    *out = slot;
    return TC_OK;
}

/* -- one run ------------------------------------------------------------ */

typedef struct tc__ocl_job {
    tc_ocl_runner *r;
    const tc_run_desc *d;
    const tc_ir_def *ir;
    int def;
    int64_t *sx;         /* n_sx size values */
    int64_t *varval;     /* n_sizevars */
    int64_t *numel;      /* per tensor */
    cl_mem *buf;         /* per tensor */
    cl_mem errbuf;
    void **host;         /* per output: the read-back buffer */
    unsigned char *marks;
    tc__ocl_entry *entry;
} tc__ocl_job;

TC__OCL_PRIVATE int tc__ocl_job_alloc(tc__ocl_job *J) {
    const tc_allocator *a = &J->r->alloc;
    const tc_ir_def *ir = J->ir;
    size_t nt = (size_t)ir->n_tensors + 1;
    J->sx = (int64_t *)tc__ocl_calloc(a, (size_t)ir->n_sx + 1, sizeof(int64_t));
    J->varval = (int64_t *)tc__ocl_calloc(a, (size_t)ir->n_sizevars + 1, sizeof(int64_t));
    J->numel = (int64_t *)tc__ocl_calloc(a, nt, sizeof(int64_t));
    J->buf = (cl_mem *)tc__ocl_calloc(a, nt, sizeof(cl_mem));
    J->host = (void **)tc__ocl_calloc(a, (size_t)ir->n_outputs + 1, sizeof(void *));
    J->marks = (unsigned char *)tc__ocl_calloc(
        a, (size_t)(ir->n_tensors + ir->n_sizevars + ir->n_sx) + 3, 1);
    return J->sx && J->varval && J->numel && J->buf && J->host && J->marks;
}
TC__OCL_PRIVATE void tc__ocl_job_free(tc__ocl_job *J) {
    const tc_allocator *a = &J->r->alloc;
    int i;
    for (i = 0; J->buf && i < J->ir->n_tensors; i++)
        if (J->buf[i]) clReleaseMemObject(J->buf[i]);
    if (J->errbuf) clReleaseMemObject(J->errbuf);
    for (i = 0; J->host && i < J->ir->n_outputs; i++) tc__ocl_free(a, J->host[i]);
    tc__ocl_free(a, J->sx);
    tc__ocl_free(a, J->varval);
    tc__ocl_free(a, J->numel);
    tc__ocl_free(a, J->buf);
    tc__ocl_free(a, J->host);
    tc__ocl_free(a, J->marks);
}

/* An input or caller output against the IR: dtype, rank, no negative dims
   (the VM's checks, in its words). */
TC__OCL_PRIVATE tc_status tc__ocl_check_arg(const tc_ir_tensor *t, const tc_tensor *x,
                                            tc_error *err) {
    int k;
    if ((unsigned)x->dtype >= (unsigned)TC_DTYPE_COUNT || x->dtype != t->dtype)
        return tc__ocl_error(
            err, TC_ERR_TYPE, "%s: expected dtype %s, given %s", t->name, tc_dtype_name(t->dtype),
            x->dtype == TC_DTYPE_UNSET ? "none (dtype not set)"
            : (unsigned)x->dtype < (unsigned)TC_DTYPE_COUNT ? tc_dtype_name(x->dtype) : "?");
    if (x->rank != t->rank)
        return tc__ocl_error(err, TC_ERR_SHAPE, "%s: expected rank %d, given rank %d", t->name,
                             t->rank, x->rank);
    for (k = 0; k < x->rank; k++)
        if (x->shape[k] < 0)
            return tc__ocl_error(err, TC_ERR_SHAPE, "%s: dimension %d has negative extent %lld",
                                 t->name, k, (long long)x->shape[k]);
    return TC_OK;
}

/* Output i is not wanted (tc_run_desc.discard): a temporary here too. */
TC__OCL_PRIVATE int tc__ocl_discarded(const tc__ocl_job *J, int i) {
    return J->d->discard && J->d->discard[i];
}

TC__OCL_PRIVATE tc_status tc__ocl_check_outputs(tc__ocl_job *J, tc_error *err) {
    const tc_ir_def *ir = J->ir;
    int i, k;
    for (i = 0; i < ir->n_outputs; i++) {
        const tc_ir_tensor *t = &ir->tensors[ir->n_inputs + i];
        const tc_tensor *o = &J->d->outputs[i];
        int64_t stride = 1;
        tc_status st;
        if (!o->data || tc__ocl_discarded(J, i)) continue;
        if ((st = tc__ocl_check_arg(t, o, err)) != TC_OK) return st;
        for (k = t->rank - 1; k >= 0; k--) {
            int64_t e = J->sx[t->extent[k]];
            if (o->shape[k] != e)
                return tc__ocl_error(err, TC_ERR_SHAPE,
                                     "output %s: dimension %d is %lld, expected %lld", t->name, k,
                                     (long long)o->shape[k], (long long)e);
            if (o->strides && o->strides[k] != stride && o->shape[k] > 1)
                return tc__ocl_error(err, TC_ERR_UNSUPPORTED,
                                     "output %s must be contiguous (row-major)", t->name);
            stride *= e;
        }
    }
    return TC_OK;
}

/* Everything tc_run checks, in its order, plus the device's buffer limit:
   nothing is allocated on the device or written before this passes. */
/* The count of inputs or outputs a run gives against the def's, worded as
   tc.h's VM words it (tc__vm_check_count): both back ends fail alike. */
TC__OCL_PRIVATE tc_status tc__ocl_check_count(const tc_ir_def *ir, int outputs, int given,
                                              const void *array, tc_error *err) {
    int want = outputs ? ir->n_outputs : ir->n_inputs;
    const char *what = outputs ? "output" : "input";
    if (given != want)
        return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "%s %s %d %s%s, given %d", ir->name,
                             outputs ? "returns" : "takes", want, what, want == 1 ? "" : "s",
                             given);
    if (given && !array)
        return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "%s: the %ss are NULL (%d expected)",
                             ir->name, what, want);
    return TC_OK;
}

TC__OCL_PRIVATE tc_status tc__ocl_job_check(tc__ocl_job *J, const tc_program *p, tc_error *err) {
    const tc_run_desc *d = J->d;
    const tc_ir_def *ir = J->ir;
    tc_status st;
    int i, k;
    if ((st = tc__ocl_check_count(ir, 0, d->n_inputs, d->inputs, err)) != TC_OK) return st;
    if ((st = tc_bind_sizes(p, J->def, d->inputs, d->n_inputs, J->sx, err)) != TC_OK) return st;
    for (i = 0; i < ir->n_sx; i++)
        if (ir->sx[i].op == TC_SX_VAR) J->varval[ir->sx[i].value] = J->sx[i];
    for (i = 0; i < ir->n_tensors; i++) {
        const tc_ir_tensor *t = &ir->tensors[i];
        uint64_t bytes;
        J->numel[i] = 1;
        for (k = 0; k < t->rank; k++) J->numel[i] *= J->sx[t->extent[k]];
        if (i < ir->n_inputs && J->numel[i] > 0 && !d->inputs[i].data)
            return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "input %s: data is NULL", t->name);
        bytes = (uint64_t)J->numel[i] * tc_dtype_size(t->dtype);
        if (bytes > (uint64_t)J->r->max_alloc || bytes > (uint64_t)((size_t)-1 / 2))
            return tc__ocl_error(err, TC_ERR_LIMIT,
                                 "tensor %s needs %llu bytes, more than the OpenCL device's "
                                 "largest buffer (%llu bytes)",
                                 t->name, (unsigned long long)bytes,
                                 (unsigned long long)J->r->max_alloc);
    }
    if ((st = tc__ocl_check_count(ir, 1, d->n_outputs, d->outputs, err)) != TC_OK) return st;
    return tc__ocl_check_outputs(J, err);
}

TC__OCL_PRIVATE size_t tc__ocl_bytes(const tc__ocl_job *J, int t) {
    return (size_t)J->numel[t] * tc_dtype_size(J->ir->tensors[t].dtype);
}

/* A strided input copied into row-major order (the caller frees it). */
TC__OCL_PRIVATE void *tc__ocl_pack(tc__ocl_job *J, int t) {
    const tc_tensor *x = &J->d->inputs[t];
    size_t esz = tc_dtype_size(x->dtype), i;
    int64_t idx[TC_MAX_RANK];
    unsigned char *dst = (unsigned char *)tc__ocl_alloc(&J->r->alloc, tc__ocl_bytes(J, t));
    int k;
    if (!dst) return NULL;
    memset(idx, 0, sizeof idx);
    for (i = 0; i < (size_t)J->numel[t]; i++) {
        int64_t off = 0;
        for (k = 0; k < x->rank; k++) off += idx[k] * x->strides[k];
        memcpy(dst + i * esz, (const unsigned char *)x->data + off * (int64_t)esz, esz);
        for (k = x->rank - 1; k >= 0; k--) {
            if (++idx[k] < x->shape[k]) break;
            idx[k] = 0;
        }
    }
    return dst;
}

TC__OCL_PRIVATE tc_status tc__ocl_make_buffer(tc__ocl_job *J, int t, tc_error *err) {
    const tc_ir_def *ir = J->ir;
    size_t bytes = tc__ocl_bytes(J, t);
    const void *src = NULL;
    void *packed = NULL;
    cl_mem_flags flags = t < ir->n_inputs ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE;
    cl_int rc;
    int o = t - ir->n_inputs;
    if (bytes > 0 && t < ir->n_inputs) {
        src = J->d->inputs[t].data;
        if (J->d->inputs[t].strides) src = packed = tc__ocl_pack(J, t);
        if (!src)
            return tc__ocl_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory (input %s)",
                                 ir->tensors[t].name);
    } else if (bytes > 0 && o >= 0 && o < ir->n_outputs && !tc__ocl_discarded(J, o)) {
        J->host[o] = tc__ocl_alloc(&J->r->alloc, bytes);
        if (!J->host[o])
            return tc__ocl_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory (output %s)",
                                 ir->tensors[t].name);
        src = J->d->outputs[o].data; /* accumulating statements read it */
    }
    J->buf[t] = clCreateBuffer(J->r->ctx, flags | (src ? CL_MEM_COPY_HOST_PTR : 0),
                               bytes > 0 ? bytes : 8, (void *)(size_t)src, &rc);
    tc__ocl_free(&J->r->alloc, packed);
    if (rc != CL_SUCCESS) {
        J->buf[t] = NULL;
        return tc__ocl_error(err, TC_ERR_BACKEND, "clCreateBuffer (tensor %s, %llu bytes): %s (%d)",
                             ir->tensors[t].name, (unsigned long long)bytes, tc__ocl_cl_name(rc),
                             (int)rc);
    }
    if (bytes > 0 && !src) { /* temporaries and outputs the runner allocates start at 0 */
        cl_uchar zero = 0;
        rc = clEnqueueFillBuffer(J->r->queue, J->buf[t], &zero, 1, 0, bytes, 0, NULL, NULL);
        if (rc != CL_SUCCESS) return tc__ocl_cl_fail(err, "clEnqueueFillBuffer", rc);
    }
    return TC_OK;
}

TC__OCL_PRIVATE tc_status tc__ocl_job_buffers(tc__ocl_job *J, tc_error *err) {
    int zero[4] = {0, 0, 0, 0}, t;
    cl_int rc;
    tc_status st;
    for (t = 0; t < J->ir->n_tensors; t++)
        if ((st = tc__ocl_make_buffer(J, t, err)) != TC_OK) return st;
    J->errbuf = clCreateBuffer(J->r->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero,
                               zero, &rc);
    if (rc != CL_SUCCESS) {
        J->errbuf = NULL;
        return tc__ocl_cl_fail(err, "clCreateBuffer", rc);
    }
    return TC_OK;
}

TC__OCL_PRIVATE tc_status tc__ocl_enqueue(tc__ocl_job *J, cl_kernel k, int64_t n, tc_error *err) {
    size_t global = (size_t)n, local = 64, wg = 0;
    cl_int rc;
    if ((uint64_t)n > (uint64_t)((size_t)-1 / 2))
        return tc__ocl_error(err, TC_ERR_LIMIT, "%lld work-items are too many", (long long)n);
    if (J->r->is_cpu) /* the CPU runtime picks its own work-group size well */
        rc = clEnqueueNDRangeKernel(J->r->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    else {
        rc = clGetKernelWorkGroupInfo(k, J->r->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                      NULL);
        if (rc != CL_SUCCESS) return tc__ocl_cl_fail(err, "clGetKernelWorkGroupInfo", rc);
        while (local > 1 && local > wg) local /= 2;
        global = (global + local - 1) / local * local; /* kernels skip ids past tc_n */
        rc = clEnqueueNDRangeKernel(J->r->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
    }
    return rc == CL_SUCCESS ? TC_OK : tc__ocl_cl_fail(err, "clEnqueueNDRangeKernel", rc);
}

/* Arguments in the emitter's order: tensors (written first), then for
   symbolic sizes the size variables, other sizes and tc_n, then tc_err. */
TC__OCL_PRIVATE cl_int tc__ocl_set_args(tc__ocl_job *J, int s, cl_kernel k, int64_t n,
                                        const tc__ocl_stmt_info *info) {
    const tc_ir_def *ir = J->ir;
    unsigned char *tm = J->marks, *vm = tm + ir->n_tensors, *sm = vm + ir->n_sizevars;
    cl_uint a = 0;
    cl_int rc;
    int i, w = ir->stmts[s].tensor;
    tc__ocl_mark_args(ir, s, tm, vm, sm);
    rc = clSetKernelArg(k, a++, sizeof(cl_mem), &J->buf[w]);
    for (i = 0; i < ir->n_tensors && rc == CL_SUCCESS; i++)
        if (tm[i] && i != w) rc = clSetKernelArg(k, a++, sizeof(cl_mem), &J->buf[i]);
    if (J->r->sizes_as_args) {
        cl_long v;
        for (i = 0; i < ir->n_sizevars && rc == CL_SUCCESS; i++)
            if (vm[i]) {
                v = (cl_long)J->varval[i];
                rc = clSetKernelArg(k, a++, sizeof v, &v);
            }
        for (i = 0; i < ir->n_sx && rc == CL_SUCCESS; i++)
            if (sm[i]) {
                v = (cl_long)J->sx[i];
                rc = clSetKernelArg(k, a++, sizeof v, &v);
            }
        v = (cl_long)n;
        if (rc == CL_SUCCESS) rc = clSetKernelArg(k, a++, sizeof v, &v);
    }
    if (info->n_gathers && rc == CL_SUCCESS)
        rc = clSetKernelArg(k, a++, sizeof(cl_mem), &J->errbuf);
    return rc;
}

TC__OCL_PRIVATE tc_status tc__ocl_job_launch(tc__ocl_job *J, tc_error *err) {
    const tc_ir_def *ir = J->ir;
    const int64_t *baked = J->r->sizes_as_args ? NULL : J->sx;
    int s, gathers = 0;
    for (s = 0; s < ir->n_stmts; s++) {
        tc__ocl_stmt_info info;
        int w = ir->stmts[s].tensor;
        int64_t n;
        cl_int rc = CL_SUCCESS;
        tc_status st;
        tc__ocl_analyze(ir, baked, s, gathers, &info);
        gathers += info.n_gathers;
        if (info.init_kernel && J->numel[w] > 0) {
            cl_kernel k = J->entry->kernels[2 * s + 1];
            cl_long v = (cl_long)J->numel[w];
            rc = clSetKernelArg(k, 0, sizeof(cl_mem), &J->buf[w]);
            if (rc == CL_SUCCESS && J->r->sizes_as_args) rc = clSetKernelArg(k, 1, sizeof v, &v);
            if (rc != CL_SUCCESS) return tc__ocl_cl_fail(err, "clSetKernelArg", rc);
            if ((st = tc__ocl_enqueue(J, k, J->numel[w], err)) != TC_OK) return st;
        }
        n = tc__ocl_items(ir, J->sx, s, info.serial);
        if (n < 0) return tc__ocl_error(err, TC_ERR_LIMIT, "too many work-items");
        if (n == 0) continue;
        rc = tc__ocl_set_args(J, s, J->entry->kernels[2 * s], info.serial ? 1 : n, &info);
        if (rc != CL_SUCCESS) return tc__ocl_cl_fail(err, "clSetKernelArg", rc);
        if ((st = tc__ocl_enqueue(J, J->entry->kernels[2 * s], n, err)) != TC_OK) return st;
    }
    return TC_OK;
}

/* The gather that set error code `code`, in the VM's words. */
TC__OCL_PRIVATE tc_status tc__ocl_bounds_error(tc__ocl_job *J, const int *e, tc_error *err) {
    const tc_ir_def *ir = J->ir;
    int s, i, code = 0;
    int64_t v = (int64_t)(((uint64_t)(uint32_t)e[3] << 32) | (uint64_t)(uint32_t)e[2]);
    char num[24];
    for (s = 0; s < ir->n_stmts; s++)
        for (i = 0; i < ir->stmts[s].n_nodes; i++) {
            const tc_ir_node *nd = &ir->stmts[s].nodes[i];
            if (!tc__ocl_is_gather(ir, nd) || ++code != e[0]) continue;
            if (e[1] < 0 || e[1] >= ir->tensors[nd->tensor].rank) break;
            tc_ir_index_format(&ir->stmts[s], &nd->index[e[1]], v, num, sizeof num);
            return tc__ocl_error(err, TC_ERR_BOUNDS,
                                 "index %s out of range [0, %lld) in dimension %d of %s, read by "
                                 "`%s` (line %d)",
                                 num,
                                 (long long)J->sx[ir->tensors[nd->tensor].extent[e[1]]], e[1],
                                 ir->tensors[nd->tensor].name,
                                 ir->stmts[s].text ? ir->stmts[s].text : "?", ir->stmts[s].line);
        }
    return tc__ocl_error(err, TC_ERR_BOUNDS, "a gather read out of range (code %d)", e[0]);
}

/* Reads back the error word, then the outputs into scratch; the caller's
   tensors are written only after everything succeeded. */
TC__OCL_PRIVATE tc_status tc__ocl_job_finish(tc__ocl_job *J, tc_error *err) {
    const tc_ir_def *ir = J->ir;
    int e[4] = {0, 0, 0, 0}, i, k;
    cl_int rc = clEnqueueReadBuffer(J->r->queue, J->errbuf, CL_TRUE, 0, sizeof e, e, 0, NULL, NULL);
    if (rc != CL_SUCCESS) return tc__ocl_cl_fail(err, "clEnqueueReadBuffer", rc);
    if (e[0] != 0) return tc__ocl_bounds_error(J, e, err);
    for (i = 0; i < ir->n_outputs; i++) {
        int t = ir->n_inputs + i;
        if (!J->host[i]) continue;
        rc = clEnqueueReadBuffer(J->r->queue, J->buf[t], CL_TRUE, 0, tc__ocl_bytes(J, t),
                                 J->host[i], 0, NULL, NULL);
        if (rc != CL_SUCCESS) return tc__ocl_cl_fail(err, "clEnqueueReadBuffer", rc);
    }
    for (i = 0; i < ir->n_outputs; i++) {
        tc_tensor *o = &J->d->outputs[i];
        if (tc__ocl_discarded(J, i)) continue;
        if (o->data) {
            if (J->host[i]) memcpy(o->data, J->host[i], tc__ocl_bytes(J, ir->n_inputs + i));
            continue;
        }
        if (!J->host[i]) J->host[i] = tc__ocl_alloc(&J->r->alloc, 1); /* empty tensor */
        if (!J->host[i]) return tc__ocl_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (i = 0; i < ir->n_outputs; i++) { /* nothing can fail from here on */
        tc_tensor *o = &J->d->outputs[i];
        const tc_ir_tensor *t = &ir->tensors[ir->n_inputs + i];
        if (o->data || tc__ocl_discarded(J, i)) continue;
        o->data = J->host[i];
        J->host[i] = NULL;
        o->dtype = t->dtype;
        o->rank = t->rank;
        o->strides = NULL;
        for (k = 0; k < TC_MAX_RANK; k++) o->shape[k] = k < t->rank ? J->sx[t->extent[k]] : 0;
    }
    return TC_OK;
}

TC_OCL_API tc_status tc_ocl_run(tc_ocl_runner *r, const tc_program *p, const tc_run_desc *d,
                                tc_error *err) {
    tc__ocl_job J;
    tc_error local;
    tc_status st;
    if (!err) err = &local;
    memset(err, 0, sizeof *err);
    if (!r || !p || !d)
        return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "tc_ocl_run: NULL argument");
    memset(&J, 0, sizeof J);
    J.r = r;
    J.d = d;
    J.def = tc_program_find(p, d->entry);
    if (J.def < 0) {
        if (d->entry) return tc__ocl_error(err, TC_ERR_NAME, "no def named %s", d->entry);
        return tc__ocl_error(err, TC_ERR_INVALID_ARGUMENT, "the program has no def");
    }
    J.ir = tc_program_ir(p, J.def);
    if (!tc__ocl_job_alloc(&J)) st = tc__ocl_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    else st = tc__ocl_job_check(&J, p, err);
    if (st == TC_OK)
        st = tc__ocl_get_program(r, J.ir, r->sizes_as_args ? NULL : J.sx, &J.entry, err);
    if (st == TC_OK) st = tc__ocl_job_buffers(&J, err);
    if (st == TC_OK) st = tc__ocl_job_launch(&J, err);
    if (st == TC_OK) st = tc__ocl_job_finish(&J, err);
    tc__ocl_job_free(&J);
    return st;
}

TC_OCL_API void tc_ocl_tensor_free(tc_ocl_runner *r, tc_tensor *t) {
    if (!t || !t->data) return;
    tc__ocl_free(r ? &r->alloc : NULL, t->data);
    t->data = NULL;
}
#endif /* TC_OPENCL_RUNNER */

#endif /* TC_OPENCL_IMPLEMENTATION */
