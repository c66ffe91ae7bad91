// pos.h - the position-scheme plug-in interface and registry.
//
// A scheme is one table of hooks (PosScheme) in its own file, plus one line in the registry
// (pos.c). The model calls the hooks at three places and never looks at the scheme's name:
//   input add     x[n] += emb(pos[n])               after the token embedding
//   q/k transform q, k of every head, every layer     after the qkv linear (RoPE)
//   logit bias    score(h, i, j) += b(h, pos_i, pos_j) after scaling by 1/sqrt(HS), before softmax
// each with its backward. Every hook receives the position array rather than assuming 0..T-1,
// so randomized training positions (Ruoss et al. 2023), shifted starts and interpolated
// positions need no special case. Hooks a scheme does not use stay NULL.
//
// Parameters: a scheme may own learnable parameters (learned table, T5 bias table); they are
// one more entry of the model's flat parameter buffer, sized by num_params().
// Hyperparameters: up to POS_MAX_HYPER floats, declared by the scheme with a flag name and a
// default; the CLI exposes each as --<name>, the checkpoint stores them.
// Not here: the positions themselves (pos_fill in pos.c draws them), the attention kernel.
#ifndef POSGPT_POS_H
#define POSGPT_POS_H

#include "common.h"

#define POS_MAX_HYPER 8

typedef struct {
    const char *name; // CLI flag without the dashes, e.g. "rope-base"
    float def;        // default value
    const char *help;
} PosHyper;

struct PosScheme;

// Everything a hook may read. Built once per model by pos_state_init.
typedef struct {
    const struct PosScheme *scheme;
    int C, NH, HS;           // model width, heads, head size
    int rows;                // rows of an absolute table (learned): max position + 1 it can serve
    float hp[POS_MAX_HYPER]; // hyperparameters, in the order of scheme->hypers
    real *params;            // this scheme's slice of the model parameters (NULL if none)
    void *cache;             // scheme-owned precomputed data (built by prepare, freed by release)
} PosState;

typedef struct PosScheme {
    const char *name;    // --pos NAME
    const char *summary; // one line for --help
    const char *cite;    // paper reference
    PosHyper hypers[POS_MAX_HYPER]; // terminated by {NULL}
    int relative;        // 1: depends only on distances pos_i - pos_j (shift-invariant)

    // parameters (NULL: none). weight_decay: AdamW decays them (matrices only by convention).
    size_t (*num_params)(const PosState *ps);
    void (*init)(const PosState *ps, real *params, Rng *rng); // NULL: zeros
    int weight_decay;
    // largest position + 1 the scheme can serve; 0 = unlimited
    int (*max_pos)(const PosState *ps);
    // check dimensions and hyperparameters before prepare: NULL if fine, else a one-line
    // message written into err (NULL hook: anything goes)
    const char *(*validate)(const PosState *ps, char *err, size_t n);
    // precompute (e.g. slopes, frequencies) after hyperparameters are set; release frees it
    void (*prepare)(PosState *ps);
    void (*release)(PosState *ps);

    // input add. x (N, C), pos (N): x[n] += emb(pos[n]). Backward adds into dparams.
    void (*input_forward)(const PosState *ps, real *x, const int *pos, int N);
    void (*input_backward)(const PosState *ps, real *dparams, const real *dx, const int *pos, int N);

    // q/k transform, in place, for one sequence: v (T, NH, HS) with row stride `stride`
    // floats. is_key tells q (0) from k (1). Backward applies the transpose to the gradient.
    void (*qk_forward)(const PosState *ps, real *v, const int *pos, int T, int stride, int is_key);
    void (*qk_backward)(const PosState *ps, real *dv, const int *pos, int T, int stride, int is_key);

    // logit bias for head h and one query at position qpos against n keys at kpos[0..n):
    // scores[j] += b(h, qpos, kpos[j]). Backward: dparams += db/dparams * dscores[j].
    // The model calls bias_backward in parallel over heads only, so a scheme whose
    // parameters are per head (columns of a table) writes disjoint memory.
    void (*bias_forward)(const PosState *ps, int h, int qpos, const int *kpos, int n, real *scores);
    void (*bias_backward)(const PosState *ps, real *dparams, int h, int qpos, const int *kpos, int n, const real *dscores);
} PosScheme;

// registry
int pos_count(void);
const PosScheme *pos_at(int i);
const PosScheme *pos_find(const char *name); // NULL if unknown
const char *pos_names(void);                 // "a|b|c" for help and errors

// state
// validate (errors exit via die), then prepare
void pos_state_init(PosState *ps, const PosScheme *s, int C, int NH, int rows, const float *hp);
// parameter count of a scheme at these dimensions, without preparing anything
size_t pos_param_count(const PosScheme *s, int C, int NH, int rows, const float *hp);
// the scheme's validate without preparing anything: NULL if fine, else the message in err
const char *pos_check(const PosScheme *s, int C, int NH, int rows, const float *hp, char *err, size_t n);
void pos_state_free(PosState *ps);
size_t pos_num_params(const PosState *ps);
int pos_hyper_index(const PosScheme *s, const char *name); // -1 if the scheme has no such hyper
void pos_default_hypers(const PosScheme *s, float *hp);

// positions for a batch: pos (B, T).
//  lmax == 0: contiguous, pos[b][t] = offset + t
//  lmax > 0 : randomized (Ruoss et al. 2023): for each row, T distinct integers drawn from
//             [0, lmax) without replacement (Floyd's algorithm), sorted ascending
void pos_fill(int *pos, int B, int T, int offset, int lmax, Rng *rng);

// ALiBi slopes (Press et al. 2022, Sec. 3), shared with tests: slopes[h] for H heads
void alibi_slopes(int H, double *slopes);
// causal T5 bucket of a distance D >= 0 (Raffel et al. 2020), shared with tests
int t5_bucket(int D, int num_buckets, int max_distance);
#endif
