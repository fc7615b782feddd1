/* The implementation of tc.h, compiled once per test flavour (optimized,
   ASan+UBSan, TSan) and linked into the tests that use the public API
   only (LINKED in the Makefile): the suite compiles tc.h far fewer times. */
#define TC_IMPLEMENTATION
#include "tc.h"
