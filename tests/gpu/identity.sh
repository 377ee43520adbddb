#!/bin/sh
# tests/gpu/identity.sh - the GPU engine's output must be byte-identical to
# the CPU engine's (both are stable), over key types, record sizes 4..256,
# sizes around powers of two, the DESIGN.md distributions, and device budgets
# that make 1, 2 and many chunks. Prints PASS/FAIL/SKIP lines.
cd "$(dirname "$0")/../.." || exit 2
G=./gpusort GEN=./bench/gen
d=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-gpuid.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
printf '' > "$d/empty"
if ! $G -k u32 --algorithm=bitonic "$d/empty" > /dev/null 2> "$d/probe"; then
	echo "SKIP gpu-identity: no usable CUDA device ($(head -n 1 "$d/probe"))"
	exit 0
fi
fails=0
one() { # NAME GENARGS SORTARGS DEVARGS
	$GEN $2 -o "$d/in" 2> /dev/null || { echo "FAIL $1: gen $2"; fails=1; return; }
	if ! $G $3 --cpu "$d/in" > "$d/cpu" 2> "$d/cpu.err"; then
		echo "FAIL $1: cpu engine: $(head -n 1 "$d/cpu.err")"; fails=1; return
	fi
	if ! $G $3 --algorithm=bitonic $4 "$d/in" > "$d/gpu" 2> "$d/gpu.err"; then
		echo "FAIL $1: gpu engine: $(head -n 1 "$d/gpu.err")"; fails=1; return
	fi
	if cmp -s "$d/cpu" "$d/gpu"; then echo "PASS $1"; else echo "FAIL $1: GPU output differs from CPU"; fails=1; fi
}
for dist in uniform gaussian zipf sorted reverse equal bucket staggered fewunique; do
	for n in 1 2 1023 1024 1025 65537 1048575 1048576 1048577; do
		one "gpu-id-u32-$dist-n$n" "-n $n -k u32 --dist $dist" "-k u32" ""
	done
	one "gpu-id-u64-$dist" "-n 300001 -k u64 --dist $dist" "-k u64" ""
	one "gpu-id-rec16-$dist" "-n 200003 --record-size 16 -k u64@8 -k i32@0 --dist $dist" "--record-size 16 -k u64@8 -k i32@0:r" ""
	one "gpu-id-gensort-$dist" "-n 100001 --record-size 100 -k bytes10 --dist $dist" "--record-size 100 -k bytes10" ""
done
for t in u8 u16 i8 i16 i32 i64 f32 f64 u32be i64be f64be bytes3 bytes16 bytes33; do
	one "gpu-id-type-$t" "-n 50001 --record-size 64 -k $t --dist fewunique" "--record-size 64 -k $t" ""
	one "gpu-id-type-$t-r" "-n 50001 --record-size 64 -k $t --dist uniform" "--record-size 64 -k $t:r" ""
done
for rs in 4 5 8 12 24 100 128 256; do
	one "gpu-id-recsize-$rs" "-n 70001 --record-size $rs -k u32 --dist zipf" "--record-size $rs -k u32" ""
done
one "gpu-id-whole-record-40" "-n 70001 --record-size 40" "--record-size 40" ""
one "gpu-id-floats-specials" "-n 100000 -k f64 --specials" "-k f64" ""
# device budgets that make 2 and many chunks (merged afterwards)
one "gpu-id-2chunks" "-n 8M -k u64 --dist uniform" "-k u64" "--gpu-memory 40M"
one "gpu-id-many-chunks" "-n 8M -k u64 --dist fewunique" "-k u64" "--gpu-memory 8M"
one "gpu-id-many-chunks-rec100" "-n 1M --record-size 100 -k bytes10" "--record-size 100 -k bytes10" "--gpu-memory 16M"
exit $fails
