/* A tc_allocator for failure injection (Lua's debug_realloc idea): it
   fails the Nth allocation (or, sticky, every one from the Nth on) and
   counts the blocks still live, so tests can assert no leaks. */
#ifndef TC_TEST_FAIL_ALLOC_H
#define TC_TEST_FAIL_ALLOC_H
#include <stdlib.h>
#include "tc.h"

typedef struct fa_state {
    long count;   /* allocations so far (alloc and realloc) */
    long fail_at; /* 1-based; 0 = never */
    int sticky;   /* 1: every allocation from fail_at on fails */
    long live;    /* blocks handed out and not freed */
    long failed;  /* allocations refused */
} fa_state;

static int fa_should_fail(fa_state *f) {
    f->count++;
    if (f->fail_at > 0 && (f->sticky ? f->count >= f->fail_at : f->count == f->fail_at)) {
        f->failed++;
        return 1;
    }
    return 0;
}
static void *fa_alloc(size_t n, void *u) {
    fa_state *f = (fa_state *)u;
    void *p;
    if (fa_should_fail(f)) return NULL;
    p = malloc(n);
    if (p) f->live++;
    return p;
}
static void *fa_realloc(void *p, size_t old_size, size_t n, void *u) {
    fa_state *f = (fa_state *)u;
    void *q;
    (void)old_size;
    if (fa_should_fail(f)) return NULL;
    q = realloc(p, n);
    if (q && !p) f->live++;
    return q;
}
static void fa_free(void *p, void *u) {
    fa_state *f = (fa_state *)u;
    if (!p) return;
    f->live--;
    free(p);
}
static tc_allocator fa_allocator(fa_state *f) {
    tc_allocator a;
    a.alloc_fn = fa_alloc;
    a.realloc_fn = fa_realloc;
    a.free_fn = fa_free;
    a.user = f;
    return a;
}
#endif
