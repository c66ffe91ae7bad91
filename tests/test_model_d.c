// test_model_d.c - whole-model gradient check for every registered position scheme, with
// contiguous and with randomized (sorted, gapped) positions, and with the scheme's tensors
// shared by the layers and one per layer, in double precision: the backward of the mean
// cross-entropy against central differences on every parameter.
// Also: train-mode and inference-mode forwards agree; q_m.k_n under RoPE is shift-invariant.
#include "check.h"
#include "gpt.h"
#include "layers.h"

#include <stdlib.h>
#include <string.h>
#include "track_alloc.h"
#include "positions.h"
#include "random_model.h"

// the tests' model: 2 layers of width 8 with 2 heads over bytes, the scheme s with its default
// hyperparameters and tensor sharing `sharing`, its weights at random (random_model, with rng
// seeded from seed); returns its configuration
static GPTConfig tiny_model(GPT *m, Rng *rng, const PosScheme *s, int T, int pos_rows, int sharing, uint64_t seed) {
    GPTConfig cfg = {.V = 256, .C = 8, .L = 2, .NH = 2, .T = T, .pos_rows = pos_rows, .scheme_sharing = sharing};
    snprintf(cfg.scheme, sizeof cfg.scheme, "%s", s->name);
    pos_default_hypers(s, cfg.scheme_hp);
    rng_seed(rng, seed);
    random_model(m, &cfg, 7, rng);
    return cfg;
}

static void model_check(const PosScheme *s, int randomized, int sharing) {
    int B = 2, T = 5, rand_max = randomized ? 4 * T : 0;
    GPT m;
    Rng rng;
    GPTConfig cfg = tiny_model(&m, &rng, s, T, randomized ? 4 * T : T, sharing, 99);
    int tok[10], tgt[10], pos[10];
    for (int i = 0; i < B * T; i++) tok[i] = (int)rng_below(&rng, 256), tgt[i] = (int)rng_below(&rng, 256);
    positions_draw(pos, B, T, 0, rand_max, &rng);
    gpt_alloc(&m, B, T, 1);
    gpt_forward(&m, tok, tgt, pos);
    gpt_zero_grad(&m);
    gpt_backward(&m);
    size_t n = m.num_params;
    double *num = malloc(n * sizeof(double)), *ana = malloc(n * sizeof(double));
    memcpy(ana, m.grads, n * sizeof(double));
    const double eps = 1e-5;
    for (size_t i = 0; i < n; i++) {
        double keep = m.params[i];
        m.params[i] = keep + eps;
        double lp = gpt_forward(&m, tok, tgt, pos);
        m.params[i] = keep - eps;
        double lm = gpt_forward(&m, tok, tgt, pos);
        m.params[i] = keep;
        num[i] = (lp - lm) / (2 * eps);
    }
    char name[160], how[64];
    snprintf(how, sizeof how, "%s%s", randomized ? ", randomized positions" : "",
             sharing == POS_SHARING_PAPER ? "" : sharing == POS_SHARING_SHARED ? ", tensors shared" : ", tensors per layer");
    for (int t = 0; t < NUM_PARAM_TENSORS; t++) {
        if (!m.sizes[t]) continue;
        snprintf(name, sizeof name, "model grad [%s%s] %s", s->name, how, PARAM_NAMES[t]);
        check_close(name, ana + m.offsets[t], num + m.offsets[t], m.sizes[t], 1e-8, 1e-5);
    }
    // inference-mode forward (blocked attention, one layer of buffers) gives the same losses
    double ltrain = gpt_forward(&m, tok, tgt, pos);
    GPT m2;
    gpt_build(&m2, &cfg);
    memcpy(m2.params, m.params, n * sizeof(double));
    gpt_alloc(&m2, B, T, 0);
    double linfer = gpt_forward(&m2, tok, tgt, pos);
    snprintf(name, sizeof name, "inference forward == training forward [%s%s]", s->name, how);
    check(fabs(ltrain - linfer) < 1e-12, name, "train %.15g vs infer %.15g", ltrain, linfer);
    gpt_free(&m2);
    gpt_free(&m);
    free(num), free(ana);
}

// Task training scores only the answer: targets GPT_NO_TARGET (a prompt, the right padding)
// drop out of the mean. The gradient of the masked mean against central differences, for a
// bias scheme and a content-dependent one; the loss is the mean of the scored positions'
// losses; and the padding after a sequence's last scored position changes nothing (attention
// is causal, so right padding needs no mask of its own).
static void masked_check(const char *scheme) {
    int B = 2, T = 6;
    GPT m;
    Rng rng;
    tiny_model(&m, &rng, pos_find(scheme), T, T, POS_SHARING_PAPER, 98);
    // sequence 0: prompt of 2, answer of 3, 1 padding; sequence 1: prompt of 3, answer of 2, 1 padding
    int tok[12], tgt[12], score[12] = {0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0};
    for (int i = 0; i < B * T; i++) tok[i] = (int)rng_below(&rng, 256), tgt[i] = score[i] ? (int)rng_below(&rng, 256) : GPT_NO_TARGET;
    gpt_alloc(&m, B, T, 1);
    double loss = gpt_forward(&m, tok, tgt, NULL), mean = 0;
    for (int i = 0; i < B * T; i++) mean += score[i] ? m.losses[i] / 5.0 : 0;
    char name[160];
    snprintf(name, sizeof name, "masked loss [%s] = the mean over the 5 scored positions", scheme);
    check(fabs(loss - mean) < 1e-12, name, "%.15g vs %.15g", loss, mean);
    gpt_zero_grad(&m);
    gpt_backward(&m);
    size_t n = m.num_params;
    double *num = malloc(n * sizeof(double)), *ana = malloc(n * sizeof(double));
    memcpy(ana, m.grads, n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        double keep = m.params[i];
        m.params[i] = keep + 1e-5;
        double lp = gpt_forward(&m, tok, tgt, NULL);
        m.params[i] = keep - 1e-5;
        double lm = gpt_forward(&m, tok, tgt, NULL);
        m.params[i] = keep;
        num[i] = (lp - lm) / 2e-5;
    }
    snprintf(name, sizeof name, "masked loss [%s]: gradient = central differences, every parameter", scheme);
    check_close(name, ana, num, n, 1e-8, 1e-5);
    int tok2[12];
    memcpy(tok2, tok, sizeof tok);
    tok2[5] = (tok2[5] + 1) % 256, tok2[11] = (tok2[11] + 7) % 256; // the last position of each: padding
    double loss2 = gpt_forward(&m, tok2, tgt, NULL);
    snprintf(name, sizeof name, "masked loss [%s]: right padding changes nothing", scheme);
    check(loss2 == loss, name, "%.17g vs %.17g", loss2, loss);
    gpt_free(&m);
    free(num), free(ana);
}

// Packed examples (gpt_forward_packed): four examples of 5, 4, 3 and 6 tokens, one to a row of
// 12 (4 rows, right padding) and packed two to a row (2 rows of the same model, positions
// starting afresh per example, the padding a segment of its own): the same loss and the same
// gradient of every parameter, for every scheme
static void packed_check(const PosScheme *s) {
    int T = 12, len[4] = {5, 4, 3, 6};
    GPT m;
    Rng rng;
    tiny_model(&m, &rng, s, T, T, POS_SHARING_PAPER, 97);
    int ex_tok[4][12], ex_tgt[4][12];
    for (int e = 0; e < 4; e++)
        for (int t = 0; t < len[e]; t++) // the last two tokens of each example predict a scored byte
            ex_tok[e][t] = (int)rng_below(&rng, 256), ex_tgt[e][t] = t >= len[e] - 2 ? (int)rng_below(&rng, 256) : GPT_NO_TARGET;
    int tok[48], tgt[48], pos[48], ptok[24], ptgt[24], ppos[24], pseg[24];
    for (int e = 0; e < 4; e++) // padded: example e in row e
        for (int t = 0; t < T; t++) {
            tok[e * T + t] = t < len[e] ? ex_tok[e][t] : '\n';
            tgt[e * T + t] = t < len[e] ? ex_tgt[e][t] : GPT_NO_TARGET;
            pos[e * T + t] = t;
        }
    for (int r = 0; r < 2; r++) { // packed: examples 2r and 2r + 1 in row r, then padding
        int t = 0;
        for (int e = 2 * r; e < 2 * r + 2; e++)
            for (int i = 0, t0 = t; i < len[e]; i++, t++)
                ptok[r * T + t] = ex_tok[e][i], ptgt[r * T + t] = ex_tgt[e][i], ppos[r * T + t] = i, pseg[r * T + t] = t0;
        for (int t0 = t; t < T; t++) ptok[r * T + t] = '\n', ptgt[r * T + t] = GPT_NO_TARGET, ppos[r * T + t] = t - t0, pseg[r * T + t] = t0;
    }
    gpt_alloc(&m, 4, T, 1);
    size_t n = m.num_params;
    double *g = malloc(n * sizeof(double));
    double l1 = gpt_forward(&m, tok, tgt, pos);
    gpt_zero_grad(&m);
    gpt_backward(&m);
    memcpy(g, m.grads, n * sizeof(double));
    double l2 = gpt_forward_packed(&m, ptok, ptgt, ppos, pseg, 2);
    gpt_zero_grad(&m);
    gpt_backward(&m);
    char name[160];
    snprintf(name, sizeof name, "packed examples: the loss of the same examples one to a row [%s]", s->name);
    check(fabs(l1 - l2) < 1e-12, name, "%.15g vs %.15g", l2, l1);
    snprintf(name, sizeof name, "packed examples: the gradient of the same examples one to a row, every parameter [%s]", s->name);
    check_close(name, m.grads, g, n, 1e-12, 1e-9);
    gpt_free(&m);
    free(g);
}

static void prepared(PosState *ps, const PosScheme *s, int C, int NH, const float *hp) {
    pos_state_fill(ps, s, C, NH, 1, hp, POS_SHARING_PAPER);
    pos_prepare(ps);
}

// RoPE: after rotation q_m . k_n depends only on m - n; both pairings give the same scores
// under the permutation that maps rotate-half pairs (k, k+HS/2) to interleaved (2k, 2k+1).
static void rope_properties(void) {
    const PosScheme *s = pos_find("rope");
    int C = 16, NH = 2, HS = 8;
    Rng rng;
    rng_seed(&rng, 5);
    double q0[16], k0[16];
    for (int i = 0; i < C; i++) q0[i] = rng_normal(&rng), k0[i] = rng_normal(&rng);
    for (int inter = 0; inter < 2; inter++) {
        float hp[POS_MAX_HYPER] = {10000.0f, (float)inter};
        PosState ps;
        prepared(&ps, s, C, NH, hp);
        int shifts[3] = {0, 17, 1000};
        double ref[2] = {0, 0}, worst = 0;
        for (int si = 0; si < 3; si++) {
            // (m, n) = (9 + shift, 4 + shift): m - n = 5 for every shift
            double q[16], k[16];
            memcpy(q, q0, sizeof q), memcpy(k, k0, sizeof k);
            int pm = 9 + shifts[si], pn = 4 + shifts[si];
            s->qk_forward(&ps, q, &pm, 1, 1, C, 0);
            s->qk_forward(&ps, k, &pn, 1, 1, C, 1);
            for (int h = 0; h < NH; h++) {
                double d = 0;
                for (int i = 0; i < HS; i++) d += q[h * HS + i] * k[h * HS + i];
                if (si == 0) ref[h] = d;
                else worst = fmax(worst, fabs(d - ref[h]));
            }
        }
        char name[96];
        snprintf(name, sizeof name, "rope (%s): q_m.k_n depends only on m-n", inter ? "interleaved" : "rotate-half");
        check(worst < 1e-10, name, "score changed by %.3g when both positions shift", worst);
        pos_release(&ps);
    }
    // pairing equivalence: permute channels half->interleaved, rotate with each pairing, compare scores
    float hh[POS_MAX_HYPER] = {10000.0f, 0.0f}, hi[POS_MAX_HYPER] = {10000.0f, 1.0f};
    PosState ph, pi;
    prepared(&ph, s, C, NH, hh);
    prepared(&pi, s, C, NH, hi);
    double worst = 0;
    for (int trial = 0; trial < 5; trial++) {
        int pm = (int)rng_below(&rng, 3000), pn = (int)rng_below(&rng, 3000);
        double qh[16], kh[16], qi[16], ki[16];
        for (int i = 0; i < C; i++) qh[i] = rng_normal(&rng), kh[i] = rng_normal(&rng);
        for (int h = 0; h < NH; h++)
            for (int k = 0; k < HS / 2; k++) { // channel k -> 2k, channel k+HS/2 -> 2k+1
                qi[h * HS + 2 * k] = qh[h * HS + k], qi[h * HS + 2 * k + 1] = qh[h * HS + k + HS / 2];
                ki[h * HS + 2 * k] = kh[h * HS + k], ki[h * HS + 2 * k + 1] = kh[h * HS + k + HS / 2];
            }
        s->qk_forward(&ph, qh, &pm, 1, 1, C, 0), s->qk_forward(&ph, kh, &pn, 1, 1, C, 1);
        s->qk_forward(&pi, qi, &pm, 1, 1, C, 0), s->qk_forward(&pi, ki, &pn, 1, 1, C, 1);
        for (int h = 0; h < NH; h++) {
            double a = 0, b = 0;
            for (int i = 0; i < HS; i++) a += qh[h * HS + i] * kh[h * HS + i], b += qi[h * HS + i] * ki[h * HS + i];
            worst = fmax(worst, fabs(a - b));
        }
    }
    check(worst < 1e-10, "rope: rotate-half and interleaved pairings give equal scores under the permutation",
          "score differs by %.3g", worst);
    pos_release(&ph), pos_release(&pi);
}

int main(void) {
    for (int i = 0; i < pos_count(); i++) {
        const PosScheme *s = pos_at(i);
        if (!scheme_selected(s->name)) continue;
        model_check(s, 0, POS_SHARING_PAPER);
        model_check(s, 1, POS_SHARING_PAPER);
        if (s->tensors && !s->input_forward) { // both layouts of a scheme's tensors (the input has no layers)
            model_check(s, 0, POS_SHARING_SHARED);
            model_check(s, 0, POS_SHARING_LAYER);
        }
    }
    rope_properties();
    masked_check("alibi");
    masked_check("cope");
    for (int i = 0; i < pos_count(); i++)
        if (scheme_selected(pos_at(i)->name)) packed_check(pos_at(i));
    test_free_all();
    return check_done();
}
