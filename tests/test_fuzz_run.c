// test_fuzz_run.c - the fuzzers' batch runner (fuzz_run.h) must not hide a failure: a batch of
// harmless inputs with one input that crashes, hangs, fails a check, returns oddly or (under
// LeakSanitizer) leaks is replayed, the bad input alone is reported, and every other input is
// counted as drawn or refused as it should be.
#include "check.h"
#include "fuzz_run.h"

#include <signal.h>

static char *leaked;
// the input's first byte says what to do
static int target(const char *path) {
    FILE *f = fopen(path, "rb");
    int c = f ? fgetc(f) : EOF;
    if (f) fclose(f);
    switch (c) {
    case 'd': die("refused");
    case 'c': raise(SIGSEGV); return 0;
    case 'h': for (volatile unsigned long i = 0;; i++) {}
    case 'o': return 2;
    case 'l': leaked = malloc(100), leaked[0] = 1, leaked = NULL; return 0; // lost: a leak
    case 'a': abort();
    default: { char *p = malloc(10); free(p); return 0; }
    }
}

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_LSAN 1
#else
#define HAVE_LSAN 0
#endif

// kinds: one letter an input (above); the batch's inputs are numbered from 100
static void run(const char *name, const char *kinds, long want_drawn, long want_refused, long want_failed, long batches) {
    int n = (int)strlen(kinds);
    FuzzInput in[64];
    for (int j = 0; j < n; j++) in[j] = (FuzzInput){(uint8_t *)&kinds[j], 1};
    char path[64];
    snprintf(path, sizeof path, "/tmp/posgpt-fuzzrun-%d", (int)getpid());
    FuzzTally t = {0};
    t.batches = batches; // where in the 1-in-16 cycle
    printf("# %s:\n", name);
    fuzz_batch(target, path, "/tmp/posgpt-fuzzrun-bad-", ".in", in, n, 100, &t);
    remove(path);
    // a failure is blamed on the bad input (the only letter past 'g' other than 'd'), and only a
    // failing batch or the 16th is replayed
    long bad = -1;
    for (int j = 0; j < n; j++)
        if (strchr("cholaO", kinds[j]) && !(kinds[j] == 'l' && !want_failed)) bad = 100 + j;
    long want_replayed = want_failed || batches % 16 == 15;
    check(t.drawn == want_drawn && t.refused == want_refused && t.failed == want_failed && t.replayed == want_replayed &&
              (!want_failed || t.last_failed == bad),
          name, "drawn %ld refused %ld failed %ld (last input %ld) replayed %ld, expected %ld %ld %ld (input %ld) %ld", t.drawn,
          t.refused, t.failed, t.last_failed, t.replayed, want_drawn, want_refused, want_failed, bad, want_replayed);
}

int main(void) {
    fuzz_cpu_seconds = 1;
    run("fuzz batch: drawn and refused inputs counted, no replay needed", "ddgdgdg", 3, 4, 0, 0);
    run("fuzz batch: a crash among good inputs is found and only it counted as failed", "gdgcgdg", 4, 2, 1, 0);
    run("fuzz batch: an abort is a failure", "gadg", 2, 1, 1, 0);
    run("fuzz batch: a hang (CPU time) is a failure", "dghg", 2, 1, 1, 0);
    run("fuzz batch: an input that neither draws nor dies is a failure", "gdog", 2, 1, 1, 0);
    run("fuzz batch: the replayed 16th batch counts the same", "gdgdd", 2, 3, 0, 15);
    if (HAVE_LSAN) run("fuzz batch: a leak in an input that draws is found (LeakSanitizer)", "gdlg", 2, 1, 1, 0);
    else run("fuzz batch: without LeakSanitizer a lost block is not a failure", "gdlg", 3, 1, 0, 0);
    for (int it = 100; it < 110; it++) { // the kept copies of the bad inputs
        char keep[64];
        snprintf(keep, sizeof keep, "/tmp/posgpt-fuzzrun-bad-%d.in", it);
        remove(keep);
    }
    return check_done();
}
