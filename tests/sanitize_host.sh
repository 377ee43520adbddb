#!/bin/sh
# tests/sanitize_host.sh [address|thread] - `make check` with the host code
# (src/, io/, the tests' C) built under a compiler sanitizer:
#   address  AddressSanitizer and UndefinedBehaviorSanitizer (the default)
#   thread   ThreadSanitizer (data races between the sort's, merge's and
#            I/O workers' threads)
# It runs in a copy of the working tree, build/sanitize-KIND/ (the test
# scripts find their programs beside them), built without CUDA: the GPU
# paths' host code runs on the fake GPU (tests/fakegpu.sh, tests/faults.sh).
# Every report fails the run: a program stops at its first ASan or UBSan
# report (status 86 or 87, so that a test that wants status 1 or 2 fails
# too); ASan's and TSan's reports are written to build/sanitize-KIND/reports/
# and counted at the end; UBSan's go to the program's standard error (its
# runtime ignores log_path beside ASan), which the failing test quotes. The peak-memory tests say SKIP (GPUSORT_SANITIZED: the shadow
# memory is not the program's). About 40 minutes on 2 cores for address.
# `make check-sanitize SANITIZE=KIND` runs it.
set -u
kind=${1:-address}
case $kind in
address) flags='-fsanitize=address,undefined -fno-omit-frame-pointer' ;;
thread) flags='-fsanitize=thread' ;;
*) echo "usage: sh tests/sanitize_host.sh [address|thread]" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/build/sanitize-$kind
rep=$dir/reports
rm -rf "$dir" && mkdir -p "$dir" "$rep" || exit 2
# the working tree as it is: tracked files and new ones not ignored
(cd "$root" && git ls-files -z -c -o --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$dir" || exit 2
export GPUSORT_SANITIZED=$kind
export ASAN_OPTIONS="detect_leaks=0:exitcode=86:log_path=$rep/asan"
export UBSAN_OPTIONS="halt_on_error=1:exitcode=87:print_stacktrace=1:log_path=$rep/ubsan"
export TSAN_OPTIONS="halt_on_error=0:exitcode=66:log_path=$rep/tsan"
make -C "$dir" CUDA=no CFLAGS="-O1 -g $flags" check
rc=$?
n=$(ls "$rep" | wc -l)
if [ "$n" -gt 0 ]; then
	echo "FAIL sanitize-$kind: $n report(s) in $rep:"
	grep -h -m 1 -E '^SUMMARY|runtime error' "$rep"/* | sort | uniq -c
	exit 1
fi
if [ $rc != 0 ]; then
	echo "FAIL sanitize-$kind: make check failed (status $rc): see the FAIL lines above"
	exit 1
fi
echo "PASS sanitize-$kind: no report"
