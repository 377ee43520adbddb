#!/bin/sh
# tests/stream.sh - the CPU engine's streamed single chunk (src/cpustream.c):
# the input read by all threads, partitioned into buckets on the leading key
# bits, each bucket written as soon as it is sorted. Its output must be the
# output of the path it replaced (GPUSORT_STREAM=0 in the test build: read,
# sort, then write)
# and of the independent reference sorter tests/refsort, byte for byte, for
# every key shape and distribution; and the streamed path must really be the
# one taken (--stats says "engine cpu (streamed)").
# Needs ./gpusort, bench/gen and tests/refsort built (make check does it).
# Prints one line per case: PASS name / FAIL name: why / SKIP name: why.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_built stream.sh

# same3 NAME "ARGS" [GPUSORT-ONLY ARGS] -- INPUT...
# refsort's output of the inputs concatenated, gpusort's (streamed: checked
# in --stats) and gpusort's with GPUSORT_STREAM=0 must be the same bytes.
same3() {
	_n=$1 _a=$2 _x=$3
	shift 4
	cat "$@" | "$REF" $_a > exp.bin 2> ref.err || { fail "$_n" "refsort failed: $(first ref.err)"; return 1; }
	${RUN:-gsrun} --cpu --stats $_x $_a "$@" > got.bin 2> gs.err
	_rc=$?
	if [ $_rc != 0 ]; then
		fail "$_n" "exit status $_rc: $(tr '\n' '|' < gs.err | head -c 300)"
	elif ! grep -q '^gpusort: stats: .* engine cpu (streamed)' gs.err; then
		fail "$_n" "the streamed path was not taken: $(grep engine gs.err)"
	elif ! cmp -s got.bin exp.bin; then
		fail "$_n" "streamed output differs from refsort: $(cmp got.bin exp.bin 2>&1 | head -n1)"
	elif ! (GPUSORT_STREAM=0; export GPUSORT_STREAM; gstrun --cpu --stats $_x $_a "$@" > old.bin 2> old.err); then
		fail "$_n" "GPUSORT_STREAM=0 failed: $(first old.err)"
	elif grep -q 'streamed' old.err; then
		fail "$_n" "GPUSORT_STREAM=0 still streamed"
	elif ! cmp -s got.bin old.bin; then
		fail "$_n" "streamed output differs from GPUSORT_STREAM=0's: $(cmp got.bin old.bin 2>&1 | head -n1)"
	else
		pass "$_n"
		return 0
	fi
	return 1
}

# ---------------------------------------------------------------------------
# 1. Key shapes x distributions: key-only records (partitioned themselves),
# entries (wide records, several fields, descending), keys longer than the
# 16-byte prefix (ties fixed by the full key), one-byte keys (8 bits at most;
# of 2-byte records: a record of 1 or 2 bytes that is its key is counted,
# runs_count.c, not streamed).

dists="uniform gaussian zipf sorted reverse equal bucket staggered fewunique"
i=0
for spec in "-k u64" "-k i32:r" "-k f64" "--record-size 2 -k u8" "--record-size 7" \
	"--record-size 100 -k bytes10" "--record-size 16 -k u64@8 -k i32@0:r" \
	"--record-size 40 -k bytes24@4" "--record-size 12 -k u16be@10:r -k f32@0" \
	"--record-size 3 -k i16@1" "-k u32 -k i32:r" "-k u64@8 -k i32@0:r -k bytes4@4" \
	"-k u16 -k i8:r -k u8"; do
	i=$((i + 1))
	for d in $dists; do
		sp=; case "$spec $d" in *f*uniform) sp=--specials ;; esac
		gen -n 20000 $spec --dist $d $sp --seed $i -o in.bin &&
			same3 "stream-[$(echo $spec | tr ' ' ,)]-$d" "$spec" "" -- in.bin
	done
done

# ---------------------------------------------------------------------------
# 2. Sizes around bucket boundaries: 256 buckets of a u16 key (8 bits; of
# 4-byte records: 2-byte ones are counted), and 65536 buckets (16 bits, most
# of them empty); 0, 1 and 2 records.

for n in 0 1 2 3 255 256 257 511 512 513 4095 4096 4097; do
	gen -n $n --record-size 4 -k u16 --dist uniform --seed $n -o in.bin &&
		same3 "stream-bits8-u16-n$n" "--record-size 4 -k u16" "" -- in.bin
done
export GPUSORT_STREAM_BITS
RUN=gstrun # the test build reads GPUSORT_STREAM_BITS
for b in 1 8 16; do
	GPUSORT_STREAM_BITS=$b
	for n in 2 257 70001; do
		gen -n $n --record-size 16 -k u32@4 --dist bucket --seed $n -o in.bin &&
			same3 "stream-forced-bits$b-n$n" "--record-size 16 -k u32@4" "" -- in.bin
	done
done
unset GPUSORT_STREAM_BITS RUN
gsrun --cpu --stats --record-size 4 -k u16 in.bin > /dev/null 2> gs.err
if grep -q 'streamed: .*(8 bits, ' gs.err; then
	pass "stream-bits-stats"
else
	fail "stream-bits-stats" "no 8-bit partition in --stats for a u16 key: $(grep streamed gs.err)"
fi

# ---------------------------------------------------------------------------
# 3. Skew: one bucket with far more than a thread's share is sorted by all
# threads (--stats counts it), in its turn among the others.

for d in zipf fewunique; do
	gen -n 300000 --record-size 12 -k u64@4 --dist $d --seed 5 -o skew.bin &&
		same3 "stream-skew-$d" "--record-size 12 -k u64@4" "--parallel=3" -- skew.bin
done
# one hot key among uniform ones (the big bucket between runs of small
# ones), and all keys equal (one bucket: nothing to partition)
gen -n 100000 --record-size 12 -k u64@4 --seed 7 -o hot1.bin &&
	gen -n 200000 --record-size 12 -k u64@4 --dist equal --seed 8 -o hot2.bin &&
	gen -n 100000 --record-size 12 -k u64@4 --seed 9 -o hot3.bin &&
	gen -n 300000 --record-size 12 -k u64@4 --dist equal --seed 10 -o eq.bin
for c in "hot:hot1.bin hot2.bin hot3.bin" "equal:eq.bin"; do
	same3 "stream-skew-${c%%:*}" "--record-size 12 -k u64@4" "--parallel=3" -- ${c#*:} || continue
	if grep -Eq 'streamed: .*, 1 sorted by all threads' gs.err; then
		pass "stream-skew-${c%%:*}-all-threads"
	else
		fail "stream-skew-${c%%:*}-all-threads" "not one bucket sorted by all threads: $(grep streamed gs.err)"
	fi
done
gen -n 300000 -k u32 --dist equal --seed 6 -o skew.bin &&
	same3 "stream-skew-equal-key-only" "-k u32" "" -- skew.bin
for t in 1 2 5; do
	gen -n 100000 --record-size 24 -k bytes20@2 --dist zipf --seed $t -o skew.bin &&
		same3 "stream-zipf-long-key-parallel$t" "--record-size 24 -k bytes20@2" "--parallel=$t" -- skew.bin
done

# ---------------------------------------------------------------------------
# 4. Several inputs (read side by side), an empty one among them, a pipe
# (then one reader, still streamed), -u, --verify, and O_DIRECT output.

gen -n 30001 --record-size 20 -k i64@12 --seed 21 -o m1.bin
gen -n 17 --record-size 20 -k i64@12 --seed 22 -o m2.bin
gen -n 45000 --record-size 20 -k i64@12 --dist fewunique --seed 23 -o m3.bin
: > m0.bin
same3 "stream-several-inputs" "--record-size 20 -k i64@12" "" -- m1.bin m0.bin m2.bin m3.bin
cat m1.bin m2.bin m3.bin > mall.bin
"$REF" --record-size 20 -k i64@12 < mall.bin > expall.bin
cat m1.bin m3.bin m2.bin | "$REF" --record-size 20 -k i64@12 > exp.bin
cat m3.bin | gsrun --cpu --stats --record-size 20 -k i64@12 m1.bin - m2.bin > got.bin 2> gs.err
rc=$?
if [ $rc = 0 ] && grep -q 'engine cpu (streamed)' gs.err && cmp -s got.bin exp.bin; then
	pass "stream-pipe-input"
else
	fail "stream-pipe-input" "exit status $rc: $(tr '\n' '|' < gs.err | head -c 300)"
fi
same3 "stream-unique" "--record-size 20 -k i64@12 -u" "" -- m3.bin m1.bin
gsrun --cpu --verify --record-size 20 -k i64@12 m1.bin m2.bin m3.bin -o got.bin 2> gs.err
if [ $? = 0 ] && grep -q "^gpusort: verify: 75018 records, order ok, multiset ok" gs.err && cmp -s got.bin expall.bin; then
	pass "stream-verify"
else
	fail "stream-verify" "$(tr '\n' '|' < gs.err)"
fi
gsrun --cpu --direct-io --record-size 20 -k i64@12 mall.bin -o got.bin 2> gs.err
[ $? = 0 ] && cmp -s got.bin expall.bin && pass "stream-direct-output" ||
	fail "stream-direct-output" "$(first gs.err)"

# an empty input
: > empty.bin
gsrun --cpu --stats -k u64 empty.bin -o got.bin 2> gs.err
[ $? = 0 ] && [ ! -s got.bin ] && grep -q 'engine cpu (streamed)' gs.err && pass "stream-empty" ||
	fail "stream-empty" "$(first gs.err)"

# ---------------------------------------------------------------------------
# 5. A read error in the parallel read: a sysfs attribute says it is 4096
# bytes long (a whole number of 16-byte records) and holds a few: the input
# ends before its size, as a file truncated while being read would.

short=
for f in /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/uevent_seqnum /sys/power/state /sys/kernel/profiling; do
	if [ -f "$f" ] && [ "$(stat -c %s "$f" 2>/dev/null)" = 4096 ] && [ "$(wc -c < "$f")" -lt 4096 ]; then
		short=$f
		break
	fi
done
if [ -z "$short" ]; then
	skip "stream-read-error" "no sysfs file that reports 4096 bytes and holds fewer"
	skip "stream-read-error-second-input" "no such sysfs file"
else
	if errcase "stream-read-error" "--cpu --record-size 16 $short"; then
		case $ERRLINE in
		"gpusort: read failed: $short: the file shrank while being read") pass "stream-read-error" ;;
		*) fail "stream-read-error" "message: $ERRLINE" ;;
		esac
	fi
	gen -n 1000 --record-size 16 --seed 24 -o r16.bin
	if errcase "stream-read-error-second-input" "--cpu --record-size 16 m0.bin r16.bin $short"; then
		case $ERRLINE in
		*"$short"*shrank*) pass "stream-read-error-second-input" ;;
		*) fail "stream-read-error-second-input" "message: $ERRLINE" ;;
		esac
	fi
fi
no_stray_temps "stream-no-temp-in-TMPDIR" && pass "stream-no-temp-in-TMPDIR"

# ---------------------------------------------------------------------------
# 6. An input of unknown size (a pipe) on the chunked path: its first chunk
# is counted for the partition while it is read (cpustream_open/_feed) and,
# when it is the only one, streamed; when more follows, its records are
# turned back into what was read and sorted as runs. Every case against
# refsort through a pipe (pipecase), the streamed path checked where taken.

# pipecase NAME "ARGS" "GPUSORT-ONLY ARGS" INPUT [streamed|runs|either]
pipecase() {
	_n=$1 _a=$2 _x=$3 _i=$4 _want=${5:-streamed}
	"$REF" $_a < "$_i" > exp.bin 2> ref.err || { fail "$_n" "refsort failed: $(first ref.err)"; return 1; }
	cat "$_i" | ${RUN:-gsrun} --cpu --stats $_x $_a > got.bin 2> gs.err
	_rc=$? _why=
	_took=runs
	grep -q '^gpusort: stats: .* engine cpu (streamed)' gs.err && _took=streamed
	[ $_took = streamed ] && ! grep -q 'streamed: count 0.000 s' gs.err && _took="streamed, not counted while read"
	if [ $_rc != 0 ]; then
		_why="exit status $_rc: $(tr '\n' '|' < gs.err | head -c 300)"
	elif [ $_want != either ] && [ "$_took" != $_want ]; then
		_why="want $_want, took $_took: $(grep -E 'engine|streamed: count' gs.err | tr '\n' '|')"
	elif ! cmp -s got.bin exp.bin; then
		_why="output differs from refsort: $(cmp got.bin exp.bin 2>&1 | head -n1)"
	fi
	[ -z "$_why" ] && pass "$_n" && return 0
	fail "$_n" "$_why"
	return 1
}

# key shapes: native 8- and 4-byte keys (descending, floats with specials),
# byte-wise key-only records, one-byte keys, entries; counted in pieces of
# 1000 records grouped into the threads' parts (3 threads: parts of several
# pieces, of none, and pieces larger than a part)
export GPUSORT_FEED_PIECE
RUN=gstrun
i=0
for spec in "-k u64" "-k i32:r" "-k f64" "--record-size 2 -k u8" "--record-size 7" \
	"--record-size 100 -k bytes10" "--record-size 16 -k u64@8 -k i32@0:r" "-k u32 -k i32:r"; do
	i=$((i + 1))
	for d in uniform zipf equal; do
		sp=; case "$spec $d" in *f*uniform) sp=--specials ;; esac
		gen -n 20000 $spec --dist $d $sp --seed $((i + 40)) -o in.bin || continue
		for pc in 1000 50000; do
			GPUSORT_FEED_PIECE=$pc
			pipecase "pipe-fed-[$(echo $spec | tr ' ' ,)]-$d-piece$pc" "$spec" "--parallel=3" in.bin
		done
	done
done
# forced partition bits (folded from the 16 counted)
for b in 1 8 16; do
	GPUSORT_FEED_PIECE=777
	GPUSORT_STREAM_BITS=$b
	export GPUSORT_STREAM_BITS
	gen -n 5001 --record-size 16 -k u32@4 --dist bucket --seed $b -o in.bin &&
		pipecase "pipe-fed-bits$b" "--record-size 16 -k u32@4" "" in.bin
	unset GPUSORT_STREAM_BITS
done
unset GPUSORT_FEED_PIECE RUN

# sizes around the reader's pieces (INPUTS_EACH_BYTES, 4 MiB: 12-byte
# records straddle them) and 0, 1, 2 records
for n in 0 1 2 3 349525 349526 349527 699051; do
	want=streamed
	[ $n = 0 ] && want=either # nothing to sort: no engine runs
	gen -n $n --record-size 12 -k u64@4 --seed $n -o in.bin &&
		pipecase "pipe-fed-n$n" "--record-size 12 -k u64@4" "" in.bin $want
done

# sizes around the chunk: -S 4M gives chunks of C records; C - 1 and C are
# one chunk (C: the read ends at the chunk's end, the end of the pipe is
# found by the next read), C + 1 and 3C + 5 are runs, merged, with the
# first chunk's records turned back (native keys, entries, byte-wise)
for spec in "-k u64" "-k f32:r" "--record-size 8 -k bytes8" "--record-size 5" "--record-size 16 -k i64@8"; do
	: | gsrun --cpu --stats -S 4M $spec > /dev/null 2> gs.err
	C=$(sed -n 's/^gpusort: stats: chunk \([0-9]*\) records.*/\1/p' gs.err)
	[ -n "$C" ] || { fail "pipe-chunk-[$(echo $spec | tr ' ' ,)]" "no chunk in --stats: $(first gs.err)"; continue; }
	for n in $((C - 1)) $C $((C + 1)) $((3 * C + 5)); do
		want=runs
		[ $n -lt $C ] && want=streamed
		[ $n = $C ] && want=either
		gen -n $n $spec --dist fewunique --seed $n -o in.bin &&
			pipecase "pipe-chunk-[$(echo $spec | tr ' ' ,)]-n$n" "$spec" "-S 4M" in.bin $want
	done
done

# a pipe past its first chunk (S / (2R + E) records): that chunk is the
# first run, spilled when -S is small (the cases above, -S 4M), kept in
# memory when at least 256 MiB of -S is left beside it (-S 560M: a chunk
# of 280 MiB of u64, 300 MB piped: the rest one more run, nothing spilled)
gen -n 37500000 -k u64 --seed 7 -o big.bin &&
	pipecase "pipe-first-run-kept" "-k u64" "-S 560M -T $PWD" big.bin runs &&
	{ grep -q "chunk [0-9]* records, 2 runs (0 spilled)" gs.err && pass "pipe-first-run-kept-stats" ||
		fail "pipe-first-run-kept-stats" "want 2 runs, 0 spilled: $(grep -o 'chunk [^,]*, [^,]*' gs.err)"; }
rm -f big.bin

# a record split across reads of a slow pipe, -u, --verify, an empty pipe
gen -n 3000 --record-size 12 -k u64@4 --dist fewunique --seed 31 -o in.bin
"$REF" --record-size 12 -k u64@4 < in.bin > exp.bin
{ head -c 17 in.bin; sleep 0.3; tail -c +18 in.bin | head -c 20000; sleep 0.3; tail -c +20018 in.bin; } |
	gsrun --cpu --stats --record-size 12 -k u64@4 > got.bin 2> gs.err
rc=$?
if [ $rc = 0 ] && grep -q 'engine cpu (streamed)' gs.err && cmp -s got.bin exp.bin; then
	pass "pipe-fed-record-split-across-reads"
else
	fail "pipe-fed-record-split-across-reads" "exit status $rc: $(tr '\n' '|' < gs.err | head -c 300)"
fi
pipecase "pipe-fed-unique" "--record-size 12 -k u64@4 -u" "" in.bin
"$REF" --record-size 12 -k u64@4 < in.bin > exp.bin
cat in.bin | gsrun --cpu --verify --record-size 12 -k u64@4 > got.bin 2> gs.err
if [ $? = 0 ] && grep -q "^gpusort: verify: 3000 records, order ok, multiset ok" gs.err && cmp -s got.bin exp.bin; then
	pass "pipe-fed-verify"
else
	fail "pipe-fed-verify" "$(tr '\n' '|' < gs.err)"
fi
: | gsrun --cpu -k u64 > got.bin 2> gs.err
[ $? = 0 ] && [ ! -s got.bin ] && [ ! -s gs.err ] && pass "pipe-fed-empty" ||
	fail "pipe-fed-empty" "$(tr '\n' '|' < gs.err | head -c 300)"

# a pipe that ends mid-record: exit 2 naming standard input, one line,
# nothing written (with -o: the old output kept, nothing left beside it)
head -c 35995 in.bin > cut.bin
want="gpusort: -: size 35995 is not a multiple of the record size 12 (7 bytes left over)"
rm -rf errodir && mkdir errodir && printf 'precious\n' > errodir/out
cat cut.bin | gsrun --cpu --record-size 12 -k u64@4 > err.out 2> err.err
rc=$?
cat cut.bin | gsrun --cpu --record-size 12 -k u64@4 -o errodir/out 2> err2.err
rc2=$?
if [ $rc != 2 ] || [ $rc2 != 2 ]; then
	fail "pipe-fed-ends-mid-record" "exit status $rc and $rc2 (-o), want 2: $(first err.err)"
elif [ -s err.out ] || [ "$(nlines err.err)" != 1 ] || [ "$(first err.err)" != "$want" ]; then
	fail "pipe-fed-ends-mid-record" "stdout $(fsize err.out) bytes, stderr: $(tr '\n' '|' < err.err)"
elif [ "$(cat errodir/out)" != precious ] || [ "$(ls -A errodir)" != out ]; then
	fail "pipe-fed-ends-mid-record" "with -o: the old output changed or files were left beside it"
else
	pass "pipe-fed-ends-mid-record"
fi
no_stray_temps "stream-pipe-no-temp-in-TMPDIR" && pass "stream-pipe-no-temp-in-TMPDIR"
exit $((NFAIL > 0))
