/*
 * readall.h - read byte ranges of regular input files with all threads of a
 * pool (pread at known offsets, from the page cache at memory speed, where
 * one sequential reader reaches about a tenth of that).
 */
#ifndef GPUSORT_READALL_H
#define GPUSORT_READALL_H
#include <stddef.h>
#include <stdint.h>
#include "run.h"
#include "tpool.h"
#include "../io/io.h"

/*
 * Read bytes [lo, hi) of the stream that is the inputs in[0..nin) one after
 * another (input i contributes its bytes [pos, size): the part from where
 * it was opened to its size then) into dst (hi - lo bytes). Every input must
 * be an open regular file (fd valid). hi - lo must be a multiple of `unit`
 * bytes: the range is split into tpool_size(tp) parts of whole units (use
 * the record size, so that each part holds whole records), each read with
 * pread on its own thread. sum: NULL, or a --verify multiset to which the
 * records read (of `unit` bytes each) are added.
 * Returns 0, or -errno with *bad = the index of the input that failed:
 * pread's error, -ENODATA when an input ended before its size (it shrank
 * meanwhile), -EINVAL when hi lies beyond the inputs (*bad = the last);
 * or -ENOMEM when the per-part state could not be allocated (*bad = -1).
 * The first failing part's error is returned (parts in stream order).
 */
int readall_range(tpool *tp, const io_file *in, int nin, uint64_t lo, uint64_t hi, uint8_t *dst,
		  size_t unit, verify_sum *sum, int *bad);

#endif
