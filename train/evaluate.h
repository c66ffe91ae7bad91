// evaluate.h - scoring held-out text at a given window length, with the two protocols of
// Press et al. 2022 (Sec. 4, App. B): nonoverlapping chunks, and sliding windows that score
// only their last `stride` tokens (the first window scores all of its tokens). Shared by
// `posgpt eval` and the trainer's validation, so the two agree at the training length.
#ifndef POSGPT_EVALUATE_H
#define POSGPT_EVALUATE_H

#include "gpt.h"

#include <signal.h>
#include <stdint.h>

typedef struct {
    int len;        // window length L
    int stride;     // tokens scored per window after the first (= len: nonoverlapping)
    long max_tokens; // score at most the first max_tokens targets of the text (0: all)
    int batch;      // windows per forward pass
    int rand_max;   // > 0: each window gets sorted random positions from [0, rand_max)
    int offset;     // contiguous positions start here (0: 0..L-1)
    uint64_t seed;  // for random positions
    int progress;   // print a progress line to stderr
    int per_window; // fill win_loss/win_tokens (caller frees)
    const volatile sig_atomic_t *stop; // if set and non-zero, stop between batches (r->stopped)
} EvalSpec;

typedef struct {
    double loss;     // mean loss (nats/token) over scored tokens
    long tokens;     // scored tokens
    long windows;
    double *pos_loss; // (len) mean loss at each index of the window (NULL unless asked)
    long *pos_count;  // (len)
    int stopped;      // cut short by spec->stop: loss covers only the windows scored
    double *win_loss; // (windows) the sum of each window's scored losses (NULL unless spec->per_window)
    long *win_tokens; // (windows) the targets each scored
} EvalResult;

// A 95% percentile-bootstrap interval of the mean loss: `resamples` resamples of the windows
// (seeded: the same interval on every run), each the tokens' mean over the windows it holds
// (r from evaluate with spec->per_window). The windows' scored targets are disjoint, but
// neighbouring windows of one text correlate, so a resample is drawn by blocks: ceil(K / block)
// blocks of `block` consecutive windows, each from a window drawn uniformly, wrapping past the
// last to the first (the circular block bootstrap, Politis & Romano 1992), cut to K windows.
// block 1 draws windows one by one as independent (the interval before blocks). Fewer than 2
// windows: nan for both ends (one window has no spread to resample).
void eval_bootstrap_ci(const EvalResult *r, int resamples, long block, uint64_t seed, double *lo, double *hi);
// The default block for K windows: K^(1/3) rounded, at least 1 and at most K (the order of the
// block length that Hall, Horowitz & Jing 1995 find best for a variance; 14 of 2845 windows)
long eval_ci_block(long windows);

// m: a model whose parameters to use (activations are allocated on a view of it).
// want_pos: fill pos_loss/pos_count (caller frees). Errors if the text is shorter than L+1.
void evaluate(const GPT *m, const uint8_t *text, size_t n, const EvalSpec *spec, int want_pos, EvalResult *r);
#endif
