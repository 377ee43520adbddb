/* inputs.c - see inputs.h. */
#define _GNU_SOURCE
#include "inputs.h"
#include "quote.h"
#include "util.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* f (just opened) is the file the checks saw: same size, same modification time. */
static int same_file(const io_file *f, const io_file *seen)
{
	return f->regular && f->size == seen->size && f->mtime_ns == seen->mtime_ns;
}

static void job_fail_changed(job_ctx *c, const char *name)
{
	job_fail(c, "%s: the file changed while it was read (its size or modification time): nothing written",
		 quote_name(name));
}

int inputs_ended_unchanged(job_ctx *c, int i)
{
	const io_file *f = &c->in[i], *seen = &c->in_seen[i];
	if (!seen->regular)
		return 0;
	io_fault_change_input(f->name, f->size / 2); /* the test build: once some of it was read */
	return c->in_bytes[i] != seen->size - seen->pos || io_input_changed(f) != 0 ? -ESTALE : 0;
}

int inputs_include(const job_ctx *c, int fd)
{
	for (int i = 0; i < c->nin; i++)
		if (io_same_file(fd, &c->in_seen[i]))
			return 1;
	return 0;
}

int inputs_unchanged(job_ctx *c)
{
	for (int i = 0; i < c->nin; i++) {
		const io_file *f = &c->in[i];
		if (!c->in_seen[i].regular || f->fd < 0)
			continue;
		io_fault_change_input(f->name, f->size / 2);
		if (io_input_changed(f) != 0 || !same_file(f, &c->in_seen[i])) {
			job_fail_changed(c, f->name);
			return -1;
		}
	}
	return 0;
}

int inputs_open(job_ctx *c, int keep_open)
{
	const job_opts *o = c->o;
	c->nin = o->ninputs;
	c->in = calloc((size_t)c->nin, sizeof *c->in);
	c->in_bytes = calloc((size_t)c->nin, sizeof *c->in_bytes);
	c->in_seen = calloc((size_t)c->nin, sizeof *c->in_seen);
	if (!c->in || !c->in_bytes || !c->in_seen) {
		job_fail(c, "out of memory");
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
				io_file seen = *f;
				io_close(f);
				f->regular = seen.regular;
				f->size = seen.size;
				f->pos = seen.pos;
				f->mtime_ns = seen.mtime_ns;
			}
		}
		if (rc) {
			job_fail(c, "cannot read: %s: %s", quote_name(o->inputs[i]), strerror(-rc));
			return -1;
		}
		/* standard input named again: read through the first "-" by then,
		 * so a file there has nothing left (as sort(1) finds it); its reads
		 * are by offset, which would read the file again */
		if (f->regular && !strcmp(o->inputs[i], "-"))
			for (int k = 0; k < i; k++)
				if (!strcmp(o->inputs[k], "-"))
					f->pos = f->size;
		c->in_seen[i] = *f;
		if (f->regular && (f->size - f->pos) % c->R) {
			job_fail_size(c, f->name, f->size - f->pos);
			return -1;
		}
	}
	return 0;
}

void inputs_close(job_ctx *c)
{
	for (int i = 0; i < c->nin; i++)
		io_close(&c->in[i]);
}

int64_t inputs_known_size(const job_ctx *c)
{
	uint64_t sum = 0;
	for (int i = 0; i < c->nin; i++) {
		if (!c->in[i].regular)
			return -1;
		sum += c->in[i].size - c->in[i].pos;
	}
	return (int64_t)sum;
}

/* Records [*done, got / R) of buf have arrived: --verify's sum and c->read_each see them. */
static void arrived(job_ctx *c, uint8_t *buf, size_t got, size_t *done)
{
	size_t n = got / c->R;
	if (n == *done)
		return;
	if (c->o->verify)
		verify_add_par(c->vtp, &c->vin, NULL, buf + *done * c->R, n - *done, c->R);
	if (c->read_each)
		c->read_each(c->read_each_arg, *done, n - *done);
	*done = n;
}

/* Input i is a regular file that the checks saw with nothing left to read. */
static int seen_empty(const job_ctx *c, int i)
{
	const io_file *seen = &c->in_seen[i];
	return seen->regular && seen->pos >= seen->size;
}

ssize_t inputs_read_chunk(io_job *j, io_ring *ring)
{
	job_ctx *c = j->arg;
	/* the ring's thread waits for these reads: page-cache copies side by side */
	io_ring_async_reads(ring, 1);
	uint8_t *buf = j->buf;
	size_t got = 0, done = 0;
	if (c->replay_done < c->replay_bytes) {
		/* handed back (inputs_replay): --verify's sum has seen them */
		uint64_t m = c->replay_bytes - c->replay_done;
		got = m < j->len ? (size_t)m : j->len / c->R * c->R;
		memcpy(buf, c->replay + c->replay_done, got);
		c->replay_done += got;
		done = got / c->R;
		size_t step = INPUTS_EACH_BYTES / c->R ? INPUTS_EACH_BYTES / c->R : 1;
		for (size_t e = 0; c->read_each && e < done; e += step)
			c->read_each(c->read_each_arg, e, done - e < step ? done - e : step);
		if (c->replay_done == c->replay_bytes) {
			/* given back at once: the path reading it planned without it */
			free(c->replay);
			c->replay = NULL;
			c->replay_bytes = c->replay_done = 0;
		}
	}
	/* a regular input seen empty after a full chunk is opened, checked and
	 * passed over too: the chunk is then known to be the last
	 * (inputs_ended), as the plan counted on (one chunk: no second buffer) */
	while (c->cur < c->nin && (got < j->len || seen_empty(c, c->cur))) {
		io_file *f = &c->in[c->cur];
		const io_file *seen = &c->in_seen[c->cur];
		if (f->fd < 0) {
			int rc = io_open_input(f, c->o->inputs[c->cur]);
			if (!rc && io_fault_is("reopen-emfile") && c->cur > 0) {
				io_close(f); /* the test build: out of descriptors by the second input */
				rc = -EMFILE;
			}
			c->bad_open = rc != 0;
			if (!rc && seen->regular && !same_file(f, seen))
				rc = -ESTALE; /* replaced or changed since the checks */
			if (rc) {
				c->bad_file = c->cur;
				return rc;
			}
		}
		/* with read_each, pieces that are still in the cache when it sees them */
		size_t len = j->len - got;
		if (c->read_each && len > INPUTS_EACH_BYTES)
			len = INPUTS_EACH_BYTES;
		ssize_t n = io_read_next(ring, f, buf + got, len, j->cap - got);
		if (n < 0) {
			c->bad_file = c->cur;
			return n;
		}
		if (len == 0 && !f->eof) { /* seen empty, not at its end now: it changed */
			c->bad_file = c->cur;
			return -ESTALE;
		}
		got += (size_t)n;
		c->in_bytes[c->cur] += (uint64_t)n;
		if (n > 0 && seen->regular)
			io_fault_change_input(f->name, f->size / 2);
		if (f->eof) {
			/* a regular file ends where the checks saw it end, unchanged;
			 * a pipe simply ends */
			if (inputs_ended_unchanged(c, c->cur)) {
				c->bad_file = c->cur;
				return -ESTALE;
			}
			if (c->in_bytes[c->cur] % c->R) {
				c->bad_file = c->cur;
				return -EPROTO;
			}
			io_close(f); /* done with it: one input open at a time */
			c->cur++;
		}
		arrived(c, buf, got, &done);
	}
	return (ssize_t)done;
}

void inputs_replay(job_ctx *c, uint8_t *buf, uint64_t bytes)
{
	free(c->replay);
	c->replay = buf;
	c->replay_bytes = bytes;
	c->replay_done = 0;
}

int inputs_ended(const job_ctx *c)
{
	return c->cur >= c->nin && c->replay_done >= c->replay_bytes;
}

void inputs_read_error(job_ctx *c, int rc)
{
	io_file *f = &c->in[c->bad_file];
	if (c->bad_open)
		job_fail(c, "cannot read: %s: %s", quote_name(c->o->inputs[c->bad_file]), strerror(-rc));
	else if (rc == -ESTALE)
		job_fail_changed(c, f->name);
	else if (rc == -EPROTO)
		job_fail_size(c, f->name, c->in_bytes[c->bad_file]);
	else
		job_fail(c, "read failed: %s: %s", quote_name(f->name), strerror(-rc));
}

void inputs_pread_error(job_ctx *c, int rc, int bad)
{
	if (bad < 0)
		job_fail(c, "out of memory");
	else if (rc == -ENODATA)
		job_fail(c, "read failed: %s: the file shrank while being read", quote_name(c->in[bad].name));
	else
		job_fail(c, "read failed: %s: %s", quote_name(c->in[bad].name), strerror(-rc));
}

/* Close inputs [0, upto) again, but standard input (read there, never reopened). */
static void reclose_inputs(job_ctx *c, int upto)
{
	for (int k = 0; k < upto; k++)
		if (strcmp(c->o->inputs[k], "-"))
			io_close(&c->in[k]);
}

int inputs_reopen(job_ctx *c)
{
	for (int i = 0; i < c->nin; i++) {
		io_file *f = &c->in[i];
		int rc = f->fd < 0 ? io_open_input(f, c->o->inputs[i]) : 0;
		if (rc == -EMFILE || rc == -ENFILE) {
			reclose_inputs(c, i);
			return 1; /* the stream reader opens one at a time */
		}
		if (rc) {
			job_fail(c, "cannot read: %s: %s", quote_name(c->o->inputs[i]), strerror(-rc));
			return -1;
		}
		if (!same_file(f, &c->in_seen[i])) {
			reclose_inputs(c, i + 1);
			return 1; /* the chunked reader finds out and says so */
		}
	}
	return 0;
}
