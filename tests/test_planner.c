/*
 * test_planner.c - the planner (src/plan.c) on a table of inputs, without
 * I/O: every host share of a plan sums to at most -S (but for the floors
 * plan.h names), the device budget stays within --gpu-memory, chunks stay
 * within the engine's capacity and cover the input, the merge's passes fit
 * its fan-in, and every path of plan.h is reached; plus exact plans for a
 * few hand-computed cases.
 */
#include "plan.h"
#include "plan_sorter.h"
#include "cpusort.h"
#include "keys.h"
#include "resident.h"
#include "unit.h"
#include "../io/io.h"

#include <inttypes.h>
#include <string.h>

#define KiB ((uint64_t)1 << 10)
#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)

static keys_spec spec(const char *key, uint32_t record_size)
{
	keys_spec s;
	char msg[256];
	memset(&s, 0, sizeof s);
	if (key) {
		if (keys_parse(key, 0, &s.f[0], msg, sizeof msg))
			printf("FAIL planner: keys_parse(%s): %s\n", key, msg);
		s.n = 1;
	}
	if (keys_finish(&s, record_size, 0, msg, sizeof msg))
		printf("FAIL planner: keys_finish: %s\n", msg);
	return s;
}

/* The input of an engine as engine.c opens it: the CPU's capacity and
 * scratch, or a device of `cap` records (its host scratch kept for the CPU
 * fallback, as engine.c does). */
static plan_input input(const keys_spec *s, int64_t bytes, uint64_t mem, int gpu, uint64_t cap)
{
	return (plan_input){
		.keys = s, .input_bytes = bytes, .ninputs = 1, .mem = mem, .threads = 16,
		.gpu = gpu, .max_records = gpu ? cap : cpusort_max_records(s),
		.scratch_per_record = cpusort_scratch_per_record(s),
		.stream_ok = 1, .resident_ok = 1, .small_cpu_ok = 1,
	};
}

static int reached[PLAN_CHUNKED + 1], reached_keep, reached_spill, reached_single, reached_passes2;

/* The properties every plan must have. */
static void check_plan(const char *name, const plan_input *in, const plan *p)
{
	size_t R = in->keys->record_size;
	TEST_BEGIN(name) {
		uint64_t S = in->mem;
		uint64_t host = p->share_buffers + p->share_scratch + p->share_staging + p->share_kept;
		/* the floor of one record per chunk is the only excuse */
		CHECK(host <= S || p->chunk == 1, "host shares %" PRIu64 " > -S %" PRIu64 " (chunk %" PRIu64 ")", host, S,
		      p->chunk);
		CHECK(p->share_sink <= 2 * PLAN_MERGE_SINK_MAX, "sink share %" PRIu64, p->share_sink);
		if (in->gpu_mem && in->gpu)
			CHECK(p->device_budget <= in->gpu_mem, "device budget %" PRIu64 " > --gpu-memory %" PRIu64,
			      p->device_budget, in->gpu_mem);
		if (in->gpu && in->input_bytes >= 0 && !in->merge_only)
			CHECK(p->device_budget <= PLAN_DEVICE_PER_INPUT * (uint64_t)in->input_bytes + PLAN_DEVICE_SLACK,
			      "device budget %" PRIu64 " above what the input needs", p->device_budget);
		if (p->path != PLAN_MERGE_INPUTS) {
			CHECK(p->chunk >= 1 && p->chunk <= in->max_records, "chunk %" PRIu64 " (capacity %" PRIu64 ")",
			      p->chunk, in->max_records);
			size_t u = IO_ALIGN;
			while (u % R)
				u += IO_ALIGN; /* bytes of the smallest whole number of blocks and of records */
			if (!p->single && p->path == PLAN_CHUNKED && p->chunk >= u / R)
				CHECK(p->chunk % (u / R) == 0, "chunk %" PRIu64 " not whole IO_ALIGN blocks", p->chunk);
			if (p->runs)
				CHECK(p->runs * p->chunk >= p->records && (p->runs - 1) * p->chunk < p->records,
				      "%" PRIu64 " runs of %" PRIu64 " for %" PRIu64 " records", p->runs, p->chunk,
				      p->records);
		}
		if (p->path == PLAN_STREAM) {
			/* one chunk of a known size, or a pipe's first chunk */
			CHECK(!in->gpu && (p->single || in->input_bytes < 0), "stream path on %s, single %d",
			      in->gpu ? "the GPU" : "the CPU", p->single);
			CHECK(p->chunk == 1 || p->chunk * (2 * R + in->scratch_per_record) <= S,
			      "stream chunk %" PRIu64 " records: two buffers and scratch > -S", p->chunk);
		}
		if (p->path == PLAN_RESIDENT) {
			CHECK(in->gpu && in->input_bytes != 0, "resident path without a GPU, or for an empty input");
			if (in->input_bytes < 0)
				/* the journal of one chunk and the last run, always kept, beside the staging */
				CHECK(p->keep_fits && 2 * p->chunk * R + p->share_staging <= S,
				      "pipe: keep_fits %d, 2 chunks of %" PRIu64 " records + staging %" PRIu64 " > -S",
				      p->keep_fits, p->chunk, p->share_staging);
			CHECK(p->piece >= RESIDENT_MIN_PIECE && p->piece <= RESIDENT_PIECE, "piece %zu", p->piece);
			CHECK(p->share_staging <= S / 2, "staging %" PRIu64 " > half of -S", p->share_staging);
		}
		if (!p->single && p->runs) {
			/* the merge: windows and sink within what the kept runs leave */
			const plan_merge *m = &p->merge;
			CHECK(m->windows + 2 * m->sink <= m->mem, "merge windows %zu + sink 2x%zu > %zu", m->windows,
			      m->sink, m->mem);
			/* kept at the merge: every run, or (spilling) the chunked path's last */
			uint64_t kept = p->share_kept ? p->share_kept : p->path == PLAN_CHUNKED ? p->chunk * R : 0;
			CHECK(m->mem == PLAN_MIN_MERGE_MEM || m->mem + kept <= S, "merge memory %zu + kept %" PRIu64 " > -S",
			      m->mem, kept);
			CHECK(m->fanin >= 2 && m->passes >= 1, "fan-in %d, passes %d", m->fanin, m->passes);
			CHECK(!in->max_fanin || m->fanin <= in->max_fanin, "fan-in %d above --batch-size %d", m->fanin,
			      in->max_fanin);
			uint64_t reach = 1;
			for (int i = 0; i < m->passes && reach < p->runs; i++)
				reach *= (uint64_t)m->fanin;
			CHECK(reach >= p->runs, "%d passes of fan-in %d cannot merge %" PRIu64 " runs", m->passes, m->fanin,
			      p->runs);
			if (m->passes >= 2)
				reached_passes2 = 1;
		}
	} TEST_END();
	reached[p->path] = 1;
	reached_keep |= p->keep_all || p->resident_keep;
	reached_spill |= !p->single && !p->keep_all && !p->resident_keep && p->path != PLAN_MERGE_INPUTS;
	reached_single |= p->single;
}

static void table(void)
{
	static const struct { const char *key; uint32_t rs; } layouts[] = {
		{ "u32", 0 }, { "u64", 0 }, { "u64@8", 16 }, { "bytes10", 100 }, { "bytes16", 40 }, { NULL, 7 },
	};
	static const uint64_t mems[] = { 64 * KiB, 1 * MiB, 16 * MiB, 256 * MiB, 4 * GiB, 64 * GiB };
	static const int64_t sizes[] = { -1, 0, 4096, 10 * (int64_t)MiB, 300 * (int64_t)MiB, 3 * (int64_t)GiB,
					 16 * (int64_t)GiB, 200 * (int64_t)GiB };
	static const uint64_t caps[] = { 1000000, (uint64_t)1 << 31 };
	char name[160];
	for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
		keys_spec s = spec(layouts[l].key, layouts[l].rs);
		size_t R = s.record_size;
		for (size_t m = 0; m < sizeof mems / sizeof *mems; m++)
			for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
				for (int eng = 0; eng < 3; eng++) {
					int64_t bytes = sizes[z] < 0 ? -1 : sizes[z] / (int64_t)R * (int64_t)R;
					plan_input in = input(&s, bytes, mems[m], eng > 0, caps[eng == 2]);
					in.gpu_mem = eng == 2 ? 2 * GiB : 0;
					in.max_fanin = (int)(z % 3) * 5 / 2; /* --batch-size: none, 2, 5 */
					plan p;
					plan_make(&in, &p);
					snprintf(name, sizeof name, "planner/R%zu-S%" PRIu64 "K-in%" PRId64 "-%s", R,
						 mems[m] >> 10, bytes, eng ? "gpu" : "cpu");
					check_plan(name, &in, &p);
					in.merge_only = 1;
					in.ninputs = 7;
					plan_make(&in, &p);
					snprintf(name, sizeof name, "planner/R%zu-S%" PRIu64 "K-in%" PRId64 "-%s-m", R,
						 mems[m] >> 10, bytes, eng ? "gpu" : "cpu");
					check_plan(name, &in, &p);
				}
	}
}

/* Plans worked out by hand from the rules in plan.h / DESIGN.md. */
static void exact(void)
{
	keys_spec u64 = spec("u64", 0);
	TEST_BEGIN("planner/exact-cpu-single-stream") {
		/* 256 MiB of u64 under -S 1 GiB: key-only, no scratch, one chunk */
		plan_input in = input(&u64, 256 * (int64_t)MiB, GiB, 0, 0);
		plan p;
		plan_make(&in, &p);
		CHECK(p.path == PLAN_STREAM && p.single && p.chunk == 32 * MiB, "path %s single %d chunk %" PRIu64,
		      plan_path_name(p.path), p.single, p.chunk);
		CHECK(p.share_buffers == 512 * MiB && p.share_scratch == 0, "buffers %" PRIu64, p.share_buffers);
	} TEST_END();
	TEST_BEGIN("planner/exact-cpu-spill") {
		/* 1 GiB of u64 under -S 64 MiB: chunks of 64M / 32 bytes = 2 Mi records, 64 runs */
		plan_input in = input(&u64, (int64_t)GiB, 64 * MiB, 0, 0);
		plan p;
		plan_make(&in, &p);
		CHECK(p.path == PLAN_CHUNKED && !p.single && !p.keep_all && p.buffers == 4, "path %s keep %d bufs %d",
		      plan_path_name(p.path), p.keep_all, p.buffers);
		CHECK(p.chunk == 2 * MiB && p.runs == 64, "chunk %" PRIu64 " runs %" PRIu64, p.chunk, p.runs);
		/* merge: 64 MiB less the last run kept (16 MiB): 48 MiB, windows 24 MiB */
		CHECK(p.merge.mem == 48 * MiB && p.merge.windows == 24 * MiB && p.merge.sink == 12 * MiB,
		      "merge mem %zu windows %zu sink %zu", p.merge.mem, p.merge.windows, p.merge.sink);
		CHECK(p.merge.passes == (p.merge.fanin >= 64 ? 1 : 2), "passes %d fan-in %d", p.merge.passes,
		      p.merge.fanin);
	} TEST_END();
	TEST_BEGIN("planner/exact-cpu-keep-all") {
		/* 150 MiB of u64 under -S 256 MiB: 2 x 150 MiB > 256 MiB, not one chunk; all kept: chunks
		 * of at most (256 - 150) MiB / (3 x 8 bytes) in whole 4 KiB blocks (512 records), 4630528
		 * records, so 5 chunks of 19660800 records, as even as blocks allow: 3932160 each */
		plan_input in = input(&u64, 150 * (int64_t)MiB, 256 * MiB, 0, 0);
		plan p;
		plan_make(&in, &p);
		CHECK(p.path == PLAN_CHUNKED && p.keep_all && p.chunk == 3932160 && p.share_kept == 150 * MiB &&
			      p.runs == 5,
		      "path %s keep %d chunk %" PRIu64 " runs %" PRIu64, plan_path_name(p.path), p.keep_all, p.chunk,
		      p.runs);
	} TEST_END();
	TEST_BEGIN("planner/exact-cpu-past-2^32-records") {
		/* 2^32 + 5 u32 under -S 64 GiB: key-only records carry no 32-bit index, one streamed
		 * chunk (32 GiB of buffers); 16-byte records with their key after a payload, through
		 * (prefix, index) entries, under -S 256 GiB: kept chunks of at most 2^32 - 1 records,
		 * two of them */
		keys_spec u32 = spec("u32", 0), r16 = spec("u64@8", 16);
		const uint64_t n = ((uint64_t)1 << 32) + 5;
		plan_input in = input(&u32, (int64_t)(n * 4), 64 * GiB, 0, 0);
		plan p;
		plan_make(&in, &p);
		CHECK(p.path == PLAN_STREAM && p.single && p.chunk == n, "u32: path %s single %d chunk %" PRIu64,
		      plan_path_name(p.path), p.single, p.chunk);
		in = input(&r16, (int64_t)(n * 16), 256 * GiB, 0, 0);
		plan_make(&in, &p);
		CHECK(p.path == PLAN_CHUNKED && p.keep_all && p.runs == 2 && p.chunk <= UINT32_MAX,
		      "16-byte records: path %s keep %d chunk %" PRIu64 " runs %" PRIu64, plan_path_name(p.path),
		      p.keep_all, p.chunk, p.runs);
		/* the key first, the payload after: sorted whole (no index, no scratch), one chunk */
		keys_spec r16w = spec("u64", 16);
		in = input(&r16w, (int64_t)(n * 16), 256 * GiB, 0, 0);
		plan_make(&in, &p);
		CHECK(p.path == PLAN_STREAM && p.single && p.chunk == n && p.share_scratch == 0,
		      "16-byte records sorted whole: path %s single %d chunk %" PRIu64, plan_path_name(p.path), p.single,
		      p.chunk);
	} TEST_END();
	TEST_BEGIN("planner/exact-cpu-keep-all-even") {
		/* a block of records (512) more than an engine's largest chunk of 2^20 records: two
		 * chunks of about half the input each (in whole blocks), not a full one and one block */
		plan_input in = input(&u64, (int64_t)((1 << 20) + 512) * 8, GiB, 0, 0);
		in.max_records = 1 << 20;
		plan p;
		plan_make(&in, &p);
		CHECK(p.path == PLAN_CHUNKED && p.keep_all && p.runs == 2 && p.chunk == (1 << 19) + 512,
		      "path %s keep %d chunk %" PRIu64 " runs %" PRIu64, plan_path_name(p.path), p.keep_all, p.chunk,
		      p.runs);
	} TEST_END();
	TEST_BEGIN("planner/exact-resident") {
		/* 16 GiB of u64 on a device of 2^30 records, -S 32 GiB: staging of 4 x 64 MiB, two runs kept */
		plan_input in = input(&u64, 16 * (int64_t)GiB, 32 * GiB, 1, (uint64_t)1 << 30);
		plan p;
		plan_make(&in, &p);
		CHECK(p.path == PLAN_RESIDENT && p.piece == RESIDENT_PIECE && p.resident_keep && !p.single &&
			      p.runs == 2 && p.chunk == (uint64_t)1 << 30,
		      "path %s piece %zu keep %d single %d runs %" PRIu64, plan_path_name(p.path), p.piece,
		      p.resident_keep, p.single, p.runs);
		CHECK(p.device_budget == PLAN_DEVICE_PER_INPUT * 16 * GiB + PLAN_DEVICE_SLACK, "device budget %" PRIu64, p.device_budget);
		in.resident_ok = 0; /* the fallback: chunked on the GPU */
		plan_make(&in, &p);
		CHECK(p.path == PLAN_CHUNKED, "without the resident path: %s", plan_path_name(p.path));
		in.resident_ok = 1;
		in.mem = 4 * MiB; /* staging pieces of 512 KiB: below RESIDENT_MIN_PIECE */
		plan_make(&in, &p);
		CHECK(p.path == PLAN_CHUNKED, "-S 4M: %s", plan_path_name(p.path));
	} TEST_END();
	TEST_BEGIN("planner/exact-pipe") {
		/* the CPU: the first chunk as large as the streamed sort takes (two buffers and the
		 * scratch in -S), then, should the pipe go on (stream_ok off), the chunked path */
		plan_input in = input(&u64, -1, 64 * MiB, 0, 0);
		plan p;
		plan_make(&in, &p);
		uint64_t F = 64 * MiB / (16 + in.scratch_per_record);
		CHECK(p.path == PLAN_STREAM && !p.single && p.runs == 0 && p.chunk == F && p.buffers == 2,
		      "path %s single %d chunk %" PRIu64 " (want %" PRIu64 ")", plan_path_name(p.path), p.single,
		      p.chunk, F);
		in.stream_ok = 0;
		plan_make(&in, &p);
		CHECK(p.path == PLAN_CHUNKED && !p.single && p.runs == 0 && p.chunk == 2 * MiB,
		      "path %s single %d runs %" PRIu64, plan_path_name(p.path), p.single, p.runs);
		/* the CPU's four buffers take all of -S: nothing kept but the last run */
		CHECK(!p.keep_fits && p.share_kept == 0 && p.piece == 0, "CPU pipe: keep_fits %d kept %" PRIu64,
		      p.keep_fits, p.share_kept);
	} TEST_END();
	TEST_BEGIN("planner/exact-pipe-resident") {
		/* a pipe of u64 on a device of 2^30 records, -S 32 GiB: staging of 4 x 64 MiB, chunks
		 * of the device's capacity (8 GiB, below half of what the staging leaves), a journal
		 * of one chunk, runs kept while they fit the rest */
		plan_input in = input(&u64, -1, 32 * GiB, 1, (uint64_t)1 << 30);
		plan p;
		plan_make(&in, &p);
		CHECK(p.path == PLAN_RESIDENT && !p.single && p.runs == 0 && p.chunk == (uint64_t)1 << 30 &&
			      p.piece == RESIDENT_PIECE && p.share_staging == 4 * RESIDENT_PIECE,
		      "path %s single %d chunk %" PRIu64 " piece %zu", plan_path_name(p.path), p.single, p.chunk, p.piece);
		CHECK(p.keep_fits && p.share_buffers == 8 * GiB && p.share_kept == 32 * GiB - 4 * RESIDENT_PIECE - 8 * GiB,
		      "keep_fits %d journal %" PRIu64 " kept %" PRIu64, p.keep_fits, p.share_buffers, p.share_kept);
		CHECK(p.device_budget == 0, "device budget %" PRIu64 " (unknown size: the default)", p.device_budget);
		/* -S 4 GiB: half of what the staging leaves bounds the chunk */
		in.mem = 4 * GiB;
		plan_make(&in, &p);
		uint64_t C = (4 * GiB - 4 * RESIDENT_PIECE) / 2 / 8;
		CHECK(p.path == PLAN_RESIDENT && p.chunk == C && p.share_kept == 4 * GiB - 4 * RESIDENT_PIECE - C * 8,
		      "-S 4G: chunk %" PRIu64 " kept %" PRIu64, p.chunk, p.share_kept);
		/* -S 4M: staging pieces of 512 KiB, below RESIDENT_MIN_PIECE: the chunked path */
		in.mem = 4 * MiB;
		plan_make(&in, &p);
		CHECK(p.path == PLAN_CHUNKED, "-S 4M: %s", plan_path_name(p.path));
	} TEST_END();
	TEST_BEGIN("planner/exact-pipe-gpu") {
		/* without the resident path (-S below its staging, GPUSORT_RESIDENT=0): a pipe of u64
		 * on a device of 2^30 records, -S 32 GiB: chunks of S/16 (2 GiB, below
		 * S / 32 bytes), runs kept while they fit S less the four buffers and the GPU merge's
		 * staging (4 x 64 MiB) */
		plan_input in = input(&u64, -1, 32 * GiB, 1, (uint64_t)1 << 30);
		in.resident_ok = 0;
		plan p;
		plan_make(&in, &p);
		CHECK(p.path == PLAN_CHUNKED && !p.single && p.chunk == 256 * MiB && p.buffers == 4,
		      "path %s single %d chunk %" PRIu64, plan_path_name(p.path), p.single, p.chunk);
		CHECK(p.keep_fits && !p.keep_all && p.piece == RESIDENT_PIECE && p.share_staging == 4 * RESIDENT_PIECE &&
			      p.share_kept == 32 * GiB - 8 * GiB - 4 * RESIDENT_PIECE,
		      "keep_fits %d piece %zu kept %" PRIu64, p.keep_fits, p.piece, p.share_kept);
		/* -S 4 GiB: S/16 is below 256 MiB, which is below S / 32: chunks of 256 MiB */
		in.mem = 4 * GiB;
		plan_make(&in, &p);
		CHECK(p.chunk == 32 * MiB && p.keep_fits && p.share_kept == 4 * GiB - GiB - 4 * RESIDENT_PIECE,
		      "-S 4G: chunk %" PRIu64 " kept %" PRIu64, p.chunk, p.share_kept);
		/* -S 1 GiB: 256 MiB is S / 32 bytes, the spilling chunk: no room to keep a run */
		in.mem = GiB;
		plan_make(&in, &p);
		CHECK(p.chunk == 32 * MiB && !p.keep_fits && p.share_kept == 0 && p.piece == 0 && p.share_staging == 0,
		      "-S 1G: chunk %" PRIu64 " keep_fits %d", p.chunk, p.keep_fits);
		/* the device's capacity bounds the chunk, leaving more to keep */
		in.max_records = 100000;
		plan_make(&in, &p);
		uint64_t C = 100000 / 512 * 512;
		CHECK(p.chunk == C && p.keep_fits && p.share_kept == GiB - 4 * C * 8 - 4 * RESIDENT_PIECE,
		      "cap 100000: chunk %" PRIu64 " kept %" PRIu64, p.chunk, p.share_kept);
		/* a known size is not this rule's */
		in = input(&u64, 16 * (int64_t)GiB, 32 * GiB, 1, (uint64_t)1 << 30);
		in.resident_ok = 0;
		plan_make(&in, &p);
		CHECK(!p.keep_fits, "known size: keep_fits %d", p.keep_fits);
	} TEST_END();
	TEST_BEGIN("planner/merge-passes") {
		plan_merge m;
		plan_merge_make(&u64, 64 * MiB, 0, 1, 0, &m);
		CHECK(m.passes == 1, "1 run: %d passes", m.passes);
		int f = m.fanin;
		plan_merge_make(&u64, 64 * MiB, 0, (uint64_t)f, 0, &m);
		CHECK(m.passes == 1, "%d runs: %d passes", f, m.passes);
		plan_merge_make(&u64, 64 * MiB, 0, (uint64_t)f + 1, 0, &m);
		CHECK(m.passes == 2, "%d runs: %d passes", f + 1, m.passes);
		plan_merge_make(&u64, 64 * MiB, 0, (uint64_t)f * f + 1, 0, &m);
		CHECK(m.passes == 3, "%d runs: %d passes", f * f + 1, m.passes);
		plan_merge_make(&u64, 2 * MiB, 4 * MiB, 3, 0, &m);
		CHECK(m.mem == PLAN_MIN_MERGE_MEM, "kept beyond -S: merge memory %zu, want the floor", m.mem);
	} TEST_END();
	TEST_BEGIN("planner/batch-size") {
		/* --batch-size caps the fan-in; the passes are the fewest the cap needs */
		plan_merge m;
		plan_merge_make(&u64, 64 * MiB, 0, 5, 2, &m);
		CHECK(m.fanin == 2 && m.passes == 3, "5 runs, batch 2: fan-in %d, %d passes (5 -> 3 -> 2 -> 1)", m.fanin,
		      m.passes);
		plan_merge_make(&u64, 64 * MiB, 0, 16, 4, &m);
		CHECK(m.fanin == 4 && m.passes == 2, "16 runs, batch 4: fan-in %d, %d passes", m.fanin, m.passes);
		plan_merge_make(&u64, 64 * MiB, 0, 17, 4, &m);
		CHECK(m.fanin == 4 && m.passes == 3, "17 runs, batch 4: fan-in %d, %d passes", m.fanin, m.passes);
		plan_merge_make(&u64, 64 * MiB, 0, 2, 2, &m);
		CHECK(m.fanin == 2 && m.passes == 1, "2 runs, batch 2: fan-in %d, %d passes", m.fanin, m.passes);
		/* above what the windows allow it does not raise the fan-in */
		plan_merge m0;
		plan_merge_make(&u64, 2 * MiB, 0, 100, 0, &m0);
		plan_merge_make(&u64, 2 * MiB, 0, 100, 1000, &m);
		CHECK(m0.fanin < 1000 && m.fanin == m0.fanin && m.passes == m0.passes, "batch 1000: fan-in %d, memory's %d",
		      m.fanin, m0.fanin);
		/* through plan_make: 1 GiB of u64 under -S 64 MiB makes 64 runs (exact-cpu-spill) */
		plan_input in = input(&u64, (int64_t)GiB, 64 * MiB, 0, 0);
		in.max_fanin = 3;
		plan p;
		plan_make(&in, &p);
		CHECK(p.runs == 64 && p.merge.fanin == 3 && p.merge.passes == 4, "64 runs, batch 3: fan-in %d, %d passes "
		      "(64 -> 22 -> 8 -> 3 -> 1)", p.merge.fanin, p.merge.passes);
		in.merge_only = 1;
		in.ninputs = 9;
		plan_make(&in, &p);
		CHECK(p.merge.fanin == 3 && p.merge.passes == 2, "-m of 9 inputs, batch 3: fan-in %d, %d passes",
		      p.merge.fanin, p.merge.passes);
	} TEST_END();
	TEST_BEGIN("planner/device-budget") {
		CHECK(plan_device_budget(0, -1) == 0, "pipe, default: %" PRIu64, plan_device_budget(0, -1));
		CHECK(plan_device_budget(8 * GiB, -1) == 8 * GiB, "pipe, 8G");
		CHECK(plan_device_budget(0, (int64_t)MiB) == PLAN_DEVICE_PER_INPUT * MiB + PLAN_DEVICE_SLACK, "1 MiB input");
		CHECK(plan_device_budget(2 * GiB, 16 * (int64_t)GiB) == 2 * GiB, "16 GiB input under 2G");
	} TEST_END();
	TEST_BEGIN("planner/small-on-cpu") {
		plan_input in = input(&u64, (int64_t)GiB, 32 * GiB, 0, 0);
		in.gpu_likely = 1;
		CHECK(plan_small_on_cpu(&in), "1 GiB of u64 on 16 threads: the CPU");
		in.input_bytes = 3 * (int64_t)GiB / 2;
		CHECK(!plan_small_on_cpu(&in), "1.5 GiB of u64 on 16 threads: the GPU");
		in.input_bytes = (int64_t)GiB;
		in.gpu_asked = 1;
		CHECK(!plan_small_on_cpu(&in), "--device given: the GPU");
		in.gpu_asked = 0;
		in.small_cpu_ok = 0;
		CHECK(!plan_small_on_cpu(&in), "switch off: the GPU");
		in.small_cpu_ok = 1;
		in.input_bytes = -1;
		CHECK(!plan_small_on_cpu(&in), "a pipe: the GPU");
		in.input_bytes = (int64_t)GiB;
		in.mem = 256 * MiB;
		CHECK(!plan_small_on_cpu(&in), "not one CPU chunk under -S: the GPU");
		/* two u32 keys covering 8-byte records sort as native words: u64's bound */
		keys_spec two = spec("u32", 0);
		char msg[256];
		two.f[1] = two.f[0];
		two.f[1].offset = 4;
		two.n = 2;
		CHECK(keys_finish(&two, 0, 0, msg, sizeof msg) == 0 && two.record_size == 8, "two u32 keys");
		in.keys = &two;
		in.mem = 32 * GiB;
		CHECK(plan_small_on_cpu(&in), "1 GiB of u32,u32 on 16 threads: the CPU");
		in.input_bytes = 3 * (int64_t)GiB / 2;
		CHECK(!plan_small_on_cpu(&in), "1.5 GiB of u32,u32 on 16 threads: the GPU");
	} TEST_END();
}

/* --algorithm=auto's sorter (plan_sorter): the preferred sorter when the
 * whole input fits one of its chunks, else the largest chunks; the first
 * present for an unknown size; sorters missing from the build skipped. */
static void sorter_choice(void)
{
	keys_spec u32 = spec("u32", 0), rec100 = spec("bytes10", 100), rec16 = spec("u32@4", 16);
	const plan_sorter_info both[] = { { "bitonic", 1000 }, { "quick", 600 }, { "radix", 500 } };
	const plan_sorter_info only[] = { { "bitonic", 1000 }, { "quick", 600 } };
	TEST_BEGIN("planner/sorter-auto") {
		CHECK(plan_sorter(&rec16, 400, both, 3) == 2, "fits radix: %d", plan_sorter(&rec16, 400, both, 3));
		CHECK(plan_sorter(&rec16, 500, both, 3) == 2, "exactly radix's capacity");
		CHECK(plan_sorter(&rec16, 501, both, 3) == 1, "too large for radix: the next in order that holds it");
		CHECK(plan_sorter(&rec16, 601, both, 3) == 0, "fits bitonic only");
		CHECK(plan_sorter(&rec16, 5000, both, 3) == 0, "larger than every chunk: the largest chunks");
		CHECK(plan_sorter(&rec16, 0, both, 3) == 2, "unknown size: the first preferred");
		CHECK(plan_sorter(&rec100, 400, both, 3) == 2, "16-byte (key, index) words");
		CHECK(plan_sorter(&u32, 400, both, 3) == 2 && plan_sorter(&u32, 0, both, 3) == 2 &&
		      plan_sorter(&u32, 5000, both, 3) == 0, "key-only records: the same order");
		CHECK(plan_sorter(&rec16, 400, only, 2) == 1, "no radix in the build: the next in order (quick)");
		CHECK(plan_sorter(&rec16, 400, both, 1) == 0, "one sorter");
		const plan_sorter_info none[] = { { "bitonic", 1000 }, { "radix", 0 } };
		CHECK(plan_sorter(&rec16, 400, none, 2) == 0, "a sorter that takes no chunk is skipped");
	} TEST_END();
}

int main(void)
{
	sorter_choice();
	exact();
	table();
	TEST_BEGIN("planner/every-path-reached") {
		for (int i = 0; i <= PLAN_CHUNKED; i++)
			CHECK(reached[i], "no plan of the table took path %s", plan_path_name(i));
		CHECK(reached_keep && reached_spill && reached_single && reached_passes2,
		      "keep %d spill %d single %d two merge passes %d", reached_keep, reached_spill, reached_single,
		      reached_passes2);
	} TEST_END();
	return UNIT_EXIT();
}
