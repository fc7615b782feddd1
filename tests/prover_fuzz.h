/* Randomized differential test of the size-expression simplifier and
   prover (tc__sx_bin, tc__sx_prove_le, tc__sx_prove_le_d, tc__sx_prove_eq),
   included by t_parse.c after tc.h (with TC_IMPLEMENTATION) and harness.h.

   Each case builds a random pair of expressions e1, e2 over the size
   variables N, M, K (>= 0; one to three of them) and, in some cases, a
   signed 0-rank scalar s: sums, differences, products, floor / and %
   (divisors include 0, -1 and negatives), min, max, and the shapes of the
   prover's rewrite, k * ((x + a) / c) with c | k and x - x % c. Constants
   are small; in one case of two, a fifth of them are instead among
   +-INT64_MAX, INT64_MIN, +-2^62 and the like (those cases use a smaller
   grid: overflow edges show at small sizes). The pair is built twice in
   one sema: as written (tc__sx_raw) and simplified (tc__sx_bin, as the
   compiler builds sizes). Then, at every point of a grid of small values
   plus random and large ones,
     SIMP  the simplified expression evaluates like the written one;
     LE    prove_le(a, b) = 1 means a <= b there, 0 means a > b;
     LED   prove_le_d(a, ka, b, kb) likewise for a + ka <= b + kb;
     EQ    prove_eq(a, b) = 1 means a == b there, 0 means a != b;
   the proofs on both builds. The evaluator is independent of tc.h's and
   exact: floor / and %, x / 0 = x % 0 = 0, x / -1 wraps (SEMANTICS §4); a
   point where + - * overflows is skipped for that expression (the
   compiled program fails there with an overflow error).

   Each contradicted claim is one failed check, printed in TC syntax with
   the counterexample. A passing run adds one check per kind: it saw that
   kind decide both ways (the prover is not trivially "unknown"). The
   25000 cases take 0.8 s optimized, 7 s under ASan + UBSan. */

#ifndef PF_CASES
#define PF_CASES 25000
#endif
#ifndef PF_SEED
#define PF_SEED 0x2545F4914F6CDD1DULL
#endif
#ifndef PF_BIGPCT
#define PF_BIGPCT 20
#endif

enum { PF_SIMP, PF_LE, PF_LE_RAW, PF_LED, PF_LED_RAW, PF_EQ, PF_EQ_RAW, PF_KINDS };
static const char *const pf_kind_name[PF_KINDS] = {
    "tc__sx_bin", "prove_le",   "prove_le(unsimplified)", "prove_le_d", "prove_le_d(unsimplified)",
    "prove_eq",   "prove_eq(unsimplified)"};

#define PF_MAXPTS 13400 /* the widest grid: 10^3 points times 13 values of s, and 54 more */

typedef struct pf_state {
    uint64_t rng;
    int nv, scal, bigpct; /* this case: size variables, scalar used, % of big constants */
    tc__arena arena;
    tc__ctx C;
    tc_error err;
    tc__sema S;
    int npts;
    int64_t pts[PF_MAXPTS][4]; /* N M K s */
} pf_state;

static int pf_rand(pf_state *P, int n) { /* 0 .. n-1 (xorshift64) */
    P->rng ^= P->rng << 13;
    P->rng ^= P->rng >> 7;
    P->rng ^= P->rng << 17;
    return (int)(P->rng % (uint64_t)n);
}

/* ---- random expressions, as unsimplified sx nodes ---- */

static int64_t pf_const(pf_state *P) {
    static const int64_t big[] = {INT64_MAX,        INT64_MIN,           INT64_MAX - 1,
                                  INT64_MIN + 1,    (int64_t)1 << 62,    -((int64_t)1 << 62),
                                  (int64_t)1 << 32, ((int64_t)1 << 62) + 1, INT64_MAX / 2,
                                  INT64_MAX / 3};
    int r;
    if (pf_rand(P, 100) < P->bigpct) return big[pf_rand(P, 10)];
    r = pf_rand(P, 20);
    if (r < 12) return pf_rand(P, 11) - 5;
    if (r < 17) return pf_rand(P, 7) - 3;
    return pf_rand(P, 81) - 40;
}
static int64_t pf_divisor(pf_state *P) { /* 1..5; -1 (x / -1 negates, wrapping); -2..-5; 0; any */
    int r = pf_rand(P, 20);
    if (r < 11) return 1 + pf_rand(P, 5);
    if (r < 14) return -1;
    if (r < 17) return -2 - pf_rand(P, 4);
    return r < 18 ? 0 : pf_const(P);
}
static int pf_k(pf_state *P, int64_t v) { return tc__sx_const(&P->S, v); }
static int pf_op(pf_state *P, int op, int a, int b) {
    return tc__sx_raw(&P->S, (tc_sx_op)op, a, b, 0);
}
static int pf_leaf(pf_state *P) {
    int r = pf_rand(P, 100);
    if (P->scal && r < 8) return tc__sx_raw(&P->S, TC_SX_SCALAR, 0, 0, 0);
    if (r < 58) return tc__sx_raw(&P->S, TC_SX_VAR, 0, 0, pf_rand(P, P->nv));
    return pf_k(P, pf_const(P));
}
static int pf_gen(pf_state *P, int d) {
    int r = pf_rand(P, 100), a, b;
    int64_t c, m;
    if (d <= 0 || r < 25) return pf_leaf(P);
    r = pf_rand(P, 100);
    if (r < 34 || r >= 74) { /* + - min max; the operands one after the other, */
        a = pf_gen(P, d - 1); /* as the order in which arguments are evaluated */
        b = pf_gen(P, d - 1); /* is unspecified */
        return pf_op(P, r < 22 ? TC_SX_ADD : r < 34 ? TC_SX_SUB : r < 87 ? TC_SX_MIN : TC_SX_MAX, a,
                     b);
    }
    if (r < 44) { /* by a constant on either side, or by an expression */
        a = pf_gen(P, d - 1);
        b = pf_rand(P, 3) ? pf_k(P, pf_const(P)) : pf_gen(P, d - 1);
        return pf_rand(P, 2) ? pf_op(P, TC_SX_MUL, a, b) : pf_op(P, TC_SX_MUL, b, a);
    }
    if (r < 66) { /* / or %, mostly by a constant */
        a = pf_gen(P, d - 1);
        b = pf_rand(P, 8) ? pf_k(P, pf_divisor(P)) : pf_gen(P, d - 1);
        return pf_op(P, r < 56 ? TC_SX_DIV : TC_SX_MOD, a, b);
    }
    /* the prover's rewrite: k * ((x + a) / c) with c | k, and x - x % c */
    c = pf_divisor(P);
    m = pf_rand(P, 5) - 2;
    a = pf_gen(P, d - 1);
    if (pf_rand(P, 2)) a = pf_op(P, TC_SX_ADD, a, pf_k(P, pf_const(P)));
    if (pf_rand(P, 3) == 0) return pf_op(P, TC_SX_SUB, a, pf_op(P, TC_SX_MOD, a, pf_k(P, c)));
    b = pf_op(P, TC_SX_DIV, a, pf_k(P, c));
    return pf_op(P, TC_SX_MUL, pf_k(P, (int64_t)((uint64_t)c * (uint64_t)(m ? m : 1))), b);
}
static int pf_size(const pf_state *P, int id) { /* nodes, counted as a tree */
    const tc_sx *x = &P->S.sx[id];
    return x->op < TC_SX_ADD ? 1 : 1 + pf_size(P, x->a) + pf_size(P, x->b);
}
static int pf_nth(const pf_state *P, int id, int *k) { /* node #k in preorder, -1 past the end */
    const tc_sx *x = &P->S.sx[id];
    int r;
    if ((*k)-- == 0) return id;
    if (x->op < TC_SX_ADD) return -1;
    r = pf_nth(P, x->a, k);
    return r >= 0 ? r : pf_nth(P, x->b, k);
}
static int pf_replace(pf_state *P, int id, int *k, int with) { /* id with node #k made `with` */
    tc_sx x = P->S.sx[id];
    int a;
    if ((*k)-- == 0) return with;
    if (x.op < TC_SX_ADD) return id;
    a = pf_replace(P, x.a, k, with);
    return pf_op(P, x.op, a, pf_replace(P, x.b, k, with));
}
static int pf_simplify(pf_state *P, int id) { /* rebuilt through tc__sx_bin */
    tc_sx x = P->S.sx[id];
    int a;
    if (x.op < TC_SX_ADD) return id;
    a = pf_simplify(P, x.a);
    return tc__sx_bin(&P->S, x.op, a, pf_simplify(P, x.b));
}

/* ---- TC syntax ---- */

static void pf_print(const tc__sema *S, int id, char *buf, size_t cap) {
    static const char *const ops[] = {" + ", " - ", " * ", " / ", " % "};
    const tc_sx *x = &S->sx[id];
    size_t n = strlen(buf);
    if (n + 1 >= cap) return;
    if (x->op == TC_SX_CONST)
        snprintf(buf + n, cap - n, x->value < 0 ? "(%lld)" : "%lld", (long long)x->value);
    else if (x->op == TC_SX_VAR) snprintf(buf + n, cap - n, "%c", "NMK"[x->value]);
    else if (x->op == TC_SX_SCALAR) snprintf(buf + n, cap - n, "s");
    else {
        int mm = x->op == TC_SX_MIN || x->op == TC_SX_MAX;
        snprintf(buf + n, cap - n, "%s", mm ? (x->op == TC_SX_MIN ? "min(" : "max(") : "(");
        pf_print(S, x->a, buf, cap);
        n = strlen(buf);
        snprintf(buf + n, cap - n, "%s", mm ? ", " : ops[x->op - TC_SX_ADD]);
        pf_print(S, x->b, buf, cap);
        n = strlen(buf);
        snprintf(buf + n, cap - n, ")");
    }
}
static const char *pf_str(const pf_state *P, int id, char *buf, size_t cap) {
    buf[0] = 0;
    pf_print(&P->S, id, buf, cap);
    return buf;
}

/* ---- exact evaluation, independent of tc.h's ---- */

static int64_t pf_floordiv(int64_t a, int64_t b) {
    int64_t q;
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0 - (uint64_t)a); /* INT64_MIN / -1 wraps */
    q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
static int64_t pf_floormod(int64_t a, int64_t b) {
    int64_t m;
    if (b == 0 || b == -1) return 0;
    m = a % b;
    return (m != 0 && (m < 0) != (b < 0)) ? m + b : m;
}
static void pf_mark(const tc__sema *S, int id, char *used) {
    if (used[id]) return;
    used[id] = 1;
    if (S->sx[id].op >= TC_SX_ADD) {
        pf_mark(S, S->sx[id].a, used);
        pf_mark(S, S->sx[id].b, used);
    }
}
/* The values at point v of the nodes ids[0..n), which are in increasing
   order (a node's operands come before it); ok[id] = 0 where + - *
   overflows on the way. */
static void pf_eval(const tc__sema *S, const int *ids, int n, const int64_t *v, int64_t *val,
                    char *ok) {
    int i;
    for (i = 0; i < n; i++) {
        const tc_sx *x = &S->sx[ids[i]];
        int binary = x->op >= TC_SX_ADD, o = 1;
        int64_t a = binary ? val[x->a] : 0, b = binary ? val[x->b] : 0, r = 0;
        switch (x->op) {
        case TC_SX_CONST: r = x->value; break;
        case TC_SX_VAR: r = v[x->value]; break;
        case TC_SX_SCALAR: r = v[3]; break;
        case TC_SX_ADD: o = tc__add64(a, b, &r); break;
        case TC_SX_SUB: o = tc__sub64(a, b, &r); break;
        case TC_SX_MUL: o = tc__mul64(a, b, &r); break;
        case TC_SX_DIV: r = pf_floordiv(a, b); break;
        case TC_SX_MOD: r = pf_floormod(a, b); break;
        case TC_SX_MIN: r = a < b ? a : b; break;
        case TC_SX_MAX: r = a > b ? a : b; break;
        default: o = 0;
        }
        val[ids[i]] = r;
        ok[ids[i]] = (char)(o && (!binary || (ok[x->a] && ok[x->b])));
    }
}

/* ---- the points: a grid, random small and large values, two big ones ---- */

static void pf_point(pf_state *P, int64_t n, int64_t m, int64_t k, int64_t s) {
    int64_t *p = P->pts[P->npts++];
    p[0] = n;
    p[1] = P->nv > 1 ? m : 0;
    p[2] = P->nv > 2 ? k : 0;
    p[3] = P->scal ? s : 0;
}
static void pf_points(pf_state *P, int grid) {
    static const int lim[3][3] = {{40, 14, 7}, {40, 20, 9}, {12, 5, 3}}; /* usual, wide, small */
    int hi = lim[grid][P->nv - 1], shi = P->scal ? (grid == 2 ? 3 : 6) : 0, i, j, k, q;
    P->npts = 0;
    for (q = -shi; q <= shi; q++)
        for (i = 0; i <= hi; i++)
            for (j = 0; j <= (P->nv > 1 ? hi : 0); j++)
                for (k = 0; k <= (P->nv > 2 ? hi : 0); k++) pf_point(P, i, j, k, q);
    for (i = 0; i < 52; i++) { /* up to 40, then up to 1000 */
        int64_t v[4];
        int big = i >= 40 ? 25 : 1;
        for (j = 0; j < 3; j++) v[j] = pf_rand(P, 40 * big + 1);
        v[3] = pf_rand(P, 80 * big + 1) - 40 * big;
        pf_point(P, v[0], v[1], v[2], v[3]);
    }
    pf_point(P, 1000003, 7, 999, -77777);
    pf_point(P, 123456789, 1, 0, 1);
}

/* Does the claim hold at values x, y? (le: x + ka <= y + kb, exactly) */
static int pf_holds(int kind, int claim, int64_t x, int64_t y, int64_t ka, int64_t kb) {
    int64_t d;
    int truth;
    if (kind == PF_EQ || kind == PF_EQ_RAW) truth = x == y;
    else if (kind == PF_LE || kind == PF_LE_RAW) truth = x <= y;
    else truth = tc__sub64(x, y, &d) ? d <= kb - ka : x < y; /* |x - y| > 2^63 > |kb - ka| */
    return claim == truth;
}

/* A contradicted claim (b < 0: the simplifier's, a built as sa): one failed
   check, printed with the counterexample. Returns 1. */
static int pf_report(const pf_state *P, int kind, int claim, int a, int b, int sa, int sb,
                     int64_t ka, int64_t kb, const int64_t *v, const int64_t *val) {
    char s1[1024], s2[1024], s3[1024], s4[1024], at[200], built[2100] = "";
    int claim_holds = 0;
    snprintf(at, sizeof at, "at N=%lld M=%lld K=%lld s=%lld", (long long)v[0], (long long)v[1],
             (long long)v[2], (long long)v[3]);
    if (b < 0) {
        CHECKF(claim_holds, "%s: %s built as %s; %s: %lld, built %lld", pf_kind_name[kind],
               pf_str(P, a, s1, sizeof s1), pf_str(P, sa, s2, sizeof s2), at, (long long)val[a],
               (long long)val[sa]);
        return 1;
    }
    if (sa != a || sb != b)
        snprintf(built, sizeof built, " (built: %s, %s)", pf_str(P, sa, s3, sizeof s3),
                 pf_str(P, sb, s4, sizeof s4));
    if (kind == PF_LED || kind == PF_LED_RAW)
        snprintf(at + strlen(at), sizeof at - strlen(at), ", ka = %lld, kb = %lld", (long long)ka,
                 (long long)kb);
    CHECKF(claim_holds, "%s claims %d for a = %s, b = %s%s; %s: a = %lld, b = %lld",
           pf_kind_name[kind], claim, pf_str(P, a, s1, sizeof s1), pf_str(P, b, s2, sizeof s2),
           built, at, (long long)val[sa], (long long)val[sb]);
    return 1;
}

/* One case: generate, build, claim, check every point. */
static void pf_case(pf_state *P, long *decided) {
    int raw[2], simp[2], claim[PF_KINDS], kind, i, p, failed[PF_KINDS] = {0};
    int nsx, nids = 0, *ids;
    int64_t *val;
    char *used, *okv;
    int64_t ka = pf_rand(P, 9) - 4, kb = pf_rand(P, 9) - 4;
    int grid = pf_rand(P, 32) == 0, strat, k;

    memset(&P->arena, 0, sizeof P->arena);
    memset(&P->C, 0, sizeof P->C);
    memset(&P->S, 0, sizeof P->S);
    P->C.arena = &P->arena;
    P->C.err = &P->err;
    P->C.max_depth = 1000;
    P->S.C = &P->C;
    P->nv = 1 + pf_rand(P, 3);
    P->scal = pf_rand(P, 6) == 0;
    P->bigpct = pf_rand(P, 2) ? PF_BIGPCT : 0;
    pf_points(P, P->bigpct ? 2 : grid); /* overflow edges show at small values */

    raw[0] = pf_gen(P, 1 + pf_rand(P, 4));
    k = pf_rand(P, pf_size(P, raw[0]));
    strat = pf_rand(P, 4);
    if (strat == 0) raw[1] = pf_gen(P, 1 + pf_rand(P, 4)); /* unrelated */
    else if (strat == 1) raw[1] = pf_replace(P, raw[0], &k, pf_gen(P, pf_rand(P, 3)));
    else if (strat == 2) { /* a part of e1, maybe combined with something */
        raw[1] = pf_nth(P, raw[0], &k);
        if (pf_rand(P, 2)) {
            int op = TC_SX_ADD + pf_rand(P, 7);
            int other = pf_rand(P, 2) ? pf_leaf(P) : pf_gen(P, 1);
            raw[1] = pf_op(P, op, raw[1], other);
        }
    } else raw[1] = pf_replace(P, raw[0], &k, pf_k(P, pf_const(P)));
    if (pf_rand(P, 2)) { /* either may be the smaller */
        int t = raw[0];
        raw[0] = raw[1];
        raw[1] = t;
    }
    simp[0] = pf_simplify(P, raw[0]);
    simp[1] = pf_simplify(P, raw[1]);
    if (raw[0] < 0 || raw[1] < 0 || simp[0] < 0 || simp[1] < 0) {
        int built = 0;
        CHECKF(built, "%s", P->err.msg);
        goto done;
    }

    claim[PF_SIMP] = 1;
    claim[PF_LE] = tc__sx_prove_le(&P->S, simp[0], simp[1]);
    claim[PF_LE_RAW] = tc__sx_prove_le(&P->S, raw[0], raw[1]);
    claim[PF_LED] = tc__sx_prove_le_d(&P->S, simp[0], ka, simp[1], kb, 0);
    claim[PF_LED_RAW] = tc__sx_prove_le_d(&P->S, raw[0], ka, raw[1], kb, 0);
    claim[PF_EQ] = tc__sx_prove_eq(&P->S, simp[0], simp[1]);
    claim[PF_EQ_RAW] = tc__sx_prove_eq(&P->S, raw[0], raw[1]);
    for (kind = PF_LE; kind < PF_KINDS; kind++)
        if (claim[kind] >= 0) decided[2 * kind + claim[kind]]++;
    decided[2 * PF_SIMP] += simp[0] != raw[0]; /* the simplifier changed something */
    decided[2 * PF_SIMP + 1] += simp[0] == raw[0];

    /* the nodes to evaluate: the four roots and what they use */
    nsx = P->S.n_sx;
    val = (int64_t *)tc__alloc_n(&P->C, (size_t)nsx, sizeof(int64_t) + sizeof(int) + 2);
    if (!val) goto done;
    ids = (int *)(val + nsx);
    used = (char *)(ids + nsx);
    okv = used + nsx;
    memset(used, 0, (size_t)nsx);
    for (i = 0; i < 2; i++) {
        pf_mark(&P->S, raw[i], used);
        pf_mark(&P->S, simp[i], used);
    }
    for (i = 0; i < nsx; i++)
        if (used[i]) ids[nids++] = i;

    for (p = 0; p < P->npts; p++) {
        pf_eval(&P->S, ids, nids, P->pts[p], val, okv);
        for (kind = 0; kind < PF_KINDS; kind++) {
            int unsimplified = kind == PF_LE_RAW || kind == PF_LED_RAW || kind == PF_EQ_RAW;
            const int *e = unsimplified ? raw : simp;
            if (failed[kind] || claim[kind] < 0) continue;
            if (kind == PF_SIMP) { /* e1, then e2: as written and as built */
                for (i = 0; i < 2 && !failed[kind]; i++)
                    if (okv[raw[i]] && okv[simp[i]] && val[raw[i]] != val[simp[i]])
                        failed[kind] =
                            pf_report(P, kind, 1, raw[i], -1, simp[i], -1, 0, 0, P->pts[p], val);
            } else if (okv[e[0]] && okv[e[1]] &&
                       !pf_holds(kind, claim[kind], val[e[0]], val[e[1]], ka, kb))
                failed[kind] = pf_report(P, kind, claim[kind], raw[0], raw[1], e[0], e[1], ka, kb,
                                         P->pts[p], val);
        }
    }
done:
    tc__arena_free_all(&P->arena);
}

static void prover_fuzz(void) {
    static pf_state P; /* ~430 KB of points: not on the stack */
    long decided[2 * PF_KINDS] = {0}, n; /* per kind: claims 0 / 1 (simplifier: changed / not) */
    int kind;
    P.rng = PF_SEED; /* fixed: the same cases every run */
    for (n = 0; n < PF_CASES; n++) pf_case(&P, decided);
    for (kind = 0; kind < PF_KINDS; kind++) /* the simplifier rewrote, each proof went both ways */
        CHECKF(decided[2 * kind] > 0 && decided[2 * kind + 1] > 0, "%s: %ld / %ld",
               pf_kind_name[kind], decided[2 * kind], decided[2 * kind + 1]);
}
