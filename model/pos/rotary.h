// rotary.h - the rotary family (rope, xpos): rotation of q/k channel pairs by position, and
// the context extensions that change it at evaluation time (Chen et al. 2023; NTK-aware
// scaling; Peng et al. 2023; ReRoPE, Su 2023). docs/schemes.md gives the formulas.
// A rotary scheme's state cache starts with a RotaryExt (rotary_prepare makes it), so the
// family's helpers can read the extension in force from any of its schemes.
#ifndef POSGPT_ROTARY_H
#define POSGPT_ROTARY_H

#include "pos.h"

#define ROTARY_EXTENSIONS "pi|ntk|dynamic-ntk|yarn|rerope"
typedef enum { ROT_NONE, ROT_PI, ROT_NTK, ROT_DYNNTK, ROT_YARN, ROT_REROPE } RotaryMethod;

typedef struct {
    int method;     // RotaryMethod
    double factor;  // s (dynamic-ntk: alpha, default 1); 0 = from the window length
    int train_len;  // the checkpoint's training length
    int window;     // rerope: distances >= window rotate as window (resolved: never 0)
    void *extra;    // the scheme's own data for the method (rope: ReRoPE's table)
} RotaryExt;

void rotary_prepare(PosState *ps); // the cache: a RotaryExt with no extension
void rotary_release(PosState *ps); // frees it (a scheme frees `extra` first)
const RotaryExt *rotary_ext(const PosState *ps);
// the extend hook of the family: parses the method ("none" too) and checks its settings
const char *rotary_extend(PosState *ps, const PosExtension *e, char *err, size_t n);
// the extension_value hook: the scale factor s at window length T (rerope: its window)
double rotary_extension_value(const PosState *ps, int T);
// the scale factor s of the extension in force at window length T (1: none)
double rotary_scale(const PosState *ps, int T);
// the factor position interpolation applies to positions at window length T (1: none)
double rotary_pos_scale(const PosState *ps, int T);
// per channel pair k (HS/2 of them): theta_k = base^(-2k/HS) without an extension (orig) and
// the rotation per position the extension in force at window length T applies (eff: PI's
// position scale folded in), so orig/eff is the factor the pair's frequency is divided by
// (1: left as trained; s: interpolated; between: blended). Returns the pair count.
int rotary_pair_freqs(const PosState *ps, int T, double base, double *orig, double *eff);
// rotate the channel pairs of v (B, T, NH, HS), row stride `stride`, by sign * pos * theta_k,
// theta_k = base^(-2k/HS) as modified by the extension in force; pairs (x_2k, x_2k+1) if
// interleaved, else (x_k, x_k+HS/2). sign = -1 is the backward (the transform is a rotation
// times YaRN's constant scale).
void rotary_apply(const PosState *ps, real *v, const int *pos, int B, int T, int stride, double base, int interleaved,
                  double sign);
#endif
