# tests/lib.sh - helpers for tests/cli.sh (POSIX sh; sourced, not run).
#
# Programs under test (override for trials): GPUSORT (gpusort), GEN
# (bench/gen), REFSORT (tests/refsort), by default in the repository root
# above tests/. Paths are made absolute because the tests run inside their
# own temporary directory $T.
#
# Every test case prints exactly one line: PASS name / FAIL name: why /
# SKIP name: why.

abspath() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$(pwd)" "$1" ;;
	esac
}

# the repository root: the directory above tests/
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GS=$(abspath "${GPUSORT:-$ROOT/gpusort}")
GEN=$(abspath "${GEN:-$ROOT/bench/gen}")
REF=$(abspath "${REFSORT:-$ROOT/tests/refsort}")
# the test build (make tests/bin/gpusort-test): reads the GPUSORT_* path
# switches and fault injection of tests/README.md, which ./gpusort ignores
GST=$(abspath "${GPUSORT_TEST:-$ROOT/tests/bin/gpusort-test}")

# gsrun ARGS...: run gpusort, killed after $CLI_TIMEOUT s (default 300) where
# timeout(1) exists, so that a hang fails (status 124) instead of blocking;
# with GS_NOFILE set, under `ulimit -n $GS_NOFILE`.
if command -v timeout >/dev/null 2>&1 && [ "${CLI_TIMEOUT:-300}" != 0 ]; then
	gsexec() { exec timeout -k 5 "${CLI_TIMEOUT:-300}" "$@"; }
else
	gsexec() { exec "$@"; }
fi
GS_NOFILE=
gsrun() { (
	if [ -n "$GS_NOFILE" ]; then ulimit -n "$GS_NOFILE" || exit 125; fi
	gsexec "$GS" "$@"
); }
# gstrun ARGS...: gsrun with the test build
gstrun() { (
	if [ -n "$GS_NOFILE" ]; then ulimit -n "$GS_NOFILE" || exit 125; fi
	gsexec "$GST" "$@"
); }

# need_built SCRIPT: gpusort, its test build, bench/gen and tests/refsort must be built;
# else one FAIL line naming SCRIPT, and exit.
need_built() {
	for _p in "$GS" "$GST" "$GEN" "$REF"; do
		if [ ! -x "$_p" ]; then
			echo "FAIL $1: $_p is missing (run make first)"
			exit 1
		fi
	done
}

NFAIL=0
pass() { printf 'PASS %s\n' "$1"; }
fail() { _n=$1; shift; printf 'FAIL %s: %s\n' "$_n" "$*"; NFAIL=$((NFAIL + 1)); }
skip() { _n=$1; shift; printf 'SKIP %s: %s\n' "$_n" "$*"; }

# The scratch directory; everything a test writes lives under it.
T=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-cli.XXXXXX") || { echo "FAIL cli.sh: mktemp -d failed"; exit 1; }
cleanup() {
	umount "$T/tfull" 2>/dev/null # a test's tmpfs, when it stopped half way
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP PIPE
cd "$T" || exit 1
# gpusort's own default spill directory comes from TMPDIR: keep it inside $T
# so that a forgotten temp file shows up (see no_stray_temps).
mkdir defaulttmp
TMPDIR=$T/defaulttmp
export TMPDIR

IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1

HAVE_PY=0
command -v python3 >/dev/null 2>&1 && HAVE_PY=1

# Seeded shell PRNG (LCG); the result is left in R, in [0, $1).
SEED=${CLI_SEED:-12345}
rnd() {
	SEED=$(( (SEED * 1103515245 + 12345) % 2147483648 ))
	R=$(( (SEED / 65536) % $1 ))
}

# gen ARGS... : run the data generator; a failure is a FAIL line of its own
# (the cases that needed the data are then left out).
gen() {
	"$GEN" "$@" 2>gen.err || {
		fail "gen[$(echo "$*" | tr ' ' ,)]" "bench/gen failed: $(head -n1 gen.err)"
		return 1
	}
}

# first line of a file, for FAIL reasons
first() { head -n1 "$1" 2>/dev/null; }

# nlines FILE: number of lines
nlines() { wc -l < "$1" | tr -d ' '; }

# isempty DIR: true when DIR has no entries
isempty() { [ -z "$(ls -A "$1" 2>/dev/null)" ]; }

# fsize FILE: size in bytes
fsize() { wc -c < "$1" | tr -d ' '; }

# check_ok NAME RC GOT EXP ERR: the common verdict of a sort that must
# succeed and produce EXP byte for byte.
check_ok() {
	if [ "$2" -eq 124 ]; then
		fail "$1" "timed out after ${CLI_TIMEOUT:-300} s"
	elif [ "$2" -ne 0 ]; then
		fail "$1" "exit status $2: $(tr '\n' '|' < "$5" | head -c 300)"
	elif ! cmp -s "$3" "$4"; then
		fail "$1" "output differs from refsort: $(cmp "$3" "$4" 2>&1 | head -n1)"
	else
		pass "$1"
	fi
}

# sortcase NAME INPUT "ARGS" ["GPUSORT-ONLY ARGS"]
# ARGS (--record-size, -k, -r, -u) go to both gpusort and refsort; the
# expected output is refsort's. Words are split on blanks (no quoting).
# INPUT "-": the data comes from sortcase's stdin and reaches gpusort through
# a pipe, with no file operand (put "-" in GPUSORT-ONLY ARGS to name it).
sortcase() {
	_sn=$1 _si=$2 _sa=$3 _sx=$4
	if [ "$_si" = - ]; then
		cat > stdin.bin
		_sf=stdin.bin
	else
		_sf=$_si
	fi
	if ! "$REF" $_sa < "$_sf" > exp.bin 2> ref.err; then
		fail "$_sn" "refsort failed: $(first ref.err)"
		return 1
	fi
	if [ "$_si" = - ]; then
		# through a pipe, not a regular file on stdin
		cat stdin.bin | gsrun $_sx $_sa > got.bin 2> gs.err
	else
		gsrun $_sx $_sa "$_si" > got.bin 2> gs.err
	fi
	check_ok "$_sn" $? got.bin exp.bin gs.err
}

# errcase NAME "GPUSORT ARGS" [STDIN-FILE]
# The run must fail: exit status 2, exactly one line on stderr, starting
# "gpusort: ", nothing on stdout. It is then run again with -o pointing to
# an existing file, which must be left untouched, with no file added beside
# it. On success the stderr line is left in ERRLINE.
errcase() {
	_en=$1 _ea=$2 _ein=${3:-/dev/null}
	ERRLINE=
	gsrun $_ea < "$_ein" > err.out 2> err.err
	_erc=$?
	ERRLINE=$(first err.err)
	if [ $_erc -ne 2 ]; then
		fail "$_en" "exit status $_erc, want 2 (stderr: $ERRLINE)"
		return 1
	fi
	if [ -s err.out ]; then
		fail "$_en" "$(fsize err.out) bytes on stdout"
		return 1
	fi
	if [ "$(nlines err.err)" != 1 ]; then
		fail "$_en" "want one line on stderr, got $(nlines err.err): $(tr '\n' '|' < err.err)"
		return 1
	fi
	case $ERRLINE in
	"gpusort: "?*) ;;
	*) fail "$_en" "stderr does not start with 'gpusort: ': $ERRLINE"; return 1 ;;
	esac
	rm -rf errodir && mkdir errodir && printf 'precious\n' > errodir/out
	gsrun $_ea -o errodir/out < "$_ein" > /dev/null 2> err2.err
	_erc=$?
	if [ $_erc -ne 2 ]; then
		fail "$_en" "with -o: exit status $_erc, want 2"
		return 1
	fi
	if [ "$(cat errodir/out)" != precious ]; then
		fail "$_en" "with -o: the existing output file was changed"
		return 1
	fi
	if [ "$(ls -A errodir)" != out ]; then
		fail "$_en" "with -o: files left beside the output: $(ls -A errodir | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# no_stray_temps NAME: the default spill directory must be empty.
no_stray_temps() {
	if ! isempty "$TMPDIR"; then
		fail "$1" "temp files left in \$TMPDIR: $(ls -A "$TMPDIR" | tr '\n' ' ')"
		rm -rf "${TMPDIR:?}"/* "${TMPDIR:?}"/.[!.]* 2>/dev/null
		return 1
	fi
	return 0
}

# mkidx N K FILE: N records of 4 bytes, byte 0 = key ((i * 7919) % K),
# bytes 1..3 = i as a big-endian 24-bit number (the input position). Built
# without gpusort, bench/gen or refsort, for direct stability checks.
mkidx() {
	awk -v n="$1" -v k="$2" 'BEGIN {
		for (i = 0; i < n; i++) {
			printf "\\%03o\\%03o\\%03o\\%03o", (i * 7919) % k,
				int(i / 65536) % 256, int(i / 256) % 256, i % 256
			if (i % 64 == 63) printf "\n"
		}
		printf "\n"
	}' | while IFS= read -r _line; do printf "$_line"; done > "$3"
}

# mkspecials WIDTH(4|8) BIGENDIAN(0|1) N FILE: N records of WIDTH+1 bytes,
# a float from a fixed list of special and ordinary values, then a tag byte
# (record number % 256).
mkspecials() {
	awk -v w="$1" -v be="$2" -v n="$3" 'BEGIN {
		if (w == 8) s = "0000000000000000 8000000000000000 7ff0000000000000 fff0000000000000 " \
			"7ff8000000000000 fff8000000000000 7ff0000000000001 fff0000000000001 " \
			"7fffffffffffffff ffffffffffffffff 3ff0000000000000 bff0000000000000 " \
			"0000000000000001 8000000000000001 7fefffffffffffff ffefffffffffffff " \
			"7ff8000000000002 fff8000000000002"
		else s = "00000000 80000000 7f800000 ff800000 7fc00000 ffc00000 7f800001 ff800001 " \
			"7fffffff ffffffff 3f800000 bf800000 00000001 80000001 7f7fffff ff7fffff " \
			"7fc00002 ffc00002"
		np = split(s, p, " ")
		for (i = 0; i < 16; i++) hv[substr("0123456789abcdef", i + 1, 1)] = i
		for (i = 0; i < n; i++) {
			h = p[(i * 7 + int(i / np)) % np + 1]
			for (j = 0; j < w; j++) {
				b = be ? j : w - 1 - j
				printf "\\%03o", hv[substr(h, 2 * b + 1, 1)] * 16 + hv[substr(h, 2 * b + 2, 1)]
			}
			printf "\\%03o", i % 256
			if (i % 64 == 63) printf "\n"
		}
		printf "\n"
	}' | while IFS= read -r _line; do printf "$_line"; done > "$4"
}

# idxdump FILE: "key index" per 4-byte record of a mkidx file
idxdump() {
	od -An -v -tu1 "$1" | awk '{
		for (f = 1; f <= NF; f++) {
			b[m++ % 4] = $f
			if (m % 4 == 0) print b[0], b[1] * 65536 + b[2] * 256 + b[3]
		}
	}'
}

# sigdfl_exec CMD ARGS...: exec CMD with SIGINT and SIGTERM at their default
# disposition (a non-interactive shell starts background jobs with SIGINT
# ignored, which a careful program keeps ignored). Run it as `sigdfl_exec
# ... &` so that $! is CMD's pid. HAVE_SIGDFL=0 when there is no way.
HAVE_SIGDFL=0
if env --default-signal=INT,TERM true 2>/dev/null; then
	HAVE_SIGDFL=1
	sigdfl_exec() { exec env --default-signal=INT,TERM "$@"; }
elif [ $HAVE_PY = 1 ]; then
	HAVE_SIGDFL=1
	sigdfl_exec() {
		exec python3 -c 'import signal, os, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
	}
else
	sigdfl_exec() { exec "$@"; }
fi
