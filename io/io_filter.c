/*
 * io_filter.c - filter processes for gpusort --compress-program; see io.h.
 * posix_spawnp rather than fork: it reports a program that cannot be run
 * as an error here (glibc waits for the exec), not as a child that dies.
 */
#define _GNU_SOURCE
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int io_filter_start(io_filter *z, const char *prog, const char *arg, int fd, int to_file, const char *name)
{
	int p[2], rc;
	memset(z, 0, sizeof *z);
	z->f.fd = z->f.dfd = -1;
	snprintf(z->f.name, sizeof z->f.name, "%s", name);
	/* close-on-exec from birth: another filter started meanwhile must not
	 * inherit our end, or this one would never see the end of its input */
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	if (!to_file && lseek(fd, 0, SEEK_SET) < 0) {
		rc = -errno;
		goto fail;
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	if ((rc = posix_spawn_file_actions_init(&fa))) {
		rc = -rc;
		goto fail;
	}
	if ((rc = posix_spawnattr_init(&at))) {
		posix_spawn_file_actions_destroy(&fa);
		rc = -rc;
		goto fail;
	}
	/* the child's standard input and output; dup2 clears close-on-exec */
	int in = to_file ? p[0] : fd, out = to_file ? fd : p[1];
	posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
	/* the caller's thread may block SIGPIPE (io_file.filter writes): the
	 * program starts with none blocked and every signal at its default */
	sigset_t none, all;
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	char *argv[3] = { (char *)prog, (char *)arg, NULL };
	pid_t pid;
	rc = posix_spawnp(&pid, prog, &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc) {
		rc = -rc;
		goto fail;
	}
	z->pid = pid;
	z->reading = !to_file;
	z->f.fd = to_file ? p[1] : p[0];
	z->f.owned = 1;
	z->f.filter = 1;
	close(to_file ? p[0] : p[1]);
	return 0;
fail:
	close(p[0]);
	close(p[1]);
	return rc;
}

/* Wait for z's process; 0, -errno, or its wait status when not a clean exit. */
static int reap(io_filter *z)
{
	int st;
	pid_t r;
	while ((r = waitpid(z->pid, &st, 0)) < 0 && errno == EINTR)
		;
	z->pid = 0;
	if (r < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : (st ? st : 1);
}

int io_filter_finish(io_filter *z, uint64_t *extra)
{
	if (extra)
		*extra = 0;
	if (!z->pid)
		return 0;
	if (z->reading && z->f.fd >= 0) {
		/* to its end: the process has then written everything, and a
		 * longer output than expected is seen */
		char buf[4096];
		ssize_t n;
		while ((n = read(z->f.fd, buf, sizeof buf)) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			if (extra)
				*extra += (uint64_t)n;
		}
	}
	io_close(&z->f);
	return reap(z);
}

void io_filter_kill(io_filter *z)
{
	if (!z->pid)
		return; /* also a zeroed z: its f is no descriptor of ours */
	io_close(&z->f);
	kill(z->pid, SIGTERM);
	(void)reap(z);
}

const char *io_filter_how(int st, char *buf, size_t n)
{
	if (WIFSIGNALED(st))
		snprintf(buf, n, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, n, "exited with status %d", WIFEXITED(st) ? WEXITSTATUS(st) : st);
	return buf;
}
