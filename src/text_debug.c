/* text_debug.c - sort(1)'s --debug for text lines (text_debug.h). */
#include "text_debug.h"
#include "text_cmp.h"
#include "text_num.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int numeric(const text_key *k)
{
	return k->numeric || k->general || k->human;
}

void text_debug_warnings(const text_spec *s, const char *prog, int locale_failed, FILE *f)
{
	if (locale_failed)
		fprintf(f, "%s: failed to set locale\n", prog);
	/* gpusort compares bytes in every locale */
	fprintf(f, "%s: text ordering performed using simple byte comparison\n", prog);
	text_key ug = s->global; /* the global letters no key takes */
	int basic = 0, general = 0, basic_span = 0, general_span = 0;
	for (int i = 0; i < s->nkeys; i++) {
		const text_key *k = &s->key[i];
		unsigned long num = (unsigned long)i + 1;
		if (numeric(k)) {
			if (k->general)
				general = 1;
			else
				basic = 1;
		}
		if (k->traditional) {
			/* +A.x -B.y is -k A+1.x+1,B.y (y 0) or -k A+1.x+1,B+1.y */
			size_t sw = k->sword == SIZE_MAX ? 0 : k->sword;
			char o[64], n[64];
			int lo = snprintf(o, sizeof o, "+%zu", sw), ln = snprintf(n, sizeof n, "-k %zu", sw + 1);
			if (k->eword != SIZE_MAX) {
				snprintf(o + lo, sizeof o - (size_t)lo, " -%zu", k->eword + 1);
				snprintf(n + ln, sizeof n - (size_t)ln, ",%zu", k->eword + 1 + (k->echar == SIZE_MAX));
			}
			fprintf(f, "%s: obsolescent key '%s' used; consider '%s' instead\n", prog, o, n);
		}
		int zero_width = k->sword != SIZE_MAX && k->eword < k->sword;
		if (zero_width)
			fprintf(f, "%s: key %lu has zero width and will be ignored\n", prog, num);
		int implicit_skip = numeric(k) || k->month;
		int line_offset = k->eword == 0 && k->echar != 0; /* -k1.x,1.y */
		if (!zero_width && !s->gkey_only && s->tab == TEXT_TAB_DEFAULT && !line_offset &&
		    ((!k->skipsblanks && !implicit_skip) || (!k->skipsblanks && k->schar) || (!k->skipeblanks && k->echar)))
			fprintf(f, "%s: leading blanks are significant in key %lu; consider also specifying 'b'\n", prog,
				num);
		if (!s->gkey_only && numeric(k)) {
			size_t sw = k->sword + 1, ew = k->eword + 1;
			if (!sw)
				sw++;
			if (!ew || sw < ew) {
				fprintf(f, "%s: key %lu is numeric and spans multiple fields\n", prog, num);
				if (k->general)
					general_span = 1;
				else
					basic_span = 1;
			}
		}
		if (ug.ignore && ug.ignore == k->ignore)
			ug.ignore = 0;
		if (ug.fold && ug.fold == k->fold)
			ug.fold = 0;
		ug.skipsblanks &= !k->skipsblanks;
		ug.skipeblanks &= !k->skipeblanks;
		ug.month &= !k->month;
		ug.numeric &= !k->numeric;
		ug.general &= !k->general;
		ug.human &= !k->human;
		ug.random &= !k->random;
		ug.version &= !k->version;
		ug.reverse &= !k->reverse;
	}
	/* the C locale: '.' the decimal point, no thousands separator */
	int warned = 0;
	if (basic_span || general_span) {
		if (s->tab == '.') {
			fprintf(f, "%s: field separator '.' is treated as a decimal point in numbers\n", prog);
			warned = 1;
		} else if (s->tab == '-') {
			fprintf(f, "%s: field separator '-' is treated as a minus sign in numbers\n", prog);
		} else if (general_span && s->tab == '+') {
			fprintf(f, "%s: field separator '+' is treated as a plus sign in numbers\n", prog);
		}
	}
	if ((basic || general) && !warned)
		fprintf(f, "%s: %snumbers use '.' as a decimal point in this locale\n", prog, s->tab == '.' ? "" : "note ");
	int keys = s->nkeys > 0, su = s->stable || s->unique;
	if (!text_key_plain(&ug) || (ug.reverse && su && keys)) {
		text_key shown = ug;
		if (!su)
			shown.reverse = 0;
		char o[16];
		text_key_letters(&shown, 1, o);
		fprintf(f, strlen(o) == 1 ? "%s: option '-%s' is ignored\n" : "%s: options '-%s' are ignored\n", prog, o);
	}
	if (ug.reverse && !su && keys)
		fprintf(f, "%s: option '-r' only applies to last-resort comparison\n", prog);
}

/* Columns of [p, lim): a byte one, a control byte none, a tab one (GNU's
 * debug_width under LC_ALL=C: mbsnwidth, then a column for each tab). */
static size_t width(const uint8_t *p, const uint8_t *lim)
{
	size_t w = 0;
	for (; p < lim; p++)
		w += !iscntrl(*p) || *p == '\t';
	return w;
}

/* The byte at p, or 0 at lim and past it (GNU reads the key as a C string). */
static inline unsigned char byte_at(const uint8_t *p, const uint8_t *lim)
{
	return p < lim ? *p : 0;
}

/*
 * The end of the number at [p, lim), GNU's traverse_raw_number: digits,
 * then '.' and digits (its thousands separator is NON_CHAR under LC_ALL=C,
 * 128, compared there with a signed char: no byte is one). *digits:
 * whether it had one.
 */
static const uint8_t *number_end(const uint8_t *p, const uint8_t *lim, int *digits)
{
	*digits = 0;
	while (p < lim && isdigit(*p))
		p++, *digits = 1;
	if (p < lim && *p == '.') {
		p++;
		while (p < lim && isdigit(*p))
			p++, *digits = 1;
	}
	return p;
}

/* GNU's unit_order: a -h number's unit, or 0. */
static int unit(unsigned char c)
{
	return c && strchr("KMGTPEZYk", c);
}

/* Where strtold stops reading the key [p, lim) (up to a NUL, as GNU's C string). */
static const uint8_t *general_end(const uint8_t *p, const uint8_t *lim)
{
	const uint8_t *nul = memchr(p, 0, (size_t)(lim - p));
	size_t n = (size_t)((nul ? nul : lim) - p);
	char small[128], *b = n < sizeof small ? small : malloc(n + 1);
	if (!b)
		return p; /* no memory for a long key's copy: shown as no match */
	memcpy(b, p, n);
	b[n] = 0;
	char *end;
	(void)strtold(b, &end);
	const uint8_t *r = p + (end - b);
	if (b != small)
		free(b);
	return r;
}

/* The part of line that key k (NULL: the whole line) compares: GNU's debug_key. */
static void key_part(const text_spec *s, const text_key *k, const uint8_t *line, size_t len, const uint8_t **beg,
		     const uint8_t **lim)
{
	*beg = line, *lim = line + len;
	if (!k)
		return;
	/* A key from the line's start: GNU's debug_key takes the line's start
	 * and skips the blanks below, up to the key's end alone (not past it,
	 * as the comparison's start does): `-t' ' -b -k1,1` of "  a" marks
	 * column 0, not 2. */
	text_key from = *k;
	if (k->sword == SIZE_MAX)
		from.skipsblanks = 0;
	text_key_bounds_raw(s, &from, line, len, beg, lim);
	const uint8_t *b = *beg, *e = *lim;
	if (!((k->skipsblanks && k->sword == SIZE_MAX) || k->month || numeric(k))) {
		*lim = e > b ? e : b;
		return;
	}
	/* GNU ends the key with a NUL at its end, so the blanks are skipped up
	 * to there, or, for an end before the start, up to the line's end:
	 * "-k1.4,1.1n" of "abc d" marks column 4 */
	const uint8_t *stop = e >= b ? e : line + len;
	while (b < stop && text_blank(*b))
		b++;
	if (e < b) { /* no match: marked at the start */
		*beg = *lim = b;
		return;
	}
	const uint8_t *t = b;
	if (k->month) {
		if (text_month(b, (size_t)(e - b)))
			t = b + 3;
	} else if (k->general) {
		t = general_end(b, e);
	} else if (k->numeric || k->human) {
		const uint8_t *p = b + (b < e && *b == '-');
		int digits;
		p = number_end(p, e, &digits);
		if (digits)
			t = p + (k->human && unit(byte_at(p, e)));
	} else {
		t = e;
	}
	*beg = b, *lim = t;
}

/* Room for n more bytes at *buf + used. */
static int room(uint8_t **buf, size_t *cap, size_t used, size_t n)
{
	if (used + n <= *cap)
		return 0;
	size_t c = 2 * (used + n) + 64;
	uint8_t *p = realloc(*buf, c);
	if (!p)
		return -1;
	*buf = p, *cap = c;
	return 0;
}

long text_debug_line(const text_spec *s, const uint8_t *line, size_t len, uint8_t **buf, size_t *cap)
{
	size_t used = 0, cols = width(line, line + len);
	int marks = s->nkeys + !(s->unique || s->stable);
	if (!s->nkeys)
		marks = 1;
	/* each mark is at most the line's columns and a "^ no match" line */
	if (room(buf, cap, 0, len + 1 + (size_t)marks * (cols + 32)))
		return -1;
	uint8_t *o = *buf;
	for (size_t i = 0; i < len; i++)
		o[used++] = line[i] == '\t' ? '>' : line[i];
	o[used++] = '\n';
	for (int m = 0; m < marks; m++) {
		const text_key *k = m < s->nkeys ? &s->key[m] : NULL;
		const uint8_t *beg, *lim;
		key_part(s, k, line, len, &beg, &lim);
		size_t off = width(line, beg), w = lim > beg ? width(beg, lim) : 0;
		memset(o + used, ' ', off);
		used += off;
		if (!w) {
			static const char none[] = "^ no match for key\n";
			memcpy(o + used, none, sizeof none - 1);
			used += sizeof none - 1;
		} else {
			memset(o + used, '_', w);
			used += w;
			o[used++] = '\n';
		}
	}
	return (long)used;
}
