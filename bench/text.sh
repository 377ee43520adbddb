#!/bin/sh
# bench/text.sh - the text workloads (`make bench-text`, and part of `make
# bench`): gpusort on lines beside cat (the floor) and
# `LC_ALL=C sort --parallel=N -S 50%` (N: the cores), on the same files
# made by bench/gen_lines, outputs to the same file system, in one run.
# Every gpusort output is compared byte for byte with GNU sort's before
# its times count.
#
#   sh bench/text.sh [--sizes "1"] [--runs 3] [--cpu] [--stats] [--mem 50%] [--dir DIR]
#       [--workloads "csv-str csv-num csv-2keys gensort"]
#
#   --sizes      GiB of lines per workload (fractions allowed); the GPU
#                machine's 10 GiB run: --sizes "1 10" (about 3x the size in
#                free disk under --dir: input, two outputs)
#   --runs       timed runs per tool; the median is reported (min-max beside)
#   --cpu        gpusort --cpu only (no gpusort-radix row: the GPU engine,
#                which text lines take only when named)
#   --mem        -S for GNU sort and gpusort alike
#   --stats      gpusort rows with --stats (on stderr, beside the progress)
#   --workloads  csv-str: -t, -k2,2 (a string key); csv-num: -t, -k3,3n;
#                csv-2keys: -t, -k2,2 -k3,3n; gensort: 100-byte `gensort -a`
#                lines, whole-line order
# Markdown on stdout; progress on stderr.
set -u
cd "$(dirname "$0")/.." || exit 2
SIZES=1 RUNS=3 CPU_ONLY=0 STATS="" MEM=50% DIR=${TMPDIR:-/tmp} WORKLOADS="csv-str csv-num csv-2keys gensort"
while [ $# -gt 0 ]; do
	case $1 in
	--cpu) CPU_ONLY=1; shift; continue ;;
	--stats) STATS=--stats; shift; continue ;;
	--help | -h) sed -n '2,/^set -u/p' bench/text.sh | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--sizes) SIZES=$2 ;; --runs) RUNS=$2 ;; --mem) MEM=$2 ;; --dir) DIR=$2 ;; --workloads) WORKLOADS=$2 ;;
	*) echo "bench/text.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift 2
done
[ -x ./gpusort ] && [ -x bench/gen_lines ] || { echo "bench/text.sh: run make first" >&2; exit 2; }
N=$(nproc)
w=$(mktemp -d "$DIR/gpusort-text.XXXXXX") || exit 2
trap 'rm -rf "$w"' EXIT
trap 'exit 2' INT TERM HUP
export LC_ALL=C

opts_of() {
	case $1 in
	csv-str) echo "-t, -k2,2" ;; csv-num) echo "-t, -k3,3n" ;; csv-2keys) echo "-t, -k2,2 -k3,3n" ;; gensort) echo "" ;;
	*) return 1 ;;
	esac
}
# secs CMD...: wall seconds of CMD (stdout to $w/out)
secs() {
	rm -f "$w/out" # a truncation of the previous output would be timed
	_t0=$(date +%s.%N)
	"$@" > "$w/out" || { echo "bench/text.sh: failed: $*" >&2; return 1; }
	_t1=$(date +%s.%N)
	awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.3f", b - a }'
}
# median of the arguments, then "min-max"
stats() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f (%.2f-%.2f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }

echo "gpusort text workloads: $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null), $N cores, -S $MEM, $RUNS runs, median (min-max) s"
for wl in $WORKLOADS; do
	opts=$(opts_of "$wl") || { echo "bench/text.sh: unknown workload $wl" >&2; exit 2; }
	for gib in $SIZES; do
		gen=csv
		[ "$wl" = gensort ] && gen=gensort
		echo "bench/text.sh: $wl $gib GiB: generating" >&2
		bench/gen_lines $gen "${gib}G" > "$w/in" || exit 2
		echo
		echo "### $wl, $gib GiB ($opts)"
		echo
		echo "| tool | seconds | x cat |"
		echo "|---|---|---|"
		tools="cat sort gpusort-cpu"
		[ $CPU_ONLY = 0 ] && tools="$tools gpusort-radix"
		catmed=""
		for tool in $tools; do
			case $tool in
			cat) cmd="cat $w/in" ;;
			sort) cmd="sort $opts --parallel=$N -S $MEM $w/in" ;;
			gpusort-cpu) cmd="./gpusort --cpu $opts --parallel=$N -S $MEM $STATS $w/in" ;;
			gpusort-radix) cmd="./gpusort --algorithm=radix $opts --parallel=$N -S $MEM $STATS $w/in" ;;
			esac
			times=""
			for r in $(seq 1 "$RUNS"); do
				echo "bench/text.sh: $wl $gib GiB: $tool run $r" >&2
				# shellcheck disable=SC2086
				t=$(secs $cmd) || exit 2
				times="$times $t"
				# GNU sort's first output is the reference of the gpusort rows
				[ "$tool" = sort ] && [ "$r" = 1 ] && mv "$w/out" "$w/ref"
				case $tool in gpusort*) [ "$r" = 1 ] && ! cmp -s "$w/out" "$w/ref" && { echo "bench/text.sh: $tool output differs from GNU sort's" >&2; exit 1; } ;; esac
			done
			# shellcheck disable=SC2086
			med=$(stats $times)
			m=${med%% *}
			[ "$tool" = cat ] && catmed=$m
			echo "| $tool | $med | $(awk -v a="$m" -v c="$catmed" 'BEGIN { printf "%.1f", a / c }') |"
		done
	done
done
