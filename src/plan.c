/* plan.c - see plan.h; the rules are DESIGN.md section 6. */
#include "plan.h"
#include "cpusort.h"
#include "merge.h"
#include "resident.h"
#include "../io/io.h"

/* The small-input rule's bounds, bytes per CPU thread (plan_small_on_cpu):
 * where the two engines broke even on the H200 machine's 16 threads once
 * the GPU's output went through a mapping (bench/results/h200-auto-2026-11-27.md:
 * u32 and u64 near 1.1 GiB, 16-byte records near 0.9 GiB, 100-byte near 1.8). */
#define SMALL_CPU_NATIVE ((uint64_t)72 << 20)   /* 4- or 8-byte records: one key, or keys covering them */
#define SMALL_CPU_ENTRIES ((uint64_t)56 << 20)  /* sort entries of records sorted through entries */
#define SMALL_CPU_RECORDS ((uint64_t)112 << 20) /* ... and their record bytes */
#define SMALL_CPU_BYTEWISE ((uint64_t)28 << 20) /* other key-only records (byte-wise radix passes) */

/* c rounded down to whole IO_ALIGN blocks of records when it holds one. */
static uint64_t align_chunk(uint64_t c, size_t R)
{
	size_t u = io_align_records(R);
	return c >= u ? c / u * u : c;
}

uint64_t plan_device_budget(uint64_t gpu_mem, int64_t input_bytes)
{
	uint64_t budget = gpu_mem;
	if (input_bytes >= 0) {
		uint64_t need = PLAN_DEVICE_PER_INPUT * (uint64_t)input_bytes + PLAN_DEVICE_SLACK;
		if (budget == 0 || need < budget)
			budget = need;
	}
	return budget;
}

void plan_merge_make(const keys_spec *s, uint64_t mem, uint64_t kept_bytes, uint64_t nruns, int max_fanin,
		     plan_merge *m)
{
	uint64_t left = mem > kept_bytes ? mem - kept_bytes : 0;
	m->mem = left < PLAN_MIN_MERGE_MEM ? PLAN_MIN_MERGE_MEM : (size_t)left;
	m->windows = m->mem / 2;
	m->sink = m->mem / 4 < PLAN_MERGE_SINK_MAX ? m->mem / 4 : PLAN_MERGE_SINK_MAX;
	m->fanin = merge_max_fanin(s, m->windows);
	/* --batch-size only lowers it: the windows bound what memory allows */
	if (max_fanin >= 2 && max_fanin < m->fanin)
		m->fanin = max_fanin;
	/* each pass but the last merges groups of fanin consecutive runs (so
	 * ties keep input order) into one run each */
	m->passes = 0;
	if (nruns) {
		m->passes = 1;
		for (uint64_t k = nruns; k > (uint64_t)m->fanin; k = (k + (uint64_t)m->fanin - 1) / (uint64_t)m->fanin)
			m->passes++;
	}
}

/*
 * The chunked path's sizes (DESIGN.md section 6): one chunk when the whole
 * input fits with its sort memory (two record buffers and scratch); all runs
 * kept in memory when the input fits -S beside three chunk buffers (read,
 * sort, sort's second buffer) and at most PLAN_MAX_KEEP_RUNS runs result;
 * else chunks of S / (4 record buffers + scratch): one being read, two being
 * sorted, one being spilled (on the GPU, an input of unknown size: at most
 * max(S/16, 256 MiB), and runs kept while they fit).
 */
static void plan_chunks(const plan_input *in, plan *p)
{
	size_t R = in->keys->record_size, E = in->scratch_per_record;
	uint64_t S = in->mem, cap = in->max_records;
	if (in->input_bytes >= 0) {
		uint64_t n = (uint64_t)in->input_bytes / R;
		if (n * (2 * R + E) <= S && n <= cap) {
			p->chunk = n ? n : 1;
			p->buffers = 2;
			p->single = 1;
			p->share_buffers = 2 * p->chunk * R;
			p->share_scratch = p->chunk * E;
			return;
		}
		if ((uint64_t)in->input_bytes < S) {
			uint64_t C = (S - (uint64_t)in->input_bytes) / (3 * R + E);
			if (C > cap)
				C = cap; /* the engine's largest chunk: still all kept */
			if (C && (n + C - 1) / C <= PLAN_MAX_KEEP_RUNS) {
				/* as many chunks as the largest allows, of even
				 * sizes: each chunk's read then overlaps the sort
				 * of the one before, which a last chunk of a few
				 * records does not allow (2^32 u32 records: one of
				 * 2^32 - 1 records read and sorted alone, then one
				 * of 1) */
				uint64_t A = align_chunk(C, R), k = (n + A - 1) / A, u = io_align_records(R);
				uint64_t even = ((n + k - 1) / k + u - 1) / u * u;
				p->chunk = even <= A ? even : A;
				p->buffers = 3;
				p->keep_all = 1;
				p->share_buffers = 3 * p->chunk * R;
				p->share_scratch = p->chunk * E;
				p->share_kept = (uint64_t)in->input_bytes;
				return;
			}
		}
	}
	uint64_t C = S / (4 * R + E);
	if (in->input_bytes < 0 && in->gpu) {
		/* A pipe on the GPU: chunk i is sorted on the device while
		 * chunk i+1 is read, so the first sort waits only for the first
		 * chunk, not for most of the input. S/16: the pool's four
		 * buffers then take a quarter of S, leaving most of the rest
		 * for runs kept for the GPU merge (below); at least 256 MiB, so
		 * that a chunk's fixed device costs (launches, copies' latency,
		 * synchronisation) stay small against its sort, and never more
		 * than the spilling chunk (S / (4R + E)). */
		uint64_t M = S / 16 / R, lo = PLAN_PIPE_CHUNK_MIN / R;
		if (M < lo)
			M = lo;
		if (M < C)
			C = M;
	}
	if (C > cap)
		C = cap;
	C = align_chunk(C, R);
	p->chunk = C ? C : 1;
	p->buffers = 4;
	p->share_buffers = 4 * p->chunk * R;
	p->share_scratch = p->chunk * E;
	if (in->input_bytes >= 0)
		return;
	/* Unknown size: runs are kept in memory while they fit what the
	 * buffers, the scratch and (GPU) the merge's staging leave of S, and
	 * spilled from the first that does not on; an input that fits thus
	 * ends with every run in memory, which the GPU merge takes (its
	 * staging as the resident path's, resident.h; none below
	 * RESIDENT_MIN_PIECE: the merge is then the CPU's). */
	if (in->gpu) {
		size_t piece = S / (2 * RESIDENT_SLOTS);
		if (piece > RESIDENT_PIECE)
			piece = RESIDENT_PIECE;
		if (piece >= RESIDENT_MIN_PIECE) {
			p->piece = piece;
			p->share_staging = RESIDENT_SLOTS * (uint64_t)piece;
		}
	}
	uint64_t used = p->share_buffers + p->share_scratch + p->share_staging;
	if (used < S && S - used >= p->chunk * R) { /* room for one run at least */
		p->keep_fits = 1;
		p->share_kept = S - used;
	} else {
		p->piece = 0; /* nothing can be kept: no GPU merge */
		p->share_staging = 0;
	}
}

/*
 * The device-resident path (resident.h): staging of RESIDENT_SLOTS pieces in
 * half of -S, at most RESIDENT_PIECE each; its runs are kept when they and
 * the staging fit -S, else spilled. Only on the GPU. Regular inputs are read
 * at known offsets (again when the device refuses a chunk). An input of
 * unknown size (a pipe) is read in order into chunks of the device's
 * capacity, each also kept in a host journal of the chunk's size until it
 * is a run (runs_resident.c), and at most half of what the staging leaves
 * of -S, so that the last run, always kept, fits beside the journal; its
 * runs are kept while they fit the rest (keep_fits), spilled from the first
 * that does not on.
 */
static int plan_resident(const plan_input *in, plan *p)
{
	size_t piece = in->mem / (2 * RESIDENT_SLOTS);
	if (piece > RESIDENT_PIECE)
		piece = RESIDENT_PIECE;
	if (!in->gpu || !in->resident_ok || in->input_bytes == 0 || in->ninputs > PLAN_RESIDENT_MAX_INPUTS ||
	    piece < RESIDENT_MIN_PIECE)
		return 0;
	p->piece = piece;
	p->share_staging = RESIDENT_SLOTS * (uint64_t)piece;
	if (in->input_bytes < 0) {
		size_t R = in->keys->record_size;
		uint64_t C = (in->mem - p->share_staging) / 2 / R;
		if (C > in->max_records)
			C = in->max_records;
		p->chunk = C ? C : 1;
		p->keep_fits = 1;
		p->share_buffers = p->chunk * R;
		p->share_kept = in->mem - p->share_staging > p->share_buffers ? in->mem - p->share_staging - p->share_buffers : 0;
		return 1;
	}
	p->resident_keep = (uint64_t)in->input_bytes + p->share_staging <= in->mem;
	uint64_t n = (uint64_t)in->input_bytes / in->keys->record_size;
	p->chunk = n < in->max_records ? n : in->max_records;
	p->single = n <= in->max_records;
	if (p->resident_keep && !p->single)
		p->share_kept = (uint64_t)in->input_bytes;
	return 1;
}

/*
 * The CPU engine's input of unknown size (a pipe): its first chunk as large
 * as the streamed single chunk takes under -S (two record buffers and the
 * scratch, as for a file), counted while read, so that a pipe that ends
 * within it is sorted as a file of its size; one that goes on makes it the
 * first run (kept, or spilled when -S is small) and the chunked path goes
 * on after it (runs_stream.c). The chunked path's own S/(4R+E) would make a pipe just
 * past it spill a run of nearly all of it.
 */
static int plan_stream_pipe(const plan_input *in, plan *p)
{
	size_t R = in->keys->record_size, E = in->scratch_per_record;
	if (in->gpu || !in->stream_ok || in->input_bytes >= 0 || in->ninputs > PLAN_STREAM_MAX_INPUTS)
		return 0;
	uint64_t C = in->mem / (2 * R + E);
	if (C > in->max_records)
		C = in->max_records;
	p->chunk = C ? C : 1;
	p->buffers = 2;
	p->share_buffers = 2 * p->chunk * R;
	p->share_scratch = p->chunk * E;
	return 1;
}

void plan_make(const plan_input *in, plan *p)
{
	*p = (plan){ 0 };
	size_t R = in->keys->record_size;
	p->records = in->input_bytes >= 0 ? (uint64_t)in->input_bytes / R : 0;
	p->device_budget = in->gpu ? plan_device_budget(in->gpu_mem, in->merge_only ? 0 : in->input_bytes) : 0;
	if (in->merge_only) {
		p->path = PLAN_MERGE_INPUTS;
		p->runs = (uint64_t)in->ninputs;
		plan_merge_make(in->keys, in->mem, 0, p->runs, in->max_fanin, &p->merge);
		p->share_sink = 2 * (uint64_t)p->merge.sink;
		return;
	}
	if (in->count_ok) {
		/* the histogram is the sorted output: one read, one write, no run */
		p->path = PLAN_COUNT;
		p->single = 1;
		p->chunk = p->records ? p->records : 1;
		p->share_sink = 2 * (uint64_t)PLAN_SINGLE_SINK;
		return;
	}
	if (plan_resident(in, p)) {
		p->path = PLAN_RESIDENT;
	} else if (plan_stream_pipe(in, p)) {
		p->path = PLAN_STREAM;
	} else {
		plan_chunks(in, p);
		p->path = !in->gpu && in->stream_ok && p->single && in->ninputs <= PLAN_STREAM_MAX_INPUTS ? PLAN_STREAM
													    : PLAN_CHUNKED;
	}
	if (p->single) {
		p->share_sink = 2 * (uint64_t)PLAN_SINGLE_SINK;
		return;
	}
	if (in->input_bytes >= 0 && p->chunk)
		p->runs = (p->records + p->chunk - 1) / p->chunk;
	/* kept at the merge: every run, or (spilling) the last one, or
	 * (keep_fits) at most share_kept */
	uint64_t kept = p->share_kept;
	if (!kept && p->path == PLAN_CHUNKED)
		kept = p->chunk * R;
	plan_merge_make(in->keys, in->mem, kept, p->runs, in->max_fanin, &p->merge);
	p->share_sink = 2 * (uint64_t)PLAN_SINGLE_SINK;
}

int plan_small_on_cpu(const plan_input *in)
{
	if (!in->gpu_likely || in->gpu_asked || in->merge_only || !in->small_cpu_ok || !in->stream_ok ||
	    in->ninputs > PLAN_STREAM_MAX_INPUTS || in->input_bytes < 0)
		return 0;
	const keys_spec *s = in->keys;
	size_t R = s->record_size;
	uint64_t n = (uint64_t)in->input_bytes / R;
	uint64_t E = cpusort_scratch_per_record(s);
	if (n > cpusort_max_records(s) || n * (2 * R + E) > in->mem)
		return 0; /* not one CPU chunk: the run phase and merge favour the GPU */
	uint64_t t = (uint64_t)in->threads;
	keys_native kn;
	keys_word kw;
	if (keys_native_init(s, &kn) == 0 || keys_word_init(s, &kw) == 0)
		return n * R <= t * SMALL_CPU_NATIVE;
	if (cpusort_key_only(s))
		return n * R <= t * SMALL_CPU_BYTEWISE;
	return n * cpusort_entry_size(s) <= t * SMALL_CPU_ENTRIES && n * R <= t * SMALL_CPU_RECORDS;
}

const char *plan_path_name(int path)
{
	static const char *const names[] = { "merge-inputs", "stream", "resident", "chunked", "count" };
	return path >= 0 && path <= PLAN_COUNT ? names[path] : "?";
}
