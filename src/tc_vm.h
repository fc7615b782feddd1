/* ==== [tc:bytecode] The VM's instruction set ===============================
   One statement compiles to a straight-line program evaluated over a block
   of up to TC_BLOCK lanes along one loop (the lane loop, chosen per run).
   Loops, accumulators and stores are driven by the schedule ([tc:sched]);
   the bytecode computes the statement's value for one block.

   Instruction: op, dt (the dtype it works in), dt2 (CAST: source dtype;
   CALL: builtin; GIDX: index dtype) and operands a..e. Operand formats, one
   letter per operand in a..e order:
     V  vector register written      v  vector register read
     U  vector register read and written (int64)
     m  mask register read (bool), or 65535: every lane
     R  read slot (a tensor access of the statement)
     K  constant slot   L  loop number   S  size expression   D  dimension
   Every vector register holds TC_BLOCK lanes of the instruction's dtype.
   Lanes whose mask is 0 touch no memory: their loaded value is 0. */
/* clang-format off */
#define TC_OPCODES(X)                                                                   \
    X(CONST,  "VK",    "V[a][l] = K[b]")                                                \
    X(INDEX,  "VL",    "V[a][l] = value of loop b at lane l (int32)")                   \
    X(SIZE,   "VS",    "V[a][l] = value of size expression b (int32)")                  \
    X(LOAD,   "VRm",   "V[a][l] = read b at lane l (affine map), lanes where M[c]")     \
    X(GOFF,   "VR",    "V[a][l] = element offset of read b's affine dims (int64)")      \
    X(GIDX,   "UvRDm", "V[a][l] += V[b][l] * stride of dim d of read c; bounds-checked") \
    X(GLOAD,  "VvRm",  "V[a][l] = element V[b][l] of read c's tensor, lanes where M[d]") \
    X(NEG,    "Vv",    "V[a][l] = -V[b][l] (ints wrap)")                               \
    X(NOT,    "Vv",    "V[a][l] = !V[b][l] (bool)")                                     \
    X(CAST,   "Vv",    "V[a][l] = V[b][l] converted from dt2 (floats saturate to ints)") \
    X(ADD,    "Vvv",   "V[a][l] = V[b][l] + V[c][l] (ints wrap)")                       \
    X(SUB,    "Vvv",   "V[a][l] = V[b][l] - V[c][l] (ints wrap)")                       \
    X(MUL,    "Vvv",   "V[a][l] = V[b][l] * V[c][l] (ints wrap)")                       \
    X(DIV,    "Vvv",   "V[a][l] = V[b][l] / V[c][l] (ints: floor, x/0 = 0)")           \
    X(MOD,    "Vvv",   "V[a][l] = V[b][l] % V[c][l] (ints: sign of divisor, x%0 = 0; floats: fmod)") \
    X(MIN,    "Vvv",   "V[a][l] = min(V[b][l], V[c][l]) (floats: NaN ignored)")         \
    X(MAX,    "Vvv",   "V[a][l] = max(V[b][l], V[c][l]) (floats: NaN ignored)")         \
    X(LT,     "Vvv",   "V[a][l] = V[b][l] < V[c][l] (bool)")                            \
    X(LE,     "Vvv",   "V[a][l] = V[b][l] <= V[c][l] (bool)")                           \
    X(GT,     "Vvv",   "V[a][l] = V[b][l] > V[c][l] (bool)")                            \
    X(GE,     "Vvv",   "V[a][l] = V[b][l] >= V[c][l] (bool)")                           \
    X(EQ,     "Vvv",   "V[a][l] = V[b][l] == V[c][l] (bool)")                           \
    X(NE,     "Vvv",   "V[a][l] = V[b][l] != V[c][l] (bool)")                           \
    X(AND,    "Vvv",   "V[a][l] = V[b][l] && V[c][l] (bool)")                           \
    X(OR,     "Vvv",   "V[a][l] = V[b][l] || V[c][l] (bool)")                           \
    X(SELECT, "Vvvv",  "V[a][l] = V[b][l] ? V[c][l] : V[d][l] (b bool)")                \
    X(CALL,   "Vvvvv", "V[a][l] = builtin dt2(V[b][l], ...) (float32/float64)")
/* clang-format on */
typedef enum tc_opcode {
#define TC__OP_ENUM(name, fmt, doc) TC_OP_##name,
    TC_OPCODES(TC__OP_ENUM)
#undef TC__OP_ENUM
    TC_OP_COUNT
} tc_opcode;

/* ==== [tc:vm-types] Compiled statements ===================================== */

static const struct {
    const char *name, *fmt, *doc;
} tc__ops[TC_OP_COUNT] = {
#define TC__OP_INFO(name, fmt, doc) {#name, fmt, doc},
    TC_OPCODES(TC__OP_INFO)
#undef TC__OP_INFO
};

#define TC__VM_NONE 65535 /* "no register": an unmasked load */
#ifndef TC__VM_PF_DIST
#define TC__VM_PF_DIST 2 /* software prefetch: blocks ahead */
#endif
#define TC__VM_MAX_REGS 65000

#if defined(__GNUC__) || defined(__clang__)
#define TC__RESTRICT __restrict__
#elif defined(_MSC_VER)
#define TC__RESTRICT __restrict
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L && !defined(__cplusplus)
#define TC__RESTRICT restrict
#else
#define TC__RESTRICT
#endif

typedef struct tc__vm_ins {
    uint8_t op, dt, dt2, pad;
    uint16_t a, b, c, d, e;
} tc__vm_ins;

/* A tensor access as compiled: one per emitted LOAD or GOFF. */
typedef struct tc__vm_read {
    int node;   /* IR node (READ) */
    int tensor;
    int gather; /* some dimension is a general index */
    int masked; /* under a `?:` branch: lanes may be off, bounds unproven */
} tc__vm_read;

/* Contraction pattern: value = READ p * READ q (float), reduction SUM,
   both reads affine: the schedule may run it with a register-blocked
   microkernel instead of the bytecode. */
typedef struct tc__vm_contract {
    int ok;
    int p, q; /* read slots */
} tc__vm_contract;

typedef struct tc__vm_stmt {
    const tc_ir_stmt *ir;
    int n_pro;        /* the first n_pro instructions run once per chunk */
    int n_ins;
    tc__vm_ins *ins;
    int n_reads;
    tc__vm_read *reads;
    int n_consts;
    uint64_t *consts; /* bit patterns in the CONST's dtype */
    int n_regs;       /* physical vector registers */
    int value;        /* register holding the value after the last instruction */
    tc_dtype vdt;     /* the value's dtype (compute dtype of the written tensor) */
    tc__vm_contract contract;
    const tc__contract *engine; /* the packed contraction engine's plan, or NULL */
    unsigned char *check;       /* per instruction: in the gather check slice (or NULL) */
} tc__vm_stmt;

typedef struct tc__vm_def {
    const tc_ir_def *ir;
    int n_stmts;
    tc__vm_stmt *stmts;
    int max_regs, max_loops;
} tc__vm_def;

TC__PRIVATE tc_dtype tc__vm_compute_dtype(tc_dtype t) { return t == TC_FLOAT16 ? TC_FLOAT32 : t; }

/* Register operands an instruction reads (at most 5); returns the count. */
TC__PRIVATE int tc__vm_sources(const tc__vm_ins *in, unsigned *src) {
    int n = 0;
    switch ((tc_opcode)in->op) {
    case TC_OP_CONST: case TC_OP_INDEX: case TC_OP_SIZE: case TC_OP_GOFF: case TC_OP_COUNT: break;
    case TC_OP_LOAD: if (in->c != TC__VM_NONE) src[n++] = in->c; break;
    case TC_OP_GIDX: src[n++] = in->a; src[n++] = in->b; if (in->e != TC__VM_NONE) src[n++] = in->e; break;
    case TC_OP_GLOAD: src[n++] = in->b; if (in->d != TC__VM_NONE) src[n++] = in->d; break;
    case TC_OP_NEG: case TC_OP_NOT: case TC_OP_CAST: src[n++] = in->b; break;
    case TC_OP_SELECT: src[n++] = in->b; src[n++] = in->c; src[n++] = in->d; break;
    case TC_OP_CALL: {
        int ar = tc_builtin_arity((tc_builtin)in->dt2);
        src[n++] = in->b;
        if (ar > 1) src[n++] = in->c;
        if (ar > 2) src[n++] = in->d;
        if (ar > 3) src[n++] = in->e;
        break;
    }
    default: src[n++] = in->b; src[n++] = in->c; break;
    }
    return n;
}

/* ==== [tc:emit] IR expression -> bytecode =================================
   A post-order walk from the statement's value, with an explicit stack (no
   recursion on user-controlled depth). `?:` evaluates its condition first,
   then each branch under a mask (parent mask AND cond, AND NOT cond) so a
   read in the unselected branch never touches memory. Only reads need the
   mask: arithmetic on masked-off lanes is harmless (no operation traps).
   Values are memoized per (node, mask); subtrees without reads are shared
   by every mask. Virtual registers are then packed by a linear scan. */

typedef struct tc__vm_memo {
    struct tc__vm_memo *next;
    int mask, reg;
} tc__vm_memo;

typedef struct tc__vm_frame {
    int node, mask, stage, slot; /* slot: where the parent wants the result */
    int got[TC_MAX_RANK + 5];     /* operand registers; SELECT: masks in 3, 4 */
} tc__vm_frame;

typedef struct tc__vm_emit {
    tc__ctx *C;
    const tc_ir_def *def;
    const tc_ir_stmt *st;
    tc__vm_ins *ins;
    int n_ins, cap_ins;
    tc__vm_read *reads;
    int n_reads, cap_reads;
    uint64_t *consts;
    int n_consts, cap_consts;
    int n_vregs;
    tc_dtype *vdt; /* dtype of each virtual register */
    int cap_vdt;
    tc__vm_memo **memo; /* per node */
    unsigned char *has_read;
    int n_pro;          /* prologue: block-invariant instructions */
    unsigned char *inv; /* per virtual register: block-invariant */
} tc__vm_emit;

TC__PRIVATE int tc__vm_fail(tc__vm_emit *E, const char *what) {
    tc__span sp = {0, 0, 0, 0};
    sp.line = E->st->line;
    return tc__fail(E->C, TC_ERR_BACKEND, sp, "VM: %s (statement `%s`)", what,
                    E->st->text ? E->st->text : "?");
}

TC__PRIVATE int tc__vm_new_reg(tc__vm_emit *E, tc_dtype t) {
    if (E->n_vregs >= TC__VM_MAX_REGS) {
        tc__span sp = {0, 0, 0, 0};
        sp.line = E->st->line;
        return tc__fail(E->C, TC_ERR_LIMIT, sp, "expression too large for the VM") - 1;
    }
    if (!tc__grow(E->C, (void **)&E->vdt, &E->cap_vdt, E->n_vregs + 1, sizeof(tc_dtype)))
        return -1;
    E->vdt[E->n_vregs] = t;
    return E->n_vregs++;
}

/* An earlier instruction computing the same value (virtual registers are
   written once, so equal operands mean equal values), or -1. Memory ops
   are never shared: each has its own read slot. */
TC__PRIVATE int tc__vm_find_same(const tc__vm_emit *E, const tc__vm_ins *in) {
    int i, lo = E->n_ins > 4096 ? E->n_ins - 4096 : 0;
    if (in->op == TC_OP_LOAD || in->op == TC_OP_GOFF || in->op == TC_OP_GIDX ||
        in->op == TC_OP_GLOAD)
        return -1;
    for (i = E->n_ins - 1; i >= lo; i--) {
        const tc__vm_ins *o = &E->ins[i];
        if (o->op == in->op && o->dt == in->dt && o->dt2 == in->dt2 && o->b == in->b &&
            o->c == in->c && o->d == in->d && o->e == in->e)
            return o->a;
    }
    return -1;
}

/* Appends an instruction; returns its virtual destination register, -1
   on failure. */
TC__PRIVATE int tc__vm_add(tc__vm_emit *E, tc_opcode op, tc_dtype dt, int dt2, int b, int c,
                           int d, int e, tc_dtype dst_dt) {
    tc__vm_ins tmp, *in;
    int dst, same;
    memset(&tmp, 0, sizeof tmp);
    tmp.op = (uint8_t)op;
    tmp.dt = (uint8_t)dt;
    tmp.dt2 = (uint8_t)dt2;
    tmp.b = (uint16_t)b;
    tmp.c = (uint16_t)c;
    tmp.d = (uint16_t)d;
    tmp.e = (uint16_t)e;
    if ((same = tc__vm_find_same(E, &tmp)) >= 0) return same;
    dst = tc__vm_new_reg(E, dst_dt);
    if (dst < 0) return -1;
    if (!tc__grow(E->C, (void **)&E->ins, &E->cap_ins, E->n_ins + 1, sizeof(tc__vm_ins)))
        return -1;
    in = &E->ins[E->n_ins++];
    *in = tmp;
    in->a = (uint16_t)dst;
    return dst;
}

TC__PRIVATE int tc__vm_add_const(tc__vm_emit *E, const tc_ir_node *nd) {
    uint64_t bits = 0;
    int k;
    switch (nd->dtype) {
    case TC_FLOAT32: {
        float f = (float)nd->fval;
        memcpy(&bits, &f, sizeof f);
        break;
    }
    case TC_FLOAT64: memcpy(&bits, &nd->fval, sizeof nd->fval); break;
    case TC_BOOL: bits = nd->ival != 0; break;
    default: { /* little or big endian: store the value in the type's width */
        int8_t i8 = (int8_t)nd->ival;
        int16_t i16 = (int16_t)nd->ival;
        int32_t i32 = (int32_t)nd->ival;
        size_t sz = tc_dtype_size(nd->dtype);
        if (sz == 1) memcpy(&bits, &i8, 1);
        else if (sz == 2) memcpy(&bits, &i16, 2);
        else if (sz == 4) memcpy(&bits, &i32, 4);
        else memcpy(&bits, &nd->ival, 8);
    }
    }
    for (k = 0; k < E->n_consts; k++)
        if (E->consts[k] == bits) return k;
    if (E->n_consts >= TC__VM_MAX_REGS) return tc__vm_fail(E, "too many constants") - 1;
    if (!tc__grow(E->C, (void **)&E->consts, &E->cap_consts, E->n_consts + 1, sizeof(uint64_t)))
        return -1;
    E->consts[E->n_consts] = bits;
    return E->n_consts++;
}

TC__PRIVATE int tc__vm_add_read(tc__vm_emit *E, int node, int mask, int gather) {
    tc__vm_read *r;
    if (E->n_reads >= TC__VM_MAX_REGS) return tc__vm_fail(E, "too many reads") - 1;
    if (!tc__grow(E->C, (void **)&E->reads, &E->cap_reads, E->n_reads + 1, sizeof(tc__vm_read)))
        return -1;
    r = &E->reads[E->n_reads];
    r->node = node;
    r->tensor = E->st->nodes[node].tensor;
    r->gather = gather;
    r->masked = mask != TC__VM_NONE;
    return E->n_reads++;
}

/* Emits a read once its general index registers are known (f->got). */
TC__PRIVATE int tc__vm_emit_read(tc__vm_emit *E, const tc__vm_frame *f) {
    const tc_ir_node *nd = &E->st->nodes[f->node];
    const tc_ir_tensor *t = &E->def->tensors[nd->tensor];
    int d, k = 0, gather = 0, slot, off;
    for (d = 0; d < t->rank; d++) gather |= !nd->index[d].affine;
    slot = tc__vm_add_read(E, f->node, f->mask, gather);
    if (slot < 0) return -1;
    if (!gather)
        return tc__vm_add(E, TC_OP_LOAD, nd->dtype, 0, slot, f->mask, 0, 0, nd->dtype);
    off = tc__vm_add(E, TC_OP_GOFF, TC_INT64, 0, slot, 0, 0, 0, TC_INT64);
    for (d = 0; d < t->rank && off >= 0; d++) {
        tc__vm_ins *in;
        int ix;
        if (nd->index[d].affine) continue;
        ix = f->got[k++];
        if (!tc__grow(E->C, (void **)&E->ins, &E->cap_ins, E->n_ins + 1, sizeof(tc__vm_ins)))
            return -1;
        in = &E->ins[E->n_ins++];
        memset(in, 0, sizeof *in);
        in->op = TC_OP_GIDX;
        in->dt = TC_INT64;
        in->dt2 = (uint8_t)E->vdt[ix];
        in->a = (uint16_t)off;
        in->b = (uint16_t)ix;
        in->c = (uint16_t)slot;
        in->d = (uint16_t)d;
        in->e = (uint16_t)f->mask;
    }
    if (off < 0) return -1;
    return tc__vm_add(E, TC_OP_GLOAD, nd->dtype, 0, off, slot, f->mask, 0, nd->dtype);
}

/* Operand node ids of n: its args, or a read's general index nodes. */
TC__PRIVATE int tc__vm_children(const tc__vm_emit *E, int node, int *out) {
    const tc_ir_node *nd = &E->st->nodes[node];
    int i, n = 0;
    if (nd->op == TC_IR_READ) {
        const tc_ir_tensor *t = &E->def->tensors[nd->tensor];
        for (i = 0; i < t->rank; i++)
            if (!nd->index[i].affine) out[n++] = nd->index[i].node;
        return n;
    }
    if (nd->op == TC_IR_CONST || nd->op == TC_IR_INDEX || nd->op == TC_IR_SIZE) return 0;
    for (i = 0; i < nd->nargs && i < 4; i++) out[n++] = nd->args[i];
    return n;
}

/* Emits the instruction of a node whose operands are in f->got. */
TC__PRIVATE int tc__vm_emit_node(tc__vm_emit *E, const tc__vm_frame *f) {
    const tc_ir_node *nd = &E->st->nodes[f->node];
    const int *g = f->got;
    tc_dtype t = nd->dtype;
    int k;
    switch (nd->op) {
    case TC_IR_CONST:
        k = tc__vm_add_const(E, nd);
        return k < 0 ? -1 : tc__vm_add(E, TC_OP_CONST, t, 0, k, 0, 0, 0, t);
    case TC_IR_INDEX: return tc__vm_add(E, TC_OP_INDEX, TC_INT32, 0, nd->loop, 0, 0, 0, TC_INT32);
    case TC_IR_SIZE: return tc__vm_add(E, TC_OP_SIZE, TC_INT32, 0, nd->sx, 0, 0, 0, TC_INT32);
    case TC_IR_READ: return tc__vm_emit_read(E, f);
    case TC_IR_NEG: return tc__vm_add(E, TC_OP_NEG, t, 0, g[0], 0, 0, 0, t);
    case TC_IR_NOT: return tc__vm_add(E, TC_OP_NOT, TC_BOOL, 0, g[0], 0, 0, 0, TC_BOOL);
    case TC_IR_CAST:
        return tc__vm_add(E, TC_OP_CAST, t, (int)E->vdt[g[0]], g[0], 0, 0, 0, t);
    case TC_IR_SELECT: return tc__vm_add(E, TC_OP_SELECT, t, 0, g[0], g[1], g[2], 0, t);
    case TC_IR_CALL:
        return tc__vm_add(E, TC_OP_CALL, t, (int)nd->builtin, g[0], nd->nargs > 1 ? g[1] : 0,
                          nd->nargs > 2 ? g[2] : 0, nd->nargs > 3 ? g[3] : 0, t);
    case TC_IR_ADD: case TC_IR_SUB: case TC_IR_MUL: case TC_IR_DIV: case TC_IR_MOD:
    case TC_IR_MIN: case TC_IR_MAX: case TC_IR_AND: case TC_IR_OR: {
        static const tc_opcode map[] = {TC_OP_ADD, TC_OP_SUB, TC_OP_MUL, TC_OP_DIV, TC_OP_MOD};
        tc_opcode op = nd->op <= TC_IR_MOD ? map[nd->op - TC_IR_ADD]
                       : nd->op == TC_IR_MIN ? TC_OP_MIN
                       : nd->op == TC_IR_MAX ? TC_OP_MAX
                       : nd->op == TC_IR_AND ? TC_OP_AND
                                             : TC_OP_OR;
        return tc__vm_add(E, op, t, 0, g[0], g[1], 0, 0, t);
    }
    case TC_IR_LT: case TC_IR_LE: case TC_IR_GT: case TC_IR_GE: case TC_IR_EQ: case TC_IR_NE:
        return tc__vm_add(E, (tc_opcode)(TC_OP_LT + (nd->op - TC_IR_LT)), E->vdt[g[0]], 0, g[0],
                          g[1], 0, 0, TC_BOOL);
    case TC_IR_OP_COUNT: break;
    }
    return tc__vm_fail(E, "unknown IR operation") - 1;
}

TC__PRIVATE int tc__vm_memo_find(const tc__vm_emit *E, int node, int mask) {
    const tc__vm_memo *m;
    for (m = E->memo[node]; m; m = m->next)
        if (m->mask == mask || m->mask == TC__VM_NONE) return m->reg;
    return -1;
}
TC__PRIVATE int tc__vm_memo_add(tc__vm_emit *E, int node, int mask, int reg) {
    tc__vm_memo *m = (tc__vm_memo *)tc__alloc(E->C, sizeof *m);
    if (!m) return 0;
    m->mask = mask;
    m->reg = reg;
    m->next = E->memo[node];
    E->memo[node] = m;
    return 1;
}

/* At a SELECT after its condition: the masks of the branches that read
   memory (parent AND cond, parent AND NOT cond). */
TC__PRIVATE int tc__vm_branch_masks(tc__vm_emit *E, const tc__vm_frame *f, int *mb, int *mc) {
    const tc_ir_node *nd = &E->st->nodes[f->node];
    int parent = f->mask, cond = f->got[0], notc;
    *mb = *mc = TC__VM_NONE;
    if (E->has_read[nd->args[1]])
        *mb = parent == TC__VM_NONE
                  ? cond
                  : tc__vm_add(E, TC_OP_AND, TC_BOOL, 0, parent, cond, 0, 0, TC_BOOL);
    if (E->has_read[nd->args[2]]) {
        notc = tc__vm_add(E, TC_OP_NOT, TC_BOOL, 0, cond, 0, 0, 0, TC_BOOL);
        *mc = parent == TC__VM_NONE || notc < 0
                  ? notc
                  : tc__vm_add(E, TC_OP_AND, TC_BOOL, 0, parent, notc, 0, 0, TC_BOOL);
    }
    return *mb >= 0 && *mc >= 0;
}

/* Post-order walk of the value's expression. Returns the value's register. */
TC__PRIVATE int tc__vm_emit_expr(tc__vm_emit *E) {
    const tc_ir_stmt *st = E->st;
    int cap = 64, sp = 0, result = -1;
    tc__vm_frame *stack = (tc__vm_frame *)tc__alloc_n(E->C, (size_t)cap, sizeof(tc__vm_frame));
    if (!stack) return -1;
    memset(&stack[0], 0, sizeof stack[0]);
    stack[0].node = st->value;
    stack[0].mask = TC__VM_NONE;
    stack[0].slot = -1;
    sp = 1;
    while (sp > 0 && !E->C->failed) {
        tc__vm_frame *f = &stack[sp - 1];
        const tc_ir_node *nd = &st->nodes[f->node];
        int kids[TC_MAX_RANK + 5], nk = tc__vm_children(E, f->node, kids), reg = -1;
        int mask = f->mask;
        if (f->stage == 0 && (reg = tc__vm_memo_find(E, f->node, f->mask)) >= 0) {
            /* done already */
        } else if (nd->op == TC_IR_SELECT && f->stage == 1) {
            int mb, mc;
            if (!tc__vm_branch_masks(E, f, &mb, &mc)) return -1;
            f->got[3] = mb; /* stash: branch masks live in got[3], got[4] */
            f->got[4] = mc;
        }
        if (reg < 0 && f->stage < nk) { /* descend into the next operand */
            int child = kids[f->stage], cmask = mask;
            if (nd->op == TC_IR_SELECT && f->stage > 0) cmask = f->got[2 + f->stage];
            if (!E->has_read[child]) cmask = TC__VM_NONE;
            if (sp == cap) {
                tc__vm_frame *ns;
                if (cap > (1 << 24)) return tc__vm_fail(E, "expression too deep") - 1;
                ns = (tc__vm_frame *)tc__alloc_n(E->C, (size_t)cap * 2, sizeof(tc__vm_frame));
                if (!ns) return -1;
                memcpy(ns, stack, (size_t)cap * sizeof *ns);
                stack = ns;
                cap *= 2;
                f = &stack[sp - 1];
            }
            memset(&stack[sp], 0, sizeof stack[sp]);
            stack[sp].node = child;
            stack[sp].mask = cmask;
            stack[sp].slot = f->stage;
            sp++;
            continue;
        }
        if (reg < 0) {
            reg = tc__vm_emit_node(E, f);
            if (reg < 0 || !tc__vm_memo_add(E, f->node, f->mask, reg)) return -1;
        }
        sp--;
        if (sp == 0) result = reg;
        else {
            tc__vm_frame *p = &stack[sp - 1];
            p->got[f->slot] = reg;
            p->stage++;
        }
    }
    return E->C->failed ? -1 : result;
}

/* has_read[n]: the subtree of n contains a tensor read (nodes are in
   topological order, so one forward pass suffices). */
TC__PRIVATE int tc__vm_mark_reads(tc__vm_emit *E) {
    const tc_ir_stmt *st = E->st;
    int i, k;
    E->has_read = (unsigned char *)tc__alloc_n(E->C, (size_t)st->n_nodes + 1, 1);
    E->memo = (tc__vm_memo **)tc__alloc_n(E->C, (size_t)st->n_nodes + 1, sizeof(tc__vm_memo *));
    if (!E->has_read || !E->memo) return 0;
    for (i = 0; i < st->n_nodes; i++) {
        int kids[TC_MAX_RANK + 5], nk = tc__vm_children(E, i, kids);
        E->has_read[i] = st->nodes[i].op == TC_IR_READ;
        for (k = 0; k < nk; k++) {
            if (kids[k] < 0 || kids[k] >= i) return tc__vm_fail(E, "IR nodes out of order");
            E->has_read[i] |= E->has_read[kids[k]];
        }
    }
    return 1;
}

/* Operand slots of an instruction that name registers: read (r) and
   written (w), from the format string. */
TC__PRIVATE int tc__vm_reg_operands(tc__vm_ins *in, uint16_t **ops, char *kinds) {
    const char *fmt = tc__ops[in->op].fmt;
    uint16_t *all[5];
    int i, n = 0;
    all[0] = &in->a;
    all[1] = &in->b;
    all[2] = &in->c;
    all[3] = &in->d;
    all[4] = &in->e;
    for (i = 0; fmt[i] && i < 5; i++) {
        char k = fmt[i];
        if (in->op == TC_OP_CALL && i > tc_builtin_arity((tc_builtin)in->dt2)) break;
        if (k == 'V' || k == 'v' || k == 'U' || (k == 'm' && *all[i] != TC__VM_NONE)) {
            ops[n] = all[i];
            kinds[n++] = k;
        }
    }
    return n;
}

/* Linear-scan register packing. A destination never shares a register
   with a source of the same instruction (kernels use restrict pointers). */
TC__PRIVATE int tc__vm_pack_regs(tc__vm_emit *E, int value, int *n_phys, int *value_phys) {
    int *last = (int *)tc__alloc_n(E->C, (size_t)E->n_vregs + 1, sizeof(int));
    int *phys = (int *)tc__alloc_n(E->C, (size_t)E->n_vregs + 1, sizeof(int));
    int *freel = (int *)tc__alloc_n(E->C, (size_t)E->n_vregs + 1, sizeof(int));
    int i, k, nfree = 0, nphys = 0;
    if (!last || !phys || !freel) return 0;
    for (i = 0; i < E->n_ins; i++) {
        uint16_t *ops[5];
        char kinds[5];
        int n = tc__vm_reg_operands(&E->ins[i], ops, kinds);
        for (k = 0; k < n; k++) last[*ops[k]] = i;
    }
    last[value] = E->n_ins;
    for (i = 0; i < E->n_ins; i++) /* block-invariant values keep their register */
        if (E->inv && E->inv[E->ins[i].a] && tc__ops[E->ins[i].op].fmt[0] == 'V')
            last[E->ins[i].a] = E->n_ins;
    for (i = 0; i < E->n_ins; i++) {
        tc__vm_ins *in = &E->ins[i];
        uint16_t *ops[5];
        char kinds[5];
        int n = tc__vm_reg_operands(in, ops, kinds), dst = -1;
        for (k = 0; k < n; k++) {
            if (kinds[k] == 'V') {
                dst = *ops[k];
                phys[dst] = nfree ? freel[--nfree] : nphys++;
            }
        }
        for (k = 0; k < n; k++) { /* free sources whose last use this is */
            int v = *ops[k];
            if (kinds[k] != 'V' && last[v] == i && v != dst) {
                last[v] = -1; /* once, even if it appears twice */
                freel[nfree++] = phys[v];
            }
            *ops[k] = (uint16_t)phys[v];
        }
        if (dst >= 0 && last[dst] == i) freel[nfree++] = phys[dst]; /* dead value */
    }
    *n_phys = nphys;
    *value_phys = phys[value];
    return 1;
}

/* ==== [tc:verify] Bytecode verifier ========================================
   Runs on every compiled statement: opcodes, dtypes, operand ranges and
   register kinds (every register read was written before, with the dtype
   the instruction expects). The VM then trusts the program. */

/* The dtype an instruction expects of its register operand `k` (format
   letter position), or -1 for "any". */
TC__PRIVATE int tc__vm_operand_dtype(const tc__vm_ins *in, int pos) {
    switch ((tc_opcode)in->op) {
    case TC_OP_GIDX: return pos == 0 ? (int)TC_INT64 : pos == 1 ? (int)in->dt2 : (int)TC_BOOL;
    case TC_OP_GLOAD: return pos == 1 ? TC_INT64 : TC_BOOL;
    case TC_OP_LOAD: return TC_BOOL;
    case TC_OP_CAST: return in->dt2;
    case TC_OP_SELECT: return pos == 1 ? (int)TC_BOOL : (int)in->dt;
    case TC_OP_NOT: case TC_OP_AND: case TC_OP_OR: return TC_BOOL;
    default: return in->dt;
    }
}

TC__PRIVATE const char *tc__vm_verify_ins(const tc__vm_stmt *s, const tc_ir_def *def,
                                          const tc__vm_ins *in, signed char *rdt) {
    const char *fmt;
    const uint16_t *opnd[5];
    int i;
    if (in->op >= TC_OP_COUNT) return "bad opcode";
    if (in->dt >= TC_DTYPE_COUNT || in->dt == TC_FLOAT16) return "bad dtype";
    fmt = tc__ops[in->op].fmt;
    opnd[0] = &in->a; opnd[1] = &in->b; opnd[2] = &in->c; opnd[3] = &in->d; opnd[4] = &in->e;
    if (in->op == TC_OP_CALL) {
        if (in->dt2 >= TC_BUILTIN_COUNT) return "bad builtin";
        if (in->dt != TC_FLOAT32 && in->dt != TC_FLOAT64) return "builtin on a non-float dtype";
    }
    if (in->op == TC_OP_CAST && (in->dt2 >= TC_DTYPE_COUNT || in->dt2 == TC_FLOAT16))
        return "bad cast source";
    if (in->op == TC_OP_GIDX && (in->dt2 >= TC_DTYPE_COUNT || !tc__dtype_is_int((tc_dtype)in->dt2)))
        return "gather index is not an integer";
    for (i = 0; fmt[i]; i++) {
        unsigned v = *opnd[i];
        int want;
        if (in->op == TC_OP_CALL && i > tc_builtin_arity((tc_builtin)in->dt2)) break;
        switch (fmt[i]) {
        case 'V': break; /* checked below, after the sources */
        case 'v': case 'U': case 'm':
            if (fmt[i] == 'm' && v == TC__VM_NONE) break;
            if ((int)v >= s->n_regs || rdt[v] < 0) return "register read before it is written";
            want = tc__vm_operand_dtype(in, i);
            if (want >= 0 && rdt[v] != want) return "register holds the wrong dtype";
            break;
        case 'R':
            if ((int)v >= s->n_reads) return "bad read slot";
            if (s->reads[v].gather != (in->op != TC_OP_LOAD)) return "read slot kind mismatch";
            if (in->op == TC_OP_GIDX && (int)in->d >= def->tensors[s->reads[v].tensor].rank)
                return "bad gather dimension";
            break;
        case 'K': if ((int)v >= s->n_consts) return "bad constant"; break;
        case 'L': if ((int)v >= s->ir->n_loops) return "bad loop"; break;
        case 'S': if ((int)v >= def->n_sx) return "bad size expression"; break;
        default: break;
        }
    }
    if (fmt[0] == 'V') {
        if ((int)in->a >= s->n_regs) return "bad destination register";
        rdt[in->a] = (signed char)(in->op >= TC_OP_LT && in->op <= TC_OP_OR ? (int)TC_BOOL
                                   : in->op == TC_OP_GOFF ? (int)TC_INT64 : (int)in->dt);
    }
    return NULL;
}

TC__PRIVATE int tc__vm_verify(tc__ctx *C, const tc_ir_def *def, const tc__vm_stmt *s) {
    signed char *rdt = (signed char *)tc__alloc_n(C, (size_t)s->n_regs + 1, 1);
    const char *why = NULL;
    tc__span sp = {0, 0, 0, 0};
    int i;
    if (!rdt) return 0;
    memset(rdt, -1, (size_t)s->n_regs + 1);
    for (i = 0; i < s->n_reads && !why; i++)
        if (s->reads[i].tensor < 0 || s->reads[i].tensor >= def->n_tensors) why = "bad tensor";
    for (i = 0; i < s->n_ins && !why; i++) why = tc__vm_verify_ins(s, def, &s->ins[i], rdt);
    if (!why && (s->value < 0 || s->value >= s->n_regs || rdt[s->value] != (int)s->vdt))
        why = "the value register does not hold the written tensor's dtype";
    if (!why) return 1;
    sp.line = s->ir->line;
    return tc__fail(C, TC_ERR_BACKEND, sp, "bytecode verifier: %s at instruction %d (`%s`)", why,
                    i - 1, s->ir->text ? s->ir->text : "?");
}

/* ==== [tc:compile] One def -> verified bytecode ============================ */

/* value = READ * READ (same float dtype), reduced by SUM, both affine and
   unmasked: the contraction microkernel applies. */
TC__PRIVATE void tc__vm_find_contraction(const tc_ir_stmt *st, tc__vm_stmt *s) {
    const tc_ir_node *v = &st->nodes[st->value];
    int i;
    s->contract.ok = 0;
    if (st->reduce != TC_REDUCE_SUM || v->op != TC_IR_MUL) return;
    if (v->dtype != TC_FLOAT32 && v->dtype != TC_FLOAT64) return;
    if (s->n_reads != 2 || s->reads[0].gather || s->reads[1].gather) return;
    if (s->reads[0].masked || s->reads[1].masked) return;
    for (i = 0; i < 2; i++)
        if (st->nodes[v->args[i]].op != TC_IR_READ) return;
    s->contract.ok = 1;
    s->contract.p = 0;
    s->contract.q = 1;
}

/* Block-invariant instructions: CONST and SIZE, and pure operations whose
   operands are all invariant (N cast to float, 1/N). Virtual registers are
   written once, so one forward pass finds them all. */
TC__PRIVATE int tc__vm_invariant(const tc__vm_ins *in, const unsigned char *inv) {
    uint16_t *ops[5];
    char kinds[5];
    tc__vm_ins tmp = *in;
    int k, n;
    switch ((tc_opcode)in->op) {
    case TC_OP_CONST: case TC_OP_SIZE: return 1;
    case TC_OP_INDEX: case TC_OP_LOAD: case TC_OP_GOFF: case TC_OP_GIDX: case TC_OP_GLOAD:
    case TC_OP_COUNT: return 0;
    default: break;
    }
    n = tc__vm_reg_operands(&tmp, ops, kinds);
    for (k = 0; k < n; k++)
        if (kinds[k] != 'V' && !inv[*ops[k]]) return 0;
    return 1;
}

/* Moves the block-invariant instructions to the front, in order: the
   prologue runs once per chunk of blocks, not per block. */
TC__PRIVATE int tc__vm_hoist(tc__vm_emit *E) {
    tc__vm_ins *tmp = (tc__vm_ins *)tc__alloc_n(E->C, (size_t)E->n_ins + 1, sizeof(tc__vm_ins));
    unsigned char *inv = (unsigned char *)tc__alloc_n(E->C, (size_t)E->n_vregs + 1, 1);
    unsigned char *is = (unsigned char *)tc__alloc_n(E->C, (size_t)E->n_ins + 1, 1);
    int i, k = 0, pass;
    if (!tmp || !inv || !is) return -1;
    for (i = 0; i < E->n_ins; i++) {
        is[i] = (unsigned char)tc__vm_invariant(&E->ins[i], inv);
        if (is[i]) inv[E->ins[i].a] = 1;
    }
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < E->n_ins; i++)
            if (is[i] == !pass) tmp[k++] = E->ins[i];
        if (pass == 0) E->n_pro = k;
    }
    memcpy(E->ins, tmp, (size_t)E->n_ins * sizeof(tc__vm_ins));
    E->inv = inv;
    return E->n_pro;
}

/* The gather check slice: the instructions the GIDX checks need (their
   index and mask operands, transitively). When those read only inputs,
   the run can check every gather of the statement before anything is
   written: a failing gather then leaves the caller's outputs untouched.
   Runs on virtual registers (each written once), before packing. */
TC__PRIVATE int tc__vm_check_slice(tc__vm_emit *E, unsigned char **out) {
    unsigned char *need = (unsigned char *)tc__alloc_n(E->C, (size_t)E->n_ins + 1, 1);
    unsigned char *live = (unsigned char *)tc__alloc_n(E->C, (size_t)E->n_vregs + 1, 1);
    int i, k, any = 0;
    *out = NULL;
    if (!need || !live) return 0;
    for (i = E->n_ins - 1; i >= 0; i--) {
        tc__vm_ins *in = &E->ins[i];
        unsigned src[5];
        int ns;
        if (in->op == TC_OP_GIDX) need[i] = 1;
        else if (tc__ops[in->op].fmt[0] == 'V' && live[in->a]) need[i] = 1;
        if (!need[i]) continue;
        any = 1;
        ns = tc__vm_sources(in, src);
        for (k = 0; k < ns; k++) live[src[k]] = 1;
        if ((in->op == TC_OP_LOAD || in->op == TC_OP_GOFF || in->op == TC_OP_GLOAD) &&
            E->reads[in->op == TC_OP_GLOAD ? in->c : in->b].tensor >= E->def->n_inputs)
            return 1; /* depends on data the def computes: checked as it runs */
    }
    *out = any ? need : NULL;
    return 1;
}

TC__PRIVATE int tc__vm_compile_stmt(tc__ctx *C, const tc_ir_def *def, const tc_ir_stmt *st,
                                    tc__vm_stmt *s) {
    tc__vm_emit E;
    int value, nphys = 0, vphys = 0;
    memset(&E, 0, sizeof E);
    E.C = C;
    E.def = def;
    E.st = st;
    s->ir = st;
    if (st->tensor < 0 || st->tensor >= def->n_tensors || st->value < 0 ||
        st->value >= st->n_nodes || (unsigned)st->reduce >= TC_REDUCE_COUNT)
        return tc__vm_fail(&E, "malformed statement");
    s->vdt = tc__vm_compute_dtype(def->tensors[st->tensor].dtype);
    if (!tc__vm_mark_reads(&E)) return 0;
    value = tc__vm_emit_expr(&E);
    if (value < 0 || tc__vm_hoist(&E) < 0 || !tc__vm_check_slice(&E, &s->check) ||
        !tc__vm_pack_regs(&E, value, &nphys, &vphys))
        return 0;
    s->n_pro = E.n_pro;
    s->n_ins = E.n_ins;
    s->ins = E.ins;
    s->n_reads = E.n_reads;
    s->reads = E.reads;
    s->n_consts = E.n_consts;
    s->consts = E.consts;
    s->n_regs = nphys;
    s->value = vphys;
    tc__vm_find_contraction(st, s);
    return tc__vm_verify(C, def, s);
}

TC__PRIVATE int tc__backend_def(tc__ctx *C, const tc_ir_def *ir, void **out) {
    tc__vm_def *vd = (tc__vm_def *)tc__alloc(C, sizeof(tc__vm_def));
    int i;
    *out = NULL;
    if (!vd) return 0;
    vd->ir = ir;
    vd->n_stmts = ir->n_stmts;
    vd->stmts = (tc__vm_stmt *)tc__alloc_n(C, (size_t)(ir->n_stmts ? ir->n_stmts : 1),
                                           sizeof(tc__vm_stmt));
    if (!vd->stmts) return 0;
    for (i = 0; i < ir->n_stmts; i++) {
        tc__contract *ct = NULL;
        if (!tc__vm_compile_stmt(C, ir, &ir->stmts[i], &vd->stmts[i])) return 0;
        if (vd->stmts[i].contract.ok && tc__contract_match(C, ir, i, &ct)) vd->stmts[i].engine = ct;
        if (C->failed) return 0;
        if (vd->stmts[i].n_regs > vd->max_regs) vd->max_regs = vd->stmts[i].n_regs;
        if (ir->stmts[i].n_loops > vd->max_loops) vd->max_loops = ir->stmts[i].n_loops;
    }
    *out = vd;
    return 1;
}

/* ==== [tc:kernels] Per-dtype lane kernels ===================================
   Element semantics per kind: ints wrap (computed in an unsigned type of at
   least int width), divide with floor and x/0 = 0, floats follow IEEE and
   min/max ignore NaN (C99 fmin/fmax, CUDA's min/max). bool is 0/1; its
   arithmetic saturates (+ is ||, * is &&). Each kernel is a loop over
   n <= TC_BLOCK lanes with restrict pointers that compilers vectorize. */

/* clang-format off */
/*  sfx  dtype    C type    wrap type  kind */
#define TC__VM_TYPES(X)                        \
    X(b,   BOOL,    uint8_t,  uint32_t, B)     \
    X(i8,  INT8,    int8_t,   uint32_t, I)     \
    X(i16, INT16,   int16_t,  uint32_t, I)     \
    X(i32, INT32,   int32_t,  uint32_t, I)     \
    X(i64, INT64,   int64_t,  uint64_t, I)     \
    X(u8,  UINT8,   uint8_t,  uint32_t, U)     \
    X(u16, UINT16,  uint16_t, uint32_t, U)     \
    X(u32, UINT32,  uint32_t, uint32_t, U)     \
    X(u64, UINT64,  uint64_t, uint64_t, U)     \
    X(f32, FLOAT32, float,    float,    F)     \
    X(f64, FLOAT64, double,   double,   F)
/* clang-format on */

/* Element functions: tc__e_<op>_<sfx>(x, y). */
#define TC__VM_ELEM_WRAP(sfx, T, W)                                                          \
    static inline T tc__e_add_##sfx(T x, T y) { return (T)((W)x + (W)y); }                  \
    static inline T tc__e_sub_##sfx(T x, T y) { return (T)((W)x - (W)y); }                  \
    static inline T tc__e_mul_##sfx(T x, T y) { return (T)((W)x * (W)y); }                  \
    static inline T tc__e_neg_##sfx(T x) { return (T)((W)0 - (W)x); }                        \
    static inline T tc__e_min_##sfx(T x, T y) { return y < x ? y : x; }                      \
    static inline T tc__e_max_##sfx(T x, T y) { return y > x ? y : x; }
#define TC__VM_ELEM_I(sfx, T, W)                                                             \
    TC__VM_ELEM_WRAP(sfx, T, W)                                                              \
    static inline T tc__e_div_##sfx(T x, T y) {                                              \
        T q, r;                                                                              \
        if (y == 0) return 0;                                                                \
        if (y == -1) return tc__e_neg_##sfx(x);                                              \
        q = (T)(x / y);                                                                      \
        r = (T)(x % y);                                                                      \
        return (T)((r != 0 && ((r < 0) != (y < 0))) ? q - 1 : q);                            \
    }                                                                                        \
    static inline T tc__e_mod_##sfx(T x, T y) {                                              \
        T r;                                                                                 \
        if (y == 0 || y == -1) return 0;                                                     \
        r = (T)(x % y);                                                                      \
        return (T)((r != 0 && ((r < 0) != (y < 0))) ? r + y : r);                            \
    }
#define TC__VM_ELEM_U(sfx, T, W)                                                             \
    TC__VM_ELEM_WRAP(sfx, T, W)                                                              \
    static inline T tc__e_div_##sfx(T x, T y) { return (T)(y ? x / y : 0); }                 \
    static inline T tc__e_mod_##sfx(T x, T y) { return (T)(y ? x % y : 0); }
#define TC__VM_ELEM_B(sfx, T, W)                                                             \
    static inline T tc__e_add_##sfx(T x, T y) { return (T)(x | y); }                         \
    static inline T tc__e_sub_##sfx(T x, T y) { return (T)(x ^ y); }                         \
    static inline T tc__e_mul_##sfx(T x, T y) { return (T)(x & y); }                         \
    static inline T tc__e_div_##sfx(T x, T y) { return (T)(x & y); }                         \
    static inline T tc__e_mod_##sfx(T x, T y) { return (T)((x & y) ^ (x & y)); }             \
    static inline T tc__e_neg_##sfx(T x) { return x; }                                       \
    static inline T tc__e_min_##sfx(T x, T y) { return (T)(x & y); }                         \
    static inline T tc__e_max_##sfx(T x, T y) { return (T)(x | y); }
#define TC__VM_ELEM_F(sfx, T, W)                                                             \
    static inline T tc__e_add_##sfx(T x, T y) { return x + y; }                              \
    static inline T tc__e_sub_##sfx(T x, T y) { return x - y; }                              \
    static inline T tc__e_mul_##sfx(T x, T y) { return x * y; }                              \
    static inline T tc__e_div_##sfx(T x, T y) { return x / y; }                              \
    static inline T tc__e_neg_##sfx(T x) { return -x; }                                      \
    static inline T tc__e_min_##sfx(T x, T y) { return x != x ? y : y < x ? y : x; }         \
    static inline T tc__e_max_##sfx(T x, T y) { return x != x ? y : y > x ? y : x; }
#define TC__VM_ELEM(sfx, DT, T, W, K) TC__VM_ELEM_##K(sfx, T, W)
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
TC__VM_TYPES(TC__VM_ELEM)
/* Accumulating min/max: the accumulator starts at the identity and only
   ever takes a value that compares beyond it, so it is never NaN and NaN
   inputs are ignored with one compare (as a C loop writes it). */
#define TC__VM_ELEM_ACC(sfx, DT, T, W, K)                                                    \
    static inline T tc__e_amin_##sfx(T x, T y) { return y < x ? y : x; }                     \
    static inline T tc__e_amax_##sfx(T x, T y) { return y > x ? y : x; }
TC__VM_TYPES(TC__VM_ELEM_ACC)
#undef TC__VM_ELEM_ACC
static inline float tc__e_mod_f32(float x, float y) { return fmodf(x, y); }
static inline double tc__e_mod_f64(double x, double y) { return fmod(x, y); }
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Arithmetic and comparisons over n lanes of one dtype. */
#define TC__VM_LOOP(expr)                                                                    \
    for (i = 0; i < n; i++) d[i] = (expr)
#define TC__VM_ARITH(sfx, DT, T, W, K)                                                       \
    TC__PRIVATE void tc__k_arith_##sfx(int op, void *dv, const void *av, const void *bv,     \
                                       int n) {                                              \
        T *TC__RESTRICT d = (T *)dv;                                                         \
        const T *TC__RESTRICT a = (const T *)av;                                             \
        const T *TC__RESTRICT b = (const T *)bv;                                             \
        int i;                                                                               \
        switch (op) {                                                                        \
        case TC_OP_ADD: TC__VM_LOOP(tc__e_add_##sfx(a[i], b[i])); break;                     \
        case TC_OP_SUB: TC__VM_LOOP(tc__e_sub_##sfx(a[i], b[i])); break;                     \
        case TC_OP_MUL: TC__VM_LOOP(tc__e_mul_##sfx(a[i], b[i])); break;                     \
        case TC_OP_DIV: TC__VM_LOOP(tc__e_div_##sfx(a[i], b[i])); break;                     \
        case TC_OP_MOD: TC__VM_LOOP(tc__e_mod_##sfx(a[i], b[i])); break;                     \
        case TC_OP_MIN: TC__VM_LOOP(tc__e_min_##sfx(a[i], b[i])); break;                     \
        case TC_OP_MAX: TC__VM_LOOP(tc__e_max_##sfx(a[i], b[i])); break;                     \
        case TC_OP_NEG: TC__VM_LOOP(tc__e_neg_##sfx(a[i])); break;                           \
        default: break;                                                                      \
        }                                                                                    \
    }                                                                                        \
    TC__PRIVATE void tc__k_cmp_##sfx(int op, void *dv, const void *av, const void *bv,       \
                                     int n) {                                                \
        uint8_t *TC__RESTRICT d = (uint8_t *)dv;                                             \
        const T *TC__RESTRICT a = (const T *)av;                                             \
        const T *TC__RESTRICT b = (const T *)bv;                                             \
        int i;                                                                               \
        switch (op) {                                                                        \
        case TC_OP_LT: TC__VM_LOOP((uint8_t)(a[i] < b[i])); break;                           \
        case TC_OP_LE: TC__VM_LOOP((uint8_t)(a[i] <= b[i])); break;                          \
        case TC_OP_GT: TC__VM_LOOP((uint8_t)(a[i] > b[i])); break;                           \
        case TC_OP_GE: TC__VM_LOOP((uint8_t)(a[i] >= b[i])); break;                          \
        case TC_OP_EQ: TC__VM_LOOP((uint8_t)(a[i] == b[i])); break;                          \
        case TC_OP_NE: TC__VM_LOOP((uint8_t)(a[i] != b[i])); break;                          \
        default: break;                                                                      \
        }                                                                                    \
    }
TC__VM_TYPES(TC__VM_ARITH)

TC__PRIVATE void tc__k_arith(int op, tc_dtype t, void *d, const void *a, const void *b, int n) {
    switch (t) {
#define TC__VM_ARITH_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_arith_##sfx(op, d, a, b, n); break;
        TC__VM_TYPES(TC__VM_ARITH_CASE)
#undef TC__VM_ARITH_CASE
    default: break;
    }
}
TC__PRIVATE void tc__k_cmp(int op, tc_dtype t, void *d, const void *a, const void *b, int n) {
    switch (t) {
#define TC__VM_CMP_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_cmp_##sfx(op, d, a, b, n); break;
        TC__VM_TYPES(TC__VM_CMP_CASE)
#undef TC__VM_CMP_CASE
    default: break;
    }
}

/* Logic on bool lanes (0/1). */
TC__PRIVATE void tc__k_logic(int op, void *dv, const void *av, const void *bv, int n) {
    uint8_t *TC__RESTRICT d = (uint8_t *)dv;
    const uint8_t *TC__RESTRICT a = (const uint8_t *)av;
    const uint8_t *TC__RESTRICT b = (const uint8_t *)bv;
    int i;
    if (op == TC_OP_NOT) TC__VM_LOOP((uint8_t)(a[i] ^ 1u));
    else if (op == TC_OP_AND) TC__VM_LOOP((uint8_t)(a[i] & b[i]));
    else TC__VM_LOOP((uint8_t)(a[i] | b[i]));
}

/* SELECT by element size: the lanes are bit copies. */
TC__PRIVATE void tc__k_select(size_t esz, void *dv, const uint8_t *TC__RESTRICT c, const void *av,
                              const void *bv, int n) {
    int i;
    switch (esz) {
#define TC__VM_SEL(SZ, T)                                                                    \
    case SZ: {                                                                               \
        T *TC__RESTRICT d = (T *)dv;                                                         \
        const T *TC__RESTRICT a = (const T *)av;                                             \
        const T *TC__RESTRICT b = (const T *)bv;                                             \
        TC__VM_LOOP(c[i] ? a[i] : b[i]);                                                     \
        break;                                                                               \
    }
        TC__VM_SEL(1, uint8_t)
        TC__VM_SEL(2, uint16_t)
        TC__VM_SEL(4, uint32_t)
        TC__VM_SEL(8, uint64_t)
#undef TC__VM_SEL
    default: break;
    }
}

/* Fills n lanes with one element (CONST, SIZE, broadcast loads). */
TC__PRIVATE void tc__k_fill(size_t esz, void *dv, const void *src, int n) {
    int i;
    switch (esz) {
#define TC__VM_FILL(SZ, T)                                                                   \
    case SZ: {                                                                               \
        T *TC__RESTRICT d = (T *)dv, v;                                                      \
        memcpy(&v, src, SZ);                                                                 \
        TC__VM_LOOP(v);                                                                      \
        break;                                                                               \
    }
        TC__VM_FILL(1, uint8_t)
        TC__VM_FILL(2, uint16_t)
        TC__VM_FILL(4, uint32_t)
        TC__VM_FILL(8, uint64_t)
#undef TC__VM_FILL
    default: break;
    }
}

/* Float -> int conversion saturates (NaN -> 0): never undefined behaviour. */
#define TC__VM_SAT(sfx, T, LO, HI, TMIN, TMAX)                                               \
    static inline T tc__sat_##sfx(double x) {                                                \
        return x != x ? (T)0 : x < (LO) ? (T)(TMIN) : x >= (HI) ? (T)(TMAX) : (T)x;           \
    }
TC__VM_SAT(i8, int8_t, -128.0, 128.0, INT8_MIN, INT8_MAX)
TC__VM_SAT(i16, int16_t, -32768.0, 32768.0, INT16_MIN, INT16_MAX)
TC__VM_SAT(i32, int32_t, -2147483648.0, 2147483648.0, INT32_MIN, INT32_MAX)
TC__VM_SAT(i64, int64_t, -9223372036854775808.0, 9223372036854775808.0, INT64_MIN, INT64_MAX)
TC__VM_SAT(u8, uint8_t, 0.0, 256.0, 0, UINT8_MAX)
TC__VM_SAT(u16, uint16_t, 0.0, 65536.0, 0, UINT16_MAX)
TC__VM_SAT(u32, uint32_t, 0.0, 4294967296.0, 0, UINT32_MAX)
TC__VM_SAT(u64, uint64_t, 0.0, 18446744073709551616.0, 0, UINT64_MAX)
#undef TC__VM_SAT

#define TC__VM_TOINT_F(T2, s2, x) tc__sat_##s2((double)(x))
#define TC__VM_TOINT_I(T2, s2, x) (T2)(x)
#define TC__VM_TOINT_U(T2, s2, x) (T2)(x)
#define TC__VM_TOINT_B(T2, s2, x) (T2)(x)
#define TC__VM_CAST_INT(K, DT2, T2, s2)                                                      \
    case TC_##DT2: {                                                                         \
        T2 *TC__RESTRICT d = (T2 *)dv;                                                       \
        TC__VM_LOOP(TC__VM_TOINT_##K(T2, s2, a[i]));                                         \
        break;                                                                               \
    }
#define TC__VM_CAST(sfx, DT, T, W, K)                                                        \
    TC__PRIVATE void tc__k_cast_##sfx(tc_dtype to, void *dv, const void *av, int n) {        \
        const T *TC__RESTRICT a = (const T *)av;                                             \
        int i;                                                                               \
        switch (to) {                                                                        \
        case TC_BOOL: {                                                                      \
            uint8_t *TC__RESTRICT d = (uint8_t *)dv;                                         \
            TC__VM_LOOP((uint8_t)(a[i] != 0));                                               \
            break;                                                                           \
        }                                                                                    \
            TC__VM_CAST_INT(K, INT8, int8_t, i8)                                             \
            TC__VM_CAST_INT(K, INT16, int16_t, i16)                                          \
            TC__VM_CAST_INT(K, INT32, int32_t, i32)                                          \
            TC__VM_CAST_INT(K, INT64, int64_t, i64)                                          \
            TC__VM_CAST_INT(K, UINT8, uint8_t, u8)                                           \
            TC__VM_CAST_INT(K, UINT16, uint16_t, u16)                                        \
            TC__VM_CAST_INT(K, UINT32, uint32_t, u32)                                        \
            TC__VM_CAST_INT(K, UINT64, uint64_t, u64)                                        \
        case TC_FLOAT32: {                                                                   \
            float *TC__RESTRICT d = (float *)dv;                                             \
            TC__VM_LOOP((float)a[i]);                                                        \
            break;                                                                           \
        }                                                                                    \
        case TC_FLOAT64: {                                                                   \
            double *TC__RESTRICT d = (double *)dv;                                           \
            TC__VM_LOOP((double)a[i]);                                                       \
            break;                                                                           \
        }                                                                                    \
        default: break;                                                                      \
        }                                                                                    \
    }
TC__VM_TYPES(TC__VM_CAST)
#undef TC__VM_CAST
#undef TC__VM_CAST_INT

TC__PRIVATE void tc__k_cast(tc_dtype from, tc_dtype to, void *d, const void *a, int n) {
    switch (from) {
#define TC__VM_CAST_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_cast_##sfx(to, d, a, n); break;
        TC__VM_TYPES(TC__VM_CAST_CASE)
#undef TC__VM_CAST_CASE
    default: break;
    }
}

/* Reductions over lanes: acc[i] = acc[i] (op) v[i], and the fold of a
   lane vector in lane order. */
#define TC__VM_RED(sfx, DT, T, W, K)                                                         \
    TC__PRIVATE void tc__k_reduce_##sfx(tc_reduce r, void *accv, const void *vv, int n) {    \
        T *TC__RESTRICT d = (T *)accv;                                                       \
        const T *TC__RESTRICT v = (const T *)vv;                                             \
        int i;                                                                               \
        switch (r) {                                                                         \
        case TC_REDUCE_ASSIGN: TC__VM_LOOP(v[i]); break;                                     \
        case TC_REDUCE_SUM: TC__VM_LOOP(tc__e_add_##sfx(d[i], v[i])); break;                 \
        case TC_REDUCE_PROD: TC__VM_LOOP(tc__e_mul_##sfx(d[i], v[i])); break;                \
        case TC_REDUCE_MIN: TC__VM_LOOP(tc__e_amin_##sfx(d[i], v[i])); break;                \
        case TC_REDUCE_MAX: TC__VM_LOOP(tc__e_amax_##sfx(d[i], v[i])); break;                \
        case TC_REDUCE_COUNT: break;                                                         \
        }                                                                                    \
    }                                                                                        \
    /* fold of n lanes in a fixed tree: the part beyond the largest power of   \
       two first, then halves; vectorizes, and depends on n only */            \
    TC__PRIVATE void tc__k_fold_##sfx(tc_reduce r, void *accv, int n, void *out) {           \
        T *a = (T *)accv;                                                                    \
        int h = 1, i;                                                                        \
        while (h * 2 <= n) h *= 2;                                                           \
        for (;;) {                                                                           \
            T *TC__RESTRICT d = a;                                                           \
            const T *TC__RESTRICT v = a + h;                                                 \
            int m = n - h;                                                                   \
            switch (r) {                                                                     \
            case TC_REDUCE_SUM: for (i = 0; i < m; i++) d[i] = tc__e_add_##sfx(d[i], v[i]); break; \
            case TC_REDUCE_PROD: for (i = 0; i < m; i++) d[i] = tc__e_mul_##sfx(d[i], v[i]); break; \
            case TC_REDUCE_MIN: for (i = 0; i < m; i++) d[i] = tc__e_min_##sfx(d[i], v[i]); break; \
            case TC_REDUCE_MAX: for (i = 0; i < m; i++) d[i] = tc__e_max_##sfx(d[i], v[i]); break; \
            default: break;                                                                  \
            }                                                                                \
            if (h == 1 || n <= 1) break;                                                     \
            n = h;                                                                           \
            h /= 2;                                                                          \
        }                                                                                    \
        memcpy(out, &a[0], sizeof a[0]);                                                     \
    }
TC__VM_TYPES(TC__VM_RED)
#undef TC__VM_RED

TC__PRIVATE void tc__k_reduce(tc_dtype t, tc_reduce r, void *acc, const void *v, int n) {
    switch (t) {
#define TC__VM_RED_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_reduce_##sfx(r, acc, v, n); break;
        TC__VM_TYPES(TC__VM_RED_CASE)
#undef TC__VM_RED_CASE
    default: break;
    }
}
TC__PRIVATE void tc__k_fold(tc_dtype t, tc_reduce r, void *acc, int n, void *out) {
    switch (t) {
#define TC__VM_FOLD_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_fold_##sfx(r, acc, n, out); break;
        TC__VM_TYPES(TC__VM_FOLD_CASE)
#undef TC__VM_FOLD_CASE
    default: break;
    }
}

/* acc[i] = acc[i] (r) p[i * stride]: a reduction straight from memory
   (window reductions such as pooling). Strides 1 and 2 get loops of their
   own, which compilers vectorize (stride 2 by load + permute). min and max
   are idempotent, so their ragged end is one more full group of 16 lanes
   overlapping the last ones: no scalar tail. */
#define TC__VM_RM_LOOP(OP, sfx, from, to, S)                                                 \
    for (i = (from); i < (to); i++) d[i] = OP##sfx(d[i], p[i * (S)])
#define TC__VM_RM_IDEM(OP, sfx)                                                              \
    do {                                                                                     \
        int n16 = n & ~15, t0 = n - 16;                                                      \
        if (n < 16) TC__VM_RM_LOOP(OP, sfx, 0, n, s);                                        \
        else if (s == 1) { TC__VM_RM_LOOP(OP, sfx, 0, n16, 1); if (n16 < n) TC__VM_RM_LOOP(OP, sfx, t0, t0 + 16, 1); } \
        else if (s == 2) { TC__VM_RM_LOOP(OP, sfx, 0, n16, 2); if (n16 < n) TC__VM_RM_LOOP(OP, sfx, t0, t0 + 16, 2); } \
        else TC__VM_RM_LOOP(OP, sfx, 0, n, s);                                               \
    } while (0)
#define TC__VM_RED_MEM(sfx, DT, T, W, K)                                                     \
    TC__PRIVATE void tc__k_reduce_mem_##sfx(tc_reduce r, void *accv, const void *pv,         \
                                            int64_t s, int n) {                              \
        T *TC__RESTRICT d = (T *)accv;                                                       \
        const T *TC__RESTRICT p = (const T *)pv;                                             \
        int i;                                                                               \
        switch (r) {                                                                         \
        case TC_REDUCE_SUM:                                                                  \
            if (s == 1) TC__VM_RM_LOOP(tc__e_add_, sfx, 0, n, 1);                            \
            else if (s == 2) TC__VM_RM_LOOP(tc__e_add_, sfx, 0, n, 2);                       \
            else TC__VM_RM_LOOP(tc__e_add_, sfx, 0, n, s);                                   \
            break;                                                                           \
        case TC_REDUCE_PROD: TC__VM_RM_LOOP(tc__e_mul_, sfx, 0, n, s); break;                \
        case TC_REDUCE_MIN: TC__VM_RM_IDEM(tc__e_amin_, sfx); break;                         \
        case TC_REDUCE_MAX: TC__VM_RM_IDEM(tc__e_amax_, sfx); break;                         \
        default: TC__VM_LOOP(p[i * s]); break;                                               \
        }                                                                                    \
    }
TC__VM_TYPES(TC__VM_RED_MEM)
#undef TC__VM_RED_MEM
#undef TC__VM_RM_IDEM
#undef TC__VM_RM_LOOP

/* acc[i] = acc[i] (r) (p[2i] (r) p[2i+1]): a window of two adjacent
   elements per lane (2x2 pooling's inner pair) read as one contiguous run,
   which vectorizes without a strided load. min and max end with an
   overlapping group of 16 lanes instead of a scalar tail. */
#define TC__VM_RM_PAIR(OP, sfx, from, to)                                                    \
    if (q) {                                                                                 \
        for (i = (from); i < (to); i++)                                                      \
            d[i] = OP##sfx(OP##sfx(OP##sfx(OP##sfx(d[i], p[2 * i]), p[2 * i + 1]), q[2 * i]), \
                           q[2 * i + 1]);                                                    \
    } else {                                                                                 \
        for (i = (from); i < (to); i++) d[i] = OP##sfx(OP##sfx(d[i], p[2 * i]), p[2 * i + 1]); \
    }
#define TC__VM_RM_PAIR_IDEM(OP, sfx)                                                         \
    do {                                                                                     \
        if (n < 16) { TC__VM_RM_PAIR(OP, sfx, 0, n) break; }                                 \
        TC__VM_RM_PAIR(OP, sfx, 0, n16)                                                      \
        if (n16 == n) break;                                                                 \
        d += n - 16;                                                                         \
        p += 2 * (n - 16);                                                                   \
        if (q) q += 2 * (n - 16);                                                            \
        TC__VM_RM_PAIR(OP, sfx, 0, 16)                                                       \
    } while (0)
/* q (may be NULL): a second pair, reduced in the same pass. */
#define TC__VM_RED_PAIR(sfx, DT, T, W, K)                                                    \
    TC__PRIVATE void tc__k_reduce_pair_##sfx(tc_reduce r, void *accv, const void *pv,        \
                                             const void *qv, int n) {                        \
        T *TC__RESTRICT d = (T *)accv;                                                       \
        const T *TC__RESTRICT p = (const T *)pv;                                             \
        const T *TC__RESTRICT q = (const T *)qv;                                             \
        int i, n16 = n & ~15;                                                                \
        switch (r) {                                                                         \
        case TC_REDUCE_SUM: TC__VM_RM_PAIR(tc__e_add_, sfx, 0, n) break;                     \
        case TC_REDUCE_PROD: TC__VM_RM_PAIR(tc__e_mul_, sfx, 0, n) break;                    \
        case TC_REDUCE_MIN: TC__VM_RM_PAIR_IDEM(tc__e_amin_, sfx); break;                    \
        case TC_REDUCE_MAX: TC__VM_RM_PAIR_IDEM(tc__e_amax_, sfx); break;                    \
        default: break;                                                                      \
        }                                                                                    \
    }
TC__VM_TYPES(TC__VM_RED_PAIR)
#undef TC__VM_RED_PAIR
#undef TC__VM_RM_PAIR_IDEM
#undef TC__VM_RM_PAIR

TC__PRIVATE void tc__k_reduce_pair(tc_dtype t, tc_reduce r, void *acc, const void *p,
                                   const void *q, int n) {
    switch (t) {
#define TC__VM_RP_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_reduce_pair_##sfx(r, acc, p, q, n); break;
        TC__VM_TYPES(TC__VM_RP_CASE)
#undef TC__VM_RP_CASE
    default: break;
    }
}

TC__PRIVATE void tc__k_reduce_mem(tc_dtype t, tc_reduce r, void *acc, const void *p, int64_t s,
                                  int n) {
    switch (t) {
#define TC__VM_RM_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_reduce_mem_##sfx(r, acc, p, s, n); break;
        TC__VM_TYPES(TC__VM_RM_CASE)
#undef TC__VM_RM_CASE
    default: break;
    }
}

/* The identity of reduction r as one element of dtype t (float16 too):
   0, 1, +inf / type max (min=), -inf / type min (max=). */
TC__PRIVATE void tc__vm_identity(tc_dtype t, tc_reduce r, void *out) {
    static const uint64_t umax[4] = {0xffu, 0xffffu, 0xffffffffu, 0xffffffffffffffffu};
    size_t sz = tc_dtype_size(t), lg = sz == 1 ? 0 : sz == 2 ? 1 : sz == 4 ? 2 : 3;
    uint64_t bits = 0; /* little-endian-independent: built per size below */
    int hi = r == TC_REDUCE_MIN;
    if (r == TC_REDUCE_SUM || r == TC_REDUCE_ASSIGN) {
        memset(out, 0, sz);
        return;
    }
    if (t == TC_FLOAT32) {
        float f = r == TC_REDUCE_PROD ? 1.0f : hi ? (float)HUGE_VAL : -(float)HUGE_VAL;
        memcpy(out, &f, sizeof f);
        return;
    }
    if (t == TC_FLOAT64) {
        double f = r == TC_REDUCE_PROD ? 1.0 : hi ? HUGE_VAL : -HUGE_VAL;
        memcpy(out, &f, sizeof f);
        return;
    }
    if (t == TC_FLOAT16) bits = r == TC_REDUCE_PROD ? 0x3c00u : hi ? 0x7c00u : 0xfc00u;
    else if (r == TC_REDUCE_PROD || t == TC_BOOL) bits = r == TC_REDUCE_PROD || hi;
    else if (tc__dtype_is_signed(t)) bits = hi ? umax[lg] >> 1 : (umax[lg] >> 1) + 1;
    else bits = hi ? umax[lg] : 0;
    if (sz == 1) { uint8_t v = (uint8_t)bits; memcpy(out, &v, 1); }
    else if (sz == 2) { uint16_t v = (uint16_t)bits; memcpy(out, &v, 2); }
    else if (sz == 4) { uint32_t v = (uint32_t)bits; memcpy(out, &v, 4); }
    else memcpy(out, &bits, 8);
}

/* ---- memory: loads and stores --------------------------------------------
   p points at the element of lane 0; lane i is at p + i * stride elements.
   Storage dtype st: float16 converts, bool normalizes to 0/1. */
TC__PRIVATE void tc__k_load(tc_dtype st, void *dv, const unsigned char *p, int64_t stride, int n) {
    size_t esz = tc_dtype_size(st);
    int i;
    if (st == TC_FLOAT16) {
        float *TC__RESTRICT d = (float *)dv;
        const uint16_t *s = (const uint16_t *)(const void *)p;
        TC__VM_LOOP(tc__half_to_float(s[i * stride]));
    } else if (st == TC_BOOL) {
        uint8_t *TC__RESTRICT d = (uint8_t *)dv;
        TC__VM_LOOP((uint8_t)(p[i * stride] != 0));
    } else if (stride == 1) {
        memcpy(dv, p, esz * (size_t)n);
    } else if (stride == 0) {
        tc__k_fill(esz, dv, p, n);
    } else {
        switch (esz) {
#define TC__VM_LD(SZ, T)                                                                     \
    case SZ: {                                                                               \
        T *TC__RESTRICT d = (T *)dv;                                                         \
        const T *s = (const T *)(const void *)p;                                             \
        TC__VM_LOOP(s[i * stride]);                                                          \
        break;                                                                               \
    }
            TC__VM_LD(1, uint8_t)
            TC__VM_LD(2, uint16_t)
            TC__VM_LD(4, uint32_t)
            TC__VM_LD(8, uint64_t)
#undef TC__VM_LD
        default: break;
        }
    }
}

/* Loads lane i from base + off[i] elements where m[i] (m NULL: every
   lane); other lanes get 0. Offsets of lanes that are off are not used. */
TC__PRIVATE void tc__k_gload(tc_dtype st, void *dv, const unsigned char *base, const int64_t *off,
                             const uint8_t *m, int n) {
    size_t esz = tc_dtype_size(st);
    int i;
    if (st == TC_FLOAT16) {
        float *TC__RESTRICT d = (float *)dv;
        const uint16_t *s = (const uint16_t *)(const void *)base;
        TC__VM_LOOP((!m || m[i]) ? tc__half_to_float(s[off[i]]) : 0.0f);
        return;
    }
    if (st == TC_BOOL) {
        uint8_t *TC__RESTRICT d = (uint8_t *)dv;
        TC__VM_LOOP((uint8_t)((!m || m[i]) ? base[off[i]] != 0 : 0));
        return;
    }
    switch (esz) {
#define TC__VM_GLD(SZ, T)                                                                    \
    case SZ: {                                                                               \
        T *TC__RESTRICT d = (T *)dv;                                                         \
        const T *s = (const T *)(const void *)base;                                          \
        if (m) TC__VM_LOOP(m[i] ? s[off[i]] : (T)0);                                         \
        else TC__VM_LOOP(s[off[i]]);                                                         \
        break;                                                                               \
    }
        TC__VM_GLD(1, uint8_t)
        TC__VM_GLD(2, uint16_t)
        TC__VM_GLD(4, uint32_t)
        TC__VM_GLD(8, uint64_t)
#undef TC__VM_GLD
    default: break;
    }
}

/* Combines n lanes of v (compute dtype) into memory: p[i*stride] =
   p[i*stride] (r) v[i]; ASSIGN stores. float16 goes through float32. */
#define TC__VM_ST(sfx, DT, T, W, K)                                                          \
    TC__PRIVATE void tc__k_store_##sfx(tc_reduce r, void *pv, int64_t s, const void *vv,     \
                                       int n) {                                              \
        T *p = (T *)pv;                                                                      \
        const T *TC__RESTRICT v = (const T *)vv;                                             \
        int i;                                                                               \
        switch (r) {                                                                         \
        case TC_REDUCE_ASSIGN:                                                               \
            if (s == 1) memcpy(p, v, sizeof(T) * (size_t)n);                                 \
            else for (i = 0; i < n; i++) p[i * s] = v[i];                                    \
            break;                                                                           \
        case TC_REDUCE_SUM: for (i = 0; i < n; i++) p[i * s] = tc__e_add_##sfx(p[i * s], v[i]); break; \
        case TC_REDUCE_PROD: for (i = 0; i < n; i++) p[i * s] = tc__e_mul_##sfx(p[i * s], v[i]); break; \
        case TC_REDUCE_MIN: for (i = 0; i < n; i++) p[i * s] = tc__e_min_##sfx(p[i * s], v[i]); break; \
        case TC_REDUCE_MAX: for (i = 0; i < n; i++) p[i * s] = tc__e_max_##sfx(p[i * s], v[i]); break; \
        case TC_REDUCE_COUNT: break;                                                         \
        }                                                                                    \
    }
TC__VM_TYPES(TC__VM_ST)
#undef TC__VM_ST

TC__PRIVATE void tc__k_store_f16(tc_reduce r, void *pv, int64_t s, const void *vv, int n) {
    uint16_t *p = (uint16_t *)pv;
    const float *v = (const float *)vv;
    int i;
    for (i = 0; i < n; i++) {
        float x = r == TC_REDUCE_ASSIGN ? 0.0f : tc__half_to_float(p[i * s]), y = v[i];
        switch (r) {
        case TC_REDUCE_SUM: x = x + y; break;
        case TC_REDUCE_PROD: x = x * y; break;
        case TC_REDUCE_MIN: x = tc__e_min_f32(x, y); break;
        case TC_REDUCE_MAX: x = tc__e_max_f32(x, y); break;
        default: x = y; break;
        }
        p[i * s] = tc__float_to_half(x);
    }
}

TC__PRIVATE void tc__k_store(tc_dtype st, tc_reduce r, unsigned char *p, int64_t stride,
                             const void *v, int n) {
    switch (st) {
#define TC__VM_ST_CASE(sfx, DT, T, W, K) case TC_##DT: tc__k_store_##sfx(r, p, stride, v, n); break;
        TC__VM_TYPES(TC__VM_ST_CASE)
#undef TC__VM_ST_CASE
    case TC_FLOAT16: tc__k_store_f16(r, p, stride, v, n); break;
    default: break;
    }
}

/* ---- contraction microkernel -----------------------------------------------
   W(rows x lanes) (+)= sum over t of X[ox[t] + r*xr] * Y[oy[t] + l*ys]: the
   register-blocked outer product behind matmul, batched matmul and
   convolution. A tile is TC__MK_ROWS rows by 64 (float) or 32 (double)
   lanes held in vector registers for the whole reduction; each loaded block
   of Y feeds every row. Partial tiles run the same arithmetic (missing rows
   repeat row 0, missing lanes are zero), so an element's result never
   depends on where a tile boundary falls. The reduction order (t) is fixed
   by the sizes. Multiply-adds may be fused (contracted) on CPUs with FMA. */
#define TC__MK_ROWS 4
#define TC__MK_LANES32 64
#define TC__MK_LANES64 32

typedef struct tc__mk_args {
    const void *X, *Y;        /* tile bases */
    int64_t xr, ys;           /* X row stride, Y lane stride (elements) */
    const int64_t *ox, *oy;   /* per reduction step offsets */
    int64_t steps;            /* reduction steps */
    void *W;
    int64_t wr, ws;           /* W row and lane strides */
    int rows, lanes, assign;  /* valid rows and lanes; 1: store, 0: add */
    int packed;               /* Y is packed: step t at Y + t * lanes-per-tile */
} tc__mk_args;

#if defined(__GNUC__) && !defined(__clang__)
#define TC__MK_ATTR __attribute__((optimize("fp-contract=fast")))
#else
#define TC__MK_ATTR
#endif
#if defined(__clang__)
#define TC__MK_CONTRACT _Pragma("clang fp contract(fast)")
#else
#define TC__MK_CONTRACT
#endif

#if defined(__GNUC__) || defined(__clang__)
typedef float tc__mk_vf __attribute__((vector_size(64)));
typedef double tc__mk_vd __attribute__((vector_size(64)));

/* One reduction step of a tile: 4 rows x 4 vectors. */
#define TC__MK_STEP(VT, y0, y1, y2, y3, x)                                                    \
    do {                                                                                     \
        a00 += x[0] * y0; a01 += x[0] * y1; a02 += x[0] * y2; a03 += x[0] * y3;             \
        a10 += x[1] * y0; a11 += x[1] * y1; a12 += x[1] * y2; a13 += x[1] * y3;             \
        a20 += x[2] * y0; a21 += x[2] * y1; a22 += x[2] * y2; a23 += x[2] * y3;             \
        a30 += x[3] * y0; a31 += x[3] * y1; a32 += x[3] * y2; a33 += x[3] * y3;             \
    } while (0)

#define TC__MK_KERNEL(name, T, VT, NL)                                                       \
    TC__PRIVATE TC__MK_ATTR void name(const tc__mk_args *A, T *out) {                        \
        TC__MK_CONTRACT                                                                      \
        const T *X = (const T *)A->X, *Y = (const T *)A->Y;                                 \
        const int64_t *ox = A->ox, *oy = A->oy;                                              \
        int64_t xo[TC__MK_ROWS], t, T_ = A->steps, ys = A->ys;                                  \
        VT a00 = {0}, a01 = {0}, a02 = {0}, a03 = {0}, a10 = {0}, a11 = {0}, a12 = {0};      \
        VT a13 = {0}, a20 = {0}, a21 = {0}, a22 = {0}, a23 = {0}, a30 = {0}, a31 = {0};      \
        VT a32 = {0}, a33 = {0}, y0, y1, y2, y3;                                             \
        const int W4 = (int)(sizeof(VT) / sizeof(T));                                       \
        int r, l;                                                                            \
        for (r = 0; r < TC__MK_ROWS; r++) xo[r] = r < A->rows ? r * A->xr : 0;               \
        if (A->packed || (ys == 1 && A->lanes == NL)) {                                      \
            for (t = 0; t < T_; t++) {                                                       \
                const T *y = A->packed ? Y + t * NL : Y + oy[t], *xp = X + ox[t];            \
                T x[TC__MK_ROWS];                                                            \
                x[0] = xp[xo[0]]; x[1] = xp[xo[1]]; x[2] = xp[xo[2]]; x[3] = xp[xo[3]];      \
                memcpy(&y0, y, sizeof y0);                                                   \
                memcpy(&y1, y + W4, sizeof y1);                                              \
                memcpy(&y2, y + 2 * W4, sizeof y2);                                          \
                memcpy(&y3, y + 3 * W4, sizeof y3);                                          \
                TC__MK_STEP(VT, y0, y1, y2, y3, x);                                          \
            }                                                                                \
        } else {                                                                             \
            T yb[NL];                                                                        \
            memset(yb, 0, sizeof yb);                                                        \
            for (t = 0; t < T_; t++) {                                                       \
                const T *y = Y + oy[t], *xp = X + ox[t];                                     \
                T x[TC__MK_ROWS];                                                            \
                for (l = 0; l < A->lanes; l++) yb[l] = y[l * ys];                            \
                x[0] = xp[xo[0]]; x[1] = xp[xo[1]]; x[2] = xp[xo[2]]; x[3] = xp[xo[3]];      \
                memcpy(&y0, yb, sizeof y0);                                                  \
                memcpy(&y1, yb + W4, sizeof y1);                                             \
                memcpy(&y2, yb + 2 * W4, sizeof y2);                                         \
                memcpy(&y3, yb + 3 * W4, sizeof y3);                                         \
                TC__MK_STEP(VT, y0, y1, y2, y3, x);                                          \
            }                                                                                \
        }                                                                                    \
        memcpy(out + 0 * NL, &a00, sizeof a00); memcpy(out + 0 * NL + W4, &a01, sizeof a00); \
        memcpy(out + 0 * NL + 2 * W4, &a02, sizeof a00); memcpy(out + 0 * NL + 3 * W4, &a03, sizeof a00); \
        memcpy(out + 1 * NL, &a10, sizeof a00); memcpy(out + 1 * NL + W4, &a11, sizeof a00); \
        memcpy(out + 1 * NL + 2 * W4, &a12, sizeof a00); memcpy(out + 1 * NL + 3 * W4, &a13, sizeof a00); \
        memcpy(out + 2 * NL, &a20, sizeof a00); memcpy(out + 2 * NL + W4, &a21, sizeof a00); \
        memcpy(out + 2 * NL + 2 * W4, &a22, sizeof a00); memcpy(out + 2 * NL + 3 * W4, &a23, sizeof a00); \
        memcpy(out + 3 * NL, &a30, sizeof a00); memcpy(out + 3 * NL + W4, &a31, sizeof a00); \
        memcpy(out + 3 * NL + 2 * W4, &a32, sizeof a00); memcpy(out + 3 * NL + 3 * W4, &a33, sizeof a00); \
    }
TC__MK_KERNEL(tc__mk_tile_f32, float, tc__mk_vf, TC__MK_LANES32)
TC__MK_KERNEL(tc__mk_tile_f64, double, tc__mk_vd, TC__MK_LANES64)
#undef TC__MK_KERNEL
#undef TC__MK_STEP
#else
/* Portable: the same tile with plain arrays. */
#define TC__MK_KERNEL(name, T, NL)                                                           \
    TC__PRIVATE void name(const tc__mk_args *A, T *out) {                                    \
        const T *X = (const T *)A->X, *Y = (const T *)A->Y;                                 \
        int64_t t;                                                                           \
        int r, l;                                                                            \
        for (l = 0; l < TC__MK_ROWS * NL; l++) out[l] = 0;                                   \
        for (t = 0; t < A->steps; t++)                                                           \
            for (r = 0; r < TC__MK_ROWS; r++) {                                              \
                T x = X[A->ox[t] + (r < A->rows ? r * A->xr : 0)];                           \
                for (l = 0; l < A->lanes; l++)                                               \
                    out[r * NL + l] += x * (A->packed ? Y[t * NL + l] : Y[A->oy[t] + l * A->ys]); \
            }                                                                                \
    }
TC__MK_KERNEL(tc__mk_tile_f32, float, TC__MK_LANES32)
TC__MK_KERNEL(tc__mk_tile_f64, double, TC__MK_LANES64)
#undef TC__MK_KERNEL
#endif

/* Runs a tile and stores (or adds) its valid rows and lanes into W. */
TC__PRIVATE void tc__mk_tile(tc_dtype t, const tc__mk_args *A) {
    int r, l;
    if (t == TC_FLOAT32) {
        float out[TC__MK_ROWS * TC__MK_LANES32];
        float *W = (float *)A->W;
        tc__mk_tile_f32(A, out);
        for (r = 0; r < A->rows; r++)
            for (l = 0; l < A->lanes; l++) {
                float *w = W + r * A->wr + l * A->ws;
                *w = A->assign ? out[r * TC__MK_LANES32 + l] : *w + out[r * TC__MK_LANES32 + l];
            }
    } else {
        double out[TC__MK_ROWS * TC__MK_LANES64];
        double *W = (double *)A->W;
        tc__mk_tile_f64(A, out);
        for (r = 0; r < A->rows; r++)
            for (l = 0; l < A->lanes; l++) {
                double *w = W + r * A->wr + l * A->ws;
                *w = A->assign ? out[r * TC__MK_LANES64 + l] : *w + out[r * TC__MK_LANES64 + l];
            }
    }
}

/* Copies the Y columns of a tile, step by step, into contiguous rows of
   `NL` lanes (zero-padded): the microkernel then streams them from cache
   with unit stride, whatever Y's layout. */
TC__PRIVATE void tc__mk_pack(tc_dtype t, const tc__mk_args *A, void *dst) {
    int64_t s;
    int l;
    if (t == TC_FLOAT32) {
        const float *Y = (const float *)A->Y;
        float *d = (float *)dst;
        for (s = 0; s < A->steps; s++, d += TC__MK_LANES32) {
            const float *y = Y + A->oy[s];
            if (A->ys == 1) memcpy(d, y, sizeof(float) * (size_t)A->lanes);
            else for (l = 0; l < A->lanes; l++) d[l] = y[l * A->ys];
            for (l = A->lanes; l < TC__MK_LANES32; l++) d[l] = 0.0f;
        }
    } else {
        const double *Y = (const double *)A->Y;
        double *d = (double *)dst;
        for (s = 0; s < A->steps; s++, d += TC__MK_LANES64) {
            const double *y = Y + A->oy[s];
            if (A->ys == 1) memcpy(d, y, sizeof(double) * (size_t)A->lanes);
            else for (l = 0; l < A->lanes; l++) d[l] = y[l * A->ys];
            for (l = A->lanes; l < TC__MK_LANES64; l++) d[l] = 0.0;
        }
    }
}

/* ==== [tc:plan-types] Per-run state ========================================
   A plan holds everything that depends on concrete sizes: size values,
   tensor strides, the per-statement schedule (lane loop, loop bounds, read
   strides), temporaries and one register file per thread. */

typedef struct tc__vm_rplan { /* a read slot, for concrete sizes */
    int tensor;
    tc_dtype st;        /* storage dtype */
    int64_t c0;         /* element offset of the affine dims at loop values 0 */
    int64_t *lstride;   /* per loop: element stride through the affine dims */
    int checked;        /* masked affine read not proven in bounds: check lanes */
} tc__vm_rplan;

typedef struct tc__vm_splan {
    const tc__vm_stmt *vs;
    const tc_ir_stmt *st;
    int n_loops;
    int64_t *lo, *hi;
    int lane;           /* lane loop; -1: a single lane */
    int lane_red;       /* the lane loop reduces (partial sums across lanes) */
    int n_outer, n_red;
    int *outer, *red;   /* loops walked outside / inside the block */
    int64_t n_blocks, n_items, n_chunks;
    double work;        /* lane-iterations of the whole statement */
    int empty, red_empty;
    int any_empty;      /* some loop is empty: the body never runs */
    int init;           /* 1: fill the tensor with the identity first */
    int fused;          /* `!` folded into the accumulator: the store assigns */
    int direct;         /* `=` with a contiguous write: the last instruction stores */
    int wt;             /* written tensor */
    tc__vm_rplan *reads;
    /* contraction microkernel (mk): X constant along the lanes, Y along them */
    int mk, mk_x, mk_y, mk_row, mk_lanes, n_mk_outer, mk_packed;
    int *mk_outer;      /* output loops other than the lane and row loops */
    int64_t mk_T, mk_lane_tiles, mk_row_blocks;
    int64_t *mk_ox, *mk_oy; /* per reduction step: offsets in X and Y */
    int ct;             /* run by the packed contraction engine (tc_contract.h) */
    tc__contract_shape ct_shape;
    int wred;           /* window reduction: the value is one read, reduced from memory */
    int wred_pair;      /* ... whose innermost two steps are adjacent elements */
} tc__vm_splan;

typedef struct tc__vm_thread {
    unsigned char *regs; /* (n_regs + 2) registers of TC_BLOCK * 8 bytes */
    unsigned char *pack; /* packed Y columns of the contraction microkernel */
    void **rp;           /* where each register's lanes are (own buffer or tensor) */
    void *direct;        /* the last instruction writes here (a direct store) */
    unsigned char *uni;  /* per register: lane-uniform (see tc__vm_one_lane) */
    const void *pf_base; /* the last block prefetched by a LOAD: tensor, byte offset */
    int64_t pf_off;
    int64_t *idx;        /* loop values */
    tc_error err;
} tc__vm_thread;

struct tc_plan {
    const tc_program *prog;
    const tc_ir_def *ir;
    const tc__vm_def *vm;
    tc__arena arena;
    int def;
    int64_t *sx;
    int64_t (*ext)[TC_MAX_RANK];     /* per tensor */
    int64_t (*ts)[TC_MAX_RANK];      /* per tensor: element strides */
    int64_t *numel;
    tc_tensor *in_desc;              /* inputs as planned (shape, dtype, strides) */
    int64_t *in_value;               /* 0-rank integer inputs used in sizes */
    unsigned char **ptr;             /* per tensor, set for each run */
    unsigned char **temp;            /* per tensor: temporaries' buffers */
    tc__vm_splan *stmts;
    int n_threads;
    tc__vm_thread *threads;
    int unchecked;
    size_t pack_bytes;               /* per thread, for the microkernel */
    int *group_end;                  /* per statement: end of the row group it starts */
    int64_t *group_chunks;
};

/* ==== [tc:vm] The block VM ==================================================
   Executes one statement's bytecode for n lanes at the loop values idx
   (the lane loop's entry is the block's first value). A plain switch with
   no default: -Wswitch flags an opcode without a handler. */

typedef struct tc__vm_run {
    const tc_plan *P;
    const tc__vm_splan *sp;
    tc__vm_thread *T;
    int check; /* run only the gather check slice: no stores */
} tc__vm_run;

#define TC__VM_REG(T, r) ((void *)((T)->regs + (size_t)(r) * (TC_BLOCK * 8)))

TC__PRIVATE int64_t tc__vm_read_offset(const tc__vm_splan *sp, const tc__vm_rplan *rp,
                                       const int64_t *idx) {
    int64_t off = rp->c0;
    int l;
    for (l = 0; l < sp->n_loops; l++) off += rp->lstride[l] * idx[l];
    return off;
}

TC__PRIVATE int tc__vm_bounds_error(tc__vm_run *R, int slot, int dim, int64_t v) {
    const tc__vm_stmt *vs = R->sp->vs;
    const tc_ir_tensor *t = &R->P->ir->tensors[vs->reads[slot].tensor];
    tc__set_error(&R->T->err, TC_ERR_BOUNDS,
                  "index %lld out of range [0, %lld) in dimension %d of %s, read by `%s` "
                  "(line %d)",
                  (long long)v, (long long)R->P->ext[vs->reads[slot].tensor][dim], dim, t->name,
                  vs->ir->text ? vs->ir->text : "?", vs->ir->line);
    return 0;
}

/* A masked affine read whose bounds range inference did not prove: every
   lane that is on is checked, dimension by dimension. */
TC__PRIVATE int tc__vm_check_lanes(tc__vm_run *R, int slot, const uint8_t *m, int n) {
    const tc__vm_splan *sp = R->sp;
    const tc_ir_node *nd = &sp->st->nodes[sp->vs->reads[slot].node];
    int tn = sp->vs->reads[slot].tensor, d, l, i;
    for (d = 0; d < R->P->ir->tensors[tn].rank; d++) {
        const tc_ir_index *ix = &nd->index[d];
        int64_t base = R->P->sx[ix->offset], step = sp->lane >= 0 ? ix->coef[sp->lane] : 0;
        for (l = 0; l < sp->n_loops; l++) base += ix->coef[l] * R->T->idx[l];
        for (i = 0; i < n; i++) {
            int64_t v = base + step * i;
            if (m[i] && (v < 0 || v >= R->P->ext[tn][d])) return tc__vm_bounds_error(R, slot, d, v);
        }
    }
    return 1;
}

/* Asks for the next block's cache lines early: a block's loads come in
   bursts, one stream at a time, which the hardware prefetchers alone do
   not keep ahead of. A hint only: never dereferenced, so it may point
   past the tensor (the address is computed in integers). */
TC__PRIVATE void tc__vm_prefetch(const void *base, int64_t byte_off, int bytes, int write) {
#if defined(__GNUC__) || defined(__clang__)
    uintptr_t p = (uintptr_t)base + (uintptr_t)byte_off;
    int q;
    for (q = 0; q < bytes; q += 64) {
        if (write) __builtin_prefetch((const void *)(p + (uintptr_t)q), 1);
        else __builtin_prefetch((const void *)(p + (uintptr_t)q), 0);
    }
#else
    (void)base; (void)byte_off; (void)bytes; (void)write;
#endif
}

/* LOAD: contiguous reads of a plain dtype become a pointer into the tensor
   (no copy); others are copied into the destination d. */
TC__PRIVATE int tc__vm_do_load(tc__vm_run *R, const tc__vm_ins *in, void *d, int n) {
    const tc__vm_rplan *rp = &R->sp->reads[in->b];
    const unsigned char *base = R->P->ptr[rp->tensor];
    size_t esz = tc_dtype_size(rp->st);
    int64_t off = tc__vm_read_offset(R->sp, rp, R->T->idx);
    int64_t ls = R->sp->lane >= 0 ? rp->lstride[R->sp->lane] : 0;
    const uint8_t *m;
    int64_t *offs;
    int i;
    if (in->c == TC__VM_NONE) {
        if (ls == 1 && rp->st != TC_FLOAT16 && rp->st != TC_BOOL && d != R->T->direct) {
            R->T->rp[in->a] = (void *)(uintptr_t)(base + off * (int64_t)esz); /* read only */
            if (R->T->pf_base != base || R->T->pf_off + 256 < (off + TC__VM_PF_DIST * n) * (int64_t)esz ||
                R->T->pf_off > (off + TC__VM_PF_DIST * n) * (int64_t)esz + 256) { /* not just prefetched */
                R->T->pf_base = base;
                R->T->pf_off = (off + TC__VM_PF_DIST * n) * (int64_t)esz;
                tc__vm_prefetch(base, R->T->pf_off, n * (int)esz, 0);
            }
            return 1;
        }
        tc__k_load(rp->st, d, base + off * (int64_t)esz, ls, n);
        return 1;
    }
    m = (const uint8_t *)R->T->rp[in->c];
    if (rp->checked && !R->P->unchecked && !tc__vm_check_lanes(R, in->b, m, n)) return 0;
    offs = (int64_t *)TC__VM_REG(R->T, R->sp->vs->n_regs + 1); /* scratch register */
    for (i = 0; i < n; i++) offs[i] = off + ls * i;
    tc__k_gload(rp->st, d, base, offs, m, n);
    return 1;
}

TC__PRIVATE void tc__vm_do_goff(tc__vm_run *R, const tc__vm_ins *in, void *dv, int n) {
    const tc__vm_rplan *rp = &R->sp->reads[in->b];
    int64_t off = tc__vm_read_offset(R->sp, rp, R->T->idx);
    int64_t ls = R->sp->lane >= 0 ? rp->lstride[R->sp->lane] : 0;
    int64_t *TC__RESTRICT d = (int64_t *)dv;
    int i;
    for (i = 0; i < n; i++) d[i] = off + ls * i;
}

/* Lane index of a gather as int64; unsigned values above INT64_MAX map to
   -1 (out of range either way). */
TC__PRIVATE void tc__vm_index_to_i64(tc_dtype t, const void *src, int64_t *d, int n) {
    int i;
    switch (t) {
#define TC__VM_IX(DT, T, CONV)                                                               \
    case TC_##DT: {                                                                          \
        const T *s = (const T *)src;                                                         \
        TC__VM_LOOP(CONV);                                                                   \
        break;                                                                               \
    }
        TC__VM_IX(INT8, int8_t, (int64_t)s[i])
        TC__VM_IX(INT16, int16_t, (int64_t)s[i])
        TC__VM_IX(INT32, int32_t, (int64_t)s[i])
        TC__VM_IX(INT64, int64_t, s[i])
        TC__VM_IX(UINT8, uint8_t, (int64_t)s[i])
        TC__VM_IX(UINT16, uint16_t, (int64_t)s[i])
        TC__VM_IX(UINT32, uint32_t, (int64_t)s[i])
        TC__VM_IX(UINT64, uint64_t, s[i] > (uint64_t)INT64_MAX ? -1 : (int64_t)s[i])
#undef TC__VM_IX
    default: TC__VM_LOOP(0); break;
    }
}

TC__PRIVATE int tc__vm_do_gidx(tc__vm_run *R, const tc__vm_ins *in, int n) {
    int tn = R->sp->reads[in->c].tensor, i;
    int64_t ext = R->P->ext[tn][in->d], ts = R->P->ts[tn][in->d];
    int64_t *TC__RESTRICT off = (int64_t *)R->T->rp[in->a];
    int64_t *TC__RESTRICT ix = (int64_t *)TC__VM_REG(R->T, R->sp->vs->n_regs + 1);
    const uint8_t *m = in->e == TC__VM_NONE ? NULL : (const uint8_t *)R->T->rp[in->e];
    tc__vm_index_to_i64((tc_dtype)in->dt2, R->T->rp[in->b], ix, n);
    if (!R->P->unchecked) {
        for (i = 0; i < n; i++)
            if ((!m || m[i]) && (ix[i] < 0 || ix[i] >= ext))
                return tc__vm_bounds_error(R, in->c, in->d, ix[i]);
    }
    /* wrapping arithmetic: unchecked indices must not be undefined behaviour here */
    for (i = 0; i < n; i++) off[i] = (int64_t)((uint64_t)off[i] + (uint64_t)ix[i] * (uint64_t)ts);
    return 1;
}

TC__PRIVATE void tc__vm_do_call(tc__vm_run *R, const tc__vm_ins *in, void *d, int n) {
    void *const *rp = R->T->rp;
    int ar = tc_builtin_arity((tc_builtin)in->dt2);
    const void *a1 = ar > 1 ? rp[in->c] : NULL;
    const void *a2 = ar > 2 ? rp[in->d] : NULL;
    const void *a3 = ar > 3 ? rp[in->e] : NULL;
    if (in->dt == TC_FLOAT32)
        tc__math_block_f32((tc_builtin)in->dt2, (float *)d, (const float *)rp[in->b],
                           (const float *)a1, (const float *)a2, (const float *)a3, n);
    else
        tc__math_block_f64((tc_builtin)in->dt2, (double *)d, (const double *)rp[in->b],
                           (const double *)a1, (const double *)a2, (const double *)a3, n);
}

TC__PRIVATE void tc__vm_do_index(tc__vm_run *R, const tc__vm_ins *in, void *dv, int n) {
    int32_t *TC__RESTRICT d = (int32_t *)dv;
    int64_t v = R->T->idx[in->b];
    int i;
    if (in->b == R->sp->lane) TC__VM_LOOP((int32_t)(v + i));
    else TC__VM_LOOP((int32_t)v);
}

/* Runs the statement's bytecode for n lanes. 0: a gather failed its check.
   Each instruction writes its own register (or, for the last one of a
   direct store, the written tensor) and points rp[a] at it; sources are
   read through rp, which a zero-copy LOAD points into tensor memory. */
/* Lane-uniform values (the same on every lane: broadcast reads, loops
   other than the lane loop, the prologue, and pure operations on those)
   are computed on lane 0 only: sqrt(var(i) + eps) once per block, not per
   lane. T->uni[r]: TC__VM_UNI set when uniform; the low bits hold the
   element size while only lane 0 is written. A lane-varying consumer
   first spreads lane 0 over the block. */
#define TC__VM_UNI 0x80
TC__PRIVATE int tc__vm_one_lane(const tc__vm_run *R, const tc__vm_ins *in, const unsigned *src,
                                int ns) {
    const unsigned char *uni = R->T->uni;
    int k;
    switch ((tc_opcode)in->op) {
    case TC_OP_CONST: case TC_OP_SIZE: return 1;
    case TC_OP_INDEX: return in->b != R->sp->lane;
    case TC_OP_LOAD:
        return in->c == TC__VM_NONE && (R->sp->lane < 0 || R->sp->reads[in->b].lstride[R->sp->lane] == 0);
    case TC_OP_GOFF: case TC_OP_GIDX: case TC_OP_GLOAD: case TC_OP_COUNT: return 0;
    default: break;
    }
    for (k = 0; k < ns; k++)
        if (!(uni[src[k]] & TC__VM_UNI)) return 0;
    return 1;
}

TC__PRIVATE void tc__vm_spread(tc__vm_thread *T, const unsigned *src, int ns, int n) {
    int k;
    for (k = 0; k < ns; k++) {
        unsigned r = src[k];
        if (T->uni[r] & 0x7f) {
            unsigned char v[8];
            memcpy(v, T->rp[r], T->uni[r] & 0x7f);
            tc__k_fill(T->uni[r] & 0x7f, T->rp[r], v, n);
            T->uni[r] = TC__VM_UNI;
        }
    }
}

TC__PRIVATE int tc__vm_exec_range(tc__vm_run *R, const tc__vm_ins *in, const tc__vm_ins *end,
                                  int n) {
    const tc__vm_stmt *vs = R->sp->vs;
    tc__vm_thread *T = R->T;
    void **rp = T->rp;
    for (; in < end; in++) {
        tc_dtype t = (tc_dtype)in->dt;
        int direct = in + 1 == end && T->direct, nl = n;
        void *d = direct ? T->direct : TC__VM_REG(T, in->a);
        unsigned src[5];
        int ns;
        if (R->check && !vs->check[in - vs->ins]) continue;
        ns = tc__vm_sources(in, src);
        if (!direct && tc__vm_one_lane(R, in, src, ns)) {
            nl = 1;
            T->uni[in->a] = (unsigned char)(TC__VM_UNI | (in->op >= TC_OP_LT && in->op <= TC_OP_OR
                                                              ? 1u : (unsigned)tc_dtype_size(t)));
        } else {
            tc__vm_spread(T, src, ns, n);
            if (in->op != TC_OP_GIDX) T->uni[in->a] = 0;
        }
        if (in->op != TC_OP_GIDX) rp[in->a] = d;
        switch ((tc_opcode)in->op) {
        case TC_OP_CONST: tc__k_fill(tc_dtype_size(t), d, &vs->consts[in->b], nl); break;
        case TC_OP_INDEX: tc__vm_do_index(R, in, d, nl); break;
        case TC_OP_SIZE: {
            int32_t v = (int32_t)R->P->sx[in->b];
            tc__k_fill(4, d, &v, nl);
            break;
        }
        case TC_OP_LOAD: if (!tc__vm_do_load(R, in, d, nl)) return 0; break;
        case TC_OP_GOFF: tc__vm_do_goff(R, in, d, nl); break;
        case TC_OP_GIDX: if (!tc__vm_do_gidx(R, in, nl)) return 0; break;
        case TC_OP_GLOAD:
            tc__k_gload(R->sp->reads[in->c].st, d, R->P->ptr[R->sp->reads[in->c].tensor],
                        (const int64_t *)rp[in->b],
                        in->d == TC__VM_NONE ? NULL : (const uint8_t *)rp[in->d], nl);
            break;
        case TC_OP_NEG: tc__k_arith(TC_OP_NEG, t, d, rp[in->b], rp[in->b], nl); break;
        case TC_OP_NOT: tc__k_logic(TC_OP_NOT, d, rp[in->b], rp[in->b], nl); break;
        case TC_OP_CAST: tc__k_cast((tc_dtype)in->dt2, t, d, rp[in->b], nl); break;
        case TC_OP_ADD: case TC_OP_SUB: case TC_OP_MUL: case TC_OP_DIV: case TC_OP_MOD:
        case TC_OP_MIN: case TC_OP_MAX: tc__k_arith(in->op, t, d, rp[in->b], rp[in->c], nl); break;
        case TC_OP_LT: case TC_OP_LE: case TC_OP_GT: case TC_OP_GE: case TC_OP_EQ: case TC_OP_NE:
            tc__k_cmp(in->op, t, d, rp[in->b], rp[in->c], nl);
            break;
        case TC_OP_AND: case TC_OP_OR: tc__k_logic(in->op, d, rp[in->b], rp[in->c], nl); break;
        case TC_OP_SELECT:
            tc__k_select(tc_dtype_size(t), d, (const uint8_t *)rp[in->b], rp[in->c], rp[in->d], nl);
            break;
        case TC_OP_CALL: tc__vm_do_call(R, in, d, nl); break;
        case TC_OP_COUNT: return 0; /* unreachable after verification */
        }
    }
    return 1;
}

/* The block body (after the prologue). */
TC__PRIVATE int tc__vm_exec(tc__vm_run *R, int n) {
    const tc__vm_stmt *vs = R->sp->vs;
    unsigned v = (unsigned)vs->value;
    R->T->pf_base = NULL;
    if (!tc__vm_exec_range(R, vs->ins + vs->n_pro, vs->ins + vs->n_ins, n)) return 0;
    if (!R->T->direct && !R->check) tc__vm_spread(R->T, &v, 1, n); /* the store reads every lane */
    return 1;
}
/* The prologue, over every lane: run before a thread's first block. */
TC__PRIVATE void tc__vm_prologue(tc__vm_run *R) {
    const tc__vm_stmt *vs = R->sp->vs;
    void *direct = R->T->direct;
    int i;
    R->T->direct = NULL;
    tc__vm_exec_range(R, vs->ins, vs->ins + vs->n_pro, TC_BLOCK);
    for (i = 0; i < vs->n_pro; i++) { /* every lane, for every block */
        unsigned a = vs->ins[i].a;
        tc__vm_spread(R->T, &a, 1, TC_BLOCK);
    }
    R->T->direct = direct;
}

/* ==== [tc:sched] Per-run schedule and statement execution ===================
   Lane loop: the loop whose lanes make the cheapest accesses (contiguous or
   broadcast reads, a contiguous write), weighted by how many lanes it
   fills. When it is an output loop (type A) the reduction loops run inside
   each block with the accumulator in a register and one store after them;
   when it is a reduction loop (type B: rowsum, softmax's max and sum),
   lanes hold partial results folded in a fixed tree at the end.

   Faster paths, chosen per run from the sizes, all with results fixed by
   the sizes alone:
   - float32 contractions (X * Y summed): the packed engine of
     [tc:contract] (GEMM / GEMV / row paths); other float contractions:
     the register-blocked tile of [tc:kernels] with packed Y panels;
   - window reductions (the value is one read: pooling) reduce straight
     from memory over a table of the reduction loops' offsets;
   - `=` into a contiguous row: the last instruction stores directly;
   - consecutive statements over the same rows whose shared tensors are
     all accessed at row i (softmax, layernorm) run as one row group, chunk
     by chunk of rows, so what one writes is still in cache for the next.

   Threads take whole items (blocks of output elements, tiles, row chunks)
   in chunks fixed by the sizes: reductions are never split, so results
   never depend on the thread count. */

#define TC__VM_CHUNK_WORK 32768.0 /* lane-iterations per chunk, about */
#define TC__VM_MAX_CHUNKS 1024
#define TC__MK_PACK_MAX (1 << 21) /* bytes of packed Y per thread, at most */

TC__PRIVATE void *tc__plan_alloc(tc_plan *P, size_t n, size_t size) {
    if (size && n > ((size_t)-1) / 4 / size) return NULL;
    return tc__arena_alloc_raw(&P->arena, (n * size) != 0 ? n * size : 1);
}

TC__PRIVATE int64_t tc__vm_extent(const tc__vm_splan *sp, int l) {
    return sp->hi[l] > sp->lo[l] ? sp->hi[l] - sp->lo[l] : 0;
}

TC__PRIVATE int tc__vm_pick_lane(const tc_plan *P, const tc__vm_splan *sp) {
    const tc_ir_stmt *st = sp->st;
    int l, r, best = -1;
    double best_score = -1.0;
    for (l = 0; l < st->n_loops; l++) {
        int64_t ext = tc__vm_extent(sp, l);
        double score = 0.0;
        for (r = 0; r < sp->vs->n_reads; r++) {
            int64_t s = sp->reads[r].lstride[l];
            score += s == 0 ? 2.0 : (s == 1 || s == -1) ? 3.0 : 0.0;
        }
        if (!st->loops[l].reduction)
            score += P->ts[sp->wt][l] == 1 ? 3.0 : 0.0;
        else
            score += 1.0;
        score = (score + 0.5) * (double)(ext < TC_BLOCK ? ext : TC_BLOCK);
        if (score > best_score || (score == best_score && !st->loops[l].reduction)) {
            best = l;
            best_score = score;
        }
    }
    return best;
}

/* Strides of a read slot through its affine dims, and (when the domain is
   not empty) the proof that every affine index stays in bounds. */
TC__PRIVATE tc_status tc__vm_plan_read(tc_plan *P, tc__vm_splan *sp, int slot, tc_error *err) {
    const tc__vm_read *rd = &sp->vs->reads[slot];
    const tc_ir_node *nd = &sp->st->nodes[rd->node];
    const tc_ir_tensor *t = &P->ir->tensors[rd->tensor];
    tc__vm_rplan *rp = &sp->reads[slot];
    int d, l, ok = 1;
    rp->tensor = rd->tensor;
    rp->st = t->dtype;
    rp->lstride = (int64_t *)tc__plan_alloc(P, (size_t)sp->n_loops + 1, sizeof(int64_t));
    if (!rp->lstride) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    for (d = 0; d < t->rank; d++) {
        const tc_ir_index *ix = &nd->index[d];
        int64_t ts = P->ts[rd->tensor][d], lo, hi, c;
        if (!ix->affine) continue;
        lo = hi = P->sx[ix->offset];
        ok &= tc__mul64(ts, lo, &c) && tc__add64(rp->c0, c, &rp->c0);
        for (l = 0; l < sp->n_loops; l++) {
            int64_t k = ix->coef[l], a = 0, b = 0;
            ok &= tc__mul64(k, ts, &c) && tc__add64(rp->lstride[l], c, &rp->lstride[l]);
            ok &= tc__mul64(k, sp->lo[l], &a) && tc__mul64(k, sp->hi[l] - 1, &b);
            if (!sp->any_empty) {
                ok &= tc__add64(lo, a < b ? a : b, &lo) && tc__add64(hi, a < b ? b : a, &hi);
            }
        }
        if (!ok) return tc__set_error(err, TC_ERR_LIMIT, "index arithmetic of %s overflows", t->name);
        if (!sp->any_empty && (lo < 0 || hi >= P->ext[rd->tensor][d])) {
            if (rd->masked && !rd->gather) rp->checked = 1;
            else
                return tc__set_error(err, TC_ERR_BOUNDS,
                                     "`%s` (line %d) reads %s at indices %lld..%lld in dimension "
                                     "%d, whose extent is %lld",
                                     sp->st->text ? sp->st->text : "?", sp->st->line, t->name,
                                     (long long)lo, (long long)hi, d,
                                     (long long)P->ext[rd->tensor][d]);
        }
    }
    return TC_OK;
}

/* The written range must lie inside the written tensor. */
TC__PRIVATE tc_status tc__vm_check_write(const tc_plan *P, const tc__vm_splan *sp, tc_error *err) {
    const tc_ir_tensor *t = &P->ir->tensors[sp->wt];
    int d;
    if (sp->empty) return TC_OK;
    for (d = 0; d < t->rank; d++)
        if (sp->lo[d] < 0 || sp->hi[d] > P->ext[sp->wt][d])
            return tc__set_error(err, TC_ERR_BOUNDS,
                                 "`%s` (line %d) writes %s at indices %lld..%lld in dimension %d, "
                                 "whose extent is %lld",
                                 sp->st->text ? sp->st->text : "?", sp->st->line, t->name,
                                 (long long)sp->lo[d], (long long)sp->hi[d] - 1, d,
                                 (long long)P->ext[sp->wt][d]);
    return TC_OK;
}

/* Loop order, items and chunks once the lane loop is known. */
TC__PRIVATE void tc__vm_plan_order(const tc_plan *P, tc__vm_splan *sp) {
    const tc_ir_stmt *st = sp->st;
    int rank = P->ir->tensors[sp->wt].rank, l, r;
    double work = 1.0;
    sp->lane_red = sp->lane >= 0 && st->loops[sp->lane].reduction;
    for (l = 0; l < st->n_loops; l++) {
        if (l == sp->lane) continue;
        if (l < rank) sp->outer[sp->n_outer++] = l;
        else sp->red[sp->n_red++] = l;
        if (l >= rank && tc__vm_extent(sp, l) == 0) sp->red_empty = 1;
    }
    if (sp->lane_red && tc__vm_extent(sp, sp->lane) == 0) sp->red_empty = 1;
    sp->n_blocks = sp->lane < 0 ? 1 : (tc__vm_extent(sp, sp->lane) + TC_BLOCK - 1) / TC_BLOCK;
    sp->n_items = sp->lane_red ? 1 : sp->n_blocks;
    for (l = 0; l < sp->n_outer; l++) sp->n_items *= tc__vm_extent(sp, sp->outer[l]);
    for (r = 0; r < st->n_loops; r++) work *= (double)(tc__vm_extent(sp, r) ? tc__vm_extent(sp, r) : 1);
    sp->work = work;
    sp->n_chunks = (int64_t)(work / TC__VM_CHUNK_WORK);
    if (sp->n_chunks > TC__VM_MAX_CHUNKS) sp->n_chunks = TC__VM_MAX_CHUNKS;
    if (sp->n_chunks > sp->n_items) sp->n_chunks = sp->n_items;
    if (sp->n_chunks < 1) sp->n_chunks = 1;
}

/* `!` is folded into the accumulator when the statement writes every
   element of the tensor and does not read it. */
TC__PRIVATE void tc__vm_plan_init(const tc_plan *P, tc__vm_splan *sp) {
    int rank = P->ir->tensors[sp->wt].rank, d, covers = !sp->empty;
    sp->init = sp->st->init;
    if (!sp->init) return;
    for (d = 0; d < rank; d++)
        covers &= sp->lo[d] == 0 && sp->hi[d] == P->ext[sp->wt][d];
    for (d = 0; d < sp->vs->n_reads; d++) covers &= sp->vs->reads[d].tensor != sp->wt;
    if (covers) {
        sp->fused = 1;
        sp->init = 0;
    }
}

/* float32 contractions go to the packed contraction engine when it takes
   them (GEMM, GEMV and row paths, cache-blocked): tasks of whole packed
   panels, in chunks of whole panel groups so each thread packs a panel
   once. Its sums are complete per element, so threads never change them. */
TC__PRIVATE int tc__vm_plan_engine(tc_plan *P, tc__vm_splan *sp) {
    const tc__contract *c = sp->vs->engine;
    int64_t groups, tasks;
    size_t scratch;
    if (!c || sp->empty || sp->red_empty) return 0;
    if (c->tensor[0] == sp->wt || c->tensor[1] == sp->wt) return 0;
    if (!tc__contract_prepare(c, P->sx, P->ts[c->tensor[0]], P->ts[c->tensor[1]],
                              P->ts[c->tensor[2]], sp->fused, &sp->ct_shape))
        return 0;
    tasks = tc__contract_tasks(&sp->ct_shape);
    if (tasks <= 0) return 0;
    groups = sp->ct_shape.nm > 0 ? tasks / sp->ct_shape.nm : tasks;
    sp->n_items = tasks;
    sp->n_chunks = groups >= 4 ? groups : tasks;
    if (sp->n_chunks > TC__VM_MAX_CHUNKS) sp->n_chunks = TC__VM_MAX_CHUNKS;
    if (sp->n_chunks > tasks) sp->n_chunks = tasks;
    if (sp->n_chunks < 1) sp->n_chunks = 1;
    scratch = tc__contract_scratch_size(&sp->ct_shape) + TC__CT_ALIGN;
    if (scratch > P->pack_bytes) P->pack_bytes = scratch;
    sp->ct = 1;
    return 1;
}

/* Fills the per-step offset tables of the contraction: the reduction
   loops' contributions to the X and Y offsets, in odometer order. */
TC__PRIVATE int tc__vm_mk_tables(tc_plan *P, tc__vm_splan *sp) {
    const int64_t *sx_ = sp->reads[sp->mk_x].lstride, *sy = sp->reads[sp->mk_y].lstride;
    int64_t idx[64], t = 0, ox = 0, oy = 0;
    int k, l;
    sp->mk_ox = (int64_t *)tc__plan_alloc(P, (size_t)sp->mk_T, sizeof(int64_t));
    sp->mk_oy = (int64_t *)tc__plan_alloc(P, (size_t)sp->mk_T, sizeof(int64_t));
    if (!sp->mk_ox || !sp->mk_oy || sp->n_red > 64) return 0;
    for (k = 0; k < sp->n_red; k++) {
        l = sp->red[k];
        idx[k] = sp->lo[l];
        ox += sx_[l] * sp->lo[l];
        oy += sy[l] * sp->lo[l];
    }
    for (;;) {
        sp->mk_ox[t] = ox;
        sp->mk_oy[t] = oy;
        if (++t == sp->mk_T) return 1;
        for (k = sp->n_red - 1; k >= 0; k--) { /* odometer, last loop fastest */
            l = sp->red[k];
            if (++idx[k] < sp->hi[l]) {
                ox += sx_[l];
                oy += sy[l];
                break;
            }
            ox -= sx_[l] * (idx[k] - 1 - sp->lo[l]);
            oy -= sy[l] * (idx[k] - 1 - sp->lo[l]);
            idx[k] = sp->lo[l];
        }
    }
}

/* value = X * Y summed over the reduction loops, lanes along an output
   loop, X constant along the lanes: run it on the register-blocked tile.
   The row loop is an output loop Y does not depend on (matmul's i,
   convolution's output channel); without one, tiles have one row. */
TC__PRIVATE void tc__vm_plan_contract(tc_plan *P, tc__vm_splan *sp) {
    const tc__vm_stmt *vs = sp->vs;
    int a, b, k, l;
    int64_t strips;
    double steps = 1.0;
    if (!vs->contract.ok || sp->lane < 0 || sp->lane_red || sp->red_empty || sp->n_red == 0 ||
        sp->empty)
        return;
    a = vs->contract.p;
    b = vs->contract.q;
    if (sp->reads[a].lstride[sp->lane] != 0) { a = vs->contract.q; b = vs->contract.p; }
    if (sp->reads[a].lstride[sp->lane] != 0 || sp->reads[b].lstride[sp->lane] == 0) return;
    if (sp->reads[a].tensor == sp->wt || sp->reads[b].tensor == sp->wt) return;
    for (k = 0; k < sp->n_red; k++) steps *= (double)tc__vm_extent(sp, sp->red[k]);
    if (steps > (double)(1 << 22)) return;
    sp->mk_x = a;
    sp->mk_y = b;
    sp->mk_T = (int64_t)steps;
    sp->mk_row = -1;
    for (k = 0; k < sp->n_outer; k++) {
        l = sp->outer[k];
        if (sp->reads[b].lstride[l] == 0 && sp->reads[a].lstride[l] != 0) sp->mk_row = l;
    }
    sp->mk_outer = (int *)tc__plan_alloc(P, (size_t)sp->n_outer + 1, sizeof(int));
    if (!sp->mk_outer || !tc__vm_mk_tables(P, sp)) return;
    for (k = 0; k < sp->n_outer; k++)
        if (sp->outer[k] != sp->mk_row) sp->mk_outer[sp->n_mk_outer++] = sp->outer[k];
    sp->mk_lanes = vs->vdt == TC_FLOAT32 ? TC__MK_LANES32 : TC__MK_LANES64;
    sp->mk_lane_tiles = (tc__vm_extent(sp, sp->lane) + sp->mk_lanes - 1) / sp->mk_lanes;
    sp->mk_row_blocks =
        sp->mk_row < 0 ? 1 : (tc__vm_extent(sp, sp->mk_row) + TC__MK_ROWS - 1) / TC__MK_ROWS;
    sp->n_items = sp->mk_lane_tiles * sp->mk_row_blocks;
    for (k = 0; k < sp->n_mk_outer; k++) sp->n_items *= tc__vm_extent(sp, sp->mk_outer[k]);
    /* chunks of whole strips (a strip: the row blocks sharing one packed Y),
       unless there are too few strips to share */
    strips = sp->n_items / sp->mk_row_blocks;
    sp->n_chunks = strips >= 4 ? strips : strips * 8;
    if (sp->n_chunks > TC__VM_MAX_CHUNKS) sp->n_chunks = TC__VM_MAX_CHUNKS;
    if (sp->n_chunks > sp->n_items) sp->n_chunks = sp->n_items;
    if (sp->n_chunks < 1) sp->n_chunks = 1;
    sp->mk = 1;
    if (steps * 64.0 * 8.0 <= (double)TC__MK_PACK_MAX) { /* pack when it fits the cache */
        size_t bytes = (size_t)sp->mk_T * (size_t)sp->mk_lanes * tc_dtype_size(vs->vdt);
        sp->mk_packed = 1;
        if (bytes > P->pack_bytes) P->pack_bytes = bytes;
    }
}

/* `=` into a contiguous row of a plain dtype, the value made by the last
   instruction, the tensor not read by the statement: that instruction
   writes the tensor directly and no store follows. */
TC__PRIVATE void tc__vm_plan_direct(const tc_plan *P, tc__vm_splan *sp) {
    const tc__vm_stmt *vs = sp->vs;
    tc_dtype t = P->ir->tensors[sp->wt].dtype;
    int k, rank = P->ir->tensors[sp->wt].rank;
    if (sp->st->reduce != TC_REDUCE_ASSIGN || sp->n_red || sp->lane_red || sp->fused ||
        vs->n_pro == vs->n_ins)
        return;
    if (vs->ins[vs->n_ins - 1].a != vs->value || vs->ins[vs->n_ins - 1].op == TC_OP_GIDX) return;
    if (t == TC_FLOAT16 || t == TC_BOOL) return;
    if (sp->lane >= 0 && (sp->lane >= rank || P->ts[sp->wt][sp->lane] != 1)) return;
    for (k = 0; k < vs->n_reads; k++)
        if (vs->reads[k].tensor == sp->wt) return;
    sp->direct = 1;
}

/* The value is one plain read (LOAD is the whole program), reduced over
   the reduction loops into lanes along an output loop: pooling, window
   sums. Reduced straight from memory over a table of the reduction loops'
   offsets, without the bytecode. */
TC__PRIVATE void tc__vm_plan_wred(tc_plan *P, tc__vm_splan *sp) {
    const tc__vm_stmt *vs = sp->vs;
    const tc__vm_rplan *rp = &sp->reads[0];
    double steps = 1.0;
    int k;
    if (vs->n_ins != 1 || vs->n_pro != 0 || vs->ins[0].op != TC_OP_LOAD || vs->n_reads != 1 ||
        vs->ins[0].c != TC__VM_NONE || sp->lane < 0 || sp->lane_red || sp->n_red == 0 ||
        sp->red_empty || sp->empty || rp->tensor == sp->wt || rp->st == TC_FLOAT16 || rp->st == TC_BOOL)
        return;
    for (k = 0; k < sp->n_red; k++) steps *= (double)tc__vm_extent(sp, sp->red[k]);
    if (steps > (double)(1 << 16)) return;
    sp->mk_x = sp->mk_y = 0;
    sp->mk_T = (int64_t)steps;
    /* the innermost reduction loop covers the gap between lanes (stride 2,
       extent 2, unit stride): read its two steps as one contiguous pair */
    if (rp->lstride[sp->lane] == 2 && rp->lstride[sp->red[sp->n_red - 1]] == 1 &&
        tc__vm_extent(sp, sp->red[sp->n_red - 1]) == 2 && sp->st->reduce != TC_REDUCE_ASSIGN)
        sp->wred_pair = 1;
    if (!tc__vm_mk_tables(P, sp)) return;
    sp->wred = 1;
}

TC__PRIVATE tc_status tc__vm_plan_stmt(tc_plan *P, int s, tc_error *err) {
    tc__vm_splan *sp = &P->stmts[s];
    const tc_ir_stmt *st = &P->ir->stmts[s];
    int l, n = st->n_loops;
    tc_status rc;
    sp->vs = &P->vm->stmts[s];
    sp->st = st;
    sp->n_loops = n;
    sp->wt = st->tensor;
    sp->lo = (int64_t *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int64_t));
    sp->hi = (int64_t *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int64_t));
    sp->outer = (int *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int));
    sp->red = (int *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int));
    sp->reads = (tc__vm_rplan *)tc__plan_alloc(P, (size_t)sp->vs->n_reads + 1, sizeof(tc__vm_rplan));
    if (!sp->lo || !sp->hi || !sp->outer || !sp->red || !sp->reads)
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    for (l = 0; l < n; l++) {
        sp->lo[l] = P->sx[st->loops[l].lo];
        sp->hi[l] = P->sx[st->loops[l].hi];
        if (sp->hi[l] <= sp->lo[l] && !st->loops[l].reduction) sp->empty = 1;
        if (sp->hi[l] <= sp->lo[l]) sp->any_empty = 1;
    }
    for (l = 0; l < sp->vs->n_reads; l++)
        if ((rc = tc__vm_plan_read(P, sp, l, err)) != TC_OK) return rc;
    if ((rc = tc__vm_check_write(P, sp, err)) != TC_OK) return rc;
    sp->lane = tc__vm_pick_lane(P, sp);
    tc__vm_plan_order(P, sp);
    tc__vm_plan_init(P, sp);
    tc__vm_plan_direct(P, sp);
    if (!tc__vm_plan_engine(P, sp)) tc__vm_plan_contract(P, sp);
    tc__vm_plan_wred(P, sp);
    return TC_OK;
}

/* ---- execution ------------------------------------------------------------ */

/* Sets idx[] for the loops in `loops` to their lower bounds; returns 0 when
   one of them is empty. */
TC__PRIVATE int tc__vm_odo_start(const tc__vm_splan *sp, const int *loops, int n, int64_t *idx) {
    int k;
    for (k = 0; k < n; k++) {
        if (sp->hi[loops[k]] <= sp->lo[loops[k]]) return 0;
        idx[loops[k]] = sp->lo[loops[k]];
    }
    return 1;
}
/* Advances the odometer (last loop fastest); 0 when it wraps around. */
TC__PRIVATE int tc__vm_odo_next(const tc__vm_splan *sp, const int *loops, int n, int64_t *idx) {
    int k;
    for (k = n - 1; k >= 0; k--) {
        int l = loops[k];
        if (++idx[l] < sp->hi[l]) return 1;
        idx[l] = sp->lo[l];
    }
    return 0;
}

/* The written tensor's element at the current loop values. */
TC__PRIVATE unsigned char *tc__vm_write_ptr(const tc__vm_run *R) {
    const tc_plan *P = R->P;
    int wt = R->sp->wt, d, rank = P->ir->tensors[wt].rank;
    int64_t off = 0;
    for (d = 0; d < rank; d++) off += R->T->idx[d] * P->ts[wt][d];
    return P->ptr[wt] + off * (int64_t)tc_dtype_size(P->ir->tensors[wt].dtype);
}

TC__PRIVATE void tc__vm_store(tc__vm_run *R, tc_reduce red, const void *v, int n) {
    const tc_plan *P = R->P;
    int wt = R->sp->wt, rank = P->ir->tensors[wt].rank;
    int64_t stride = 0;
    if (R->sp->lane >= 0 && R->sp->lane < rank) stride = P->ts[wt][R->sp->lane];
    tc__k_store(P->ir->tensors[wt].dtype, red, tc__vm_write_ptr(R), stride, v, n);
}

/* Window reduction of one block: acc (r)= read at each reduction step. */
TC__PRIVATE void tc__vm_wred(tc__vm_run *R, void *acc, int n) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_rplan *rp = &sp->reads[0];
    size_t esz = tc_dtype_size(rp->st);
    const unsigned char *base = R->P->ptr[rp->tensor];
    int64_t off = rp->c0, ls = rp->lstride[sp->lane], t;
    int k;
    for (k = 0; k < sp->n_loops; k++) /* the table holds the reduction loops' part */
        if (!sp->st->loops[k].reduction) off += rp->lstride[k] * R->T->idx[k];
    if (sp->wred_pair) { /* steps t, t+1 are a pair (the table's innermost loop); two pairs a pass */
        for (t = 0; t < sp->mk_T; t += 4)
            tc__k_reduce_pair(sp->vs->vdt, sp->st->reduce, acc,
                              base + (off + sp->mk_ox[t]) * (int64_t)esz,
                              t + 2 < sp->mk_T ? base + (off + sp->mk_ox[t + 2]) * (int64_t)esz : NULL,
                              n);
        return;
    }
    for (t = 0; t < sp->mk_T; t++)
        tc__k_reduce_mem(sp->vs->vdt, sp->st->reduce, acc, base + (off + sp->mk_ox[t]) * (int64_t)esz,
                         ls, n);
}

/* Type A: one block of n lanes along an output loop (or a single lane). */
TC__PRIVATE int tc__vm_block(tc__vm_run *R, int n) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_stmt *vs = sp->vs;
    tc_reduce red = sp->st->reduce;
    void *acc = TC__VM_REG(R->T, vs->n_regs);
    unsigned char id[8];
    if (R->check) { /* every reduction step, nothing stored */
        if (!tc__vm_odo_start(sp, sp->red, sp->n_red, R->T->idx)) return 1;
        do {
            if (!tc__vm_exec(R, n)) return 0;
        } while (tc__vm_odo_next(sp, sp->red, sp->n_red, R->T->idx));
        return 1;
    }
    if (sp->n_red == 0 && !sp->fused) {
        if (sp->direct) { /* the last instruction writes the tensor itself */
            R->T->direct = tc__vm_write_ptr(R);
            tc__vm_prefetch(R->T->direct, TC__VM_PF_DIST * n * (int64_t)tc_dtype_size(vs->vdt),
                            n * (int)tc_dtype_size(vs->vdt), 1);
            R->T->rp[vs->value] = NULL;
            if (!tc__vm_exec(R, n)) return 0;
            R->T->direct = NULL;
            return 1;
        }
        if (!tc__vm_exec(R, n)) return 0;
        tc__vm_store(R, red, R->T->rp[vs->value], n);
        return 1;
    }
    tc__vm_identity(vs->vdt, red, id);
    tc__k_fill(tc_dtype_size(vs->vdt), acc, id, (n + 15) / 16 * 16 < TC_BLOCK ? (n + 15) / 16 * 16 : TC_BLOCK);
    if (sp->wred) {
        tc__vm_wred(R, acc, n);
        tc__vm_store(R, sp->fused ? TC_REDUCE_ASSIGN : red, acc, n);
        return 1;
    }
    if (tc__vm_odo_start(sp, sp->red, sp->n_red, R->T->idx)) {
        do {
            if (!tc__vm_exec(R, n)) return 0;
            tc__k_reduce(vs->vdt, red, acc, R->T->rp[vs->value], n);
        } while (tc__vm_odo_next(sp, sp->red, sp->n_red, R->T->idx));
    } else if (!sp->fused) {
        return 1; /* nothing to reduce: the tensor keeps its values */
    }
    tc__vm_store(R, sp->fused ? TC_REDUCE_ASSIGN : red, acc, n);
    return 1;
}

/* Type B: one output element; lanes run along a reduction loop. */
TC__PRIVATE int tc__vm_lane_reduce(tc__vm_run *R) {
    const tc__vm_splan *sp = R->sp;
    const tc__vm_stmt *vs = sp->vs;
    tc_reduce red = sp->st->reduce;
    int64_t ext = tc__vm_extent(sp, sp->lane), b;
    int width = ext < TC_BLOCK ? (int)ext : TC_BLOCK;
    void *acc = TC__VM_REG(R->T, vs->n_regs);
    unsigned char id[8], h[8];
    tc__vm_identity(vs->vdt, red, id);
    if (sp->red_empty) {
        if (sp->fused && !R->check) tc__vm_store(R, TC_REDUCE_ASSIGN, id, 1);
        return 1;
    }
    tc__k_fill(tc_dtype_size(vs->vdt), acc, id, width);
    tc__vm_odo_start(sp, sp->red, sp->n_red, R->T->idx);
    do {
        for (b = 0; b < sp->n_blocks; b++) {
            int64_t start = sp->lo[sp->lane] + b * TC_BLOCK;
            int n = sp->hi[sp->lane] - start < TC_BLOCK ? (int)(sp->hi[sp->lane] - start) : TC_BLOCK;
            R->T->idx[sp->lane] = start;
            if (!tc__vm_exec(R, n)) return 0;
            if (!R->check) tc__k_reduce(vs->vdt, red, acc, R->T->rp[vs->value], n);
        }
    } while (tc__vm_odo_next(sp, sp->red, sp->n_red, R->T->idx));
    if (R->check) return 1;
    tc__k_fold(vs->vdt, red, acc, width, h);
    tc__vm_store(R, sp->fused ? TC_REDUCE_ASSIGN : red, h, 1);
    return 1;
}

/* Items [first, last): decode the outer loops (and the block) of each. */
TC__PRIVATE int tc__vm_items(tc__vm_run *R, int64_t first, int64_t last) {
    const tc__vm_splan *sp = R->sp;
    int64_t it, rest = first, blk = 0, *idx = R->T->idx;
    int k;
    if (first >= last) return 1;
    tc__vm_prologue(R);
    if (!sp->lane_red) { /* decode the first item; later ones advance */
        blk = rest % sp->n_blocks;
        rest /= sp->n_blocks;
    }
    for (k = sp->n_outer - 1; k >= 0; k--) {
        int l = sp->outer[k];
        int64_t e = tc__vm_extent(sp, l);
        idx[l] = sp->lo[l] + rest % e;
        rest /= e;
    }
    for (it = first; it < last; it++) {
        if (sp->lane_red) {
            if (!tc__vm_lane_reduce(R)) return 0;
        } else {
            int n = 1;
            if (sp->lane >= 0) {
                int64_t start = sp->lo[sp->lane] + blk * TC_BLOCK;
                idx[sp->lane] = start;
                n = sp->hi[sp->lane] - start < TC_BLOCK ? (int)(sp->hi[sp->lane] - start) : TC_BLOCK;
            }
            if (!tc__vm_block(R, n)) return 0;
            if (++blk < sp->n_blocks) continue;
            blk = 0;
        }
        tc__vm_odo_next(sp, sp->outer, sp->n_outer, idx);
    }
    return 1;
}

/* Contraction items: (outer loops, lane tile, row block), row blocks
   fastest so consecutive items reuse the same Y columns from cache. */
TC__PRIVATE void tc__vm_mk_items(tc__vm_run *R, int64_t first, int64_t last) {
    const tc__vm_splan *sp = R->sp;
    const tc_plan *P = R->P;
    const tc__vm_rplan *X = &sp->reads[sp->mk_x], *Y = &sp->reads[sp->mk_y];
    int wt = sp->wt, rank = P->ir->tensors[wt].rank, k, d;
    size_t esz = tc_dtype_size(sp->vs->vdt);
    int64_t it, *idx = R->T->idx;
    tc__mk_args A;
    A.xr = sp->mk_row >= 0 ? X->lstride[sp->mk_row] : 0;
    A.ys = Y->lstride[sp->lane];
    A.ox = sp->mk_ox;
    A.oy = sp->mk_oy;
    A.steps = sp->mk_T;
    A.wr = sp->mk_row >= 0 ? P->ts[wt][sp->mk_row] : 0;
    A.ws = P->ts[wt][sp->lane];
    A.assign = sp->fused;
    A.packed = 0;
    for (k = 0; k < sp->n_red; k++) idx[sp->red[k]] = 0; /* the tables hold their part */
    for (it = first; it < last; it++) {
        int64_t rest = it, rb = rest % sp->mk_row_blocks, lt, xo = X->c0, yo = Y->c0, wo = 0;
        rest /= sp->mk_row_blocks;
        lt = rest % sp->mk_lane_tiles;
        rest /= sp->mk_lane_tiles;
        for (k = sp->n_mk_outer - 1; k >= 0; k--) {
            int l = sp->mk_outer[k];
            int64_t e = tc__vm_extent(sp, l);
            idx[l] = sp->lo[l] + rest % e;
            rest /= e;
        }
        idx[sp->lane] = sp->lo[sp->lane] + lt * sp->mk_lanes;
        A.lanes = (int)(sp->hi[sp->lane] - idx[sp->lane] < sp->mk_lanes
                            ? sp->hi[sp->lane] - idx[sp->lane] : sp->mk_lanes);
        A.rows = 1;
        if (sp->mk_row >= 0) {
            idx[sp->mk_row] = sp->lo[sp->mk_row] + rb * TC__MK_ROWS;
            A.rows = (int)(sp->hi[sp->mk_row] - idx[sp->mk_row] < TC__MK_ROWS
                               ? sp->hi[sp->mk_row] - idx[sp->mk_row] : TC__MK_ROWS);
        }
        for (k = 0; k < sp->n_loops; k++) {
            xo += X->lstride[k] * idx[k];
            yo += Y->lstride[k] * idx[k];
        }
        for (d = 0; d < rank; d++) wo += idx[d] * P->ts[wt][d];
        A.X = P->ptr[X->tensor] + xo * (int64_t)esz;
        A.Y = P->ptr[Y->tensor] + yo * (int64_t)esz;
        A.W = P->ptr[wt] + wo * (int64_t)esz;
        if (sp->mk_packed) { /* one pack per strip: the row blocks of a strip follow */
            A.packed = 0;
            if (it == first || rb == 0) tc__mk_pack(sp->vs->vdt, &A, R->T->pack);
            A.Y = R->T->pack;
            A.packed = 1;
        }
        tc__mk_tile(sp->vs->vdt, &A);
    }
}

TC__PRIVATE int tc__vm_chunk(tc__vm_run *R, int64_t c) {
    const tc__vm_splan *sp = R->sp;
    int64_t q = sp->n_items / sp->n_chunks, r = sp->n_items % sp->n_chunks;
    int64_t first = c * q + (c < r ? c : r);
    if (sp->ct) {
        const tc__contract *ct = sp->vs->engine;
        tc__contract_args a;
        a.in0 = R->P->ptr[ct->tensor[0]];
        a.in1 = R->P->ptr[ct->tensor[1]];
        a.out = R->P->ptr[ct->tensor[2]];
        tc__contract_run_tasks(&sp->ct_shape, &a, first, first + q + (c < r), R->T->pack);
        return 1;
    }
    if (sp->mk) {
        tc__vm_mk_items(R, first, first + q + (c < r));
        return 1;
    }
    return tc__vm_items(R, first, first + q + (c < r));
}

/* ==== [tc:bind] Size binding and run-time checks ============================ */

/* dtype, rank and shape of an input or caller output against the
   signature: TC_ERR_TYPE for the dtype, TC_ERR_SHAPE for rank and extents
   (out-of-range values included), each naming the tensor. */
TC__PRIVATE tc_status tc__vm_check_arg(const tc_ir_tensor *t, const tc_tensor *x, tc_error *err) {
    int d;
    if ((unsigned)x->dtype >= TC_DTYPE_COUNT || x->dtype != t->dtype)
        return tc__set_error(err, TC_ERR_TYPE, "%s: expected dtype %s, given %s", t->name,
                             tc_dtype_name(t->dtype),
                             (unsigned)x->dtype < TC_DTYPE_COUNT ? tc_dtype_name(x->dtype) : "?");
    if (x->rank != t->rank)
        return tc__set_error(err, TC_ERR_SHAPE, "%s: expected rank %d, given rank %d", t->name,
                             t->rank, x->rank);
    for (d = 0; d < x->rank; d++)
        if (x->shape[d] < 0)
            return tc__set_error(err, TC_ERR_SHAPE, "%s: dimension %d has negative extent %lld",
                                 t->name, d, (long long)x->shape[d]);
    return TC_OK;
}

/* Reads a 0-rank integer input (used in sizes). */
TC__PRIVATE tc_status tc__vm_scalar_input(const tc_ir_tensor *t, const tc_tensor *x, int64_t *out,
                                          tc_error *err) {
    if (!x->data)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "%s: data is NULL", t->name);
    switch (x->dtype) {
    case TC_INT8: *out = *(const int8_t *)x->data; break;
    case TC_INT16: *out = *(const int16_t *)x->data; break;
    case TC_INT32: *out = *(const int32_t *)x->data; break;
    case TC_INT64: *out = *(const int64_t *)x->data; break;
    case TC_UINT8: *out = *(const uint8_t *)x->data; break;
    case TC_UINT16: *out = *(const uint16_t *)x->data; break;
    case TC_UINT32: *out = *(const uint32_t *)x->data; break;
    case TC_UINT64:
        if (*(const uint64_t *)x->data > (uint64_t)INT64_MAX)
            return tc__set_error(err, TC_ERR_LIMIT, "%s: value too large for a size", t->name);
        *out = (int64_t) * (const uint64_t *)x->data;
        break;
    default:
        return tc__set_error(err, TC_ERR_TYPE, "%s: a size must come from an integer input",
                             t->name);
    }
    return TC_OK;
}

/* Binds size variables from input dimensions whose extent is a plain
   variable; `who` remembers which tensor and dimension bound each. */
TC__PRIVATE tc_status tc__vm_bind_vars(const tc_ir_def *ir, const tc_tensor *in, int64_t *vars,
                                       int *who, tc_error *err) {
    int i, d;
    for (i = 0; i < ir->n_sizevars; i++) who[i] = -1;
    for (i = 0; i < ir->n_inputs; i++) {
        const tc_ir_tensor *t = &ir->tensors[i];
        for (d = 0; d < t->rank; d++) {
            const tc_sx *x = &ir->sx[t->extent[d]];
            int v = (int)x->value, prev_t, prev_d;
            if (x->op != TC_SX_VAR) continue;
            if (who[v] < 0) {
                who[v] = i * TC_MAX_RANK + d;
                vars[v] = in[i].shape[d];
                continue;
            }
            if (vars[v] == in[i].shape[d]) continue;
            prev_t = who[v] / TC_MAX_RANK;
            prev_d = who[v] % TC_MAX_RANK;
            return tc__set_error(err, TC_ERR_SHAPE,
                                 "size %s is %lld in %s (dimension %d) but %lld in %s (dimension %d)",
                                 ir->sizevars[v], (long long)vars[v], ir->tensors[prev_t].name,
                                 prev_d, (long long)in[i].shape[d], t->name, d);
        }
    }
    for (i = 0; i < ir->n_sizevars; i++)
        if (who[i] < 0)
            return tc__set_error(err, TC_ERR_SHAPE, "size %s is not bound by any input",
                                 ir->sizevars[i]);
    return TC_OK;
}

/* Input dims that are not plain variables (constants) must match; every
   extent must be >= 0 and every tensor's size must fit. */
TC__PRIVATE tc_status tc__vm_check_extents(const tc_ir_def *ir, const tc_tensor *in,
                                           const int64_t *sx, tc_error *err) {
    int i, d;
    for (i = 0; i < ir->n_tensors; i++) {
        const tc_ir_tensor *t = &ir->tensors[i];
        int64_t total = (int64_t)tc_dtype_size(t->dtype);
        for (d = 0; d < t->rank; d++) {
            int64_t e = sx[t->extent[d]];
            char buf[160];
            if (i < ir->n_inputs && e != in[i].shape[d]) {
                tc_sx_format(ir, t->extent[d], buf, sizeof buf);
                return tc__set_error(err, TC_ERR_SHAPE,
                                     "%s: dimension %d must be %s = %lld, given %lld", t->name, d,
                                     buf, (long long)e, (long long)in[i].shape[d]);
            }
            if (e < 0) {
                tc_sx_format(ir, t->extent[d], buf, sizeof buf);
                return tc__set_error(err, TC_ERR_SHAPE,
                                     "%s: dimension %d has negative extent %s = %lld", t->name, d,
                                     buf, (long long)e);
            }
            if (!tc__mul64(total, e, &total) || total > (INT64_MAX >> 4))
                return tc__set_error(err, TC_ERR_LIMIT, "%s: size overflows", t->name);
        }
    }
    return TC_OK;
}

TC__PRIVATE int tc__vm_stmt_empty(const tc_ir_def *ir, int s, const int64_t *sx) {
    int l;
    for (l = 0; l < ir->stmts[s].n_loops; l++)
        if (sx[ir->stmts[s].loops[l].hi] <= sx[ir->stmts[s].loops[l].lo]) return 1;
    return 0;
}

TC__PRIVATE tc_status tc__vm_run_checks(const tc_ir_def *ir, const int64_t *sx, tc_error *err) {
    int i;
    for (i = 0; i < ir->n_checks; i++) {
        const tc_ir_check *c = &ir->checks[i];
        int64_t a = sx[c->a], b = sx[c->b];
        char ta[160], tb[160];
        if (c->stmt >= 0 && c->stmt < ir->n_stmts && tc__vm_stmt_empty(ir, c->stmt, sx)) continue;
        if (c->kind == TC_CHECK_LE ? a <= b : a == b) continue;
        tc_sx_format(ir, c->a, ta, sizeof ta);
        tc_sx_format(ir, c->b, tb, sizeof tb);
        return tc__set_error(err, c->kind == TC_CHECK_LE ? TC_ERR_BOUNDS : TC_ERR_SHAPE,
                             "%s: needs %s %s %s, but %lld %s %lld", c->what ? c->what : "check",
                             ta, c->kind == TC_CHECK_LE ? "<=" : "==", tb, (long long)a,
                             c->kind == TC_CHECK_LE ? ">" : "!=", (long long)b);
    }
    return TC_OK;
}

TC_API tc_status tc_bind_sizes(const tc_program *p, int def, const tc_tensor *inputs,
                               int n_inputs, int64_t *sx_values, tc_error *err) {
    const tc_ir_def *ir;
    int64_t vars_local[16], inv_local[16], *vars, *inv;
    int who_local[16], *who, i;
    tc_status rc;
    tc__arena A;
    if (!p || def < 0 || def >= p->n_defs)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_bind_sizes: no such def");
    ir = &p->ir[def];
    if (n_inputs != ir->n_inputs)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "%s takes %d inputs, given %d",
                             ir->name, ir->n_inputs, n_inputs);
    if ((n_inputs && !inputs) || (ir->n_sx && !sx_values))
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_bind_sizes: NULL argument");
    for (i = 0; i < n_inputs; i++)
        if ((rc = tc__vm_check_arg(&ir->tensors[i], &inputs[i], err)) != TC_OK) return rc;
    A.alloc = p->alloc;
    A.head = NULL;
    vars = ir->n_sizevars <= 16 ? vars_local : (int64_t *)tc__arena_alloc_raw(&A, (size_t)ir->n_sizevars * 8);
    who = ir->n_sizevars <= 16 ? who_local : (int *)tc__arena_alloc_raw(&A, (size_t)ir->n_sizevars * sizeof(int));
    inv = n_inputs <= 16 ? inv_local : (int64_t *)tc__arena_alloc_raw(&A, (size_t)n_inputs * 8);
    if (!vars || !who || !inv) {
        tc__arena_free_all(&A);
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    }
    rc = tc__vm_bind_vars(ir, inputs, vars, who, err);
    for (i = 0; i < n_inputs && rc == TC_OK; i++) {
        int k, used = 0;
        inv[i] = 0;
        for (k = 0; k < ir->n_sx; k++) used |= ir->sx[k].op == TC_SX_SCALAR && ir->sx[k].value == i;
        if (used) rc = tc__vm_scalar_input(&ir->tensors[i], &inputs[i], &inv[i], err);
    }
    if (rc == TC_OK) rc = tc_sx_eval(ir, vars, inv, sx_values, err);
    if (rc == TC_OK) rc = tc__vm_check_extents(ir, inputs, sx_values, err);
    if (rc == TC_OK) rc = tc__vm_run_checks(ir, sx_values, err);
    tc__arena_free_all(&A);
    return rc;
}

/* ==== [tc:threads] Thread pool ==============================================
   n_threads - 1 workers plus the caller. A job is one function every
   participant calls with its thread number; work inside is claimed through
   an atomic counter. Workers spin briefly after a job, then sleep on a
   condition variable (spinning alone stalls when the hypervisor
   deschedules a virtual CPU). TC_NO_THREADS: the same API, all inline. */

#if !defined(TC_NO_THREADS)
#include <pthread.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TC__ATOMIC_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define TC__ATOMIC_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define TC__ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_ACQ_REL)
#define TC__HAVE_ATOMICS 1
#endif
#define TC__POOL_SPIN 4000

typedef void (*tc__job_fn)(void *ctx, int tid);

struct tc_pool {
    tc_allocator alloc;
    int n_threads;
#if !defined(TC_NO_THREADS)
    pthread_t *threads;
    struct tc__worker_arg *args; /* one per worker, freed with the pool */
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    unsigned gen;  /* job generation */
    int busy;      /* workers still in the current job */
    int stop;
    tc__job_fn fn;
    void *ctx;
#endif
};

#if !defined(TC_NO_THREADS)
TC__PRIVATE void tc__pool_pause(void) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    __asm__ __volatile__("pause");
#endif
}

TC__PRIVATE unsigned tc__pool_gen(tc_pool *P) {
#if defined(TC__HAVE_ATOMICS)
    return TC__ATOMIC_LOAD(&P->gen);
#else
    unsigned g;
    pthread_mutex_lock(&P->mu);
    g = P->gen;
    pthread_mutex_unlock(&P->mu);
    return g;
#endif
}

typedef struct tc__worker_arg {
    tc_pool *pool;
    int tid;
} tc__worker_arg;

/* Waits for a job newer than `seen`; returns 0 when the pool stops. */
TC__PRIVATE int tc__pool_wait(tc_pool *P, unsigned seen) {
    int spin, stop;
    for (spin = 0; spin < TC__POOL_SPIN; spin++) {
        if (tc__pool_gen(P) != seen) return 1;
        tc__pool_pause();
    }
    pthread_mutex_lock(&P->mu);
    while (P->gen == seen && !P->stop) pthread_cond_wait(&P->wake, &P->mu);
    stop = P->stop && P->gen == seen;
    pthread_mutex_unlock(&P->mu);
    return !stop;
}

TC__PRIVATE void *tc__pool_worker(void *arg) {
    tc_pool *P = ((tc__worker_arg *)arg)->pool;
    int tid = ((tc__worker_arg *)arg)->tid;
    unsigned seen = 0;
    while (tc__pool_wait(P, seen)) {
        tc__job_fn fn;
        void *ctx;
        pthread_mutex_lock(&P->mu);
        seen = P->gen;
        fn = P->fn;
        ctx = P->ctx;
        pthread_mutex_unlock(&P->mu);
        if (fn) fn(ctx, tid);
        pthread_mutex_lock(&P->mu);
#if defined(TC__HAVE_ATOMICS)
        if (TC__ATOMIC_ADD(&P->busy, -1) == 1) pthread_cond_signal(&P->done);
#else
        if (--P->busy == 0) pthread_cond_signal(&P->done);
#endif
        pthread_mutex_unlock(&P->mu);
    }
    return NULL;
}
#endif

TC_API tc_status tc_pool_create(int n_threads, const tc_allocator *a, tc_pool **out,
                                tc_error *err) {
    tc_pool *P;
    tc_allocator al;
    if (!out) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_pool_create: out is NULL");
    *out = NULL;
    if (n_threads < 1 || n_threads > TC_MAX_THREADS)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT,
                             "tc_pool_create: %d threads; 1 to %d are allowed", n_threads,
                             TC_MAX_THREADS);
    memset(&al, 0, sizeof al);
    if (a) al = *a;
    P = (tc_pool *)tc__mem_alloc(&al, sizeof *P);
    if (!P) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    memset(P, 0, sizeof *P);
    P->alloc = al;
    P->n_threads = 1;
#if !defined(TC_NO_THREADS)
    P->threads = (pthread_t *)tc__mem_alloc(&al, sizeof(pthread_t) * (size_t)n_threads);
    P->args = (tc__worker_arg *)tc__mem_alloc(&al, sizeof(tc__worker_arg) * (size_t)n_threads);
    if (!P->threads || !P->args) {
        tc__mem_free(&al, P->threads);
        tc__mem_free(&al, P->args);
        tc__mem_free(&al, P);
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    }
    pthread_mutex_init(&P->mu, NULL);
    pthread_cond_init(&P->wake, NULL);
    pthread_cond_init(&P->done, NULL);
    while (P->n_threads < n_threads) {
        tc__worker_arg *wa = &P->args[P->n_threads];
        wa->pool = P;
        wa->tid = P->n_threads;
        if (pthread_create(&P->threads[P->n_threads - 1], NULL, tc__pool_worker, wa) != 0) break;
        P->n_threads++;
    }
    if (P->n_threads < n_threads) {
        tc_pool_free(P);
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "could not start %d threads", n_threads);
    }
#endif
    *out = P;
    return TC_OK;
}

TC_API int tc_pool_num_threads(const tc_pool *pool) { return pool ? pool->n_threads : 1; }

TC_API void tc_pool_free(tc_pool *pool) {
    tc_allocator al;
    if (!pool) return;
    al = pool->alloc;
#if !defined(TC_NO_THREADS)
    {
        int i;
        pthread_mutex_lock(&pool->mu);
        pool->stop = 1;
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->mu);
        for (i = 0; i + 1 < pool->n_threads; i++) pthread_join(pool->threads[i], NULL);
        pthread_mutex_destroy(&pool->mu);
        pthread_cond_destroy(&pool->wake);
        pthread_cond_destroy(&pool->done);
        tc__mem_free(&al, pool->threads);
        tc__mem_free(&al, pool->args);
    }
#endif
    tc__mem_free(&al, pool);
}

/* Runs fn(ctx, tid) on the caller (tid 0) and every worker; returns when
   all are done. */
TC__PRIVATE void tc__pool_run(tc_pool *P, tc__job_fn fn, void *ctx) {
#if !defined(TC_NO_THREADS)
    int spin;
    if (P && P->n_threads > 1) {
        pthread_mutex_lock(&P->mu);
        P->fn = fn;
        P->ctx = ctx;
        P->busy = P->n_threads - 1;
#if defined(TC__HAVE_ATOMICS)
        TC__ATOMIC_STORE(&P->gen, P->gen + 1);
#else
        P->gen++;
#endif
        pthread_cond_broadcast(&P->wake);
        pthread_mutex_unlock(&P->mu);
        fn(ctx, 0);
        for (spin = 0; spin < TC__POOL_SPIN; spin++) {
#if defined(TC__HAVE_ATOMICS)
            if (TC__ATOMIC_LOAD(&P->busy) == 0) break;
#endif
            tc__pool_pause();
        }
        pthread_mutex_lock(&P->mu);
        while (P->busy > 0) pthread_cond_wait(&P->done, &P->mu);
        P->fn = NULL;
        pthread_mutex_unlock(&P->mu);
        return;
    }
#endif
    (void)P;
    fn(ctx, 0);
}

/* ==== [tc:run] Plans and runs ============================================== */

TC__PRIVATE tc_status tc__vm_find_def(const tc_program *p, const char *entry, int *def,
                                      tc_error *err) {
    if (!p) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "program is NULL");
    *def = tc_program_find(p, entry);
    if (*def < 0) {
        if (entry) return tc__set_error(err, TC_ERR_NAME, "no def named %s", entry);
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "the program has no def");
    }
    if (!p->backend || !p->backend[*def])
        return tc__set_error(err, TC_ERR_BACKEND, "def %s was not compiled", p->ir[*def].name);
    return TC_OK;
}

/* Extents, element counts and strides of every tensor. Inputs keep the
   caller's strides (elements); everything else is contiguous. */
TC__PRIVATE tc_status tc__vm_plan_tensors(tc_plan *P, const tc_tensor *in, tc_error *err) {
    const tc_ir_def *ir = P->ir;
    int i, d;
    for (i = 0; i < ir->n_tensors; i++) {
        const tc_ir_tensor *t = &ir->tensors[i];
        int64_t n = 1;
        for (d = t->rank - 1; d >= 0; d--) {
            P->ext[i][d] = P->sx[t->extent[d]];
            P->ts[i][d] = n;
            n *= P->ext[i][d];
        }
        P->numel[i] = n;
        if (i < ir->n_inputs && in[i].strides) {
            for (d = 0; d < t->rank; d++) P->ts[i][d] = in[i].strides[d];
        }
        if (i < ir->n_inputs && n > 0 && !in[i].data)
            return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "input %s: data is NULL", t->name);
    }
    return TC_OK;
}

/* Every access to `tensor` in statement sp is at row i of its first
   dimension, i the statement's first loop (X(i, ...) with nothing else in
   dimension 0): rows are independent, so statements can go row by row. */
TC__PRIVATE int tc__vm_row_aligned(const tc_plan *P, const tc__vm_splan *sp, int tensor) {
    int r, l;
    for (r = 0; r < sp->vs->n_reads; r++) {
        const tc_ir_index *ix;
        if (sp->vs->reads[r].tensor != tensor) continue;
        if (sp->vs->reads[r].gather) return 0;
        ix = &sp->st->nodes[sp->vs->reads[r].node].index[0];
        if (!ix->affine || P->sx[ix->offset] != 0 || ix->coef[0] != 1) return 0;
        for (l = 1; l < sp->n_loops; l++)
            if (ix->coef[l] != 0) return 0;
    }
    return 1;
}

/* Statement t may join a row group that starts at statement g: its first
   loop is an output loop over the same rows, outside the lanes; it runs on
   the generic path; every tensor the group writes is accessed row-aligned
   by every statement of the group. */
TC__PRIVATE int tc__vm_group_ok(const tc_plan *P, int g, int t) {
    const tc__vm_splan *a = &P->stmts[g], *b = &P->stmts[t];
    int u, w;
    if (b->mk || b->ct || b->init || b->n_loops < 1 || b->st->loops[0].reduction ||
        b->lane == 0 || P->ir->tensors[b->wt].rank < 1)
        return 0;
    if (b->lo[0] != a->lo[0] || b->hi[0] != a->hi[0] || a->hi[0] <= a->lo[0]) return 0;
    for (u = g; u <= t; u++)
        for (w = g; w <= t; w++)
            if (!tc__vm_row_aligned(P, &P->stmts[u], P->stmts[w].wt)) return 0;
    return 1;
}

TC__PRIVATE tc_status tc__vm_plan_groups(tc_plan *P) {
    int s, t, n = P->ir->n_stmts;
    P->group_end = (int *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int));
    P->group_chunks = (int64_t *)tc__plan_alloc(P, (size_t)n + 1, sizeof(int64_t));
    if (!P->group_end || !P->group_chunks) return TC_ERR_OUT_OF_MEMORY;
    for (s = 0; s < n; s = t) {
        double work = P->stmts[s].work;
        int64_t rows, ch;
        t = s + 1;
        if (tc__vm_group_ok(P, s, s))
            while (t < n && tc__vm_group_ok(P, s, t)) work += P->stmts[t++].work;
        P->group_end[s] = t;
        if (t == s + 1) continue;
        rows = tc__vm_extent(&P->stmts[s], 0);
        ch = (int64_t)(work / TC__VM_CHUNK_WORK);
        if (ch > TC__VM_MAX_CHUNKS) ch = TC__VM_MAX_CHUNKS;
        if (ch > rows) ch = rows;
        P->group_chunks[s] = ch < 1 ? 1 : ch;
    }
    return TC_OK;
}

TC__PRIVATE tc_status tc__vm_plan_threads(tc_plan *P, int n) {
    size_t regsz = ((size_t)P->vm->max_regs + 2) * TC_BLOCK * 8 + 64;
    int i;
    P->n_threads = n;
    P->threads = (tc__vm_thread *)tc__plan_alloc(P, (size_t)n, sizeof(tc__vm_thread));
    if (!P->threads) return TC_ERR_OUT_OF_MEMORY;
    for (i = 0; i < n; i++) {
        unsigned char *r = (unsigned char *)tc__plan_alloc(P, regsz, 1);
        P->threads[i].idx = (int64_t *)tc__plan_alloc(P, (size_t)P->vm->max_loops + 1, 8);
        P->threads[i].pack = (unsigned char *)tc__plan_alloc(P, P->pack_bytes + 64, 1);
        P->threads[i].rp = (void **)tc__plan_alloc(P, (size_t)P->vm->max_regs + 2, sizeof(void *));
        P->threads[i].uni = (unsigned char *)tc__plan_alloc(P, (size_t)P->vm->max_regs + 2, 1);
        if (!r || !P->threads[i].idx || !P->threads[i].pack || !P->threads[i].rp ||
            !P->threads[i].uni)
            return TC_ERR_OUT_OF_MEMORY;
        P->threads[i].regs = r + (64 - (size_t)((uintptr_t)r % 64)) % 64;
    }
    return TC_OK;
}

TC__PRIVATE tc_status tc__vm_plan_build(tc_plan *P, const tc_run_desc *d, tc_error *err) {
    const tc_ir_def *ir = P->ir;
    int i, nt = tc_pool_num_threads(d->pool);
    tc_status rc;
    size_t nten = (size_t)ir->n_tensors + 1;
    P->sx = (int64_t *)tc__plan_alloc(P, (size_t)ir->n_sx + 1, sizeof(int64_t));
    P->ext = (int64_t(*)[TC_MAX_RANK])tc__plan_alloc(P, nten, sizeof(int64_t) * TC_MAX_RANK);
    P->ts = (int64_t(*)[TC_MAX_RANK])tc__plan_alloc(P, nten, sizeof(int64_t) * TC_MAX_RANK);
    P->numel = (int64_t *)tc__plan_alloc(P, nten, sizeof(int64_t));
    P->ptr = (unsigned char **)tc__plan_alloc(P, nten, sizeof(unsigned char *));
    P->temp = (unsigned char **)tc__plan_alloc(P, nten, sizeof(unsigned char *));
    P->in_desc = (tc_tensor *)tc__plan_alloc(P, (size_t)ir->n_inputs + 1, sizeof(tc_tensor));
    P->in_value = (int64_t *)tc__plan_alloc(P, (size_t)ir->n_inputs + 1, sizeof(int64_t));
    P->stmts = (tc__vm_splan *)tc__plan_alloc(P, (size_t)ir->n_stmts + 1, sizeof(tc__vm_splan));
    if (!P->sx || !P->ext || !P->ts || !P->numel || !P->ptr || !P->temp || !P->in_desc ||
        !P->in_value || !P->stmts)
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    if ((rc = tc_bind_sizes(P->prog, P->def, d->inputs, d->n_inputs, P->sx, err)) != TC_OK)
        return rc;
    if ((rc = tc__vm_plan_tensors(P, d->inputs, err)) != TC_OK) return rc;
    for (i = 0; i < ir->n_inputs; i++) {
        P->in_desc[i] = d->inputs[i];
        if (d->inputs[i].rank == 0 && tc__dtype_is_int(d->inputs[i].dtype) && d->inputs[i].data)
            tc__vm_scalar_input(&ir->tensors[i], &d->inputs[i], &P->in_value[i], NULL);
    }
    for (i = 0; i < ir->n_stmts; i++)
        if ((rc = tc__vm_plan_stmt(P, i, err)) != TC_OK) return rc;
    for (i = ir->n_inputs + ir->n_outputs; i < ir->n_tensors; i++) {
        P->temp[i] = (unsigned char *)tc__plan_alloc(
            P, (size_t)P->numel[i], tc_dtype_size(ir->tensors[i].dtype));
        if (!P->temp[i]) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (tc__vm_plan_groups(P) != TC_OK || tc__vm_plan_threads(P, nt) != TC_OK)
        return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    return TC_OK;
}

TC_API void tc_plan_free(tc_plan *plan) {
    tc_allocator a;
    if (!plan) return;
    a = plan->prog->alloc;
    tc__arena_free_all(&plan->arena);
    tc__mem_free(&a, plan);
}

TC_API tc_status tc_plan_create(const tc_program *p, const tc_run_desc *d, tc_plan **out,
                                tc_error *err) {
    tc_plan *P;
    tc_status rc;
    int def;
    if (!out) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_plan_create: out is NULL");
    *out = NULL;
    if (!d) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_plan_create: desc is NULL");
    if ((rc = tc__vm_find_def(p, d->entry, &def, err)) != TC_OK) return rc;
    if (d->n_inputs != p->ir[def].n_inputs || (d->n_inputs && !d->inputs))
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "%s takes %d inputs, given %d",
                             p->ir[def].name, p->ir[def].n_inputs, d->n_inputs);
    P = (tc_plan *)tc__mem_alloc(&p->alloc, sizeof *P);
    if (!P) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    memset(P, 0, sizeof *P);
    P->prog = p;
    P->def = def;
    P->ir = &p->ir[def];
    P->vm = (const tc__vm_def *)p->backend[def];
    P->arena.alloc = p->alloc;
    if ((rc = tc__vm_plan_build(P, d, err)) != TC_OK) {
        tc_plan_free(P);
        return rc;
    }
    *out = P;
    return TC_OK;
}

typedef struct tc__vm_job {
    tc_plan *P;
    const tc__vm_splan *sp; /* one statement, or NULL: the row group [g0, g1) */
    int g0, g1;
    int check;              /* the gather check pass of sp */
    int64_t n_chunks;
    int64_t next;
    int failed;
} tc__vm_job;

/* Chunk c of a row group: rows [r0, r1) of the shared first loop through
   every statement of the group in order, so the rows a statement writes
   are still in cache when the next one reads them. */
TC__PRIVATE int tc__vm_group_chunk(tc__vm_run *R, const tc__vm_job *J, int64_t c) {
    const tc_plan *P = J->P;
    const tc__vm_splan *s0 = &P->stmts[J->g0];
    int64_t E = tc__vm_extent(s0, 0), q = E / J->n_chunks, r = E % J->n_chunks;
    int64_t r0 = c * q + (c < r ? c : r), r1 = r0 + q + (c < r);
    int t;
    for (t = J->g0; t < J->g1; t++) {
        const tc__vm_splan *sp = &P->stmts[t];
        int64_t ipr = sp->n_items / E;
        if (sp->empty) continue;
        R->sp = sp;
        if (!tc__vm_items(R, r0 * ipr, r1 * ipr)) return 0;
    }
    return 1;
}

TC__PRIVATE void tc__vm_job_fn(void *ctx, int tid) {
    tc__vm_job *J = (tc__vm_job *)ctx;
    tc__vm_run R;
    if (tid >= J->P->n_threads) return;
    R.P = J->P;
    R.sp = J->sp;
    R.T = &J->P->threads[tid];
    R.check = J->check;
    for (;;) {
        int64_t c;
        int ok;
#if defined(TC__HAVE_ATOMICS)
        if (TC__ATOMIC_LOAD(&J->failed)) break;
        c = TC__ATOMIC_ADD(&J->next, 1);
#else
        c = J->next++; /* single-threaded without atomics */
#endif
        if (c >= J->n_chunks) break;
        ok = J->sp ? tc__vm_chunk(&R, c) : tc__vm_group_chunk(&R, J, c);
        if (!ok) {
#if defined(TC__HAVE_ATOMICS)
            TC__ATOMIC_STORE(&J->failed, 1);
#else
            J->failed = 1;
#endif
            break;
        }
    }
}

TC__PRIVATE void tc__vm_fill_identity(tc_plan *P, int t, tc_reduce r) {
    const tc_ir_tensor *ten = &P->ir->tensors[t];
    size_t esz = tc_dtype_size(ten->dtype);
    unsigned char id[8];
    int64_t done = 0;
    tc__vm_identity(ten->dtype, r, id);
    while (done < P->numel[t]) {
        int64_t n = P->numel[t] - done < (1 << 20) ? P->numel[t] - done : (1 << 20);
        tc__k_fill(esz, P->ptr[t] + done * (int64_t)esz, id, (int)n);
        done += n;
    }
}

/* Runs one job (a statement or a row group) on the pool; reports the
   first error a thread met. */
TC__PRIVATE tc_status tc__vm_run_job(tc_plan *P, tc_pool *pool, tc__vm_job *J, tc_error *err) {
    int i;
    J->next = 0;
    J->failed = 0;
    for (i = 0; i < P->n_threads; i++) P->threads[i].err.code = TC_OK;
#if defined(TC__HAVE_ATOMICS)
    if (J->n_chunks > 1 && pool && pool->n_threads > 1) tc__pool_run(pool, tc__vm_job_fn, J);
    else tc__vm_job_fn(J, 0);
#else
    (void)pool;
    tc__vm_job_fn(J, 0);
#endif
    if (!J->failed) return TC_OK;
    for (i = 0; i < P->n_threads; i++)
        if (P->threads[i].err.code != TC_OK) {
            if (err) *err = P->threads[i].err;
            return P->threads[i].err.code;
        }
    return tc__set_error(err, TC_ERR_BACKEND, "run failed");
}

/* Checks every gather whose indices come from inputs before anything is
   written (the generic path's items, running only the check slice). */
TC__PRIVATE tc_status tc__vm_check_gathers(tc_plan *P, tc_pool *pool, tc_error *err) {
    int s;
    tc_status rc;
    for (s = 0; s < P->ir->n_stmts; s++) {
        const tc__vm_splan *sp = &P->stmts[s];
        tc__vm_job J;
        if (!sp->vs->check || sp->empty || sp->mk || sp->ct) continue;
        J.P = P;
        J.sp = sp;
        J.check = 1;
        J.n_chunks = sp->n_chunks;
        if ((rc = tc__vm_run_job(P, pool, &J, err)) != TC_OK) return rc;
    }
    return TC_OK;
}

TC__PRIVATE tc_status tc__vm_run_stmts(tc_plan *P, tc_pool *pool, tc_error *err) {
    int s;
    tc_status rc;
    for (s = 0; s < P->ir->n_stmts;) {
        const tc__vm_splan *sp = &P->stmts[s];
        tc__vm_job J;
        J.P = P;
        J.check = 0;
        if (P->group_end[s] > s + 1) { /* a row group */
            J.sp = NULL;
            J.g0 = s;
            J.g1 = P->group_end[s];
            J.n_chunks = P->group_chunks[s];
            if ((rc = tc__vm_run_job(P, pool, &J, err)) != TC_OK) return rc;
            s = J.g1;
            continue;
        }
        if (sp->init) tc__vm_fill_identity(P, sp->wt, sp->st->reduce);
        s++;
        if (sp->empty) continue;
        J.sp = sp;
        J.n_chunks = sp->n_chunks;
        if ((rc = tc__vm_run_job(P, pool, &J, err)) != TC_OK) return rc;
    }
    return TC_OK;
}

/* The inputs of a plan run must be those the plan was made for. */
TC__PRIVATE tc_status tc__vm_same_inputs(const tc_plan *P, const tc_tensor *in, tc_error *err) {
    int i, d;
    for (i = 0; i < P->ir->n_inputs; i++) {
        const tc_tensor *a = &P->in_desc[i], *b = &in[i];
        const char *name = P->ir->tensors[i].name;
        int same = a->dtype == b->dtype && a->rank == b->rank;
        for (d = 0; same && d < a->rank; d++) {
            int64_t sa = a->strides ? a->strides[d] : P->ts[i][d];
            int64_t sb = b->strides ? b->strides[d] : P->ts[i][d];
            same = a->shape[d] == b->shape[d] && (sa == sb || a->shape[d] <= 1);
        }
        if (!same)
            return tc__set_error(err, TC_ERR_SHAPE,
                                 "input %s differs from the one the plan was made for", name);
        if (P->numel[i] > 0 && !b->data)
            return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "input %s: data is NULL", name);
        if (b->rank == 0 && tc__dtype_is_int(b->dtype)) {
            int64_t v = 0;
            int k, used = 0;
            for (k = 0; k < P->ir->n_sx; k++)
                used |= P->ir->sx[k].op == TC_SX_SCALAR && P->ir->sx[k].value == i;
            if (used && (tc__vm_scalar_input(&P->ir->tensors[i], b, &v, err) != TC_OK ||
                         v != P->in_value[i]))
                return tc__set_error(err, TC_ERR_SHAPE,
                                     "input %s sets sizes: its value differs from the planned one",
                                     name);
        }
    }
    return TC_OK;
}

/* Caller outputs: dtype, shape and layout as inferred. */
TC__PRIVATE tc_status tc__vm_check_outputs(const tc_plan *P, const tc_tensor *out, tc_error *err) {
    int i, d, base = P->ir->n_inputs;
    for (i = 0; i < P->ir->n_outputs; i++) {
        const tc_ir_tensor *t = &P->ir->tensors[base + i];
        const tc_tensor *o = &out[i];
        tc_status rc;
        if (!o->data) continue;
        if ((rc = tc__vm_check_arg(t, o, err)) != TC_OK) return rc;
        for (d = 0; d < t->rank; d++) {
            if (o->shape[d] != P->ext[base + i][d])
                return tc__set_error(err, TC_ERR_SHAPE,
                                     "output %s: dimension %d is %lld, expected %lld", t->name, d,
                                     (long long)o->shape[d], (long long)P->ext[base + i][d]);
            if (o->strides && o->strides[d] != P->ts[base + i][d] && o->shape[d] > 1)
                return tc__set_error(err, TC_ERR_UNSUPPORTED,
                                     "output %s must be contiguous (row-major)", t->name);
        }
    }
    return TC_OK;
}

TC__PRIVATE void tc__vm_free_new_outputs(const tc_plan *P, tc_tensor *out, const int *fresh) {
    int i;
    for (i = 0; i < P->ir->n_outputs; i++)
        if (fresh[i]) {
            tc__mem_free(&P->prog->alloc, out[i].data);
            out[i].data = NULL;
        }
}

/* Outputs with data NULL are allocated zeroed; dtype, rank, shape filled. */
TC__PRIVATE tc_status tc__vm_alloc_outputs(const tc_plan *P, tc_tensor *out, int *fresh,
                                           tc_error *err) {
    int i, d, base = P->ir->n_inputs;
    for (i = 0; i < P->ir->n_outputs; i++) {
        const tc_ir_tensor *t = &P->ir->tensors[base + i];
        size_t bytes = (size_t)P->numel[base + i] * tc_dtype_size(t->dtype);
        fresh[i] = 0;
        if (out[i].data) continue;
        out[i].data = tc__mem_alloc(&P->prog->alloc, bytes);
        if (!out[i].data) {
            tc__vm_free_new_outputs(P, out, fresh);
            return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory (output %s)", t->name);
        }
        memset(out[i].data, 0, bytes ? bytes : 1);
        fresh[i] = 1;
        out[i].dtype = t->dtype;
        out[i].rank = t->rank;
        out[i].strides = NULL;
        for (d = 0; d < TC_MAX_RANK; d++) out[i].shape[d] = d < t->rank ? P->ext[base + i][d] : 0;
    }
    return TC_OK;
}

TC_API tc_status tc_plan_run(tc_plan *P, const tc_run_desc *d, tc_error *err) {
    int fresh_local[16], *fresh = fresh_local, i;
    tc_status rc;
    const tc_ir_def *ir;
    if (!P || !d) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_plan_run: NULL argument");
    ir = P->ir;
    if (d->entry && strcmp(d->entry, ir->name) != 0)
        return tc__set_error(err, TC_ERR_NAME, "the plan runs %s, not %s", ir->name, d->entry);
    if (d->n_inputs != ir->n_inputs || (d->n_inputs && !d->inputs))
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "%s takes %d inputs, given %d",
                             ir->name, ir->n_inputs, d->n_inputs);
    if (d->n_outputs != ir->n_outputs || (d->n_outputs && !d->outputs))
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "%s returns %d outputs, given %d",
                             ir->name, ir->n_outputs, d->n_outputs);
    if ((rc = tc__vm_same_inputs(P, d->inputs, err)) != TC_OK) return rc;
    if ((rc = tc__vm_check_outputs(P, d->outputs, err)) != TC_OK) return rc;
    if (ir->n_outputs > 16) {
        fresh = (int *)tc__mem_alloc(&P->prog->alloc, sizeof(int) * (size_t)ir->n_outputs);
        if (!fresh) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    }
    rc = tc__vm_alloc_outputs(P, d->outputs, fresh, err);
    if (rc == TC_OK) {
        for (i = 0; i < ir->n_inputs; i++) P->ptr[i] = (unsigned char *)d->inputs[i].data;
        for (i = 0; i < ir->n_outputs; i++)
            P->ptr[ir->n_inputs + i] = (unsigned char *)d->outputs[i].data;
        for (i = ir->n_inputs + ir->n_outputs; i < ir->n_tensors; i++) {
            P->ptr[i] = P->temp[i];
            memset(P->temp[i], 0, (size_t)P->numel[i] * tc_dtype_size(ir->tensors[i].dtype));
        }
        P->unchecked = d->unchecked_gathers;
        rc = TC_OK;
        for (i = 0; i < ir->n_outputs && !P->unchecked; i++)
            if (!fresh[i]) { /* the caller's buffer: check gathers before writing */
                rc = tc__vm_check_gathers(P, d->pool, err);
                break;
            }
        if (rc == TC_OK) rc = tc__vm_run_stmts(P, d->pool, err);
        if (rc != TC_OK) tc__vm_free_new_outputs(P, d->outputs, fresh);
    }
    if (fresh != fresh_local) tc__mem_free(&P->prog->alloc, fresh);
    return rc;
}

TC_API tc_status tc_run(const tc_program *p, const tc_run_desc *d, tc_error *err) {
    tc_plan *P = NULL;
    tc_status rc = tc_plan_create(p, d, &P, err);
    if (rc != TC_OK) return rc;
    rc = tc_plan_run(P, d, err);
    tc_plan_free(P);
    return rc;
}

TC_API tc_status tc_infer_shapes(const tc_program *p, const char *entry, const tc_tensor *inputs,
                                 int n_inputs, tc_tensor *outputs, int n_outputs, tc_error *err) {
    int def, i, d;
    int64_t local[64], *sx = local;
    const tc_ir_def *ir;
    tc_status rc = tc__vm_find_def(p, entry, &def, err);
    if (rc != TC_OK) return rc;
    ir = &p->ir[def];
    if (n_outputs != ir->n_outputs || (n_outputs && !outputs))
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "%s returns %d outputs, given %d",
                             ir->name, ir->n_outputs, n_outputs);
    if (ir->n_sx > 64) {
        sx = (int64_t *)tc__mem_alloc(&p->alloc, sizeof(int64_t) * (size_t)ir->n_sx);
        if (!sx) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    }
    rc = tc_bind_sizes(p, def, inputs, n_inputs, sx, err);
    for (i = 0; i < n_outputs && rc == TC_OK; i++) {
        const tc_ir_tensor *t = &ir->tensors[ir->n_inputs + i];
        outputs[i].dtype = t->dtype;
        outputs[i].rank = t->rank;
        for (d = 0; d < TC_MAX_RANK; d++) outputs[i].shape[d] = d < t->rank ? sx[t->extent[d]] : 0;
    }
    if (sx != local) tc__mem_free(&p->alloc, sx);
    return rc;
}

TC_API void tc_tensor_free(const tc_program *p, tc_tensor *t) {
    if (!t || !t->data) return;
    tc__mem_free(p ? &p->alloc : NULL, t->data);
    t->data = NULL;
}

/* ==== [tc:disasm] Bytecode listing ========================================== */

TC__PRIVATE void tc__vm_disasm_operand(tc__buf *b, const tc_ir_def *ir, const tc__vm_stmt *s,
                                       const tc__vm_ins *in, char k, unsigned v) {
    switch (k) {
    case 'V': case 'v': case 'U': tc__bprintf(b, " v%u", v); break;
    case 'm': if (v == TC__VM_NONE) tc__bprintf(b, " -"); else tc__bprintf(b, " m%u", v); break;
    case 'R': tc__bprintf(b, " r%u(%s)", v, ir->tensors[s->reads[v].tensor].name); break;
    case 'K': {
        uint64_t bits = s->consts[v];
        if (in->dt == TC_FLOAT32) { float f; memcpy(&f, &bits, 4); tc__bprintf(b, " %.9g", (double)f); }
        else if (in->dt == TC_FLOAT64) { double f; memcpy(&f, &bits, 8); tc__bprintf(b, " %.17g", f); }
        else {
            size_t sz = tc_dtype_size((tc_dtype)in->dt);
            int sgn = tc__dtype_is_signed((tc_dtype)(in->dt % TC_DTYPE_COUNT));
            int64_t x = 0;
            if (sz == 1) { int8_t y; uint8_t u; memcpy(&y, &bits, 1); memcpy(&u, &bits, 1); x = sgn ? (int64_t)y : (int64_t)u; }
            else if (sz == 2) { int16_t y; uint16_t u; memcpy(&y, &bits, 2); memcpy(&u, &bits, 2); x = sgn ? (int64_t)y : (int64_t)u; }
            else if (sz == 4) { int32_t y; uint32_t u; memcpy(&y, &bits, 4); memcpy(&u, &bits, 4); x = sgn ? (int64_t)y : (int64_t)u; }
            else memcpy(&x, &bits, 8);
            tc__bprintf(b, " %lld", (long long)x);
        }
        break;
    }
    case 'L': tc__bprintf(b, " %s", s->ir->loops[v].name ? s->ir->loops[v].name : "?"); break;
    case 'S': {
        char buf[96];
        tc_sx_format(ir, (int)v, buf, sizeof buf);
        tc__bprintf(b, " [%s]", buf);
        break;
    }
    case 'D': tc__bprintf(b, " dim%u", v); break;
    default: break;
    }
}

TC__PRIVATE void tc__vm_disasm_stmt(tc__buf *b, const tc_ir_def *ir, const tc__vm_stmt *s, int k) {
    const tc_ir_stmt *st = s->ir;
    const tc_ir_tensor *w = &ir->tensors[st->tensor];
    int i, l;
    tc__bprintf(b, "; statement %d, line %d: %s\n;   loops", k, st->line, st->text ? st->text : "?");
    for (l = 0; l < st->n_loops; l++) {
        char lo[96], hi[96];
        tc_sx_format(ir, st->loops[l].lo, lo, sizeof lo);
        tc_sx_format(ir, st->loops[l].hi, hi, sizeof hi);
        tc__bprintf(b, " %s in %s:%s%s", st->loops[l].name ? st->loops[l].name : "?", lo, hi,
                    st->loops[l].reduction ? " (reduction)" : "");
    }
    tc__bprintf(b, "\n;   %d registers%s\n", s->n_regs, s->contract.ok ? ", contraction" : "");
    for (i = 0; i < s->n_ins; i++) {
        const tc__vm_ins *in = &s->ins[i];
        const char *fmt = tc__ops[in->op].fmt;
        const unsigned ops[5] = {in->a, in->b, in->c, in->d, in->e};
        int j, col;
        if (i == 0 && s->n_pro > 0) tc__bprintf(b, ";   once per thread and statement:\n");
        if (i == s->n_pro && s->n_pro > 0) tc__bprintf(b, ";   per block of lanes:\n");
        col = (int)b->len;
        tc__bprintf(b, "%04d  %s.%s", i, tc__ops[in->op].name, tc_dtype_name((tc_dtype)in->dt));
        if (in->op == TC_OP_CAST) tc__bprintf(b, "<-%s", tc_dtype_name((tc_dtype)in->dt2));
        if (in->op == TC_OP_CALL) tc__bprintf(b, " %s", tc_builtin_name((tc_builtin)in->dt2));
        for (j = 0; fmt[j]; j++) {
            if (in->op == TC_OP_CALL && j > tc_builtin_arity((tc_builtin)in->dt2)) break;
            tc__vm_disasm_operand(b, ir, s, in, fmt[j], ops[j]);
        }
        col = (int)b->len - col;
        tc__bprintf(b, "%*s; %s\n", col < 40 ? 40 - col : 1, "", tc__ops[in->op].doc);
    }
    tc__bprintf(b, "      %s %s%s v%d\n\n", w->name, tc__reduce_names[st->reduce],
                st->init ? "!" : "", s->value);
}

TC_API int tc_disasm(const tc_program *p, int def, char *buf, size_t cap) {
    tc__buf b;
    const tc__vm_def *vd;
    const tc_ir_def *ir;
    int s;
    b.p = buf;
    b.cap = buf ? cap : 0;
    b.len = 0;
    if (!p || def < 0 || def >= p->n_defs || !p->backend || !p->backend[def]) {
        if (buf && cap) buf[0] = '\0';
        return 0;
    }
    vd = (const tc__vm_def *)p->backend[def];
    ir = vd->ir;
    tc__bprintf(&b, "; def %s: %d statement(s), TC_BLOCK %d\n", ir->name, vd->n_stmts, TC_BLOCK);
    for (s = 0; s < vd->n_stmts; s++) tc__vm_disasm_stmt(&b, ir, &vd->stmts[s], s);
    return tc__buf_done(&b);
}
