// args.c - flag parsing and help. See args.h.
#include "args.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

// x in the fewest digits that read back as x
static void print_exact(FILE *f, double x) {
    char b[40];
    for (int p = 6; p <= 17; p++) {
        snprintf(b, sizeof b, "%.*g", p, x);
        if (strtod(b, NULL) == x) break;
    }
    fputs(b, f);
}

// a flag's value as help shows it (%g) or exactly (print_exact, for args_values)
static void print_value(FILE *f, const ArgDef *d, int exact) {
    switch (d->type) {
    case ARG_INT: fprintf(f, "%d", *(int *)d->ptr); break;
    case ARG_LONG: fprintf(f, "%ld", *(long *)d->ptr); break;
    case ARG_FLOAT:
        if (exact) print_exact(f, *(double *)d->ptr);
        else fprintf(f, "%g", *(double *)d->ptr);
        break;
    case ARG_STR: // an unset text flag prints nothing here (help gives it no default; the start check's record: "")
        if (!*(const char **)d->ptr) break;
        for (const char *c = *(const char **)d->ptr; *c; c++) // control characters escaped: "\n", not a line break
            if (*c == '\n') fprintf(f, "\\n");
            else if ((unsigned char)*c < 0x20) fprintf(f, "\\x%02x", (unsigned char)*c);
            else putc(*c, f);
        break;
    case ARG_FLAG: fprintf(f, *(int *)d->ptr ? "on" : "off"); break;
    }
}

// a help that states its default already ("(default: ...)", "default: ...") is not followed by a
// second one; nor is a required flag's, or a text flag's with no default value (nothing to print)
static int help_wants_default(const ArgDef *d) {
    if (strstr(d->help, "(default") || strstr(d->help, "default:") || strstr(d->help, "(required)")) return 0;
    return !(d->type == ARG_STR && !*(const char **)d->ptr);
}

void args_help(const ArgDef *defs, const char *cmd, const char *usage, int with_hypers) {
    printf("usage: posgpt %s %s\n\n", cmd, usage);
    for (const ArgDef *d = defs; d->name; d++) {
        if (!strncmp(d->help, "(internal)", 10)) continue; // for the tests; not a user's flag
        const char *meta = d->type == ARG_FLAG ? "" : d->type == ARG_STR ? " S" : d->type == ARG_FLOAT ? " X" : " N";
        printf("  --%s%s", d->name, meta);
        int w = (int)(strlen(d->name) + strlen(meta) + 4);
        printf("%*s%s", w < 26 ? 26 - w : 1, "", d->help);
        if (help_wants_default(d)) {
            printf(" (default: ");
            print_value(stdout, d, 0);
            printf(")");
        }
        printf("\n");
    }
    printf("  --help                  print this help\n");
    if (with_hypers) {
        printf("\nposition scheme hyperparameters (only with the scheme named):\n");
        for (int i = 0; i < pos_count(); i++) {
            const PosScheme *s = pos_at(i);
            for (int k = 0; k < POS_MAX_HYPER && s->hypers[k].name; k++) {
                int w = (int)strlen(s->hypers[k].name) + 6;
                printf("  --%s %c%*s[%s] %s (default: %g)\n", s->hypers[k].name, s->hypers[k].integer ? 'N' : 'X', w < 26 ? 26 - w : 1, "", s->name,
                       s->hypers[k].help, s->hypers[k].def);
            }
        }
    }
}

static double parse_number(const char *flag, const char *v, int integer) {
    if (!v || !*v) die("--%s needs a value", flag);
    char *end;
    errno = 0;
    double x = integer ? (double)strtoll(v, &end, 10) : strtod(v, &end);
    if (end == v || *end || errno) die("--%s: '%s' is not a valid %s", flag, v, integer ? "integer" : "number");
    if (!isfinite(x)) die("--%s: '%s' is not a finite number", flag, v);
    return x;
}

// the flags of the last args_parse that were on the command line (for args_given)
static const char *g_given[256]; // their names (string literals: they outlive the flag table)
static int g_ngiven;

int args_given(const char *name) {
    for (int i = 0; i < g_ngiven; i++)
        if (!strcmp(g_given[i], name)) return 1;
    return 0;
}

// the first scheme in the registry with a hyperparameter of this name (pos_count(): none)
static int first_scheme_with(const char *name) {
    int i = 0;
    while (i < pos_count() && pos_hyper_index(pos_at(i), name) < 0) i++;
    return i;
}

// every flag's value after the last args_parse (given or default), then the scheme flags
// (with hyp)
static char *g_values;
static void record_values(const ArgDef *defs, const HyperArgs *hyp) {
    size_t n = 0;
    free(g_values), g_values = NULL;
    FILE *f = open_memstream(&g_values, &n);
    if (!f) die("out of memory");
    for (const ArgDef *d = defs; d->name; d++) {
        fprintf(f, "--%s = ", d->name);
        print_value(f, d, 1);
        putc('\n', f);
    }
    for (int i = 0; hyp && i < pos_count(); i++) // in the registry's order, each name once: its last value or default
        for (int k = 0; k < POS_MAX_HYPER && pos_at(i)->hypers[k].name; k++) {
            const char *h = pos_at(i)->hypers[k].name;
            float v = pos_at(i)->hypers[k].def;
            for (int j = 0; j < hyp->n; j++)
                if (strlen(h) == strcspn(hyp->name[j], "=") && !strncmp(hyp->name[j], h, strlen(h))) v = hyp->value[j];
            if (first_scheme_with(h) == i) fprintf(f, "--%s = %.9g\n", h, v);
        }
    if (fclose(f) != 0) die("out of memory");
}

int args_parse(int argc, char **argv, int first, const ArgDef *defs, HyperArgs *hyp, const char *cmd,
               const char *usage, const char **pos_args, int max_pos) {
    int npos = 0;
    g_ngiven = 0;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            args_help(defs, cmd, usage, hyp != NULL);
            exit(0);
        }
        if (strncmp(a, "--", 2) != 0) {
            if (npos >= max_pos) die("%s: unexpected argument '%s' (see posgpt %s --help)", cmd, a, cmd);
            pos_args[npos++] = a;
            continue;
        }
        char name[128];
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (len >= sizeof name) die("%s: flag too long: %s", cmd, a);
        memcpy(name, a + 2, len);
        name[len] = 0;
        const ArgDef *d = defs;
        while (d->name && strcmp(d->name, name)) d++;
        const char *val = NULL;
        if (d->name && g_ngiven < 256) g_given[g_ngiven++] = d->name;
        if (d->name && d->type == ARG_FLAG) {
            if (eq) die("%s: --%s takes no value", cmd, name);
            *(int *)d->ptr = 1;
            continue;
        }
        if (!d->name && !(hyp && first_scheme_with(name) < pos_count())) // (unknown wherever it stands, the last word too)
            die("%s: unknown flag --%s (see posgpt %s --help)", cmd, name, cmd);
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else die("%s: --%s needs a value", cmd, name);
        if (!eq && d->name && d->type == ARG_STR && !strncmp(val, "--", 2) && val[2]) // "--out --help": a forgotten value
            die("%s: --%s needs a value, and the next word '%s' is a flag; a file whose name starts with -- is ./%s", cmd, name, val, val);
        if (!d->name) {
            if (hyp && first_scheme_with(name) < pos_count()) {
                if (hyp->n >= 32) die("%s: too many scheme flags", cmd);
                hyp->name[hyp->n] = argv[i - (eq ? 0 : 1)] + 2; // points at "name..." in argv; compared by length below
                hyp->value[hyp->n] = (float)parse_number(name, val, 0);
                hyp->n++;
                continue;
            }
            die("%s: unknown flag --%s (see posgpt %s --help)", cmd, name, cmd);
        }
        double x;
        switch (d->type) {
        case ARG_STR: *(const char **)d->ptr = val; break;
        case ARG_INT:
        case ARG_LONG:
            x = parse_number(name, val, 1);
            if (d->lo <= d->hi && (x < d->lo || x > d->hi)) // (whole numbers: written whole, 1073741824 not 1.07374e+09)
                die("--%s must be in [%.0f, %.0f], got %s", name, d->lo, d->hi, val);
            if (d->type == ARG_INT) {
                if (x < INT_MIN || x > INT_MAX) die("--%s: %s is out of range", name, val);
                *(int *)d->ptr = (int)x;
            } else *(long *)d->ptr = (long)x;
            break;
        case ARG_FLOAT:
            x = parse_number(name, val, 0);
            if (d->lo <= d->hi && (x < d->lo || x > d->hi)) die("--%s must be in [%g, %g], got %s", name, d->lo, d->hi, val);
            *(double *)d->ptr = x;
            break;
        case ARG_FLAG: break;
        }
    }
    record_values(defs, hyp);
    return npos;
}

const char *args_values(const char *skip) {
    static char *out;
    const char *v = g_values ? g_values : "";
    char words[600], name[132];
    snprintf(words, sizeof words, " %s ", skip ? skip : "");
    free(out);
    char *o = out = xmalloc(strlen(v) + 1);
    for (const char *l = v; *l; l += strcspn(l, "\n") + 1) { // lines "--name = value\n"
        snprintf(name, sizeof name, " %.*s ", (int)strcspn(l + 2, " "), l + 2);
        if (strstr(words, name)) continue;
        size_t n = strcspn(l, "\n") + 1;
        memcpy(o, l, n), o += n;
    }
    *o = 0;
    return out;
}

void args_apply_hypers(const HyperArgs *hyp, const PosScheme *s, float *hp) {
    for (int i = 0; i < hyp->n; i++) {
        char name[128];
        const char *a = hyp->name[i];
        size_t len = strcspn(a, "=");
        if (len >= sizeof name) len = sizeof name - 1;
        memcpy(name, a, len);
        name[len] = 0;
        int k = pos_hyper_index(s, name);
        if (k < 0) die("--%s is a hyperparameter of another position scheme, not of '%s'", name, s->name);
        hp[k] = hyp->value[i];
    }
}
