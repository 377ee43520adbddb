/*
 * io.h - moving bytes: io_uring transfers, input/output/temp files, I/O threads.
 *
 * Errors are returned as negative errno values (liburing style); nothing here
 * prints or exits. Regular files are read and written through io_uring with
 * IO_QD segments of IO_SEG bytes in flight. After io_set_direct(1) they go
 * through an O_DIRECT descriptor whenever the buffer, the file offset and the
 * length are IO_ALIGN-aligned (else, and by default, through a buffered
 * one). Pipes and terminals use read(2)/write(2).
 */
#ifndef GPUSORT_IO_H
#define GPUSORT_IO_H
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define IO_ALIGN 4096u          /* O_DIRECT alignment of buffers, offsets, lengths */
#define IO_SEG (4u << 20)       /* bytes per io_uring request */
#define IO_QD 8u                /* requests in flight per transfer */

/*
 * Records of record_size bytes (> 0) in the smallest whole number of IO_ALIGN
 * blocks: IO_ALIGN / gcd(IO_ALIGN, record_size). A buffer or file offset of a
 * multiple of this many records is both whole records and whole blocks, so
 * its transfers can go through O_DIRECT. Between 1 and IO_ALIGN.
 */
size_t io_align_records(size_t record_size);

/* An io_uring instance owned by one thread; falls back to pread/pwrite. */
struct io_uring;
struct io_fixed;
typedef struct io_ring {
	struct io_uring *ring; /* private to io/ (liburing stays out of src/) */
	int have_uring;   /* 0: io_uring unavailable here, using pread/pwrite */
	struct io_fixed *fx;   /* registered buffers (io_ring_register), private to io/ */
	unsigned nfx;          /* registered iovecs in fx, sorted by address; 0: none */
	unsigned fx_slots;     /* entries of the kernel's buffer table (0: no table) */
	int fx_dense;          /* the table was registered whole (no sparse updates) */
	uint64_t bytes;        /* bytes moved through this ring (io_uring or fallback) */
	uint64_t fixed_bytes;  /* of those, bytes moved by READ_FIXED / WRITE_FIXED */
	int can_async;         /* the kernel takes IOSQE_ASYNC (5.6 and later) */
	int async_reads;       /* reads queued with IOSQE_ASYNC (io_ring_async_reads) */
} io_ring;

/* Returns 0 (even when falling back to pread/pwrite) or -errno. */
int io_ring_init(io_ring *r);
/* Unregisters any registered buffers and closes the ring. */
void io_ring_exit(io_ring *r);
/*
 * Queue this ring's reads (on = 1) with IOSQE_ASYNC, where the kernel takes
 * it: a buffered read of pages in the page cache is otherwise copied inline,
 * one IO_SEG segment after another on the calling thread, while io_uring's
 * workers copy the IO_QD segments in flight side by side. For a ring whose
 * thread only waits for its reads (an input's reader); a read the kernel
 * refuses that way is sent again without it. Nothing to undo: on = 0 stops it.
 */
void io_ring_async_reads(io_ring *r, int on);

/*
 * Registered ("fixed") buffers. io_ring_register makes bufs[0..n) (lens[i]
 * bytes each, any address and length; IO_ALIGN-aligned buffers are what
 * O_DIRECT wants anyway) the ring's registered buffers, replacing any earlier
 * set: a transfer whose buffer lies wholly inside one of them then goes as
 * IORING_OP_READ_FIXED / WRITE_FIXED (the kernel pinned the pages once at
 * registration instead of on every request), every other transfer as a
 * plain READ / WRITE.
 *
 * Contract:
 * - Call it on the thread that uses the ring (an io_worker's ring: from an
 *   IO_JOB_CALL job on that worker), never while a transfer of this ring is
 *   in progress. The lookup table it builds is read by every transfer of the
 *   ring without a lock; the worker runs its jobs one at a time, so a CALL
 *   job cannot overlap one of its transfers.
 * - The buffers must stay allocated and mapped (no free, munmap, mremap or
 *   MADV_DONTNEED) until io_ring_unregister, the next io_ring_register or
 *   io_ring_exit: the kernel holds the pages it pinned, and a transfer into an
 *   address that was freed and reused would reach the old pages.
 * - The kernel takes at most 1 GiB per registered iovec and at most
 *   IO_FIXED_MAX iovecs per ring: a longer buffer is registered as several
 *   iovecs of up to IO_FIXED_IOV bytes (a transfer straddling two of them
 *   goes unfixed). Unprivileged processes (no CAP_IPC_LOCK) are charged the
 *   pinned bytes against RLIMIT_MEMLOCK, often only 8 MiB: registration then
 *   fails with -ENOMEM.
 * - Failure is not an error for the caller: it returns -errno (-ENOMEM,
 *   -EPERM, -EFAULT, -E2BIG for too many iovecs, -EOPNOTSUPP without
 *   io_uring, -ECANCELED after io_set_fixed(0)), leaves nothing registered and
 *   every transfer unfixed: same bytes, same results, only without the saving.
 *   A fixed request the kernel refuses is retried unfixed.
 * Returns 0 or -errno. n == 0 is the same as io_ring_unregister.
 */
#define IO_FIXED_IOV ((size_t)1 << 30) /* kernel limit per registered iovec (SZ_1G) */
#define IO_FIXED_MAX 16384u            /* kernel limit on registered iovecs (IORING_MAX_REG_BUFFERS) */
int io_ring_register(io_ring *r, void *const *bufs, const size_t *lens, int n);
void io_ring_unregister(io_ring *r);
/*
 * Registration on (the default) or off for the whole process: off,
 * io_ring_register registers nothing and returns -ECANCELED, so that the
 * transfers can be compared with and without it (the test build's
 * GPUSORT_FIXED=0). Not synchronized: call it before any ring registers.
 */
void io_set_fixed(int on);

/*
 * Process-wide counts, for --stats: io_ring_register calls and how many
 * succeeded, the last failure (-errno), and the bytes moved through rings
 * (added when a ring exits) and through registered buffers.
 */
typedef struct io_fixed_stats {
	uint64_t calls, ok;
	int err;
	uint64_t bytes, fixed_bytes;
} io_fixed_stats;
void io_fixed_stats_get(io_fixed_stats *s);

/* A file being read or written. */
typedef struct io_file {
	int fd;           /* buffered descriptor, always valid while open */
	int dfd;          /* O_DIRECT descriptor, or -1 */
	int regular;      /* regular file: positioned I/O through io_uring */
	int owned;        /* close fd on io_close (not for stdin/stdout) */
	uint64_t size;    /* regular input: size at open, bytes */
	int64_t mtime_ns; /* regular input: modification time at open, ns since the epoch */
	uint64_t dev, ino; /* regular input: its device and inode numbers (io_same_file) */
	uint64_t pos;     /* next offset for sequential reads/writes, bytes */
	int eof;
	int filter;       /* a pipe to an io_filter process: writes return -EPIPE, never raise SIGPIPE */
	char name[4096];  /* for messages: the path, or "-" */
} io_file;

/*
 * Is the open regular file f still what it was when opened (size and
 * modification time as fstat sees them now against f->size, f->mtime_ns)?
 * Returns 0 (the same), 1 (changed) or -errno (fstat failed).
 */
int io_input_changed(const io_file *f);
/*
 * The same check on descriptor fd against a size in bytes and a
 * modification time in ns since the epoch (st_mtim): 1 changed, 0 not,
 * -errno when fstat fails.
 */
int io_fd_changed(int fd, uint64_t size, int64_t mtime_ns);

/*
 * Is the open descriptor fd the regular file f was opened as (the same
 * device and inode)? An output that is also an input (`gpusort in 1<>in`)
 * must not be written before the input is wholly read, nor reserved
 * (fallocate changes its modification time), nor read through a mapping
 * while it is written. Returns 1 or 0 (not the same, f not regular, or
 * fstat failed).
 */
int io_same_file(int fd, const io_file *f);
/* The same for two open descriptors: 1 when both are the same regular file, else 0. */
int io_same_inode(int fd_a, int fd_b);

/*
 * Map `size` bytes (at least 1) of the regular file fd from byte offset
 * off, private and read-only, to be read as lines ending in eol: when the
 * last byte is not eol, one is written after it, in the file's own last
 * page (copied on that write) or in an anonymous page reserved after the
 * file's pages, so that every line has its delimiter without a copy of
 * the file. Returns the address of byte off, with *base and *len the
 * mapping to munmap and *added 1 when a delimiter was added, or NULL with
 * errno set. A file cut short under the mapping raises SIGBUS
 * (io_sigbus_install).
 */
uint8_t *io_map_lines(int fd, uint64_t off, size_t size, unsigned char eol, void **base, size_t *len, int *added);

/*
 * The regular file open on fd mapped whole, private and read-only, and fd
 * closed in every case: 0 with *p and *size (bytes; NULL and 0 for an
 * empty file), or 1 when fd is -1, or not a regular file that maps (a
 * pipe, a terminal, a file larger than the address space): the caller
 * reads it another way. Unmap with munmap(*p, *size).
 */
int io_map_regular(int fd, const uint8_t **p, size_t *size);

/*
 * O_DIRECT for the files opened from then on (gpusort --direct-io[=WHAT]):
 * IO_DIRECT_OFF (0, the default), IO_DIRECT_ALL (1: inputs, spill files and
 * the output) or IO_DIRECT_SPILL (spill files only). Such a file gets an
 * O_DIRECT descriptor beside the buffered one, used for every transfer whose
 * buffer, offset and length are IO_ALIGN-aligned. Bypassing the page cache
 * is slower when the data is cached or fits in memory (the cache serves
 * reads and absorbs writes), and pays when the data is much larger than RAM
 * (no cache to fill and evict) or the CPU is the bottleneck (no copy into
 * and out of the cache: spilled runs are written once and read once, so
 * the cache gains them nothing unless it spares a slow disk the write).
 * Process-wide and not synchronized: call it before opening files.
 */
#define IO_DIRECT_OFF 0
#define IO_DIRECT_ALL 1
#define IO_DIRECT_SPILL 2
void io_set_direct(int mode);
/* 1 when inputs and outputs opened now get O_DIRECT (IO_DIRECT_ALL), else 0. */
int io_direct_allowed(void);
/* 1 when spill files opened now get O_DIRECT (IO_DIRECT_ALL or _SPILL), else 0. */
int io_direct_spill(void);

/* Bytes asked for a pipe's buffer when one is opened as an input (1 MiB). */
#define IO_PIPE_BYTES ((size_t)1 << 20)

/* Open an input ("-" = standard input); a pipe's buffer is raised to
 * IO_PIPE_BYTES where allowed. Returns 0 or -errno. */
int io_open_input(io_file *f, const char *path);

/*
 * Read up to len bytes at the file's current position into buf (sequential
 * stream; advances pos). cap >= len is the buffer's capacity: when it allows,
 * the final partial block is read with O_DIRECT rounded up to IO_ALIGN.
 * Returns bytes read (< len only at end of file) or -errno.
 */
ssize_t io_read_next(io_ring *r, io_file *f, void *buf, size_t len, size_t cap);

/*
 * A stream's bytes as they arrive (a pipe, a terminal; sequential, advances
 * pos): one read(2) of up to len bytes once there are some, waiting for
 * them at most wait_ms milliseconds (-1: as long as it takes). Returns the
 * bytes read; 0 with f->eof set at the end of the stream, 0 without it
 * when wait_ms passed with nothing there; or -errno.
 */
ssize_t io_read_ready(io_file *f, void *buf, size_t len, int wait_ms);

/* Read len bytes at offset off (positioned; does not move pos). Same returns. */
ssize_t io_read_at(io_ring *r, io_file *f, void *buf, size_t len, size_t cap, uint64_t off);

/*
 * Append len bytes at the file's current position (advances pos). Aligned
 * parts go through O_DIRECT; an unaligned tail through the buffered fd.
 * Returns 0 or -errno (-ENOSPC for a full disk, -EPIPE for a closed pipe).
 */
int io_write_next(io_ring *r, io_file *f, const void *buf, size_t len);

void io_close(io_file *f);

/*
 * The next `bytes` bytes of an output file mapped, so that several threads
 * fill them at once. Buffered writes to one file run one at a time under
 * its inode lock: one thread's write(2) of 10 GiB took 2.3-5.2 s on the
 * H200 machine's ext4 (16 threads' pwrite(2)s 2.7-2.8 s), 16 threads
 * copying into a shared mapping 0.9 s (bench/results/h200-outmap-2026-11-26.md).
 *
 * fd: a regular file open for writing, not O_APPEND; the bytes start at
 * its offset now (any alignment). One opened write-only (a shell's `>`)
 * is reopened read-write through /proc/self/fd for the mapping, which needs
 * read permission. The blocks are allocated first (fallocate), so that no
 * store into the mapping meets a full disk (SIGBUS where write(2) would
 * say ENOSPC); the file grows to offset + bytes when shorter, and what lies
 * beyond is kept, as write(2) would. A file truncated by another process
 * while mapped raises SIGBUS (io_sigbus_install). Data reaches the disk
 * as written pages do: fsync(fd) after io_outmap_close covers it.
 *
 * Returns 0 with m->base[0, m->bytes) writable, or -errno, when the caller
 * must write(2) instead: -EOPNOTSUPP (not a regular file, O_APPEND, no
 * /proc), or fallocate's or mmap's error (-ENOSPC, -EOPNOTSUPP ...; the
 * file's size is left as it was). The test build's write faults fail the
 * allocation.
 */
typedef struct io_outmap {
	uint8_t *base;   /* the bytes to fill */
	size_t bytes;
	void *map;       /* the mapping, from the page holding base[0]; NULL: none */
	size_t maplen;
	int fd;          /* the caller's descriptor */
	uint64_t at;     /* base[0]'s file offset */
	int64_t size0;   /* the file's size before, when the mapping grew it; else -1 */
	int seek;        /* io_outmap_close moves fd's offset (io_outmap_open) */
} io_outmap;
int io_outmap_open(io_outmap *m, int fd, uint64_t bytes);
/* io_outmap_open of the bytes [at, at + bytes) of fd, wherever its offset
 * is (a spill file, written at positions); the offset is not moved. */
int io_outmap_open_at(io_outmap *m, int fd, uint64_t at, uint64_t bytes);
/* Unmap, and (io_outmap_open's maps) leave fd's offset after the first
 * `written` bytes (at most m->bytes), where write(2)s of them would have; when fewer than m->bytes
 * were written (a failed sort) and the mapping grew the file, its size is
 * cut back to what write(2)s would have left. Returns 0 or -errno; a no-op
 * on a map already closed. */
int io_outmap_close(io_outmap *m, uint64_t written);
/*
 * Start the writeback of the mapping's bytes [from, to) (offsets from
 * m->base, bytes; cut to whole pages inside the range), stored and not to
 * be stored again: sync_file_range(2)'s SYNC_FILE_RANGE_WRITE, which
 * queues the writes and waits for none of them to complete (it may sleep
 * while the disk's queue is full: call it off the threads that store).
 * Returns 0 or -errno (sync_file_range's; a hint: nothing is lost when it
 * fails, the kernel's writeback takes the pages later).
 */
int io_outmap_writeback(const io_outmap *m, uint64_t from, uint64_t to);

/* ---- temporary files ---------------------------------------------------- */

/*
 * Create an anonymous spill file in dir: created, opened (buffered and, when
 * allowed, O_DIRECT) and unlinked at once, so it can never outlive the
 * process. name gets "DIR/gpusort.XXXXXX" for messages. Returns 0 or -errno.
 */
int io_open_spill(io_file *f, const char *dir);

/*
 * Atomic output to a regular file `path`: creates "DIR/.BASE.gpusort.XXXXXX"
 * beside it (registered for removal on signals and on io_output_abort),
 * with path's mode if it exists (else 0666 & ~umask). For anything else
 * (a FIFO, /dev/null, a terminal) opens path itself. "-" or NULL = stdout.
 * Returns 0 or -errno.
 */
typedef struct io_output {
	io_file f;
	char path[4096];
	char tmp[4096];   /* "" when writing in place */
	int linked;       /* the target has several hard links: copied through at commit */
	int sync;         /* --sync: the data reaches the disk before the rename, the rename after it */
	int replaced;     /* io_output_commit: the target holds the new output, even if it then failed */
	int damaged;      /* io_output_commit failed copying into a linked target: partly overwritten */
} io_output;
int io_output_open(io_output *o, const char *path);
/*
 * Reserve the disk blocks of the next `bytes` bytes fd will write (from
 * its offset; from its end under O_APPEND) with fallocate(2)'s KEEP_SIZE,
 * which no reader sees: a file system then allocates them once instead of
 * page by page as they are written (one thread writing 10 GiB to ext4 on
 * the H100 machine: 1.8-2.1 s against 2.2-2.9 s,
 * bench/results/h100-text-write-2026-11-26.md). Advice: for a pipe or a
 * terminal nothing is done; returns 0 or -errno (EOPNOTSUPP where the file
 * system has no fallocate; ENOSPC: the write itself will fail later),
 * which a caller may ignore. Blocks never written stay allocated past the
 * file's end until it is truncated or removed: only a failed sort into
 * standard output leaves any (a temp output is removed).
 */
int io_reserve(int fd, uint64_t bytes);
/*
 * Flush and put the output in place (with o->sync set, fsync the data
 * before and the directory after, so that a power cut leaves the old file
 * or the new one): renamed over the target (atomic), or,
 * when the target has several hard links, copied into it through the link
 * once complete (every name sees the new data; not atomic: a crash during
 * the copy leaves the target partly written; its space is reserved first,
 * so a full disk fails before it is touched). Returns 0 or -errno. On an
 * error the target is untouched, but for one that comes after the target
 * was replaced (--sync's flush of its directory after the rename), which
 * sets o->replaced: the new output is in place, its name maybe not yet
 * on the disk; and for an error while copying into a linked target, which
 * sets o->damaged: the target is partly overwritten.
 */
int io_output_commit(io_output *o);
/* Remove the temp file; the target is untouched. */
void io_output_abort(io_output *o);

/* The temporary output's name: ".TARGET" IO_TMP_TAG "PID.XXXXXX" (or, when
 * that is too long a name, IO_TMP_TAG "PID.XXXXXX") beside the target. */
#define IO_TMP_TAG ".gpusort."
/* A spilled run named in a -T directory (text lines, descriptors short):
 * IO_RUN_TAG "PID.XXXXXX". */
#define IO_RUN_TAG "gpusort."

/*
 * Remove from directory dir the temporary outputs (IO_TMP_TAG names) and
 * named runs (IO_RUN_TAG names) that a gpusort killed outright (SIGKILL,
 * a crash, a power cut) left behind: only
 * regular files of this user (any user's for root) whose process is gone;
 * another live run's are kept. *removed counts those unlinked. Returns 0,
 * or -errno with *bad the name that failed (the directory, or a file).
 */
int io_clean_stale(const char *dir, int *removed, char *bad, size_t badlen);

/*
 * Install SIGINT/SIGTERM/SIGHUP/SIGQUIT handlers that remove every
 * registered temp path and then die of the signal. io_tmp_register
 * copies path (any length) into the registry and returns its slot, or
 * -ENOMEM, or -ENOSPC past 1 M paths registered at once; a slot is given
 * back by io_tmp_unregister (a negative slot is ignored). Both are
 * thread-safe; neither may be called from a signal handler.
 */
void io_signals_install(void);
/*
 * Install a SIGBUS handler for a mapped file that shrinks under the sort
 * (the input text_load.c maps, the output io_outmap maps): it removes
 * every registered temp path, writes msg (a whole line, copied: up to
 * 4 KiB) to standard error and exits with status 2, so a truncated file
 * is a clear error rather than a crash.
 * Only async-signal-safe calls run in the handler. Returns 0 or -errno.
 */
int io_sigbus_install(const char *msg);
int io_tmp_register(const char *path);
void io_tmp_unregister(int slot);
/*
 * mkostemp(tmpl, flags) with the file registered (*slot) before any
 * handler of a signal above can finish, on whichever thread it runs: a
 * signal never leaves the file behind. tmpl is a path ending in "XXXXXX",
 * rewritten in place to the file's name. Returns the descriptor, or
 * -errno (-EINTR: the process is dying of a signal); *slot is the slot
 * (for io_tmp_unregister), -1 when none was free.
 */
int io_tmp_mkstemp(char *tmpl, int flags, int *slot);

/* ---- filter processes (gpusort --compress-program) ------------------------ */

/*
 * A filter: a program between a pipe of ours and a file, as sort(1)'s
 * --compress-program (coreutils sort.c, pipe_fork and its callers): the
 * compressor reads what we write to f and writes the file; the
 * decompressor ("PROG -d") reads the file from its start and writes what we
 * read from f. f is a stream (not regular): io_read_next and io_write_next
 * move its bytes with read(2)/write(2), never at offsets or O_DIRECT.
 */
typedef struct io_filter {
	io_file f;        /* our end of the pipe; first, so that &z->f is z */
	pid_t pid;        /* the process; 0 when none runs */
	int reading;      /* f is the read end (a decompressor) */
} io_filter;

/*
 * Start prog (found through PATH, as execvp(3) does) with one argument arg,
 * or none when arg is NULL. to_file: it writes to descriptor fd (its
 * standard output) what we write to z->f; else it reads descriptor fd from
 * offset 0 (its standard input) and we read its output from z->f. fd stays
 * ours; the child gets only it, the pipe and standard error (every other
 * descriptor here is close-on-exec). name: z->f.name, for messages.
 * Returns 0, or -errno: the pipe or the process could not be made, or prog
 * cannot be run (-ENOENT, -EACCES: posix_spawnp reports the exec's error).
 */
int io_filter_start(io_filter *z, const char *prog, const char *arg, int fd, int to_file, const char *name);

/*
 * Close our end of the pipe and wait for the process. A reading filter's
 * output is first read to its end: *extra (when not NULL) gets the bytes it
 * gave beyond what was read before. Returns 0 (it exited with status 0),
 * -errno (waitpid failed), or the wait status (> 0) when it exited with
 * another status or was killed: io_filter_how says which. With z->pid 0,
 * returns 0.
 */
int io_filter_finish(io_filter *z, uint64_t *extra);

/* Stop the process at once (our end closed, SIGTERM, reaped): after a
 * failure, when its output is not wanted. With z->pid 0, nothing. */
void io_filter_kill(io_filter *z);

/* The wait status st (> 0) in words: "exited with status N" or "was
 * killed by signal N (NAME)". */
const char *io_filter_how(int st, char *buf, size_t n);

/* ---- I/O worker threads ----------------------------------------------------- */

enum { IO_JOB_READ, IO_JOB_READ_AT, IO_JOB_WRITE, IO_JOB_CALL, IO_JOB_READ_ARRIVED };

/* IO_JOB_READ_ARRIVED: seconds a read waits for more once it has some */
#define IO_ARRIVED_WAIT 0.1

/*
 * One request to a worker. READ: io_read_next(f, buf, len, cap);
 * READ_AT: io_read_at(..., off); WRITE: io_write_next(f, buf, len);
 * CALL: res = call(job). READ_ARRIVED: a stream's bytes as they arrive
 * (io_read_ready), up to len, handed back once len are read, at the end,
 * or, with some read, after IO_ARRIVED_WAIT seconds with no more there
 * (a slow producer's data is looked at soon after it comes, not when a
 * whole buffer is full), or once *stop is set (nothing more is wanted
 * from a producer that may never end); a regular file as READ. `hook`,
 * if set, runs in the worker after a read or before a write (checksums),
 * and may set res < 0 to fail the job.
 */
typedef struct io_job {
	int op;
	io_file *f;
	void *buf;
	size_t len, cap;
	uint64_t off;
	ssize_t (*call)(struct io_job *j, io_ring *r);
	void (*hook)(struct io_job *j);
	void *arg;
	const atomic_int *stop; /* READ_ARRIVED: give up once set (NULL: never) */
	ssize_t res;      /* bytes, 0, or -errno */
	double busy;      /* seconds the worker spent on it */
	int done;
	struct io_job *next;
} io_job;

typedef struct io_worker {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	io_job *head, *tail;
	int stop, started;
	io_ring ring;
	double busy;      /* total seconds spent on jobs */
} io_worker;

int io_worker_start(io_worker *w);
/* Queue a job (jobs run in order). The job must live until waited for. */
void io_worker_submit(io_worker *w, io_job *j);
/* Wait for a job; returns its res. */
ssize_t io_worker_wait(io_worker *w, io_job *j);
/* Has job j (submitted to w) finished? Never waits; 1 or 0. */
int io_worker_done(io_worker *w, const io_job *j);
/* Finish queued jobs and join. */
void io_worker_stop(io_worker *w);

/*
 * Double buffering of a stream (io_double.c): reads of f into two
 * buffers in turn, each an IO_JOB_READ_ARRIVED of up to `len` bytes
 * (`cap` the buffer's size, as io_read_next's), on a worker of its own,
 * while the caller looks at the other buffer.
 * - io_double_start: the worker started and the first read (into buf0)
 *   queued. 0, or -errno (a thread not started; nothing to stop).
 * - io_double_wait: the bytes of the read in flight (f->eof set at the
 *   end) or -errno; *buf its buffer.
 * - io_double_next: the next read queued into the other buffer. Call it
 *   once nothing more is wanted from that buffer (a carry copied out of
 *   it), never after the end or an error.
 * - io_double_stop: a read in flight given up (a producer that may never
 *   end is not waited for) and the worker joined. Safe after a failed
 *   start.
 */
typedef struct io_double {
	io_worker w;
	io_job job[2];
	atomic_int stop;
	int cur, pending;
} io_double;

int io_double_start(io_double *d, io_file *f, uint8_t *buf0, uint8_t *buf1, size_t len, size_t cap);
ssize_t io_double_wait(io_double *d, uint8_t **buf);
void io_double_next(io_double *d);
void io_double_stop(io_double *d);

#endif
