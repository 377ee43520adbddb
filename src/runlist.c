/* runlist.c - see runlist.h. */
#include "runlist.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

const char *runlist_tmpdir(const job_ctx *c, int dir)
{
	return c->o->tmpdirs[dir];
}

/*
 * The failure of filter z, run as --compress-program 'PROG' with argument
 * arg ("" or " -d") on temp file `name`: st is io_filter_finish's or
 * io_filter_start's error (> 0 a wait status, < 0 -errno).
 */
static void filter_failed(job_ctx *c, int st, const char *arg, const char *name)
{
	char how[96];
	if (st > 0)
		job_fail(c, "--compress-program '%s%s' %s (temporary file '%s')", c->o->compress, arg,
			 io_filter_how(st, how, sizeof how), name);
	else
		job_fail(c, "cannot run --compress-program '%s%s': %s", c->o->compress, arg, strerror(-st));
}

void runlist_write_failed(job_ctx *c, io_file *f, int rc)
{
	if (f->filter) {
		/* most likely the compressor died (-EPIPE): its status says why */
		io_filter *z = (io_filter *)f;
		int st = io_filter_finish(z, NULL);
		if (st) {
			filter_failed(c, st, "", f->name);
			return;
		}
	}
	for (int i = 0; i < c->o->ntmp; i++)
		if (f == &c->spill[i]) {
			job_fail(c, "cannot write a temporary file in '%s': %s", runlist_tmpdir(c, i), strerror(-rc));
			return;
		}
	job_fail(c, "cannot write a temporary file '%s': %s", f->name, strerror(-rc));
}

run *runlist_new(job_ctx *c)
{
	if (c->nruns == c->caprun) {
		int cap = c->caprun ? c->caprun * 2 : 64;
		run **n = realloc(c->runs, (size_t)cap * sizeof *n);
		if (!n) {
			job_fail(c, "out of memory");
			return NULL;
		}
		c->runs = n;
		c->caprun = cap;
	}
	run *r = calloc(1, sizeof *r);
	if (!r) {
		job_fail(c, "out of memory");
		return NULL;
	}
	c->runs[c->nruns++] = r;
	return r;
}

void runlist_free_run(job_ctx *c, run *r)
{
	if (!r)
		return;
	if (r->pinned)
		engine_unpin(&c->eng, r->mem);
	if (r->zfile) {
		io_filter_kill(&r->z); /* after a failure: its output is not wanted */
		io_close(r->zfile);
		free(r->zfile);
	}
	if (r->map)
		munmap(r->map, r->map_bytes);
	else
		free(r->mem);
	free(r->sample);
	run_hash_free(&r->hash);
	free(r);
}

void runlist_discard(job_ctx *c)
{
	for (int i = 0; i < c->nruns; i++)
		runlist_free_run(c, c->runs[i]);
	c->nruns = 0;
	memset(&c->vin, 0, sizeof c->vin);
	c->st.runs = c->st.spilled = c->st.pass_spilled = 0;
}

void runlist_spill_end(job_ctx *c, int dir, uint64_t end)
{
	c->spill_end[dir] = (end + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
}

/* Create a spill file in -T directory dir (io_open_spill); 0 or -1 (c->r filled). */
static int open_spill(job_ctx *c, io_file *f, int dir)
{
	int rc = io_open_spill(f, runlist_tmpdir(c, dir));
	if (rc) {
		f->fd = -1;
		job_fail(c, "cannot create temporary file in '%s': %s", runlist_tmpdir(c, dir), strerror(-rc));
		return -1;
	}
	return 0;
}

/*
 * --compress-program: r into a file of its own in directory dir, through
 * the compressor. A compressed run's length is only known once written,
 * and it is read back as a stream, never at an offset: so not in the
 * shared spill file. The file is unlinked at once, as every spill file.
 */
static int spill_compressed(job_ctx *c, run *r, int dir)
{
	if (!(r->zfile = malloc(sizeof *r->zfile))) {
		job_fail(c, "out of memory");
		return -1;
	}
	if (open_spill(c, r->zfile, dir)) {
		free(r->zfile);
		r->zfile = NULL;
		return -1;
	}
	int rc = io_filter_start(&r->z, c->o->compress, NULL, r->zfile->fd, 1, r->zfile->name);
	if (rc) {
		filter_failed(c, rc, "", r->zfile->name);
		return -1;
	}
	r->file = &r->z.f;
	r->spilled = 1;
	r->off = 0;
	return 0;
}

int runlist_spill_close(job_ctx *c, run *r)
{
	if (!r->zfile)
		return 0;
	int st = io_filter_finish(&r->z, NULL);
	if (st) {
		filter_failed(c, st, "", r->zfile->name);
		return -1;
	}
	return 0;
}

int runlist_read_start(job_ctx *c, run **runs, int k)
{
	for (int i = 0; i < k; i++) {
		run *r = runs[i];
		if (!r->zfile)
			continue;
		int rc = io_filter_start(&r->z, c->o->compress, "-d", r->zfile->fd, 0, r->zfile->name);
		if (rc) {
			filter_failed(c, rc, " -d", r->zfile->name);
			return -1;
		}
		r->file = &r->z.f;
	}
	return 0;
}

int runlist_read_end(job_ctx *c, run **runs, int k, int failed, int bad)
{
	int ret = 0;
	for (int i = 0; i < k; i++) {
		run *r = runs[i];
		if (!r->zfile || !r->z.pid)
			continue;
		if (failed && i != bad) {
			io_filter_kill(&r->z);
			continue;
		}
		uint64_t extra;
		int st = io_filter_finish(&r->z, &extra);
		if (st) {
			filter_failed(c, st, " -d", r->zfile->name);
			ret = -1;
		} else if (extra && !failed) {
			job_fail(c, "temporary file %s: --compress-program '%s -d' gave %" PRIu64 " bytes more than "
				 "were written: spilled data was corrupted; no output written", r->zfile->name,
				 c->o->compress, extra);
			ret = -1;
		}
	}
	return ret;
}

int runlist_spill(job_ctx *c, run *r, uint64_t bytes)
{
	int i = c->next_tmp;
	c->next_tmp = (c->next_tmp + 1) % c->o->ntmp;
	if (c->o->compress)
		return spill_compressed(c, r, i) ? -1 : i;
	if (c->spill[i].fd < 0 && open_spill(c, &c->spill[i], i))
		return -1;
	r->file = &c->spill[i];
	r->spilled = 1;
	r->off = c->spill_end[i];
	if (bytes)
		runlist_spill_end(c, i, r->off + bytes);
	return i;
}

void runlist_spill_hook(io_job *j)
{
	run *r = j->arg;
	r->file->pos = r->off;
}

int runlist_from_inputs(job_ctx *c)
{
	for (int i = 0; i < c->nin; i++) {
		run *r = runlist_new(c);
		if (!r)
			return -1;
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

void runlist_map_inputs(job_ctx *c)
{
	for (int i = 0; i < c->nruns; i++) {
		run *r = c->runs[i];
		io_file *f = r->file;
		if (r->mem || r->stream || !f || !f->regular || !r->n || f->size > SIZE_MAX ||
		    (c->out_open && io_same_file(c->out.f.fd, f)))
			continue;
		void *m = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, f->fd, 0);
		if (m == MAP_FAILED)
			continue;
		r->map = m;
		r->map_bytes = (size_t)f->size;
		r->mem = (uint8_t *)m + f->pos;
	}
}
