/* ==== [tc:api-impl] Compile, inspect and free programs ===================== */

/* Frees a program that may be partly built (compile failure paths). */
TC__PRIVATE void tc__program_destroy(tc_program *p) {
    tc_allocator a;
    if (!p) return;
    a = p->alloc;
    tc__arena_free_all(&p->arena);
    tc__mem_free(&a, p);
}

/* Runs the pipeline over every def: parse, then per def sema + range
   inference + lowering (front end) and bytecode compilation (back end). */
TC__PRIVATE int tc__compile_all(tc__ctx *C, tc_program *p) {
    tc__ast ast;
    int i;
    memset(&ast, 0, sizeof ast);
    if (!tc__parse(C, &ast)) return 0;
    p->n_defs = ast.n_defs;
    p->ir = (tc_ir_def *)tc__alloc_n(C, (size_t)(ast.n_defs ? ast.n_defs : 1), sizeof(tc_ir_def));
    p->backend = (void **)tc__alloc_n(C, (size_t)(ast.n_defs ? ast.n_defs : 1), sizeof(void *));
    if (!p->ir || !p->backend) return 0;
    for (i = 0; i < ast.n_defs; i++)
        if (!tc__frontend_def(C, &ast, i, &p->ir[i])) return 0;
    for (i = 0; i < ast.n_defs; i++)
        if (!tc__backend_def(C, &p->ir[i], &p->backend[i])) return 0;
    return 1;
}

TC_API tc_status tc_compile(const tc_compile_desc *d, tc_program **out, tc_error *err) {
    tc_error local;
    tc_program *p;
    tc__ctx C;
    size_t len;
    if (!err) err = &local;
    memset(err, 0, sizeof *err);
    if (!out) return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_compile: out is NULL");
    *out = NULL;
    if (!d || !d->source)
        return tc__set_error(err, TC_ERR_INVALID_ARGUMENT, "tc_compile: no source given");
    len = strlen(d->source);
    if (len > TC_MAX_SOURCE)
        return tc__set_error(err, TC_ERR_LIMIT, "source is %lu bytes; the limit is %lu",
                             (unsigned long)len, (unsigned long)TC_MAX_SOURCE);
    p = (tc_program *)tc__mem_alloc(&d->allocator, sizeof *p);
    if (!p) return tc__set_error(err, TC_ERR_OUT_OF_MEMORY, "out of memory");
    memset(p, 0, sizeof *p);
    p->alloc = d->allocator;
    p->arena.alloc = d->allocator;
    memset(&C, 0, sizeof C);
    C.arena = &p->arena;
    C.err = err;
    C.max_depth = d->max_depth > 0 ? d->max_depth : TC_MAX_DEPTH;
    p->source = tc__strndup(&C, d->source, len);
    p->source_len = len;
    C.src = p->source;
    C.src_len = len;
    if (!p->source || !tc__compile_all(&C, p)) {
        if (!C.failed) tc__set_error(err, TC_ERR_BACKEND, "compilation failed");
        tc__program_destroy(p);
        return err->code != TC_OK ? err->code : TC_ERR_BACKEND;
    }
    p->warnings = C.warnings;
    p->n_warnings = C.n_warnings;
    *out = p;
    return TC_OK;
}

TC_API void tc_program_free(tc_program *p) { tc__program_destroy(p); }

TC_API int tc_program_num_warnings(const tc_program *p) { return p ? p->n_warnings : 0; }
TC_API const tc_error *tc_program_warning(const tc_program *p, int i) {
    return p && i >= 0 && i < p->n_warnings ? &p->warnings[i] : NULL;
}
TC_API const char *tc_program_source(const tc_program *p) { return p ? p->source : NULL; }
TC_API int tc_program_num_defs(const tc_program *p) { return p ? p->n_defs : 0; }

/* NULL name: the default entry, which is the last def (a source's helper
   defs come before the defs that call them). */
TC_API int tc_program_find(const tc_program *p, const char *name) {
    int i;
    if (!p || p->n_defs == 0) return -1;
    if (!name) return p->n_defs - 1;
    for (i = 0; i < p->n_defs; i++)
        if (strcmp(p->ir[i].name, name) == 0) return i;
    return -1;
}
TC_API const tc_ir_def *tc_program_ir(const tc_program *p, int def) {
    return p && def >= 0 && def < p->n_defs ? &p->ir[def] : NULL;
}
