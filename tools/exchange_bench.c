// exchange_bench.c - the cost of the gradient exchange between MPI processes (dist_tree_sum,
// train/dist.c, recursive doubling): for buffers of 2^10 .. 2^24 floats, the median time of
// one exchange over R repetitions after 3 warm-up ones, on every process at once (a barrier
// starts each). Rank 0 prints one row per size: floats, bytes, median microseconds, and the
// rate in GB/s of buffer exchanged. The MPI build only:
//   make MPI=1 build/mpi/exchange_bench && mpirun -np 2 build/mpi/exchange_bench [R]
#include "dist.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 21;
    if (reps < 1 || reps > 10000) die("usage: exchange_bench [repetitions 1..10000]");
    if (dist_start("exchange_bench") < 2) die("exchange_bench measures an exchange between processes: launch it with mpirun -np 2 (or more)");
    size_t nmax = (size_t)1 << 24;
    real *buf = xmalloc(nmax * sizeof(real)), *scratch = xmalloc(nmax * sizeof(real));
    double *t = xmalloc((size_t)reps * sizeof(double));
    for (size_t i = 0; i < nmax; i++) buf[i] = (real)(i % 7) * 0.125f;
    if (dist_rank() == 0) printf("# %d processes, median of %d exchanges\nfloats,bytes,median_us,gb_per_s\n", dist_size(), reps);
    for (size_t n = 1024; n <= nmax; n *= 4) {
        for (int r = -3; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double s = dist_tree_sum(buf, n, scratch);
            if (r >= 0) t[r] = s;
            for (size_t i = 0; i < n; i++) buf[i] = 0.5f; // keep the values finite and cheap
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        double med = t[reps / 2];
        if (dist_rank() == 0) printf("%zu,%zu,%.1f,%.3f\n", n, n * sizeof(real), 1e6 * med, n * sizeof(real) / med / 1e9);
    }
    free(buf), free(scratch), free(t);
    dist_finish();
    return 0;
}
