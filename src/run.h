/*
 * run.h - sorted runs (in memory or spilled) and their XXH3 block
 * checksums.
 */
#ifndef GPUSORT_RUN_H
#define GPUSORT_RUN_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"
#include "../io/io.h"

#define RUN_BLOCK (1u << 20) /* bytes covered by one XXH3-64 checksum */

/* Checksums of consecutive RUN_BLOCK-byte blocks of a byte stream. */
typedef struct run_hash {
	void *state;          /* XXH3_state_t of the block being hashed */
	size_t in_block;      /* bytes hashed into the current block */
	uint64_t *h;          /* finished blocks' digests */
	size_t nh, cap;       /* producer: blocks written; consumer: blocks checked */
	size_t checked;
} run_hash;

/* Producer side: hash bytes as they are written. 0 or -ENOMEM. */
int run_hash_add(run_hash *h, const void *p, size_t len);
/*
 * run_hash_add for len bytes at src, and, with dst not NULL, the same bytes
 * copied to dst (len bytes, not overlapping src): the whole RUN_BLOCK blocks
 * among them hashed and copied by every thread of tp at once, block by
 * block, so that the copy reads what the hash has just brought into the
 * cache (one thread hashes at about 10 GB/s: 1.6 s for a 16 GiB spill, on
 * the spilling thread's path). The same digests as run_hash_add. 0 or
 * -ENOMEM (the run's checksums are then incomplete: its spill fails).
 */
struct tpool;
int run_hash_add_par(run_hash *h, struct tpool *tp, void *dst, const void *src, size_t len);
/* Close the last partial block. 0 or -ENOMEM. */
int run_hash_end(run_hash *h);
/*
 * Consumer side: hash bytes as they are read back, in the same order, and
 * compare each finished block (and, with final, the last partial one).
 * Returns 0, or -EBADMSG with *bad = the first bad block's index.
 */
int run_hash_check(run_hash *h, const void *p, size_t len, int final, size_t *bad);
void run_hash_reset_reader(run_hash *h);
void run_hash_free(run_hash *h);

typedef struct run {
	uint64_t n;        /* records; for stream inputs (-m), unknown until EOF */
	uint8_t *mem;      /* records in memory, or NULL */
	io_file *file;     /* spill file or -m input, when mem is NULL */
	uint64_t off;      /* byte offset of the run in file */
	int stream;        /* -m input read sequentially (pipe, terminal) */
	int spilled;       /* in a temp file: checksummed */
	/* --compress-program: the run is in a temp file of its own (zfile,
	 * compressed), written and read back through z's process; file is then
	 * &z.f, a pipe read sequentially (n known), off 0 */
	io_file *zfile;
	io_filter z;
	int pinned;        /* mem is page-locked for the GPU: unpin before free */
	void *map;         /* -m's regular input mapped (mem points into it): munmap, not free */
	size_t map_bytes;
	run_hash hash;
	/* spilled runs: records 0, every, 2 every, ... kept in memory
	 * (run_sample_*), so that the GPU merge can cut the runs into groups
	 * before reading any back (gpumerge_spill.h); nsample 0: none */
	uint8_t *sample;
	uint64_t sample_every, nsample;
} run;

/*
 * Samples of a run being spilled: run_sample_start allocates them for
 * r->n records of record_size bytes (one every r->n / RUN_SAMPLES records,
 * at least one in RUN_BLOCK bytes' worth, at most r->n), 0 or -ENOMEM;
 * run_sample_add takes, from the n records at recs that are the run's
 * records [first, first + n), those whose position is a multiple of
 * r->sample_every. The records must come in order, each once.
 */
#define RUN_SAMPLES 1024u
int run_sample_start(run *r, size_t record_size);
void run_sample_add(run *r, const uint8_t *recs, uint64_t first, size_t n, size_t record_size);

/*
 * A read of spilled run r came back: got (>= 0) bytes at buf, which are
 * the run's bytes from file offset off on, read in order (the block
 * checksums are checked as a stream: run_hash_reset_reader before the
 * first). Checks them (the test build's corrupt-spill fault flips one
 * first, as a failing disk would); final: this read ends the run. Returns
 * 0, or -EBADMSG with *bad = the first bad block's index.
 */
int run_check_read(run *r, size_t record_size, uint64_t off, void *buf, size_t got, size_t *bad);

#endif
