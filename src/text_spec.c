/* text_spec.c - parsing sort(1)'s key definitions (text_spec.h). */
#include "text_spec.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void text_spec_init(text_spec *s)
{
	memset(s, 0, sizeof *s);
	s->tab = TEXT_TAB_DEFAULT;
	s->eol = '\n';
	s->global.eword = SIZE_MAX;
}

enum { BL_START = 1, BL_END = 2 };

/* Apply the ordering letters at p to k (b by `blank`: POS1, POS2 or both);
 * returns the first byte that is not one. */
static const char *set_ordering(const char *p, text_key *k, int blank)
{
	for (;; p++) {
		switch (*p) {
		case 'b':
			if (blank & BL_START)
				k->skipsblanks = 1;
			if (blank & BL_END)
				k->skipeblanks = 1;
			break;
		case 'd': k->ignore = TEXT_IGNORE_NONDICT; break;
		case 'i': /* -d implies -i: i never overrides d */
			if (!k->ignore)
				k->ignore = TEXT_IGNORE_NONPRINTING;
			break;
		case 'f': k->fold = 1; break;
		case 'g': k->general = 1; break;
		case 'h': k->human = 1; break;
		case 'M': k->month = 1; break;
		case 'n': k->numeric = 1; break;
		case 'R': k->random = 1; break;
		case 'r': k->reverse = 1; break;
		case 'V': k->version = 1; break;
		default: return p;
		}
	}
}

/*
 * A field or character count at p (GNU's parse_field_count: leading
 * white space and '+' allowed, a value too large saturates). Returns the
 * byte after it, or NULL when there is no number (msg filled).
 */
static const char *count(const char *p, size_t *v, const char *what, char *msg, size_t msglen)
{
	const char *q = p;
	while (isspace((unsigned char)*q))
		q++;
	if (*q == '+')
		q++;
	if (!isdigit((unsigned char)*q)) {
		snprintf(msg, msglen, "%s: invalid count at start of '%s'", what, p);
		return NULL;
	}
	char *end;
	errno = 0;
	uintmax_t n = strtoumax(p, &end, 10);
	*v = errno == ERANGE || n > SIZE_MAX ? SIZE_MAX : (size_t)n;
	return end;
}

static int bad_spec(const char *why, const char *arg, char *msg, size_t msglen)
{
	snprintf(msg, msglen, "%s: invalid field specification '%s'", why, arg);
	return -1;
}

int text_spec_add_key(text_spec *s, const char *arg, char *msg, size_t msglen)
{
	if (s->nkeys == TEXT_KEYS_MAX) {
		snprintf(msg, msglen, "too many keys (at most %d)", TEXT_KEYS_MAX);
		return -1;
	}
	text_key k;
	memset(&k, 0, sizeof k);
	const char *p = count(arg, &k.sword, "invalid number at field start", msg, msglen);
	if (!p)
		return -1;
	if (k.sword-- == 0)
		return bad_spec("field number is zero", arg, msg, msglen);
	if (*p == '.') {
		if (!(p = count(p + 1, &k.schar, "invalid number after '.'", msg, msglen)))
			return -1;
		if (k.schar-- == 0)
			return bad_spec("character offset is zero", arg, msg, msglen);
	}
	if (!(k.sword || k.schar))
		k.sword = SIZE_MAX;
	p = set_ordering(p, &k, BL_START);
	if (*p != ',') {
		k.eword = SIZE_MAX;
		k.echar = 0;
	} else {
		if (!(p = count(p + 1, &k.eword, "invalid number after ','", msg, msglen)))
			return -1;
		if (k.eword-- == 0)
			return bad_spec("field number is zero", arg, msg, msglen);
		if (*p == '.' && !(p = count(p + 1, &k.echar, "invalid number after '.'", msg, msglen)))
			return -1;
		p = set_ordering(p, &k, BL_END);
	}
	if (*p)
		return bad_spec("stray character in field spec", arg, msg, msglen);
	s->key[s->nkeys++] = k;
	return 0;
}

int text_spec_global(text_spec *s, const char *letters)
{
	return *set_ordering(letters, &s->global, BL_START | BL_END) ? -1 : 0;
}

int text_spec_tab(text_spec *s, const char *arg, char *msg, size_t msglen)
{
	int tab = (unsigned char)arg[0];
	if (!tab) {
		snprintf(msg, msglen, "empty tab");
		return -1;
	}
	if (arg[1]) {
		if (strcmp(arg, "\\0")) {
			snprintf(msg, msglen, "multi-character tab '%s'", arg);
			return -1;
		}
		tab = 0;
	}
	if (s->tab != TEXT_TAB_DEFAULT && s->tab != tab) {
		snprintf(msg, msglen, "incompatible tabs");
		return -1;
	}
	s->tab = tab;
	return 0;
}

int text_key_plain(const text_key *k)
{
	return !(k->ignore || k->fold || k->skipsblanks || k->skipeblanks || k->numeric || k->general || k->human ||
		 k->month || k->version || k->random);
}

int text_key_by_value(const text_key *k)
{
	return k->numeric || k->general || k->human || k->month || k->random || k->version;
}

void text_key_letters(const text_key *k, int all, char *out)
{
	if (all && (k->skipsblanks || k->skipeblanks))
		*out++ = 'b';
	if (k->ignore == TEXT_IGNORE_NONDICT)
		*out++ = 'd';
	if (k->fold)
		*out++ = 'f';
	if (k->general)
		*out++ = 'g';
	if (k->human)
		*out++ = 'h';
	if (k->ignore == TEXT_IGNORE_NONPRINTING)
		*out++ = 'i';
	if (k->month)
		*out++ = 'M';
	if (k->numeric)
		*out++ = 'n';
	if (k->random)
		*out++ = 'R';
	if (all && k->reverse)
		*out++ = 'r';
	if (k->version)
		*out++ = 'V';
	*out = 0;
}

int text_spec_finish(text_spec *s, char *msg, size_t msglen)
{
	const text_key *g = &s->global;
	for (int i = 0; i < s->nkeys; i++) {
		text_key *k = &s->key[i];
		if (text_key_plain(k) && !k->reverse) {
			size_t sw = k->sword, sc = k->schar, ew = k->eword, ec = k->echar;
			uint8_t trad = k->traditional;
			*k = *g;
			k->sword = sw, k->schar = sc, k->eword = ew, k->echar = ec;
			k->traditional = trad;
		}
	}
	if (!s->nkeys && !text_key_plain(g)) {
		s->key[s->nkeys++] = *g; /* sword 0, eword SIZE_MAX: the whole line */
		s->gkey_only = 1;
	}
	for (int i = 0; i < s->nkeys; i++) {
		const text_key *k = &s->key[i];
		if (k->numeric + k->general + k->human + k->month + (k->version | k->random | !!k->ignore) > 1) {
			char o[16];
			text_key_letters(k, 0, o);
			snprintf(msg, msglen, "options '-%s' are incompatible", o);
			return -1;
		}
	}
	s->reverse = g->reverse;
	return 0;
}

int text_spec_random(const text_spec *s)
{
	for (int i = 0; i < s->nkeys; i++)
		if (s->key[i].random)
			return 1;
	return 0;
}
