// cli.h - the subcommands of ./posgpt and the runtime set-up they share.
#ifndef POSGPT_CLI_H
#define POSGPT_CLI_H

#include "gpt.h"

int cmd_train(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_task(int argc, char **argv);
int cmd_export(int argc, char **argv);

// if OpenBLAS picked kernels weaker than the CPU supports, re-execute with OPENBLAS_CORETYPE set
void ensure_fast_blas(char **argv);
// set OpenMP + OpenBLAS threads (0: leave the default) and print the start-up banner
void runtime_setup(int threads);
// --precision VALUE: 0 for fp32, 1 for bf16; dies naming the flag otherwise
int precision_parse(const char *value);
// bf16 products need a CPU that runs them (bf16.h: cpu_has_bf16): dies "<what> needs a CPU
// with <feature>; <advice>" on one without
void require_bf16_cpu(const char *what, const char *advice);
// switches the products to bf16 (gemm_set_bf16) and says so on stderr: what runs them
void precision_start_bf16(const char *what);
// dies with the estimate when `need` bytes exceed the memory available: "<what> needs about X
// GiB of memory, but Y GiB is available; <advice>" (before allocating, not killed after)
void require_memory(double need, const char *what, const char *advice);
// A run's label in CSVs, plots and default directory names: the scheme name, or
// "randomized-<scheme>" when it trained at random positions (rand_max > 0)
const char *run_label(const char *scheme, int rand_max, char *buf, size_t n);
// appends a context extension to a label, "+METHOD" (rope+yarn: a series of its own in plots);
// nothing when METHOD is empty or NULL
void run_label_extension(char *buf, size_t n, const char *method);
// the scheme a label names (its registry index), and whether it trained at random positions;
// -1 if the label names no scheme
int run_label_scheme(const char *label, int *randomized);
#endif
