// scheme_state.h - a position scheme's state outside a model, for the tests that call hooks
// directly: its tensors (one layer's) back to back in one buffer, like a model's view of a
// layer, and pointers into a gradient buffer laid out the same way.
#ifndef POSGPT_TEST_SCHEME_STATE_H
#define POSGPT_TEST_SCHEME_STATE_H

#include "pos.h"

#include <stdlib.h>

// fill, check (dies on a bad configuration), bind the tensors to a new zeroed buffer (returned,
// *np floats), initialise them with the scheme's init if rng is given, constrain, prepare
static real *scheme_state(PosState *ps, const PosScheme *s, int C, int NH, int rows, const float *hp, Rng *rng, size_t *np) {
    pos_state_fill(ps, s, C, NH, rows, hp, POS_SHARING_PAPER);
    char err[256];
    if (pos_check(ps, err, sizeof err)) die("%s", err);
    PosTensor t[POS_MAX_TENSORS];
    ps->ntensors = pos_tensors(ps, t);
    *np = 0;
    for (int k = 0; k < ps->ntensors; k++) *np += ps->size[k] = pos_tensor_size(&t[k]);
    real *params = calloc(*np + 1, sizeof(real));
    for (int k = 0, o = 0; k < ps->ntensors; o += (int)ps->size[k], k++) {
        ps->param[k] = params + o;
        if (rng && s->init) s->init(ps, k, ps->param[k], rng);
    }
    if (s->constrain) s->constrain(ps);
    pos_prepare(ps);
    return params;
}

// pointers into a buffer laid out like scheme_state's parameters
static inline void scheme_views(const PosState *ps, real *buf, real **view) {
    for (int k = 0, o = 0; k < ps->ntensors; o += (int)ps->size[k], k++) view[k] = buf + o;
}
#endif
