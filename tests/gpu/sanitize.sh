#!/bin/sh
# tests/gpu/sanitize.sh - compute-sanitizer memcheck and racecheck on the
# kernels at a small size (tests/gpu/test_gpu_sort --small, and every
# sorter of the registry: tests/gpu/test_sorters --small).
cd "$(dirname "$0")/../.." || exit 2
if ! command -v compute-sanitizer > /dev/null 2>&1; then
	echo "SKIP sanitizer: compute-sanitizer not found"; exit 0
fi
if tests/gpu/test_gpu_sort --small | grep -q '^SKIP'; then
	echo "SKIP sanitizer: no CUDA device"; exit 0
fi
rc=0
for t in test_gpu_sort test_sorters; do
	for tool in memcheck racecheck; do
		log=$(mktemp)
		if compute-sanitizer --tool $tool --error-exitcode 9 tests/gpu/$t --small > "$log" 2>&1 &&
		   ! grep -q '^FAIL' "$log"; then
			echo "PASS sanitizer-$tool/$t: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | head -n 1)"
		else
			echo "FAIL sanitizer-$tool/$t: $(grep -E 'SUMMARY|^FAIL|Invalid|Race' "$log" | head -n 3 | tr '\n' '|')"
			rc=1
		fi
		rm -f "$log"
	done
done
exit $rc
