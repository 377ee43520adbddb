/* stats.c - see stats.h. */
#define _GNU_SOURCE
#include "stats.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The notice lines as a JSON string body (quotes and control bytes escaped). */
static void json_str(FILE *f, const char *t)
{
	for (; *t; t++) {
		if (*t == '"' || *t == '\\')
			fprintf(f, "\\%c", *t);
		else if ((unsigned char)*t < 0x20)
			fprintf(f, "\\u%04x", *t);
		else
			fputc(*t, f);
	}
}

/*
 * Were the I/O buffers registered with io_uring (io_ring_register)? "yes",
 * "partly" or "no", with why into why[]. Every ring of the job has exited by
 * now, so the byte counts are complete.
 */
static const char *fixed_state(const io_fixed_stats *fs, char *why, size_t n)
{
	const char *reason = fs->err == -ECANCELED ? "disabled by GPUSORT_FIXED=0"
			   : fs->err == -EOPNOTSUPP ? "io_uring unavailable"
			   : fs->err == -ENOMEM ? "out of locked memory (RLIMIT_MEMLOCK)"
			   : fs->err ? strerror(-fs->err) : "";
	if (fs->calls == 0) {
		snprintf(why, n, "no file I/O through long-lived buffers");
		return "no";
	}
	if (fs->ok == 0) {
		snprintf(why, n, "%s", reason);
		return "no";
	}
	char a[32], b[32];
	util_fmt_bytes(fs->fixed_bytes, a, sizeof a);
	util_fmt_bytes(fs->bytes, b, sizeof b);
	if (fs->ok < fs->calls) {
		snprintf(why, n, "%" PRIu64 " of %" PRIu64 " registrations, last failure: %s; %s of %s of file I/O through them",
			 fs->ok, fs->calls, reason, a, b);
		return "partly";
	}
	snprintf(why, n, "%s of %s of file I/O through them", a, b);
	return "yes";
}

/* --stats=json's "plan" member: the planner's choices (plan.h). */
static void print_plan_json(const job_ctx *c)
{
	const plan *p = &c->plan;
	fprintf(stderr,
		",\"plan\":{\"path\":\"%s\",\"records\":%" PRIu64 ",\"chunk_records\":%" PRIu64 ",\"buffers\":%d"
		",\"keep_all\":%d,\"keep_fits\":%d,\"single\":%d,\"staging_piece\":%zu,\"resident_keep\":%d"
		",\"share_buffers\":%" PRIu64 ",\"share_scratch\":%" PRIu64 ",\"share_staging\":%" PRIu64
		",\"share_kept\":%" PRIu64 ",\"share_sink\":%" PRIu64 ",\"device_budget\":%" PRIu64
		",\"runs\":%" PRIu64 ",\"merge_mem\":%zu,\"merge_windows\":%zu,\"merge_sink\":%zu"
		",\"merge_fanin\":%d,\"merge_passes\":%d}",
		plan_path_name(p->path), p->records, p->chunk, p->buffers, p->keep_all, p->keep_fits, p->single, p->piece,
		p->resident_keep, p->share_buffers, p->share_scratch, p->share_staging, p->share_kept, p->share_sink,
		p->device_budget, p->runs, p->merge.mem, p->merge.windows, p->merge.sink, p->merge.fanin, p->merge.passes);
}

void stats_print(const job_ctx *c, double wall)
{
	const job_stats *s = &c->st;
	double gb = (double)s->records * (double)c->R / 1e9;
	io_fixed_stats fs;
	char why[256];
	io_fixed_stats_get(&fs);
	const char *fixed = fixed_state(&fs, why, sizeof why);
	if (c->o->stats == JOB_STATS_JSON) {
		fprintf(stderr,
			"{\"engine\":\"%s\",\"buffer_size\":%" PRIu64 ",\"records\":%" PRIu64 ",\"record_size\":%zu,\"bytes\":%" PRIu64
			",\"records_out\":%" PRIu64 ",\"chunk_records\":%" PRIu64 ",\"runs\":%" PRIu64
			",\"spilled_runs\":%" PRIu64 ",\"merge_passes\":%" PRIu64 ",\"merge_pass_spilled_runs\":%" PRIu64 ",\"merge_rounds\":%" PRIu64 ",\"merge_parts\":%" PRIu64
			",\"read_s\":%.6f,\"sort_s\":%.6f,\"spill_s\":%.6f,\"merge_read_s\":%.6f"
			",\"merge_s\":%.6f,\"write_s\":%.6f,\"gpu_h2d_s\":%.6f,\"gpu_sort_s\":%.6f,\"gpu_d2h_s\":%.6f"
			",\"gpu_passes\":%" PRIu64 ",\"gpu_retries\":%" PRIu64 ",\"gpu_overlapped_chunks\":%" PRIu64 ",\"gpu_merge_groups\":%" PRIu64 ",\"gpu_merge_spill_groups\":%" PRIu64
			",\"gpu_merge_cpu_groups\":%" PRIu64 ",\"gpu_merge_read_s\":%.6f,\"gpu_merge_read_wait_s\":%.6f"
			",\"gpu_merge_fill_s\":%.6f,\"gpu_merge_device_s\":%.6f,\"gpu_merge_store_s\":%.6f,\"start_s\":%.6f,\"wall_s\":%.6f,\"gb_per_s\":%.3f",
			s->engine, c->o->mem, s->records, c->R, s->records * (uint64_t)c->R, s->records_out, s->chunk,
			s->runs, s->spilled, s->passes, s->pass_spilled, s->rounds, s->parts, s->read_s, s->sort_s, s->spill_s, s->mread_s,
			s->merge_s, s->write_s, c->eng.h2d_s, c->eng.dsort_s, c->eng.d2h_s, c->eng.passes, c->eng.gpu_retries, c->eng.gpu_overlapped, s->gpu_groups,
			s->gm_spill_groups, s->gm_cpu_groups, s->gm_read_s, s->gm_wait_s, s->gm_fill_s, s->gm_dev_s, s->gm_store_s, s->start_s, wall,
			wall > 0 ? gb / wall : 0.0);
		fprintf(stderr, ",\"stream_bits\":%d,\"stream_buckets\":%" PRIu64 ",\"stream_largest_bucket\":%" PRIu64
			",\"stream_big_buckets\":%" PRIu64 ",\"stream_partition_s\":%.6f,\"stream_count_s\":%.6f"
			",\"stream_bucket_thread_s\":%.6f,\"stream_handoff_thread_s\":%.6f,\"stream_first_write_s\":%.6f",
			s->stream.bits, s->stream.buckets, s->stream.largest, s->stream.big, s->stream.partition_s,
			s->stream.count_s, s->stream.bucket_s, s->stream.handoff_s, s->stream.first_out_s);
		print_plan_json(c);
		fprintf(stderr, ",\"fixed_buffers\":\"%s\",\"fixed_buffers_why\":\"", fixed);
		json_str(stderr, why);
		fprintf(stderr, "\",\"gpu_not_used\":\"");
		json_str(stderr, c->gpu_note);
		fprintf(stderr, "\",\"gpu_merge_spill_not_used\":\"");
		json_str(stderr, s->gm_why);
		fprintf(stderr, "\",\"gpu_failed\":\"");
		json_str(stderr, c->eng.gpu_lost_why);
		fprintf(stderr, "\",\"output_mapped\":%d,\"output_writeback_bytes\":%" PRIu64 ",\"output_writeback_s\":%.6f"
			",\"spilled_runs_mapped\":%" PRIu64 ",\"io_bytes\":%" PRIu64 ",\"io_fixed_bytes\":%" PRIu64
			",\"peak_rss_bytes\":%" PRIu64 ",\"notice\":\"",
			s->out_mapped, s->out_wb_bytes, s->out_wb_s, s->spill_mapped, fs.bytes, fs.fixed_bytes, util_peak_rss());
		json_str(stderr, c->r->notice);
		fputs("\"}\n", stderr);
		return;
	}
	char b[32];
	fprintf(stderr, "gpusort: stats: %" PRIu64 " records of %zu bytes (%s), engine %s, %d threads\n",
		s->records, c->R, util_fmt_bytes(s->records * (uint64_t)c->R, b, sizeof b), s->engine,
		c->st.threads ? c->st.threads : c->o->threads);
	if (c->gpu_note[0])
		fprintf(stderr, "gpusort: stats: GPU not used: %s\n", c->gpu_note);
	if (c->eng.gpu_lost_why[0])
		fprintf(stderr, "gpusort: stats: the CPU engine took over after the GPU failed: %s\n", c->eng.gpu_lost_why);
	char pass_runs[64] = "";
	if (s->pass_spilled)
		snprintf(pass_runs, sizeof pass_runs, " (writing %" PRIu64 " intermediate runs)", s->pass_spilled);
	fprintf(stderr, "gpusort: stats: chunk %" PRIu64 " records, %" PRIu64 " runs (%" PRIu64
		" spilled), %" PRIu64 " merge passes%s, %" PRIu64 " rounds in %" PRIu64 " parts, %" PRIu64
		" groups merged on the GPU\n",
		s->chunk, s->runs, s->spilled, s->passes, pass_runs, s->rounds, s->parts, s->gpu_groups);
	if (s->spill_mapped)
		fprintf(stderr, "gpusort: stats: %" PRIu64 " spilled runs stored through a mapping of the spill file by "
			"every thread, not written\n", s->spill_mapped);
	fprintf(stderr, "gpusort: stats: read %.3f s, sort %.3f s, spill %.3f s, merge-read %.3f s, "
		"merge %.3f s, write %.3f s%s\n",
		s->read_s, s->sort_s, s->spill_s, s->mread_s, s->merge_s, s->write_s,
		s->out_mapped ? " (output mapped: stored by the merging and copying threads, in their stages)" : "");
	if (s->out_wb_bytes)
		fprintf(stderr, "gpusort: stats: output handed to writeback as it was stored: %s, the writer's %.3f s\n",
			util_fmt_bytes(s->out_wb_bytes, b, sizeof b), s->out_wb_s);
	if (s->gm_spill_groups || s->gm_cpu_groups)
		fprintf(stderr, "gpusort: stats: gpu merge of spilled runs: %" PRIu64 " groups on the device, %" PRIu64
			" on the CPU after a device failure; run read-back %.3f s (the merge waited %.3f s for it), "
			"groups %.3f s: staging fill %.3f s, store into the output %.3f s, the rest copies, merge and "
			"waits; write %.3f s\n",
			s->gm_spill_groups, s->gm_cpu_groups, s->gm_read_s, s->gm_wait_s, s->gm_dev_s, s->gm_fill_s,
			s->gm_store_s, s->write_s);
	else if (s->gm_why[0])
		fprintf(stderr, "gpusort: stats: spilled runs merged on the CPU, not the GPU: %s\n", s->gm_why);
	if (s->stream.bits) {
		fprintf(stderr, "gpusort: stats: streamed: partition %.3f s (%d bits, %" PRIu64 " buckets, the largest %"
			PRIu64 " records, %" PRIu64 " sorted by all threads); sort includes it, write overlaps sort\n",
			s->stream.partition_s, s->stream.bits, s->stream.buckets, s->stream.largest, s->stream.big);
		fprintf(stderr, "gpusort: stats: streamed: count %.3f s, scatter %.3f s; buckets %.3f thread-s, "
			"hand-off to the writer %.3f thread-s; first write queued at %.3f s\n",
			s->stream.count_s, s->stream.partition_s - s->stream.count_s, s->stream.bucket_s,
			s->stream.handoff_s, s->stream.first_out_s);
	}
	if (c->eng.gpu)
		fprintf(stderr, "gpusort: stats: gpu: h2d %.3f s, sort %.3f s (%" PRIu64 " passes over device memory), "
			"d2h %.3f s, %" PRIu64 " chunks sorted on the CPU after device out-of-memory, %" PRIu64
			" retries with smaller chunks\n",
			c->eng.h2d_s, c->eng.dsort_s, c->eng.passes, c->eng.d2h_s, c->eng.gpu_fallbacks, c->eng.gpu_retries);
	if (c->eng.gpu)
		fprintf(stderr, "gpusort: stats: gpu: %" PRIu64 " chunks copied to the device while the previous chunk "
			"was copied back\n", c->eng.gpu_overlapped);
	fprintf(stderr, "gpusort: stats: I/O buffers registered with io_uring: %s (%s)\n", fixed, why);
	fprintf(stderr, "gpusort: stats: start-up %.3f s (engine, staging), wall %.3f s, %.3f GB/s "
		"(stage sum > wall = overlap)\n", s->start_s, wall, wall > 0 ? gb / wall : 0.0);
}

void stats_print_teardown(const job_ctx *c)
{
	if (c->o->stats == JOB_STATS_JSON)
		return;
	fprintf(stderr, "gpusort: stats: teardown: spill files closed %.3f s, runs released %.3f s, engine closed %.3f s; "
		"peak resident %.1f MiB (mapped files' pages included)\n",
		c->st.teardown_spill_s, c->st.teardown_runs_s, c->st.teardown_engine_s, (double)util_peak_rss() / (1 << 20));
}
