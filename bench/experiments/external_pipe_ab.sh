#!/bin/sh
# bench/experiments/external_pipe_ab.sh - issue 19's pipe and CPU-engine
# rows on the GPU machine, for two gpusort builds in one run: 16 GiB of u64
# (SIZE_N records, default 2G = 16 GiB) read from a pipe, and sorted with
# --cpu at the default -S, beside `cat` doing the same trip.
#
#   sh bench/experiments/external_pipe_ab.sh NEW OLD [DIR]
#
# Rows, one run each (wall seconds, `date +%s.%N` around the command):
#   cat-file      cat IN > OUT
#   cat-pipe      cat IN | cat > OUT
#   pipe BIN      cat IN | BIN -k u64 > OUT      (output checked: bench/checkrec)
#   cpu BIN       BIN --cpu -k u64 IN -o OUT
# DIR holds IN and OUT (default $TMPDIR or /tmp); removed at the end.
set -u
new=$1 old=$2 dir=${3:-${TMPDIR:-/tmp}}/gs-ab.$$
cd "$(dirname "$0")/../.." || exit 2
mkdir -p "$dir" || exit 2
trap 'rm -rf "$dir"' EXIT
in=$dir/in out=$dir/out
./bench/gen -n "${SIZE_N:-2G}" -k u64 -o "$in" 2> /dev/null || { echo "gen failed"; exit 2; }
row() { # NAME COMMAND
	sync
	t0=$(date +%s.%N)
	sh -c "$2"
	rc=$?
	t1=$(date +%s.%N)
	ok=-
	case $1 in pipe* | cpu*) ./bench/checkrec -k u64 "$in" "$out" > /dev/null 2>&1 && ok=checked || ok=BAD ;; esac
	echo "| $1 | $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') | $rc | $ok |"
}
echo "| row | wall s | exit | output |"
echo "|---|---|---|---|"
row cat-file "cat '$in' > '$out'"
row cat-pipe "cat '$in' | cat > '$out'"
for b in "$new" "$old"; do
	row "pipe $(basename "$b")" "cat '$in' | '$b' -k u64 > '$out'"
	row "cpu $(basename "$b")" "'$b' --cpu -k u64 '$in' -o '$out'"
done
