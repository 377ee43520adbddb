#!/bin/sh
# bench/text.sh - the text workloads (`make bench-text`, and part of `make
# bench`): gpusort on lines beside cat (the floor),
# `LC_ALL=C sort --parallel=N -S 50%` (N: the cores) and, where it is
# installed, uutils sort (Debian's rust-coreutils) with the same options,
# on the same files made by bench/gen_lines, outputs to the same file
# system, in one run. Every gpusort output is compared byte for byte with
# GNU sort's before its times count (uutils': reported, not fatal).
#
#   sh bench/text.sh [--sizes "1"] [--runs 3] [--peer-runs N] [--peer-timeout S] [--cpu]
#       [--stats] [--mem 50%] [--dir DIR] [--uutils CMD]
#       [--workloads "csv-str csv-num csv-2keys csv-version gensort paths csv-spill"]
#
#   --sizes      GiB of lines per workload (fractions allowed); the GPU
#                machine's 10 GiB run: --sizes "1 10" (about 3x the size in
#                free disk under --dir: input, two outputs)
#   --runs       timed runs per tool; the median is reported (min-max beside)
#   --peer-runs  timed runs of GNU and uutils sort (default: --runs; 1 keeps
#                a 10 GiB run short: they take minutes)
#   --peer-timeout  seconds a GNU or uutils run may take (default: none);
#                a uutils run stopped there is reported as "> S", a GNU
#                run stopped ends the workload (its output is the reference)
#   --cpu        gpusort --cpu only (no gpusort-radix row: the GPU engine,
#                which text lines take only when named)
#   --mem        -S for GNU sort and gpusort alike (uutils sort: the same
#                bytes, as it takes no %)
#   --uutils     the command that runs uutils sort (default: uu-sort or
#                /usr/lib/cargo/bin/coreutils/sort where present; "" for none)
#   --stats      gpusort rows with --stats (on stderr, beside the progress)
#   --workloads  csv-str: -t, -k2,2 (a string key); csv-num: -t, -k3,3n;
#                csv-2keys: -t, -k2,2 -k3,3n; csv-version: -t, -k3,3V (the
#                decimals as versions); gensort: 100-byte `gensort -a`
#                lines, whole-line order; paths: file paths that share
#                ~230-byte starts, whole-line order; csv-spill: -t, -k2,2
#                with -S an eighth of the input (every tool; gpusort
#                spills 8 runs and merges them); not by default:
#                csv-general: -t, -k3,3g (the decimals as floats);
#                csv-general-ties: -t, -k3.1,3.3g (their first three
#                bytes: ~2000 values, most lines ordered by the line)
# Markdown on stdout; progress on stderr.
set -u
cd "$(dirname "$0")/.." || exit 2
UU=unset PEER_RUNS="" PEER_TIMEOUT=""
SIZES=1 RUNS=3 CPU_ONLY=0 STATS="" MEM=50% DIR=${TMPDIR:-/tmp} WORKLOADS="csv-str csv-num csv-2keys csv-version gensort paths csv-spill"
while [ $# -gt 0 ]; do
	case $1 in
	--cpu) CPU_ONLY=1; shift; continue ;;
	--stats) STATS=--stats; shift; continue ;;
	--help | -h) sed -n '2,/^set -u/p' bench/text.sh | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--uutils) UU=$2 ;; --peer-runs) PEER_RUNS=$2 ;; --peer-timeout) PEER_TIMEOUT=$2 ;;
	--sizes) SIZES=$2 ;; --runs) RUNS=$2 ;; --mem) MEM=$2 ;; --dir) DIR=$2 ;; --workloads) WORKLOADS=$2 ;;
	*) echo "bench/text.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift 2
done
[ -x ./gpusort ] && [ -x bench/gen_lines ] || { echo "bench/text.sh: run make first" >&2; exit 2; }
N=$(nproc)
PEER_RUNS=${PEER_RUNS:-$RUNS}
if [ "$UU" = unset ]; then
	UU=""
	if command -v uu-sort > /dev/null 2>&1; then UU=uu-sort
	elif [ -x /usr/lib/cargo/bin/coreutils/sort ]; then UU=/usr/lib/cargo/bin/coreutils/sort
	fi
fi
# uutils sort's -S takes no percentage: the same share of RAM in KiB
case $MEM in
*%) UUMEM=$(awk -v p="${MEM%\%}" '/^MemTotal:/ { printf "%dK", $2 * p / 100 }' /proc/meminfo) ;;
*) UUMEM=$MEM ;;
esac
w=$(mktemp -d "$DIR/gpusort-text.XXXXXX") || exit 2
trap 'rm -rf "$w"' EXIT
trap 'exit 2' INT TERM HUP
export LC_ALL=C

opts_of() {
	case $1 in
	csv-str) echo "-t, -k2,2" ;; csv-num) echo "-t, -k3,3n" ;; csv-2keys) echo "-t, -k2,2 -k3,3n" ;;
	csv-version) echo "-t, -k3,3V" ;; gensort | paths) echo "" ;; csv-spill) echo "-t, -k2,2" ;;
	csv-general) echo "-t, -k3,3g" ;; csv-general-ties) echo "-t, -k3.1,3.3g" ;;
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

echo "gpusort text workloads: $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null), $N cores, -S $MEM, $RUNS runs ($PEER_RUNS of GNU${UU:+ and uutils} sort), median (min-max) s"
[ -n "$UU" ] && echo "uutils: $UU ($($UU --version 2>&1 | head -1))"
for wl in $WORKLOADS; do
	opts=$(opts_of "$wl") || { echo "bench/text.sh: unknown workload $wl" >&2; exit 2; }
	for gib in $SIZES; do
		case $wl in gensort | paths) gen=$wl ;; *) gen=csv ;; esac
		# the csv workloads share their input: generated once per size
		if [ ! -f "$w/in.$gen.$gib" ]; then
			echo "bench/text.sh: $gen $gib GiB: generating" >&2
			bench/gen_lines $gen "${gib}G" > "$w/in.$gen.$gib" || exit 2
		fi
		ln -sf "in.$gen.$gib" "$w/in"
		mem=$MEM uumem=$UUMEM tdir=""
		if [ "$wl" = csv-spill ]; then
			mem=$(awk -v g="$gib" 'BEGIN { printf "%dM", g * 1024 / 8 }') uumem=$mem tdir="-T $w"
		fi
		echo
		echo "### $wl, $gib GiB ($opts -S $mem)"
		echo
		echo "| tool | seconds | x cat | GNU sort / tool |"
		echo "|---|---|---|---|"
		tools="cat sort"
		[ -n "$UU" ] && tools="$tools uutils"
		tools="$tools gpusort-cpu"
		[ $CPU_ONLY = 0 ] && tools="$tools gpusort-radix"
		catmed="" sortmed=""
		for tool in $tools; do
			case $tool in
			cat) cmd="cat $w/in" ;;
			sort) cmd="sort $opts --parallel=$N -S $mem $tdir $w/in" ;;
			uutils) cmd="$UU $opts --parallel=$N -S $uumem $tdir $w/in" ;;
			gpusort-cpu) cmd="./gpusort --cpu $opts --parallel=$N -S $mem $tdir $STATS $w/in" ;;
			gpusort-radix) cmd="./gpusort --algorithm=radix $opts --parallel=$N -S $mem $tdir $STATS $w/in" ;;
			esac
			times="" runs=$RUNS
			case $tool in sort | uutils) runs=$PEER_RUNS; [ -n "$PEER_TIMEOUT" ] && cmd="timeout $PEER_TIMEOUT $cmd" ;; esac
			for r in $(seq 1 "$runs"); do
				echo "bench/text.sh: $wl $gib GiB: $tool run $r" >&2
				# shellcheck disable=SC2086
				if ! t=$(secs $cmd); then
					[ "$tool" = uutils ] && [ -n "$PEER_TIMEOUT" ] || exit 2
					times="" # stopped at the timeout (or failed: stderr says which)
					break
				fi
				times="$times $t"
				# GNU sort's first output is the reference of the gpusort rows
				[ "$tool" = sort ] && [ "$r" = 1 ] && mv "$w/out" "$w/ref"
				case $tool in gpusort*) [ "$r" = 1 ] && ! cmp -s "$w/out" "$w/ref" && { echo "bench/text.sh: $tool output differs from GNU sort's" >&2; exit 1; } ;; esac
				[ "$tool" = uutils ] && [ "$r" = 1 ] && ! cmp -s "$w/out" "$w/ref" && echo "(uutils sort's output differs from GNU sort's)"
			done
			if [ -z "$times" ]; then
				echo "| $tool | > $PEER_TIMEOUT (stopped) | - | - |"
				continue
			fi
			# shellcheck disable=SC2086
			med=$(stats $times)
			m=${med%% *}
			[ "$tool" = cat ] && catmed=$m
			[ "$tool" = sort ] && sortmed=$m
			echo "| $tool | $med | $(awk -v a="$m" -v c="$catmed" 'BEGIN { printf "%.2f", a / c }') | $(awk -v a="$m" -v s="$sortmed" 'BEGIN { if (s == "") print "-"; else printf "%.1f", s / a }') |"
		done
	done
done
