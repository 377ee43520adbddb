#!/bin/sh
# bench/run.sh - `make bench` (GPU machine) / `make bench-cpu` (any machine):
# wall times of gpusort and of the tools a user would pick instead (cat as
# the floor, GNU sort, NumPy, CuPy) on the same files made by bench/gen,
# outputs to the same file system, in one run; ratios, not absolute times.
#
#   sh bench/run.sh [--cpu] [--workloads "u32 u64 rec100 rec16"] [--sizes "1 4"]
#       [--runs 3] [--dist uniform] [--seed 7] [--tools LIST] [--budget 2G]
#       [--mem 50%] [--text-max 1] [--peer-max SECONDS] [--dir DIR] [--csv FILE]
#       [--baseline PATH] [--help]
#
#   --workloads  u32, u64: arrays; rec100: 100-byte records, 10-byte key
#                (Sort Benchmark); rec16: u64 up then i32 down; pair8: u32 up
#                then i32 down, the whole 8-byte record (bench/runlib.sh)
#   --sizes      GiB of binary data per workload; fractions allowed (0.05)
#   --runs       runs per tool; the median is reported (min-max beside)
#   --dist       bench/gen's --dist for every workload (uniform, zipf, ...)
#   --tools      any of: sort numpy cupy gpusort-cpu gpusort gpusort-budget
#                (default all; cat always runs); GPU tools need nvidia-smi
#                (cupy also the module) and are left out with --cpu;
#                gpusort is the auto engine (the GPU, or the CPU for inputs
#                too small to pay for the CUDA start-up: --stats says which)
#   --budget     gpusort-budget's --gpu-memory; that row runs only for data
#                larger than the budget (the larger-than-device case)
#   --mem        -S for GNU sort and gpusort alike (default half the RAM)
#   --text-max   GNU sort runs up to this many GiB (default 1): it is slow
#                (u32 as text: ~5 min a run per GiB on 2 cores) and its text
#                is ~2.5x the binary for u64, so larger sizes are skipped
#   --peer-max   stop a peer (GNU sort, NumPy, CuPy) run after this many
#                seconds (default 0: never); its row then reads "stopped
#                after N s" and its ratio to gpusort is a lower bound (>)
#   --dir        scratch space (default $TMPDIR or /tmp); a subdirectory is
#                made and removed at the end, also on errors and ^C
#   --csv        append one line per row: workload,gib,tool,median_s,...
#   --baseline   a second gpusort binary (another commit's build; a relative
#                PATH is from the directory run.sh was started in): every
#                gpusort row gets a twin "... (baseline)" right below it,
#                the same command with PATH, its runs interleaved with the
#                others (every other run the baseline first); compare the two rows' "x cat", and its "/ gpusort"
#                is baseline over current.  A before/after of two commits
#                in one run on one machine
#   --help       print this comment
#   BENCH_TREE   the commit to print when this tree's .git is not the one
#                built (a copy sent to another machine); BENCH_BASELINE_TREE
#                the same for the --baseline binary
#
# Markdown on stdout (one table per workload, rows written as each size
# ends), progress on stderr; workloads, tools and checks are in
# bench/runlib.sh, the peers' scripts in bench/peers/.  Every
# tool's first output is checked by bench/checkrec (order by the keys, same
# multiset of records as the input) before its times count; repeats are only
# timed.  Needs gpusort, bench/gen (make), a C compiler only if
# bench/checkrec is not built; awk, not bc.  Python: $PYTHON, else the first
# of python3, /usr/bin/python3 that has NumPy.
set -u
ARGS="$*"
START=$(pwd)
cd "$(dirname "$0")/.." || exit 2
. bench/runlib.sh

CPU_ONLY=0 WORKLOADS="u32 u64 rec100 rec16" SIZES="1 4" RUNS=3 DIST=uniform SEED=7
TOOLS="sort numpy cupy gpusort-cpu gpusort gpusort-budget" BUDGET=2G MEM=50% TEXTMAX=1 PEERMAX=0
DIR=${TMPDIR:-/tmp} CSV="" BASELINE=""
while [ $# -gt 0 ]; do
	case $1 in
	--cpu) CPU_ONLY=1; shift; continue ;;
	--help | -h) sed -n '2,/^set -u/p' bench/run.sh | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--workloads | --sizes | --runs | --dist | --seed | --tools | --budget | --mem | --text-max | --peer-max | --dir | --csv | --baseline)
		[ $# -ge 2 ] || { echo "bench/run.sh: $1 needs a value" >&2; exit 2; } ;;
	*) echo "bench/run.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
	esac
	case $1 in
	--workloads) WORKLOADS=$2 ;; --sizes) SIZES=$2 ;; --runs) RUNS=$2 ;;
	--dist) DIST=$2 ;; --seed) SEED=$2 ;; --tools) TOOLS=$2 ;; --budget) BUDGET=$2 ;;
	--mem) MEM=$2 ;; --text-max) TEXTMAX=$2 ;; --peer-max) PEERMAX=$2 ;; --dir) DIR=$2 ;; --csv) CSV=$2 ;;
	--baseline) case $2 in /*) BASELINE=$2 ;; *) BASELINE=$START/$2 ;; esac ;;
	esac
	shift 2
done
die() { echo "bench/run.sh: $*" >&2; exit 2; }
for w in $WORKLOADS; do workload "$w" || die "unknown workload $w"; done
for g in $SIZES; do
	awk -v g="$g" 'BEGIN {exit !(g ~ /^[0-9]*\.?[0-9]+$/ && g > 0)}' || die "bad size $g"
done
case $RUNS in '' | *[!0-9]* | 0) die "bad --runs $RUNS" ;; esac
for t in $TOOLS; do
	case $t in *-base) die "unknown tool $t (--baseline adds the baseline rows)" ;; esac
	label "$t" | grep -q . || die "unknown tool $t"
done
[ -z "$BASELINE" ] || [ -x "$BASELINE" ] || die "--baseline $BASELINE is not an executable file"
BUDGET_B=$(awk -v s="$BUDGET" 'BEGIN {m = 1; u = toupper(substr(s, length(s)))
	if (u ~ /[KMGT]/) { m = 1024 ^ index("KMGT", u); s = substr(s, 1, length(s) - 1) }
	if (s !~ /^[0-9.]+$/) exit 1; printf "%.0f\n", s * m }') || die "bad --budget $BUDGET"
[ -x ./gpusort ] && [ -x bench/gen ] || die "gpusort and bench/gen are not built: run make"
# the checker is small and has no dependencies: build it here if make did
# not; a copied tree may have no compiler but a built checker (dates aside)
if [ ! -x bench/checkrec ] || [ -n "$(find bench/checkrec.c -newer bench/checkrec)" ]; then
	${CC:-cc} -std=c11 -O2 -pthread -o bench/checkrec bench/checkrec.c 2> /dev/null ||
		[ -x bench/checkrec ] || die "cannot build bench/checkrec (make bench/checkrec)"
fi

PY=${PYTHON:-}
if [ -z "$PY" ]; then
	for p in python3 /usr/bin/python3; do
		if command -v $p > /dev/null && $p -c 'import numpy' 2> /dev/null; then PY=$p; break; fi
	done
fi
NPROC=$(nproc)
GPU=""
if [ $CPU_ONLY = 0 ]; then
	GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -n 1)
	# BENCH_ASSUME_GPU=1 exercises the GPU rows' plumbing on a machine without one
	[ -z "$GPU" ] && [ "${BENCH_ASSUME_GPU:-0}" = 1 ] && GPU="none (BENCH_ASSUME_GPU=1)"
fi
# the tools this machine can run, in table order; notes say why others are not
RUN_TOOLS="" NOTES=""
for t in sort numpy cupy gpusort-cpu gpusort gpusort-budget; do
	case " $TOOLS " in *" $t "*) ;; *) continue ;; esac
	case $t in
	numpy) [ -n "$PY" ] || { NOTES="$NOTES NumPy: not installed."; continue; } ;;
	cupy) if [ -z "$GPU" ]; then continue; fi
		[ -n "$PY" ] && $PY -c 'import cupy' 2> /dev/null || { NOTES="$NOTES CuPy: not installed."; continue; } ;;
	gpusort | gpusort-budget) [ -n "$GPU" ] || continue ;;
	esac
	RUN_TOOLS="$RUN_TOOLS $t"
	case $t in gpusort*) [ -n "$BASELINE" ] && RUN_TOOLS="$RUN_TOOLS $t-base" ;; esac
done
[ $CPU_ONLY = 0 ] && [ -z "$GPU" ] && NOTES="$NOTES No GPU (nvidia-smi): GPU tools left out."
case " $RUN_TOOLS " in *" gpusort "*) REF=gpusort ;; *) REF=gpusort-cpu ;; esac

# scratch: our own subdirectory, removed on any exit; ones left by killed runs go too
mkdir -p "$DIR" || exit 2
for d in "$DIR"/gpusort-bench.*; do
	[ -d "$d" ] && ! kill -0 "${d##*.}" 2> /dev/null && rm -rf "$d"
done
W=$DIR/gpusort-bench.$$
mkdir "$W" || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM HUP

now() { date +%s.%N; }
say() { echo "bench: $(date -u +%H:%M:%S) $*" >&2; }
# stat_of ID min|median|max: of the tool's times at this size
stat_of() {
	sort -n "$W/times.$1" 2> /dev/null | awk -v w="$2" '{a[NR] = $1}
		END {if (NR) print w == "min" ? a[1] : w == "max" ? a[NR] : a[int((NR + 1) / 2)]}'
}
calc() { awk "BEGIN {printf \"%.2f\", $1}"; }
csv() { [ -z "$CSV" ] || echo "$WL,$g,$1,$2,$3,$RUNS,$4,$5,$B,$6,$DIST,$HOST" >> "$CSV"; }

HOST=$(printf '%s' "${GPU:-$(grep -m 1 'model name' /proc/cpuinfo | sed 's/.*: //')} ${NPROC} cores" | tr -d ',')
if [ -n "$CSV" ] && [ ! -s "$CSV" ]; then
	echo "workload,gib,tool,median_s,status,runs,min_s,max_s,bytes,gb_s,dist,machine" > "$CSV"
fi
echo "# gpusort bench, $(date -u '+%Y-%m-%d %H:%M') UTC"
echo
echo "Machine: $(grep -m 1 'model name' /proc/cpuinfo | sed 's/.*: //'), $NPROC cores," \
	"$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM, GPU: ${GPU:-none};" \
	"scratch $(df -PT "$W" | awk 'NR == 2 {print $2}') ($DIR); $(uname -sr); $(sort --version | head -n 1)."
echo "Command: \`sh bench/run.sh $ARGS\`; dist $DIST, seed $SEED, -S $MEM for GNU sort and gpusort;" \
	"$(./gpusort --version | head -n 1), tree ${BENCH_TREE:-$(git describe --always --dirty 2> /dev/null || echo unknown)}."
[ -z "$BASELINE" ] || echo "Baseline: \`$BASELINE\` ($("$BASELINE" --version | head -n 1)${BENCH_BASELINE_TREE:+, tree $BENCH_BASELINE_TREE}):" \
	"the rows \"(baseline)\" run the same command with it, interleaved with the current build's (every other run first)."
echo "Medians of $RUNS runs (min-max beside), input in the page cache, outputs to the same" \
	"file system; each tool's first output checked by bench/checkrec (order by the keys," \
	"same records as the input) before its times count. GB/s = binary bytes / median.${NOTES}"

for WL in $WORKLOADS; do
	workload "$WL"
	printf '\n## %s\n\n' "$TITLE"
	echo "| GiB | tool | median s | min-max s | GB/s | x cat | / $(label $REF) | gpusort --stats (last run) |"
	echo "|---|---|---|---|---|---|---|---|"
	warm=0
	for g in $SIZES; do
		N=$(awk -v g="$g" -v r="$R" 'BEGIN {printf "%.0f", int(g * 1073741824 / r)}')
		B=$((N * R))
		tools=cat skipped=""
		for t in $RUN_TOOLS; do
			case $t in
			sort) if awk -v g="$g" -v m="$TEXTMAX" 'BEGIN {exit !(g > m)}'; then
				skipped="$skipped sort"; continue
			fi ;;
			gpusort-budget | gpusort-budget-base) [ "$B" -gt "$BUDGET_B" ] || continue ;;
			esac
			tools="$tools $t"
		done
		need=$(disk_need $tools) free=$(df -Pk "$W" | awk 'NR == 2 {printf "%.0f", $4 * 1024}')
		if [ "$need" -gt "$free" ]; then
			echo "| $g | all | skipped: needs $(calc "$need / 1e9") GB in $DIR, $(calc "$free / 1e9") GB free | | | | | |"
			csv all "" "no disk space" "" "" ""
			continue
		fi
		say "$WL $g GiB: generating $N records"
		bench/gen -n "$N" $GENK --dist "$DIST" --seed "$SEED" -o "$W/in.bin" || die "bench/gen failed"
		SUM=$(bench/checkrec $KEYS --sum "$W/in.bin") || die "checkrec --sum failed"
		case " $tools " in *" sort "*) make_text || die "making the text form failed" ;; esac
		cat "$W"/in.* > /dev/null # into the page cache
		if [ $warm = 0 ] && case " $tools " in *" cupy "*) true ;; *) false ;; esac; then
			# CuPy compiles its kernels on first use (then caches them): not a sort's cost
			head -c $((R * 4096)) "$W/in.bin" > "$W/warm.bin"
			$PY bench/peers/cupy_sort.py "$WL" "$W/warm.bin" "$W/out.bin" > /dev/null 2>&1
			rm -f "$W/warm.bin"
		fi
		warm=1
		time_tools $tools
		report_rows "$tools" "$skipped"
		rm -f "$W"/in.* "$W"/out.*
	done
done
