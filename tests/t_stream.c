/* t_stream: t_kernels again with two routes forced on that the suite's
   sizes and flags would not take (each is independent of the other):
   - TC_STREAM_BYTES 1: every output the VM may write with non-temporal
     stores takes that path (the default threshold, 16 MiB, is past every
     test case);
   - TC_FAST_FMA 1: the kernels of a target with a fast fma, although the
     flags name no -march (fmaf is libm's then: exact, only slower).
     Foremost the division by a lane-uniform divisor without a division per
     lane (tc__k_div_uni_*: reciprocal, product, one fma correction,
     fallback blocks), which must still give the IEEE quotient bitwise; and
     the builtins, whose polynomials then use fma, within their bounds;
   - TC__NO_VECTOR_EXT: the plain C loops of the row reductions that gcc
     and clang otherwise run on vector extensions (tc__k_chain_reduce_f32);
   - TC_SEG_LANES 512: every reduction along a row of 1024 lanes or more
     runs in segments (tc__vm_plan_segments), whose values are combined
     after them; the default, 65536, only splits rows of 131072 lanes.
   Results must still match the reference and be the same for every thread
   count. */
#define TC_STREAM_BYTES 1
#define TC_FAST_FMA 1
#define TC__NO_VECTOR_EXT 1
#define TC_SEG_LANES 512
#define TC_IMPLEMENTATION /* its own, with those settings */
#include "t_kernels.c"
