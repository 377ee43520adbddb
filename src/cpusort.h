/*
 * cpusort.h - the CPU chunk-sort engine (the no-GPU path, DESIGN.md section 4).
 *
 * Parallel radix sorts, stable by construction, on normalized keys
 * (keys.h). Two layouts:
 *  - key-only (the record is its whole key, record_size <= 16): records are
 *    normalized in place, radix-sorted MSD first as they are
 *    (cpusort_radix_msd), and de-normalized; a 4- or 8-byte key as a native
 *    integer (keys_native: LSD passes of 11-bit digits, the encoding in the
 *    counting scan and the decoding in the last pass);
 *  - general: (first <= 16 normalized key bytes, u32 record index) entries are
 *    radix-sorted, MSD first (cpusort_radix_msd); ranges of equal prefixes are then sorted by the full key
 *    (stable merge sort); records are gathered into sorted order.
 */
#ifndef GPUSORT_CPUSORT_H
#define GPUSORT_CPUSORT_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"

/* Most records one call may sort through (prefix, index) entries (the index is 32-bit). */
#define CPUSORT_MAX_RECORDS ((size_t)UINT32_MAX)
/* Most records one call may sort whole (cpusort_whole_records: no index). */
#define CPUSORT_MAX_WHOLE_RECORDS ((size_t)1 << 40)

/*
 * Most records one cpusort_sort call, or one streamed chunk (cpustream.h),
 * takes for layout s: CPUSORT_MAX_WHOLE_RECORDS when the records are sorted
 * as themselves (cpusort_whole_records), else CPUSORT_MAX_RECORDS. The planner
 * sizes the CPU engine's chunks by it, so that 2^32 or more u32 records
 * can be one streamed chunk instead of two runs and a merge.
 */
size_t cpusort_max_records(const keys_spec *s);

/* Bytes of scratch memory cpusort_sort needs for n records (0 for key-only). */
size_t cpusort_scratch_bytes(const keys_spec *s, size_t n);

/* Scratch bytes per record (the plan's memory factor on top of 2 record
 * buffers): 0 for key-only records; one entry where an entry is no larger
 * than a record (cpusort_entries_in_output), else two. */
size_t cpusort_scratch_per_record(const keys_spec *s);

/*
 * 1 when records go through entries no larger than a record: the sorted
 * records' buffer, which is written only by the gather after the entries
 * are sorted, then serves as the entries' second buffer (cpusort_sort's b,
 * the streamed chunk's buckets), so the scratch is one entry a record
 * instead of two (16 GiB of 16-byte records: 48 bytes a record of sort
 * memory instead of 64).
 */
int cpusort_entries_in_output(const keys_spec *s);

/*
 * Sort n records (n * record_size bytes at a) stably by the key.
 * b: a second buffer of n * record_size bytes; scratch: cpusort_scratch_bytes
 * bytes, 16-byte aligned (may be NULL when that is 0). a's contents are
 * destroyed. threads >= 1. n <= cpusort_max_records(s).
 * Returns a or b: the buffer holding the sorted records.
 */
uint8_t *cpusort_sort(const keys_spec *s, uint8_t *a, uint8_t *b, size_t n, void *scratch, int threads);

/*
 * The pieces of cpusort_sort, for callers that sort a chunk in parts
 * (cpustream.h: an MSD radix partition, then each part on its own).
 * threads >= 1 everywhere; each call splits its work among at most that many
 * threads of its own (util_par_run), fewer for small n.
 */

/*
 * 1 when records are sorted as their own bytes, encoded in place
 * (keys_inplace records of at most 16 bytes: one key, or keys that cover the
 * record), 0 when through (prefix, index) entries.
 */
int cpusort_key_only(const keys_spec *s);

/* Largest record, bytes, sorted whole with a payload after its key (keys_prefix_cover). */
#define CPUSORT_WHOLE_MAX 16

/*
 * 1 when records are sorted whole, as their own bytes with their key
 * encoded in place at their start: cpusort_key_only records, and records
 * of at most CPUSORT_WHOLE_MAX bytes whose keys cover their first
 * key_width bytes (keys_prefix_cover: a payload after the key), whose
 * stable sort by those bytes moves each record a few times where entries
 * would need a random gather of every record; 0 when through (prefix,
 * index) entries. Such records take no scratch and no 32-bit index.
 */
int cpusort_whole_records(const keys_spec *s);

/*
 * cpusort_whole_records layout: turn n records at recs into their normalized
 * keys in place (decode = 0), or back (decode = 1); a payload after the key
 * bytes is not touched.
 */
void cpusort_code(const keys_spec *s, uint8_t *recs, size_t n, int decode, int threads);

/* keys_word_code on `threads` threads: n records of w->width bytes at recs, aligned to it. */
void cpusort_word_code(const keys_word *w, uint8_t *recs, size_t n, int decode, int threads);

/*
 * Stable radix sort of n items of `stride` bytes at a by their bytes
 * [0, nbytes) (byte 0 most significant; nbytes <= stride <= 64; b: room
 * for n items), MSD first (cpusort_msd.c): a pass
 * only for the bytes that tell the items of a bucket apart, so that byte
 * strings told apart by their first few bytes (text key prefixes) cost a few
 * passes instead of nbytes, and random keys two or three passes over memory
 * (below the top levels a bucket fits the cache) where an LSD sort pays one
 * for every key byte (records' entries and key-only records: up to 16).
 * Leading bytes equal in every item cost one
 * counting scan each; all items equal: a is returned untouched. Threads:
 * the top levels split among at most `threads`, smaller buckets one thread
 * each. Returns a (the sorted items are always there).
 */
uint8_t *cpusort_radix_msd(uint8_t *a, uint8_t *b, size_t n, size_t stride, uint32_t nbytes, int threads);

/*
 * cpusort_radix_msd, the sorted items handed over in parts as they are
 * done, so that a caller can write the first while the rest are sorted:
 * done(arg, lo, hi) is called for consecutive item ranges [lo, hi) of a
 * (about 16 of them, covering [0, n) in order), each sorted and in its
 * final place when called; no two items with equal key bytes are ever in
 * different parts. The result is always in a. Returns 0, or done's first
 * nonzero return, after which the sort stops (a is then not sorted).
 */
int cpusort_radix_msd_parts(uint8_t *a, uint8_t *b, size_t n, size_t stride, uint32_t nbytes, int threads,
			    int (*done)(void *arg, size_t lo, size_t hi), void *arg);

/*
 * Stable LSD radix sort of n key-only records of a 4- or 8-byte key (k from
 * keys_native_init; a and b aligned to k->width; b: room for n) on nt >= 1
 * threads (nt 1: on the calling thread), by the low `bits` bits of their
 * native integers (0: all; higher bits must be equal in every record),
 * 11-bit digits counted in one scan, a digit that every item shares costing
 * no pass. encoded: 0 when a holds the records, 1 when it holds their
 * native integers already (keys_native_enc64/32: cpustream's buckets);
 * either way the result is records, decoded in the last pass. counters:
 * cpusort_native_counters(nt, n) bytes of scratch, 8-byte aligned, or NULL
 * to allocate them. Fastest where a bucket and its sort buffer fit the
 * core's L2, so that every pass runs from cache. Returns a or b: the
 * buffer holding the records; NULL, with a untouched, when counters was
 * NULL and they could not be allocated. Any n (past UINT32_MAX records the
 * counters are 64-bit: twice the scratch).
 */
uint8_t *cpusort_native_par(const keys_native *k, uint8_t *a, uint8_t *b, size_t n, int bits, int encoded, int nt,
			    void *counters);
/*
 * cpusort_native_par's sort of one bucket on the calling thread, in its
 * cache (cpustream.c's buckets, the MSD pass's in cpusort.c): a holds n
 * encoded native integers (keys_native_enc64/32) of key-only records, b
 * room for n; both aligned to k->width; bits as cpusort_native_par's (the
 * items differ only in their low `bits` bits; 0: unknown). Two LSD passes
 * on the top bits that differ among them, then the few items whose
 * prefixes are equal sorted by insertion (cpusort_bucket.c), instead of a
 * pass for every 11 bits below the partition's: about half the time for
 * random u64 keys; keys within two digits (bits <= 22), and keys whose top
 * bits take few values, go to cpusort_native_par. Stable, as
 * every pass is (which key-only records could not show: equal keys are
 * equal records).
 * counters: cpusort_native_counters(1, n) bytes, 8-byte aligned. Returns a
 * or b, the buffer holding the n records sorted and decoded; cannot fail.
 */
uint8_t *cpusort_native_bucket(const keys_native *k, uint8_t *a, uint8_t *b, size_t n, int bits, void *counters);
/*
 * Insertion sort of the n encoded native integers at a (k->width bytes
 * each, aligned), ascending, then each decoded back into its record, in
 * place: the sort of a few items (cpusort_native_par's and
 * cpusort_native_bucket's at most 64 and 32), where counting passes cost
 * more than they save. Stable.
 */
void cpusort_native_insertion(const keys_native *k, uint8_t *a, size_t n);
/* Bytes of counters cpusort_native_par needs for nt threads and n records
 * (48 KiB a thread; 96 KiB past UINT32_MAX records). */
size_t cpusort_native_counters(int nt, size_t n);

#if GPUSORT_TEST_HOOKS
/* The test build's bound above which cpusort_native_par's counters are
 * 64-bit (UINT32_MAX; a test sets 0 to run every sort with them). */
extern size_t cpusort_test_wide_min;
/* The test build's records a bucket of the MSD pass aims at (2^15; a test
 * lowers it so that a few hundred thousand records take 2^15 buckets). */
extern size_t cpusort_test_msd_bucket;
#endif

/* General layout: bytes per entry (normalized key prefix, padding, u32 record index). */
size_t cpusort_entry_size(const keys_spec *s);

/* The entry of record number idx (its bytes at rec) into e (cpusort_entry_size bytes). */
void cpusort_make_entry(const keys_spec *s, const uint8_t *rec, uint32_t idx, uint8_t *e);

/*
 * Sort n entries at e0 stably: by their key prefix, then ranges of equal
 * prefixes by the full key of their records (recs: the records the indices
 * count from), then by index. e1: room for n entries, scratch only (no
 * alignment needed). The entries may be any part of a chunk's entries, in
 * index order within equal keys. Returns e0: the sorted entries are always
 * there, so e1 may be memory that is written after (cpusort_entries_in_output).
 */
uint8_t *cpusort_sort_entries(const keys_spec *s, const uint8_t *recs, uint8_t *e0, uint8_t *e1, size_t n,
			      int threads);

/* out[i] = the record of entry i (recs[index]), for n entries: n * record_size bytes at out. */
void cpusort_gather(const keys_spec *s, const uint8_t *recs, const uint8_t *ent, size_t n, uint8_t *out,
		    int threads);

#endif
