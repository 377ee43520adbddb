/* losertree.c - see losertree.h. Knuth, TAOCP vol. 3, 5.4.1 (replacement selection tree). */
#include "losertree.h"

#include <stdlib.h>
#include <string.h>

uint64_t lt_prefix(const keys_spec *s, const uint8_t *rec)
{
	uint8_t b[8] = { 0 };
	keys_normalize_prefix(s, rec, b, s->key_width < 8 ? s->key_width : 8);
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

/*
 * The 8-byte key prefix without the generic field loop, when the first key
 * field alone makes the prefix: a 4- or 8-byte number that is the whole key,
 * an 8-byte number, or bytesN with N >= 8 (the rules of kernels/key_layout.h
 * for one field). The merge computes one prefix per record, so this is its
 * inner loop.
 */
struct pfx {
	uint32_t off;
	uint8_t width;  /* 0: use lt_prefix */
	uint8_t kind, be, desc;
};

static struct pfx pfx_plan(const keys_spec *s)
{
	struct pfx p = { 0 };
	const keys_field *f = &s->f[0];
	if (s->n < 1)
		return p;
	if (f->kind == KEYS_BYTES ? f->width >= 8 : (f->width == 8 || (f->width == 4 && s->key_width == 4))) {
		p.off = f->offset;
		p.width = f->kind == KEYS_BYTES ? 8 : (uint8_t)f->width;
		p.kind = f->kind;
		p.be = f->kind == KEYS_BYTES || f->big_endian;
		p.desc = f->descending;
	}
	return p;
}

static inline uint64_t pfx_get(const struct pfx *p, const keys_spec *s, const uint8_t *rec)
{
	if (!p->width)
		return lt_prefix(s, rec);
	uint64_t v, sign, mask;
	if (p->width == 8) {
		memcpy(&v, rec + p->off, 8);
		if (p->be)
			v = __builtin_bswap64(v);
		sign = 1ull << 63;
		mask = ~0ull;
	} else {
		uint32_t x;
		memcpy(&x, rec + p->off, 4);
		v = p->be ? __builtin_bswap32(x) : x;
		sign = 1ull << 31;
		mask = 0xffffffffull;
	}
	if (p->kind == KEYS_SINT)
		v ^= sign;
	else if (p->kind == KEYS_FLOAT)
		v = (v & sign) ? ~v & mask : v ^ sign;
	if (p->desc)
		v = ~v & mask;
	return p->width == 8 ? v : v << 32;
}

struct lt {
	const keys_spec *s;
	lt_range *r;
	uint64_t *pre;  /* cached key prefix of each leaf's head record */
	int k, exact;   /* exact: the 8-byte prefix is the whole key */
};

/* Does leaf a's head order before leaf b's? Exhausted leaves are +infinity. */
static inline int before(const struct lt *t, int a, int b)
{
	if (b < 0 || t->r[b].n == 0)
		return a >= 0 && t->r[a].n > 0;
	if (a < 0 || t->r[a].n == 0)
		return 0;
	if (t->pre[a] != t->pre[b])
		return t->pre[a] < t->pre[b];
	if (!t->exact) {
		int c = keys_compare(t->s, t->r[a].p, t->r[b].p);
		if (c)
			return c < 0;
	}
	return a < b;
}

/*
 * The merge of key-only records of one 4- or 8-byte number (keys_native,
 * keys.h), or of 4- or 8-byte records whose keys cover them (keys_word):
 * the tree holds each leaf's head as one integer, the normalized key above
 * the leaf's index, so that a node's match is one unsigned comparison
 * (ties go to the lower index: run order, the merge's stability) and the
 * winner and loser are chosen by conditional moves, not by branches that a
 * merge of random keys mispredicts half of the time. An exhausted leaf is
 * all ones with an index >= m: it loses to every live leaf, and the loop
 * stops before one could win. The output record is the input record (a
 * native load and store), not the key decoded. Same contract as lt_merge.
 *
 * The merge runs from both ends at once: one tree on the ranges' heads
 * takes the smallest records into the front half of out, a second on
 * their tails the largest into the back half, from the end. The back
 * tree's words are the keys complemented above the index m - 1 - i, so
 * that its least is the largest key and, among equal keys, the later range:
 * the merge's order read backwards, so the halves meet exactly. A node's
 * match is a chain of dependent comparisons and moves whose latency bounds
 * one tree; the two trees' chains are independent, and a core runs them
 * side by side (one thread on the 2-core VM, 32 runs of u64: 9.4 -> 7.1
 * ns a record; bench/results/cpu-merge-both-ends-2026-11-30.md). The
 * loser is stored as t ^ c ^ min(t, c): one comparison a node.
 */

#define LT_AHEAD 512 /* bytes: 8 cache lines */

#define LT_NATIVE(NAME, T, W, KT, ENC, ld)                                                                    \
	static size_t NAME(const KT *kn, lt_range *r, int k, uint8_t *out, size_t total)                    \
	{                                                                                                   \
		int m = 1;                                                                                  \
		while (m < k)                                                                               \
			m <<= 1;                                                                            \
		/* per tree (f: front, b: back): the losers, the ranges' next records, their counts */     \
		W ws[128], tfs[64], tbs[64];                                                                \
		const uint8_t *pfs[64], *pbs[64];                                                           \
		size_t lfs[64], lbs[64];                                                                    \
		W *w = ws, *tf = tfs, *tb = tbs;                                                            \
		const uint8_t **pf = pfs, **pb = pbs;                                                       \
		size_t *lf = lfs, *lb = lbs;                                                                \
		void *heap = NULL;                                                                          \
		if (m > 64) {                                                                               \
			heap = malloc((size_t)m * (4 * sizeof(W) + 2 * sizeof(void *) + 2 * sizeof(size_t))); \
			if (!heap)                                                                          \
				abort(); /* k * 96 bytes; the merge plan already holds k windows */         \
			w = heap;                                                                           \
			tf = w + 2 * m;                                                                     \
			tb = tf + m;                                                                        \
			pf = (const uint8_t **)(tb + m);                                                    \
			pb = pf + m;                                                                        \
			lf = (size_t *)(pb + m);                                                            \
			lb = lf + m;                                                                        \
		}                                                                                           \
		const int sh = (int)sizeof(T) * 8;                                                          \
		const KT K = *kn; /* a local copy: the stores to out cannot alias it */                    \
		/* the back tree's record of range j: its base pb[j] and count lb[j], the last one first */ \
		for (int i = 0; i < m; i++) {                                                               \
			size_t n = i < k ? r[i].n : 0;                                                      \
			pf[i] = pb[i] = n ? r[i].p : NULL;                                                  \
			lf[i] = lb[i] = n;                                                                  \
		}                                                                                           \
		/* each tree built bottom-up from its leaves' words: winners up, losers kept */            \
		W c2[2];                                                                                    \
		for (int side = 0; side < 2; side++) {                                                      \
			W *tree = side ? tb : tf;                                                           \
			for (int i = 0; i < m; i++)                                                         \
				w[m + i] = !lf[i] ? ~(W)0 << sh | (W)(m + i)                                \
					   : side ? (W)(T)~ENC(&K, ld(pb[i] + (lb[i] - 1) * sizeof(T))) << sh | (W)(m - 1 - i) \
						  : (W)ENC(&K, ld(pf[i])) << sh | (W)i;                     \
			for (int i = m - 1; i >= 1; i--) {                                                  \
				W a = w[2 * i], b = w[2 * i + 1];                                           \
				w[i] = a < b ? a : b;                                                       \
				tree[i] = a < b ? b : a;                                                    \
			}                                                                                   \
			c2[side] = w[1];                                                                    \
		}                                                                                           \
		W cf = c2[0], cb = c2[1];                                                                   \
		uint8_t *of = out, *ob = out + (total - 1) * sizeof(T), *ef = out + total / 2 * sizeof(T);  \
		while (of < ef) {                                                                           \
			const int i = (int)(uint32_t)cf, j = m - 1 - (int)(uint32_t)cb;                     \
			memcpy(of, pf[i], sizeof(T)); /* the record itself, not the key decoded */         \
			of += sizeof(T);                                                                     \
			pf[i] += sizeof(T);                                                                  \
			const uint8_t *q = pb[j] + (lb[j] - 1) * sizeof(T);                                  \
			memcpy(ob, q, sizeof(T));                                                            \
			ob -= sizeof(T);                                                                     \
			/* a window's next lines, ahead of the loads: 64 runs' streams are too many for the  \
			 * hardware prefetcher, and a miss there stalls the tree (perf: 46% of the merge) */ \
			__builtin_prefetch(pf[i] + LT_AHEAD);                                                \
			__builtin_prefetch((const void *)((uintptr_t)q - LT_AHEAD));                         \
			cf = --lf[i] ? (W)ENC(&K, ld(pf[i])) << sh | (W)i : ~(W)0 << sh | (W)(m + i);        \
			cb = --lb[j] ? (W)(T)~ENC(&K, ld(q - sizeof(T))) << sh | (W)(m - 1 - j)             \
				     : ~(W)0 << sh | (W)(m + j);                                            \
			for (int a = (m + i) >> 1, b = (m + j) >> 1; a >= 1; a >>= 1, b >>= 1) {            \
				W t = tf[a], mf = t < cf ? t : cf;                                          \
				tf[a] = t ^ cf ^ mf;                                                        \
				cf = mf;                                                                    \
				W u = tb[b], mb = u < cb ? u : cb;                                          \
				tb[b] = u ^ cb ^ mb;                                                        \
				cb = mb;                                                                    \
			}                                                                                   \
		}                                                                                           \
		if (total & 1) { /* the middle record: the back tree's last */                              \
			const int j = m - 1 - (int)(uint32_t)cb;                                            \
			memcpy(ob, pb[j] + (lb[j] - 1) * sizeof(T), sizeof(T));                             \
		}                                                                                           \
		for (int i = 0; i < k; i++) {                                                               \
			r[i].p += r[i].n * sizeof(T);                                                       \
			r[i].n = 0;                                                                         \
		}                                                                                           \
		free(heap);                                                                                 \
		return total;                                                                               \
	}

static inline uint32_t word_enc32(const keys_word *w, uint32_t raw) { return (uint32_t)keys_word_enc(w, raw); }

LT_NATIVE(lt_merge_n64, uint64_t, unsigned __int128, keys_native, keys_native_enc64, keys_load64)
LT_NATIVE(lt_merge_n32, uint32_t, uint64_t, keys_native, keys_native_enc32, keys_load32)
/* records of several keys that cover them (keys_word): the same tree on their keys' words */
LT_NATIVE(lt_merge_w64, uint64_t, unsigned __int128, keys_word, keys_word_enc, keys_load64)
LT_NATIVE(lt_merge_w32, uint32_t, uint64_t, keys_word, word_enc32, keys_load32)

size_t lt_merge(const keys_spec *s, lt_range *r, int k, uint8_t *out)
{
	size_t R = s->record_size, total = 0;
	for (int i = 0; i < k; i++)
		total += r[i].n;
	if (k == 0 || total == 0)
		return 0;
	if (k == 1) {
		memcpy(out, r[0].p, r[0].n * R);
		r[0].p += r[0].n * R;
		r[0].n = 0;
		return total;
	}
	keys_native kn;
	if (keys_native_init(s, &kn) == 0 && kn.width == R)
		return kn.width == 8 ? lt_merge_n64(&kn, r, k, out, total) : lt_merge_n32(&kn, r, k, out, total);
	keys_word kw;
	if (keys_word_init(s, &kw) == 0)
		return kw.width == 8 ? lt_merge_w64(&kw, r, k, out, total) : lt_merge_w32(&kw, r, k, out, total);
	int m = 1;
	while (m < k)
		m <<= 1;
	uint64_t pre_stack[64];
	int tree_stack[64];
	uint64_t *pre = m <= 64 ? pre_stack : malloc((size_t)m * sizeof *pre);
	int *tree = m <= 64 ? tree_stack : malloc((size_t)m * sizeof *tree);
	lt_range pad_stack[64];
	lt_range *rr = m <= 64 ? pad_stack : malloc((size_t)m * sizeof *rr);
	if (!pre || !tree || !rr)
		abort(); /* k * 16 bytes; the merge plan already holds k windows */
	memcpy(rr, r, (size_t)k * sizeof *r);
	for (int i = k; i < m; i++)
		rr[i] = (lt_range){ NULL, 0 };
	struct lt t = { s, rr, pre, m, s->key_width <= 8 };
	const struct pfx pf = pfx_plan(s);
	for (int i = 0; i < m; i++)
		pre[i] = rr[i].n ? pfx_get(&pf, s, rr[i].p) : 0;
	/* build: winners bottom-up, losers stored at internal nodes */
	int win[128], *w = m <= 64 ? win : malloc(2 * (size_t)m * sizeof *w);
	if (!w)
		abort();
	for (int i = 0; i < m; i++)
		w[m + i] = i;
	for (int i = m - 1; i >= 1; i--) {
		int a = w[2 * i], b = w[2 * i + 1];
		if (before(&t, b, a)) {
			w[i] = b;
			tree[i] = a;
		} else {
			w[i] = a;
			tree[i] = b;
		}
	}
	int champ = w[1];
	size_t o = 0;
	while (o < total) {
		lt_range *c = &rr[champ];
		if (R == 8)
			memcpy(out + o * 8, c->p, 8);
		else if (R == 16)
			memcpy(out + o * 16, c->p, 16);
		else if (R == 4)
			memcpy(out + o * 4, c->p, 4);
		else
			memcpy(out + o * R, c->p, R);
		o++;
		c->p += R;
		c->n--;
		/* the run's next records, ahead of the loads: k runs' streams are
		 * too many for the hardware prefetcher (as in LT_NATIVE) */
		__builtin_prefetch(c->p + LT_AHEAD);
		if (c->n)
			pre[champ] = pfx_get(&pf, s, c->p);
		/* replay the path from the champion's leaf to the root */
		int cur = champ;
		for (int node = (m + champ) / 2; node >= 1; node /= 2) {
			if (before(&t, tree[node], cur)) {
				int x = tree[node];
				tree[node] = cur;
				cur = x;
			}
		}
		champ = cur;
	}
	memcpy(r, rr, (size_t)k * sizeof *r);
	if (m > 64) {
		free(pre);
		free(tree);
		free(rr);
		free(w);
	}
	return total;
}
