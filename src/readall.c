/* readall.c - see readall.h. */
#define _GNU_SOURCE
#include "readall.h"
#include "util.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define READALL_BLOCK ((size_t)4 << 20) /* bytes per pread: hashed while still in cache */

struct readall {
	const io_file *in;
	int nin;
	uint64_t *base;      /* base[i]: stream offset of input i's first byte; base[nin]: the end */
	uint64_t lo, units;  /* the range: its first byte, and its length in units */
	uint8_t *dst;
	size_t unit;
	int *err, *bad;      /* per part */
	verify_sum *vs;      /* per part, or NULL */
	readall_each_fn each; /* or NULL */
	void *each_arg;
};

/* pread exactly len bytes at off; 0 or -errno (-ENODATA at an early end of file). */
static int pread_exact(int fd, uint8_t *dst, size_t len, uint64_t off)
{
	while (len) {
		size_t m = len;
		ssize_t n = io_fault_rw(IO_FAULT_READ, &m) ? -1 : pread(fd, dst, m, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENODATA;
		dst += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

void readall_bases(const io_file *in, int nin, uint64_t *base)
{
	base[0] = 0;
	for (int i = 0; i < nin; i++)
		base[i + 1] = base[i] + (in[i].size - in[i].pos);
}

int readall_pread(const io_file *in, int nin, const uint64_t *base, uint64_t lo, uint64_t hi, uint8_t *dst,
		  int *bad)
{
	int i = 0;
	while (lo < hi) {
		while (i < nin && base[i + 1] <= lo)
			i++; /* inputs that end before lo (or are empty) */
		if (i == nin) {
			*bad = nin - 1;
			return -EINVAL; /* beyond the inputs: the caller's range is wrong */
		}
		uint64_t end = base[i + 1] < hi ? base[i + 1] : hi;
		int rc = pread_exact(in[i].fd, dst, (size_t)(end - lo), in[i].pos + (lo - base[i]));
		if (rc) {
			*bad = i;
			return rc;
		}
		dst += end - lo;
		lo = end;
	}
	return 0;
}

static void read_part(void *arg, int t, int nt)
{
	struct readall *r = arg;
	size_t ulo, uhi;
	util_split((size_t)r->units, t, nt, &ulo, &uhi);
	size_t block = READALL_BLOCK / r->unit ? READALL_BLOCK / r->unit : 1; /* units per pread */
	for (size_t u = ulo; u < uhi && !r->err[t]; u += block) {
		size_t m = uhi - u < block ? uhi - u : block;
		uint8_t *p = r->dst + u * r->unit;
		uint64_t off = r->lo + (uint64_t)u * r->unit;
		r->err[t] = readall_pread(r->in, r->nin, r->base, off, off + (uint64_t)m * r->unit, p, &r->bad[t]);
		if (!r->err[t] && r->vs)
			verify_add(&r->vs[t], p, m, r->unit);
		if (!r->err[t] && r->each)
			r->each(r->each_arg, t, u, m);
	}
}

int readall_range(tpool *tp, const io_file *in, int nin, uint64_t lo, uint64_t hi, uint8_t *dst,
		  size_t unit, verify_sum *sum, int *bad)
{
	return readall_range_each(tp, in, nin, lo, hi, dst, unit, sum, bad, NULL, NULL);
}

int readall_range_each(tpool *tp, const io_file *in, int nin, uint64_t lo, uint64_t hi, uint8_t *dst,
		       size_t unit, verify_sum *sum, int *bad, readall_each_fn each, void *arg)
{
	int nt = tpool_size(tp);
	struct readall r = { .in = in, .nin = nin, .lo = lo, .units = (hi - lo) / unit, .dst = dst, .unit = unit,
			     .each = each, .each_arg = arg };
	*bad = -1;
	r.base = calloc((size_t)nin + 1, sizeof *r.base);
	r.err = calloc((size_t)nt, sizeof *r.err);
	r.bad = calloc((size_t)nt, sizeof *r.bad);
	r.vs = sum ? calloc((size_t)nt, sizeof *r.vs) : NULL;
	int rc = -ENOMEM;
	if (r.base && r.err && r.bad && (r.vs || !sum)) {
		readall_bases(in, nin, r.base);
		tpool_run(tp, read_part, &r);
		rc = 0;
		for (int t = 0; t < nt && !rc; t++) {
			rc = r.err[t];
			if (rc)
				*bad = r.bad[t];
			else if (sum)
				verify_merge(sum, &r.vs[t]);
		}
	}
	free(r.base);
	free(r.err);
	free(r.bad);
	free(r.vs);
	return rc;
}
