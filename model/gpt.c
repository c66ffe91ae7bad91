// gpt.c - GPT-2 block layout (Radford et al. 2019) with a pluggable position scheme:
//   x0 = wte[tok] (+ scheme input add)
//   per layer: x = x + proj(attn(ln1(x)));  x = x + fcproj(gelu(fc(ln2(x))))
//   logits = lnf(x) . wte^T (tied head), loss = cross-entropy
// Pre-LayerNorm, eps 1e-5; GELU tanh; biases everywhere; attention scores q.k/sqrt(HS) plus
// the scheme's bias (added after the scaling, unscaled).
#include "gpt.h"

#include "layers.h"

#include <stdlib.h>
#include <string.h>

const char *const PARAM_NAMES[NUM_PARAM_TENSORS] = {
    "wte", "ln1_w", "ln1_b", "qkv_w", "qkv_b", "attproj_w", "attproj_b", "ln2_w",
    "ln2_b", "fc_w", "fc_b", "fcproj_w", "fcproj_b", "lnf_w", "lnf_b", "scheme"};

// the scheme's state for cfg, hyperparameters set, nothing bound or prepared; NULL and a
// message in err if the name is unknown
static const PosScheme *scheme_state(const GPTConfig *c, PosState *ps, char *err, size_t n) {
    char name[sizeof c->scheme + 1];
    memcpy(name, c->scheme, sizeof c->scheme);
    name[sizeof c->scheme] = 0;
    const PosScheme *s = pos_find(name);
    if (!s) snprintf(err, n, "unknown position scheme '%s'; choose one of %s", name, pos_names());
    else pos_state_fill(ps, s, c->C, c->NH, c->pos_rows, c->scheme_hp, c->scheme_sharing);
    return s;
}

const char *gpt_config_check(const GPTConfig *c, char *err, size_t n) {
    PosState ps;
    if (c->V < 1 || c->V > 65536) snprintf(err, n, "vocabulary size must be in [1, 65536], got %d", c->V);
    else if (c->C < 1 || c->C > 65536) snprintf(err, n, "d_model must be in [1, 65536], got %d", c->C);
    else if (c->L < 1 || c->L > 1024) snprintf(err, n, "layers must be in [1, 1024], got %d", c->L);
    else if (c->NH < 1 || c->NH > c->C) snprintf(err, n, "heads must be in [1, d_model=%d], got %d", c->C, c->NH);
    else if (c->C % c->NH) snprintf(err, n, "d_model %d is not divisible by heads %d", c->C, c->NH);
    else if (c->T < 1 || c->T > (1 << 24)) snprintf(err, n, "sequence length must be in [1, 2^24], got %d", c->T);
    else if (c->pos_rows < 1 || c->pos_rows > (1 << 28)) snprintf(err, n, "position rows must be in [1, 2^28], got %d", c->pos_rows);
    else if (c->scheme_sharing < 0 || c->scheme_sharing >= POS_SHARING_COUNT)
        snprintf(err, n, "scheme sharing must be in [0, %d), got %d", POS_SHARING_COUNT, c->scheme_sharing);
    else if (scheme_state(c, &ps, err, n)) {
        if (pos_check(&ps, err, n)) return err;
        if (!c->ext_method[0]) return NULL;
        if (!memchr(c->ext_method, 0, sizeof c->ext_method) || !pos_has_extension(ps.scheme, c->ext_method))
            snprintf(err, n, "scheme '%s' has no context extension '%.15s'", c->scheme, c->ext_method);
        else if (!(c->ext_factor >= 1 && c->ext_factor <= 1e6))
            snprintf(err, n, "the context extension's factor must be in [1, 1e6], got %g", c->ext_factor);
        else if (c->ext_train_len < 1 || c->ext_train_len > (1 << 24))
            snprintf(err, n, "the context extension's training length must be in [1, 2^24], got %d", c->ext_train_len);
        else if (c->ext_window < 0 || c->ext_window > (1 << 24))
            snprintf(err, n, "the context extension's window must be in [0, 2^24], got %d", c->ext_window);
        else return NULL;
    }
    return err;
}

unsigned gpt_scheme_layout(const GPTConfig *c) {
    PosState ps;
    PosTensor t[POS_MAX_TENSORS];
    char err[256];
    if (!scheme_state(c, &ps, err, sizeof err)) return 0;
    unsigned layout = 0;
    int nt = pos_tensors(&ps, t);
    for (int k = 0; k < nt; k++) layout |= (unsigned)(t[k].per_layer != 0) << k;
    return layout;
}

// the size table: one entry per tensor, in checkpoint order
static void param_sizes(const GPTConfig *c, size_t scheme_params, size_t sz[NUM_PARAM_TENSORS]) {
    size_t V = c->V, C = c->C, L = c->L;
    size_t s[NUM_PARAM_TENSORS] = {V * C, L * C, L * C, L * 3 * C * C, L * 3 * C, L * C * C, L * C,
                                   L * C, L * C, L * 4 * C * C, L * 4 * C, L * C * 4 * C, L * C, C, C, scheme_params};
    memcpy(sz, s, sizeof s);
}

size_t gpt_param_count(const GPTConfig *c) {
    size_t sz[NUM_PARAM_TENSORS], total = 0; // must not need prepare
    char err[256];
    PosState ps;
    if (!scheme_state(c, &ps, err, sizeof err)) die("%s", err);
    param_sizes(c, pos_param_count(&ps, c->L), sz);
    for (int i = 0; i < NUM_PARAM_TENSORS; i++) total += sz[i];
    return total;
}

void gpt_scheme_views(const GPT *m, real *buf, int l, real **view) {
    for (int k = 0; k < m->sch_nt; k++)
        view[k] = buf + m->offsets[P_SCHEME] + m->sch_off[k] + (m->sch_t[k].per_layer ? (size_t)l * pos_tensor_size(&m->sch_t[k]) : 0);
}

void gpt_build(GPT *m, const GPTConfig *cfg) {
    memset(m, 0, sizeof(*m));
    m->cfg = *cfg;
    const GPTConfig *c = &m->cfg;
    char err[256];
    if (gpt_config_check(c, err, sizeof err)) die("%s", err);
    PosState ps;
    scheme_state(c, &ps, err, sizeof err);
    m->sch_nt = pos_tensors(&ps, m->sch_t);
    size_t soff = 0;
    for (int k = 0; k < m->sch_nt; k++) {
        m->sch_off[k] = soff;
        soff += pos_tensor_size(&m->sch_t[k]) * (m->sch_t[k].per_layer ? (size_t)c->L : 1);
    }
    size_t sz[NUM_PARAM_TENSORS];
    param_sizes(c, soff, sz);
    size_t off = 0;
    for (int i = 0; i < NUM_PARAM_TENSORS; i++) {
        m->sizes[i] = sz[i];
        m->offsets[i] = off;
        off += sz[i];
    }
    m->num_params = off;
    m->params = xcalloc(off, sizeof(real));
    m->att_qblock = ATT_QBLOCK;
    // one state per layer when some tensor is per layer, else one for all
    m->nsch = pos_per_layer(&ps) ? c->L : 1;
    m->sch = xcalloc((size_t)m->nsch, sizeof(PosState));
    for (int l = 0; l < m->nsch; l++) {
        PosState *st = &m->sch[l];
        *st = ps;
        st->layer = l;
        st->ntensors = m->sch_nt;
        gpt_scheme_views(m, m->params, l, st->param);
        for (int k = 0; k < m->sch_nt; k++) st->size[k] = pos_tensor_size(&m->sch_t[k]);
        pos_prepare(st);
    }
    if (c->ext_method[0]) { // the extension it was trained with
        PosExtension e = {.method = c->ext_method, .factor = c->ext_factor, .train_len = c->ext_train_len, .window = c->ext_window};
        if (gpt_extend(m, &e, err, sizeof err)) die("context extension '%s': %s", c->ext_method, err);
    }
}

int gpt_param_ranges(const GPT *m, ParamRange *r) {
    int n = 0;
    for (int i = 0; i < P_SCHEME; i++)
        r[n++] = (ParamRange){m->offsets[i], m->sizes[i], i == P_WTE || i == P_QKVW || i == P_ATTPW || i == P_FCW || i == P_FCPW};
    for (int k = 0; k < m->sch_nt; k++) {
        size_t len = pos_tensor_size(&m->sch_t[k]) * (m->sch_t[k].per_layer ? (size_t)m->cfg.L : 1);
        r[n++] = (ParamRange){m->offsets[P_SCHEME] + m->sch_off[k], len, m->sch_t[k].decay};
    }
    return n;
}

const char *gpt_extend(GPT *m, const PosExtension *e, char *err, size_t n) {
    for (int l = 0; l < m->nsch; l++)
        if (pos_extend(&m->sch[l], e, err, n)) return err;
    return NULL;
}

int gpt_max_pos(const GPT *m) {
    const PosState *ps = gpt_scheme(m, 0);
    return ps->scheme->max_pos ? ps->scheme->max_pos(ps) : 0;
}

void gpt_init(GPT *m, uint64_t seed) {
    // GPT-2: weights N(0, 0.02), residual output projections N(0, 0.02/sqrt(2L)),
    // biases 0, LayerNorm weights 1; then the scheme's own init (zeros if it has none)
    Rng rng;
    rng_seed(&rng, seed);
    double resid_std = 0.02 / sqrt(2.0 * m->cfg.L);
    for (int i = 0; i < P_SCHEME; i++) {
        real *p = m->params + m->offsets[i];
        size_t n = m->sizes[i];
        double std = 0.0, fill = 0.0;
        switch (i) {
        case P_WTE: case P_QKVW: case P_FCW: std = 0.02; break;
        case P_ATTPW: case P_FCPW: std = resid_std; break;
        case P_LN1W: case P_LN2W: case P_LNFW: fill = 1.0; break;
        default: break; // biases
        }
        for (size_t k = 0; k < n; k++) p[k] = (real)(std > 0 ? std * rng_normal(&rng) : fill);
    }
    // the scheme's tensors in order; a per-layer one layer by layer
    const PosState *ps = gpt_scheme(m, 0);
    for (int k = 0; k < m->sch_nt; k++) {
        size_t sz = pos_tensor_size(&m->sch_t[k]);
        for (int l = 0; l < (m->sch_t[k].per_layer ? m->cfg.L : 1); l++) {
            real *view[POS_MAX_TENSORS];
            gpt_scheme_views(m, m->params, l, view);
            if (ps->scheme->init) ps->scheme->init(gpt_scheme(m, l), k, view[k], &rng);
            else memset(view[k], 0, sz * sizeof(real));
        }
    }
    gpt_constrain(m);
}

// every activation buffer of m, so allocation bookkeeping is one loop
#define NUM_ACT_BUFS 25
static void act_bufs(GPT *m, real **bufs[NUM_ACT_BUFS]) {
    real **b[NUM_ACT_BUFS] = {&m->res, &m->ln1, &m->ln1_mean, &m->ln1_rstd, &m->qkv, &m->atty, &m->att, &m->mid,
                              &m->ln2, &m->ln2_mean, &m->ln2_rstd, &m->fch, &m->fchg, &m->proj, &m->lnf,
                              &m->lnf_mean, &m->lnf_rstd, &m->probs, &m->losses, &m->dres, &m->dln, &m->dqkv,
                              &m->datty, &m->dfch, &m->dloss};
    memcpy(bufs, b, sizeof b);
}

static void free_acts(GPT *m) {
    real **bufs[NUM_ACT_BUFS];
    act_bufs(m, bufs);
    for (int i = 0; i < NUM_ACT_BUFS; i++) {
        free(*bufs[i]);
        *bufs[i] = NULL;
    }
    free(m->tok);
    free(m->tgt);
    free(m->pos);
    free(m->seg);
    m->tok = m->tgt = m->pos = m->seg = NULL;
    m->B = m->T = m->rows = m->packed = 0;
}

void gpt_free(GPT *m) {
    free_acts(m);
    if (!m->is_view) {
        free(m->params);
        free(m->grads);
        for (int l = 0; l < m->nsch; l++) pos_release(&m->sch[l]);
        free(m->sch);
    }
    memset(m, 0, sizeof(*m));
}

void gpt_view(GPT *v, const GPT *m) {
    *v = *m;
    v->is_view = 1;
    v->grads = NULL;
    v->B = v->T = v->train = v->rows = v->packed = 0;
    v->tok = v->tgt = v->pos = v->seg = NULL;
    real **bufs[NUM_ACT_BUFS];
    act_bufs(v, bufs);
    for (int i = 0; i < NUM_ACT_BUFS; i++) *bufs[i] = NULL;
}

static real *alloc_real(size_t n) { return xmalloc(n * sizeof(real)); }

void gpt_alloc(GPT *m, int B, int T, int train) {
    if (m->B == B && m->T == T && m->train == train) return;
    free_acts(m);
    if (B < 1 || T < 1) die("batch and length must be >= 1 (got %d, %d)", B, T);
    size_t C = m->cfg.C, L = m->cfg.L, V = m->cfg.V, NH = m->cfg.NH, N = (size_t)B * T;
    size_t nl = train ? L : 1; // layers whose activations are kept
    m->B = B;
    m->T = T;
    m->train = train;
    m->tok = xmalloc(N * sizeof(int));
    m->tgt = xmalloc(N * sizeof(int));
    m->pos = xmalloc(N * sizeof(int));
    m->res = alloc_real((train ? L + 1 : 1) * N * C);
    m->ln1 = alloc_real(nl * N * C);
    m->ln1_mean = alloc_real(nl * N);
    m->ln1_rstd = alloc_real(nl * N);
    m->qkv = alloc_real(nl * N * 3 * C);
    m->atty = alloc_real(nl * N * C);
    m->mid = alloc_real(nl * N * C);
    m->ln2 = alloc_real(nl * N * C);
    m->ln2_mean = alloc_real(nl * N);
    m->ln2_rstd = alloc_real(nl * N);
    m->fch = alloc_real(nl * N * 4 * C);
    m->fchg = alloc_real(nl * N * 4 * C);
    m->proj = alloc_real(N * C);
    m->lnf = alloc_real(N * C);
    m->lnf_mean = alloc_real(N);
    m->lnf_rstd = alloc_real(N);
    m->probs = alloc_real(N * V);
    m->losses = alloc_real(N);
    if (train) {
        m->att = alloc_real(L * B * NH * (size_t)T * T);
        m->dres = alloc_real(N * C);
        m->dln = alloc_real(N * C);
        m->dqkv = alloc_real(N * 3 * C);
        m->datty = alloc_real(N * C);
        m->dfch = alloc_real(N * 4 * C);
        m->dloss = alloc_real(N);
    }
}

double gpt_alloc_bytes(const GPTConfig *c, int B, int T, int train, int threads) {
    // the arrays of gpt_alloc, in reals per row of N = B T
    double C = c->C, L = c->L, V = c->V, NH = c->NH, N = (double)B * T, HS = C / NH, nl = train ? L : 1;
    double per_row = (train ? L + 1 : 1) * C + nl * (C + 2 + 3 * C + C + C + C + 2 + 8 * C) + C + C + 2 + V + 1;
    if (train) per_row += C + C + 3 * C + C + 4 * C + 1;
    double reals = N * per_row;
    double qb = ATT_QBLOCK < T ? ATT_QBLOCK : T;
    if (train) reals += L * B * NH * (double)T * T + threads * (double)T * T; // att, and dS per thread
    else reals += threads * (qb * T + (qb + T) * HS);                        // scores and decay scratch per thread
    return reals * sizeof(real) + N * 3 * sizeof(int);
}

#define PARAM(m, i) ((m)->params + (m)->offsets[i])
#define GRAD(m, i) ((m)->grads + (m)->offsets[i])

// positions of N rows: copy into m->pos, enforcing the scheme's limit (error, or clamp by policy)
static void set_positions(GPT *m, const int *pos, int N) {
    int T = m->T;
    int lim = gpt_max_pos(m);
    for (int n = 0; n < N; n++) {
        int p = pos ? pos[n] : n % T;
        if (p < 0) die("position %d is negative", p);
        if (lim && p >= lim) {
            if (!m->clamp_pos)
                die("position %d is beyond the %d positions the '%s' scheme serves (its table was sized at training time)",
                    p, lim, m->cfg.scheme);
            p = lim - 1;
        }
        m->pos[n] = p;
    }
}

double gpt_forward(GPT *m, const int *tok, const int *tgt, const int *pos) {
    return gpt_forward_packed(m, tok, tgt, pos, NULL, m->B);
}

// seg (rows, T): each row a run of examples, each token naming its example's first row index
static void set_segments(GPT *m, const int *seg, int rows) {
    if (!seg) return;
    if (!m->train) die("internal: packed examples need a model in train mode");
    int T = m->T;
    if (!m->seg) m->seg = xmalloc((size_t)m->B * T * sizeof(int));
    for (int b = 0; b < rows; b++)
        for (int t = 0; t < T; t++) {
            int k = seg[(size_t)b * T + t];
            if (t == 0 ? k != 0 : k != t && k != seg[(size_t)b * T + t - 1])
                die("internal: packed row %d: token %d starts at %d (must be %s)", b, t, k, t == 0 ? "0" : "itself or its predecessor's start");
            m->seg[(size_t)b * T + t] = k;
        }
}

double gpt_forward_packed(GPT *m, const int *tok, const int *tgt, const int *pos, const int *seg, int rows) {
    const GPTConfig *c = &m->cfg;
    int B = rows, T = m->T, C = c->C, NH = c->NH, V = c->V, N = B * T;
    const PosScheme *s = gpt_scheme(m, 0)->scheme;
    if (!m->B) die("internal: gpt_forward before gpt_alloc");
    if (rows < 1 || rows > m->B) die("internal: a forward of %d rows on a model allocated for %d", rows, m->B);
    for (int n = 0; n < N; n++) {
        if (tok[n] < 0 || tok[n] >= V || (tgt && (tgt[n] < GPT_NO_TARGET || tgt[n] >= V))) die("token id out of range [0, %d)", V);
        m->tok[n] = tok[n];
        m->tgt[n] = tgt ? tgt[n] : 0;
    }
    set_positions(m, pos, N);
    set_segments(m, seg, rows);
    m->rows = rows, m->packed = seg != NULL;
    const int *mseg = seg ? m->seg : NULL;

    encoder_forward(m->res, m->tok, PARAM(m, P_WTE), N, C);
    if (s->input_forward) s->input_forward(gpt_scheme(m, 0), m->res, m->pos, N);
    layernorm_forward(m->ln1, m->ln1_mean, m->ln1_rstd, m->res, PARAM(m, P_LN1W), PARAM(m, P_LN1B), N, C);
    for (int l = 0; l < c->L; l++) {
        // per-layer buffers: slot l in training, slot 0 (reused) in inference
        size_t tl = m->train ? (size_t)l : 0, tn = m->train ? tl + 1 : 0;
        real *x = m->res + tl * N * C, *xo = m->res + tn * N * C;
        real *ln1 = m->ln1 + tl * N * C, *qkv = m->qkv + tl * N * 3 * C, *atty = m->atty + tl * N * C;
        real *mid = m->mid + tl * N * C, *ln2 = m->ln2 + tl * N * C;
        real *fch = m->fch + tl * N * 4 * C, *fchg = m->fchg + tl * N * 4 * C;
        const PosState *ps = gpt_scheme(m, l);
        // ln1 = LN1(x) was made by the previous layer's last step (or before the loop)
        linear_forward(qkv, ln1, PARAM(m, P_QKVW) + (size_t)l * 3 * C * C, PARAM(m, P_QKVB) + l * 3 * C, N, C, 3 * C);
        if (s->qk_forward) {
            s->qk_forward(ps, qkv, m->pos, B, T, 3 * C, 0);
            s->qk_forward(ps, qkv + C, m->pos, B, T, 3 * C, 1);
        }
        if (s->qk_decay && m->train) { // in inference the attention decays each block of queries itself
            pos_decay_apply(ps, qkv, m->pos, B, T, 3 * C, 0);
            pos_decay_apply(ps, qkv + C, m->pos, B, T, 3 * C, 1);
        }
        if (m->train) attention_forward(atty, m->att + tl * B * NH * T * T, qkv, m->pos, mseg, ps, B, T, C, NH, m->att_qblock);
        else attention_forward_infer(atty, qkv, m->pos, ps, B, T, C, NH, m->att_qblock);
        linear_forward(m->proj, atty, PARAM(m, P_ATTPW) + (size_t)l * C * C, NULL, N, C, C);
        residual_layernorm_forward(mid, ln2, m->ln2_mean + tl * N, m->ln2_rstd + tl * N, x, m->proj,
                                   PARAM(m, P_ATTPB) + l * C, PARAM(m, P_LN2W) + l * C, PARAM(m, P_LN2B) + l * C, N, C);
        linear_forward(fch, ln2, PARAM(m, P_FCW) + (size_t)l * 4 * C * C, NULL, N, C, 4 * C);
        // fch: fc's output, then (training) gelu' of it with the bias, for the backward
        bias_gelu_forward(fchg, m->train ? fch : NULL, fch, PARAM(m, P_FCB) + l * 4 * C, N, 4 * C);
        linear_forward(m->proj, fchg, PARAM(m, P_FCPW) + (size_t)l * 4 * C * C, NULL, N, 4 * C, C);
        // xo = the next layer's input, normalized at once by its LN1 (or by the final LN)
        int last = l == c->L - 1;
        real *nln = last ? m->lnf : m->ln1 + tn * N * C, *nmean = last ? m->lnf_mean : m->ln1_mean + tn * N;
        real *nrstd = last ? m->lnf_rstd : m->ln1_rstd + tn * N;
        residual_layernorm_forward(xo, nln, nmean, nrstd, mid, m->proj, PARAM(m, P_FCPB) + l * C,
                                   last ? PARAM(m, P_LNFW) : PARAM(m, P_LN1W) + (l + 1) * C,
                                   last ? PARAM(m, P_LNFB) : PARAM(m, P_LN1B) + (l + 1) * C, N, C);
    }
    gemm(0, 1, N, V, C, 1, m->lnf, C, PARAM(m, P_WTE), C, 0, m->probs, V); // tied head
    crossentropy_forward(m->losses, m->probs, m->probs, tgt ? m->tgt : NULL, N, V);
    if (!tgt) return 0.0;
    double sum = 0.0;
    int scored = 0;
    for (int n = 0; n < N; n++) sum += m->losses[n], scored += m->tgt[n] != GPT_NO_TARGET;
    m->loss_sum = sum;
    return scored ? sum / scored : 0.0;
}

void gpt_zero_grad(GPT *m) {
    if (!m->grads) m->grads = xcalloc(m->num_params, sizeof(real));
    else memset(m->grads, 0, m->num_params * sizeof(real));
}

void gpt_backward(GPT *m) {
    const GPTConfig *c = &m->cfg;
    int B = m->rows, T = m->T, C = c->C, NH = c->NH, V = c->V, L = c->L, N = B * T;
    const PosScheme *s = gpt_scheme(m, 0)->scheme;
    if (!m->train) die("internal: gpt_backward needs activations allocated with train=1");
    if (!m->rows) die("internal: gpt_backward before a forward");
    if (!m->grads) gpt_zero_grad(m);
    size_t NC = (size_t)N * C;

    // loss = sum of the scored loss_n / the denominator (this batch's scored count, or the
    // global batch's when this batch is one shard of it)
    long scored = 0;
    for (int n = 0; n < N; n++) scored += m->tgt[n] != GPT_NO_TARGET;
    if (m->loss_denom > 0) scored = m->loss_denom;
    for (int n = 0; n < N; n++) m->dloss[n] = m->tgt[n] != GPT_NO_TARGET ? (real)(1.0 / scored) : 0;
    crossentropy_backward(m->probs, m->probs, m->tgt, m->dloss, N, V);
    // logits = lnf . wte^T  =>  dlnf = dlogits . wte; dwte += dlogits^T . lnf
    real *dlnf = m->dln;
    gemm(0, 0, N, C, V, 1, m->probs, V, PARAM(m, P_WTE), C, 0, dlnf, C);
    gemm(1, 0, V, C, N, 1, m->probs, V, m->lnf, C, 1, GRAD(m, P_WTE), C);
    memset(m->dres, 0, NC * sizeof(real));
    layernorm_backward(m->dres, GRAD(m, P_LNFW), GRAD(m, P_LNFB), dlnf, m->res + (size_t)L * NC, PARAM(m, P_LNFW),
                       m->lnf_mean, m->lnf_rstd, N, C);

    for (int l = L - 1; l >= 0; l--) {
        const PosState *ps = gpt_scheme(m, l);
        real *dscheme[POS_MAX_TENSORS];
        gpt_scheme_views(m, m->grads, l, dscheme);
        real *x = m->res + l * NC, *ln1 = m->ln1 + l * NC, *qkv = m->qkv + l * NC * 3, *atty = m->atty + l * NC;
        real *mid = m->mid + l * NC, *ln2 = m->ln2 + l * NC, *fch = m->fch + l * NC * 4, *fchg = m->fchg + l * NC * 4;
        // x_out = mid + fcproj(gelu(fc(ln2(mid)))); dres holds d(x_out)
        // d(fchg), then in place d(fch) = gelu' * d(fchg): no second N x 4C buffer
        linear_backward(m->dfch, GRAD(m, P_FCPW) + (size_t)l * 4 * C * C, GRAD(m, P_FCPB) + l * C, m->dres, fchg,
                        PARAM(m, P_FCPW) + (size_t)l * 4 * C * C, N, 4 * C, C);
        bias_gelu_backward(m->dfch, m->dfch, fch, NC * 4); // fch holds gelu'(fc output + bias)
        linear_backward(m->dln, GRAD(m, P_FCW) + (size_t)l * 4 * C * C, GRAD(m, P_FCB) + l * 4 * C, m->dfch, ln2,
                        PARAM(m, P_FCW) + (size_t)l * 4 * C * C, N, C, 4 * C);
        layernorm_backward(m->dres, GRAD(m, P_LN2W) + l * C, GRAD(m, P_LN2B) + l * C, m->dln, mid,
                           PARAM(m, P_LN2W) + l * C, m->ln2_mean + l * N, m->ln2_rstd + l * N, N, C);
        // mid = x + attproj(attn(qk(qkv(ln1(x))))); dres now holds d(mid)
        linear_backward(m->datty, GRAD(m, P_ATTPW) + (size_t)l * C * C, GRAD(m, P_ATTPB) + l * C, m->dres, atty,
                        PARAM(m, P_ATTPW) + (size_t)l * C * C, N, C, C);
        attention_backward(m->dqkv, m->sch_nt ? dscheme : NULL, m->datty, m->att + (size_t)l * B * NH * T * T, qkv, m->pos, m->packed ? m->seg : NULL,
                           ps, B, T, C, NH, m->att_qblock);
        if (s->qk_decay) { // a diagonal scale: its backward is the same scale
            pos_decay_apply(ps, m->dqkv, m->pos, B, T, 3 * C, 0);
            pos_decay_apply(ps, m->dqkv + C, m->pos, B, T, 3 * C, 1);
        }
        if (s->qk_backward) {
            s->qk_backward(ps, m->dqkv, m->pos, B, T, 3 * C, 0);
            s->qk_backward(ps, m->dqkv + C, m->pos, B, T, 3 * C, 1);
        }
        linear_backward(m->dln, GRAD(m, P_QKVW) + (size_t)l * 3 * C * C, GRAD(m, P_QKVB) + l * 3 * C, m->dqkv, ln1,
                        PARAM(m, P_QKVW) + (size_t)l * 3 * C * C, N, C, 3 * C);
        layernorm_backward(m->dres, GRAD(m, P_LN1W) + l * C, GRAD(m, P_LN1B) + l * C, m->dln, x,
                           PARAM(m, P_LN1W) + l * C, m->ln1_mean + l * N, m->ln1_rstd + l * N, N, C);
    }
    // x0 = wte[tok] + input_add(pos)
    if (s->input_backward && m->sch_nt) {
        real *dscheme[POS_MAX_TENSORS];
        gpt_scheme_views(m, m->grads, 0, dscheme);
        s->input_backward(gpt_scheme(m, 0), dscheme, m->dres, m->pos, N);
    }
    encoder_backward(GRAD(m, P_WTE), m->dres, m->tok, N, C, V);
}

// sum of squares in fixed chunks, added in chunk order: the same double whatever the thread
// count (an OpenMP reduction adds the threads' partial sums in whatever order they finish)
#define NORM_CHUNK 16384
double gpt_grad_norm(const GPT *m) {
    size_t nc = (m->num_params + NORM_CHUNK - 1) / NORM_CHUNK;
    double *part = xmalloc((nc ? nc : 1) * sizeof(double));
    PROF_BEGIN();
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < nc; c++) {
        size_t i0 = c * NORM_CHUNK, i1 = i0 + NORM_CHUNK < m->num_params ? i0 + NORM_CHUNK : m->num_params;
        double s = 0.0;
        for (size_t i = i0; i < i1; i++) s += (double)m->grads[i] * m->grads[i];
        part[c] = s;
    }
    double s = 0.0;
    for (size_t c = 0; c < nc; c++) s += part[c];
    free(part);
    PROF_END("gpt_grad_norm", (int)nc, NORM_CHUNK, 0, (long)nc);
    return sqrt(s);
}

int gpt_nonfinite_grad(const GPT *m) {
    for (int i = 0; i < NUM_PARAM_TENSORS; i++) {
        const real *g = m->grads + m->offsets[i];
        for (size_t k = 0; k < m->sizes[i]; k++)
            if (!isfinite(g[k])) return i;
    }
    return -1;
}

void gpt_constrain(GPT *m) {
    const PosScheme *s = m->sch[0].scheme;
    if (!s->constrain || !m->sch_nt) return;
    for (int l = 0; l < m->nsch; l++) s->constrain(&m->sch[l]);
}

size_t gpt_flop_params(const GPT *m) { return m->num_params - m->sizes[P_SCHEME]; }
