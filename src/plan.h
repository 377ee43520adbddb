/*
 * plan.h - the planner: from the inputs, the record layout, -S,
 * --gpu-memory and the chunk sort's capabilities to a plain plan (the run
 * formation path, chunk size, every host buffer's share of -S, the device
 * budget, the merge's memory, fan-in and passes). DESIGN.md section 6 gives
 * the rules and why.
 *
 * Pure: no I/O, no allocation, no global state; the same input gives the same
 * plan, so tests/test_planner.c checks the rules on a table of inputs. The
 * run and merge phases take their sizes from here and nowhere else.
 */
#ifndef GPUSORT_PLAN_H
#define GPUSORT_PLAN_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"

#define PLAN_MAX_KEEP_RUNS 64                  /* a keep-in-memory plan makes at most this many runs */
#define PLAN_MIN_MERGE_MEM ((size_t)1 << 20)   /* merge memory floor when -S is tiny */
#define PLAN_MERGE_SINK_MAX ((size_t)256 << 20) /* bytes per output buffer of a merge */
#define PLAN_SINGLE_SINK ((size_t)64 << 10)    /* bytes per output buffer when one chunk is written */
#define PLAN_STREAM_MAX_INPUTS 64              /* the streamed chunk reads at most this many files side by side */
#define PLAN_RESIDENT_MAX_INPUTS 64            /* likewise the device-resident chunks */
/* Device bytes asked for at most, per byte of a known input: radix, the
 * fastest sorter, holds the records, their gathered copy and two sets of
 * sort words (16-byte records with a 12-byte key: 4.06 bytes a byte), so
 * that --algorithm=auto finds it room on every layout. */
#define PLAN_DEVICE_PER_INPUT 5
#define PLAN_DEVICE_SLACK ((uint64_t)64 << 20) /* device bytes beyond PLAN_DEVICE_PER_INPUT x a known input never asked for */
#define PLAN_PIPE_CHUNK_MIN ((uint64_t)256 << 20) /* GPU, unknown size: chunk bytes aimed at, at least (plan.c) */

/* How runs are formed (the first choice: every path falls back to
 * PLAN_CHUNKED when the inputs turn out not to be what was checked). */
enum {
	PLAN_MERGE_INPUTS, /* -m: every input is a sorted run */
	PLAN_STREAM,       /* CPU, one chunk of regular files read by all threads, written while sorted;
			    * or a pipe's first chunk, counted while read (then PLAN_CHUNKED when it goes on) */
	PLAN_RESIDENT,     /* GPU, device-sized chunks read by all threads into pinned staging */
	PLAN_CHUNKED,      /* chunks read by one reader thread into host buffers, sorted, kept or spilled */
	PLAN_COUNT,        /* records that are their keys, 1 or 2 bytes: counted while read, any size, no run */
};

/* What the planner plans from. Sizes in bytes unless said otherwise. */
typedef struct plan_input {
	const keys_spec *keys;     /* record layout (record_size > 0) */
	int64_t input_bytes;       /* every input a regular file: their total; -1: unknown (a pipe) */
	int ninputs;
	uint64_t mem;              /* -S */
	uint64_t gpu_mem;          /* --gpu-memory; 0: the default (most of the free device memory) */
	int threads;               /* --parallel, >= 1 */
	int merge_only;            /* -m */
	int max_fanin;             /* --batch-size: most runs one merge takes at once (>= 2); 0: no cap */
	/* the chunk sort, once chosen (engine.h) */
	int gpu;                   /* it runs on the GPU */
	uint64_t max_records;      /* most records in one chunk */
	size_t scratch_per_record; /* host scratch bytes per record */
	/* for plan_small_on_cpu: the GPU engine is likely (a driver, no --cpu),
	 * or the options ask for it (--device, --algorithm=bitonic, --merge-engine=gpu) */
	int gpu_likely, gpu_asked;
	/* path switches (job_knobs; all 1 in the installed binary) */
	int stream_ok, resident_ok, small_cpu_ok;
	/* records of at most KEYS_COUNT_MAX bytes that are their keys, no GPU
	 * asked for by name: PLAN_COUNT (runs_count.c), whatever the size */
	int count_ok;
} plan_input;

/* The merge of the runs a plan leaves (src/merge_phase.c). */
typedef struct plan_merge {
	size_t mem;       /* -S less the runs kept in memory, at least PLAN_MIN_MERGE_MEM */
	size_t windows;   /* of it, the runs' read windows: mem / 2 */
	size_t sink;      /* of it, each of the output's two buffers: mem / 4, at most PLAN_MERGE_SINK_MAX */
	int fanin;        /* most runs merged at once: merge_max_fanin of the windows, at most --batch-size */
	int passes;       /* merge passes for the runs the plan predicts (0: unknown) */
} plan_merge;

typedef struct plan {
	int path;                  /* PLAN_* */
	uint64_t records;          /* input records; 0 when unknown */
	/* PLAN_CHUNKED (and PLAN_STREAM, whose one chunk is the input) */
	uint64_t chunk;            /* records per chunk */
	int buffers;               /* record buffers of chunk records the reader's pool may hold at once */
	int keep_all;              /* every run kept in memory: nothing spilled */
	int keep_fits;             /* size unknown: runs kept in memory while their buffers fit
				    * share_kept, spilled from the first that does not on */
	int single;                /* the whole input is one chunk: no run, no merge */
	/* PLAN_RESIDENT */
	size_t piece;              /* bytes per staging buffer (RESIDENT_SLOTS of them, resident.h);
				    * 0 when -S is too small for the path; on PLAN_CHUNKED (keep_fits,
				    * GPU) the GPU merge's staging, 0: the merge is the CPU's */
	int resident_keep;         /* its runs kept in memory */
	/* each host buffer's share of -S, bytes (they sum to at most -S, but for
	 * the floors: one record per chunk, PLAN_MIN_MERGE_MEM for the merge) */
	uint64_t share_buffers;    /* record buffers being read, sorted or spilled */
	uint64_t share_scratch;    /* the sort's scratch */
	uint64_t share_staging;    /* the device-resident path's (or the GPU merge's) pinned staging */
	uint64_t share_kept;       /* runs kept in memory until the merge (keep_fits: at most) */
	uint64_t share_sink;       /* the output's two buffers while runs are formed */
	uint64_t device_budget;    /* device bytes to ask for; 0: the driver's default */
	/* the merge, as far as it can be known before the runs exist */
	uint64_t runs;             /* runs predicted (0: one chunk, or unknown size) */
	plan_merge merge;
} plan;

/*
 * The plan for in: a pure function of it (see plan.h's head). Never fails:
 * every input has a plan (the floors above keep a tiny -S workable).
 */
void plan_make(const plan_input *in, plan *p);

/*
 * The merge's shares once the runs exist: mem bytes of -S, kept_bytes of
 * them held by runs in memory, nruns runs to merge (0: unknown), max_fanin
 * the --batch-size cap on the fan-in (0: none; else >= 2). The fan-in is
 * what the windows allow, at most max_fanin; the passes the fewest that
 * fan-in needs for nruns (each pass but the last merges groups of fan-in
 * consecutive runs into one run each).
 */
void plan_merge_make(const keys_spec *s, uint64_t mem, uint64_t kept_bytes, uint64_t nruns, int max_fanin,
		     plan_merge *m);

/*
 * The device bytes to ask for: --gpu-memory (gpu_mem, 0 for the default),
 * but no more than a known input needs (PLAN_DEVICE_PER_INPUT times it,
 * plus PLAN_DEVICE_SLACK), so that a small sort
 * does not hold the whole GPU against other processes. input_bytes: -1 when
 * unknown. Returns 0 for "the default".
 */
uint64_t plan_device_budget(uint64_t gpu_mem, int64_t input_bytes);

/*
 * The auto engine's rule for small inputs: 1 when a known input is so small
 * that starting CUDA (its start-up and teardown cost about 0.4 s whatever
 * the size) and the device's copies cost more than the CPU engine's
 * streamed single chunk takes for the whole sort; then the GPU is not
 * started. The bound grows with the threads that share the CPU's work and
 * depends on what the CPU's radix passes move (records of one 4- or 8-byte
 * key as native integers, (prefix, index) entries, or byte-wise passes over
 * key-only records); the man page's "Small inputs" gives the numbers and
 * bench/results/INDEX.md the measurements behind them. Only an input that is
 * one CPU chunk under -S qualifies (in's engine fields are not read: the
 * CPU engine's are cpusort.h's).
 */
int plan_small_on_cpu(const plan_input *in);

/* The name of a PLAN_* path ("stream", "resident", "chunked", "merge-inputs"). */
const char *plan_path_name(int path);

#endif
