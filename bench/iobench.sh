#!/bin/sh
# bench/iobench.sh [GIB] - what this machine's file system does for a sort's
# I/O (bench/NOTES.md): cat, parallel page-cache reads, and writing a new
# file by pwrite from N threads or by N threads copying into an mmap.
# Build: cc -O2 -pthread -o bench/iobench bench/iobench.c
# Each written file is deleted before the next test, so dirty pages of one
# test do not throttle the next.
set -u
cd "$(dirname "$0")/.." || exit 2
G=${1:-16}
D=${TMPDIR:-/tmp}/gpusort-iobench
mkdir -p "$D" || exit 2
echo "# $(uname -r); $(df -T "$D" | awk 'NR==2 {print $2, $1}'); dirty_ratio $(cat /proc/sys/vm/dirty_ratio) background $(cat /proc/sys/vm/dirty_background_ratio); $(nproc) cores"
bench/gen -n $((G * 134217728)) -k u64 --seed 7 -o "$D/in.bin" || exit 2
cat "$D/in.bin" > /dev/null
for i in 1 2; do
	rm -f "$D/out.bin"; sleep 1
	s=$(date +%s.%N); cat "$D/in.bin" > "$D/out.bin"; e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" -v g="$G" 'BEGIN {printf "cat %.2f GiB %.3f s %.2f GB/s\n", g, e - s, g * 1.073741824 / (e - s)}'
done
rm -f "$D/out.bin"
for t in 1 4 8 16; do bench/iobench read $t "$D/in.bin"; done
for m in pwrite mmap; do
	for t in 1 4 8 16; do
		sleep 1; bench/iobench write $m $t "$G" "$D/out.bin"; rm -f "$D/out.bin"
	done
done
rm -f "$D/in.bin"
