/* t_native: t_kernels linked against the implementation compiled as a
   user's default build compiles it (tests/tc_impl.c as GNU C with
   -march=native, Makefile: gcc contracts a * b + c into an fma there
   unless a kernel says otherwise), while the tests and their references
   stay ISO C. The kernels that keep an order of operations (row sums'
   64 partials, the fused sum of squares) must still give the bits the
   references give. */
#include "t_kernels.c"
