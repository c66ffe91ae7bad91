// track_alloc.h - for test files that allocate many small buffers: every malloc/calloc in the
// including file is recorded and released together by test_free_all() at the end, so the
// tests are leak-free under LeakSanitizer without a free per buffer. Include it after the
// system headers; it redefines malloc, calloc and free for that file only.
#ifndef POSGPT_TRACK_ALLOC_H
#define POSGPT_TRACK_ALLOC_H
#include <stdlib.h>

static void *test_allocs[8192];
static int test_nallocs;
static void *test_track(void *p) {
    if (test_nallocs < 8192) test_allocs[test_nallocs++] = p;
    return p;
}
static void test_free_all(void) {
    for (int i = 0; i < test_nallocs; i++) (free)(test_allocs[i]);
}
#define malloc(n) test_track(malloc(n))
#define calloc(a, b) test_track(calloc(a, b))
#define free(p) ((void)(p))
#endif
