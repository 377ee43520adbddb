/*
 * text_num.h - the value orders of sort(1)'s -n, -g, -h, -M and -V keys,
 * under LC_ALL=C ('.' the decimal point, no thousands separator), on keys
 * given as (bytes, length): a key ends at its length or at its first NUL
 * byte, whichever comes first, as GNU sort's NUL-terminated copies do
 * (only -V sees past a NUL). Every compare returns <0, 0 or >0.
 */
#ifndef GPUSORT_TEXT_NUM_H
#define GPUSORT_TEXT_NUM_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* 1 for the bytes GNU sort calls blanks: space, tab, newline. */
static inline int text_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* -n: leading blanks, then [-]digits[.digits], compared by exact value (no number: 0). */
int text_num_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* -h: -n's value after the unit (none < k/K < M < G < T < P < E < Z < Y). */
int text_human_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* -h's unit rank of a key, negative for a negative number; 0 without a unit. */
int text_human_unit(const uint8_t *a, size_t alen);

/* -M: 0 (not a month) or 1..12, from the first three bytes after blanks, any case. */
int text_month(const uint8_t *a, size_t alen);

/*
 * -g: the key as strtold reads it. Returns 0 (no number), 1 (a NaN) or 2
 * (a number, in *v).
 */
int text_general_parse(const uint8_t *a, size_t alen, long double *v);

/* -g: conversion errors < NaNs (by their bytes) < numbers, -0 == +0. */
int text_general_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* -V: GNU's filevercmp on keys of exactly these lengths (NUL bytes included). */
int text_version_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/*
 * -V: an order-preserving code of the key [a, a + alen) in out[0, cap)
 * (cap >= 1; the rest 0-padded), for the prefix sort (text_prefix.h): when
 * two keys' codes differ, memcmp's order of the codes is
 * text_version_cmp's. The code is a class byte (empty < "." < ".." <
 * other keys starting with '.' < the rest), then filevercmp's runs of the
 * key without its file suffix as tokens: each non-digit byte as its rank
 * ('~' < the end < a digit < letters < other bytes), each digit run as a
 * marker, its length without leading zeros and its digits two a byte;
 * for a key with a suffix, a token saying so and the whole key's runs
 * (filevercmp's second pass); then an end token. Returns the code's
 * length when it is whole: it fits in cap and no digit run has 254 digits
 * or more; equal whole codes are then equal keys, and no whole code is
 * the start of another. Else 0: equal codes say nothing.
 */
size_t text_version_code(const uint8_t *a, size_t alen, uint8_t *out, size_t cap);

/*
 * GNU sort's thousands separator under LC_ALL=C: NON_CHAR, 128, which its
 * strnumcmp compares with unsigned bytes, so that a 0x80 byte among an
 * -n (or -h) number's integer digits, before them or after them is
 * skipped ("1\x805" is 15); its traverse_raw_number, which finds -h's
 * unit, compares it with signed chars and never meets it.
 */
#define TEXT_NUM_SEP 0x80

/*
 * -n's value as a decimal: neg (1 for a negative nonzero value), the
 * integer digits without leading zeros (int_len of them at *ip) and the
 * fraction's digits without trailing zeros (frac_len at *fp). A zero value
 * has int_len == frac_len == 0 and neg == 0. own: the integer digits
 * copied without the TEXT_NUM_SEP bytes among them, when there were some
 * (ip points there; text_num_done frees it), else NULL.
 */
typedef struct text_decimal {
	int neg;
	const uint8_t *ip, *fp;
	size_t int_len, frac_len;
	uint8_t *own;
} text_decimal;

/* Parse the key [a, a + alen) as -n reads it (leading blanks skipped).
 * Returns 0, or -1 without memory for a copy of its digits (d zero). */
int text_num_parse(const uint8_t *a, size_t alen, text_decimal *d);

/* Free what text_num_parse allocated for d. */
static inline void text_num_done(text_decimal *d)
{
	free(d->own);
	d->own = NULL;
}

#endif
