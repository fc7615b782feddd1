/* ==== [tc:lex] Lexer ==== (stub: being written) */
/* ==== [tc:parse] Parser ==== */
TC__PRIVATE int tc__parse(tc__ctx *C, tc__ast *out) {
    tc__span none = {0, 0, 0, 0};
    (void)out;
    return tc__fail(C, TC_ERR_UNSUPPORTED, none, "parser not written yet");
}
