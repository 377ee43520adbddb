#!/bin/sh
# bench/run.sh - `make bench` (GPU machine) / `make bench-cpu` (any machine):
# wall times of gpusort and the tools a user would pick instead, on the same
# files, to the same file system, in one run; ratios, not absolute times.
#
#   sh bench/run.sh [--cpu] [--sizes "1 4 16"] [--runs N] [--dir DIR] [--type u32|u64]
#
# Sizes are GiB of keys. Every output is checked (tests/checksorted) before its
# times count (repeats are timed only). Prints a Markdown table; results go to bench/results/ by hand
# (commit them with the device name and date the table starts with).
set -u
cd "$(dirname "$0")/.." || exit 2
CPU_ONLY=0 SIZES="1 4" RUNS=3 DIR=${TMPDIR:-/tmp}/gpusort-bench TYPE=u64
while [ $# -gt 0 ]; do
	case $1 in
	--cpu) CPU_ONLY=1 ;;
	--sizes) SIZES=$2; shift ;;
	--runs) RUNS=$2; shift ;;
	--dir) DIR=$2; shift ;;
	--type) TYPE=$2; shift ;;
	*) echo "bench/run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
mkdir -p "$DIR" || exit 2
W=$([ "$TYPE" = u32 ] && echo 4 || echo 8)
PY=$(command -v python3 || true)
dev="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
echo "# gpusort bench: $TYPE keys, file to file, page-cache input, $(date -u +%Y-%m-%d)"
echo "# machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), GPU: ${dev:-none}"
echo
echo "| GiB | tool | median s | GB/s | x cat | tool / gpusort | gpusort --stats (last run) |"
echo "|---|---|---|---|---|---|---|"

median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }
# calc EXPR: arithmetic without bc (not on every machine)
calc() { awk "BEGIN {x = $1; printf \"%.2f\", x}"; }

# timeit NAME CMD...: run RUNS times, check each output, print the median seconds
timeit() {
	_n=$1; shift
	: > "$DIR/times"
	_i=0
	while [ $_i -lt "$RUNS" ]; do
		rm -f "$DIR/out.bin"
		_s=$(now)
		if ! "$@" > "$DIR/run.log" 2>&1; then
			echo "$_n: failed: $(tail -n 2 "$DIR/run.log" | tr '\n' ' ')" >&2
			echo nan; return
		fi
		_e=$(now)
		# the first run's output is checked; repeats only time
		if [ $_i = 0 ] && [ "$_n" != cat ] && ! tests/checksorted "$TYPE" "$DIR/in.bin" "$DIR/out.bin" > /dev/null; then
			echo "$_n: WRONG OUTPUT" >&2; echo nan; return
		fi
		awk -v e="$_e" -v s="$_s" 'BEGIN {printf "%.3f\n", e - s}' >> "$DIR/times"
		_i=$((_i + 1))
	done
	median < "$DIR/times"
}

for g in $SIZES; do
	n=$((g * 1073741824 / W))
	bench/gen -n $n -k $TYPE --seed 7 -o "$DIR/in.bin" || exit 2
	cat "$DIR/in.bin" > /dev/null # into the page cache
	tcat=$(timeit cat sh -c "cat '$DIR/in.bin' > '$DIR/out.bin'")
	rows=""
	add() { rows="$rows$1|$2|$3
"; }
	if [ $CPU_ONLY = 0 ]; then
		t=$(timeit gpusort ./gpusort -k $TYPE "$DIR/in.bin" -o "$DIR/out.bin" --stats)
		add "gpusort (GPU)" "$t" "$(grep -E 'stats: (read|gpu|wall)' "$DIR/run.log" | sed 's/gpusort: stats: //' | tr '\n' ';')"
		t=$(timeit gpusort2g ./gpusort -k $TYPE --gpu-memory 2G "$DIR/in.bin" -o "$DIR/out.bin" --stats)
		add "gpusort --gpu-memory 2G" "$t" "$(grep -E 'stats: (chunk|read|wall)' "$DIR/run.log" | sed 's/gpusort: stats: //' | tr '\n' ';')"
	fi
	t=$(timeit gpusort-cpu ./gpusort -k $TYPE --cpu "$DIR/in.bin" -o "$DIR/out.bin" --stats)
	add "gpusort --cpu" "$t" "$(grep -E 'stats: (read|wall)' "$DIR/run.log" | sed 's/gpusort: stats: //' | tr '\n' ';')"
	if [ -n "$PY" ] && $PY -c 'import numpy' 2> /dev/null; then
		t=$(timeit numpy $PY bench/peers/numpy_sort.py $TYPE "$DIR/in.bin" "$DIR/out.bin")
		add "NumPy sort" "$t" ""
	fi
	if [ $CPU_ONLY = 0 ] && [ -n "$PY" ] && $PY -c 'import cupy' 2> /dev/null; then
		t=$(timeit cupy $PY bench/peers/cupy_sort.py $TYPE "$DIR/in.bin" "$DIR/out.bin")
		add "CuPy sort" "$t" ""
	fi
	ref=$(echo "$rows" | awk -F'|' -v cpu=$CPU_ONLY '($1=="gpusort (GPU)" && !cpu) || ($1=="gpusort --cpu" && cpu) {print $2}')
	echo "| $g | cat | $tcat | $(calc "$g * 1.073741824 / $tcat") | 1.00 | | |"
	echo "$rows" | while IFS='|' read -r name t st; do
		[ -n "$name" ] || continue
		if [ "$t" = nan ]; then echo "| $g | $name | failed | | | | |"; continue; fi
		echo "| $g | $name | $t | $(calc "$g * 1.073741824 / $t") | $(calc "$t / $tcat") | $(calc "$t / $ref") | $st |"
	done
	rm -f "$DIR/in.bin" "$DIR/out.bin"
done
