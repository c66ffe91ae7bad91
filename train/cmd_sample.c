// cmd_sample.c - `posgpt sample`: generate bytes from a checkpoint, feeding back the last
// --context bytes (default the training length) each step.
#include "args.h"
#include "ckpt.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cmd_sample(int argc, char **argv) {
    const char *ckpt = NULL, *prompt = "\n";
    int tokens = 200, context = 0, top_k = 0, threads = 0;
    double temperature = 0.8;
    long seed = 1;
    ArgDef defs[] = {{"ckpt", ARG_STR, &ckpt, "checkpoint to sample from"},
                     {"prompt", ARG_STR, &prompt, "text to continue"},
                     {"tokens", ARG_INT, &tokens, "bytes to generate", 1, 1 << 24},
                     {"temperature", ARG_FLOAT, &temperature, "softmax temperature (0 = greedy: always the most likely byte)", 0, 100},
                     {"top-k", ARG_INT, &top_k, "sample among the k most likely bytes (0 = all)", 0, 256},
                     {"context", ARG_INT, &context, "bytes of context fed to the model; 0 = training length", 0, 1 << 20},
                     {"seed", ARG_LONG, &seed, "sampling seed", 0, 9e18},
                     {"threads", ARG_INT, &threads, "threads (0 = OpenMP default)", 0, 4096},
                     {NULL}};
    args_parse(argc, argv, 2, defs, NULL, "sample", "--ckpt FILE [--prompt TEXT] [flags]", NULL, 0);
    if (!ckpt) die("sample: --ckpt FILE is required (see posgpt sample --help)");
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
    for (int k = 0; k < tokens; k++) {
        int T = n < (size_t)context ? (int)n : context;
        gpt_alloc(&m, 1, T, 0);
        gpt_forward(&m, buf + n - T, NULL, NULL);
        const real *logits = m.probs + (size_t)(T - 1) * V; // softmax probabilities at the last position
        int next = 0;
        if (temperature == 0) {
            for (int v = 1; v < V; v++)
                if (logits[v] > logits[next]) next = v;
        } else {
            // p ~ probs^(1/temperature), restricted to the top k, formed in log space relative to
            // the most likely byte (which gets exp(0) = 1), so no temperature > 0 can make every
            // weight underflow: as the temperature falls, sampling tends to the greedy choice
            double sum = 0, lmax = -INFINITY;
            for (int v = 0; v < V; v++) {
                p[v] = logits[v] > 0 ? log((double)logits[v]) / temperature : -INFINITY;
                lmax = p[v] > lmax ? p[v] : lmax;
            }
            for (int v = 0; v < V; v++) p[v] = exp(p[v] - lmax);
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
    free(p), free(buf);
    gpt_free(&m);
    return 0;
}
