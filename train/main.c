// main.c - ./posgpt: subcommand dispatch (after the OpenBLAS kernel check in runtime.c).
#include "cli.h"
#include "dist.h"
#include "fileio.h"
#include "layers.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static void usage(FILE *f) {
    fprintf(f,
            "posgpt %s - train short, evaluate long: a GPT decoder with pluggable position schemes\n\n"
            "usage: posgpt <command> [flags]     (posgpt <command> --help lists every flag)\n\n"
            "commands:\n"
            "  train    train a model on the bytes of a text file\n"
            "  eval     score a checkpoint on held-out text at one or more lengths (CSV)\n"
            "  sample   generate text from a checkpoint\n"
            "  info     print a checkpoint's header and configuration\n"
            "  plot     draw PNG figures from eval, per-position and training CSV files\n"
            "  export   write a checkpoint's tensors as a safetensors file (named tensors, config in the metadata)\n"
            "  task     algorithmic tasks: gen writes a task's examples, eval scores a checkpoint on them\n\n"
            "position schemes (--pos): %s\n"
            "randomized positions (Ruoss et al. 2023) with any of them: train --positions random\n\n"
            "environment: POSGPT_BLAS=posgpt|posgpt-portable|openblas|onednn picks what runs the matrix products\n"
            "  (default: posgpt's own sgemm on a CPU with AVX-512F, else OpenBLAS; posgpt --version names it);\n"
            "  OPENBLAS_CORETYPE picks OpenBLAS's kernel, and one older than AVX-512 keeps the products on OpenBLAS;\n"
            "  POSGPT_SGEMM_SOLO_MFLOPS=X (benchmarks) when posgpt's sgemm runs a product solo (docs/performance.md)\n",
            POSGPT_VERSION, pos_names());
}

// descriptors 0, 1 and 2 that the caller closed (`2>&-`, some daemons): the next files opened
// would take their numbers, and messages meant for stderr would land in them (log.csv, a CSV).
// Each is opened on /dev/null first (lowest number first, so each takes its own); if even that
// fails, nothing can be said safely: exit 2 without a word.
static void reopen_closed_std(void) {
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
        int d = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (d != fd) _exit(2);
    }
}

int main(int argc, char **argv) {
    reopen_closed_std();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return out_close_stdout(0);
    }
    if (!strcmp(cmd, "--version")) { // after the kernel check: names the kernel posgpt runs with
        ensure_fast_blas(argv);
        printf("posgpt %s\n%s\n", POSGPT_VERSION, gemm_lib_name());
        return out_close_stdout(0);
    }
    int (*fn)(int, char **) = !strcmp(cmd, "train")    ? cmd_train
                              : !strcmp(cmd, "eval")   ? cmd_eval
                              : !strcmp(cmd, "sample") ? cmd_sample
                              : !strcmp(cmd, "info")   ? cmd_info
                              : !strcmp(cmd, "plot")   ? cmd_plot
                              : !strcmp(cmd, "export") ? cmd_export
                              : !strcmp(cmd, "task")   ? cmd_task
                                                       : NULL;
    if (!fn) {
        fprintf(stderr, "posgpt: error: unknown command '%s' (commands: train, eval, sample, info, plot, export, task; see posgpt --help)\n", cmd);
        return 2;
    }
    if (fn != cmd_train) dist_refuse(cmd); // train starts MPI itself (dist.h)
    ensure_fast_blas(argv);
    signal(SIGXFSZ, SIG_IGN); // a file size limit (ulimit -f) fails the write with EFBIG, reported like a full disk
    if (fn != cmd_train) out_signals(); // train saves its state on a signal instead
    return out_close_stdout(fn(argc, argv));
}
