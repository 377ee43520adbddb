#!/bin/sh
# tests/fakegpu.sh - the device-resident pipeline (src/resident.c, job.c,
# gpumerge.c) run without a GPU: tests/bin/gpusort-fakegpu is gpusort linked
# with tests/fake_gpu.c, a CPU stand-in for kernels/ that keeps the resident
# API's contract and carries copies out as late as it allows, so that a
# staging buffer reused too early, or a put over records not yet got, shows.
# Each case sorts with the cross-chunk overlap (GPUSORT_OVERLAP unset) and
# without it (GPUSORT_OVERLAP=0), both with --verify, and wants both outputs
# byte-identical to the CPU engine's; --stats must show chunks copied in
# while the previous one drained with the overlap, and none without.
# What it cannot show: anything about the real device (kernels/, streams,
# timing): tests/gpu/ does that on a GPU.
# Prints PASS/FAIL lines; exit 1 on any failure.
cd "$(dirname "$0")/.." || exit 2
G=$(pwd)/tests/bin/gpusort-fakegpu GS=$(pwd)/gpusort GEN=$(pwd)/bench/gen
for p in "$G" "$GS" "$GEN"; do
	[ -x "$p" ] || { echo "FAIL fakegpu: $p is missing (make tests/bin/gpusort-fakegpu)"; exit 1; }
done
# the cases below are about the device's path even for small inputs, which
# the auto engine would sort on the CPU (job.c small_on_cpu): tested at the end
export GPUSORT_SMALL_CPU=0
d=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-fakegpu.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
mkdir "$d/tmp"
fails=0
bad() { echo "FAIL $1: $2"; fails=1; }

# one NAME "SORT ARGS" "DEVICE ARGS" [VAR=VALUE ...]: inputs are $d/in* (set by gen1)
one() {
	nm=fakegpu-$1 args=$2 dev=$3
	shift 3
	if ! $GS $args --cpu $IN > "$d/cpu" 2> "$d/err"; then bad "$nm" "cpu engine: $(head -n 1 "$d/err")"; return; fi
	for ov in 1 0; do
		if ! env GPUSORT_OVERLAP=$ov TMPDIR="$d/tmp" "$@" $G $args $dev --verify --stats $IN > "$d/gpu$ov" 2> "$d/err$ov"; then
			bad "$nm" "GPUSORT_OVERLAP=$ov: $(grep -v 'stats:' "$d/err$ov" | head -n 1)"; return
		fi
		if ! grep -q "engine gpu:bitonic (device-resident)" "$d/err$ov"; then
			bad "$nm" "GPUSORT_OVERLAP=$ov: not the device-resident path: $(grep engine "$d/err$ov")"; return
		fi
		if ! grep -q "verify: .* order ok, multiset ok" "$d/err$ov"; then
			bad "$nm" "GPUSORT_OVERLAP=$ov: no verify line: $(tail -n 1 "$d/err$ov")"; return
		fi
	done
	ovl=$(sed -n 's/^gpusort: stats: gpu: \([0-9]*\) chunks copied to the device while.*/\1/p' "$d/err1")
	ovl0=$(sed -n 's/^gpusort: stats: gpu: \([0-9]*\) chunks copied to the device while.*/\1/p' "$d/err0")
	if ! cmp -s "$d/gpu1" "$d/gpu0"; then bad "$nm" "outputs with and without GPUSORT_OVERLAP=0 differ"
	elif ! cmp -s "$d/gpu1" "$d/cpu"; then bad "$nm" "output differs from the CPU engine's"
	elif [ "${ovl:-0}" -lt "${WANT_OVERLAP:-1}" ] || [ "${ovl0:-x}" != 0 ]; then
		bad "$nm" "overlapped chunks: ${ovl:-none} with the overlap (want >= ${WANT_OVERLAP:-1}), ${ovl0:-none} without (want 0)"
	else echo "PASS $nm ($ovl chunks overlapped)"; fi
}

# u64 (key-only: the next chunk's records land on the sorted ones):
# 3M records, pieces of 1M (-S 64M), chunks of about 2.5M (the last
# smaller), kept in memory, merged on the (fake) GPU
$GEN -n 3000000 -k u64 -o "$d/in" 2> /dev/null; IN=$d/in
one u64-kept "-k u64" "-S 64M --gpu-memory 20M"
# many chunks of several pieces, spilled (-S too small to keep them)
one u64-spilled "-k u64" "-S 8M --gpu-memory 4M -T $d/tmp"
# ... through a compressor (--compress-program): the resident path writes
# each spilled run through its own gzip
one u64-spilled-gzip "-k u64" "-S 8M --gpu-memory 4M -T $d/tmp --compress-program=gzip"
WANT_OVERLAP=10 one u64-many-chunks "-k u64" "-S 8M" GPUSORT_FAKE_CAP=200000
# the device refuses chunks over 100000 records: retried in halves, then overlapped
WANT_OVERLAP=10 one u64-gpu-oom "-k u64" "-S 64M" GPUSORT_FAULT=gpu-oom
# the first prefetched chunk is refused after all its pieces went in: it is
# thrown away (its --verify hash not counted) and retried in halves
one u64-gpu-oom-prefetched "-k u64" "-S 64M --gpu-memory 20M" GPUSORT_FAULT=gpu-oom-prefetched
$G -k u64 -S 64M --gpu-memory 20M --stats "$IN" -o "$d/gpu1" 2> "$d/err" &&
	GPUSORT_FAULT=gpu-oom-prefetched $G -k u64 -S 64M --gpu-memory 20M --stats "$IN" -o "$d/gpu0" 2> "$d/err0"
if grep -q " 0 retries with smaller chunks" "$d/err" && grep -q " 1 retries with smaller chunks" "$d/err0"; then
	echo "PASS fakegpu-gpu-oom-prefetched-retried"
else
	bad fakegpu-gpu-oom-prefetched-retried "--stats: $(grep retries "$d/err" "$d/err0" | tr '\n' '|')"
fi
# u32 key-only, chunks of unequal piece counts
$GEN -n 2500001 -k u32 --dist fewunique -o "$d/in" 2> /dev/null
one u32 "-k u32" "-S 16M" GPUSORT_FAKE_CAP=700001
# several keys covering 8-byte records: the records' words, as key-only
$GEN -n 2000003 -k u32 -k u32 --dist fewunique -o "$d/in" 2> /dev/null
one cover8 "-k u32@4 -k i32@0:r" "-S 16M" GPUSORT_FAKE_CAP=700001
# general, 4-byte key (records apart from the sorted ones)
$GEN -n 1000003 --record-size 16 -k u32@4 --dist zipf -o "$d/in" 2> /dev/null
one rec16-u32 "--record-size 16 -k u32@4" "-S 32M" GPUSORT_FAKE_CAP=300007
# general, 16-byte key, ties
$GEN -n 600001 --record-size 32 -k bytes16@8 --dist fewunique -o "$d/in" 2> /dev/null
one rec32-bytes16 "--record-size 32 -k bytes16@8" "-S 40M -T $d/tmp" GPUSORT_FAKE_CAP=250000
# several inputs (pieces cross file boundaries), with -u
$GEN -n 900001 --record-size 12 -k u32@4 --dist fewunique -o "$d/a" 2> /dev/null
$GEN -n 1 --record-size 12 -k u32@4 --seed 3 -o "$d/b" 2> /dev/null
$GEN -n 700001 --record-size 12 -k u32@4 --seed 5 --dist zipf -o "$d/c" 2> /dev/null
IN="$d/a $d/b $d/c"
one 3inputs "--record-size 12 -k u32@4" "-S 16M" GPUSORT_FAKE_CAP=400000
# (-u: --verify compares no multiset, only the order)
$GS --record-size 12 -k u32@4 -u --cpu $IN > "$d/cpu" 2> /dev/null
GPUSORT_FAKE_CAP=400000 $G --record-size 12 -k u32@4 -u -S 16M $IN > "$d/gpu1" 2> "$d/err"
if cmp -s "$d/cpu" "$d/gpu1"; then echo "PASS fakegpu-3inputs-u"; else bad fakegpu-3inputs-u "output differs: $(head -n 1 "$d/err")"; fi

# The auto engine's choice for small inputs (job.c small_on_cpu): the CPU,
# without starting the device, up to a size per thread that depends on how
# the CPU sorts the records: 72 MiB of records of one 4- or 8-byte key
# (native integers); 28 MiB of other key-only records (byte-wise passes);
# 56 MiB of (key prefix, index) entries and 112 MiB of records otherwise.
# The device above that, and whenever something asks for it. Outputs equal
# the CPU engine's either way.
# small NAME WANT("cpu"|"gpu") FILE "KEYS" [ENGINE ARGS...]: WANT is the engine --stats names
small() {
	nm=fakegpu-small-$1 want=$2 f=$3 k=$4
	shift 4
	if ! env -u GPUSORT_SMALL_CPU $G $k "$@" --stats "$f" -o "$d/s.out" 2> "$d/s.err"; then
		bad "$nm" "$(grep -v stats: "$d/s.err" | head -n 1)"; return
	fi
	case $want in
	cpu) pat="engine cpu (streamed; small input)" ;;
	gpu) pat="engine gpu:bitonic" ;;
	esac
	if ! grep -qF "$pat" "$d/s.err"; then bad "$nm" "want '$pat': $(grep -o 'engine [^,]*' "$d/s.err")"
	elif ! $GS --cpu $k "$f" | cmp -s - "$d/s.out"; then bad "$nm" "output differs from the CPU engine's"
	else echo "PASS $nm"; fi
}
# at-bound / over-bound: N records make exactly the bound on one thread, N + 1 one record more
bound() {
	bn=$1 n=$2 gk=$3 bk=$4
	$GEN -n "$n" $gk -o "$d/at" 2> /dev/null
	$GEN -n $((n + 1)) $gk -o "$d/over" 2> /dev/null
	small "$bn-at-bound" cpu "$d/at" "$bk" --parallel=1
	small "$bn-over-bound" gpu "$d/over" "$bk" --parallel=1
	small "$bn-over-bound-2-threads" cpu "$d/over" "$bk" --parallel=2
	rm -f "$d/at" "$d/over" "$d/s.out"
}
# 72 MiB of u64 keys (native integers)
bound u64 9437184 "-k u64" "-k u64"
# 28 MiB of 3-byte keys (byte-wise radix passes; records of 1-2 bytes that
# are their keys are counted, runs_count.c, on no engine)
bound bytes3 9786709 "-k bytes3" "-k bytes3"
# records of 2 bytes that are their keys: counted, whatever their size, unless
# a GPU engine is named
$GEN -n 20000000 -k u16 -o "$d/at" 2> /dev/null
small u16-engine-named gpu "$d/at" "-k u16" --algorithm=bitonic
if env -u GPUSORT_SMALL_CPU $G -k u16 --stats "$d/at" 2>&1 > /dev/null | grep -q "engine cpu (counted)"; then
	echo "PASS fakegpu-u16-counted"
else
	bad fakegpu-u16-counted "not counted with a GPU there"
fi
rm -f "$d/at"
# 16-byte records, u64 then i32 down: 16-byte entries, 56 MiB of them
bound rec16 3670016 "--record-size 16 -k u64 -k i32" "--record-size 16 -k u64 -k i32:r"
# 1 KiB records with a 4-byte key: 8-byte entries, the 112 MiB of records decide
bound rec1k 114688 "--record-size 1024 -k u32" "--record-size 1024 -k u32"
# whatever the size, asking for the device gets it; --gpu-memory does not ask
$GEN -n 1000000 -k u64 -o "$d/at" 2> /dev/null
small device gpu "$d/at" "-k u64" --parallel=1 --device=0
small algorithm gpu "$d/at" "-k u64" --parallel=1 --algorithm=bitonic
small merge-gpu gpu "$d/at" "-k u64" --parallel=1 --merge-engine=gpu
small gpu-memory cpu "$d/at" "-k u64" --parallel=1 --gpu-memory 20M
# no single CPU chunk under -S: the device's run phase and merge
small not-one-chunk gpu "$d/at" "-k u64" --parallel=1 -S 8M
# wide records: counted in (key prefix, index) entries and record bytes
$GEN -n 200000 --record-size 100 -k bytes10 -o "$d/w" 2> /dev/null
small rec100 cpu "$d/w" "--record-size 100 -k bytes10" --parallel=1
# a pipe has no size to judge by
if cat "$d/at" | env -u GPUSORT_SMALL_CPU $G -k u64 --stats > "$d/s.out" 2> "$d/s.err" &&
	grep -qF "engine gpu:bitonic" "$d/s.err"; then
	echo "PASS fakegpu-small-stdin"
else
	bad fakegpu-small-stdin "$(grep -o 'engine [^,]*' "$d/s.err")"
fi
# off: GPUSORT_SMALL_CPU=0 (what the cases above use)
GPUSORT_SMALL_CPU=0 $G -k u64 --parallel=1 --stats "$d/at" -o "$d/s.out" 2> "$d/s.err"
if grep -qF "engine gpu:bitonic" "$d/s.err"; then echo "PASS fakegpu-small-off"
else bad fakegpu-small-off "$(grep -o 'engine [^,]*' "$d/s.err")"; fi
# an input that changes while the device-resident path reads it (issue 17):
# exit 2 naming it, nothing written; kept runs (-S 64M) and one chunk
for args in "-S 64M" "-S 64M --gpu-memory 20M"; do
	cp "$d/at" "$d/chg"
	printf 'old\n' > "$d/chg.out"
	GPUSORT_FAULT=input-changes $G -k u64 $args --stats "$d/chg" -o "$d/chg.out" > /dev/null 2> "$d/s.err"
	rc=$?
	nm="fakegpu-input-changes[$args]"
	if [ $rc = 2 ] && grep -q "chg: the file changed while it was read" "$d/s.err" &&
		[ "$(cat "$d/chg.out")" = old ]; then echo "PASS $nm"
	else bad "$nm" "exit status $rc: $(grep -v stats "$d/s.err" | head -n 1)"; fi
done

# the GPU fails after start-up (a launch: the test build's gpu-fail and
# gpu-fail-merge faults): the CPU engine takes over, the output is the CPU
# engine's, --stats and a warning say so (DESIGN.md section 8)
# failed NAME "VAR=VALUE..." ARGS...
failed() {
	nm=fakegpu-gpu-fails-$1 vars=$2
	shift 2
	env $vars $G -k u64 --verify --stats "$@" "$d/in" -o "$d/gf.out" 2> "$d/gf.err"
	rc=$?
	if [ $rc != 0 ]; then bad "$nm" "exit status $rc: $(grep -v stats "$d/gf.err" | head -n 1)"
	elif ! cmp -s "$d/gf.out" "$d/cpu"; then bad "$nm" "output differs from the CPU engine's"
	elif ! grep -q "^gpusort: warning: the GPU failed, the CPU engine finished the sort: GPU sort failed" "$d/gf.err" ||
		! grep -q "stats: the CPU engine took over after the GPU failed" "$d/gf.err"; then
		bad "$nm" "no warning or stats line: $(grep -v 'stats:' "$d/gf.err" | head -n 1)"
	else echo "PASS $nm"; fi
}
$GEN -n 3000000 -k u64 -o "$d/in" 2> /dev/null
$GS -k u64 --cpu "$d/in" > "$d/cpu"
failed resident-one-chunk GPUSORT_FAULT=gpu-fail -S 64M
failed resident-kept GPUSORT_FAULT=gpu-fail -S 64M --gpu-memory 20M
failed resident-spilled GPUSORT_FAULT=gpu-fail -S 8M --gpu-memory 4M -T "$d/tmp"
failed chunked "GPUSORT_FAULT=gpu-fail GPUSORT_RESIDENT=0" -S 8M -T "$d/tmp"
failed merge GPUSORT_FAULT=gpu-fail-merge -S 64M --gpu-memory 20M
# --merge-engine=gpu insists on the device: its failure is an error, the old output kept
printf 'old\n' > "$d/gf.out"
GPUSORT_FAULT=gpu-fail-merge $G -k u64 -S 64M --gpu-memory 20M --merge-engine=gpu "$d/in" -o "$d/gf.out" 2> "$d/gf.err"
rc=$?
if [ $rc = 2 ] && grep -q "^gpusort: --merge-engine=gpu: GPU sort failed: merge" "$d/gf.err" && [ "$(cat "$d/gf.out")" = old ] &&
	[ -z "$(ls "$d/tmp")" ]; then echo "PASS fakegpu-gpu-fails-merge-gpu-asked"
else bad fakegpu-gpu-fails-merge-gpu-asked "exit status $rc: $(head -n 1 "$d/gf.err")"; fi

# the device fails, or runs out of memory, on the GPU merge's last group,
# after the groups before it were written: the CPU merges what is left
# (gpumerge.h GPUMERGE_REST), same output
GPUSORT_FAKE_CAP=200000 GPUSORT_FAULT_COUNT="$d/cnt" $G -k u64 -S 64M "$d/in" -o "$d/gf.out" 2> /dev/null
last=$(sed -n 's/^gpu-launch //p' "$d/cnt")
for f in "gpu-launch@$last+" "gpu-launch@$last:ENOMEM"; do
	nm="fakegpu-gpu-fails-last-merge-group[$f]"
	GPUSORT_FAKE_CAP=200000 GPUSORT_FAULT=$f $G -k u64 -S 64M --verify --stats "$d/in" -o "$d/gf.out" 2> "$d/gf.err"
	rc=$?
	groups=$(sed -n 's/.* \([0-9]*\) groups merged on the GPU$/\1/p' "$d/gf.err")
	if [ $rc != 0 ]; then bad "$nm" "exit status $rc: $(grep -v stats "$d/gf.err" | head -n 1)"
	elif ! cmp -s "$d/gf.out" "$d/cpu"; then bad "$nm" "output differs from the CPU engine's"
	elif [ "${groups:-0}" -lt 2 ]; then bad "$nm" "the fault hit group ${groups:-?}, not a later one"
	else echo "PASS $nm ($groups groups on the GPU)"; fi
done

# a pipe on the GPU: the device-resident path reads it in order into a
# chunk of the device's capacity (kept in a host journal until it is the
# output or a run); a pipe that goes on past it, the chunked path after it
# (first chunk device-resident), as all of it with GPUSORT_RESIDENT=0:
# chunk buffers registered for spill writes only once one is spilled. One
# chunk, several kept, several spilled, and the GPU failing mid-pipe (the
# CPU sorts the chunk in hand and the rest)
# piped NAME "VAR=VALUE..." ARGS...   (PATH_WANT: the engine's path in --stats)
piped() {
	nm=fakegpu-pipe-$1 vars=$2
	shift 2
	cat "$d/in" | env $vars $G -k u64 --verify --stats "$@" > "$d/gp.out" 2> "$d/gp.err"
	rc=$?
	want="engine gpu:bitonic${PATH_WANT:-}"
	if [ $rc != 0 ]; then bad "$nm" "exit status $rc: $(grep -v stats "$d/gp.err" | head -n 1)"
	elif ! grep -q "$want" "$d/gp.err"; then bad "$nm" "not $want: $(grep -o 'engine [^,]*' "$d/gp.err")"
	elif ! grep -q "verify: .* order ok, multiset ok" "$d/gp.err"; then bad "$nm" "no verify line"
	elif ! cmp -s "$d/gp.out" "$d/cpu"; then bad "$nm" "output differs from the CPU engine's"
	elif [ -n "$(ls "$d/tmp")" ]; then bad "$nm" "temp files left: $(ls "$d/tmp")"
	else echo "PASS $nm"; fi
}
PATH_WANT=" (device-resident)" piped one-chunk "" -S 256M
PATH_WANT=" (first chunk device-resident)" piped kept "" -S 256M --gpu-memory 4M
# runs kept while they fit -S (plan.c, keep_fits): a pipe that fits ends
# with every run in memory, merged on the GPU; one that does not spills
# from the first run that does not fit on, and merges on the CPU here (the
# GPU merge of spilled runs would take groups of less than 4 MiB:
# gpumerge_spill.h, --merge-engine=auto)
# pipe_runs NAME WANT("kept"|"spilled"): of the last piped case's --stats
pipe_runs() {
	runs=$(sed -n 's/.*chunk [0-9]* records, \([0-9]*\) runs (.*/\1/p' "$d/gp.err")
	spilled=$(sed -n 's/.* runs (\([0-9]*\) spilled).*/\1/p' "$d/gp.err")
	groups=$(sed -n 's/.* \([0-9]*\) groups merged on the GPU$/\1/p' "$d/gp.err")
	st="${runs:-?} runs, ${spilled:-?} spilled, ${groups:-?} groups on the GPU"
	case $2 in
	kept) [ "${runs:-0}" -ge 2 ] && [ "$spilled" = 0 ] && [ "${groups:-0}" -gt 0 ] ;;
	spilled) [ "${runs:-0}" -ge 2 ] && [ "${spilled:-0}" -gt 0 ] && [ "$groups" = 0 ] ;;
	esac && echo "PASS fakegpu-pipe-$1-runs ($st)" || bad "fakegpu-pipe-$1-runs" "want $2: $st"
}
pipe_runs kept kept
piped kept-fake-cap "GPUSORT_FAKE_CAP=400000" -S 128M
pipe_runs kept-fake-cap kept
# chunked: -S 64M with 4 MiB chunks: 4 buffers and the merge's staging
# (4 x 8 MiB) leave room for 4 of the 6 runs; the 5th is spilled, the last
# kept
piped over-S-chunked GPUSORT_RESIDENT=0 -S 64M --gpu-memory 4M -T "$d/tmp"
pipe_runs over-S-chunked spilled
# the first chunk device-resident: -S 16M, chunks of 4 MiB (half of what
# the 4 x 2 MiB staging leaves), the first kept; then the chunked path's 1
# MiB chunks, kept while they fit its share less the first, then spilled
PATH_WANT=" (first chunk device-resident)" piped over-S "" -S 16M -T "$d/tmp"
pipe_runs over-S spilled
# (and the chunked path's buffers, each used for one chunk, are not
# page-locked each: only those taken again, counted by the test build's
# fault counter)
rm -f "$d/cnt"
cat "$d/in" | GPUSORT_RESIDENT=0 GPUSORT_FAULT_COUNT="$d/cnt" $G -k u64 -S 256M --gpu-memory 4M --stats=json > /dev/null 2> "$d/gp.json"
pins=$(sed -n 's/^pin //p' "$d/cnt")
if [ "${pins:-9}" -le 2 ]; then echo "PASS fakegpu-pipe-kept-pins ($pins pinned for 6 runs)"
else bad fakegpu-pipe-kept-pins "${pins:-no count}: want at most 2 buffers pinned for 6 kept runs"; fi
if grep -q '"spilled_runs":0,' "$d/gp.json" && grep -q '"keep_fits":1,' "$d/gp.json" &&
	! grep -q '"gpu_merge_groups":0,' "$d/gp.json"; then echo "PASS fakegpu-pipe-kept-json"
else bad fakegpu-pipe-kept-json "$(tr ',' '\n' < "$d/gp.json" | grep -E 'spilled_runs|keep_fits|gpu_merge_groups' | tr '\n' ' ')"; fi
piped spilled "" -S 8M -T "$d/tmp"
# the GPU failing or refusing mid-pipe: the chunk in hand (the resident
# path's journal, handed back to the reader) and the rest sorted by the CPU
# engine after the runs already formed; on the first chunk, a later one,
# refused before any of it was read (retried smaller), and in the chunked path
# pipe_fails NAME "VAR=VALUE..." ARGS...
pipe_fails() {
	piped "$@"
	if grep -q "the CPU engine took over after the GPU failed" "$d/gp.err"; then echo "PASS fakegpu-pipe-$1-stats"
	else bad "fakegpu-pipe-$1-stats" "no takeover in --stats"; fi
}
# (-S 8M: staging 4 x 1 MiB, the first chunk 2 MiB: two puts, two gets)
pipe_fails gpu-fails "GPUSORT_FAULT=gpu-fail" -S 8M -T "$d/tmp"
pipe_fails gpu-fails-put "GPUSORT_FAULT=gpu-copy@2" -S 8M -T "$d/tmp"
pipe_fails gpu-fails-get "GPUSORT_FAULT=gpu-copy@4" -S 8M -T "$d/tmp"
pipe_fails gpu-fails-later "GPUSORT_FAULT=gpu-launch@3+" -S 8M -T "$d/tmp"
pipe_fails gpu-fails-chunked "GPUSORT_FAULT=gpu-fail GPUSORT_RESIDENT=0" -S 8M -T "$d/tmp"
piped gpu-oom "GPUSORT_FAULT=gpu-oom" -S 64M -T "$d/tmp"
if grep -q " [1-9][0-9]* retries with smaller chunks" "$d/gp.err"; then echo "PASS fakegpu-pipe-gpu-oom-retried"
else bad fakegpu-pipe-gpu-oom-retried "$(grep -o '[0-9]* retries[^,]*' "$d/gp.err")"; fi
# failing once the only chunk's first piece is in the output (-S 64M: one
# chunk of 2 Mi records, pieces of 1 Mi; the 4th wait is for its second
# piece back): an error (what went out cannot be taken back), the old
# output and no temp file left
echo old > "$d/gp.out"
head -c $((2097151 * 8)) "$d/in" > "$d/in1"
cat "$d/in1" | GPUSORT_FAULT=gpu-sync@4 $G -k u64 -S 64M -T "$d/tmp" -o "$d/gp.out" 2> "$d/gp.err"
rc=$?
if [ $rc = 2 ] && grep -q "^gpusort: GPU sort failed: copy from the device" "$d/gp.err" && [ "$(cat "$d/gp.out")" = old ] &&
	[ -z "$(ls "$d/tmp")" ]; then echo "PASS fakegpu-pipe-fails-in-output"
else bad fakegpu-pipe-fails-in-output "exit status $rc: $(head -n 1 "$d/gp.err")"; fi
# a pipe that ends exactly at a chunk's end (-S 64M: chunks of 2 Mi
# records), one record short of it and one past it; a pipe beside a file;
# an empty pipe
for n in 2097152 2097151 2097153 4194304; do
	head -c $((n * 8)) "$d/in" > "$d/in2"
	$GS -k u64 --cpu "$d/in2" > "$d/cpu2"
	cat "$d/in2" | $G -k u64 -S 64M --verify -T "$d/tmp" > "$d/gp.out" 2> "$d/gp.err" &&
		cmp -s "$d/gp.out" "$d/cpu2" && grep -q "multiset ok" "$d/gp.err" && echo "PASS fakegpu-pipe-edge-$n" ||
		bad "fakegpu-pipe-edge-$n" "$(grep -v stats "$d/gp.err" | head -n 1)"
done
$GS -k u64 --cpu "$d/in" "$d/in2" > "$d/cpu2"
cat "$d/in" | $G -k u64 -S 64M --verify --stats - "$d/in2" > "$d/gp.out" 2> "$d/gp.err" && cmp -s "$d/gp.out" "$d/cpu2" &&
	grep -q "(first chunk device-resident)" "$d/gp.err" && echo "PASS fakegpu-pipe-and-file" ||
	bad fakegpu-pipe-and-file "$(grep -v stats "$d/gp.err" | head -n 1)"
printf '' | $G -k u64 -S 64M > "$d/gp.out" 2> "$d/gp.err" && [ ! -s "$d/gp.out" ] && [ ! -s "$d/gp.err" ] &&
	echo "PASS fakegpu-pipe-empty" || bad fakegpu-pipe-empty "$(head -n 1 "$d/gp.err")"


# Spilled runs merged on the (fake) GPU (gpumerge_spill.c): groups planned
# from the samples kept at spill time, each run read back once into
# windows, merged group by group; byte-identical to the CPU engine's
# output, and --stats must count the groups (at least WANT_GROUPS).
# spill NAME "SORT ARGS" "DEVICE ARGS" [VAR=VALUE ...]: inputs are $IN
spill() {
	nm=fakegpu-spill-$1 args=$2 dev=$3
	shift 3
	if ! $GS $args --cpu $IN > "$d/cpu" 2> "$d/err"; then bad "$nm" "cpu engine: $(head -n 1 "$d/err")"; return; fi
	env "$@" $G $args $dev -T "$d/tmp" --verify --stats $IN > "$d/gpu" 2> "$d/err"
	rc=$?
	st=$(grep 'gpu merge of spilled runs' "$d/err")
	groups=$(echo "$st" | sed -n 's/.*spilled runs: \([0-9]*\) groups on the device.*/\1/p')
	spilled=$(sed -n 's/.* runs (\([0-9]*\) spilled).*/\1/p' "$d/err")
	if [ $rc != 0 ]; then bad "$nm" "exit status $rc: $(grep -v stats: "$d/err" | head -n 1)"
	elif ! cmp -s "$d/gpu" "$d/cpu"; then bad "$nm" "output differs from the CPU engine's"
	elif ! grep -q "verify: .* order ok" "$d/err"; then bad "$nm" "no verify line"
	elif [ "${spilled:-0}" -lt 1 ]; then bad "$nm" "no run spilled"
	elif [ "${groups:-0}" -lt "${WANT_GROUPS:-2}" ]; then bad "$nm" "${groups:-no} groups on the GPU (want >= ${WANT_GROUPS:-2}): $st"
	elif [ -n "$(ls "$d/tmp")" ]; then bad "$nm" "temp files left: $(ls "$d/tmp")"
	else echo "PASS $nm ($spilled runs spilled, $groups groups)"; fi
}
# u64 key-only: 6 runs spilled, many groups (the device holds 4 MiB)
$GEN -n 3000000 -k u64 -o "$d/in" 2> /dev/null; IN=$d/in
spill u64 "-k u64" "-S 8M --gpu-memory 4M --merge-engine=gpu"
# many runs (-S 3M: the chunked path, 30 spilled and the last kept), ties
# (few unique keys), -u, the ordering by the chunk sort
$GEN -n 3000000 -k u64 --dist fewunique --seed 4 -o "$d/in" 2> /dev/null
WANT_GROUPS=100 spill u64-many-runs "-k u64" "-S 3M --gpu-memory 2M --merge-engine=gpu"
spill u64-ties-u "-k u64 -u" "-S 4M --gpu-memory 4M --merge-engine=gpu"
spill u64-by-sort "-k u64" "-S 4M --gpu-memory 4M --merge-engine=gpu" GPUSORT_GPU_MERGE=sort
# 16-byte records, a 4-byte key with ties at offset 4: stable, and -u
$GEN -n 1000003 --record-size 16 -k u32@4 --dist fewunique -o "$d/in" 2> /dev/null
spill rec16-ties "--record-size 16 -k u32@4" "-S 4M --gpu-memory 4M --merge-engine=gpu"
spill rec16-ties-u "--record-size 16 -k u32@4 -u" "-S 4M --gpu-memory 4M --merge-engine=gpu"
# many small groups: the device holds 20000 records
WANT_GROUPS=50 spill rec16-fake-cap "--record-size 16 -k u32@4" "-S 4M --merge-engine=gpu" GPUSORT_FAKE_CAP=20000
# several keys covering 8-byte records, ties
$GEN -n 1000003 -k u32 -k u32 --dist fewunique -o "$d/in" 2> /dev/null
spill cover8-ties "-k u32 -k u32:r" "-S 4M --gpu-memory 4M --merge-engine=gpu"
# 100-byte records with a 10-byte key (gensort's layout), --merge-engine=auto with
# the planner's size rule skipped (GPUSORT_SPILL_MERGE=gpu)
$GEN -n 300000 --record-size 100 -k bytes10 -o "$d/in" 2> /dev/null
spill rec100 "--record-size 100 -k bytes10" "-S 8M --gpu-memory 4M --merge-engine=gpu"
spill rec100-auto-knob "--record-size 100 -k bytes10" "-S 8M" GPUSORT_FAKE_CAP=30000 GPUSORT_SPILL_MERGE=gpu
# several inputs, one of them a single record
$GEN -n 900001 --record-size 12 -k u32@4 --dist fewunique -o "$d/a" 2> /dev/null
$GEN -n 1 --record-size 12 -k u32@4 --seed 3 -o "$d/b" 2> /dev/null
$GEN -n 700001 --record-size 12 -k u32@4 --seed 5 --dist zipf -o "$d/c" 2> /dev/null
IN="$d/a $d/b $d/c"
spill 3inputs "--record-size 12 -k u32@4" "-S 4M --merge-engine=gpu" GPUSORT_FAKE_CAP=100000
# --merge-engine=auto on its own: groups of at least 4 MiB go to the device (the
# merge's memory of -S 48M leaves 12 MiB of windows, two per run), and
# GPUSORT_SPILL_MERGE=cpu sends them to the CPU
$GEN -n 8000000 -k u64 --seed 6 -o "$d/in" 2> /dev/null; IN=$d/in
WANT_GROUPS=1 spill u64-auto "-k u64" "-S 48M --gpu-memory 32M"
GPUSORT_SPILL_MERGE=cpu $G -k u64 -S 48M --gpu-memory 32M -T "$d/tmp" --stats "$IN" -o "$d/gpu" 2> "$d/err"
if cmp -s "$d/gpu" "$d/cpu" && grep -q "spilled runs merged on the CPU, not the GPU: GPUSORT_SPILL_MERGE=cpu" "$d/err" &&
	grep -q " 0 groups merged on the GPU" "$d/err"; then echo "PASS fakegpu-spill-knob-cpu"
else bad fakegpu-spill-knob-cpu "$(grep -E 'groups|spilled runs' "$d/err" | tr '\n' '|')"; fi
# runs kept and spilled (a pipe over -S: the first runs kept while they fit)
$GEN -n 3000000 -k u64 -o "$d/in" 2> /dev/null
$GS -k u64 --cpu "$d/in" > "$d/cpu"
cat "$d/in" | $G -k u64 -S 32M --gpu-memory 4M -T "$d/tmp" --merge-engine=gpu --verify --stats > "$d/gpu" 2> "$d/err"
rc=$?
runs=$(sed -n 's/.*chunk [0-9]* records, \([0-9]*\) runs (.*/\1/p' "$d/err")
spilled=$(sed -n 's/.* runs (\([0-9]*\) spilled).*/\1/p' "$d/err")
if [ $rc = 0 ] && cmp -s "$d/gpu" "$d/cpu" && [ "${spilled:-0}" -ge 1 ] && [ "${runs:-0}" -gt "${spilled:-0}" ] &&
	grep -q "gpu merge of spilled runs: [1-9][0-9]* groups" "$d/err"; then
	echo "PASS fakegpu-spill-mixed ($runs runs, $spilled spilled)"
else bad fakegpu-spill-mixed "exit $rc, $runs runs, $spilled spilled: $(grep -v stats: "$d/err" | head -n 1)"; fi
# the groups' time holds the staging fill and the store into the output,
# each timed apart (--stats=json): both positive, their sum within it
$G -k u64 -S 8M --gpu-memory 4M -T "$d/tmp" --merge-engine=gpu --stats=json "$d/in" -o "$d/gj" 2> "$d/gj.err"
rc=$?
gj=$(tr ',' '\n' < "$d/gj.err" | sed -n 's/^"gpu_merge_\(device\|fill\|store\|spill_groups\)_\{0,1\}s\{0,1\}":\([0-9.]*\)$/\1 \2/p' | tr '\n' ' ')
if [ $rc = 0 ] && cmp -s "$d/gj" "$d/cpu" && echo "$gj" | awk '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1) }
	END { exit !(v["spill_groups"] > 0 && v["fill"] > 0 && v["store"] > 0 && v["fill"] + v["store"] <= v["device"]) }'; then
	echo "PASS fakegpu-spill-group-times ($gj)"
else bad fakegpu-spill-group-times "exit $rc: $gj"; fi
# a corrupted spilled run read back by the GPU merge: the checksum error,
# exit 2, the old output kept, no temp file
printf 'old\n' > "$d/gf.out"
GPUSORT_FAULT=corrupt-spill $G -k u64 -S 8M --gpu-memory 4M -T "$d/tmp" --merge-engine=gpu "$d/in" -o "$d/gf.out" 2> "$d/gf.err"
rc=$?
if [ $rc = 2 ] && grep -Eq "^gpusort: temporary file .*/gpusort\.[A-Za-z0-9]{6}: checksum mismatch in block [0-9]+ of the run at byte [0-9]+ " "$d/gf.err" &&
	[ "$(cat "$d/gf.out")" = old ] && [ -z "$(ls "$d/tmp")" ] && [ "$(wc -l < "$d/gf.err")" -eq 1 ]; then
	echo "PASS fakegpu-spill-corrupt"
else bad fakegpu-spill-corrupt "exit $rc: $(head -n 2 "$d/gf.err" | tr '\n' '|')"; fi
# compressed runs (--compress-program) are read only through their
# decompressor: the CPU merges them (--stats says why), and --merge-engine=gpu is
# an error that says so, the old output kept
GPUSORT_SPILL_MERGE=gpu $G -k u64 -S 8M --gpu-memory 4M -T "$d/tmp" --compress-program=gzip --stats "$d/in" -o "$d/gf.out" 2> "$d/gf.err"
rc=$?
if [ $rc = 0 ] && cmp -s "$d/gf.out" "$d/cpu" &&
	grep -q "spilled runs merged on the CPU, not the GPU: a run is compressed" "$d/gf.err"; then echo "PASS fakegpu-spill-compressed-cpu"
else bad fakegpu-spill-compressed-cpu "exit $rc: $(grep -E 'spilled|gpusort: [^s]' "$d/gf.err" | tr '\n' '|')"; fi
printf 'old\n' > "$d/gf.out"
$G -k u64 -S 8M --gpu-memory 4M -T "$d/tmp" --compress-program=gzip --merge-engine=gpu "$d/in" -o "$d/gf.out" 2> "$d/gf.err"
rc=$?
if [ $rc = 2 ] && grep -q "^gpusort: --merge-engine=gpu: the GPU merge cannot take these runs: a run is compressed" "$d/gf.err" &&
	[ "$(cat "$d/gf.out")" = old ] && [ -z "$(ls "$d/tmp")" ]; then echo "PASS fakegpu-spill-compressed-merge-gpu-asked"
else bad fakegpu-spill-compressed-merge-gpu-asked "exit $rc: $(head -n 1 "$d/gf.err")"; fi
# the device fails on the first group: --merge-engine=gpu is an error (old output
# kept); under --merge-engine=auto the CPU merges, same output, a warning
printf 'old\n' > "$d/gf.out"
GPUSORT_FAULT=gpu-fail-merge $G -k u64 -S 8M --gpu-memory 4M -T "$d/tmp" --merge-engine=gpu "$d/in" -o "$d/gf.out" 2> "$d/gf.err"
rc=$?
if [ $rc = 2 ] && grep -q "^gpusort: --merge-engine=gpu: GPU sort failed: merge" "$d/gf.err" && [ "$(cat "$d/gf.out")" = old ] &&
	[ -z "$(ls "$d/tmp")" ]; then echo "PASS fakegpu-spill-gpu-fails-merge-gpu-asked"
else bad fakegpu-spill-gpu-fails-merge-gpu-asked "exit status $rc: $(head -n 1 "$d/gf.err")"; fi
failed spill-merge "GPUSORT_FAULT=gpu-fail-merge GPUSORT_SPILL_MERGE=gpu" -S 8M --gpu-memory 4M -T "$d/tmp"
# ... and on a later group, after the ones before were written: the CPU
# merges it and the rest from the windows, same output (a device dead from
# the fourth group from the end on, the last group refused)
GPUSORT_FAULT_COUNT="$d/cnt" $G -k u64 -S 8M --gpu-memory 4M -T "$d/tmp" --merge-engine=gpu "$d/in" -o "$d/gf.out" 2> /dev/null
last=$(sed -n 's/^gpu-launch //p' "$d/cnt")
for f in "gpu-launch@$((last - 3))+" "gpu-launch@$last:ENOMEM"; do
	nm="fakegpu-spill-gpu-fails-later-group[$f]"
	GPUSORT_FAULT=$f $G -k u64 -S 8M --gpu-memory 4M -T "$d/tmp" --merge-engine=gpu --verify --stats "$d/in" -o "$d/gf.out" 2> "$d/gf.err"
	rc=$?
	st=$(grep 'gpu merge of spilled runs' "$d/gf.err")
	groups=$(echo "$st" | sed -n 's/.*spilled runs: \([0-9]*\) groups on the device.*/\1/p')
	cpu=$(echo "$st" | sed -n 's/.* groups on the device, \([0-9]*\) on the CPU.*/\1/p')
	if [ $rc != 0 ]; then bad "$nm" "exit status $rc: $(grep -v stats "$d/gf.err" | head -n 1)"
	elif ! cmp -s "$d/gf.out" "$d/cpu"; then bad "$nm" "output differs from the CPU engine's"
	elif [ "${groups:-0}" -lt 2 ] || [ "${cpu:-0}" -lt 1 ]; then bad "$nm" "groups: ${groups:-?} on the GPU, ${cpu:-?} on the CPU"
	elif [ -n "$(ls "$d/tmp")" ]; then bad "$nm" "temp files left: $(ls "$d/tmp")"
	else echo "PASS $nm ($groups groups on the GPU, $cpu on the CPU)"; fi
done

# Without --verify, a regular output is filled through a mapping by the
# threads that copy the device's pieces or merge (sink_map): the same bytes
# as the CPU engine's, --stats says so, also where the device fails part way
# and the CPU finishes (its records land after the device's)
# mapped NAME "VAR=VALUE..." ARGS...
mapped() {
	nm=fakegpu-mapped-$1 vars=$2
	shift 2
	env $vars $G -k u64 --stats "$@" "$d/in" -o "$d/gf.out" 2> "$d/gf.err"
	rc=$?
	if [ $rc != 0 ]; then bad "$nm" "exit status $rc: $(grep -v stats "$d/gf.err" | head -n 1)"
	elif ! cmp -s "$d/gf.out" "$d/cpu"; then bad "$nm" "output differs from the CPU engine's"
	elif ! grep -q "stats: .*(output mapped" "$d/gf.err"; then bad "$nm" "not mapped: $(grep 'write' "$d/gf.err")"
	elif [ -n "$(ls "$d/tmp")" ]; then bad "$nm" "temp files left: $(ls "$d/tmp")"
	else echo "PASS $nm"; fi
}
mapped one-chunk "" -S 64M
mapped kept "" -S 64M --gpu-memory 20M
mapped spilled "" -S 8M --gpu-memory 4M -T "$d/tmp" --merge-engine=gpu
mapped gpu-fails-one-chunk GPUSORT_FAULT=gpu-fail -S 64M
mapped gpu-fails-merge GPUSORT_FAULT=gpu-fail-merge -S 64M --gpu-memory 20M
# the device's spilled runs are stored into the spill file's mapping the same way
for m in 1 0; do
	nm=fakegpu-mapped-spill-runs-$m
	GPUSORT_OUTMAP=$m $G -k u64 -S 8M --gpu-memory 4M -T "$d/tmp" --stats "$d/in" -o "$d/gf.out" 2> "$d/gf.err"
	rc=$?
	runs=$(sed -n 's/.* runs (\([0-9]*\) spilled).*/\1/p' "$d/gf.err")
	mr=$(sed -n 's/.*stats: \([0-9]*\) spilled runs stored through a mapping.*/\1/p' "$d/gf.err")
	if [ $rc != 0 ]; then bad "$nm" "exit status $rc: $(grep -v stats "$d/gf.err" | head -n 1)"
	elif ! cmp -s "$d/gf.out" "$d/cpu"; then bad "$nm" "output differs from the CPU engine's"
	elif [ "${runs:-0}" -lt 2 ] || { [ $m = 1 ] && [ "${mr:-0}" != "$runs" ]; } || { [ $m = 0 ] && [ -n "$mr" ]; }; then
		bad "$nm" "${runs:-?} runs spilled, ${mr:-none} through a mapping"
	else echo "PASS $nm (${runs} runs spilled, ${mr:-none} mapped)"; fi
done
mapped spill-gpu-fails-later-group "GPUSORT_FAULT=gpu-launch@$((last - 3))+" -S 8M --gpu-memory 4M -T "$d/tmp" --merge-engine=gpu

# regular inputs seen empty after the one chunk's records (the chunk known
# to be the last: the one-chunk plan has no buffer for a second read), on
# the chunked path (-S too small for the staging, or GPUSORT_RESIDENT=0),
# the resident path and the CPU engine; once an "out of memory" (exit 2)
printf 'x' > "$d/one"; : > "$d/empty"; printf 'yz' > "$d/two"
for c in "-S 2M|one empty|" "-S 2M|one empty empty|" "-S 2M|empty one empty|" "-S 2M|two empty one empty|" \
	"|one empty|GPUSORT_RESIDENT=0" "|one empty|" "--cpu -S 2M|one empty|"; do
	o=${c%%|*} r=${c#*|} v=${r#*|} f=${r%%|*}
	case $o in --cpu*) ;; *) o="$o --device=0" ;; esac
	nm="fakegpu-trailing-empty($o|$f|$v)"
	set --
	for x in $f; do set -- "$@" "$d/$x"; done
	cat "$@" | od -An -v -tx1 -w1 | sort > "$d/te.exp"
	# shellcheck disable=SC2086
	env $v $G -k u8 $o "$@" > "$d/te.out" 2> "$d/te.err"
	rc=$?
	if [ $rc != 0 ]; then bad "$nm" "exit status $rc: $(head -n 1 "$d/te.err")"
	elif [ "$(od -An -v -tx1 -w1 < "$d/te.out")" != "$(cat "$d/te.exp")" ]; then bad "$nm" "output $(od -An -c "$d/te.out")"
	else echo "PASS $nm"; fi
done

exit $fails
