/* runs_resident.c - device-resident chunks (runs.h PLAN_RESIDENT; resident.h). */
#define _GNU_SOURCE
#include "runs.h"
#include "inputs.h"
#include "resident.h"
#include "runlist.h"
#include "tpool.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the sorted pieces of a resident chunk go. */
struct chunk_dst {
	job_ctx *c;
	sink *out;        /* the whole input was one chunk: straight to the output */
	run *r;           /* else this run: kept (r->mem) or spilled (r->file at r->off) */
	uint64_t done;    /* records received */
	tpool *tp;
	io_ring *ring;
	int *ring_ok;     /* ring started (at the first spill) */
	io_outmap map;    /* a spilled run's bytes mapped (map.map NULL: written through ring) */
	int mapped;       /* the run was stored through map (counted once it is whole) */
	int err;          /* -errno of a failed spill write */
	/* a pipe's chunk, placed once its size is known (place_chunk) */
	sink *whole;      /* the output, should the pipe end within the chunk */
	struct pipe_src *src; /* its journal */
};

/* Make d's destination a new run of cnt records, kept in memory or spilled
 * (stored through the spill file's mapping where it can be). 0 or -1 (c->r
 * filled). */
static int open_run(struct chunk_dst *d, uint64_t cnt, int keep)
{
	job_ctx *c = d->c;
	run *r = runlist_new(c);
	if (!r)
		return -1;
	d->r = r;
	r->n = cnt;
	if (keep) {
		if (!(r->mem = util_alloc_huge(cnt * c->R))) {
			job_fail(c, "out of memory (a run of %" PRIu64 " bytes; try a smaller -S)", cnt * c->R);
			return -1;
		}
		return 0;
	}
	int rc;
	if (!*d->ring_ok && (rc = io_ring_init(d->ring))) {
		job_fail(c, "cannot start I/O: %s", strerror(-rc));
		return -1;
	}
	*d->ring_ok = 1;
	if (runlist_spill(c, r, cnt * c->R) < 0)
		return -1;
	if (run_sample_start(r, c->R)) {
		job_fail(c, "out of memory");
		return -1;
	}
	r->file->pos = r->off; /* written here, synchronously */
	/* or stored into its mapping by every thread: one thread's writes to a
	 * file do not scale (sink_map) */
	d->mapped = !r->zfile && r->file->dfd < 0 && !c->o->knobs.no_outmap &&
		    io_outmap_open_at(&d->map, r->file->fd, r->off, cnt * c->R) == 0;
	return 0;
}

static int consume_piece(void *arg, uint8_t *recs, size_t n)
{
	struct chunk_dst *d = arg;
	size_t R = d->c->R;
	if (d->out) {
		progress_add(d->c->prog, n * R);
		return sink_put(d->out, recs, n); /* the caller reports the sink's error */
	}
	run *r = d->r;
	if (r->mem) {
		tpool_memcpy(d->tp, r->mem + d->done * R, recs, n * R);
	} else {
		/* the spill stage: checksums, and the store (beside them, by
		 * every thread) or the write */
		double t0 = util_now();
		int rc = run_hash_add_par(&r->hash, d->tp, d->map.map ? d->map.base + d->done * R : NULL, recs, n * R);
		if (!rc && !d->map.map)
			rc = io_write_next(d->ring, r->file, recs, n * R);
		d->c->st.spill_s += util_now() - t0;
		if (rc) {
			d->err = rc;
			return rc;
		}
		run_sample_add(r, recs, d->done, n, R);
	}
	d->done += n;
	progress_add(d->c->prog, n * R);
	return 0;
}

/*
 * An input of unknown size (a pipe), read in order into the device's chunk
 * (resident_chunk's stream): when it ends within the chunk, only the
 * device sort and the copy out are left after its last byte. What the
 * chunk took of the input is also kept in the journal, a host copy, until
 * the chunk is the output or a run: a device that fails or refuses it then
 * loses nothing (the journal is handed back to the reader, inputs_replay,
 * for the CPU engine to go on from). A pipe longer than the chunk goes on
 * in the chunked path after it (runs_pipe returns 1 with the chunk a run).
 */
struct pipe_src {
	job_ctx *c;
	io_ring *ring;
	uint8_t *journal; /* the current chunk's records as read */
	uint64_t jn;      /* records in it */
	int err;          /* inputs_read_chunk's error */
	/* each piece is copied into the journal by a thread of its own while
	 * the next is read (the copy on the reader's thread slowed the read):
	 * at most one copy per staging buffer in flight */
	io_worker copier;
	io_job copy[RESIDENT_SLOTS];
	int pending[RESIDENT_SLOTS];
};

static ssize_t journal_copy(io_job *j, io_ring *ring)
{
	(void)ring;
	memcpy(j->arg, j->buf, j->len);
	return (ssize_t)j->len;
}

/* Wait for the journal copy out of staging buffer buf (NULL: of every one). */
static void journal_wait(struct pipe_src *p, const uint8_t *buf)
{
	for (int k = 0; k < RESIDENT_SLOTS; k++)
		if (p->pending[k] && (!buf || p->copy[k].buf == buf)) {
			(void)io_worker_wait(&p->copier, &p->copy[k]);
			p->pending[k] = 0;
		}
}

static ssize_t pipe_read(void *arg, uint8_t *buf, size_t want)
{
	struct pipe_src *p = arg;
	job_ctx *c = p->c;
	journal_wait(p, buf); /* buf is about to be refilled */
	io_job j = { .op = IO_JOB_CALL, .arg = c, .buf = buf, .len = want * c->R, .cap = want * c->R };
	ssize_t n = inputs_read_chunk(&j, p->ring);
	if (n < 0) {
		p->err = (int)n;
		return -1;
	}
	int k = 0;
	while (p->pending[k])
		k++; /* a free one: at most RESIDENT_SLOTS - 1 others are in flight */
	p->copy[k] = (io_job){ .op = IO_JOB_CALL, .call = journal_copy, .buf = buf, .len = (size_t)n * c->R,
			       .arg = p->journal + p->jn * c->R };
	io_worker_submit(&p->copier, &p->copy[k]);
	p->pending[k] = 1;
	p->jn += (uint64_t)n;
	return n;
}

/* A pipe's first chunk of n records, the input ended within it or not:
 * the output when it is the only chunk (mapped, now that its size is
 * known), else the first run, kept (the plan leaves it room beside the
 * journal) unless -S is too small for it. */
static int place_chunk(void *arg, uint64_t n, int ended)
{
	struct chunk_dst *d = arg;
	job_ctx *c = d->c;
	journal_wait(d->src, NULL); /* the staging buffers now bring the chunk back */
	if (ended) {
		d->out = d->whole;
		job_map_output(c, d->out, (int64_t)(n * c->R));
		return 0;
	}
	return open_run(d, n, n * c->R <= c->plan.share_kept);
}

/* The first chunk of a pipe (retried in halves while the device refuses it
 * before any of it is read): runs.h's contract; 1 also when the pipe goes
 * on past it, which is then c->runs[0]. */
static int runs_pipe(job_ctx *c, sink *out, int *single, resident *rs, tpool *tp, io_ring *ring, int *ring_ok)
{
	const size_t R = c->R;
	uint64_t chunk = c->plan.chunk, retries = 0;
	int ret = -1, rc;
	char msg[1024];
	struct pipe_src ps = { .c = c, .ring = ring };
	if (!*ring_ok && (rc = io_ring_init(ring))) {
		job_fail(c, "cannot start I/O: %s", strerror(-rc));
		return -1;
	}
	*ring_ok = 1;
	if (!(ps.journal = util_alloc_huge(chunk * R))) {
		job_fail(c, "out of memory (a chunk of %" PRIu64 " bytes; try a smaller -S)", chunk * R);
		return -1;
	}
	if ((rc = io_worker_start(&ps.copier))) {
		free(ps.journal);
		job_fail(c, "cannot start threads: %s", strerror(-rc));
		return -1;
	}
	progress_phase(c->prog, PROGRESS_SORT, 0, 0, -1);
	for (;;) {
		struct chunk_dst d = { .c = c, .tp = tp, .ring = ring, .ring_ok = ring_ok, .whole = out, .src = &ps };
		resident_chunk ch = { .n = chunk, .consume = consume_piece, .arg = &d, .stream = pipe_read,
				      .sarg = &ps, .placed = place_chunk };
		ps.jn = 0;
		rc = resident_sort_chunk(rs, &ch, NULL, msg, sizeof msg);
		journal_wait(&ps, NULL);
		int mrc = io_outmap_close(&d.map, d.done * R);
		if (mrc && !rc) {
			d.err = mrc;
			rc = -1;
		}
		if (rc == 1 && !ps.jn && chunk > 1) {
			chunk = (chunk + 1) / 2; /* the device refused it before any was read */
			retries++;
			continue;
		}
		if ((rc == 1 || rc == RESIDENT_GPU_FAILED) && !out->records) {
			/* the journal holds the chunk: the CPU engine goes on from it */
			if (d.r) {
				c->nruns--;
				runlist_free_run(c, d.r);
			}
			engine_gpu_lost(&c->eng, msg[0] ? msg : "GPU out of memory for a chunk");
			inputs_replay(c, ps.journal, ps.jn * R);
			ps.journal = NULL;
			ret = 1;
			break;
		}
		if (rc == 0 && d.r && d.r->spilled)
			rc = run_hash_end(&d.r->hash) ? -1 : 0;
		if (rc == 0 && d.r && d.r->spilled && runlist_spill_close(c, d.r))
			break; /* its compressor failed: c->r says so */
		if (rc) {
			if (ps.err)
				inputs_read_error(c, ps.err);
			else if (d.err)
				runlist_write_failed(c, d.r->file, d.err);
			else if (msg[0])
				job_fail(c, "%s", msg);
			else if (rc == 1)
				job_fail(c, "GPU out of memory for a chunk of %" PRIu64 " records", ch.n);
			else if (!d.out && !c->r->status)
				job_fail(c, "out of memory");
			break; /* a failed sink_put: the caller reports the sink's error */
		}
		c->st.read_s += ch.read_s;
		c->st.sort_s += ch.sort_s;
		c->st.records += ch.n;
		if (d.r) {
			c->st.runs++;
			c->st.spilled += d.r->spilled;
			c->st.spill_mapped += d.mapped;
		} else {
			*single = 1; /* the only chunk, or an empty input */
		}
		/* more follows: the chunked path goes on after this run, reading,
		 * sorting and spilling side by side, where a chunk here would
		 * stop the read while it drains (DESIGN.md section 2) */
		ret = ch.ended ? 0 : 1;
		if (ret) {
			snprintf(c->st.engine_buf, sizeof c->st.engine_buf, "%s (first chunk device-resident)",
				 c->eng.name);
			c->st.engine = c->st.engine_buf;
		}
		break;
	}
	io_worker_stop(&ps.copier);
	free(ps.journal);
	c->st.chunk = c->st.records < chunk ? c->st.records : chunk;
	c->eng.gpu_retries += retries;
	return ret;
}

int runs_resident(job_ctx *c, sink *out, int *single)
{
	const int overlap = !c->o->knobs.no_overlap;
	const plan *pl = &c->plan;
	int64_t total = (int64_t)(pl->records * c->R);
	size_t piece = pl->piece;
	const int pipe = inputs_known_size(c) < 0;
	*single = 0;
	int rc = pipe ? 0 : inputs_reopen(c);
	if (rc)
		return rc; /* an input changed since it was checked: read it as a stream */
	tpool *tp = NULL;
	resident *rs = NULL;
	io_ring ring;
	int ring_ok = 0, ret = -1;
	double s0 = util_now();
	rc = tpool_start(&tp, c->o->threads);
	if (rc) {
		job_fail(c, "cannot start threads: %s", strerror(-rc));
		return -1;
	}
	rc = resident_open(&rs, &c->eng, c->s, c->in, pipe ? 0 : c->nin, piece, tp);
	c->st.start_s += util_now() - s0;
	if (rc) {
		tpool_stop(tp);
		if (rc < 0)
			job_fail(c, "out of memory");
		return rc < 0 ? -1 : 1;
	}
	if (pipe) {
		if ((ret = runs_pipe(c, out, single, rs, tp, &ring, &ring_ok)) == 0)
			goto named;
		goto out;
	}
	uint64_t n = (uint64_t)total / c->R, chunk = c->eng.max_records, first = 0, retries = 0;
	/* counted as the sorted pieces come back (consume_piece): a chunk the
	 * device refuses, and retries in halves, has consumed none */
	progress_phase(c->prog, PROGRESS_SORT, 0, 0, total);
	int keep = pl->resident_keep;
	char msg[1024];
	while (first < n) {
		uint64_t cnt = n - first < chunk ? n - first : chunk;
		struct chunk_dst d = { .c = c, .tp = tp, .ring = &ring, .ring_ok = &ring_ok };
		if (first == 0 && cnt == n)
			d.out = out;
		else if (open_run(&d, cnt, keep))
			goto out;
		run *r = d.r;
		resident_chunk ch = { .first = first, .n = cnt, .consume = consume_piece, .arg = &d,
				      .vin = c->o->verify ? &c->vin : NULL };
		/* the next chunk as the next turn of this loop will ask for it (a
		 * retry in halves asks for another, and the prefetch is dropped) */
		uint64_t left = n - first - cnt;
		resident_chunk nx = { .first = first + cnt, .n = left < chunk ? left : chunk, .vin = ch.vin };
		rc = resident_sort_chunk(rs, &ch, overlap && left ? &nx : NULL, msg, sizeof msg);
		int mrc = io_outmap_close(&d.map, d.done * c->R);
		if (mrc && !rc) {
			d.err = mrc;
			rc = -1;
		}
		if (rc == 1 && cnt > 1 && chunk > 1) {
			/* the device ran out of memory: retry this chunk in halves */
			if (r) {
				c->nruns--;
				runlist_free_run(c, r);
			}
			chunk = (cnt + 1) / 2;
			retries++;
			continue;
		}
		if (rc == RESIDENT_GPU_FAILED && !out->records) {
			/* nothing has left the process: the CPU engine sorts it all */
			engine_gpu_lost(&c->eng, msg);
			runlist_discard(c);
			ret = 1;
			goto out;
		}
		if (rc == 0 && r && r->spilled)
			rc = run_hash_end(&r->hash) ? -1 : 0;
		if (rc == 0 && r && r->spilled && runlist_spill_close(c, r))
			goto out; /* its compressor failed: c->r says so */
		if (rc) {
			if (d.err)
				runlist_write_failed(c, r->file, d.err);
			else if (msg[0])
				job_fail(c, "%s", msg);
			else if (rc == 1)
				job_fail(c, "GPU out of memory for a chunk of %" PRIu64 " records", cnt);
			else if (!d.out)
				job_fail(c, "out of memory");
			goto out; /* a failed sink_put: the caller reports the sink's error */
		}
		c->st.read_s += ch.read_s;
		c->st.sort_s += ch.sort_s;
		if (r) {
			c->st.runs++;
			c->st.spilled += r->spilled;
			c->st.spill_mapped += d.mapped; /* not a run retried in halves */
		} else {
			*single = 1;
		}
		first += cnt;
	}
	if (inputs_unchanged(c))
		goto out;
	c->st.records = n;
	c->st.chunk = chunk < n ? chunk : n;
	c->eng.gpu_retries += retries;
	ret = 0;
named:
	snprintf(c->st.engine_buf, sizeof c->st.engine_buf, "%s (device-resident)", c->eng.name);
	c->st.engine = c->st.engine_buf;
out:
	if (ring_ok)
		io_ring_exit(&ring);
	resident_close(rs);
	tpool_stop(tp);
	return ret;
}
