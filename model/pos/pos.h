// pos.h - the position-scheme contract: the hooks a scheme may fill, the state they read, and
// the registry. This is the core of the wing model/pos/; every scheme is one file beside it
// (model/pos/NAME.c) plus one line in the registry (core.c). The model calls the hooks and never
// looks at a scheme's name:
//   input add     x[n] += emb(pos[n])               after the token embedding
//   q/k transform q, k of every head, every layer     after the qkv linear (RoPE)
//   q/k decay     q_i . k_j gains exp(rate (p_i - p_j)) after the q/k transform (xPos)
//   logit bias    score(h, i, j) += b(h, pos_i, pos_j) after scaling by 1/sqrt(HS), before softmax
//   logit term    score(h, i, j) += f(q_i, k_0..k_i)  from the contents (CoPE, Shaw, Transformer-XL)
//   value term    out_i += sum_j p_ij a(h, pos_i, pos_j) after the softmax (Shaw's a^V)
// each with its backward. Every hook receives the position array rather than assuming 0..T-1,
// so randomized training positions (Ruoss et al. 2023), shifted starts and interpolated
// positions need no special case. Hooks a scheme does not use stay NULL.
//
// Parameters: a scheme declares its learnable tensors (the tensors hook), each either one per
// layer or one shared by all layers, as its paper does; the model may override that for every
// tensor at once (PosSharing). The model lays the tensors out in its flat parameter buffer and
// hands each layer a PosState whose param[k] points at that layer's tensor k. Gradients come
// to the backward hooks as an array of pointers with the same shapes (dparam[k]).
// Hyperparameters: up to POS_MAX_HYPER floats, declared with a name and a default; the CLI
// exposes each as --<name>, the checkpoint stores them.
// Not here: the positions themselves (the trainer and the evaluator draw them), the attention
// kernel (layers.c), a family's own helpers (rotary.h: rotations and context extensions).
#ifndef POSGPT_POS_H
#define POSGPT_POS_H

#include "common.h"

#define POS_MAX_HYPER 8
#define POS_MAX_TENSORS 4

typedef struct {
    const char *name; // e.g. "rope-base" (the program offers it as a flag of that name)
    float def;        // default value
    const char *help;
    int integer;      // 1: an integer (still stored as float32)
} PosHyper;

// one learnable tensor of a scheme
typedef struct {
    const char *name; // short, for export ("table", "r", "mlp", ...)
    int ndim;         // 1..3
    size_t dims[3];
    int per_layer;    // the paper's choice: 1 = one per layer, 0 = one shared by all layers
    int decay;        // 1: AdamW applies weight decay (tables, by convention, do not)
} PosTensor;

// how a model lays out its scheme's tensors (GPTConfig.pos_sharing)
typedef enum {
    POS_SHARING_PAPER = 0, // as each tensor declares (PosTensor.per_layer)
    POS_SHARING_SHARED,    // every tensor shared by all layers
    POS_SHARING_LAYER,     // every tensor one per layer
    POS_SHARING_COUNT
} PosSharing;

// An evaluation-time context extension, asked for by name (e.g. position interpolation for
// a rotary model evaluated beyond its training length). A scheme lists the methods it knows
// in PosScheme.extensions and applies one in its extend hook.
typedef struct {
    const char *method; // one of the scheme's extensions
    double factor;      // the method's scale factor; 0 = from the window length
    int train_len;      // the checkpoint's training length
    int window;         // a method's window, if it has one; 0 = its default
} PosExtension;

struct PosScheme;

// Everything a hook may read: one per layer when some tensor is per layer, else one for all.
typedef struct {
    const struct PosScheme *scheme;
    int C, NH, HS;           // model width, heads, head size
    int rows;                // positions 0..rows-1 are those training uses; an absolute table
                             // (learned) has this many rows
    int layer;               // the layer this state serves (0 when one state serves all)
    float hp[POS_MAX_HYPER]; // hyperparameters, in the order of scheme->hypers
    int sharing;             // PosSharing of the model
    int ntensors;
    real *param[POS_MAX_TENSORS]; // this layer's view of each tensor (set by the model)
    size_t size[POS_MAX_TENSORS]; // and its number of floats
    void *cache;             // scheme-owned precomputed data (built by prepare, freed by release)
} PosState;

typedef struct PosScheme {
    const char *name;    // the scheme's name
    const char *summary; // one line of description
    const char *cite;    // paper reference
    PosHyper hypers[POS_MAX_HYPER]; // terminated by {NULL}
    int relative;        // 1: depends only on distances pos_i - pos_j (shift-invariant)

    // learnable tensors (NULL: none): fills t[0..n) (n <= POS_MAX_TENSORS), returns n
    int (*tensors)(const PosState *ps, PosTensor *t);
    // initial values of tensor k of one layer (NULL: zeros); called once per shared tensor,
    // once per layer for a per-layer one, in tensor order (layers innermost)
    void (*init)(const PosState *ps, int k, real *p, Rng *rng);
    // project this layer's tensors back into their allowed set (e.g. KERPLE's r > 0); the
    // model calls it after init and after every optimizer step (idempotent: a shared tensor
    // is seen by every layer's state). NULL: unconstrained.
    void (*constrain)(const PosState *ps);
    // largest position + 1 the scheme can serve; 0 = unlimited
    int (*max_pos)(const PosState *ps);
    // check dimensions and hyperparameters before prepare: NULL if fine, else a one-line
    // message written into err (NULL hook: anything goes)
    const char *(*validate)(const PosState *ps, char *err, size_t n);
    // precompute (e.g. slopes, frequencies) after hyperparameters are set; release frees it
    void (*prepare)(PosState *ps);
    void (*release)(PosState *ps);

    // context extensions at evaluation time: "a|b|c", the methods extend accepts (NULL: none)
    const char *extensions;
    // apply one (the core has checked the method is listed; factor >= 1 or 0): NULL if fine,
    // else a one-line reason in err. The state keeps it until the next call.
    const char *(*extend)(PosState *ps, const PosExtension *e, char *err, size_t n);
    // the value the extension in force uses at window length T (its scale factor, or its
    // window), for reports
    double (*extension_value)(const PosState *ps, int T);

    // input add. x (N, C), pos (N): x[n] += emb(pos[n]). Backward adds into dparam.
    void (*input_forward)(const PosState *ps, real *x, const int *pos, int N);
    void (*input_backward)(const PosState *ps, real *const *dparam, const real *dx, const int *pos, int N);

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
    // the row hooks then only read; a distance beyond the table is computed directly).
    // It must give the same floats as computing each score directly. NULL: nothing to refresh.
    void (*tabulate)(const PosState *ps, int ndist);
    // the table's gradient (optional, with tabulate): table_grad(ps, ndist) floats that the
    // backward row hooks may add into as dparam[ps->ntensors] (per (sequence, head), like the
    // tensors' buffers); the attention sums them and untabulate turns the sum into the
    // tensors' gradients (e.g. a projection of fixed vectors per distance: Transformer-XL)
    size_t (*table_grad)(const PosState *ps, int ndist);
    void (*untabulate)(const PosState *ps, int ndist, const real *dtable, real *const *dparam);

    // logit bias for head h and one query at position qpos against n keys at kpos[0..n):
    // scores[j] += b(h, qpos, kpos[j]). Backward: dparam += db/dparam * dscores[j].
    // The model calls the backward row hooks in parallel over (sequence, head), each thread
    // with its own zeroed gradient buffers, and sums the buffers in a fixed order afterwards:
    // a scheme may share parameters between heads (FIRE's MLP) without any locking.
    void (*bias_forward)(const PosState *ps, int h, int qpos, const int *kpos, int n, real *scores);
    void (*bias_backward)(const PosState *ps, real *const *dparam, int h, int qpos, const int *kpos, int n,
                          const real *dscores);

    // content-dependent logit term, for head h and one query row: q (HS floats), the n keys
    // it attends to (rows of K, stride kstride), scores[0..n) = q.k_j * scale on entry; the
    // hook adds its term. Backward: given dscores (gradient of the row's final logits), add
    // the term's gradients into dq (HS), the rows of dK (stride kstride) and dparam. Both get
    // `scratch`, scratch_size(ps, n) floats of the caller's, for one row.
    void (*score_forward)(const PosState *ps, int h, const real *q, const real *K, int kstride, int qpos, const int *kpos,
                          int n, real scale, real *scores, real *scratch);
    void (*score_backward)(const PosState *ps, real *const *dparam, int h, const real *q, const real *K, int kstride,
                           int qpos, const int *kpos, int n, real scale, const real *dscores, real *dq, real *dK,
                           real *scratch);
    size_t (*scratch_size)(const PosState *ps, int n); // NULL: none

    // value term for head h and one query row, after the softmax: probs[0..n) the row's
    // attention weights, out (HS) += sum_j probs[j] a(h, qpos, kpos[j]). Backward: given dout
    // (HS), dprobs[j] += dout . a(...) and dparam += probs[j] dout.
    void (*value_forward)(const PosState *ps, int h, int qpos, const int *kpos, int n, const real *probs, real *out);
    void (*value_backward)(const PosState *ps, real *const *dparam, int h, int qpos, const int *kpos, int n,
                           const real *probs, const real *dout, real *dprobs);

    // the scheme's own forward FLOPs per token in a model of L layers at window length T, every
    // one of the T keys counted (as the model's 12 L T C counts the scores), a multiply and an
    // add one FLOP each, a quantity that several heads or queries share counted once, work
    // done once per pass (tables by distance) left out; for `posgpt info` (docs/usage.md).
    // NULL: none (nope).
    double (*flops)(const PosState *ps, int T, int L);
} PosScheme;

// ---- registry ----
int pos_count(void);
const PosScheme *pos_at(int i);
const PosScheme *pos_find(const char *name); // NULL if unknown
const char *pos_names(void);                 // "a|b|c" for help and errors
int pos_hyper_index(const PosScheme *s, const char *name); // -1 if the scheme has no such hyper
void pos_default_hypers(const PosScheme *s, float *hp);
const char *pos_sharing_name(int sharing); // "paper", "shared", "layer"
int pos_sharing_parse(const char *name);   // -1 if unknown

// ---- state ----
// fill ps (no tensors bound, nothing prepared); hp NULL = the defaults
void pos_state_fill(PosState *ps, const PosScheme *s, int C, int NH, int rows, const float *hp, int sharing);
// the scheme's validate: NULL if fine, else the message in err
const char *pos_check(const PosState *ps, char *err, size_t n);
// the scheme's tensors with the model's sharing applied (per_layer rewritten); returns the count
int pos_tensors(const PosState *ps, PosTensor *t);
size_t pos_tensor_size(const PosTensor *t);
// floats the scheme's parameters take in a model of L layers
size_t pos_param_count(const PosState *ps, int L);
// the scheme's training FLOPs per token (forward and backward: 3 x its flops hook; 0 without one)
double pos_train_flops(const PosState *ps, int T, int L);
// 1 if some tensor is per layer (then the model keeps one state per layer)
int pos_per_layer(const PosState *ps);
void pos_prepare(PosState *ps); // the scheme's prepare (after validate)
void pos_release(PosState *ps); // the scheme's release

// ---- context extensions ----
// apply extension e to a prepared state ("none": back to the plain scheme): NULL if fine, else
// a one-line reason in err (the scheme has no extensions, does not know the method, or
// refuses its settings)
const char *pos_extend(PosState *ps, const PosExtension *e, char *err, size_t n);
// 1 if the scheme lists the method
int pos_has_extension(const PosScheme *s, const char *method);
// "a|b|c": every method some scheme lists, in registry order, each once
const char *pos_extension_names(void);
// 1 if some scheme lists the method
int pos_extension_known(const char *method);

// ---- q/k decay (the qk_decay hook) ----
// The largest exponent |rate (p - c)| the model lets a factor reach: e^60 ~ 1e26 leaves float
// room for the vectors' own sizes.
#define POS_DECAY_EXP_MAX 60.0
// the largest spread of positions within one sequence that window-centred decay supports
// (INT_MAX for a scheme without decay): training refuses windows that spread further
int pos_decay_max_span(const PosState *ps, int T);
// window-centred decay of v (B, T, NH, HS), row stride `stride`, centre = the middle of each
// sequence's positions; the same call is its own backward (a diagonal scale). Dies if a
// factor would exceed POS_DECAY_EXP_MAX (callers check pos_decay_max_span first).
void pos_decay_apply(const PosState *ps, real *v, const int *pos, int B, int T, int stride, int is_key);
#endif
