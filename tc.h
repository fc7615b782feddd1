/* tc.h - v0.3.0 - Tensor Comprehensions in one C header - MIT licence (end of file)

   QUICK START
       #define TC_IMPLEMENTATION      // in exactly one .c or .cpp file
       #include "tc.h"

       const char *src =
           "def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }";
       tc_compile_desc cd;                 // zeroed: every field 0 / NULL is a default
       tc_program *prog = NULL;
       tc_error err;
       memset(&cd, 0, sizeof cd);          // (memset, not = {0}: C++ too)
       cd.source = src;
       if (tc_compile(&cd, &prog, &err) != TC_OK) { ...report err.msg at err.line:err.col... }

       float a[2*3], b[3*4], c[2*4];
       tc_tensor in[2], out[1];
       tc_run_desc rd;
       memset(in, 0, sizeof in); memset(out, 0, sizeof out); memset(&rd, 0, sizeof rd);
       in[0].dtype = TC_FLOAT32; in[0].rank = 2; in[0].shape[0] = 2; in[0].shape[1] = 3; in[0].data = a;
       in[1].dtype = TC_FLOAT32; in[1].rank = 2; in[1].shape[0] = 3; in[1].shape[1] = 4; in[1].data = b;
       out[0].dtype = TC_FLOAT32; out[0].rank = 2; out[0].shape[0] = 2; out[0].shape[1] = 4;
       out[0].data = c;                    // dtype and shape are checked; data NULL = allocate
       rd.inputs = in;   rd.n_inputs = 2;
       rd.outputs = out; rd.n_outputs = 1;
       if (tc_run(prog, &rd, &err) != TC_OK) { ...report err.msg... }
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
       TC_BLOCK                           2048             VM lanes a register holds (a
                                                           statement may use fewer a block)
       TC_STREAM_BYTES                    16 MiB           a statement that moves this much (its
                                                           output and what it reads) writes an
                                                           output that nothing reads later past
                                                           the caches, unless a builtin makes it
                                                           (0: never)
       TC_SEG_LANES                       65536            a reduction of twice this many values
                                                           or more an output element runs in
                                                           segments of about this many (along its
                                                           row, or its outer reduction loop), on
                                                           every thread (fixed order)
       TC_FAST_FMA                        detected         1: fma-based kernels (builtins' polynomials,
                                                           x / s without a divider), 0: none
       TC_MAX_RANK                        8                tensor rank limit (header part too)
       TC_MAX_DEPTH                       256              expression nesting limit; tc_compile
                                                           recurses per level: at -O2 it needs
                                                           about 96 KiB of stack at 256, 384 KiB
                                                           at 1024 (more unoptimized)
       TC_MAX_SOURCE                      16 MiB           source length limit

   THREADING CONTRACT
       A tc_program is immutable after tc_compile: any number of threads may
       run it at once. A tc_plan and a tc_pool belong to one caller thread at a
       time. Results are bitwise identical for every thread count: threads
       split loops that do not reduce, and long reductions' segments
       (TC_SEG_LANES), whose boundaries the sizes alone fix; a matrix
       product's blocks of k may run on different threads, one after
       another, in k order. However the work is chunked, each element's
       operations come in the same order.

   ERRORS
       Every fallible call returns tc_status (TC_OK == 0) and fills the
       optional tc_error: code, 1-based line:col and byte span for source
       errors, and a message in TC's terms. tc_error_format() renders
       "file:line:col: error: msg", the source line and a caret. The library
       never prints, exits or aborts; failures leave caller outputs untouched.

   INTERMEDIATE OUTPUTS
       A def returns every tensor it wants to name (softmax's e). Outputs the
       caller does not need go in tc_run_desc.discard (one flag per output):
       they become temporaries, their tc_tensor is left untouched and not
       checked (it may be left zeroed), and one that
       only a group of row-by-row statements uses stays per thread in cache,
       a chunk of rows at a time, never written to memory.

   LIMITS & UNTRUSTED INPUT
       Source text, shapes and data may be hostile: nesting depth, rank,
       source size and every size product are bounded and checked; gathers
       are bounds-checked unless the caller opts out per run.

   BYTECODE
       See [tc:bytecode]: the VM's instruction set, generated from one
       X-macro table (also printed by `tc disasm`).

   RECENT CHANGES
       0.3.0  tc_plan_describe (`tc explain`); short rows merged or folded;
              integer and converted-operand contractions on the lane tile.
       0.2.0  tc_dtype 0 is TC_DTYPE_UNSET (every dtype's value moved up one);
              outputs may share an input's buffer; tc_program_warning_def;
              tc_pool_create(0) takes the online CPUs; `<=>` annotations.
*/
#ifndef TC_H_INCLUDED
#define TC_H_INCLUDED

/* ==== [tc:version] ======================================================= */
#define TC_VERSION_MAJOR 0
#define TC_VERSION_MINOR 3
#define TC_VERSION_PATCH 0
#define TC_VERSION_NUM (TC_VERSION_MAJOR * 10000 + TC_VERSION_MINOR * 100 + TC_VERSION_PATCH)
#define TC_VERSION_STRING "0.3.0"

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
    int line, col;      /* 1-based (col counts bytes); 0 when not tied to the source */
    int offset, length; /* byte span in the source, for carets */
    char msg[320];      /* NUL-terminated; inline, so reporting OOM allocates nothing */
} tc_error;

typedef struct tc_allocator { /* all NULL: TC_MALLOC & co.; else alloc_fn and free_fn
                                  both, realloc_fn optional (emulated when NULL) */
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
    TC_DTYPE_UNSET, /* 0: no dtype given (a zeroed tc_tensor); a run reports it, never
                       reads it as a type; tc_dtype_name and friends give NULL / 0 */
#define TC__DTYPE_ENUM(name, str, size, kind, npy) TC_##name,
    TC_DTYPES(TC__DTYPE_ENUM)
#undef TC__DTYPE_ENUM
    TC_DTYPE_COUNT
} tc_dtype;

TC_API const char *tc_dtype_name(tc_dtype t);      /* "float32"; NULL when unset or out of range */
TC_API size_t tc_dtype_size(tc_dtype t);           /* bytes per element; 0 when unset or out of range */
TC_API const char *tc_dtype_npy(tc_dtype t);       /* "<f4" */
TC_API int tc_dtype_from_name(const char *s, tc_dtype *out); /* TC names and aliases; 1 found */

/* A tensor: C-order (row-major) unless strides are given (in elements,
   inputs only). A 0-rank tensor is a scalar: rank 0, one element. */
typedef struct tc_tensor {
    tc_dtype dtype;
    int rank;
    int64_t shape[TC_MAX_RANK];
    const int64_t *strides; /* NULL: contiguous */
    void *data;             /* aligned to the element size */
} tc_tensor;

typedef struct tc_program tc_program; /* opaque, immutable, shareable across threads */
typedef struct tc_pool tc_pool;       /* worker threads, owned by the caller */
typedef struct tc_plan tc_plan;       /* per-shape run state, reusable, one thread at a time */

typedef struct tc_compile_desc { /* zero-initialise; 0 / NULL = default */
    const char *source;          /* NUL-terminated TC text (copied) */
    const char *name;            /* not read: errors name their file in tc_error_format */
    tc_allocator allocator;      /* kept by the program, used for its runs too */
    int max_depth;               /* 0 = TC_MAX_DEPTH; at most 1024 (or TC_MAX_DEPTH); the
                                    stack tc_compile needs grows with it (TC_MAX_DEPTH) */
} tc_compile_desc;

typedef struct tc_run_desc { /* zero-initialise */
    const char *entry;       /* def name; NULL = the only def, or the last one */
    const tc_tensor *inputs; /* in parameter order */
    int n_inputs;
    tc_tensor *outputs;      /* in return order; data NULL = allocated zeroed (then
                                dtype, rank and shape are filled in once the run
                                succeeds; free with tc_tensor_free). A caller's buffer
                                keeps its values where no statement writes */
    int n_outputs;
    tc_pool *pool;           /* NULL: the calling thread only */
    int unchecked_gathers;   /* 1: skip data-dependent bounds checks (unsafe, faster) */
    const unsigned char *discard; /* NULL, or n_outputs flags; nonzero: the output is not
                                wanted: computed as a temporary (softmax's e never
                                reaches memory), outputs[i] left untouched and not
                                checked (its dtype and shape may be anything, or
                                zero). A plan runs only with the flags it was made
                                with. */
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

/* Warnings collected at compile time (never printed), in source order: a
   statement that accumulates (+=, *=, min=, max= without !) into a tensor
   nothing wrote before it, and an access that range inference does not
   prove in bounds and that is checked once per run (`X(2*i + 1) where i in
   0:(I+1)/2`). Reads a ?: or && / || guards, gathers and accesses at
   constant indices (`I(y, 0)`) are checked as documented and not warned
   about. tc_program_warning_def gives the def a warning belongs to (for a
   tool that shows only the def it runs). Pointers live as long as the
   program; out-of-range i gives NULL / -1. */
TC_API int tc_program_num_warnings(const tc_program *p);
TC_API const tc_error *tc_program_warning(const tc_program *p, int i);
TC_API int tc_program_warning_def(const tc_program *p, int i);
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
   output buffers, then runs. Outputs are not written when a check fails.

   In place: a caller's output may share memory with inputs (a game's
   P2(i,c) = P(i,c) + V(i,c) * dt run with outputs[0].data ==
   inputs[0].data). The result is always the one separate buffers give,
   the output's buffer holding the input's bytes before the run (what `+=`
   without `!` accumulates into, and what elements no statement writes
   keep). Two cases:
   - direct, nothing copied: the output has exactly the input's buffer
     (same data pointer, dtype, shape and layout), and each statement
     before the output's first writer reads the input, if at all, only at
     its own loop values (X(i,j) in a statement over i, j, ...), the first
     writer reads it only at the very element it writes (pure element-wise:
     no reduction loop, no `!`), and no later statement reads it. That
     statement then runs on the fused element-wise kernels, which read
     each element before they write it, or, when it divides (/, %), on the
     bytecode with the input's blocks copied into registers first (the
     uniform-divisor kernels redo lanes from their inputs after storing);
     no contraction or window kernels. An input the def never reads may
     always share the output's buffer.
   - staged, everything else: shifted (O(i) = I(i + 1)), reversed,
     transposed or gathered reads, reductions (a matmul with C over A),
     `!` or `+=` over reduction loops reading the input, a later statement
     reading the input after the output was written, a different dtype
     over the same bytes, partial overlap (another base pointer or
     strides). The output is computed in a scratch buffer from the
     program's allocator (a copy of its bytes first) and copied over the
     caller's buffer once the run succeeded, so a failed run, out of
     memory included, leaves it untouched.
   Two outputs may not share memory (TC_ERR_INVALID_ARGUMENT, nothing
   written); outputs tc_run allocates share memory with nothing. */
TC_API tc_status tc_run(const tc_program *p, const tc_run_desc *d, tc_error *err);
/* Frees an output that tc_run allocated (data set to NULL). */
TC_API void tc_tensor_free(const tc_program *p, tc_tensor *t);

/* Plans: everything a run needs for fixed input shapes, made once. A run
   through a plan with caller-provided outputs allocates nothing, except in
   defs that gather through indices they compute themselves: those stage
   the caller's outputs in scratch so a failing gather leaves them as they
   were; and runs in place that stage (tc_run above), which allocate a
   scratch copy of each staged output per run. Whether an output may run
   in place directly is decided at tc_plan_create from the def and the
   pointers of d (an output whose data is an input's: its first writer is
   planned for it), and checked again on every tc_plan_run, whose pointers
   may differ: a run in place that the plan was made for runs directly and
   allocates nothing; one the plan was not made for (made with separate
   buffers, or with outputs NULL) stages, as do the cases tc_run stages.
   A plan made in place still runs separate buffers right. Inputs to tc_plan_run must have the
   shapes (and strides) the plan was made for; the plan copies what it
   needs of them. A plan refers to its program: run it only while the
   program lives (tc_plan_free may come after tc_program_free). */
TC_API tc_status tc_plan_create(const tc_program *p, const tc_run_desc *d, tc_plan **out,
                                tc_error *err);
TC_API tc_status tc_plan_run(tc_plan *plan, const tc_run_desc *d, tc_error *err);
TC_API void tc_plan_free(tc_plan *plan);
/* How plan runs, for people (what `tc explain` prints): per statement its
   loops as planned (lanes, rows, merged loops), the mechanism chosen and
   the property of the statement that chose it, each tensor's step along
   the lanes, and the split over threads. The wording may change between
   versions; do not parse it. snprintf-style; NULL plan: "". */
TC_API int tc_plan_describe(const tc_plan *plan, char *buf, size_t cap);

/* Thread pools: n_threads workers in all (the caller counts as one); 0
   means the online CPUs (at most TC_MAX_THREADS). Workers sleep when idle.
   a may be NULL (default allocator). */
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

/* ==== [tc:bytecode] The VM's instruction set (public for tools; unstable) ===
   One statement compiles to a straight-line program evaluated over a block
   of up to TC_BLOCK lanes along one loop (the lane loop, chosen per run).
   Loops, accumulators and stores are driven by the schedule ([tc:sched]);
   the bytecode computes the statement's value for one block.

   Instruction: op, dt (the dtype it works in), dt2 (CAST: source dtype;
   CALL: builtin; GIDX: index dtype) and operands a..e. Operand formats, one
   letter per operand in a..e order:
     V  vector register written      v  vector register read
     U  vector register read and written (int64)
     m  mask register read (bool), or 65535: every lane
     R  read slot (a tensor access of the statement)
     K  constant slot   L  loop number   S  size expression   D  dimension
   Every vector register holds TC_BLOCK lanes of the instruction's dtype.
   Lanes whose mask is 0 touch no memory: their loaded value is 0. */
/* clang-format off */
#define TC_OPCODES(X)                                                                   \
    X(CONST,  "VK",    "V[a][l] = K[b]")                                                \
    X(INDEX,  "VL",    "V[a][l] = value of loop b at lane l (int32)")                   \
    X(SIZE,   "VS",    "V[a][l] = value of size expression b (int32)")                  \
    X(LOAD,   "VRm",   "V[a][l] = read b at lane l (affine map), lanes where M[c]")     \
    X(GOFF,   "VR",    "V[a][l] = element offset of read b's affine dims (int64)")      \
    X(GIDX,   "UvRDm", "V[a][l] += V[b][l] * stride of dim d of read c; bounds-checked") \
    X(GLOAD,  "VvRm",  "V[a][l] = element V[b][l] of read c's tensor, lanes where M[d]") \
    X(NEG,    "Vv",    "V[a][l] = -V[b][l] (ints wrap)")                               \
    X(NOT,    "Vv",    "V[a][l] = !V[b][l] (bool)")                                     \
    X(CAST,   "Vv",    "V[a][l] = V[b][l] converted from dt2 (floats saturate to ints)") \
    X(HALF,   "Vv",    "V[a][l] = V[b][l] rounded to float16 (dt float32/float64)")     \
    X(ADD,    "Vvv",   "V[a][l] = V[b][l] + V[c][l] (ints wrap)")                       \
    X(SUB,    "Vvv",   "V[a][l] = V[b][l] - V[c][l] (ints wrap)")                       \
    X(MUL,    "Vvv",   "V[a][l] = V[b][l] * V[c][l] (ints wrap)")                       \
    X(DIV,    "Vvv",   "V[a][l] = V[b][l] / V[c][l] (ints: floor, x/0 = 0)")           \
    X(MOD,    "Vvv",   "V[a][l] = V[b][l] % V[c][l] (sign of divisor; ints: x%0 = 0)") \
    X(MIN,    "Vvv",   "V[a][l] = min(V[b][l], V[c][l]) (floats: NaN ignored)")         \
    X(MAX,    "Vvv",   "V[a][l] = max(V[b][l], V[c][l]) (floats: NaN ignored)")         \
    X(LT,     "Vvv",   "V[a][l] = V[b][l] < V[c][l] (bool)")                            \
    X(LE,     "Vvv",   "V[a][l] = V[b][l] <= V[c][l] (bool)")                           \
    X(GT,     "Vvv",   "V[a][l] = V[b][l] > V[c][l] (bool)")                            \
    X(GE,     "Vvv",   "V[a][l] = V[b][l] >= V[c][l] (bool)")                           \
    X(EQ,     "Vvv",   "V[a][l] = V[b][l] == V[c][l] (bool)")                           \
    X(NE,     "Vvv",   "V[a][l] = V[b][l] != V[c][l] (bool)")                           \
    X(AND,    "Vvv",   "V[a][l] = V[b][l] && V[c][l] (bool)")                           \
    X(OR,     "Vvv",   "V[a][l] = V[b][l] || V[c][l] (bool)")                           \
    X(SELECT, "Vvvv",  "V[a][l] = V[b][l] ? V[c][l] : V[d][l] (b bool)")                \
    X(CALL,   "Vvvvv", "V[a][l] = builtin dt2(V[b][l], ...) (float32/float64)")
/* clang-format on */
typedef enum tc_opcode {
#define TC__OP_ENUM(name, fmt, doc) TC_OP_##name,
    TC_OPCODES(TC__OP_ENUM)
#undef TC__OP_ENUM
    TC_OP_COUNT
} tc_opcode;

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
    X(MAX,    2, "max(a, b)")                       \
    X(LT,     2, "a < b (1 or 0)")                  \
    X(LE,     2, "a <= b (1 or 0)")                 \
    X(GT,     2, "a > b (1 or 0)")                  \
    X(GE,     2, "a >= b (1 or 0)")                 \
    X(EQ,     2, "a == b (1 or 0)")                 \
    X(NE,     2, "a != b (1 or 0)")                 \
    X(AND,    2, "a && b (1 or 0)")                 \
    X(OR,     2, "a || b (1 or 0)")                 \
    X(SELECT, 3, "`value` ? a : b (`value` is the condition's id)")
/* clang-format on */
typedef enum tc_sx_op {
#define TC__SX_ENUM(name, arity, doc) TC_SX_##name,
    TC_SX_OPS(TC__SX_ENUM)
#undef TC__SX_ENUM
    TC_SX_OP_COUNT
} tc_sx_op;

typedef struct tc_sx {
    tc_sx_op op;
    int a, b;      /* operand ids (binary ops, SELECT's two branches) */
    int64_t value; /* CONST value, VAR size-variable index, SCALAR input index,
                      SELECT's condition id (every operand id is below the node's) */
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
    X(MOD,    2, "a % b (the sign of b; ints: x%0 = 0)")                       \
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
    X(HALF,   1, "a (float32/float64) rounded to float16: the cast half(x)")     \
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
/* Renders v, index ix of statement st computed as an int64 offset, as the
   value the index held: a uint64 index (its conversion to int64 looked
   through) unsigned, 2^64 - 1 rather than -1; others signed. For back
   ends' out-of-range errors. snprintf-style. */
TC_API int tc_ir_index_format(const tc_ir_stmt *st, const tc_ir_index *ix, int64_t v, char *buf,
                              size_t cap);
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
/* ==== [tc:config] Configuration defaults and implementation includes ====== */
#if defined(TC_MALLOC) != defined(TC_FREE) || defined(TC_MALLOC) != defined(TC_REALLOC)
#error "tc.h: define all of TC_MALLOC, TC_REALLOC and TC_FREE, or none"
#endif
#if !defined(TC_MALLOC)
#include <stdlib.h>
#define TC_MALLOC(sz, ud) ((void)(ud), malloc(sz))
#define TC_REALLOC(p, oldsz, newsz, ud) ((void)(ud), (void)(oldsz), realloc((p), (newsz)))
#define TC_FREE(p, ud) ((void)(ud), free(p))
#endif
#if !defined(TC_ASSERT)
#include <assert.h>
#define TC_ASSERT(c) assert(c)
#endif
#ifndef TC_MAX_THREADS
#define TC_MAX_THREADS 64
#endif
#ifndef TC_BLOCK
#define TC_BLOCK 2048
#endif
#ifndef TC_MAX_DEPTH
#define TC_MAX_DEPTH 256
#endif
/* tc_compile_desc.max_depth's ceiling: the parser and the checker recurse
   per level of nesting, and a deeper one would overflow a thread's stack */
#define TC__MAX_DEPTH_CAP (TC_MAX_DEPTH > 1024 ? TC_MAX_DEPTH : 1024)
#ifndef TC_STREAM_BYTES /* statements moving this much stream their outputs (0: never) */
#define TC_STREAM_BYTES (16 << 20)
#endif
#ifndef TC_SEG_LANES /* a reduction along a long row: its segments' lanes */
#define TC_SEG_LANES 65536
#endif
#ifndef TC_MAX_SOURCE
#define TC_MAX_SOURCE (16 * 1024 * 1024)
#endif
#ifndef TC_ARENA_CHUNK
#define TC_ARENA_CHUNK 16384
#endif

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h> /* vsnprintf only: the library never prints */
#include <string.h>
#if !defined(TC_NO_THREADS)
#include <sched.h>  /* sched_yield: a long wait for another thread's work */
#include <unistd.h> /* sysconf: tc_pool_create(0) takes the online CPUs */
#endif
#if defined(__AVX512F__)
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
/* gcc 12's AVX-512 intrinsics warn about their own `__Y = __Y` (gcc bug
   105593) at -O2 -Wall: kept out of a -Werror build */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h> /* streaming stores, a cache line at a time */
#endif
#define TC__HAVE_STREAM 64
#elif defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h> /* streaming stores */
#define TC__HAVE_STREAM 16
#endif

/* The 16 floats at l to the cache line at d (64-byte aligned) with
   streaming stores where the target has them; the caller fences
   (tc__k_stream_fence). A macro: gcc inlines no function into the chain
   kernels (their fp-contract differs), and a call per line would keep l in
   memory and the line's lanes from being vectorized. The math blocks use
   it too (tc__math_chunk_store). */
#if defined(TC__HAVE_STREAM) && TC__HAVE_STREAM == 64
#define TC__STREAM_LINE(d, l) _mm512_stream_ps(d, _mm512_loadu_ps(l))
#elif defined(TC__HAVE_STREAM)
#define TC__STREAM_LINE(d, l)                                                                \
    do {                                                                                     \
        _mm_stream_ps((d), _mm_loadu_ps(l));                                                 \
        _mm_stream_ps((d) + 4, _mm_loadu_ps((l) + 4));                                       \
        _mm_stream_ps((d) + 8, _mm_loadu_ps((l) + 8));                                       \
        _mm_stream_ps((d) + 12, _mm_loadu_ps((l) + 12));                                     \
    } while (0)
#else
#define TC__STREAM_LINE(d, l) memcpy(d, l, 16 * sizeof(float))
#endif

/* gcc vectorizes the lane loops at -O2 only with the dynamic cost model
   (its -O2 default, "very cheap", skips loops that need a remainder: much
   slower here). The kernel sections ([tc:math], [tc:contract],
   [tc:kernels]) turn it on between these two; the rest compiles as asked. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#define TC__VECTORIZE_BEGIN                                                                   \
    _Pragma("GCC push_options") _Pragma("GCC optimize(\"tree-vectorize\", \"vect-cost-model=dynamic\")")
#define TC__VECTORIZE_END _Pragma("GCC pop_options")
#else
#define TC__VECTORIZE_BEGIN
#define TC__VECTORIZE_END
#endif
#if defined(__GNUC__) || defined(__clang__)
#define TC__PRIVATE static __attribute__((unused))
#define TC__KERNEL static __attribute__((noinline, unused))
#else
#define TC__PRIVATE static
#define TC__KERNEL static
#endif

/* ==== [tc:util] Allocation, arena, errors, strings, checked math ========== */

/* A tc_allocator is all NULL or has alloc_fn and free_fn: with one of the
   two, blocks would go to one allocator and come back to another (or
   never). TC_OK or TC_ERR_INVALID_ARGUMENT naming the caller. */
TC__PRIVATE tc_status tc__check_allocator(const tc_allocator *a, const char *who, tc_error *err);

/* Every allocation goes through the program's allocator (or the macros). */
TC__PRIVATE void *tc__mem_alloc(const tc_allocator *a, size_t size) {
    if (size == 0) size = 1;
    if (a && a->alloc_fn) return a->alloc_fn(size, a->user);
    return TC_MALLOC(size, a ? a->user : NULL);
}
TC__PRIVATE void *tc__mem_realloc(const tc_allocator *a, void *p, size_t old_size,
                                  size_t new_size) {
    if (new_size == 0) new_size = 1;
    if (a && a->realloc_fn) return a->realloc_fn(p, old_size, new_size, a->user);
    if (a && a->alloc_fn) { /* alloc+free given without realloc: emulate */
        void *q = a->alloc_fn(new_size, a->user);
        if (!q) return NULL;
        if (p) {
            memcpy(q, p, old_size < new_size ? old_size : new_size);
            if (a->free_fn) a->free_fn(p, a->user);
        }
        return q;
    }
    return TC_REALLOC(p, old_size, new_size, a ? a->user : NULL);
}
TC__PRIVATE void tc__mem_free(const tc_allocator *a, void *p) {
    if (!p) return;
    if (a && a->alloc_fn) {
        if (a->free_fn) a->free_fn(p, a->user);
        return;
    }
    TC_FREE(p, a ? a->user : NULL);
}

/* Arena: chunks from the allocator, freed all at once. Memory is zeroed and
   aligned for any scalar. A compiled program owns one arena. */
typedef struct tc__chunk {
    struct tc__chunk *next;
    size_t size, used;
    /* data follows, aligned */
} tc__chunk;
typedef struct tc__arena {
    tc_allocator alloc;
    tc__chunk *head;
} tc__arena;

#define TC__ALIGN 16
#define TC__CHUNK_HDR ((sizeof(tc__chunk) + TC__ALIGN - 1) / TC__ALIGN * TC__ALIGN)

TC__PRIVATE void *tc__arena_alloc_raw(tc__arena *A, size_t size) {
    tc__chunk *c = A->head;
    size_t need = (size + TC__ALIGN - 1) / TC__ALIGN * TC__ALIGN;
    void *p;
    if (size > ((size_t)-1) / 2) return NULL;
    if (!c || c->size - c->used < need) {
        size_t sz = need > TC_ARENA_CHUNK ? need : TC_ARENA_CHUNK;
        c = (tc__chunk *)tc__mem_alloc(&A->alloc, TC__CHUNK_HDR + sz);
        if (!c) return NULL;
        c->size = sz;
        c->used = 0;
        c->next = A->head;
        A->head = c;
    }
    p = (char *)c + TC__CHUNK_HDR + c->used;
    c->used += need;
    memset(p, 0, size);
    return p;
}
TC__PRIVATE void tc__arena_free_all(tc__arena *A) {
    tc__chunk *c = A->head;
    while (c) {
        tc__chunk *next = c->next;
        tc__mem_free(&A->alloc, c);
        c = next;
    }
    A->head = NULL;
}

/* A source span: 1-based line and column, byte offset and length. */
typedef struct tc__span {
    int line, col, offset, length;
} tc__span;

/* Compile context shared by every phase. The first error wins: once
   `failed` is set, phases unwind and return failure without reporting. */
typedef struct tc__ctx {
    tc__arena *arena;
    const char *src;  /* the program's copy of the source */
    size_t src_len;
    tc_error *err;    /* never NULL */
    int failed;
    int max_depth;
    tc_error *warnings;
    int *warning_defs; /* the def each warning belongs to */
    int n_warnings, cap_warnings, cap_warning_defs;
    int cur_def;       /* the def being compiled (-1: none yet) */
} tc__ctx;

TC__PRIVATE void tc__vformat_error(tc_error *e, tc_status code, tc__span sp, const char *fmt,
                                   va_list ap) {
    e->code = code;
    e->line = sp.line;
    e->col = sp.col;
    e->offset = sp.offset;
    e->length = sp.length;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

/* Sets a plain error (no source position) on an optional tc_error. */
TC__PRIVATE tc_status tc__set_error(tc_error *e, tc_status code, const char *fmt, ...) {
    va_list ap;
    tc__span none = {0, 0, 0, 0};
    if (!e) return code;
    va_start(ap, fmt);
    tc__vformat_error(e, code, none, fmt, ap);
    va_end(ap);
    return code;
}

TC__PRIVATE tc_status tc__check_allocator(const tc_allocator *a, const char *who, tc_error *err) {
    if (!a || (!a->alloc_fn && !a->realloc_fn && !a->free_fn) || (a->alloc_fn && a->free_fn))
        return TC_OK;
    return tc__set_error(err, TC_ERR_INVALID_ARGUMENT,
                         "%s: the allocator needs alloc_fn and free_fn (or no function at all)",
                         who);
}

/* An optional tc_error at the start of a call: a success leaves no stale
   failure in it. */
TC__PRIVATE void tc__clear_error(tc_error *e) {
    if (!e) return;
    e->code = TC_OK;
    e->line = e->col = e->offset = e->length = 0;
    e->msg[0] = '\0';
}

/* Reports the first error of a compile; always returns 0 (failure). */
TC__PRIVATE int tc__fail(tc__ctx *C, tc_status code, tc__span sp, const char *fmt, ...) {
    va_list ap;
    if (C->failed) return 0;
    C->failed = 1;
    va_start(ap, fmt);
    tc__vformat_error(C->err, code, sp, fmt, ap);
    va_end(ap);
    return 0;
}

TC__PRIVATE void *tc__alloc(tc__ctx *C, size_t size) {
    void *p;
    if (C->failed) return NULL;
    p = tc__arena_alloc_raw(C->arena, size);
    if (!p) {
        tc__span none = {0, 0, 0, 0};
        tc__fail(C, TC_ERR_OUT_OF_MEMORY, none, "out of memory (%lu bytes)",
                 (unsigned long)size);
    }
    return p;
}
/* n elements of `size` bytes, overflow-checked. */
TC__PRIVATE void *tc__alloc_n(tc__ctx *C, size_t n, size_t size) {
    if (size && n > ((size_t)-1) / 2 / size) {
        tc__span none = {0, 0, 0, 0};
        tc__fail(C, TC_ERR_LIMIT, none, "allocation size overflows");
        return NULL;
    }
    return tc__alloc(C, n * size);
}

/* Grows an arena array so it holds at least `need` elements. */
TC__PRIVATE int tc__grow(tc__ctx *C, void **ptr, int *cap, int need, size_t elem) {
    int ncap;
    void *np;
    if (need <= *cap) return 1;
    ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > INT_MAX / 2) {
            tc__span none = {0, 0, 0, 0};
            return tc__fail(C, TC_ERR_LIMIT, none, "too many elements");
        }
        ncap *= 2;
    }
    np = tc__alloc_n(C, (size_t)ncap, elem);
    if (!np) return 0;
    if (*ptr && *cap) memcpy(np, *ptr, (size_t)*cap * elem);
    *ptr = np;
    *cap = ncap;
    return 1;
}

/* FNV-1a of the name s[0..n): the def index and sema's name tables. */
TC__PRIVATE unsigned tc__name_hash(const char *s, size_t n) {
    unsigned h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Whether the NUL-terminated name is exactly s[0..n) (a token's text). */
TC__PRIVATE int tc__name_is(const char *name, const char *s, size_t n) {
    return name && strncmp(name, s, n) == 0 && name[n] == '\0';
}

/* Collects a warning (never printed by the library). */
TC__PRIVATE void tc__warn(tc__ctx *C, tc__span sp, const char *fmt, ...) {
    va_list ap;
    tc_error *w;
    if (C->failed) return;
    if (!tc__grow(C, (void **)&C->warnings, &C->cap_warnings, C->n_warnings + 1,
                  sizeof(tc_error)) ||
        !tc__grow(C, (void **)&C->warning_defs, &C->cap_warning_defs, C->n_warnings + 1,
                  sizeof(int)))
        return;
    C->warning_defs[C->n_warnings] = C->cur_def;
    w = &C->warnings[C->n_warnings++];
    va_start(ap, fmt);
    tc__vformat_error(w, TC_OK, sp, fmt, ap);
    va_end(ap);
}

TC__PRIVATE char *tc__strndup(tc__ctx *C, const char *s, size_t n) {
    char *p = (char *)tc__alloc(C, n + 1);
    if (p) memcpy(p, s, n);
    return p;
}
TC__PRIVATE char *tc__strdup(tc__ctx *C, const char *s) { return tc__strndup(C, s, strlen(s)); }
/* printf into the arena. */
TC__PRIVATE char *tc__strfmt(tc__ctx *C, const char *fmt, ...) {
    va_list ap;
    char tmp[512];
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof tmp) n = (int)sizeof tmp - 1;
    return tc__strndup(C, tmp, (size_t)n);
}

/* Checked 64-bit arithmetic: returns 0 on overflow. */
TC__PRIVATE int tc__add64(int64_t a, int64_t b, int64_t *r) {
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 0;
    *r = a + b;
    return 1;
}
TC__PRIVATE int tc__sub64(int64_t a, int64_t b, int64_t *r) {
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return 0;
    *r = a - b;
    return 1;
}
TC__PRIVATE int tc__mul64(int64_t a, int64_t b, int64_t *r) {
    if (a == 0 || b == 0) {
        *r = 0;
        return 1;
    }
    if ((a == -1 && b == INT64_MIN) || (b == -1 && a == INT64_MIN)) return 0;
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
              : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b))
        return 0;
    *r = a * b;
    return 1;
}

/* Bytes a tensor (or the reach of its strides) may span: a 64-bit size
   with room left for the offsets computed from it, and where size_t is
   narrower (32-bit targets), half its range, so every byte count the
   library allocates fits a size_t. */
#define TC__MAX_TENSOR_BYTES                                                                   \
    ((uint64_t)(SIZE_MAX >> 1) < (uint64_t)(INT64_MAX >> 4) ? (int64_t)(SIZE_MAX >> 1)        \
                                                            : (INT64_MAX >> 4))
/* *bytes *= k; 0 when that overflows or passes TC__MAX_TENSOR_BYTES. */
TC__PRIVATE int tc__bytes_times(int64_t *bytes, int64_t k) {
    return tc__mul64(*bytes, k, bytes) && *bytes <= TC__MAX_TENSOR_BYTES;
}
/* Floor division and modulo (SEMANTICS.md §4): x/0 = x%0 = 0. */
TC__PRIVATE int64_t tc__floordiv64(int64_t a, int64_t b) {
    int64_t q;
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0 - (uint64_t)a); /* wraps for INT64_MIN */
    q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}
TC__PRIVATE int64_t tc__floormod64(int64_t a, int64_t b) {
    int64_t m;
    if (b == 0 || b == -1) return 0;
    m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
}
/* Atomics for the thread pool and the work threads share in a run (where
   the compiler has them; without, one thread runs everything). */
#if defined(__GNUC__) || defined(__clang__)
#define TC__ATOMIC_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define TC__ATOMIC_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define TC__ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_ACQ_REL)
#define TC__ATOMIC_CAS(p, expected, v) \
    __atomic_compare_exchange_n((p), (expected), (v), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define TC__HAVE_ATOMICS 1
#endif

/* Asks for the cache line at an address: a hint, never dereferenced, so the
   address may lie past an array (it is computed as an integer). */
TC__PRIVATE void tc__prefetch_at(uintptr_t address) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch((const void *)address);
#else
    (void)address;
#endif
}

/* One step of a spin wait: tells the CPU (and a hyperthread beside it). */
TC__PRIVATE void tc__spin_pause(void) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    __asm__ __volatile__("pause");
#endif
}

/* One step of a wait for another thread's work (*spins: the steps so far,
   from 0): 1000 pauses, then the CPU given up at each step, for a pool
   with more threads than CPUs, where the thread waited for may need this
   one's CPU to finish. */
TC__PRIVATE void tc__spin_wait(int *spins) {
    if (*spins < 1000) {
        ++*spins;
        tc__spin_pause();
        return;
    }
#if !defined(TC_NO_THREADS)
    sched_yield();
#else
    tc__spin_pause();
#endif
}

/* x rounded to the nearest float16 value, as a double: ties to even,
   an infinity from 65520 up (the tie above 65504), NaN kept. The scaled
   value x / spacing is exact, so the rounding is decided exactly, with no
   double rounding through float32 and whatever the rounding mode. */
TC__PRIVATE double tc__round_half(double x) {
    double a = fabs(x), q, y, f;
    if (!(a < 65520.0)) return a != a ? x : copysign(HUGE_VAL, x);
    q = a < 6.103515625e-05 ? 5.9604644775390625e-08 /* below 2^-14: 2^-24 */
                         : ldexp(1.0, ilogb(a) - 10); /* float16's spacing at a */
    y = a / q;
    f = floor(y);
    if (y - f > 0.5 || (y - f == 0.5 && fmod(f, 2.0) != 0.0)) f += 1.0;
    return copysign(f * q, x);
}

/* ==== [tc:tables] Dtypes, statuses, builtins ============================== */

static const struct {
    const char *name;
    size_t size;
    char kind;
    const char *npy;
} tc__dtypes[TC_DTYPE_COUNT] = {
    {NULL, 0, 0, NULL}, /* TC_DTYPE_UNSET */
#define TC__DTYPE_INFO(name, str, size, kind, npy) {str, size, kind, npy},
    TC_DTYPES(TC__DTYPE_INFO)
#undef TC__DTYPE_INFO
};

/* Spellings accepted in source besides the canonical names. */
static const struct {
    const char *alias;
    tc_dtype dtype;
} tc__dtype_aliases[] = {{"half", TC_FLOAT16}, {"float", TC_FLOAT32}, {"double", TC_FLOAT64},
                         {"byte", TC_UINT8},   {"int", TC_INT32}};

TC_API const char *tc_dtype_name(tc_dtype t) {
    return (unsigned)t < TC_DTYPE_COUNT ? tc__dtypes[t].name : NULL;
}
TC_API size_t tc_dtype_size(tc_dtype t) {
    return (unsigned)t < TC_DTYPE_COUNT ? tc__dtypes[t].size : 0;
}
TC_API const char *tc_dtype_npy(tc_dtype t) {
    return (unsigned)t < TC_DTYPE_COUNT ? tc__dtypes[t].npy : NULL;
}
TC_API int tc_dtype_from_name(const char *s, tc_dtype *out) {
    size_t i;
    if (!s) return 0;
    for (i = 1; i < TC_DTYPE_COUNT; i++)
        if (strcmp(s, tc__dtypes[i].name) == 0) {
            if (out) *out = (tc_dtype)i;
            return 1;
        }
    for (i = 0; i < sizeof tc__dtype_aliases / sizeof tc__dtype_aliases[0]; i++)
        if (strcmp(s, tc__dtype_aliases[i].alias) == 0) {
            if (out) *out = tc__dtype_aliases[i].dtype;
            return 1;
        }
    return 0;
}
TC__PRIVATE int tc__dtype_is_float(tc_dtype t) { return tc__dtypes[t].kind == 'f'; }
TC__PRIVATE int tc__dtype_is_int(tc_dtype t) { /* integral, bool excluded */
    return tc__dtypes[t].kind == 'i' || tc__dtypes[t].kind == 'u';
}
TC__PRIVATE int tc__dtype_is_signed(tc_dtype t) { return tc__dtypes[t].kind == 'i'; }
/* Float min and max ignore NaN (C99 fmin/fmax, CUDA's min/max): the VM's
   lanes and the compile-time folding of constants. */
#define TC__FMIN(x, y) ((x) != (x) ? (y) : (y) < (x) ? (y) : (x))
#define TC__FMAX(x, y) ((x) != (x) ? (y) : (y) > (x) ? (y) : (x))

static const struct {
    const char *name, *message;
} tc__statuses[TC_STATUS_COUNT] = {
#define TC__STATUS_INFO(name, msg) {"TC_" #name, msg},
    TC_STATUS_LIST(TC__STATUS_INFO)
#undef TC__STATUS_INFO
};
TC_API const char *tc_status_name(tc_status s) {
    return (unsigned)s < TC_STATUS_COUNT ? tc__statuses[s].name : "TC_UNKNOWN_STATUS";
}
TC_API const char *tc_status_message(tc_status s) {
    return (unsigned)s < TC_STATUS_COUNT ? tc__statuses[s].message : "unknown status";
}
TC_API int tc_version(void) { return TC_VERSION_NUM; }

static const struct {
    const char *name;
    int arity;
} tc__builtins[TC_BUILTIN_COUNT] = {
#define TC__BUILTIN_INFO(id, name, arity) {name, arity},
    TC_BUILTINS(TC__BUILTIN_INFO)
#undef TC__BUILTIN_INFO
};
TC_API const char *tc_builtin_name(tc_builtin b) {
    return (unsigned)b < TC_BUILTIN_COUNT ? tc__builtins[b].name : NULL;
}
TC_API int tc_builtin_arity(tc_builtin b) {
    return (unsigned)b < TC_BUILTIN_COUNT ? tc__builtins[b].arity : -1;
}
/* Builtin id by name, or -1. */
TC__PRIVATE int tc__builtin_find(const char *name, size_t len) {
    int i;
    for (i = 0; i < TC_BUILTIN_COUNT; i++)
        if (strlen(tc__builtins[i].name) == len && memcmp(tc__builtins[i].name, name, len) == 0)
            return i;
    return -1;
}

static const struct {
    const char *name;
    int arity;
    const char *doc;
} tc__ir_ops[TC_IR_OP_COUNT] = {
#define TC__IR_OP_INFO(name, nargs, doc) {#name, nargs, doc},
    TC_IR_OPS(TC__IR_OP_INFO)
#undef TC__IR_OP_INFO
};
static const char *const tc__reduce_names[TC_REDUCE_COUNT] = {
#define TC__REDUCE_INFO(name, str) str,
    TC_REDUCTIONS(TC__REDUCE_INFO)
#undef TC__REDUCE_INFO
};

/* ==== [tc:tokens] Lexical tokens (one table: lexer, parser, messages) ===== */
/* clang-format off */
#define TC__TOKENS(X)                                                            \
    X(EOF, "end of input") X(IDENT, "identifier") X(INT, "integer")              \
    X(FLOAT, "number")                                                           \
    X(DEF, "def") X(WHERE, "where") X(IN, "in") X(EXISTS, "exists")              \
    X(LPAREN, "(") X(RPAREN, ")") X(LBRACE, "{") X(RBRACE, "}")                  \
    X(LBRACKET, "[") X(RBRACKET, "]") X(COMMA, ",") X(DOT, ".") X(COLON, ":")    \
    X(SEMI, ";") X(QUESTION, "?") X(ARROW, "->") X(EQUIV, "<=>")                 \
    X(ASSIGN, "=") X(PLUS_EQ, "+=") X(TIMES_EQ, "*=") X(MIN_EQ, "min=")          \
    X(MAX_EQ, "max=") X(PLUS_EQ_B, "+=!") X(TIMES_EQ_B, "*=!")                   \
    X(MIN_EQ_B, "min=!") X(MAX_EQ_B, "max=!")                                    \
    X(EQ, "==") X(NE, "!=") X(LT, "<") X(LE, "<=") X(GT, ">") X(GE, ">=")        \
    X(AND, "&&") X(OR, "||") X(NOT, "!") X(PLUS, "+") X(MINUS, "-")              \
    X(STAR, "*") X(SLASH, "/") X(PERCENT, "%")
/* clang-format on */
typedef enum tc__tok {
#define TC__TOK_ENUM(name, text) TC__T_##name,
    TC__TOKENS(TC__TOK_ENUM)
#undef TC__TOK_ENUM
    TC__T_COUNT
} tc__tok;
static const char *const tc__tok_text[TC__T_COUNT] = {
#define TC__TOK_TEXT(name, text) text,
    TC__TOKENS(TC__TOK_TEXT)
#undef TC__TOK_TEXT
};

/* ==== [tc:ast] The syntax tree: what the parser builds, sema reads ========
   All nodes live in the compile arena. Names are NUL-terminated arena copies.
   Every node keeps the span of its source text. */

/* clang-format off */
#define TC__EXPR_KINDS(X)                                                        \
    X(INT,     "integer literal: ival, lit (tc__sm_int_type)")                  \
    X(FLOAT,   "float literal: fval (float32)")                                  \
    X(IDENT,   "name: size variable, index variable, 0-rank tensor or let")      \
    X(UNARY,   "op args[0]: op is TC__T_MINUS, TC__T_PLUS or TC__T_NOT")         \
    X(BINARY,  "args[0] op args[1]: op is an operator token")                    \
    X(TERNARY, "args[0] ? args[1] : args[2]")                                    \
    X(CALL,    "name(args): tensor read, builtin, min/max or cast (dtype name)") \
    X(DIM,     "name.ival: extent of dimension ival of tensor name")
/* clang-format on */
typedef enum tc__expr_kind {
#define TC__EXPR_ENUM(name, doc) TC__E_##name,
    TC__EXPR_KINDS(TC__EXPR_ENUM)
#undef TC__EXPR_ENUM
    TC__E_COUNT
} tc__expr_kind;

/* An integer literal's C suffix (u, l, ll, ul, ...): with its value it
   gives the literal's type (tc__sm_int_type). */
#define TC__LIT_U 1
#define TC__LIT_L 2
typedef struct tc__expr tc__expr;
struct tc__expr {
    tc__expr_kind kind;
    tc__span span;      /* the whole expression */
    tc__tok op;         /* UNARY, BINARY */
    int64_t ival;       /* INT value; DIM dimension number */
    double fval;        /* FLOAT value, rounded once to double */
    double fval32;      /* FLOAT value, rounded once to float32 (inf past FLT_MAX) */
    int lit;            /* INT: TC__LIT_* flags (its C suffix) */
    const char *name;   /* IDENT, CALL, DIM */
    tc__span name_span; /* IDENT, CALL, DIM */
    int nargs;
    tc__expr **args;
};

typedef enum tc__where_kind {
    TC__W_RANGE,  /* name in lo:hi   (also  name = [lo, hi[ ) */
    TC__W_LET,    /* name = expr */
    TC__W_EXISTS  /* exists expr */
} tc__where_kind;
typedef struct tc__where {
    tc__where_kind kind;
    tc__span span, name_span;
    const char *name;       /* RANGE, LET */
    tc__expr *lo, *hi;      /* RANGE */
    tc__expr *expr;         /* LET, EXISTS */
} tc__where;

typedef struct tc__stmt {
    tc__span span; /* whole statement, where clauses included */
    int is_call;   /* 1: outs = callee(args) */
    /* comprehension: lhs(idx...) reduce[!] rhs where ... */
    const char *lhs;
    tc__span lhs_span;
    int n_idx;
    const char **idx;
    tc__span *idx_spans;
    tc_reduce reduce;
    int init; /* `!` */
    tc__span op_span;
    tc__expr *rhs;
    int n_where;
    tc__where *where;
    /* call: outs... = callee(args...) (names only) */
    int n_outs;
    const char **outs;
    tc__span *out_spans;
    const char *callee;
    tc__span callee_span;
    int n_args;
    const char **args;
    tc__span *arg_spans;
} tc__stmt;

typedef struct tc__param {
    const char *name;
    tc__span span, name_span;
    int has_type;  /* outputs may omit the type: -> (C) */
    tc_dtype dtype;
    int rank;      /* 0 for scalars; only meaningful when has_type */
    tc__expr **dims; /* rank entries, each IDENT (size variable) or INT */
} tc__param;

typedef struct tc__def {
    const char *name;
    tc__span span, name_span;
    int n_inputs, n_outputs, n_stmts;
    tc__param *inputs, *outputs;
    tc__stmt *stmts;
} tc__def;

typedef struct tc__ast {
    int n_defs;
    tc__def *defs;
    int *def_hash; /* def names (tc__ast_def_named): 1 + the first def of a name; 0 empty */
    int def_hcap;  /* a power of two, at least twice n_defs (0: no table yet) */
} tc__ast;

/* The index slot of the name s[0..n): the one holding the first def of
   that name, else the empty one where it goes. def_hcap must be > 0. */
TC__PRIVATE int *tc__ast_def_slot(const tc__ast *A, const char *s, size_t n) {
    unsigned m = (unsigned)A->def_hcap - 1, h = tc__name_hash(s, n) & m;
    for (; A->def_hash[h]; h = (h + 1) & m) {
        const char *name = A->defs[A->def_hash[h] - 1].name;
        if (tc__name_is(name, s, n)) break;
    }
    return &A->def_hash[h];
}

/* The first def named s[0..n), or -1: by hash, so that a source of many
   defs (each checked for a duplicate name, each call looked up) compiles
   in linear time. */
TC__PRIVATE int tc__ast_def_named(const tc__ast *A, const char *s, size_t n) {
    return A->def_hcap ? *tc__ast_def_slot(A, s, n) - 1 : -1;
}

/* Adds the names of defs [from, to) to the index, each unless an earlier
   def has it: a name's first def stays the one found. The index is at
   most half full. 0 when out of memory. */
TC__PRIVATE int tc__ast_index_defs(tc__ctx *C, tc__ast *A, int from, int to) {
    int i;
    if (2 * to > A->def_hcap) { /* grow: a new table, every name again */
        int cap = A->def_hcap ? 2 * A->def_hcap : 16;
        while (2 * to > cap) cap *= 2;
        A->def_hash = (int *)tc__alloc_n(C, (size_t)cap, sizeof(int));
        if (!A->def_hash) return 0;
        memset(A->def_hash, 0, sizeof(int) * (size_t)cap);
        A->def_hcap = cap;
        from = 0;
    }
    for (i = from; i < to; i++) {
        int *slot = tc__ast_def_slot(A, A->defs[i].name, strlen(A->defs[i].name));
        if (!*slot) *slot = i + 1;
    }
    return 1;
}

/* ==== [tc:program] The compiled program =================================== */
struct tc_program {
    tc_allocator alloc;
    tc__arena arena; /* everything below lives here */
    char *source;
    size_t source_len;
    int n_defs;
    tc_ir_def *ir;   /* n_defs */
    void **backend;  /* n_defs: the VM's compiled form of each def */
    int n_warnings;
    tc_error *warnings;
    int *warning_defs; /* per warning: its def */
};

/* ==== [tc:sx] Size expressions: evaluation and printing =================== */

/* a op b for a binary op; 0 when + - or * overflows 64 bits (or op is
   not binary). */
TC__PRIVATE int tc__sx_fold(tc_sx_op op, int64_t a, int64_t b, int64_t *r) {
    switch (op) {
    case TC_SX_ADD: return tc__add64(a, b, r);
    case TC_SX_SUB: return tc__sub64(a, b, r);
    case TC_SX_MUL: return tc__mul64(a, b, r);
    case TC_SX_DIV: *r = tc__floordiv64(a, b); return 1;
    case TC_SX_MOD: *r = tc__floormod64(a, b); return 1;
    case TC_SX_MIN: *r = a < b ? a : b; return 1;
    case TC_SX_MAX: *r = a > b ? a : b; return 1;
    case TC_SX_LT: *r = a < b; return 1;
    case TC_SX_LE: *r = a <= b; return 1;
    case TC_SX_GT: *r = a > b; return 1;
    case TC_SX_GE: *r = a >= b; return 1;
    case TC_SX_EQ: *r = a == b; return 1;
    case TC_SX_NE: *r = a != b; return 1;
    case TC_SX_AND: *r = a != 0 && b != 0; return 1;
    case TC_SX_OR: *r = a != 0 || b != 0; return 1;
    default: return 0;
    }
}

TC_API tc_status tc_sx_eval(const tc_ir_def *d, const int64_t *var_values,
                            const int64_t *input_values, int64_t *out, tc_error *err) {
    int i;
    tc__clear_error(err);
    if (!d || !out || (d->n_sizevars && !var_values))
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_sx_eval: NULL argument");
    for (i = 0; i < d->n_sx; i++) {
        const tc_sx *s = &d->sx[i];
        int64_t a = 0, b = 0, r = 0;
        int ok = 1;
        if (s->op >= TC_SX_ADD) {
            a = out[s->a];
            b = out[s->b];
        }
        switch (s->op) {
        case TC_SX_CONST: r = s->value; break;
        case TC_SX_VAR: r = var_values[s->value]; break;
        case TC_SX_SCALAR:
            if (!input_values)
                return tc__set_error(err, TC_ERR_INVALID_ARGUMENT,
                                     "size depends on the value of input %s",
                                     d->tensors[s->value].name);
            r = input_values[s->value];
            break;
        case TC_SX_SELECT: r = out[s->value] ? a : b; break;
        case TC_SX_OP_COUNT: ok = 0; break;
        default: ok = tc__sx_fold(s->op, a, b, &r); break;
        }
        if (!ok) {
            char buf[128];
            tc_sx_format(d, i, buf, sizeof buf);
            return tc__set_error(err, TC_ERR_LIMIT, "size expression %s overflows 64 bits", buf);
        }
        out[i] = r;
    }
    return TC_OK;
}

/* Appends to a bounded buffer, counting what it would have written. */
typedef struct tc__buf {
    char *p;
    size_t cap, len;
} tc__buf;
/* An empty buffer over p[0..cap) (p NULL: only counts). */
TC__PRIVATE tc__buf tc__buf_on(char *p, size_t cap) {
    tc__buf b;
    b.p = p;
    b.cap = p ? cap : 0;
    b.len = 0;
    return b;
}
TC__PRIVATE void tc__bprintf(tc__buf *b, const char *fmt, ...) {
    va_list ap;
    int n;
    char *dst = b->len < b->cap ? b->p + b->len : NULL;
    size_t room = b->len < b->cap ? b->cap - b->len : 0;
    va_start(ap, fmt);
    n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0) b->len += (size_t)n;
}
TC__PRIVATE int tc__buf_done(tc__buf *b) {
    if (b->cap) b->p[b->len < b->cap ? b->len : b->cap - 1] = '\0';
    return b->len > INT_MAX ? INT_MAX : (int)b->len;
}

/* C precedence levels used to decide parentheses (higher binds tighter),
   for size expressions and kernel expressions alike. A caller printing an
   sx as an operand passes the level it needs: TC__PREC_ADD beside <,
   TC__PREC_MUL after +, TC__PREC_ATOM beside *. */
enum {
    TC__PREC_SELECT = 3,
    TC__PREC_OR = 4,
    TC__PREC_AND = 5,
    TC__PREC_EQ = 9,
    TC__PREC_REL = 10,
    TC__PREC_ADD = 12,
    TC__PREC_MUL = 13,
    TC__PREC_UNARY = 14,
    TC__PREC_ATOM = 16
};
/* An sx's level; a negative constant 0, in parentheses as any operand. */
TC__PRIVATE int tc__sx_prec(const tc_sx *s) {
    switch (s->op) {
    case TC_SX_SELECT: return TC__PREC_SELECT;
    case TC_SX_OR: return TC__PREC_OR;
    case TC_SX_AND: return TC__PREC_AND;
    case TC_SX_EQ: case TC_SX_NE: return TC__PREC_EQ;
    case TC_SX_LT: case TC_SX_LE: case TC_SX_GT: case TC_SX_GE: return TC__PREC_REL;
    case TC_SX_ADD: case TC_SX_SUB: return TC__PREC_ADD;
    case TC_SX_MUL: case TC_SX_DIV: case TC_SX_MOD: return TC__PREC_MUL;
    case TC_SX_CONST: return s->value < 0 ? 0 : TC__PREC_ATOM;
    default: return TC__PREC_ATOM;
    }
}
/* x == 0 for x an && or || (tc__sx_not), in either order. */
TC__PRIVATE int tc__sx_is_negation(const tc_ir_def *d, const tc_sx *s) {
    const tc_sx *l = &d->sx[s->a], *r = &d->sx[s->b];
    if (l->op == TC_SX_CONST) {
        const tc_sx *t = l;
        l = r;
        r = t;
    }
    return s->op == TC_SX_EQ && r->op == TC_SX_CONST && r->value == 0 &&
           (l->op == TC_SX_AND || l->op == TC_SX_OR);
}
TC__PRIVATE void tc__sx_print_r(const tc_ir_def *d, int id, tc__buf *b, int min_prec,
                                long *budget) {
    /* the binary operators, in TC_SX_OPS order from ADD (MIN and MAX are calls) */
    static const char *const ops[] = {"+", "-",  "*",  "/",  "%",  "",   "",  "<",
                                      "<=", ">", ">=", "==", "!=", "&&", "||"};
    const tc_sx *s = &d->sx[id];
    int prec = tc__sx_prec(s), paren = prec < min_prec;
    if (*budget <= 0) { /* shared subexpressions print once per use: cut it short */
        if (*budget == 0) tc__bprintf(b, "...");
        *budget = -1;
        return;
    }
    --*budget;
    if (paren) tc__bprintf(b, "(");
    switch (s->op) {
    case TC_SX_CONST: tc__bprintf(b, "%lld", (long long)s->value); break;
    case TC_SX_VAR: tc__bprintf(b, "%s", d->sizevars[s->value]); break;
    case TC_SX_SCALAR: tc__bprintf(b, "%s", d->tensors[s->value].name); break;
    case TC_SX_MIN: case TC_SX_MAX:
        tc__bprintf(b, s->op == TC_SX_MIN ? "min(" : "max(");
        tc__sx_print_r(d, s->a, b, 0, budget);
        tc__bprintf(b, ", ");
        tc__sx_print_r(d, s->b, b, 0, budget);
        tc__bprintf(b, ")");
        break;
    case TC_SX_ADD:
        /* a + (-c) reads better as a - c */
        if (d->sx[s->b].op == TC_SX_CONST && d->sx[s->b].value < 0 &&
            d->sx[s->b].value != INT64_MIN) {
            tc__sx_print_r(d, s->a, b, prec, budget);
            tc__bprintf(b, " - %lld", -(long long)d->sx[s->b].value);
            break;
        }
        /* fall through */
    case TC_SX_EQ: /* !(a || b) is built (a || b) == 0 */
        if (tc__sx_is_negation(d, s)) {
            tc__bprintf(b, "!");
            tc__sx_print_r(d, d->sx[s->a].op == TC_SX_CONST ? s->b : s->a, b, TC__PREC_ATOM,
                           budget);
            break;
        }
        /* fall through */
    case TC_SX_SUB: case TC_SX_MUL: case TC_SX_DIV: case TC_SX_MOD: case TC_SX_LT: case TC_SX_LE:
    case TC_SX_GT: case TC_SX_GE: case TC_SX_NE: case TC_SX_AND: case TC_SX_OR:
        tc__sx_print_r(d, s->a, b, prec, budget);
        tc__bprintf(b, " %s ", ops[s->op - TC_SX_ADD]);
        tc__sx_print_r(d, s->b, b, prec + 1, budget);
        break;
    case TC_SX_SELECT: /* a nested ?: in parentheses, wherever it is */
        tc__sx_print_r(d, (int)s->value, b, prec + 1, budget);
        tc__bprintf(b, " ? ");
        tc__sx_print_r(d, s->a, b, prec + 1, budget);
        tc__bprintf(b, " : ");
        tc__sx_print_r(d, s->b, b, prec + 1, budget);
        break;
    case TC_SX_OP_COUNT: break;
    }
    if (paren) tc__bprintf(b, ")");
}
/* At most TC__SX_PRINT_NODES nodes: a size expression is a graph whose
   shared parts print again at each use, so a chain of ?: or of sums over
   an earlier extent doubles with each statement. */
#define TC__SX_PRINT_NODES 4096
TC__PRIVATE void tc__sx_print(const tc_ir_def *d, int id, tc__buf *b, int min_prec) {
    long budget = TC__SX_PRINT_NODES;
    tc__sx_print_r(d, id, b, min_prec, &budget);
}
/* tc_sx_format, in parentheses where binding weaker than min_prec. */
TC__PRIVATE int tc__sx_format_as(const tc_ir_def *d, int id, char *buf, size_t cap, int min_prec) {
    tc__buf b;
    b = tc__buf_on(buf, cap);
    if (!d || id < 0 || id >= d->n_sx) {
        tc__bprintf(&b, "?");
        return tc__buf_done(&b);
    }
    tc__sx_print(d, id, &b, min_prec);
    return tc__buf_done(&b);
}
TC_API int tc_sx_format(const tc_ir_def *d, int id, char *buf, size_t cap) {
    return tc__sx_format_as(d, id, buf, cap, 0);
}

/* Appends " (N = 2, K = 4)": the sizes an sx depends on, with their
   values, each once, so a shape error shows the numbers behind it. */
TC__PRIVATE void tc__sx_leaves(const tc_ir_def *d, int id, const int64_t *values, tc__buf *b,
                               int *seen, int *n_seen, int *visits) {
    const tc_sx *s = &d->sx[id];
    int i;
    if (s->op >= TC_SX_ADD) {
        if (++*visits < TC__SX_PRINT_NODES) { /* shared parts are walked at each use */
            if (s->op == TC_SX_SELECT) tc__sx_leaves(d, (int)s->value, values, b, seen, n_seen, visits);
            tc__sx_leaves(d, s->a, values, b, seen, n_seen, visits);
            tc__sx_leaves(d, s->b, values, b, seen, n_seen, visits);
        }
        return;
    }
    if (s->op != TC_SX_VAR && s->op != TC_SX_SCALAR) return;
    for (i = 0; i < *n_seen; i++)
        if (d->sx[seen[i]].op == s->op && d->sx[seen[i]].value == s->value) return;
    if (*n_seen == 16) return;
    seen[(*n_seen)++] = id;
    tc__bprintf(b, "%s%s = %lld", *n_seen == 1 ? " (" : ", ",
                s->op == TC_SX_VAR ? d->sizevars[s->value] : d->tensors[s->value].name,
                (long long)values[id]);
}

/* Appends " (N = 2, K = 4)" for the sizes sx a and b (b -1: none) depend
   on, nothing when they depend on none. */
TC__PRIVATE void tc__sx_sizes_note(const tc_ir_def *d, int a, int b, const int64_t *values,
                                   tc__buf *out) {
    int seen[16], n_seen = 0, visits = 0;
    tc__sx_leaves(d, a, values, out, seen, &n_seen, &visits);
    if (b >= 0) tc__sx_leaves(d, b, values, out, seen, &n_seen, &visits);
    if (n_seen) tc__bprintf(out, ")");
}

/* "EXPR = VALUE (N = 2, K = 4)" for an evaluated sx; "N = 2" for a size
   alone, the value alone for a constant. */
TC__PRIVATE int tc__sx_explain(const tc_ir_def *d, int id, const int64_t *values, char *buf,
                               size_t cap) {
    tc__buf b;
    b = tc__buf_on(buf, cap);
    if (d->sx[id].op == TC_SX_CONST) {
        tc__bprintf(&b, "%lld", (long long)values[id]);
        return tc__buf_done(&b);
    }
    tc__sx_print(d, id, &b, 0);
    tc__bprintf(&b, " = %lld", (long long)values[id]);
    if (d->sx[id].op >= TC_SX_ADD) tc__sx_sizes_note(d, id, -1, values, &b);
    return tc__buf_done(&b);
}

#define TC__UTF8_BOM "\xEF\xBB\xBF" /* skipped by the lexer, so by the caret too */
/* A line ends at \n, \r\n or a lone \r (old Mac files), as in Python: a
   line's text stops at either byte (the lexer counts \r\n once). */
#define TC__IS_EOL(c) ((c) == '\n' || (c) == '\r')

/* ==== [tc:errfmt] Error rendering: file:line:col, source line, caret ====== */
/* A UTF-8 continuation byte: part of the character before it, no column. */
#define TC__UTF8_CONT(c) (((unsigned char)(c) & 0xC0) == 0x80)

TC_API int tc_error_format(const tc_error *e, const char *file, const char *src, char *buf,
                           size_t cap) {
    tc__buf b;
    int mlen = 0; /* a caller-built error's msg may fill the array: no NUL to stop at */
    b = tc__buf_on(buf, cap);
    if (!e) return 0;
    if (!file) file = "<tc>";
    while (mlen < (int)sizeof e->msg && e->msg[mlen]) mlen++;
    if (e->line > 0)
        tc__bprintf(&b, "%s:%d:%d: %s: %.*s\n", file, e->line, e->col,
                    e->code == TC_OK ? "warning" : "error", mlen, e->msg);
    else
        tc__bprintf(&b, "%s: %s: %.*s\n", file, e->code == TC_OK ? "warning" : "error", mlen,
                    e->msg);
    /* line, col and length are the caller's too: only offset picks the bytes read, and
       it is checked against src; the caret line stays within the offset's line */
    if (src && e->line > 0 && e->offset >= 0 && (size_t)e->offset <= strlen(src)) {
        const char *start = src + e->offset, *end;
        int i, n, len = e->length > 0 ? e->length : 1;
        while (start > src && !TC__IS_EOL(start[-1])) start--;
        if (start == src && strncmp(src, TC__UTF8_BOM, 3) == 0) start += 3;
        if (start > src + e->offset) start = src + e->offset; /* an offset inside the BOM */
        end = start;
        while (*end && !TC__IS_EOL(*end)) end++;
        n = (int)(src + e->offset - start);
        tc__bprintf(&b, "%.*s\n", (int)(end - start), start);
        for (i = 0; i < n; i++) /* a column per character, as for the ~ below */
            if (!TC__UTF8_CONT(start[i])) tc__bprintf(&b, "%c", start[i] == '\t' ? '\t' : ' ');
        tc__bprintf(&b, "^");
        if (len > (int)(end - start) - n) len = (int)(end - start) - n;
        for (i = 1; i < len; i++) /* a tab stays a tab, so the ~ keep up with the line */
            if (!TC__UTF8_CONT(start[n + i])) tc__bprintf(&b, "%c", start[n + i] == '\t' ? '\t' : '~');
        tc__bprintf(&b, "\n");
    }
    return tc__buf_done(&b);
}
/* ==== [tc:lex] Lexer: source bytes to tokens, each with its span ========== */
#include <float.h>
#include <stdlib.h> /* strtod */

/* Tokens never span lines (comments are skipped), so a span's line and
   column are those of its first byte. */
typedef struct tc__token {
    tc__tok kind;
    tc__span span;
    int64_t ival; /* INT: never negative but above INT64_MAX (its bits: uint64) */
    double fval;   /* FLOAT: the literal correctly rounded to double */
    double fval32; /* FLOAT: ... and to float32 (held exactly; inf past FLT_MAX) */
    int lit;       /* INT: TC__LIT_* flags */
} tc__token;

typedef struct tc__lexer {
    tc__ctx *C;
    const char *src;
    size_t len, pos, line_start;
    int line;
    tc__tok prev; /* last token's kind: '.' right after a name is T.d, not .5 */
    int quiet;    /* a lookahead copy: errors end the scan without reporting */
} tc__lexer;

TC__PRIVATE void tc__lex_init(tc__lexer *L, tc__ctx *C) {
    memset(L, 0, sizeof *L);
    L->C = C;
    L->src = C->src;
    L->len = C->src ? C->src_len : 0;
    L->line = 1;
    L->prev = TC__T_EOF;
    if (L->len >= 3 && memcmp(L->src, TC__UTF8_BOM, 3) == 0) /* a UTF-8 byte order mark */
        L->pos = L->line_start = 3;
}

/* The byte at i, or -1 past the end: the lexer never reads beyond len. */
TC__PRIVATE int tc__lex_at(const tc__lexer *L, size_t i) {
    return i < L->len ? (unsigned char)L->src[i] : -1;
}
/* ASCII classes (no <ctype.h>: its answers depend on the locale). */
TC__PRIVATE int tc__lex_is_digit(int c) { return c >= '0' && c <= '9'; }
TC__PRIVATE int tc__lex_is_hex(int c) {
    return tc__lex_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
/* A hex digit's value (c passes tc__lex_is_hex). */
TC__PRIVATE unsigned tc__lex_hex_value(int c) {
    return (unsigned)(tc__lex_is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
}
TC__PRIVATE int tc__lex_is_alpha(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
TC__PRIVATE int tc__lex_is_word(int c) { return tc__lex_is_alpha(c) || tc__lex_is_digit(c); }

TC__PRIVATE tc__span tc__lex_span(const tc__lexer *L, size_t start, size_t end) {
    tc__span s;
    s.line = L->line;
    s.col = (int)(start - L->line_start) + 1;
    s.offset = (int)start;
    s.length = (int)(end - start);
    return s;
}

/* Reports a lexical error on [start, end) and turns the token into EOF, so
   the parser unwinds. Returns 0. */
TC__PRIVATE int tc__lex_error(tc__lexer *L, tc__token *t, size_t start, size_t end,
                              const char *fmt, ...) {
    va_list ap;
    char msg[200];
    t->kind = TC__T_EOF;
    t->span = tc__lex_span(L, start, end);
    L->pos = L->len;
    if (L->quiet) return 0;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tc__fail(L->C, TC_ERR_SYNTAX, t->span, "%s", msg);
}

/* space -> { ' ' | '\t' | '\r' | '\n' | '\f' | '\v' | comment }
 * comment -> ('#' | '//') { any byte but '\n' and '\r' }   (TC__IS_EOL) */
TC__PRIVATE void tc__lex_skip_space(tc__lexer *L) {
    for (;;) {
        int c = tc__lex_at(L, L->pos);
        if (c == '\n' || (c == '\r' && tc__lex_at(L, L->pos + 1) != '\n')) {
            L->pos++;
            L->line++;
            L->line_start = L->pos;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            L->pos++;
        } else if (c == '#' || (c == '/' && tc__lex_at(L, L->pos + 1) == '/')) {
            while (L->pos < L->len && !TC__IS_EOL(L->src[L->pos])) L->pos++;
        } else {
            return;
        }
    }
}

/* The value of a decimal float literal s[0..n) (no suffix), correctly
   rounded: the digits are rewritten as an integer mantissa and a decimal
   exponent ("1.25e3" -> "125e1") so strtod never sees the locale's decimal
   point. 780 significant digits plus a sticky digit decide every double;
   *f32 gets the float32 rounding of the same digits (strtof: rounding the
   double again would round twice, 1.0000000596046447753906250001 to 1). */
TC__PRIVATE double tc__lex_float_value(const char *s, size_t n, double *f32) {
    char buf[800];
    size_t i, k = 0;
    long exp10 = 0, e = 0, esign = 1;
    int after_dot = 0, sticky = 0;
    for (i = 0; i < n && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] == '.') {
            after_dot = 1;
            continue;
        }
        if (after_dot) exp10--;
        if (k == 0 && s[i] == '0') continue; /* leading zeros */
        if (k < 780) {
            buf[k++] = s[i];
        } else {
            exp10++;
            if (s[i] != '0') sticky = 1;
        }
    }
    if (i < n) { /* exponent, saturated: 1e999999 is simply too large */
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) esign = s[i++] == '-' ? -1 : 1;
        for (; i < n; i++)
            if (e < 1000000) e = e * 10 + (s[i] - '0');
    }
    *f32 = 0.0;
    if (k == 0) return 0.0;
    if (sticky) {
        buf[k++] = '1';
        exp10--;
    }
    exp10 += esign * e;
    snprintf(buf + k, sizeof buf - k, "e%ld", exp10);
    *f32 = (double)strtof(buf, NULL);
    return strtod(buf, NULL);
}

/* suffix -> u [l | ll] | (l | ll) [u], any case (not lL): C's integer
   suffixes. Returns the position after it; *lit gets its flags. */
TC__PRIVATE size_t tc__lex_int_suffix(tc__lexer *L, size_t p, int *lit) {
    int c = tc__lex_at(L, p);
    if ((c | 0x20) == 'u') {
        *lit |= TC__LIT_U;
        c = tc__lex_at(L, ++p);
    }
    if (c == 'l' || c == 'L') {
        *lit |= TC__LIT_L;
        p += tc__lex_at(L, p + 1) == c ? 2 : 1;
        if (!(*lit & TC__LIT_U) && (tc__lex_at(L, p) | 0x20) == 'u') {
            *lit |= TC__LIT_U;
            p++;
        }
    }
    return p;
}

/* C's floating suffixes f and l, any case. Neither changes the type: a
   float literal is float32 (SEMANTICS.md 1). */
TC__PRIVATE int tc__lex_is_fsuffix(int c) { return (c | 0x20) == 'f' || (c | 0x20) == 'l'; }

/* A number run into letters at p: the error, with a hint. */
TC__PRIVATE int tc__lex_bad_number(tc__lexer *L, tc__token *t, size_t start, size_t p,
                                   int is_float) {
    int c = tc__lex_at(L, p) | 0x20;
    const char *why = c == 'e'                ? " (the exponent has no digits)"
                      : c == 'f' && !is_float ? " (a float needs '.' or an exponent: 1.0f)"
                                              : " (a name cannot start with a digit)";
    while (tc__lex_is_word(tc__lex_at(L, p))) p++;
    return tc__lex_error(L, t, start, p, "invalid number '%.*s'%s", (int)(p - start),
                         L->src + start, why);
}

/* An integer token of value v, its suffix after `end`. Hex and octal
   digits may reach UINT64_MAX, as in C, and the literal is then uint64;
   decimal ones only with a u (`decimal`). */
TC__PRIVATE int tc__lex_int_token(tc__lexer *L, tc__token *t, size_t start, size_t end,
                                  uint64_t v, int overflow, int decimal) {
    const char *s = L->src + start;
    size_t p = tc__lex_int_suffix(L, end, &t->lit);
    if (tc__lex_is_word(tc__lex_at(L, p))) return tc__lex_bad_number(L, t, start, p, 0);
    if (decimal && v > (uint64_t)INT64_MAX && !(t->lit & TC__LIT_U) && !overflow)
        return tc__lex_error(L, t, start, p,
                             "integer %.*s does not fit in int64 (a u suffix makes it uint64)",
                             (int)(p - start), s);
    if (overflow)
        return tc__lex_error(L, t, start, p, "integer %.*s does not fit in 64 bits",
                             (int)(p - start), s);
    t->kind = TC__T_INT;
    t->ival = (int64_t)v;
    t->span = tc__lex_span(L, start, p);
    L->pos = p;
    return 1;
}

/* m * 2^e (m below 2^61, its last bit sticky) rounded once, to nearest
   even, to `prec` bits and at 2^(emin - prec + 1) at least (the format's
   subnormal step): double (53, -1022) or float32 (24, -126), returned as
   the double that holds it exactly. (double)m and then ldexp would round
   twice where the result is subnormal or float32. */
TC__PRIVATE double tc__lex_scale(uint64_t m, long e, int prec, long emin) {
    int bits = 0;
    long qe;
    uint64_t q, rest, half;
    while (bits < 64 && (m >> bits) != 0) bits++;
    qe = e + bits - prec; /* the exponent of the result's last bit */
    if (qe < emin - prec + 1) qe = emin - prec + 1;
    if (qe <= e) return ldexp((double)m, (int)e); /* exact: no bit below qe */
    if (qe - e > 62) return 0.0;                 /* below half of 2^qe */
    q = m >> (qe - e);
    rest = m & ((1ull << (qe - e)) - 1);
    half = 1ull << (qe - e - 1);
    q += rest > half || (rest == half && (q & 1));
    return ldexp((double)q, (int)qe); /* q <= 2^prec: exact (inf past the double range) */
}

/* A hex float's value: mantissa digits (the first 15 significant ones,
   the rest as a sticky bit below them) times 2^exp, rounded once to double
   and once to float32 (*f32). */
TC__PRIVATE double tc__lex_hexfloat_value(const char *s, size_t n, double *f32) {
    uint64_t m = 0;
    long e = 0, x = 0;
    int digits = 0, after_dot = 0, esign = 1, sticky = 0;
    size_t i;
    for (i = 2; i < n && (s[i] | 0x20) != 'p'; i++) {
        unsigned d;
        if (s[i] == '.') {
            after_dot = 1;
            continue;
        }
        d = tc__lex_hex_value(s[i]);
        if (digits == 0 && d == 0) {
            if (after_dot) e -= 4;
            continue;
        }
        if (digits < 15) {
            m = m * 16 + d;
            digits++;
            if (after_dot) e -= 4;
        } else {
            sticky |= d != 0;
            if (!after_dot) e += 4;
        }
    }
    if (i < n && (s[++i] == '+' || s[i] == '-')) esign = s[i++] == '-' ? -1 : 1;
    for (; i < n; i++)
        if (x < 1000000) x = x * 10 + (s[i] - '0');
    *f32 = 0.0;
    if (m == 0) return 0.0;
    m = m * 2 + (uint64_t)sticky; /* 61 bits at most */
    *f32 = tc__lex_scale(m, e - 1 + esign * x, 24, -126);
    if (*f32 > (double)FLT_MAX) *f32 = HUGE_VAL;
    return tc__lex_scale(m, e - 1 + esign * x, 53, -1022);
}

/* hex      -> '0' ('x' | 'X') hexdigit {hexdigit} [suffix]
 *           | '0' ('x' | 'X') hexdigits ['.' [hexdigits]] ('p' | 'P') ['+' | '-'] digits [fsuffix]
 *             (a C99 hex float, float32 like every literal with an exponent) */
TC__PRIVATE int tc__lex_hex(tc__lexer *L, tc__token *t, size_t start) {
    size_t p = start + 2, q;
    uint64_t v = 0;
    int overflow = 0, digits = 0, exp_digits = 0;
    while (tc__lex_is_hex(tc__lex_at(L, p))) {
        unsigned d = tc__lex_hex_value(tc__lex_at(L, p++));
        if (v > (UINT64_MAX - d) / 16) overflow = 1;
        else v = v * 16 + d;
        digits++;
    }
    q = p;
    if (tc__lex_at(L, q) == '.')
        for (q++; tc__lex_is_hex(tc__lex_at(L, q)); q++) digits++;
    if ((tc__lex_at(L, q) | 0x20) == 'p' && digits > 0) {
        size_t x = q + 1;
        if (tc__lex_at(L, x) == '+' || tc__lex_at(L, x) == '-') x++;
        exp_digits = tc__lex_is_digit(tc__lex_at(L, x));
        if (exp_digits) {
            while (tc__lex_is_digit(tc__lex_at(L, x))) x++;
            t->kind = TC__T_FLOAT;
            t->fval = tc__lex_hexfloat_value(L->src + start, x - start, &t->fval32);
            if (tc__lex_is_fsuffix(tc__lex_at(L, x))) x++;
            if (!tc__lex_is_word(tc__lex_at(L, x)) && tc__lex_at(L, x) != '.') {
                if (t->fval > DBL_MAX)
                    return tc__lex_error(L, t, start, x, "number %.*s is too large for float64",
                                         (int)(x - start), L->src + start);
                t->span = tc__lex_span(L, start, x);
                L->pos = x;
                return 1;
            }
        }
    }
    if (p == start + 2 || q != p || (tc__lex_at(L, q) | 0x20) == 'p') {
        const char *why = digits == 0 ? " (no digits)"
                          : (tc__lex_at(L, q) | 0x20) != 'p' ? " (a hex float needs an exponent: 0x1.8p3)"
                          : !exp_digits ? " (the exponent has no digits)" : "";
        while (tc__lex_is_word(tc__lex_at(L, p)) || tc__lex_at(L, p) == '.') p++;
        return tc__lex_error(L, t, start, p, "invalid hexadecimal number '%.*s'%s",
                             (int)(p - start), L->src + start, why);
    }
    return tc__lex_int_token(L, t, start, p, v, overflow, 0);
}

/* A decimal or octal integer's value (base 10 or 8); 0 on overflow of
   uint64. */
TC__PRIVATE int tc__lex_digits(const char *s, size_t n, unsigned base, uint64_t *out) {
    uint64_t v = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / base) return 0;
        v = v * base + d;
    }
    *out = v;
    return 1;
}

/* digits [suffix], the digits [start, end): octal when they start with 0
   (C's 010 is 8), else decimal; a decimal one above INT64_MAX needs a u. */
TC__PRIVATE int tc__lex_decimal_int(tc__lexer *L, tc__token *t, size_t start, size_t end) {
    const char *s = L->src + start;
    unsigned base = end - start > 1 && s[0] == '0' ? 8 : 10;
    uint64_t v = 0;
    size_t i;
    int overflow;
    for (i = 0; i < end - start && base == 8; i++)
        if (s[i] > '7')
            return tc__lex_error(L, t, start, end, "invalid digit '%c' in the octal number %.*s",
                                 s[i], (int)(end - start), s);
    overflow = !tc__lex_digits(s, end - start, base, &v);
    return tc__lex_int_token(L, t, start, end, v, overflow, base == 10);
}

/* number   -> hex | digits [suffix] | digits exponent [fsuffix]
 *           | digits '.' [digits] [exponent] [fsuffix] | '.' digits [exponent] [fsuffix]
 * exponent -> ('e' | 'E') ['+' | '-'] digits        fsuffix -> 'f' | 'F' | 'l' | 'L'
 * As in C, digits starting with 0 are octal, and an integer's suffix
 * (tc__lex_int_suffix) may make it unsigned or 64-bit. */
TC__PRIVATE int tc__lex_number(tc__lexer *L, tc__token *t, size_t start) {
    size_t p = start, mant_end;
    int is_float = 0;
    const char *s = L->src + start;
    if (tc__lex_at(L, p) == '0' && (tc__lex_at(L, p + 1) | 0x20) == 'x')
        return tc__lex_hex(L, t, start);
    while (tc__lex_is_digit(tc__lex_at(L, p))) p++;
    if (tc__lex_at(L, p) == '.') {
        is_float = 1;
        p++;
        while (tc__lex_is_digit(tc__lex_at(L, p))) p++;
    }
    if ((tc__lex_at(L, p) | 0x20) == 'e') {
        size_t q = p + 1;
        if (tc__lex_at(L, q) == '+' || tc__lex_at(L, q) == '-') q++;
        if (tc__lex_is_digit(tc__lex_at(L, q))) {
            is_float = 1;
            p = q;
            while (tc__lex_is_digit(tc__lex_at(L, p))) p++;
        }
    }
    mant_end = p;
    if (!is_float) return tc__lex_decimal_int(L, t, start, p);
    if (tc__lex_is_fsuffix(tc__lex_at(L, p))) p++;
    if (tc__lex_is_word(tc__lex_at(L, p))) return tc__lex_bad_number(L, t, start, p, 1);
    t->span = tc__lex_span(L, start, p);
    t->kind = TC__T_FLOAT;
    t->fval = tc__lex_float_value(s, mant_end - start, &t->fval32);
    if (t->fval > DBL_MAX) /* float32 overflow is the literal's type's (tc__sm_literal) */
        return tc__lex_error(L, t, start, p, "number %.*s is too large for float64",
                             (int)(p - start), s);
    L->pos = p;
    return 1;
}

/* word -> alpha {alpha | digit}: a name, a keyword (def where in exists),
 *         or 'min=' / 'max=' [ '!' ] when '=' follows at once and is not '==' */
TC__PRIVATE int tc__lex_word(tc__lexer *L, tc__token *t, size_t start) {
    static const struct {
        const char *text;
        tc__tok kind;
    } keywords[] = {{"def", TC__T_DEF},
                    {"where", TC__T_WHERE},
                    {"in", TC__T_IN},
                    {"exists", TC__T_EXISTS}};
    size_t p = start, n, i;
    const char *s = L->src + start;
    while (tc__lex_is_word(tc__lex_at(L, p))) p++;
    n = p - start;
    t->kind = TC__T_IDENT;
    for (i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (tc__name_is(keywords[i].text, s, n))
            t->kind = keywords[i].kind;
    if (n == 3 && (memcmp(s, "min", 3) == 0 || memcmp(s, "max", 3) == 0) &&
        tc__lex_at(L, p) == '=' && tc__lex_at(L, p + 1) != '=') {
        int is_min = s[1] == 'i', init = tc__lex_at(L, p + 1) == '!';
        t->kind = is_min ? (init ? TC__T_MIN_EQ_B : TC__T_MIN_EQ)
                         : (init ? TC__T_MAX_EQ_B : TC__T_MAX_EQ);
        p += (size_t)(1 + init);
    }
    t->span = tc__lex_span(L, start, p);
    L->pos = p;
    return 1;
}

/* The token of one punctuation byte c followed by `next`, and its length. */
TC__PRIVATE tc__tok tc__lex_punct_kind(int c, int next, int next2, size_t *len) {
    *len = 1;
    switch (c) {
    case '(': return TC__T_LPAREN;
    case ')': return TC__T_RPAREN;
    case '{': return TC__T_LBRACE;
    case '}': return TC__T_RBRACE;
    case '[': return TC__T_LBRACKET;
    case ']': return TC__T_RBRACKET;
    case ',': return TC__T_COMMA;
    case '.': return TC__T_DOT;
    case ':': return TC__T_COLON;
    case ';': return TC__T_SEMI;
    case '?': return TC__T_QUESTION;
    case '/': return TC__T_SLASH;
    case '%': return TC__T_PERCENT;
    case '-':
        if (next == '>') *len = 2;
        return next == '>' ? TC__T_ARROW : TC__T_MINUS;
    case '+':
    case '*':
        if (next != '=') return c == '+' ? TC__T_PLUS : TC__T_STAR;
        *len = next2 == '!' ? 3 : 2;
        if (c == '+') return next2 == '!' ? TC__T_PLUS_EQ_B : TC__T_PLUS_EQ;
        return next2 == '!' ? TC__T_TIMES_EQ_B : TC__T_TIMES_EQ;
    case '=': *len = next == '=' ? 2 : 1; return next == '=' ? TC__T_EQ : TC__T_ASSIGN;
    case '!': *len = next == '=' ? 2 : 1; return next == '=' ? TC__T_NE : TC__T_NOT;
    case '<':
        if (next == '=' && next2 == '>') *len = 3;
        else *len = next == '=' ? 2 : 1;
        return *len == 3 ? TC__T_EQUIV : next == '=' ? TC__T_LE : TC__T_LT;
    case '>': *len = next == '=' ? 2 : 1; return next == '=' ? TC__T_GE : TC__T_GT;
    case '&': *len = next == '&' ? 2 : 0; return TC__T_AND;
    case '|': *len = next == '|' ? 2 : 0; return TC__T_OR;
    default: *len = 0; return TC__T_EOF;
    }
}

TC__PRIVATE int tc__lex_punct(tc__lexer *L, tc__token *t, size_t start) {
    int c = tc__lex_at(L, start);
    size_t len;
    tc__tok kind = tc__lex_punct_kind(c, tc__lex_at(L, start + 1), tc__lex_at(L, start + 2), &len);
    if (len == 0) {
        if (c == '&' || c == '|')
            return tc__lex_error(L, t, start, start + 1,
                                 "unexpected character '%c' (did you mean '%c%c'?)", c, c, c);
        if (c > 32 && c < 127)
            return tc__lex_error(L, t, start, start + 1, "unexpected character '%c'", c);
        return tc__lex_error(L, t, start, start + 1, "unexpected character (byte 0x%02X)",
                             (unsigned)c);
    }
    t->kind = kind;
    t->span = tc__lex_span(L, start, start + len);
    L->pos = start + len;
    return 1;
}

/* Scans the next token into t. At the end, and once the compile has failed,
   the token is EOF. Returns 0 after a lexical error. */
TC__PRIVATE int tc__lex_next(tc__lexer *L, tc__token *t) {
    size_t start;
    int c, ok;
    memset(t, 0, sizeof *t);
    tc__lex_skip_space(L);
    start = L->pos;
    t->kind = TC__T_EOF;
    t->span = tc__lex_span(L, start, start);
    if (L->C->failed && !L->quiet) return 0;
    if (start >= L->len) return 1;
    c = tc__lex_at(L, start);
    if (tc__lex_is_digit(c) ||
        (c == '.' && tc__lex_is_digit(tc__lex_at(L, start + 1)) && L->prev != TC__T_IDENT))
        ok = tc__lex_number(L, t, start);
    else if (tc__lex_is_alpha(c))
        ok = tc__lex_word(L, t, start);
    else
        ok = tc__lex_punct(L, t, start);
    L->prev = t->kind;
    return ok;
}

/* ==== [tc:parse] Parser: tokens to the AST of [tc:ast] =====================
   Recursive descent, one token of lookahead plus two bounded scans ahead
   (tc__parse_peek, tc__parse_is_call) done on a copy of the lexer. Every
   function returns NULL / 0 once the compile has failed (sticky: the first
   error wins), so the recursion unwinds without longjmp. Expression nesting
   (parentheses, unary chains, ?: chains, call arguments) is bounded by
   C->max_depth; binary chains are loops, not recursion. */

typedef struct tc__parser {
    tc__ctx *C;
    tc__lexer L;   /* positioned just after tok */
    tc__token tok; /* the current token */
    tc__span last; /* the last token consumed: spans end there */
    int depth, max_depth;
    tc__ast *ast; /* defs parsed so far: `a = f(x)` calls an earlier def */
    int cap_defs;
} tc__parser;

TC__PRIVATE void tc__parse_next(tc__parser *P) {
    P->last = P->tok.span;
    tc__lex_next(&P->L, &P->tok);
}
TC__PRIVATE int tc__parse_accept(tc__parser *P, tc__tok kind) {
    if (P->C->failed || P->tok.kind != kind) return 0;
    tc__parse_next(P);
    return 1;
}
/* The kind of the token after the current one (lexed on a quiet copy). */
TC__PRIVATE tc__tok tc__parse_peek(const tc__parser *P) {
    tc__lexer L = P->L;
    tc__token t;
    L.quiet = 1;
    tc__lex_next(&L, &t);
    return t.kind;
}

/* From the start of `a` to the end of `b`. */
TC__PRIVATE tc__span tc__span_join(tc__span a, tc__span b) {
    a.length = b.offset + b.length - a.offset;
    return a;
}
TC__PRIVATE tc__span tc__parse_span_from(const tc__parser *P, tc__span start) {
    return tc__span_join(start, P->last);
}

/* How a token reads in a message: 'text' (at most 40 bytes) or "end of input". */
TC__PRIVATE const char *tc__parse_describe(const tc__parser *P, const tc__token *t, char *buf,
                                           size_t cap) {
    int n = t->span.length > 40 ? 40 : t->span.length;
    if (t->kind == TC__T_EOF) return "end of input";
    snprintf(buf, cap, "'%.*s%s'", n, P->C->src + t->span.offset,
             t->span.length > 40 ? "..." : "");
    return buf;
}

/* Fails with `code` at the current token: "<fmt>, found <token>". */
TC__PRIVATE int tc__parse_error_found(tc__parser *P, tc_status code, const char *fmt, ...) {
    va_list ap;
    char msg[200], found[64];
    if (P->C->failed) return 0;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tc__fail(P->C, code, P->tok.span, "%s, found %s", msg,
                    tc__parse_describe(P, &P->tok, found, sizeof found));
}

/* Consumes a token of `kind` or fails: "expected ')' <why>, found '}'". */
TC__PRIVATE int tc__parse_expect(tc__parser *P, tc__tok kind, const char *why, ...) {
    va_list ap;
    char msg[160];
    if (tc__parse_accept(P, kind)) return 1;
    if (P->C->failed) return 0;
    va_start(ap, why);
    vsnprintf(msg, sizeof msg, why, ap);
    va_end(ap);
    return tc__parse_error_found(P, TC_ERR_SYNTAX, "expected '%s'%s%s", tc__tok_text[kind],
                                 msg[0] ? " " : "", msg);
}

/* After a list item: ',' gives 1 (another item follows), ')' gives 0 (the
   list is closed); anything else fails: "expected ',' or ')' <why>". */
TC__PRIVATE int tc__parse_list_more(tc__parser *P, const char *why, ...) {
    va_list ap;
    char msg[160];
    if (tc__parse_accept(P, TC__T_COMMA)) return 1;
    if (tc__parse_accept(P, TC__T_RPAREN) || P->C->failed) return 0;
    va_start(ap, why);
    vsnprintf(msg, sizeof msg, why, ap);
    va_end(ap);
    tc__parse_error_found(P, TC_ERR_SYNTAX, "expected ',' or ')' %s", msg);
    return 0;
}

/* An arena copy of the current token's text, then advances. */
TC__PRIVATE const char *tc__parse_take_name(tc__parser *P, tc__span *span) {
    const char *name = tc__strndup(P->C, P->C->src + P->tok.span.offset,
                                   (size_t)P->tok.span.length);
    if (span) *span = P->tok.span;
    tc__parse_next(P);
    return name;
}
/* Consumes a name or fails: "expected <what>, found ...". */
TC__PRIVATE const char *tc__parse_name(tc__parser *P, tc__span *span, const char *what) {
    if (P->C->failed) return NULL;
    if (P->tok.kind != TC__T_IDENT) {
        tc__parse_error_found(P, TC_ERR_SYNTAX, "expected %s", what);
        return NULL;
    }
    return tc__parse_take_name(P, span);
}

/* Appends one element to an arena array (n elements, capacity *cap). */
TC__PRIVATE int tc__parse_push(tc__parser *P, void **arr, int *n, int *cap, const void *elem,
                               size_t size) {
    if (!tc__grow(P->C, arr, cap, *n + 1, size)) return 0;
    memcpy((char *)*arr + (size_t)*n * size, elem, size);
    (*n)++;
    return 1;
}

/* Enters one level of expression nesting; fails past C->max_depth. */
TC__PRIVATE int tc__parse_enter(tc__parser *P) {
    if (P->C->failed) return 0;
    if (P->depth >= P->max_depth)
        return tc__fail(P->C, TC_ERR_LIMIT, P->tok.span, "expression nested deeper than %d",
                        P->max_depth);
    P->depth++;
    return 1;
}

TC__PRIVATE tc__expr *tc__parse_new_expr(tc__parser *P, tc__expr_kind kind, tc__span span,
                                         int nargs) {
    tc__expr *e = (tc__expr *)tc__alloc(P->C, sizeof *e);
    if (!e) return NULL;
    e->kind = kind;
    e->span = span;
    e->nargs = nargs;
    if (nargs > 0) {
        e->args = (tc__expr **)tc__alloc_n(P->C, (size_t)nargs, sizeof(tc__expr *));
        if (!e->args) return NULL;
    }
    return e;
}

TC__PRIVATE tc__expr *tc__parse_expr(tc__parser *P);

/* args -> '(' [expr {',' expr}] ')' */
TC__PRIVATE int tc__parse_call_args(tc__parser *P, tc__expr *call) {
    int cap = 0;
    tc__parse_next(P); /* '(' */
    if (P->tok.kind != TC__T_RPAREN) {
        for (;;) {
            tc__expr *a = tc__parse_expr(P);
            if (!a || !tc__parse_push(P, (void **)&call->args, &call->nargs, &cap, &a, sizeof a))
                return 0;
            if (!tc__parse_accept(P, TC__T_COMMA)) break;
        }
    }
    return tc__parse_expect(P, TC__T_RPAREN, "to close the argument list of %s", call->name);
}

/* name_expr -> IDENT                      a name
 *            | IDENT args                 tensor read, builtin, min/max, cast
 *            | IDENT '.' INT              T.d: extent of dimension d of T */
TC__PRIVATE tc__expr *tc__parse_name_expr(tc__parser *P) {
    tc__span start = P->tok.span;
    tc__expr *e = tc__parse_new_expr(P, TC__E_IDENT, start, 0);
    if (!e) return NULL;
    e->name = tc__parse_take_name(P, &e->name_span);
    if (P->tok.kind == TC__T_LPAREN) {
        e->kind = TC__E_CALL;
        if (!tc__parse_call_args(P, e)) return NULL;
    } else if (P->tok.kind == TC__T_DOT) {
        tc__parse_next(P);
        if (P->tok.kind != TC__T_INT) {
            tc__parse_error_found(P, TC_ERR_SYNTAX,
                                  "expected a dimension number after '%s.' (as in %s.0)",
                                  e->name, e->name);
            return NULL;
        }
        e->kind = TC__E_DIM;
        e->ival = P->tok.ival;
        tc__parse_next(P);
    }
    e->span = tc__parse_span_from(P, start);
    return P->C->failed ? NULL : e;
}

/* primary -> INT | FLOAT | name_expr | '(' expr ')' */
TC__PRIVATE tc__expr *tc__parse_primary(tc__parser *P) {
    tc__token t = P->tok;
    tc__expr *e;
    char after[64];
    switch (t.kind) {
    case TC__T_INT:
    case TC__T_FLOAT:
        e = tc__parse_new_expr(P, t.kind == TC__T_INT ? TC__E_INT : TC__E_FLOAT, t.span, 0);
        if (!e) return NULL;
        e->ival = t.ival;
        e->fval = t.fval;
        e->fval32 = t.fval32;
        e->lit = t.lit;
        tc__parse_next(P);
        return e;
    case TC__T_IDENT: return tc__parse_name_expr(P);
    case TC__T_LPAREN:
        tc__parse_next(P);
        e = tc__parse_expr(P);
        if (!e || !tc__parse_expect(P, TC__T_RPAREN, "to close the '(' at %d:%d", t.span.line,
                                    t.span.col))
            return NULL;
        e->span = tc__parse_span_from(P, t.span); /* the parentheses belong to it */
        return e;
    default:
        snprintf(after, sizeof after, "'%.*s'", P->last.length > 40 ? 40 : P->last.length,
                 P->C->src + P->last.offset);
        tc__parse_error_found(P, TC_ERR_SYNTAX, "expected an expression after %s",
                              P->last.length > 0 ? after : "the start");
        return NULL;
    }
}

/* unary -> ('-' | '+' | '!') unary | primary        (unary '+' is dropped) */
TC__PRIVATE tc__expr *tc__parse_unary(tc__parser *P) {
    tc__token op = P->tok;
    tc__expr *e, *n;
    if (op.kind != TC__T_MINUS && op.kind != TC__T_PLUS && op.kind != TC__T_NOT)
        return tc__parse_primary(P);
    if (!tc__parse_enter(P)) return NULL;
    tc__parse_next(P);
    e = tc__parse_unary(P);
    P->depth--;
    if (!e) return NULL;
    if (op.kind == TC__T_PLUS) {
        e->span = tc__span_join(op.span, e->span);
        return e;
    }
    n = tc__parse_new_expr(P, TC__E_UNARY, tc__span_join(op.span, e->span), 1);
    if (!n) return NULL;
    n->op = op.kind;
    n->args[0] = e;
    return n;
}

/* Binding strength of a binary operator (C's), 0 for other tokens. */
TC__PRIVATE int tc__parse_binary_prec(tc__tok k) {
    switch (k) {
    case TC__T_OR: return 1;
    case TC__T_AND: return 2;
    case TC__T_EQ: case TC__T_NE: return 3;
    case TC__T_LT: case TC__T_LE: case TC__T_GT: case TC__T_GE: return 4;
    case TC__T_PLUS: case TC__T_MINUS: return 5;
    case TC__T_STAR: case TC__T_SLASH: case TC__T_PERCENT: return 6;
    default: return 0;
    }
}

/* binary -> unary {binop unary}      left associative, by precedence climbing:
 *           '||' < '&&' < '==' '!=' < '<' '<=' '>' '>=' < '+' '-' < '*' '/' '%'
 * The recursion goes at most 6 levels deep (the precedence rises each time). */
TC__PRIVATE tc__expr *tc__parse_binary(tc__parser *P, int min_prec) {
    tc__expr *lhs = tc__parse_unary(P);
    while (lhs && !P->C->failed) {
        tc__tok op = P->tok.kind;
        int prec = tc__parse_binary_prec(op);
        tc__expr *rhs, *n;
        if (prec == 0 || prec < min_prec) break;
        tc__parse_next(P);
        rhs = tc__parse_binary(P, prec + 1);
        if (!rhs) return NULL;
        n = tc__parse_new_expr(P, TC__E_BINARY, tc__span_join(lhs->span, rhs->span), 2);
        if (!n) return NULL;
        n->op = op;
        n->args[0] = lhs;
        n->args[1] = rhs;
        lhs = n;
    }
    return P->C->failed ? NULL : lhs;
}

/* expr -> binary ['?' expr ':' expr]        (right associative, as in C) */
TC__PRIVATE tc__expr *tc__parse_expr(tc__parser *P) {
    tc__expr *e, *n = NULL;
    tc__token q;
    if (!tc__parse_enter(P)) return NULL;
    e = tc__parse_binary(P, 1);
    q = P->tok;
    if (e && q.kind == TC__T_QUESTION) {
        tc__parse_next(P);
        n = tc__parse_new_expr(P, TC__E_TERNARY, e->span, 3);
        if (n) {
            n->args[0] = e;
            n->args[1] = tc__parse_expr(P);
            if (n->args[1] &&
                tc__parse_expect(P, TC__T_COLON, "to go with the '?' at %d:%d", q.span.line,
                                 q.span.col))
                n->args[2] = tc__parse_expr(P);
            if (n->args[2]) n->span = tc__span_join(e->span, n->args[2]->span);
        }
        e = n;
    }
    P->depth--;
    return P->C->failed ? NULL : e;
}

/* Can this token start an expression? */
TC__PRIVATE int tc__parse_starts_expr(tc__tok k) {
    return k == TC__T_INT || k == TC__T_FLOAT || k == TC__T_IDENT || k == TC__T_LPAREN ||
           k == TC__T_MINUS || k == TC__T_PLUS || k == TC__T_NOT;
}

/* where -> 'exists' expr
 *        | IDENT 'in' expr ':' expr                   range [lo, hi)
 *        | IDENT '=' '[' expr ',' expr '['            the same range (seed README)
 *        | IDENT '=' expr                             let */
TC__PRIVATE int tc__parse_where(tc__parser *P, tc__where *w) {
    tc__span start = P->tok.span;
    if (tc__parse_accept(P, TC__T_EXISTS)) {
        w->kind = TC__W_EXISTS;
        w->expr = tc__parse_expr(P);
    } else if (P->tok.kind != TC__T_IDENT) {
        return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                     "expected a where clause like 'i in 0:N', 'x = expr' or "
                                     "'exists expr'");
    } else {
        w->name = tc__parse_take_name(P, &w->name_span);
        if (tc__parse_accept(P, TC__T_IN)) {
            w->kind = TC__W_RANGE;
            if ((w->lo = tc__parse_expr(P)) != NULL &&
                tc__parse_expect(P, TC__T_COLON, "between the bounds of the range of %s",
                                 w->name))
                w->hi = tc__parse_expr(P);
        } else if (!tc__parse_expect(P, TC__T_ASSIGN, "or 'in' after %s in a where clause",
                                     w->name)) {
            return 0;
        } else if (tc__parse_accept(P, TC__T_LBRACKET)) {
            w->kind = TC__W_RANGE;
            if ((w->lo = tc__parse_expr(P)) != NULL &&
                tc__parse_expect(P, TC__T_COMMA, "between the bounds of [lo, hi[") &&
                (w->hi = tc__parse_expr(P)) != NULL && P->tok.kind == TC__T_RBRACKET)
                return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                             "a range is half-open: write [lo, hi[");
            tc__parse_expect(P, TC__T_LBRACKET, "to end the range [lo, hi[ of %s", w->name);
        } else {
            w->kind = TC__W_LET;
            w->expr = tc__parse_expr(P);
        }
    }
    w->span = tc__parse_span_from(P, start);
    return !P->C->failed;
}

/* where_list -> 'where' where {(',' | 'where') where} */
TC__PRIVATE int tc__parse_where_list(tc__parser *P, tc__stmt *s) {
    int cap = 0;
    do {
        tc__where w;
        memset(&w, 0, sizeof w);
        if (!tc__parse_where(P, &w) ||
            !tc__parse_push(P, (void **)&s->where, &s->n_where, &cap, &w, sizeof w))
            return 0;
    } while (tc__parse_accept(P, TC__T_COMMA) || tc__parse_accept(P, TC__T_WHERE));
    return 1;
}

/* Appends a name and its span to parallel arena arrays. */
TC__PRIVATE int tc__parse_push_name(tc__parser *P, const char ***names, tc__span **spans, int *n,
                                    int *cap, const char *name, tc__span span) {
    int n0 = *n, cap0 = *cap;
    if (!name || !tc__parse_push(P, (void **)names, n, cap, &name, sizeof name)) return 0;
    return tc__parse_push(P, (void **)spans, &n0, &cap0, &span, sizeof span);
}

/* lhs_indices -> '(' [IDENT {',' IDENT}] ')'       distinct plain names */
TC__PRIVATE int tc__parse_lhs_indices(tc__parser *P, tc__stmt *s) {
    int cap = 0, i;
    tc__parse_next(P); /* '(' */
    if (tc__parse_accept(P, TC__T_RPAREN)) return 1;
    for (;;) {
        tc__span sp;
        const char *name;
        if (P->tok.kind != TC__T_IDENT)
            return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                         "expected an index name like i on the left of %s "
                                         "(left-hand indices are plain names)",
                                         s->lhs);
        if (s->n_idx == TC_MAX_RANK)
            return tc__fail(P->C, TC_ERR_LIMIT, P->tok.span,
                            "%s has more than %d indices (TC_MAX_RANK)", s->lhs, TC_MAX_RANK);
        name = tc__parse_take_name(P, &sp);
        for (i = 0; name && i < s->n_idx; i++)
            if (strcmp(s->idx[i], name) == 0)
                return tc__fail(P->C, TC_ERR_NAME, sp, "index %s appears twice on the left of %s",
                                name, s->lhs);
        if (!tc__parse_push_name(P, &s->idx, &s->idx_spans, &s->n_idx, &cap, name, sp)) return 0;
        if (tc__parse_accept(P, TC__T_RPAREN)) return 1;
        if (!tc__parse_accept(P, TC__T_COMMA))
            return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                         "expected ',' or ')' after index %s of %s "
                                         "(left-hand indices are plain names)",
                                         name, s->lhs);
    }
}

/* assign -> '=' | '+=' | '*=' | 'min=' | 'max=' | '+=!' | '*=!' | 'min=!' | 'max=!' */
TC__PRIVATE int tc__parse_assign(tc__parser *P, tc__stmt *s) {
    static const struct {
        tc__tok tok;
        tc_reduce reduce;
        int init;
    } ops[] = {{TC__T_ASSIGN, TC_REDUCE_ASSIGN, 0},  {TC__T_PLUS_EQ, TC_REDUCE_SUM, 0},
               {TC__T_TIMES_EQ, TC_REDUCE_PROD, 0},  {TC__T_MIN_EQ, TC_REDUCE_MIN, 0},
               {TC__T_MAX_EQ, TC_REDUCE_MAX, 0},     {TC__T_PLUS_EQ_B, TC_REDUCE_SUM, 1},
               {TC__T_TIMES_EQ_B, TC_REDUCE_PROD, 1}, {TC__T_MIN_EQ_B, TC_REDUCE_MIN, 1},
               {TC__T_MAX_EQ_B, TC_REDUCE_MAX, 1}};
    size_t i;
    tc__tok k = P->tok.kind;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].tok == k) {
            s->reduce = ops[i].reduce;
            s->init = ops[i].init;
            s->op_span = P->tok.span;
            tc__parse_next(P);
            return 1;
        }
    if ((k == TC__T_MINUS || k == TC__T_SLASH || k == TC__T_PERCENT) &&
        tc__parse_peek(P) == TC__T_ASSIGN)
        return tc__fail(P->C, TC_ERR_SYNTAX, P->tok.span,
                        "'%s=' is not a TC reduction: use =, +=, *=, min= or max=, "
                        "optionally followed by ! (+=! starts from 0)",
                        tc__tok_text[k]);
    return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                 "expected '=', '+=', '*=', 'min=' or 'max=' after %s%s",
                                 s->lhs, s->n_idx ? "(...)" : "");
}

/* Whether s[0..n) names a tensor of d that can be read so far: a
   parameter, or a tensor an earlier statement writes (an output nothing
   has written yet cannot be read, so `sq = sq(X)` into output sq stays a
   call). */
TC__PRIVATE int tc__parse_is_local(const tc__def *d, const char *s, size_t n) {
    int i, j;
    for (i = 0; i < d->n_inputs; i++)
        if (tc__name_is(d->inputs[i].name, s, n)) return 1;
    for (i = 0; i < d->n_stmts; i++) {
        if (tc__name_is(d->stmts[i].lhs, s, n)) return 1;
        for (j = 0; j < d->stmts[i].n_outs; j++)
            if (tc__name_is(d->stmts[i].outs[j], s, n)) return 1;
    }
    return 0;
}

/* Decides `s = f(x, y)`: a def call when f names a def defined earlier and
   no tensor of d, and the right side is exactly f applied to names;
   otherwise the statement is a 0-rank comprehension (f a tensor read,
   builtin or cast). The current token is '='; scans ahead on a quiet copy
   of the lexer. */
TC__PRIVATE int tc__parse_is_call(const tc__parser *P, const tc__def *d) {
    tc__lexer L = P->L;
    tc__token t;
    int known;
    L.quiet = 1;
    tc__lex_next(&L, &t);
    if (t.kind != TC__T_IDENT) return 0;
    known = tc__ast_def_named(P->ast, P->C->src + t.span.offset, (size_t)t.span.length) >= 0 &&
            !tc__parse_is_local(d, P->C->src + t.span.offset, (size_t)t.span.length);
    tc__lex_next(&L, &t);
    if (!known || t.kind != TC__T_LPAREN) return 0;
    tc__lex_next(&L, &t);
    if (t.kind != TC__T_RPAREN) {
        for (;;) {
            if (t.kind != TC__T_IDENT) return 0;
            tc__lex_next(&L, &t);
            if (t.kind == TC__T_RPAREN) break;
            if (t.kind != TC__T_COMMA) return 0;
            tc__lex_next(&L, &t);
        }
    }
    tc__lex_next(&L, &t);
    return !tc__parse_binary_prec(t.kind) && t.kind != TC__T_QUESTION &&
           t.kind != TC__T_WHERE;
}

/* call_stmt -> IDENT {',' IDENT} '=' IDENT '(' [IDENT {',' IDENT}] ')'
 * The first output name is consumed; its span is `first`. */
TC__PRIVATE int tc__parse_call_stmt(tc__parser *P, tc__stmt *s, tc__span first) {
    int cap = 0;
    s->is_call = 1;
    if (!tc__parse_push_name(P, &s->outs, &s->out_spans, &s->n_outs, &cap, s->lhs, first))
        return 0;
    s->lhs = NULL;
    while (tc__parse_accept(P, TC__T_COMMA)) {
        tc__span sp;
        const char *name = tc__parse_name(P, &sp, "an output name after ',' in a def call");
        if (!tc__parse_push_name(P, &s->outs, &s->out_spans, &s->n_outs, &cap, name, sp))
            return 0;
    }
    if (!tc__parse_expect(P, TC__T_ASSIGN, "after the outputs of a def call (a, b = f(x))"))
        return 0;
    s->callee = tc__parse_name(P, &s->callee_span, "the name of the def to call");
    if (!s->callee ||
        !tc__parse_expect(P, TC__T_LPAREN, "after %s in a def call (a, b = f(x))", s->callee))
        return 0;
    cap = 0;
    if (!tc__parse_accept(P, TC__T_RPAREN)) {
        do {
            tc__span sp;
            const char *name =
                tc__parse_name(P, &sp, "a tensor name (def call arguments are names)");
            if (!tc__parse_push_name(P, &s->args, &s->arg_spans, &s->n_args, &cap, name, sp))
                return 0;
        } while (tc__parse_list_more(P, "in the arguments of %s", s->callee));
    }
    if (P->C->failed) return 0;
    s->span = tc__parse_span_from(P, first);
    return 1;
}

/* equiv -> '<=>' IDENT '(' [expr {',' expr}] ')'
 * The original TC's equivalence annotation (a statement names the library
 * operation it equals, `<=> matmul(A(i,k), B(k,j))`): parsed so a typo is
 * still a syntax error, then dropped; nothing checks or uses it. */
TC__PRIVATE int tc__parse_equiv(tc__parser *P) {
    tc__expr *e;
    if (P->tok.kind != TC__T_IDENT || tc__parse_peek(P) != TC__T_LPAREN)
        return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                     "expected an operation after '<=>', as in "
                                     "'<=> matmul(A(i,k), B(k,j))'");
    e = tc__parse_name_expr(P);
    return e != NULL && !P->C->failed;
}

/* stmt -> call_stmt
 *       | IDENT [lhs_indices] assign expr [equiv] [where_list] [equiv]   comprehension */
TC__PRIVATE int tc__parse_stmt(tc__parser *P, const tc__def *d, tc__stmt *s) {
    tc__span first = P->tok.span;
    int equiv = 0;
    s->lhs = tc__parse_take_name(P, &s->lhs_span);
    if (P->tok.kind == TC__T_COMMA || (P->tok.kind == TC__T_ASSIGN && tc__parse_is_call(P, d)))
        return tc__parse_call_stmt(P, s, first);
    if (P->tok.kind == TC__T_LPAREN && !tc__parse_lhs_indices(P, s)) return 0;
    if (!tc__parse_assign(P, s)) return 0;
    s->rhs = tc__parse_expr(P);
    if (s->rhs && tc__parse_accept(P, TC__T_EQUIV)) equiv = tc__parse_equiv(P);
    if (s->rhs && !P->C->failed && tc__parse_accept(P, TC__T_WHERE)) tc__parse_where_list(P, s);
    if (!equiv && s->rhs && !P->C->failed && tc__parse_accept(P, TC__T_EQUIV)) tc__parse_equiv(P);
    s->span = tc__parse_span_from(P, first);
    return !P->C->failed;
}

/* The dtype named by the current token, if it is one. */
TC__PRIVATE int tc__parse_dtype(const tc__parser *P, tc_dtype *dt) {
    char name[16];
    if (P->tok.kind != TC__T_IDENT || P->tok.span.length >= (int)sizeof name) return 0;
    memcpy(name, P->C->src + P->tok.span.offset, (size_t)P->tok.span.length);
    name[P->tok.span.length] = '\0';
    return tc_dtype_from_name(name, dt);
}

/* dims -> '(' [dim {',' dim}] ')'        dim -> IDENT | INT   (size variable or constant) */
TC__PRIVATE int tc__parse_dims(tc__parser *P, tc__param *p, const char *type) {
    int cap = 0;
    tc__parse_next(P); /* '(' */
    if (tc__parse_accept(P, TC__T_RPAREN)) return 1;
    do {
        tc__expr *d;
        if (P->tok.kind != TC__T_IDENT && P->tok.kind != TC__T_INT)
            return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                         "expected a size variable or an integer as a "
                                         "dimension of %s(...)",
                                         type);
        if (p->rank == TC_MAX_RANK)
            return tc__fail(P->C, TC_ERR_LIMIT, P->tok.span,
                            "more than %d dimensions (TC_MAX_RANK)", TC_MAX_RANK);
        d = tc__parse_new_expr(P, P->tok.kind == TC__T_INT ? TC__E_INT : TC__E_IDENT,
                               P->tok.span, 0);
        if (!d) return 0;
        d->ival = P->tok.ival;
        d->lit = P->tok.lit;
        d->name_span = P->tok.span;
        if (d->kind == TC__E_IDENT) d->name = tc__parse_take_name(P, NULL);
        else tc__parse_next(P);
        if (P->C->failed || !tc__parse_push(P, (void **)&p->dims, &p->rank, &cap, &d, sizeof d))
            return 0;
    } while (tc__parse_list_more(P, "in the dimensions of %s(...)", type));
    return !P->C->failed;
}

/* param -> TYPE [dims] IDENT       TYPE: a dtype name or alias */
TC__PRIVATE int tc__parse_param(tc__parser *P, tc__param *p, const char *what) {
    tc__span start = P->tok.span;
    char type[16];
    if (!tc__parse_dtype(P, &p->dtype)) {
        tc__tok next = tc__parse_peek(P);
        if (P->tok.kind != TC__T_IDENT)
            return tc__parse_error_found(P, TC_ERR_SYNTAX, "expected %s like float(N) A", what);
        if (next == TC__T_COMMA || next == TC__T_RPAREN)
            return tc__fail(P->C, TC_ERR_SYNTAX, P->tok.span,
                            "%s %.*s needs a type, as in float(N) %.*s", what,
                            P->tok.span.length, P->C->src + P->tok.span.offset,
                            P->tok.span.length, P->C->src + P->tok.span.offset);
        return tc__fail(P->C, TC_ERR_SYNTAX, P->tok.span,
                        "unknown type '%.*s' (types: bool, int8/16/32/64, uint8/16/32/64, "
                        "float16, float32, float64, and half, float, double, byte, int)",
                        P->tok.span.length > 40 ? 40 : P->tok.span.length,
                        P->C->src + P->tok.span.offset);
    }
    snprintf(type, sizeof type, "%.*s", P->tok.span.length, P->C->src + P->tok.span.offset);
    p->has_type = 1;
    tc__parse_next(P);
    if (P->tok.kind == TC__T_LPAREN && !tc__parse_dims(P, p, type)) return 0;
    p->name = tc__parse_name(P, &p->name_span, "a name after the type");
    p->span = tc__parse_span_from(P, start);
    return !P->C->failed;
}

/* output -> IDENT | param. A name followed by '(' or a name was meant as
   a type: tc__parse_param says which types there are. */
TC__PRIVATE int tc__parse_output(tc__parser *P, tc__param *p) {
    tc_dtype dt;
    tc__tok next = tc__parse_peek(P);
    if (tc__parse_dtype(P, &dt) ||
        (P->tok.kind == TC__T_IDENT && (next == TC__T_LPAREN || next == TC__T_IDENT)))
        return tc__parse_param(P, p, "an output");
    p->name = tc__parse_name(P, &p->name_span, "an output name");
    p->span = p->name_span;
    return !P->C->failed;
}

/* outputs -> '(' output {',' output} ')' | output */
TC__PRIVATE int tc__parse_outputs(tc__parser *P, tc__def *d) {
    int cap = 0, parens = tc__parse_accept(P, TC__T_LPAREN);
    if (parens && P->tok.kind == TC__T_RPAREN)
        return tc__fail(P->C, TC_ERR_SYNTAX, P->tok.span,
                        "def %s has no outputs: list at least one, as in -> (C)", d->name);
    do {
        tc__param p;
        memset(&p, 0, sizeof p);
        if (!tc__parse_output(P, &p) ||
            !tc__parse_push(P, (void **)&d->outputs, &d->n_outputs, &cap, &p, sizeof p))
            return 0;
    } while (parens && tc__parse_accept(P, TC__T_COMMA));
    if (parens) return tc__parse_expect(P, TC__T_RPAREN, "to close the outputs of %s", d->name);
    if (P->tok.kind == TC__T_COMMA)
        return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                     "expected '{' (several outputs go in parentheses: "
                                     "-> (C, D))");
    return 1;
}

/* body -> '{' {stmt [';']} '}' */
TC__PRIVATE int tc__parse_body(tc__parser *P, tc__def *d) {
    int cap = 0;
    tc__span open = P->tok.span;
    if (!tc__parse_expect(P, TC__T_LBRACE, "to open the body of %s", d->name)) return 0;
    while (!P->C->failed && !tc__parse_accept(P, TC__T_RBRACE)) {
        tc__stmt s;
        memset(&s, 0, sizeof s);
        if (tc__parse_accept(P, TC__T_SEMI)) continue;
        if (P->tok.kind == TC__T_EOF || P->tok.kind == TC__T_DEF)
            return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                         "expected '}' to close def %s (opened at %d:%d)",
                                         d->name, open.line, open.col);
        if (P->tok.kind != TC__T_IDENT)
            return tc__parse_error_found(P, TC_ERR_SYNTAX,
                                         "expected a statement like C(i) = A(i) + 1");
        if (!tc__parse_stmt(P, d, &s) ||
            !tc__parse_push(P, (void **)&d->stmts, &d->n_stmts, &cap, &s, sizeof s))
            return 0;
    }
    return !P->C->failed;
}

/* def -> 'def' IDENT '(' [param {',' param}] ')' '->' outputs body */
TC__PRIVATE int tc__parse_def(tc__parser *P, tc__def *d) {
    tc__span start = P->tok.span;
    int cap = 0;
    if (!tc__parse_expect(P, TC__T_DEF, "to start a definition")) return 0;
    d->name = tc__parse_name(P, &d->name_span, "a name after 'def'");
    if (!d->name || !tc__parse_expect(P, TC__T_LPAREN, "after def %s", d->name)) return 0;
    if (!tc__parse_accept(P, TC__T_RPAREN)) {
        tc__param p;
        do {
            memset(&p, 0, sizeof p);
            if (!tc__parse_param(P, &p, "a parameter") ||
                !tc__parse_push(P, (void **)&d->inputs, &d->n_inputs, &cap, &p, sizeof p))
                return 0;
        } while (tc__parse_list_more(P, "after parameter %s", p.name));
    }
    if (!tc__parse_expect(P, TC__T_ARROW, "and the outputs after the parameters of %s",
                          d->name) ||
        !tc__parse_outputs(P, d) || !tc__parse_body(P, d))
        return 0;
    d->span = tc__parse_span_from(P, start);
    return 1;
}

/* source -> def {def}
 * Lexes and parses C->src into *out (arena). Returns 1, or 0 after
 * tc__fail: TC_ERR_SYNTAX, TC_ERR_NAME (an index twice on the left),
 * TC_ERR_LIMIT (nesting, rank), TC_ERR_OUT_OF_MEMORY. */
TC__PRIVATE int tc__parse(tc__ctx *C, tc__ast *out) {
    tc__parser P;
    memset(out, 0, sizeof *out);
    if (C->failed) return 0;
    if (C->src_len > (size_t)INT_MAX / 2) {
        tc__span none = {0, 0, 0, 0};
        return tc__fail(C, TC_ERR_LIMIT, none, "source too large");
    }
    memset(&P, 0, sizeof P);
    P.C = C;
    P.ast = out;
    P.max_depth = C->max_depth > 0 ? C->max_depth : TC_MAX_DEPTH;
    tc__lex_init(&P.L, C);
    tc__parse_next(&P);
    while (!C->failed && P.tok.kind != TC__T_EOF) {
        tc__def d;
        memset(&d, 0, sizeof d);
        if (!tc__parse_def(&P, &d)) break;
        tc__parse_push(&P, (void **)&out->defs, &out->n_defs, &P.cap_defs, &d, sizeof d);
        if (!C->failed && !tc__ast_index_defs(C, out, out->n_defs - 1, out->n_defs)) break;
    }
    if (!C->failed && out->n_defs == 0)
        tc__fail(C, TC_ERR_SYNTAX, P.tok.span,
                 "the source has no def: expected def name(float(N) A) -> (B) { ... }");
    if (C->failed) memset(out, 0, sizeof *out);
    return !C->failed;
}
/* ==== [tc:sema] Semantic checks: names, types, calls, typed expression nodes ====
   tc__frontend_def turns def number `def` of the AST into its tc_ir_def:
   names are resolved, types checked and promoted, TC-to-TC calls inlined,
   ranges inferred ([tc:range]) and everything lowered ([tc:lower]).

   Decisions where SEMANTICS.md is silent (keep them predictable):
   - Names. Size variables, tensors (parameters, outputs, temporaries) and
     index variables share one namespace. A name that is not a size
     variable, tensor or `where x = e` let is an index variable of its
     statement. Builtin names, `min`, `max` and dtype names (aliases too)
     are reserved. A size variable must appear in an input type: one that
     appears only in output types cannot be bound and is an error.
   - Types. bool in arithmetic (+ - * / % and unary -) acts as int32, as
     in C; comparisons, `?:` branches and min/max keep bool when both sides
     are bool. float16 is a type of values too (a float16 read is float16;
     float16 op float16 is float16) but its nodes compute in float32 and
     round where they are stored; the cast half(x) rounds where it is
     written (float(half(0.1)) is 0.0999755859375).
     Literals follow SEMANTICS.md §1 and promote by §3: an integer literal
     is int32 (int64 when it does not fit; C's suffixes make it unsigned or
     64-bit, 10u is uint32; hex and octal digits as in C, 0xFFFFFFFF int64
     by its value, above INT64_MAX uint64), a float literal float32 (C's
     suffixes f and l are accepted and change nothing), so
     int8 + 1 is int32 and half * 2.0 is float32. A float literal next
     to a float64 value is its float32 value widened, as in the reference
     TC: with a float64 d, d * 0.1 is d * double(0.1f) (write d / 10 for
     the double 0.1). A store converts implicitly
     only when nothing is lost by kind or width: bool -> anything, int ->
     wider int of the same signedness, unsigned -> wider signed, int ->
     any float, float -> wider float. Anything else needs a cast written as
     a call: int32(x), float(x), half(x) (half(x) is a float16 value,
     computed in float32, rounded when stored). `+=` and `*=` on bool
     tensors are errors (min= and max= are and/or).
   - Error codes: undefined/duplicate/reserved names and misuse of a name's
     kind: TC_ERR_NAME; types, casts, index counts, T.d out of range, arity,
     a reduction index with `=`: TC_ERR_TYPE; ranges that cannot be inferred
     and accesses provably out of bounds: TC_ERR_RANGE; provably different
     shapes (declared output dims, call arguments): TC_ERR_SHAPE.
   - `where k in lo:hi` for a k the statement does not use is an error; a
     variable used only in `exists` is an index variable like the others.
     lo and hi are size expressions (tc_sx): size variables, integer
     literals, T.d, 0-rank integer inputs, + - * / % min max, comparisons
     (1 or 0), && || ! of comparisons and c ? a : b with c a comparison
     (both branches are evaluated: each must fit 64 bits).
   - Lets may use index variables and other lets (in any order, no cycles);
     they are inlined, and one let used twice outside `?:` branches shares
     its nodes. Lets are not size expressions.
   - Calls are inlined: the callee's temporaries become the caller's
     temporaries named "callee.name"; its size variables bind to the
     argument extents, with TC_CHECK_EQ checks where two must agree.
     Argument dtypes must match exactly.
   - The extent of an output with a declared type is the declared dim
     (the inferred one is checked equal to it). When nothing else bounds a
     left-hand index of its first write, the declared dim is its range.
   - Reads inside a ?: branch may not happen, so they need no
     precondition, and they bound ranges only when a round of the other
     accesses (and a declared output) resolves nothing. Then first the
     branch reads whose index is one unresolved variable alone bound it
     (`W(m, c, kh, kw)` in a guarded conv gradient), and only when those
     resolve nothing, any branch read with one unresolved variable (`(K >
     0) ? A(i + k) * W(k) : 0` gives k from W, then i from A), before the
     "cannot infer" error. So a read the ?: guards (`i < 3 ? A(i) : 0`
     beside B(i), `dO(h - kh)` with h given by a where) never narrows a
     range that other reads give. When
     their bounds are not provable branch reads keep a
     general index, which the back end checks per element where the branch
     is taken (SEMANTICS.md §6: `(h >= P && h < H + P) ? I(h - P) : 0`).
     The right side of && and || is evaluated, as in C, only where the
     left side leaves the answer open, so `i > 0 && B(i - 1) > 0` never
     reads B(-1): its reads bound ranges as any read does (so
     `X(i) > 0 && Z(i) > 0` keeps i within both), but where a range is
     fixed otherwise they are checked per element where read, like
     branch reads, not as preconditions.
   - A read whose index is not affine (a gather, i * j, a size coefficient
     like K * h) bounds no range and is checked per element: a warning.
     Exception: `X / c`, X affine and c a nonzero constant, plus an affine
     rest, bounds ranges as the one quotient it equals (tc__sm_quotient:
     upsampling B(i / 2) gives i in [0, 2N), B(i / 2 + 1) [0, 2N - 2)); its
     value is still checked per element.
   - A precondition proven false at compile time is an error even if the
     statement's domain might be empty. */

#define TC__LIN_MAX 16          /* terms of a linear size expression we normalise */
#define TC__SM_MAX_NODES (1 << 22)
#define TC__SM_MAX_STMTS 100000 /* statements after inlining calls */

typedef struct tc__sm_tensor { /* what sema knows of an IR tensor besides tc_ir_tensor */
    int sized;                 /* extents known: an input, or written by an earlier statement */
    int typed;                 /* dtype known: declared, or set by the first write */
    int written;
    int declared;              /* output type with dims: decl[] holds them */
    int decl[TC_MAX_RANK];
    tc__span span;             /* the declaration */
} tc__sm_tensor;

typedef struct tc__sema {
    tc__ctx *C;
    const tc__ast *ast;
    tc_sx *sx;
    int n_sx, cap_sx;
    int *sx_hash; /* open addressing: id + 1, 0 empty */
    int sx_overflow; /* set when + - * of two constants overflowed */
    int sx_hcap;
    const char **sizevars;
    int n_sizevars, cap_sizevars;
    tc_ir_tensor *t;  /* the IR tensors being built */
    tc__sm_tensor *ti; /* parallel to t */
    int n_t, cap_t, cap_ti;
    int n_inputs, n_outputs;
    tc_ir_stmt *stmts;
    int n_stmts, cap_stmts;
    tc_ir_check *checks;
    int n_checks, cap_checks;
    int inline_depth; /* > 0 while inlining a call: its warnings were given already */
    int *calls;       /* per def of the source: how often it was inlined so far */
    int cap_calls;
} tc__sema;

/* Names visible to the statements of one def body (the def being compiled,
   or a callee being inlined): tensors and size variables. */
enum { TC__SM_TENSOR, TC__SM_SIZE };
typedef struct tc__sm_name {
    const char *name;
    int kind; /* TENSOR: id is the tensor (-1: a temporary not written yet); SIZE: an sx */
    int id;
} tc__sm_name;
typedef struct tc__sm_env {
    const tc__def *def;
    int def_index;      /* this def may call defs 0 .. def_index - 1 */
    tc__sm_name *names;
    int n_names, cap_names;
    int *hash;          /* names + 1 by name (open addressing, 0 empty) past a few names */
    int hcap;
    const char *prefix; /* while inlining: temporaries become prefix.name, where
                           prefix names the call, unique in the def (f, f.2, g.f) */
} tc__sm_env;

/* One comprehension statement being checked and lowered. */
typedef struct tc__sm_var {
    const char *name;
    tc__span span; /* first use */
    int lhs;       /* position on the left, -1 for a reduction index */
    int fixed;     /* range given by `where` */
    int resolved;
    int lo, hi;    /* sx, half-open */
} tc__sm_var;
typedef struct tc__sm_access { /* one dimension of an affine access */
    int tensor, dim;
    int lhs;                   /* the left-hand access */
    int exists;                /* inside `exists`: constrains, never evaluated */
    const int64_t *coef;       /* per loop */
    int off;                   /* sx */
    const tc__expr *expr;      /* the read (NULL: left-hand side) */
    int lo_ok, hi_ok;          /* proven in bounds by inference */
    int cand;                  /* scratch: the variable it constrains this round */
    int branch;                /* inside a ?: branch: may be performed for only some points */
    int guarded;               /* ... or on the right of && / ||: read only where that decides */
    int64_t div;               /* > 0: the index is (coef, off) / div, see tc__sm_quotient */
    tc_ir_index *ix;           /* the read's index entry (NULL: left-hand side) */
} tc__sm_access;
typedef struct tc__sm_readix { /* a READ node and its (writable) index entries */
    int node, rank;
    tc_ir_index *ix;
    tc__span span; /* the read in the source */
} tc__sm_readix;
typedef struct tc__sm_let {
    const tc__where *w;
    int busy; /* cycle guard */
    int used; /* reached from the right-hand side or an exists clause */
} tc__sm_let;
typedef struct tc__sm_letval { /* a let's nodes, reusable where computed unconditionally */
    int let, branch, node;
    tc_dtype type;
} tc__sm_letval;
typedef struct tc__sm_val { /* a typed expression: node id (-1: failed) and value type */
    int node;
    tc_dtype type; /* may be FLOAT16 (nodes then compute in float32) */
} tc__sm_val;
typedef struct tc__sm_stmt {
    tc__sema *S;
    tc__sm_env *E;
    const tc__stmt *st;
    tc__sm_var *vars;
    int n_vars, cap_vars;
    tc__sm_let *lets;
    int n_lets;
    tc__sm_access *acc;
    int n_acc, cap_acc;
    tc_ir_node *nodes;
    int n_nodes, cap_nodes;
    tc__sm_letval *lv;
    int n_lv, cap_lv;
    int branch[64]; /* ids of the conditional parts we are inside (0: unconditional): */
    int n_branch, next_branch; /* ?: branches, and right sides of && / || */
    int n_select;              /* how many of them are ?: branches */
    tc__sm_readix *reads;
    int n_reads, cap_reads;
    int in_exists;
    int depth;
    int target; /* the tensor written */
    long work;  /* steps of the analyses that expand lets at each use (bounded) */
} tc__sm_stmt;

/* The affine and size analyses re-expand lets at every use, which is
   exponential for chains like a = b + b, b = c + c, ...: past this budget
   they give up (the index is then read through a general node). */
#define TC__SM_WORK 100000

/* ==== [tc:sxb] Size-expression DAG: hash-consed, simplified as built ===== */

TC__PRIVATE unsigned tc__sx_hashkey(tc_sx_op op, int a, int b, int64_t v) {
    uint64_t h = (uint64_t)op * 0x9E3779B97F4A7C15ull;
    h = (h ^ (uint32_t)a) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (uint32_t)b) * 0x94D049BB133111EBull;
    h = (h ^ (uint64_t)v) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 32);
}

TC__PRIVATE int tc__sx_rehash(tc__sema *S, int hcap) {
    int *h = (int *)tc__alloc_n(S->C, (size_t)hcap, sizeof(int));
    int i;
    if (!h) return 0;
    for (i = 0; i < S->n_sx; i++) {
        const tc_sx *x = &S->sx[i];
        unsigned k = tc__sx_hashkey(x->op, x->a, x->b, x->value) & (unsigned)(hcap - 1);
        while (h[k]) k = (k + 1) & (unsigned)(hcap - 1);
        h[k] = i + 1;
    }
    S->sx_hash = h;
    S->sx_hcap = hcap;
    return 1;
}

/* The node (op, a, b, value), reusing an equal one. Leaves use a = b = 0. */
TC__PRIVATE int tc__sx_raw(tc__sema *S, tc_sx_op op, int a, int b, int64_t v) {
    unsigned k;
    tc_sx *x;
    if (a < 0 || b < 0 || S->C->failed) return -1;
    if (S->n_sx * 2 >= S->sx_hcap && !tc__sx_rehash(S, S->sx_hcap ? S->sx_hcap * 2 : 64))
        return -1;
    k = tc__sx_hashkey(op, a, b, v) & (unsigned)(S->sx_hcap - 1);
    while (S->sx_hash[k]) {
        x = &S->sx[S->sx_hash[k] - 1];
        if (x->op == op && x->a == a && x->b == b && x->value == v) return S->sx_hash[k] - 1;
        k = (k + 1) & (unsigned)(S->sx_hcap - 1);
    }
    if (!tc__grow(S->C, (void **)&S->sx, &S->cap_sx, S->n_sx + 1, sizeof(tc_sx))) return -1;
    x = &S->sx[S->n_sx];
    x->op = op;
    x->a = a;
    x->b = b;
    x->value = v;
    S->sx_hash[k] = S->n_sx + 1;
    return S->n_sx++;
}
TC__PRIVATE int tc__sx_const(tc__sema *S, int64_t v) { return tc__sx_raw(S, TC_SX_CONST, 0, 0, v); }
TC__PRIVATE int tc__sx_isconst(const tc__sema *S, int id, int64_t *v) {
    if (id < 0 || S->sx[id].op != TC_SX_CONST) return 0;
    *v = S->sx[id].value;
    return 1;
}

/* Linear form: sum of coef * atom + k, atoms being sx that are not + - or
   * by a constant. Used to normalise sums ("H - KH + 1", constants last)
   and to compare two size expressions. */
typedef struct tc__lin {
    int n, ok;
    int atom[TC__LIN_MAX];
    int64_t coef[TC__LIN_MAX];
    int64_t k;
} tc__lin;

TC__PRIVATE void tc__lin_term(tc__lin *L, int atom, int64_t c) {
    int i;
    for (i = 0; i < L->n; i++)
        if (L->atom[i] == atom) {
            if (!tc__add64(L->coef[i], c, &L->coef[i])) L->ok = 0;
            return;
        }
    if (L->n == TC__LIN_MAX) {
        L->ok = 0;
        return;
    }
    L->atom[L->n] = atom;
    L->coef[L->n++] = c;
}
TC__PRIVATE void tc__lin_of(const tc__sema *S, int id, int64_t scale, tc__lin *L, int depth) {
    const tc_sx *x = &S->sx[id];
    int64_t c, t;
    if (!L->ok) return;
    if (x->op == TC_SX_CONST) {
        if (!tc__mul64(x->value, scale, &t) || !tc__add64(L->k, t, &L->k)) L->ok = 0;
        return;
    }
    if (depth < 64 && (x->op == TC_SX_ADD || x->op == TC_SX_SUB)) {
        tc__lin_of(S, x->a, scale, L, depth + 1);
        if (x->op == TC_SX_SUB && scale == INT64_MIN) L->ok = 0;
        else tc__lin_of(S, x->b, x->op == TC_SX_ADD ? scale : -scale, L, depth + 1);
        return;
    }
    if (depth < 64 && x->op == TC_SX_MUL &&
        (tc__sx_isconst(S, x->a, &c) || tc__sx_isconst(S, x->b, &c))) {
        if (!tc__mul64(scale, c, &t)) L->ok = 0;
        else tc__lin_of(S, S->sx[x->a].op == TC_SX_CONST ? x->b : x->a, t, L, depth + 1);
        return;
    }
    tc__lin_term(L, id, scale);
}
TC__PRIVATE void tc__lin_init(tc__lin *L) {
    L->n = 0;
    L->ok = 1;
    L->k = 0;
}
/* L = a - b (as linear forms). */
TC__PRIVATE void tc__lin_diff(const tc__sema *S, int a, int b, tc__lin *L) {
    tc__lin_init(L);
    tc__lin_of(S, a, 1, L, 0);
    tc__lin_of(S, b, -1, L, 0);
}

/* |c| * atom, for printing a term. */
TC__PRIVATE int tc__lin_termsx(tc__sema *S, int atom, int64_t c) {
    if (c == 1 || c == -1) return atom;
    return tc__sx_raw(S, TC_SX_MUL, atom, tc__sx_const(S, c < 0 ? -c : c), 0);
}
/* Canonical sx of a linear form: atoms by id, the first positive term
   first, the constant last ("H - KH + 1", "11 - I"). -2 for a coefficient
   of INT64_MIN, whose magnitude a term cannot carry. */
TC__PRIVATE int tc__lin_build(tc__sema *S, tc__lin *L) {
    int i, j, acc = -1, first = -1;
    for (i = 0; i < L->n; i++)
        if (L->coef[i] == INT64_MIN) return -2;
    for (i = 1; i < L->n; i++) /* insertion sort by atom id: n is small */
        for (j = i; j > 0 && L->atom[j - 1] > L->atom[j]; j--) {
            int ta = L->atom[j];
            int64_t tcf = L->coef[j];
            L->atom[j] = L->atom[j - 1];
            L->coef[j] = L->coef[j - 1];
            L->atom[j - 1] = ta;
            L->coef[j - 1] = tcf;
        }
    for (i = 0; i < L->n && first < 0; i++)
        if (L->coef[i] > 0) first = i;
    if (first >= 0) acc = tc__lin_termsx(S, L->atom[first], L->coef[first]);
    else if (L->k != 0 || L->n == 0) {
        acc = tc__sx_const(S, L->k);
        L->k = 0;
    }
    for (i = 0; i < L->n; i++) {
        int t;
        if (i == first || L->coef[i] == 0) continue;
        t = tc__lin_termsx(S, L->atom[i], L->coef[i]);
        if (acc < 0) acc = tc__sx_raw(S, TC_SX_SUB, tc__sx_const(S, 0), t, 0);
        else acc = tc__sx_raw(S, L->coef[i] > 0 ? TC_SX_ADD : TC_SX_SUB, acc, t, 0);
    }
    if (acc < 0) return tc__sx_const(S, L->k);
    if (L->k != 0) acc = tc__sx_raw(S, TC_SX_ADD, acc, tc__sx_const(S, L->k), 0);
    return acc;
}

/* Interval bounds of size expressions, for proofs. TC__SX_INF stands for
   "unbounded": -TC__SX_INF as a lower bound, TC__SX_INF as an upper one
   (see tc__ival_add). Size variables are extents: >= 0. */
#define TC__SX_INF INT64_MAX
typedef struct tc__ival {
    int64_t lo, hi; /* lo == -TC__SX_INF or hi == TC__SX_INF: unbounded */
} tc__ival;

TC__PRIVATE tc__ival tc__ival_make(int64_t lo, int64_t hi) {
    tc__ival r;
    r.lo = lo;
    r.hi = hi;
    return r;
}
/* a + b, side by side. TC__SX_INF is "unbounded" only on its own side:
   a lower bound of INT64_MAX (a constant) or an upper bound of -INT64_MAX
   is a number like any other. A side whose sum does not fit becomes
   unbounded when it overflows outward (or meets the marker), else the
   nearest finite value, which still bounds the true sum: a lower bound
   that overflows upward, INT64_MAX - 1. (One marker for both sides had
   read 1 + INT64_MIN, exactly -INT64_MAX, as an overflow and made it
   +inf, proving -1 <= min(INT64_MIN, N).) */
TC__PRIVATE tc__ival tc__ival_add(tc__ival a, tc__ival b) {
    tc__ival r;
    if (a.lo <= -TC__SX_INF || b.lo <= -TC__SX_INF) r.lo = -TC__SX_INF;
    else if (!tc__add64(a.lo, b.lo, &r.lo)) r.lo = a.lo > 0 ? TC__SX_INF - 1 : -TC__SX_INF;
    else if (r.lo <= -TC__SX_INF) r.lo = -TC__SX_INF;
    if (a.hi == TC__SX_INF || b.hi == TC__SX_INF) r.hi = TC__SX_INF;
    else if (!tc__add64(a.hi, b.hi, &r.hi)) r.hi = a.hi > 0 ? TC__SX_INF : -TC__SX_INF + 1;
    return r;
}
/* c * [lo, hi] */
TC__PRIVATE tc__ival tc__ival_scale(tc__ival x, int64_t c) {
    int64_t a, b;
    if (c == 0) return tc__ival_make(0, 0);
    a = (x.lo == -TC__SX_INF || !tc__mul64(x.lo, c, &a)) ? (c > 0 ? -TC__SX_INF : TC__SX_INF) : a;
    b = (x.hi == TC__SX_INF || !tc__mul64(x.hi, c, &b)) ? (c > 0 ? TC__SX_INF : -TC__SX_INF) : b;
    if (x.lo != -TC__SX_INF && x.hi != TC__SX_INF && (a == -TC__SX_INF || b == TC__SX_INF))
        return tc__ival_make(-TC__SX_INF, TC__SX_INF); /* overflow: know nothing */
    return c > 0 ? tc__ival_make(a, b) : tc__ival_make(b, a);
}
TC__PRIVATE tc__ival tc__sx_bounds(const tc__sema *S, int id, int depth) {
    const tc_sx *x = &S->sx[id];
    tc__ival a, b, all = tc__ival_make(-TC__SX_INF, TC__SX_INF);
    int64_t c = 0;
    if (x->op == TC_SX_CONST) return tc__ival_make(x->value, x->value);
    if (x->op == TC_SX_VAR) return tc__ival_make(0, TC__SX_INF);
    if (x->op == TC_SX_SCALAR || depth > 16) return all;
    if ((x->op == TC_SX_DIV || x->op == TC_SX_MOD) && !(tc__sx_isconst(S, x->b, &c) && c > 0))
        return all;
    a = tc__sx_bounds(S, x->a, depth + 1);
    if (x->op == TC_SX_MOD) return tc__ival_make(0, c - 1);
    if (x->op == TC_SX_DIV)
        return tc__ival_make(a.lo == -TC__SX_INF ? a.lo : tc__floordiv64(a.lo, c),
                             a.hi == TC__SX_INF ? a.hi : tc__floordiv64(a.hi, c));
    b = tc__sx_bounds(S, x->b, depth + 1);
    switch (x->op) {
    case TC_SX_ADD: return tc__ival_add(a, b);
    case TC_SX_SUB: return tc__ival_add(a, tc__ival_scale(b, -1));
    case TC_SX_MUL:
        if (a.lo < 0 || b.lo < 0) return all;
        return tc__ival_make(tc__ival_scale(a, b.lo).lo,
                             (a.hi == TC__SX_INF || b.hi == TC__SX_INF) ? TC__SX_INF
                                                                        : tc__ival_scale(a, b.hi).hi);
    case TC_SX_MIN: return tc__ival_make(a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi);
    case TC_SX_MAX: return tc__ival_make(a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
    case TC_SX_SELECT: return tc__ival_make(a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
    case TC_SX_OP_COUNT: return all;
    default: return tc__ival_make(0, 1); /* a comparison */
    }
}

/* Bounds of a linear form. A term k * (x / c) with c > 0 dividing k is
   rewritten (k / c) * (x - x % c), x % c in [0, c - 1]: this proves
   2 * (H / 2) <= H. The rewrite adds x's constant to the form's (2 *
   ((N + 1) / 2) is N + 1 - (N + 1) % 2), so the bounds start from the
   constant after it. */
TC__PRIVATE tc__ival tc__lin_bounds(const tc__sema *S, const tc__lin *L0) {
    tc__lin L = *L0;
    tc__ival r = tc__ival_make(0, 0), t;
    int i;
    int64_t c;
    if (!L.ok) return tc__ival_make(-TC__SX_INF, TC__SX_INF);
    for (i = 0; i < L.n && L.ok; i++) {
        const tc_sx *x = &S->sx[L.atom[i]];
        if (x->op == TC_SX_DIV && tc__sx_isconst(S, x->b, &c) && c > 0 && L.coef[i] % c == 0 &&
            L.coef[i] != 0) {
            int64_t q = L.coef[i] / c;
            L.coef[i] = 0;
            tc__lin_of(S, x->a, q, &L, 0); /* may append terms: visited later in this loop */
            t = tc__ival_scale(tc__ival_make(0, c - 1), -q);
            r = tc__ival_add(r, t);
        }
    }
    if (!L.ok) return tc__ival_make(-TC__SX_INF, TC__SX_INF);
    r = tc__ival_add(r, tc__ival_make(L.k, L.k));
    for (i = 0; i < L.n; i++) {
        if (L.coef[i] == 0) continue;
        t = tc__ival_scale(tc__sx_bounds(S, L.atom[i], 0), L.coef[i]);
        r = tc__ival_add(r, t);
    }
    return r;
}

TC__PRIVATE int tc__sx_prove_le_d(const tc__sema *S, int a, int64_t ka, int b, int64_t kb,
                                  int depth);

/* a + ka <= b + kb where condition c is `truth`: 1 when proven so (else
   -1). A comparison c says lo + strict <= hi; then, as hi - lo - strict
   >= 0, b + kb - a - ka - (hi - lo - strict) >= 0 suffices, linearly. So
   N > 4 ? 4 : N is at most N: 4 <= N where 5 <= N. A true && or a false
   || gives each of its comparisons to try. */
TC__PRIVATE int tc__sx_le_given(const tc__sema *S, int c, int truth, int a, int64_t ka, int b,
                                int64_t kb, int depth) {
    const tc_sx *x = &S->sx[c];
    tc__lin L;
    tc__ival d;
    int lo, hi, strict; /* lo + strict <= hi */
    if (tc__sx_prove_le_d(S, a, ka, b, kb, depth) == 1) return 1;
    switch (x->op) {
    case TC_SX_LT: case TC_SX_LE: case TC_SX_GT: case TC_SX_GE: break;
    case TC_SX_AND: case TC_SX_OR: /* c1 && c2 true: both are; c1 || c2 false: neither is */
        if ((x->op == TC_SX_AND) != truth || depth > 8) return -1;
        return tc__sx_le_given(S, x->a, truth, a, ka, b, kb, depth + 1) == 1 ||
                       tc__sx_le_given(S, x->b, truth, a, ka, b, kb, depth + 1) == 1
                   ? 1
                   : -1;
    default: return -1;
    }
    lo = x->op == TC_SX_LT || x->op == TC_SX_LE ? x->a : x->b; /* true: lo < hi or lo <= hi */
    hi = lo == x->a ? x->b : x->a;
    strict = x->op == TC_SX_LT || x->op == TC_SX_GT;
    if (!truth) { /* !(lo < hi) is hi <= lo, !(lo <= hi) is hi + 1 <= lo */
        int t = lo;
        lo = hi;
        hi = t;
        strict = !strict;
    }
    tc__lin_init(&L); /* b + kb - a - ka - hi + lo + strict >= 0 */
    tc__lin_of(S, b, 1, &L, 0);
    tc__lin_of(S, hi, -1, &L, 0);
    tc__lin_of(S, a, -1, &L, 0);
    tc__lin_of(S, lo, 1, &L, 0);
    if (!L.ok || !tc__add64(L.k, kb, &L.k) || !tc__sub64(L.k, ka, &L.k) ||
        !tc__add64(L.k, strict, &L.k))
        return -1;
    d = tc__lin_bounds(S, &L);
    return d.lo != -TC__SX_INF && d.lo >= 0 ? 1 : -1;
}

/* a + ka <= b + kb: 1 proven, 0 disproven, -1 unknown. Linear bounds
   first, then the structure: min/max on either side, each branch of a ?:
   under its condition (tc__sx_le_given), constants peeled off, x / c <=
   y / c when x <= y. */
TC__PRIVATE int tc__sx_prove_le_d(const tc__sema *S, int a, int64_t ka, int b, int64_t kb,
                                  int depth) {
    const tc_sx *x = &S->sx[a], *y = &S->sx[b];
    tc__lin L;
    tc__ival d;
    int64_t c1, c2;
    tc__lin_diff(S, b, a, &L);
    if (!tc__add64(L.k, kb, &L.k) || !tc__sub64(L.k, ka, &L.k)) return -1;
    d = tc__lin_bounds(S, &L);
    if (d.lo != -TC__SX_INF && d.lo >= 0) return 1;
    if (d.hi != TC__SX_INF && d.hi < 0) return 0;
    if (depth > 8) return -1;
    depth++;
    if (x->op == TC_SX_ADD && tc__sx_isconst(S, x->b, &c1) && tc__add64(ka, c1, &c1))
        return tc__sx_prove_le_d(S, x->a, c1, b, kb, depth) == 1 ? 1 : -1;
    if (y->op == TC_SX_ADD && tc__sx_isconst(S, y->b, &c2) && tc__add64(kb, c2, &c2))
        return tc__sx_prove_le_d(S, a, ka, y->a, c2, depth) == 1 ? 1 : -1;
    if (x->op == TC_SX_SELECT && tc__sx_le_given(S, (int)x->value, 1, x->a, ka, b, kb, depth) == 1 &&
        tc__sx_le_given(S, (int)x->value, 0, x->b, ka, b, kb, depth) == 1)
        return 1;
    if (y->op == TC_SX_SELECT && tc__sx_le_given(S, (int)y->value, 1, a, ka, y->a, kb, depth) == 1 &&
        tc__sx_le_given(S, (int)y->value, 0, a, ka, y->b, kb, depth) == 1)
        return 1;
    if ((y->op == TC_SX_MIN && tc__sx_prove_le_d(S, a, ka, y->a, kb, depth) == 1 &&
         tc__sx_prove_le_d(S, a, ka, y->b, kb, depth) == 1) ||
        (x->op == TC_SX_MAX && tc__sx_prove_le_d(S, x->a, ka, b, kb, depth) == 1 &&
         tc__sx_prove_le_d(S, x->b, ka, b, kb, depth) == 1) ||
        (x->op == TC_SX_MIN && (tc__sx_prove_le_d(S, x->a, ka, b, kb, depth) == 1 ||
                                tc__sx_prove_le_d(S, x->b, ka, b, kb, depth) == 1)) ||
        (y->op == TC_SX_MAX && (tc__sx_prove_le_d(S, a, ka, y->a, kb, depth) == 1 ||
                                tc__sx_prove_le_d(S, a, ka, y->b, kb, depth) == 1)))
        return 1;
    if (ka == 0 && kb == 0 && x->op == TC_SX_DIV && y->op == TC_SX_DIV &&
        tc__sx_isconst(S, x->b, &c1) && tc__sx_isconst(S, y->b, &c2) && c1 == c2 && c1 > 0 &&
        tc__sx_prove_le_d(S, x->a, 0, y->a, 0, depth) == 1)
        return 1;
    return -1;
}
TC__PRIVATE int tc__sx_prove_le(const tc__sema *S, int a, int b) {
    if (a < 0 || b < 0) return -1; /* after an allocation failure */
    return a == b ? 1 : tc__sx_prove_le_d(S, a, 0, b, 0, 0);
}
/* a == b: 1 proven, 0 disproven, -1 unknown. */
TC__PRIVATE int tc__sx_prove_eq(const tc__sema *S, int a, int b) {
    tc__lin L;
    tc__ival d;
    if (a < 0 || b < 0) return -1;
    if (a == b) return 1;
    tc__lin_diff(S, b, a, &L);
    d = tc__lin_bounds(S, &L);
    if (d.lo == 0 && d.hi == 0) return 1;
    if ((d.lo != -TC__SX_INF && d.lo > 0) || (d.hi != TC__SX_INF && d.hi < 0)) return 0;
    return -1;
}


/* a / c or a % c for a constant c whose multiples make up a (exact). */
TC__PRIVATE int tc__sx_divexact(tc__sema *S, tc_sx_op op, int a, int64_t c) {
    tc__lin L;
    int i;
    if (c == 0 || c == -1 || c == INT64_MIN) return -2; /* INT64_MIN / -1 traps */
    tc__lin_init(&L);
    tc__lin_of(S, a, 1, &L, 0);
    if (!L.ok || L.k % c != 0) return -2;
    for (i = 0; i < L.n; i++)
        if (L.coef[i] % c != 0) return -2;
    if (op == TC_SX_MOD) return tc__sx_const(S, 0);
    for (i = 0; i < L.n; i++) L.coef[i] /= c;
    L.k /= c;
    return tc__lin_build(S, &L);
}

/* a op b, simplified: constants folded, sums normalised, x*1, x/1,
   min(x, x), min/max decided when provable, commutative operands sorted. */
TC__PRIVATE int tc__sx_bin(tc__sema *S, tc_sx_op op, int a, int b) {
    int64_t ca = 0, cb = 0, r;
    int ka, kb;
    if (a < 0 || b < 0 || S->C->failed) return -1;
    ka = tc__sx_isconst(S, a, &ca);
    kb = tc__sx_isconst(S, b, &cb);
    if (ka && kb && tc__sx_fold(op, ca, cb, &r)) return tc__sx_const(S, r);
    if (ka && kb) S->sx_overflow = 1; /* + - * of two constants: see tc__sm_where_bound */
    if (op == TC_SX_ADD || op == TC_SX_SUB || (op == TC_SX_MUL && (ka || kb))) {
        tc__lin L;
        int built;
        tc__lin_init(&L);
        if (op == TC_SX_MUL) tc__lin_of(S, ka ? b : a, ka ? ca : cb, &L, 0);
        else {
            tc__lin_of(S, a, 1, &L, 0);
            tc__lin_of(S, b, op == TC_SX_ADD ? 1 : -1, &L, 0);
        }
        built = L.ok ? tc__lin_build(S, &L) : -2;
        if (built != -2) return built;
    }
    if (op == TC_SX_MIN || op == TC_SX_MAX) {
        int le = tc__sx_prove_le(S, a, b), ge = le == 1 ? 0 : tc__sx_prove_le(S, b, a);
        if (le == 1) return op == TC_SX_MIN ? a : b;
        if (ge == 1 || le == 0) return op == TC_SX_MIN ? b : a;
    }
    if ((op == TC_SX_AND || op == TC_SX_OR) && (ka || kb)) { /* operands are conditions: 1 or 0 */
        int64_t k = ka ? ca : cb;
        int other = ka ? b : a;
        if (op == TC_SX_AND) return k ? other : tc__sx_const(S, 0);
        return k ? tc__sx_const(S, 1) : other;
    }
    if ((op == TC_SX_AND || op == TC_SX_OR) && a == b) return a;
    if (op == TC_SX_EQ || op == TC_SX_NE) {
        int eq = tc__sx_prove_eq(S, a, b);
        if (eq >= 0) return tc__sx_const(S, op == TC_SX_EQ ? eq : !eq);
    }
    if (op == TC_SX_LT || op == TC_SX_LE || op == TC_SX_GT || op == TC_SX_GE) {
        /* decided when provable either way: a < b is a + 1 <= b, a > b is b + 1 <= a */
        int gt = op == TC_SX_GT || op == TC_SX_GE, strict = op == TC_SX_LT || op == TC_SX_GT;
        int le = tc__sx_prove_le_d(S, gt ? b : a, strict, gt ? a : b, 0, 0);
        if (le >= 0) return tc__sx_const(S, le);
    }
    if ((op == TC_SX_DIV || op == TC_SX_MOD) && kb) {
        int q;
        if (cb == 0) return tc__sx_const(S, 0);
        if (cb == 1 || (cb == -1 && op == TC_SX_MOD))
            return op == TC_SX_DIV ? a : tc__sx_const(S, 0);
        q = tc__sx_divexact(S, op, a, cb);
        if (q != -2) return q;
    }
    if ((op == TC_SX_MUL || op == TC_SX_MIN || op == TC_SX_MAX || op == TC_SX_EQ || op == TC_SX_NE ||
         op == TC_SX_AND || op == TC_SX_OR) &&
        a > b) {
        int t = a;
        a = b;
        b = t;
    }
    return tc__sx_raw(S, op, a, b, 0);
}
TC__PRIVATE int tc__sx_add(tc__sema *S, int a, int b) { return tc__sx_bin(S, TC_SX_ADD, a, b); }
/* !c for a condition c: a comparison inverted (!(a < b) is a >= b),
   else c == 0. */
TC__PRIVATE int tc__sx_not(tc__sema *S, int c) {
    const tc_sx *x;
    if (c < 0 || S->C->failed) return -1;
    x = &S->sx[c];
    switch (x->op) {
    case TC_SX_LT: return tc__sx_bin(S, TC_SX_GE, x->a, x->b);
    case TC_SX_LE: return tc__sx_bin(S, TC_SX_GT, x->a, x->b);
    case TC_SX_GT: return tc__sx_bin(S, TC_SX_LE, x->a, x->b);
    case TC_SX_GE: return tc__sx_bin(S, TC_SX_LT, x->a, x->b);
    case TC_SX_EQ: return tc__sx_bin(S, TC_SX_NE, x->a, x->b);
    case TC_SX_NE: return tc__sx_bin(S, TC_SX_EQ, x->a, x->b);
    default: return tc__sx_bin(S, TC_SX_EQ, c, tc__sx_const(S, 0));
    }
}
/* c ? a : b, the branch itself when c is a constant or both are equal. */
TC__PRIVATE int tc__sx_select(tc__sema *S, int c, int a, int b) {
    int64_t k;
    if (c < 0 || a < 0 || b < 0 || S->C->failed) return -1;
    if (tc__sx_isconst(S, c, &k)) return k ? a : b;
    return a == b ? a : tc__sx_raw(S, TC_SX_SELECT, a, b, c);
}
TC__PRIVATE int tc__sx_sub(tc__sema *S, int a, int b) { return tc__sx_bin(S, TC_SX_SUB, a, b); }
TC__PRIVATE int tc__sx_addk(tc__sema *S, int a, int64_t k) {
    return tc__sx_bin(S, TC_SX_ADD, a, tc__sx_const(S, k));
}
TC__PRIVATE int tc__sx_mulk(tc__sema *S, int a, int64_t k) {
    return tc__sx_bin(S, TC_SX_MUL, a, tc__sx_const(S, k));
}

/* Renders an sx in TC terms for messages. */
TC__PRIVATE const char *tc__sm_sxstr(const tc__sema *S, int id, char *buf, size_t cap) {
    tc_ir_def d;
    memset(&d, 0, sizeof d);
    d.sx = S->sx;
    d.n_sx = S->n_sx;
    d.sizevars = S->sizevars;
    d.n_sizevars = S->n_sizevars;
    d.tensors = S->t;
    d.n_tensors = S->n_t;
    tc_sx_format(&d, id, buf, cap);
    return buf;
}

/* ==== [tc:sema-names] Names, environments, source text ==================== */

/* Builtin id by name, or -1 (first characters compared first: this runs
   for every name sema meets). */
TC__PRIVATE int tc__sm_builtin_id(const char *name) {
    int i;
    for (i = 0; i < TC_BUILTIN_COUNT; i++)
        if (tc__builtins[i].name[0] == name[0] && tc__builtins[i].name[1] == name[1] &&
            strcmp(tc__builtins[i].name, name) == 0)
            return i;
    return -1;
}
TC__PRIVATE int tc__sm_dtype(const char *name, tc_dtype *out) {
    size_t i;
    for (i = 1; i < TC_DTYPE_COUNT; i++)
        if (tc__dtypes[i].name[0] == name[0] && strcmp(tc__dtypes[i].name, name) == 0) {
            *out = (tc_dtype)i;
            return 1;
        }
    for (i = 0; i < sizeof tc__dtype_aliases / sizeof tc__dtype_aliases[0]; i++)
        if (tc__dtype_aliases[i].alias[0] == name[0] && strcmp(tc__dtype_aliases[i].alias, name) == 0) {
            *out = tc__dtype_aliases[i].dtype;
            return 1;
        }
    return 0;
}
/* Why a name cannot be defined by the user, or NULL. */
TC__PRIVATE const char *tc__sm_reserved(const char *name) {
    tc_dtype dt;
    if (tc__sm_builtin_id(name) >= 0) return "a builtin function";
    if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0) return "a builtin function";
    if (tc__sm_dtype(name, &dt)) return "a type name";
    return NULL;
}
TC__PRIVATE int tc__sm_check_reserved(tc__sema *S, const char *name, tc__span sp) {
    const char *why = tc__sm_reserved(name);
    if (!why) return 1;
    return tc__fail(S->C, TC_ERR_NAME, sp, "`%s` is %s and cannot be used as a name", name, why);
}

/* Names by hash once a def has many (thousands of temporaries would make
   every lookup a scan); the first binding of a name is the one found. */
TC__PRIVATE int *tc__sm_hash_slot(tc__sm_env *E, const char *name) {
    unsigned m = (unsigned)E->hcap - 1, h = tc__name_hash(name, strlen(name)) & m;
    while (E->hash[h] && strcmp(E->names[E->hash[h] - 1].name, name) != 0) h = (h + 1) & m;
    return &E->hash[h];
}
TC__PRIVATE tc__sm_name *tc__sm_lookup(tc__sm_env *E, const char *name) {
    int i, *slot;
    if (!E->hcap) {
        for (i = 0; i < E->n_names; i++)
            if (strcmp(E->names[i].name, name) == 0) return &E->names[i];
        return NULL;
    }
    slot = tc__sm_hash_slot(E, name);
    return *slot ? &E->names[*slot - 1] : NULL;
}
/* Adds name i to the hash (kept at most half full), growing it as needed. */
TC__PRIVATE int tc__sm_hash_add(tc__sema *S, tc__sm_env *E, int i) {
    int *slot;
    if (E->n_names <= 16) return 1;
    if (2 * E->n_names > E->hcap) {
        int cap = 64, k;
        while (cap < 4 * E->n_names) cap *= 2;
        E->hash = (int *)tc__alloc_n(S->C, (size_t)cap, sizeof(int));
        if (!E->hash) return 0;
        memset(E->hash, 0, sizeof(int) * (size_t)cap);
        E->hcap = cap;
        for (k = 0; k < E->n_names; k++) { /* in order: the first binding wins */
            slot = tc__sm_hash_slot(E, E->names[k].name);
            if (!*slot) *slot = k + 1;
        }
        return 1;
    }
    slot = tc__sm_hash_slot(E, E->names[i].name);
    if (!*slot) *slot = i + 1;
    return 1;
}
TC__PRIVATE int tc__sm_bind(tc__sema *S, tc__sm_env *E, const char *name, int kind, int id) {
    tc__sm_name *n;
    if (!tc__grow(S->C, (void **)&E->names, &E->cap_names, E->n_names + 1, sizeof(tc__sm_name)))
        return 0;
    n = &E->names[E->n_names++];
    n->name = name;
    n->kind = kind;
    n->id = id;
    return tc__sm_hash_add(S, E, E->n_names - 1);
}

/* A new IR tensor; returns its id or -1. */
TC__PRIVATE int tc__sm_new_tensor(tc__sema *S, const char *name, tc_tensor_kind kind,
                                  tc__span sp) {
    int id = S->n_t, cap_ti = S->cap_ti;
    if (!tc__grow(S->C, (void **)&S->t, &S->cap_t, id + 1, sizeof(tc_ir_tensor)) ||
        !tc__grow(S->C, (void **)&S->ti, &cap_ti, id + 1, sizeof(tc__sm_tensor)))
        return -1;
    S->cap_ti = cap_ti;
    memset(&S->t[id], 0, sizeof S->t[id]);
    memset(&S->ti[id], 0, sizeof S->ti[id]);
    S->t[id].name = name;
    S->t[id].kind = kind;
    S->t[id].rank = -1;
    S->t[id].dtype = TC_FLOAT32;
    S->ti[id].span = sp;
    S->n_t++;
    return id;
}

/* Source text of a span on one line: whitespace runs collapsed, comments
   dropped. */
TC__PRIVATE size_t tc__sm_text(const tc__sema *S, tc__span sp, char *buf, size_t cap) {
    const char *s = S->C->src;
    size_t i = (size_t)(sp.offset > 0 ? sp.offset : 0), end = i + (size_t)(sp.length > 0 ? sp.length : 0),
           n = 0;
    int space = 0;
    if (end > S->C->src_len) end = S->C->src_len;
    for (; i < end && n + 1 < cap; i++) {
        char c = s[i];
        if (c == '#' || (c == '/' && i + 1 < end && s[i + 1] == '/')) {
            while (i < end && !TC__IS_EOL(s[i])) i++;
            space = n > 0;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            space = n > 0; /* the lexer's spaces (tc__lex_skip_space) */
            continue;
        }
        if (space && n + 2 < cap) buf[n++] = ' ';
        space = 0;
        buf[n++] = c;
    }
    if (cap) buf[n < cap ? n : cap - 1] = '\0';
    return n;
}
TC__PRIVATE const char *tc__sm_text_dup(tc__sema *S, tc__span sp) {
    char buf[512];
    size_t n = tc__sm_text(S, sp, buf, sizeof buf);
    return tc__strndup(S->C, buf, n);
}

/* ==== [tc:sema-types] Promotion, literals, stores ========================= */

TC__PRIVATE tc_dtype tc__sm_compute(tc_dtype t) { return t == TC_FLOAT16 ? TC_FLOAT32 : t; }
TC__PRIVATE int tc__sm_isbool(tc_dtype t) { return t == TC_BOOL; }
TC__PRIVATE int tc__sm_fsize(tc_dtype t) { return (int)tc__dtypes[t].size; }

/* The common type of two operands (SEMANTICS.md §3); bools stay bool only
   when both are (keep_bool), else they act as int32. */
TC__PRIVATE tc_dtype tc__sm_promote(tc_dtype a, tc_dtype b, int keep_bool) {
    int fa = tc__dtype_is_float(a), fb = tc__dtype_is_float(b);
    if (a == b && (a != TC_BOOL || keep_bool)) return a;
    if (a == TC_BOOL) a = TC_INT32;
    if (b == TC_BOOL) b = TC_INT32;
    if (fa && fb) return tc__sm_fsize(a) >= tc__sm_fsize(b) ? a : b;
    if (fa) return a;
    if (fb) return b;
    if (!tc__dtype_is_signed(a) && !tc__dtype_is_signed(b))
        return tc__sm_fsize(a) >= tc__sm_fsize(b) ? a : b;
    switch (tc__sm_fsize(a) > tc__sm_fsize(b) ? tc__sm_fsize(a) : tc__sm_fsize(b)) {
    case 1: return TC_INT8;
    case 2: return TC_INT16;
    case 4: return TC_INT32;
    default: return TC_INT64;
    }
}

/* Whether integer v is representable in t. */
TC__PRIVATE int tc__sm_fits(int64_t v, tc_dtype t) {
    switch (t) {
    case TC_INT8: return v >= -128 && v <= 127;
    case TC_INT16: return v >= -32768 && v <= 32767;
    case TC_INT32: return v >= INT32_MIN && v <= INT32_MAX;
    case TC_INT64: return 1;
    case TC_UINT8: return v >= 0 && v <= 255;
    case TC_UINT16: return v >= 0 && v <= 65535;
    case TC_UINT32: return v >= 0 && v <= (int64_t)UINT32_MAX;
    case TC_UINT64: return v >= 0;
    default: return 0;
    }
}

/* Whether storing a `from` value into a `to` tensor loses nothing by kind
   or width (no cast needed). */
TC__PRIVATE int tc__sm_widens(tc_dtype from, tc_dtype to) {
    if (from == to || from == TC_BOOL) return 1;
    if (to == TC_BOOL) return 0;
    if (tc__dtype_is_float(to))
        return !tc__dtype_is_float(from) || tc__sm_fsize(to) >= tc__sm_fsize(from);
    if (tc__dtype_is_float(from)) return 0;
    if (tc__dtype_is_signed(from) == tc__dtype_is_signed(to))
        return tc__sm_fsize(to) >= tc__sm_fsize(from);
    return !tc__dtype_is_signed(from) && tc__sm_fsize(to) > tc__sm_fsize(from);
}

TC__PRIVATE int tc__sm_let_find(const tc__sm_stmt *st, const char *name);

/* The literal e stands for, through signs and `where` bindings (`c = 0.1`
   inlines like the literal itself); NULL when e is anything else. *neg
   flips once per minus sign. */
TC__PRIVATE const tc__expr *tc__sm_literal_of(const tc__sm_stmt *st, const tc__expr *e, int *neg) {
    int hops, li;
    *neg = 0;
    for (hops = 0; hops < 64; hops++) {
        if (e->kind == TC__E_INT || e->kind == TC__E_FLOAT) return e;
        if (e->kind == TC__E_UNARY && (e->op == TC__T_MINUS || e->op == TC__T_PLUS) && e->nargs == 1) {
            *neg ^= e->op == TC__T_MINUS;
            e = e->args[0];
        } else if (e->kind == TC__E_IDENT && (li = tc__sm_let_find(st, e->name)) >= 0) {
            e = st->lets[li].w->expr;
        } else {
            return NULL;
        }
    }
    return NULL; /* a cycle of bindings: reported where it is used */
}

/* A literal, possibly negated or bound by `where`: typed from its digits
   (tc__sm_literal), so -2147483648 is one int64 constant. */
TC__PRIVATE int tc__sm_is_literal(const tc__sm_stmt *st, const tc__expr *e) {
    int neg;
    return tc__sm_literal_of(st, e, &neg) != NULL;
}

/* ==== [tc:sema-expr] Typed expression nodes, affine index analysis ========= */

TC__PRIVATE int tc__sm_var_find(const tc__sm_stmt *st, const char *name) {
    int i;
    for (i = 0; i < st->n_vars; i++)
        if (strcmp(st->vars[i].name, name) == 0) return i;
    return -1;
}
TC__PRIVATE int tc__sm_let_find(const tc__sm_stmt *st, const char *name) {
    int i;
    for (i = 0; i < st->n_lets; i++)
        if (strcmp(st->lets[i].w->name, name) == 0) return i;
    return -1;
}

TC__PRIVATE int tc__sm_node(tc__sm_stmt *st, tc_ir_op op, tc_dtype dt, int nargs, const int *args) {
    tc_ir_node *n;
    int i;
    if (st->S->C->failed) return -1;
    for (i = 0; i < nargs; i++)
        if (args[i] < 0) return -1;
    if (st->n_nodes >= TC__SM_MAX_NODES) {
        tc__fail(st->S->C, TC_ERR_LIMIT, st->st->span, "statement too large (more than %d operations)",
                 TC__SM_MAX_NODES);
        return -1;
    }
    if (!tc__grow(st->S->C, (void **)&st->nodes, &st->cap_nodes, st->n_nodes + 1,
                  sizeof(tc_ir_node)))
        return -1;
    n = &st->nodes[st->n_nodes];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->dtype = tc__sm_compute(dt);
    n->nargs = nargs;
    for (i = 0; i < nargs; i++) n->args[i] = args[i];
    return st->n_nodes++;
}
TC__PRIVATE tc__sm_val tc__sm_mkval(int node, tc_dtype type) {
    tc__sm_val v;
    v.node = node;
    v.type = type;
    return v;
}
TC__PRIVATE tc__sm_val tc__sm_fail_val(void) { return tc__sm_mkval(-1, TC_INT32); }

TC__PRIVATE tc__sm_val tc__sm_const(tc__sm_stmt *st, tc_dtype t, int64_t iv, double fv) {
    int id = tc__sm_node(st, TC_IR_CONST, t, 0, NULL);
    if (id >= 0) {
        if (tc__dtype_is_float(t))
            st->nodes[id].fval = tc__sm_compute(t) == TC_FLOAT64 ? fv : (double)(float)fv;
        else st->nodes[id].ival = iv;
    }
    return tc__sm_mkval(id, t);
}

/* Constant c converted to t at compile time (*iv, *fv), or 0 when the
   conversion is not exact-by-definition (float to integer stays a run-time
   CAST). */
TC__PRIVATE int tc__sm_conv_value(const tc_ir_node *c, tc_dtype t, int64_t *ivp, double *fvp) {
    int64_t iv = c->ival;
    double fv = c->fval;
    tc_dtype from = c->dtype;
    if (tc__dtype_is_float(from) && !tc__dtype_is_float(t) && t != TC_BOOL) return 0;
    if (t == TC_BOOL) iv = tc__dtype_is_float(from) ? fv != 0.0 : iv != 0;
    else if (tc__dtype_is_float(t) && !tc__dtype_is_float(from) && tc__sm_compute(t) != TC_FLOAT64)
        fv = tc__dtype_is_signed(from) || from == TC_BOOL ? (double)(float)iv /* rounded once */
                                                         : (double)(float)(uint64_t)iv;
    else if (tc__dtype_is_float(t) && !tc__dtype_is_float(from))
        fv = tc__dtype_is_signed(from) || from == TC_BOOL ? (double)iv : (double)(uint64_t)iv;
    else if (!tc__dtype_is_float(t)) { /* integer to integer: wrap to t's width */
        size_t bits = tc__dtypes[t].size * 8;
        uint64_t u = (uint64_t)iv;
        if (bits < 64) {
            u &= ((uint64_t)1 << bits) - 1;
            if (tc__dtype_is_signed(t) && (u >> (bits - 1))) u |= ~(((uint64_t)1 << bits) - 1);
        }
        memcpy(&iv, &u, sizeof iv);
    }
    if (tc__dtype_is_float(t) && tc__sm_compute(t) != TC_FLOAT64) fv = (double)(float)fv;
    *ivp = iv;
    *fvp = fv;
    return 1;
}
/* A new constant: c converted to t, or -1 (tc__sm_conv_value). */
TC__PRIVATE int tc__sm_fold_const(tc__sm_stmt *st, const tc_ir_node *c, tc_dtype t) {
    int64_t iv;
    double fv;
    return tc__sm_conv_value(c, t, &iv, &fv) ? tc__sm_const(st, t, iv, fv).node : -1;
}

/* v converted to type t: a CAST node when the compute types differ, or a
   new constant when v is one. */
TC__PRIVATE tc__sm_val tc__sm_conv(tc__sm_stmt *st, tc__sm_val v, tc_dtype t) {
    if (v.node < 0) return v;
    if (tc__sm_compute(v.type) == tc__sm_compute(t)) return tc__sm_mkval(v.node, t);
    if (st->nodes[v.node].op == TC_IR_CONST) {
        tc_ir_node c = st->nodes[v.node]; /* copied: growing the array moves it */
        int folded = tc__sm_fold_const(st, &c, t);
        if (folded >= 0) return tc__sm_mkval(folded, t);
    }
    return tc__sm_mkval(tc__sm_node(st, TC_IR_CAST, t, 1, &v.node), t);
}

TC__PRIVATE tc__sm_val tc__sm_expr(tc__sm_stmt *st, const tc__expr *e);
TC__PRIVATE tc__sm_val tc__sm_branch(tc__sm_stmt *st, const tc__expr *e, int select);

/* An integer literal's type: int32, or int64 where its value does not fit
   (SEMANTICS.md 1); C's suffixes: u unsigned (uint32, or uint64 where it
   does not fit), l or ll int64, both uint64; hex or octal digits above
   INT64_MAX uint64, as in C. */
TC__PRIVATE tc_dtype tc__sm_int_type(const tc__expr *lit) {
    uint64_t v = (uint64_t)lit->ival;
    if (lit->lit & TC__LIT_U) return (lit->lit & TC__LIT_L) || v > UINT32_MAX ? TC_UINT64 : TC_UINT32;
    if (lit->ival < 0) return TC_UINT64; /* above INT64_MAX */
    if (lit->lit & TC__LIT_L) return TC_INT64;
    return tc__sm_fits(lit->ival, TC_INT32) ? TC_INT32 : TC_INT64;
}

/* An integer or float literal, possibly negated (SEMANTICS.md §1). Its
   type never adapts to the other operand: a float literal is float32, its
   value rounded once from the digits, and promotes like any float32 (with
   a float64 d, d * 0.1 is d * double(0.1f), as in the reference TC). As
   in C, the digits alone give an integer its type and a minus keeps it
   (-2147483648 is int64). A float literal must not round to inf. */
TC__PRIVATE tc__sm_val tc__sm_literal(tc__sm_stmt *st, const tc__expr *e) {
    int neg;
    const tc__expr *lit = tc__sm_literal_of(st, e, &neg);
    double f;
    TC_ASSERT(lit != NULL); /* callers test tc__sm_is_literal first */
    if (lit->kind == TC__E_INT) { /* an unsigned one wraps when negated, as in C */
        tc_dtype t = tc__sm_int_type(lit);
        uint64_t v = neg ? 0 - (uint64_t)lit->ival : (uint64_t)lit->ival;
        return tc__sm_const(st, t, (int64_t)(t == TC_UINT32 ? (uint32_t)v : v), 0.0);
    }
    f = neg ? -lit->fval32 : lit->fval32; /* rounded once from the digits */
    if (fabs(f) > (double)FLT_MAX) {
        tc__fail(st->S->C, TC_ERR_TYPE, lit->span,
                 "number %.*s is too large for float32 (a float literal's type, SEMANTICS.md 1)",
                 lit->span.length, st->S->C->src + lit->span.offset);
        return tc__sm_fail_val();
    }
    return tc__sm_const(st, TC_FLOAT32, 0, f);
}

/* -1u: a negated unsigned literal wraps (4294967295), so it is neither
   int64 size arithmetic nor an offset of -1 in an affine index. */
TC__PRIVATE int tc__sm_wrapping_neg(const tc__expr *e) {
    return e->kind == TC__E_UNARY && e->op == TC__T_MINUS && e->args[0]->kind == TC__E_INT &&
           (e->args[0]->lit & TC__LIT_U);
}

/* An integer literal in a size expression: sizes are int64. */
TC__PRIVATE int tc__sm_size_int(tc__sema *S, const tc__expr *e) {
    if (e->ival < 0) /* above INT64_MAX */
        return tc__fail(S->C, TC_ERR_RANGE, e->span, "%.*s is too large for a size (int64)",
                        e->span.length, S->C->src + e->span.offset) - 1;
    return tc__sx_const(S, e->ival);
}

/* Extent sx of T.d; -1 after an error. */
TC__PRIVATE int tc__sm_dim(tc__sema *S, tc__sm_env *E, const tc__expr *e) {
    tc__sm_name *n = tc__sm_lookup(E, e->name);
    int t;
    if (!n || n->kind != TC__SM_TENSOR)
        return tc__fail(S->C, TC_ERR_NAME, e->name_span, "%s.%lld: `%s` is not a tensor", e->name,
                        (long long)e->ival, e->name) - 1;
    t = n->id;
    if (t < 0 || !S->ti[t].sized)
        return tc__fail(S->C, TC_ERR_NAME, e->span,
                        "%s.%lld: the size of %s is not known here (it is first written by this or "
                        "a later statement)",
                        e->name, (long long)e->ival, e->name) - 1;
    if (e->ival < 0 || e->ival >= S->t[t].rank)
        return tc__fail(S->C, TC_ERR_TYPE, e->span, "%s.%lld: %s has %d dimension%s", e->name,
                        (long long)e->ival, e->name, S->t[t].rank, S->t[t].rank == 1 ? "" : "s") - 1;
    return S->t[t].extent[e->ival];
}

/* A size expression (SEMANTICS.md §2) as an sx: -2 when e is not one (then
   *bad is the culprit), -1 after an error. Lets are followed when
   allow_let. */
/* A condition, as ?: and && || ! take one in a size expression as in a
   kernel (SEMANTICS.md 3): a comparison, or && || ! of conditions. */
TC__PRIVATE int tc__sm_size_cond(const tc__expr *e) {
    if (e->kind == TC__E_UNARY) return e->op == TC__T_NOT;
    return e->kind == TC__E_BINARY &&
           (e->op == TC__T_LT || e->op == TC__T_LE || e->op == TC__T_GT || e->op == TC__T_GE ||
            e->op == TC__T_EQ || e->op == TC__T_NE || e->op == TC__T_AND || e->op == TC__T_OR);
}

TC__PRIVATE int tc__sm_sizex(tc__sm_stmt *st, const tc__expr *e, int allow_let,
                             const tc__expr **bad) {
    tc__sema *S = st->S;
    tc__sm_name *n;
    int a, b, li;
    if (S->C->failed) return -1;
    *bad = e;
    if (++st->work > TC__SM_WORK) return -2;
    switch (e->kind) {
    case TC__E_INT: return tc__sm_size_int(S, e);
    case TC__E_DIM: return tc__sm_dim(S, st->E, e);
    case TC__E_IDENT:
        li = tc__sm_let_find(st, e->name);
        if (li >= 0) {
            if (!allow_let || st->lets[li].busy) return -2;
            st->lets[li].busy = 1;
            a = tc__sm_sizex(st, st->lets[li].w->expr, allow_let, bad);
            st->lets[li].busy = 0;
            return a;
        }
        n = tc__sm_lookup(st->E, e->name);
        if (!n) return -2;
        if (n->kind == TC__SM_SIZE) return n->id;
        if (n->id >= 0 && S->t[n->id].kind == TC_TENSOR_INPUT && S->t[n->id].rank == 0 &&
            tc__dtype_is_int(S->t[n->id].dtype))
            return tc__sx_raw(S, TC_SX_SCALAR, 0, 0, n->id);
        return -2;
    case TC__E_UNARY:
        if (tc__sm_wrapping_neg(e) || (e->op == TC__T_NOT && !tc__sm_size_cond(e->args[0]))) return -2;
        a = tc__sm_sizex(st, e->args[0], allow_let, bad);
        if (a < 0 || e->op == TC__T_PLUS) return a;
        return e->op == TC__T_NOT ? tc__sx_not(S, a) : tc__sx_sub(S, tc__sx_const(S, 0), a);
    case TC__E_BINARY: {
        tc_sx_op op;
        switch (e->op) {
        case TC__T_PLUS: op = TC_SX_ADD; break;
        case TC__T_MINUS: op = TC_SX_SUB; break;
        case TC__T_STAR: op = TC_SX_MUL; break;
        case TC__T_SLASH: op = TC_SX_DIV; break;
        case TC__T_PERCENT: op = TC_SX_MOD; break;
        case TC__T_LT: op = TC_SX_LT; break;
        case TC__T_LE: op = TC_SX_LE; break;
        case TC__T_GT: op = TC_SX_GT; break;
        case TC__T_GE: op = TC_SX_GE; break;
        case TC__T_EQ: op = TC_SX_EQ; break;
        case TC__T_NE: op = TC_SX_NE; break;
        case TC__T_AND: op = TC_SX_AND; break;
        case TC__T_OR: op = TC_SX_OR; break;
        default: return -2;
        }
        if ((op == TC_SX_AND || op == TC_SX_OR) &&
            (!tc__sm_size_cond(e->args[0]) || !tc__sm_size_cond(e->args[1])))
            return -2;
        a = tc__sm_sizex(st, e->args[0], allow_let, bad);
        if (a < 0) return a;
        b = tc__sm_sizex(st, e->args[1], allow_let, bad);
        return b < 0 ? b : tc__sx_bin(S, op, a, b);
    }
    case TC__E_TERNARY: {
        int c;
        if (!tc__sm_size_cond(e->args[0])) return -2;
        c = tc__sm_sizex(st, e->args[0], allow_let, bad);
        if (c < 0) return c;
        a = tc__sm_sizex(st, e->args[1], allow_let, bad);
        if (a < 0) return a;
        b = tc__sm_sizex(st, e->args[2], allow_let, bad);
        return b < 0 ? b : tc__sx_select(S, c, a, b);
    }
    case TC__E_CALL:
        if (e->nargs != 2 || (strcmp(e->name, "min") != 0 && strcmp(e->name, "max") != 0) ||
            tc__sm_lookup(st->E, e->name))
            return -2;
        a = tc__sm_sizex(st, e->args[0], allow_let, bad);
        if (a < 0) return a;
        b = tc__sm_sizex(st, e->args[1], allow_let, bad);
        return b < 0 ? b : tc__sx_bin(S, e->name[1] == 'i' ? TC_SX_MIN : TC_SX_MAX, a, b);
    default: return -2;
    }
}

/* off += scale * x */
TC__PRIVATE int tc__sm_addoff(tc__sema *S, int *off, int x, int64_t scale) {
    *off = tc__sx_add(S, *off, tc__sx_mulk(S, x, scale));
    return *off >= 0 ? 1 : -1;
}

/* Adds scale * e to the affine form (coef per loop, sx offset). Returns
   1 when e is affine in the loops with integer coefficients, 0 when not,
   -1 after an error. */
TC__PRIVATE int tc__sm_aff(tc__sm_stmt *st, const tc__expr *e, int64_t scale, int64_t *coef,
                           int *off, int depth) {
    tc__sema *S = st->S;
    const tc__expr *bad;
    int v, r, lf, rf;
    int64_t c;
    if (S->C->failed) return -1;
    if (depth > S->C->max_depth + 64 || ++st->work > TC__SM_WORK) return 0;
    if (e->kind == TC__E_IDENT && tc__sm_let_find(st, e->name) >= 0) {
        int li = tc__sm_let_find(st, e->name);
        if (st->lets[li].busy) return 0;
        st->lets[li].busy = 1;
        r = tc__sm_aff(st, st->lets[li].w->expr, scale, coef, off, depth + 1);
        st->lets[li].busy = 0;
        return r;
    }
    if (e->kind == TC__E_IDENT && (v = tc__sm_var_find(st, e->name)) >= 0 &&
        !tc__sm_lookup(st->E, e->name))
        return tc__add64(coef[v], scale, &coef[v]);
    if (tc__sm_wrapping_neg(e)) return 0; /* computed as a value */
    if (e->kind == TC__E_UNARY && e->op != TC__T_NOT)
        return scale == INT64_MIN ? 0
                                  : tc__sm_aff(st, e->args[0], e->op == TC__T_MINUS ? -scale : scale,
                                               coef, off, depth + 1);
    if (e->kind == TC__E_BINARY && (e->op == TC__T_PLUS || e->op == TC__T_MINUS)) {
        r = tc__sm_aff(st, e->args[0], scale, coef, off, depth + 1);
        if (r != 1 || scale == INT64_MIN) return r == 1 ? 0 : r;
        return tc__sm_aff(st, e->args[1], e->op == TC__T_MINUS ? -scale : scale, coef, off,
                          depth + 1);
    }
    if (e->kind == TC__E_BINARY && e->op == TC__T_STAR) {
        lf = tc__sm_sizex(st, e->args[0], 1, &bad);
        if (lf == -1) return -1;
        if (lf >= 0 && tc__sx_isconst(S, lf, &c))
            return tc__mul64(scale, c, &c) ? tc__sm_aff(st, e->args[1], c, coef, off, depth + 1) : 0;
        rf = tc__sm_sizex(st, e->args[1], 1, &bad);
        if (rf == -1) return -1;
        if (rf >= 0 && tc__sx_isconst(S, rf, &c))
            return tc__mul64(scale, c, &c) ? tc__sm_aff(st, e->args[0], c, coef, off, depth + 1) : 0;
        if (lf < 0 || rf < 0) return 0;
        return tc__sm_addoff(S, off, tc__sx_bin(S, TC_SX_MUL, lf, rf), scale);
    }
    if (e->kind == TC__E_FLOAT || e->kind == TC__E_TERNARY) return 0;
    lf = tc__sm_sizex(st, e, 1, &bad);
    if (lf == -1) return -1;
    return lf < 0 ? 0 : tc__sm_addoff(S, off, lf, scale);
}

/* Records an affine access dimension for range inference and checks. */
TC__PRIVATE int tc__sm_add_access(tc__sm_stmt *st, int tensor, int dim, int lhs,
                                  const int64_t *coef, int off, const tc__expr *expr,
                                  tc_ir_index *ix) {
    tc__sm_access *a;
    if (!tc__grow(st->S->C, (void **)&st->acc, &st->cap_acc, st->n_acc + 1, sizeof(tc__sm_access)))
        return 0;
    a = &st->acc[st->n_acc++];
    memset(a, 0, sizeof *a);
    a->tensor = tensor;
    a->dim = dim;
    a->lhs = lhs;
    a->exists = st->in_exists;
    a->coef = coef;
    a->off = off;
    a->expr = expr;
    a->cand = -1;
    a->branch = st->n_select > 0;
    a->guarded = st->n_branch > 0;
    a->ix = ix;
    return 1;
}

/* A sum (terms joined by + and -, signs) with one term X / c, c a nonzero
   integer constant: that term in *div, with the sign it is added with in
   *sign, and scale times the other terms added to the affine form (coef,
   off). As tc__sm_aff; *div stays NULL when there is no such term (a
   second one is a term tc__sm_aff refuses). */
TC__PRIVATE int tc__sm_quot_parts(tc__sm_stmt *st, const tc__expr *e, int64_t scale,
                                  const tc__expr **div, int64_t *sign, int64_t *c, int64_t *coef,
                                  int *off, int depth) {
    const tc__expr *bad;
    int r, rf;
    if (depth > st->S->C->max_depth + 64) return 0;
    if (e->kind == TC__E_BINARY && (e->op == TC__T_PLUS || e->op == TC__T_MINUS)) {
        r = tc__sm_quot_parts(st, e->args[0], scale, div, sign, c, coef, off, depth + 1);
        if (r != 1) return r;
        return tc__sm_quot_parts(st, e->args[1], e->op == TC__T_MINUS ? -scale : scale, div, sign,
                                 c, coef, off, depth + 1);
    }
    if (e->kind == TC__E_UNARY && e->op != TC__T_NOT && !tc__sm_wrapping_neg(e))
        return tc__sm_quot_parts(st, e->args[0], e->op == TC__T_MINUS ? -scale : scale, div, sign,
                                 c, coef, off, depth + 1);
    if (e->kind == TC__E_BINARY && e->op == TC__T_SLASH && !*div) {
        rf = tc__sm_sizex(st, e->args[1], 1, &bad);
        if (rf == -1) return -1;
        if (rf >= 0 && tc__sx_isconst(st->S, rf, c) && *c != 0 && *c != INT64_MIN) {
            *div = e;
            *sign = scale;
            return 1;
        }
    }
    return tc__sm_aff(st, e, scale, coef, off, depth + 1);
}

/* Index of a read that is a floor quotient of an affine X by a constant c,
   plus an affine rest Y (nearest-neighbour upsampling: B(i / 2),
   B(i / 2 + 1)). It is the one quotient (X' + m Y) / m, m = |c|: X / -c
   is -X / c, -(X / c) is (c - 1 - X) / c, and floor(X / m) + Y is
   floor((X + m Y) / m) for integer Y. 0 <= X' / m < size exactly when
   0 <= X' < m * size, so it bounds ranges like an affine access to a
   tensor m times larger. Its value stays a general index, checked per
   element. Returns 0 on error. */
TC__PRIVATE int tc__sm_quotient(tc__sm_stmt *st, const tc__expr *read, int t, int d,
                                tc_ir_index *ix) {
    tc__sema *S = st->S;
    const tc__expr *div = NULL;
    size_t nv = (size_t)(st->n_vars ? st->n_vars : 1), v;
    int64_t *coef = (int64_t *)tc__alloc_n(S->C, nv, sizeof(int64_t));
    int64_t *rest = (int64_t *)tc__alloc_n(S->C, nv, sizeof(int64_t)), c = 0, m, sign = 1, y;
    int off = tc__sx_const(S, 0), rest_off = off, r;
    if (!coef || !rest || off < 0) return 0;
    r = tc__sm_quot_parts(st, read->args[d], 1, &div, &sign, &c, rest, &rest_off, 0);
    if (r < 0 || S->C->failed) return 0;
    if (r == 0 || !div) return 1;
    m = c < 0 ? -c : c;
    r = tc__sm_aff(st, div->args[0], c < 0 ? -sign : sign, coef, &off, 0);
    if (r < 0 || S->C->failed) return 0;
    if (r == 0) return 1;
    if (sign < 0 && tc__sm_addoff(S, &off, tc__sx_const(S, 1), m - 1) < 0) return 0;
    for (v = 0; v < nv; v++)
        if (!tc__mul64(rest[v], m, &y) || !tc__add64(coef[v], y, &coef[v])) return 1;
    if (tc__sm_addoff(S, &off, rest_off, m) < 0) return 0;
    if (!tc__sm_add_access(st, t, d, 0, coef, off, read, ix)) return 0;
    st->acc[st->n_acc - 1].div = m;
    return 1;
}

/* Index d of a read: affine when it can be, else an int32/int64 node. */
TC__PRIVATE int tc__sm_index(tc__sm_stmt *st, const tc__expr *read, int t, int d, tc_ir_index *ix) {
    tc__sema *S = st->S;
    const tc__expr *e = read->args[d];
    int64_t *coef = (int64_t *)tc__alloc_n(S->C, (size_t)(st->n_vars ? st->n_vars : 1), sizeof(int64_t));
    int off = tc__sx_const(S, 0), r;
    tc__sm_val v;
    if (!coef || off < 0) return 0;
    r = tc__sm_aff(st, e, 1, coef, &off, 0);
    if (r < 0 || S->C->failed) return 0;
    if (r == 0 && !tc__sm_quotient(st, read, t, d, ix)) return 0;
    if (r == 1) {
        ix->affine = 1;
        ix->coef = coef;
        ix->offset = off;
        ix->node = -1;
        if (!tc__sm_add_access(st, t, d, 0, coef, off, read, ix)) return 0;
        if (!st->n_branch || st->in_exists) return 1;
        /* Inside a ?: branch the read may happen for some points only: keep
           the general form too, used if the bounds are not provable. */
    }
    v = tc__sm_expr(st, e);
    if (v.node < 0) return 0;
    if (!tc__dtype_is_int(v.type))
        return tc__fail(S->C, TC_ERR_TYPE, e->span,
                        "index %d of %s must be an integer, not %s", d, S->t[t].name,
                        tc_dtype_name(v.type));
    v = tc__sm_conv(st, v, (v.type == TC_INT64 || v.type == TC_UINT64 || v.type == TC_UINT32)
                               ? TC_INT64 : TC_INT32);
    ix->affine = r == 1;
    ix->node = v.node;
    return v.node >= 0;
}

/* Whether tensor t may be read here (an input, or written before). */
TC__PRIVATE int tc__sm_readable(tc__sm_stmt *st, int t, const char *name, tc__span sp) {
    if (t >= 0 && st->S->ti[t].sized) return 1;
    return tc__fail(st->S->C, TC_ERR_NAME, sp,
                    "%s is read before any statement writes it", name);
}

/* A read of tensor t with n index expressions idx. */
TC__PRIVATE tc__sm_val tc__sm_read(tc__sm_stmt *st, const tc__expr *e, int t) {
    tc__sema *S = st->S;
    tc_ir_index *ix = NULL;
    int d, id, rank;
    if (!tc__sm_readable(st, t, e->name, e->name_span)) return tc__sm_fail_val();
    rank = S->t[t].rank;
    if (e->nargs != rank) {
        tc__fail(S->C, TC_ERR_TYPE, e->kind == TC__E_IDENT ? e->span : e->span,
                 "%s has %d dimension%s but is used with %d ind%s", e->name, rank,
                 rank == 1 ? "" : "s", e->nargs, e->nargs == 1 ? "ex" : "ices");
        return tc__sm_fail_val();
    }
    if (rank) {
        ix = (tc_ir_index *)tc__alloc_n(S->C, (size_t)rank, sizeof(tc_ir_index));
        if (!ix) return tc__sm_fail_val();
    }
    for (d = 0; d < rank; d++)
        if (!tc__sm_index(st, e, t, d, &ix[d])) return tc__sm_fail_val();
    id = tc__sm_node(st, TC_IR_READ, S->t[t].dtype, 0, NULL);
    if (id < 0 || !tc__grow(S->C, (void **)&st->reads, &st->cap_reads, st->n_reads + 1,
                            sizeof(tc__sm_readix)))
        return tc__sm_fail_val();
    st->nodes[id].tensor = t;
    st->nodes[id].index = ix;
    st->reads[st->n_reads].node = id;
    st->reads[st->n_reads].rank = rank;
    st->reads[st->n_reads].span = e->span;
    st->reads[st->n_reads++].ix = ix;
    return tc__sm_mkval(id, S->t[t].dtype);
}

TC__PRIVATE int tc__sm_in_branch(const tc__sm_stmt *st, int branch) {
    int i;
    if (branch == 0) return 1;
    for (i = 0; i < st->n_branch; i++)
        if (st->branch[i] == branch) return 1;
    return 0;
}

/* A use of let li: its nodes, shared where they were computed on every
   path that reaches this use. */
TC__PRIVATE tc__sm_val tc__sm_letref(tc__sm_stmt *st, int li, const tc__expr *use) {
    tc__sm_letval *lv;
    tc__sm_val v;
    int i;
    for (i = st->n_lv - 1; i >= 0; i--)
        if (st->lv[i].let == li && tc__sm_in_branch(st, st->lv[i].branch))
            return tc__sm_mkval(st->lv[i].node, st->lv[i].type);
    if (st->lets[li].busy) {
        tc__fail(st->S->C, TC_ERR_NAME, use->span, "`%s` is defined in terms of itself", use->name);
        return tc__sm_fail_val();
    }
    st->lets[li].busy = 1;
    v = tc__sm_expr(st, st->lets[li].w->expr);
    st->lets[li].busy = 0;
    if (v.node < 0 ||
        !tc__grow(st->S->C, (void **)&st->lv, &st->cap_lv, st->n_lv + 1, sizeof(tc__sm_letval)))
        return tc__sm_fail_val();
    lv = &st->lv[st->n_lv++];
    lv->let = li;
    lv->branch = st->n_branch ? st->branch[st->n_branch - 1] : 0;
    lv->node = v.node;
    lv->type = v.type;
    return v;
}

TC__PRIVATE tc__sm_val tc__sm_ident(tc__sm_stmt *st, const tc__expr *e) {
    tc__sm_name *n;
    int li = tc__sm_let_find(st, e->name), v, id;
    if (li >= 0) return tc__sm_letref(st, li, e);
    n = tc__sm_lookup(st->E, e->name);
    if (n && n->kind == TC__SM_TENSOR) return tc__sm_read(st, e, n->id);
    if (n) { /* a size variable: its value */
        id = tc__sm_node(st, TC_IR_SIZE, TC_INT32, 0, NULL);
        if (id >= 0) st->nodes[id].sx = n->id;
        return tc__sm_mkval(id, TC_INT32);
    }
    v = tc__sm_var_find(st, e->name);
    TC_ASSERT(v >= 0);
    id = tc__sm_node(st, TC_IR_INDEX, TC_INT32, 0, NULL);
    if (id >= 0) st->nodes[id].loop = v;
    return tc__sm_mkval(id, TC_INT32);
}

/* Builds l and r; a literal side is built second, seeing the other type. */
TC__PRIVATE int tc__sm_pair(tc__sm_stmt *st, const tc__expr *l, const tc__expr *r, tc__sm_val *vl,
                            tc__sm_val *vr) {
    *vl = tc__sm_expr(st, l);
    *vr = tc__sm_expr(st, r);
    return vl->node >= 0 && vr->node >= 0;
}

/* op(l, r) on the promoted type; result bool for comparisons. */
TC__PRIVATE tc__sm_val tc__sm_arith(tc__sm_stmt *st, tc_ir_op op, tc__sm_val a, tc__sm_val b,
                                    int compare) {
    tc_dtype t = tc__sm_promote(a.type, b.type, compare || op == TC_IR_MIN || op == TC_IR_MAX);
    int args[2];
    a = tc__sm_conv(st, a, t);
    b = tc__sm_conv(st, b, t);
    args[0] = a.node;
    args[1] = b.node;
    if (compare) t = TC_BOOL;
    return tc__sm_mkval(tc__sm_node(st, op, t, 2, args), t);
}

TC__PRIVATE int tc__sm_want_bool(tc__sm_stmt *st, tc__sm_val v, const tc__expr *e, const char *what) {
    if (v.node < 0) return 0;
    if (v.type == TC_BOOL) return 1;
    return tc__fail(st->S->C, TC_ERR_TYPE, e->span,
                    "%s must be bool (a comparison), not %s", what, tc_dtype_name(v.type));
}

/* a && b, a || b. As in C, b is evaluated only where a leaves the answer
   open: where b reads a tensor the node is a SELECT, a ? b : false (a ?
   true : b), whose unselected side never reads (SEMANTICS.md 6), and b's
   reads are checked where performed (guarded), so `i > 0 && B(i - 1) > 0`
   never reads B(-1). They still bound ranges as plain reads do. */
TC__PRIVATE tc__sm_val tc__sm_logic(tc__sm_stmt *st, const tc__expr *e) {
    const char *what = e->op == TC__T_AND ? "an operand of &&" : "an operand of ||";
    tc__sm_val a = tc__sm_expr(st, e->args[0]), b;
    int reads, args[3];
    if (!tc__sm_want_bool(st, a, e->args[0], what)) return tc__sm_fail_val();
    reads = st->n_acc; /* accesses before b's */
    b = tc__sm_branch(st, e->args[1], 0);
    if (!tc__sm_want_bool(st, b, e->args[1], what)) return tc__sm_fail_val();
    args[0] = a.node;
    if (st->n_acc == reads) {
        args[1] = b.node;
        return tc__sm_mkval(
            tc__sm_node(st, e->op == TC__T_AND ? TC_IR_AND : TC_IR_OR, TC_BOOL, 2, args), TC_BOOL);
    }
    args[1] = e->op == TC__T_AND ? b.node : tc__sm_const(st, TC_BOOL, 1, 1.0).node;
    args[2] = e->op == TC__T_AND ? tc__sm_const(st, TC_BOOL, 0, 0.0).node : b.node;
    if (args[1] < 0 || args[2] < 0) return tc__sm_fail_val();
    return tc__sm_mkval(tc__sm_node(st, TC_IR_SELECT, TC_BOOL, 3, args), TC_BOOL);
}

TC__PRIVATE tc__sm_val tc__sm_binary(tc__sm_stmt *st, const tc__expr *e) {
    static const struct {
        tc__tok tok;
        tc_ir_op op;
        int compare;
    } map[] = {{TC__T_PLUS, TC_IR_ADD, 0},  {TC__T_MINUS, TC_IR_SUB, 0}, {TC__T_STAR, TC_IR_MUL, 0},
               {TC__T_SLASH, TC_IR_DIV, 0}, {TC__T_PERCENT, TC_IR_MOD, 0}, {TC__T_LT, TC_IR_LT, 1},
               {TC__T_LE, TC_IR_LE, 1},     {TC__T_GT, TC_IR_GT, 1},     {TC__T_GE, TC_IR_GE, 1},
               {TC__T_EQ, TC_IR_EQ, 1},     {TC__T_NE, TC_IR_NE, 1}};
    tc__sm_val a, b;
    size_t i;
    if (e->op == TC__T_AND || e->op == TC__T_OR) return tc__sm_logic(st, e);
    for (i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].tok == e->op) {
            if (!tc__sm_pair(st, e->args[0], e->args[1], &a, &b)) return tc__sm_fail_val();
            return tc__sm_arith(st, map[i].op, a, b, map[i].compare);
        }
    tc__fail(st->S->C, TC_ERR_SYNTAX, e->span, "unexpected operator %s", tc__tok_text[e->op]);
    return tc__sm_fail_val();
}

TC__PRIVATE tc__sm_val tc__sm_unary(tc__sm_stmt *st, const tc__expr *e) {
    tc__sm_val v;
    if (tc__sm_is_literal(st, e)) return tc__sm_literal(st, e);
    v = tc__sm_expr(st, e->args[0]);
    if (v.node < 0) return v;
    if (e->op == TC__T_NOT) {
        if (!tc__sm_want_bool(st, v, e->args[0], "the operand of !")) return tc__sm_fail_val();
        return tc__sm_mkval(tc__sm_node(st, TC_IR_NOT, TC_BOOL, 1, &v.node), TC_BOOL);
    }
    if (v.type == TC_BOOL) v = tc__sm_conv(st, v, TC_INT32);
    if (e->op == TC__T_PLUS) return v;
    return tc__sm_mkval(tc__sm_node(st, TC_IR_NEG, v.type, 1, &v.node), v.type);
}

/* One branch of ?: (select), or the right side of && / ||, in its own
   branch context (lets computed inside it are not reused outside). */
TC__PRIVATE tc__sm_val tc__sm_branch(tc__sm_stmt *st, const tc__expr *e, int select) {
    tc__sm_val v;
    if (st->n_branch == (int)(sizeof st->branch / sizeof st->branch[0])) {
        tc__fail(st->S->C, TC_ERR_LIMIT, e->span, "?:, && and || nested too deeply");
        return tc__sm_fail_val();
    }
    st->branch[st->n_branch++] = ++st->next_branch;
    st->n_select += select;
    v = tc__sm_expr(st, e);
    st->n_select -= select;
    st->n_branch--;
    return v;
}

TC__PRIVATE tc__sm_val tc__sm_ternary(tc__sm_stmt *st, const tc__expr *e) {
    tc__sm_val c = tc__sm_expr(st, e->args[0]), a, b;
    tc_dtype t;
    int args[3];
    if (!tc__sm_want_bool(st, c, e->args[0], "the condition of ?:")) return tc__sm_fail_val();
    a = tc__sm_branch(st, e->args[1], 1);
    b = tc__sm_branch(st, e->args[2], 1);
    if (a.node < 0 || b.node < 0) return tc__sm_fail_val();
    t = tc__sm_promote(a.type, b.type, 1);
    a = tc__sm_conv(st, a, t);
    b = tc__sm_conv(st, b, t);
    args[0] = c.node;
    args[1] = a.node;
    args[2] = b.node;
    return tc__sm_mkval(tc__sm_node(st, TC_IR_SELECT, t, 3, args), t);
}

/* The cast t(v) written in the source: a conversion, and to float16 a
   rounding too. float16 values compute in float32 and round where they
   are stored, but half(x) is a float16 value wherever it is used:
   float(half(0.1)) is 0.0999755859375, as numpy and C's _Float16 give. */
TC__PRIVATE tc__sm_val tc__sm_cast(tc__sm_stmt *st, tc__sm_val v, tc_dtype t) {
    tc_dtype ct;
    if (v.node < 0 || t != TC_FLOAT16) return tc__sm_conv(st, v, t);
    /* an element of a float16 tensor is a float16 value; float16 arithmetic
       (half(H(i) + H(j)), half(sqrt(H(i)))) is not: it computed in float32 */
    if (v.type == TC_FLOAT16 && st->nodes[v.node].op == TC_IR_READ) return v;
    ct = v.type == TC_FLOAT64 ? TC_FLOAT64 : TC_FLOAT32; /* ints: exact in float32 up to */
    v = tc__sm_conv(st, v, ct);                           /* 2^24, far past float16's range */
    if (v.node < 0) return v;
    if (st->nodes[v.node].op == TC_IR_CONST)
        v = tc__sm_const(st, ct, 0, tc__round_half(st->nodes[v.node].fval));
    else v = tc__sm_mkval(tc__sm_node(st, TC_IR_HALF, ct, 1, &v.node), ct);
    return tc__sm_conv(st, v, TC_FLOAT16);
}

/* A builtin: float in, float out (the widest float argument; integers
   and literals count as float32, a float literal widened in a float64
   call as anywhere). */
TC__PRIVATE tc__sm_val tc__sm_builtin(tc__sm_stmt *st, const tc__expr *e, int b) {
    tc__sm_val v[4];
    tc_dtype t = TC_FLOAT16;
    int i, args[4], id;
    if (e->nargs != tc__builtins[b].arity) {
        tc__fail(st->S->C, TC_ERR_TYPE, e->span, "%s takes %d argument%s, %d given", e->name,
                 tc__builtins[b].arity, tc__builtins[b].arity == 1 ? "" : "s", e->nargs);
        return tc__sm_fail_val();
    }
    for (i = 0; i < e->nargs; i++) { /* hypot(H(i), 2.5) is float32, as H(i) * 2.5 is */
        tc_dtype a;
        v[i] = tc__sm_expr(st, e->args[i]);
        if (v[i].node < 0) return v[i];
        a = tc__dtype_is_float(v[i].type) ? v[i].type : TC_FLOAT32;
        if (i == 0 || tc__sm_fsize(a) > tc__sm_fsize(t)) t = a;
    }
    for (i = 0; i < e->nargs; i++) {
        v[i] = tc__sm_conv(st, v[i], t);
        args[i] = v[i].node;
    }
    id = tc__sm_node(st, TC_IR_CALL, t, e->nargs, args);
    if (id >= 0) st->nodes[id].builtin = (tc_builtin)b;
    return tc__sm_mkval(id, t);
}

TC__PRIVATE tc__sm_val tc__sm_call(tc__sm_stmt *st, const tc__expr *e) {
    tc__sm_name *n = tc__sm_lookup(st->E, e->name);
    int b, i;
    tc_dtype dt;
    if (n && n->kind == TC__SM_TENSOR) return tc__sm_read(st, e, n->id);
    if (n || tc__sm_let_find(st, e->name) >= 0 || tc__sm_var_find(st, e->name) >= 0) {
        tc__fail(st->S->C, TC_ERR_NAME, e->name_span, "`%s` is %s, not a tensor or function",
                 e->name, n ? "a size variable" : tc__sm_let_find(st, e->name) >= 0
                                                     ? "a where binding" : "an index variable");
        return tc__sm_fail_val();
    }
    b = tc__sm_builtin_id(e->name);
    if (b >= 0) return tc__sm_builtin(st, e, b);
    if (strcmp(e->name, "min") == 0 || strcmp(e->name, "max") == 0) {
        tc__sm_val x, y;
        if (e->nargs != 2) {
            tc__fail(st->S->C, TC_ERR_TYPE, e->span, "%s takes 2 arguments, %d given", e->name,
                     e->nargs);
            return tc__sm_fail_val();
        }
        if (!tc__sm_pair(st, e->args[0], e->args[1], &x, &y)) return tc__sm_fail_val();
        return tc__sm_arith(st, e->name[1] == 'i' ? TC_IR_MIN : TC_IR_MAX, x, y, 0);
    }
    if (tc__sm_dtype(e->name, &dt)) {
        if (e->nargs != 1) {
            tc__fail(st->S->C, TC_ERR_TYPE, e->span, "the cast %s(x) takes 1 argument, %d given",
                     e->name, e->nargs);
            return tc__sm_fail_val();
        }
        return tc__sm_cast(st, tc__sm_expr(st, e->args[0]), dt);
    }
    i = tc__ast_def_named(st->S->ast, e->name, strlen(e->name));
    if (i >= st->E->def_index) {
        tc__fail(st->S->C, TC_ERR_NAME, e->name_span,
                 "%s is defined %s: a def can only call defs defined before it", e->name,
                 i == st->E->def_index ? "by this def itself" : "later");
        return tc__sm_fail_val();
    }
    if (i >= 0) {
        tc__fail(st->S->C, TC_ERR_NAME, e->name_span,
                 "`%s` is a def: a call is a statement of its own whose arguments are "
                 "tensor names, e.g. `out = %s(A, B)`; compute an expression into a "
                 "temporary first", e->name, e->name);
        return tc__sm_fail_val();
    }
    tc__fail(st->S->C, TC_ERR_NAME, e->name_span, "unknown tensor or function `%s`", e->name);
    return tc__sm_fail_val();
}

/* The checker recurses once per operand of a chain too (a + b + c is
   (a + b) + c): past this depth it fails with a message that says so. */
TC__PRIVATE int tc__sm_too_deep(tc__sm_stmt *st, int depth, const tc__expr *e) {
    if (depth <= 4 * st->S->C->max_depth + 64) return 0;
    tc__fail(st->S->C, TC_ERR_LIMIT, e->span,
             "expression too long or nested too deeply: more than %d operations in one chain "
             "(each + of a + b + ... counts) or nesting; split it with a temporary",
             4 * st->S->C->max_depth + 64);
    return 1;
}

/* The typed node of e. */
TC__PRIVATE tc__sm_val tc__sm_expr(tc__sm_stmt *st, const tc__expr *e) {
    tc__sm_val v = tc__sm_fail_val();
    int id, sx;
    if (st->S->C->failed) return v;
    if (tc__sm_too_deep(st, ++st->depth, e)) return v;
    switch (e->kind) {
    case TC__E_INT: case TC__E_FLOAT: v = tc__sm_literal(st, e); break;
    case TC__E_IDENT: v = tc__sm_is_literal(st, e) ? tc__sm_literal(st, e) : tc__sm_ident(st, e); break;
    case TC__E_UNARY: v = tc__sm_unary(st, e); break;
    case TC__E_BINARY: v = tc__sm_binary(st, e); break;
    case TC__E_TERNARY: v = tc__sm_ternary(st, e); break;
    case TC__E_CALL: v = tc__sm_call(st, e); break;
    case TC__E_DIM:
        sx = tc__sm_dim(st->S, st->E, e);
        if (sx < 0) break;
        id = tc__sm_node(st, TC_IR_SIZE, TC_INT32, 0, NULL);
        if (id >= 0) st->nodes[id].sx = sx;
        v = tc__sm_mkval(id, TC_INT32);
        break;
    case TC__E_COUNT: break;
    }
    st->depth--;
    return v;
}

/* ==== [tc:range] Index variables, where clauses, range inference, checks ==
   Seed 001 + SEMANTICS.md §5. `where` ranges are fixed first. Then rounds:
   every access dimension (reads and the left-hand side) that is affine
   with exactly one unresolved index gives that index its maximal interval
   (resolved indices taken at their worst case), intervals found in one
   round are intersected, and the left-hand side keeps its indices >= 0.
   Accesses that did not bound a range become run-time checks (or compile
   errors / nothing when provable). */

TC__PRIVATE int tc__sm_add_var(tc__sm_stmt *st, const char *name, tc__span sp, int lhs) {
    tc__sm_var *v;
    if (!tc__sm_check_reserved(st->S, name, sp)) return 0;
    if (!tc__grow(st->S->C, (void **)&st->vars, &st->cap_vars, st->n_vars + 1, sizeof(tc__sm_var)))
        return 0;
    v = &st->vars[st->n_vars++];
    memset(v, 0, sizeof *v);
    v->name = name;
    v->span = sp;
    v->lhs = lhs;
    v->lo = v->hi = -1;
    return 1;
}

/* Finds the implicit index variables of e, in order of first use (lets
   are followed where they are used). */
TC__PRIVATE int tc__sm_collect(tc__sm_stmt *st, const tc__expr *e, int depth) {
    int i, li;
    if (tc__sm_too_deep(st, depth, e)) return 0;
    if (e->kind == TC__E_IDENT) {
        li = tc__sm_let_find(st, e->name);
        if (li >= 0) {
            if (st->lets[li].busy) return 1; /* visited (a cycle is reported when typed) */
            st->lets[li].busy = 1;
            return tc__sm_collect(st, st->lets[li].w->expr, depth + 1);
        }
        if (tc__sm_lookup(st->E, e->name) || tc__sm_var_find(st, e->name) >= 0) return 1;
        return tc__sm_add_var(st, e->name, e->span, -1);
    }
    if (e->kind == TC__E_DIM) return 1;
    for (i = 0; i < e->nargs; i++)
        if (!tc__sm_collect(st, e->args[i], depth + 1)) return 0;
    return 1;
}

/* Left-hand indices and let names: fresh, distinct, not reserved. */
TC__PRIVATE int tc__sm_fresh(tc__sm_stmt *st, const char *name, tc__span sp, const char *what) {
    tc__sm_name *n = tc__sm_lookup(st->E, name);
    if (n)
        return tc__fail(st->S->C, TC_ERR_NAME, sp, "%s `%s` is already the name of a %s", what,
                        name, n->kind == TC__SM_SIZE ? "size variable" : "tensor");
    if (tc__sm_var_find(st, name) >= 0 || tc__sm_let_find(st, name) >= 0)
        return tc__fail(st->S->C, TC_ERR_NAME, sp, "`%s` is defined twice in this statement", name);
    return tc__sm_check_reserved(st->S, name, sp);
}

TC__PRIVATE int tc__sm_setup_names(tc__sm_stmt *st) {
    const tc__stmt *s = st->st;
    int i;
    for (i = 0; i < s->n_idx; i++)
        if (!tc__sm_fresh(st, s->idx[i], s->idx_spans[i], "left-hand index") ||
            !tc__sm_add_var(st, s->idx[i], s->idx_spans[i], i))
            return 0;
    st->lets = (tc__sm_let *)tc__alloc_n(st->S->C, (size_t)(s->n_where + 1), sizeof(tc__sm_let));
    if (!st->lets) return 0;
    for (i = 0; i < s->n_where; i++)
        if (s->where[i].kind == TC__W_LET) {
            if (!tc__sm_fresh(st, s->where[i].name, s->where[i].name_span, "where binding"))
                return 0;
            st->lets[st->n_lets++].w = &s->where[i];
        }
    if (!tc__sm_collect(st, s->rhs, 0)) return 0;
    for (i = 0; i < s->n_where; i++)
        if (s->where[i].kind == TC__W_EXISTS && !tc__sm_collect(st, s->where[i].expr, 0)) return 0;
    for (i = 0; i < st->n_lets; i++) {
        st->lets[i].used = st->lets[i].busy;
        st->lets[i].busy = 0;
    }
    return 1;
}

/* Marks (busy) the lets e refers to, through other lets. */
TC__PRIVATE void tc__sm_mark_lets(tc__sm_stmt *st, const tc__expr *e, int depth) {
    int i, li;
    if (depth > 4 * st->S->C->max_depth + 64) return;
    if (e->kind == TC__E_IDENT && (li = tc__sm_let_find(st, e->name)) >= 0) {
        if (st->lets[li].busy) return;
        st->lets[li].busy = 1;
        tc__sm_mark_lets(st, st->lets[li].w->expr, depth + 1);
        return;
    }
    for (i = 0; i < e->nargs; i++) tc__sm_mark_lets(st, e->args[i], depth + 1);
}

/* A let the statement does not use would go unchecked (lets are checked
   where used): refused, as a where range for a variable the statement
   lacks is. The one named is not used by another unused one either. */
TC__PRIVATE int tc__sm_unused_lets(tc__sm_stmt *st) {
    int i, pick = -1;
    for (i = 0; i < st->n_lets; i++)
        if (!st->lets[i].used) tc__sm_mark_lets(st, st->lets[i].w->expr, 0);
    for (i = 0; i < st->n_lets; i++)
        if (!st->lets[i].used && (pick < 0 || (st->lets[pick].busy && !st->lets[i].busy))) pick = i;
    for (i = 0; i < st->n_lets; i++) st->lets[i].busy = 0;
    if (pick < 0) return 1;
    return tc__fail(st->S->C, TC_ERR_NAME, st->lets[pick].w->name_span,
                    "where binding `%s` is not used in this statement", st->lets[pick].w->name);
}

/* A where bound: a size expression. */
TC__PRIVATE int tc__sm_where_bound(tc__sm_stmt *st, const tc__expr *e) {
    const tc__expr *bad = e;
    int sx;
    st->S->sx_overflow = 0; /* a constant part that overflows, even in a ?: branch folded away */
    sx = tc__sm_sizex(st, e, 0, &bad);
    if (sx >= 0 && st->S->sx_overflow)
        return tc__fail(st->S->C, TC_ERR_LIMIT, e->span, "this bound overflows 64 bits") - 1;
    if (sx != -2) return sx;
    if (bad->kind == TC__E_IDENT && !tc__sm_lookup(st->E, bad->name) &&
        tc__sm_var_find(st, bad->name) < 0 && tc__sm_let_find(st, bad->name) < 0)
        return tc__fail(st->S->C, TC_ERR_NAME, bad->span, "unknown size `%s`", bad->name) - 1;
    if (bad->kind == TC__E_IDENT && tc__sm_lookup(st->E, bad->name))
        return tc__fail(st->S->C, TC_ERR_TYPE, bad->span,
                        "`%s` is not a size: a size expression may use size variables and 0-rank "
                        "integer inputs, not other tensors", bad->name) - 1;
    if (bad->kind == TC__E_IDENT)
        return tc__fail(st->S->C, TC_ERR_TYPE, bad->span,
                        "`%s` is not a size: index variables and where bindings cannot bound a "
                        "range", bad->name) - 1;
    return tc__fail(st->S->C, TC_ERR_TYPE, bad->span,
                    "not a size expression: a where range may use size variables, integer "
                    "literals, T.d, 0-rank integer inputs, + - * / %% min max, comparisons, "
                    "&& || ! of comparisons, and c ? a : b with c a comparison") - 1;
}

TC__PRIVATE int tc__sm_where_ranges(tc__sm_stmt *st) {
    const tc__stmt *s = st->st;
    int i, v;
    for (i = 0; i < s->n_where; i++) {
        const tc__where *w = &s->where[i];
        if (w->kind != TC__W_RANGE) continue;
        v = tc__sm_var_find(st, w->name);
        if (v < 0)
            return tc__fail(st->S->C, TC_ERR_NAME, w->name_span,
                            "where %s: `%s` is not an index variable of this statement", w->name,
                            w->name);
        if (st->vars[v].fixed)
            return tc__fail(st->S->C, TC_ERR_NAME, w->name_span, "two where ranges for `%s`",
                            w->name);
        st->vars[v].lo = tc__sm_where_bound(st, w->lo);
        if (st->vars[v].lo < 0) return 0;
        st->vars[v].hi = tc__sm_where_bound(st, w->hi);
        if (st->vars[v].hi < 0) return 0;
        st->vars[v].fixed = st->vars[v].resolved = 1;
        st->vars[v].span = w->span;
    }
    return 1;
}

/* Lowest and highest value of sum(coef * var) + off over the ranges of the
   variables with a nonzero coefficient, skipping variable `skip`. */
TC__PRIVATE int tc__range_bounds(tc__sm_stmt *st, const int64_t *coef, int off, int skip, int *mn,
                                 int *mx) {
    tc__sema *S = st->S;
    int v;
    *mn = *mx = off;
    for (v = 0; v < st->n_vars; v++) {
        int64_t c = coef[v];
        int lo, last;
        if (c == 0 || v == skip) continue;
        lo = st->vars[v].lo;
        last = tc__sx_addk(S, st->vars[v].hi, -1);
        *mn = tc__sx_add(S, *mn, tc__sx_mulk(S, c > 0 ? lo : last, c));
        *mx = tc__sx_add(S, *mx, tc__sx_mulk(S, c > 0 ? last : lo, c));
    }
    return *mn >= 0 && *mx >= 0;
}

/* The interval of variable v allowed by access a: 0 <= a*v + rest < size. */
TC__PRIVATE int tc__range_interval(tc__sm_stmt *st, const tc__sm_access *a, int v, int *lo, int *hi) {
    tc__sema *S = st->S;
    int64_t k = a->coef[v];
    int size = S->t[a->tensor].extent[a->dim], cmin, cmax;
    if (a->div > 0) size = tc__sx_mulk(S, size, a->div); /* tc__sm_quotient */
    if (!tc__range_bounds(st, a->coef, a->off, v, &cmin, &cmax)) return 0;
    if (k > 0) { /* i >= ceil(-cmin / k), i < ceil((size - cmax) / k) */
        int kk = tc__sx_const(S, k);
        *lo = tc__sx_bin(S, TC_SX_DIV, tc__sx_addk(S, tc__sx_sub(S, tc__sx_const(S, 0), cmin), k - 1), kk);
        *hi = tc__sx_bin(S, TC_SX_DIV, tc__sx_addk(S, tc__sx_sub(S, size, cmax), k - 1), kk);
    } else { /* k = -b: i <= floor(cmin / b), i >= ceil((cmax - size + 1) / b) */
        int64_t b = -k;
        int bb = tc__sx_const(S, b);
        *hi = tc__sx_addk(S, tc__sx_bin(S, TC_SX_DIV, cmin, bb), 1);
        *lo = tc__sx_bin(S, TC_SX_DIV, tc__sx_addk(S, tc__sx_sub(S, cmax, size), b), bb);
    }
    return *lo >= 0 && *hi >= 0;
}

/* The one unresolved variable of access a, -1 when none or several. */
TC__PRIVATE int tc__range_single(const tc__sm_stmt *st, const tc__sm_access *a) {
    int v, found = -1;
    for (v = 0; v < st->n_vars; v++)
        if (a->coef[v] != 0 && !st->vars[v].resolved) {
            if (found >= 0) return -1;
            found = v;
        }
    return found;
}

/* "B(i + k)" for a read, "A(i, j)" for the left-hand side. */
TC__PRIVATE void tc__sm_access_text(const tc__sm_stmt *st, const tc__sm_access *a, char *buf,
                                    size_t cap) {
    if (a->expr) {
        tc__sm_text(st->S, a->expr->span, buf, cap);
    } else {
        tc__buf b;
        int i;
        b = tc__buf_on(buf, cap);
        tc__bprintf(&b, "%s(", st->S->t[a->tensor].name);
        for (i = 0; i < st->st->n_idx; i++) tc__bprintf(&b, "%s%s", i ? ", " : "", st->st->idx[i]);
        tc__bprintf(&b, ")");
        tc__buf_done(&b);
    }
}

/* Whether e uses name (through lets too). */
TC__PRIVATE int tc__sm_mentions(tc__sm_stmt *st, const tc__expr *e, const char *name, int depth) {
    int i, li;
    if (depth > 4 * st->S->C->max_depth + 64 || ++st->work > 2 * TC__SM_WORK) return 0;
    if (e->kind == TC__E_IDENT) {
        if (strcmp(e->name, name) == 0) return 1;
        li = tc__sm_let_find(st, e->name);
        if (li < 0 || st->lets[li].busy) return 0;
        st->lets[li].busy = 1;
        i = tc__sm_mentions(st, st->lets[li].w->expr, name, depth + 1);
        st->lets[li].busy = 0;
        return i;
    }
    for (i = 0; i < e->nargs; i++)
        if (tc__sm_mentions(st, e->args[i], name, depth + 1)) return 1;
    return 0;
}
/* A tensor read whose index uses name (not affinely, or we would have an
   access for it), or NULL. */
TC__PRIVATE const tc__expr *tc__sm_find_use(tc__sm_stmt *st, const tc__expr *e, const char *name,
                                            int depth) {
    const tc__sm_name *n;
    const tc__expr *r;
    int i;
    if (depth > 4 * st->S->C->max_depth + 64) return NULL;
    n = e->kind == TC__E_CALL ? tc__sm_lookup(st->E, e->name) : NULL;
    for (i = 0; n && n->kind == TC__SM_TENSOR && i < e->nargs; i++)
        if (tc__sm_mentions(st, e->args[i], name, 0)) return e;
    for (i = 0; i < e->nargs; i++)
        if ((r = tc__sm_find_use(st, e->args[i], name, depth + 1)) != NULL) return r;
    return NULL;
}

/* Whether the access's index is exactly variable v (coefficient 1, no
   other variable, offset 0). */
TC__PRIVATE int tc__range_plain(const tc__sm_stmt *st, const tc__sm_access *a, int v) {
    int u;
    int64_t k;
    for (u = 0; u < st->n_vars; u++)
        if (a->coef[u] != (u == v)) return 0;
    return a->div == 0 && tc__sx_isconst(st->S, a->off, &k) && k == 0;
}

/* No round made progress: name the unresolved variables and suggest a
   where clause. */
TC__PRIVATE int tc__range_fail(tc__sm_stmt *st) {
    char names[160], uses[160], size[64], tmp[96];
    tc__buf b;
    int v, first = -1, n = 0, i, nuse = 0;
    b = tc__buf_on(names, sizeof names);
    for (v = 0; v < st->n_vars; v++)
        if (!st->vars[v].resolved) {
            tc__bprintf(&b, "%s%s", n++ ? ", " : "", st->vars[v].name);
            if (first < 0) first = v;
        }
    tc__buf_done(&b);
    b = tc__buf_on(uses, sizeof uses);
    strcpy(size, "<size>");
    for (i = 0; i < st->n_acc; i++) {
        const tc__sm_access *a = &st->acc[i];
        int j, seen = 0;
        if (a->coef[first] == 0 || !a->expr) continue;
        for (j = 0; j < i; j++) /* one read, however many of its dimensions use it */
            seen |= st->acc[j].expr == a->expr && st->acc[j].coef[first] != 0;
        if (seen) continue;
        /* the read's size is the range only where the index is the variable itself:
           A(i + k) needs i in 0:N-K+1, not 0:N */
        if (nuse == 0 && tc__range_plain(st, a, first))
            tc__sm_sxstr(st->S, st->S->t[a->tensor].extent[a->dim], size, sizeof size);
        tc__sm_access_text(st, a, tmp, sizeof tmp);
        if (nuse++ < 2) tc__bprintf(&b, "%s%s", nuse > 1 ? ", " : "", tmp);
    }
    tc__buf_done(&b);
    if (!nuse) {
        const tc__expr *u = tc__sm_find_use(st, st->st->rhs, st->vars[first].name, 0);
        if (u) {
            tc__sm_text(st->S, u->span, tmp, sizeof tmp);
            return tc__fail(st->S->C, TC_ERR_RANGE, u->span,
                            "cannot infer the range%s of %s: %s is used only in %s, whose index "
                            "is not affine in it (integer coefficients, size offsets); add "
                            "`where %s in 0:<size>`",
                            n > 1 ? "s" : "", names, st->vars[first].name, tmp,
                            st->vars[first].name);
        }
    }
    return tc__fail(st->S->C, TC_ERR_RANGE, st->vars[first].span,
                    "cannot infer the range%s of %s: %s%s%s; add `where %s in 0:%s`",
                    n > 1 ? "s" : "", names, st->vars[first].name,
                    nuse ? " is used only in " : " indexes no tensor on the right-hand side",
                    nuse ? uses : "", st->vars[first].name, size);
}

/* An index that uses v and no other index variable: `W(m, c, kh, kw)`,
   not `dO(h - kh)`, whose bounds a guarding ?: usually exists to avoid. */
TC__PRIVATE int tc__range_pure(const tc__sm_stmt *st, const tc__sm_access *a, int v) {
    int u;
    for (u = 0; u < st->n_vars; u++)
        if (u != v && a->coef[u] != 0) return 0;
    return 1;
}

/* A resolved range that is an error for every size: negative (`A(i + 5)`
   of a 3-long A), or, bounded only by reads in ?: branches, empty too
   (`i < N ? A(i) : B(i - N)`, a concatenation without its `where`, would
   else write nothing without a word). A range empty for every size
   otherwise gives an empty tensor (SEMANTICS.md 5: zero extents give
   empty tensors): `B(i + 3)` of a 3-long B. */
TC__PRIVATE int tc__range_void(const tc__sema *S, const tc__sm_var *x, int branches) {
    if (x->lo < 0 || x->hi < 0) return 0; /* after an allocation failure */
    return tc__sx_prove_le_d(S, x->hi, branches ? 0 : 1, x->lo, 0, 0) == 1;
}

/* One round: every access with a single unresolved variable proposes an
   interval; intersect per variable, resolve. Returns the number resolved.
   Reads in ?: branches count only in fallback rounds, when nothing else
   bounds a variable: with `branches` 1 those whose index is the variable
   alone (pure), with 2, when those resolve nothing either, any with one
   unresolved variable. */
TC__PRIVATE int tc__range_round(tc__sm_stmt *st, int *lo_c, int *hi_c, int branches) {
    tc__sema *S = st->S;
    int i, v, lo, hi, progress = 0;
    for (v = 0; v < st->n_vars; v++) lo_c[v] = hi_c[v] = -1;
    for (i = 0; i < st->n_acc; i++) {
        tc__sm_access *a = &st->acc[i];
        a->cand = -1;
        if (a->lhs && !S->ti[a->tensor].sized) continue; /* only i >= 0, applied below */
        if (a->branch && (!branches || a->exists)) continue; /* may not happen */
        v = tc__range_single(st, a);
        if (a->branch && v >= 0 && branches < 2 && !tc__range_pure(st, a, v)) continue;
        if (v < 0 || a->coef[v] == INT64_MIN) continue;
        if (!tc__range_interval(st, a, v, &lo, &hi)) return -1;
        lo_c[v] = lo_c[v] < 0 ? lo : tc__sx_bin(S, TC_SX_MAX, lo_c[v], lo);
        hi_c[v] = hi_c[v] < 0 ? hi : tc__sx_bin(S, TC_SX_MIN, hi_c[v], hi);
        a->cand = v;
    }
    for (v = 0; v < st->n_vars; v++) {
        tc__sm_var *x = &st->vars[v];
        char l[64], h[64];
        if (x->resolved || hi_c[v] < 0) continue;
        x->lo = x->lhs >= 0 ? tc__sx_bin(S, TC_SX_MAX, tc__sx_const(S, 0), lo_c[v]) : lo_c[v];
        x->hi = hi_c[v];
        x->resolved = 1;
        progress++;
        if (tc__range_void(S, x, branches))
            return tc__fail(S->C, TC_ERR_RANGE, x->span,
                            "the accesses that bound %s leave it no value for any size: [%s, %s) "
                            "(their ranges are intersected); give it one with `where %s in lo:hi`",
                            x->name, tc__sm_sxstr(S, x->lo, l, sizeof l),
                            tc__sm_sxstr(S, x->hi, h, sizeof h), x->name) - 1;
    }
    for (i = 0; i < st->n_acc; i++)
        if (st->acc[i].cand >= 0) st->acc[i].lo_ok = st->acc[i].hi_ok = 1;
    return S->C->failed ? -1 : progress;
}

/* When nothing else bounds a left-hand index of a declared output's first
   write (`-> (float(N) O) { O(i) = 0 }`), the declared dim gives its range. */
TC__PRIVATE int tc__range_declared(tc__sm_stmt *st) {
    const tc__sm_tensor *ti = &st->S->ti[st->target];
    int v, i, n = 0;
    if (!ti->declared || ti->sized) return 0;
    for (v = 0; v < st->n_vars; v++) {
        tc__sm_var *x = &st->vars[v];
        if (x->resolved || x->lhs < 0) continue;
        x->lo = tc__sx_const(st->S, 0);
        x->hi = ti->decl[x->lhs];
        x->resolved = 1;
        n++;
        for (i = 0; i < st->n_acc; i++)
            if (st->acc[i].lhs && st->acc[i].dim == x->lhs) st->acc[i].lo_ok = st->acc[i].hi_ok = 1;
    }
    return n;
}

TC__PRIVATE int tc__range_infer(tc__sm_stmt *st) {
    int *lo_c = (int *)tc__alloc_n(st->S->C, (size_t)st->n_vars + 1, sizeof(int));
    int *hi_c = (int *)tc__alloc_n(st->S->C, (size_t)st->n_vars + 1, sizeof(int));
    int v, i, left;
    if (!lo_c || !hi_c) return 0;
    for (;;) {
        int r;
        for (left = 0, v = 0; v < st->n_vars; v++) left += !st->vars[v].resolved;
        if (!left) break;
        r = tc__range_round(st, lo_c, hi_c, 0);
        if (r == 0) r = tc__range_declared(st);
        if (r == 0) r = tc__range_round(st, lo_c, hi_c, 1);
        if (r == 0) r = tc__range_round(st, lo_c, hi_c, 2);
        if (r < 0) return 0;
        if (r == 0) return tc__range_fail(st);
    }
    for (i = 0; i < st->n_acc; i++) { /* the left-hand side of a new tensor: i >= 0 by max(0, .) */
        tc__sm_access *a = &st->acc[i];
        if (a->lhs && !st->S->ti[a->tensor].sized && !st->vars[a->dim].fixed) a->lo_ok = 1;
    }
    return 1;
}

/* Adds check a <= b (LE) or a == b (EQ) unless provable; a provably false
   one is a compile error (code, at sp, with msg). */
TC__PRIVATE int tc__sm_check(tc__sema *S, tc_check_kind kind, int a, int b, int stmt,
                             const char *what, tc_status code, tc__span sp, const char *msg) {
    tc_ir_check *c;
    int i, p;
    if (a < 0 || b < 0) return 0;
    p = kind == TC_CHECK_LE ? tc__sx_prove_le(S, a, b) : tc__sx_prove_eq(S, a, b);
    if (p == 1) return 1;
    if (p == 0) return tc__fail(S->C, code, sp, "%s", msg);
    for (i = 0; i < S->n_checks; i++)
        if (S->checks[i].kind == kind && S->checks[i].a == a && S->checks[i].b == b &&
            S->checks[i].stmt == stmt)
            return 2;
    if (!tc__grow(S->C, (void **)&S->checks, &S->cap_checks, S->n_checks + 1, sizeof(tc_ir_check)))
        return 0;
    c = &S->checks[S->n_checks++];
    c->kind = kind;
    c->a = a;
    c->b = b;
    c->stmt = stmt;
    c->what = tc__strdup(S->C, what);
    return c->what ? 2 : 0;
}

/* 1 when the statement's domain is provably empty: some range lo:hi with
   hi <= lo (`where i in -1:-2`). It then accesses nothing, so nothing is
   checked: such a range reaches no index, below 0 or past a size. (One
   that may be empty is checked as if it were not: a provably false check
   fails at compile time, for it fails whenever the statement runs.) */
TC__PRIVATE int tc__range_empty(tc__sm_stmt *st) {
    int v;
    for (v = 0; v < st->n_vars; v++)
        if (tc__sx_prove_le(st->S, st->vars[v].hi, st->vars[v].lo) == 1) return 1;
    return 0;
}

/* Run-time checks for one access dimension that inference did not bound.
   Returns 0 on error, 1 when nothing was needed, 2 when a check was added. */
TC__PRIVATE int tc__range_check_access(tc__sm_stmt *st, const tc__sm_access *a, int stmt) {
    tc__sema *S = st->S;
    char text[128], what[256], msg[512], v1[64], v2[64];
    int mn, mx, r1 = 1, r2 = 1, size = S->t[a->tensor].extent[a->dim];
    tc__span sp = a->expr ? a->expr->span : st->st->lhs_span;
    if (a->lhs && st->vars[a->dim].fixed) sp = st->vars[a->dim].span;
    if (!tc__range_bounds(st, a->coef, a->off, -1, &mn, &mx)) return 0;
    tc__sm_access_text(st, a, text, sizeof text);
    snprintf(what, sizeof what, "%s%s at line %d, dimension %d", a->lhs ? "left-hand side " : "",
             text, st->st->span.line, a->dim);
    if (!a->lo_ok) {
        snprintf(msg, sizeof msg, "%s: the index can be %s, below 0", what,
                 tc__sm_sxstr(S, mn, v1, sizeof v1));
        r1 = tc__sm_check(S, TC_CHECK_LE, tc__sx_const(S, 0), mn, stmt, what, TC_ERR_RANGE, sp, msg);
    }
    if (r1 && !a->hi_ok && (!a->lhs || S->ti[a->tensor].sized)) {
        snprintf(msg, sizeof msg, "%s: the index reaches %s, but %s has size %s", what,
                 tc__sm_sxstr(S, mx, v1, sizeof v1), S->t[a->tensor].name,
                 tc__sm_sxstr(S, size, v2, sizeof v2));
        r2 = tc__sm_check(S, TC_CHECK_LE, mx, tc__sx_addk(S, size, -1), stmt, what, TC_ERR_RANGE,
                          sp, msg);
    }
    if (!r1 || !r2) return 0;
    return r1 == 2 || r2 == 2 ? 2 : 1;
}

/* A read in a ?: branch (or on the right of && / ||) that inference did not
   bound: in bounds for every point (provably), or else read through its
   general index, which the back end checks per element where the read
   happens (SEMANTICS.md §6). */
TC__PRIVATE int tc__range_branch_read(tc__sm_stmt *st, const tc__sm_access *a) {
    tc__sema *S = st->S;
    int mn, mx;
    if (!tc__range_bounds(st, a->coef, a->off, -1, &mn, &mx)) return 0;
    if ((a->lo_ok || tc__sx_prove_le(S, tc__sx_const(S, 0), mn) == 1) &&
        (a->hi_ok ||
         tc__sx_prove_le(S, mx, tc__sx_addk(S, S->t[a->tensor].extent[a->dim], -1)) == 1))
        return 1;
    a->ix->affine = 0;
    return 2;
}

/* Whether a run-time check of a is worth a warning: an access that uses
   loop indices and that no ?: or && / || guards (its bounds then depend
   on the ranges the statement gave it: `X(2*i + 1) where i in 0:(I+1)/2`).
   A guarded read is checked where it is read, as the guard intends, and
   one at constant indices (`I(y, 0)`, `I(y, W - 1)`) only needs that
   dimension to be long enough: neither says anything worth acting on. */
TC__PRIVATE int tc__range_worth_warning(const tc__sm_stmt *st, const tc__sm_access *a) {
    int v;
    if (a->guarded || st->S->inline_depth) return 0;
    for (v = 0; v < st->n_vars; v++)
        if (a->coef[v] != 0) return 1;
    return 0;
}

TC__PRIVATE int tc__range_checks(tc__sm_stmt *st, int stmt) {
    int i;
    const tc__expr *warned = NULL;
    if (tc__range_empty(st)) return 1; /* no point of the domain reads or writes */
    for (i = 0; i < st->n_acc; i++) {
        const tc__sm_access *a = &st->acc[i];
        int r;
        if (a->exists || a->div > 0 || (a->lo_ok && a->hi_ok) ||
            (a->lo_ok && a->lhs && !st->S->ti[a->tensor].sized))
            continue;
        r = a->guarded ? tc__range_branch_read(st, a) : tc__range_check_access(st, a, stmt);
        if (!r) return 0;
        if (r == 2 && tc__range_worth_warning(st, a) && (!a->expr || a->expr != warned)) {
            char text[128];
            tc__sm_access_text(st, a, text, sizeof text);
            tc__warn(st->S->C, a->expr ? a->expr->span : st->st->lhs_span,
                     "range inference does not prove %s in bounds: it is checked at run time, "
                     "before anything is written",
                     text);
            warned = a->expr;
        }
    }
    return 1;
}

/* ==== [tc:lower] Statements, calls and defs to the loop-nest IR ============ */

/* "f.t", made unique among the tensors. */
TC__PRIVATE const char *tc__sm_temp_name(tc__sema *S, const char *prefix, const char *name) {
    return prefix ? tc__strfmt(S->C, "%s.%s", prefix, name) : name;
}

/* The tensor a statement writes (a temporary is created at its first
   write); -1 after an error. */
TC__PRIVATE int tc__lower_target(tc__sema *S, tc__sm_env *E, const char *name, tc__span sp) {
    tc__sm_name *n = tc__sm_lookup(E, name);
    TC_ASSERT(n != NULL); /* every written name was registered by the prescan */
    if (n->kind == TC__SM_SIZE)
        return tc__fail(S->C, TC_ERR_NAME, sp, "`%s` is a size variable and cannot be written",
                        name) - 1;
    if (n->id < 0) {
        const char *tn = tc__sm_temp_name(S, E->prefix, name);
        n->id = tn ? tc__sm_new_tensor(S, tn, TC_TENSOR_TEMP, sp) : -1;
        return n->id;
    }
    if (S->t[n->id].kind == TC_TENSOR_INPUT)
        return tc__fail(S->C, TC_ERR_NAME, sp, "cannot write %s: inputs are immutable", name) - 1;
    return n->id;
}

/* The value stored: converted to the tensor's type (set by the first
   write of an untyped tensor). */
TC__PRIVATE tc__sm_val tc__lower_store(tc__sm_stmt *st, int t, tc__sm_val v) {
    tc__sema *S = st->S;
    const tc__stmt *s = st->st;
    if (v.node < 0) return v;
    if (!S->ti[t].typed) {
        S->t[t].dtype = v.type;
        S->ti[t].typed = 1;
    } else if (!tc__sm_widens(v.type, S->t[t].dtype)) {
        tc__fail(S->C, TC_ERR_TYPE, s->rhs->span,
                 "%s holds %s but the right-hand side is %s: convert it explicitly, e.g. %s(...)",
                 S->t[t].name, tc_dtype_name(S->t[t].dtype), tc_dtype_name(v.type),
                 tc_dtype_name(S->t[t].dtype));
        return tc__sm_fail_val();
    }
    if (S->t[t].dtype == TC_BOOL && (s->reduce == TC_REDUCE_SUM || s->reduce == TC_REDUCE_PROD)) {
        tc__fail(S->C, TC_ERR_TYPE, s->op_span,
                 "%s on bool tensor %s: convert the right-hand side, e.g. int32(...)",
                 tc__reduce_names[s->reduce], S->t[t].name);
        return tc__sm_fail_val();
    }
    return tc__sm_conv(st, v, S->t[t].dtype);
}

/* After the first write of a declared output: its extents must equal the
   declared dims (which then stand for them). */
TC__PRIVATE int tc__lower_declared(tc__sema *S, int t, const int *decl, const char *who) {
    int d;
    for (d = 0; d < S->t[t].rank; d++) {
        char what[256], msg[512], v1[64], v2[64];
        snprintf(what, sizeof what, "%s: dimension %d of %s is %s, declared %s", who, d,
                 S->t[t].name, tc__sm_sxstr(S, S->t[t].extent[d], v1, sizeof v1),
                 tc__sm_sxstr(S, decl[d], v2, sizeof v2));
        snprintf(msg, sizeof msg, "%s is declared with dimension %d = %s, but its inferred extent is %s",
                 S->t[t].name, d, v2, v1);
        if (!tc__sm_check(S, TC_CHECK_EQ, S->t[t].extent[d], decl[d], -1, what, TC_ERR_SHAPE,
                          S->ti[t].span, msg))
            return 0;
        S->t[t].extent[d] = decl[d];
    }
    return 1;
}

/* Shapes after a statement wrote t: the first write defines extents (the
   upper bounds of the left-hand indices); min is the lowest index written. */
TC__PRIVATE int tc__lower_define(tc__sm_stmt *st, int t) {
    tc__sema *S = st->S;
    int d;
    for (d = 0; d < S->t[t].rank; d++) {
        const tc__sm_var *v = &st->vars[d];
        if (!S->ti[t].sized) {
            char v1[64], v2[64];
            S->t[t].extent[d] = v->hi;
            S->t[t].min[d] = v->lo;
            if (tc__sx_prove_le(S, tc__sx_const(S, 0), v->hi) == 0) /* for every size */
                return tc__fail(S->C, TC_ERR_SHAPE, st->st->lhs_span,
                                "%s: dimension %d has negative extent %s (%s in [%s, %s))",
                                S->t[t].name, d, tc__sm_sxstr(S, v->hi, v2, sizeof v2), v->name,
                                tc__sm_sxstr(S, v->lo, v1, sizeof v1), v2);
        } else {
            S->t[t].min[d] = tc__sx_bin(S, TC_SX_MIN, S->t[t].min[d], v->lo);
        }
    }
    if (!S->ti[t].sized && S->ti[t].declared &&
        !tc__lower_declared(S, t, S->ti[t].decl, "declared output"))
        return 0;
    S->ti[t].sized = S->ti[t].written = 1;
    return !S->C->failed;
}

/* Whether `name` occurs inside an index of a tensor access in e (lets
   followed where they are used, as deep as tc__sm_mentions goes; *budget
   bounds the walk, a cycle of lets included). */
TC__PRIVATE int tc__sm_indexes(tc__sm_stmt *st, const tc__expr *e, const char *name,
                               int in_index, long *budget, int depth) {
    int i, li, tensor;
    if (!e || --*budget < 0 || depth > 4 * st->S->C->max_depth + 64)
        return 1; /* too large to tell: let inference decide */
    if (e->kind == TC__E_IDENT) {
        li = tc__sm_let_find(st, e->name);
        if (li >= 0)
            return tc__sm_indexes(st, st->lets[li].w->expr, name, in_index, budget, depth + 1);
        return in_index && strcmp(e->name, name) == 0;
    }
    tensor = e->kind == TC__E_CALL && tc__sm_lookup(st->E, e->name) &&
             tc__sm_lookup(st->E, e->name)->kind == TC__SM_TENSOR;
    for (i = 0; i < e->nargs; i++)
        if (tc__sm_indexes(st, e->args[i], name, in_index || tensor, budget, depth + 1)) return 1;
    return 0;
}

/* An implicit index that no tensor access indexes with and no `where`
   ranges cannot be an index at all: a scalar the def forgot to declare
   (`P(i,c) + V(i,c) * dt`), not a reduction to fix with +=. */
TC__PRIVATE int tc__lower_undeclared(tc__sm_stmt *st) {
    const tc__stmt *s = st->st;
    int v, i;
    for (v = 0; v < st->n_vars; v++) {
        long budget = 1L << 16;
        int used;
        if (st->vars[v].lhs >= 0 || st->vars[v].fixed) continue;
        used = tc__sm_indexes(st, s->rhs, st->vars[v].name, 0, &budget, 0);
        for (i = 0; i < s->n_where && !used; i++)
            if (s->where[i].kind == TC__W_EXISTS)
                used = tc__sm_indexes(st, s->where[i].expr, st->vars[v].name, 0, &budget, 0);
        if (!used)
            return tc__fail(st->S->C, TC_ERR_NAME, st->vars[v].span,
                            "%s is not declared: it is not a parameter, a size or a where binding, "
                            "and no tensor is indexed by it; declare it as a parameter "
                            "(float %s) or give it a range (where %s in 0:N)",
                            st->vars[v].name, st->vars[v].name, st->vars[v].name);
    }
    return 1;
}

/* Rank check (or set), reduction operator check, warnings. */
TC__PRIVATE int tc__lower_lhs(tc__sm_stmt *st, int t) {
    tc__sema *S = st->S;
    const tc__stmt *s = st->st;
    int v;
    if (S->t[t].rank >= 0 && S->t[t].rank != s->n_idx)
        return tc__fail(S->C, TC_ERR_TYPE, s->lhs_span,
                        "%s has %d dimension%s but is written with %d ind%s", S->t[t].name,
                        S->t[t].rank, S->t[t].rank == 1 ? "" : "s", s->n_idx,
                        s->n_idx == 1 ? "ex" : "ices");
    if (s->n_idx > TC_MAX_RANK)
        return tc__fail(S->C, TC_ERR_LIMIT, s->lhs_span, "%s has more than %d dimensions",
                        S->t[t].name, TC_MAX_RANK);
    S->t[t].rank = s->n_idx;
    if (!tc__lower_undeclared(st)) return 0;
    for (v = 0; v < st->n_vars; v++)
        if (st->vars[v].lhs < 0 && s->reduce == TC_REDUCE_ASSIGN) {
            char lhs[128];
            tc__sm_access acc;
            memset(&acc, 0, sizeof acc);
            acc.tensor = t;
            tc__sm_access_text(st, &acc, lhs, sizeof lhs);
            return tc__fail(S->C, TC_ERR_TYPE, st->vars[v].span,
                            "%s appears only on the right, so %s reduces over it: use +=, *=, "
                            "min= or max= (with ! to initialise)",
                            st->vars[v].name, lhs);
        }
    if (s->reduce != TC_REDUCE_ASSIGN && !s->init && !S->ti[t].written && !S->inline_depth)
        tc__warn(S->C, s->op_span,
                 "%s without ! accumulates into what %s holds, and no earlier statement wrote it "
                 "(the caller's buffer for an output): write %s! to start from the identity",
                 tc__reduce_names[s->reduce], S->t[t].name, tc__reduce_names[s->reduce]);
    return 1;
}

/* The left-hand access, one affine access per dimension: loop d. */
TC__PRIVATE int tc__lower_lhs_access(tc__sm_stmt *st, int t) {
    int d;
    for (d = 0; d < st->st->n_idx; d++) {
        int64_t *coef = (int64_t *)tc__alloc_n(st->S->C, (size_t)st->n_vars, sizeof(int64_t));
        if (!coef) return 0;
        coef[d] = 1;
        if (!tc__sm_add_access(st, t, d, 1, coef, tc__sx_const(st->S, 0), NULL, NULL)) return 0;
    }
    return 1;
}

/* Constant folding, after range inference and before tc__lower_compact:
   a part of the value computed from constants alone is computed once
   here, with the VM's element semantics, so that `2.0 > 2.0 ? X(i) : Y(i)`
   or `min(1.25, 3.0) * X(i)` runs as the plain statement it is (the
   schedule chooses by the statement's shape, and a constant condition
   would keep it on the general path). `c ? a : a` is a whatever c is.
   A value compared with itself: `x < x` and `x > x` are false for every
   value, NaN too; for integers `x == x`, `<=` and `>=` are true and `!=`
   false (a float's are left: NaN == NaN is false).
   The accesses were recorded before, so reads folded away still bound
   ranges, as a read in an unselected branch does (SEMANTICS.md 6).
   Builtins run tc__math_f32/_f64, the bits the VM gives a lane. Integer
   arithmetic other than min and max is left to run time. */
TC__PRIVATE double tc__math_f64(tc_builtin b, const double *a);
TC__PRIVATE float tc__math_f32(tc_builtin b, const float *a);

/* Whether nodes x and y are the same operation on the same payload:
   op, dtype, operand count, constant, loop, size, builtin, tensor and
   each affine index of a read (rank dimensions, n_coef coefficients).
   Operands and non-affine indices are left to the caller. */
TC__PRIVATE int tc__ir_same_payload(const tc_ir_node *x, const tc_ir_node *y, int rank, int n_coef) {
    int d;
    if (x->op != y->op || x->dtype != y->dtype || x->nargs != y->nargs) return 0;
    switch (x->op) {
    case TC_IR_CONST: return x->ival == y->ival && memcmp(&x->fval, &y->fval, sizeof x->fval) == 0;
    case TC_IR_INDEX: return x->loop == y->loop;
    case TC_IR_SIZE: return x->sx == y->sx;
    case TC_IR_CALL: return x->builtin == y->builtin;
    case TC_IR_READ:
        if (x->tensor != y->tensor) return 0;
        for (d = 0; d < rank; d++) {
            const tc_ir_index *p = &x->index[d], *q = &y->index[d];
            if (p->affine != q->affine) return 0;
            if (p->affine && (p->offset != q->offset ||
                              (n_coef > 0 && memcmp(p->coef, q->coef, (size_t)n_coef * sizeof *p->coef))))
                return 0;
        }
        return 1;
    default: return 1;
    }
}

/* Whether nodes a and b compute the same value (structurally), within a
   budget of steps (the value is a DAG: lets are shared). */
TC__PRIVATE int tc__fold_same(const tc__sm_stmt *st, int a, int b, int *budget) {
    const tc_ir_node *x = &st->nodes[a], *y = &st->nodes[b];
    int k, d, rank;
    if (a == b) return 1;
    if (--*budget < 0) return 0;
    rank = x->op == TC_IR_READ ? st->S->t[x->tensor].rank : 0;
    if (!tc__ir_same_payload(x, y, rank, st->n_vars)) return 0;
    for (d = 0; d < rank; d++)
        if (!x->index[d].affine && !tc__fold_same(st, x->index[d].node, y->index[d].node, budget))
            return 0;
    for (k = 0; k < x->nargs; k++)
        if (!tc__fold_same(st, x->args[k], y->args[k], budget)) return 0;
    return 1;
}

/* A comparison of constants a and b of compute type t. */
TC__PRIVATE int tc__fold_compare(tc_ir_op op, const tc_ir_node *a, const tc_ir_node *b, tc_dtype t) {
    int lt, gt, eq;
    if (tc__dtype_is_float(t)) { /* NaN: every comparison false but != */
        lt = a->fval < b->fval, gt = a->fval > b->fval, eq = a->fval == b->fval;
    } else if (tc__dtype_is_signed(t)) {
        lt = a->ival < b->ival, gt = a->ival > b->ival, eq = a->ival == b->ival;
    } else {
        uint64_t u = (uint64_t)a->ival, v = (uint64_t)b->ival;
        lt = u < v, gt = u > v, eq = u == v;
    }
    switch (op) {
    case TC_IR_LT: return lt;
    case TC_IR_LE: return lt || eq;
    case TC_IR_GT: return gt;
    case TC_IR_GE: return gt || eq;
    case TC_IR_EQ: return eq;
    default: return !eq; /* TC_IR_NE */
    }
}

/* Float arithmetic on constants, rounded to t as each VM op rounds. */
TC__PRIVATE int tc__fold_float(const tc_ir_node *x, const tc_ir_node *const *a, double *out) {
    double p = a[0]->fval, q = x->nargs > 1 ? a[1]->fval : 0.0;
    float r, s = (float)p, t = (float)q; /* r: assigned, so rounded to float */
    int i, f32 = x->dtype == TC_FLOAT32;
    switch (x->op) {
    case TC_IR_ADD: r = s + t, *out = f32 ? (double)r : p + q; return 1;
    case TC_IR_SUB: r = s - t, *out = f32 ? (double)r : p - q; return 1;
    case TC_IR_MUL: r = s * t, *out = f32 ? (double)r : p * q; return 1;
    case TC_IR_DIV: r = s / t, *out = f32 ? (double)r : p / q; return 1;
    case TC_IR_NEG: *out = -p; return 1;
    case TC_IR_MIN: *out = TC__FMIN(p, q); return 1;
    case TC_IR_MAX: *out = TC__FMAX(p, q); return 1;
    case TC_IR_CALL:
        if (f32) {
            float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (i = 0; i < x->nargs; i++) v[i] = (float)a[i]->fval;
            *out = (double)tc__math_f32(x->builtin, v);
        } else {
            double v[4] = {0.0, 0.0, 0.0, 0.0};
            for (i = 0; i < x->nargs; i++) v[i] = a[i]->fval;
            *out = tc__math_f64(x->builtin, v);
        }
        return 1;
    default: return 0;
    }
}

/* Node i with its operands folded: turned into a constant in place, or
   the id of the node it equals (itself when nothing folds). */
TC__PRIVATE int tc__fold_node(tc__sm_stmt *st, int i) {
    tc_ir_node *x = &st->nodes[i];
    const tc_ir_node *a[4] = {NULL, NULL, NULL, NULL};
    int k, all = x->nargs > 0, budget = 4096;
    double f;
    for (k = 0; k < x->nargs && k < 4; k++) {
        a[k] = &st->nodes[x->args[k]];
        all &= a[k]->op == TC_IR_CONST;
    }
    switch (x->op) {
    case TC_IR_SELECT:
        if (a[0]->op == TC_IR_CONST) return x->args[a[0]->ival ? 1 : 2];
        return tc__fold_same(st, x->args[1], x->args[2], &budget) ? x->args[1] : i;
    case TC_IR_AND: case TC_IR_OR: /* a constant side decides, or drops out */
        for (k = 0; k < 2; k++)
            if (a[k]->op == TC_IR_CONST)
                return (a[k]->ival != 0) == (x->op == TC_IR_AND) ? x->args[1 - k] : x->args[k];
        return i;
    default: break;
    }
    if (x->op >= TC_IR_LT && x->op <= TC_IR_NE && !all &&
        tc__fold_same(st, x->args[0], x->args[1], &budget)) { /* a value against itself */
        int strict = x->op == TC_IR_LT || x->op == TC_IR_GT; /* false for any value, NaN too */
        if (!strict && tc__dtype_is_float(a[0]->dtype)) return i; /* NaN == NaN is false */
        x->ival = !strict && x->op != TC_IR_NE;
        x->op = TC_IR_CONST;
        x->nargs = 0;
        return i;
    }
    if (!all) return i;
    if (x->op == TC_IR_NOT) x->ival = !a[0]->ival;
    else if (x->op == TC_IR_CAST) {
        int64_t iv;
        if (!tc__sm_conv_value(a[0], x->dtype, &iv, &f)) return i;
        x->ival = iv, x->fval = f;
    }
    else if (x->op >= TC_IR_LT && x->op <= TC_IR_NE)
        x->ival = tc__fold_compare(x->op, a[0], a[1], a[0]->dtype);
    else if (tc__dtype_is_float(x->dtype) && tc__fold_float(x, a, &f)) x->fval = f;
    else if (x->op == TC_IR_MIN || x->op == TC_IR_MAX) { /* integers */
        int less = tc__fold_compare(TC_IR_LT, a[1], a[0], x->dtype);
        x->ival = (less == (x->op == TC_IR_MIN) ? a[1] : a[0])->ival;
    } else return i;
    x->op = TC_IR_CONST;
    x->nargs = 0;
    return i;
}

/* Folds the value's nodes in order (operands have lower ids). */
TC__PRIVATE int tc__lower_fold(tc__sm_stmt *st, int *value) {
    int n_all = *value + 1, i, k;
    int *repl = (int *)tc__alloc_n(st->S->C, (size_t)n_all, sizeof(int));
    int *rd = (int *)tc__alloc_n(st->S->C, (size_t)n_all, sizeof(int)); /* read entry + 1 */
    if (!repl || !rd) return 0;
    for (i = 0; i < st->n_reads; i++)
        if (st->reads[i].node < n_all) rd[st->reads[i].node] = i + 1;
    for (i = 0; i < n_all; i++) {
        tc_ir_node *x = &st->nodes[i];
        for (k = 0; k < x->nargs && k < 4; k++) x->args[k] = repl[x->args[k]];
        if (rd[i]) {
            tc__sm_readix *r = &st->reads[rd[i] - 1];
            for (k = 0; k < r->rank; k++)
                if (!r->ix[k].affine && r->ix[k].node >= 0) r->ix[k].node = repl[r->ix[k].node];
        }
        repl[i] = tc__fold_node(st, i);
    }
    *value = repl[*value];
    return 1;
}

/* Drops nodes the value does not use (the general index of a read that
   stayed affine, say) and renumbers the rest, keeping topological order. */
TC__PRIVATE int tc__lower_compact(tc__sm_stmt *st, int *value) {
    int n_all = *value + 1, i, k, n = 0;
    int *map = (int *)tc__alloc_n(st->S->C, (size_t)n_all, sizeof(int));  /* live, then new id */
    int *rd = (int *)tc__alloc_n(st->S->C, (size_t)n_all, sizeof(int));   /* read entry + 1 */
    if (!map || !rd) return 0;
    for (i = 0; i < st->n_reads; i++)
        if (st->reads[i].node < n_all) rd[st->reads[i].node] = i + 1;
    map[*value] = 1;
    for (i = *value; i >= 0; i--) { /* operands have lower ids: one backward pass */
        const tc_ir_node *x = &st->nodes[i];
        if (!map[i]) continue;
        for (k = 0; k < x->nargs; k++) map[x->args[k]] = 1;
        if (rd[i])
            for (k = 0; k < st->reads[rd[i] - 1].rank; k++)
                if (!st->reads[rd[i] - 1].ix[k].affine) map[st->reads[rd[i] - 1].ix[k].node] = 1;
    }
    for (i = 0; i < n_all; i++) map[i] = map[i] ? n++ : -1;
    for (i = 0; i < n_all; i++) {
        tc_ir_node *x = &st->nodes[i];
        if (map[i] < 0) continue;
        for (k = 0; k < x->nargs; k++) x->args[k] = map[x->args[k]];
        if (rd[i]) {
            tc__sm_readix *r = &st->reads[rd[i] - 1];
            for (k = 0; k < r->rank; k++)
                r->ix[k].node = r->ix[k].affine ? -1 : map[r->ix[k].node];
        }
        st->nodes[map[i]] = *x;
    }
    *value = map[*value];
    st->n_nodes = n;
    return 1;
}

TC__PRIVATE int tc__lower_emit(tc__sm_stmt *st, int t, int value) {
    tc__sema *S = st->S;
    const tc__stmt *s = st->st;
    tc_ir_stmt *o;
    tc_ir_loop *loops = (tc_ir_loop *)tc__alloc_n(S->C, (size_t)st->n_vars + 1, sizeof(tc_ir_loop));
    int v;
    if (!loops || !tc__grow(S->C, (void **)&S->stmts, &S->cap_stmts, S->n_stmts + 1, sizeof(tc_ir_stmt)))
        return 0;
    for (v = 0; v < st->n_vars; v++) {
        loops[v].name = st->vars[v].name;
        loops[v].lo = st->vars[v].lo;
        loops[v].hi = st->vars[v].hi;
        loops[v].reduction = st->vars[v].lhs < 0;
    }
    o = &S->stmts[S->n_stmts++];
    memset(o, 0, sizeof *o);
    o->tensor = t;
    o->reduce = s->reduce;
    o->init = s->init;
    o->n_loops = st->n_vars;
    o->loops = loops;
    o->n_nodes = st->n_nodes;
    o->nodes = st->nodes;
    o->value = value;
    o->line = s->span.line;
    o->text = tc__sm_text_dup(S, s->span);
    return o->text != NULL;
}

/* The typed value of the right-hand side (exists clauses are typed and
   give accesses, but their nodes are dropped: never evaluated). */
TC__PRIVATE tc__sm_val tc__lower_rhs(tc__sm_stmt *st, int t) {
    const tc__stmt *s = st->st;
    int i;
    for (i = 0; i < s->n_where; i++)
        if (s->where[i].kind == TC__W_EXISTS) {
            int n_nodes = st->n_nodes, n_lv = st->n_lv, n_reads = st->n_reads;
            st->in_exists = 1;
            if (tc__sm_expr(st, s->where[i].expr).node < 0) return tc__sm_fail_val();
            st->in_exists = 0;
            st->n_nodes = n_nodes;
            st->n_lv = n_lv;
            st->n_reads = n_reads;
        }
    return tc__lower_store(st, t, tc__sm_expr(st, s->rhs));
}

/* A statement may read the tensor it writes only at the element it writes
   and only without reduction indices: any other self-read would see
   partly updated values, so its result would depend on the evaluation
   order, which TC leaves open (and the VM's blocks and threads choose). */
TC__PRIVATE int tc__lower_self_reads(tc__sm_stmt *st, int t) {
    tc__sema *S = st->S;
    int i, d, v, reduces = 0;
    for (v = 0; v < st->n_vars; v++) reduces |= st->vars[v].lhs < 0;
    for (i = 0; i < st->n_reads; i++) {
        const tc_ir_node *x = &st->nodes[st->reads[i].node];
        int same = x->tensor == t && !reduces;
        if (x->tensor != t) continue;
        for (d = 0; same && d < st->reads[i].rank; d++) {
            const tc_ir_index *ix = &st->reads[i].ix[d];
            same = ix->affine && S->sx[ix->offset].op == TC_SX_CONST && S->sx[ix->offset].value == 0;
            for (v = 0; same && v < st->n_vars; v++)
                same = ix->coef[v] == (st->vars[v].lhs == d ? 1 : 0);
        }
        if (!same)
            return tc__fail(S->C, TC_ERR_UNSUPPORTED, st->reads[i].span,
                            "this statement reads %s, which it also writes, %s: the result would "
                            "depend on the evaluation order; compute the values into a temporary "
                            "first", S->t[t].name,
                            reduces ? "while reducing" : "at an element other than the one written");
    }
    return 1;
}

TC__PRIVATE int tc__lower_comprehension(tc__sema *S, tc__sm_env *E, const tc__stmt *s) {
    tc__sm_stmt st;
    tc__sm_val v;
    int t;
    memset(&st, 0, sizeof st);
    st.S = S;
    st.E = E;
    st.st = s;
    t = st.target = tc__lower_target(S, E, s->lhs, s->lhs_span);
    if (t < 0 || !tc__sm_setup_names(&st) || !tc__sm_where_ranges(&st) || !tc__sm_unused_lets(&st) ||
        !tc__lower_lhs(&st, t))
        return 0;
    v = tc__lower_rhs(&st, t);
    if (v.node < 0 || !tc__lower_lhs_access(&st, t) || !tc__range_infer(&st) ||
        !tc__range_checks(&st, S->n_stmts) || !tc__lower_self_reads(&st, t))
        return 0;
    if (!tc__lower_fold(&st, &v.node) || !tc__lower_compact(&st, &v.node) ||
        !tc__lower_emit(&st, t, v.node))
        return 0;
    return tc__lower_define(&st, t);
}

TC__PRIVATE int tc__lower_stmts(tc__sema *S, tc__sm_env *E);
TC__PRIVATE int tc__sema_prescan(tc__sema *S, tc__sm_env *E);

/* The def a call statement names: an earlier def. */
TC__PRIVATE int tc__lower_callee(tc__sema *S, tc__sm_env *E, const tc__stmt *s) {
    int i = tc__ast_def_named(S->ast, s->callee, strlen(s->callee));
    if (i >= 0 && i < E->def_index) return i;
    if (i >= 0)
        return tc__fail(S->C, TC_ERR_NAME, s->callee_span,
                        "%s is defined %s: a def can only call defs defined before it", s->callee,
                        i == E->def_index ? "by this def itself" : "later") - 1;
    return tc__fail(S->C, TC_ERR_NAME, s->callee_span, "unknown def `%s`", s->callee) - 1;
}

/* Binds the callee's size variables (and checks constant dims) from
   argument a, which is bound to the callee's input p. */
TC__PRIVATE int tc__lower_bind_dims(tc__sema *S, tc__sm_env *CE, const tc__stmt *s, int ai,
                                    int t, const tc__param *p) {
    int d;
    for (d = 0; d < p->rank; d++) {
        const tc__expr *dim = p->dims[d];
        int want, have = S->t[t].extent[d];
        char what[256], msg[512], v1[64], v2[64];
        if (dim->kind == TC__E_IDENT) {
            tc__sm_name *n = tc__sm_lookup(CE, dim->name);
            if (!n) {
                if (!tc__sm_bind(S, CE, dim->name, TC__SM_SIZE, have)) return 0;
                continue;
            }
            want = n->id;
        } else {
            want = tc__sx_const(S, dim->ival);
        }
        snprintf(what, sizeof what,
                 "call to %s at line %d: dimension %d of %s is %s, but %s (%s's %s) must be %s%s",
                 s->callee, s->span.line, d, s->args[ai], tc__sm_sxstr(S, have, v1, sizeof v1),
                 p->name, s->callee, dim->kind == TC__E_IDENT ? dim->name : "constant",
                 tc__sm_sxstr(S, want, v2, sizeof v2),
                 dim->kind == TC__E_IDENT ? ", as an earlier argument gave it" : "");
        snprintf(msg, sizeof msg, "%s: dimension %d of %s is %s, but %s needs %s", s->callee, d,
                 s->args[ai], v1, s->callee, v2);
        if (!tc__sm_check(S, TC_CHECK_EQ, have, want, -1, what, TC_ERR_SHAPE, s->arg_spans[ai], msg))
            return 0;
    }
    return 1;
}

/* Callee inputs bind to the argument tensors. */
TC__PRIVATE int tc__lower_call_args(tc__sema *S, tc__sm_env *E, tc__sm_env *CE, const tc__stmt *s) {
    const tc__def *f = CE->def;
    int i;
    for (i = 0; i < s->n_args; i++) {
        const tc__param *p = &f->inputs[i];
        tc__sm_name *n = tc__sm_lookup(E, s->args[i]);
        int t;
        if (!n || n->kind != TC__SM_TENSOR)
            return tc__fail(S->C, TC_ERR_NAME, s->arg_spans[i], "`%s` is not a tensor%s",
                            s->args[i], n ? " (it is a size variable)" : "");
        t = n->id;
        if (t < 0 || !S->ti[t].sized)
            return tc__fail(S->C, TC_ERR_NAME, s->arg_spans[i],
                            "%s is read before any statement writes it", s->args[i]);
        if (S->t[t].dtype != p->dtype)
            return tc__fail(S->C, TC_ERR_TYPE, s->arg_spans[i],
                            "argument %d of %s: %s is %s, but %s's parameter %s is %s", i + 1,
                            s->callee, s->args[i], tc_dtype_name(S->t[t].dtype), s->callee,
                            p->name, tc_dtype_name(p->dtype));
        if (S->t[t].rank != p->rank)
            return tc__fail(S->C, TC_ERR_SHAPE, s->arg_spans[i],
                            "argument %d of %s: %s has %d dimension%s, but %s's parameter %s "
                            "has %d",
                            i + 1, s->callee, s->args[i], S->t[t].rank, S->t[t].rank == 1 ? "" : "s",
                            s->callee, p->name, p->rank);
        if (!tc__sm_bind(S, CE, p->name, TC__SM_TENSOR, t) ||
            !tc__lower_bind_dims(S, CE, s, i, t, p))
            return 0;
    }
    return 1;
}

/* Callee outputs bind to the caller's result tensors. */
TC__PRIVATE int tc__lower_call_outs(tc__sema *S, tc__sm_env *E, tc__sm_env *CE, const tc__stmt *s,
                                    int *outs) {
    const tc__def *f = CE->def;
    int i, j;
    for (i = 0; i < s->n_outs; i++) {
        const tc__param *p = &f->outputs[i];
        int t;
        for (j = 0; j < s->n_args; j++)
            if (strcmp(s->args[j], s->outs[i]) == 0)
                return tc__fail(S->C, TC_ERR_NAME, s->out_spans[i],
                                "%s is both an argument and a result of this call", s->outs[i]);
        for (j = 0; j < i; j++)
            if (strcmp(s->outs[j], s->outs[i]) == 0)
                return tc__fail(S->C, TC_ERR_NAME, s->out_spans[i], "%s is written twice",
                                s->outs[i]);
        t = outs[i] = tc__lower_target(S, E, s->outs[i], s->out_spans[i]);
        if (t < 0) return 0;
        if (p->has_type && S->ti[t].typed && S->t[t].dtype != p->dtype)
            return tc__fail(S->C, TC_ERR_TYPE, s->out_spans[i], "%s holds %s, but %s returns %s",
                            s->outs[i], tc_dtype_name(S->t[t].dtype), s->callee,
                            tc_dtype_name(p->dtype));
        if (p->has_type) {
            S->t[t].dtype = p->dtype;
            S->ti[t].typed = 1;
        }
        if (!tc__sm_bind(S, CE, p->name, TC__SM_TENSOR, t)) return 0;
    }
    return 1;
}

/* The declared dims of the callee's output p, in the call's sizes. */
TC__PRIVATE void tc__lower_call_dims(tc__sema *S, tc__sm_env *CE, const tc__param *p,
                                     int *decl) {
    int d;
    for (d = 0; d < p->rank && d < TC_MAX_RANK; d++) {
        const tc__sm_name *n = p->dims[d]->kind == TC__E_IDENT
                                   ? tc__sm_lookup(CE, p->dims[d]->name) : NULL;
        decl[d] = n ? n->id : tc__sx_const(S, p->dims[d]->ival);
    }
}

/* Before inlining: a result not sized yet takes the callee's declared
   dims, which bound its first write inside the callee as they do when the
   callee is compiled alone (tc__range_declared). Returns a bit per result
   so marked, for tc__lower_call_undeclare. */
TC__PRIVATE unsigned long long tc__lower_call_declare(tc__sema *S, tc__sm_env *CE,
                                                      const tc__stmt *s, const int *outs) {
    unsigned long long marked = 0;
    int i;
    for (i = 0; i < s->n_outs; i++) {
        const tc__param *p = &CE->def->outputs[i];
        tc__sm_tensor *ti = &S->ti[outs[i]];
        if (!p->has_type || p->rank == 0 || p->rank > TC_MAX_RANK || ti->sized || ti->declared)
            continue;
        tc__lower_call_dims(S, CE, p, ti->decl);
        ti->declared = 1;
        marked |= 1ull << i;
    }
    return marked;
}
TC__PRIVATE void tc__lower_call_undeclare(tc__sema *S, const int *outs, int n,
                                          unsigned long long marked) {
    int i;
    for (i = 0; i < n; i++)
        if (marked >> i & 1) S->ti[outs[i]].declared = 0;
}

/* After inlining: the callee's declared output dims hold for the results. */
TC__PRIVATE int tc__lower_call_decl(tc__sema *S, tc__sm_env *CE, const tc__stmt *s, const int *outs) {
    int i;
    for (i = 0; i < s->n_outs; i++) {
        const tc__param *p = &CE->def->outputs[i];
        int decl[TC_MAX_RANK];
        char who[128];
        if (!p->has_type || p->rank == 0) continue;
        tc__lower_call_dims(S, CE, p, decl);
        snprintf(who, sizeof who, "result %s of the call to %s at line %d", s->outs[i], s->callee,
                 s->span.line);
        if (S->t[outs[i]].rank != p->rank)
            return tc__fail(S->C, TC_ERR_SHAPE, s->out_spans[i], "%s has %d dimensions, but %s returns %d",
                            s->outs[i], S->t[outs[i]].rank, s->callee, p->rank);
        if (!tc__lower_declared(S, outs[i], decl, who)) return 0;
    }
    return 1;
}

/* The name of a call, unique in the def being compiled, so its
   temporaries' names are too without a search: the callee's name after
   the caller's prefix, then how many times it was called before. */
TC__PRIVATE int tc__sm_call_prefix(tc__sema *S, const tc__sm_env *E, tc__sm_env *CE) {
    int cap = S->cap_calls, n;
    const char *name = CE->def->name;
    if (!tc__grow(S->C, (void **)&S->calls, &S->cap_calls, S->ast->n_defs, sizeof(int))) return 0;
    if (S->cap_calls > cap) memset(S->calls + cap, 0, sizeof(int) * (size_t)(S->cap_calls - cap));
    n = ++S->calls[CE->def_index];
    if (E->prefix && n > 1) CE->prefix = tc__strfmt(S->C, "%s.%s.%d", E->prefix, name, n);
    else if (E->prefix) CE->prefix = tc__strfmt(S->C, "%s.%s", E->prefix, name);
    else if (n > 1) CE->prefix = tc__strfmt(S->C, "%s.%d", name, n);
    else CE->prefix = name;
    return CE->prefix != NULL;
}

/* An error inside an inlined callee: every callee compiled on its own
   first, so the call's arguments caused it. It moves to the call in the
   def being compiled, and says where in the callee it arose. */
TC__PRIVATE void tc__sm_blame_call(tc__sema *S, const tc__stmt *call) {
    tc_error *e = S->C->err;
    char msg[2 * sizeof e->msg];
    if (!e || e->line <= 0 || e->code == TC_ERR_OUT_OF_MEMORY ||
        (e->offset >= call->span.offset && e->offset < call->span.offset + call->span.length))
        return;
    snprintf(msg, sizeof msg, "in the call to %.40s: %s (raised at %d:%d, inside the call)",
             call->callee, e->msg, e->line, e->col);
    memcpy(e->msg, msg, sizeof e->msg - 1); /* truncated, as every message is */
    e->msg[sizeof e->msg - 1] = '\0';
    e->line = call->span.line;
    e->col = call->span.col;
    e->offset = call->span.offset;
    e->length = call->span.length;
}

/* outs = callee(args): the callee's statements, inlined. */
TC__PRIVATE int tc__lower_call(tc__sema *S, tc__sm_env *E, const tc__stmt *s) {
    tc__sm_env CE;
    int ci = tc__lower_callee(S, E, s), ok, outs[64];
    unsigned long long marked;
    const tc__def *f;
    if (ci < 0) return 0;
    f = &S->ast->defs[ci];
    if (s->n_args != f->n_inputs || s->n_outs != f->n_outputs)
        return tc__fail(S->C, TC_ERR_TYPE, s->span, "%s takes %d input%s and returns %d; the call has %d and %d",
                        f->name, f->n_inputs, f->n_inputs == 1 ? "" : "s", f->n_outputs, s->n_args,
                        s->n_outs);
    if (s->n_outs > 64 || S->inline_depth >= 64)
        return tc__fail(S->C, TC_ERR_LIMIT, s->span, "calls nested too deeply or too many results");
    memset(&CE, 0, sizeof CE);
    CE.def = f;
    CE.def_index = ci;
    if (!tc__sm_call_prefix(S, E, &CE)) return 0;
    if (!CE.prefix || !tc__lower_call_args(S, E, &CE, s) || !tc__lower_call_outs(S, E, &CE, s, outs) ||
        !tc__sema_prescan(S, &CE))
        return 0;
    marked = tc__lower_call_declare(S, &CE, s, outs);
    S->inline_depth++;
    ok = tc__lower_stmts(S, &CE);
    S->inline_depth--;
    tc__lower_call_undeclare(S, outs, s->n_outs, marked);
    if (!ok && !S->inline_depth) tc__sm_blame_call(S, s);
    return ok && tc__lower_call_decl(S, &CE, s, outs);
}

TC__PRIVATE int tc__lower_stmts(tc__sema *S, tc__sm_env *E) {
    int i;
    for (i = 0; i < E->def->n_stmts; i++) {
        const tc__stmt *s = &E->def->stmts[i];
        if (S->n_stmts >= TC__SM_MAX_STMTS)
            return tc__fail(S->C, TC_ERR_LIMIT, s->span, "more than %d statements after inlining calls",
                            TC__SM_MAX_STMTS);
        if (!(s->is_call ? tc__lower_call(S, E, s) : tc__lower_comprehension(S, E, s))) return 0;
    }
    return 1;
}

/* Names written by a body that are not parameters: its temporaries. */
TC__PRIVATE int tc__sema_prescan_name(tc__sema *S, tc__sm_env *E, const char *name, tc__span sp) {
    tc__sm_name *n = tc__sm_lookup(E, name);
    if (n && n->kind == TC__SM_SIZE)
        return tc__fail(S->C, TC_ERR_NAME, sp, "`%s` is a size variable and cannot be written", name);
    if (n) return 1;
    return tc__sm_check_reserved(S, name, sp) && tc__sm_bind(S, E, name, TC__SM_TENSOR, -1);
}
TC__PRIVATE int tc__sema_prescan(tc__sema *S, tc__sm_env *E) {
    int i, j;
    for (i = 0; i < E->def->n_stmts; i++) {
        const tc__stmt *s = &E->def->stmts[i];
        if (!s->is_call && !tc__sema_prescan_name(S, E, s->lhs, s->lhs_span)) return 0;
        for (j = 0; s->is_call && j < s->n_outs; j++)
            if (!tc__sema_prescan_name(S, E, s->outs[j], s->out_spans[j])) return 0;
    }
    return 1;
}

/* Parameter names: distinct, not reserved; one tensor each. */
TC__PRIVATE int tc__sema_param_name(tc__sema *S, tc__sm_env *E, const tc__param *p,
                                    tc_tensor_kind kind) {
    tc__sm_name *n = tc__sm_lookup(E, p->name);
    int t;
    if (n)
        return tc__fail(S->C, TC_ERR_NAME, p->name_span, "`%s` is %s", p->name,
                        kind == TC_TENSOR_OUTPUT && S->t[n->id].kind == TC_TENSOR_INPUT
                            ? "both an input and an output" : "declared twice");
    if (!tc__sm_check_reserved(S, p->name, p->name_span)) return 0;
    if (p->has_type && p->rank > TC_MAX_RANK)
        return tc__fail(S->C, TC_ERR_LIMIT, p->span, "%s has more than %d dimensions", p->name,
                        TC_MAX_RANK);
    t = tc__sm_new_tensor(S, p->name, kind, p->span);
    if (t < 0 || !tc__sm_bind(S, E, p->name, TC__SM_TENSOR, t)) return 0;
    if (p->has_type) {
        S->t[t].dtype = p->dtype;
        S->t[t].rank = p->rank;
        S->ti[t].typed = 1;
    }
    return 1;
}

/* The sx of a dimension in a parameter type; inputs introduce size
   variables, outputs may only use them. */
TC__PRIVATE int tc__sema_param_dim(tc__sema *S, tc__sm_env *E, const tc__param *p, int d, int input) {
    const tc__expr *e = p->dims[d];
    tc__sm_name *n;
    int id;
    if (e->kind == TC__E_INT) return tc__sm_size_int(S, e);
    if (e->kind != TC__E_IDENT)
        return tc__fail(S->C, TC_ERR_SYNTAX, e->span, "a dimension must be a size variable or an integer") - 1;
    n = tc__sm_lookup(E, e->name);
    if (n && n->kind == TC__SM_SIZE) return n->id;
    if (n)
        return tc__fail(S->C, TC_ERR_NAME, e->span, "`%s` names a tensor and cannot be a size variable",
                        e->name) - 1;
    if (!input)
        return tc__fail(S->C, TC_ERR_NAME, e->span,
                        "size variable %s of output %s appears in no input type, so nothing binds it",
                        e->name, p->name) - 1;
    if (!tc__sm_check_reserved(S, e->name, e->span) ||
        !tc__grow(S->C, (void **)&S->sizevars, &S->cap_sizevars, S->n_sizevars + 1, sizeof(char *)))
        return -1;
    id = tc__sx_raw(S, TC_SX_VAR, 0, 0, S->n_sizevars);
    S->sizevars[S->n_sizevars++] = e->name;
    return id >= 0 && tc__sm_bind(S, E, e->name, TC__SM_SIZE, id) ? id : -1;
}

TC__PRIVATE int tc__sema_params(tc__sema *S, tc__sm_env *E, const tc__def *f) {
    int i, d;
    for (i = 0; i < f->n_inputs; i++)
        if (!tc__sema_param_name(S, E, &f->inputs[i], TC_TENSOR_INPUT)) return 0;
    for (i = 0; i < f->n_outputs; i++)
        if (!tc__sema_param_name(S, E, &f->outputs[i], TC_TENSOR_OUTPUT)) return 0;
    S->n_inputs = f->n_inputs;
    S->n_outputs = f->n_outputs;
    for (i = 0; i < f->n_inputs + f->n_outputs; i++) {
        int input = i < f->n_inputs;
        const tc__param *p = input ? &f->inputs[i] : &f->outputs[i - f->n_inputs];
        if (!p->has_type) continue;
        for (d = 0; d < p->rank; d++) {
            int x = tc__sema_param_dim(S, E, p, d, input);
            if (x < 0) return 0;
            if (input) {
                S->t[i].extent[d] = x;
                S->t[i].min[d] = tc__sx_const(S, 0);
            } else {
                S->ti[i].decl[d] = x;
            }
        }
        if (input) S->ti[i].sized = S->ti[i].written = 1;
        else S->ti[i].declared = 1;
    }
    return !S->C->failed;
}

TC__PRIVATE int tc__sema_outputs_written(tc__sema *S) {
    int i;
    for (i = S->n_inputs; i < S->n_inputs + S->n_outputs; i++)
        if (!S->ti[i].written)
            return tc__fail(S->C, TC_ERR_NAME, S->ti[i].span, "output %s is never written",
                            S->t[i].name);
    return 1;
}

/* A tensor whose extents are all constants must fit, as every tensor must
   at run time (tc__vm_check_extents): refused here, at its declaration,
   rather than by every run. */
TC__PRIVATE int tc__sema_const_sizes(tc__sema *S) {
    int i, d;
    for (i = 0; i < S->n_t; i++) {
        const tc_ir_tensor *t = &S->t[i];
        int64_t total = (int64_t)tc_dtype_size(t->dtype), e;
        char dims[TC_MAX_RANK * 24] = "";
        size_t n = 0;
        int fits = 1;
        for (d = 0; d < t->rank && tc__sx_isconst(S, t->extent[d], &e) && e >= 0; d++) {
            n += (size_t)snprintf(dims + n, sizeof dims - n, "%s%lld", d ? " x " : "", (long long)e);
            if (fits && !tc__bytes_times(&total, e)) fits = 0;
        }
        if (d == t->rank && !fits)
            return tc__fail(S->C, TC_ERR_LIMIT, S->ti[i].span,
                            "%s is too large: %s %s values overflow 64-bit sizes", t->name, dims,
                            tc_dtype_name(t->dtype));
    }
    return 1;
}

TC__PRIVATE void tc__sema_fill(const tc__sema *S, const tc__def *f, tc_ir_def *out) {
    memset(out, 0, sizeof *out);
    out->name = f->name;
    out->n_inputs = S->n_inputs;
    out->n_outputs = S->n_outputs;
    out->n_tensors = S->n_t;
    out->tensors = S->t;
    out->n_sizevars = S->n_sizevars;
    out->sizevars = S->sizevars;
    out->n_sx = S->n_sx;
    out->sx = S->sx;
    out->n_stmts = S->n_stmts;
    out->stmts = S->stmts;
    out->n_checks = S->n_checks;
    out->checks = S->checks;
    out->line = f->span.line;
}

/* Checks def number `def`, inlines its calls, infers ranges and fills
   *out (everything in C's arena). 1, or 0 after tc__fail. */
TC__PRIVATE int tc__frontend_def(tc__ctx *C, const tc__ast *ast, int def, tc_ir_def *out) {
    tc__sema S;
    tc__sm_env E;
    const tc__def *f = &ast->defs[def];
    int i;
    if (C->failed) return 0;
    memset(&S, 0, sizeof S);
    memset(&E, 0, sizeof E);
    S.C = C;
    S.ast = ast;
    E.def = f;
    E.def_index = def;
    i = tc__ast_def_named(ast, f->name, strlen(f->name));
    if (i >= 0 && i < def)
        return tc__fail(C, TC_ERR_NAME, f->name_span, "def %s is defined twice (first at line %d)",
                        f->name, ast->defs[i].span.line);
    if (!tc__sm_check_reserved(&S, f->name, f->name_span) || !tc__sema_params(&S, &E, f) || !tc__sema_prescan(&S, &E) || !tc__lower_stmts(&S, &E) ||
        !tc__sema_outputs_written(&S) || !tc__sema_const_sizes(&S))
        return 0;
    tc__sema_fill(&S, f, out);
    return 1;
}
/* ==== [tc:math] Scalar and block math for builtins ======================== */
TC__VECTORIZE_BEGIN
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
#define TC__MATH_LN2 0.69314718055994530942

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

/* lgamma(2 + z) for |z| <= 3/4 (with nearer2) or lgamma(1 + z) for
   |z| <= 1/4: the Taylor series at 2, (1 - g) z + sum_{k >= 2} (-1)^k
   (zeta(k) - 1) / k z^k, and at 1, -g z + sum_{k >= 2} (-1)^k zeta(k) / k
   z^k (g: Euler's gamma; the neglected terms are below 1e-21). They keep
   their relative accuracy at lgamma's zeros, 1 and 2, where log|Gamma|
   loses every digit, and need no difference of two logarithms. */
TC__PRIVATE double tc__math_lgamma_series(double z, int at2) {
    static const double c2[44] = { /* k = 2 .. 45 */
        0.3224670334241132, -0.0673523010531981, 0.020580808427784546,
        -0.007385551028673986, 0.0028905103307415234, -0.001192753911703261,
        0.0005096695247430425, -0.00022315475845357939, 9.945751278180853e-05,
        -4.492623673813314e-05, 2.050721277567069e-05, -9.439488275268397e-06,
        4.374866789907488e-06, -2.039215753801366e-06, 9.55141213040742e-07,
        -4.492469198764566e-07, 2.1207184805554665e-07, -1.0043224823968099e-07,
        4.7698101693639804e-08, -2.2711094608943164e-08, 1.0838659214896955e-08,
        -5.183475041970047e-09, 2.4836745438024785e-09, -1.1921401405860912e-09,
        5.731367241678862e-10, -2.7595228851242334e-10, 1.330476437424449e-10,
        -6.4229645638381e-11, 3.1044247747322276e-11, -1.5021384080754142e-11,
        7.275974480239079e-12, -3.527742476575915e-12, 1.711991790559618e-12,
        -8.315385841420285e-13, 4.04220052528944e-13, -1.9664756310966165e-13,
        9.573630387838556e-14, -4.6640760264283744e-14, 2.2737369600659724e-14,
        -1.1091399470834522e-14, 5.413659156725363e-15, -2.643880017860995e-15,
        1.2918959062789966e-15, -6.315935504198448e-16};
    static const double c1[30] = { /* k = 2 .. 31 */
        0.8224670334241132, -0.40068563438653143, 0.27058080842778454,
        -0.20738555102867398, 0.1695571769974082, -0.1440498967688461,
        0.12550966952474304, -0.11133426586956469, 0.1000994575127818,
        -0.09095401714582904, 0.083353840546109, -0.0769325164113522,
        0.07143294629536133, -0.06666870588242046, 0.06250095514121304,
        -0.058823978658684585, 0.055555767627403614, -0.05263167937961666,
        0.05000004769810169, -0.047619070330142226, 0.04545455629320467,
        -0.04347826605304026, 0.04166666915034121, -0.04000000119214014,
        0.03846153903467518, -0.037037037312989324, 0.035714285847333355,
        -0.034482758684919304, 0.03333333336437758, -0.03225806453115042};
    const double *c = at2 ? c2 : c1;
    double s = 0.0;
    int k;
    if (z == 0.0) return 0.0; /* lgamma(1) = lgamma(2) = +0 (C99 F.9.5.4), not z * g = -0 */
    for (k = at2 ? 43 : 29; k >= 0; k--) s = s * z + c[k];
    return z * ((at2 ? 0.42278433509846713 : -0.5772156649015329) + z * s);
}

/* log|Gamma(x)| without glibc's lgamma, which writes the global `signgam`
   (a data race when programs run on several threads). In [0.5, 2.5) the
   series at 1 or 2 (tc__math_lgamma_series; below 0.75 that of x + 1,
   less log x, which adds); below 2^-60 -log|x|
   (Gamma(x) = 1/x - g + O(x), and Gamma overflows below 2^-1024);
   elsewhere below 170 log|Gamma|, Gamma being accurate to an ulp or so
   there; above, the Stirling series, exact to double precision; below
   -100 the reflection. */
TC__PRIVATE double tc__math_lgamma(double x) {
    double z, series;
    if (x != x) return x;
    if (x == HUGE_VAL || x == -HUGE_VAL) return HUGE_VAL;
    if (x <= 0.0 && floor(x) == x) return HUGE_VAL; /* poles */
    if (fabs(x) < 8.6736173798840355e-19) return -log(fabs(x)); /* 2^-60 */
    if (x >= 0.5 && x < 0.75) return tc__math_lgamma_series(x - 1.0, 1) - log(x); /* lgamma(x + 1) - log x */
    if (x >= 0.75 && x < 1.25) return tc__math_lgamma_series(x - 1.0, 0);
    if (x >= 1.25 && x < 2.5) return tc__math_lgamma_series(x - 2.0, 1);
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
    double P0, Q0, P1, Q1, c = cos(x), s = sin(x);
    double amp = 0.79788456080286535588 / sqrt(x); /* sqrt(2 / (pi x)); pi x overflows past 5.7e307 */
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
    double t = 0.25 * x * x, half = 0.5 * x, term0 = 1.0, term1 = 1.0;
    double lg = half + half == x ? log(half) : log(x) - TC__MATH_LN2; /* x / 2 rounds for some subnormals */
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
    if (ax == (double)INFINITY) return which == 1 ? copysign(0.0, x) : 0.0; /* j1 is odd */
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
        /* t = x^2 / 4 rounds by a relative e, and the term of t^k carries
           it k times: sum k term_k, times e, puts that back (x = 27: 11 ulp
           -> 2) */
        double xx = x * x, e = xx > 0.0 ? fma(x, x, -xx) / xx : 0.0;
        double t = 0.25 * xx, term = nu ? 0.5 * ax : 1.0, kterms = 0.0;
        r = term;
        for (k = 1; k < 200; k++) {
            term *= t / ((double)k * (double)(k + nu));
            r += term;
            kterms += (double)k * term;
            if (term < 1e-17 * r) break;
        }
        r += e * kterms;
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
        r = h * (h / (2.5066282746310002 * sqrt(ax)) * s); /* sqrt(2 pi): 2 pi x may overflow */
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

/* x^(-1/3): 1 / cbrt(x) (two roundings, and libm's cbrt is not always
   within an ulp: 5.2 ulp seen) and one Newton step, y += y (1 - x y^3) / 3,
   its residual 1 - x y^3 taken with y^3 kept exactly as q + r (fma): about
   half an ulp. Zeros, infinities and NaN as 1 / cbrt. */
TC__PRIVATE double tc__math_rcbrt(double x) {
    double y = 1.0 / cbrt(x), p, pe, q, qe, res;
    if (!(fabs(x) > 0.0) || fabs(x) == (double)INFINITY) return y;
    if (fabs(x) < 1e-270) return ldexp(tc__math_rcbrt(ldexp(x, 900)), 300); /* y^3 would overflow: */
    if (fabs(x) > 1e270) return ldexp(tc__math_rcbrt(ldexp(x, -900)), -300); /* scale exactly */
    p = y * y;
    pe = fma(y, y, -p);                /* y^2 = p + pe */
    q = p * y;
    qe = fma(p, y, -q) + pe * y;       /* y^3 = q + qe */
    res = fma(-x, q, 1.0) - x * qe;    /* 1 - x y^3 */
    return fma(y, res / 3.0, y);
}

/* sqrt(sum a_i^2) over n <= 4 values, or with recip its reciprocal
   (rhypot, rnorm3d), without overflow or underflow: scale by a power of
   two (exact) taken from the largest magnitude, and scale back once (so a
   reciprocal of a huge norm rounds once to a subnormal, not to 0). An
   infinite argument gives +inf (0) even beside a nan (as hypot does). */
TC__PRIVATE double tc__math_norm(const double *a, int n, int recip) {
    double m = 0.0, s = 0.0;
    int i, e, has_nan = 0;
    for (i = 0; i < n; i++) {
        double v = fabs(a[i]);
        if (v == (double)INFINITY) return recip ? 0.0 : v;
        if (v != v) has_nan = 1;
        else if (v > m) m = v;
    }
    if (has_nan) return (double)NAN;
    if (m == 0.0) return recip ? (double)INFINITY : 0.0;
    (void)frexp(m, &e);
    for (i = 0; i < n; i++) {
        double v = ldexp(a[i], -e);
        s += v * v;
    }
    return recip ? ldexp(1.0 / sqrt(s), -e) : ldexp(sqrt(s), e);
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
/* the float64 block kernels (below): a lane alone gets the bits it gets
   in a block (the same compiled code) */
TC__MATH_BLOCK_FN void tc__math_block_exp_d(double *dst, const double *a, int n);
TC__MATH_BLOCK_FN void tc__math_block_tanh_d(double *dst, const double *a, int n);
TC__MATH_INLINE double tc__math_f64_by_block(void (*block)(double *, const double *, int), double x) {
    double y;
    block(&y, &x, 1);
    return y;
}
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
    case TC_BUILTIN_EXP: return tc__math_f64_by_block(tc__math_block_exp_d, x);
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
    case TC_BUILTIN_NORMCDFINV: return 0.0 - TC__MATH_SQRT2 * tc__math_erfcinv(2.0 * x); /* +0 at 0.5 */
    case TC_BUILTIN_RCBRT: return tc__math_rcbrt(x);
    case TC_BUILTIN_ROUND: return round(x);
    case TC_BUILTIN_RSQRT: return 1.0 / sqrt(x);
    case TC_BUILTIN_SIN: return sin(x);
    case TC_BUILTIN_SINH: return sinh(x);
    case TC_BUILTIN_SINPI: return tc__math_sinpi_cospi(x, 0);
    case TC_BUILTIN_SQRT: return sqrt(x);
    case TC_BUILTIN_TAN: return tan(x);
    case TC_BUILTIN_TANH: return tc__math_f64_by_block(tc__math_block_tanh_d, x);
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
    case TC_BUILTIN_RHYPOT: return tc__math_norm(a, 2, 1);
    case TC_BUILTIN_FMA: return fma(x, a[1], a[2]);
    case TC_BUILTIN_NORM3D: return tc__math_norm(a, 3, 0);
    case TC_BUILTIN_RNORM3D: return tc__math_norm(a, 3, 1);
    case TC_BUILTIN_NORM4D: return tc__math_norm(a, 4, 0);
    case TC_BUILTIN_RNORM4D: return tc__math_norm(a, 4, 1);
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
TC__MATH_INLINE uint64_t tc__math_selu64(int c, uint64_t a, uint64_t b) {
    uint64_t m = 0u - (uint64_t)c;
    return (a & m) | (b & ~m);
}
/* a * b + c, fused where the target has a fast fma (then compilers emit
   and vectorize the instruction), else two roundings. Kernels are within
   their stated bounds either way; each build gives fixed bits. TC_FAST_FMA
   overrides the detection (tests force the fma kernels with libm's fma). */
#ifndef TC_FAST_FMA
#if defined(FP_FAST_FMAF) || defined(__FMA__) || defined(__ARM_FEATURE_FMA)
#define TC_FAST_FMA 1
#else
#define TC_FAST_FMA 0
#endif
#endif
#if TC_FAST_FMA
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

/* exp on a block whose lanes all lie in [-80, 80] (tc__math_block_exp):
   k is in [-116, 116] and the result normal, so no clamp is needed and one
   power-of-two factor gives exactly the bits of tc__math_exp_lane's two. */
#define TC__MATH_EXP_SHORT_MAX 80.0f
TC__MATH_INLINE float tc__math_exp_short_lane(float x) {
    uint32_t kb;
    float kf, r = tc__math_exp_reduce(x, &kb, &kf);
    return (1.0f + tc__math_expm1_poly(r)) * tc__math_u2f((kb - 129u) << 23); /* 2^(kb - 256) */
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

/* tanh on a = |x|, x's sign put back (odd: -0 stays -0, nan stays nan).
   One odd polynomial T(v) = v + v^3 P(v^2) ~ tanh(v) (minimax degree 4 in
   v^2 on |v| < 0.625, 0.07 ulp) serves both sides. a < 0.625: T(a). Else
   a = w - k ln2/2 (|w| <= ln2/4, k = round(-2a/ln2) <= -2), so that with
   s = 2^k and t = T(w), e^-2a = s (1 - t) / (1 + t) and
       tanh(a) = 1 - 2c/d,  c = s (1 - t),  d = (1 + t) + c.
   2c/d < 0.45 there, so the roundings of c, d and of the one division
   reach the result damped, and nothing cancels; below 0.625, c = 0 and
   the same final fma returns T(a). a is clamped to 10 (tanh rounds to 1
   from 9.01; k >= -29) by an integer min on the bits, which maps nan to
   10 too; nan is not big, though, so w = a carries it through T.
   Max error 2 ulp (measured 1.52). */
TC__MATH_INLINE float tc__math_tanh_lane(float x) {
    uint32_t ua = tc__math_f2u(x) & 0x7fffffffu;
    float a = tc__math_u2f(ua), ac = tc__math_u2f(ua < 0x41200000u ? ua : 0x41200000u);
    int big = a >= 0.625f;
    float kt = TC__MATH_FMAF(ac, -2.0f * TC__MATH_LOG2E, TC__MATH_SHIFTER + 127.0f); /* k + 127 */
    float kf = tc__math_sel(big, kt - (TC__MATH_SHIFTER + 127.0f), 0.0f);
    float w = TC__MATH_FMAF(kf, 0.346573591f, tc__math_sel(big, ac, a)), z = w * w; /* ln2/2 */
    float s = tc__math_u2f(tc__math_f2u(kt) << 23), c, d, y; /* 2^k */
    float t = TC__MATH_FMAF(w * z, tc__math_poly4(z, -0.333332807f, 0.133314416f, -0.0537397154f,
                                                  0.0206390861f, -0.0057049864f), w);
    c = tc__math_sel(big, TC__MATH_FMAF(-s, t, s), 0.0f);
    d = (1.0f + t) + c;
    y = TC__MATH_FMAF(-2.0f, c / d, tc__math_sel(big, 1.0f, t)); /* small: t - 0 */
    return tc__math_u2f(tc__math_f2u(y) | (tc__math_f2u(x) & 0x80000000u));
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
/* Plain stores, also where the statement's output streams: a builtin's
   arithmetic between the lines kept streaming stores from overlapping it
   (tanh(a * x + b) and log(a * x + 3) over 16M lanes, one thread and two:
   each chunk's line stored plainly measured faster than streamed as it was
   computed; fabs alike either way), though the plain stores read each
   line first. */
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

/* exp(a[i] op s), op TC_OP_ADD or _SUB with a lane-uniform s (or
   TC_OP_COUNT: exp(a[i])), the argument rounded first as its own
   instruction would (softmax's exp(x - max) in one pass; no product, so
   nothing for the compiler to contract into an fma). The short lane
   function runs first, keeping each lane's largest |argument| as bits
   (NaN's exceed them all); a block that strays past [-80, 80] is done
   again on the full one: the same bits either way. In place, the range is
   checked before. */
#define TC__MATH_EXP_OF(LANE, ARG, KEEP)                                                           \
    for (i = 0; i < n; i += TC__MATH_CHUNK) {                                                      \
        float pad[TC__MATH_CHUNK], y[TC__MATH_CHUNK];                                              \
        int m = n - i < TC__MATH_CHUNK ? n - i : TC__MATH_CHUNK;                                   \
        const float *x = tc__math_chunk_src(pad, a, i, m);                                         \
        for (j = 0; j < TC__MATH_CHUNK; j++) {                                                     \
            float v = ARG(x[j]);                                                                   \
            KEEP;                                                                                  \
            y[j] = LANE(v);                                                                        \
        }                                                                                          \
        tc__math_chunk_store(dst + i, y, m);                                                       \
    }
#define TC__MATH_EXP_KEEP                                                                          \
    do {                                                                                           \
        uint32_t u = tc__math_f2u(v) & 0x7fffffffu;                                                \
        mag[j] = u > mag[j] ? u : mag[j];                                                          \
    } while (0)
#define TC__MATH_EXP_RUN(ARG)                                                                      \
    do {                                                                                           \
        if (dst == a) { /* a is overwritten: check first */                                        \
            for (i = 0; i < n; i++) {                                                              \
                uint32_t u = tc__math_f2u(ARG(a[i])) & 0x7fffffffu;                                \
                worst = u > worst ? u : worst;                                                     \
            }                                                                                      \
            if (worst <= lim) TC__MATH_EXP_OF(tc__math_exp_short_lane, ARG, (void)0)               \
            else TC__MATH_EXP_OF(tc__math_exp_lane, ARG, (void)0)                                  \
            break;                                                                                 \
        }                                                                                          \
        TC__MATH_EXP_OF(tc__math_exp_short_lane, ARG, TC__MATH_EXP_KEEP)                           \
        for (j = 0; j < TC__MATH_CHUNK; j++) worst = mag[j] > worst ? mag[j] : worst;              \
        /* padded lanes count too: at worst a needless second pass */                              \
        if (worst > lim) TC__MATH_EXP_OF(tc__math_exp_lane, ARG, (void)0)                          \
    } while (0)
#define TC__MATH_EXP_SUB(v) ((v) - s)
#define TC__MATH_EXP_ADD(v) ((v) + s)
#define TC__MATH_EXP_ID(v) (v)
TC__MATH_BLOCK_FN void tc__math_block_exp_of(float *dst, const float *a, int op, float s, int n) {
    uint32_t mag[TC__MATH_CHUNK] = {0}, worst = 0, lim = tc__math_f2u(TC__MATH_EXP_SHORT_MAX);
    int i, j;
    switch (op) {
    case TC_OP_SUB: TC__MATH_EXP_RUN(TC__MATH_EXP_SUB); break;
    case TC_OP_ADD: TC__MATH_EXP_RUN(TC__MATH_EXP_ADD); break;
    default: TC__MATH_EXP_RUN(TC__MATH_EXP_ID); break;
    }
}
#undef TC__MATH_EXP_OF
#undef TC__MATH_EXP_KEEP
#undef TC__MATH_EXP_RUN
#undef TC__MATH_EXP_SUB
#undef TC__MATH_EXP_ADD
#undef TC__MATH_EXP_ID
/* The builtins whose vector kernel is a lane function, one argument or
   two: TC_BUILTIN_<B> runs tc__math_block_<f>, made from tc__math_<f>_lane
   (tc__math_block_fast_f32 dispatches from this list too). CHUNK: in
   chunks of TC__MATH_CHUNK lanes, the last one padded, so that every lane
   runs the same vector code in a block of any length; EXACT: results
   exact (or one correctly rounded operation), the same bits from any
   code, so a plain loop over the lanes, without the chunks' copies through
   local arrays, which cost more than such a lane's work. exp (above),
   sqrt, sin and cos (below) have kernels of their own. */
#define TC__MATH_CHUNKED1(X)                                                                      \
    X(EXP2, exp2, CHUNK) X(EXP10, exp10, CHUNK) X(EXPM1, expm1, CHUNK) X(LOG, log, CHUNK)           \
    X(LOG2, log2, CHUNK) X(LOG10, log10, CHUNK) X(LOG1P, log1p, CHUNK) X(TANH, tanh, CHUNK)         \
    X(ERF, erf, CHUNK) X(RSQRT, rsqrt, CHUNK) X(TRUNC, trunc, EXACT) X(FLOOR, floor, EXACT)         \
    X(CEIL, ceil, EXACT) X(ROUND, round, EXACT) X(FABS, fabs, EXACT)
#define TC__MATH_CHUNKED2(X)                                                                      \
    X(FMIN, fmin, EXACT) X(FMAX, fmax, EXACT) X(COPYSIGN, copysign, EXACT) X(FDIM, fdim, EXACT)     \
    X(FDIVIDE, div, EXACT)
#define TC__MATH_BLOCK1_EXACT(name, lane)                                                         \
    TC__MATH_BLOCK_FN void name(float *dst, const float *a, int n) {                              \
        int i;                                                                                    \
        for (i = 0; i < n; i++) dst[i] = lane(a[i]);                                              \
    }
#define TC__MATH_BLOCK2_EXACT(name, lane)                                                         \
    TC__MATH_BLOCK_FN void name(float *dst, const float *a, const float *b, int n) {              \
        int i;                                                                                    \
        for (i = 0; i < n; i++) dst[i] = lane(a[i], b[i]);                                        \
    }
#define TC__MATH_BLOCK1_CHUNK TC__MATH_BLOCK1
#define TC__MATH_BLOCK2_CHUNK TC__MATH_BLOCK2
#define TC__MATH_DEF1(B, f, K) TC__MATH_BLOCK1_##K(tc__math_block_##f, tc__math_##f##_lane)
#define TC__MATH_DEF2(B, f, K) TC__MATH_BLOCK2_##K(tc__math_block_##f, tc__math_##f##_lane)
TC__MATH_CHUNKED1(TC__MATH_DEF1)
TC__MATH_CHUNKED2(TC__MATH_DEF2)
#undef TC__MATH_DEF1
#undef TC__MATH_DEF2
#undef TC__MATH_BLOCK1_EXACT
#undef TC__MATH_BLOCK2_EXACT
#undef TC__MATH_BLOCK1_CHUNK
#undef TC__MATH_BLOCK2_CHUNK

/* sqrt: the vector instruction where the target has one, else libm's
   sqrtf, which compilers inline as the scalar instruction but, for errno,
   do not vectorize (sqrt(a * x + 3) over 16M lanes, one thread, measured
   much slower that way). Both are correctly rounded, and both give the same
   nan for x < 0. A branch-free double-precision Newton kernel with an
   exact midpoint fix-up measured slower than the scalar instruction
   even with AVX-512. */
TC__MATH_INLINE void tc__math_sqrt_chunk(float *y, const float *x) {
#if defined(TC__HAVE_STREAM) && TC__HAVE_STREAM == 64
    _mm512_storeu_ps(y, _mm512_sqrt_ps(_mm512_loadu_ps(x)));
#elif defined(TC__HAVE_STREAM)
    int j;
    for (j = 0; j < TC__MATH_CHUNK; j += 4) _mm_storeu_ps(y + j, _mm_sqrt_ps(_mm_loadu_ps(x + j)));
#else
    int j;
    for (j = 0; j < TC__MATH_CHUNK; j++) y[j] = sqrtf(x[j]);
#endif
}
TC__MATH_BLOCK_FN void tc__math_block_sqrt(float *dst, const float *a, int n) {
    int i;
    for (i = 0; i < n; i += TC__MATH_CHUNK) {
        float pad[TC__MATH_CHUNK], y[TC__MATH_CHUNK];
        int m = n - i < TC__MATH_CHUNK ? n - i : TC__MATH_CHUNK;
        tc__math_sqrt_chunk(y, tc__math_chunk_src(pad, a, i, m));
        tc__math_chunk_store(dst + i, y, m);
    }
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
    case TC_BUILTIN_EXP: tc__math_block_exp_of(dst, a0, TC_OP_COUNT, 0.0f, n); return 1;
#define TC__MATH_CASE1(B, f, K) case TC_BUILTIN_##B: tc__math_block_##f(dst, a0, n); return 1;
#define TC__MATH_CASE2(B, f, K) case TC_BUILTIN_##B: tc__math_block_##f(dst, a0, a1, n); return 1;
        TC__MATH_CHUNKED1(TC__MATH_CASE1)
        TC__MATH_CHUNKED2(TC__MATH_CASE2)
#undef TC__MATH_CASE1
#undef TC__MATH_CASE2
    case TC_BUILTIN_SIN: tc__math_block_sincos(dst, a0, n, 0); return 1;
    case TC_BUILTIN_COS: tc__math_block_sincos(dst, a0, n, 1); return 1;
    case TC_BUILTIN_SQRT: tc__math_block_sqrt(dst, a0, n); return 1;
    default: return 0;
    }
}

/* fma(a, b, c) over a block: C99's one rounding, lane by lane, in a loop
   the compiler turns into vector fused multiply-adds where the target has
   them (a libm call per lane where it has not). Through tc__math_f32_libm
   each lane took a switch and a call. */
TC__MATH_BLOCK_FN void tc__math_block_fma_f32(float *dst, const float *a, const float *b,
                                               const float *c, int n) {
    int i;
    for (i = 0; i < n; i++) dst[i] = fmaf(a[i], b[i], c[i]);
}
TC__MATH_BLOCK_FN void tc__math_block_fma_f64(double *dst, const double *a, const double *b,
                                               const double *c, int n) {
    int i;
    for (i = 0; i < n; i++) dst[i] = fma(a[i], b[i], c[i]);
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

/* n lanes of builtin b. */
TC__PRIVATE void tc__math_block_f32(tc_builtin b, float *dst, const float *a0, const float *a1,
                                    const float *a2, const float *a3, int n) {
    int i;
    float a[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (tc__math_block_fast_f32(b, dst, a0, a1, n)) return;
    if (b == TC_BUILTIN_FMA && a1 && a2) {
        tc__math_block_fma_f32(dst, a0, a1, a2, n);
        return;
    }
    for (i = 0; i < n; i++) {
        a[0] = a0[i];
        if (a1) a[1] = a1[i];
        if (a2) a[2] = a2[i];
        if (a3) a[3] = a3[i];
        dst[i] = tc__math_f32_libm(b, a);
    }
}

/* Doubles: libm per lane (the common unary ones without the dispatch). */
/* ---- float64 exp and tanh over blocks --------------------------------------
   Branch-free like the float kernels, so that a block vectorizes (libm's
   exp and tanh are a call per lane): exp within 1 ulp, tanh within 2
   (measured 0.96 and 1.77, against long double); a lane gets the same
   bits in a block of any length and alone (tc__math_f64 runs the block
   kernel on it), so results never depend on how lanes are split.

   exp: x = k ln2 + r, |r| <= 0.347 (ln2 in two parts, the high one with
   32 trailing zero bits: k * hi is exact), e^r - 1 by its Taylor series
   (tc__math_expm1_taylor_d), then
   2^k as two normal power-of-two factors (p * 2^k1 exact, one rounding
   after: subnormal results round once). x is clamped to [-746, 710]
   (e^-746 rounds to 0, e^710 to inf); nan passes the clamp. */
#define TC__MATH_SHIFTER_D 6755399441055744.0 /* 1.5 * 2^52 */
TC__MATH_INLINE double tc__math_clampd(double x, double lo, double hi) {
    uint64_t b = tc__math_selu64(x > hi, tc__math_d2u(hi), tc__math_d2u(x));
    return tc__math_u2d(tc__math_selu64(x < lo, tc__math_d2u(lo), b));
}
/* e^r - 1 by its Taylor series to r^18: r + r^2 (1/2! + r (1/3! + ...)),
   Horner, the coefficients 1/n! rounded to double. For r < 1.1 (tanh) the
   first term left out is below 2^-54 of the result; for exp's |r| <= 0.35
   the terms past r^13 are below its rounding, but one series serves both. */
TC__MATH_INLINE double tc__math_expm1_taylor_d(double r) {
    double c = 1.5619206968586225e-16; /* 1/18! */
    c = TC__MATH_FMA(c, r, 2.8114572543455206e-15);
    c = TC__MATH_FMA(c, r, 4.779477332387385e-14);
    c = TC__MATH_FMA(c, r, 7.647163731819816e-13);
    c = TC__MATH_FMA(c, r, 1.1470745597729725e-11);
    c = TC__MATH_FMA(c, r, 1.6059043836821613e-10);
    c = TC__MATH_FMA(c, r, 2.08767569878681e-09);
    c = TC__MATH_FMA(c, r, 2.505210838544172e-08);
    c = TC__MATH_FMA(c, r, 2.755731922398589e-07);
    c = TC__MATH_FMA(c, r, 2.7557319223985893e-06);
    c = TC__MATH_FMA(c, r, 2.48015873015873e-05);
    c = TC__MATH_FMA(c, r, 0.0001984126984126984);
    c = TC__MATH_FMA(c, r, 0.001388888888888889);
    c = TC__MATH_FMA(c, r, 0.008333333333333333);
    c = TC__MATH_FMA(c, r, 0.041666666666666664);
    c = TC__MATH_FMA(c, r, 0.16666666666666666);
    c = TC__MATH_FMA(c, r, 0.5);
    return TC__MATH_FMA(r * r, c, r);
}
TC__MATH_INLINE double tc__math_exp_lane_d(double x) {
    double xc = tc__math_clampd(x, -746.0, 710.0);
    double t = xc * 1.4426950408889634 + TC__MATH_SHIFTER_D, kf = t - TC__MATH_SHIFTER_D;
    double r = (xc - kf * 6.93147180369123816490e-01) - kf * 1.90821492927058770002e-10;
    uint64_t kb = tc__math_d2u(t) - tc__math_d2u(TC__MATH_SHIFTER_D) + 2048u, k1b = kb >> 1;
    double p = 1.0 + tc__math_expm1_taylor_d(r);
    return p * tc__math_u2d((k1b - 1u) << 52) * tc__math_u2d((kb - k1b - 1u) << 52);
}
/* tanh(x) = sign(x) tanh(a), a = |x| clamped to 20 (tanh rounds to 1
   from 19.1), y = 2a: below a = 0.55, e / (e + 2) with e = e^y - 1 by
   its Taylor series (tc__math_expm1_taylor_d), the quotient corrected once for the rounding of e + 2
   (its residual by fma); above, 1 - 2 / (e^y + 1), where 2 / (e^y + 1) <= 0.5 so
   the subtraction adds at most one rounding. Signed zeros and nan pass
   through. */
TC__MATH_INLINE double tc__math_tanh_lane_d(double x) {
    uint64_t sign = tc__math_d2u(x) & 0x8000000000000000u;
    double a = tc__math_u2d(tc__math_d2u(x) & 0x7fffffffffffffffu);
    double y = 2.0 * tc__math_clampd(a, 0.0, 20.0);
    double big = 1.0 - 2.0 / (tc__math_exp_lane_d(y) + 1.0), e = tc__math_expm1_taylor_d(y);
    double d = e + 2.0, dlo = e - (d - 2.0), q = e / d; /* d + dlo = e + 2 exactly (e <= 2) */
    double small = q + (TC__MATH_FMA(-q, d, e) - q * dlo) / d; /* the rounding of e + 2 undone */
    double t = tc__math_u2d(tc__math_selu64(y < 1.1, tc__math_d2u(small), tc__math_d2u(big)));
    return tc__math_u2d(tc__math_d2u(t) | sign);
}
#define TC__MATH_BLOCK_D(name, lane)                                            \
    TC__MATH_BLOCK_FN void name(double *dst, const double *a, int n) {          \
        int i, j;                                                               \
        for (i = 0; i < n; i += TC__MATH_CHUNK) {                               \
            double pad[TC__MATH_CHUNK], y[TC__MATH_CHUNK];                      \
            const double *x = a + i;                                            \
            int m = n - i < TC__MATH_CHUNK ? n - i : TC__MATH_CHUNK;            \
            if (m < TC__MATH_CHUNK) {                                           \
                memset(pad, 0, sizeof pad);                                     \
                memcpy(pad, a + i, sizeof(double) * (size_t)m);                 \
                x = pad;                                                        \
            }                                                                   \
            for (j = 0; j < TC__MATH_CHUNK; j++) y[j] = lane(x[j]);             \
            memcpy(dst + i, y, sizeof(double) * (size_t)m);                     \
        }                                                                       \
    }
TC__MATH_INLINE double tc__math_fabs_lane_d(double x) {
    return tc__math_u2d(tc__math_d2u(x) & 0x7fffffffffffffffu);
}
/* exact, the same bits from any code: a plain loop, as the float32 table's
   EXACT builtins (the chunks' copies through local arrays cost more than
   the lane's work) */
TC__MATH_BLOCK_FN void tc__math_block_fabs_d(double *dst, const double *a, int n) {
    int i;
    for (i = 0; i < n; i++) dst[i] = tc__math_fabs_lane_d(a[i]);
}
TC__MATH_BLOCK_D(tc__math_block_exp_d, tc__math_exp_lane_d)
TC__MATH_BLOCK_D(tc__math_block_tanh_d, tc__math_tanh_lane_d)
#undef TC__MATH_BLOCK_D
/* sqrt without libm's errno path (a call per lane otherwise): the
   instruction, correctly rounded as sqrt is. */
TC__MATH_BLOCK_FN void tc__math_block_sqrt_d(double *dst, const double *a, int n) {
    int i = 0;
#if defined(TC__HAVE_STREAM) && TC__HAVE_STREAM == 64
    for (; i + 8 <= n; i += 8) _mm512_storeu_pd(dst + i, _mm512_sqrt_pd(_mm512_loadu_pd(a + i)));
#elif defined(TC__HAVE_STREAM)
    for (; i + 2 <= n; i += 2) _mm_storeu_pd(dst + i, _mm_sqrt_pd(_mm_loadu_pd(a + i)));
#endif
    for (; i < n; i++) dst[i] = sqrt(a[i]);
}

#define TC__MATH_LOOP_F64(fn)                                                   \
    for (i = 0; i < n; i++) dst[i] = fn(a0[i]);                                 \
    return

TC__PRIVATE void tc__math_block_f64(tc_builtin b, double *dst, const double *a0, const double *a1,
                                    const double *a2, const double *a3, int n) {
    int i;
    double a[4] = {0.0, 0.0, 0.0, 0.0};
    if (b == TC_BUILTIN_FMA && a1 && a2) {
        tc__math_block_fma_f64(dst, a0, a1, a2, n);
        return;
    }
    switch (b) {
    case TC_BUILTIN_EXP: tc__math_block_exp_d(dst, a0, n); return;
    case TC_BUILTIN_LOG: TC__MATH_LOOP_F64(log);
    case TC_BUILTIN_TANH: tc__math_block_tanh_d(dst, a0, n); return;
    case TC_BUILTIN_SQRT: tc__math_block_sqrt_d(dst, a0, n); return;
    case TC_BUILTIN_FABS: tc__math_block_fabs_d(dst, a0, n); return;
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

/* x rounded to the nearest float16 value (ties to even), kept as a float:
   tc__round_half's values, bit for bit, a nan quieted as its conversion to
   double and back does (every float pattern checked against GCC's
   _Float16). tc__math_float_to_half_lane's steps without the half's bits
   in between (which compilers would not vectorize): the normal range's
   bias rounds the 23-bit fraction to 10 bits; below 2^-14, adding 0.5
   rounds in the hardware at 2^-24, and the bits above 0.5's count the
   quanta. */
TC__MATH_INLINE float tc__math_round_half_lane(float x) {
    uint32_t u = tc__math_f2u(x), sign = u & 0x80000000u, a = u & 0x7fffffffu;
    uint32_t normal = (a + 0xfffu + ((a >> 13) & 1u)) & ~(uint32_t)0x1fffu;
    uint32_t quanta = tc__math_f2u(tc__math_u2f(a) + 0.5f) - 0x3f000000u;
    uint32_t sub = tc__math_f2u((float)(int32_t)quanta * 5.9604644775390625e-8f); /* 2^-24 */
    uint32_t r = tc__math_selu(a < 0x38800000u, sub, normal);   /* below 2^-14 */
    r = tc__math_selu(a >= 0x477ff000u, 0x7f800000u, r);        /* from 65520: inf */
    r = tc__math_selu(a > 0x7f800000u, a | 0x00400000u, r);     /* nan: quiet */
    return tc__math_u2f(sign | r);
}

/* The same for a double, rounded once (through float it could round twice),
   with 2^28 for 0.5 (its spacing is 2^-24); a nan stays itself. 400 million
   random and near-tie patterns matched tc__round_half and _Float16. */
TC__MATH_INLINE double tc__math_round_half_f64_lane(double x) {
    uint64_t u = tc__math_d2u(x), sign = u & 0x8000000000000000u, a = u & 0x7fffffffffffffffu;
    uint64_t normal = (a + 0x1ffffffffffu + ((a >> 42) & 1u)) & ~(uint64_t)0x3ffffffffffu;
    uint64_t quanta = tc__math_d2u(tc__math_u2d(a) + 268435456.0) - 0x41b0000000000000u; /* 2^28 */
    uint64_t sub = tc__math_d2u((double)(int64_t)quanta * 5.9604644775390625e-08);      /* 2^-24 */
    uint64_t r = tc__math_selu64(a < 0x3f10000000000000u, sub, normal);            /* below 2^-14 */
    r = tc__math_selu64(a >= 0x40effe0000000000u, 0x7ff0000000000000u, r);         /* from 65520 */
    return tc__math_u2d(tc__math_selu64(a > 0x7ff0000000000000u, u, sign | r));   /* nan: itself */
}

TC__MATH_BLOCK1(tc__round_half_block, tc__math_round_half_lane)
TC__MATH_BLOCK_FN void tc__round_half_block_f64(double *dst, const double *src, int n) {
    int i, j;
    for (i = 0; i < n; i += TC__MATH_CHUNK) {
        double x[TC__MATH_CHUNK], y[TC__MATH_CHUNK];
        int m = n - i < TC__MATH_CHUNK ? n - i : TC__MATH_CHUNK;
        memset(x, 0, sizeof x);
        memcpy(x, src + i, sizeof(double) * (size_t)m);
        for (j = 0; j < TC__MATH_CHUNK; j++) y[j] = tc__math_round_half_f64_lane(x[j]);
        memcpy(dst + i, y, sizeof(double) * (size_t)m);
    }
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
/* ==== [tc:contract] Packed contraction engine ===============================
   Runs statements of the form

       T(output loops) +=[!] X(affine) * Y(affine)          (all float32)

   (matmul, batched matmul, matrix-vector, tensordot, convolution as an
   implicit im2col) with one of three paths, chosen from the sizes:
     GEMM  in the GotoBLAS/BLIS way: panels of X and Y are packed from
           their general affine maps into contiguous buffers and a
           register-blocked micro-kernel computes TC__CT_MR x TC__CT_NR
           tiles of T (lanes along N);
     GEMV  no loop private to Y (matrix-vector, dot products): rows of X,
           contiguous along K, are dotted with Y a few at a time;
     row   no loop private to X and N contiguous in Y and T (vector-matrix):
           whole rows of Y are streamed into sums kept in L1.

   Loop classes. Every loop of the statement is one of
     batch  an output loop used by both X and Y, or by neither;
     M      an output loop used by X only;
     N      an output loop used by Y only (X and Y are swapped at run time
            so that N holds the loop with T's smallest stride: the lanes);
     K      a reduction loop, used by both X and Y.
   A class may hold several loops (conv2d: K = (c,kh,kw), N = (n,h,w)); a
   loop may appear in several dimensions of one tensor (strides add up).
   Anything else is declined: other reductions, other value expressions,
   casts, float16/float64/integer tensors, gathers, T read on the right,
   a reduction loop missing from X or Y, no reduction loop at all.

   Interface for the VM (all TC__PRIVATE):
     compile time, size independent:
       tc__contract_match(C, def, stmt, &plan)     1: plan (in C's arena,
                                                   lives with the program);
                                                   0: not a contraction
     run time, once per plan of concrete sizes (allocates nothing):
       tc__contract_prepare(plan, sx, strides0, strides1, strides_t, assign,
                            &shape)                1: ready; 0: declined
                                                   (run the generic path)
       tc__contract_tasks(&shape)                  number of tasks
       tc__contract_keep(&shape)                   1: a thread keeps a GEMM group's
                                                   packed panels between calls
                                                   (call before sizing scratch)
       tc__contract_share(&shape, max_items)       or 1: threads share the GEMM
                                                   panels, items one at a time
                                                   (see "Shared panels"; also
                                                   before sizing scratch)
       tc__contract_scratch_size(&shape)           scratch bytes per thread
       tc__contract_shared_size(&shape)            bytes of the shared region
     per run, from any threads (disjoint ranges):
       tc__contract_run_tasks(&shape, &args, first, last, scratch, &kept)
     or, sharing: tc__contract_share_reset(&shape, region) once, then
       tc__contract_run_item(&shape, &args, item, region, scratch, &cur)
       for items [0, shape.items), each claimed by one thread, in increasing
       order
   strides0/strides1 are the element strides of plan->tensor[0] and [1]
   (the MUL's operands in order), strides_t those of T = plan->tensor[2];
   args holds the same three tensors' data pointers. For example:

       tc__contract_prepare(c, P->sx, P->ts[c->tensor[0]], P->ts[c->tensor[1]],
                            P->ts[c->tensor[2]], assign, &sh);
       a.in0 = P->ptr[c->tensor[0]]; a.in1 = P->ptr[c->tensor[1]];
       a.out = P->ptr[c->tensor[2]];
       each thread: tc__contract_run_tasks(&sh, &a, first, last, its_scratch, NULL);

   Initialisation (`!`): the engine only accumulates, T += sum, unless the
   VM passes assign = 1 to prepare: then each element of the domain is
   written as 0 + sum, bitwise what zero-filling T first and accumulating
   gives. The VM may pass assign = 1 only for a `+=!` statement whose output
   loops cover every element of T (then it skips the fill); otherwise it
   fills T with 0 itself and passes assign = 0.

   Determinism. The number of tasks and every block size are functions of
   the sizes only, never of the thread count. A task owns a set of output
   elements and sums each of them completely: GEMM and row sums run k
   blocks in order, each block in k order from +0 (one FMA per k), and add
   each block's sum to T; GEMV sums keep 16 lanes of partial sums (lane
   k % 16) added in a fixed tree at the end. (With shared panels, a task's
   k blocks are separate items, which may run on different threads; each
   waits for the one before.) So results do not depend on how tasks are
   distributed or grouped, and within one build every path
   (full tiles, edge tiles through a buffer, copied or gathered packing,
   vector or scalar tails) performs the same operations per element. The
   order differs from the generic VM's, so results differ from it by
   rounding only.

   Grouping. Tasks are numbered batch-major, then N block, then M block:
   runs of shape.nm consecutive tasks share a packed panel of Y within one
   tc__contract_run_tasks call. A pool should hand each thread contiguous
   ranges of several tasks (e.g. split [0, tasks) into equal parts), not
   one task at a time, or every task packs its own panel. Or, where
   tc__contract_keep says yes, a thread keeps the panels of the group it
   ran last in its scratch, named by its `kept` (-1 before its first call
   in a run: the inputs may have changed), and tasks may go one at a time.
   kept is NULL otherwise. Or, where tc__contract_share says yes, the
   threads pack each panel once between them and take items one at a time
   (see "Shared panels", after tc__contract_run_tasks).

   Bounds. The engine reads X and Y where the statement's loops say and
   checks nothing; the VM proves these affine reads in bounds for the
   domain (or fails the run) before calling it. */

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TC__CT_UNROLL _Pragma("GCC unroll 16")
#else
#define TC__CT_UNROLL
#endif

/* Micro-kernel tile: MR rows of M by NR lanes of N (NR = 16 * NV with
   AVX-512, 8 * NV with AVX2). */
#if defined(__AVX512F__)
#define TC__CT_MR 8
#define TC__CT_NV 2
#define TC__CT_NR 32
#elif defined(__AVX2__) && defined(__FMA__)
#define TC__CT_MR 6
#define TC__CT_NV 2
#define TC__CT_NR 16
#else
#define TC__CT_MR 4
#define TC__CT_NR 16
#endif

/* One multiply-add per k, the same way on every path of a build. */
#if defined(__FMA__) || defined(__AVX512F__)
#define TC__CT_FMA(a, b, c) fmaf(a, b, c)
#else
#define TC__CT_FMA(a, b, c) ((a) * (b) + (c))
#endif

/* Blocking. The packed Y panel (KC x NC floats) stays in L2 while an X
   sliver (MR x KC) stays in L1; see tc__ct_macro. */
#define TC__CT_MAX_DIMS 8     /* loops per class */
#define TC__CT_KC 256         /* largest k block */
#define TC__CT_NC 1024        /* largest N block */
#define TC__CT_MC 256         /* largest M block of one task */
#define TC__CT_MIN_TASKS 8    /* split M (then N) until there are this many tasks */
#define TC__CT_GV_W 16        /* GEMV: lanes of partial sums per row */
#define TC__CT_GV_RG 4        /* GEMV: rows streamed together */
#define TC__CT_GV_KC 2048     /* GEMV and row: k chunk (a multiple of TC__CT_GV_W) */
#define TC__CT_GV_ROWS 32     /* GEMV: rows per task (at most; a multiple of GV_RG) */
#define TC__CT_ROW_LANES 1024 /* row: lanes per task (their sums stay in L1) */
#define TC__CT_RING 3         /* shared panels: k blocks' panels held at once */
#define TC__CT_PIECES 8       /* shared panels: pack items per panel, at most */
#define TC__CT_ALIGN 64

typedef enum tc__ct_role { TC__CT_BATCH, TC__CT_XONLY, TC__CT_YONLY, TC__CT_RED } tc__ct_role;

/* Compile-time plan: which reads, and the class of every loop. */
typedef struct tc__contract {
    int stmt;
    const tc_ir_stmt *st;
    int tensor[3]; /* the MUL's first read, its second read, T */
    int rank[3];
    const tc_ir_index *index[2]; /* affine maps of the two reads */
    unsigned char *role;         /* per loop: tc__ct_role (XONLY: first read only) */
} tc__contract;

/* A class of loops for concrete sizes: dims outermost first, element
   strides in X, Y and T (0 where a tensor does not use the dim). */
typedef struct tc__ct_class {
    int n;
    int64_t total; /* product of the extents (1 when n == 0) */
    int64_t ext[TC__CT_MAX_DIMS];
    int64_t sx[TC__CT_MAX_DIMS], sy[TC__CT_MAX_DIMS], st[TC__CT_MAX_DIMS];
} tc__ct_class;

/* Run-time descriptor: what one plan of sizes needs. Plain data. */
typedef struct tc__contract_shape {
    tc__ct_class batch, m, n, k;
    int64_t x0, y0, t0; /* element offsets of the first iteration */
    int swapped;        /* X is the MUL's second read */
    int gemv;           /* no N loop: rows of X dotted with Y */
    int row;            /* one row (no M loop), N contiguous in Y and T: axpy rows of Y */
    int assign;         /* write 0 + sum instead of adding (see the header) */
    int keep;           /* GEMM: a thread keeps a group's panels, every k block
                           (tc__contract_keep) */
    int share;          /* GEMM: threads share the panels, items one at a time
                           (tc__contract_share) */
    int64_t stages, pieces, items; /* share: groups x k blocks; pack pieces per stage;
                           items in all, pieces and tasks (tc__ct_item) */
    int64_t kc, nk;     /* k block and count */
    int64_t nc, nn;     /* N block and count */
    int64_t mc, nm;     /* M block (per task) and count */
    int64_t tasks;
    size_t scratch;
} tc__contract_shape;

/* Per run: the data of the two reads (the MUL's operands in order) and of
   the written tensor. Element (i0, i1, ...) of a tensor is at
   data + sum(i_d * stride_d), with the strides given to prepare. */
typedef struct tc__contract_args {
    const void *in0, *in1;
    void *out;
} tc__contract_args;

/* ---- Matching (compile time) ---------------------------------------------- */

TC__PRIVATE int tc__ct_uses_loop(const tc_ir_index *ix, int rank, int l) {
    int d;
    for (d = 0; d < rank; d++)
        if (ix[d].coef[l] != 0) return 1;
    return 0;
}

/* A float32 READ with every dimension affine, of a tensor other than T. */
TC__PRIVATE int tc__ct_plain_read(const tc_ir_def *d, const tc_ir_stmt *st, int node) {
    const tc_ir_node *n = &st->nodes[node];
    int i;
    if (n->op != TC_IR_READ || n->dtype != TC_FLOAT32) return 0;
    if (n->tensor == st->tensor || d->tensors[n->tensor].dtype != TC_FLOAT32) return 0;
    for (i = 0; i < d->tensors[n->tensor].rank; i++)
        if (!n->index[i].affine) return 0;
    return 1;
}

/* Classifies every loop; 0 when a loop fits no class. */
TC__PRIVATE int tc__ct_classify(const tc__contract *c, const tc_ir_stmt *st) {
    int l, count[4] = {0, 0, 0, 0};
    for (l = 0; l < st->n_loops; l++) {
        int in0 = tc__ct_uses_loop(c->index[0], c->rank[0], l);
        int in1 = tc__ct_uses_loop(c->index[1], c->rank[1], l);
        tc__ct_role r;
        if (st->loops[l].reduction) {
            if (!in0 || !in1) return 0; /* a sum over a broadcast: not a GEMM */
            r = TC__CT_RED;
        } else {
            r = in0 == in1 ? TC__CT_BATCH : in0 ? TC__CT_XONLY : TC__CT_YONLY;
        }
        if (++count[r] > TC__CT_MAX_DIMS) return 0;
        c->role[l] = (unsigned char)r;
    }
    return count[TC__CT_RED] > 0; /* products without a sum are the VM's element-wise work */
}

/* Returns 1 and an arena plan when statement `stmt` of d is a float32
   contraction T(...) +=[!] X(affine) * Y(affine); 0 otherwise (not an error;
   also 0 when the arena is exhausted, which sets C->failed). */
TC__PRIVATE int tc__contract_match(tc__ctx *C, const tc_ir_def *d, int stmt, tc__contract **out) {
    const tc_ir_stmt *st;
    const tc_ir_node *v;
    tc__contract *c;
    int i;
    *out = NULL;
    if (stmt < 0 || stmt >= d->n_stmts) return 0;
    st = &d->stmts[stmt];
    if (st->reduce != TC_REDUCE_SUM || d->tensors[st->tensor].dtype != TC_FLOAT32) return 0;
    if (st->n_loops < d->tensors[st->tensor].rank) return 0;
    v = &st->nodes[st->value];
    if (v->op != TC_IR_MUL || v->dtype != TC_FLOAT32 || v->nargs != 2) return 0;
    if (!tc__ct_plain_read(d, st, v->args[0]) || !tc__ct_plain_read(d, st, v->args[1])) return 0;
    c = (tc__contract *)tc__alloc(C, sizeof *c);
    if (!c) return 0;
    c->role = (unsigned char *)tc__alloc(C, (size_t)st->n_loops + 1);
    if (!c->role) return 0;
    c->stmt = stmt;
    c->st = st;
    for (i = 0; i < 2; i++) {
        const tc_ir_node *r = &st->nodes[v->args[i]];
        c->tensor[i] = r->tensor;
        c->rank[i] = d->tensors[r->tensor].rank;
        c->index[i] = r->index;
    }
    c->tensor[2] = st->tensor;
    c->rank[2] = d->tensors[st->tensor].rank;
    if (!tc__ct_classify(c, st)) return 0;
    *out = c;
    return 1;
}

/* ---- Shapes (run time, per plan) ------------------------------------------ */

/* Element stride of loop l through a read's affine dims; 0 on overflow. */
TC__PRIVATE int tc__ct_loop_stride(const tc_ir_index *ix, int rank, const int64_t *strides, int l,
                                   int64_t *out) {
    int d;
    *out = 0;
    for (d = 0; d < rank; d++) {
        int64_t p;
        if (!tc__mul64(ix[d].coef[l], strides[d], &p) || !tc__add64(*out, p, out)) return 0;
    }
    return 1;
}

/* Offset of a read at the sx offsets of its dims (loops at 0). */
TC__PRIVATE int tc__ct_read_base(const tc_ir_index *ix, int rank, const int64_t *strides,
                                 const int64_t *sx, int64_t *out) {
    int d;
    *out = 0;
    for (d = 0; d < rank; d++) {
        int64_t p;
        if (!tc__mul64(sx[ix[d].offset], strides[d], &p) || !tc__add64(*out, p, out)) return 0;
    }
    return 1;
}

TC__PRIVATE void tc__ct_class_push(tc__ct_class *k, int64_t ext, int64_t sx, int64_t sy,
                                   int64_t st) {
    int i = k->n++;
    k->ext[i] = ext;
    k->sx[i] = sx;
    k->sy[i] = sy;
    k->st[i] = st;
}

/* Merges neighbouring dims that walk every tensor as one (outer stride =
   inner extent * inner stride), so contiguous runs show as one dim. */
TC__PRIVATE void tc__ct_class_merge(tc__ct_class *k) {
    int i, j = 0;
    for (i = 1; i < k->n; i++) {
        int64_t e = k->ext[i];
        if (k->sx[j] == e * k->sx[i] && k->sy[j] == e * k->sy[i] && k->st[j] == e * k->st[i]) {
            k->ext[j] *= e;
            k->sx[j] = k->sx[i];
            k->sy[j] = k->sy[i];
            k->st[j] = k->st[i];
        } else {
            j++;
            k->ext[j] = k->ext[i];
            k->sx[j] = k->sx[i];
            k->sy[j] = k->sy[i];
            k->st[j] = k->st[i];
        }
    }
    if (k->n > 0) k->n = j + 1;
}

TC__PRIVATE int tc__ct_class_total(tc__ct_class *k) {
    int i;
    k->total = 1;
    for (i = 0; i < k->n; i++)
        if (!tc__mul64(k->total, k->ext[i], &k->total)) return 0;
    return 1;
}

TC__PRIVATE int64_t tc__ct_abs64(int64_t v) { return v < 0 ? -v : v; }
TC__PRIVATE int64_t tc__ct_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
TC__PRIVATE int64_t tc__ct_roundup(int64_t a, int64_t b) { return tc__ct_cdiv(a, b) * b; }

/* Per-loop strides of the two reads and T, and the offsets at the loops'
   lower bounds. Fills s[l][0..2] and x0/y0/t0 (before any swap). */
TC__PRIVATE int tc__ct_strides(const tc__contract *c, const int64_t *sx, const int64_t *const *ts,
                               int64_t (*s)[3], int64_t *lo, int64_t *ext, tc__contract_shape *sh) {
    const tc_ir_stmt *st = c->st;
    int64_t base[3];
    int l, i, ok = 1;
    ok &= tc__ct_read_base(c->index[0], c->rank[0], ts[0], sx, &base[0]);
    ok &= tc__ct_read_base(c->index[1], c->rank[1], ts[1], sx, &base[1]);
    base[2] = 0;
    for (l = 0; l < st->n_loops && ok; l++) {
        lo[l] = sx[st->loops[l].lo];
        ext[l] = sx[st->loops[l].hi] > lo[l] ? sx[st->loops[l].hi] - lo[l] : 0;
        ok &= tc__ct_loop_stride(c->index[0], c->rank[0], ts[0], l, &s[l][0]);
        ok &= tc__ct_loop_stride(c->index[1], c->rank[1], ts[1], l, &s[l][1]);
        s[l][2] = l < c->rank[2] ? ts[2][l] : 0;
        for (i = 0; i < 3 && ok; i++) {
            int64_t p;
            ok &= tc__mul64(lo[l], s[l][i], &p) && tc__add64(base[i], p, &base[i]);
        }
    }
    sh->x0 = base[0];
    sh->y0 = base[1];
    sh->t0 = base[2];
    return ok;
}

/* Smallest |stride| in read r over the loops of role `role` (extent > 1);
   INT64_MAX when there is none. */
TC__PRIVATE int64_t tc__ct_min_stride(const tc__contract *c, int64_t (*s)[3], const int64_t *ext,
                                      int role, int r) {
    int64_t best = INT64_MAX;
    int l;
    for (l = 0; l < c->st->n_loops; l++)
        if (ext[l] > 1 && c->role[l] == role && tc__ct_abs64(s[l][r]) < best)
            best = tc__ct_abs64(s[l][r]);
    return best;
}

/* Decides the X/Y order and the path. With loops private to both reads: a
   GEMM whose N holds the loop where T has the smallest stride (the lanes).
   With loops private to one read only (a matrix times a vector): GEMV when
   the matrix runs along K at least as tightly as along its private loops,
   else one row of a GEMM (prepare picks the row path when it can). */
TC__PRIVATE void tc__ct_pick_path(const tc__contract *c, int64_t (*s)[3], const int64_t *ext,
                                  tc__contract_shape *sh) {
    int64_t p0 = tc__ct_min_stride(c, s, ext, TC__CT_XONLY, 0);
    int64_t p1 = tc__ct_min_stride(c, s, ext, TC__CT_YONLY, 1);
    if (p0 != INT64_MAX && p1 != INT64_MAX) {
        int64_t t0 = tc__ct_min_stride(c, s, ext, TC__CT_XONLY, 2);
        int64_t t1 = tc__ct_min_stride(c, s, ext, TC__CT_YONLY, 2);
        sh->swapped = t0 < t1;
        sh->gemv = 0;
    } else if (p0 == INT64_MAX && p1 == INT64_MAX) {
        sh->swapped = 0;
        sh->gemv = 1;
    } else {
        int mat = p0 != INT64_MAX ? 0 : 1; /* the read with the private loops */
        int64_t kstride = tc__ct_min_stride(c, s, ext, TC__CT_RED, mat);
        sh->gemv = kstride <= (mat == 0 ? p0 : p1);
        /* GEMV: X is the matrix; GEMM with one row: Y is the matrix. */
        sh->swapped = sh->gemv ? mat == 1 : mat == 0;
    }
}

/* Adds the loops of the statement to the classes, reads ordered as X, Y. */
TC__PRIVATE void tc__ct_fill_classes(const tc__contract *c, int64_t (*s)[3], const int64_t *ext,
                                     tc__contract_shape *sh) {
    int l, x = sh->swapped ? 1 : 0, y = 1 - x;
    for (l = 0; l < c->st->n_loops; l++) {
        tc__ct_class *k;
        if (ext[l] == 1) continue; /* only its lower bound matters: in the base offsets */
        switch (c->role[l]) {
        case TC__CT_XONLY: k = sh->swapped ? &sh->n : &sh->m; break;
        case TC__CT_YONLY: k = sh->swapped ? &sh->m : &sh->n; break;
        case TC__CT_RED: k = &sh->k; break;
        default: k = &sh->batch; break;
        }
        tc__ct_class_push(k, ext[l], s[l][x], s[l][y], s[l][2]);
    }
    if (sh->swapped) {
        int64_t t = sh->x0;
        sh->x0 = sh->y0;
        sh->y0 = t;
    }
    tc__ct_class_merge(&sh->batch);
    tc__ct_class_merge(&sh->m);
    tc__ct_class_merge(&sh->n);
    tc__ct_class_merge(&sh->k);
}

/* Scratch regions, carved at 64-byte boundaries from one buffer. */
typedef struct tc__ct_work {
    float *apack;         /* GEMM: packed X block, slivers of MR rows; GEMV: gathered rows */
    float *bpack;         /* GEMM: packed Y panel, strips of NR lanes; GEMV: gathered vector */
    float *tile;          /* GEMM: an MR x NR tile for edges and scattered stores */
    int64_t *kx, *ky;     /* per k of the block: offsets in X and Y */
    int64_t *mx, *mt;     /* per row of the M block: offsets in X and T */
    int64_t *ny, *nt;     /* per lane of the N block: offsets in Y and T */
    unsigned char *yrun;  /* per lane: length of the run from it, within its strip, of lanes
                             equally spaced in Y (a strided conv's rows: step 2) */
    unsigned char *tunit; /* per strip: T's offsets run contiguously */
} tc__ct_work;

TC__PRIVATE size_t tc__ct_carve(size_t *at, size_t bytes) {
    size_t p = *at;
    *at += (bytes + TC__CT_ALIGN - 1) / TC__CT_ALIGN * TC__CT_ALIGN;
    return p;
}

/* Lays the regions out from base (NULL: only sizes them); returns bytes.
   A path's unused regions get no room. */
TC__PRIVATE size_t tc__ct_layout(const tc__contract_shape *sh, unsigned char *base,
                                 tc__ct_work *w) {
    size_t at = 0, kc = (size_t)sh->kc, mc = (size_t)sh->mc, nc = (size_t)sh->nc;
    size_t gemm = !sh->gemv && !sh->row, rows = sh->row ? 0 : sh->gemv ? TC__CT_GV_RG : mc;
    size_t strips = gemm ? nc / TC__CT_NR + 1 : 0, cols = gemm ? nc : 0;
    size_t panels = sh->share ? 0 : sh->keep ? (size_t)sh->nk : 1; /* Y panels held at once */
    size_t o[11];
    o[0] = tc__ct_carve(&at, rows * kc * sizeof(float));
    o[1] = tc__ct_carve(&at, (sh->row ? 0 : sh->gemv ? kc : nc * kc * panels) * sizeof(float));
    o[2] = tc__ct_carve(&at, gemm * TC__CT_MR * TC__CT_NR * sizeof(float));
    o[3] = tc__ct_carve(&at, kc * sizeof(int64_t) + 8);
    o[4] = tc__ct_carve(&at, kc * sizeof(int64_t) + 8);
    o[5] = tc__ct_carve(&at, (sh->row ? 0 : mc) * sizeof(int64_t) + 8);
    o[6] = tc__ct_carve(&at, (sh->row ? 0 : mc) * sizeof(int64_t) + 8);
    o[7] = tc__ct_carve(&at, cols * sizeof(int64_t) + 8);
    o[8] = tc__ct_carve(&at, cols * sizeof(int64_t) + 8);
    o[9] = tc__ct_carve(&at, strips * TC__CT_NR);
    o[10] = tc__ct_carve(&at, strips);
    if (base) {
        w->apack = (float *)(void *)(base + o[0]);
        w->bpack = (float *)(void *)(base + o[1]);
        w->tile = (float *)(void *)(base + o[2]);
        w->kx = (int64_t *)(void *)(base + o[3]);
        w->ky = (int64_t *)(void *)(base + o[4]);
        w->mx = (int64_t *)(void *)(base + o[5]);
        w->mt = (int64_t *)(void *)(base + o[6]);
        w->ny = (int64_t *)(void *)(base + o[7]);
        w->nt = (int64_t *)(void *)(base + o[8]);
        w->yrun = base + o[9];
        w->tunit = base + o[10];
    }
    return at + TC__CT_ALIGN; /* room to align the caller's pointer */
}

/* Shrinks the M block (else the N block) until there are enough tasks to
   share out, keeping blocks at least two micro-tiles wide. */
TC__PRIVATE void tc__ct_split_more(tc__contract_shape *sh, int64_t M, int64_t N) {
    while (sh->batch.total * sh->nm * sh->nn < TC__CT_MIN_TASKS) {
        int64_t mc = tc__ct_roundup(tc__ct_cdiv(M, sh->nm + 1), TC__CT_MR);
        int64_t nc = tc__ct_roundup(tc__ct_cdiv(N, sh->nn + 1), TC__CT_NR);
        if (mc < sh->mc && mc >= 2 * TC__CT_MR) {
            sh->mc = mc;
            sh->nm = tc__ct_cdiv(M, mc);
        } else if (nc < sh->nc && nc >= 2 * TC__CT_NR) {
            sh->nc = nc;
            sh->nn = tc__ct_cdiv(N, nc);
        } else {
            break;
        }
    }
}

/* Block sizes and task counts: functions of the sizes only. */
TC__PRIVATE int tc__ct_blocks(tc__contract_shape *sh) {
    int64_t M = sh->m.total, N = sh->n.total, K = sh->k.total;
    int chunked = sh->gemv || sh->row; /* k in chunks of a fixed size, not even blocks */
    int64_t kmax = chunked ? TC__CT_GV_KC : TC__CT_KC;
    sh->nk = K == 0 ? 1 : tc__ct_cdiv(K, kmax);
    sh->kc = K == 0 ? 0 : chunked ? (K < kmax ? K : kmax) : tc__ct_cdiv(K, sh->nk);
    if (sh->row) {
        sh->mc = sh->nm = 1;
        sh->nc = TC__CT_ROW_LANES;
        sh->nn = tc__ct_cdiv(N, sh->nc);
    } else if (sh->gemv) {
        sh->nc = sh->nn = 1;
        sh->nm = tc__ct_cdiv(M, TC__CT_GV_ROWS);
        sh->mc = tc__ct_roundup(tc__ct_cdiv(M, sh->nm), TC__CT_GV_RG);
        sh->nm = tc__ct_cdiv(M, sh->mc);
    } else {
        sh->nn = tc__ct_cdiv(N, TC__CT_NC);
        sh->nc = tc__ct_roundup(tc__ct_cdiv(N, sh->nn), TC__CT_NR);
        sh->nn = tc__ct_cdiv(N, sh->nc);
        sh->nm = tc__ct_cdiv(M, TC__CT_MC);
        sh->mc = tc__ct_roundup(tc__ct_cdiv(M, sh->nm), TC__CT_MR);
        sh->nm = tc__ct_cdiv(M, sh->mc);
        tc__ct_split_more(sh, M, N);
    }
    if (!tc__mul64(sh->batch.total, sh->nm, &sh->tasks) ||
        !tc__mul64(sh->tasks, sh->nn, &sh->tasks))
        return 0;
    if (K == 0 && !sh->assign) sh->tasks = 0; /* adding empty sums changes nothing */
    sh->scratch = tc__ct_layout(sh, NULL, NULL);
    return 1;
}

/* Builds the run-time descriptor for concrete sizes. sx: the def's size
   values; strides0/strides1/strides_t: element strides per dimension of the
   MUL's first read, its second read and T; assign: see the header comment.
   Returns 1, or 0 when the engine declines (index arithmetic overflows):
   the VM then runs the statement itself. Allocates nothing. */
TC__PRIVATE int tc__contract_prepare(const tc__contract *c, const int64_t *sx,
                                     const int64_t *strides0, const int64_t *strides1,
                                     const int64_t *strides_t, int assign,
                                     tc__contract_shape *out) {
    int64_t s[TC__CT_MAX_DIMS * 4][3], lo[TC__CT_MAX_DIMS * 4], ext[TC__CT_MAX_DIMS * 4];
    const int64_t *ts[3];
    int l;
    memset(out, 0, sizeof *out);
    ts[0] = strides0;
    ts[1] = strides1;
    ts[2] = strides_t;
    if (c->st->n_loops > TC__CT_MAX_DIMS * 4) return 0;
    if (!tc__ct_strides(c, sx, ts, s, lo, ext, out)) return 0;
    out->assign = assign;
    for (l = 0; l < c->st->n_loops; l++)
        if (ext[l] == 0 && !c->st->loops[l].reduction) return 1; /* empty domain: no tasks */
    tc__ct_pick_path(c, s, ext, out);
    tc__ct_fill_classes(c, s, ext, out);
    if (!tc__ct_class_total(&out->batch) || !tc__ct_class_total(&out->m) ||
        !tc__ct_class_total(&out->n) || !tc__ct_class_total(&out->k))
        return 0;
    if (out->k.total == 0) out->k.n = 0; /* empty sums: no k to walk */
    out->row =
        !out->gemv && out->m.total == 1 && out->n.n == 1 && out->n.sy[0] == 1 && out->n.st[0] == 1;
    if (!tc__ct_blocks(out)) return 0;
    return 1;
}

TC__PRIVATE int64_t tc__contract_tasks(const tc__contract_shape *sh) { return sh->tasks; }
TC__PRIVATE size_t tc__contract_scratch_size(const tc__contract_shape *sh) {
    return sh->tasks ? sh->scratch : 0;
}

/* A kept panel bigger than one k block of the widest N block would not
   stay in L2 from one call to the next. */
#define TC__CT_KEEP_MAX ((double)TC__CT_KC * TC__CT_NC)

/* Lets a thread keep a GEMM group's packed panels, all its k blocks,
   between calls (see tc__contract_run_tasks' kept) where they fit
   TC__CT_KEEP_MAX; grows the scratch to hold them. 1 when it did. */
TC__PRIVATE int tc__contract_keep(tc__contract_shape *sh) {
    if (sh->gemv || sh->row || sh->tasks == 0 ||
        (double)sh->nk * (double)sh->nc * (double)sh->kc > TC__CT_KEEP_MAX)
        return 0;
    sh->keep = 1;
    sh->scratch = tc__ct_layout(sh, NULL, NULL);
    return 1;
}

/* ---- Offsets ---------------------------------------------------------------- */

/* Offsets in X, Y and T (each optional) of items [i0, i0 + n) of a class,
   its dims walked row-major (the innermost fastest), a run of the innermost
   dim at a time. */
TC__PRIVATE void tc__ct_offsets(const tc__ct_class *k, int64_t i0, int64_t n, int64_t *ox,
                                int64_t *oy, int64_t *ot) {
    int64_t idx[TC__CT_MAX_DIMS], ax = 0, ay = 0, at = 0, rem = i0, i = 0, j;
    int d, in = k->n - 1;
    for (d = in; d >= 0; d--) {
        idx[d] = rem % k->ext[d];
        rem /= k->ext[d];
        ax += idx[d] * k->sx[d];
        ay += idx[d] * k->sy[d];
        at += idx[d] * k->st[d];
    }
    if (in < 0) { /* no dims: the single item at offset 0 */
        for (; i < n; i++) {
            if (ox) ox[i] = 0;
            if (oy) oy[i] = 0;
            if (ot) ot[i] = 0;
        }
        return;
    }
    while (i < n) {
        int64_t run = k->ext[in] - idx[in] < n - i ? k->ext[in] - idx[in] : n - i;
        for (j = 0; j < run; j++) {
            if (ox) ox[i + j] = ax + j * k->sx[in];
            if (oy) oy[i + j] = ay + j * k->sy[in];
            if (ot) ot[i + j] = at + j * k->st[in];
        }
        i += run;
        ax += run * k->sx[in];
        ay += run * k->sy[in];
        at += run * k->st[in];
        idx[in] += run;
        for (d = in; d > 0 && idx[d] == k->ext[d]; d--) { /* carry */
            ax += k->sx[d - 1] - k->sx[d] * k->ext[d];
            ay += k->sy[d - 1] - k->sy[d] * k->ext[d];
            at += k->st[d - 1] - k->st[d] * k->ext[d];
            idx[d] = 0;
            idx[d - 1]++;
        }
    }
}

/* 1 when off[0..n) are off[0], off[0] + 1, ... */
TC__PRIVATE int tc__ct_unit_run(const int64_t *off, int64_t n) {
    int64_t i;
    for (i = 1; i < n; i++)
        if (off[i] != off[0] + i) return 0;
    return 1;
}

/* A class walks a tensor contiguously: no dims, or one of stride 1. */
TC__PRIVATE int tc__ct_class_unit(const tc__ct_class *k, int which) {
    const int64_t *s = which == 0 ? k->sx : which == 1 ? k->sy : k->st;
    return k->n == 0 || (k->n == 1 && s[0] == 1);
}

/* ---- Micro-kernels ------------------------------------------------------------
   c[rowoff[r] + j] (r < MR, j < NR) receives the tile sum over kc of
   a[k*MR + r] * b[k*NR + j], accumulated from +0 in k order, one FMA per k.
   Modes: RAW stores the sum, SET stores 0 + sum, ADD stores c + sum. */
#define TC__CT_RAW 0
#define TC__CT_SET 1
#define TC__CT_ADD 2

#if defined(__AVX512F__)
TC__PRIVATE void tc__ct_kernel(int64_t kc, const float *a, const float *b, float *c,
                               const int64_t *rowoff, int mode) {
    __m512 acc[TC__CT_MR][TC__CT_NV];
    int64_t k;
    int r, v;
    TC__CT_UNROLL for (r = 0; r < TC__CT_MR; r++) {
        TC__CT_UNROLL for (v = 0; v < TC__CT_NV; v++) {
            acc[r][v] = _mm512_setzero_ps();
            /* the tile of T is needed only after the k loop: fetch it now */
            _mm_prefetch((const char *)(c + rowoff[r] + 16 * v), _MM_HINT_T0);
        }
    }
    for (k = 0; k < kc; k++) {
        __m512 bv[TC__CT_NV];
        TC__CT_UNROLL for (v = 0; v < TC__CT_NV; v++) bv[v] = _mm512_load_ps(b + 16 * v);
        TC__CT_UNROLL for (r = 0; r < TC__CT_MR; r++) {
            __m512 ar = _mm512_set1_ps(a[r]);
            TC__CT_UNROLL for (v = 0; v < TC__CT_NV; v++) {
                acc[r][v] = _mm512_fmadd_ps(ar, bv[v], acc[r][v]);
            }
        }
        a += TC__CT_MR;
        b += TC__CT_NR;
    }
    TC__CT_UNROLL for (r = 0; r < TC__CT_MR; r++) {
        TC__CT_UNROLL for (v = 0; v < TC__CT_NV; v++) {
            float *p = c + rowoff[r] + 16 * v;
            __m512 base = mode == TC__CT_ADD ? _mm512_loadu_ps(p) : _mm512_setzero_ps();
            _mm512_storeu_ps(p, mode == TC__CT_RAW ? acc[r][v] : _mm512_add_ps(base, acc[r][v]));
        }
    }
}
#elif defined(__AVX2__) && defined(__FMA__)
TC__PRIVATE void tc__ct_kernel(int64_t kc, const float *a, const float *b, float *c,
                               const int64_t *rowoff, int mode) {
    __m256 acc[TC__CT_MR][TC__CT_NV];
    int64_t k;
    int r, v;
    TC__CT_UNROLL for (r = 0; r < TC__CT_MR; r++) {
        TC__CT_UNROLL for (v = 0; v < TC__CT_NV; v++) acc[r][v] = _mm256_setzero_ps();
    }
    for (k = 0; k < kc; k++) {
        __m256 bv[TC__CT_NV];
        TC__CT_UNROLL for (v = 0; v < TC__CT_NV; v++) bv[v] = _mm256_load_ps(b + 8 * v);
        TC__CT_UNROLL for (r = 0; r < TC__CT_MR; r++) {
            __m256 ar = _mm256_broadcast_ss(a + r);
            TC__CT_UNROLL for (v = 0; v < TC__CT_NV; v++) {
                acc[r][v] = _mm256_fmadd_ps(ar, bv[v], acc[r][v]);
            }
        }
        a += TC__CT_MR;
        b += TC__CT_NR;
    }
    TC__CT_UNROLL for (r = 0; r < TC__CT_MR; r++) {
        TC__CT_UNROLL for (v = 0; v < TC__CT_NV; v++) {
            float *p = c + rowoff[r] + 8 * v;
            __m256 base = mode == TC__CT_ADD ? _mm256_loadu_ps(p) : _mm256_setzero_ps();
            _mm256_storeu_ps(p, mode == TC__CT_RAW ? acc[r][v] : _mm256_add_ps(base, acc[r][v]));
        }
    }
}
#else
TC__PRIVATE void tc__ct_kernel(int64_t kc, const float *a, const float *b, float *c,
                               const int64_t *rowoff, int mode) {
    float acc[TC__CT_MR][TC__CT_NR];
    int64_t k;
    int r, j;
    for (r = 0; r < TC__CT_MR; r++)
        for (j = 0; j < TC__CT_NR; j++) acc[r][j] = 0.0f;
    for (k = 0; k < kc; k++) {
        TC__CT_UNROLL for (r = 0; r < TC__CT_MR; r++) {
            TC__CT_UNROLL for (j = 0; j < TC__CT_NR; j++) {
                acc[r][j] = TC__CT_FMA(a[r], b[j], acc[r][j]);
            }
        }
        a += TC__CT_MR;
        b += TC__CT_NR;
    }
    for (r = 0; r < TC__CT_MR; r++) {
        float *p = c + rowoff[r];
        for (j = 0; j < TC__CT_NR; j++)
            p[j] = mode == TC__CT_RAW ? acc[r][j] : (mode == TC__CT_ADD ? p[j] : 0.0f) + acc[r][j];
    }
}
#endif

/* ---- GEMM: packing, macro-kernel, task groups ------------------------------ */

#if defined(__AVX512F__)
/* dst[k * 8 + r] = row[r][k] for k in [0, kcb) rounded down to 16: each
   8 x 16 block transposed in registers, three rounds of two-source
   permutes (a round swaps one bit of the row number with one of the lane
   number; the last also puts k's low bit above the row's), then stored
   whole, instead of 128 stores of one float. Returns the k done. */
TC__PRIVATE int64_t tc__ct_pack_x8(const float *const *row, float *dst, int64_t kcb) {
    static const int perm[6][16] = {
        {0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29},
        {2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31},
        {0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27},
        {4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31},
        {0, 2, 4, 6, 16, 18, 20, 22, 1, 3, 5, 7, 17, 19, 21, 23},
        {8, 10, 12, 14, 24, 26, 28, 30, 9, 11, 13, 15, 25, 27, 29, 31}};
    __m512i lo[3], hi[3];
    __m512 v[8], t;
    int64_t k;
    int s, r;
    for (s = 0; s < 3; s++) {
        lo[s] = _mm512_loadu_si512((const void *)perm[2 * s]);
        hi[s] = _mm512_loadu_si512((const void *)perm[2 * s + 1]);
    }
    for (k = 0; k + 16 <= kcb; k += 16) {
        for (r = 0; r < 8; r++) v[r] = _mm512_loadu_ps(row[r] + k);
        for (s = 0; s < 3; s++) /* rows r and r + 2^s, r without that bit */
            for (r = 0; r < 8; r++)
                if (!(r >> s & 1)) {
                    t = _mm512_permutex2var_ps(v[r], lo[s], v[r + (1 << s)]);
                    v[r + (1 << s)] = _mm512_permutex2var_ps(v[r], hi[s], v[r + (1 << s)]);
                    v[r] = t;
                }
        for (r = 0; r < 8; r++) _mm512_storeu_ps(dst + k * 8 + r * 16, v[r]);
    }
    return k;
}
#endif

/* Packs rows [0, mcb) of the M block over the k block: slivers of MR rows,
   k-major inside a sliver (a[k*MR + r]); rows past mcb are zero. */
TC__PRIVATE void tc__ct_pack_x(const float *X, int64_t xb, const tc__ct_work *w, int64_t mcb,
                               int64_t kcb, int kunit) {
    int64_t q, k, k0;
    int r;
    for (q = 0; q < mcb; q += TC__CT_MR) {
        float *dst = w->apack + q * kcb;
        const float *row[TC__CT_MR];
        for (r = 0; r < TC__CT_MR; r++) row[r] = X + (q + r < mcb ? xb + w->mx[q + r] + w->kx[0] : 0);
        k0 = 0;
#if defined(__AVX512F__) && TC__CT_MR == 8
        if (kunit && q + TC__CT_MR <= mcb) k0 = tc__ct_pack_x8(row, dst, kcb);
#endif
        for (r = 0; r < TC__CT_MR; r++) {
            int64_t base = q + r < mcb ? xb + w->mx[q + r] : 0;
            if (q + r >= mcb) {
                for (k = k0; k < kcb; k++) dst[k * TC__CT_MR + r] = 0.0f;
            } else if (kunit) {
                for (k = k0; k < kcb; k++) dst[k * TC__CT_MR + r] = row[r][k];
            } else {
                for (k = k0; k < kcb; k++) dst[k * TC__CT_MR + r] = X[base + w->kx[k]];
            }
        }
    }
}

/* d[i] = s[i * step] for i < n. */
TC__PRIVATE void tc__ct_copy_strided(float *d, const float *s, int64_t step, int n) {
    int i;
    for (i = 0; i < n; i++) d[i] = s[i * step];
}

/* Copies n floats (a run of at most a strip). */
TC__PRIVATE void tc__ct_copy(float *d, const float *s, int n) {
#if defined(__AVX512F__)
    for (; n >= 16; n -= 16, d += 16, s += 16) _mm512_storeu_ps(d, _mm512_loadu_ps(s));
    if (n > 0) {
        __mmask16 m = (__mmask16)((1u << n) - 1u);
        _mm512_mask_storeu_ps(d, m, _mm512_maskz_loadu_ps(m, s));
    }
#else
    int i;
    for (i = 0; i < n; i++) d[i] = s[i];
#endif
}

/* Packs the strips of lanes [j_begin, j_end) (multiples of NR; the panel is
   lanes [0, ncb) of the N block) over the k block: strips of NR lanes,
   k-major inside a strip (b[k*NR + j]); lanes past ncb are zero.
   Each strip is copied as the contiguous runs of Y it spans: a matmul row
   is one run, an implicit im2col row one or two. */
TC__PRIVATE void tc__ct_pack_y(const float *Y, int64_t yb, const tc__ct_work *w, float *panel,
                               int64_t ncb, int64_t kcb, int64_t j_begin, int64_t j_end) {
    int64_t j0, k;
    int j;
    if (j_end > ncb) j_end = ncb;
    for (j0 = j_begin; j0 < j_end; j0 += TC__CT_NR) {
        float *dst = panel + j0 * kcb;
        const int64_t *ny = w->ny + j0;
        const unsigned char *run = w->yrun + j0;
        int nr = ncb - j0 < TC__CT_NR ? (int)(ncb - j0) : TC__CT_NR;
        if (run[0] == TC__CT_NR && ny[1] == ny[0] + 1) {
            for (k = 0; k < kcb; k++)
                tc__ct_copy(dst + k * TC__CT_NR, Y + (yb + w->ky[k] + ny[0]), TC__CT_NR);
            continue;
        }
        for (k = 0; k < kcb; k++) {
            float *d = dst + k * TC__CT_NR;
            int64_t base = yb + w->ky[k];
            for (j = 0; j < nr; j += run[j]) {
                int64_t step = run[j] > 1 ? ny[j + 1] - ny[j] : 1;
                if (step == 1) tc__ct_copy(d + j, Y + (base + ny[j]), run[j]);
                else tc__ct_copy_strided(d + j, Y + (base + ny[j]), step, run[j]);
            }
            for (j = nr; j < TC__CT_NR; j++) d[j] = 0.0f;
        }
    }
}

/* Writes the valid mr x nr part of a RAW tile into T (edges, scattered
   lanes): T = T + sum, or 0 + sum when not adding. */
TC__PRIVATE void tc__ct_tile_out(float *T, int64_t tb, const int64_t *mt, const int64_t *nt, int mr,
                                 int nr, const float *tile, int add) {
    int r, j;
    for (r = 0; r < mr; r++)
        for (j = 0; j < nr; j++) {
            float *p = T + (tb + mt[r] + nt[j]);
            *p = (add ? *p : 0.0f) + tile[r * TC__CT_NR + j];
        }
}

/* All tiles of one packed X block by one packed Y panel. The X sliver stays
   in L1 while the Y panel streams from L2. */
TC__PRIVATE void tc__ct_macro(float *T, int64_t tb, const tc__ct_work *w, const float *panel,
                              int64_t mcb, int64_t ncb, int64_t kcb, int mode) {
    int64_t tileoff[TC__CT_MR], i0, j0;
    int r;
    for (r = 0; r < TC__CT_MR; r++) tileoff[r] = (int64_t)r * TC__CT_NR;
    for (i0 = 0; i0 < mcb; i0 += TC__CT_MR) {
        const float *a = w->apack + i0 * kcb;
        int mr = mcb - i0 < TC__CT_MR ? (int)(mcb - i0) : TC__CT_MR;
        for (j0 = 0; j0 < ncb; j0 += TC__CT_NR) {
            const float *b = panel + j0 * kcb;
            int nr = ncb - j0 < TC__CT_NR ? (int)(ncb - j0) : TC__CT_NR;
            if (mr == TC__CT_MR && nr == TC__CT_NR && w->tunit[j0 / TC__CT_NR]) {
                tc__ct_kernel(kcb, a, b, T + (tb + w->nt[j0]), w->mt + i0, mode);
            } else {
                tc__ct_kernel(kcb, a, b, w->tile, tileoff, TC__CT_RAW);
                tc__ct_tile_out(T, tb, w->mt + i0, w->nt + j0, mr, nr, w->tile, mode == TC__CT_ADD);
            }
        }
    }
}

/* Offsets of the N block's lanes, Y's contiguous runs inside each strip,
   and which strips run contiguously in T. */
TC__PRIVATE void tc__ct_n_block(const tc__contract_shape *sh, int64_t n0, int64_t ncb,
                                const tc__ct_work *w) {
    int64_t j0, j;
    tc__ct_offsets(&sh->n, n0, ncb, NULL, w->ny, w->nt);
    for (j0 = 0; j0 < ncb; j0 += TC__CT_NR) {
        int64_t end = ncb - j0 < TC__CT_NR ? ncb : j0 + TC__CT_NR;
        w->tunit[j0 / TC__CT_NR] = (unsigned char)tc__ct_unit_run(w->nt + j0, end - j0);
        w->yrun[end - 1] = 1; /* a run's step: its first two lanes' */
        for (j = end - 2; j >= j0; j--)
            w->yrun[j] = (unsigned char)(w->yrun[j + 1] == 1 ||
                                                 w->ny[j + 2] - w->ny[j + 1] == w->ny[j + 1] - w->ny[j]
                                             ? w->yrun[j + 1] + 1
                                             : 1);
    }
}

/* Tasks (b, nb, mb) for mb in [mb0, mb1): k blocks in order; the Y panel of
   each k block is packed once and shared by the group's M blocks. With
   sh->keep, the panels of every k block stay in the scratch, and *kept
   names the group they belong to: a later call for the same group packs
   nothing. */
TC__PRIVATE void tc__ct_gemm_group(const tc__contract_shape *sh, const float *X, const float *Y,
                                   float *T, int64_t b, int64_t nb, int64_t mb0, int64_t mb1,
                                   const tc__ct_work *w, int64_t *kept) {
    int64_t bx, by, bt, kb, mb, n0 = nb * sh->nc, K = sh->k.total, g = b * sh->nn + nb;
    int64_t ncb = sh->n.total - n0 < sh->nc ? sh->n.total - n0 : sh->nc;
    int kunit = tc__ct_class_unit(&sh->k, 0);
    tc__ct_offsets(&sh->batch, b, 1, &bx, &by, &bt);
    tc__ct_n_block(sh, n0, ncb, w);
    for (kb = 0; kb < sh->nk; kb++) {
        int64_t k0 = kb * sh->kc, kcb = K - k0 < sh->kc ? K - k0 : sh->kc;
        int mode = kb > 0 || !sh->assign ? TC__CT_ADD : TC__CT_SET;
        float *panel = w->bpack + (sh->keep ? kb * sh->nc * sh->kc : 0);
        tc__ct_offsets(&sh->k, k0, kcb, w->kx, w->ky, NULL);
        if (kcb > 0 && !(sh->keep && *kept == g)) tc__ct_pack_y(Y, sh->y0 + by, w, panel, ncb, kcb, 0, ncb);
        for (mb = mb0; mb < mb1; mb++) {
            int64_t m0 = mb * sh->mc, mcb = sh->m.total - m0 < sh->mc ? sh->m.total - m0 : sh->mc;
            tc__ct_offsets(&sh->m, m0, mcb, w->mx, NULL, w->mt);
            if (kcb > 0) tc__ct_pack_x(X, sh->x0 + bx, w, mcb, kcb, kunit);
            tc__ct_macro(T, sh->t0 + bt, w, panel, mcb, ncb, kcb, mode);
        }
    }
    if (sh->keep) *kept = g;
}

/* ---- GEMV: rows of X dotted with Y ---------------------------------------------
   Each row keeps TC__CT_GV_W partial sums: lane l sums the k with
   k % W == l in k order, one FMA each; the lanes are then added in a fixed
   tree. Rows are streamed TC__CT_GV_RG at a time so each loaded piece of
   the vector serves several rows. */

/* p[r][l] += rows[r][k] * v[k] for k of lane l in [0, n). */
/* Every 2 KB of its rows, a GEMV asks for each row's line a page on: the
   hardware's stream prefetchers stop at each 4 KB page, for all the rows'
   streams at once (tc__k_prime_f32). mv 4096 x 4096 and 1024 x 16384, one
   thread, measured faster with it, in both orders; two threads within the
   noise either way; 8 KB ahead a little less gain. */
#define TC__CT_GV_PRIME(rows, k)                                                             \
    TC__CT_UNROLL for (r = 0; r < TC__CT_GV_RG; r++)                                         \
        tc__prefetch_at((uintptr_t)((rows)[r] + (k)) + 4096)
TC__PRIVATE void tc__ct_dot(const float *const *rows, const float *v, int64_t n,
                            float (*p)[TC__CT_GV_W]) {
    int64_t k = 0;
    int r, l;
#if defined(__AVX512F__)
    __m512 acc[TC__CT_GV_RG];
    TC__CT_UNROLL for (r = 0; r < TC__CT_GV_RG; r++) acc[r] = _mm512_loadu_ps(p[r]);
    for (; k + 16 <= n; k += 16) {
        __m512 vv = _mm512_loadu_ps(v + k);
        if (!(k & 511)) { TC__CT_GV_PRIME(rows, k); }
        TC__CT_UNROLL for (r = 0; r < TC__CT_GV_RG; r++) {
            acc[r] = _mm512_fmadd_ps(_mm512_loadu_ps(rows[r] + k), vv, acc[r]);
        }
    }
    TC__CT_UNROLL for (r = 0; r < TC__CT_GV_RG; r++) _mm512_storeu_ps(p[r], acc[r]);
#elif defined(__AVX2__) && defined(__FMA__)
    __m256 acc[TC__CT_GV_RG][2];
    TC__CT_UNROLL for (r = 0; r < TC__CT_GV_RG; r++) {
        acc[r][0] = _mm256_loadu_ps(p[r]);
        acc[r][1] = _mm256_loadu_ps(p[r] + 8);
    }
    for (; k + 16 <= n; k += 16) {
        __m256 v0 = _mm256_loadu_ps(v + k), v1 = _mm256_loadu_ps(v + k + 8);
        if (!(k & 511)) { TC__CT_GV_PRIME(rows, k); }
        TC__CT_UNROLL for (r = 0; r < TC__CT_GV_RG; r++) {
            acc[r][0] = _mm256_fmadd_ps(_mm256_loadu_ps(rows[r] + k), v0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(_mm256_loadu_ps(rows[r] + k + 8), v1, acc[r][1]);
        }
    }
    TC__CT_UNROLL for (r = 0; r < TC__CT_GV_RG; r++) {
        _mm256_storeu_ps(p[r], acc[r][0]);
        _mm256_storeu_ps(p[r] + 8, acc[r][1]);
    }
#endif
    for (; k + TC__CT_GV_W <= n; k += TC__CT_GV_W)
        for (r = 0; r < TC__CT_GV_RG; r++)
            for (l = 0; l < TC__CT_GV_W; l++)
                p[r][l] = TC__CT_FMA(rows[r][k + l], v[k + l], p[r][l]);
    for (r = 0; r < TC__CT_GV_RG; r++)
        for (l = 0; k + l < n; l++) p[r][l] = TC__CT_FMA(rows[r][k + l], v[k + l], p[r][l]);
}

/* The lanes of one row, added in a fixed tree. */
TC__PRIVATE float tc__ct_lanes_sum(float *p) {
    int w, l;
    for (w = TC__CT_GV_W / 2; w >= 1; w /= 2)
        for (l = 0; l < w; l++) p[l] = p[l] + p[l + w];
    return p[0];
}

/* Row pointers and vector for rows [g, g + nr) of the block over k block
   [0, kcb): straight into X (Y) when it runs contiguously along K, else
   gathered into the scratch (the vector once per k block, at g == 0).
   Missing rows repeat row g (their sums are dropped). */
TC__PRIVATE const float *tc__ct_gemv_src(const tc__contract_shape *sh, const float *X,
                                         const float *Y, int64_t xb, int64_t yb, int64_t g, int nr,
                                         int64_t kcb, const tc__ct_work *w, const float **rows) {
    int64_t k;
    int r;
    for (r = 0; r < nr; r++) {
        int64_t base = xb + w->mx[g + r];
        float *dst = w->apack + r * kcb;
        if (tc__ct_class_unit(&sh->k, 0)) {
            rows[r] = X + (base + w->kx[0]);
            continue;
        }
        for (k = 0; k < kcb; k++) dst[k] = X[base + w->kx[k]];
        rows[r] = dst;
    }
    for (; r < TC__CT_GV_RG; r++) rows[r] = rows[0];
    if (tc__ct_class_unit(&sh->k, 1)) return Y + (yb + w->ky[0]);
    if (g == 0)
        for (k = 0; k < kcb; k++) w->bpack[k] = Y[yb + w->ky[k]];
    return w->bpack;
}

/* One GEMV task: rows [mb*mc, ...) of batch b, each summed over all of K,
   k block by k block (the vector's block stays in cache for all rows). */
TC__PRIVATE void tc__ct_gemv_task(const tc__contract_shape *sh, const float *X, const float *Y,
                                  float *T, int64_t b, int64_t mb, const tc__ct_work *w) {
    float p[TC__CT_GV_ROWS][TC__CT_GV_W];
    int64_t bx, by, bt, g, kb, m0 = mb * sh->mc, K = sh->k.total;
    int64_t mcb = sh->m.total - m0 < sh->mc ? sh->m.total - m0 : sh->mc;
    int direct = tc__ct_class_unit(&sh->k, 0) && tc__ct_class_unit(&sh->k, 1); /* no tables */
    tc__ct_offsets(&sh->batch, b, 1, &bx, &by, &bt);
    tc__ct_offsets(&sh->m, m0, mcb, w->mx, NULL, w->mt);
    memset(p, 0, sizeof p);
    for (kb = 0; kb < sh->nk; kb++) {
        int64_t k0 = kb * sh->kc, kcb = K - k0 < sh->kc ? K - k0 : sh->kc;
        if (kcb <= 0) continue;
        /* contiguous along K: only the block's first offsets are used */
        tc__ct_offsets(&sh->k, k0, direct ? 1 : kcb, w->kx, w->ky, NULL);
        for (g = 0; g < mcb; g += TC__CT_GV_RG) {
            const float *rows[TC__CT_GV_RG] = {0}, *vec;
            int nr = mcb - g < TC__CT_GV_RG ? (int)(mcb - g) : TC__CT_GV_RG;
            vec = tc__ct_gemv_src(sh, X, Y, sh->x0 + bx, sh->y0 + by, g, nr, kcb, w, rows);
            tc__ct_dot(rows, vec, kcb, p + g);
        }
    }
    for (g = 0; g < mcb; g++) {
        float *t = T + (sh->t0 + bt + w->mt[g]);
        float s = tc__ct_lanes_sum(p[g]);
        *t = (sh->assign ? 0.0f : *t) + s;
    }
}

/* ---- One row: T[n] = sum over k of X[k] * Y[k][n] ---------------------------------
   (vector times matrix). A task owns TC__CT_ROW_LANES lanes of N, keeps
   their sums in L1 across all of K and streams whole rows of Y, four at a
   time; each lane is one FMA per k in k order from +0, as in a GEMM tile. */

/* acc[l] = fma(x, y[l], acc[l]) for l in [l0, n): the vector paths' tail. */
TC__PRIVATE void tc__ct_row_tail(float x, const float *y, int l0, int n, float *acc) {
    int l;
    for (l = l0; l < n; l++) acc[l] = TC__CT_FMA(x, y[l], acc[l]);
}

/* acc[l] += x[k] * y_k[l] for the k of one chunk, in k order; x[k] is
   X[xoff[k]] and y_k = Y + yoff[k]. */
TC__PRIVATE void tc__ct_row_chunk(const float *X, const float *Y, int64_t kcb, const int64_t *xoff,
                                  const int64_t *yoff, int nl, float *acc) {
    int64_t k;
    int l, q;
    for (k = 0; k < kcb; k += 4) {
        int nk = kcb - k < 4 ? (int)(kcb - k) : 4;
        float x[4];
        const float *y[4];
        for (q = 0; q < nk; q++) {
            x[q] = X[xoff[k + q]];
            y[q] = Y + yoff[k + q];
        }
        l = 0;
#if defined(__AVX512F__)
        if (nk == 4) {
            __m512 x0 = _mm512_set1_ps(x[0]), x1 = _mm512_set1_ps(x[1]);
            __m512 x2 = _mm512_set1_ps(x[2]), x3 = _mm512_set1_ps(x[3]);
            for (; l + 16 <= nl; l += 16) {
                __m512 a = _mm512_loadu_ps(acc + l);
                a = _mm512_fmadd_ps(x0, _mm512_loadu_ps(y[0] + l), a);
                a = _mm512_fmadd_ps(x1, _mm512_loadu_ps(y[1] + l), a);
                a = _mm512_fmadd_ps(x2, _mm512_loadu_ps(y[2] + l), a);
                a = _mm512_fmadd_ps(x3, _mm512_loadu_ps(y[3] + l), a);
                _mm512_storeu_ps(acc + l, a);
            }
        }
#elif defined(__AVX2__) && defined(__FMA__)
        if (nk == 4) {
            __m256 x0 = _mm256_set1_ps(x[0]), x1 = _mm256_set1_ps(x[1]);
            __m256 x2 = _mm256_set1_ps(x[2]), x3 = _mm256_set1_ps(x[3]);
            for (; l + 8 <= nl; l += 8) {
                __m256 a = _mm256_loadu_ps(acc + l);
                a = _mm256_fmadd_ps(x0, _mm256_loadu_ps(y[0] + l), a);
                a = _mm256_fmadd_ps(x1, _mm256_loadu_ps(y[1] + l), a);
                a = _mm256_fmadd_ps(x2, _mm256_loadu_ps(y[2] + l), a);
                a = _mm256_fmadd_ps(x3, _mm256_loadu_ps(y[3] + l), a);
                _mm256_storeu_ps(acc + l, a);
            }
        }
#endif
        if (l < nl) /* the lanes left, row by row: the same FMAs in the same order */
            for (q = 0; q < nk; q++) tc__ct_row_tail(x[q], y[q], l, nl, acc);
    }
}

TC__PRIVATE void tc__ct_row_task(const tc__contract_shape *sh, const float *X, const float *Y,
                                 float *T, int64_t b, int64_t nb, const tc__ct_work *w) {
    float acc[TC__CT_ROW_LANES];
    int64_t bx, by, bt, kb, k, n0 = nb * sh->nc, K = sh->k.total;
    int l, nl = sh->n.total - n0 < sh->nc ? (int)(sh->n.total - n0) : (int)sh->nc;
    tc__ct_offsets(&sh->batch, b, 1, &bx, &by, &bt);
    memset(acc, 0, sizeof acc);
    for (kb = 0; kb < sh->nk; kb++) {
        int64_t k0 = kb * sh->kc, kcb = K - k0 < sh->kc ? K - k0 : sh->kc;
        if (kcb <= 0) continue;
        tc__ct_offsets(&sh->k, k0, kcb, w->kx, w->ky, NULL);
        for (k = 0; k < kcb; k++) { /* absolute offsets: X's element, Y's row at n0 */
            w->kx[k] += sh->x0 + bx;
            w->ky[k] += sh->y0 + by + n0;
        }
        tc__ct_row_chunk(X, Y, kcb, w->kx, w->ky, nl, acc);
    }
    for (l = 0; l < nl; l++) {
        float *t = T + (sh->t0 + bt + n0 + l);
        *t = (sh->assign ? 0.0f : *t) + acc[l];
    }
}

/* ---- Tasks ---------------------------------------------------------------------- */

/* Computes tasks [first, last) of a prepared shape. scratch: at least
   tc__contract_scratch_size bytes, any alignment, owned by the caller's
   thread. Tasks write disjoint elements of T, so any threads may run any
   disjoint ranges at once; the results do not depend on the split. */
TC__PRIVATE void tc__contract_run_tasks(const tc__contract_shape *sh, const tc__contract_args *a,
                                        int64_t first, int64_t last, void *scratch,
                                        int64_t *kept) {
    const float *X = (const float *)(sh->swapped ? a->in1 : a->in0);
    const float *Y = (const float *)(sh->swapped ? a->in0 : a->in1);
    float *T = (float *)a->out;
    unsigned char *base = (unsigned char *)scratch;
    tc__ct_work w;
    if (last > sh->tasks) last = sh->tasks;
    if (first < 0) first = 0;
    if (first >= last) return;
    base += (TC__CT_ALIGN - (size_t)((uintptr_t)base % TC__CT_ALIGN)) % TC__CT_ALIGN;
    tc__ct_layout(sh, base, &w);
    while (first < last) {
        int64_t mb = first % sh->nm, rest = first / sh->nm;
        int64_t end = last < first - mb + sh->nm ? last : first - mb + sh->nm;
        int64_t mb1 = mb + (end - first); /* the run of tasks sharing (batch, N block) */
        if (sh->row) {
            tc__ct_row_task(sh, X, Y, T, rest / sh->nn, rest % sh->nn, &w);
        } else if (sh->gemv) {
            for (; mb < mb1; mb++) tc__ct_gemv_task(sh, X, Y, T, rest, mb, &w);
        } else {
            tc__ct_gemm_group(sh, X, Y, T, rest / sh->nn, rest % sh->nn, mb, mb1, &w, kept);
        }
        first = end;
    }
}

/* ---- Shared panels ----------------------------------------------------------
   With threads and a few GEMM groups (one N block: mm 1024), chunks of
   whole tasks each pack their group's Y panels again (mm 1024 at 2
   threads: 4 packs of 4 MB where one thread makes 1), and chunks big
   enough to be worth a pack are too big to even out a virtual CPU that
   runs slow. tc__contract_share makes the panels shared: a stage is one k
   block of one group, its panel is packed once, in pieces of strips any
   thread takes, into a ring of TC__CT_RING panels, and its tasks (an M
   block each) go one at a time. Items are numbered in claim order,

       pack(0) | tasks(0) pack(1) tasks(0) | tasks(1) pack(2) tasks(1) | ...

   (see tc__ct_item), so a stage's panel is packed while the stage before
   it runs. An item waits only for earlier ones: a task for its panel's
   pieces and for its M block's previous k block (sums run k blocks in
   order), a piece for the tasks of the stage that last used its slot of
   the ring (two stages back at least, so TC__CT_RING >= 2). Threads that
   claim items in order and finish them therefore never wait for ever.
   Every element gets the operations of tc__ct_gemm_group, bitwise. */

/* The shared region: the ring, then counters (zeroed before each run). */
typedef struct tc__ct_shared {
    float *ring;
    int64_t *packed; /* per stage: pieces packed */
    int64_t *done;   /* per stage: tasks done */
    int64_t *kdone;  /* per group and M block: k blocks done */
} tc__ct_shared;

TC__PRIVATE size_t tc__ct_share_layout(const tc__contract_shape *sh, unsigned char *base,
                                       tc__ct_shared *s) {
    size_t at = 0, o[2];
    o[0] = tc__ct_carve(&at, TC__CT_RING * (size_t)sh->nc * (size_t)sh->kc * sizeof(float));
    o[1] = tc__ct_carve(&at, (size_t)(2 * sh->stages + sh->tasks) * sizeof(int64_t));
    if (s) {
        s->ring = (float *)(void *)(base + o[0]);
        s->packed = (int64_t *)(void *)(base + o[1]);
        s->done = s->packed + sh->stages;
        s->kdone = s->done + sh->stages;
    }
    return at + TC__CT_ALIGN; /* room to align the caller's pointer */
}

TC__PRIVATE unsigned char *tc__ct_align(void *p) {
    unsigned char *b = (unsigned char *)p;
    return b + (TC__CT_ALIGN - (size_t)((uintptr_t)b % TC__CT_ALIGN)) % TC__CT_ALIGN;
}

/* Makes a GEMM shape share its panels between threads, where its items
   number at most max_items; 1 when it did. Then the region
   tc__contract_shared_size says is given to tc__contract_share_reset
   before each run and to every tc__contract_run_item. */
TC__PRIVATE int tc__contract_share(tc__contract_shape *sh, int64_t max_items) {
    int64_t strips = tc__ct_cdiv(sh->nc, TC__CT_NR);
    if (sh->gemv || sh->row || sh->tasks == 0 || sh->k.total == 0 || sh->keep) return 0;
    sh->pieces = strips < TC__CT_PIECES ? strips : TC__CT_PIECES;
    sh->stages = sh->tasks / sh->nm * sh->nk;
    if ((double)sh->stages * (double)(sh->pieces + sh->nm) > (double)max_items) return 0;
    sh->items = sh->stages * (sh->pieces + sh->nm);
    sh->share = 1;
    sh->scratch = tc__ct_layout(sh, NULL, NULL); /* no panel of its own */
    return 1;
}

TC__PRIVATE size_t tc__contract_shared_size(const tc__contract_shape *sh) {
    return sh->share ? tc__ct_share_layout(sh, NULL, NULL) : 0;
}

TC__PRIVATE void tc__contract_share_reset(const tc__contract_shape *sh, void *region) {
    tc__ct_shared s;
    tc__ct_share_layout(sh, tc__ct_align(region), &s);
    memset(s.packed, 0, (size_t)(2 * sh->stages + sh->tasks) * sizeof(int64_t));
}

/* Waits until *counter reaches target (one thread, running the items in
   order, never waits). */
TC__PRIVATE void tc__ct_wait(int64_t *counter, int64_t target) {
#if defined(TC__HAVE_ATOMICS)
    int spins = 0;
    while (TC__ATOMIC_LOAD(counter) < target) tc__spin_wait(&spins);
#else
    (void)counter;
    (void)target;
#endif
}

TC__PRIVATE void tc__ct_count(int64_t *counter) {
#if defined(TC__HAVE_ATOMICS)
    TC__ATOMIC_ADD(counter, 1);
#else
    ++*counter;
#endif
}

/* Item `item` in claim order: its stage, and the piece or M block (*task).
   The pieces of the next stage's panel come in the middle of a stage's
   tasks: late enough that the first tasks start at once, early enough that
   the panel is ready when the next stage's first tasks are. */
TC__PRIVATE int64_t tc__ct_item(const tc__contract_shape *sh, int64_t item, int64_t *stage,
                                int *task) {
    int64_t block = sh->pieces + sh->nm, half = sh->nm / 2, i = item - sh->pieces;
    if (i < 0) { /* pack(0) */
        *stage = 0;
        *task = 0;
        return item;
    }
    *stage = i / block;
    if (*stage >= sh->stages - 1) { /* the last stage's tasks: no pack among them */
        *stage = sh->stages - 1;
        *task = 1;
        return i - *stage * block;
    }
    i -= *stage * block;
    *task = i < half || i >= half + sh->pieces;
    if (*task) return i < half ? i : i - sh->pieces;
    ++*stage;
    return i - half;
}

/* Runs item `item` of a shared shape. region: the shared region; scratch:
   the thread's (tc__contract_scratch_size); *cur: the stage whose offsets
   the scratch holds, -1 at a run's start. */
TC__PRIVATE void tc__contract_run_item(const tc__contract_shape *sh, const tc__contract_args *a,
                                       int64_t item, void *region, void *scratch, int64_t *cur) {
    const float *X = (const float *)(sh->swapped ? a->in1 : a->in0);
    const float *Y = (const float *)(sh->swapped ? a->in0 : a->in1);
    tc__ct_work w;
    tc__ct_shared s;
    int64_t stage, g, kb, n0, ncb, k0, kcb, bx, by, bt, i;
    float *panel;
    int task;
    i = tc__ct_item(sh, item, &stage, &task);
    g = stage / sh->nk;
    kb = stage % sh->nk;
    n0 = g % sh->nn * sh->nc;
    ncb = sh->n.total - n0 < sh->nc ? sh->n.total - n0 : sh->nc;
    k0 = kb * sh->kc;
    kcb = sh->k.total - k0 < sh->kc ? sh->k.total - k0 : sh->kc;
    tc__ct_layout(sh, tc__ct_align(scratch), &w);
    tc__ct_share_layout(sh, tc__ct_align(region), &s);
    tc__ct_offsets(&sh->batch, g / sh->nn, 1, &bx, &by, &bt);
    if (*cur != stage) {
        if (*cur < 0 || *cur / sh->nk != g) tc__ct_n_block(sh, n0, ncb, &w);
        tc__ct_offsets(&sh->k, k0, kcb, w.kx, w.ky, NULL);
        *cur = stage;
    }
    panel = s.ring + stage % TC__CT_RING * sh->nc * sh->kc;
    if (!task) {
        int64_t span = tc__ct_cdiv(tc__ct_cdiv(sh->nc, TC__CT_NR), sh->pieces) * TC__CT_NR;
        if (stage >= TC__CT_RING) tc__ct_wait(&s.done[stage - TC__CT_RING], sh->nm);
        tc__ct_pack_y(Y, sh->y0 + by, &w, panel, ncb, kcb, i * span, (i + 1) * span);
        tc__ct_count(&s.packed[stage]);
    } else {
        int64_t m0 = i * sh->mc, mcb = sh->m.total - m0 < sh->mc ? sh->m.total - m0 : sh->mc;
        int mode = kb > 0 || !sh->assign ? TC__CT_ADD : TC__CT_SET;
        tc__ct_wait(&s.packed[stage], sh->pieces);
        tc__ct_wait(&s.kdone[g * sh->nm + i], kb);
        tc__ct_offsets(&sh->m, m0, mcb, w.mx, NULL, w.mt);
        tc__ct_pack_x(X, sh->x0 + bx, &w, mcb, kcb, tc__ct_class_unit(&sh->k, 0));
        tc__ct_macro((float *)a->out, sh->t0 + bt, &w, panel, mcb, ncb, kcb, mode);
        tc__ct_count(&s.kdone[g * sh->nm + i]);
        tc__ct_count(&s.done[stage]);
    }
}
TC__VECTORIZE_END

/* ==== [tc:vm-types] Compiled statements ===================================== */

static const struct {
    const char *name, *fmt, *doc;
} tc__ops[TC_OP_COUNT] = {
#define TC__OP_INFO(name, fmt, doc) {#name, fmt, doc},
    TC_OPCODES(TC__OP_INFO)
#undef TC__OP_INFO
};

#define TC__VM_NONE 65535 /* "no register": an unmasked load */
#ifndef TC__VM_PF_DIST
#define TC__VM_PF_DIST 2 /* software prefetch: blocks ahead */
#endif
#define TC__VM_MAX_REGS 65000
/* A statement whose stores stream (tc__vm_plan_prefetch) and that is not
   a fused chain on the row (those stream themselves: tc__k_chain_nt_f32)
   and has no builtin after its chain (tc__k_chain_call_f32) computes and streams
   this many lanes at a time: the loads and the
   streaming stores then stay interleaved, as in a loop that streams each
   line it computes (a stand-alone C loop of a * x + b over 16M lanes, one
   thread: 512-lane blocks each streamed after it beat plain stores,
   128-lane pieces did better, and each line streamed as it is computed
   better still). */
#define TC__VM_STREAM_PIECE 128

#if defined(__GNUC__) || defined(__clang__)
#define TC__RESTRICT __restrict__
#elif defined(_MSC_VER)
#define TC__RESTRICT __restrict
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L && !defined(__cplusplus)
#define TC__RESTRICT restrict
#else
#define TC__RESTRICT
#endif

typedef struct tc__vm_ins {
    uint8_t op, dt, dt2, pad;
    uint16_t a, b, c, d, e;
} tc__vm_ins;

/* A tensor access as compiled: one per emitted LOAD or GOFF. */
typedef struct tc__vm_read {
    int node;   /* IR node (READ) */
    int tensor;
    int gather; /* some dimension is a general index */
    int masked; /* under a `?:` branch: lanes may be off, bounds unproven */
} tc__vm_read;

/* Contraction pattern: value = READ p * READ q (float), reduction SUM,
   both reads affine: the schedule may run it with a register-blocked
   microkernel instead of the bytecode. */
typedef struct tc__vm_contract {
    int ok;
    int p, q;     /* read slots */
    tc_dtype src[2]; /* the tensors' storage dtypes (p, q): converted to the value's as
                     the tile reads them where they differ (float(A(i,k)) with int8 A) */
} tc__vm_contract;

typedef struct tc__vm_stmt {
    const tc_ir_stmt *ir;
    int n_pro;        /* the first n_pro instructions run once per chunk */
    int n_ins;
    tc__vm_ins *ins;
    int n_reads;
    tc__vm_read *reads;
    int n_consts;
    uint64_t *consts; /* bit patterns in the CONST's dtype */
    int n_regs;       /* physical vector registers */
    int value;        /* register holding the value after the last instruction */
    tc_dtype vdt;     /* the value's dtype (compute dtype of the written tensor) */
    tc__vm_contract contract;
    const tc__contract *engine; /* the packed contraction engine's plan, or NULL */
    unsigned char *check;       /* per instruction: in the gather check slice (or NULL) */
    unsigned char *chain;       /* per instruction: fused chain length (2, 3) or 0; or NULL */
} tc__vm_stmt;

typedef struct tc__vm_def {
    const tc_ir_def *ir;
    int n_stmts;
    tc__vm_stmt *stmts;
    int max_regs, max_loops;
} tc__vm_def;

TC__PRIVATE tc_dtype tc__vm_compute_dtype(tc_dtype t) { return t == TC_FLOAT16 ? TC_FLOAT32 : t; }

/* Register operands an instruction reads (at most 5); returns the count. */
TC__PRIVATE int tc__vm_sources(const tc__vm_ins *in, unsigned *src) {
    int n = 0;
    switch ((tc_opcode)in->op) {
    case TC_OP_CONST: case TC_OP_INDEX: case TC_OP_SIZE: case TC_OP_GOFF: case TC_OP_COUNT: break;
    case TC_OP_LOAD: if (in->c != TC__VM_NONE) src[n++] = in->c; break;
    case TC_OP_GIDX: src[n++] = in->a; src[n++] = in->b; if (in->e != TC__VM_NONE) src[n++] = in->e; break;
    case TC_OP_GLOAD: src[n++] = in->b; if (in->d != TC__VM_NONE) src[n++] = in->d; break;
    case TC_OP_NEG: case TC_OP_NOT: case TC_OP_CAST: case TC_OP_HALF: src[n++] = in->b; break;
    case TC_OP_SELECT: src[n++] = in->b; src[n++] = in->c; src[n++] = in->d; break;
    case TC_OP_CALL: {
        int ar = tc_builtin_arity((tc_builtin)in->dt2);
        src[n++] = in->b;
        if (ar > 1) src[n++] = in->c;
        if (ar > 2) src[n++] = in->d;
        if (ar > 3) src[n++] = in->e;
        break;
    }
    default: src[n++] = in->b; src[n++] = in->c; break;
    }
    return n;
}

/* ==== [tc:emit] IR expression -> bytecode =================================
   A post-order walk from the statement's value, with an explicit stack (no
   recursion on user-controlled depth). `?:` evaluates its condition first,
   then each branch under a mask (parent mask AND cond, AND NOT cond) so a
   read in the unselected branch never touches memory. Only reads need the
   mask: arithmetic on masked-off lanes is harmless (no operation traps).
   Values are memoized per (node, mask), a node standing for every node of
   the same expression (tc__vm_mark_same: (Y - T) * (Y - T) loads Y and T
   once and subtracts once); subtrees without reads are shared by every
   mask. Virtual registers are then packed by a linear scan. */

typedef struct tc__vm_memo {
    struct tc__vm_memo *next;
    int mask, reg;
} tc__vm_memo;

typedef struct tc__vm_frame {
    int node, mask, stage, slot; /* slot: where the parent wants the result */
    int got[TC_MAX_RANK + 5];     /* operand registers; SELECT: masks in 3, 4 */
} tc__vm_frame;

typedef struct tc__vm_emit {
    tc__ctx *C;
    const tc_ir_def *def;
    const tc_ir_stmt *st;
    tc__vm_ins *ins;
    int n_ins, cap_ins;
    tc__vm_read *reads;
    int n_reads, cap_reads;
    uint64_t *consts;
    int n_consts, cap_consts;
    int n_vregs;
    tc_dtype *vdt; /* dtype of each virtual register */
    int cap_vdt;
    tc__vm_memo **memo; /* per node */
    int *same;          /* per node: the first node of the same expression */
    unsigned char *has_read;
    int n_pro;          /* prologue: block-invariant instructions */
    unsigned char *inv; /* per virtual register: block-invariant */
    unsigned char *chain; /* per instruction: length of the fused chain it starts */
} tc__vm_emit;

TC__PRIVATE int tc__vm_fail(tc__vm_emit *E, const char *what) {
    tc__span sp = {0, 0, 0, 0};
    sp.line = E->st->line;
    return tc__fail(E->C, TC_ERR_BACKEND, sp, "VM: %s (statement `%s`)", what,
                    E->st->text ? E->st->text : "?");
}

TC__PRIVATE int tc__vm_new_reg(tc__vm_emit *E, tc_dtype t) {
    if (E->n_vregs >= TC__VM_MAX_REGS) {
        tc__span sp = {0, 0, 0, 0};
        sp.line = E->st->line;
        return tc__fail(E->C, TC_ERR_LIMIT, sp, "expression too large for the VM") - 1;
    }
    if (!tc__grow(E->C, (void **)&E->vdt, &E->cap_vdt, E->n_vregs + 1, sizeof(tc_dtype)))
        return -1;
    E->vdt[E->n_vregs] = t;
    return E->n_vregs++;
}

/* An earlier instruction computing the same value (virtual registers are
   written once, so equal operands mean equal values), or -1. Memory ops
   are never shared: each has its own read slot. */
TC__PRIVATE int tc__vm_find_same(const tc__vm_emit *E, const tc__vm_ins *in) {
    int i, lo = E->n_ins > 4096 ? E->n_ins - 4096 : 0;
    if (in->op == TC_OP_LOAD || in->op == TC_OP_GOFF || in->op == TC_OP_GIDX ||
        in->op == TC_OP_GLOAD)
        return -1;
    for (i = E->n_ins - 1; i >= lo; i--) {
        const tc__vm_ins *o = &E->ins[i];
        if (o->op == in->op && o->dt == in->dt && o->dt2 == in->dt2 && o->b == in->b &&
            o->c == in->c && o->d == in->d && o->e == in->e)
            return o->a;
    }
    return -1;
}

/* Appends an instruction; returns its virtual destination register, -1
   on failure. */
TC__PRIVATE int tc__vm_add(tc__vm_emit *E, tc_opcode op, tc_dtype dt, int dt2, int b, int c,
                           int d, int e, tc_dtype dst_dt) {
    tc__vm_ins tmp, *in;
    int dst, same;
    memset(&tmp, 0, sizeof tmp);
    tmp.op = (uint8_t)op;
    tmp.dt = (uint8_t)dt;
    tmp.dt2 = (uint8_t)dt2;
    tmp.b = (uint16_t)b;
    tmp.c = (uint16_t)c;
    tmp.d = (uint16_t)d;
    tmp.e = (uint16_t)e;
    if ((same = tc__vm_find_same(E, &tmp)) >= 0) return same;
    dst = tc__vm_new_reg(E, dst_dt);
    if (dst < 0) return -1;
    if (!tc__grow(E->C, (void **)&E->ins, &E->cap_ins, E->n_ins + 1, sizeof(tc__vm_ins)))
        return -1;
    in = &E->ins[E->n_ins++];
    *in = tmp;
    in->a = (uint16_t)dst;
    return dst;
}

TC__PRIVATE int tc__vm_add_const(tc__vm_emit *E, const tc_ir_node *nd) {
    uint64_t bits = 0;
    int k;
    switch (nd->dtype) {
    case TC_FLOAT32: {
        float f = (float)nd->fval;
        memcpy(&bits, &f, sizeof f);
        break;
    }
    case TC_FLOAT64: memcpy(&bits, &nd->fval, sizeof nd->fval); break;
    case TC_BOOL: bits = nd->ival != 0; break;
    default: { /* little or big endian: store the value in the type's width */
        int8_t i8 = (int8_t)nd->ival;
        int16_t i16 = (int16_t)nd->ival;
        int32_t i32 = (int32_t)nd->ival;
        size_t sz = tc_dtype_size(nd->dtype);
        if (sz == 1) memcpy(&bits, &i8, 1);
        else if (sz == 2) memcpy(&bits, &i16, 2);
        else if (sz == 4) memcpy(&bits, &i32, 4);
        else memcpy(&bits, &nd->ival, 8);
    }
    }
    for (k = 0; k < E->n_consts; k++)
        if (E->consts[k] == bits) return k;
    if (E->n_consts >= TC__VM_MAX_REGS) return tc__vm_fail(E, "too many constants") - 1;
    if (!tc__grow(E->C, (void **)&E->consts, &E->cap_consts, E->n_consts + 1, sizeof(uint64_t)))
        return -1;
    E->consts[E->n_consts] = bits;
    return E->n_consts++;
}

TC__PRIVATE int tc__vm_add_read(tc__vm_emit *E, int node, int mask, int gather) {
    tc__vm_read *r;
    if (E->n_reads >= TC__VM_MAX_REGS) return tc__vm_fail(E, "too many reads") - 1;
    if (!tc__grow(E->C, (void **)&E->reads, &E->cap_reads, E->n_reads + 1, sizeof(tc__vm_read)))
        return -1;
    r = &E->reads[E->n_reads];
    r->node = node;
    r->tensor = E->st->nodes[node].tensor;
    r->gather = gather;
    r->masked = mask != TC__VM_NONE;
    return E->n_reads++;
}

/* Emits a read once its general index registers are known (f->got). */
TC__PRIVATE int tc__vm_emit_read(tc__vm_emit *E, const tc__vm_frame *f) {
    const tc_ir_node *nd = &E->st->nodes[f->node];
    const tc_ir_tensor *t = &E->def->tensors[nd->tensor];
    int d, k = 0, gather = 0, slot, off;
    for (d = 0; d < t->rank; d++) gather |= !nd->index[d].affine;
    slot = tc__vm_add_read(E, f->node, f->mask, gather);
    if (slot < 0) return -1;
    if (!gather)
        return tc__vm_add(E, TC_OP_LOAD, nd->dtype, 0, slot, f->mask, 0, 0, nd->dtype);
    off = tc__vm_add(E, TC_OP_GOFF, TC_INT64, 0, slot, 0, 0, 0, TC_INT64);
    for (d = 0; d < t->rank && off >= 0; d++) {
        tc__vm_ins *in;
        int ix;
        if (nd->index[d].affine) continue;
        ix = f->got[k++];
        if (!tc__grow(E->C, (void **)&E->ins, &E->cap_ins, E->n_ins + 1, sizeof(tc__vm_ins)))
            return -1;
        in = &E->ins[E->n_ins++];
        memset(in, 0, sizeof *in);
        in->op = TC_OP_GIDX;
        in->dt = TC_INT64;
        in->dt2 = (uint8_t)E->vdt[ix];
        in->a = (uint16_t)off;
        in->b = (uint16_t)ix;
        in->c = (uint16_t)slot;
        in->d = (uint16_t)d;
        in->e = (uint16_t)f->mask;
    }
    if (off < 0) return -1;
    return tc__vm_add(E, TC_OP_GLOAD, nd->dtype, 0, off, slot, f->mask, 0, nd->dtype);
}

/* Operand node ids of n: its args, or a read's general index nodes. */
TC__PRIVATE int tc__vm_children(const tc__vm_emit *E, int node, int *out) {
    const tc_ir_node *nd = &E->st->nodes[node];
    int i, n = 0;
    if (nd->op == TC_IR_READ) {
        const tc_ir_tensor *t = &E->def->tensors[nd->tensor];
        for (i = 0; i < t->rank; i++)
            if (!nd->index[i].affine) out[n++] = nd->index[i].node;
        return n;
    }
    if (nd->op == TC_IR_CONST || nd->op == TC_IR_INDEX || nd->op == TC_IR_SIZE) return 0;
    for (i = 0; i < nd->nargs && i < 4; i++) out[n++] = nd->args[i];
    return n;
}

/* Emits the instruction of a node whose operands are in f->got. */
TC__PRIVATE int tc__vm_emit_node(tc__vm_emit *E, const tc__vm_frame *f) {
    const tc_ir_node *nd = &E->st->nodes[f->node];
    const int *g = f->got;
    tc_dtype t = nd->dtype;
    int k;
    switch (nd->op) {
    case TC_IR_CONST:
        k = tc__vm_add_const(E, nd);
        return k < 0 ? -1 : tc__vm_add(E, TC_OP_CONST, t, 0, k, 0, 0, 0, t);
    case TC_IR_INDEX: return tc__vm_add(E, TC_OP_INDEX, TC_INT32, 0, nd->loop, 0, 0, 0, TC_INT32);
    case TC_IR_SIZE: return tc__vm_add(E, TC_OP_SIZE, TC_INT32, 0, nd->sx, 0, 0, 0, TC_INT32);
    case TC_IR_READ: return tc__vm_emit_read(E, f);
    case TC_IR_NEG: return tc__vm_add(E, TC_OP_NEG, t, 0, g[0], 0, 0, 0, t);
    case TC_IR_NOT: return tc__vm_add(E, TC_OP_NOT, TC_BOOL, 0, g[0], 0, 0, 0, TC_BOOL);
    case TC_IR_CAST:
        return tc__vm_add(E, TC_OP_CAST, t, (int)E->vdt[g[0]], g[0], 0, 0, 0, t);
    case TC_IR_HALF: return tc__vm_add(E, TC_OP_HALF, t, 0, g[0], 0, 0, 0, t);
    case TC_IR_SELECT: return tc__vm_add(E, TC_OP_SELECT, t, 0, g[0], g[1], g[2], 0, t);
    case TC_IR_CALL:
        return tc__vm_add(E, TC_OP_CALL, t, (int)nd->builtin, g[0], nd->nargs > 1 ? g[1] : 0,
                          nd->nargs > 2 ? g[2] : 0, nd->nargs > 3 ? g[3] : 0, t);
    case TC_IR_ADD: case TC_IR_SUB: case TC_IR_MUL: case TC_IR_DIV: case TC_IR_MOD:
    case TC_IR_MIN: case TC_IR_MAX: case TC_IR_AND: case TC_IR_OR: {
        static const tc_opcode map[] = {TC_OP_ADD, TC_OP_SUB, TC_OP_MUL, TC_OP_DIV, TC_OP_MOD};
        tc_opcode op = nd->op <= TC_IR_MOD ? map[nd->op - TC_IR_ADD]
                       : nd->op == TC_IR_MIN ? TC_OP_MIN
                       : nd->op == TC_IR_MAX ? TC_OP_MAX
                       : nd->op == TC_IR_AND ? TC_OP_AND
                                             : TC_OP_OR;
        return tc__vm_add(E, op, t, 0, g[0], g[1], 0, 0, t);
    }
    case TC_IR_LT: case TC_IR_LE: case TC_IR_GT: case TC_IR_GE: case TC_IR_EQ: case TC_IR_NE:
        return tc__vm_add(E, (tc_opcode)(TC_OP_LT + (nd->op - TC_IR_LT)), E->vdt[g[0]], 0, g[0],
                          g[1], 0, 0, TC_BOOL);
    case TC_IR_OP_COUNT: break;
    }
    return tc__vm_fail(E, "unknown IR operation") - 1;
}

TC__PRIVATE int tc__vm_memo_find(const tc__vm_emit *E, int node, int mask) {
    const tc__vm_memo *m;
    for (m = E->memo[node]; m; m = m->next)
        if (m->mask == mask || m->mask == TC__VM_NONE) return m->reg;
    return -1;
}
TC__PRIVATE int tc__vm_memo_add(tc__vm_emit *E, int node, int mask, int reg) {
    tc__vm_memo *m = (tc__vm_memo *)tc__alloc(E->C, sizeof *m);
    if (!m) return 0;
    m->mask = mask;
    m->reg = reg;
    m->next = E->memo[node];
    E->memo[node] = m;
    return 1;
}

/* At a SELECT after its condition: the masks of the branches that read
   memory (parent AND cond, parent AND NOT cond). */
TC__PRIVATE int tc__vm_branch_masks(tc__vm_emit *E, const tc__vm_frame *f, int *mb, int *mc) {
    const tc_ir_node *nd = &E->st->nodes[f->node];
    int parent = f->mask, cond = f->got[0], notc;
    *mb = *mc = TC__VM_NONE;
    if (E->has_read[nd->args[1]])
        *mb = parent == TC__VM_NONE
                  ? cond
                  : tc__vm_add(E, TC_OP_AND, TC_BOOL, 0, parent, cond, 0, 0, TC_BOOL);
    if (E->has_read[nd->args[2]]) {
        notc = tc__vm_add(E, TC_OP_NOT, TC_BOOL, 0, cond, 0, 0, 0, TC_BOOL);
        *mc = parent == TC__VM_NONE || notc < 0
                  ? notc
                  : tc__vm_add(E, TC_OP_AND, TC_BOOL, 0, parent, notc, 0, 0, TC_BOOL);
    }
    return *mb >= 0 && *mc >= 0;
}

/* Post-order walk of the value's expression. Returns the value's register. */
TC__PRIVATE int tc__vm_emit_expr(tc__vm_emit *E) {
    const tc_ir_stmt *st = E->st;
    int cap = 64, sp = 0, result = -1;
    tc__vm_frame *stack = (tc__vm_frame *)tc__alloc_n(E->C, (size_t)cap, sizeof(tc__vm_frame));
    if (!stack) return -1;
    memset(&stack[0], 0, sizeof stack[0]);
    stack[0].node = st->value;
    stack[0].mask = TC__VM_NONE;
    stack[0].slot = -1;
    sp = 1;
    while (sp > 0 && !E->C->failed) {
        tc__vm_frame *f = &stack[sp - 1];
        const tc_ir_node *nd = &st->nodes[f->node];
        int kids[TC_MAX_RANK + 5], nk = tc__vm_children(E, f->node, kids), reg = -1;
        int mask = f->mask;
        if (f->stage == 0 && (reg = tc__vm_memo_find(E, E->same[f->node], f->mask)) >= 0) {
            /* done already */
        } else if (nd->op == TC_IR_SELECT && f->stage == 1) {
            int mb, mc;
            if (!tc__vm_branch_masks(E, f, &mb, &mc)) return -1;
            f->got[3] = mb; /* stash: branch masks live in got[3], got[4] */
            f->got[4] = mc;
        }
        if (reg < 0 && f->stage < nk) { /* descend into the next operand */
            int child = kids[f->stage], cmask = mask;
            if (nd->op == TC_IR_SELECT && f->stage > 0) cmask = f->got[2 + f->stage];
            if (!E->has_read[child]) cmask = TC__VM_NONE;
            if (sp == cap) {
                tc__vm_frame *ns;
                if (cap > (1 << 24)) return tc__vm_fail(E, "expression too deep") - 1;
                ns = (tc__vm_frame *)tc__alloc_n(E->C, (size_t)cap * 2, sizeof(tc__vm_frame));
                if (!ns) return -1;
                memcpy(ns, stack, (size_t)cap * sizeof *ns);
                stack = ns;
                cap *= 2;
                f = &stack[sp - 1];
            }
            memset(&stack[sp], 0, sizeof stack[sp]);
            stack[sp].node = child;
            stack[sp].mask = cmask;
            stack[sp].slot = f->stage;
            sp++;
            continue;
        }
        if (reg < 0) {
            reg = tc__vm_emit_node(E, f);
            if (reg < 0 || !tc__vm_memo_add(E, E->same[f->node], f->mask, reg)) return -1;
        }
        sp--;
        if (sp == 0) result = reg;
        else {
            tc__vm_frame *p = &stack[sp - 1];
            p->got[f->slot] = reg;
            p->stage++;
        }
    }
    return E->C->failed ? -1 : result;
}

/* Nodes a and b (a < b) compute the same value: same operation, dtype
   and payload, operands the same expressions (same[] of earlier nodes). */
TC__PRIVATE int tc__vm_same_node(const tc__vm_emit *E, int a, int b) {
    const tc_ir_node *x = &E->st->nodes[a], *y = &E->st->nodes[b];
    int k, d, rank = x->op == TC_IR_READ ? E->def->tensors[x->tensor].rank : 0;
    if (!tc__ir_same_payload(x, y, rank, E->st->n_loops)) return 0;
    for (k = 0; k < x->nargs && k < 4; k++)
        if (E->same[x->args[k]] != E->same[y->args[k]]) return 0;
    for (d = 0; d < rank; d++)
        if (!x->index[d].affine && E->same[x->index[d].node] != E->same[y->index[d].node]) return 0;
    return 1;
}

/* same[n]: the first node computing n's value, found through a hash of
   each node's operation and operands (expected linear time). */
TC__PRIVATE int tc__vm_mark_same(tc__vm_emit *E) {
    const tc_ir_stmt *st = E->st;
    size_t cap = 16, h, k;
    int i, *table;
    while (cap < (size_t)st->n_nodes * 2) cap *= 2;
    E->same = (int *)tc__alloc_n(E->C, (size_t)st->n_nodes + 1, sizeof(int));
    table = (int *)tc__alloc_n(E->C, cap, sizeof(int));
    if (!E->same || !table) return 0;
    for (k = 0; k < cap; k++) table[k] = -1;
    for (i = 0; i < st->n_nodes; i++) {
        const tc_ir_node *nd = &st->nodes[i];
        h = (size_t)nd->op * 31u + (size_t)nd->dtype;
        for (k = 0; k < (size_t)nd->nargs && k < 4; k++) h = h * 131u + (size_t)E->same[nd->args[k]];
        if (nd->op == TC_IR_READ) h = h * 131u + (size_t)nd->tensor;
        if (nd->op == TC_IR_CONST) {
            uint64_t bits;
            memcpy(&bits, &nd->fval, sizeof bits);
            h = h * 131u + (size_t)nd->ival + (size_t)(bits ^ (bits >> 32));
        }
        for (h &= cap - 1; table[h] >= 0 && !tc__vm_same_node(E, table[h], i); h = (h + 1) & (cap - 1))
            continue;
        if (table[h] < 0) table[h] = i;
        E->same[i] = table[h];
    }
    return 1;
}

/* has_read[n]: the subtree of n contains a tensor read (nodes are in
   topological order, so one forward pass suffices). */
TC__PRIVATE int tc__vm_mark_reads(tc__vm_emit *E) {
    const tc_ir_stmt *st = E->st;
    int i, k;
    E->has_read = (unsigned char *)tc__alloc_n(E->C, (size_t)st->n_nodes + 1, 1);
    E->memo = (tc__vm_memo **)tc__alloc_n(E->C, (size_t)st->n_nodes + 1, sizeof(tc__vm_memo *));
    if (!E->has_read || !E->memo) return 0;
    for (i = 0; i < st->n_nodes; i++) {
        int kids[TC_MAX_RANK + 5], nk = tc__vm_children(E, i, kids);
        E->has_read[i] = st->nodes[i].op == TC_IR_READ;
        for (k = 0; k < nk; k++) {
            if (kids[k] < 0 || kids[k] >= i) return tc__vm_fail(E, "IR nodes out of order");
            E->has_read[i] |= E->has_read[kids[k]];
        }
    }
    return 1;
}

/* Operand slots of an instruction that name registers: read (r) and
   written (w), from the format string. */
TC__PRIVATE int tc__vm_reg_operands(tc__vm_ins *in, uint16_t **ops, char *kinds) {
    const char *fmt = tc__ops[in->op].fmt;
    uint16_t *all[5];
    int i, n = 0;
    all[0] = &in->a;
    all[1] = &in->b;
    all[2] = &in->c;
    all[3] = &in->d;
    all[4] = &in->e;
    for (i = 0; fmt[i] && i < 5; i++) {
        char k = fmt[i];
        if (in->op == TC_OP_CALL && i > tc_builtin_arity((tc_builtin)in->dt2)) break;
        if (k == 'V' || k == 'v' || k == 'U' || (k == 'm' && *all[i] != TC__VM_NONE)) {
            ops[n] = all[i];
            kinds[n++] = k;
        }
    }
    return n;
}

/* Linear-scan register packing. A destination never shares a register
   with a source of the same instruction (kernels use restrict pointers). */
TC__PRIVATE int tc__vm_pack_regs(tc__vm_emit *E, int value, int *n_phys, int *value_phys) {
    int *last = (int *)tc__alloc_n(E->C, (size_t)E->n_vregs + 1, sizeof(int));
    int *phys = (int *)tc__alloc_n(E->C, (size_t)E->n_vregs + 1, sizeof(int));
    int *freel = (int *)tc__alloc_n(E->C, (size_t)E->n_vregs + 1, sizeof(int));
    int i, k, nfree = 0, nphys = 0;
    if (!last || !phys || !freel) return 0;
    for (i = 0; i < E->n_ins; i++) {
        uint16_t *ops[5];
        char kinds[5];
        int n = tc__vm_reg_operands(&E->ins[i], ops, kinds);
        for (k = 0; k < n; k++) last[*ops[k]] = i;
    }
    last[value] = E->n_ins;
    for (i = 0; E->chain && i < E->n_ins; i++) /* a chain reads its operands until its end */
        if (E->chain[i]) {
            for (k = i; k < i + E->chain[i]; k++) {
                if (last[E->ins[k].b] < i + E->chain[i] - 1) last[E->ins[k].b] = i + E->chain[i] - 1;
                if (last[E->ins[k].c] < i + E->chain[i] - 1) last[E->ins[k].c] = i + E->chain[i] - 1;
            }
        }
    for (i = 0; i < E->n_ins; i++) /* block-invariant values keep their register */
        if (E->inv && E->inv[E->ins[i].a] && tc__ops[E->ins[i].op].fmt[0] == 'V')
            last[E->ins[i].a] = E->n_ins;
    for (i = 0; i < E->n_ins; i++) {
        tc__vm_ins *in = &E->ins[i];
        uint16_t *ops[5];
        char kinds[5];
        int n = tc__vm_reg_operands(in, ops, kinds), dst = -1;
        for (k = 0; k < n; k++) {
            if (kinds[k] == 'V') {
                dst = *ops[k];
                phys[dst] = nfree ? freel[--nfree] : nphys++;
            }
        }
        for (k = 0; k < n; k++) { /* free sources whose last use this is */
            int v = *ops[k];
            if (kinds[k] != 'V' && last[v] == i && v != dst) {
                last[v] = -1; /* once, even if it appears twice */
                freel[nfree++] = phys[v];
            }
            *ops[k] = (uint16_t)phys[v];
        }
        if (dst >= 0 && last[dst] == i) freel[nfree++] = phys[dst]; /* dead value */
    }
    *n_phys = nphys;
    *value_phys = phys[value];
    return 1;
}

/* ==== [tc:verify] Bytecode verifier ========================================
   Runs on every compiled statement: opcodes, dtypes, operand ranges and
   register kinds (every register read was written before, with the dtype
   the instruction expects). The VM then trusts the program. */

/* The dtype an instruction expects of its register operand `k` (format
   letter position), or -1 for "any". */
TC__PRIVATE int tc__vm_operand_dtype(const tc__vm_ins *in, int pos) {
    switch ((tc_opcode)in->op) {
    case TC_OP_GIDX: return pos == 0 ? (int)TC_INT64 : pos == 1 ? (int)in->dt2 : (int)TC_BOOL;
    case TC_OP_GLOAD: return pos == 1 ? TC_INT64 : TC_BOOL;
    case TC_OP_LOAD: return TC_BOOL;
    case TC_OP_CAST: return in->dt2;
    case TC_OP_SELECT: return pos == 1 ? (int)TC_BOOL : (int)in->dt;
    case TC_OP_NOT: case TC_OP_AND: case TC_OP_OR: return TC_BOOL;
    default: return in->dt;
    }
}

TC__PRIVATE const char *tc__vm_verify_ins(const tc__vm_stmt *s, const tc_ir_def *def,
                                          const tc__vm_ins *in, signed char *rdt) {
    const char *fmt;
    const uint16_t *opnd[5];
    int i;
    if (in->op >= TC_OP_COUNT) return "bad opcode";
    if (in->dt >= TC_DTYPE_COUNT || in->dt == TC_FLOAT16) return "bad dtype";
    fmt = tc__ops[in->op].fmt;
    opnd[0] = &in->a; opnd[1] = &in->b; opnd[2] = &in->c; opnd[3] = &in->d; opnd[4] = &in->e;
    if (in->op == TC_OP_CALL) {
        if (in->dt2 >= TC_BUILTIN_COUNT) return "bad builtin";
        if (in->dt != TC_FLOAT32 && in->dt != TC_FLOAT64) return "builtin on a non-float dtype";
    }
    if (in->op == TC_OP_HALF && in->dt != TC_FLOAT32 && in->dt != TC_FLOAT64)
        return "float16 rounding of a non-float dtype";
    if (in->op == TC_OP_CAST && (in->dt2 >= TC_DTYPE_COUNT || in->dt2 == TC_FLOAT16))
        return "bad cast source";
    if (in->op == TC_OP_GIDX && (in->dt2 >= TC_DTYPE_COUNT || !tc__dtype_is_int((tc_dtype)in->dt2)))
        return "gather index is not an integer";
    for (i = 0; fmt[i]; i++) {
        unsigned v = *opnd[i];
        int want;
        if (in->op == TC_OP_CALL && i > tc_builtin_arity((tc_builtin)in->dt2)) break;
        switch (fmt[i]) {
        case 'V': break; /* checked below, after the sources */
        case 'v': case 'U': case 'm':
            if (fmt[i] == 'm' && v == TC__VM_NONE) break;
            if ((int)v >= s->n_regs || rdt[v] < 0) return "register read before it is written";
            want = tc__vm_operand_dtype(in, i);
            if (want >= 0 && rdt[v] != want) return "register holds the wrong dtype";
            break;
        case 'R':
            if ((int)v >= s->n_reads) return "bad read slot";
            if (s->reads[v].gather != (in->op != TC_OP_LOAD)) return "read slot kind mismatch";
            if (in->op == TC_OP_GIDX && (int)in->d >= def->tensors[s->reads[v].tensor].rank)
                return "bad gather dimension";
            break;
        case 'K': if ((int)v >= s->n_consts) return "bad constant"; break;
        case 'L': if ((int)v >= s->ir->n_loops) return "bad loop"; break;
        case 'S': if ((int)v >= def->n_sx) return "bad size expression"; break;
        default: break;
        }
    }
    if (fmt[0] == 'V') {
        if ((int)in->a >= s->n_regs) return "bad destination register";
        rdt[in->a] = (signed char)(in->op >= TC_OP_LT && in->op <= TC_OP_OR ? (int)TC_BOOL
                                   : in->op == TC_OP_GOFF ? (int)TC_INT64 : (int)in->dt);
    }
    return NULL;
}

TC__PRIVATE int tc__vm_verify(tc__ctx *C, const tc_ir_def *def, const tc__vm_stmt *s) {
    signed char *rdt = (signed char *)tc__alloc_n(C, (size_t)s->n_regs + 1, 1);
    const char *why = NULL;
    tc__span sp = {0, 0, 0, 0};
    int i;
    if (!rdt) return 0;
    memset(rdt, -1, (size_t)s->n_regs + 1);
    for (i = 0; i < s->n_reads && !why; i++)
        if (s->reads[i].tensor < 0 || s->reads[i].tensor >= def->n_tensors) why = "bad tensor";
    for (i = 0; i < s->n_ins && !why; i++) why = tc__vm_verify_ins(s, def, &s->ins[i], rdt);
    if (!why && (s->value < 0 || s->value >= s->n_regs || rdt[s->value] != (int)s->vdt))
        why = "the value register does not hold the written tensor's dtype";
    if (!why) return 1;
    sp.line = s->ir->line;
    return tc__fail(C, TC_ERR_BACKEND, sp, "bytecode verifier: %s at instruction %d (`%s`)", why,
                    i - 1, s->ir->text ? s->ir->text : "?");
}

/* ==== [tc:compile] One def -> verified bytecode ============================ */

/* value = A * B, reduced by SUM, each operand an affine unmasked read, or
   a cast of one to the value's dtype (float(A(i,k)) over int8 A; a
   float16 tensor's read, which computes in float32, is one too; integer
   values of 4 or 8 bytes from integer operands: int32(A(i,k)) *
   int32(W(k,j)) over int8), the written tensor stored in the value's
   dtype: the contraction microkernel applies. Operands are converted as the tile reads them, exactly as the
   bytecode's CAST (each conversion is a function of the element alone),
   so the products and their order are the bytecode's. */
TC__PRIVATE void tc__vm_find_contraction(const tc_ir_def *def, const tc_ir_stmt *st,
                                         tc__vm_stmt *s) {
    const tc_ir_node *v = &st->nodes[st->value];
    int i;
    s->contract.ok = 0;
    if (st->reduce != TC_REDUCE_SUM || v->op != TC_IR_MUL) return;
    if (v->dtype != TC_FLOAT32 && v->dtype != TC_FLOAT64 && v->dtype != TC_INT32 &&
        v->dtype != TC_UINT32 && v->dtype != TC_INT64 && v->dtype != TC_UINT64)
        return;
    if (def->tensors[st->tensor].dtype != v->dtype) return;
    if (s->n_reads != 2 || s->reads[0].gather || s->reads[1].gather) return;
    if (s->reads[0].masked || s->reads[1].masked) return;
    for (i = 0; i < 2; i++) {
        const tc_ir_node *a = &st->nodes[v->args[i]];
        if (a->op == TC_IR_CAST && a->dtype == v->dtype) a = &st->nodes[a->args[0]];
        if (a->op != TC_IR_READ || a->tensor != s->reads[i].tensor) return;
        s->contract.src[i] = def->tensors[a->tensor].dtype;
        if (s->contract.src[i] == TC_FLOAT16 && v->dtype != TC_FLOAT32) return;
        if (!tc__dtype_is_float(v->dtype) && tc__dtype_is_float(s->contract.src[i])) return;
    }
    s->contract.ok = 1;
    s->contract.p = 0;
    s->contract.q = 1;
}

/* Block-invariant instructions: CONST and SIZE, and pure operations whose
   operands are all invariant (N cast to float, 1/N). Virtual registers are
   written once, so one forward pass finds them all. */
TC__PRIVATE int tc__vm_invariant(const tc__vm_ins *in, const unsigned char *inv) {
    uint16_t *ops[5];
    char kinds[5];
    tc__vm_ins tmp = *in;
    int k, n;
    switch ((tc_opcode)in->op) {
    case TC_OP_CONST: case TC_OP_SIZE: return 1;
    case TC_OP_INDEX: case TC_OP_LOAD: case TC_OP_GOFF: case TC_OP_GIDX: case TC_OP_GLOAD:
    case TC_OP_COUNT: return 0;
    default: break;
    }
    n = tc__vm_reg_operands(&tmp, ops, kinds);
    for (k = 0; k < n; k++)
        if (kinds[k] != 'V' && !inv[*ops[k]]) return 0;
    return 1;
}

/* Moves the block-invariant instructions to the front, in order: the
   prologue runs once per chunk of blocks, not per block. */
TC__PRIVATE int tc__vm_hoist(tc__vm_emit *E) {
    tc__vm_ins *tmp = (tc__vm_ins *)tc__alloc_n(E->C, (size_t)E->n_ins + 1, sizeof(tc__vm_ins));
    unsigned char *inv = (unsigned char *)tc__alloc_n(E->C, (size_t)E->n_vregs + 1, 1);
    unsigned char *is = (unsigned char *)tc__alloc_n(E->C, (size_t)E->n_ins + 1, 1);
    int i, k = 0, pass;
    if (!tmp || !inv || !is) return -1;
    for (i = 0; i < E->n_ins; i++) {
        is[i] = (unsigned char)tc__vm_invariant(&E->ins[i], inv);
        if (is[i]) inv[E->ins[i].a] = 1;
    }
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < E->n_ins; i++)
            if (is[i] == !pass) tmp[k++] = E->ins[i];
        if (pass == 0) E->n_pro = k;
    }
    memcpy(E->ins, tmp, (size_t)E->n_ins * sizeof(tc__vm_ins));
    E->inv = inv;
    return E->n_pro;
}

/* float32 + - * / whose result is its only use's left operand (+ and *
   swap their operands to make it so): the next link of a fused chain. */
TC__PRIVATE int tc__vm_chain_op(const tc__vm_ins *in) {
    return in->dt == TC_FLOAT32 && in->op >= TC_OP_ADD && in->op <= TC_OP_DIV;
}
TC__PRIVATE int tc__vm_chain_next(tc__vm_emit *E, const int *uses, int i) {
    int r = E->ins[i].a, j;
    if (uses[r] != 1) return -1;
    for (j = i + 1; j < E->n_ins; j++) {
        tc__vm_ins *in = &E->ins[j];
        unsigned src[5];
        int k, ns = tc__vm_sources(in, src), reads = 0;
        for (k = 0; k < ns; k++) reads |= src[k] == (unsigned)r;
        if (!reads) continue;
        if (!tc__vm_chain_op(in)) return -1;
        if (in->c == r && (in->op == TC_OP_ADD || in->op == TC_OP_MUL)) { /* IEEE + and * commute */
            in->c = in->b;
            in->b = (uint16_t)r;
        }
        return in->b == r ? j : -1;
    }
    return -1;
}

/* Fused chains ([tc:kernels] tc__k_chain_f32): up to three float32 ops
   each feeding only the next one run as one pass over the block. The
   instructions between the links (loads of the other operands; they
   cannot read a link's value, used only by the next link) move ahead of
   the chain so its links are adjacent. Runs on virtual registers. */
TC__PRIVATE int tc__vm_chains(tc__vm_emit *E, int value) {
    int *uses = (int *)tc__alloc_n(E->C, (size_t)E->n_vregs + 1, sizeof(int));
    tc__vm_ins moved[3];
    int i, k;
    E->chain = (unsigned char *)tc__alloc_n(E->C, (size_t)E->n_ins + 1, 1);
    if (!uses || !E->chain) return 0;
    for (i = 0; i < E->n_ins; i++) {
        unsigned src[5];
        int ns = tc__vm_sources(&E->ins[i], src);
        for (k = 0; k < ns; k++) uses[src[k]]++;
    }
    uses[value]++; /* the store reads it */
    for (i = E->n_pro; i < E->n_ins; i++) {
        int link[3], n = 1, at, o;
        if (!tc__vm_chain_op(&E->ins[i]) || (E->inv && E->inv[E->ins[i].a])) continue;
        link[0] = i;
        while (n < 3 && (link[n] = tc__vm_chain_next(E, uses, link[n - 1])) >= 0) n++;
        if (n < 2) continue;
        for (k = 0; k < n; k++) moved[k] = E->ins[link[k]];
        for (at = i, o = i, k = 0; o <= link[n - 1]; o++) { /* others keep their order, first */
            if (k < n && o == link[k]) { k++; continue; }
            E->ins[at++] = E->ins[o];
        }
        for (k = 0; k < n; k++) E->ins[at + k] = moved[k];
        E->chain[at] = (unsigned char)n;
        i = at + n - 1;
    }
    return 1;
}

/* The gather check slice: the instructions the GIDX checks need (their
   index and mask operands, transitively). When those read only inputs,
   the run can check every gather of the statement before anything is
   written: a failing gather then leaves the caller's outputs untouched.
   Runs on virtual registers (each written once), before packing. */
TC__PRIVATE int tc__vm_check_slice(tc__vm_emit *E, unsigned char **out) {
    unsigned char *need = (unsigned char *)tc__alloc_n(E->C, (size_t)E->n_ins + 1, 1);
    unsigned char *live = (unsigned char *)tc__alloc_n(E->C, (size_t)E->n_vregs + 1, 1);
    int i, k, any = 0;
    *out = NULL;
    if (!need || !live) return 0;
    for (i = E->n_ins - 1; i >= 0; i--) {
        tc__vm_ins *in = &E->ins[i];
        unsigned src[5];
        int ns;
        if (in->op == TC_OP_GIDX) need[i] = 1;
        else if (tc__ops[in->op].fmt[0] == 'V' && live[in->a]) need[i] = 1;
        if (!need[i]) continue;
        any = 1;
        ns = tc__vm_sources(in, src);
        for (k = 0; k < ns; k++) live[src[k]] = 1;
        if ((in->op == TC_OP_LOAD || in->op == TC_OP_GOFF || in->op == TC_OP_GLOAD) &&
            E->reads[in->op == TC_OP_GLOAD ? in->c : in->b].tensor >= E->def->n_inputs)
            return 1; /* depends on data the def computes: checked as it runs */
    }
    *out = any ? need : NULL;
    return 1;
}

TC__PRIVATE int tc__vm_compile_stmt(tc__ctx *C, const tc_ir_def *def, const tc_ir_stmt *st,
                                    tc__vm_stmt *s) {
    tc__vm_emit E;
    int value, nphys = 0, vphys = 0;
    memset(&E, 0, sizeof E);
    E.C = C;
    E.def = def;
    E.st = st;
    s->ir = st;
    if (st->tensor < 0 || st->tensor >= def->n_tensors || st->value < 0 ||
        st->value >= st->n_nodes || (unsigned)st->reduce >= TC_REDUCE_COUNT)
        return tc__vm_fail(&E, "malformed statement");
    s->vdt = tc__vm_compute_dtype(def->tensors[st->tensor].dtype);
    if (!tc__vm_mark_reads(&E) || !tc__vm_mark_same(&E)) return 0;
    value = tc__vm_emit_expr(&E);
    if (value < 0 || tc__vm_hoist(&E) < 0 || !tc__vm_chains(&E, value) ||
        !tc__vm_check_slice(&E, &s->check) ||
        !tc__vm_pack_regs(&E, value, &nphys, &vphys))
        return 0;
    s->n_pro = E.n_pro;
    s->n_ins = E.n_ins;
    s->ins = E.ins;
    s->n_reads = E.n_reads;
    s->reads = E.reads;
    s->n_consts = E.n_consts;
    s->consts = E.consts;
    s->n_regs = nphys;
    s->value = vphys;
    s->chain = E.chain;
    tc__vm_find_contraction(def, st, s);
    return tc__vm_verify(C, def, s);
}

TC__PRIVATE int tc__backend_def(tc__ctx *C, const tc_ir_def *ir, void **out) {
    tc__vm_def *vd = (tc__vm_def *)tc__alloc(C, sizeof(tc__vm_def));
    int i;
    *out = NULL;
    if (!vd) return 0;
    vd->ir = ir;
    vd->n_stmts = ir->n_stmts;
    vd->stmts = (tc__vm_stmt *)tc__alloc_n(C, (size_t)(ir->n_stmts ? ir->n_stmts : 1),
                                           sizeof(tc__vm_stmt));
    if (!vd->stmts) return 0;
    for (i = 0; i < ir->n_stmts; i++) {
        tc__contract *ct = NULL;
        if (!tc__vm_compile_stmt(C, ir, &ir->stmts[i], &vd->stmts[i])) return 0;
        if (vd->stmts[i].contract.ok && tc__contract_match(C, ir, i, &ct)) vd->stmts[i].engine = ct;
        if (C->failed) return 0;
        if (vd->stmts[i].n_regs > vd->max_regs) vd->max_regs = vd->stmts[i].n_regs;
        if (ir->stmts[i].n_loops > vd->max_loops) vd->max_loops = ir->stmts[i].n_loops;
    }
    *out = vd;
    return 1;
}

/* ==== [tc:kernels] Per-dtype lane kernels ===================================
   Element semantics per kind: ints wrap (computed in an unsigned type of at
   least int width), divide with floor and x/0 = 0, floats follow IEEE and
   min/max ignore NaN (C99 fmin/fmax, CUDA's min/max). bool is 0/1; its
   arithmetic saturates (+ is ||, * is &&). Each kernel is a loop over
   n <= TC_BLOCK lanes with restrict pointers that compilers vectorize. */
TC__VECTORIZE_BEGIN

/* clang-format off */
/*  sfx  dtype    C type    wrap type  kind */
#define TC__VM_TYPES_POOLED(X)                   \
    X(i32, INT32,   int32_t,  uint32_t, I)     \
    X(u8,  UINT8,   uint8_t,  uint32_t, U)     \
    X(f32, FLOAT32, float,    float,    F)     \
    X(f64, FLOAT64, double,   double,   F)
#define TC__VM_TYPES_REST(X)                 \
    X(b,   BOOL,    uint8_t,  uint32_t, B)     \
    X(i8,  INT8,    int8_t,   uint32_t, I)     \
    X(i16, INT16,   int16_t,  uint32_t, I)     \
    X(i64, INT64,   int64_t,  uint64_t, I)     \
    X(u16, UINT16,  uint16_t, uint32_t, U)     \
    X(u32, UINT32,  uint32_t, uint32_t, U)     \
    X(u64, UINT64,  uint64_t, uint64_t, U)
/* clang-format on */
/* Every dtype the VM computes in. The kernels that only speed up one
   pattern (the pair and 2x2-window reductions of windows and pooling) are
   made for TC__VM_TYPES_POOLED alone, the dtypes such statements are
   written in; the others take the general path, which gives the same
   values (integer reductions are exact in any order). Each instantiation
   is build time for every user of the header. */
#define TC__VM_TYPES(X) TC__VM_TYPES_POOLED(X) TC__VM_TYPES_REST(X)

/* Element functions: tc__e_<op>_<sfx>(x, y). */
#define TC__VM_ELEM_WRAP(sfx, T, W)                                                          \
    static inline T tc__e_add_##sfx(T x, T y) { return (T)((W)x + (W)y); }                  \
    static inline T tc__e_sub_##sfx(T x, T y) { return (T)((W)x - (W)y); }                  \
    static inline T tc__e_mul_##sfx(T x, T y) { return (T)((W)x * (W)y); }                  \
    static inline T tc__e_neg_##sfx(T x) { return (T)((W)0 - (W)x); }                        \
    static inline T tc__e_min_##sfx(T x, T y) { return y < x ? y : x; }                      \
    static inline T tc__e_max_##sfx(T x, T y) { return y > x ? y : x; }
#define TC__VM_ELEM_I(sfx, T, W)                                                             \
    TC__VM_ELEM_WRAP(sfx, T, W)                                                              \
    static inline T tc__e_div_##sfx(T x, T y) {                                              \
        T q, r;                                                                              \
        if (y == 0) return 0;                                                                \
        if (y == -1) return tc__e_neg_##sfx(x);                                              \
        q = (T)(x / y);                                                                      \
        r = (T)(x % y);                                                                      \
        return (T)((r != 0 && ((r < 0) != (y < 0))) ? q - 1 : q);                            \
    }                                                                                        \
    static inline T tc__e_mod_##sfx(T x, T y) {                                              \
        T r;                                                                                 \
        if (y == 0 || y == -1) return 0;                                                     \
        r = (T)(x % y);                                                                      \
        return (T)((r != 0 && ((r < 0) != (y < 0))) ? r + y : r);                            \
    }
#define TC__VM_ELEM_U(sfx, T, W)                                                             \
    TC__VM_ELEM_WRAP(sfx, T, W)                                                              \
    static inline T tc__e_div_##sfx(T x, T y) { return (T)(y ? x / y : 0); }                 \
    static inline T tc__e_mod_##sfx(T x, T y) { return (T)(y ? x % y : 0); }
#define TC__VM_ELEM_B(sfx, T, W)                                                             \
    static inline T tc__e_add_##sfx(T x, T y) { return (T)(x | y); }                         \
    static inline T tc__e_sub_##sfx(T x, T y) { return (T)(x ^ y); }                         \
    static inline T tc__e_mul_##sfx(T x, T y) { return (T)(x & y); }                         \
    static inline T tc__e_div_##sfx(T x, T y) { return (T)(x & y); }                         \
    static inline T tc__e_mod_##sfx(T x, T y) { return (T)((x & y) ^ (x & y)); }             \
    static inline T tc__e_neg_##sfx(T x) { return x; }                                       \
    static inline T tc__e_min_##sfx(T x, T y) { return (T)(x & y); }                         \
    static inline T tc__e_max_##sfx(T x, T y) { return (T)(x | y); }
#define TC__VM_ELEM_F(sfx, T, W)                                                             \
    static inline T tc__e_add_##sfx(T x, T y) { return x + y; }                              \
    static inline T tc__e_sub_##sfx(T x, T y) { return x - y; }                              \
    static inline T tc__e_mul_##sfx(T x, T y) { return x * y; }                              \
    static inline T tc__e_div_##sfx(T x, T y) { return x / y; }                              \
    static inline T tc__e_neg_##sfx(T x) { return -x; }                                      \
    static inline T tc__e_min_##sfx(T x, T y) { return TC__FMIN(x, y); }                     \
    static inline T tc__e_max_##sfx(T x, T y) { return TC__FMAX(x, y); }
#define TC__VM_ELEM(sfx, DT, T, W, K) TC__VM_ELEM_##K(sfx, T, W)
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
TC__VM_TYPES(TC__VM_ELEM)
/* Accumulating min/max: the accumulator starts at the identity and only
   ever takes a value that compares beyond it, so it is never NaN and NaN
   inputs are ignored with one compare (as a C loop writes it). */
#define TC__VM_ELEM_ACC(sfx, DT, T, W, K)                                                    \
    static inline T tc__e_amin_##sfx(T x, T y) { return y < x ? y : x; }                     \
    static inline T tc__e_amax_##sfx(T x, T y) { return y > x ? y : x; }
TC__VM_TYPES(TC__VM_ELEM_ACC)
#undef TC__VM_ELEM_ACC
/* Float %: the sign of the divisor, as integer % (SEMANTICS.md 4) and as
   numpy's and PyTorch's % on floats: fmod's exact remainder, plus y where
   their signs differ (that sum rounds: -1e-30 % 1 is 1); a zero takes y's
   sign. fmod's NaN (y zero, x infinite, a NaN) passes through. */
#define TC__VM_FMOD(sfx, T, FMOD, COPYSIGN)                                                  \
    static inline T tc__e_mod_##sfx(T x, T y) {                                              \
        T r = FMOD(x, y);                                                                    \
        if (r == 0) return COPYSIGN((T)0, y);                                                \
        return (r < 0) != (y < 0) ? r + y : r;                                               \
    }
TC__VM_FMOD(f32, float, fmodf, copysignf)
TC__VM_FMOD(f64, double, fmod, copysign)
#undef TC__VM_FMOD
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Arithmetic and comparisons over n lanes of one dtype. */
#define TC__VM_LOOP(expr)                                                                    \
    for (i = 0; i < n; i++) d[i] = (expr)
#define TC__VM_ARITH(sfx, DT, T, W, K)                                                       \
    TC__KERNEL void tc__k_arith_##sfx(int op, void *dv, const void *av, const void *bv,     \
                                       int n) {                                              \
        T *TC__RESTRICT d = (T *)dv;                                                         \
        const T *TC__RESTRICT a = (const T *)av;                                             \
        const T *TC__RESTRICT b = (const T *)bv;                                             \
        int i;                                                                               \
        switch (op) {                                                                        \
        case TC_OP_ADD: TC__VM_LOOP(tc__e_add_##sfx(a[i], b[i])); break;                     \
        case TC_OP_SUB: TC__VM_LOOP(tc__e_sub_##sfx(a[i], b[i])); break;                     \
        case TC_OP_MUL: TC__VM_LOOP(tc__e_mul_##sfx(a[i], b[i])); break;                     \
        case TC_OP_DIV: TC__VM_LOOP(tc__e_div_##sfx(a[i], b[i])); break;                     \
        case TC_OP_MOD: TC__VM_LOOP(tc__e_mod_##sfx(a[i], b[i])); break;                     \
        case TC_OP_MIN: TC__VM_LOOP(tc__e_min_##sfx(a[i], b[i])); break;                     \
        case TC_OP_MAX: TC__VM_LOOP(tc__e_max_##sfx(a[i], b[i])); break;                     \
        case TC_OP_NEG: TC__VM_LOOP(tc__e_neg_##sfx(a[i])); break;                           \
        default: break;                                                                      \
        }                                                                                    \
    }                                                                                        \
    TC__KERNEL void tc__k_cmp_##sfx(int op, void *dv, const void *av, const void *bv,       \
                                     int n) {                                                \
        uint8_t *TC__RESTRICT d = (uint8_t *)dv;                                             \
        const T *TC__RESTRICT a = (const T *)av;                                             \
        const T *TC__RESTRICT b = (const T *)bv;                                             \
        int i;                                                                               \
        switch (op) {                                                                        \
        case TC_OP_LT: TC__VM_LOOP((uint8_t)(a[i] < b[i])); break;                           \
        case TC_OP_LE: TC__VM_LOOP((uint8_t)(a[i] <= b[i])); break;                          \
        case TC_OP_GT: TC__VM_LOOP((uint8_t)(a[i] > b[i])); break;                           \
        case TC_OP_GE: TC__VM_LOOP((uint8_t)(a[i] >= b[i])); break;                          \
        case TC_OP_EQ: TC__VM_LOOP((uint8_t)(a[i] == b[i])); break;                          \
        case TC_OP_NE: TC__VM_LOOP((uint8_t)(a[i] != b[i])); break;                          \
        default: break;                                                                      \
        }                                                                                    \
    }
TC__VM_TYPES(TC__VM_ARITH)

TC__KERNEL void tc__k_arith(int op, tc_dtype t, void *d, const void *a, const void *b, int n) {
    switch (t) {
#define TC__VM_ARITH_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_arith_##sfx(op, d, a, b, n); break;
        TC__VM_TYPES(TC__VM_ARITH_CASE)
#undef TC__VM_ARITH_CASE
    default: break;
    }
}
/* Float arithmetic with one lane-uniform operand, read once as a scalar
   (no broadcast pass): vector op scalar (sv = 0) or scalar op vector. */
/* a[i] / s for a lane-uniform divisor s, bitwise the division, without a
   division per lane where the target has a fast fma: with y = 1/s rounded
   (within half an ulp) and q = a * y (within one ulp of a / s), the
   residual a - s q is exact and q + (a - s q) y rounds to the correctly
   rounded a / s (Markstein's theorem), as long as nothing under- or
   overflows. So |s| must be within 2^+-40 (2^+-300 for doubles), and a
   run of TC__DIVU_RUN lanes with a quotient outside 2^+-50 (2^+-400:
   tiny, huge, inf or NaN among them) is divided again, lane by lane: one
   such lane in 16M costs a run, not a second pass over them all (the
   stencil, 1 thread, measured much faster so). A zero dividend needs
   neither: q = a * y is then a / s exactly, its zero's sign that of a / s
   (the correction would turn -0 into +0), so q is the quotient and the
   lane is not checked (the stencil over 16M lanes whose sums are often
   exactly 0: much faster at one thread and two). Dividers are far slower
   than multipliers. */
#define TC__DIVU_RUN 1024
/* The quotient's range is checked on its bits: |r|'s bits minus those of
   2^-LQ, as an unsigned number, exceed the span up to 2^LQ for zero (it
   wraps), inf and NaN too; a running unsigned max is one instruction.
   TC__DIVU_STEP: r = x / s from y = 1 / s, and the running max w updated
   (x == 0: r = q, w as it was). */
#define TC__DIVU_STEP(T, U, FMA, ABS, LO, x, r, w)                                           \
    do {                                                                                     \
        T q_ = (x) * y;                                                                      \
        U u_, m_ = (U)0 - (U)((x) != 0); /* all ones, or 0 for a zero dividend */            \
        r = FMA(FMA(-s, q_, x), y, q_);                                                      \
        memcpy(&u_, &r, sizeof u_);                                                          \
        u_ = ((u_ & (ABS)) - (LO)) & m_; /* a mask, not a select: gcc vectorizes this form */ \
        r = (x) != 0 ? r : q_;                                                               \
        w = u_ > w ? u_ : w;                                                                 \
    } while (0)
#define TC__VM_DIV_UNI(sfx, T, U, FMA, LS, LO, HI, ABS)                                      \
    TC__KERNEL void tc__k_div_uni_##sfx(T *TC__RESTRICT d, const T *TC__RESTRICT a, T s,    \
                                         int n) {                                            \
        T y, m = s < 0 ? -s : s;                                                             \
        U worst;                                                                             \
        int i, o;                                                                            \
        if (!TC_FAST_FMA || !(m >= (T)LS && m <= (T)1 / (T)LS)) {                            \
            TC__VM_LOOP(a[i] / s);                                                           \
            return;                                                                          \
        }                                                                                    \
        y = (T)1 / s;                                                                        \
        for (o = 0; o < n; o += TC__DIVU_RUN) {                                              \
            int e = n - o < TC__DIVU_RUN ? n : o + TC__DIVU_RUN;                             \
            for (i = o, worst = 0; i < e; i++) {                                             \
                T r;                                                                         \
                TC__DIVU_STEP(T, U, FMA, ABS, LO, a[i], r, worst);                           \
                d[i] = r;                                                                    \
            }                                                                                \
            if (worst > (HI) - (LO))                                                         \
                for (i = o; i < e; i++) d[i] = a[i] / s;                                     \
        }                                                                                    \
    }
/* float32's limits, also those of tc__k_chain_div_uni_f32 */
#define TC__DIVU_F32_LS 9.094947017729282e-13f /* 2^-40 */
#define TC__DIVU_F32_LO ((uint32_t)(127 - 50) << 23) /* 2^-50 */
#define TC__DIVU_F32_HI ((uint32_t)(127 + 50) << 23) /* 2^50 */
TC__VM_DIV_UNI(f32, float, uint32_t, TC__MATH_FMAF, TC__DIVU_F32_LS, TC__DIVU_F32_LO, TC__DIVU_F32_HI,
               0x7fffffffu)
TC__VM_DIV_UNI(f64, double, uint64_t, TC__MATH_FMA, 4.909093465297727e-91 /* 2^-300 */,
               (uint64_t)(1023 - 400) << 52 /* 2^-400 */, (uint64_t)(1023 + 400) << 52 /* 2^400 */,
               0x7fffffffffffffffull)
#undef TC__VM_DIV_UNI

#define TC__VM_ARITH_UNI(sfx, T)                                                             \
    TC__KERNEL void tc__k_arith_uni_##sfx(int op, void *dv, const void *av, T s, int sv,    \
                                           int n) {                                          \
        T *TC__RESTRICT d = (T *)dv;                                                         \
        const T *TC__RESTRICT a = (const T *)av;                                             \
        int i;                                                                               \
        switch (op) {                                                                        \
        case TC_OP_ADD: TC__VM_LOOP(a[i] + s); break;                                        \
        case TC_OP_MUL: TC__VM_LOOP(a[i] * s); break;                                        \
        case TC_OP_SUB:                                                                      \
            if (sv) TC__VM_LOOP(s - a[i]);                                                   \
            else TC__VM_LOOP(a[i] - s);                                                      \
            break;                                                                           \
        case TC_OP_DIV:                                                                      \
            if (sv) TC__VM_LOOP(s / a[i]);                                                   \
            else tc__k_div_uni_##sfx(d, a, s, n);                                            \
            break;                                                                           \
        case TC_OP_MIN:                                                                      \
            if (sv) TC__VM_LOOP(tc__e_min_##sfx(s, a[i]));                                   \
            else TC__VM_LOOP(tc__e_min_##sfx(a[i], s));                                      \
            break;                                                                           \
        case TC_OP_MAX:                                                                      \
            if (sv) TC__VM_LOOP(tc__e_max_##sfx(s, a[i]));                                   \
            else TC__VM_LOOP(tc__e_max_##sfx(a[i], s));                                      \
            break;                                                                           \
        default: break;                                                                      \
        }                                                                                    \
    }
TC__VM_ARITH_UNI(f32, float)
TC__VM_ARITH_UNI(f64, double)
#undef TC__VM_ARITH_UNI

/* Fused float32 chains: d = ((a o1 b) o2 c) o3 e, o1..o3 in + - * /, the
   chain's value always the left operand (the compiler orders + and *
   operands so). Each step rounds exactly as its own instruction would:
   contraction into fma is off here, so fusing never changes a bit. The
   intermediates stay in CPU registers: one pass over the block instead of
   one per instruction (stencils, a * x + b, (x - m) / s * g + b). */
#define TC__FX_ADD(x, y) ((x) + (y))
#define TC__FX_SUB(x, y) ((x) - (y))
#define TC__FX_MUL(x, y) ((x) * (y))
#define TC__FX_DIV(x, y) ((x) / (y))
/* the op lists, one per nesting level (a macro cannot expand inside itself) */
#define TC__FX_L1(X) X(ADD) X(SUB) X(MUL) X(DIV)
#define TC__FX_L2(X, O1) X(O1, ADD) X(O1, SUB) X(O1, MUL) X(O1, DIV)
#define TC__FX_L3(X, O1, O2) X(O1, O2, ADD) X(O1, O2, SUB) X(O1, O2, MUL) X(O1, O2, DIV)
/* chain code: o1 and o2 in 0..3, o3 in 1..4 (0: a pair) */
#define TC__FX_CODE(o1, o2, o3) ((o1) * 20 + (o2) * 5 + (o3))
#define TC__FX_OP(O) (TC_OP_##O - TC_OP_ADD)
#define TC__FXR_ONE 80 /* a single op: above every chain code */
#define TC__FX_LOOP3(O1, O2, O3, LAST)                                                       \
    for (i = 0; i < n; i++) d[i] = TC__FX_##O3(TC__FX_##O2(TC__FX_##O1(a[i], b[i]), c[i]), LAST)
#define TC__FX_LOOP2(O1, O2, LAST)                                                           \
    for (i = 0; i < n; i++) d[i] = TC__FX_##O2(TC__FX_##O1(a[i], b[i]), LAST)
#define TC__FX_C3(O1, O2, O3)                                                                \
    case TC__FX_CODE(TC__FX_OP(O1), TC__FX_OP(O2), TC__FX_OP(O3) + 1):                       \
        if (s) TC__FX_LOOP3(O1, O2, O3, sv);                                                 \
        else TC__FX_LOOP3(O1, O2, O3, e[i]);                                                 \
        break;
#define TC__FX_C2(O1, O2)                                                                    \
    case TC__FX_CODE(TC__FX_OP(O1), TC__FX_OP(O2), 0):                                       \
        if (s) TC__FX_LOOP2(O1, O2, sv);                                                     \
        else TC__FX_LOOP2(O1, O2, c[i]);                                                     \
        break;                                                                               \
        TC__FX_L3(TC__FX_C3, O1, O2)
#define TC__FX_C1(O1) TC__FX_L2(TC__FX_C2, O1)
/* s, when not NULL: the last link's operand is the scalar *s (a constant,
   a row's value), read once instead of from a broadcast block */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
TC__KERNEL void tc__k_chain_f32(int code, float *TC__RESTRICT d, const float *TC__RESTRICT a,
                                 const float *TC__RESTRICT b, const float *TC__RESTRICT c,
                                 const float *TC__RESTRICT e, const float *s, int n) {
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
    float sv = s ? *s : 0.0f;
    int i;
    switch (code) {
        TC__FX_L1(TC__FX_C1)
    default: break;
    }
}

/* tc__k_chain_f32 with d's whole cache lines written by streaming stores,
   TC__K_NT_PIECE lanes computed into l at a time: the loads
   and the stores stay interleaved, and a row is one call, not one turn of
   the bytecode's dispatch per piece (a * x + b over 16M lanes, one thread,
   against a C loop streaming each line in the same process: closer to it
   than pieces of the bytecode; pieces of 64
   and 256 lanes did no better). Pieces of 512 lanes (32 lines), l on
   whole lines, measured faster at one thread and two
   (16 and 32 lanes: slower; 1024 no better). The last link's array operand is not read
   where s is given. Code TC__FXR_ONE + op: the one op a[i] op *s.
   With a builtin `call` (>= 0), d = call(chain): the chain's piece in l,
   then the builtin's values stored plainly into d (tc__math_chunk_store:
   streamed, they were slower), in pieces of TC__K_CALL_PIECE, the inputs
   two pieces ahead prefetched meanwhile (tanh(a * x + b) over 16M lanes,
   its lines then streamed: faster at two threads and one; a piece or four
   ahead no better, nor a page ahead; 64- or 256-lane pieces slower than
   128). */
#define TC__K_NT_PIECE 512
#define TC__K_CALL_PIECE 128
TC__KERNEL void tc__k_chain_piece_f32(int code, float *d, const float *a, const float *b, const float *c,
                                       const float *e, const float *s, int n) {
    if (code >= TC__FXR_ONE) tc__k_arith_uni_f32(TC_OP_ADD + code - TC__FXR_ONE, d, a, *s, 0, n);
    else tc__k_chain_f32(code, d, a, b, c, e, s, n);
}
/* A pair's chain (code % 5 == 0: d = (a o1 b) o2 c, or o2 *s) on n lanes,
   a multiple of 16, from d on a whole line, each line streamed as soon as
   it is computed: the loads and the streaming stores stay interleaved,
   which a piece computed into a buffer and then streamed cannot do
   (a * x + b over 16M lanes: faster than 512-lane pieces at one thread
   and two). Pairs only: a triple's cases would double tc__k_chain_f32's
   code. 0: not a pair's code. */
#define TC__FX_NT2(O1, O2, LAST)                                                             \
    for (i = 0; i < n; i += 16) {                                                            \
        float l_[16];                                                                        \
        for (j = 0; j < 16; j++) l_[j] = TC__FX_##O2(TC__FX_##O1(a[i + j], b[i + j]), LAST); \
        TC__STREAM_LINE(d + i, l_);                                                          \
    }
#define TC__FX_N2(O1, O2)                                                                    \
    case TC__FX_CODE(TC__FX_OP(O1), TC__FX_OP(O2), 0):                                       \
        if (s) TC__FX_NT2(O1, O2, sv)                                                        \
        else TC__FX_NT2(O1, O2, c[i + j])                                                    \
        break;
#define TC__FX_N1(O1) TC__FX_L2(TC__FX_N2, O1)
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
TC__KERNEL int tc__k_chain2_lines_f32(int code, float *TC__RESTRICT d, const float *TC__RESTRICT a,
                                       const float *TC__RESTRICT b, const float *TC__RESTRICT c,
                                       const float *s, int n) {
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
    float sv = s ? *s : 0.0f;
    int i, j;
    switch (code) {
        TC__FX_L1(TC__FX_N1)
    default: return 0;
    }
    return 1;
}
#undef TC__FX_NT2
#undef TC__FX_N2
#undef TC__FX_N1

/* Asks for the lines of n floats `ahead` floats past p (NULL: none) before
   their use; the address is computed as an integer, since it may lie past
   the array (a prefetch does not fault). */
TC__KERNEL void tc__k_prefetch_f32(const float *p, int ahead, int n) {
    uintptr_t q = (uintptr_t)p + (uintptr_t)ahead * sizeof(float);
    int i;
    for (i = 0; p && i < n; i += 16) tc__prefetch_at(q + (uintptr_t)i * sizeof(float));
}
/* One line TC__K_PRIME_AHEAD bytes past p (NULL: none), asked for once a
   piece: the hardware's stream prefetchers stop at each 4 KB page and
   train again on the next one's first misses, all the input streams at
   once where they are aligned alike. A line four pages on starts each
   page's stream before the loop gets there, at one prefetch where
   fetching every line ahead stalled on fill buffers (tc__vm_plan_prefetch).
   a * x + b over 16M lanes measured faster with it, clearly at one thread,
   a little at two; 4 or 8 KB ahead gained less, 32 and
   64 KB the same as 16; one line a page the same as one a piece;
   tanh(a * x + b) about even. A row reduction of rows from memory does the same
   every 2 KB of its first operand (tc__k_chain_reduce_f32's `prime`):
   rowsum 4096 x 4096 measured faster at one thread and two, sum over
   16M lanes at one thread (both orders of the pair); not a row group
   run row by row, which fetches each row ahead itself, nor the rows an
   absorbed reduction reads from cache. */
#define TC__K_PRIME_AHEAD 16384
TC__KERNEL void tc__k_prime_f32(const float *p) {
    if (p) tc__prefetch_at((uintptr_t)p + TC__K_PRIME_AHEAD);
}
/* uni: bit k set where link k's operand (b, c, e) is one value spread over
   a block of at least min(n, TC__K_NT_PIECE) lanes (X(i,j) * 2.0 + b(j)),
   read from the block's start in every piece rather than along the row. */
TC__KERNEL void tc__k_chain_call_f32(int code, int call, float *d, const float *a, const float *b,
                                      const float *c, const float *e, const float *s, int n, int uni) {
    float buf[TC__K_NT_PIECE + 16], *l = buf + (64 - (uintptr_t)buf % 64) % 64 / sizeof(float); /* a line each 16 */
    int chain = code < TC__FXR_ONE, b_lanes = chain && !(uni & 1);
    int c_lanes = chain && !(code % 5 == 0 && s) && !(uni & 2), e_lanes = e && !s && !(uni & 4);
    /* b, c, e: arrays read per lane; o: lanes up to d's first whole line (the builtin's
       stores are plain ones: none) */
    int o = call >= 0 ? 0 : (int)((64 - (uintptr_t)d % 64) % 64 / sizeof(float)), m, k, j, lines;
    int piece = call < 0 ? TC__K_NT_PIECE : TC__K_CALL_PIECE;
    if (o > n) o = n;
    for (k = 0; k < n; k += m) { /* the head plainly, then whole pieces (streamed without a builtin) */
        m = k < o ? o : n - k < piece ? n - k : piece;
        lines = k >= o && m == piece;
        if (lines) { /* each input's page stream started four pages on */
            tc__k_prime_f32(a + k);
            tc__k_prime_f32(b_lanes ? b + k : NULL);
            tc__k_prime_f32(c_lanes ? c + k : NULL);
            tc__k_prime_f32(e_lanes ? e + k : NULL);
        }
        if (call >= 0 && lines) { /* the inputs two pieces on, fetched while the builtin computes */
            tc__k_prefetch_f32(a + k, 2 * piece, m);
            tc__k_prefetch_f32(b_lanes ? b + k : NULL, 2 * piece, m);
            tc__k_prefetch_f32(c_lanes ? c + k : NULL, 2 * piece, m);
            tc__k_prefetch_f32(e_lanes ? e + k : NULL, 2 * piece, m);
        }
        if (lines && call < 0 && chain &&
            tc__k_chain2_lines_f32(code, d + k, a + k, b_lanes ? b + k : b, c_lanes ? c + k : c, s, m))
            continue;
        tc__k_chain_piece_f32(code, lines || call >= 0 ? l : d + k, a + k, b_lanes ? b + k : b,
                              c_lanes ? c + k : c, e_lanes ? e + k : e, s, m);
        if (call >= 0) tc__math_block_f32((tc_builtin)call, d + k, l, NULL, NULL, NULL, m);
        else
            for (j = 0; lines && j < m; j += 16) TC__STREAM_LINE(d + k + j, l + j);
    }
}
TC__KERNEL void tc__k_chain_nt_f32(int code, float *d, const float *a, const float *b, const float *c,
                                    const float *e, const float *s, int n) {
    tc__k_chain_call_f32(code, -1, d, a, b, c, e, s, n, 0);
}

/* The chain code of ops o1, o2 (then o3; -1: a pair), as the kernels'
   cases; o2 = -1: o1 alone (TC__FXR_ONE + o1, for the kernels below). */
TC__KERNEL int tc__k_chain_code(int o1, int o2, int o3) {
    if (o2 < 0) return TC__FXR_ONE + o1 - TC_OP_ADD;
    return TC__FX_CODE(o1 - TC_OP_ADD, o2 - TC_OP_ADD, o3 < 0 ? 0 : o3 - TC_OP_ADD + 1);
}

/* The chains of tc__k_chain_div_uni_f32 (below) with a true division, on
   at most TC__DIVU_RUN lanes: the generic chain kernels, the quotient
   first put in q where the chain divides first. */
TC__KERNEL void tc__k_chain_div_exact_f32(int code, int last, float *TC__RESTRICT d,
                                           const float *TC__RESTRICT a, float s,
                                           const float *TC__RESTRICT b, const float *TC__RESTRICT c,
                                           const float *t, int n) {
    float q[TC__DIVU_RUN];
    int one = code >= TC__FXR_ONE, o1 = one ? code - TC__FXR_ONE : code / 20, i;
    if (last) { /* (a o1 b [o2 c]) / s: the pair's or the triple's code, *s the last operand */
        tc__k_chain_f32(one ? TC__FX_CODE(o1, TC__FX_OP(DIV), 0) : code + TC__FX_OP(DIV) + 1, d, a, b, c,
                        NULL, &s, n);
        return;
    }
    for (i = 0; i < n; i++) q[i] = a[i] / s;
    if (!one) tc__k_chain_f32(code, d, q, b, c, NULL, t, n);
    else if (t) tc__k_arith_uni_f32(TC_OP_ADD + o1, d, q, *t, 0, n);
    else tc__k_arith(TC_OP_ADD + o1, TC_FLOAT32, d, q, b, n);
}

/* A chain that divides by the lane-uniform s, first or last, in one pass,
   the quotient as tc__k_div_uni_f32 makes it:
   - first (layernorm's d / sqrt(var + eps) * g + b): then one more link
     (TC__FXR_ONE + op; b[i] or *t) or two (a pair's chain code; c[i] or
     *t);
   - last (the stencil's (x0 + x1 + x2) / 3): after one link (TC__FXR_ONE +
     op, on b[i]) or two (a pair's code, on b[i] and c[i]).
   A run of lanes with a quotient out of range is run again with a true
   division, as tc__k_div_uni_f32 does. With nt, d's whole cache lines are
   written with streaming stores, each line's lanes computed into l_ first
   (a line at a time keeps the loads and the stores interleaved: faster on
   the stencil over 16M lanes, where computing 512
   lanes and then streaming them measured slower than plain stores), four
   lines a step: their lanes' range checks meet the running maxima lw once
   a step (lw stays in memory: met every line, it chained the lines, and
   the stencil ran slower than four lines a step).
   Returns 0, having written nothing, where s is out of range or the target
   has no fast fma: the caller runs the chain with a true division then. */
#define TC__FXD_ONE(X, EXPR, DST, W)                                                         \
    do {                                                                                     \
        float x = X, r;                                                                      \
        TC__DIVU_STEP(float, uint32_t, TC__MATH_FMAF, 0x7fffffffu, TC__DIVU_F32_LO, x, r, W); \
        DST = EXPR;                                                                          \
    } while (0)
#if defined(TC__HAVE_STREAM) && TC__HAVE_STREAM == 64 && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(TC__NO_VECTOR_EXT)
/* With AVX-512 the streamed lines are made in vector registers: the
   chain's expressions on vectors of 16 lanes (TC__FXD_V: lanes i ..
   i + 15 of p; a scalar operand is spread), the quotient's step with the
   same fma instructions, the range check's maxima in a register. Made in
   l_ and w_ on the stack instead (the portable loop below), the lines
   went through memory twice: layernorm 256 x 1024 (rows in cache,
   streaming forced on) then fell further behind the -ffast-math loop.
   Where the chain divides last,
   a's line a page ahead is asked for at each step (written out here:
   through tc__k_prefetch_f32, gcc 12 emitted no prefetch in this
   function, which has its own optimize attribute): the hardware's
   prefetcher stops at a page's end, and with one stream to read, as the
   stencil has, nothing else keeps the memory busy while it starts again
   (the stencil over 16M lanes, written as _mm_prefetch, the same
   instructions: faster at one thread and two; a * x + b, three streams,
   gained nothing from the same). A chain that divides
   first (layernorm's d / sqrt(var + eps) * g + b, softmax's e / s) reads
   a row its group has just made, in cache, and a page ahead of it is other
   memory: layernorm 4096 x 1024 with d discarded (staged rows) took
   longer with that prefetch. */
#define TC__FXD_AHEAD 4096 /* bytes */
#define TC__FXD_V(p) _mm512_loadu_ps((p) + i)
#define TC__FXD_LINES(X, EXPR, VX, VEXPR)                                                    \
    do {                                                                                     \
        const __m512 s_ = _mm512_set1_ps(s), y_ = _mm512_set1_ps(y);                         \
        const __m512i abs_ = _mm512_set1_epi32(0x7fffffff), lo_ = _mm512_set1_epi32((int)TC__DIVU_F32_LO); \
        __m512i w_ = _mm512_setzero_si512();                                                 \
        uint32_t m_;                                                                         \
        for (; i + 16 <= e; i += 16) {                                                       \
            __m512 x_ = VX, q_ = _mm512_mul_ps(x_, y_), r;                                   \
            __mmask16 nz_ = _mm512_cmp_ps_mask(x_, _mm512_setzero_ps(), _CMP_NEQ_UQ);        \
            if (last) __builtin_prefetch((const void *)((uintptr_t)(a + i) + TC__FXD_AHEAD)); \
            r = _mm512_mask_blend_ps(nz_, q_, _mm512_fmadd_ps(_mm512_fnmadd_ps(s_, q_, x_), y_, q_)); \
            w_ = _mm512_mask_max_epu32(w_, nz_, w_,                                           \
                                       _mm512_sub_epi32(_mm512_and_si512(_mm512_castps_si512(r), abs_), lo_)); \
            _mm512_stream_ps(d + i, VEXPR);                                                  \
        }                                                                                    \
        m_ = (uint32_t)_mm512_reduce_max_epu32(w_);                                          \
        worst = m_ > worst ? m_ : worst;                                                     \
    } while (0)
#else
#define TC__FXD_V(p) 0
#define TC__FXD_LINES(X, EXPR, VX, VEXPR)                                                    \
    do {                                                                                     \
        for (j = i; j + 64 <= e; j += 64) {                                                  \
            float l_[64];                                                                    \
            uint32_t w_[64];                                                                 \
            for (i = j; i < j + 64; i++) {                                                   \
                uint32_t z_ = 0;                                                             \
                TC__FXD_ONE(X, EXPR, l_[i - j], z_);                                         \
                w_[i - j] = z_;                                                              \
            }                                                                                \
            for (i = 0; i < 16; i++) {                                                       \
                uint32_t m_ = w_[i] > w_[i + 16] ? w_[i] : w_[i + 16];                       \
                uint32_t n_ = w_[i + 32] > w_[i + 48] ? w_[i + 32] : w_[i + 48];             \
                m_ = m_ > n_ ? m_ : n_;                                                      \
                lw[i] = lw[i] > m_ ? lw[i] : m_;                                             \
            }                                                                                \
            for (i = 0; i < 64; i += 16) TC__STREAM_LINE(d + j + i, l_ + i);                  \
        }                                                                                    \
        for (; j + 16 <= e; j += 16) {                                                       \
            float l_[16];                                                                    \
            for (i = j; i < j + 16; i++) TC__FXD_ONE(X, EXPR, l_[i - j], lw[i - j]);         \
            TC__STREAM_LINE(d + j, l_);                                                      \
        }                                                                                    \
        i = j;                                                                               \
    } while (0)
#endif
#define TC__FXD_LOOP(X, EXPR, VX, VEXPR)                                                     \
    do {                                                                                     \
        i = o;                                                                               \
        if (nt) { /* a max per lane of the line: one max across it would chain the lines */  \
            for (; i < e && (uintptr_t)(d + i) % 64; i++) TC__FXD_ONE(X, EXPR, d[i], worst); \
            TC__FXD_LINES(X, EXPR, VX, VEXPR);                                               \
        }                                                                                    \
        for (; i < e; i++) TC__FXD_ONE(X, EXPR, d[i], worst);                                \
    } while (0)
/* each chain twice: on lane i, and on the 16 lanes from i (TC__FXD_V) */
#define TC__FXD_C2(O1, O2)                                                                   \
    case TC__FX_CODE(TC__FX_OP(O1), TC__FX_OP(O2), 0):                                       \
        if (last)                                                                            \
            TC__FXD_LOOP(TC__FX_##O2(TC__FX_##O1(a[i], b[i]), c[i]), r,                       \
                         TC__FX_##O2(TC__FX_##O1(TC__FXD_V(a), TC__FXD_V(b)), TC__FXD_V(c)), r); \
        else if (t)                                                                          \
            TC__FXD_LOOP(a[i], TC__FX_##O2(TC__FX_##O1(r, b[i]), tv), TC__FXD_V(a),           \
                         TC__FX_##O2(TC__FX_##O1(r, TC__FXD_V(b)), tv));                      \
        else                                                                                 \
            TC__FXD_LOOP(a[i], TC__FX_##O2(TC__FX_##O1(r, b[i]), c[i]), TC__FXD_V(a),         \
                         TC__FX_##O2(TC__FX_##O1(r, TC__FXD_V(b)), TC__FXD_V(c)));             \
        break;
#define TC__FXD_C1(O1)                                                                       \
    case TC__FXR_ONE + TC__FX_OP(O1):                                                        \
        if (last) TC__FXD_LOOP(TC__FX_##O1(a[i], b[i]), r, TC__FX_##O1(TC__FXD_V(a), TC__FXD_V(b)), r); \
        else if (t) TC__FXD_LOOP(a[i], TC__FX_##O1(r, tv), TC__FXD_V(a), TC__FX_##O1(r, tv));  \
        else TC__FXD_LOOP(a[i], TC__FX_##O1(r, b[i]), TC__FXD_V(a), TC__FX_##O1(r, TC__FXD_V(b))); \
        break;                                                                               \
        TC__FX_L2(TC__FXD_C2, O1)
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
TC__KERNEL int tc__k_chain_div_uni_f32(int code, int last, float *TC__RESTRICT d,
                                        const float *TC__RESTRICT a, float s,
                                        const float *TC__RESTRICT b, const float *TC__RESTRICT c,
                                        const float *t, int n, int nt) {
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
    float y, m = s < 0 ? -s : s, tv = t ? *t : 0.0f;
    uint32_t worst, lw[16];
    int i, j, o, e;
    if (!TC_FAST_FMA || !(m >= TC__DIVU_F32_LS && m <= 1.0f / TC__DIVU_F32_LS)) return 0;
    if (code < 0 || code > TC__FXR_ONE + TC__FX_OP(DIV) || (code < TC__FXR_ONE && code % 5))
        return 0; /* not one link or a pair */
    y = 1.0f / s;
    for (o = 0; o < n; o = e) {
        e = n - o < TC__DIVU_RUN ? n : o + TC__DIVU_RUN;
        worst = 0;
        memset(lw, 0, sizeof lw);
        switch (code) {
            TC__FX_L1(TC__FXD_C1)
        default: break;
        }
        for (j = 0; j < 16; j++) worst = lw[j] > worst ? lw[j] : worst;
        if (worst > TC__DIVU_F32_HI - TC__DIVU_F32_LO)
            tc__k_chain_div_exact_f32(code, last, d + o, a + o, s, b ? b + o : NULL, c ? c + o : NULL, t, e - o);
    }
    return 1;
}
#undef TC__FXD_C1
#undef TC__FXD_C2
#undef TC__FXD_LOOP
#undef TC__FXD_LINES
#undef TC__FXD_V
#undef TC__FXD_ONE
#undef TC__FXD_AHEAD
#undef TC__DIVU_STEP

/* x / 2^k and x * 2^-k are the same real number, so they round alike: a
   power-of-two divisor whose reciprocal is a float (subnormal included)
   becomes a multiplication (layernorm's / N). Replaces *v; 1 when it did. */
TC__PRIVATE int tc__pow2_reciprocal_f32(float *v) {
    uint32_t u, mag;
    int k; /* |*v| = 2^k, k in [-127, 127]: 2^-127 is the one subnormal whose reciprocal is a float */
    memcpy(&u, v, sizeof u);
    mag = u & 0x7fffffffu;
    if (mag == 0x00400000u) k = -127;
    else if ((mag & 0x7fffffu) == 0 && mag >> 23 >= 1 && mag >> 23 <= 254) k = (int)(mag >> 23) - 127;
    else return 0;
    mag = k == 127 ? 0x00400000u : (uint32_t)(127 - k) << 23; /* 2^-k */
    u = (u & 0x80000000u) | mag;
    memcpy(v, &u, sizeof u);
    return 1;
}
TC__PRIVATE int tc__pow2_reciprocal_f64(double *v) {
    uint64_t u, mag;
    int k; /* |*v| = 2^k, k in [-1023, 1023] */
    memcpy(&u, v, sizeof u);
    mag = u & 0x7fffffffffffffffull;
    if (mag == 0x0008000000000000ull) k = -1023;
    else if ((mag & 0xfffffffffffffull) == 0 && mag >> 52 >= 1 && mag >> 52 <= 2046) k = (int)(mag >> 52) - 1023;
    else return 0;
    mag = k == 1023 ? 0x0008000000000000ull : (uint64_t)(1023 - k) << 52;
    u = (u & 0x8000000000000000ull) | mag;
    memcpy(v, &u, sizeof u);
    return 1;
}

/* op on float lanes a and the lane-uniform scalar at s (scalar_first: s is
   the left operand). 0: not handled here (other ops and dtypes). */
TC__KERNEL int tc__k_arith_uniform_ok(int op, tc_dtype t) {
    return op >= TC_OP_ADD && op <= TC_OP_MAX && op != TC_OP_MOD && (t == TC_FLOAT32 || t == TC_FLOAT64);
}
TC__KERNEL int tc__k_arith_uniform(int op, tc_dtype t, void *d, const void *a, const void *s,
                                    int scalar_first, int n) {
    if (!tc__k_arith_uniform_ok(op, t)) return 0;
    if (t == TC_FLOAT32) {
        float v;
        memcpy(&v, s, sizeof v);
        if (op == TC_OP_DIV && !scalar_first && tc__pow2_reciprocal_f32(&v)) op = TC_OP_MUL;
        tc__k_arith_uni_f32(op, d, a, v, scalar_first, n);
        return 1;
    }
    if (t == TC_FLOAT64) {
        double v;
        memcpy(&v, s, sizeof v);
        if (op == TC_OP_DIV && !scalar_first && tc__pow2_reciprocal_f64(&v)) op = TC_OP_MUL;
        tc__k_arith_uni_f64(op, d, a, v, scalar_first, n);
        return 1;
    }
    return 0;
}

TC__KERNEL void tc__k_cmp(int op, tc_dtype t, void *d, const void *a, const void *b, int n) {
    switch (t) {
#define TC__VM_CMP_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_cmp_##sfx(op, d, a, b, n); break;
        TC__VM_TYPES(TC__VM_CMP_CASE)
#undef TC__VM_CMP_CASE
    default: break;
    }
}

/* Logic on bool lanes (0/1). */
TC__KERNEL void tc__k_logic(int op, void *dv, const void *av, const void *bv, int n) {
    uint8_t *TC__RESTRICT d = (uint8_t *)dv;
    const uint8_t *TC__RESTRICT a = (const uint8_t *)av;
    const uint8_t *TC__RESTRICT b = (const uint8_t *)bv;
    int i;
    if (op == TC_OP_NOT) TC__VM_LOOP((uint8_t)(a[i] ^ 1u));
    else if (op == TC_OP_AND) TC__VM_LOOP((uint8_t)(a[i] & b[i]));
    else TC__VM_LOOP((uint8_t)(a[i] | b[i]));
}

/* SELECT by element size: the lanes are bit copies. */
TC__KERNEL void tc__k_select(size_t esz, void *dv, const uint8_t *TC__RESTRICT c, const void *av,
                              const void *bv, int n) {
    int i;
    switch (esz) {
#define TC__VM_SEL(SZ, T)                                                                    \
    case SZ: {                                                                               \
        T *TC__RESTRICT d = (T *)dv;                                                         \
        const T *TC__RESTRICT a = (const T *)av;                                             \
        const T *TC__RESTRICT b = (const T *)bv;                                             \
        TC__VM_LOOP(c[i] ? a[i] : b[i]);                                                     \
        break;                                                                               \
    }
        TC__VM_SEL(1, uint8_t)
        TC__VM_SEL(2, uint16_t)
        TC__VM_SEL(4, uint32_t)
        TC__VM_SEL(8, uint64_t)
#undef TC__VM_SEL
    default: break;
    }
}

/* Fills n lanes with one element (CONST, SIZE, broadcast loads). */
TC__KERNEL void tc__k_fill(size_t esz, void *dv, const void *src, int n) {
    int i;
    switch (esz) {
#define TC__VM_FILL(SZ, T)                                                                   \
    case SZ: {                                                                               \
        T *TC__RESTRICT d = (T *)dv, v;                                                      \
        memcpy(&v, src, SZ);                                                                 \
        TC__VM_LOOP(v);                                                                      \
        break;                                                                               \
    }
        TC__VM_FILL(1, uint8_t)
        TC__VM_FILL(2, uint16_t)
        TC__VM_FILL(4, uint32_t)
        TC__VM_FILL(8, uint64_t)
#undef TC__VM_FILL
    default: break;
    }
}

/* Float -> int conversion saturates (NaN -> 0): never undefined behaviour. */
#define TC__VM_SAT(sfx, T, LO, HI, TMIN, TMAX)                                               \
    static inline T tc__sat_##sfx(double x) {                                                \
        return x != x ? (T)0 : x < (LO) ? (T)(TMIN) : x >= (HI) ? (T)(TMAX) : (T)x;           \
    }
TC__VM_SAT(i8, int8_t, -128.0, 128.0, INT8_MIN, INT8_MAX)
TC__VM_SAT(i16, int16_t, -32768.0, 32768.0, INT16_MIN, INT16_MAX)
TC__VM_SAT(i32, int32_t, -2147483648.0, 2147483648.0, INT32_MIN, INT32_MAX)
TC__VM_SAT(i64, int64_t, -9223372036854775808.0, 9223372036854775808.0, INT64_MIN, INT64_MAX)
TC__VM_SAT(u8, uint8_t, 0.0, 256.0, 0, UINT8_MAX)
TC__VM_SAT(u16, uint16_t, 0.0, 65536.0, 0, UINT16_MAX)
TC__VM_SAT(u32, uint32_t, 0.0, 4294967296.0, 0, UINT32_MAX)
TC__VM_SAT(u64, uint64_t, 0.0, 18446744073709551616.0, 0, UINT64_MAX)
#undef TC__VM_SAT

#define TC__VM_TOINT_F(T2, s2, x) tc__sat_##s2((double)(x))
#define TC__VM_TOINT_I(T2, s2, x) (T2)(x)
#define TC__VM_TOINT_U(T2, s2, x) (T2)(x)
#define TC__VM_TOINT_B(T2, s2, x) (T2)(x)
#define TC__VM_CAST_INT(K, DT2, T2, s2)                                                      \
    case TC_##DT2: {                                                                         \
        T2 *TC__RESTRICT d = (T2 *)dv;                                                       \
        TC__VM_LOOP(TC__VM_TOINT_##K(T2, s2, a[i]));                                         \
        break;                                                                               \
    }
#define TC__VM_CAST(sfx, DT, T, W, K)                                                        \
    TC__KERNEL void tc__k_cast_##sfx(tc_dtype to, void *dv, const void *av, int n) {        \
        const T *TC__RESTRICT a = (const T *)av;                                             \
        int i;                                                                               \
        switch (to) {                                                                        \
        case TC_BOOL: {                                                                      \
            uint8_t *TC__RESTRICT d = (uint8_t *)dv;                                         \
            TC__VM_LOOP((uint8_t)(a[i] != 0));                                               \
            break;                                                                           \
        }                                                                                    \
            TC__VM_CAST_INT(K, INT8, int8_t, i8)                                             \
            TC__VM_CAST_INT(K, INT16, int16_t, i16)                                          \
            TC__VM_CAST_INT(K, INT32, int32_t, i32)                                          \
            TC__VM_CAST_INT(K, INT64, int64_t, i64)                                          \
            TC__VM_CAST_INT(K, UINT8, uint8_t, u8)                                           \
            TC__VM_CAST_INT(K, UINT16, uint16_t, u16)                                        \
            TC__VM_CAST_INT(K, UINT32, uint32_t, u32)                                        \
            TC__VM_CAST_INT(K, UINT64, uint64_t, u64)                                        \
        case TC_FLOAT32: {                                                                   \
            float *TC__RESTRICT d = (float *)dv;                                             \
            TC__VM_LOOP((float)a[i]);                                                        \
            break;                                                                           \
        }                                                                                    \
        case TC_FLOAT64: {                                                                   \
            double *TC__RESTRICT d = (double *)dv;                                           \
            TC__VM_LOOP((double)a[i]);                                                       \
            break;                                                                           \
        }                                                                                    \
        default: break;                                                                      \
        }                                                                                    \
    }
TC__VM_TYPES(TC__VM_CAST)
#undef TC__VM_CAST
#undef TC__VM_CAST_INT

TC__KERNEL void tc__k_cast(tc_dtype from, tc_dtype to, void *d, const void *a, int n) {
    switch (from) {
#define TC__VM_CAST_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_cast_##sfx(to, d, a, n); break;
        TC__VM_TYPES(TC__VM_CAST_CASE)
#undef TC__VM_CAST_CASE
    default: break;
    }
}

/* half(x) in float32 or float64 lanes: each rounded to float16, kept in
   its type (tc__round_half's values, bit for bit). */
TC__KERNEL void tc__k_half(tc_dtype t, void *dv, const void *av, int n) {
    if (t == TC_FLOAT64) tc__round_half_block_f64((double *)dv, (const double *)av, n);
    else tc__round_half_block((float *)dv, (const float *)av, n);
}

/* Reductions over lanes: acc[i] = acc[i] (op) v[i], and the fold of a
   lane vector in lane order. */
#define TC__VM_FOLD_STEP(OP, h) for (i = 0; i < (h); i++) a[i] = OP(a[i], a[i + (h)])
#define TC__VM_FOLD64(OP)                                                                    \
    TC__VM_FOLD_STEP(OP, 32); TC__VM_FOLD_STEP(OP, 16); TC__VM_FOLD_STEP(OP, 8);              \
    TC__VM_FOLD_STEP(OP, 4); TC__VM_FOLD_STEP(OP, 2); TC__VM_FOLD_STEP(OP, 1)
#define TC__VM_RED(sfx, DT, T, W, K)                                                         \
    TC__KERNEL void tc__k_reduce_##sfx(tc_reduce r, void *accv, const void *vv, int n) {    \
        T *TC__RESTRICT d = (T *)accv;                                                       \
        const T *TC__RESTRICT v = (const T *)vv;                                             \
        int i;                                                                               \
        switch (r) {                                                                         \
        case TC_REDUCE_ASSIGN: TC__VM_LOOP(v[i]); break;                                     \
        case TC_REDUCE_SUM: TC__VM_LOOP(tc__e_add_##sfx(d[i], v[i])); break;                 \
        case TC_REDUCE_PROD: TC__VM_LOOP(tc__e_mul_##sfx(d[i], v[i])); break;                \
        case TC_REDUCE_MIN: TC__VM_LOOP(tc__e_amin_##sfx(d[i], v[i])); break;                \
        case TC_REDUCE_MAX: TC__VM_LOOP(tc__e_amax_##sfx(d[i], v[i])); break;                \
        case TC_REDUCE_COUNT: break;                                                         \
        }                                                                                    \
    }                                                                                        \
    /* fold of n lanes in a fixed tree: the part beyond the largest power of   \
       two first, then halves; vectorizes, and depends on n only */            \
    TC__KERNEL void tc__k_fold_##sfx(tc_reduce r, void *accv, int n, void *out) {           \
        T *a = (T *)accv;                                                                    \
        int h = 1, i;                                                                        \
        if (n == 64) { /* TC__VM_RED_LANES: the same tree, with constant bounds */            \
            switch (r) {                                                                     \
            case TC_REDUCE_SUM: TC__VM_FOLD64(tc__e_add_##sfx); break;                       \
            case TC_REDUCE_PROD: TC__VM_FOLD64(tc__e_mul_##sfx); break;                      \
            case TC_REDUCE_MIN: TC__VM_FOLD64(tc__e_min_##sfx); break;                       \
            case TC_REDUCE_MAX: TC__VM_FOLD64(tc__e_max_##sfx); break;                       \
            default: break;                                                                  \
            }                                                                                \
            memcpy(out, &a[0], sizeof a[0]);                                                 \
            return;                                                                          \
        }                                                                                    \
        while (h * 2 <= n) h *= 2;                                                           \
        for (;;) {                                                                           \
            T *TC__RESTRICT d = a;                                                           \
            const T *TC__RESTRICT v = a + h;                                                 \
            int m = n - h;                                                                   \
            switch (r) {                                                                     \
            case TC_REDUCE_SUM: for (i = 0; i < m; i++) d[i] = tc__e_add_##sfx(d[i], v[i]); break; \
            case TC_REDUCE_PROD: for (i = 0; i < m; i++) d[i] = tc__e_mul_##sfx(d[i], v[i]); break; \
            case TC_REDUCE_MIN: for (i = 0; i < m; i++) d[i] = tc__e_min_##sfx(d[i], v[i]); break; \
            case TC_REDUCE_MAX: for (i = 0; i < m; i++) d[i] = tc__e_max_##sfx(d[i], v[i]); break; \
            default: break;                                                                  \
            }                                                                                \
            if (h == 1 || n <= 1) break;                                                     \
            n = h;                                                                           \
            h /= 2;                                                                          \
        }                                                                                    \
        memcpy(out, &a[0], sizeof a[0]);                                                     \
    }                                                                                        \
    /* tc__k_fold of each of `rows` rows of n < TC__VM_RED_LANES values in  \
       v (overwritten), each value first combined with the identity id as  \
       tc__k_reduce_lanes leaves a row's partials: row k's value, in the    \
       same tree, into out[k]. One call for a block of folded rows. */      \
    TC__KERNEL void tc__k_fold_rows_##sfx(tc_reduce r, void *vv, const void *idv, int n, int rows, \
                                          void *outv) {                                      \
        T *v = (T *)vv, *out = (T *)outv, *a, id;                                            \
        int h0 = 1, k;                                                                       \
        memcpy(&id, idv, sizeof id);                                                         \
        while (h0 * 2 <= n) h0 *= 2;                                                         \
        switch (r) {                                                                         \
        case TC_REDUCE_SUM: TC__VM_FOLD_ROWS(tc__e_add_##sfx, tc__e_add_##sfx); break;       \
        case TC_REDUCE_PROD: TC__VM_FOLD_ROWS(tc__e_mul_##sfx, tc__e_mul_##sfx); break;      \
        case TC_REDUCE_MIN: TC__VM_FOLD_ROWS(tc__e_amin_##sfx, tc__e_min_##sfx); break;      \
        case TC_REDUCE_MAX: TC__VM_FOLD_ROWS(tc__e_amax_##sfx, tc__e_max_##sfx); break;      \
        default: break;                                                                      \
        }                                                                                    \
    }
/* tc__k_fold_rows' rows: POP makes the partials, FOP folds them */
#define TC__VM_FOLD_ROWS(POP, FOP)                                                           \
    for (k = 0; k < rows; k++) {                                                             \
        int w = n, h = h0, i;                                                                \
        a = v + (size_t)k * (size_t)n;                                                       \
        for (i = 0; i < n; i++) a[i] = POP(id, a[i]);                                        \
        for (;;) {                                                                           \
            for (i = 0; i < w - h; i++) a[i] = FOP(a[i], a[i + h]);                          \
            if (h == 1 || w <= 1) break;                                                     \
            w = h;                                                                           \
            h /= 2;                                                                          \
        }                                                                                    \
        out[k] = a[0];                                                                       \
    }
TC__VM_TYPES(TC__VM_RED)
#undef TC__VM_RED
#undef TC__VM_FOLD_ROWS

/* A reduction along the lanes (rowsum, softmax's max and sum) keeps
   TC__VM_RED_LANES partial results: element j of the row goes to partial
   j % TC__VM_RED_LANES, in order, and tc__k_fold combines them at the end.
   64 float lanes are four AVX-512 registers: enough independent sums to
   hide the adder's latency, few enough that the fold costs little. */
#define TC__VM_RED_LANES 64
#define TC__VM_REDL_LOOP(OP)                                                                 \
    for (; i < n && (o + i) % W; i++) d[(o + i) % W] = OP(d[(o + i) % W], v[i]);              \
    for (; i + W <= n; i += W)                                                               \
        for (l = 0; l < W; l++) d[l] = OP(d[l], v[i + l]);                                   \
    for (l = 0; i + l < n; l++) d[l] = OP(d[l], v[i + l])
#define TC__VM_REDL(sfx, DT, T, W_, K)                                                       \
    TC__KERNEL void tc__k_reduce_lanes_##sfx(tc_reduce r, void *accv, const void *vv, int o,  \
                                              int n) {                                       \
        T *TC__RESTRICT d = (T *)accv;                                                       \
        const T *TC__RESTRICT v = (const T *)vv;                                             \
        const int W = TC__VM_RED_LANES;                                                      \
        int i = 0, l;                                                                        \
        switch (r) {                                                                         \
        case TC_REDUCE_SUM: TC__VM_REDL_LOOP(tc__e_add_##sfx); break;                        \
        case TC_REDUCE_PROD: TC__VM_REDL_LOOP(tc__e_mul_##sfx); break;                       \
        case TC_REDUCE_MIN: TC__VM_REDL_LOOP(tc__e_amin_##sfx); break;                       \
        case TC_REDUCE_MAX: TC__VM_REDL_LOOP(tc__e_amax_##sfx); break;                       \
        default: break; /* `=` never reduces along its lanes */                              \
        }                                                                                    \
    }
TC__VM_TYPES(TC__VM_REDL)
#undef TC__VM_REDL
#undef TC__VM_REDL_LOOP

/* acc's partials (r)= v's n lanes, the first of which is element o of the row. */
TC__KERNEL void tc__k_reduce_lanes(tc_dtype t, tc_reduce r, void *acc, const void *v, int64_t o, int n) {
    switch (t) {
#define TC__VM_REDL_CASE(sfx, DT, T, W, K)                                                   \
    case TC_##DT: tc__k_reduce_lanes_##sfx(r, acc, v, (int)(o % TC__VM_RED_LANES), n); break;
        TC__VM_TYPES(TC__VM_REDL_CASE)
#undef TC__VM_REDL_CASE
    default: break;
    }
}

/* A row's reduction with its value made on the fly (tc__vm_ew_run): its
   TC__VM_RED_LANES partials, from the identity z, (r)= the value of each of
   the n elements, the first the row's element 0, in tc__k_reduce_lanes'
   order, without a block of values in between; then stored in p. The value is a[i] (code TC__FXR_BARE, any
   reduction), or for a sum one op (TC__FXR_ONE + op, the operand b[i] or
   the scalar *s), a pair of a chain (tc__k_chain_code; c[i] or *s), or
   one op's value squared (TC__FXR_SQUARE + op: an MSE's (y - t)^2).
   With gcc's vector extensions (gcc, clang) the 64 partials are four
   16-float vectors held in registers across the row (a local array goes
   through memory on every step); the same operations, lane by lane.
   TC__NO_VECTOR_EXT (tests) takes the plain C loops instead.
   A row of 64 elements or more is folded here too, in tc__k_fold's tree
   (TC__VM_FOLD64): p[0] is then the row's value and the kernel returns 1;
   a shorter row returns 0 with its partials in p. Without z, the partials
   start from p's 64 and are not folded: one row after another reduced
   into the same partials, as the bytecode's lanes would be. With prime,
   a's rows come from memory: a line 16 KB ahead is asked for every 2 KB
   (tc__k_prime_f32). */
#define TC__FXR_BARE 100
#define TC__FXR_SQUARE 110 /* + op: (a[i] op b[i]) squared, or (a[i] op *s) */
/* tc__e_amin_f32, tc__e_amax_f32 (functions do not inline into a kernel
   with its own optimize attribute) */
#define TC__FXR_AMIN(x, y) ((y) < (x) ? (y) : (x))
#define TC__FXR_AMAX(x, y) ((y) > (x) ? (y) : (x))
#define TC__FXR_AT(p) (p)[i] /* element i of row p */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(TC__NO_VECTOR_EXT)
typedef float tc__f32x16 __attribute__((vector_size(64)));
typedef int32_t tc__i32x16 __attribute__((vector_size(64)));
typedef float tc__f32x16u __attribute__((vector_size(64), aligned(4), may_alias)); /* unaligned */
#define TC__FXR_VAT(p) (*(const tc__f32x16u *)((p) + i + o)) /* elements i + o ... of row p */
#if defined(__AVX512F__)
/* vmaxps (a, b) is a > b ? a : b, NaN and equal operands giving b: with
   a = y, the select below in one instruction (a bare max of 1024 floats
   in cache measured faster so) */
#define TC__FXR_VAMIN(x, y) ((tc__f32x16)_mm512_min_ps((__m512)(y), (__m512)(x)))
#define TC__FXR_VAMAX(x, y) ((tc__f32x16)_mm512_max_ps((__m512)(y), (__m512)(x)))
#else
#define TC__FXR_VSEL(m, y, x) ((tc__f32x16)(((tc__i32x16)(y) & (m)) | ((tc__i32x16)(x) & ~(m))))
#define TC__FXR_VAMIN(x, y) TC__FXR_VSEL((y) < (x), y, x)
#define TC__FXR_VAMAX(x, y) TC__FXR_VSEL((y) > (x), y, x)
#endif
#define TC__FXR_LOOP(OP, VOP, E, O1, O2)                                                     \
    do {                                                                                     \
        tc__f32x16 v0, v1, v2, v3;                                                           \
        int o;                                                                               \
        memcpy(&v0, q, 64), memcpy(&v1, q + 16, 64), memcpy(&v2, q + 32, 64);                \
        memcpy(&v3, q + 48, 64);                                                             \
        for (i = 0; i + TC__VM_RED_LANES <= n; i += TC__VM_RED_LANES) {                      \
            if (prime && !(i & 511)) /* every 2 KB: tc__k_prime_f32, written out */          \
                __builtin_prefetch((const void *)((uintptr_t)(a + i) + TC__K_PRIME_AHEAD));  \
            o = 0, v0 = VOP(v0, E(TC__FXR_VAT, O1, O2));                                     \
            o = 16, v1 = VOP(v1, E(TC__FXR_VAT, O1, O2));                                    \
            o = 32, v2 = VOP(v2, E(TC__FXR_VAT, O1, O2));                                    \
            o = 48, v3 = VOP(v3, E(TC__FXR_VAT, O1, O2));                                    \
        }                                                                                    \
        memcpy(q, &v0, 64), memcpy(q + 16, &v1, 64), memcpy(q + 32, &v2, 64);                \
        memcpy(q + 48, &v3, 64);                                                             \
        for (l = 0; i < n; l++, i++) q[l] = OP(q[l], E(TC__FXR_AT, O1, O2));                 \
    } while (0)
#else
#define TC__FXR_LOOP(OP, VOP, E, O1, O2)                                                     \
    do {                                                                                     \
        for (i = 0; i + TC__VM_RED_LANES <= n;)                                              \
            for (l = 0; l < TC__VM_RED_LANES; l++, i++) q[l] = OP(q[l], E(TC__FXR_AT, O1, O2)); \
        for (l = 0; i < n; l++, i++) q[l] = OP(q[l], E(TC__FXR_AT, O1, O2));                 \
    } while (0)
#endif
/* TC__VM_FOLD64 on q */
#define TC__FXR_FOLD64(OP)                                                                   \
    do {                                                                                     \
        for (l = 0; l < 32; l++) q[l] = OP(q[l], q[l + 32]);                                 \
        for (l = 0; l < 16; l++) q[l] = OP(q[l], q[l + 16]);                                 \
        for (l = 0; l < 8; l++) q[l] = OP(q[l], q[l + 8]);                                   \
        for (l = 0; l < 4; l++) q[l] = OP(q[l], q[l + 4]);                                   \
        q[0] = OP(q[0], q[2]), q[1] = OP(q[1], q[3]), q[0] = OP(q[0], q[1]);                 \
    } while (0)
/* the values, X reading a row at the current element(s) */
#define TC__FXR_E0(X, O1, O2) X(a)
#define TC__FXR_E1S(X, O1, O2) TC__FX_##O1(X(a), sv)
#define TC__FXR_E1V(X, O1, O2) TC__FX_##O1(X(a), X(b))
#define TC__FXR_E2S(X, O1, O2) TC__FX_##O2(TC__FX_##O1(X(a), X(b)), sv)
#define TC__FXR_E2V(X, O1, O2) TC__FX_##O2(TC__FX_##O1(X(a), X(b)), X(c))
#define TC__FXR_EQS(X, O1, O2) TC__FX_MUL(TC__FX_##O1(X(a), sv), TC__FX_##O1(X(a), sv))
#define TC__FXR_EQV(X, O1, O2) TC__FX_MUL(TC__FX_##O1(X(a), X(b)), TC__FX_##O1(X(a), X(b)))
#define TC__FXR_SUM(E, O1, O2) TC__FXR_LOOP(TC__FX_ADD, TC__FX_ADD, E, O1, O2)
#define TC__FXR_C2(O1, O2)                                                                   \
    case TC__FX_CODE(TC__FX_OP(O1), TC__FX_OP(O2), 0):                                       \
        if (s) TC__FXR_SUM(TC__FXR_E2S, O1, O2);                                             \
        else TC__FXR_SUM(TC__FXR_E2V, O1, O2);                                               \
        break;
#define TC__FXR_C1(O1)                                                                       \
    case TC__FXR_ONE + TC__FX_OP(O1):                                                        \
        if (s) TC__FXR_SUM(TC__FXR_E1S, O1, O1);                                             \
        else TC__FXR_SUM(TC__FXR_E1V, O1, O1);                                               \
        break;                                                                               \
        TC__FX_L2(TC__FXR_C2, O1)
#define TC__FXR_CQ(O1)                                                                       \
    case TC__FXR_SQUARE + TC__FX_OP(O1):                                                     \
        if (s) TC__FXR_SUM(TC__FXR_EQS, O1, O1);                                             \
        else TC__FXR_SUM(TC__FXR_EQV, O1, O1);                                               \
        break;
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
TC__KERNEL int tc__k_chain_reduce_f32(int code, tc_reduce r, const float *z, float *TC__RESTRICT p,
                                       const float *TC__RESTRICT a, const float *TC__RESTRICT b,
                                       const float *TC__RESTRICT c, const float *s, int n, int prime) {
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
    float q[TC__VM_RED_LANES], sv = s ? *s : 0.0f;
    int i, l, folded = 0;
    (void)prime; /* the portable loop does without */
    if (z) { /* the identity, stored as wide as TC__FXR_LOOP loads it (a load that spans
                several narrower stores waits for them all) */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(TC__NO_VECTOR_EXT)
        tc__f32x16 zv;
        memset(&zv, 0, sizeof zv);
        zv += *z; /* every lane */
        for (l = 0; l < TC__VM_RED_LANES; l += 16) memcpy(q + l, &zv, 64);
#else
        for (l = 0; l < TC__VM_RED_LANES; l++) q[l] = *z;
#endif
    } else {
        memcpy(q, p, sizeof q);
    }
    if (code == TC__FXR_BARE) {
        switch (r) {
        case TC_REDUCE_SUM: TC__FXR_LOOP(TC__FX_ADD, TC__FX_ADD, TC__FXR_E0, -, -); break;
        case TC_REDUCE_PROD: TC__FXR_LOOP(TC__FX_MUL, TC__FX_MUL, TC__FXR_E0, -, -); break;
        case TC_REDUCE_MIN: TC__FXR_LOOP(TC__FXR_AMIN, TC__FXR_VAMIN, TC__FXR_E0, -, -); break;
        case TC_REDUCE_MAX: TC__FXR_LOOP(TC__FXR_AMAX, TC__FXR_VAMAX, TC__FXR_E0, -, -); break;
        default: break;
        }
    } else if (r == TC_REDUCE_SUM) {
        switch (code) {
            TC__FX_L1(TC__FXR_C1)
            TC__FXR_CQ(ADD) TC__FXR_CQ(SUB) TC__FXR_CQ(MUL)
        default: break;
        }
    }
    if (z && n >= TC__VM_RED_LANES) { /* fold once, for every case */
        switch (r) {
        case TC_REDUCE_SUM: TC__FXR_FOLD64(TC__FX_ADD); break;
        case TC_REDUCE_PROD: TC__FXR_FOLD64(TC__FX_MUL); break;
        case TC_REDUCE_MIN: TC__FXR_FOLD64(TC__FXR_AMIN); break;
        case TC_REDUCE_MAX: TC__FXR_FOLD64(TC__FXR_AMAX); break;
        default: break;
        }
        folded = 1;
    }
    if (folded) p[0] = q[0];
    else memcpy(p, q, sizeof q);
    return folded;
}
/* d[i] = a[i] op s (TC_OP_ADD, _SUB or _MUL, s second: the values of
   tc__k_arith_uni_f32) and, in the same pass, the sum over d of d[i] *
   d[i] (code TC__FXR_ONE + MUL, t NULL) or (d[i] * d[i]) o2 *t (a pair's
   code, MUL then o2 + - * /): the values and the order of
   tc__k_chain_reduce_f32(code, TC_REDUCE_SUM, z, p, d, d, NULL, t, n, 0)
   after it (layernorm's d = X - mean, then var += d * d / N: one pass
   over the row, d's block reduced from registers as it is written, not
   read again). Returns what that call returns; -1, having done nothing,
   for another op or chain (tc__k_uni_sq_ok says which it takes). */
#define TC__FXS_SQ(X, O1, O2) TC__FX_MUL(X(d), X(d))
#define TC__FXS_SQT(X, O1, O2) TC__FX_##O2(TC__FX_MUL(X(d), X(d)), tv)
#if (defined(__GNUC__) || defined(__clang__)) && !defined(TC__NO_VECTOR_EXT)
#define TC__FXS_LOOP(UOP, E, O2)                                                             \
    do {                                                                                     \
        tc__f32x16 v0, v1, v2, v3, x_;                                                       \
        int o;                                                                               \
        memcpy(&v0, q, 64), memcpy(&v1, q + 16, 64), memcpy(&v2, q + 32, 64);                \
        memcpy(&v3, q + 48, 64);                                                             \
        for (i = 0; i + TC__VM_RED_LANES <= n; i += TC__VM_RED_LANES) {                      \
            o = 0, x_ = TC__FX_##UOP(TC__FXR_VAT(a), sv), memcpy(d + i, &x_, 64);            \
            v0 = TC__FX_ADD(v0, E(TC__FXS_V, -, O2));                                        \
            o = 16, x_ = TC__FX_##UOP(TC__FXR_VAT(a), sv), memcpy(d + i + 16, &x_, 64);      \
            v1 = TC__FX_ADD(v1, E(TC__FXS_V, -, O2));                                        \
            o = 32, x_ = TC__FX_##UOP(TC__FXR_VAT(a), sv), memcpy(d + i + 32, &x_, 64);      \
            v2 = TC__FX_ADD(v2, E(TC__FXS_V, -, O2));                                        \
            o = 48, x_ = TC__FX_##UOP(TC__FXR_VAT(a), sv), memcpy(d + i + 48, &x_, 64);      \
            v3 = TC__FX_ADD(v3, E(TC__FXS_V, -, O2));                                        \
        }                                                                                    \
        memcpy(q, &v0, 64), memcpy(q + 16, &v1, 64), memcpy(q + 32, &v2, 64);                \
        memcpy(q + 48, &v3, 64);                                                             \
        for (l = 0; i < n && l < TC__VM_RED_LANES; l++, i++) { /* l < 64: said for gcc */   \
            d[i] = TC__FX_##UOP(a[i], sv);                                                   \
            q[l] = TC__FX_ADD(q[l], E(TC__FXR_AT, -, O2));                                   \
        }                                                                                    \
    } while (0)
#define TC__FXS_V(p) x_ /* the block of d just made */
#else
#define TC__FXS_LOOP(UOP, E, O2)                                                             \
    do {                                                                                     \
        for (i = 0; i < n;)                                                                  \
            for (l = 0; l < TC__VM_RED_LANES && i < n; l++, i++) {                           \
                d[i] = TC__FX_##UOP(a[i], sv);                                               \
                q[l] = TC__FX_ADD(q[l], E(TC__FXR_AT, -, O2));                               \
            }                                                                                \
    } while (0)
#endif
#define TC__FXS_OPS(UOP)                                                                     \
    do {                                                                                     \
        if (code == TC__FXR_ONE + TC__FX_OP(MUL)) TC__FXS_LOOP(UOP, TC__FXS_SQ, MUL);        \
        else if (code == TC__FX_CODE(TC__FX_OP(MUL), TC__FX_OP(ADD), 0)) TC__FXS_LOOP(UOP, TC__FXS_SQT, ADD); \
        else if (code == TC__FX_CODE(TC__FX_OP(MUL), TC__FX_OP(SUB), 0)) TC__FXS_LOOP(UOP, TC__FXS_SQT, SUB); \
        else if (code == TC__FX_CODE(TC__FX_OP(MUL), TC__FX_OP(MUL), 0)) TC__FXS_LOOP(UOP, TC__FXS_SQT, MUL); \
        else TC__FXS_LOOP(UOP, TC__FXS_SQT, DIV);                                            \
    } while (0)
TC__KERNEL int tc__k_uni_sq_ok(int op, int code, int has_t) {
    int pair = code >= TC__FX_CODE(TC__FX_OP(MUL), TC__FX_OP(ADD), 0) &&
               code <= TC__FX_CODE(TC__FX_OP(MUL), TC__FX_OP(DIV), 0) && code % 5 == 0;
    return (op == TC_OP_ADD || op == TC_OP_SUB || op == TC_OP_MUL) &&
           (has_t ? pair : code == TC__FXR_ONE + TC__FX_OP(MUL));
}
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off"))) /* d * d + partial must not become an fma */
#endif
TC__KERNEL int tc__k_uni_sq_reduce_f32(int op, float *TC__RESTRICT d, const float *TC__RESTRICT a, float sv,
                                        int code, const float *z, float *TC__RESTRICT p, const float *t, int n) {
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
    float q[TC__VM_RED_LANES], tv = t ? *t : 0.0f;
    int i, l;
    if (!tc__k_uni_sq_ok(op, code, t != NULL)) return -1;
    for (l = 0; l < TC__VM_RED_LANES; l++) q[l] = *z;
    if (op == TC_OP_ADD) TC__FXS_OPS(ADD);
    else if (op == TC_OP_SUB) TC__FXS_OPS(SUB);
    else TC__FXS_OPS(MUL);
    if (n < TC__VM_RED_LANES) {
        memcpy(p, q, sizeof q);
        return 0;
    }
    TC__FXR_FOLD64(TC__FX_ADD);
    p[0] = q[0];
    return 1;
}
#undef TC__FXS_OPS
#undef TC__FXS_LOOP
#undef TC__FXS_V
#undef TC__FXS_SQ
#undef TC__FXS_SQT
#undef TC__FXR_FOLD64
#undef TC__FXR_C1
#undef TC__FXR_C2
#undef TC__FXR_CQ
#undef TC__FXR_EQS
#undef TC__FXR_EQV
#undef TC__FXR_SUM
#undef TC__FXR_E0
#undef TC__FXR_E1S
#undef TC__FXR_E1V
#undef TC__FXR_E2S
#undef TC__FXR_E2V
#undef TC__FXR_LOOP
#undef TC__FXR_AT
#undef TC__FXR_AMIN
#undef TC__FXR_AMAX
#if (defined(__GNUC__) || defined(__clang__)) && !defined(TC__NO_VECTOR_EXT)
#undef TC__FXR_VAT
#ifndef __AVX512F__
#undef TC__FXR_VSEL
#endif
#undef TC__FXR_VAMIN
#undef TC__FXR_VAMAX
#endif

/* A sum's step whose value is one float op (type A: the accumulator along
   an output loop, tc__vm_block): acc[i] += a[i] op b[i], or with a scalar
   s for a lane-uniform operand, second (a[i] op s) or, with s_first,
   first (s op a[i]); op TC_OP_CALL: fabs(a[i]). Each operation rounds as
   its own pass would (no fma: contraction is off), so the bits are those
   of the value made, then summed; one pass over the lanes instead of two. */
#define TC__VM_ACC_OP(sfx, T, FABS)                                                          \
    TC__ATTR_NO_CONTRACT                                                                     \
    TC__KERNEL void tc__k_acc_op_##sfx(int op, T *TC__RESTRICT acc, const T *TC__RESTRICT a, \
                                        const T *TC__RESTRICT b, const T *s, int s_first, int n) { \
        TC__PRAGMA_NO_CONTRACT                                                               \
        T sv = s ? *s : (T)0;                                                                \
        int i;                                                                               \
        switch (op) {                                                                        \
        case TC_OP_ADD:                                                                      \
            if (s) for (i = 0; i < n; i++) acc[i] = acc[i] + (a[i] + sv);                    \
            else for (i = 0; i < n; i++) acc[i] = acc[i] + (a[i] + b[i]);                    \
            break;                                                                           \
        case TC_OP_SUB:                                                                      \
            if (s && s_first) for (i = 0; i < n; i++) acc[i] = acc[i] + (sv - a[i]);         \
            else if (s) for (i = 0; i < n; i++) acc[i] = acc[i] + (a[i] - sv);               \
            else for (i = 0; i < n; i++) acc[i] = acc[i] + (a[i] - b[i]);                    \
            break;                                                                           \
        case TC_OP_CALL: /* fabs (exact) */                                                  \
            for (i = 0; i < n; i++) acc[i] = acc[i] + FABS(a[i]);                            \
            break;                                                                           \
        default: /* TC_OP_MUL */                                                             \
            if (s) for (i = 0; i < n; i++) acc[i] = acc[i] + a[i] * sv;                      \
            else for (i = 0; i < n; i++) acc[i] = acc[i] + a[i] * b[i];                      \
            break;                                                                           \
        }                                                                                    \
    }
#if defined(__GNUC__) && !defined(__clang__)
#define TC__ATTR_NO_CONTRACT __attribute__((optimize("fp-contract=off")))
#else
#define TC__ATTR_NO_CONTRACT
#endif
#if defined(__clang__)
#define TC__PRAGMA_NO_CONTRACT _Pragma("STDC FP_CONTRACT OFF")
#else
#define TC__PRAGMA_NO_CONTRACT
#endif
TC__VM_ACC_OP(f32, float, fabsf)
TC__VM_ACC_OP(f64, double, fabs)
#undef TC__VM_ACC_OP
#undef TC__ATTR_NO_CONTRACT
#undef TC__PRAGMA_NO_CONTRACT
/* ... for float32 or float64 lanes t */
TC__PRIVATE void tc__k_acc_op(tc_dtype t, int op, void *acc, const void *a, const void *b, const void *s,
                              int s_first, int n) {
    if (t == TC_FLOAT32)
        tc__k_acc_op_f32(op, (float *)acc, (const float *)a, (const float *)b, (const float *)s, s_first, n);
    else
        tc__k_acc_op_f64(op, (double *)acc, (const double *)a, (const double *)b, (const double *)s, s_first, n);
}

/* A float32 reduction along the lanes whose value is one float op
   (sp->lane_op) made and reduced in one pass, or the bare lanes (op
   TC_OP_COUNT): lane i's value is a[i] op b[i], or with a scalar *s (b
   NULL) a[i] op s or, with s_first, s op a[i]; op TC_OP_CALL is
   fabs(a[i]). Each value rounds as its own instruction would (no fma),
   then goes to partial i % TC__VM_RED_LANES as tc__k_reduce_lanes puts it:
   the bits of the instruction and the reduction run one after the other,
   without the block of values between them. With acc: n lanes onto acc's
   partials (rows 1), the first lane partial 0's. Without: `rows` rows of
   n lanes one after the other (a and b alike), each from the identity
   *id, folded in tc__k_fold's tree into out[k] (one call for a block of
   folded rows, whatever their length). The op and the operator are
   switched on per 64 lanes, not compiled into a loop each: one loop to
   build, and a well-predicted branch beside the lanes' work. */
#define TC__LO_RED_SUM(p, v) ((p) + (v))
#define TC__LO_RED_PROD(p, v) ((p) * (v))
#define TC__LO_RED_MIN(p, v) ((v) < (p) ? (v) : (p))
#define TC__LO_RED_MAX(p, v) ((v) > (p) ? (v) : (p))
#define TC__LO_SWITCH(BODY)                                                                  \
    switch (r) {                                                                             \
    case TC_REDUCE_SUM: BODY(SUM); break;                                                    \
    case TC_REDUCE_PROD: BODY(PROD); break;                                                  \
    case TC_REDUCE_MIN: BODY(MIN); break;                                                    \
    default: BODY(MAX); break;                                                               \
    }
#if (defined(__GNUC__) || defined(__clang__)) && !defined(TC__NO_VECTOR_EXT)
#if defined(__AVX512F__)
#define TC__LO_VRED_MIN(p, v) ((tc__f32x16)_mm512_min_ps((__m512)(v), (__m512)(p)))
#define TC__LO_VRED_MAX(p, v) ((tc__f32x16)_mm512_max_ps((__m512)(v), (__m512)(p)))
#else
#define TC__LO_VSEL(m, y, x) ((tc__f32x16)(((tc__i32x16)(y) & (m)) | ((tc__i32x16)(x) & ~(m))))
#define TC__LO_VRED_MIN(p, v) TC__LO_VSEL((v) < (p), v, p)
#define TC__LO_VRED_MAX(p, v) TC__LO_VSEL((v) > (p), v, p)
#endif
#define TC__LO_VRED_SUM TC__LO_RED_SUM
#define TC__LO_VRED_PROD TC__LO_RED_PROD
/* X for each of the four vectors of 64 lanes: p0..p3 the partials, x0..x3
   and y0..y3 the operands */
#define TC__LO_4(X) X(0) X(1) X(2) X(3)
/* x op= y, s_first: y op x */
#define TC__LO_VOP1(j, OP) x##j = s_first ? (y##j OP x##j) : (x##j OP y##j);
#define TC__LO_VADD(j) TC__LO_VOP1(j, +)
#define TC__LO_VSUB(j) TC__LO_VOP1(j, -)
#define TC__LO_VMUL(j) TC__LO_VOP1(j, *)
#define TC__LO_VABS(j) x##j = (tc__f32x16)((tc__i32x16)x##j & 0x7fffffff);
/* the partials (r)= x: every lane, or (TAIL) the lanes below m */
#define TC__LO_VSTEP1(j, RED) p##j = TC__LO_VRED_##RED(p##j, x##j);
#define TC__LO_VTAIL1(j, RED)                                                                \
    {                                                                                        \
        tc__i32x16 k_ = tc__lo_iota + j * 16 < m;                                            \
        p##j = (tc__f32x16)(((tc__i32x16)TC__LO_VRED_##RED(p##j, x##j) & k_) | ((tc__i32x16)p##j & ~k_)); \
    }
#define TC__LO_VSTEP_SUM(j) TC__LO_VSTEP1(j, SUM)
#define TC__LO_VSTEP_PROD(j) TC__LO_VSTEP1(j, PROD)
#define TC__LO_VSTEP_MIN(j) TC__LO_VSTEP1(j, MIN)
#define TC__LO_VSTEP_MAX(j) TC__LO_VSTEP1(j, MAX)
#define TC__LO_VTAIL_SUM(j) TC__LO_VTAIL1(j, SUM)
#define TC__LO_VTAIL_PROD(j) TC__LO_VTAIL1(j, PROD)
#define TC__LO_VTAIL_MIN(j) TC__LO_VTAIL1(j, MIN)
#define TC__LO_VTAIL_MAX(j) TC__LO_VTAIL1(j, MAX)
#define TC__LO_VSTEP(RED) TC__LO_4(TC__LO_VSTEP_##RED)
#define TC__LO_VTAIL(RED) TC__LO_4(TC__LO_VTAIL_##RED)
/* TC__VM_FOLD64 on the partials, into out[k] */
#define TC__LO_VFOLD(RED)                                                                    \
    do {                                                                                     \
        float q_[16];                                                                        \
        int l_;                                                                              \
        p0 = TC__LO_VRED_##RED(p0, p2), p1 = TC__LO_VRED_##RED(p1, p3);                      \
        p0 = TC__LO_VRED_##RED(p0, p1);                                                      \
        memcpy(q_, &p0, 64);                                                                 \
        for (l_ = 0; l_ < 8; l_++) q_[l_] = TC__LO_RED_##RED(q_[l_], q_[l_ + 8]);            \
        for (l_ = 0; l_ < 4; l_++) q_[l_] = TC__LO_RED_##RED(q_[l_], q_[l_ + 4]);            \
        q_[0] = TC__LO_RED_##RED(q_[0], q_[2]), q_[1] = TC__LO_RED_##RED(q_[1], q_[3]);      \
        out[k] = TC__LO_RED_##RED(q_[0], q_[1]);                                             \
    } while (0)
static const tc__i32x16 tc__lo_iota = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
/* vector j of the 64 lanes at a, or of the m < 64 left, the rest zeros */
#if defined(__AVX512F__)
#define TC__LO_LOAD1(j, X, a)                                                                \
    {                                                                                        \
        int c_ = m - j * 16 < 0 ? 0 : m - j * 16 > 16 ? 16 : m - j * 16;                     \
        X##j = (tc__f32x16)_mm512_maskz_loadu_ps((__mmask16)((1u << c_) - 1u), (a) + j * 16); \
    }
#define TC__LO_TAIL_LOAD(X, a)                                                               \
    do {                                                                                     \
        TC__LO_LOAD1(0, X, a) TC__LO_LOAD1(1, X, a) TC__LO_LOAD1(2, X, a) TC__LO_LOAD1(3, X, a) \
    } while (0)
#else
#define TC__LO_TAIL_LOAD(X, a)                                                               \
    do {                                                                                     \
        float t_[TC__VM_RED_LANES] = {0};                                                    \
        memcpy(t_, a, sizeof(float) * (size_t)m);                                            \
        memcpy(&X##0, t_, 64), memcpy(&X##1, t_ + 16, 64), memcpy(&X##2, t_ + 32, 64);       \
        memcpy(&X##3, t_ + 48, 64);                                                          \
    } while (0)
#endif
#define TC__LO_LOAD(X, a)                                                                    \
    memcpy(&X##0, a, 64), memcpy(&X##1, (a) + 16, 64), memcpy(&X##2, (a) + 32, 64),          \
        memcpy(&X##3, (a) + 48, 64)
/* the values of the operands loaded in x (and y) */
#define TC__LO_VALUES                                                                        \
    switch (op) {                                                                            \
    case TC_OP_ADD: TC__LO_4(TC__LO_VADD) break;                                             \
    case TC_OP_SUB: TC__LO_4(TC__LO_VSUB) break;                                             \
    case TC_OP_MUL: TC__LO_4(TC__LO_VMUL) break;                                             \
    case TC_OP_CALL: TC__LO_4(TC__LO_VABS) break; /* fabs */                                 \
    default: break;                                                                          \
    }
#else /* the plain C loop's (below) */
#define TC__LO_LANE(RED) q[i % TC__VM_RED_LANES] = TC__LO_RED_##RED(q[i % TC__VM_RED_LANES], v)
#define TC__LO_FOLD(RED)                                                                     \
    do {                                                                                     \
        float *a = q; /* TC__VM_FOLD64's array */                                            \
        TC__VM_FOLD64(TC__LO_RED_##RED);                                                     \
    } while (0)
#endif
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
TC__KERNEL void tc__k_rows_op(tc_reduce r, int op, const float *id, float *acc, const float *a, const float *b,
                              const float *s, int s_first, int n, int rows, float *TC__RESTRICT out) {
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#if (defined(__GNUC__) || defined(__clang__)) && !defined(TC__NO_VECTOR_EXT)
    tc__f32x16 p0, p1, p2, p3, x0, x1, x2, x3, y0, y1, y2, y3, sv, z;
    float b_[2][16]; /* the scalars in every lane (0 + s would lose a -0) */
    int i, k, m;
    for (i = 0; i < 16; i++) b_[0][i] = s ? *s : 0.0f, b_[1][i] = id ? *id : 0.0f;
    memcpy(&sv, b_[0], 64), memcpy(&z, b_[1], 64);
    y0 = y1 = y2 = y3 = sv;
    for (k = 0; k < rows; k++, a += n, b = b ? b + n : b) {
        if (acc)
            memcpy(&p0, acc, 64), memcpy(&p1, acc + 16, 64), memcpy(&p2, acc + 32, 64),
                memcpy(&p3, acc + 48, 64);
        else
            p0 = p1 = p2 = p3 = z;
        for (i = 0; i + TC__VM_RED_LANES <= n; i += TC__VM_RED_LANES) {
            TC__LO_LOAD(x, a + i);
            if (b) TC__LO_LOAD(y, b + i);
            TC__LO_VALUES
            TC__LO_SWITCH(TC__LO_VSTEP)
        }
        if ((m = n - i) > 0) {
            TC__LO_TAIL_LOAD(x, a + i);
            if (b) TC__LO_TAIL_LOAD(y, b + i);
            TC__LO_VALUES
            TC__LO_SWITCH(TC__LO_VTAIL)
        }
        if (acc)
            memcpy(acc, &p0, 64), memcpy(acc + 16, &p1, 64), memcpy(acc + 32, &p2, 64),
                memcpy(acc + 48, &p3, 64);
        else
            TC__LO_SWITCH(TC__LO_VFOLD)
    }
#else /* the same values and order, lane by lane */
    float q[TC__VM_RED_LANES], sv = s ? *s : 0.0f;
    int i, k;
    for (k = 0; k < rows; k++, a += n, b = b ? b + n : b) {
        if (acc) memcpy(q, acc, sizeof q);
        else for (i = 0; i < TC__VM_RED_LANES; i++) q[i] = *id;
        for (i = 0; i < n; i++) {
            float x = a[i], y = b ? b[i] : sv, v = x;
            switch (op) {
            case TC_OP_ADD: v = s_first ? y + x : x + y; break;
            case TC_OP_SUB: v = s_first ? y - x : x - y; break;
            case TC_OP_MUL: v = s_first ? y * x : x * y; break;
            case TC_OP_CALL: v = fabsf(x); break;
            default: break;
            }
            TC__LO_SWITCH(TC__LO_LANE)
        }
        if (acc) {
            memcpy(acc, q, sizeof q);
        } else {
            TC__LO_SWITCH(TC__LO_FOLD)
            out[k] = q[0];
        }
    }
#endif
}
#if !((defined(__GNUC__) || defined(__clang__)) && !defined(TC__NO_VECTOR_EXT))
#undef TC__LO_LANE
#undef TC__LO_FOLD
#endif
#undef TC__LO_RED_SUM
#undef TC__LO_RED_PROD
#undef TC__LO_RED_MIN
#undef TC__LO_RED_MAX
#undef TC__LO_SWITCH
#if (defined(__GNUC__) || defined(__clang__)) && !defined(TC__NO_VECTOR_EXT)
#ifndef __AVX512F__
#undef TC__LO_VSEL
#endif
#undef TC__LO_VRED_MIN
#undef TC__LO_VRED_MAX
#undef TC__LO_VRED_SUM
#undef TC__LO_VRED_PROD
#undef TC__LO_4
#undef TC__LO_VOP1
#undef TC__LO_VADD
#undef TC__LO_VSUB
#undef TC__LO_VMUL
#undef TC__LO_VABS
#undef TC__LO_VSTEP1
#undef TC__LO_VSTEP_SUM
#undef TC__LO_VSTEP_PROD
#undef TC__LO_VSTEP_MIN
#undef TC__LO_VSTEP_MAX
#undef TC__LO_VSTEP
#undef TC__LO_VTAIL1
#undef TC__LO_VTAIL_SUM
#undef TC__LO_VTAIL_PROD
#undef TC__LO_VTAIL_MIN
#undef TC__LO_VTAIL_MAX
#undef TC__LO_VTAIL
#undef TC__LO_VALUES
#undef TC__LO_VFOLD
#if defined(__AVX512F__)
#undef TC__LO_LOAD1
#endif
#undef TC__LO_TAIL_LOAD
#undef TC__LO_LOAD
#endif

TC__KERNEL void tc__k_reduce(tc_dtype t, tc_reduce r, void *acc, const void *v, int n) {
    switch (t) {
#define TC__VM_RED_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_reduce_##sfx(r, acc, v, n); break;
        TC__VM_TYPES(TC__VM_RED_CASE)
#undef TC__VM_RED_CASE
    default: break;
    }
}
TC__KERNEL void tc__k_fold(tc_dtype t, tc_reduce r, void *acc, int n, void *out) {
    switch (t) {
#define TC__VM_FOLD_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_fold_##sfx(r, acc, n, out); break;
        TC__VM_TYPES(TC__VM_FOLD_CASE)
#undef TC__VM_FOLD_CASE
    default: break;
    }
}
TC__KERNEL void tc__k_fold_rows(tc_dtype t, tc_reduce r, void *v, const void *id, int n, int rows, void *out) {
    switch (t) {
#define TC__VM_FOLD_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_fold_rows_##sfx(r, v, id, n, rows, out); break;
        TC__VM_TYPES(TC__VM_FOLD_CASE)
#undef TC__VM_FOLD_CASE
    default: break;
    }
}

/* acc[i] = acc[i] (r) p[i * stride]: a reduction straight from memory
   (window reductions such as pooling). Strides 1 and 2 get loops of their
   own, which compilers vectorize (stride 2 by load + permute). min and max
   are idempotent, so their ragged end is one more full group of 16 lanes
   overlapping the last ones: no scalar tail. */
#define TC__VM_RM_LOOP(OP, sfx, from, to, S)                                                 \
    for (i = (from); i < (to); i++) d[i] = OP##sfx(d[i], p[i * (S)])
#define TC__VM_RM_IDEM(OP, sfx)                                                              \
    do {                                                                                     \
        int n16 = n & ~15, t0 = n - 16;                                                      \
        if (n < 16) TC__VM_RM_LOOP(OP, sfx, 0, n, s);                                        \
        else if (s == 1) { TC__VM_RM_LOOP(OP, sfx, 0, n16, 1); if (n16 < n) TC__VM_RM_LOOP(OP, sfx, t0, t0 + 16, 1); } \
        else if (s == 2) { TC__VM_RM_LOOP(OP, sfx, 0, n16, 2); if (n16 < n) TC__VM_RM_LOOP(OP, sfx, t0, t0 + 16, 2); } \
        else TC__VM_RM_LOOP(OP, sfx, 0, n, s);                                               \
    } while (0)
#define TC__VM_RED_MEM(sfx, DT, T, W, K)                                                     \
    TC__KERNEL void tc__k_reduce_mem_##sfx(tc_reduce r, void *accv, const void *pv,         \
                                            int64_t s, int n) {                              \
        T *TC__RESTRICT d = (T *)accv;                                                       \
        const T *TC__RESTRICT p = (const T *)pv;                                             \
        int i;                                                                               \
        switch (r) {                                                                         \
        case TC_REDUCE_SUM:                                                                  \
            if (s == 1) TC__VM_RM_LOOP(tc__e_add_, sfx, 0, n, 1);                            \
            else if (s == 2) TC__VM_RM_LOOP(tc__e_add_, sfx, 0, n, 2);                       \
            else TC__VM_RM_LOOP(tc__e_add_, sfx, 0, n, s);                                   \
            break;                                                                           \
        case TC_REDUCE_PROD: TC__VM_RM_LOOP(tc__e_mul_, sfx, 0, n, s); break;                \
        case TC_REDUCE_MIN: TC__VM_RM_IDEM(tc__e_amin_, sfx); break;                         \
        case TC_REDUCE_MAX: TC__VM_RM_IDEM(tc__e_amax_, sfx); break;                         \
        default: TC__VM_LOOP(p[i * s]); break;                                               \
        }                                                                                    \
    }
TC__VM_TYPES(TC__VM_RED_MEM)
#undef TC__VM_RED_MEM
#undef TC__VM_RM_IDEM
#undef TC__VM_RM_LOOP

/* acc[i] = acc[i] (r) (p[2i] (r) p[2i+1]): a window of two adjacent
   elements per lane (2x2 pooling's inner pair) read as one contiguous run,
   which vectorizes without a strided load. min and max end with an
   overlapping group of 16 lanes instead of a scalar tail. With z (the
   identity), acc starts at *z instead of its contents: acc is only
   written, so a fused `!` reduces straight into the output row in one
   pass, with the same sequence of operations as a filled accumulator. */
#define TC__VM_RM_QUAD(OP, sfx, A) /* the 2x2 window of lane i, in the order it reads */ \
    OP##sfx(OP##sfx(OP##sfx(OP##sfx(A, p[2 * i]), p[2 * i + 1]), q[2 * i]), q[2 * i + 1])
#define TC__VM_RM_PAIR(OP, sfx, from, to, A)                                                 \
    if (q) {                                                                                 \
        for (i = (from); i < (to); i++) d[i] = TC__VM_RM_QUAD(OP, sfx, A);                   \
    } else {                                                                                 \
        for (i = (from); i < (to); i++) d[i] = OP##sfx(OP##sfx(A, p[2 * i]), p[2 * i + 1]);  \
    }
#define TC__VM_RM_PAIR_IDEM(OP, sfx, A)                                                      \
    do {                                                                                     \
        if (n < 16) { TC__VM_RM_PAIR(OP, sfx, 0, n, A) break; }                              \
        TC__VM_RM_PAIR(OP, sfx, 0, n16, A)                                                   \
        if (n16 == n) break;                                                                 \
        d += n - 16;                                                                         \
        p += 2 * (n - 16);                                                                   \
        if (q) q += 2 * (n - 16);                                                            \
        TC__VM_RM_PAIR(OP, sfx, 0, 16, A)                                                    \
    } while (0)
#define TC__VM_RM_PAIR_OPS(sfx, A)                                                           \
    switch (r) {                                                                             \
    case TC_REDUCE_SUM: TC__VM_RM_PAIR(tc__e_add_, sfx, 0, n, A) break;                      \
    case TC_REDUCE_PROD: TC__VM_RM_PAIR(tc__e_mul_, sfx, 0, n, A) break;                     \
    case TC_REDUCE_MIN: TC__VM_RM_PAIR_IDEM(tc__e_amin_, sfx, A); break;                     \
    case TC_REDUCE_MAX: TC__VM_RM_PAIR_IDEM(tc__e_amax_, sfx, A); break;                     \
    default: break;                                                                          \
    }
/* q (may be NULL): a second pair, reduced in the same pass. */
#define TC__VM_RED_PAIR(sfx, DT, T, W, K)                                                    \
    TC__KERNEL void tc__k_reduce_pair_##sfx(tc_reduce r, void *accv, const void *pv,        \
                                             const void *qv, const void *z, int n) {         \
        T *TC__RESTRICT d = (T *)accv;                                                       \
        const T *TC__RESTRICT p = (const T *)pv;                                             \
        const T *TC__RESTRICT q = (const T *)qv;                                             \
        int i, n16 = n & ~15;                                                                \
        if (z) {                                                                             \
            T z0;                                                                            \
            memcpy(&z0, z, sizeof z0);                                                       \
            TC__VM_RM_PAIR_OPS(sfx, z0)                                                      \
        } else {                                                                             \
            TC__VM_RM_PAIR_OPS(sfx, d[i])                                                    \
        }                                                                                    \
    }
/* Rows of 2x2 (two pairs, the second at qo from the first) or 2x1 windows
   (qo NULL) reduced straight into output rows that start at the identity
   z: d + j*ds = the window at p + j*s, j < rows. One call for a run of
   pooling's short rows keeps a row's cost near that of its loads. */
#define TC__VM_RED_PAIR_ROWS(sfx, DT, T, W, K)                                               \
    TC__KERNEL void tc__k_reduce_pair_rows_##sfx(tc_reduce r, void *dv, int64_t ds,         \
                                                  const void *pv, int64_t s, const int64_t *qo, \
                                                  const void *z, int rows, int n) {          \
        int j;                                                                               \
        if (qo && z && n >= 16 && (r == TC_REDUCE_MAX || r == TC_REDUCE_MIN)) {              \
            T z0;                                                                            \
            memcpy(&z0, z, sizeof z0);                                                       \
            tc__k_pool2_rows_##sfx(r == TC_REDUCE_MAX, (T *)dv, ds, (const T *)pv, s, *qo, z0, rows, n); \
            return;                                                                          \
        }                                                                                    \
        for (j = 0; j < rows; j++) {                                                         \
            const T *pj = (const T *)pv + j * s;                                             \
            tc__k_reduce_pair_##sfx(r, (T *)dv + j * ds, pj, qo ? pj + *qo : NULL, z, n);    \
        }                                                                                    \
    }
/* 2x2 min or max pooling (TC__VM_RED_PAIR_ROWS with qo, z and n >= 16), a
   kernel of its own: as a case of the generic one the same inner loop took
   more time (64 planes of 112x112 from the L3 cache, against a naive C
   loop in one process; why, the machine code did not show: the inner
   loops are alike). */
#define TC__VM_POOL2_LOOP(OP, sfx, T)                                                         \
    for (j = 0; j < rows; j++) {                                                             \
        T *TC__RESTRICT d = dv + j * ds;                                                     \
        const T *TC__RESTRICT p = pv + j * s, *TC__RESTRICT q = p + qo;                      \
        for (i = 0; i < n16; i++) d[i] = TC__VM_RM_QUAD(OP, sfx, z);                         \
        if (n16 == n) continue;                                                              \
        d += n - 16, p += 2 * (n - 16), q += 2 * (n - 16); /* an overlapping last 16 */      \
        for (i = 0; i < 16; i++) d[i] = TC__VM_RM_QUAD(OP, sfx, z);                          \
    }
#define TC__VM_POOL2_ROWS(sfx, DT, T, W, K)                                                  \
    TC__KERNEL void tc__k_pool2_rows_##sfx(int max, T *dv, int64_t ds, const T *pv, int64_t s, \
                                            int64_t qo, T z, int rows, int n) {              \
        int i, j, n16 = n & ~15;                                                             \
        if (max) TC__VM_POOL2_LOOP(tc__e_amax_, sfx, T)                                      \
        else TC__VM_POOL2_LOOP(tc__e_amin_, sfx, T)                                          \
    }
TC__VM_TYPES_POOLED(TC__VM_RED_PAIR)
TC__VM_TYPES_POOLED(TC__VM_POOL2_ROWS)
TC__VM_TYPES_POOLED(TC__VM_RED_PAIR_ROWS)
/* tc__k_pool2_rows_f32 for output rows that are one contiguous run (ds ==
   n, or one row; n >= 16), d's whole cache lines written by streaming
   stores as they are made, 16 outputs at a time: a line within a row is
   one vector of windows; a line across rows is cut from the last 16 of the
   one row and the first 16 of the next (t, 32 floats). The part lines at
   either end are plain. Same operations in the same order as the plain
   kernel: only the stores differ. 2x2 max pooling of 8x64x112x112 (32 MB
   moved), beside the naive loop: faster with these stores at one thread,
   more so at two.
   Made in a buffer of a few rows and then copied to the lines, the
   outputs took more time in cache (128 planes: slower than the plain
   kernel; this kernel: as fast as the plain one). */
#define TC__VM_POOL2_LINE(OP, o, i0)                                                          \
    for (i = (i0); i < (i0) + 16; i++) (o)[i - (i0)] = TC__VM_RM_QUAD(OP, f32, z)
#define TC__VM_POOL2_NT(OP)                                                                   \
    for (; k + 16 <= total; k += 16) {                                                       \
        const float *TC__RESTRICT p = pv + j * s, *TC__RESTRICT q = p + qo;                  \
        if (i0 + 16 <= n) {                                                                  \
            TC__VM_POOL2_LINE(OP, t, i0);                                                    \
            TC__STREAM_LINE(d + k, t);                                                       \
            if ((i0 += 16) == n) j++, i0 = 0;                                                \
            continue;                                                                        \
        }                                                                                    \
        TC__VM_POOL2_LINE(OP, t, n - 16);                                                    \
        p += s, q += s, j++;                                                                 \
        TC__VM_POOL2_LINE(OP, t + 16, 0);                                                    \
        TC__STREAM_LINE(d + k, t + 16 - (n - i0));                                           \
        i0 = 16 - (n - i0);                                                                  \
    }
/* outputs k .. to - 1 one at a time (row j, lane i0 onwards) */
#define TC__VM_POOL2_ONES(to)                                                                \
    for (; k < (to); k++, i0++) {                                                            \
        const float *TC__RESTRICT p, *TC__RESTRICT q;                                        \
        if (i0 == n) j++, i0 = 0;                                                            \
        p = pv + j * s, q = p + qo, i = i0;                                                  \
        d[k] = max ? TC__VM_RM_QUAD(tc__e_amax_, f32, z) : TC__VM_RM_QUAD(tc__e_amin_, f32, z); \
    }
TC__KERNEL void tc__k_pool2_nt_f32(int max, float *d, const float *pv, int64_t s, int64_t qo,
                                    float z, int rows, int n) {
    float t[32];
    int64_t total = (int64_t)rows * n, k = 0, j = 0;
    int64_t head = (int64_t)((64 - (uintptr_t)d % 64) % 64 / sizeof(float)); /* to a line */
    int i, i0 = 0;
    TC__VM_POOL2_ONES(head < total ? head : total)
    if (max) TC__VM_POOL2_NT(tc__e_amax_)
    else TC__VM_POOL2_NT(tc__e_amin_)
    TC__VM_POOL2_ONES(total)
}
#undef TC__VM_POOL2_ONES
#undef TC__VM_POOL2_NT
#undef TC__VM_POOL2_LINE

#undef TC__VM_RED_PAIR_ROWS
#undef TC__VM_POOL2_ROWS
#undef TC__VM_POOL2_LOOP
#undef TC__VM_RM_QUAD
#undef TC__VM_RED_PAIR
#undef TC__VM_RM_PAIR_OPS
#undef TC__VM_RM_PAIR_IDEM
#undef TC__VM_RM_PAIR

TC__KERNEL void tc__k_reduce_pair(tc_dtype t, tc_reduce r, void *acc, const void *p,
                                   const void *q, const void *z, int n) {
    switch (t) {
#define TC__VM_RP_CASE(sfx, DT, T, W, K)                                                     \
    case TC_##DT: tc__k_reduce_pair_##sfx(r, acc, p, q, z, n); break;
        TC__VM_TYPES_POOLED(TC__VM_RP_CASE)
#undef TC__VM_RP_CASE
    default: break;
    }
}

TC__KERNEL void tc__k_reduce_pair_rows(tc_dtype t, tc_reduce r, void *d, int64_t ds, const void *p,
                                        int64_t s, const int64_t *qo, const void *z, int rows,
                                        int n, int nt) {
    if (nt && t == TC_FLOAT32 && qo && z && (ds == n || rows == 1) && n >= 16 &&
        (r == TC_REDUCE_MAX || r == TC_REDUCE_MIN)) {
        float z0;
        memcpy(&z0, z, sizeof z0);
        tc__k_pool2_nt_f32(r == TC_REDUCE_MAX, (float *)d, (const float *)p, s, *qo, z0, rows, n);
        return;
    }
    switch (t) {
#define TC__VM_RPR_CASE(sfx, DT, T, W, K)                                                    \
    case TC_##DT: tc__k_reduce_pair_rows_##sfx(r, d, ds, p, s, qo, z, rows, n); break;
        TC__VM_TYPES_POOLED(TC__VM_RPR_CASE)
#undef TC__VM_RPR_CASE
    default: break;
    }
}

/* acc[i] += p[i * s] / *k, or * *k with op TC_OP_MUL (float32 or float64):
   the quotient or product rounded, then the sum, as a DIV or MUL then a
   SUM store give (never contracted into an fma). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
TC__KERNEL void tc__k_reduce_mem_scaled(tc_dtype t, int op, void *accv, const void *pv, int64_t s,
                                         const void *k, int n) {
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
    int i;
    /* the strides of pooling windows (1, 2) as constants: they vectorize */
#define TC__VM_RMS_LOOP(OP, S) for (i = 0; i < n; i++) d[i] = d[i] + p[i * (S)] OP q
#define TC__VM_RMS(OP)                                                                       \
    do {                                                                                     \
        if (s == 1) TC__VM_RMS_LOOP(OP, 1);                                                  \
        else if (s == 2) TC__VM_RMS_LOOP(OP, 2);                                             \
        else TC__VM_RMS_LOOP(OP, s);                                                         \
    } while (0)
    if (t == TC_FLOAT64) {
        double *TC__RESTRICT d = (double *)accv, q = *(const double *)k;
        const double *TC__RESTRICT p = (const double *)pv;
        if (op == TC_OP_MUL) TC__VM_RMS(*);
        else TC__VM_RMS(/);
    } else {
        float *TC__RESTRICT d = (float *)accv, q = *(const float *)k;
        const float *TC__RESTRICT p = (const float *)pv;
        if (op == TC_OP_MUL) TC__VM_RMS(*);
        else TC__VM_RMS(/);
    }
#undef TC__VM_RMS
#undef TC__VM_RMS_LOOP
}

TC__KERNEL void tc__k_reduce_mem(tc_dtype t, tc_reduce r, void *acc, const void *p, int64_t s,
                                  int n) {
    switch (t) {
#define TC__VM_RM_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_reduce_mem_##sfx(r, acc, p, s, n); break;
        TC__VM_TYPES(TC__VM_RM_CASE)
#undef TC__VM_RM_CASE
    default: break;
    }
}

/* The identity of reduction r as one element of dtype t (float16 too):
   0, 1, +inf / type max (min=), -inf / type min (max=). */
TC__PRIVATE void tc__vm_identity(tc_dtype t, tc_reduce r, void *out) {
    static const uint64_t umax[4] = {0xffu, 0xffffu, 0xffffffffu, 0xffffffffffffffffu};
    size_t sz = tc_dtype_size(t), lg = sz == 1 ? 0 : sz == 2 ? 1 : sz == 4 ? 2 : 3;
    uint64_t bits = 0; /* little-endian-independent: built per size below */
    int hi = r == TC_REDUCE_MIN;
    if (r == TC_REDUCE_SUM || r == TC_REDUCE_ASSIGN) {
        memset(out, 0, sz);
        return;
    }
    if (t == TC_FLOAT32) {
        float f = r == TC_REDUCE_PROD ? 1.0f : hi ? (float)HUGE_VAL : -(float)HUGE_VAL;
        memcpy(out, &f, sizeof f);
        return;
    }
    if (t == TC_FLOAT64) {
        double f = r == TC_REDUCE_PROD ? 1.0 : hi ? HUGE_VAL : -HUGE_VAL;
        memcpy(out, &f, sizeof f);
        return;
    }
    if (t == TC_FLOAT16) bits = r == TC_REDUCE_PROD ? 0x3c00u : hi ? 0x7c00u : 0xfc00u;
    else if (r == TC_REDUCE_PROD || t == TC_BOOL) bits = r == TC_REDUCE_PROD || hi;
    else if (tc__dtype_is_signed(t)) bits = hi ? umax[lg] >> 1 : (umax[lg] >> 1) + 1;
    else bits = hi ? umax[lg] : 0;
    if (sz == 1) { uint8_t v = (uint8_t)bits; memcpy(out, &v, 1); }
    else if (sz == 2) { uint16_t v = (uint16_t)bits; memcpy(out, &v, 2); }
    else if (sz == 4) { uint32_t v = (uint32_t)bits; memcpy(out, &v, 4); }
    else memcpy(out, &bits, 8);
}

/* ---- memory: loads and stores --------------------------------------------
   p points at the element of lane 0; lane i is at p + i * stride elements.
   Storage dtype st: float16 converts, bool normalizes to 0/1. */
TC__KERNEL void tc__k_load(tc_dtype st, void *dv, const unsigned char *p, int64_t stride, int n) {
    size_t esz = tc_dtype_size(st);
    int i;
    if (st == TC_FLOAT16 && stride == 1) {
        tc__half_to_float_block((float *)dv, (const uint16_t *)(const void *)p, n);
    } else if (st == TC_FLOAT16) {
        float *TC__RESTRICT d = (float *)dv;
        const uint16_t *s = (const uint16_t *)(const void *)p;
        TC__VM_LOOP(tc__math_half_to_float_lane(s[i * stride]));
    } else if (st == TC_BOOL) {
        uint8_t *TC__RESTRICT d = (uint8_t *)dv;
        TC__VM_LOOP((uint8_t)(p[i * stride] != 0));
    } else if (stride == 1) {
        memcpy(dv, p, esz * (size_t)n);
    } else if (stride == 0) {
        tc__k_fill(esz, dv, p, n);
    } else { /* a short innermost dimension's strides (float(N,3)) as constants: they vectorize */
        switch (esz) {
#define TC__VM_LD(SZ, T)                                                                     \
    case SZ: {                                                                               \
        T *TC__RESTRICT d = (T *)dv;                                                         \
        const T *s = (const T *)(const void *)p;                                             \
        if (stride == 2) TC__VM_LOOP(s[i * 2]);                                              \
        else if (stride == 3) TC__VM_LOOP(s[i * 3]);                                         \
        else if (stride == 4) TC__VM_LOOP(s[i * 4]);                                         \
        else TC__VM_LOOP(s[i * stride]);                                                     \
        break;                                                                               \
    }
            TC__VM_LD(1, uint8_t)
            TC__VM_LD(2, uint16_t)
            TC__VM_LD(4, uint32_t)
            TC__VM_LD(8, uint64_t)
#undef TC__VM_LD
        default: break;
        }
    }
}

/* Lanes of folded rows (tc__vm_plan_fold) that each take their row's one
   value: row r's p lanes are element r * rs from p, for n lanes in all.
   Plain dtypes only (0: float16 or bool, which convert). One pass of
   stores, not a call per row. */
#define TC__VM_REP_ROWS(PER)                                                                 \
    for (r = 0; r < full; r++)                                                               \
        for (j = 0; j < (PER); j++) d[r * (PER) + j] = s[r * rs]
TC__KERNEL int tc__k_repeat_rows(tc_dtype st, void *dv, const unsigned char *p, int64_t rs, int per, int n) {
    int r, j, full = n / per;
    if (st == TC_FLOAT16 || st == TC_BOOL) return 0;
    switch (tc_dtype_size(st)) {
#define TC__VM_REP(SZ, T)                                                                    \
    case SZ: {                                                                               \
        T *TC__RESTRICT d = (T *)dv;                                                         \
        const T *s = (const T *)(const void *)p;                                             \
        if (per == 2) TC__VM_REP_ROWS(2); /* short rows (float(N,2..4)): constant counts */  \
        else if (per == 3) TC__VM_REP_ROWS(3);                                               \
        else if (per == 4) TC__VM_REP_ROWS(4);                                               \
        else TC__VM_REP_ROWS(per);                                                           \
        for (j = full * per; j < n; j++) d[j] = s[full * rs]; /* a last row cut short */     \
        return 1;                                                                            \
    }
        TC__VM_REP(1, uint8_t)
        TC__VM_REP(2, uint16_t)
        TC__VM_REP(4, uint32_t)
        TC__VM_REP(8, uint64_t)
#undef TC__VM_REP
#undef TC__VM_REP_ROWS
    default: return 0;
    }
}

/* Sets lanes of v (elements of esz bytes) to 0 where m[i] is 0. */
TC__KERNEL void tc__k_clear_off(size_t esz, void *v, const uint8_t *m, int n) {
    int i;
    switch (esz) {
#define TC__VM_CLR(SZ, T)                                                                    \
    case SZ: {                                                                               \
        T *TC__RESTRICT d = (T *)v;                                                          \
        TC__VM_LOOP(m[i] ? d[i] : (T)0);                                                     \
        break;                                                                               \
    }
        TC__VM_CLR(1, uint8_t)
        TC__VM_CLR(2, uint16_t)
        TC__VM_CLR(4, uint32_t)
        TC__VM_CLR(8, uint64_t)
#undef TC__VM_CLR
    default: break;
    }
}

/* Loads lane i from base + off[i] elements where m[i] (m NULL: every
   lane); other lanes get 0. Offsets of lanes that are off are not used. */
TC__KERNEL void tc__k_gload(tc_dtype st, void *dv, const unsigned char *base, const int64_t *off,
                             const uint8_t *m, int n) {
    size_t esz = tc_dtype_size(st);
    int i;
    if (st == TC_FLOAT16) {
        float *TC__RESTRICT d = (float *)dv;
        const uint16_t *s = (const uint16_t *)(const void *)base;
        TC__VM_LOOP((!m || m[i]) ? tc__half_to_float(s[off[i]]) : 0.0f);
        return;
    }
    if (st == TC_BOOL) {
        uint8_t *TC__RESTRICT d = (uint8_t *)dv;
        TC__VM_LOOP((uint8_t)((!m || m[i]) ? base[off[i]] != 0 : 0));
        return;
    }
    switch (esz) {
#define TC__VM_GLD(SZ, T)                                                                    \
    case SZ: {                                                                               \
        T *TC__RESTRICT d = (T *)dv;                                                         \
        const T *s = (const T *)(const void *)base;                                          \
        if (m) TC__VM_LOOP(m[i] ? s[off[i]] : (T)0);                                         \
        else TC__VM_LOOP(s[off[i]]);                                                         \
        break;                                                                               \
    }
        TC__VM_GLD(1, uint8_t)
        TC__VM_GLD(2, uint16_t)
        TC__VM_GLD(4, uint32_t)
        TC__VM_GLD(8, uint64_t)
#undef TC__VM_GLD
    default: break;
    }
}

/* Combines n lanes of v (compute dtype) into memory: p[i*stride] =
   p[i*stride] (r) v[i]; ASSIGN stores. float16 goes through float32. */
#define TC__VM_ST(sfx, DT, T, W, K)                                                          \
    TC__KERNEL void tc__k_store_##sfx(tc_reduce r, void *pv, int64_t s, const void *vv,     \
                                       int n) {                                              \
        T *p = (T *)pv;                                                                      \
        const T *TC__RESTRICT v = (const T *)vv;                                             \
        int i;                                                                               \
        switch (r) {                                                                         \
        case TC_REDUCE_ASSIGN:                                                               \
            if (s == 1) memcpy(p, v, sizeof(T) * (size_t)n);                                 \
            else for (i = 0; i < n; i++) p[i * s] = v[i];                                    \
            break;                                                                           \
        case TC_REDUCE_SUM: for (i = 0; i < n; i++) p[i * s] = tc__e_add_##sfx(p[i * s], v[i]); break; \
        case TC_REDUCE_PROD: for (i = 0; i < n; i++) p[i * s] = tc__e_mul_##sfx(p[i * s], v[i]); break; \
        case TC_REDUCE_MIN: for (i = 0; i < n; i++) p[i * s] = tc__e_min_##sfx(p[i * s], v[i]); break; \
        case TC_REDUCE_MAX: for (i = 0; i < n; i++) p[i * s] = tc__e_max_##sfx(p[i * s], v[i]); break; \
        case TC_REDUCE_COUNT: break;                                                         \
        }                                                                                    \
    }
TC__VM_TYPES(TC__VM_ST)
#undef TC__VM_ST

#define TC__VM_ST16(OP)                                                                      \
    for (i = 0; i < n; i++)                                                                  \
    p[i * s] = tc__math_float_to_half_lane(OP(tc__math_half_to_float_lane(p[i * s]), v[i]))
TC__KERNEL void tc__k_store_f16(tc_reduce r, void *pv, int64_t s, const void *vv, int n) {
    uint16_t *p = (uint16_t *)pv;
    const float *v = (const float *)vv;
    int i;
    switch (r) {
    case TC_REDUCE_ASSIGN:
        if (s == 1) tc__float_to_half_block(p, v, n);
        else for (i = 0; i < n; i++) p[i * s] = tc__math_float_to_half_lane(v[i]);
        break;
    case TC_REDUCE_SUM: TC__VM_ST16(tc__e_add_f32); break;
    case TC_REDUCE_PROD: TC__VM_ST16(tc__e_mul_f32); break;
    case TC_REDUCE_MIN: TC__VM_ST16(tc__e_min_f32); break;
    case TC_REDUCE_MAX: TC__VM_ST16(tc__e_max_f32); break;
    case TC_REDUCE_COUNT: break;
    }
}
#undef TC__VM_ST16

TC__KERNEL void tc__k_store(tc_dtype st, tc_reduce r, unsigned char *p, int64_t stride,
                             const void *v, int n) {
    switch (st) {
#define TC__VM_ST_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_store_##sfx(r, p, stride, v, n); break;
        TC__VM_TYPES(TC__VM_ST_CASE)
#undef TC__VM_ST_CASE
    case TC_FLOAT16: tc__k_store_f16(r, p, stride, v, n); break;
    default: break;
    }
}

/* Copies n bytes to dst with non-temporal (streaming) stores where the
   target has them: an output far larger than the caches is written without
   first reading each line into them (a third less memory traffic for
   y = f(x)), and without evicting the inputs. The caller fences once its
   stores are done (tc__k_stream_fence). */
TC__KERNEL void tc__k_stream(void *dst, const void *src, size_t n) {
#if defined(TC__HAVE_STREAM)
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    size_t head = (TC__HAVE_STREAM - (size_t)((uintptr_t)d % TC__HAVE_STREAM)) % TC__HAVE_STREAM, i;
    if (head > n) head = n;
    memcpy(d, s, head);
    for (i = head; i + TC__HAVE_STREAM <= n; i += TC__HAVE_STREAM)
#if TC__HAVE_STREAM == 64
        _mm512_stream_si512((__m512i *)(void *)(d + i), _mm512_loadu_si512((const void *)(s + i)));
#else
        _mm_stream_si128((__m128i *)(void *)(d + i), _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
#endif
    memcpy(d + i, s + i, n - i);
#else
    memcpy(dst, src, n);
#endif
}
TC__KERNEL void tc__k_stream_fence(void) {
#if defined(TC__HAVE_STREAM)
    _mm_sfence();
#endif
}

/* ---- contraction microkernel -----------------------------------------------
   W(rows x lanes) (+)= sum over t of X[ox[t] + r*xr] * Y[oy[t] + l*ys]: the
   register-blocked outer product behind matmul, batched matmul and
   convolution. A tile is TC__MK_ROWS rows by 64 (float) or 32 (double)
   lanes held in vector registers for the whole reduction; each loaded block
   of Y feeds every row. Partial tiles run the same arithmetic (missing rows
   repeat row 0, missing lanes are zero), so an element's result never
   depends on where a tile boundary falls. The reduction order (t) is fixed
   by the sizes. Multiply-adds may be fused (contracted) on CPUs with FMA. */
#define TC__MK_ROWS 4
#define TC__MK_LANES32 64
#define TC__MK_LANES64 32

typedef struct tc__mk_args {
    const void *X, *Y;        /* tile bases */
    int64_t xr, ys;           /* X row stride, Y lane stride (elements) */
    const int64_t *ox, *oy;   /* per reduction step offsets */
    int64_t steps;            /* reduction steps */
    void *W;
    int64_t wr, ws;           /* W row and lane strides */
    int rows, lanes, assign;  /* valid rows and lanes; 1: store, 0: add */
    int packed;               /* Y is packed: step t at Y + t * lanes-per-tile */
} tc__mk_args;

#if defined(__GNUC__) && !defined(__clang__)
#define TC__MK_ATTR __attribute__((optimize("fp-contract=fast")))
#else
#define TC__MK_ATTR
#endif
#if defined(__clang__)
#define TC__MK_CONTRACT _Pragma("clang fp contract(fast)")
#else
#define TC__MK_CONTRACT
#endif

#if defined(__GNUC__) || defined(__clang__)
typedef float tc__mk_vf __attribute__((vector_size(64)));
typedef double tc__mk_vd __attribute__((vector_size(64)));
typedef uint32_t tc__mk_vu __attribute__((vector_size(64))); /* int32, uint32: wrapping */
typedef uint64_t tc__mk_vul __attribute__((vector_size(64))); /* int64, uint64 */

/* One reduction step of a tile: 4 rows x 4 vectors. */
#define TC__MK_STEP(VT, y0, y1, y2, y3, x)                                                    \
    do {                                                                                     \
        a00 += x[0] * y0; a01 += x[0] * y1; a02 += x[0] * y2; a03 += x[0] * y3;             \
        a10 += x[1] * y0; a11 += x[1] * y1; a12 += x[1] * y2; a13 += x[1] * y3;             \
        a20 += x[2] * y0; a21 += x[2] * y1; a22 += x[2] * y2; a23 += x[2] * y3;             \
        a30 += x[3] * y0; a31 += x[3] * y1; a32 += x[3] * y2; a33 += x[3] * y3;             \
    } while (0)

#define TC__MK_KERNEL(name, T, VT, NL)                                                       \
    TC__PRIVATE TC__MK_ATTR void name(const tc__mk_args *A, T *out) {                        \
        TC__MK_CONTRACT                                                                      \
        const T *X = (const T *)A->X, *Y = (const T *)A->Y;                                 \
        const int64_t *ox = A->ox, *oy = A->oy;                                              \
        int64_t xo[TC__MK_ROWS], t, T_ = A->steps, ys = A->ys;                                  \
        VT a00 = {0}, a01 = {0}, a02 = {0}, a03 = {0}, a10 = {0}, a11 = {0}, a12 = {0};      \
        VT a13 = {0}, a20 = {0}, a21 = {0}, a22 = {0}, a23 = {0}, a30 = {0}, a31 = {0};      \
        VT a32 = {0}, a33 = {0}, y0, y1, y2, y3;                                             \
        const int W4 = (int)(sizeof(VT) / sizeof(T));                                       \
        int r, l;                                                                            \
        for (r = 0; r < TC__MK_ROWS; r++) xo[r] = r < A->rows ? r * A->xr : 0;               \
        if (A->packed || (ys == 1 && A->lanes == NL)) {                                      \
            for (t = 0; t < T_; t++) {                                                       \
                const T *y = A->packed ? Y + t * NL : Y + oy[t], *xp = X + ox[t];            \
                T x[TC__MK_ROWS];                                                            \
                x[0] = xp[xo[0]]; x[1] = xp[xo[1]]; x[2] = xp[xo[2]]; x[3] = xp[xo[3]];      \
                memcpy(&y0, y, sizeof y0);                                                   \
                memcpy(&y1, y + W4, sizeof y1);                                              \
                memcpy(&y2, y + 2 * W4, sizeof y2);                                          \
                memcpy(&y3, y + 3 * W4, sizeof y3);                                          \
                TC__MK_STEP(VT, y0, y1, y2, y3, x);                                          \
            }                                                                                \
        } else {                                                                             \
            T yb[NL];                                                                        \
            memset(yb, 0, sizeof yb);                                                        \
            for (t = 0; t < T_; t++) {                                                       \
                const T *y = Y + oy[t], *xp = X + ox[t];                                     \
                T x[TC__MK_ROWS];                                                            \
                for (l = 0; l < A->lanes; l++) yb[l] = y[l * ys];                            \
                x[0] = xp[xo[0]]; x[1] = xp[xo[1]]; x[2] = xp[xo[2]]; x[3] = xp[xo[3]];      \
                memcpy(&y0, yb, sizeof y0);                                                  \
                memcpy(&y1, yb + W4, sizeof y1);                                             \
                memcpy(&y2, yb + 2 * W4, sizeof y2);                                         \
                memcpy(&y3, yb + 3 * W4, sizeof y3);                                         \
                TC__MK_STEP(VT, y0, y1, y2, y3, x);                                          \
            }                                                                                \
        }                                                                                    \
        memcpy(out + 0 * NL, &a00, sizeof a00); memcpy(out + 0 * NL + W4, &a01, sizeof a00); \
        memcpy(out + 0 * NL + 2 * W4, &a02, sizeof a00); memcpy(out + 0 * NL + 3 * W4, &a03, sizeof a00); \
        memcpy(out + 1 * NL, &a10, sizeof a00); memcpy(out + 1 * NL + W4, &a11, sizeof a00); \
        memcpy(out + 1 * NL + 2 * W4, &a12, sizeof a00); memcpy(out + 1 * NL + 3 * W4, &a13, sizeof a00); \
        memcpy(out + 2 * NL, &a20, sizeof a00); memcpy(out + 2 * NL + W4, &a21, sizeof a00); \
        memcpy(out + 2 * NL + 2 * W4, &a22, sizeof a00); memcpy(out + 2 * NL + 3 * W4, &a23, sizeof a00); \
        memcpy(out + 3 * NL, &a30, sizeof a00); memcpy(out + 3 * NL + W4, &a31, sizeof a00); \
        memcpy(out + 3 * NL + 2 * W4, &a32, sizeof a00); memcpy(out + 3 * NL + 3 * W4, &a33, sizeof a00); \
    }
TC__MK_KERNEL(tc__mk_tile_f32, float, tc__mk_vf, TC__MK_LANES32)
TC__MK_KERNEL(tc__mk_tile_f64, double, tc__mk_vd, TC__MK_LANES64)
TC__MK_KERNEL(tc__mk_tile_u32, uint32_t, tc__mk_vu, TC__MK_LANES32)
TC__MK_KERNEL(tc__mk_tile_u64, uint64_t, tc__mk_vul, TC__MK_LANES64)
#undef TC__MK_KERNEL
#undef TC__MK_STEP
#else
/* Portable: the same tile with plain arrays. */
#define TC__MK_KERNEL(name, T, NL)                                                           \
    TC__PRIVATE void name(const tc__mk_args *A, T *out) {                                    \
        const T *X = (const T *)A->X, *Y = (const T *)A->Y;                                 \
        int64_t t;                                                                           \
        int r, l;                                                                            \
        for (l = 0; l < TC__MK_ROWS * NL; l++) out[l] = 0;                                   \
        for (t = 0; t < A->steps; t++)                                                           \
            for (r = 0; r < TC__MK_ROWS; r++) {                                              \
                T x = X[A->ox[t] + (r < A->rows ? r * A->xr : 0)];                           \
                for (l = 0; l < A->lanes; l++)                                               \
                    out[r * NL + l] += x * (A->packed ? Y[t * NL + l] : Y[A->oy[t] + l * A->ys]); \
            }                                                                                \
    }
TC__MK_KERNEL(tc__mk_tile_f32, float, TC__MK_LANES32)
TC__MK_KERNEL(tc__mk_tile_f64, double, TC__MK_LANES64)
TC__MK_KERNEL(tc__mk_tile_u32, uint32_t, TC__MK_LANES32)
TC__MK_KERNEL(tc__mk_tile_u64, uint64_t, TC__MK_LANES64)
#undef TC__MK_KERNEL
#endif

/* Runs a tile and stores (or adds) its valid rows and lanes into W. */
/* Runs a tile of value dtype t and stores (or adds) its valid rows and
   lanes into W. Integer values wrap (unsigned lanes of their width, the
   bits of int32 / int64 arithmetic alike), so any order of their sums is
   the bytecode's result. */
#define TC__MK_TILE_CASE(T, NL, kernel)                                                      \
    do {                                                                                     \
        T out[TC__MK_ROWS * NL];                                                             \
        T *W = (T *)A->W;                                                                    \
        kernel(A, out);                                                                      \
        for (r = 0; r < A->rows; r++)                                                        \
            for (l = 0; l < A->lanes; l++) {                                                 \
                T *w = W + r * A->wr + l * A->ws;                                            \
                *w = A->assign ? out[r * NL + l] : *w + out[r * NL + l];                     \
            }                                                                                \
    } while (0)
TC__PRIVATE void tc__mk_tile(tc_dtype t, const tc__mk_args *A) {
    int r, l;
    switch (t) {
    case TC_FLOAT32: TC__MK_TILE_CASE(float, TC__MK_LANES32, tc__mk_tile_f32); break;
    case TC_FLOAT64: TC__MK_TILE_CASE(double, TC__MK_LANES64, tc__mk_tile_f64); break;
    case TC_INT32: case TC_UINT32: TC__MK_TILE_CASE(uint32_t, TC__MK_LANES32, tc__mk_tile_u32); break;
    case TC_INT64: case TC_UINT64: TC__MK_TILE_CASE(uint64_t, TC__MK_LANES64, tc__mk_tile_u64); break;
    default: break;
    }
}
#undef TC__MK_TILE_CASE

/* n elements of dtype `from` at src[off[i]] (off NULL: src[i * stride])
   converted to `to` into dst, as the bytecode's CAST converts them
   (float16: its exact float32 value; an integer into an integer of 4 or 8
   bytes: modulo 2^32 or 2^64, the bits of int32 and uint32 alike; floats
   never go to integers here, see tc__vm_find_contraction). */
#define TC__MK_CONV_LOOP(DST, EXPR)                                                          \
    do {                                                                                     \
        DST *d = (DST *)dst;                                                                 \
        if (off) for (i = 0; i < n; i++) d[i] = (DST)(EXPR(p[off[i]]));                       \
        else for (i = 0; i < n; i++) d[i] = (DST)(EXPR(p[i * stride]));                      \
    } while (0)
#define TC__MK_PLAIN(x) (x)
#define TC__MK_CONV_CASE(sfx, DT, T, W, K)                                                   \
    case TC_##DT: {                                                                          \
        const T *p = (const T *)src;                                                         \
        if (to == TC_FLOAT32) TC__MK_CONV_LOOP(float, TC__MK_PLAIN);                         \
        else if (to == TC_FLOAT64) TC__MK_CONV_LOOP(double, TC__MK_PLAIN);                   \
        else if (tc_dtype_size(to) == 4) TC__MK_CONV_LOOP(uint32_t, TC__MK_PLAIN);           \
        else TC__MK_CONV_LOOP(uint64_t, TC__MK_PLAIN);                                       \
        break;                                                                               \
    }
TC__PRIVATE void tc__mk_convert(tc_dtype to, tc_dtype from, void *dst, const void *src,
                                const int64_t *off, int64_t stride, int64_t n) {
    int64_t i;
    switch (from) {
        TC__VM_TYPES(TC__MK_CONV_CASE)
    case TC_FLOAT16: {
        const uint16_t *p = (const uint16_t *)src;
        TC__MK_CONV_LOOP(float, tc__half_to_float);
        break;
    }
    default: break;
    }
}
#undef TC__MK_CONV_CASE
#undef TC__MK_PLAIN
#undef TC__MK_CONV_LOOP

/* Copies the Y columns of a tile, step by step, into contiguous rows of
   `NL` lanes (zero-padded): the microkernel then streams them from cache
   with unit stride, whatever Y's layout. Y stored as `from` is converted
   to t on the way. */
TC__PRIVATE void tc__mk_pack(tc_dtype t, tc_dtype from, const tc__mk_args *A, void *dst) {
    int64_t s;
    int l;
    if (from != t || (t != TC_FLOAT32 && t != TC_FLOAT64)) { /* integers: copied as such */
        size_t esz = tc_dtype_size(t), ssz = tc_dtype_size(from);
        int nl = esz == 4 ? TC__MK_LANES32 : TC__MK_LANES64;
        unsigned char *d = (unsigned char *)dst;
        for (s = 0; s < A->steps; s++, d += (size_t)nl * esz) {
            tc__mk_convert(t, from, d, (const unsigned char *)A->Y + A->oy[s] * (int64_t)ssz, NULL,
                           A->ys, A->lanes);
            memset(d + (size_t)A->lanes * esz, 0, (size_t)(nl - A->lanes) * esz);
        }
        return;
    }
    if (t == TC_FLOAT32) {
        const float *Y = (const float *)A->Y;
        float *d = (float *)dst;
        for (s = 0; s < A->steps; s++, d += TC__MK_LANES32) {
            const float *y = Y + A->oy[s];
            if (A->ys == 1) memcpy(d, y, sizeof(float) * (size_t)A->lanes);
            else for (l = 0; l < A->lanes; l++) d[l] = y[l * A->ys];
            for (l = A->lanes; l < TC__MK_LANES32; l++) d[l] = 0.0f;
        }
    } else {
        const double *Y = (const double *)A->Y;
        double *d = (double *)dst;
        for (s = 0; s < A->steps; s++, d += TC__MK_LANES64) {
            const double *y = Y + A->oy[s];
            if (A->ys == 1) memcpy(d, y, sizeof(double) * (size_t)A->lanes);
            else for (l = 0; l < A->lanes; l++) d[l] = y[l * A->ys];
            for (l = A->lanes; l < TC__MK_LANES64; l++) d[l] = 0.0;
        }
    }
}

TC__VECTORIZE_END

/* ==== [tc:plan-types] Per-run state ========================================
   A plan holds everything that depends on concrete sizes: size values,
   tensor strides, the per-statement schedule (lane loop, loop bounds, read
   strides), temporaries and one register file per thread. */

typedef struct tc__vm_rplan { /* a read slot, for concrete sizes */
    int tensor;
    tc_dtype st;        /* storage dtype */
    int64_t c0;         /* element offset of the affine dims at loop values 0 */
    int64_t *lstride;   /* per loop: element stride through the affine dims */
    int checked;        /* masked affine read not proven in bounds: check lanes */
    int period;         /* folded short rows (tc__vm_plan_fold): the read is the same in every
                           row, so a block is its row's `period` lanes repeated */
    int row_const;      /* ... or the same along each row (cv(i) in rows of j): a block is
                           each of its rows' one value, `row_const` lanes of it */
    int gap;            /* ... or contiguous along the lanes but its rows not back to back
                           (X(i+1, j+1) of a valid-range stencil): a block is its rows'
                           `gap` lanes each, copied row by row */
    int copy;           /* an input a run in place writes over (tc__vm_inplace_kind): each
                           block is copied into its register, never read through a pointer
                           into the tensor, so no kernel's output is also its source */
    int pslot;          /* a periodic read of an input: its per-thread buffer
                           (tc__vm_thread.pbuf), or -1 */
} tc__vm_rplan;

/* The call a row of a statement of a row group run row by row makes
   (tc__vm_row_stmt): the generic run, the reduction of the row in one pass
   (tc__vm_ew_reduce_row), exp(x - s) in one pass, the op on the whole
   row (tc__vm_ew_op), or a chain dividing first by a uniform value in one
   pass over the row (tc__vm_ew_split_chain). */
enum { TC__VM_ROW_GENERIC, TC__VM_ROW_REDUCE, TC__VM_ROW_EXP, TC__VM_ROW_OP, TC__VM_ROW_SPLIT };

typedef struct tc__vm_rowstep { /* before the op of a statement run row by row: */
    const struct tc__vm_ins *in; /* a load, or a step on uniform values (tensor < 0) */
    int tensor, uniform;
    int64_t off, step;  /* bytes from the tensor's start to row 0's first lane, a row's step */
    int bytes;          /* a row's (its lanes') */
} tc__vm_rowstep;

typedef struct tc__vm_splan {
    const tc__vm_stmt *vs;
    const tc_ir_stmt *st;
    int n_loops;
    int64_t *lo, *hi;
    int lane;           /* lane loop; -1: a single lane */
    int lane_red;       /* the lane loop reduces (partial sums across lanes) */
    int n_outer, n_red;
    int *outer, *red;   /* loops walked outside / inside the block */
    int blk;            /* lanes a block (tc__vm_pick_block) */
    int64_t n_blocks, n_items, n_chunks;
    int64_t n_segs;     /* a reduction along a long row: its segments (tc__vm_plan_segments), else 1 */
    int64_t seg_rows;   /* ... taken along red[0], so many of its values each; 0: along the lane loop */
    unsigned char *seg_vals; /* ... each segment's value, an item's at its item number */
    double work;        /* lane-iterations of the whole statement */
    int empty, red_empty;
    int any_empty;      /* some loop is empty: the body never runs */
    uint64_t collapsed; /* reduction loops merged into another (tc__vm_plan_collapse) */
    uint64_t coalesced; /* output loops merged into the next (tc__vm_plan_coalesce): extent 1 */
    int init;           /* 1: fill the tensor with the identity first */
    int fused;          /* `!` folded into the accumulator: the store assigns */
    int acc_op;         /* type A sum whose value is one float + - or * (tc__vm_plan_acc_op) */
    int lane_op;        /* lane reduction whose value is one float32 + - * or fabs (tc__vm_plan_lane_op) */
    int direct;         /* `=` with a contiguous write: the last instruction stores */
    int stream_ok;      /* ... a large one nothing reads later (tc__vm_plan_direct) */
    int stream;         /* ... whose stores stream (tc__vm_plan_prefetch, tc__vm_plan_groups) */
    int stream_div;     /* ... made by the division chain's own kernel (tc__vm_plan_stream_div) */
    int stream_chain;   /* ... by a chain's row call, from one input stream (tc__vm_plan_stream_chain) */
    int prefetch;       /* several large tensors stream in: software prefetch */
    int ew;             /* element-wise fast path: loads into the tensors, then one op */
    int ew_op;          /* ... at this instruction (a fused chain or a binary op) */
    int ew_call;        /* ... then a one-argument builtin (the last instruction) */
    int wt;             /* written tensor */
    int inplace;        /* the first statement writing an output planned to run in place
                           over an input it reads (tc_plan.ip_ready): the element-wise
                           kernels unless it divides (tc__vm_stmt_divides), else the
                           bytecode with that input's blocks copied into registers; no
                           contraction or window kernels */
    tc__vm_rplan *reads;
    /* contraction microkernel (mk): X constant along the lanes, Y along them */
    int mk, mk_x, mk_y, mk_row, mk_lanes, n_mk_outer, mk_packed;
    tc_dtype mk_xdt, mk_ydt; /* X's and Y's storage dtypes (converted as read: mk_xconv, packing) */
    int mk_xconv;       /* X converted first, a tile's rows of it, into the pack buffer after Y's */
    int64_t *mk_oid;    /* ... then read through offsets 0, 1, ... mk_T - 1 */
    int *mk_outer;      /* output loops other than the lane and row loops */
    int64_t mk_T, mk_lane_tiles, mk_row_blocks;
    int64_t *mk_ox, *mk_oy; /* per reduction step: offsets in X and Y from the first
                               step's, which is mk_x0, mk_y0 (the reduction loops' lower
                               bounds): an offset a reduction's range cancels (X(k - 2^40)
                               with k from 2^40) never leaves the tensor */
    int64_t mk_x0, mk_y0;
    int ct;             /* run by the packed contraction engine (tc_contract.h) */
    tc__contract_shape ct_shape;
    int shrink;         /* chunks shrink: the first half hold 3/4 of the items,
                           rounded down (tc__vm_chunk_items) */
    int tile;           /* rows of the row loop go TC__VM_TILE at a time (tc__vm_plan_tile) */
    int fold;           /* short rows: so many of the row loop's in one block (tc__vm_plan_fold) */
    int fold_ext;       /* ... each of so many lanes */
    int fold_row;       /* ... the loop whose rows fold: the row loop, or (fold_steps) a reduction loop */
    int fold_steps;     /* type A: so many steps of the innermost reduction loop to a block
                           (tc__vm_plan_fold_steps) */
    int wred;           /* window reduction: the value is one read, reduced from memory */
    int wred_pair;      /* ... whose innermost two steps are adjacent elements */
    unsigned wred_divisor; /* ... divided (or multiplied: wred_op), before the sum, by this
                           register the prologue makes (tc__vm_wred_div); TC__VM_NONE: not */
    int wred_op;        /* TC_OP_DIV or TC_OP_MUL, with wred_divisor */
    int wred_direct;    /* ... fused `!` into a unit-stride row of the value's dtype: reduced in
                           place in the output, no accumulator or store */
    const struct tc__vm_splan *absorb; /* the next statement of its row group, a reduction of the
                           rows this one writes, done on each row as it is written
                           (tc__vm_plan_absorb); it is then `absorbed` and not run itself */
    int absorbed;
    /* in a row group run row by row (tc__vm_plan_row_stmt): */
    int64_t w_off, w_step; /* bytes from the written tensor's start to row 0's first lane, a row's */
    tc__vm_rowstep *rsteps; /* with no uniform value spread (else NULL): the steps before the op */
    int n_rsteps;
    unsigned row_scalar;   /* ... the op's scalar (tc__vm_ew_operands) */
    int row_form, row_n;   /* ... the call a row makes (TC__VM_ROW_*), the lanes of a row */
    tc__vm_rowstep *row_pf; /* its slice of the rows from memory its group loads, each
                               fetched a row ahead (tc__vm_plan_row_prefetch) */
    int n_row_pf;
} tc__vm_splan;

/* A row's kernel call on the element-wise path as its decisions made it:
   the kernel (TC__VM_CALL_*), its chain code or op, the registers of its
   row operands a, b, c, the scalar s (the divisor of a chain dividing
   first, or the operand of exp(x - s) and of one op) and the last link's
   scalar t. tc__vm_ew_reduce_row_run decides and calls at once; a row
   group run row by row decides once a chunk (tc__vm_row_resolve), its
   operands then rows (their row steps) and s read each row where a row
   step makes it, and only calls on each row (tc__vm_row_call). */
enum { TC__VM_CALL_NONE, TC__VM_CALL_REDUCE, TC__VM_CALL_UNI, TC__VM_CALL_UNI_NT, TC__VM_CALL_EXP,
       TC__VM_CALL_DIV };
typedef struct tc__vm_rowcall {
    int kind, code;
    unsigned reg[3];   /* a, b, c; TC__VM_NONE: none */
    int row[3];        /* ... their row steps (tc__vm_rowstep), -1: none */
    unsigned s_reg;    /* s, read from this register each row; TC__VM_NONE: s as resolved */
    int has_t;
    float s, t;
    int sums;          /* TC__VM_CALL_UNI: the statement that sums its row's squares, made in the
                          same pass (tc__vm_row_fuse), or -1 */
    int summed;        /* that statement: made by the one before */
} tc__vm_rowcall;

/* The registers of a statement of a row group run row by row
   (tc__vm_group_rows): each of the group's statements has its own, so what
   its prologue made stays there for every row (in one shared file the
   group's other statements overwrote it, and it was put back before each
   row), and where its row steps' loads are in the chunk, found once. */
typedef struct tc__vm_regfile {
    unsigned char *regs;
    void **rp;
    unsigned char *uni;
    unsigned char id[8]; /* the statement's identity */
    const unsigned char **row0; /* per row step (tc__vm_rowstep): its load's address at row 0 */
    int64_t *step;              /* ... and a row's step, for this chunk (staged rows: 0) */
    tc__vm_rowcall call;        /* the call each row makes, resolved for this chunk */
} tc__vm_regfile;

typedef struct tc__vm_thread {
    unsigned char *regs; /* (n_regs + 2) registers, TC__VM_REG_BYTES apart */
    unsigned char *pack; /* packed Y columns of the contraction microkernel */
    int64_t ct_kept;     /* the engine's group whose panels are in pack (with shared panels:
                            the stage whose offsets are), in this job, or -1 */
    void **rp;           /* where each register's lanes are (own buffer or tensor) */
    void *direct;        /* the last instruction writes here (a direct store) */
    unsigned char *uni;  /* per register: lane-uniform (see tc__vm_one_lane) */
    int row_ext;         /* the lanes of a row where registers hold a value a row (TC__VM_ROW) */
    const void *pf_base; /* the last block prefetched by a LOAD: tensor, byte offset */
    int64_t pf_off;
    int64_t *idx;        /* loop values */
    unsigned char **ptr; /* per tensor: P->ptr, or where this thread's staged rows are */
    unsigned char **stage; /* per tensor: this thread's staged rows, or NULL */
    const unsigned char **rowp; /* per instruction, a load of the element-wise path: its
                                   row's first element */
    struct tc__vm_regfile *own; /* a row group run row by row: per statement, its own */
    unsigned char *pbuf; /* per periodic read slot (tc__vm_rplan.pslot), TC__VM_REG_BYTES: */
    int64_t *pkey;       /* ... the element offset its TC_BLOCK lanes were filled from, or
                            INT64_MIN: none yet in this job */
    tc_error err;
} tc__vm_thread;

struct tc_plan {
    const tc_program *prog;
    const tc_ir_def *ir;
    const tc__vm_def *vm;
    tc__arena arena;
    int def;
    int64_t *sx;
    int64_t (*ext)[TC_MAX_RANK];     /* per tensor */
    int64_t (*ts)[TC_MAX_RANK];      /* per tensor: element strides */
    int64_t *numel;
    tc_tensor *in_desc;              /* inputs as planned (shape, dtype, strides) */
    int64_t *in_value;               /* 0-rank integer inputs used in sizes */
    unsigned char **ptr;             /* per tensor, set for each run */
    unsigned char **temp;            /* per tensor: temporaries' buffers */
    tc__vm_splan *stmts;
    int n_threads;
    tc__vm_thread *threads;
    uint64_t *claim;                 /* per thread, a line apart: its range of a job's chunks
                                        (tc__vm_claim) */
    int unchecked;
    size_t pack_bytes;               /* per thread, for the microkernel */
    size_t share_bytes;              /* the contraction engine's shared panels, for one
                                        statement at a time (tc__contract_share) */
    unsigned char *share;
    int *group_end;                  /* per statement: end of the row group it starts */
    int64_t *group_chunks;
    unsigned char *discard;          /* per output: not wanted (a temporary) */
    int n_pslots;                    /* periodic reads of inputs (tc__vm_rplan.pslot) */
    int *stage_group;                /* per tensor: the row group whose chunks hold its rows
                                        per thread (tc__vm_plan_staging), or -1 */
    int64_t *stage_bytes;            /* per tensor: the bytes of one chunk's rows */
    int64_t *stage_row;              /* ... and of one row */
    int *stage_first, *stage_next;   /* the staged tensors of the group a statement starts:
                                        the first, the next after a tensor; -1 ends */
    unsigned char *group_rows;       /* per statement: the row group it starts runs row by row
                                        (tc__vm_plan_group_rows) */
    unsigned char *ip_ready;         /* per output: its first writer is planned to run in place
                                        over the inputs tc__vm_inplace_kind calls 1 for it
                                        (tc_plan_create saw it share an input's buffer) */
};

/* ==== [tc:vm] The block VM ==================================================
   Executes one statement's bytecode for n lanes at the loop values idx
   (the lane loop's entry is the block's first value). A plain switch with
   no default: -Wswitch flags an opcode without a handler. */

typedef struct tc__vm_run {
    const tc_plan *P;
    const tc__vm_splan *sp;
    tc__vm_thread *T;
    int check; /* run only the gather check slice: no stores */
    int next_row;         /* element-wise path: the row after the last one run (tc__vm_ew_items) */
    int by_row;           /* ... a row group run row by row, at row T->idx[0] (tc__vm_group_rows) */
    unsigned char *w_row; /* ... where the last one's first element was written */
} tc__vm_run;

/* Registers (and periodic read buffers) TC_BLOCK * 8 bytes and 5 cache
   lines apart: at a whole multiple of 4 KB, lane i of every register
   would share its address's low 12 bits, which x86 cores compare first
   between a load and the stores before it, so that an instruction's loads
   would wait on its own stores as if they overlapped (4K aliasing). */
#define TC__VM_REG_BYTES ((size_t)TC_BLOCK * 8 + 5 * 64)
#define TC__VM_REG(T, r) ((void *)((T)->regs + (size_t)(r) * TC__VM_REG_BYTES))
#define TC__VM_UNI 0x80 /* T->uni: the register is lane-uniform (tc__vm_one_lane) */
#define TC__VM_ROW 0x40 /* ... holds one value per row of a folded block (tc__vm_row_op) */
#define TC__VM_ESZ 0x3f /* ... the element size, while only lane 0 (or a lane a row) is written */

/* The bytes of a lane of a register loaded from storage dtype st: float16
   loads as float32, bool as one byte. */
TC__PRIVATE size_t tc__vm_lane_bytes(tc_dtype st) {
    return st == TC_FLOAT16 ? 4 : st == TC_BOOL ? 1 : tc_dtype_size(st);
}

TC__PRIVATE int64_t tc__vm_read_offset(const tc__vm_splan *sp, const tc__vm_rplan *rp,
                                       const int64_t *idx) {
    int64_t off = rp->c0;
    int l;
    for (l = 0; l < sp->n_loops; l++) off += rp->lstride[l] * idx[l];
    return off;
}

/* v: the index as computed, in int64. */
TC__PRIVATE int tc__vm_bounds_error(tc__vm_run *R, int slot, int dim, int64_t v) {
    const tc__vm_stmt *vs = R->sp->vs;
    const tc_ir_tensor *t = &R->P->ir->tensors[vs->reads[slot].tensor];
    char num[24];
    tc_ir_index_format(vs->ir, &vs->ir->nodes[vs->reads[slot].node].index[dim], v, num, sizeof num);
    tc__set_error(&R->T->err, TC_ERR_BOUNDS,
                  "index %s out of range [0, %lld) in dimension %d of %s, read by `%s` (line %d)",
                  num, (long long)R->P->ext[vs->reads[slot].tensor][dim], dim, t->name,
                  vs->ir->text ? vs->ir->text : "?", vs->ir->line);
    return 0;
}

/* A masked affine read whose bounds range inference did not prove: every
   lane that is on is checked, dimension by dimension. */
TC__PRIVATE int tc__vm_check_lanes(tc__vm_run *R, int slot, const uint8_t *m, int n) {
    const tc__vm_splan *sp = R->sp;
    const tc_ir_node *nd = &sp->st->nodes[sp->vs->reads[slot].node];
    int tn = sp->vs->reads[slot].tensor, d, l, i;
    for (d = 0; d < R->P->ir->tensors[tn].rank; d++) {
        const tc_ir_index *ix = &nd->index[d];
        int64_t base = R->P->sx[ix->offset], step = sp->lane >= 0 ? ix->coef[sp->lane] : 0;
        for (l = 0; l < sp->n_loops; l++) base += ix->coef[l] * R->T->idx[l];
        for (i = 0; i < n; i++) {
            int64_t v = base + step * i;
            if (m[i] && (v < 0 || v >= R->P->ext[tn][d])) return tc__vm_bounds_error(R, slot, d, v);
        }
    }
    return 1;
}

/* Whether every lane of the block, on or off, reads inside the bytes the
   tensor spans (element offsets off + ls * i, tc__vm_span's bounds): then
   a masked read may load all lanes and clear the off ones rather than
   gather lane by lane. Lanes run over merged loops (tc__vm_plan_coalesce),
   so the bound is on the offset, not on each index. */
TC__PRIVATE void tc__vm_reach(const tc_plan *P, int t, int64_t *below, int64_t *above);
TC__PRIVATE int tc__vm_lanes_in_span(const tc__vm_run *R, int tn, int64_t off, int64_t ls, int n) {
    int64_t below, above, last = off + ls * (n - 1);
    tc__vm_reach(R->P, tn, &below, &above);
    return R->P->numel[tn] > 0 && off >= below && off <= above && last >= below && last <= above;
}

/* Asks for the next block's cache lines early: a block's loads come in
   bursts, one stream at a time, which the hardware prefetchers alone do
   not keep ahead of. A hint only: never dereferenced, so it may point
   past the tensor (the address is computed in integers). */
TC__PRIVATE void tc__vm_prefetch(const void *base, int64_t byte_off, int bytes, int write) {
#if defined(__GNUC__) || defined(__clang__)
    uintptr_t p = (uintptr_t)base + (uintptr_t)byte_off, end = p + (uintptr_t)(bytes > 0 ? bytes : 0);
    if (write) {
        for (; p < end; p += 64) __builtin_prefetch((const void *)p, 1);
        return;
    }
    for (; p + 256 <= end; p += 256) { /* a row group prefetches 64 lines a row */
        __builtin_prefetch((const void *)p, 0);
        __builtin_prefetch((const void *)(p + 64), 0);
        __builtin_prefetch((const void *)(p + 128), 0);
        __builtin_prefetch((const void *)(p + 192), 0);
    }
    for (; p < end; p += 64) __builtin_prefetch((const void *)p, 0);
#else
    (void)base; (void)byte_off; (void)bytes; (void)write;
#endif
}

/* LOAD: contiguous reads of a plain dtype become a pointer into the tensor
   (no copy); others are copied into the destination d. */
TC__PRIVATE int tc__vm_row_loop(const tc__vm_splan *sp);
/* A read the same in every folded row (tc__vm_plan_fold): its row's
   lanes, then copies of them through the block; or the same along each
   row (row_const): each row's value over its p lanes, rows rs apart. */
/* n lanes as rows of p lanes, row r from element off + r * rs, its lanes
   ls apart (0: the row's one value). */
TC__PRIVATE void tc__vm_load_row_runs(tc_dtype st, const unsigned char *base, void *d, int n, int64_t off,
                                      int64_t ls, int64_t rs, int p) {
    int64_t ssz = (int64_t)tc_dtype_size(st);
    size_t esz = tc__vm_lane_bytes(st);
    int i;
    for (i = 0; i < n; i += p)
        tc__k_load(st, (unsigned char *)d + (size_t)i * esz, base + (off + rs * (i / p)) * ssz, ls,
                   n - i < p ? n - i : p);
}
TC__PRIVATE void tc__vm_fill_periodic(const tc__vm_rplan *rp, const unsigned char *base, void *d, int n,
                                      int64_t off, int64_t ls, int64_t rs, int p, size_t esz) {
    int64_t ssz = (int64_t)tc_dtype_size(rp->st);
    int i;
    if (rp->row_const) {
        if (!tc__k_repeat_rows(rp->st, d, base + off * ssz, rs, p, n))
            tc__vm_load_row_runs(rp->st, base, d, n, off, 0, rs, p);
        return;
    }
    tc__k_load(rp->st, d, base + off * ssz, ls, p);
    for (i = p; i < n; i += i < n - i ? i : n - i) /* doubling: the lanes so far, again */
        memcpy((unsigned char *)d + (size_t)i * esz, d, (size_t)(i < n - i ? i : n - i) * esz);
}
/* A masked one (a read under ?:): where every lane, on or off, reads
   inside the tensor's span (tc__vm_lanes_in_span), filled as unmasked and
   the off lanes cleared; else gathered, each lane at its row's offset. */
TC__PRIVATE int tc__vm_load_periodic_masked(tc__vm_run *R, const tc__vm_ins *in, void *d, int n, int64_t off,
                                            int64_t ls, int64_t rs, int p, size_t esz) {
    const tc__vm_rplan *rp = &R->sp->reads[in->b];
    const unsigned char *base = R->T->ptr[rp->tensor];
    const uint8_t *m = (const uint8_t *)R->T->rp[in->c];
    int64_t *offs = (int64_t *)TC__VM_REG(R->T, R->sp->vs->n_regs + 1), step = rp->row_const ? rs : ls;
    int64_t reach = rp->row_const ? (n - 1) / p : p - 1; /* steps from off to the farthest lane */
    int i, j;
    if (rp->checked && !R->P->unchecked && !tc__vm_check_lanes(R, in->b, m, n)) return 0;
    if (tc__vm_lanes_in_span(R, rp->tensor, off, step, (int)reach + 1)) {
        tc__vm_fill_periodic(rp, base, d, n, off, ls, rs, p, esz);
        tc__k_clear_off(esz, d, m, n);
        return 1;
    }
    for (i = 0; i < n; i += p)
        for (j = 0; j < p && i + j < n; j++) offs[i + j] = rp->row_const ? off + rs * (i / p) : off + ls * j;
    tc__k_gload(rp->st, d, base, offs, m, n);
    return 1;
}
TC__PRIVATE int tc__vm_load_periodic(tc__vm_run *R, const tc__vm_ins *in, void *d, int n, int64_t off,
                                     int64_t ls, int masked) {
    const tc__vm_rplan *rp = &R->sp->reads[in->b];
    size_t esz = tc__vm_lane_bytes(rp->st);
    int p = rp->period ? rp->period : rp->row_const;
    int64_t rs = rp->lstride[R->sp->fold_row]; /* row_const: a row's step */
    if (masked) return tc__vm_load_periodic_masked(R, in, d, n, off, ls, rs, p, esz);
    if (rp->pslot >= 0 && d != R->T->direct) { /* the same lanes every block: filled once a job */
        tc__vm_thread *T = R->T;
        unsigned char *buf = T->pbuf + (size_t)rp->pslot * TC__VM_REG_BYTES;
        T->rp[in->a] = buf;
        if (T->pkey[rp->pslot] == off) return 1;
        d = buf;
        n = TC_BLOCK;
        T->pkey[rp->pslot] = off;
    }
    tc__vm_fill_periodic(rp, R->T->ptr[rp->tensor], d, n, off, ls, rs, p, esz);
    return 1;
}

TC__PRIVATE int tc__vm_do_load(tc__vm_run *R, const tc__vm_ins *in, void *d, int n) {
    const tc__vm_rplan *rp = &R->sp->reads[in->b];
    const unsigned char *base = R->T->ptr[rp->tensor];
    size_t esz = tc_dtype_size(rp->st);
    int64_t off = tc__vm_read_offset(R->sp, rp, R->T->idx);
    int64_t ls = R->sp->lane >= 0 ? rp->lstride[R->sp->lane] : 0;
    const uint8_t *m;
    int64_t *offs;
    int i, masked = in->c != TC__VM_NONE;
    if (masked && (R->T->uni[in->c] & TC__VM_UNI)) { /* a mask the same on every lane (i > 0 ? X(i-1,j)
                                                         : 0 along j): no lane, or a plain read */
        m = (const uint8_t *)R->T->rp[in->c];
        if (!m[0]) {
            memset(d, 0, (size_t)n * tc__vm_lane_bytes(rp->st));
            return 1;
        }
        if (rp->checked && !R->P->unchecked && !tc__vm_check_lanes(R, in->b, m, n)) return 0;
        masked = 0;
    }
    if (rp->gap && n > rp->gap) { /* never masked (tc__vm_read_gaps) */
        tc__vm_load_row_runs(rp->st, base, d, n, off, 1, rp->lstride[R->sp->fold_row], rp->gap);
        return 1;
    }
    if ((rp->period && n > rp->period) || (rp->row_const && n > rp->row_const))
        return tc__vm_load_periodic(R, in, d, n, off, ls, masked);
    if (!masked) {
        if (ls == 1 && rp->st != TC_FLOAT16 && rp->st != TC_BOOL && d != R->T->direct && !rp->copy) {
            R->T->rp[in->a] = (void *)(uintptr_t)(base + off * (int64_t)esz); /* read only */
            if (R->sp->prefetch && (R->T->pf_base != base || R->T->pf_off + 256 < (off + TC__VM_PF_DIST * n) * (int64_t)esz ||
                R->T->pf_off > (off + TC__VM_PF_DIST * n) * (int64_t)esz + 256)) { /* not just prefetched */
                R->T->pf_base = base;
                R->T->pf_off = (off + TC__VM_PF_DIST * n) * (int64_t)esz;
                tc__vm_prefetch(base, R->T->pf_off, n * (int)esz, 0);
            }
            return 1;
        }
        tc__k_load(rp->st, d, base + off * (int64_t)esz, ls, n);
        return 1;
    }
    m = (const uint8_t *)R->T->rp[in->c];
    if (rp->checked && !R->P->unchecked && !tc__vm_check_lanes(R, in->b, m, n)) return 0;
    if (tc__vm_lanes_in_span(R, rp->tensor, off, ls, n)) { /* a plain load, then the off lanes cleared */
        tc__k_load(rp->st, d, base + off * (int64_t)esz, ls, n);
        tc__k_clear_off(tc__vm_lane_bytes(rp->st), d, m, n);
        return 1;
    }
    offs = (int64_t *)TC__VM_REG(R->T, R->sp->vs->n_regs + 1); /* scratch register */
    for (i = 0; i < n; i++) offs[i] = off + ls * i;
    tc__k_gload(rp->st, d, base, offs, m, n);
    return 1;
}

TC__PRIVATE void tc__vm_do_goff(tc__vm_run *R, const tc__vm_ins *in, void *dv, int n) {
    const tc__vm_rplan *rp = &R->sp->reads[in->b];
    int64_t off = tc__vm_read_offset(R->sp, rp, R->T->idx);
    int64_t ls = R->sp->lane >= 0 ? rp->lstride[R->sp->lane] : 0;
    int64_t *TC__RESTRICT d = (int64_t *)dv;
    int i;
    for (i = 0; i < n; i++) d[i] = off + ls * i;
}

/* Lane index of a gather as int64; unsigned values above INT64_MAX map to
   -1 (out of range either way). */
TC__PRIVATE void tc__vm_index_to_i64(tc_dtype t, const void *src, int64_t *d, int n) {
    int i;
    switch (t) {
#define TC__VM_IX(DT, T, CONV)                                                               \
    case TC_##DT: {                                                                          \
        const T *s = (const T *)src;                                                         \
        TC__VM_LOOP(CONV);                                                                   \
        break;                                                                               \
    }
        TC__VM_IX(INT8, int8_t, (int64_t)s[i])
        TC__VM_IX(INT16, int16_t, (int64_t)s[i])
        TC__VM_IX(INT32, int32_t, (int64_t)s[i])
        TC__VM_IX(INT64, int64_t, s[i])
        TC__VM_IX(UINT8, uint8_t, (int64_t)s[i])
        TC__VM_IX(UINT16, uint16_t, (int64_t)s[i])
        TC__VM_IX(UINT32, uint32_t, (int64_t)s[i])
        TC__VM_IX(UINT64, uint64_t, s[i] > (uint64_t)INT64_MAX ? -1 : (int64_t)s[i])
#undef TC__VM_IX
    default: TC__VM_LOOP(0); break;
    }
}

TC__PRIVATE int tc__vm_do_gidx(tc__vm_run *R, const tc__vm_ins *in, int n) {
    int tn = R->sp->reads[in->c].tensor, i;
    int64_t ext = R->P->ext[tn][in->d], ts = R->P->ts[tn][in->d];
    int64_t *TC__RESTRICT off = (int64_t *)R->T->rp[in->a];
    int64_t *TC__RESTRICT ix = (int64_t *)TC__VM_REG(R->T, R->sp->vs->n_regs + 1);
    const uint8_t *m = in->e == TC__VM_NONE ? NULL : (const uint8_t *)R->T->rp[in->e];
    tc__vm_index_to_i64((tc_dtype)in->dt2, R->T->rp[in->b], ix, n);
    if (!R->P->unchecked) {
        for (i = 0; i < n; i++)
            if ((!m || m[i]) && (ix[i] < 0 || ix[i] >= ext))
                return tc__vm_bounds_error(R, in->c, in->d, ix[i]);
    }
    /* wrapping arithmetic: unchecked indices must not be undefined behaviour here */
    for (i = 0; i < n; i++) off[i] = (int64_t)((uint64_t)off[i] + (uint64_t)ix[i] * (uint64_t)ts);
    return 1;
}

TC__PRIVATE void tc__vm_do_call(tc__vm_run *R, const tc__vm_ins *in, void *d, int n) {
    void *const *rp = R->T->rp;
    int ar = tc_builtin_arity((tc_builtin)in->dt2);
    const void *a1 = ar > 1 ? rp[in->c] : NULL;
    const void *a2 = ar > 2 ? rp[in->d] : NULL;
    const void *a3 = ar > 3 ? rp[in->e] : NULL;
    if (in->dt == TC_FLOAT32)
        tc__math_block_f32((tc_builtin)in->dt2, (float *)d, (const float *)rp[in->b],
                           (const float *)a1, (const float *)a2, (const float *)a3, n);
    else
        tc__math_block_f64((tc_builtin)in->dt2, (double *)d, (const double *)rp[in->b],
                           (const double *)a1, (const double *)a2, (const double *)a3, n);
}

TC__PRIVATE void tc__vm_do_index(tc__vm_run *R, const tc__vm_ins *in, void *dv, int n) {
    int32_t *TC__RESTRICT d = (int32_t *)dv;
    int64_t v = R->T->idx[in->b];
    int i;
    if (in->b == R->sp->lane) TC__VM_LOOP((int32_t)(v + i));
    else TC__VM_LOOP((int32_t)v);
}

/* Runs the statement's bytecode for n lanes. 0: a gather failed its check.
   Each instruction writes its own register (or, for the last one of a
   direct store, the written tensor) and points rp[a] at it; sources are
   read through rp, which a zero-copy LOAD points into tensor memory. */
/* Lane-uniform values (the same on every lane: broadcast reads, loops
   other than the lane loop, the prologue, and pure operations on those)
   are computed on lane 0 only: sqrt(var(i) + eps) once per block, not per
   lane. T->uni[r]: TC__VM_UNI set when uniform; the low bits hold the
   element size while only lane 0 is written. A lane-varying consumer
   first spreads lane 0 over the block. */
TC__PRIVATE int tc__vm_one_lane(const tc__vm_run *R, const tc__vm_ins *in, const unsigned *src,
                                int ns) {
    const unsigned char *uni = R->T->uni;
    int k;
    switch ((tc_opcode)in->op) {
    case TC_OP_CONST: case TC_OP_SIZE: return 1;
    case TC_OP_INDEX: return in->b != R->sp->lane;
    case TC_OP_LOAD:
        return in->c == TC__VM_NONE && !R->sp->reads[in->b].row_const &&
               (R->sp->lane < 0 || R->sp->reads[in->b].lstride[R->sp->lane] == 0);
    case TC_OP_GOFF: case TC_OP_GIDX: case TC_OP_GLOAD: case TC_OP_COUNT: return 0;
    default: break;
    }
    for (k = 0; k < ns; k++)
        if (!(uni[src[k]] & TC__VM_UNI)) return 0;
    return 1;
}

/* A register of one value a row (TC__VM_ROW) over its rows' lanes: from
   the last row back, so that no value is overwritten before it is read. */
TC__PRIVATE void tc__vm_expand_rows(tc__vm_thread *T, unsigned r, int n) {
    size_t esz = T->uni[r] & TC__VM_ESZ, ext = (size_t)T->row_ext;
    unsigned char *p = (unsigned char *)T->rp[r], v[8];
    int row = (int)((size_t)n / ext);
    while (row-- > 0) {
        memcpy(v, p + (size_t)row * esz, esz);
        tc__k_fill(esz, p + (size_t)row * ext * esz, v, (int)ext);
    }
    T->uni[r] = 0;
}

TC__PRIVATE void tc__vm_spread(tc__vm_thread *T, const unsigned *src, int ns, int n) {
    int k;
    for (k = 0; k < ns; k++) {
        unsigned r = src[k];
        if (T->uni[r] & TC__VM_ROW) {
            tc__vm_expand_rows(T, r, n);
        } else if (T->uni[r] & TC__VM_ESZ) {
            unsigned char v[8];
            memcpy(v, T->rp[r], T->uni[r] & TC__VM_ESZ);
            tc__k_fill(T->uni[r] & TC__VM_ESZ, T->rp[r], v, n);
            T->uni[r] = TC__VM_UNI;
        }
    }
}

/* In a block of whole folded rows (tc__vm_plan_fold) of at least
   TC__VM_ROW_MIN lanes, an operation whose operands are each the same
   along a row (a read row_const, or such a value) or lane-uniform, not
   all uniform, runs on one lane a row (rmsnorm's rsqrt(ss(i) / N + eps)
   once a row, as without the fold), and its lanes are filled only for a
   consumer that varies along the row. Below that length a row's lanes
   cost less than filling them row by row. */
#define TC__VM_ROW_MIN 16
TC__PRIVATE int tc__vm_block_rows(const tc__vm_run *R, int n) {
    int ext = R->sp->fold_ext;
    return !R->check && ext >= TC__VM_ROW_MIN && n % ext == 0 ? n / ext : 0;
}
TC__PRIVATE int tc__vm_row_op(const tc__vm_run *R, const tc__vm_ins *in, const unsigned *src, int ns) {
    const unsigned char *uni = R->T->uni;
    int k, row = 0;
    switch ((tc_opcode)in->op) {
    case TC_OP_LOAD:
        return in->c == TC__VM_NONE && R->sp->reads[in->b].row_const &&
               R->sp->reads[in->b].lstride[R->sp->lane] == 0;
    case TC_OP_CONST: case TC_OP_SIZE: case TC_OP_INDEX: case TC_OP_GOFF: case TC_OP_GIDX:
    case TC_OP_GLOAD: case TC_OP_COUNT: return 0;
    default: break;
    }
    for (k = 0; k < ns; k++) {
        if (!(uni[src[k]] & (TC__VM_UNI | TC__VM_ROW))) return 0;
        row |= (uni[src[k]] & TC__VM_ROW) != 0;
    }
    return row;
}
/* A row_const read on one lane a row: each row's value, rows rs apart. */
TC__PRIVATE void tc__vm_load_rows(tc__vm_run *R, const tc__vm_ins *in, void *d, int rows) {
    const tc__vm_rplan *rp = &R->sp->reads[in->b];
    int64_t off = tc__vm_read_offset(R->sp, rp, R->T->idx);
    const unsigned char *base = R->T->ptr[rp->tensor];
    tc__k_load(rp->st, d, base + off * (int64_t)tc_dtype_size(rp->st), rp->lstride[R->sp->fold_row], rows);
}

/* A float binary op with exactly one lane-uniform operand runs on the
   scalar kernels (no broadcast pass; a uniform divisor is not divided per
   lane). 0: not taken. */
TC__PRIVATE int tc__vm_uniform_arith(const tc__vm_thread *T, const tc__vm_ins *in, void *d, int n) {
    int ub = (T->uni[in->b] & TC__VM_UNI) != 0, uc = (T->uni[in->c] & TC__VM_UNI) != 0;
    if (ub == uc) return 0;
    return tc__k_arith_uniform(in->op, (tc_dtype)in->dt, d, T->rp[ub ? in->c : in->b],
                               T->rp[ub ? in->b : in->c], ub, n);
}

/* A float binary op with one operand a value a row (TC__VM_ROW, `rows`
   rows of T->row_ext lanes) and the other a stream: each row's lanes with
   its value as the scalar operand (the uniform kernels, the same values),
   rather than every row's lanes filled with its value first (a depthwise
   filter's weight per reduction step). 0: not taken (nothing written). */
TC__PRIVATE int tc__vm_row_arith(const tc__vm_thread *T, const tc__vm_ins *in, void *d, int rows) {
    int rb = (T->uni[in->b] & TC__VM_ROW) != 0, rc = (T->uni[in->c] & TC__VM_ROW) != 0, r;
    unsigned row = rb ? in->b : in->c, lane = rb ? in->c : in->b;
    size_t esz = tc_dtype_size((tc_dtype)in->dt), ext = (size_t)T->row_ext;
    const unsigned char *v = (const unsigned char *)T->rp[row], *a = (const unsigned char *)T->rp[lane];
    if (rb == rc || !rows || !ext || (T->uni[lane] & (TC__VM_UNI | TC__VM_ROW)) || d == T->rp[row] ||
        !tc__k_arith_uniform_ok(in->op, (tc_dtype)in->dt))
        return 0; /* (a row's values under d would be overwritten before they are read) */
    for (r = 0; r < rows; r++)
        tc__k_arith_uniform(in->op, (tc_dtype)in->dt, (unsigned char *)d + (size_t)r * ext * esz,
                            a + (size_t)r * ext * esz, v + (size_t)r * esz, rb, (int)ext);
    return 1;
}

/* A fused chain of len links from `in` (the compiler's tc__vm_chains):
   one pass of tc__k_chain_f32. A lane-uniform last operand is passed as a
   scalar; other uniform operands are spread first; a uniform power-of-two
   divisor becomes its reciprocal (one in the scratch register, or the
   last scalar). 0: the chain starts lane-uniform or with a value a row
   (TC__VM_ROW), so the links run one by one. */
TC__PRIVATE int tc__vm_exec_chain(tc__vm_run *R, const tc__vm_ins *in, int len, int direct, int n) {
    tc__vm_thread *T = R->T;
    const tc__vm_ins *last = in + len - 1;
    void *scratch = TC__VM_REG(T, R->sp->vs->n_regs + 1), *d;
    const void *arg[4];
    unsigned src[4];
    int code, k, op[3], pow2 = 0, scalar_last;
    float sv = 0.0f;
    if ((T->uni[in->b] & (TC__VM_UNI | TC__VM_ROW)) && (T->uni[in->c] & (TC__VM_UNI | TC__VM_ROW))) return 0;
    src[0] = in->b;
    for (k = 0; k < len; k++) src[k + 1] = in[k].c;
    scalar_last = (T->uni[src[len]] & TC__VM_UNI) != 0;
    if (scalar_last) memcpy(&sv, T->rp[src[len]], sizeof sv);
    for (k = 0; k < len; k++) { /* uniform power-of-two divisors: times the reciprocal */
        float v;
        op[k] = in[k].op;
        if (op[k] != TC_OP_DIV || !(T->uni[src[k + 1]] & TC__VM_UNI)) continue;
        memcpy(&v, T->rp[src[k + 1]], sizeof v);
        if (k == len - 1 || pow2 || !tc__pow2_reciprocal_f32(&v)) {
            if (k == len - 1 && tc__pow2_reciprocal_f32(&sv)) op[k] = TC_OP_MUL;
            continue;
        }
        op[k] = TC_OP_MUL;
        pow2 = k + 1;
        tc__k_fill(sizeof v, scratch, &v, n);
    }
    tc__vm_spread(T, src, len + 1 - scalar_last, n);
    for (k = 0; k <= len; k++) arg[k] = k == pow2 && k ? scratch : T->rp[src[k]];
    code = tc__k_chain_code(op[0], op[1], len == 3 ? op[2] : -1);
    d = direct ? T->direct : TC__VM_REG(T, last->a);
    tc__k_chain_f32(code, (float *)d, (const float *)arg[0], (const float *)arg[1],
                    (const float *)arg[2], len == 3 ? (const float *)arg[3] : NULL,
                    scalar_last ? &sv : NULL, n);
    T->rp[last->a] = d;
    T->uni[last->a] = 0;
    return 1;
}

TC__PRIVATE int tc__vm_exec_range(tc__vm_run *R, const tc__vm_ins *in, const tc__vm_ins *end,
                                  int n) {
    const tc__vm_stmt *vs = R->sp->vs;
    tc__vm_thread *T = R->T;
    void **rp = T->rp;
    int rows = tc__vm_block_rows(R, n);
    T->row_ext = rows ? R->sp->fold_ext : 0;
    for (; in < end; in++) {
        tc_dtype t = (tc_dtype)in->dt;
        int direct = in + 1 == end && T->direct, nl = n, by_row = 0;
        void *d = direct ? T->direct : TC__VM_REG(T, in->a);
        unsigned src[5] = {0, 0, 0, 0, 0};
        /* the bytes of one lane of in's register: a comparison's bool, else its dtype's */
        unsigned esz = in->op >= TC_OP_LT && in->op <= TC_OP_OR ? 1u : (unsigned)tc_dtype_size(t);
        int ns, k;
        if (R->check && !vs->check[in - vs->ins]) continue;
        if (!R->check && vs->chain && vs->chain[in - vs->ins]) {
            int len = vs->chain[in - vs->ins];
            if (tc__vm_exec_chain(R, in, len, in + len == end && T->direct, n)) {
                in += len - 1;
                continue;
            }
        }
        ns = tc__vm_sources(in, src);
        if (!direct && tc__vm_one_lane(R, in, src, ns)) {
            nl = 1;
            T->uni[in->a] = (unsigned char)(TC__VM_UNI | esz);
        } else if (!direct && rows && tc__vm_row_op(R, in, src, ns)) {
            unsigned char flag = (unsigned char)(TC__VM_ROW | esz);
            rp[in->a] = d;
            if (in->op >= TC_OP_ADD && in->op <= TC_OP_MAX && tc__vm_uniform_arith(T, in, d, rows)) {
                T->uni[in->a] = flag;
                continue;
            }
            for (k = 0; k < ns; k++) /* a uniform operand over every lane: a row's lanes read it */
                if (T->uni[src[k]] & TC__VM_UNI) tc__vm_spread(T, &src[k], 1, n);
            T->uni[in->a] = flag;
            nl = rows;
            by_row = 1;
        } else if (in->op >= TC_OP_ADD && in->op <= TC_OP_MAX &&
                   (tc__vm_uniform_arith(T, in, d, n) || tc__vm_row_arith(T, in, d, rows))) {
            T->uni[in->a] = 0;
            rp[in->a] = d;
            continue;
        } else {
            tc__vm_spread(T, src, ns, n);
            if (in->op != TC_OP_GIDX) T->uni[in->a] = 0;
        }
        if (in->op != TC_OP_GIDX) rp[in->a] = d;
        switch ((tc_opcode)in->op) {
        case TC_OP_CONST: tc__k_fill(tc_dtype_size(t), d, &vs->consts[in->b], nl); break;
        case TC_OP_INDEX: tc__vm_do_index(R, in, d, nl); break;
        case TC_OP_SIZE: {
            int32_t v = (int32_t)R->P->sx[in->b];
            tc__k_fill(4, d, &v, nl);
            break;
        }
        case TC_OP_LOAD:
            if (by_row) tc__vm_load_rows(R, in, d, nl);
            else if (!tc__vm_do_load(R, in, d, nl)) return 0;
            break;
        case TC_OP_GOFF: tc__vm_do_goff(R, in, d, nl); break;
        case TC_OP_GIDX: if (!tc__vm_do_gidx(R, in, nl)) return 0; break;
        case TC_OP_GLOAD:
            tc__k_gload(R->sp->reads[in->c].st, d, R->T->ptr[R->sp->reads[in->c].tensor],
                        (const int64_t *)rp[in->b],
                        in->d == TC__VM_NONE ? NULL : (const uint8_t *)rp[in->d], nl);
            break;
        case TC_OP_NEG: tc__k_arith(TC_OP_NEG, t, d, rp[in->b], rp[in->b], nl); break;
        case TC_OP_NOT: tc__k_logic(TC_OP_NOT, d, rp[in->b], rp[in->b], nl); break;
        case TC_OP_CAST: tc__k_cast((tc_dtype)in->dt2, t, d, rp[in->b], nl); break;
        case TC_OP_HALF: tc__k_half(t, d, rp[in->b], nl); break;
        case TC_OP_ADD: case TC_OP_SUB: case TC_OP_MUL: case TC_OP_DIV: case TC_OP_MOD:
        case TC_OP_MIN: case TC_OP_MAX: tc__k_arith(in->op, t, d, rp[in->b], rp[in->c], nl); break;
        case TC_OP_LT: case TC_OP_LE: case TC_OP_GT: case TC_OP_GE: case TC_OP_EQ: case TC_OP_NE:
            tc__k_cmp(in->op, t, d, rp[in->b], rp[in->c], nl);
            break;
        case TC_OP_AND: case TC_OP_OR: tc__k_logic(in->op, d, rp[in->b], rp[in->c], nl); break;
        case TC_OP_SELECT:
            tc__k_select(tc_dtype_size(t), d, (const uint8_t *)rp[in->b], rp[in->c], rp[in->d], nl);
            break;
        case TC_OP_CALL: tc__vm_do_call(R, in, d, nl); break;
        case TC_OP_COUNT: return 0; /* unreachable after verification */
        }
    }
    return 1;
}

/* The block body (after the prologue). */
TC__PRIVATE int tc__vm_exec(tc__vm_run *R, int n) {
    const tc__vm_stmt *vs = R->sp->vs;
    unsigned v = (unsigned)vs->value;
    R->T->pf_base = NULL;
    if (!tc__vm_exec_range(R, vs->ins + vs->n_pro, vs->ins + vs->n_ins, n)) return 0;
    if (!R->T->direct && !R->check) tc__vm_spread(R->T, &v, 1, n); /* the store reads every lane */
    return 1;
}
/* The operands of the value's last instruction for a kernel that makes
   and reduces it in one pass (sp->acc_op, sp->lane_op): op (TC_OP_CALL:
   fabs), streams a and b, or for a lane-uniform operand b NULL and the
   scalar *s, first with s_first. op TC_OP_COUNT: the value itself, in a. */
typedef struct {
    int op, s_first;
    const void *a, *b, *s;
} tc__vm_last_operands;
/* Everything before the value's last instruction over n lanes, its
   operands in *lo; with both operands uniform, the op itself on one lane,
   spread as tc__vm_exec's value would be (lo->op TC_OP_COUNT). */
TC__PRIVATE int tc__vm_exec_but_last(tc__vm_run *R, int n, tc__vm_last_operands *lo) {
    const tc__vm_stmt *vs = R->sp->vs;
    const tc__vm_ins *last = vs->ins + vs->n_ins - 1;
    tc__vm_thread *T = R->T;
    int ub, uc;
    T->pf_base = NULL;
    if (!tc__vm_exec_range(R, vs->ins + vs->n_pro, last, n)) return 0;
    if (T->uni[last->b] & TC__VM_ROW) tc__vm_expand_rows(T, last->b, n);
    if (last->op != TC_OP_CALL && (T->uni[last->c] & TC__VM_ROW)) tc__vm_expand_rows(T, last->c, n);
    ub = (T->uni[last->b] & TC__VM_UNI) != 0;
    uc = last->op == TC_OP_CALL ? ub : (T->uni[last->c] & TC__VM_UNI) != 0; /* fabs: one operand */
    lo->op = last->op, lo->s_first = 0, lo->b = lo->s = NULL;
    if (ub && uc) {
        unsigned v = (unsigned)vs->value;
        if (!tc__vm_exec_range(R, last, last + 1, n)) return 0;
        tc__vm_spread(T, &v, 1, n);
        lo->op = TC_OP_COUNT, lo->a = T->rp[vs->value];
    } else if (last->op == TC_OP_CALL) {
        lo->a = T->rp[last->b];
    } else if (ub || uc) {
        lo->a = T->rp[ub ? last->c : last->b], lo->s = T->rp[ub ? last->b : last->c], lo->s_first = ub;
    } else {
        lo->a = T->rp[last->b], lo->b = T->rp[last->c];
    }
    return 1;
}
/* The block's value over n lanes as a one-pass kernel's operands: with
   sp->lane_op everything before its last op, else the whole block and the
   value itself (TC_OP_COUNT). */
TC__PRIVATE int tc__vm_exec_operands(tc__vm_run *R, int n, tc__vm_last_operands *lo) {
    if (R->sp->lane_op) return tc__vm_exec_but_last(R, n, lo);
    if (!tc__vm_exec(R, n)) return 0;
    lo->op = TC_OP_COUNT, lo->s_first = 0, lo->a = R->T->rp[R->sp->vs->value], lo->b = lo->s = NULL;
    return 1;
}
/* The block body of a sum whose value is its last instruction, one float
   + - or * or fabs (sp->acc_op): everything before it, then that op and
   the sum's step in one pass (tc__k_acc_op). */
TC__PRIVATE int tc__vm_exec_acc(tc__vm_run *R, void *acc, int n) {
    const tc__vm_stmt *vs = R->sp->vs;
    tc__vm_last_operands lo;
    if (!tc__vm_exec_but_last(R, n, &lo)) return 0;
    if (lo.op == TC_OP_COUNT) tc__k_reduce(vs->vdt, TC_REDUCE_SUM, acc, lo.a, n);
    else tc__k_acc_op(vs->vdt, lo.op, acc, lo.a, lo.b, lo.s, lo.s_first, n);
    return 1;
}
/* The prologue: run before a thread's first block, then spread over
   every lane (but on the element-wise path, which reads lane 0 or spreads
   what its op needs, tc__vm_ew_setup). */
TC__PRIVATE void tc__vm_prologue(tc__vm_run *R) {
    const tc__vm_stmt *vs = R->sp->vs;
    void *direct = R->T->direct;
    int i;
    R->T->direct = NULL;
    tc__vm_exec_range(R, vs->ins, vs->ins + vs->n_pro, TC_BLOCK);
    for (i = 0; i < vs->n_pro && !R->sp->ew; i++) { /* every lane, for every block */
        unsigned a = vs->ins[i].a;
        tc__vm_spread(R->T, &a, 1, TC_BLOCK);
    }
    R->T->direct = direct;
}

/* ==== [tc:sched] Per-run schedule and statement execution ===================
   Lane loop: the loop whose lanes make the cheapest accesses (contiguous or
   broadcast reads, a contiguous write), weighted by how many lanes it
   fills. When it is an output loop (type A) the reduction loops run inside
   each block with the accumulator in a register and one store after them;
   when it is a reduction loop (type B: rowsum, softmax's max and sum),
   lanes hold partial results folded in a fixed tree at the end.

   Faster paths, chosen per run from the sizes, all with results fixed by
   the sizes alone:
   - float32 contractions (X * Y summed): the packed engine of
     [tc:contract] (GEMM / GEMV / row paths); other float contractions:
     the register-blocked tile of [tc:kernels] with packed Y panels;
   - window reductions (the value is one read: pooling; or one read
     divided by a value the prologue makes, summed: avgpool's / 4.0,
     tc__vm_wred_div) reduce straight from memory over a table of the
     reduction loops' offsets, without the bytecode, runs of short rows a
     call; with `!` folded, in place in the
     output rows (2x2 windows: one pass over pairs of adjacent elements;
     a float32 min or max whose statement moves much streams its output,
     tc__vm_stream_output);
   - `=` into a contiguous row: the last instruction stores directly; the
     output of a statement that moves much, nothing reading it later,
     whose several inputs stream from memory (or come from cache, in a row
     group), bypasses the caches (tc__vm_stream_output,
     tc__vm_plan_prefetch);
   - element-wise statements, and reductions along the row, each row of
     any other reduction loops onto the same partials in the bytecode's
     order (contiguous or row-uniform loads and work on row-uniform values,
     then one fused chain or binary op, maybe then a one-argument builtin) run
     without the bytecode, a row's blocks at a time, or the whole row in
     one call where nothing goes through a register (tc__vm_ew_items);
     consecutive rows run together, each row's pointers the last one's
     plus the row loop's strides;
     a float32 reduction whose value is a load, one op or a pair (or one
     op's value squared) runs in one pass with its 64 partials in registers
     (tc__k_chain_reduce_f32), and exp(x - s) in one pass
     (tc__math_block_exp_of);
   - float32 op chains the compiler fused run as one pass (tc__vm_chains),
     and a binary float op with a lane-uniform operand reads it as a
     scalar: a power-of-two divisor as its reciprocal, another divisor
     without a division per lane where the target has fma
     (tc__k_div_uni_f32, bitwise the quotient; a chain's first or last
     link in the chain's pass, tc__k_chain_div_uni_f32);
   - on the generic path, short rows that lie back to back in every
     tensor the statement touches run several to a block
     (tc__vm_plan_fold: NCHW with W = 56), and a statement with a
     transposing access (B(j,i) = A(i,j), 512 lanes or more) runs in
     tiles of 16 rows by 256 lanes (tc__vm_plan_tile);
   - software prefetch only where a bare load is reduced (sum): elsewhere
     the hardware keeps up; streaming stores a piece of 128 lanes at a
     time (TC__VM_STREAM_PIECE), interleaved with the loads;
   - consecutive statements over the same rows whose shared tensors are
     all accessed at row i (softmax, layernorm) run as one row group, chunk
     by chunk of rows, so what one writes is still in cache for the next;
     a temporary (or discarded output) only the group uses keeps just the
     chunk's rows, per thread (tc__vm_plan_staging); a reduction of the
     rows the statement before it writes runs inside that statement's
     pass (tc__vm_plan_absorb: softmax's sum);
   - a row group whose statements all take whole rows of two loops on the
     element-wise path runs row by row (tc__vm_group_rows): a row goes
     through every statement before the next row starts, the staged
     temporary is one row, each statement's call is decided once a chunk
     (tc__vm_plan_row_stmt, tc__vm_row_resolve) and then only made on
     each row (tc__vm_row_call), a sum of the squares of the row the
     statement before writes with one op on a scalar is made in that
     statement's pass (tc__vm_row_fuse: layernorm's d and var), the next
     row of every tensor it streams is prefetched (a slice after each
     statement), and its chunks have 64 rows or more (TC__VM_ROW_CHUNK).

   Threads take whole items (blocks of output elements, tiles, row chunks,
   a long reduction's segments: tc__vm_plan_segments) in chunks; an item's
   operations and a reduction's order are the sizes' alone (a chunk count
   may follow the thread count: row groups, the contraction engine), so
   results never depend on the thread count. */

#define TC__VM_CHUNK_WORK 32768.0 /* lane-iterations per chunk, about */
/* A lane loop this long amortizes the dispatch: two float vectors. Past
   it, access costs decide. At 128, rows of 64 (layernorm over 4096 rows)
   took 128 strided lanes over 64 contiguous ones, each load a gather:
   much slower a row than at 32 (rows of 32 and of 16 also a little faster
   at 32). No statement of the benchmark set changes its lane loop. */
#define TC__VM_LANES_ENOUGH 32
/* a tensor this large streams from memory (or TC_STREAM_BYTES, if smaller:
   tests force streaming at small sizes) */
#define TC__VM_PF_MIN_BYTES (TC_STREAM_BYTES > 0 && TC_STREAM_BYTES < (1 << 20) ? TC_STREAM_BYTES : (1 << 20))
#define TC__VM_MAX_CHUNKS 1024
#define TC__MK_PACK_MAX (1 << 21) /* bytes of packed Y per thread, at most */

TC__PRIVATE void *tc__plan_alloc(tc_plan *P, size_t n, size_t size) {
    if (size && n > ((size_t)-1) / 4 / size) return NULL;
    return tc__arena_alloc_raw(&P->arena, (n * size) != 0 ? n * size : 1);
}

/* bytes at a cache line's start (registers, staged rows: whole-line vector
   loads and streaming stores), or NULL */
TC__PRIVATE unsigned char *tc__plan_alloc_lines(tc_plan *P, size_t bytes) {
    unsigned char *r = bytes <= (size_t)-1 - 64 ? (unsigned char *)tc__plan_alloc(P, bytes + 64, 1) : NULL;
    return r ? r + (64 - (size_t)((uintptr_t)r % 64)) % 64 : NULL;
}

TC__PRIVATE int64_t tc__vm_extent(const tc__vm_splan *sp, int l) {
    return sp->hi[l] > sp->lo[l] ? sp->hi[l] - sp->lo[l] : 0;
}

/* The row loop: the last outer loop (the odometer's fastest), or -1. */
TC__PRIVATE int tc__vm_row_loop(const tc__vm_splan *sp) {
    return sp->n_outer ? sp->outer[sp->n_outer - 1] : -1;
}

/* Loop l was merged into another (tc__vm_plan_collapse): out of the plan. */
TC__PRIVATE int tc__vm_collapsed(const tc__vm_splan *sp, int l) {
    return l < 64 && (sp->collapsed >> l) & 1;
}

/* The lane loop: the one whose accesses are cheapest along it (a unit
   stride 3, a broadcast 2, anything else 0; a reduction loop 1 for its
   partial sums), weighted by its length up to TC__VM_LANES_ENOUGH. A
   contiguous write counts 3, or 1 in a reduction of TC__VM_LANES_ENOUGH
   steps or more, where it happens once for many reads: var(c) +=!
   (X(n,c,h,w) - m(c))^2 / K over 8x64x56x56 took c (64 lanes, X read 3136
   elements apart) over the contiguous h,w, much slower than the other
   way. A pooling window's few steps keep the write's weight (and their
   lane loop: a 2x2 pool 4 outputs wide would take kw, 2 lanes). */
/* The row loop were l the lane loop: the last output loop but l (not merged). */
TC__PRIVATE int tc__vm_last_outer(const tc__vm_splan *sp, int l) {
    int k, rank = 0, best = -1;
    for (k = 0; k < sp->n_loops; k++) rank += !sp->st->loops[k].reduction;
    for (k = 0; k < sp->n_loops && k < rank; k++)
        if (k != l && !tc__vm_collapsed(sp, k) && !(k < 64 && (sp->coalesced >> k) & 1)) best = k;
    return best;
}
TC__PRIVATE int64_t tc__vm_fold_at(const tc_plan *P, const tc__vm_splan *sp, int lane, int row);
TC__PRIVATE int tc__vm_pick_lane(const tc_plan *P, const tc__vm_splan *sp) {
    const tc_ir_stmt *st = sp->st;
    int l, r, best = -1;
    double best_score = -1.0, write = 3.0, steps = 1.0;
    for (l = 0; l < st->n_loops; l++)
        if (st->loops[l].reduction) steps *= (double)tc__vm_extent(sp, l);
    if (steps >= TC__VM_LANES_ENOUGH) write = 1.0;
    for (l = 0; l < st->n_loops; l++) {
        int64_t ext = tc__vm_extent(sp, l);
        double score = 0.0;
        if (tc__vm_collapsed(sp, l)) continue;
        for (r = 0; r < sp->vs->n_reads; r++) {
            int64_t s = sp->reads[r].lstride[l];
            score += s == 0 ? 2.0 : (s == 1 || s == -1) ? 3.0 : 0.0;
        }
        if (!st->loops[l].reduction)
            score += P->ts[sp->wt][l] == 1 ? write : 0.0;
        else
            score += 1.0;
        /* a short output loop whose rows fold (tc__vm_plan_fold) runs many
           rows to a block: as long as they together */
        if (ext < TC__VM_LANES_ENOUGH && !st->loops[l].reduction) {
            int row = tc__vm_last_outer(sp, l);
            if (row >= 0 && tc__vm_fold_at(P, sp, l, row)) ext *= tc__vm_extent(sp, row);
        }
        /* lanes beyond a few vectors' worth gain little; access costs decide */
        score = (score + 0.5) * (double)(ext < TC__VM_LANES_ENOUGH ? ext : TC__VM_LANES_ENOUGH);
        if (score > best_score || (score == best_score && !st->loops[l].reduction)) {
            best = l;
            best_score = score;
        }
    }
    return best;
}

/* Two reduction loops a and b from 0 that every read steps through as one
   (a's stride is b's extent times b's: A(i,j) summed over both, row-major)
   are one loop for the plan: b takes both extents; a is `collapsed`, out
   of the plan's loops (its strides zeroed, so its value never matters).
   The sum of a whole matrix is then one long row (the element-wise path,
   segments over the threads) rather than a row per odometer step. Only
   where nothing sees the loop values but the reads' strides: no loop
   index as a value, no gather, no read checked lane by lane. Repeats
   until no pair is left (a 3-d tensor's reduction is one loop). The
   order of the reduction follows the merged loop (fixed by the sizes). */
TC__PRIVATE int tc__vm_collapse_ok(const tc__vm_splan *sp, int a, int b) {
    int64_t ea = tc__vm_extent(sp, a), eb = tc__vm_extent(sp, b), s;
    int r;
    if (sp->lo[a] != 0 || sp->lo[b] != 0 || ea < 2 || eb < 2 || ea > INT64_MAX / eb) return 0;
    for (r = 0; r < sp->vs->n_reads; r++) {
        const int64_t *ls = sp->reads[r].lstride;
        if (!tc__mul64(eb, ls[b], &s) || s != ls[a]) return 0;
    }
    return 1;
}
/* Nothing sees the loop values but the affine reads and the write: no
   loop index as a value, no gather, no read checked lane by lane. */
TC__PRIVATE int tc__vm_only_affine(const tc__vm_splan *sp) {
    const tc__vm_stmt *vs = sp->vs;
    int k;
    for (k = 0; k < vs->n_ins; k++) {
        int op = vs->ins[k].op;
        if (op == TC_OP_INDEX || op == TC_OP_GOFF || op == TC_OP_GIDX || op == TC_OP_GLOAD) return 0;
    }
    for (k = 0; k < vs->n_reads; k++)
        if (sp->reads[k].checked || vs->reads[k].gather) return 0;
    return 1;
}
TC__PRIVATE void tc__vm_plan_collapse(const tc_plan *P, tc__vm_splan *sp) {
    const tc__vm_stmt *vs = sp->vs;
    int rank = P->ir->tensors[sp->wt].rank, a, b, k, found = 1;
    if (sp->any_empty || sp->st->reduce == TC_REDUCE_ASSIGN) return; /* `=`: the last write stays last */
    if (!tc__vm_only_affine(sp)) return;
    while (found) {
        found = 0;
        for (a = rank; a < sp->n_loops && a < 64 && !found; a++)
            for (b = rank; b < sp->n_loops && !found; b++) {
                if (a == b || !tc__vm_collapse_ok(sp, a, b)) continue;
                sp->hi[b] = tc__vm_extent(sp, a) * tc__vm_extent(sp, b);
                sp->hi[a] = 1;
                sp->collapsed |= (uint64_t)1 << a;
                for (k = 0; k < vs->n_reads; k++) sp->reads[k].lstride[a] = 0;
                found = 1;
            }
    }
}

/* Output loops of an element-wise statement (no reduction loop) whose rows
   are short: a loop a and the next one b that every access steps through
   as one (a's stride is b's extent times b's, in the write and in every
   read: O(i,c) = P(i,c) * s over float(N,3)) are one loop for the plan.
   b takes both extents from its own lower bound; a keeps its lower bound
   alone (extent 1), its strides untouched, so every address is the one
   the two loops made. Rows shorter than a block otherwise cost a dispatch
   and a partial block each, whatever path runs them; rows of a block or
   more lose nothing, so they stay (and keep their row groups). Only where
   nothing sees the loop values but the affine accesses (tc__vm_only_affine)
   and the statement does not read what it writes. A merged statement runs
   alone, not in a row group (tc__vm_group_ok): its rows are not the
   tensor's. */
TC__PRIVATE int tc__vm_stmt_reads(const tc__vm_stmt *vs, int t);
TC__PRIVATE void tc__vm_plan_coalesce(const tc_plan *P, tc__vm_splan *sp) {
    int rank = P->ir->tensors[sp->wt].rank, a, b = rank - 1, k, ok;
    const int64_t *ws = P->ts[sp->wt];
    if (sp->n_loops != rank || rank < 2 || sp->any_empty || !tc__vm_only_affine(sp) ||
        tc__vm_stmt_reads(sp->vs, sp->wt))
        return;
    for (a = rank - 2; a >= 0; a--) {
        int64_t ea = tc__vm_extent(sp, a), eb = tc__vm_extent(sp, b), s;
        if (eb >= TC_BLOCK) return;
        if (ea < 2 || ea > INT64_MAX / eb) return;
        ok = tc__mul64(eb, ws[b], &s) && s == ws[a];
        for (k = 0; ok && k < sp->vs->n_reads; k++)
            ok = tc__mul64(eb, sp->reads[k].lstride[b], &s) && s == sp->reads[k].lstride[a];
        if (!ok) return;
        sp->hi[b] = sp->lo[b] + ea * eb;
        sp->hi[a] = sp->lo[a] + 1;
        sp->coalesced |= (uint64_t)1 << a;
    }
}

/* The lowest and highest value of offset + sum(coef[l] * loop l) over the
   loops' ranges [lo, hi), every one non-empty; 0 when that overflows. */
TC__PRIVATE int tc__vm_affine_span(const int64_t *coef, int64_t offset, int n_loops,
                                   const int64_t *lo, const int64_t *hi, int64_t *min,
                                   int64_t *max) {
    int l;
    *min = *max = offset;
    for (l = 0; l < n_loops; l++) {
        int64_t a, b;
        if (!tc__mul64(coef[l], lo[l], &a) || !tc__mul64(coef[l], hi[l] - 1, &b) ||
            !tc__add64(*min, a < b ? a : b, min) || !tc__add64(*max, a < b ? b : a, max))
            return 0;
    }
    return 1;
}

/* "`stmt` (line L): index arithmetic of T overflows int64". */
TC__PRIVATE tc_status tc__vm_overflow_error(const tc_ir_stmt *st, const char *name, tc_error *err) {
    return tc__set_error(err, TC_ERR_LIMIT, "`%s` (line %d): index arithmetic of %s overflows int64",
                         st->text ? st->text : "?", st->line, name);
}

/* "`stmt` (line L) reads T at indices lo..hi in dimension d, whose extent is e". */
TC__PRIVATE tc_status tc__vm_span_error(const tc_ir_stmt *st, const char *verb, const char *name,
                                        int64_t lo, int64_t hi, int d, int64_t extent,
                                        tc_error *err) {
    return tc__set_error(err, TC_ERR_BOUNDS,
                         "`%s` (line %d) %s %s at indices %lld..%lld in dimension %d, whose "
                         "extent is %lld",
                         st->text ? st->text : "?", st->line, verb, name, (long long)lo,
                         (long long)hi, d, (long long)extent);
}

/* Strides of a read slot through its affine dims, and (when the domain is
   not empty) the proof that every affine index stays in bounds. */
TC__PRIVATE tc_status tc__vm_plan_read(tc_plan *P, tc__vm_splan *sp, int slot, tc_error *err) {
    const tc__vm_read *rd = &sp->vs->reads[slot];
    const tc_ir_node *nd = &sp->st->nodes[rd->node];
    const tc_ir_tensor *t = &P->ir->tensors[rd->tensor];
    tc__vm_rplan *rp = &sp->reads[slot];
    int d, l, ok = 1;
    rp->tensor = rd->tensor;
    rp->st = t->dtype;
    rp->lstride = (int64_t *)tc__plan_alloc(P, (size_t)sp->n_loops + 1, sizeof(int64_t));
    if (!rp->lstride) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    for (d = 0; d < t->rank; d++) {
        const tc_ir_index *ix = &nd->index[d];
        int64_t ts = P->ts[rd->tensor][d], lo = 0, hi = 0, c;
        if (!ix->affine) continue;
        ok &= tc__mul64(ts, P->sx[ix->offset], &c) && tc__add64(rp->c0, c, &rp->c0);
        for (l = 0; l < sp->n_loops; l++)
            ok &= tc__mul64(ix->coef[l], ts, &c) && tc__add64(rp->lstride[l], c, &rp->lstride[l]);
        if (ok && !sp->any_empty)
            ok = tc__vm_affine_span(ix->coef, P->sx[ix->offset], sp->n_loops, sp->lo, sp->hi, &lo,
                                    &hi);
        if (!ok) return tc__vm_overflow_error(sp->st, t->name, err);
        if (!sp->any_empty && (lo < 0 || hi >= P->ext[rd->tensor][d])) {
            if (rd->masked && !rd->gather) rp->checked = 1;
            else return tc__vm_span_error(sp->st, "reads", t->name, lo, hi, d,
                                          P->ext[rd->tensor][d], err);
        }
    }
    return TC_OK;
}

/* Whether the statement reads tensor t. */
TC__PRIVATE int tc__vm_stmt_reads(const tc__vm_stmt *vs, int t) {
    int k;
    for (k = 0; k < vs->n_reads; k++)
        if (vs->reads[k].tensor == t) return 1;
    return 0;
}

/* The first statement that writes tensor t, or -1. */
TC__PRIVATE int tc__vm_first_writer(const tc_ir_def *ir, int t) {
    int s;
    for (s = 0; s < ir->n_stmts; s++)
        if (ir->stmts[s].tensor == t) return s;
    return -1;
}

/* Read r of statement st reads its tensor at the statement's own loop
   values, dimension d at loop d (X(i, j) in a statement whose first loops
   are i, j; reduction loops after them unused). */
TC__PRIVATE int tc__vm_read_identity(const tc_plan *P, const tc_ir_stmt *st, const tc__vm_read *r) {
    const tc_ir_node *nd = &st->nodes[r->node];
    int d, l, rank = P->ir->tensors[r->tensor].rank;
    if (r->gather || rank > st->n_loops) return 0;
    for (d = 0; d < rank; d++) {
        const tc_ir_index *ix = &nd->index[d];
        if (!ix->affine || P->sx[ix->offset] != 0) return 0;
        for (l = 0; l < st->n_loops; l++)
            if ((ix->coef ? ix->coef[l] : 0) != (l == d)) return 0;
    }
    return 1;
}

/* Whether output o (its number among the outputs) may be written straight
   into the buffer of input t when the two are that one buffer (same
   address, dtype, extents and layout), with the result separate buffers
   would give (the output's buffer holding a copy of t's values before the
   run). 0: no (the run stages o); 2: yes, as planned for any run (t is
   never read, or o never written); 1: yes where o's first writer was
   planned for it (tc_plan.ip_ready, tc__vm_plan_stmt), because:
   - every statement before o's first writer s0 reads t, if at all, only at
     its own loop values (X(i, j) in a statement over i, j, ...): all of it
     runs before s0, or in a row group with s0, row by row, each row of t
     read before s0 writes that row of o;
   - s0 reads t only at the very element it writes, and has no reduction
     loop and no `!` (each element is written once, after it was read);
     planned in place, s0's kernels read each element before they write
     it (tc__vm_plan_ew, tc__vm_stmt_divides), or the bytecode copies t's
     blocks into registers first;
   - no statement after s0 reads t (o's later writers may read o: in one
     buffer or two, o is o).
   Anything else (shifted, transposed or gathered reads, reductions into
   the output, later reads, other dtypes, partial overlap) stages. */
TC__PRIVATE int tc__vm_inplace_kind(const tc_plan *P, int o, int t) {
    const tc_ir_def *ir = P->ir;
    int ot = ir->n_inputs + o, rank = ir->tensors[ot].rank, s, r, d, read = 0;
    int s0 = tc__vm_first_writer(ir, ot);
    if (ir->tensors[t].dtype != ir->tensors[ot].dtype || ir->tensors[t].rank != rank) return 0;
    for (d = 0; d < rank; d++)
        if (P->ext[t][d] != P->ext[ot][d] || (P->ext[t][d] > 1 && P->ts[t][d] != P->ts[ot][d]))
            return 0;
    if (s0 < 0) return 2;
    for (s = 0; s < ir->n_stmts; s++) {
        const tc__vm_stmt *vs = &P->vm->stmts[s];
        const tc_ir_stmt *st = &ir->stmts[s];
        for (r = 0; r < vs->n_reads; r++) {
            if (vs->reads[r].tensor != t) continue;
            read = 1;
            if (s > s0 || !tc__vm_read_identity(P, st, &vs->reads[r])) return 0;
            if (s == s0 && (st->n_loops != rank || st->init)) return 0;
        }
    }
    return read ? 1 : 2;
}

/* Chunks of items, about TC__VM_CHUNK_WORK lane-iterations each. */
TC__PRIVATE void tc__vm_plan_chunks(tc__vm_splan *sp) {
    sp->n_chunks = (int64_t)(sp->work / TC__VM_CHUNK_WORK);
    if (sp->n_chunks > TC__VM_MAX_CHUNKS) sp->n_chunks = TC__VM_MAX_CHUNKS;
    if (sp->n_chunks > sp->n_items) sp->n_chunks = sp->n_items;
    if (sp->n_chunks < 1) sp->n_chunks = 1;
}

/* Lanes a block: a whole register (TC_BLOCK), so that the interpreter's
   work for each instruction is shared by as many lanes as it can hold;
   halved, down to TC__VM_BLOCK_MIN, while a reduction loop inside the
   block would re-read more strided lines than half a 32 KB L1 data cache
   (the smallest of current x86-64 and ARM cores; the block's registers
   take the other half) keeps: a read stepping along
   the lanes by more than one element touches a line or part of one per
   lane, and the reduction's next step reads the same lines again
   (O(i,j) +=! X(i,j,k) * X(i,j,k), lanes along j). */
#define TC__VM_BLOCK_MIN (TC_BLOCK < 512 ? TC_BLOCK : 512)
#define TC__VM_STRIDED_BYTES (16 * 1024)
TC__PRIVATE int tc__vm_pick_block(const tc__vm_splan *sp) {
    int blk = TC_BLOCK, k;
    double per_lane = 0.0;
    if (sp->lane < 0 || sp->n_red == 0) return blk;
    for (k = 0; k < sp->vs->n_reads; k++) {
        int64_t ls = sp->reads[k].lstride[sp->lane];
        double bytes = (double)(ls < 0 ? -ls : ls) * (double)tc_dtype_size(sp->reads[k].st);
        if (ls < -1 || ls > 1) per_lane += bytes < 64.0 ? bytes : 64.0;
    }
    while (blk > TC__VM_BLOCK_MIN && (double)blk * per_lane > (double)TC__VM_STRIDED_BYTES) blk /= 2;
    return blk;
}

/* Loop order, items and chunks once the lane loop is known. */
TC__PRIVATE void tc__vm_plan_order(const tc_plan *P, tc__vm_splan *sp) {
    const tc_ir_stmt *st = sp->st;
    int rank = P->ir->tensors[sp->wt].rank, l, r;
    double work = 1.0;
    sp->lane_red = sp->lane >= 0 && st->loops[sp->lane].reduction;
    for (l = 0; l < st->n_loops; l++) {
        if (l == sp->lane || tc__vm_collapsed(sp, l)) continue;
        if (l < rank) sp->outer[sp->n_outer++] = l;
        else sp->red[sp->n_red++] = l;
        if (l >= rank && tc__vm_extent(sp, l) == 0) sp->red_empty = 1;
    }
    if (sp->lane_red && tc__vm_extent(sp, sp->lane) == 0) sp->red_empty = 1;
    sp->blk = tc__vm_pick_block(sp);
    sp->n_blocks = sp->lane < 0 ? 1 : (tc__vm_extent(sp, sp->lane) + sp->blk - 1) / sp->blk;
    sp->n_segs = 1;
    sp->n_items = sp->lane_red ? 1 : sp->n_blocks;
    for (l = 0; l < sp->n_outer; l++) sp->n_items *= tc__vm_extent(sp, sp->outer[l]);
    for (r = 0; r < st->n_loops; r++) work *= (double)(tc__vm_extent(sp, r) ? tc__vm_extent(sp, r) : 1);
    sp->work = work;
    tc__vm_plan_chunks(sp);
}

/* `!` is folded into the accumulator when the statement writes every
   element of the tensor and does not read it. */
TC__PRIVATE void tc__vm_plan_init(const tc_plan *P, tc__vm_splan *sp) {
    int rank = P->ir->tensors[sp->wt].rank, d, covers = !sp->empty;
    sp->init = sp->st->init;
    if (!sp->init) return;
    for (d = 0; d < rank; d++)
        covers &= sp->lo[d] == 0 && sp->hi[d] == P->ext[sp->wt][d];
    covers &= !tc__vm_stmt_reads(sp->vs, sp->wt);
    if (covers) {
        sp->fused = 1;
        sp->init = 0;
    }
}

/* float32 contractions go to the packed contraction engine when it takes
   them (GEMM, GEMV and row paths, cache-blocked): tasks of whole packed
   panels, in chunks of whole panel groups so each thread packs a panel
   once. With fewer than 4 groups (one N block: mm 512, mm 1024), one
   thread runs all the tasks in one chunk (mm 512: faster than a chunk a
   task, each packing the whole panel again). With threads,
   GEMM tasks go a task a chunk, for the balance, where each thread can
   keep the group's panels (tc__contract_keep: mm 512 at 2 threads, faster
   than 2 chunks a thread, each packing the panels again),
   else they share the panels: each k block's is packed once, in pieces
   any thread takes, and tasks go one at a time (tc__contract_share: mm
   1024 at 2 threads, faster than 2 chunks a thread that each pack every
   panel).
   Not with fewer M blocks than threads: a task waits for its M block's
   previous k block, so a stage's tasks are what threads run side by side
   (16 x 100000 x 16, one M block, 8 threads on 2 CPUs: shared, much
   slower than as chunks). Nor where that makes over TC__VM_MAX_CHUNKS items (a
   long K), or without atomics: 2 chunks a thread. Each of those packs its
   panels, so they stay few; with one group, the first half of the chunks
   are bigger than the second (shrink), so that a thread whose virtual CPU
   runs slow holds up a small chunk at the end, not a big one (mm 1024 at
   2 threads, calls alternating with even chunks: a little less time on
   average, if not in every run). Not with 2 or
   3 groups: a big chunk can then span two groups and pack both (2 groups,
   M 1024, K 1024, N 2048: no faster, at times slower). GEMV and row tasks
   pack no panel: with threads, a task a chunk. Its sums are complete per
   element, so neither threads nor chunks change them. */
TC__PRIVATE int tc__vm_plan_engine(tc_plan *P, tc__vm_splan *sp) {
    const tc__contract *c = sp->vs->engine;
    int64_t groups, tasks;
    size_t scratch;
    if (!c || sp->empty || sp->red_empty) return 0;
    if (c->tensor[0] == sp->wt || c->tensor[1] == sp->wt) return 0;
    if (!tc__contract_prepare(c, P->sx, P->ts[c->tensor[0]], P->ts[c->tensor[1]],
                              P->ts[c->tensor[2]], sp->fused, &sp->ct_shape))
        return 0;
    /* rows of X dotted with Y, each shorter than a few vectors: a row costs
       a call and a horizontal sum for a handful of products (a 5-tap filter
       I(y, x + k) * w(k): two million rows of 5). Lanes along an output
       loop do the same sums with every lane busy (tc__vm_plan_contract).
       The same with no M loop (w(k) times the rows of a filter's input,
       O(r,i) +=! X(r, i + 2*k) * w(k)): the panels would copy X's rows
       K times over for K products an element. */
    if ((sp->ct_shape.gemv || sp->ct_shape.m.total <= 1) && sp->ct_shape.k.total < TC__VM_LANES_ENOUGH &&
        sp->lane >= 0 && !sp->lane_red)
        return 0;
    /* fewer output columns than a vector holds and a short reduction
       (O(i,c) +=! P(i,d) * R(d,c) over float(N,3) points, a 3x3 R): an
       element is a handful of products, which the panels' copies of both
       operands outweigh; the lanes, along the rows folded, sum them with
       every lane busy */
    if (sp->ct_shape.n.total < 16 && sp->ct_shape.k.total < 16 && sp->lane >= 0 && !sp->lane_red)
        return 0;
    tasks = tc__contract_tasks(&sp->ct_shape);
    if (tasks <= 0) return 0;
    groups = sp->ct_shape.nm > 0 ? tasks / sp->ct_shape.nm : tasks;
    sp->n_items = tasks;
    if (groups >= 4) sp->n_chunks = groups;
    else if (P->n_threads == 1) sp->n_chunks = 1;
    else if (sp->ct_shape.gemv || sp->ct_shape.row) sp->n_chunks = tasks;
    else if (tc__contract_keep(&sp->ct_shape)) sp->n_chunks = tasks;
#if defined(TC__HAVE_ATOMICS)
    else if (sp->ct_shape.nm >= 2 && sp->ct_shape.nm >= P->n_threads &&
             tc__contract_share(&sp->ct_shape, TC__VM_MAX_CHUNKS))
        sp->n_chunks = sp->n_items = sp->ct_shape.items;
#endif
    else {
        sp->n_chunks = 2 * (int64_t)P->n_threads;
        sp->shrink = groups == 1;
    }
    if (sp->n_chunks > TC__VM_MAX_CHUNKS) sp->n_chunks = TC__VM_MAX_CHUNKS;
    if (sp->n_chunks > sp->n_items) sp->n_chunks = sp->n_items; /* share: an item a chunk */
    if (sp->n_chunks < 1) sp->n_chunks = 1;
    sp->shrink &= sp->n_chunks < tasks;
    scratch = tc__contract_scratch_size(&sp->ct_shape) + TC__CT_ALIGN;
    if (scratch > P->pack_bytes) P->pack_bytes = scratch;
    if (tc__contract_shared_size(&sp->ct_shape) > P->share_bytes)
        P->share_bytes = tc__contract_shared_size(&sp->ct_shape);
    sp->ct = 1;
    return 1;
}

/* Fills the per-step offset tables of the contraction: the reduction
   loops' contributions to the X and Y offsets, in odometer order. */
TC__PRIVATE int tc__vm_mk_tables(tc_plan *P, tc__vm_splan *sp) {
    const int64_t *sx_ = sp->reads[sp->mk_x].lstride, *sy = sp->reads[sp->mk_y].lstride;
    int64_t idx[64], t = 0, ox = 0, oy = 0;
    int k, l;
    sp->mk_ox = (int64_t *)tc__plan_alloc(P, (size_t)sp->mk_T, sizeof(int64_t));
    sp->mk_oy = (int64_t *)tc__plan_alloc(P, (size_t)sp->mk_T, sizeof(int64_t));
    if (!sp->mk_ox || !sp->mk_oy || sp->n_red > 64) return 0;
    for (k = 0; k < sp->n_red; k++) {
        l = sp->red[k];
        idx[k] = sp->lo[l];
        ox += sx_[l] * sp->lo[l];
        oy += sy[l] * sp->lo[l];
    }
    sp->mk_x0 = ox;
    sp->mk_y0 = oy;
    for (;;) {
        sp->mk_ox[t] = ox - sp->mk_x0;
        sp->mk_oy[t] = oy - sp->mk_y0;
        if (++t == sp->mk_T) return 1;
        for (k = sp->n_red - 1; k >= 0; k--) { /* odometer, last loop fastest */
            l = sp->red[k];
            if (++idx[k] < sp->hi[l]) {
                ox += sx_[l];
                oy += sy[l];
                break;
            }
            ox -= sx_[l] * (idx[k] - 1 - sp->lo[l]);
            oy -= sy[l] * (idx[k] - 1 - sp->lo[l]);
            idx[k] = sp->lo[l];
        }
    }
}

/* The tile's row loop: the last output loop Y (read b) does not depend on
   and X (read a) does (matmul's i, convolution's output channel), or -1. */
TC__PRIVATE int tc__vm_mk_row(const tc__vm_splan *sp, int a, int b) {
    int k, l, row = -1;
    for (k = 0; k < sp->n_outer; k++) {
        l = sp->outer[k];
        if (sp->reads[b].lstride[l] == 0 && sp->reads[a].lstride[l] != 0) row = l;
    }
    return row;
}

/* Tiles of one row (no tc__vm_mk_row for X = read a, Y = read b) over
   rows of TC__VM_TILE_ROW_MIN lanes or more: the generic path takes those
   (see tc__vm_plan_contract). Over shorter rows it would interpret each
   reduction step for a few vectors' work (a depthwise 5x5 over rows of 23
   lanes), where the tile walks its offset tables. */
#define TC__VM_TILE_ROW_MIN 128
TC__PRIVATE int tc__vm_tile_one_row(const tc__vm_splan *sp, int a, int b) {
    return tc__vm_mk_row(sp, a, b) < 0 && tc__vm_extent(sp, sp->lane) >= TC__VM_TILE_ROW_MIN;
}

/* value = X * Y summed over the reduction loops, lanes along an output
   loop, X constant along the lanes: run it on the register-blocked tile,
   each packed panel of Y serving the rows of the row loop
   (tc__vm_mk_row). Without one, a tile would have one row and pack Y's
   lanes for a single use, as many copies as products (a 1-D filter
   O(r,i) +=! X(r, i + k) * w(k), a depthwise convolution): over long
   enough rows (tc__vm_tile_one_row) the generic path reads them in place,
   the product summed in the same pass (tc__vm_plan_acc_op). */
TC__PRIVATE int64_t tc__vm_fold_lanes(const tc_plan *P, const tc__vm_splan *sp);
/* Lanes fewer than a vector holds whose rows fold (O(i,c) +=! P(i,d) *
   R(d,c) over float(N,3)): the tile would fill a few of each vector's
   lanes; folded (tc__vm_plan_fold), a block's lanes are all busy. */
TC__PRIVATE int tc__vm_tile_folds(const tc_plan *P, const tc__vm_splan *sp) {
    return tc__vm_extent(sp, sp->lane) < 16 && tc__vm_fold_lanes(P, sp) != 0;
}
TC__PRIVATE void tc__vm_plan_contract(tc_plan *P, tc__vm_splan *sp) {
    const tc__vm_stmt *vs = sp->vs;
    int a, b, k, conv;
    int64_t strips;
    double steps = 1.0;
    if (!vs->contract.ok || sp->lane < 0 || sp->lane_red || sp->red_empty || sp->n_red == 0 ||
        sp->empty)
        return;
    a = vs->contract.p;
    b = vs->contract.q;
    if (sp->reads[a].lstride[sp->lane] != 0) { a = vs->contract.q; b = vs->contract.p; }
    if (sp->reads[a].lstride[sp->lane] != 0 || sp->reads[b].lstride[sp->lane] == 0) return;
    if (sp->reads[a].tensor == sp->wt || sp->reads[b].tensor == sp->wt) return;
    for (k = 0; k < sp->n_red; k++) steps *= (double)tc__vm_extent(sp, sp->red[k]);
    if (steps > (double)(1 << 22)) return;
    sp->mk_xdt = vs->contract.src[a];
    sp->mk_ydt = vs->contract.src[b];
    conv = sp->mk_xdt != vs->vdt || sp->mk_ydt != vs->vdt;
    if (conv && steps * 64.0 * 8.0 > (double)TC__MK_PACK_MAX) return; /* converts as it packs */
    if (tc__vm_tile_one_row(sp, a, b)) return;
    if (tc__vm_tile_folds(P, sp)) return;
    sp->mk_row = tc__vm_mk_row(sp, a, b);
    sp->mk_x = a;
    sp->mk_y = b;
    sp->mk_T = (int64_t)steps;
    sp->mk_outer = (int *)tc__plan_alloc(P, (size_t)sp->n_outer + 1, sizeof(int));
    if (!sp->mk_outer || !tc__vm_mk_tables(P, sp)) return;
    for (k = 0; k < sp->n_outer; k++)
        if (sp->outer[k] != sp->mk_row) sp->mk_outer[sp->n_mk_outer++] = sp->outer[k];
    sp->mk_lanes = tc_dtype_size(vs->vdt) == 4 ? TC__MK_LANES32 : TC__MK_LANES64;
    sp->mk_lane_tiles = (tc__vm_extent(sp, sp->lane) + sp->mk_lanes - 1) / sp->mk_lanes;
    sp->mk_row_blocks =
        sp->mk_row < 0 ? 1 : (tc__vm_extent(sp, sp->mk_row) + TC__MK_ROWS - 1) / TC__MK_ROWS;
    sp->n_items = sp->mk_lane_tiles * sp->mk_row_blocks;
    for (k = 0; k < sp->n_mk_outer; k++) sp->n_items *= tc__vm_extent(sp, sp->mk_outer[k]);
    /* chunks of whole strips (a strip: the row blocks sharing one packed Y),
       unless there are too few strips to share */
    strips = sp->n_items / sp->mk_row_blocks;
    sp->n_chunks = strips >= 4 ? strips : strips * 8;
    if (sp->n_chunks > TC__VM_MAX_CHUNKS) sp->n_chunks = TC__VM_MAX_CHUNKS;
    if (sp->n_chunks > sp->n_items) sp->n_chunks = sp->n_items;
    if (sp->n_chunks < 1) sp->n_chunks = 1;
    if (sp->mk_xdt != vs->vdt) {
        sp->mk_oid = (int64_t *)tc__plan_alloc(P, (size_t)sp->mk_T, sizeof(int64_t));
        if (!sp->mk_oid) return;
        for (k = 0; k < (int)sp->mk_T; k++) sp->mk_oid[k] = k;
        sp->mk_xconv = 1;
    }
    sp->mk = 1;
    if (steps * 64.0 * 8.0 <= (double)TC__MK_PACK_MAX) { /* pack when it fits the cache */
        size_t bytes = (size_t)sp->mk_T * (size_t)sp->mk_lanes * tc_dtype_size(vs->vdt);
        if (sp->mk_xconv) bytes += (size_t)sp->mk_T * TC__MK_ROWS * tc_dtype_size(vs->vdt);
        sp->mk_packed = 1;
        if (bytes > P->pack_bytes) P->pack_bytes = bytes;
    }
}

/* Software prefetch pays only for a bare load that is reduced (sum(x):
   one stream, little work per line). Where several large tensors stream
   in (a * x + b), a block's prefetches come as one burst per tensor and
   can wait on free fill buffers that the hardware prefetchers already
   use; with one stream (stencils, rows) they only cost.
   Streaming stores pay when several inputs stream in from memory too: the
   output's lines then skip the read before each write, which competes
   with the inputs' reads. With one input they gain nothing or lose (the
   stencil, its one input read thrice). After a builtin they cost a copy
   of each block, which small pieces make up for, so a statement ending in
   a builtin counts as streamed too with several input streams; with each
   line written by the builtin's kernel as it computes it
   (tc__math_chunk_store), plain stores measured faster still: such a
   statement keeps only the shape of a streamed one, its chain's whole row
   in one call where it can
   (tc__vm_ew_call_row), else pieces of TC__VM_STREAM_PIECE lanes, the
   builtin writing the output itself. In a row group (tc__vm_plan_groups)
   a statement's inputs come from cache, what earlier statements left
   there, so there a large output nothing reads later streams whatever the
   inputs: the row's stores skip the read of each line first (layernorm's
   Y; softmax's e / s alike). */
TC__PRIVATE void tc__vm_plan_prefetch(const tc_plan *P, tc__vm_splan *sp) {
    int k, j, streams = 0;
    if (sp->lane < 0) return;
    for (k = 0; k < sp->vs->n_reads; k++) {
        const tc__vm_rplan *rp = &sp->reads[k];
        int first = 1;
        if (rp->lstride[sp->lane] != 1 ||
            (double)P->numel[rp->tensor] * (double)tc_dtype_size(rp->st) < TC__VM_PF_MIN_BYTES)
            continue;
        for (j = 0; j < k; j++) first &= sp->reads[j].tensor != rp->tensor;
        streams += first;
    }
    sp->prefetch = streams == 1 && sp->vs->n_ins - sp->vs->n_pro == 1; /* sum(x) */
    sp->stream_div = sp->stream && streams >= 1;
    sp->stream &= streams >= 2;
}

/* A float32 chain of two or three links on the element-wise path, with
   no builtin and no division first or last (tc__vm_plan_stream_div's), whose
   output would stream but that it reads only one large tensor
   (tc__vm_plan_prefetch: a block copied to memory only costs then) streams
   where its row runs as one call (tc__vm_ew_call_row), each line as it is
   computed, with no copy. Alternating in one process, both orders: over
   16384 x 1024 at one thread, X * 2.0 + b(j), X * X + 1.0 and
   (X + 1.0) * 3.0 measured faster so, X * X + 1.0 at two threads too;
   X * 2.0 + b(j) over 2048 x 1024 (16 MiB moved, the least that streams)
   and 4096 x 1024 as well.
   Run after tc__vm_plan_ew, before tc__vm_plan_stream_div clears
   stream_div. */
TC__PRIVATE void tc__vm_plan_stream_chain(tc__vm_splan *sp) {
    const tc__vm_ins *op = sp->vs->ins + sp->ew_op, *last = sp->vs->ins + sp->vs->n_ins - 1;
    sp->stream_chain = sp->stream_div && !sp->stream && sp->ew && !sp->ew_call && !sp->lane_red && op < last &&
                       last <= op + 2 && op->dt == TC_FLOAT32 && op->op != TC_OP_DIV && last->op != TC_OP_DIV;
#if !defined(TC__HAVE_STREAM)
    sp->stream_chain = 0; /* no streaming stores: the pieces, plainly */
#endif
}

/* A float32 chain of two or three links on the element-wise path that
   divides first or last (the stencil's (a + b + c) / 3) streams its stores
   from its own kernel, a line at a time (tc__k_chain_div_uni_f32), where
   its output streams (tc__vm_plan_prefetch): also with one input, where
   the copy of a block to memory only costs. If its divisor turns out not
   to be uniform, its stores are plain ones. */
TC__PRIVATE void tc__vm_plan_stream_div(tc__vm_splan *sp) {
    const tc__vm_ins *op = sp->vs->ins + sp->ew_op, *last = sp->vs->ins + sp->vs->n_ins - 1;
#if !defined(TC__HAVE_STREAM)
    sp->stream_div = 0; /* no streaming stores: plain ones, without the copy through a line */
#endif
    if (!sp->stream_div || !sp->ew || sp->ew_call || sp->lane_red || op >= last || last > op + 2 ||
        op->dt != TC_FLOAT32 || (op->op != TC_OP_DIV && last->op != TC_OP_DIV)) {
        sp->stream_div = 0;
        return;
    }
    sp->stream = 0;
}

/* Whether register r holds a lane-uniform value when instruction `at` of
   the element-wise fast path runs: its last writer before `at` is in the
   prologue, a row-uniform load, or a lane-uniform instruction (all the
   instructions from `first` on are). */
TC__PRIVATE int tc__vm_ew_uniform(const tc__vm_splan *sp, int first, int at, unsigned r) {
    const tc__vm_stmt *vs = sp->vs;
    int k;
    for (k = at - 1; k >= 0; k--) {
        const tc__vm_ins *in = &vs->ins[k];
        if (in->a != r || in->op == TC_OP_GIDX) continue;
        if (k < vs->n_pro) return 1;
        if (in->op == TC_OP_LOAD) return sp->reads[in->b].lstride[sp->lane] == 0;
        return k >= first;
    }
    return 0;
}

/* Instruction k may run once per row of the element-wise fast path: not a
   read or the lane's index, every source lane-uniform, and no fused chain
   that reaches past the uniform part (one within it runs link by link:
   tc__vm_exec_chain declines a chain that starts lane-uniform). */
TC__PRIVATE int tc__vm_ew_uniform_ins(const tc__vm_splan *sp, int first, int k) {
    const tc__vm_stmt *vs = sp->vs;
    const tc__vm_ins *in = &vs->ins[k];
    unsigned src[5];
    int ns, j;
    switch ((tc_opcode)in->op) {
    case TC_OP_LOAD: case TC_OP_GOFF: case TC_OP_GIDX: case TC_OP_GLOAD: case TC_OP_COUNT: return 0;
    case TC_OP_INDEX: if (in->b == sp->lane) return 0; break;
    default: break;
    }
    if (vs->chain && vs->chain[k] > 1) { /* a chain on uniform values only runs link by link */
        int l;
        for (l = k + 1; l < k + vs->chain[k]; l++) {
            ns = tc__vm_sources(&vs->ins[l], src);
            for (j = 0; j < ns; j++)
                if (!tc__vm_ew_uniform(sp, first, l, src[j])) return 0;
        }
    }
    ns = tc__vm_sources(in, src);
    for (j = 0; j < ns; j++)
        if (!tc__vm_ew_uniform(sp, first, k, src[j])) return 0;
    return 1;
}

/* The op is one float32 + - or * whose value is then squared (an MSE's
   (y - t) * (y - t), the same expression computed once): for a sum, a
   kind of chain of its own (TC__FXR_SQUARE). */
TC__PRIVATE int tc__vm_ew_square(const tc__vm_ins *op, const tc__vm_ins *last) {
    return last == op + 1 && last->op == TC_OP_MUL && last->b == op->a && last->c == op->a &&
           op->dt == TC_FLOAT32 && last->dt == TC_FLOAT32 && op->op >= TC_OP_ADD &&
           op->op <= TC_OP_MUL;
}

/* The op (instructions [op, end)) reads a uniform value at two operands,
   the same expression computed once (tc__vm_mark_same: in (X(i,j) *
   m(i) + X(i,j)) / m(i), m(i)): the element-wise path tells a uniform operand by its
   register, spread over the lanes for one link and read as a scalar by
   another, so it declines such an op. Operand p: p 0 the op's first, then
   each link's second. */
TC__PRIVATE unsigned tc__vm_ew_operand(const tc__vm_ins *ins, int op, int p) {
    return p == 0 ? ins[op].b : ins[op + p - 1].c;
}
TC__PRIVATE int tc__vm_ew_uniform_twice(const tc__vm_splan *sp, int first_uni, int op, int end) {
    const tc__vm_ins *ins = sp->vs->ins;
    int p, q, n = end - op + 1;
    for (p = 0; p < n; p++) {
        unsigned r = tc__vm_ew_operand(ins, op, p);
        if (!tc__vm_ew_uniform(sp, first_uni, op, r)) continue;
        for (q = p + 1; q < n; q++)
            if (tc__vm_ew_operand(ins, op, q) == r) return 1;
    }
    return 0;
}

/* Whether a statement divides (/ or %). A statement run in place over an
   input (tc__vm_inplace_kind) reads each element of it before it writes
   that element in the element-wise kernels, piece by piece along a row,
   except the uniform-divisor ones: they store a run of quotients, then
   redo the lanes out of their fast range from the inputs, which in place
   they would read overwritten. Such a statement runs on the bytecode. */
TC__PRIVATE int tc__vm_stmt_divides(const tc__vm_stmt *vs) {
    int i;
    for (i = 0; i < vs->n_ins; i++)
        if (vs->ins[i].op == TC_OP_DIV || vs->ins[i].op == TC_OP_MOD) return 1;
    return 0;
}

/* Element-wise fast path (tc__vm_ew_run): a direct `=`, or a reduction
   along its lane loop (a row's max or sum; other reduction loops, each row
   in turn: tc__vm_ew_reduce), whose body is
   - contiguous or row-uniform plain loads, and instructions on
     row-uniform values only (sqrt(var(i) + eps): once per row), in any
     order;
   - then one fused chain or one binary op (for a reduction, maybe none:
     the value is a contiguous load);
   - maybe then a one-argument builtin of its value.
   The loads become pointers into the tensors, and a row's blocks run in
   one go with no dispatch per instruction. */
TC__PRIVATE void tc__vm_plan_ew(tc__vm_splan *sp) {
    const tc__vm_stmt *vs = sp->vs;
    int i, end, first_uni = -1;
    int red = sp->lane_red && !sp->red_empty && !sp->empty;
    if ((!sp->direct && !red) || sp->lane < 0 || vs->ins[vs->n_ins - 1].a != vs->value) return;
    if (sp->inplace && tc__vm_stmt_divides(vs)) return; /* see tc__vm_stmt_divides */
    for (i = vs->n_pro; i < vs->n_ins; i++) {
        const tc__vm_ins *in = &vs->ins[i];
        if (in->op == TC_OP_LOAD) {
            const tc__vm_rplan *rp = &sp->reads[in->b];
            int64_t ls = rp->lstride[sp->lane];
            if (in->c != TC__VM_NONE || (ls != 1 && ls != 0) || rp->st != vs->vdt ||
                rp->st != (tc_dtype)in->dt)
                return;
            continue;
        }
        if (first_uni < 0) first_uni = i;
        if (!tc__vm_ew_uniform_ins(sp, first_uni, i)) break;
    }
    if (first_uni < 0) first_uni = i;
    sp->ew_op = i;
    sp->ew_call = 0;
    if (i == vs->n_ins) { /* no op: a reduction of one contiguous load */
        sp->ew = red && vs->ins[i - 1].op == TC_OP_LOAD &&
                 sp->reads[vs->ins[i - 1].b].lstride[sp->lane] == 1;
        return;
    }
    /* the op's first link must vary along the lanes */
    if (tc__vm_ew_uniform(sp, first_uni, i, vs->ins[i].b) &&
        tc__vm_ew_uniform(sp, first_uni, i, vs->ins[i].c))
        return;
    end = vs->n_ins;
    if (vs->ins[end - 1].op == TC_OP_CALL && tc_builtin_arity((tc_builtin)vs->ins[end - 1].dt2) == 1 &&
        end - 1 > i && vs->ins[end - 1].b == vs->ins[end - 2].a)
        end--; /* then a one-argument builtin of the op's value: tanh(a * x + b) */
    if (tc__vm_ew_uniform_twice(sp, first_uni, i, end)) return;
    if (vs->chain && vs->chain[i] == end - i) sp->ew = 1;
    else if (i == end - 1 && vs->ins[i].op >= TC_OP_ADD && vs->ins[i].op <= TC_OP_MAX) sp->ew = 1;
    else if (red && end == vs->n_ins && tc__vm_ew_square(&vs->ins[i], &vs->ins[end - 1]) &&
             sp->st->reduce == TC_REDUCE_SUM && vs->vdt == TC_FLOAT32 &&
             !tc__vm_ew_uniform(sp, first_uni, i, vs->ins[i].b) &&
             tc__vm_extent(sp, sp->lane) <= INT_MAX)
        sp->ew = 1; /* as a whole row's sum only (tc__vm_ew_reduce_row): a block's links
                       cannot square */
    sp->ew_call = end < vs->n_ins;
}

/* No statement after sp reads the tensor it writes (nor does sp). */
TC__PRIVATE int tc__vm_unread_after(const tc_plan *P, const tc__vm_splan *sp) {
    int s;
    for (s = (int)(sp->st - P->ir->stmts); s < P->ir->n_stmts; s++)
        if (tc__vm_stmt_reads(&P->vm->stmts[s], sp->wt)) return 0;
    return 1;
}

/* Whether sp's output, read by no later statement, is written past the
   caches (streaming stores): when the statement moves TC_STREAM_BYTES or
   more, its output and each tensor it reads counted once, and its output
   is at least a sixteenth of that. Its lines would leave the cache before
   anyone read them, and a streaming store skips the read of each line
   before it is written. a * x + b, 1M lanes (16 MiB moved), the same call
   repeated: faster streamed, and as fast with the caller reading y after
   each call; at 512K lanes (8 MiB) faster alone but slower with the read,
   so the line is drawn above it. */
TC__PRIVATE int tc__vm_stream_output(const tc_plan *P, const tc__vm_splan *sp) {
    double out = (double)P->numel[sp->wt] * (double)tc_dtype_size(P->ir->tensors[sp->wt].dtype);
    double moved = out;
    int k, j, first;
    if (TC_STREAM_BYTES <= 0 || sp->lane < 0 || !tc__vm_unread_after(P, sp)) return 0;
    for (k = 0; k < sp->vs->n_reads; k++) {
        for (j = 0, first = 1; j < k; j++) first &= sp->reads[j].tensor != sp->reads[k].tensor;
        if (first)
            moved += (double)P->numel[sp->reads[k].tensor] * (double)tc_dtype_size(sp->reads[k].st);
    }
    return moved >= (double)TC_STREAM_BYTES && out * 16.0 >= (double)TC_STREAM_BYTES;
}

/* `=` into a contiguous row of a plain dtype, the value made by the last
   instruction, the tensor not read by the statement: that instruction
   writes the tensor directly and no store follows. */
TC__PRIVATE void tc__vm_plan_direct(const tc_plan *P, tc__vm_splan *sp) {
    const tc__vm_stmt *vs = sp->vs;
    tc_dtype t = P->ir->tensors[sp->wt].dtype;
    int rank = P->ir->tensors[sp->wt].rank;
    if (sp->st->reduce != TC_REDUCE_ASSIGN || sp->n_red || sp->lane_red || sp->fused ||
        vs->n_pro == vs->n_ins)
        return;
    if (vs->ins[vs->n_ins - 1].a != vs->value || vs->ins[vs->n_ins - 1].op == TC_OP_GIDX) return;
    if (t == TC_FLOAT16 || t == TC_BOOL) return;
    if (sp->lane >= 0 && (sp->lane >= rank || P->ts[sp->wt][sp->lane] != 1)) return;
    if (tc__vm_stmt_reads(vs, sp->wt)) return;
    sp->direct = 1;
    sp->stream = sp->stream_ok = tc__vm_stream_output(P, sp);
}

/* The value is x / d or x * d (d * x), x the one read and d made by the
   prologue (a constant or the sizes: avgpool's / 4.0, / (KH * KW), * 0.25),
   summed in float32 or float64: the op, with d's register in *divisor.
   The window kernels round the quotient or product, then the sum, as the
   bytecode does (tc__k_reduce_mem_scaled). */
TC__PRIVATE int tc__vm_wred_div(const tc__vm_splan *sp, unsigned *divisor) {
    const tc__vm_stmt *vs = sp->vs;
    const tc__vm_ins *ld, *dv;
    unsigned other;
    int i;
    if (vs->n_ins != vs->n_pro + 2) return 0;
    ld = &vs->ins[vs->n_pro];
    dv = ld + 1;
    if (ld->op != TC_OP_LOAD || (dv->op != TC_OP_DIV && dv->op != TC_OP_MUL) ||
        (dv->b != ld->a && (dv->op != TC_OP_MUL || dv->c != ld->a)) || dv->a != vs->value ||
        sp->st->reduce != TC_REDUCE_SUM || (vs->vdt != TC_FLOAT32 && vs->vdt != TC_FLOAT64))
        return 0;
    other = dv->b == ld->a ? dv->c : dv->b;
    if (other == ld->a) return 0; /* x * x */
    for (i = 0; i < vs->n_pro; i++)
        if (vs->ins[i].a == other) *divisor = other;
    for (i = 0; i < vs->n_pro; i++) /* nothing in the prologue writes the load's register */
        if (vs->ins[i].a == ld->a) return 0;
    return *divisor == other ? dv->op : 0;
}

/* The dtypes with pair-reduction kernels (TC__VM_TYPES_POOLED). */
TC__PRIVATE int tc__vm_pooled_dtype(tc_dtype t) {
    switch (t) {
#define TC__VM_POOLED_CASE(sfx, DT, T, W, K) case TC_##DT: return 1;
        TC__VM_TYPES_POOLED(TC__VM_POOLED_CASE)
#undef TC__VM_POOLED_CASE
    default: return 0;
    }
}

/* The value is one plain read (LOAD is the whole program), or one read
   divided by a prologue value (tc__vm_wred_div), reduced over the
   reduction loops into lanes along an output loop: pooling, window
   sums. Reduced straight from memory over a table of the reduction loops'
   offsets, without the bytecode (tc__vm_wred_items); direct when `!` is
   folded and the output row is contiguous in the value's dtype. */
TC__PRIVATE void tc__vm_plan_wred(tc_plan *P, tc__vm_splan *sp) {
    const tc__vm_stmt *vs = sp->vs;
    const tc__vm_rplan *rp = &sp->reads[0];
    double steps = 1.0;
    unsigned divisor = TC__VM_NONE;
    int k, div = tc__vm_wred_div(sp, &divisor);
    if ((!div && (vs->n_ins != 1 || vs->n_pro != 0)) || vs->ins[vs->n_pro].op != TC_OP_LOAD ||
        vs->n_reads != 1 || vs->ins[vs->n_pro].c != TC__VM_NONE || sp->lane < 0 || sp->lane_red ||
        sp->n_red == 0 ||
        sp->red_empty || sp->empty || rp->tensor == sp->wt || rp->st != vs->vdt ||
        rp->st == TC_FLOAT16 || rp->st == TC_BOOL)
        return;
    for (k = 0; k < sp->n_red; k++) steps *= (double)tc__vm_extent(sp, sp->red[k]);
    if (steps > (double)(1 << 16)) return;
    sp->mk_x = sp->mk_y = 0;
    sp->mk_T = (int64_t)steps;
    /* the innermost reduction loop covers the gap between lanes (stride 2,
       extent 2, unit stride): read its two steps as one contiguous pair */
    if (rp->lstride[sp->lane] == 2 && rp->lstride[sp->red[sp->n_red - 1]] == 1 &&
        tc__vm_extent(sp, sp->red[sp->n_red - 1]) == 2 && sp->st->reduce != TC_REDUCE_ASSIGN && !div &&
        tc__vm_pooled_dtype(vs->vdt))
        sp->wred_pair = 1;
    if (!tc__vm_mk_tables(P, sp)) return;
    sp->wred = 1;
    sp->wred_divisor = divisor;
    sp->wred_op = div;
    if (div) return; /* through the accumulator, step by step */
    /* `!` folded: the output row is written once, so the reduction may run
       in it (same operations in the same order as the accumulator) */
    sp->wred_direct = sp->fused && sp->st->reduce != TC_REDUCE_ASSIGN &&
                      P->ir->tensors[sp->wt].dtype == vs->vdt &&
                      sp->lane < P->ir->tensors[sp->wt].rank && P->ts[sp->wt][sp->lane] == 1;
    sp->stream = sp->stream_ok = sp->wred_direct && tc__vm_stream_output(P, sp);
}

/* A reduction along one long row (the sum of a whole tensor, a dot
   product) would be one item, and leave every thread but one idle. A row
   of 2 * TC__VM_SEG lanes or more is split into segments of TC__VM_SEG
   lanes, a number fixed by the sizes, each an item (the segments of an
   output element consecutive): a segment reduces as a row of its own
   would (tc__vm_seg_items), and its value goes to seg_vals; then
   tc__vm_seg_combine folds each output element's segment values in
   tc__k_fold's tree and stores the result. The order depends on the sizes
   alone, never on the thread count. With other reduction loops (a
   weighted total, a sum from row 1: loops that tc__vm_plan_collapse could
   not merge), an output element of 2 * TC__VM_SEG values or more is split
   along the outermost of them instead, a segment its values that make
   about TC__VM_SEG lanes in all (seg_rows), every row of them reduced onto
   the segment's partials. */
#define TC__VM_SEG ((int64_t)(TC_SEG_LANES > 0 && TC_SEG_LANES <= (1 << 30) ? TC_SEG_LANES : 65536))
/* Segment partials a statement may keep (output elements x segments);
   past this, its output elements alone give the threads enough to share. */
#define TC__VM_SEG_MAX_VALS ((int64_t)1 << 24)
TC__PRIVATE tc_status tc__vm_plan_segments(tc_plan *P, tc__vm_splan *sp, tc_error *err) {
    int64_t ext = sp->lane >= 0 ? tc__vm_extent(sp, sp->lane) : 0, outer_ext = 0, vals;
    double row = (double)ext; /* the values one value of red[0] takes */
    int k;
    if (!sp->lane_red || sp->red_empty || sp->empty || sp->ct || sp->mk || sp->wred ||
        sp->st->reduce == TC_REDUCE_ASSIGN)
        return TC_OK;
    if (sp->n_red) {
        for (k = 1; k < sp->n_red; k++) row *= (double)tc__vm_extent(sp, sp->red[k]);
        outer_ext = tc__vm_extent(sp, sp->red[0]);
        if (row * (double)outer_ext < 2.0 * (double)TC__VM_SEG || outer_ext < 2) return TC_OK;
        sp->seg_rows = row >= (double)TC__VM_SEG ? 1 : (int64_t)((double)TC__VM_SEG / row);
        sp->n_segs = (outer_ext + sp->seg_rows - 1) / sp->seg_rows;
        if (sp->n_segs < 2 || sp->n_segs > INT_MAX / 2) {
            sp->seg_rows = 0, sp->n_segs = 1;
            return TC_OK;
        }
    } else {
        if (ext < 2 * TC__VM_SEG || ext / TC__VM_SEG > INT_MAX / 2) return TC_OK;
        sp->n_segs = (ext + TC__VM_SEG - 1) / TC__VM_SEG;
    }
    /* n_items was the output elements: each gets a partial per segment. Where
       those would pass TC__VM_SEG_MAX_VALS (or overflow), the outputs are many
       enough to share out by themselves: no segments */
    if (!tc__mul64(sp->n_items, sp->n_segs, &vals) || vals > TC__VM_SEG_MAX_VALS) {
        sp->seg_rows = 0, sp->n_segs = 1;
        return TC_OK;
    }
    sp->n_items = vals;
    sp->seg_vals = (unsigned char *)tc__plan_alloc(P, (size_t)sp->n_items, tc_dtype_size(sp->vs->vdt));
    if (!sp->seg_vals) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    tc__vm_plan_chunks(sp);
    return TC_OK;
}

/* Index and size values are int32 in expressions (SEMANTICS: an integer
   literal is int32; indices count like them): a loop or size past that
   range would wrap where its value is used, so it is an error there. */
TC__PRIVATE tc_status tc__vm_check_index_values(const tc_plan *P, const tc_ir_stmt *st,
                                                const int64_t *lo, const int64_t *hi,
                                                tc_error *err) {
    int k;
    for (k = 0; k < st->n_nodes; k++) {
        const tc_ir_node *nd = &st->nodes[k];
        int64_t a, b;
        if (nd->op == TC_IR_INDEX) {
            if (hi[nd->loop] <= lo[nd->loop]) continue;
            a = lo[nd->loop], b = hi[nd->loop] - 1;
        } else if (nd->op == TC_IR_SIZE) {
            a = b = P->sx[nd->sx];
        } else {
            continue;
        }
        if (a < INT32_MIN || b > INT32_MAX)
            return tc__set_error(err, TC_ERR_LIMIT,
                                 "statement at line %d: the value of %s reaches %lld, outside "
                                 "int32 (the type of index and size values in expressions)",
                                 st->line, nd->op == TC_IR_INDEX ? st->loops[nd->loop].name : "a size",
                                 (long long)(b > INT32_MAX ? b : a));
    }
    return TC_OK;
}

/* A transposing access steps by a line or more along the lane loop and by
   one element along the row loop (B(j,i) = A(i,j)): each lane of a block
   reads a line of its own, whose next element the next row wants. Row by
   row, the lines of a long row (4096 lanes: 4096 lines, on as many pages)
   are gone from L1 and the TLB before that. So rows go TC__VM_TILE at a
   time, TC__VM_TILE_LANES lanes by TC__VM_TILE_LANES: a tile's lines serve
   its rows one after the other. B(j,i) = A(i,j), float32, one thread, row
   by row against tiles of 16 x 64, 16 x 256 and 16 x 512 lanes, over
   4096 x 4096, 3000 x 3000, 1024 x 8192 and 2048 x 2048: every tiling
   much faster than row by row, 16 x 256 the best or close to it. Rows of
   a few hundred lanes keep their lines in L1 and L2 and
   lost tiled (300 x 300): so only from
   TC__VM_TILE_MIN_LANES (1000 x 1000: about even). Only on the generic
   path, where items may run in any order: the statement reads not the
   tensor it writes, and each item reduces its own lanes
   (tc__vm_rows_free). */
#define TC__VM_TILE 16
#define TC__VM_TILE_LANES 256
#define TC__VM_TILE_MIN_LANES 512
/* Blocks of an output lane loop along a row loop on the generic path
   (tc__vm_items), whose items may run in any order: the statement reads
   not the tensor it writes, and each item reduces its own lanes. What
   tc__vm_plan_tile and tc__vm_plan_fold reorder. */
TC__PRIVATE int tc__vm_rows_free(const tc__vm_splan *sp) {
    return tc__vm_row_loop(sp) >= 0 && sp->lane >= 0 && !sp->lane_red && !sp->ew && !sp->wred &&
           !sp->ct && !sp->mk && !tc__vm_stmt_reads(sp->vs, sp->wt);
}
TC__PRIVATE void tc__vm_plan_tile(const tc_plan *P, tc__vm_splan *sp) {
    int row = tc__vm_row_loop(sp), rank = P->ir->tensors[sp->wt].rank, k;
    if (!tc__vm_rows_free(sp) || tc__vm_extent(sp, sp->lane) < TC__VM_TILE_MIN_LANES ||
        tc__vm_extent(sp, row) < 2)
        return;
    for (k = 0; k < sp->vs->n_reads; k++) {
        const tc__vm_rplan *rp = &sp->reads[k];
        int64_t ls = rp->lstride[sp->lane], line = 64 / (int64_t)tc_dtype_size(rp->st);
        if (!sp->vs->reads[k].gather && (ls >= line || ls <= -line) &&
            (rp->lstride[row] == 1 || rp->lstride[row] == -1))
            sp->tile = 1;
    }
    if (sp->lane < rank && P->ts[sp->wt][sp->lane] != 1 && P->ts[sp->wt][sp->lane] != -1 &&
        (P->ts[sp->wt][row] == 1 || P->ts[sp->wt][row] == -1))
        sp->tile = 1;
}

/* Rows shorter than a block, laid out one after the other in every tensor
   the statement touches (each steps along the row loop by the row's
   extent times its lane stride: NCHW's h and w), run several to a block,
   as one run of lanes: the interpreter's work per instruction is then
   shared by up to TC_BLOCK lanes, not W (Y(n,c,h,w) = (X(n,c,h,w) -
   m(c)) / sqrt(v(c) + 1e-5) * g(c) + b(c), 8x64x56x56, one thread:
   much faster). Only where nothing sees a lane's loop values but the affine
   reads and the write (no loop index as a value, no gather, no read
   checked lane by lane), on the generic path, the statement not reading
   the tensor it writes (a block computes all its lanes before any
   store). A read the same in every row (X(b,i,c) * sc(c) + of(c):
   sc and of step along the lanes, not the rows) repeats its row's lanes
   through the block (tc__vm_rplan.period); one the same along each row
   (cv(i) with lanes along j) gives each row's lanes its value
   (row_const: then not one lane for the block, tc__vm_one_lane). */
/* Every read steps from row to row by a whole row of ext lanes, or is the
   same in every row, or along each row. */
/* Read slot k is loaded under a mask (a ?: branch). */
TC__PRIVATE int tc__vm_read_masked(const tc__vm_stmt *vs, int k) {
    int i;
    for (i = 0; i < vs->n_ins; i++)
        if (vs->ins[i].op == TC_OP_LOAD && vs->ins[i].b == (unsigned)k && vs->ins[i].c != TC__VM_NONE) return 1;
    return 0;
}
/* A read that steps along the lanes by one element but from row to row by
   anything but a whole row (X(i+1, j) where the rows are W and the written
   ones W-1): its rows are copied one by one into the block (rp->gap),
   rows shorter than twice TC__VM_TILE_ROW_MIN lanes (shorter rows cost
   more in dispatch a row than a copy of them; longer ones are read in
   place, which measured faster from 256 lanes). Not under a mask, whose
   lanes a row-by-row copy would not check; and
   rows of the output only where no reduction loop runs inside the block,
   whose every step would copy them again (the steps fold instead,
   tc__vm_plan_fold_steps). */
TC__PRIVATE int tc__vm_read_gaps(const tc__vm_splan *sp, int k, int lane, int row, int64_t ext) {
    const int64_t *ls = sp->reads[k].lstride;
    return ls[lane] == 1 && ls[row] != ext && ls[row] != 0 && ext < 2 * TC__VM_TILE_ROW_MIN &&
           !tc__vm_read_masked(sp->vs, k) && (sp->n_red == 0 || sp->st->loops[row].reduction);
}
TC__PRIVATE int tc__vm_reads_fold(const tc__vm_splan *sp, int lane, int row, int64_t ext) {
    int k;
    for (k = 0; k < sp->vs->n_reads; k++) {
        const int64_t *ls = sp->reads[k].lstride;
        if (ls[row] != ext * ls[lane] && ls[row] != 0 && ls[lane] != 0 &&
            !tc__vm_read_gaps(sp, k, lane, row, ext))
            return 0;
    }
    return 1;
}
/* Folds rows of ext lanes into blocks: the reads the same in every row
   repeat it (period), those the same along a row take its value (row_const). */
TC__PRIVATE void tc__vm_fold_rows(tc__vm_splan *sp, int row, int64_t ext) {
    int k;
    for (k = 0; k < sp->vs->n_reads; k++) {
        if (sp->reads[k].lstride[row] == 0 && sp->reads[k].lstride[sp->lane] != 0)
            sp->reads[k].period = (int)ext;
        if (sp->reads[k].lstride[row] != 0 && sp->reads[k].lstride[sp->lane] == 0)
            sp->reads[k].row_const = (int)ext;
        if (tc__vm_read_gaps(sp, k, sp->lane, row, ext)) sp->reads[k].gap = (int)ext;
    }
    sp->fold = (int)(sp->blk / ext);
    sp->fold_ext = (int)ext;
    sp->fold_row = row;
}
TC__PRIVATE int64_t tc__vm_fold_at(const tc_plan *P, const tc__vm_splan *sp, int lane, int row) {
    const tc__vm_stmt *vs = sp->vs;
    int rank = P->ir->tensors[sp->wt].rank;
    int64_t ext;
    if (row < 0 || lane < 0 || lane >= rank || row >= rank || tc__vm_stmt_reads(vs, sp->wt)) return 0;
    ext = tc__vm_extent(sp, lane);
    if (ext < 1 || ext > sp->blk / 2 || P->ts[sp->wt][row] != ext * P->ts[sp->wt][lane] ||
        !tc__vm_only_affine(sp))
        return 0;
    return tc__vm_reads_fold(sp, lane, row, ext) ? ext : 0;
}
TC__PRIVATE int64_t tc__vm_fold_lanes(const tc_plan *P, const tc__vm_splan *sp) {
    return sp->lane_red ? 0 : tc__vm_fold_at(P, sp, sp->lane, tc__vm_row_loop(sp));
}
TC__PRIVATE void tc__vm_plan_fold(const tc_plan *P, tc__vm_splan *sp) {
    int64_t ext;
    if (!tc__vm_rows_free(sp) || sp->tile || sp->n_segs > 1 || !(ext = tc__vm_fold_lanes(P, sp))) return;
    tc__vm_fold_rows(sp, tc__vm_row_loop(sp), ext);
}

/* The value is its last instruction, one float + - or * that no fused
   chain takes, or fabs, of the value's dtype (float32, or also float64
   where f64 says so). */
TC__PRIVATE int tc__vm_last_op_fuses(const tc__vm_splan *sp, int f64) {
    const tc__vm_stmt *vs = sp->vs;
    const tc__vm_ins *last = vs->ins + vs->n_ins - 1;
    int k, at = vs->n_ins - 1, fabs_ = last->op == TC_OP_CALL && last->dt2 == TC_BUILTIN_FABS;
    if (at < vs->n_pro || last->a != vs->value ||
        (last->op != TC_OP_ADD && last->op != TC_OP_SUB && last->op != TC_OP_MUL && !fabs_) ||
        last->dt != vs->vdt || (vs->vdt != TC_FLOAT32 && (!f64 || vs->vdt != TC_FLOAT64)))
        return 0;
    for (k = 0; vs->chain && k <= at; k++)
        if (vs->chain[k] && k + vs->chain[k] > at) return 0; /* a chain's link: its pass makes it */
    return 1;
}
/* A sum with its accumulator along an output loop (type A, tc__vm_block)
   whose value is its last instruction, one float32 or float64 + - or *
   that no fused chain takes, or fabs: the op and the sum's step run as one
   pass (tc__vm_exec_acc). A filter's X(i + k) * w(k), a norm's P(i,c) * P(i,c). */
TC__PRIVATE void tc__vm_plan_acc_op(tc__vm_splan *sp) {
    sp->acc_op = !sp->lane_red && sp->n_red > 0 && sp->st->reduce == TC_REDUCE_SUM && tc__vm_last_op_fuses(sp, 1);
}

/* A float32 reduction along the lanes, on the bytecode (not the
   element-wise kernels), of any operator, whose value is such an op
   (fabs(X(i,j)), X(i,k) * X(i,k)): the op runs as the reduction's pass
   (tc__k_rows_op) instead of a pass of its own. */
TC__PRIVATE void tc__vm_plan_lane_op(tc__vm_splan *sp) {
    tc_reduce r = sp->st->reduce;
    sp->lane_op = sp->lane_red && !sp->ew &&
                  (r == TC_REDUCE_SUM || r == TC_REDUCE_PROD || r == TC_REDUCE_MIN || r == TC_REDUCE_MAX) &&
                  tc__vm_last_op_fuses(sp, 0);
}

/* A reduction along short rows (O(i,j) max=! X(i,j,k), k the lanes, fewer
   than half a block of them): the rows of the loop outside it, laid out
   one after the other, run several to a block as for tc__vm_plan_fold,
   and each row's lanes are then reduced on their own, in the order of
   tc__vm_lane_reduce (the same partials and fold; a row's value does not
   depend on the rows it shares a block with). Only where the lane loop
   is the one reduction loop (sp->red, the others, is empty), and for the
   conditions of tc__vm_plan_fold otherwise (the rows free to run in any
   order, only affine reads). */
/* The rows' length where such rows fold, of at most `most` lanes; else 0. */
TC__PRIVATE int64_t tc__vm_red_rows_fold(const tc__vm_splan *sp, int64_t most) {
    int row = tc__vm_row_loop(sp);
    int64_t ext = sp->lane >= 0 ? tc__vm_extent(sp, sp->lane) : 0;
    if (!sp->lane_red || sp->n_red != 0 || row < 0 || tc__vm_stmt_reads(sp->vs, sp->wt) ||
        !tc__vm_only_affine(sp) || ext < 1 || ext > most || !tc__vm_reads_fold(sp, sp->lane, row, ext))
        return 0;
    return ext;
}
TC__PRIVATE void tc__vm_plan_fold_red(tc__vm_splan *sp) {
    int64_t ext;
    if (sp->ew || sp->wred || sp->ct || sp->mk || sp->tile || sp->n_segs > 1) return;
    if ((ext = tc__vm_red_rows_fold(sp, sp->blk / 2)) != 0) tc__vm_fold_rows(sp, tc__vm_row_loop(sp), ext);
}

/* A reduction along the loops inside the block (type A) over rows of at
   most half a block, whose innermost reduction loop every read steps by a
   whole row of lanes or not at all (O(i,k) max=! fabs(X(i,j,k)), lanes
   along k, j the steps): that loop's steps run several to a block as one
   run of lanes, folded as tc__vm_fold_rows folds rows, and each step's
   lanes then go into the accumulator in order (tc__vm_fold_steps_block),
   as step after step would: the same values, with the interpreter's work
   shared by the steps. Only on the generic path, with every lane of the
   loop in one block, only affine reads, and not reading the tensor it
   writes. */
TC__PRIVATE void tc__vm_plan_fold_steps(tc__vm_splan *sp) {
    int j;
    int64_t ext;
    if (sp->lane < 0 || sp->lane_red || sp->n_red == 0 || sp->fold || sp->ew || sp->wred || sp->ct ||
        sp->mk || sp->tile || sp->n_segs > 1 || sp->n_blocks != 1 || tc__vm_stmt_reads(sp->vs, sp->wt) ||
        !tc__vm_only_affine(sp))
        return;
    j = sp->red[sp->n_red - 1];
    ext = tc__vm_extent(sp, sp->lane);
    if (ext < 1 || ext > sp->blk / 2 || tc__vm_extent(sp, j) < 2 || !tc__vm_reads_fold(sp, sp->lane, j, ext))
        return;
    tc__vm_fold_rows(sp, j, ext);
    sp->fold_steps = sp->fold;
    sp->fold = 0;
    sp->acc_op = 0; /* the steps' values are made in one run, then summed step by step */
}

TC__PRIVATE tc_status tc__vm_plan_stmt(tc_plan *P, int s, tc_error *err) {
    tc__vm_splan *sp = &P->stmts[s];
    const tc_ir_stmt *st = &P->ir->stmts[s];
    int l, n = st->n_loops;
    tc_status rc;
    sp->vs = &P->vm->stmts[s];
    sp->st = st;
    sp->n_loops = n;
    sp->blk = TC_BLOCK; /* until the lane loop is known (tc__vm_plan_order) */
    sp->wt = st->tensor;
    sp->lo = (int64_t *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int64_t));
    sp->hi = (int64_t *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int64_t));
    sp->outer = (int *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int));
    sp->red = (int *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int));
    sp->reads = (tc__vm_rplan *)tc__plan_alloc(P, (size_t)sp->vs->n_reads + 1, sizeof(tc__vm_rplan));
    if (!sp->lo || !sp->hi || !sp->outer || !sp->red || !sp->reads)
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    for (l = 0; l < n; l++) {
        sp->lo[l] = P->sx[st->loops[l].lo];
        sp->hi[l] = P->sx[st->loops[l].hi];
        if (sp->hi[l] <= sp->lo[l] && !st->loops[l].reduction) sp->empty = 1;
        if (sp->hi[l] <= sp->lo[l]) sp->any_empty = 1;
    }
    if ((rc = tc__vm_check_index_values(P, st, sp->lo, sp->hi, err)) != TC_OK) return rc;
    for (l = 0; l < sp->vs->n_reads; l++)
        if ((rc = tc__vm_plan_read(P, sp, l, err)) != TC_OK) return rc;
    if (sp->wt >= P->ir->n_inputs && sp->wt < P->ir->n_inputs + P->ir->n_outputs &&
        P->ip_ready[sp->wt - P->ir->n_inputs] && tc__vm_first_writer(P->ir, sp->wt) == s) {
        sp->inplace = 1; /* its reads of the inputs it may write over: copied into registers */
        for (l = 0; l < sp->vs->n_reads; l++)
            if (sp->reads[l].tensor < P->ir->n_inputs &&
                tc__vm_inplace_kind(P, sp->wt - P->ir->n_inputs, sp->reads[l].tensor) == 1)
                sp->reads[l].copy = 1;
    }
    /* the written range is inside the written tensor: tc_bind_sizes checked it */
    tc__vm_plan_init(P, sp); /* on the written ranges as inferred, before any merge */
    tc__vm_plan_collapse(P, sp);
    tc__vm_plan_coalesce(P, sp);
    sp->lane = tc__vm_pick_lane(P, sp);
    tc__vm_plan_order(P, sp);
    tc__vm_plan_direct(P, sp);
    tc__vm_plan_prefetch(P, sp);
    /* rows of up to a quarter block that fold (tc__vm_plan_fold) run a
       block of several of them at once; the element-wise kernels would
       take a call for each, which costs more than the fused pass saves
       until a row fills a good part of a block */
    if (sp->lane < 0 || tc__vm_extent(sp, sp->lane) > TC_BLOCK / 4 ||
        (!tc__vm_fold_lanes(P, sp) && !(sp->vs->vdt == TC_FLOAT32 && tc__vm_red_rows_fold(sp, TC_BLOCK / 4))))
        tc__vm_plan_ew(sp);
    tc__vm_plan_stream_chain(sp);
    tc__vm_plan_stream_div(sp);
    if (!sp->inplace && !tc__vm_plan_engine(P, sp)) tc__vm_plan_contract(P, sp);
    if (!sp->inplace) tc__vm_plan_wred(P, sp);
    tc__vm_plan_tile(P, sp);
    if ((rc = tc__vm_plan_segments(P, sp, err)) != TC_OK) return rc;
    tc__vm_plan_fold(P, sp);
    tc__vm_plan_fold_red(sp);
    tc__vm_plan_acc_op(sp);
    tc__vm_plan_lane_op(sp);
    tc__vm_plan_fold_steps(sp);
    return TC_OK;
}

/* ---- execution ------------------------------------------------------------ */

/* Sets idx[] for the loops in `loops` to their lower bounds; returns 0 when
   one of them is empty. */
TC__PRIVATE int tc__vm_odo_start(const tc__vm_splan *sp, const int *loops, int n, int64_t *idx) {
    int k;
    for (k = 0; k < n; k++) {
        if (sp->hi[loops[k]] <= sp->lo[loops[k]]) return 0;
        idx[loops[k]] = sp->lo[loops[k]];
    }
    return 1;
}
/* Advances the odometer (last loop fastest); 0 when it wraps around. */
TC__PRIVATE int tc__vm_odo_next(const tc__vm_splan *sp, const int *loops, int n, int64_t *idx) {
    int k;
    for (k = n - 1; k >= 0; k--) {
        int l = loops[k];
        if (++idx[l] < sp->hi[l]) return 1;
        idx[l] = sp->lo[l];
    }
    return 0;
}

/* The written tensor's element at the current loop values. */
TC__PRIVATE unsigned char *tc__vm_write_ptr(const tc__vm_run *R) {
    const tc_plan *P = R->P;
    int wt = R->sp->wt, d, rank = P->ir->tensors[wt].rank;
    int64_t off = 0;
    for (d = 0; d < rank; d++) off += R->T->idx[d] * P->ts[wt][d];
    return R->T->ptr[wt] + off * (int64_t)tc_dtype_size(P->ir->tensors[wt].dtype);
}

TC__PRIVATE void tc__vm_store(tc__vm_run *R, tc_reduce red, const void *v, int n) {
    const tc_plan *P = R->P;
    int wt = R->sp->wt, rank = P->ir->tensors[wt].rank;
    int64_t stride = 0;
    if (R->sp->lane >= 0 && R->sp->lane < rank) stride = P->ts[wt][R->sp->lane];
    tc__k_store(P->ir->tensors[wt].dtype, red, tc__vm_write_ptr(R), stride, v, n);
}

/* Window reduction of one block: acc (r)= the read at each reduction step,
   at element offset off (the loop values' part) + the table's (the
   reduction loops' part) from base. With z (the identity), acc's contents
   are not read: it starts at z. */
TC__PRIVATE void tc__vm_wred(const tc__vm_splan *sp, void *acc, const unsigned char *base,
                             int64_t off, int n, const void *z, const void *divisor) {
    int64_t esz = (int64_t)tc_dtype_size(sp->vs->vdt), t;
    if (sp->wred_pair) { /* steps t, t+1 are a pair (the table's innermost loop); two pairs a pass */
        for (t = 0; t < sp->mk_T; t += 4)
            tc__k_reduce_pair(sp->vs->vdt, sp->st->reduce, acc, base + (off + sp->mk_ox[t]) * esz,
                              t + 2 < sp->mk_T ? base + (off + sp->mk_ox[t + 2]) * esz : NULL,
                              t == 0 ? z : NULL, n);
        return;
    }
    if (z) tc__k_fill((size_t)esz, acc, z, n);
    for (t = 0; t < sp->mk_T; t++) {
        const unsigned char *p = base + (off + sp->mk_ox[t]) * esz;
        if (divisor)
            tc__k_reduce_mem_scaled(sp->vs->vdt, sp->wred_op, acc, p, sp->reads[0].lstride[sp->lane],
                                    divisor, n);
        else
            tc__k_reduce_mem(sp->vs->vdt, sp->st->reduce, acc, p, sp->reads[0].lstride[sp->lane], n);
    }
}

/* `rows` consecutive values of the row loop (the last outer loop) from the
   loop values idx, lanes [idx[lane], +n): the read and write offsets step
   by the row loop's strides. Direct 2x2 and 2x1 windows are one kernel
   call for all the rows; others go a row at a time. */
TC__PRIVATE void tc__vm_wred_rows(tc__vm_run *R, const unsigned char *id, int rows, int n) {
    const tc__vm_splan *sp = R->sp;
    const tc_plan *P = R->P;
    const tc__vm_rplan *rp = &sp->reads[0];
    const unsigned char *src = R->T->ptr[rp->tensor];
    const int64_t *ts = P->ts[sp->wt], *idx = R->T->idx;
    tc_dtype vdt = sp->vs->vdt;
    int64_t esz = (int64_t)tc_dtype_size(vdt), roff = rp->c0, woff = 0, rs = 0, ws = 0;
    int64_t wsz = (int64_t)tc_dtype_size(P->ir->tensors[sp->wt].dtype); /* float16: not vdt */
    int k, row = tc__vm_row_loop(sp);
    void *acc = TC__VM_REG(R->T, sp->vs->n_regs);
    const void *divisor = sp->wred_divisor != TC__VM_NONE ? R->T->rp[sp->wred_divisor] : NULL;
    for (k = 0; k < sp->n_loops; k++) {
        if (!sp->st->loops[k].reduction) roff += rp->lstride[k] * idx[k]; /* the table: the rest */
        if (k < P->ir->tensors[sp->wt].rank) woff += ts[k] * idx[k];
    }
    roff += sp->mk_x0;
    if (row >= 0) {
        rs = rp->lstride[row];
        ws = ts[row];
    }
    if (sp->wred_direct && sp->wred_pair && sp->mk_T <= 4) {
        int64_t qo = sp->mk_T == 4 ? sp->mk_ox[2] - sp->mk_ox[0] : 0;
        tc__k_reduce_pair_rows(vdt, sp->st->reduce, R->T->ptr[sp->wt] + woff * esz, ws,
                               src + (roff + sp->mk_ox[0]) * esz, rs, sp->mk_T == 4 ? &qo : NULL,
                               id, rows, n, sp->stream);
        return;
    }
    for (k = 0; k < rows; k++) {
        unsigned char *dst = R->T->ptr[sp->wt] + (woff + k * ws) * wsz;
        if (sp->wred_direct) {
            tc__vm_wred(sp, dst, src, roff + k * rs, n, id, NULL);
            continue;
        }
        tc__k_fill((size_t)esz, acc, id,
                   (n + 15) / 16 * 16 < TC_BLOCK ? (n + 15) / 16 * 16 : TC_BLOCK);
        tc__vm_wred(sp, acc, src, roff + k * rs, n, NULL, divisor);
        tc__k_store(P->ir->tensors[sp->wt].dtype, sp->fused ? TC_REDUCE_ASSIGN : sp->st->reduce,
                    dst, ts[sp->lane], acc, n);
    }
}

#define TC__VM_WRED_ROWS 4096 /* rows a call, at most (a bound for int counts) */

/* Sets the outer loops' values of item `first` (blocks of the lane loop
   fastest, or where it reduces, its segments; then the outer loops, last
   fastest); returns its block or segment. */
TC__PRIVATE int64_t tc__vm_item_start(const tc__vm_splan *sp, int64_t first, int64_t *idx) {
    int64_t per = sp->lane_red ? sp->n_segs : sp->n_blocks, rest = first / per;
    int k;
    for (k = sp->n_outer - 1; k >= 0; k--) {
        int l = sp->outer[k];
        int64_t e = tc__vm_extent(sp, l);
        idx[l] = sp->lo[l] + rest % e;
        rest /= e;
    }
    return first % per;
}

/* Window-reduction items [first, last) (as tc__vm_items numbers them: the
   outer loops, then the lane loop's blocks), no bytecode. Pooling's rows
   are short (56 lanes), so per-row work would weigh as much as the loads:
   when a row is one block, consecutive items along the row loop go
   together to tc__vm_wred_rows. */
TC__PRIVATE void tc__vm_wred_items(tc__vm_run *R, int64_t first, int64_t last) {
    const tc__vm_splan *sp = R->sp;
    int64_t it = first, *idx = R->T->idx, blk = tc__vm_item_start(sp, first, idx);
    int n, row = tc__vm_row_loop(sp);
    unsigned char id[8];
    tc__vm_identity(sp->vs->vdt, sp->st->reduce, id);
    if (sp->wred_divisor != TC__VM_NONE) tc__vm_prologue(R); /* the divisor */
    while (it < last) {
        int64_t run = 1;
        idx[sp->lane] = sp->lo[sp->lane] + blk * sp->blk;
        n = sp->hi[sp->lane] - idx[sp->lane] < sp->blk ? (int)(sp->hi[sp->lane] - idx[sp->lane])
                                                        : sp->blk;
        if (sp->n_blocks == 1 && row >= 0) { /* to the row loop's end or the last item */
            run = sp->hi[row] - idx[row] < last - it ? sp->hi[row] - idx[row] : last - it;
            if (run > TC__VM_WRED_ROWS) run = TC__VM_WRED_ROWS;
        }
        tc__vm_wred_rows(R, id, (int)run, n);
        it += run;
        if (row >= 0) idx[row] += run - 1; /* the last row done; the odometer steps past it */
        if (++blk < sp->n_blocks) continue;
        blk = 0;
        tc__vm_odo_next(sp, sp->outer, sp->n_outer, idx);
    }
}

/* The chain from `op` divides first by a lane-uniform value (layernorm's
   d / sqrt(var + eps) * g + b): that link goes to the scalar kernels, which
   divide without a division per lane (tc__k_div_uni_f32), the rest to the
   chain kernel. */
TC__PRIVATE int tc__vm_ew_split(const tc__vm_thread *T, const tc__vm_ins *op, const tc__vm_ins *last) {
    return op != last && op->op == TC_OP_DIV && (T->uni[op->c] & TC__VM_UNI) &&
           !(T->uni[op->b] & TC__VM_UNI);
}

/* A row-uniform instruction of the element-wise path that C computes as
   the kernels would (float + - * / min max, sqrt: all correctly rounded),
   on lane 0, without the dispatch of tc__vm_exec_range (layernorm's
   sqrt(var + eps), once a row). 0: not such an instruction. */
#define TC__VM_UNI_SCALAR(sfx, T)                                                            \
    do {                                                                                     \
        T x, y = 0, z;                                                                       \
        memcpy(&x, rp[in->b], sizeof x);                                                     \
        if (in->op != TC_OP_CALL) memcpy(&y, rp[in->c], sizeof y);                            \
        switch ((tc_opcode)in->op) {                                                         \
        case TC_OP_ADD: z = tc__e_add_##sfx(x, y); break;                                    \
        case TC_OP_SUB: z = tc__e_sub_##sfx(x, y); break;                                    \
        case TC_OP_MUL: z = tc__e_mul_##sfx(x, y); break;                                    \
        case TC_OP_DIV: z = tc__e_div_##sfx(x, y); break;                                    \
        case TC_OP_MIN: z = tc__e_min_##sfx(x, y); break;                                    \
        case TC_OP_MAX: z = tc__e_max_##sfx(x, y); break;                                    \
        default: z = f32 ? (T)sqrtf((float)x) : (T)sqrt((double)x); break; /* sqrt */        \
        }                                                                                    \
        memcpy(d, &z, sizeof z);                                                             \
    } while (0)
TC__PRIVATE int tc__vm_uniform_scalar(tc__vm_thread *T, const tc__vm_ins *in) {
    void *const *rp = T->rp;
    void *d = TC__VM_REG(T, in->a);
    int f32 = in->dt == TC_FLOAT32;
    if (in->dt != TC_FLOAT32 && in->dt != TC_FLOAT64) return 0;
    if (in->op == TC_OP_CALL ? in->dt2 != TC_BUILTIN_SQRT : in->op < TC_OP_ADD || in->op > TC_OP_MAX ||
                                                               in->op == TC_OP_MOD)
        return 0;
    if (f32) TC__VM_UNI_SCALAR(f32, float);
    else TC__VM_UNI_SCALAR(f64, double);
    T->rp[in->a] = d;
    T->uni[in->a] = (unsigned char)(TC__VM_UNI | tc_dtype_size((tc_dtype)in->dt));
    return 1;
}
#undef TC__VM_UNI_SCALAR

/* The first element of the row a run of the element-wise path writes:
   after the first of a batch (tc__vm_ew_items), the last one's plus a row's
   step; in a row group run row by row, from the row's offsets. */
TC__PRIVATE unsigned char *tc__vm_ew_row_ptr(tc__vm_run *R) {
    const tc_plan *P = R->P;
    int wt = R->sp->wt, row;
    if (R->by_row) return R->T->ptr[wt] + R->sp->w_off + R->T->idx[0] * R->sp->w_step;
    if (!R->next_row) return R->w_row = tc__vm_write_ptr(R);
    row = tc__vm_row_loop(R->sp); /* exists on a next row */
    if (row < P->ir->tensors[wt].rank)
        R->w_row += P->ts[wt][row] * (int64_t)tc_dtype_size(P->ir->tensors[wt].dtype);
    return R->w_row;
}

/* The sources of the op [op, last] of the element-wise path, by which of
   its registers are lane-uniform (T->uni): those it reads as rows, into src
   (*ns of them), and a last operand it takes as a scalar, returned (or
   TC__VM_NONE). */
TC__PRIVATE unsigned tc__vm_ew_operands(const tc__vm_thread *T, const tc__vm_ins *op, const tc__vm_ins *last,
                                        unsigned *src, int *ns) {
    const tc__vm_ins *in;
    unsigned scalar = TC__VM_NONE;
    int n = 0;
    src[n++] = op->b;
    for (in = op; in <= last; in++)
        if (in == op ? !tc__vm_ew_split(T, op, last) : in->c != op->a) /* not the square's own value */
            src[n++] = in->c;
    if (T->uni[src[n - 1]] & TC__VM_UNI && (op != last || tc__k_arith_uniform_ok(op->op, (tc_dtype)op->dt)))
        scalar = src[--n];
    if (op == last && scalar == TC__VM_NONE && (T->uni[op->b] & TC__VM_UNI) &&
        tc__k_arith_uniform_ok(op->op, (tc_dtype)op->dt)) {
        scalar = op->b; /* 2 - x: a scalar first operand */
        src[0] = op->c;
    }
    *ns = n;
    return scalar;
}

/* A load of the element-wise path from its row's first element p: a
   pointer into the tensor, or for one value a row (its mean) lane 0. */
TC__PRIVATE void tc__vm_ew_load(tc__vm_thread *T, unsigned a, const unsigned char *p, int uniform,
                                size_t esz) {
    if (uniform) {
        T->rp[a] = TC__VM_REG(T, a);
        if (esz == 4) memcpy(T->rp[a], p, 4); /* a move, not a call */
        else if (esz == 8) memcpy(T->rp[a], p, 8);
        else memcpy(T->rp[a], p, esz);
        T->uni[a] = (unsigned char)(TC__VM_UNI | esz);
    } else {
        T->rp[a] = (void *)(uintptr_t)p; /* read only */
        T->uni[a] = 0;
    }
}

/* The instructions before the op of the element-wise path that are not
   loads work on row-uniform values: on lane 0. */
TC__PRIVATE void tc__vm_ew_uniform_step(tc__vm_run *R, const tc__vm_ins *in) {
    if (!tc__vm_uniform_scalar(R->T, in)) tc__vm_exec_range(R, in, in + 1, 1);
}

/* Sets up a run of the element-wise fast path at the loop values in idx:
   contiguous loads become pointers into the tensors, row-uniform loads and
   the instructions on them run on one lane, and the uniform values the op
   reads are spread over the first `n` lanes, but for a last operand the op
   takes as a scalar. Returns that scalar's register, or TC__VM_NONE. */
TC__PRIVATE unsigned tc__vm_ew_setup(tc__vm_run *R, const tc__vm_ins *op, const tc__vm_ins *last,
                                     int n) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_stmt *vs = sp->vs;
    tc__vm_thread *T = R->T;
    const tc__vm_ins *in;
    size_t esz = tc_dtype_size(vs->vdt);
    unsigned src[4], scalar;
    int ns, k;
    for (in = vs->ins + vs->n_pro; in < op; in++) {
        const tc__vm_rplan *rp;
        const unsigned char *p;
        if (in->op != TC_OP_LOAD) {
            tc__vm_ew_uniform_step(R, in);
            continue;
        }
        rp = &sp->reads[in->b];
        k = (int)(in - vs->ins);
        if (R->next_row) /* a batch's rows step along the row loop, which exists then */
            p = T->rowp[k] += rp->lstride[tc__vm_row_loop(sp)] * (int64_t)esz;
        else
            p = T->rowp[k] = T->ptr[rp->tensor] + tc__vm_read_offset(sp, rp, T->idx) * (int64_t)esz;
        tc__vm_ew_load(T, in->a, p, rp->lstride[sp->lane] == 0, esz);
    }
    if (op == vs->ins + vs->n_ins) return TC__VM_NONE; /* a bare load */
    scalar = tc__vm_ew_operands(T, op, last, src, &ns);
    for (k = 0; k < ns; k++) /* every run: the last one may have filled fewer lanes */
        if (T->uni[src[k]] & TC__VM_UNI) {
            tc__k_fill(tc_dtype_size((tc_dtype)op->dt), T->rp[src[k]], T->rp[src[k]], n);
            T->uni[src[k]] = TC__VM_UNI;
        }
    return scalar;
}

/* The same for row T->idx[0] of a row group run row by row, where the op
   reads no uniform value but its scalar, so nothing is spread
   (tc__vm_plan_row_stmt): the loads and steps on uniform values planned
   for it, each load's pointer the tensor's plus its row's offset (in the
   statement's registers f; uniform_only: not the loads of rows, which
   tc__vm_row_call reads from their pointers). */
TC__PRIVATE void tc__vm_row_steps(tc__vm_run *R, const tc__vm_regfile *f, int uniform_only) {
    const tc__vm_splan *sp = R->sp;
    size_t esz = tc_dtype_size(sp->vs->vdt);
    int64_t i = R->T->idx[0];
    int k;
    for (k = 0; k < sp->n_rsteps; k++) {
        const tc__vm_rowstep *s = &sp->rsteps[k];
        if (s->tensor < 0) tc__vm_ew_uniform_step(R, s->in);
        else if (s->uniform || !uniform_only)
            tc__vm_ew_load(R->T, s->in->a, f->row0[k] + i * f->step[k], s->uniform, esz);
    }
}
TC__PRIVATE unsigned tc__vm_row_setup(tc__vm_run *R) {
    tc__vm_row_steps(R, &R->T->own[R->sp - R->P->stmts], 0);
    return R->sp->row_scalar;
}

/* The chain code of links [op, last], two or three (last_op: the last one's). */
TC__PRIVATE int tc__vm_ew_chain_code(const tc__vm_ins *op, const tc__vm_ins *last, int last_op) {
    return tc__k_chain_code(op->op, op + 2 == last ? op[1].op : last_op, op + 2 == last ? last_op : -1);
}
/* Links [op, last] of a chain on n lanes into d (float32; one link: a
   binary op of its own dtype); the last link's operand is the scalar *s
   when s is set. */
TC__PRIVATE void tc__vm_ew_links(const void *const *rp, const tc__vm_ins *op, const tc__vm_ins *last,
                                 int last_op, const void *a, const float *s, void *d, int n, int nt) {
    if (op == last && s) tc__k_arith_uniform(last_op, TC_FLOAT32, d, a, s, 0, n);
    else if (op == last) tc__k_arith(last_op, (tc_dtype)op->dt, d, a, rp[op->c], n);
    else
        (nt ? tc__k_chain_nt_f32 : tc__k_chain_f32)(
            tc__vm_ew_chain_code(op, last, last_op), (float *)d, (const float *)a,
            (const float *)rp[op->c], (const float *)rp[op[1].c],
            op + 2 == last ? (const float *)rp[op[2].c] : NULL, s, n);
}

/* A float32 chain [op, last] of two or three links that divides by a
   lane-uniform value first (the divisor op's operand) or last (the scalar
   *t, then required), in one pass (tc__k_chain_div_uni_f32). The other
   links' ops are as given (last_op: the last one's, a power-of-two divisor
   already a multiplication); t, when dividing first: the last link's
   scalar, or NULL. 0 where the kernel declines. The call when dividing
   first (tc__vm_ew_split_call; 0: not such a chain), then the run. */
TC__PRIVATE int tc__vm_ew_split_call(const tc__vm_ins *op, const tc__vm_ins *last, int last_op, tc__vm_rowcall *c) {
    const tc__vm_ins *mid = op + 1 < last ? op + 1 : NULL; /* a middle link */
    if (op->dt != TC_FLOAT32 || op == last || last > op + 2) return 0;
    c->kind = TC__VM_CALL_DIV;
    c->code = mid ? tc__k_chain_code(mid->op, last_op, -1) : tc__k_chain_code(last_op, -1, -1);
    c->reg[0] = op->b;
    c->s_reg = op->c;
    c->reg[1] = op[1].c;
    c->reg[2] = mid ? last->c : TC__VM_NONE;
    return 1;
}
TC__PRIVATE int tc__vm_ew_div_chain(const tc__vm_thread *T, const tc__vm_ins *op, const tc__vm_ins *last,
                                    int last_op, int divide_last, const float *t, void *d, int n, int nt) {
    const void *const *rp = (const void *const *)T->rp;
    const tc__vm_ins *mid = op + 1 < last ? op + 1 : NULL;
    tc__vm_rowcall c;
    float s;
    if (op->dt != TC_FLOAT32 || op == last || last > op + 2) return 0;
    if (divide_last)
        return tc__k_chain_div_uni_f32(tc__k_chain_code(op->op, mid ? mid->op : -1, -1), 1, (float *)d,
                                       (const float *)rp[op->b], *t, (const float *)rp[op->c],
                                       mid ? (const float *)rp[mid->c] : NULL, NULL, n, nt);
    tc__vm_ew_split_call(op, last, last_op, &c);
    memcpy(&s, rp[c.s_reg], sizeof s);
    return tc__k_chain_div_uni_f32(c.code, 0, (float *)d, (const float *)rp[c.reg[0]], s,
                                   (const float *)rp[c.reg[1]],
                                   c.reg[2] != TC__VM_NONE ? (const float *)rp[c.reg[2]] : NULL, t, n, nt);
}

/* The scalar of a chain's last link, into *sv (NULL when there is none),
   and that link's op: dividing by a power of two, multiplying by its
   reciprocal. */
TC__PRIVATE const float *tc__vm_ew_last_scalar(const tc__vm_thread *T, const tc__vm_ins *last, unsigned scalar,
                                               int *last_op, float *sv) {
    *last_op = last->op;
    if (scalar == TC__VM_NONE) return NULL;
    memcpy(sv, T->rp[scalar], sizeof *sv);
    if (*last_op == TC_OP_DIV && tc__pow2_reciprocal_f32(sv)) *last_op = TC_OP_MUL;
    return sv;
}

/* A chain that divides first by a lane-uniform value (tc__vm_ew_split) in
   one pass on n lanes into d; 0 where the kernel declines. */
TC__PRIVATE int tc__vm_ew_split_chain(const tc__vm_thread *T, const tc__vm_ins *op, const tc__vm_ins *last,
                                      unsigned scalar, void *d, int n, int nt) {
    int last_op;
    float sv;
    const float *t = tc__vm_ew_last_scalar(T, last, scalar, &last_op, &sv);
    return tc__vm_ew_div_chain(T, op, last, last_op, 0, t, d, n, nt);
}

/* a op s on n float32 lanes into d, streamed (softmax's e / s): a
   division as (a / s) * 1, which is exact, by the chain kernel that makes
   the quotient's lines in registers; a power-of-two divisor as its
   reciprocal. */
TC__PRIVATE void tc__vm_uni_nt_f32(int op, float *d, const float *a, float s, int n) {
    float one = 1.0f;
    if (op == TC_OP_DIV && tc__pow2_reciprocal_f32(&s)) op = TC_OP_MUL;
    if (op == TC_OP_DIV &&
        tc__k_chain_div_uni_f32(tc__k_chain_code(TC_OP_MUL, -1, -1), 0, d, a, s, NULL, NULL, &one, n, 1))
        return;
    tc__k_chain_nt_f32(tc__k_chain_code(op, -1, -1), d, a, NULL, NULL, NULL, &s, n);
}

/* The op of the element-wise fast path on n lanes into d: a fused chain or
   one binary op; `scalar` is a lane-uniform operand taken as a scalar; tmp
   is a scratch register. A uniform divisor divides without a division per
   lane where it can: a power of two as its reciprocal; one op on the
   scalar kernels (tc__k_div_uni_f32); a chain's first or last link in the
   chain's one pass (tc__k_chain_div_uni_f32: the stencil's (a + b + c) /
   3, where two passes measured slower than dividing). With nt, a
   chain's stores stream (one op's are plain ones). */
TC__PRIVATE void tc__vm_ew_op(const tc__vm_thread *T, const tc__vm_ins *op, const tc__vm_ins *last,
                              unsigned scalar, void *d, void *tmp, int n, int nt) {
    const void *const *rp = (const void *const *)T->rp;
    const float *t; /* the last link's scalar */
    int last_op;
    float sv;
    if (op == last && scalar != TC__VM_NONE) { /* also a scalar first operand: 2 - x */
        if (nt && scalar != op->b && op->dt == TC_FLOAT32 && tc__k_arith_uniform_ok(op->op, TC_FLOAT32)) {
            memcpy(&sv, rp[scalar], sizeof sv);
            tc__vm_uni_nt_f32(op->op, (float *)d, (const float *)rp[op->b], sv, n);
            return;
        }
        tc__k_arith_uniform(op->op, (tc_dtype)op->dt, d, rp[scalar == op->b ? op->c : op->b],
                            rp[scalar], scalar == op->b, n);
        return;
    }
    t = tc__vm_ew_last_scalar(T, last, scalar, &last_op, &sv);
    if (tc__vm_ew_split(T, op, last)) { /* d / sqrt(var + eps) * g + b */
        if (tc__vm_ew_div_chain(T, op, last, last_op, 0, t, d, n, nt)) return;
        tc__k_arith_uniform(TC_OP_DIV, TC_FLOAT32, tmp, rp[op->b], rp[op->c], 0, n);
        tc__vm_ew_links(rp, op + 1, last, last_op, tmp, t, d, n, nt);
        return;
    }
    if (last_op == TC_OP_DIV && t && tc__vm_ew_div_chain(T, op, last, last_op, 1, t, d, n, nt))
        return; /* (a + b + c) / 3 */
    tc__vm_ew_links(rp, op, last, last_op, rp[op->b], t, d, n, nt); /* one pass, divided */
}

/* A reduction along the lanes (type B): the partials it keeps
   (tc__k_reduce_lanes), and (tc__vm_lane_store) their fold stored as the
   output element. */
TC__PRIVATE int tc__vm_lane_width(const tc__vm_splan *sp) {
    int64_t ext = tc__vm_extent(sp, sp->lane);
    return ext < TC__VM_RED_LANES ? (int)ext : TC__VM_RED_LANES;
}

/* A float32 reduction on the element-wise path in one pass over the row,
   with no block of values in between (tc__k_chain_reduce_f32): its value a
   bare load (any reduction), or for a sum one + - * / or a pair of a
   chain, every operand a row in memory or the scalar. 0: not such a run;
   1: run, acc holds the partials; 2: run and folded, acc[0] the value. */
TC__PRIVATE int tc__vm_ew_reduce_row_ok(const tc__vm_splan *sp, const tc__vm_thread *T, const tc__vm_ins *op,
                                        const tc__vm_ins *last, unsigned scalar) {
    if (sp->vs->vdt != TC_FLOAT32 || sp->ew_call) return 0;
    if (op == sp->vs->ins + sp->vs->n_ins) return 1; /* a bare load */
    if (tc__vm_ew_square(op, last)) /* its scalar, if any, is op->c */
        return sp->st->reduce == TC_REDUCE_SUM && !(T->uni[op->b] & TC__VM_UNI) &&
               (scalar == op->c || !(T->uni[op->c] & TC__VM_UNI));
    if (sp->st->reduce != TC_REDUCE_SUM || op->dt != TC_FLOAT32 || last > op + 1 ||
        T->uni[op->b] || scalar == op->b || tc__vm_ew_split(T, op, last))
        return 0;
    if (op->op < TC_OP_ADD || op->op > TC_OP_DIV || last->op < TC_OP_ADD || last->op > TC_OP_DIV) return 0;
    if (op != last && T->uni[op->c]) return 0;
    return scalar == last->c || !T->uni[last->c];
}
/* ... its call, where tc__vm_ew_reduce_row_ok says it may be (0: the
   scalar's value declines it), and the run. */
TC__PRIVATE int tc__vm_ew_reduce_call(const tc__vm_thread *T, const tc__vm_splan *sp, const tc__vm_ins *op,
                                      const tc__vm_ins *last, unsigned scalar, tc__vm_rowcall *c) {
    int last_op;
    c->kind = TC__VM_CALL_REDUCE;
    c->reg[0] = op->b;
    c->reg[1] = c->reg[2] = TC__VM_NONE;
    c->has_t = 0;
    if (op == sp->vs->ins + sp->vs->n_ins) { /* a bare load */
        c->code = TC__FXR_BARE;
        c->reg[0] = last->a;
        return 1;
    }
    if (tc__vm_ew_square(op, last)) {
        c->code = TC__FXR_SQUARE + op->op - TC_OP_ADD;
        c->has_t = scalar == op->c; /* (a op s) squared */
        if (c->has_t) memcpy(&c->t, T->rp[op->c], sizeof c->t);
        else c->reg[1] = op->c;
        return 1;
    }
    c->has_t = tc__vm_ew_last_scalar(T, last, scalar, &last_op, &c->t) != NULL;
    if (c->has_t && last_op == TC_OP_DIV && op == last) return 0; /* tc__k_div_uni_f32 is faster */
    c->code = op == last ? tc__k_chain_code(last_op, -1, -1) : tc__k_chain_code(op->op, last_op, -1);
    if (op != last || !c->has_t) c->reg[1] = op->c;
    if (op != last && !c->has_t) c->reg[2] = last->c;
    return 1;
}
TC__PRIVATE int tc__vm_ew_reduce_row_run(tc__vm_run *R, const tc__vm_ins *op, const tc__vm_ins *last,
                                         unsigned scalar, int n, void *acc, const void *id) {
    const void *const *rp = (const void *const *)R->T->rp;
    tc__vm_rowcall c;
    float z = 0.0f;
    if (id) memcpy(&z, id, sizeof z);
    if (!tc__vm_ew_reduce_call(R->T, R->sp, op, last, scalar, &c)) return 0;
    return 1 + tc__k_chain_reduce_f32(c.code, R->sp->st->reduce, id ? &z : NULL, /* no id: onto acc's partials */
                                      (float *)acc, (const float *)rp[c.reg[0]],
                                      c.reg[1] != TC__VM_NONE ? (const float *)rp[c.reg[1]] : NULL,
                                      c.reg[2] != TC__VM_NONE ? (const float *)rp[c.reg[2]] : NULL,
                                      c.has_t ? &c.t : NULL, n, !R->by_row);
}
TC__PRIVATE int tc__vm_ew_reduce_row(tc__vm_run *R, const tc__vm_ins *op, const tc__vm_ins *last,
                                     unsigned scalar, int64_t total, void *acc, const void *id) {
    if (total > INT_MAX || !tc__vm_ew_reduce_row_ok(R->sp, R->T, op, last, scalar)) return 0;
    return tc__vm_ew_reduce_row_run(R, op, last, scalar, (int)total, acc, id);
}

/* The op and builtin of the element-wise path are exp(x - s) or
   exp(x + s), s the scalar: tc__math_block_exp_of runs both at once. */
TC__PRIVATE int tc__vm_ew_is_exp_of(const tc__vm_ins *op, const tc__vm_ins *last, unsigned scalar) {
    const tc__vm_ins *call = last + 1;
    return op == last && scalar != TC__VM_NONE && scalar == op->c && op->dt == TC_FLOAT32 &&
           (op->op == TC_OP_SUB || op->op == TC_OP_ADD) && call->op == TC_OP_CALL &&
           call->dt == TC_FLOAT32 && call->dt2 == TC_BUILTIN_EXP && call->b == op->a;
}
/* ... and then s, that scalar's value. */
TC__PRIVATE int tc__vm_ew_exp_of(const tc__vm_thread *T, const tc__vm_ins *op, const tc__vm_ins *last,
                                 unsigned scalar, float *s) {
    if (!tc__vm_ew_is_exp_of(op, last, scalar)) return 0;
    memcpy(s, T->rp[scalar], sizeof *s);
    return 1;
}

/* The op of the element-wise path reads only rows in memory and the
   scalar: no operand spread over a register of TC_BLOCK lanes, no split
   link, so one call may take a whole row. */
TC__PRIVATE int tc__vm_ew_no_regs(const tc__vm_thread *T, const tc__vm_ins *op, const tc__vm_ins *last,
                                  unsigned scalar) {
    const tc__vm_ins *in;
    if (op > last || tc__vm_ew_split(T, op, last) || (T->uni[op->b] && op->b != scalar)) return 0;
    for (in = op; in <= last; in++)
        if (T->uni[in->c] && in->c != scalar) return 0;
    return 1;
}

/* The reduction a statement absorbed (tc__vm_plan_absorb), on the n values
   it just wrote at w, elements `done` on of its row, into the partials in
   the register after the statement's own (from the identity at `id` when
   done is 0). A whole row in one call is folded too: returns 1 then. */
TC__PRIVATE int tc__vm_ew_absorb(tc__vm_run *R, const void *id, const float *w, int64_t done, int n,
                                 int whole) {
    const tc__vm_splan *ab = R->sp->absorb;
    float *p = (float *)TC__VM_REG(R->T, R->sp->vs->n_regs), z;
    memcpy(&z, id, sizeof z);
    if (whole) return tc__k_chain_reduce_f32(TC__FXR_BARE, ab->st->reduce, &z, p, w, NULL, NULL, NULL, n, 0);
    if (!done) tc__k_fill(sizeof z, p, id, tc__vm_lane_width(ab));
    tc__k_reduce_lanes(TC_FLOAT32, ab->st->reduce, p, w, done, n);
    return 0;
}
/* ... and its value stored, as that statement would (its `!`: assigned). */
TC__PRIVATE void tc__vm_ew_absorb_store(tc__vm_run *R, int folded) {
    const tc__vm_splan *sp = R->sp, *ab = sp->absorb;
    float *p = (float *)TC__VM_REG(R->T, sp->vs->n_regs), h;
    if (folded) h = p[0];
    else tc__k_fold(TC_FLOAT32, ab->st->reduce, p, tc__vm_lane_width(ab), &h);
    R->sp = ab;
    tc__vm_store(R, TC_REDUCE_ASSIGN, &h, 1);
    R->sp = sp;
}

/* The chain [op, last] reads its first operand from a row in memory and
   each link's operand from a row, the scalar, or (TC_BLOCK lanes at least
   a piece of tc__k_chain_call_f32) a uniform value tc__vm_ew_setup spread
   over a block: *uni gets bit k for link k's spread operand (X(i,j) * 2.0
   + b(j): bit 0). 0 for one op, or a chain that divides first by a
   uniform value (tc__vm_ew_split). Such a chain had run in pieces of the
   bytecode, each copied to memory, which measured slower: X * 2.0 + B and
   tanh(X * 2.0 + B) over 4096 x 4096, one thread and two, alternating in
   one process, both orders. */
TC__PRIVATE int tc__vm_ew_chain_uni(const tc__vm_thread *T, const tc__vm_ins *op, const tc__vm_ins *last,
                                    unsigned scalar, int *uni) {
    const tc__vm_ins *in;
    *uni = 0;
    if (op >= last || tc__vm_ew_split(T, op, last) || T->uni[op->b]) return 0;
    for (in = op; in <= last; in++)
        if (T->uni[in->c] && in->c != scalar) {
            if (TC_BLOCK < TC__K_NT_PIECE) return 0;
            *uni |= 1 << (in - op);
        }
    return 1;
}

/* A float32 chain of two or three links, maybe then the statement's
   builtin (call; -1: none, the output streamed), on a whole row of rows in
   memory, the scalar and spread uniform values (tc__vm_ew_chain_uni), its
   value stored into w (tc__k_chain_call_f32): no turn of the bytecode's
   dispatch per piece. 0: not such a row; the pieces of tc__vm_ew_run do
   it (one op: with one input row its output does not stream; a chain
   that divides by a lane-uniform value). */
TC__PRIVATE int tc__vm_ew_call_row(const tc__vm_thread *T, const tc__vm_ins *op, const tc__vm_ins *last,
                                   unsigned scalar, int call, void *w, int64_t total) {
    const void *const *rp = (const void *const *)T->rp;
    const float *t;
    int last_op, uni;
    float sv;
    if (total > INT_MAX || op->dt != TC_FLOAT32 || !tc__vm_ew_chain_uni(T, op, last, scalar, &uni)) return 0;
    t = tc__vm_ew_last_scalar(T, last, scalar, &last_op, &sv);
    if (t && last_op == TC_OP_DIV) return 0;
    tc__k_chain_call_f32(tc__vm_ew_chain_code(op, last, last_op), call, (float *)w,
                         (const float *)rp[op->b], (const float *)rp[op->c], (const float *)rp[op[1].c],
                         op + 2 == last ? (const float *)rp[op[2].c] : NULL, t, (int)total, uni);
    return 1;
}

/* A run of the element-wise fast path (tc__vm_plan_ew): `total` lanes of
   one row from the loop values in idx, a block at a time, the pointers
   into the tensors advanced rather than recomputed. Each block's value is
   written to the output row, or, with acc, reduced into the lanes of acc
   (the order of tc__vm_lane_reduce), which start at the identity *id, or
   without id hold the rows reduced so far. A float32 builtin of a
   streamed statement writes the output row itself, with plain stores
   (tc__math_chunk_store).
   Returns 2 where the partials were folded too, acc[0] the value
   (tc__vm_ew_reduce_row), else 1. */
TC__PRIVATE int tc__vm_ew_run(tc__vm_run *R, int64_t total, void *acc, const void *id) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_stmt *vs = sp->vs;
    tc__vm_thread *T = R->T;
    const tc__vm_ins *in, *op = vs->ins + sp->ew_op;
    const tc__vm_ins *last = vs->ins + vs->n_ins - 1 - sp->ew_call; /* the op's last link */
    size_t esz = tc_dtype_size(vs->vdt);
    unsigned char *w = acc ? NULL : tc__vm_ew_row_ptr(R);
    unsigned scalar = R->by_row && sp->rsteps
                          ? tc__vm_row_setup(R)
                          : tc__vm_ew_setup(R, op, last, total < TC_BLOCK ? (int)total : TC_BLOCK);
    int n, row = acc ? tc__vm_ew_reduce_row(R, op, last, scalar, total, acc, id) : 0;
    float sv = 0.0f;
    int exp_of = tc__vm_ew_exp_of(T, op, last, scalar, &sv), ab_folded = 0, chain_nt = 0, n_was;
    /* a float32 builtin's value goes straight to w */
    int call_w = sp->stream && !acc && sp->ew_call && last[1].dt == TC_FLOAT32;
    int64_t done, blk = TC_BLOCK;
    unsigned char ab_id[8];
    if (row) return row;
    if (call_w && !exp_of && !sp->absorb && tc__vm_ew_call_row(T, op, last, scalar, last[1].dt2, w, total))
        return 1;
    /* a streamed chain, a uniform value spread over a block too (X(i,j) * 2.0 + B(i,j)), or one
       that streams only through its row call (tc__vm_plan_stream_chain): the row in one call */
    if ((sp->stream || sp->stream_chain) && !acc && !sp->ew_call && !sp->absorb && !exp_of &&
        tc__vm_ew_call_row(T, op, last, scalar, -1, w, total))
        return 1;
    if (acc && id) tc__k_fill(esz, acc, id, tc__vm_lane_width(sp));
    if (!acc && (exp_of || !sp->ew_call) && tc__vm_ew_no_regs(T, op, last, scalar)) {
        chain_nt = sp->stream && !exp_of && op < last && op->dt == TC_FLOAT32; /* streams itself */
        if (!sp->stream || chain_nt) blk = total < INT_MAX ? total : INT_MAX; /* the row in one go */
    }
    if (sp->stream && !acc && !chain_nt) blk = TC__VM_STREAM_PIECE;
    if (sp->absorb) tc__vm_identity(TC_FLOAT32, sp->absorb->st->reduce, ab_id);
    for (done = 0, n = 0; done < total; done += n, w = acc ? w : w + (size_t)n * esz) { /* w NULL with acc */
        void *d = acc || (sp->stream && !chain_nt) || sp->ew_call ? TC__VM_REG(T, last->a) : (void *)w;
        n_was = n;
        n = total - done < blk ? (int)(total - done) : (int)blk;
        for (in = vs->ins + vs->n_pro; in < op && (done || sp->prefetch); in++) { /* next block */
            if (in->op != TC_OP_LOAD || !sp->reads[in->b].lstride[sp->lane]) continue;
            if (done) T->rp[in->a] = (unsigned char *)T->rp[in->a] + (size_t)n_was * esz;
            if (sp->prefetch) tc__vm_prefetch(T->rp[in->a], TC__VM_PF_DIST * n * (int64_t)esz, n * (int)esz, 0);
        }
        if (exp_of) { /* exp(x - m) in one pass */
            d = acc || (sp->stream && !call_w) ? TC__VM_REG(T, vs->n_regs + 1) : (void *)w;
            tc__math_block_exp_of((float *)d, (const float *)T->rp[op->b], op->op, sv, n);
        } else if (op == vs->ins + vs->n_ins) {
            d = T->rp[last->a]; /* a bare load */
        } else {
            tc__vm_ew_op(T, op, last, scalar, d, TC__VM_REG(T, vs->n_regs + 1), n, sp->stream_div || chain_nt);
        }
        if (sp->ew_call && !exp_of) { /* into the output, or a register to stream or reduce from */
            T->rp[last->a] = d;
            d = acc || (sp->stream && !call_w) ? TC__VM_REG(T, vs->n_regs + 1) : (void *)w;
            tc__vm_do_call(R, last + 1, d, n);
        }
        if (acc) tc__k_reduce_lanes(vs->vdt, sp->st->reduce, acc, d, done, n);
        else if (sp->stream && !chain_nt && !call_w) tc__k_stream(w, d, (size_t)n * esz);
        if (sp->absorb) ab_folded = tc__vm_ew_absorb(R, ab_id, (const float *)(const void *)w, done, n, blk >= total);
    }
    if (sp->absorb) tc__vm_ew_absorb_store(R, ab_folded);
    return 1;
}

TC__PRIVATE void tc__vm_lane_store(tc__vm_run *R, void *acc) {
    const tc__vm_splan *sp = R->sp;
    unsigned char h[8];
    tc__k_fold(sp->vs->vdt, sp->st->reduce, acc, tc__vm_lane_width(sp), h);
    tc__vm_store(R, sp->fused ? TC_REDUCE_ASSIGN : sp->st->reduce, h, 1);
}

/* A reduction's partials in acc folded (unless `folded`: acc[0] is the
   value) and stored as the output element at w. */
TC__PRIVATE void tc__vm_ew_reduce_store(tc__vm_run *R, unsigned char *acc, int folded, unsigned char *w) {
    const tc__vm_splan *sp = R->sp;
    tc_dtype wdt = R->P->ir->tensors[sp->wt].dtype;
    tc_reduce red = sp->fused ? TC_REDUCE_ASSIGN : sp->st->reduce;
    unsigned char h[8];
    if (!folded) {
        tc__k_fold(sp->vs->vdt, sp->st->reduce, acc, tc__vm_lane_width(sp), h);
        acc = h;
    }
    if (red == TC_REDUCE_ASSIGN && wdt == TC_FLOAT32 && sp->vs->vdt == TC_FLOAT32) memcpy(w, acc, 4);
    else tc__k_store(wdt, red, w, 0, acc, 1);
}
/* One output element of a reduction on the element-wise fast path: the
   row's blocks reduced into acc's lanes, folded, stored (the operations and
   order of tc__vm_lane_reduce). */
TC__PRIVATE int tc__vm_red_rows(tc__vm_run *R, int64_t a, int64_t b, void *acc, const void *id);
TC__PRIVATE void tc__vm_ew_reduce(tc__vm_run *R, const void *id) {
    const tc__vm_splan *sp = R->sp;
    unsigned char *acc = (unsigned char *)TC__VM_REG(R->T, sp->vs->n_regs);
    unsigned char *w = tc__vm_ew_row_ptr(R);
    if (!sp->n_red) {
        tc__vm_ew_reduce_store(R, acc, tc__vm_ew_run(R, tc__vm_extent(sp, sp->lane), acc, id) == 2, w);
        return;
    }
    /* other reduction loops too (a sum from an offset row, a weighted
       total): each of their rows onto the same partials */
    tc__vm_red_rows(R, sp->lo[sp->red[0]], sp->hi[sp->red[0]], acc, id);
    tc__vm_ew_reduce_store(R, acc, 0, w);
}

/* Rows idx[row] to idx[row] + rows - 1 of a reduction along the row on
   the element-wise path, each a whole row in one call
   (tc__k_chain_reduce_f32): the call decided once, on the first row, then
   only its row pointers and its output stepped. tc__vm_ew_reduce, run on
   each row, puts a few hundred instructions between two rows' loops,
   enough to hold the next row's loads back until the last ones have come
   from memory: rowsum 4096 x 4096 at one thread spent far longer between
   two calls than a plain loop of the same calls, and with this loop a
   call took less time (same process, alternating). Every row's call is
   the same where every operand is a row or a constant: all instructions
   before the op are loads, none of a lane-uniform value that moves with
   the row (m(i) in X(i,j) - m(i); the divisor's power-of-two test, too,
   is then made once). 0, having done nothing, where not. */
TC__PRIVATE int tc__vm_ew_reduce_rows(tc__vm_run *R, const void *id, int64_t rows) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_stmt *vs = sp->vs;
    const tc__vm_ins *in, *op = vs->ins + sp->ew_op, *last = vs->ins + vs->n_ins - 1 - sp->ew_call;
    const tc_ir_tensor *wten = &R->P->ir->tensors[sp->wt];
    tc__vm_thread *T = R->T;
    const unsigned char *row[3] = {NULL, NULL, NULL};
    int64_t step[3] = {0, 0, 0}, wstep, r, total = tc__vm_extent(sp, sp->lane);
    int loop = tc__vm_row_loop(sp), k, n = (int)total;
    tc_reduce red = sp->st->reduce;
    const float *t;
    unsigned scalar;
    unsigned char *w, *acc = (unsigned char *)TC__VM_REG(T, vs->n_regs);
    tc__vm_rowcall c;
    float z;
    if (rows < 2 || sp->n_red || loop < 0 || loop >= wten->rank || total > INT_MAX ||
        vs->vdt != TC_FLOAT32)
        return 0;
    for (in = vs->ins + vs->n_pro; in < op; in++)
        if (in->op != TC_OP_LOAD ||
            (sp->reads[in->b].lstride[sp->lane] == 0 && sp->reads[in->b].lstride[loop] != 0))
            return 0;
    R->next_row = 0;
    scalar = tc__vm_ew_setup(R, op, last, total < TC_BLOCK ? (int)total : TC_BLOCK);
    if (!tc__vm_ew_reduce_row_ok(sp, T, op, last, scalar) ||
        !tc__vm_ew_reduce_call(T, sp, op, last, scalar, &c))
        return 0;
    for (k = 0; k < 3; k++) {
        if (c.reg[k] == TC__VM_NONE) continue;
        row[k] = (const unsigned char *)T->rp[c.reg[k]];
        for (in = vs->ins + vs->n_pro; in < op; in++)
            if (in->a == c.reg[k]) step[k] = sp->reads[in->b].lstride[loop] * (int64_t)sizeof(float);
    }
    t = c.has_t ? &c.t : NULL;
    w = tc__vm_ew_row_ptr(R);
    wstep = R->P->ts[sp->wt][loop] * (int64_t)tc_dtype_size(wten->dtype);
    memcpy(&z, id, sizeof z);
    for (r = 0; r < rows; r++, w += wstep) {
#define TC__VM_ROW_AT(k) (row[k] ? (const float *)(const void *)(row[k] + r * step[k]) : NULL)
        tc__vm_ew_reduce_store(R, acc,
                               tc__k_chain_reduce_f32(c.code, red, &z, (float *)(void *)acc, TC__VM_ROW_AT(0),
                                                      TC__VM_ROW_AT(1), TC__VM_ROW_AT(2), t, n, 1),
                               w);
#undef TC__VM_ROW_AT
    }
    return 1;
}

/* Row T->idx[0] of a statement of a row group run row by row
   (tc__vm_group_rows): the call its form planned (tc__vm_plan_row_stmt)
   makes the one tc__vm_ew_run would make for the whole row; the generic
   run where there is none, or the form declines. */
TC__PRIVATE void tc__vm_row_stmt(tc__vm_run *R, const void *id) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_stmt *vs = sp->vs;
    tc__vm_thread *T = R->T;
    const tc__vm_ins *op = vs->ins + sp->ew_op, *last = vs->ins + vs->n_ins - 1 - sp->ew_call;
    unsigned char *w = tc__vm_ew_row_ptr(R);
    unsigned char *acc = (unsigned char *)TC__VM_REG(T, vs->n_regs), ab_id[8];
    unsigned scalar;
    float sv;
    int r, nt = sp->stream || sp->stream_div; /* the kernels stream what they can */
    if (sp->row_form == TC__VM_ROW_GENERIC) {
        if (sp->lane_red) tc__vm_ew_reduce(R, id);
        else tc__vm_ew_run(R, tc__vm_extent(sp, 1), NULL, NULL);
        return;
    }
    scalar = tc__vm_row_setup(R);
    if (sp->row_form == TC__VM_ROW_REDUCE) {
        r = tc__vm_ew_reduce_row_run(R, op, last, scalar, sp->row_n, acc, id);
        if (r) tc__vm_ew_reduce_store(R, acc, r == 2, w);
        else tc__vm_ew_reduce(R, id); /* declined: the same setup again, then blocks */
        return;
    }
    if (sp->row_form == TC__VM_ROW_SPLIT) {
        if (!tc__vm_ew_split_chain(T, op, last, scalar, w, sp->row_n, nt)) tc__vm_ew_run(R, sp->row_n, NULL, NULL);
        return;
    }
    if (sp->row_form == TC__VM_ROW_EXP) {
        memcpy(&sv, T->rp[scalar], sizeof sv);
        tc__math_block_exp_of((float *)(void *)w, (const float *)T->rp[op->b], op->op, sv, sp->row_n);
    } else {
        tc__vm_ew_op(T, op, last, scalar, w, TC__VM_REG(T, vs->n_regs + 1), sp->row_n, nt);
    }
    if (sp->absorb) {
        tc__vm_identity(TC_FLOAT32, sp->absorb->st->reduce, ab_id);
        tc__vm_ew_absorb_store(R, tc__vm_ew_absorb(R, ab_id, (const float *)(const void *)w, 0, sp->row_n, 1));
    }
}

/* Items of the element-wise fast path: each row's run of blocks in one go;
   for a reduction along the row, one output element each. Consecutive
   whole rows along the row loop go together: after the first, a row's
   pointers are the last one's plus the row loop's strides
   (R->next_row), not computed again from the loop values. */
TC__PRIVATE void tc__vm_ew_items(tc__vm_run *R, int64_t first, int64_t last) {
    const tc__vm_splan *sp = R->sp;
    int64_t it = first, *idx = R->T->idx, blk = tc__vm_item_start(sp, first, idx);
    int row = tc__vm_row_loop(sp), batch; /* the rows in one go (tc__vm_ew_reduce_rows) */
    unsigned char id[8];
    tc__vm_identity(sp->vs->vdt, sp->st->reduce, id);
    tc__vm_prologue(R);
    while (it < last) {
        int64_t nb = sp->n_blocks - blk < last - it ? sp->n_blocks - blk : last - it;
        int64_t start = sp->lo[sp->lane] + blk * sp->blk, rows = 1, r;
        int64_t per = sp->lane_red ? 1 : nb; /* items a row */
        if (row >= 0 && (sp->lane_red || (blk == 0 && nb == sp->n_blocks))) {
            rows = (last - it) / per;
            if (rows > sp->hi[row] - idx[row]) rows = sp->hi[row] - idx[row];
        }
        idx[sp->lane] = start;
        batch = sp->lane_red && tc__vm_ew_reduce_rows(R, id, rows);
        if (batch) idx[row] += rows - 1; /* the last row, as the loop below leaves it */
        for (r = 0; r < rows && !batch; r++) {
            R->next_row = r > 0;
            if (r > 0) idx[row]++;
            if (sp->lane_red) tc__vm_ew_reduce(R, id);
            else
                tc__vm_ew_run(R, sp->hi[sp->lane] - start < nb * sp->blk ? sp->hi[sp->lane] - start : nb * sp->blk,
                              NULL, NULL);
        }
        R->next_row = 0;
        it += rows * per;
        if (!sp->lane_red) {
            blk += nb;
            if (blk < sp->n_blocks) continue; /* the chunk ends inside the row */
        }
        blk = 0;
        tc__vm_odo_next(sp, sp->outer, sp->n_outer, idx);
    }
}

/* Type A: one block of n lanes along an output loop (or a single lane). */
/* Steps idx[fold_row] onwards of tc__vm_plan_fold_steps, as many as a
   block holds, as one run of lanes; then each step's n lanes into acc, in
   order. idx[fold_row] is left at the last step done. */
TC__PRIVATE int tc__vm_fold_steps_block(tc__vm_run *R, void *acc, int n) {
    const tc__vm_splan *sp = R->sp;
    int64_t *idx = R->T->idx, steps = sp->hi[sp->fold_row] - idx[sp->fold_row], r;
    size_t bytes = (size_t)n * tc_dtype_size(sp->vs->vdt);
    const unsigned char *v;
    if (steps > sp->fold_steps) steps = sp->fold_steps;
    if (!tc__vm_exec(R, n * (int)steps)) return 0;
    v = (const unsigned char *)R->T->rp[sp->vs->value];
    for (r = 0; r < steps; r++) tc__k_reduce(sp->vs->vdt, sp->st->reduce, acc, v + (size_t)r * bytes, n);
    idx[sp->fold_row] += steps - 1;
    return 1;
}

TC__PRIVATE int tc__vm_block(tc__vm_run *R, int n) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_stmt *vs = sp->vs;
    tc_reduce red = sp->st->reduce;
    void *acc = TC__VM_REG(R->T, vs->n_regs);
    unsigned char id[8];
    if (R->check) { /* every reduction step, nothing stored */
        if (!tc__vm_odo_start(sp, sp->red, sp->n_red, R->T->idx)) return 1;
        do {
            if (!tc__vm_exec(R, n)) return 0;
        } while (tc__vm_odo_next(sp, sp->red, sp->n_red, R->T->idx));
        return 1;
    }
    if (sp->n_red == 0 && !sp->fused) {
        if (sp->stream) { /* the value streams from its register to memory */
            if (!tc__vm_exec(R, n)) return 0;
            tc__k_stream(tc__vm_write_ptr(R), R->T->rp[vs->value], (size_t)n * tc_dtype_size(vs->vdt));
            return 1;
        }
        if (sp->direct) { /* the last instruction writes the tensor itself */
            R->T->direct = tc__vm_write_ptr(R);
            if (sp->prefetch)
                tc__vm_prefetch(R->T->direct, TC__VM_PF_DIST * n * (int64_t)tc_dtype_size(vs->vdt),
                                n * (int)tc_dtype_size(vs->vdt), 1);
            R->T->rp[vs->value] = NULL;
            if (!tc__vm_exec(R, n)) return 0;
            R->T->direct = NULL;
            return 1;
        }
        if (!tc__vm_exec(R, n)) return 0;
        tc__vm_store(R, red, R->T->rp[vs->value], n);
        return 1;
    }
    tc__vm_identity(vs->vdt, red, id);
    tc__k_fill(tc_dtype_size(vs->vdt), acc, id, (n + 15) / 16 * 16 < TC_BLOCK ? (n + 15) / 16 * 16 : TC_BLOCK);
    if (tc__vm_odo_start(sp, sp->red, sp->n_red, R->T->idx)) {
        do {
            if (sp->fold_steps) {
                if (!tc__vm_fold_steps_block(R, acc, n)) return 0;
                continue;
            }
            if (sp->acc_op ? !tc__vm_exec_acc(R, acc, n) : !tc__vm_exec(R, n)) return 0;
            if (!sp->acc_op) tc__k_reduce(vs->vdt, red, acc, R->T->rp[vs->value], n);
        } while (tc__vm_odo_next(sp, sp->red, sp->n_red, R->T->idx));
    } else if (!sp->fused) {
        return 1; /* nothing to reduce: the tensor keeps its values */
    }
    tc__vm_store(R, sp->fused ? TC_REDUCE_ASSIGN : red, acc, n);
    return 1;
}

/* Lanes [start, start + n) of the reduction lane loop, a block at a time,
   reduced into acc's partials (the first lane is partial 0's). */
TC__PRIVATE int tc__vm_lane_blocks(tc__vm_run *R, int64_t start, int64_t n, void *acc) {
    const tc__vm_splan *sp = R->sp;
    int64_t done;
    for (done = 0; done < n; done += TC_BLOCK) {
        int m = n - done < TC_BLOCK ? (int)(n - done) : TC_BLOCK;
        R->T->idx[sp->lane] = start + done;
        if (sp->lane_op && !R->check) { /* TC_BLOCK lanes are whole sets of partials */
            tc__vm_last_operands lo;
            if (!tc__vm_exec_but_last(R, m, &lo)) return 0;
            tc__k_rows_op(sp->st->reduce, lo.op, NULL, (float *)acc, (const float *)lo.a, (const float *)lo.b,
                          (const float *)lo.s, lo.s_first, m, 1, NULL);
            continue;
        }
        if (!tc__vm_exec(R, m)) return 0;
        if (!R->check)
            tc__k_reduce_lanes(sp->vs->vdt, sp->st->reduce, acc, R->T->rp[sp->vs->value], done, m);
    }
    return 1;
}

/* Type B: one output element; lanes run along a reduction loop. */
TC__PRIVATE int tc__vm_lane_reduce(tc__vm_run *R) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_stmt *vs = sp->vs;
    void *acc = TC__VM_REG(R->T, vs->n_regs);
    unsigned char id[8];
    tc__vm_identity(vs->vdt, sp->st->reduce, id);
    if (sp->red_empty) {
        if (sp->fused && !R->check) tc__vm_store(R, TC_REDUCE_ASSIGN, id, 1);
        return 1;
    }
    if (vs->vdt == TC_FLOAT32 && sp->n_red == 0 && tc__vm_extent(sp, sp->lane) <= TC_BLOCK && !R->check) {
        /* the row in one block: made, reduced and folded in one call */
        int n = (int)tc__vm_extent(sp, sp->lane);
        tc__vm_last_operands lo;
        float h;
        R->T->idx[sp->lane] = sp->lo[sp->lane];
        if (!tc__vm_exec_operands(R, n, &lo)) return 0;
        tc__k_rows_op(sp->st->reduce, lo.op, (const float *)(const void *)id, NULL, (const float *)lo.a,
                      (const float *)lo.b, (const float *)lo.s, lo.s_first, n, 1, &h);
        tc__vm_store(R, sp->fused ? TC_REDUCE_ASSIGN : sp->st->reduce, &h, 1);
        return 1;
    }
    tc__k_fill(tc_dtype_size(vs->vdt), acc, id, tc__vm_lane_width(sp));
    tc__vm_odo_start(sp, sp->red, sp->n_red, R->T->idx);
    do {
        if (!tc__vm_lane_blocks(R, sp->lo[sp->lane], tc__vm_extent(sp, sp->lane), acc)) return 0;
    } while (tc__vm_odo_next(sp, sp->red, sp->n_red, R->T->idx));
    if (!R->check) tc__vm_lane_store(R, acc);
    return 1;
}

/* Values [a, b) of the outermost reduction loop red[0], and for each
   every row of the other reduction loops, reduced onto acc's partials from
   the identity id, in the order of tc__vm_lane_reduce (on the element-wise
   path, or through the bytecode). 0 where a gather check fails. */
TC__PRIVATE int tc__vm_red_rows(tc__vm_run *R, int64_t a, int64_t b, void *acc, const void *id) {
    const tc__vm_splan *sp = R->sp;
    int64_t *idx = R->T->idx, n = tc__vm_extent(sp, sp->lane);
    int r0 = sp->red[0], next_row = R->next_row, ok = 1;
    tc__k_fill(tc_dtype_size(sp->vs->vdt), acc, id, TC__VM_RED_LANES);
    R->next_row = 0; /* every row's pointers from its loop values */
    for (idx[r0] = a; idx[r0] < b && ok; idx[r0]++) {
        tc__vm_odo_start(sp, sp->red + 1, sp->n_red - 1, idx);
        do {
            idx[sp->lane] = sp->lo[sp->lane];
            if (sp->ew && !R->check) tc__vm_ew_run(R, n, acc, NULL);
            else ok = tc__vm_lane_blocks(R, sp->lo[sp->lane], n, acc);
        } while (ok && tc__vm_odo_next(sp, sp->red + 1, sp->n_red - 1, idx));
    }
    R->next_row = next_row;
    return ok;
}

/* Segment seg of a reduction split along red[0] (seg_rows): its values of
   red[0] onto acc's partials from the identity id. */
TC__PRIVATE int tc__vm_seg_rows(tc__vm_run *R, int64_t seg, void *acc, const void *id) {
    const tc__vm_splan *sp = R->sp;
    int r0 = sp->red[0];
    int64_t a = sp->lo[r0] + seg * sp->seg_rows;
    return tc__vm_red_rows(R, a, sp->hi[r0] - a < sp->seg_rows ? sp->hi[r0] : a + sp->seg_rows, acc, id);
}

/* Segment items [first, last) of a reduction split by
   tc__vm_plan_segments: each segment reduced as a row of its own would be
   (on the element-wise path or through the bytecode), its partials folded
   into seg_vals. */
TC__PRIVATE int tc__vm_seg_items(tc__vm_run *R, int64_t first, int64_t last) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_stmt *vs = sp->vs;
    size_t esz = tc_dtype_size(vs->vdt);
    unsigned char *acc = (unsigned char *)TC__VM_REG(R->T, vs->n_regs), id[8];
    int64_t it, seg = tc__vm_item_start(sp, first, R->T->idx);
    tc__vm_identity(vs->vdt, sp->st->reduce, id);
    tc__vm_prologue(R);
    for (it = first; it < last; it++) {
        int folded = 0, width = tc__vm_lane_width(sp); /* the partials to fold */
        if (sp->seg_rows) {
            if (!tc__vm_seg_rows(R, seg, acc, id)) return 0;
        } else { /* lanes [start, start + n) of the lane loop */
            int64_t start = sp->lo[sp->lane] + seg * TC__VM_SEG;
            int n = sp->hi[sp->lane] - start < TC__VM_SEG ? (int)(sp->hi[sp->lane] - start) : TC__VM_SEG;
            R->T->idx[sp->lane] = start;
            if (n < width) width = n;
            if (sp->ew && !R->check) {
                folded = tc__vm_ew_run(R, n, acc, id) == 2;
            } else {
                tc__k_fill(esz, acc, id, tc__vm_lane_width(sp));
                if (!tc__vm_lane_blocks(R, start, n, acc)) return 0;
            }
        }
        if (!R->check) {
            if (folded) memcpy(sp->seg_vals + (size_t)it * esz, acc, esz);
            else tc__k_fold(vs->vdt, sp->st->reduce, acc, width, sp->seg_vals + (size_t)it * esz);
        }
        if (++seg < sp->n_segs) continue;
        seg = 0;
        tc__vm_odo_next(sp, sp->outer, sp->n_outer, R->T->idx);
    }
    return 1;
}

/* After every segment ran: each output element its segments' values
   folded, stored as tc__vm_lane_store would. Returns 1. */
TC__PRIVATE int tc__vm_seg_combine(tc__vm_run *R) {
    const tc__vm_splan *sp = R->sp;
    size_t esz = tc_dtype_size(sp->vs->vdt);
    int64_t it;
    unsigned char h[8];
    for (it = 0; it < sp->n_items; it += sp->n_segs) {
        tc__vm_item_start(sp, it, R->T->idx);
        tc__k_fold(sp->vs->vdt, sp->st->reduce, sp->seg_vals + (size_t)it * esz, (int)sp->n_segs, h);
        tc__vm_store(R, sp->fused ? TC_REDUCE_ASSIGN : sp->st->reduce, h, 1);
    }
    return 1;
}

/* Lanes [start, start + n) of block blk (clipped to the block and the
   loop) at the loop values idx. */
TC__PRIVATE int tc__vm_block_at(tc__vm_run *R, int64_t blk, int64_t off, int64_t n) {
    const tc__vm_splan *sp = R->sp;
    int64_t start = sp->lo[sp->lane] + blk * sp->blk + off;
    int64_t end = sp->lo[sp->lane] + (blk + 1) * sp->blk;
    if (end > sp->hi[sp->lane]) end = sp->hi[sp->lane];
    if (end > start + n) end = start + n;
    if (start >= end) return 1;
    R->T->idx[sp->lane] = start;
    return tc__vm_block(R, (int)(end - start));
}

/* Items [first, last) of a tiled statement (tc__vm_plan_tile): whole rows
   TC__VM_TILE at a time, a tile of lanes at a time; the rows a chunk holds
   only part of, and a row alone, item by item. */
TC__PRIVATE int tc__vm_tiled_items(tc__vm_run *R, int64_t first, int64_t last) {
    const tc__vm_splan *sp = R->sp;
    int64_t it = first, per = sp->n_blocks, *idx = R->T->idx, blk, r0, rows, r, b, o;
    int row = tc__vm_row_loop(sp);
    tc__vm_prologue(R);
    while (it < last) {
        blk = tc__vm_item_start(sp, it, idx);
        rows = (last - it) / per;
        if (rows > sp->hi[row] - idx[row]) rows = sp->hi[row] - idx[row];
        if (rows > TC__VM_TILE) rows = TC__VM_TILE;
        if (blk != 0 || rows < 2) {
            if (!tc__vm_block_at(R, blk, 0, sp->blk)) return 0;
            it++;
            continue;
        }
        r0 = idx[row];
        for (b = 0; b < per; b++)
            for (o = 0; o < sp->blk; o += TC__VM_TILE_LANES)
                for (r = 0; r < rows; r++) {
                    idx[row] = r0 + r;
                    if (!tc__vm_block_at(R, b, o, TC__VM_TILE_LANES)) return 0;
                }
        it += rows * per;
    }
    return 1;
}

/* The rows after idx[row] that a folded block takes with it: to the end
   of the row loop, of the items, or of the block. */
TC__PRIVATE int64_t tc__vm_fold_more(const tc__vm_splan *sp, const int64_t *idx, int64_t it, int64_t last) {
    int row = tc__vm_row_loop(sp);
    int64_t more = sp->hi[row] - 1 - idx[row];
    if (more > last - 1 - it) more = last - 1 - it;
    return more < sp->fold - 1 ? more : sp->fold - 1;
}

/* Rows [idx[row], + more] of a reduction along short rows
   (tc__vm_plan_fold_red) as one run of lanes, then each row's lanes
   reduced (float32: every row in one tc__k_rows_op call, the value's last
   op made there with sp->lane_op) and the rows' values stored; *it
   advances past the rows done, idx[row] is left at the last one. */
TC__PRIVATE int tc__vm_fold_red_rows(tc__vm_run *R, int64_t *it, int64_t last) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_stmt *vs = sp->vs;
    const tc_plan *P = R->P;
    int64_t *idx = R->T->idx, more;
    int row = tc__vm_row_loop(sp), L = (int)tc__vm_extent(sp, sp->lane), w = tc__vm_lane_width(sp), r;
    int out_rows = row < P->ir->tensors[sp->wt].rank; /* the rows' values one strided store */
    tc_reduce mode = sp->fused ? TC_REDUCE_ASSIGN : sp->st->reduce;
    size_t vsz = tc_dtype_size(vs->vdt);
    void *acc = TC__VM_REG(R->T, vs->n_regs);
    unsigned char *out = (unsigned char *)TC__VM_REG(R->T, vs->n_regs + 1), id[8];
    const unsigned char *v;
    more = tc__vm_fold_more(sp, idx, *it, last);
    idx[sp->lane] = sp->lo[sp->lane];
    tc__vm_identity(vs->vdt, sp->st->reduce, id);
    if (vs->vdt == TC_FLOAT32) { /* every row's values made, reduced and folded in one call */
        tc__vm_last_operands lo;
        if (!tc__vm_exec_operands(R, L * (int)(more + 1), &lo)) return 0;
        tc__k_rows_op(sp->st->reduce, lo.op, (const float *)(const void *)id, NULL, (const float *)lo.a,
                      (const float *)lo.b, (const float *)lo.s, lo.s_first, L, (int)(more + 1),
                      (float *)(void *)out);
    } else {
        if (!tc__vm_exec(R, L * (int)(more + 1))) return 0;
        v = (const unsigned char *)R->T->rp[vs->value];
        if (L < TC__VM_RED_LANES) { /* rows shorter than the partials: their folds in one call */
            memcpy(acc, v, (size_t)L * (size_t)(more + 1) * vsz); /* v may be the input itself */
            tc__k_fold_rows(vs->vdt, sp->st->reduce, acc, id, L, (int)(more + 1), out);
        } else {
            for (r = 0; r <= more; r++) {
                tc__k_fill(vsz, acc, id, w);
                tc__k_reduce_lanes(vs->vdt, sp->st->reduce, acc, v + (size_t)r * (size_t)L * vsz, 0, L);
                tc__k_fold(vs->vdt, sp->st->reduce, acc, w, out + (size_t)r * vsz);
            }
        }
    }
    if (out_rows) {
        tc__k_store(P->ir->tensors[sp->wt].dtype, mode, tc__vm_write_ptr(R), P->ts[sp->wt][row], out,
                    (int)(more + 1));
        idx[row] += more;
    } else {
        for (r = 0; r <= more; r++, idx[row]++) tc__vm_store(R, mode, out + (size_t)r * vsz, 1);
        idx[row]--;
    }
    *it += more;
    return 1;
}

/* Items [first, last): decode the outer loops (and the block) of each. */
TC__PRIVATE int tc__vm_items(tc__vm_run *R, int64_t first, int64_t last) {
    const tc__vm_splan *sp = R->sp;
    int64_t it, blk, *idx = R->T->idx;
    if (first >= last) return 1;
    if (sp->n_segs > 1) return tc__vm_seg_items(R, first, last);
    if (sp->wred && !R->check) { /* no bytecode: see tc__vm_wred_items */
        tc__vm_wred_items(R, first, last);
        return 1;
    }
    if (sp->ew && !R->check) { /* see tc__vm_ew_items */
        tc__vm_ew_items(R, first, last);
        return 1;
    }
    if (sp->tile && !R->check) return tc__vm_tiled_items(R, first, last);
    tc__vm_prologue(R);
    blk = tc__vm_item_start(sp, first, idx); /* later items advance */
    for (it = first; it < last; it++) {
        if (sp->lane_red && sp->fold && !R->check) {
            if (!tc__vm_fold_red_rows(R, &it, last)) return 0;
        } else if (sp->lane_red) {
            if (!tc__vm_lane_reduce(R)) return 0;
        } else {
            int n = 1;
            if (sp->lane >= 0) {
                int64_t start = sp->lo[sp->lane] + blk * sp->blk;
                idx[sp->lane] = start;
                n = sp->hi[sp->lane] - start < sp->blk ? (int)(sp->hi[sp->lane] - start) : sp->blk;
            }
            if (sp->fold && !R->check) { /* rows [idx[row], + more] as one run of lanes */
                int row = tc__vm_row_loop(sp);
                int64_t more = tc__vm_fold_more(sp, idx, it, last);
                if (!tc__vm_block(R, n * (int)(more + 1))) return 0;
                idx[row] += more;
                it += more;
                tc__vm_odo_next(sp, sp->outer, sp->n_outer, idx);
                continue;
            }
            if (!tc__vm_block(R, n)) return 0;
            if (++blk < sp->n_blocks) continue;
            blk = 0;
        }
        tc__vm_odo_next(sp, sp->outer, sp->n_outer, idx);
    }
    return 1;
}

/* Contraction items: (outer loops, lane tile, row block), row blocks
   fastest so consecutive items reuse the same Y columns from cache. */
TC__PRIVATE void tc__vm_mk_items(tc__vm_run *R, int64_t first, int64_t last) {
    const tc__vm_splan *sp = R->sp;
    const tc_plan *P = R->P;
    const tc__vm_rplan *X = &sp->reads[sp->mk_x], *Y = &sp->reads[sp->mk_y];
    int wt = sp->wt, rank = P->ir->tensors[wt].rank, k, d, r;
    size_t esz = tc_dtype_size(sp->vs->vdt);
    int64_t xsz = (int64_t)tc_dtype_size(sp->mk_xdt), ysz = (int64_t)tc_dtype_size(sp->mk_ydt);
    int64_t it, xr0, *idx = R->T->idx;
    unsigned char *xbuf = R->T->pack + (size_t)sp->mk_T * (size_t)sp->mk_lanes * esz;
    tc__mk_args A;
    A.xr = xr0 = sp->mk_row >= 0 ? X->lstride[sp->mk_row] : 0;
    A.ys = Y->lstride[sp->lane];
    A.ox = sp->mk_ox;
    A.oy = sp->mk_oy;
    A.steps = sp->mk_T;
    A.wr = sp->mk_row >= 0 ? P->ts[wt][sp->mk_row] : 0;
    A.ws = P->ts[wt][sp->lane];
    A.assign = sp->fused;
    A.packed = 0;
    for (k = 0; k < sp->n_red; k++) idx[sp->red[k]] = 0; /* the tables hold their part */
    for (it = first; it < last; it++) {
        int64_t rest = it, rb = rest % sp->mk_row_blocks, lt, xo = X->c0, yo = Y->c0, wo = 0;
        rest /= sp->mk_row_blocks;
        lt = rest % sp->mk_lane_tiles;
        rest /= sp->mk_lane_tiles;
        for (k = sp->n_mk_outer - 1; k >= 0; k--) {
            int l = sp->mk_outer[k];
            int64_t e = tc__vm_extent(sp, l);
            idx[l] = sp->lo[l] + rest % e;
            rest /= e;
        }
        idx[sp->lane] = sp->lo[sp->lane] + lt * sp->mk_lanes;
        A.lanes = (int)(sp->hi[sp->lane] - idx[sp->lane] < sp->mk_lanes
                            ? sp->hi[sp->lane] - idx[sp->lane] : sp->mk_lanes);
        A.rows = 1;
        if (sp->mk_row >= 0) {
            idx[sp->mk_row] = sp->lo[sp->mk_row] + rb * TC__MK_ROWS;
            A.rows = (int)(sp->hi[sp->mk_row] - idx[sp->mk_row] < TC__MK_ROWS
                               ? sp->hi[sp->mk_row] - idx[sp->mk_row] : TC__MK_ROWS);
        }
        for (k = 0; k < sp->n_loops; k++) {
            xo += X->lstride[k] * idx[k];
            yo += Y->lstride[k] * idx[k];
        }
        for (d = 0; d < rank; d++) wo += idx[d] * P->ts[wt][d];
        A.X = R->T->ptr[X->tensor] + (xo + sp->mk_x0) * xsz;
        A.Y = R->T->ptr[Y->tensor] + (yo + sp->mk_y0) * ysz;
        A.W = R->T->ptr[wt] + wo * (int64_t)esz;
        if (sp->mk_packed) { /* one pack per strip: the row blocks of a strip follow */
            A.packed = 0;
            if (it == first || rb == 0) tc__mk_pack(sp->vs->vdt, sp->mk_ydt, &A, R->T->pack);
            A.Y = R->T->pack;
            A.packed = 1;
        }
        if (sp->mk_xconv) { /* the tile's rows of X, converted: row r at r * mk_T */
            for (r = 0; r < A.rows; r++)
                tc__mk_convert(sp->vs->vdt, sp->mk_xdt, xbuf + (size_t)r * (size_t)sp->mk_T * esz,
                               (const unsigned char *)A.X + r * xr0 * xsz, sp->mk_ox, 0, sp->mk_T);
            A.X = xbuf;
            A.xr = sp->mk_T;
            A.ox = sp->mk_oid;
        }
        tc__mk_tile(sp->vs->vdt, &A);
    }
}

/* Part c of [0, n) cut into k parts whose sizes differ by at most one. */
TC__PRIVATE void tc__vm_even_part(int64_t n, int64_t k, int64_t c, int64_t *first,
                                  int64_t *last) {
    int64_t q = n / k, r = n % k;
    *first = c * q + (c < r ? c : r);
    *last = *first + q + (c < r);
}

/* Items [first, last) of chunk c: the items shared out evenly, or where
   the chunks shrink (see tc__vm_plan_engine), the first half of the
   chunks share 3/4 of the items (rounded down) evenly and the second half
   the rest: mm 1024 at 2 threads, 8 tasks in 3, 3, 1 and 1, not 2 each.
   With one virtual CPU well below the other's speed (seen for
   minutes at a time on a 2-vCPU cloud machine), the thread on it took
   much longer over its two even chunks than the other, which then waited. */
TC__PRIVATE void tc__vm_chunk_items(const tc__vm_splan *sp, int64_t c, int64_t *first,
                                    int64_t *last) {
    int64_t n = sp->n_items, k = sp->n_chunks, base = 0;
    if (sp->shrink) {
        int64_t big = n - (n + 3) / 4, half = k / 2; /* 3n/4 rounded down, no overflow */
        if (c < half) {
            n = big;
            k = half;
        } else {
            base = big;
            n -= big;
            c -= half;
            k -= half;
        }
    }
    tc__vm_even_part(n, k, c, first, last);
    *first += base;
    *last += base;
}

TC__PRIVATE int tc__vm_chunk(tc__vm_run *R, int64_t c) {
    const tc__vm_splan *sp = R->sp;
    int64_t first, last;
    tc__vm_chunk_items(sp, c, &first, &last);
    if (sp->ct) {
        const tc__contract *ct = sp->vs->engine;
        tc__contract_args a;
        a.in0 = R->T->ptr[ct->tensor[0]];
        a.in1 = R->T->ptr[ct->tensor[1]];
        a.out = R->T->ptr[ct->tensor[2]];
        if (sp->ct_shape.share)
            tc__contract_run_item(&sp->ct_shape, &a, c, R->P->share, R->T->pack, &R->T->ct_kept);
        else
            tc__contract_run_tasks(&sp->ct_shape, &a, first, last, R->T->pack, &R->T->ct_kept);
        return 1;
    }
    if (sp->mk) {
        tc__vm_mk_items(R, first, last);
        return 1;
    }
    return tc__vm_items(R, first, last);
}

/* ==== [tc:bind] Size binding and run-time checks ============================ */

/* Strides (elements) reach at most sum |stride| * (extent - 1) from the
   first element: that must fit comfortably in 64 bits in bytes, as every
   size does, or offsets computed from them would overflow. */
TC__PRIVATE tc_status tc__vm_check_strides(const tc_ir_tensor *t, const tc_tensor *x,
                                           tc_error *err) {
    int64_t reach = 0, step, bytes;
    int d;
    if (!x->strides) return TC_OK;
    for (d = 0; d < x->rank; d++) {
        int64_t st = x->strides[d];
        if (x->shape[d] <= 1) continue;
        if (st == INT64_MIN || !tc__mul64(st < 0 ? -st : st, x->shape[d] - 1, &step) ||
            !tc__add64(reach, step, &reach))
            break;
    }
    bytes = reach;
    if (d < x->rank || !tc__bytes_times(&bytes, (int64_t)tc_dtype_size(t->dtype)))
        return tc__set_error(err, TC_ERR_LIMIT, "%s: its strides reach too far (offsets overflow)",
                             t->name);
    return TC_OK;
}

/* data at a multiple of its element size: the kernels load and store
   whole elements (vectors, streaming stores to whole cache lines), which
   a misaligned address would fault on or tear. */
TC__PRIVATE tc_status tc__vm_check_align(const char *name, const void *data, tc_dtype t,
                                         tc_error *err) {
    size_t esz = tc_dtype_size(t);
    if (data && esz > 1 && (uintptr_t)data % esz)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT,
                             "%s: data is not aligned to its element size (%s, %d bytes)", name,
                             tc_dtype_name(t), (int)esz);
    return TC_OK;
}

/* dtype, rank and shape of an input or caller output against the
   signature: TC_ERR_TYPE for the dtype, TC_ERR_SHAPE for rank and extents
   (out-of-range values included), each naming the tensor; its data's
   alignment. */
TC__PRIVATE tc_status tc__vm_check_arg(const tc_ir_tensor *t, const tc_tensor *x, tc_error *err) {
    tc_status rc;
    int d;
    if (x->dtype == TC_DTYPE_UNSET)
        return tc__set_error(err, TC_ERR_TYPE,
                             "%s: dtype not set (tc_tensor.dtype is 0, TC_DTYPE_UNSET): it "
                             "should be %s", t->name, tc_dtype_name(t->dtype));
    if ((unsigned)x->dtype >= TC_DTYPE_COUNT || x->dtype != t->dtype)
        return tc__set_error(err, TC_ERR_TYPE, "%s: expected dtype %s, given %s", t->name,
                             tc_dtype_name(t->dtype),
                             (unsigned)x->dtype < TC_DTYPE_COUNT ? tc_dtype_name(x->dtype) : "?");
    if ((rc = tc__vm_check_align(t->name, x->data, x->dtype, err)) != TC_OK) return rc;
    if (x->rank != t->rank)
        return tc__set_error(err, TC_ERR_SHAPE, "%s: expected rank %d, given rank %d", t->name,
                             t->rank, x->rank);
    for (d = 0; d < x->rank; d++)
        if (x->shape[d] < 0)
            return tc__set_error(err, TC_ERR_SHAPE, "%s: dimension %d has negative extent %lld",
                                 t->name, d, (long long)x->shape[d]);
    return tc__vm_check_strides(t, x, err);
}

/* Reads a 0-rank integer input (used in sizes). */
TC__PRIVATE tc_status tc__vm_scalar_input(const tc_ir_tensor *t, const tc_tensor *x, int64_t *out,
                                          tc_error *err) {
    if (!x->data)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "%s: data is NULL", t->name);
    switch (x->dtype) {
    case TC_INT8: *out = *(const int8_t *)x->data; break;
    case TC_INT16: *out = *(const int16_t *)x->data; break;
    case TC_INT32: *out = *(const int32_t *)x->data; break;
    case TC_INT64: *out = *(const int64_t *)x->data; break;
    case TC_UINT8: *out = *(const uint8_t *)x->data; break;
    case TC_UINT16: *out = *(const uint16_t *)x->data; break;
    case TC_UINT32: *out = *(const uint32_t *)x->data; break;
    case TC_UINT64:
        if (*(const uint64_t *)x->data > (uint64_t)INT64_MAX)
            return tc__set_error(err, TC_ERR_LIMIT, "%s: value too large for a size", t->name);
        *out = (int64_t) * (const uint64_t *)x->data;
        break;
    default:
        return tc__set_error(err, TC_ERR_TYPE, "%s: a size must come from an integer input",
                             t->name);
    }
    return TC_OK;
}

/* Binds size variables from input dimensions whose extent is a plain
   variable; `who` remembers which tensor and dimension bound each. */
TC__PRIVATE tc_status tc__vm_bind_vars(const tc_ir_def *ir, const tc_tensor *in, int64_t *vars,
                                       int *who, tc_error *err) {
    int i, d;
    for (i = 0; i < ir->n_sizevars; i++) who[i] = -1;
    for (i = 0; i < ir->n_inputs; i++) {
        const tc_ir_tensor *t = &ir->tensors[i];
        for (d = 0; d < t->rank; d++) {
            const tc_sx *x = &ir->sx[t->extent[d]];
            int v = (int)x->value, prev_t, prev_d;
            if (x->op != TC_SX_VAR) continue;
            if (who[v] < 0) {
                who[v] = i * TC_MAX_RANK + d;
                vars[v] = in[i].shape[d];
                continue;
            }
            if (vars[v] == in[i].shape[d]) continue;
            prev_t = who[v] / TC_MAX_RANK;
            prev_d = who[v] % TC_MAX_RANK;
            return tc__set_error(err, TC_ERR_SHAPE,
                                 "size %s is %lld in %s (dimension %d) but %lld in %s (dimension %d)",
                                 ir->sizevars[v], (long long)vars[v], ir->tensors[prev_t].name,
                                 prev_d, (long long)in[i].shape[d], t->name, d);
        }
    }
    for (i = 0; i < ir->n_sizevars; i++)
        if (who[i] < 0)
            return tc__set_error(err, TC_ERR_SHAPE, "size %s is not bound by any input",
                                 ir->sizevars[i]);
    return TC_OK;
}

/* Input dims that are not plain variables (constants) must match; every
   extent must be >= 0 and every tensor's size must fit. */
TC__PRIVATE tc_status tc__vm_check_extents(const tc_ir_def *ir, const tc_tensor *in,
                                           const int64_t *sx, tc_error *err) {
    int i, d;
    for (i = 0; i < ir->n_tensors; i++) {
        const tc_ir_tensor *t = &ir->tensors[i];
        int64_t total = (int64_t)tc_dtype_size(t->dtype);
        for (d = 0; d < t->rank; d++) {
            int64_t e = sx[t->extent[d]];
            char buf[256];
            if (i < ir->n_inputs && e != in[i].shape[d]) {
                tc__sx_explain(ir, t->extent[d], sx, buf, sizeof buf);
                return tc__set_error(err, TC_ERR_SHAPE, "%s: dimension %d must be %s, given %lld",
                                     t->name, d, buf, (long long)in[i].shape[d]);
            }
            if (e < 0) {
                tc__sx_explain(ir, t->extent[d], sx, buf, sizeof buf);
                return tc__set_error(err, TC_ERR_SHAPE, "%s: dimension %d has negative extent %s",
                                     t->name, d, buf);
            }
            if (!tc__bytes_times(&total, e))
                return tc__set_error(err, TC_ERR_LIMIT, "%s: size overflows", t->name);
        }
    }
    return TC_OK;
}

TC__PRIVATE int tc__vm_stmt_empty(const tc_ir_def *ir, int s, const int64_t *sx) {
    int l;
    for (l = 0; l < ir->stmts[s].n_loops; l++)
        if (sx[ir->stmts[s].loops[l].hi] <= sx[ir->stmts[s].loops[l].lo]) return 1;
    return 0;
}

TC__PRIVATE tc_status tc__vm_run_checks(const tc_ir_def *ir, const int64_t *sx, tc_error *err) {
    int i;
    for (i = 0; i < ir->n_checks; i++) {
        const tc_ir_check *c = &ir->checks[i];
        int64_t a = sx[c->a], b = sx[c->b];
        char ta[160], tb[160], sizes[256];
        tc__buf lb;
        if (c->stmt >= 0 && c->stmt < ir->n_stmts && tc__vm_stmt_empty(ir, c->stmt, sx)) continue;
        if (c->kind == TC_CHECK_LE ? a <= b : a == b) continue;
        tc__sx_format_as(ir, c->a, ta, sizeof ta, TC__PREC_ADD); /* beside <= */
        tc__sx_format_as(ir, c->b, tb, sizeof tb, TC__PREC_ADD);
        lb = tc__buf_on(sizes, sizeof sizes);
        tc__sx_sizes_note(ir, c->a, c->b, sx, &lb);
        tc__buf_done(&lb);
        return tc__set_error(err, c->kind == TC_CHECK_LE ? TC_ERR_BOUNDS : TC_ERR_SHAPE,
                             "%s: needs %s %s %s, but %lld %s %lld%s", c->what ? c->what : "check",
                             ta, c->kind == TC_CHECK_LE ? "<=" : "==", tb, (long long)a,
                             c->kind == TC_CHECK_LE ? ">" : "!=", (long long)b, sizes);
    }
    return TC_OK;
}

/* Marks the nodes evaluated wherever statement st runs: not those only
   under a branch of ?: or the right side of && and || (SEMANTICS.md 6). */
TC__PRIVATE void tc__vm_mark_sure(const tc_ir_def *ir, const tc_ir_stmt *st,
                                  unsigned char *sure) {
    int i, k;
    memset(sure, 0, (size_t)st->n_nodes);
    sure[st->value] = 1;
    for (i = st->n_nodes - 1; i >= 0; i--) {
        const tc_ir_node *nd = &st->nodes[i];
        int n = nd->op == TC_IR_SELECT || nd->op == TC_IR_AND || nd->op == TC_IR_OR ? 1 : nd->nargs;
        if (!sure[i]) continue;
        for (k = 0; k < n && k < 4; k++) sure[nd->args[k]] = 1;
        for (k = 0; nd->op == TC_IR_READ && k < ir->tensors[nd->tensor].rank; k++)
            if (!nd->index[k].affine) sure[nd->index[k].node] = 1; /* a gather's index */
    }
}

/* The backstop behind range inference's proofs: with the sizes known,
   each statement's write and the affine dimensions of every read it
   surely makes lie inside their tensors. Inference proves these or records
   them as checks, and tc_opencl.h trusts the proofs, so a wrong proof
   (stop 29 found two) read outside a tensor there. Now it is this error,
   before any back end runs; the VM's planner relies on it for writes, and
   looks at reads again only to find the masked ones it checks per lane. */
TC__PRIVATE tc_status tc__vm_check_spans(const tc_ir_def *ir, const int64_t *sx, tc__arena *A,
                                         tc_error *err) {
    int s, l, i, d;
    for (s = 0; s < ir->n_stmts; s++) {
        const tc_ir_stmt *st = &ir->stmts[s];
        const tc_ir_tensor *w = &ir->tensors[st->tensor];
        int64_t *lo = (int64_t *)tc__arena_alloc_raw(A, ((size_t)st->n_loops + 1) * 16), *hi;
        unsigned char *sure = (unsigned char *)tc__arena_alloc_raw(A, (size_t)st->n_nodes + 1);
        int out_empty = 0, any_empty = 0;
        if (!lo || !sure) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
        hi = lo + st->n_loops + 1;
        for (l = 0; l < st->n_loops; l++) {
            lo[l] = sx[st->loops[l].lo];
            hi[l] = sx[st->loops[l].hi];
            if (hi[l] <= lo[l]) {
                any_empty = 1;
                out_empty |= !st->loops[l].reduction;
            }
        }
        for (d = 0; d < w->rank && !out_empty; d++)
            if (lo[d] < 0 || hi[d] > sx[w->extent[d]])
                return tc__vm_span_error(st, "writes", w->name, lo[d], hi[d] - 1, d,
                                         sx[w->extent[d]], err);
        if (any_empty) continue;
        tc__vm_mark_sure(ir, st, sure);
        for (i = 0; i < st->n_nodes; i++) {
            const tc_ir_node *nd = &st->nodes[i];
            const tc_ir_tensor *t;
            if (nd->op != TC_IR_READ || !sure[i]) continue;
            t = &ir->tensors[nd->tensor];
            for (d = 0; d < t->rank; d++) {
                const tc_ir_index *ix = &nd->index[d];
                int64_t min, max;
                if (!ix->affine) continue; /* a gather: checked per element */
                if (!tc__vm_affine_span(ix->coef, sx[ix->offset], st->n_loops, lo, hi, &min, &max))
                    return tc__vm_overflow_error(st, t->name, err);
                if (min < 0 || max >= sx[t->extent[d]])
                    return tc__vm_span_error(st, "reads", t->name, min, max, d, sx[t->extent[d]],
                                             err);
            }
        }
    }
    return TC_OK;
}

/* The count of inputs or outputs a call gives against the def's, and the
   array present when the count is not 0. */
TC__PRIVATE tc_status tc__vm_check_count(const tc_ir_def *ir, int outputs, int given,
                                         const void *array, tc_error *err) {
    int want = outputs ? ir->n_outputs : ir->n_inputs;
    const char *what = outputs ? "output" : "input";
    if (given != want)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "%s %s %d %s%s, given %d", ir->name,
                             outputs ? "returns" : "takes", want, what, want == 1 ? "" : "s",
                             given);
    if (given && !array)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "%s: the %ss are NULL (%d expected)",
                             ir->name, what, want);
    return TC_OK;
}

TC_API tc_status tc_bind_sizes(const tc_program *p, int def, const tc_tensor *inputs,
                               int n_inputs, int64_t *sx_values, tc_error *err) {
    const tc_ir_def *ir;
    int64_t vars_local[16], inv_local[16], *vars, *inv;
    int who_local[16], *who, i;
    tc_status rc;
    tc__arena A;
    tc__clear_error(err);
    if (!p || def < 0 || def >= p->n_defs)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_bind_sizes: no such def");
    ir = &p->ir[def];
    if ((rc = tc__vm_check_count(ir, 0, n_inputs, inputs, err)) != TC_OK) return rc;
    if (ir->n_sx && !sx_values)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_bind_sizes: sx_values is NULL");
    for (i = 0; i < n_inputs; i++)
        if ((rc = tc__vm_check_arg(&ir->tensors[i], &inputs[i], err)) != TC_OK) return rc;
    A.alloc = p->alloc;
    A.head = NULL;
    vars = ir->n_sizevars <= 16 ? vars_local : (int64_t *)tc__arena_alloc_raw(&A, (size_t)ir->n_sizevars * 8);
    who = ir->n_sizevars <= 16 ? who_local : (int *)tc__arena_alloc_raw(&A, (size_t)ir->n_sizevars * sizeof(int));
    inv = n_inputs <= 16 ? inv_local : (int64_t *)tc__arena_alloc_raw(&A, (size_t)n_inputs * 8);
    if (!vars || !who || !inv) {
        tc__arena_free_all(&A);
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    }
    rc = tc__vm_bind_vars(ir, inputs, vars, who, err);
    for (i = 0; i < n_inputs && rc == TC_OK; i++) {
        int k, used = 0;
        inv[i] = 0;
        for (k = 0; k < ir->n_sx; k++) used |= ir->sx[k].op == TC_SX_SCALAR && ir->sx[k].value == i;
        if (used) rc = tc__vm_scalar_input(&ir->tensors[i], &inputs[i], &inv[i], err);
    }
    if (rc == TC_OK) rc = tc_sx_eval(ir, vars, inv, sx_values, err);
    if (rc == TC_OK) rc = tc__vm_check_extents(ir, inputs, sx_values, err);
    if (rc == TC_OK) rc = tc__vm_run_checks(ir, sx_values, err);
    if (rc == TC_OK) rc = tc__vm_check_spans(ir, sx_values, &A, err);
    tc__arena_free_all(&A);
    return rc;
}

/* ==== [tc:threads] Thread pool ==============================================
   n_threads - 1 workers plus the caller. A job is one function every
   participant calls with its thread number; work inside is claimed through
   an atomic counter. Workers spin briefly after a job, then sleep on a
   condition variable (spinning alone stalls when the hypervisor
   deschedules a virtual CPU). TC_NO_THREADS: the same API, all inline. */

#if !defined(TC_NO_THREADS)
#include <pthread.h>
#endif

#define TC__POOL_SPIN 4000

typedef void (*tc__job_fn)(void *ctx, int tid);

struct tc_pool {
    tc_allocator alloc;
    int n_threads;
#if !defined(TC_NO_THREADS)
    pthread_t *threads;
    struct tc__worker_arg *args; /* one per worker, freed with the pool */
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    unsigned gen;  /* job generation */
    int busy;      /* workers still in the current job */
    int stop;
    tc__job_fn fn;
    void *ctx;
#endif
};

#if !defined(TC_NO_THREADS)
TC__PRIVATE unsigned tc__pool_gen(tc_pool *P) {
#if defined(TC__HAVE_ATOMICS)
    return TC__ATOMIC_LOAD(&P->gen);
#else
    unsigned g;
    pthread_mutex_lock(&P->mu);
    g = P->gen;
    pthread_mutex_unlock(&P->mu);
    return g;
#endif
}

typedef struct tc__worker_arg {
    tc_pool *pool;
    int tid;
} tc__worker_arg;

/* Waits for a job newer than `seen`; returns 0 when the pool stops. */
TC__PRIVATE int tc__pool_wait(tc_pool *P, unsigned seen) {
    int spin, stop;
    for (spin = 0; spin < TC__POOL_SPIN; spin++) {
        if (tc__pool_gen(P) != seen) return 1;
        tc__spin_pause();
    }
    pthread_mutex_lock(&P->mu);
    while (P->gen == seen && !P->stop) pthread_cond_wait(&P->wake, &P->mu);
    stop = P->stop && P->gen == seen;
    pthread_mutex_unlock(&P->mu);
    return !stop;
}

TC__PRIVATE void *tc__pool_worker(void *arg) {
    tc_pool *P = ((tc__worker_arg *)arg)->pool;
    int tid = ((tc__worker_arg *)arg)->tid;
    unsigned seen = 0;
    while (tc__pool_wait(P, seen)) {
        tc__job_fn fn;
        void *ctx;
        pthread_mutex_lock(&P->mu);
        seen = P->gen;
        fn = P->fn;
        ctx = P->ctx;
        pthread_mutex_unlock(&P->mu);
        if (fn) fn(ctx, tid);
        pthread_mutex_lock(&P->mu);
#if defined(TC__HAVE_ATOMICS)
        if (TC__ATOMIC_ADD(&P->busy, -1) == 1) pthread_cond_signal(&P->done);
#else
        if (--P->busy == 0) pthread_cond_signal(&P->done);
#endif
        pthread_mutex_unlock(&P->mu);
    }
    return NULL;
}
#endif

/* The online CPUs, at most TC_MAX_THREADS (1 without threads, or where the
   system cannot say). */
TC__PRIVATE int tc__online_cpus(void) {
#if !defined(TC_NO_THREADS) && defined(_SC_NPROCESSORS_ONLN)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > TC_MAX_THREADS ? TC_MAX_THREADS : (int)n;
#else
    return 1;
#endif
}

TC_API tc_status tc_pool_create(int n_threads, const tc_allocator *a, tc_pool **out,
                                tc_error *err) {
    tc_pool *P;
    tc_allocator al;
    tc__clear_error(err);
    if (!out) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_pool_create: out is NULL");
    *out = NULL;
    if (n_threads == 0) n_threads = tc__online_cpus();
    if (n_threads < 1 || n_threads > TC_MAX_THREADS)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT,
                             "tc_pool_create: %d threads; 1 to %d are allowed (0: the online "
                             "CPUs)", n_threads, TC_MAX_THREADS);
    if (tc__check_allocator(a, "tc_pool_create", err) != TC_OK) return TC_ERR_INVALID_ARGUMENT;
    memset(&al, 0, sizeof al);
    if (a) al = *a;
    P = (tc_pool *)tc__mem_alloc(&al, sizeof *P);
    if (!P) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    memset(P, 0, sizeof *P);
    P->alloc = al;
    P->n_threads = 1;
#if !defined(TC_NO_THREADS)
    P->threads = (pthread_t *)tc__mem_alloc(&al, sizeof(pthread_t) * (size_t)n_threads);
    P->args = (tc__worker_arg *)tc__mem_alloc(&al, sizeof(tc__worker_arg) * (size_t)n_threads);
    if (!P->threads || !P->args) {
        tc__mem_free(&al, P->threads);
        tc__mem_free(&al, P->args);
        tc__mem_free(&al, P);
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    }
    pthread_mutex_init(&P->mu, NULL);
    pthread_cond_init(&P->wake, NULL);
    pthread_cond_init(&P->done, NULL);
    while (P->n_threads < n_threads) {
        tc__worker_arg *wa = &P->args[P->n_threads];
        wa->pool = P;
        wa->tid = P->n_threads;
        if (pthread_create(&P->threads[P->n_threads - 1], NULL, tc__pool_worker, wa) != 0) break;
        P->n_threads++;
    }
    if (P->n_threads < n_threads) {
        tc_pool_free(P);
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "could not start %d threads", n_threads);
    }
#endif
    *out = P;
    return TC_OK;
}

TC_API int tc_pool_num_threads(const tc_pool *pool) { return pool ? pool->n_threads : 1; }

TC_API void tc_pool_free(tc_pool *pool) {
    tc_allocator al;
    if (!pool) return;
    al = pool->alloc;
#if !defined(TC_NO_THREADS)
    {
        int i;
        pthread_mutex_lock(&pool->mu);
        pool->stop = 1;
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->mu);
        for (i = 0; i + 1 < pool->n_threads; i++) pthread_join(pool->threads[i], NULL);
        pthread_mutex_destroy(&pool->mu);
        pthread_cond_destroy(&pool->wake);
        pthread_cond_destroy(&pool->done);
        tc__mem_free(&al, pool->threads);
        tc__mem_free(&al, pool->args);
    }
#endif
    tc__mem_free(&al, pool);
}

/* Runs fn(ctx, tid) on the caller (tid 0) and every worker; returns when
   all are done. */
TC__PRIVATE void tc__pool_run(tc_pool *P, tc__job_fn fn, void *ctx) {
#if !defined(TC_NO_THREADS)
    int spin;
    if (P && P->n_threads > 1) {
        pthread_mutex_lock(&P->mu);
        P->fn = fn;
        P->ctx = ctx;
        P->busy = P->n_threads - 1;
#if defined(TC__HAVE_ATOMICS)
        TC__ATOMIC_STORE(&P->gen, P->gen + 1);
#else
        P->gen++;
#endif
        pthread_cond_broadcast(&P->wake);
        pthread_mutex_unlock(&P->mu);
        fn(ctx, 0);
        for (spin = 0; spin < TC__POOL_SPIN; spin++) {
#if defined(TC__HAVE_ATOMICS)
            if (TC__ATOMIC_LOAD(&P->busy) == 0) break;
#endif
            tc__spin_pause();
        }
        pthread_mutex_lock(&P->mu);
        while (P->busy > 0) pthread_cond_wait(&P->done, &P->mu);
        P->fn = NULL;
        pthread_mutex_unlock(&P->mu);
        return;
    }
#endif
    (void)P;
    fn(ctx, 0);
}

/* ==== [tc:run] Plans and runs ============================================== */

TC__PRIVATE tc_status tc__vm_find_def(const tc_program *p, const char *entry, int *def,
                                      tc_error *err) {
    if (!p) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "program is NULL");
    *def = tc_program_find(p, entry);
    if (*def < 0) {
        if (entry) return tc__set_error(err, TC_ERR_NAME, "no def named %s", entry);
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "the program has no def");
    }
    if (!p->backend || !p->backend[*def])
        return tc__set_error(err, TC_ERR_BACKEND, "def %s was not compiled", p->ir[*def].name);
    return TC_OK;
}

/* Extents, element counts and strides of every tensor. Inputs keep the
   caller's strides (elements); everything else is contiguous. */
TC__PRIVATE tc_status tc__vm_plan_tensors(tc_plan *P, const tc_tensor *in, tc_error *err) {
    const tc_ir_def *ir = P->ir;
    int i, d;
    for (i = 0; i < ir->n_tensors; i++) {
        const tc_ir_tensor *t = &ir->tensors[i];
        int64_t n = 1;
        for (d = t->rank - 1; d >= 0; d--) {
            P->ext[i][d] = P->sx[t->extent[d]];
            P->ts[i][d] = n;
            n *= P->ext[i][d];
        }
        P->numel[i] = n;
        if (i < ir->n_inputs && in[i].strides) {
            for (d = 0; d < t->rank; d++) P->ts[i][d] = in[i].strides[d];
        }
        if (i < ir->n_inputs && n > 0 && !in[i].data)
            return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "input %s: data is NULL", t->name);
    }
    return TC_OK;
}

/* Every access to `tensor` in statement sp is at row i of its first
   dimension, i the statement's first loop (X(i, ...) with nothing else in
   dimension 0): rows are independent, so statements can go row by row. */
TC__PRIVATE int tc__vm_row_aligned(const tc_plan *P, const tc__vm_splan *sp, int tensor) {
    int r, l;
    for (r = 0; r < sp->vs->n_reads; r++) {
        const tc_ir_index *ix;
        if (sp->vs->reads[r].tensor != tensor) continue;
        if (sp->vs->reads[r].gather) return 0;
        ix = &sp->st->nodes[sp->vs->reads[r].node].index[0];
        if (!ix->affine || P->sx[ix->offset] != 0 || ix->coef[0] != 1) return 0;
        for (l = 1; l < sp->n_loops; l++)
            if (ix->coef[l] != 0) return 0;
    }
    return 1;
}

/* Statement t may join a row group that starts at statement g: its first
   loop is an output loop over the same rows, outside the lanes; it runs on
   the generic path; every tensor the group writes is accessed row-aligned
   by every statement of the group. */
TC__PRIVATE int tc__vm_group_ok(const tc_plan *P, int g, int t) {
    const tc__vm_splan *a = &P->stmts[g], *b = &P->stmts[t];
    int u, w;
    if (b->mk || b->ct || b->init || b->n_segs > 1 || b->n_loops < 1 || b->st->loops[0].reduction ||
        a->coalesced || b->coalesced ||
        b->lane == 0 || P->ir->tensors[b->wt].rank < 1)
        return 0;
    if (b->lo[0] != a->lo[0] || b->hi[0] != a->hi[0] || a->hi[0] <= a->lo[0]) return 0;
    for (u = g; u <= t; u++)
        for (w = g; w <= t; w++)
            if (!tc__vm_row_aligned(P, &P->stmts[u], P->stmts[w].wt)) return 0;
    return 1;
}

TC__PRIVATE tc_status tc__vm_plan_groups(tc_plan *P) {
    int s, t, u, n = P->ir->n_stmts;
    P->group_end = (int *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int));
    P->group_chunks = (int64_t *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int64_t));
    if (!P->group_end || !P->group_chunks) return TC_ERR_OUT_OF_MEMORY;
    for (s = 0; s < n; s = t) {
        double work = P->stmts[s].work;
        int64_t rows, ch;
        t = s + 1;
        if (tc__vm_group_ok(P, s, s))
            while (t < n && tc__vm_group_ok(P, s, t)) work += P->stmts[t++].work;
        P->group_end[s] = t;
        if (t == s + 1) continue;
        for (u = s; u < t; u++) { /* inputs from cache: see tc__vm_plan_prefetch */
            P->stmts[u].stream = P->stmts[u].stream_div = P->stmts[u].stream_ok;
            tc__vm_plan_stream_div(&P->stmts[u]);
            if (u > s) P->stmts[u].prefetch = 0; /* reads what the group left in cache */
        }
        rows = tc__vm_extent(&P->stmts[s], 0);
        ch = (int64_t)(work / TC__VM_CHUNK_WORK);
        if (ch > TC__VM_MAX_CHUNKS) ch = TC__VM_MAX_CHUNKS;
        if (ch > rows) ch = rows;
        P->group_chunks[s] = ch < 1 ? 1 : ch;
    }
    return TC_OK;
}

/* Statement b, right after a in a row group, reduces (`!`, float32) along
   its rows exactly the rows a writes with `=` on the element-wise path:
   softmax's s(i) +=! e(i,j) after e(i,j) = exp(...). Then a reduces each
   row as it writes it, still in the first cache, in the order b would
   (tc__vm_ew_absorb), and b does not run. */
TC__PRIVATE int tc__vm_absorbable(const tc_plan *P, const tc__vm_splan *a, const tc__vm_splan *b) {
    const tc__vm_rplan *rp = &b->reads[0];
    tc_reduce r = b->st->reduce;
    if (!a->ew || !a->direct || a->stream || a->lane_red || a->n_loops != 2 || a->lane != 1 ||
        a->vs->vdt != TC_FLOAT32 || P->ir->tensors[a->wt].dtype != TC_FLOAT32 ||
        P->ir->tensors[a->wt].rank != 2 || P->ts[a->wt][1] != 1)
        return 0;
    if (!b->ew || !b->lane_red || b->n_red || !b->fused || b->n_loops != 2 || b->lane != 1 ||
        b->vs->vdt != TC_FLOAT32 || b->vs->n_reads != 1 || b->vs->n_ins - b->vs->n_pro != 1 ||
        b->ew_op != b->vs->n_ins || b->empty || b->red_empty)
        return 0;
    if (r != TC_REDUCE_SUM && r != TC_REDUCE_PROD && r != TC_REDUCE_MIN && r != TC_REDUCE_MAX) return 0;
    return rp->tensor == a->wt && rp->st == TC_FLOAT32 && rp->c0 == 0 && rp->lstride[0] == P->ts[a->wt][0] &&
           rp->lstride[1] == 1 && a->lo[0] == b->lo[0] && a->hi[0] == b->hi[0] && a->lo[1] == b->lo[1] &&
           a->hi[1] == b->hi[1] && !tc__vm_stmt_reads(a->vs, b->wt);
}

TC__PRIVATE void tc__vm_plan_absorb(tc_plan *P) {
    int g, t;
    for (g = 0; g < P->ir->n_stmts; g = P->group_end[g])
        for (t = g; t + 1 < P->group_end[g]; t++)
            if (!P->stmts[t].absorbed && tc__vm_absorbable(P, &P->stmts[t], &P->stmts[t + 1])) {
                P->stmts[t].absorb = &P->stmts[t + 1];
                P->stmts[t + 1].absorbed = 1;
            }
}

/* A row group whose every statement that runs takes a whole row a call on
   the element-wise path (two loops: the rows, then the lanes) runs row by
   row (tc__vm_group_rows): one row through each statement in turn, so what
   a statement writes is read from the first-level cache by the next. */
TC__PRIVATE int tc__vm_rows_ok(const tc_plan *P, int g) {
    int t;
    for (t = g; t < P->group_end[g]; t++) {
        const tc__vm_splan *sp = &P->stmts[t];
        if (sp->empty || sp->absorbed) continue;
        if (!sp->ew || sp->n_loops != 2 || sp->lane != 1 || sp->n_red) return 0;
    }
    return P->group_end[g] > g + 1;
}

/* A statement of a row group run row by row: where it writes each row,
   and, when its op reads no uniform value but its scalar (so no run
   spreads one: tc__vm_ew_setup), the loads and uniform steps before the op
   with their rows' offsets, the scalar, and the call a row makes, found
   from which registers are uniform (those of the prologue, one-value-a-row
   loads, the steps on them) as a run finds them. uni: scratch, a byte per
   register. */
TC__PRIVATE tc_status tc__vm_plan_row_stmt(tc_plan *P, tc__vm_splan *sp, unsigned char *uni) {
    const tc__vm_stmt *vs = sp->vs;
    const tc__vm_ins *in, *op = vs->ins + sp->ew_op, *last = vs->ins + vs->n_ins - 1 - sp->ew_call;
    const tc_ir_tensor *w = &P->ir->tensors[sp->wt];
    int64_t esz = (int64_t)tc_dtype_size(vs->vdt), wsz = (int64_t)tc_dtype_size(w->dtype);
    tc__vm_thread T;
    unsigned src[4];
    int ns, k;
    sp->w_off = w->rank > 1 ? sp->lo[1] * P->ts[sp->wt][1] * wsz : 0;
    sp->w_step = P->ts[sp->wt][0] * wsz;
    memset(&T, 0, sizeof T);
    memset(uni, 0, (size_t)P->vm->max_regs + 2);
    T.uni = uni;
    for (in = vs->ins; in < op; in++) {
        if (in->op == TC_OP_GOFF || in->op == TC_OP_GIDX || in->op == TC_OP_GLOAD || in->op == TC_OP_COUNT)
            return TC_OK; /* not uniform: the generic run */
        uni[in->a] = in->op == TC_OP_LOAD && in >= vs->ins + vs->n_pro && sp->reads[in->b].lstride[1] != 0
                         ? 0 : TC__VM_UNI;
    }
    sp->row_scalar = TC__VM_NONE;
    if (op < vs->ins + vs->n_ins) {
        sp->row_scalar = tc__vm_ew_operands(&T, op, last, src, &ns);
        for (k = 0; k < ns; k++)
            if (uni[src[k]]) return TC_OK; /* spread on every run */
    }
    if (tc__vm_extent(sp, 1) > INT_MAX) return TC_OK;
    sp->row_n = (int)tc__vm_extent(sp, 1);
    if (sp->lane_red) {
        if (tc__vm_ew_reduce_row_ok(sp, &T, op, last, sp->row_scalar)) sp->row_form = TC__VM_ROW_REDUCE;
    } else if (tc__vm_ew_is_exp_of(op, last, sp->row_scalar)) {
        sp->row_form = TC__VM_ROW_EXP;
    } else if (!sp->ew_call && tc__vm_ew_no_regs(&T, op, last, sp->row_scalar)) {
        sp->row_form = TC__VM_ROW_OP;
    } else if (!sp->ew_call && !sp->absorb && tc__vm_ew_split(&T, op, last) && op->dt == TC_FLOAT32 &&
               last <= op + 2) {
        sp->row_form = TC__VM_ROW_SPLIT;
    }
    sp->n_rsteps = sp->ew_op - vs->n_pro;
    sp->rsteps = (tc__vm_rowstep *)tc__plan_alloc(P, (size_t)sp->n_rsteps + 1, sizeof(tc__vm_rowstep));
    if (!sp->rsteps) return TC_ERR_OUT_OF_MEMORY;
    for (k = 0; k < sp->n_rsteps; k++) {
        tc__vm_rowstep *st = &sp->rsteps[k];
        st->in = vs->ins + vs->n_pro + k;
        st->tensor = -1;
        if (st->in->op == TC_OP_LOAD) {
            const tc__vm_rplan *rp = &sp->reads[st->in->b];
            st->tensor = rp->tensor;
            st->uniform = rp->lstride[1] == 0;
            st->off = (rp->c0 + rp->lstride[1] * sp->lo[1]) * esz;
            st->step = rp->lstride[0] * esz;
            st->bytes = sp->row_n * (int)esz;
        }
    }
    return TC_OK;
}

/* The rows a row group run row by row loads from memory (not one row for
   all, not a tensor the group writes: those it writes first): after the
   group's statements on a row, the next row of each is prefetched, a
   slice after each statement. On the kernels alone (4096 rows of 1024) a
   row took less time so, for softmax and for layernorm; the hardware
   prefetchers start again on each 4 KB page, and a row is one. Issued all
   at once, the row's 64 prefetches waited for free fill buffers, a good
   part of layernorm's time; in slices, layernorm and softmax took less
   time than that, at 1 thread and at 2. With threads, the row
   two ahead: layernorm 4096 x 1024 at 2 threads took less median time
   than one row ahead (three rows ahead: more than two), softmax less in
   most runs, its fastest call faster in all; at 1 thread, two ahead took
   more. Of a longer row, its
   first TC__VM_ROW_PF_MAX bytes (not measured: a guard, so that a row of
   megabytes does not become thousands of prefetches a row). */
#define TC__VM_ROW_PF_MAX (16 << 10)
TC__PRIVATE tc_status tc__vm_plan_row_prefetch(tc_plan *P, int g) {
    tc__vm_rowstep *rows;
    int t, k, q, u, n = 0, n_rows = 0, n_run = 0;
    for (t = g; t < P->group_end[g]; t++) {
        n += P->stmts[t].n_rsteps;
        n_run += !P->stmts[t].empty && !P->stmts[t].absorbed;
    }
    rows = (tc__vm_rowstep *)tc__plan_alloc(P, (size_t)n + 1, sizeof(tc__vm_rowstep));
    if (!rows) return TC_ERR_OUT_OF_MEMORY;
    for (t = g; t < P->group_end[g]; t++)
        for (k = 0; k < P->stmts[t].n_rsteps; k++) {
            const tc__vm_rowstep *st = &P->stmts[t].rsteps[k];
            if (st->tensor < 0 || st->uniform || st->step == 0) continue;
            for (u = g; u < P->group_end[g] && P->stmts[u].wt != st->tensor; u++) continue;
            if (u < P->group_end[g]) continue; /* written by the group */
            for (q = 0; q < n_rows; q++) /* once a row */
                if (rows[q].tensor == st->tensor && rows[q].off == st->off) break;
            if (q == n_rows) rows[n_rows++] = *st;
        }
    for (t = g, q = 0; t < P->group_end[g] && n_rows; t++) { /* statement q's slice of each row */
        tc__vm_splan *sp = &P->stmts[t];
        if (sp->empty || sp->absorbed) continue;
        sp->row_pf = (tc__vm_rowstep *)tc__plan_alloc(P, (size_t)n_rows, sizeof(tc__vm_rowstep));
        if (!sp->row_pf) return TC_ERR_OUT_OF_MEMORY;
        for (k = 0; k < n_rows; k++) {
            int64_t bytes = rows[k].bytes < TC__VM_ROW_PF_MAX ? rows[k].bytes : TC__VM_ROW_PF_MAX;
            int from = (int)(bytes * q / n_run / 64 * 64), to = (int)(bytes * (q + 1) / n_run);
            sp->row_pf[sp->n_row_pf] = rows[k];
            sp->row_pf[sp->n_row_pf].off += from;
            sp->row_pf[sp->n_row_pf].bytes = to - from;
            sp->n_row_pf += to > from;
        }
        q++;
    }
    return TC_OK;
}

/* A chunk of a row group run row by row has TC__VM_ROW_CHUNK rows or
   more: where two threads' chunks meet, the one value a row outputs they
   write (mean, var) share cache lines, which then go back and forth
   between the cores, and the next row's prefetch is the other thread's.
   Layernorm of 4096 rows at 2 threads: chunks of 8 rows measured slower
   than chunks of 64, and chunks of 128 to 512 about as fast as 64. */
#define TC__VM_ROW_CHUNK 64

TC__PRIVATE tc_status tc__vm_plan_group_rows(tc_plan *P, int nt) {
    int g, t, n = P->ir->n_stmts;
    unsigned char *uni = (unsigned char *)tc__plan_alloc(P, (size_t)P->vm->max_regs + 2, 1);
    P->group_rows = (unsigned char *)tc__plan_alloc(P, (size_t)n + 1, 1);
    if (!P->group_rows || !uni) return TC_ERR_OUT_OF_MEMORY;
    for (g = 0; g < n; g = P->group_end[g]) {
        int64_t most = tc__vm_extent(&P->stmts[g], 0) / TC__VM_ROW_CHUNK;
        P->group_rows[g] = (unsigned char)tc__vm_rows_ok(P, g);
        if (most < 2 * (int64_t)nt) most = 2 * (int64_t)nt; /* still a share for every thread */
        if (P->group_rows[g] && P->group_chunks[g] > most) P->group_chunks[g] = most;
        for (t = g; t < P->group_end[g] && P->group_rows[g]; t++)
            if (!P->stmts[t].empty && !P->stmts[t].absorbed &&
                tc__vm_plan_row_stmt(P, &P->stmts[t], uni) != TC_OK)
                return TC_ERR_OUT_OF_MEMORY;
        if (P->group_rows[g] && tc__vm_plan_row_prefetch(P, g) != TC_OK) return TC_ERR_OUT_OF_MEMORY;
    }
    return TC_OK;
}

/* Tensor t (a temporary or a discarded output, rank 2 or more) needs only
   the rows of the chunk a thread is on when one row group alone touches
   it and the first of its statements to touch it writes those rows whole
   with `=`: each thread keeps them in a buffer of its own, reused chunk
   after chunk, so they stay in cache and never go to memory (softmax's e,
   layernorm's d). Returns the group's first statement, or -1. */
TC__PRIVATE int tc__vm_stage_group(const tc_plan *P, int t) {
    const tc_ir_def *ir = P->ir;
    int s, g = -1, written = 0, d;
    if (t < ir->n_inputs || ir->tensors[t].rank < 2 ||
        (t < ir->n_inputs + ir->n_outputs && !P->discard[t - ir->n_inputs]))
        return -1;
    for (s = 0; s < ir->n_stmts; s++) {
        const tc__vm_splan *sp = &P->stmts[s];
        int reads = tc__vm_stmt_reads(sp->vs, t);
        if (sp->wt != t && !reads) continue;
        if (g < 0) {
            for (g = 0; P->group_end[g] <= s; g = P->group_end[g]) continue; /* the group of s */
            if (P->group_end[g] < g + 2) return -1; /* not a group */
        }
        if (s >= P->group_end[g]) return -1; /* touched outside the group */
        if (written) continue;
        if (reads || sp->st->reduce != TC_REDUCE_ASSIGN || sp->init || sp->empty) return -1;
        for (d = 1; d < ir->tensors[t].rank; d++)
            if (sp->lo[d] != 0 || sp->hi[d] != P->ext[t][d]) return -1;
        written = 1;
    }
    return written ? g : -1;
}

TC__PRIVATE tc_status tc__vm_plan_staging(tc_plan *P) {
    const tc_ir_def *ir = P->ir;
    int t;
    P->stage_group = (int *)tc__plan_alloc(P, (size_t)ir->n_tensors + 1, sizeof(int));
    P->stage_bytes = (int64_t *)tc__plan_alloc(P, (size_t)ir->n_tensors + 1, sizeof(int64_t));
    P->stage_row = (int64_t *)tc__plan_alloc(P, (size_t)ir->n_tensors + 1, sizeof(int64_t));
    P->stage_first = (int *)tc__plan_alloc(P, (size_t)ir->n_stmts + 1, sizeof(int));
    P->stage_next = (int *)tc__plan_alloc(P, (size_t)ir->n_tensors + 1, sizeof(int));
    if (!P->stage_group || !P->stage_bytes || !P->stage_row || !P->stage_first || !P->stage_next)
        return TC_ERR_OUT_OF_MEMORY;
    for (t = 0; t < ir->n_stmts; t++) P->stage_first[t] = -1;
    for (t = ir->n_tensors - 1; t >= 0; t--) { /* listed in tensor order */
        int g = tc__vm_stage_group(P, t);
        int64_t rows = 0, ch;
        P->stage_group[t] = g;
        if (g < 0) continue;
        P->stage_next[t] = P->stage_first[g];
        P->stage_first[g] = t;
        ch = P->group_chunks[g];
        rows = P->group_rows[g] ? 1 : (tc__vm_extent(&P->stmts[g], 0) + ch - 1) / ch;
        P->stage_row[t] = P->ts[t][0] * (int64_t)tc_dtype_size(ir->tensors[t].dtype);
        P->stage_bytes[t] = rows * P->stage_row[t];
    }
    return TC_OK;
}

/* A thread's registers of its own for each statement of a row group run
   row by row (tc__vm_regfile). */
TC__PRIVATE tc_status tc__vm_plan_own_regs(tc_plan *P, tc__vm_thread *T) {
    int g, t;
    T->own = (tc__vm_regfile *)tc__plan_alloc(P, (size_t)P->ir->n_stmts + 1, sizeof(tc__vm_regfile));
    if (!T->own) return TC_ERR_OUT_OF_MEMORY;
    for (g = 0; g < P->ir->n_stmts; g = P->group_end[g])
        for (t = g; t < P->group_end[g] && P->group_rows[g]; t++) {
            tc__vm_regfile *f = &T->own[t];
            size_t n = (size_t)P->stmts[t].vs->n_regs + 2; /* its own, the partials, a scratch block */
            f->regs = tc__plan_alloc_lines(P, n * TC__VM_REG_BYTES);
            f->rp = (void **)tc__plan_alloc(P, n, sizeof(void *));
            f->uni = (unsigned char *)tc__plan_alloc(P, n, 1);
            f->row0 = (const unsigned char **)tc__plan_alloc(P, (size_t)P->stmts[t].n_rsteps + 1, sizeof(void *));
            f->step = (int64_t *)tc__plan_alloc(P, (size_t)P->stmts[t].n_rsteps + 1, sizeof(int64_t));
            if (!f->regs || !f->rp || !f->uni || !f->row0 || !f->step) return TC_ERR_OUT_OF_MEMORY;
        }
    return TC_OK;
}

/* Each thread's plan memory lies between gaps of TC__VM_THREAD_GAP bytes
   (whole lines of an allocation left unused), so no cache line, nor the
   pair of lines the L2 fetches together, holds data of two threads. Without
   them, in layernorm's plan, thread 0's row steps (tc__vm_regfile.step,
   read every row) shared a line with thread 1's tensor pointers (T->ptr,
   rewritten every row as its staged row moves, tc__vm_stage_at). Layernorm
   4096 x 1024 at 2 threads, alternating builds in one process: with the
   gaps a call took no more time, and in most runs a little less. */
#define TC__VM_THREAD_GAP 128

/* A periodic read (tc__vm_plan_fold) of an input, not copied (a run in
   place writes over it), has the same lanes in every block at the same
   offset: each thread fills them into a buffer of its own once a job
   (tc__vm_load_periodic) and points the register at it, rather than
   repeating the row through every block. An input: nothing the job
   writes changes it. */
TC__PRIVATE void tc__vm_plan_pslots(tc_plan *P) {
    int s, k;
    P->n_pslots = 0;
    for (s = 0; s < P->vm->n_stmts; s++)
        for (k = 0; k < P->vm->stmts[s].n_reads; k++) {
            tc__vm_rplan *rp = &P->stmts[s].reads[k];
            rp->pslot = -1;
            if (rp->period && !rp->copy && P->ir->tensors[rp->tensor].kind == TC_TENSOR_INPUT)
                rp->pslot = P->n_pslots++;
        }
}

TC__PRIVATE tc_status tc__vm_plan_threads(tc_plan *P, int n) {
    size_t regsz = ((size_t)P->vm->max_regs + 2) * TC__VM_REG_BYTES;
    int i, max_ins = 0;
    for (i = 0; i < P->vm->n_stmts; i++)
        if (P->vm->stmts[i].n_ins > max_ins) max_ins = P->vm->stmts[i].n_ins;
    P->n_threads = n;
    P->threads = (tc__vm_thread *)tc__plan_alloc(P, (size_t)n, sizeof(tc__vm_thread));
    P->claim = (uint64_t *)(void *)tc__plan_alloc_lines(P, (size_t)n * 64);
    if (!P->threads || !P->claim || !tc__plan_alloc_lines(P, TC__VM_THREAD_GAP))
        return TC_ERR_OUT_OF_MEMORY;
    for (i = 0; i < n; i++) {
        int t;
        P->threads[i].ptr = (unsigned char **)tc__plan_alloc(P, (size_t)P->ir->n_tensors + 1, sizeof(void *));
        P->threads[i].stage = (unsigned char **)tc__plan_alloc(P, (size_t)P->ir->n_tensors + 1, sizeof(void *));
        if (!P->threads[i].ptr || !P->threads[i].stage) return TC_ERR_OUT_OF_MEMORY;
        for (t = 0; t < P->ir->n_tensors; t++) {
            P->threads[i].stage[t] = NULL;
            if (P->stage_group[t] < 0) continue;
            P->threads[i].stage[t] = tc__plan_alloc_lines(P, (size_t)P->stage_bytes[t]);
            if (!P->threads[i].stage[t]) return TC_ERR_OUT_OF_MEMORY;
        }
        P->threads[i].idx = (int64_t *)tc__plan_alloc(P, (size_t)P->vm->max_loops + 1, 8);
        P->threads[i].pack = (unsigned char *)tc__plan_alloc(P, P->pack_bytes + 64, 1);
        P->threads[i].rp = (void **)tc__plan_alloc(P, (size_t)P->vm->max_regs + 2, sizeof(void *));
        P->threads[i].rowp = (const unsigned char **)tc__plan_alloc(P, (size_t)max_ins + 1, sizeof(void *));
        P->threads[i].uni = (unsigned char *)tc__plan_alloc(P, (size_t)P->vm->max_regs + 2, 1);
        P->threads[i].regs = tc__plan_alloc_lines(P, regsz);
        P->threads[i].pbuf = tc__plan_alloc_lines(P, (size_t)P->n_pslots * TC__VM_REG_BYTES);
        P->threads[i].pkey = (int64_t *)tc__plan_alloc(P, (size_t)P->n_pslots + 1, sizeof(int64_t));
        if (!P->threads[i].regs || !P->threads[i].pbuf || !P->threads[i].pkey || !P->threads[i].idx ||
            !P->threads[i].pack || !P->threads[i].rp ||
            !P->threads[i].uni || !P->threads[i].rowp || tc__vm_plan_own_regs(P, &P->threads[i]) != TC_OK ||
            !tc__plan_alloc_lines(P, TC__VM_THREAD_GAP))
            return TC_ERR_OUT_OF_MEMORY;
    }
    if (P->share_bytes && !(P->share = (unsigned char *)tc__plan_alloc(P, P->share_bytes, 1)))
        return TC_ERR_OUT_OF_MEMORY;
    return TC_OK;
}

TC__PRIVATE tc_status tc__vm_plan_build(tc_plan *P, const tc_run_desc *d, tc_error *err) {
    const tc_ir_def *ir = P->ir;
    int i, nt = tc_pool_num_threads(d->pool);
    tc_status rc;
    size_t nten = (size_t)ir->n_tensors + 1;
    P->sx = (int64_t *)tc__plan_alloc(P, (size_t)ir->n_sx + 1, sizeof(int64_t));
    P->ext = (int64_t(*)[TC_MAX_RANK])tc__plan_alloc(P, nten, sizeof(int64_t) * TC_MAX_RANK);
    P->ts = (int64_t(*)[TC_MAX_RANK])tc__plan_alloc(P, nten, sizeof(int64_t) * TC_MAX_RANK);
    P->numel = (int64_t *)tc__plan_alloc(P, nten, sizeof(int64_t));
    P->ptr = (unsigned char **)tc__plan_alloc(P, nten, sizeof(unsigned char *));
    P->temp = (unsigned char **)tc__plan_alloc(P, nten, sizeof(unsigned char *));
    P->in_desc = (tc_tensor *)tc__plan_alloc(P, (size_t)ir->n_inputs + 1, sizeof(tc_tensor));
    P->in_value = (int64_t *)tc__plan_alloc(P, (size_t)ir->n_inputs + 1, sizeof(int64_t));
    P->stmts = (tc__vm_splan *)tc__plan_alloc(P, (size_t)ir->n_stmts + 1, sizeof(tc__vm_splan));
    P->discard = (unsigned char *)tc__plan_alloc(P, (size_t)ir->n_outputs + 1, 1);
    if (!P->sx || !P->ext || !P->ts || !P->numel || !P->ptr || !P->temp || !P->in_desc ||
        !P->in_value || !P->stmts || !P->discard)
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    if ((rc = tc_bind_sizes(P->prog, P->def, d->inputs, d->n_inputs, P->sx, err)) != TC_OK)
        return rc;
    P->n_threads = nt; /* chunk counts (tc__vm_plan_engine); the threads come later */
    if ((rc = tc__vm_plan_tensors(P, d->inputs, err)) != TC_OK) return rc;
    for (i = 0; i < ir->n_inputs; i++) {
        P->in_desc[i] = d->inputs[i];
        P->in_desc[i].strides = NULL; /* the caller's array may change or go: P->ts has them */
        if (d->inputs[i].rank == 0 && tc__dtype_is_int(d->inputs[i].dtype) && d->inputs[i].data)
            tc__vm_scalar_input(&ir->tensors[i], &d->inputs[i], &P->in_value[i], NULL);
    }
    for (i = 0; i < ir->n_outputs; i++) P->discard[i] = d->discard && d->discard[i];
    P->ip_ready = (unsigned char *)tc__plan_alloc(P, (size_t)ir->n_outputs + 1, 1);
    if (!P->ip_ready) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    for (i = 0; d->outputs && d->n_outputs == ir->n_outputs && i < ir->n_outputs; i++) {
        int t;
        if (P->discard[i] || !d->outputs[i].data) continue;
        for (t = 0; t < ir->n_inputs; t++) /* the same buffer: its first writer runs in place */
            if (d->inputs[t].data == d->outputs[i].data && tc__vm_inplace_kind(P, i, t) == 1)
                P->ip_ready[i] = 1;
    }
    for (i = 0; i < ir->n_stmts; i++)
        if ((rc = tc__vm_plan_stmt(P, i, err)) != TC_OK) return rc;
    if (tc__vm_plan_groups(P) != TC_OK) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    tc__vm_plan_absorb(P);
    tc__vm_plan_pslots(P);
    if (tc__vm_plan_group_rows(P, nt) != TC_OK || tc__vm_plan_staging(P) != TC_OK ||
        tc__vm_plan_threads(P, nt) != TC_OK)
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    for (i = ir->n_inputs; i < ir->n_tensors; i++) { /* temporaries and discarded outputs */
        if ((i < ir->n_inputs + ir->n_outputs && !P->discard[i - ir->n_inputs]) ||
            P->stage_group[i] >= 0)
            continue;
        P->temp[i] = (unsigned char *)tc__plan_alloc(
            P, (size_t)P->numel[i], tc_dtype_size(ir->tensors[i].dtype));
        if (!P->temp[i]) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    }
    return TC_OK;
}

TC_API void tc_plan_free(tc_plan *plan) {
    tc_allocator a;
    if (!plan) return;
    a = plan->arena.alloc; /* the program's allocator, copied: the program may be gone */
    tc__arena_free_all(&plan->arena);
    tc__mem_free(&a, plan);
}

TC__PRIVATE tc_status tc__vm_check_outputs(const tc_plan *P, const tc_tensor *out, tc_error *err);

TC_API tc_status tc_plan_create(const tc_program *p, const tc_run_desc *d, tc_plan **out,
                                tc_error *err) {
    tc_plan *P;
    tc_status rc;
    int def;
    tc__clear_error(err);
    if (!out) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_plan_create: out is NULL");
    *out = NULL;
    if (!d) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_plan_create: desc is NULL");
    if ((rc = tc__vm_find_def(p, d->entry, &def, err)) != TC_OK) return rc;
    if ((rc = tc__vm_check_count(&p->ir[def], 0, d->n_inputs, d->inputs, err)) != TC_OK) return rc;
    P = (tc_plan *)tc__mem_alloc(&p->alloc, sizeof *P);
    if (!P) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    memset(P, 0, sizeof *P);
    P->prog = p;
    P->def = def;
    P->ir = &p->ir[def];
    P->vm = (const tc__vm_def *)p->backend[def];
    P->arena.alloc = p->alloc;
    if ((rc = tc__vm_plan_build(P, d, err)) != TC_OK ||
        ((d->outputs || d->n_outputs) && /* given now: checked now, as tc_plan_run will */
         ((rc = tc__vm_check_count(P->ir, 1, d->n_outputs, d->outputs, err)) != TC_OK ||
          (rc = tc__vm_check_outputs(P, d->outputs, err)) != TC_OK))) {
        tc_plan_free(P);
        return rc;
    }
    *out = P;
    return TC_OK;
}

typedef struct tc__vm_job {
    tc_plan *P;
    const tc__vm_splan *sp; /* one statement, or NULL: the row group [g0, g1) */
    int g0, g1;
    int check;              /* the gather check pass of sp */
    int combine;            /* the segments of sp, all run, combined (tc__vm_seg_combine) */
    int64_t n_chunks;
    int64_t next;           /* the next chunk, where chunks go in order (ranges 0) */
    int ranges;             /* threads that claim from ranges of their own (tc__vm_claim) */
    int alone;              /* one thread runs every chunk, in order: no atomics */
    int failed;
} tc__vm_job;

/* Staged rows (tc__vm_plan_staging): row `row` of tensor t is the first of
   this thread's buffer. */
TC__PRIVATE void tc__vm_stage_at(tc__vm_run *R, int g, int64_t row) {
    const tc_plan *P = R->P;
    int t;
    for (t = P->stage_first[g]; t >= 0; t = P->stage_next[t])
        R->T->ptr[t] = (unsigned char *)((uintptr_t)R->T->stage[t] - (uintptr_t)(row * P->stage_row[t]));
}

/* A thread's register file in use: the shared one, or a statement's own. */
TC__PRIVATE void tc__vm_use_regs(tc__vm_thread *T, const tc__vm_regfile *f) {
    T->regs = f->regs;
    T->rp = f->rp;
    T->uni = f->uni;
}

/* Where the loads of statement t's row steps are at row 0 in this chunk,
   and a row's step (a staged row: its slot's, tc__vm_stage_at). */
TC__PRIVATE void tc__vm_row_bases(tc__vm_run *R, int t) {
    const tc_plan *P = R->P;
    const tc__vm_splan *sp = &P->stmts[t];
    tc__vm_thread *T = R->T;
    tc__vm_regfile *f = &T->own[t];
    int k;
    for (k = 0; k < sp->n_rsteps; k++) {
        const tc__vm_rowstep *s = &sp->rsteps[k];
        int staged;
        if (s->tensor < 0) continue;
        staged = T->stage[s->tensor] != NULL;
        f->row0[k] = (staged ? T->stage[s->tensor] : T->ptr[s->tensor]) + s->off;
        f->step[k] = s->step - (staged ? P->stage_row[s->tensor] : 0);
    }
}

/* Register r is written by one of statement sp's row steps: its value
   changes from row to row (else the prologue's, the same for the chunk). */
TC__PRIVATE int tc__vm_row_writes(const tc__vm_splan *sp, unsigned r) {
    int k;
    for (k = 0; k < sp->n_rsteps; k++)
        if (sp->rsteps[k].in->a == r) return 1;
    return 0;
}

/* The row step that loads register r as a row (of lanes), or -1. */
TC__PRIVATE int tc__vm_row_of(const tc__vm_splan *sp, unsigned r) {
    int k, row = -1;
    for (k = 0; k < sp->n_rsteps; k++)
        if (sp->rsteps[k].in->a == r) row = sp->rsteps[k].tensor >= 0 && !sp->rsteps[k].uniform ? k : -1;
    return row;
}

/* The call statement t of a row group run row by row makes on each row of
   this chunk, decided as its form's call decides (tc__vm_row_stmt), after
   its prologue: float32 throughout; every row operand a row step's; s
   read from its register each row where a row step makes it (the last
   link's scalar t must not change). TC__VM_CALL_NONE: tc__vm_row_stmt's
   way on each row. */
TC__PRIVATE void tc__vm_row_resolve(tc__vm_run *R, int t) {
    const tc__vm_splan *sp = &R->P->stmts[t];
    const tc__vm_stmt *vs = sp->vs;
    const tc__vm_ins *op = vs->ins + sp->ew_op, *last = vs->ins + vs->n_ins - 1 - sp->ew_call;
    tc__vm_thread *T = R->T;
    tc__vm_rowcall *c = &T->own[t].call;
    unsigned scalar = sp->row_scalar;
    int k;
    c->kind = TC__VM_CALL_NONE;
    c->reg[0] = c->reg[1] = c->reg[2] = c->s_reg = TC__VM_NONE;
    c->has_t = c->summed = 0;
    c->sums = -1;
    if (vs->vdt != TC_FLOAT32 || (op < vs->ins + vs->n_ins && op->dt != TC_FLOAT32)) return;
    switch (sp->row_form) {
    case TC__VM_ROW_REDUCE:
        if (scalar != TC__VM_NONE && tc__vm_row_writes(sp, scalar)) return;
        if (!tc__vm_ew_reduce_call(T, sp, op, last, scalar, c)) c->kind = TC__VM_CALL_NONE;
        break;
    case TC__VM_ROW_EXP:
        c->kind = TC__VM_CALL_EXP;
        c->code = op->op;
        c->reg[0] = op->b;
        c->s_reg = scalar;
        break;
    case TC__VM_ROW_OP: /* one op on a row and the scalar (layernorm's X - mean, softmax's e / s) */
        if (op != last || scalar != op->c || !tc__k_arith_uniform_ok(op->op, TC_FLOAT32)) return;
        c->kind = sp->stream || sp->stream_div ? TC__VM_CALL_UNI_NT : TC__VM_CALL_UNI;
        c->code = op->op;
        c->reg[0] = op->b;
        c->s_reg = scalar;
        break;
    case TC__VM_ROW_SPLIT: /* layernorm's d / sqrt(var + eps) * g + b */
        if (scalar == TC__VM_NONE) tc__vm_ew_split_call(op, last, last->op, c);
        break;
    default: break;
    }
    for (k = 0; k < 3 && c->kind; k++) {
        c->row[k] = c->reg[k] == TC__VM_NONE ? -1 : tc__vm_row_of(sp, c->reg[k]);
        if (c->reg[k] != TC__VM_NONE && c->row[k] < 0) c->kind = TC__VM_CALL_NONE; /* not a row */
    }
    if (c->s_reg != TC__VM_NONE && !tc__vm_row_writes(sp, c->s_reg)) { /* the same s every row */
        memcpy(&c->s, T->rp[c->s_reg], sizeof c->s);
        c->s_reg = TC__VM_NONE;
    }
}

/* The row (T->idx[0]) of statement sp's one op on a scalar s into w from
   a, and of the statement that sums its squares (tc__vm_row_fuse), stored
   as that statement would. */
TC__PRIVATE int tc__vm_row_sums(tc__vm_run *R, const tc__vm_regfile *f, unsigned char *w, const float *a,
                                float s) {
    const tc__vm_splan *sp = R->sp, *su = &R->P->stmts[f->call.sums];
    const tc__vm_regfile *fu = &R->T->own[f->call.sums];
    unsigned char *acc = (unsigned char *)TC__VM_REG(R->T, sp->vs->n_regs);
    float z;
    int folded;
    memcpy(&z, fu->id, sizeof z);
    folded = tc__k_uni_sq_reduce_f32(f->call.code, (float *)(void *)w, a, s, fu->call.code, &z, (float *)(void *)acc,
                                     fu->call.has_t ? &fu->call.t : NULL, sp->row_n);
    R->sp = su;
    tc__vm_ew_reduce_store(R, acc, folded, tc__vm_ew_row_ptr(R));
    R->sp = sp;
    return 1;
}

/* Row i of statement sp of a row group run row by row by its resolved call
   (tc__vm_row_resolve), in its registers f: the uniform row steps that
   make s, if any, then the kernel on the rows. 0 where the kernel
   declined, having written nothing (tc__vm_row_stmt's way then). */
TC__PRIVATE int tc__vm_row_call(tc__vm_run *R, const tc__vm_regfile *f, int64_t i) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_rowcall *c = &f->call;
    tc__vm_thread *T = R->T;
    const unsigned char *rows[3] = {NULL, NULL, NULL};
    unsigned char *w = tc__vm_ew_row_ptr(R), ab_id[8];
    float s = c->s, *acc = (float *)TC__VM_REG(T, sp->vs->n_regs), z;
    int k, n = sp->row_n, nt = sp->stream || sp->stream_div;
    for (k = 0; k < 3; k++)
        if (c->row[k] >= 0) rows[k] = f->row0[c->row[k]] + i * f->step[c->row[k]];
    if (c->s_reg != TC__VM_NONE) { /* the uniform steps alone: the rows are in rows[] */
        tc__vm_row_steps(R, f, 1);
        memcpy(&s, T->rp[c->s_reg], sizeof s);
    }
#define TC__VM_ROW_F(k) ((const float *)(const void *)rows[k])
    switch (c->kind) {
    case TC__VM_CALL_REDUCE:
        memcpy(&z, f->id, sizeof z);
        k = tc__k_chain_reduce_f32(c->code, sp->st->reduce, &z, acc, TC__VM_ROW_F(0), TC__VM_ROW_F(1),
                                   TC__VM_ROW_F(2), c->has_t ? &c->t : NULL, n, 0);
        tc__vm_ew_reduce_store(R, (unsigned char *)acc, k, w);
        return 1;
    case TC__VM_CALL_UNI:
        if (c->sums >= 0) return tc__vm_row_sums(R, f, w, TC__VM_ROW_F(0), s);
        tc__k_arith_uniform(c->code, TC_FLOAT32, w, rows[0], &s, 0, n);
        break;
    case TC__VM_CALL_UNI_NT: tc__vm_uni_nt_f32(c->code, (float *)(void *)w, TC__VM_ROW_F(0), s, n); break;
    case TC__VM_CALL_EXP: tc__math_block_exp_of((float *)(void *)w, TC__VM_ROW_F(0), c->code, s, n); break;
    default:
        if (!tc__k_chain_div_uni_f32(c->code, 0, (float *)(void *)w, TC__VM_ROW_F(0), s, TC__VM_ROW_F(1),
                                     TC__VM_ROW_F(2), NULL, n, nt))
            return 0;
        break;
    }
#undef TC__VM_ROW_F
    if (sp->absorb) {
        tc__vm_identity(TC_FLOAT32, sp->absorb->st->reduce, ab_id);
        tc__vm_ew_absorb_store(R, tc__vm_ew_absorb(R, ab_id, (const float *)(const void *)w, 0, n, 1));
    }
    return 1;
}

/* Statement u, the next to run after t in a row group run row by row,
   sums the squares of exactly the row t writes with one op on a scalar
   (layernorm's var(i) +=! d(i,j) * d(i,j) / N after d(i,j) = X(i,j) -
   mean(i)): then t's call makes both in one pass (tc__k_uni_sq_reduce_f32,
   the same values and order as the two calls), and u's is not made. */
TC__PRIVATE void tc__vm_row_fuse(tc__vm_run *R, int t, int u) {
    const tc__vm_splan *st = &R->P->stmts[t], *su = &R->P->stmts[u];
    tc__vm_rowcall *ct = &R->T->own[t].call, *cu = &R->T->own[u].call;
    int k;
    if (ct->kind != TC__VM_CALL_UNI || st->absorb || su->absorb || st->row_n != su->row_n ||
        st->rsteps[ct->row[0]].tensor == st->wt)
        return;
    if (cu->kind != TC__VM_CALL_REDUCE || su->st->reduce != TC_REDUCE_SUM || cu->row[2] >= 0 ||
        !tc__k_uni_sq_ok(ct->code, cu->code, cu->has_t))
        return;
    for (k = 0; k < 2; k++) {
        const tc__vm_rowstep *rs = cu->row[k] >= 0 ? &su->rsteps[cu->row[k]] : NULL;
        if (!rs || rs->tensor != st->wt || rs->off != st->w_off || rs->step != st->w_step) return;
    }
    ct->sums = u;
    cu->summed = 1;
}

/* Rows [r0, r1) of a row group run row by row (tc__vm_rows_ok): each
   statement's prologue runs once, in the statement's own registers, which
   its rows then use. */
TC__PRIVATE void tc__vm_group_rows(tc__vm_run *R, const tc__vm_job *J, int64_t r0, int64_t r1) {
    const tc_plan *P = R->P;
    const tc__vm_splan *s0 = &P->stmts[J->g0];
    tc__vm_thread *T = R->T;
    tc__vm_regfile shared;
    int64_t i, ahead = P->n_threads > 1 ? 2 : 1;
    int t, u, k;
    shared.regs = T->regs;
    shared.rp = T->rp;
    shared.uni = T->uni;
    for (t = J->g0; t < J->g1; t++) {
        const tc__vm_splan *sp = &P->stmts[t];
        if (sp->empty || sp->absorbed) continue;
        R->sp = sp;
        tc__vm_use_regs(T, &T->own[t]);
        tc__vm_prologue(R);
        tc__vm_identity(sp->vs->vdt, sp->st->reduce, T->own[t].id);
        tc__vm_row_bases(R, t);
        tc__vm_row_resolve(R, t);
    }
    for (t = J->g0, u = -1; t < J->g1; t++) { /* u: the statement before t that runs */
        if (P->stmts[t].empty || P->stmts[t].absorbed) continue;
        if (u >= 0) tc__vm_row_fuse(R, u, t);
        u = t;
    }
    for (i = s0->lo[0] + r0; i < s0->lo[0] + r1; i++) {
        tc__vm_stage_at(R, J->g0, i);
        for (t = J->g0; t < J->g1; t++) {
            const tc__vm_splan *sp = &P->stmts[t];
            if (sp->empty || sp->absorbed) continue;
            R->sp = sp;
            tc__vm_use_regs(T, &T->own[t]);
            T->idx[0] = i;
            T->idx[1] = sp->lo[1];
            if (!T->own[t].call.summed && /* else made with the statement before */
                (!T->own[t].call.kind || !tc__vm_row_call(R, &T->own[t], i)))
                tc__vm_row_stmt(R, T->own[t].id);
            for (k = 0; i + ahead < s0->hi[0] && k < sp->n_row_pf; k++) /* its slice of a row ahead */
                tc__vm_prefetch(T->ptr[sp->row_pf[k].tensor], sp->row_pf[k].off + (i + ahead) * sp->row_pf[k].step,
                                sp->row_pf[k].bytes, 0);
        }
    }
    tc__vm_use_regs(T, &shared);
}

/* Chunk c of a row group: rows [r0, r1) of the shared first loop through
   every statement of the group in order, so the rows a statement writes
   are still in cache when the next one reads them. */
TC__PRIVATE int tc__vm_group_chunk(tc__vm_run *R, const tc__vm_job *J, int64_t c) {
    const tc_plan *P = J->P;
    const tc__vm_splan *s0 = &P->stmts[J->g0];
    int64_t E = tc__vm_extent(s0, 0), r0, r1;
    int t;
    tc__vm_even_part(E, J->n_chunks, c, &r0, &r1);
    if (P->group_rows[J->g0]) {
        R->by_row = 1;
        tc__vm_group_rows(R, J, r0, r1);
        R->by_row = 0;
        return 1;
    }
    tc__vm_stage_at(R, J->g0, s0->lo[0] + r0); /* row lo + r0 is the buffer's first */
    for (t = J->g0; t < J->g1; t++) {
        const tc__vm_splan *sp = &P->stmts[t];
        int64_t ipr = sp->n_items / E;
        if (sp->empty || sp->absorbed) continue;
        R->sp = sp;
        if (!tc__vm_items(R, r0 * ipr, r1 * ipr)) return 0;
    }
    return 1;
}

/* Which chunks a thread runs. Each of the job's threads owns a contiguous
   range of them and takes its front; once that is empty, it takes from
   the back of the others'. Each thread's chunks then follow one another in
   memory, so the prefetchers of its streams (the hardware's, and
   tc__k_prefetch_f32 two pieces ahead) run on across chunks, where one
   counter handed the threads alternate chunks (tanh(a * x + b) over 16M
   lanes, two threads: slower that way), and a
   thread that runs slow still gets help. Chunks made for claims in order
   take the counter: shared panels' items (tc__ct_item), and chunks that
   shrink (the big ones would all be one thread's). A range is a word,
   front << 32 | back. A job one thread runs alone takes its chunks in
   order with no atomics: a locked instruction waits for every load before
   it, so at each chunk the next one's loads waited for the last ones from
   memory (rowsum 4096 x 4096, one thread: a call took less time without).
   The chunk, or n_chunks when none is left. */
#define TC__VM_CLAIM_STEP 8 /* words from one thread's range to the next: a line */
TC__PRIVATE uint64_t tc__vm_range_word(int64_t front, int64_t back) {
    return (uint64_t)front << 32 | (uint64_t)back;
}
TC__PRIVATE void tc__vm_claim_setup(tc__vm_job *J, int threads) {
    int i;
    J->next = 0;
    J->alone = threads <= 1;
    J->ranges = J->alone ? 0 : threads;
    if (J->n_chunks > INT32_MAX || (J->sp && (J->sp->shrink || (J->sp->ct && J->sp->ct_shape.share))))
        J->ranges = 0;
    for (i = 0; i < J->ranges; i++)
        J->P->claim[i * TC__VM_CLAIM_STEP] =
            tc__vm_range_word(J->n_chunks * i / J->ranges, J->n_chunks * (i + 1) / J->ranges);
}
#if defined(TC__HAVE_ATOMICS)
TC__PRIVATE int64_t tc__vm_claim_from(uint64_t *range, int from_back) {
    uint64_t v = TC__ATOMIC_LOAD(range);
    for (;;) {
        int64_t front = (int64_t)(v >> 32), back = (int64_t)(v & 0xffffffffu);
        if (front >= back) return -1;
        if (TC__ATOMIC_CAS(range, &v, from_back ? tc__vm_range_word(front, back - 1)
                                                : tc__vm_range_word(front + 1, back)))
            return from_back ? back - 1 : front;
    }
}
#endif
TC__PRIVATE int64_t tc__vm_claim(tc__vm_job *J, int tid) {
#if defined(TC__HAVE_ATOMICS)
    int k;
    if (J->alone) return J->next++;
    if (!J->ranges) return TC__ATOMIC_ADD(&J->next, 1);
    for (k = 0; k < J->ranges; k++) {
        int64_t c = tc__vm_claim_from(&J->P->claim[(tid + k) % J->ranges * TC__VM_CLAIM_STEP], k > 0);
        if (c >= 0) return c;
    }
    return J->n_chunks;
#else
    (void)tid;
    return J->next++; /* single-threaded without atomics */
#endif
}

TC__PRIVATE void tc__vm_job_fn(void *ctx, int tid) {
    tc__vm_job *J = (tc__vm_job *)ctx;
    tc__vm_run R;
    int k;
    if (tid >= J->P->n_threads) return;
    R.P = J->P;
    R.sp = J->sp;
    R.T = &J->P->threads[tid];
    R.T->ct_kept = -1; /* a new job: new panels (another statement, or new inputs) */
    for (k = 0; k < J->P->n_pslots; k++) R.T->pkey[k] = INT64_MIN; /* and new inputs */
    R.check = J->check;
    R.next_row = 0;
    R.by_row = 0;
    memcpy(R.T->ptr, J->P->ptr, sizeof(void *) * (size_t)J->P->ir->n_tensors);
    for (;;) {
        int64_t c;
        int ok;
#if defined(TC__HAVE_ATOMICS)
        if (TC__ATOMIC_LOAD(&J->failed)) break;
#endif
        c = tc__vm_claim(J, tid);
        if (c >= J->n_chunks) break;
        ok = J->combine ? tc__vm_seg_combine(&R) : J->sp ? tc__vm_chunk(&R, c) : tc__vm_group_chunk(&R, J, c);
        if (!ok) {
#if defined(TC__HAVE_ATOMICS)
            TC__ATOMIC_STORE(&J->failed, 1);
#else
            J->failed = 1;
#endif
            break;
        }
    }
    tc__k_stream_fence(); /* streamed stores are visible to other threads once fenced */
}

TC__PRIVATE void tc__vm_fill_identity(tc_plan *P, int t, tc_reduce r) {
    const tc_ir_tensor *ten = &P->ir->tensors[t];
    size_t esz = tc_dtype_size(ten->dtype);
    unsigned char id[8];
    int64_t done = 0;
    tc__vm_identity(ten->dtype, r, id);
    while (done < P->numel[t]) {
        int64_t n = P->numel[t] - done < (1 << 20) ? P->numel[t] - done : (1 << 20);
        tc__k_fill(esz, P->ptr[t] + done * (int64_t)esz, id, (int)n);
        done += n;
    }
}

/* Runs one job (a statement or a row group) on the pool; reports the
   first error a thread met. */
TC__PRIVATE tc_status tc__vm_run_job(tc_plan *P, tc_pool *pool, tc__vm_job *J, tc_error *err) {
    int i, on_pool = J->n_chunks > 1 && pool && pool->n_threads > 1;
    J->failed = 0;
    for (i = 0; i < P->n_threads; i++) P->threads[i].err.code = TC_OK;
#if defined(TC__HAVE_ATOMICS)
    tc__vm_claim_setup(J, on_pool ? (pool->n_threads < P->n_threads ? pool->n_threads : P->n_threads) : 1);
    if (on_pool) tc__pool_run(pool, tc__vm_job_fn, J);
    else tc__vm_job_fn(J, 0);
#else
    tc__vm_claim_setup(J, 0);
    (void)pool;
    tc__vm_job_fn(J, 0);
#endif
    if (!J->failed) return TC_OK;
    for (i = 0; i < P->n_threads; i++)
        if (P->threads[i].err.code != TC_OK) {
            if (err) *err = P->threads[i].err;
            return P->threads[i].err.code;
        }
    return tc__set_error(err, TC_ERR_BACKEND, "run failed");
}

/* Checks every gather whose indices come from inputs before anything is
   written (the generic path's items, running only the check slice). */
TC__PRIVATE tc_status tc__vm_check_gathers(tc_plan *P, tc_pool *pool, tc_error *err) {
    int s;
    tc_status rc;
    for (s = 0; s < P->ir->n_stmts; s++) {
        const tc__vm_splan *sp = &P->stmts[s];
        tc__vm_job J;
        if (!sp->vs->check || sp->empty || sp->mk || sp->ct) continue;
        J.P = P;
        J.sp = sp;
        J.check = 1;
        J.combine = 0;
        J.n_chunks = sp->n_chunks;
        if ((rc = tc__vm_run_job(P, pool, &J, err)) != TC_OK) return rc;
    }
    return TC_OK;
}

TC__PRIVATE tc_status tc__vm_run_stmts(tc_plan *P, tc_pool *pool, tc_error *err) {
    int s;
    tc_status rc;
    for (s = 0; s < P->ir->n_stmts;) {
        const tc__vm_splan *sp = &P->stmts[s];
        tc__vm_job J;
        J.P = P;
        J.check = 0;
        J.combine = 0;
        if (P->group_end[s] > s + 1) { /* a row group */
            J.sp = NULL;
            J.g0 = s;
            J.g1 = P->group_end[s];
            J.n_chunks = P->group_chunks[s];
            if ((rc = tc__vm_run_job(P, pool, &J, err)) != TC_OK) return rc;
            s = J.g1;
            continue;
        }
        if (sp->init) tc__vm_fill_identity(P, sp->wt, sp->st->reduce);
        s++;
        if (sp->empty) continue;
        if (sp->ct && sp->ct_shape.share) tc__contract_share_reset(&sp->ct_shape, P->share);
        J.sp = sp;
        J.n_chunks = sp->n_chunks;
        if ((rc = tc__vm_run_job(P, pool, &J, err)) != TC_OK) return rc;
        if (sp->n_segs > 1) { /* on this thread, once every segment is done */
            J.combine = 1;
            J.n_chunks = 1;
            if ((rc = tc__vm_run_job(P, pool, &J, err)) != TC_OK) return rc;
        }
    }
    return TC_OK;
}

/* The inputs of a plan run must be those the plan was made for. Each is
   first checked against the signature as tc_run checks it (dtype, rank,
   extents, strides, alignment), so those errors get the same code and
   message from both; then against the plan's shapes and strides. */
TC__PRIVATE tc_status tc__vm_same_inputs(const tc_plan *P, const tc_tensor *in, tc_error *err) {
    tc_status rc;
    int i, d;
    for (i = 0; i < P->ir->n_inputs; i++) {
        const tc_tensor *a = &P->in_desc[i], *b = &in[i];
        const char *name = P->ir->tensors[i].name;
        int same = 1; /* dtype and rank: the signature's, as the plan's were */
        int64_t dense = 1; /* b's row-major stride in dimension d */
        if ((rc = tc__vm_check_arg(&P->ir->tensors[i], b, err)) != TC_OK) return rc;
        for (d = a->rank - 1; same && d >= 0; d--) {
            int64_t sb = b->strides ? b->strides[d] : dense;
            same = a->shape[d] == b->shape[d] && (P->ts[i][d] == sb || a->shape[d] <= 1);
            dense *= a->shape[d]; /* no overflow: the planned shapes' sizes were checked */
        }
        if (!same)
            return tc__set_error(err, TC_ERR_SHAPE,
                                 "input %s differs from the one the plan was made for", name);
        if (P->numel[i] > 0 && !b->data)
            return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "input %s: data is NULL", name);
        if (b->rank == 0 && tc__dtype_is_int(b->dtype)) {
            int64_t v = 0;
            int k, used = 0;
            for (k = 0; k < P->ir->n_sx; k++)
                used |= P->ir->sx[k].op == TC_SX_SCALAR && P->ir->sx[k].value == i;
            if (used && (tc__vm_scalar_input(&P->ir->tensors[i], b, &v, err) != TC_OK ||
                         v != P->in_value[i]))
                return tc__set_error(err, TC_ERR_SHAPE,
                                     "input %s sets sizes: its value differs from the planned one",
                                     name);
        }
    }
    return TC_OK;
}

/* Caller outputs: dtype, shape and layout as inferred. */
TC__PRIVATE tc_status tc__vm_check_outputs(const tc_plan *P, const tc_tensor *out, tc_error *err) {
    int i, d, base = P->ir->n_inputs;
    for (i = 0; i < P->ir->n_outputs; i++) {
        const tc_ir_tensor *t = &P->ir->tensors[base + i];
        const tc_tensor *o = &out[i];
        tc_status rc;
        if (!o->data || P->discard[i]) continue;
        if ((rc = tc__vm_check_arg(t, o, err)) != TC_OK) return rc;
        for (d = 0; d < t->rank; d++) {
            if (o->shape[d] != P->ext[base + i][d])
                return tc__set_error(err, TC_ERR_SHAPE,
                                     "output %s: dimension %d is %lld, expected %lld", t->name, d,
                                     (long long)o->shape[d], (long long)P->ext[base + i][d]);
            if (o->strides && o->strides[d] != P->ts[base + i][d] && o->shape[d] > 1)
                return tc__set_error(err, TC_ERR_UNSUPPORTED,
                                     "output %s must be contiguous (row-major)", t->name);
        }
    }
    return TC_OK;
}

/* The bytes tensor t (planned extents and strides) spans from data:
   [*lo, *hi), or 0 when it has no element. */
/* The element offsets from its first element that tensor t reaches:
   [*below, *above] (fits: tc__vm_check_strides). */
TC__PRIVATE void tc__vm_reach(const tc_plan *P, int t, int64_t *below, int64_t *above) {
    int d;
    *below = *above = 0;
    for (d = 0; d < P->ir->tensors[t].rank; d++) {
        int64_t reach = P->ts[t][d] * (P->ext[t][d] - 1);
        if (reach < 0) *below += reach;
        else *above += reach;
    }
}
TC__PRIVATE int tc__vm_span(const tc_plan *P, int t, const void *data, uintptr_t *lo,
                            uintptr_t *hi) {
    int64_t below, above, esz = (int64_t)tc_dtype_size(P->ir->tensors[t].dtype);
    if (!data || P->numel[t] == 0) return 0;
    tc__vm_reach(P, t, &below, &above);
    *lo = (uintptr_t)data - (uintptr_t)(-below * esz);
    *hi = (uintptr_t)data + (uintptr_t)((above + 1) * esz);
    return 1;
}

/* A caller's output may share no byte with another output (which one's
   values would the shared bytes hold?). One that shares bytes with an
   input runs in place (the input's values are then its values before the
   run, as in a separate buffer holding a copy of them): straight into the
   buffer where tc__vm_inplace_kind proves that gives the separate
   buffers' result and the plan is ready for it, else staged
   (stage[o] = 1: computed in scratch, copied over the caller's buffer once
   the run succeeded, tc__vm_run_staged). */
TC__PRIVATE tc_status tc__vm_check_overlap(const tc_plan *P, const tc_run_desc *d, int *stage,
                                           tc_error *err) {
    const tc_ir_def *ir = P->ir;
    int o, t;
    for (o = 0; o < ir->n_outputs; o++) stage[o] = 0;
    for (o = 0; o < ir->n_outputs; o++) {
        uintptr_t olo, ohi, lo, hi;
        int ot = ir->n_inputs + o;
        if (P->discard[o] || !tc__vm_span(P, ot, d->outputs[o].data, &olo, &ohi)) continue;
        for (t = ir->n_inputs; t < ot; t++)
            if (!P->discard[t - ir->n_inputs] &&
                tc__vm_span(P, t, d->outputs[t - ir->n_inputs].data, &lo, &hi) && olo < hi && lo < ohi)
                return tc__set_error(err, TC_ERR_INVALID_ARGUMENT,
                                     "output %s shares memory with output %s: two outputs need "
                                     "buffers of their own", ir->tensors[ot].name, ir->tensors[t].name);
        for (t = 0; t < ir->n_inputs; t++) {
            int kind;
            if (!tc__vm_span(P, t, d->inputs[t].data, &lo, &hi) || olo >= hi || lo >= ohi) continue;
            kind = d->inputs[t].data == d->outputs[o].data ? tc__vm_inplace_kind(P, o, t) : 0;
            if (kind == 0 || (kind == 1 && !P->ip_ready[o])) stage[o] = 1;
        }
    }
    return TC_OK;
}

TC__PRIVATE void tc__vm_free_new_outputs(const tc_plan *P, tc_tensor *out, const int *fresh) {
    int i;
    for (i = 0; i < P->ir->n_outputs; i++)
        if (fresh[i]) {
            tc__mem_free(&P->prog->alloc, out[i].data);
            out[i].data = NULL;
        }
}

/* Outputs with data NULL are allocated zeroed (only data is set: the rest
   of the caller's descriptor changes once the run succeeds,
   tc__vm_describe_outputs). */
TC__PRIVATE tc_status tc__vm_alloc_outputs(const tc_plan *P, tc_tensor *out, int *fresh,
                                           tc_error *err) {
    int i, base = P->ir->n_inputs;
    for (i = 0; i < P->ir->n_outputs; i++) fresh[i] = 0; /* all: a failure frees only these */
    for (i = 0; i < P->ir->n_outputs; i++) {
        const tc_ir_tensor *t = &P->ir->tensors[base + i];
        size_t bytes = (size_t)P->numel[base + i] * tc_dtype_size(t->dtype);
        if (out[i].data || P->discard[i]) continue;
        out[i].data = tc__mem_alloc(&P->prog->alloc, bytes);
        if (!out[i].data) {
            tc__vm_free_new_outputs(P, out, fresh);
            return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory (output %s)", t->name);
        }
        memset(out[i].data, 0, bytes ? bytes : 1);
        fresh[i] = 1;
    }
    return TC_OK;
}

/* After a run that succeeded: the outputs it allocated get their dtype,
   rank, shape and (C-order) strides. */
TC__PRIVATE void tc__vm_describe_outputs(const tc_plan *P, tc_tensor *out, const int *fresh) {
    int i, d, base = P->ir->n_inputs;
    for (i = 0; i < P->ir->n_outputs; i++) {
        const tc_ir_tensor *t = &P->ir->tensors[base + i];
        if (!fresh[i]) continue;
        out[i].dtype = t->dtype;
        out[i].rank = t->rank;
        out[i].strides = NULL;
        for (d = 0; d < TC_MAX_RANK; d++) out[i].shape[d] = d < t->rank ? P->ext[base + i][d] : 0;
    }
}

/* Whether some gather's indices come from data the def computes: those are
   checked as the run goes, not before it (tc__vm_check_slice). */
TC__PRIVATE int tc__vm_late_gathers(const tc_plan *P) {
    int s, r;
    for (s = 0; s < P->ir->n_stmts; s++) {
        const tc__vm_stmt *vs = P->stmts[s].vs;
        for (r = 0; r < vs->n_reads; r++)
            if (vs->reads[r].gather && !vs->check) return 1;
    }
    return 0;
}

/* Runs the statements with the caller's output buffers marked in stage
   staged in scratch copies, copied back only when the whole run
   succeeded: a late gather failure then leaves the caller's outputs
   untouched, and an output that shares memory with an input is computed
   while the input keeps its values. */
TC__PRIVATE tc_status tc__vm_run_staged(tc_plan *P, const tc_run_desc *d, const int *stage,
                                        tc_error *err) {
    const tc_ir_def *ir = P->ir;
    int i, base = ir->n_inputs;
    tc_status rc = TC_OK;
    for (i = 0; i < ir->n_outputs && rc == TC_OK; i++) {
        size_t bytes = (size_t)P->numel[base + i] * tc_dtype_size(ir->tensors[base + i].dtype);
        if (!stage[i]) continue;
        P->ptr[base + i] = (unsigned char *)tc__mem_alloc(&P->prog->alloc, bytes);
        if (!P->ptr[base + i])
            rc = tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory (staging %s)",
                               ir->tensors[base + i].name);
        else memcpy(P->ptr[base + i], d->outputs[i].data, bytes); /* += accumulates into it */
    }
    if (rc == TC_OK) rc = tc__vm_run_stmts(P, d->pool, err);
    for (i = 0; i < ir->n_outputs; i++) {
        size_t bytes = (size_t)P->numel[base + i] * tc_dtype_size(ir->tensors[base + i].dtype);
        if (!stage[i] || P->ptr[base + i] == (unsigned char *)d->outputs[i].data) continue;
        if (rc == TC_OK && P->ptr[base + i]) memcpy(d->outputs[i].data, P->ptr[base + i], bytes);
        tc__mem_free(&P->prog->alloc, P->ptr[base + i]);
        P->ptr[base + i] = (unsigned char *)d->outputs[i].data;
    }
    return rc;
}

TC_API tc_status tc_plan_run(tc_plan *P, const tc_run_desc *d, tc_error *err) {
    int flags_local[32], *fresh = flags_local, *stage = flags_local + 16, i, caller = 0, staged = 0;
    tc_status rc;
    const tc_ir_def *ir;
    tc__clear_error(err);
    if (!P || !d) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_plan_run: NULL argument");
    ir = P->ir;
    if (d->entry && strcmp(d->entry, ir->name) != 0)
        return tc__set_error(err, TC_ERR_NAME, "the plan runs %s, not %s", ir->name, d->entry);
    if ((rc = tc__vm_check_count(ir, 0, d->n_inputs, d->inputs, err)) != TC_OK ||
        (rc = tc__vm_check_count(ir, 1, d->n_outputs, d->outputs, err)) != TC_OK)
        return rc;
    for (i = 0; i < ir->n_outputs; i++)
        if (P->discard[i] != (d->discard && d->discard[i]))
            return tc__set_error(err, TC_ERR_INVALID_ARGUMENT,
                                 "output %s: the plan was made with it %s", ir->tensors[ir->n_inputs + i].name,
                                 P->discard[i] ? "discarded" : "wanted");
    if ((rc = tc__vm_same_inputs(P, d->inputs, err)) != TC_OK) return rc;
    if ((rc = tc__vm_check_outputs(P, d->outputs, err)) != TC_OK) return rc;
    if (ir->n_outputs > 16) {
        fresh = (int *)tc__mem_alloc(&P->prog->alloc, sizeof(int) * 2 * (size_t)ir->n_outputs);
        if (!fresh) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
        stage = fresh + ir->n_outputs;
    }
    rc = tc__vm_check_overlap(P, d, stage, err);
    if (rc == TC_OK) rc = tc__vm_alloc_outputs(P, d->outputs, fresh, err);
    if (rc == TC_OK) {
        for (i = 0; i < ir->n_inputs; i++) P->ptr[i] = (unsigned char *)d->inputs[i].data;
        for (i = ir->n_inputs; i < ir->n_tensors; i++) {
            int temp = i >= ir->n_inputs + ir->n_outputs || P->discard[i - ir->n_inputs];
            P->ptr[i] = temp ? P->temp[i] : (unsigned char *)d->outputs[i - ir->n_inputs].data;
            if (temp && P->temp[i]) /* temporaries start at zero; staged rows are written first */
                memset(P->temp[i], 0, (size_t)P->numel[i] * tc_dtype_size(ir->tensors[i].dtype));
        }
        P->unchecked = d->unchecked_gathers;
        for (i = 0; i < ir->n_outputs; i++) {
            caller |= !fresh[i] && !P->discard[i];
            staged |= stage[i];
        }
        /* the caller's buffers: gathers checked before anything is written, and with
           indices the def computes, every one staged */
        if (caller && !P->unchecked) rc = tc__vm_check_gathers(P, d->pool, err);
        if (rc == TC_OK && caller && !P->unchecked && tc__vm_late_gathers(P))
            for (i = 0, staged = 1; i < ir->n_outputs; i++) stage[i] = !fresh[i] && !P->discard[i];
        if (rc == TC_OK) rc = staged ? tc__vm_run_staged(P, d, stage, err) : tc__vm_run_stmts(P, d->pool, err);
        if (rc != TC_OK) tc__vm_free_new_outputs(P, d->outputs, fresh);
        else tc__vm_describe_outputs(P, d->outputs, fresh);
    }
    if (fresh != flags_local) tc__mem_free(&P->prog->alloc, fresh);
    return rc;
}

TC_API tc_status tc_run(const tc_program *p, const tc_run_desc *d, tc_error *err) {
    tc_plan *P = NULL;
    tc_status rc = tc_plan_create(p, d, &P, err);
    if (rc != TC_OK) return rc;
    rc = tc_plan_run(P, d, err);
    tc_plan_free(P);
    return rc;
}

TC_API tc_status tc_infer_shapes(const tc_program *p, const char *entry, const tc_tensor *inputs,
                                 int n_inputs, tc_tensor *outputs, int n_outputs, tc_error *err) {
    int def, i, d;
    int64_t local[64], *sx = local;
    const tc_ir_def *ir;
    tc_status rc;
    tc__clear_error(err);
    if ((rc = tc__vm_find_def(p, entry, &def, err)) != TC_OK) return rc;
    ir = &p->ir[def];
    if ((rc = tc__vm_check_count(ir, 1, n_outputs, outputs, err)) != TC_OK) return rc;
    if (ir->n_sx > 64) {
        sx = (int64_t *)tc__mem_alloc(&p->alloc, sizeof(int64_t) * (size_t)ir->n_sx);
        if (!sx) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    }
    rc = tc_bind_sizes(p, def, inputs, n_inputs, sx, err);
    for (i = 0; i < n_outputs && rc == TC_OK; i++) {
        const tc_ir_tensor *t = &ir->tensors[ir->n_inputs + i];
        outputs[i].dtype = t->dtype;
        outputs[i].rank = t->rank;
        for (d = 0; d < TC_MAX_RANK; d++) outputs[i].shape[d] = d < t->rank ? sx[t->extent[d]] : 0;
    }
    if (sx != local) tc__mem_free(&p->alloc, sx);
    return rc;
}

TC_API void tc_tensor_free(const tc_program *p, tc_tensor *t) {
    if (!t || !t->data) return;
    tc__mem_free(p ? &p->alloc : NULL, t->data);
    t->data = NULL;
}

/* ==== [tc:explain] What a plan runs, for people: tc_plan_describe ==========
   One paragraph per statement: its loops as planned (the lane loop, the
   rows, loops merged into another), the mechanism that runs it and the
   property of the statement that chose it, how each tensor is stepped
   along the lanes, and how the work is split over threads. Read-only: the
   text comes from the plan's decisions, never re-derives them. */

/* The instruction set the kernels were compiled for (chosen at build time). */
TC__PRIVATE const char *tc__explain_isa(void) {
#if defined(__AVX512F__)
    return "AVX-512 (compile time)";
#elif defined(__AVX2__) && defined(__FMA__)
    return "AVX2+FMA (compile time)";
#elif defined(__AVX2__)
    return "AVX2 (compile time)";
#elif defined(__AVX__)
    return "AVX (compile time)";
#elif defined(__SSE2__) || defined(_M_X64)
    return "SSE2 (compile time)";
#elif defined(__ARM_NEON) || defined(__aarch64__)
    return "NEON (compile time)";
#else
    return "portable C (compile time)";
#endif
}

TC__PRIVATE const char *tc__explain_tensor(const tc_plan *P, int t) {
    const char *n = P->ir->tensors[t].name;
    return n ? n : "?";
}

/* "+1", "0 (uniform)", "-1024": a stride in elements along one loop. */
TC__PRIVATE void tc__explain_stride(tc__buf *b, int64_t s) {
    if (s == 0) tc__bprintf(b, "uniform");
    else tc__bprintf(b, "%+lld", (long long)s);
}

/* The loops as planned: name, range, role. */
TC__PRIVATE void tc__explain_loops(tc__buf *b, const tc_plan *P, const tc__vm_splan *sp) {
    int l, row = tc__vm_row_loop(sp);
    tc__bprintf(b, "  loops      ");
    if (sp->n_loops == 0) tc__bprintf(b, "none (one element)");
    for (l = 0; l < sp->n_loops; l++) {
        const tc_ir_loop *lp = &sp->st->loops[l];
        int merged = tc__vm_collapsed(sp, l) || (l < 64 && (sp->coalesced >> l) & 1);
        tc__bprintf(b, "%s%s %lld:%lld", l ? ", " : "", lp->name,
                    (long long)(merged ? P->sx[lp->lo] : sp->lo[l]),
                    (long long)(merged ? P->sx[lp->hi] : sp->hi[l]));
        if (tc__vm_collapsed(sp, l)) tc__bprintf(b, " (merged into another reduction loop)");
        else if (merged) tc__bprintf(b, " (merged into the next: one run of lanes)");
        else if (l == sp->lane) tc__bprintf(b, " (lanes%s)", lp->reduction ? ", reduced" : "");
        else if (l == row) tc__bprintf(b, " (rows)");
        else if (lp->reduction) tc__bprintf(b, " (reduction)");
    }
    tc__bprintf(b, "\n");
}

/* Each distinct tensor the statement touches, its step along the lane loop
   (and the row loop when there is one). */
TC__PRIVATE void tc__explain_access(tc__buf *b, const tc_plan *P, const tc__vm_splan *sp) {
    int k, j, row = tc__vm_row_loop(sp), rank = P->ir->tensors[sp->wt].rank;
    tc__bprintf(b, "  accesses   write %s", tc__explain_tensor(P, sp->wt));
    if (sp->lane >= 0 && sp->lane < rank) {
        tc__bprintf(b, " lanes ");
        tc__explain_stride(b, P->ts[sp->wt][sp->lane]);
    } else if (sp->lane >= 0) {
        tc__bprintf(b, " once per row of lanes");
    }
    for (k = 0; k < sp->vs->n_reads; k++) {
        const tc__vm_rplan *rp = &sp->reads[k];
        int dup = 0;
        for (j = 0; j < k; j++)
            dup |= sp->reads[j].tensor == rp->tensor && !sp->vs->reads[j].gather &&
                   !sp->vs->reads[k].gather && sp->reads[j].lstride[sp->lane < 0 ? 0 : sp->lane] ==
                                                   rp->lstride[sp->lane < 0 ? 0 : sp->lane];
        if (dup) continue;
        tc__bprintf(b, "; read %s", tc__explain_tensor(P, rp->tensor));
        if (sp->vs->reads[k].gather) {
            tc__bprintf(b, " gathered");
            continue;
        }
        if (sp->lane >= 0) {
            tc__bprintf(b, " lanes ");
            tc__explain_stride(b, rp->lstride[sp->lane]);
        }
        if (row >= 0 && row != sp->lane && tc__vm_extent(sp, row) > 1) {
            tc__bprintf(b, " rows ");
            tc__explain_stride(b, rp->lstride[row]);
        }
        if (rp->checked) tc__bprintf(b, " (checked lane by lane)");
        if (rp->copy) tc__bprintf(b, " (copied: written in place)");
    }
    tc__bprintf(b, "\n");
}

/* A reduction over loops outside the lanes that no contraction kernel took:
   the first of tc__vm_plan_contract's conditions it fails. */
TC__PRIVATE void tc__explain_not_tile(tc__buf *b, const tc_plan *P, const tc__vm_splan *sp) {
    const tc__vm_stmt *vs = sp->vs;
    int a = vs->contract.p, c = vs->contract.q;
    tc__bprintf(b, "it reduces over loops outside the lanes, and no contraction kernel takes it: ");
    if (!vs->contract.ok) {
        tc__bprintf(b, sp->st->reduce != TC_REDUCE_SUM
                           ? "only sums of products have one"
                           : "the value is not one product of two plain reads (or casts of them)");
        return;
    }
    if (sp->reads[a].lstride[sp->lane] != 0) {
        a = vs->contract.q;
        c = vs->contract.p;
    }
    if (sp->reads[a].lstride[sp->lane] != 0)
        tc__bprintf(b, "neither %s nor %s is uniform along the lanes", tc__explain_tensor(P, sp->reads[a].tensor),
                    tc__explain_tensor(P, sp->reads[c].tensor));
    else if (sp->reads[c].lstride[sp->lane] == 0)
        tc__bprintf(b, "both operands are uniform along the lanes");
    else if (sp->reads[a].tensor == sp->wt || sp->reads[c].tensor == sp->wt)
        tc__bprintf(b, "it reads the tensor it writes");
    else if (tc__vm_tile_one_row(sp, a, c))
        tc__bprintf(b, "no output loop that %s is constant along and %s is not, so a tile would have "
                       "one row and its packed lanes serve once", tc__explain_tensor(P, sp->reads[c].tensor),
                    tc__explain_tensor(P, sp->reads[a].tensor));
    else if (tc__vm_tile_folds(P, sp))
        tc__bprintf(b, "the lanes are fewer than a vector holds and their rows fold: folded, every "
                       "lane of a block is busy");
    else
        tc__bprintf(b, "too many reduction steps for the tile's tables, or operands converted and "
                       "too many to pack");
}

/* Why the element-wise kernels do not take a statement on the generic path:
   the first condition of tc__vm_plan_ew it fails, in the user's terms. */
TC__PRIVATE void tc__explain_not_ew(tc__buf *b, const tc_plan *P, const tc__vm_splan *sp) {
    const tc__vm_stmt *vs = sp->vs;
    int i, red = sp->lane_red && !sp->red_empty && !sp->empty;
    if (sp->lane < 0) {
        tc__bprintf(b, "no loop to run lanes along");
        return;
    }
    if (sp->fold && tc__vm_extent(sp, sp->lane) <= TC_BLOCK / 4) {
        tc__bprintf(b, "its rows are short and fold several to a block (the element-wise kernels "
                       "would take a call for each)");
        return;
    }
    if (!sp->direct && !red) {
        if (sp->n_red && !sp->lane_red) tc__explain_not_tile(b, P, sp);
        else if (sp->lane_red) tc__bprintf(b, "it reduces over loops outside the lanes");
        else if (sp->st->reduce != TC_REDUCE_ASSIGN) tc__bprintf(b, "it accumulates into %s",
                                                               tc__explain_tensor(P, sp->wt));
        else if (tc__vm_stmt_reads(vs, sp->wt)) tc__bprintf(b, "it reads the tensor it writes");
        else tc__bprintf(b, "its write is not contiguous along the lanes");
        return;
    }
    if (sp->inplace && tc__vm_stmt_divides(vs)) {
        tc__bprintf(b, "it divides and runs in place");
        return;
    }
    for (i = vs->n_pro; i < vs->n_ins; i++) /* what no fused kernel has, first */
        if (vs->ins[i].op == TC_OP_GOFF || vs->ins[i].op == TC_OP_GIDX || vs->ins[i].op == TC_OP_GLOAD) {
            tc__bprintf(b, "it gathers");
            return;
        }
    for (i = vs->n_pro; i < vs->n_ins; i++)
        if (vs->ins[i].op == TC_OP_INDEX || vs->ins[i].op == TC_OP_SELECT) {
            tc__bprintf(b, vs->ins[i].op == TC_OP_INDEX ? "it uses a loop index as a value"
                                                        : "it selects with ?:");
            return;
        }
    for (i = vs->n_pro; i < vs->n_ins; i++) {
        const tc__vm_ins *in = &vs->ins[i];
        if (in->op == TC_OP_LOAD) {
            const tc__vm_rplan *rp = &sp->reads[in->b];
            int64_t ls = rp->lstride[sp->lane];
            if (in->c != TC__VM_NONE) {
                tc__bprintf(b, "a read of %s is masked", tc__explain_tensor(P, rp->tensor));
                return;
            }
            if (ls != 1 && ls != 0) {
                tc__bprintf(b, "%s steps %lld elements along the lanes", tc__explain_tensor(P, rp->tensor),
                            (long long)ls);
                return;
            }
            if (rp->st != vs->vdt) {
                tc__bprintf(b, "%s is %s, the value %s", tc__explain_tensor(P, rp->tensor),
                            tc_dtype_name(rp->st), tc_dtype_name(vs->vdt));
                return;
            }
        }
    }
    tc__bprintf(b, "its operations are not one fused chain or op");
}

/* The mechanism and the property that chose it. */
TC__PRIVATE void tc__explain_mechanism(tc__buf *b, const tc_plan *P, const tc__vm_splan *sp) {
    int s = (int)(sp - P->stmts);
    tc__bprintf(b, "  mechanism  ");
    if (sp->absorbed) {
        tc__bprintf(b, "none of its own: statement %d reduces each row as it writes it\n", s);
        return;
    }
    if (sp->empty || sp->any_empty) {
        tc__bprintf(b, "nothing to run: a loop is empty%s\n", sp->init ? " (the `!` fill only)" : "");
        return;
    }
    if (sp->ct) {
        const tc__contract_shape *c = &sp->ct_shape;
        tc__bprintf(b, "packed contraction engine (%s): M %lld x N %lld x K %lld",
                    c->gemv ? "rows of X dotted with Y" : c->row ? "rows of Y scaled and added" : "GEMM panels",
                    (long long)c->m.total, (long long)c->n.total, (long long)c->k.total);
        if (c->batch.n) tc__bprintf(b, ", batch %lld", (long long)c->batch.total);
        tc__bprintf(b, "\n  why        a float32 sum of products whose two operands each miss an "
                       "output loop\n");
        return;
    }
    if (sp->mk) {
        tc__bprintf(b, "register-blocked contraction tile, %s constant along the lanes, %s along them, "
                       "%lld reduction steps\n",
                    tc__explain_tensor(P, sp->reads[sp->mk_x].tensor),
                    tc__explain_tensor(P, sp->reads[sp->mk_y].tensor), (long long)sp->mk_T);
        tc__bprintf(b, "  why        a sum of products, one operand uniform along the lanes\n");
        return;
    }
    if (sp->wred) {
        tc__bprintf(b, "window reduction from memory: %lld steps a lane%s%s%s\n", (long long)sp->mk_T,
                    sp->wred_pair ? ", adjacent pairs" : "", sp->wred_direct ? ", in the output row" : "",
                    sp->wred_divisor == TC__VM_NONE ? ""
                    : sp->wred_op == TC_OP_MUL      ? ", each value multiplied first"
                                                    : ", each value divided first");
        tc__bprintf(b, "  why        the value is one read reduced over the reduction loops\n");
        return;
    }
    if (sp->ew) {
        tc__bprintf(b, "fused element-wise kernels%s%s%s%s\n",
                    sp->lane_red ? ", reduced along the lanes" : "",
                    sp->ew_call ? ", then a builtin on the row" : "",
                    sp->stream || sp->stream_div || sp->stream_chain ? ", streaming stores" : "",
                    sp->n_segs > 1 ? "" : "");
        tc__bprintf(b, "  why        every read is contiguous or uniform along the lanes\n");
        if (sp->n_segs > 1)
            tc__bprintf(b, "  segments   %lld pieces of the long reduction, combined in a fixed "
                           "order\n", (long long)sp->n_segs);
        return;
    }
    tc__bprintf(b, "bytecode over blocks of up to %d lanes", sp->blk);
    if (sp->tile) tc__bprintf(b, ", rows %d at a time (tiled)", TC__VM_TILE);
    if (sp->fold) tc__bprintf(b, ", %d short rows to a block", sp->fold);
    if (sp->fold_steps) tc__bprintf(b, ", %d reduction steps to a block", sp->fold_steps);
    if (sp->lane_red) tc__bprintf(b, ", partial sums across lanes");
    if (sp->acc_op) tc__bprintf(b, ", the value's last op summed in the same pass");
    if (sp->lane_op) tc__bprintf(b, ", the value's last op reduced in the same pass");
    if (sp->n_segs > 1) tc__bprintf(b, ", %lld segments combined in a fixed order", (long long)sp->n_segs);
    tc__bprintf(b, "\n  why        not the element-wise kernels: ");
    tc__explain_not_ew(b, P, sp);
    tc__bprintf(b, "\n");
}

TC__PRIVATE void tc__explain_split(tc__buf *b, const tc_plan *P, const tc__vm_splan *sp) {
    int s = (int)(sp - P->stmts), g;
    if (sp->absorbed || sp->empty) return;
    for (g = 0; g <= s; g = P->group_end[g])
        if (s < P->group_end[g]) break;
    tc__bprintf(b, "  threads    ");
    if (g <= s && P->group_end[g] > g + 1) {
        tc__bprintf(b, "row group of statements %d-%d, %lld chunks of rows%s\n", g + 1, P->group_end[g],
                    (long long)P->group_chunks[g],
                    P->group_rows[g] ? ", each row through every statement in turn" : "");
        return;
    }
    tc__bprintf(b, "%lld item%s in %lld chunk%s\n", (long long)sp->n_items, sp->n_items == 1 ? "" : "s",
                (long long)sp->n_chunks, sp->n_chunks == 1 ? " (one thread runs it)" : "s (any thread takes any)");
}

TC__PRIVATE void tc__explain_stmt(tc__buf *b, const tc_plan *P, int s) {
    const tc__vm_splan *sp = &P->stmts[s];
    tc__bprintf(b, "\nstatement %d, line %d: %s\n", s + 1, sp->st->line, sp->st->text ? sp->st->text : "");
    tc__explain_loops(b, P, sp);
    tc__explain_mechanism(b, P, sp);
    if (!sp->absorbed && !sp->empty) tc__explain_access(b, P, sp);
    tc__bprintf(b, "  write      %s%s%s%s\n",
                sp->init ? "`!` fill first, then " : sp->fused ? "`!` in the accumulator, " : "",
                sp->direct ? "direct (the value is made in place)" : "stored each block",
                sp->stream ? ", streaming past the caches" : "",
                sp->inplace ? ", in place over an input" : "");
    tc__explain_split(b, P, sp);
}

TC_API int tc_plan_describe(const tc_plan *plan, char *buf, size_t cap) {
    tc__buf b = tc__buf_on(buf, cap);
    int s, i;
    if (!plan) return tc__buf_done(&b);
    tc__bprintf(&b, "def %s:", plan->ir->name ? plan->ir->name : "?");
    for (i = 0; i < plan->ir->n_sizevars; i++) {
        int k;
        for (k = 0; k < plan->ir->n_sx; k++) /* the variable's own sx */
            if (plan->ir->sx[k].op == TC_SX_VAR && plan->ir->sx[k].value == i) break;
        if (k < plan->ir->n_sx)
            tc__bprintf(&b, " %s=%lld", plan->ir->sizevars[i], (long long)plan->sx[k]);
    }
    tc__bprintf(&b, ", %d thread%s, kernels for %s\n", plan->n_threads, plan->n_threads == 1 ? "" : "s",
                tc__explain_isa());
    for (s = 0; s < plan->ir->n_stmts; s++) tc__explain_stmt(&b, plan, s);
    return tc__buf_done(&b);
}

/* ==== [tc:disasm] Bytecode listing ========================================== */

TC__PRIVATE void tc__vm_disasm_operand(tc__buf *b, const tc_ir_def *ir, const tc__vm_stmt *s,
                                       const tc__vm_ins *in, char k, unsigned v) {
    switch (k) {
    case 'V': case 'v': case 'U': tc__bprintf(b, " v%u", v); break;
    case 'm': if (v == TC__VM_NONE) tc__bprintf(b, " -"); else tc__bprintf(b, " m%u", v); break;
    case 'R': tc__bprintf(b, " r%u(%s)", v, ir->tensors[s->reads[v].tensor].name); break;
    case 'K': {
        uint64_t bits = s->consts[v];
        if (in->dt == TC_FLOAT32) { float f; memcpy(&f, &bits, 4); tc__bprintf(b, " %.9g", (double)f); }
        else if (in->dt == TC_FLOAT64) { double f; memcpy(&f, &bits, 8); tc__bprintf(b, " %.17g", f); }
        else {
            size_t sz = tc_dtype_size((tc_dtype)in->dt);
            int sgn = tc__dtype_is_signed((tc_dtype)(in->dt % TC_DTYPE_COUNT));
            int64_t x = 0;
            if (sz == 1) { int8_t y; uint8_t u; memcpy(&y, &bits, 1); memcpy(&u, &bits, 1); x = sgn ? (int64_t)y : (int64_t)u; }
            else if (sz == 2) { int16_t y; uint16_t u; memcpy(&y, &bits, 2); memcpy(&u, &bits, 2); x = sgn ? (int64_t)y : (int64_t)u; }
            else if (sz == 4) { int32_t y; uint32_t u; memcpy(&y, &bits, 4); memcpy(&u, &bits, 4); x = sgn ? (int64_t)y : (int64_t)u; }
            else memcpy(&x, &bits, 8);
            tc__bprintf(b, " %lld", (long long)x);
        }
        break;
    }
    case 'L': tc__bprintf(b, " %s", s->ir->loops[v].name ? s->ir->loops[v].name : "?"); break;
    case 'S': {
        char buf[96];
        tc_sx_format(ir, (int)v, buf, sizeof buf);
        tc__bprintf(b, " [%s]", buf);
        break;
    }
    case 'D': tc__bprintf(b, " dim%u", v); break;
    default: break;
    }
}

TC__PRIVATE void tc__vm_disasm_stmt(tc__buf *b, const tc_ir_def *ir, const tc__vm_stmt *s, int k) {
    const tc_ir_stmt *st = s->ir;
    const tc_ir_tensor *w = &ir->tensors[st->tensor];
    int i, l;
    tc__bprintf(b, "; statement %d, line %d: %s\n;   loops", k, st->line, st->text ? st->text : "?");
    for (l = 0; l < st->n_loops; l++) {
        char lo[96], hi[96];
        tc_sx_format(ir, st->loops[l].lo, lo, sizeof lo);
        tc_sx_format(ir, st->loops[l].hi, hi, sizeof hi);
        tc__bprintf(b, " %s in %s:%s%s", st->loops[l].name ? st->loops[l].name : "?", lo, hi,
                    st->loops[l].reduction ? " (reduction)" : "");
    }
    tc__bprintf(b, "\n;   %d registers%s\n", s->n_regs, s->contract.ok ? ", contraction" : "");
    for (i = 0; i < s->n_ins; i++) {
        const tc__vm_ins *in = &s->ins[i];
        const char *fmt = tc__ops[in->op].fmt;
        const unsigned ops[5] = {in->a, in->b, in->c, in->d, in->e};
        int j, col;
        if (i == 0 && s->n_pro > 0) tc__bprintf(b, ";   once per thread and statement:\n");
        if (i == s->n_pro && s->n_pro > 0) tc__bprintf(b, ";   per block of lanes:\n");
        if (s->chain && s->chain[i])
            tc__bprintf(b, ";   fused: the next %d instructions run as one pass\n", s->chain[i]);
        col = (int)b->len;
        tc__bprintf(b, "%04d  %s.%s", i, tc__ops[in->op].name, tc_dtype_name((tc_dtype)in->dt));
        if (in->op == TC_OP_CAST) tc__bprintf(b, "<-%s", tc_dtype_name((tc_dtype)in->dt2));
        if (in->op == TC_OP_CALL) tc__bprintf(b, " %s", tc_builtin_name((tc_builtin)in->dt2));
        for (j = 0; fmt[j]; j++) {
            if (in->op == TC_OP_CALL && j > tc_builtin_arity((tc_builtin)in->dt2)) break;
            tc__vm_disasm_operand(b, ir, s, in, fmt[j], ops[j]);
        }
        col = (int)b->len - col;
        tc__bprintf(b, "%*s; %s\n", col < 40 ? 40 - col : 1, "", tc__ops[in->op].doc);
    }
    tc__bprintf(b, "      %s %s%s v%d\n\n", w->name, tc__reduce_names[st->reduce],
                st->init ? "!" : "", s->value);
}

TC_API int tc_disasm(const tc_program *p, int def, char *buf, size_t cap) {
    tc__buf b;
    const tc__vm_def *vd;
    const tc_ir_def *ir;
    int s;
    b = tc__buf_on(buf, cap);
    if (!p || def < 0 || def >= p->n_defs || !p->backend || !p->backend[def]) {
        if (buf && cap) buf[0] = '\0';
        return 0;
    }
    vd = (const tc__vm_def *)p->backend[def];
    ir = vd->ir;
    tc__bprintf(&b, "; def %s: %d statement(s), TC_BLOCK %d\n", ir->name, vd->n_stmts, TC_BLOCK);
    for (s = 0; s < vd->n_stmts; s++) tc__vm_disasm_stmt(&b, ir, &vd->stmts[s], s);
    return tc__buf_done(&b);
}
/* ==== [tc:print] Loop nests as C-like pseudo code, for people debugging a kernel ====
   tc_ir_format_loops renders one tc_ir_def: a header with the tensors, the
   run-time checks, then per statement the TC text as a comment, the `!`
   fill, the loop nest with bounds in TC terms, and the body with every read
   spelled out from its affine map or gather expression. Pure function of
   the IR: snprintf-style, no allocation. */

/* Expressions are printed inline (no temporaries), so a DAG that shares a
   node is printed once per use. These bounds keep pathological DAGs
   (a chain of lets that each use the previous one twice) from printing
   exponentially much text, and bound the recursion. */
#define TC__PRINT_MAX_VISITS 65536
#define TC__PRINT_MAX_DEPTH (4 * TC_MAX_DEPTH + 64)

typedef struct tc__print {
    const tc_ir_def *d;
    const tc_ir_stmt *s;
    tc__buf *b;
    long visits; /* nodes printed in the current statement */
} tc__print;


TC__PRIVATE int tc__print_prec(const tc_ir_node *n) {
    switch (n->op) {
    case TC_IR_SELECT: return TC__PREC_SELECT;
    case TC_IR_OR: return TC__PREC_OR;
    case TC_IR_AND: return TC__PREC_AND;
    case TC_IR_EQ: case TC_IR_NE: return TC__PREC_EQ;
    case TC_IR_LT: case TC_IR_LE: case TC_IR_GT: case TC_IR_GE: return TC__PREC_REL;
    case TC_IR_ADD: case TC_IR_SUB: return TC__PREC_ADD;
    case TC_IR_MUL: case TC_IR_DIV: case TC_IR_MOD: return TC__PREC_MUL;
    case TC_IR_NEG: case TC_IR_NOT: return TC__PREC_UNARY;
    case TC_IR_CONST:
        if (tc__dtype_is_float(n->dtype)) return n->fval < 0 ? TC__PREC_UNARY : TC__PREC_ATOM;
        return tc__dtype_is_signed(n->dtype) && n->ival < 0 ? TC__PREC_UNARY : TC__PREC_ATOM;
    default: return TC__PREC_ATOM;
    }
}

TC__PRIVATE const char *tc__print_binop(tc_ir_op op) {
    switch (op) {
    case TC_IR_ADD: return "+";
    case TC_IR_SUB: return "-";
    case TC_IR_MUL: return "*";
    case TC_IR_DIV: return "/";
    case TC_IR_MOD: return "%";
    case TC_IR_LT: return "<";
    case TC_IR_LE: return "<=";
    case TC_IR_GT: return ">";
    case TC_IR_GE: return ">=";
    case TC_IR_EQ: return "==";
    case TC_IR_NE: return "!=";
    case TC_IR_AND: return "&&";
    case TC_IR_OR: return "||";
    default: return "?";
    }
}

/* A float constant that still reads as a float: 1.0, 0.5, 1e-05, INFINITY. */
TC__PRIVATE void tc__print_float(tc__buf *b, double v, tc_dtype t) {
    char tmp[48];
    int p;
    if (v != v) {
        tc__bprintf(b, "NAN");
        return;
    }
    if (v - v != v - v) { /* infinite */
        tc__bprintf(b, v < 0 ? "-INFINITY" : "INFINITY");
        return;
    }
    /* the shortest digits that read back as the same value (0.1, not 0.100000001) */
    for (p = t == TC_FLOAT64 ? 15 : 6; p < 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*g", p, v);
        if (t == TC_FLOAT64 ? strtod(tmp, NULL) == v : (float)strtod(tmp, NULL) == (float)v) break;
    }
    if (p == 17) snprintf(tmp, sizeof tmp, "%.17g", v);
    tc__bprintf(b, "%s%s", tmp, strpbrk(tmp, ".e") ? "" : ".0");
}

TC__PRIVATE void tc__print_const(tc__buf *b, const tc_ir_node *n) {
    if (tc__dtype_is_float(n->dtype)) tc__print_float(b, n->fval, n->dtype);
    else if (n->dtype == TC_BOOL) tc__bprintf(b, n->ival ? "true" : "false");
    else if (n->dtype == TC_UINT64) tc__bprintf(b, "%lluu", (unsigned long long)n->ival);
    else tc__bprintf(b, "%lld", (long long)n->ival);
}

/* The loop variable name of loop l in the current statement. */
TC__PRIVATE const char *tc__print_loop_name(const tc__print *P, int l) {
    return l >= 0 && l < P->s->n_loops && P->s->loops[l].name ? P->s->loops[l].name : "?";
}

TC__PRIVATE void tc__print_node(tc__print *P, int id, int min_prec, int depth);

/* 1 when sx id is the constant 0. */
TC__PRIVATE int tc__print_sx_is_zero(const tc_ir_def *d, int id) {
    return id < 0 || id >= d->n_sx || (d->sx[id].op == TC_SX_CONST && d->sx[id].value == 0);
}

/* One affine index: 2*w + kw - 1, 10 - i, H - 1 - 2*i, 0. The offset goes
   first when the first loop term is negative (10 - i, not -i + 10). */
TC__PRIVATE void tc__print_affine(tc__print *P, const tc_ir_index *ix) {
    const tc_ir_def *d = P->d;
    int l, any = 0, offset_first = 0;
    int has_offset = !tc__print_sx_is_zero(d, ix->offset);
    for (l = 0; l < P->s->n_loops && ix->coef; l++)
        if (ix->coef[l] != 0) {
            offset_first = ix->coef[l] < 0 && has_offset;
            break;
        }
    if (offset_first) {
        tc__sx_print(d, ix->offset, P->b, TC__PREC_ADD);
        any = 1;
    }
    for (l = 0; l < P->s->n_loops; l++) {
        int64_t c = ix->coef ? ix->coef[l] : 0;
        const char *name = tc__print_loop_name(P, l);
        if (c == 0) continue;
        if (any) tc__bprintf(P->b, c < 0 ? " - " : " + ");
        else if (c < 0) tc__bprintf(P->b, "-");
        if (c == 1 || c == -1) tc__bprintf(P->b, "%s", name);
        else if (c < 0 && c != INT64_MIN) tc__bprintf(P->b, "%lld*%s", -(long long)c, name);
        else tc__bprintf(P->b, "%lld*%s", (long long)c, name);
        any = 1;
    }
    if (!has_offset || offset_first) {
        if (!any) tc__bprintf(P->b, "0");
    } else if (any && d->sx[ix->offset].op == TC_SX_CONST && d->sx[ix->offset].value < 0 &&
               d->sx[ix->offset].value != INT64_MIN) {
        tc__bprintf(P->b, " - %lld", -(long long)d->sx[ix->offset].value);
    } else {
        if (any) tc__bprintf(P->b, " + ");
        tc__sx_print(d, ix->offset, P->b, any ? TC__PREC_MUL : 0);
    }
}

/* A tensor read: A[i + kh][2*w + 1], or a gather B[C[i]]. */
TC__PRIVATE void tc__print_read(tc__print *P, const tc_ir_node *n, int depth) {
    const tc_ir_def *d = P->d;
    int r, rank;
    if (n->tensor < 0 || n->tensor >= d->n_tensors) {
        tc__bprintf(P->b, "?");
        return;
    }
    tc__bprintf(P->b, "%s", d->tensors[n->tensor].name);
    rank = d->tensors[n->tensor].rank;
    for (r = 0; r < rank && n->index; r++) {
        const tc_ir_index *ix = &n->index[r];
        tc__bprintf(P->b, "[");
        if (ix->affine) tc__print_affine(P, ix);
        else tc__print_node(P, ix->node, 0, depth + 1);
        tc__bprintf(P->b, "]");
    }
}

TC__PRIVATE void tc__print_args(tc__print *P, const tc_ir_node *n, int depth) {
    int i;
    for (i = 0; i < n->nargs && i < 4; i++) {
        if (i) tc__bprintf(P->b, ", ");
        tc__print_node(P, n->args[i], 0, depth + 1);
    }
    tc__bprintf(P->b, ")");
}

TC__PRIVATE void tc__print_node_body(tc__print *P, const tc_ir_node *n, int prec, int depth) {
    switch (n->op) {
    case TC_IR_CONST: tc__print_const(P->b, n); break;
    case TC_IR_INDEX: tc__bprintf(P->b, "%s", tc__print_loop_name(P, n->loop)); break;
    case TC_IR_SIZE: tc__sx_print(P->d, n->sx, P->b, TC__PREC_ATOM); break;
    case TC_IR_READ: tc__print_read(P, n, depth); break;
    case TC_IR_NEG: case TC_IR_NOT:
        tc__bprintf(P->b, n->op == TC_IR_NEG ? "-" : "!");
        /* prec + 1: never print "--x" */
        tc__print_node(P, n->args[0], prec + 1, depth + 1);
        break;
    case TC_IR_SELECT: /* (cond) ? a : b: parenthesised unless an atom, for the reader */
        tc__print_node(P, n->args[0], TC__PREC_UNARY, depth + 1);
        tc__bprintf(P->b, " ? ");
        tc__print_node(P, n->args[1], prec + 1, depth + 1);
        tc__bprintf(P->b, " : ");
        tc__print_node(P, n->args[2], prec, depth + 1);
        break;
    case TC_IR_MIN: case TC_IR_MAX:
        tc__bprintf(P->b, n->op == TC_IR_MIN ? "min(" : "max(");
        tc__print_args(P, n, depth);
        break;
    case TC_IR_CAST:
        tc__bprintf(P->b, "%s(", tc_dtype_name(n->dtype));
        tc__print_args(P, n, depth);
        break;
    case TC_IR_HALF:
        tc__bprintf(P->b, "half(");
        tc__print_args(P, n, depth);
        break;
    case TC_IR_CALL:
        tc__bprintf(P->b, "%s(", tc_builtin_name(n->builtin) ? tc_builtin_name(n->builtin) : "?");
        tc__print_args(P, n, depth);
        break;
    default: /* binary operators, left-associative */
        tc__print_node(P, n->args[0], prec, depth + 1);
        tc__bprintf(P->b, " %s ", tc__print_binop(n->op));
        tc__print_node(P, n->args[1], prec + 1, depth + 1);
        break;
    }
}

TC__PRIVATE void tc__print_node(tc__print *P, int id, int min_prec, int depth) {
    const tc_ir_node *n;
    int prec;
    if (id < 0 || id >= P->s->n_nodes) {
        tc__bprintf(P->b, "?");
        return;
    }
    if (depth > TC__PRINT_MAX_DEPTH || ++P->visits > TC__PRINT_MAX_VISITS) {
        tc__bprintf(P->b, "/*...*/");
        return;
    }
    n = &P->s->nodes[id];
    prec = tc__print_prec(n);
    if (prec < min_prec) tc__bprintf(P->b, "(");
    tc__print_node_body(P, n, prec, depth);
    if (prec < min_prec) tc__bprintf(P->b, ")");
}

/* The identity `!` fills with, in the tensor's element type. */
TC__PRIVATE void tc__print_identity(tc__buf *b, tc_reduce r, tc_dtype t) {
    int bits = (int)tc_dtype_size(t) * 8;
    const char *u = tc__dtype_is_signed(t) ? "" : "U";
    if (r == TC_REDUCE_PROD) tc__bprintf(b, "1");
    else if (r != TC_REDUCE_MIN && r != TC_REDUCE_MAX) tc__bprintf(b, "0");
    else if (tc__dtype_is_float(t)) tc__bprintf(b, r == TC_REDUCE_MIN ? "INFINITY" : "-INFINITY");
    else if (t == TC_BOOL) tc__bprintf(b, r == TC_REDUCE_MIN ? "true" : "false");
    else if (r == TC_REDUCE_MIN) tc__bprintf(b, "%sINT%d_MAX", u, bits);
    else if (*u) tc__bprintf(b, "0");
    else tc__bprintf(b, "INT%d_MIN", bits);
}

TC__PRIVATE void tc__print_dims(tc__buf *b, const tc_ir_def *d, const tc_ir_tensor *t) {
    int r;
    for (r = 0; r < t->rank; r++) {
        tc__bprintf(b, "[");
        tc__sx_print(d, t->extent[r], b, 0);
        tc__bprintf(b, "]");
    }
}

/* "// out float32 O[I + 1]   (written from [1])" */
TC__PRIVATE void tc__print_tensor_decl(tc__buf *b, const tc_ir_def *d, const tc_ir_tensor *t) {
    static const char *const kinds[] = {"in ", "out", "tmp"};
    int r, nonzero_min = 0;
    tc__bprintf(b, "// %s %s %s", kinds[t->kind <= TC_TENSOR_TEMP ? t->kind : 0],
                tc_dtype_name(t->dtype) ? tc_dtype_name(t->dtype) : "?", t->name);
    tc__print_dims(b, d, t);
    for (r = 0; r < t->rank; r++)
        if (!(d->sx[t->min[r]].op == TC_SX_CONST && d->sx[t->min[r]].value == 0)) nonzero_min = 1;
    if (t->kind != TC_TENSOR_INPUT && nonzero_min) {
        tc__bprintf(b, "   (lowest index written: ");
        for (r = 0; r < t->rank; r++) {
            tc__bprintf(b, "[");
            tc__sx_print(d, t->min[r], b, 0);
            tc__bprintf(b, "]");
        }
        tc__bprintf(b, ")");
    }
    tc__bprintf(b, "\n");
}

TC__PRIVATE void tc__print_checks(tc__buf *b, const tc_ir_def *d) {
    int i;
    if (d->n_checks == 0) return;
    tc__bprintf(b, "// run-time checks, once per run before anything is written:\n");
    for (i = 0; i < d->n_checks; i++) {
        const tc_ir_check *c = &d->checks[i];
        tc__bprintf(b, "check(");
        tc__sx_print(d, c->a, b, TC__PREC_ADD);
        tc__bprintf(b, c->kind == TC_CHECK_EQ ? " == " : " <= ");
        tc__sx_print(d, c->b, b, TC__PREC_ADD);
        tc__bprintf(b, ");");
        if (c->stmt >= 0) tc__bprintf(b, "  // if statement %d runs;", c->stmt + 1);
        else tc__bprintf(b, "  //");
        tc__bprintf(b, " %s\n", c->what ? c->what : "");
    }
}

TC__PRIVATE void tc__print_indent(tc__buf *b, int level) {
    int i;
    for (i = 0; i < level; i++) tc__bprintf(b, "    ");
}

/* O[n][m] (the written element; loops 0 .. rank-1 are its indices). */
TC__PRIVATE void tc__print_lhs(tc__print *P, const tc_ir_tensor *t) {
    int r;
    tc__bprintf(P->b, "%s", t->name);
    for (r = 0; r < t->rank; r++) tc__bprintf(P->b, "[%s]", tc__print_loop_name(P, r));
}

TC__PRIVATE void tc__print_body(tc__print *P, const tc_ir_tensor *t, int level) {
    const tc_ir_stmt *s = P->s;
    tc__print_indent(P->b, level);
    tc__print_lhs(P, t);
    switch (s->reduce) {
    case TC_REDUCE_SUM: tc__bprintf(P->b, " += "); break;
    case TC_REDUCE_PROD: tc__bprintf(P->b, " *= "); break;
    case TC_REDUCE_MIN: case TC_REDUCE_MAX:
        tc__bprintf(P->b, " = %s(", s->reduce == TC_REDUCE_MIN ? "min" : "max");
        tc__print_lhs(P, t);
        tc__bprintf(P->b, ", ");
        break;
    default: tc__bprintf(P->b, " = "); break;
    }
    P->visits = 0;
    tc__print_node(P, s->value, 0, 0);
    if (s->reduce == TC_REDUCE_MIN || s->reduce == TC_REDUCE_MAX) tc__bprintf(P->b, ")");
    tc__bprintf(P->b, ";%s\n", t->dtype == TC_FLOAT16 ? "  // rounded to float16" : "");
}

TC__PRIVATE void tc__print_stmt(tc__buf *b, const tc_ir_def *d, int si) {
    const tc_ir_stmt *s = &d->stmts[si];
    const tc_ir_tensor *t;
    tc__print P;
    int l;
    if (s->tensor < 0 || s->tensor >= d->n_tensors) return;
    t = &d->tensors[s->tensor];
    P.d = d;
    P.s = s;
    P.b = b;
    P.visits = 0;
    tc__bprintf(b, "\n// statement %d, line %d: %s\n", si + 1, s->line, s->text ? s->text : "");
    if (s->init)
    {
        tc__bprintf(b, "fill(%s, ", t->name);
        tc__print_identity(b, s->reduce, t->dtype);
        tc__bprintf(b, ");  // `!`: the identity of %s\n", tc__reduce_names[s->reduce]);
    }
    for (l = 0; l < s->n_loops; l++) {
        const tc_ir_loop *lp = &s->loops[l];
        tc__print_indent(b, l);
        tc__bprintf(b, "for (int %s = ", lp->name);
        tc__sx_print(d, lp->lo, b, 0);
        tc__bprintf(b, "; %s < ", lp->name);
        tc__sx_print(d, lp->hi, b, TC__PREC_ADD);
        tc__bprintf(b, "; %s++)%s\n", lp->name, lp->reduction ? "  // reduction" : "");
    }
    tc__print_body(&P, t, s->n_loops);
}

TC_API int tc_ir_format_loops(const tc_ir_def *d, char *buf, size_t cap) {
    tc__buf b;
    int i;
    b = tc__buf_on(buf, cap);
    if (!d) return tc__buf_done(&b);
    tc__bprintf(&b, "// def %s (line %d)\n", d->name ? d->name : "?", d->line);
    for (i = 0; i < d->n_tensors; i++) tc__print_tensor_decl(&b, d, &d->tensors[i]);
    tc__print_checks(&b, d);
    for (i = 0; i < d->n_stmts; i++) tc__print_stmt(&b, d, i);
    return tc__buf_done(&b);
}
/* ==== [tc:api-impl] Compile, inspect and free programs ===================== */

/* Frees a program that may be partly built (compile failure paths). */
TC__PRIVATE void tc__program_destroy(tc_program *p) {
    tc_allocator a;
    if (!p) return;
    a = p->alloc;
    tc__arena_free_all(&p->arena);
    tc__mem_free(&a, p);
}

/* Runs the pipeline over every def: parse, then per def sema + range
   inference + lowering (front end) and bytecode compilation (back end). */
TC__PRIVATE int tc__compile_all(tc__ctx *C, tc_program *p) {
    tc__ast ast;
    int i;
    memset(&ast, 0, sizeof ast);
    if (!tc__parse(C, &ast)) return 0;
    p->n_defs = ast.n_defs;
    p->ir = (tc_ir_def *)tc__alloc_n(C, (size_t)(ast.n_defs ? ast.n_defs : 1), sizeof(tc_ir_def));
    p->backend = (void **)tc__alloc_n(C, (size_t)(ast.n_defs ? ast.n_defs : 1), sizeof(void *));
    if (!p->ir || !p->backend) return 0;
    for (i = 0; i < ast.n_defs; i++) {
        C->cur_def = i;
        if (!tc__frontend_def(C, &ast, i, &p->ir[i])) return 0;
    }
    for (i = 0; i < ast.n_defs; i++)
        if (!tc__backend_def(C, &p->ir[i], &p->backend[i])) return 0;
    return 1;
}

TC_API tc_status tc_compile(const tc_compile_desc *d, tc_program **out, tc_error *err) {
    tc_error local;
    tc_program *p;
    tc__ctx C;
    size_t len;
    if (!err) err = &local;
    memset(err, 0, sizeof *err);
    if (!out) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_compile: out is NULL");
    *out = NULL;
    if (!d || !d->source)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_compile: no source given");
    if (tc__check_allocator(&d->allocator, "tc_compile", err) != TC_OK)
        return TC_ERR_INVALID_ARGUMENT;
    len = strlen(d->source);
    if (len > TC_MAX_SOURCE)
        return tc__set_error(err, TC_ERR_LIMIT, "source is %lu bytes; the limit is %lu",
                             (unsigned long)len, (unsigned long)TC_MAX_SOURCE);
    p = (tc_program *)tc__mem_alloc(&d->allocator, sizeof *p);
    if (!p) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    memset(p, 0, sizeof *p);
    p->alloc = d->allocator;
    p->arena.alloc = d->allocator;
    memset(&C, 0, sizeof C);
    C.cur_def = -1;
    C.arena = &p->arena;
    C.err = err;
    C.max_depth = d->max_depth > 0 ? d->max_depth : TC_MAX_DEPTH;
    if (C.max_depth > TC__MAX_DEPTH_CAP) C.max_depth = TC__MAX_DEPTH_CAP; /* the stack's limit */
    p->source = tc__strndup(&C, d->source, len);
    p->source_len = len;
    C.src = p->source;
    C.src_len = len;
    if (!p->source || !tc__compile_all(&C, p)) {
        if (!C.failed) tc__set_error(err, TC_ERR_BACKEND, "compilation failed");
        tc__program_destroy(p);
        return err->code != TC_OK ? err->code : TC_ERR_BACKEND;
    }
    p->warnings = C.warnings;
    p->warning_defs = C.warning_defs;
    p->n_warnings = C.n_warnings;
    *out = p;
    return TC_OK;
}

TC_API void tc_program_free(tc_program *p) { tc__program_destroy(p); }

TC_API int tc_program_num_warnings(const tc_program *p) { return p ? p->n_warnings : 0; }
TC_API const tc_error *tc_program_warning(const tc_program *p, int i) {
    return p && i >= 0 && i < p->n_warnings ? &p->warnings[i] : NULL;
}
TC_API int tc_program_warning_def(const tc_program *p, int i) {
    return p && i >= 0 && i < p->n_warnings ? p->warning_defs[i] : -1;
}
TC_API const char *tc_program_source(const tc_program *p) { return p ? p->source : NULL; }
TC_API int tc_program_num_defs(const tc_program *p) { return p ? p->n_defs : 0; }

/* NULL name: the default entry, which is the last def (a source's helper
   defs come before the defs that call them). */
TC_API int tc_program_find(const tc_program *p, const char *name) {
    int i;
    if (!p || p->n_defs == 0) return -1;
    if (!name) return p->n_defs - 1;
    for (i = 0; i < p->n_defs; i++)
        if (strcmp(p->ir[i].name, name) == 0) return i;
    return -1;
}
TC_API const tc_ir_def *tc_program_ir(const tc_program *p, int def) {
    return p && def >= 0 && def < p->n_defs ? &p->ir[def] : NULL;
}

TC_API int tc_ir_index_format(const tc_ir_stmt *st, const tc_ir_index *ix, int64_t v, char *buf,
                              size_t cap) {
    const tc_ir_node *in = ix->affine ? NULL : &st->nodes[ix->node];
    if (in && in->op == TC_IR_CAST && in->dtype == TC_INT64) in = &st->nodes[in->args[0]];
    if (in && in->dtype == TC_UINT64)
        return snprintf(buf, cap, "%llu", (unsigned long long)(uint64_t)v);
    return snprintf(buf, cap, "%lld", (long long)v);
}
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
