#!/bin/sh
# tests/gpu/portable.sh - issue 18's checks on a GPU machine, for binaries
# built elsewhere and brought in .device/:
#   fat/gpusort, fat/gpusort-test   built with `make CUDA_ARCH='$(CUDA_ARCH_ALL)'`
#                                   (SASS for sm_75..sm_120, compute_75 PTX)
#   noimg/gpusort-test              SASS for sm_75 alone, no PTX: no code for
#                                   this GPU unless it is a 7.x one
# and ./gpusort, bench/gen, tests/refsort (any build). It checks that
#   - the fat binary's kernels give the CPU engine's bytes (identity.sh), and
#     so does its PTX, compiled by the driver (CUDA_FORCE_PTX_JIT=1), as on
#     a GPU newer than every SASS target;
#   - no device (CUDA_VISIBLE_DEVICES=) and no code for the device sort on
#     the CPU silently, correct output, --stats saying why; with --device 0
#     they are a clear error (exit 2);
#   - a GPU that fails after start-up (the test build's gpu-fail faults, on
#     the real device) hands the job to the CPU: correct output, a warning;
#   - a plain sort on the GPU prints nothing on standard error.
# Prints PASS/FAIL/SKIP lines; exit 1 on any failure.
cd "$(dirname "$0")/../.." || exit 2
C=.device
F=$C/fat/gpusort FT=$C/fat/gpusort-test NI=$C/noimg/gpusort-test GEN=./bench/gen
for p in "$F" "$FT" "$NI" "$GEN" ./gpusort; do
	[ -x "$p" ] || { echo "FAIL portable: $p is missing"; exit 1; }
done
if ! nvidia-smi > /dev/null 2>&1; then echo "SKIP portable: no GPU here"; exit 0; fi
d=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-portable.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
fails=0
bad() { echo "FAIL $1: $2"; fails=1; }
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1)

$GEN -n 64M -k u64 -o "$d/u64" 2> /dev/null
$GEN -n 4M --record-size 100 -k bytes10 --dist zipf -o "$d/r100" 2> /dev/null
./gpusort -k u64 --cpu "$d/u64" -o "$d/u64.cpu"
./gpusort --record-size 100 -k bytes10 --cpu "$d/r100" -o "$d/r100.cpu"

# ok NAME WANT-RC FILE-OR-"" CMD...: CMD exits WANT-RC; with FILE, $d/out == FILE
ok() {
	nm=$1 want=$2 ref=$3
	shift 3
	"$@" > "$d/stdout" 2> "$d/err"
	rc=$?
	if [ $rc != "$want" ]; then bad "$nm" "exit status $rc, not $want: $(head -n 1 "$d/err")"; return 1; fi
	if [ -n "$ref" ] && ! cmp -s "$d/out" "$ref"; then bad "$nm" "output differs from the CPU engine's"; return 1; fi
	return 0
}

# the fat binary's SASS (this GPU's), then its PTX through the driver's JIT
for b in "$F" "$FT"; do
	"$b" --stats -k u32 --device 0 "$d/u64" -o /dev/null 2> "$d/err" || bad "fat-runs" "$b: $(head -n 1 "$d/err")"
done
for jit in 0 1; do
	nm=fat-u64-jit$jit
	ok $nm 0 "$d/u64.cpu" env CUDA_FORCE_PTX_JIT=$jit $F -k u64 --device 0 --stats "$d/u64" -o "$d/out" &&
		{ grep -q "engine gpu:bitonic" "$d/err" && echo "PASS $nm ($(grep -o 'wall [0-9.]* s' "$d/err"))" ||
			bad $nm "not on the GPU: $(grep -o 'engine [^,]*' "$d/err")"; }
	nm=fat-r100-jit$jit
	ok $nm 0 "$d/r100.cpu" env CUDA_FORCE_PTX_JIT=$jit $F --record-size 100 -k bytes10 --device 0 --gpu-memory 256M "$d/r100" -o "$d/out" &&
		echo "PASS $nm"
done

# no device: the CPU, silently; --device 0 an error. The test builds with
# GPUSORT_SMALL_CPU=0, else this input is small enough for the CPU anyway
export GPUSORT_SMALL_CPU=0
nm=no-device-silent
ok $nm 0 "$d/u64.cpu" env CUDA_VISIBLE_DEVICES= $FT -k u64 "$d/u64" -o "$d/out" &&
	{ [ -s "$d/err" ] && bad $nm "stderr: $(head -n 1 "$d/err")" || echo "PASS $nm"; }
nm=no-device-stats
ok $nm 0 "" env CUDA_VISIBLE_DEVICES= $FT -k u64 --stats "$d/u64" -o "$d/out" &&
	{ grep -q "GPU not used: " "$d/err" && echo "PASS $nm ($(grep -o 'GPU not used: .*' "$d/err"))" ||
		bad $nm "no reason: $(head -n 2 "$d/err" | tr '\n' ' ')"; }
nm=no-device-asked
ok $nm 2 "" env CUDA_VISIBLE_DEVICES= $F -k u64 --device 0 "$d/u64" -o "$d/out" &&
	{ grep -q "^gpusort: cannot use the GPU: " "$d/err" && echo "PASS $nm ($(head -n 1 "$d/err"))" ||
		bad $nm "$(head -n 1 "$d/err")"; }

# no code for this GPU (sm_75 SASS alone): the CPU, silently; --device 0 an error
case $cc in
7.*) echo "SKIP no-image: this GPU ($cc) runs sm_75 code" ;;
*)
	nm=no-image-silent
	ok $nm 0 "$d/u64.cpu" $NI -k u64 "$d/u64" -o "$d/out" &&
		{ [ -s "$d/err" ] && bad $nm "stderr: $(head -n 1 "$d/err")" || echo "PASS $nm"; }
	nm=no-image-stats
	ok $nm 0 "" $NI -k u64 --stats "$d/u64" -o "$d/out" &&
		{ grep -q "GPU not used: .*no kernel image for compute capability $cc" "$d/err" &&
			echo "PASS $nm ($(grep -o 'GPU not used: .*' "$d/err"))" ||
			bad $nm "$(grep -v 'stats: [0-9a-z]* [0-9]' "$d/err" | head -n 2 | tr '\n' ' ')"; }
	nm=no-image-asked
	ok $nm 2 "" $NI -k u64 --device 0 "$d/u64" -o "$d/out" &&
		{ grep -q "^gpusort: cannot use the GPU: .*no kernel image" "$d/err" && echo "PASS $nm ($(head -n 1 "$d/err"))" ||
			bad $nm "$(head -n 1 "$d/err")"; }
	;;
esac

# the GPU fails after start-up, on the real device: the CPU takes over
failed() { # NAME "VAR=VALUE..." ARGS...
	nm=gpu-fails-$1 vars=$2
	shift 2
	ok $nm 0 "$d/u64.cpu" env $vars $FT -k u64 --stats "$@" "$d/u64" -o "$d/out" &&
		{ grep -q "^gpusort: warning: the GPU failed, the CPU engine finished the sort" "$d/err" &&
			echo "PASS $nm" || bad $nm "no warning: $(grep -v 'stats:' "$d/err" | head -n 1)"; }
}
failed resident-one-chunk GPUSORT_FAULT=gpu-fail --device 0
failed resident-kept GPUSORT_FAULT=gpu-fail --device 0 --gpu-memory 128M
failed resident-spilled GPUSORT_FAULT=gpu-fail --device 0 --gpu-memory 128M -S 256M -T "$d"
failed chunked "GPUSORT_FAULT=gpu-fail GPUSORT_RESIDENT=0" --device 0 --gpu-memory 128M
failed gpu-merge GPUSORT_FAULT=gpu-fail-merge --device 0 --gpu-memory 128M

# quiet on success, on the GPU
unset GPUSORT_SMALL_CPU
nm=gpu-quiet
ok $nm 0 "$d/u64.cpu" $F -k u64 --device 0 "$d/u64" -o "$d/out" &&
	{ [ -s "$d/err" ] && bad $nm "stderr: $(head -n 1 "$d/err")" || echo "PASS $nm"; }
exit $fails
