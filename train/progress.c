// progress.c - see progress.h.
#define _GNU_SOURCE // F_GETPIPE_SZ (Linux)
#include "progress.h"

#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

void progress_start(Progress *p, long first, long total) {
    memset(p, 0, sizeof *p);
    p->t0 = p->t_tok = now_seconds();
    p->first = p->step = first, p->total = total;
    p->tty = isatty(2);
}

void progress_count(Progress *p, double tokens) { p->tokens = tokens, p->t_tok = now_seconds(); }

double progress_rate(const Progress *p) {
    double el = p->t_tok - p->t0;
    return el > 0 ? p->tokens / el : 0.0;
}

double progress_eta(const Progress *p, long step) {
    double el = now_seconds() - p->t0;
    return step > p->first ? (p->total - step) * el / (step - p->first) : -1.0;
}

static void fmt_time(double s, char *buf, size_t n) {
    if (s < 0 || !isfinite(s)) snprintf(buf, n, "?");
    else if (s < 60) snprintf(buf, n, "%.0fs", s);
    else if (s < 3600) snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
    else snprintf(buf, n, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
}

static int term_cols(void) {
    struct winsize ws;
    return ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

// the live line: the longest form that fits in cols - 1 characters (the last column is left
// free: writing it makes some terminals wrap)
static void draw(Progress *p, long step, double loss, double lr, const char *note) {
    char eta[32], rate[32], tail[160], line[256];
    fmt_time(progress_eta(p, step), eta, sizeof eta);
    double r = progress_rate(p);
    if (r >= 1e4) snprintf(rate, sizeof rate, "%.1fk", r / 1e3);
    else snprintf(rate, sizeof rate, "%.0f", r);
    int cols = term_cols() - 1;
    if (note) snprintf(tail, sizeof tail, "step %ld/%ld %s", step, p->total, note);
    else snprintf(tail, sizeof tail, "step %ld/%ld loss %.4f lr %.1e %s tok/s ETA %s", step, p->total, loss, lr, rate, eta);
    int room = cols - (int)strlen(tail) - 3; // "[bar] "
    if (room >= 10) {
        int w = room < 30 ? room : 30, fill = (int)((double)step / p->total * w);
        char bar[40];
        for (int i = 0; i < w; i++) bar[i] = i < fill ? '#' : '.';
        bar[w] = 0;
        snprintf(line, sizeof line, "[%s] %s", bar, tail);
    } else snprintf(line, sizeof line, "%s", tail);
    if (cols > 0 && (int)strlen(line) > cols) line[cols] = 0;
    fprintf(stderr, "\r%s\033[K", line);
    p->live = 1;
}

void progress_note(Progress *p, const char *what) {
    if (p->tty) draw(p, p->step, 0, 0, what), p->last_draw = 0;
}

void progress_step(Progress *p, long step, double loss, double lr, double val) {
    p->step = step;
    if (!p->tty) return;
    double now = now_seconds();
    if (!isnan(val)) {
        progress_clear(p);
        fprintf(stderr, "step %ld: val loss %.4f (ppl %.2f)\n", step, val, exp(val));
    }
    if (now - p->last_draw < 0.1 && step < p->total && isnan(val)) return; // at most 10 redraws a second
    p->last_draw = now;
    draw(p, step, loss, lr, NULL);
}

// stderr is a pipe more than half full: its reader is not reading now. mpirun, stopping a job
// (Ctrl-C), stops reading its processes' output while it waits for them to end: a rank blocked
// in a write to a full pipe never reaches its save and is killed. A progress line is then
// skipped (log.csv has every row), which keeps the rest of the pipe for the messages that
// matter (where the run stopped, and how to continue). Where the pipe's fill cannot be read
// (not Linux), nothing is skipped.
static int stderr_backed_up(void) {
#if defined(F_GETPIPE_SZ) && defined(FIONREAD)
    struct stat st;
    int queued = 0, size;
    if (fstat(2, &st) != 0 || !S_ISFIFO(st.st_mode) || (size = fcntl(2, F_GETPIPE_SZ)) <= 0) return 0;
    return ioctl(2, FIONREAD, &queued) == 0 && queued > size / 2;
#else
    return 0;
#endif
}

void progress_line(Progress *p, long step, double loss, double lr, double val) {
    if (stderr_backed_up()) {
        p->skipped++;
        return;
    }
    char eta[32], line[256], skip[96] = "";
    fmt_time(progress_eta(p, step), eta, sizeof eta);
    if (p->skipped)
        snprintf(skip, sizeof skip, " (%ld progress lines skipped: stderr was not being read)", p->skipped), p->skipped = 0;
    int n = snprintf(line, sizeof line, "step %ld/%ld loss %.4f lr %.2e %.0f tok/s ETA %s", step, p->total, loss, lr,
                     progress_rate(p), eta);
    if (!isnan(val)) n += snprintf(line + n, sizeof line - n, " val %.4f", val);
    fprintf(stderr, "%s%s\n", line, skip); // one write: a line is never split by another process's output
}

void progress_clear(Progress *p) {
    if (p->live) fprintf(stderr, "\r\033[K");
    p->live = 0;
}
