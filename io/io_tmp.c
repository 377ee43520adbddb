/*
 * io_tmp.c - temp paths removed on SIGINT/SIGTERM/SIGHUP, and the stale
 * ones a killed run left removed on request (gpusort --clean-temp).
 * Spill files are unlinked right after creation, so only the atomic
 * output's temp file, a spill file in its first microseconds and, when
 * descriptors are short, text runs named in -T are here.
 * The handlers only call async-signal-safe functions (unlink, signal,
 * raise, write, _exit); SIGBUS's is for a mapped input that shrinks.
 */
#define _GNU_SOURCE
#include "io.h"
#include "io_fault.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * The registry: blocks of slots, added as they fill (a sort may hold a
 * run named in -T for every chunk when descriptors are short: thousands),
 * never moved or freed, so that a handler on any thread can walk them
 * while another thread registers. A slot's path buffer is only replaced
 * while the slot is free, and its flag set once the path is in it.
 */
#define BLOCK_SLOTS 1024
#define MAX_BLOCKS 1024 /* 1 M registered paths at once */

typedef struct tmp_block {
	char *path[BLOCK_SLOTS];
	size_t cap[BLOCK_SLOTS];
	volatile sig_atomic_t used[BLOCK_SLOTS];
} tmp_block;

static tmp_block *blocks[MAX_BLOCKS];
static atomic_int nblocks;
static int *free_slots; /* slots given back, reused first */
static size_t nfree, free_cap;
static int next_slot; /* slots below it have been handed out at least once */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* The next slot to use, its block added when needed; -ENOSPC or -ENOMEM. Under mu. */
static int take_slot(void)
{
	if (nfree)
		return free_slots[--nfree];
	int b = next_slot / BLOCK_SLOTS;
	if (b == MAX_BLOCKS)
		return -ENOSPC;
	if (b == atomic_load(&nblocks)) {
		tmp_block *nb = calloc(1, sizeof *nb);
		if (!nb)
			return -ENOMEM;
		blocks[b] = nb;
		atomic_store(&nblocks, b + 1); /* published once in place */
	}
	return next_slot++;
}

int io_tmp_register(const char *path)
{
	size_t len = strlen(path) + 1;
	pthread_mutex_lock(&mu);
	int reused = nfree > 0, slot = take_slot();
	if (slot < 0) {
		pthread_mutex_unlock(&mu);
		return slot;
	}
	tmp_block *b = blocks[slot / BLOCK_SLOTS];
	int i = slot % BLOCK_SLOTS;
	if (b->cap[i] < len) {
		/* the old buffer is not freed: a handler that saw the slot in use a
		 * moment ago may still be reading it */
		char *p = malloc(len < 256 ? 256 : len);
		if (!p) { /* the slot handed back: to the free list (still in it) or the new ones */
			if (reused)
				nfree++;
			else
				next_slot--;
			pthread_mutex_unlock(&mu);
			return -ENOMEM;
		}
		b->path[i] = p;
		b->cap[i] = len < 256 ? 256 : len;
	}
	memcpy(b->path[i], path, len);
	atomic_signal_fence(memory_order_seq_cst);
	b->used[i] = 1;
	pthread_mutex_unlock(&mu);
	return slot;
}

void io_tmp_unregister(int slot)
{
	if (slot < 0)
		return;
	pthread_mutex_lock(&mu);
	if (slot < next_slot && blocks[slot / BLOCK_SLOTS]->used[slot % BLOCK_SLOTS]) {
		blocks[slot / BLOCK_SLOTS]->used[slot % BLOCK_SLOTS] = 0;
		if (nfree == free_cap) {
			size_t cap = free_cap ? 2 * free_cap : 64;
			int *f = realloc(free_slots, cap * sizeof *f);
			if (!f) { /* the slot stays out of use: a few bytes lost, nothing else */
				pthread_mutex_unlock(&mu);
				return;
			}
			free_slots = f;
			free_cap = cap;
		}
		free_slots[nfree++] = slot;
	}
	pthread_mutex_unlock(&mu);
}

/*
 * A file made and registered is removed by a handler on any thread: the
 * handler sets dying, waits for the makers in flight (creating) to have
 * registered theirs, then removes every registered path; a maker that
 * starts after dying is set makes nothing. The handled signals are blocked
 * on the making thread, so that the handler never waits for itself.
 */
static atomic_int dying, creating;

int io_tmp_mkstemp(char *tmpl, int flags, int *slot)
{
	sigset_t sigs, old;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);
	atomic_fetch_add(&creating, 1);
	int fd = -EINTR;
	*slot = -1;
	if (!atomic_load(&dying)) {
		fd = io_fault_sys(IO_FAULT_OPEN) ? -1 : mkostemp(tmpl, flags);
		if (fd < 0)
			fd = -errno;
		else
			*slot = io_tmp_register(tmpl); /* none (no memory): removed at the end all the same */
	}
	atomic_fetch_sub(&creating, 1);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return fd;
}

/* Remove every registered path: async-signal-safe (unlink, nanosleep). */
static void unlink_registered(void)
{
	atomic_store(&dying, 1);
	struct timespec ms = { 0, 1000000 };
	for (int i = 0; i < 1000 && atomic_load(&creating); i++)
		nanosleep(&ms, NULL);
	int n = atomic_load(&nblocks);
	for (int b = 0; b < n; b++)
		for (int i = 0; i < BLOCK_SLOTS; i++)
			if (blocks[b]->used[i])
				unlink(blocks[b]->path[i]);
}

static void on_signal(int sig)
{
	unlink_registered();
	signal(sig, SIG_DFL);
	raise(sig);
}

static char bus_msg[4096];
static size_t bus_len;

static atomic_flag bus_once = ATOMIC_FLAG_INIT;

static void on_sigbus(int sig)
{
	(void)sig;
	/* several threads storing into the mapping fault at once: one says
	 * so and ends the process, the others wait for that */
	if (atomic_flag_test_and_set(&bus_once))
		for (;;)
			pause();
	unlink_registered();
	ssize_t k = write(STDERR_FILENO, bus_msg, bus_len);
	(void)k;
	_exit(2);
}

int io_sigbus_install(const char *msg)
{
	struct sigaction sa;
	size_t n = strlen(msg);
	bus_len = n < sizeof bus_msg ? n : sizeof bus_msg;
	memcpy(bus_msg, msg, bus_len);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigbus;
	sigfillset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL) ? -errno : 0;
}

void io_signals_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigfillset(&sa.sa_mask);
		/* keep "ignored" dispositions (nohup, background jobs) */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* The pid in "PID.XXXXXX" (6 letters or digits), or 0. */
static long tagged_pid(const char *p)
{
	char *end;
	long pid = strtol(p, &end, 10);
	if (pid <= 0 || end == p || *p < '0' || *p > '9' || *end != '.' || strlen(end + 1) != 6)
		return 0;
	for (const char *q = end + 1; *q; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')))
			return 0;
	return pid;
}

/* The pid in a temporary output's or a named run's name, or 0 when name is neither. */
static long stale_pid(const char *name)
{
	if (!strncmp(name, IO_RUN_TAG, strlen(IO_RUN_TAG)))
		return tagged_pid(name + strlen(IO_RUN_TAG));
	if (name[0] != '.')
		return 0;
	const char *t = NULL;
	for (const char *p = strstr(name, IO_TMP_TAG); p; p = strstr(p + 1, IO_TMP_TAG))
		t = p; /* the last tag: the target's own name may hold one */
	return t ? tagged_pid(t + strlen(IO_TMP_TAG)) : 0;
}

int io_clean_stale(const char *dir, int *removed, char *bad, size_t badlen)
{
	*removed = 0;
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(bad, badlen, "%s", dir);
		return -errno;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		long pid = stale_pid(e->d_name);
		struct stat st;
		if (!pid || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (geteuid() != 0 && st.st_uid != geteuid())
			continue; /* another user's: theirs to clean */
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* its process (or one with its id) is alive */
		if (unlinkat(dirfd(d), e->d_name, 0) != 0) {
			rc = -errno;
			snprintf(bad, badlen, "%s/%s", dir, e->d_name);
			break;
		}
		++*removed;
	}
	closedir(d);
	return rc;
}
