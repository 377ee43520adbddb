"""NumPy peer: what a Python user writes (fromfile, sort, tofile).
usage: numpy_sort.py WORKLOAD IN OUT
  u32, u64  arrays: ndarray.sort() (NumPy's default sort)
  rec100    100-byte records, 10-byte byte-string key at offset 0: stable
            argsort of the key field of a structured view, then take
  rec16     16-byte records: u64 at 0 ascending, then i32 at 8 descending
            (~x reverses an int's order without overflow), payload at 12:
            lexsort (stable), then take
  pair8     8-byte records: u32 at 0 ascending, then i32 at 4 descending:
            lexsort (stable), then take
Exits 3 when the data does not fit in host memory."""
import sys
import numpy as np

work, src, dst = sys.argv[1:4]
try:
    if work in ("u32", "u64"):
        a = np.fromfile(src, dtype=np.uint32 if work == "u32" else np.uint64)
        a.sort()
        a.tofile(dst)
    elif work == "rec100":
        a = np.fromfile(src, dtype=np.dtype([("k", "S10"), ("p", "V90")]))
        a.take(np.argsort(a["k"], kind="stable")).tofile(dst)
    elif work == "rec16":
        a = np.fromfile(src, dtype=np.dtype([("k", "<u8"), ("s", "<i4"), ("p", "V4")]))
        a.take(np.lexsort((~a["s"], a["k"]))).tofile(dst)
    elif work == "pair8":
        a = np.fromfile(src, dtype=np.dtype([("k", "<u4"), ("s", "<i4")]))
        a.take(np.lexsort((~a["s"], a["k"]))).tofile(dst)
    else:
        sys.exit("numpy_sort.py: unknown workload " + work)
except MemoryError:
    print("numpy: out of memory", file=sys.stderr)
    sys.exit(3)
