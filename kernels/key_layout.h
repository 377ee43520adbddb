/*
 * key_layout.h - where a record's key lies and how it is ordered: the one
 * description of a key that src/ (keys.h: parsing, the CPU engines) and
 * kernels/ (gpusort_kernels.h; the kernels take it by value) share.
 * Plain C, no dependencies, so that both sides include it.
 *
 * The normalized key of a record is the concatenation, in field order, of
 * each field's normalized bytes; records are ordered by the unsigned
 * lexicographic order (memcmp) of their normalized keys. A field's bytes:
 *   KEYS_UINT : the value as big-endian bytes;
 *   KEYS_SINT : big-endian bytes with the sign bit (top bit of byte 0)
 *               flipped, so that negative values come first;
 *   KEYS_FLOAT: (width 4 or 8) IEEE-754 total order: when the sign is set,
 *               every bit inverted, else the sign bit flipped; then
 *               big-endian bytes (-NaN < -inf < ... < -0 < +0 < ... < +inf
 *               < +NaN);
 *   KEYS_BYTES: the bytes as they are (memcmp order);
 *   then, when the field is descending, every byte of it inverted (~b).
 * big_endian says how a number is stored in the record (ignored for
 * KEYS_BYTES and width 1). Every rule is a bijection on the field's bytes,
 * so key-only records can be normalized in place and back.
 */
#ifndef GPUSORT_KEY_LAYOUT_H
#define GPUSORT_KEY_LAYOUT_H
#include <stdint.h>

#define KEYS_MAX 32 /* most key fields (-k options) */

enum keys_kind { KEYS_UINT = 0, KEYS_SINT = 1, KEYS_FLOAT = 2, KEYS_BYTES = 3 };

typedef struct keys_field {
	uint32_t offset;    /* bytes from the record's start */
	uint32_t width;     /* bytes: 1, 2, 4, 8 for integers; 4, 8 for floats; N >= 1 for bytesN */
	uint8_t kind;       /* enum keys_kind */
	uint8_t big_endian; /* 1: a number stored big-endian */
	uint8_t descending; /* 1: invert the normalized bytes (:r, after -r is applied) */
} keys_field;

/*
 * A record's key: fields f[0..n) in order of significance. Fixed-size and
 * pointer-free (400 bytes), so that kernels take it by value as a kernel
 * parameter (the limit is 4 KiB). The scalars the kernels read come before
 * f: that way the field loop of keys_extract.cu's kernels needs fewer
 * registers (k_refine: 31, not 37 with f first: full occupancy).
 */
typedef struct keys_spec {
	uint32_t record_size;  /* bytes per record, >= the end of every field */
	uint32_t key_width;    /* bytes of the normalized key: the sum of the field widths */
	int n;                 /* fields; 0 before keys_finish() means "whole record" */
	keys_field f[KEYS_MAX];
	int key_only;          /* the record is its whole key: one field covering it */
} keys_spec;

/*
 * 0 when s is a complete layout: 1 <= n <= KEYS_MAX, record_size > 0,
 * every field inside the record with a width its kind allows, key_width
 * the sum of the widths (key_only is not checked). Else -1 (n or
 * record_size), -2 (key_width), or 1 + the index of the first bad field.
 */
static inline int keys_layout_check(const keys_spec *s)
{
	if (s->n < 1 || s->n > KEYS_MAX || s->record_size == 0)
		return -1;
	uint64_t kw = 0;
	for (int i = 0; i < s->n; i++) {
		const keys_field *f = &s->f[i];
		int ok = f->width >= 1 && (uint64_t)f->offset + f->width <= s->record_size && f->kind <= KEYS_BYTES;
		if (f->kind == KEYS_UINT || f->kind == KEYS_SINT)
			ok = ok && (f->width == 1 || f->width == 2 || f->width == 4 || f->width == 8);
		if (f->kind == KEYS_FLOAT)
			ok = ok && (f->width == 4 || f->width == 8);
		if (!ok)
			return 1 + i;
		kw += f->width;
	}
	return kw == s->key_width ? 0 : -2;
}

/*
 * 1 when the fields of s cover its record exactly, each byte in one field,
 * in any order (one field of the whole record, or `-k u32 -k u32` of 8-byte
 * records), else 0. Such a record's normalized key is as long as the record
 * and the transform a bijection, so the records themselves can be
 * normalized in place, sorted and turned back, and equal keys are equal
 * records (no order among them to keep).
 */
static inline int keys_layout_cover(const keys_spec *s)
{
	if (s->n < 1 || s->key_width != s->record_size)
		return 0;
	for (int i = 0; i < s->n; i++)
		for (int j = i + 1; j < s->n; j++)
			if (s->f[i].offset < s->f[j].offset + s->f[j].width &&
			    s->f[j].offset < s->f[i].offset + s->f[i].width)
				return 0;
	return 1; /* widths summing to the record's size without overlaps cover it */
}

/* 1 when a and b describe the same key (n, record_size and fields f[0..n)
 * equal; the unused fields and padding may differ), else 0. */
static inline int keys_layout_equal(const keys_spec *a, const keys_spec *b)
{
	if (a->n != b->n || a->record_size != b->record_size || a->key_width != b->key_width)
		return 0;
	for (int i = 0; i < a->n; i++) {
		const keys_field *x = &a->f[i], *y = &b->f[i];
		if (x->offset != y->offset || x->width != y->width || x->kind != y->kind ||
		    x->big_endian != y->big_endian || x->descending != y->descending)
			return 0;
	}
	return 1;
}

#endif
