/* text_num.c - the value orders of -n, -g, -h, -M, -V (text_num.h). */
#define _GNU_SOURCE
#include "text_num.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* The key's byte at i, 0 past its end (GNU's keys are NUL-terminated copies). */
static inline unsigned char at(const uint8_t *a, size_t len, size_t i)
{
	return i < len ? a[i] : 0;
}

static inline int digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static size_t skip_blanks(const uint8_t *a, size_t len)
{
	size_t i = 0;
	while (i < len && text_blank(a[i]))
		i++;
	return i;
}

int text_num_parse(const uint8_t *a, size_t alen, text_decimal *d)
{
	size_t i = skip_blanks(a, alen);
	int neg = at(a, alen, i) == '-';
	i += (size_t)neg;
	d->own = NULL;
	while (i < alen && (a[i] == '0' || a[i] == TEXT_NUM_SEP))
		i++;
	d->ip = a + i;
	size_t s = i;
	/* the digits with bound and digit tests only, the separator's loop
	 * entered once one is met (it is rare) */
	while (i < alen && digit(a[i]))
		i++;
	if (i < alen && a[i] == TEXT_NUM_SEP) {
		while (i < alen && (digit(a[i]) || a[i] == TEXT_NUM_SEP))
			i++;
		/* the digits without the separators, copied */
		if (!(d->own = malloc(i - s))) {
			memset(d, 0, sizeof *d);
			return -1;
		}
		size_t n = 0;
		for (size_t j = s; j < i; j++)
			if (a[j] != TEXT_NUM_SEP)
				d->own[n++] = a[j];
		d->ip = d->own;
		d->int_len = n;
	} else {
		d->int_len = i - s;
	}
	d->fp = a + i + 1;
	d->frac_len = 0;
	if (at(a, alen, i) == '.') {
		size_t f = ++i, last = f;
		for (; i < alen && digit(a[i]); i++)
			if (a[i] != '0')
				last = i + 1;
		d->frac_len = last - f;
	}
	d->neg = neg && (d->int_len || d->frac_len);
	return 0;
}

/* Compare magnitudes |x| and |y|. */
static int magnitude_cmp(const text_decimal *x, const text_decimal *y)
{
	if (x->int_len != y->int_len)
		return x->int_len < y->int_len ? -1 : 1;
	int c = memcmp(x->ip, y->ip, x->int_len);
	if (c)
		return c;
	size_t n = x->frac_len < y->frac_len ? x->frac_len : y->frac_len;
	if ((c = memcmp(x->fp, y->fp, n)))
		return c;
	return (x->frac_len > y->frac_len) - (x->frac_len < y->frac_len);
}

/* Past the blanks, the sign and the leading zeros of an -n key; *minus
 * for a '-' sign. */
static inline size_t int_start(const uint8_t *a, size_t alen, int *minus)
{
	size_t i = 0;
	while (i < alen && text_blank(a[i]))
		i++;
	*minus = i < alen && a[i] == '-';
	i += (size_t)*minus;
	while (i < alen && (a[i] == '0' || a[i] == TEXT_NUM_SEP))
		i++;
	return i;
}

/* Where an -n key's fraction starts when its integer digits end at i:
 * past the '.', or i itself without one (no digit there: no fraction). */
static inline size_t frac_start(const uint8_t *a, size_t alen, size_t i)
{
	return i < alen && a[i] == '.' ? i + 1 : i;
}

/* 1 when the fraction's digits from f hold one that is not 0. */
static inline int frac_nonzero(const uint8_t *a, size_t alen, size_t f)
{
	for (; f < alen && digit(a[f]); f++)
		if (a[f] != '0')
			return 1;
	return 0;
}

/* The order of two fractions' digits (from f and g): the first that
 * differs, else the longer one's rest against zeros. */
static inline int frac_cmp(const uint8_t *a, size_t alen, size_t f, const uint8_t *b, size_t blen, size_t g)
{
	for (; f < alen && g < blen && digit(a[f]) && digit(b[g]); f++, g++)
		if (a[f] != b[g])
			return (int)a[f] - (int)b[g];
	return frac_nonzero(a, alen, f) - frac_nonzero(b, blen, g);
}

int text_num_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	/* Without a separator after the integer digits (nearly every key):
	 * the digits walked side by side, the first difference kept, the
	 * count of digits deciding first, then the fractions; with one,
	 * text_num_parse's decimals (the digits copied without them) */
	int am, bm, c = 0;
	size_t as = int_start(a, alen, &am), bs = int_start(b, blen, &bm);
	const uint8_t *pa = a + as, *pb = b + bs;
	size_t n = alen - as < blen - bs ? alen - as : blen - bs, k = 0;
	while (k < n && pa[k] == pb[k] && digit(pa[k]))
		k++;
	if (k < n && digit(pa[k]) && digit(pb[k]))
		c = (int)pa[k] - (int)pb[k];
	size_t i = as + k, j = bs + k;
	while (i < alen && digit(a[i]))
		i++;
	while (j < blen && digit(b[j]))
		j++;
	if (!(i < alen && a[i] == TEXT_NUM_SEP) && !(j < blen && b[j] == TEXT_NUM_SEP)) {
		size_t f = frac_start(a, alen, i), g = frac_start(b, blen, j);
		/* -0 and -.000 are zero, which has no sign */
		int an = am && (i > as || frac_nonzero(a, alen, f)), bn = bm && (j > bs || frac_nonzero(b, blen, g));
		if (an != bn)
			return an ? -1 : 1;
		if (i - as != j - bs)
			c = i - as < j - bs ? -1 : 1;
		else if (!c)
			c = frac_cmp(a, alen, f, b, blen, g);
		return an ? -c : c;
	}
	text_decimal x, y;
	if (text_num_parse(a, alen, &x) || text_num_parse(b, blen, &y))
		abort(); /* no memory for a copy of a number's digits: as -g's copies */
	c = x.neg != y.neg ? (x.neg ? -1 : 1) : x.neg ? -magnitude_cmp(&x, &y) : magnitude_cmp(&x, &y);
	text_num_done(&x);
	text_num_done(&y);
	return c;
}

/* The -h unit rank of byte c (GNU's unit_order). */
static int unit_rank(unsigned char c)
{
	static const char units[] = "KMGTPEZY";
	if (c == 'k')
		return 1;
	const char *p = c ? strchr(units, c) : NULL;
	return p ? (int)(p - units) + 1 : 0;
}

int text_human_unit(const uint8_t *a, size_t alen)
{
	size_t i = 0;
	int neg = at(a, alen, 0) == '-';
	i += (size_t)neg;
	unsigned char max = 0, c;
	/* GNU's traverse_raw_number: digits, then '.' and digits; its
	 * thousands separator never matches a byte here (TEXT_NUM_SEP) */
	while (digit(c = at(a, alen, i++)))
		if (c > max)
			max = c;
	if (c == '.')
		while (digit(c = at(a, alen, i++)))
			if (c > max)
				max = c;
	if (max <= '0')
		return 0;
	int u = unit_rank(at(a, alen, i - 1));
	return neg ? -u : u;
}

int text_human_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t sa = skip_blanks(a, alen), sb = skip_blanks(b, blen);
	int d = text_human_unit(a + sa, alen - sa) - text_human_unit(b + sb, blen - sb);
	return d ? d : text_num_cmp(a + sa, alen - sa, b + sb, blen - sb);
}

int text_month(const uint8_t *a, size_t alen)
{
	static const char names[] = "JANFEBMARAPRMAYJUNJULAUGSEPOCTNOVDEC";
	size_t i = skip_blanks(a, alen);
	char m[3];
	for (int j = 0; j < 3; j++) {
		unsigned char c = at(a, alen, i + (size_t)j);
		m[j] = (char)(c >= 'a' && c <= 'z' ? c - 32 : c);
	}
	for (int k = 0; k < 12; k++)
		if (!memcmp(m, names + 3 * k, 3))
			return k + 1;
	return 0;
}

/* strtold on the key (up to a NUL), into *v; returns 1 when it read a number. */
static int general_read(const uint8_t *a, size_t alen, long double *v)
{
	char small[128], *buf = small;
	const uint8_t *nul = memchr(a, 0, alen);
	if (nul)
		alen = (size_t)(nul - a);
	if (alen >= sizeof small && !(buf = malloc(alen + 1)))
		abort(); /* a key of more than 128 bytes without memory for its copy */
	memcpy(buf, a, alen);
	buf[alen] = 0;
	char *end;
	*v = strtold(buf, &end);
	int ok = end != buf;
	if (buf != small)
		free(buf);
	return ok;
}

int text_general_parse(const uint8_t *a, size_t alen, long double *v)
{
	if (!general_read(a, alen, v))
		return 0;
	return *v == *v ? 2 : 1;
}

int text_general_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	long double x, y;
	int cx = text_general_parse(a, alen, &x), cy = text_general_parse(b, blen, &y);
	if (!cx || !cy)
		return cx - cy;
	if (cx == 2 && cy == 2)
		return (x > y) - (x < y);
	if (cx != cy)
		return cx == 1 ? -1 : 1; /* NaNs before numbers */
	/* two NaNs: by their bytes, as GNU sort orders them; x87's 80-bit format
	 * leaves the rest of the 16 bytes undefined */
	return memcmp(&x, &y, LDBL_MANT_DIG == 64 ? 10 : sizeof x);
}

static int c_alpha(unsigned char c)
{
	return (c | 32) >= 'a' && (c | 32) <= 'z';
}

/*
 * The length of s without its file suffix: the longest tail made of
 * groups "." letter-or-'~' then letters, digits and '~'.
 */
static size_t version_prefix(const uint8_t *s, size_t n)
{
	size_t i = 0;
	for (;; i++) {
		size_t start = i;
		while (i + 1 < n && s[i] == '.' && (c_alpha(s[i + 1]) || s[i + 1] == '~'))
			for (i += 2; i < n && (c_alpha(s[i]) || digit(s[i]) || s[i] == '~'); i++)
				;
		if (i >= n)
			return start;
	}
}

/* The version order's weight of s[pos] (pos == len: the end). */
static int vorder(const uint8_t *s, size_t pos, size_t len)
{
	if (pos == len)
		return -1;
	unsigned char c = s[pos];
	if (digit(c))
		return 0;
	if (c_alpha(c))
		return c;
	if (c == '~')
		return -2;
	return c + 256;
}

/* The Debian version comparison of s1[0, n1) and s2[0, n2). */
static int version_runs(const uint8_t *s1, size_t n1, const uint8_t *s2, size_t n2)
{
	size_t i = 0, j = 0;
	while (i < n1 || j < n2) {
		int first = 0;
		while ((i < n1 && !digit(s1[i])) || (j < n2 && !digit(s2[j]))) {
			int x = vorder(s1, i, n1), y = vorder(s2, j, n2);
			if (x != y)
				return x - y;
			i++, j++;
		}
		while (i < n1 && s1[i] == '0')
			i++;
		while (j < n2 && s2[j] == '0')
			j++;
		for (; i < n1 && j < n2 && digit(s1[i]) && digit(s2[j]); i++, j++)
			if (!first)
				first = s1[i] - s2[j];
		if (i < n1 && digit(s1[i]))
			return 1;
		if (j < n2 && digit(s2[j]))
			return -1;
		if (first)
			return first;
	}
	return 0;
}

int text_version_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	if (!alen || !blen)
		return (alen != 0) - (blen != 0);
	if (a[0] == '.' || b[0] == '.') {
		if (a[0] != b[0])
			return a[0] == '.' ? -1 : 1;
		int ad = alen == 1, bd = blen == 1;
		if (ad || bd)
			return ad - bd ? bd - ad : 0;
		int add = a[1] == '.' && alen == 2, bdd = b[1] == '.' && blen == 2;
		if (add || bdd)
			return add - bdd ? bdd - add : 0;
	}
	size_t ap = version_prefix(a, alen), bp = version_prefix(b, blen);
	int r = version_runs(a, ap, b, bp);
	if (r || (ap == alen && bp == blen))
		return r;
	return version_runs(a, alen, b, blen);
}

/*
 * text_version_code's tokens. Their order is filevercmp's weights
 * (vorder): '~' (-2) < the end (-1) < a digit (0) < letters (their byte)
 * < other bytes (byte + 256). SUFFIX, the prefix's end where a file
 * suffix follows (the whole key's tokens come after it), sits above END:
 * a key without a suffix sorts before one with a suffix whose prefix ties
 * with it (in filevercmp's second pass, over the whole keys, the first
 * difference is the suffix's '.' against the other key's end or a digit).
 */
enum { VC_TILDE = 1, VC_END = 2, VC_SUFFIX = 3, VC_DIGITS = 4, VC_UPPER = 5, VC_LOWER = 31, VC_OTHER = 57,
       VC_LONG = 254 /* a digit run this long or longer: its code is cut there */ };

/* A non-digit byte's token. */
static uint8_t vc_rank(unsigned char c)
{
	if (c == '~')
		return VC_TILDE;
	if (c >= 'A' && c <= 'Z')
		return (uint8_t)(VC_UPPER + (c - 'A'));
	if (c >= 'a' && c <= 'z')
		return (uint8_t)(VC_LOWER + (c - 'a'));
	/* the other bytes in byte order, after the 63 that are not others below c */
	unsigned below = (c > '9' ? 10u : 0u) + (c > 'Z' ? 26u : 0u) + (c > 'z' ? 26u : 0u) + (c > '~');
	return (uint8_t)(VC_OTHER + c - below);
}

struct vc_out {
	uint8_t *b;
	size_t cap, n;
	int cut;
};

static void vc_put(struct vc_out *o, unsigned v)
{
	if (o->n < o->cap)
		o->b[o->n++] = (uint8_t)v;
	else
		o->cut = 1;
}

/*
 * The tokens of version_runs' order of [a, a + n) into o: each non-digit
 * byte's rank, each digit run as VC_DIGITS, its length without leading
 * zeros and its digits two a byte. Returns 0, or -1 when a digit run of
 * VC_LONG digits or more cut the code there (its rest 0xFF: such runs
 * all tie).
 */
static int vc_runs(struct vc_out *o, const uint8_t *a, size_t n)
{
	/*
	 * version_runs compares non-digit bytes one by one until both keys
	 * are at a digit or their end, then the digit runs by value, so "a"
	 * and "a0" are equal: a string ending outside a digit run codes as
	 * an empty (zero) run before the token after it, as it would after one.
	 */
	int after_run = 0;
	for (size_t i = 0; i < n && !o->cut;) {
		if (!digit(a[i])) {
			vc_put(o, vc_rank(a[i++]));
			after_run = 0;
			continue;
		}
		while (i < n && a[i] == '0')
			i++;
		size_t j = i;
		while (j < n && digit(a[j]))
			j++;
		vc_put(o, VC_DIGITS);
		if (j - i >= VC_LONG) {
			vc_put(o, VC_LONG);
			if (o->n < o->cap)
				memset(o->b + o->n, 0xFF, o->cap - o->n);
			return -1;
		}
		vc_put(o, (unsigned)(j - i));
		for (size_t d = i; d < j; d += 2)
			vc_put(o, (unsigned)(a[d] - '0') << 4 | (d + 1 < j ? (unsigned)(a[d + 1] - '0') : 0u));
		i = j;
		after_run = 1;
	}
	if (!after_run) {
		vc_put(o, VC_DIGITS);
		vc_put(o, 0);
	}
	return 0;
}

size_t text_version_code(const uint8_t *a, size_t alen, uint8_t *out, size_t cap)
{
	memset(out, 0, cap);
	/* text_version_cmp's order before the runs: empty, ".", "..", '.'-led */
	if (!alen || (a[0] == '.' && (alen == 1 || (alen == 2 && a[1] == '.')))) {
		out[0] = (uint8_t)(alen == 0 ? 1 : alen == 1 ? 2 : 3);
		return 1;
	}
	struct vc_out o = { out, cap, 0, 0 };
	vc_put(&o, a[0] == '.' ? 4 : 5);
	/* filevercmp: the keys without their file suffixes, then, where that
	 * ties and either has a suffix, the whole keys */
	const size_t p = version_prefix(a, alen);
	if (vc_runs(&o, a, p))
		return 0;
	if (p < alen) {
		vc_put(&o, VC_SUFFIX);
		if (vc_runs(&o, a, alen))
			return 0;
	}
	vc_put(&o, VC_END);
	return o.cut ? 0 : o.n;
}
