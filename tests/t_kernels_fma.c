/* t_kernels_fma: t_kernels again with TC_FAST_FMA 1, as on a target with a
   fast fma: the kernels that take another route there run although the
   suite's flags name no -march (fmaf is libm's then: exact, only slower).
   Foremost the division by a lane-uniform divisor without a division per
   lane (tc__k_div_uni_*: reciprocal, product, one fma correction, fallback
   blocks), which must still give the IEEE quotient bitwise; and the
   builtins, whose polynomials then use fma, within their bounds. */
#define TC_FAST_FMA 1
#define TC_IMPLEMENTATION /* its own, with that setting */
#include "t_kernels.c"
