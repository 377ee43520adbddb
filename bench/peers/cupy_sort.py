"""CuPy peer: the naive GPU pipeline a Python user writes: read, copy to the
device, sort there (cupy.sort / cupy.argsort: CUB radix sort underneath,
stable), copy back, write.
usage: cupy_sort.py WORKLOAD IN OUT (workloads as in numpy_sort.py)
  rec100  CuPy has no byte-string dtype: the 10-byte key becomes a u64 of
          bytes 0-7 and a u16 of bytes 8-9 (byte-reversed: big-endian order),
          sorted least significant first with stable argsorts; rows gathered
  rec16   stable argsort by ~i32 (descending), then by the u64; rows gathered
  pair8   the same with the u32 at 0 and the i32 at 4
Exits 3 when it does not fit the device (or the host)."""
import sys
import numpy as np
import cupy as cp

work, src, dst = sys.argv[1:4]


def be_uint(cols, dtype):
    """the bytes of each row as one big-endian unsigned integer"""
    return cp.ascontiguousarray(cols[:, ::-1]).view(dtype).ravel()


def main():
    if work in ("u32", "u64"):
        a = np.fromfile(src, dtype=np.uint32 if work == "u32" else np.uint64)
        d = cp.sort(cp.asarray(a))
        cp.asnumpy(d, out=a)
        a.tofile(dst)
        return
    size = {"rec100": 100, "rec16": 16, "pair8": 8}.get(work)
    if size is None:
        sys.exit("cupy_sort.py: unknown workload " + work)
    a = np.fromfile(src, dtype=np.uint8).reshape(-1, size)
    d = cp.asarray(a)
    if work == "rec100":
        hi, lo = be_uint(d[:, 0:8], cp.uint64), be_uint(d[:, 8:10], cp.uint16)
        idx = cp.argsort(lo)
        idx = idx[cp.argsort(hi[idx])]
        del hi, lo
    elif work == "pair8":
        s = ~cp.ascontiguousarray(d[:, 4:8]).view(cp.int32).ravel()
        k = cp.ascontiguousarray(d[:, 0:4]).view(cp.uint32).ravel()
        idx = cp.argsort(s)
        idx = idx[cp.argsort(k[idx])]
        del s, k
    else:
        s = ~cp.ascontiguousarray(d[:, 8:12]).view(cp.int32).ravel()
        k = cp.ascontiguousarray(d[:, 0:8]).view(cp.uint64).ravel()
        idx = cp.argsort(s)
        idx = idx[cp.argsort(k[idx])]
        del s, k
    # gather whole rows as 4-byte words (100, 16 and 8 are multiples of 4)
    out = d.view(cp.uint32)[idx]
    del d, idx
    cp.asnumpy(out.view(cp.uint8), out=a)
    a.tofile(dst)


try:
    main()
except (cp.cuda.memory.OutOfMemoryError, MemoryError):
    print("cupy: out of memory", file=sys.stderr)
    sys.exit(3)
except Exception as e:  # thrust and the runtime report allocation failures their own way
    if "out of memory" in str(e).lower() or "MemoryAllocation" in str(e):
        print("cupy: out of memory:", e, file=sys.stderr)
        sys.exit(3)
    raise
