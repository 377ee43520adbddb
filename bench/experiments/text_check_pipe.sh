#!/bin/bash
# bench/experiments/text_check_pipe.sh - text -c of a stream: two gpusort
# binaries (gpusort-prev, gpusort-head in the current directory) and GNU
# sort -c, each reading a pipe from cat, beside `cat | cat`; then how soon
# a disorder from a producer that goes on is reported.
#
#   bash bench/experiments/text_check_pipe.sh > log
#
# Inputs in W (/tmp/w): n = seq 1 200000000; sin = gen_lines csv 4G 7
# (./gen_lines) sorted by -t, -k2,2; sin2 = sin with `x,,` inserted at
# 90% of its lines. Three rounds; GNU sort in the first only.
W=${W:-/tmp/w}
mkdir -p "$W"
nproc; date -u
if [ ! -s "$W/sin2" ]; then
	seq 1 200000000 > "$W/n"
	./gen_lines csv 4G 7 > "$W/csv"
	./gpusort-head -t, -k2,2 "$W/csv" -o "$W/sin"
	rm "$W/csv"
	L=$(wc -l < "$W/sin"); H=$((L * 9 / 10))
	{ head -n $H "$W/sin"; printf 'x,,\n'; tail -n +$((H + 1)) "$W/sin"; } > "$W/sin2"
fi
ls -la "$W"
cat "$W/n" "$W/sin" "$W/sin2" > /dev/null
t() { # LABEL COMMAND...: its status, seconds and the start of its message
	local l="$1"; shift
	local s=$(date +%s.%N); "$@" > /dev/null 2> "$W/err"; local rc=$?; local e=$(date +%s.%N)
	printf '%-44s rc=%s %6.2f s  %s\n' "$l" $rc $(awk "BEGIN{print $e - $s}") "$(head -c 80 "$W/err")"
}
for r in 1 2 3; do
	for b in prev head; do
		t "$b cat n | -c -n" sh -c "cat $W/n | ./gpusort-$b -c -n"
		t "$b cat sin | -c -t, -k2,2" sh -c "cat $W/sin | ./gpusort-$b -c -t, -k2,2"
		t "$b cat sin2 | -c -t, -k2,2" sh -c "cat $W/sin2 | ./gpusort-$b -c -t, -k2,2"
	done
	t "cat n | cat" sh -c "cat $W/n | cat"
	t "cat sin | cat" sh -c "cat $W/sin | cat"
	if [ $r = 1 ]; then
		t "GNU cat n | -c -n" sh -c "cat $W/n | LC_ALL=C sort -c -n"
		t "GNU cat sin | -c -t, -k2,2" sh -c "cat $W/sin | LC_ALL=C sort -c -t, -k2,2"
		t "GNU cat sin2 | -c -t, -k2,2" sh -c "cat $W/sin2 | LC_ALL=C sort -c -t, -k2,2"
	fi
done
s=$(date +%s.%N)
(printf 'b\na\n'; sleep 3) | { ./gpusort-head -c; e=$(date +%s.%N); echo "slow producer: head reported after $(awk "BEGIN{print $e - $s}") s"; }
date -u
