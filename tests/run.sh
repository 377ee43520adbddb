#!/bin/sh
# tests/run.sh - the test runner of `make check` (POSIX sh).
#
#   sh tests/run.sh [UNIT-TEST-PROGRAM]...
#
# Runs each unit-test program, then `sh tests/cli.sh` and `sh tests/stream.sh`.
# Every program prints one line per test case on stdout: "PASS name",
# "FAIL name: why" or "SKIP name: why"; those lines are echoed and counted
# (other output is passed through). A program that crashes (killed by a
# signal), cannot be run, or exits non-zero without having printed a FAIL
# line counts as one more FAIL line naming the program. The last line is
#   N passed, M failed[, K skipped]
# and the exit status is 1 if M > 0 or N == 0, else 0.
# Ignored arguments: an unexpanded glob (no unit tests built) and compiler
# by-products (*.d, *.o) that a glob like tests/bin/test_* also matches.

here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp "${TMPDIR:-/tmp}/gpusort-run.XXXXXX") || exit 1
rcf=$(mktemp "${TMPDIR:-/tmp}/gpusort-rc.XXXXXX") || { rm -f "$log"; exit 1; }
trap 'rm -f "$log" "$log.one" "$rcf"' EXIT
trap 'exit 2' INT TERM HUP PIPE

# runone NAME CMD...: run CMD, echo its output, count its lines into $log.
runone() {
	_name=$1
	shift
	: > "$rcf"
	# the exit status travels through a file: a pipeline's status is its last
	# command's
	{ "$@"; echo $? > "$rcf"; } | tee "$log.one"
	_rc=$(cat "$rcf")
	[ -n "$_rc" ] || _rc=255
	_fails=$(grep -c '^FAIL ' "$log.one")
	cat "$log.one" >> "$log"
	rm -f "$log.one"
	if [ "$_rc" -gt 128 ] && [ "$_rc" -lt 160 ]; then
		echo "FAIL $_name: killed by signal $((_rc - 128))" | tee -a "$log"
	elif [ "$_rc" -eq 126 ] || [ "$_rc" -eq 127 ]; then
		echo "FAIL $_name: could not be run (status $_rc)" | tee -a "$log"
	elif [ "$_rc" -ne 0 ] && [ "$_fails" -eq 0 ]; then
		echo "FAIL $_name: exited with status $_rc" | tee -a "$log"
	fi
}

for prog in "$@"; do
	case $prog in
	*'*'*) [ -e "$prog" ] || continue ;;   # glob that matched nothing
	*.d | *.o) continue ;;                  # build by-products beside tests
	esac
	if [ ! -x "$prog" ]; then
		echo "FAIL $prog: not an executable file" | tee -a "$log"
		continue
	fi
	case $prog in
	/*) runone "$prog" "$prog" ;;
	*) runone "$prog" "./$prog" ;;
	esac
done
runone tests/cli.sh sh "$here/cli.sh"
runone tests/stream.sh sh "$here/stream.sh"

npass=$(grep -c '^PASS ' "$log")
nfail=$(grep -c '^FAIL ' "$log")
nskip=$(grep -c '^SKIP ' "$log")
if [ "$nskip" -gt 0 ]; then
	echo "$npass passed, $nfail failed, $nskip skipped"
else
	echo "$npass passed, $nfail failed"
fi
[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]
