#!/bin/sh
# gpu_bench.sh - build bench/gpu_bench and write its table to
# bench/results/gpu-bitonic-<device>-<date>.md (and to $OUT when set).
# Usage: bench/gpu_bench.sh [min_log2 [max_log2 [runs [merge_log2]]]]  (merge table: k = 8, 2^27 keys by default)
set -eu
cd "$(dirname "$0")/.."
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
ARCH=${GPU_ARCH:--gencode arch=compute_90,code=sm_90}
# shellcheck disable=SC2086
"$NVCC" -O3 -std=c++17 $ARCH -Ikernels bench/gpu_bench.cu -o bench/gpu_bench
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 || true)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1 || true)
[ -n "$dev" ] || dev=unknown
slug=$(printf '%s' "$dev" | tr 'A-Z' 'a-z' | sed 's/nvidia //; s/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
day=${BENCH_DATE:-$(date +%Y-%m-%d)}
res=bench/results/gpu-bitonic-$slug-$day.md
mkdir -p bench/results
{
	echo "# gpusort bitonic vs CUB radix sort, and merge path vs bitonic, in-device ($day)"
	echo
	echo "GPU: $dev, driver $drv"
	echo
	bench/gpu_bench "$@"
} >"$res.tmp"
mv "$res.tmp" "$res"
cat "$res"
if [ -n "${OUT:-}" ]; then cp "$res" "$OUT/"; fi
