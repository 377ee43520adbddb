/*
 * inputs.h - the job's input files: checked before any work, read in order
 * as one stream of records (the chunked path's reader), or reopened side by
 * side for reading at known offsets by all threads (the streamed and the
 * device-resident paths).
 */
#ifndef GPUSORT_INPUTS_H
#define GPUSORT_INPUTS_H
#include <sys/types.h>
#include "jobctx.h"

/*
 * Check every input before any work (missing, unreadable, a directory, a
 * size that is not a multiple of the record size) so that a bad input fails
 * fast and leaves the output alone. Sorting opens files one at a time as
 * the reader reaches them (any number of inputs under a small `ulimit -n`):
 * with keep_open 0 regular files are closed again after the check (their
 * size and position kept in c->in[i]); -m and -c read them side by side or
 * in place, so they pass keep_open 1. Returns 0 or -1 (c->r filled).
 */
int inputs_open(job_ctx *c, int keep_open);
void inputs_close(job_ctx *c);

/* 1 when fd (the output) is one of the inputs (io_same_file), else 0. */
int inputs_include(const job_ctx *c, int fd);

/* Total input bytes when every input is a regular file; -1 otherwise. */
int64_t inputs_known_size(const job_ctx *c);

/*
 * Open the inputs (every one a regular file, closed again after the checks)
 * side by side for reading at known offsets. Returns 0; 1 when one is no
 * longer what was checked (another size, no longer a regular file) or no
 * more files can be open at once: read them as a stream instead (the ones
 * opened here are closed again); or -1 (c->r filled).
 */
int inputs_reopen(job_ctx *c);

/*
 * An I/O worker's job (io.h IO_JOB_CALL; j->arg is the job_ctx): fill j->buf
 * with up to j->len bytes of whole records from the inputs, in order, across
 * file boundaries, opening each input when reached and closing it at its end.
 * --verify's input sum is counted here, and c->read_each (when set) called
 * with each piece of whole records as it arrives. A regular input must end where the
 * checks saw it end and be unchanged then (size, modification time); a pipe
 * ends where it ends. The ring's reads are made asynchronous
 * (io_ring_async_reads): its thread only waits for them. Returns records
 * read (0 at the end), or -errno with
 * c->bad_file naming the input (-EPROTO: its size is not whole records;
 * -ESTALE: it changed since the checks).
 */
ssize_t inputs_read_chunk(io_job *j, io_ring *ring);

/*
 * Hand back `bytes` (whole records) at buf, the inputs' records just before
 * where the reader is, to be read again first: the next inputs_read_chunk
 * calls return them (c->read_each sees them again; --verify's sum, which
 * counted them once, does not), then go on with the inputs. c takes buf
 * (malloc'd, util_alloc_huge too), freed once the last of it is read
 * again (or with c). For a path that read
 * part of a pipe and cannot finish it: what it read is not lost.
 */
void inputs_replay(job_ctx *c, uint8_t *buf, uint64_t bytes);

/* 1 when the reader has returned every record: the inputs ended and
 * nothing handed back is left. */
int inputs_ended(const job_ctx *c);
/* Most bytes read before c->read_each sees them: in the cache still. */
#define INPUTS_EACH_BYTES ((size_t)4 << 20)

/*
 * Every input that is a regular file and open now is still what the checks
 * saw (size, modification time): for the paths that read at known offsets,
 * after their last read. Returns 0, or -1 with c->r filled ("FILE: the file
 * changed while it was read"): sorting a file that changes underneath gives
 * neither its old contents nor its new ones.
 */
int inputs_unchanged(job_ctx *c);

/*
 * Input i has just been read to its end (c->in_bytes[i] bytes): when it is
 * a regular file, it must have ended where the checks saw it end and be
 * unchanged. Returns 0, or -ESTALE (for inputs_read_error). Safe on an I/O
 * worker's thread: it records nothing in c->r.
 */
int inputs_ended_unchanged(job_ctx *c, int i);

/* Record inputs_read_chunk's error rc for the input c->bad_file. */
void inputs_read_error(job_ctx *c, int rc);

/* Record readall_range's error rc (readall.h) for input `bad` (-1: out of
 * memory): the job's message names the input. */
void inputs_pread_error(job_ctx *c, int rc, int bad);

#endif
