/*
 * cpusort.h - the CPU chunk-sort engine (the no-GPU path, DESIGN.md section 4).
 *
 * A parallel LSD radix sort, stable by construction, on normalized keys
 * (keys.h). Two layouts:
 *  - key-only (the record is its whole key, record_size <= 16): records are
 *    normalized in place, radix-sorted as they are, and de-normalized;
 *  - general: (first <= 16 normalized key bytes, u32 record index) entries are
 *    radix-sorted; ranges of equal prefixes are then sorted by the full key
 *    (stable merge sort); records are gathered into sorted order.
 */
#ifndef GPUSORT_CPUSORT_H
#define GPUSORT_CPUSORT_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"

/* Most records one call may sort (indices are 32-bit). */
#define CPUSORT_MAX_RECORDS ((size_t)UINT32_MAX)

/* Bytes of scratch memory cpusort_sort needs for n records (0 for key-only). */
size_t cpusort_scratch_bytes(const keys_spec *s, size_t n);

/* Scratch bytes per record (the plan's memory factor on top of 2 record buffers). */
size_t cpusort_scratch_per_record(const keys_spec *s);

/*
 * Sort n records (n * record_size bytes at a) stably by the key.
 * b: a second buffer of n * record_size bytes; scratch: cpusort_scratch_bytes
 * bytes, 16-byte aligned (may be NULL when that is 0). a's contents are
 * destroyed. threads >= 1. n <= CPUSORT_MAX_RECORDS.
 * Returns a or b: the buffer holding the sorted records.
 */
uint8_t *cpusort_sort(const keys_spec *s, uint8_t *a, uint8_t *b, size_t n, void *scratch, int threads);

#endif
