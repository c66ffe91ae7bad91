# bench_lib.sh - helpers the benchmark scripts share (sourced by bench.sh, bench_ab.sh, bench_mpi.sh)
# get KEY: the value of " KEY=value" in the first line of stdin that has it
get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" | head -1; }
# list FORMAT ARGS...: the arguments printed with printf format FORMAT each, space-separated
list() { local f=$1; shift; printf " $f" "$@"; }
# med ARGS...: the median of the arguments (the mean of the middle two for an even count)
med() { printf "%s\n" "$@" | sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
