#!/bin/sh
# bench/experiments/stream_ab.sh - the CPU engine's streamed single chunk
# against the path it replaced, on one machine, file to file
# (bench/results/cpu-stream-2core-2026-11-22.md).
#
#   sh bench/experiments/stream_ab.sh WORKLOAD ROUNDS
#
# WORKLOAD: u64 (1 GiB of u64), rec100 (1 GiB of 100-byte records, 10-byte
# key, printable: bench/run.sh's rec100), u64eq, u64zipf (1 GiB of u64,
# --dist equal / zipf). The input is made by bench/gen in DIR (default
# /tmp/gsbench) when missing; the output goes to the same directory.
# Each round times `cat`, then gpusort --cpu -S 50% --stats three ways,
# the order rotating by round: m=0 GPUSORT_STREAM=0 (read by one thread,
# sorted, then written), m=f the same with GPUSORT_FIXED=0, m=1 the default
# (streamed). Before every timed command: the output is removed, dirty pages
# are synced, SETTLE (default 5) s pass idle, and the input is read into the
# page cache. Round 1 checks every output with bench/checkrec and that the
# three are identical. One line per timed command: wall, user and sys
# seconds (/usr/bin/time), and gpusort's --stats stage times.
#
# The binary is BIN (default tests/bin/gpusort-test, built by
# `make tests/bin/gpusort-test`): only that test build reads GPUSORT_STREAM
# and GPUSORT_FIXED, the installed ./gpusort does not. All three modes run
# the same binary, so that they differ only by the variables.

cd "$(dirname "$0")/../.." || exit 2
G=${BIN:-tests/bin/gpusort-test}
D=${DIR:-/tmp/gsbench}
[ -x "$G" ] && [ -x bench/gen ] && [ -x bench/checkrec ] ||
	{ echo "run make $G bench/gen bench/checkrec first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time" >&2; exit 2; }
mkdir -p "$D" || exit 2
case $1 in
u64) GENA="-n 134217728 -k u64 --dist uniform" KEYS="-k u64" CK="-k u64" ;;
u64eq) GENA="-n 134217728 -k u64 --dist equal" KEYS="-k u64" CK="-k u64" ;;
u64zipf) GENA="-n 134217728 -k u64 --dist zipf" KEYS="-k u64" CK="-k u64" ;;
rec100) GENA="-n 10737418 --record-size 100 -k bytes10 --format lines --dist uniform"
	KEYS="--record-size 100 -k bytes10" CK="-R 100 -k bytes10" ;;
*) echo "usage: sh bench/experiments/stream_ab.sh u64|rec100|u64eq|u64zipf ROUNDS" >&2; exit 2 ;;
esac
IN=$D/$1.bin
[ -s "$IN" ] || bench/gen $GENA --seed 7 -o "$IN" || exit 2
prep() { rm -f "$D"/out.*; sync; sleep "${SETTLE:-5}"; cat "$IN" > /dev/null; }
i=0
while [ $i -lt "${2:-3}" ]; do
	i=$((i + 1))
	prep
	/usr/bin/time -f "%e %U %S" -o "$D/t.cat" sh -c "cat '$IN' > '$D/out.cat'"
	echo "$1 round$i cat wall/user/sys $(cat "$D/t.cat")"
	case $((i % 3)) in 1) order="0 f 1" ;; 2) order="1 0 f" ;; 0) order="f 1 0" ;; esac
	for m in $order; do
		prep
		fx=1 st=$m
		[ $m = f ] && fx=0 st=0
		GPUSORT_FIXED=$fx GPUSORT_STREAM=$st /usr/bin/time -f "%e %U %S" -o "$D/t.$m" \
			"$G" --cpu $KEYS -S 50% -T "$D" --stats "$IN" -o "$D/out.$m" 2> "$D/st.$m"
		rc=$?
		echo "$1 round$i m=$m rc $rc wall/user/sys $(cat "$D/t.$m") |" \
			"$(grep -o 'read .*write [0-9.]* s' "$D/st.$m" | sed 's/spill.*merge [0-9.]* s, //') |" \
			"$(grep -o 'partition [^;]*' "$D/st.$m")"
		if [ $i = 1 ]; then
			bench/checkrec $CK "$IN" "$D/out.$m" > /dev/null &&
				echo "$1 m=$m output checked by checkrec (order, multiset)"
			mv "$D/out.$m" "$D/keep.$m"
		fi
	done
	if [ $i = 1 ]; then
		cmp "$D/keep.0" "$D/keep.1" && cmp "$D/keep.f" "$D/keep.1" &&
			echo "$1 outputs of m=0, m=f and m=1 identical"
		rm -f "$D"/keep.*
	fi
done
rm -f "$D"/out.* "$D"/t.* "$D"/st.*
