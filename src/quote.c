/* quote.c - file names quoted as sort(1) quotes them in messages (quote.h). */
#include "quote.h"

#include <string.h>

/* Bytes a shell would take otherwise: quoted wherever they are (':' too,
 * as quotef adds it). */
static int special(unsigned char c)
{
	return c && strchr(" !\"$&()*;<=>?[\\^`|':", c) != NULL;
}

static int unprintable(unsigned char c)
{
	return c < 0x20 || c >= 0x7f;
}

/* Special inside double quotes too, or not ASCII: then single quotes. */
static int not_for_double(unsigned char c)
{
	return unprintable(c) || (c && strchr("!\"$&()*;<=>?[\\^`|", c) != NULL);
}

struct out {
	char *p;
	size_t cap, n;
};

static void put(struct out *o, char c)
{
	if (o->n + 1 < o->cap)
		o->p[o->n] = c;
	o->n++;
}

static void puts_(struct out *o, const char *s)
{
	while (*s)
		put(o, *s++);
}

size_t quote_name_into(const char *name, char *out, size_t cap)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t len = strlen(name);
	int needs = len == 0, quote = 0, double_ok = 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];
		needs |= special(c) || unprintable(c) || ((c == '#' || c == '~') && i == 0) ||
			 ((c == '{' || c == '}') && len == 1);
		quote |= c == '\'';
		double_ok &= !not_for_double(c);
	}
	struct out o = { out, cap, 0 };
	if (!needs) {
		puts_(&o, name);
	} else if (quote && double_ok) {
		put(&o, '"');
		puts_(&o, name);
		put(&o, '"');
	} else {
		/* '...', a ' as '\'', unprintable bytes as $'...' (consecutive ones
		 * in one), the quotes reopened only for a byte that follows. A name
		 * with a ' that ends in an unprintable byte starts as if after one
		 * (a'<newline> is '''a'\'''$'\n'): gnulib's second pass over such a
		 * name keeps its first pass's state, and sort(1) prints that. */
		int in_escape = quote && unprintable(s[len - 1]);
		put(&o, '\'');
		for (size_t i = 0; i < len; i++) {
			unsigned char c = s[i];
			if (unprintable(c)) {
				if (!in_escape)
					puts_(&o, "'$'");
				in_escape = 1;
				static const char ctl[] = "\a\b\f\n\r\t\v", letter[] = "abfnrtv";
				const char *k = c ? strchr(ctl, c) : NULL;
				put(&o, '\\');
				if (k) {
					put(&o, letter[k - ctl]);
				} else {
					put(&o, (char)('0' + (c >> 6)));
					put(&o, (char)('0' + ((c >> 3) & 7)));
					put(&o, (char)('0' + (c & 7)));
				}
				continue;
			}
			if (c == '\'') {
				puts_(&o, "'\\''"); /* its first ' also ends a $'...' */
			} else {
				if (in_escape)
					puts_(&o, "''");
				put(&o, (char)c);
			}
			in_escape = 0;
		}
		put(&o, '\'');
	}
	if (cap)
		out[o.n < cap ? o.n : cap - 1] = '\0';
	return o.n;
}

const char *quote_name(const char *name)
{
	static _Thread_local char ring[4][4096];
	static _Thread_local int next;
	char *b = ring[next];
	next = (next + 1) % 4;
	quote_name_into(name, b, sizeof ring[0]);
	return b;
}
