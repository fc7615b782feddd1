/* ==== [tc:print] Loop nests as C-like pseudo code, for people debugging a kernel ====
   tc_ir_format_loops renders one tc_ir_def: a header with the tensors, the
   run-time checks, then per statement the TC text as a comment, the `!`
   fill, the loop nest with bounds in TC terms, and the body with every read
   spelled out from its affine map or gather expression. Pure function of
   the IR: snprintf-style, no allocation. */

/* Expressions are printed inline (no temporaries), so a DAG that shares a
   node is printed once per use. These bounds keep pathological DAGs
   (a chain of lets that each use the previous one twice) from printing
   exponentially much text, and bound the recursion. */
#define TC__PRINT_MAX_VISITS 65536
#define TC__PRINT_MAX_DEPTH (4 * TC_MAX_DEPTH + 64)

typedef struct tc__print {
    const tc_ir_def *d;
    const tc_ir_stmt *s;
    tc__buf *b;
    long visits; /* nodes printed in the current statement */
} tc__print;

/* C precedence levels used to decide parentheses (higher binds tighter). */
enum {
    TC__PREC_SELECT = 3,
    TC__PREC_OR = 4,
    TC__PREC_AND = 5,
    TC__PREC_EQ = 9,
    TC__PREC_REL = 10,
    TC__PREC_ADD = 12,
    TC__PREC_MUL = 13,
    TC__PREC_UNARY = 14,
    TC__PREC_ATOM = 16
};

TC__PRIVATE int tc__print_prec(const tc_ir_node *n) {
    switch (n->op) {
    case TC_IR_SELECT: return TC__PREC_SELECT;
    case TC_IR_OR: return TC__PREC_OR;
    case TC_IR_AND: return TC__PREC_AND;
    case TC_IR_EQ: case TC_IR_NE: return TC__PREC_EQ;
    case TC_IR_LT: case TC_IR_LE: case TC_IR_GT: case TC_IR_GE: return TC__PREC_REL;
    case TC_IR_ADD: case TC_IR_SUB: return TC__PREC_ADD;
    case TC_IR_MUL: case TC_IR_DIV: case TC_IR_MOD: return TC__PREC_MUL;
    case TC_IR_NEG: case TC_IR_NOT: return TC__PREC_UNARY;
    case TC_IR_CONST:
        if (tc__dtype_is_float(n->dtype)) return n->fval < 0 ? TC__PREC_UNARY : TC__PREC_ATOM;
        return tc__dtype_is_signed(n->dtype) && n->ival < 0 ? TC__PREC_UNARY : TC__PREC_ATOM;
    default: return TC__PREC_ATOM;
    }
}

TC__PRIVATE const char *tc__print_binop(tc_ir_op op) {
    switch (op) {
    case TC_IR_ADD: return "+";
    case TC_IR_SUB: return "-";
    case TC_IR_MUL: return "*";
    case TC_IR_DIV: return "/";
    case TC_IR_MOD: return "%";
    case TC_IR_LT: return "<";
    case TC_IR_LE: return "<=";
    case TC_IR_GT: return ">";
    case TC_IR_GE: return ">=";
    case TC_IR_EQ: return "==";
    case TC_IR_NE: return "!=";
    case TC_IR_AND: return "&&";
    case TC_IR_OR: return "||";
    default: return "?";
    }
}

/* A float constant that still reads as a float: 1.0, 0.5, 1e-05, INFINITY. */
TC__PRIVATE void tc__print_float(tc__buf *b, double v, tc_dtype t) {
    char tmp[48];
    int p;
    if (v != v) {
        tc__bprintf(b, "NAN");
        return;
    }
    if (v - v != v - v) { /* infinite */
        tc__bprintf(b, v < 0 ? "-INFINITY" : "INFINITY");
        return;
    }
    /* the shortest digits that read back as the same value (0.1, not 0.100000001) */
    for (p = t == TC_FLOAT64 ? 15 : 6; p < 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*g", p, v);
        if (t == TC_FLOAT64 ? strtod(tmp, NULL) == v : (float)strtod(tmp, NULL) == (float)v) break;
    }
    if (p == 17) snprintf(tmp, sizeof tmp, "%.17g", v);
    tc__bprintf(b, "%s%s", tmp, strpbrk(tmp, ".e") ? "" : ".0");
}

TC__PRIVATE void tc__print_const(tc__buf *b, const tc_ir_node *n) {
    if (tc__dtype_is_float(n->dtype)) tc__print_float(b, n->fval, n->dtype);
    else if (n->dtype == TC_BOOL) tc__bprintf(b, n->ival ? "true" : "false");
    else if (n->dtype == TC_UINT64) tc__bprintf(b, "%lluu", (unsigned long long)n->ival);
    else tc__bprintf(b, "%lld", (long long)n->ival);
}

/* The loop variable name of loop l in the current statement. */
TC__PRIVATE const char *tc__print_loop_name(const tc__print *P, int l) {
    return l >= 0 && l < P->s->n_loops && P->s->loops[l].name ? P->s->loops[l].name : "?";
}

TC__PRIVATE void tc__print_node(tc__print *P, int id, int min_prec, int depth);

/* 1 when sx id is the constant 0. */
TC__PRIVATE int tc__print_sx_is_zero(const tc_ir_def *d, int id) {
    return id < 0 || id >= d->n_sx || (d->sx[id].op == TC_SX_CONST && d->sx[id].value == 0);
}

/* One affine index: 2*w + kw - 1, 10 - i, H - 1 - 2*i, 0. The offset goes
   first when the first loop term is negative (10 - i, not -i + 10). */
TC__PRIVATE void tc__print_affine(tc__print *P, const tc_ir_index *ix) {
    const tc_ir_def *d = P->d;
    int l, any = 0, offset_first = 0;
    int has_offset = !tc__print_sx_is_zero(d, ix->offset);
    for (l = 0; l < P->s->n_loops && ix->coef; l++)
        if (ix->coef[l] != 0) {
            offset_first = ix->coef[l] < 0 && has_offset;
            break;
        }
    if (offset_first) {
        tc__sx_print(d, ix->offset, P->b, 1);
        any = 1;
    }
    for (l = 0; l < P->s->n_loops; l++) {
        int64_t c = ix->coef ? ix->coef[l] : 0;
        const char *name = tc__print_loop_name(P, l);
        if (c == 0) continue;
        if (any) tc__bprintf(P->b, c < 0 ? " - " : " + ");
        else if (c < 0) tc__bprintf(P->b, "-");
        if (c == 1 || c == -1) tc__bprintf(P->b, "%s", name);
        else if (c < 0 && c != INT64_MIN) tc__bprintf(P->b, "%lld*%s", -(long long)c, name);
        else tc__bprintf(P->b, "%lld*%s", (long long)c, name);
        any = 1;
    }
    if (!has_offset || offset_first) {
        if (!any) tc__bprintf(P->b, "0");
    } else if (any && d->sx[ix->offset].op == TC_SX_CONST && d->sx[ix->offset].value < 0 &&
               d->sx[ix->offset].value != INT64_MIN) {
        tc__bprintf(P->b, " - %lld", -(long long)d->sx[ix->offset].value);
    } else {
        if (any) tc__bprintf(P->b, " + ");
        tc__sx_print(d, ix->offset, P->b, any ? 2 : 0);
    }
}

/* A tensor read: A[i + kh][2*w + 1], or a gather B[C[i]]. */
TC__PRIVATE void tc__print_read(tc__print *P, const tc_ir_node *n, int depth) {
    const tc_ir_def *d = P->d;
    int r, rank;
    if (n->tensor < 0 || n->tensor >= d->n_tensors) {
        tc__bprintf(P->b, "?");
        return;
    }
    tc__bprintf(P->b, "%s", d->tensors[n->tensor].name);
    rank = d->tensors[n->tensor].rank;
    for (r = 0; r < rank && n->index; r++) {
        const tc_ir_index *ix = &n->index[r];
        tc__bprintf(P->b, "[");
        if (ix->affine) tc__print_affine(P, ix);
        else tc__print_node(P, ix->node, 0, depth + 1);
        tc__bprintf(P->b, "]");
    }
}

TC__PRIVATE void tc__print_args(tc__print *P, const tc_ir_node *n, int depth) {
    int i;
    for (i = 0; i < n->nargs && i < 4; i++) {
        if (i) tc__bprintf(P->b, ", ");
        tc__print_node(P, n->args[i], 0, depth + 1);
    }
    tc__bprintf(P->b, ")");
}

TC__PRIVATE void tc__print_node_body(tc__print *P, const tc_ir_node *n, int prec, int depth) {
    switch (n->op) {
    case TC_IR_CONST: tc__print_const(P->b, n); break;
    case TC_IR_INDEX: tc__bprintf(P->b, "%s", tc__print_loop_name(P, n->loop)); break;
    case TC_IR_SIZE: tc__sx_print(P->d, n->sx, P->b, 3); break;
    case TC_IR_READ: tc__print_read(P, n, depth); break;
    case TC_IR_NEG: case TC_IR_NOT:
        tc__bprintf(P->b, n->op == TC_IR_NEG ? "-" : "!");
        /* prec + 1: never print "--x" */
        tc__print_node(P, n->args[0], prec + 1, depth + 1);
        break;
    case TC_IR_SELECT: /* (cond) ? a : b: parenthesised unless an atom, for the reader */
        tc__print_node(P, n->args[0], TC__PREC_UNARY, depth + 1);
        tc__bprintf(P->b, " ? ");
        tc__print_node(P, n->args[1], prec + 1, depth + 1);
        tc__bprintf(P->b, " : ");
        tc__print_node(P, n->args[2], prec, depth + 1);
        break;
    case TC_IR_MIN: case TC_IR_MAX:
        tc__bprintf(P->b, n->op == TC_IR_MIN ? "min(" : "max(");
        tc__print_args(P, n, depth);
        break;
    case TC_IR_CAST:
        tc__bprintf(P->b, "%s(", tc_dtype_name(n->dtype));
        tc__print_args(P, n, depth);
        break;
    case TC_IR_CALL:
        tc__bprintf(P->b, "%s(", tc_builtin_name(n->builtin) ? tc_builtin_name(n->builtin) : "?");
        tc__print_args(P, n, depth);
        break;
    default: /* binary operators, left-associative */
        tc__print_node(P, n->args[0], prec, depth + 1);
        tc__bprintf(P->b, " %s ", tc__print_binop(n->op));
        tc__print_node(P, n->args[1], prec + 1, depth + 1);
        break;
    }
}

TC__PRIVATE void tc__print_node(tc__print *P, int id, int min_prec, int depth) {
    const tc_ir_node *n;
    int prec;
    if (id < 0 || id >= P->s->n_nodes) {
        tc__bprintf(P->b, "?");
        return;
    }
    if (depth > TC__PRINT_MAX_DEPTH || ++P->visits > TC__PRINT_MAX_VISITS) {
        tc__bprintf(P->b, "/*...*/");
        return;
    }
    n = &P->s->nodes[id];
    prec = tc__print_prec(n);
    if (prec < min_prec) tc__bprintf(P->b, "(");
    tc__print_node_body(P, n, prec, depth);
    if (prec < min_prec) tc__bprintf(P->b, ")");
}

/* The identity `!` fills with, in the tensor's element type. */
TC__PRIVATE void tc__print_identity(tc__buf *b, tc_reduce r, tc_dtype t) {
    int bits = (int)tc_dtype_size(t) * 8;
    const char *u = tc__dtype_is_signed(t) ? "" : "U";
    if (r == TC_REDUCE_PROD) tc__bprintf(b, "1");
    else if (r != TC_REDUCE_MIN && r != TC_REDUCE_MAX) tc__bprintf(b, "0");
    else if (tc__dtype_is_float(t)) tc__bprintf(b, r == TC_REDUCE_MIN ? "INFINITY" : "-INFINITY");
    else if (t == TC_BOOL) tc__bprintf(b, r == TC_REDUCE_MIN ? "true" : "false");
    else if (r == TC_REDUCE_MIN) tc__bprintf(b, "%sINT%d_MAX", u, bits);
    else if (*u) tc__bprintf(b, "0");
    else tc__bprintf(b, "INT%d_MIN", bits);
}

TC__PRIVATE void tc__print_dims(tc__buf *b, const tc_ir_def *d, const tc_ir_tensor *t) {
    int r;
    for (r = 0; r < t->rank; r++) {
        tc__bprintf(b, "[");
        tc__sx_print(d, t->extent[r], b, 0);
        tc__bprintf(b, "]");
    }
}

/* "// out float32 O[I + 1]   (written from [1])" */
TC__PRIVATE void tc__print_tensor_decl(tc__buf *b, const tc_ir_def *d, const tc_ir_tensor *t) {
    static const char *const kinds[] = {"in ", "out", "tmp"};
    int r, nonzero_min = 0;
    tc__bprintf(b, "// %s %s %s", kinds[t->kind <= TC_TENSOR_TEMP ? t->kind : 0],
                tc_dtype_name(t->dtype) ? tc_dtype_name(t->dtype) : "?", t->name);
    tc__print_dims(b, d, t);
    for (r = 0; r < t->rank; r++)
        if (!(d->sx[t->min[r]].op == TC_SX_CONST && d->sx[t->min[r]].value == 0)) nonzero_min = 1;
    if (t->kind != TC_TENSOR_INPUT && nonzero_min) {
        tc__bprintf(b, "   (lowest index written: ");
        for (r = 0; r < t->rank; r++) {
            tc__bprintf(b, "[");
            tc__sx_print(d, t->min[r], b, 0);
            tc__bprintf(b, "]");
        }
        tc__bprintf(b, ")");
    }
    tc__bprintf(b, "\n");
}

TC__PRIVATE void tc__print_checks(tc__buf *b, const tc_ir_def *d) {
    int i;
    if (d->n_checks == 0) return;
    tc__bprintf(b, "// run-time checks, once per run before anything is written:\n");
    for (i = 0; i < d->n_checks; i++) {
        const tc_ir_check *c = &d->checks[i];
        tc__bprintf(b, "check(");
        tc__sx_print(d, c->a, b, 0);
        tc__bprintf(b, c->kind == TC_CHECK_EQ ? " == " : " <= ");
        tc__sx_print(d, c->b, b, 0);
        tc__bprintf(b, ");");
        if (c->stmt >= 0) tc__bprintf(b, "  // if statement %d runs;", c->stmt + 1);
        else tc__bprintf(b, "  //");
        tc__bprintf(b, " %s\n", c->what ? c->what : "");
    }
}

TC__PRIVATE void tc__print_indent(tc__buf *b, int level) {
    int i;
    for (i = 0; i < level; i++) tc__bprintf(b, "    ");
}

/* O[n][m] (the written element; loops 0 .. rank-1 are its indices). */
TC__PRIVATE void tc__print_lhs(tc__print *P, const tc_ir_tensor *t) {
    int r;
    tc__bprintf(P->b, "%s", t->name);
    for (r = 0; r < t->rank; r++) tc__bprintf(P->b, "[%s]", tc__print_loop_name(P, r));
}

TC__PRIVATE void tc__print_body(tc__print *P, const tc_ir_tensor *t, int level) {
    const tc_ir_stmt *s = P->s;
    tc__print_indent(P->b, level);
    tc__print_lhs(P, t);
    switch (s->reduce) {
    case TC_REDUCE_SUM: tc__bprintf(P->b, " += "); break;
    case TC_REDUCE_PROD: tc__bprintf(P->b, " *= "); break;
    case TC_REDUCE_MIN: case TC_REDUCE_MAX:
        tc__bprintf(P->b, " = %s(", s->reduce == TC_REDUCE_MIN ? "min" : "max");
        tc__print_lhs(P, t);
        tc__bprintf(P->b, ", ");
        break;
    default: tc__bprintf(P->b, " = "); break;
    }
    P->visits = 0;
    tc__print_node(P, s->value, 0, 0);
    if (s->reduce == TC_REDUCE_MIN || s->reduce == TC_REDUCE_MAX) tc__bprintf(P->b, ")");
    tc__bprintf(P->b, ";%s\n", t->dtype == TC_FLOAT16 ? "  // rounded to float16" : "");
}

TC__PRIVATE void tc__print_stmt(tc__buf *b, const tc_ir_def *d, int si) {
    const tc_ir_stmt *s = &d->stmts[si];
    const tc_ir_tensor *t;
    tc__print P;
    int l;
    if (s->tensor < 0 || s->tensor >= d->n_tensors) return;
    t = &d->tensors[s->tensor];
    P.d = d;
    P.s = s;
    P.b = b;
    P.visits = 0;
    tc__bprintf(b, "\n// statement %d, line %d: %s\n", si + 1, s->line, s->text ? s->text : "");
    if (s->init)
    {
        tc__bprintf(b, "fill(%s, ", t->name);
        tc__print_identity(b, s->reduce, t->dtype);
        tc__bprintf(b, ");  // `!`: the identity of %s\n", tc__reduce_names[s->reduce]);
    }
    for (l = 0; l < s->n_loops; l++) {
        const tc_ir_loop *lp = &s->loops[l];
        tc__print_indent(b, l);
        tc__bprintf(b, "for (int %s = ", lp->name);
        tc__sx_print(d, lp->lo, b, 0);
        tc__bprintf(b, "; %s < ", lp->name);
        tc__sx_print(d, lp->hi, b, 0);
        tc__bprintf(b, "; %s++)%s\n", lp->name, lp->reduction ? "  // reduction" : "");
    }
    tc__print_body(&P, t, s->n_loops);
}

TC_API int tc_ir_format_loops(const tc_ir_def *d, char *buf, size_t cap) {
    tc__buf b;
    int i;
    b.p = buf;
    b.cap = buf ? cap : 0;
    b.len = 0;
    if (!d) return tc__buf_done(&b);
    tc__bprintf(&b, "// def %s (line %d)\n", d->name ? d->name : "?", d->line);
    for (i = 0; i < d->n_tensors; i++) tc__print_tensor_decl(&b, d, &d->tensors[i]);
    tc__print_checks(&b, d);
    for (i = 0; i < d->n_stmts; i++) tc__print_stmt(&b, d, i);
    return tc__buf_done(&b);
}
