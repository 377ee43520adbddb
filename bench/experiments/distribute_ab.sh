#!/bin/sh
# bench/experiments/distribute_ab.sh - an external distribution sort of u64
# keys made from parts (bench/experiments/micro/distribute.c, then each
# bucket sorted in memory by gpusort, appended in bucket order), against
# gpusort's spilled merge under -S and its in-memory sort, interleaved.
#
#   sh bench/experiments/distribute_ab.sh IN S BUCKETS ROUNDS [DIR [table]]
#
# IN: u64 keys (bench/gen -k u64); S: gpusort's -S for the merge row;
# BUCKETS: a power of two, so that IN / BUCKETS fits S; `table`: the
# scatter looks buckets up by the keys' top bits (distribute.c). One line a
# command: its wall seconds (date +%s.%N); the distribution's output is
# compared with the merge's (cmp) in every round. Needs ./gpusort and a C
# compiler.
set -u
in=$1 S=$2 B=$3 rounds=$4 dir=${5:-${TMPDIR:-/tmp}}/distab.$$ mode=${6:-}
cd "$(dirname "$0")/../.." || exit 2
mkdir -p "$dir/b" || exit 2
trap 'rm -rf "$dir"' EXIT
cc -O2 -std=gnu11 bench/experiments/micro/distribute.c -o "$dir/distribute" || exit 2
t() { a=$(date +%s.%N); sh -c "$2"; b=$(date +%s.%N); echo "$1 $(echo "$a $b" | awk '{ printf "%.3f", $2 - $1 }')"; }
for r in $(seq "$rounds"); do
	t merge "./gpusort -k u64 --cpu -S $S '$in' -o '$dir/m.out'"
	t memory "./gpusort -k u64 --cpu '$in' -o '$dir/i.out'"
	t distribute "'$dir/distribute' '$in' '$dir/b' $B $mode > '$dir/d.log' && : > '$dir/d.out' && for f in '$dir'/b/b*; do ./gpusort -k u64 --cpu \"\$f\" >> '$dir/d.out' || exit 1; done"
	cat "$dir/d.log"
	cmp -s "$dir/m.out" "$dir/d.out" || echo "round $r: the distribution's output differs from the merge's"
	rm -f "$dir"/*.out "$dir"/b/*
done
