// pos.h - the position-scheme plug-in interface and registry.
//
// A scheme is one table of hooks (PosScheme) in its own file, plus one line in the registry
// (pos.c). The model calls the hooks at three places and never looks at the scheme's name:
//   input add     x[n] += emb(pos[n])               after the token embedding
//   q/k transform q, k of every head, every layer     after the qkv linear (RoPE)
//   logit bias    score(h, i, j) += b(h, pos_i, pos_j) after scaling by 1/sqrt(HS), before softmax
//   logit term    score(h, i, j) += f(q_i, k_0..k_i)  from the contents (CoPE)
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
    int integer;      // 1: an integer (still stored as float32); --help shows N, not X
} PosHyper;

struct PosScheme;

// Context extension of rotary schemes at evaluation time (no retraining). s = the scale
// factor: `factor` if > 0, else max(1, window length / train_len). See pos_rope.c.
typedef enum { POS_EXT_NONE, POS_EXT_PI, POS_EXT_NTK, POS_EXT_DYNNTK, POS_EXT_YARN, POS_EXT_REROPE, POS_EXT_COUNT } PosExtMethod;
typedef struct {
    int method;     // PosExtMethod
    double factor;  // s (dynamic-ntk: alpha, default 1); 0 = from the window length
    int train_len;  // the checkpoint's training length
    int window;     // rerope: distances >= window rotate as window (0 = train_len)
} PosExt;

// Everything a hook may read. Built once per model by pos_state_init.
typedef struct {
    const struct PosScheme *scheme;
    int C, NH, HS;           // model width, heads, head size
    int rows;                // positions 0..rows-1 are those training uses (--seq-len, --rand-max or
                             // --max-pos); an absolute table (learned) has this many rows
    float hp[POS_MAX_HYPER]; // hyperparameters, in the order of scheme->hypers
    real *params;            // this scheme's slice of the model parameters (NULL if none)
    void *cache;             // scheme-owned precomputed data (built by prepare, freed by release)
    PosExt ext;              // evaluation-time context extension (rotary schemes; zero = none)
} PosState;

typedef struct PosScheme {
    const char *name;    // --pos NAME
    const char *summary; // one line for --help
    const char *cite;    // paper reference
    PosHyper hypers[POS_MAX_HYPER]; // terminated by {NULL}
    int relative;        // 1: depends only on distances pos_i - pos_j (shift-invariant)
    unsigned ext_methods; // bit m set: accepts eval --rope-scaling method m (PosExtMethod)

    // parameters (NULL: none). weight_decay: AdamW decays them (matrices only by convention).
    size_t (*num_params)(const PosState *ps);
    // the parameters' shape for named export (posgpt export): fills dims (at most 4), returns
    // their count; their product is num_params. NULL: one dimension of num_params.
    int (*param_shape)(const PosState *ps, size_t *dims);
    void (*init)(const PosState *ps, real *params, Rng *rng); // NULL: zeros
    int weight_decay;
    // project parameters back into their allowed set (e.g. KERPLE's r > 0); the trainer
    // calls it after init and after every optimizer step. NULL: unconstrained.
    void (*constrain)(const PosState *ps, real *params);
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

    // q/k transform, in place, for B sequences of T rows: v (B, T, NH, HS) with row stride
    // `stride` floats (sequence b starts at v + b T stride), pos (B, T). is_key tells q (0)
    // from k (1). Backward applies the transpose to the gradient.
    void (*qk_forward)(const PosState *ps, real *v, const int *pos, int B, int T, int stride, int is_key);
    void (*qk_backward)(const PosState *ps, real *dv, const int *pos, int B, int T, int stride, int is_key);
    // q/k decay (xPos), applied by the model after qk_forward: rate[0..HS) <= 0 per channel of a
    // head for windows of length T; channel d of a query at position p is scaled by
    // exp(rate[d] (p - c)) and of a key by exp(-rate[d] (p - c)), so q_i . k_j carries
    // exp(rate[d] (p_i - p_j)) and the centre c cancels. The model picks c: the middle of the
    // window in training (pos_decay_apply), of each block of queries in evaluation (inside
    // the attention), so that no factor overflows float at any evaluation length.
    void (*qk_decay)(const PosState *ps, int T, double *rate);

    // refresh what depends on the parameters, e.g. a bias table per head and distance (the
    // attention calls it at its start, outside any parallel region, with ndist = 1 + the
    // largest spread of positions within a sequence of the pass, which bounds every distance;
    // the bias hooks then only read; a distance beyond the table is computed directly).
    // It must give the same floats as computing each score directly. NULL: nothing to refresh.
    void (*tabulate)(const PosState *ps, int ndist);

    // logit bias for head h and one query at position qpos against n keys at kpos[0..n):
    // scores[j] += b(h, qpos, kpos[j]). Backward: dparams += db/dparams * dscores[j].
    // The model calls bias_backward in parallel over (sequence, head), each thread with its
    // own zeroed dparams buffer, and sums the buffers in a fixed order afterwards: a scheme
    // may share parameters between heads (FIRE's MLP) without any locking.
    void (*bias_forward)(const PosState *ps, int h, int qpos, const int *kpos, int n, real *scores);
    void (*bias_backward)(const PosState *ps, real *dparams, int h, int qpos, const int *kpos, int n, const real *dscores);

    // content-dependent logit term (CoPE), for head h and one query row: q (HS floats), the n
    // keys it attends to (rows of K, stride kstride), scores[0..n) = q.k_j * scale on entry
    // (a scheme with this hook has no bias hook); the hook adds its term. Backward: given
    // dscores (gradient of the row's final logits), add the term's gradients into dq (HS),
    // the rows of dK (stride kstride) and dparams (a per-thread buffer, as for bias_backward).
    // The positions of the query and of the keys come along as for the bias hook.
    void (*score_forward)(const PosState *ps, int h, const real *q, const real *K, int kstride, int qpos, const int *kpos, int n,
                          real scale, real *scores);
    void (*score_backward)(const PosState *ps, real *dparams, int h, const real *q, const real *K, int kstride, int qpos,
                           const int *kpos, int n, real scale, const real *dscores, real *dq, real *dK);
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

// rotary transform shared by rope and xpos: rotate the channel pairs of v (B, T, NH, HS), row
// stride `stride`, by sign * pos * theta_k, theta_k = base^(-2k/HS) as modified by ps->ext
// (context extension); pairs (x_2k, x_2k+1) if interleaved, else (x_k, x_k+HS/2). sign = -1
// is the backward (the transform is a rotation times YaRN's constant scale).
void rotary_apply(const PosState *ps, real *v, const int *pos, int B, int T, int stride, double base, int interleaved,
                  double sign);
// the factor position interpolation applies to positions at window length T (1: none)
double rotary_pos_scale(const PosState *ps, int T);

// q/k decay (the scheme's qk_decay hook; pos.c). The largest exponent |rate (p - c)| the
// model lets a factor reach: e^60 ~ 1e26 leaves float room for the vectors' own sizes.
#define POS_DECAY_EXP_MAX 60.0
// the largest spread of positions within one sequence that window-centred decay supports
// (INT_MAX for a scheme without decay): training refuses windows that spread further
int pos_decay_max_span(const PosState *ps, int T);
// window-centred decay of v (B, T, NH, HS), row stride `stride`, centre = the middle of each
// sequence's positions; the same call is its own backward (a diagonal scale). Dies if a
// factor would exceed POS_DECAY_EXP_MAX (callers check pos_decay_max_span first).
void pos_decay_apply(const PosState *ps, real *v, const int *pos, int B, int T, int stride, int is_key);
const char *pos_ext_name(int method);   // "none", "pi", "ntk", "dynamic-ntk", "yarn", "rerope"
int pos_ext_parse(const char *name);    // -1 if unknown
// the scale factor s a context extension uses for windows of length T (1 = none)
double pos_ext_scale(const PosExt *e, int T);
// set the context extension of a prepared state (re-prepares the scheme)
void pos_set_ext(PosState *ps, const PosExt *ext);

// ALiBi slopes (Press et al. 2022, Sec. 3), shared with tests: slopes[h] for H heads
void alibi_slopes(int H, double *slopes);
// causal T5 bucket of a distance D >= 0 (Raffel et al. 2020), shared with tests
int t5_bucket(int D, int num_buckets, int max_distance);
#endif
