#!/bin/sh
# tests/gpu/sanitize.sh - compute-sanitizer memcheck and racecheck on the
# kernels at a small size (tests/gpu/test_gpu_sort --small, and each
# sorter of the registry: tests/gpu/test_sorters --small --sorter NAME).
cd "$(dirname "$0")/../.." || exit 2
if ! command -v compute-sanitizer > /dev/null 2>&1; then
	echo "SKIP sanitizer: compute-sanitizer not found"; exit 0
fi
if tests/gpu/test_gpu_sort --small | grep -q '^SKIP'; then
	echo "SKIP sanitizer: no CUDA device"; exit 0
fi
rc=0
# TOOL NAME ARGS...: one sanitizer run; racecheck is slow on the large
# sorters' kernels, so each run has SANITIZE_LIMIT seconds (default 300):
# past it, a SKIP that says how many cases had passed
one() {
	tool=$1 nm=$2; shift 2
	log=$(mktemp)
	timeout "${SANITIZE_LIMIT:-300}" compute-sanitizer --tool $tool --error-exitcode 9 "$@" > "$log" 2>&1
	st=$?
	if [ $st = 124 ] && ! grep -q '^FAIL' "$log" && ! grep -qE 'Invalid|Race|Hazard' "$log"; then
		echo "SKIP sanitizer-$tool/$nm: stopped after ${SANITIZE_LIMIT:-300} s, $(grep -c '^PASS' "$log") cases clean before"
	elif [ $st = 0 ] && ! grep -q '^FAIL' "$log"; then
		echo "PASS sanitizer-$tool/$nm: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | head -n 1)"
	else
		echo "FAIL sanitizer-$tool/$nm: $(grep -E 'SUMMARY|^FAIL|Invalid|Race|Hazard' "$log" | head -n 3 | tr '\n' '|')"
		rc=1
	fi
	rm -f "$log"
}
for tool in memcheck racecheck; do
	one $tool test_gpu_sort tests/gpu/test_gpu_sort --small
	for s in $(./gpusort --help | sed -n 's/^GPU engines in this build (--algorithm)://p'); do
		one $tool "test_sorters/$s" tests/gpu/test_sorters --small --sorter "$s"
	done
done
exit $rc
