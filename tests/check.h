// check.h - the test binaries' tiny harness. Each check prints one line "PASS name" or
// "FAIL name: detail"; check_done() prints the binary's tally and returns the exit code
// (non-zero if anything failed). tools/run_tests.sh adds the tallies of all binaries.
#ifndef POSGPT_CHECK_H
#define POSGPT_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_npass, check_nfail;

static void check(int ok, const char *name, const char *fmt, ...) {
    if (ok) {
        check_npass++;
        printf("PASS %s\n", name);
    } else {
        check_nfail++;
        printf("FAIL %s: ", name);
        va_list ap;
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
    }
    fflush(stdout);
}

// |a - b| <= atol + rtol |ref| over n elements; reports the worst element
__attribute__((unused)) static int check_close(const char *name, const double *got, const double *ref, size_t n, double atol, double rtol) {
    size_t worst = 0;
    double worst_excess = -1e300;
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        double err = fabs(got[i] - ref[i]), tol = atol + rtol * fabs(ref[i]);
        if (!(err <= tol)) ok = 0;
        double excess = isnan(err) ? 1e300 : err - tol;
        if (excess > worst_excess) {
            worst_excess = excess;
            worst = i;
        }
    }
    if (n == 0) {
        check(0, name, "nothing compared");
        return 0;
    }
    check(ok, name, "worst element %zu: got %.9g, expected %.9g (|diff| %.3g > atol %.1g + rtol %.1g*|ref|)", worst,
          got[worst], ref[worst], fabs(got[worst] - ref[worst]), atol, rtol);
    return ok;
}

// whether the per-scheme checks should run for scheme `name`: all of them, unless the environment
// variable POSGPT_TEST_SCHEMES lists some (comma-separated), as tests/test_add_scheme.sh does to
// check one new scheme without the whole registry's minutes
__attribute__((unused)) static int scheme_selected(const char *name) {
    const char *list = getenv("POSGPT_TEST_SCHEMES");
    if (!list || !*list) return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        p += len + (e != NULL);
    }
    return 0;
}

static int check_done(void) {
    printf("# %d passed, %d failed\n", check_npass, check_nfail);
    return check_nfail ? 1 : 0;
}
#endif
