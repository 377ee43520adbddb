/*
 * sink.h - where sorted records go: the final output or a spill run.
 *
 * Records are produced straight into the sink's buffers (sink_reserve /
 * sink_commit: no copy), written by an I/O worker while the next buffer
 * fills. Only whole IO_ALIGN blocks are handed to the writer until the end,
 * so O_DIRECT stays usable; the few leftover bytes move to the next buffer.
 * -u (first of each run of equal keys) is applied here, on the producer's
 * thread; the spill checksums run on the writer's thread; --verify's
 * order and multiset accumulators on a worker of their own beside each
 * write (split over threads of their own), or over a mapped output once it
 * is complete. When the output is a regular file, the two
 * buffers are registered with the writer's io_uring (io_ring_register), so
 * their writes go as WRITE_FIXED; sink_put's caller buffers go unfixed.
 */
#ifndef GPUSORT_SINK_H
#define GPUSORT_SINK_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "../io/io.h"
#include "keys.h"
#include "progress.h"
#include "run.h"
#include "verify.h"
#include "tpool.h"

#define SINK_QUEUE 64 /* sink_put_async writes in flight at most */

typedef struct sink {
	const keys_spec *s;
	io_file *f;            /* output file or spill file */
	run *spill;            /* non-NULL: writing this spill run (checksummed) */
	int unique;
	io_worker w;
	uint8_t *buf[2];
	size_t cap;            /* bytes per buffer (excluding IO_ALIGN slack) */
	int cur;
	size_t fill;           /* bytes in buf[cur] */
	io_job job[2];
	int pending[2];
	io_job ext;            /* a caller's buffer written in place */
	io_job q[SINK_QUEUE];  /* sink_put_async's writes in flight: a ring, oldest at qh */
	int qh, qn;
	uint8_t *last;         /* last record kept (for -u) */
	int have_last;
	uint64_t records;      /* records committed */
	uint64_t bytes;        /* bytes handed to the writer */
	int err;               /* first error (-errno); sticky */
	int fixed;             /* buffers registered with the writer's ring: 0, or why not (-errno) */
	verify_sum *vsum;      /* --verify: multiset of the output, or NULL (sink_verify) */
	verify_order *vord;    /* --verify: order of the output, or NULL */
	tpool *vtp;            /* --verify's threads, or NULL: the writer's alone */
	io_worker vw;          /* --verify's worker: each buffer's sums beside its write (sink_verify) */
	int vw_on;
	io_job vjob[2], vext, vq[SINK_QUEUE]; /* the sums of job[], ext and q[] */
	progress *prog;        /* --progress: counts the bytes committed, -u's drops included (the
				* phase's input, so it ends at 100%); NULL: none */
	io_outmap map;         /* sink_map's mapped output; map.map NULL: written by the writer */
	tpool *tp;             /* sink_map's copy threads (sink_put into the mapping), or NULL */
	size_t wb_piece;       /* sink_writeback_early's piece, bytes; 0: off */
	size_t wb_at;          /* mapping bytes handed to the writer for writeback so far */
	io_job wbj;            /* the writer's job starting the last range's writeback */
	int wb_pending;
	atomic_int wb_stop;    /* sink_close: wbj's pieces not yet started are left to the kernel */
	uint64_t wb_bytes;     /* bytes whose writeback the writer started (its thread's; read once wbj is done) */
	double wb_s;           /* the writer's seconds in it */
} sink;

/*
 * Start a sink writing to f (already open, positioned) with two buffers of
 * about buf_bytes each. spill: the run whose checksums are recorded (NULL for
 * the final output). Returns 0 or -errno.
 */
int sink_open(sink *k, const keys_spec *s, io_file *f, run *spill, int unique, size_t buf_bytes);

/* Room for n records, contiguous; NULL on error (k->err says which). */
uint8_t *sink_reserve(sink *k, size_t n);
/* The n records at p (as returned by sink_reserve) are final. */
void sink_commit(sink *k, uint8_t *p, size_t n);
/* Write n records from the caller's buffer (-u applied in place); waits. */
int sink_put(sink *k, uint8_t *recs, size_t n);
/*
 * Queue a write of n records from the caller's buffer (-u applied in place
 * first) and return without waiting for it: the records must stay as they
 * are until sink_sync or sink_close returns. Writes go in call order, after
 * whatever was reserved before; with SINK_QUEUE of them in flight this waits
 * for the oldest. Not thread-safe: one caller at a time (a lock of the
 * caller's may serialize several threads). Returns k->err (0 or -errno).
 */
int sink_put_async(sink *k, uint8_t *recs, size_t n);
/* Wait for every write queued so far. Returns k->err. */
int sink_sync(sink *k);
/* Wait for the oldest writes queued until at most `most` are in flight
 * (their buffers free again, oldest first). Returns k->err. */
int sink_sync_to(sink *k, int most);
/*
 * --verify: the output's records summed into *sum and their order checked
 * in *ord (verify_order_init done) as they are written, each buffer on a
 * worker of the sink's own while the writer writes it (released when
 * both are done), split over `threads` threads; a mapped output
 * (sink_map) when it is complete, at sink_close. Call before anything is
 * written. Never fails: without threads, on one; without the worker, on
 * the writer's before each write.
 */
void sink_verify(sink *k, verify_sum *sum, verify_order *ord, int threads);
/* Flush, wait for the writer, stop it. Returns k->err. */
int sink_close(sink *k);
/* Largest n sink_reserve accepts. */
size_t sink_max_records(const sink *k);

/*
 * Store the output's next `bytes` bytes (every record still to come, -u's
 * drops included) straight into the output file's pages (io_outmap, io.h)
 * instead of through the writer thread: sink_reserve then hands out the
 * mapping itself, so the threads that merge records into it are the
 * writers (one thread's write(2)s to a file do not scale, stores into its
 * mapping do: bench/results/h200-outmap-2026-11-26.md), and sink_put and
 * sink_put_async copy on `threads` threads and return when done. Only for
 * the final output (not a spill) of a sink with nothing written yet
 * (--verify's sums then run over the mapping at sink_close); under -u (duplicates dropped
 * after they are stored) only where the file ends at its offset. Returns 0, or -errno when the
 * records must go through the writer as before (not a regular file, an
 * O_DIRECT or appending output, no room: io_outmap_open's errors); the
 * sink is unchanged then. sink_close unmaps, and cuts the file back to
 * what was committed if fewer bytes came (-u, a failure).
 */
int sink_map(sink *k, uint64_t bytes, int threads);
/*
 * A mapped sink (sink_map) of a job that spilled: every `piece` bytes
 * stored (0: SINK_WRITEBACK_BYTES), start their writeback
 * (io_outmap_writeback, on the writer's thread, idle in a mapped sink)
 * rather than leave the pages dirty. The disk writes back at its own rate
 * whatever is dirty, and the kernel takes the oldest dirty file first: the
 * spill, whose blocks the spill file's close must then free again (and
 * discard, where the file system is mounted with `discard`). The output's
 * bytes reach the disk in any case; taken first, they leave more of the
 * spill's pages dirty until the close drops them unwritten
 * (bench/results/h200-output-writeback-2026-11-29.md). sink_close leaves
 * what is not started by then to the kernel. No effect on an unmapped
 * sink; call before anything is stored. Never fails.
 */
void sink_writeback_early(sink *k, size_t piece);
#define SINK_WRITEBACK_BYTES ((size_t)64 << 20)

/* Is the sink's output mapped (sink_map)? */
static inline int sink_mapped(const sink *k)
{
	return k->map.map != NULL;
}

#endif
