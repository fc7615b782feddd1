/* The implementation of tc.h, compiled once per test flavour (optimized,
   ASan+UBSan, TSan) and linked into the tests that use the public API
   only (LINKED in the Makefile): the suite compiles tc.h far fewer times. */
#define TC_IMPLEMENTATION
#include "tc.h"
/* the limits t_api and t_thread_vm assume: tc.h's defaults */
typedef char tc_impl_max_threads_is_64[TC_MAX_THREADS == 64 ? 1 : -1];
typedef char tc_impl_max_source_is_16_mib[TC_MAX_SOURCE == 16 * 1024 * 1024 ? 1 : -1];
