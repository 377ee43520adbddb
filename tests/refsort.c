/*
 * refsort.c - independent reference sorter for the gpusort tests.
 *
 *   refsort --record-size R [-k TYPE[@OFF][:r]]... [-r] [-u] [-c] < in > out
 *
 * (also --record-size=R, --key=KEYDEF, --reverse, --unique, -s/--stable,
 * which is a no-op: the sort is always stable)
 *
 * Deliberately simple and deliberately different from gpusort: every key
 * field is decoded into its value (uint64_t, int64_t, a float with its class,
 * or bytes) and values are compared directly; nothing is normalized into
 * byte strings. All records are read into memory and an array of indices is
 * sorted with qsort, the index being the last tie-break (stable).
 *
 *   -u   keep the first record of each group of equal keys
 *   -c   do not sort: print the 1-based number of the first record that is
 *        out of order (less than its predecessor; with -u: not greater than
 *        it), or 0 when sorted, on stdout
 *
 * Record size: --record-size, else the end of the furthest key. Offsets
 * default to 0 for the first key and to the end of the previous key for the
 * others. No -k: the whole record is compared with memcmp.
 * Exit 0 on success, 2 on any error (message on stderr).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_UINT, T_SINT, T_FLOAT, T_BYTES };

struct key {
	int type;
	size_t width;
	int big;        /* stored big-endian */
	size_t off;
	int desc;       /* :r */
};

#define MAXKEYS 64
static struct key keys[MAXKEYS];
static int nkeys;
static int reverse_all;
static size_t rs;
static unsigned char *data;

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "refsort: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

/* Parse TYPE[@OFF][:r]; default offset is `next`. */
static void parse_key(const char *s, size_t next)
{
	struct key k;
	char name[64];
	const char *p = s;
	size_t n = 0;

	memset(&k, 0, sizeof k);
	if (nkeys == MAXKEYS)
		die("too many keys", s);
	while (*p && *p != '@' && *p != ':' && n < sizeof name - 1)
		name[n++] = *p++;
	name[n] = '\0';

	if (strncmp(name, "bytes", 5) == 0) {
		char *end;
		unsigned long long w;
		if (name[5] < '0' || name[5] > '9')
			die("bad key type", s);
		errno = 0;
		w = strtoull(name + 5, &end, 10);
		if (errno || *end || w == 0 || w > 1048576)
			die("bad key type", s);
		k.type = T_BYTES;
		k.width = (size_t)w;
	} else {
		size_t len = strlen(name);
		if (len >= 2 && strcmp(name + len - 2, "be") == 0) {
			k.big = 1;
			name[len - 2] = '\0';
		}
		if (name[0] == 'u')
			k.type = T_UINT;
		else if (name[0] == 'i')
			k.type = T_SINT;
		else if (name[0] == 'f')
			k.type = T_FLOAT;
		else
			die("bad key type", s);
		if (strcmp(name + 1, "8") == 0)
			k.width = 1;
		else if (strcmp(name + 1, "16") == 0)
			k.width = 2;
		else if (strcmp(name + 1, "32") == 0)
			k.width = 4;
		else if (strcmp(name + 1, "64") == 0)
			k.width = 8;
		else
			die("bad key type", s);
		if (k.type == T_FLOAT && k.width < 4)
			die("bad key type", s);
		if (k.big && k.width == 1)
			die("bad key type", s);
	}

	k.off = next;
	if (*p == '@') {
		char *end;
		unsigned long long o;
		p++;
		if (*p < '0' || *p > '9')
			die("bad offset", s);
		errno = 0;
		o = strtoull(p, &end, 10);
		if (errno)
			die("bad offset", s);
		k.off = (size_t)o;
		p = end;
	}
	if (*p == ':') {
		if (strcmp(p, ":r") != 0)
			die("bad key modifier", s);
		k.desc = 1;
		p += 2;
	}
	if (*p)
		die("bad key", s);
	keys[nkeys++] = k;
}

/* Read a `width`-byte unsigned integer stored little- or big-endian. */
static uint64_t get_uint(const unsigned char *p, size_t width, int big)
{
	uint64_t v = 0;
	size_t i;
	for (i = 0; i < width; i++) {
		unsigned b = big ? p[i] : p[width - 1 - i];
		v = (v << 8) | b;
	}
	return v;
}

static int64_t get_sint(const unsigned char *p, size_t width, int big)
{
	uint64_t u = get_uint(p, width, big);
	unsigned bits = (unsigned)(width * 8);
	if (bits < 64 && (u >> (bits - 1)) & 1)
		u |= ~(uint64_t)0 << bits;   /* sign-extend */
	if (u <= (uint64_t)INT64_MAX)
		return (int64_t)u;
	/* negative: -(2^64 - u), computed without overflow */
	return -(int64_t)(~u) - 1;
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

/* Decoded float: sign, NaN-ness, magnitude bits (for NaN payloads), value. */
struct fval {
	int neg;
	int nan;
	uint64_t mag;   /* bits without the sign bit */
	double v;       /* value, for non-NaN (exact for f32 too) */
};

static struct fval get_float(const unsigned char *p, size_t width, int big)
{
	struct fval f;
	uint64_t bits = get_uint(p, width, big);
	if (width == 4) {
		uint32_t b = (uint32_t)bits;
		float x;
		memcpy(&x, &b, sizeof x);
		f.neg = (b >> 31) & 1;
		f.mag = b & 0x7fffffffu;
		f.nan = (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0;
		f.v = (double)x;
	} else {
		double x;
		memcpy(&x, &bits, sizeof x);
		f.neg = (int)((bits >> 63) & 1);
		f.mag = bits & 0x7fffffffffffffffull;
		f.nan = ((bits >> 52) & 0x7ff) == 0x7ff && (bits & 0xfffffffffffffull) != 0;
		f.v = x;
	}
	return f;
}

/*
 * IEEE-754 total order, by sign and class:
 *   -NaN < -inf < negatives < -0.0 < +0.0 < positives < +inf < +NaN;
 * NaNs of one sign ordered by their magnitude bits, larger further out.
 */
static int cmp_float(struct fval a, struct fval b)
{
	if (a.nan || b.nan) {
		/* rank: -NaN = 0, anything not NaN = 1, +NaN = 2 */
		int ra = a.nan ? (a.neg ? 0 : 2) : 1;
		int rb = b.nan ? (b.neg ? 0 : 2) : 1;
		if (ra != rb)
			return CMP(ra, rb);
		/* both NaN of the same sign */
		return a.neg ? CMP(b.mag, a.mag) : CMP(a.mag, b.mag);
	}
	if (a.v < b.v)
		return -1;
	if (a.v > b.v)
		return 1;
	/* equal values: only -0.0 vs +0.0 can still differ */
	if (a.v == 0.0 && a.neg != b.neg)
		return a.neg ? -1 : 1;
	return 0;
}

static int cmp_field(const struct key *k, const unsigned char *a, const unsigned char *b)
{
	const unsigned char *pa = a + k->off, *pb = b + k->off;
	switch (k->type) {
	case T_UINT: {
		uint64_t x = get_uint(pa, k->width, k->big), y = get_uint(pb, k->width, k->big);
		return CMP(x, y);
	}
	case T_SINT: {
		int64_t x = get_sint(pa, k->width, k->big), y = get_sint(pb, k->width, k->big);
		return CMP(x, y);
	}
	case T_FLOAT:
		return cmp_float(get_float(pa, k->width, k->big), get_float(pb, k->width, k->big));
	default: {
		int c = memcmp(pa, pb, k->width);
		return CMP(c, 0);
	}
	}
}

/* Compare the keys of two records (no index tie-break). */
static int cmp_keys(const unsigned char *a, const unsigned char *b)
{
	int i, c;
	if (nkeys == 0) {
		c = memcmp(a, b, rs);
		c = CMP(c, 0);
		return reverse_all ? -c : c;
	}
	for (i = 0; i < nkeys; i++) {
		c = cmp_field(&keys[i], a, b);
		if (keys[i].desc)
			c = -c;
		if (reverse_all)
			c = -c;
		if (c)
			return c;
	}
	return 0;
}

static int cmp_index(const void *pa, const void *pb)
{
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	int c = cmp_keys(data + ia * rs, data + ib * rs);
	if (c)
		return c;
	return CMP(ia, ib);   /* stable */
}

int main(int argc, char **argv)
{
	int unique = 0, check = 0, i;
	size_t next = 0, maxend = 0, n, len = 0, cap = 0, *idx;
	long long rs_opt = -1;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-r") == 0 || strcmp(a, "--reverse") == 0) {
			reverse_all = 1;
		} else if (strcmp(a, "-s") == 0 || strcmp(a, "--stable") == 0) {
			/* always stable */
		} else if (strcmp(a, "-u") == 0 || strcmp(a, "--unique") == 0) {
			unique = 1;
		} else if (strcmp(a, "-c") == 0) {
			check = 1;
		} else if (strcmp(a, "-k") == 0 || strcmp(a, "--record-size") == 0) {
			if (i + 1 >= argc)
				die("option needs an argument", a);
			if (a[1] == 'k') {
				parse_key(argv[++i], next);
				next = keys[nkeys - 1].off + keys[nkeys - 1].width;
				if (next > maxend)
					maxend = next;
			} else {
				char *end;
				rs_opt = strtoll(argv[++i], &end, 10);
				if (*end || rs_opt <= 0)
					die("bad record size", argv[i]);
			}
		} else if (strncmp(a, "-k", 2) == 0 || strncmp(a, "--key=", 6) == 0) {
			parse_key(a + (a[1] == 'k' ? 2 : 6), next);
			next = keys[nkeys - 1].off + keys[nkeys - 1].width;
			if (next > maxend)
				maxend = next;
		} else if (strncmp(a, "--record-size=", 14) == 0) {
			char *end;
			rs_opt = strtoll(a + 14, &end, 10);
			if (*end || rs_opt <= 0)
				die("bad record size", a);
		} else {
			die("unknown argument", a);
		}
	}
	if (rs_opt > 0)
		rs = (size_t)rs_opt;
	else if (nkeys > 0)
		rs = maxend;
	else
		die("no -k and no --record-size", NULL);
	if (maxend > rs)
		die("key beyond the record", NULL);

	/* read everything */
	for (;;) {
		size_t got;
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			data = realloc(data, cap);
			if (!data)
				die("out of memory", NULL);
		}
		got = fread(data + len, 1, cap - len, stdin);
		len += got;
		if (got == 0) {
			if (ferror(stdin))
				die("read error", strerror(errno));
			break;
		}
	}
	if (len % rs)
		die("input size is not a multiple of the record size", NULL);
	n = len / rs;

	if (check) {
		size_t bad = 0, j;
		for (j = 1; j < n; j++) {
			int c = cmp_keys(data + (j - 1) * rs, data + j * rs);
			if (c > 0 || (unique && c == 0)) {
				bad = j + 1;
				break;
			}
		}
		printf("%zu\n", bad);
		return 0;
	}

	idx = malloc((n ? n : 1) * sizeof *idx);
	if (!idx)
		die("out of memory", NULL);
	{
		size_t j;
		for (j = 0; j < n; j++)
			idx[j] = j;
	}
	qsort(idx, n, sizeof *idx, cmp_index);

	{
		size_t j;
		const unsigned char *prev = NULL;
		for (j = 0; j < n; j++) {
			const unsigned char *r = data + idx[j] * rs;
			if (unique && prev && cmp_keys(prev, r) == 0)
				continue;
			if (fwrite(r, 1, rs, stdout) != rs)
				die("write error", strerror(errno));
			prev = r;
		}
	}
	if (fflush(stdout) != 0)
		die("write error", strerror(errno));
	free(idx);
	free(data);
	return 0;
}
