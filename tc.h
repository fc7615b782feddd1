/* tc.h - v0.1.0 - Tensor Comprehensions in one C header - MIT licence (end of file)

   QUICK START
       #define TC_IMPLEMENTATION      // in exactly one .c or .cpp file
       #include "tc.h"

       const char *src =
           "def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }";
       tc_compile_desc cd = {0};
       tc_program *prog = NULL;
       tc_error err;
       cd.source = src;
       if (tc_compile(&cd, &prog, &err) != TC_OK) { ...report err.msg at err.line:err.col... }

       float a[2*3], b[3*4], c[2*4];
       tc_tensor in[2] = {0}, out[1] = {0};
       in[0].dtype = TC_FLOAT32; in[0].rank = 2; in[0].shape[0] = 2; in[0].shape[1] = 3; in[0].data = a;
       in[1].dtype = TC_FLOAT32; in[1].rank = 2; in[1].shape[0] = 3; in[1].shape[1] = 4; in[1].data = b;
       out[0].data = c;                    // shape and dtype are checked; NULL data = allocate
       tc_run_desc rd = {0};
       rd.inputs = in;   rd.n_inputs = 2;
       rd.outputs = out; rd.n_outputs = 1;
       tc_run(prog, &rd, &err);
       tc_program_free(prog);

   BUILD
       cc -O2 -pthread app.c -lm            (add -march=native for the fastest VM)

   CONFIGURATION (define before the implementation include)
       macro                              default          meaning
       TC_STATIC                          off              every API function static
       TC_MALLOC/TC_REALLOC/TC_FREE       libc             all three or none; (size,ud) (p,old,new,ud) (p,ud)
       TC_ASSERT(c)                       assert(c)        internal invariants only, never user input
       TC_NO_THREADS                      off              same API, every run on the calling thread
       TC_MAX_THREADS                     64               largest pool
       TC_BLOCK                           256              VM lanes per instruction
       TC_MAX_RANK                        8                tensor rank limit (header part too)
       TC_MAX_DEPTH                       256              expression nesting limit
       TC_MAX_SOURCE                      16 MiB           source length limit

   THREADING CONTRACT
       A tc_program is immutable after tc_compile: any number of threads may
       run it at once. A tc_plan and a tc_pool belong to one caller thread at a
       time. Results are bitwise identical for every thread count: threads
       only split loops that do not reduce, in chunks fixed by the sizes.

   ERRORS
       Every fallible call returns tc_status (TC_OK == 0) and fills the
       optional tc_error: code, 1-based line:col and byte span for source
       errors, and a message in TC's terms. tc_error_format() renders
       "file:line:col: error: msg", the source line and a caret. The library
       never prints, exits or aborts; failures leave caller outputs untouched.

   LIMITS & UNTRUSTED INPUT
       Source text, shapes and data may be hostile: nesting depth, rank,
       source size and every size product are bounded and checked; gathers
       are bounds-checked unless the caller opts out per run.

   BYTECODE
       See [tc:bytecode]: the VM's instruction set, generated from one
       X-macro table (also printed by `tc disasm`).

   RECENT CHANGES
       0.1.0  first release: front end, range inference, loop-nest IR, VM.
*/
#ifndef TC_H_INCLUDED
#define TC_H_INCLUDED

/* ==== [tc:version] ======================================================= */
#define TC_VERSION_MAJOR 0
#define TC_VERSION_MINOR 1
#define TC_VERSION_PATCH 0
#define TC_VERSION_NUM (TC_VERSION_MAJOR * 10000 + TC_VERSION_MINOR * 100 + TC_VERSION_PATCH)
#define TC_VERSION_STRING "0.1.0"

/* ==== [tc:api-config] ===================================================== */
#include <stddef.h>
#include <stdint.h>

#if defined(TC_STATIC) && (defined(__GNUC__) || defined(__clang__))
#define TC_API static __attribute__((unused))
#elif defined(TC_STATIC)
#define TC_API static
#elif defined(__cplusplus)
#define TC_API extern "C"
#else
#define TC_API extern
#endif

#ifndef TC_MAX_RANK
#define TC_MAX_RANK 8
#endif

/* ==== [tc:types] Status codes, errors, allocator, dtypes, tensors ========= */

/* Status codes: stable and append-only. Tests assert codes, never text. */
/* clang-format off */
#define TC_STATUS_LIST(X)                                                           \
    X(OK,                   "ok")                                                   \
    X(ERR_OUT_OF_MEMORY,    "out of memory")                                        \
    X(ERR_INVALID_ARGUMENT, "invalid argument")                                     \
    X(ERR_SYNTAX,           "syntax error")                                         \
    X(ERR_NAME,             "undefined or duplicate name")                          \
    X(ERR_TYPE,             "type error")                                           \
    X(ERR_RANGE,            "cannot infer index range")                             \
    X(ERR_SHAPE,            "tensor shape does not match the signature")            \
    X(ERR_BOUNDS,           "access out of bounds")                                 \
    X(ERR_LIMIT,            "implementation limit exceeded")                        \
    X(ERR_UNSUPPORTED,      "not supported")                                        \
    X(ERR_BACKEND,          "back-end failure")
/* clang-format on */
typedef enum tc_status {
#define TC__STATUS_ENUM(name, msg) TC_##name,
    TC_STATUS_LIST(TC__STATUS_ENUM)
#undef TC__STATUS_ENUM
    TC_STATUS_COUNT
} tc_status;

typedef struct tc_error {
    tc_status code;
    int line, col;      /* 1-based; 0 when not tied to the source */
    int offset, length; /* byte span in the source, for carets */
    char msg[320];      /* NUL-terminated; inline, so reporting OOM allocates nothing */
} tc_error;

typedef struct tc_allocator { /* all NULL: TC_MALLOC & co. */
    void *(*alloc_fn)(size_t size, void *user);
    void *(*realloc_fn)(void *p, size_t old_size, size_t new_size, void *user);
    void (*free_fn)(void *p, void *user);
    void *user;
} tc_allocator;

/* Element types. name: TC spelling; size in bytes; kind: 'b' bool, 'i' signed,
   'u' unsigned, 'f' float; npy: the numpy descr (little-endian). float16 is a
   storage type: loaded into float32, rounded to nearest-even on store. */
/* clang-format off */
#define TC_DTYPES(X)                          \
    X(BOOL,    "bool",    1, 'b', "|b1")      \
    X(INT8,    "int8",    1, 'i', "|i1")      \
    X(INT16,   "int16",   2, 'i', "<i2")      \
    X(INT32,   "int32",   4, 'i', "<i4")      \
    X(INT64,   "int64",   8, 'i', "<i8")      \
    X(UINT8,   "uint8",   1, 'u', "|u1")      \
    X(UINT16,  "uint16",  2, 'u', "<u2")      \
    X(UINT32,  "uint32",  4, 'u', "<u4")      \
    X(UINT64,  "uint64",  8, 'u', "<u8")      \
    X(FLOAT16, "float16", 2, 'f', "<f2")      \
    X(FLOAT32, "float32", 4, 'f', "<f4")      \
    X(FLOAT64, "float64", 8, 'f', "<f8")
/* clang-format on */
typedef enum tc_dtype {
#define TC__DTYPE_ENUM(name, str, size, kind, npy) TC_##name,
    TC_DTYPES(TC__DTYPE_ENUM)
#undef TC__DTYPE_ENUM
    TC_DTYPE_COUNT
} tc_dtype;

TC_API const char *tc_dtype_name(tc_dtype t);      /* "float32"; NULL when out of range */
TC_API size_t tc_dtype_size(tc_dtype t);           /* bytes per element; 0 when out of range */
TC_API const char *tc_dtype_npy(tc_dtype t);       /* "<f4" */
TC_API int tc_dtype_from_name(const char *s, tc_dtype *out); /* TC names and aliases; 1 found */

/* A tensor: C-order (row-major) unless strides are given (in elements,
   inputs only). A 0-rank tensor is a scalar: rank 0, one element. */
typedef struct tc_tensor {
    tc_dtype dtype;
    int rank;
    int64_t shape[TC_MAX_RANK];
    const int64_t *strides; /* NULL: contiguous */
    void *data;
} tc_tensor;

typedef struct tc_program tc_program; /* opaque, immutable, shareable across threads */
typedef struct tc_pool tc_pool;       /* worker threads, owned by the caller */
typedef struct tc_plan tc_plan;       /* per-shape run state, reusable, one thread at a time */

typedef struct tc_compile_desc { /* zero-initialise; 0 / NULL = default */
    const char *source;          /* NUL-terminated TC text (copied) */
    const char *name;            /* shown in errors; NULL = "<tc>" */
    tc_allocator allocator;      /* kept by the program, used for its runs too */
    int max_depth;               /* 0 = TC_MAX_DEPTH */
} tc_compile_desc;

typedef struct tc_run_desc { /* zero-initialise */
    const char *entry;       /* def name; NULL = the only def, or the last one */
    const tc_tensor *inputs; /* in parameter order */
    int n_inputs;
    tc_tensor *outputs;      /* in return order; data NULL = allocated (then dtype,
                                rank and shape are filled in; free with tc_tensor_free) */
    int n_outputs;
    tc_pool *pool;           /* NULL: the calling thread only */
    int unchecked_gathers;   /* 1: skip data-dependent bounds checks (unsafe, faster) */
} tc_run_desc;

/* ==== [tc:api] ============================================================ */

/* Version of the implementation compiled in (catches mismatched headers). */
TC_API int tc_version(void);

TC_API const char *tc_status_name(tc_status s);    /* "TC_ERR_SYNTAX" */
TC_API const char *tc_status_message(tc_status s); /* "syntax error" */
/* Renders "file:line:col: error: msg\n<source line>\n<caret>\n" (no source
   lines when e->line is 0). src may be NULL. Returns the length it wanted
   (snprintf-style); buf may be NULL when cap is 0. */
TC_API int tc_error_format(const tc_error *e, const char *file, const char *src, char *buf,
                           size_t cap);

/* Parses, checks, infers ranges, lowers and compiles every def of a source.
   On success *out owns everything (free with tc_program_free). On failure
   *out is NULL and err says why. Thread-safe (no shared state). */
TC_API tc_status tc_compile(const tc_compile_desc *d, tc_program **out, tc_error *err);
TC_API void tc_program_free(tc_program *p); /* NULL is a no-op */

/* Warnings collected at compile time (never printed). Pointers live as long
   as the program. */
TC_API int tc_program_num_warnings(const tc_program *p);
TC_API const tc_error *tc_program_warning(const tc_program *p, int i);
TC_API const char *tc_program_source(const tc_program *p); /* the program's copy */

/* Defs: count, lookup by name (-1 when absent; NULL name = default entry),
   and the def's loop-nest IR ([tc:ir]), which also lists its inputs, outputs
   and temporaries with names, dtypes, ranks and symbolic extents. */
TC_API int tc_program_num_defs(const tc_program *p);
TC_API int tc_program_find(const tc_program *p, const char *name);
struct tc_ir_def;
TC_API const struct tc_ir_def *tc_program_ir(const tc_program *p, int def);

/* Output shapes for given input shapes (and 0-rank integer inputs used in
   sizes, read from their data). Fills dtype, rank and shape of each of the
   n_outputs outputs; data is left alone. */
TC_API tc_status tc_infer_shapes(const tc_program *p, const char *entry, const tc_tensor *inputs,
                                 int n_inputs, tc_tensor *outputs, int n_outputs, tc_error *err);

/* One run: checks shapes, size-variable consistency, preconditions and
   output buffers, then runs. Outputs are not written when a check fails. */
TC_API tc_status tc_run(const tc_program *p, const tc_run_desc *d, tc_error *err);
/* Frees an output that tc_run allocated (data set to NULL). */
TC_API void tc_tensor_free(const tc_program *p, tc_tensor *t);

/* Plans: everything a run needs for fixed input shapes, made once. A run
   through a plan with caller-provided outputs allocates nothing. Inputs to
   tc_plan_run must have the shapes the plan was made for. */
TC_API tc_status tc_plan_create(const tc_program *p, const tc_run_desc *d, tc_plan **out,
                                tc_error *err);
TC_API tc_status tc_plan_run(tc_plan *plan, const tc_run_desc *d, tc_error *err);
TC_API void tc_plan_free(tc_plan *plan);

/* Thread pools: n_threads workers in all (the caller counts as one).
   Workers sleep when idle. a may be NULL (default allocator). */
TC_API tc_status tc_pool_create(int n_threads, const tc_allocator *a, tc_pool **out,
                                tc_error *err);
TC_API int tc_pool_num_threads(const tc_pool *pool);
TC_API void tc_pool_free(tc_pool *pool);

/* Binds size variables from input shapes (and 0-rank integer inputs used
   in sizes), evaluates every size expression of def into sx_values (n_sx
   entries) and verifies everything a run needs before it may write:
   size-variable consistency, constant dims, negative extents, declared
   output dims and the def's run-time checks. Back ends call this first. */
TC_API tc_status tc_bind_sizes(const tc_program *p, int def, const tc_tensor *inputs,
                               int n_inputs, int64_t *sx_values, tc_error *err);

/* Text renderings for tools (snprintf-style return values). */
TC_API int tc_disasm(const tc_program *p, int def, char *buf, size_t cap);
TC_API int tc_ir_format_loops(const struct tc_ir_def *d, char *buf, size_t cap);

/* ==== [tc:ir] The loop-nest IR: read-only, back-end neutral ================
   One tc_ir_def per def, after checking, call inlining and range inference.
   It is what the VM compiles and what tc_opencl.h emits OpenCL C from.

   Size expressions (sx): integer expressions over size variables, 0-rank
   integer inputs and constants, kept as a DAG in topological order (an
   operand's id is below its user's), so one forward pass evaluates them
   all. DIV and MOD round toward negative infinity; x/0 and x%0 are 0.

   Tensors: inputs (parameter order), outputs (return order), temporaries.
   extent[d] is the sx of the size of dimension d; min[d] the sx of the
   lowest index written (0 for inputs).

   Statements run in order. Statement s writes tensor `tensor` at
   (loop 0, ..., loop rank-1): the left-hand index variables are loops 0 ..
   rank-1 in left-hand order; reduction loops follow. Loop l runs over
   [sx lo, sx hi). With init set, every element of the tensor is first set
   to the reduction's identity. The value (node `value`) is then combined
   with the stored element by `reduce` (ASSIGN stores it).

   Expression nodes are in topological order too. Every node is typed, and
   the IR is explicit: operands of arithmetic and comparisons have one
   dtype (sema inserted CASTs); float16 never appears as a node dtype
   (float16 tensors are read as float32 and the store rounds); the value's
   dtype is the written tensor's compute dtype (float32 for float16). An
   index expression is affine (sum of coef[l] * loop l, plus sx offset) or
   general (an int node, a gather: bounds-checked at run time). Reads in
   the unselected branch of SELECT must never touch memory.

   Checks: conditions on sizes verified once per run before anything is
   written (run-time preconditions, declared output dims, where ranges on
   left-hand indices). A check with stmt >= 0 applies only when that
   statement's iteration domain is non-empty. */

/* clang-format off */
#define TC_SX_OPS(X)                                \
    X(CONST,  0, "constant `value`")                \
    X(VAR,    0, "size variable number `value`")    \
    X(SCALAR, 0, "value of 0-rank integer input number `value`") \
    X(ADD,    2, "a + b")                           \
    X(SUB,    2, "a - b")                           \
    X(MUL,    2, "a * b")                           \
    X(DIV,    2, "a / b (floor; x/0 = 0)")          \
    X(MOD,    2, "a % b (sign of b; x%0 = 0)")      \
    X(MIN,    2, "min(a, b)")                       \
    X(MAX,    2, "max(a, b)")
/* clang-format on */
typedef enum tc_sx_op {
#define TC__SX_ENUM(name, arity, doc) TC_SX_##name,
    TC_SX_OPS(TC__SX_ENUM)
#undef TC__SX_ENUM
    TC_SX_OP_COUNT
} tc_sx_op;

typedef struct tc_sx {
    tc_sx_op op;
    int a, b;      /* operand ids (binary ops) */
    int64_t value; /* CONST value, VAR size-variable index, SCALAR input index */
} tc_sx;

/* Reductions: TC spelling without `!`. */
/* clang-format off */
#define TC_REDUCTIONS(X)        \
    X(ASSIGN, "=")              \
    X(SUM,    "+=")             \
    X(PROD,   "*=")             \
    X(MIN,    "min=")           \
    X(MAX,    "max=")
/* clang-format on */
typedef enum tc_reduce {
#define TC__REDUCE_ENUM(name, str) TC_REDUCE_##name,
    TC_REDUCTIONS(TC__REDUCE_ENUM)
#undef TC__REDUCE_ENUM
    TC_REDUCE_COUNT
} tc_reduce;

/* Builtin functions (SEMANTICS.md §3): float in, float out, CUDA/C99
   meaning. name, arity. min and max are IR ops, not builtins. */
/* clang-format off */
#define TC_BUILTINS(X)                                                              \
    X(ACOS, "acos", 1) X(ACOSH, "acosh", 1) X(ASIN, "asin", 1) X(ASINH, "asinh", 1)  \
    X(ATAN, "atan", 1) X(ATANH, "atanh", 1) X(CBRT, "cbrt", 1) X(CEIL, "ceil", 1)    \
    X(COS, "cos", 1) X(COSH, "cosh", 1) X(COSPI, "cospi", 1)                         \
    X(CYL_BESSEL_I0, "cyl_bessel_i0", 1) X(CYL_BESSEL_I1, "cyl_bessel_i1", 1)        \
    X(ERF, "erf", 1) X(ERFC, "erfc", 1) X(ERFCINV, "erfcinv", 1) X(ERFCX, "erfcx", 1) \
    X(ERFINV, "erfinv", 1) X(EXP, "exp", 1) X(EXP10, "exp10", 1) X(EXP2, "exp2", 1)  \
    X(EXPM1, "expm1", 1) X(FABS, "fabs", 1) X(FLOOR, "floor", 1) X(J0, "j0", 1)      \
    X(J1, "j1", 1) X(LGAMMA, "lgamma", 1) X(LOG, "log", 1) X(LOG10, "log10", 1)      \
    X(LOG1P, "log1p", 1) X(LOG2, "log2", 1) X(LOGB, "logb", 1)                       \
    X(NORMCDF, "normcdf", 1) X(NORMCDFINV, "normcdfinv", 1) X(RCBRT, "rcbrt", 1)     \
    X(ROUND, "round", 1) X(RSQRT, "rsqrt", 1) X(SIN, "sin", 1) X(SINH, "sinh", 1)    \
    X(SINPI, "sinpi", 1) X(SQRT, "sqrt", 1) X(TAN, "tan", 1) X(TANH, "tanh", 1)      \
    X(TGAMMA, "tgamma", 1) X(TRUNC, "trunc", 1) X(Y0, "y0", 1) X(Y1, "y1", 1)        \
    X(ATAN2, "atan2", 2) X(COPYSIGN, "copysign", 2) X(FDIM, "fdim", 2)               \
    X(FDIVIDE, "fdivide", 2) X(FMAX, "fmax", 2) X(FMIN, "fmin", 2) X(FMOD, "fmod", 2) \
    X(HYPOT, "hypot", 2) X(NEXTAFTER, "nextafter", 2) X(POW, "pow", 2)               \
    X(REMAINDER, "remainder", 2) X(RHYPOT, "rhypot", 2)                              \
    X(FMA, "fma", 3) X(NORM3D, "norm3d", 3) X(RNORM3D, "rnorm3d", 3)                 \
    X(NORM4D, "norm4d", 4) X(RNORM4D, "rnorm4d", 4)
/* clang-format on */
typedef enum tc_builtin {
#define TC__BUILTIN_ENUM(id, name, arity) TC_BUILTIN_##id,
    TC_BUILTINS(TC__BUILTIN_ENUM)
#undef TC__BUILTIN_ENUM
    TC_BUILTIN_COUNT
} tc_builtin;
TC_API const char *tc_builtin_name(tc_builtin b); /* "tanh" */
TC_API int tc_builtin_arity(tc_builtin b);

/* Expression node operations. nargs: operand count (-1: CALL, see arity). */
/* clang-format off */
#define TC_IR_OPS(X)                                                           \
    X(CONST,  0, "constant: ival (bool/int/uint, bit pattern) or fval")         \
    X(INDEX,  0, "value of loop `loop` (int32)")                               \
    X(SIZE,   0, "value of size expression `sx` (int32)")                      \
    X(READ,   0, "tensor `tensor` at index[0..rank-1]")                        \
    X(NEG,    1, "-a")                                                         \
    X(NOT,    1, "!a (bool)")                                                  \
    X(ADD,    2, "a + b")                                                      \
    X(SUB,    2, "a - b")                                                      \
    X(MUL,    2, "a * b")                                                      \
    X(DIV,    2, "a / b (ints: floor, x/0 = 0)")                               \
    X(MOD,    2, "a % b (ints: sign of b, x%0 = 0; floats: fmod)")             \
    X(LT,     2, "a < b (bool)")                                               \
    X(LE,     2, "a <= b (bool)")                                              \
    X(GT,     2, "a > b (bool)")                                               \
    X(GE,     2, "a >= b (bool)")                                              \
    X(EQ,     2, "a == b (bool)")                                              \
    X(NE,     2, "a != b (bool)")                                              \
    X(AND,    2, "a && b (bool)")                                              \
    X(OR,     2, "a || b (bool)")                                              \
    X(MIN,    2, "min(a, b)")                                                  \
    X(MAX,    2, "max(a, b)")                                                  \
    X(SELECT, 3, "a ? b : c (only the selected branch is evaluated)")          \
    X(CAST,   1, "a converted to the node's dtype")                            \
    X(CALL,  -1, "builtin `builtin`(args)")
/* clang-format on */
typedef enum tc_ir_op {
#define TC__IR_OP_ENUM(name, nargs, doc) TC_IR_##name,
    TC_IR_OPS(TC__IR_OP_ENUM)
#undef TC__IR_OP_ENUM
    TC_IR_OP_COUNT
} tc_ir_op;

typedef enum tc_tensor_kind { TC_TENSOR_INPUT, TC_TENSOR_OUTPUT, TC_TENSOR_TEMP } tc_tensor_kind;

typedef struct tc_ir_tensor {
    const char *name;
    tc_dtype dtype;
    int rank;
    tc_tensor_kind kind;
    int extent[TC_MAX_RANK]; /* sx ids */
    int min[TC_MAX_RANK];    /* sx ids: lowest index written */
} tc_ir_tensor;

typedef struct tc_ir_index { /* one dimension of a tensor read */
    int affine;              /* 1: sum(coef[l] * loop l) + sx offset; 0: node `node` */
    const int64_t *coef;     /* n_loops coefficients (affine only) */
    int offset;              /* sx id (affine only) */
    int node;                /* int node id (general only) */
} tc_ir_index;

typedef struct tc_ir_node {
    tc_ir_op op;
    tc_dtype dtype;          /* never FLOAT16 */
    int nargs;
    int args[4];             /* operand node ids */
    int64_t ival;            /* CONST (non-float dtypes) */
    double fval;             /* CONST (float dtypes) */
    int loop;                /* INDEX */
    int sx;                  /* SIZE */
    int tensor;              /* READ */
    const tc_ir_index *index; /* READ: tensor rank entries */
    tc_builtin builtin;      /* CALL */
} tc_ir_node;

typedef struct tc_ir_loop {
    const char *name; /* the TC index variable */
    int lo, hi;       /* sx ids, half-open */
    int reduction;    /* 1 for a reduction index */
} tc_ir_loop;

typedef struct tc_ir_stmt {
    int tensor; /* written tensor */
    tc_reduce reduce;
    int init;   /* `!`: set the whole tensor to the identity first */
    int n_loops;
    const tc_ir_loop *loops;
    int n_nodes;
    const tc_ir_node *nodes;
    int value;        /* node id of the right-hand side */
    int line;         /* of the statement in the source */
    const char *text; /* the statement as written (one line, for comments) */
} tc_ir_stmt;

typedef enum tc_check_kind { TC_CHECK_LE, TC_CHECK_EQ } tc_check_kind;
typedef struct tc_ir_check {
    tc_check_kind kind; /* sx a <= sx b, or sx a == sx b */
    int a, b;
    int stmt;           /* -1: always; else only if that statement's domain is non-empty */
    const char *what;   /* e.g. "read C(i + j) at line 3: dimension 0 of C" */
} tc_ir_check;

typedef struct tc_ir_def {
    const char *name;
    int n_inputs, n_outputs, n_tensors;
    const tc_ir_tensor *tensors; /* inputs, outputs, temporaries */
    int n_sizevars;
    const char *const *sizevars;
    int n_sx;
    const tc_sx *sx;
    int n_stmts;
    const tc_ir_stmt *stmts;
    int n_checks;
    const tc_ir_check *checks;
    int line; /* of the def */
} tc_ir_def;

/* Renders sx `id` in TC terms ("H - KH + 1"). snprintf-style. */
TC_API int tc_sx_format(const tc_ir_def *d, int id, char *buf, size_t cap);
/* Evaluates every sx of d. var_values: n_sizevars values; input_values: one
   per input (only 0-rank integer inputs used in sizes are read; may be NULL
   when there are none). out: n_sx values. Fails on overflow. */
TC_API tc_status tc_sx_eval(const tc_ir_def *d, const int64_t *var_values,
                            const int64_t *input_values, int64_t *out, tc_error *err);

#endif /* TC_H_INCLUDED */

/* ========================================================================== */
/*                              IMPLEMENTATION                                */
/* ========================================================================== */
#if defined(TC_IMPLEMENTATION) && !defined(TC__IMPLEMENTED)
#define TC__IMPLEMENTED
/* Development layout: the sections live in src/ and are inlined into this
   file for release. Order is the pipeline order. */
#include "src/tc_core.h"
#include "src/tc_lex_parse.h"
#include "src/tc_sema.h"
#include "src/tc_math.h"
#include "src/tc_contract.h"
#include "src/tc_vm.h"
#include "src/tc_print.h"
#include "src/tc_api.h"
#endif /* TC_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
MIT License

Copyright (c) 2026 the tc.h authors

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
