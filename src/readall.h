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
#include "verify.h"
#include "tpool.h"
#include "../io/io.h"

/*
 * The stream that is the inputs in[0..nin) one after another, input i
 * contributing its bytes [pos, size): fills base[0..nin] (nin + 1 entries)
 * with base[i] = the stream offset of input i's first byte, base[nin] = the
 * stream's length, in bytes.
 */
void readall_bases(const io_file *in, int nin, uint64_t *base);

/*
 * Read stream bytes [lo, hi) of that stream (base from readall_bases) into
 * dst (hi - lo bytes) on the calling thread: pread on each input's fd,
 * retried on EINTR and continued after short reads. Every input the range
 * touches must be an open regular file.
 * Returns 0, or -errno with *bad = the index of the input that failed:
 * pread's error, -ENODATA when an input ended before its size (it shrank
 * meanwhile), -EINVAL when hi lies beyond the inputs (*bad = nin - 1).
 */
int readall_pread(const io_file *in, int nin, const uint64_t *base, uint64_t lo, uint64_t hi, uint8_t *dst,
		  int *bad);

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

/*
 * readall_range, and each(arg, part, first, count) called on the thread that
 * read them as soon as units [first, first + count) of part `part` are in
 * dst (and added to sum): units counted from lo, parts as util_split(units,
 * part, tpool_size(tp)) cuts them, pieces of at most 4 MiB, so that each
 * can work on them while they are still in its cache (cpustream_count).
 * each: NULL for none. A part stops at its first read error; pieces read
 * before it were passed to each.
 */
typedef void (*readall_each_fn)(void *arg, int part, size_t first, size_t count);
int readall_range_each(tpool *tp, const io_file *in, int nin, uint64_t lo, uint64_t hi, uint8_t *dst,
		       size_t unit, verify_sum *sum, int *bad, readall_each_fn each, void *arg);

#endif
