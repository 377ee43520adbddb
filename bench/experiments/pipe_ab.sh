#!/bin/sh
# bench/experiments/pipe_ab.sh - an input read from a pipe against the same
# input read from its file, for several gpusort binaries interleaved
# (bench/results/cpu-pipe-2core-2026-11-25.md).
#
#   sh bench/experiments/pipe_ab.sh INPUT ROUNDS OUT BINARY...
#
# INPUT: a file of u64 records (bench/gen -n 64M -k u64 -o INPUT); OUT: where
# the output goes (/dev/null, or a file). Each round runs every BINARY in
# turn, first `BINARY -k u64 INPUT > OUT`, then `cat INPUT | BINARY -k u64 >
# OUT`, each under /usr/bin/time. Prints one line per run:
#   ROUND BINARY file|pipe WALL_S USER_S SYS_S LOAD1
# (the pipe's times include cat's). On a shared machine take the fastest
# of each, and compare user + sys, which the others' load disturbs less.
in=$1 rounds=$2 out=$3
shift 3
t=$(mktemp) || exit 2
trap 'rm -f "$t"' EXIT
for r in $(seq "$rounds"); do
	for b in "$@"; do
		/usr/bin/time -o "$t" -f "%e %U %S" "$b" -k u64 "$in" > "$out"
		echo "$r $(basename "$b") file $(cat "$t") $(cut -d' ' -f1 /proc/loadavg)"
		/usr/bin/time -o "$t" -f "%e %U %S" sh -c "cat '$in' | '$b' -k u64 > '$out'"
		echo "$r $(basename "$b") pipe $(cat "$t") $(cut -d' ' -f1 /proc/loadavg)"
	done
done
