#!/bin/sh
# tests/gpu/identity.sh - the GPU engine's output must be byte-identical to
# the CPU engine's (both are stable), over key types, record sizes 4..256,
# sizes around powers of two, the DESIGN.md distributions, and device budgets
# that make 1, 2 and many chunks (with the cross-chunk overlap and without,
# GPUSORT_OVERLAP=0; IDENTITY_ONLY=GLOB runs the named cases alone). All
# of it with the bitonic sorter; then every other
# sorter of the build through the same pipeline over the distributions, key
# widths, general records, tie refinement and several chunks (what differs
# between engines is the word sort alone). Prints PASS/FAIL/SKIP lines.
cd "$(dirname "$0")/../.." || exit 2
# the GPU runs use the test build (the same code as ./gpusort, plus the
# GPUSORT_* path switches of tests/README.md); the CPU references ./gpusort
G=./tests/bin/gpusort-test GI=./gpusort GEN=./bench/gen
[ -x $G ] || { echo "FAIL gpu-identity: $G is missing (make tests/bin/gpusort-test)"; exit 1; }
# small inputs would go to the CPU engine (the planner's small-input rule): this is about the device
export GPUSORT_SMALL_CPU=0
d=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-gpuid.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
printf '' > "$d/empty"
if ! $G -k u32 --algorithm=bitonic "$d/empty" > /dev/null 2> "$d/probe"; then
	echo "SKIP gpu-identity: no usable CUDA device ($(head -n 1 "$d/probe"))"
	exit 0
fi
fails=0
ENG=bitonic # the in-device sorter of the GPU runs (--algorithm)
# IDENTITY_ONLY=GLOB[|GLOB...]: only the cases of one() and overlap() (and
# gpu-merge-spilled) whose names match
only() {
	[ -z "${IDENTITY_ONLY:-}" ] && return 0
	_rest=$IDENTITY_ONLY
	while :; do
		_p=${_rest%%|*}
		case $1 in $_p) return 0 ;; esac
		[ "$_p" = "$_rest" ] && return 1
		_rest=${_rest#*|}
	done
}
one() {
	only "$1" || return 0 # NAME GENARGS SORTARGS DEVARGS [VAR=VALUE for the GPU run]
	$GEN $2 -o "$d/in" 2> /dev/null || { echo "FAIL $1: gen $2"; fails=1; return; }
	if ! $GI $3 --cpu "$d/in" > "$d/cpu" 2> "$d/cpu.err"; then
		echo "FAIL $1: cpu engine: $(head -n 1 "$d/cpu.err")"; fails=1; return
	fi
	if ! env ${5:-GPUSORT_RESIDENT=1} $G $3 --algorithm=$ENG $4 --stats "$d/in" > "$d/gpu" 2> "$d/gpu.err"; then
		echo "FAIL $1: gpu engine: $(head -n 1 "$d/gpu.err")"; fails=1; return
	fi
	# the sorter named must have sorted (a chunk it cannot take goes to the CPU, whose bytes are the same)
	if ! grep -q "engine gpu:$ENG" "$d/gpu.err"; then
		echo "FAIL $1: not sorted by gpu:$ENG: $(grep 'stats:.*engine' "$d/gpu.err" | head -n 1)"; fails=1; return
	fi
	if cmp -s "$d/cpu" "$d/gpu"; then echo "PASS $1"; else echo "FAIL $1: GPU output differs from CPU"; fails=1; fi
}
for dist in uniform gaussian zipf sorted reverse equal bucket staggered fewunique; do
	for n in 1 2 1023 1024 1025 65537 1048575 1048576 1048577; do
		one "gpu-id-u32-$dist-n$n" "-n $n -k u32 --dist $dist" "-k u32" ""
	done
	one "gpu-id-u64-$dist" "-n 300001 -k u64 --dist $dist" "-k u64" ""
	one "gpu-id-rec16-$dist" "-n 200003 --record-size 16 -k u64@8 -k i32@0 --dist $dist" "--record-size 16 -k u64@8 -k i32@0:r" ""
	one "gpu-id-cover8-$dist" "-n 300001 -k u32 -k i32 --dist $dist" "-k u32@4 -k i32@0:r" ""
	one "gpu-id-cover4-$dist" "-n 300001 -k u16 -k u8 -k u8 --dist $dist" "-k i16 -k u8:r -k bytes1" ""
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
one "gpu-id-many-chunks-cover8" "-n 8M -k u32 -k u32 --dist fewunique" "-k f32@4 -k bytes4@0:r" "--gpu-memory 8M"
one "gpu-id-resident-spilled-cover8" "-n 8M -k u32 -k u32 --dist zipf" "-k u32 -k u32" "--gpu-memory 40M -S 80M"
# the device-resident path (the default when the input fits the device):
# several 64 MiB pieces, and the chunked path it replaces, forced off
one "gpu-id-resident-3pieces-u64" "-n 20M -k u64 --dist zipf" "-k u64" ""
one "gpu-id-resident-3pieces-rec100" "-n 1500000 --record-size 100 -k bytes10" "--record-size 100 -k bytes10" ""
one "gpu-id-resident-3pieces-rec16" "-n 10M --record-size 16 -k u64@8 -k i32@0 --dist fewunique" "--record-size 16 -k u64@8 -k i32@0:r" ""
one "gpu-id-chunked-u64" "-n 3M -k u64" "-k u64" "" GPUSORT_RESIDENT=0
one "gpu-id-chunked-rec100" "-n 300001 --record-size 100 -k bytes10" "--record-size 100 -k bytes10" "" GPUSORT_RESIDENT=0
# chunks larger than the device budget, spilled (-S too small to keep them)
one "gpu-id-resident-spilled-runs" "-n 8M -k u64 --dist zipf" "-k u64" "--gpu-memory 40M -S 80M"
# a device that refuses large chunks: retried in halves, kept or spilled, merged
one "gpu-id-oom-retry-kept" "-n 1M -k u64" "-k u64" "" GPUSORT_FAULT=gpu-oom
one "gpu-id-oom-retry-spilled" "-n 300001 --record-size 100 -k bytes10 --dist fewunique" "--record-size 100 -k bytes10" "-S 40M" GPUSORT_FAULT=gpu-oom
$GEN -n 1M -k u64 -o "$d/in" 2> /dev/null
if GPUSORT_FAULT=gpu-oom $G -k u64 --stats "$d/in" -o "$d/gpu" 2>&1 | grep -q " [1-9][0-9]* retries with smaller chunks"; then
	echo "PASS gpu-oom-retry-reported"
else
	echo "FAIL gpu-oom-retry-reported: --stats shows no retries"; fails=1
fi
# an input of unknown size (a pipe): read in order into a chunk of the
# device's capacity, trimmed to what came (gpu_resident_trim); one chunk,
# or the first of many (the chunked path after it), kept or spilled;
# --verify counts what came through the pipe. piped_id NAME GENARGS
# SORTARGS DEVARGS
piped_id() {
	only "$1" || return 0
	$GEN $2 -o "$d/in" 2> /dev/null || { echo "FAIL $1: gen $2"; fails=1; return; }
	if ! $GI $3 --cpu "$d/in" > "$d/cpu" 2> "$d/cpu.err"; then
		echo "FAIL $1: cpu engine: $(head -n 1 "$d/cpu.err")"; fails=1; return
	fi
	if ! cat "$d/in" | $G $3 --algorithm=$ENG $4 --verify --stats > "$d/gpu" 2> "$d/gpu.err"; then
		echo "FAIL $1: gpu engine: $(grep -v 'stats:' "$d/gpu.err" | head -n 1)"; fails=1; return
	fi
	if ! grep -q "engine gpu:$ENG (.*device-resident)" "$d/gpu.err" || ! grep -q "verify: .* multiset ok" "$d/gpu.err"; then
		echo "FAIL $1: not gpu:$ENG (device-resident), or no verify line: $(grep -o 'engine [^,]*' "$d/gpu.err")"; fails=1; return
	fi
	if cmp -s "$d/cpu" "$d/gpu"; then echo "PASS $1"; else echo "FAIL $1: GPU output differs from CPU"; fails=1; fi
}
piped_id "gpu-id-pipe-u64" "-n 3M -k u64 --dist zipf" "-k u64" ""
piped_id "gpu-id-pipe-rec100" "-n 300001 --record-size 100 -k bytes10 --dist fewunique" "--record-size 100 -k bytes10" ""
piped_id "gpu-id-pipe-rec16" "-n 1M --record-size 16 -k u64@8 -k i32@0 --dist fewunique" "--record-size 16 -k u64@8 -k i32@0:r" ""
piped_id "gpu-id-pipe-cover8" "-n 3M -k u32 -k u32 --dist fewunique" "-k u32 -k i32:r" ""
piped_id "gpu-id-pipe-many-kept" "-n 8M -k u64" "-k u64" "--gpu-memory 16M -S 160M"
piped_id "gpu-id-pipe-spilled" "-n 8M -k u64 --dist fewunique" "-k u64" "--gpu-memory 16M -S 40M -T $d"
# the cross-chunk overlap: chunk i+1 read and copied to the device while
# chunk i is copied back. overlap NAME GENARGS SORTARGS DEVARGS [VAR=VALUE]:
# a multi-chunk sort with the overlap (GPUSORT_OVERLAP unset) and without it
# (GPUSORT_OVERLAP=0), both under --verify: the outputs byte-identical to each
# other and to the CPU engine's, and --stats showing chunks copied in while
# the previous one drained with the overlap, none without
overlap() {
	only "$1" || return 0
	$GEN $2 -o "$d/in" 2> /dev/null || { echo "FAIL $1: gen $2"; fails=1; return; }
	if ! $GI $3 --cpu "$d/in" > "$d/cpu" 2> "$d/cpu.err"; then
		echo "FAIL $1: cpu engine: $(head -n 1 "$d/cpu.err")"; fails=1; return
	fi
	vars=${5:-GPUSORT_RESIDENT=1}
	for ov in on 0; do
		if [ $ov = on ]; then ovenv="-u GPUSORT_OVERLAP"; else ovenv=GPUSORT_OVERLAP=0; fi
		if ! env $ovenv $vars $G $3 --algorithm=$ENG $4 --verify --stats "$d/in" > "$d/gpu-$ov" 2> "$d/gpu-$ov.err"; then
			echo "FAIL $1: GPUSORT_OVERLAP=$ov: $(grep -v 'stats:' "$d/gpu-$ov.err" | head -n 1)"; fails=1; return
		fi
		if ! grep -q "device-resident" "$d/gpu-$ov.err" || ! grep -q "verify: .* multiset ok" "$d/gpu-$ov.err"; then
			echo "FAIL $1: GPUSORT_OVERLAP=$ov: not device-resident, or no verify line"; fails=1; return
		fi
	done
	a=$(sed -n 's/^gpusort: stats: gpu: \([0-9]*\) chunks copied to the device while.*/\1/p' "$d/gpu-on.err")
	b=$(sed -n 's/^gpusort: stats: gpu: \([0-9]*\) chunks copied to the device while.*/\1/p' "$d/gpu-0.err")
	if ! cmp -s "$d/gpu-on" "$d/gpu-0"; then echo "FAIL $1: outputs with and without GPUSORT_OVERLAP=0 differ"; fails=1
	elif ! cmp -s "$d/gpu-on" "$d/cpu"; then echo "FAIL $1: GPU output differs from CPU"; fails=1
	elif [ "${a:-0}" -lt 1 ] || [ "${b:-x}" != 0 ]; then
		echo "FAIL $1: chunks overlapped: ${a:-none} with the overlap, ${b:-none} without (want > 0 and 0)"; fails=1
	else echo "PASS $1 ($a chunks overlapped)"; fi
}
# u64 and u32 (key-only: the next chunk's records go where the sorted ones
# are), 2 to 4 chunks of 2 to 3 pieces, the last smaller, kept or spilled
overlap "gpu-overlap-u64-kept" "-n 8M -k u64 --dist zipf" "-k u64" "--gpu-memory 40M -S 160M"
overlap "gpu-overlap-u64-spilled" "-n 8M -k u64" "-k u64" "--gpu-memory 16M -S 64M"
overlap "gpu-overlap-u32" "-n 16M -k u32 --dist fewunique" "-k u32" "--gpu-memory 24M -S 64M"
# general: a 4-byte key, and a 16-byte key with ties (tie refinement)
overlap "gpu-overlap-rec16" "-n 4M --record-size 16 -k u32@4 --dist zipf" "--record-size 16 -k u32@4" "--gpu-memory 48M -S 64M"
overlap "gpu-overlap-rec32-bytes16" "-n 2M --record-size 32 -k bytes16@8 --dist fewunique" "--record-size 32 -k bytes16@8" "--gpu-memory 48M -S 64M"
# the device refuses large chunks: retried in halves, then many chunks overlapped;
# and a prefetched chunk refused once all of it is on the device: thrown away, retried
overlap "gpu-overlap-gpu-oom" "-n 1M -k u64" "-k u64" "-S 8M" GPUSORT_FAULT=gpu-oom
overlap "gpu-overlap-gpu-oom-prefetched" "-n 8M -k u64" "-k u64" "--gpu-memory 16M -S 64M" GPUSORT_FAULT=gpu-oom-prefetched
# the GPU merge: device-sized runs kept in memory, cut into groups that fit
# the device, each ordered there; against the CPU engine and the CPU merge
one "gpu-id-gpumerge-u64" "-n 8M -k u64 --dist zipf" "-k u64" "--gpu-memory 8M --merge-engine=gpu"
one "gpu-id-gpumerge-rec16-ties" "-n 3M --record-size 16 -k u64@8 -k i32@0 --dist fewunique" "--record-size 16 -k u64@8 -k i32@0:r" "--gpu-memory 16M --merge-engine=gpu"
one "gpu-id-gpumerge-rec100" "-n 1M --record-size 100 -k bytes10 --dist equal" "--record-size 100 -k bytes10" "--gpu-memory 32M --merge-engine=gpu"
one "gpu-id-gpumerge-unique" "-n 4M --record-size 12 -k u32@4 --dist fewunique" "--record-size 12 -k u32@4 -u" "--gpu-memory 8M --merge-engine=gpu"
one "gpu-id-gpumerge-bytes20" "-n 2M --record-size 32 -k bytes20@4 --dist fewunique" "--record-size 32 -k bytes20@4" "--gpu-memory 16M --merge-engine=gpu"
# the same through the sort-based ordering the merge kernel replaced
one "gpu-id-gpumerge-u64-by-sort" "-n 8M -k u64 --dist zipf" "-k u64" "--gpu-memory 8M --merge-engine=gpu" GPUSORT_GPU_MERGE=sort
one "gpu-id-gpumerge-rec16-ties-by-sort" "-n 3M --record-size 16 -k u64@8 -k i32@0 --dist fewunique" "--record-size 16 -k u64@8 -k i32@0:r" "--gpu-memory 16M --merge-engine=gpu" GPUSORT_GPU_MERGE=sort
one "gpu-id-gpumerge-bytes20-by-sort" "-n 2M --record-size 32 -k bytes20@4 --dist fewunique" "--record-size 32 -k bytes20@4" "--gpu-memory 16M --merge-engine=gpu" GPUSORT_GPU_MERGE=sort
# key-only u32 and a 2-byte key (u64 elements) through the merge kernel, many groups
one "gpu-id-gpumerge-u32" "-n 8M -k u32 --dist fewunique" "-k u32" "--gpu-memory 8M --merge-engine=gpu"
one "gpu-id-gpumerge-u16-rec8" "-n 4M --record-size 8 -k u16@2 --dist fewunique" "--record-size 8 -k u16@2:r" "--gpu-memory 8M --merge-engine=gpu"
one "gpu-id-gpumerge-cover8" "-n 8M -k u32 -k u32 --dist fewunique" "-k u32@4 -k i32@0:r" "--gpu-memory 8M --merge-engine=gpu"
one "gpu-id-cpumerge-u64" "-n 8M -k u64 --dist zipf" "-k u64" "--gpu-memory 8M --merge-engine=cpu"
# spilled runs merged on the GPU (gpumerge_spill.c): groups planned from
# the runs' samples, each run read back once; many groups (a small device,
# a small -S), ties, -u, 100-byte records, the sort-based ordering, and
# --merge-engine=auto with its size rule skipped (GPUSORT_SPILL_MERGE=gpu)
one "gpu-id-spillmerge-u64" "-n 8M -k u64 --dist zipf" "-k u64" "--gpu-memory 8M -S 16M -T $d --merge-engine=gpu"
one "gpu-id-spillmerge-rec16-ties" "-n 3M --record-size 16 -k u64@8 -k i32@0 --dist fewunique" "--record-size 16 -k u64@8 -k i32@0:r" "--gpu-memory 16M -S 16M -T $d --merge-engine=gpu"
one "gpu-id-spillmerge-rec100" "-n 1M --record-size 100 -k bytes10 --dist fewunique" "--record-size 100 -k bytes10" "--gpu-memory 32M -S 32M -T $d --merge-engine=gpu"
one "gpu-id-spillmerge-unique" "-n 4M --record-size 12 -k u32@4 --dist fewunique" "--record-size 12 -k u32@4 -u" "--gpu-memory 8M -S 8M -T $d --merge-engine=gpu"
one "gpu-id-spillmerge-u32-by-sort" "-n 8M -k u32 --dist fewunique" "-k u32" "--gpu-memory 8M -S 8M -T $d --merge-engine=gpu" GPUSORT_GPU_MERGE=sort
one "gpu-id-spillmerge-cover8" "-n 8M -k u32 -k u32 --dist fewunique" "-k u32 -k u32:r" "--gpu-memory 8M -S 16M -T $d --merge-engine=gpu"
one "gpu-id-spillmerge-u64-auto" "-n 8M -k u64" "-k u64" "--gpu-memory 16M -S 16M -T $d" GPUSORT_SPILL_MERGE=gpu
# --merge-engine=gpu (merge kernel), --merge-engine=gpu with GPUSORT_GPU_MERGE=sort and --merge-engine=cpu: one output
$GEN -n 6M --record-size 16 -k u64@8 -k i32@0 --dist fewunique -o "$d/m16" 2> /dev/null
nm=gpu-id-merge-gpu-vs-sort-vs-cpu
if ! $G --record-size 16 -k u64@8 -k i32@0:r --gpu-memory 16M --merge-engine=gpu --stats "$d/m16" -o "$d/gpu" 2> "$d/gpu.err"; then
	echo "FAIL $nm: merge kernel: $(head -n 1 "$d/gpu.err")"; fails=1
elif ! grep -q " [1-9][0-9]* groups merged on the GPU" "$d/gpu.err"; then
	echo "FAIL $nm: --stats shows no GPU merge groups"; fails=1
elif ! GPUSORT_GPU_MERGE=sort $G --record-size 16 -k u64@8 -k i32@0:r --gpu-memory 16M --merge-engine=gpu "$d/m16" -o "$d/sort" 2> "$d/gpu.err"; then
	echo "FAIL $nm: GPUSORT_GPU_MERGE=sort: $(head -n 1 "$d/gpu.err")"; fails=1
elif ! $G --record-size 16 -k u64@8 -k i32@0:r --gpu-memory 16M --merge-engine=cpu "$d/m16" -o "$d/cpu" 2> "$d/gpu.err"; then
	echo "FAIL $nm: --merge-engine=cpu: $(head -n 1 "$d/gpu.err")"; fails=1
elif cmp -s "$d/gpu" "$d/cpu" && cmp -s "$d/sort" "$d/cpu"; then echo "PASS $nm"
else echo "FAIL $nm: outputs differ"; fails=1; fi
if $G -k u64 --gpu-memory 8M --merge-engine=gpu --stats "$d/in" -o "$d/gpu" 2>&1 | grep -q " [1-9][0-9]* groups merged on the GPU"; then
	echo "PASS gpu-merge-reported"
else
	echo "FAIL gpu-merge-reported: --stats shows no GPU merge groups"; fails=1
fi
# --merge-engine=gpu on runs that were spilled: read back and merged on the GPU
if ! only gpu-merge-spilled; then :
elif ! $G -k u64 --gpu-memory 8M -S 70M --merge-engine=gpu --stats "$d/in" -o "$d/gpu" 2> "$d/gpu.err"; then
	echo "FAIL gpu-merge-spilled: $(head -n 1 "$d/gpu.err")"; fails=1
elif ! $GI -k u64 --cpu "$d/in" -o "$d/cpu" 2> /dev/null || ! cmp -s "$d/gpu" "$d/cpu"; then
	echo "FAIL gpu-merge-spilled: GPU output differs from CPU"; fails=1
elif ! grep -q " [1-9][0-9]* groups merged on the GPU" "$d/gpu.err"; then
	echo "FAIL gpu-merge-spilled: --stats shows no GPU merge groups"; fails=1
else echo "PASS gpu-merge-spilled"; fi
# several inputs: pieces cross file boundaries; -u; --verify
$GEN -n 9M --record-size 12 -k u32@4 --dist fewunique -o "$d/a" 2> /dev/null
$GEN -n 1 --record-size 12 -k u32@4 --seed 3 -o "$d/b" 2> /dev/null
$GEN -n 7000001 --record-size 12 -k u32@4 --seed 5 --dist zipf -o "$d/c" 2> /dev/null
for args in "" "-u"; do
	nm="gpu-id-resident-3inputs${args:+-u}"
	if ! $G --record-size 12 -k u32@4 $args --cpu "$d/a" "$d/b" "$d/empty" "$d/c" > "$d/cpu" 2> "$d/cpu.err"; then
		echo "FAIL $nm: cpu engine: $(head -n 1 "$d/cpu.err")"; fails=1
	elif ! $G --record-size 12 -k u32@4 $args --algorithm=bitonic --verify "$d/a" "$d/b" "$d/empty" "$d/c" > "$d/gpu" 2> "$d/gpu.err"; then
		echo "FAIL $nm: gpu engine: $(head -n 1 "$d/gpu.err")"; fails=1
	elif ! grep -q "verify: .* order ok" "$d/gpu.err"; then
		echo "FAIL $nm: no verify line: $(head -n 1 "$d/gpu.err")"; fails=1
	elif cmp -s "$d/cpu" "$d/gpu"; then echo "PASS $nm"; else echo "FAIL $nm: GPU output differs from CPU"; fails=1; fi
done
# every other in-device sorter of the build, through the same pipeline
for ENG in $($G --help | sed -n 's/^GPU engines in this build (--algorithm)://p'); do
	[ "$ENG" = bitonic ] && continue
	for dist in uniform gaussian zipf sorted reverse equal bucket staggered fewunique; do
		one "gpu-id-$ENG-u32-$dist" "-n 1048577 -k u32 --dist $dist" "-k u32" ""
		one "gpu-id-$ENG-u64-$dist" "-n 300001 -k u64 --dist $dist" "-k u64" ""
		one "gpu-id-$ENG-rec16-$dist" "-n 200003 --record-size 16 -k u64@8 -k i32@0 --dist $dist" "--record-size 16 -k u64@8 -k i32@0:r" ""
		one "gpu-id-$ENG-rec12-u32-$dist" "-n 200003 --record-size 12 -k u32@4 --dist $dist" "--record-size 12 -k u32@4" ""
	done
	one "gpu-id-$ENG-gensort" "-n 100001 --record-size 100 -k bytes10 --dist fewunique" "--record-size 100 -k bytes10" ""
	one "gpu-id-$ENG-bytes33-ties" "-n 50001 --record-size 64 -k bytes33 --dist fewunique" "--record-size 64 -k bytes33" ""
	one "gpu-id-$ENG-floats-specials" "-n 100000 -k f64 --specials" "-k f64" ""
	one "gpu-id-$ENG-2chunks" "-n 8M -k u64 --dist uniform" "-k u64" "--gpu-memory 40M"
	one "gpu-id-$ENG-many-chunks-rec100" "-n 1M --record-size 100 -k bytes10" "--record-size 100 -k bytes10" "--gpu-memory 16M"
	one "gpu-id-$ENG-resident-3pieces-u64" "-n 20M -k u64 --dist zipf" "-k u64" ""
	one "gpu-id-$ENG-chunked-rec100" "-n 300001 --record-size 100 -k bytes10" "--record-size 100 -k bytes10" "" GPUSORT_RESIDENT=0
	piped_id "gpu-id-$ENG-pipe-u64" "-n 3M -k u64" "-k u64" ""
	piped_id "gpu-id-$ENG-pipe-rec100" "-n 300001 --record-size 100 -k bytes10" "--record-size 100 -k bytes10" "--gpu-memory 16M"
	# a sorter with scratch of the words' size: twice bitonic's budget for its chunks
	overlap "gpu-overlap-$ENG-u32" "-n 16M -k u32 --dist fewunique" "-k u32" "--gpu-memory 48M -S 64M"
done
exit $fails
