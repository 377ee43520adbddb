/*
 * gen.c - test-data generator for gpusort: fixed-width binary records whose
 * key fields follow the input distributions of the seed sorting papers.
 *
 *   cc -O2 -std=c11 -Wall -Wextra -o bench/gen bench/gen.c -lm
 *   bench/gen -n 1M -k u32 --dist zipf -o zipf.u32
 *   bench/gen -n 1000000 --record-size 100 -k bytes10 --format lines -o sb.dat
 *
 * Model.  Every key draw is a 64-bit "position" p in the order of the field
 * (0 = smallest value of the type, 2^64-1 = largest); p is then mapped to the
 * field's type monotonically, so a distribution means the same thing for every
 * type (sorted stays sorted, equal stays equal, buckets stay buckets):
 *   uN        the top N bits of p
 *   iN        the top N bits of p with the sign bit flipped (p=0: most negative)
 *   f32/f64   linear onto [-1e9, +1e9] (p = 2^63 gives exactly 0.0)
 *   bytesN    p big-endian in the first min(N,8) bytes, then bytes derived
 *             from p (so equal positions give equal fields)
 * With --printable every byte is one of the 95 printable ASCII characters:
 * fields hold p as base-95 digits, most significant first (order kept).
 * Bytes not covered by a key are payload derived from the seed and the record
 * number, so stability is observable.
 *
 * Reproducible on any machine: own PRNG (splitmix64 seeding xoshiro256**),
 * integer arithmetic for every distribution except zipf, and for zipf only
 * IEEE-754 basic operations (own log/exp; no libm transcendental functions).
 * Each key has its own random stream, restarted from (seed, segment, key) at
 * every segment of up to 64Ki records, so units of whole segments are made
 * by parallel threads (POSIX threads; in libc since glibc 2.34) and the
 * bytes depend neither on the thread count nor on buffer sizes.
 * Streaming: memory depends on the thread count, not on the record count.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define MAX_KEYS 64
#define MAX_RECORD ((size_t)1 << 20)
#define MAX_COUNT ((uint64_t)1 << 55)
#define MAX_SEG ((uint64_t)1 << 16) /* records per random-stream segment */
#define MAX_UNIT ((size_t)1 << 18) /* records per work unit */
#define MAX_THREADS 64
#define BLOCK_BYTES ((size_t)4 << 20)
#define NBLK 16 /* p: blocks (and sub-ranges) of bucket and staggered */
#define FLOAT_SCALE 1e9
#define SPECIAL_SHIFT 54 /* specials: 1 in 2^(64-54) = 1024 float values */

static const char *prog = "gen";

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));


static void die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ---------------------------------------------------------------- PRNG */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

struct rng { uint64_t s[4]; };

static void rng_seed(struct rng *r, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rng_next(struct rng *r) /* xoshiro256** */
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

static inline double rng_unit(struct rng *r) /* [0, 1) */
{
	return (double)(rng_next(r) >> 11) * 0x1p-53;
}

/* ---------------------------------- deterministic log/exp (basic IEEE ops) */

static const double LN2_HI = 6.93147180369123816490e-01; /* ln 2 = HI + LO */
static const double LN2_LO = 1.90821492927058770002e-10;
static const double INV_LN2 = 1.44269504088896338700e+00;
static double exp_coef[18]; /* 1/j! */
static double exp_tab[256]; /* 2^(j/256) */

static double pow2i(int k) /* 2^k, -1022 <= k <= 1023, exact */
{
	uint64_t b = (uint64_t)(k + 1023) << 52;
	double d;
	memcpy(&d, &b, 8);
	return d;
}

/* exp by Taylor series after reduction by ln 2: slow, for the table only */
static double dexp_slow(double x)
{
	double k = floor(x * INV_LN2 + 0.5);
	double r = (x - k * LN2_HI) - k * LN2_LO, s = exp_coef[17];
	for (int j = 16; j >= 0; j--)
		s = s * r + exp_coef[j];
	return s * pow2i((int)k);
}

static void dmath_init(void)
{
	double f = 1;
	exp_coef[0] = 1;
	for (int j = 1; j < 18; j++) {
		f *= j;
		exp_coef[j] = 1 / f;
	}
	for (int j = 0; j < 256; j++)
		exp_tab[j] = dexp_slow((j / 256.0) * LN2_HI + (j / 256.0) * LN2_LO);
}

static double dlog(double x) /* x > 0, finite */
{
	int e;
	double m = frexp(x, &e), z, z2, s = 0;
	if (m < 0.70710678118654752440) {
		m *= 2;
		e--;
	}
	z = (m - 1) / (m + 1);
	z2 = z * z;
	for (int k = 23; k >= 1; k -= 2)
		s = s * z2 + 1.0 / k;
	return e * LN2_HI + (e * LN2_LO + 2 * z * s);
}

/* exp(x), |x| < 700: x = m ln2/256 + r, |r| <= ln2/512, exp(r) to degree 6 */
static inline double dexp(double x)
{
	double t = x * (256 * INV_LN2);
	int64_t m = (int64_t)(t < 0 ? t - 0.5 : t + 0.5);
	double md = (double)m;
	double r = (x - md * (LN2_HI / 256)) - md * (LN2_LO / 256);
	double p = ((((((1.0 / 720) * r + 1.0 / 120) * r + 1.0 / 24) * r +
		      1.0 / 6) * r + 0.5) * r + 1) * r + 1;
	int64_t hi = (m + ((int64_t)1 << 40)) >> 8; /* floor(m / 256) + 2^32 */
	return p * exp_tab[m & 255] * pow2i((int)(hi - ((int64_t)1 << 32)));
}

/* ------------------------------------------------------------------ keys */

enum kind { K_U, K_I, K_F, K_B };

struct key {
	enum kind kind;
	unsigned width; /* bytes */
	int be;         /* big-endian (bytesN are big-endian by nature) */
	size_t off;
	unsigned bits;  /* significant bits of a position: min(8*width, 64) */
	/* zipf (s = 1) over N = 2^min(bits, 32) ranks, rejection-inversion */
	double z_hn, z_hx1, z_sq, z_n;
};

static const struct {
	const char *name;
	enum kind kind;
	unsigned width;
	int be;
} types[] = {
	{"u8", K_U, 1, 0},     {"u16", K_U, 2, 0},    {"u32", K_U, 4, 0},
	{"u64", K_U, 8, 0},    {"i8", K_I, 1, 0},     {"i16", K_I, 2, 0},
	{"i32", K_I, 4, 0},    {"i64", K_I, 8, 0},    {"f32", K_F, 4, 0},
	{"f64", K_F, 8, 0},    {"u16be", K_U, 2, 1},  {"u32be", K_U, 4, 1},
	{"u64be", K_U, 8, 1},  {"i16be", K_I, 2, 1},  {"i32be", K_I, 4, 1},
	{"i64be", K_I, 8, 1},  {"f32be", K_F, 4, 1},  {"f64be", K_F, 8, 1},
};

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* TYPE[@OFFSET][:r]; *next_off: default offset, advanced past the key */
static void parse_key(const char *arg, struct key *k, size_t *next_off)
{
	char buf[64];
	size_t tl = strcspn(arg, "@:");
	const char *p = arg + tl;
	uint64_t v;

	memset(k, 0, sizeof *k);
	if (tl == 0 || tl >= sizeof buf)
		die("bad key '%s': missing or unknown type", arg);
	memcpy(buf, arg, tl);
	buf[tl] = 0;
	if (strncmp(buf, "bytes", 5) == 0) {
		if (parse_uint(buf + 5, MAX_RECORD, &v) || v == 0)
			die("bad key '%s': bytesN needs N in 1..%zu", arg, MAX_RECORD);
		k->kind = K_B;
		k->width = (unsigned)v;
		k->be = 1;
	} else {
		size_t i;
		for (i = 0; i < sizeof types / sizeof types[0]; i++)
			if (strcmp(buf, types[i].name) == 0)
				break;
		if (i == sizeof types / sizeof types[0])
			die("bad key '%s': unknown type '%s'", arg, buf);
		k->kind = types[i].kind;
		k->width = types[i].width;
		k->be = types[i].be;
	}
	k->off = *next_off;
	if (*p == '@') {
		char ob[32];
		size_t ol = strcspn(p + 1, ":");
		if (ol == 0 || ol >= sizeof ob)
			die("bad key '%s': bad offset", arg);
		memcpy(ob, p + 1, ol);
		ob[ol] = 0;
		if (parse_uint(ob, MAX_RECORD, &v))
			die("bad key '%s': bad offset '%s'", arg, ob);
		k->off = (size_t)v;
		p += 1 + ol;
	}
	if (*p == ':') {
		if (strcmp(p, ":r") != 0)
			die("bad key '%s': unknown modifier '%s'", arg, p);
	} else if (*p) {
		die("bad key '%s'", arg);
	}
	if (k->off + k->width > MAX_RECORD)
		die("bad key '%s': ends past the largest record size %zu", arg, MAX_RECORD);
	*next_off = k->off + k->width;
	k->bits = k->width >= 8 ? 64 : 8 * k->width;
}

/* COUNT or SIZE: decimal with optional K M G T suffix (x1024^n) */
static uint64_t parse_count(const char *opt, const char *s)
{
	char *end;
	if (*s < '0' || *s > '9')
		die("%s: bad number '%s'", opt, s);
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;
	if (errno)
		die("%s: bad number '%s'", opt, s);
	switch (*end) {
	case 0: break;
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	default: die("%s: bad number '%s'", opt, s);
	}
	if (*end && end[1])
		die("%s: bad number '%s'", opt, s);
	if (shift && v > (UINT64_MAX >> shift))
		die("%s: number too large '%s'", opt, s);
	return (uint64_t)v << shift;
}

/* ---------------------------------------------------------- distributions */

enum dist { D_UNIFORM, D_GAUSSIAN, D_ZIPF, D_SORTED, D_REVERSE, D_EQUAL,
	    D_BUCKET, D_STAGGERED, D_FEWUNIQUE };
static const char *const dist_names[] = { "uniform", "gaussian", "zipf",
	"sorted", "reverse", "equal", "bucket", "staggered", "fewunique" };

struct gen {
	enum dist dist;
	uint64_t n;
	uint64_t seed, seed_mix; /* seed_mix: payload, tails, zipf scramble */
	int specials, printable;
	/* sorted/reverse: p_i = floor(i * 2^64 / n) = i*q + i*r/n */
	uint64_t seq_q, seq_r;
	uint64_t seg;      /* records per random-stream segment */
	size_t recsize, nkeys, ngaps;
	int text;
	struct key keys[MAX_KEYS];
	size_t gaps[MAX_KEYS + 1][2]; /* payload: offset, length */
};

/* one generating thread's state */
struct ctx {
	struct rng rngs[MAX_KEYS]; /* one stream per key, reseeded per segment */
	uint64_t seq_p, seq_rem;
	uint64_t *P;               /* positions of one key for a unit */
	unsigned char *spec;       /* float specials of one key for a unit */
};

/* a*b = q*n + r; needs a*b < n*2^64 */
static void muldiv(uint64_t a, uint64_t b, uint64_t n, uint64_t *q, uint64_t *r)
{
	uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
	uint64_t lo = (mid << 32) | (p00 & 0xffffffffu);
	uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	uint64_t quot = 0;
	for (int k = 63; k >= 0; k--) {
		uint64_t top = hi >> 63;
		hi = (hi << 1) | ((lo >> k) & 1);
		quot <<= 1;
		if (top || hi >= n) {
			hi -= n;
			quot |= 1;
		}
	}
	*q = quot;
	*r = hi;
}

static void zipf_init(struct key *k)
{
	unsigned b = k->bits < 32 ? k->bits : 32;
	k->z_n = ldexp(1.0, (int)b);
	k->z_hn = dlog(k->z_n + 0.5);
	k->z_hx1 = dlog(1.5) - 1;
	k->z_sq = 2 - dexp(dlog(2.5) - 0.5);
}

/* Zipf rank in [1, N] with P(k) ~ 1/k (Hoermann & Derflinger rejection-inversion) */
static uint64_t zipf_rank(struct rng *r, const struct key *k)
{
	for (;;) {
		double u = k->z_hn + rng_unit(r) * (k->z_hx1 - k->z_hn);
		double x = dexp(u);
		double kk = (double)(int64_t)(x + 0.5); /* x < 2^33 */
		if (kk < 1)
			kk = 1;
		else if (kk > k->z_n)
			kk = k->z_n;
		if (kk - x <= k->z_sq || u >= dlog(kk + 0.5) - 1 / kk)
			return (uint64_t)(int64_t)kk;
	}
}

/* a bijection of [0, 2^b): spreads zipf ranks over the type's range */
static uint64_t scramble(uint64_t x, unsigned b, uint64_t salt)
{
	uint64_t mask = b >= 64 ? ~0ull : (1ull << b) - 1;
	unsigned s = (b + 1) / 2;
	x = (x ^ salt) & mask;
	x = (x * 0x9E3779B97F4A7C15ull) & mask;
	x ^= x >> s;
	x = (x * 0xBF58476D1CE4E5B9ull) & mask;
	x ^= x >> s;
	x = (x * 0x94D049BB133111EBull) & mask;
	x ^= x >> s;
	return x;
}

/*
 * Positions of key j for records i0 .. i0+m-1 into P (float specials into
 * spec).  Key j's random stream restarts at every SEG-record segment from
 * (seed, segment, j), so the output does not depend on the block size.
 */
static void fill_positions(const struct gen *g, struct ctx *c, size_t j,
			   uint64_t i0, size_t m)
{
	const struct key *k = &g->keys[j];
	struct rng *r = &c->rngs[j];
	uint64_t *P = c->P, SEG = g->seg;
	unsigned char *spec = c->spec;
	size_t a = 0;

	while (a < m) {
		uint64_t i = i0 + a;
		size_t b = m;
		if ((i0 + m - 1) / SEG != i / SEG)
			b = a + (size_t)(SEG - i % SEG);
		if (i % SEG == 0)
			rng_seed(r, g->seed_mix ^ (((i / SEG) << 6) | j));
		switch (g->dist) {
		case D_UNIFORM:
			if (g->specials && k->kind == K_F) {
				for (size_t t = a; t < b; t++) {
					uint64_t x = rng_next(r);
					spec[t] = 0;
					if ((x >> SPECIAL_SHIFT) == 0)
						spec[t] = (unsigned char)(1 + x % 6);
					P[t] = rng_next(r);
				}
			} else {
				for (size_t t = a; t < b; t++)
					P[t] = rng_next(r);
			}
			break;
		case D_GAUSSIAN: /* mean of four uniforms (Cederman & Tsigas) */
			for (size_t t = a; t < b; t++) {
				uint64_t x = rng_next(r) >> 2;
				x += rng_next(r) >> 2;
				x += rng_next(r) >> 2;
				P[t] = x + (rng_next(r) >> 2);
			}
			break;
		case D_ZIPF: {
			unsigned sh = 64 - k->bits;
			for (size_t t = a; t < b; t++) {
				uint64_t x = scramble(zipf_rank(r, k) - 1, k->bits, g->seed_mix);
				P[t] = sh ? x << sh : x;
			}
			break;
		}
		case D_SORTED:
		case D_REVERSE:
			for (size_t t = a; t < b; t++) {
				P[t] = g->dist == D_SORTED ? c->seq_p : ~c->seq_p;
				c->seq_p += g->seq_q;
				if ((c->seq_rem += g->seq_r) >= g->n) {
					c->seq_rem -= g->n;
					c->seq_p++;
				}
			}
			break;
		case D_EQUAL:
			for (size_t t = a; t < b; t++)
				P[t] = 1ull << 63;
			break;
		case D_BUCKET:
		case D_STAGGERED:
			/*
			 * bucket: block of n/p records, its q-th n/p^2 records in
			 * sub-range q; staggered: block c < p/2 in sub-range 2c+1,
			 * else in 2c-p (Dehne & Zaboli).  Runs of equal sub-range
			 * end where floor(i * parts / n) changes.
			 */
			for (size_t t = a; t < b;) {
				uint64_t parts = g->dist == D_BUCKET ? NBLK * NBLK : NBLK;
				uint64_t q = (i0 + t) * parts / g->n;
				uint64_t next = ((q + 1) * g->n + parts - 1) / parts; /* first i of q+1 */
				uint64_t sub = g->dist == D_BUCKET ? q % NBLK
					: q < NBLK / 2 ? 2 * q + 1 : 2 * q - NBLK;
				size_t e = next - i0 < b ? (size_t)(next - i0) : b;
				for (; t < e; t++)
					P[t] = (sub << 60) | (rng_next(r) >> 4);
			}
			break;
		case D_FEWUNIQUE: /* 16 values: the middles of 16 equal sub-ranges */
			for (size_t t = a; t < b; t++)
				P[t] = ((rng_next(r) >> 60) << 60) | (1ull << 59);
			break;
		}
		a = b;
	}
}

static inline double pos_to_double(uint64_t p)
{
	return ((double)(p >> 11) * 0x1p-52 - 1.0) * FLOAT_SCALE;
}

/* next base-95 digit of the fraction p / 2^64 (order preserving) */
static inline unsigned digit95(uint64_t *p)
{
	uint64_t hi = (*p >> 32) * 95, lo = (*p & 0xffffffffu) * 95;
	unsigned d = (unsigned)((hi + (lo >> 32)) >> 32);
	*p *= 95;
	return d;
}

static inline unsigned char printable(uint64_t byte)
{
	return (unsigned char)(' ' + (((byte & 0xff) * 95) >> 8));
}

static void fill_random(unsigned char *dst, size_t len, uint64_t state, int pr)
{
	while (len) {
		uint64_t w = splitmix64(&state);
		size_t m = len < 8 ? len : 8;
		for (size_t j = 0; j < m; j++, w >>= 8)
			dst[j] = pr ? printable(w) : (unsigned char)w;
		dst += m;
		len -= m;
	}
}

static uint64_t type_bits(const struct key *k, uint64_t p, int special)
{
	static const uint64_t f64s[] = { 0, 0x8000000000000000ull, 0,
		0x7ff0000000000000ull, 0xfff0000000000000ull,
		0x7ff8000000000000ull, 0xfff8000000000000ull };
	static const uint32_t f32s[] = { 0, 0x80000000u, 0, 0x7f800000u,
		0xff800000u, 0x7fc00000u, 0xffc00000u };
	unsigned sh = 64 - 8 * k->width;
	switch (k->kind) {
	case K_U:
		return p >> sh;
	case K_I:
		return (p >> sh) ^ (1ull << (8 * k->width - 1));
	case K_F:
		if (k->width == 4) {
			uint32_t b;
			if (special)
				return f32s[special];
			float f = (float)pos_to_double(p);
			memcpy(&b, &f, 4);
			return b;
		} else {
			uint64_t b;
			if (special)
				return f64s[special];
			double d = pos_to_double(p);
			memcpy(&b, &d, 8);
			return b;
		}
	case K_B:
		break;
	}
	return k->width >= 8 ? p : p >> sh;
}

static inline void write_field(const struct gen *g, const struct key *k,
			       unsigned char *dst, uint64_t p, int special)
{
	unsigned w = k->width;
	if (k->kind == K_B) {
		unsigned head;
		if (g->printable) {
			uint64_t q = p;
			head = w < 10 ? w : 10;
			for (unsigned j = 0; j < head; j++)
				dst[j] = (unsigned char)(' ' + digit95(&q));
		} else {
			head = w < 8 ? w : 8;
			for (unsigned j = 0; j < head; j++)
				dst[j] = (unsigned char)(p >> (56 - 8 * j));
		}
		if (w > head)
			fill_random(dst + head, w - head, p ^ g->seed_mix, g->printable);
		return;
	}
	if (g->printable) {
		uint64_t q = p;
		for (unsigned j = 0; j < w; j++)
			dst[k->be ? j : w - 1 - j] = (unsigned char)(' ' + digit95(&q));
		return;
	}
	uint64_t v = type_bits(k, p, special);
	if (k->be)
		for (unsigned j = 0; j < w; j++)
			dst[j] = (unsigned char)(v >> (8 * (w - 1 - j)));
	else
		for (unsigned j = 0; j < w; j++)
			dst[j] = (unsigned char)(v >> (8 * j));
}

static inline void put(unsigned char *d, uint64_t v, unsigned w, int be)
{
	if (be)
		for (unsigned j = 0; j < w; j++)
			d[j] = (unsigned char)(v >> (8 * (w - 1 - j)));
	else
		for (unsigned j = 0; j < w; j++)
			d[j] = (unsigned char)(v >> (8 * j));
}

#define PUT_LOOP(EXPR)                                                       \
	switch (k->width * 2 + (unsigned)k->be) {                            \
	case 2: case 3:                                                      \
		for (size_t t = 0; t < m; t++, d += R) put(d, EXPR, 1, 0);   \
		break;                                                       \
	case 4: for (size_t t = 0; t < m; t++, d += R) put(d, EXPR, 2, 0); break; \
	case 5: for (size_t t = 0; t < m; t++, d += R) put(d, EXPR, 2, 1); break; \
	case 8: for (size_t t = 0; t < m; t++, d += R) put(d, EXPR, 4, 0); break; \
	case 9: for (size_t t = 0; t < m; t++, d += R) put(d, EXPR, 4, 1); break; \
	case 16: for (size_t t = 0; t < m; t++, d += R) put(d, EXPR, 8, 0); break; \
	case 17: for (size_t t = 0; t < m; t++, d += R) put(d, EXPR, 8, 1); break; \
	}

static inline uint64_t f32_bits(uint64_t p)
{
	float f = (float)pos_to_double(p);
	uint32_t b;
	memcpy(&b, &f, 4);
	return b;
}

static inline uint64_t f64_bits(uint64_t p)
{
	double f = pos_to_double(p);
	uint64_t b;
	memcpy(&b, &f, 8);
	return b;
}

/* key k of m records (stride R, from base) from the positions P */
static void write_key(const struct gen *g, const struct key *k,
		      unsigned char *base, size_t R, size_t m,
		      const uint64_t *P, const unsigned char *spec)
{
	unsigned char *d = base + k->off;
	if (k->kind == K_B || g->printable || (g->specials && k->kind == K_F)) {
		for (size_t t = 0; t < m; t++, d += R)
			write_field(g, k, d, P[t], g->specials ? spec[t] : 0);
		return;
	}
	if (k->kind == K_F && k->width == 4) {
		PUT_LOOP(f32_bits(P[t]))
	} else if (k->kind == K_F) {
		PUT_LOOP(f64_bits(P[t]))
	} else {
		unsigned sh = 64 - 8 * k->width;
		uint64_t flip = k->kind == K_I ? 1ull << (8 * k->width - 1) : 0;
		PUT_LOOP((P[t] >> sh) ^ flip)
	}
}

/* the first key's value as a decimal line; returns its length */
static size_t text_value(const struct key *k, unsigned char *dst, uint64_t p,
			 int special)
{
	char tmp[40];
	uint64_t v;
	int neg = 0;
	if (k->kind == K_F) {
		double d;
		if (k->width == 4) {
			uint32_t b = (uint32_t)type_bits(k, p, special);
			float f;
			memcpy(&f, &b, 4);
			d = f;
		} else {
			v = type_bits(k, p, special);
			memcpy(&d, &v, 8);
		}
		int len = snprintf((char *)dst, 40, "%.17g\n", d);
		return (size_t)len;
	}
	v = type_bits(k, p, special);
	if (k->kind == K_I) {
		unsigned nb = 8 * k->width;
		if (v >> (nb - 1) & 1) { /* negative: two's complement magnitude */
			neg = 1;
			v = (nb == 64 ? 0 : (1ull << nb)) - v;
		}
	}
	size_t t = sizeof tmp;
	do {
		tmp[--t] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		tmp[--t] = '-';
	size_t len = sizeof tmp - t;
	memcpy(dst, tmp + t, len);
	dst[len] = '\n';
	return len + 1;
}

/* ----------------------------------------------------------- generation */

/* records i0 .. i0+m-1 (i0 at a segment start) into buf; returns the bytes */
static size_t gen_unit(const struct gen *g, struct ctx *c, uint64_t i0,
		       size_t m, unsigned char *buf)
{
	size_t R = g->recsize, len = 0;
	uint64_t q;
	muldiv(i0, g->seq_r, g->n, &q, &c->seq_rem);
	c->seq_p = i0 * g->seq_q + q;
	if (g->text) {
		fill_positions(g, c, 0, i0, m);
		for (size_t t = 0; t < m; t++)
			len += text_value(&g->keys[0], buf + len, c->P[t],
					  g->specials ? c->spec[t] : 0);
		return len;
	}
	if (g->ngaps)
		for (size_t t = 0; t < m; t++) {
			uint64_t st = g->seed_mix ^ ((i0 + t) * 0xD1B54A32D192ED03ull);
			for (size_t j = 0; j < g->ngaps; j++)
				fill_random(buf + t * R + g->gaps[j][0], g->gaps[j][1],
					    st + j * 0x9E3779B97F4A7C15ull, g->printable);
		}
	int shared = g->dist == D_SORTED || g->dist == D_REVERSE || g->dist == D_EQUAL;
	for (size_t j = 0; j < g->nkeys; j++) {
		if (j == 0 || !shared) /* sorted, reverse, equal: one value */
			fill_positions(g, c, j, i0, m);
		write_key(g, &g->keys[j], buf, R, m, c->P, c->spec);
	}
	if (g->printable)
		for (size_t t = 0; t < m; t++)
			buf[t * R + R - 1] = '\n';
	return m * R;
}

/* a thread's share of a batch: records [i0, i1) in units of u records */
struct job {
	const struct gen *g;
	struct ctx *c;
	uint64_t i0, i1;
	size_t u;
	unsigned char *buf;
	size_t len;
};

static void *run_job(void *arg)
{
	struct job *jb = arg;
	jb->len = 0;
	for (uint64_t i = jb->i0; i < jb->i1;) {
		size_t m = jb->i1 - i < jb->u ? (size_t)(jb->i1 - i) : jb->u;
		jb->len += gen_unit(jb->g, jb->c, i, m, jb->buf + jb->len);
		i += m;
	}
	return NULL;
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: gen -n COUNT [OPTION]...\n"
"Write COUNT fixed-width binary records of test data for gpusort (reproducible).\n"
"\n"
"  -n, --count=COUNT        number of records; suffix K, M, G, T = x1024^n\n"
"      --size=BYTES         instead of -n: total output bytes (a multiple of the\n"
"                           record size; suffix K, M, G, T)\n"
"      --record-size=R      record size in bytes (1..1048576);\n"
"                           default: the end of the furthest key\n"
"  -k, --key=TYPE[@OFFSET]  a key field, repeatable, as in gpusort: u8 u16 u32 u64\n"
"                           i8 i16 i32 i64 f32 f64 (little-endian), u16be u32be\n"
"                           u64be i16be i32be i64be f32be f64be, bytesN; OFFSET\n"
"                           defaults to the end of the previous key; ':r' is\n"
"                           accepted and ignored. No -k: one bytesR key covering\n"
"                           the record (bytes(R-1) with --printable)\n"
"  -d, --dist=NAME          key distribution (default uniform):\n"
"                             uniform    uniform over the type's range\n"
"                             gaussian   mean of four uniforms\n"
"                             zipf       P(rank k) ~ 1/k over min(2^bits, 2^32)\n"
"                                        ranks, scattered over the type's range\n"
"                             sorted     ascending (every key; ties on a narrow\n"
"                                        first key are ascending in later keys)\n"
"                             reverse    descending\n"
"                             equal      all keys equal\n"
"                             bucket     16 blocks; in each, 16 runs of n/256\n"
"                                        records, run j uniform in sub-range j\n"
"                                        of the 16 equal sub-ranges of the type\n"
"                             staggered  16 blocks; block b uniform in sub-range\n"
"                                        2b+1 (b < 8) or 2b-16 (b >= 8)\n"
"                             fewunique  16 distinct values\n"
"                           later keys are independent draws (sorted, reverse,\n"
"                           equal: the same value)\n"
"  -s, --seed=S             PRNG seed, 0..2^64-1 (default 1)\n"
"  -f, --format=FMT         bin (default); text: the first key's value as one\n"
"                           decimal line per record (floats %%.17g), for sort -n;\n"
"                           lines: bin with --printable\n"
"      --printable          every byte printable ASCII (' '..'~'), the last byte\n"
"                           of each record '\\n' (keys keep their order)\n"
"      --specials           with --dist uniform: 1 in 1024 float key values is\n"
"                           -0.0, +0.0, +inf, -inf, NaN or -NaN\n"
"  -o, --output=FILE        write to FILE (default: standard output)\n"
"  -j, --threads=N          generating threads, 1..64 (default: online CPUs);\n"
"                           the output does not depend on N\n"
"  -h, --help               show this help and exit\n"
"\n"
"Integers cover their whole range (signed ones include negatives); floats are\n"
"spread over [-1e9, 1e9]. Bytes outside the keys are pseudo-random payload\n"
"derived from the seed and the record number. Same arguments and seed give the\n"
"same bytes on any machine. Exit status: 0 success, 2 error.\n");
}

int main(int argc, char **argv)
{
	enum { O_RECSIZE = 256, O_PRINTABLE, O_SPECIALS, O_SIZE };
	static const struct option longopts[] = {
		{"count", required_argument, 0, 'n'},
		{"size", required_argument, 0, O_SIZE},
		{"record-size", required_argument, 0, O_RECSIZE},
		{"key", required_argument, 0, 'k'},
		{"dist", required_argument, 0, 'd'},
		{"seed", required_argument, 0, 's'},
		{"format", required_argument, 0, 'f'},
		{"printable", no_argument, 0, O_PRINTABLE},
		{"specials", no_argument, 0, O_SPECIALS},
		{"output", required_argument, 0, 'o'},
		{"threads", required_argument, 0, 'j'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	static struct gen g;
	uint64_t n = 0, size = 0, v;
	int have_n = 0, have_size = 0, text = 0, c;
	size_t recsize = 0, next_off = 0;
	const char *out = NULL;
	uint64_t seed = 1;
	unsigned threads = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:k:d:s:f:o:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = parse_count("-n", optarg);
			have_n = 1;
			break;
		case O_SIZE:
			size = parse_count("--size", optarg);
			have_size = 1;
			break;
		case O_RECSIZE:
			if (parse_uint(optarg, MAX_RECORD, &v) || v == 0)
				die("--record-size: '%s' is not in 1..%zu", optarg, MAX_RECORD);
			recsize = (size_t)v;
			break;
		case 'k':
			if (g.nkeys == MAX_KEYS)
				die("too many keys (at most %d)", MAX_KEYS);
			parse_key(optarg, &g.keys[g.nkeys++], &next_off);
			break;
		case 'd': {
			size_t i;
			for (i = 0; i < sizeof dist_names / sizeof dist_names[0]; i++)
				if (strcmp(optarg, dist_names[i]) == 0)
					break;
			if (i == sizeof dist_names / sizeof dist_names[0])
				die("--dist: unknown distribution '%s' (uniform, gaussian, zipf, sorted, reverse, equal, bucket, staggered, fewunique)", optarg);
			g.dist = (enum dist)i;
			break;
		}
		case 's':
			if (parse_uint(optarg, UINT64_MAX, &seed))
				die("--seed: bad number '%s'", optarg);
			break;
		case 'f':
			if (strcmp(optarg, "bin") == 0)
				text = 0;
			else if (strcmp(optarg, "text") == 0)
				text = 1;
			else if (strcmp(optarg, "lines") == 0)
				text = 0, g.printable = 1;
			else
				die("--format: unknown format '%s' (bin, text, lines)", optarg);
			break;
		case O_PRINTABLE:
			g.printable = 1;
			break;
		case O_SPECIALS:
			g.specials = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'j':
			if (parse_uint(optarg, MAX_THREADS, &v) || v == 0)
				die("--threads: '%s' is not in 1..%d", optarg, MAX_THREADS);
			threads = (unsigned)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			die("option '%s' needs an argument (try --help)", argv[optind - 1]);
		default:
			if (optopt)
				die("unknown option '-%c' (try --help)", optopt);
			die("unknown option '%s' (try --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s' (try --help)", argv[optind]);

	if (!have_n && !have_size)
		die("-n COUNT is needed (try --help)");

	/* keys and record size */
	size_t end = 0;
	for (size_t i = 0; i < g.nkeys; i++)
		if (g.keys[i].off + g.keys[i].width > end)
			end = g.keys[i].off + g.keys[i].width;
	if (g.nkeys == 0) {
		if (!recsize)
			die("no -k: --record-size is needed");
		if (g.printable && recsize == 1)
			die("--printable: the record of 1 byte holds only the newline; give a key or a larger --record-size");
		struct key *k = &g.keys[g.nkeys++];
		memset(k, 0, sizeof *k);
		k->kind = K_B;
		k->width = (unsigned)(g.printable ? recsize - 1 : recsize);
		k->be = 1;
		k->bits = k->width >= 8 ? 64 : 8 * k->width;
		end = k->width;
	}
	if (!recsize)
		recsize = end;
	if (end > recsize)
		die("--record-size %zu: the keys end at byte %zu", recsize, end);
	if (g.printable && !text)
		for (size_t i = 0; i < g.nkeys; i++)
			if (g.keys[i].off + g.keys[i].width == recsize)
				die("--printable: the last byte of the record is the newline; no key may cover it (use --record-size %zu)", recsize + 1);
	if (g.specials && g.dist != D_UNIFORM)
		die("--specials needs --dist uniform");
	if (g.specials && g.printable)
		die("--specials and --printable do not mix");
	if (text && g.printable)
		die("--format text and --printable do not mix");
	if (text && g.keys[0].kind == K_B && g.keys[0].width > 8)
		die("--format text: the first key must be numeric or bytesN with N <= 8");

	/* count */
	if (have_n && have_size)
		die("give -n or --size, not both");
	if (have_size) {
		if (size % recsize)
			die("--size %" PRIu64 " is not a multiple of the record size %zu", size, recsize);
		n = size / recsize;
	}
	if (n > MAX_COUNT || n > (UINT64_MAX >> 1) / recsize)
		die("-n %" PRIu64 ": too many records", n);

	if (!threads) {
		long nc = sysconf(_SC_NPROCESSORS_ONLN);
		threads = nc < 1 ? 1 : nc > MAX_THREADS ? MAX_THREADS : (unsigned)nc;
	}

	/* generator state */
	dmath_init();
	g.n = n;
	g.seed = seed;
	g.recsize = recsize;
	g.text = text;
	{
		uint64_t x = seed ^ 0x5851F42D4C957F2Dull;
		g.seed_mix = splitmix64(&x);
	}
	for (size_t i = 0; i < g.nkeys; i++)
		if (g.dist == D_ZIPF)
			zipf_init(&g.keys[i]);
	if (n > 1) { /* 2^64 = q*n + r */
		g.seq_q = UINT64_MAX / n;
		g.seq_r = UINT64_MAX % n + 1;
		if (g.seq_r == n) {
			g.seq_q++;
			g.seq_r = 0;
		}
	}
	/* segment: a power of two <= 64Ki records of at most 4 MiB */
	g.seg = MAX_SEG;
	while (g.seg > 1 && g.seg * recsize > BLOCK_BYTES)
		g.seg /= 2;

	/* payload: the gaps between keys */
	{
		unsigned char *cov = calloc(recsize, 1);
		if (!cov)
			die("out of memory");
		for (size_t i = 0; i < g.nkeys; i++)
			memset(cov + g.keys[i].off, 1, g.keys[i].width);
		size_t limit = g.printable ? recsize - 1 : recsize;
		for (size_t b = 0; b < limit;) {
			if (cov[b]) {
				b++;
				continue;
			}
			size_t e = b;
			while (e < limit && !cov[e])
				e++;
			g.gaps[g.ngaps][0] = b;
			g.gaps[g.ngaps][1] = e - b;
			g.ngaps++;
			b = e;
		}
		free(cov);
	}

	FILE *f = stdout;
	const char *fname = out ? out : "standard output";
	if (out && !(f = fopen(out, "wb")))
		die("%s: %s", out, strerror(errno));

	/*
	 * Work: units of whole segments (at most MAX_UNIT records); each thread
	 * makes k consecutive units (about 2 MiB) of a batch into its slot;
	 * batch b+1 is made while batch b is written.
	 */
	size_t per = text ? 40 : recsize;
	size_t u = (size_t)g.seg;
	while (u * 2 <= MAX_UNIT && u * 2 * per <= BLOCK_BYTES)
		u *= 2;
	size_t k = ((size_t)2 << 20) / (u * per);
	if (k == 0)
		k = 1;
	uint64_t span = (uint64_t)k * u; /* records per thread per batch */
	if (threads > 1 && (uint64_t)threads > (n + span - 1) / span)
		threads = n ? (unsigned)((n + span - 1) / span) : 1;
	struct ctx *ctx = calloc(threads, sizeof *ctx);
	struct job *jobs = calloc(2 * (size_t)threads, sizeof *jobs);
	pthread_t *tid = calloc(threads, sizeof *tid);
	if (!ctx || !jobs || !tid)
		die("out of memory");
	for (unsigned t = 0; t < threads; t++) {
		ctx[t].P = malloc(u * sizeof *ctx[t].P);
		ctx[t].spec = malloc(u);
		for (int set = 0; set < (threads > 1 ? 2 : 1); set++) {
			struct job *jb = &jobs[set * threads + t];
			jb->g = &g;
			jb->c = &ctx[t];
			jb->u = u;
			jb->buf = malloc(span * per);
			if (!jb->buf)
				die("out of memory");
		}
		if (!ctx[t].P || !ctx[t].spec)
			die("out of memory");
	}

	if (threads == 1) {
		for (uint64_t i = 0; i < n; i += span) {
			jobs[0].i0 = i;
			jobs[0].i1 = n - i < span ? n : i + span;
			run_job(&jobs[0]);
			if (fwrite(jobs[0].buf, 1, jobs[0].len, f) != jobs[0].len)
				die("%s: write error: %s", fname, strerror(errno));
		}
	} else {
		uint64_t batch = span * threads, nb = (n + batch - 1) / batch;
		for (uint64_t b = 0; b <= nb; b++) {
			/* start batch b, write batch b-1, wait for batch b */
			struct job *cur = &jobs[(b % 2) * threads];
			struct job *prev = &jobs[((b + 1) % 2) * threads];
			if (b < nb)
				for (unsigned t = 0; t < threads; t++) {
					uint64_t i0 = b * batch + t * span;
					cur[t].i0 = i0 < n ? i0 : n;
					cur[t].i1 = n - cur[t].i0 < span ? n : cur[t].i0 + span;
					if ((errno = pthread_create(&tid[t], NULL, run_job, &cur[t])))
						die("cannot start a thread: %s", strerror(errno));
				}
			if (b > 0)
				for (unsigned t = 0; t < threads; t++)
					if (prev[t].len && fwrite(prev[t].buf, 1, prev[t].len, f) != prev[t].len)
						die("%s: write error: %s", fname, strerror(errno));
			if (b < nb)
				for (unsigned t = 0; t < threads; t++)
					pthread_join(tid[t], NULL);
		}
	}
	for (unsigned t = 0; t < threads; t++) {
		free(ctx[t].P);
		free(ctx[t].spec);
		free(jobs[t].buf);
		if (threads > 1)
			free(jobs[threads + t].buf);
	}
	free(ctx);
	free(jobs);
	free(tid);
	if (fflush(f) || ferror(f))
		die("%s: write error: %s", fname, strerror(errno));
	if (out && fclose(f))
		die("%s: write error: %s", out, strerror(errno));
	return 0;
}
