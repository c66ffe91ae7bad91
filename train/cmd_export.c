// cmd_export.c - `posgpt export`: a checkpoint's parameters as named tensors in the
// safetensors format (what PyTorch and Hugging Face users load with the `safetensors`
// package), the configuration in its metadata (with the context extension the model was
// trained with: rope_scaling, and when not "none" rope_factor and rope_from_len).
//
// safetensors, as its specification gives it: an unsigned little-endian 64-bit N, then N
// bytes of UTF-8 JSON, then the data. The JSON maps each tensor name to {"dtype", "shape",
// "data_offsets": [begin, end)} with offsets into the data (which the tensors cover exactly,
// without gaps or overlaps, row-major), plus an optional "__metadata__" object of string
// values. The header may end in spaces; posgpt pads it to a multiple of 8 bytes so that the
// data is aligned. posgpt's tensors are laid out back to back in the checkpoint's order, so
// the data is exactly the checkpoint's parameter vector (float32, little-endian).
#include "args.h"
#include "ckpt.h"
#include "cli.h"
#include "fileio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *s;
    size_t n, cap;
} Buf;

static void put(Buf *b, const char *fmt, ...) POSGPT_PRINTF(2, 3);
static void put(Buf *b, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        b->cap = 2 * b->cap + (k > 0 ? (size_t)k : 0) + 256;
        b->s = realloc(b->s, b->cap);
        if (!b->s) die("export: out of memory");
    }
}

// a tensor's shape from the model's configuration (docs/checkpoint.md); the scheme's are
// written one by one (scheme_tensor)
static int tensor_shape(const GPT *m, int i, size_t *d) {
    const GPTConfig *c = &m->cfg;
    size_t V = c->V, C = c->C, L = c->L;
    switch (i) {
    case P_WTE: return d[0] = V, d[1] = C, 2;
    case P_QKVW: return d[0] = L, d[1] = 3 * C, d[2] = C, 3;
    case P_QKVB: return d[0] = L, d[1] = 3 * C, 2;
    case P_ATTPW: return d[0] = L, d[1] = C, d[2] = C, 3;
    case P_FCW: return d[0] = L, d[1] = 4 * C, d[2] = C, 3;
    case P_FCB: return d[0] = L, d[1] = 4 * C, 2;
    case P_FCPW: return d[0] = L, d[1] = C, d[2] = 4 * C, 3;
    case P_LNFW: case P_LNFB: return d[0] = C, 1;
    default: return d[0] = L, d[1] = C, 2; // ln1_w/b, attproj_b, ln2_w/b, fcproj_b
    }
}

// one tensor's entry in the JSON header; *off advances past its data
static void put_tensor(Buf *h, const char *name, const size_t *d, int nd, size_t want, size_t *off) {
    put(h, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[", name);
    size_t p = 1;
    for (int k = 0; k < nd; k++) put(h, "%s%zu", k ? "," : "", d[k]), p *= d[k];
    if (p != want) die("internal: tensor '%s' has %zu values but shape product %zu", name, want, p);
    put(h, "],\"data_offsets\":[%zu,%zu]}", *off, *off + 4 * want);
    *off += 4 * want;
}

// the scheme's tensor k as "scheme.NAME", a per-layer one with a leading dimension of layers
static void scheme_tensor(Buf *h, const GPT *m, int k, size_t *off) {
    const PosTensor *t = &m->sch_t[k];
    size_t d[4], n = pos_tensor_size(t) * (t->per_layer ? (size_t)m->cfg.L : 1);
    int nd = 0;
    if (t->per_layer) d[nd++] = (size_t)m->cfg.L;
    for (int i = 0; i < t->ndim; i++) d[nd++] = t->dims[i];
    char name[64];
    snprintf(name, sizeof name, "scheme.%s", t->name);
    put_tensor(h, name, d, nd, n, off);
}

int cmd_export(int argc, char **argv) {
    const char *ckpt = NULL, *out = NULL, *format = "safetensors", *files[1];
    ArgDef defs[] = {{"ckpt", ARG_STR, &ckpt, "the checkpoint (or give it as the only argument)"},
                     {"out", ARG_STR, &out, "the file to write (required)"},
                     {"format", ARG_STR, &format, "safetensors (the only one)"},
                     {NULL}};
    int n = args_parse(argc, argv, 2, defs, NULL, "export", "--ckpt FILE --out FILE.safetensors", files, 1);
    if (ckpt && n) die("export: give the checkpoint once, as --ckpt FILE or as the argument, not both");
    if (n) ckpt = files[0];
    if (!ckpt) die("export: --ckpt FILE is required (see posgpt export --help)");
    if (!out) die("export: --out FILE is required, e.g. --out model.safetensors");
    if (strcmp(format, "safetensors")) die("export: --format must be safetensors, got '%s'", format);
    refuse_overlap("export --out", out, "the checkpoint", ckpt);
    GPT m;
    TrainState ts;
    ckpt_load(ckpt, &m, &ts, NULL);
    const GPTConfig *c = &m.cfg;
    const PosScheme *s = gpt_scheme(&m, 0)->scheme;
    char label[64];

    Buf h = {0};
    put(&h, "{\"__metadata__\":{\"format\":\"pt\",\"producer\":\"posgpt %s\",\"scheme\":\"%s\",\"pos\":\"%s\"", POSGPT_VERSION,
        run_label(c->scheme, ts.rand_max, label, sizeof label), c->scheme);
    put(&h, ",\"vocab\":\"%d\",\"d_model\":\"%d\",\"layers\":\"%d\",\"heads\":\"%d\",\"seq_len\":\"%d\",\"pos_rows\":\"%d\","
        "\"rand_max\":\"%d\",\"pos_sharing\":\"%s\",\"step\":\"%ld\",\"val_loss\":\"%.9g\"", c->V, c->C, c->L, c->NH, c->T,
        c->pos_rows, ts.rand_max, pos_sharing_name(c->scheme_sharing),
        ts.step, ts.val_loss);
    for (int i = 0; i < POS_MAX_HYPER && s->hypers[i].name; i++) put(&h, ",\"%s\":\"%.9g\"", s->hypers[i].name, c->scheme_hp[i]);
    // the context extension the model was trained with, in force at every length (config.txt's names)
    put(&h, ",\"rope_scaling\":\"%s\"", c->ext_method[0] ? c->ext_method : "none");
    if (c->ext_method[0]) put(&h, ",\"rope_factor\":\"%.17g\",\"rope_from_len\":\"%d\"", c->ext_factor, c->ext_train_len);
    put(&h, ",\"layout\":\"y = x W^T + b; qkv rows q|k|v; pre-LN GPT-2 with a tied head; see docs/model.md\"}");
    size_t off = 0;
    for (int i = 0; i < P_SCHEME; i++) {
        size_t d[4];
        int nd = tensor_shape(&m, i, d);
        put_tensor(&h, PARAM_NAMES[i], d, nd, m.sizes[i], &off);
    }
    for (int k = 0; k < m.sch_nt; k++) scheme_tensor(&h, &m, k, &off);
    put(&h, "}");
    while (h.n % 8) put(&h, " ");
    unsigned char len[8];
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)((uint64_t)h.n >> (8 * i));

    OutFile o;
    FILE *f = out_open(&o, out, "safetensors file");
    int bad = fwrite(len, 1, 8, f) != 8 || fwrite(h.s, 1, h.n, f) != h.n;
    float buf[4096];
    for (size_t i = 0; i < m.num_params && !bad; i += 4096) {
        size_t k = m.num_params - i < 4096 ? m.num_params - i : 4096;
        for (size_t j = 0; j < k; j++) buf[j] = (float)m.params[i + j];
        bad = fwrite(buf, sizeof(float), k, f) != k;
    }
    if (bad || out_try_commit(&o) != 0) {
        int e = errno ? errno : EIO;
        out_abandon(&o);
        die("cannot write the safetensors file '%s': %s", out, strerror(e));
    }
    fprintf(stderr, "wrote %s: %d tensors, %zu parameters, %zu-byte header (scheme %s, step %ld)\n", out,
            P_SCHEME + m.sch_nt, m.num_params, h.n, label, ts.step);
    free(h.s);
    gpt_free(&m);
    return 0;
}
