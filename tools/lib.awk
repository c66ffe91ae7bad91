# lib.awk - functions the report scripts share (awk "$(cat tools/lib.awk) PROGRAM", which every awk reads):
# a CSV line split with quotes, a finite number's test, Student's t quantile and the 95% t interval of a mean, batch
# means over windows, paired per-window files, and a run's training seconds from its log.csv.

# csv(line): the fields of one CSV line into F[1..n] ("..." fields may hold commas, "" a quote);
# returns n, or -1 when a quote is not closed on the line
function csv(line,    n, i, c, f, q) {
    n = 1; f = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) { if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = 0 } else f = f c }
        else if (c == "\"") q = 1
        else if (c == ",") { F[n++] = f; f = "" }
        else f = f c
    }
    if (q) return -1
    F[n] = f
    return n
}

# finite(x): x is a finite decimal number as the tools write them (no nan, inf, word or blank; a
# sign either way: study3's match.csv writes its rel_diff with printf %+.4f)
function finite(x) { return x ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }

# tq(df): the 0.975 quantile of Student's t with df degrees of freedom (the table to 30, then
# the Cornish-Fisher expansion about the normal's 1.959964, within 0.001 of the exact value)
function tq(df,    z) {
    if (!("1" in TQ_)) split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 " \
                             "2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", TQ_, " ")
    if (df <= 30) return TQ_[df]
    z = 1.959964
    return z + (z ^ 3 + z) / (4 * df) + (5 * z ^ 5 + 16 * z ^ 3 + 3 * z) / (96 * df ^ 2)
}

# tint(n, sum, sumsq): the mean of n values (their sum and sum of squares) into TM, the 95%
# t interval's half-width into TH (n - 1 degrees of freedom); returns 0 when n < 2 (TH = 0)
function tint(n, sum, sumsq,    v) {
    TM = n ? sum / n : 0; TH = 0
    if (n < 2) return 0
    v = (sumsq - n * TM * TM) / (n - 1)
    if (v < 0) v = 0
    TH = tq(n - 1) * sqrt(v / n)
    return 1
}

# bmh(n, b, X, W, weighted): batch means over n values X[1..n] in text order (each a window's
# loss, or a paired difference): blocks of b consecutive values, the leftover ones in the last
# block; a block's mean is weighted by W[i] (a window's tokens) when weighted, else plain. Sets
# BM_NB, the number of blocks, and returns the 95% half-width, Student's t (BM_NB - 1 degrees
# of freedom) times the standard error of the block means; -1 when BM_NB < 2. The centre is the
# caller's (the mean over all values). Used by study3_report.sh and paired.sh.
function bmh(n, b, X, W, weighted,    j, i, e, w, sw, sx, m, sm, sq, v) {
    if (b < 1) b = 1
    BM_NB = int(n / b)
    if (BM_NB < 2) return -1
    sm = sq = 0
    for (j = 0; j < BM_NB; j++) {
        e = j == BM_NB - 1 ? n : (j + 1) * b; sw = sx = 0
        for (i = j * b + 1; i <= e; i++) { w = weighted ? W[i] : 1; sw += w; sx += weighted ? w * X[i] : X[i] }
        m = sx / sw; sm += m; sq += m * m
    }
    v = (sq - sm * sm / BM_NB) / (BM_NB - 1)
    if (v < 0) v = 0
    return tq(BM_NB - 1) * sqrt(v / BM_NB)
}

# Paired per-window files, as the reports test runs across seeds: an awk program over files
# A_1 B_1 A_2 B_2 ... (`posgpt eval --per-window` CSVs, each with its header; pair i holds two
# runs scored on the same windows) calls pw_row(L) on every line: at evaluation length L it
# keeps A_i's loss of each window (protocol, stride, offset, window) and adds B_i's minus it.
# pw_end() then puts pair i's mean difference over its windows in PWD[i] and their count in
# PWN[i], and returns the number of pairs; or -1 with the reason in PWERR (a window of B_i
# that A_i lacks, or a different count of windows)
function pw_row(L,    w) {
    if (FNR == 1) { PW_F++; return }
    if ($3 != L) return
    PW_I = int((PW_F + 1) / 2); w = $4 "," $5 "," $6 "," $7
    if (PW_F % 2) { PW_X[PW_I, w] = $9; PW_NA[PW_I]++; return }
    if (!((PW_I, w) in PW_X)) { if (PWERR == "") PWERR = "window " w " of " FILENAME " at " L " is not in the file paired with it"; return }
    PW_S[PW_I] += $9 - PW_X[PW_I, w]; PWN[PW_I]++
}
function pw_end(    m, i) {
    if (PWERR != "") return -1
    m = int((PW_F + 1) / 2)
    for (i = 1; i <= m; i++) {
        if (!PWN[i] || PWN[i] != PW_NA[i]) { PWERR = "pair " i " differs in its windows at the length asked"; return -1 }
        PWD[i] = PW_S[i] / PWN[i]
    }
    return m
}

# A run's training seconds from its log.csv (train's elapsed_s, the wall time since the run
# started): the clock restarts at 0 when a run is resumed (train --resume, whose log keeps the
# rows up to its checkpoint), so a resumed run's seconds are the sum of each segment's last
# value. wall(e) on the file's rows in order, with their elapsed_s; WALL is then the sum so far
# (the work of a segment after its last row is not counted: at most one log interval a resume).
# Call wall_reset() before the next file.
function wall(e) {
    e += 0
    if (e < W_LAST) W_SUM += W_LAST
    W_LAST = e
    WALL = W_SUM + e
}
function wall_reset() { W_SUM = W_LAST = WALL = 0 }
# wall_row() on every row of a log.csv, its header included (FS ","): on the header it resets
# the sum, finds the elapsed_s column (W_COL; 0 if the log has none) and returns 0; on a data
# row it adds the row's seconds and returns 1. So "!wall_row() { next }" first, then WALL.
function wall_row(   c) {
    if (FNR == 1) {
        wall_reset(); W_COL = 0
        for (c = 1; c <= NF; c++) if ($c == "elapsed_s") W_COL = c
        return 0
    }
    if (W_COL) wall($W_COL)
    return 1
}

# The learning rates a scheme ran in study3's phase A at position-lr multiplier 1, the grid the
# edge rule looks at (PROTOCOL.md v2, v4): lr_range(f) reads the phaseA.csv f (scheme,lr,
# pos_lr_mult,steps,val_loss) into LR_LO[scheme] and LR_HI[scheme], the smallest and largest.
# A failed run (no val_loss) counts: a larger lr that failed brackets the choice as one that lost.
function lr_range(f,    line, x, n) {
    while ((getline line < f) > 0) {
        if (++n == 1) continue
        split(line, x, ",")
        if (x[3] != 1) continue
        if (!(x[1] in LR_LO) || x[2] + 0 < LR_LO[x[1]]) LR_LO[x[1]] = x[2] + 0
        if (!(x[1] in LR_HI) || x[2] + 0 > LR_HI[x[1]]) LR_HI[x[1]] = x[2] + 0
    }
    close(f)
}
