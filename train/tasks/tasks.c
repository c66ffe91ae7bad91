// tasks.c - the task generators and the task file reader. See tasks.h and docs/tasks.md.
#include "tasks.h"

#include "fileio.h"

#include <stdlib.h>
#include <string.h>

// appends to a bounded buffer; the generators size their output, so running out is a bug
typedef struct {
    char *b;
    size_t n, cap;
} Out;

static void put(Out *o, const char *s, size_t n) {
    if (o->n + n + 1 > o->cap) die("internal: task example longer than %zu bytes", o->cap);
    memcpy(o->b + o->n, s, n), o->n += n, o->b[o->n] = 0;
}
static void putc_(Out *o, char c) { put(o, &c, 1); }
static void puts_(Out *o, const char *s) { put(o, s, strlen(s)); }

static void letters(char *s, int n, Rng *rng) {
    for (int i = 0; i < n; i++) s[i] = (char)('a' + rng_below(rng, 10));
}

static int cmp_char(const void *a, const void *b) { return *(const char *)a - *(const char *)b; }

// copy, reverse, sort: n letters, then the answer made from them
static void make_letters(char *buf, size_t cap, int n, Rng *rng, int how) {
    Out o = {buf, 0, cap};
    char s[1024];
    letters(s, n, rng);
    put(&o, s, (size_t)n), putc_(&o, TASK_SEP);
    if (how == 1)
        for (int i = 0, j = n - 1; i < j; i++, j--) { char t = s[i]; s[i] = s[j], s[j] = t; }
    if (how == 2) qsort(s, (size_t)n, 1, cmp_char);
    put(&o, s, (size_t)n), putc_(&o, TASK_END);
}
static void make_copy(char *b, size_t cap, int n, double d, Rng *r) { (void)d, make_letters(b, cap, n, r, 0); }
static void make_reverse(char *b, size_t cap, int n, double d, Rng *r) { (void)d, make_letters(b, cap, n, r, 1); }
static void make_sort(char *b, size_t cap, int n, double d, Rng *r) { (void)d, make_letters(b, cap, n, r, 2); }

// two n-digit numbers (no leading zero unless n = 1) and their sum, most significant first
static void make_add(char *buf, size_t cap, int n, double depth, Rng *rng) {
    (void)depth;
    Out o = {buf, 0, cap};
    char a[1024] = {0}, b[1024] = {0}, s[1026]; // zeroed: quiets -Wmaybe-uninitialized (n >= 1 always)
    for (int i = 0; i < n; i++) {
        a[i] = (char)('0' + (i == 0 && n > 1 ? 1 + rng_below(rng, 9) : rng_below(rng, 10)));
        b[i] = (char)('0' + (i == 0 && n > 1 ? 1 + rng_below(rng, 9) : rng_below(rng, 10)));
    }
    int carry = 0, k = 0;
    for (int i = n - 1; i >= 0; i--) { // digits of the sum, least significant first
        int d = (a[i] - '0') + (b[i] - '0') + carry;
        s[k++] = (char)('0' + d % 10), carry = d / 10;
    }
    if (carry) s[k++] = '1';
    put(&o, a, (size_t)n), putc_(&o, '+'), put(&o, b, (size_t)n), putc_(&o, TASK_SEP);
    for (int i = k - 1; i >= 0; i--) putc_(&o, s[i]);
    putc_(&o, TASK_END);
}

// n digits and their sum mod 10
static void make_sum(char *buf, size_t cap, int n, double depth, Rng *rng) {
    (void)depth;
    Out o = {buf, 0, cap};
    int t = 0;
    for (int i = 0; i < n; i++) {
        int d = (int)rng_below(rng, 10);
        t += d, putc_(&o, (char)('0' + d));
    }
    putc_(&o, TASK_SEP), putc_(&o, (char)('0' + t % 10)), putc_(&o, TASK_END);
}

// n bits and their parity
static void make_parity(char *buf, size_t cap, int n, double depth, Rng *rng) {
    (void)depth;
    Out o = {buf, 0, cap};
    int t = 0;
    for (int i = 0; i < n; i++) {
        int d = (int)rng_below(rng, 2);
        t ^= d, putc_(&o, (char)('0' + d));
    }
    putc_(&o, TASK_SEP), putc_(&o, (char)('0' + t)), putc_(&o, TASK_END);
}

// Passkey retrieval (Mohtashami & Jaggi 2023): n filler sentences, the key stated after
// round(depth n) of them, then the question; the answer is the 5-digit key
static const char *const FILLER[] = {"The grass is green. ", "The sky is blue. ", "The sun is yellow. ", "Here we go. ",
                                     "There and back again. "};
static void make_passkey(char *buf, size_t cap, int n, double depth, Rng *rng) {
    Out o = {buf, 0, cap};
    char key[6];
    for (int i = 0; i < 5; i++) key[i] = (char)('0' + (i == 0 ? 1 + rng_below(rng, 9) : rng_below(rng, 10)));
    key[5] = 0;
    int at = (int)(depth * n + 0.5);
    for (int i = 0; i <= n; i++) {
        if (i == at) puts_(&o, "The pass key is "), puts_(&o, key), puts_(&o, ". Remember it. ");
        if (i < n) puts_(&o, FILLER[i % 5]);
    }
    puts_(&o, "What is the pass key? The pass key is"), putc_(&o, TASK_SEP), puts_(&o, key), putc_(&o, TASK_END);
}

static const Task TASKS[] = {
    {"copy", "repeat n letters", 1000, make_copy},
    {"reverse", "n letters in reverse order", 1000, make_reverse},
    {"sort", "n letters in ascending order", 1000, make_sort},
    {"add", "the sum of two n-digit numbers", 1000, make_add},
    {"sum", "the sum of n digits mod 10", 60000, make_sum},
    {"parity", "the parity of n bits", 60000, make_parity},
    {"passkey", "a 5-digit key hidden among n filler sentences", 2000, make_passkey},
};
#define NTASKS ((int)(sizeof TASKS / sizeof TASKS[0]))

int task_count(void) { return NTASKS; }
const Task *task_at(int i) { return i >= 0 && i < NTASKS ? &TASKS[i] : NULL; }
const Task *task_find(const char *name) {
    for (int i = 0; i < NTASKS; i++)
        if (!strcmp(TASKS[i].name, name)) return &TASKS[i];
    return NULL;
}
const char *task_names(void) {
    static char buf[128];
    if (!buf[0])
        for (int i = 0; i < NTASKS; i++) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? "|" : "", TASKS[i].name);
    return buf;
}

void taskset_read(TaskSet *s, const char *path) {
    memset(s, 0, sizeof *s);
    size_t n;
    s->text = (char *)read_regular_file(path, "task file", (size_t)1 << 30, &n);
    if (memchr(s->text, 0, n)) die("task file '%s' holds NUL bytes; it is not a task file (posgpt task gen)", path);
    size_t lines = 1;
    for (size_t i = 0; i < n; i++) lines += s->text[i] == '\n';
    s->ex = xmalloc(lines * sizeof(TaskExample));
    int lineno = 0;
    for (char *p = s->text, *e; p && *p; p = e ? e + 1 : NULL) {
        e = strchr(p, '\n');
        if (e) *e = 0;
        lineno++;
        if (!*p) continue;
        char *t1 = strchr(p, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        char *end;
        long len = strtol(p, &end, 10), dep = t1 ? strtol(t1 + 1, &end, 10) : -1;
        char *body = t2 ? t2 + 1 : NULL, *sep = body ? strchr(body, TASK_SEP) : NULL;
        size_t blen = body ? strlen(body) : 0;
        if (!t2 || len < 1 || dep < 0 || dep > 100 || !sep || blen < 2 || body[blen - 1] != TASK_END || strchr(sep + 1, TASK_SEP) ||
            sep + 1 >= body + blen - 1 || blen > TASK_MAX_LINE)
            die("task file '%s' line %d is not \"N<tab>DEPTH<tab>PROMPT>ANSWER;\" (see posgpt task gen)", path, lineno);
        TaskExample *x = &s->ex[s->n++];
        x->len = (int)len, x->depth_pct = (int)dep;
        x->prompt = body, x->nprompt = (int)(sep - body) + 1;
        x->answer = sep + 1, x->nanswer = (int)(body + blen - (sep + 1));
        if (x->nprompt + x->nanswer > s->max_total) s->max_total = x->nprompt + x->nanswer;
    }
    if (!s->n) die("task file '%s' has no examples", path);
}

void taskset_free(TaskSet *s) {
    free(s->text), free(s->ex);
    memset(s, 0, sizeof *s);
}
