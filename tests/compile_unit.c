/* Compiled by tests/compile_check.sh in every configuration. It calls API
   functions so that a misspelled TC_IMPLEMENTATION fails to link. */
#if defined(TEST_CUSTOM_MALLOC)
#include <stdlib.h>
#define TC_MALLOC(sz, ud) ((void)(ud), malloc(sz))
#define TC_REALLOC(p, o, n, ud) ((void)(ud), (void)(o), realloc((p), (n)))
#define TC_FREE(p, ud) ((void)(ud), free(p))
#endif
#if !defined(TEST_NO_IMPL)
#define TC_IMPLEMENTATION
#endif
#include "tc.h"
#if defined(TEST_OPENCL) && !defined(TEST_NO_IMPL)
#define TC_OPENCL_IMPLEMENTATION
#include "tc_opencl.h"
#endif
#include <string.h>

#if defined(TEST_NO_IMPL)
int tc_test_other_unit(void);
int tc_test_other_unit(void) { return tc_version(); }
#else
int tc_test_other_unit(void);
int main(void) {
    tc_compile_desc d;
    tc_program *p = NULL;
    tc_error e;
    memset(&d, 0, sizeof d);
    d.source = "def f(float(N) a) -> (b) { b(i) = a(i) }";
    tc_compile(&d, &p, &e);
    tc_program_free(p);
    return tc_test_other_unit() == TC_VERSION_NUM ? 0 : 1;
}
#endif
