/*
 * text_prefix.h - a line's normalized key prefix: TEXT_PREFIX bytes whose
 * memcmp order never contradicts the line order of text_cmp.h: when two
 * prefixes differ, the smaller one's line sorts first; equal prefixes (a
 * tie) say nothing, and the full comparison decides. Built from the first
 * key (the whole line without keys): its bytes (-f folded, -d/-i
 * filtered), or an order-preserving code of its value (-n, -h, -g, -M),
 * or its -R hash; every byte inverted for a reversed key. -V, and a value
 * key that also has -f/-d/-i, give a constant prefix: all their lines tie.
 */
#ifndef GPUSORT_TEXT_PREFIX_H
#define GPUSORT_TEXT_PREFIX_H
#include <stddef.h>
#include <stdint.h>
#include "text_spec.h"

#define TEXT_PREFIX 12 /* bytes; with a 4-byte line index, a 16-byte record for the chunk sort */

/* The prefix of the line [line, line + len) (no delimiter) into out. */
void text_prefix(const text_spec *s, const uint8_t *line, size_t len, uint8_t out[TEXT_PREFIX]);

#endif
