// summary.h - DIR/summary.json, the end of a training run in one small JSON file: how it
// ended, log.csv's last row (the same numbers, printed with log.csv's digits), the wall time
// and the configuration (config.txt's settings). Written atomically (fileio.h) at the end of
// every invocation of train, replacing the previous one. docs/usage.md lists the fields.
#ifndef POSGPT_SUMMARY_H
#define POSGPT_SUMMARY_H

// one row of log.csv (step -1: none written yet)
typedef struct {
    long step;
    double loss, val, lr, norm, rate, elapsed;
} LogRow;

typedef struct {
    const char *status;  // done | stopped | interrupted
    const char *scheme;  // the run's label (run_label)
    const char *config;  // "key = value" lines (config.txt's format; '#' lines skipped)
    long step;
    int steps;
    double val_loss;     // the last validation loss (NaN: none), used when the last row has none
    const LogRow *last;
    double wall, tokens; // this invocation's wall time and tokens trained on
    double until_acc;    // train --until-acc (0: none, and no steps_to_learn is written)
    long learned_step;   // the step it was reached at (0: not, steps_to_learn null)
    int after_learn;     // train --after-learn (written when until_acc is)
} RunSummary;

void summary_write(const char *dir, const RunSummary *s);
#endif
