/*
 * io_fault.h - fault injection for the tests, compiled only into the test
 * build (GPUSORT_TEST_HOOKS=1: tests/bin/gpusort-test, the fake-GPU build and
 * the unit tests; tests/README.md). Without it io_fault_is and io_fault_hit
 * are 0 at compile time, so the installed gpusort holds no fault code.
 *
 * Two kinds of fault. Named switches, in force for the whole run:
 *   fixed-enomem        io_ring_register fails with -ENOMEM, as RLIMIT_MEMLOCK
 *                       does for an unprivileged user
 *   fixed-dense         io_ring_register gets no sparse buffer table, as on
 *                       kernels before 5.19
 *   corrupt-spill       the merge flips a byte of spilled data it reads back
 *   gpu-oom             the device refuses chunks of more than 100000 records
 *   gpu-oom-prefetched  the device refuses, once, the first chunk that was
 *                       prefetched, after all its pieces are there
 *   input-changes       the first regular input is truncated to half once
 *                       some of it was read (src/inputs.c)
 *   reopen-emfile       the chunked reader's opening of the second and later
 *                       inputs fails with EMFILE (src/inputs.c)
 *   fsync-eio           --sync's flush of the output fails with EIO
 *   gpu-fail            the device's first sort fails as a failed launch would
 *   gpu-fail-merge      the GPU merge's first group fails likewise
 *   run-shrinks         a text run read back through a mapping is cut to half
 *                       as soon as it is mapped (src/text_io.c): SIGBUS
 * and the Nth call of a kind fails, once: "KIND@N[:ERR]" (N >= 1), or
 * every call from the Nth on, as a full or broken disk or a dead device
 * would: "KIND@N+[:ERR]". KIND is one of io_fault_kind's names below, ERR
 * an errno name (EIO, ENOSPC, EINTR, EACCES, EMFILE, ENOMEM, EROFS,
 * EDQUOT, EINVAL) or "short" (a read or write moves fewer bytes than asked, half;
 * the caller must carry on; once only), by default EIO.
 * Every call of every kind is counted (C11 atomics: any thread), whether a
 * fault is in force or not, so that a test can learn how many calls of
 * each kind a command makes (io_fault_report) and then fail each in turn.
 */
#ifndef GPUSORT_IO_FAULT_H
#define GPUSORT_IO_FAULT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* What is counted, one call each, where the call is made. */
enum io_fault_kind {
	IO_FAULT_OPEN,       /* "open": open(2), mkostemp(3) of inputs, spills, the output */
	IO_FAULT_READ,       /* "read": a read(2)/pread(2), or one io_uring read completion */
	IO_FAULT_WRITE,      /* "write": a write(2)/pwrite(2), or one io_uring write completion */
	IO_FAULT_FSYNC,      /* "fsync": --sync's fsync(2) of the output and its directory */
	IO_FAULT_RENAME,     /* "rename": the output's rename(2) over the target */
	IO_FAULT_PIN,        /* "pin": gpu_host_register (tests/fake_gpu.c) */
	IO_FAULT_GPU_ALLOC,  /* "gpu-alloc": gpu_open's device reservation, gpu_host_alloc */
	IO_FAULT_GPU_LAUNCH, /* "gpu-launch": gpu_sort_chunk, gpu_resident_sort, gpu_resident_merge */
	IO_FAULT_GPU_COPY,   /* "gpu-copy": gpu_resident_put, gpu_resident_get */
	IO_FAULT_GPU_SYNC,   /* "gpu-sync": gpu_slot_wait, gpu_resident_end */
	IO_FAULT_KINDS
};

/* io_fault_hit's answer for ERR "short". */
#define IO_FAULT_SHORT 1

#if GPUSORT_TEST_HOOKS
/*
 * Make `what` (a named switch or "KIND@N[:ERR]"; NULL or "" for none) the
 * fault in force, and zero the call counts. Process-wide and not
 * synchronized: call it before the I/O and device work it affects starts.
 * Returns 0, or -EINVAL for a spec that names nothing known (then no
 * fault is in force), so that a test's typo cannot pass as a fault.
 */
int io_fault_set(const char *what);
/* 1 when the named switch in force is `what`, else 0. */
int io_fault_is(const char *what);
/*
 * The switch input-changes: the first call (of the process) cuts file path
 * to size bytes, as a user's truncate(1) from another shell would; later
 * calls, or another switch, do nothing.
 */
void io_fault_change_input(const char *path, uint64_t size);
/*
 * Count one call of `kind` about to be made. Returns 0 (make the call),
 * a negative errno (fail it with that error instead: the Nth call of the
 * kind in force), or IO_FAULT_SHORT (the Nth call, ERR "short": move fewer
 * bytes than asked). Thread-safe.
 */
int io_fault_hit(enum io_fault_kind kind);
/*
 * At exit, write to `path` (NULL or "": nothing) one line "KIND COUNT"
 * per kind, then "fired KIND@N[+] TIMES" when the fault in force was
 * injected (TIMES: how many calls it failed).
 * Returns 0 or -errno (atexit refused).
 */
int io_fault_report(const char *path);
#else
static inline int io_fault_is(const char *what)
{
	(void)what;
	return 0;
}
static inline void io_fault_change_input(const char *path, uint64_t size)
{
	(void)path;
	(void)size;
}
static inline int io_fault_hit(enum io_fault_kind kind)
{
	(void)kind;
	return 0;
}
#endif

/*
 * A read or write of *len bytes about to be made, through the fault layer:
 * 0 to make it (*len halved, when above 1, for a short transfer), or -1
 * with errno set to make the call fail with it instead. In the production
 * build this is 0 and *len unchanged, at compile time.
 */
static inline int io_fault_rw(enum io_fault_kind kind, size_t *len)
{
	int f = io_fault_hit(kind);
	if (f == IO_FAULT_SHORT && *len > 1)
		*len /= 2;
	if (f >= 0)
		return 0;
	errno = -f;
	return -1;
}

/*
 * Before a call of `kind` whose failure is -1 with errno (open, fsync,
 * rename): 0 to make it, or -1 with errno set (a short answer counts as
 * EIO here: these calls move no bytes).
 */
static inline int io_fault_sys(enum io_fault_kind kind)
{
	int f = io_fault_hit(kind);
	if (!f)
		return 0;
	errno = f < 0 ? -f : EIO;
	return -1;
}

#endif
