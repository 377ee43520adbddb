/* test_keys.c - key parsing and normalization against values compared directly. */
#include "keys.h"
#include "unit.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static keys_spec spec1(const char *k, int reverse)
{
	keys_spec s;
	char msg[256];
	memset(&s, 0, sizeof s);
	if (keys_parse(k, 0, &s.f[0], msg, sizeof msg) == 0) {
		s.n = 1;
		keys_finish(&s, 0, reverse, msg, sizeof msg);
	}
	return s;
}

/* Parse up to max -k arguments (NULL ends them) into s, each key's default
 * offset the end of the one before. Returns 0, or -1 with msg set. */
static int parse_keys(keys_spec *s, const char *const *k, int max, char *msg, size_t msglen)
{
	memset(s, 0, sizeof *s);
	for (uint32_t off = 0; s->n < max && k[s->n]; s->n++) {
		if (keys_parse(k[s->n], off, &s->f[s->n], msg, msglen))
			return -1;
		off = s->f[s->n].offset + s->f[s->n].width;
	}
	return 0;
}

/* 16 random bytes. */
static void rand16(uint8_t r[16], unsigned long long *seed)
{
	for (int b = 0; b < 16; b += 8) {
		uint64_t x = unit_rand(seed);
		memcpy(r + b, &x, 8);
	}
}

/* A key spec case: -k arguments (NULL-ended), --record-size (0: the
 * keys'), -r, and what the function under test should say of it. */
typedef struct spec_case {
	const char *k[3];
	uint32_t rs;
	int reverse, want;
} spec_case;

/* Case c parsed and finished into *s; 0, or -1 with the reason in msg. */
static int spec_of(keys_spec *s, const spec_case *c, char *msg, size_t msglen)
{
	return parse_keys(s, c->k, 3, msg, msglen) || keys_finish(s, c->rs, c->reverse, msg, msglen) ? -1 : 0;
}

static int sign(int x) { return (x > 0) - (x < 0); }

/* memcmp of normalized keys must equal the order of the values */
static int ncmp(const keys_spec *s, const void *a, const void *b)
{
	uint8_t x[64], y[64];
	keys_normalize(s, a, x);
	keys_normalize(s, b, y);
	return sign(memcmp(x, y, s->key_width));
}

static int dcmp(double a, double b)
{
	/* total order reference: sign, then magnitude class, written out by hand */
	int na = signbit(a) != 0, nb = signbit(b) != 0;
	if (na != nb)
		return na ? -1 : 1;
	int r;
	if (isnan(a) || isnan(b))
		r = isnan(a) && isnan(b) ? 0 : isnan(a) ? 1 : -1;
	else
		r = fabs(a) < fabs(b) ? -1 : fabs(a) > fabs(b);
	return na ? -r : r;
}

int main(void)
{
	TEST_BEGIN("keys/parse") {
		keys_field f;
		char m[256];
		CHECK(keys_parse("u32", 0, &f, m, sizeof m) == 0 && f.width == 4 && f.kind == KEYS_UINT, "u32");
		CHECK(keys_parse("i64be@8:r", 0, &f, m, sizeof m) == 0 && f.width == 8 && f.big_endian &&
		      f.descending && f.offset == 8 && f.kind == KEYS_SINT, "i64be@8:r");
		CHECK(keys_parse("bytes10@3", 0, &f, m, sizeof m) == 0 && f.width == 10 && f.offset == 3, "bytes10");
		CHECK(keys_parse("f64", 12, &f, m, sizeof m) == 0 && f.offset == 12, "default offset");
		CHECK(keys_parse("u31", 0, &f, m, sizeof m) != 0 && strstr(m, "u31"), "u31 rejected: %s", m);
		CHECK(keys_parse("u8be", 0, &f, m, sizeof m) != 0, "u8be rejected");
		CHECK(keys_parse("bytes0", 0, &f, m, sizeof m) != 0, "bytes0 rejected");
		CHECK(keys_parse("u32@x", 0, &f, m, sizeof m) != 0, "bad offset rejected");
		CHECK(keys_parse("u32:q", 0, &f, m, sizeof m) != 0, "bad modifier rejected");
		CHECK(keys_parse("u32@4:r:r", 0, &f, m, sizeof m) != 0, "trailing junk rejected");
	} TEST_END();

	TEST_BEGIN("keys/finish") {
		keys_spec s;
		char m[256];
		memset(&s, 0, sizeof s);
		keys_parse("u64@12", 0, &s.f[0], m, sizeof m);
		s.n = 1;
		CHECK(keys_finish(&s, 16, 0, m, sizeof m) != 0 && strstr(m, "beyond"), "key beyond record: %s", m);
		memset(&s, 0, sizeof s);
		CHECK(keys_finish(&s, 0, 0, m, sizeof m) != 0, "no size, no key");
		memset(&s, 0, sizeof s);
		CHECK(keys_finish(&s, 7, 0, m, sizeof m) == 0 && s.key_only && s.key_width == 7, "whole record");
		s = spec1("u32", 0);
		CHECK(s.record_size == 4 && s.key_only, "record size defaults to key end");
	} TEST_END();

	TEST_BEGIN("keys/unsigned-and-signed") {
		unsigned long long seed = 1;
		const char *types[] = { "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64" };
		for (int t = 0; t < 8; t++) {
			for (int rev = 0; rev < 2; rev++) {
				keys_spec s = spec1(types[t], rev);
				int w = (int)s.f[0].width, sg = types[t][0] == 'i';
				for (int i = 0; i < 2000; i++) {
					uint64_t a = unit_rand(&seed), b = i % 7 ? unit_rand(&seed) : a;
					if (i % 11 == 0) a = 0;
					if (i % 13 == 0) b = ~0ull;
					uint8_t ra[8], rb[8];
					memcpy(ra, &a, 8);
					memcpy(rb, &b, 8);
					int64_t va, vb;
					uint64_t ua = 0, ub = 0;
					memcpy(&ua, ra, (size_t)w);
					memcpy(&ub, rb, (size_t)w);
					int shift = 64 - 8 * w;
					va = (int64_t)(ua << shift) >> shift;
					vb = (int64_t)(ub << shift) >> shift;
					int want = sg ? (va < vb ? -1 : va > vb) : (ua < ub ? -1 : ua > ub);
					if (rev)
						want = -want;
					CHECK(ncmp(&s, ra, rb) == want, "%s%s a=%llx b=%llx", types[t], rev ? " -r" : "",
					      (unsigned long long)ua, (unsigned long long)ub);
					CHECK(sign(keys_compare(&s, ra, rb)) == want, "keys_compare %s", types[t]);
				}
			}
		}
	} TEST_END();

	TEST_BEGIN("keys/big-endian") {
		keys_spec s = spec1("i32be", 0);
		uint8_t a[4] = { 0xff, 0xff, 0xff, 0xfe }, b[4] = { 0x00, 0x00, 0x00, 0x01 }; /* -2, 1 */
		CHECK(ncmp(&s, a, b) < 0, "-2 < 1 big-endian");
		s = spec1("u16be", 0);
		uint8_t c[2] = { 0x01, 0x00 }, d[2] = { 0x00, 0xff }; /* 256, 255 */
		CHECK(ncmp(&s, c, d) > 0, "256 > 255");
	} TEST_END();

	TEST_BEGIN("keys/floats-total-order") {
		double v[] = { -NAN, -INFINITY, -1e300, -1.5, -5e-324, -0.0, 0.0, 5e-324, 1.0, 2.5, 1e300,
			       INFINITY, NAN };
		int nv = (int)(sizeof v / sizeof v[0]);
		keys_spec s64 = spec1("f64", 0), s32 = spec1("f32", 0), r64 = spec1("f64:r", 0);
		keys_spec b64 = spec1("f64be", 0);
		for (int i = 0; i < nv; i++) {
			for (int j = 0; j < nv; j++) {
				int want = dcmp(v[i], v[j]);
				CHECK(ncmp(&s64, &v[i], &v[j]) == want, "f64 %g vs %g", v[i], v[j]);
				CHECK(ncmp(&r64, &v[i], &v[j]) == -want, "f64:r %g vs %g", v[i], v[j]);
				float fi = (float)v[i], fj = (float)v[j];
				CHECK(ncmp(&s32, &fi, &fj) == dcmp(fi, fj), "f32 %g vs %g", fi, fj);
				uint8_t bi[8], bj[8];
				for (int k = 0; k < 8; k++) {
					bi[k] = ((uint8_t *)&v[i])[7 - k];
					bj[k] = ((uint8_t *)&v[j])[7 - k];
				}
				CHECK(ncmp(&b64, bi, bj) == want, "f64be %g vs %g", v[i], v[j]);
			}
		}
		CHECK(ncmp(&s64, &v[5], &v[6]) < 0, "-0.0 < +0.0");
	} TEST_END();

	TEST_BEGIN("keys/bytes-and-multi") {
		keys_spec s;
		char m[256];
		memset(&s, 0, sizeof s);
		keys_parse("u16@2", 0, &s.f[0], m, sizeof m);
		keys_parse("bytes2@0:r", 4, &s.f[1], m, sizeof m);
		s.n = 2;
		CHECK(keys_finish(&s, 6, 0, m, sizeof m) == 0 && s.key_width == 4 && !s.key_only, "finish");
		uint8_t a[6] = { 'a', 'b', 1, 0, 9, 9 }, b[6] = { 'a', 'c', 1, 0, 0, 0 }, c[6] = { 'z', 'z', 0, 1, 0, 0 };
		CHECK(ncmp(&s, a, b) > 0, "tie on u16, bytes descending");
		CHECK(ncmp(&s, c, a) > 0, "u16 decides first");
		CHECK(keys_compare(&s, a, a) == 0, "equal keys tie (payload ignored)");
		uint8_t d[6] = { 'a', 'b', 1, 0, 0, 0 };
		CHECK(ncmp(&s, a, d) == 0 && keys_compare(&s, a, d) == 0, "payload bytes do not count");
	} TEST_END();

	TEST_BEGIN("keys/encode-decode-roundtrip") {
		const char *types[] = { "u8", "u16", "i32", "i64:r", "f32", "f64", "f64be:r", "u32be", "bytes5:r" };
		unsigned long long seed = 7;
		for (int t = 0; t < 9; t++) {
			keys_spec s = spec1(types[t], t % 2);
			for (int i = 0; i < 500; i++) {
				uint8_t r[8], o[8];
				uint64_t x = unit_rand(&seed);
				memcpy(r, &x, 8);
				memcpy(o, r, 8);
				keys_encode_inplace(&s, r);
				uint8_t want[8];
				keys_normalize(&s, o, want);
				CHECK(!memcmp(r, want, s.record_size), "%s encode = normalize", types[t]);
				keys_decode_inplace(&s, r);
				CHECK(!memcmp(r, o, s.record_size), "%s decode(encode(x)) = x", types[t]);
			}
		}
	} TEST_END();

	TEST_BEGIN("keys/inplace-several-keys") {
		/* keys that cover the record, in any order: encode = normalize, decode undoes it;
		 * a gap, an overlap or a record over KEYS_INPLACE_MAX is refused */
		static const char *const layouts[][4] = {
			{ "u32", "u32" },		 { "u32@4", "u32@0:r" },      { "i16", "f32:r", "u16be" },
			{ "u64", "bytes8:r" },	 { "f64be:r", "i8", "bytes7@9" }, { "u8@2", "i16@0", "f32be@3:r" },
			{ "u16", "i16be:r" },	 { "u8@3", "bytes2@0:r", "i8@2" }, { "f32@4", "i16be@0", "bytes2@2" },
		};
		static const char *const refused[][3] = {
			{ "u32@0", "u16@6" },   /* a gap: bytes 4-5 in no key */
			{ "u32@0", "u32@2" },   /* an overlap, the widths summing to the record's */
			{ "u32@0", "bytes4@0" } /* bytes 0-3 in two keys, 4-7 in none */
		};
		unsigned long long seed = 23;
		char m[256];
		for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
			keys_spec s;
			CHECK(parse_keys(&s, layouts[l], 4, m, sizeof m) == 0, "parse layout %zu: %s", l, m);
			CHECK(keys_finish(&s, 0, l % 2, m, sizeof m) == 0, "finish layout %zu", l);
			CHECK(keys_inplace(&s) && !s.key_only, "layout %zu is in place", l);
			for (int i = 0; i < 2000; i++) {
				uint8_t r[16], o[16], want[16];
				rand16(r, &seed);
				memcpy(o, r, 16);
				keys_encode_inplace(&s, r);
				keys_normalize(&s, o, want);
				CHECK(!memcmp(r, want, s.record_size), "layout %zu: encode = normalize", l);
				keys_decode_inplace(&s, r);
				CHECK(!memcmp(r, o, s.record_size), "layout %zu: decode(encode(x)) = x", l);
				keys_word w;
				if (keys_word_init(&s, &w) != 0) {
					CHECK(s.record_size != 4 && s.record_size != 8, "layout %zu has a word", l);
					continue;
				}
				/* the word is the normalized key read big-endian */
				uint64_t raw = 0, key = 0;
				memcpy(&raw, o, s.record_size);
				for (uint32_t b = 0; b < s.record_size; b++)
					key = key << 8 | want[b];
				CHECK(keys_word_enc(&w, raw) == key, "layout %zu: word = normalized key", l);
				CHECK(keys_word_dec(&w, key) == raw, "layout %zu: dec(enc(x)) = x", l);
			}
		}
		for (size_t l = 0; l < sizeof refused / sizeof refused[0]; l++) {
			keys_spec s;
			memset(&s, 0, sizeof s);
			for (int i = 0; i < 2 && refused[l][i]; i++, s.n++)
				CHECK(keys_parse(refused[l][i], 0, &s.f[i], m, sizeof m) == 0, "parse %s", refused[l][i]);
			CHECK(keys_finish(&s, 8, 0, m, sizeof m) == 0 && !keys_inplace(&s), "layout %zu refused", l);
		}
		keys_spec big;
		memset(&big, 0, sizeof big);
		for (uint32_t i = 0; i < 9; i++, big.n++) /* 72 bytes: over KEYS_INPLACE_MAX */
			CHECK(keys_parse("u64", i * 8, &big.f[i], m, sizeof m) == 0, "parse u64");
		CHECK(keys_finish(&big, 0, 0, m, sizeof m) == 0 && !keys_inplace(&big), "72-byte record refused");
		big.n = 8;
		CHECK(keys_finish(&big, 0, 0, m, sizeof m) == 0 && keys_inplace(&big), "64-byte record taken");
	} TEST_END();

	TEST_BEGIN("keys/prefix-cover") {
		/* keys that cover the record's first key_width bytes, a payload after
		 * them: encode = normalize on those bytes, the payload untouched,
		 * decode undoes it; a key not at the start, a gap, an overlap, keys
		 * that cover the whole record (keys_inplace instead) are refused */
		static const struct { const char *k[4]; uint32_t R; } layouts[] = {
			{ { "u64", "i32:r" }, 16 }, { { "u32" }, 8 },		     { { "i16@2", "u16@0:r" }, 7 },
			{ { "f64:r" }, 12 },	    { { "bytes3:r", "u8" }, 5 },      { { "u8@2", "i16@0", "f32be@3:r" }, 16 },
			{ { "bytes10" }, 11 },	    { { "i64be", "f32", "u8" }, 64 },
		};
		static const struct { const char *k[3]; uint32_t R; } refused[] = {
			{ { "u32@4" }, 8 },	       /* the key after a payload */
			{ { "u32@0", "u16@6" }, 12 },  /* a gap: bytes 4-5 in no key */
			{ { "u32@0", "u32@2" }, 12 },  /* an overlap */
			{ { "u32", "u32" }, 8 },       /* the whole record: keys_inplace */
			{ { "u64" }, 72 },	       /* over KEYS_INPLACE_MAX */
		};
		unsigned long long seed = 29;
		char m[256];
		for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
			keys_spec s;
			CHECK(parse_keys(&s, layouts[l].k, 4, m, sizeof m) == 0, "parse layout %zu: %s", l, m);
			CHECK(keys_finish(&s, layouts[l].R, 0, m, sizeof m) == 0, "finish layout %zu: %s", l, m);
			CHECK(keys_prefix_cover(&s) && !keys_inplace(&s), "layout %zu: a prefix cover", l);
			for (int i = 0; i < 500; i++) {
				uint8_t r[64], o[64], want[64];
				for (int b = 0; b < 64; b += 16)
					rand16(r + b, &seed);
				memcpy(o, r, 64);
				keys_encode_inplace(&s, r);
				keys_normalize(&s, o, want);
				CHECK(!memcmp(r, want, s.key_width), "layout %zu: encode = normalize", l);
				CHECK(!memcmp(r + s.key_width, o + s.key_width, 64 - s.key_width),
				      "layout %zu: the payload untouched", l);
				keys_decode_inplace(&s, r);
				CHECK(!memcmp(r, o, 64), "layout %zu: decode(encode(x)) = x", l);
			}
		}
		for (size_t l = 0; l < sizeof refused / sizeof refused[0]; l++) {
			keys_spec s;
			CHECK(parse_keys(&s, refused[l].k, 3, m, sizeof m) == 0, "parse refused %zu: %s", l, m);
			CHECK(keys_finish(&s, refused[l].R, 0, m, sizeof m) == 0, "finish refused %zu: %s", l, m);
			CHECK(!keys_prefix_cover(&s), "refused layout %zu", l);
		}
	} TEST_END();

	TEST_BEGIN("keys/count-order") {
		/* records of 1-2 bytes that are their keys: order[] lists every
		 * value once, each before the next by keys_compare, the reference
		 * comparison of field values; wider or uncovered records refused */
		static const spec_case cases[] = {
			{ { "u16" }, 0, 0, 0 },	     { { "i16" }, 0, 1, 0 },	   { { "u16be:r" }, 0, 0, 0 },
			{ { "i16be" }, 0, 0, 0 },    { { "u8", "i8:r" }, 0, 0, 0 }, { { "i8@1", "u8@0" }, 0, 0, 0 },
			{ { NULL }, 2, 0, 0 },	     { { "bytes2:r" }, 0, 0, 0 },   { { "u8" }, 0, 0, 0 },
			{ { "i8:r" }, 0, 0, 0 },     { { NULL }, 1, 1, 0 },	   { { "u8" }, 2, 0, -1 },
			{ { "bytes3" }, 0, 0, -1 },  { { "u32" }, 0, 0, -1 },
		};
		static uint32_t order[1 << 16];
		static uint8_t seen[1 << 16];
		char m[256];
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			keys_spec s;
			CHECK(spec_of(&s, &cases[c], m, sizeof m) == 0, "case %zu: %s", c, m);
			int rc = keys_count_order(&s, order);
			CHECK(rc == cases[c].want, "case %zu: %d, want %d", c, rc, cases[c].want);
			if (rc)
				continue;
			uint32_t V = 1u << (8 * s.record_size), dup = 0, bad = 0;
			memset(seen, 0, sizeof seen);
			for (uint32_t k = 0; k < V; k++) {
				dup += order[k] >= V || seen[order[k]]++;
				if (k + 1 < V) {
					uint8_t a[2] = { (uint8_t)order[k], (uint8_t)(order[k] >> 8) };
					uint8_t b[2] = { (uint8_t)order[k + 1], (uint8_t)(order[k + 1] >> 8) };
					bad += keys_compare(&s, a, b) >= 0;
				}
			}
			CHECK(!dup && !bad, "case %zu: %u values repeated or out of range, %u pairs out of order", c, dup, bad);
		}
	} TEST_END();

	TEST_BEGIN("keys/inplace-identity") {
		/* records that are their normalized keys: ascending bytesN, u8 and
		 * big-endian unsigned keys that cover the record in its order (or no
		 * -k); encoding then changes no byte, and wherever it can change one
		 * the predicate says 0 */
		static const spec_case cases[] = {
			{ { NULL }, 16, 0, 1 },		      { { NULL }, 16, 1, 0 },
			{ { NULL }, 1, 0, 1 },		      { { "bytes8", "bytes8" }, 0, 0, 1 },
			{ { "bytes3", "bytes5" }, 0, 0, 1 },  { { "bytes8@8", "bytes8@0" }, 0, 0, 0 },
			{ { "bytes16:r" }, 0, 0, 0 },	      { { "bytes8", "bytes8:r" }, 0, 0, 0 },
			{ { "u32" }, 0, 0, 0 },		      { { "u8", "bytes3" }, 0, 0, 1 },
			{ { "u32be", "u16be" }, 0, 0, 1 },    { { "u16be:r" }, 0, 0, 0 },
			{ { "i8", "bytes3" }, 0, 0, 0 },      { { "u16" }, 0, 0, 0 },
			{ { "bytes4" }, 8, 0, 0 },
		};
		unsigned long long seed = 29;
		char m[256];
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			keys_spec s;
			CHECK(spec_of(&s, &cases[c], m, sizeof m) == 0, "case %zu: %s", c, m);
			int id = keys_inplace_identity(&s);
			CHECK(id == cases[c].want, "case %zu: identity %d, want %d", c, id, cases[c].want);
			if (!keys_inplace(&s))
				continue;
			int changed = 0;
			for (int i = 0; i < 100; i++) {
				uint8_t r[16], o[16];
				rand16(r, &seed);
				memcpy(o, r, 16);
				keys_encode_inplace(&s, r);
				changed |= memcmp(r, o, s.record_size) != 0;
			}
			CHECK(changed == !id, "case %zu: encoding %s bytes, identity says %d", c,
			      changed ? "changed" : "kept", id);
		}
	} TEST_END();

	TEST_BEGIN("keys/native") {
		/* the native integer is the normalized key read big-endian, and dec(enc(x)) = x,
		 * for every type of width 4 and 8 (specials included: +-0, +-inf, NaNs, extremes) */
		const char *types[] = { "u32", "i32", "f32", "u32be", "i32be", "f32be", "bytes4", "u64", "i64",
					"f64", "u64be", "i64be", "f64be", "bytes8" };
		const uint64_t special[] = { 0, 1, 0x80000000u, 0x7fffffffu, 0xffffffffu, 0x7f800000u, 0xff800000u,
					     0x7fc00001u, 0xffc00000u, 0x8000000000000000ull, 0x7fffffffffffffffull,
					     ~0ull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000001ull,
					     0xfff8000000000000ull, 0x8000000000000001ull };
		unsigned long long seed = 11;
		keys_native k;
		keys_spec u16 = spec1("u16", 0), two = spec1("u32", 0);
		CHECK(keys_native_init(&u16, &k) != 0, "u16 has no native form here");
		two.n = 2;
		two.f[1] = two.f[0];
		two.f[1].offset = 4;
		two.key_only = 0;
		CHECK(keys_native_init(&two, &k) != 0, "two fields have no native form");
		for (int t = 0; t < 14; t++) {
			for (int rev = 0; rev < 2; rev++) {
				keys_spec s = spec1(types[t], rev);
				CHECK(keys_native_init(&s, &k) == 0 && k.width == s.record_size, "%s: native", types[t]);
				for (int i = 0; i < 600; i++) {
					uint64_t x = i < 17 ? special[i] : unit_rand(&seed);
					uint8_t r[8], want[8];
					memcpy(r, &x, 8);
					keys_normalize(&s, r, want);
					uint64_t be = 0, back;
					for (uint32_t j = 0; j < k.width; j++)
						be = be << 8 | want[j];
					if (k.width == 8) {
						uint64_t raw;
						memcpy(&raw, r, 8);
						CHECK(keys_native_enc64(&k, raw) == be, "%s%s: enc %016llx", types[t],
						      rev ? ":r" : "", (unsigned long long)x);
						back = keys_native_dec64(&k, be);
						CHECK(back == raw, "%s%s: dec(enc) %016llx", types[t], rev ? ":r" : "",
						      (unsigned long long)x);
					} else {
						uint32_t raw;
						memcpy(&raw, r, 4);
						CHECK(keys_native_enc32(&k, raw) == (uint32_t)be, "%s%s: enc %08x", types[t],
						      rev ? ":r" : "", raw);
						back = keys_native_dec32(&k, (uint32_t)be);
						CHECK(back == raw, "%s%s: dec(enc) %08x", types[t], rev ? ":r" : "", raw);
					}
				}
			}
		}
	} TEST_END();
	return UNIT_EXIT();
}
