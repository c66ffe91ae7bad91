// fuzz_run.h - how the plot and task file fuzzers (test_fuzz_csv.c, test_fuzz_font.c,
// test_fuzz_tasks.c) run their inputs.
//
// Each input is run in a forked child that must exit 0 (drawn) or 1 (a one-line error), never
// crash, hang or trip a sanitizer. Forking one child per input is exact but slow under the
// sanitizers (LeakSanitizer's check at exit costs about 50 ms a process here), so inputs go in
// batches of 64:
//   1. one child runs the batch in turn under ASan+UBSan; a refusal (die) jumps back to its
//      loop through die_hook instead of exiting; each input gets 10 s of CPU time
//      (ITIMER_PROF); the child leaves with _exit, without a leak check (the allocations a
//      refusal abandons would read as leaks, which they are not in a process that exits);
//   2. a second child runs again the inputs that drew, then exits normally: LeakSanitizer
//      checks all of them at once;
//   3. a batch where either child ends any other way (a signal, a sanitizer's exit code, a
//      leak, a time limit, an input that neither drew nor died, or an input that drew once and
//      died the second time) is replayed one input per child, each ending exactly as the command
//      does (die -> exit(1) with the leak check) under RLIMIT_CPU of 10 s. So is every 16th batch,
//      so that refusals too get the leak check of a real exit. Only a replay decides which
//      inputs failed.
// Batching can cost a replay but cannot hide a crash, a sanitizer report or a hang; the one
// thing it skips is the exit-time leak check of refusals in 15 batches of 16. It assumes what
// the plot path satisfies: an input leaves no state behind that changes how a later input of
// the same batch runs (a replay runs each input alone, so such a case would show as a
// difference only if the batch failed).
#ifndef POSGPT_FUZZ_RUN_H
#define POSGPT_FUZZ_RUN_H

#include "common.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

// under ASan/UBSan, a report exits with a code no plot run uses
const char *__asan_default_options(void) { return "exitcode=86:detect_leaks=1"; }
const char *__ubsan_default_options(void) { return "exitcode=87:halt_on_error=1:print_stacktrace=1"; }

typedef struct {
    uint8_t *b;
    size_t n;
} FuzzInput;
typedef int (*FuzzTarget)(const char *path); // runs the command on the file: 0 drawn; die() refused
typedef struct {
    long drawn, refused, failed, batches, replayed;
    long last_failed; // the number of the last input that failed
} FuzzTally;

// a growing byte string, for the mutators (kept NUL-terminated)
typedef struct { char *b; size_t n, cap; } Str;
static inline void put(Str *s, const char *p, size_t n) {
    if (n > (1u << 30)) abort(); // never: keeps the compiler sure of the bound
    if (s->n + n + 1 > s->cap) {
        s->cap = 2 * (s->n + n + 1);
        s->b = realloc(s->b, s->cap);
    }
    memcpy(s->b + s->n, p, n);
    s->n += n;
    s->b[s->n] = 0;
}
// the text with [at, at + del) replaced by ins
static inline void splice(Str *s, size_t at, size_t del, const char *ins, size_t nins) {
    Str o = {0};
    put(&o, s->b, at);
    put(&o, ins, nins);
    put(&o, s->b + at + del, s->n - at - del);
    free(s->b);
    *s = o;
}
static long fuzz_cpu_seconds = 10; // an input that uses more CPU time hangs

enum { FUZZ_NOT_RUN, FUZZ_DRAWN, FUZZ_REFUSED, FUZZ_ODD };

// the input into the file at path; in_child: a child leaves with _exit (the parent's stdout is not its to flush)
static void fuzz_write(const char *path, const FuzzInput *in, int in_child) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(in->b, 1, in->n, f) != in->n || fclose(f)) {
        perror("fuzz: write");
        if (in_child) _exit(2);
        exit(2);
    }
}
// fork, or end the run: a child that was never made must not count as one that passed
static pid_t fuzz_fork(void) {
    pid_t pid = fork();
    if (pid < 0) { perror("fuzz: fork"); exit(2); }
    return pid;
}
// the child's wait status, or end the run
static int fuzz_wait(pid_t pid) {
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) { perror("fuzz: waitpid"); exit(2); }
    return st;
}
static void fuzz_quiet(void) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1), dup2(devnull, 2);
}
static void fuzz_cpu_timer(long seconds) {
    struct itimerval t = {{0, 0}, {seconds, 0}};
    setitimer(ITIMER_PROF, &t, NULL);
}

static jmp_buf fuzz_jmp;
static void fuzz_refused(void) { longjmp(fuzz_jmp, 1); }

// steps 1 and 2: returns 1 when both children exited cleanly and every input drew or was refused
static int fuzz_child(FuzzTarget target, const char *path, const FuzzInput *in, int n, int *res, int drawn_only) {
    pid_t pid = fuzz_fork();
    if (pid == 0) {
        if (!getenv("FUZZ_DEBUG")) fuzz_quiet();
        alarm(600); // a child blocked without using CPU
        die_hook = fuzz_refused;
        for (volatile int j = 0; j < n; j++) {
            if (drawn_only && res[j] != FUZZ_DRAWN) continue;
            fuzz_write(path, &in[j], 1);
            fuzz_cpu_timer(fuzz_cpu_seconds);
            if (setjmp(fuzz_jmp) == 0) res[j] = target(path) == 0 ? FUZZ_DRAWN : FUZZ_ODD;
            else res[j] = drawn_only ? FUZZ_ODD : FUZZ_REFUSED;
        }
        fuzz_cpu_timer(0);
        if (!drawn_only) _exit(0);
        die_hook = NULL;
        exit(0); // LeakSanitizer's check runs here
    }
    int st = fuzz_wait(pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 0;
    for (int j = 0; j < n; j++)
        if (res[j] != FUZZ_DRAWN && res[j] != FUZZ_REFUSED) return 0;
    return 1;
}

// one input in a child of its own, as the command runs: the exit status (or 128 + signal)
static int fuzz_single(FuzzTarget target, const char *path, const FuzzInput *in) {
    fuzz_write(path, in, 0);
    pid_t pid = fuzz_fork();
    if (pid == 0) {
        fuzz_quiet();
        struct rlimit cpu = {(rlim_t)fuzz_cpu_seconds, (rlim_t)fuzz_cpu_seconds + 1};
        setrlimit(RLIMIT_CPU, &cpu);
        alarm(600);
        exit(target(path));
    }
    int st = fuzz_wait(pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// runs inputs in[0..n), numbered first..first+n-1; a failing input is reported on stdout and
// the first 20 are kept as files named keep_prefix<number><ext>
static void fuzz_batch(FuzzTarget target, const char *path, const char *keep_prefix, const char *ext, const FuzzInput *in,
                       int n, long first, FuzzTally *t) {
    int *res = mmap(NULL, (size_t)n * sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (res == MAP_FAILED) { perror("fuzz: mmap"); exit(2); }
    memset(res, 0, (size_t)n * sizeof *res);
    if (t->batches++ % 16 != 15 && fuzz_child(target, path, in, n, res, 0) && fuzz_child(target, path, in, n, res, 1)) {
        for (int j = 0; j < n; j++) res[j] == FUZZ_DRAWN ? t->drawn++ : t->refused++;
    } else {
        t->replayed++; // (the every-16th batches too)
        for (int j = 0; j < n; j++) {
            int st = fuzz_single(target, path, &in[j]);
            if (st == 0) t->drawn++;
            else if (st == 1) t->refused++;
            else {
                char keep[200] = "not kept";
                if (t->failed < 20) {
                    snprintf(keep, sizeof keep, "%s%ld%s", keep_prefix, first + j, ext);
                    FILE *k = fopen(keep, "wb");
                    if (!k || fwrite(in[j].b, 1, in[j].n, k) != in[j].n || fclose(k)) snprintf(keep, sizeof keep, "not kept");
                }
                t->failed++, t->last_failed = first + j;
                printf("# input %ld: %s %d; %s\n", first + j, st > 128 ? "signal" : "exit status", st > 128 ? st - 128 : st, keep);
                fflush(stdout);
            }
        }
    }
    munmap(res, (size_t)n * sizeof(int));
}
#endif
