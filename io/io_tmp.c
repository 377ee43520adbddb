/*
 * io_tmp.c - temp paths removed on SIGINT/SIGTERM/SIGHUP.
 * Spill files are unlinked right after creation, so only the atomic
 * output's temp file (and a spill file in its first microseconds) is here.
 * The handler only calls async-signal-safe functions (unlink, signal, raise).
 */
#define _GNU_SOURCE
#include "io.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
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
