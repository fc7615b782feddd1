/* The VM on hand-built loop-nest IR (independent of the front end), then
   through tc_compile + tc_run once the front end is in. */
#define TC_IMPLEMENTATION
#include "tc.h"
#include "harness.h"
#include "vm_hand_ir.h"
#include <stdint.h>

static tc_status run1(hb *h, tc_tensor *in, int nin, tc_tensor *out, int nout, tc_error *err) {
    tc_run_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.inputs = in;
    rd.n_inputs = nin;
    rd.outputs = out;
    rd.n_outputs = nout;
    return tc_run(&h->prog, &rd, err);
}

/* C(i) = A(i) + B(i) over 1000 lanes: full blocks and a tail. */
static void test_add(void) {
    static hb h;
    tc_error err;
    float a[1000], b[1000], c[1000];
    tc_tensor in[2], out[1];
    int N = hb_var(&h, "N"), A, B, C, s, i, ok = 1;
    A = hb_tensor(&h, "A", TC_FLOAT32, TC_TENSOR_INPUT, 1, N);
    B = hb_tensor(&h, "B", TC_FLOAT32, TC_TENSOR_INPUT, 1, N);
    C = hb_tensor(&h, "C", TC_FLOAT32, TC_TENSOR_OUTPUT, 1, N);
    s = hb_stmt(&h, C, TC_REDUCE_ASSIGN, 0, "C(i) = A(i) + B(i)");
    hb_loop(&h, s, "i", hb_const(&h, 0), N, 0);
    hb_node(&h, s, TC_IR_ADD, TC_FLOAT32, 2, hb_read(&h, s, A, TC_FLOAT32, "i"),
            hb_read(&h, s, B, TC_FLOAT32, "i"), 0);
    CHECK(hb_finish(&h, &err) == TC_OK);
    for (i = 0; i < 1000; i++) { a[i] = (float)i; b[i] = 0.5f * (float)i; c[i] = -1.0f; }
    in[0] = hb_ten(TC_FLOAT32, a, 1, 1000);
    in[1] = hb_ten(TC_FLOAT32, b, 1, 1000);
    out[0] = hb_ten(TC_FLOAT32, c, 1, 1000);
    CHECKF(run1(&h, in, 2, out, 1, &err) == TC_OK, "%s", err.msg);
    for (i = 0; i < 1000; i++) ok &= c[i] == 1.5f * (float)i;
    CHECK(ok);
    /* library-allocated output */
    out[0].data = NULL;
    CHECKF(run1(&h, in, 2, out, 1, &err) == TC_OK, "%s", err.msg);
    CHECK(out[0].data && out[0].rank == 1 && out[0].shape[0] == 1000 && out[0].dtype == TC_FLOAT32);
    CHECK(out[0].data && ((float *)out[0].data)[999] == 1498.5f);
    tc_tensor_free(&h.prog, &out[0]);
    CHECK(out[0].data == NULL);
    /* shape conflict: N bound twice */
    in[1] = hb_ten(TC_FLOAT32, b, 1, 999);
    out[0] = hb_ten(TC_FLOAT32, c, 1, 1000);
    c[0] = 42.0f;
    CHECK(run1(&h, in, 2, out, 1, &err) == TC_ERR_SHAPE);
    CHECK(strstr(err.msg, "A") && strstr(err.msg, "B") && strstr(err.msg, "999"));
    CHECK(c[0] == 42.0f);
    /* dtype mismatch, rank mismatch, caller output of the wrong shape */
    in[1] = hb_ten(TC_FLOAT64, b, 1, 1000);
    CHECK(run1(&h, in, 2, out, 1, &err) == TC_ERR_TYPE);
    CHECK(strstr(err.msg, "float32") && strstr(err.msg, "float64"));
    in[1] = hb_ten(TC_FLOAT32, b, 2, 10, 100);
    CHECK(run1(&h, in, 2, out, 1, &err) == TC_ERR_SHAPE);
    in[1] = hb_ten(TC_FLOAT32, b, 1, 1000);
    out[0] = hb_ten(TC_FLOAT32, c, 1, 999);
    CHECK(run1(&h, in, 2, out, 1, &err) == TC_ERR_SHAPE);
    CHECK(run1(&h, in, 1, out, 1, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(run1(&h, in, 2, out, 0, &err) == TC_ERR_INVALID_ARGUMENT);
    CHECK(c[0] == 42.0f);
    hb_free(&h);
}

/* C(i,j) +=! A(i,k) * B(k,j); then without `!`, accumulating. */
static void test_matmul(void) {
    static hb h, h2;
    tc_error err;
    enum { M = 37, K = 29, N = 300 };
    static float a[M * K], b[K * N], c[M * N], ref[M * N];
    tc_tensor in[2], out[1];
    int i, j, k, ok = 1, pass;
    for (pass = 0; pass < 2; pass++) {
        hb *H = pass ? &h2 : &h;
        int vM = hb_var(H, "M"), vK = hb_var(H, "K"), vN = hb_var(H, "N"), A, B, C, s;
        A = hb_tensor(H, "A", TC_FLOAT32, TC_TENSOR_INPUT, 2, vM, vK);
        B = hb_tensor(H, "B", TC_FLOAT32, TC_TENSOR_INPUT, 2, vK, vN);
        C = hb_tensor(H, "C", TC_FLOAT32, TC_TENSOR_OUTPUT, 2, vM, vN);
        s = hb_stmt(H, C, TC_REDUCE_SUM, !pass, "C(i,j) +=! A(i,k) * B(k,j)");
        hb_loop(H, s, "i", hb_const(H, 0), vM, 0);
        hb_loop(H, s, "j", hb_const(H, 0), vN, 0);
        hb_loop(H, s, "k", hb_const(H, 0), vK, 1);
        hb_node(H, s, TC_IR_MUL, TC_FLOAT32, 2, hb_read(H, s, A, TC_FLOAT32, "i,k"),
                hb_read(H, s, B, TC_FLOAT32, "k,j"), 0);
        CHECK(hb_finish(H, &err) == TC_OK);
    }
    for (i = 0; i < M * K; i++) a[i] = (float)((i * 7) % 11) - 5.0f;
    for (i = 0; i < K * N; i++) b[i] = (float)((i * 5) % 13) - 6.0f;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            float acc = 0.0f;
            for (k = 0; k < K; k++) acc += a[i * K + k] * b[k * N + j];
            ref[i * N + j] = acc;
            c[i * N + j] = 1000.0f;
        }
    in[0] = hb_ten(TC_FLOAT32, a, 2, M, K);
    in[1] = hb_ten(TC_FLOAT32, b, 2, K, N);
    out[0] = hb_ten(TC_FLOAT32, c, 2, M, N);
    CHECKF(run1(&h, in, 2, out, 1, &err) == TC_OK, "%s", err.msg);
    for (i = 0; i < M * N; i++) ok &= c[i] == ref[i]; /* small integers: exact */
    CHECK(ok);
    CHECKF(run1(&h2, in, 2, out, 1, &err) == TC_OK, "%s", err.msg);
    ok = 1;
    for (i = 0; i < M * N; i++) ok &= c[i] == 2.0f * ref[i];
    CHECK(ok);
    hb_free(&h);
    hb_free(&h2);
}

/* r(i) +=! A(i,j): lanes along the reduction loop j. s +=! A(i,j) too. */
static void test_rowsum(void) {
    static hb h;
    tc_error err;
    enum { M = 5, N = 1000 };
    static float a[M * N], r[M], sref[1];
    float s0 = 0.0f;
    tc_tensor in[1], out[2];
    int vM = hb_var(&h, "M"), vN = hb_var(&h, "N"), A, R, S, s, i, j, ok = 1;
    A = hb_tensor(&h, "A", TC_FLOAT32, TC_TENSOR_INPUT, 2, vM, vN);
    R = hb_tensor(&h, "r", TC_FLOAT32, TC_TENSOR_OUTPUT, 1, vM);
    S = hb_tensor(&h, "s", TC_FLOAT32, TC_TENSOR_OUTPUT, 0);
    s = hb_stmt(&h, R, TC_REDUCE_SUM, 1, "r(i) +=! A(i,j)");
    hb_loop(&h, s, "i", hb_const(&h, 0), vM, 0);
    hb_loop(&h, s, "j", hb_const(&h, 0), vN, 1);
    hb_read(&h, s, A, TC_FLOAT32, "i,j");
    s = hb_stmt(&h, S, TC_REDUCE_MAX, 1, "s max=! A(i,j)");
    hb_loop(&h, s, "i", hb_const(&h, 0), vM, 1);
    hb_loop(&h, s, "j", hb_const(&h, 0), vN, 1);
    hb_read(&h, s, A, TC_FLOAT32, "i,j");
    CHECK(hb_finish(&h, &err) == TC_OK);
    for (i = 0; i < M * N; i++) a[i] = (float)((i * 7) % 19) - 9.0f;
    a[3 * N + 777] = 55.0f;
    in[0] = hb_ten(TC_FLOAT32, a, 2, M, N);
    out[0] = hb_ten(TC_FLOAT32, r, 1, M);
    out[1] = hb_ten(TC_FLOAT32, sref, 0);
    CHECKF(run1(&h, in, 1, out, 2, &err) == TC_OK, "%s", err.msg);
    for (i = 0; i < M; i++) {
        float acc = 0.0f;
        for (j = 0; j < N; j++) acc += a[i * N + j];
        ok &= acc == r[i];
        (void)s0;
    }
    CHECK(ok);
    CHECK(sref[0] == 55.0f);
    hb_free(&h);
}

/* O(i) = E(I(i), j) with int32 and int64 indices, and the range check. */
static void test_gather(void) {
    int pass;
    for (pass = 0; pass < 2; pass++) {
        static hb h;
        tc_error err;
        float e[10 * 3], o[6 * 3];
        int32_t i32[6] = {0, 9, 3, 3, 7, 1};
        int64_t i64[6] = {0, 9, 3, 3, 7, 1};
        tc_dtype it = pass ? TC_INT64 : TC_INT32;
        tc_tensor in[2], out[1];
        int vV = hb_var(&h, "V"), vD = hb_var(&h, "D"), vN = hb_var(&h, "N"), E, I, O, s, ix, i, j;
        int ok = 1;
        memset(&h, 0, sizeof h);
        vV = hb_var(&h, "V"); vD = hb_var(&h, "D"); vN = hb_var(&h, "N");
        E = hb_tensor(&h, "E", TC_FLOAT32, TC_TENSOR_INPUT, 2, vV, vD);
        I = hb_tensor(&h, "I", it, TC_TENSOR_INPUT, 1, vN);
        O = hb_tensor(&h, "O", TC_FLOAT32, TC_TENSOR_OUTPUT, 2, vN, vD);
        s = hb_stmt(&h, O, TC_REDUCE_ASSIGN, 0, "O(i,j) = E(I(i),j)");
        hb_loop(&h, s, "i", hb_const(&h, 0), vN, 0);
        hb_loop(&h, s, "j", hb_const(&h, 0), vD, 0);
        ix = hb_read(&h, s, I, it, "i");
        (void)ix;
        hb_read(&h, s, E, TC_FLOAT32, "#0,j");
        CHECK(hb_finish(&h, &err) == TC_OK);
        for (i = 0; i < 30; i++) e[i] = (float)i;
        in[0] = hb_ten(TC_FLOAT32, e, 2, 10, 3);
        in[1] = hb_ten(it, pass ? (void *)i64 : (void *)i32, 1, 6);
        out[0] = hb_ten(TC_FLOAT32, o, 2, 6, 3);
        CHECKF(run1(&h, in, 2, out, 1, &err) == TC_OK, "%s", err.msg);
        for (i = 0; i < 6; i++)
            for (j = 0; j < 3; j++) ok &= o[i * 3 + j] == e[(pass ? i64[i] : i32[i]) * 3 + j];
        CHECK(ok);
        i32[4] = 10;
        i64[4] = -1;
        CHECK(run1(&h, in, 2, out, 1, &err) == TC_ERR_BOUNDS);
        CHECK(strstr(err.msg, "E") && strstr(err.msg, "dimension 0"));
        hb_free(&h);
    }
}

/* O(i) = i < 5 ? A(i + 5) : -1 over i in 0:10 with A of 10: the reads of
   lanes 5..9 (A(10..14)) must never happen. */
static void test_select_guard(void) {
    static hb h;
    tc_error err;
    float a[10], o[10];
    tc_tensor in[1], out[1];
    int vN = hb_var(&h, "N"), A, O, s, i, ok = 1, cond;
    A = hb_tensor(&h, "A", TC_FLOAT32, TC_TENSOR_INPUT, 1, vN);
    O = hb_tensor(&h, "O", TC_FLOAT32, TC_TENSOR_OUTPUT, 1, vN);
    s = hb_stmt(&h, O, TC_REDUCE_ASSIGN, 0, "O(i) = i < 5 ? A(i+5) : -1");
    hb_loop(&h, s, "i", hb_const(&h, 0), vN, 0);
    {
        int ii = hb_node(&h, s, TC_IR_INDEX, TC_INT32, 0, 0, 0, 0);
        int five = hb_ci(&h, s, TC_INT32, 5);
        int rd, m1;
        cond = hb_node(&h, s, TC_IR_LT, TC_BOOL, 2, ii, five, 0);
        rd = hb_read(&h, s, A, TC_FLOAT32, "i+5");
        m1 = hb_cf(&h, s, TC_FLOAT32, -1.0);
        hb_node(&h, s, TC_IR_SELECT, TC_FLOAT32, 3, cond, rd, m1);
    }
    CHECK(hb_finish(&h, &err) == TC_OK);
    for (i = 0; i < 10; i++) a[i] = (float)(i * i);
    in[0] = hb_ten(TC_FLOAT32, a, 1, 10);
    out[0] = hb_ten(TC_FLOAT32, o, 1, 10);
    CHECKF(run1(&h, in, 1, out, 1, &err) == TC_OK, "%s", err.msg);
    for (i = 0; i < 10; i++) ok &= o[i] == (i < 5 ? a[i + 5] : -1.0f);
    CHECK(ok);
    hb_free(&h);
}

/* Integer semantics: floor division and modulo, x/0 = x%0 = 0, wrap. */
static void test_int_ops(void) {
    static hb h;
    tc_error err;
    int32_t x[8] = {7, -7, 7, -7, 5, INT32_MIN, 3, -1}, y[8] = {2, 2, -2, -2, 0, -1, 0, 3};
    int32_t q[8], r[8];
    int8_t w[8];
    tc_tensor in[2], out[3];
    int vN = hb_var(&h, "N"), X, Y, Q, Rr, W, s, i;
    X = hb_tensor(&h, "x", TC_INT32, TC_TENSOR_INPUT, 1, vN);
    Y = hb_tensor(&h, "y", TC_INT32, TC_TENSOR_INPUT, 1, vN);
    Q = hb_tensor(&h, "q", TC_INT32, TC_TENSOR_OUTPUT, 1, vN);
    Rr = hb_tensor(&h, "r", TC_INT32, TC_TENSOR_OUTPUT, 1, vN);
    W = hb_tensor(&h, "w", TC_INT8, TC_TENSOR_OUTPUT, 1, vN);
    s = hb_stmt(&h, Q, TC_REDUCE_ASSIGN, 0, "q(i) = x(i) / y(i)");
    hb_loop(&h, s, "i", hb_const(&h, 0), vN, 0);
    hb_node(&h, s, TC_IR_DIV, TC_INT32, 2, hb_read(&h, s, X, TC_INT32, "i"), hb_read(&h, s, Y, TC_INT32, "i"), 0);
    s = hb_stmt(&h, Rr, TC_REDUCE_ASSIGN, 0, "r(i) = x(i) % y(i)");
    hb_loop(&h, s, "i", hb_const(&h, 0), vN, 0);
    hb_node(&h, s, TC_IR_MOD, TC_INT32, 2, hb_read(&h, s, X, TC_INT32, "i"), hb_read(&h, s, Y, TC_INT32, "i"), 0);
    s = hb_stmt(&h, W, TC_REDUCE_ASSIGN, 0, "w(i) = int8(x(i)) * int8(100)");
    hb_loop(&h, s, "i", hb_const(&h, 0), vN, 0);
    {
        int rx = hb_read(&h, s, X, TC_INT32, "i");
        int cx = hb_node(&h, s, TC_IR_CAST, TC_INT8, 1, rx, 0, 0);
        int k = hb_ci(&h, s, TC_INT8, 100);
        hb_node(&h, s, TC_IR_MUL, TC_INT8, 2, cx, k, 0);
    }
    CHECK(hb_finish(&h, &err) == TC_OK);
    in[0] = hb_ten(TC_INT32, x, 1, 8);
    in[1] = hb_ten(TC_INT32, y, 1, 8);
    out[0] = hb_ten(TC_INT32, q, 1, 8);
    out[1] = hb_ten(TC_INT32, r, 1, 8);
    out[2] = hb_ten(TC_INT8, w, 1, 8);
    CHECKF(run1(&h, in, 2, out, 3, &err) == TC_OK, "%s", err.msg);
    {
        int32_t eq[8] = {3, -4, -4, 3, 0, INT32_MIN, 0, -1}, er[8] = {1, 1, -1, -1, 0, 0, 0, 2};
        for (i = 0; i < 8; i++) {
            CHECKF(q[i] == eq[i], "q[%d] = %d", i, q[i]);
            CHECKF(r[i] == er[i], "r[%d] = %d", i, r[i]);
            CHECKF(w[i] == (int8_t)(uint8_t)((unsigned)(uint8_t)(int8_t)x[i] * 100u), "w[%d] = %d", i, w[i]);
        }
    }
    hb_free(&h);
}

/* float16 storage: loads widen, stores round to nearest even; min=! of an
   empty domain leaves +inf. */
static void test_f16_and_identity(void) {
    static hb h;
    tc_error err;
    uint16_t a[4] = {0x3c00, 0x4000, 0x3555, 0x7bff}, o[4];
    float m[1];
    tc_tensor in[1], out[2];
    int vN = hb_var(&h, "N"), A, O, Mn, s;
    A = hb_tensor(&h, "a", TC_FLOAT16, TC_TENSOR_INPUT, 1, vN);
    O = hb_tensor(&h, "o", TC_FLOAT16, TC_TENSOR_OUTPUT, 1, vN);
    Mn = hb_tensor(&h, "m", TC_FLOAT32, TC_TENSOR_OUTPUT, 0);
    s = hb_stmt(&h, O, TC_REDUCE_ASSIGN, 0, "o(i) = a(i) * 3");
    hb_loop(&h, s, "i", hb_const(&h, 0), vN, 0);
    hb_node(&h, s, TC_IR_MUL, TC_FLOAT32, 2, hb_read(&h, s, A, TC_FLOAT32, "i"), hb_cf(&h, s, TC_FLOAT32, 3.0), 0);
    s = hb_stmt(&h, Mn, TC_REDUCE_MIN, 1, "m min=! a(i) where i in 2:2");
    hb_loop(&h, s, "i", hb_const(&h, 2), hb_const(&h, 2), 1);
    hb_read(&h, s, A, TC_FLOAT32, "i");
    CHECK(hb_finish(&h, &err) == TC_OK);
    in[0] = hb_ten(TC_FLOAT16, a, 1, 4);
    out[0] = hb_ten(TC_FLOAT16, o, 1, 4);
    out[1] = hb_ten(TC_FLOAT32, m, 0);
    CHECKF(run1(&h, in, 1, out, 2, &err) == TC_OK, "%s", err.msg);
    CHECK(o[0] == 0x4200 && o[1] == 0x4600);
    CHECKF(o[2] == 0x3c00, "o[2] = %04x", o[2]); /* 0.33325 * 3 = 0.99976 -> 1.0 */
    CHECK(o[3] == 0x7c00); /* 65504 * 3 overflows to inf */
    CHECK(isinf(m[0]) && m[0] > 0);
    hb_free(&h);
}

/* The backstop behind range inference (tc_bind_sizes, which the VM and
   tc_opencl.h both call): an IR whose reads and writes were "proven" in
   bounds, wrongly, with no check recorded, is an error for the sizes
   where an index it surely computes leaves its tensor (the same read
   under a ?: branch is left to the per-element checks: test_select_guard). */
static void test_bind_spans(void) {
    static hb h;
    tc_error err;
    float x[4] = {1, 2, 3, 4}, y[4];
    int64_t sx[64];
    tc_tensor in[1], out[1];
    int vN = hb_var(&h, "N"), X, Y, s, i;
    X = hb_tensor(&h, "x", TC_FLOAT32, TC_TENSOR_INPUT, 1, vN);
    Y = hb_tensor(&h, "y", TC_FLOAT32, TC_TENSOR_OUTPUT, 1, vN);
    s = hb_stmt(&h, Y, TC_REDUCE_ASSIGN, 0, "y(i) = x(i + 1)");
    hb_loop(&h, s, "i", hb_const(&h, 0), vN, 0);
    hb_read(&h, s, X, TC_FLOAT32, "i+1");
    CHECK(hb_finish(&h, &err) == TC_OK);
    in[0] = hb_ten(TC_FLOAT32, x, 1, 4);
    out[0] = hb_ten(TC_FLOAT32, y, 1, 4);
    for (i = 0; i < 4; i++) y[i] = 7;
    CHECK(tc_bind_sizes(&h.prog, 0, in, 1, sx, &err) == TC_ERR_BOUNDS);
    CHECKF(strstr(err.msg, "`y(i) = x(i + 1)` (line 1) reads x at indices 1..4 in dimension 0, "
                           "whose extent is 4") != NULL, "%s", err.msg);
    CHECK(run1(&h, in, 1, out, 1, &err) == TC_ERR_BOUNDS && y[3] == 7);
    hb_free(&h);
}

/* Two statements through a temporary; a run-time check on sizes. */
static void test_temp_and_checks(void) {
    static hb h;
    tc_error err;
    double x[6] = {1, 2, 3, 4, 5, 6}, y[5];
    tc_tensor in[1], out[1];
    int vN = hb_var(&h, "N"), X, T, Y, s, i, nm1;
    nm1 = hb_sx(&h, TC_SX_SUB, vN, hb_const(&h, 1), 0);
    X = hb_tensor(&h, "x", TC_FLOAT64, TC_TENSOR_INPUT, 1, vN);
    Y = hb_tensor(&h, "y", TC_FLOAT64, TC_TENSOR_OUTPUT, 1, nm1);
    T = hb_tensor(&h, "t", TC_FLOAT64, TC_TENSOR_TEMP, 1, vN);
    s = hb_stmt(&h, T, TC_REDUCE_PROD, 1, "t(i) *=! x(i) * 2");
    hb_loop(&h, s, "i", hb_const(&h, 0), vN, 0);
    hb_node(&h, s, TC_IR_MUL, TC_FLOAT64, 2, hb_read(&h, s, X, TC_FLOAT64, "i"), hb_cf(&h, s, TC_FLOAT64, 2.0), 0);
    s = hb_stmt(&h, Y, TC_REDUCE_ASSIGN, 0, "y(i) = t(i) + t(i+1)");
    hb_loop(&h, s, "i", hb_const(&h, 0), nm1, 0);
    hb_node(&h, s, TC_IR_ADD, TC_FLOAT64, 2, hb_read(&h, s, T, TC_FLOAT64, "i"), hb_read(&h, s, T, TC_FLOAT64, "i+1"), 0);
    hb_check(&h, TC_CHECK_LE, hb_const(&h, 3), vN, -1, "x needs at least 3 elements");
    CHECK(hb_finish(&h, &err) == TC_OK);
    in[0] = hb_ten(TC_FLOAT64, x, 1, 6);
    out[0] = hb_ten(TC_FLOAT64, y, 1, 5);
    CHECKF(run1(&h, in, 1, out, 1, &err) == TC_OK, "%s", err.msg);
    for (i = 0; i < 5; i++) CHECK(y[i] == 2 * x[i] + 2 * x[i + 1]);
    in[0] = hb_ten(TC_FLOAT64, x, 1, 2);
    out[0] = hb_ten(TC_FLOAT64, y, 1, 1);
    y[0] = 7;
    CHECK(run1(&h, in, 1, out, 1, &err) == TC_ERR_BOUNDS);
    CHECK(strstr(err.msg, "at least 3") != NULL);
    CHECK(y[0] == 7);
    in[0] = hb_ten(TC_FLOAT64, x, 1, 0); /* extent N - 1 = -1 */
    out[0].data = NULL;
    hb_free(&h);
}


/* ---- through the front end --------------------------------------------- */

static tc_program *src_compile(const char *src) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    if (tc_compile(&cd, &p, &err) != TC_OK) {
        fprintf(stderr, "compile failed: %s\n  %s\n", err.msg, src);
        return NULL;
    }
    return p;
}
static tc_status src_run(const tc_program *p, tc_tensor *in, int nin, tc_tensor *out, int nout,
                         tc_error *err) {
    tc_run_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.inputs = in;
    rd.n_inputs = nin;
    rd.outputs = out;
    rd.n_outputs = nout;
    return tc_run(p, &rd, err);
}

/* float16 bits to float (test-local: exact for every half). */
static double tv_half(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp((double)m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                        : ldexp((double)(m + 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* max over every dtype; float16 as storage. */
static void test_every_dtype(void) {
    static const tc_dtype types[] = {TC_BOOL, TC_INT8, TC_INT16, TC_INT32, TC_INT64, TC_UINT8,
                                     TC_UINT16, TC_UINT32, TC_UINT64, TC_FLOAT16, TC_FLOAT32,
                                     TC_FLOAT64};
    size_t k;
    for (k = 0; k < sizeof types / sizeof types[0]; k++) {
        tc_dtype t = types[k];
        char src[256];
        unsigned char a[8 * 300], b[8 * 300], c[8 * 300];
        size_t esz = tc_dtype_size(t);
        tc_tensor in[2], out[1];
        tc_error err;
        tc_program *p;
        int i, ok = 1;
        const char *name = tc_dtype_name(t) ? tc_dtype_name(t) : "?"; /* every listed type has one */
        th_current = name;
        snprintf(src, sizeof src, "def f(%s(N) a, %s(N) b) -> (c) { c(i) = max(a(i), b(i)) }", name, name);
        p = src_compile(src);
        CHECK(p != NULL);
        if (!p) continue;
        for (i = 0; i < (int)(300 * esz); i++) {
            a[i] = (unsigned char)(i * 37 + 11);
            b[i] = (unsigned char)(i * 91 + 5);
        }
        if (t == TC_BOOL)
            for (i = 0; i < 300; i++) { a[i] &= 1; b[i] &= 1; }
        if (t == TC_FLOAT16) /* finite halves only */
            for (i = 0; i < 300; i++) { a[2 * i + 1] &= 0x3b; b[2 * i + 1] &= 0x3b; }
        if (t == TC_FLOAT32 || t == TC_FLOAT64)
            for (i = 0; i < 300; i++) {
                if (t == TC_FLOAT32) { ((float *)a)[i] = (float)(i % 17) - 8.0f; ((float *)b)[i] = (float)(i % 5) - 2.5f; }
                else { ((double *)a)[i] = (double)(i % 17) - 8.0; ((double *)b)[i] = (double)(i % 5) - 2.5; }
            }
        in[0] = hb_ten(t, a, 1, 300);
        in[1] = hb_ten(t, b, 1, 300);
        out[0] = hb_ten(t, c, 1, 300);
        CHECKF(src_run(p, in, 2, out, 1, &err) == TC_OK, "%s", err.msg);
        for (i = 0; i < 300; i++) {
            double x = 0, y = 0, z = 0;
#define TV_GET(T) { T u, v, w; memcpy(&u, a + i * esz, esz); memcpy(&v, b + i * esz, esz); memcpy(&w, c + i * esz, esz); x = (double)u; y = (double)v; z = (double)w; }
            switch (t) {
            case TC_BOOL: case TC_UINT8: TV_GET(uint8_t) break;
            case TC_INT8: TV_GET(int8_t) break;
            case TC_INT16: TV_GET(int16_t) break;
            case TC_INT32: TV_GET(int32_t) break;
            case TC_INT64: TV_GET(int64_t) break;
            case TC_UINT16: TV_GET(uint16_t) break;
            case TC_UINT32: TV_GET(uint32_t) break;
            case TC_UINT64: TV_GET(uint64_t) break;
            case TC_FLOAT32: TV_GET(float) break;
            case TC_FLOAT64: TV_GET(double) break;
            case TC_FLOAT16: {
                uint16_t u, v, w;
                memcpy(&u, a + i * 2, 2); memcpy(&v, b + i * 2, 2); memcpy(&w, c + i * 2, 2);
                x = tv_half(u); y = tv_half(v); z = tv_half(w);
                break;
            }
            default: break;
            }
#undef TV_GET
            ok &= z == (x > y ? x : y);
        }
        CHECK(ok);
        tc_program_free(p);
    }
}

/* Every reduction, with `!` (identity first) and without (accumulating into
   the caller's buffer). */
static void test_reductions(void) {
    static const char *ops[] = {"+=", "*=", "min=", "max="};
    int o, bang;
    for (o = 0; o < 4; o++)
        for (bang = 0; bang < 2; bang++) {
            char src[200];
            float x[3 * 5], y[3];
            int32_t xi[3 * 5], yi[3];
            tc_tensor in[2], out[2];
            tc_error err;
            tc_program *p;
            int i, j;
            snprintf(src, sizeof src,
                     "def f(float(M,N) x, int32(M,N) xi) -> (y, yi) { y(i) %s%s x(i,j)\n yi(i) %s%s xi(i,j) }",
                     ops[o], bang ? "!" : "", ops[o], bang ? "!" : "");
            p = src_compile(src);
            CHECK(p != NULL);
            if (!p) continue;
            for (i = 0; i < 15; i++) { x[i] = (float)((i * 7) % 5) - 2.0f; xi[i] = (i * 7) % 5 - 2; }
            for (i = 0; i < 3; i++) { y[i] = 3.0f; yi[i] = 3; }
            in[0] = hb_ten(TC_FLOAT32, x, 2, 3, 5);
            in[1] = hb_ten(TC_INT32, xi, 2, 3, 5);
            out[0] = hb_ten(TC_FLOAT32, y, 1, 3);
            out[1] = hb_ten(TC_INT32, yi, 1, 3);
            CHECKF(src_run(p, in, 2, out, 2, &err) == TC_OK, "%s", err.msg);
            for (i = 0; i < 3; i++) {
                float r = bang ? (o == 0 ? 0.0f : o == 1 ? 1.0f : o == 2 ? INFINITY : -INFINITY) : 3.0f;
                int32_t ri = bang ? (o == 0 ? 0 : o == 1 ? 1 : o == 2 ? INT32_MAX : INT32_MIN) : 3;
                for (j = 0; j < 5; j++) {
                    float v = x[i * 5 + j];
                    int32_t vi = xi[i * 5 + j];
                    r = o == 0 ? r + v : o == 1 ? r * v : o == 2 ? (v < r ? v : r) : (v > r ? v : r);
                    ri = o == 0 ? ri + vi : o == 1 ? ri * vi : o == 2 ? (vi < ri ? vi : ri) : (vi > ri ? vi : ri);
                }
                CHECKF(y[i] == r, "%s%s row %d: %g vs %g", ops[o], bang ? "!" : "", i, (double)y[i], (double)r);
                CHECKF(yi[i] == ri, "%s%s row %d: %d vs %d", ops[o], bang ? "!" : "", i, yi[i], ri);
            }
            tc_program_free(p);
        }
}

/* softmax through temporaries; several outputs; a 0-rank input and output. */
static void test_softmax_scalars(void) {
    const char *src =
        "def sm(float(M,N) X, float alpha) -> (Y, tot) {\n"
        "  mx(i) max=! X(i,j)\n"
        "  e(i,j) = exp(X(i,j) - mx(i))\n"
        "  s(i) +=! e(i,j)\n"
        "  Y(i,j) = alpha * e(i,j) / s(i)\n"
        "  tot +=! Y(i,j)\n"
        "}";
    enum { M = 7, N = 600 };
    static float X[M * N], Y[M * N];
    float alpha = 2.0f, tot = 0;
    tc_tensor in[2], out[2];
    tc_error err;
    tc_program *p = src_compile(src);
    int i, j, ok = 1;
    CHECK(p != NULL);
    if (!p) return;
    for (i = 0; i < M * N; i++) X[i] = (float)((i * 13) % 29) * 0.25f - 3.0f;
    in[0] = hb_ten(TC_FLOAT32, X, 2, M, N);
    in[1] = hb_ten(TC_FLOAT32, &alpha, 0);
    out[0] = hb_ten(TC_FLOAT32, Y, 2, M, N);
    out[1] = hb_ten(TC_FLOAT32, &tot, 0);
    CHECKF(src_run(p, in, 2, out, 2, &err) == TC_OK, "%s", err.msg);
    for (i = 0; i < M; i++) {
        double mx = -1e30, s = 0;
        for (j = 0; j < N; j++) mx = X[i * N + j] > mx ? X[i * N + j] : mx;
        for (j = 0; j < N; j++) s += exp(X[i * N + j] - mx);
        for (j = 0; j < N; j++) ok &= fabs(Y[i * N + j] - 2.0 * exp(X[i * N + j] - mx) / s) < 1e-6;
    }
    CHECK(ok);
    CHECKF(fabs(tot - 2.0 * M) < 1e-4, "tot = %g", (double)tot);
    tc_program_free(p);
}

/* Gathers with int32 and int64 indices, and the out-of-range error. */
static void test_src_gather(void) {
    const char *srcs[2] = {"def emb(float(V,D) E, int32(N) I) -> (O) { O(i,j) = E(I(i),j) }",
                           "def emb(float(V,D) E, int64(N) I) -> (O) { O(i,j) = E(I(i),j) }"};
    int pass;
    for (pass = 0; pass < 2; pass++) {
        float E[10 * 4], O[5 * 4];
        int32_t i32[5] = {9, 0, 4, 4, 2};
        int64_t i64[5] = {9, 0, 4, 4, 2};
        tc_tensor in[2], out[1];
        tc_error err;
        tc_program *p = src_compile(srcs[pass]);
        int i, j, ok = 1;
        CHECK(p != NULL);
        if (!p) continue;
        for (i = 0; i < 40; i++) E[i] = (float)i;
        in[0] = hb_ten(TC_FLOAT32, E, 2, 10, 4);
        in[1] = hb_ten(pass ? TC_INT64 : TC_INT32, pass ? (void *)i64 : (void *)i32, 1, 5);
        out[0] = hb_ten(TC_FLOAT32, O, 2, 5, 4);
        CHECKF(src_run(p, in, 2, out, 1, &err) == TC_OK, "%s", err.msg);
        for (i = 0; i < 5; i++)
            for (j = 0; j < 4; j++) ok &= O[i * 4 + j] == E[i32[i] * 4 + j];
        CHECK(ok);
        i32[3] = 10;
        i64[3] = -3;
        CHECK(src_run(p, in, 2, out, 1, &err) == TC_ERR_BOUNDS);
        CHECK(strstr(err.msg, "E") != NULL);
        tc_program_free(p);
    }
}

/* `?:` guards a read that would be out of range; floor division by zero. */
static void test_src_guard_div(void) {
    const char *src =
        "def f(float(N) I, int32(N) x, int32(N) y) -> (O, q, r) {\n"
        "  O(i) = (i >= 2 && i < N + 2) ? I(i - 2) : -1.0 where i in 0:N+4\n"
        "  q(i) = x(i) / y(i)\n"
        "  r(i) = x(i) % y(i)\n"
        "}";
    float I[6] = {1, 2, 3, 4, 5, 6}, O[10];
    int32_t x[6] = {7, -7, 7, -7, 9, -9}, y[6] = {2, 2, -2, -2, 0, 0}, q[6], r[6];
    int32_t eq[6] = {3, -4, -4, 3, 0, 0}, er[6] = {1, 1, -1, -1, 0, 0};
    tc_tensor in[3], out[3];
    tc_error err;
    tc_program *p = src_compile(src);
    int i;
    CHECK(p != NULL);
    if (!p) return;
    in[0] = hb_ten(TC_FLOAT32, I, 1, 6);
    in[1] = hb_ten(TC_INT32, x, 1, 6);
    in[2] = hb_ten(TC_INT32, y, 1, 6);
    out[0] = hb_ten(TC_FLOAT32, O, 1, 10);
    out[1] = hb_ten(TC_INT32, q, 1, 6);
    out[2] = hb_ten(TC_INT32, r, 1, 6);
    CHECKF(src_run(p, in, 3, out, 3, &err) == TC_OK, "%s", err.msg);
    for (i = 0; i < 10; i++) CHECK(O[i] == (i >= 2 && i < 8 ? I[i - 2] : -1.0f));
    for (i = 0; i < 6; i++) CHECK(q[i] == eq[i] && r[i] == er[i]);
    tc_program_free(p);
}

/* Preconditions, size-variable conflicts and negative extents: errors,
   and the caller's outputs stay untouched. */
static void test_src_errors(void) {
    tc_program *p = src_compile("def f(float(N) B, float(L) C, float(M) D) -> (A) { A(i,j) = B(i) * C(i + j) * D(j) }");
    tc_program *q = src_compile("def conv(float(N) x, float(K) w) -> (y) { y(i) +=! x(i + k) * w(k) }");
    tc_program *mm = src_compile("def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }");
    float b[4] = {1, 2, 3, 4}, c[8] = {0}, d[3] = {1, 1, 1}, a[12], y[8];
    tc_tensor in[3], out[1];
    tc_error err;
    int i;
    CHECK(p && q && mm);
    if (!p || !q || !mm) return;
    for (i = 0; i < 12; i++) a[i] = 99.0f;
    in[0] = hb_ten(TC_FLOAT32, b, 1, 4);
    in[1] = hb_ten(TC_FLOAT32, c, 1, 6); /* needs 4 + 3 - 1 = 6 */
    in[2] = hb_ten(TC_FLOAT32, d, 1, 3);
    out[0] = hb_ten(TC_FLOAT32, a, 2, 4, 3);
    CHECKF(src_run(p, in, 3, out, 1, &err) == TC_OK, "%s", err.msg);
    in[1] = hb_ten(TC_FLOAT32, c, 1, 5);
    for (i = 0; i < 12; i++) a[i] = 99.0f;
    CHECK(src_run(p, in, 3, out, 1, &err) == TC_ERR_BOUNDS);
    CHECK(strstr(err.msg, "C") != NULL);
    CHECK(a[0] == 99.0f && a[11] == 99.0f);
    /* negative extent: the kernel is longer than the input */
    in[0] = hb_ten(TC_FLOAT32, b, 1, 2);
    in[1] = hb_ten(TC_FLOAT32, c, 1, 5);
    out[0] = hb_ten(TC_FLOAT32, NULL, 0);
    CHECK(src_run(q, in, 2, out, 1, &err) == TC_ERR_SHAPE);
    CHECK(strstr(err.msg, "y") && strstr(err.msg, "-2"));
    CHECK(out[0].data == NULL);
    /* size variable conflict: K is 3 in A and 2 in B */
    in[0] = hb_ten(TC_FLOAT32, c, 2, 2, 3);
    in[1] = hb_ten(TC_FLOAT32, c, 2, 2, 4);
    y[0] = 5.0f;
    out[0] = hb_ten(TC_FLOAT32, y, 2, 2, 4);
    CHECK(src_run(mm, in, 2, out, 1, &err) == TC_ERR_SHAPE);
    CHECK(strstr(err.msg, "A") && strstr(err.msg, "B") && strstr(err.msg, "K"));
    CHECK(y[0] == 5.0f);
    tc_program_free(p);
    tc_program_free(q);
    tc_program_free(mm);
}

/* Plans: repeated runs with caller outputs; strided inputs; disassembly. */
static void test_plan_strides_disasm(void) {
    tc_program *p = src_compile("def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }");
    float at[3 * 2] = {1, 4, 2, 5, 3, 6}; /* A = [[1,2,3],[4,5,6]] stored transposed */
    float b[3 * 2] = {1, 0, 0, 1, 1, 1}, c[4];
    int64_t ast[2] = {1, 2}, again[2] = {1, 2};
    tc_tensor in[2], out[1];
    tc_run_desc rd;
    tc_plan *plan = NULL;
    tc_error err;
    char buf[4096];
    int r;
    CHECK(p != NULL);
    if (!p) return;
    in[0] = hb_ten(TC_FLOAT32, at, 2, 2, 3);
    in[0].strides = ast;
    in[1] = hb_ten(TC_FLOAT32, b, 2, 3, 2);
    out[0] = hb_ten(TC_FLOAT32, c, 2, 2, 2);
    memset(&rd, 0, sizeof rd);
    rd.inputs = in;
    rd.n_inputs = 2;
    rd.outputs = out;
    rd.n_outputs = 1;
    CHECKF(tc_plan_create(p, &rd, &plan, &err) == TC_OK, "%s", err.msg);
    for (r = 0; r < 3; r++) {
        memset(c, 0, sizeof c);
        CHECKF(tc_plan_run(plan, &rd, &err) == TC_OK, "%s", err.msg);
        CHECK(c[0] == 4 && c[1] == 5 && c[2] == 10 && c[3] == 11);
    }
    /* the plan keeps the strides' values, not the caller's array */
    {
        in[0].strides = again;
        ast[0] = 3, ast[1] = 1; /* the array the plan was made with, changed */
        memset(c, 0, sizeof c);
        CHECKF(tc_plan_run(plan, &rd, &err) == TC_OK, "%s", err.msg);
        CHECK(c[0] == 4 && c[1] == 5 && c[2] == 10 && c[3] == 11);
        in[0].strides = ast; /* now other strides than planned */
        CHECK(tc_plan_run(plan, &rd, &err) == TC_ERR_SHAPE);
        in[0].strides = NULL; /* row-major: other strides too */
        CHECK(tc_plan_run(plan, &rd, &err) == TC_ERR_SHAPE);
        in[0].strides = again;
    }
    in[1].shape[0] = 4;
    CHECK(tc_plan_run(plan, &rd, &err) == TC_ERR_SHAPE);
    tc_plan_free(plan);
    CHECK(tc_disasm(p, 0, buf, sizeof buf) > 0 && strstr(buf, "LOAD.float32") && strstr(buf, "MUL"));
    CHECK(tc_disasm(p, 0, NULL, 0) == (int)strlen(buf));
    tc_program_free(p);
}

/* Occurrences of `what` in s. */
static int count_in(const char *s, const char *what) {
    int n = 0;
    for (s = strstr(s, what); s; s = strstr(s + 1, what)) n++;
    return n;
}

/* The same expression twice is computed once (tc__vm_mark_same): loads of
   the same element, the same arithmetic; not where a constant, a dtype or
   an index differs. */
static void test_same_expression_once(void) {
    static const struct {
        const char *src;
        int loads, subs;
    } cases[] = {
        {"def a(float(N) Y, float(N) T) -> (l) { l +=! (Y(i) - T(i)) * (Y(i) - T(i)) }", 2, 1},
        {"def b(float(N) Y, float(N) T) -> (l) { l +=! (Y(i) - T(i)) * (T(i) - Y(i)) }", 2, 2},
        {"def c(float(N) Y) -> (l) { l(i) = (Y(i) - 2.0) * (Y(i) - 3.0) }", 1, 2},
        {"def d(float(N) Y) -> (l) { l(i) = (Y(i) - 0.0) * (Y(i) - -0.0) }", 1, 2},
        {"def e(float(N) Y) -> (l) { l(i) = (Y(i) - Y(i+1)) * (Y(i) - Y(i+1)) where i in 0:N-1 }", 2, 1},
        {"def f(float(N) Y, int32(N) K) -> (l) { l(i) = (Y(K(i)) - 1.0) * (Y(K(i)) - 1.0) }", 2, 1},
    };
    char buf[4096];
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tc_program *p = src_compile(cases[k].src);
        CHECK(p != NULL);
        if (!p) continue;
        CHECKF(tc_disasm(p, 0, buf, sizeof buf) > 0 && count_in(buf, "  LOAD") + count_in(buf, "  GLOAD") == cases[k].loads &&
                   count_in(buf, "  SUB") == cases[k].subs,
               "%s:\n%s", cases[k].src, buf);
        tc_program_free(p);
    }
}

/* The contraction microkernel: transposed operands, ragged tiles, float64,
   accumulation without `!`, several reduction loops, empty reductions.
   Small integers keep every result exact (fused multiply-add or not). */
static void fast_fill(float *p, int n, int seed) {
    int i;
    for (i = 0; i < n; i++) p[i] = (float)(((i + seed) * 7919) % 9) - 4.0f;
}
static void test_contractions(void) {
    static const char *srcs[] = {
        "def f(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
        "def f(float(M,K) A, float(N,K) B) -> (C) { C(i,j) +=! A(i,k) * B(j,k) }",
        "def f(float(K,M) A, float(K,N) B) -> (C) { C(i,j) +=! A(k,i) * B(k,j) }",
        "def f(float(M,K) A, float(K,N) B) -> (C) { C(i,j) += A(i,k) * B(k,j) }",
        "def f(float(M,K) A, float(K,N) B) -> (C) { C(j,i) +=! A(i,k) * B(k,j) }"};
    static float A[67 * 131], B[131 * 70], C[70 * 67], R[70 * 67];
    int v, M = 67, K = 131, N = 70;
    for (v = 0; v < 5; v++) {
        tc_program *p = src_compile(srcs[v]);
        tc_tensor in[2], out[1];
        tc_error err;
        int i, j, k, ok = 1;
        CHECK(p != NULL);
        if (!p) continue;
        fast_fill(A, M * K, v);
        fast_fill(B, K * N, 3 * v + 1);
        for (i = 0; i < M * N; i++) C[i] = R[i] = (float)(i % 5);
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) {
                float acc = 0.0f;
                for (k = 0; k < K; k++) {
                    float a = v == 2 ? A[k * M + i] : A[i * K + k];
                    float b = v == 1 ? B[j * K + k] : B[k * N + j];
                    acc += a * b;
                }
                if (v == 3) R[i * N + j] += acc;
                else if (v == 4) R[j * M + i] = acc;
                else R[i * N + j] = acc;
            }
        in[0] = v == 2 ? hb_ten(TC_FLOAT32, A, 2, K, M) : hb_ten(TC_FLOAT32, A, 2, M, K);
        in[1] = v == 1 ? hb_ten(TC_FLOAT32, B, 2, N, K) : hb_ten(TC_FLOAT32, B, 2, K, N);
        out[0] = v == 4 ? hb_ten(TC_FLOAT32, C, 2, N, M) : hb_ten(TC_FLOAT32, C, 2, M, N);
        CHECKF(src_run(p, in, 2, out, 1, &err) == TC_OK, "%s", err.msg);
        for (i = 0; i < M * N; i++) ok &= C[i] == R[i];
        CHECKF(ok, "variant %d", v);
        tc_program_free(p);
    }
}

static void test_conv_f64_empty(void) {
    tc_program *p = src_compile("def conv(double(N,C,H,W) I, double(O,C,KH,KW) W1) -> (Out) {\n"
                                " Out(n,o,h,w) +=! I(n,c,h+kh,w+kw) * W1(o,c,kh,kw)\n}");
    tc_program *q = src_compile("def mm(float(M,K) A, float(K,N) B) -> (C, D) {\n"
                                " C(i,j) +=! A(i,k) * B(k,j)\n D(i,j) += A(i,k) * B(k,j)\n}");
    static double I[2 * 3 * 9 * 70], Wt[5 * 3 * 3 * 2], O[2 * 5 * 7 * 69];
    float a[1], b[1], c[6], d[6];
    tc_tensor in[2], out[2];
    tc_error err;
    int n, o, h, w, c_, kh, kw, i, ok = 1;
    CHECK(p && q);
    if (!p || !q) return;
    for (i = 0; i < 2 * 3 * 9 * 70; i++) I[i] = (double)((i * 31) % 7) - 3.0;
    for (i = 0; i < 5 * 3 * 3 * 2; i++) Wt[i] = (double)((i * 17) % 5) - 2.0;
    in[0] = hb_ten(TC_FLOAT64, I, 4, 2, 3, 9, 70);
    in[1] = hb_ten(TC_FLOAT64, Wt, 4, 5, 3, 3, 2);
    out[0] = hb_ten(TC_FLOAT64, O, 4, 2, 5, 7, 69);
    CHECKF(src_run(p, in, 2, out, 1, &err) == TC_OK, "%s", err.msg);
    for (n = 0; n < 2; n++) for (o = 0; o < 5; o++) for (h = 0; h < 7; h++) for (w = 0; w < 69; w++) {
        double acc = 0;
        for (c_ = 0; c_ < 3; c_++) for (kh = 0; kh < 3; kh++) for (kw = 0; kw < 2; kw++)
            acc += I[((n * 3 + c_) * 9 + h + kh) * 70 + w + kw] * Wt[((o * 3 + c_) * 3 + kh) * 2 + kw];
        ok &= O[((n * 5 + o) * 7 + h) * 69 + w] == acc;
    }
    CHECK(ok);
    /* K = 0: `+=!` gives zeros, `+=` leaves the caller's values */
    for (i = 0; i < 6; i++) { c[i] = 5.0f; d[i] = 7.0f; }
    in[0] = hb_ten(TC_FLOAT32, a, 2, 2, 0);
    in[1] = hb_ten(TC_FLOAT32, b, 2, 0, 3);
    out[0] = hb_ten(TC_FLOAT32, c, 2, 2, 3);
    out[1] = hb_ten(TC_FLOAT32, d, 2, 2, 3);
    CHECKF(src_run(q, in, 2, out, 2, &err) == TC_OK, "%s", err.msg);
    for (i = 0; i < 6; i++) CHECK(c[i] == 0.0f && d[i] == 7.0f);
    tc_program_free(p);
    tc_program_free(q);
}

/* Window reductions: 2x2 max/min/sum pooling on ragged widths (the
   overlapping last group and rows shorter than 16), a stride-3 window, an
   int32 pool, and NaN inputs ignored by max. */
static void test_pooling(void) {
    static const char *ops[] = {"max=!", "min=!", "+=!"};
    static const int widths[] = {74, 20, 12};
    int o, wi;
    for (o = 0; o < 3; o++)
        for (wi = 0; wi < 3; wi++) {
            char src[256];
            int H = 6, W = widths[wi], OH = H / 2, OW = W / 2, h, w, kh, kw, i, ok = 1;
            static float I[2 * 6 * 74], O[2 * 3 * 37];
            tc_tensor in[1], out[1];
            tc_error err;
            tc_program *p;
            snprintf(src, sizeof src,
                     "def pool(float(C,H,W) I) -> (O) { O(c,h,w) %s I(c,2*h+kh,2*w+kw) where kh in 0:2, "
                     "kw in 0:2, h in 0:H/2, w in 0:W/2 }", ops[o]);
            p = src_compile(src);
            CHECK(p != NULL);
            if (!p) continue;
            for (i = 0; i < 2 * H * W; i++) I[i] = (float)((i * 37) % 23) - 11.0f;
            if (o == 0) I[5] = NAN;
            in[0] = hb_ten(TC_FLOAT32, I, 3, 2, H, W);
            out[0] = hb_ten(TC_FLOAT32, O, 3, 2, OH, OW);
            CHECKF(src_run(p, in, 1, out, 1, &err) == TC_OK, "%s", err.msg);
            for (i = 0; i < 2; i++) for (h = 0; h < OH; h++) for (w = 0; w < OW; w++) {
                float r = o == 0 ? -INFINITY : o == 1 ? INFINITY : 0.0f;
                for (kh = 0; kh < 2; kh++) for (kw = 0; kw < 2; kw++) {
                    float x = I[(i * H + 2 * h + kh) * W + 2 * w + kw];
                    if (x != x) continue;
                    r = o == 0 ? (x > r ? x : r) : o == 1 ? (x < r ? x : r) : r + x;
                }
                ok &= O[(i * OH + h) * OW + w] == r;
            }
            CHECKF(ok, "%s width %d", ops[o], W);
            tc_program_free(p);
        }
    {
        tc_program *p = src_compile("def pool3(int32(N) x) -> (y) { y(i) max=! x(3*i+k) where k in 0:3, i in 0:N/3 }");
        int32_t x[100], y[33];
        tc_tensor in[1], out[1];
        tc_error err;
        int i, ok = 1;
        CHECK(p != NULL);
        if (!p) return;
        for (i = 0; i < 100; i++) x[i] = (i * 53) % 41 - 20;
        in[0] = hb_ten(TC_INT32, x, 1, 100);
        out[0] = hb_ten(TC_INT32, y, 1, 33);
        CHECKF(src_run(p, in, 1, out, 1, &err) == TC_OK, "%s", err.msg);
        for (i = 0; i < 33; i++) {
            int32_t m = x[3 * i] > x[3 * i + 1] ? x[3 * i] : x[3 * i + 1];
            ok &= y[i] == (x[3 * i + 2] > m ? x[3 * i + 2] : m);
        }
        CHECK(ok);
        tc_program_free(p);
    }
}


/* A gather failing late (second statement, third block, under a `?:`)
   leaves every caller output untouched: gathers whose indices come from
   inputs are checked before anything is written. */
static void test_gather_precheck(void) {
    tc_program *p = src_compile(
        "def g(float(N) X, float(V) E, int32(N) I) -> (O, G) {\n"
        "  O(i) = X(i) * 2\n"
        "  G(i) = I(i) >= 0 ? E(I(i)) : -1.0\n"
        "}");
    static float X[700], E[10], O[700], G[700];
    static int32_t I[700];
    tc_tensor in[3], out[2];
    tc_error err;
    tc_pool *pool = NULL;
    int i, pass, ok;
    CHECK(p != NULL);
    if (!p) return;
    CHECK(tc_pool_create(2, NULL, &pool, &err) == TC_OK);
    for (i = 0; i < 700; i++) { X[i] = (float)i; I[i] = i % 10 - (i % 7 == 0); }
    for (i = 0; i < 10; i++) E[i] = (float)(100 + i);
    in[0] = hb_ten(TC_FLOAT32, X, 1, 700);
    in[1] = hb_ten(TC_FLOAT32, E, 1, 10);
    in[2] = hb_ten(TC_INT32, I, 1, 700);
    out[0] = hb_ten(TC_FLOAT32, O, 1, 700);
    out[1] = hb_ten(TC_FLOAT32, G, 1, 700);
    CHECKF(src_run(p, in, 3, out, 2, &err) == TC_OK, "%s", err.msg);
    ok = 1;
    for (i = 0; i < 700; i++) ok &= O[i] == 2.0f * X[i] && G[i] == (I[i] >= 0 ? E[I[i]] : -1.0f);
    CHECK(ok);
    for (pass = 0; pass < 2; pass++) {
        tc_run_desc rd;
        memset(&rd, 0, sizeof rd);
        rd.inputs = in, rd.n_inputs = 3, rd.outputs = out, rd.n_outputs = 2;
        rd.pool = pass ? pool : NULL;
        I[600] = 10; /* out of range, in the third block of the second statement */
        for (i = 0; i < 700; i++) O[i] = G[i] = 7.0f;
        CHECK(tc_run(p, &rd, &err) == TC_ERR_BOUNDS && strstr(err.msg, "E"));
        ok = 1;
        for (i = 0; i < 700; i++) ok &= O[i] == 7.0f && G[i] == 7.0f;
        CHECKF(ok, "outputs written before the failing gather (pass %d)", pass);
        I[600] = -5; /* guarded by ?: : fine */
        CHECKF(tc_run(p, &rd, &err) == TC_OK, "%s", err.msg);
        CHECK(G[600] == -1.0f && O[600] == 1200.0f);
        I[600] = 3;
    }
    tc_pool_free(pool);
    tc_program_free(p);
}

/* The chunk split (tc__vm_chunk_items): every item in exactly one chunk,
   in order; even chunks differ by at most one item; shrinking chunks (2
   a thread) give the first half 3/4 of the items, rounded down, and no
   chunk of the second half is bigger than one of the first. */
static void test_chunk_items(void) {
    tc__vm_splan sp;
    int64_t n, c, first, last, size, lo[2], hi[2], first_half;
    int threads, shrink, h, bad = 0;
    memset(&sp, 0, sizeof sp);
    for (shrink = 0; shrink <= 1; shrink++)
        for (threads = 2; threads <= 9; threads++)
            for (n = 2 * threads + shrink; n <= 400; n++) {
                sp.n_items = n;
                sp.n_chunks = 2 * threads;
                sp.shrink = shrink;
                lo[0] = lo[1] = n;
                hi[0] = hi[1] = first_half = last = 0;
                for (c = 0; c < sp.n_chunks; c++) { /* per half: smallest, biggest */
                    int64_t next = last;
                    tc__vm_chunk_items(&sp, c, &first, &last);
                    size = last - first;
                    bad += first != next || size < 0 || last > n;
                    h = c >= threads;
                    if (!h) first_half += size;
                    if (size < lo[h]) lo[h] = size;
                    if (size > hi[h]) hi[h] = size;
                }
                bad += last != n;
                if (shrink) bad += first_half != n * 3 / 4 || hi[1] > lo[0];
                else bad += (hi[0] > hi[1] ? hi[0] : hi[1]) - (lo[0] < lo[1] ? lo[0] : lo[1]) > 1;
            }
    CHECKF(bad == 0, "%d bad chunk splits", bad);
}

/* Chunk claims (tc__vm_claim): with threads taking turns in any order,
   every chunk is claimed once; a thread takes its own range front to back
   before it takes another's from the back; one thread alone goes in order. */
static void test_chunk_claims(void) {
    uint64_t words[8 * TC__VM_CLAIM_STEP];
    tc_plan P;
    tc__vm_job J;
    unsigned seed = 12345u;
    int ranges, bad = 0;
    memset(&P, 0, sizeof P);
    memset(&J, 0, sizeof J);
    P.claim = words;
    J.P = &P;
    for (ranges = 1; ranges <= 8; ranges++) {
        int64_t n;
        for (n = 0; n <= 70; n++) {
            int seen[70] = {0}, t, count = 0;
            int64_t front[8], back[8], c; /* each range's unclaimed chunks */
            J.n_chunks = n;
            tc__vm_claim_setup(&J, ranges);
            bad += ranges == 1 ? !J.alone || J.ranges != 0 : J.alone || J.ranges != ranges; /* one: in order, no atomics */
            for (t = 0; t < ranges; t++) front[t] = n * t / ranges, back[t] = n * (t + 1) / ranges;
            while (count < n) {
                int v;
                seed = seed * 1103515245u + 12345u;
                t = (int)(seed >> 16) % ranges;
                c = tc__vm_claim(&J, t);
                if (c < 0 || c >= n || seen[c]++) {
                    bad++;
                    break;
                }
                count++;
                for (v = 0; v < ranges && !(c >= n * v / ranges && c < n * (v + 1) / ranges); v++) {}
                if (front[t] < back[t]) bad += v != t || c != front[t]++; /* its own first */
                else bad += v == t || c != --back[v];                     /* then another's back */
                if (ranges == 1) bad += c != count - 1;
            }
            for (t = 0; t < ranges; t++) bad += tc__vm_claim(&J, t) != n;
        }
    }
    CHECKF(bad == 0, "%d bad claims", bad);
}

int main(void) {
    RUN(test_chunk_items);
    RUN(test_chunk_claims);
    RUN(test_add);
    RUN(test_matmul);
    RUN(test_rowsum);
    RUN(test_gather);
    RUN(test_select_guard);
    RUN(test_int_ops);
    RUN(test_f16_and_identity);
    RUN(test_bind_spans);
    RUN(test_temp_and_checks);
    RUN(test_every_dtype);
    RUN(test_reductions);
    RUN(test_softmax_scalars);
    RUN(test_src_gather);
    RUN(test_src_guard_div);
    RUN(test_src_errors);
    RUN(test_plan_strides_disasm);
    RUN(test_same_expression_once);
    RUN(test_contractions);
    RUN(test_conv_f64_empty);
    RUN(test_pooling);
    RUN(test_gather_precheck);
    return th_report();
}
