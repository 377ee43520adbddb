/* text_cmp.c - GNU sort's line comparison under LC_ALL=C (text_cmp.h). */
#include "text_cmp.h"
#include "text_hash.h"
#include "text_num.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

int text_ignored(int ignore, unsigned char c)
{
	if (ignore == TEXT_IGNORE_NONPRINTING)
		return c < 0x20 || c > 0x7e;
	if (ignore == TEXT_IGNORE_NONDICT) /* not alphanumeric, not a blank */
		return !((c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z') || text_blank(c));
	return 0;
}

static inline unsigned char fold(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? (unsigned char)(c - 32) : c;
}

/* Past `words` fields from p (GNU's field walk; `keep_tab`: step over the
 * last separator too). */
static const uint8_t *skip_fields(const text_spec *s, const uint8_t *p, const uint8_t *lim, size_t words,
				  int keep_tab)
{
	if (s->tab != TEXT_TAB_DEFAULT) {
		/* the words-th separator from p. Fields are mostly short: a call
		 * to memchr per field cost more than the search (it was a fifth of
		 * a sort on a -t, -k3,3n key) and a byte loop mispredicts its exit
		 * once a field, so 16 bytes are compared at once, and the
		 * separators of a block serve every field that ends in it */
		const uint8_t tab = (uint8_t)s->tab;
		while (words && p < lim) {
			unsigned m = 0, w = 16;
#ifdef __SSE2__
			if (lim - p >= 16)
				m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p),
									  _mm_set1_epi8((char)tab)));
			else
#endif
			{
				w = lim - p < 16 ? (unsigned)(lim - p) : 16;
				for (unsigned i = 0; i < w; i++)
					m |= (unsigned)(p[i] == tab) << i;
			}
			for (; m; m &= m - 1)
				if (!--words)
					return p + __builtin_ctz(m) + (keep_tab ? 1 : 0);
			p += w;
		}
		return words ? lim : p;
	}
	while (p < lim && words--) {
		while (p < lim && text_blank(*p))
			p++;
		while (p < lim && !text_blank(*p))
			p++;
	}
	return p;
}

void text_key_bounds_raw(const text_spec *s, const text_key *k, const uint8_t *line, size_t len,
			 const uint8_t **beg, const uint8_t **lim)
{
	const uint8_t *end = line + len, *b = line, *e = end;
	size_t fw = 0; /* b: the start of field fw */
	if (k->sword != SIZE_MAX) {
		b = skip_fields(s, line, end, k->sword, 1);
		fw = k->sword;
	}
	const uint8_t *f = b;
	if (k->skipsblanks)
		while (b < end && text_blank(*b))
			b++;
	b = (size_t)(end - b) < k->schar ? end : b + k->schar;
	if (k->eword != SIZE_MAX) {
		/* echar 0: to the end of field eword, so one field more, without its separator */
		size_t words = k->echar ? k->eword : k->eword + 1;
		/* a walk past more fields than the start's steps over the same first fw
		 * separators: go on from field fw instead of the line's start */
		e = words > fw ? skip_fields(s, f, end, words - fw, k->echar != 0)
			       : skip_fields(s, line, end, words, k->echar != 0);
		if (k->echar) {
			if (k->skipeblanks)
				while (e < end && text_blank(*e))
					e++;
			e = (size_t)(end - e) < k->echar ? end : e + k->echar;
		}
	}
	*beg = b;
	*lim = e;
}

void text_key_bounds(const text_spec *s, const text_key *k, const uint8_t *line, size_t len, const uint8_t **beg,
		     const uint8_t **lim)
{
	text_key_bounds_raw(s, k, line, len, beg, lim);
	if (*lim < *beg)
		*lim = *beg;
}

size_t text_key_transform(const text_key *k, const uint8_t *p, size_t n, uint8_t *out)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!text_ignored(k->ignore, p[i]))
			out[m++] = k->fold ? fold(p[i]) : p[i];
	return m;
}

/* A key that compares by value (-n -g -h -M -R -V), on its transformed bytes. */
static int value_cmp(const text_spec *s, const text_key *k, const uint8_t *a, size_t la, const uint8_t *b, size_t lb)
{
	if (k->numeric)
		return text_num_cmp(a, la, b, lb);
	if (k->general)
		return text_general_cmp(a, la, b, lb);
	if (k->human)
		return text_human_cmp(a, la, b, lb);
	if (k->month)
		return text_month(a, la) - text_month(b, lb);
	if (k->random)
		return text_hash_cmp(s->salt, a, la, b, lb);
	return text_version_cmp(a, la, b, lb);
}

/* The bytes order of two keys under -d/-i and -f, without copies. */
static int filtered_cmp(const text_key *k, const uint8_t *a, const uint8_t *la, const uint8_t *b, const uint8_t *lb)
{
	for (;;) {
		while (a < la && text_ignored(k->ignore, *a))
			a++;
		while (b < lb && text_ignored(k->ignore, *b))
			b++;
		if (!(a < la && b < lb))
			return (a < la) - (b < lb);
		int d = k->fold ? fold(*a) - fold(*b) : *a - *b;
		if (d)
			return d;
		a++, b++;
	}
}

static int key_cmp(const text_spec *s, const text_key *k, const uint8_t *ta, const uint8_t *la, const uint8_t *tb,
		   const uint8_t *lb)
{
	size_t na = (size_t)(la - ta), nb = (size_t)(lb - tb);
	if (k->numeric || k->general || k->human || k->month || k->random || k->version) {
		if (!k->ignore && !k->fold)
			return value_cmp(s, k, ta, na, tb, nb);
		uint8_t small[512], *buf = small;
		if (na + nb > sizeof small && !(buf = malloc(na + nb)))
			abort(); /* no memory for a copy of two keys */
		size_t ma = text_key_transform(k, ta, na, buf), mb = text_key_transform(k, tb, nb, buf + na);
		int d = value_cmp(s, k, buf, ma, buf + na, mb);
		if (buf != small)
			free(buf);
		return d;
	}
	if (k->ignore || k->fold)
		return filtered_cmp(k, ta, la, tb, lb);
	int d = memcmp(ta, tb, na < nb ? na : nb);
	return d ? d : (na > nb) - (na < nb);
}

/* Keys ki.. of two lines in turn: the first that differs decides. */
static int keys_from(const text_spec *s, int ki, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	for (int i = ki; i < s->nkeys; i++) {
		const text_key *k = &s->key[i];
		const uint8_t *ta = a, *la = a + alen, *tb = b, *lb = b + blen;
		/* a key of whole lines (no -k, or -k1) needs no field walk: a
		 * comparison of short numbers spent a quarter of its time there */
		if (!(k->sword == 0 || k->sword == SIZE_MAX) || k->schar || k->skipsblanks || k->eword != SIZE_MAX) {
			text_key_bounds(s, k, a, alen, &ta, &la);
			text_key_bounds(s, k, b, blen, &tb, &lb);
		}
		int d = key_cmp(s, k, ta, la, tb, lb);
		if (d)
			return k->reverse ? (d < 0) - (d > 0) : d;
	}
	return 0;
}

int text_cmp(const text_spec *s, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return text_cmp_from(s, 0, a, alen, b, blen);
}

int text_keys_cmp(const text_spec *s, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return keys_from(s, 0, a, alen, b, blen);
}

int text_cmp_from(const text_spec *s, int ki, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int d = keys_from(s, ki, a, alen, b, blen);
	if (d || (s->nkeys && (s->unique || s->stable)))
		return d;
	d = memcmp(a, b, alen < blen ? alen : blen);
	if (!d)
		d = (alen > blen) - (alen < blen);
	return s->reverse ? (d < 0) - (d > 0) : d;
}
