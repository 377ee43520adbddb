/*
 * job.c - a whole sort: plan the chunks, form runs (read -> sort -> keep or
 * spill, overlapped), merge them (in passes if there are too many), write the
 * output atomically, and check it (--verify). DESIGN.md section 2.
 */
#define _GNU_SOURCE
#include "job.h"
#include "cpusort.h"
#include "cpustream.h"
#include "engine.h"
#include "gpumerge.h"
#include "merge.h"
#include "readall.h"
#include "resident.h"
#include "tpool.h"
#include "run.h"
#include "sink.h"
#include "util.h"
#include "../io/io.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_KEEP_RUNS 64          /* keep-in-memory plans make at most this many runs */
#define MIN_MERGE_MEM (1u << 20)  /* merge memory floor when -S is tiny */
#define MERGE_SINK_MAX ((size_t)256 << 20) /* bytes per output buffer of the final merge */
#define STREAM_MAX_INPUTS 64      /* the streamed single chunk reads at most this many files side by side */
/* bytes per CPU thread up to which the auto engine sorts on the CPU: the
 * CUDA start-up and teardown (~0.4 s) and the device's copies cost more
 * than the streamed CPU sort then (small_on_cpu) */
#define SMALL_CPU_NATIVE ((uint64_t)128 << 20)  /* records of a 4- or 8-byte key, nothing else */
#define SMALL_CPU_ENTRIES ((uint64_t)96 << 20)  /* sort entries of records sorted through entries */
#define SMALL_CPU_RECORDS ((uint64_t)256 << 20) /* ... and their record bytes */
#define SMALL_CPU_BYTEWISE ((uint64_t)28 << 20) /* other key-only records (byte-wise radix passes) */

struct stats {
	double t0, read_s, sort_s, spill_s, merge_s, write_s, mread_s;
	double start_s;   /* engine start (CUDA context, device arena) and pinned staging */
	uint64_t records, bytes_in, records_out, runs, spilled, chunk, rounds, passes, gpu_groups;
	const char *engine;
	cpustream_stats stream;  /* the streamed single chunk (cpustream.h); bits 0: not used */
};

struct ctx {
	const job_opts *o;
	job_result *r;
	const keys_spec *s;
	size_t R;
	io_file *in;
	int nin, cur;           /* reader: file being read */
	uint64_t *in_bytes;     /* bytes read from each input */
	int bad_file;           /* reader: input that failed */
	io_output out;
	int out_open;
	io_file *spill;         /* one per -T dir, opened on first use */
	uint64_t *spill_end;    /* next free aligned offset of each */
	int next_tmp;
	run **runs;
	int nruns, caprun;
	verify_sum vin, vout;
	verify_order vord;
	struct stats st;
	engine eng;
	int small_cpu;          /* the auto engine chose the CPU for a small input (small_on_cpu) */
};

static void fail(struct ctx *c, const char *fmt, ...)
{
	if (c->r->status == 2)
		return; /* the first error is the one to report */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->r->msg, sizeof c->r->msg, fmt, ap);
	va_end(ap);
	c->r->status = 2;
}

static void fail_size(struct ctx *c, const char *name, uint64_t size)
{
	fail(c, "%s: size %" PRIu64 " is not a multiple of the record size %zu (%" PRIu64 " bytes left over)",
	     name, size, c->R, size % c->R);
}

/* ---- inputs ------------------------------------------------------------ */

/*
 * Check every input before any work (missing, unreadable, a directory, a
 * size that is not a multiple of the record size) so a bad input fails fast
 * and leaves the output alone. Sorting opens files one at a time as the
 * reader reaches them (any number of inputs under a small `ulimit -n`);
 * -m reads them side by side and -c reads in place, so they keep them open.
 */
static int open_inputs(struct ctx *c, int keep_open)
{
	const job_opts *o = c->o;
	c->nin = o->ninputs;
	c->in = calloc((size_t)c->nin, sizeof *c->in);
	c->in_bytes = calloc((size_t)c->nin, sizeof *c->in_bytes);
	if (!c->in || !c->in_bytes) {
		fail(c, "out of memory");
		return -1;
	}
	for (int i = 0; i < c->nin; i++)
		c->in[i].fd = c->in[i].dfd = -1;
	for (int i = 0; i < c->nin; i++) {
		io_file *f = &c->in[i];
		int rc;
		if (keep_open || !strcmp(o->inputs[i], "-")) {
			rc = io_open_input(f, o->inputs[i]);
		} else {
			/* opened for a moment: the checks see what reading will see.
			 * Only regular files are closed again: closing a FIFO's read
			 * end would cut off its writer. */
			rc = io_open_input(f, o->inputs[i]);
			if (!rc && f->regular) {
				uint64_t size = f->size, pos = f->pos;
				int regular = f->regular;
				io_close(f);
				f->regular = regular;
				f->size = size;
				f->pos = pos;
			}
		}
		if (rc) {
			fail(c, "cannot read '%s': %s", o->inputs[i], strerror(-rc));
			return -1;
		}
		if (f->regular && (f->size - f->pos) % c->R) {
			fail_size(c, f->name, f->size - f->pos);
			return -1;
		}
	}
	return 0;
}

static void close_inputs(struct ctx *c)
{
	for (int i = 0; i < c->nin; i++)
		io_close(&c->in[i]);
}

/* Total input bytes when every input is a regular file; -1 otherwise. */
static int64_t known_size(struct ctx *c)
{
	uint64_t sum = 0;
	for (int i = 0; i < c->nin; i++) {
		if (!c->in[i].regular)
			return -1;
		sum += c->in[i].size - c->in[i].pos;
	}
	return (int64_t)sum;
}

/*
 * Reader job (runs on the reader's I/O worker): fill j->buf with up to
 * j->len bytes of records from the inputs, in order, across file boundaries.
 * Returns records read, or -errno (c->bad_file names the input).
 */
static ssize_t read_chunk(io_job *j, io_ring *ring)
{
	struct ctx *c = j->arg;
	uint8_t *buf = j->buf;
	size_t got = 0;
	while (got < j->len && c->cur < c->nin) {
		io_file *f = &c->in[c->cur];
		if (f->fd < 0) {
			int rc = io_open_input(f, c->o->inputs[c->cur]);
			if (rc) {
				c->bad_file = c->cur;
				return rc;
			}
		}
		ssize_t n = io_read_next(ring, f, buf + got, j->len - got, j->cap - got);
		if (n < 0) {
			c->bad_file = c->cur;
			return n;
		}
		got += (size_t)n;
		c->in_bytes[c->cur] += (uint64_t)n;
		if (f->eof) {
			if (c->in_bytes[c->cur] % c->R) {
				c->bad_file = c->cur;
				return -EPROTO;
			}
			io_close(f); /* done with it: one input open at a time */
			c->cur++;
		}
	}
	size_t n = got / c->R;
	if (c->o->verify)
		verify_add(&c->vin, buf, n, c->R);
	return (ssize_t)n;
}

static void read_error(struct ctx *c, int rc)
{
	io_file *f = &c->in[c->bad_file];
	if (rc == -EPROTO)
		fail_size(c, f->name, c->in_bytes[c->bad_file]);
	else
		fail(c, "%s: read error: %s", f->name, strerror(-rc));
}

/* ---- spill files ------------------------------------------------------------ */

static const char *tmpdir_of(struct ctx *c, int i)
{
	return c->o->tmpdirs[i];
}

/* The spill file of the next -T dir (round robin), opened on first use. */
static io_file *spill_file(struct ctx *c, int *dir)
{
	int i = c->next_tmp;
	c->next_tmp = (c->next_tmp + 1) % c->o->ntmp;
	if (c->spill[i].fd < 0) {
		int rc = io_open_spill(&c->spill[i], tmpdir_of(c, i));
		if (rc) {
			c->spill[i].fd = -1;
			fail(c, "cannot create a temporary file in '%s': %s", tmpdir_of(c, i), strerror(-rc));
			return NULL;
		}
	}
	*dir = i;
	return &c->spill[i];
}

static run *new_run(struct ctx *c)
{
	if (c->nruns == c->caprun) {
		int cap = c->caprun ? c->caprun * 2 : 64;
		run **n = realloc(c->runs, (size_t)cap * sizeof *n);
		if (!n)
			return NULL;
		c->runs = n;
		c->caprun = cap;
	}
	run *r = calloc(1, sizeof *r);
	if (r)
		c->runs[c->nruns++] = r;
	return r;
}

static void free_run(struct ctx *c, run *r)
{
	if (!r)
		return;
	if (r->pinned)
		engine_unpin(&c->eng, r->mem);
	free(r->mem);
	run_hash_free(&r->hash);
	free(r);
}

/* Writer hook: the run's place in its spill file, and its block checksums. */
static void spill_hook(io_job *j)
{
	run *r = j->arg;
	r->file->pos = r->off;
	if (run_hash_add(&r->hash, j->buf, j->len) || run_hash_end(&r->hash))
		j->res = -ENOMEM;
}

/* ---- run formation ------------------------------------------------------------ */

/*
 * The pool's buffers registered with the reader's and the writer's rings as
 * fixed buffers (io_ring_register). A ring belongs to its worker's thread, so
 * registering is a CALL job on that worker: it runs between the worker's
 * transfers, in queue order (a transfer queued before it just goes unfixed).
 * Each new buffer registers the whole pool again (unchanged ones keep their
 * pinning); one request per worker is in flight, the next waits for it
 * (behind at most the transfer then in progress). Buffers are freed, and kept
 * runs' buffers released, only after io_worker_stop, which unregisters.
 * Failure leaves the transfers unfixed (--stats says why).
 */
struct fixreg {
	io_worker *w;           /* NULL: this worker's ring gets no registration */
	io_job job;
	int pending;
	void *bufs[8];
	size_t lens[8];
	int n;
};

static ssize_t fixreg_call(io_job *j, io_ring *ring)
{
	struct fixreg *f = j->arg;
	return io_ring_register(ring, f->bufs, f->lens, f->n);
}

struct pool {
	uint8_t *buf[8];
	int pinned[8];
	int nbuf, max;
	uint8_t *free[8];
	int nfree;
	size_t bytes;           /* per buffer */
	io_job wjob[8];         /* pending spill writes: a ring, oldest at wh */
	uint8_t *wbuf[8];       /* (jobs never move: the worker links them) */
	int wh, nw;
	struct fixreg fx[2];    /* the reader's and the writer's registrations */
};

static void pool_register(struct pool *p)
{
	for (int i = 0; i < 2; i++) {
		struct fixreg *f = &p->fx[i];
		if (!f->w)
			continue;
		if (f->pending)
			io_worker_wait(f->w, &f->job);
		f->n = p->nbuf;
		for (int b = 0; b < p->nbuf; b++) {
			f->bufs[b] = p->buf[b];
			f->lens[b] = p->bytes;
		}
		f->job = (io_job){ .op = IO_JOB_CALL, .call = fixreg_call, .arg = f };
		io_worker_submit(f->w, &f->job);
		f->pending = 1;
	}
}

static uint8_t *pool_take(struct ctx *c, struct pool *p, io_worker *writer)
{
	if (p->nfree)
		return p->free[--p->nfree];
	if (p->nbuf < p->max) {
		uint8_t *b = util_alloc_aligned(p->bytes, IO_ALIGN);
		if (b) {
			/* pinned once, reused for every chunk (DESIGN.md section 6) */
			p->pinned[p->nbuf] = engine_pin(&c->eng, b, p->bytes);
			p->buf[p->nbuf++] = b;
			pool_register(p);
			return b;
		}
	}
	if (p->nw) { /* recycle the oldest spilled buffer */
		ssize_t rc = io_worker_wait(writer, &p->wjob[p->wh]);
		uint8_t *b = p->wbuf[p->wh];
		p->wh = (p->wh + 1) % 8;
		p->nw--;
		if (rc < 0) {
			fail(c, "cannot write a temporary file: %s", strerror((int)-rc));
			return NULL;
		}
		return b;
	}
	fail(c, "out of memory (buffers of %zu bytes; try a smaller -S)", p->bytes);
	return NULL;
}

static void pool_give(struct pool *p, uint8_t *b)
{
	p->free[p->nfree++] = b;
}

/* A kept run owns its buffer: it leaves the pool. Returns whether it was pinned. */
static int pool_detach(struct pool *p, uint8_t *b)
{
	for (int i = 0; i < p->nbuf; i++)
		if (p->buf[i] == b) {
			int pinned = p->pinned[i];
			p->nbuf--;
			p->buf[i] = p->buf[p->nbuf];
			p->pinned[i] = p->pinned[p->nbuf];
			return pinned;
		}
	return 0;
}

struct plan {
	size_t chunk;    /* records per chunk */
	int maxbufs;     /* record buffers in the pool */
	int keep_all;    /* keep every run in memory */
};

static size_t align_unit(size_t R)
{
	size_t a = IO_ALIGN, b = R;
	while (b) {
		size_t t = a % b;
		a = b;
		b = t;
	}
	return IO_ALIGN / a; /* records per whole number of IO_ALIGN blocks */
}

/*
 * Chunk size from -S and the engine's memory factor (DESIGN.md section 6):
 * one chunk when the whole input fits with its sort memory; all runs kept in
 * memory when the input fits beside a small working set; else chunks of
 * S / (4 record buffers + scratch) records: one being read, two being sorted
 * (data and second buffer), one being spilled.
 */
static struct plan make_plan(struct ctx *c, int64_t total)
{
	struct plan p = { 0 };
	size_t R = c->R, E = c->eng.scratch_per_record;
	uint64_t S = c->o->mem;
	size_t cap = c->eng.max_records;
	if (total >= 0) {
		uint64_t n = (uint64_t)total / R;
		if (n * (2 * R + E) <= S && n <= cap) {
			p.chunk = n ? (size_t)n : 1;
			p.maxbufs = 2;
			return p;
		}
		if ((uint64_t)total < S) {
			uint64_t C = (S - (uint64_t)total) / (3 * R + E);
			if (C > cap)
				C = cap; /* the engine's largest chunk: still all kept */
			if (C && (n + C - 1) / C <= MAX_KEEP_RUNS) {
				size_t u = align_unit(R);
				p.chunk = C >= u ? C / u * u : C;
				p.maxbufs = 8;
				p.keep_all = 1;
				return p;
			}
		}
	}
	uint64_t C = S / (4 * R + E);
	if (C > cap)
		C = cap;
	size_t u = align_unit(R);
	if (C >= u)
		C = C / u * u;
	p.chunk = C ? (size_t)C : 1;
	p.maxbufs = 4;
	return p;
}

static void progress(struct ctx *c, const char *what, uint64_t done, int64_t total)
{
	if (!c->o->progress)
		return;
	char a[32], b[32];
	if (total > 0)
		fprintf(stderr, "gpusort: %s %s of %s (%.0f%%)\n", what, util_fmt_bytes(done, a, sizeof a),
			util_fmt_bytes((uint64_t)total, b, sizeof b), 100.0 * (double)done / (double)total);
	else
		fprintf(stderr, "gpusort: %s %s\n", what, util_fmt_bytes(done, a, sizeof a));
}

/* ---- the streamed single chunk (cpustream.h) -------------------------------- */

/* The streamed single chunk's setting: -1 (off), 0 (on, bits chosen by
 * cpustream_bits) or the test build's fixed partition bits. */
static int stream_setting(const struct ctx *c)
{
	const job_knobs *k = &c->o->knobs;
	if (k->no_stream)
		return -1;
	return k->stream_bits >= 1 && k->stream_bits <= CPUSTREAM_MAX_BITS ? k->stream_bits : 0;
}

/*
 * Sort and write the chunk of S (cpustream.h; counted: its records were
 * counted while read) and fill the stats. Frees S. Returns 0 or -1 (c->r
 * filled, or the sink's error, which the caller reports).
 */
static int stream_run(struct ctx *c, cpustream *S, int counted)
{
	int rc = cpustream_run(S, counted, &c->st.stream);
	c->st.sort_s += c->st.stream.sort_s;
	c->st.engine = c->small_cpu ? "cpu (streamed; small input)" : "cpu (streamed)";
	if (rc == -ENOMEM)
		fail(c, "out of memory");
	return rc ? -1 : 0;
}

/*
 * Sort the whole input, n records at a (b: a second buffer, scratch:
 * cpusort_scratch_bytes), on the CPU while writing it to out. With tp NULL
 * a pool of its own is started. Returns 0 or -1 (c->r filled, or the sink's
 * error, which the caller reports).
 */
static int stream_chunk(struct ctx *c, tpool *tp, uint8_t *a, uint8_t *b, size_t n, void *scratch, sink *out)
{
	tpool *own = NULL;
	int rc = 0;
	if (!tp && (rc = tpool_start(&own, c->o->threads))) {
		fail(c, "cannot start threads: %s", strerror(-rc));
		return -1;
	}
	cpustream *S = cpustream_new(c->s, a, b, n, scratch, stream_setting(c), tp ? tp : own, out);
	rc = S ? stream_run(c, S, 0) : -1;
	if (!S)
		fail(c, "out of memory");
	tpool_stop(own);
	return rc;
}

/* readall_range_each's callback: count the records just read (cpustream_count). */
static void stream_count(void *arg, int part, size_t first, size_t count)
{
	cpustream_count(arg, part, first, count);
}

/* Close inputs [0, upto) again, but standard input (read there, never reopened). */
static void reclose_inputs(struct ctx *c, int upto)
{
	for (int k = 0; k < upto; k++)
		if (strcmp(c->o->inputs[k], "-"))
			io_close(&c->in[k]);
}

/*
 * Open the inputs (every one a regular file, closed again after the checks)
 * side by side for reading at known offsets. Returns 0, 1 (one is no longer
 * what was checked, or no more files can be open at once: read them as a
 * stream instead; the ones opened here are closed again) or -1 (c->r
 * filled).
 */
static int reopen_inputs(struct ctx *c)
{
	for (int i = 0; i < c->nin; i++) {
		io_file *f = &c->in[i];
		uint64_t was = f->size - f->pos;
		int rc = f->fd < 0 ? io_open_input(f, c->o->inputs[i]) : 0;
		if (rc == -EMFILE || rc == -ENFILE) {
			reclose_inputs(c, i);
			return 1; /* the stream reader opens one at a time */
		}
		if (rc) {
			fail(c, "cannot read '%s': %s", c->o->inputs[i], strerror(-rc));
			return -1;
		}
		if (!f->regular || f->size - f->pos != was) {
			reclose_inputs(c, i + 1);
			return 1;
		}
	}
	return 0;
}

/*
 * The CPU engine's single chunk when every input is a regular file: read by
 * all threads (readall_range_each) and counted for the partition as it is
 * read, then sorted and written by cpustream_run, the writing overlapping
 * the sort. Returns 0 (written), 1 (not taken:
 * nothing read; the chunked path reads the inputs as a stream) or -1
 * (c->r filled, or the sink's error, which the caller reports).
 */
static int form_runs_stream(struct ctx *c, sink *out, int64_t total)
{
	size_t R = c->R, n = (size_t)((uint64_t)total / R);
	if (c->nin > STREAM_MAX_INPUTS)
		return 1;
	int rc = reopen_inputs(c);
	if (rc)
		return rc;
	size_t sb = cpusort_scratch_bytes(c->s, n);
	/* 2 MiB pages: on the H200 machine (16 cores) 1 GiB of u64 took
	 * 0.56-0.78 s instead of 0.74-1.05 s and 1 GiB of 100-byte records
	 * 0.46-0.49 s instead of 0.56-0.64 s, mostly in faulting the buffers in
	 * and unmapping them at the end (512x fewer pages); on the 2-core VM, whose
	 * 2 MiB first touches cost more, 1 GiB of 100-byte records took 2.3-2.7 s
	 * instead of 2.0-2.3 s (bench/results/cpu-native-2026-11-22.md, section 2) */
	uint8_t *a = util_alloc_huge(n * R), *b = util_alloc_huge(n * R);
	uint8_t *scratch = sb ? util_alloc_huge(sb) : NULL;
	tpool *tp = NULL;
	int ret = -1, bad = -1;
	if (!a || !b || (sb && !scratch)) {
		fail(c, "out of memory (2 buffers of %zu bytes and %zu of sort scratch; try a smaller -S)", n * R, sb);
		goto out;
	}
	if ((rc = tpool_start(&tp, c->o->threads))) {
		fail(c, "cannot start threads: %s", strerror(-rc));
		goto out;
	}
	/* the records are counted for the partition as they are read, each
	 * 4 MiB piece while it is in the reading thread's cache */
	cpustream *S = cpustream_new(c->s, a, b, n, scratch, stream_setting(c), tp, out);
	if (!S) {
		fail(c, "out of memory");
		goto out;
	}
	double t0 = util_now();
	rc = readall_range_each(tp, c->in, c->nin, 0, (uint64_t)n * R, a, R, c->o->verify ? &c->vin : NULL, &bad,
				stream_count, S);
	c->st.read_s += util_now() - t0;
	if (rc) {
		cpustream_free(S);
		if (bad < 0)
			fail(c, "out of memory");
		else if (rc == -ENODATA)
			fail(c, "%s: read error: the file shrank while being read", c->in[bad].name);
		else
			fail(c, "%s: read error: %s", c->in[bad].name, strerror(-rc));
		goto out;
	}
	c->st.records = n;
	c->st.chunk = n ? n : 1;
	for (int i = 0; i < c->nin; i++)
		c->in_bytes[i] = c->in[i].size - c->in[i].pos;
	if (stream_run(c, S, 1) == 0) {
		ret = 0;
		progress(c, "sorted", (uint64_t)total, total);
	}
out:
	tpool_stop(tp);
	close_inputs(c);
	free(a);
	free(b);
	free(scratch);
	return ret;
}

/*
 * Read, sort and keep/spill every chunk. On return either the output was
 * written already (*single = 1: one chunk, no merge) or c->runs holds the
 * runs in input order. Returns 0 or -1 (c->r filled).
 */
static int form_runs(struct ctx *c, sink *out, int *single)
{
	int64_t total = known_size(c);
	struct plan pl = make_plan(c, total);
	*single = 0;
	if (!c->eng.gpu && total >= 0 && (uint64_t)total / c->R <= pl.chunk && stream_setting(c) >= 0) {
		/* one chunk of regular files on the CPU: read by all threads, written while sorted */
		int rc = form_runs_stream(c, out, total);
		if (rc <= 0) {
			*single = 1;
			return rc;
		}
	}
	struct pool p = { .max = pl.maxbufs };
	size_t R = c->R;
	p.bytes = pl.chunk * R + IO_ALIGN;
	c->st.chunk = pl.chunk;
	void *scratch = NULL;
	size_t sb = c->eng.scratch_per_record * pl.chunk;
	if (sb && !(scratch = util_alloc_aligned(sb, 64))) {
		fail(c, "out of memory (sort scratch of %zu bytes; try a smaller -S)", sb);
		return -1;
	}
	io_worker reader, writer;
	int rc = io_worker_start(&reader);
	if (!rc && (rc = io_worker_start(&writer)))
		io_worker_stop(&reader);
	if (rc) {
		free(scratch);
		fail(c, "cannot start I/O threads: %s", strerror(-rc));
		return -1;
	}
	io_job rjob;
	/* fixed buffers for reads of regular inputs, and for spill writes
	 * unless this plan keeps every run in memory */
	for (int i = 0; i < c->nin && !p.fx[0].w; i++)
		if (c->in[i].regular)
			p.fx[0].w = &reader;
	if (!pl.keep_all && pl.maxbufs > 2)
		p.fx[1].w = &writer;
	uint8_t *A = pool_take(c, &p, &writer);
	int ret = -1, first = 1;
	uint64_t done_bytes = 0;
	*single = 0;
	if (!A)
		goto out;
	rjob = (io_job){ .op = IO_JOB_CALL, .call = read_chunk, .arg = c, .buf = A,
			 .len = pl.chunk * R, .cap = p.bytes };
	io_worker_submit(&reader, &rjob);
	for (;;) {
		ssize_t n = io_worker_wait(&reader, &rjob);
		if (n < 0) {
			read_error(c, (int)n);
			goto out;
		}
		int eof = c->cur >= c->nin;
		c->st.records += (uint64_t)n;
		done_bytes += (uint64_t)n * R;
		if (n == 0) {
			pool_give(&p, A);
			if (first)
				*single = 1; /* empty input: empty output */
			break;
		}
		uint8_t *B = NULL;
		if (!eof) {
			if (!(B = pool_take(c, &p, &writer)))
				goto out;
			rjob = (io_job){ .op = IO_JOB_CALL, .call = read_chunk, .arg = c, .buf = B,
					 .len = pl.chunk * R, .cap = p.bytes };
			io_worker_submit(&reader, &rjob);
		}
		uint8_t *T = pool_take(c, &p, &writer);
		if (!T)
			goto out;
		if (first && eof && !c->eng.gpu && stream_setting(c) >= 0) {
			/* one chunk on the CPU (read as a stream): written while sorted */
			rc = stream_chunk(c, NULL, A, T, (size_t)n, scratch, out);
			pool_give(&p, A);
			pool_give(&p, T);
			*single = 1;
			if (rc)
				goto out;
			break;
		}
		double t0 = util_now();
		uint8_t *sorted = NULL;
		rc = c->eng.sort(&c->eng, A, T, (size_t)n, scratch, &sorted);
		c->st.sort_s += util_now() - t0;
		if (rc) {
			fail(c, "%s", c->eng.errmsg);
			goto out;
		}
		pool_give(&p, sorted == A ? T : A);
		if (first && eof) {
			/* one chunk: no run, no merge, no temp file (the write is
			 * timed by the sink's writer: job_sort adds its busy time) */
			rc = sink_put(out, sorted, (size_t)n);
			pool_give(&p, sorted);
			*single = 1;
			if (rc)
				goto out;
			break;
		}
		first = 0;
		run *r = new_run(c);
		if (!r) {
			fail(c, "out of memory");
			goto out;
		}
		r->n = (uint64_t)n;
		c->st.runs++;
		if (eof || pl.keep_all) {
			/* the last run (or, when everything fits, every run) stays in memory */
			r->pinned = pool_detach(&p, sorted);
			r->mem = sorted;
			if (pl.keep_all)
				p.max = p.nbuf + 3 <= 8 ? p.nbuf + 3 : 8;
		} else {
			int dir;
			io_file *f = spill_file(c, &dir);
			if (!f)
				goto out;
			if (p.nw == 8) {
				fail(c, "internal error: too many spill writes in flight");
				goto out;
			}
			r->file = f;
			r->spilled = 1;
			r->off = c->spill_end[dir];
			c->spill_end[dir] = (r->off + r->n * R + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
			int slot = (p.wh + p.nw) % 8;
			p.wjob[slot] = (io_job){ .op = IO_JOB_WRITE, .f = f, .buf = sorted,
						 .len = (size_t)n * R, .hook = spill_hook, .arg = r };
			p.wbuf[slot] = sorted;
			io_worker_submit(&writer, &p.wjob[slot]);
			p.nw++;
			c->st.spilled++;
		}
		progress(c, "sorted", done_bytes, total);
		if (eof)
			break;
		A = B;
	}
	ret = 0;
out:
	/* drain: a failure above may leave a read and spill writes in flight */
	io_worker_stop(&reader);
	for (int i = 0; i < p.nw; i++) {
		ssize_t w = io_worker_wait(&writer, &p.wjob[(p.wh + i) % 8]);
		if (w < 0 && ret == 0) {
			fail(c, "cannot write a temporary file in '%s': %s",
			     tmpdir_of(c, 0), strerror((int)-w));
			ret = -1;
		}
	}
	io_worker_stop(&writer);
	c->st.read_s += reader.busy;
	c->st.spill_s += writer.busy;
	for (int i = 0; i < p.nbuf; i++) {
		if (p.pinned[i])
			engine_unpin(&c->eng, p.buf[i]);
		free(p.buf[i]);
	}
	free(scratch);
	return ret;
}

/* ---- the device-resident path ----------------------------------------------- */

/* Where the sorted pieces of a resident chunk go. */
struct chunk_dst {
	struct ctx *c;
	sink *out;        /* the whole input was one chunk: straight to the output */
	run *r;           /* else this run: kept (r->mem) or spilled (r->file at r->off) */
	uint64_t done;    /* records received */
	tpool *tp;
	io_ring *ring;
	int err;          /* -errno of a failed spill write */
};

static int consume_piece(void *arg, uint8_t *recs, size_t n)
{
	struct chunk_dst *d = arg;
	size_t R = d->c->R;
	if (d->out)
		return sink_put(d->out, recs, n); /* the caller reports the sink's error */
	run *r = d->r;
	if (r->mem) {
		tpool_memcpy(d->tp, r->mem + d->done * R, recs, n * R);
	} else {
		int rc = run_hash_add(&r->hash, recs, n * R);
		if (rc || (rc = io_write_next(d->ring, r->file, recs, n * R))) {
			d->err = rc;
			return rc;
		}
	}
	d->done += n;
	return 0;
}

/*
 * Sort on the GPU with device-resident chunks (resident.h) when it can:
 * regular inputs only (they are read in parallel at known offsets, and read
 * again when the device refuses a chunk), at most 64 of them, and staging
 * that fits -S. One chunk when the input fits the device (straight to the
 * output, *single = 1); else chunks as large as the device takes, kept in
 * memory when the input fits -S and spilled otherwise, then merged by the
 * caller. A chunk the device refuses (out of memory) is retried in halves.
 * Consecutive chunks overlap: while chunk i is copied back and kept or
 * spilled, chunk i+1 is read and copied to the device (resident_sort_chunk's
 * next; its run is made when its turn comes, as the prefetch only reads
 * and copies in). GPUSORT_RESIDENT=0 turns this path off, to measure the
 * chunked path against it; GPUSORT_OVERLAP=0 turns off the cross-chunk
 * overlap only, to measure it against chunks one at a time.
 * Returns 0, 1 (not taken: sort another way; nothing read or written) or -1.
 */
/* Bytes per staging piece of the resident path under -S (half of -S for the
 * RESIDENT_SLOTS buffers, at most RESIDENT_PIECE). */
static size_t resident_piece(const struct ctx *c)
{
	size_t piece = c->o->mem / (2 * RESIDENT_SLOTS);
	return piece > RESIDENT_PIECE ? RESIDENT_PIECE : piece;
}

static int form_runs_resident(struct ctx *c, sink *out, int *single)
{
	const int overlap = !c->o->knobs.no_overlap;
	int64_t total = known_size(c);
	*single = 0;
	if (!c->eng.gpu || total <= 0 || c->nin > 64 || c->o->knobs.no_resident)
		return 1;
	size_t piece = resident_piece(c);
	if (piece < RESIDENT_MIN_PIECE)
		return 1; /* -S too small for the staging buffers */
	for (int i = 0; i < c->nin; i++) {
		io_file *f = &c->in[i];
		if (f->fd < 0) {
			int rc = io_open_input(f, c->o->inputs[i]);
			if (rc) {
				fail(c, "cannot read '%s': %s", c->o->inputs[i], strerror(-rc));
				return -1;
			}
		}
		if (f->regular && (f->size - f->pos) % c->R) {
			fail_size(c, f->name, f->size - f->pos);
			return -1;
		}
	}
	if (known_size(c) != total)
		return 1; /* an input changed since it was checked: read it as a stream */
	tpool *tp = NULL;
	resident *rs = NULL;
	io_ring ring;
	int ring_ok = 0, ret = -1;
	double s0 = util_now();
	int rc = tpool_start(&tp, c->o->threads);
	if (rc) {
		fail(c, "cannot start threads: %s", strerror(-rc));
		return -1;
	}
	rc = resident_open(&rs, &c->eng, c->s, c->in, c->nin, piece, tp);
	c->st.start_s += util_now() - s0;
	if (rc) {
		tpool_stop(tp);
		if (rc < 0)
			fail(c, "out of memory");
		return rc < 0 ? -1 : 1;
	}
	uint64_t n = (uint64_t)total / c->R, chunk = c->eng.max_records, first = 0, retries = 0;
	/* kept runs and the staging fit -S: no spill files */
	int keep = (uint64_t)total + RESIDENT_SLOTS * (uint64_t)piece <= c->o->mem;
	char msg[1024];
	while (first < n) {
		uint64_t cnt = n - first < chunk ? n - first : chunk;
		struct chunk_dst d = { .c = c, .tp = tp, .ring = &ring };
		run *r = NULL;
		if (first == 0 && cnt == n) {
			d.out = out;
		} else {
			if (!(r = new_run(c))) {
				fail(c, "out of memory");
				goto out;
			}
			r->n = cnt;
			if (keep) {
				r->mem = util_alloc_huge(cnt * c->R);
				if (!r->mem) {
					fail(c, "out of memory (a run of %" PRIu64 " bytes; try a smaller -S)", cnt * c->R);
					goto out;
				}
			} else {
				int dir;
				if (!ring_ok && (rc = io_ring_init(&ring))) {
					fail(c, "cannot start I/O: %s", strerror(-rc));
					goto out;
				}
				ring_ok = 1;
				if (!(r->file = spill_file(c, &dir)))
					goto out;
				r->spilled = 1;
				r->off = c->spill_end[dir];
				r->file->pos = r->off;
				c->spill_end[dir] = (r->off + cnt * c->R + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
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
		if (rc == 1 && cnt > 1 && chunk > 1) {
			/* the device ran out of memory: retry this chunk in halves */
			if (r) {
				c->nruns--;
				free_run(c, r);
			}
			chunk = (cnt + 1) / 2;
			retries++;
			continue;
		}
		if (rc == 0 && r && r->spilled)
			rc = run_hash_end(&r->hash) ? -1 : 0;
		if (rc) {
			if (d.err)
				fail(c, "cannot write a temporary file: %s", strerror(-d.err));
			else if (msg[0])
				fail(c, "%s", msg);
			else if (rc == 1)
				fail(c, "GPU out of memory for a chunk of %" PRIu64 " records", cnt);
			else if (!d.out)
				fail(c, "out of memory");
			goto out; /* a failed sink_put: the caller reports the sink's error */
		}
		c->st.read_s += ch.read_s;
		c->st.sort_s += ch.sort_s;
		if (r) {
			c->st.runs++;
			c->st.spilled += r->spilled;
		} else {
			*single = 1;
		}
		first += cnt;
		progress(c, "sorted", first * c->R, total);
	}
	c->st.records = n;
	c->st.chunk = chunk < n ? chunk : n;
	c->st.engine = "gpu:bitonic (device-resident)";
	c->eng.gpu_retries += retries;
	ret = 0;
out:
	if (ring_ok)
		io_ring_exit(&ring);
	resident_close(rs);
	tpool_stop(tp);
	return ret;
}

/* ---- merge phase ------------------------------------------------------------ */

static void merge_error(struct ctx *c, int rc, run **runs, int bad, size_t block)
{
	if (rc == -EBADMSG && bad >= 0) {
		run *r = runs[bad];
		fail(c, "temporary file %s: checksum mismatch in block %zu (bytes %" PRIu64 "..%" PRIu64
		     "): spilled data was corrupted; no output written",
		     r->file->name, block, r->off + (uint64_t)block * RUN_BLOCK,
		     r->off + (uint64_t)(block + 1) * RUN_BLOCK - 1);
	} else if (rc == -EPROTO && bad >= 0) {
		fail_size(c, runs[bad]->file->name, runs[bad]->n * c->R);
	} else if (bad >= 0 && runs[bad]->file) {
		fail(c, "%s: read error: %s", runs[bad]->file->name, strerror(-rc));
	} else {
		fail(c, "merge failed: %s", strerror(-rc));
	}
}

static size_t merge_memory(struct ctx *c)
{
	uint64_t kept = 0;
	for (int i = 0; i < c->nruns; i++)
		if (c->runs[i]->mem)
			kept += c->runs[i]->n * c->R;
	uint64_t m = c->o->mem > kept ? c->o->mem - kept : 0;
	return m < MIN_MERGE_MEM ? MIN_MERGE_MEM : (size_t)m;
}

/* Merge runs[lo..hi) into one spilled run put in their place. */
static int merge_group(struct ctx *c, int lo, int hi, size_t mem)
{
	int dir;
	io_file *f = spill_file(c, &dir);
	if (!f)
		return -1;
	run *nr = calloc(1, sizeof *nr);
	if (!nr) {
		fail(c, "out of memory");
		return -1;
	}
	nr->file = f;
	nr->spilled = 1;
	nr->off = c->spill_end[dir];
	f->pos = nr->off;
	sink k;
	int rc = sink_open(&k, c->s, f, nr, 0, mem / 4);
	int bad = -1;
	size_t block = 0;
	merge_stats ms = { 0 };
	if (!rc)
		rc = merge_runs(c->s, c->runs + lo, hi - lo, &k, mem / 2, c->o->threads, &ms, &bad, &block);
	int wrc = sink_close(&k);
	c->st.merge_s += ms.merge_s;
	c->st.mread_s += ms.read_s;
	c->st.rounds += ms.rounds;
	if (rc || wrc) {
		if (rc)
			merge_error(c, rc, c->runs + lo, bad, block);
		else
			fail(c, "cannot write a temporary file in '%s': %s", tmpdir_of(c, dir), strerror(-wrc));
		free_run(c, nr);
		return -1;
	}
	for (int i = lo; i < hi; i++)
		nr->n += c->runs[i]->n;
	c->spill_end[dir] = (f->pos + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
	for (int i = lo; i < hi; i++)
		free_run(c, c->runs[i]);
	c->runs[lo] = nr;
	memmove(c->runs + lo + 1, c->runs + hi, (size_t)(c->nruns - hi) * sizeof *c->runs);
	c->nruns -= hi - lo - 1;
	c->st.spilled++;
	return 0;
}

/*
 * The GPU merge (gpumerge.h) of runs held in memory. Returns 0, 1 (it
 * cannot: merge on the CPU) or -1 (c->r filled, or the sink's error).
 */
static int merge_on_gpu(struct ctx *c, sink *out)
{
	tpool *tp = NULL;
	size_t piece = resident_piece(c);
	int rc = tpool_start(&tp, c->o->threads);
	if (rc) {
		fail(c, "cannot start threads: %s", strerror(-rc));
		return -1;
	}
	gpumerge_stats gs;
	char msg[1024];
	double t0 = util_now();
	rc = gpumerge_runs(&c->eng, c->s, c->runs, c->nruns, out, tp, piece, c->o->knobs.gpu_merge_by_sort, &gs, msg,
			   sizeof msg);
	tpool_stop(tp);
	c->st.merge_s += util_now() - t0;
	c->st.gpu_groups += gs.groups;
	if (rc < 0 && msg[0])
		fail(c, "%s", msg);
	if (rc == 0)
		c->st.passes++;
	return rc;
}

static int merge_all(struct ctx *c, sink *out)
{
	if (c->o->merge_where != JOB_WHERE_CPU && c->eng.gpu && !c->o->merge_only) {
		int rc = merge_on_gpu(c, out);
		if (rc <= 0)
			return rc;
		if (c->o->merge_where == JOB_WHERE_GPU) {
			fail(c, "--merge=gpu: the GPU merge takes runs held in memory, and these were spilled "
			     "(a larger -S keeps them)");
			return -1;
		}
	}
	if (c->o->merge_where == JOB_WHERE_GPU) {
		fail(c, "--merge=gpu: %s", c->o->merge_only ? "-m merges files; the GPU merge takes runs held in memory"
							     : "no GPU engine (see --cpu, --device)");
		return -1;
	}
	size_t mem = merge_memory(c);
	int fanin = merge_max_fanin(c->s, mem / 2);
	while (c->nruns > fanin) {
		/* a pass: groups of consecutive runs, so ties keep input order */
		c->st.passes++;
		int groups = (c->nruns + fanin - 1) / fanin;
		for (int g = 0; g < groups; g++) {
			int lo = g, hi = g + fanin < c->nruns ? g + fanin : c->nruns;
			if (hi - lo > 1 && merge_group(c, lo, hi, mem))
				return -1;
		}
	}
	c->st.passes++;
	int bad = -1;
	size_t block = 0;
	merge_stats ms = { 0 };
	int rc = merge_runs(c->s, c->runs, c->nruns, out, mem / 2, c->o->threads, &ms, &bad, &block);
	c->st.merge_s += ms.merge_s;
	c->st.mread_s += ms.read_s;
	c->st.rounds += ms.rounds;
	if (rc) {
		if (out->err)
			return -1; /* the output's error is reported by the caller */
		merge_error(c, rc, c->runs, bad, block);
		return -1;
	}
	return 0;
}

/* ---- stats --------------------------------------------------------------------- */

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

static void print_stats(struct ctx *c, double wall)
{
	struct stats *s = &c->st;
	double gb = (double)s->records * (double)c->R / 1e9;
	io_fixed_stats fs;
	char why[256];
	io_fixed_stats_get(&fs);
	const char *fixed = fixed_state(&fs, why, sizeof why);
	if (c->o->stats == JOB_STATS_JSON) {
		fprintf(stderr,
			"{\"engine\":\"%s\",\"records\":%" PRIu64 ",\"record_size\":%zu,\"bytes\":%" PRIu64
			",\"records_out\":%" PRIu64 ",\"chunk_records\":%" PRIu64 ",\"runs\":%" PRIu64
			",\"spilled_runs\":%" PRIu64 ",\"merge_passes\":%" PRIu64 ",\"merge_rounds\":%" PRIu64
			",\"read_s\":%.6f,\"sort_s\":%.6f,\"spill_s\":%.6f,\"merge_read_s\":%.6f"
			",\"merge_s\":%.6f,\"write_s\":%.6f,\"gpu_h2d_s\":%.6f,\"gpu_sort_s\":%.6f,\"gpu_d2h_s\":%.6f"
			",\"gpu_passes\":%" PRIu64 ",\"gpu_retries\":%" PRIu64 ",\"gpu_overlapped_chunks\":%" PRIu64 ",\"gpu_merge_groups\":%" PRIu64 ",\"start_s\":%.6f,\"wall_s\":%.6f,\"gb_per_s\":%.3f",
			s->engine, s->records, c->R, s->records * (uint64_t)c->R, s->records_out, s->chunk,
			s->runs, s->spilled, s->passes, s->rounds, s->read_s, s->sort_s, s->spill_s, s->mread_s,
			s->merge_s, s->write_s, c->eng.h2d_s, c->eng.dsort_s, c->eng.d2h_s, c->eng.passes, c->eng.gpu_retries, c->eng.gpu_overlapped, s->gpu_groups, s->start_s, wall,
			wall > 0 ? gb / wall : 0.0);
		fprintf(stderr, ",\"stream_bits\":%d,\"stream_buckets\":%" PRIu64 ",\"stream_largest_bucket\":%" PRIu64
			",\"stream_big_buckets\":%" PRIu64 ",\"stream_partition_s\":%.6f,\"stream_count_s\":%.6f"
			",\"stream_bucket_thread_s\":%.6f,\"stream_handoff_thread_s\":%.6f,\"stream_first_write_s\":%.6f",
			s->stream.bits, s->stream.buckets, s->stream.largest, s->stream.big, s->stream.partition_s,
			s->stream.count_s, s->stream.bucket_s, s->stream.handoff_s, s->stream.first_out_s);
		fprintf(stderr, ",\"fixed_buffers\":\"%s\",\"fixed_buffers_why\":\"", fixed);
		json_str(stderr, why);
		fprintf(stderr, "\",\"io_bytes\":%" PRIu64 ",\"io_fixed_bytes\":%" PRIu64 ",\"notice\":\"",
			fs.bytes, fs.fixed_bytes);
		json_str(stderr, c->r->notice);
		fputs("\"}\n", stderr);
		return;
	}
	char b[32];
	fprintf(stderr, "gpusort: stats: %" PRIu64 " records of %zu bytes (%s), engine %s, %d threads\n",
		s->records, c->R, util_fmt_bytes(s->records * (uint64_t)c->R, b, sizeof b), s->engine,
		c->o->threads);
	fprintf(stderr, "gpusort: stats: chunk %" PRIu64 " records, %" PRIu64 " runs (%" PRIu64
		" spilled), %" PRIu64 " merge passes, %" PRIu64 " rounds, %" PRIu64 " groups merged on the GPU\n",
		s->chunk, s->runs, s->spilled, s->passes, s->rounds, s->gpu_groups);
	fprintf(stderr, "gpusort: stats: read %.3f s, sort %.3f s, spill %.3f s, merge-read %.3f s, "
		"merge %.3f s, write %.3f s\n",
		s->read_s, s->sort_s, s->spill_s, s->mread_s, s->merge_s, s->write_s);
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

/* ---- the job ---------------------------------------------------------------------- */

static int open_output(struct ctx *c)
{
	int rc = io_output_open(&c->out, c->o->output);
	if (rc) {
		fail(c, "cannot write '%s': %s", c->o->output ? c->o->output : "-", strerror(-rc));
		return -1;
	}
	c->out_open = 1;
	return 0;
}

static int setup(struct ctx *c, const job_opts *o, job_result *r)
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
		fail(c, "out of memory");
		return -1;
	}
	for (int i = 0; i < o->ntmp; i++)
		c->spill[i].fd = c->spill[i].dfd = -1;
	return 0;
}

static void teardown(struct ctx *c)
{
	close_inputs(c);
	for (int i = 0; i < c->o->ntmp && c->spill; i++)
		if (c->spill[i].fd >= 0)
			io_close(&c->spill[i]);
	for (int i = 0; i < c->nruns; i++)
		free_run(c, c->runs[i]);
	free(c->runs);
	free(c->in);
	free(c->in_bytes);
	free(c->spill);
	free(c->spill_end);
	free(c->vord.last);
	engine_close(&c->eng);
}

/* Runs for -m: every input is one sorted run, read in place. */
static int inputs_as_runs(struct ctx *c)
{
	for (int i = 0; i < c->nin; i++) {
		run *r = new_run(c);
		if (!r) {
			fail(c, "out of memory");
			return -1;
		}
		io_file *f = &c->in[i];
		r->file = f;
		r->off = f->pos;
		r->stream = !f->regular;
		r->n = f->regular ? (f->size - f->pos) / c->R : 0;
		c->st.records += r->n;
	}
	c->st.runs = (uint64_t)c->nin;
	return 0;
}

/*
 * The auto engine's choice for small inputs: sort on the CPU, without
 * starting CUDA at all, when the input is so small that the CUDA context's
 * start-up and teardown (~0.3 s and ~0.1 s on the H200 machine, whatever
 * the size) and the device's copies cost more than the CPU engine's
 * streamed single chunk (cpustream.h) takes for the whole sort. The bound
 * grows with the threads that share the CPU's work, and depends on what
 * its radix passes move, fitted to where the two engines were measured to
 * break even (H200 machine, 16 threads, bench/results/h200-small-2026-11-22b.md):
 *  - records of one 4- or 8-byte key (u32, u64, f64 arrays), sorted as
 *    native integers: SMALL_CPU_NATIVE of records per thread, 2 GiB on 16
 *    (u64 broke even at 3.0 GiB, u32 at 2.3 GiB);
 *  - records sorted through (key prefix, index) entries: SMALL_CPU_ENTRIES
 *    of entries and SMALL_CPU_RECORDS of records per thread, 1.5 GiB and
 *    4 GiB on 16 (16-byte records broke even at 1.54 GiB, 100-byte
 *    records at ~4 GiB, where both engines wait on the write);
 *  - other key-only records (u16, bytes16: byte-wise passes, unchanged since
 *    the first fit): SMALL_CPU_BYTEWISE per thread (u64 on that path broke
 *    even at 0.44 GiB, bench/results/h200-small-2026-11-22.md).
 * Only when the GPU engine is likely (engine_gpu_likely: a driver, no
 * --cpu), never when something asks for the GPU (--device, --algorithm=bitonic,
 * --merge=gpu), and only where the streamed chunk is taken: regular inputs
 * (a known size) whose records fit one CPU chunk under -S. GPUSORT_SMALL_CPU=0
 * turns it off, to measure one engine against the other and for the tests
 * that want the device on small inputs. Returns 1 (sort on the CPU) or 0.
 */
static int small_on_cpu(struct ctx *c)
{
	const job_opts *o = c->o;
	if (!engine_gpu_likely(o) || o->device >= 0 || o->algorithm == JOB_WHERE_GPU || o->merge_where == JOB_WHERE_GPU ||
	    o->merge_only || o->knobs.no_small_cpu || stream_setting(c) < 0 || c->nin > STREAM_MAX_INPUTS)
		return 0;
	int64_t total = known_size(c);
	if (total < 0)
		return 0;
	uint64_t n = (uint64_t)total / c->R;
	uint64_t E = cpusort_scratch_per_record(c->s);
	if (n > CPUSORT_MAX_RECORDS || n * (2 * c->R + E) > c->o->mem)
		return 0; /* not one CPU chunk: the run phase and merge favour the GPU */
	uint64_t t = (uint64_t)o->threads;
	keys_native kn;
	if (keys_native_init(c->s, &kn) == 0)
		return n * c->R <= t * SMALL_CPU_NATIVE;
	if (cpusort_key_only(c->s))
		return n * c->R <= t * SMALL_CPU_BYTEWISE;
	return n * cpusort_entry_size(c->s) <= t * SMALL_CPU_ENTRIES && n * c->R <= t * SMALL_CPU_RECORDS;
}

void job_sort(const job_opts *o, job_result *r)
{
	struct ctx c;
	memset(r, 0, sizeof *r);
	if (setup(&c, o, r))
		goto done;
	if (open_inputs(&c, o->merge_only))
		goto done;
	/* the engine's options: o, or o on the CPU when the input is small */
	job_opts eo = *o;
	if ((c.small_cpu = small_on_cpu(&c)))
		eo.use_gpu = 0;
	const int gpu_likely = engine_prewarm(&eo);
	double e0 = util_now();
	/* The CUDA start-up (~0.2 s) runs on its own thread while this one
	 * faults in the resident path's staging buffers (~50 ms for 256 MiB). */
	engine_staging stage = { 0 };
	if (gpu_likely) {
		int64_t known = known_size(&c);
		if (!o->merge_only && known > 0 && c.nin <= 64 && !o->knobs.no_resident &&
		    resident_piece(&c) >= RESIDENT_MIN_PIECE)
			(void)engine_staging_prepare(&stage, resident_piece(&c)); /* optional: resident.c allocates otherwise */
		engine_prewarm_wait();
	}
	int erc = engine_open(&c.eng, &eo, o->merge_only ? 0 : known_size(&c), r->notice, sizeof r->notice);
	if (c.eng.gpu)
		c.eng.stage = stage;
	else
		engine_staging_free(&stage);
	c.st.start_s += util_now() - e0;
	if (erc) {
		fail(&c, "%s", c.eng.errmsg);
		goto done;
	}
	c.st.engine = c.eng.name;
	if (o->merge_where == JOB_WHERE_GPU && !c.eng.gpu) {
		fail(&c, "--merge=gpu: no GPU to merge on (%s)", !o->use_gpu ? "--cpu was given"
			 : r->notice[0] ? r->notice : "this gpusort was built without CUDA");
		goto done;
	}
	if (open_output(&c))
		goto done;
	sink out;
	size_t mem = merge_memory(&c);
	int rc = sink_open(&out, c.s, &c.out.f, NULL, o->unique, o->merge_only ? mem / 4 : (64u << 10));
	if (rc) {
		fail(&c, "cannot start the writer: %s", strerror(-rc));
		goto done;
	}
	if (o->verify) {
		out.vsum = &c.vout;
		out.vord = &c.vord;
	}
	int single = 0;
	if (o->merge_only) {
		/* --verify under -m checks order only: the inputs are not read twice */
		if (!inputs_as_runs(&c))
			merge_all(&c, &out);
	} else if (((rc = form_runs_resident(&c, &out, &single)) == 0 ||
		    (rc == 1 && form_runs(&c, &out, &single) == 0)) && !single) {
		/* the sink was sized for a single chunk; the merge wants big buffers */
		if (sink_close(&out) == 0) {
			/* a quarter of the merge memory, at most MERGE_SINK_MAX: the
			 * writer starts as soon as one buffer is full, and writing
			 * (one thread per file) is the stage to keep busy */
			size_t m2 = merge_memory(&c) / 4;
			rc = sink_open(&out, c.s, &c.out.f, NULL, o->unique, m2 < MERGE_SINK_MAX ? m2 : MERGE_SINK_MAX);
			if (rc) {
				fail(&c, "cannot start the writer: %s", strerror(-rc));
			} else {
				if (o->verify) {
					out.vsum = &c.vout;
					out.vord = &c.vord;
				}
				merge_all(&c, &out);
			}
		}
	}
	double w0 = util_now();
	int wrc = sink_close(&out);
	c.st.write_s += out.w.busy ? out.w.busy : util_now() - w0;
	c.st.records_out = out.records;
	if (wrc && r->status != 2)
		fail(&c, "write error on '%s': %s", o->output ? o->output : "standard output", strerror(-wrc));
	if (r->status == 2)
		goto done;
	if (o->verify) {
		if (c.vord.bad) {
			fail(&c, "verify: FAILED: output record %" PRIu64 " is out of order%s", c.vord.bad,
			     o->merge_only ? " (is every -m input sorted?)" : "");
			goto done;
		}
		if (!o->unique && !o->merge_only &&
		    (c.vin.lo != c.vout.lo || c.vin.hi != c.vout.hi || c.vin.n != c.vout.n)) {
			fail(&c, "verify: FAILED: the output's records differ from the input's "
			     "(%" PRIu64 " in, %" PRIu64 " out)", c.vin.n, c.vout.n);
			goto done;
		}
	}
	if (c.out_open) {
		int crc = io_output_commit(&c.out);
		c.out_open = 0;
		if (crc) {
			fail(&c, "cannot write '%s': %s", o->output, strerror(-crc));
			goto done;
		}
	}
	if (o->verify) {
		const char *ms = o->unique ? "multiset not compared (-u drops records)"
			       : o->merge_only ? "multiset not compared (-m)" : "multiset ok";
		snprintf(r->notice + strlen(r->notice), sizeof r->notice - strlen(r->notice),
			 "%sverify: %" PRIu64 " records, order ok, %s (xxh3-128 sum %016" PRIx64 "%016" PRIx64 ")",
			 r->notice[0] ? "\n" : "", c.vord.seen, ms, c.vout.hi, c.vout.lo);
	}
	if (o->stats)
		print_stats(&c, util_now() - c.st.t0);
done:
	if (c.out_open)
		io_output_abort(&c.out);
	engine_prewarm_wait(); /* never exit while CUDA starts on another thread */
	teardown(&c);
}

void job_check(const job_opts *o, job_result *r)
{
	struct ctx c;
	memset(r, 0, sizeof *r);
	if (setup(&c, o, r) || open_inputs(&c, 1))
		goto done;
	io_ring ring;
	io_ring_init(&ring);
	size_t R = c.R, n = (8u << 20) / R + 1;
	uint8_t *buf = util_alloc_aligned(n * R + IO_ALIGN, IO_ALIGN), *prev = malloc(R);
	int strict = o->unique, have = 0;
	uint64_t recno = 0;
	if (!buf || !prev) {
		fail(&c, "out of memory");
	} else {
		for (;;) {
			io_file *f = &c.in[0];
			ssize_t got = io_read_next(&ring, f, buf, n * R, n * R + IO_ALIGN);
			if (got < 0) {
				fail(&c, "%s: read error: %s", f->name, strerror((int)-got));
				break;
			}
			c.in_bytes[0] += (uint64_t)got;
			if (f->eof && c.in_bytes[0] % R) {
				fail_size(&c, f->name, c.in_bytes[0]);
				break;
			}
			size_t m = (size_t)got / R;
			for (size_t i = 0; i < m; i++) {
				const uint8_t *cur = buf + i * R, *p = i ? cur - R : (have ? prev : NULL);
				recno++;
				if (p) {
					int cmp = keys_compare(c.s, p, cur);
					if (cmp > 0 || (strict && cmp == 0)) {
						r->status = 1;
						snprintf(r->msg, sizeof r->msg, "%s: record %" PRIu64 ": disorder",
							 f->name, recno);
						goto out;
					}
				}
			}
			if (m) {
				memcpy(prev, buf + (m - 1) * R, R);
				have = 1;
			}
			if (f->eof)
				break;
		}
	}
out:
	free(buf);
	free(prev);
	io_ring_exit(&ring);
done:
	teardown(&c);
}
