/*
 * text_hash.h - -R's keyed hash: MD5 of the 16 salt bytes followed by the
 * key, the hash GNU sort orders -R keys by, so that with the same
 * --random-source both give the same order. Keys of equal hashes are
 * ordered by their bytes.
 */
#ifndef GPUSORT_TEXT_HASH_H
#define GPUSORT_TEXT_HASH_H
#include <stddef.h>
#include <stdint.h>

/* The 16-byte digest of salt[0, 16) then key[0, len). */
void text_hash(const uint8_t salt[16], const uint8_t *key, size_t len, uint8_t out[16]);

/* <0, 0, >0: keys a and b by their digests, then by their bytes. */
int text_hash_cmp(const uint8_t salt[16], const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

#endif
