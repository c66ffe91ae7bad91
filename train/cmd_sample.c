// cmd_sample.c - `posgpt sample`: generate bytes from a checkpoint. The prompt and the bytes
// generated share a key/value cache (model/decode.h), so each new byte costs one row of the
// forward pass. The model sees at most --context bytes (default the training length), at
// positions from 0: when the cache is full, its newest half is kept and read again from
// position 0, so every byte is predicted from between context/2 and context bytes.
// --no-cache recomputes the last --context bytes for every byte instead (the cost the cache
// saves; positions restart at 0 in every window, so past the context the two differ). A
// checkpoint's trained context extension (a fixed factor) applies to both; one whose scale
// follows the window length is refused by the cache (model/decode.h) and takes --no-cache.
#include "args.h"
#include "ckpt.h"
#include "cli.h"
#include "decode.h"
#include "layers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cmd_sample(int argc, char **argv) {
    const char *ckpt = NULL, *prompt = "\n";
    int tokens = 200, context = 0, top_k = 0, threads = 0, no_cache = 0;
    double temperature = 0.8;
    long seed = 1;
    ArgDef defs[] = {{"ckpt", ARG_STR, &ckpt, "checkpoint to sample from"},
                     {"prompt", ARG_STR, &prompt, "text to continue"},
                     {"tokens", ARG_INT, &tokens, "bytes to generate", 1, 1 << 24},
                     {"temperature", ARG_FLOAT, &temperature, "softmax temperature (0 = greedy: always the most likely byte)", 0, 100},
                     {"top-k", ARG_INT, &top_k, "sample among the k most likely bytes (0 = all)", 0, 256},
                     {"context", ARG_INT, &context, "most bytes the model sees, at positions from 0 (0 = training length); a full cache keeps its newest half", 0, 1 << 20},
                     {"seed", ARG_LONG, &seed, "sampling seed", 0, 9e18},
                     {"threads", ARG_INT, &threads, "threads (0 = OpenMP's own count: OMP_NUM_THREADS, else one per core)", 0, 4096},
                     {"no-cache", ARG_FLAG, &no_cache, "recompute the last --context bytes for every byte (no key/value cache)"},
                     {NULL}};
    args_parse(argc, argv, 2, defs, NULL, "sample", "--ckpt FILE [--prompt TEXT] [flags]", NULL, 0);
    if (!ckpt) die("sample: --ckpt FILE is required (see posgpt sample --help)");
    for (int k = 0; k < 2 && temperature == 0; k++) // greedy: no draws
        if (args_given(k ? "seed" : "top-k"))
            die("sample: --%s has no effect with --temperature 0 (greedy: always the most likely byte); drop it or give a "
                "temperature above 0", k ? "seed" : "top-k");
    GPT m;
    ckpt_load(ckpt, &m, NULL, NULL);
    runtime_setup(threads);
    int V = m.cfg.V;
    if (!context) context = m.cfg.T;
    int lim = gpt_max_pos(&m);
    if (lim && context > lim) die("--context %d exceeds the %d positions this '%s' checkpoint serves", context, lim, m.cfg.scheme);
    size_t plen = strlen(prompt);
    if (plen == 0) die("--prompt is empty");
    int *buf = xmalloc((plen + (size_t)tokens) * sizeof(int));
    for (size_t i = 0; i < plen; i++) buf[i] = (unsigned char)prompt[i];
    size_t n = plen;
    Rng rng;
    rng_seed(&rng, (uint64_t)seed);
    fwrite(prompt, 1, plen, stdout);
    double *p = xmalloc((size_t)V * sizeof(double));
    real *nc_logits = xmalloc((size_t)V * sizeof(real));
    Decoder d;
    if (!no_cache) decoder_init(&d, &m, 1, context, context);
    for (int k = 0; k < tokens; k++) {
        const real *logits; // the next byte's logits
        if (no_cache) {
            int T = n < (size_t)context ? (int)n : context;
            gpt_alloc(&m, 1, T, 0);
            gpt_forward(&m, buf + n - T, NULL, NULL);
            gemm(0, 1, 1, V, m.cfg.C, 1, m.lnf + (size_t)(T - 1) * m.cfg.C, m.cfg.C, m.params + m.offsets[P_WTE], m.cfg.C, 0,
                 nc_logits, V);
            logits = nc_logits;
        } else if (k == 0 || d.n == context) { // the prompt, or a full cache: read the newest bytes from position 0
            int keep = k == 0 ? (n < (size_t)context ? (int)n : context) : (context + 1) / 2;
            decoder_reset(&d);
            logits = decoder_feed(&d, buf + n - keep, NULL, keep);
        } else logits = decoder_feed(&d, buf + n - 1, NULL, 1);
        int next = 0;
        if (temperature == 0) {
            for (int v = 1; v < V; v++)
                if (logits[v] > logits[next]) next = v;
        } else {
            // p ~ softmax(logits / temperature), restricted to the top k, formed relative to the
            // most likely byte (which gets exp(0) = 1), so no temperature > 0 can make every
            // weight underflow: as the temperature falls, sampling tends to the greedy choice
            double sum = 0, lmax = -INFINITY;
            for (int v = 0; v < V; v++) lmax = logits[v] > lmax ? logits[v] : lmax;
            for (int v = 0; v < V; v++) p[v] = exp(((double)logits[v] - lmax) / temperature);
            if (top_k > 0) {
                for (int v = 0; v < V; v++) { // keep p[v] if fewer than top_k entries beat it
                    int better = 0;
                    for (int u = 0; u < V; u++) better += p[u] > p[v];
                    if (better >= top_k) p[v] = 0;
                }
            }
            for (int v = 0; v < V; v++) sum += p[v];
            double r = rng_uniform(&rng) * sum, acc = 0;
            next = V - 1;
            for (int v = 0; v < V; v++) {
                acc += p[v];
                if (r < acc) { next = v; break; }
            }
        }
        buf[n++] = next;
        putchar(next);
        if (fflush(stdout) != 0 || ferror(stdout)) die("cannot write to standard output: %s", strerror(errno));
    }
    putchar('\n');
    if (!no_cache) decoder_free(&d);
    free(p), free(buf), free(nc_logits);
    gpt_free(&m);
    return 0;
}
