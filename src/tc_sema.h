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
     float16 op float16 is float16) but its nodes compute in float32.
     Literals follow SEMANTICS.md §1 and promote by §3: an integer literal
     is int32 (int64 when it does not fit), a float literal float32, so
     int8 + 1 is int32 and half * 2.0 is float32. One refinement: a float
     literal that promotes to float64 keeps its exact decimal value (0.1 is
     the double 0.1, not the float 0.1f widened), so exact double
     constants can be written. A store converts implicitly
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
   - Reads inside a ?: branch may not happen, so they bound no range and
     need no precondition. Exception: when a round resolves nothing, a
     branch read whose index uses one unresolved index variable and no
     other (`W(m, c, kh, kw)` in a guarded conv gradient, not `dO(h - kh)`)
     bounds it, as a last resort before the "cannot infer" error. When
     their bounds are not provable branch reads keep a
     general index, which the back end checks per element where the branch
     is taken (SEMANTICS.md §6: `(h >= P && h < H + P) ? I(h - P) : 0`).
   - A read whose index is not affine (a gather, i * j, a size coefficient
     like K * h) bounds no range and is checked per element: a warning.
     Exception: `X / c`, X affine and c a positive constant, bounds ranges
     as 0 <= X < c * size (upsampling B(i / 2) gives i in [0, 2N)); its
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
    const char *prefix; /* callee name while inlining: temporaries become prefix.name */
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
    int64_t div;               /* > 0: the index is (coef, off) / div, see tc__sm_quotient */
    tc_ir_index *ix;           /* the read's index entry (NULL: left-hand side) */
} tc__sm_access;
typedef struct tc__sm_readix { /* a READ node and its (writable) index entries */
    int node, rank;
    tc_ir_index *ix;
} tc__sm_readix;
typedef struct tc__sm_let {
    const tc__where *w;
    int busy; /* cycle guard */
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
    int branch[64]; /* ids of the ?: branches we are inside (0: unconditional) */
    int n_branch, next_branch;
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
   first, the constant last ("H - KH + 1", "11 - I"). */
TC__PRIVATE int tc__lin_build(tc__sema *S, tc__lin *L) {
    int i, j, acc = -1, first = -1;
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
   "unbounded" on either side. Size variables are extents: >= 0. */
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
TC__PRIVATE int64_t tc__ival_add1(int64_t a, int64_t b) { /* one side of a sum, infinities kept */
    int64_t r;
    if (a == TC__SX_INF || b == TC__SX_INF) return TC__SX_INF;
    if (a == -TC__SX_INF || b == -TC__SX_INF) return -TC__SX_INF;
    if (!tc__add64(a, b, &r) || r == -TC__SX_INF) return a > 0 ? TC__SX_INF : -TC__SX_INF;
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
    case TC_SX_ADD: return tc__ival_make(tc__ival_add1(a.lo, b.lo), tc__ival_add1(a.hi, b.hi));
    case TC_SX_SUB:
        b = tc__ival_scale(b, -1);
        return tc__ival_make(tc__ival_add1(a.lo, b.lo), tc__ival_add1(a.hi, b.hi));
    case TC_SX_MUL:
        if (a.lo < 0 || b.lo < 0) return all;
        return tc__ival_make(tc__ival_scale(a, b.lo).lo,
                             (a.hi == TC__SX_INF || b.hi == TC__SX_INF) ? TC__SX_INF
                                                                        : tc__ival_scale(a, b.hi).hi);
    case TC_SX_MIN: return tc__ival_make(a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi);
    case TC_SX_MAX: return tc__ival_make(a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
    default: return all;
    }
}

/* Bounds of a linear form. A term k * (x / c) with c > 0 dividing k is
   rewritten (k / c) * (x - x % c), x % c in [0, c - 1]: this proves
   2 * (H / 2) <= H. */
TC__PRIVATE tc__ival tc__lin_bounds(const tc__sema *S, const tc__lin *L0) {
    tc__lin L = *L0;
    tc__ival r = tc__ival_make(L.k, L.k), t;
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
            r = tc__ival_make(tc__ival_add1(r.lo, t.lo), tc__ival_add1(r.hi, t.hi));
        }
    }
    if (!L.ok) return tc__ival_make(-TC__SX_INF, TC__SX_INF);
    for (i = 0; i < L.n; i++) {
        if (L.coef[i] == 0) continue;
        t = tc__ival_scale(tc__sx_bounds(S, L.atom[i], 0), L.coef[i]);
        r = tc__ival_make(tc__ival_add1(r.lo, t.lo), tc__ival_add1(r.hi, t.hi));
    }
    return r;
}

/* a + ka <= b + kb: 1 proven, 0 disproven, -1 unknown. Linear bounds
   first, then the structure: min/max on either side, constants peeled off,
   x / c <= y / c when x <= y. */
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

TC__PRIVATE int tc__sx_fold(tc_sx_op op, int64_t a, int64_t b, int64_t *r) {
    switch (op) {
    case TC_SX_ADD: return tc__add64(a, b, r);
    case TC_SX_SUB: return tc__sub64(a, b, r);
    case TC_SX_MUL: return tc__mul64(a, b, r);
    case TC_SX_DIV: *r = tc__floordiv64(a, b); return 1;
    case TC_SX_MOD: *r = tc__floormod64(a, b); return 1;
    case TC_SX_MIN: *r = a < b ? a : b; return 1;
    case TC_SX_MAX: *r = a > b ? a : b; return 1;
    default: return 0;
    }
}

/* a / c or a % c for a constant c whose multiples make up a (exact). */
TC__PRIVATE int tc__sx_divexact(tc__sema *S, tc_sx_op op, int a, int64_t c) {
    tc__lin L;
    int i;
    if (c == 0 || c == INT64_MIN) return -2;
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
    if (op == TC_SX_ADD || op == TC_SX_SUB || (op == TC_SX_MUL && (ka || kb))) {
        tc__lin L;
        tc__lin_init(&L);
        if (op == TC_SX_MUL) tc__lin_of(S, ka ? b : a, ka ? ca : cb, &L, 0);
        else {
            tc__lin_of(S, a, 1, &L, 0);
            tc__lin_of(S, b, op == TC_SX_ADD ? 1 : -1, &L, 0);
        }
        if (L.ok) return tc__lin_build(S, &L);
    }
    if (op == TC_SX_MIN || op == TC_SX_MAX) {
        int le = tc__sx_prove_le(S, a, b), ge = le == 1 ? 0 : tc__sx_prove_le(S, b, a);
        if (le == 1) return op == TC_SX_MIN ? a : b;
        if (ge == 1 || le == 0) return op == TC_SX_MIN ? b : a;
    }
    if ((op == TC_SX_DIV || op == TC_SX_MOD) && kb) {
        int q;
        if (cb == 0) return tc__sx_const(S, 0);
        if (cb == 1 || (cb == -1 && op == TC_SX_MOD))
            return op == TC_SX_DIV ? a : tc__sx_const(S, 0);
        q = tc__sx_divexact(S, op, a, cb);
        if (q != -2) return q;
    }
    if ((op == TC_SX_MUL || op == TC_SX_MIN || op == TC_SX_MAX) && a > b) {
        int t = a;
        a = b;
        b = t;
    }
    return tc__sx_raw(S, op, a, b, 0);
}
TC__PRIVATE int tc__sx_add(tc__sema *S, int a, int b) { return tc__sx_bin(S, TC_SX_ADD, a, b); }
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
    for (i = 0; i < TC_DTYPE_COUNT; i++)
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

TC__PRIVATE tc__sm_name *tc__sm_lookup(tc__sm_env *E, const char *name) {
    int i;
    for (i = 0; i < E->n_names; i++)
        if (strcmp(E->names[i].name, name) == 0) return &E->names[i];
    return NULL;
}
TC__PRIVATE int tc__sm_bind(tc__sema *S, tc__sm_env *E, const char *name, int kind, int id) {
    tc__sm_name *n;
    if (!tc__grow(S->C, (void **)&E->names, &E->cap_names, E->n_names + 1, sizeof(tc__sm_name)))
        return 0;
    n = &E->names[E->n_names++];
    n->name = name;
    n->kind = kind;
    n->id = id;
    return 1;
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
            while (i < end && s[i] != '\n') i++;
            space = n > 0;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            space = n > 0;
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

/* A literal, possibly negated: built after the other operand so a float
   literal can see a float64 partner (tc__sm_literal). */
TC__PRIVATE int tc__sm_is_literal(const tc__expr *e) {
    if (e->kind == TC__E_UNARY && (e->op == TC__T_MINUS || e->op == TC__T_PLUS) && e->nargs == 1)
        e = e->args[0];
    return e->kind == TC__E_INT || e->kind == TC__E_FLOAT;
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

/* A constant converted to t at compile time, or -1 when the conversion is
   not exact-by-definition (float to integer stays a run-time CAST). */
TC__PRIVATE int tc__sm_fold_const(tc__sm_stmt *st, const tc_ir_node *c, tc_dtype t) {
    int64_t iv = c->ival;
    double fv = c->fval;
    tc_dtype from = c->dtype;
    if (tc__dtype_is_float(from) && !tc__dtype_is_float(t) && t != TC_BOOL) return -1;
    if (t == TC_BOOL) iv = tc__dtype_is_float(from) ? fv != 0.0 : iv != 0;
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
    return tc__sm_const(st, t, iv, fv).node;
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

TC__PRIVATE tc__sm_val tc__sm_expr(tc__sm_stmt *st, const tc__expr *e, int hint);

/* An integer or float literal, possibly negated (SEMANTICS.md §1). Its
   type never adapts to the other operand; a float literal next to a
   float64 operand is built as float64 directly so its value is exact. */
TC__PRIVATE tc__sm_val tc__sm_literal(tc__sm_stmt *st, const tc__expr *e, int hint) {
    int neg = 0;
    if (e->kind == TC__E_UNARY) {
        neg = e->op == TC__T_MINUS;
        e = e->args[0];
    }
    if (e->kind == TC__E_INT) {
        int64_t v = neg && e->ival != INT64_MIN ? -e->ival : e->ival;
        return tc__sm_const(st, tc__sm_fits(v, TC_INT32) ? TC_INT32 : TC_INT64, v, 0.0);
    }
    if (hint == (int)TC_FLOAT64) return tc__sm_const(st, TC_FLOAT64, 0, neg ? -e->fval : e->fval);
    return tc__sm_const(st, TC_FLOAT32, 0, neg ? -e->fval : e->fval);
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
TC__PRIVATE int tc__sm_sizex(tc__sm_stmt *st, const tc__expr *e, int allow_let,
                             const tc__expr **bad) {
    tc__sema *S = st->S;
    tc__sm_name *n;
    int a, b, li;
    if (S->C->failed) return -1;
    *bad = e;
    if (++st->work > TC__SM_WORK) return -2;
    switch (e->kind) {
    case TC__E_INT: return tc__sx_const(S, e->ival);
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
        if (e->op == TC__T_NOT) return -2;
        a = tc__sm_sizex(st, e->args[0], allow_let, bad);
        return a < 0 || e->op == TC__T_PLUS ? a : tc__sx_sub(S, tc__sx_const(S, 0), a);
    case TC__E_BINARY: {
        tc_sx_op op;
        switch (e->op) {
        case TC__T_PLUS: op = TC_SX_ADD; break;
        case TC__T_MINUS: op = TC_SX_SUB; break;
        case TC__T_STAR: op = TC_SX_MUL; break;
        case TC__T_SLASH: op = TC_SX_DIV; break;
        case TC__T_PERCENT: op = TC_SX_MOD; break;
        default: return -2;
        }
        a = tc__sm_sizex(st, e->args[0], allow_let, bad);
        if (a < 0) return a;
        b = tc__sm_sizex(st, e->args[1], allow_let, bad);
        return b < 0 ? b : tc__sx_bin(S, op, a, b);
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
    a->branch = st->n_branch > 0;
    a->ix = ix;
    return 1;
}

/* Index `X / c` of a read, X affine and c a positive constant (nearest-
   neighbour upsampling, B(i / 2)): 0 <= X / c < size exactly when
   0 <= X < c * size (floor division), so it bounds ranges like an affine
   access to a tensor c times larger. Its value stays a general index,
   checked per element. Returns 0 on error. */
TC__PRIVATE int tc__sm_quotient(tc__sm_stmt *st, const tc__expr *read, int t, int d,
                                tc_ir_index *ix) {
    tc__sema *S = st->S;
    const tc__expr *e = read->args[d], *bad;
    int64_t *coef, c;
    int off, rf, r;
    if (e->kind != TC__E_BINARY || e->op != TC__T_SLASH) return 1;
    rf = tc__sm_sizex(st, e->args[1], 1, &bad);
    if (rf == -1) return 0;
    if (rf < 0 || !tc__sx_isconst(S, rf, &c) || c <= 0) return 1;
    coef = (int64_t *)tc__alloc_n(S->C, (size_t)(st->n_vars ? st->n_vars : 1), sizeof(int64_t));
    off = tc__sx_const(S, 0);
    if (!coef || off < 0) return 0;
    r = tc__sm_aff(st, e->args[0], 1, coef, &off, 0);
    if (r < 0 || S->C->failed) return 0;
    if (r == 0) return 1;
    if (!tc__sm_add_access(st, t, d, 0, coef, off, read, ix)) return 0;
    st->acc[st->n_acc - 1].div = c;
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
    v = tc__sm_expr(st, e, -1);
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
    for (d = 0; d < rank; d++)
        if (!ix[d].affine && !st->in_exists && !S->inline_depth) {
            char text[128];
            tc__sm_text(S, e->span, text, sizeof text);
            tc__warn(S->C, e->span,
                     "%s: index %d is data-dependent or not affine, so it is bounds-checked per "
                     "element at run time", text, d);
            break;
        }
    id = tc__sm_node(st, TC_IR_READ, S->t[t].dtype, 0, NULL);
    if (id < 0 || !tc__grow(S->C, (void **)&st->reads, &st->cap_reads, st->n_reads + 1,
                            sizeof(tc__sm_readix)))
        return tc__sm_fail_val();
    st->nodes[id].tensor = t;
    st->nodes[id].index = ix;
    st->reads[st->n_reads].node = id;
    st->reads[st->n_reads].rank = rank;
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
    v = tc__sm_expr(st, st->lets[li].w->expr, -1);
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
    int ll = tc__sm_is_literal(l), lr = tc__sm_is_literal(r);
    if (ll && !lr) {
        *vr = tc__sm_expr(st, r, -1);
        *vl = tc__sm_expr(st, l, vr->node >= 0 ? (int)vr->type : -1);
    } else {
        *vl = tc__sm_expr(st, l, -1);
        *vr = tc__sm_expr(st, r, lr && !ll && vl->node >= 0 ? (int)vl->type : -1);
    }
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
    if (e->op == TC__T_AND || e->op == TC__T_OR) {
        int args[2];
        const char *what = e->op == TC__T_AND ? "an operand of &&" : "an operand of ||";
        a = tc__sm_expr(st, e->args[0], -1);
        if (!tc__sm_want_bool(st, a, e->args[0], what)) return tc__sm_fail_val();
        b = tc__sm_expr(st, e->args[1], -1);
        if (!tc__sm_want_bool(st, b, e->args[1], what)) return tc__sm_fail_val();
        args[0] = a.node;
        args[1] = b.node;
        return tc__sm_mkval(
            tc__sm_node(st, e->op == TC__T_AND ? TC_IR_AND : TC_IR_OR, TC_BOOL, 2, args), TC_BOOL);
    }
    for (i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].tok == e->op) {
            if (!tc__sm_pair(st, e->args[0], e->args[1], &a, &b)) return tc__sm_fail_val();
            return tc__sm_arith(st, map[i].op, a, b, map[i].compare);
        }
    tc__fail(st->S->C, TC_ERR_SYNTAX, e->span, "unexpected operator %s", tc__tok_text[e->op]);
    return tc__sm_fail_val();
}

TC__PRIVATE tc__sm_val tc__sm_unary(tc__sm_stmt *st, const tc__expr *e, int hint) {
    tc__sm_val v;
    if (tc__sm_is_literal(e)) return tc__sm_literal(st, e, hint);
    v = tc__sm_expr(st, e->args[0], -1);
    if (v.node < 0) return v;
    if (e->op == TC__T_NOT) {
        if (!tc__sm_want_bool(st, v, e->args[0], "the operand of !")) return tc__sm_fail_val();
        return tc__sm_mkval(tc__sm_node(st, TC_IR_NOT, TC_BOOL, 1, &v.node), TC_BOOL);
    }
    if (v.type == TC_BOOL) v = tc__sm_conv(st, v, TC_INT32);
    if (e->op == TC__T_PLUS) return v;
    return tc__sm_mkval(tc__sm_node(st, TC_IR_NEG, v.type, 1, &v.node), v.type);
}

/* One branch of ?: in its own branch context (lets computed inside it
   are not reused outside). */
TC__PRIVATE tc__sm_val tc__sm_branch(tc__sm_stmt *st, const tc__expr *e, int hint) {
    tc__sm_val v;
    if (st->n_branch == (int)(sizeof st->branch / sizeof st->branch[0])) {
        tc__fail(st->S->C, TC_ERR_LIMIT, e->span, "?: nested too deeply");
        return tc__sm_fail_val();
    }
    st->branch[st->n_branch++] = ++st->next_branch;
    v = tc__sm_expr(st, e, hint);
    st->n_branch--;
    return v;
}

TC__PRIVATE tc__sm_val tc__sm_ternary(tc__sm_stmt *st, const tc__expr *e) {
    tc__sm_val c = tc__sm_expr(st, e->args[0], -1), a, b;
    tc_dtype t;
    int args[3];
    if (!tc__sm_want_bool(st, c, e->args[0], "the condition of ?:")) return tc__sm_fail_val();
    if (tc__sm_is_literal(e->args[1]) && !tc__sm_is_literal(e->args[2])) {
        b = tc__sm_branch(st, e->args[2], -1);
        a = tc__sm_branch(st, e->args[1], b.node >= 0 ? (int)b.type : -1);
    } else {
        a = tc__sm_branch(st, e->args[1], -1);
        b = tc__sm_branch(st, e->args[2], tc__sm_is_literal(e->args[2]) && a.node >= 0 ? (int)a.type : -1);
    }
    if (a.node < 0 || b.node < 0) return tc__sm_fail_val();
    t = tc__sm_promote(a.type, b.type, 1);
    a = tc__sm_conv(st, a, t);
    b = tc__sm_conv(st, b, t);
    args[0] = c.node;
    args[1] = a.node;
    args[2] = b.node;
    return tc__sm_mkval(tc__sm_node(st, TC_IR_SELECT, t, 3, args), t);
}

/* A builtin: float in, float out (the widest float argument; integers
   count as float32). A float literal argument is exact in float64 calls. */
TC__PRIVATE tc__sm_val tc__sm_builtin(tc__sm_stmt *st, const tc__expr *e, int b) {
    tc__sm_val v[4];
    tc_dtype t = TC_FLOAT16;
    int i, any = 0, args[4], id;
    if (e->nargs != tc__builtins[b].arity) {
        tc__fail(st->S->C, TC_ERR_TYPE, e->span, "%s takes %d argument%s, %d given", e->name,
                 tc__builtins[b].arity, tc__builtins[b].arity == 1 ? "" : "s", e->nargs);
        return tc__sm_fail_val();
    }
    for (i = 0; i < e->nargs; i++) {
        tc_dtype a;
        if (tc__sm_is_literal(e->args[i])) continue;
        v[i] = tc__sm_expr(st, e->args[i], -1);
        if (v[i].node < 0) return v[i];
        a = tc__dtype_is_float(v[i].type) ? v[i].type : TC_FLOAT32;
        if (!any || tc__sm_fsize(a) > tc__sm_fsize(t)) t = a;
        any = 1;
    }
    if (!any) t = TC_FLOAT32;
    for (i = 0; i < e->nargs; i++) {
        if (tc__sm_is_literal(e->args[i])) v[i] = tc__sm_literal(st, e->args[i], (int)t);
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
        return tc__sm_conv(st, tc__sm_expr(st, e->args[0], (int)dt), dt);
    }
    for (i = 0; i < st->S->ast->n_defs; i++)
        if (strcmp(st->S->ast->defs[i].name, e->name) == 0 && i >= st->E->def_index) {
            tc__fail(st->S->C, TC_ERR_NAME, e->name_span,
                     "%s is defined %s: a def can only call defs defined before it", e->name,
                     i == st->E->def_index ? "by this def itself" : "later");
            return tc__sm_fail_val();
        } else if (strcmp(st->S->ast->defs[i].name, e->name) == 0) {
            tc__fail(st->S->C, TC_ERR_NAME, e->name_span,
                     "`%s` is a def: call it as a statement of its own, e.g. `out = %s(...)`",
                     e->name, e->name);
            return tc__sm_fail_val();
        }
    tc__fail(st->S->C, TC_ERR_NAME, e->name_span, "unknown tensor or function `%s`", e->name);
    return tc__sm_fail_val();
}

/* The typed node of e. hint: the other operand type a literal sees, or -1. */
TC__PRIVATE tc__sm_val tc__sm_expr(tc__sm_stmt *st, const tc__expr *e, int hint) {
    tc__sm_val v = tc__sm_fail_val();
    int id, sx;
    if (st->S->C->failed) return v;
    if (++st->depth > 4 * st->S->C->max_depth + 64) {
        tc__fail(st->S->C, TC_ERR_LIMIT, e->span, "expression nested too deeply");
        return v;
    }
    switch (e->kind) {
    case TC__E_INT: case TC__E_FLOAT: v = tc__sm_literal(st, e, hint); break;
    case TC__E_IDENT: v = tc__sm_ident(st, e); break;
    case TC__E_UNARY: v = tc__sm_unary(st, e, hint); break;
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
    if (depth > 4 * st->S->C->max_depth + 64)
        return tc__fail(st->S->C, TC_ERR_LIMIT, e->span, "expression nested too deeply");
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
    for (i = 0; i < st->n_lets; i++) st->lets[i].busy = 0;
    return 1;
}

/* A where bound: a size expression. */
TC__PRIVATE int tc__sm_where_bound(tc__sm_stmt *st, const tc__expr *e) {
    const tc__expr *bad = e;
    int sx = tc__sm_sizex(st, e, 0, &bad);
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
                    "literals, T.d, 0-rank integer inputs, + - * / %% min max") - 1;
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
        b.p = buf;
        b.cap = cap;
        b.len = 0;
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

/* No round made progress: name the unresolved variables and suggest a
   where clause. */
TC__PRIVATE int tc__range_fail(tc__sm_stmt *st) {
    char names[160], uses[160], size[64], tmp[96];
    tc__buf b;
    int v, first = -1, n = 0, i, nuse = 0;
    b.p = names;
    b.cap = sizeof names;
    b.len = 0;
    for (v = 0; v < st->n_vars; v++)
        if (!st->vars[v].resolved) {
            tc__bprintf(&b, "%s%s", n++ ? ", " : "", st->vars[v].name);
            if (first < 0) first = v;
        }
    tc__buf_done(&b);
    b.p = uses;
    b.cap = sizeof uses;
    b.len = 0;
    strcpy(size, "<size>");
    for (i = 0; i < st->n_acc; i++) {
        const tc__sm_access *a = &st->acc[i];
        if (a->coef[first] == 0 || !a->expr) continue;
        if (nuse == 0) tc__sm_sxstr(st->S, st->S->t[a->tensor].extent[a->dim], size, sizeof size);
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

/* One round: every access with a single unresolved variable proposes an
   interval; intersect per variable, resolve. Returns the number resolved.
   Reads in ?: branches count only in a fallback round (`branches`), when
   nothing else bounds a variable, and only through pure indices. */
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
        if (a->branch && v >= 0 && !tc__range_pure(st, a, v)) continue;
        if (v < 0 || a->coef[v] == INT64_MIN) continue;
        if (!tc__range_interval(st, a, v, &lo, &hi)) return -1;
        lo_c[v] = lo_c[v] < 0 ? lo : tc__sx_bin(S, TC_SX_MAX, lo_c[v], lo);
        hi_c[v] = hi_c[v] < 0 ? hi : tc__sx_bin(S, TC_SX_MIN, hi_c[v], hi);
        a->cand = v;
    }
    for (v = 0; v < st->n_vars; v++) {
        tc__sm_var *x = &st->vars[v];
        if (x->resolved || hi_c[v] < 0) continue;
        x->lo = x->lhs >= 0 ? tc__sx_bin(S, TC_SX_MAX, tc__sx_const(S, 0), lo_c[v]) : lo_c[v];
        x->hi = hi_c[v];
        x->resolved = 1;
        progress++;
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

/* A read in a ?: branch that inference did not bound: in bounds for every
   point (provably), or else read through its general index, which the back
   end checks per element when the branch is taken (SEMANTICS.md §6). */
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

TC__PRIVATE int tc__range_checks(tc__sm_stmt *st, int stmt) {
    int i;
    const tc__expr *warned = NULL;
    for (i = 0; i < st->n_acc; i++) {
        const tc__sm_access *a = &st->acc[i];
        int r;
        if (a->exists || a->div > 0 || (a->lo_ok && a->hi_ok) ||
            (a->lo_ok && a->lhs && !st->S->ti[a->tensor].sized))
            continue;
        r = a->branch ? tc__range_branch_read(st, a) : tc__range_check_access(st, a, stmt);
        if (!r) return 0;
        if (r == 2 && !st->S->inline_depth && (!a->expr || a->expr != warned)) {
            char text[128];
            tc__sm_access_text(st, a, text, sizeof text);
            tc__warn(st->S->C, a->expr ? a->expr->span : st->st->lhs_span,
                     a->branch ? "range inference does not prove %s in bounds: it is checked "
                                 "at run time, where its ?: branch is taken"
                               : "range inference does not prove %s in bounds: it is checked "
                                 "at run time",
                     text);
            warned = a->expr;
        }
    }
    return 1;
}

/* ==== [tc:lower] Statements, calls and defs to the loop-nest IR ============ */

/* "f.t", made unique among the tensors. */
TC__PRIVATE const char *tc__sm_temp_name(tc__sema *S, const char *prefix, const char *name) {
    const char *s = prefix ? tc__strfmt(S->C, "%s.%s", prefix, name) : name;
    int i, k = 1, clash = 1;
    const char *base = s;
    while (s && clash) {
        clash = 0;
        for (i = 0; i < S->n_t; i++)
            if (strcmp(S->t[i].name, s) == 0) clash = 1;
        if (clash) s = tc__strfmt(S->C, "%s.%d", base, ++k);
    }
    return s;
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
            S->t[t].extent[d] = v->hi;
            S->t[t].min[d] = v->lo;
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
            if (tc__sm_expr(st, s->where[i].expr, -1).node < 0) return tc__sm_fail_val();
            st->in_exists = 0;
            st->n_nodes = n_nodes;
            st->n_lv = n_lv;
            st->n_reads = n_reads;
        }
    return tc__lower_store(st, t, tc__sm_expr(st, s->rhs,
                                              st->S->ti[t].typed ? (int)st->S->t[t].dtype : -1));
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
            return tc__fail(S->C, TC_ERR_UNSUPPORTED, st->st->rhs->span,
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
    if (t < 0 || !tc__sm_setup_names(&st) || !tc__sm_where_ranges(&st) || !tc__lower_lhs(&st, t))
        return 0;
    v = tc__lower_rhs(&st, t);
    if (v.node < 0 || !tc__lower_lhs_access(&st, t) || !tc__range_infer(&st) ||
        !tc__range_checks(&st, S->n_stmts) || !tc__lower_self_reads(&st, t))
        return 0;
    if (!tc__lower_compact(&st, &v.node) || !tc__lower_emit(&st, t, v.node)) return 0;
    return tc__lower_define(&st, t);
}

TC__PRIVATE int tc__lower_stmts(tc__sema *S, tc__sm_env *E);
TC__PRIVATE int tc__sema_prescan(tc__sema *S, tc__sm_env *E);

/* The def a call statement names: an earlier def. */
TC__PRIVATE int tc__lower_callee(tc__sema *S, tc__sm_env *E, const tc__stmt *s) {
    int i;
    for (i = 0; i < E->def_index; i++)
        if (strcmp(S->ast->defs[i].name, s->callee) == 0) return i;
    for (i = E->def_index; i < S->ast->n_defs; i++)
        if (strcmp(S->ast->defs[i].name, s->callee) == 0)
            return tc__fail(S->C, TC_ERR_NAME, s->callee_span,
                            "%s is defined %s: a def can only call defs defined before it",
                            s->callee, i == E->def_index ? "by this def itself" : "later") - 1;
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
        snprintf(what, sizeof what, "call to %s at line %d: %s.%d is %s, but %s expects %s",
                 s->callee, s->span.line, s->args[ai], d, tc__sm_sxstr(S, have, v1, sizeof v1),
                 p->name, tc__sm_sxstr(S, want, v2, sizeof v2));
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
                            "argument %d of %s: %s is %s, but %s is %s", i + 1, s->callee,
                            s->args[i], tc_dtype_name(S->t[t].dtype), p->name,
                            tc_dtype_name(p->dtype));
        if (S->t[t].rank != p->rank)
            return tc__fail(S->C, TC_ERR_SHAPE, s->arg_spans[i],
                            "argument %d of %s: %s has %d dimension%s, but %s has %d", i + 1,
                            s->callee, s->args[i], S->t[t].rank, S->t[t].rank == 1 ? "" : "s",
                            p->name, p->rank);
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

/* After inlining: the callee's declared output dims hold for the results. */
TC__PRIVATE int tc__lower_call_decl(tc__sema *S, tc__sm_env *CE, const tc__stmt *s, const int *outs) {
    int i, d;
    for (i = 0; i < s->n_outs; i++) {
        const tc__param *p = &CE->def->outputs[i];
        int decl[TC_MAX_RANK];
        char who[128];
        if (!p->has_type || p->rank == 0) continue;
        for (d = 0; d < p->rank && d < TC_MAX_RANK; d++) {
            const tc__sm_name *n = p->dims[d]->kind == TC__E_IDENT
                                       ? tc__sm_lookup(CE, p->dims[d]->name) : NULL;
            decl[d] = n ? n->id : tc__sx_const(S, p->dims[d]->ival);
        }
        snprintf(who, sizeof who, "result %s of the call to %s at line %d", s->outs[i], s->callee,
                 s->span.line);
        if (S->t[outs[i]].rank != p->rank)
            return tc__fail(S->C, TC_ERR_SHAPE, s->out_spans[i], "%s has %d dimensions, but %s returns %d",
                            s->outs[i], S->t[outs[i]].rank, s->callee, p->rank);
        if (!tc__lower_declared(S, outs[i], decl, who)) return 0;
    }
    return 1;
}

/* outs = callee(args): the callee's statements, inlined. */
TC__PRIVATE int tc__lower_call(tc__sema *S, tc__sm_env *E, const tc__stmt *s) {
    tc__sm_env CE;
    int ci = tc__lower_callee(S, E, s), ok, outs[64];
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
    CE.prefix = E->prefix ? tc__strfmt(S->C, "%s.%s", E->prefix, f->name) : f->name;
    if (!CE.prefix || !tc__lower_call_args(S, E, &CE, s) || !tc__lower_call_outs(S, E, &CE, s, outs) ||
        !tc__sema_prescan(S, &CE))
        return 0;
    S->inline_depth++;
    ok = tc__lower_stmts(S, &CE);
    S->inline_depth--;
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
    if (e->kind == TC__E_INT) return tc__sx_const(S, e->ival);
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
    for (i = 0; i < def; i++)
        if (strcmp(ast->defs[i].name, f->name) == 0)
            return tc__fail(C, TC_ERR_NAME, f->name_span, "def %s is defined twice (first at line %d)",
                            f->name, ast->defs[i].span.line);
    if (!tc__sema_params(&S, &E, f) || !tc__sema_prescan(&S, &E) || !tc__lower_stmts(&S, &E) ||
        !tc__sema_outputs_written(&S))
        return 0;
    tc__sema_fill(&S, f, out);
    return 1;
}
