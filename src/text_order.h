/*
 * text_order.h - whether lines in memory are in order, on every thread.
 * -m trusts its inputs to be sorted only where they are: an input in
 * order may be copied whole (text_concat) or merged with others in
 * gpusort's groups; one that is not is merged as sort(1) merges it
 * (text_merge.h). -c of a regular file checks it here.
 */
#ifndef GPUSORT_TEXT_ORDER_H
#define GPUSORT_TEXT_ORDER_H
#include <stddef.h>
#include <stdint.h>
#include "text_spec.h"
#include "tpool.h"

/*
 * The first line of p[0, size) (lines ended by s->eol, the last one
 * perhaps not) that is out of order after the line above it: that goes
 * before it under s (text_cmp > 0), or, strict (-c -u), also ties it.
 * Returns its byte offset in p, or SIZE_MAX when every line is in order.
 * Checked in pieces of a MiB on pool's threads (NULL: this one), taken in
 * order, so that once one is found only the pieces before it go on.
 */
size_t text_order_first(const text_spec *s, const uint8_t *p, size_t size, int strict, tpool *pool);

/* Whether p[0, size)'s lines are in order (equal lines are): 1 or 0
 * (text_order_first, not strict). */
int text_order_sorted(const text_spec *s, const uint8_t *p, size_t size, tpool *pool);

/* The lines of p[0, size): its delimiters, and one more for a last line
 * without one; counted in pieces on pool's threads. */
uint64_t text_order_lines(const text_spec *s, const uint8_t *p, size_t size, tpool *pool);

#endif
