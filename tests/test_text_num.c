/*
 * test_text_num.c - -n's comparison (text_num_cmp) against a model of the
 * value sort(1) reads under LC_ALL=C, written apart from it: every pair
 * of keys of up to 3 bytes from an alphabet of the bytes that matter
 * (blanks, '-', zeros, digits, '.', the 0x80 separator, NUL, a letter),
 * then random pairs of longer keys. Its plain-integer path and its
 * decimals must both agree with the model.
 */
#include "text_num.h"
#include "unit.h"

#include <string.h>

/* The model: sign, integer digits without leading zeros, fraction without
 * trailing zeros. sort(1)'s -n under LC_ALL=C: blanks; one '-'; zeros and
 * 0x80 bytes; digits, each followed by any 0x80 bytes (its thousands
 * separator); '.' and digits. A NUL ends the key. Zero has no sign. */
typedef struct {
	int neg;
	char ip[64], fp[64];
} value;

static void model(const uint8_t *k, size_t n, value *v)
{
	size_t i = 0, ni = 0, nf = 0;
	const void *nul = memchr(k, 0, n);
	if (nul)
		n = (size_t)((const uint8_t *)nul - k);
	while (i < n && (k[i] == ' ' || k[i] == '\t' || k[i] == '\n'))
		i++;
	int minus = i < n && k[i] == '-';
	if (minus)
		i++;
	while (i < n && (k[i] == '0' || k[i] == 0x80))
		i++;
	while (i < n && k[i] >= '0' && k[i] <= '9') {
		v->ip[ni++] = (char)k[i++];
		while (i < n && k[i] == 0x80)
			i++;
	}
	if (i < n && k[i] == '.')
		for (i++; i < n && k[i] >= '0' && k[i] <= '9'; i++)
			v->fp[nf++] = (char)k[i];
	while (nf && v->fp[nf - 1] == '0')
		nf--;
	v->ip[ni] = v->fp[nf] = 0;
	v->neg = minus && (ni || nf);
}

static int model_cmp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	value x, y;
	model(a, na, &x);
	model(b, nb, &y);
	if (x.neg != y.neg)
		return x.neg ? -1 : 1;
	size_t lx = strlen(x.ip), ly = strlen(y.ip);
	int c = lx != ly ? (lx < ly ? -1 : 1) : strcmp(x.ip, y.ip);
	if (!c)
		c = strcmp(x.fp, y.fp);
	c = (c > 0) - (c < 0);
	return x.neg ? -c : c;
}

static int sign(int c)
{
	return (c > 0) - (c < 0);
}

static const uint8_t alphabet[] = { ' ', '\t', '-', '0', '1', '9', '.', 0x80, 0, 'a' };
#define NA (sizeof alphabet)

/* Key number i of the exhaustive set: its length and bytes (up to 3). */
static size_t key_of(unsigned i, uint8_t *k)
{
	size_t len = 0;
	unsigned first = 1;
	while (len < 3 && i >= first) {
		i -= first;
		first *= NA;
		len++;
	}
	for (size_t j = 0; j < len; j++, i /= NA)
		k[j] = alphabet[i % NA];
	return len;
}

static void test_exhaustive(void)
{
	TEST_BEGIN("text-num-exhaustive");
	unsigned nkeys = 1 + NA + NA * NA + NA * NA * NA;
	for (unsigned i = 0; i < nkeys && !unit_failed; i++)
		for (unsigned j = 0; j < nkeys; j++) {
			uint8_t a[3], b[3];
			size_t na = key_of(i, a), nb = key_of(j, b);
			int got = sign(text_num_cmp(a, na, b, nb)), want = model_cmp(a, na, b, nb);
			CHECK(got == want, "keys %u and %u (%zu and %zu bytes): %d, the model %d", i, j, na, nb, got,
			      want);
			if (unit_failed)
				break;
		}
	TEST_END();
}

/* A random key: mostly a number (blanks, sign, zeros, up to 30 digits,
 * separators, a fraction), sometimes any of the alphabet's bytes. */
static size_t random_key(unsigned long long *st, uint8_t *k)
{
	size_t n = 0;
	if (unit_rand(st) % 8 == 0) {
		size_t len = unit_rand(st) % 12;
		for (; n < len; n++)
			k[n] = alphabet[unit_rand(st) % NA];
		return n;
	}
	if (unit_rand(st) % 4 == 0)
		k[n++] = ' ';
	if (unit_rand(st) % 3 == 0)
		k[n++] = '-';
	for (size_t z = unit_rand(st) % 3; z; z--)
		k[n++] = '0';
	/* few distinct digits: pairs that share long starts and equal values */
	for (size_t d = unit_rand(st) % 30; d; d--) {
		k[n++] = (uint8_t)('0' + unit_rand(st) % 3);
		if (unit_rand(st) % 16 == 0)
			k[n++] = 0x80;
	}
	if (unit_rand(st) % 3 == 0) {
		k[n++] = '.';
		for (size_t d = unit_rand(st) % 6; d; d--)
			k[n++] = (uint8_t)('0' + unit_rand(st) % 3);
	}
	if (unit_rand(st) % 4 == 0)
		k[n++] = "x.\x80 "[unit_rand(st) % 4];
	return n;
}

static void test_random(void)
{
	TEST_BEGIN("text-num-random");
	unsigned long long st = 42;
	for (int t = 0; t < 400000 && !unit_failed; t++) {
		uint8_t a[64], b[64];
		size_t na = random_key(&st, a), nb = random_key(&st, b);
		if (unit_rand(&st) % 4 == 0) { /* the same number written apart */
			memcpy(b, a, na);
			nb = na;
			if (nb && unit_rand(&st) % 2)
				b[nb - 1] = b[nb - 1] == '0' ? '1' : '0';
		}
		int got = sign(text_num_cmp(a, na, b, nb)), want = model_cmp(a, na, b, nb);
		CHECK(got == want, "case %d: \"%.*s\" against \"%.*s\": %d, the model %d", t, (int)na, (const char *)a,
		      (int)nb, (const char *)b, got, want);
	}
	TEST_END();
}

int main(void)
{
	test_exhaustive();
	test_random();
	return UNIT_EXIT();
}
