/*
 * text_spec.h - the ordering of text lines (sort(1)'s interface, under
 * LC_ALL=C): -k KEYDEF keys, the global ordering letters (b d f g h i M n R
 * r V), -t, -z, -s, -u, parsed and completed as GNU sort 9 does it
 * (DESIGN.md section 11). Plain data and its parsing; comparing lines is
 * text_cmp.h's.
 */
#ifndef GPUSORT_TEXT_SPEC_H
#define GPUSORT_TEXT_SPEC_H
#include <stddef.h>
#include <stdint.h>

#define TEXT_KEYS_MAX 64      /* most -k options */
#define TEXT_TAB_DEFAULT (-1) /* no -t: a field starts at the blanks before it */

enum { TEXT_IGNORE_NONE, TEXT_IGNORE_NONPRINTING /* i */, TEXT_IGNORE_NONDICT /* d */ };

/*
 * One key: from field sword (0-based), character schar (0-based) to field
 * eword, character echar (echar 0: the field's end). sword SIZE_MAX: the
 * line's start (-k1 / -k1.1); eword SIZE_MAX: the line's end (no ",POS2").
 */
typedef struct text_key {
	size_t sword, schar, eword, echar;
	uint8_t skipsblanks, skipeblanks; /* b on POS1, b on POS2 */
	uint8_t ignore;                   /* TEXT_IGNORE_*: d wins over i */
	uint8_t fold;                     /* f: fold lower case to upper */
	uint8_t numeric, general, human, month, version, random, reverse;
	uint8_t traditional;              /* given as sort(1)'s obsolete +POS1 -POS2 (--debug warns) */
} text_key;

typedef struct text_spec {
	text_key key[TEXT_KEYS_MAX];
	int nkeys;           /* after text_spec_finish: 0 only for a whole-line byte order */
	text_key global;     /* the global letters, inherited by plain keys */
	int tab;             /* -t: the separator byte, or TEXT_TAB_DEFAULT */
	unsigned char eol;   /* '\n', or '\0' with -z */
	int unique, stable;  /* -u, -s: no last-resort whole-line comparison */
	int reverse;         /* -r: the last-resort comparison is reversed */
	int gkey_only;       /* no -k: the global letters are the only key (text_spec_finish) */
	uint8_t salt[16];    /* -R: the hash's key (--random-source's first 16 bytes) */
} text_spec;

/* Start a spec: no keys, default tab, '\n' lines. */
void text_spec_init(text_spec *s);

/*
 * Parse one -k argument "F[.C][OPTS][,F[.C][OPTS]]" and append the key.
 * Returns 0, or -1 with GNU sort's message (without the program name) in msg.
 */
int text_spec_add_key(text_spec *s, const char *arg, char *msg, size_t msglen);

/*
 * Apply global ordering letters ("n", "bfr", or a --sort=WORD's letter) to
 * the global key. Returns 0, or -1 when a letter is not one of bdfghiMnRrV.
 */
int text_spec_global(text_spec *s, const char *letters);

/*
 * -t ARG: one byte, or "\0" for NUL. Returns 0, or -1 with GNU's message
 * ("empty tab", "multi-character tab 'ab'", "incompatible tabs") in msg.
 */
int text_spec_tab(text_spec *s, const char *arg, char *msg, size_t msglen);

/*
 * After every option: plain keys inherit the global letters, the global
 * key becomes the only key when there is no -k and it orders (not for a
 * bare -r), and incompatible letters in one key are refused. Returns 0, or
 * -1 with "options '-Mn' are incompatible" in msg.
 */
int text_spec_finish(text_spec *s, char *msg, size_t msglen);

/* 1 when k orders as plain bytes, r aside (GNU's default_key_compare):
 * a key given so inherits the global letters. */
int text_key_plain(const text_key *k);

/* 1 when k orders by a value (-n -g -h -M -R -V), not by its bytes. */
int text_key_by_value(const text_key *k);

/* k's letters into out (16 bytes), in GNU's order (key_to_opts); all: b
 * and r too, else without them (the letters of a conflict). */
void text_key_letters(const text_key *k, int all, char *out);

/* 1 when some key hashes (-R). */
int text_spec_random(const text_spec *s);

#endif
