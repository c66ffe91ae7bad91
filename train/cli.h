// cli.h - the subcommands of ./posgpt and the runtime set-up they share.
#ifndef POSGPT_CLI_H
#define POSGPT_CLI_H

#include "gpt.h"

int cmd_train(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_export(int argc, char **argv);

// if OpenBLAS picked kernels weaker than the CPU supports, re-execute with OPENBLAS_CORETYPE set
void ensure_fast_blas(char **argv);
// set OpenMP + OpenBLAS threads (0: leave the default) and print the start-up banner
void runtime_setup(int threads);
// dies with the estimate when `need` bytes exceed the memory available: "<what> needs about X
// GiB of memory, but Y GiB is available; <advice>" (before allocating, not killed after)
void require_memory(double need, const char *what, const char *advice);
// "randomized-<base>" when trained with random positions, else the scheme name
const char *scheme_label(const GPTConfig *c, char *buf, size_t n);
#endif
