/*
 * resident.h - chunks sorted device-resident (DESIGN.md section 6).
 *
 * When every input is a regular file, a chunk (all of the input when it
 * fits the device's memory budget) never sits whole in host memory on its
 * way to the GPU: it is read from the page cache by all cores into a few
 * pinned staging buffers, copied to the device while the next piece is
 * read, sorted there once, and copied back piece by piece while the caller
 * consumes the previous piece (writes it to the output, copies it into a
 * kept run, or spills it). All cores read because page-cache reads scale
 * with the readers (one thread reaches about an eighth of what sixteen
 * do), and the pinned buffers are few and piece-sized because page-locking
 * chunk-sized host buffers (cudaHostRegister) costs more than the device
 * sort itself.
 *
 * Consecutive chunks overlap (resident_sort_chunk's `next`): while chunk i
 * comes back piece by piece and is consumed, chunk i+1 is read and copied
 * to the device, so that both PCIe directions are busy at once; the
 * staging buffers are split between the two directions meanwhile.
 */
#ifndef GPUSORT_RESIDENT_H
#define GPUSORT_RESIDENT_H
#include <stdint.h>
#include <sys/types.h>
#include "engine.h"
#include "run.h"
#include "verify.h"
#include "tpool.h"

/* Staging: RESIDENT_SLOTS pinned buffers of at most RESIDENT_PIECE bytes each. */
#define RESIDENT_PIECE (64u << 20)
#define RESIDENT_SLOTS 4
#define RESIDENT_MIN_PIECE (1u << 20) /* below this (-S tiny) the path is not worth it */

typedef struct resident resident;

typedef struct resident_chunk {
	uint64_t first;       /* the chunk: records [first, first + n) of the inputs' concatenation */
	uint64_t n;           /* >= 1, <= the device's capacity */
	/* the sorted records, in order, piece by piece: 0 or -errno (stops the sort) */
	int (*consume)(void *arg, uint8_t *recs, size_t n);
	void *arg;
	/* where the records come from: NULL reads the inputs; else fills buf
	 * with the chunk's records [first, first + n) (chunk-relative) using
	 * the pool's threads; 0 or -errno */
	int (*produce)(void *arg, tpool *tp, uint8_t *buf, uint64_t first, size_t n);
	void *parg;
	verify_sum *vin;      /* --verify: the chunk's records are added here; or NULL */
	/* optional: the chunk is nseg sorted segments starting at seg[0..nseg)
	 * (chunk-relative, seg[0] == 0, not decreasing; each sorted with ties
	 * in input order): merged on the device (gpu_resident_merge) instead of
	 * sorted, same result; n <= the device's merge capacity. NULL: sorted */
	const uint64_t *seg;
	int nseg;
	/* optional, an input of unknown size (a pipe) read in order: n is then
	 * the most records the chunk takes (in) and what it got (out). stream
	 * fills buf with up to `want` of the input's next records and returns
	 * how many it read, fewer only where the input ends, or -1 (the chunk
	 * stops; the caller knows why); the chunk ends there or at n. placed
	 * (called with arg) learns the chunk's records (>= 1) and whether the
	 * input ended within it before its first piece is consumed: 0, or -1
	 * (stops; the caller knows why). vin must be NULL (the stream counts
	 * --verify's sum); next is not prefetched (one chunk's records are read
	 * at a time). NULL: records [first, first + n) as above */
	ssize_t (*stream)(void *sarg, uint8_t *buf, size_t want);
	void *sarg;
	int (*placed)(void *arg, uint64_t n, int ended);
	int ended;            /* out, stream chunks: the input ended within it (n == 0: nothing was left) */
	/* out: seconds reading (and hashing) pieces, including those read while
	 * the previous chunk drained; seconds from the last put to the first
	 * piece back */
	double read_s, sort_s;
} resident_chunk;

/*
 * Prepare to sort chunks of the inputs in[0..nin) (nin may be 0 when every
 * chunk has a producer) (open regular files;
 * bytes [pos, size) of each are read, at most 64 inputs) on the GPU engine
 * e, with staging pieces of piece_bytes (rounded down to whole records,
 * RESIDENT_MIN_PIECE..RESIDENT_PIECE), reading with the threads of tp.
 * Returns 0 and *out; 1 when pinned staging memory is refused (sort another
 * way); -ENOMEM.
 */
int resident_open(resident **out, engine *e, const keys_spec *s, io_file *in, int nin, size_t piece_bytes,
		  tpool *tp);
void resident_close(resident *r);

/*
 * Sort (or, with c->seg, merge) chunk c on the device and hand it to
 * c->consume.
 *
 * next (may be NULL): the chunk the following call will sort (its first,
 * n, produce, parg, seg, nseg and whether it has a vin; consume is not
 * used yet). While c's sorted pieces come back and are consumed, next's
 * pieces are read (hashed into a sum of r's own when next->vin is set)
 * and copied to the device, one piece per piece of c; r keeps that chunk
 * begun on the device, and the following call, when its c matches next,
 * continues with the pieces not yet copied, then counts the hash into
 * c->vin only if it succeeds. A following call with any other chunk (or
 * resident_close) first ends the prefetched chunk on the device and drops
 * its hash. A next that the device does not take (begin refused, or
 * the test build's gpu-oom fault refusing it) is not prefetched: the call that
 * sorts it finds out. While nothing is prefetched every staging buffer
 * serves c. A chunk sorted after being prefetched counts in the engine's
 * gpu_overlapped.
 *
 * Returns 0; 1 when the device refused chunk c (out of memory) before
 * anything of c was consumed (c->vin untouched, nothing prefetched kept;
 * the inputs can be read again); RESIDENT_GPU_FAILED when any other GPU
 * call failed (a launch, a copy, a synchronize; or memory after some of c
 * was consumed), msg saying which: the device is not to be used again,
 * and the caller may hand the job to the CPU engine if nothing it consumed
 * has left the process (engine_gpu_lost); -1 on another error with msg set
 * (a read error names the input, also one of next's), or with msg empty
 * when c->consume failed (the caller knows why). After any of these but 0
 * nothing is prefetched. A stream chunk (c->stream) that finds the input
 * already ended returns 0 with c->n == 0 and c->ended set, having consumed
 * and placed nothing; one that fails (stream, placed, or the device after
 * records were read) has used up what it read of the input: the caller
 * keeps its own copy to recover from (runs_resident.c's journal).
 */
#define RESIDENT_GPU_FAILED 2
int resident_sort_chunk(resident *r, resident_chunk *c, const resident_chunk *next, char *msg, size_t mlen);

#endif
