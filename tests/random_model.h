// random_model.h - a test model whose weights are well above init scale, so that every
// nonlinearity, the positions and the scheme's tensors visibly matter: built from cfg, GPT-2
// init with `seed`, N(0, 0.3^2) from rng added to every parameter, then the scheme's
// constraints (KERPLE's r > 0, FIRE's c > 0) applied again.
#ifndef POSGPT_RANDOM_MODEL_H
#define POSGPT_RANDOM_MODEL_H

#include "gpt.h"

static inline void random_model(GPT *m, const GPTConfig *cfg, uint64_t seed, Rng *rng) {
    gpt_build(m, cfg);
    gpt_init(m, seed);
    for (size_t i = 0; i < m->num_params; i++) m->params[i] += (real)(0.3 * rng_normal(rng));
    gpt_constrain(m);
}
#endif
