/* merge_phase.c - see merge_phase.h. */
#define _GNU_SOURCE
#include "merge_phase.h"
#include "gpumerge.h"
#include "gpumerge_spill.h"
#include "merge.h"
#include "quote.h"
#include "runlist.h"
#include "tpool.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void merge_error(job_ctx *c, int rc, run **runs, int bad, size_t block)
{
	if (rc == -EBADMSG && bad >= 0) {
		/* the block is the run's; its bytes are the file's, where a
		 * reader of the file finds them (a file holds several runs) */
		run *r = runs[bad];
		uint64_t lo = r->off + (uint64_t)block * RUN_BLOCK, hi = lo + RUN_BLOCK, end = r->off + r->n * c->R;
		job_fail(c, "temporary file %s: checksum mismatch in block %zu of the run at byte %" PRIu64
		     " (%sbytes %" PRIu64 "..%" PRIu64 "): spilled data was corrupted; no output written",
		     r->file->name, block, r->off, r->zfile ? "uncompressed " : "", lo, (hi < end ? hi : end) - 1);
	} else if (rc == -ENODATA && bad >= 0) {
		job_fail(c, "temporary file %s: --compress-program '%s -d' gave less than was written: spilled data "
			 "was lost; no output written", runs[bad]->file->name, c->o->compress);
	} else if (rc == -EPROTO && bad >= 0) {
		job_fail_size(c, runs[bad]->file->name, runs[bad]->n * c->R);
	} else if (bad >= 0 && runs[bad]->file) {
		job_fail(c, "read failed: %s: %s", quote_name(runs[bad]->file->name), strerror(-rc));
	} else {
		job_fail(c, "merge failed: %s", strerror(-rc));
	}
}

/* Bytes of the runs held in memory (not -m's mapped inputs: the page
 * cache's, not -S's). */
static uint64_t kept_bytes(const job_ctx *c)
{
	uint64_t kept = 0;
	for (int i = 0; i < c->nruns; i++)
		if (c->runs[i]->mem && !c->runs[i]->map)
			kept += c->runs[i]->n * c->R;
	return kept;
}

/* Bytes of runs[lo..hi) for --progress; -1 (not known) when one is a pipe (-m). */
static int64_t runs_bytes(const job_ctx *c, int lo, int hi)
{
	uint64_t b = 0;
	for (int i = lo; i < hi; i++) {
		if (c->runs[i]->stream)
			return -1;
		b += c->runs[i]->n * c->R;
	}
	return (int64_t)b;
}

int64_t merge_phase_bytes(const job_ctx *c)
{
	return runs_bytes(c, 0, c->nruns);
}

size_t merge_phase_sink_bytes(const job_ctx *c)
{
	plan_merge pm;
	plan_merge_make(c->s, c->o->mem, kept_bytes(c), (uint64_t)c->nruns, c->o->batch_size, &pm);
	return pm.sink;
}

/*
 * merge_runs (merge.h) of runs[0..k) into out, with the decompressors of
 * compressed runs around it (runlist_read_start/end), and the stage times
 * added to c's. A failure is reported (c->r): a checksum first (it names
 * the block), then a decompressor's exit status (it says why data ended),
 * then the merge's own error, unless it is the sink's (out->err: the
 * caller's to report). Returns 0 or -1.
 */
static int merge_some(job_ctx *c, run **runs, int k, sink *out, const plan_merge *pm)
{
	int bad = -1;
	size_t block = 0;
	merge_stats ms = { 0 };
	int rc = runlist_read_start(c, runs, k) ? -1 : 0;
	if (!rc)
		rc = merge_runs(c->s, runs, k, out, pm->windows, c->o->threads, &ms, &bad, &block);
	c->st.merge_s += ms.merge_s;
	c->st.mread_s += ms.read_s;
	c->st.rounds += ms.rounds;
	c->st.parts += ms.parts;
	if (rc == -EBADMSG)
		merge_error(c, rc, runs, bad, block);
	int zrc = runlist_read_end(c, runs, k, rc != 0, bad);
	if (rc < 0 && rc != -EBADMSG && !out->err)
		merge_error(c, rc, runs, bad, block);
	return rc || zrc ? -1 : 0;
}

/* Merge runs[lo..hi) into one spilled run put in their place. */
static int merge_group(job_ctx *c, int lo, int hi, const plan_merge *pm)
{
	run *nr = calloc(1, sizeof *nr);
	if (!nr) {
		job_fail(c, "out of memory");
		return -1;
	}
	int dir = runlist_spill(c, nr, 0);
	if (dir < 0) {
		runlist_free_run(c, nr);
		return -1;
	}
	io_file *f = nr->file;
	f->pos = nr->off;
	sink k;
	int rc = sink_open(&k, c->s, f, nr, 0, pm->sink);
	k.prog = c->prog;
	if (rc)
		job_fail(c, "cannot start the writer: %s", strerror(-rc));
	else
		rc = merge_some(c, c->runs + lo, hi - lo, &k, pm);
	int wrc = sink_close(&k);
	if (rc || wrc) {
		if (wrc)
			runlist_write_failed(c, f, wrc);
		runlist_free_run(c, nr);
		return -1;
	}
	for (int i = lo; i < hi; i++)
		nr->n += c->runs[i]->n;
	if (runlist_spill_close(c, nr)) {
		runlist_free_run(c, nr);
		return -1;
	}
	if (!nr->zfile)
		runlist_spill_end(c, dir, f->pos);
	for (int i = lo; i < hi; i++)
		runlist_free_run(c, c->runs[i]);
	c->runs[lo] = nr;
	memmove(c->runs + lo + 1, c->runs + hi, (size_t)(c->nruns - hi) * sizeof *c->runs);
	c->nruns -= hi - lo - 1;
	c->st.pass_spilled++;
	return 0;
}

/*
 * The CPU merge of what the GPU merge left (GPUMERGE_REST): runs[i]'s
 * records from rest[i] on, all in memory, in one pass when the fan-in
 * allows it (it is an error otherwise: --batch-size below the runs kept).
 * Returns 0 or -1 (c->r filled, or the sink's error).
 */
static int merge_rest_on_cpu(job_ctx *c, sink *out, const uint64_t *rest)
{
	int k = c->nruns;
	plan_merge pm;
	plan_merge_make(c->s, c->o->mem, kept_bytes(c), (uint64_t)k, c->o->batch_size, &pm);
	if (k > pm.fanin) {
		job_fail(c, "%s; merging the rest takes more than one pass of --batch-size=%d",
			 c->eng.gpu_lost_why[0] ? c->eng.gpu_lost_why : "GPU out of memory while merging", pm.fanin);
		return -1;
	}
	run *slice = calloc((size_t)k, sizeof *slice);
	run **slices = calloc((size_t)k, sizeof *slices);
	if (!slice || !slices) {
		free(slice);
		free(slices);
		job_fail(c, "out of memory");
		return -1;
	}
	for (int i = 0; i < k; i++) {
		slice[i].mem = c->runs[i]->mem + rest[i] * c->R;
		slice[i].n = c->runs[i]->n - rest[i];
		slices[i] = &slice[i];
	}
	int rc = merge_some(c, slices, k, out, &pm);
	free(slices);
	free(slice);
	return rc;
}

/*
 * The GPU merge of spilled runs (gpumerge_spill.h), beside any kept in
 * memory: the stage times into c's, a failed read-back reported as the CPU
 * merge reports it. Returns as merge_on_gpu; why: the reason for a 1.
 */
static int merge_spilled_on_gpu(job_ctx *c, sink *out, tpool *tp, char *why, size_t wlen)
{
	int knob = c->o->merge_where == JOB_WHERE_AUTO ? c->o->knobs.spill_merge : 0;
	if (knob == JOB_WHERE_CPU) {
		snprintf(why, wlen, "GPUSORT_SPILL_MERGE=cpu");
		return 1;
	}
	plan_merge pm;
	plan_merge_make(c->s, c->o->mem, kept_bytes(c), (uint64_t)c->nruns, c->o->batch_size, &pm);
	/* staging as the plan gave it, else from the merge's memory; out of
	 * the windows' half (the sink has the other), so that -S holds */
	size_t piece = c->plan.piece ? c->plan.piece : pm.mem / (2 * RESIDENT_SLOTS);
	piece = piece < RESIDENT_MIN_PIECE ? RESIDENT_MIN_PIECE : piece > RESIDENT_PIECE ? RESIDENT_PIECE : piece;
	uint64_t staging = (uint64_t)RESIDENT_SLOTS * piece, windows = pm.windows;
	windows -= staging < windows / 2 ? staging : windows / 2;
	gpumerge_stats gs = { 0 };
	char msg[1024];
	int rc = gpumerge_spilled(&c->eng, c->s, c->runs, c->nruns, out, tp, c->o->threads, piece, windows,
				  c->o->merge_where == JOB_WHERE_GPU || knob == JOB_WHERE_GPU, c->o->knobs.gpu_merge_by_sort, &gs, msg, sizeof msg,
				  why, wlen);
	c->st.gpu_groups += gs.groups;
	c->st.gm_spill_groups += gs.groups;
	c->st.gm_cpu_groups += gs.cpu_groups;
	c->st.gm_read_s += gs.read_s;
	c->st.gm_wait_s += gs.wait_s;
	c->st.gm_fill_s += gs.fill_s;
	c->st.gm_dev_s += gs.device_s;
	c->st.gm_store_s += gs.store_s;
	c->st.mread_s += gs.read_s;
	if (rc < 0 && gs.err)
		merge_error(c, gs.err, c->runs, gs.bad_run, gs.bad_block);
	else if (rc < 0 && msg[0])
		job_fail(c, "%s", msg);
	return rc;
}

/*
 * The GPU merge: of runs held in memory (gpumerge.h), the CPU merging what
 * a device that failed or ran out of memory part-way left; of spilled runs
 * (merge_spilled_on_gpu). Returns 0, 1 (it cannot: merge on the CPU; why
 * says why when it is not the device's failure) or -1 (c->r filled, or the
 * sink's error).
 */
static int merge_on_gpu(job_ctx *c, sink *out, char *why, size_t wlen)
{
	tpool *tp = NULL;
	size_t piece = c->plan.piece;
	int rc = tpool_start(&tp, c->o->threads);
	if (rc) {
		job_fail(c, "cannot start threads: %s", strerror(-rc));
		return -1;
	}
	double t0 = util_now();
	int64_t bytes = runs_bytes(c, 0, c->nruns);
	if (bytes < 0 || kept_bytes(c) != (uint64_t)bytes) {
		out->prog = c->prog;
		rc = merge_spilled_on_gpu(c, out, tp, why, wlen);
		tpool_stop(tp);
		out->prog = NULL;
		c->st.merge_s += util_now() - t0;
		c->st.passes += rc == 0;
		return rc;
	}
	uint64_t *rest = malloc((size_t)c->nruns * sizeof *rest);
	if (!rest) {
		tpool_stop(tp);
		job_fail(c, "out of memory");
		return -1;
	}
	gpumerge_stats gs = { .rest = rest };
	char msg[1024];
	progress_phase(c->prog, PROGRESS_MERGE, 1, 1, bytes);
	out->prog = c->prog;
	rc = gpumerge_runs(&c->eng, c->s, c->runs, c->nruns, out, tp, piece, c->o->knobs.gpu_merge_by_sort, &gs, msg,
			   sizeof msg);
	tpool_stop(tp);
	out->prog = NULL;
	c->st.merge_s += util_now() - t0;
	c->st.gpu_groups += gs.groups;
	if (rc < 0 && msg[0])
		job_fail(c, "%s", msg);
	if (rc == 0)
		c->st.passes++;
	if (rc == GPUMERGE_REST && (rc = merge_rest_on_cpu(c, out, rest)) == 0)
		c->st.passes++;
	free(rest);
	return rc;
}

int merge_phase(job_ctx *c, sink *out)
{
	if (c->o->merge_where != JOB_WHERE_CPU && c->eng.gpu && !c->o->merge_only) {
		char *why = c->st.gm_why;
		int rc = merge_on_gpu(c, out, why, sizeof c->st.gm_why);
		if (rc <= 0)
			return rc;
		if (c->o->merge_where == JOB_WHERE_GPU && c->eng.gpu_lost_why[0]) {
			job_fail(c, "--merge-engine=gpu: %s", c->eng.gpu_lost_why);
			return -1;
		}
		if (c->o->merge_where == JOB_WHERE_GPU) {
			job_fail(c, "--merge-engine=gpu: the GPU merge cannot take these runs: %s",
				 why[0] ? why : "the device or pinned staging memory refused it");
			return -1;
		}
	}
	if (c->o->merge_where == JOB_WHERE_GPU) {
		job_fail(c, "--merge-engine=gpu: %s", c->o->merge_only ? "-m merges files; the GPU merge takes runs held in memory"
							     : "no GPU engine (see --cpu, --device)");
		return -1;
	}
	plan_merge pm;
	plan_merge_make(c->s, c->o->mem, kept_bytes(c), (uint64_t)c->nruns, c->o->batch_size, &pm);
	int fanin = pm.fanin, pass = 0, passes = 1;
	for (int n = c->nruns; n > fanin; n = (n + fanin - 1) / fanin)
		passes++; /* each pass leaves a run per group */
	while (c->nruns > fanin) {
		/* a pass: groups of consecutive runs, so ties keep input order */
		c->st.passes++;
		int groups = (c->nruns + fanin - 1) / fanin;
		/* the pass's bytes: its groups of more than one run (the loop below
		 * merges group g, runs [g fanin, g fanin + fanin) as they stand now,
		 * into run g, so it finds it at g) */
		int64_t merged = 0;
		for (int g = 0; g < groups && merged >= 0; g++) {
			int lo = g * fanin, hi = lo + fanin < c->nruns ? lo + fanin : c->nruns;
			int64_t b = hi - lo > 1 ? runs_bytes(c, lo, hi) : 0;
			merged = b < 0 ? -1 : merged + b;
		}
		progress_phase(c->prog, PROGRESS_MERGE, ++pass, passes, merged);
		for (int g = 0; g < groups; g++) {
			int lo = g, hi = g + fanin < c->nruns ? g + fanin : c->nruns;
			if (hi - lo > 1 && merge_group(c, lo, hi, &pm))
				return -1;
		}
	}
	c->st.passes++;
	progress_phase(c->prog, PROGRESS_MERGE, ++pass, passes, runs_bytes(c, 0, c->nruns));
	out->prog = c->prog;
	int rc = merge_some(c, c->runs, c->nruns, out, &pm); /* the output's error is reported by the caller */
	out->prog = NULL;
	return rc;
}
