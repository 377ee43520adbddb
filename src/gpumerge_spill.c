/* gpumerge_spill.c - see gpumerge_spill.h. */
#define _GNU_SOURCE
#include "gpumerge_spill.h"
#include "merge.h"
#include "splitters.h"
#include "util.h"
#include "../kernels/gpusort_kernels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* I/O workers reading runs back: page-cache reads scale with the readers,
 * and each worker keeps IO_QD requests of its runs in flight */
#define READERS 4

/* The group plan: splitter p (1..G-1) falls in records [lo[p*k+i], hi[p*k+i]]
 * of run i (lo == hi: exact); p = 0 is 0, p = G the run's end. */
struct gplan {
	int G;
	splitters_key *sp;      /* [G-1]: sp[p-1], pos in records of its run */
	uint64_t *lo, *hi;      /* [(G+1) * k] */
	uint64_t *wcap;         /* [k]: records a window of run i must hold */
	uint64_t largest;       /* records of the largest group, at most */
	uint64_t window_bytes;  /* both windows of every spilled run */
};

/* One run being merged. */
struct srun {
	run *r;
	size_t R;
	uint8_t *win[2];        /* spilled: the windows of consecutive groups */
	uint64_t base[2];       /* run position of win[b]'s first record */
	io_job job[2];
	int pending[2];
	int w;                  /* its reader */
	size_t bad_block;
};

static void plan_free(struct gplan *p)
{
	free(p->sp);
	free(p->lo);
	free(p->hi);
	free(p->wcap);
	memset(p, 0, sizeof *p);
}

/*
 * Plan G groups of runs[0..k): splitters from the samples (spilled runs'
 * own, kept runs' equidistant ones at the same density), each located
 * exactly in the kept runs and to a band in the spilled ones. 0 or -ENOMEM.
 */
static int plan_make(const keys_spec *s, run **runs, int k, int G, struct gplan *p)
{
	size_t R = s->record_size;
	uint64_t every = 1;
	memset(p, 0, sizeof *p);
	p->G = G;
	for (int i = 0; i < k; i++)
		if (!runs[i]->mem && runs[i]->sample_every > every)
			every = runs[i]->sample_every;
	splitters_run *sr = malloc((size_t)k * sizeof *sr);
	p->sp = malloc((size_t)G * sizeof *p->sp);
	p->lo = malloc((size_t)(G + 1) * k * sizeof *p->lo);
	p->hi = malloc((size_t)(G + 1) * k * sizeof *p->hi);
	p->wcap = calloc((size_t)k, sizeof *p->wcap);
	if (!sr || !p->sp || !p->lo || !p->hi || !p->wcap) {
		free(sr);
		plan_free(p);
		return -ENOMEM;
	}
	for (int i = 0; i < k; i++) {
		run *r = runs[i];
		if (r->mem) {
			uint64_t ns = r->n / every;
			sr[i] = (splitters_run){ r->mem, 0, r->n, ns || !r->n ? ns : 1 };
		} else {
			sr[i] = (splitters_run){ r->sample, 0, r->nsample, r->nsample }; /* all of them */
		}
	}
	if (G > 1 && splitters_choose(s, sr, k, G, p->sp)) {
		free(sr);
		plan_free(p);
		return -ENOMEM;
	}
	free(sr);
	for (int q = 0; q < G - 1; q++) /* sample index -> record position */
		if (p->sp[q].rec && !runs[p->sp[q].run]->mem)
			p->sp[q].pos *= runs[p->sp[q].run]->sample_every;
	for (int i = 0; i < k; i++) {
		p->lo[i] = p->hi[i] = 0;
		p->lo[(size_t)G * k + i] = p->hi[(size_t)G * k + i] = runs[i]->n;
	}
	for (int q = 1; q < G; q++) {
		const splitters_key *sp = &p->sp[q - 1];
		for (int i = 0; i < k; i++) {
			run *r = runs[i];
			uint64_t lo = r->n, hi = r->n, *L = &p->lo[(size_t)q * k + i], *H = &p->hi[(size_t)q * k + i];
			if (sp->rec && r->mem)
				lo = hi = splitters_rank(s, r->mem, 0, (size_t)r->n, i, sp->rec, sp->run, (size_t)sp->pos, 0);
			else if (sp->rec)
				splitters_band(s, r->sample, r->nsample, r->sample_every, r->n, i, sp, &lo, &hi);
			/* splitters are sorted: the bands move forward */
			*L = lo > L[-k] ? lo : L[-k];
			*H = hi > H[-k] ? hi : H[-k];
			if (*H < *L)
				*H = *L;
		}
	}
	for (int g = 0; g < G; g++) {
		uint64_t sum = 0;
		for (int i = 0; i < k; i++) {
			uint64_t w = p->hi[(size_t)(g + 1) * k + i] - p->lo[(size_t)g * k + i];
			sum += w;
			if (!runs[i]->mem && w > p->wcap[i])
				p->wcap[i] = w;
		}
		if (sum > p->largest)
			p->largest = sum;
	}
	for (int i = 0; i < k; i++)
		if (!runs[i]->mem)
			p->window_bytes += 2 * (p->wcap[i] * R + IO_ALIGN);
	return 0;
}

/* Runs on the reader after a window read: all of it, its checksums matching. */
static void read_hook(io_job *j)
{
	struct srun *x = j->arg;
	if (j->res < 0)
		return;
	if ((size_t)j->res != j->len) {
		j->res = -EIO; /* the file is shorter than the run: truncated meanwhile */
		return;
	}
	if (run_check_read(x->r, x->R, j->off, j->buf, (size_t)j->res, &x->bad_block))
		j->res = -EBADMSG;
}

/* Queue the read of run x's records [from, to) into window b (based at x->base[b]). */
static void read_window(io_worker *wk, struct srun *x, int b, uint64_t from, uint64_t to, uint64_t wcap)
{
	size_t R = x->R;
	x->pending[b] = 0;
	if (from >= to)
		return;
	uint64_t at = from - x->base[b];
	x->job[b] = (io_job){ .op = IO_JOB_READ_AT, .f = x->r->file, .buf = x->win[b] + at * R, .len = (to - from) * R,
			      .cap = (wcap - at) * R + IO_ALIGN, .off = x->r->off + from * R, .hook = read_hook,
			      .arg = x };
	io_worker_submit(&wk[x->w], &x->job[b]);
	x->pending[b] = 1;
}

/* The windows of one reader, to register with its ring (an IO_JOB_CALL on it). */
struct reg {
	struct srun *x;
	int k, w;
	const uint64_t *wcap;
};

static ssize_t register_windows(io_job *j, io_ring *ring)
{
	struct reg *g = j->arg;
	void **bufs = malloc(2 * (size_t)g->k * sizeof *bufs);
	size_t *lens = malloc(2 * (size_t)g->k * sizeof *lens);
	int n = 0;
	ssize_t rc = -ENOMEM;
	if (bufs && lens) {
		for (int i = 0; i < g->k; i++)
			for (int b = 0; b < 2 && g->x[i].win[0] && g->x[i].w == g->w; b++) {
				bufs[n] = g->x[i].win[b];
				lens[n++] = g->wcap[i] * g->x[i].R + IO_ALIGN;
			}
		rc = io_ring_register(ring, bufs, lens, n);
	}
	free(bufs);
	free(lens);
	return rc;
}

/* The CPU merge of one group's slices (after the device failed). 0 or -errno. */
static int group_on_cpu(const keys_spec *s, const uint8_t *const *src, const uint64_t *len, int k, sink *out,
			size_t budget, int threads)
{
	run *v = calloc((size_t)k, sizeof *v);
	run **vp = calloc((size_t)k, sizeof *vp);
	int rc = -ENOMEM, bad;
	size_t blk;
	if (v && vp) {
		for (int i = 0; i < k; i++) {
			/* an empty slice has no pointer, but a run without mem
			 * would be read from a file: any address, never read */
			v[i].mem = (uint8_t *)(src[i] ? src[i] : (const uint8_t *)v);
			v[i].n = len[i];
			vp[i] = &v[i];
		}
		rc = merge_runs(s, vp, k, out, budget, threads, NULL, &bad, &blk);
	}
	free(v);
	free(vp);
	return rc;
}

/* Can runs be merged here at all? 0, or 1 with why set. */
static int mergeable(run **runs, int k, char *why, size_t wlen)
{
	for (int i = 0; i < k; i++) {
		run *r = runs[i];
		if (r->mem || !r->n)
			continue;
		if (r->zfile || r->stream || !r->spilled) {
			snprintf(why, wlen, "a run is %s", r->zfile ? "compressed (--compress-program)" : "not a spilled run");
			return 1;
		}
		if (!r->nsample) {
			snprintf(why, wlen, "a spilled run has no samples (a run of an earlier merge pass)");
			return 1;
		}
	}
	return 0;
}

/*
 * Plan the groups: enough that the largest fits the device (cap records)
 * and the windows fit host_bytes; planned, then checked, then more groups.
 * 0; 1 (why set) when no number of groups does; -ENOMEM.
 */
static int plan_fit(const keys_spec *s, run **runs, int k, uint64_t cap, uint64_t host_bytes, struct gplan *p,
		    char *why, size_t wlen)
{
	uint64_t total = 0, spilled = 0;
	size_t R = s->record_size;
	for (int i = 0; i < k; i++) {
		total += runs[i]->n;
		spilled += runs[i]->mem ? 0 : runs[i]->n;
	}
	/* each window holds at least a band (2 sample_every records) and an
	 * IO_ALIGN of slack, and the plan takes 16 bytes a run a group */
	uint64_t least = 0;
	for (int i = 0; i < k; i++)
		if (!runs[i]->mem && runs[i]->n)
			least += 2 * (IO_ALIGN + (2 * runs[i]->sample_every + 1) * R);
	uint64_t hcap = host_bytes / (2 * R), most = (host_bytes > (64u << 20) ? host_bytes : (64u << 20)) / (16 * (uint64_t)k);
	uint64_t G0 = (total + cap - 1) / cap, G1 = hcap ? (spilled + hcap - 1) / hcap : total;
	G0 = G0 > G1 ? G0 : G1;
	int G = (int)(G0 < most + 1 ? G0 : most + 1); /* most + 1: refused below */
	for (;;) {
		if (G < 1)
			G = 1;
		if (least > host_bytes || (uint64_t)G > most || (uint64_t)G > total) {
			snprintf(why, wlen, "the windows of %d runs do not fit %llu bytes of -S, or their groups the device",
				 k, (unsigned long long)host_bytes);
			return 1;
		}
		if (plan_make(s, runs, k, G, p))
			return -ENOMEM;
		if (p->largest <= cap && p->window_bytes <= host_bytes)
			return 0;
		plan_free(p);
		G = G + G / 2 + 1;
	}
}

/* One merge of spilled runs in groups: what its steps share. */
struct gmerge {
	engine *e;
	const keys_spec *s;
	run **runs;
	int k;
	size_t R;
	struct gplan p;
	struct srun *x;         /* [k] */
	io_worker wk[READERS];
	int nw;                 /* readers started */
	uint64_t *cut, *next;   /* [k]: the group's first record in each run, the next group's */
	uint64_t *len;          /* [k]: records of each run in the group */
	const uint8_t **src;    /* [k]: where they are */
	resident *rs;
	gpumerge_stats *st;
	char *msg, *why;
	size_t mlen, wlen;
};

/* The runs' windows, the device's staging and the readers (their windows
 * registered with their rings). 0; 1 (why set) when pinned staging was
 * refused; -1 (msg set). */
static int gm_open(struct gmerge *m, size_t piece_bytes, tpool *tp)
{
	int k = m->k, rc;
	m->x = calloc((size_t)k, sizeof *m->x);
	m->cut = calloc(2 * (size_t)k, sizeof *m->cut);
	m->len = calloc((size_t)k, sizeof *m->len);
	m->src = calloc((size_t)k, sizeof *m->src);
	if (!m->x || !m->cut || !m->len || !m->src) {
		snprintf(m->msg, m->mlen, "out of memory");
		return -1;
	}
	m->next = m->cut + k;
	int nsp = 0;
	for (int i = 0; i < k; i++) {
		struct srun *x = &m->x[i];
		x->r = m->runs[i];
		x->R = m->R;
		if (x->r->mem || !x->r->n)
			continue;
		x->w = nsp++ % READERS;
		for (int b = 0; b < 2; b++)
			if (!(x->win[b] = util_alloc_aligned(m->p.wcap[i] * m->R + IO_ALIGN, IO_ALIGN))) {
				snprintf(m->msg, m->mlen, "out of memory (read windows of %llu bytes)",
					 (unsigned long long)m->p.window_bytes);
				return -1;
			}
		run_hash_reset_reader(&x->r->hash);
	}
	if ((rc = resident_open(&m->rs, m->e, m->s, NULL, 0, piece_bytes, tp)) != 0) {
		if (rc < 0)
			snprintf(m->msg, m->mlen, "out of memory");
		else
			snprintf(m->why, m->wlen, "pinned staging memory was refused");
		return rc < 0 ? -1 : 1;
	}
	for (; m->nw < (nsp < READERS ? nsp : READERS); m->nw++) {
		if ((rc = io_worker_start(&m->wk[m->nw]))) {
			snprintf(m->msg, m->mlen, "cannot start I/O: %s", strerror(-rc));
			return -1;
		}
		struct reg g = { m->x, k, m->nw, m->p.wcap };
		io_job j = { .op = IO_JOB_CALL, .call = register_windows, .arg = &g };
		io_worker_submit(&m->wk[m->nw], &j);
		io_worker_wait(&m->wk[m->nw], &j); /* failure only leaves the reads unfixed */
	}
	return 0;
}

/* The readers stopped (reads still queued after a failure finish first), everything freed. */
static void gm_close(struct gmerge *m)
{
	for (int w = 0; w < m->nw; w++) {
		io_worker_stop(&m->wk[w]);
		m->st->read_s += m->wk[w].busy;
	}
	resident_close(m->rs);
	for (int i = 0; m->x && i < m->k; i++) {
		free(m->x[i].win[0]);
		free(m->x[i].win[1]);
	}
	free(m->x);
	free(m->cut);
	free(m->len);
	free(m->src);
	plan_free(&m->p);
}

/* Wait for the reads into windows b. 0, or -1 with st's error, run and block set. */
static int gm_wait_windows(struct gmerge *m, int b)
{
	double t0 = util_now();
	for (int i = 0; i < m->k; i++) {
		struct srun *x = &m->x[i];
		if (!x->pending[b])
			continue;
		ssize_t got = io_worker_wait(&m->wk[x->w], &x->job[b]);
		x->pending[b] = 0;
		if (got < 0) {
			m->st->err = (int)got;
			m->st->bad_run = i;
			m->st->bad_block = x->bad_block;
			return -1;
		}
	}
	m->st->wait_s += util_now() - t0;
	return 0;
}

/* Group g's end in each run (next[]): exact where the plan knows it, else
 * found inside the run's band of the splitter, now in window b. */
static void gm_group_ends(struct gmerge *m, int g, int b)
{
	const struct gplan *p = &m->p;
	int k = m->k;
	const uint64_t *lo1 = p->lo + (size_t)(g + 1) * k, *hi1 = p->hi + (size_t)(g + 1) * k;
	const splitters_key *sp = g + 1 < p->G && p->sp[g].rec ? &p->sp[g] : NULL;
	for (int i = 0; i < k; i++) {
		const struct srun *x = &m->x[i];
		if (!sp || lo1[i] == hi1[i])
			m->next[i] = lo1[i];
		else
			m->next[i] = x->base[b] + splitters_rank(m->s, x->win[b], (size_t)(lo1[i] - x->base[b]),
								 (size_t)(hi1[i] - x->base[b]), i, sp->rec, sp->run,
								 (size_t)sp->pos, 0);
		if (m->next[i] < m->cut[i])
			m->next[i] = m->cut[i];
	}
}

/* Group g + 1's windows (nb): its band, read already into window b, copied,
 * then the rest queued, read while group g is merged. */
static void gm_read_next(struct gmerge *m, int g, int b, int nb)
{
	const struct gplan *p = &m->p;
	int k = m->k;
	const uint64_t *lo1 = p->lo + (size_t)(g + 1) * k, *hi1 = p->hi + (size_t)(g + 1) * k;
	for (int i = 0; g + 1 < p->G && i < k; i++) {
		struct srun *x = &m->x[i];
		if (!x->win[0])
			continue;
		x->base[nb] = lo1[i];
		memcpy(x->win[nb], x->win[b] + (lo1[i] - x->base[b]) * m->R, (size_t)(hi1[i] - lo1[i]) * m->R);
		read_window(m->wk, x, nb, hi1[i], p->hi[(size_t)(g + 2) * k + i], p->wcap[i]);
	}
}

/* The group's slices [cut, next) of each run (len[], src[]: window b, or a
 * run in memory). Returns its records. */
static uint64_t gm_slices(struct gmerge *m, int b)
{
	uint64_t n = 0;
	for (int i = 0; i < m->k; i++) {
		const struct srun *x = &m->x[i];
		m->len[i] = m->next[i] - m->cut[i];
		if (!m->len[i])
			m->src[i] = NULL;
		else if (x->win[0])
			m->src[i] = x->win[b] + (m->cut[i] - x->base[b]) * m->R;
		else
			m->src[i] = m->runs[i]->mem + m->cut[i] * m->R;
		n += m->len[i];
	}
	return n;
}

/* Merge the group's n records (gm_slices) into out: on the device while
 * *on_gpu, else (the device failed on an earlier group, or on this one
 * before writing any of it: *on_gpu cleared) on the CPU. 0; 1 (why set)
 * when the device refused or failed on the first group; -1 (msg set, or
 * the sink failed). */
static int gm_merge_group(struct gmerge *m, uint64_t n, int *on_gpu, sink *out, tpool *tp, int threads,
			  uint64_t host_bytes, int by_sort)
{
	if (*on_gpu) {
		uint64_t before = out->records;
		double t0 = util_now();
		int rc = gpumerge_group(m->rs, m->src, m->len, m->k, out, tp, by_sort, m->st, m->msg, m->mlen);
		m->st->device_s += util_now() - t0;
		if ((rc == 1 || rc == RESIDENT_GPU_FAILED) && out->records == before) {
			/* nothing of this group written: the CPU merges from here */
			if (rc == RESIDENT_GPU_FAILED)
				engine_gpu_lost(m->e, m->msg);
			m->msg[0] = 0;
			if (!out->records) {
				snprintf(m->why, m->wlen, "%s",
					 m->e->gpu_lost_why[0] ? m->e->gpu_lost_why : "the device refused the first group");
				return 1;
			}
			*on_gpu = 0;
		} else if (rc) {
			if (rc == 1)
				snprintf(m->msg, m->mlen, "GPU out of memory while merging a group of %llu records",
					 (unsigned long long)n);
			return -1;
		} else {
			m->st->groups++;
			return 0;
		}
	}
	int rc = group_on_cpu(m->s, m->src, m->len, m->k, out, host_bytes, threads);
	if (rc) {
		if (!out->err)
			snprintf(m->msg, m->mlen, "merge failed: %s", strerror(-rc));
		return -1;
	}
	m->st->cpu_groups++;
	return 0;
}

int gpumerge_spilled(engine *e, const keys_spec *s, run **runs, int k, sink *out, tpool *tp, int threads,
		     size_t piece_bytes, uint64_t host_bytes, int insist, int by_sort, gpumerge_stats *st, char *msg,
		     size_t mlen, char *why, size_t wlen)
{
	size_t R = s->record_size;
	uint64_t cap = e->max_records, total = 0;
	msg[0] = why[0] = 0;
	*st = (gpumerge_stats){ .rest = st->rest, .bad_run = -1 };
	if (!e->gpu || k < 1)
		return 1;
	if (!by_sort) {
		uint64_t mc = gpu_merge_capacity(e->gpu, e->s); /* the merge's second buffer */
		cap = mc < cap ? mc : cap;
	}
	if (cap < 2) {
		snprintf(why, wlen, "the device takes no group");
		return 1;
	}
	if (mergeable(runs, k, why, wlen))
		return 1;
	for (int i = 0; i < k; i++)
		total += runs[i]->n;
	struct gmerge m = { .e = e, .s = s, .runs = runs, .k = k, .R = R, .st = st,
			    .msg = msg, .why = why, .mlen = mlen, .wlen = wlen };
	int rc = plan_fit(s, runs, k, cap, host_bytes, &m.p, why, wlen);
	if (rc) {
		if (rc < 0)
			snprintf(msg, mlen, "out of memory");
		return rc < 0 ? -1 : 1;
	}
	const int G = m.p.G;
	if (!insist && total * R / (uint64_t)G < GPUMERGE_SPILL_MIN_GROUP) {
		snprintf(why, wlen, "groups of %llu bytes are too small for the device to gain",
			 (unsigned long long)(total * R / (uint64_t)G));
		plan_free(&m.p);
		return 1;
	}
	int ret = gm_open(&m, piece_bytes, tp), on_gpu = 1;
	if (ret)
		goto out;
	ret = -1;
	progress_phase(out->prog, PROGRESS_MERGE, 1, 1, (int64_t)(total * R));
	/* group 0's windows: each spilled run from its start to the end of the first band */
	for (int i = 0; i < k; i++)
		if (m.x[i].win[0])
			read_window(m.wk, &m.x[i], 0, 0, m.p.hi[(size_t)k + i], m.p.wcap[i]);
	for (int g = 0; g < G; g++) {
		int b = g & 1;
		if (gm_wait_windows(&m, b))
			goto out;
		gm_group_ends(&m, g, b);
		gm_read_next(&m, g, b, 1 - b);
		uint64_t n = gm_slices(&m, b);
		if (n && (rc = gm_merge_group(&m, n, &on_gpu, out, tp, threads, host_bytes, by_sort))) {
			ret = rc;
			goto out;
		}
		memcpy(m.cut, m.next, (size_t)k * sizeof *m.cut);
	}
	ret = 0;
out:
	gm_close(&m);
	return ret;
}
