#!/bin/sh
# tests/gpu/run_device.sh [test] [bench] [memcheck] [racecheck]
# One device session: build the GPU test and bench, then run the named steps.
# Logs go to $OUT (or /tmp/gpusort-gpu); a short summary to stdout.
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/gpusort-gpu}
mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$O/device.txt"
A="-gencode arch=compute_90,code=sm_90"
(nvcc -O2 -std=c++17 $A -Ikernels tests/gpu/test_gpu_sort.cu kernels/*.cu kernels/gpu_errors.c -o tests/gpu/test_gpu_sort >"$O/build_test.log" 2>&1; echo "build test rc=$?") &
(nvcc -O3 -std=c++17 $A -Ikernels bench/gpu_bench.cu -o bench/gpu_bench >"$O/build_bench.log" 2>&1; echo "build bench rc=$?") &
wait
head -c 3000 "$O/build_test.log" "$O/build_bench.log"
for step in "$@"; do
	t0=$(date +%s)
	case $step in
	test)
		timeout ${TEST_T:-400} tests/gpu/test_gpu_sort >"$O/test.log" 2>&1
		echo "test rc=$?"
		grep -v '^PASS' "$O/test.log" | head -n 40
		;;
	small)
		timeout 60 tests/gpu/test_gpu_sort --small >"$O/small.log" 2>&1
		echo "small rc=$?"
		grep -v '^PASS' "$O/small.log" | head -n 20
		;;
	bench)
		timeout 150 bench/gpu_bench 24 30 ${RUNS:-3} >"$O/bench.md" 2>&1
		echo "bench rc=$?"
		cat "$O/bench.md"
		;;
	memcheck | racecheck)
		timeout ${SAN_T:-100} compute-sanitizer --tool $step --error-exitcode 9 tests/gpu/test_gpu_sort --small >"$O/$step.log" 2>&1
		echo "$step rc=$?"
		grep -v '^PASS' "$O/$step.log" | tail -n 12
		;;
	esac
	echo "[$step: $(($(date +%s) - t0)) s]"
done
