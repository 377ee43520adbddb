/*
 * io_fault.h - fault injection for the tests, compiled only into the test
 * build (GPUSORT_TEST_HOOKS=1: tests/bin/gpusort-test, the fake-GPU build and
 * the unit tests; tests/README.md). Without it io_fault_is is 0 at compile
 * time, so the installed gpusort holds no fault code. The faults, by name:
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
 */
#ifndef GPUSORT_IO_FAULT_H
#define GPUSORT_IO_FAULT_H

#if GPUSORT_TEST_HOOKS
/*
 * Make `what` (one of the names above; NULL or "" for none; at most 63
 * bytes, longer names match nothing) the fault in force. Process-wide and
 * not synchronized: call it before the I/O and device work it affects starts.
 */
void io_fault_set(const char *what);
/* 1 when the fault in force is `what`, else 0. */
int io_fault_is(const char *what);
#else
static inline int io_fault_is(const char *what)
{
	(void)what;
	return 0;
}
#endif

#endif
