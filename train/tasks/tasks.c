// tasks.c - the task generators and the task file reader. See tasks.h and docs/tasks.md.
#include "tasks.h"

#include "fileio.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
static void make_copy(char *b, size_t cap, int n, double d, int f, Rng *r) { (void)d, (void)f, make_letters(b, cap, n, r, 0); }
static void make_reverse(char *b, size_t cap, int n, double d, int f, Rng *r) { (void)d, (void)f, make_letters(b, cap, n, r, 1); }
static void make_sort(char *b, size_t cap, int n, double d, int f, Rng *r) { (void)d, (void)f, make_letters(b, cap, n, r, 2); }

static void put_reversed(Out *o, const char *s, int n) {
    for (int i = n - 1; i >= 0; i--) putc_(o, s[i]);
}

// two n-digit numbers (no leading zero unless n = 1) and their sum: every number most
// significant digit first (msb), or least significant first (lsb: the operands and the sum
// written backwards, so each digit of the sum follows the ones it depends on)
static void make_add(char *buf, size_t cap, int n, double depth, int format, Rng *rng) {
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
    if (format == TASK_FMT_LSB) {
        put_reversed(&o, a, n), putc_(&o, '+'), put_reversed(&o, b, n), putc_(&o, TASK_SEP), put(&o, s, (size_t)k);
    } else {
        put(&o, a, (size_t)n), putc_(&o, '+'), put(&o, b, (size_t)n), putc_(&o, TASK_SEP), put_reversed(&o, s, k);
    }
    putc_(&o, TASK_END);
}

// n digits below base and their sum mod base (sum: base 10; parity: base 2, the parity of n
// bits); scratch: the running sums mod base first, one a digit, then '=' and the answer
static void make_digits(char *buf, size_t cap, int n, int format, Rng *rng, int base) {
    Out o = {buf, 0, cap};
    char run[60001];
    int t = 0;
    for (int i = 0; i < n; i++) {
        int d = (int)rng_below(rng, (uint64_t)base);
        t = (t + d) % base, run[i] = (char)('0' + t), putc_(&o, (char)('0' + d));
    }
    putc_(&o, TASK_SEP);
    if (format == TASK_FMT_SCRATCH) put(&o, run, (size_t)n), putc_(&o, TASK_SCRATCH_END);
    putc_(&o, (char)('0' + t)), putc_(&o, TASK_END);
}
static void make_sum(char *b, size_t cap, int n, double d, int f, Rng *r) { (void)d, make_digits(b, cap, n, f, r, 10); }
static void make_parity(char *b, size_t cap, int n, double d, int f, Rng *r) { (void)d, make_digits(b, cap, n, f, r, 2); }

// Passkey retrieval (Mohtashami & Jaggi 2023): n filler sentences, the key stated after
// round(depth n) of them, then the question; the answer is the 5-digit key
static const char *const FILLER[] = {"The grass is green. ", "The sky is blue. ", "The sun is yellow. ", "Here we go. ",
                                     "There and back again. "};
static void make_passkey(char *buf, size_t cap, int n, double depth, int format, Rng *rng) {
    (void)format;
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

// ---- answers from prompts (Task.solve): what make writes after each prompt ----
static int solve_letters(const char *p, int m, int n, char *out, size_t cap, int how) {
    if (m != n || (size_t)n + 2 > cap) return -1;
    for (int i = 0; i < n; i++)
        if (p[i] < 'a' || p[i] > 'j') return -1;
    memcpy(out, p, (size_t)n);
    if (how == 1)
        for (int i = 0, j = n - 1; i < j; i++, j--) { char t = out[i]; out[i] = out[j], out[j] = t; }
    if (how == 2) qsort(out, (size_t)n, 1, cmp_char);
    out[n] = TASK_END, out[n + 1] = 0;
    return n + 1;
}
static int solve_copy(const char *p, int m, int n, int f, char *o, size_t c) { return (void)f, solve_letters(p, m, n, o, c, 0); }
static int solve_reverse(const char *p, int m, int n, int f, char *o, size_t c) { return (void)f, solve_letters(p, m, n, o, c, 1); }
static int solve_sort(const char *p, int m, int n, int f, char *o, size_t c) { return (void)f, solve_letters(p, m, n, o, c, 2); }

// digit i of an n-digit operand written at q, most significant first (lsb: written backwards)
static int operand_digit(const char *q, int n, int i, int lsb) { return q[lsb ? n - 1 - i : i] - '0'; }

static int solve_add(const char *p, int m, int n, int format, char *out, size_t cap) {
    if (m != 2 * n + 1 || p[n] != '+' || (size_t)n + 3 > cap) return -1;
    for (int i = 0; i < m; i++)
        if (i != n && (p[i] < '0' || p[i] > '9')) return -1;
    int lsb = format == TASK_FMT_LSB, carry = 0, k = 0;
    char s[1026];
    for (int i = n - 1; i >= 0; i--) { // as make_add: the sum's digits, least significant first
        int d = operand_digit(p, n, i, lsb) + operand_digit(p + n + 1, n, i, lsb) + carry;
        s[k++] = (char)('0' + d % 10), carry = d / 10;
    }
    if (carry) s[k++] = '1';
    for (int i = 0; i < k; i++) out[i] = lsb ? s[i] : s[k - 1 - i];
    out[k] = TASK_END, out[k + 1] = 0;
    return k + 1;
}

static int solve_digits(const char *p, int m, int n, int format, char *out, size_t cap, int base) {
    if (m != n || (size_t)2 * n + 3 > cap) return -1;
    int t = 0, k = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] >= '0' + base) return -1;
        t = (t + p[i] - '0') % base;
        if (format == TASK_FMT_SCRATCH) out[k++] = (char)('0' + t);
    }
    if (format == TASK_FMT_SCRATCH) out[k++] = TASK_SCRATCH_END;
    out[k++] = (char)('0' + t), out[k++] = TASK_END, out[k] = 0;
    return k;
}
static int solve_sum(const char *p, int m, int n, int f, char *o, size_t c) { return solve_digits(p, m, n, f, o, c, 10); }
static int solve_parity(const char *p, int m, int n, int f, char *o, size_t c) { return solve_digits(p, m, n, f, o, c, 2); }

// the key stated in the prompt (once, five digits, the first not 0) is the answer
static int solve_passkey(const char *p, int m, int n, int format, char *out, size_t cap) {
    (void)n, (void)format;
    static const char lead[] = "The pass key is ";
    const char *q = NULL;
    for (const char *r = p; r + sizeof lead - 1 + 5 <= p + m; r++)
        if (!memcmp(r, lead, sizeof lead - 1)) { // (the closing "... The pass key is" has no blank after it)
            if (q) return -1;
            q = r + sizeof lead - 1;
        }
    if (!q || cap < 7 || *q < '1' || *q > '9') return -1;
    for (int i = 0; i < 5; i++)
        if (q[i] < '0' || q[i] > '9') return -1;
    memcpy(out, q, 5), out[5] = TASK_END, out[6] = 0;
    return 6;
}

// the longest example at length n in a format: "PROMPT>ANSWER;"
static int passkey_bytes(int n, int f) {
    (void)f;
    int b = (int)(strlen("The pass key is ") + 5 + strlen(". Remember it. ") + strlen("What is the pass key? The pass key is") + 7);
    for (int i = 0; i < n; i++) b += (int)strlen(FILLER[i % 5]);
    return b;
}
static int letters_bytes(int n, int f) { return (void)f, 2 * n + 2; }
static int add_bytes(int n, int f) { return (void)f, 2 * n + 2 + (n + 1) + 1; } // "A+B>", a carry's extra digit, ";"
static int digits_bytes(int n, int f) { return n + 3 + (f == TASK_FMT_SCRATCH ? n + 1 : 0); } // scratch: n running sums, '='

#define PLAIN (1 << TASK_FMT_PLAIN)
static const Task TASKS[] = {
    {"copy", "repeat n letters", 1000, make_copy, letters_bytes, PLAIN, solve_copy},
    {"reverse", "n letters in reverse order", 1000, make_reverse, letters_bytes, PLAIN, solve_reverse},
    {"sort", "n letters in ascending order", 1000, make_sort, letters_bytes, PLAIN, solve_sort},
    {"add", "the sum of two n-digit numbers", 1000, make_add, add_bytes, 1 << TASK_FMT_MSB | 1 << TASK_FMT_LSB, solve_add},
    {"sum", "the sum of n digits mod 10", 60000, make_sum, digits_bytes, PLAIN | 1 << TASK_FMT_SCRATCH, solve_sum},
    {"parity", "the parity of n bits", 60000, make_parity, digits_bytes, PLAIN | 1 << TASK_FMT_SCRATCH, solve_parity},
    {"passkey", "a 5-digit key hidden among n filler sentences", 2000, make_passkey, passkey_bytes, PLAIN, solve_passkey},
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

static const char *const FORMATS[TASK_NFMT] = {"plain", "msb", "lsb", "scratch"};
int task_format_default(const Task *t) {
    int f = 0;
    while (!(t->formats >> f & 1)) f++;
    return f;
}
const char *task_format_name(int f) { return f >= 0 && f < TASK_NFMT ? FORMATS[f] : "?"; }
int task_format_find(const Task *t, const char *name) {
    for (int f = 0; f < TASK_NFMT; f++)
        if (t->formats >> f & 1 && !strcmp(name, FORMATS[f])) return f;
    return -1;
}
const char *task_formats(const Task *t) {
    static char buf[64];
    buf[0] = 0;
    for (int f = 0; f < TASK_NFMT; f++)
        if (t->formats >> f & 1) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? "|" : "", FORMATS[f]);
    return buf;
}

// ---- the task file reader: every field checked, every refusal names the file and line ----
#define TASK_FORMAT "each line is \"N<tab>DEPTH<tab>PROMPT>ANSWER;\" (posgpt task gen writes them)"

// the file is freed before the message (no read is left half-done), which names file and line
static POSGPT_NORETURN POSGPT_PRINTF(4, 5) void refuse(TaskSet *s, const char *path, long line, const char *fmt, ...) {
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    taskset_free(s);
    die("task file '%s' line %ld: %s", path, line, msg);
}

// bytes [p, e) as they can be shown in a message: at most 24, others as \xNN, a cut marked "..."
static const char *shown(const char *p, const char *e, char *buf, size_t cap) {
    size_t k = 0;
    for (const char *q = p; q < e && k + 8 < cap; q++) {
        unsigned char c = (unsigned char)*q;
        if (q - p == 24) { k += (size_t)snprintf(buf + k, cap - k, "..."); break; }
        k += (size_t)(c >= 32 && c < 127 && c != '\'' ? snprintf(buf + k, cap - k, "%c", c) : snprintf(buf + k, cap - k, "\\x%02x", c));
    }
    buf[k] = 0;
    return buf;
}

// the field [p, e) as a whole number in lo..hi (decimal digits only: no sign, space or
// exponent; never wraps), or -1
static long field_num(const char *p, const char *e, long lo, long hi) {
    long v = 0;
    if (p == e) return -1;
    for (; p < e; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > hi) return -1;
    }
    return v < lo ? -1 : v;
}

// one line [p, e) (no newline) into x, or a refusal naming what is wrong with it
static void parse_line(TaskSet *s, const char *path, long line, char *p, char *e, TaskExample *x) {
    char b1[128];
    if (line == 1 && e - p >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        refuse(s, path, line, "starts with a UTF-8 byte order mark (EF BB BF); task files are plain bytes: remove it");
    if (e > p && e[-1] == '\r')
        refuse(s, path, line, "ends with a carriage return (CRLF line endings); task files end lines with LF only: convert it "
                              "(dos2unix, or tr -d '\\r')");
    if (p == e) refuse(s, path, line, "is blank; a task file has one example a line and no blank lines: remove it");
    char *t1 = memchr(p, '\t', (size_t)(e - p)), *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(e - t1 - 1)) : NULL;
    if (!t2) refuse(s, path, line, "has %s tab, found '%s'; " TASK_FORMAT, t1 ? "only one" : "no", shown(p, e, b1, sizeof b1));
    long len = field_num(p, t1, 1, TASK_MAX_LINE), dep = field_num(t1 + 1, t2, 0, 100);
    if (len < 0) refuse(s, path, line, "the length N is '%s', not a whole number from 1 to %d; " TASK_FORMAT, shown(p, t1, b1, sizeof b1), TASK_MAX_LINE);
    if (dep < 0) refuse(s, path, line, "the depth is '%s', not a whole number of percent from 0 to 100; " TASK_FORMAT, shown(t1 + 1, t2, b1, sizeof b1));
    char *body = t2 + 1, *sep = memchr(body, TASK_SEP, (size_t)(e - body));
    size_t blen = (size_t)(e - body);
    if (blen > TASK_MAX_LINE) refuse(s, path, line, "the example holds %zu bytes, more than the %d one may have", blen, TASK_MAX_LINE);
    if (memchr(body, '\t', blen)) refuse(s, path, line, "the example holds a tab (a fourth field?); " TASK_FORMAT);
    if (!sep) refuse(s, path, line, "no '%c' ends the prompt, found '%s'; " TASK_FORMAT, TASK_SEP, shown(body, e, b1, sizeof b1));
    char *ans = sep + 1;
    if (memchr(ans, TASK_SEP, (size_t)(e - ans))) refuse(s, path, line, "a second '%c' in the answer; " TASK_FORMAT, TASK_SEP);
    if (ans == e || e[-1] != TASK_END)
        refuse(s, path, line, "the answer '%s' does not end with '%c' (a cut line?); " TASK_FORMAT, shown(ans, e, b1, sizeof b1), TASK_END);
    if (ans + 1 == e) refuse(s, path, line, "the answer is empty (only '%c'); " TASK_FORMAT, TASK_END);
    if (memchr(ans, TASK_END, (size_t)(e - 1 - ans)))
        refuse(s, path, line, "the answer '%s' holds '%c' before its end (decoding stops at the first); " TASK_FORMAT,
               shown(ans, e, b1, sizeof b1), TASK_END);
    x->len = (int)len, x->depth_pct = (int)dep;
    x->prompt = body, x->nprompt = (int)(ans - body);
    x->answer = ans, x->nanswer = (int)(e - ans);
}

const char *task_meta(const char *text, const char *key, char *buf, size_t n) {
    size_t k = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, key, k) && !strncmp(p + k, " = ", 3)) {
            const char *v = p + k + 3, *e = strchr(v, '\n');
            snprintf(buf, n, "%.*s", (int)(e ? e - v : (long)strlen(v)), v);
            return buf;
        }
    return NULL;
}

// the description in the task.txt beside `path` into *spec; 0 when there is none (a task file
// on its own: nothing to check it against)
static int task_beside(const char *path, TaskSpec *spec) {
    char dir[4200];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    char desc_path[4300];
    snprintf(desc_path, sizeof desc_path, "%s/task.txt", dir);
    struct stat st;
    if (stat(desc_path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    task_spec_read(spec, dir);
    return 1;
}

// every example against the task.txt beside the file: its N against its prompt (the task's
// generator at length N makes a prompt of a fixed size: N letters and the '>' for copy, 2N + 2
// bytes for add, ...), its BOS byte, and its answer against the one the task gives that prompt
// (an edited or damaged answer would be scored as the truth)
static void check_examples(TaskSet *s, const char *path, const TaskSpec *spec) {
    const Task *t = spec->task;
    int *want = xcalloc((size_t)t->max_n + 1, sizeof(int));
    char *buf = xmalloc(TASK_MAX_LINE + 64);
    Rng rng;
    rng_seed(&rng, 1);
    char b1[128], b2[128];
    for (int i = 0; i < s->n; i++) {
        const TaskExample *x = &s->ex[i];
        if (x->len > t->max_n) {
            free(want), free(buf);
            refuse(s, path, i + 1, "the length N is %d, more than the %d that %s allows", x->len, t->max_n, t->name);
        }
        if (spec->bos && x->prompt[0] != TASK_BOS) {
            free(want), free(buf);
            refuse(s, path, i + 1, "the prompt '%s' does not start with the BOS byte '%c' that task.txt (bos = yes) gives "
                   "every example", shown(x->prompt, x->prompt + x->nprompt, b1, sizeof b1), TASK_BOS);
        }
        if (!want[x->len]) {
            task_make(spec, buf, TASK_MAX_LINE + 64, x->len, 0.5, &rng);
            want[x->len] = (int)(strchr(buf, TASK_SEP) + 1 - buf);
        }
        if (x->nprompt != want[x->len]) {
            int w = want[x->len];
            free(want), free(buf);
            refuse(s, path, i + 1, "the length N is %d, but the prompt holds %d bytes where a %s prompt of length %d holds %d: "
                   "N does not match the example (posgpt task gen writes them)", x->len, x->nprompt, t->name, x->len, w);
        }
        const char *p = x->prompt + spec->bos;
        int m = x->nprompt - spec->bos - 1;
        int k = t->solve(p, m, x->len, spec->format, buf, TASK_MAX_LINE + 64);
        if (k < 0 || k != x->nanswer || memcmp(buf, x->answer, (size_t)k)) {
            int bad = k < 0;
            shown(p, p + m, b1, sizeof b1);
            if (!bad) shown(buf, buf + k, b2, sizeof b2);
            free(want), free(buf);
            if (bad) refuse(s, path, i + 1, "the prompt '%s' is not one %s makes (a byte outside its symbols, or its shape)", b1, t->name);
            refuse(s, path, i + 1, "the answer '%s' is not the prompt's: %s gives '%s' (an edited or damaged line?)",
                   shown(x->answer, x->answer + x->nanswer, b1, sizeof b1), t->name, b2);
        }
    }
    free(want), free(buf);
}

void taskset_read(TaskSet *s, const char *path) {
    memset(s, 0, sizeof *s);
    size_t n;
    s->text = (char *)read_regular_file(path, "task file", TASK_MAX_FILE, &n);
    s->crc = crc32_update(0, s->text, n); // (before the lines are cut in place)
    char *nul = memchr(s->text, 0, n);
    if (nul) {
        long line = 1;
        for (char *q = s->text; q < nul; q++) line += *q == '\n';
        refuse(s, path, line, "holds a NUL byte; it is not a task file (posgpt task gen writes them)");
    }
    size_t lines = 1;
    for (size_t i = 0; i < n; i++) lines += s->text[i] == '\n';
    s->ex = xmalloc(lines * sizeof(TaskExample));
    long line = 0;
    for (char *p = s->text, *end = s->text + n; p < end;) {
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e) e = end; // a last line without a newline
        *e = 0;
        TaskExample *x = &s->ex[s->n];
        parse_line(s, path, ++line, p, e, x);
        s->n++;
        if (x->nprompt + x->nanswer > s->max_total) s->max_total = x->nprompt + x->nanswer;
        p = e + 1;
    }
    if (!s->n) {
        taskset_free(s);
        die("task file '%s' has no examples (posgpt task gen writes them)", path);
    }
    TaskSpec spec;
    if (task_beside(path, &spec)) check_examples(s, path, &spec);
}

void taskset_free(TaskSet *s) {
    free(s->text), free(s->ex);
    memset(s, 0, sizeof *s);
}

// ---- a task directory's description (task.txt: "key = value" lines) ----
void task_spec_read(TaskSpec *s, const char *dir) {
    char path[4200], v[256];
    snprintf(path, sizeof path, "%s/task.txt", dir);
    size_t n;
    char *text = (char *)read_regular_file(path, "task description", 1 << 20, &n);
    if (memchr(text, 0, n)) die("task description '%s' holds a NUL byte; it is not a task.txt (posgpt task gen writes them)", path);
    if (n >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        die("task description '%s' starts with a byte-order mark (EF BB BF); remove it (posgpt task gen writes none)", path);
    if (memchr(text, '\r', n))
        die("task description '%s' has CRLF line ends (a carriage return); convert it to LF (sed -i 's/\\r$//' FILE)", path);
    memset(s, 0, sizeof *s);
    if (!task_meta(text, "task", v, sizeof v))
        die("task description '%s': no 'task = ' line; posgpt task gen writes a 'task = NAME' line (%s)", path, task_names());
    if (!(s->task = task_find(v))) die("task description '%s': the task '%s' is unknown (one of %s)", path, v, task_names());
    long len = task_meta(text, "max_len", v, sizeof v) ? field_num(v, v + strlen(v), 1, s->task->max_n) : -1;
    if (len < 0)
        die("task description '%s': no 'max_len = L' line with L a whole number from 1 to %d (%s's longest); posgpt task gen "
            "writes one", path, s->task->max_n, s->task->name);
    s->max_len = (int)len;
    const char *bos = task_meta(text, "bos", v, sizeof v);
    if (bos && strcmp(bos, "yes") && strcmp(bos, "no")) die("task description '%s': bos = %s; it is yes or no", path, bos);
    s->bos = bos && !strcmp(bos, "yes");
    const char *split = task_meta(text, "split", v, sizeof v);
    if (split && strcmp(split, "hash") && strcmp(split, "none")) die("task description '%s': split = %s; it is hash or none", path, split);
    s->split = split && !strcmp(split, "hash");
    const char *fmt = task_meta(text, "format", v, sizeof v);
    s->format = fmt ? task_format_find(s->task, fmt) : task_format_default(s->task);
    if (s->format < 0) die("task description '%s': format = %s; %s takes %s", path, fmt, s->task->name, task_formats(s->task));
    free(text);
}

uint64_t task_example_hash(const char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    h ^= h >> 30, h *= 0xbf58476d1ce4e5b9ull; // splitmix64's finalizer
    h ^= h >> 27, h *= 0x94d049bb133111ebull;
    return h ^ h >> 31;
}

int task_class(const char *p, size_t n) {
    // the prompt's bytes, without the BOS byte and the answer: an example has one class with or
    // without the BOS byte and in a format that changes the answer only (scratch)
    size_t i = n && p[0] == TASK_BOS, e = i;
    while (e < n && p[e] != TASK_SEP) e++;
    unsigned k = (unsigned)(task_example_hash(p + i, e - i) >> 62); // 0..3
    return k == 0 ? TASK_CLASS_TEST : k == 1 ? TASK_CLASS_VAL : TASK_CLASS_TRAIN;
}

int task_make_class(const TaskSpec *s, char *buf, size_t cap, int n, double depth, int c, Rng *rng) {
    for (int i = 0; i < TASK_CLASS_TRIES; i++) {
        int b = task_make(s, buf, cap, n, depth, rng);
        if (task_class(buf, (size_t)b) == c) return b;
    }
    return -1;
}

int task_make(const TaskSpec *s, char *buf, size_t cap, int n, double depth, Rng *rng) {
    if (s->bos) buf[0] = TASK_BOS;
    s->task->make(buf + s->bos, cap - (size_t)s->bos, n, depth, s->format, rng);
    return (int)strlen(buf);
}

int task_max_bytes(const TaskSpec *s) { return s->bos + s->task->bytes(s->max_len, s->format); }
