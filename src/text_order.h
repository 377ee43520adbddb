/*
 * text_order.h - whether lines in memory are in order. -m trusts its
 * inputs to be sorted only where they are: an input in order may be
 * copied whole (text_concat) or merged with others in gpusort's groups;
 * one that is not is merged as sort(1) merges it (text_merge.h).
 */
#ifndef GPUSORT_TEXT_ORDER_H
#define GPUSORT_TEXT_ORDER_H
#include <stddef.h>
#include <stdint.h>
#include "text_spec.h"
#include "tpool.h"

/*
 * Whether the lines of p[0, size) (ended by s->eol, the last one
 * perhaps not) are in order under s: 1 when no line goes before the
 * line above it (text_cmp > 0; equal lines are in order), else 0.
 * Checked in pieces of a MiB on pool's threads (NULL: this one), which
 * stop at the first line out of order.
 */
int text_order_sorted(const text_spec *s, const uint8_t *p, size_t size, tpool *pool);

#endif
