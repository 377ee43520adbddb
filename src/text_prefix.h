/*
 * text_prefix.h - a line's normalized key prefix: TEXT_PREFIX bytes whose
 * memcmp order never contradicts the line order of text_cmp.h: when two
 * prefixes differ, the smaller one's line sorts first; equal prefixes (a
 * tie) say nothing, and the full comparison decides. Built from the first
 * key (the whole line without keys): its bytes (-f folded, -d/-i
 * filtered), or an order-preserving code of its value (-n, -h, -g, -M, -V),
 * or its -R hash (of the bytes -f/-d/-i leave, for a value key with
 * those, as text_cmp compares it); every byte inverted for a reversed
 * key; a value whose code ends early followed by the next key's bytes.
 */
#ifndef GPUSORT_TEXT_PREFIX_H
#define GPUSORT_TEXT_PREFIX_H
#include <stddef.h>
#include <stdint.h>
#include "text_spec.h"

#define TEXT_PREFIX 12 /* bytes; with a 4-byte line index, a 16-byte record for the chunk sort */

/* Where a prefix's bytes end: key `ki`'s compared byte `off` (text_prefix_at). */
typedef struct text_pos {
	int ki;
	size_t off;
} text_pos;

/* The prefix of the line [line, line + len) (no delimiter) into out;
 * *next, unless next is NULL, where it ends (text_prefix_at with ki 0,
 * off 0). */
void text_prefix(const text_spec *s, const uint8_t *line, size_t len, uint8_t out[TEXT_PREFIX], text_pos *next);

/* The prefix of [line, line + len) (text_prefix) as the integers a merge
 * compares: *ph its bytes 0-7, *pl 8-11, big-endian. */
void text_prefix_ints(const text_spec *s, const uint8_t *line, size_t len, uint64_t *ph, uint32_t *pl);

/*
 * The bytes that order lines by key ki (0-based; ki == nkeys: the whole
 * line, the last-resort comparison, or the only one without keys) from
 * its compared byte `off` on, coded as text_prefix codes the first key's
 * bytes [0, TEXT_PREFIX) (text_prefix is ki 0, off 0 for such a key), and
 * *klen key ki's compared length (bytes -d/-i drop not counted). A value
 * key has its code at off 0 and no bytes after (*klen SIZE_MAX), but for
 * -n's and -h's (their first 256 code bytes) and -V's, read from off as
 * a key's bytes are (-V: *klen the length of a whole code, else
 * SIZE_MAX). When a value's code is whole and ends within the prefix (-n
 * and -h values of up to 17 digits, or whose code ends in this window,
 * -M, -V, -g on x86-64), the next key's bytes from its byte 0 follow it,
 * and so on. *next is where the bytes end: lines whose prefixes from (ki,
 * off) are equal are ordered by the prefixes from *next (for a key's bytes
 * or -n's, -h's or -V's code, off + TEXT_PREFIX; after a whole value code,
 * the next key's byte). That is how a run of equal prefixes is refined. Returns 1, or 0
 * (out zeroed) for a value key past off 0 (-n, -h, -V: past their first
 * 256 code bytes), or the whole line under -s or -u (no last resort).
 */
int text_prefix_at(const text_spec *s, int ki, const uint8_t *line, size_t len, size_t off, uint8_t out[TEXT_PREFIX],
		   size_t *klen, text_pos *next);

/*
 * Key ki of the line [line, line + len) as the raw bytes its prefixes are
 * made of, [*b, *e) (ki == nkeys: the whole line): 1 when the key is
 * compared by those bytes alone (no value order, -f, -d or -i), else 0
 * and *b, *e untouched. Lines whose key ki starts with the same L bytes
 * order as their prefixes from (ki, L) say, so a start that every line
 * shares can be skipped (text_sort.c's chunk_common_start).
 */
int text_raw_key(const text_spec *s, int ki, const uint8_t *line, size_t len, const uint8_t **b, const uint8_t **e);

#endif
