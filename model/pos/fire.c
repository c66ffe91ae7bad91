// fire.c - FIRE, functional interpolation for relative positions (Li et al. 2023,
// "Functional Interpolation for Relative Positions Improves Long Context Transformers",
// Sec. 3): the logit bias of head h is a learned function of the normalised distance
//   u = psi(D) / psi(max(L, i)),  psi(x) = log(c x + 1),  D = i - j,
//   b(h, i, j) = f(u)_h,  f = MLP 1 -> H_f (ReLU) -> NH,
// with learnable c > 0 and threshold L >= 1. Dividing by psi of the query position
// ("progressive interpolation") keeps u in [0, 1] at any length, so longer windows reuse
// the trained range of f; it also makes the bias depend on i itself, not only on i - j.
// One MLP per layer, shared by its heads (one output each): FIRE as the paper trains it;
// the paper names the variant with one MLP for all layers FIRE-S (layerwise sharing, a
// cheaper option; here --pos-sharing shared). No code by the authors is public.
// Parameters, in order:
//   w1[Hf], b1[Hf], w2[NH][Hf], b2[NH], c, L.
// Init (ours): w1 ~ N(0,1), b1 ~ U(-1,1), w2 ~ N(0, 0.02^2), b2 = 0, c = 1,
// L = fire-threshold (32). Constraint after every step: c >= 1e-3, L >= 1.
// Speed: psi(D) depends only on D and c, so it is tabulated before each attention pass (the
// tabulate hook); the MLP runs over blocks of FIRE_JB keys at once, the hidden units in the
// outer loop, so the compiler vectorizes over keys. Each sum still adds its terms in the
// order of the plain loops (hidden unit by hidden unit for a score, key by key for a
// parameter gradient), so the floats are those of the plain loops.
#include "pos.h"

#include <stdlib.h>

#define FIRE_MAX_HIDDEN 256
#define FIRE_JB 16
#define FIRE_PER_LAYER 1

// ps->cache: psi(D) = log1p(c D) for D < n, built for this c
typedef struct { int n, cap; real c; real *psi; } FireTab;

static void fire_prepare(PosState *ps) { ps->cache = xcalloc(1, sizeof(FireTab)); }
static void fire_release(PosState *ps) {
    FireTab *t = ps->cache;
    if (t) free(t->psi), free(t);
}

typedef struct { const real *w1, *b1, *w2, *b2, *c, *L; int Hf; } FireView;

static int fire_hidden(const PosState *ps) { return (int)ps->hp[0]; }

static FireView fire_view(const PosState *ps, const real *P) {
    int Hf = fire_hidden(ps), NH = ps->NH;
    FireView v = {P, P + Hf, P + 2 * Hf, P + 2 * Hf + (size_t)NH * Hf, NULL, NULL, Hf};
    v.c = v.b2 + NH;
    v.L = v.c + 1;
    return v;
}

// the whole MLP (and c, L) as one flat tensor, laid out as above
static int fire_tensors(const PosState *ps, PosTensor *t) {
    t[0] = (PosTensor){"mlp", 1, {(size_t)fire_hidden(ps) * (2 + ps->NH) + ps->NH + 2}, FIRE_PER_LAYER, 0};
    return 1;
}

static const char *fire_validate(const PosState *ps, char *err, size_t n) {
    float hf = ps->hp[0], L = ps->hp[1];
    if (!(hf >= 1 && hf <= FIRE_MAX_HIDDEN) || hf != floorf(hf))
        snprintf(err, n, "fire-hidden must be an integer in [1, %d], got %g", FIRE_MAX_HIDDEN, hf);
    else if (!(L >= 1 && L <= 1e9)) snprintf(err, n, "fire-threshold must be in [1, 1e9], got %g", L);
    else return NULL;
    return err;
}

static void fire_init(const PosState *ps, int kt, real *P, Rng *rng) {
    int Hf = fire_hidden(ps), NH = ps->NH;
    real *w1 = P, *b1 = P + Hf, *w2 = P + 2 * Hf, *b2 = w2 + (size_t)NH * Hf;
    for (int k = 0; k < Hf; k++) w1[k] = (real)rng_normal(rng), b1[k] = (real)(2.0 * rng_uniform(rng) - 1.0);
    for (int i = 0; i < NH * Hf; i++) w2[i] = (real)(0.02 * rng_normal(rng));
    for (int h = 0; h < NH; h++) b2[h] = 0;
    b2[NH] = 1.0f;              // c
    b2[NH + 1] = ps->hp[1];     // L
}

static void fire_constrain(const PosState *ps) {
    FireView v = fire_view(ps, ps->param[0]);
    real *c = (real *)v.c, *L = (real *)v.L;
    if (!(*c >= 1e-3f)) *c = 1e-3f;
    if (!(*L >= 1.0f)) *L = 1.0f;
}

static void fire_tabulate(const PosState *ps, int ndist) {
    FireTab *t = ps->cache;
    real c = *fire_view(ps, ps->param[0]).c;
    if (ndist <= t->n && c == t->c) return;
    if (ndist > t->cap) {
        free(t->psi);
        t->psi = xmalloc((size_t)ndist * sizeof(real));
        t->cap = ndist;
    }
#pragma omp parallel for schedule(static)
    for (int D = 0; D < ndist; D++) t->psi[D] = log1p(c * (real)D);
    t->n = ndist;
    t->c = c;
}

// psi(D) = log1p(c D), from the table when it covers D
static inline real fire_psi(const FireTab *t, real c, int D) {
    return (unsigned)D < (unsigned)t->n ? t->psi[D] : log1p(c * (real)D);
}

static void fire_bias_forward(const PosState *ps, int h, int qpos, const int *kpos, int n, real *scores) {
    FireView v = fire_view(ps, ps->param[0]);
    const FireTab *t = ps->cache;
    real c = *v.c, M = (real)qpos > *v.L ? (real)qpos : *v.L;
    real inv = 1 / log1p(c * M);
    const real *w2 = v.w2 + (size_t)h * v.Hf;
    for (int j0 = 0; j0 < n; j0 += FIRE_JB) {
        int nj = n - j0 < FIRE_JB ? n - j0 : FIRE_JB;
        real u[FIRE_JB] = {0}, o[FIRE_JB];
        for (int jj = 0; jj < nj; jj++) u[jj] = fire_psi(t, c, qpos - kpos[j0 + jj]) * inv;
        for (int jj = 0; jj < FIRE_JB; jj++) o[jj] = v.b2[h];
        for (int k = 0; k < v.Hf; k++) { // o += w2_k relu(w1_k u + b1_k), unit by unit
            real a = v.w1[k], b = v.b1[k], w = w2[k];
            for (int jj = 0; jj < FIRE_JB; jj++) {
                real z = a * u[jj] + b;
                o[jj] = z > 0 ? o[jj] + w * z : o[jj];
            }
        }
        for (int jj = 0; jj < nj; jj++) scores[j0 + jj] += o[jj];
    }
}

static void fire_bias_backward(const PosState *ps, real *const *dparam, int h, int qpos, const int *kpos, int n,
                               const real *ds) {
    // o = b2_h + sum_k w2_hk relu(w1_k u + b1_k), u = psi(D) / psi(M), M = max(L, i)
    // du/dc = (D/(cD+1) psi(M) - psi(D) M/(cM+1)) / psi(M)^2; du/dL = -psi(D) c/(cL+1) / psi(M)^2 if L > i
    FireView v = fire_view(ps, ps->param[0]), g = fire_view(ps, dparam[0]);
    int Hf = v.Hf;
    real c = *v.c, Lt = *v.L, M = (real)qpos > Lt ? (real)qpos : Lt;
    real pM = log1p(c * M), inv = 1 / pM;
    const real *w2 = v.w2 + (size_t)h * Hf;
    real gw1[FIRE_MAX_HIDDEN] = {0}, gb1[FIRE_MAX_HIDDEN] = {0}, gw2[FIRE_MAX_HIDDEN] = {0};
    real gb2 = 0, gc = 0, gL = 0;
    const FireTab *t = ps->cache;
    for (int j0 = 0; j0 < n; j0 += FIRE_JB) {
        int nj = n - j0 < FIRE_JB ? n - j0 : FIRE_JB;
        real u[FIRE_JB] = {0}, pD[FIRE_JB] = {0}, d[FIRE_JB] = {0}, du[FIRE_JB] = {0};
        for (int jj = 0; jj < nj; jj++) {
            pD[jj] = fire_psi(t, c, qpos - kpos[j0 + jj]);
            u[jj] = pD[jj] * inv;
            d[jj] = ds[j0 + jj];
        }
        // du = sum_k [z_k > 0] dz_k w1_k, unit by unit, vectorized over the block's keys
        for (int k = 0; k < Hf; k++) {
            real a = v.w1[k], b = v.b1[k], w = w2[k];
            for (int jj = 0; jj < FIRE_JB; jj++) {
                real z = a * u[jj] + b, dz = d[jj] * w;
                du[jj] = z > 0 ? du[jj] + dz * a : du[jj];
            }
        }
        // the parameter gradients, key by key, vectorized over the units
        for (int jj = 0; jj < nj; jj++) {
            real uj = u[jj], dj = d[jj];
            for (int k = 0; k < Hf; k++) {
                real z = v.w1[k] * uj + v.b1[k], dz = dj * w2[k];
                gw2[k] = z > 0 ? gw2[k] + dj * z : gw2[k];
                gw1[k] = z > 0 ? gw1[k] + dz * uj : gw1[k];
                gb1[k] = z > 0 ? gb1[k] + dz : gb1[k];
            }
            real D = (real)(qpos - kpos[j0 + jj]), p = pD[jj];
            gb2 += dj;
            gc += du[jj] * (D / (c * D + 1) * pM - p * M / (c * M + 1)) * inv * inv;
            if (Lt > (real)qpos) gL -= du[jj] * p * c / (c * Lt + 1) * inv * inv;
        }
    }
    real *w1g = (real *)g.w1, *b1g = (real *)g.b1, *w2g = (real *)g.w2 + (size_t)h * Hf;
    for (int k = 0; k < Hf; k++) w1g[k] += gw1[k], b1g[k] += gb1[k], w2g[k] += gw2[k];
    ((real *)g.b2)[h] += gb2;
    *(real *)g.c += gc;
    *(real *)g.L += gL;
}

// per layer, per (query, key): u = psi(D) / psi(max(L, i)) (1 multiply; psi tabulated), the
// hidden layer shared by the heads (2 FLOPs a unit; ReLU not counted), each head's output (2 a
// unit) and its add to the score (1)
static double fire_flops(const PosState *ps, int T, int L) {
    double Hf = fire_hidden(ps);
    return (double)L * T * (1.0 + 2.0 * Hf + ps->NH * (2.0 * Hf + 1.0));
}

const PosScheme pos_fire = {
    .name = "fire",
    .summary = "learned MLP of the log distance normalised by the query position (progressive interpolation)",
    .cite = "Li et al. 2023 (FIRE), Sec. 3",
    .hypers = {{"fire-hidden", 32.0f, "hidden units of the MLP", 1},
               {"fire-threshold", 32.0f, "initial threshold L of the normaliser psi(max(L, i)) (learned)"},
               {NULL, 0, NULL}},
    .relative = 0, // the normaliser depends on the query position itself
    .tensors = fire_tensors,
    .init = fire_init,
    .constrain = fire_constrain,
    .validate = fire_validate,
    .prepare = fire_prepare,
    .release = fire_release,
    .tabulate = fire_tabulate,
    .bias_forward = fire_bias_forward,
    .bias_backward = fire_bias_backward,
    .flops = fire_flops,
};
