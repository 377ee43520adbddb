/* text_prefix.c - order-preserving key prefixes of lines (text_prefix.h). */
#include "text_prefix.h"
#include "text_cmp.h"
#include "text_hash.h"
#include "text_num.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * -n's value into n bytes: a class byte (negative < zero < positive), the
 * count of integer digits (2 bytes; 0xFFFF and no digits for 65535 or
 * more, where the digits would no longer line up), then the digits, two a
 * byte as value + 1, and a 0 nibble to end them ("1.5" and "1.50" code
 * the same: trailing fraction zeros are not digits); negative values have
 * all but the class byte inverted, larger magnitudes first. The 0 nibble
 * makes the codes prefix-free (no code is the start of another), so what
 * follows a whole code can be the next key's bytes without ever
 * contradicting the order. Returns the bytes the whole code takes, or 0
 * when it does not fit in n (cut short, it still orders, but says
 * nothing about the bytes after it).
 */
static size_t code_decimal(const text_decimal *d, uint8_t *out, size_t n)
{
	memset(out, 0, n);
	if (!d->int_len && !d->frac_len) {
		out[0] = 0x80;
		return 1;
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
	/* the integer digits, then the fraction's, a nibble each */
	size_t ni = digits < d->int_len ? digits : d->int_len, nf = digits - ni, nib = 0;
	ni = ni < room ? ni : room;
	nf = nf < room - ni ? nf : room - ni;
	for (size_t k = 0; k < ni; k++, nib++)
		out[3 + nib / 2] |= (uint8_t)((d->ip[k] - '0' + 1) << (nib % 2 ? 0 : 4));
	for (size_t k = 0; k < nf; k++, nib++)
		out[3 + nib / 2] |= (uint8_t)((d->fp[k] - '0' + 1) << (nib % 2 ? 0 : 4));
	size_t used = d->int_len < 0xFFFF && digits < room ? 3 + digits / 2 + 1 : 0;
	if (d->neg)
		for (size_t i = 1; i < (used ? used : n); i++)
			out[i] = (uint8_t)~out[i];
	return used;
}

/*
 * -g's value: a class byte (conversion errors < NaNs < numbers, as GNU
 * sort's general_numcompare), then, where long double is the x87 80-bit
 * format (x86-64: 10 significant bytes), the value itself: a NaN's 10
 * bytes in memory order (the memcmp that orders NaNs, text_general_cmp),
 * a number's sign and exponent (2 bytes) and 64-bit significand
 * big-endian, positive values with the sign bit set and negative ones
 * inverted, -0 as +0. strtold's results are normalized (or denormal with
 * a zero exponent), so equal codes are equal values and the code is whole
 * and prefix-free: 1 byte for an error, 11 for the rest. Ties of -g keys
 * then go on to the next key's prefix (the whole line for the last
 * resort) instead of parsing both keys again in every comparison. Where
 * long double has another format, the number is coded as its double (the
 * rounding is monotonic: distinct values may tie, never swap) and only
 * errors are whole. Returns the whole code's bytes, or 0.
 */
static size_t code_general(const uint8_t *p, size_t len, uint8_t *out)
{
	long double v;
	int cls = text_general_parse(p, len, &v);
	out[0] = (uint8_t)cls;
	if (!cls)
		return 1;
#if LDBL_MANT_DIG == 64 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint8_t raw[10];
	if (cls == 1) {
		memcpy(raw, &v, sizeof raw);
		memcpy(out + 1, raw, sizeof raw);
		return 11;
	}
	if (v == 0)
		v = 0; /* -0 == +0 */
	memcpy(raw, &v, sizeof raw);
	uint64_t sig;
	uint16_t se;
	memcpy(&sig, raw, 8);
	memcpy(&se, raw + 8, 2);
	if (se >> 15)
		se = (uint16_t)~se, sig = ~sig;
	else
		se |= 0x8000;
	out[1] = (uint8_t)(se >> 8), out[2] = (uint8_t)se;
	for (int i = 0; i < 8; i++)
		out[3 + i] = (uint8_t)(sig >> (56 - 8 * i));
	return 11;
#else
	if (cls != 2)
		return 0;
	double d = (double)v;
	if (d == 0)
		d = 0; /* -0 == +0 */
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	u = u >> 63 ? ~u : u | (1ull << 63);
	for (int i = 0; i < 8; i++)
		out[1 + i] = (uint8_t)(u >> (56 - 8 * i));
	return 0;
#endif
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

/* The most bytes of a -V code the refinement reads: past them, its ties
 * go to the full comparison */
#define VERSION_CODE_MAX 256

static void invert(uint8_t out[TEXT_PREFIX])
{
	for (int i = 0; i < TEXT_PREFIX; i++)
		out[i] = (uint8_t)~out[i];
}

/* A reversed value code inverted: its whole bytes only (a prefix-free code
 * stays one inverted, and the next key's bytes follow it as they are), or
 * all of the prefix when it is not whole. */
static void invert_code(uint8_t out[TEXT_PREFIX], size_t whole)
{
	for (size_t i = 0; i < (whole ? whole : TEXT_PREFIX); i++)
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

/* The bytes of -n's and -h's codes that runs of equal prefixes are refined
 * by, at most (as -V's): numbers of up to ~490 digits. */
#define NUM_CODE_MAX 256

/*
 * A value key's code (-n -h -g -M; code_value_key codes -R and -V) of its
 * compared bytes [b, e) (-d/-i/-f applied), its bytes [off, off +
 * TEXT_PREFIX) into out. -n's and -h's codes are read from any off up to
 * NUM_CODE_MAX - TEXT_PREFIX, as a key's bytes are, so that the ties of
 * numbers longer than a prefix holds are refined by their next digits;
 * the others have only off 0 (code_key). Returns the bytes of a whole,
 * prefix-free code from off (-n and -h up to NUM_CODE_MAX, -M, -g:
 * code_general), 0 for the rest.
 */
static size_t code_value(const text_key *k, const uint8_t *b, const uint8_t *e, size_t off, uint8_t *out)
{
	size_t n = (size_t)(e - b);
	if (k->numeric || k->human) {
		uint8_t code[NUM_CODE_MAX];
		const size_t h = k->human, lim = off + TEXT_PREFIX;
		text_decimal d;
		size_t skip = 0;
		while (skip < n && text_blank(b[skip]))
			skip++;
		if (h)
			code[0] = (uint8_t)(128 + text_human_unit(b + skip, n - skip));
		if (text_num_parse(b + skip, n - skip, &d))
			abort(); /* no memory for a copy of a number's digits: as -g's copies */
		size_t used = code_decimal(&d, code + h, lim - h);
		text_num_done(&d);
		used = used ? used + h : 0;
		memcpy(out, code + off, TEXT_PREFIX);
		return used > off ? used - off : 0;
	} else if (k->general) {
		return code_general(b, n, out);
	} else if (k->month) {
		out[0] = (uint8_t)text_month(b, n);
		return 1;
	}
	return 0;
}

/* code_key's value keys: 1 (coded), or -1 for a key coded by its bytes. */
static int code_value_key(const text_spec *s, const text_key *k, int version, const uint8_t *b, const uint8_t *e,
			  size_t off, uint8_t out[TEXT_PREFIX], size_t *klen, size_t *whole)
{
	if (k->random) {
		/* -R orders by the key's MD5, then by its bytes (text_hash_cmp):
		 * those 16 + n bytes, read from off as a key's bytes are */
		size_t n = (size_t)(e - b), m = 0;
		if (off < 16) {
			uint8_t h[16];
			text_hash(s->salt, b, n, h);
			m = 16 - off < TEXT_PREFIX ? 16 - off : TEXT_PREFIX;
			memcpy(out, h + off, m);
		}
		if (m < TEXT_PREFIX) { /* the hash ends in this window: the key's bytes follow */
			size_t from = off + m - 16;
			if (n > from)
				memcpy(out + m, b + from, n - from < TEXT_PREFIX - m ? n - from : TEXT_PREFIX - m);
		}
		*klen = 16 + n;
		if (k->reverse)
			invert(out);
		return 1;
	}
	if (version) {
		/* -V's code is as long as the key: its bytes from off, as a
		 * plain key's are, so that a run of equal prefixes is refined */
		uint8_t code[VERSION_CODE_MAX];
		size_t w = text_version_code(b, (size_t)(e - b), code, off + TEXT_PREFIX);
		memcpy(out, code + off, TEXT_PREFIX);
		*whole = w > off ? w - off : 0;
		*klen = w ? w : SIZE_MAX; /* used up where a whole code ends */
		if (k->reverse)
			invert_code(out, *whole);
		return 1;
	}
	if (text_key_by_value(k)) {
		*whole = code_value(k, b, e, off, out);
		*klen = SIZE_MAX; /* never seen as used up */
		if (k->reverse)
			invert_code(out, *whole);
		return 1;
	}
	return -1;
}

/*
 * Key ki alone from its compared byte off into out (TEXT_PREFIX bytes, 0
 * padded); *klen its compared length (SIZE_MAX for a value), *whole the
 * bytes of its code when that is whole and prefix-free (code_value), else
 * 0. Returns 0 (out zeroed) where there is nothing to code: a value past
 * off 0, the whole line under -s or -u, ki past the last resort.
 */
static int code_key(const text_spec *s, int ki, const uint8_t *line, size_t len, size_t off, uint8_t out[TEXT_PREFIX],
		    size_t *klen, size_t *whole)
{
	memset(out, 0, TEXT_PREFIX);
	*whole = 0;
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
	const int version = k->version && !k->random; /* R wins over V */
	if (text_key_by_value(k) && off && !k->random &&
	    !(version ? off + TEXT_PREFIX <= VERSION_CODE_MAX
		      : (k->numeric || k->human) && off + TEXT_PREFIX <= NUM_CODE_MAX))
		return 0; /* a value's code has no more bytes (here) */
	text_key_bounds(s, k, line, len, &b, &e);
	uint8_t small[256], *buf = NULL;
	if (text_key_by_value(k) && (k->ignore || k->fold)) {
		/* a value of the bytes -d/-i/-f leave, as text_cmp compares it */
		size_t n = (size_t)(e - b);
		buf = n <= sizeof small ? small : malloc(n);
		if (!buf)
			abort(); /* no memory for a copy of a key (as text_cmp) */
		e = buf + text_key_transform(k, b, n, buf);
		b = buf;
	}
	int r = code_value_key(s, k, version, b, e, off, out, klen, whole);
	if (buf && buf != small)
		free(buf);
	if (r >= 0)
		return r;
	code_bytes(k, b, e, off, out);
	*klen = compared_len(k, b, e);
	if (k->reverse)
		invert(out);
	return 1;
}

int text_prefix_at(const text_spec *s, int ki, const uint8_t *line, size_t len, size_t off, uint8_t out[TEXT_PREFIX],
		   size_t *klen, text_pos *next)
{
	uint8_t code[TEXT_PREFIX];
	size_t whole, kl, pos = 0;
	if (!code_key(s, ki, line, len, off, out, klen, &whole))
		return 0;
	/*
	 * A value whose whole code ends within the prefix says nothing more:
	 * its ties are decided by the next key (the whole line after the
	 * last), whose first bytes fill the rest, so equal numbers are still
	 * told apart by the radix sort. The code being prefix-free, no line's
	 * value can end where another's goes on, so these bytes never
	 * contradict the order.
	 */
	while (whole && pos + whole < TEXT_PREFIX) {
		pos += whole;
		ki++, off = 0;
		if (!code_key(s, ki, line, len, 0, code, &kl, &whole)) {
			whole = 0;
			break;
		}
		memcpy(out + pos, code, TEXT_PREFIX - pos);
	}
	if (whole && pos + whole == TEXT_PREFIX)
		*next = (text_pos){ ki + 1, 0 };
	else
		*next = (text_pos){ ki, off + TEXT_PREFIX - pos };
	return 1;
}

void text_prefix(const text_spec *s, const uint8_t *line, size_t len, uint8_t out[TEXT_PREFIX], text_pos *next)
{
	size_t klen;
	text_pos at;
	text_prefix_at(s, 0, line, len, 0, out, &klen, next ? next : &at);
}

int text_raw_key(const text_spec *s, int ki, const uint8_t *line, size_t len, const uint8_t **b, const uint8_t **e)
{
	if (ki >= s->nkeys) {
		*b = line;
		*e = line + len;
		return 1;
	}
	const text_key *k = &s->key[ki];
	if (text_key_by_value(k) || k->ignore || k->fold)
		return 0;
	text_key_bounds(s, k, line, len, b, e);
	return 1;
}

void text_prefix_ints(const text_spec *s, const uint8_t *line, size_t len, uint64_t *ph, uint32_t *pl)
{
	uint8_t prefix[TEXT_PREFIX];
	uint64_t hi;
	uint32_t lo;
	text_prefix(s, line, len, prefix, NULL);
	memcpy(&hi, prefix, 8);
	memcpy(&lo, prefix + 8, 4);
	*ph = __builtin_bswap64(hi);
	*pl = __builtin_bswap32(lo);
}
