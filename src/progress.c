/* progress.c - see progress.h. */
#define _GNU_SOURCE
#include "progress.h"
#include "util.h"

#include <math.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "M:SS", or "H:MM:SS" from an hour on, of s seconds rounded up. */
static void fmt_eta(double s, char *buf, size_t cap)
{
	uint64_t t = (uint64_t)ceil(s);
	if (t >= 3600)
		snprintf(buf, cap, "%llu:%02u:%02u", (unsigned long long)(t / 3600), (unsigned)(t / 60 % 60),
			 (unsigned)(t % 60));
	else
		snprintf(buf, cap, "%u:%02u", (unsigned)(t / 60), (unsigned)(t % 60));
}

size_t progress_format(char *buf, size_t cap, const progress_line *l)
{
	/* below a millisecond the rate is noise: count it as a millisecond */
	double el = l->elapsed > 1e-3 ? l->elapsed : 1e-3;
	double rate = (double)l->done / el; /* bytes/s */
	char d[32], t[32], name[48], eta[32];
	util_fmt_bytes(l->done, d, sizeof d);
	int n;
	if (l->step == PROGRESS_DONE) {
		n = snprintf(buf, cap, "gpusort: done: %s in %.2f s, %.1f MB/s", d, l->elapsed, rate / 1e6);
		return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
	}
	static const char *const names[] = { [PROGRESS_NONE] = "start", [PROGRESS_READ] = "read",
		[PROGRESS_SORT] = "sort", [PROGRESS_SPILL] = "spill", [PROGRESS_MERGE] = "merge",
		[PROGRESS_WRITE] = "write" };
	if (l->step == PROGRESS_MERGE && l->passes > 0)
		snprintf(name, sizeof name, "merge pass %d of %d", l->pass, l->passes);
	else
		snprintf(name, sizeof name, "%s", names[l->step < PROGRESS_DONE ? l->step : PROGRESS_NONE]);
	if (l->total <= 0) {
		n = snprintf(buf, cap, "gpusort: %s: %s, %.1f MB/s", name, d, rate / 1e6);
	} else {
		uint64_t total = (uint64_t)l->total, done = l->done < total ? l->done : total;
		util_fmt_bytes(done, d, sizeof d);
		if (done == 0)
			snprintf(eta, sizeof eta, "--:--");
		else
			fmt_eta((double)(total - done) / rate, eta, sizeof eta);
		n = snprintf(buf, cap, "gpusort: %s: %s of %s (%d%%), %.1f MB/s, ETA %s", name, d,
			     util_fmt_bytes(total, t, sizeof t), (int)(100 * (double)done / (double)total),
			     rate / 1e6, eta);
	}
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Draw the phase's line now (lock held). */
static void draw(progress *p, double now)
{
	char line[256];
	progress_line l = p->cur;
	l.done = atomic_load(&p->done);
	l.elapsed = now - p->t_phase;
	progress_format(line, sizeof line, &l);
	p->drawn = l.done + 1;
	if (p->tty)
		fprintf(p->f, "\r%s\033[K", line);
	else
		fprintf(p->f, "%s\n", line);
	fflush(p->f);
}

/* Off a terminal, where the phase that ends got to, unless its last line
 * says it already (lock held). */
static void end_phase(progress *p, double now)
{
	if (!p->tty && p->cur.step != PROGRESS_NONE && p->drawn != atomic_load(&p->done) + 1)
		draw(p, now);
}

void progress_start(progress *p, FILE *f, int tty, double interval_s)
{
	memset(p, 0, sizeof *p);
	p->f = f;
	p->tty = tty;
	p->interval = interval_s > 0 ? interval_s : 0;
	pthread_mutex_init(&p->lock, NULL);
	atomic_init(&p->done, 0);
	atomic_init(&p->due_ns, now_ns() + (int64_t)(p->interval * 1e9));
	p->t_job = p->t_phase = util_now();
}

void progress_phase(progress *p, progress_step step, int pass, int passes, int64_t total)
{
	if (!p || p->ended)
		return;
	pthread_mutex_lock(&p->lock);
	double now = util_now();
	end_phase(p, now);
	p->cur = (progress_line){ .step = step, .pass = pass, .passes = passes, .total = total };
	atomic_store(&p->done, 0);
	p->drawn = 0;
	p->t_phase = now;
	if (p->tty)
		draw(p, now);
	atomic_store(&p->due_ns, now_ns() + (int64_t)(p->interval * 1e9));
	pthread_mutex_unlock(&p->lock);
}

void progress_add(progress *p, uint64_t bytes)
{
	if (!p)
		return;
	atomic_fetch_add_explicit(&p->done, bytes, memory_order_relaxed);
	int64_t now = now_ns(), due = atomic_load_explicit(&p->due_ns, memory_order_relaxed);
	/* the one caller that moves the due time on draws; the rest go back to work */
	if (now < due || !atomic_compare_exchange_strong(&p->due_ns, &due, now + (int64_t)(p->interval * 1e9)))
		return;
	if (pthread_mutex_trylock(&p->lock))
		return;
	if (!p->ended)
		draw(p, util_now());
	pthread_mutex_unlock(&p->lock);
}

void progress_end(progress *p, int ok, uint64_t bytes)
{
	if (!p || p->ended)
		return;
	pthread_mutex_lock(&p->lock);
	p->ended = 1;
	double now = util_now();
	if (!ok) {
		if (p->tty)
			fputs("\r\033[K", p->f);
	} else {
		end_phase(p, now);
		p->cur = (progress_line){ .step = PROGRESS_DONE };
		atomic_store(&p->done, bytes);
		p->t_phase = p->t_job;
		draw(p, now);
		if (p->tty)
			fputc('\n', p->f);
	}
	fflush(p->f);
	/* the lock stays initialized (it holds nothing to free): a straggling
	 * progress_add may still try it, and finds the report ended */
	pthread_mutex_unlock(&p->lock);
}
