/* t_stream_native: t_kernels with every output the VM may stream written
   by streaming stores (TC_STREAM_BYTES 1, as in t_stream), built with
   -march=native (Makefile): the AVX-512 lines of the streamed kernels
   (tc__k_chain_div_uni_f32's quotients, the pair chains' lines, 2x2
   pooling), which neither t_stream (the portable loops: no -march,
   TC__NO_VECTOR_EXT) nor t_native (its sizes never stream) reaches.
   ISO C, so that the references and the kernels keep their roundings. */
#define TC_STREAM_BYTES 1
#define TC_IMPLEMENTATION /* its own, with that setting */
#include "t_kernels.c"
