// dist.c - see dist.h. Built with -DPOSGPT_MPI in the MPI build only.
#include "dist.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

// MPI_Init waits for every process of the launch; one that exited before it (with status 0,
// which mpirun takes for a normal end) would leave the others waiting forever. So it has
// POSGPT_MPI_INIT_TIMEOUT seconds (default 300); then this process exits 1, which ends the job.
static char g_init_msg[300];
static void init_timeout(int sig) {
    if (write(2, g_init_msg, strlen(g_init_msg)) < 0) _exit(1);
    _exit(1);
}
static void init_mpi(const char *cmd) {
    const char *v = getenv("POSGPT_MPI_INIT_TIMEOUT");
    char *end;
    long s = v ? strtol(v, &end, 10) : 300;
    if (v && (end == v || *end || s < 1 || s > 86400))
        die("POSGPT_MPI_INIT_TIMEOUT must be a number of seconds from 1 to 86400, got '%s'", v);
    snprintf(g_init_msg, sizeof g_init_msg, "posgpt: error: %s: MPI did not start within %ld s: not every process of the launch "
             "reached MPI_Init (one may have ended before it); stopping (POSGPT_MPI_INIT_TIMEOUT sets the limit)\n", cmd, s);
    signal(SIGALRM, init_timeout);
    alarm((unsigned)s);
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) die("%s: MPI_Init failed", cmd);
    alarm(0);
    signal(SIGALRM, SIG_DFL);
}

int dist_start(const char *cmd) {
    if (launched_size() <= 1) return 1; // run directly: no MPI at all
    init_mpi(cmd);
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

// the first line (from 0) where texts a and b differ, *la and *lb at it; -1 if none does
static int first_difference(const char *a, const char *b, const char **la, const char **lb) {
    for (int i = 0;; i++) {
        size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
        if (na != nb || memcmp(a, b, na)) {
            *la = a, *lb = b;
            return i;
        }
        if (!a[na] && !b[nb]) return -1;
        a += na + (a[na] != 0), b += nb + (b[nb] != 0);
    }
}

// "KEY is X on rank 0 but Y on rank k" for lines "KEY = VALUE" (a line of its own otherwise)
static void say_difference(char *msg, size_t size, const char *l0, const char *lk) {
    int n0 = (int)strcspn(l0, "\n"), nk = (int)strcspn(lk, "\n");
    const char *e0 = strstr(l0, " = "), *ek = strstr(lk, " = ");
    if (e0 && ek && e0 - l0 < n0 && ek - lk < nk && e0 - l0 == ek - lk && !memcmp(l0, lk, (size_t)(e0 - l0)))
        snprintf(msg, size, "%.*s is %.*s on rank 0 but %.*s on rank %d", (int)(e0 - l0), l0, n0 - (int)(e0 - l0) - 3, e0 + 3,
                 nk - (int)(ek - lk) - 3, ek + 3, g_rank);
    else snprintf(msg, size, "rank 0 has '%.*s' where rank %d has '%.*s'", n0 ? n0 : 9, n0 ? l0 : "(nothing)", g_rank,
                  nk ? nk : 9, nk ? lk : "(nothing)");
}

void dist_agree(const char *text, const char *what, const char *advice) {
    if (!g_mpi) return;
    int n = (int)strlen(text) + 1, diff[2], first[2];
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char *t0 = xmalloc((size_t)n), msg[2048] = "";
    if (!g_rank) memcpy(t0, text, (size_t)n);
    MPI_Bcast(t0, n, MPI_CHAR, 0, MPI_COMM_WORLD);
    const char *l0 = "", *lk = "";
    diff[0] = first_difference(t0, text, &l0, &lk), diff[1] = g_rank;
    if (diff[0] < 0) diff[0] = INT_MAX;
    MPI_Allreduce(diff, first, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD); // the first line, on the lowest rank
    if (first[0] == INT_MAX) {
        free(t0);
        return;
    }
    if (g_rank == first[1]) say_difference(msg, sizeof msg, l0, lk);
    MPI_Bcast(msg, sizeof msg, MPI_CHAR, first[1], MPI_COMM_WORLD);
    if (!g_rank) die("the %d processes %s: %s; %s", g_size, what, msg, advice);
    MPI_Barrier(MPI_COMM_WORLD); // never completes: rank 0's die ends every process
    abort_all();
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
void dist_agree(const char *text, const char *what, const char *advice) {}
#endif
