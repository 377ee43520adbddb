/* text_prefix.c - order-preserving key prefixes of lines (text_prefix.h). */
#include "text_prefix.h"
#include "text_cmp.h"
#include "text_hash.h"
#include "text_num.h"

#include <string.h>

/*
 * -n's value into n bytes: a class byte (negative < zero < positive), the
 * count of integer digits (2 bytes; 0xFFFF and no digits for 65535 or
 * more, where the digits would no longer line up), then the digits, two a
 * byte as value + 1 (0 pads: "1.5" and "1.50" code the same); negative
 * values have all but the class byte inverted, larger magnitudes first.
 */
static void code_decimal(const text_decimal *d, uint8_t *out, size_t n)
{
	memset(out, 0, n);
	if (!d->int_len && !d->frac_len) {
		out[0] = 0x80;
		return;
	}
	out[0] = d->neg ? 0x40 : 0xC0;
	size_t digits = d->int_len + d->frac_len, room = (n - 3) * 2;
	if (d->int_len >= 0xFFFF) {
		out[1] = out[2] = 0xFF;
		digits = 0;
	} else {
		out[1] = (uint8_t)(d->int_len >> 8);
		out[2] = (uint8_t)d->int_len;
	}
	for (size_t i = 0; i < digits && i < room; i++) {
		uint8_t v = (uint8_t)((i < d->int_len ? d->ip[i] : d->fp[i - d->int_len]) - '0' + 1);
		out[3 + i / 2] |= (uint8_t)(i % 2 ? v : v << 4);
	}
	if (d->neg)
		for (size_t i = 1; i < n; i++)
			out[i] = (uint8_t)~out[i];
}

/* -g's value: conversion errors, NaNs, then numbers as doubles in total order. */
static void code_general(const uint8_t *p, size_t len, uint8_t *out)
{
	long double v;
	int cls = text_general_parse(p, len, &v);
	out[0] = (uint8_t)cls;
	if (cls != 2)
		return;
	double d = (double)v; /* rounding is monotonic: distinct values may tie, never swap */
	if (d == 0)
		d = 0; /* -0 == +0 */
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	u = u >> 63 ? ~u : u | (1ull << 63);
	for (int i = 0; i < 8; i++)
		out[1 + i] = (uint8_t)(u >> (56 - 8 * i));
}

/* The TEXT_PREFIX bytes a plain or -f/-d/-i key compares from its byte
 * `off` on (bytes -d/-i drop not counted), 0-padded. */
static void code_bytes(const text_key *k, const uint8_t *p, const uint8_t *lim, size_t off, uint8_t *out)
{
	size_t m = 0;
	if (!k->ignore && !k->fold) {
		if ((size_t)(lim - p) > off) {
			size_t n = (size_t)(lim - p) - off;
			memcpy(out, p + off, n < TEXT_PREFIX ? n : TEXT_PREFIX);
		}
		return;
	}
	for (; p < lim && m < TEXT_PREFIX; p++) {
		if (text_ignored(k->ignore, *p))
			continue;
		if (off) {
			off--;
			continue;
		}
		out[m++] = k->fold && *p >= 'a' && *p <= 'z' ? (uint8_t)(*p - 32) : *p;
	}
}

/* 1 when the first key orders by value (-n -g -h -M -R -V), not by bytes. */
static int by_value(const text_key *k)
{
	return k->numeric || k->general || k->human || k->month || k->random || k->version;
}

static void invert(uint8_t out[TEXT_PREFIX])
{
	for (int i = 0; i < TEXT_PREFIX; i++)
		out[i] = (uint8_t)~out[i];
}

/* The bytes key k compares in [b, e): its length, less what -d/-i drop. */
static size_t compared_len(const text_key *k, const uint8_t *b, const uint8_t *e)
{
	if (!k->ignore)
		return (size_t)(e - b);
	size_t n = 0;
	for (; b < e; b++)
		n += !text_ignored(k->ignore, *b);
	return n;
}

/* A value key's code (-n -h -g -M -R; -V and keys with -f/-d/-i: none, all tie). */
static void code_value(const text_spec *s, const text_key *k, const uint8_t *b, const uint8_t *e, uint8_t *out)
{
	size_t n = (size_t)(e - b);
	if (k->ignore || k->fold || k->version) {
		/* all tie */
	} else if (k->numeric || k->human) {
		text_decimal d;
		size_t skip = 0;
		while (skip < n && text_blank(b[skip]))
			skip++;
		if (k->human)
			out[0] = (uint8_t)(128 + text_human_unit(b + skip, n - skip));
		text_num_parse(b + skip, n - skip, &d);
		code_decimal(&d, out + k->human, TEXT_PREFIX - (size_t)k->human);
	} else if (k->general) {
		code_general(b, n, out);
	} else if (k->month) {
		out[0] = (uint8_t)text_month(b, n);
	} else {
		uint8_t h[16];
		text_hash(s->salt, b, n, h);
		memcpy(out, h, TEXT_PREFIX);
	}
}

int text_prefix_at(const text_spec *s, int ki, const uint8_t *line, size_t len, size_t off, uint8_t out[TEXT_PREFIX],
		   size_t *klen)
{
	memset(out, 0, TEXT_PREFIX);
	if (ki >= s->nkeys) {
		if (ki > s->nkeys || (s->nkeys && (s->stable || s->unique)))
			return 0;
		/* the whole line: the last-resort comparison, or the only one */
		if (len > off)
			memcpy(out, line + off, len - off < TEXT_PREFIX ? len - off : TEXT_PREFIX);
		if (s->reverse)
			invert(out);
		*klen = len;
		return 1;
	}
	const text_key *k = &s->key[ki];
	const uint8_t *b, *e;
	if (by_value(k) && off)
		return 0; /* a value's code has no more bytes */
	text_key_bounds(s, k, line, len, &b, &e);
	if (by_value(k)) {
		code_value(s, k, b, e, out);
		*klen = SIZE_MAX; /* never seen as used up */
	} else {
		code_bytes(k, b, e, off, out);
		*klen = compared_len(k, b, e);
	}
	if (k->reverse)
		invert(out);
	return 1;
}

void text_prefix(const text_spec *s, const uint8_t *line, size_t len, uint8_t out[TEXT_PREFIX])
{
	size_t klen;
	text_prefix_at(s, 0, line, len, 0, out, &klen);
}
