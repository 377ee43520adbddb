/*
 * main.c - the gpusort command line (DESIGN.md section 7): parse options
 * with getopt_long into a job_opts, run the job, and be the one place that
 * prints errors and chooses the exit status (0 ok, 1 disorder, 2 error).
 */
#define _GNU_SOURCE
#include "job.h"
#include "keys.h"
#include "merge.h"
#include "text_debug.h"
#include "text_files0.h"
#include "text_job.h"
#include "text_spec.h"
#include "util.h"
#include "../io/io.h"
#include "../kernels/gpusort_kernels.h"
#include "../io/io_fault.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#ifndef GPUSORT_VERSION
#define GPUSORT_VERSION "0.1.0"
#endif

#define EXIT_DISORDER 1
#define EXIT_TROUBLE 2

/*
 * The name messages start with: "gpusort", whatever argv[0] is; the test
 * build takes GPUSORT_PROGRAM_NAME, so that GNU's sort tests (make
 * check-gnu) can run it as their "sort".
 */
static const char *progname = "gpusort";

static _Noreturn void die(const char *fmt, ...)
{
	char buf[8192], out[16384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	/* each line of a message starts with the program name ("gpusort: " in
	 * the text); composed first and written at once, since stderr is
	 * unbuffered: a write a character would interleave with other writers */
	size_t n = (size_t)snprintf(out, sizeof out, "%s: ", progname);
	for (const char *p = buf; *p && n < sizeof out - 1; p++) {
		if (!strncmp(p, "\ngpusort: ", 10)) {
			n += (size_t)snprintf(out + n, sizeof out - n, "\n%s: ", progname);
			p += 9;
		} else if (!strncmp(p, "'gpusort --help'", 16)) {
			n += (size_t)snprintf(out + n, sizeof out - n, "'%s --help'", progname);
			p += 15;
		} else {
			out[n++] = *p;
		}
	}
	if (n > sizeof out - 2) /* snprintf counts what did not fit */
		n = sizeof out - 2;
	out[n++] = '\n';
	fwrite(out, 1, n, stderr);
	exit(EXIT_TROUBLE);
}

/* A bad option value: one line, like every other error (sort(1)'s
 * "Try --help" hint is kept for unknown options only, where getopt speaks). */
#define usage_error die

static void help(void)
{
	fputs(
"Usage: gpusort [OPTION]... [FILE]...\n"
"Sort lines of text as `LC_ALL=C sort` does (the same options and output), or\n"
"files of fixed-width binary records (--record-size, -k TYPE), on the GPU when\n"
"there is one. With no FILE, or when FILE is -, read standard input. Inputs\n"
"are concatenated. Output goes to standard output unless -o is given.\n"
"\n"
"Text lines (no --record-size, no typed key), as sort(1) under LC_ALL=C:\n"
"  -k, --key=F[.C][OPTS][,F[.C][OPTS]]  a key from field F, character C, to\n"
"                              field F, character C; OPTS: the letters below\n"
"  -t, --field-separator=SEP   fields end at the byte SEP, not at blanks\n"
"  -z, --zero-terminated       lines end with NUL, not newline\n"
"  -b, --ignore-leading-blanks  ignore the blanks before a key\n"
"  -d, --dictionary-order      compare only letters, digits and blanks\n"
"  -f, --ignore-case           fold lower case to upper case\n"
"  -g, --general-numeric-sort  compare as floating-point numbers\n"
"  -h, --human-numeric-sort    compare numbers with SI suffixes (2K < 1G)\n"
"  -i, --ignore-nonprinting    compare only printable bytes\n"
"  -M, --month-sort            compare month names (JAN < ... < DEC)\n"
"  -n, --numeric-sort          compare decimal numbers, exactly\n"
"  -R, --random-sort           order by a keyed hash of the keys\n"
"  -V, --version-sort          natural sort of version numbers\n"
"      --sort=WORD             general-numeric -g, human-numeric -h, month -M,\n"
"                              numeric -n, random -R, version -V\n"
"      --files0-from=F         read the input names from F, NUL-terminated\n"
"      --random-source=FILE    take -R's hash key from FILE\n"
"      --debug                 under each output line, mark the part each key\n"
"                              compared; warn about keys that may not do what\n"
"                              they seem to (to standard output; not with -o, -c)\n"
"  -y N                        ignored, as sort(1) does\n"
"  -s, -u, -r, -c, -C, -m, -o, -S, -T, --parallel, --batch-size: as below and\n"
"  as in sort(1); without -s or -u equal keys fall back on the whole line.\n"
"\n"
"Binary records:\n"
"  -k, --key=TYPE[@OFFSET][:r]  sort by a field; repeat for more keys, the first\n"
"                              most significant. OFFSET in bytes (default: 0 for\n"
"                              the first key, the end of the previous key after);\n"
"                              :r sorts that key descending\n"
"      --record-size=BYTES     bytes per record (default: end of the furthest key)\n"
"  TYPE is u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 (little-endian), the same with a\n"
"  'be' suffix for big-endian (u32be), or bytesN (N bytes compared as memcmp).\n"
"  Floats sort in IEEE-754 total order: -NaN < -inf < ... < -0.0 < +0.0 < ... <\n"
"  +inf < NaN. Without -k the whole record is compared as bytes.\n"
"\n"
"Ordering and output:\n"
"  -r, --reverse               reverse every key's order\n"
"  -s, --stable                lines: no whole-line comparison on equal keys\n"
"                              (records: always stable)\n"
"  -u, --unique                output only the first of each run of equal keys\n"
"  -o, --output=FILE           write to FILE, atomically (FILE may be an input)\n"
"      --sync                  with -o, put FILE's data and then its new name on\n"
"                              the disk before exiting: a power cut leaves the\n"
"                              old FILE or the new one\n"
"  -m, --merge                 merge already sorted FILEs; do not sort\n"
"  -c, --check[=diagnose-first]  check that the input is sorted; exit 1 if not\n"
"  -C, --check=quiet           like -c, but report nothing\n"
"      --verify                after sorting, check the output's order and that it\n"
"                              holds the same records as the input (XXH3-128)\n"
"\n"
"Resources:\n"
"  -S, --buffer-size=SIZE      host memory budget (default half of RAM, or of the\n"
"                              cgroup's memory limit when lower); SIZE is a\n"
"                              number with b, K, M, G, T, P, E (powers of 1024)\n"
"                              or % (of RAM); a plain number means KiB, as in\n"
"                              sort(1); more than RAM counts as RAM\n"
"  -T, --temporary-directory=DIR  spill runs in DIR, not $TMPDIR or /tmp;\n"
"                              repeat to spread runs over several directories\n"
"      --clean-temp            remove the temporary outputs (.FILE.gpusort.PID.*)\n"
"                              and named runs (gpusort.PID.*) that killed runs\n"
"                              left in each -T DIR (default: the current\n"
"                              directory), if their process is gone\n"
"      --compress-program=PROG  compress spilled runs through PROG (read back\n"
"                              through PROG -d), e.g. gzip, zstd, lz4: less\n"
"                              temporary disk space and, on a slow disk, less\n"
"                              time, for the CPU time PROG takes; one PROG\n"
"                              runs per run being written or merged\n"
"      --batch-size=NMERGE     merge at most NMERGE runs at once (2..1024; default:\n"
"                              16 for lines; for records what the merge's memory\n"
"                              allows, up to 1024);\n"
"                              more runs take more passes, each rewriting the\n"
"                              data; fewer runs at once read each in larger\n"
"                              pieces (fewer seeks on a disk)\n"
"      --direct-io[=WHAT]      read and write files with O_DIRECT, bypassing the\n"
"                              page cache: pays when the data is much larger\n"
"                              than RAM, is slower when it fits; WHAT: all (the\n"
"                              default) or spill (only spilled runs: no copy\n"
"                              through the cache, faster where the CPU is busy)\n"
"      --parallel=N            CPU threads for sorting and merging (default: all;\n"
"                              one for files of less than 64 KiB)\n"
"      --cpu                   do not use a GPU\n"
"      --device=N              use CUDA device N, even for small inputs; failing\n"
"                              to is an error\n"
"      --gpu-memory=SIZE       device memory budget (default: 90% of free, at most\n"
"                              5x an input of known size + 64 MiB)\n"
"      --algorithm=NAME        chunk sort: auto, cpu, or a GPU engine (listed below)\n"
"      --merge-engine=WHERE    records' merge engine: auto (the GPU when the runs\n"
"                              are in memory or spilled in groups of 4 MiB or\n"
"                              more, else the CPU), gpu, cpu\n"
"\n"
"Reporting:\n"
"      --progress              report progress on standard error: the phase\n"
"                              (read, sort, spill, merge pass K of M, write), its\n"
"                              bytes done of its total, rate (MB/s) and time\n"
"                              left; on a terminal one line redrawn in place,\n"
"                              else a line every 5 s and at each phase's end\n"
"      --stats[=text|json]     report stage times and throughput on standard error\n"
"      --help                  display this help and exit\n"
"      --version               output version information and exit\n"
"\n"
"Exit status: 0 success, 1 disorder found by -c/-C, 2 trouble.\n"
"\n"
"Examples:\n"
"  gpusort -k u32 huge.bin -o sorted.bin       an array of u32, ascending\n"
"  gpusort --record-size 16 -k u64@8 -k i32@0:r in.bin > out.bin\n"
"                                              u64 at 8 up, then i32 at 0 down\n"
"  gpusort --record-size 100 -k bytes10 gensort.dat -o sorted.dat\n"
"  producer | gpusort -k f64 -S 2G -T /scratch | consumer\n"
"  gpusort -c -k u64 sorted.bin                 is it sorted?\n"
"\n"
"Environment: TMPDIR (spill directory when no -T is given).\n"
"Full documentation: man gpusort\n", stdout);
	printf("GPU engines in this build (--algorithm):");
	for (int i = 0; i < gpu_sorter_count(); i++)
		printf(" %s", gpu_sorter_name(i));
	printf("%s\n", gpu_sorter_count() ? "" : " none (built without CUDA)");
}

/* --version, in the GNU format (coreutils' version_etc): the name and
 * version on the first line, for scripts; then copyright and licence. */
static void version(void)
{
	printf("gpusort %s\n"
	       "Copyright (C) 2026 the gpusort authors.\n"
	       "License MIT: see the LICENSE file that comes with gpusort.\n"
	       "This is free software: you are free to change and redistribute it.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n", GPUSORT_VERSION);
}

/*
 * --clean-temp: remove the temporary outputs and named runs that killed runs left in each
 * -T directory (none given: the current directory, where -o files usually
 * are). Quiet; an error stops at the first directory or file that fails.
 */
static int clean_temp(const char *const *dirs, int n)
{
	static const char *const here[] = { "." };
	if (!n) {
		dirs = here;
		n = 1;
	}
	for (int i = 0; i < n; i++) {
		char bad[4200];
		int removed, rc = io_clean_stale(dirs[i], &removed, bad, sizeof bad);
		if (rc)
			die("--clean-temp: '%s': %s", bad, strerror(-rc));
	}
	return 0;
}

/*
 * --algorithm NAME: auto (0), cpu (1), or an in-device sorter of the build's
 * registry (2, its index in *sorter). Anything else is a usage error that
 * lists the names.
 */
static int pick_algorithm(const char *arg, int *sorter)
{
	if (!strcmp(arg, "auto"))
		return 0;
	if (!strcmp(arg, "cpu"))
		return 1;
	char list[256] = "auto, cpu";
	for (int i = 0; i < gpu_sorter_count(); i++) {
		if (!strcmp(arg, gpu_sorter_name(i))) {
			*sorter = i;
			return 2;
		}
		snprintf(list + strlen(list), sizeof list - strlen(list), ", %s", gpu_sorter_name(i));
	}
	usage_error("--algorithm: invalid argument '%s' (valid: %s)", arg, list);
}

enum {
	OPT_RECORD_SIZE = 256, OPT_PARALLEL, OPT_GPU_MEMORY, OPT_DEVICE, OPT_CPU, OPT_ALGORITHM,
	OPT_MERGE_ENGINE, OPT_VERIFY, OPT_PROGRESS, OPT_STATS, OPT_HELP, OPT_VERSION, OPT_DIRECT_IO, OPT_SYNC,
	OPT_CLEAN_TEMP, OPT_BATCH_SIZE, OPT_COMPRESS, OPT_CHECK, OPT_SORT, OPT_FILES0, OPT_RANDOM_SOURCE, OPT_DEBUG,
};

static const struct option longopts[] = {
	{ "key", required_argument, NULL, 'k' },
	{ "record-size", required_argument, NULL, OPT_RECORD_SIZE },
	{ "reverse", no_argument, NULL, 'r' },
	{ "stable", no_argument, NULL, 's' },
	{ "unique", no_argument, NULL, 'u' },
	{ "check", optional_argument, NULL, OPT_CHECK },
	{ "merge", no_argument, NULL, 'm' },
	{ "field-separator", required_argument, NULL, 't' },
	{ "zero-terminated", no_argument, NULL, 'z' },
	{ "ignore-leading-blanks", no_argument, NULL, 'b' },
	{ "dictionary-order", no_argument, NULL, 'd' },
	{ "ignore-case", no_argument, NULL, 'f' },
	{ "general-numeric-sort", no_argument, NULL, 'g' },
	{ "human-numeric-sort", no_argument, NULL, 'h' },
	{ "ignore-nonprinting", no_argument, NULL, 'i' },
	{ "month-sort", no_argument, NULL, 'M' },
	{ "numeric-sort", no_argument, NULL, 'n' },
	{ "random-sort", no_argument, NULL, 'R' },
	{ "version-sort", no_argument, NULL, 'V' },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "files0-from", required_argument, NULL, OPT_FILES0 },
	{ "random-source", required_argument, NULL, OPT_RANDOM_SOURCE },
	{ "debug", no_argument, NULL, OPT_DEBUG },
	{ "output", required_argument, NULL, 'o' },
	{ "buffer-size", required_argument, NULL, 'S' },
	{ "temporary-directory", required_argument, NULL, 'T' },
	{ "direct-io", optional_argument, NULL, OPT_DIRECT_IO },
	{ "sync", no_argument, NULL, OPT_SYNC },
	{ "clean-temp", no_argument, NULL, OPT_CLEAN_TEMP },
	{ "batch-size", required_argument, NULL, OPT_BATCH_SIZE },
	{ "compress-program", required_argument, NULL, OPT_COMPRESS },
	{ "parallel", required_argument, NULL, OPT_PARALLEL },
	{ "gpu-memory", required_argument, NULL, OPT_GPU_MEMORY },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "cpu", no_argument, NULL, OPT_CPU },
	{ "algorithm", required_argument, NULL, OPT_ALGORITHM },
	{ "merge-engine", required_argument, NULL, OPT_MERGE_ENGINE },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "stats", optional_argument, NULL, OPT_STATS },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

#define SHORTOPTS "-:bcCdfghik:mMno:rRsS:t:T:uVy:z"

/* 1 for the long options sort(1) does not have. */
static int gpusort_only(const char *name)
{
	static const char *const own[] = { "record-size", "direct-io", "sync",	   "clean-temp", "gpu-memory", "device",
					   "cpu",	  "algorithm", "merge-engine", "verify",	"progress",   "stats" };
	for (size_t i = 0; i < sizeof own / sizeof *own; i++)
		if (!strcmp(name, own[i]))
			return 1;
	return 0;
}

/* 1 when argument a is an option whose value is the next argument ("-o", "-ko", "--output", "--out"). */
static int takes_next(const char *a)
{
	if (a[0] != '-' || !a[1])
		return 0;
	if (a[1] == '-') {
		if (!a[2] || strchr(a, '='))
			return 0;
		int n = 0, req = 0;
		for (const struct option *o = longopts; o->name; o++) {
			if (!strcmp(o->name, a + 2))
				return o->has_arg == required_argument;
			if (!strncmp(o->name, a + 2, strlen(a + 2))) {
				n++;
				req += o->has_arg == required_argument;
			}
		}
		return n > 0 && req == n;
	}
	for (const char *c = a + 1; *c; c++) {
		const char *d = strchr(SHORTOPTS, *c);
		if (d && d[1] == ':' && *c != 'y') /* -y's value is optional (case 'y') */
			return c[1] == '\0';
	}
	return 0;
}

/*
 * sort(1)'s abbreviations of its long options stay its own where gpusort's
 * options share the prefix: `--p` is --parallel (--progress), `--mer`
 * --merge (--merge-engine), `--re` --reverse (--record-size), `--st`
 * --stable (--stats), `--g` --general-numeric-sort (--gpu-memory). An
 * argument that is a prefix of several long options, of which one alone is
 * sort(1)'s, is rewritten to that one's full name (its "=VALUE" kept);
 * option values and operands after "--" are left as they are. Returns 0,
 * or -ENOMEM.
 */
static int gnu_abbreviations(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (i > 1 && takes_next(argv[i - 1]))
			continue;
		const char *a = argv[i];
		if (a[0] != '-' || a[1] != '-' || !a[2])
			continue;
		size_t len = strcspn(a + 2, "=");
		const char *gnu = NULL;
		int many = 0, exact = 0;
		for (const struct option *o = longopts; o->name; o++) {
			if (strncmp(o->name, a + 2, len))
				continue;
			exact |= strlen(o->name) == len;
			many++;
			if (!gpusort_only(o->name))
				gnu = gnu ? "" : o->name; /* "": two of sort(1)'s, ambiguous there too */
		}
		if (exact || many < 2 || !gnu || !*gnu)
			continue;
		char *r = malloc(strlen(gnu) + strlen(a + 2 + len) + 3);
		if (!r)
			return -ENOMEM;
		sprintf(r, "--%s%s", gnu, a + 2 + len);
		argv[i] = r;
	}
	return 0;
}

/* getopt_long's refusal of argument a, said as sort(1) says it. Does not return. */
static _Noreturn void bad_option(const char *a)
{
	if (a[0] == '-' && a[1] == '-') {
		size_t len = strcspn(a + 2, "=");
		const struct option *one = NULL;
		char list[1024] = "";
		int n = 0;
		for (const struct option *o = longopts; o->name; o++) {
			if (strncmp(o->name, a + 2, len))
				continue;
			if (strlen(o->name) == len) { /* the name itself: no other is meant */
				one = o;
				n = 1;
				break;
			}
			one = o;
			n++;
			snprintf(list + strlen(list), sizeof list - strlen(list), " '--%s'", o->name);
		}
		if (n > 1)
			die("option '%.*s' is ambiguous; possibilities:%s (see gpusort --help)", (int)len + 2, a, list);
		if (n == 1 && a[2 + len] == '=' && one->has_arg == no_argument)
			die("option '--%s' doesn't allow an argument (see gpusort --help)", one->name);
		die("unrecognized option '%s' (see gpusort --help)", a);
	}
	if (optopt > 0 && optopt < 256)
		die("invalid option -- '%c' (see gpusort --help)", optopt);
	die("unrecognized option '%s' (see gpusort --help)", a);
}

static uint64_t parse_size_arg(const char *opt, const char *arg)
{
	uint64_t v;
	int rc = util_parse_size(arg, &v);
	if (rc == -ERANGE)
		usage_error("%s: size '%s' is too large", opt, arg);
	if (rc || v == 0)
		usage_error("%s: invalid size '%s' (e.g. 512M, 4G, 50%%)", opt, arg);
	return v;
}

static long parse_int_arg(const char *opt, const char *arg, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (!*arg || *end || errno || v < lo || v > hi)
		usage_error("%s: invalid number '%s' (expected %ld..%ld)", opt, arg, lo, hi);
	return v;
}

/*
 * --batch-size=NMERGE: the most runs one merge takes (sort(1)'s option and
 * messages, second lines included: scripts may match them). 2..MERGE_MAX_FANIN.
 */
static int parse_batch_size(const char *arg)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (!*arg || *end || (errno && errno != ERANGE) || (errno == ERANGE && v < 0) || v < 0)
		usage_error("invalid --batch-size argument '%s'", arg);
	if (v < 2)
		usage_error("invalid --batch-size argument '%s'\ngpusort: minimum --batch-size argument is '2'", arg);
	if (errno == ERANGE || v > MERGE_MAX_FANIN)
		usage_error("--batch-size argument '%s' too large\ngpusort: maximum --batch-size argument with current "
			    "rlimit is %d", arg, MERGE_MAX_FANIN);
	return (int)v;
}

#if GPUSORT_TEST_HOOKS
/* 1 when variable `name` is set to `value`. */
static int env_is(const char *name, const char *value)
{
	const char *e = getenv(name);
	return e && !strcmp(e, value);
}

/* The test build's path switches (job.h job_knobs; tests/README.md). */
static void read_test_knobs(job_knobs *k)
{
	const char *bits = getenv("GPUSORT_STREAM_BITS");
	k->no_stream = env_is("GPUSORT_STREAM", "0");
	k->no_count = env_is("GPUSORT_COUNT", "0");
	k->stream_bits = bits ? atoi(bits) : 0;
	const char *piece = getenv("GPUSORT_FEED_PIECE");
	k->feed_piece = piece ? atol(piece) : 0;
	k->no_resident = env_is("GPUSORT_RESIDENT", "0");
	k->no_overlap = env_is("GPUSORT_OVERLAP", "0");
	k->no_small_cpu = env_is("GPUSORT_SMALL_CPU", "0");
	k->gpu_merge_by_sort = env_is("GPUSORT_GPU_MERGE", "sort");
	k->no_outmap = env_is("GPUSORT_OUTMAP", "0");
	const char *wp = getenv("GPUSORT_WRITEBACK_PIECE");
	k->writeback_piece = wp ? atol(wp) : 0;
	const char *tb = getenv("GPUSORT_TEXT_BLOCK"), *th = getenv("GPUSORT_TEXT_HELPERS");
	k->text_block = tb ? atol(tb) : 0;
	k->text_helpers = th ? atoi(th) : 0;
	const char *cb = getenv("GPUSORT_CHECK_BLOCK");
	k->check_block = cb ? atol(cb) : 0;
	k->spill_merge = env_is("GPUSORT_SPILL_MERGE", "cpu") ? JOB_WHERE_CPU
			 : env_is("GPUSORT_SPILL_MERGE", "gpu") ? JOB_WHERE_GPU : 0;
}

/* The test build's --progress switches (tests/README.md): the interval, so
 * that a test sees every line without waiting, and the terminal form. */
static void read_test_progress(job_opts *o)
{
	const char *iv = getenv("GPUSORT_PROGRESS_INTERVAL"), *tty = getenv("GPUSORT_PROGRESS_TTY");
	if (iv && *iv)
		o->progress_interval = atof(iv);
	if (tty && *tty)
		o->progress_tty = atoi(tty) != 0;
}

/* The test build's I/O switch and fault injection (io.h, io_fault.h; tests/README.md). */
static void read_test_io(void)
{
	io_set_fixed(!env_is("GPUSORT_FIXED", "0"));
	const char *f = getenv("GPUSORT_FAULT");
	if (io_fault_set(f))
		die("GPUSORT_FAULT: no such fault '%s' (tests/README.md lists them)", f);
	io_fault_report(getenv("GPUSORT_FAULT_COUNT"));
}
#endif

/*
 * The index of arg among an option's n names: the name itself, or a prefix
 * of one name alone (`--sort=gen`, `--check=q`), as sort(1)'s argmatch
 * takes. Anything else, an empty or ambiguous prefix too, is a usage error
 * that lists the names.
 */
static int pick(const char *opt, const char *arg, const char *const *names, int n)
{
	int found = -1, matches = 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(arg, names[i]))
			return i;
		if (!strncmp(arg, names[i], strlen(arg))) { /* "" is a prefix of every name: ambiguous */
			found = i;
			matches++;
		}
	}
	if (matches == 1)
		return found;
	char list[256] = "";
	for (int i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
	usage_error("%s: %s argument '%s' (valid: %s)", opt, matches ? "ambiguous" : "invalid", arg, list);
}

/* 1 when a -k argument is a text key (sort(1)'s "2,2n": a field number), 0 for a typed key ("u32@4"). */
static int is_text_key(const char *arg)
{
	while (*arg == ' ' || *arg == '\t')
		arg++;
	if (*arg == '+')
		arg++;
	return *arg >= '0' && *arg <= '9';
}

/*
 * sort(1)'s obsolete key syntax, which GNU sort 9 still takes: an operand
 * "+F[.C][OPTS]" and an optional next argument "-F[.C][OPTS]" are the key
 * -k F+1[.C+1][OPTS][,F[.C][OPTS]] (with the end field F+1 when its C is
 * given and not 0). Returns 1 and appends the key (consuming the "-F" at
 * argv[*optind]), or 0 when arg is not such a key (then it is a file).
 */
static int obsolete_key(text_spec *ts, const char *arg, char **argv, int argc, int *optind_p)
{
	if (arg[0] != '+' || !(arg[1] >= '0' && arg[1] <= '9'))
		return 0;
	char *end;
	unsigned long sf = strtoul(arg + 1, &end, 10), sc = 0;
	if (*end == '.') {
		if (!(end[1] >= '0' && end[1] <= '9'))
			return 0;
		sc = strtoul(end + 1, &end, 10);
	}
	if (strspn(end, "bdfghiMnRrV") != strlen(end))
		return 0; /* "+1x": a file name */
	char def[256], msg[512];
	int n = snprintf(def, sizeof def, "%lu.%lu%s", sf + 1, sc + 1, end);
	const char *next = *optind_p < argc ? argv[*optind_p] : NULL;
	if (next && next[0] == '-' && next[1] >= '0' && next[1] <= '9') {
		unsigned long ef = strtoul(next + 1, &end, 10), ec = 0;
		if (*end == '.')
			ec = strtoul(end + 1, &end, 10);
		/* +A.x -B.y: -k A+1.x+1,B when y is 0 (B 0: the end of field 1, as GNU), B+1.y when not */
		if (ec)
			n += snprintf(def + n, sizeof def - (size_t)n, ",%lu.%lu%s", ef + 1, ec, end);
		else
			n += snprintf(def + n, sizeof def - (size_t)n, ",%lu%s", ef ? ef : 1, end);
		(*optind_p)++;
	}
	if (n >= (int)sizeof def || text_spec_add_key(ts, def, msg, sizeof msg))
		usage_error("%s", msg);
	ts->key[ts->nkeys - 1].traditional = 1;
	return 1;
}

/* --sort=WORD: the ordering letter it stands for. */
static const char *sort_word(const char *arg)
{
	static const char *const words[] = { "general-numeric", "human-numeric", "month", "numeric", "random", "version" };
	static const char *const letters[] = { "g", "h", "M", "n", "R", "V" };
	return letters[pick("--sort", arg, words, 6)];
}

/* -R's key: the first 16 bytes of --random-source's file, or of getrandom(2). */
static void random_salt(const char *source, uint8_t salt[16])
{
	if (!source) {
		if (getrandom(salt, 16, 0) != 16)
			die("open failed: getrandom: %s", strerror(errno));
		return;
	}
	FILE *f = fopen(source, "rb");
	if (!f)
		die("open failed: %s: %s", source, strerror(errno));
	size_t got = fread(salt, 1, 16, f);
	int err = ferror(f) ? errno : 0;
	fclose(f);
	if (got != 16)
		die(err ? "%s: read error: %s" : "%s: end of file", source, strerror(err));
}

/* A job's notices (lines joined by '\n'), each on standard error with the
 * program's name before it. */
static void print_notices(const char *notice)
{
	for (const char *line = notice; *line;) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);
		fprintf(stderr, "%s: %.*s\n", progname, len, line);
		line += len + (nl != NULL);
	}
}

/* --stats for text lines: one line, or a JSON object, on standard error. */
static void text_stats(const text_result *t, int fmt)
{
	if (fmt == JOB_STATS_JSON) {
		fprintf(stderr, "{\"mode\":\"text\",\"engine\":\"%s\",\"lines\":%" PRIu64 ",\"bytes\":%" PRIu64
			",\"chunks\":%" PRIu64 ",\"runs\":%" PRIu64 ",\"merge_passes\":%" PRIu64
			",\"full_compare_ties\":%" PRIu64 ",\"prefix_bytes\":%u,\"read_s\":%.3f,\"sort_s\":%.3f,\"prefix_s\":%.3f,\"ties_s\":%.3f"
			",\"merge_s\":%.3f,\"merge_read_wait_s\":%.3f,\"merge_rounds\":%" PRIu64 ",\"merge_cut_s\":%.3f"
			",\"merge_slice_s\":%.3f,\"merge_write_wait_s\":%.3f,\"merge_read_thread_s\":%.3f,\"merge_blocks_shared\":%" PRIu64 ",\"merge_concatenated\":%" PRIu64 ",\"write_s\":%.3f,\"output_mapped\":%s,\"total_s\":%.3f,\"peak_rss_bytes\":%" PRIu64 "}\n",
			t->engine, t->lines, t->bytes, t->chunks, t->runs, t->merge_passes, t->ties, t->prefix_width, t->read_s,
			t->sort_s, t->prefix_s, t->ties_s, t->merge_s, t->merge_wait_s, t->merge_rounds, t->merge_cut_s,
			t->merge_slice_s, t->merge_out_wait_s, t->merge_read_s, t->merge_shared, t->merge_concat, t->write_s, t->mapped_out ? "true" : "false", t->total_s,
			util_peak_rss());
		return;
	}
	fprintf(stderr,
		"gpusort: text: %" PRIu64 " lines, %" PRIu64 " bytes, %" PRIu64 " chunks, %" PRIu64 " runs spilled, %" PRIu64
		" merge passes, %" PRIu64 " ties finished by full comparison; engine %s, %u-byte key prefixes; read %.3f s, "
		"prefix sort %.3f s (prefixes %.3f s), ties %.3f s, merge %.3f s (waiting for reads %.3f s",
		t->lines, t->bytes, t->chunks, t->runs, t->merge_passes, t->ties, t->engine, t->prefix_width, t->read_s,
		t->sort_s, t->prefix_s, t->ties_s, t->merge_s, t->merge_wait_s);
	if (t->merge_rounds)
		fprintf(stderr, "; %" PRIu64 " rounds: cutting %.3f s, slices %.3f s, waiting for the writer %.3f s",
			t->merge_rounds, t->merge_cut_s, t->merge_slice_s, t->merge_out_wait_s);
	if (t->merge_read_s > 0)
		fprintf(stderr, "; reading ahead %.3f thread-s", t->merge_read_s);
	if (t->merge_shared)
		fprintf(stderr, "; %" PRIu64 " blocks read ahead on several threads at once", t->merge_shared);
	if (t->merge_concat)
		fprintf(stderr, "; %" PRIu64 " of the merges copied their runs whole: they did not overlap", t->merge_concat);
	fprintf(stderr, "), write %.3f s%s, total %.3f s, peak resident %.1f MiB (mapped files' pages included)\n", t->write_s,
		t->mapped_out ? " (mapped, every thread)" : "", t->total_s, (double)util_peak_rss() / (1 << 20));
}

/*
 * A job on text lines (o complete but for the inputs of --files0-from;
 * operands: FILE operands were given):
 * the ordering finished, the job run, its result printed. Returns the exit
 * status.
 */
static int run_text(job_opts *o, text_spec *ts, const char *files0, const char *random_source, int check,
		    int operands)
{
	char msg[512];
	if (text_spec_finish(ts, msg, sizeof msg))
		usage_error("%s", msg);
	if (o->debug) {
		/* its marks go to standard output, as sort(1)'s */
		if (check || o->output)
			usage_error("options '-%c --debug' are incompatible",
				    check ? check == JOB_CHECK_QUIET ? 'C' : 'c' : 'o');
		/* the environment's locale only tried, for sort(1)'s warning:
		 * gpusort compares bytes and reads numbers as the C locale does */
		int failed = !setlocale(LC_ALL, "");
		setlocale(LC_ALL, "C");
		text_debug_warnings(ts, progname, failed, stderr);
	}
	if (text_spec_random(ts))
		random_salt(random_source, ts->salt);
	if (files0) {
		char **names;
		int n;
		if (operands)
			usage_error("extra operand '%s'\nfile operands cannot be combined with --files0-from\n"
				    "Try 'gpusort --help' for more information.", o->inputs[0]);
		if (text_files0_read(files0, &names, &n, msg, sizeof msg))
			die("%s", msg);
		o->inputs = names;
		o->ninputs = n;
	}
	if (check && o->ninputs > 1)
		usage_error("extra operand '%s' not allowed with -%c", o->inputs[1], check == JOB_CHECK_QUIET ? 'C' : 'c');
	o->check = check;
	text_result res;
	text_job_run(o, ts, &res);
	if (o->stats && res.r.status != 2)
		text_stats(&res, o->stats);
	if (res.r.status == EXIT_DISORDER) {
		if (check == JOB_CHECK_DIAGNOSE) {
			fprintf(stderr, "%s: %s", progname, res.r.msg);
			fwrite(res.disorder, 1, res.disorder_len, stderr);
		}
		free(res.disorder);
		return EXIT_DISORDER;
	}
	if (res.r.status)
		die("%s", res.r.msg);
	print_notices(res.r.notice);
	return 0;
}

/* What the command line says: parsed (parse_options), then settled
 * (settle_mode, settle_resources) into the job's options. */
typedef struct cli {
	job_opts o;
	text_spec ts;                /* text lines: the ordering */
	uint32_t record_size, next_off;
	int reverse, check, cpu, clean, mem_given;
	int text;                    /* the job is one on lines (settle_mode) */
	const char *files0, *random_source;
	const char *text_only;       /* an option of text lines alone, for the message if records are asked for too */
	const char *gnu_key, *typed_key;
	char letter[3];              /* text_only's "-x" for a letter option */
	char **operands;
	int nops;
	const char *tmpdirs[64];
	int ntmp;
} cli;

/*
 * argv's options into c, the operands in order into c->operands (argc + 1
 * entries). Returns 1 when --help or --version has been answered (exit
 * 0), else 0; a usage error dies.
 */
static int parse_options(cli *c, int argc, char **argv)
{
	static const char *const where[] = { "auto", "cpu", "gpu" };
	static const char *const checks[] = { "diagnose-first", "quiet", "silent" };
	static const char *const statfmt[] = { "text", "json" };
	static const char *const directs[] = { "all", "spill" };
	char msg[512];
	int opt;
	opterr = 0; /* our own messages: they start with "gpusort: " whatever argv[0] is */
	while ((opt = getopt_long(argc, argv, SHORTOPTS, longopts, NULL)) != -1) {
		switch (opt) {
		case 1: /* an operand, in order: a file, or sort(1)'s obsolete +POS key */
			if (obsolete_key(&c->ts, optarg, argv, argc, &optind))
				c->gnu_key = optarg;
			else
				c->operands[c->nops++] = optarg;
			break;
		case 'k':
			if (is_text_key(optarg)) {
				if (text_spec_add_key(&c->ts, optarg, msg, sizeof msg))
					usage_error("%s", msg);
				c->gnu_key = optarg;
				break;
			}
			c->typed_key = optarg;
			if (c->o.keys.n == KEYS_MAX)
				usage_error("too many keys (at most %d)", KEYS_MAX);
			if (keys_parse(optarg, c->next_off, &c->o.keys.f[c->o.keys.n], msg, sizeof msg))
				usage_error("%s", msg);
			c->next_off = c->o.keys.f[c->o.keys.n].offset + c->o.keys.f[c->o.keys.n].width;
			c->o.keys.n++;
			break;
		case OPT_RECORD_SIZE:
			c->record_size = (uint32_t)parse_int_arg("--record-size", optarg, 1, KEYS_MAX_RECORD);
			break;
		case 'r':
			c->reverse = 1;
			text_spec_global(&c->ts, "r");
			break;
		case 'b': case 'd': case 'f': case 'g': case 'h': case 'i': case 'M': case 'n': case 'R': case 'V':
			c->letter[1] = (char)opt;
			text_spec_global(&c->ts, c->letter + 1);
			c->text_only = c->text_only ? c->text_only : c->letter;
			break;
		case OPT_SORT:
			text_spec_global(&c->ts, sort_word(optarg));
			c->text_only = c->text_only ? c->text_only : "--sort";
			break;
		case 't':
			if (text_spec_tab(&c->ts, optarg, msg, sizeof msg))
				usage_error("%s", msg);
			c->text_only = c->text_only ? c->text_only : "-t";
			break;
		case 'z':
			c->ts.eol = '\0';
			c->text_only = c->text_only ? c->text_only : "-z";
			break;
		case 'y':
			/* sort(1)'s obsolete -y N, ignored as it does: a separate
			 * argument only when it is all digits (or empty), else it is
			 * the next option or file */
			if (optarg == argv[optind - 1]) {
				const char *q = optarg;
				while (*q >= '0' && *q <= '9')
					q++;
				optind -= *q != '\0';
			}
			break;
		case OPT_FILES0:
			c->files0 = optarg;
			c->text_only = c->text_only ? c->text_only : "--files0-from";
			break;
		case OPT_RANDOM_SOURCE:
			if (c->random_source && strcmp(c->random_source, optarg))
				usage_error("multiple random sources specified");
			c->random_source = optarg;
			break;
		case OPT_DEBUG:
			c->o.debug = 1;
			c->text_only = c->text_only ? c->text_only : "--debug";
			break;
		case 's':
			c->ts.stable = 1; /* records: always stable */
			break;
		case 'u':
			c->o.unique = c->ts.unique = 1;
			break;
		case 'c':
		case 'C':
		case OPT_CHECK: {
			int want = opt == 'c' || (opt == OPT_CHECK && (!optarg || pick("--check", optarg, checks, 3) == 0))
					   ? JOB_CHECK_DIAGNOSE : JOB_CHECK_QUIET;
			if (c->check && c->check != want)
				usage_error("options '-cC' are incompatible");
			c->check = want;
			break;
		}
		case 'm': c->o.merge_only = 1; break;
		case 'o':
			if (c->o.output && strcmp(c->o.output, optarg))
				usage_error("multiple output files specified");
			c->o.output = optarg;
			break;
		case 'S': { /* sort(1)'s rules: 0 is the least, the largest of several -S counts */
			uint64_t v;
			int rc = util_parse_size(optarg, &v);
			if (rc == -ERANGE)
				usage_error("-S: size '%s' is too large", optarg);
			if (rc)
				usage_error("-S: invalid size '%s' (e.g. 512M, 4G, 50%%)", optarg);
			c->mem_given = 1;
			c->o.mem = v > c->o.mem ? v : c->o.mem;
			break;
		}
		case 'T':
			if (c->ntmp == 64)
				usage_error("too many -T directories (at most 64)");
			c->tmpdirs[c->ntmp++] = optarg;
			break;
		case OPT_DIRECT_IO:
			io_set_direct(!optarg || pick("--direct-io", optarg, directs, 2) == 0 ? IO_DIRECT_ALL : IO_DIRECT_SPILL);
			break;
		case OPT_SYNC: c->o.sync = 1; break;
		case OPT_CLEAN_TEMP: c->clean = 1; break;
		case OPT_BATCH_SIZE: c->o.batch_size = parse_batch_size(optarg); break;
		case OPT_COMPRESS:
			/* as sort(1): one program; it is found through PATH when a run is spilled */
			if (!*optarg)
				usage_error("invalid --compress-program argument ''");
			if (c->o.compress && strcmp(c->o.compress, optarg))
				usage_error("multiple compress programs specified");
			c->o.compress = optarg;
			break;
		case OPT_PARALLEL: /* more than 1024 threads is 1024 (sort(1) takes any N too) */
			c->o.threads = (int)parse_int_arg("--parallel", optarg, 1, INT_MAX);
			c->o.threads = c->o.threads > 1024 ? 1024 : c->o.threads;
			c->o.threads_given = 1;
			break;
		case OPT_GPU_MEMORY: c->o.gpu_mem = parse_size_arg("--gpu-memory", optarg); break;
		case OPT_DEVICE: c->o.device = (int)parse_int_arg("--device", optarg, 0, 1023); break;
		case OPT_CPU: c->cpu = 1; break;
		case OPT_ALGORITHM: c->o.algorithm = pick_algorithm(optarg, &c->o.sorter); break;
		case OPT_MERGE_ENGINE: c->o.merge_where = pick("--merge-engine", optarg, where, 3); break;
		case OPT_VERIFY: c->o.verify = 1; break;
		case OPT_PROGRESS: c->o.progress = 1; break;
		case OPT_STATS:
			c->o.stats = optarg ? 1 + pick("--stats", optarg, statfmt, 2) : JOB_STATS_TEXT;
			break;
		case OPT_HELP: help(); return 1;
		case OPT_VERSION: version(); return 1;
		case ':':
			if (optopt > 0 && optopt < 256)
				die("option requires an argument -- '%c' (see gpusort --help)", optopt);
			die("option '%s' requires an argument (see gpusort --help)", argv[optind - 1]);
		default:
			bad_option(argv[optind - 1]);
		}
	}
	while (optind < argc) /* after "--" */
		c->operands[c->nops++] = argv[optind++];
	return 0;
}

/* Records or lines, the inputs, and the options that contradict each
 * other or the mode; a usage error dies. */
static void settle_mode(cli *c)
{
	static char *stdin_only[] = { "-" };
	char msg[512];
	job_opts *o = &c->o;
	/* algorithm: 0 auto, 1 cpu, 2 a GPU engine */
	if (c->cpu && (o->device >= 0 || o->algorithm == 2))
		usage_error("--cpu contradicts %s", o->device >= 0 ? "--device" : "--algorithm");
	o->use_gpu = !c->cpu && o->algorithm != 1;
	if (o->algorithm == 2)
		o->algorithm = JOB_WHERE_GPU;
	/* records when a record size or a typed key says so, else lines */
	c->text = !c->record_size && !c->typed_key;
	if (c->gnu_key && c->typed_key)
		usage_error("-k %s is a key of text lines and -k %s a typed key of records: they cannot be mixed", c->gnu_key,
			    c->typed_key);
	if (!c->text && (c->gnu_key || c->text_only))
		usage_error("%s is for text lines; it cannot be used with --record-size or a typed key (-k TYPE)",
			    c->gnu_key ? "-k F[.C][OPTS]" : c->text_only);
	if (!c->text && keys_finish(&o->keys, c->record_size, c->reverse, msg, sizeof msg))
		usage_error("%s", msg);
	o->inputs = c->nops ? c->operands : stdin_only;
	o->ninputs = c->nops ? c->nops : 1;
	if (c->check && o->ninputs > 1)
		usage_error("extra operand '%s' not allowed with -%c", o->inputs[1], c->check == JOB_CHECK_QUIET ? 'C' : 'c');
	if (c->check && o->output)
		usage_error("options '-%co' are incompatible", c->check == JOB_CHECK_QUIET ? 'C' : 'c');
}

/* -S (or its default), --parallel's default, the spill directories,
 * --progress's pace; then the test build's switches. */
static void settle_resources(cli *c)
{
	job_opts *o = &c->o;
	const char *cg_file = NULL;
#if GPUSORT_TEST_HOOKS
	cg_file = getenv("GPUSORT_CGROUP_MEMORY_FILE");
#endif
	uint64_t phys = util_physmem(), cg = util_cgroup_memory(cg_file);
	if (cg && (!phys || cg < phys))
		phys = cg;
	if (c->mem_given) {
		/* -S is a limit, not a demand: more than the machine (or the
		 * cgroup) has is what it has, as sort(1) takes -S 200% or -S 1P,
		 * where buffers of that size would only fail; 0 is the least */
		if (phys && o->mem > phys)
			o->mem = phys;
		if (!o->mem)
			o->mem = 1;
	} else {
		/* half of the smaller of RAM and the cgroup's limit: a 16 GiB
		 * file of u64 on a 128 GiB machine is then one streamed chunk
		 * on the CPU engine (9.2-9.4 s) instead of 4 runs and a merge
		 * at 25% (22.0-27.6 s; bench/results/h100-cpu-default-S-2026-11-25.md).
		 * GNU sort's default is larger still (the available memory, up
		 * to 3/4 of RAM); both size their buffers by a file's size */
		o->mem = phys ? phys / 2 : (256ull << 20);
		if (o->mem < (64ull << 20))
			o->mem = 64ull << 20;
	}
	if (!o->threads)
		o->threads = util_ncores();
	if (!c->ntmp) {
		const char *t = getenv("TMPDIR");
		c->tmpdirs[c->ntmp++] = t && *t ? t : "/tmp";
	}
	o->tmpdirs = c->tmpdirs;
	o->ntmp = c->ntmp;
	/* a terminal is redrawn often, a log is written to every few seconds */
	o->progress_tty = isatty(STDERR_FILENO);
	o->progress_interval = o->progress_tty ? 0.25 : 5.0;
#if GPUSORT_TEST_HOOKS
	read_test_knobs(&o->knobs);
	read_test_progress(o);
	read_test_io();
#endif
}

/* A job on records: -c's verdict or the sort; its notices printed. Returns the exit status. */
static int run_records(const job_opts *o, int check)
{
	job_result res;
	if (check) {
		job_check(o, &res);
		if (res.status == EXIT_DISORDER && check == JOB_CHECK_DIAGNOSE)
			fprintf(stderr, "gpusort: %s\n", res.msg);
		if (res.status == EXIT_TROUBLE)
			die("%s", res.msg);
		return res.status;
	}
	job_sort(o, &res);
	if (res.status)
		die("%s", res.msg); /* the error alone: one line */
	/* --stats=json carries the notices in its object */
	if (o->stats != JOB_STATS_JSON)
		print_notices(res.notice);
	if (fflush(stdout) == EOF)
		die("write failed: 'standard output': %s", strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	static cli c; /* large (the key specs): not on the stack */
	c.o.device = -1;
	c.o.use_gpu = 1;
	text_spec_init(&c.ts);
	memcpy(c.letter, "-x", 3);
	if (!(c.operands = calloc((size_t)argc + 1, sizeof *c.operands)))
		die("out of memory");
	if (gnu_abbreviations(argc, argv))
		die("out of memory");
	/* --compress-program waits for its children: a SIGCHLD ignored by the
	 * parent (and so by us) would have them reaped unseen, as sort(1) knows */
	signal(SIGCHLD, SIG_DFL);
#if GPUSORT_TEST_HOOKS
	if (getenv("GPUSORT_PROGRAM_NAME") && *getenv("GPUSORT_PROGRAM_NAME"))
		progname = getenv("GPUSORT_PROGRAM_NAME");
#endif
	if (parse_options(&c, argc, argv))
		return 0;
	if (c.clean) {
		if (c.nops)
			usage_error("extra operand '%s' not allowed with --clean-temp", c.operands[0]);
		return clean_temp(c.tmpdirs, c.ntmp);
	}
	settle_mode(&c);
	settle_resources(&c);
	io_signals_install();
	/* a regular output file is filled through a mapping (io_outmap), and
	 * a text mode's single regular input is mapped, not copied (text_load.c),
	 * as are its spilled runs when read back (text_reader_map); -c and
	 * records' -m map their regular inputs */
	char bus[256];
	snprintf(bus, sizeof bus, "%s: %s: stopped\n", progname,
		 c.text ? "an input file shrank while it was read, the output while it was written, or a spilled run "
			  "could not be read back"
			: "an input file shrank while it was read, or the output file while it was written");
	io_sigbus_install(bus);
	if (c.text)
		return run_text(&c.o, &c.ts, c.files0, c.random_source, c.check, c.nops > 0);
	return run_records(&c.o, c.check);
}
