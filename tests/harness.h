/* Tiny test harness shared by every tests/t_*.c program.
   Each program ends by printing "RESULT <passed> <failed>"; tests/run.sh
   adds them up and prints the closing "N passed, M failed" line. */
#ifndef TC_TEST_HARNESS_H
#define TC_TEST_HARNESS_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int th_passed, th_failed;
static const char *th_current = "";

/* One assertion = one counted check; failures say where and why. */
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) th_passed++;                                                       \
        else {                                                                       \
            th_failed++;                                                             \
            fprintf(stderr, "FAIL %s:%d [%s]: %s\n", __FILE__, __LINE__, th_current, #cond); \
        }                                                                            \
    } while (0)
#define CHECKF(cond, ...)                                                            \
    do {                                                                             \
        if (cond) th_passed++;                                                       \
        else {                                                                       \
            th_failed++;                                                             \
            fprintf(stderr, "FAIL %s:%d [%s]: %s: ", __FILE__, __LINE__, th_current, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
        }                                                                            \
    } while (0)
#define RUN(fn)              \
    do {                     \
        th_current = #fn;    \
        fn();                \
    } while (0)

static int th_report(void) {
    printf("RESULT %d %d\n", th_passed, th_failed);
    return th_failed ? 1 : 0;
}
#endif
