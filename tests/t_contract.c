/* The contraction engine ([tc:contract]): matching, and runs against a
   naive double-accumulated reference computed straight from the IR, for
   matmul shapes, transposes, bmm, mv, dot, tensordot, conv2d (plain and
   strided), offsets, `+=` into existing data, input strides, and bitwise
   identity across task splits. Which micro-kernel runs depends on the
   build flags (AVX-512, AVX2+FMA or portable C). */
#define TC_IMPLEMENTATION
#include "tc.h"
#include "harness.h"

#include <pthread.h>
#include <stdint.h>

/* ---- Fixture: a compiled def, bound sizes, tensors ----------------------- */

typedef struct ct_fix {
    tc_program *prog;
    const tc_ir_def *d;
    int stmt;
    tc__arena arena;
    tc__contract *plan;
    int64_t sx[512];
    int64_t strides[3][TC_MAX_RANK];
    float *data[3]; /* first read, second read, written tensor */
    size_t span[3]; /* elements allocated */
} ct_fix;

static uint64_t ct_rng = 88172645463325252ull;
static float ct_rand(void) { /* uniform [-1, 1) */
    ct_rng ^= ct_rng << 13;
    ct_rng ^= ct_rng >> 7;
    ct_rng ^= ct_rng << 17;
    return (float)((double)(ct_rng >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

/* Compiles src and binds "NAME=value,..." sizes; 1 on success. */
static int ct_compile(ct_fix *f, const char *src, int stmt, const char *sizes) {
    tc_compile_desc cd;
    tc_error e;
    int64_t vars[64];
    int i;
    memset(f, 0, sizeof *f);
    memset(&cd, 0, sizeof cd);
    cd.source = src;
    if (tc_compile(&cd, &f->prog, &e) != TC_OK) {
        fprintf(stderr, "compile failed: %s\n", e.msg);
        return 0;
    }
    f->d = tc_program_ir(f->prog, tc_program_find(f->prog, NULL));
    f->stmt = stmt;
    for (i = 0; i < f->d->n_sizevars; i++) {
        const char *p = strstr(sizes, f->d->sizevars[i]);
        size_t n = strlen(f->d->sizevars[i]);
        while (p && !((p == sizes || p[-1] == ',') && p[n] == '='))
            p = strstr(p + 1, f->d->sizevars[i]);
        vars[i] = p ? atoll(p + n + 1) : 1;
    }
    if (tc_sx_eval(f->d, vars, NULL, f->sx, &e) != TC_OK) return 0;
    return 1;
}

/* Matches the statement; 1 when the engine took it. */
static int ct_match(ct_fix *f) {
    tc__ctx C;
    tc_error e;
    memset(&C, 0, sizeof C);
    C.arena = &f->arena;
    C.err = &e;
    return tc__contract_match(&C, f->d, f->stmt, &f->plan);
}

/* Allocates and fills the tensors: C order unless `transpose_first`, which
   lays the first read out column-major (reversed dims) through strides. */
static void ct_alloc(ct_fix *f, int transpose_first) {
    int r, d;
    for (r = 0; r < 3; r++) {
        const tc_ir_tensor *t = &f->d->tensors[f->plan->tensor[r]];
        int64_t s = 1;
        size_t i;
        if (r == 0 && transpose_first)
            for (d = 0; d < t->rank; d++) {
                f->strides[r][d] = s;
                s *= f->sx[t->extent[d]];
            }
        else
            for (d = t->rank - 1; d >= 0; d--) {
                f->strides[r][d] = s;
                s *= f->sx[t->extent[d]];
            }
        f->span[r] = (size_t)s;
        f->data[r] = (float *)malloc(f->span[r] * sizeof(float) + 4);
        for (i = 0; i < f->span[r]; i++) f->data[r][i] = ct_rand();
    }
}

static void ct_free(ct_fix *f) {
    int r;
    for (r = 0; r < 3; r++) free(f->data[r]);
    tc__arena_free_all(&f->arena);
    tc_program_free(f->prog);
}

/* Element offset of a read of operand r (0, 1) at loop values idx. */
static int64_t ct_read_off(const ct_fix *f, int r, const int64_t *idx) {
    const tc_ir_tensor *t = &f->d->tensors[f->plan->tensor[r]];
    const tc_ir_index *ix = f->plan->index[r];
    int64_t off = 0;
    int d, l;
    for (d = 0; d < t->rank; d++) {
        int64_t v = f->sx[ix[d].offset];
        for (l = 0; l < f->plan->st->n_loops; l++) v += ix[d].coef[l] * idx[l];
        off += v * f->strides[r][d];
    }
    return off;
}

/* Naive reference over the IR's loops: ref = init + sum and the sum of
   |terms| (for the tolerance), both in double, per element of T. */
static void ct_reference(const ct_fix *f, const float *init, double *ref, double *mag) {
    const tc_ir_stmt *st = f->plan->st;
    int64_t idx[64];
    int l, n = st->n_loops, rank = f->plan->rank[2];
    size_t i;
    for (i = 0; i < f->span[2]; i++) {
        ref[i] = init ? (double)init[i] : 0.0;
        mag[i] = fabs(ref[i]);
    }
    for (l = 0; l < n; l++) {
        idx[l] = f->sx[st->loops[l].lo];
        if (idx[l] >= f->sx[st->loops[l].hi]) return;
    }
    for (;;) {
        int64_t to = 0;
        double p =
            (double)f->data[0][ct_read_off(f, 0, idx)] * (double)f->data[1][ct_read_off(f, 1, idx)];
        for (l = 0; l < rank; l++) to += idx[l] * f->strides[2][l];
        ref[to] += p;
        mag[to] += fabs(p);
        for (l = n - 1; l >= 0; l--) {
            if (++idx[l] < f->sx[st->loops[l].hi]) break;
            idx[l] = f->sx[st->loops[l].lo];
        }
        if (l < 0) return;
    }
}

/* Task orders for ct_run. CT_KEPT and CT_KEPT_MIXED: one task a call with
   the panels kept between calls where the engine allows it (in order, and
   in an order that hops between groups); CT_SHARED and CT_SHARED_THREADS:
   shared panels (tc__contract_share), the items in claim order on this
   thread, then claimed by three threads at once; else as CT_ALL. */
enum { CT_ALL, CT_ONE_BY_ONE, CT_REVERSED, CT_CHUNKS, CT_KEPT, CT_KEPT_MIXED, CT_SHARED,
       CT_SHARED_THREADS };

/* Threads claiming the items of a shared shape, as the VM's pool does. */
typedef struct ct_claim {
    const tc__contract_shape *sh;
    const tc__contract_args *a;
    void *region;
    int64_t next;
} ct_claim;

static void *ct_claimer(void *arg) {
    ct_claim *c = (ct_claim *)arg;
    void *scratch = malloc(tc__contract_scratch_size(c->sh) + 1);
    int64_t cur = -1, item;
    while ((item = __atomic_fetch_add(&c->next, 1, __ATOMIC_ACQ_REL)) < c->sh->items)
        tc__contract_run_item(c->sh, c->a, item, c->region, scratch, &cur);
    free(scratch);
    return NULL;
}

/* Runs a shared shape's items: in order here, or on three threads. */
static void ct_run_shared(const tc__contract_shape *sh, const tc__contract_args *a, int threads) {
    ct_claim c;
    pthread_t th[3];
    int i, started = 0;
    c.sh = sh;
    c.a = a;
    c.region = malloc(tc__contract_shared_size(sh));
    c.next = 0;
    tc__contract_share_reset(sh, c.region);
    if (threads)
        for (i = 0; i < 3; i++) started += pthread_create(&th[started], NULL, ct_claimer, &c) == 0;
    ct_claimer(&c); /* this thread claims too (all of them if none started) */
    for (i = 0; i < started; i++) pthread_join(th[i], NULL);
    free(c.region);
}

/* A step coprime to n (the tasks visited as t * step % n). */
static int64_t ct_coprime_step(int64_t n) {
    int64_t p = n > 2 ? 2 : 1, a, b, r;
    for (;; p++) {
        for (a = n, b = p; b; r = a % b, a = b, b = r) {}
        if (a == 1) return p;
    }
}

/* Runs the engine over T (already holding its initial data). */
static int ct_run(ct_fix *f, int assign, int order, tc__contract_shape *sh) {
    tc__contract_args a;
    void *scratch;
    int64_t t, n;
    int kept_order;
    if (!tc__contract_prepare(f->plan, f->sx, f->strides[0], f->strides[1], f->strides[2], assign,
                              sh))
        return 0;
    kept_order = (order == CT_KEPT || order == CT_KEPT_MIXED) && tc__contract_keep(sh);
    if (order >= CT_SHARED && tc__contract_share(sh, 1 << 20)) { /* before sizing the scratch */
        a.in0 = f->data[0];
        a.in1 = f->data[1];
        a.out = f->data[2];
        ct_run_shared(sh, &a, order == CT_SHARED_THREADS);
        return 1;
    }
    n = tc__contract_tasks(sh);
    scratch = malloc(tc__contract_scratch_size(sh) + 1);
    a.in0 = f->data[0];
    a.in1 = f->data[1];
    a.out = f->data[2];
    if (order == CT_ONE_BY_ONE) {
        for (t = 0; t < n; t++) tc__contract_run_tasks(sh, &a, t, t + 1, scratch, NULL);
    } else if (order == CT_REVERSED) {
        for (t = n - 1; t >= 0; t--) tc__contract_run_tasks(sh, &a, t, t + 1, scratch, NULL);
    } else if (order == CT_CHUNKS) {
        for (t = 0; t < n; t += 3) tc__contract_run_tasks(sh, &a, t, t + 3, scratch, NULL);
    } else if (kept_order) {
        int64_t kept = -1, step = order == CT_KEPT_MIXED ? ct_coprime_step(n) : 1;
        for (t = 0; t < n; t++)
            tc__contract_run_tasks(sh, &a, t * step % n, t * step % n + 1, scratch, &kept);
    } else {
        tc__contract_run_tasks(sh, &a, 0, n, scratch, NULL);
    }
    free(scratch);
    return 1;
}

/* Compares T with the reference; returns the number of bad elements. */
static int ct_compare(const ct_fix *f, const double *ref, const double *mag, const char *what) {
    size_t i;
    int bad = 0;
    for (i = 0; i < f->span[2]; i++) {
        double got = (double)f->data[2][i];
        if (!(fabs(got - ref[i]) <= 1e-5 * mag[i] + 1e-30)) {
            if (bad < 3)
                fprintf(stderr, "  %s: T[%lu] = %.9g, want %.9g (mag %.3g)\n", what,
                        (unsigned long)i, got, ref[i], mag[i]);
            bad++;
        }
    }
    return bad;
}

/* Checks one statement end to end: match, run every task order against
   the reference and against each other bitwise. accumulate: T starts with
   random data and the engine adds (`+=`); else T starts at 0 and the
   engine assigns (a `+=!` covering T), also checked against zero-fill +
   accumulate. Returns the shape of the last order's run through *out if
   given. */
static void ct_check(const char *src, int stmt, const char *sizes, int accumulate,
                     int transpose_first, tc__contract_shape *out) {
    ct_fix f;
    tc__contract_shape sh;
    double *ref, *mag;
    float *init, *first;
    int order, bad;
    size_t bytes;
    if (!ct_compile(&f, src, stmt, sizes)) {
        CHECKF(0, "compile %s", src);
        return;
    }
    if (!ct_match(&f)) {
        CHECKF(0, "no match: %s", src);
        ct_free(&f);
        return;
    }
    ct_alloc(&f, transpose_first);
    bytes = f.span[2] * sizeof(float);
    ref = (double *)malloc(f.span[2] * sizeof(double) + 8);
    mag = (double *)malloc(f.span[2] * sizeof(double) + 8);
    init = (float *)malloc(bytes + 4);
    first = (float *)malloc(bytes + 4);
    if (!accumulate) memset(f.data[2], 0, bytes);
    memcpy(init, f.data[2], bytes);
    ct_reference(&f, init, ref, mag);
    for (order = CT_ALL; order <= CT_SHARED_THREADS; order++) {
        memcpy(f.data[2], init, bytes);
        CHECK(ct_run(&f, !accumulate, order, &sh));
        bad = ct_compare(&f, ref, mag, sizes);
        CHECKF(bad == 0, "%s [%s] order %d: %d wrong elements", src, sizes, order, bad);
        if (order == CT_ALL)
            memcpy(first, f.data[2], bytes);
        else
            CHECKF(memcmp(first, f.data[2], bytes) == 0, "%s [%s]: order %d differs bitwise", src,
                   sizes, order);
    }
    if (out) *out = sh; /* the last order's: shared panels where the engine takes them */
    if (!accumulate) { /* assign == zero fill + accumulate, bitwise */
        memset(f.data[2], 0, bytes);
        CHECK(ct_run(&f, 0, CT_ALL, &sh));
        CHECKF(memcmp(first, f.data[2], bytes) == 0, "%s [%s]: assign differs from fill + add", src,
               sizes);
    }
    free(ref);
    free(mag);
    free(init);
    free(first);
    ct_free(&f);
}

/* ---- Tests ------------------------------------------------------------------- */

static const char *ct_mm =
    "def mm(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }";

static void test_mm_sizes(void) {
    static const int sz[] = {1, 7, 33, 100};
    static const char *const big[] = {"M=257,K=257,N=257", "M=257,K=33,N=100", "M=100,K=257,N=7",
                                      "M=1,K=257,N=257",   "M=257,K=1,N=257",  "M=600,K=5,N=9",
                                      "M=3,K=5,N=2100",    "M=2,K=600,N=40",   "M=40,K=1100,N=3"};
    char buf[64];
    int a, b, c;
    unsigned i;
    for (a = 0; a < 4; a++)
        for (b = 0; b < 4; b++)
            for (c = 0; c < 4; c++) {
                snprintf(buf, sizeof buf, "M=%d,K=%d,N=%d", sz[a], sz[b], sz[c]);
                ct_check(ct_mm, 0, buf, 0, 0, NULL);
            }
    for (i = 0; i < sizeof big / sizeof big[0]; i++) ct_check(ct_mm, 0, big[i], 0, 0, NULL);
}

static void test_mm_paths(void) {
    tc__contract_shape sh;
    ct_check(ct_mm, 0, "M=100,K=33,N=257", 0, 0, &sh);
    CHECK(!sh.gemv && !sh.swapped && sh.tasks >= 1);
    ct_check(ct_mm, 0, "M=100,K=33,N=1", 0, 0, &sh);
    CHECK(sh.gemv); /* one column: rows of A dotted with B */
    ct_check(ct_mm, 0, "M=1,K=33,N=100", 0, 0, &sh);
    CHECK(!sh.gemv && sh.row); /* one row, contiguous lanes: rows of B streamed */
    ct_check("def t(float(K) x, float(K,N,P) A) -> (C) { C(p,n) +=! x(k) * A(k,n,p) }", 0,
             "K=37,N=9,P=7", 0, 0, &sh);
    CHECK(!sh.gemv && !sh.row && sh.m.total == 1); /* lanes scattered: a one-row GEMM */
}

static void test_transposes(void) {
    ct_check("def t(float(K,M) A, float(K,N) B) -> (C) { C(i,j) +=! A(k,i) * B(k,j) }", 0,
             "M=33,K=100,N=57", 0, 0, NULL);
    ct_check("def t(float(M,K) A, float(N,K) B) -> (C) { C(i,j) +=! A(i,k) * B(j,k) }", 0,
             "M=57,K=100,N=33", 0, 0, NULL);
    ct_check("def t(float(K,M) A, float(N,K) B) -> (C) { C(i,j) +=! A(k,i) * B(j,k) }", 0,
             "M=70,K=9,N=45", 0, 0, NULL);
    /* T's lanes run along A's private loop: X and Y swap */
    {
        tc__contract_shape sh;
        ct_check("def t(float(M,K) A, float(K,N) B) -> (C) { C(j,i) +=! A(i,k) * B(k,j) }", 0,
                 "M=65,K=20,N=31", 0, 0, &sh);
        CHECK(sh.swapped && !sh.gemv);
    }
    /* input strides: A stored column-major */
    ct_check(ct_mm, 0, "M=37,K=29,N=41", 0, 1, NULL);
    ct_check(ct_mm, 0, "M=37,K=29,N=41", 1, 1, NULL);
}

static void test_batched(void) {
    const char *bmm =
        "def bmm(float(NB,M,K) A, float(NB,K,N) B) -> (C) { C(b,i,j) +=! A(b,i,k) * B(b,k,j) }";
    ct_check(bmm, 0, "NB=3,M=17,K=9,N=40", 0, 0, NULL);
    ct_check(bmm, 0, "NB=5,M=1,K=7,N=3", 0, 0, NULL);
    ct_check(bmm, 0, "NB=2,M=33,K=300,N=33", 1, 0, NULL);
    /* a batch loop used by neither read (broadcast), and one in the middle of T */
    ct_check("def bc(float(M,K) A, float(K,N) B, float(R) z) -> (C) {\n"
             "  C(i,r,j) +=! A(i,k) * B(k,j) where r in 0:R\n}",
             0, "M=9,K=5,N=20,R=3", 0, 0, NULL);
    ct_check("def bt(float(M,NB,K) A, float(NB,K,N) B) -> (C) { C(i,b,j) +=! A(i,b,k) * B(b,k,j) }",
             0, "M=9,NB=4,K=13,N=21", 0, 0, NULL);
}

static void test_gemv(void) {
    tc__contract_shape sh;
    const char *mv = "def mv(float(M,N) A, float(N) x) -> (y) { y(i) +=! A(i,j) * x(j) }";
    ct_check(mv, 0, "M=1,N=1", 0, 0, &sh);
    ct_check(mv, 0, "M=37,N=15", 0, 0, &sh);
    CHECK(sh.gemv);
    ct_check(mv, 0, "M=70,N=4100", 0, 0, &sh); /* several k chunks, a tail */
    CHECK(sh.gemv && sh.nk > 1);
    ct_check(mv, 0, "M=9,N=33", 1, 0, NULL);
    ct_check(mv, 0, "M=33,N=9", 0, 1, &sh); /* A column-major: rows of A's storage streamed */
    CHECK(!sh.gemv && sh.swapped && sh.row);
    ct_check("def g(float(M,J,L) A, float(L,J) x) -> (y) { y(i) +=! A(i,j,l) * x(l,j) }", 0,
             "M=13,J=7,L=9", 0, 0, &sh); /* x strided along K: gathered */
    CHECK(sh.gemv && sh.k.n == 2);
    ct_check("def g(float(M,N) A, float(N,P) x) -> (y) { y(i) +=! A(i,j) * x(j,1) }", 0,
             "M=13,N=70,P=3", 0, 0, &sh); /* rows straight, vector gathered */
    CHECK(sh.gemv);
    ct_check("def g(float(M,N,P) A, float(N) x) -> (y) { y(i) +=! A(i,j,2) * x(j) }", 0,
             "M=13,N=70,P=3", 0, 0, &sh); /* rows gathered, vector straight */
    CHECK(sh.gemv);
    ct_check("def vm(float(M) x, float(M,N) A) -> (y) { y(j) +=! x(i) * A(i,j) }", 0, "M=45,N=77",
             0, 0, &sh);
    CHECK(!sh.gemv && sh.row); /* A's rows run along N: streamed whole */
    ct_check("def vm(float(M) x, float(M,N) A) -> (y) { y(j) +=! x(i) * A(i,j) }", 0,
             "M=4103,N=2100", 1, 0, &sh);
    CHECK(sh.row && sh.tasks > 1 && sh.nk > 1);
    ct_check("def dot(float(N) x, float(N) y) -> (s) { s +=! x(i) * y(i) }", 0, "N=1000", 0, 0,
             &sh);
    CHECK(sh.gemv && sh.tasks == 1);
    ct_check("def bmv(float(B,M,N) A, float(B,N) x) -> (y) { y(b,i) +=! A(b,i,j) * x(b,j) }", 0,
             "B=3,M=50,N=19", 0, 0, NULL);
}

static void test_tensordot(void) {
    ct_check("def td(float(I,K1,K2) A, float(K2,K1,J,L) B) -> (C) {\n"
             "  C(i,j,l) +=! A(i,k1,k2) * B(k2,k1,j,l)\n}",
             0, "I=11,K1=5,K2=7,J=6,L=9", 0, 0, NULL);
    ct_check(
        "def td(float(I,K1,K2) A, float(K1,K2,J) B) -> (C) { C(i,j) +=! A(i,k1,k2) * B(k1,k2,j) }",
        0, "I=19,K1=8,K2=40,J=35", 0, 0, NULL);
}

static const char *ct_conv = "def conv2d(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
                             "  Out(n,o,h,w) +=! I(n,c,h+kh,w+kw) * W1(o,c,kh,kw)\n}";

static void test_conv(void) {
    tc__contract_shape sh;
    ct_check(ct_conv, 0, "N=2,C=3,H=9,W=11,O=5,KH=3,KW=2", 0, 0, &sh);
    CHECK(!sh.gemv && sh.swapped); /* lanes along w: I is Y */
    ct_check(ct_conv, 0, "N=1,C=1,H=1,W=1,O=1,KH=1,KW=1", 0, 0, NULL);
    ct_check(ct_conv, 0, "N=3,C=17,H=12,W=40,O=20,KH=3,KW=3", 0, 0, NULL);
    ct_check(ct_conv, 0, "N=1,C=30,H=7,W=7,O=3,KH=5,KW=5", 1, 0, NULL);
    ct_check("def sconv(float(N,C,H,W) I, float(O,C,KH,KW) W1) -> (Out) {\n"
             "  Out(n,o,h,w) +=! I(n,c,2*h+kh,2*w+kw) * W1(o,c,kh,kw)\n"
             "    where h in 0:(H-KH)/2+1, w in 0:(W-KW)/2+1\n}",
             0, "N=2,C=5,H=13,W=16,O=7,KH=3,KW=3", 0, 0, NULL);
}

static void test_offsets(void) {
    /* constant and symbolic offsets in the reads */
    ct_check("def o(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i+2,k) * B(k,j+1) }", 0,
             "M=40,K=9,N=35", 0, 0, NULL);
    ct_check("def o(float(M,K) A, float(K,N) B, float(P) z) -> (C) {\n"
             "  C(i,j) +=! A(i+M-P,k) * B(k,j) where i in 0:P\n}",
             0, "M=40,K=9,N=35,P=17", 0, 0, NULL);
    /* a nonzero lower bound on an output loop: T's first rows untouched */
    ct_check(
        "def lo(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) where i in 3:M }",
        0, "M=40,K=9,N=35", 1, 0, NULL);
    /* reversed index and a loop used twice in one dimension */
    ct_check("def rv(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(M-1-i,k) * B(k,j) }", 0,
             "M=21,K=30,N=19", 0, 0, NULL);
    ct_check("def dg(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,2*k) * B(k,j) where k in "
             "0:K/2 }",
             0, "M=21,K=30,N=19", 0, 0, NULL);
}

static void test_accumulate(void) {
    const char *src = "def acc(float(M,K) A, float(K,N) B, float(M,N) C0) -> (C) {\n"
                      "  C(i,j) = C0(i,j)\n"
                      "  C(i,j) += A(i,k) * B(k,j)\n}";
    ct_check(src, 1, "M=33,K=300,N=70", 1, 0, NULL);
    ct_check(src, 1, "M=7,K=1,N=1", 1, 0, NULL);
}

static void test_empty(void) {
    ct_fix f;
    tc__contract_shape sh;
    /* an empty reduction: assign writes zeros, accumulate has nothing to do */
    if (!ct_compile(&f, ct_mm, 0, "M=5,K=0,N=7") || !ct_match(&f)) {
        CHECK(0);
        return;
    }
    ct_alloc(&f, 0);
    CHECK(ct_run(&f, 1, CT_ALL, &sh) && sh.tasks > 0);
    CHECK(f.data[2][0] == 0.0f && f.data[2][34] == 0.0f);
    f.data[2][3] = 2.0f;
    CHECK(ct_run(&f, 0, CT_ALL, &sh) && sh.tasks == 0 && f.data[2][3] == 2.0f);
    ct_free(&f);
    /* an empty output domain: no tasks, no scratch */
    if (!ct_compile(&f, ct_mm, 0, "M=0,K=4,N=7") || !ct_match(&f)) {
        CHECK(0);
        return;
    }
    ct_alloc(&f, 0);
    CHECK(ct_run(&f, 1, CT_ALL, &sh) && sh.tasks == 0 && tc__contract_scratch_size(&sh) == 0);
    ct_free(&f);
}

/* Within one build every path computes an element the same way: packing
   straight or gathered, storing straight or through the tile buffer, in a
   batch or alone. Same numbers in, bitwise the same numbers out. */
static void test_paths_bitwise(void) {
    ct_fix f1, f2;
    tc__contract_shape sh;
    int64_t M = 45, K = 300, N = 70, i, k, j, b;
    int ok = 1;
    /* A C-order (copied rows) vs A column-major (gathered rows) */
    if (!ct_compile(&f1, ct_mm, 0, "M=45,K=300,N=70") || !ct_match(&f1) ||
        !ct_compile(&f2, ct_mm, 0, "M=45,K=300,N=70") || !ct_match(&f2)) {
        CHECK(0);
        return;
    }
    ct_alloc(&f1, 0);
    ct_alloc(&f2, 1);
    for (i = 0; i < M; i++)
        for (k = 0; k < K; k++) f2.data[0][k * M + i] = f1.data[0][i * K + k];
    memcpy(f2.data[1], f1.data[1], f1.span[1] * sizeof(float));
    CHECK(ct_run(&f1, 1, CT_ALL, &sh) && ct_run(&f2, 1, CT_ALL, &sh));
    CHECK(memcmp(f1.data[2], f2.data[2], f1.span[2] * sizeof(float)) == 0);
    ct_free(&f2);
    /* T(i, j) vs T(ja, i, jb) with j = ja*7 + jb: lanes scattered in T */
    if (!ct_compile(&f2,
                    "def s(float(M,K) A, float(K,JA,JB) B) -> (C) {\n"
                    "  C(ja,i,jb) +=! A(i,k) * B(k,ja,jb)\n}",
                    0, "M=45,K=300,JA=10,JB=7") ||
        !ct_match(&f2)) {
        CHECK(0);
        return;
    }
    ct_alloc(&f2, 0);
    memcpy(f2.data[0], f1.data[0], f1.span[0] * sizeof(float));
    memcpy(f2.data[1], f1.data[1], f1.span[1] * sizeof(float));
    CHECK(ct_run(&f2, 1, CT_ONE_BY_ONE, &sh));
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++)
            ok &= f1.data[2][i * N + j] == f2.data[2][(j / 7) * M * 7 + i * 7 + j % 7];
    CHECK(ok);
    ct_free(&f2);
    /* batch slices vs the single product */
    if (!ct_compile(&f2,
                    "def bmm(float(NB,M,K) A, float(NB,K,N) B) -> (C) {\n"
                    "  C(b,i,j) +=! A(b,i,k) * B(b,k,j)\n}",
                    0, "NB=3,M=45,K=300,N=70") ||
        !ct_match(&f2)) {
        CHECK(0);
        return;
    }
    ct_alloc(&f2, 0);
    for (b = 0; b < 3; b++) {
        memcpy(f2.data[0] + b * M * K, f1.data[0], f1.span[0] * sizeof(float));
        memcpy(f2.data[1] + b * K * N, f1.data[1], f1.span[1] * sizeof(float));
    }
    CHECK(ct_run(&f2, 1, CT_REVERSED, &sh));
    for (b = 0; b < 3; b++)
        CHECK(memcmp(f2.data[2] + b * M * N, f1.data[2], f1.span[2] * sizeof(float)) == 0);
    ct_free(&f2);
    ct_free(&f1);
}

/* Shared panels (every ct_check runs them, in claim order and on three
   threads): the ring wraps (5 k blocks), several groups (N blocks,
   batches), `+=` into data, a transposed X, edge tiles, gathered packing
   (conv), one M block (tasks in k order). */
static void test_shared(void) {
    tc__contract_shape sh;
    ct_check(ct_mm, 0, "M=40,K=1100,N=70", 0, 0, &sh);
    CHECK(sh.share && sh.nk == 5 && sh.items == sh.stages * (sh.pieces + sh.nm));
    ct_check(ct_mm, 0, "M=16,K=300,N=100", 1, 1, &sh);
    CHECK(sh.share && sh.nn >= 2);
    ct_check("def bmm(float(NB,M,K) A, float(NB,K,N) B) -> (C) { C(b,i,j) +=! A(b,i,k) * B(b,k,j) }",
             0, "NB=2,M=33,K=600,N=40", 0, 0, &sh);
    CHECK(sh.share && sh.batch.total == 2);
    ct_check(ct_conv, 0, "N=1,C=70,H=9,W=9,O=9,KH=3,KW=3", 1, 0, &sh);
    CHECK(sh.share && sh.swapped && sh.nk >= 3);
    ct_check(ct_mm, 0, "M=8,K=900,N=20", 0, 0, &sh);
    CHECK(sh.share && sh.nm == 1);
}

/* Statements the engine must leave to the generic VM. */
static void test_declines(void) {
    static const char *const srcs[] = {
        "def a(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) + 1.0 }",
        "def a(float(M,K) A, float(K,N) B) -> (C) { C(i,j) max=! A(i,k) * B(k,j) }",
        "def a(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) + B(k,j) }",
        "def a(int32(M,K) A, int32(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
        "def a(double(M,K) A, double(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
        "def a(half(M,K) A, half(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) }",
        "def a(float(M,K) A, float(K) B) -> (C) { C(i) +=! A(i,k) * B(i) }",
        "def a(float(M,K) A, float(K,N) B, int32(M) ix) -> (C) { C(i,j) +=! A(ix(i),k) * B(k,j) }",
        "def a(float(M,K) A, float(K,N) B) -> (C) { C(i,j) +=! A(i,k) * B(k,j) * 2.0 }",
        "def a(float(M,K) A, float(K,N) B) -> (C) { C(i,j) = A(i,0) * B(0,j) }",
        "def a(float(M) x, float(N) y) -> (C) { C(i,j) +=! x(i) * y(j) }",
        "def a(float(M) x, float(M) y) -> (C) { C(i) +=! x(i) * y(i) }",
    };
    unsigned i;
    for (i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
        ct_fix f;
        if (!ct_compile(&f, srcs[i], 0, "M=4,K=4,N=4")) {
            CHECKF(0, "compile %s", srcs[i]);
            continue;
        }
        CHECKF(!ct_match(&f), "should decline: %s", srcs[i]);
        ct_free(&f);
    }
}

int main(void) {
    RUN(test_mm_sizes);
    RUN(test_mm_paths);
    RUN(test_transposes);
    RUN(test_batched);
    RUN(test_gemv);
    RUN(test_tensordot);
    RUN(test_conv);
    RUN(test_offsets);
    RUN(test_accumulate);
    RUN(test_empty);
    RUN(test_paths_bitwise);
    RUN(test_shared);
    RUN(test_declines);
    return th_report();
}
