/*
 * checkrec.c - the benchmark's output checker for fixed-width records,
 * written apart from gpusort (plain C comparisons, its own hash) so that
 * gpusort is never checked by its own code.
 *
 *   checkrec [-R SIZE] -k KEY... IN OUT        OUT sorted by the keys, same
 *                                              multiset of records as IN
 *   checkrec [-R SIZE] -k KEY... --sum IN      print IN's multiset sum
 *   checkrec [-R SIZE] -k KEY... -e SUM OUT    check OUT against that sum
 *   checkrec [-R SIZE] -k KEY... --to-text IN  IN as text lines on stdout
 *   -t: OUT is text lines (as --to-text writes them; GNU sort's output)
 *
 * KEY is TYPE[@OFFSET][:r] as in gpusort: u8 u16 u32 u64 i8 i16 i32 i64 f32
 * f64 (little-endian; 'be' suffix for big-endian), bytesN (memcmp); OFFSET
 * defaults to the end of the previous key; the record size to the end of
 * the furthest key.  Floats compare in IEEE-754 total order.
 *
 * Text form (integer keys only): one line per record, the keys in -k order
 * as decimal numbers separated by one space, then, when the keys do not
 * cover the record, a space and the other bytes in hex (offset order).
 * With -t each line is parsed back into its record, so a text output is
 * checked against the binary input: order by the same keys, same records.
 *
 * Multiset: record count, and the sums mod 2^64 of a 64-bit hash of each
 * record and of a remix of it (order-independent, so IN and OUT can be read
 * in any order, and in parts by several threads: one per 64 MiB, at most
 * the online CPUs and 16; CHECKREC_THREADS=N forces N, for tests).  Files
 * must be regular files.  Prints "ok N records", or what is wrong and exits
 * 1; exit 2 on usage or I/O errors.
 *
 *   cc -std=c11 -O2 -pthread -o bench/checkrec bench/checkrec.c
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXKEYS 16
#define MAXREC (1u << 20)

enum kind { UINT, SINT, FLT, BYTES };
struct key {
	enum kind kind;
	unsigned off, width;
	int be, rev;
};
static struct key keys[MAXKEYS];
static int nkeys;
static size_t recsize;
static unsigned char covered[MAXREC]; /* 1: byte belongs to a key */

struct sum {
	uint64_t n, h, g;
};

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "checkrec: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void add(struct sum *s, const unsigned char *r)
{
	uint64_t h = 0x243f6a8885a308d3ull ^ recsize, w;
	size_t i = 0;
	for (; i + 8 <= recsize; i += 8) {
		memcpy(&w, r + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	if (i < recsize) {
		w = 0;
		memcpy(&w, r + i, recsize - i);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	}
	h = mix(h);
	s->n++;
	s->h += h;
	s->g += mix(h ^ 0x5851f42d4c957f2dull);
}

static uint64_t load(const unsigned char *p, unsigned w, int be)
{
	uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (!be) { /* the common case, a few times faster than the loop */
		memcpy(&v, p, w);
		return v;
	}
#endif
	for (unsigned j = 0; j < w; j++)
		v |= (uint64_t)p[be ? j : w - 1 - j] << (8 * (w - 1 - j));
	return v;
}

static void store(unsigned char *p, uint64_t v, unsigned w, int be)
{
	for (unsigned j = 0; j < w; j++)
		p[be ? w - 1 - j : j] = (unsigned char)(v >> (8 * j));
}

/* <0, 0, >0 as a is before, tied with, after b */
static int cmp(const unsigned char *a, const unsigned char *b)
{
	for (int i = 0; i < nkeys; i++) {
		const struct key *k = &keys[i];
		int c;
		if (k->kind == BYTES) {
			c = memcmp(a + k->off, b + k->off, k->width);
		} else {
			uint64_t x = load(a + k->off, k->width, k->be);
			uint64_t y = load(b + k->off, k->width, k->be);
			unsigned bits = 8 * k->width;
			uint64_t sign = 1ull << (bits - 1);
			uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;
			if (k->kind == SINT) { /* flip the sign bit: unsigned order */
				x ^= sign;
				y ^= sign;
			} else if (k->kind == FLT) { /* total order as unsigned */
				x = (x & sign) ? ~x & all : x | sign;
				y = (y & sign) ? ~y & all : y | sign;
			}
			c = (x > y) - (x < y);
		}
		if (c)
			return k->rev ? -c : c;
	}
	return 0;
}

static void parse_key(const char *s)
{
	if (nkeys == MAXKEYS)
		die("too many keys", s);
	struct key *k = &keys[nkeys];
	const char *p = s;
	char *end;
	if (*p == 'u' || *p == 'i' || *p == 'f') {
		k->kind = *p == 'u' ? UINT : *p == 'i' ? SINT : FLT;
		unsigned long bits = strtoul(p + 1, &end, 10);
		if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
			die("bad key type", s);
		if (k->kind == FLT && bits != 32 && bits != 64)
			die("bad key type", s);
		k->width = (unsigned)bits / 8;
		p = end;
		if (strncmp(p, "be", 2) == 0) {
			k->be = 1;
			p += 2;
		}
	} else if (strncmp(p, "bytes", 5) == 0) {
		k->kind = BYTES;
		unsigned long n = strtoul(p + 5, &end, 10);
		if (n < 1 || n > MAXREC)
			die("bad key type", s);
		k->width = (unsigned)n;
		p = end;
	} else {
		die("bad key type", s);
	}
	k->off = nkeys ? keys[nkeys - 1].off + keys[nkeys - 1].width : 0;
	if (*p == '@') {
		unsigned long o = strtoul(p + 1, &end, 10);
		if (end == p + 1 || o >= MAXREC)
			die("bad key offset", s);
		k->off = (unsigned)o;
		p = end;
	}
	if (strcmp(p, ":r") == 0)
		k->rev = 1;
	else if (*p)
		die("bad key", s);
	nkeys++;
}

static FILE *open_in(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "checkrec: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return f;
}

/* reads whole records; returns the bytes read (a multiple of recsize) */
static size_t read_recs(FILE *f, const char *path, unsigned char *buf, size_t cap)
{
	size_t got = fread(buf, 1, cap, f);
	if (ferror(f))
		die("read error", path);
	if (got % recsize)
		die("size is not a multiple of the record size", path);
	return got;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* the decimal integer at *pp (optional '-') into v as the key's type;
 * 0 on success */
static int parse_int(const char **pp, const char *end, const struct key *k, uint64_t *v)
{
	const char *p = *pp;
	unsigned bits = 8 * k->width;
	uint64_t m = 0;
	int neg = p < end && *p == '-';
	p += neg;
	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (m > (UINT64_MAX - d) / 10)
			return -1;
		m = m * 10 + d;
	}
	if (k->kind == UINT) {
		if (neg || (bits < 64 && m >> bits))
			return -1;
		*v = m;
	} else {
		uint64_t lim = 1ull << (bits - 1); /* |min|; max is lim - 1 */
		if (m > lim || (!neg && m == lim))
			return -1;
		*v = neg ? 0 - m : m;
	}
	*pp = p;
	return 0;
}

/* parses one text line [p, end) into rec; 0 on success */
static int from_text(const char *p, const char *end, unsigned char *rec)
{
	memset(rec, 0, recsize);
	for (int i = 0; i < nkeys; i++) {
		uint64_t v;
		if (i && (p == end || *p++ != ' '))
			return -1;
		if (parse_int(&p, end, &keys[i], &v))
			return -1;
		store(rec + keys[i].off, v, keys[i].width, keys[i].be);
	}
	int started = 0;
	for (size_t j = 0; j < recsize; j++) {
		if (covered[j])
			continue;
		if (!started++ && (p == end || *p++ != ' ')) /* the payload field */
			return -1;
		if (end - p < 2 || hexval(p[0]) < 0 || hexval(p[1]) < 0)
			return -1;
		rec[j] = (unsigned char)(hexval(p[0]) << 4 | hexval(p[1]));
		p += 2;
	}
	return p == end ? 0 : -1;
}

/* one record as a text line at dst (room for 21 bytes a key, 2 a byte);
 * returns the bytes written */
static size_t to_text(const unsigned char *rec, char *dst)
{
	static const char hex[] = "0123456789abcdef";
	char *d = dst;
	int sep = 0;
	for (int i = 0; i < nkeys; i++) {
		const struct key *k = &keys[i];
		uint64_t v = load(rec + k->off, k->width, k->be);
		unsigned bits = 8 * k->width;
		char tmp[24];
		int t = sizeof tmp;
		if (i)
			*d++ = ' ';
		if (k->kind == SINT && (v >> (bits - 1) & 1)) { /* negative */
			*d++ = '-';
			v = (bits == 64 ? 0 : 1ull << bits) - v; /* the magnitude */
		}
		do
			tmp[--t] = (char)('0' + v % 10);
		while (v /= 10);
		memcpy(d, tmp + t, sizeof tmp - (size_t)t);
		d += sizeof tmp - (size_t)t;
	}
	for (size_t j = 0; j < recsize; j++) {
		if (covered[j])
			continue;
		if (!sep++)
			*d++ = ' ';
		*d++ = hex[rec[j] >> 4];
		*d++ = hex[rec[j] & 15];
	}
	*d++ = '\n';
	return (size_t)(d - dst);
}

/*
 * The scans run on several threads (files of many GiB), each over its own
 * part of the file: sums add up, and the order is checked inside each part
 * and between the last record of a part and the first of the next.  A text
 * line belongs to the part that holds its first byte.
 */
struct part {
	const char *path;
	int fd, text, order, have;
	uint64_t from, to; /* bytes [from, to) of the file */
	struct sum s;
	uint64_t bad; /* 1 + byte offset of the first record out of order */
	uint64_t first_off;
	unsigned char *first, *last;
};

/* reads up to len bytes at off; returns the bytes read (< len at the end) */
static size_t pread_full(struct part *p, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(p->fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read error", p->path);
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return done;
}

/* one record of the part, at byte offset off */
static void take(struct part *p, const unsigned char *r, uint64_t off)
{
	if (!p->have) {
		memcpy(p->first, r, recsize);
		p->first_off = off;
	} else if (p->order && !p->bad && cmp(p->last, r) > 0) {
		p->bad = off + 1;
	}
	memcpy(p->last, r, recsize);
	p->have = 1;
	add(&p->s, r);
}

static void *scan_bin_part(void *arg)
{
	struct part *p = arg;
	size_t cap = recsize * ((8u << 20) / recsize + 1);
	unsigned char *buf = malloc(cap);
	if (!buf)
		die("out of memory", NULL);
	for (uint64_t pos = p->from; pos < p->to;) {
		size_t want = p->to - pos < cap ? (size_t)(p->to - pos) : cap;
		if (pread_full(p, buf, want, pos) != want)
			die("file shrank while read", p->path);
		if (!p->order) { /* --sum: no copies of records */
			for (size_t i = 0; i < want; i += recsize)
				add(&p->s, buf + i);
		} else {
			take(p, buf, pos);
			for (size_t i = recsize; i < want; i += recsize) {
				if (!p->bad && cmp(buf + i - recsize, buf + i) > 0)
					p->bad = pos + i + 1;
				add(&p->s, buf + i);
			}
			memcpy(p->last, buf + want - recsize, recsize);
		}
		pos += want;
	}
	free(buf);
	return NULL;
}

static void *scan_text_part(void *arg)
{
	struct part *p = arg;
	enum { CAP = 8 << 20 };
	char *buf = malloc(CAP);
	unsigned char *rec = malloc(recsize);
	uint64_t pos = p->from, base = p->from; /* base: file offset of buf[0] */
	size_t have = 0;
	int skip = 0;
	if (!buf || !rec)
		die("out of memory", NULL);
	if (p->from > 0) { /* does a line start at from? else skip the rest of one */
		char c;
		skip = pread_full(p, &c, 1, p->from - 1) == 1 && c != '\n';
	}
	for (;;) {
		size_t got = pread_full(p, buf + have, CAP - have, pos);
		int eof = got < CAP - have;
		pos += got;
		have += got;
		char *q = buf, *end = buf + have;
		while (q < end) {
			uint64_t at = base + (uint64_t)(q - buf);
			if (at >= p->to && !skip)
				goto done; /* the next part's line */
			char *nl = memchr(q, '\n', (size_t)(end - q));
			if (!nl && !eof)
				break; /* a partial line: read on */
			char *le = nl ? nl : end;
			if (skip) {
				skip = 0;
			} else if (from_text(q, le, rec)) {
				fprintf(stderr, "checkrec: %s: the line at byte %" PRIu64 " is not a record: %.*s\n",
					p->path, at, (int)(le - q < 80 ? le - q : 80), q);
				exit(1);
			} else {
				take(p, rec, at);
			}
			q = nl ? nl + 1 : end;
		}
		if (eof)
			break;
		have = (size_t)(end - q);
		if (have == CAP)
			die("line too long", p->path);
		memmove(buf, q, have);
		base += (uint64_t)(q - buf);
	}
done:
	free(buf);
	free(rec);
	return NULL;
}

/* the file's multiset sum, and with order the first record out of order
 * (1 + its byte offset; 0: none) */
static void scan(const char *path, int text, int order, struct sum *s, uint64_t *bad)
{
	enum { MAXT = 16 };
	struct part parts[MAXT];
	pthread_t tid[MAXT];
	struct stat st;
	int fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "checkrec: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	if (!S_ISREG(st.st_mode)) /* parts are read by pread */
		die("not a regular file", path);
	uint64_t size = (uint64_t)st.st_size, unit = text ? 1 : recsize;
	if (!text && size % recsize)
		die("size is not a multiple of the record size", path);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t t = size / (64u << 20) + 1; /* no threads for small files */
	if (t > (uint64_t)(cpus > 0 ? cpus : 1))
		t = (uint64_t)(cpus > 0 ? cpus : 1);
	const char *force = getenv("CHECKREC_THREADS"); /* for tests of the part boundaries */
	if (force && atoi(force) > 0)
		t = (uint64_t)atoi(force);
	if (t > MAXT)
		t = MAXT;
	uint64_t units = size / unit;
	for (uint64_t i = 0; i < t; i++) {
		struct part *p = &parts[i];
		memset(p, 0, sizeof *p);
		p->path = path;
		p->fd = fd;
		p->text = text;
		p->order = order;
		p->from = units * i / t * unit;
		p->to = units * (i + 1) / t * unit;
		p->first = malloc(recsize);
		p->last = malloc(recsize);
		if (!p->first || !p->last)
			die("out of memory", NULL);
		if (pthread_create(&tid[i], NULL, text ? scan_text_part : scan_bin_part, p))
			die("cannot start a thread", NULL);
	}
	const struct part *prev = NULL;
	for (uint64_t i = 0; i < t; i++) {
		struct part *p = &parts[i];
		pthread_join(tid[i], NULL);
		s->n += p->s.n;
		s->h += p->s.h;
		s->g += p->s.g;
		if (order && p->have && prev && !*bad && cmp(prev->last, p->first) > 0)
			*bad = p->first_off + 1;
		if (order && p->bad && !*bad)
			*bad = p->bad;
		if (p->have)
			prev = p;
	}
	for (uint64_t i = 0; i < t; i++) {
		free(parts[i].first);
		free(parts[i].last);
	}
	close(fd);
}

static void usage(void)
{
	fputs("usage: checkrec [-R SIZE] -k KEY... [-t] (IN OUT | -e SUM OUT | --sum IN | --to-text IN)\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *expect = NULL, *files[2];
	int text = 0, sum_only = 0, totext = 0, nfiles = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if ((!strcmp(a, "-k") || !strcmp(a, "-R") || !strcmp(a, "-e") ||
		     !strcmp(a, "--record-size")) && i + 1 < argc) {
			const char *v = argv[++i];
			if (a[1] == 'k')
				parse_key(v);
			else if (a[1] == 'e')
				expect = v;
			else if ((recsize = strtoul(v, NULL, 10)) < 1 || recsize > MAXREC)
				die("bad record size", v);
		} else if (!strcmp(a, "-t")) {
			text = 1;
		} else if (!strcmp(a, "--sum")) {
			sum_only = 1;
		} else if (!strcmp(a, "--to-text")) {
			totext = 1;
		} else if (a[0] == '-' && a[1]) {
			usage();
		} else if (nfiles < 2) {
			files[nfiles++] = a;
		} else {
			usage();
		}
	}
	if (!nkeys)
		usage();
	size_t end = 0;
	for (int i = 0; i < nkeys; i++)
		if (keys[i].off + keys[i].width > end)
			end = keys[i].off + keys[i].width;
	if (!recsize)
		recsize = end;
	if (end > recsize)
		die("a key runs past the record", NULL);
	for (int i = 0; i < nkeys; i++) {
		memset(covered + keys[i].off, 1, keys[i].width);
		if ((text || totext) && (keys[i].kind == BYTES || keys[i].kind == FLT))
			die("the text form takes integer keys only", NULL);
	}

	struct sum in = { 0, 0, 0 }, out = { 0, 0, 0 };
	uint64_t bad = 0;
	if (sum_only || totext) {
		if (nfiles != 1 || expect || text)
			usage();
		if (sum_only) {
			scan(files[0], 0, 0, &in, &bad);
			printf("%" PRIu64 ":%016" PRIx64 ":%016" PRIx64 "\n", in.n, in.h, in.g);
			return 0;
		}
		size_t cap = recsize * ((8u << 20) / recsize + 1), got;
		unsigned char *buf = malloc(cap);
		FILE *f = open_in(files[0]);
		if (!buf)
			die("out of memory", NULL);
		size_t line = 21 * (size_t)nkeys + 2 * recsize + 2, used = 0;
		char *txt = malloc((1u << 20) + line);
		if (!txt)
			die("out of memory", NULL);
		while ((got = read_recs(f, files[0], buf, cap)) > 0)
			for (size_t i = 0; i < got; i += recsize) {
				used += to_text(buf + i, txt + used);
				if (used >= 1u << 20) {
					fwrite(txt, 1, used, stdout);
					used = 0;
				}
			}
		fwrite(txt, 1, used, stdout);
		fclose(f);
		if (fflush(stdout) || ferror(stdout))
			die("write error", "standard output");
		return 0;
	}
	if (nfiles != (expect ? 1 : 2))
		usage();
	const char *opath = files[nfiles - 1];
	if (expect) {
		if (sscanf(expect, "%" SCNu64 ":%" SCNx64 ":%" SCNx64, &in.n, &in.h, &in.g) != 3)
			die("bad sum (N:H:G, as --sum prints it)", expect);
	} else {
		scan(files[0], 0, 0, &in, &bad);
	}
	scan(opath, text, 1, &out, &bad);
	int ok = 1;
	if (bad) {
		if (text)
			fprintf(stderr, "checkrec: %s: the line at byte %" PRIu64 " is out of order\n",
				opath, bad - 1);
		else
			fprintf(stderr, "checkrec: %s: record %" PRIu64 " is out of order\n",
				opath, (bad - 1) / recsize + 1);
		ok = 0;
	}
	if (in.n != out.n) {
		fprintf(stderr, "checkrec: %s: %" PRIu64 " records, input has %" PRIu64 "\n",
			opath, out.n, in.n);
		ok = 0;
	} else if (in.h != out.h || in.g != out.g) {
		fprintf(stderr, "checkrec: %s: not the same records as the input (multiset hash)\n", opath);
		ok = 0;
	}
	if (!ok)
		return 1;
	printf("ok %" PRIu64 " records\n", out.n);
	return 0;
}
