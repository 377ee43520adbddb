/*
 * progress.h - --progress: how far the whole job has come, on standard error
 * (DESIGN.md section 7).
 *
 * The job's phases follow one another (read, sort, spill, merge pass k of m,
 * write); each announces itself with progress_phase, then counts the bytes
 * it finishes with progress_add, from any number of threads. progress_add
 * is an atomic add and a clock read unless a line is due, so the phases may
 * call it per piece of a few MiB; one caller at a time draws (the others
 * skip). Where the report goes:
 *   a terminal  one line redrawn in place (carriage return, the line, erase
 *               to the end of the line) at most every interval and at each
 *               phase's start; progress_end leaves the "done" line and a
 *               newline, or erases the line when the job failed, so that
 *               its error is one clean line;
 *   otherwise   a plain line at most every interval, plus each phase's
 *               final line when it ends and the "done" line at the end.
 * Every function takes p == NULL (--progress not given) and does nothing.
 */
#ifndef GPUSORT_PROGRESS_H
#define GPUSORT_PROGRESS_H
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
	PROGRESS_NONE,   /* before the first phase */
	PROGRESS_READ,   /* inputs read before they are sorted (the streamed CPU chunk) */
	PROGRESS_SORT,   /* run formation: reading, sorting and spilling overlapped */
	PROGRESS_SPILL,  /* the last runs' spill writes, after the last sort */
	PROGRESS_MERGE,  /* a merge pass (pass of passes) */
	PROGRESS_WRITE,  /* the output's last writes */
	PROGRESS_DONE,   /* the job, whole */
} progress_step;

/* One report line's facts (progress_format). */
typedef struct progress_line {
	progress_step step;
	int pass, passes;  /* PROGRESS_MERGE: pass `pass` (1-based) of `passes` */
	uint64_t done;     /* bytes done */
	int64_t total;     /* bytes the phase will do; <= 0: not known (a pipe) */
	double elapsed;    /* seconds since the phase began (PROGRESS_DONE: the job) */
} progress_line;

typedef struct progress {
	FILE *f;
	int tty;                    /* redraw one line in place */
	double interval;            /* seconds between lines at the most */
	pthread_mutex_t lock;       /* held while a line is drawn and while the phase changes */
	atomic_uint_fast64_t done;  /* the phase's bytes */
	atomic_int_fast64_t due_ns; /* progress_now_ns after which the next line is due */
	progress_line cur;          /* under lock: the phase (done, elapsed filled when drawn) */
	double t_job, t_phase;      /* util_now() at the start, at the phase's start */
	uint64_t drawn;             /* under lock: the phase's bytes when its line was last drawn, + 1 (0: not drawn) */
	int ended;
} progress;

/*
 * Start reporting to f (stderr): tty chooses the terminal form, interval_s
 * (>= 0; 0: a line at every progress_add, for the tests) the most often a
 * line is drawn. Draws nothing yet.
 */
void progress_start(progress *p, FILE *f, int tty, double interval_s);

/*
 * A new phase begins: step, its pass of passes (PROGRESS_MERGE; else 0, 0),
 * its total bytes (<= 0: not known). Ends the previous phase (its final line,
 * off a terminal). Call it from the job's thread when no progress_add of the
 * previous phase is still running.
 */
void progress_phase(progress *p, progress_step step, int pass, int passes, int64_t total);

/* bytes more of the phase are done. Any thread; draws when a line is due. */
void progress_add(progress *p, uint64_t bytes);

/*
 * The job is over: ok, its final line ("done", bytes: the job's input
 * bytes, and the job's time and rate) after the last phase's; not ok, the
 * terminal's line erased and nothing more. Later calls do nothing.
 */
void progress_end(progress *p, int ok, uint64_t bytes);

/*
 * l as one report line without a newline, into buf (cap bytes, always
 * NUL-terminated):
 *   gpusort: PHASE: DONE of TOTAL (P%), RATE MB/s, ETA [H:]MM:SS
 *   gpusort: PHASE: DONE, RATE MB/s                    (total not known)
 *   gpusort: done: BYTES in SECONDS s, RATE MB/s       (PROGRESS_DONE)
 * PHASE is read, sort, spill, merge pass K of M or write; sizes as
 * util_fmt_bytes writes them; P rounded down (100 only when all is done);
 * RATE the phase's bytes over its elapsed time (10^6 bytes/s); ETA the
 * rest of the phase at that rate ("--:--" before its first byte).
 * Returns the line's length.
 */
size_t progress_format(char *buf, size_t cap, const progress_line *l);

#endif
