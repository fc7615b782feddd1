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
       tc__contract_scratch_size(&shape)           scratch bytes per thread
     per run, from any threads (disjoint ranges):
       tc__contract_run_tasks(&shape, &args, first, last, scratch)
   strides0/strides1 are the element strides of plan->tensor[0] and [1]
   (the MUL's operands in order), strides_t those of T = plan->tensor[2];
   args holds the same three tensors' data pointers. For example:

       tc__contract_prepare(c, P->sx, P->ts[c->tensor[0]], P->ts[c->tensor[1]],
                            P->ts[c->tensor[2]], assign, &sh);
       a.in0 = P->ptr[c->tensor[0]]; a.in1 = P->ptr[c->tensor[1]];
       a.out = P->ptr[c->tensor[2]];
       each thread: tc__contract_run_tasks(&sh, &a, first, last, its_scratch);

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
   k % 16) added in a fixed tree at the end. So results do not depend on
   how tasks are distributed or grouped, and within one build every path
   (full tiles, edge tiles through a buffer, copied or gathered packing,
   vector or scalar tails) performs the same operations per element. The
   order differs from the generic VM's, so results differ from it by
   rounding only.

   Grouping. Tasks are numbered batch-major, then N block, then M block:
   runs of shape.nm consecutive tasks share a packed panel of Y within one
   tc__contract_run_tasks call. A pool should hand each thread contiguous
   ranges of several tasks (e.g. split [0, tasks) into equal parts), not
   one task at a time, or every task packs its own panel.

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
    unsigned char *yrun;  /* per lane: length of Y's contiguous run from it, within its strip */
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
    size_t o[11];
    o[0] = tc__ct_carve(&at, rows * kc * sizeof(float));
    o[1] = tc__ct_carve(&at, (sh->row ? 0 : sh->gemv ? kc : nc * kc) * sizeof(float));
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

/* Packs rows [0, mcb) of the M block over the k block: slivers of MR rows,
   k-major inside a sliver (a[k*MR + r]); rows past mcb are zero. */
TC__PRIVATE void tc__ct_pack_x(const float *X, int64_t xb, const tc__ct_work *w, int64_t mcb,
                               int64_t kcb, int kunit) {
    int64_t q, k;
    int r;
    for (q = 0; q < mcb; q += TC__CT_MR) {
        float *dst = w->apack + q * kcb;
        for (r = 0; r < TC__CT_MR; r++) {
            int64_t base = q + r < mcb ? xb + w->mx[q + r] : 0;
            if (q + r >= mcb) {
                for (k = 0; k < kcb; k++) dst[k * TC__CT_MR + r] = 0.0f;
            } else if (kunit) {
                const float *src = X + (base + w->kx[0]);
                for (k = 0; k < kcb; k++) dst[k * TC__CT_MR + r] = src[k];
            } else {
                for (k = 0; k < kcb; k++) dst[k * TC__CT_MR + r] = X[base + w->kx[k]];
            }
        }
    }
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

/* Packs lanes [0, ncb) of the N block over the k block: strips of NR
   lanes, k-major inside a strip (b[k*NR + j]); lanes past ncb are zero.
   Each strip is copied as the contiguous runs of Y it spans: a matmul row
   is one run, an implicit im2col row one or two. */
TC__PRIVATE void tc__ct_pack_y(const float *Y, int64_t yb, const tc__ct_work *w, int64_t ncb,
                               int64_t kcb) {
    int64_t j0, k;
    int j;
    for (j0 = 0; j0 < ncb; j0 += TC__CT_NR) {
        float *dst = w->bpack + j0 * kcb;
        const int64_t *ny = w->ny + j0;
        const unsigned char *run = w->yrun + j0;
        int nr = ncb - j0 < TC__CT_NR ? (int)(ncb - j0) : TC__CT_NR;
        if (run[0] == TC__CT_NR) {
            for (k = 0; k < kcb; k++)
                tc__ct_copy(dst + k * TC__CT_NR, Y + (yb + w->ky[k] + ny[0]), TC__CT_NR);
            continue;
        }
        for (k = 0; k < kcb; k++) {
            float *d = dst + k * TC__CT_NR;
            int64_t base = yb + w->ky[k];
            for (j = 0; j < nr; j += run[j]) tc__ct_copy(d + j, Y + (base + ny[j]), run[j]);
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
TC__PRIVATE void tc__ct_macro(float *T, int64_t tb, const tc__ct_work *w, int64_t mcb, int64_t ncb,
                              int64_t kcb, int mode) {
    int64_t tileoff[TC__CT_MR], i0, j0;
    int r;
    for (r = 0; r < TC__CT_MR; r++) tileoff[r] = (int64_t)r * TC__CT_NR;
    for (i0 = 0; i0 < mcb; i0 += TC__CT_MR) {
        const float *a = w->apack + i0 * kcb;
        int mr = mcb - i0 < TC__CT_MR ? (int)(mcb - i0) : TC__CT_MR;
        for (j0 = 0; j0 < ncb; j0 += TC__CT_NR) {
            const float *b = w->bpack + j0 * kcb;
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
        w->yrun[end - 1] = 1;
        for (j = end - 2; j >= j0; j--)
            w->yrun[j] = (unsigned char)(w->ny[j + 1] == w->ny[j] + 1 ? w->yrun[j + 1] + 1 : 1);
    }
}

/* Tasks (b, nb, mb) for mb in [mb0, mb1): k blocks in order; the Y panel of
   each k block is packed once and shared by the group's M blocks. */
TC__PRIVATE void tc__ct_gemm_group(const tc__contract_shape *sh, const float *X, const float *Y,
                                   float *T, int64_t b, int64_t nb, int64_t mb0, int64_t mb1,
                                   const tc__ct_work *w) {
    int64_t bx, by, bt, kb, mb, n0 = nb * sh->nc, K = sh->k.total;
    int64_t ncb = sh->n.total - n0 < sh->nc ? sh->n.total - n0 : sh->nc;
    int kunit = tc__ct_class_unit(&sh->k, 0);
    tc__ct_offsets(&sh->batch, b, 1, &bx, &by, &bt);
    tc__ct_n_block(sh, n0, ncb, w);
    for (kb = 0; kb < sh->nk; kb++) {
        int64_t k0 = kb * sh->kc, kcb = K - k0 < sh->kc ? K - k0 : sh->kc;
        int mode = kb > 0 || !sh->assign ? TC__CT_ADD : TC__CT_SET;
        tc__ct_offsets(&sh->k, k0, kcb, w->kx, w->ky, NULL);
        if (kcb > 0) tc__ct_pack_y(Y, sh->y0 + by, w, ncb, kcb);
        for (mb = mb0; mb < mb1; mb++) {
            int64_t m0 = mb * sh->mc, mcb = sh->m.total - m0 < sh->mc ? sh->m.total - m0 : sh->mc;
            tc__ct_offsets(&sh->m, m0, mcb, w->mx, NULL, w->mt);
            if (kcb > 0) tc__ct_pack_x(X, sh->x0 + bx, w, mcb, kcb, kunit);
            tc__ct_macro(T, sh->t0 + bt, w, mcb, ncb, kcb, mode);
        }
    }
}

/* ---- GEMV: rows of X dotted with Y ---------------------------------------------
   Each row keeps TC__CT_GV_W partial sums: lane l sums the k with
   k % W == l in k order, one FMA each; the lanes are then added in a fixed
   tree. Rows are streamed TC__CT_GV_RG at a time so each loaded piece of
   the vector serves several rows. */

/* p[r][l] += rows[r][k] * v[k] for k of lane l in [0, n). */
TC__PRIVATE void tc__ct_dot(const float *const *rows, const float *v, int64_t n,
                            float (*p)[TC__CT_GV_W]) {
    int64_t k = 0;
    int r, l;
#if defined(__AVX512F__)
    __m512 acc[TC__CT_GV_RG];
    TC__CT_UNROLL for (r = 0; r < TC__CT_GV_RG; r++) acc[r] = _mm512_loadu_ps(p[r]);
    for (; k + 16 <= n; k += 16) {
        __m512 vv = _mm512_loadu_ps(v + k);
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
            const float *rows[TC__CT_GV_RG], *vec;
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
                                        int64_t first, int64_t last, void *scratch) {
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
            tc__ct_gemm_group(sh, X, Y, T, rest / sh->nn, rest % sh->nn, mb, mb1, &w);
        }
        first = end;
    }
}
