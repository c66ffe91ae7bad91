// series.h - what `posgpt plot` draws: the rows of posgpt's CSV files, filtered, grouped into
// series (one per name and whatever else varies between the rows), smoothed, styled, and the
// y range that keeps one exploding series from flattening the others. Drawing is chart.h's.
#ifndef POSGPT_SERIES_H
#define POSGPT_SERIES_H

enum { KIND_PPL, KIND_POSITION, KIND_TRAINING, KIND_OFFSET, KIND_ACCURACY };

// what the user asked for
typedef struct {
    int kind;                  // KIND_*, or -1: from the first file's header (set by plot_rows_read)
    const char *metric;        // kinds ppl, offset: ppl | loss | bpc; accuracy: exact | token (NULL: the default, set by plot_rows_read)
    const char *protocol;      // nonoverlapping | sliding | both | auto (resolved by plot_rows_filter)
    const char *positions;     // kind ppl: contiguous | random | all
    int xlog, ylog;
    int seeds;                 // kinds ppl, offset: files giving one series the same point are seeds (mean, band);
                               // kind accuracy always treats them so
    char *const *labels;       // (nfiles) names replacing the scheme or run names, or NULL
    const char *const *files;  // (nfiles)
    int nfiles;
} PlotQuery;

// one value read from a file
typedef struct {
    char name[96];      // scheme, --label, or the run's name
    char protocol[16];  // the protocol (kinds ppl, position, offset), the task (kind accuracy)
    char positions[16];
    int train_len, eval_len, offset, role; // role (training): 0 train loss, 1 validation loss
    double x, y, count;
    int file, line, order;
    int sid;            // the series it belongs to
} Row;

typedef struct {
    Row *r;
    int n, cap;
} Rows;

typedef struct {
    char key[176], label[160];
    int name_id, variant, role, train_len, n, cap; // variant: earlier series of the same scheme and role (series_styles)
    int dashed;                                    // randomized-BASE: BASE's colour, dashed
    int color, marker, dash;                       // the style, unique in the figure (series_styles)
    double *x, *y, *count; // (n) y is smoothed for kind position with --smooth > 1
    double *raw;           // (n) the unsmoothed y, or NULL
    double *ylo, *yhi;     // (n) with several files (seeds): the lowest and highest, y their mean
    int seeds;             // the most files behind one point
    int *file, *line;
    int light;             // a background curve (a training run's train loss): no clip marks
} Series;

typedef struct {
    Series *s;
    int n;
    int vary_pos, vary_tl, vary_el; // the rows differ in positions, training length, evaluation length
} SeriesSet;

// every file's rows (kind auto: decided by the first file's header); dies naming the file and
// line of any bad value, and on two training runs of the same name
void plot_rows_read(Rows *rs, PlotQuery *q);
// keeps the rows of the protocol (auto: nonoverlapping if present, else sliding) and, kind
// ppl, of the positions asked for; sets q->protocol to the one kept; dies if none is left
void plot_rows_filter(Rows *rs, PlotQuery *q);
// series in the order of their first row; a point given twice with different values is an
// error naming both places (a resumed training run's repeated steps: the later row wins)
void series_build(SeriesSet *ss, Rows *rs, const PlotQuery *q);
// kind position: a moving average over `smooth` positions weighted by the window counts (0:
// automatic); returns the width used (1: none)
int series_smooth(SeriesSet *ss, const PlotQuery *q, int smooth);
// a (colour, marker, dash) per series that no other series of the figure has; a scheme keeps
// its registry colour in every figure
void series_styles(SeriesSet *ss);
void series_free(SeriesSet *ss);

// the y axis's top: where --ymax says, or a robust limit above the bulk of the data
typedef struct {
    double dmin, dmax;   // the data's range (raw values included)
    int npts;
    int clip;            // 1: values above `top` are drawn at the edge, as marks with their value
    double top;
    const char *why;     // "--ymax" or "robust"
    int nabove;          // points that get a mark
} YClip;
YClip series_yclip(const SeriesSet *ss, const PlotQuery *q, double ymin, double ymax, int no_clip);
#endif
