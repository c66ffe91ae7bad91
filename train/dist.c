// dist.c - see dist.h. Built with -DPOSGPT_MPI in the MPI build only.
#include "dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef POSGPT_MPI
#include <mpi.h>
#endif

static int g_rank, g_size = 1;
static char g_tag[32];

// the process count an MPI launcher announced in the environment (1 if none did)
static int launched_size(void) {
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 1) return atoi(v);
    }
    return 1;
}

int dist_rank(void) { return g_rank; }
int dist_size(void) { return g_size; }
const char *dist_tag(void) { return g_tag; }

#ifdef POSGPT_MPI
static int g_mpi;
static void abort_all(void) { MPI_Abort(MPI_COMM_WORLD, 1); }

int dist_start(const char *cmd) {
    if (launched_size() <= 1) return 1; // run directly: no MPI at all
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) die("%s: MPI_Init failed", cmd);
    g_mpi = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    if (g_rank) snprintf(g_tag, sizeof g_tag, "rank %d: ", g_rank);
    die_tag = g_tag;
    die_hook = abort_all; // an error on any rank ends them all (the others may wait in a collective)
    if (g_size & (g_size - 1))
        die("%s: %d processes; the exact gradient sum needs a power of two (1, 2, 4, 8, ...): use mpirun -np %d", cmd, g_size,
            1 << (31 - __builtin_clz((unsigned)g_size)));
    return g_size;
}

void dist_finish(void) {
    if (g_mpi) MPI_Finalize();
    g_mpi = 0;
}

int dist_max(int v) {
    int out = v;
    if (g_mpi) MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

void dist_allgather(const double *mine, int n, double *all) {
    if (!g_mpi) {
        memcpy(all, mine, (size_t)n * sizeof(double));
        return;
    }
    MPI_Allgather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD);
}

double dist_tree_sum(real *buf, size_t n, real *scratch) {
    if (!g_mpi) return 0;
    double t0 = MPI_Wtime();
    MPI_Datatype type = sizeof(real) == sizeof(float) ? MPI_FLOAT : MPI_DOUBLE;
    const size_t chunk = (size_t)1 << 28; // MPI counts are ints: exchange in pieces
    for (int d = 1; d < g_size; d <<= 1) {
        int partner = g_rank ^ d;
        for (size_t off = 0; off < n; off += chunk) {
            int cnt = (int)(n - off < chunk ? n - off : chunk);
            MPI_Sendrecv(buf + off, cnt, type, partner, d, scratch + off, cnt, type, partner, d, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        }
        // the lower half of the pair is the left operand; a + b == b + a, so both get the same bits
        for (size_t i = 0; i < n; i++) buf[i] = buf[i] + scratch[i];
    }
    return MPI_Wtime() - t0;
}

int dist_same(uint32_t v) {
    if (!g_mpi) return 1;
    uint32_t v0 = v;
    MPI_Bcast(&v0, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    return dist_max(v0 != v) == 0;
}

void dist_refuse(const char *cmd) {
    if (launched_size() > 1)
        die("%s runs in one process; of the commands only train runs on several (for a sweep of runs over MPI ranks see "
            "tools/sweep.sh)", cmd);
}

#else // the plain build: one process

int dist_start(const char *cmd) {
    if (launched_size() > 1)
        die("%s: launched as %d MPI processes, but this posgpt was built without MPI, so each would train alone; build "
            "./posgpt-mpi with make MPI=1 and launch that", cmd, launched_size());
    return 1;
}
void dist_refuse(const char *cmd) {
    if (launched_size() > 1)
        die("%s runs in one process, and this posgpt was built without MPI; run it without mpirun (for a sweep of runs "
            "over MPI ranks see tools/sweep.sh)", cmd);
}
void dist_finish(void) {}
int dist_max(int v) { return v; }
void dist_allgather(const double *mine, int n, double *all) { memcpy(all, mine, (size_t)n * sizeof(double)); }
double dist_tree_sum(real *buf, size_t n, real *scratch) { return 0; }
int dist_same(uint32_t v) { return 1; }
#endif
