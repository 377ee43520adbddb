/*
 * text_cmp.h - comparing two lines as GNU sort does under LC_ALL=C: key by
 * key (text_spec.h), then, unless -s or -u, the whole lines as bytes (the
 * last-resort comparison, reversed by -r). This is the full comparison
 * that finishes the ties of the prefix sort (text_prefix.h) and orders
 * the merge. Lines are (bytes, length) without their delimiter.
 */
#ifndef GPUSORT_TEXT_CMP_H
#define GPUSORT_TEXT_CMP_H
#include <stddef.h>
#include <stdint.h>
#include "text_spec.h"

/*
 * Where key k lies in the line [line, line + len): *beg and *lim, beg <=
 * lim (an end before the start is an empty key), as GNU's begfield and
 * limfield find them with separator tab (TEXT_TAB_DEFAULT: fields start at
 * the blanks before them).
 */
void text_key_bounds(const text_spec *s, const text_key *k, const uint8_t *line, size_t len, const uint8_t **beg,
		     const uint8_t **lim);

/* text_key_bounds without the clamp: *lim may come before *beg (--debug's
 * marks tell the two apart, as GNU's debug_key does). */
void text_key_bounds_raw(const text_spec *s, const text_key *k, const uint8_t *line, size_t len,
			 const uint8_t **beg, const uint8_t **lim);

/*
 * The bytes of the key [p, p + n) that key k compares, -d/-i's dropped and
 * -f's folded, into out (room for n bytes); returns how many. A value key
 * (-n -g -h -M -R -V) with -d/-i/-f is compared by its value of these.
 */
size_t text_key_transform(const text_key *k, const uint8_t *p, size_t n, uint8_t *out);

/* <0, 0, >0 as line a sorts before, with, after line b by the keys alone. */
int text_keys_cmp(const text_spec *s, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* <0, 0, >0: the keys, then (unless -s or -u) the whole lines. */
int text_cmp(const text_spec *s, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* text_cmp for lines whose keys before ki (0-based; nkeys: all) are known
 * equal: keys ki.. and the last resort only (the ties of the prefix sort,
 * whose -R keys would otherwise be hashed again on every comparison). */
int text_cmp_from(const text_spec *s, int ki, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* 1 for the bytes -i ignores (not printable in ASCII), 2 for those -d does too. */
int text_ignored(int ignore, unsigned char c);

#endif
