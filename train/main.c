// main.c - ./posgpt: subcommand dispatch, and the OpenBLAS kernel check.
//
// Debian's OpenBLAS (DYNAMIC_ARCH) may not recognise a new CPU and fall back to old SSE3
// kernels ("Prescott"), several times slower than the AVX2/AVX-512 ones the CPU can run.
// OpenBLAS reads OPENBLAS_CORETYPE only when the library loads, so when the picked core is
// weaker than what the CPU supports, posgpt sets the variable and re-executes itself.
// A user-set OPENBLAS_CORETYPE is always respected.
#include "cli.h"

#include <cblas.h>
#include <omp.h>
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

static void ensure_fast_blas(char **argv) {
    if (getenv("OPENBLAS_CORETYPE") || getenv("POSGPT_NO_REEXEC")) return;
    const char *core = openblas_get_corename();
    __builtin_cpu_init();
    int cpu = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") ? 3
              : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 2 : 1;
    if (!core || core_level(core) >= cpu) return;
    setenv("OPENBLAS_CORETYPE", cpu == 3 ? "SkylakeX" : "Haswell", 1);
    setenv("POSGPT_NO_REEXEC", "1", 1); // never loop
    execv("/proc/self/exe", argv);
    // exec failed: carry on with the slow kernels, but say so
    fprintf(stderr, "posgpt: warning: OpenBLAS picked '%s' kernels and re-executing with faster ones failed\n", core);
}

static void usage(FILE *f) {
    fprintf(f,
            "posgpt %s - train short, evaluate long: a GPT decoder with pluggable position schemes\n\n"
            "usage: posgpt <command> [flags]     (posgpt <command> --help lists every flag)\n\n"
            "commands:\n"
            "  train    train a model on the bytes of a text file\n"
            "  eval     score a checkpoint on held-out text at one or more lengths (CSV)\n"
            "  sample   generate text from a checkpoint\n"
            "  info     print a checkpoint's header and configuration\n"
            "  plot     draw PNG figures from eval, per-position and training CSV files\n\n"
            "position schemes (--pos): %s|randomized\n",
            POSGPT_VERSION, pos_names());
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("posgpt %s\n", POSGPT_VERSION);
        return 0;
    }
    int (*fn)(int, char **) = !strcmp(cmd, "train")    ? cmd_train
                              : !strcmp(cmd, "eval")   ? cmd_eval
                              : !strcmp(cmd, "sample") ? cmd_sample
                              : !strcmp(cmd, "info")   ? cmd_info
                              : !strcmp(cmd, "plot")   ? cmd_plot
                                                       : NULL;
    if (!fn) {
        fprintf(stderr, "posgpt: error: unknown command '%s' (commands: train, eval, sample, info, plot; see posgpt --help)\n", cmd);
        return 2;
    }
    ensure_fast_blas(argv);
    return fn(argc, argv);
}
