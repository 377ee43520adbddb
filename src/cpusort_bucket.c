/* cpusort_bucket.c - the in-cache sort of one bucket of native integers; see cpusort.h (cpusort_native_bucket). */
#include "cpusort.h"

#include <string.h>

/* at or below this many items an insertion sort (a group of equal prefixes
 * of random keys holds one or two) */
#define BK_SMALL 32
/* the most bits a digit takes: 2^11 counters, two digits' in 16 KiB of L1 */
#define BK_DIGIT 11
/*
 * A digit whose values fill fewer than 1/BK_WEAK of the counters it could
 * fill (min(2^w, n)) tells few items apart: its groups of equal prefixes
 * grow large, and its scatter increments a few counters in a chain of
 * dependent stores (2^15 keys varying in bits 40-52 and 0-7 only: 11.8
 * against 6.9 ns a key for the LSD passes, on the 2-core VM). Such a bucket
 * takes the LSD passes instead, which skip the digits every item shares.
 */
#define BK_WEAK 16

static int ceil_log2(size_t n)
{
	int l = 0;
	while (((size_t)1 << l) < n)
		l++;
	return l;
}

/*
 * The sort, for T = uint64_t and uint32_t (DEC: keys_native's). x holds
 * m encoded items, y room for m; returns x or y, holding the m records
 * sorted and decoded.
 *
 * 1. m <= BK_SMALL: insertion sort.
 * 2. The bits that differ among the items (OR of each one's XOR with the
 *    first): hb, the highest plus one; none differ: all equal.
 * 3. Two LSD passes on the top T bits below hb (two digits of up to
 *    BK_DIGIT bits, about log2(m) - 3 for a small m, so that the two tell
 *    most items apart), counted in one scan. Where T covers every
 *    differing bit the items are sorted.
 * 4. Else they are sorted by that prefix, and the items of equal prefix lie
 *    together: most such groups hold one item (2^15 random keys and a
 *    22-bit prefix: ~128 pairs), sorted by insertion, a group larger than
 *    BK_SMALL by this sort again (its differing bits lie below the prefix:
 *    hb falls each level, so the depth is at most 64 / 8).
 * Each group is decoded when it is sorted, while in L1, and stored into
 * the other buffer: where the LSD passes left u64 buckets (five passes),
 * which the streamed chunk's writer then copies (16 GiB of u64 on the H200
 * machine: 7.62-7.68 s against 7.89-8.04 s left in place, 7.57-7.75 s
 * before; bench/results/h200-bucket-prefix-2026-11-30.md).
 *
 * Against the LSD passes on all the bits below the MSD partition's (five
 * scatters of 11-bit digits for u64), this is two scatters and a scan:
 * 2^15 uniform u64 keys 4.1-4.7 against 8.1-8.6 ns a key on the VM.
 */
#define BK_DEFINE(T, SUF, DEC)                                                                         \
	static void ins_##SUF(const keys_native *k, T *v, size_t n)                                         \
	{                                                                                                   \
		for (size_t i = 1; i < n; i++) {                                                            \
			const T x = v[i];                                                                   \
			size_t j = i;                                                                       \
			for (; j > 0 && v[j - 1] > x; j--)                                                  \
				v[j] = v[j - 1];                                                            \
			v[j] = x;                                                                           \
		}                                                                                           \
		for (size_t i = 0; i < n; i++)                                                              \
			v[i] = DEC(k, v[i]);                                                                \
	}                                                                                                   \
                                                                                                            \
	static T *bucket_##SUF(const keys_native *k, T *x, T *y, size_t m, uint32_t *cnt)                   \
	{                                                                                                   \
		if (m <= BK_SMALL) {                                                                        \
			ins_##SUF(k, x, m);                                                                 \
			return x;                                                                           \
		}                                                                                           \
		const T f = x[0];                                                                           \
		T d = 0;                                                                                    \
		for (size_t i = 1; i < m; i++)                                                              \
			d |= x[i] ^ f;                                                                      \
		if (!d) {                                                                                   \
			for (size_t i = 0; i < m; i++)                                                      \
				x[i] = DEC(k, x[i]);                                                        \
			return x;                                                                           \
		}                                                                                           \
		const int hb = (int)(8 * sizeof(T)) - (sizeof(T) == 8 ? __builtin_clzll((uint64_t)d)        \
								      : __builtin_clz((uint32_t)d));        \
		int db = ceil_log2(m) - 3;                                                                  \
		db = db > BK_DIGIT ? BK_DIGIT : db < 4 ? 4 : db;                                            \
		const int T2 = hb < 2 * db ? hb : 2 * db, lo = hb - T2;                                     \
		/* digit 0: w0 bits from lo; digit 1 (none when T2 <= db): w1 bits above it */              \
		const int w1 = T2 > db ? T2 / 2 : 0, w0 = T2 - w1, s1 = lo + w0;                             \
		const T m0 = (T)(((T)1 << w0) - 1), m1 = (T)(((T)1 << w1) - 1);                             \
		uint32_t *c0 = cnt, *c1 = cnt + ((size_t)1 << BK_DIGIT);                                    \
		memset(c0, 0, sizeof *c0 << w0);                                                            \
		memset(c1, 0, sizeof *c1 << w1);                                                            \
		for (size_t i = 0; i < m; i++) {                                                            \
			c0[(x[i] >> lo) & m0]++;                                                            \
			c1[(x[i] >> s1) & m1]++;                                                            \
		}                                                                                           \
		size_t used0 = 0, used1 = 0, cap0 = (size_t)1 << w0, cap1 = (size_t)1 << w1;                \
		for (size_t e = 0; e < cap0; e++)                                                           \
			used0 += c0[e] != 0;                                                                \
		for (size_t e = 0; e < cap1; e++)                                                           \
			used1 += c1[e] != 0;                                                                \
		if (used0 * BK_WEAK < (cap0 < m ? cap0 : m) || (w1 && used1 * BK_WEAK < (cap1 < m ? cap1 : m))) \
			return (T *)cpusort_native_par(k, (uint8_t *)x, (uint8_t *)y, m, hb, 1, 1, cnt);      \
		uint32_t sum = 0;                                                                           \
		for (size_t e = 0; e < cap0; e++) {                                                         \
			uint32_t c = c0[e];                                                                 \
			c0[e] = sum;                                                                        \
			sum += c;                                                                           \
		}                                                                                           \
		for (size_t i = 0; i < m; i++)                                                              \
			y[c0[(x[i] >> lo) & m0]++] = x[i];                                                  \
		T *r = y, *s = x;                                                                           \
		if (w1) {                                                                                   \
			sum = 0;                                                                            \
			for (size_t e = 0; e < cap1; e++) {                                                 \
				uint32_t c = c1[e];                                                         \
				c1[e] = sum;                                                                \
				sum += c;                                                                   \
			}                                                                                   \
			if (lo == 0) { /* sorted: decoded as they are placed */                             \
				for (size_t i = 0; i < m; i++)                                              \
					x[c1[(y[i] >> s1) & m1]++] = DEC(k, y[i]);                          \
				return x;                                                                   \
			}                                                                                   \
			for (size_t i = 0; i < m; i++)                                                      \
				x[c1[(y[i] >> s1) & m1]++] = y[i];                                          \
			r = x;                                                                              \
			s = y;                                                                              \
		}                                                                                           \
		if (lo == 0) {                                                                              \
			for (size_t i = 0; i < m; i++)                                                      \
				r[i] = DEC(k, r[i]);                                                        \
			return r;                                                                           \
		}                                                                                           \
		size_t g = 0;                                                                               \
		T p = r[0] >> lo;                                                                           \
		for (size_t i = 1; i <= m; i++) {                                                           \
			const T q = i < m ? r[i] >> lo : 0;                                                 \
			if (i < m && q == p)                                                                \
				continue;                                                                   \
			const size_t len = i - g;                                                           \
			if (len == 1) {                                                                     \
				s[g] = DEC(k, r[g]);                                                        \
			} else if (len <= BK_SMALL) {                                                       \
				ins_##SUF(k, r + g, len);                                                   \
				memcpy(s + g, r + g, len * sizeof(T));                                      \
			} else {                                                                            \
				T *z = bucket_##SUF(k, r + g, s + g, len, cnt);                             \
				if (z != s + g)                                                             \
					memcpy(s + g, z, len * sizeof(T));                                  \
			}                                                                                   \
			g = i;                                                                              \
			p = q;                                                                              \
		}                                                                                           \
		return s;                                                                                   \
	}

BK_DEFINE(uint64_t, u64, keys_native_dec64)
BK_DEFINE(uint32_t, u32, keys_native_dec32)

void cpusort_native_insertion(const keys_native *k, uint8_t *a, size_t n)
{
	if (k->width == 8)
		ins_u64(k, (uint64_t *)a, n);
	else
		ins_u32(k, (uint32_t *)a, n);
}

uint8_t *cpusort_native_bucket(const keys_native *k, uint8_t *a, uint8_t *b, size_t n, int bits, void *counters)
{
	/* two digits or fewer: the LSD passes are as few, and decode as they
	 * place (no scan for the differing bits first) */
	if (n > UINT32_MAX || (bits > 0 && bits <= 2 * BK_DIGIT))
		return cpusort_native_par(k, a, b, n, bits, 1, 1, counters);
	if (k->width == 8)
		return (uint8_t *)bucket_u64(k, (uint64_t *)a, (uint64_t *)b, n, counters);
	return (uint8_t *)bucket_u32(k, (uint32_t *)a, (uint32_t *)b, n, counters);
}
