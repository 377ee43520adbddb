/*
 * losertree.h - k-way merge of sorted record ranges with a tournament
 * (loser) tree: log2(k) comparisons per output record. Ties go to the range
 * with the lower index, so merging runs listed in input order is stable.
 */
#ifndef GPUSORT_LOSERTREE_H
#define GPUSORT_LOSERTREE_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"

typedef struct lt_range {
	const uint8_t *p;  /* first record */
	size_t n;          /* records */
} lt_range;

/*
 * Merge k ranges (k >= 0, each sorted by the spec) into out, which has room
 * for the sum of their lengths; returns the records written. The ranges'
 * p and n are advanced as records are consumed.
 */
size_t lt_merge(const keys_spec *s, lt_range *r, int k, uint8_t *out);

/* First 8 bytes of the normalized key as a big-endian integer (zero padded). */
uint64_t lt_prefix(const keys_spec *s, const uint8_t *rec);

#endif
