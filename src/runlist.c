/* runlist.c - see runlist.h. */
#include "runlist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *runlist_tmpdir(const job_ctx *c, int dir)
{
	return c->o->tmpdirs[dir];
}

void runlist_write_failed(job_ctx *c, const io_file *f, int rc)
{
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

void runlist_free_run(job_ctx *c, run *r)
{
	if (!r)
		return;
	if (r->pinned)
		engine_unpin(&c->eng, r->mem);
	free(r->mem);
	run_hash_free(&r->hash);
	free(r);
}

void runlist_discard(job_ctx *c)
{
	for (int i = 0; i < c->nruns; i++)
		runlist_free_run(c, c->runs[i]);
	c->nruns = 0;
	memset(&c->vin, 0, sizeof c->vin);
	c->st.runs = c->st.spilled = 0;
}

void runlist_spill_end(job_ctx *c, int dir, uint64_t end)
{
	c->spill_end[dir] = (end + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
}

int runlist_spill(job_ctx *c, run *r, uint64_t bytes)
{
	int i = c->next_tmp;
	c->next_tmp = (c->next_tmp + 1) % c->o->ntmp;
	if (c->spill[i].fd < 0) {
		int rc = io_open_spill(&c->spill[i], runlist_tmpdir(c, i));
		if (rc) {
			c->spill[i].fd = -1;
			job_fail(c, "cannot create a temporary file in '%s': %s", runlist_tmpdir(c, i), strerror(-rc));
			return -1;
		}
	}
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
	if (run_hash_add(&r->hash, j->buf, j->len) || run_hash_end(&r->hash))
		j->res = -ENOMEM;
}

int runlist_from_inputs(job_ctx *c)
{
	for (int i = 0; i < c->nin; i++) {
		run *r = runlist_new(c);
		if (!r) {
			job_fail(c, "out of memory");
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
