/* bench_random.c - `tc-bench --random N [--seed S]`: the random generality
   benchmark, #included by bench.c (it uses bench.c's rows, lineups,
   interleaved timing, pools and splitmix64).

   N defs are generated from six statement families (the seed decides
   everything: splitmix64, no other source of randomness):
     ew        element-wise chains of random ops and builtins (exp, tanh,
               sqrt of fabs, max/min, fma, a / (c + |b|), a select whose
               condition compares inputs) over full
               operands, literals and broadcast operands (a row vector, a
               column vector, a 0-rank scalar input), float32 or float64
     reduce    +=!, max=!, min=!, *=! (values near 1) along a random axis of
               a rank 2-3 tensor
     contract  matrix products with random layouts (transposes), batch and
               group dimensions, casts and dtypes (float64, int8 through
               float(), int8 x int8 into int32), depthwise and matrix-vector
               patterns where an operand lacks an output index
     stencil   1-D and 2-D filters with a weight tensor, blurs with random
               offsets, max and average pooling with random windows and strides
     short     innermost dimensions of 2, 3 or 4 (float(N,3) particles)
     pipeline  several statements with temporaries: softmax, layernorm,
               rmsnorm, an MLP layer with relu, an LSTM cell's gates
   Def i is family i % 6, named r<i>_<family> (r017_ew); its content
   depends on the seed and i alone, so --family and def names on the command
   line pick among the N without changing them. Sizes are drawn so that a
   tc call takes roughly 0.5-5 ms at one thread (with seed 1, 112 of 200
   do, 68 take less), odd ones too. Each def's C comes from tc_c_emit
   (tc_opencl.h, sizes as arguments); batch files of RB_BATCH defs each
   #include the defs' files and are compiled by one command, with the
   system compiler ($CC, else cc) at -O3 -march=native -ffast-math
   -fopenmp, into one shared object in a temporary directory (removed
   afterwards, on a signal too), when that fails each def alone; each is
   called through dlsym'd <def>_call, after omp_set_num_threads(T) when
   the object has it (OMP_WAIT_POLICY=passive unless set). tc runs each def through tc_compile / tc_plan_create /
   tc_plan_run on pools of 1 and 2 threads. tc and C alternate, round after
   round (bench.c's interleaved timing). Every result is checked: tc's
   outputs against the C's (integers exactly, floats within a tolerance
   for reassociation scaled by the magnitude and the reduction length, as
   tol_sum), tc's 2-thread result bitwise against its 1-thread one, the
   C's 2-thread result against its 1-thread one. A def that fails any of
   them is a MISMATCH row, counted, and left out of the geomeans. */
#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>

static void create_pools(bench *b); /* bench.c */

#define RB_MAX_DEFS 10000
#define RB_MAX_VARS 10
#define RB_MAX_IN 8
#define RB_MAX_OUT 4
#define RB_SRC 3072
#define RB_BATCH 50 /* defs per C file */

enum { RF_EW, RF_REDUCE, RF_CONTRACT, RF_STENCIL, RF_SHORT, RF_PIPELINE, RF_COUNT };
static const char *const rb_family_name[RF_COUNT] = {"ew",      "reduce", "contract",
                                                     "stencil", "short",  "pipeline"};

typedef struct rdef {
    char name[32];
    int fam;
    char kind[24]; /* what within the family: "mm-i8i32", "softmax", "f32-r2" */
    char src[RB_SRC];
    int n_vars;
    char var[RB_MAX_VARS][8];
    int64_t val[RB_MAX_VARS];
    int n_params;
    double lo[RB_MAX_IN], hi[RB_MAX_IN]; /* input data: uniform in [lo, hi) */
    double klen;  /* longest chain of reduced terms (tolerance) */
    int depth;    /* operations on the way to an output (tolerance) */
    int roots;    /* sqrt(fabs(e)) in the chain (tolerance: see rb_compare) */
} rdef;

/* ==== Generator ============================================================ */

typedef struct rng {
    uint64_t s;
} rng;
static uint64_t rb_u64(rng *r) { return splitmix64(&r->s); }
static int64_t rb_int(rng *r, int64_t lo, int64_t hi) { /* [lo, hi] */
    return lo + (int64_t)(rb_u64(r) % (uint64_t)(hi - lo + 1));
}
static double rb_unit(rng *r) { return (double)(rb_u64(r) >> 11) * (1.0 / 9007199254740992.0); }
/* log-uniform in [lo, hi] */
static int64_t rb_log(rng *r, int64_t lo, int64_t hi) {
    const double v = exp(log((double)lo) + rb_unit(r) * (log((double)hi) - log((double)lo)));
    int64_t x = (int64_t)(v + 0.5);
    return x < lo ? lo : x > hi ? hi : x;
}
static int rb_chance(rng *r, int percent) { return (int)(rb_u64(r) % 100) < percent; }

static void rb_cat(rdef *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rb_cat(rdef *d, const char *fmt, ...) {
    const size_t len = strlen(d->src);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->src + len, sizeof d->src - len, fmt, ap);
    va_end(ap);
}
/* A size variable with its value; returns its name. */
static const char *rb_var(rdef *d, const char *name, int64_t value) {
    int i;
    for (i = 0; i < d->n_vars; i++)
        if (strcmp(d->var[i], name) == 0) return d->var[i];
    snprintf(d->var[d->n_vars], sizeof d->var[0], "%s", name);
    d->val[d->n_vars] = value < 1 ? 1 : value;
    return d->var[d->n_vars++];
}
/* One more input parameter "type(dims) name" with its data range. */
static void rb_param(rdef *d, const char *type, const char *dims, const char *name, double lo,
                     double hi) {
    rb_cat(d, "%s%s%s%s%s %s", d->n_params ? ", " : "", type, dims ? "(" : "", dims ? dims : "",
           dims ? ")" : "", name);
    d->lo[d->n_params] = lo;
    d->hi[d->n_params] = hi;
    d->n_params++;
}
/* Random extents with a product near `total`: each dimension >= 2. */
static void rb_split(rng *r, int64_t total, int rank, int64_t *dims) {
    int64_t rest = total;
    int k;
    for (k = 0; k < rank - 1; k++) {
        const double share = pow((double)rest, 1.0 / (rank - k));
        int64_t lo = (int64_t)(share / 6.0), hi = (int64_t)(share * 6.0);
        if (lo < 2) lo = 2;
        if (hi > rest / 2) hi = rest / 2;
        if (hi < lo) hi = lo;
        dims[k] = rb_log(r, lo, hi);
        rest /= dims[k];
    }
    dims[rank - 1] = rest < 2 ? 2 : rest;
    for (k = 0; k < rank; k++) /* odd sizes too: nudge some off their value */
        if (rb_chance(r, 40)) dims[k] += rb_int(r, -1, 1) * (dims[k] > 3);
}

static const char *const rb_idx[4] = {"i", "j", "k", "l"};

typedef struct ewctx {
    char full[3][8];  /* full operands, indexed like the output */
    int n_full;
    char acc[32];     /* "i,j" */
    const char *first, *last; /* first and last index names */
    int row, col, scalar; /* broadcast operands present */
    int used[6];          /* full 0-2, row, col, scalar: read somewhere */
    int ops, roots;
} ewctx;

static const char *const rb_lits[] = {"0.5", "1.25", "2.0", "0.75", "3.0", "0.1"};

static void rb_leaf(rdef *d, rng *r, ewctx *c) {
    const int pick = (int)rb_int(r, 0, 9);
    if (pick < 5 || (pick == 5 && !c->row) || (pick == 6 && !c->col) || (pick == 7 && !c->scalar)) {
        const int f = (int)rb_int(r, 0, c->n_full - 1);
        rb_cat(d, "%s(%s)", c->full[f], c->acc);
        c->used[f] = 1;
    } else if (pick == 5) rb_cat(d, "rv(%s)", c->last), c->used[3] = 1;
    else if (pick == 6) rb_cat(d, "cv(%s)", c->first), c->used[4] = 1;
    else if (pick == 7) rb_cat(d, "s0"), c->used[5] = 1;
    else rb_cat(d, "%s", rb_lits[rb_int(r, 0, 5)]);
}

static void rb_expr(rdef *d, rng *r, ewctx *c, int depth) {
    int op;
    if (depth <= 0 || rb_chance(r, 15)) {
        rb_leaf(d, r, c);
        return;
    }
    op = (int)rb_int(r, 0, 12);
    c->ops++;
    switch (op) {
    case 0: case 1: case 2: /* + - * */
        rb_cat(d, "(");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, " %c ", "+-*"[op]);
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, ")");
        break;
    case 3: case 4:
        rb_cat(d, "%s(", op == 3 ? "max" : "min");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, ", ");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, ")");
        break;
    case 5:
        rb_cat(d, "tanh(");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, ")");
        break;
    case 6:
        rb_cat(d, "exp(0.25 * ");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, ")");
        break;
    case 7:
        c->roots++;
        rb_cat(d, "sqrt(fabs(");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, "))");
        break;
    case 8:
        rb_cat(d, "fma(");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, ", ");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, ", ");
        rb_leaf(d, r, c);
        rb_cat(d, ")");
        break;
    case 9: /* fma-like, spelled out */
        rb_cat(d, "(");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, " * %s + ", rb_lits[rb_int(r, 0, 5)]);
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, ")");
        break;
    case 10:
        rb_cat(d, "(");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, " / (1.5 + fabs(");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, ")))");
        break;
    case 12: /* a select on inputs alone: rounding never decides the branch */
        rb_cat(d, "(");
        rb_leaf(d, r, c);
        rb_cat(d, " > ");
        rb_leaf(d, r, c);
        rb_cat(d, " ? ");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, " : ");
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, ")");
        break;
    default:
        rb_cat(d, "(%s - ", rb_lits[rb_int(r, 0, 5)]);
        rb_expr(d, r, c, depth - 1);
        rb_cat(d, ")");
        break;
    }
}

/* An element-wise chain over `rank` dims named dn[], of dtype ty;
   `short_last`: the last extent is the constant given. */
static void rb_gen_ew_over(rdef *d, rng *r, int rank, const int64_t *ext, const char *ty,
                           int short_last) {
    static const char *const dn[4] = {"M", "N", "P", "Q"};
    char dims[64] = "", acc[32] = "";
    ewctx c;
    int k, n;
    memset(&c, 0, sizeof c);
    for (k = 0; k < rank; k++) {
        char one[24];
        if (k == rank - 1 && short_last) snprintf(one, sizeof one, "%d", short_last);
        else snprintf(one, sizeof one, "%s", rb_var(d, dn[k], ext[k]));
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%s", k ? "," : "", one);
        snprintf(acc + strlen(acc), sizeof acc - strlen(acc), "%s%s", k ? "," : "", rb_idx[k]);
    }
    snprintf(c.acc, sizeof c.acc, "%s", acc);
    c.first = rb_idx[0];
    c.last = rb_idx[rank - 1];
    c.n_full = (int)rb_int(r, 1, 3);
    c.row = rank >= 2 && rb_chance(r, 50);
    c.col = rank >= 2 && rb_chance(r, 40);
    c.scalar = rb_chance(r, 40);
    snprintf(d->kind, sizeof d->kind, "%s-r%d", ty[0] == 'd' ? "f64" : "f32", rank);
    rb_cat(d, "def %s(", d->name);
    for (n = 0; n < c.n_full; n++) {
        c.full[n][0] = 'X';
        c.full[n][1] = (char)('0' + n);
        rb_param(d, ty, dims, c.full[n], -1.0, 1.0);
    }
    if (c.row) {
        char one[24];
        if (short_last) snprintf(one, sizeof one, "%d", short_last);
        else snprintf(one, sizeof one, "%s", dn[rank - 1]);
        rb_param(d, ty, one, "rv", -1.0, 1.0);
    }
    if (c.col) rb_param(d, ty, dn[0], "cv", -1.0, 1.0);
    if (c.scalar) rb_param(d, ty, NULL, "s0", 0.5, 1.5);
    rb_cat(d, ") -> (O) {\n    O(%s) = ", acc);
    rb_expr(d, r, &c, (int)rb_int(r, 2, 4));
    /* every operand read: the ones the draw left out join with * or + */
    for (n = 0; n < 6; n++) {
        static const char *const join[2] = {" + ", " * "};
        if (c.used[n] || (n < 3 && n >= c.n_full) || (n == 3 && !c.row) || (n == 4 && !c.col) ||
            (n == 5 && !c.scalar))
            continue;
        rb_cat(d, "%s", join[rb_int(r, 0, 1)]);
        if (n < 3) rb_cat(d, "%s(%s)", c.full[n], c.acc);
        else if (n == 3) rb_cat(d, "rv(%s)", c.last);
        else if (n == 4) rb_cat(d, "cv(%s)", c.first);
        else rb_cat(d, "s0");
        c.ops++;
    }
    rb_cat(d, "\n}\n");
    d->klen = 1;
    d->depth = c.ops;
    d->roots = c.roots;
}

static void rb_gen_ew(rdef *d, rng *r) {
    const int rank = (int)rb_int(r, 1, 3);
    int64_t ext[3];
    rb_split(r, rb_log(r, 200000, 900000), rank, ext);
    rb_gen_ew_over(d, r, rank, ext, rb_chance(r, 20) ? "double" : "float", 0);
}

static void rb_gen_reduce(rdef *d, rng *r) {
    static const char *const dn[3] = {"M", "N", "P"};
    static const char *const ops[4] = {"+=!", "max=!", "min=!", "*=!"};
    const int rank = (int)rb_int(r, 2, 3), axis = (int)rb_int(r, 0, rank - 1);
    const int op = (int)rb_int(r, 0, 3);
    int64_t ext[3];
    char dims[48] = "", lhs[24] = "", rhs[24] = "";
    int k, n = 0;
    rb_split(r, rb_log(r, 600000, 4000000), rank, ext);
    snprintf(d->kind, sizeof d->kind, "%s-r%d-ax%d", (const char *[]){"sum", "max", "min", "prod"}[op],
             rank, axis);
    for (k = 0; k < rank; k++) {
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%s", k ? "," : "",
                 rb_var(d, dn[k], ext[k]));
        snprintf(rhs + strlen(rhs), sizeof rhs - strlen(rhs), "%s%s", k ? "," : "", rb_idx[k]);
        if (k != axis)
            snprintf(lhs + strlen(lhs), sizeof lhs - strlen(lhs), "%s%s", n++ ? "," : "",
                     rb_idx[k]);
    }
    rb_cat(d, "def %s(", d->name);
    if (op == 3) rb_param(d, "float", dims, "X", 0.995, 1.005);
    else rb_param(d, "float", dims, "X", -1.0, 1.0);
    rb_cat(d, ") -> (O) {\n    O(%s) %s ", lhs, ops[op]);
    if (op == 0 && rb_chance(r, 40)) rb_cat(d, "X(%s) * X(%s)", rhs, rhs);
    else if (op != 3 && rb_chance(r, 25)) rb_cat(d, "fabs(X(%s))", rhs);
    else rb_cat(d, "X(%s)", rhs);
    rb_cat(d, "\n}\n");
    d->klen = (double)ext[axis];
    d->depth = 2;
}

static void rb_gen_contract(rdef *d, rng *r) {
    const int kind = (int)rb_int(r, 0, 7);
    /* tc's float contractions run 10-100x faster than its int8 ones: sized
       apart, for calls of about a millisecond either way */
    const int64_t macs = kind == 2 || kind == 3 ? rb_log(r, 500000, 3000000)
                                                : rb_log(r, 3000000, 20000000);
    int64_t M, N, K, B;
    static const char *const kinds[8] = {"mm",    "mm-f64", "mm-i8f",    "mm-i8i32",
                                         "bmm",   "group",  "depthwise", "mv"};
    snprintf(d->kind, sizeof d->kind, "%s", kinds[kind]);
    rb_cat(d, "def %s(", d->name);
    d->depth = 2;
    switch (kind) {
    case 0: case 1: case 2: { /* mm with layouts; 1: float64 (or float cast to it);
                                 2: int8 A through float() */
        const int ta = rb_chance(r, 40), tb = rb_chance(r, 40);
        const int up = kind == 1 && rb_chance(r, 30); /* float inputs, double() products */
        const char *ty = kind == 1 && !up ? "double" : "float";
        char a[32], bb[32];
        K = rb_log(r, 16, 700);
        M = rb_log(r, 8, 600);
        N = macs / (M * K);
        if (N < 3) N = rb_int(r, 3, 9);
        rb_var(d, "M", M);
        rb_var(d, "N", N);
        rb_var(d, "K", K);
        rb_param(d, kind == 2 ? "int8" : ty, ta ? "K,M" : "M,K", "A", kind == 2 ? -100 : -1,
                 kind == 2 ? 100 : 1);
        rb_param(d, ty, tb ? "N,K" : "K,N", "W0", -1, 1);
        snprintf(a, sizeof a, kind == 2 ? "float(A(%s))" : up ? "double(A(%s))" : "A(%s)",
                 ta ? "k,i" : "i,k");
        snprintf(bb, sizeof bb, up ? "double(W0(%s))" : "W0(%s)", tb ? "j,k" : "k,j");
        if (rb_chance(r, 30)) /* output transposed */
            rb_cat(d, ") -> (C) {\n    C(j,i) +=! %s * %s\n}\n", a, bb);
        else
            rb_cat(d, ") -> (C) {\n    C(i,j) +=! %s * %s\n}\n", a, bb);
        break;
    }
    case 3: /* int8 x int8 into int32 */
        K = rb_log(r, 16, 500);
        M = rb_log(r, 8, 500);
        N = macs / (M * K);
        if (N < 3) N = rb_int(r, 3, 9);
        rb_var(d, "M", M);
        rb_var(d, "N", N);
        rb_var(d, "K", K);
        rb_param(d, "int8", "M,K", "A", -100, 100);
        rb_param(d, "int8", "K,N", "W0", -100, 100);
        rb_cat(d, ") -> (C) {\n    C(i,j) +=! int32(A(i,k)) * int32(W0(k,j))\n}\n");
        break;
    case 4: { /* batched; W shared by the batch or not */
        const int shared = rb_chance(r, 40), ta = rb_chance(r, 30);
        B = rb_int(r, 2, 12);
        K = rb_log(r, 8, 300);
        M = rb_log(r, 4, 200);
        N = macs / (B * M * K);
        if (N < 2) N = rb_int(r, 2, 7);
        rb_var(d, "B", B);
        rb_var(d, "M", M);
        rb_var(d, "N", N);
        rb_var(d, "K", K);
        rb_param(d, "float", ta ? "B,K,M" : "B,M,K", "A", -1, 1);
        rb_param(d, "float", shared ? "K,N" : "B,K,N", "W0", -1, 1);
        rb_cat(d, ") -> (C) {\n    C(b,i,j) +=! A(%s) * W0(%s)\n}\n", ta ? "b,k,i" : "b,i,k",
               shared ? "k,j" : "b,k,j");
        break;
    }
    case 5: /* grouped: the group dimension in the middle of A */
        B = rb_int(r, 2, 8); /* groups */
        K = rb_log(r, 8, 200);
        M = rb_log(r, 4, 300);
        N = macs / (B * M * K);
        if (N < 2) N = rb_int(r, 2, 7);
        rb_var(d, "G", B);
        rb_var(d, "M", M);
        rb_var(d, "N", N);
        rb_var(d, "K", K);
        rb_param(d, "float", "M,G,K", "A", -1, 1);
        rb_param(d, "float", "G,K,N", "W0", -1, 1);
        rb_cat(d, ") -> (C) {\n    C(g,i,j) +=! A(i,g,k) * W0(g,k,j)\n}\n");
        break;
    case 6: /* depthwise: W has no batch index, X no output channel */
        B = rb_int(r, 2, 16);
        M = rb_log(r, 4, 64); /* channels */
        K = rb_log(r, 3, 64);
        N = macs / (B * M * K);
        if (N < 2) N = rb_int(r, 2, 7);
        rb_var(d, "B", B);
        rb_var(d, "C", M);
        rb_var(d, "N", N);
        rb_var(d, "K", K);
        rb_param(d, "float", "B,C,K", "X", -1, 1);
        rb_param(d, "float", "C,K,N", "W0", -1, 1);
        rb_cat(d, ") -> (O) {\n    O(b,c,i) +=! X(b,c,k) * W0(c,k,i)\n}\n");
        break;
    default: { /* matrix-vector, either side */
        const int t = rb_chance(r, 50);
        K = rb_log(r, 16, 3000);
        M = rb_log(r, 1000000, 4000000) / K;
        if (M < 2) M = 2;
        rb_var(d, "M", M);
        rb_var(d, "K", K);
        rb_param(d, "float", t ? "K,M" : "M,K", "A", -1, 1);
        rb_param(d, "float", "K", "x", -1, 1);
        rb_cat(d, ") -> (y) {\n    y(i) +=! A(%s) * x(k)\n}\n", t ? "k,i" : "i,k");
        break;
    }
    }
    d->klen = (double)K;
}

static void rb_gen_stencil(rdef *d, rng *r) {
    const int kind = (int)rb_int(r, 0, 5);
    int64_t H, W, KH, KW, R;
    static const char *const kinds[6] = {"conv1d", "conv2d", "dwconv2d", "blur", "maxpool", "avgpool"};
    snprintf(d->kind, sizeof d->kind, "%s", kinds[kind]);
    rb_cat(d, "def %s(", d->name);
    d->depth = 2;
    switch (kind) {
    case 0: { /* 1-D filter over rows, dilated and offset at random */
        const int dil = (int)rb_int(r, 1, 3), off = rb_chance(r, 50) ? (int)rb_int(r, 1, 4) : 0;
        char tap[32], at[16] = "";
        KW = rb_int(r, 2, 9);
        R = rb_log(r, 2, 300);
        W = rb_log(r, 200000, 1500000) / (R * (KW > 4 ? 2 : 1));
        if (W < dil * KW + off + 2) W = dil * KW + off + 2;
        rb_var(d, "R", R);
        rb_var(d, "L", W);
        rb_var(d, "K", KW);
        rb_param(d, "float", "R,L", "X", -1, 1);
        rb_param(d, "float", "K", "W0", -1, 1);
        if (off) snprintf(at, sizeof at, " + %d", off);
        snprintf(tap, sizeof tap, "i + %s%s%s", dil > 1 ? (dil == 2 ? "2*" : "3*") : "", "k", at);
        rb_cat(d, ") -> (O) {\n    O(r,i) +=! X(r, %s) * W0(k)\n}\n", tap);
        d->klen = (double)KW;
        break;
    }
    case 1: case 2: { /* 2-D filter, with channels (depthwise) or not; stride 1 or 2 */
        const int ch = kind == 2;
        int st;
        KH = rb_int(r, 2, 5);
        KW = rb_int(r, 2, 5);
        R = ch ? rb_int(r, 2, 16) : 1;
        {
            int64_t e[2];
            rb_split(r, rb_log(r, 100000, 900000) / (R * KH * KW / 4 + 1), 2, e);
            st = rb_chance(r, 30) ? 2 : 1;
            H = st * e[0] + KH;
            W = st * e[1] + KW;
        }
        rb_var(d, "KH", KH);
        rb_var(d, "KW", KW);
        rb_var(d, "H", H);
        rb_var(d, "W", W);
        if (ch) {
            rb_var(d, "C", R);
            rb_param(d, "float", "C,H,W", "X", -1, 1);
            rb_param(d, "float", "C,KH,KW", "W0", -1, 1);
            rb_cat(d, ") -> (O) {\n    O(c,h,w) +=! X(c, %sh + kh, %sw + kw) * W0(c,kh,kw)\n}\n",
                   st > 1 ? "2*" : "", st > 1 ? "2*" : "");
        } else {
            rb_param(d, "float", "H,W", "X", -1, 1);
            rb_param(d, "float", "KH,KW", "W0", -1, 1);
            rb_cat(d, ") -> (O) {\n    O(h,w) +=! X(%sh + kh, %sw + kw) * W0(kh,kw)\n}\n",
                   st > 1 ? "2*" : "", st > 1 ? "2*" : "");
        }
        d->klen = (double)(KH * KW);
        break;
    }
    case 3: { /* blur: a few taps at random offsets */
        const int taps = (int)rb_int(r, 3, 6);
        int64_t e[2];
        int t;
        rb_split(r, rb_log(r, 250000, 1500000), 2, e);
        rb_var(d, "H", e[0] + 3);
        rb_var(d, "W", e[1] + 3);
        rb_param(d, "float", "H,W", "X", -1, 1);
        rb_cat(d, ") -> (O) {\n    O(i,j) = (");
        for (t = 0; t < taps; t++) {
            const int di = t == 0 ? 0 : (int)rb_int(r, 0, 2), dj = t == 0 ? 0 : (int)rb_int(r, 0, 3);
            rb_cat(d, "%sX(i%s, j%s)", t ? " + " : "", di ? (di == 1 ? " + 1" : " + 2") : "",
                   dj == 0 ? "" : dj == 1 ? " + 1" : dj == 2 ? " + 2" : " + 3");
        }
        rb_cat(d, ") * %s\n}\n", rb_lits[rb_int(r, 0, 5)]);
        d->klen = taps;
        break;
    }
    default: { /* pooling: max (4) or average (5), window k, stride s */
        const int64_t k = rb_int(r, 2, 3), s = rb_int(r, 1, 3);
        int64_t e[2];
        rb_split(r, rb_log(r, 300000, 2000000) / (s == 1 ? 2 : 1), 2, e);
        rb_var(d, "H", e[0] + k);
        rb_var(d, "W", e[1] + k);
        rb_param(d, "float", "H,W", "X", -1, 1);
        char si[8] = "", sj[8] = "";
        if (s > 1) {
            snprintf(si, sizeof si, "%d*", (int)s);
            snprintf(sj, sizeof sj, "%d*", (int)s);
        }
        if (kind == 4)
            rb_cat(d, ") -> (O) {\n    O(i,j) max=! X(%si + ki, %sj + kj) where ki in 0:%d, "
                   "kj in 0:%d\n}\n", si, sj, (int)k, (int)k);
        else
            rb_cat(d, ") -> (O) {\n    O(i,j) +=! X(%si + ki, %sj + kj) * %s where ki in 0:%d, "
                   "kj in 0:%d\n}\n", si, sj, k == 2 ? "0.25" : "0.11111111", (int)k, (int)k);
        d->klen = (double)(k * k);
        break;
    }
    }
}

static void rb_gen_short(rdef *d, rng *r) {
    const int kind = (int)rb_int(r, 0, 4), c = (int)rb_int(r, 2, 4);
    const int64_t n = rb_log(r, 60000, 600000);
    static const char *const kinds[5] = {"step", "norm", "mat", "scale", "chain"};
    d->depth = 3;
    d->klen = 1;
    if (kind == 4) { /* a random chain over (N, c) */
        int64_t ext[2];
        ext[0] = n;
        ext[1] = c;
        rb_gen_ew_over(d, r, 2, ext, "float", c);
        snprintf(d->kind, sizeof d->kind, "chain-%d", c);
        return;
    }
    snprintf(d->kind, sizeof d->kind, "%s-%d", kinds[kind], c);
    rb_cat(d, "def %s(", d->name);
    rb_var(d, "N", n);
    switch (kind) {
    case 0: { /* particles: P + V * dt, scaled */
        char dims[16];
        snprintf(dims, sizeof dims, "N,%d", c);
        rb_param(d, "float", dims, "P", -1, 1);
        rb_param(d, "float", dims, "V", -1, 1);
        rb_param(d, "float", NULL, "dt", 0.01, 0.02);
        rb_cat(d, ") -> (O) {\n    O(i,c) = P(i,c) * %s + V(i,c) * dt\n}\n",
               rb_lits[rb_int(r, 0, 5)]);
        break;
    }
    case 1: { /* squared norm per particle */
        char dims[16];
        snprintf(dims, sizeof dims, "N,%d", c);
        rb_param(d, "float", dims, "P", -1, 1);
        rb_cat(d, ") -> (O) {\n    O(i) +=! P(i,c) * P(i,c)\n}\n");
        d->klen = c;
        break;
    }
    case 2: { /* a small matrix per point */
        char dims[16], rd[16];
        snprintf(dims, sizeof dims, "N,%d", c);
        snprintf(rd, sizeof rd, "%d,%d", c, c);
        rb_param(d, "float", dims, "P", -1, 1);
        rb_param(d, "float", rd, "R", -1, 1);
        rb_cat(d, ") -> (O) {\n    O(i,c) +=! P(i,d) * R(d,c)\n}\n");
        d->klen = c;
        break;
    }
    default: { /* rank 3, per-component scale and offset */
        char dims[24], cd[8];
        const int64_t b = rb_int(r, 2, 9);
        rb_var(d, "B", b);
        d->val[0] = n / b + 1;
        snprintf(dims, sizeof dims, "B,N,%d", c);
        snprintf(cd, sizeof cd, "%d", c);
        rb_param(d, "float", dims, "X", -1, 1);
        rb_param(d, "float", cd, "sc", -1, 1);
        rb_param(d, "float", cd, "of", -1, 1);
        rb_cat(d, ") -> (O) {\n    O(b,i,c) = X(b,i,c) * sc(c) + of(c)\n}\n");
        break;
    }
    }
}

static void rb_gen_pipeline(rdef *d, rng *r) {
    const int kind = (int)rb_int(r, 0, 4);
    int64_t e[2];
    static const char *const kinds[5] = {"softmax", "layernorm", "rmsnorm", "mlp", "lstm"};
    snprintf(d->kind, sizeof d->kind, "%s", kinds[kind]);
    rb_cat(d, "def %s(", d->name);
    d->depth = 8;
    switch (kind) {
    case 0: /* softmax */
        rb_split(r, rb_log(r, 150000, 800000), 2, e);
        rb_var(d, "M", e[0]);
        rb_var(d, "N", e[1]);
        rb_param(d, "float", "M,N", "X", -2, 2);
        rb_cat(d, ") -> (Y) {\n    mx(i) max=! X(i,j)\n    e(i,j) = exp(X(i,j) - mx(i))\n"
               "    s(i) +=! e(i,j)\n    Y(i,j) = e(i,j) / s(i)\n}\n");
        d->klen = (double)e[1];
        break;
    case 1: /* layernorm */
        rb_split(r, rb_log(r, 150000, 800000), 2, e);
        rb_var(d, "M", e[0]);
        rb_var(d, "N", e[1]);
        rb_param(d, "float", "M,N", "X", -2, 2);
        rb_param(d, "float", "N", "g", 0.5, 1.5);
        rb_param(d, "float", "N", "bb", -1, 1);
        rb_cat(d, ") -> (Y) {\n    s(i) +=! X(i,j)\n    d(i,j) = X(i,j) - s(i) / N\n"
               "    v(i) +=! d(i,j) * d(i,j)\n"
               "    Y(i,j) = d(i,j) * rsqrt(v(i) / N + 1e-5) * g(j) + bb(j)\n}\n");
        d->klen = (double)e[1];
        break;
    case 2: /* rmsnorm */
        rb_split(r, rb_log(r, 150000, 800000), 2, e);
        rb_var(d, "M", e[0]);
        rb_var(d, "N", e[1]);
        rb_param(d, "float", "M,N", "X", -2, 2);
        rb_param(d, "float", "N", "g", 0.5, 1.5);
        rb_cat(d, ") -> (Y) {\n    ss(i) +=! X(i,j) * X(i,j)\n"
               "    Y(i,j) = X(i,j) * rsqrt(ss(i) / N + 1e-6) * g(j)\n}\n");
        d->klen = (double)e[1];
        break;
    case 3: { /* MLP layer with relu */
        const int64_t K = rb_log(r, 16, 512), H = rb_log(r, 16, 512);
        int64_t B = rb_log(r, 5000000, 30000000) / (K * H);
        if (B < 2) B = 2;
        rb_var(d, "B", B);
        rb_var(d, "K", K);
        rb_var(d, "H", H);
        rb_param(d, "float", "B,K", "X", -1, 1);
        rb_param(d, "float", "K,H", "W1", -1.0 / sqrt((double)K), 1.0 / sqrt((double)K));
        rb_param(d, "float", "H", "b1", -0.5, 0.5);
        rb_cat(d, ") -> (Y) {\n    Z(b,h) +=! X(b,k) * W1(k,h)\n"
               "    Y(b,h) = max(Z(b,h) + b1(h), 0.0)\n}\n");
        d->klen = (double)K;
        break;
    }
    default: { /* LSTM cell */
        const int64_t K = rb_log(r, 16, 256), H = rb_log(r, 16, 256);
        int64_t B = rb_log(r, 8000000, 40000000) / (4 * K * H);
        const double w = 1.0 / sqrt((double)K);
        if (B < 2) B = 2;
        rb_var(d, "B", B);
        rb_var(d, "K", K);
        rb_var(d, "H", H);
        rb_param(d, "float", "B,K", "X", -1, 1);
        rb_param(d, "float", "B,H", "C0", -1, 1);
        rb_param(d, "float", "K,H", "Wi", -w, w);
        rb_param(d, "float", "K,H", "Wf", -w, w);
        rb_param(d, "float", "K,H", "Wo", -w, w);
        rb_param(d, "float", "K,H", "Wg", -w, w);
        rb_cat(d, ") -> (c2, h2) {\n"
               "    zi(b,h) +=! X(b,k) * Wi(k,h)\n    zf(b,h) +=! X(b,k) * Wf(k,h)\n"
               "    zo(b,h) +=! X(b,k) * Wo(k,h)\n    zg(b,h) +=! X(b,k) * Wg(k,h)\n"
               "    c2(b,h) = C0(b,h) / (1.0 + exp(-zf(b,h))) + tanh(zg(b,h)) / (1.0 + "
               "exp(-zi(b,h)))\n"
               "    h2(b,h) = tanh(c2(b,h)) / (1.0 + exp(-zo(b,h)))\n}\n");
        d->klen = (double)K;
        break;
    }
    }
}

/* Def `index` of the run with `seed`: its family cycles, its content is the
   seed's and the index's alone. */
static void rb_generate(rdef *d, uint64_t seed, int index) {
    rng r;
    memset(d, 0, sizeof *d);
    r.s = seed * 0x9E3779B97F4A7C15ull + (uint64_t)index * 0xD1B54A32D192ED03ull + 1;
    rb_u64(&r);
    d->fam = index % RF_COUNT;
    snprintf(d->name, sizeof d->name, "r%03d_%s", index, rb_family_name[d->fam]);
    switch (d->fam) {
    case RF_EW: rb_gen_ew(d, &r); break;
    case RF_REDUCE: rb_gen_reduce(d, &r); break;
    case RF_CONTRACT: rb_gen_contract(d, &r); break;
    case RF_STENCIL: rb_gen_stencil(d, &r); break;
    case RF_SHORT: rb_gen_short(d, &r); break;
    default: rb_gen_pipeline(d, &r); break;
    }
}

/* "M=37 N=1025" */
static void rb_sizes(const rdef *d, char *buf, size_t cap) {
    int i;
    size_t len = 0;
    buf[0] = 0;
    for (i = 0; i < d->n_vars && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s=%lld", i ? " " : "", d->var[i],
                                (long long)d->val[i]);
}

/* ==== Running ============================================================== */

typedef int (*rb_cfn)(void *const *tensors, const int64_t *sizevars);

typedef struct rrun {
    rdef d;
    int index;
    tc_program *prog;
    const tc_ir_def *ir;
    int n_in, n_out;
    tc_tensor in[RB_MAX_IN], out[RB_MAX_OUT], cout[RB_MAX_OUT];
    int64_t sv[RB_MAX_VARS + 4]; /* the IR's size variables, in its order */
    int c_threaded;              /* the emitted C has OpenMP pragmas */
    rb_cfn cfn;
    char err[480];  /* set: the def could not run on tc */
    char cerr[480]; /* set: no C for this def (emission or compilation) */
    int status;    /* ROW_OK, ROW_MISMATCH, ROW_ERROR */
    char note[480];
    double worst;  /* err/tol */
    row r[2][MAX_THREAD_COUNTS]; /* [0] tc, [1] C, per thread count */
} rrun;

typedef struct rb_c_call {
    rb_cfn fn;
    void *t[RB_MAX_IN + RB_MAX_OUT];
    const int64_t *sv;
    void (*set_threads)(int);
    int threads;
} rb_c_call;

static int rb_call_c(void *ctx, char *msg, size_t cap) {
    rb_c_call *c = (rb_c_call *)ctx;
    int rc;
    if (c->set_threads) c->set_threads(c->threads);
    rc = c->fn(c->t, c->sv);
    if (rc == 0) return 0;
    snprintf(msg, cap, "C <def>_call returned %d", rc);
    return 1;
}

static size_t rb_numel(const tc_tensor *t) {
    size_t n = 1;
    int k;
    for (k = 0; k < t->rank; k++) n *= (size_t)t->shape[k];
    return n;
}
static size_t rb_bytes(const tc_tensor *t) { return rb_numel(t) * tc_dtype_size(t->dtype); }

static void rb_fill(tc_tensor *t, double lo, double hi, uint64_t seed) {
    const size_t n = rb_numel(t);
    uint64_t s = seed;
    size_t i;
    for (i = 0; i < n; i++) {
        const double u = (double)(splitmix64(&s) >> 11) * (1.0 / 9007199254740992.0);
        const double v = lo + (hi - lo) * u;
        switch (t->dtype) {
        case TC_FLOAT32: ((float *)t->data)[i] = (float)v; break;
        case TC_FLOAT64: ((double *)t->data)[i] = v; break;
        case TC_INT8: ((int8_t *)t->data)[i] = (int8_t)floor(v); break;
        case TC_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)floor(v); break;
        case TC_INT32: ((int32_t *)t->data)[i] = (int32_t)floor(v); break;
        case TC_INT64: ((int64_t *)t->data)[i] = (int64_t)floor(v); break;
        default: memset((char *)t->data + i * tc_dtype_size(t->dtype), 0, tc_dtype_size(t->dtype));
        }
    }
}

static double rb_get(const tc_tensor *t, size_t i) {
    switch (t->dtype) {
    case TC_FLOAT32: return ((const float *)t->data)[i];
    case TC_FLOAT64: return ((const double *)t->data)[i];
    case TC_INT8: return ((const int8_t *)t->data)[i];
    case TC_UINT8: return ((const uint8_t *)t->data)[i];
    case TC_INT16: return ((const int16_t *)t->data)[i];
    case TC_INT32: return ((const int32_t *)t->data)[i];
    case TC_INT64: return (double)((const int64_t *)t->data)[i];
    case TC_BOOL: return ((const unsigned char *)t->data)[i];
    default: return 0.0;
    }
}

/* got against ref (the same dtype and shape): integers and bools bit for
   bit; floats within 16 u (sqrt(klen / 2 + 1) + depth) max(|ref|, rms(ref)):
   tol_sum's bound for a sum of klen terms in any order, its sqrt(sum of
   squares) taken as the output's root mean square (that of a sum of terms of
   random sign), plus a few ulp per operation on the way (builtins differ by
   an ulp or two, fast-math reassociates); plus sqrt(64 u (depth + 1)) rms
   where the chain takes sqrt(fabs(e)). Both NaN counts as equal.
   1: within; *worst: max error / tol. */
static int rb_compare(const tc_tensor *got, const tc_tensor *ref, const rdef *d, double *worst,
                      char *why, size_t cap) {
    const double klen = d->klen;
    const int depth = d->depth;
    const size_t n = rb_numel(ref);
    const int isf = ref->dtype == TC_FLOAT32 || ref->dtype == TC_FLOAT64;
    const double u = ref->dtype == TC_FLOAT64 ? 1.0 / 9007199254740992.0 : F32_U;
    double sq = 0.0, rms, w = 0.0, f, extra;
    size_t i, nf = 0, bad = 0, first = 0;
    if (!isf) {
        const size_t bytes = rb_bytes(ref);
        const unsigned char *a = (const unsigned char *)got->data, *b = (const unsigned char *)ref->data;
        for (i = 0; i < bytes; i++)
            if (a[i] != b[i]) {
                const size_t e = i / tc_dtype_size(ref->dtype);
                snprintf(why, cap, "element %zu: %.17g, C gives %.17g (exact)", e, rb_get(got, e),
                         rb_get(ref, e));
                *worst = INFINITY;
                return 0;
            }
        *worst = 0.0;
        return 1;
    }
    for (i = 0; i < n; i++) {
        const double v = rb_get(ref, i);
        if (v == v && fabs(v) < INFINITY) {
            sq += v * v;
            nf++;
        }
    }
    rms = nf ? sqrt(sq / (double)nf) : 0.0;
    f = 16.0 * u * (sqrt(klen / 2.0 + 1.0) + depth);
    /* sqrt(|e|) with e near 0 after cancellation: |sqrt(a) - sqrt(b)| <=
       sqrt(|a - b|), so an error of a few u in e is up to sqrt(few u) in
       the output (an ulp of exp(0.125) in (0.5 - X) - exp(0.125) moved
       sqrt(fabs(...)) of it by 6.7e-6 at 0.0045) */
    extra = d->roots ? sqrt(64.0 * u * (depth + 1)) * rms : 0.0;
    for (i = 0; i < n; i++) {
        const double g = rb_get(got, i), r = rb_get(ref, i);
        const double tol = f * (fabs(r) > rms ? fabs(r) : rms) + extra + 1e-300;
        double e;
        if (g != g && r != r) continue;
        if (g == r) continue;
        e = fabs(g - r);
        if (!(e <= tol)) {
            if (!bad) first = i;
            bad++;
        }
        if (e != e) w = INFINITY;
        else if (e / tol > w) w = e / tol;
    }
    *worst = w;
    if (bad) {
        snprintf(why, cap, "%zu of %zu elements out of tolerance, first %zu: %.9g, C gives %.9g", bad,
                 n, first, rb_get(got, first), rb_get(ref, first));
        return 0;
    }
    return 1;
}

static void rb_note(rrun *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rb_note(rrun *x, const char *fmt, ...) {
    const size_t len = strlen(x->note);
    va_list ap;
    if (len + 3 >= sizeof x->note) return;
    if (len) snprintf(x->note + len, sizeof x->note - len, "; ");
    va_start(ap, fmt);
    vsnprintf(x->note + strlen(x->note), sizeof x->note - strlen(x->note), fmt, ap);
    va_end(ap);
}

static void rb_free_run(rrun *x) {
    int i;
    for (i = 0; i < x->n_in; i++) free(x->in[i].data);
    for (i = 0; i < x->n_out; i++) {
        free(x->out[i].data);
        free(x->cout[i].data);
    }
    tc_program_free(x->prog);
    x->prog = NULL;
    x->ir = NULL;
    x->n_in = x->n_out = 0;
}

/* tc_compile, the IR, shapes from the generator's sizes, buffers and data.
   0 and x->err on failure. */
static int rb_prepare(rrun *x) {
    tc_compile_desc cd;
    tc_error err;
    int64_t vals[RB_MAX_VARS + 4], *sxv;
    int i, k, def;
    memset(&cd, 0, sizeof cd);
    cd.source = x->d.src;
    cd.name = x->d.name;
    if (tc_compile(&cd, &x->prog, &err) != TC_OK) {
        snprintf(x->err, sizeof x->err, "tc_compile: %s: %s (line %d)", tc_status_name(err.code),
                 err.msg, err.line);
        return 0;
    }
    def = tc_program_find(x->prog, x->d.name);
    x->ir = tc_program_ir(x->prog, def);
    if (!x->ir || x->ir->n_inputs > RB_MAX_IN || x->ir->n_outputs > RB_MAX_OUT ||
        x->ir->n_sizevars > RB_MAX_VARS + 4) {
        snprintf(x->err, sizeof x->err, "tc-bench: def outside the harness's limits");
        return 0;
    }
    for (i = 0; i < x->ir->n_sizevars; i++) {
        vals[i] = -1;
        for (k = 0; k < x->d.n_vars; k++)
            if (strcmp(x->ir->sizevars[i], x->d.var[k]) == 0) vals[i] = x->d.val[k];
        if (vals[i] < 0) {
            snprintf(x->err, sizeof x->err, "tc-bench: no value for size %s", x->ir->sizevars[i]);
            return 0;
        }
        x->sv[i] = vals[i];
    }
    sxv = (int64_t *)malloc(((size_t)x->ir->n_sx + 1) * sizeof(int64_t));
    if (!sxv || tc_sx_eval(x->ir, vals, NULL, sxv, &err) != TC_OK) {
        snprintf(x->err, sizeof x->err, "tc_sx_eval: %s", sxv ? err.msg : "out of memory");
        free(sxv);
        return 0;
    }
    x->n_in = x->ir->n_inputs;
    x->n_out = x->ir->n_outputs;
    for (i = 0; i < x->n_in; i++) {
        const tc_ir_tensor *t = &x->ir->tensors[i];
        tc_tensor *v = &x->in[i];
        memset(v, 0, sizeof *v);
        v->dtype = t->dtype;
        v->rank = t->rank;
        for (k = 0; k < t->rank; k++) v->shape[k] = sxv[t->extent[k]];
        v->data = alloc_aligned(rb_bytes(v));
        if (!v->data) {
            snprintf(x->err, sizeof x->err, "tc-bench: out of memory");
            free(sxv);
            return 0;
        }
        rb_fill(v, x->d.lo[i], x->d.hi[i], fnv1a(t->name, fnv1a(x->d.name, 0xCBF29CE484222325ull)));
    }
    free(sxv);
    if (tc_infer_shapes(x->prog, x->d.name, x->in, x->n_in, x->out, x->n_out, &err) != TC_OK) {
        snprintf(x->err, sizeof x->err, "tc_infer_shapes: %s: %s", tc_status_name(err.code),
                 err.msg);
        return 0;
    }
    for (i = 0; i < x->n_out; i++) {
        x->cout[i] = x->out[i];
        x->out[i].data = alloc_aligned(rb_bytes(&x->out[i]));
        x->cout[i].data = alloc_aligned(rb_bytes(&x->out[i]));
        if (!x->out[i].data || !x->cout[i].data) {
            snprintf(x->err, sizeof x->err, "tc-bench: out of memory");
            return 0;
        }
    }
    return 1;
}

static void rb_poison(tc_tensor *t, int n) {
    int i;
    for (i = 0; i < n; i++) memset(t[i].data, 0xff, rb_bytes(&t[i]));
}
/* Copies of the outputs (the first thread count's result). */
static void **rb_snapshot(const tc_tensor *t, int n) {
    void **s = (void **)calloc((size_t)n, sizeof(void *));
    int i;
    for (i = 0; s && i < n; i++) {
        s[i] = malloc(rb_bytes(&t[i]) + 1);
        if (s[i]) memcpy(s[i], t[i].data, rb_bytes(&t[i]));
    }
    return s;
}
static void rb_snapshot_free(void **s, int n) {
    int i;
    for (i = 0; s && i < n; i++) free(s[i]);
    free(s);
}

/* One contender's first call, outside the rounds: r gets an error or joins
   the lineup. */
static int rb_enlist(lineup *L, row *r, call_fn fn, void *ctx) {
    double t0 = now_s();
    if (fn(ctx, r->note, sizeof r->note)) {
        r->status = ROW_ERROR;
        return 0;
    }
    if (L->n == MAX_CONTENDERS) {
        r->status = ROW_ERROR;
        snprintf(r->note, sizeof r->note, "tc-bench: too many variants");
        return 0;
    }
    L->c[L->n].first = now_s() - t0;
    L->c[L->n].r = r;
    L->c[L->n].fn = fn;
    L->c[L->n].ctx = ctx;
    L->n++;
    r->status = ROW_OK;
    return 1;
}

typedef struct rb_state {
    bench *b;
    void *so;
    void (*set_threads)(int);
    int have_c;         /* a shared object with the C was built */
    char c_err[480];    /* why there is no C at all */
} rb_state;

/* The lineup of one def: tc and C at every thread count, checked, timed. */
static void rb_measure(rb_state *S, rrun *x) {
    bench *b = S->b;
    static lineup L[1];
    static tc_call tcc[MAX_THREAD_COUNTS];
    static rb_c_call cc[MAX_THREAD_COUNTS];
    const int nt = b->o.n_threads;
    void **tc_first = NULL, **c_first = NULL;
    tc_run_desc rd;
    tc_error err;
    int t, i;
    L->n = 0;
    memset(tcc, 0, sizeof tcc);
    for (t = 0; t < nt; t++) {
        row *tr = &x->r[0][t], *cr = &x->r[1][t];
        memset(tr, 0, sizeof *tr);
        memset(cr, 0, sizeof *cr);
        tr->kernel = cr->kernel = -1;
        tr->family = "tc";
        cr->family = "c";
        tr->variant = cr->variant = rb_family_name[x->d.fam];
        tr->threads = cr->threads = b->o.threads[t];
        tr->status = cr->status = ROW_ERROR;
    }
    memset(&rd, 0, sizeof rd);
    rd.entry = x->d.name;
    rd.inputs = x->in;
    rd.n_inputs = x->n_in;
    rd.outputs = x->out;
    rd.n_outputs = x->n_out;
    for (t = 0; t < nt; t++) { /* tc */
        row *r = &x->r[0][t];
        if (!b->pool[t]) {
            snprintf(r->note, sizeof r->note, "%s", b->pool_err[t]);
            continue;
        }
        tcc[t].rd = rd;
        tcc[t].rd.pool = b->pool[t];
        if (tc_plan_create(x->prog, &tcc[t].rd, &tcc[t].plan, &err) != TC_OK) {
            snprintf(r->note, sizeof r->note, "tc_plan_create: %s: %s", tc_status_name(err.code),
                     err.msg);
            continue;
        }
        rb_poison(x->out, x->n_out);
        if (!rb_enlist(L, r, call_tc, &tcc[t])) continue;
        if (!tc_first) tc_first = rb_snapshot(x->out, x->n_out);
        else
            for (i = 0; i < x->n_out; i++)
                if (tc_first && memcmp(tc_first[i], x->out[i].data, rb_bytes(&x->out[i])) != 0) {
                    r->status = ROW_MISMATCH;
                    rb_note(x, "tc at %d threads: %s differs bitwise from %d thread(s)",
                            r->threads, x->ir->tensors[x->n_in + i].name, b->o.threads[0]);
                }
    }
    for (t = 0; t < nt; t++) { /* C */
        row *r = &x->r[1][t];
        if (!x->cfn) {
            snprintf(r->note, sizeof r->note, "%s", x->cerr[0] ? x->cerr : S->c_err);
            continue;
        }
        memset(&cc[t], 0, sizeof cc[t]);
        cc[t].fn = x->cfn;
        for (i = 0; i < x->n_in; i++) cc[t].t[i] = x->in[i].data;
        for (i = 0; i < x->n_out; i++) cc[t].t[x->n_in + i] = x->cout[i].data;
        cc[t].sv = x->sv;
        cc[t].set_threads = S->set_threads;
        cc[t].threads = b->o.threads[t];
        rb_poison(x->cout, x->n_out);
        if (!rb_enlist(L, r, rb_call_c, &cc[t])) continue;
        if (!c_first) c_first = rb_snapshot(x->cout, x->n_out);
        else
            for (i = 0; i < x->n_out; i++) {
                tc_tensor prev = x->cout[i];
                double w;
                char why[240];
                prev.data = c_first[i];
                if (prev.data && !rb_compare(&x->cout[i], &prev, &x->d, &w, why, sizeof why)) {
                    r->status = ROW_MISMATCH;
                    rb_note(x, "C at %d threads against 1: %s: %s", r->threads,
                            x->ir->tensors[x->n_in + i].name, why);
                }
            }
    }
    /* tc against C: the first thread count's results of each */
    x->worst = 0.0;
    if (tc_first && c_first) {
        for (i = 0; i < x->n_out; i++) {
            tc_tensor g = x->out[i], ref = x->cout[i];
            double w = 0.0;
            char why[240];
            g.data = tc_first[i];
            ref.data = c_first[i];
            if (!g.data || !ref.data) continue;
            if (!rb_compare(&g, &ref, &x->d, &w, why, sizeof why)) {
                for (t = 0; t < nt; t++)
                    if (x->r[0][t].status != ROW_ERROR) x->r[0][t].status = ROW_MISMATCH;
                rb_note(x, "%s: %s", x->ir->tensors[x->n_in + i].name, why);
            }
            if (w > x->worst) x->worst = w;
        }
    }
    rb_snapshot_free(tc_first, x->n_out);
    rb_snapshot_free(c_first, x->n_out);
    time_lineup(&b->o, L);
    for (t = 0; t < nt; t++) tc_plan_free(tcc[t].plan);
    x->status = ROW_OK;
    for (t = 0; t < nt; t++)
        for (i = 0; i < 2; i++) {
            const row *r = &x->r[i][t];
            if (r->status == ROW_ERROR) {
                if (x->status == ROW_OK) x->status = ROW_ERROR;
                if (!strstr(x->note, r->note)) rb_note(x, "%s %dT: %s", r->family, r->threads, r->note);
            } else if (r->status == ROW_MISMATCH)
                x->status = ROW_MISMATCH;
        }
}

/* ==== The C side: emission, one compilation, dlopen ======================== */
/* The objects stay mapped after dlclose: they link libgomp, whose idle
   worker threads would otherwise run on into unmapped code once the last
   object that needs it is closed (a crash at exit, now and then). */
#if defined(RTLD_NODELETE)
#define RB_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
#else
#define RB_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL)
#endif

static int rb_run_cmd(const char *cmd, char *log, size_t cap) {
    FILE *p = popen(cmd, "r");
    size_t len = 0;
    int st;
    if (log && cap) log[0] = 0;
    if (!p) return -1;
    for (;;) {
        char buf[512];
        const size_t n = fread(buf, 1, sizeof buf, p);
        if (n == 0) break;
        if (log && len + 1 < cap) {
            const size_t m = n < cap - 1 - len ? n : cap - 1 - len;
            memcpy(log + len, buf, m);
            len += m;
            log[len] = 0;
        }
    }
    st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void rb_one_line(char *s) { /* a compiler log as one line for a note */
    char *p;
    for (p = s; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
}

/* Writes dir/NAME.c for each def tc compiled; 0: no C emitter in this build. */
static int rb_emit_all(rb_state *S, rrun *runs, int n, const char *dir) {
#if defined(TC_BENCH_C_EMIT)
    int i;
    for (i = 0; i < n; i++) {
        rrun *x = &runs[i];
        char *src = NULL, path[400];
        tc_error err;
        FILE *f;
        if (!x->ir) continue;
        if (tc_c_emit(x->ir, NULL, 0, NULL, &src, &err) != TC_OK) {
            snprintf(x->cerr, sizeof x->cerr, "tc_c_emit: %s: %s", tc_status_name(err.code),
                     err.msg);
            continue;
        }
        x->c_threaded = strstr(src, "pragma omp") || strstr(src, "_Pragma(\"omp");
        snprintf(path, sizeof path, "%s/%s.c", dir, x->d.name);
        f = fopen(path, "w");
        if (!f || fputs(src, f) < 0 || fclose(f) != 0) {
            snprintf(x->cerr, sizeof x->cerr, "tc-bench: cannot write %s", path);
            if (f) fclose(f);
        }
        tc_ocl_free_source(src, NULL);
    }
    (void)S;
    return 1;
#else
    (void)runs;
    (void)n;
    (void)dir;
    snprintf(S->c_err, sizeof S->c_err,
             "no C baseline: this tc_opencl.h has no tc_c_emit (tc-bench built without "
             "TC_BENCH_C_EMIT)");
    return 0;
#endif
}

#define RB_CFLAGS "-O3 -march=native -ffast-math -fPIC -shared"

static const char *rb_cc(void) {
    const char *cc = getenv("CC");
    return cc && *cc ? cc : "cc";
}

/* Every emitted file into dir/all.so at once; when that fails, each into
   its own object, so that one def's failure is that def's alone. Fills
   x->cfn (or x->cerr). */
static void rb_build_c(rb_state *S, rrun *runs, int n, const char *dir, void **handles,
                       int *n_handles) {
    size_t cap = 4096 + (size_t)n * 64, len;
    char *cmd = (char *)malloc(cap), log[2048];
    const char *omp = "-fopenmp";
    int i, any = 0, rc;
    double t0;
    if (!cmd) return;
    /* -fopenmp when the compiler takes it */
    snprintf(cmd, cap, "printf 'int main(void){return 0;}' | %s -fopenmp -x c - -o %s/omp.out 2>&1",
             rb_cc(), dir);
    if (rb_run_cmd(cmd, NULL, 0) != 0) omp = "";
    snprintf(cmd, cap, "%s/omp.out", dir);
    remove(cmd);
    /* batch<k>.c #includes RB_BATCH defs' files: a few translation units
       (the emitted helpers are guarded, the functions named after their
       defs), compiled by one command into all.so */
    len = (size_t)snprintf(cmd, cap, "cd %s && %s " RB_CFLAGS " %s -o all.so", dir, rb_cc(), omp);
    {
        FILE *f = NULL;
        int batches = 0;
        for (i = 0; i < n; i++) {
            if (!runs[i].ir || runs[i].cerr[0]) continue;
            if (any % RB_BATCH == 0) {
                char path[600];
                if (f) fclose(f);
                snprintf(path, sizeof path, "%s/batch%d.c", dir, batches);
                f = fopen(path, "w");
                if (!f) break;
                len += (size_t)snprintf(cmd + len, cap - len, " batch%d.c", batches++);
            }
            fprintf(f, "#include \"%s.c\"\n", runs[i].d.name);
            any++;
        }
        if (f) fclose(f);
    }
    snprintf(cmd + len, cap - len, " -lm 2>&1");
    if (!any) {
        free(cmd);
        return;
    }
    t0 = now_s();
    rc = rb_run_cmd(cmd, log, sizeof log);
    if (!S->b->o.csv)
        printf("C: %d defs in %d file%s, one compiler run: %s in %.1f s%s\n\n", any,
               (any + RB_BATCH - 1) / RB_BATCH, any > RB_BATCH ? "s" : "", rc == 0 ? "ok" : "failed",
               now_s() - t0,
               rc == 0 ? "" : " (each def alone now)");
    if (rc == 0) {
        char path[600];
        snprintf(path, sizeof path, "%s/all.so", dir);
        handles[0] = dlopen(path, RB_DLOPEN_FLAGS);
        if (handles[0]) *n_handles = 1;
        else snprintf(S->c_err, sizeof S->c_err, "dlopen: %s", dlerror());
    }
    for (i = 0; i < n; i++) {
        rrun *x = &runs[i];
        char sym[64];
        void *h = NULL;
        if (!x->ir || x->cerr[0]) continue;
        if (rc != 0) { /* alone */
            char path[600];
            snprintf(cmd, cap, "cd %s && %s " RB_CFLAGS " %s -o %s.so %s.c -lm 2>&1", dir, rb_cc(),
                     omp, x->d.name, x->d.name);
            if (rb_run_cmd(cmd, log, sizeof log) != 0) {
                rb_one_line(log);
                snprintf(x->cerr, sizeof x->cerr, "C compile failed: %.400s", log);
                continue;
            }
            snprintf(path, sizeof path, "%s/%s.so", dir, x->d.name);
            h = dlopen(path, RB_DLOPEN_FLAGS);
            if (!h) {
                snprintf(x->cerr, sizeof x->cerr, "dlopen: %s", dlerror());
                continue;
            }
            if (*n_handles < RB_MAX_DEFS) handles[(*n_handles)++] = h;
        } else
            h = handles[0];
        if (!h) {
            snprintf(x->cerr, sizeof x->cerr, "%s", S->c_err);
            continue;
        }
        snprintf(sym, sizeof sym, "%s_call", x->d.name);
        x->cfn = (rb_cfn)(uintptr_t)dlsym(h, sym);
        if (!x->cfn) snprintf(x->cerr, sizeof x->cerr, "dlsym %s: not found", sym);
        if (!S->set_threads) S->set_threads = (void (*)(int))(uintptr_t)dlsym(h, "omp_set_num_threads");
        S->have_c = 1;
    }
    free(cmd);
}

/* Removes dir and the files this run put there. */
static void rb_rmdir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[700];
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
    }
    closedir(d);
    rmdir(dir);
}

/* ==== Report =============================================================== */

static double rb_ratio(const rrun *x, int t) { /* C time / tc time, 0 when not both */
    const row *a = &x->r[0][t], *c = &x->r[1][t];
    if (x->status != ROW_OK || a->status != ROW_OK || c->status != ROW_OK || a->t.med <= 0)
        return 0.0;
    return c->t.med / a->t.med;
}

static void rb_print_header(const bench *b) {
    int t;
    printf("%-14s %-12s %-30s", "def", "kind", "sizes");
    for (t = 0; t < b->o.n_threads; t++) {
        char a[16], c[16], x[16];
        snprintf(a, sizeof a, "tc_%dT", b->o.threads[t]);
        snprintf(c, sizeof c, "c_%dT", b->o.threads[t]);
        snprintf(x, sizeof x, "x_%dT", b->o.threads[t]);
        printf(" %8s %8s %7s", a, c, x);
    }
    printf(" %-8s %7s\n", "check", "err/tol");
}

static const char *rb_status_word(int s) {
    return s == ROW_OK ? "ok" : s == ROW_MISMATCH ? "MISMATCH" : "ERROR";
}

static void rb_print_row(const bench *b, const rrun *x) {
    char sizes[160];
    int t;
    rb_sizes(&x->d, sizes, sizeof sizes);
    printf("%-14s %-12s %-30s", x->d.name, x->d.kind, sizes);
    for (t = 0; t < b->o.n_threads; t++) {
        const double q = rb_ratio(x, t);
        char a[24] = "-", c[24] = "-", r[24] = "-";
        if (x->r[0][t].status != ROW_ERROR) snprintf(a, sizeof a, "%.3f", x->r[0][t].t.med * 1e3);
        if (x->r[1][t].status != ROW_ERROR)
            snprintf(c, sizeof c, "%.3f%s", x->r[1][t].t.med * 1e3,
                     b->o.threads[t] > 1 && !x->c_threaded ? "s" : "");
        if (q > 0) snprintf(r, sizeof r, "%.2fx", q);
        printf(" %8s %8s %7s", a, c, r);
    }
    printf(" %-8s %7.2f", rb_status_word(x->status), x->worst);
    if (x->note[0]) printf("  %s", x->note);
    printf("\n");
    fflush(stdout);
}

static void rb_print_csv(const bench *b, const rrun *x) {
    char sizes[160];
    int t, f;
    rb_sizes(&x->d, sizes, sizeof sizes);
    for (f = 0; f < 2; f++)
        for (t = 0; t < b->o.n_threads; t++) {
            const row *r = &x->r[f][t];
            if (r->status == ROW_ERROR) {
                printf("%s,%s,%s,%s.%s,%d,,,,0,,,MISMATCH\n", f ? "c" : "tc", x->d.name, sizes,
                       rb_family_name[x->d.fam], x->d.kind, b->o.threads[t]);
                continue;
            }
            printf("%s,%s,%s,%s.%s,%d,%.4f,%.4f,%.4f,%d,,,%s\n", f ? "c" : "tc", x->d.name, sizes,
                   rb_family_name[x->d.fam], x->d.kind, b->o.threads[t], r->t.med * 1e3, r->t.min * 1e3,
                   r->t.max * 1e3, r->t.reps, x->status == ROW_OK ? "ok" : "MISMATCH");
        }
    fflush(stdout);
}

/* kind without its rank, axis or width: "f32-r2" -> "f32", "max-r3-ax1" ->
   "max", "step-3" -> "step"; "mm-i8i32" stays. */
static void rb_kind_stem(const rdef *d, char *buf, size_t cap) {
    const char *k = d->kind, *p;
    size_t len = strlen(k);
    for (p = k; *p; p++)
        if (p[0] == '-' && ((p[1] >= '0' && p[1] <= '9') || (p[1] == 'r' && p[2] >= '0' && p[2] <= '9'))) {
            len = (size_t)(p - k);
            break;
        }
    snprintf(buf, cap, "%s.%.*s", rb_family_name[d->fam], (int)len, k);
}

typedef struct rb_acc {
    int defs, ok, mismatch, error, timed;
    double logsum[MAX_THREAD_COUNTS];
} rb_acc;

/* The per-family table and the last line; returns 1 when every def checked ok. */
static int rb_summary(const rb_state *S, const rrun *runs, int n) {
    const bench *b = S->b;
    FILE *f = b->o.csv ? stderr : stdout;
    rb_acc fam[RF_COUNT + 1];
    int i, t, k, threaded = 0, worst_f = -1;
    double worst = INFINITY;
    memset(fam, 0, sizeof fam);
    for (i = 0; i < n; i++) {
        const rrun *x = &runs[i];
        int timed = 1;
        for (k = 0; k < 2; k++) {
            rb_acc *a = &fam[k ? RF_COUNT : x->d.fam];
            a->defs++;
            if (x->status == ROW_OK) a->ok++;
            else if (x->status == ROW_MISMATCH) a->mismatch++;
            else a->error++;
        }
        threaded += x->c_threaded;
        for (t = 0; t < b->o.n_threads; t++)
            if (rb_ratio(x, t) <= 0) timed = 0;
        if (!timed) continue;
        for (k = 0; k < 2; k++) {
            rb_acc *a = &fam[k ? RF_COUNT : x->d.fam];
            a->timed++;
            for (t = 0; t < b->o.n_threads; t++) a->logsum[t] += log(rb_ratio(x, t));
        }
    }
    fprintf(f, "\nC baseline: %s; OpenMP pragmas in the emitted C of %d of %d defs, "
            "omp_set_num_threads %s%s\n", S->have_c ? "built" : S->c_err, threaded, n,
            S->set_threads ? "found" : "not found",
            threaded == 0 ? ": the C ran on one thread at every thread count (c_2T marked s)" : "");
    fprintf(f, "x_T: C time / tc time at T threads (> 1: tc faster), geomean over the defs "
            "that checked ok\n\n");
    fprintf(f, "%-10s %5s %5s %8s %6s", "family", "defs", "ok", "mismatch", "error");
    for (t = 0; t < b->o.n_threads; t++) fprintf(f, "   x_%dT", b->o.threads[t]);
    fprintf(f, "\n");
    for (k = 0; k <= RF_COUNT; k++) {
        const rb_acc *a = &fam[k];
        if (a->defs == 0) continue;
        fprintf(f, "%-10s %5d %5d %8d %6d", k == RF_COUNT ? "all" : rb_family_name[k], a->defs,
                a->ok, a->mismatch, a->error);
        for (t = 0; t < b->o.n_threads; t++) {
            if (a->timed) {
                const double g = exp(a->logsum[t] / a->timed);
                fprintf(f, " %6.2fx", g);
                if (k < RF_COUNT && g < worst) {
                    worst = g;
                    worst_f = k;
                }
            } else
                fprintf(f, " %7s", "-");
        }
        fprintf(f, "\n");
    }
    { /* the same by kind, in family order */
        char seen[64][40];
        int n_seen = 0, j;
        fprintf(f, "\nby kind (timed defs, geomean x_%dT x_%dT):\n", b->o.threads[0],
                b->o.n_threads > 1 ? b->o.threads[1] : b->o.threads[0]);
        for (k = 0; k < RF_COUNT; k++)
            for (i = 0; i < n; i++) {
                char stem[40];
                int cnt = 0, dup = 0;
                double l0 = 0.0, l1 = 0.0;
                if (runs[i].d.fam != k) continue;
                rb_kind_stem(&runs[i].d, stem, sizeof stem);
                for (j = 0; j < n_seen; j++) dup |= strcmp(seen[j], stem) == 0;
                if (dup || n_seen == 64) continue;
                snprintf(seen[n_seen++], sizeof seen[0], "%s", stem);
                for (j = i; j < n; j++) {
                    char other[40];
                    rb_kind_stem(&runs[j].d, other, sizeof other);
                    if (strcmp(other, stem) != 0 || rb_ratio(&runs[j], 0) <= 0) continue;
                    cnt++;
                    l0 += log(rb_ratio(&runs[j], 0));
                    l1 += log(rb_ratio(&runs[j], b->o.n_threads > 1 ? 1 : 0));
                }
                if (cnt)
                    fprintf(f, "  %-22s %3d %6.2fx %6.2fx\n", stem, cnt, exp(l0 / cnt), exp(l1 / cnt));
            }
    }
    { /* where tc is furthest behind: the lowest x at the first thread count */
        int shown = 0, used[5] = {-1, -1, -1, -1, -1};
        fprintf(f, "\nlowest x_%dT:", b->o.threads[0]);
        for (k = 0; k < 5; k++) {
            int best = -1;
            for (i = 0; i < n; i++) {
                int taken = 0, q;
                for (q = 0; q < k; q++) taken |= used[q] == i;
                if (taken || rb_ratio(&runs[i], 0) <= 0) continue;
                if (best < 0 || rb_ratio(&runs[i], 0) < rb_ratio(&runs[best], 0)) best = i;
            }
            if (best < 0) break;
            used[k] = best;
            fprintf(f, "%s %s %.2fx", shown++ ? "," : "", runs[best].d.name, rb_ratio(&runs[best], 0));
        }
        fprintf(f, "%s (--dump shows their defs)\n\n", shown ? "" : " -");
    }
    if (fam[RF_COUNT].timed == 0 || b->o.n_threads < 2)
        fprintf(f, "random: no geomean: %d of %d defs timed against C%s%s\n", fam[RF_COUNT].timed, n,
                S->have_c ? "" : ": ", S->have_c ? "" : S->c_err);
    else
        fprintf(f, "random: geomean %.2fx over %d defs at %dT, %.2fx at %dT (worst family %s %.2fx)\n",
                exp(fam[RF_COUNT].logsum[0] / fam[RF_COUNT].timed), fam[RF_COUNT].timed,
                b->o.threads[0], exp(fam[RF_COUNT].logsum[1] / fam[RF_COUNT].timed),
                b->o.threads[1], worst_f >= 0 ? rb_family_name[worst_f] : "-", worst);
    fflush(f);
    return fam[RF_COUNT].ok == n;
}

/* ==== Driver =============================================================== */

/* The temporary directory goes on Ctrl-C, a closed pipe (| head) or a kill
   too: removed, then the signal's default action. */
static char rb_dir_live[64];
static const char *rb_def_live; /* the def being run, for a crash's message */
static void rb_on_signal(int sig) {
    if (rb_def_live && (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL)) {
        static const char pre[] = "\ntc-bench: crashed while running ";
        ssize_t w = write(2, pre, sizeof pre - 1);
        w = write(2, rb_def_live, strlen(rb_def_live));
        w = write(2, " (tc or its C)\n", 15);
        (void)w;
    }
    if (rb_dir_live[0]) rb_rmdir(rb_dir_live);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A generated def's name: r<digits>_<family> (bench.c's parse_args). */
static int rb_is_def_name(const char *s) {
    const char *p = s + 1;
    int f;
    if (s[0] != 'r' || !(*p >= '0' && *p <= '9')) return 0;
    while (*p >= '0' && *p <= '9') p++;
    if (*p++ != '_') return 0;
    for (f = 0; f < RF_COUNT; f++)
        if (strcmp(p, rb_family_name[f]) == 0) return 1;
    return 0;
}

/* Def `d` is run: named on the command line (or none named), and of a
   family --family lists (or no --family). */
static int rb_selected(const bench *b, const rdef *d) {
    int i, named = b->o.n_kernels == 0;
    for (i = 0; i < b->o.n_kernels; i++)
        if (strcmp(b->o.kernels[i], d->name) == 0) named = 1;
    return named && family_on(b, rb_family_name[d->fam]);
}

static int rb_main(bench *b) {
    int n = 0;
    rb_state S;
    rrun *runs = (rrun *)calloc((size_t)b->o.random_n, sizeof(rrun));
    void **handles = (void **)calloc(RB_MAX_DEFS + 1, sizeof(void *));
    char dir[] = "/tmp/tc-random-XXXXXX";
    int i, n_handles = 0, all_ok, have_dir = 0;
    double t0 = now_s();
    if (!runs || !handles) return 1;
    memset(&S, 0, sizeof S);
    S.b = b;
    for (i = 0; i < b->o.random_n; i++) { /* defs keep their names when selected */
        runs[n].index = i;
        rb_generate(&runs[n].d, b->o.seed, i);
        if (rb_selected(b, &runs[n].d)) n++;
    }
    if (b->o.dump) {
        for (i = 0; i < n; i++) {
            char sizes[160];
            rb_sizes(&runs[i].d, sizes, sizeof sizes);
            printf("# %s\n%s\n", sizes, runs[i].d.src);
        }
        free(runs);
        free(handles);
        return 0;
    }
    /* at most 15 rounds: short calls make up their samples in bursts
       (bench.c's burst_count), and 200 defs fit in a few minutes */
    b->o.max_rounds = 15;
    /* the C's OpenMP workers must not spin between calls (make bench does the same) */
    setenv("OMP_WAIT_POLICY", "passive", 0);
    create_pools(b);
    {
        FILE *f = b->o.csv ? stderr : stdout;
        char thr[64] = "";
        for (i = 0; i < b->o.n_threads; i++)
            snprintf(thr + strlen(thr), sizeof thr - strlen(thr), "%s%d", i ? ", " : "",
                     b->o.threads[i]);
        fprintf(f, "tc-bench --random %d --seed %llu: tc.h %s, %ld CPUs; tc_plan_run on pools of "
                "%s threads against each def's C from tc_c_emit (%s " RB_CFLAGS
                " -fopenmp), interleaved\n", b->o.random_n, (unsigned long long)b->o.seed,
                TC_VERSION_STRING, sysconf(_SC_NPROCESSORS_ONLN), thr, rb_cc());
        if (n < b->o.random_n)
            fprintf(f, "%d of the %d defs selected (by name or --family)\n", n, b->o.random_n);
        if (b->o.quick) fprintf(f, "--quick: a few calls each, rough figures\n");
        fprintf(f, "times: median ms per call; c_2T marked s: that def's C has no OpenMP pragmas "
                "(one thread)\n\n");
        fflush(f);
    }
    for (i = 0; i < n; i++)
        if (!rb_prepare(&runs[i])) {
            runs[i].ir = NULL;
            snprintf(runs[i].cerr, sizeof runs[i].cerr, "%s", runs[i].err);
        }
    if (!mkdtemp(dir)) {
        snprintf(S.c_err, sizeof S.c_err, "mkdtemp: %s", strerror(errno));
    } else {
        have_dir = 1;
        if (!b->o.keep) {
            snprintf(rb_dir_live, sizeof rb_dir_live, "%s", dir);
            signal(SIGINT, rb_on_signal);
            signal(SIGTERM, rb_on_signal);
            signal(SIGPIPE, rb_on_signal);
            signal(SIGHUP, rb_on_signal);
        }
        signal(SIGSEGV, rb_on_signal);
        signal(SIGBUS, rb_on_signal);
        signal(SIGFPE, rb_on_signal);
        signal(SIGILL, rb_on_signal);
        if (rb_emit_all(&S, runs, n, dir)) rb_build_c(&S, runs, n, dir, handles, &n_handles);
    }
    if (b->o.csv) print_csv_header();
    else rb_print_header(b);
    for (i = 0; i < n; i++) {
        rrun *x = &runs[i];
        if (!x->ir) {
            int t, k;
            for (t = 0; t < b->o.n_threads; t++)
                for (k = 0; k < 2; k++) {
                    memset(&x->r[k][t], 0, sizeof x->r[k][t]);
                    x->r[k][t].status = ROW_ERROR;
                }
            x->status = ROW_ERROR;
            snprintf(x->note, sizeof x->note, "%s", x->err);
        } else {
            rb_def_live = x->d.name;
            rb_measure(&S, x);
            rb_def_live = NULL;
        }
        if (b->o.csv) rb_print_csv(b, x);
        else rb_print_row(b, x);
        rb_free_run(x);
    }
    if (!b->o.csv) printf("(%.1f s)\n", now_s() - t0);
    all_ok = rb_summary(&S, runs, n);
    for (i = 0; i < n_handles; i++) dlclose(handles[i]);
    if (have_dir) {
        if (b->o.keep) fprintf(stderr, "tc-bench: C kept in %s\n", dir);
        else rb_rmdir(dir);
        rb_dir_live[0] = 0;
    }
    for (i = 0; i < b->o.n_threads; i++) tc_pool_free(b->pool[i]);
    free(runs);
    free(handles);
    return all_ok ? 0 : 1;
}
