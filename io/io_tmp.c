/*
 * io_tmp.c - temp paths removed on SIGINT/SIGTERM/SIGHUP, and the stale
 * ones a killed run left removed on request (gpusort --clean-temp).
 * Spill files are unlinked right after creation, so only the atomic
 * output's temp file (and a spill file in its first microseconds) is here.
 * The handlers only call async-signal-safe functions (unlink, signal,
 * raise, write, _exit); SIGBUS's is for a mapped input that shrinks.
 */
#define _GNU_SOURCE
#include "io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLOTS 64

static char paths[SLOTS][4096];
static volatile sig_atomic_t used[SLOTS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

int io_tmp_register(const char *path)
{
	pthread_mutex_lock(&mu);
	for (int i = 0; i < SLOTS; i++) {
		if (!used[i]) {
			strncpy(paths[i], path, sizeof paths[i] - 1);
			used[i] = 1;
			pthread_mutex_unlock(&mu);
			return i;
		}
	}
	pthread_mutex_unlock(&mu);
	return -ENOSPC;
}

void io_tmp_unregister(int slot)
{
	if (slot >= 0 && slot < SLOTS)
		used[slot] = 0;
}

static void on_signal(int sig)
{
	for (int i = 0; i < SLOTS; i++)
		if (used[i])
			unlink(paths[i]);
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
	for (int i = 0; i < SLOTS; i++)
		if (used[i])
			unlink(paths[i]);
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

/* The pid in a temporary output's name, or 0 when name is not one. */
static long stale_pid(const char *name)
{
	if (name[0] != '.')
		return 0;
	const char *t = NULL;
	for (const char *p = strstr(name, IO_TMP_TAG); p; p = strstr(p + 1, IO_TMP_TAG))
		t = p; /* the last tag: the target's own name may hold one */
	if (!t)
		return 0;
	char *end;
	long pid = strtol(t + strlen(IO_TMP_TAG), &end, 10);
	if (pid <= 0 || end == t + strlen(IO_TMP_TAG) || *end != '.' || strlen(end + 1) != 6)
		return 0;
	for (const char *q = end + 1; *q; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')))
			return 0;
	return pid;
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
