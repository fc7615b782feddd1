/* A gather whose indices the def computes itself is checked as the run
   goes; a failure must still leave the caller's outputs untouched, and a
   passing run must give the same results as an unstaged one. */
/* the implementation: tests/tc_impl.c, linked in */
#include "tc.h"
#include "harness.h"

static const char *src =
    "def g(float(N) W, int32(M) I) -> (idx, O) {\n"
    "    idx(i) = I(i) * 2\n"
    "    O(i) = W(idx(i))\n"
    "}\n";

static tc_status run(tc_program *p, int32_t *I, int32_t *idx, float *O, tc_error *err) {
    static float W[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    tc_tensor in[2], out[2];
    tc_run_desc rd;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    memset(&rd, 0, sizeof rd);
    in[0].dtype = TC_FLOAT32; in[0].rank = 1; in[0].shape[0] = 8; in[0].data = W;
    in[1].dtype = TC_INT32; in[1].rank = 1; in[1].shape[0] = 3; in[1].data = I;
    out[0].dtype = TC_INT32; out[0].rank = 1; out[0].shape[0] = 3; out[0].data = idx;
    out[1].dtype = TC_FLOAT32; out[1].rank = 1; out[1].shape[0] = 3; out[1].data = O;
    rd.inputs = in; rd.n_inputs = 2; rd.outputs = out; rd.n_outputs = 2;
    return tc_run(p, &rd, err);
}

static void test_late_gather(void) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error err;
    int32_t bad[3] = {1, 2, 9}, good[3] = {3, 0, 1}, idx[3] = {-5, -5, -5};
    float O[3] = {-1, -1, -1};
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    CHECK(tc_compile(&cd, &p, &err) == TC_OK);
    if (!p) return;
    /* idx(2) = 18 is outside W: the error names the access, nothing is written */
    CHECK(run(p, bad, idx, O, &err) == TC_ERR_BOUNDS);
    CHECKF(strstr(err.msg, "W") != NULL, "message: %s", err.msg);
    CHECK(idx[0] == -5 && idx[1] == -5 && idx[2] == -5);
    CHECK(O[0] == -1 && O[1] == -1 && O[2] == -1);
    /* in range: both outputs land in the caller's buffers */
    CHECK(run(p, good, idx, O, &err) == TC_OK);
    CHECK(idx[0] == 6 && idx[1] == 0 && idx[2] == 2);
    CHECK(O[0] == 6 && O[1] == 0 && O[2] == 2);
    tc_program_free(p);
}

int main(void) {
    RUN(test_late_gather);
    return th_report();
}
