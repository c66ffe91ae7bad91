// summary.c - summary.json (summary.h).
#include "summary.h"
#include "common.h"
#include "fileio.h"

#include <stdlib.h>
#include <string.h>

// a JSON string: quotes, backslashes and control characters escaped
static void json_str(FILE *f, const char *s, size_t n) {
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

// "name": x as printf's fmt writes it, or null when x is not finite (JSON has no NaN)
static void json_num(FILE *f, const char *name, const char *fmt, double x) {
    fprintf(f, ",\n  \"%s\": ", name);
    if (isfinite(x)) fprintf(f, fmt, x);
    else fprintf(f, "null");
}

// a configuration value that is a JSON number as written (%d, %g: digits, '.', 'e', a sign)
static int is_json_number(const char *v, size_t n) {
    char buf[64], *end;
    if (!n || n >= sizeof buf || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))) return 0;
    if (n > 1 && v[0] == '0' && v[1] != '.' && v[1] != 'e') return 0; // JSON has no leading zeros
    memcpy(buf, v, n), buf[n] = 0;
    if (strspn(buf, "0123456789.e+-") != n) return 0;
    double x = strtod(buf, &end);
    return *end == 0 && isfinite(x);
}

// "key = value" lines as a JSON object (numbers as numbers, the rest as strings)
static void json_config(FILE *f, const char *text) {
    const char *sep = "";
    fprintf(f, "{");
    for (const char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        const char *eq = strstr(line, " = ");
        if (line[0] == '#' || !eq || eq > nl) continue;
        const char *v = eq + 3;
        fprintf(f, "%s\n    ", sep), sep = ",";
        json_str(f, line, (size_t)(eq - line));
        fprintf(f, ": ");
        if (is_json_number(v, (size_t)(nl - v))) fwrite(v, 1, (size_t)(nl - v), f);
        else json_str(f, v, (size_t)(nl - v));
    }
    fprintf(f, "\n  }");
}

void summary_write(const char *dir, const RunSummary *s) {
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    OutFile o;
    FILE *f = out_open(&o, path, "run summary");
    const LogRow *l = s->last;
    int row = l->step >= 0;
    fprintf(f, "{\n  \"posgpt\": ");
    json_str(f, POSGPT_VERSION, strlen(POSGPT_VERSION));
    fprintf(f, ",\n  \"status\": ");
    json_str(f, s->status, strlen(s->status));
    fprintf(f, ",\n  \"scheme\": ");
    json_str(f, s->scheme, strlen(s->scheme));
    fprintf(f, ",\n  \"step\": %ld,\n  \"steps\": %d", s->step, s->steps);
    json_num(f, "train_loss", "%.6f", row ? l->loss : NAN); // log.csv's formats
    json_num(f, "val_loss", "%.6f", row && !isnan(l->val) ? l->val : s->val_loss);
    json_num(f, "lr", "%.6g", row ? l->lr : NAN);
    json_num(f, "tokens_per_s", "%.0f", row ? l->rate : NAN);
    json_num(f, "elapsed_s", "%.2f", row ? l->elapsed : NAN);
    if (s->until_acc > 0) {
        fprintf(f, ",\n  \"until_acc\": %g,\n  \"steps_to_learn\": ", s->until_acc);
        if (s->learned_step) fprintf(f, "%ld", s->learned_step);
        else fprintf(f, "null");
        fprintf(f, ",\n  \"after_learn\": %d", s->after_learn);
    }
    fprintf(f, ",\n  \"logged_step\": %ld,\n  \"wall_s\": %.2f,\n  \"tokens\": %.0f,\n  \"config\": ", l->step, s->wall, s->tokens);
    json_config(f, s->config);
    fprintf(f, "\n}\n");
    out_commit(&o);
}
