// gpt.h - the GPT-2 style decoder: configuration, one flat parameter buffer described by a
// size table, activations, forward, backward. The position scheme is reached only through its
// hooks (pos/pos.h). Not here: the optimizer (optim.h), data, checkpoints, the training loop
// (train/).
#ifndef POSGPT_GPT_H
#define POSGPT_GPT_H

#include "common.h"
#include "pos.h"

typedef struct {
    int V;          // vocabulary (256: bytes)
    int C;          // d_model
    int L;          // layers
    int NH;         // heads
    int T;          // training sequence length
    char scheme[32]; // position scheme name
    float scheme_hp[POS_MAX_HYPER]; // its hyperparameters, in the order the scheme declares them
    int scheme_sharing; // PosSharing: where the scheme's tensors live (per layer or shared)
    int pos_rows;   // positions 0..pos_rows-1 are those training uses (the rows of an absolute table)
    // a context extension the model was trained with (train --rope-scaling, e.g. position
    // interpolation fine-tuned at a longer length): in force whenever the model is built
    char ext_method[16];  // "" = none
    double ext_factor;    // its scale factor (resolved when training starts: never 0)
    int ext_train_len;    // the length the extension scales from (the model's before fine-tuning)
    int ext_window;       // a method's window (unused by the methods training takes)
} GPTConfig;

enum {
    P_WTE,   // (V, C) token embedding, tied to the output head
    P_LN1W,  // (L, C)
    P_LN1B,  // (L, C)
    P_QKVW,  // (L, 3C, C)
    P_QKVB,  // (L, 3C)
    P_ATTPW, // (L, C, C)
    P_ATTPB, // (L, C)
    P_LN2W,  // (L, C)
    P_LN2B,  // (L, C)
    P_FCW,   // (L, 4C, C)
    P_FCB,   // (L, 4C)
    P_FCPW,  // (L, C, 4C)
    P_FCPB,  // (L, C)
    P_LNFW,  // (C)
    P_LNFB,  // (C)
    P_SCHEME, // the position scheme's tensors, in its order, a per-layer one (L, ...) (may be empty)
    NUM_PARAM_TENSORS
};
extern const char *const PARAM_NAMES[NUM_PARAM_TENSORS];

typedef struct {
    GPTConfig cfg;
    PosState *sch;        // the scheme's state: nsch of them, one per layer if some tensor is
    int nsch;             // per layer, else one for all (gpt_scheme)
    PosTensor sch_t[POS_MAX_TENSORS]; // the scheme's tensors (the model's sharing applied)
    size_t sch_off[POS_MAX_TENSORS];  // where each starts in the P_SCHEME slice
    int sch_nt;
    size_t sizes[NUM_PARAM_TENSORS], offsets[NUM_PARAM_TENSORS];
    size_t num_params;
    real *params, *grads; // (num_params) each; grads allocated on first backward
    int clamp_pos;        // 1: positions past the scheme's limit map to its last one
    int att_qblock;       // the attention's query block (ATT_QBLOCK; tests vary it)
    int is_view;          // 1: params and scheme state borrowed from another GPT (gpt_view)
    // activations, allocated for (B, T) by gpt_alloc; train mode keeps every layer's
    int B, T, train;
    int *tok, *tgt, *pos; // (B,T)
    int rows;             // rows of the last forward (<= B; gpt_forward_packed)
    int *seg;             // (B,T) packed examples' first rows (train mode; see gpt_forward_packed), or NULL
    int packed;           // 1: the last forward had packed examples (seg)
    real *res;            // (L+1 | 1, B,T,C) residual stream before each layer / at the end
    real *ln1, *ln1_mean, *ln1_rstd, *qkv, *atty, *att, *mid, *ln2, *ln2_mean, *ln2_rstd, *fch, *fchg;
                          // fch: gelu' of fc's output (train mode), fchg: the GELU's output
    real *proj;           // (B,T,C) scratch for the two output projections
    real *lnf, *lnf_mean, *lnf_rstd;
    real *probs;          // (B,T,V) logits, then softmax in place, then d(logits)
    real *losses;         // (B,T)
    double loss_sum;      // the last forward's sum of the scored losses
    long loss_denom;      // > 0: backward takes the gradient of (loss sum / loss_denom), for a batch that is one
                          // shard of a larger one (train/shards.c); 0: of the mean over this batch's scored positions
    // backward scratch (train mode only)
    real *dres, *dln, *dqkv, *datty, *dfch, *dloss;
} GPT;

// NULL if cfg describes a model this build can make, else a one-line reason in err
const char *gpt_config_check(const GPTConfig *cfg, char *err, size_t n);
// parameter count of a valid cfg, without allocating anything
size_t gpt_param_count(const GPTConfig *cfg);
// which of the scheme's tensors are one per layer under cfg's sharing: bit k for tensor k
unsigned gpt_scheme_layout(const GPTConfig *cfg);
// Validate cfg (errors exit via die), set the size table, allocate parameters. No init.
void gpt_build(GPT *m, const GPTConfig *cfg);
void gpt_init(GPT *m, uint64_t seed); // GPT-2 init, then the scheme's init
void gpt_free(GPT *m);
// A second model sharing m's parameters and scheme state, with activations of its own
// (e.g. an inference-mode view for validation during training). Free it before m.
void gpt_view(GPT *v, const GPT *m);
// Allocate activations for batches of (B, T); train = 1 keeps what backward needs.
void gpt_alloc(GPT *m, int B, int T, int train);
// Bytes gpt_alloc would take for (B, T), plus the attention's per-thread scratch for
// `threads` threads (in double: no overflow at any size the flags accept). Parameters,
// gradients and optimizer moments are not included (4 bytes x num_params each).
double gpt_alloc_bytes(const GPTConfig *c, int B, int T, int train, int threads);
// Forward on tok (B,T) at positions pos (B,T) (NULL: 0..T-1). With targets, returns the mean
// loss over the scored positions (a target GPT_NO_TARGET is not scored: a task's prompt and
// padding; 0 if none is) and fills m->losses; without, returns 0. Probabilities are left in
// m->probs, the final LayerNorm's output in m->lnf.
#define GPT_NO_TARGET (-1)
double gpt_forward(GPT *m, const int *tok, const int *tgt, const int *pos);
// The same on the first `rows` rows only (1 <= rows <= B: a batch that fills fewer rows costs
// less; backward follows), with examples packed into rows (train mode): seg (rows,T), NULL for
// none, gives for each token the row index of its example's first token, so that the
// attention of each example sees its own tokens only; pos should start each example afresh.
// A packed batch gives the loss and gradients of the same examples one to a row.
double gpt_forward_packed(GPT *m, const int *tok, const int *tgt, const int *pos, const int *seg, int rows);
void gpt_zero_grad(GPT *m);
void gpt_backward(GPT *m); // gradient of the mean loss of the last forward (see loss_denom), added into grads
double gpt_grad_norm(const GPT *m);
// index of the first parameter tensor whose gradient holds a NaN or infinity, or -1
int gpt_nonfinite_grad(const GPT *m);
// the scheme state layer l uses
static inline PosState *gpt_scheme(const GPT *m, int l) { return &m->sch[m->nsch > 1 ? l : 0]; }
// pointers to layer l's scheme tensors in buf (the parameters or the gradients), in order
void gpt_scheme_views(const GPT *m, real *buf, int l, real **view);
// apply an evaluation-time context extension to every layer's scheme state: NULL if fine,
// else a one-line reason in err
const char *gpt_extend(GPT *m, const PosExtension *e, char *err, size_t n);
// the largest position + 1 the scheme serves (0 = unlimited)
int gpt_max_pos(const GPT *m);
// the parameter buffer as consecutive ranges, each with its weight-decay flag (the matrices,
// and the scheme tensors that declare it); returns the count (<= GPT_MAX_RANGES)
#define GPT_MAX_RANGES (NUM_PARAM_TENSORS + 2 * POS_MAX_TENSORS)
typedef struct { size_t off, n; int decay; } ParamRange;
int gpt_param_ranges(const GPT *m, ParamRange *r);
// project the position scheme's parameters into their allowed set (PosScheme.constrain)
void gpt_constrain(GPT *m);
// parameters that take part in matmuls (FLOP count): all but the position tensor
size_t gpt_flop_params(const GPT *m);
#endif
