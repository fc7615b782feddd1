/* ==== [tc:print] Loop nests as C-like pseudo code ==== (stub: being written) */
TC_API int tc_ir_format_loops(const tc_ir_def *d, char *buf, size_t cap) {
    (void)d; if (buf && cap) buf[0] = 0; return 0;
}
