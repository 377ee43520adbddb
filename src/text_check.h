/*
 * text_check.h - -c and -C of text lines: whether the one input's lines
 * are in order, with sort(1)'s message for the first that is not.
 */
#ifndef GPUSORT_TEXT_CHECK_H
#define GPUSORT_TEXT_CHECK_H
#include <stddef.h>
#include "text_result.h"
#include "text_spec.h"
#include "tpool.h"

/*
 * Check the input `name` ("-": standard input) under s: a line that goes
 * before the line above it is out of order, and under s->unique one that
 * ties it too. The lines are checked on pool's threads (NULL: this one;
 * text_order_first): a regular file's through a mapping, a stream's
 * (a pipe, a terminal) in reads of `block` bytes (0: 32 MiB), each checked
 * while the next is read.
 * Fills res: r.status 0 (in order), 1 (r.msg "NAME:N: disorder: " and
 * res->disorder that line with its delimiter, malloc'd; N counts from 1)
 * or 2 (r.msg says why: sort(1)'s "open failed: ..." or "read failed:
 * ..."); res->lines the lines read (up to the disorder).
 */
void text_check_run(const text_spec *s, const char *name, size_t block, tpool *pool, text_result *res);

#endif
