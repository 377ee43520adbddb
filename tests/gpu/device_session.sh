#!/bin/sh
# tests/gpu/device_session.sh STEP... - one call on a GPU machine that cannot
# build gpusort itself (no liburing there): the binaries are built elsewhere
# and brought in .device/ (gpusort, gpusort-test, test_gpu_sort,
# test_sorters, sorter_bench, gen, checkrec, refsort, checksorted, and
# gpusort-old: the build of the commit to compare with). Steps:
#   check   `make check-gpu` without its build: the kernels' tests, every
#           sorter's tests, compute-sanitizer, GPU output == CPU output
#           (tests/gpu/identity.sh)
#   engines bench/engines.sh (the in-device sorters, the papers' claims);
#           ENGINES_ONLY picks its steps, ENGINES_GIB its size
#   same    gpusort-old and gpusort give the same bytes on the GPU paths
#           (one chunk, chunks kept, spilled, the GPU merge, a pipe)
#   bench   bench/run.sh's u64 and 100-byte records at ${BENCH_SIZES:-4} GiB,
#           gpusort and gpusort-old (--baseline) beside cat in one run
# Logs and tables go to $OUT (or /tmp/gpusort-session); a summary to stdout.
set -u
cd "$(dirname "$0")/../.." || exit 2
O=${OUT:-/tmp/gpusort-session}
mkdir -p "$O" tests/bin
C=.device
for f in gpusort:gpusort gpusort-test:tests/bin/gpusort-test test_gpu_sort:tests/gpu/test_gpu_sort \
	test_sorters:tests/gpu/test_sorters sorter_bench:bench/sorter_bench sample_buckets:bench/sample_buckets \
	abisort_count:bench/abisort_count gen:bench/gen checkrec:bench/checkrec refsort:tests/refsort checksorted:tests/checksorted; do
	[ -x "$C/${f%%:*}" ] && cp "$C/${f%%:*}" "${f#*:}"
done
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$O/device.txt"
same_one() { # NAME GENARGS SORTARGS [cat]
	./bench/gen $2 -o "$d/in" 2> /dev/null || { echo "FAIL $1: gen"; return; }
	if [ "${4:-}" = cat ]; then
		cat "$d/in" | $C/gpusort-old $3 > "$d/old" 2> "$d/old.err"
		cat "$d/in" | ./gpusort $3 --stats > "$d/new" 2> "$d/new.err"
	else
		$C/gpusort-old $3 "$d/in" > "$d/old" 2> "$d/old.err"
		./gpusort $3 --stats "$d/in" > "$d/new" 2> "$d/new.err"
	fi
	eng=$(sed -n 's/.*engine \([^,]*\),.*/\1/p' "$d/new.err" | head -n 1)
	if cmp -s "$d/old" "$d/new" && [ -s "$d/new" ]; then echo "PASS same-$1 ($eng)"
	else echo "FAIL same-$1: outputs differ ($eng): $(head -c 200 "$d/new.err")"; fi
}
for step in "$@"; do
	t0=$(date +%s)
	case $step in
	check)
		sh tests/run.sh tests/gpu/test_gpu_sort tests/gpu/test_sorters tests/gpu/sanitize.sh tests/gpu/identity.sh \
			> "$O/check-gpu.log" 2>&1
		echo "check rc=$?"
		grep -v '^PASS' "$O/check-gpu.log" | tail -n 20
		;;
	engines)
		sh bench/engines.sh --only "${ENGINES_ONLY:-n,dist,e2e,layout,buckets,compare}" --gib "${ENGINES_GIB:-16}" > "$O/engines.md" 2> "$O/engines.err"
		echo "engines rc=$?"
		cat "$O/engines.md"
		;;
	same)
		d=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-same.XXXXXX")
		{
			same_one u64-1chunk "-n 64M -k u64" "-k u64 --device 0"
			same_one u32-fewunique "-n 64M -k u32 --dist fewunique" "-k u32 --device 0"
			same_one rec100 "-n 8M --record-size 100 -k bytes10" "--record-size 100 -k bytes10 --device 0"
			same_one rec16-2keys "-n 16M --record-size 16 -k u64@8 -k i32@0 --dist zipf" "--record-size 16 -k u64@8 -k i32@0:r --device 0"
			same_one u64-chunks-kept "-n 32M -k u64 --dist zipf" "-k u64 --gpu-memory 64M"
			same_one u64-chunks-spilled "-n 32M -k u64" "-k u64 --gpu-memory 64M -S 128M"
			same_one rec100-gpu-merge "-n 4M --record-size 100 -k bytes10 --dist fewunique" "--record-size 100 -k bytes10 --gpu-memory 64M --merge-engine=gpu"
			same_one u64-pipe "-n 32M -k u64" "-k u64 --device 0" cat
			same_one u64-small-cpu "-n 8M -k u64" "-k u64"
		} > "$O/same.log" 2>&1
		rm -rf "$d"
		cat "$O/same.log"
		;;
	bench)
		sh bench/run.sh --workloads "u64 rec100" --sizes "${BENCH_SIZES:-4}" --tools gpusort \
			--baseline "$C/gpusort-old" --csv "$O/bench.csv" > "$O/bench.md" 2> "$O/bench.err"
		echo "bench rc=$?"
		cat "$O/bench.md"
		;;
	esac
	echo "[$step: $(($(date +%s) - t0)) s]"
done
