// pack.h - examples of varying length packed into rows (train --task --pack). A batch drawn as
// B rows of T, one example per row from position 0 and padded after it, is repacked so that
// each row holds as many whole examples as fit, longest first, each into the first row with
// room (first-fit decreasing). Each example keeps its tokens, targets and positions (so its
// positions start afresh, as in its own row); the rest of a row is padding with no target,
// each padding token an example of its own at position 0. The segment array names, for every token, the
// index in its row of its example's first token: gpt_forward_packed confines each example's
// attention to its own tokens, so the packed rows give the loss and gradients of the padded
// ones (up to float rounding) in fewer rows. Rows longer than the longest example hold more
// (train --pack makes them 4 times the model's context, --seq-len).
#ifndef POSGPT_PACK_H
#define POSGPT_PACK_H

// tok, tgt, pos: B rows of T; len[b]: the tokens of row b's example (0..T; the rest of the row
// is padding, never scored and never attended to by the example). Writes the packed rows, of
// R >= T each, into ptok, ptgt, ppos, pseg (room for max_rows rows of R) and returns how many it
// filled (1 when every len is 0); more than max_rows is an internal error. First fit opens a
// row only when every open row is too full for the example at hand, so with every len <= R / k
// each row but the last holds k examples at least: ceil(B / k) rows always suffice. pos NULL:
// positions 0.. in every example.
int pack_rows(const int *tok, const int *tgt, const int *pos, const int *len, int B, int T, int R, int max_rows, int *ptok,
              int *ptgt, int *ppos, int *pseg);
#endif
