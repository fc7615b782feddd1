/* ==== [tc:vm] ==== (stub: being written) */
TC__PRIVATE int tc__backend_def(tc__ctx *C, const tc_ir_def *ir, void **out) {
    (void)C; (void)ir; *out = NULL; return 1;
}
TC_API tc_status tc_infer_shapes(const tc_program *p, const char *entry, const tc_tensor *inputs,
                                 int n_inputs, tc_tensor *outputs, int n_outputs, tc_error *err) {
    (void)p; (void)entry; (void)inputs; (void)n_inputs; (void)outputs; (void)n_outputs;
    return tc__set_error(err, TC_ERR_UNSUPPORTED, "not written yet");
}
TC_API tc_status tc_run(const tc_program *p, const tc_run_desc *d, tc_error *err) {
    (void)p; (void)d; return tc__set_error(err, TC_ERR_UNSUPPORTED, "not written yet");
}
TC_API void tc_tensor_free(const tc_program *p, tc_tensor *t) { (void)p; (void)t; }
TC_API tc_status tc_plan_create(const tc_program *p, const tc_run_desc *d, tc_plan **out,
                                tc_error *err) {
    (void)p; (void)d; (void)out; return tc__set_error(err, TC_ERR_UNSUPPORTED, "not written yet");
}
TC_API tc_status tc_plan_run(tc_plan *plan, const tc_run_desc *d, tc_error *err) {
    (void)plan; (void)d; return tc__set_error(err, TC_ERR_UNSUPPORTED, "not written yet");
}
TC_API void tc_plan_free(tc_plan *plan) { (void)plan; }
TC_API tc_status tc_pool_create(int n_threads, const tc_allocator *a, tc_pool **out,
                                tc_error *err) {
    (void)n_threads; (void)a; (void)out; return tc__set_error(err, TC_ERR_UNSUPPORTED, "not written yet");
}
TC_API int tc_pool_num_threads(const tc_pool *pool) { (void)pool; return 1; }
TC_API void tc_pool_free(tc_pool *pool) { (void)pool; }
TC_API int tc_disasm(const tc_program *p, int def, char *buf, size_t cap) {
    (void)p; (void)def; if (buf && cap) buf[0] = 0; return 0;
}
TC_API tc_status tc_bind_sizes(const tc_program *p, int def, const tc_tensor *inputs,
                               int n_inputs, int64_t *sx_values, tc_error *err) {
    (void)p; (void)def; (void)inputs; (void)n_inputs; (void)sx_values;
    return tc__set_error(err, TC_ERR_UNSUPPORTED, "not written yet");
}
