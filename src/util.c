/* util.c - see util.h. */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

double util_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t util_physmem(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || psz <= 0)
		return 0;
	return (uint64_t)pages * (uint64_t)psz;
}

/* A limit file's value: a number of bytes, or 0 for "max", a v1 "no limit"
 * (at least 2^62) or an unreadable file. */
static uint64_t read_limit(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char buf[64] = "";
	uint64_t v = 0;
	if (fgets(buf, sizeof buf, f)) {
		char *end;
		unsigned long long x = strtoull(buf, &end, 10);
		if (end != buf && x < (1ull << 62))
			v = x;
	}
	fclose(f);
	return v;
}

uint64_t util_cgroup_memory(const char *file)
{
	if (file)
		return read_limit(file);
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return 0;
	char line[4096], path[4096] = "", leaf[32] = "";
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *p = strchr(line, ':'), *q = p ? strchr(p + 1, ':') : NULL;
		if (!q)
			continue;
		if (!strncmp(p, "::", 2) && access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) {
			snprintf(path, sizeof path, "/sys/fs/cgroup%s", q + 1); /* v2, unified */
			snprintf(leaf, sizeof leaf, "memory.max");
		} else if (q - p == 7 && !strncmp(p + 1, "memory", 6)) {
			snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s", q + 1); /* v1 */
			snprintf(leaf, sizeof leaf, "memory.limit_in_bytes");
			break;
		}
	}
	fclose(f);
	uint64_t best = 0;
	/* the cgroup and each ancestor, up to the hierarchy's mount point */
	const size_t top = strlen(strcmp(leaf, "memory.max") ? "/sys/fs/cgroup/memory" : "/sys/fs/cgroup");
	while (path[0] && leaf[0]) {
		char file_path[4200];
		snprintf(file_path, sizeof file_path, "%s/%s", path, leaf);
		uint64_t v = read_limit(file_path);
		if (v && (!best || v < best))
			best = v;
		char *slash = strrchr(path, '/');
		if (!slash || (size_t)(slash - path) < top)
			break;
		*slash = 0;
	}
	return best;
}

int util_ncores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : (int)n;
}

int util_parse_size(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	unsigned shift = 10; /* plain number: KiB, like GNU sort */
	if (*end) {
		switch (*end) {
		case 'b': shift = 0; break;
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		case 't': case 'T': shift = 40; break;
		case 'P': shift = 50; break; /* sort(1) takes these upper case only */
		case 'E': shift = 60; break;
		case 'Z': case 'Y': return end[1] ? -EINVAL : -ERANGE; /* sort(1)'s, past 64 bits */
		case '%': {
			if (end[1])
				return -EINVAL;
			uint64_t mem = util_physmem();
			if (!mem)
				return -EINVAL;
			if (v > UINT64_MAX / (mem / 100 + 1))
				return -ERANGE;
			*out = mem / 100 * v;
			return 0;
		}
		default:
			return -EINVAL;
		}
		if (end[1] && !((end[1] == 'i' && end[2] == 'B' && !end[3]) || (end[1] == 'B' && !end[2] && shift)))
			return -EINVAL;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

const char *util_fmt_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int i = 0;
	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)b);
	else
		snprintf(buf, len, "%.1f %s", v, u[i]);
	return buf;
}

struct par_arg {
	void (*fn)(void *, int, int);
	void *arg;
	int t, n;
};

static void *par_tramp(void *p)
{
	struct par_arg *a = p;
	a->fn(a->arg, a->t, a->n);
	return NULL;
}

int util_par_run(int n, void (*fn)(void *, int, int), void *arg)
{
	if (n <= 1) {
		fn(arg, 0, 1);
		return 0;
	}
	pthread_t th[n];
	struct par_arg a[n];
	int started[n], rc = 0;
	for (int t = 1; t < n; t++) {
		a[t] = (struct par_arg){ fn, arg, t, n };
		started[t] = pthread_create(&th[t], NULL, par_tramp, &a[t]) == 0;
	}
	fn(arg, 0, n);
	for (int t = 1; t < n; t++) {
		if (started[t]) {
			pthread_join(th[t], NULL);
		} else {
			fn(arg, t, n); /* degrade: do that part here */
			rc = -EAGAIN;
		}
	}
	return rc;
}

struct par_slices {
	void (*fn)(void *, size_t, size_t);
	void *arg;
	size_t n, nsl;
	_Atomic size_t next;
};

static void par_slices_part(void *p, int t, int nt)
{
	struct par_slices *q = p;
	(void)t, (void)nt;
	for (size_t sl; (sl = atomic_fetch_add_explicit(&q->next, 1, memory_order_relaxed)) < q->nsl;) {
		size_t lo, hi;
		util_split(q->n, (int)sl, (int)q->nsl, &lo, &hi);
		q->fn(q->arg, lo, hi);
	}
}

int util_par_slices(int n, size_t items, size_t min_slice, void (*fn)(void *, size_t, size_t), void *arg)
{
	size_t nsl = (size_t)(n > 1 ? n : 1) * UTIL_SLICES_PER_THREAD, most = min_slice ? items / min_slice : items;
	if (nsl > most)
		nsl = most > 1 ? most : 1;
	struct par_slices q = { fn, arg, items, nsl, 0 };
	return util_par_run(n, par_slices_part, &q);
}

void *util_alloc_aligned(size_t bytes, size_t align)
{
	void *p = NULL;
	if (bytes == 0)
		bytes = align;
	bytes = (bytes + align - 1) / align * align;
	if (posix_memalign(&p, align, bytes))
		return NULL;
	return p;
}

void *util_alloc_huge(size_t bytes)
{
	const size_t huge = 2u << 20;
	void *p = util_alloc_aligned(bytes, huge);
#ifdef MADV_HUGEPAGE
	if (p && bytes >= huge)
		(void)madvise(p, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE); /* advice only */
#endif
	return p;
}

void *util_map_resize(void *p, size_t old_bytes, size_t bytes)
{
	if (!bytes)
		bytes = 1;
	void *q = p ? mremap(p, old_bytes ? old_bytes : 1, bytes, MREMAP_MAYMOVE)
		    : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	if (bytes >= (2u << 20))
		(void)madvise(q, bytes, MADV_HUGEPAGE); /* the whole mapping: advice only */
#endif
	return q;
}

void util_map_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes ? bytes : 1);
}

uint64_t util_peak_rss(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) ? 0 : (uint64_t)ru.ru_maxrss * 1024; /* Linux: KiB */
}

void util_earliest_init(util_earliest *e, size_t n, size_t piece,
			size_t (*first)(void *arg, size_t lo, size_t hi, const util_earliest *e), void *arg)
{
	e->n = n;
	e->piece = piece;
	e->first = first;
	e->arg = arg;
	atomic_init(&e->next, 0);
	atomic_init(&e->found, SIZE_MAX);
}

size_t util_earliest_found(const util_earliest *e)
{
	return atomic_load_explicit(&((util_earliest *)e)->found, memory_order_relaxed);
}

void util_earliest_step(void *arg, int t, int nthreads)
{
	util_earliest *e = arg;
	(void)t, (void)nthreads;
	for (;;) {
		size_t q = atomic_fetch_add(&e->next, 1);
		if (q >= (e->n + e->piece - 1) / e->piece)
			return;
		size_t lo = q * e->piece, hi = e->n - lo < e->piece ? e->n : lo + e->piece;
		if (util_earliest_found(e) < lo)
			return; /* pieces are taken in order: the rest start later still */
		size_t f = e->first(e->arg, lo, hi, e), cur = atomic_load(&e->found);
		while (f < cur && !atomic_compare_exchange_weak(&e->found, &cur, f))
			;
	}
}
