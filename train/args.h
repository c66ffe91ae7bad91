// args.h - command-line flags: one table per subcommand, every flag with a type, a default
// and help text, so `--help` lists them all and bad values get one-line errors.
// Also accepts the position schemes' hyperparameter flags (--rope-base, --t5-buckets, ...),
// which the schemes declare themselves (pos.h).
#ifndef POSGPT_ARGS_H
#define POSGPT_ARGS_H

#include "pos.h"

typedef enum { ARG_INT, ARG_LONG, ARG_FLOAT, ARG_STR, ARG_FLAG } ArgType;

typedef struct {
    const char *name; // without dashes
    ArgType type;
    void *ptr;        // int*, long*, double*, const char**, int* (flag: set to 1)
    const char *help;
    double lo, hi;    // inclusive range for numbers (lo > hi: unchecked)
} ArgDef;

// Values of scheme hyperparameter flags seen on the command line.
typedef struct {
    int n;
    const char *name[32];
    float value[32];
} HyperArgs;

// Parse argv[first..argc) against defs (terminated by {NULL}). Positional arguments are
// returned in pos_args (up to max_pos). Prints help and exits 0 on --help/-h.
int args_parse(int argc, char **argv, int first, const ArgDef *defs, HyperArgs *hyp, const char *cmd,
               const char *usage, const char **pos_args, int max_pos);
void args_help(const ArgDef *defs, const char *cmd, const char *usage, int with_hypers);
// 1 if the last args_parse saw --name on the command line (not a scheme hyperparameter)
int args_given(const char *name);
// The value of every flag of the last args_parse (given, or its default), one line each,
// "--name = value" in table order (numbers in the fewest digits that read back exactly), then
// the scheme hyperparameter flags (given or default, when parsed with them); the flags
// named in skip (space-separated names, no dashes) left out. A canonical text of the command
// line: two processes that parsed the same settings have the same text (dist_agree compares them).
const char *args_values(const char *skip);
// Apply hyperparameter flags to the scheme's slots; a flag that belongs to another scheme is an error.
void args_apply_hypers(const HyperArgs *hyp, const PosScheme *s, float *hp);
#endif
