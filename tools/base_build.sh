#!/usr/bin/env bash
# base_build.sh - build TARGETS (make goals) of a base commit in a git worktree, for the tools
# that compare it with the working tree (loss_check.sh, bench_ab.sh). The worktree is kept and
# reused while it holds that commit.
#   tools/base_build.sh BASE DIR TARGET...      e.g. tools/base_build.sh b912152 build/loss-base posgpt
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac # the header above
cd "$(dirname "$0")/.."
base=$1 wt=$2; shift 2
if [ "$(git -C "$wt" rev-parse HEAD 2>/dev/null)" != "$(git rev-parse "$base^{commit}")" ]; then
  git worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
  git worktree prune
  git worktree add --detach "$wt" "$base" > /dev/null 2>&1
fi
make -C "$wt" --no-print-directory "$@" > /dev/null
