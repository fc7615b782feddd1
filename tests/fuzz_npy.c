/* fuzz_npy: libFuzzer target for tools/npy.h's reader and writer.
   The input is a .npy file. It is read twice from a temporary file: as a
   file (the claimed size checked against the bytes left) and as a pipe
   would be (no size known, the block grown as data comes); both must agree.
   Every failure has a message; nothing stays allocated. When it parses,
   it is written back with npy_save's layout and read again: the same
   dtype, shape and bytes. A claim the file cannot hold must never reach
   malloc (libFuzzer's -malloc_limit_mb catches a large request).
   Built by `make fuzz`; tests/t_fuzz_replay.c replays tests/fuzz/npy/. */
#include "tc.h" /* header part only: npy.h needs the dtype table */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_FAIL
#define FUZZ_FAIL(what, src)                                                                   \
    do {                                                                                       \
        fprintf(stderr, "fuzz_npy: %s (%s)\n", what, src);                                     \
        abort();                                                                               \
    } while (0)
#endif

static long fnpy_live;
static void *fnpy_malloc(size_t n) {
    void *p = malloc(n);
    if (p) fnpy_live++;
    return p;
}
static void *fnpy_realloc(void *p, size_t n) {
    void *q = realloc(p, n);
    if (q && !p) fnpy_live++;
    return q;
}
static void fnpy_free(void *p) {
    if (p) fnpy_live--;
    free(p);
}
#define NPY_MALLOC(n) fnpy_malloc(n)
#define NPY_REALLOC(p, n) fnpy_realloc(p, n)
#define NPY_FREE(p) fnpy_free(p)
#include "tools/npy.h"

static int64_t fnpy_bytes(const tc_tensor *t) { return npy__nbytes(t); }

static int fnpy_same(const tc_tensor *a, const tc_tensor *b) {
    int k;
    if (a->dtype != b->dtype || a->rank != b->rank) return 0;
    for (k = 0; k < a->rank; k++)
        if (a->shape[k] != b->shape[k]) return 0;
    return memcmp(a->data, b->data, (size_t)fnpy_bytes(a)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FILE *f = tmpfile();
    tc_tensor t, t2, back;
    char err[256], err2[256];
    int rc, rc2;
    if (!f) return 0;
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    rewind(f);
    err[0] = 0;
    rc = npy__load_stream(f, 1, &t, err, sizeof err);
    rewind(f);
    err2[0] = 0;
    rc2 = npy__load_stream(f, 0, &t2, err2, sizeof err2);
    fclose(f);
    if (rc != 0 && !err[0]) FUZZ_FAIL("a failure without a message", "file");
    if (rc2 != 0 && !err2[0]) FUZZ_FAIL("a failure without a message", "pipe");
    if ((rc == 0) != (rc2 == 0)) FUZZ_FAIL("file and pipe reads disagree", rc ? err : err2);
    if (rc == 0) {
        if (t.rank < 0 || t.rank > TC_MAX_RANK || fnpy_bytes(&t) < 0 || !t.data)
            FUZZ_FAIL("a loaded tensor out of range", "file");
        if (!fnpy_same(&t, &t2)) FUZZ_FAIL("file and pipe reads differ", "data");
        f = tmpfile();
        if (f) {
            if (npy__save_file(f, &t, err, sizeof err) != 0) FUZZ_FAIL("npy__save_file", err);
            rewind(f);
            if (npy__load_file(f, &back, err, sizeof err) != 0)
                FUZZ_FAIL("what npy_save wrote does not load", err);
            if (!fnpy_same(&t, &back)) FUZZ_FAIL("round trip changed the array", "data");
            npy_free(&back);
            fclose(f);
        }
        npy_free(&t);
        npy_free(&t2);
    }
    if (fnpy_live != 0) FUZZ_FAIL("blocks leaked", "npy");
    return 0;
}
