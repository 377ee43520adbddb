/* keys.c - key parsing and normalization on the CPU; see keys.h, and kernels/key_layout.h for the rules. */
#include "keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	uint8_t width, kind;
} types[] = {
	{ "u8", 1, KEYS_UINT },  { "u16", 2, KEYS_UINT }, { "u32", 4, KEYS_UINT },
	{ "u64", 8, KEYS_UINT }, { "i8", 1, KEYS_SINT },  { "i16", 2, KEYS_SINT },
	{ "i32", 4, KEYS_SINT }, { "i64", 8, KEYS_SINT }, { "f32", 4, KEYS_FLOAT },
	{ "f64", 8, KEYS_FLOAT },
};

int keys_parse(const char *arg, uint32_t default_offset, keys_field *f, char *msg, size_t msglen)
{
	char type[32];
	size_t tl = strcspn(arg, "@:");
	memset(f, 0, sizeof *f);
	if (tl == 0 || tl >= sizeof type) {
		snprintf(msg, msglen, "invalid key '%s': expected TYPE[@OFFSET][:r]", arg);
		return -EINVAL;
	}
	memcpy(type, arg, tl);
	type[tl] = 0;
	int found = 0;
	if (!strncmp(type, "bytes", 5)) {
		char *end;
		unsigned long n = strtoul(type + 5, &end, 10);
		if (type[5] < '1' || type[5] > '9' || *end || n > KEYS_MAX_RECORD) {
			snprintf(msg, msglen, "invalid key type '%s': bytesN needs N in 1..%u", type, KEYS_MAX_RECORD);
			return -EINVAL;
		}
		f->kind = KEYS_BYTES;
		f->width = (uint32_t)n;
		found = 1;
	} else {
		size_t l = strlen(type);
		int be = l > 2 && !strcmp(type + l - 2, "be");
		if (be)
			type[l - 2] = 0;
		for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
			if (!strcmp(type, types[i].name) && !(be && types[i].width == 1)) {
				f->kind = types[i].kind;
				f->width = types[i].width;
				f->big_endian = (uint8_t)be;
				found = 1;
			}
		}
		if (be)
			type[l - 2] = 'b';
	}
	if (!found) {
		snprintf(msg, msglen,
			 "invalid key type '%s' (types: u8 u16 u32 u64 i8 i16 i32 i64 f32 f64, "
			 "a 'be' suffix for big-endian, bytesN)", type);
		return -EINVAL;
	}
	const char *p = arg + tl;
	f->offset = default_offset;
	if (*p == '@') {
		char *end;
		p++;
		if (*p < '0' || *p > '9') {
			snprintf(msg, msglen, "invalid key '%s': OFFSET after '@' must be a number of bytes", arg);
			return -EINVAL;
		}
		unsigned long off = strtoul(p, &end, 10);
		if (off >= KEYS_MAX_RECORD) {
			snprintf(msg, msglen, "invalid key '%s': offset beyond the largest record (%u bytes)", arg, KEYS_MAX_RECORD);
			return -EINVAL;
		}
		f->offset = (uint32_t)off;
		p = end;
	}
	if (*p == ':') {
		if (strcmp(p, ":r")) {
			snprintf(msg, msglen, "invalid key '%s': the only modifier is ':r' (descending)", arg);
			return -EINVAL;
		}
		f->descending = 1;
		p += 2;
	}
	if (*p) {
		snprintf(msg, msglen, "invalid key '%s': expected TYPE[@OFFSET][:r]", arg);
		return -EINVAL;
	}
	return 0;
}

int keys_finish(keys_spec *s, uint32_t record_size, int reverse, char *msg, size_t msglen)
{
	uint32_t end = 0;
	for (int i = 0; i < s->n; i++)
		if (s->f[i].offset + s->f[i].width > end)
			end = s->f[i].offset + s->f[i].width;
	if (record_size == 0)
		record_size = end;
	if (record_size == 0) {
		snprintf(msg, msglen, "no record size: give --record-size=BYTES or at least one -k key");
		return -EINVAL;
	}
	if (record_size > KEYS_MAX_RECORD) {
		snprintf(msg, msglen, "record size %u is too large (at most %u bytes)", record_size, KEYS_MAX_RECORD);
		return -EINVAL;
	}
	for (int i = 0; i < s->n; i++) {
		if (s->f[i].offset + s->f[i].width > record_size) {
			char t[32];
			snprintf(msg, msglen, "key %d (%s at offset %u, %u bytes) ends beyond the %u-byte record",
				 i + 1, keys_type_name(&s->f[i], t, sizeof t), s->f[i].offset, s->f[i].width, record_size);
			return -EINVAL;
		}
	}
	if (s->n == 0) {
		s->f[0] = (keys_field){ .offset = 0, .width = record_size, .kind = KEYS_BYTES };
		s->n = 1;
	}
	s->key_width = 0;
	for (int i = 0; i < s->n; i++) {
		if (reverse)
			s->f[i].descending ^= 1;
		s->key_width += s->f[i].width;
	}
	s->record_size = record_size;
	s->key_only = s->n == 1 && s->f[0].offset == 0 && s->f[0].width == record_size;
	return 0;
}

/* Load a w-byte field as an integer. */
static inline uint64_t load_w(const uint8_t *p, uint32_t w, int be)
{
	uint64_t v = 0;
	if (be) {
		for (uint32_t i = 0; i < w; i++)
			v = v << 8 | p[i];
	} else {
		for (uint32_t i = w; i-- > 0;)
			v = v << 8 | p[i];
	}
	return v;
}

/* Load a 1/2/4/8-byte field as an integer (constant widths: one load, no loop). */
static inline uint64_t load_num(const uint8_t *p, uint32_t w, int be)
{
	switch (w) {
	case 1: return p[0];
	case 2: return load_w(p, 2, be);
	case 4: return load_w(p, 4, be);
	case 8: return load_w(p, 8, be);
	default: return load_w(p, w, be);
	}
}

/*
 * A numeric field's normalized bytes (key_layout.h) read as one big-endian
 * unsigned integer, so that comparing the integers orders the field: v is
 * the field's number (bits wide) as stored, kind and descending its key's.
 */
static inline uint64_t norm_bits(uint64_t v, uint32_t bits, int kind, int descending)
{
	uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
	uint64_t sign = 1ull << (bits - 1);
	if (kind == KEYS_SINT)
		v ^= sign;
	else if (kind == KEYS_FLOAT)
		v = (v & sign) ? (~v & mask) : (v | sign);
	if (descending)
		v = ~v & mask;
	return v;
}

/* norm_bits undone: the field's number (bits wide) from its normalized integer. */
static inline uint64_t denorm_bits(uint64_t v, uint32_t bits, int kind, int descending)
{
	uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
	uint64_t sign = 1ull << (bits - 1);
	if (descending)
		v = ~v & mask;
	if (kind == KEYS_SINT)
		v ^= sign;
	else if (kind == KEYS_FLOAT)
		v = (v & sign) ? (v & ~sign) : (~v & mask);
	return v;
}

/* norm_bits of field f of rec. */
static inline uint64_t norm_num(const keys_field *f, const uint8_t *rec)
{
	return norm_bits(load_num(rec + f->offset, f->width, f->big_endian), f->width * 8, f->kind, f->descending);
}

/* Store the low w bytes of v, big-endian (be) or little-endian. */
static inline void store_w(uint8_t *out, uint64_t v, uint32_t w, int be)
{
	for (uint32_t i = 0; i < w; i++, v >>= 8)
		out[be ? w - 1 - i : i] = (uint8_t)v;
}

/* store_w for a 1/2/4/8-byte field (constant widths: one store, no loop). */
static inline void store_num(uint8_t *out, uint64_t v, uint32_t w, int be)
{
	switch (w) {
	case 1: out[0] = (uint8_t)v; break;
	case 2: store_w(out, v, 2, be); break;
	case 4: store_w(out, v, 4, be); break;
	case 8: store_w(out, v, 8, be); break;
	default: store_w(out, v, w, be); break;
	}
}

static inline void store_be(uint8_t *out, uint64_t v, uint32_t w)
{
	store_num(out, v, w, 1);
}

static void norm_field(const keys_field *f, const uint8_t *rec, uint8_t *out, uint32_t len)
{
	if (f->kind == KEYS_BYTES) {
		memcpy(out, rec + f->offset, len);
		if (f->descending)
			for (uint32_t i = 0; i < len; i++)
				out[i] = (uint8_t)~out[i];
		return;
	}
	if (len == f->width) {
		store_be(out, norm_num(f, rec), len);
		return;
	}
	uint8_t tmp[8];
	store_be(tmp, norm_num(f, rec), f->width);
	memcpy(out, tmp, len);
}

void keys_normalize_prefix(const keys_spec *s, const uint8_t *rec, uint8_t *out, uint32_t len)
{
	for (int i = 0; i < s->n && len; i++) {
		uint32_t w = s->f[i].width < len ? s->f[i].width : len;
		norm_field(&s->f[i], rec, out, w);
		out += w;
		len -= w;
	}
}

void keys_normalize(const keys_spec *s, const uint8_t *rec, uint8_t *out)
{
	keys_normalize_prefix(s, rec, out, s->key_width);
}

/* Field f's normalized bytes at in written back as the record stores them, at rec + f->offset. */
static void decode_field(const keys_field *f, const uint8_t *in, uint8_t *rec)
{
	uint8_t *out = rec + f->offset;
	if (f->kind == KEYS_BYTES) {
		for (uint32_t i = 0; i < f->width; i++)
			out[i] = f->descending ? (uint8_t)~in[i] : in[i];
		return;
	}
	uint64_t v = denorm_bits(load_num(in, f->width, 1), f->width * 8, f->kind, f->descending);
	store_num(out, v, f->width, f->big_endian);
}

int keys_inplace(const keys_spec *s)
{
	return s->key_only || (s->record_size <= KEYS_INPLACE_MAX && keys_layout_cover(s));
}

int keys_prefix_cover(const keys_spec *s)
{
	if (s->n < 1 || s->key_width >= s->record_size || s->record_size > KEYS_INPLACE_MAX)
		return 0;
	for (int i = 0; i < s->n; i++)
		if (s->f[i].offset + s->f[i].width > s->key_width)
			return 0; /* a payload byte before or between the keys */
	/* the keys within the first key_width bytes: they cover them as they
	 * would cover a record of that size */
	keys_spec head = *s;
	head.record_size = s->key_width;
	return keys_layout_cover(&head);
}

int keys_inplace_identity(const keys_spec *s)
{
	uint32_t at = 0;
	for (int i = 0; i < s->n; i++) {
		const keys_field *f = &s->f[i];
		/* bytes, and unsigned integers stored big-endian (or of one byte),
		 * normalize to themselves when ascending */
		int raw = f->kind == KEYS_BYTES || (f->kind == KEYS_UINT && (f->big_endian || f->width == 1));
		if (!raw || f->descending || f->offset != at)
			return 0;
		at += f->width;
	}
	return keys_inplace(s) && at == s->record_size;
}

int keys_count_order(const keys_spec *s, uint32_t *order)
{
	uint32_t R = s->record_size;
	if (!keys_inplace(s) || R < 1 || R > KEYS_COUNT_MAX)
		return -1;
	for (uint32_t v = 0; v < (1u << (8 * R)); v++) {
		uint8_t rec[KEYS_INPLACE_MAX] = { (uint8_t)v, (uint8_t)(v >> 8) }; /* R bytes of it used */
		keys_encode_inplace(s, rec);
		order[R == 1 ? rec[0] : (uint32_t)rec[0] << 8 | rec[1]] = v;
	}
	return 0;
}

void keys_encode_inplace(const keys_spec *s, uint8_t *rec)
{
	const keys_field *f = &s->f[0];
	if (s->n == 1) { /* the field is the record: no copy */
		if (f->kind != KEYS_BYTES)
			store_be(rec, norm_num(f, rec), f->width); /* the whole field is read before it is written */
		else if (f->descending)
			for (uint32_t i = 0; i < f->width; i++)
				rec[i] = (uint8_t)~rec[i];
		return;
	}
	uint8_t key[KEYS_INPLACE_MAX];
	keys_normalize(s, rec, key);
	memcpy(rec, key, s->key_width);
}

void keys_decode_inplace(const keys_spec *s, uint8_t *rec)
{
	if (s->n == 1) {
		decode_field(&s->f[0], rec, rec);
		return;
	}
	uint8_t key[KEYS_INPLACE_MAX];
	memcpy(key, rec, s->key_width);
	for (uint32_t i = 0, at = 0; i < (uint32_t)s->n; at += s->f[i].width, i++)
		decode_field(&s->f[i], key + at, rec);
}

int keys_native_init(const keys_spec *s, keys_native *k)
{
	const keys_field *f = &s->f[0];
	if (!s->key_only || s->n != 1 || (f->width != 4 && f->width != 8))
		return -1;
	uint64_t all = f->width == 8 ? ~0ull : 0xffffffffull;
	k->width = f->width;
	k->bswap = f->kind == KEYS_BYTES || f->big_endian;
	k->sbit = f->kind == KEYS_SINT || f->kind == KEYS_FLOAT ? 1ull << (f->width * 8 - 1) : 0;
	k->fmask = f->kind == KEYS_FLOAT ? all : 0;
	k->dmask = f->descending ? all : 0;
	return 0;
}

void keys_native_identity(uint32_t width, keys_native *k)
{
	*k = (keys_native){ .width = width };
}

int keys_word_init(const keys_spec *s, keys_word *w)
{
	uint32_t R = s->record_size;
	if (s->n < 2 || s->n > 8 || (R != 4 && R != 8) || !keys_inplace(s))
		return -1;
	w->width = R;
	w->n = s->n;
	for (int i = 0, at = 0; i < s->n; at += (int)s->f[i].width, i++) {
		const keys_field *f = &s->f[i];
		w->f[i] = (struct keys_word_field){
			.in_shift = (uint8_t)(8 * f->offset),
			.out_shift = (uint8_t)(8 * (R - (uint32_t)at - f->width)),
			.bits = (uint8_t)(8 * f->width),
			.kind = (uint8_t)f->kind,
			/* a bytes field is compared as its big-endian number */
			.be = (uint8_t)(f->kind == KEYS_BYTES || f->big_endian),
			.descending = (uint8_t)f->descending,
		};
	}
	return 0;
}

/* The low `bits` bits of v, their bytes in the other order. */
static inline uint64_t bswap_bits(uint64_t v, uint32_t bits)
{
	return __builtin_bswap64(v) >> (64 - bits);
}

uint64_t keys_word_enc(const keys_word *w, uint64_t raw)
{
	uint64_t key = 0;
	for (int i = 0; i < w->n; i++) {
		const struct keys_word_field *f = &w->f[i];
		uint64_t v = raw >> f->in_shift & ((1ull << f->bits) - 1); /* bits < 64: two fields or more */
		if (f->be)
			v = bswap_bits(v, f->bits);
		key |= norm_bits(v, f->bits, f->kind, f->descending) << f->out_shift;
	}
	return key;
}

uint64_t keys_word_dec(const keys_word *w, uint64_t key)
{
	uint64_t raw = 0;
	for (int i = 0; i < w->n; i++) {
		const struct keys_word_field *f = &w->f[i];
		uint64_t v = denorm_bits(key >> f->out_shift & ((1ull << f->bits) - 1), f->bits, f->kind, f->descending);
		if (f->be)
			v = bswap_bits(v, f->bits);
		raw |= v << f->in_shift;
	}
	return raw;
}

void keys_word_code(const keys_word *w, void *recs, size_t n, int decode)
{
	if (w->width == 8) {
		uint64_t *v = recs;
		for (size_t i = 0; i < n; i++)
			v[i] = decode ? keys_word_dec(w, v[i]) : keys_word_enc(w, v[i]);
	} else {
		uint32_t *v = recs;
		for (size_t i = 0; i < n; i++)
			v[i] = (uint32_t)(decode ? keys_word_dec(w, v[i]) : keys_word_enc(w, v[i]));
	}
}

int keys_compare(const keys_spec *s, const uint8_t *a, const uint8_t *b)
{
	for (int i = 0; i < s->n; i++) {
		const keys_field *f = &s->f[i];
		if (f->kind == KEYS_BYTES) {
			int c = memcmp(a + f->offset, b + f->offset, f->width);
			if (c)
				return f->descending ? -c : c;
		} else {
			uint64_t x = norm_num(f, a), y = norm_num(f, b);
			if (x != y)
				return x < y ? -1 : 1;
		}
	}
	return 0;
}

const char *keys_type_name(const keys_field *f, char *buf, size_t len)
{
	static const char *pre[] = { "u", "i", "f" };
	if (f->kind == KEYS_BYTES)
		snprintf(buf, len, "bytes%u", f->width);
	else
		snprintf(buf, len, "%s%u%s", pre[f->kind], f->width * 8, f->big_endian ? "be" : "");
	return buf;
}
