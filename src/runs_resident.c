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
	io_outmap map;    /* a spilled run's bytes mapped (map.map NULL: written through ring) */
	int mapped;       /* the run was stored through map (counted once it is whole) */
	int err;          /* -errno of a failed spill write */
};

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
		/* the spill stage: checksums, and the store or the write */
		double t0 = util_now();
		int rc = run_hash_add(&r->hash, recs, n * R);
		if (!rc && d->map.map)
			tpool_memcpy(d->tp, d->map.base + d->done * R, recs, n * R);
		else if (!rc)
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

int runs_resident(job_ctx *c, sink *out, int *single)
{
	const int overlap = !c->o->knobs.no_overlap;
	const plan *pl = &c->plan;
	int64_t total = (int64_t)(pl->records * c->R);
	size_t piece = pl->piece;
	*single = 0;
	int rc = inputs_reopen(c);
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
	rc = resident_open(&rs, &c->eng, c->s, c->in, c->nin, piece, tp);
	c->st.start_s += util_now() - s0;
	if (rc) {
		tpool_stop(tp);
		if (rc < 0)
			job_fail(c, "out of memory");
		return rc < 0 ? -1 : 1;
	}
	uint64_t n = (uint64_t)total / c->R, chunk = c->eng.max_records, first = 0, retries = 0;
	/* counted as the sorted pieces come back (consume_piece): a chunk the
	 * device refuses, and retries in halves, has consumed none */
	progress_phase(c->prog, PROGRESS_SORT, 0, 0, total);
	int keep = pl->resident_keep;
	char msg[1024];
	while (first < n) {
		uint64_t cnt = n - first < chunk ? n - first : chunk;
		struct chunk_dst d = { .c = c, .tp = tp, .ring = &ring };
		run *r = NULL;
		if (first == 0 && cnt == n) {
			d.out = out;
		} else {
			if (!(r = runlist_new(c))) {
				job_fail(c, "out of memory");
				goto out;
			}
			r->n = cnt;
			if (keep) {
				r->mem = util_alloc_huge(cnt * c->R);
				if (!r->mem) {
					job_fail(c, "out of memory (a run of %" PRIu64 " bytes; try a smaller -S)", cnt * c->R);
					goto out;
				}
			} else {
				if (!ring_ok && (rc = io_ring_init(&ring))) {
					job_fail(c, "cannot start I/O: %s", strerror(-rc));
					goto out;
				}
				ring_ok = 1;
				if (runlist_spill(c, r, cnt * c->R) < 0)
					goto out;
				if (run_sample_start(r, c->R)) {
					job_fail(c, "out of memory");
					goto out;
				}
				r->file->pos = r->off; /* written here, synchronously */
				/* or stored into its mapping by every thread: one
				 * thread's writes to a file do not scale (sink_map) */
				d.mapped = !r->zfile && r->file->dfd < 0 && !c->o->knobs.no_outmap &&
					   io_outmap_open_at(&d.map, r->file->fd, r->off, cnt * c->R) == 0;
			}
			d.r = r;
		}
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
	snprintf(c->st.engine_buf, sizeof c->st.engine_buf, "%s (device-resident)", c->eng.name);
	c->st.engine = c->st.engine_buf;
	c->eng.gpu_retries += retries;
	ret = 0;
out:
	if (ring_ok)
		io_ring_exit(&ring);
	resident_close(rs);
	tpool_stop(tp);
	return ret;
}
