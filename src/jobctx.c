/* jobctx.c - see jobctx.h. */
#define _GNU_SOURCE
#include "jobctx.h"
#include "quote.h"
#include "util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void job_fail(job_ctx *c, const char *fmt, ...)
{
	if (c->r->status == 2)
		return; /* the first error is the one to report */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->r->msg, sizeof c->r->msg, fmt, ap);
	va_end(ap);
	c->r->status = 2;
}

void job_fail_size(job_ctx *c, const char *name, uint64_t size)
{
	job_fail(c, "%s: size %" PRIu64 " is not a multiple of the record size %zu (%" PRIu64 " bytes left over)",
	     quote_name(name), size, c->R, size % c->R);
}
