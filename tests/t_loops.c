/* tc_ir_format_loops on hand-built IR (independent of the front end): the
   header, the checks, the `!` fill, loop bounds in TC terms, affine and
   gather reads, select, casts, builtins, min= bodies, float16 stores,
   snprintf-style truncation; then on compiled sources once the front end
   is in (skipped cleanly while tc_compile reports TC_ERR_UNSUPPORTED). */
/* the implementation: tests/tc_impl.c, linked in */
#include "tc.h"
#include "harness.h"

static char out[8192];

static int has(const char *needle) {
    if (strstr(out, needle)) return 1;
    fprintf(stderr, "  missing: %s\n", needle);
    return 0;
}

/* def s(float(H, W) A, int32(K) idx) -> (O)
     O(i, j) +=! tanh(A(i - 1, 2*j + 1) * 2.5 + (i > 0 ? A(idx(k), j) : 2.5))
   with i in [1, H + 1), j in [0, W), k in [0, K). */
static tc_sx sx[8];
static const char *sizevars[3] = {"H", "W", "K"};
static tc_ir_tensor tensors[3];
static int64_t c_i[3] = {1, 0, 0}, c_2j[3] = {0, 2, 0}, c_j[3] = {0, 1, 0}, c_k[3] = {0, 0, 1};
static tc_ir_index ix_a0[2], ix_idx[1], ix_a1[2];
static tc_ir_node nodes[11];
static tc_ir_loop loops[3];
static tc_ir_stmt stmt;
static tc_ir_check checks[1];
static tc_ir_def def;

static void set_sx(int i, tc_sx_op op, int a, int b, int64_t v) {
    sx[i].op = op;
    sx[i].a = a;
    sx[i].b = b;
    sx[i].value = v;
}

static void set_node(int i, tc_ir_op op, tc_dtype dt, int nargs, int a0, int a1, int a2) {
    memset(&nodes[i], 0, sizeof nodes[i]);
    nodes[i].op = op;
    nodes[i].dtype = dt;
    nodes[i].nargs = nargs;
    nodes[i].args[0] = a0;
    nodes[i].args[1] = a1;
    nodes[i].args[2] = a2;
}

static void set_affine(tc_ir_index *ix, const int64_t *coef, int offset) {
    ix->affine = 1;
    ix->coef = coef;
    ix->offset = offset;
    ix->node = -1;
}

static void build_def(void) {
    int r;
    set_sx(0, TC_SX_CONST, 0, 0, 0);
    set_sx(1, TC_SX_VAR, 0, 0, 0);
    set_sx(2, TC_SX_VAR, 0, 0, 1);
    set_sx(3, TC_SX_CONST, 0, 0, 1);
    set_sx(4, TC_SX_ADD, 1, 3, 0); /* H + 1 */
    set_sx(5, TC_SX_CONST, 0, 0, -1);
    set_sx(6, TC_SX_VAR, 0, 0, 2); /* K */
    set_sx(7, TC_SX_MUL, 2, 4, 0); /* W * (H + 1) */
    memset(tensors, 0, sizeof tensors);
    tensors[0].name = "A", tensors[0].dtype = TC_FLOAT32, tensors[0].rank = 2;
    tensors[0].extent[0] = 1, tensors[0].extent[1] = 2;
    tensors[1].name = "idx", tensors[1].dtype = TC_INT32, tensors[1].rank = 1;
    tensors[1].extent[0] = 6;
    tensors[2].name = "O", tensors[2].dtype = TC_FLOAT16, tensors[2].rank = 2;
    tensors[2].kind = TC_TENSOR_OUTPUT;
    tensors[2].extent[0] = 4, tensors[2].extent[1] = 2;
    tensors[2].min[0] = 3, tensors[2].min[1] = 0;
    for (r = 0; r < 2; r++) tensors[0].min[r] = tensors[1].min[r] = 0;
    set_affine(&ix_a0[0], c_i, 5);
    set_affine(&ix_a0[1], c_2j, 3);
    set_affine(&ix_idx[0], c_k, 0);
    ix_a1[0].affine = 0, ix_a1[0].node = 3;
    set_affine(&ix_a1[1], c_j, 0);
    set_node(0, TC_IR_READ, TC_FLOAT32, 0, 0, 0, 0), nodes[0].tensor = 0, nodes[0].index = ix_a0;
    set_node(1, TC_IR_CONST, TC_FLOAT32, 0, 0, 0, 0), nodes[1].fval = 2.5;
    set_node(2, TC_IR_MUL, TC_FLOAT32, 2, 0, 1, 0);
    set_node(3, TC_IR_READ, TC_INT32, 0, 0, 0, 0), nodes[3].tensor = 1, nodes[3].index = ix_idx;
    set_node(4, TC_IR_READ, TC_FLOAT32, 0, 0, 0, 0), nodes[4].tensor = 0, nodes[4].index = ix_a1;
    set_node(5, TC_IR_INDEX, TC_INT32, 0, 0, 0, 0), nodes[5].loop = 0;
    set_node(6, TC_IR_CONST, TC_INT32, 0, 0, 0, 0), nodes[6].ival = 0;
    set_node(7, TC_IR_GT, TC_BOOL, 2, 5, 6, 0);
    set_node(8, TC_IR_SELECT, TC_FLOAT32, 3, 7, 4, 1);
    set_node(9, TC_IR_ADD, TC_FLOAT32, 2, 2, 8, 0);
    set_node(10, TC_IR_CALL, TC_FLOAT32, 1, 9, 0, 0), nodes[10].builtin = TC_BUILTIN_TANH;
    loops[0].name = "i", loops[0].lo = 3, loops[0].hi = 4, loops[0].reduction = 0;
    loops[1].name = "j", loops[1].lo = 0, loops[1].hi = 2, loops[1].reduction = 0;
    loops[2].name = "k", loops[2].lo = 0, loops[2].hi = 6, loops[2].reduction = 1;
    stmt.tensor = 2, stmt.reduce = TC_REDUCE_SUM, stmt.init = 1, stmt.n_loops = 3;
    stmt.loops = loops, stmt.n_nodes = 11, stmt.nodes = nodes, stmt.value = 10, stmt.line = 2;
    stmt.text = "O(i, j) +=! tanh(...)";
    checks[0].kind = TC_CHECK_LE, checks[0].a = 3, checks[0].b = 7, checks[0].stmt = 0;
    checks[0].what = "read A(...) at line 2";
    def.name = "s", def.n_inputs = 2, def.n_outputs = 1, def.n_tensors = 3, def.tensors = tensors;
    def.n_sizevars = 3, def.sizevars = sizevars, def.n_sx = 8, def.sx = sx;
    def.n_stmts = 1, def.stmts = &stmt, def.n_checks = 1, def.checks = checks, def.line = 1;
}

static void test_hand_built(void) {
    int n;
    build_def();
    n = tc_ir_format_loops(&def, out, sizeof out);
    CHECK(n > 0 && (size_t)n == strlen(out));
    CHECK(has("// def s (line 1)\n"));
    CHECK(has("// in  float32 A[H][W]\n"));
    CHECK(has("// in  int32 idx[K]\n"));
    CHECK(has("// out float16 O[H + 1][W]   (lowest index written: [1][0])\n"));
    CHECK(has("check(1 <= W * (H + 1));  // if statement 1 runs; read A(...) at line 2\n"));
    CHECK(has("// statement 1, line 2: O(i, j) +=! tanh(...)\n"));
    CHECK(has("fill(O, 0);"));
    CHECK(has("for (int i = 1; i < H + 1; i++)\n"));
    CHECK(has("    for (int j = 0; j < W; j++)\n"));
    CHECK(has("        for (int k = 0; k < K; k++)  // reduction\n"));
    CHECK(has("            O[i][j] += tanh(A[i - 1][2*j + 1] * 2.5 + ((i > 0) ? A[idx[k]][j] : 2.5));"
              "  // rounded to float16\n"));
}

static void test_min_body_and_consts(void) {
    char small[16];
    int n;
    build_def();
    stmt.reduce = TC_REDUCE_MIN;
    tensors[2].dtype = TC_INT32;
    set_node(1, TC_IR_CONST, TC_FLOAT32, 0, 0, 0, 0), nodes[1].fval = -3.0;
    set_node(10, TC_IR_CAST, TC_INT32, 1, 9, 0, 0);
    set_node(2, TC_IR_NEG, TC_FLOAT32, 1, 1, 0, 0);
    n = tc_ir_format_loops(&def, out, sizeof out);
    CHECK(n > 0);
    CHECK(has("fill(O, INT32_MAX);"));
    CHECK(has("O[i][j] = min(O[i][j], int32(-(-3.0) + ((i > 0) ? A[idx[k]][j] : -3.0)));\n"));
    /* snprintf contract: the same length with a short buffer, NUL-terminated */
    CHECK(tc_ir_format_loops(&def, small, sizeof small) == n && strlen(small) == sizeof small - 1);
    CHECK(tc_ir_format_loops(&def, NULL, 0) == n);
    CHECK(tc_ir_format_loops(NULL, small, sizeof small) == 0 && small[0] == '\0');
}

/* Float constants print in the fewest digits that read back exactly. */
static void test_float_constants(void) {
    build_def();
    nodes[1].fval = (double)0.1f;
    CHECK(tc_ir_format_loops(&def, out, sizeof out) > 0);
    CHECK(has("A[i - 1][2*j + 1] * 0.1 + "));
    nodes[1].dtype = TC_FLOAT64, nodes[1].fval = 0.1;
    CHECK(tc_ir_format_loops(&def, out, sizeof out) > 0);
    CHECK(has("A[i - 1][2*j + 1] * 0.1 + "));
    nodes[1].fval = 1e30;
    CHECK(tc_ir_format_loops(&def, out, sizeof out) > 0);
    CHECK(has(" * 1e+30 + "));
    nodes[1].fval = 3.0;
    CHECK(tc_ir_format_loops(&def, out, sizeof out) > 0);
    CHECK(has(" * 3.0 + "));
}

/* A chain of shared nodes (x1 = x0 + x0, x2 = x1 + x1, ...) prints in
   bounded space instead of 2^40 terms. */
static void test_shared_dag_is_bounded(void) {
    static tc_ir_node chain[41];
    int i, n;
    build_def();
    set_node(0, TC_IR_CONST, TC_FLOAT32, 0, 0, 0, 0);
    chain[0] = nodes[0];
    for (i = 1; i < 41; i++) {
        memset(&chain[i], 0, sizeof chain[i]);
        chain[i].op = TC_IR_ADD;
        chain[i].dtype = TC_FLOAT32;
        chain[i].nargs = 2;
        chain[i].args[0] = chain[i].args[1] = i - 1;
    }
    stmt.nodes = chain, stmt.n_nodes = 41, stmt.value = 40;
    n = tc_ir_format_loops(&def, NULL, 0);
    CHECK(n > 0 && n < 4 * 1024 * 1024);
}

/* Through tc_compile, once the front end lands. */
static void test_compiled(void) {
    tc_compile_desc cd;
    tc_program *p = NULL;
    tc_error e;
    memset(&cd, 0, sizeof cd);
    cd.source = "def conv(float(N, C, H, W) I, float(M, C, KH, KW) W1) -> (O) {\n"
                "  O(n, m, h, w) +=! I(n, c, h + kh, w + kw) * W1(m, c, kh, kw)\n}\n";
    if (tc_compile(&cd, &p, &e) == TC_ERR_UNSUPPORTED) return; /* front end not in yet */
    CHECKF(p != NULL, "%s", e.msg);
    if (!p) return;
    CHECK(tc_ir_format_loops(tc_program_ir(p, 0), out, sizeof out) > 0);
    CHECK(has("for (int h = 0; h < H - KH + 1; h++)"));
    CHECK(has("O[n][m][h][w] += I[n][c][h + kh][w + kw] * W1[m][c][kh][kw];"));
    tc_program_free(p);
}

int main(void) {
    RUN(test_hand_built);
    RUN(test_min_body_and_consts);
    RUN(test_float_constants);
    RUN(test_shared_dag_is_bounded);
    RUN(test_compiled);
    return th_report();
}
