"""NumPy peer: what a Python user writes. usage: numpy_sort.py DTYPE IN OUT (DTYPE u32|u64)"""
import sys
import numpy as np

dt = {"u32": np.uint32, "u64": np.uint64}[sys.argv[1]]
a = np.fromfile(sys.argv[2], dtype=dt)
a.sort()
a.tofile(sys.argv[3])
