/*
 * test_text_prefix.c - the text prefix sort's contract (text_prefix.h):
 * wherever two lines' prefixes differ, memcmp's order of them is
 * text_cmp's (the comparison tests/text_diff.sh holds to GNU sort's), for
 * every kind of key, and so is that of the prefixes that refine runs of
 * equal ones (text_prefix_at from where text_prefix ended); and -V's code
 * (text_version_code) against text_version_cmp: differing codes order as
 * the keys do, equal whole codes are equal keys, no whole code starts
 * another; and -g's code (x86-64's 80-bit long double): its order is
 * text_general_cmp's exactly, equal codes included.
 */
#include "text_cmp.h"
#include "text_num.h"
#include "text_prefix.h"
#include "text_spec.h"
#include "unit.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned long long seed = 42;

static unsigned rnd(unsigned n)
{
	return (unsigned)(unit_rand(&seed) % n);
}

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

/* A random version-like key into out (at most cap - 1 bytes); its length. */
static size_t version_key(uint8_t *out, size_t cap)
{
	static const char *const parts[] = { "0", "00", "1", "01", "9", "10", "010", "~", "~rc1", ".", "..", "a", "Z",
					     "b", "-", "_", "+", ".tar", ".gz", ".~x", ".1", "x", "\xff", "\x01",
					     "v", "1.2", "1.10", ".txt" };
	size_t n = 0;
	int parts_n = (int)rnd(7);
	for (int i = 0; i < parts_n; i++) {
		if (rnd(40) == 0 && n + 300 < cap) {
			/* a digit run past the code's longest (254 digits) */
			size_t m = 250 + rnd(10);
			for (size_t k = 0; k < m; k++)
				out[n++] = (uint8_t)('0' + (k ? rnd(10) : 1 + rnd(9)));
			continue;
		}
		const char *p = parts[rnd(sizeof parts / sizeof *parts)];
		size_t m = strlen(p);
		if (n + m >= cap)
			break;
		memcpy(out + n, p, m);
		n += m;
	}
	return n;
}

#define NKEYS 1500
#define KEYCAP 600
#define VCODE 64 /* code bytes compared: keys with file suffixes are whole in 64 more often than in 12 */

static void test_version_code(void)
{
	static uint8_t key[NKEYS][KEYCAP];
	static size_t len[NKEYS], whole[NKEYS];
	static uint8_t code[NKEYS][VCODE];
	/* the special keys first, then random ones */
	static const char *const fixed[] = { "", ".", "..", "...", ".a", "a", "a0", "a00", "a0b", "ab", "a~",
					     "a.txt", "a0.txt", "a1", "a1~", "a1.txt", "~", "0", "1", "0.0",
					     "1.0~rc1", "1.0", "1.0a", "1.0.1", "foo.tar.gz", "foo" };
	int nf = (int)(sizeof fixed / sizeof *fixed);
	for (int i = 0; i < NKEYS; i++) {
		if (i < nf) {
			len[i] = strlen(fixed[i]);
			memcpy(key[i], fixed[i], len[i]);
		} else {
			len[i] = version_key(key[i], KEYCAP);
		}
		whole[i] = text_version_code(key[i], len[i], code[i], VCODE);
	}
	TEST_BEGIN("text-version-code-order");
	for (int i = 0; i < NKEYS && !unit_failed; i++)
		for (int j = 0; j < NKEYS && !unit_failed; j++) {
			int c = sign(memcmp(code[i], code[j], VCODE));
			int v = sign(text_version_cmp(key[i], len[i], key[j], len[j]));
			CHECK(!c || c == v, "'%.*s' vs '%.*s': codes say %d, filevercmp %d", (int)len[i], key[i],
			      (int)len[j], key[j], c, v);
			if (whole[i] && !memcmp(code[i], code[j], whole[i]))
				CHECK(whole[j] == whole[i] && v == 0,
				      "'%.*s' (whole, %zu bytes) starts the code of '%.*s' (whole %zu), filevercmp %d",
				      (int)len[i], key[i], whole[i], (int)len[j], key[j], whole[j], v);
		}
	TEST_END();
	TEST_BEGIN("text-version-code-whole");
	/* short keys are whole, with a suffix too (their prefix's runs, the
	 * suffix token, the whole key's runs, end); a key with a long digit
	 * run or a long code is cut */
	size_t w;
	uint8_t c[TEXT_PREFIX];
	w = text_version_code((const uint8_t *)"1.2", 3, c, TEXT_PREFIX);
	CHECK(w == 9, "'1.2': %zu bytes whole, want 9 (class, 2 runs of 3, '.', end)", w);
	w = text_version_code((const uint8_t *)"a0", 2, c, TEXT_PREFIX);
	CHECK(w == 5, "'a0': %zu bytes whole, want 5", w);
	uint8_t c32[32];
	w = text_version_code((const uint8_t *)"a.txt", 5, c32, sizeof c32);
	CHECK(w == 13, "'a.txt': %zu bytes whole, want 13 (class, 'a', run 0, suffix, 'a.txt', run 0, end)", w);
	CHECK(!text_version_code((const uint8_t *)"a.txt", 5, c, TEXT_PREFIX), "'a.txt' takes 13 bytes: cut");
	CHECK(!text_version_code((const uint8_t *)"12.12.17", 8, c, TEXT_PREFIX), "'12.12.17' takes 13 bytes: cut");
	CHECK(text_version_code((const uint8_t *)"", 0, c, TEXT_PREFIX) == 1 && c[0] == 1, "the empty key: class 1");
	TEST_END();
}

/* A random line of ':'-separated fields of numbers, words, months, versions. */
static size_t line(uint8_t *out, size_t cap)
{
	static const char *const words[] = { "1", "-1", "0", "-0", "007", "1.5", "1.50", "-2.25", "10", "9",
					     "1e3", "0x10", "nan", "inf", "-inf", "2K", "1M", "-3G", "5m", "2k", "Jan", "feb",
					     "DEC", "xyz", "abc", "ABC", "a b", " 5", "\t7", "1.2.10", "1.2.9",
					     "v1.9~rc1", "v1.10", "file.tar.gz", ".", "..", ".x", "", "~", "\xff",
					     /* numbers longer than a prefix holds: ties refined by their next digits */
					     "123456789012345678901234567890", "123456789012345678901234567891",
					     "-123456789012345678901234567890", "-123456789012345678901234567899",
					     "12345678901234567890.5", "12345678901234567890.50", "12345678901234567890.05",
					     "123456789012345678901234567890123456789012345678901", "1234567890123456789012K",
					     "1234567890123456789013K", "-1234567890123456789012M" };
	size_t n = 0;
	int nf = 1 + (int)rnd(4);
	for (int f = 0; f < nf; f++) {
		const char *w = words[rnd(sizeof words / sizeof *words)];
		size_t m = strlen(w);
		if (n + m + 1 >= cap)
			break;
		if (f)
			out[n++] = ':';
		memcpy(out + n, w, m);
		n += m;
	}
	return n;
}

/* A random -g key: numbers strtold reads (decimal and hex, exponents to
 * the ends of long double's range, digits past double's and long
 * double's precision, signs, blanks, inf, NaNs with payloads) and keys it
 * does not. */
static size_t general_key(char *out, size_t cap)
{
	static const char *const fixed[] = { "", "x", "-", ".", "e5", "+", " ", "nan", "-nan", "NaN(12)", "nan(0x7)",
					     "inf", "-inf", "INFINITY", "0", "-0", "+0", "0.0", "-0e9", "1e-4950",
					     "-1e-4950", "1e-4940", "3.6e-4951", "1e4932", "-1e4932", "1.18e4932",
					     "0x1p-16445", "0x1.fffffffffffffffep16383", "1e400", "1e-400", "4.9e-324",
					     "1.0000000000000000001", "1.0000000000000000002", "1.00000000000000000001",
					     "0.1", "0.10", " 0.1", "\t-0.1", "1e0", "10e-1", "0x10", "0x1.8p1", "3", "3.",
					     "+3", "003", "2.5abc", "1,5", "1e", "1e+", "0x", "0xg" };
	if (rnd(3) == 0)
		return (size_t)snprintf(out, cap, "%s", fixed[rnd(sizeof fixed / sizeof *fixed)]);
	static const char *const sign[] = { "", "-", "+" };
	char digits[40];
	size_t nd = 1 + rnd(24);
	for (size_t i = 0; i < nd; i++)
		digits[i] = (char)('0' + (rnd(4) ? rnd(10) : (i ? 0 : 1)));
	digits[nd] = 0;
	size_t dot = rnd((unsigned)nd + 1);
	int e = (int)rnd(9900) - 4950;
	if (rnd(2))
		e = (int)rnd(40) - 20;
	return (size_t)snprintf(out, cap, "%s%.*s.%s%s%d", sign[rnd(3)], (int)dot, digits, digits + dot,
				rnd(4) ? "e" : "E", e);
}

#define NGENERAL 2000

static void test_general_code(void)
{
	text_spec s;
	char msg[200] = "";
	text_spec_init(&s);
	s.stable = 1; /* no last resort: the prefix is the key's code alone */
	int bad = text_spec_add_key(&s, "1,1g", msg, sizeof msg) || text_spec_finish(&s, msg, sizeof msg);
	static char key[NGENERAL][64];
	static size_t len[NGENERAL];
	static uint8_t pre[NGENERAL][TEXT_PREFIX];
	for (int i = 0; i < NGENERAL; i++) {
		len[i] = general_key(key[i], sizeof key[i]);
		text_prefix(&s, (const uint8_t *)key[i], len[i], pre[i], NULL);
	}
	TEST_BEGIN("text-general-code");
	CHECK(!bad, "the spec was refused: %s", msg);
	for (int i = 0; i < NGENERAL && !unit_failed; i++)
		for (int j = 0; j < NGENERAL && !unit_failed; j++) {
			int c = sign(memcmp(pre[i], pre[j], TEXT_PREFIX));
			int t = sign(text_general_cmp((const uint8_t *)key[i], len[i], (const uint8_t *)key[j], len[j]));
#if LDBL_MANT_DIG == 64 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			CHECK(c == t, "'%s' vs '%s': codes say %d, text_general_cmp %d", key[i], key[j], c, t);
#else
			CHECK(!c || c == t, "'%s' vs '%s': codes say %d, text_general_cmp %d", key[i], key[j], c, t);
#endif
		}
	TEST_END();
}

#define NLINES 1200

static void check_spec(const char *name, const char *tab, const char *const *keys, int nk, const char *global,
		       int stable)
{
	text_spec s;
	char msg[200] = "";
	text_spec_init(&s);
	s.stable = stable;
	int bad = (tab && text_spec_tab(&s, tab, msg, sizeof msg)) || (global && text_spec_global(&s, global));
	for (int i = 0; i < nk && !bad; i++)
		bad = text_spec_add_key(&s, keys[i], msg, sizeof msg);
	bad = bad || text_spec_finish(&s, msg, sizeof msg);
	static uint8_t ln[NLINES][64];
	static size_t len[NLINES];
	static uint8_t pre[NLINES][TEXT_PREFIX], pre2[NLINES][TEXT_PREFIX];
	static text_pos next[NLINES];
	static int has2[NLINES];
	for (int i = 0; i < NLINES; i++) {
		len[i] = line(ln[i], sizeof ln[i]);
		text_prefix(&s, ln[i], len[i], pre[i], &next[i]);
		/* the refinement's next prefix: where lines with this one's prefix go on */
		size_t kl;
		text_pos at;
		has2[i] = text_prefix_at(&s, next[i].ki, ln[i], len[i], next[i].off, pre2[i], &kl, &at);
	}
	TEST_BEGIN(name);
	CHECK(!bad, "the spec was refused: %s", msg);
	for (int i = 0; i < NLINES && !unit_failed; i++)
		for (int j = 0; j < NLINES && !unit_failed; j++) {
			int c = sign(memcmp(pre[i], pre[j], TEXT_PREFIX));
			int t = sign(text_cmp(&s, ln[i], len[i], ln[j], len[j]));
			CHECK(!c || c == t, "'%.*s' vs '%.*s': prefixes say %d, text_cmp %d", (int)len[i], ln[i],
			      (int)len[j], ln[j], c, t);
			if (c || unit_failed)
				continue;
			/* equal prefixes: refined from the same place, by prefixes that agree too */
			CHECK(next[i].ki == next[j].ki && next[i].off == next[j].off,
			      "'%.*s' and '%.*s' have equal prefixes but go on at key %d byte %zu and key %d byte %zu",
			      (int)len[i], ln[i], (int)len[j], ln[j], next[i].ki, next[i].off, next[j].ki, next[j].off);
			if (has2[i] && has2[j]) {
				int c2 = sign(memcmp(pre2[i], pre2[j], TEXT_PREFIX));
				CHECK(!c2 || c2 == t, "'%.*s' vs '%.*s': the next prefixes say %d, text_cmp %d", (int)len[i],
				      ln[i], (int)len[j], ln[j], c2, t);
			}
		}
	TEST_END();
}

int main(void)
{
	test_version_code();
	test_general_code();
	static const char *const k1V[] = { "1,1V" }, *const k2Vr[] = { "2,2Vr" }, *const k1Vk2n[] = { "1,1V", "2,2n" },
				 *const k1n[] = { "1,1n" }, *const k1h[] = { "1,1h" }, *const k1g[] = { "1,1g" },
				 *const k1M[] = { "1,1M" }, *const k1f[] = { "1,1f" }, *const k1Vf[] = { "1,1Vf" },
				 *const k1nk2V[] = { "1,1nr", "2,2V" }, *const k2b[] = { "2b,2" }, *const k1R[] = { "1,1R" },
				 *const k1Rr[] = { "1,1Rr", "2,2" },
				 *const k1VR[] = { "1,1VR" }, *const k1nf[] = { "1,1nf" }, *const k1Mf[] = { "1,1Mf" },
				 *const k1hf[] = { "1,1hf" }, *const k1Vi[] = { "1,1Vi" }, *const k1gf[] = { "1,1gf" },
				 *const k1Rd[] = { "1,1Rd" }, *const k1Rf[] = { "1,1Rf" }, *const k1Vdr[] = { "1,1Vdr" };
	check_spec("text-prefix-k1V", ":", k1V, 1, NULL, 0);
	check_spec("text-prefix-k2Vr", ":", k2Vr, 1, NULL, 0);
	check_spec("text-prefix-k1V-k2n", ":", k1Vk2n, 2, NULL, 0);
	check_spec("text-prefix-V-whole-line", NULL, NULL, 0, "V", 0);
	check_spec("text-prefix-V-stable", ":", k1V, 1, NULL, 1);
	check_spec("text-prefix-k1Vf", ":", k1Vf, 1, NULL, 0);
	check_spec("text-prefix-k1VR", ":", k1VR, 1, NULL, 0); /* -R wins */
	check_spec("text-prefix-k1nf", ":", k1nf, 1, NULL, 0);
	check_spec("text-prefix-k1Mf", ":", k1Mf, 1, NULL, 0);
	check_spec("text-prefix-k1hf", ":", k1hf, 1, NULL, 0);
	check_spec("text-prefix-k1Vi", ":", k1Vi, 1, NULL, 0);
	check_spec("text-prefix-k1gf", ":", k1gf, 1, NULL, 0);
	check_spec("text-prefix-k1Rd", ":", k1Rd, 1, NULL, 0);
	check_spec("text-prefix-k1Rf", ":", k1Rf, 1, NULL, 0);
	check_spec("text-prefix-k1R", ":", k1R, 1, NULL, 0);
	check_spec("text-prefix-k1Rr-k2", ":", k1Rr, 2, NULL, 0);
	check_spec("text-prefix-k1Vdr", ":", k1Vdr, 1, NULL, 0);
	check_spec("text-prefix-k1n", ":", k1n, 1, NULL, 0);
	check_spec("text-prefix-k1nr-k2V", ":", k1nk2V, 2, NULL, 0);
	check_spec("text-prefix-k1h", ":", k1h, 1, NULL, 0);
	check_spec("text-prefix-k1g", ":", k1g, 1, NULL, 0);
	check_spec("text-prefix-k1M", ":", k1M, 1, NULL, 0);
	check_spec("text-prefix-k1f", ":", k1f, 1, NULL, 0);
	check_spec("text-prefix-k2b", ":", k2b, 1, NULL, 0);
	check_spec("text-prefix-n-reverse-whole-line", NULL, NULL, 0, "nr", 0);
	return UNIT_EXIT();
}
