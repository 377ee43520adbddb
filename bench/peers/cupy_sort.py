"""CuPy peer: the naive GPU pipeline (read, copy in, CUB radix sort, copy out, write).
usage: cupy_sort.py DTYPE IN OUT (DTYPE u32|u64); exits 3 when it does not fit the device."""
import sys
import numpy as np
import cupy as cp

dt = {"u32": np.uint32, "u64": np.uint64}[sys.argv[1]]
a = np.fromfile(sys.argv[2], dtype=dt)
try:
    d = cp.asarray(a)
    d = cp.sort(d)
    cp.asnumpy(d, out=a)
except cp.cuda.memory.OutOfMemoryError:
    print("cupy: out of device memory", file=sys.stderr)
    sys.exit(3)
a.tofile(sys.argv[3])
