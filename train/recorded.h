// recorded.h - the text a checkpoint's run trained on, as its run record names it (ckpt.h):
// eval and task eval score it by default. The file must still be the one trained on: the
// recorded size and CRC-32, else a one-line error naming the recorded path and CRC.
#ifndef POSGPT_RECORDED_H
#define POSGPT_RECORDED_H

#include "ckpt.h"

// the recorded path of the run's --data (val 0) or --val (val 1), checked; `cmd` and `flag`
// name the command and the flag that would replace it in errors ("eval", "--data FILE")
const char *recorded_text(const char *ckpt, const RunRecord *r, int val, const char *cmd, const char *flag);
#endif
