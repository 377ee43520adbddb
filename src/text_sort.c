/* text_sort.c - a chunk of lines sorted through prefix records (text_sort.h). */
#define _GNU_SOURCE
#include "text_sort.h"
#include "cpusort.h"
#include "text_cmp.h"
#include "text_io.h"
#include "text_prefix.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void text_sort_layout(keys_spec *ks)
{
	memset(ks, 0, sizeof *ks);
	ks->record_size = TEXT_RECORD;
	ks->key_width = TEXT_PREFIX;
	ks->n = 1;
	ks->f[0] = (keys_field){ .offset = 0, .width = TEXT_PREFIX, .kind = KEYS_BYTES };
}

static inline uint32_t rec_index(const uint8_t *r)
{
	return (uint32_t)r[12] << 24 | (uint32_t)r[13] << 16 | (uint32_t)r[14] << 8 | r[15];
}

/* The big-endian index after a prefix of w bytes. */
static inline uint32_t rec_index_at(const uint8_t *r, uint32_t w)
{
	return (uint32_t)r[w] << 24 | (uint32_t)r[w + 1] << 16 | (uint32_t)r[w + 2] << 8 | r[w + 3];
}

#define WIDTH_PARTS 256   /* most parts narrow_records checks the prefix width in */
#define WIDTH_PROBES 1024 /* records looked at before a chunk is rewritten at 4 prefix bytes */

typedef struct job {
	text_sorter *t;
	const text_chunk *c;
	const uint8_t *sorted;
	size_t lo, hi;            /* finish_ties: the sorted records [lo, hi), no run of equal prefixes cut */
	text_part_fn part;        /* text_sort_chunk_parts' caller */
	void *part_arg;
	int par;
	double part_s;            /* seconds in part */
	uint32_t w;               /* the sorted records: w prefix bytes, then the index */
	size_t rs;                /* their bytes: w + 4 */
	uint8_t *dst;             /* narrow_records: the records rewritten at rs bytes */
	int wide[WIDTH_PARTS];    /* narrow_records: part p met a prefix that is not padding after 4 bytes */
	size_t start;             /* the key 0 bytes every line shares (chunk_start): the records' prefixes start there */
	size_t giant;             /* finish_ties leaves runs of this many lines or more to refine_giant (0: none) */
	int giant_seen;           /* finish_ties met one */
} job;

static void make_records(void *arg, int part, int parts)
{
	job *j = arg;
	size_t lo, hi;
	util_split(j->c->n, part, parts, &lo, &hi);
	uint64_t sum = 0;
	for (size_t i = lo; i < hi; i++) {
		uint8_t *r = j->t->a + i * TEXT_RECORD;
		const uint64_t *st = j->c->start;
		const uint8_t *line = j->c->buf + st[i];
		size_t len = (size_t)(st[i + 1] - st[i] - 1);
		size_t kl;
		text_pos next;
		text_prefix_at(j->t->s, 0, line, len, j->start, r, &kl, &next);
		r[12] = (uint8_t)(i >> 24), r[13] = (uint8_t)(i >> 16), r[14] = (uint8_t)(i >> 8), r[15] = (uint8_t)i;
		if (j->t->verify)
			sum += text_line_hash(line, len);
	}
	if (sum)
		__atomic_add_fetch(&j->t->vsum, sum, __ATOMIC_RELAXED);
}

/*
 * The prefix width the chunk's records need (text_sort_chunk_parts): 4
 * bytes when every record's prefix bytes after the first 4 are the same,
 * else 12. The width follows from the keys' bytes: keys no longer than 4
 * bytes (a short code column, a character range such as -k2.1,2.3, -M's
 * month alone) leave the rest of the prefix padding, and 8-byte records
 * instead of 16 halve the bytes every pass of the sort moves (1 GiB of
 * CSV, -t, -k2.1,2.3, 2-core VM: the sort 0.53-0.71 -> 0.17-0.20 s, the
 * narrowing pass 0.05-0.1 s; bench/results/2core-prefix-width-2026-11-26.md).
 * An 8-byte width (12-byte records) measured no faster than 12 there, its
 * narrowing pass included. Equal prefixes of 4 bytes are then equal
 * prefixes of 12, so runs of ties are what they were.
 *
 * probe_narrow looks at WIDTH_PROBES records spread over the chunk first:
 * only when their prefixes all end within 4 bytes are the records
 * rewritten, each checked as it is copied (narrow_records), and the chunk
 * kept at 12 bytes if one is not padding after all. Checking every record
 * while the prefixes were made cost the -n prefixes 4-8% on the H200 machine.
 */
static int probe_narrow(const uint8_t *a, size_t n)
{
	size_t step = n / WIDTH_PROBES + 1;
	for (size_t i = step; i < n; i += step)
		if (memcmp(a + i * TEXT_RECORD + 4, a + 4, TEXT_PREFIX - 4))
			return 0;
	return !n || !memcmp(a + (n - 1) * TEXT_RECORD + 4, a + 4, TEXT_PREFIX - 4);
}

/* The records rewritten at j->rs bytes: their first j->w prefix bytes and
 * the index; j->wide[part] set when one's bytes [4, 12) are not record 0's. */
static void narrow_records(void *arg, int part, int parts)
{
	job *j = arg;
	size_t lo, hi;
	util_split(j->c->n, part, parts, &lo, &hi);
	const uint8_t *src = j->t->a;
	uint64_t tail, t;
	memcpy(&tail, src + 4, 8);
	int wide = 0;
	for (size_t i = lo; i < hi; i++) {
		const uint8_t *r = src + i * TEXT_RECORD;
		memcpy(&t, r + 4, 8);
		wide |= t != tail;
		memcpy(j->dst + i * j->rs, r, j->w);
		memcpy(j->dst + i * j->rs + j->w, r + TEXT_PREFIX, 4);
	}
	j->wide[part] = wide;
}

/* cmp_lines' argument: the job, and the first key its lines may differ in. */
typedef struct line_cmp {
	const job *j;
	int ki;
} line_cmp;

/* qsort_r's order of two line indices of a run whose keys before c->ki
 * are equal (the run was refined that far): the full comparison from
 * there, then input order. */
static int cmp_lines(const void *x, const void *y, void *arg)
{
	const line_cmp *c = arg;
	const job *j = c->j;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const uint64_t *st = j->c->start;
	int d = text_cmp_from(j->t->s, c->ki, j->c->buf + st[a], (size_t)(st[a + 1] - st[a] - 1), j->c->buf + st[b],
			      (size_t)(st[b + 1] - st[b] - 1));
	return d ? d : (a > b) - (a < b);
}

#define REFINE_MIN 16    /* a run of equal prefixes this long is refined by the next prefix bytes */
#define REFINE_LEVELS 16 /* refinements at most (192 key bytes), then the full comparison alone */

/* Where the prefixes from (ki, off) of line i end (text_prefix_at's *next). */
static text_pos next_pos(const job *j, uint32_t i, int ki, size_t off)
{
	const uint64_t *st = j->c->start;
	uint8_t r[TEXT_PREFIX];
	size_t kl;
	text_pos at = { ki, off + TEXT_PREFIX };
	text_prefix_at(j->t->s, ki, j->c->buf + st[i], (size_t)(st[i + 1] - st[i] - 1), off, r, &kl, &at);
	return at;
}

#define LINE_AHEAD 16 /* lines of a run refine's loops fetch ahead */

/*
 * Before line ord[k] of a run is read: the offset of line ord[k + 2D] and
 * the bytes from `off` of line ord[k + D] (D = LINE_AHEAD) fetched, in
 * two steps. A run's lines lie at random places of a chunk far larger
 * than the caches, and each is read once a level.
 */
static inline void line_ahead(const job *j, const uint32_t *ord, size_t k, size_t m, size_t off, size_t bytes)
{
	const uint64_t *st = j->c->start;
	if (k + 2 * LINE_AHEAD < m)
		__builtin_prefetch(&st[ord[k + 2 * LINE_AHEAD]]);
	if (k + LINE_AHEAD < m) {
		const uint8_t *p = j->c->buf + st[ord[k + LINE_AHEAD]] + off;
		for (size_t b = 0; b < bytes; b += 64)
			__builtin_prefetch(p + b);
	}
}

/* Key ki of line i as the raw bytes it compares (text_raw_key): 1, or 0 for a key not compared by them. */
static int raw_key(const job *j, uint32_t i, int ki, const uint8_t **b, const uint8_t **e)
{
	const uint64_t *st = j->c->start;
	return text_raw_key(j->t->s, ki, j->c->buf + st[i], (size_t)(st[i + 1] - st[i] - 1), b, e);
}

/* The first q in [off, n) where a[q] != b[q], or n. */
static inline size_t same_from(const uint8_t *a, const uint8_t *b, size_t off, size_t n)
{
	size_t q = off;
	uint64_t x, y;
	for (; q + 8 <= n; q += 8) { /* a word at a time: starts of hundreds of bytes */
		memcpy(&x, a + q, 8);
		memcpy(&y, b + q, 8);
		if (x != y)
			break;
	}
	while (q < n && a[q] == b[q])
		q++;
	return q;
}

/*
 * How far the raw bytes of key ki (raw_key) of every line of ord[0, m)
 * are those of line `ref`, at most l (ref's key length) and given that they
 * are up to off; returns off as soon as one differs there. *same: 1 when
 * every key is ref's (its l bytes, no more), which takes a look at each
 * line's key length even when ref's ends before off.
 */
static size_t common_with(const job *j, uint32_t ref, const uint32_t *ord, size_t m, int ki, size_t off, size_t l,
			  int *same)
{
	const uint8_t *b0, *e0, *b, *e;
	const size_t l0 = l;
	int len_differs = 0;
	raw_key(j, ref, ki, &b0, &e0);
	for (size_t k = 0; k < m; k++) {
		if (l <= off && (len_differs || l < l0))
			break; /* neither a longer shared start nor equal keys left to find */
		line_ahead(j, ord, k, m, off, l > off ? (l - off < 256 ? l - off : 256) : 0);
		raw_key(j, ord[k], ki, &b, &e);
		len_differs |= (size_t)(e - b) != l0;
		if (l > off)
			l = same_from(b, b0, off, (size_t)(e - b) < l ? (size_t)(e - b) : l);
	}
	*same = !len_differs && l == l0;
	return l > off ? l : off;
}

/* 1 when key ki is a -R key without -f/-d/-i: its code is the MD5 of its
 * raw bytes, then those bytes. */
static int random_key(const job *j, int ki)
{
	const text_spec *s = j->t->s;
	return ki < s->nkeys && s->key[ki].random && !s->key[ki].ignore && !s->key[ki].fold;
}

/* Whether every line of ord[0, m) is line ord[0], byte for byte: 1 or 0.
 * Such lines are equal under every key and option, so input order stands. */
static int same_lines(const job *j, const uint32_t *ord, size_t m)
{
	const uint64_t *st = j->c->start;
	const uint8_t *l0 = j->c->buf + st[ord[0]];
	const uint64_t n0 = st[ord[0] + 1] - st[ord[0]];
	for (size_t k = 1; k < m; k++)
		if (st[ord[k] + 1] - st[ord[k]] != n0 || memcmp(j->c->buf + st[ord[k]], l0, (size_t)n0))
			return 0;
	return 1;
}

/* Whether key ki of every line of ord[0, m) is that of line ref: 1 or 0. */
static int same_key(const job *j, uint32_t ref, const uint32_t *ord, size_t m, int ki)
{
	const text_spec *s = j->t->s;
	const uint64_t *st = j->c->start;
	const uint8_t *b0, *e0, *b, *e;
	text_key_bounds(s, &s->key[ki], j->c->buf + st[ref], (size_t)(st[ref + 1] - st[ref] - 1), &b0, &e0);
	for (size_t k = 0; k < m; k++) {
		line_ahead(j, ord, k, m, 0, TEXT_PREFIX);
		text_key_bounds(s, &s->key[ki], j->c->buf + st[ord[k]], (size_t)(st[ord[k] + 1] - st[ord[k]] - 1), &b, &e);
		if (e - b != e0 - b0 || memcmp(b, b0, (size_t)(e - b)))
			return 0;
	}
	return 1;
}

/* The end of line ref's -R code (its length, as text_prefix_at codes it), or off if that is not past it. */
static size_t random_end(const job *j, uint32_t ref, int ki, size_t off)
{
	const uint64_t *st = j->c->start;
	uint8_t window[TEXT_PREFIX];
	size_t klen;
	text_pos next;
	/* from past the 16 bytes of the MD5: the length without hashing the key */
	text_prefix_at(j->t->s, ki, j->c->buf + st[ref], (size_t)(st[ref + 1] - st[ref] - 1), 16, window, &klen, &next);
	return klen != SIZE_MAX && klen > off ? klen : off;
}

/*
 * A -R key (random_key) the same in every line of ord[0, m): its whole
 * code (the MD5 and the key, 16 + n bytes) is then the same, and the
 * refinement goes on past it without hashing the keys again. Returns that
 * length, else off (also for other keys).
 */
static size_t random_same(const job *j, const uint32_t *ord, size_t m, int ki, size_t off)
{
	if (!random_key(j, ki) || !same_key(j, ord[0], ord + 1, m - 1, ki))
		return off;
	return random_end(j, ord[0], ki, off);
}

/*
 * How far the raw bytes of key ki (raw_key) are the same in every line of
 * ord[0, m), given that they are up to off: a run of lines sharing a
 * start longer than REFINE_LEVELS prefixes (paths, URLs) is then refined
 * from its end, not left to the full comparison. off for other keys.
 * *same: 1 when the raw key is the same in every line (common_with).
 */
static size_t common_start(const job *j, const uint32_t *ord, size_t m, int ki, size_t off, int *same)
{
	const uint8_t *b0, *e0;
	*same = 0;
	if (raw_key(j, ord[0], ki, &b0, &e0))
		return common_with(j, ord[0], ord + 1, m - 1, ki, off, (size_t)(e0 - b0), same);
	return random_same(j, ord, m, ki, off);
}

/* chunk_start's parts: line 0's key 0 against the part's lines'. */
typedef struct chunk_start {
	const job *j;
	size_t l;                   /* line 0's key 0 length */
	size_t part_l[WIDTH_PARTS]; /* what the part's lines share with it */
} chunk_start;

static void chunk_start_part(void *arg, int part, int parts)
{
	chunk_start *g = arg;
	const job *j = g->j;
	const uint8_t *b0, *e0, *b, *e;
	size_t lo, hi, l = g->l;
	util_split(j->c->n, part, parts, &lo, &hi);
	raw_key(j, 0, 0, &b0, &e0);
	for (size_t i = lo; i < hi && l; i++) { /* most chunks: over after a line or two */
		raw_key(j, (uint32_t)i, 0, &b, &e);
		l = same_from(b, b0, 0, (size_t)(e - b) < l ? (size_t)(e - b) : l);
	}
	g->part_l[part] = l;
}

/*
 * The bytes of key 0 that every line of the chunk shares (0 for a key not
 * compared by its raw bytes, raw_key), on j->par threads. The records'
 * prefixes start past them: lines that all begin alike (log lines' dates,
 * paths under one root, URLs) are then told apart by the chunk's radix
 * sort, not left as one run of ties as large as the chunk to refine_giant.
 * Every key is at least that long, so the prefixes keep the order.
 */
static size_t chunk_common_start(const job *j)
{
	const uint8_t *b0, *e0;
	if (j->c->n < 2 || !raw_key(j, 0, 0, &b0, &e0) || b0 == e0)
		return 0;
	chunk_start g = { .j = j, .l = (size_t)(e0 - b0) };
	util_par_run(j->par, chunk_start_part, &g);
	size_t l = g.l;
	for (int p = 0; p < j->par; p++)
		l = g.part_l[p] < l ? g.part_l[p] : l;
	return l;
}

/* common_start of a giant run (refine_giant), its lines cut into parts. */
typedef struct giant_start {
	const job *j;
	const uint32_t *ord;
	size_t m, off, l;
	int ki, random;
	size_t part_l[WIDTH_PARTS];
	int part_same[WIDTH_PARTS]; /* common_with's *same */
} giant_start;

static void giant_start_part(void *arg, int part, int parts)
{
	giant_start *g = arg;
	size_t lo, hi;
	util_split(g->m, part, parts, &lo, &hi);
	if (g->random) /* random_same's test: 1 where the part's keys are line 0's */
		g->part_l[part] = (size_t)same_key(g->j, g->ord[0], g->ord + lo, hi - lo, g->ki);
	else
		g->part_l[part] = common_with(g->j, g->ord[0], g->ord + lo, hi - lo, g->ki, g->off, g->l,
					      &g->part_same[part]);
}

/*
 * Order lines ord[0, m) (ascending indices; their prefixes equal up to
 * key ki's compared byte `off`: the keys before ki equal, key ki's bytes
 * before off too). A long run is sorted again by the prefixes from (ki,
 * off) (text_prefix_at), recursively: key ki's next bytes, or, when key
 * ki is the same in every line, the next key's (the whole line after the
 * last, unless -s or -u), so that lines sharing a long start (timestamps,
 * URLs) or a first key are still radix-sorted. Short runs and what
 * prefixes cannot tell apart (value ties, runs past REFINE_LEVELS) are
 * sorted by the full comparison; *ties counts the lines it placed.
 */
static void refine(const job *j, uint32_t *ord, size_t m, int ki, size_t off, int level, uint64_t *ties)
{
	const text_spec *s = j->t->s;
	if (m < 2 || (ki == s->nkeys && s->nkeys && (s->stable || s->unique)))
		return; /* equal keys and no last resort: input order stands */
	const uint64_t *st = j->c->start;
	uint8_t *a = NULL, *b = NULL;
	if (m >= REFINE_MIN) {
		/* a start all the lines share costs no level: refined past it at once
		 * (common_start never returns less than off) */
		int same;
		off = common_start(j, ord, m, ki, off, &same);
		if (same) { /* key ki is the same in every line: no records to make */
			if (ki < s->nkeys)
				refine(j, ord, m, ki + 1, 0, level + 1, ties);
			return; /* past the last resort: equal lines, input order stands */
		}
	}
	if (m >= REFINE_MIN && level < REFINE_LEVELS) {
		a = malloc(m * TEXT_RECORD);
		b = malloc(m * TEXT_RECORD);
	}
	size_t len0 = 0;
	int ok = a && b, same = 1, used_up = 1;
	for (size_t k = 0; ok && k < m; k++) {
		line_ahead(j, ord, k, m, off, TEXT_PREFIX);
		uint8_t *r = a + k * TEXT_RECORD;
		uint32_t i = ord[k];
		size_t kl;
		text_pos at;
		if (!text_prefix_at(s, ki, j->c->buf + st[i], (size_t)(st[i + 1] - st[i] - 1), off, r, &kl, &at)) {
			ok = 0;
			break;
		}
		same &= !k || kl == len0;
		len0 = kl;
		used_up &= kl <= off;
		r[12] = (uint8_t)(i >> 24), r[13] = (uint8_t)(i >> 16), r[14] = (uint8_t)(i >> 8), r[15] = (uint8_t)i;
	}
	if (!ok) {
		free(a);
		free(b);
		if (same_lines(j, ord, m))
			return; /* repeated lines (short runs of them): input order stands */
		line_cmp lc = { j, ki };
		qsort_r(ord, m, sizeof *ord, cmp_lines, &lc);
		*ties += m;
		return;
	}
	if (used_up && same) { /* key ki is the same in every line: on to the next */
		free(a);
		free(b);
		if (ki < s->nkeys)
			refine(j, ord, m, ki + 1, 0, level + 1, ties);
		return;
	}
	const uint8_t *R = cpusort_radix_msd(a, b, m, TEXT_RECORD, TEXT_PREFIX, 1);
	for (size_t k = 0; k < m; k++)
		ord[k] = rec_index(R + k * TEXT_RECORD);
	for (size_t i = 0; i < m;) {
		size_t e = i + 1;
		while (e < m && !memcmp(R + e * TEXT_RECORD, R + i * TEXT_RECORD, TEXT_PREFIX))
			e++;
		if (e - i > 1) {
			text_pos at = next_pos(j, ord[i], ki, off);
			refine(j, ord + i, e - i, at.ki, at.off, level + 1, ties);
		}
		i = e;
	}
	free(a);
	free(b);
}

/* sort_lines_par's pieces: sorted, then merged two by two. */
typedef struct lines_par {
	line_cmp lc;
	uint32_t *src, *dst;
	size_t bound[WIDTH_PARTS + 1]; /* piece p: [bound[p], bound[p + 1]) */
	int pieces;
} lines_par;

static void lines_sort_piece(void *arg, int p, int parts)
{
	lines_par *l = arg;
	(void)parts;
	qsort_r(l->src + l->bound[p], l->bound[p + 1] - l->bound[p], sizeof *l->src, cmp_lines, &l->lc);
}

/* Pieces 2p and 2p + 1 of src merged into dst (an odd last piece copied). */
static void lines_merge_pair(void *arg, int p, int parts)
{
	lines_par *l = arg;
	(void)parts;
	size_t a = l->bound[2 * p], mid = l->bound[2 * p + 1], e = 2 * p + 1 < l->pieces ? l->bound[2 * p + 2] : mid;
	size_t i = a, k = mid, o = a;
	while (i < mid && k < e)
		l->dst[o++] = cmp_lines(&l->src[k], &l->src[i], &l->lc) < 0 ? l->src[k++] : l->src[i++];
	memcpy(l->dst + o, l->src + i, (mid - i) * sizeof *l->dst);
	o += mid - i;
	memcpy(l->dst + o, l->src + k, (e - k) * sizeof *l->dst);
}

/*
 * Lines ord[0, m) in text_cmp's order, then input order (as refine's
 * qsort_r), on par threads: par pieces sorted at once, then merged two by
 * two, the merges of a round at once. For a run of ties too large for one
 * thread that prefixes cannot split (equal -g codes, which are not whole;
 * runs past REFINE_LEVELS). Falls back to one qsort_r without memory.
 */
static void sort_lines_par(const job *j, int ki, uint32_t *ord, size_t m, int par)
{
	lines_par l = { .lc = { j, ki }, .src = ord, .pieces = par < WIDTH_PARTS ? par : WIDTH_PARTS };
	uint32_t *tmp = l.pieces > 1 ? malloc(m * sizeof *tmp) : NULL;
	if (!tmp) {
		qsort_r(ord, m, sizeof *ord, cmp_lines, &l.lc);
		return;
	}
	for (int p = 0; p <= l.pieces; p++)
		l.bound[p] = m * (size_t)p / (size_t)l.pieces;
	util_par_run(l.pieces, lines_sort_piece, &l);
	l.dst = tmp;
	while (l.pieces > 1) {
		int pairs = (l.pieces + 1) / 2;
		util_par_run(pairs, lines_merge_pair, &l);
		for (int p = 0; p < pairs; p++) /* piece p is now pieces 2p and 2p + 1 */
			l.bound[p + 1] = l.bound[2 * p + 2 < l.pieces ? 2 * p + 2 : l.pieces];
		l.pieces = pairs;
		uint32_t *t = l.src;
		l.src = l.dst;
		l.dst = t;
	}
	if (l.src != ord)
		memcpy(ord, l.src, m * sizeof *ord);
	free(tmp);
}

/* refine_giant's runs of equal prefixes, cut into parts at run boundaries: refine's. */
typedef struct subruns {
	const job *j;
	const uint8_t *R;   /* the run's records, sorted: TEXT_PREFIX bytes and the index */
	uint32_t *ord;      /* out: their indices */
	size_t m;
	int ki, level;
	size_t off;
	uint64_t ties;
} subruns;

static void subruns_part(void *arg, int part, int parts)
{
	subruns *u = arg;
	const job *j = u->j;
	const uint8_t *R = u->R;
	size_t lo, hi;
	util_split(u->m, part, parts, &lo, &hi);
	while (lo > 0 && lo < u->m && !memcmp(R + lo * TEXT_RECORD, R + (lo - 1) * TEXT_RECORD, TEXT_PREFIX))
		lo++;
	while (hi < u->m && hi > 0 && !memcmp(R + hi * TEXT_RECORD, R + (hi - 1) * TEXT_RECORD, TEXT_PREFIX))
		hi++;
	uint64_t ties = 0;
	for (size_t i = lo; i < hi;) {
		size_t e = i + 1;
		while (e < u->m && !memcmp(R + e * TEXT_RECORD, R + i * TEXT_RECORD, TEXT_PREFIX))
			e++;
		for (size_t k = i; k < e; k++)
			u->ord[k] = rec_index(R + k * TEXT_RECORD);
		if (e - i > 1 && (!j->giant || e - i < j->giant)) {
			text_pos at = next_pos(j, u->ord[i], u->ki, u->off);
			refine(j, u->ord + i, e - i, at.ki, at.off, u->level + 1, &ties);
		}
		i = e;
	}
	__atomic_add_fetch(&u->ties, ties, __ATOMIC_RELAXED);
}

/* refine_giant's records of lines ord[0, m) from (ki, off). */
typedef struct giant_recs {
	const job *j;
	const uint32_t *ord;
	uint8_t *a;
	size_t m, off;
	int ki;
	int bad[WIDTH_PARTS];     /* a line without a prefix there (text_prefix_at's 0) */
	size_t kl[WIDTH_PARTS];   /* the part's first key length */
	int differ[WIDTH_PARTS];  /* key lengths differ in the part */
	int left[WIDTH_PARTS];    /* a key not used up in the part */
} giant_recs;

static void giant_recs_part(void *arg, int part, int parts)
{
	giant_recs *g = arg;
	const job *j = g->j;
	const uint64_t *st = j->c->start;
	size_t lo, hi, kl, kl0 = 0;
	int bad = 0, differ = 0, left = 0;
	util_split(g->m, part, parts, &lo, &hi);
	/* the flags in locals, stored once: the parts' slots share cache lines,
	 * and a store a line from every thread cost ~1 us a line on 16 */
	for (size_t k = lo; k < hi; k++) {
		line_ahead(j, g->ord, k, hi, g->off, TEXT_PREFIX);
		uint8_t *r = g->a + k * TEXT_RECORD;
		uint32_t i = g->ord[k];
		text_pos at;
		if (!text_prefix_at(j->t->s, g->ki, j->c->buf + st[i], (size_t)(st[i + 1] - st[i] - 1), g->off, r, &kl,
				    &at)) {
			bad = 1;
			break;
		}
		if (k == lo)
			kl0 = kl;
		differ |= kl != kl0;
		left |= kl > g->off;
		r[12] = (uint8_t)(i >> 24), r[13] = (uint8_t)(i >> 16), r[14] = (uint8_t)(i >> 8), r[15] = (uint8_t)i;
	}
	g->bad[part] = bad, g->differ[part] = differ, g->left[part] = left;
	g->kl[part] = kl0;
}

/*
 * refine for a run too large for one thread (j->giant lines or more: most
 * of a chunk whose lines share their first 12 key bytes, as log lines
 * that start with a date do): its records made, sorted and its runs of
 * ties refined by all j->par threads, the giant ones among them again by
 * this function. Same contract as refine.
 */
static void refine_giant(const job *j, uint32_t *ord, size_t m, int ki, size_t off, int level, uint64_t *ties)
{
	const text_spec *s = j->t->s;
	if (m < 2 || (ki == s->nkeys && s->nkeys && (s->stable || s->unique)))
		return;
	int par = j->par < WIDTH_PARTS ? j->par : WIDTH_PARTS;
	const uint8_t *b0, *e0;
	int raw = raw_key(j, ord[0], ki, &b0, &e0);
	if (raw || random_key(j, ki)) { /* common_start (random_same), on every thread */
		giant_start gs = { .j = j, .ord = ord, .m = m, .off = off, .l = raw ? (size_t)(e0 - b0) : 0, .ki = ki,
				   .random = !raw };
		util_par_run(par, giant_start_part, &gs);
		size_t c = gs.l;
		int same = 1, all_same = 1;
		for (int p = 0; p < par; p++) {
			c = gs.part_l[p] < c ? gs.part_l[p] : c;
			same &= gs.part_l[p] == 1;
			all_same &= gs.part_same[p];
		}
		if (raw && all_same) { /* key ki the same in every line: no records to make */
			if (ki < s->nkeys)
				refine_giant(j, ord, m, ki + 1, 0, level + 1, ties);
			return; /* past the last resort: equal lines, input order stands */
		}
		if (!raw)
			c = same ? random_end(j, ord[0], ki, off) : off;
		off = c > off ? c : off;
	}
	giant_recs g = { .j = j, .ord = ord, .m = m, .off = off, .ki = ki };
	uint8_t *b = NULL;
	int ok = level < REFINE_LEVELS && (g.a = malloc(m * TEXT_RECORD)) && (b = malloc(m * TEXT_RECORD));
	int differ = 0, left = 0;
	if (ok) {
		util_par_run(par, giant_recs_part, &g);
		for (int p = 0; p < par; p++) {
			ok &= !g.bad[p];
			differ |= g.differ[p] || g.kl[p] != g.kl[0];
			left |= g.left[p];
		}
	}
	if (!ok) { /* the full comparison, on every thread */
		free(g.a);
		free(b);
		sort_lines_par(j, ki, ord, m, par);
		*ties += m;
		return;
	}
	if (!left && !differ) { /* key ki is the same in every line: on to the next */
		free(g.a);
		free(b);
		if (ki < s->nkeys)
			refine_giant(j, ord, m, ki + 1, 0, level + 1, ties);
		return;
	}
	subruns u = { .j = j, .R = cpusort_radix_msd(g.a, b, m, TEXT_RECORD, TEXT_PREFIX, par), .ord = ord, .m = m,
		      .ki = ki, .level = level, .off = off };
	util_par_run(par, subruns_part, &u);
	*ties += u.ties;
	for (size_t i = 0; i < m;) {
		size_t e = i + 1;
		while (e < m && !memcmp(u.R + e * TEXT_RECORD, u.R + i * TEXT_RECORD, TEXT_PREFIX))
			e++;
		if (e - i >= j->giant) {
			text_pos at = next_pos(j, ord[i], ki, off);
			refine_giant(j, ord + i, e - i, at.ki, at.off, level + 1, ties);
		}
		i = e;
	}
	free(g.a);
	free(b);
}

#define TIE_AHEAD 32 /* records finish_ties fetches ahead */

/* Record k of the sorted records R[lo, hi) (rs bytes, a prefix of w) has a neighbour there with its prefix. */
static inline int in_run(const uint8_t *R, size_t k, size_t lo, size_t hi, size_t rs, uint32_t w)
{
	const uint8_t *r = R + k * rs;
	return (k > lo && !memcmp(r - rs, r, w)) || (k + 1 < hi && !memcmp(r + rs, r, w));
}

/* Part `part` of the sorted records [j->lo, j->hi): indices out, runs of
 * equal prefixes put in order (refine). A part starts at the first run
 * that starts in its share. */
static inline __attribute__((always_inline)) void finish_ties_w(job *j, int part, int parts, const uint32_t w,
								 const size_t rs)
{
	size_t n = j->hi, first = j->lo, lo, hi;
	util_split(n - first, part, parts, &lo, &hi);
	lo += first, hi += first;
	const uint8_t *R = j->sorted;
	while (lo > first && lo < n && !memcmp(R + lo * rs, R + (lo - 1) * rs, w))
		lo++;
	while (hi < n && hi > first && !memcmp(R + hi * rs, R + (hi - 1) * rs, w))
		hi++;
	uint64_t ties = 0;
	size_t pf1 = lo, pf2 = lo; /* the prefetch cursors, TIE_AHEAD and TIE_AHEAD / 2 records ahead */
	for (size_t i = lo; i < hi;) {
		/* a tie's comparison reads both lines' offsets and bytes, at random
		 * places of a chunk far larger than the caches: fetched ahead, in two
		 * steps (the offset, then the line it gives), for records in runs only */
		for (; pf1 < hi && pf1 < i + TIE_AHEAD; pf1++)
			if (in_run(R, pf1, first, n, rs, w))
				__builtin_prefetch(&j->c->start[rec_index_at(R + pf1 * rs, w)]);
		for (; pf2 < hi && pf2 < i + TIE_AHEAD / 2; pf2++)
			if (in_run(R, pf2, first, n, rs, w))
				__builtin_prefetch(j->c->buf + j->c->start[rec_index_at(R + pf2 * rs, w)]);
		size_t e = i + 1;
		while (e < n && !memcmp(R + e * rs, R + i * rs, w))
			e++;
		for (size_t k = i; k < e; k++)
			j->t->order[k] = rec_index_at(R + k * rs, w);
		if (j->giant && e - i >= j->giant) {
			__atomic_store_n(&j->giant_seen, 1, __ATOMIC_RELAXED); /* refine_giant's, after every part */
		} else if (e - i > 1) {
			text_pos at = next_pos(j, j->t->order[i], 0, j->start);
			refine(j, j->t->order + i, e - i, at.ki, at.off, 1, &ties);
		}
		i = e;
	}
	__atomic_add_fetch(&j->t->ties, ties, __ATOMIC_RELAXED);
}

/* finish_ties_w for the chunk's record width: the width a constant in each
 * (the run scans compare every record with its neighbour) */
static void finish_ties(void *arg, int part, int parts)
{
	job *j = arg;
	if (j->w == 4)
		finish_ties_w(j, part, parts, 4, 8);
	else
		finish_ties_w(j, part, parts, TEXT_PREFIX, TEXT_RECORD);
}

/*
 * The ties of the sorted records [j->lo, j->hi): runs of equal prefixes
 * spread over j->par threads (finish_ties), then each run too large for
 * one of them refined by all (refine_giant).
 */
static void finish_all(job *j)
{
	j->giant_seen = 0;
	util_par_run(j->hi - j->lo >= 65536 ? j->par : 1, finish_ties, j);
	if (!j->giant_seen)
		return;
	const size_t rs = j->rs, n = j->hi;
	const uint32_t w = j->w;
	const uint8_t *R = j->sorted;
	uint64_t ties = 0;
	for (size_t i = j->lo; i < n;) {
		size_t e = i + 1;
		while (e < n && !memcmp(R + e * rs, R + i * rs, w))
			e++;
		if (e - i >= j->giant) {
			text_pos at = next_pos(j, j->t->order[i], 0, j->start);
			refine_giant(j, j->t->order + i, e - i, at.ki, at.off, 1, &ties);
		}
		i = e;
	}
	__atomic_add_fetch(&j->t->ties, ties, __ATOMIC_RELAXED);
}

static int grow(text_sorter *t, size_t n)
{
	if (n <= t->cap && t->a) /* a: not released (text_sort_release) */
		return 0;
	size_t cap = n + n / 4;
	free(t->a);
	free(t->b);
	free(t->order);
	free(t->scratch);
	/* huge pages: these are touched whole (faulted) for every chunk's first sort */
	t->a = util_alloc_huge(cap * TEXT_RECORD);
	t->b = util_alloc_huge(cap * TEXT_RECORD);
	t->order = util_alloc_huge(cap * sizeof *t->order);
	size_t sb = t->eng ? t->eng->scratch_per_record * cap : 0;
	t->scratch = sb ? util_alloc_aligned(sb, 64) : NULL;
	if (!t->a || !t->b || !t->order || (sb && !t->scratch)) {
		text_sort_free(t);
		snprintf(t->err, sizeof t->err, "out of memory sorting %zu lines", n);
		return -1;
	}
	t->cap = cap;
	return 0;
}

/* cpusort_radix_msd_parts' hand-over: the part's ties finished, then the caller's. */
static int sorted_part(void *arg, size_t lo, size_t hi)
{
	job *j = arg;
	double t0 = util_now();
	j->lo = lo, j->hi = hi;
	finish_all(j);
	double t1 = util_now();
	j->t->ties_s += t1 - t0;
	int rc = j->part(j->part_arg, j->t->order, lo, hi);
	j->part_s += util_now() - t1;
	return rc ? 1 : 0;
}

int text_sort_chunk_parts(text_sorter *t, const text_chunk *c, text_part_fn part, void *arg)
{
	if (c->n > TEXT_MAX_LINES) {
		snprintf(t->err, sizeof t->err, "a chunk of %zu lines is more than %zu", c->n, TEXT_MAX_LINES);
		return -1;
	}
	if (grow(t, c->n))
		return -1;
	int par = c->n >= 65536 ? t->threads : 1;
	par = par < WIDTH_PARTS ? par : WIDTH_PARTS;
	/* a run of more than a thread's share of the lines is refined by all of them */
	size_t giant = par > 1 ? c->n / (size_t)(2 * par) : 0;
	job j = { .t = t, .c = c, .sorted = t->a, .hi = c->n, .part = part, .part_arg = arg, .par = par,
		  .w = TEXT_PREFIX, .rs = TEXT_RECORD, .giant = giant > 65536 ? giant : par > 1 ? 65536 : 0 };
	double t0 = util_now();
	j.start = chunk_common_start(&j);
	util_par_run(par, make_records, &j);
	uint8_t *recs = t->a, *tmp = t->b;
	/* the GPU engine was opened for 16-byte records: narrower ones on the CPU only */
	int gpu = t->eng && t->eng->gpu && c->n <= t->eng->max_records;
	if (!gpu && probe_narrow(t->a, c->n)) {
		j.w = 4, j.rs = 8, j.dst = t->b;
		util_par_run(par, narrow_records, &j);
		int wide = 0;
		for (int p = 0; p < par; p++)
			wide |= j.wide[p];
		if (wide)
			j.w = TEXT_PREFIX, j.rs = TEXT_RECORD;
		else
			recs = t->b, tmp = t->a;
	}
	t->width = j.w > t->width ? j.w : t->width;
	t->prefix_s += util_now() - t0;
	uint8_t *sorted;
	if (gpu) {
		if (t->eng->sort(t->eng, t->a, t->b, c->n, t->scratch, &sorted)) {
			snprintf(t->err, sizeof t->err, "%s", t->eng->errmsg);
			return -1;
		}
	} else if (part) {
		/* the parts, as they are sorted: the caller writes one while the
		 * next is sorted (cpusort_radix_msd_parts never cuts a run of equal
		 * prefixes, so each part's ties are its own) */
		double s0 = t->ties_s;
		j.sorted = recs;
		t->sorted = recs, t->srs = j.rs, t->sw = j.w;
		int rc = cpusort_radix_msd_parts(recs, tmp, c->n, j.rs, j.w, t->threads, sorted_part, &j);
		/* the sort's time: all but the parts' ties and the caller's share */
		t->sort_s += util_now() - t0 - (t->ties_s - s0) - j.part_s;
		return rc ? 1 : 0;
	} else {
		/* the CPU engine's radix sort on the prefix bytes alone: the records
		 * are made in index order and the sort is stable, so the index bytes
		 * need no passes of their own; MSD, as lines are mostly told apart
		 * by their first key bytes */
		sorted = cpusort_radix_msd(recs, tmp, c->n, j.rs, j.w, t->threads);
	}
	double t1 = util_now();
	j.sorted = sorted;
	t->sorted = sorted, t->srs = j.rs, t->sw = j.w;
	finish_all(&j);
	t->sort_s += t1 - t0;
	t->ties_s += util_now() - t1;
	if (part && c->n && part(arg, t->order, 0, c->n))
		return 1;
	return 0;
}

int text_sort_chunk(text_sorter *t, const text_chunk *c)
{
	return text_sort_chunk_parts(t, c, NULL, NULL);
}

size_t text_sort_held(const text_sorter *t)
{
	size_t per = sizeof *t->order + (t->a ? 2 * TEXT_RECORD : 0) +
		     (t->scratch && t->eng ? t->eng->scratch_per_record : 0);
	return t->cap * per;
}

void text_sort_release(text_sorter *t)
{
	free(t->a);
	free(t->b);
	free(t->scratch);
	t->a = t->b = t->scratch = NULL;
	t->sorted = NULL;
}

void text_sort_free(text_sorter *t)
{
	free(t->a);
	free(t->b);
	free(t->order);
	free(t->scratch);
	t->a = t->b = t->scratch = NULL;
	t->order = NULL;
	t->cap = 0;
}
