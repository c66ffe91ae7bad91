// progress.h - the trainer's progress display. On a terminal: one live line, redrawn in
// place and cut to the terminal's width (so it never wraps), plus a line for each validation.
// Otherwise: plain lines, one per call of progress_line, except while stderr is a pipe more
// than half full (its reader is not reading: mpirun stopping a job; the line is skipped, and the
// next line printed says how many were). tokens/s is the caller's count of
// tokens trained on since the start over the wall time since the start, both as of the last
// progress_count (validation and checkpoints included; the trainer writes the same number into
// log.csv); the ETA comes from wall time over the steps done, not from the last step's rate.
#ifndef POSGPT_PROGRESS_H
#define POSGPT_PROGRESS_H

typedef struct {
    double t0;           // wall clock at start
    long first, total;   // step at start, last step
    long step;           // last step shown
    double tokens, t_tok; // tokens trained on since the start, and when they were counted
    int tty;             // stderr is a terminal
    int live;            // a live line is on screen
    double last_draw;
    long skipped;        // progress lines skipped since the last one printed (stderr backed up)
} Progress;

void progress_start(Progress *p, long first, long total);
// the tokens trained on since the start, counted now: what progress_rate reports until the next count
void progress_count(Progress *p, double tokens);
// the live line says what is under way (e.g. "validating"); no-op without a terminal
void progress_note(Progress *p, const char *what);
// after a completed step: redraws the live line; a validation loss (not NaN) gets its own line
void progress_step(Progress *p, long step, double loss, double lr, double val);
// a plain line (no terminal)
void progress_line(Progress *p, long step, double loss, double lr, double val);
// ends the live line, so that what follows starts on a line of its own
void progress_clear(Progress *p);
// tokens/s as of the last progress_count (0 before the first), and seconds to go, from wall
// time over the steps done since the start
double progress_rate(const Progress *p);
double progress_eta(const Progress *p, long step);
#endif
