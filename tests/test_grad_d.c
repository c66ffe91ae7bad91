// test_grad_d.c - finite-difference gradient checks of every layer and every position
// scheme's hooks, in double precision (this file links the model built with -DPOSGPT_DOUBLE).
// For a layer y = f(x, w), take the scalar loss = sum(y * R) for a fixed random R; the
// backward given dy = R must match central differences (loss(x+e) - loss(x-e)) / 2e.
// Also: gemm against its naive loop, the O(T)-memory attention against the training one.
#include "check.h"
#include "layers.h"
#include "pos.h"

#include <stdlib.h>
#include <string.h>
#include "track_alloc.h"
#include "positions.h"
#include "scheme_state.h"

static Rng rng;
static double *randv(size_t n, double scale) {
    double *v = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) v[i] = scale * rng_normal(&rng);
    return v;
}
static double dot(const double *a, const double *b, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

// numerical gradient of loss() with respect to x[0..n)
typedef double (*LossFn)(void *ctx);
static double central_diff(double *x, size_t i, double eps, LossFn f, void *ctx) {
    double keep = x[i];
    x[i] = keep + eps;
    double lp = f(ctx);
    x[i] = keep - eps;
    double lm = f(ctx);
    x[i] = keep;
    return (lp - lm) / (2 * eps);
}
static void numgrad(double *g, double *x, size_t n, LossFn f, void *ctx) {
    for (size_t i = 0; i < n; i++) g[i] = central_diff(x, i, 1e-5, f, ctx);
}
// for functions with kinks (FIRE's ReLU MLP): where the steps 1e-5 and 1e-6 disagree, a
// kink lies within 1e-5 of the point and the smaller step is the derivative there
static void numgrad_kinks(double *g, double *x, size_t n, LossFn f, void *ctx) {
    for (size_t i = 0; i < n; i++) {
        double a = central_diff(x, i, 1e-5, f, ctx), b = central_diff(x, i, 1e-6, f, ctx);
        g[i] = fabs(a - b) > 1e-6 * (1 + fabs(b)) ? b : a;
    }
}

#define ATOL 1e-7
#define RTOL 1e-5

// ---------------------------------------------------------------- linear
typedef struct { int N, C, OC; double *inp, *w, *b, *out, *R; } LinCtx;
static double lin_loss(void *p) {
    LinCtx *c = p;
    linear_forward(c->out, c->inp, c->w, c->b, c->N, c->C, c->OC);
    return dot(c->out, c->R, (size_t)c->N * c->OC);
}
static void test_linear(void) {
    LinCtx c = {5, 7, 6};
    c.inp = randv(35, 1), c.w = randv(42, 1), c.b = randv(6, 1), c.out = randv(30, 0), c.R = randv(30, 1);
    // dinp starts as garbage: linear_backward overwrites it (dw, db accumulate onto zeros)
    double *dinp = randv(35, 1), *dw = calloc(42, 8), *db = calloc(6, 8), *ng = malloc(42 * 8);
    linear_backward(dinp, dw, db, c.R, c.inp, c.w, c.N, c.C, c.OC);
    numgrad(ng, c.inp, 35, lin_loss, &c);
    check_close("linear d(inp)", dinp, ng, 35, ATOL, RTOL);
    numgrad(ng, c.w, 42, lin_loss, &c);
    check_close("linear d(w)", dw, ng, 42, ATOL, RTOL);
    numgrad(ng, c.b, 6, lin_loss, &c);
    check_close("linear d(b)", db, ng, 6, ATOL, RTOL);
}

// ---------------------------------------------------------------- layernorm
typedef struct { int N, C; double *inp, *w, *b, *out, *mean, *rstd, *R; } LnCtx;
static double ln_loss(void *p) {
    LnCtx *c = p;
    layernorm_forward(c->out, c->mean, c->rstd, c->inp, c->w, c->b, c->N, c->C);
    return dot(c->out, c->R, (size_t)c->N * c->C);
}
static void test_layernorm(void) {
    LnCtx c = {4, 9};
    size_t n = 36;
    c.inp = randv(n, 2), c.w = randv(9, 1), c.b = randv(9, 1), c.out = randv(n, 0), c.R = randv(n, 1);
    c.mean = randv(4, 0), c.rstd = randv(4, 0);
    double *dinp = calloc(n, 8), *dw = calloc(9, 8), *db = calloc(9, 8), *ng = malloc(n * 8);
    ln_loss(&c);
    layernorm_backward(dinp, dw, db, c.R, c.inp, c.w, c.mean, c.rstd, c.N, c.C);
    numgrad(ng, c.inp, n, ln_loss, &c);
    check_close("layernorm d(inp)", dinp, ng, n, ATOL, RTOL);
    numgrad(ng, c.w, 9, ln_loss, &c);
    check_close("layernorm d(w)", dw, ng, 9, ATOL, RTOL);
    numgrad(ng, c.b, 9, ln_loss, &c);
    check_close("layernorm d(b)", db, ng, 9, ATOL, RTOL);
}

// ---------------------------------------------------------------- gelu
typedef struct { size_t n; double *inp, *out, *R; } GeluCtx;
static double gelu_loss(void *p) {
    GeluCtx *c = p;
    gelu_forward(c->out, c->inp, c->n);
    return dot(c->out, c->R, c->n);
}
static void test_gelu(void) {
    GeluCtx c = {40};
    c.inp = randv(40, 2), c.out = randv(40, 0), c.R = randv(40, 1);
    double *d = calloc(40, 8), *ng = malloc(40 * 8);
    gelu_backward(d, c.R, c.inp, c.n);
    numgrad(ng, c.inp, 40, gelu_loss, &c);
    check_close("gelu d(inp)", d, ng, 40, ATOL, RTOL);
}

// ---------------------------------------------------------------- bias + gelu (fused, keeps gelu')
typedef struct { int N, C; double *x, *bias, *out, *R; } BiasGeluCtx;
static double bias_gelu_loss(void *p) {
    BiasGeluCtx *c = p;
    bias_gelu_forward(c->out, NULL, c->x, c->bias, c->N, c->C);
    return dot(c->out, c->R, (size_t)c->N * c->C);
}
static void test_bias_gelu(void) {
    int N = 6, C = 9;
    size_t n = (size_t)N * C;
    BiasGeluCtx c = {N, C};
    c.x = randv(n, 2), c.bias = randv(C, 1), c.out = randv(n, 0), c.R = randv(n, 1);
    double *dg = malloc(n * 8), *dx = malloc(n * 8), *ng = malloc(n * 8);
    bias_gelu_forward(c.out, dg, c.x, c.bias, N, C);
    bias_gelu_backward(dx, c.R, dg, n);
    numgrad(ng, c.x, n, bias_gelu_loss, &c);
    check_close("bias_gelu d(x) from the kept gelu'", dx, ng, n, ATOL, RTOL);
    free(dg), free(dx), free(ng);
}

// ---------------------------------------------------------------- encoder
typedef struct { int N, C; int *tok; double *wte, *out, *R; } EncCtx;
static double enc_loss(void *p) {
    EncCtx *c = p;
    encoder_forward(c->out, c->tok, c->wte, c->N, c->C);
    return dot(c->out, c->R, (size_t)c->N * c->C);
}
static void test_encoder(void) {
    int tok[6] = {3, 1, 3, 0, 4, 1};
    EncCtx c = {6, 5, tok};
    c.wte = randv(25, 1), c.out = randv(30, 0), c.R = randv(30, 1);
    double *d = calloc(25, 8), *ng = malloc(25 * 8);
    encoder_backward(d, c.R, tok, 6, 5, 5);
    numgrad(ng, c.wte, 25, enc_loss, &c);
    check_close("encoder d(wte) with repeated tokens", d, ng, 25, ATOL, RTOL);
}

// ---------------------------------------------------------------- cross-entropy
typedef struct { int N, V; int *tgt; double *logits, *probs, *losses, *w; } CeCtx;
static double ce_loss(void *p) {
    CeCtx *c = p;
    crossentropy_forward(c->losses, c->probs, c->logits, c->tgt, c->N, c->V);
    return dot(c->losses, c->w, c->N);
}
static void test_crossentropy(void) {
    int tgt[4] = {2, 0, 6, 2};
    CeCtx c = {4, 7, tgt};
    c.logits = randv(28, 3), c.probs = randv(28, 0), c.losses = randv(4, 0), c.w = randv(4, 1);
    double *d = calloc(28, 8), *ng = malloc(28 * 8);
    ce_loss(&c);
    // reference loss from the definition
    double ref[4], got[4];
    for (int n = 0; n < 4; n++) {
        double s = 0;
        for (int v = 0; v < 7; v++) s += exp(c.logits[n * 7 + v]);
        ref[n] = log(s) - c.logits[n * 7 + tgt[n]];
        got[n] = c.losses[n];
    }
    check_close("crossentropy loss = logsumexp - z[target]", got, ref, 4, 1e-12, 1e-12);
    crossentropy_backward(d, c.probs, tgt, c.w, 4, 7);
    numgrad(ng, c.logits, 28, ce_loss, &c);
    check_close("crossentropy d(logits)", d, ng, 28, ATOL, RTOL);
}

// ---------------------------------------------------------------- gemm
static void test_gemm_shape(int M, int N, int K, int ld) {
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            int rows = (M > N ? M : N) > K ? (M > N ? M : N) : K; // rows of A and B in any layout
            double *A = randv((size_t)ld * rows, 1), *B = randv((size_t)ld * rows, 1);
            double *C1 = randv((size_t)M * ld, 1), *C2 = malloc((size_t)M * ld * 8);
            memcpy(C2, C1, (size_t)M * ld * 8);
            gemm(ta, tb, M, N, K, 0.7, A, ld, B, ld, 0.3, C1, ld);
            gemm_naive(ta, tb, M, N, K, 0.7, A, ld, B, ld, 0.3, C2, ld);
            char name[64];
            snprintf(name, sizeof name, "gemm %dx%dx%d ta=%d tb=%d matches the naive loop", M, N, K, ta, tb);
            check_close(name, C1, C2, (size_t)M * ld, 1e-12, 1e-12);
            free(A), free(B), free(C1), free(C2);
        }
}
static void test_gemm(void) {
    test_gemm_shape(5, 7, 6, 9);
    test_gemm_shape(2053, 67, 300, 2063); // split over the threads (up to 64 of them)
}

// ---------------------------------------------------------------- attention (+ bias hooks)
typedef struct { int B, T, C, NH, qb; int *pos; PosState *ps; double *qkv, *att, *out, *R; int *seg; } AttCtx;
static double att_loss(void *p) {
    AttCtx *c = p;
    attention_forward(c->out, c->att, c->qkv, c->pos, c->seg, c->ps, c->B, c->T, c->C, c->NH, c->qb);
    return dot(c->out, c->R, (size_t)c->B * c->T * c->C);
}
static void random_sorted_positions(int *pos, int B, int T) {
    positions_draw(pos, B, T, 0, 3 * T, &rng); // distinct, sorted, gaps: exercises pos_i - pos_j != i - j
}
// a scheme's state with its initial parameters perturbed, so that no gradient is trivially
// zero, and constrained again (e.g. KERPLE's r > 0)
static double *standalone_state(PosState *ps, const PosScheme *s, int C, int NH, int rows, size_t *np) {
    double *params = scheme_state(ps, s, C, NH, rows, NULL, &rng, np);
    for (size_t i = 0; i < *np; i++) params[i] += 0.5 * rng_normal(&rng);
    if (s->constrain) s->constrain(ps);
    return params;
}
#define grad_views scheme_views

// packed examples (attention_forward's seg): row 0 holds two of 3 and 4 tokens, row 1 of 5
// and 2; each example's positions start afresh (sorted, with gaps)
static const int packed_len[2][2] = {{3, 4}, {5, 2}};
static void packed_rows(int *pos, int *seg, int T) {
    for (int b = 0; b < 2; b++)
        for (int e = 0, t0 = 0; e < 2; t0 += packed_len[b][e], e++) {
            positions_draw(pos + b * T + t0, 1, packed_len[b][e], 0, 3 * packed_len[b][e], &rng);
            for (int t = t0; t < t0 + packed_len[b][e]; t++) seg[b * T + t] = t0;
        }
}

// qb: the causal query block (0: one block, the full-matrix form; 3: blocks of 3, 3, 1);
// packed: two examples a row (packed_rows), else one sequence a row
static void test_attention(const PosScheme *s, const PosExtension *ext, int qb, int packed) {
    int B = 2, T = 7, C = 8, NH = 2;
    size_t nq = (size_t)B * T * 3 * C, no = (size_t)B * T * C, np;
    PosState ps;
    double *params = standalone_state(&ps, s, C, NH, 3 * T, &np);
    char err[256];
    if (ext && pos_extend(&ps, ext, err, sizeof err)) die("%s", err);
    int pos[14], seg[14];
    if (packed) packed_rows(pos, seg, T);
    else random_sorted_positions(pos, B, T);
    AttCtx c = {B, T, C, NH, qb, pos, &ps};
    c.seg = packed ? seg : NULL;
    c.qkv = randv(nq, 1), c.att = randv((size_t)B * NH * T * T, 0), c.out = randv(no, 0), c.R = randv(no, 1);
    att_loss(&c);
    // dqkv starts as garbage: attention_backward overwrites it
    double *dqkv = randv(nq, 1), *dpos = calloc(np + 1, 8), *dview[POS_MAX_TENSORS];
    grad_views(&ps, dpos, dview);
    attention_backward(dqkv, dview, c.R, c.att, c.qkv, pos, c.seg, &ps, B, T, C, NH, qb);
    double *ng = malloc((nq > np ? nq : np) * 8 + 8);
    char name[128];
    numgrad(ng, c.qkv, nq, att_loss, &c);
    char blk[48] = "one query block";
    if (qb) snprintf(blk, sizeof blk, "query blocks of %d", qb);
    if (packed) strcat(blk, ", packed examples");
    snprintf(name, sizeof name, "attention d(qkv) [%s%s, %s]", s->name, ext ? " + rerope, window 3" : "", blk);
    check_close(name, dqkv, ng, nq, ATOL, RTOL);
    if (np && (s->bias_forward || s->score_forward || s->value_forward)) {
        numgrad_kinks(ng, params, np, att_loss, &c);
        snprintf(name, sizeof name, "%s %s d(params) through attention [%s]", s->name,
                 s->bias_forward ? "bias_backward" : s->value_forward ? "score_backward and value_backward" : "score_backward", blk);
        check_close(name, dpos, ng, np, ATOL, RTOL);
    }
    if (packed) { // each packed example's output is its output alone, as a sequence of its own
        double worst = 0;
        att_loss(&c); // c.out again at the unperturbed inputs (numgrad's last call perturbed one)
        for (int b = 0; b < 2; b++)
            for (int e = 0, t0 = 0; e < 2; t0 += packed_len[b][e], e++) {
                int n = packed_len[b][e];
                double *o = malloc((size_t)n * C * 8), *a = malloc((size_t)NH * n * n * 8);
                attention_forward(o, a, c.qkv + ((size_t)b * T + t0) * 3 * C, pos + b * T + t0, NULL, &ps, 1, n, C, NH, qb);
                for (size_t x = 0; x < (size_t)n * C; x++) {
                    double d = fabs(o[x] - c.out[((size_t)b * T + t0) * C + x]);
                    worst = d > worst ? d : worst;
                }
                free(o), free(a);
            }
        snprintf(name, sizeof name, "packed examples do not see each other: each equals its own sequence [%s, %s]", s->name, blk);
        check(worst < 1e-12, name, "a packed example's output differs from its own");
    } else {
        // the O(T)-memory inference attention (blocks of ATT_QBLOCK; T2 > ATT_QBLOCK: several)
        // computes the output of the full-matrix training form
        int T2 = ATT_QBLOCK + 37;
        int *pos2 = malloc((size_t)B * T2 * sizeof(int));
        random_sorted_positions(pos2, B, T2);
        double *qkv2 = randv((size_t)B * T2 * 3 * C, 1), *att2 = malloc((size_t)B * NH * T2 * T2 * 8);
        double *o1 = malloc((size_t)B * T2 * C * 8), *o2 = malloc((size_t)B * T2 * C * 8);
        attention_forward(o1, att2, qkv2, pos2, NULL, &ps, B, T2, C, NH, 0);
        attention_forward_infer(o2, qkv2, pos2, &ps, B, T2, C, NH, ATT_QBLOCK);
        snprintf(name, sizeof name, "blocked inference attention == full-matrix attention [%s]", s->name);
        check_close(name, o2, o1, (size_t)B * T2 * C, 1e-12, 1e-10);
        attention_forward(o2, att2, qkv2, pos2, NULL, &ps, B, T2, C, NH, ATT_QBLOCK);
        snprintf(name, sizeof name, "blocked training attention == full-matrix attention [%s]", s->name);
        check_close(name, o2, o1, (size_t)B * T2 * C, 1e-12, 1e-10);
        free(pos2), free(qkv2), free(att2), free(o1), free(o2);
    }
    free(c.qkv), free(c.att), free(c.out), free(c.R), free(dqkv), free(dpos), free(ng), free(params);
    pos_release(&ps);
}

// ---------------------------------------------------------------- input-add hook
typedef struct { PosState *ps; int N; int *pos; double *x0, *x, *R; } InCtx;
static double in_loss(void *p) {
    InCtx *c = p;
    size_t n = (size_t)c->N * c->ps->C;
    memcpy(c->x, c->x0, n * 8);
    c->ps->scheme->input_forward(c->ps, c->x, c->pos, c->N);
    return dot(c->x, c->R, n);
}
static void test_input_hook(const PosScheme *s) {
    int C = 6, NH = 2, N = 9, rows = 20;
    PosState ps;
    size_t np;
    double *params = standalone_state(&ps, s, C, NH, rows, &np);
    int pos[9] = {0, 3, 3, 7, 19, 2, 11, 3, 5}; // repeats: the backward must accumulate
    InCtx c = {&ps, N, pos};
    c.x0 = randv((size_t)N * C, 1), c.x = randv((size_t)N * C, 0), c.R = randv((size_t)N * C, 1);
    char name[128];
    // the input add is x + e(pos): d/dx is the identity, so only parameters need checking
    in_loss(&c);
    double diff = 0;
    for (int i = 0; i < N * C; i++) diff += fabs(c.x[i] - c.x0[i]);
    snprintf(name, sizeof name, "%s input_forward adds something", s->name);
    check(diff > 1e-3, name, "x unchanged (sum |dx| = %g)", diff);
    if (np && s->input_backward) {
        double *d = calloc(np, 8), *ng = malloc(np * 8), *dview[POS_MAX_TENSORS];
        grad_views(&ps, d, dview);
        s->input_backward(&ps, dview, c.R, pos, N);
        numgrad(ng, params, np, in_loss, &c);
        snprintf(name, sizeof name, "%s input_backward d(params)", s->name);
        check_close(name, d, ng, np, ATOL, RTOL);
        free(d), free(ng);
    }
    free(params), free(c.x0), free(c.x), free(c.R);
    pos_release(&ps);
}

// ---------------------------------------------------------------- q/k transform hook
typedef struct { PosState *ps; int B, T, stride, is_key; int *pos; double *v0, *v, *R; } QkCtx;
static double qk_loss(void *p) {
    QkCtx *c = p;
    size_t n = (size_t)c->B * c->T * c->stride;
    memcpy(c->v, c->v0, n * 8);
    c->ps->scheme->qk_forward(c->ps, c->v, c->pos, c->B, c->T, c->stride, c->is_key);
    return dot(c->v, c->R, n);
}
// ext: a context extension in force (training with one: train --rope-scaling), or NULL
static void test_qk_hook(const PosScheme *s, const PosExtension *ext) {
    int C = 8, NH = 2, B = 3, T = 5, stride = 11; // stride > C: rows of a wider buffer, like qkv
    PosState ps;
    size_t np;
    double *params = standalone_state(&ps, s, C, NH, 64, &np);
    char err[256];
    if (ext && pos_extend(&ps, ext, err, sizeof err)) die("%s", err);
    int pos[15] = {0, 2, 9, 30, 31, 0, 2, 9, 30, 31, 3, 4, 5, 40, 63}; // sequences 0 and 1 share positions
    for (int is_key = 0; is_key < 2; is_key++) {
        QkCtx c = {&ps, B, T, stride, is_key, pos};
        size_t n = (size_t)B * T * stride;
        c.v0 = randv(n, 1), c.v = randv(n, 0), c.R = randv(n, 1);
        double *d = malloc(n * 8), *ng = malloc(n * 8);
        memcpy(d, c.R, n * 8);
        s->qk_backward(&ps, d, pos, B, T, stride, is_key);
        // columns beyond C are not part of q/k: the transform leaves them alone, gradient passes through
        numgrad(ng, c.v0, n, qk_loss, &c);
        char name[128];
        snprintf(name, sizeof name, "%s%s%s qk_backward (%s) = finite differences", s->name, ext ? " + " : "", ext ? ext->method : "",
                 is_key ? "k" : "q");
        check_close(name, d, ng, n, ATOL, RTOL);
        free(c.v0), free(c.v), free(c.R), free(d), free(ng);
    }
    free(params);
    pos_release(&ps);
}

int main(void) {
    rng_seed(&rng, 1234);
    test_gemm();
    test_linear();
    test_layernorm();
    test_gelu();
    test_bias_gelu();
    test_encoder();
    test_crossentropy();
    for (int qb = 0; qb <= 3; qb += 3) {
        test_attention(pos_find("nope"), NULL, qb, 0);
        test_attention(pos_find("nope"), NULL, qb, 1);
        // ReRoPE's content term (eval-time rope): positions with gaps up to 20, window 3
        test_attention(pos_find("rope"), &(PosExtension){.method = "rerope", .window = 3, .train_len = 7}, qb, 0);
    }
    for (int i = 0; i < pos_count(); i++) {
        const PosScheme *s = pos_at(i);
        if (!scheme_selected(s->name)) continue;
        if (s->bias_forward || s->score_forward || s->value_forward) {
            test_attention(s, NULL, 0, 0);
            test_attention(s, NULL, 3, 0);
            test_attention(s, NULL, 0, 1);
            test_attention(s, NULL, 3, 1);
        }
        if (s->input_forward) test_input_hook(s);
        if (s->qk_forward) test_qk_hook(s, NULL);
        // training with a context extension in force (the rotary schemes: pi, ntk, yarn at s = 2)
        for (int k = 0; k < 3 && s->qk_forward; k++) {
            const char *method = k == 0 ? "pi" : k == 1 ? "ntk" : "yarn";
            if (pos_has_extension(s, method)) test_qk_hook(s, &(PosExtension){.method = method, .factor = 2, .train_len = 16});
        }
        char name[128];
        snprintf(name, sizeof name, "%s: hooks come in forward/backward pairs", s->name);
        int np_ok = 1;
        PosState ps;
        pos_state_fill(&ps, s, 8, 2, 16, NULL, POS_SHARING_PAPER);
        size_t np = pos_param_count(&ps, 1);
        // a hook with parameters needs its backward; a q/k transform always needs its transpose
        if (s->qk_forward && !s->qk_backward) np_ok = 0;
        if (np && s->bias_forward && !s->bias_backward) np_ok = 0;
        if (s->score_forward && !s->score_backward) np_ok = 0; // the term depends on q and k
        if (s->score_forward && s->bias_forward) np_ok = 0;    // score_backward recomputes the logits as q.k only
        if (np && s->input_forward && !s->input_backward) np_ok = 0;
        if (s->value_forward && !s->value_backward) np_ok = 0; // the term depends on the weights
        check(np_ok, name, "a forward hook lacks the backward its parameters need");
    }
    test_free_all();
    return check_done();
}
