#!/bin/sh
# bench/experiments/text_ab.sh - two gpusort binaries on the CSV text
# workloads (issue 21's 10 GiB rows), interleaved, beside cat, without GNU
# sort (minutes at 10 GiB: bench/text.sh has it): what a change did to the
# text path and how far it is from cat.
#
#   sh bench/experiments/text_ab.sh OLD NEW [SIZE] [ROUNDS] > log
#
# OLD, NEW: gpusort binaries. SIZE: bench/gen_lines csv's size (default
# 10G). ROUNDS: default 3; a round is cat, then OLD and NEW on each key
# (KEYS: names below, default "str 2keys num"). Each command writes to
# DIR/out (DIR: $TMPDIR or /tmp, the same file system as cat's output),
# the previous output removed first (untimed). In round 1 the two outputs
# of each key are compared (cmp; OLD's output waits in /dev/shm where it
# has room, so that its writeback does not slow NEW) and NEW's is checked
# with `NEW -c`. Stops
# starting rounds after BUDGET seconds (default 400). Lines: NAME SECONDS
# rc=STATUS, then the --stats line's stages.
set -u
[ $# -ge 2 ] || { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
old=$1 new=$2 size=${3:-10G} rounds=${4:-3}
cd "$(dirname "$0")/../.." || exit 2
[ -x bench/gen_lines ] || { echo "text_ab.sh: make bench/gen_lines first" >&2; exit 2; }
d=$(mktemp -d "${TMPDIR:-/tmp}/text-ab.XXXXXX") || exit 2
keep=$d
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	k=$(mktemp -d /dev/shm/text-ab.XXXXXX) && keep=$k
fi
trap 'rm -rf "$d"; [ "$keep" = "$d" ] || rm -rf "$keep"' EXIT
trap 'exit 2' INT TERM HUP
export LC_ALL=C
now() { date +%s.%N; }
t0=$(now)
bench/gen_lines csv "$size" > "$d/in" || exit 2
sync
cat "$d/in" > /dev/null
echo "text_ab: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, csv $size, old $old, new $new"
# tm NAME CMD...: CMD's wall seconds, stdout to $d/out
tm() {
	_n=$1
	shift
	rm -f "$d/out"
	_s=$(now)
	"$@" > "$d/out" 2> "$d/err"
	_rc=$?
	_e=$(now)
	echo "$_n $(awk -v a="$_s" -v b="$_e" 'BEGIN { printf "%.3f", b - a }') s rc=$_rc $(grep -o '[0-9]* ties finished.*' "$d/err" | head -n 1)"
}
key() { case $1 in str) echo "-k2,2" ;; 2keys) echo "-k2,2 -k3,3n" ;; num) echo "-k3,3n" ;; esac; }
for r in $(seq 1 "$rounds"); do
	el=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%d", b - a }')
	[ "$r" -gt 1 ] && [ "$el" -gt "${BUDGET:-400}" ] && { echo "stopped after $el s"; break; }
	echo "== round $r"
	tm cat cat "$d/in"
	for w in ${KEYS:-str 2keys num}; do
		# shellcheck disable=SC2046
		tm "old-$w" "$old" -t, $(key "$w") --stats "$d/in"
		if [ "$r" = 1 ]; then
			o=$keep/old
			mv "$d/out" "$o" 2> /dev/null || { rm -f "$o"; o=$d/old; mv "$d/out" "$o"; }
		fi
		# shellcheck disable=SC2046
		tm "new-$w" "$new" -t, $(key "$w") --stats "$d/in"
		if [ "$r" = 1 ]; then
			cmp -s "$o" "$d/out" && echo "new-$w: output equal to old's" || echo "new-$w: OUTPUT DIFFERS from old's"
			# shellcheck disable=SC2046
			"$new" -c -t, $(key "$w") "$d/out" && echo "new-$w: sorted (gpusort -c)"
			rm -f "$o"
		fi
	done
done
