/* io_fault.c - the test build's fault injection; see io_fault.h. */
#define _GNU_SOURCE /* truncate */
#include "io_fault.h"

#if !GPUSORT_TEST_HOOKS
#error "io_fault.c belongs to the test build only (GPUSORT_TEST_HOOKS=1)"
#endif

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const kind_name[IO_FAULT_KINDS] = {
	"open", "read", "write", "fsync", "rename", "pin", "gpu-alloc", "gpu-launch", "gpu-copy", "gpu-sync",
};

static const char *const switches[] = {
	"fixed-enomem", "fixed-dense", "corrupt-spill", "gpu-oom", "gpu-oom-prefetched",
	"input-changes", "reopen-emfile", "fsync-eio", "gpu-fail", "gpu-fail-merge", "output-shrinks",
	"run-shrinks",
};

static const struct {
	const char *name;
	int err;
} errs[] = {
	{ "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EINTR", EINTR }, { "EACCES", EACCES },
	{ "EMFILE", EMFILE }, { "ENOMEM", ENOMEM }, { "EROFS", EROFS }, { "EDQUOT", EDQUOT },
	{ "EINVAL", EINVAL },
};

static char fault[64];     /* the named switch in force; "": none */
static int at_kind = -1;   /* KIND@N: the kind, -1 for none */
static unsigned long at_n; /* N */
static int at_on;          /* "KIND@N+": every call from the Nth on fails */
static int at_res;         /* what io_fault_hit answers the Nth call */
static atomic_ulong calls[IO_FAULT_KINDS];
static atomic_ulong fired; /* calls failed */
static char report_path[4096];

/* "KIND@N[+][:ERR]" into at_kind, at_n, at_on, at_res; 0 or -EINVAL. */
static int parse_at(const char *s)
{
	const char *at = strchr(s, '@');
	if (!at)
		return -EINVAL;
	int k = 0;
	while (k < IO_FAULT_KINDS && (strlen(kind_name[k]) != (size_t)(at - s) || strncmp(s, kind_name[k], (size_t)(at - s))))
		k++;
	char *end;
	unsigned long n = strtoul(at + 1, &end, 10);
	int on = *end == '+';
	end += on;
	if (k == IO_FAULT_KINDS || end == at + 1 + on || n == 0 || (*end && *end != ':'))
		return -EINVAL;
	int res = -EIO;
	if (*end == ':') {
		const char *e = end + 1;
		size_t i = 0;
		while (i < sizeof errs / sizeof errs[0] && strcmp(e, errs[i].name))
			i++;
		if (!strcmp(e, "short"))
			res = IO_FAULT_SHORT;
		else if (i < sizeof errs / sizeof errs[0])
			res = -errs[i].err;
		else
			return -EINVAL;
	}
	if (on && res == IO_FAULT_SHORT) /* every later call short: nothing could finish */
		return -EINVAL;
	at_kind = k;
	at_n = n;
	at_on = on;
	at_res = res;
	return 0;
}

int io_fault_set(const char *what)
{
	fault[0] = 0;
	at_kind = -1;
	atomic_store(&fired, 0);
	for (int k = 0; k < IO_FAULT_KINDS; k++)
		atomic_store(&calls[k], 0);
	if (!what || !*what)
		return 0;
	for (size_t i = 0; i < sizeof switches / sizeof switches[0]; i++)
		if (!strcmp(what, switches[i])) {
			strcpy(fault, what);
			return 0;
		}
	return parse_at(what);
}

int io_fault_is(const char *what)
{
	return fault[0] && !strcmp(fault, what);
}

void io_fault_change_input(const char *path, uint64_t size)
{
	static int done;
	if (done || !io_fault_is("input-changes"))
		return;
	done = truncate(path, (off_t)size) == 0; /* failed: the next call tries again */
}

int io_fault_hit(enum io_fault_kind kind)
{
	unsigned long n = atomic_fetch_add(&calls[kind], 1) + 1;
	if ((int)kind != at_kind || n < at_n || (n > at_n && !at_on))
		return 0;
	atomic_fetch_add(&fired, 1);
	return at_res;
}

static void write_report(void)
{
	FILE *f = fopen(report_path, "w");
	if (!f)
		return;
	for (int k = 0; k < IO_FAULT_KINDS; k++)
		fprintf(f, "%s %lu\n", kind_name[k], atomic_load(&calls[k]));
	if (atomic_load(&fired))
		fprintf(f, "fired %s@%lu%s %lu\n", kind_name[at_kind], at_n, at_on ? "+" : "", atomic_load(&fired));
	fclose(f);
}

int io_fault_report(const char *path)
{
	if (!path || !*path || strlen(path) >= sizeof report_path)
		return 0;
	strcpy(report_path, path);
	return atexit(write_report) ? -ENOMEM : 0;
}
