/* io_file.c - inputs, appends, spill files and atomic output; see io.h. */
#define _GNU_SOURCE
#include "io.h"
#include "io_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

ssize_t io_ring_xfer(io_ring *r, int fd, void *buf, size_t len, uint64_t off, int wr);

static int aligned(uint64_t x)
{
	return (x & (IO_ALIGN - 1)) == 0;
}

size_t io_align_records(size_t record_size)
{
	size_t a = IO_ALIGN, b = record_size;
	while (b) {
		size_t t = a % b;
		a = b;
		b = t;
	}
	return IO_ALIGN / a;
}

/* O_DIRECT is opt-in (io.h io_set_direct): the page cache is faster unless
 * the data is much larger than RAM. */
static int direct; /* IO_DIRECT_* */

void io_set_direct(int mode)
{
	direct = mode;
}

int io_direct_allowed(void)
{
	return direct == IO_DIRECT_ALL;
}

int io_direct_spill(void)
{
	return direct != IO_DIRECT_OFF;
}

static void file_init(io_file *f, const char *name)
{
	memset(f, 0, sizeof *f);
	f->fd = f->dfd = -1;
	snprintf(f->name, sizeof f->name, "%s", name);
}

uint8_t *io_map_lines(int fd, uint64_t off, size_t size, unsigned char eol, void **base, size_t *len, int *added)
{
	const size_t pg = (size_t)sysconf(_SC_PAGESIZE), skew = (size_t)(off % pg);
	const size_t flen = (skew + size + pg - 1) / pg * pg, all = (skew + size + 1 + pg - 1) / pg * pg;
	if (!size) {
		errno = EINVAL;
		return NULL;
	}
	/* an anonymous reservation, the file over its start: the page after
	 * the file's last byte is there for a delimiter it may lack */
	uint8_t *b = mmap(NULL, all, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (b == MAP_FAILED)
		return NULL;
	if (mmap(b, flen, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, (off_t)(off - skew)) == MAP_FAILED) {
		int e = errno;
		munmap(b, all);
		errno = e;
		return NULL;
	}
	uint8_t *data = b + skew;
	*added = 0;
	if (data[size - 1] != eol) {
		uint8_t *page = b + (skew + size) / pg * pg;
		if (mprotect(page, pg, PROT_READ | PROT_WRITE)) {
			int e = errno;
			munmap(b, all);
			errno = e;
			return NULL;
		}
		data[size] = eol;
		(void)mprotect(page, pg, PROT_READ);
		*added = 1;
	}
	*base = b;
	*len = all;
	return data;
}

int io_map_regular(int fd, const uint8_t **p, size_t *size)
{
	struct stat st;
	void *m = MAP_FAILED;
	if (fd < 0)
		return 1;
	int regular = !fstat(fd, &st) && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= SIZE_MAX;
	if (regular && st.st_size > 0)
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (!regular || (st.st_size > 0 && m == MAP_FAILED))
		return 1;
	*p = st.st_size > 0 ? m : NULL;
	*size = (size_t)st.st_size;
	return 0;
}

int io_fd_changed(int fd, uint64_t size, int64_t mtime_ns)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return (uint64_t)st.st_size != size || mt != mtime_ns;
}

int io_input_changed(const io_file *f)
{
	return io_fd_changed(f->fd, f->size, f->mtime_ns);
}

/*
 * A pipe we read: its buffer raised from the default 64 KiB to IO_PIPE_BYTES
 * (the unprivileged limit, /proc/sys/fs/pipe-max-size, is 1 MiB by default),
 * so that a producer writing large blocks is not made to wait for each 64
 * KiB we take. Best effort: a lower limit, or a pipe another reader shares,
 * leaves it as it is.
 */
static void pipe_enlarge(int fd)
{
#ifdef F_SETPIPE_SZ
	int cur = fcntl(fd, F_GETPIPE_SZ);
	if (cur >= 0 && cur < (int)IO_PIPE_BYTES)
		(void)fcntl(fd, F_SETPIPE_SZ, (int)IO_PIPE_BYTES);
#else
	(void)fd;
#endif
}

int io_open_input(io_file *f, const char *path)
{
	struct stat st;
	file_init(f, path);
	if (!strcmp(path, "-")) {
		f->fd = STDIN_FILENO;
	} else {
		f->fd = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(path, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0)
			return -errno;
		f->owned = 1;
	}
	if (fstat(f->fd, &st) < 0) {
		int e = -errno;
		io_close(f);
		return e;
	}
	if (S_ISDIR(st.st_mode)) {
		io_close(f);
		return -EISDIR;
	}
	f->regular = S_ISREG(st.st_mode);
	if (S_ISFIFO(st.st_mode))
		pipe_enlarge(f->fd);
	if (f->regular) {
		f->size = (uint64_t)st.st_size;
		f->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		f->dev = (uint64_t)st.st_dev;
		f->ino = (uint64_t)st.st_ino;
		/* stdin redirected from a file may not start at offset 0 */
		off_t cur = lseek(f->fd, 0, SEEK_CUR);
		f->pos = cur > 0 ? (uint64_t)cur : 0;
		if (f->owned && io_direct_allowed())
			f->dfd = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	}
	return 0;
}

static ssize_t read_stream(int fd, void *buf, size_t len)
{
	size_t done = 0;
	while (done < len) {
		size_t m = len - done;
		ssize_t n = io_fault_rw(IO_FAULT_READ, &m) ? -1 : read(fd, (char *)buf + done, m);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t io_read_ready(io_file *f, void *buf, size_t len, int wait_ms)
{
	if (f->eof)
		return 0;
	struct pollfd pfd = { .fd = f->fd, .events = POLLIN };
	int ready;
	while ((ready = poll(&pfd, 1, wait_ms)) < 0)
		if (errno != EINTR)
			return -errno;
	if (!ready)
		return 0;
	for (;;) {
		size_t m = len;
		ssize_t n = io_fault_rw(IO_FAULT_READ, &m) ? -1 : read(f->fd, buf, m);
		if (n >= 0) {
			f->pos += (uint64_t)n;
			f->eof = n == 0;
			return n;
		}
		if (errno != EINTR)
			return -errno;
	}
}

ssize_t io_read_at(io_ring *r, io_file *f, void *buf, size_t len, size_t cap, uint64_t off)
{
	if (!f->regular)
		return -ESPIPE;
	size_t done = 0;
	if (f->dfd >= 0 && aligned((uintptr_t)buf) && aligned(off)) {
		/* O_DIRECT: whole blocks; the last block rounded up when the buffer has room */
		size_t dlen = len & ~(size_t)(IO_ALIGN - 1);
		size_t up = (len + IO_ALIGN - 1) & ~(size_t)(IO_ALIGN - 1);
		if (up <= cap)
			dlen = up;
		if (dlen) {
			ssize_t n = io_ring_xfer(r, f->dfd, buf, dlen, off, 0);
			if (n < 0 && n != -EINVAL)
				return n;
			if (n >= 0) {
				done = (size_t)n < len ? (size_t)n : len;
				if ((size_t)n < dlen)
					return (ssize_t)done; /* end of file */
			}
		}
	}
	if (done < len) {
		ssize_t n = io_ring_xfer(r, f->fd, (char *)buf + done, len - done, off + done, 0);
		if (n < 0)
			return n;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t io_read_next(io_ring *r, io_file *f, void *buf, size_t len, size_t cap)
{
	ssize_t n;
	if (f->eof)
		return 0;
	if (f->regular) {
		if (len > f->size - f->pos)
			len = (size_t)(f->size - f->pos);
		n = io_read_at(r, f, buf, len, cap, f->pos);
	}
	else
		n = read_stream(f->fd, buf, len);
	if (n < 0)
		return n;
	f->pos += (uint64_t)n;
	/* a regular file ends at its size when opened: a writer appending
	 * meanwhile does not make the sort chase it */
	if ((size_t)n < len || (f->regular && f->pos >= f->size))
		f->eof = 1;
	return n;
}

static int write_stream(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	while (done < len) {
		size_t m = len - done;
		ssize_t n = io_fault_rw(IO_FAULT_WRITE, &m) ? -1 : write(fd, (const char *)buf + done, m);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

/*
 * Give fd the extended attributes of the file at path, POSIX ACLs among
 * them (system.posix_acl_*), so that a replaced output keeps them. Best
 * effort, like the owner: an attribute this process may not set (trusted.*
 * unless root) or that fd's file system does not take is skipped.
 */
static void copy_xattrs(const char *path, int fd)
{
	char names[8192], value[8192];
	ssize_t len = listxattr(path, names, sizeof names);
	for (ssize_t at = 0; len > 0 && at < len; at += (ssize_t)strlen(names + at) + 1) {
		ssize_t v = getxattr(path, names + at, value, sizeof value);
		if (v >= 0)
			(void)fsetxattr(fd, names + at, value, (size_t)v, 0);
	}
}

/*
 * write_stream to a filter's pipe: a filter that died (a compressor that
 * failed) must be an error, -EPIPE, that names it, not a SIGPIPE that kills
 * gpusort with its temp output in place. So SIGPIPE is blocked on this
 * thread for the write, and one it raised is taken back before the mask is
 * restored (unless one was pending already: that one stays).
 */
static int write_filter(int fd, const void *buf, size_t len)
{
	sigset_t pipe_set, old, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	int was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	int rc = write_stream(fd, buf, len);
	if (rc == -EPIPE && !was_pending) {
		struct timespec zero = { 0, 0 };
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int io_write_next(io_ring *r, io_file *f, const void *buf, size_t len)
{
	if (!f->regular) {
		int rc = f->filter ? write_filter(f->fd, buf, len) : write_stream(f->fd, buf, len);
		if (rc == 0)
			f->pos += len;
		return rc;
	}
	size_t done = 0;
	if (f->dfd >= 0 && aligned((uintptr_t)buf) && aligned(f->pos)) {
		size_t dlen = len & ~(size_t)(IO_ALIGN - 1);
		if (dlen) {
			ssize_t n = io_ring_xfer(r, f->dfd, (void *)buf, dlen, f->pos, 1);
			if (n < 0 && n != -EINVAL)
				return (int)n;
			if (n >= 0)
				done = dlen;
		}
	}
	if (done < len) {
		ssize_t n = io_ring_xfer(r, f->fd, (char *)buf + done, len - done, f->pos + done, 1);
		if (n < 0)
			return (int)n;
	}
	f->pos += len;
	return 0;
}

void io_close(io_file *f)
{
	if (f->dfd >= 0)
		close(f->dfd);
	if (f->owned && f->fd >= 0)
		close(f->fd);
	f->fd = f->dfd = -1;
	f->owned = 0;
}

int io_open_spill(io_file *f, const char *dir)
{
	char path[4096];
	file_init(f, "");
	if (snprintf(path, sizeof path, "%s/gpusort.XXXXXX", dir) >= (int)sizeof path)
		return -ENAMETOOLONG;
	int slot, fd = io_tmp_mkstemp(path, O_CLOEXEC, &slot);
	if (fd < 0)
		return fd;
	f->fd = fd;
	f->owned = 1;
	f->regular = 1;
	if (io_direct_spill())
		f->dfd = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
	unlink(path);
	if (slot >= 0)
		io_tmp_unregister(slot);
	snprintf(f->name, sizeof f->name, "%s", path);
	return 0;
}

int io_same_file(int fd, const io_file *f)
{
	struct stat st;
	return f->regular && fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_dev == f->dev &&
	       (uint64_t)st.st_ino == f->ino;
}

int io_same_inode(int fd_a, int fd_b)
{
	struct stat a, b;
	return fd_a >= 0 && fd_b >= 0 && fstat(fd_a, &a) == 0 && fstat(fd_b, &b) == 0 && S_ISREG(a.st_mode) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int io_reserve(int fd, uint64_t bytes)
{
	struct stat st;
	if (!bytes)
		return 0;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	off_t at = (fl & O_APPEND) ? st.st_size : lseek(fd, 0, SEEK_CUR);
	if (at < 0)
		return -errno;
	return fallocate(fd, FALLOC_FL_KEEP_SIZE, at, (off_t)bytes) ? -errno : 0;
}

int io_output_open(io_output *o, const char *path)
{
	struct stat st;
	memset(o, 0, sizeof *o);
	if (!path || !strcmp(path, "-")) {
		file_init(&o->f, "-");
		o->f.fd = STDOUT_FILENO;
		if (fstat(o->f.fd, &st) == 0 && S_ISREG(st.st_mode)) {
			/* stdout redirected to a file: positioned writes from its offset */
			off_t cur = lseek(o->f.fd, 0, SEEK_CUR);
			o->f.regular = cur >= 0;
			o->f.pos = cur > 0 ? (uint64_t)cur : 0;
		}
		return 0;
	}
	file_init(&o->f, path);
	snprintf(o->path, sizeof o->path, "%s", path);
	/* -o through a symlink replaces what it points to, not the link: the
	 * temp file goes beside the target and is renamed over it */
	struct stat lst;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		char *real = realpath(path, NULL);
		if (real) {
			snprintf(o->path, sizeof o->path, "%s", real);
			free(real);
		} else if (errno != ENOENT) {
			return -errno;
		}
		/* a dangling link: create the file it names */
		else {
			char target[4096];
			ssize_t tl = readlink(path, target, sizeof target - 1);
			if (tl < 0)
				return -errno;
			target[tl] = 0;
			if (target[0] == '/' || !strchr(path, '/')) {
				snprintf(o->path, sizeof o->path, "%s", target);
			} else {
				char d[4096];
				snprintf(d, sizeof d, "%s", path);
				const char *dn = dirname(d);
				if (strlen(dn) + 1 + strlen(target) >= sizeof o->path)
					return -ENAMETOOLONG;
				memcpy(o->path, dn, strlen(dn));
				o->path[strlen(dn)] = '/';
				strcpy(o->path + strlen(dn) + 1, target);
			}
		}
	}
	path = o->path;
	int exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		return -EISDIR;
	if (exists && !S_ISREG(st.st_mode)) {
		/* FIFO, device, ...: write to it in place */
		o->f.fd = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(path, O_WRONLY | O_CLOEXEC);
		if (o->f.fd < 0)
			return -errno;
		o->f.owned = 1;
		return 0;
	}
	if (exists && access(path, W_OK) != 0)
		return -errno;
	char dirbuf[4096], basebuf[4096];
	snprintf(dirbuf, sizeof dirbuf, "%s", path);
	snprintf(basebuf, sizeof basebuf, "%s", path);
	const char *dir = dirname(dirbuf), *base = basename(basebuf);
	/* beside the target, so that the rename stays in one file system;
	 * named with this process's id, so that a copy left by a killed run is
	 * known as stale (io_clean_stale); a target whose name leaves no room
	 * for the suffix gets a short name */
	char suffix[48];
	snprintf(suffix, sizeof suffix, "%s%ld.XXXXXX", IO_TMP_TAG, (long)getpid());
	long name_max = pathconf(dir, _PC_NAME_MAX);
	int n = 1 + strlen(base) + strlen(suffix) <= (size_t)(name_max > 0 ? name_max : 255)
			? snprintf(o->tmp, sizeof o->tmp, "%s/.%s%s", dir, base, suffix)
			: snprintf(o->tmp, sizeof o->tmp, "%s/%s", dir, suffix);
	if (n >= (int)sizeof o->tmp)
		return -ENAMETOOLONG;
	int slot, fd = io_tmp_mkstemp(o->tmp, O_CLOEXEC, &slot);
	if (fd < 0) {
		o->tmp[0] = 0;
		return fd;
	}
	mode_t mode;
	if (exists) {
		mode = st.st_mode & 07777;
		/* the new file keeps the old one's owner and group where this
		 * process may give them (root; or a group it is in); where it may
		 * not, the new file is the user's, as any new file is */
		if (fchown(fd, st.st_uid, st.st_gid) != 0)
			(void)!fchown(fd, (uid_t)-1, st.st_gid);
		copy_xattrs(path, fd);
		o->linked = st.st_nlink > 1;
	} else {
		mode_t um = umask(0);
		umask(um);
		mode = 0666 & ~um;
	}
	fchmod(fd, mode);
	o->f.fd = fd;
	o->f.owned = 1;
	o->f.regular = 1;
	if (io_direct_allowed())
		o->f.dfd = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(o->tmp, O_WRONLY | O_DIRECT | O_CLOEXEC);
	return 0;
}

/*
 * Copy file src over the existing file dst in place (its hard links see the
 * new data), then remove src; fsync'd when sync. The space is reserved
 * before the first byte of dst is overwritten, so that a full disk fails
 * with dst untouched; *touched is set once dst was written to: a failure
 * after that leaves it partly overwritten. 0 or -errno.
 */
static int copy_through(const char *src, const char *dst, int sync, int *touched)
{
	struct stat st;
	int in = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(src, O_RDONLY | O_CLOEXEC), rc = 0;
	if (in < 0)
		return -errno;
	int out = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(dst, O_WRONLY | O_CLOEXEC);
	if (out < 0 || fstat(in, &st) < 0) {
		rc = -errno;
		goto done;
	}
	/* KEEP_SIZE: a reservation that no reader of dst sees */
	if (st.st_size > 0 && fallocate(out, FALLOC_FL_KEEP_SIZE, 0, st.st_size) < 0 && errno != EOPNOTSUPP &&
	    errno != ENOSYS) {
		rc = -errno; /* ENOSPC, EDQUOT: dst is as it was */
		goto done;
	}
	*touched = 1;
	int plain = 0; /* copy_file_range refused (another file system, no support) */
	static char buf[1 << 20];
	for (;;) {
		size_t m = plain ? sizeof buf : (size_t)1 << 30;
		ssize_t n = io_fault_rw(plain ? IO_FAULT_READ : IO_FAULT_WRITE, &m) ? -1
			    : plain ? read(in, buf, m) : copy_file_range(in, NULL, out, NULL, m, 0);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (!plain && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
				plain = 1;
				continue;
			}
			rc = -errno;
			break;
		}
		for (ssize_t w, off = 0; plain && off < n; off += w) {
			size_t wm = (size_t)(n - off);
			w = io_fault_rw(IO_FAULT_WRITE, &wm) ? -1 : write(out, buf + off, wm);
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w < 0) {
				rc = -errno;
				break;
			}
		}
		if (rc)
			break;
	}
	if (!rc && ftruncate(out, st.st_size) < 0) /* the old data beyond the new end */
		rc = -errno;
	if (!rc && sync && (io_fault_sys(IO_FAULT_FSYNC) || fsync(out) < 0))
		rc = -errno;
done:
	if (out >= 0 && close(out) < 0 && !rc)
		rc = -errno;
	close(in);
	if (!rc)
		unlink(src);
	return rc;
}

/* A descriptor of the directory holding path (to fsync), or -errno. */
static int open_dir_of(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	int fd = io_fault_sys(IO_FAULT_OPEN) ? -1 : open(dirname(buf), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int io_output_commit(io_output *o)
{
	int rc = 0, dfd = -1;
	o->replaced = o->damaged = 0;
	if (o->f.regular && o->f.fd >= 0 && o->tmp[0]) {
		/* The size is exact: every byte was written at its offset, no padding. */
		if (ftruncate(o->f.fd, (off_t)o->f.pos) < 0)
			rc = -errno;
		if (!rc && o->sync && (io_fault_is("fsync-eio") ? (errno = EIO, 1) : io_fault_sys(IO_FAULT_FSYNC) || fsync(o->f.fd) < 0))
			rc = -errno;
	}
	if (o->f.fd >= 0 && o->f.owned) {
		if (o->f.dfd >= 0)
			close(o->f.dfd);
		o->f.dfd = -1;
		if (close(o->f.fd) < 0 && !rc)
			rc = -errno;
		o->f.fd = -1;
	}
	/* the directory is opened before the rename, so that failing to open
	 * it leaves the target untouched; only its flush comes after */
	if (!rc && o->tmp[0] && o->sync && !o->linked && (dfd = open_dir_of(o->path)) < 0)
		rc = dfd;
	if (!rc && o->tmp[0]) {
		rc = o->linked ? copy_through(o->tmp, o->path, o->sync, &o->damaged) : (io_fault_sys(IO_FAULT_RENAME) || rename(o->tmp, o->path) < 0) ? -errno : 0;
		o->replaced = !rc;
		o->damaged &= rc != 0;
	}
	if (dfd >= 0) {
		if (!rc && (io_fault_sys(IO_FAULT_FSYNC) || fsync(dfd) < 0))
			rc = -errno; /* the rename itself did not reach the disk */
		close(dfd);
	}
	if (o->replaced)
		o->tmp[0] = 0; /* renamed: that name is no longer ours to remove */
	if (rc) {
		io_output_abort(o);
		return rc;
	}
	o->tmp[0] = 0;
	return 0;
}

void io_output_abort(io_output *o)
{
	if (o->f.owned)
		io_close(&o->f);
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
}
