/*
 * cpustream.h - the CPU engine's sort of a whole input held as one chunk,
 * streamed to the output while it is sorted.
 *
 * An MSD radix partition (one stable counting-sort pass on the leading
 * `bits` bits of the normalized key, keys.h) cuts the chunk into buckets of
 * about cache size; the pool's threads then sort the buckets in increasing
 * order, each on one thread (cpusort's pieces, cpusort.h), and every bucket
 * is handed to the output as soon as it and all before it are sorted, so the
 * output is written while later buckets are still being sorted. A bucket too
 * large for one thread (skewed keys: all equal, zipf) is sorted by all of
 * them in its turn. The partition is stable and so is each bucket's sort, so
 * the output is byte-identical to cpusort_sort's for every key spec.
 *
 * Items partitioned: records sorted whole (cpusort_whole_records: key-only
 * records, and short ones with a payload after their key) are partitioned
 * themselves, their key bytes normalized; those of one 4- or 8-byte key as native
 * integers (keys_native: no byte-wise passes; the partition's scatter goes
 * through a line buffer per bucket with non-temporal stores, and each
 * bucket is sorted by cpusort_native_bucket). Otherwise (key prefix, record
 * index) entries are, and each bucket's records are gathered into the second
 * record buffer when it is sorted (moving 16-byte entries instead of wide
 * records twice). The counting pass can run while the chunk is read
 * (cpustream_new, cpustream_count, cpustream_run below), also when the
 * input's size is known only at its end (cpustream_open, _feed, _close:
 * counted at 16 bits per piece, folded to the partition's bits at the end).
 * With 8 or more
 * threads one of them sits out the bucket sorts, so that the writer has a
 * core.
 *
 * Unlike the deterministic sample sort of Dehne & Zaboli (section 4), which
 * samples its splitters so that buckets are balanced, the splitters here are
 * fixed (the leading key bits, no sampling pass before the first write); the
 * balance lost on skewed keys is recovered by sorting such a bucket with all
 * threads.
 */
#ifndef GPUSORT_CPUSTREAM_H
#define GPUSORT_CPUSTREAM_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"
#include "sink.h"
#include "tpool.h"

#define CPUSTREAM_MIN_BITS 8
#define CPUSTREAM_MAX_BITS 16
/* item bytes an average bucket is sized for (cpustream_bits): two of them, the
 * bucket and its sort buffer, fit a core's L2, where its radix passes run */
#define CPUSTREAM_BUCKET_BYTES ((size_t)512 << 10)

typedef struct cpustream_stats {
	double partition_s;  /* normalizing, counting and scattering the items */
	double count_s;      /* of it: normalizing and counting (0 when done while reading) */
	double bucket_s;     /* thread-seconds sorting buckets (summed over the threads) */
	double handoff_s;    /* thread-seconds handing sorted buckets to the output: the lock, and
			      * sink_put_async waiting for room when the writer is behind */
	double first_out_s;  /* from the start until the first write was queued */
	double sort_s;       /* the partition and every bucket's sort: until the last bucket was sorted */
	int bits;            /* partition bits used */
	uint64_t buckets;    /* non-empty buckets */
	uint64_t big;        /* of those, sorted by all threads (larger than one thread's share) */
	uint64_t largest;    /* records in the largest bucket */
} cpustream_stats;

/*
 * The partition bits for n records of spec s: enough that an average bucket
 * holds about CPUSTREAM_BUCKET_BYTES of items (records when key-only, else
 * entries), within CPUSTREAM_MIN_BITS..CPUSTREAM_MAX_BITS, and never more
 * than the normalized key has (8 for a one-byte key).
 */
int cpustream_bits(const keys_spec *s, size_t n);

/*
 * Sort n records at a stably by s and write them, in order, to out
 * (sink_put_async: the sink applies -u and --verify's output sums). b: a
 * second buffer of n records; scratch: cpusort_scratch_bytes(s, n) bytes,
 * 16-byte aligned (NULL when 0), as for cpusort_sort. a's, b's and scratch's
 * contents are destroyed. bits: 0 for cpustream_bits, else 1..16 (capped as
 * there). tp: the worker threads (tpool_size >= 1). n <= cpusort_max_records(s).
 * Returns when every record has been written: 0, or the sink's error
 * (-errno; out->err), or -ENOMEM. st (may be NULL) gets the stage times.
 */
int cpustream_sort(const keys_spec *s, uint8_t *a, uint8_t *b, size_t n, void *scratch, int bits, tpool *tp,
		   sink *out, cpustream_stats *st);

/*
 * cpustream_sort in two steps, so that the records can be counted while they
 * are read (readall_range_each), each piece while it is still in the cache,
 * instead of in a pass of its own over the chunk:
 *  - cpustream_new: the arguments as for cpustream_sort; a may not hold the
 *    records yet. Returns NULL when out of memory.
 *  - cpustream_count: records [first, first + count) of part `part` are in a:
 *    normalize and count them. Parts are those of util_split(n, part,
 *    tpool_size(tp)); each part's records must be counted exactly once, in
 *    any pieces, and different parts may be counted at once by different
 *    threads. The records are changed in place (key-only: to normalized keys).
 *  - cpustream_run: sort and write, as cpustream_sort does; counted: 1 when
 *    every part was counted by cpustream_count, 0 when none was (run counts
 *    them). Frees S whatever it returns.
 */
typedef struct cpustream cpustream;
cpustream *cpustream_new(const keys_spec *s, uint8_t *a, uint8_t *b, size_t n, void *scratch, int bits, tpool *tp,
			 sink *out);
void cpustream_count(cpustream *S, int part, size_t first, size_t count);
int cpustream_run(cpustream *S, int counted, cpustream_stats *st);
/* Free S without sorting (the records could not be read); a's contents are undefined. */
void cpustream_free(cpustream *S);

/*
 * The same for an input whose size is known only at its end (a pipe), so
 * that its records are counted as they arrive and little is left when the
 * last one comes:
 *  - cpustream_open: as cpustream_new, but with room for cap records
 *    (b: cap records, scratch: cpusort_scratch_bytes(s, cap)) instead of n.
 *    NULL when out of memory.
 *  - cpustream_feed: records [first, first + count) of a have arrived:
 *    normalize and count them. Calls come in input order (first is the
 *    records fed so far; at most cap in all), from any one thread at a time.
 *    The counts are kept per piece of at least 32 MiB of records (a
 *    histogram of 2^16 counters each, at most 64 pieces): n is not known
 *    yet, so neither are the partition's bits nor the threads' parts.
 *    Returns 0, -EINVAL (out of order, beyond cap) or -ENOMEM.
 *  - cpustream_close: the input ended with n (= the records fed) records:
 *    the partition's bits from n, the pieces grouped into the threads'
 *    parts (the parts contiguous and in input order, so the partition stays
 *    stable). Returns 0, -EINVAL or -ENOMEM; then cpustream_run(S, 1, st).
 *  - cpustream_unfeed: the input is more than one chunk after all: the fed
 *    records turned back into what was read (the normalization undone), S
 *    freed.
 * piece: records per counting piece, 0 for the default above (tests pass a
 * few, so that small inputs have several).
 * On any failure the caller frees S with cpustream_unfeed (records restored)
 * or cpustream_free.
 */
cpustream *cpustream_open(const keys_spec *s, uint8_t *a, uint8_t *b, size_t cap, void *scratch, int bits,
			  size_t piece, tpool *tp, sink *out);
int cpustream_feed(cpustream *S, size_t first, size_t count);
int cpustream_close(cpustream *S, size_t n);
void cpustream_unfeed(cpustream *S);

#endif
