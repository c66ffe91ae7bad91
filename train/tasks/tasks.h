// tasks.h - the algorithmic tasks of the length-generalisation study (docs/tasks.md): each
// example is one line of bytes, "PROMPT>ANSWER;", generated from a seed at a chosen length
// n (the number of input symbols), and scored by exact match of the answer a model writes
// after the '>' (greedy, up to the ';').
//   copy      n letters a..j                  answer: the same letters
//   reverse   n letters a..j                  answer: them in reverse order
//   sort      n letters a..j                  answer: them in ascending order
//   add       two n-digit numbers, "A+B"      answer: A + B in decimal (format msb: every number
//                                             most significant digit first; lsb: least first)
//   sum       n digits                        answer: their sum mod 10 (one digit; format scratch:
//                                             the running sums mod 10, '=', then the answer)
//   parity    n bits                          answer: 1 if an odd number of them is 1, else 0
//                                             (scratch: the running parities, '=', the answer)
//   passkey   n filler sentences with a 5-digit key stated at a depth, then the question
//             answer: the key
// Every example starts with the BOS byte '^' unless the task was made without (--no-bos).
// Task files (`posgpt task gen`): a directory with train.txt (lengths uniform in 1..L),
// test.txt (every length 1..M L, M = 2 by default, the same number of examples each) and
// task.txt (what made them); a line per example, "N<tab>DEPTH<tab>PROMPT>ANSWER;" with N its
// length and DEPTH passkey's key depth in percent (0 for the other tasks).
#ifndef POSGPT_TASKS_H
#define POSGPT_TASKS_H

#include "common.h"

#include <stddef.h>

#define TASK_SEP '>' // ends the prompt
#define TASK_END ';' // ends the answer
#define TASK_SCRATCH_END '=' // scratch format: ends the running values; the answer follows
#define TASK_BOS '^' // starts every example of a task made with a BOS byte (task gen's default; --no-bos)
#define TASK_MAX_LINE 65536            // the most bytes an example (and its length N) may have
#define TASK_MAX_FILE ((size_t)1 << 30) // the largest task file read (task gen writes none larger)

// formats (task gen --format; docs/tasks.md): a task takes some of them, the first its default
enum { TASK_FMT_PLAIN, TASK_FMT_MSB, TASK_FMT_LSB, TASK_FMT_SCRATCH, TASK_NFMT };

typedef struct {
    const char *name, *summary;
    int max_n;        // the longest n the generator accepts
    // writes the example "PROMPT>ANSWER;" of length n (no newline) into buf, NUL-terminated;
    // depth in [0, 1] places passkey's key (other tasks ignore it)
    // in format (one of formats)
    void (*make)(char *buf, size_t cap, int n, double depth, int format, Rng *rng);
    int (*bytes)(int n, int format); // the most bytes an example of length n holds (the longest at n <= max_n)
    int formats;      // bit f: the task takes format f
    // the answer (with its TASK_END) that make writes after the prompt p of m bytes (no BOS, no
    // TASK_SEP) at length n, into out (cap bytes); -1 where p is not a prompt the task makes
    // (a byte that is not one of its symbols, a wrong shape): task files are checked with it
    int (*solve)(const char *p, int m, int n, int format, char *out, size_t cap);
} Task;

int task_count(void);
const Task *task_at(int i);
const Task *task_find(const char *name);
const char *task_names(void); // "copy|reverse|..."
int task_format_default(const Task *t);              // its first format (what a task.txt without one means)
int task_format_find(const Task *t, const char *name); // the format t takes by that name, or -1
const char *task_format_name(int format);
const char *task_formats(const Task *t);             // "msb|lsb"

// How a task directory's examples are made, from its task.txt (task_spec_read): fresh
// training examples (train --task, task_batch.h) are made the way task gen made the files.
typedef struct {
    const Task *task;
    int max_len;      // training lengths are uniform in 1..max_len
    int bos;          // each example starts with TASK_BOS
    int format;       // TASK_FMT_*, one the task takes
    int split;        // 1: the examples are split by class (task_class; "split = hash"); 0: test.txt
                      // alone is kept out of training (task files from before the split)
} TaskSpec;

// The split of a task's examples (task gen's default, "split = hash" in task.txt): every
// possible example belongs to one class by a hash of its prompt's bytes (without the BOS byte
// and the answer: the same class with or without BOS, and in a format that changes the answer
// only; task_class), test (1 in 4), validation (1 in 4) or training (2 in 4). test.txt holds test-class examples only, val.txt validation-class
// ones (the sample `train --until-acc` checks), train.txt and fresh training examples
// training-class ones: the three never share an example, and every length keeps training
// examples unless all of its few examples fall in the other two classes.
enum { TASK_CLASS_TEST, TASK_CLASS_VAL, TASK_CLASS_TRAIN };
#define TASK_CLASS_TRIES 400 // draws at one length that may all miss the class asked for
#define TASK_VAL_PER_LEN 32  // val.txt: examples at each training length
uint64_t task_example_hash(const char *p, size_t n); // FNV-1a of the bytes, mixed
int task_class(const char *p, size_t n);             // TASK_CLASS_* of the example's bytes (its prompt's)

// DIR/task.txt's task, max_len, bos (yes | no; a task.txt without it, from before BOS
// bytes: no), split (hash | none; without one: none) and format (one the task takes; without one: the task's first, msb or plain); dies with one line naming the file and the key for a
// missing file, a missing or unknown task, a max_len out of 1..the task's max_n
void task_spec_read(TaskSpec *s, const char *dir);
// the example of length n (passkey: the key at depth in [0, 1]) into buf (cap bytes), as
// task gen writes it (no newline), NUL-terminated; returns its bytes
int task_make(const TaskSpec *s, char *buf, size_t cap, int n, double depth, Rng *rng);
// an example of length n (passkey: depth) of class c into buf, drawn until one is (at most
// TASK_CLASS_TRIES draws); returns its bytes, or -1 when no draw was of class c
int task_make_class(const TaskSpec *s, char *buf, size_t cap, int n, double depth, int c, Rng *rng);
// the most bytes an example of length 1..max_len has (the row a fresh example needs)
int task_max_bytes(const TaskSpec *s);

// one example, split: the prompt ends with TASK_SEP, the answer with TASK_END
typedef struct {
    int len;          // its length n (from the file's metadata column, or 0)
    int depth_pct;    // passkey: the key's depth in percent; else 0
    int nprompt, nanswer;
    const char *prompt, *answer; // into the owning TaskSet's text
} TaskExample;

typedef struct {
    char *text;       // the file, lines cut in place
    TaskExample *ex;
    int n;
    int max_total;    // the longest prompt + answer, in bytes
    uint32_t crc;     // CRC-32 of the file's bytes as read (train --until-acc records its check file's)
} TaskSet;

// Read a task file (the lines above). Dies with a one-line error naming the file, the line and
// what is wrong with it for anything else: N not a whole number in 1..TASK_MAX_LINE, DEPTH not
// one in 0..100 (digits only: no sign, space or exponent), a missing tab, '>' or ';', a second
// '>', a ';' inside the answer, an empty answer, an example over TASK_MAX_LINE bytes, a tab in
// the example, a NUL byte, CRLF line endings, a UTF-8 byte order mark, a blank line.
// When a task.txt beside the file names a task, each line's N is also checked against its
// prompt (the size that task's prompt has at length N) and the task's longest N.
void taskset_read(TaskSet *s, const char *path);
// the value of "key = value" in a task.txt's text, into buf, or NULL when it has no such key
const char *task_meta(const char *text, const char *key, char *buf, size_t n);
void taskset_free(TaskSet *s);
#endif
