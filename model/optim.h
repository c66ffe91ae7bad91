// optim.h - AdamW (Loshchilov & Hutter 2019) with bias correction; the optimizer owns its
// moments. The learning-rate schedule is the trainer's (train/), the parameters the model's.
#ifndef POSGPT_OPTIM_H
#define POSGPT_OPTIM_H

#include "gpt.h"

typedef struct {
    double beta1, beta2, eps, wd; // wd applies where gpt_param_ranges says so (matrices)
    size_t n;                     // parameters
    real *mom, *vel;              // (n) each: the first and second moments
    double pos_lr_mult;           // the position scheme's tensors (P_SCHEME) step at lr times this (0 or 1: lr)
} AdamW;

// moments of n parameters, zero (a fresh optimizer)
void adamw_init(AdamW *o, size_t n, double beta1, double beta2, double eps, double wd);
void adamw_free(AdamW *o);
// one update of m's parameters from its gradients times grad_scale (clipping) at learning rate
// lr (the scheme's tensors at lr * pos_lr_mult); t counts updates from 1 (the bias correction).
// Then gpt_constrain.
void adamw_step(AdamW *o, GPT *m, double lr, long t, double grad_scale);
#endif
