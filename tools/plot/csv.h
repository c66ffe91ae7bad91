// csv.h - reading the CSV files `posgpt plot` draws: a header row and comma-separated cells.
// Columns are found by name; every bad value is a one-line error naming the file, the line
// and the column. What spreadsheets write is accepted (a UTF-8 byte-order mark, CRLF line
// endings, spaces around fields, quoted fields without commas inside); UTF-16, old Mac CR
// line endings and ';' separators are errors that name them.
#ifndef POSGPT_CSV_H
#define POSGPT_CSV_H

typedef struct {
    const char *path;
    char *text;     // the file, cut into cells in place
    char header[512];
    int ncol;
    char *col[64];  // (ncol) column names
    int nrow;
    char **cell;    // (nrow, ncol)
    int *line;      // (nrow) line number of each row in the file
} Csv;

void csv_read(Csv *t, const char *path); // dies with a one-line error on a bad file
void csv_free(Csv *t);
// index of a column, or -1; a required column that is missing is an error naming the file,
// what kind of file has it (`what`) and the header
int csv_col(const Csv *t, const char *name, int required, const char *what);
const char *csv_str(const Csv *t, int r, int c);
// a finite number, or an error naming the file, line and column; an empty cell gives NAN
// when allowed
double csv_num(const Csv *t, int r, int c, int allow_empty);

// helpers for other comma-separated text: s without spaces, tabs (and a trailing CR) around
// it; s cut at its commas in place into at most max fields (returns the number of fields)
char *csv_trim(char *s);
int csv_split(char *s, char **out, int max);
#endif
