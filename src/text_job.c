/* text_job.c - a sort, merge or check of text lines (text_job.h). */
#define _GNU_SOURCE
#include "text_job.h"
#include "job.h"
#include "quote.h"
#include "engine.h"
#include "progress.h"
#include "text_check.h"
#include "text_cmp.h"
#include "text_concat.h"
#include "text_gather.h"
#include "text_groups.h"
#include "text_io.h"
#include "text_load.h"
#include "text_merge.h"
#include "text_order.h"
#include "text_sort.h"
#include "tpool.h"
#include "util.h"
#include "../io/io.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEXT_FANIN 16                    /* runs merged at once without --batch-size (sort(1)'s too) */
#define TEXT_NAMED_ROOM 64 /* fewer free descriptors than this: runs are named files, closed between passes */
#define TEXT_MIN_BUDGET ((size_t)16 << 10) /* -S 1K still sorts, in many small runs, as sort(1) does */

/* A sorted sequence the merge reads: an input file (-m) or a spilled run. */
typedef struct item {
	const char *path; /* an input, or NULL for a run */
	int fd;           /* a run's descriptor; -1 while a named run is closed */
	uint64_t hash;    /* a run's XXH3 */
	char *tmp;        /* a named run's path (descriptors short), or NULL: an unlinked file */
	int slot;         /* tmp's registration for removal on signals, or -1 */
	char *spill;      /* an unlinked run's path when it was created, for messages, or NULL */
	int64_t bytes;    /* its lines' bytes (--progress's totals); < 0: not known (a pipe) */
	uint64_t lines;   /* a run's lines */
} item;

typedef struct tjob {
	const job_opts *o;
	const text_spec *s;
	text_result *res;
	item *items;
	int n, cap;
	int next_tmp;
	engine eng;
	job_opts eng_opts; /* the engine's options (it keeps a pointer to their key layout) */
	int eng_open;
	text_sorter sorter;
	tpool *pool;      /* the job's threads (--parallel), or NULL: one */
	io_filter z;      /* --compress-program: the compressor of the run being written */
	io_output out;
	int out_open;
	const char *out_name;
	uint64_t merge_mem; /* the bytes of -S a merge may take (what the chunk kept in memory leaves) */
	int fd_room;      /* descriptors free at the start (fd_room) */
	int named;        /* runs are named files, closed between passes: descriptors are short */
	progress prog_store;
	progress *prog;   /* --progress, or NULL */
	int pass, passes; /* --progress: the merge passes reported so far, and in all */
	uint64_t merged;  /* -m: the bytes merged (--progress's done line) */
	int gnu_groups;   /* -m of inputs not all known to be in order: passes grouped as sort(1)'s (text_group_size_gnu) */
} tjob;

static int fail(tjob *t, const char *fmt, ...)
{
	if (t->res->r.status)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->res->r.msg, sizeof t->res->r.msg, fmt, ap);
	va_end(ap);
	t->res->r.status = 2;
	return -1;
}

/*
 * Descriptors this process may still open: RLIMIT_NOFILE less those open
 * (counted when the limit is small; a large limit is room enough).
 */
static int fd_room(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 4096)
		return 4096;
	int used = 0;
	for (int fd = 0; fd < (int)rl.rlim_cur; fd++)
		used += fcntl(fd, F_GETFD) != -1;
	return (int)rl.rlim_cur - used;
}

/* Runs merged at once: --batch-size (or 16), fewer when descriptors are
 * short (as sort(1) does under a low `ulimit -n`), never fewer than 2. */
static int fanin(const tjob *t)
{
	int f = t->o->batch_size ? t->o->batch_size : TEXT_FANIN;
	int room = t->fd_room - 1; /* the output, or the run being written */
	return room < f ? (room < 2 ? 2 : room) : f;
}

static int push(tjob *t, item it)
{
	if (t->n == t->cap) {
		int cap = t->cap ? t->cap * 2 : 64;
		item *ni = realloc(t->items, (size_t)cap * sizeof *ni);
		if (!ni)
			return fail(t, "out of memory");
		t->items = ni;
		t->cap = cap;
	}
	t->items[t->n++] = it;
	return 0;
}

static const text_spec *uniq(const tjob *t)
{
	return t->s->unique ? t->s : NULL;
}

/* A run's path for messages: the -T directory's file it was made as. */
static const char *run_name(const item *it)
{
	return it->tmp ? it->tmp : it->spill ? it->spill : "a temporary file";
}

/* Close and remove the runs among its[0, n) (inputs are left alone). */
static void drop_items(item *its, int n)
{
	for (int i = 0; i < n; i++) {
		if (its[i].path)
			continue;
		if (its[i].fd >= 0)
			close(its[i].fd);
		its[i].fd = -1;
		if (its[i].tmp) {
			unlink(its[i].tmp);
			io_tmp_unregister(its[i].slot);
			free(its[i].tmp);
			its[i].tmp = NULL;
		}
		free(its[i].spill);
		its[i].spill = NULL;
	}
}

/*
 * A new spill file into *it and a hashing writer on it (through
 * --compress-program's compressor, t->z, when given). The file is
 * unlinked at once, so that nothing outlives the process, unless
 * descriptors are short (t->named): then it is a named file in the -T
 * directory, closed once written and removed when merged. 0, or -1 (t->res
 * filled, nothing left behind).
 */
static int new_run(tjob *t, text_writer *w, item *it)
{
	const char *dir = t->o->tmpdirs[t->next_tmp++ % t->o->ntmp];
	*it = (item){ NULL, -1, 0, NULL, -1, NULL, 0, 0 };
	int rc;
	if (t->named) {
		size_t len = strlen(dir) + 32;
		if (!(it->tmp = malloc(len)))
			return fail(t, "out of memory");
		snprintf(it->tmp, len, "%s/" IO_RUN_TAG "%d.XXXXXX", dir, (int)getpid());
		if ((it->fd = io_tmp_mkstemp(it->tmp, O_CLOEXEC, &it->slot)) < 0) {
			rc = -it->fd;
			it->fd = -1;
			free(it->tmp);
			it->tmp = NULL;
			return fail(t, "cannot create temporary file in '%s': %s", dir, strerror(rc));
		}
	} else {
		io_file f;
		if ((rc = io_open_spill(&f, dir)))
			return fail(t, "cannot create temporary file in '%s': %s", dir, strerror(-rc));
		if (f.dfd >= 0)
			close(f.dfd);
		it->fd = f.fd;
		it->spill = strdup(f.name); /* NULL (no memory): messages say "a spilled run" */
	}
	int wfd = it->fd;
	if (t->o->compress) {
		if ((rc = io_filter_start(&t->z, t->o->compress, NULL, it->fd, 1, "a spilled run"))) {
			drop_items(it, 1);
			return fail(t, "couldn't execute compress program '%s': %s", t->o->compress, strerror(-rc));
		}
		wfd = t->z.f.fd;
	}
	if (text_writer_open(w, wfd, (size_t)1 << 20, t->s->eol, uniq(t), 1)) {
		io_filter_kill(&t->z);
		drop_items(it, 1);
		return fail(t, "out of memory");
	}
	return 0;
}

/* The compressor of the run just written has ended well: 0, or -1 (t->res filled). */
static int end_compressor(tjob *t)
{
	if (!t->o->compress)
		return 0;
	char how[128];
	int st = io_filter_finish(&t->z, NULL);
	if (st < 0)
		return fail(t, "%s: %s", t->o->compress, strerror(-st));
	if (st > 0)
		return fail(t, "%s %s", t->o->compress, io_filter_how(st, how, sizeof how));
	return 0;
}

/* Finish writer w of the run *it (its hash recorded; a named run closed).
 * 0, or -1 with the run dropped. */
static int end_run(tjob *t, text_writer *w, item *it)
{
	int rc = text_writer_flush(w, &it->hash);
	it->bytes = (int64_t)w->bytes;
	it->lines = w->lines;
	text_writer_close(w);
	if (rc) { /* named before it is dropped: dropping frees the name */
		io_filter_kill(&t->z);
		fail(t, "write failed: %s: %s", quote_name(run_name(it)), strerror(-rc));
		drop_items(it, 1);
		return -1;
	}
	if (end_compressor(t)) {
		drop_items(it, 1);
		return -1;
	}
	if (it->tmp && close(it->fd)) {
		it->fd = -1;
		fail(t, "write failed: %s: %s", quote_name(it->tmp), strerror(errno));
		drop_items(it, 1);
		return -1;
	}
	if (it->tmp)
		it->fd = -1;
	t->res->runs++;
	return 0;
}

/*
 * Write the sorted chunk c (t->sorter.order) to w; errors name `name`. A
 * run of its own file (not through --compress-program's pipe) is copied
 * by every thread into the file's mapping, as the last chunk's output is
 * (sort_write_chunk), its hash then taken over what they wrote: one
 * thread's write(2) into the page cache was a third of a spilled sort.
 */
static int write_chunk(tjob *t, const text_chunk *c, text_writer *w, const char *name)
{
	const text_sorter *so = &t->sorter;
	uint64_t bytes = c->n ? (uint64_t)(c->start[c->n] - c->start[0]) : 0, before = w->bytes;
	io_outmap m;
	int rc;
	if (t->pool && !t->o->compress && w->xxh && !w->len && !w->debug && bytes && !t->o->knobs.no_outmap &&
	    io_outmap_open(&m, w->fd, bytes) == 0) {
		text_gather *g;
		if (!(rc = text_gather_begin_mapped(&g, c, w, t->pool, m.base, m.bytes))) {
			text_gather_prefixes(g, so->order, so->sorted, so->srs, so->sw);
			rc = text_gather_lines(g, so->order, c->n);
		}
		rc = text_gather_end(g, rc);
		if (!rc)
			text_writer_hash(w, m.base, (size_t)(w->bytes - before));
		int urc = io_outmap_close(&m, w->bytes - before);
		rc = rc ? rc : urc;
	} else {
		rc = text_gather_write(c, so->order, so->sorted, so->srs, so->sw, w, t->pool);
	}
	return rc ? fail(t, "write failed: %s: %s", quote_name(name), strerror(-rc)) : 0;
}

/* The streamed write's hand-over: a sorted part's lines queued for the writer. */
typedef struct stream {
	text_gather *g;
	int rc;
	const text_sorter *so;
} stream;

static int write_part(void *arg, const uint32_t *order, size_t lo, size_t hi)
{
	stream *st = arg;
	if (!lo) /* the sorter's records are there once its first part is */
		text_gather_prefixes(st->g, order, st->so->sorted, st->so->srs, st->so->sw);
	st->rc = text_gather_lines(st->g, order + lo, hi - lo);
	return st->rc;
}

/*
 * Sort the last chunk c and write it to w. Into a regular file, the lines
 * are copied by every thread straight into the mapped output once the
 * chunk is sorted (io_outmap: writes to one file do not scale with threads,
 * copies into its mapping do). Else (a pipe, an appending output) one
 * thread writes while the rest sort: the chunk's parts are gathered as the
 * sort hands them over (text_gather, -u and --verify included), so that the
 * write, then the longest stage, starts with the first part.
 */
static int sort_write_chunk(tjob *t, const text_chunk *c, text_writer *w, const char *name)
{
	stream st = { NULL, 0, &t->sorter };
	double t0 = util_now(), busy = t->sorter.sort_s + t->sorter.ties_s;
	uint64_t bytes = (uint64_t)(c->start[c->n] - c->start[0]), before = w->bytes;
	io_outmap m;
	int got;
	if (!w->len && !w->debug && !t->o->knobs.no_outmap && io_outmap_open(&m, w->fd, bytes) == 0) {
		t->res->mapped_out = 1;
		got = text_sort_chunk(&t->sorter, c);
		if (!got && !(st.rc = text_gather_begin_mapped(&st.g, c, w, t->pool, m.base, m.bytes))) {
			text_gather_prefixes(st.g, t->sorter.order, t->sorter.sorted, t->sorter.srs, t->sorter.sw);
			st.rc = text_gather_lines(st.g, t->sorter.order, c->n);
		}
	} else {
		m.map = NULL;
		/* what -S leaves beside the chunk holds the lines sorted ahead of the writer */
		uint64_t cost = bytes + (uint64_t)c->n * TEXT_LINE_COST;
		size_t room = t->o->mem > cost ? (size_t)(t->o->mem - cost) : 0;
		/* the output's blocks at once: the writer thread is the longest stage */
		(void)io_reserve(w->fd, bytes + w->len);
		st.rc = text_gather_begin(&st.g, c, w, t->pool, room);
		got = st.rc ? 0 : text_sort_chunk_parts(&t->sorter, c, write_part, &st);
	}
	int rc = text_gather_end(st.g, st.rc ? st.rc : got < 0 ? -1 : 0);
	int urc = io_outmap_close(&m, w->bytes - before);
	if (!rc)
		rc = urc;
	t->res->write_s += util_now() - t0 - (t->sorter.sort_s + t->sorter.ties_s - busy);
	if (got < 0)
		return fail(t, "%s", t->sorter.err);
	return rc ? fail(t, "write failed: %s: %s", quote_name(name), strerror(-rc)) : 0;
}

static int spill_chunk(tjob *t, const text_chunk *c)
{
	text_writer w;
	item it;
	double t0 = util_now();
	if (new_run(t, &w, &it))
		return -1;
	int rc = write_chunk(t, c, &w, run_name(&it));
	t->res->write_s += util_now() - t0;
	if (rc) {
		text_writer_close(&w);
		io_filter_kill(&t->z);
		drop_items(&it, 1);
		return -1;
	}
	if (end_run(t, &w, &it))
		return -1;
	if (push(t, it)) {
		drop_items(&it, 1);
		return -1;
	}
	return 0;
}

/* The bytes of items its[0, k), or -1 when one is not known. */
static int64_t items_bytes(const item *its, int k)
{
	int64_t b = 0;
	for (int i = 0; i < k; i++) {
		if (its[i].bytes < 0)
			return -1;
		b += its[i].bytes;
	}
	return b;
}

/* Whether run *it is read through its mapping (text_reader_map): an
 * unlinked run (no one else can cut it short) of our own bytes. */
static int run_mapped(const tjob *t, const item *it)
{
	return !it->path && !it->tmp && !t->o->compress && it->bytes > 0 && !t->o->knobs.no_outmap;
}

/*
 * Open item it for the merge into reader r (d: its decompressor under
 * --compress-program), reading `block` bytes at a time: an input file
 * through a mapping where it maps (not out_fd's file), a run through its
 * file's mapping where run_mapped allows, else read. *stdin_taken counts
 * standard input's readers. Returns 0, or -1 after fail.
 */
static int open_source(tjob *t, const item *it, text_reader *r, io_filter *d, size_t block, int out_fd,
		       int *stdin_taken)
{
	int e;
	if (it->path) {
		e = text_reader_open(r, it->path, t->s->eol, block);
		/* standard input named again: already read through the first
		 * one, so empty (as sort(1) has it); two readers of one
		 * descriptor would each take pieces of the other's lines */
		if (!e && !strcmp(it->path, "-"))
			r->eof = (*stdin_taken)++ > 0;
		/* a regular file read through a mapping, as a run is: no
		 * copies, and its blocks found on every free thread */
		if (!e && strcmp(it->path, "-"))
			(void)text_reader_map_input(r, out_fd); /* else: read */
	} else {
		/* a named run is opened now, and closed with its reader (or once its decompressor has it) */
		int fd = !it->tmp ? it->fd : io_fault_sys(IO_FAULT_OPEN) ? -1 : open(it->tmp, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(t, "cannot read: %s: %s", quote_name(it->tmp), strerror(errno));
		if (t->o->compress) {
			e = io_filter_start(d, t->o->compress, "-d", fd, 0, "a spilled run");
			if (it->tmp)
				close(fd);
			if (e)
				return fail(t, "couldn't execute compress program '%s -d': %s", t->o->compress, strerror(-e));
			e = text_reader_open_run(r, d->f.fd, 0, it->hash, t->s->eol, block);
		} else {
			e = text_reader_open_run(r, fd, 1, it->hash, t->s->eol, block);
			if (it->tmp && e)
				close(fd);
			r->own = it->tmp != NULL;
			/* no copies, the lines left in place */
			if (!e && run_mapped(t, it))
				(void)text_reader_map(r, (uint64_t)it->bytes); /* else: pread */
		}
	}
	if (e)
		return fail(t, "cannot read: %s: %s", quote_name(it->path ? it->path : run_name(it)), strerror(-e));
	if (!it->path && (it->tmp || it->spill)) /* a corrupt run is named in the error */
		snprintf(r->name, sizeof r->name, "temporary file %s", run_name(it));
	return 0;
}

/*
 * The ns opened sources src (rd: the k items' readers) into w: copied
 * whole, one after another, when none overlaps the next (text_concat),
 * else merged on `helpers` threads reading `block` bytes ahead
 * (text_merge); into out[0, out_bytes) when the output is mapped (NULL:
 * through w). Returns 0, or -1 after fail.
 */
static int merge_sources(tjob *t, text_source *src, int ns, const text_reader *rd, const item *its, int k,
			 const text_chunk *mem, text_writer *w, const char *name, uint8_t *out, size_t out_bytes,
			 int helpers, size_t block, text_merge_stats *ms)
{
	char err[4400];
	int rc = -1;
	/* sources that do not overlap (an input in order) are copied whole */
	int *order = !w->unique && !w->verify && !w->debug && ns > 1 ? malloc((size_t)ns * sizeof *order) : NULL;
	uint64_t *lines = order ? malloc((size_t)ns * sizeof *lines) : NULL;
	int concat = lines && text_concat_order(t->s, src, ns, order);
	/* -m's inputs copied whole only when each is in order, but for the
	 * last: sort(1) puts out its lines as they are once the others are done */
	for (int i = 0; i + 1 < ns && concat; i++)
		concat = !src[order[i]].unordered ||
			 text_order_sorted(t->s, rd[order[i]].map, rd[order[i]].mapsize, t->pool);
	if (concat) {
		for (int i = 0; i < k; i++)
			lines[i] = its[i].lines;
		if (mem)
			lines[k] = mem->n;
		if (text_concat(src, ns, order, lines, w, name, out, out_bytes, t->pool, err, sizeof err))
			fail(t, "%s", err);
		else
			rc = 0;
		t->res->merge_concat++;
	} else if (text_merge(t->s, src, ns, w, name, ms, out, out_bytes, t->pool, helpers, block, err, sizeof err)) {
		fail(t, "%s", err);
	} else {
		rc = 0;
	}
	free(order);
	free(lines);
	return rc;
}

/* After a merge of the k items: an input mapped while merged must not
 * have changed (its lines are not what it holds), and -m's inputs count
 * their lines and bytes read; the merge's figures are added to the job's.
 * Returns 0, or -1 after fail. */
static int merge_account(tjob *t, const text_reader *rd, const item *its, int k, const text_merge_stats *ms)
{
	for (int i = 0; i < k; i++) {
		int ch = its[i].path ? text_reader_unchanged(&rd[i]) : 0;
		if (ch < 0)
			return fail(t, "cannot read: %s: %s", quote_name(its[i].path), strerror(-ch));
		if (ch)
			return fail(t, "%s: the file changed while it was read (its size or modification time): nothing written",
				    quote_name(its[i].path));
	}
	for (int i = 0; i < k; i++)
		if (its[i].path) {
			t->res->lines += rd[i].lines;
			t->res->bytes += rd[i].map ? rd[i].in_size : rd[i].off;
		}
	t->res->ties += ms->ties;
	t->res->merge_wait_s += ms->wait_s;
	t->res->merge_cut_s += ms->cut_s;
	t->res->merge_slice_s += ms->slice_s;
	t->res->merge_out_wait_s += ms->out_wait_s;
	t->res->merge_read_s += ms->read_s;
	t->res->merge_shared += ms->shared;
	t->res->merge_rounds += ms->rounds;
	return 0;
}

/*
 * Merge items its[0, k) and, when mem is not NULL, the sorted
 * chunk mem after them, into w, in t->merge_mem bytes (text_merge_block).
 */
static int merge_into(tjob *t, const item *its, int k, const text_chunk *mem, text_writer *w, const char *name)
{
	int ns = k + (mem != NULL);
	text_source *src = calloc((size_t)(ns ? ns : 1), sizeof *src);
	text_reader *rd = calloc((size_t)(k ? k : 1), sizeof *rd);
	io_filter *dz = calloc((size_t)(k ? k : 1), sizeof *dz); /* --compress-program's decompressors */
	int rc = -1, opened = 0;
	/* the job's other threads read the sources ahead; the pool's merge them */
	int helpers = t->o->knobs.text_helpers > 0 ? t->o->knobs.text_helpers : t->sorter.threads - 1;
	/* into the output file, when it is regular and its size known (runs of
	 * ours, and input files read through their mappings, whose size is
	 * checked after the merge), the pool's threads copy the lines
	 * straight into its mapping (sort_write_chunk says why); decided once
	 * the inputs are open */
	io_outmap m = { 0 };
	uint64_t before = w->bytes;
	int64_t bytes = items_bytes(its, k);
	if (bytes >= 0 && mem)
		bytes += (int64_t)(mem->start[mem->n] - mem->start[0]);
	int mapped = name == t->out_name && t->pool && helpers > 0 && ns > 1 && bytes > 0 && !w->unique &&
		     !w->verify && !w->debug && !w->len && !t->o->knobs.no_outmap;
	for (int i = 0; i < k; i++)
		if (its[i].path && (!strcmp(its[i].path, "-") || its[i].bytes <= 0))
			mapped = 0; /* standard input, an empty file or not a regular one: not mapped */
	/* the blocks read ahead (and each copying reader's buffer) sized to the memory -S leaves */
	int nstable = mem != NULL;
	for (int i = 0; i < k; i++)
		nstable += run_mapped(t, &its[i]);
	size_t block = t->o->knobs.text_block > 0 ? (size_t)t->o->knobs.text_block
						  : text_merge_block(t->merge_mem, ns - nstable, nstable, !mapped);
	if (!src || !rd || !dz) {
		fail(t, "out of memory");
		goto out;
	}
	int stdin_taken = 0;
	for (; opened < k; opened++) {
		if (open_source(t, &its[opened], &rd[opened], &dz[opened], block, w->fd, &stdin_taken))
			goto out;
		src[opened].r = &rd[opened];
		src[opened].unordered = t->o->merge_only; /* -m's inputs, and runs merged from them */
	}
	if (mem) {
		src[k].c = mem;
		src[k].order = t->sorter.order;
	}
	for (int i = 0; i < k && mapped; i++) {
		if (!its[i].path)
			continue;
		if (rd[i].map) /* an input's bytes as mapped, a delimiter added */
			bytes += (int64_t)rd[i].mapsize - its[i].bytes;
		else
			mapped = 0; /* read, not mapped: its size may change unseen */
	}
	mapped = mapped && io_outmap_open(&m, w->fd, (uint64_t)bytes) == 0;
	if (mapped)
		t->res->mapped_out = 1;
	double t0 = util_now();
	text_merge_stats ms = { 0 };
	rc = merge_sources(t, src, ns, rd, its, k, mem, w, name, mapped ? m.base : NULL, mapped ? m.bytes : 0, helpers,
			   block, &ms);
	if (!rc)
		rc = merge_account(t, rd, its, k, &ms);
	if (mapped) {
		int urc = io_outmap_close(&m, w->bytes - before);
		if (urc && !rc)
			rc = fail(t, "write failed: %s: %s", quote_name(name), strerror(-urc));
	}
	t->res->merge_s += util_now() - t0;
out:
	if (mapped) /* a reader that failed to open: nothing written */
		(void)io_outmap_close(&m, w->bytes - before);
	for (int i = 0; i < opened; i++)
		text_reader_close(&rd[i]);
	for (int i = 0; dz && i < k; i++) {
		char how[128];
		int st = rc ? (io_filter_kill(&dz[i]), 0) : io_filter_finish(&dz[i], NULL);
		if (st && !rc)
			rc = st < 0 ? fail(t, "%s -d: %s", t->o->compress, strerror(-st))
				    : fail(t, "%s -d %s", t->o->compress, io_filter_how(st, how, sizeof how));
	}
	free(dz);
	free(rd);
	free(src);
	return rc;
}

/* Item i's group in a pass over n items, excess of them over the fan-in F. */
static int pass_group(const tjob *t, int F, int excess, int n, int i)
{
	return t->gnu_groups ? text_group_size_gnu(F, n, i) : text_group_size(F, excess, n, i);
}

/* The passes reduce(t, reserve) would make of n items: --progress's "of M". */
static int reduce_passes(const tjob *t, int n, int reserve)
{
	int F = fanin(t), p = 0;
	while (n + reserve > F) {
		int excess = n + reserve - F, out = 0;
		for (int i = 0; i < n; i += pass_group(t, F, excess, n, i))
			out++;
		n = out;
		p++;
	}
	return p;
}

/* --progress: a merge pass of `total` bytes begins (the last, into the
 * output, when t->pass reaches t->passes). */
static void merge_phase(tjob *t, int64_t total)
{
	if (!t->prog)
		return;
	t->pass++;
	progress_phase(t->prog, PROGRESS_MERGE, t->pass, t->passes > t->pass ? t->passes : t->pass, total);
}


/*
 * Merge passes until at most fanin - reserve items are left (reserve: a
 * source that joins the last merge): groups of consecutive items become
 * one run each, in place, so input order is kept; when merging the first
 * few is enough (17 runs, 16 at once: the first 2, or 3 with a reserve),
 * only those are merged, as sort(1) does, not every run once more.
 * report: --progress shows each pass (not for the passes that free
 * descriptors while the input is still read).
 */
static int reduce(tjob *t, int reserve, int report)
{
	int F = fanin(t);
	while (t->n + reserve > F) {
		int excess = t->n + reserve - F, out = 0;
		if (report) {
			int64_t total = 0; /* the groups merged, not the runs only moved */
			for (int i = 0, k; i < t->n && total >= 0; i += k)
				if ((k = pass_group(t, F, excess, t->n, i)) > 1) {
					int64_t b = items_bytes(t->items + i, k);
					total = b < 0 ? -1 : total + b;
				}
			merge_phase(t, total);
		}
		for (int i = 0, k; i < t->n; i += k) {
			k = pass_group(t, F, excess, t->n, i);
			item merged = t->items[i];
			if (k > 1) {
				text_writer w;
				if (new_run(t, &w, &merged))
					return -1;
				if (report)
					w.prog = t->prog;
				if (merge_into(t, t->items + i, k, NULL, &w, run_name(&merged))) {
					text_writer_close(&w);
					io_filter_kill(&t->z);
					drop_items(&merged, 1);
					return -1;
				}
				drop_items(t->items + i, k);
				if (end_run(t, &w, &merged))
					return -1;
			}
			/* moved to items[out] */
			t->items[i].fd = -1;
			t->items[i].tmp = NULL;
			t->items[i].spill = NULL;
			t->items[out++] = merged;
		}
		t->n = out;
		t->res->merge_passes++;
	}
	return 0;
}

static int open_output(tjob *t, text_writer *w)
{
	int rc = io_output_open(&t->out, t->o->output);
	if (rc)
		return fail(t, "open failed: %s: %s", quote_name(t->o->output), strerror(-rc));
	t->out_open = 1;
	t->out.sync = t->o->sync;
	if (text_writer_open(w, t->out.f.fd, (size_t)1 << 20, t->s->eol, uniq(t), 0))
		return fail(t, "out of memory");
	if (t->o->verify)
		w->verify = t->s;
	if (t->o->debug)
		w->debug = t->s; /* not mapped: each line is rewritten */
	return 0;
}

/* --verify's verdict on the written output: 0, or -1 (the output is not committed). */
static int verify_output(tjob *t, const text_writer *w)
{
	const job_opts *o = t->o;
	text_result *res = t->res;
	if (w->vbad)
		return fail(t, "verify: FAILED: output line %" PRIu64 " is out of order%s", w->vbad,
			    o->merge_only ? " (is every -m input sorted?)" : "");
	int multiset = !t->s->unique && !o->merge_only;
	if (multiset && (w->lines != res->lines || w->vsum != t->sorter.vsum))
		return fail(t, "verify: FAILED: the output's lines differ from the input's (%" PRIu64 " in, %" PRIu64 " out)",
			    res->lines, w->lines);
	snprintf(res->r.notice, sizeof res->r.notice, "verify: %" PRIu64 " lines, order ok, %s (xxh3 sum %016" PRIx64 ")",
		 w->lines, t->s->unique ? "multiset not compared (-u drops lines)"
			   : o->merge_only ? "multiset not compared (-m)" : "multiset ok", w->vsum);
	return 0;
}

static int commit_output(tjob *t, text_writer *w)
{
	if (t->o->verify && verify_output(t, w)) {
		text_writer_close(w);
		return -1;
	}
	int rc = text_writer_flush(w, NULL);
	t->out.f.pos += w->bytes; /* the commit cuts the file at pos */
	text_writer_close(w);
	if (rc)
		return fail(t, "write failed: %s: %s", quote_name(t->out_name), strerror(-rc));
	rc = io_output_commit(&t->out);
	t->out_open = 0;
	if (rc) {
		char msg[sizeof t->res->r.msg];
		job_commit_failed(&t->out, t->o->output, rc, msg, sizeof msg);
		return fail(t, "%s", msg);
	}
	return 0;
}

/*
 * The chunk sort's engine: the CPU's unless the GPU is asked for by name
 * (--algorithm=ENGINE or --device N). On the H100 machine the CPU engine
 * sorted every text workload faster than the GPU engine (10 GiB of CSV
 * lines: 17.6 s against 20.4 s; 1 GiB: 1.8-2.5 s against 2.2-3.2 s;
 * bench/results/h100-text-2026-11-25.md): the prefix sort is a small part
 * of the whole, and no faster on the device once its copies are counted.
 */
static int open_engine(tjob *t, size_t lines, int last)
{
	job_opts *eo = &t->eng_opts;
	*eo = *t->o;
	text_sort_layout(&eo->keys);
	eo->use_gpu = t->o->use_gpu && (t->o->algorithm == JOB_WHERE_GPU || t->o->device >= 0);
	char note[512] = "";
	/* records: a single chunk holds them all; else unknown (the fastest sorter) */
	if (engine_open(&t->eng, eo, 0, last ? lines : 0, note, sizeof note))
		return fail(t, "%s", t->eng.errmsg);
	t->eng_open = 1;
	t->sorter.eng = &t->eng;
	t->res->engine = t->eng.name;
	return 0;
}

/* A regular file's size ("-": standard input's, from its offset), or -1
 * (a pipe, or not there): --progress's totals. */
static int64_t input_bytes(const char *name)
{
	struct stat st;
	int std = !strcmp(name, "-");
	if (std ? fstat(STDIN_FILENO, &st) : stat(name, &st))
		return -1;
	if (!S_ISREG(st.st_mode))
		return -1;
	off_t at = std ? lseek(STDIN_FILENO, 0, SEEK_CUR) : 0;
	return at < 0 ? -1 : st.st_size > at ? (int64_t)(st.st_size - at) : 0;
}

/* All the inputs' bytes, or -1 when one is not known. */
static int64_t inputs_bytes(const job_opts *o)
{
	int64_t b = 0;
	for (int i = 0; i < o->ninputs; i++) {
		int64_t x = input_bytes(o->inputs[i]);
		if (x < 0)
			return -1;
		b += x;
	}
	return b;
}

/* The bytes of a budget that `held` bytes leave to a merge (0: none; text_merge_block's floor then). */
static uint64_t merge_room(size_t budget, size_t held)
{
	return budget > held ? budget - held : 0;
}

/* The only chunk (no runs): written as it is sorted. */
static int only_chunk(tjob *t, const text_chunk *c)
{
	text_writer w;
	if (open_output(t, &w))
		return -1;
	if (t->prog)
		progress_phase(t->prog, PROGRESS_WRITE, 0, 0, (int64_t)c->start[c->n]);
	if (sort_write_chunk(t, c, &w, t->out_name)) {
		text_writer_close(&w);
		return -1;
	}
	progress_add(t->prog, c->start[c->n]);
	double t1 = util_now();
	int rc = commit_output(t, &w);
	t->res->write_s += util_now() - t1;
	return rc;
}

/* The last chunk of several, sorted: merged from memory with the runs,
 * which have what `budget` leaves beside its lines and their order, or
 * straight out when the runs were all merged into one file before. */
static int last_chunk(tjob *t, text_loader *l, const text_chunk *c, size_t budget)
{
	text_writer w;
	text_sort_release(&t->sorter);
	text_load_trim(l);
	t->merge_mem = merge_room(budget, text_load_held(l) + text_sort_held(&t->sorter));
	t->passes = t->n ? reduce_passes(t, t->n, 1) + 1 : 0;
	if (reduce(t, 1, 1) || open_output(t, &w))
		return -1;
	double t1 = util_now();
	int64_t total = t->n ? items_bytes(t->items, t->n) : 0;
	if (t->n)
		merge_phase(t, total < 0 ? -1 : total + (int64_t)c->start[c->n]);
	else if (t->prog)
		progress_phase(t->prog, PROGRESS_WRITE, 0, 0, (int64_t)c->start[c->n]);
	w.prog = t->prog;
	if (t->n ? merge_into(t, t->items, t->n, c, &w, t->out_name) : write_chunk(t, c, &w, t->out_name)) {
		text_writer_close(&w);
		return -1;
	}
	if (!t->n && w.prog_done < c->start[c->n]) /* the gather path writes past the writer's lines */
		progress_add(t->prog, c->start[c->n] - w.prog_done);
	if (!t->n)
		t->res->write_s += util_now() - t1;
	t1 = util_now();
	int rc = commit_output(t, &w);
	t->res->write_s += util_now() - t1;
	return rc;
}

/* No lines left after the runs (or none at all): -S is the merge's. */
static int runs_only(tjob *t, text_loader *l, size_t budget)
{
	text_writer w;
	text_sort_release(&t->sorter);
	text_load_release(l);
	t->merge_mem = budget;
	t->passes = t->n ? reduce_passes(t, t->n, 0) + 1 : 0;
	if (reduce(t, 0, 1) || open_output(t, &w))
		return -1;
	if (t->n)
		merge_phase(t, items_bytes(t->items, t->n));
	w.prog = t->prog;
	if (t->n && merge_into(t, t->items, t->n, NULL, &w, t->out_name)) {
		text_writer_close(&w);
		return -1;
	}
	return commit_output(t, &w);
}

/*
 * A sort: chunks loaded within -S and sorted; every chunk but the last
 * spilled as a run (merged down early when the descriptors would run
 * out); the last one written as it is (the only chunk) or merged with the
 * runs. Returns 0, or -1 with t's error set.
 */
static int sort_job(tjob *t)
{
	const job_opts *o = t->o;
	size_t budget = o->mem > TEXT_MIN_BUDGET ? (size_t)o->mem : TEXT_MIN_BUDGET;
	text_loader l;
	int in_place = !o->output || !strcmp(o->output, "-");
	text_load_init(&l, o->inputs, o->ninputs, t->s->eol, budget, t->pool, in_place ? STDOUT_FILENO : -1);
	int rc = -1, last = 0;
	if (t->prog)
		progress_phase(t->prog, PROGRESS_SORT, 0, 0, inputs_bytes(o));
	for (;;) {
		text_chunk c;
		double t0 = util_now();
		uint64_t before = l.bytes;
		int got = text_load_chunk(&l, &c, &last);
		t->res->read_s += util_now() - t0;
		if (got < 0) {
			fail(t, "%s", l.err);
			goto out;
		}
		progress_add(t->prog, l.bytes - before);
		if (!got)
			break;
		t->res->chunks++;
		t->res->lines += c.n;
		if (!t->eng_open && open_engine(t, c.n, last))
			goto out;
		if (last && !t->n) {
			rc = only_chunk(t, &c);
			goto out;
		}
		if (text_sort_chunk(&t->sorter, &c)) {
			fail(t, "%s", t->sorter.err);
			goto out;
		}
		if (last) {
			rc = last_chunk(t, &l, &c, budget);
			goto out;
		}
		if (spill_chunk(t, &c))
			goto out;
		/* each unlinked run holds a descriptor: merge them down before they run out */
		if (!t->named && t->n >= t->fd_room / 2) {
			t->merge_mem = merge_room(budget, text_load_held(&l) + text_sort_held(&t->sorter));
			if (reduce(t, 1, 0))
				goto out;
		}
	}
	rc = runs_only(t, &l, budget);
out:
	t->res->bytes = l.bytes;
	text_load_free(&l);
	return rc;
}

/*
 * Whether -m's input `path` is known to be in order: a regular file whose
 * lines are (text_order_sorted). Standard input, a pipe, or one that
 * cannot be read now (its merge says why) is not known: 0.
 */
static int input_sorted(tjob *t, const char *path)
{
	const uint8_t *p;
	size_t size;
	if (!strcmp(path, "-") || io_map_regular(open(path, O_RDONLY | O_CLOEXEC), &p, &size))
		return 0;
	int ok = !size || text_order_sorted(t->s, p, size, t->pool);
	if (size)
		munmap((void *)p, size);
	return ok;
}

static int merge_job(tjob *t)
{
	const job_opts *o = t->o;
	for (int i = 0; i < o->ninputs; i++)
		if (push(t, (item){ o->inputs[i], -1, 0, NULL, -1, NULL, input_bytes(o->inputs[i]) }))
			return -1;
	/* more inputs than one merge takes: grouped as sort(1) groups them
	 * unless every one is in order (then gpusort's groups, fewer bytes);
	 * where the two groupings are one, nothing to check */
	int check = !text_groups_same(fanin(t), t->n);
	for (int i = 0; i < t->n && check && !t->gnu_groups; i++)
		t->gnu_groups = !input_sorted(t, t->items[i].path);
	text_writer w;
	t->passes = reduce_passes(t, t->n, 0) + 1;
	if (reduce(t, 0, 1) || open_output(t, &w))
		return -1;
	merge_phase(t, items_bytes(t->items, t->n));
	w.prog = t->prog;
	if (merge_into(t, t->items, t->n, NULL, &w, t->out_name)) {
		text_writer_close(&w);
		return -1;
	}
	t->merged = w.prog_done;
	return commit_output(t, &w);
}

void text_job_run(const job_opts *o, const text_spec *s, text_result *res)
{
	memset(res, 0, sizeof *res);
	res->engine = "cpu";
	tjob t;
	memset(&t, 0, sizeof t);
	t.o = o;
	t.s = s;
	t.res = res;
	t.out_name = o->output ? o->output : "standard output"; /* quote_name quotes it */
	t.sorter.s = s;
	/* a small input on one thread (--parallel's inputs are not looked at) */
	t.sorter.threads = opts_threads_for(o, o->threads_given ? -1 : inputs_bytes(o));
	t.sorter.verify = o->verify;
	if (t.sorter.threads > 1 && tpool_start(&t.pool, t.sorter.threads))
		t.pool = NULL; /* no threads to be had: the job runs on this one */
	t.fd_room = fd_room();
	t.named = t.fd_room < TEXT_NAMED_ROOM;
	t.merge_mem = o->mem;
	if (o->progress && !o->check) {
		progress_start(&t.prog_store, stderr, o->progress_tty, o->progress_interval);
		t.prog = &t.prog_store;
	}
	double t0 = util_now();
	int rc = 0;
	if (o->check)
		text_check_run(s, o->inputs[0], o->knobs.check_block > 0 ? (size_t)o->knobs.check_block : 0, t.pool, res);
	else if (o->merge_only)
		rc = merge_job(&t);
	else
		rc = sort_job(&t);
	/* the job's bytes: the lines read (a merge's, those it merged) */
	progress_end(t.prog, rc == 0, res->bytes ? res->bytes : t.merged);
	if (t.out_open)
		io_output_abort(&t.out);
	drop_items(t.items, t.n);
	free(t.items);
	text_sort_free(&t.sorter);
	tpool_stop(t.pool);
	res->ties += t.sorter.ties;
	res->sort_s = t.sorter.sort_s;
	res->prefix_s = t.sorter.prefix_s;
	res->prefix_width = t.sorter.width;
	res->ties_s = t.sorter.ties_s;
	if (t.eng_open && t.eng.gpu_lost_why[0]) {
		/* the chunks from the failure on were sorted on the CPU
		 * (engine_gpu_lost): said as the records' job says it */
		res->engine = "cpu (the GPU failed)";
		size_t at = strlen(res->r.notice);
		if (rc == 0 && res->r.status == 0)
			snprintf(res->r.notice + at, sizeof res->r.notice - at,
				 "%swarning: the GPU failed, the CPU engine finished the sort: %s", at ? "\n" : "",
				 t.eng.gpu_lost_why);
	}
	if (t.eng_open)
		engine_close(&t.eng);
	res->total_s = util_now() - t0;
}
