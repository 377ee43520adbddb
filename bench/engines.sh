#!/bin/sh
# bench/engines.sh - the in-device sorters (issue 20) on a GPU machine, in
# one run: the seed papers' claims re-measured. Markdown on stdout, one
# section per claim; every number of a table comes from this run.
#
#   sh bench/engines.sh [--only STEPS] [--gib N] [--dir DIR]
#
#   STEPS (default all, comma-separated):
#     n       time against n: every sorter, CUB radix and thrust::sort, u32
#             2^22..2^30, u64 2^22..2^29, (key, index) words of 8 and 16
#             bytes (bench/sorter_bench)
#     dist    every distribution at 2^26 words: u32, u64, 8-byte pairs
#     e2e     the whole file-to-file sort of N GiB of u64 (default 16) with
#             each --algorithm: once fitting the device, once with
#             --gpu-memory a quarter of the data (runs, merged), beside cat;
#             --stats' runs and stage times beside the wall time
#     layout  records of 16, 64 and 256 bytes with a 4-byte key (key-index-then-
#             gather: the (key, index) words are sorted, then the records
#             gathered) at 4 GiB, each --algorithm, the device stages
#     buckets the sample sorter's largest bucket against its bound, every
#             distribution (bench/sample_buckets; Dehne & Zaboli, Fig. 5)
#     compare comparisons of abisort against bitonic's n/2 L(L+1)/2
#             (bench/abisort_count, its counting build)
#   --dir   scratch space for the e2e/layout files (default $TMPDIR or /tmp)
#
# Needs ./gpusort, bench/gen and bench/sorter_bench built (or copies of them
# in .device/: tests/gpu/device_session.sh puts them in place).
set -u
cd "$(dirname "$0")/.." || exit 2
ONLY=n,dist,e2e,layout,buckets,compare GIB=16 DIR=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
	case $1 in
	--only) ONLY=$2; shift 2 ;;
	--gib) GIB=$2; shift 2 ;;
	--dir) DIR=$2; shift 2 ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
SB=bench/sorter_bench G=./gpusort GEN=bench/gen
for f in $SB $G $GEN; do [ -x $f ] || { echo "engines.sh: $f is missing (make $f)" >&2; exit 2; }; done
ENGINES=$($G --help | sed -n 's/^GPU engines in this build (--algorithm)://p')
want() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

echo "# In-device sorters: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1), $(date -u +%Y-%m-%d)"
echo
echo "Commit: ${BENCH_TREE:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}; engines:$ENGINES"
echo
if want n; then
	echo "## 1. Time against n (median of 3 runs, sort alone, words already on the device)"
	echo
	$SB --width 4 --log 22:30 --runs 3 | tail -n +3
	$SB --width 8 --log 22:29 --runs 3 | tail -n +5
	$SB --width 8 --pairs --log 22:29 --runs 3 | tail -n +5
	$SB --width 16 --pairs --log 22:28 --runs 3 | tail -n +5
	echo
fi
if want dist; then
	echo "## 2. Distributions at 2^26 words (median of 3)"
	echo
	$SB --width 4 --log 26 --dist all --runs 3 | tail -n +3
	$SB --width 8 --log 26 --dist all --runs 3 | tail -n +5
	$SB --width 8 --pairs --log 26 --dist all --runs 3 | tail -n +5
	echo
fi
if want buckets && [ -x bench/sample_buckets ]; then
	echo "## 2b. The sample sorter's buckets at 2^22 words"
	echo
	bench/sample_buckets --log 22 | tail -n +3
	echo
fi
if want compare && [ -x bench/abisort_count ]; then
	echo "## 6. Comparisons: adaptive bitonic against bitonic (u32, uniform)"
	echo
	bench/abisort_count --log 16:24
	echo
fi
d=$(mktemp -d "$DIR/gpusort-engines.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT INT TERM
# one timed sort: NAME ARGS...; a row with the wall time, the ratio to cat
# ($CAT) and what --stats says of runs and the device's stages; the output
# is checked by bench/checkrec (order, same multiset as the input: $CHK
# holds the layout's checkrec options) before the row counts
timed() {
	nm=$1; shift
	rm -f "$d/out"
	t0=$(now)
	if ! $G --stats "$@" -o "$d/out" 2> "$d/err"; then
		echo "| $nm | failed: $(grep -v stats: "$d/err" | head -n 1) | | | |"; return
	fi
	t1=$(now)
	if [ -x bench/checkrec ] && ! bench/checkrec $CHK "$d/in" "$d/out" > /dev/null 2>&1; then
		echo "| $nm | WRONG OUTPUT (bench/checkrec) | | | |"; return
	fi
	w=$(secs $t0 $t1)
	runs=$(sed -n 's/.*stats: chunk [0-9]* records, \([0-9]*\) runs.*/\1/p' "$d/err" | head -n 1)
	eng=$(sed -n 's/.*engine \([^ ,]*\).*/\1/p' "$d/err" | head -n 1)
	dev=$(sed -n 's/.*stats: gpu: \(.*\)/\1/p' "$d/err" | head -n 1 | cut -c1-90)
	echo "| $nm | $w | $(awk -v a=$w -v b=$CAT 'BEGIN { printf "%.2fx", a / b }') | $eng, ${runs:-0} runs | $dev |"
}
if want e2e; then
	n=$((GIB * 134217728))
	$GEN -n $n -k u64 -o "$d/in" 2> /dev/null || { echo "engines.sh: gen failed" >&2; exit 2; }
	cat "$d/in" > /dev/null
	rm -f "$d/out"; t0=$(now); cat "$d/in" > "$d/out"; CAT=$(secs $t0 $(now))
	q=$((GIB * 256))M CHK="-k u64"
	echo "## 3. The whole sort: $GIB GiB of u64, file to file (cat: $CAT s)"
	echo
	echo "| run | wall s | x cat | engine, runs | device stages (--stats) |"
	echo "|---|---|---|---|---|"
	for e in auto $ENGINES; do
		timed "--algorithm=$e" -k u64 --algorithm=$e "$d/in"
		timed "--algorithm=$e --gpu-memory $q" -k u64 --algorithm=$e --gpu-memory $q "$d/in"
	done
	echo
	rm -f "$d/in" "$d/out"
fi
if want layout; then
	echo "## 4. Record layouts: 4 GiB of records with a u32 key at 0 (key-index-then-gather)"
	echo
	echo "| run | wall s | x cat | engine, runs | device stages (--stats) |"
	echo "|---|---|---|---|---|"
	for rs in 16 64 256; do
		n=$((4294967296 / rs))
		$GEN -n $n --record-size $rs -k u32 -o "$d/in" 2> /dev/null || continue
		cat "$d/in" > /dev/null
		rm -f "$d/out"; t0=$(now); cat "$d/in" > "$d/out"; CAT=$(secs $t0 $(now))
		CHK="-R $rs -k u32"
		for e in $ENGINES; do
			timed "$rs B, $e" --record-size $rs -k u32 --algorithm=$e "$d/in"
		done
		rm -f "$d/in" "$d/out"
	done
	echo
fi
