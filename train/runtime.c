// runtime.c - set-up shared by the subcommands: threads and the start-up banner; labels.
#include "cli.h"

#include <cblas.h>
#include <omp.h>
#include <stdio.h>

void runtime_setup(int threads) {
    if (threads > 0) {
        omp_set_num_threads(threads);
        openblas_set_num_threads(threads);
    }
    fprintf(stderr, "posgpt %s | OpenBLAS %s kernels | %d threads\n", POSGPT_VERSION, openblas_get_corename(),
            omp_get_max_threads());
}

const char *scheme_label(const GPTConfig *c, char *buf, size_t n) {
    if (c->rand_max > 0) snprintf(buf, n, "randomized-%s", c->pos);
    else snprintf(buf, n, "%s", c->pos);
    return buf;
}

