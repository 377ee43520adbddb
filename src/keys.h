/*
 * keys.h - parsing -k options into a key layout, and normalized keys on the
 * CPU.
 *
 * keys_field and keys_spec, and the normalization rules (a normalized key
 * is a byte string whose unsigned lexicographic order, memcmp, is the
 * wanted record order; every engine sorts normalized keys), are in
 * kernels/key_layout.h, shared with the kernels.
 */
#ifndef GPUSORT_KEYS_H
#define GPUSORT_KEYS_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../kernels/key_layout.h"

#define KEYS_MAX_RECORD (1u << 20)  /* largest record size, bytes */

/*
 * Parse one -k argument "TYPE[@OFFSET][:r]" into *f. `default_offset` is used
 * when no @OFFSET is given (the end of the previous key). Returns 0, or
 * -EINVAL with a reason in msg (NUL-terminated, <= msglen).
 */
int keys_parse(const char *arg, uint32_t default_offset, keys_field *f, char *msg, size_t msglen);

/*
 * Complete a spec after parsing: record_size 0 means "end of the furthest key";
 * no fields means one bytes field covering the whole record (needs
 * record_size); `reverse` inverts every field's direction (-r).
 * Returns 0, or -EINVAL with a reason in msg (a key beyond the record,
 * no record size, a record size out of range).
 */
int keys_finish(keys_spec *s, uint32_t record_size, int reverse, char *msg, size_t msglen);

/* Write the record's normalized key (s->key_width bytes) to out. */
void keys_normalize(const keys_spec *s, const uint8_t *rec, uint8_t *out);

/*
 * Write the first `len` bytes (len <= key_width) of the normalized key to out;
 * cheaper than keys_normalize when only a prefix is needed.
 */
void keys_normalize_prefix(const keys_spec *s, const uint8_t *rec, uint8_t *out, uint32_t len);

/* Largest record, bytes, that keys_inplace takes with more than one key. */
#define KEYS_INPLACE_MAX 64

/*
 * 1 when a record of s can be turned into its normalized key in place: the
 * record is one key (key_only), or its keys cover it exactly, each byte in
 * one key, in any order (`-k u32 -k u32` of 8-byte records), and it is at
 * most KEYS_INPLACE_MAX bytes. Else 0. Such records need no (prefix, index)
 * entries: sorting their encoded bytes sorts them, and records of equal keys
 * are equal bytes, so no order among them can be seen (stability is free).
 */
int keys_inplace(const keys_spec *s);

/*
 * 1 when the keys, in any order and without overlaps, cover the record's
 * first key_width bytes exactly and a payload follows them (key_width <
 * record_size <= KEYS_INPLACE_MAX): `-k u64 -k i32@8 --record-size 16`.
 * Such a record's key bytes can be turned into its normalized key in place
 * (keys_encode_inplace), the payload left as it is; sorting the records
 * stably by their first key_width bytes then sorts them. Else 0.
 */
int keys_prefix_cover(const keys_spec *s);

/*
 * For keys_inplace and keys_prefix_cover specs: turn a record's first
 * key_width bytes (all of it for keys_inplace) into its normalized key in
 * place, and back (a bijection for every type); the rest is not touched.
 */
void keys_encode_inplace(const keys_spec *s, uint8_t *rec);
void keys_decode_inplace(const keys_spec *s, uint8_t *rec);

/*
 * 1 when keys_encode_inplace and keys_decode_inplace change no byte of a
 * keys_inplace record of s: its keys are ascending bytesN, u8 or
 * big-endian unsigned fields that cover it in record order (no -k at all,
 * `-k bytes16` of 16-byte records, `-k u32be`), so the record is its
 * normalized key. Else 0.
 */
int keys_inplace_identity(const keys_spec *s);

/* Widest record, bytes, that keys_count_order takes: 2^16 values. */
#define KEYS_COUNT_MAX 2

/*
 * For keys_inplace specs of records of at most KEYS_COUNT_MAX bytes, whose
 * every value a counter can hold: order[k] gets the record (its bytes read
 * as a little-endian integer) whose normalized key, read as a big-endian
 * integer, is k, for k over all 2^(8 * record_size) keys (a bijection:
 * keys_encode_inplace). Emitting each value in that order as often as it
 * was seen is the sorted output. Returns 0, or -1 when s does not qualify.
 */
int keys_count_order(const keys_spec *s, uint32_t *order);

/*
 * The normalized key of a key_only record of 4 or 8 bytes as a native
 * unsigned integer (the normalized bytes read big-endian), computed from the
 * record's native load and back, without going through bytes: the CPU
 * engine's radix passes on arrays of u32/u64/i32/f64... (cpustream.c) work
 * on these integers. enc(raw) = bswap?(raw) ^ mask ^ dmask, where the mask
 * is the sign bit for signed keys and non-negative floats, all bits for
 * negative floats (IEEE-754 total order), and dmask inverts descending keys.
 */
typedef struct keys_native {
	uint32_t width;   /* 4 or 8: bytes per record */
	int bswap;        /* stored big-endian (numbers), or bytes4/bytes8 (read as big-endian) */
	uint64_t sbit;    /* the sign bit for signed and float keys, else 0 */
	uint64_t fmask;   /* all ones for floats: negative values are inverted */
	uint64_t dmask;   /* all ones (of the width) for descending keys */
} keys_native;

/* Fill *k for spec s. Returns 0, or -1 when s is not key_only with a 4- or 8-byte key. */
int keys_native_init(const keys_spec *s, keys_native *k);

/*
 * Records of 4 or 8 bytes whose several keys cover them (keys_inplace, not
 * key_only: `-k u32 -k u32`), as one native unsigned integer: enc(raw), raw
 * the record's native (little-endian) load, is the normalized key read
 * big-endian, so the CPU engine's native passes sort the words (with
 * keys_native_identity) and dec turns them back into the records. Each field
 * is taken out of raw by shift and mask and normalized as norm_num does.
 */
typedef struct keys_word {
	uint32_t width; /* 4 or 8: bytes per record */
	int n;          /* fields, 2..8 */
	struct keys_word_field {
		uint8_t in_shift, out_shift; /* bits: the field's place in raw and in the key */
		uint8_t bits, kind, be, descending;
	} f[8];
} keys_word;

/* Fill *w for spec s. Returns 0, or -1 when s is not such a layout. */
int keys_word_init(const keys_spec *s, keys_word *w);

/* The normalized key of the record whose native load is raw (low width bytes), and back. */
uint64_t keys_word_enc(const keys_word *w, uint64_t raw);
uint64_t keys_word_dec(const keys_word *w, uint64_t key);

/* n records of w->width bytes at recs (aligned to it) into their keys in place (decode 0) or back (1). */
void keys_word_code(const keys_word *w, void *recs, size_t n, int decode);

/* keys_native that leaves a word as it is: for items that are already keys (keys_word_enc). */
void keys_native_identity(uint32_t width, keys_native *k);

/* A record's native (little-endian) load at p, any alignment: the raw that
 * keys_native_enc* and keys_word_enc take (8 or 4 bytes). */
static inline uint64_t keys_load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t keys_load32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t keys_native_enc64(const keys_native *k, uint64_t raw)
{
	if (k->bswap)
		raw = __builtin_bswap64(raw);
	return raw ^ (((uint64_t)((int64_t)raw >> 63) & k->fmask) | k->sbit) ^ k->dmask;
}

static inline uint64_t keys_native_dec64(const keys_native *k, uint64_t v)
{
	v ^= k->dmask;
	uint64_t raw = v ^ (((uint64_t)((int64_t)~v >> 63) & k->fmask) | k->sbit);
	return k->bswap ? __builtin_bswap64(raw) : raw;
}

static inline uint32_t keys_native_enc32(const keys_native *k, uint32_t raw)
{
	if (k->bswap)
		raw = __builtin_bswap32(raw);
	return raw ^ (((uint32_t)((int32_t)raw >> 31) & (uint32_t)k->fmask) | (uint32_t)k->sbit) ^ (uint32_t)k->dmask;
}

static inline uint32_t keys_native_dec32(const keys_native *k, uint32_t v)
{
	v ^= (uint32_t)k->dmask;
	uint32_t raw = v ^ (((uint32_t)((int32_t)~v >> 31) & (uint32_t)k->fmask) | (uint32_t)k->sbit);
	return k->bswap ? __builtin_bswap32(raw) : raw;
}

/* <0, 0, >0 as record a's key orders before, equal to, after b's. */
int keys_compare(const keys_spec *s, const uint8_t *a, const uint8_t *b);

/* Name of a field's type as written on the command line ("u32be", "bytes10"). */
const char *keys_type_name(const keys_field *f, char *buf, size_t len);

#endif
