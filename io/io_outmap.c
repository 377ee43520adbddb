/* io_outmap.c - the output's next bytes mapped for writing by several threads (io.h). */
#define _GNU_SOURCE
#include "io.h"
#include "io_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int io_outmap_open(io_outmap *m, int fd, uint64_t bytes)
{
	memset(m, 0, sizeof *m);
	m->fd = -1;
	off_t at = lseek(fd, 0, SEEK_CUR);
	if (at < 0)
		return errno == ESPIPE ? -EOPNOTSUPP : -errno; /* a pipe, a socket */
	int rc = io_outmap_open_at(m, fd, (uint64_t)at, bytes);
	m->seek = 1;
	return rc;
}

int io_outmap_open_at(io_outmap *m, int fd, uint64_t at_, uint64_t bytes)
{
	memset(m, 0, sizeof *m);
	m->fd = -1;
	struct stat st;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fstat(fd, &st) < 0)
		return -errno;
	/* an appending descriptor writes at the end, wherever its offset is */
	if (!S_ISREG(st.st_mode) || (fl & O_APPEND) || !bytes || bytes > SIZE_MAX / 2 || at_ > (uint64_t)INT64_MAX / 2)
		return -EOPNOTSUPP;
	off_t at = (off_t)at_;
	/* a shared writable mapping needs a descriptor open for reading too:
	 * a write-only one (a shell's `>`) is reopened read-write */
	int mfd = fd;
	if ((fl & O_ACCMODE) != O_RDWR) {
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		if ((mfd = open(path, O_RDWR | O_CLOEXEC)) < 0)
			return -errno;
		struct stat st2;
		if (fstat(mfd, &st2) < 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
			close(mfd);
			return -EOPNOTSUPP;
		}
	}
	/* the blocks allocated before any store: a store into a hole of a full
	 * disk would raise SIGBUS, where write(2) returns ENOSPC. fallocate
	 * grows the file to at + bytes and keeps anything beyond, as writes
	 * would; where it fails, the caller writes instead (and meets the
	 * same error, if it is one), the file cut back to its size */
	int rc = 0;
	errno = 0;
	if (io_fault_sys(IO_FAULT_WRITE) || fallocate(mfd, 0, at, (off_t)bytes) < 0) {
		rc = errno ? -errno : -EIO;
		if (st.st_size < at + (off_t)bytes)
			(void)!ftruncate(mfd, st.st_size);
	}
	long pg = sysconf(_SC_PAGESIZE);
	size_t skew = (size_t)(at % pg), len = skew + (size_t)bytes;
	void *p = rc ? MAP_FAILED : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, at - (off_t)skew);
	if (!rc && p == MAP_FAILED)
		rc = -errno;
	if (mfd != fd)
		close(mfd);
	if (rc)
		return rc;
	/* large folios where the file system has them: fewer faults, and
	 * 10 GiB of lines gathered into it on 16 threads took 1.7 s, not 2.0 s
	 * (bench/results/h200-outmap-2026-11-26.md); a hint, so no error */
	(void)madvise(p, len, MADV_HUGEPAGE);
	m->map = p;
	m->maplen = len;
	m->base = (uint8_t *)p + skew;
	m->bytes = (size_t)bytes;
	m->fd = fd;
	m->at = (uint64_t)at;
	m->size0 = st.st_size < at + (off_t)bytes ? (int64_t)st.st_size : -1;
	return 0;
}

int io_outmap_close(io_outmap *m, uint64_t written)
{
	if (!m->map)
		return 0;
	int rc = munmap(m->map, m->maplen) ? -errno : 0;
	uint64_t end = m->at + (written < m->bytes ? written : m->bytes);
	if (written < m->bytes && m->size0 >= 0) {
		uint64_t keep = end > (uint64_t)m->size0 ? end : (uint64_t)m->size0;
		if (ftruncate(m->fd, (off_t)keep) < 0 && !rc)
			rc = -errno;
	}
	if (m->seek && lseek(m->fd, (off_t)end, SEEK_SET) < 0 && !rc)
		rc = -errno;
	m->map = NULL;
	return rc;
}

int io_outmap_writeback(const io_outmap *m, uint64_t from, uint64_t to)
{
	if (!m->map || to > m->bytes)
		return -EINVAL;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), a = m->at + from, b = m->at + to;
	a = (a + pg - 1) / pg * pg;
	b = b / pg * pg;
	if (b <= a)
		return 0;
	return sync_file_range(m->fd, (off_t)a, (off_t)(b - a), SYNC_FILE_RANGE_WRITE) ? -errno : 0;
}
