// decode.h - incremental decoding with a key/value cache: feed a prompt (a prefill of many
// tokens at once), then one token at a time, and get the next-token logits after each
// feed, without recomputing the prefix. Every layer keeps the q, k, v rows of the tokens fed
// so far (after the scheme's rotation); a new token's attention runs its query row against
// the cached keys with the same row hooks as the full forward, so every scheme decodes as it
// evaluates: biases that depend on the query position (FIRE), content terms (CoPE, Shaw's
// keys, Transformer-XL), value terms (Shaw) and xPos's decay.
//
// The logits agree with gpt_forward on the same tokens and positions to float rounding (the
// products run over other shapes; xPos centres its decay on other blocks). A rotary context
// extension at a fixed factor (a checkpoint's trained one: pi, ntk, yarn; rerope's window) is
// applied as in gpt_forward; one whose scale follows the window length (dynamic NTK, or
// pi/ntk/yarn without a fixed factor) is refused: the cached keys would keep the scale of the
// length they were fed at (the error names --no-cache, which recomputes every window).
#ifndef POSGPT_DECODE_H
#define POSGPT_DECODE_H

#include "gpt.h"

typedef struct {
    const GPT *m;
    int B, cap, n;       // sequences, tokens each can hold, tokens cached so far
    int chunk;           // most tokens one feed can take per sequence (the buffers' size)
    int *pos;            // (B, cap) positions of the cached tokens
    real *kv;            // (L, B, cap, 3C) every layer's q, k, v rows
    // one feed's activations, (B, chunk, ...)
    int *tok, *npos;
    real *x, *ln, *mean, *rstd, *qkv, *atty, *proj, *mid, *fch, *fchg;
    real *logits;        // (B, V) the next-token logits after the last feed
} Decoder;

// a decoder for m (parameters borrowed, not copied) with room for cap tokens per sequence,
// fed at most chunk tokens per sequence at a time; dies if the memory is not there
void decoder_init(Decoder *d, const GPT *m, int B, int cap, int chunk);
void decoder_free(Decoder *d);
// forget the cached tokens (the buffers stay)
void decoder_reset(Decoder *d);
// Feed nq tokens per sequence: tok (B, nq) and their positions pos (B, nq) (NULL: the next
// ones, n..n+nq-1). Returns the logits (B, V) for the token after each sequence's last one.
// Positions past the scheme's limit are an error, or the last one with m->clamp_pos.
const real *decoder_feed(Decoder *d, const int *tok, const int *pos, int nq);
// bytes decoder_init allocates for (B, cap, chunk)
double decoder_bytes(const GPTConfig *c, int B, int cap, int chunk);
#endif
