#!/bin/sh
# bench/experiments/external_rows.sh - issue 19's rows on the GPU machine in
# one run: a larger-than-budget file sorted with the spilled runs merged on
# the GPU and on the CPU, the pipe, and the CPU engine, beside cat.
#
#   sh bench/experiments/external_rows.sh KIND [DIR] > table.md
#
# KIND u64 (SIZE_N records, default 2G = 16 GiB) or rec100 (100-byte
# records, 10-byte key; SIZE_N default 172M = 16 GiB). Every row removes the
# previous output and syncs first (a truncation of the last row's 16 GiB
# would be timed otherwise); every gpusort output is checked by
# bench/checkrec. Each gpusort row's --stats lines go to DIR/KIND-ROW.stats
# (set STATS_DIR to keep them elsewhere). Wall seconds from date +%s.%N.
# ROWS: the rows in order (names in the case below; a digit after a name
# repeats the row). GPUSORT_BIN: the binary (default ./gpusort); the
# *-chunked rows set GPUSORT_RESIDENT=0, which only the test build
# (tests/bin/gpusort-test) reads: a pipe through the chunked path, the
# path pipes took on the GPU before the device-resident one read them.
set -u
kind=$1 dir=${2:-${TMPDIR:-/tmp}}/gs-rows.$$
cd "$(dirname "$0")/../.." || exit 2
mkdir -p "$dir" || exit 2
sd=${STATS_DIR:-$dir}
trap 'rm -rf "$dir"' EXIT
in=$dir/in out=$dir/out
case $kind in
u64) k="-k u64" ck="-k u64" g="-n ${SIZE_N:-2G} -k u64" ;;
rec100) k="--record-size 100 -k bytes10" ck="-R 100 -k bytes10" g="-n ${SIZE_N:-172M} --record-size 100 -k bytes10" ;;
*) echo "external_rows.sh: KIND is u64 or rec100" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
./bench/gen $g -o "$in" 2> /dev/null || { echo "gen failed"; exit 2; }
cat "$in" > /dev/null
row() { # NAME COMMAND (stderr of COMMAND to the row's stats file)
	rm -f "$out"
	sync
	t0=$(date +%s.%N)
	sh -c "$2" 2> "$sd/$kind-$1.stats"
	rc=$?
	t1=$(date +%s.%N)
	ok=-
	case $1 in cat*) ;; *)
		# shellcheck disable=SC2086
		./bench/checkrec $ck "$in" "$out" > /dev/null 2>&1 && ok=checked || ok=BAD ;;
	esac
	eng=$(sed -n 's/.*engine \([^,]*\),.*/\1/p' "$sd/$kind-$1.stats" | head -n 1)
	echo "| $1 | $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') | $rc | $ok | $eng |"
}
echo "| row ($kind, $(du -h "$in" | cut -f1)) | wall s | exit | output | engine |"
echo "|---|---|---|---|---|"
G=${GPUSORT_BIN:-./gpusort}
for r in ${ROWS:-cat-file cat-pipe spill-gpu spill-cpu pipe cpu-default cpu-S2G cat-file2 spill-gpu2 pipe2}; do
	case $r in
	cat-file*) row $r "cat '$in' > '$out'" ;;
	cat-pipes*) row $r "cat '$in' | cat | cat > '$out'" ;;
	cat-pipe*) row $r "cat '$in' | cat > '$out'" ;;
	pipes-chunked*) row $r "cat '$in' | GPUSORT_RESIDENT=0 $G $k --stats | cat > '$out'" ;;
	pipes*) row $r "cat '$in' | $G $k --stats | cat > '$out'" ;;
	pipe-S2G-chunked*) row $r "cat '$in' | GPUSORT_RESIDENT=0 $G $k -S 2G --gpu-memory 2G --stats > '$out'" ;;
	pipe-S2G*) row $r "cat '$in' | $G $k -S 2G --gpu-memory 2G --stats > '$out'" ;;
	pipe-chunked*) row $r "cat '$in' | GPUSORT_RESIDENT=0 $G $k --stats > '$out'" ;;
	spill-gpu*) row $r "$G $k -S 2G --gpu-memory 2G --merge-engine=gpu --stats '$in' -o '$out'" ;;
	spill-cpu*) row $r "$G $k -S 2G --gpu-memory 2G --merge-engine=cpu --stats '$in' -o '$out'" ;;
	spill-auto*) row $r "$G $k -S 2G --gpu-memory 2G --stats '$in' -o '$out'" ;;
	pipe*) row $r "cat '$in' | $G $k --stats > '$out'" ;;
	cpu-pipe*) row $r "cat '$in' | $G --cpu $k --stats > '$out'" ;;
	cpu-default*) row $r "$G --cpu $k --stats '$in' -o '$out'" ;;
	cpu-S2G*) row $r "$G --cpu $k -S 2G --stats '$in' -o '$out'" ;;
	auto*) row $r "$G $k --stats '$in' -o '$out'" ;;
	bitonic*) row $r "$G $k --algorithm=bitonic --stats '$in' -o '$out'" ;;
	esac
done
