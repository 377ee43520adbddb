/* check.c - -c / -C: is the input sorted? (job.h job_check) */
#define _GNU_SOURCE
#include "job.h"
#include "inputs.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void job_check(const job_opts *o, job_result *r)
{
	job_ctx c;
	memset(r, 0, sizeof *r);
	if (job_setup(&c, o, r) || inputs_open(&c, 1))
		goto done;
	io_ring ring;
	io_ring_init(&ring);
	size_t R = c.R, n = (8u << 20) / R + 1;
	uint8_t *buf = util_alloc_aligned(n * R + IO_ALIGN, IO_ALIGN), *prev = malloc(R);
	int strict = o->unique, have = 0;
	uint64_t recno = 0;
	if (!buf || !prev) {
		job_fail(&c, "out of memory");
	} else {
		for (;;) {
			io_file *f = &c.in[0];
			ssize_t got = io_read_next(&ring, f, buf, n * R, n * R + IO_ALIGN);
			if (got < 0) {
				job_fail(&c, "%s: read error: %s", f->name, strerror((int)-got));
				break;
			}
			c.in_bytes[0] += (uint64_t)got;
			if (f->eof && inputs_ended_unchanged(&c, 0)) {
				c.bad_file = 0;
				inputs_read_error(&c, -ESTALE);
				break;
			}
			if (f->eof && c.in_bytes[0] % R) {
				job_fail_size(&c, f->name, c.in_bytes[0]);
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
	job_teardown(&c);
}
