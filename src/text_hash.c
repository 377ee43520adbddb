/* text_hash.c - MD5 (RFC 1321) of a salted key, for -R (text_hash.h). */
#include "text_hash.h"

#include <string.h>

typedef struct md5 {
	uint32_t h[4];
	uint64_t bytes;
	uint8_t block[64];
} md5;

static const uint8_t shift[64] = {
	7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
	5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21,
	6, 10, 15, 21, 6, 10, 15, 21,
};

/* RFC 1321's table T: floor(2^32 * |sin(i + 1)|). */
static const uint32_t T[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static void md5_block(md5 *m, const uint8_t *p)
{
	uint32_t w[16];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
		       (uint32_t)p[4 * i + 3] << 24;
	uint32_t a = m->h[0], b = m->h[1], c = m->h[2], d = m->h[3];
	for (int i = 0; i < 64; i++) {
		uint32_t f;
		int g;
		if (i < 16)
			f = (b & c) | (~b & d), g = i;
		else if (i < 32)
			f = (d & b) | (~d & c), g = (5 * i + 1) & 15;
		else if (i < 48)
			f = b ^ c ^ d, g = (3 * i + 5) & 15;
		else
			f = c ^ (b | ~d), g = (7 * i) & 15;
		uint32_t t = a + f + T[i] + w[g];
		a = d, d = c, c = b;
		b += t << shift[i] | t >> (32 - shift[i]);
	}
	m->h[0] += a, m->h[1] += b, m->h[2] += c, m->h[3] += d;
}

static void md5_add(md5 *m, const uint8_t *p, size_t n)
{
	size_t have = (size_t)(m->bytes & 63);
	m->bytes += n;
	if (have) {
		size_t take = 64 - have < n ? 64 - have : n;
		memcpy(m->block + have, p, take);
		p += take, n -= take;
		if (have + take < 64)
			return;
		md5_block(m, m->block);
	}
	for (; n >= 64; p += 64, n -= 64)
		md5_block(m, p);
	memcpy(m->block, p, n);
}

void text_hash(const uint8_t salt[16], const uint8_t *key, size_t len, uint8_t out[16])
{
	md5 m = { { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 }, 0, { 0 } };
	md5_add(&m, salt, 16);
	md5_add(&m, key, len);
	uint64_t bits = m.bytes * 8;
	uint8_t pad[72] = { 0x80 };
	size_t padlen = (size_t)((55 - m.bytes % 64 + 64) % 64) + 1;
	for (int i = 0; i < 8; i++)
		pad[padlen + (size_t)i] = (uint8_t)(bits >> (8 * i));
	md5_add(&m, pad, padlen + 8);
	for (int i = 0; i < 16; i++)
		out[i] = (uint8_t)(m.h[i / 4] >> (8 * (i % 4)));
}

int text_hash_cmp(const uint8_t salt[16], const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	uint8_t x[16], y[16];
	text_hash(salt, a, alen, x);
	text_hash(salt, b, blen, y);
	int d = memcmp(x, y, 16);
	if (!d && !(d = memcmp(a, b, alen < blen ? alen : blen)))
		d = (alen > blen) - (alen < blen);
	return d;
}
