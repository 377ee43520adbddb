/* sink.c - see sink.h. */
#include "sink.h"
#include "util.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_hook(io_job *j)
{
	sink *k = j->arg;
	size_t R = k->s->record_size;
	if (k->spill) {
		if (run_hash_add(&k->spill->hash, j->buf, j->len))
			j->res = -ENOMEM;
		return;
	}
	/* flush() cuts verified output at whole records, so a buffer is whole records */
	if (k->vsum)
		verify_add_par(k->vtp, k->vsum, k->vord, j->buf, j->len / R, R);
}

/* The verify worker's job (IO_JOB_CALL): --verify's sums and order of the
 * records at j->buf (j->len bytes, whole records) while the writer writes
 * them; jobs run in stream order. */
static ssize_t verify_call(io_job *j, io_ring *ring)
{
	sink *k = j->arg;
	size_t R = k->s->record_size;
	(void)ring;
	verify_add_par(k->vtp, k->vsum, k->vord, j->buf, j->len / R, R);
	return 0;
}

/* Queue the write j (filled but for its hook); with the verify worker,
 * the buffer's sums go to it in v, so that they overlap the write (a pipe
 * takes the output at its reader's pace), else they run in write_hook
 * before the write. */
static void submit_write(sink *k, io_job *j, io_job *v)
{
	j->hook = write_hook;
	if (k->vw_on) {
		*v = (io_job){ .op = IO_JOB_CALL, .call = verify_call, .arg = k, .buf = j->buf, .len = j->len };
		io_worker_submit(&k->vw, v);
		j->hook = NULL; /* a sink with sums writes no spill run */
	}
	io_worker_submit(&k->w, j);
}

/* Wait for the write j and its sums (v); the write's result. */
static ssize_t wait_write(sink *k, io_job *j, io_job *v)
{
	ssize_t r = io_worker_wait(&k->w, j);
	if (k->vw_on)
		io_worker_wait(&k->vw, v);
	return r;
}

/*
 * Runs on the writer's thread (an IO_JOB_CALL job), the only thread that uses
 * its ring (io.h): register both buffers with it. They live until
 * sink_close, which stops the writer (its ring exits and unregisters them)
 * before freeing them.
 */
static ssize_t register_bufs(io_job *j, io_ring *r)
{
	sink *k = j->arg;
	void *bufs[2] = { k->buf[0], k->buf[1] };
	size_t len = k->cap + IO_ALIGN + k->s->record_size;
	size_t lens[2] = { len, len };
	return io_ring_register(r, bufs, lens, 2);
}

int sink_open(sink *k, const keys_spec *s, io_file *f, run *spill, int unique, size_t buf_bytes)
{
	memset(k, 0, sizeof *k);
	k->s = s;
	k->f = f;
	k->spill = spill;
	k->unique = unique;
	size_t R = s->record_size;
	if (buf_bytes < 2 * R + IO_ALIGN)
		buf_bytes = 2 * R + IO_ALIGN;
	k->cap = (buf_bytes + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
	for (int i = 0; i < 2; i++) {
		k->buf[i] = util_alloc_aligned(k->cap + IO_ALIGN + R, IO_ALIGN);
		if (!k->buf[i])
			return -ENOMEM;
	}
	k->last = malloc(R);
	if (!k->last)
		return -ENOMEM;
	int rc = io_worker_start(&k->w);
	if (rc)
		return rc;
	k->fixed = -ENOTSUP;
	if (f->regular) {
		/* the writer is idle: this waits only for the registration itself;
		 * failure only leaves the writes unfixed */
		io_job j = { .op = IO_JOB_CALL, .call = register_bufs, .arg = k };
		io_worker_submit(&k->w, &j);
		k->fixed = (int)io_worker_wait(&k->w, &j);
	}
	return 0;
}

size_t sink_max_records(const sink *k)
{
	if (sink_mapped(k))
		return (k->map.bytes - k->fill) / k->s->record_size;
	return (k->cap - IO_ALIGN) / k->s->record_size;
}

void sink_verify(sink *k, verify_sum *sum, verify_order *ord, int threads)
{
	k->vsum = sum;
	k->vord = ord;
	if (threads > 1 && tpool_start(&k->vtp, threads))
		k->vtp = NULL; /* no threads to be had: summed on one */
	/* the sums beside the writes, not ahead of each: without this worker,
	 * in write_hook on the writer's thread */
	k->vw_on = io_worker_start(&k->vw) == 0;
}

int sink_map(sink *k, uint64_t bytes, int threads)
{
	if (k->spill || k->records || k->fill || k->bytes || k->qn || sink_mapped(k))
		return -EINVAL;
	/* O_DIRECT was asked for: the page cache is what it avoids */
	if (k->f->dfd >= 0 || !k->f->regular)
		return -EOPNOTSUPP;
	/* the mapping starts at the descriptor's offset, the writes at f->pos */
	off_t at = lseek(k->f->fd, 0, SEEK_CUR);
	if (at < 0 || (uint64_t)at != k->f->pos)
		return -EOPNOTSUPP;
	/* -u's records are merged into the mapping, then the duplicates
	 * squeezed out: bytes past the kept ones get scribbled on, which only
	 * the cut back at sink_close removes; a file with data there keeps it */
	struct stat st;
	if (k->unique && (fstat(k->f->fd, &st) < 0 || st.st_size > at))
		return -EOPNOTSUPP;
	int rc = io_outmap_open(&k->map, k->f->fd, bytes);
	if (rc)
		return rc;
	/* the test build's other process truncating the output under the mapping */
	if (io_fault_is("output-shrinks"))
		(void)!ftruncate(k->f->fd, at);
	if (threads > 1 && tpool_start(&k->tp, threads))
		k->tp = NULL; /* no threads to be had: copies on the caller's */
	return 0;
}

void sink_writeback_early(sink *k, size_t piece)
{
	k->wb_piece = sink_mapped(k) ? (piece ? piece : SINK_WRITEBACK_BYTES) : 0;
	k->wb_at = k->fill;
}

/* The writer's job: start the writeback of the mapping's [off, off + len),
 * a piece at a time, so that sink_close, which stops it, waits for at
 * most one piece's queueing, not for the disk to take the whole range. */
static ssize_t writeback_call(io_job *j, io_ring *r)
{
	(void)r;
	sink *k = j->arg;
	const uint64_t P = k->wb_piece;
	double t0 = util_now();
	for (uint64_t at = j->off, end = j->off + j->len, to; at < end && !atomic_load(&k->wb_stop); at = to) {
		to = (at / P + 1) * P < end ? (at / P + 1) * P : end;
		if (io_outmap_writeback(&k->map, at, to) == 0) /* a hint: see io.h */
			k->wb_bytes += to - at;
	}
	k->wb_s += util_now() - t0;
	return 0;
}

/* Hand the bytes stored since the last range to the writer for writeback,
 * once there are a piece of them and the last range's job is done (while
 * it runs the stores go on, and the next range is longer). */
static void writeback_stored(sink *k)
{
	if (!k->wb_piece || k->fill - k->wb_at < k->wb_piece)
		return;
	if (k->wb_pending && !io_worker_done(&k->w, &k->wbj))
		return;
	k->wbj = (io_job){ .op = IO_JOB_CALL, .call = writeback_call, .arg = k, .off = k->wb_at,
			   .len = k->fill - k->wb_at };
	k->wb_at = k->fill;
	k->wb_pending = 1;
	io_worker_submit(&k->w, &k->wbj);
}

/* Copy n records from recs to the mapping's next bytes; 0 or -errno. */
static int put_mapped(sink *k, const uint8_t *recs, size_t n)
{
	size_t len = n * k->s->record_size;
	if (k->err)
		return k->err;
	if (len > k->map.bytes - k->fill) /* more than the caller said would come */
		return k->err = -EFBIG;
	if (k->tp)
		tpool_memcpy(k->tp, k->map.base + k->fill, recs, len);
	else
		memcpy(k->map.base + k->fill, recs, len);
	k->fill += len;
	k->records += n;
	k->bytes += len;
	writeback_stored(k);
	return 0;
}

static void wait_job(sink *k, int b)
{
	if (!k->pending[b])
		return;
	ssize_t r = wait_write(k, &k->job[b], &k->vjob[b]);
	if (r < 0 && !k->err)
		k->err = (int)r;
	k->pending[b] = 0;
}

/*
 * Hand buf[cur] to the writer. Unless final, only whole IO_ALIGN blocks go
 * (and, when verifying, whole records: the cut is the largest length that is
 * both); the rest moves to the front of the other buffer.
 */
static void flush(sink *k, int final)
{
	size_t R = k->s->record_size, len = k->fill;
	if (!final) {
		size_t unit = IO_ALIGN;
		if (k->vsum) {
			/* lcm(IO_ALIGN, R) when small enough, else whole records */
			unit = io_align_records(R) * R;
			if (unit > k->cap / 2)
				unit = R;
		}
		len = len / unit * unit;
	}
	int b = k->cur, nb = 1 - b;
	wait_job(k, nb);
	size_t rest = k->fill - len;
	memcpy(k->buf[nb], k->buf[b] + len, rest);
	if (len) {
		k->job[b] = (io_job){ .op = IO_JOB_WRITE, .f = k->f, .buf = k->buf[b], .len = len, .arg = k };
		submit_write(k, &k->job[b], &k->vjob[b]);
		k->pending[b] = 1;
		k->bytes += len;
	}
	k->cur = nb;
	k->fill = rest;
}

uint8_t *sink_reserve(sink *k, size_t n)
{
	size_t need = n * k->s->record_size;
	if (k->err)
		return NULL;
	if (sink_mapped(k)) {
		if (need > k->map.bytes - k->fill) {
			k->err = -EFBIG;
			return NULL;
		}
		return k->map.base + k->fill;
	}
	if (need > k->cap - IO_ALIGN) {
		k->err = -EINVAL;
		return NULL;
	}
	if (k->fill + need > k->cap)
		flush(k, 0);
	/* the carried tail can be up to half a buffer when --verify cuts at
	 * whole records: then hand over everything, aligned or not */
	if (k->fill + need > k->cap)
		flush(k, 1);
	if (k->err)
		return NULL;
	return k->buf[k->cur] + k->fill;
}

/* Keep the first record of each run of equal keys; returns records kept. */
static size_t dedup(sink *k, uint8_t *p, size_t n)
{
	size_t R = k->s->record_size, o = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t *r = p + i * R;
		if (k->have_last && keys_compare(k->s, k->last, r) == 0)
			continue;
		if (o != i)
			memmove(p + o * R, r, R);
		memcpy(k->last, p + o * R, R);
		k->have_last = 1;
		o++;
	}
	return o;
}

void sink_commit(sink *k, uint8_t *p, size_t n)
{
	progress_add(k->prog, n * k->s->record_size);
	if (k->unique)
		n = dedup(k, p, n);
	k->fill += n * k->s->record_size;
	k->records += n;
	if (sink_mapped(k)) {
		k->bytes += n * k->s->record_size;
		writeback_stored(k);
	}
}

int sink_put(sink *k, uint8_t *recs, size_t n)
{
	if (k->err)
		return k->err;
	progress_add(k->prog, n * k->s->record_size);
	if (k->unique)
		n = dedup(k, recs, n);
	if (sink_mapped(k))
		return put_mapped(k, recs, n);
	flush(k, 1);
	wait_job(k, 0);
	wait_job(k, 1);
	if (k->err)
		return k->err;
	k->ext = (io_job){ .op = IO_JOB_WRITE, .f = k->f, .buf = recs, .len = n * k->s->record_size, .arg = k };
	submit_write(k, &k->ext, &k->vext);
	ssize_t r = wait_write(k, &k->ext, &k->vext);
	if (r < 0 && !k->err)
		k->err = (int)r;
	k->records += n;
	k->bytes += n * k->s->record_size;
	return k->err;
}

static void wait_oldest(sink *k)
{
	ssize_t r = wait_write(k, &k->q[k->qh], &k->vq[k->qh]);
	if (r < 0 && !k->err)
		k->err = (int)r;
	k->qh = (k->qh + 1) % SINK_QUEUE;
	k->qn--;
}

int sink_put_async(sink *k, uint8_t *recs, size_t n)
{
	if (k->err)
		return k->err;
	progress_add(k->prog, n * k->s->record_size);
	if (k->unique)
		n = dedup(k, recs, n);
	if (sink_mapped(k))
		return put_mapped(k, recs, n);
	if (k->fill)
		flush(k, 1); /* reserved records go first */
	if (k->qn == SINK_QUEUE)
		wait_oldest(k);
	if (k->err)
		return k->err;
	int at = (k->qh + k->qn) % SINK_QUEUE;
	k->q[at] = (io_job){ .op = IO_JOB_WRITE, .f = k->f, .buf = recs, .len = n * k->s->record_size, .arg = k };
	submit_write(k, &k->q[at], &k->vq[at]);
	k->qn++;
	k->records += n;
	k->bytes += n * k->s->record_size;
	return 0;
}

int sink_sync(sink *k)
{
	return sink_sync_to(k, 0);
}

int sink_sync_to(sink *k, int most)
{
	while (k->qn > (most > 0 ? most : 0))
		wait_oldest(k);
	return k->err;
}

int sink_close(sink *k)
{
	sink_sync(k);
	if (k->wb_pending) {
		/* the rest of the output is left to the kernel's writeback */
		atomic_store(&k->wb_stop, 1);
		io_worker_wait(&k->w, &k->wbj); /* it reads k->map */
	}
	k->wb_pending = 0;
	k->wb_piece = 0;
	if (sink_mapped(k)) {
		/* --verify: the output as it stands in the file's pages, complete
		 * (-u's drops made), on every thread */
		if (k->vsum && !k->err)
			verify_add_par(k->vtp, k->vsum, k->vord, k->map.base, k->fill / k->s->record_size,
				       k->s->record_size);
		int rc = io_outmap_close(&k->map, k->fill);
		if (rc && !k->err)
			k->err = rc;
		k->f->pos = k->map.at + k->fill;
		k->fill = 0;
		tpool_stop(k->tp);
		k->tp = NULL;
	}
	if (k->buf[0]) {
		if (!k->err && k->fill)
			flush(k, 1);
		wait_job(k, 0);
		wait_job(k, 1);
	}
	io_worker_stop(&k->w);
	if (k->vw_on)
		io_worker_stop(&k->vw);
	k->vw_on = 0;
	tpool_stop(k->vtp);
	k->vtp = NULL;
	if (k->spill && !k->err && run_hash_end(&k->spill->hash))
		k->err = -ENOMEM;
	free(k->buf[0]);
	free(k->buf[1]);
	free(k->last);
	k->buf[0] = k->buf[1] = NULL;
	k->last = NULL;
	return k->err;
}
