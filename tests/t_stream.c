/* t_stream: t_kernels again with TC_STREAM_BYTES 1, so every output the
   VM may write with non-temporal stores takes that path at test sizes
   (the default threshold, 8 MiB, is past every test case): results must
   still match the reference and be the same for every thread count. */
#define TC_STREAM_BYTES 1
#define TC_IMPLEMENTATION /* its own, with that setting */
#include "t_kernels.c"
