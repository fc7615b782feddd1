/* ==== [tc:sema] ==== (stub: being written) */
TC__PRIVATE int tc__frontend_def(tc__ctx *C, const tc__ast *ast, int def, tc_ir_def *out) {
    tc__span none = {0, 0, 0, 0};
    (void)ast; (void)def; (void)out;
    return tc__fail(C, TC_ERR_UNSUPPORTED, none, "front end not written yet");
}
