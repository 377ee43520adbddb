#!/bin/sh
# bench/experiments/iobench.sh [GIB] [all|fixed] - what this machine's file
# system does for a sort's I/O (bench/NOTES.md): cat, parallel page-cache
# reads, and writing a new file by pwrite from N threads or by N threads
# copying into an mmap; then (also alone, with `fixed`) gpusort's own
# io_uring path with its buffers registered as fixed buffers or not,
# buffered and O_DIRECT, REPS times each (default 5), alternating, with the
# medians.
# Build: make bench/gen bench/experiments/iobench. GPUSORT_DIRECT=0/1 here
# is read by io/ linked into iobench (gpusort itself takes --direct-io).
# Each written file is deleted before the next test, so dirty pages of one
# test do not throttle the next.
set -u
cd "$(dirname "$0")/../.." || exit 2
IOB=bench/experiments/iobench
[ -x $IOB ] && [ -x bench/gen ] || { echo "run make bench/gen $IOB first" >&2; exit 2; }
G=${1:-16}
WHAT=${2:-all}
REPS=${REPS:-5}
BUF=${BUF:-64}
D=${TMPDIR:-/tmp}/gpusort-iobench
mkdir -p "$D" || exit 2
echo "# $(uname -r); $(df -T "$D" | awk 'NR==2 {print $2, $1}'); dirty_ratio $(cat /proc/sys/vm/dirty_ratio) background $(cat /proc/sys/vm/dirty_background_ratio); $(nproc) cores; $(awk '/MemTotal/ {printf "%.0f GiB RAM", $2 / 1048576}' /proc/meminfo)"
bench/gen -n $((G * 134217728)) -k u64 --seed 7 -o "$D/in.bin" || exit 2
cat "$D/in.bin" > /dev/null
if [ "$WHAT" = all ]; then
	for i in 1 2; do
		rm -f "$D/out.bin"; sleep 1
		s=$(date +%s.%N); cat "$D/in.bin" > "$D/out.bin"; e=$(date +%s.%N)
		awk -v s="$s" -v e="$e" -v g="$G" 'BEGIN {printf "cat %.2f GiB %.3f s %.2f GB/s\n", g, e - s, g * 1.073741824 / (e - s)}'
	done
	rm -f "$D/out.bin"
	for t in 1 4 8 16; do $IOB read $t "$D/in.bin"; done
	for m in pwrite mmap; do
		for t in 1 4 8 16; do
			sleep 1; $IOB write $m $t "$G" "$D/out.bin"; rm -f "$D/out.bin"
		done
	done
fi
# registered (fixed) vs plain buffers through io/ (one thread, two BUF MiB
# buffers in turn); reads from the page cache (or the disk with O_DIRECT)
R=$D/ring.txt
: > "$R"
for direct in 0 1; do
	for i in $(seq "$REPS"); do
		for m in fixed plain; do
			GPUSORT_DIRECT=$direct $IOB ring read $m "$BUF" "$D/in.bin" >> "$R" || exit 1
			rm -f "$D/out.bin"; sync; sleep 1
			GPUSORT_DIRECT=$direct $IOB ring write $m "$BUF" "$G" "$D/out.bin" >> "$R" || exit 1
			rm -f "$D/out.bin"
		done
	done
done
cat "$R"
# medians of GB/s by (read|write, fixed|plain, direct)
awk '{print $2, $3, $NF, $11}' "$R" | sort -k1,1 -k2,2 -k3,3n -k4,4n | awk '
	{ k = $1 " " $2 " direct " $3; v[k, ++n[k]] = $4; if (!(k in seen)) { seen[k] = 1; keys[++nk] = k } }
	END { for (i = 1; i <= nk; i++) { k = keys[i]; c = n[k]
		m = c % 2 ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2
		printf "median ring %s: %.2f GB/s over %d runs (min %.2f, max %.2f)\n", k, m, c, v[k, 1], v[k, c] } }'
rm -f "$D/in.bin" "$D/out.bin"
