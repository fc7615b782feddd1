/* A tiny builder of hand-written loop-nest IR, so the VM can be tested
   independently of the front end: tensors, loops, expression nodes and
   affine reads written as "i+k,2*j-1" over the statement's loop names. */
#ifndef TC_TEST_HAND_IR_H
#define TC_TEST_HAND_IR_H
#include <stdarg.h>

#define HB_MAXS 8
#define HB_MAXN 64
typedef struct hb {
    tc_sx sx[128];
    int nsx;
    const char *vars[16];
    int nvars;
    tc_ir_tensor t[16];
    int nt, nin, nout;
    tc_ir_stmt st[HB_MAXS];
    int nst;
    tc_ir_loop loops[HB_MAXS][8];
    tc_ir_node nodes[HB_MAXS][HB_MAXN];
    tc_ir_index idx[HB_MAXS][HB_MAXN][TC_MAX_RANK];
    int64_t coef[HB_MAXS][HB_MAXN][TC_MAX_RANK][8];
    tc_ir_check checks[8];
    int nchk;
    tc_ir_def def;
    void *backend[1];
    tc_program prog;
} hb;

static int hb_sx(hb *h, tc_sx_op op, int a, int b, int64_t v) {
    tc_sx *s = &h->sx[h->nsx];
    s->op = op;
    s->a = a;
    s->b = b;
    s->value = v;
    return h->nsx++;
}
static int hb_const(hb *h, int64_t v) {
    int i;
    for (i = 0; i < h->nsx; i++)
        if (h->sx[i].op == TC_SX_CONST && h->sx[i].value == v) return i;
    return hb_sx(h, TC_SX_CONST, 0, 0, v);
}
static int hb_var(hb *h, const char *name) {
    int i;
    for (i = 0; i < h->nvars; i++)
        if (strcmp(h->vars[i], name) == 0)
            for (int k = 0; k < h->nsx; k++)
                if (h->sx[k].op == TC_SX_VAR && h->sx[k].value == i) return k;
    h->vars[h->nvars] = name;
    return hb_sx(h, TC_SX_VAR, 0, 0, h->nvars++);
}
/* A tensor: dims given as sx ids (-1 ends early; rank given). */
static int hb_tensor(hb *h, const char *name, tc_dtype dt, tc_tensor_kind kind, int rank, ...) {
    tc_ir_tensor *t = &h->t[h->nt];
    va_list ap;
    int d;
    t->name = name;
    t->dtype = dt;
    t->kind = kind;
    t->rank = rank;
    va_start(ap, rank);
    for (d = 0; d < rank; d++) {
        t->extent[d] = va_arg(ap, int);
        t->min[d] = hb_const(h, 0);
    }
    va_end(ap);
    if (kind == TC_TENSOR_INPUT) h->nin++;
    if (kind == TC_TENSOR_OUTPUT) h->nout++;
    return h->nt++;
}
static int hb_stmt(hb *h, int tensor, tc_reduce r, int init, const char *text) {
    tc_ir_stmt *s = &h->st[h->nst];
    s->tensor = tensor;
    s->reduce = r;
    s->init = init;
    s->text = text;
    s->line = h->nst + 1;
    s->loops = h->loops[h->nst];
    s->nodes = h->nodes[h->nst];
    return h->nst++;
}
static void hb_loop(hb *h, int s, const char *name, int lo, int hi, int red) {
    tc_ir_loop *l = &h->loops[s][h->st[s].n_loops++];
    l->name = name;
    l->lo = lo;
    l->hi = hi;
    l->reduction = red;
}
static int hb_node(hb *h, int s, tc_ir_op op, tc_dtype dt, int nargs, int a0, int a1, int a2) {
    tc_ir_node *n = &h->nodes[s][h->st[s].n_nodes];
    n->op = op;
    n->dtype = dt;
    n->nargs = nargs;
    n->args[0] = a0;
    n->args[1] = a1;
    n->args[2] = a2;
    h->st[s].value = h->st[s].n_nodes;
    return h->st[s].n_nodes++;
}
static int hb_cf(hb *h, int s, tc_dtype dt, double v) {
    int n = hb_node(h, s, TC_IR_CONST, dt, 0, 0, 0, 0);
    h->nodes[s][n].fval = v;
    h->nodes[s][n].ival = (int64_t)v;
    return n;
}
static int hb_ci(hb *h, int s, tc_dtype dt, int64_t v) {
    int n = hb_node(h, s, TC_IR_CONST, dt, 0, 0, 0, 0);
    h->nodes[s][n].ival = v;
    return n;
}
static int hb_loopnum(hb *h, int s, const char *name, size_t len) {
    int l;
    for (l = 0; l < h->st[s].n_loops; l++)
        if (strlen(h->loops[s][l].name) == len && strncmp(h->loops[s][l].name, name, len) == 0)
            return l;
    fprintf(stderr, "hb: no loop %.*s\n", (int)len, name);
    exit(2);
}
/* Reads tensor t at "i+k,2*j-1"; a dimension written "#N" is general:
   the value of node N (a gather). */
static int hb_read(hb *h, int s, int t, tc_dtype dt, const char *map) {
    int n = hb_node(h, s, TC_IR_READ, dt, 0, 0, 0, 0), d = 0;
    const char *p = map;
    tc_ir_node *nd = &h->nodes[s][n];
    nd->tensor = t;
    nd->index = h->idx[s][n];
    while (*p) {
        tc_ir_index *ix = &h->idx[s][n][d];
        int64_t off = 0;
        if (*p == '#') {
            ix->affine = 0;
            ix->node = (int)strtol(p + 1, (char **)&p, 10);
        } else {
            ix->affine = 1;
            ix->coef = h->coef[s][n][d];
            while (*p && *p != ',') {
                int64_t sign = 1, c = 1;
                if (*p == '+') p++;
                else if (*p == '-') { sign = -1; p++; }
                if (*p >= '0' && *p <= '9') {
                    c = strtoll(p, (char **)&p, 10);
                    if (*p == '*') p++;
                    else { off += sign * c; continue; }
                }
                {
                    const char *q = p;
                    while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) q++;
                    h->coef[s][n][d][hb_loopnum(h, s, p, (size_t)(q - p))] += sign * c;
                    p = q;
                }
            }
            ix->offset = hb_const(h, off);
        }
        d++;
        if (*p == ',') p++;
    }
    return n;
}
static void hb_check(hb *h, tc_check_kind k, int a, int b, int stmt, const char *what) {
    tc_ir_check *c = &h->checks[h->nchk++];
    c->kind = k;
    c->a = a;
    c->b = b;
    c->stmt = stmt;
    c->what = what;
}
/* Finishes the def and compiles it with the VM back end. */
static tc_status hb_finish(hb *h, tc_error *err) {
    tc__ctx C;
    tc_ir_def *d = &h->def;
    d->name = "hand";
    d->n_inputs = h->nin;
    d->n_outputs = h->nout;
    d->n_tensors = h->nt;
    d->tensors = h->t;
    d->n_sizevars = h->nvars;
    d->sizevars = h->vars;
    d->n_sx = h->nsx;
    d->sx = h->sx;
    d->n_stmts = h->nst;
    d->stmts = h->st;
    d->n_checks = h->nchk;
    d->checks = h->checks;
    memset(&h->prog, 0, sizeof h->prog);
    h->prog.n_defs = 1;
    h->prog.ir = d;
    h->prog.backend = h->backend;
    memset(&C, 0, sizeof C);
    memset(err, 0, sizeof *err);
    C.arena = &h->prog.arena;
    C.err = err;
    C.max_depth = TC_MAX_DEPTH;
    if (!tc__backend_def(&C, d, &h->backend[0])) return err->code ? err->code : TC_ERR_BACKEND;
    return TC_OK;
}
static void hb_free(hb *h) { tc__arena_free_all(&h->prog.arena); }

static tc_tensor hb_ten(tc_dtype dt, void *data, int rank, ...) {
    tc_tensor t;
    va_list ap;
    int d;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.rank = rank;
    t.data = data;
    va_start(ap, rank);
    for (d = 0; d < rank; d++) t.shape[d] = va_arg(ap, int);
    va_end(ap);
    return t;
}
#endif
