/* t_inplace_stream: t_inplace again with the routes t_stream forces on (see
   t_stream.c): every output the VM may stream takes streaming stores
   (TC_STREAM_BYTES 1), and the fma kernels, foremost the division by a
   lane-uniform divisor that redoes a run of lanes from its inputs when a
   quotient is out of range: in place straight into the buffer, that
   input is the output, which the run must never let a kernel see. */
#define TC_STREAM_BYTES 1
#define TC_FAST_FMA 1
#define TC_IMPLEMENTATION /* its own, with those settings */
#include "t_inplace.c"
