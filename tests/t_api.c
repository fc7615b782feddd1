/* t_api: API misuse and the error contract. NULL pointers everywhere,
   wrong counts, dtypes, ranks and shapes, unknown entries, bad pools and
   plans: every one is a status (never a crash), caller outputs are left
   untouched by a failed run, messages name what is wrong, and
   tc_error_format renders file:line:col, the source line and a caret. */
#include "tc.h" /* the implementation: tests/tc_impl.c, linked */
/* the limits tc_impl.c is built with: tc.h's defaults */
#define TC_MAX_SOURCE (16 * 1024 * 1024)
#define TC_MAX_THREADS 64
#include "harness.h"

static const char *const mm_src = "def mm(float(M,K) Alpha, float(K,N) Beta) -> (Gamma) { "
                                  "Gamma(i,j) +=! Alpha(i,k) * Beta(k,j) }";

static tc_program *api_compile(const char *src) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    CHECKF(tc_compile(&cd, &p, &err) == TC_OK, "compile: %s (%d:%d)", err.msg, err.line, err.col);
    return p;
}

static float api_a[6] = {1, 2, 3, 4, 5, 6}, api_b[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};

/* The mm inputs: Alpha 2x3, Beta 3x4; Gamma 2x4. */
static void api_mm_tensors(tc_tensor *in, tc_tensor *out, float *obuf) {
    memset(in, 0, 2 * sizeof *in);
    memset(out, 0, sizeof *out);
    in[0].dtype = in[1].dtype = TC_FLOAT32;
    in[0].rank = in[1].rank = 2;
    in[0].shape[0] = 2, in[0].shape[1] = 3, in[0].data = api_a;
    in[1].shape[0] = 3, in[1].shape[1] = 4, in[1].data = api_b;
    out->dtype = TC_FLOAT32, out->rank = 2, out->shape[0] = 2, out->shape[1] = 4, out->data = obuf;
}
static void api_desc(tc_run_desc *rd, tc_tensor *in, int n_in, tc_tensor *out, int n_out) {
    memset(rd, 0, sizeof *rd);
    rd->inputs = in, rd->n_inputs = n_in, rd->outputs = out, rd->n_outputs = n_out;
}
static int api_untouched(const float *buf, int n) {
    int i;
    for (i = 0; i < n; i++)
        if (buf[i] != -777.0f) return 0;
    return 1;
}
static void api_poison(float *buf, int n) {
    int i;
    for (i = 0; i < n; i++)
        buf[i] = -777.0f;
}

static void *api_malloc(size_t n, void *u) {
    (void)u;
    return malloc(n);
}
static void api_free(void *p, void *u) {
    (void)u;
    free(p);
}

static void test_compile_misuse(void) {
    tc_compile_desc cd;
    tc_program *p = (tc_program *)&cd; /* garbage: must be set to NULL */
    tc_error err;
    char *big;
    memset(&cd, 0, sizeof cd);
    CHECK(tc_compile(NULL, &p, &err) == TC_ERR_INVALID_ARGUMENT && p == NULL);
    CHECK(err.code == TC_ERR_INVALID_ARGUMENT && err.msg[0] != 0);
    CHECK(tc_compile(&cd, NULL, &err) == TC_ERR_INVALID_ARGUMENT);
    p = (tc_program *)&cd;
    CHECK(tc_compile(&cd, &p, &err) == TC_ERR_INVALID_ARGUMENT && p == NULL); /* no source */
    CHECK(tc_compile(&cd, &p, NULL) == TC_ERR_INVALID_ARGUMENT);              /* err optional */
    cd.source = "def f(float(N) a) -> (b) { b(i) = a(i) + }";
    p = (tc_program *)&cd;
    CHECK(tc_compile(&cd, &p, NULL) == TC_ERR_SYNTAX && p == NULL);
    cd.source = "";
    CHECK(tc_compile(&cd, &p, &err) != TC_OK && p == NULL && err.msg[0] != 0);
    cd.source = "def f(float(N) a) -> (b) { b(i) = ((((((((((a(i))))))))))) }";
    cd.max_depth = 5;
    CHECKF(tc_compile(&cd, &p, &err) == TC_ERR_LIMIT && p == NULL, "max_depth: %s", err.msg);
    cd.max_depth = 0;
    CHECK(tc_compile(&cd, &p, &err) == TC_OK && p != NULL);
    tc_program_free(p);
    /* max_depth past the stack's ceiling: the ceiling holds, no overflow */
    big = (char *)malloc(300000);
    if (big) {
        int k, n = 0;
        n += sprintf(big + n, "def f(float(N) a) -> (b) { b(i) = ");
        for (k = 0; k < 100000; k++) big[n++] = '(';
        n += sprintf(big + n, "a(i)");
        for (k = 0; k < 100000; k++) big[n++] = ')';
        sprintf(big + n, " }");
        cd.source = big;
        cd.max_depth = 100000;
        CHECKF(tc_compile(&cd, &p, &err) == TC_ERR_LIMIT && p == NULL && strstr(err.msg, "1024"),
               "max_depth ceiling: %s", err.msg);
        cd.max_depth = 0;
        free(big);
    }
    /* an allocator is all NULL, or alloc_fn and free_fn */
    cd.source = "def f(float(N) a) -> (b) { b(i) = a(i) }";
    cd.allocator.alloc_fn = api_malloc;
    CHECKF(tc_compile(&cd, &p, &err) == TC_ERR_INVALID_ARGUMENT && p == NULL &&
               strstr(err.msg, "alloc_fn and free_fn"),
           "alloc_fn alone: %s", err.msg);
    cd.allocator.alloc_fn = NULL, cd.allocator.free_fn = api_free;
    CHECK(tc_compile(&cd, &p, &err) == TC_ERR_INVALID_ARGUMENT && p == NULL);
    {
        tc_pool *pool = NULL;
        CHECK(tc_pool_create(2, &cd.allocator, &pool, &err) == TC_ERR_INVALID_ARGUMENT && !pool);
    }
    cd.allocator.alloc_fn = api_malloc;
    CHECK(tc_compile(&cd, &p, &err) == TC_OK && p != NULL);
    tc_program_free(p);
    memset(&cd.allocator, 0, sizeof cd.allocator);
    big = (char *)malloc((size_t)TC_MAX_SOURCE + 2);
    if (big) {
        memset(big, ' ', (size_t)TC_MAX_SOURCE + 1);
        big[TC_MAX_SOURCE + 1] = 0;
        cd.source = big;
        CHECK(tc_compile(&cd, &p, &err) == TC_ERR_LIMIT && p == NULL);
        free(big);
    }
}

static void test_queries_misuse(void) {
    tc_program *p = api_compile("def a(float(N) x) -> (y) { y(i) = x(i) }\n"
                                "def b(float(N) x) -> (y) { y(i) = x(i) * 2.0 }");
    tc_program_free(NULL);
    tc_plan_free(NULL);
    tc_pool_free(NULL);
    CHECK(tc_program_num_defs(NULL) == 0);
    CHECK(tc_program_find(NULL, "a") == -1);
    CHECK(tc_program_ir(NULL, 0) == NULL);
    CHECK(tc_program_num_warnings(NULL) == 0);
    CHECK(tc_program_warning(NULL, 0) == NULL);
    CHECK(tc_program_source(NULL) == NULL);
    if (!p) return;
    CHECK(tc_program_num_defs(p) == 2);
    CHECK(tc_program_find(p, "a") == 0 && tc_program_find(p, "b") == 1);
    CHECK(tc_program_find(p, NULL) == 1); /* default: the last def */
    CHECK(tc_program_find(p, "nope") == -1 && tc_program_find(p, "") == -1);
    CHECK(tc_program_ir(p, -1) == NULL && tc_program_ir(p, 2) == NULL);
    CHECK(tc_program_ir(p, 0) != NULL && strcmp(tc_program_ir(p, 0)->name, "a") == 0);
    CHECK(tc_program_warning(p, -1) == NULL);
    CHECK(tc_program_warning(p, tc_program_num_warnings(p)) == NULL);
    CHECK(tc_program_source(p) != NULL && strstr(tc_program_source(p), "def b") != NULL);
    CHECK(tc_disasm(p, 0, NULL, 0) > 0);
    CHECK(tc_ir_format_loops(tc_program_ir(p, 1), NULL, 0) > 0);
    {
        char buf[8];
        int n = tc_ir_format_loops(tc_program_ir(p, 1), buf, sizeof buf);
        CHECK(n >= (int)sizeof buf && strlen(buf) == sizeof buf - 1); /* truncated, terminated */
        n = tc_disasm(p, 5, buf, sizeof buf);
        CHECK(n == 0 || strlen(buf) < sizeof buf);
    }
    tc_program_free(p);
}

static void test_tables(void) {
    int i;
    tc_dtype t;
    for (i = 0; i < TC_STATUS_COUNT; i++) {
        CHECK(strncmp(tc_status_name((tc_status)i), "TC_", 3) == 0);
        CHECK(tc_status_message((tc_status)i)[0] != 0);
    }
    CHECK(tc_status_name(TC_STATUS_COUNT) != NULL && tc_status_name((tc_status)-1) != NULL);
    CHECK(tc_status_message(TC_STATUS_COUNT) != NULL);
    CHECK(tc_dtype_name(TC_DTYPE_COUNT) == NULL && tc_dtype_name((tc_dtype)-1) == NULL);
    CHECK(tc_dtype_size(TC_DTYPE_COUNT) == 0 && tc_dtype_npy(TC_DTYPE_COUNT) == NULL);
    CHECK(tc_dtype_from_name("half", &t) && t == TC_FLOAT16);
    CHECK(tc_dtype_from_name("double", &t) && t == TC_FLOAT64);
    CHECK(!tc_dtype_from_name("nope", &t) && !tc_dtype_from_name(NULL, &t));
    CHECK(tc_dtype_from_name("uint64", NULL));
    CHECK(tc_builtin_name(TC_BUILTIN_COUNT) == NULL && tc_builtin_arity(TC_BUILTIN_COUNT) == -1);
    CHECK(tc_version() == TC_VERSION_NUM);
}

static void test_run_misuse(void) {
    tc_program *p = api_compile(mm_src);
    tc_tensor in[3], out[2];
    float obuf[8];
    tc_run_desc rd;
    tc_error err;
    if (!p) return;
    api_mm_tensors(in, out, obuf);
    api_desc(&rd, in, 2, out, 1);
    CHECK(tc_run(NULL, &rd, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_run(p, NULL, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_run(NULL, NULL, NULL) == TC_ERR_INVALID_ARGUMENT);
    api_poison(obuf, 8);
    rd.inputs = NULL;
    CHECK(tc_run(p, &rd, &err) == TC_ERR_INVALID_ARGUMENT && api_untouched(obuf, 8));
    CHECKF(strstr(err.msg, "the inputs are NULL") != NULL, "%s", err.msg);
    rd.inputs = in;
    rd.n_inputs = 1;
    CHECK(tc_run(p, &rd, &err) == TC_ERR_INVALID_ARGUMENT && api_untouched(obuf, 8));
    rd.n_inputs = 3;
    in[2] = in[1];
    CHECK(tc_run(p, &rd, &err) == TC_ERR_INVALID_ARGUMENT && api_untouched(obuf, 8));
    rd.n_inputs = -1;
    CHECK(tc_run(p, &rd, &err) == TC_ERR_INVALID_ARGUMENT && api_untouched(obuf, 8));
    rd.n_inputs = 2;
    rd.outputs = NULL;
    CHECK(tc_run(p, &rd, &err) == TC_ERR_INVALID_ARGUMENT);
    rd.outputs = out;
    rd.n_outputs = 0;
    CHECK(tc_run(p, &rd, &err) == TC_ERR_INVALID_ARGUMENT && api_untouched(obuf, 8));
    rd.n_outputs = 2;
    out[1] = out[0];
    CHECK(tc_run(p, &rd, &err) == TC_ERR_INVALID_ARGUMENT && api_untouched(obuf, 8));
    rd.n_outputs = 1;
    rd.entry = "nope";
    CHECKF(tc_run(p, &rd, &err) != TC_OK && api_untouched(obuf, 8) && strstr(err.msg, "nope"),
           "unknown entry: %s", err.msg);
    rd.entry = "mm";
    CHECK(tc_run(p, &rd, NULL) == TC_OK && obuf[0] == 1 && obuf[5] == 5); /* err optional */
    CHECK(tc_run(p, &rd, &err) == TC_OK && err.code == TC_OK && !err.msg[0]); /* no stale error */
    tc_program_free(p);
}

/* Wrong dtypes, ranks and shapes: statuses, messages naming the tensor,
   and the caller's output untouched. */
static void test_wrong_tensors(void) {
    static const int64_t huge_strides[2] = {INT64_MAX, 1}, half_strides[2] = {INT64_MAX / 2, 1};
    static const int64_t min_strides[2] = {INT64_MIN, 1};
    tc_program *p = api_compile(mm_src);
    tc_tensor in[2], out[1];
    float obuf[8], spare[16] = {0};
    tc_run_desc rd;
    tc_error err;
    tc_status st;
    if (!p) return;
#define API_TRY(setup, want, name)                                                                 \
    do {                                                                                           \
        api_mm_tensors(in, out, obuf);                                                             \
        api_poison(obuf, 8);                                                                       \
        setup;                                                                                     \
        api_desc(&rd, in, 2, out, 1);                                                              \
        memset(&err, 0, sizeof err);                                                               \
        st = tc_run(p, &rd, &err);                                                                 \
        CHECKF(st == (want), "%s: got %s (%s)", #setup, tc_status_name(st), err.msg);              \
        CHECKF(api_untouched(obuf, 8), "%s: output written", #setup);                              \
        CHECKF(err.code == st && strstr(err.msg, name), "%s: message does not name %s: %s",        \
               #setup, name, err.msg);                                                             \
    } while (0)
    API_TRY(in[0].dtype = TC_FLOAT64, TC_ERR_TYPE, "Alpha");
    API_TRY(in[1].dtype = TC_INT32, TC_ERR_TYPE, "Beta");
    API_TRY(in[0].dtype = (tc_dtype)99, TC_ERR_TYPE, "Alpha");
    API_TRY(in[0].rank = 3, TC_ERR_SHAPE, "Alpha");
    API_TRY(in[1].rank = 1, TC_ERR_SHAPE, "Beta");
    API_TRY(in[0].rank = -1, TC_ERR_SHAPE, "Alpha");
    API_TRY(in[0].rank = TC_MAX_RANK + 1, TC_ERR_SHAPE, "Alpha");
    API_TRY(in[1].shape[0] = 4, TC_ERR_SHAPE, "Beta"); /* K: 3 vs 4 */
    API_TRY(in[0].shape[1] = -3, TC_ERR_SHAPE, "Alpha");
    API_TRY(in[1].data = NULL, TC_ERR_INVALID_ARGUMENT, "Beta");
    API_TRY(in[0].data = (char *)spare + 1, TC_ERR_INVALID_ARGUMENT, "Alpha"); /* misaligned */
    API_TRY(in[1].data = (char *)spare + 2, TC_ERR_INVALID_ARGUMENT, "Beta");
    API_TRY(out[0].data = (char *)spare + 3, TC_ERR_INVALID_ARGUMENT, "Gamma");
    API_TRY(out[0].dtype = TC_FLOAT64, TC_ERR_TYPE, "Gamma");
    API_TRY(out[0].rank = 1, TC_ERR_SHAPE, "Gamma");
    API_TRY(out[0].shape[1] = 5, TC_ERR_SHAPE, "Gamma");
    API_TRY(in[0].strides = huge_strides, TC_ERR_LIMIT, "Alpha"); /* offsets would overflow */
    API_TRY(in[0].strides = half_strides, TC_ERR_LIMIT, "Alpha");
    API_TRY(in[1].strides = min_strides, TC_ERR_LIMIT, "Beta");
#undef API_TRY
    /* the size-variable message names both tensors */
    api_mm_tensors(in, out, obuf);
    in[1].shape[0] = 4;
    api_desc(&rd, in, 2, out, 1);
    st = tc_run(p, &rd, &err);
    CHECKF(st == TC_ERR_SHAPE && strstr(err.msg, "Alpha") && strstr(err.msg, "Beta") &&
               strstr(err.msg, "K"),
           "size variable message: %s", err.msg);
    /* an empty input with NULL data is fine: K = 0 gives zeros */
    api_mm_tensors(in, out, obuf);
    in[0].shape[1] = 0, in[1].shape[0] = 0, in[0].data = NULL, in[1].data = NULL;
    api_poison(obuf, 8);
    api_desc(&rd, in, 2, out, 1);
    st = tc_run(p, &rd, &err);
    CHECKF(st == TC_OK && obuf[0] == 0 && obuf[7] == 0, "K = 0: %s %s", tc_status_name(st),
           err.msg);
    tc_program_free(p);
}

/* Failed run-time checks leave every caller output untouched. */
static void test_untouched_on_failure(void) {
    tc_program *p =
        api_compile("def two(float(N) B, float(M) C, float(K) D, int32(L) Idx) -> (E, A) {\n"
                    "    E(l) = B(Idx(l))\n"
                    "    A(i,j) = B(i) * C(i+j) * D(j)\n}\n");
    float b[4] = {1, 2, 3, 4}, c[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, d[5] = {1, 2, 3, 4, 5};
    int32_t idx[3] = {0, 3, 1};
    float ebuf[3], abuf[20];
    tc_tensor in[4], out[2];
    tc_run_desc rd;
    tc_error err;
    tc_status st;
    if (!p) return;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dtype = in[1].dtype = in[2].dtype = TC_FLOAT32, in[3].dtype = TC_INT32;
    in[0].rank = in[1].rank = in[2].rank = in[3].rank = 1;
    in[0].shape[0] = 4, in[1].shape[0] = 9, in[2].shape[0] = 5, in[3].shape[0] = 3;
    in[0].data = b, in[1].data = c, in[2].data = d, in[3].data = idx;
    out[0].dtype = out[1].dtype = TC_FLOAT32;
    out[0].rank = 1, out[0].shape[0] = 3, out[0].data = ebuf;
    out[1].rank = 2, out[1].shape[0] = 4, out[1].shape[1] = 5, out[1].data = abuf;
    api_desc(&rd, in, 4, out, 2);
    api_poison(ebuf, 3), api_poison(abuf, 20);
    st = tc_run(p, &rd, &err);
    CHECKF(st == TC_OK && ebuf[1] == 4 && abuf[19] == 20, "valid run: %s", err.msg);
    /* precondition: C too short for i + j */
    in[1].shape[0] = 7;
    api_poison(ebuf, 3), api_poison(abuf, 20);
    st = tc_run(p, &rd, &err);
    CHECKF(st == TC_ERR_BOUNDS && api_untouched(ebuf, 3) && api_untouched(abuf, 20),
           "precondition: %s %s", tc_status_name(st), err.msg);
    CHECKF(strstr(err.msg, "C") != NULL, "precondition message: %s", err.msg);
    /* gather out of range */
    in[1].shape[0] = 9;
    idx[1] = 4;
    api_poison(ebuf, 3), api_poison(abuf, 20);
    st = tc_run(p, &rd, &err);
    CHECKF(st == TC_ERR_BOUNDS && strstr(err.msg, "B"), "gather: %s %s", tc_status_name(st),
           err.msg);
    CHECKF(api_untouched(ebuf, 3) && api_untouched(abuf, 20), "gather failure wrote outputs");
    idx[1] = -1;
    st = tc_run(p, &rd, &err);
    CHECKF(st == TC_ERR_BOUNDS, "negative gather: %s %s", tc_status_name(st), err.msg);
    /* second output with a wrong shape: the first stays untouched */
    idx[1] = 3;
    out[1].shape[1] = 4;
    api_poison(ebuf, 3), api_poison(abuf, 20);
    st = tc_run(p, &rd, &err);
    CHECKF(st == TC_ERR_SHAPE && api_untouched(ebuf, 3) && api_untouched(abuf, 20), "%s %s",
           tc_status_name(st), err.msg);
    tc_program_free(p);
    /* outputs the library allocates: a failed run (a gather through computed
       indices, found as the run goes) leaves their descriptors as given */
    p = api_compile("def g(float(N) X, int32(L) Idx) -> (I2, E) { I2(l) = Idx(l) + 1\n"
                    "    E(l) = X(I2(l)) }");
    if (!p) return;
    {
        tc_tensor given[2];
        int32_t bad[3] = {0, 4, 1}; /* 4 + 1 is past X */
        memset(out, 0, sizeof out);
        out[1].dtype = TC_FLOAT64; /* whatever the caller left there stays */
        out[1].shape[0] = 7;
        memcpy(given, out, sizeof given);
        in[3].data = bad;
        api_desc(&rd, in + 2, 2, out, 2); /* X = D (5 floats), Idx = bad */
        st = tc_run(p, &rd, &err);
        CHECKF(st == TC_ERR_BOUNDS && memcmp(given, out, sizeof given) == 0,
               "%s %s; descriptors after the failure: E dtype %d rank %d shape %lld",
               tc_status_name(st), err.msg, (int)out[1].dtype, out[1].rank, (long long)out[1].shape[0]);
        bad[1] = 2;
        st = tc_run(p, &rd, &err);
        CHECKF(st == TC_OK && out[0].dtype == TC_INT32 && out[0].rank == 1 && out[0].shape[0] == 3 &&
                   out[1].dtype == TC_FLOAT32 && out[1].shape[0] == 3 && out[1].data &&
                   ((float *)out[1].data)[1] == 4,
               "%s %s", tc_status_name(st), err.msg);
        tc_tensor_free(p, &out[0]);
        tc_tensor_free(p, &out[1]);
    }
    tc_program_free(p);
}

static void test_declared_and_negative(void) {
    tc_program *p = api_compile(
        "def dec(float(N) x, float(M) u) -> (float(M) y, z) { y(i) = x(i)\n z(i) = u(i) }");
    tc_program *q =
        api_compile("def conv(float(H) I, float(KH) Wt) -> (Out) { Out(h) +=! I(h + k) * Wt(k) }");
    float x[4] = {1, 2, 3, 4}, w[6] = {0};
    tc_tensor in[2], out[2];
    tc_run_desc rd;
    tc_error err;
    tc_status st;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[0].dtype = in[1].dtype = TC_FLOAT32, in[0].rank = in[1].rank = 1;
    in[0].shape[0] = 4, in[0].data = x, in[1].shape[0] = 6, in[1].data = w;
    if (p) { /* y's declared extent M (6) differs from the inferred N (4) */
        api_desc(&rd, in, 2, out, 2);
        st = tc_run(p, &rd, &err);
        CHECKF(st != TC_OK && strstr(err.msg, "y"), "declared dims: %s %s", tc_status_name(st),
               err.msg);
        CHECK(out[0].data == NULL && out[1].data == NULL);
    }
    if (q) { /* kernel larger than the input: a negative extent naming Out */
        api_desc(&rd, in, 2, out, 1);
        st = tc_run(q, &rd, &err);
        CHECKF(st == TC_ERR_SHAPE && strstr(err.msg, "Out"), "negative extent: %s %s",
               tc_status_name(st), err.msg);
        CHECK(out[0].data == NULL);
        memset(out, 0, sizeof out);
        st = tc_infer_shapes(q, NULL, in, 2, out, 1, &err);
        CHECK(st == TC_ERR_SHAPE);
    }
    tc_program_free(p);
    tc_program_free(q);
}

static void test_infer_misuse(void) {
    tc_program *p = api_compile(mm_src);
    tc_tensor in[2], out[2];
    float obuf[8];
    tc_error err;
    if (!p) return;
    api_mm_tensors(in, out, obuf);
    memset(out, 0, sizeof out);
    CHECK(tc_infer_shapes(NULL, NULL, in, 2, out, 1, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_infer_shapes(p, NULL, NULL, 2, out, 1, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_infer_shapes(p, NULL, in, 2, NULL, 1, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_infer_shapes(p, NULL, in, 1, out, 1, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_infer_shapes(p, NULL, in, 2, out, 2, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_infer_shapes(p, "nope", in, 2, out, 1, &err) != TC_OK);
    CHECK(tc_infer_shapes(p, NULL, in, 2, out, 1, NULL) == TC_OK);
    CHECK(out[0].dtype == TC_FLOAT32 && out[0].rank == 2 && out[0].shape[0] == 2 &&
          out[0].shape[1] == 4 && out[0].data == NULL);
    in[1].shape[0] = 5;
    CHECK(tc_infer_shapes(p, NULL, in, 2, out, 1, &err) == TC_ERR_SHAPE);
    tc_program_free(p);
}

static void test_plan_pool_misuse(void) {
    tc_program *p = api_compile(mm_src);
    tc_tensor in[2], out[1];
    float obuf[8];
    tc_run_desc rd;
    tc_error err;
    tc_plan *plan = (tc_plan *)&rd;
    tc_pool *pool = (tc_pool *)&rd;
    int64_t sx[64];
    if (!p) return;
    api_mm_tensors(in, out, obuf);
    api_desc(&rd, in, 2, out, 1);
    CHECK(tc_plan_create(NULL, &rd, &plan, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_plan_create(p, NULL, &plan, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_plan_create(p, &rd, NULL, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_plan_run(NULL, &rd, &err) == TC_ERR_INVALID_ARGUMENT);
    plan = NULL; /* caller outputs given to tc_plan_create are checked there */
    out[0].shape[1] = 9;
    CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_ERR_SHAPE && !plan && strstr(err.msg, "Gamma"),
           "output shape at plan creation: %s", err.msg);
    out[0].shape[1] = 4, out[0].dtype = TC_INT8;
    CHECK(tc_plan_create(p, &rd, &plan, &err) == TC_ERR_TYPE && !plan);
    out[0].dtype = TC_FLOAT32, rd.n_outputs = 5;
    CHECK(tc_plan_create(p, &rd, &plan, &err) == TC_ERR_INVALID_ARGUMENT && !plan);
    rd.n_outputs = 0, rd.outputs = NULL; /* outputs only at run time: fine */
    CHECK(tc_plan_create(p, &rd, &plan, &err) == TC_OK && plan);
    tc_plan_free(plan);
    plan = NULL;
    api_desc(&rd, in, 2, out, 1);
    CHECK(tc_plan_create(p, &rd, &plan, &err) == TC_OK && plan);
    if (plan) {
        CHECK(tc_plan_run(plan, NULL, &err) == TC_ERR_INVALID_ARGUMENT);
        api_poison(obuf, 8);
        in[0].shape[0] = 1; /* other shapes than the plan's */
        CHECK(tc_plan_run(plan, &rd, &err) != TC_OK && api_untouched(obuf, 8));
        in[0].shape[0] = 2;
        in[1].dtype = TC_FLOAT64; /* a wrong dtype: tc_run's code and message */
        CHECKF(tc_plan_run(plan, &rd, &err) == TC_ERR_TYPE && api_untouched(obuf, 8) &&
                   strstr(err.msg, "Beta") && strstr(err.msg, "float32") && strstr(err.msg, "float64"),
               "wrong dtype at plan run: %s", err.msg);
        {
            tc_error err_run;
            CHECKF(tc_run(p, &rd, &err_run) == TC_ERR_TYPE && strcmp(err.msg, err_run.msg) == 0,
                   "tc_run and tc_plan_run differ on a wrong dtype: %s | %s", err_run.msg, err.msg);
        }
        in[1].dtype = TC_FLOAT32, in[1].rank = 3; /* a wrong rank: tc_run's code */
        CHECKF(tc_plan_run(plan, &rd, &err) == TC_ERR_SHAPE && strstr(err.msg, "Beta"),
               "wrong rank at plan run: %s", err.msg);
        in[1].rank = 2;
        CHECK(tc_plan_run(plan, &rd, &err) == TC_OK && obuf[5] == 5);
        api_poison(obuf, 8); /* a run's data must be aligned as its plan's was */
        in[1].data = (char *)in[1].data + 1;
        CHECKF(tc_plan_run(plan, &rd, &err) == TC_ERR_INVALID_ARGUMENT && api_untouched(obuf, 8) &&
                   strstr(err.msg, "Beta") && strstr(err.msg, "aligned"),
               "misaligned input at plan run: %s", err.msg);
        in[1].data = (char *)in[1].data - 1;
        tc_plan_free(plan);
    }
    /* 0: the online CPUs */
    CHECK(tc_pool_create(0, NULL, &pool, &err) == TC_OK && pool != NULL &&
          tc_pool_num_threads(pool) >= 1 && tc_pool_num_threads(pool) <= TC_MAX_THREADS);
    tc_pool_free(pool);
    pool = (tc_pool *)&rd;
    CHECK(tc_pool_create(-3, NULL, &pool, &err) == TC_ERR_INVALID_ARGUMENT && pool == NULL);
    CHECK(tc_pool_create(TC_MAX_THREADS + 1, NULL, &pool, &err) != TC_OK && pool == NULL);
    CHECK(tc_pool_create(2, NULL, NULL, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_pool_create(1, NULL, &pool, &err) == TC_OK && tc_pool_num_threads(pool) == 1);
    tc_pool_free(pool);
    CHECK(tc_bind_sizes(NULL, 0, in, 2, sx, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_bind_sizes(p, 7, in, 2, sx, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_bind_sizes(p, 0, in, 2, NULL, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(tc_bind_sizes(p, 0, in, 2, sx, &err) == TC_OK);
    CHECK(tc_sx_eval(NULL, NULL, NULL, sx, &err) == TC_ERR_INVALID_ARGUMENT);
    plan = NULL; /* a plan may be freed after its program */
    CHECK(tc_plan_create(p, &rd, &plan, &err) == TC_OK && plan);
    tc_program_free(p);
    tc_plan_free(plan);
}

/* Index values are int32 in expressions: a loop that would take them past
   it is an error when the plan is made (here never run: the buffers are
   dummies, as large inputs are not needed to reach the check). */
static void test_index_values_int32(void) {
    tc_program *p = api_compile("def f(int8(N) A) -> (B) { B(i) = A(i) + int8(i % 100) }");
    char dummy[16];
    tc_tensor in, out;
    tc_run_desc rd;
    tc_plan *plan = NULL;
    tc_error err;
    if (!p) return;
    memset(&in, 0, sizeof in);
    in.dtype = TC_INT8, in.rank = 1, in.shape[0] = ((int64_t)1 << 31) + 10, in.data = dummy;
    out = in;
    api_desc(&rd, &in, 1, &out, 1);
    CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_ERR_LIMIT && !plan &&
               strstr(err.msg, "the value of i reaches 2147483657, outside int32"),
           "%s", err.msg);
    in.shape[0] = out.shape[0] = (int64_t)1 << 31; /* i < 2^31: fits */
    CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_OK && plan, "%s", err.msg);
    tc_plan_free(plan);
    tc_program_free(p);
}

/* A long reduction per output element is split in segments, each with a
   partial value per output element: with 2^40 outputs of a reduction over
   2^40 values those partials would overflow int64 (and size_t anywhere):
   the plan then splits nothing, and is made at once (outputs left NULL, so
   nothing of that size is allocated). */
static void test_huge_segments(void) {
    tc_program *p = api_compile(
        "def f(float(N) X, float(K) Y) -> (O) { O(i) +=! Y(k) * Y(k+1) * Y(k+2) where i in 0:N }");
    static float x[4], y[4];
    tc_tensor in[2], out[1];
    tc_run_desc rd;
    tc_plan *plan = NULL;
    tc_error err;
    int64_t n[2] = {(int64_t)1 << 40, (int64_t)1 << 24};
    int k;
    if (!p) return;
    for (k = 0; k < 2; k++) {
        memset(in, 0, sizeof in);
        memset(out, 0, sizeof out);
        in[0].dtype = in[1].dtype = TC_FLOAT32;
        in[0].rank = in[1].rank = 1;
        in[0].shape[0] = in[1].shape[0] = n[k];
        in[0].data = x, in[1].data = y; /* never read: the plan reads no data */
        api_desc(&rd, in, 2, out, 1);
        CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_OK, "%s", err.msg);
        tc_plan_free(plan);
        plan = NULL;
    }
    tc_program_free(p);
}

/* An output may share its buffer with an input: the result is the one
   separate buffers give (here staged: B reads A transposed, and C reads A
   after B wrote over it). Two outputs may share no byte; side by side in
   one buffer they are fine. */
static void test_run_in_place(void) {
    tc_program *p = api_compile("def t(float(N, N) A) -> (B, C) {\n B(i, j) = A(j, i)\n C(i, j) = A(i, j)\n}");
    float buf[3 * 4 * 4];
    tc_tensor in, out[2];
    tc_run_desc rd;
    tc_error err;
    int k, ok;
    if (!p) return;
    for (k = 0; k < 48; k++) buf[k] = (float)k;
    memset(&in, 0, sizeof in);
    in.dtype = TC_FLOAT32, in.rank = 2, in.shape[0] = in.shape[1] = 4, in.data = buf;
    out[0] = out[1] = in;
    out[1].data = buf + 32;
    api_desc(&rd, &in, 1, out, 2);
    CHECKF(tc_run(p, &rd, &err) == TC_OK, "in place: %s", err.msg);
    for (k = 0, ok = 1; k < 16; k++) ok &= buf[k] == (float)((k % 4) * 4 + k / 4) && buf[32 + k] == (float)k;
    CHECK(ok); /* B = A transposed over A, C = A as it was */
    for (k = 0; k < 48; k++) buf[k] = (float)k;
    out[0].data = buf + 20; /* overlaps C's buffer [32, 48) */
    CHECKF(tc_run(p, &rd, &err) == TC_ERR_INVALID_ARGUMENT && strstr(err.msg, "output C shares memory with output B"),
           "outputs overlap: %s", err.msg);
    for (k = 0, ok = 1; k < 48; k++) ok &= buf[k] == (float)k;
    CHECK(ok); /* untouched */
    out[0].data = buf + 16; /* [16, 32) and [32, 48): side by side */
    CHECKF(tc_run(p, &rd, &err) == TC_OK && buf[17] == 4.0f && buf[33] == 1.0f, "%s", err.msg);
    tc_program_free(p);
}

static void test_error_format(void) {
    const char *src = "def f(float(N) a) -> (b) {\n    b(i) = a(i) +* 2\n}\n";
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err, plain;
    char buf[512], small[16];
    int n, n2, k;
    const char *l2, *l3;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    CHECK(tc_compile(&cd, &p, &err) == TC_ERR_SYNTAX && p == NULL);
    CHECKF(err.line == 2 && err.col >= 5, "position %d:%d", err.line, err.col);
    n = tc_error_format(&err, "x.tc", src, buf, sizeof buf);
    CHECK(n == (int)strlen(buf));
    snprintf(small, sizeof small, "x.tc:2:%d:", err.col);
    CHECKF(strncmp(buf, small, strlen(small)) == 0 && strstr(buf, "error:"), "%s", buf);
    l2 = strchr(buf, '\n');
    l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
    CHECKF(l2 && strncmp(l2 + 1, "    b(i) = a(i) +* 2\n", 21) == 0, "%s", buf);
    if (l3) { /* caret under the column */
        for (k = 0; k < err.col - 1 && l3[1 + k] == ' '; k++) {
        }
        CHECKF(k == err.col - 1 && l3[1 + k] == '^', "caret: %s", buf);
    } else {
        CHECK(l3 != NULL);
    }
    CHECK(tc_error_format(&err, "x.tc", src, NULL, 0) == n);
    n2 = tc_error_format(&err, "x.tc", src, small, sizeof small);
    CHECK(n2 == n && strlen(small) == sizeof small - 1);
    CHECK(tc_error_format(&err, NULL, src, buf, sizeof buf) > 0 && strncmp(buf, "<tc>:2:", 7) == 0);
    n = tc_error_format(&err, "x.tc", NULL, buf, sizeof buf); /* no source: one line */
    CHECK(n > 0 && strchr(buf, '\n') == buf + n - 1);
    CHECK(tc_error_format(NULL, "x.tc", src, buf, sizeof buf) == 0);
    memset(&plain, 0, sizeof plain);
    plain.code = TC_ERR_SHAPE;
    strcpy(plain.msg, "shape mismatch");
    n = tc_error_format(&plain, "x.tc", src, buf, sizeof buf); /* line 0: no caret */
    CHECKF(n > 0 && strstr(buf, "shape mismatch") && !strchr(buf, '^'), "%s", buf);
    /* a lone \r ends the line shown, as \n and \r\n do */
    cd.source = "def f(float(N) a) -> (b) {\r  b(i) = c(i)\r}\r";
    CHECK(tc_compile(&cd, &p, &err) != TC_OK && err.line == 2 && err.col == 10);
    tc_error_format(&err, "x.tc", cd.source, buf, sizeof buf);
    l2 = strchr(buf, '\n');
    CHECKF(l2 && strcmp(l2 + 1, "  b(i) = c(i)\n         ^\n") == 0, "%s", buf);
    /* a tab in the underlined span stays a tab, as before the caret */
    cd.source = "def f(float(N) a) -> (b) {\n\tb(i) =\tfma(a(i),\t\ta(i))\n}";
    CHECK(tc_compile(&cd, &p, &err) != TC_OK && err.line == 2 && err.col == 9);
    tc_error_format(&err, "x.tc", cd.source, buf, sizeof buf);
    l3 = strstr(buf, "))\n");
    CHECKF(l3 && strcmp(l3 + 3, "\t      \t^~~~~~~~~\t\t~~~~~\n") == 0, "[%s]", l3 ? l3 + 3 : buf);
    cd.source = "def f(float(N) a) -> (b) {\n  b(i) = c(i)\n}";
    CHECK(tc_compile(&cd, &p, &err) == TC_ERR_NAME && err.line == 2 && err.col == 10);
    cd.source = "def f(float(N) a) -> (b) {\n  b(i) +=! a(i + j)\n}";
    CHECK(tc_compile(&cd, &p, &err) == TC_ERR_RANGE && err.line == 2);
    CHECKF(strstr(err.msg, "j") && strstr(err.msg, "where"), "range error: %s", err.msg);
}


/* A huge constant offset that a reduction's range cancels: the answer of
   the plain product, no pointer outside a tensor on the way (UBSan's
   pointer-overflow in the sanitized build), in every float dtype the
   contraction paths take, at 1 and 2 threads. */
static void test_huge_cancelled_offsets(void) {
    static const char *const srcs[] = {
        "def mm(float(M,K) X, float(K,N) Y) -> (Z) { Z(i,j) +=! X(i, k - 1099511627776) * "
        "Y(k - 1099511627776, j) }",
        "def mm(double(M,K) X, double(K,N) Y) -> (Z) { Z(i,j) +=! X(i, k - 1099511627776) * "
        "Y(k - 1099511627776, j) }",
        "def d(float(I,KK,11) A, float(K,2,K,L) B) -> (C) { C(l) +=! A(i, -20000000000000 - k, 2) "
        "* B(k2, 1, j, l) }",
        "def w(float(N) A) -> (O) { O(i) +=! A(2*i + k - 1099511627776) where k in "
        "1099511627776:1099511627778 }"};
    int s, th;
    for (s = 0; s < 4; s++)
        for (th = 1; th <= 2; th++) {
            tc_program *p = api_compile(srcs[s]);
            tc_tensor in[2], out[1];
            tc_run_desc rd;
            tc_pool *pool = NULL;
            tc_error err;
            double x[20 * 11 * 3], y[30], want[24], got[24];
            float xf[sizeof x / sizeof x[0]], yf[30];
            int i, j, k, n_out = 0, dbl = s == 1;
            if (!p) return;
            for (i = 0; i < (int)(sizeof x / sizeof x[0]); i++) xf[i] = (float)(x[i] = i % 7 - 3);
            for (i = 0; i < 30; i++) yf[i] = (float)(y[i] = (i * 5) % 11 - 5);
            memset(in, 0, sizeof in);
            memset(out, 0, sizeof out);
            in[0].dtype = in[1].dtype = dbl ? TC_FLOAT64 : TC_FLOAT32;
            in[0].data = dbl ? (void *)x : (void *)xf, in[1].data = dbl ? (void *)y : (void *)yf;
            if (s < 2) { /* X 4x5, Y 5x6: Z = X Y */
                in[0].rank = in[1].rank = 2;
                in[0].shape[0] = 4, in[0].shape[1] = 5, in[1].shape[0] = 5, in[1].shape[1] = 6;
                for (i = 0; i < 4; i++)
                    for (j = 0; j < 6; j++) {
                        want[i * 6 + j] = 0;
                        for (k = 0; k < 5; k++) want[i * 6 + j] += x[i * 5 + k] * y[k * 6 + j];
                    }
                n_out = 24;
            } else if (s == 2) { /* A 3x4x11, B 2x2x2x3: C(l) = sum A(:,:,2) * sum B(:,1,:,l) */
                double sa = 0;
                in[0].rank = 3, in[1].rank = 4;
                in[0].shape[0] = 3, in[0].shape[1] = 4, in[0].shape[2] = 11;
                in[1].shape[0] = in[1].shape[1] = in[1].shape[2] = 2, in[1].shape[3] = 3;
                for (i = 0; i < 12; i++) sa += x[i * 11 + 2];
                for (k = 0; k < 3; k++) {
                    double sb = 0;
                    for (i = 0; i < 2; i++)
                        for (j = 0; j < 2; j++) sb += y[((i * 2 + 1) * 2 + j) * 3 + k];
                    want[k] = sa * sb;
                }
                n_out = 3;
            } else { /* A of 16: O(i) = A(2i) + A(2i + 1) */
                in[0].rank = 1, in[0].shape[0] = 16;
                for (i = 0; i < 8; i++) want[i] = x[2 * i] + x[2 * i + 1];
                n_out = 8;
            }
            api_desc(&rd, in, s == 3 ? 1 : 2, out, 1);
            CHECK(tc_pool_create(th, NULL, &pool, &err) == TC_OK);
            rd.pool = pool;
            CHECKF(tc_run(p, &rd, &err) == TC_OK, "%s: %s", srcs[s], err.msg);
            for (i = 0; out[0].data && i < n_out; i++)
                got[i] = dbl ? ((double *)out[0].data)[i] : (double)((float *)out[0].data)[i];
            for (i = 0; out[0].data && i < n_out; i++)
                CHECKF(got[i] == want[i], "%s, %d threads: [%d] = %g, want %g", srcs[s], th, i,
                       got[i], want[i]);
            tc_tensor_free(p, &out[0]);
            tc_pool_free(pool);
            tc_program_free(p);
        }
}

/* dtype 0 is TC_DTYPE_UNSET: a zeroed tc_tensor names the missing dtype */
static void test_dtype_unset(void) {
    tc_program *p = api_compile(mm_src);
    tc_tensor in[2], out[1];
    tc_run_desc rd;
    tc_error err;
    float obuf[8];
    if (!p) return;
    CHECK(TC_DTYPE_UNSET == 0 && tc_dtype_name(TC_DTYPE_UNSET) == NULL &&
          tc_dtype_size(TC_DTYPE_UNSET) == 0 && tc_dtype_npy(TC_DTYPE_UNSET) == NULL);
    CHECK(!tc_dtype_from_name("", NULL) && !tc_dtype_from_name("unset", NULL));
    api_mm_tensors(in, out, obuf);
    api_poison(obuf, 8);
    in[1].dtype = (tc_dtype)0;
    api_desc(&rd, in, 2, out, 1);
    CHECKF(tc_run(p, &rd, &err) == TC_ERR_TYPE && strstr(err.msg, "Beta: dtype not set") &&
               api_untouched(obuf, 8),
           "%s", err.msg);
    in[1].dtype = TC_FLOAT32;
    out[0].dtype = (tc_dtype)0;
    CHECKF(tc_run(p, &rd, &err) == TC_ERR_TYPE && strstr(err.msg, "Gamma: dtype not set") &&
               api_untouched(obuf, 8),
           "%s", err.msg);
    tc_program_free(p);
}

/* A caller-built tc_error: msg filling the whole array with no NUL, and
   line/col/offset/length anywhere. The message is read within its array
   (the bytes after it here are 'y', then a NUL: an unbounded read shows
   them; the ASan build also sees it), the source within its string. */
static void test_error_format_caller_built(void) {
    unsigned char *mem = (unsigned char *)malloc(sizeof(tc_error) + 32);
    tc_error *e = (tc_error *)mem, *exact = (tc_error *)malloc(sizeof(tc_error));
    const char *src = "def f(float(N) a) -> (b) {\n  b(i) = a(i)\n}";
    static const int offs[] = {-1, 0, 1, 27, 30, 43, 44, 45, 1000, 2147483647};
    static const int lens[] = {-5, 0, 1, 3, 100, 2147483647};
    char buf[1024];
    int n, i, j;
    const char *m;
    if (!mem || !exact) {
        CHECK(mem && exact);
        free(mem);
        free(exact);
        return;
    }
    memset(mem, 'y', sizeof(tc_error) + 32);
    mem[sizeof(tc_error) + 31] = 0;
    e->code = TC_ERR_SYNTAX;
    e->line = 0;
    memset(e->msg, 'x', sizeof e->msg);
    n = tc_error_format(e, "x.tc", NULL, buf, sizeof buf);
    m = strstr(buf, "error: ");
    CHECKF(m && strspn(m + 7, "x") == sizeof e->msg && m[7 + sizeof e->msg] == '\n' &&
               !strchr(buf, 'y'), "%.80s", buf);
    CHECK(n == (int)strlen(buf));
    /* exactly the struct's size: ASan reports a read one past it */
    memcpy(exact, e, sizeof *exact);
    exact->line = 3;
    exact->col = 1;
    exact->offset = 0;
    exact->length = 1;
    n = tc_error_format(exact, "x.tc", src, buf, sizeof buf);
    CHECK(n > (int)sizeof e->msg && !strchr(buf, 'y'));
    for (i = 0; i < (int)(sizeof offs / sizeof offs[0]); i++)
        for (j = 0; j < (int)(sizeof lens / sizeof lens[0]); j++) {
            exact->line = i % 2 ? 2147483647 : 1;
            exact->col = j % 2 ? -2147483647 - 1 : 2147483647;
            exact->offset = offs[i];
            exact->length = lens[j];
            n = tc_error_format(exact, "x.tc", src, buf, sizeof buf);
            CHECKF(n == (int)strlen(buf) && !strchr(buf, 'y'), "offset %d length %d", offs[i],
                   lens[j]);
            n = tc_error_format(exact, "x.tc", "\xEF\xBB\xBF" "def", buf, sizeof buf); /* BOM */
            CHECKF(n == (int)strlen(buf), "BOM, offset %d length %d", offs[i], lens[j]);
        }
    free(mem);
    free(exact);
}

int main(void) {
    RUN(test_compile_misuse);
    RUN(test_queries_misuse);
    RUN(test_tables);
    RUN(test_run_misuse);
    RUN(test_wrong_tensors);
    RUN(test_untouched_on_failure);
    RUN(test_declared_and_negative);
    RUN(test_infer_misuse);
    RUN(test_plan_pool_misuse);
    RUN(test_index_values_int32);
    RUN(test_huge_segments);
    RUN(test_run_in_place);
    RUN(test_error_format);
    RUN(test_huge_cancelled_offsets);
    RUN(test_dtype_unset);
    RUN(test_error_format_caller_built);
    return th_report();
}
