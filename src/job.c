/*
 * job.c - a whole sort, as a short story (DESIGN.md section 2):
 *   plan      the planner (plan.h) picks the engine, the run formation path
 *             and every buffer's share of -S;
 *   form runs one path of runs.h reads the inputs chunk by chunk, sorts each
 *             with the engine and writes the only chunk straight out, or
 *             leaves the runs kept in memory or spilled;
 *   merge     merge_phase.h merges the runs into the output;
 *   commit    --verify's checks, then the output renamed into place.
 * Any failure leaves the output untouched and removes the temp files.
 */
#define _GNU_SOURCE
#include "job.h"
#include "inputs.h"
#include "jobctx.h"
#include "merge_phase.h"
#include "quote.h"
#include "runlist.h"
#include "runs.h"
#include "sink.h"
#include "stats.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int job_setup(job_ctx *c, const job_opts *o, job_result *r)
{
	memset(c, 0, sizeof *c);
	c->o = o;
	c->r = r;
	c->s = &o->keys;
	c->R = o->keys.record_size;
	c->st.t0 = util_now();
	c->bad_file = 0;
	c->spill = calloc((size_t)o->ntmp, sizeof *c->spill);
	c->spill_end = calloc((size_t)o->ntmp, sizeof *c->spill_end);
	c->vord.last = malloc(c->R);
	if (!c->spill || !c->spill_end || !c->vord.last) {
		job_fail(c, "out of memory");
		return -1;
	}
	verify_order_init(&c->vord, c->s, o->unique);
	/* the reader's sum of the input on every thread: one thread hashes
	 * 2-byte records at ~0.3 GB/s, far below a pipe's or the disk's pace */
	if (o->verify && o->threads > 1 && tpool_start(&c->vtp, o->threads))
		c->vtp = NULL;
	for (int i = 0; i < o->ntmp; i++)
		c->spill[i].fd = c->spill[i].dfd = -1;
	if (o->progress) {
		progress_start(&c->prog_store, stderr, o->progress_tty, o->progress_interval);
		c->prog = &c->prog_store;
	}
	return 0;
}

void job_teardown(job_ctx *c)
{
	inputs_close(c);
	double t0 = util_now();
	for (int i = 0; i < c->o->ntmp && c->spill; i++)
		if (c->spill[i].fd >= 0)
			io_close(&c->spill[i]);
	c->st.teardown_spill_s = util_now() - t0;
	t0 = util_now();
	for (int i = 0; i < c->nruns; i++)
		runlist_free_run(c, c->runs[i]);
	c->st.teardown_runs_s = util_now() - t0;
	free(c->runs);
	free(c->in);
	free(c->in_bytes);
	free(c->in_seen);
	free(c->replay);
	free(c->spill);
	free(c->spill_end);
	free(c->vord.last);
	tpool_stop(c->vtp);
	t0 = util_now();
	engine_close(&c->eng);
	c->st.teardown_engine_s = util_now() - t0;
}

/* What the planner knows before the engine is chosen (plan_input). */
static plan_input plan_input_of(const job_ctx *c)
{
	const job_opts *o = c->o;
	return (plan_input){
		.keys = c->s,
		.input_bytes = inputs_known_size(c),
		.ninputs = c->nin,
		.mem = o->mem,
		.gpu_mem = o->gpu_mem,
		.threads = o->threads,
		.merge_only = o->merge_only,
		.max_fanin = o->batch_size,
		.gpu_likely = engine_gpu_likely(o),
		.gpu_asked = o->device >= 0 || o->algorithm == JOB_WHERE_GPU || o->merge_where == JOB_WHERE_GPU,
		.stream_ok = !o->knobs.no_stream,
		.resident_ok = !o->knobs.no_resident,
		.small_cpu_ok = !o->knobs.no_small_cpu,
		.count_ok = !o->knobs.no_count && !o->merge_only && o->device < 0 && o->algorithm != JOB_WHERE_GPU &&
			    o->merge_where != JOB_WHERE_GPU && c->s->record_size <= KEYS_COUNT_MAX && keys_inplace(c->s),
	};
}

/*
 * Choose and start the engine (engine.h) for the planner's input pin, then
 * plan the job with its capabilities into c->plan. The CUDA start-up runs on
 * its own thread meanwhile, while this one faults in the device-resident
 * path's staging when that path will be taken. Returns 0 or -1 (c->r filled).
 */
static int plan_job(job_ctx *c, plan_input *pin)
{
	const job_opts *o = c->o;
	job_opts *eo = &c->eng_opts; /* o, or o on the CPU when the input is small */
	*eo = *o;
	if ((c->small_cpu = plan_small_on_cpu(pin)) || pin->count_ok)
		eo->use_gpu = 0; /* counted records need no chunk sort: no device started */
	double e0 = util_now();
	engine_staging stage = { 0 };
	if (engine_prewarm(eo)) {
		plan guess; /* as if the device took any chunk: is the resident path taken? */
		plan_input g = *pin;
		g.gpu = 1;
		g.max_records = UINT64_MAX;
		plan_make(&g, &guess);
		if (guess.path == PLAN_RESIDENT)
			(void)engine_staging_prepare(&stage, guess.piece); /* optional: resident.c allocates otherwise */
		engine_prewarm_wait();
	}
	uint64_t budget = plan_device_budget(o->gpu_mem, o->merge_only ? 0 : pin->input_bytes);
	const uint64_t records = pin->input_bytes >= 0 && !o->merge_only ? (uint64_t)pin->input_bytes / c->s->record_size : 0;
	int erc = engine_open(&c->eng, eo, budget, records, c->gpu_note, sizeof c->gpu_note);
	if (c->eng.gpu)
		c->eng.stage = stage;
	else
		engine_staging_free(&stage);
	c->st.start_s += util_now() - e0;
	if (erc) {
		job_fail(c, "%s", c->eng.errmsg);
		return -1;
	}
	c->st.engine = c->eng.name;
	if (o->merge_where == JOB_WHERE_GPU && !c->eng.gpu) {
		job_fail(c, "--merge-engine=gpu: no GPU to merge on (%s)", !o->use_gpu ? "--cpu was given"
			 : c->gpu_note[0] ? c->gpu_note : "this gpusort was built without CUDA");
		return -1;
	}
	pin->gpu = c->eng.gpu != NULL;
	pin->max_records = c->eng.max_records;
	pin->scratch_per_record = c->eng.scratch_per_record;
	plan_make(pin, &c->plan);
	return 0;
}

/* The run formers of runs.h, one per path of the plan. */
static int (*const form_runs_of[])(job_ctx *, sink *, int *) = {
	[PLAN_STREAM] = runs_stream,
	[PLAN_RESIDENT] = runs_resident,
	[PLAN_CHUNKED] = runs_chunked,
	[PLAN_COUNT] = runs_count,
};

/*
 * Form the runs by the plan's path; a path that is not taken (1: an input
 * changed since the checks, pinned staging refused, the GPU failed before
 * any output) gives way to the chunked path, planned again without the
 * others for the engine as it is now. Returns 0 or -1 (runs.h).
 */
static int form_runs(job_ctx *c, plan_input *pin, sink *out, int *single)
{
	int rc = form_runs_of[c->plan.path](c, out, single);
	if (rc != 1)
		return rc;
	pin->stream_ok = pin->resident_ok = 0;
	/* runs kept by the path that gave way part through a pipe hold their
	 * memory until the merge: the chunked path plans with the rest of -S */
	uint64_t kept = 0;
	for (int i = 0; i < c->nruns; i++)
		kept += c->runs[i]->mem ? c->runs[i]->n * c->R : 0;
	pin->mem = pin->mem > kept + PLAN_MIN_MERGE_MEM ? pin->mem - kept : PLAN_MIN_MERGE_MEM;
	/* the engine may be the CPU now (engine_gpu_lost) */
	pin->gpu = c->eng.gpu != NULL;
	pin->max_records = c->eng.max_records;
	pin->scratch_per_record = c->eng.scratch_per_record;
	plan_make(pin, &c->plan);
	return runs_chunked(c, out, single);
}

/* Open the output's sink with buffers of `bytes`, --verify's sums attached. */
static int open_sink(job_ctx *c, sink *out, size_t bytes)
{
	int rc = sink_open(out, c->s, &c->out.f, NULL, c->o->unique, bytes);
	if (rc) {
		job_fail(c, "cannot start the writer: %s", strerror(-rc));
		return -1;
	}
	if (c->o->verify)
		sink_verify(out, &c->vout, &c->vord, c->o->threads);
	return 0;
}

/*
 * Fill the output through a mapping (sink_map) when `bytes` of records are
 * known to come: the threads that merge or copy records out store them
 * into the file's pages, where one writer thread's write(2)s were the
 * longest stage (--verify's sums then run on the mapped output when it
 * is complete, on every thread: sink_close). Not into
 * a file that is also an input (`1<>in`: written only after it is read,
 * and not grown under the read). A refusal leaves the writer: no error.
 */
void job_map_output(job_ctx *c, sink *out, int64_t bytes)
{
	if (bytes <= 0 || c->o->knobs.no_outmap || inputs_include(c, c->out.f.fd))
		return;
	if (sink_map(out, (uint64_t)bytes, c->o->threads) == 0)
		c->st.out_mapped = 1;
}

/*
 * Whether the merge's output goes through a mapping: not for spilled runs
 * merged on the CPU by one or two threads. There a mapped page costs a
 * fault and the kernel's zero-fill before the merge's stores, where the
 * writer thread's write(2) only copies, and with no core to spare the cost
 * is the job's: on the 2-core VM 512 MiB of u64 with -S 32M took 1.6-1.9 s
 * through the writer against 2.3-3.4 s mapped (merge 0.75-0.89 against
 * 1.4-2.0 s; 2.0-2.9 against 2.5-3.2 s on one thread). On 16 threads the
 * mapping wins (H200 machine, 16 GiB: 17.5-18.1 against 18.4-19.1 s);
 * between 3 and 15 nothing is measured, and the mapping stays
 * (bench/results/h200-merge-parts-2026-11-29.md section 1,
 * cpu-merge-outmap-2core-2026-11-29.md).
 */
static int merge_maps_output(const job_ctx *c)
{
	return !(c->st.spilled && !c->eng.gpu && c->o->threads <= 2);
}

/* --verify's verdict on the written output; 0 or -1 (c->r filled). */
static int verify_output(job_ctx *c)
{
	const job_opts *o = c->o;
	if (c->vord.bad) {
		job_fail(c, "verify: FAILED: output record %" PRIu64 " is out of order%s", c->vord.bad,
			 o->merge_only ? " (is every -m input sorted?)" : "");
		return -1;
	}
	if (!o->unique && !o->merge_only && (c->vin.lo != c->vout.lo || c->vin.hi != c->vout.hi || c->vin.n != c->vout.n)) {
		job_fail(c, "verify: FAILED: the output's records differ from the input's (%" PRIu64 " in, %" PRIu64 " out)",
			 c->vin.n, c->vout.n);
		return -1;
	}
	return 0;
}

/* The notice line of a --verify that passed. */
static void verify_notice(job_ctx *c)
{
	const job_opts *o = c->o;
	job_result *r = c->r;
	const char *ms = o->unique ? "multiset not compared (-u drops records)"
		       : o->merge_only ? "multiset not compared (-m)" : "multiset ok";
	snprintf(r->notice + strlen(r->notice), sizeof r->notice - strlen(r->notice),
		 "%sverify: %" PRIu64 " records, order ok, %s (xxh3-128 sum %016" PRIx64 "%016" PRIx64 ")",
		 r->notice[0] ? "\n" : "", c->vord.seen, ms, c->vout.hi, c->vout.lo);
}

void job_sort(const job_opts *o, job_result *r)
{
	job_ctx c;
	memset(r, 0, sizeof *r);
	if (job_setup(&c, o, r) || inputs_open(&c, o->merge_only))
		goto done;
	plan_input pin = plan_input_of(&c);
	if (plan_job(&c, &pin))
		goto done;
	int rc = io_output_open(&c.out, o->output);
	if (rc) {
		job_fail(&c, "open failed: %s: %s", quote_name(o->output ? o->output : "-"), strerror(-rc));
		goto done;
	}
	c.out_open = 1;
	/* every record comes out: the output's blocks at once (not into an
	 * input: fallocate would change its modification time under the read) */
	if (pin.input_bytes > 0 && !inputs_include(&c, c.out.f.fd))
		(void)io_reserve(c.out.f.fd, (uint64_t)pin.input_bytes);
	sink out;
	if (open_sink(&c, &out, o->merge_only ? c.plan.merge.sink : PLAN_SINGLE_SINK))
		goto done;
	/* a GPU's single chunk comes back in pieces that the threads copy out
	 * (the CPU's streamed one is written while sorted, by the writer) */
	if (!o->merge_only && c.plan.single && c.eng.gpu && c.plan.path != PLAN_STREAM)
		job_map_output(&c, &out, pin.input_bytes);
	int single = 0;
	if (o->merge_only) {
		/* --verify under -m checks order only: the inputs are not read twice */
		if (!runlist_from_inputs(&c)) {
			runlist_map_inputs(&c);
			job_map_output(&c, &out, merge_phase_bytes(&c));
			if (!merge_phase(&c, &out))
				(void)inputs_unchanged(&c); /* an input that changed meanwhile: an error */
		}
	} else if (form_runs(&c, &pin, &out, &single) == 0 && !single) {
		/* the sink was sized for a single chunk; the merge wants big buffers:
		 * the writer starts as soon as one is full, and writing (one thread
		 * per file) is the stage to keep busy */
		if (sink_close(&out) == 0 && open_sink(&c, &out, merge_phase_sink_bytes(&c)) == 0) {
			if (merge_maps_output(&c))
				job_map_output(&c, &out, merge_phase_bytes(&c));
			if (c.st.spilled)
				sink_writeback_early(&out, c.o->knobs.writeback_piece > 0 ? (size_t)c.o->knobs.writeback_piece : 0);
			merge_phase(&c, &out);
		}
	}
	/* the writes still queued: at most the sink's two buffers */
	uint64_t out_bytes = out.records * c.R;
	out.prog = NULL;
	if (r->status != 2)
		progress_phase(c.prog, PROGRESS_WRITE, 0, 0, (int64_t)out_bytes);
	double w0 = util_now();
	int wrc = sink_close(&out);
	if (!wrc)
		progress_add(c.prog, out_bytes);
	/* the writer's writeback of a mapped output is not a write stage */
	double wbusy = out.w.busy - out.wb_s;
	c.st.write_s += wbusy > 1e-9 ? wbusy : util_now() - w0;
	c.st.out_wb_bytes += out.wb_bytes;
	c.st.out_wb_s += out.wb_s;
	c.st.records_out = out.records;
	if (wrc && r->status != 2)
		job_fail(&c, "write failed: %s: %s", quote_name(o->output ? o->output : "standard output"),
			 strerror(-wrc));
	if (r->status == 2 || (o->verify && verify_output(&c)))
		goto done;
	c.out.sync = o->sync;
	rc = io_output_commit(&c.out);
	c.out_open = 0;
	if (rc) {
		char msg[sizeof r->msg];
		job_commit_failed(&c.out, o->output, rc, msg, sizeof msg);
		job_fail(&c, "%s", msg);
		goto done;
	}
	if (c.eng.gpu_lost_why[0])
		snprintf(r->notice + strlen(r->notice), sizeof r->notice - strlen(r->notice),
			 "%swarning: the GPU failed, the CPU engine finished the sort: %s", r->notice[0] ? "\n" : "",
			 c.eng.gpu_lost_why);
	if (o->verify)
		verify_notice(&c);
	progress_end(c.prog, 1, c.st.records * c.R);
	if (o->stats)
		stats_print(&c, util_now() - c.st.t0);
done:
	progress_end(c.prog, 0, 0); /* a failure: the terminal's line erased before the error */
	if (c.out_open)
		io_output_abort(&c.out);
	engine_prewarm_wait(); /* never exit while CUDA starts on another thread */
	job_teardown(&c);
	if (o->stats && r->status != 2)
		stats_print_teardown(&c);
}

void job_commit_failed(const io_output *out, const char *name, int rc, char *msg, size_t cap)
{
	name = quote_name(name ? name : "standard output");
	if (out->replaced) /* too late to keep the old output: say that the new one is there */
		snprintf(msg, cap, "%s holds the sorted output, but --sync could not flush its directory: %s", name,
			 strerror(-rc));
	else if (out->damaged) /* a target of several hard links is written in place (DESIGN.md 8) */
		snprintf(msg, cap,
			 "%s has other hard links, so it was written in place, and that failed part way "
			 "(it is damaged): %s",
			 name, strerror(-rc));
	else
		snprintf(msg, cap, "write failed: %s: %s", name, strerror(-rc));
}
