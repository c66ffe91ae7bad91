// test_fuzz_tasks.c - a seeded mutation fuzzer for the task file reader (taskset_read, what
// `task eval` and `train --task` read). Seeds are valid task files (several tasks' lines, a
// passkey line with a depth); each input is a seed with damage: bytes flipped, the length or
// depth replaced by a hostile value ("2147483648", "4294967297", "-1", "1e3", 20 digits, ...),
// CR, BOM, NUL, tab, '>' and ';' inserted, separators deleted, lines dropped, duplicated or
// made overlong (past TASK_MAX_LINE), truncation. Each input is read in a forked child
// (fuzz_run.h: batches of 64 a child, any failing batch replayed one input a child) with a
// limit of 10 s of CPU time: it must be read or refused, never crash, hang or trip a
// sanitizer. A file that is read must hold what the reader promises (every example split at
// its '>', the answer ending with ';', length 1..TASK_MAX_LINE, depth 0..100); a refusal must
// be one line naming the file ("task file '<path>'"), and the line where the file has one.
//   build/tests/test_fuzz_tasks [iterations] [seed] [first]   (default 600; make fuzz: 100000)
// Inputs before `first` are generated (same sequence) but not run, to replay a stretch.
// Do not run it under a tracer (LeakSanitizer cannot work under ptrace).
#include "check.h"
#include "tasks.h"

#include "fuzz_run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *SEED =
    "3\t0\tabc>abc;\n"
    "2\t0\t47+58>105;\n"
    "5\t0\t01101>1;\n"
    "1\t0\tj>j;\n"
    "2\t50\tThe grass is green. The pass key is 12345. Remember it. The sky is blue. What is the pass key? The pass key is>12345;\n"
    "4\t0\tdcba>abcd;\n";
static const char *HOSTILE[] = {"2147483648", "4294967297", "-1", "0", "-0", "+3", " 3", "3 ", "1e3", "0x10", "", "65536", "65537",
                                "99999999999999999999", "101", "100", "007", "9223372036854775808", ("\xEF\xBB\xBF" "3"), "3\r"}; // (a BOM then 3: split, or \xBF3 would be one escape)
#define NHOST (sizeof HOSTILE / sizeof HOSTILE[0])

// the start of line l (0-based; the end if there are fewer lines)
static size_t line_at(const Str *s, int l) {
    size_t i = 0;
    for (int k = 0; k < l && i < s->n; i++)
        if (s->b[i] == '\n') k++;
    return i;
}

static Str mutate(Rng *r) {
    Str s = {0};
    put(&s, SEED, strlen(SEED));
    int rounds = 1 + (int)rng_below(r, 3);
    for (int k = 0; k < rounds && s.n; k++) {
        size_t at = rng_below(r, s.n + 1);
        switch (rng_below(r, 8)) {
        case 0: case 1: { // a hostile length or depth (field 0 or 1 of a line)
            size_t i = line_at(&s, (int)rng_below(r, 7)), j;
            if (rng_below(r, 2)) {
                for (j = i; j < s.n && s.b[j] != '\t' && s.b[j] != '\n';) j++;
                if (j < s.n && s.b[j] == '\t') i = j + 1;
            }
            for (j = i; j < s.n && s.b[j] != '\t' && s.b[j] != '\n';) j++;
            const char *v = HOSTILE[rng_below(r, NHOST)];
            splice(&s, i, j - i, v, strlen(v));
            break;
        }
        case 2: // flip bits
            for (int i = 0, n = 1 + (int)rng_below(r, 4); i < n; i++) s.b[rng_below(r, s.n)] ^= (char)(1 << rng_below(r, 8));
            break;
        case 3: { // insert a byte the format gives a meaning to
            const char ins[] = {'\t', '\n', '\0', '\r', '>', ';', ' ', '\xEF'};
            splice(&s, at, 0, &ins[rng_below(r, sizeof ins)], 1);
            break;
        }
        case 4: // truncate
            s.n = rng_below(r, s.n + 1);
            s.b[s.n] = 0;
            break;
        case 5: // delete a byte (a separator, often)
            if (at < s.n) splice(&s, at, 1, "", 0);
            break;
        case 6: { // an overlong prompt: TASK_MAX_LINE - 8 .. + 8 bytes
            size_t len = TASK_MAX_LINE - 8 + rng_below(r, 17);
            char *pad = malloc(len);
            memset(pad, 'a', len);
            size_t i = line_at(&s, (int)rng_below(r, 6)) + 2; // into the line's example, mostly
            splice(&s, i < s.n ? i : s.n, 0, pad, len);
            free(pad);
            break;
        }
        default: { // duplicate the text from a random point, or a BOM / CRLF at the start
            static const char *heads[] = {"\xEF\xBB\xBF", "\r\n", "\n"};
            const char *h = heads[rng_below(r, 3)];
            if (rng_below(r, 2)) splice(&s, 0, 0, h, strlen(h));
            else splice(&s, s.n, 0, s.b + at, s.n - at); // (splice copies into a new buffer)
        }
        }
    }
    return s;
}

// a file read: every example as the reader promises, or exit 3 (a failure)
static int read_file(const char *path) {
    TaskSet s;
    taskset_read(&s, path);
    int bad = s.n < 1;
    for (int i = 0; i < s.n; i++) {
        const TaskExample *x = &s.ex[i];
        bad |= x->len < 1 || x->len > TASK_MAX_LINE || x->depth_pct < 0 || x->depth_pct > 100 || x->nprompt < 1 || x->nanswer < 2 ||
               x->prompt[x->nprompt - 1] != TASK_SEP || x->answer[x->nanswer - 1] != TASK_END ||
               x->nprompt + x->nanswer > s.max_total || memchr(x->answer, TASK_SEP, (size_t)x->nanswer) ||
               memchr(x->answer, TASK_END, (size_t)x->nanswer - 1) || memchr(x->prompt, '\t', (size_t)x->nprompt);
    }
    taskset_free(&s);
    return bad ? 3 : 0;
}

// every refusal is one line that names the file (and a line, unless the file has no examples)
static int refusal_ok(const char *path, const FuzzInput *in) {
    char err[300], msg[4096] = "";
    snprintf(err, sizeof err, "%s.err", path);
    fflush(stdout), fflush(stderr);
    pid_t pid = fuzz_fork();
    if (pid == 0) {
        if (!freopen(err, "w", stderr)) _exit(2);
        fuzz_write(path, in, 1);
        exit(read_file(path));
    }
    int st = fuzz_wait(pid);
    FILE *f = fopen(err, "r");
    size_t n = f ? fread(msg, 1, sizeof msg - 1, f) : 0;
    if (f) fclose(f);
    remove(err);
    msg[n] = 0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) == 3) return 0;
    if (WEXITSTATUS(st) == 0) return 1;
    char want[300];
    snprintf(want, sizeof want, "posgpt: error: task file '%s' line ", path);
    int lines = 0;
    for (char *p = msg; *p; p++) lines += *p == '\n';
    char none[300];
    snprintf(none, sizeof none, "posgpt: error: task file '%s' has no examples", path);
    return lines == 1 && (!strncmp(msg, want, strlen(want)) || !strncmp(msg, none, strlen(none)));
}

int main(int argc, char **argv) {
    long iters = argc > 1 ? atol(argv[1]) : 600;
    Rng r;
    rng_seed(&r, argc > 2 ? (uint64_t)atoll(argv[2]) : 1);
    char path[64];
    snprintf(path, sizeof path, "/tmp/posgpt-fuzztasks-%d.txt", (int)getpid());
    enum { BATCH = 64 };
    FuzzInput in[BATCH];
    FuzzTally t = {0};
    long first = argc > 3 ? atol(argv[3]) : 0, badmsg = 0, checked = 0;
    int n = 0;
    for (long it = 0; it < iters; it++) {
        Str s = mutate(&r);
        if (it < first) { free(s.b); continue; }
        in[n++] = (FuzzInput){(uint8_t *)s.b, s.b ? s.n : 0};
        if (n == BATCH || it == iters - 1) {
            fuzz_batch(read_file, path, "/tmp/posgpt-fuzztasks-crash-", ".txt", in, n, it + 1 - n, &t);
            // the messages: the first 4 batches' inputs and every 64th batch's, one a child (the batch runs quiet)
            for (int j = 0; j < n && (t.batches <= 4 || t.batches % 64 == 0); j++, checked++)
                if (!refusal_ok(path, &in[j]) && badmsg++ < 5) printf("# input %ld: a refusal that names no file and line, or a wrong read\n", it + 1 - n + j);
            for (int j = 0; j < n; j++) free(in[j].b);
            n = 0;
        }
    }
    remove(path);
    char name[300];
    snprintf(name, sizeof name, "fuzz task files: %ld damaged files (inputs %ld..%ld), %ld read, %ld refused with an error, no crash or hang "
             "(%ld batches, %ld replayed one input a child)", iters - first, first, iters - 1, t.drawn, t.refused, t.batches, t.replayed);
    check(t.failed == 0 && t.drawn + t.refused == iters - first, name, "%ld inputs crashed, hung, tripped a sanitizer or read wrong", t.failed);
    snprintf(name, sizeof name, "fuzz task files: %ld inputs' refusals are one line naming the file and line, their reads as promised",
             checked);
    check(checked > 0 && badmsg == 0, name, "%ld of %ld did not", badmsg, checked);
    return check_done();
}
