// runtime.c - set-up shared by the subcommands: the matrix library (POSGPT_BLAS, in a
// BLAS=onednn build) and the OpenBLAS kernel check, threads, the start-up banner (which names
// the library and its kernel); labels.
//
// Debian's OpenBLAS (DYNAMIC_ARCH) may not recognise a new CPU and fall back to old SSE3
// kernels ("Prescott"), several times slower than the AVX2/AVX-512 ones the CPU can run.
// OpenBLAS reads OPENBLAS_CORETYPE only when the library loads, so when the picked core is
// weaker than what the CPU supports, posgpt sets the variable and re-executes itself.
// A user-set OPENBLAS_CORETYPE is always respected. The check is x86-64 only (elsewhere OpenBLAS
// names no such kernels); the CPU affinity is read on Linux only (elsewhere: the cores online).
#define _GNU_SOURCE // sched_getaffinity
#include "bf16.h"
#include "cli.h"
#include "dist.h"
#include "layers.h"
#include "sgemm.h"

#ifdef __linux__
#include <sched.h>
#endif

#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

// 3: AVX-512 kernels, 2: AVX2, 1: older
static int core_level(const char *core) {
    const char *avx512[] = {"SkylakeX", "Cooperlake", "SapphireRapids"};
    const char *avx2[] = {"Haswell", "Zen", "Excavator"};
    for (size_t i = 0; i < sizeof avx512 / sizeof *avx512; i++)
        if (!strcasecmp(core, avx512[i])) return 3;
    for (size_t i = 0; i < sizeof avx2 / sizeof *avx2; i++)
        if (!strcasecmp(core, avx2[i])) return 2;
    return 1;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// the best kernel level this CPU runs (see core_level)
static int cpu_level(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") ? 3
           : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 2 : 1;
}
#else
static int cpu_level(void) { return 0; } // no x86 kernels to pick
#endif

#ifdef __linux__
// The CPUs of the OpenMP places (OMP_PLACES, or the places OMP_PROC_BIND implies) into *set;
// returns how many, 0 when there are no places. Under binding the runtime has already bound the
// initial thread to the first place, so this union, not the thread's own mask, is what the
// process may run on: the mask the runtime started from, or the CPUs the user listed.
static int places_cpus(cpu_set_t *set) {
    CPU_ZERO(set);
    int n = omp_get_num_places();
    for (int p = 0; p < n; p++) {
        int k = omp_get_place_num_procs(p);
        int *ids = k > 0 ? malloc((size_t)k * sizeof *ids) : NULL;
        if (!ids) continue;
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < k; i++)
            if (ids[i] >= 0 && ids[i] < CPU_SETSIZE) CPU_SET(ids[i], set);
        free(ids);
    }
    return CPU_COUNT(set);
}

// An exec keeps the initial thread's one-core mask: the new image would build its places from
// that core alone and run every thread on it (measured on a 16-core Xeon: 8 bound threads at the
// speed of one). Before the exec the process gets back the union of the places.
static void unbind_places(void) {
    cpu_set_t set;
    if (places_cpus(&set) > 0) sched_setaffinity(0, sizeof set, &set);
}
#endif

// this program again with the same arguments: /proc/self/exe on Linux, else argv[0] (a path,
// or a name on PATH); returns only if it failed
static void reexec(char **argv) {
#ifdef __linux__
    unbind_places();
    execv("/proc/self/exe", argv);
#endif
    execvp(argv[0], argv);
}

void ensure_fast_blas(char **argv) {
    gemm_select_lib(getenv("POSGPT_BLAS"));
    (void)sgemm_get_solo_mflops(); // a bad POSGPT_SGEMM_SOLO_MFLOPS is an error now, not at the first large product
    if (getenv("POSGPT_NO_REEXEC")) return;
    // POSGPT_TEST_REEXEC=1 (tests only): re-execute once even with the right kernel, so that the
    // path runs on any machine (tests/test_threads.sh: bound threads keep their cores)
    int test = getenv("POSGPT_TEST_REEXEC") != NULL;
    if (getenv("OPENBLAS_CORETYPE") && !test) return;
    const char *core = openblas_get_corename();
    int cpu = cpu_level();
    if (!core || (core_level(core) >= cpu && !test)) return;
    if (!getenv("OPENBLAS_CORETYPE")) setenv("OPENBLAS_CORETYPE", cpu == 3 ? "SkylakeX" : cpu == 2 ? "Haswell" : core, 1);
    setenv("POSGPT_NO_REEXEC", "1", 1); // never loop
    reexec(argv);
    // exec failed: carry on with the slow kernels, but say so
    fprintf(stderr, "posgpt: warning: OpenBLAS picked '%s' kernels and re-executing with faster ones failed\n", core);
}

// the cores this process may run on (its CPU affinity: taskset, mpirun's binding), or where
// that is not known the cores online; *why names which; -1 if neither is known
static int usable_cores(const char **why) {
#ifdef __linux__
    cpu_set_t set;
    *why = "its OpenMP places";
    int places = places_cpus(&set);
    if (places > 0) return places;
    *why = "its CPU affinity";
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
    *why = "the cores online";
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : -1;
}

void runtime_setup(int threads) {
    if (threads > 0) {
        omp_set_num_threads(threads);
        openblas_set_num_threads(threads);
    }
    // more threads than the cores this process may run on (an affinity mask: taskset, or
    // mpirun binding each process to a core) share those cores and run slower
    const char *why;
    int cores = usable_cores(&why);
    if (cores > 0 && omp_get_max_threads() > cores) {
        fprintf(stderr, "posgpt: warning: %s%d threads, but this process may run on %d core%s only (%s%s): the "
                "threads would take turns; give --threads %d%s\n", dist_tag(), omp_get_max_threads(), cores, cores == 1 ? "" : "s",
                why, dist_size() > 1 ? ", e.g. mpirun's default --bind-to core" : "", cores,
                dist_size() > 1 ? ", or launch with mpirun --bind-to none" : "");
    }
    if (dist_rank() > 0) return; // one banner for an MPI run
    if (dist_size() > 1)
        fprintf(stderr, "posgpt %s | %s | %d processes x %d threads\n", POSGPT_VERSION, gemm_lib_name(), dist_size(),
                omp_get_max_threads());
    else
        fprintf(stderr, "posgpt %s | %s | %d threads\n", POSGPT_VERSION, gemm_lib_name(), omp_get_max_threads());
}

int precision_parse(const char *value) {
    if (!strcmp(value, "fp32")) return 0;
    if (!strcmp(value, "bf16")) return 1;
    die("--precision must be fp32 or bf16, got '%s'", value);
}

void require_bf16_cpu(const char *what, const char *advice) {
    char why[160];
    if (!cpu_has_bf16(why, sizeof why)) die("%s needs a CPU with %s; %s", what, why, advice);
}

void precision_start_bf16(const char *what) {
    gemm_set_bf16(1);
    if (dist_rank() == 0)
        fprintf(stderr, "precision: %s in bf16 (inputs rounded to nearest even, %s conversion; sums, weights and optimizer "
                "state in fp32) by %s\n", what, bf16_convert_kind(), gemm_bf16_backend());
}

// memory a new allocation may take: MemAvailable (Linux), else half the physical memory.
// POSGPT_MEMORY_LIMIT (bytes) overrides it, for the tests.
static double memory_available(void) {
    const char *e = getenv("POSGPT_MEMORY_LIMIT");
    if (e && *e) return atof(e);
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    if (f) fclose(f);
    if (kb >= 0) return kb * 1024.0;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && psz > 0 ? 0.5 * (double)pages * (double)psz : -1;
}

void require_memory(double need, const char *what, const char *advice) {
    double have = memory_available();
    if (have >= 0 && need > have)
        die("%s needs about %.2f GiB of memory, but %.2f GiB is available; %s", what, need / 1073741824.0, have / 1073741824.0,
            advice);
}

#define RANDOMIZED "randomized-"

const char *run_label(const char *scheme, int rand_max, char *buf, size_t n) {
    snprintf(buf, n, "%s%s", rand_max > 0 ? RANDOMIZED : "", scheme);
    return buf;
}

void run_label_extension(char *buf, size_t n, const char *method) {
    size_t o = strlen(buf);
    if (method && method[0] && o < n) snprintf(buf + o, n - o, "+%s", method);
}

int run_label_scheme(const char *label, int *randomized) {
    *randomized = !strncmp(label, RANDOMIZED, strlen(RANDOMIZED));
    const char *name = label + (*randomized ? strlen(RANDOMIZED) : 0);
    size_t len = strcspn(name, "+"); // a context extension's suffix, e.g. rope+yarn
    for (int i = 0; i < pos_count(); i++)
        if (strlen(pos_at(i)->name) == len && !strncmp(pos_at(i)->name, name, len)) return i;
    return -1;
}

