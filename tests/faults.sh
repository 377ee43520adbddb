#!/bin/sh
# tests/faults.sh - no silent wrong output, ever (issue 17): every kind of
# call a sort makes fails in turn, and each trial must end in one of three
# ways:
#   error      exit 2, one line "gpusort: ..." naming the file or directory
#              (an I/O fault) or the device (a GPU fault), the existing -o
#              output byte-identical to before, no temp file left beside it,
#              in -T nor in $TMPDIR;
#   recovered  exit 0 and the output byte-identical to the reference,
#              tests/refsort's or GNU sort's (-c: the right verdict, exit 0
#              for sorted input, 1 for unsorted)
#              (EINTR and short transfers are retried; a GPU failure may
#              hand the work to the CPU; a refused pin only costs speed);
#   touched    exit 2 once the old output could no longer be kept, the
#              message saying so: --sync's flush of the directory after
#              the rename (the output must be the sorted one), or the copy
#              into a target of several hard links failing part way (it is
#              written in place: DESIGN.md section 8).
# Anything else (a crash, a hang, another status, wrong output, a temp file
# left) is a FAIL. A trial whose fault did not fire (the command made fewer
# calls of the kind this time) is counted as not reached.
#
# How: the test build's fault layer (io/io_fault.h) counts the calls of
# each kind; one clean run of a path (GPUSORT_FAULT_COUNT) gives the
# counts, then GPUSORT_FAULT=KIND@N[+][:ERR] fails the Nth call (or every
# call from the Nth on: "+", a disk that stays full or broken, a device
# that stays dead) for N from 1 to the count: FAULTS_SAMPLES of them
# (default 8) spread evenly over 1..count, or every one with FAULTS_LONG=1
# (which also adds the rarer errors and larger inputs). The paths: chunked
# (spilled runs, a two-pass merge; from a file and from a pipe), streamed
# (the CPU's single chunk), compressed (spilled runs through gzip's pipes:
# --compress-program), linked (-o a file of two hard links), resident
# (tests/bin/gpusort-fakegpu: runs kept and merged on the device, or
# spilled; and spilled, read back and merged on the device:
# gpumerge-spilled), the chunked path on the device, -m of sorted files (mapped:
# no reads) and of files and a pipe, and -c of a sorted and an unsorted file
# (mapped) and of a pipe, records of 2 bytes counted (runs_count.c) from a
# file and between pipes; and the same for text lines (text-*: spilled runs
# merged in two passes, from a file and between pipes, through gzip, one
# chunk, -m, -c), whose reference is GNU sort (skipped without it)
# (FAULTS_PATHS="NAME..." runs only those). Every command that writes -o
# has --sync, so that fsync is counted too.
#
# FAULTS_MD=FILE writes the table of outcomes (tests/FAULTS.md is one).
# Prints PASS/FAIL/SKIP lines (one per path and fault spec, and one per
# failed trial); exit 1 on any failure.
# FAULTS_MD relative to where we started: lib.sh moves into its scratch directory
case ${FAULTS_MD:-} in '' | /*) MD=${FAULTS_MD:-} ;; *) MD=$(pwd)/$FAULTS_MD ;; esac
. "$(dirname "$0")/lib.sh"
need_built faults.sh
FG=$(abspath "${GPUSORT_FAKEGPU:-$ROOT/tests/bin/gpusort-fakegpu}")
[ -x "$FG" ] || { echo "FAIL faults.sh: $FG is missing (make tests/bin/gpusort-fakegpu)"; exit 1; }
LONG=${FAULTS_LONG:-0}
SAMPLES=${FAULTS_SAMPLES:-8}
TO=${CLI_TIMEOUT:-60}
# the fault layer must not be in the installed binary: none of io_fault.c's
# functions (io_fault.h's inline stubs, constant 0, may stay at -O0), no
# variable name it reads
if nm "$GS" 2>/dev/null | grep -Eq ' (io_fault_set|io_fault_report)$' || grep -q 'GPUSORT_FAULT' "$GS"; then
	fail "installed-has-no-fault-code" "$(nm "$GS" | grep io_fault_ | head -n 3 | tr '\n' ' ')"
else
	pass "installed-has-no-fault-code"
fi

# inputs: small, so that a trial takes tens of milliseconds
if [ "$LONG" = 1 ]; then N32=400000 N64=300000 NBIG=1200000; else N32=50000 N64=100000 NBIG=600000; fi
gen -n $N32 -k u32 --seed 7 -o in.bin || exit 1
gen -n $N64 -k u64 --seed 8 -o in64.bin || exit 1
gen -n $NBIG -k u64 --seed 9 -o inbig.bin || exit 1
gen -n $N64 -k u16 --dist zipf --seed 10 -o in16.bin || exit 1
"$REF" -k u32 < in.bin > exp32.bin && "$REF" -k u64 < in64.bin > exp64.bin &&
	"$REF" -k u64 < inbig.bin > expbig.bin && "$REF" -k u16 < in16.bin > exp16.bin ||
	{ fail faults.sh "refsort failed"; exit 1; }
# -m: four sorted files (uneven pieces of in.bin)
q=$((N32 / 7 * 4))
for i in 1 2 3 4; do
	case $i in 1) o=0 c=$q ;; 2) o=$q c=$((q * 3)) ;; 3) o=$((q * 4)) c=$((q / 2)) ;; 4) o=$((q * 9 / 2)) c=$((N32 * 4 - q * 9 / 2)) ;; esac
	dd if=in.bin of=piece.bin bs=4 skip=$((o / 4)) count=$((c / 4)) 2>/dev/null
	"$REF" -k u32 < piece.bin > m$i.bin
done
rm -f piece.bin
# text lines: CSV sorted on its second field by GNU sort, the reference;
# m1..m4.txt its sorted pieces, for -m
TEXT_PATHS=
if sort --version 2>/dev/null | grep -q 'GNU coreutils'; then
	if [ "$LONG" = 1 ]; then TSIZE=4M; else TSIZE=1M; fi
	"$ROOT/bench/gen_lines" csv $TSIZE 3 > in.txt && LC_ALL=C sort -t, -k2,2 in.txt > exp.txt ||
		{ fail faults.sh "text inputs"; exit 1; }
	tl=$(nlines in.txt)
	split -l $((tl / 4 + 1)) in.txt piece.
	i=1
	for f in piece.*; do LC_ALL=C sort -t, -k2,2 "$f" > m$i.txt; i=$((i + 1)); done
	rm -f piece.*
	TEXT_PATHS="text-chunked text-pipes text-compressed text-stream text-gpu text-merge text-merge-pipe text-check-sorted text-check-unsorted text-check-pipe"
else
	skip faults-text "no GNU sort to make the text paths' reference"
fi

# The paths: NAME, then set_path NAME sets BIN, ENVS (VAR=VALUE words), ARGS
# (before -o), STDIN (a file fed through a pipe, or empty), EXP, and OUTF:
# out/o.bin (-o), or out/so.bin (what standard output, a pipe, carried),
# or empty for -c, whose verdict is its exit status, WANT; LINK=1: out/o.bin
# has a second name, out/o.link.
PATHS=${FAULTS_PATHS:-chunked chunked-pipes compressed stream linked merge merge-pipe check-sorted check-unsorted check-pipe resident-kept resident-spilled gpumerge-spilled gpu-chunked counted counted-pipes $TEXT_PATHS}
set_path() {
	BIN=$GST ENVS= STDIN= EXP=exp32.bin OUTF=out/o.bin LINK= WANT=0
	case $1 in
	chunked) ARGS="-k u32 -S 64K -T tmp1 --sync in.bin" ;;
	chunked-pipes) ARGS="-k u32 -S 64K -T tmp1" STDIN=in.bin OUTF=out/so.bin ;;
	compressed) ARGS="-k u32 -S 64K -T tmp1 --sync --compress-program=gzip in.bin" ;; # runs through gzip's pipes
	stream) ARGS="-k u32 --sync in.bin" ;;
	linked) ARGS="-k u32 -S 64K -T tmp1 --sync in.bin" LINK=1 ;; # -o has another hard link: copied through
	merge) ARGS="-k u32 -m --sync m1.bin m2.bin m3.bin m4.bin" ;; # mapped: no reads
	merge-pipe) ARGS="-k u32 -m --sync m1.bin - m3.bin m4.bin" STDIN=m2.bin ;; # a pipe among them is read
	check-sorted) ARGS="-k u32 -S 64K -c exp32.bin" OUTF= ;;   # -c: no fault may make it say
	check-unsorted) ARGS="-k u32 -S 64K -c in.bin" OUTF= WANT=1 ;; # disorder where there is none, or none where there is
	check-pipe) ARGS="-k u32 -S 64K -c -" STDIN=exp32.bin OUTF= ;; # files are mapped: a pipe is read
	resident-kept)
		BIN=$FG ENVS="GPUSORT_SMALL_CPU=0 GPUSORT_FAKE_CAP=$((N64 / 5))" EXP=exp64.bin
		ARGS="-k u64 -S 64M --sync in64.bin" ;;
	resident-spilled)
		BIN=$FG ENVS="GPUSORT_SMALL_CPU=0 GPUSORT_FAKE_CAP=$((NBIG / 6))" EXP=expbig.bin
		ARGS="-k u64 -S 8M -T tmp1 --sync inbig.bin" ;;
	gpumerge-spilled) # the GPU merge of spilled runs, whatever its groups' size (a failure: the CPU's)
		BIN=$FG ENVS="GPUSORT_SMALL_CPU=0 GPUSORT_FAKE_CAP=$((NBIG / 6)) GPUSORT_SPILL_MERGE=gpu" EXP=expbig.bin
		ARGS="-k u64 -S 8M -T tmp1 --sync inbig.bin" ;;
	gpu-chunked)
		BIN=$FG ENVS="GPUSORT_SMALL_CPU=0 GPUSORT_RESIDENT=0"
		ARGS="-k u32 -S 64K -T tmp1 --sync in.bin" ;;
	# 2-byte records that are their keys: counted while read, nothing spilled
	counted) ARGS="-k u16 -S 64K -T tmp1 --sync in16.bin" EXP=exp16.bin ;;
	counted-pipes) ARGS="-k u16 -S 64K -T tmp1" STDIN=in16.bin OUTF=out/so.bin EXP=exp16.bin ;;
	# text lines: -S 64K makes ~30 runs, --batch-size=4 two merge passes
	text-chunked) ARGS="-t, -k2,2 -S 64K --batch-size=4 -T tmp1 --sync in.txt" EXP=exp.txt ;;
	text-pipes) ARGS="-t, -k2,2 -S 64K --batch-size=4 -T tmp1" STDIN=in.txt OUTF=out/so.bin EXP=exp.txt ;;
	text-compressed) ARGS="-t, -k2,2 -S 64K --batch-size=4 -T tmp1 --sync --compress-program=gzip in.txt" EXP=exp.txt ;;
	text-stream) ARGS="-t, -k2,2 --sync in.txt" EXP=exp.txt ;; # one chunk, the input mapped
	text-gpu) # the chunks' prefixes sorted by a GPU engine named on the command line
		BIN=$FG ENVS="GPUSORT_SMALL_CPU=0" EXP=exp.txt
		ARGS="--algorithm=bitonic -t, -k2,2 -S 64K --batch-size=4 -T tmp1 --sync in.txt" ;;
	text-merge) ARGS="-t, -k2,2 -m --sync m1.txt m2.txt m3.txt m4.txt" EXP=exp.txt ;;
	text-merge-pipe) ARGS="-t, -k2,2 -m --sync m1.txt - m3.txt m4.txt" STDIN=m2.txt EXP=exp.txt ;;
	text-check-sorted) ARGS="-t, -k2,2 -c exp.txt" OUTF= ;;
	text-check-unsorted) ARGS="-t, -k2,2 -c in.txt" OUTF= WANT=1 ;;
	text-check-pipe) ARGS="-t, -k2,2 -c -" STDIN=exp.txt OUTF= ;;
	esac
}

# run VAR=VALUE...: the path's command with these variables too, -o out/o.bin
# or into a pipe (or neither: -c); returns its exit status
run() {
	if [ -z "$OUTF" ] && [ -n "$STDIN" ]; then
		cat "$STDIN" | timeout -k 5 "$TO" env $ENVS "$@" "$BIN" $ARGS
	elif [ -z "$OUTF" ]; then
		timeout -k 5 "$TO" env $ENVS "$@" "$BIN" $ARGS < /dev/null
	elif [ "$OUTF" = out/so.bin ]; then
		{ cat "$STDIN" | timeout -k 5 "$TO" env $ENVS "$@" "$BIN" $ARGS; echo $? > rc.pipe; } | cat > out/so.bin
		return "$(cat rc.pipe)"
	elif [ -n "$STDIN" ]; then
		cat "$STDIN" | timeout -k 5 "$TO" env $ENVS "$@" "$BIN" $ARGS -o out/o.bin
	else
		timeout -k 5 "$TO" env $ENVS "$@" "$BIN" $ARGS -o out/o.bin < /dev/null
	fi
}

# The fault specs tried for a kind: KIND@N is filled in per trial.
specs_of() {
	case $1 in
	open) echo "open@N:EACCES open@N:EMFILE" ;;
	read) echo "read@N+:EIO read@N:short read@N:EINTR" ;;
	write)
		echo "write@N+:ENOSPC write@N+:EIO write@N:short"
		[ "$LONG" = 1 ] && echo "write@N:EINTR write@N:ENOSPC" ;;
	fsync) echo "fsync@N:EIO" ;;
	rename) echo "rename@N:EIO" ;;
	pin) echo "pin@N+:ENOMEM" ;;
	gpu-alloc) echo "gpu-alloc@N:ENOMEM gpu-alloc@N+" ;;
	gpu-launch)
		echo "gpu-launch@N+ gpu-launch@N:ENOMEM"
		[ "$LONG" = 1 ] && echo "gpu-launch@N" ;;
	gpu-copy) echo "gpu-copy@N+"; [ "$LONG" = 1 ] && echo "gpu-copy@N" ;;
	gpu-sync) echo "gpu-sync@N+"; [ "$LONG" = 1 ] && echo "gpu-sync@N" ;;
	esac
}

# picks COUNT: the Ns tried, 1..COUNT, SAMPLES of them spread evenly
picks() {
	if [ "$LONG" = 1 ] || [ "$1" -le "$SAMPLES" ]; then
		awk -v c="$1" 'BEGIN { for (i = 1; i <= c; i++) print i }'
	else
		awk -v c="$1" -v s="$SAMPLES" 'BEGIN {
			for (i = 0; i < s; i++) { n = 1 + int(i * (c - 1) / (s - 1) + 0.5); if (n != last) print n; last = n }
		}'
	fi
}

# fresh: an existing output to keep, empty spill and temp directories
fresh() {
	rm -rf out tmp1 && mkdir out tmp1 && printf 'precious\n' > out/o.bin
	[ -z "$LINK" ] || ln out/o.bin out/o.link
	rm -rf "${TMPDIR:?}"/* "${TMPDIR:?}"/.[!.]* 2>/dev/null
}

# trial PATH SPEC KIND: one run with the fault; OUTCOME gets error,
# recovered, touched or unreached, or WHY gets the reason it failed.
trial() {
	fresh
	rm -f cnt
	run "GPUSORT_FAULT=$2" "GPUSORT_FAULT_COUNT=$T/cnt" > so 2> se
	_rc=$?
	OUTCOME= WHY=
	_left=$( (ls -A out | grep -vx -e o.bin -e so.bin -e o.link; ls -A tmp1; ls -A "$TMPDIR") | tr '\n' ' ')
	case $3 in
	gpu-* | pin) _names='GPU|CUDA device' ;;
	*) _names="(in|in64|in16|inbig|exp32)\\.bin|m[1-4]\\.(bin|txt)|(in|exp)\\.txt|out/o\\.bin|tmp1|standard output|: -: |'gzip" ;; # -: standard input, as sort(1)
	esac
	if [ "$_rc" = 124 ] || [ "$_rc" = 137 ]; then
		WHY="hung (killed after $TO s)"
	elif [ -n "$_left" ]; then
		WHY="exit $_rc, left behind: $_left"
	elif [ -z "$OUTF" ] && [ "$_rc" != 2 ]; then
		if [ "$_rc" = "$WANT" ] && [ ! -s so ] && { [ "$WANT" = 0 ] || grep -q disorder se; }; then OUTCOME=recovered
		else WHY="-c: exit $_rc, want $WANT: $(first se)"; fi
	elif [ "$_rc" = 0 ]; then
		if ! cmp -s "$OUTF" "$EXP"; then WHY="exit 0 with wrong output: $(cmp "$OUTF" "$EXP" 2>&1 | head -n 1)"
		elif [ -n "$LINK" ] && ! cmp -s out/o.link "$EXP"; then WHY="exit 0, but the other link has other data"
		else OUTCOME=recovered; fi
	elif [ "$_rc" != 2 ]; then
		WHY="exit $_rc: $(tr '\n' '|' < se | head -c 300)"
	elif [ "$(nlines se)" != 1 ] || ! grep -q '^gpusort: ' se; then
		WHY="want one line 'gpusort: ...' on stderr: $(tr '\n' '|' < se | head -c 300)"
	elif ! grep -Eq "$_names" se; then
		WHY="the message names no file or device: $(first se)"
	elif [ "$(cat out/o.bin)" != precious ] || { [ -n "$LINK" ] && [ "$(cat out/o.link)" != precious ]; }; then
		# too late to keep the old output, and the message must say so:
		# --sync's flush of the directory fails after the rename (the new
		# output is there), or the copy into a target of several hard
		# links fails part way (it is damaged: DESIGN.md section 8)
		if grep -q "holds the sorted output" se && cmp -s out/o.bin "$EXP"; then OUTCOME=touched
		elif [ -n "$LINK" ] && grep -q "(it is damaged)" se; then OUTCOME=touched
		else WHY="exit 2 but the existing output changed: $(first se)"; fi
	else
		OUTCOME=error
	fi
	if [ -n "$OUTCOME" ] && ! grep -q '^fired ' cnt 2>/dev/null; then
		OUTCOME=unreached
	fi
}

: > rows
for p in $PATHS; do
	set_path $p
	fresh
	rm -f cnt
	run "GPUSORT_FAULT_COUNT=$T/cnt" > so 2> se
	rc=$?
	if { [ -z "$OUTF" ] && [ $rc != "$WANT" ]; } || { [ -n "$OUTF" ] && { [ $rc != 0 ] || ! cmp -s "$OUTF" "$EXP"; }; }; then
		fail "faults-$p-clean" "without a fault: exit $rc, $(first se)"
		continue
	fi
	mv cnt counts # the trials write cnt again
	for kind in open read write fsync rename pin gpu-alloc gpu-launch gpu-copy gpu-sync; do
		count=$(awk -v k=$kind '$1 == k { print $2 }' counts)
		for spec in $(specs_of $kind); do
			name="faults-$p-$spec"
			if [ "${count:-0}" = 0 ]; then
				continue # this path makes no such call
			fi
			ntr=0 nerr=0 nrec=0 nrep=0 nun=0 nbad=0 msg=
			for n in $(picks "$count"); do
				s=$(echo "$spec" | sed "s/@N/@$n/")
				trial $p "$s" $kind
				ntr=$((ntr + 1))
				case $OUTCOME in
				error) nerr=$((nerr + 1)); [ -n "$msg" ] || msg=$(first se | cut -c 10-110 | tr '|`' "/'") ;;
				recovered) nrec=$((nrec + 1)) ;;
				touched) nrep=$((nrep + 1)) ;;
				unreached) nun=$((nun + 1)) ;;
				*)
					nbad=$((nbad + 1))
					[ $nbad -le 3 ] && fail "faults-$p-$s" "$WHY" ;;
				esac
			done
			echo "$p|$spec|$count|$ntr|$nerr|$nrec|$nrep|$nun|$nbad|$msg" >> rows
			if [ $nbad = 0 ]; then
				pass "$name (of $count calls, $ntr trials: $nerr error named, $nrec recovered, $nrep touched, $nun not reached)"
			elif [ $nbad -gt 3 ]; then
				fail "$name" "$nbad of $ntr trials failed (the first 3 above)"
			fi
		done
	done
done

if [ -n "$MD" ]; then
	{
		echo "# Fault table"
		echo
		_at=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)
		echo "Generated by \`$([ "$LONG" = 1 ] && echo "FAULTS_LONG=1 ")FAULTS_MD=$([ "$LONG" = 1 ] && echo tests/FAULTS-long.md || echo tests/FAULTS.md) sh tests/faults.sh\`${_at:+ at $_at}"
		echo "(samples per fault: $([ "$LONG" = 1 ] && echo "every call" || echo "$SAMPLES spread over the calls")); the"
		echo "outcomes are what each trial was checked to be (tests/faults.sh says how)."
		echo "*calls*: how many calls of the kind the path makes without a fault;"
		echo "*error*: exit 2 naming the file, directory or device, the old output"
		echo "intact, no temp file left; *recovered*: exit 0 (-c: the right verdict, 0 or 1), output identical to"
		echo "tests/refsort's (text-*: GNU sort's); *touched*: exit 2 once the target could no longer be"
		echo "kept, the message saying so: after the rename (--sync's flush of the"
		echo "directory; the output must hold the sorted records), or while copying"
		echo "into a target of several hard links (linked: written in place, not"
		echo "atomic, DESIGN.md section 8; its space is reserved first, so a full"
		echo "disk fails before it is touched); *not reached*: the fault did not fire that"
		echo "run; *failed*: anything else (must be 0). \`KIND@N+\` fails every call"
		echo "of the kind from the Nth on (a disk that stays full or broken, a device"
		echo "that stays dead); without +, the Nth only. The long mode,"
		echo "\`FAULTS_LONG=1 FAULTS_MD=tests/FAULTS-long.md sh tests/faults.sh\`, tries every"
		echo "N on inputs several times larger, adds one-shot write errors and EINTR and"
		echo "one-shot GPU errors, and takes about twenty minutes on 2 cores"
		echo "(tests/FAULTS-long.md is one such run)."
		echo
		echo "| path | fault | calls | trials | error | recovered | touched | not reached | failed | first error's message |"
		echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
		while IFS='|' read -r p s c t e r x u b m; do
			echo "| $p | \`$s\` | $c | $t | $e | $r | $x | $u | $b | ${m:+\`$m\`} |"
		done < rows
		echo
		awk -F'|' '{ t += $4; e += $5; r += $6; x += $7; u += $8; b += $9 }
			END { printf "Total: %d trials, %d error named, %d recovered, %d touched, %d not reached, %d failed.\n", t, e, r, x, u, b }' rows
	} > "$MD"
fi
[ $NFAIL = 0 ]
