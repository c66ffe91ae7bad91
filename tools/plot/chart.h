// chart.h - the one chart type of `posgpt plot`: lines with markers on linear or log axes,
// ticks, grid, a legend placed where it covers no data, y clipping with marked points.
// Reading CSV files and choosing what to plot is elsewhere (csv.h, series.h); nothing here
// knows about position schemes or perplexity.
#ifndef POSGPT_CHART_H
#define POSGPT_CHART_H

#include "canvas.h"
#include "text.h"

typedef struct {
    const char *label;   // legend text; NULL: not in the legend
    const double *x, *y; // (n) points in data units, x increasing; n = 0: a legend-only entry
    int n;
    Rgb color;
    float width;         // line width at 1600x1000 (scaled with the figure)
    float opacity;       // 1 = opaque; lower for light background series
    int dash;            // DASH_*
    int marker;          // MARK_*, or -1 for none
    int markers;         // draw the marker at every point (and in the legend)
    int light;           // a background curve: drawn first, no triangles for clipped points
    const double *ylo, *yhi; // (n) a band from ylo to yhi drawn lightly under the line, or NULL
} ChartSeries;

typedef struct {
    const char *title, *xlabel, *ylabel, *caption; // caption: a line of small text under the plot
    const ChartSeries *s;
    int ns;
    int xlog, ylog;          // logarithmic axes (x: base 2 spacing; labels come from the ticks)
    const double *xticks;    // explicit x ticks (NULL: automatic)
    int nxticks;
    const char *const *xsub; // optional second line under each explicit x tick ("2x"), or NULL
    double xtick_unit;       // automatic linear x ticks at multiples of unit*2^k when > 0
    double ymin, ymax;       // axis range when set (NaN: from the data)
    int yclip;               // ymax set: points above it are drawn at the top edge as a triangle with their value
    const double *vlines;    // dashed vertical reference lines (the training length)
    int nvlines;
    const char *vline_label;
    double shade_x0, shade_x1; // x from shade_x0 to shade_x1 shaded light grey (none unless x1 > x0)
} Chart;

typedef struct {
    double ylo, yhi;      // the y axis range drawn
    int clipped;          // points drawn as clipped triangles
    int clip_beside;      // of those, values written beside their mark
    int clip_listed;      // and values listed in the "above the axis" box (no room beside the mark)
    const char *clip_box; // where that box is: "in the plot" (touching no line, marker or label), "beneath the legend", "over the data"
    int legend_outside;   // 1: no free corner inside the plot, the legend is on the right
    const char *legend_at;
    long ink;             // non-background pixels
} ChartStats;

void chart_render(Canvas *c, const Font *f, const Chart *ch, ChartStats *st);

// 16 colours told apart on white: the Okabe-Ito colour-blind-safe palette first
#define PALETTE_SIZE 16
Rgb palette_color(int i);
// a round step (1, 2 or 5 times a power of 10) giving about `target` intervals over span
double nice_step(double span, int target);
// a short readable form of a value ("312", "6.89", "0.0123", "1.2e+06")
void format_value(char *buf, int n, double v);
#endif
