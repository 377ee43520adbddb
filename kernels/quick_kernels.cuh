/*
 * quick_kernels.cuh - GPU-Quicksort's kernels (included by quick.cu only):
 * the start, the two kernels of a phase-one round, phase two.
 *
 * Source: Cederman & Tsigas, "GPU-Quicksort: A Practical Quicksort
 * Algorithm for Graphics Processors", section 3 (Algorithms 1-3) and
 * section 5.2 (pivots).
 *
 * No host synchronization (sorter.cuh): the paper's host loop (Algorithm
 * 1) reads the sequences back after every phase-one round to assign
 * blocks. Here the work list stays on the device: a round is k_round (a
 * persistent grid pulling the round's tiles in order) and k_finish (a
 * thread per listed sequence, a block for 16-byte words, makes its
 * children; the last block to finish numbers the next list's tiles, a
 * cumulative sum), and the host launches
 * a fixed number of rounds (QSizes::rounds), each of which costs two empty
 * launches once the list has run dry. Phase two is one
 * persistent grid pulling phase-one's leftovers from a device counter.
 * Dynamic parallelism is not used (it needs relocatable device code).
 *
 * Buffers: the words are in d or in aux (scratch, n words), at the same
 * offsets: a round reads a sequence from one and partitions it into the
 * other (section 3.1: "the two buffers switch places"). Words known final
 * (a pivot's gap, a part of one value, a phase-two sort) are written to d.
 */
#ifndef GPUSORT_QUICK_KERNELS_CUH
#define GPUSORT_QUICK_KERNELS_CUH

#include <cub/block/block_scan.cuh>
#include <stdint.h>

#include "quick_block.cuh"

namespace gs_quick {

enum { F_AUX = 1, F_FILL = 2 };

/*
 * An entry of a phase-one work list: partition [start, start + len) of
 * the buffer flags & F_AUX about pivot, or with F_FILL: write pivot to
 * d[start .. start + len). lcur, gcur: the words so far reserved below
 * and above the pivot (the paper's sstart/send, moved by fetch-and-add);
 * mm: its tiles' min/max bookkeeping merged so far by atomic min and max
 * (mm_init's layout; QW<T>::ATOM words only, else each tile's row of
 * stats).
 */
template <class T>
struct QEnt {
	T pivot;
	uint64_t start, len;
	unsigned long long lcur, gcur;
	uint32_t flags;
	T mm[4];
};

/* A sequence for phase two: [start, start + len) of d or aux. */
struct QLeaf {
	uint64_t start, len;
	uint32_t aux, pad;
};

/* The counters: entries in the two work lists (round r reads list r & 1,
 * appends to the other), phase-two leaves and the next one to take,
 * k_finish's blocks done. */
struct QCtl {
	uint32_t cnt[2];
	uint32_t nleaf, leaf_next, fin;
};

/* The device tables a sort uses, all in scratch. */
template <class T>
struct QTabs {
	T *d, *aux;
	QCtl *ctl;
	QEnt<T> *list[2];
	uint32_t *pref;
	T *stats;
	QLeaf *leaves;
	uint64_t minlen;
	uint32_t list_cap, leaf_cap;
};

/* List i (0 or 1) of t: chosen, not indexed, so that the parameter array
 * stays out of local memory. */
template <class T>
__device__ __forceinline__ QEnt<T> *lst(const QTabs<T> &t, int i)
{
	return i ? t.list[1] : t.list[0];
}

/* Tiles of a list entry of len words. */
template <class C>
__device__ __forceinline__ uint32_t ent_tiles(uint64_t len)
{
	return (uint32_t)((len + C::TILE - 1) / C::TILE);
}

/*
 * Start (one thread): empty lists; the whole input as round 0's one
 * sequence, numbered (pref), with Algorithm 1's start pivot, the median of
 * the first, middle and last word, or (rounds == 0) as phase two's one
 * leaf.
 */
template <class T, class C>
__global__ void k_start(QTabs<T> t, uint64_t n, int rounds)
{
	QCtl *c = t.ctl;
	c->cnt[0] = 0;
	c->cnt[1] = 0;
	c->nleaf = 0;
	c->leaf_next = 0;
	c->fin = 0;
	if (!rounds) {
		QLeaf f = {0, n, 0, 0};
		t.leaves[0] = f;
		c->nleaf = 1;
		return;
	}
	QEnt<T> e;
	e.pivot = median3(t.d[0], t.d[n / 2], t.d[n - 1]);
	e.start = 0;
	e.len = n;
	e.lcur = e.gcur = 0;
	e.flags = 0;
	mm_init(e.mm);
	t.list[0][0] = e;
	c->cnt[0] = 1;
	t.pref[0] = 0;
	t.pref[1] = ent_tiles<C>(n);
}

/*
 * Number the tiles of list li (the whole block, after every entry is
 * written): pref[i] = the tiles of entries 0 .. i-1, pref[count] their
 * total (Algorithm 1's block assignment: a sequence gets blocks in
 * proportion to its length, one per tile); the other list emptied for the
 * next round's children.
 */
template <class T, class C>
__device__ void plan_list(const QTabs<T> &t, int li, typename cub::BlockScan<uint32_t, C::THREADS>::TempStorage &tmp)
{
	volatile uint32_t *cnt = t.ctl->cnt;
	const uint32_t ne = min(cnt[li], t.list_cap);
	const QEnt<T> *l = lst(t, li);
	const uint32_t per = (ne + C::THREADS - 1) / C::THREADS, b = threadIdx.x * per, e = min(b + per, ne);
	uint32_t sum = 0;
	for (uint32_t i = b; i < e; ++i)
		sum += ent_tiles<C>(__ldcg((const unsigned long long *)&l[i].len));
	uint32_t ex, tot;
	cub::BlockScan<uint32_t, C::THREADS>(tmp).ExclusiveSum(sum, ex, tot);
	for (uint32_t i = b; i < e; ++i) {
		t.pref[i] = ex;
		ex += ent_tiles<C>(__ldcg((const unsigned long long *)&l[i].len));
	}
	if (threadIdx.x == 0) {
		t.pref[ne] = tot;
		cnt[li ^ 1] = 0;
	}
}

/*
 * The entry of tile ti, the last i in [lo, hi] with pref[i] <= ti (pref
 * non-decreasing, pref[lo] <= ti), by one warp (lane: this thread's; all
 * get the answer): each round 32 probes spread over (lo, hi], whose
 * outcomes are true then false, narrow the range 32-fold; a block's tiles
 * come in increasing order, so lo is its last tile's entry. The search
 * is the first thing every tile waits for: log32 of the entries in
 * dependent reads instead of log2.
 */
__device__ __forceinline__ uint32_t tile_entry(const uint32_t *pref, uint32_t ti, uint32_t lo, uint32_t hi,
					       uint32_t lane)
{
	while (lo < hi) {
		const uint32_t w = hi - lo, np = w >= 32 ? 32u : w;
		auto probe = [lo, w](uint32_t k) { return lo + 1 + (w >= 32 ? (uint32_t)((uint64_t)k * w / 32) : k); };
		const bool p = lane < np && pref[probe(lane)] <= ti;
		const uint32_t cnt = (uint32_t)__popc(__ballot_sync(0xffffffffu, p));
		const uint32_t nlo = cnt ? probe(cnt - 1) : lo, nhi = cnt < np ? probe(cnt) - 1 : hi;
		lo = nlo;
		hi = nhi;
	}
	return lo;
}

/* Append entry e to list li (thread 0 of a block); false when full. */
template <class T>
__device__ __forceinline__ bool list_push(const QTabs<T> &t, int li, const QEnt<T> &e)
{
	const uint32_t k = atomicAdd(li ? &t.ctl->cnt[1] : &t.ctl->cnt[0], 1u);
	if (k >= t.list_cap)
		return false;
	lst(t, li)[k] = e;
	return true;
}

template <class T>
__device__ __forceinline__ void leaf_push(const QTabs<T> &t, uint64_t start, uint64_t len, uint32_t aux)
{
	const uint32_t k = atomicAdd(&t.ctl->nleaf, 1u);
	if (k < t.leaf_cap) { /* QSizes::leaf_cap bounds k */
		QLeaf f = {start, len, aux, 0};
		t.leaves[k] = f;
	}
}

template <class T>
__device__ __forceinline__ QEnt<T> ent_make(const T &pivot, uint64_t start, uint64_t len, uint32_t flags)
{
	QEnt<T> e;
	e.pivot = pivot;
	e.start = start;
	e.len = len;
	e.lcur = e.gcur = 0;
	e.flags = flags;
	mm_init(e.mm);
	return e;
}

/*
 * The phase-one pivot of a child of l > minlen words between mn < mx.
 * Section 5.2 takes the average of the min and max, which halves the
 * value range, and so about halves the words of evenly spread values:
 * halving n = 2^k * minlen words leaves sequences of minlen plus or minus
 * a little after k rounds, the longer half of them partitioned in one
 * more round, one whose tiles are nearly all of a round's however few
 * words it moves. Here the cut aims instead at whole leaves of up to cap
 * = 63/64 minlen words (the rest a margin for the spread of the counts):
 * the child needs m = ceil(l / cap) of them; for m > 2 the pivot is
 * interpolated between mn and mx at floor(m / 2) / m of the range (the
 * average when m is even), so that every deeper round partitions only
 * the few sequences that need it; for m = 2 at (l - cap) / l, so that one
 * part fills a tile sort (minlen is C::SORT up to n = SORT * MAXSEQ)
 * and the other is short, and a short sort (block_sort's smaller tiles)
 * takes it, where two halves would each be sorted as a padded whole
 * tile (child_fraction and pivot_at, quick_pivot.cuh). Values spread
 * unevenly only make the parts uneven, as the average does: the pivot
 * stays in [mn, mx), so both parts shrink, and a longer part is
 * partitioned again.
 */
template <class T>
__device__ __forceinline__ T child_pivot(const T &mn, const T &mx, uint64_t l, uint64_t minlen)
{
	return QW<T>::at(mn, mx, child_fraction(l, minlen));
}

/* Shared memory of k_finish: up to 3 ranges of d the block fills itself
 * after finishing a sequence (when the next list is full); e: whether
 * this block is the round's last. */
template <class T, class C>
struct QRoundSmem {
	QSmem<T, C> sm;
	T fv[3];
	uint64_t fs[3], fl[3];
	uint32_t e, nf;
};

/*
 * The thread of k_finish that ends list entry e (Algorithm 2's "last
 * block in the sequence to finish", here after the round's last tile): e
 * partitioned into buffer dst_aux as [start, +L) below, [start+L, end-G)
 * equal to the pivot, [end-G, end) above; mm the min/max of the two sides
 * (mm_init's layout). The gap is filled with the pivot, a side of one
 * value with that value (in d, by the next round, or when the next list
 * is full by defer(start, len, value), at once), a side longer than
 * minlen goes to the next list with child_pivot, unless this is the last
 * round; other sides go to phase two.
 */
template <class T, class D>
__device__ void finish_seq(const QTabs<T> &t, int nxt, bool last, const QEnt<T> &e, uint64_t L, uint64_t G,
			   uint32_t dst_aux, const T (&mm)[4], D defer)
{
	auto fill = [&](uint64_t s, uint64_t l, const T &v) {
		if (!list_push(t, nxt, ent_make(v, s, l, F_FILL)))
			defer(s, l, v);
	};
	const uint64_t end = e.start + e.len;
	if (e.len - L - G)
		fill(e.start + L, e.len - L - G, e.pivot);
#pragma unroll
	for (int side = 0; side < 2; ++side) {
		const uint64_t s = side ? end - G : e.start, l = side ? G : L;
		const T &mn = mm[2 * side], &mx = mm[2 * side + 1];
		if (!l)
			continue;
		if (QW<T>::eq(mn, mx)) {
			if (dst_aux) /* in d already otherwise */
				fill(s, l, mn);
		} else if (last || l <= t.minlen ||
			   !list_push(t, nxt, ent_make(child_pivot(mn, mx, l, t.minlen), s, l, dst_aux))) {
			leaf_push(t, s, l, dst_aux);
		}
	}
}

/* What a tile of a phase-one round needs of its list entry, fetched by
 * warp 0 one tile ahead (job_fetch). */
template <class T>
struct QJob {
	T pivot;
	uint64_t start, len, o;
	uint32_t ei, cnt, flags;
};

/*
 * Warp 0 of a k_round block (lane: its own): the entry of tile ti
 * (tile_entry from *prev, which it advances) and the tile's job, written
 * to *j by lane 0.
 */
template <class T, class C>
__device__ __forceinline__ void job_fetch(const QTabs<T> &t, const QEnt<T> *list, uint32_t ne, uint32_t ti,
					  uint32_t *prev, uint32_t lane, QJob<T> *j)
{
	const uint32_t ei = tile_entry(t.pref, ti, *prev, ne - 1, lane);
	*prev = ei;
	if (lane == 0) {
		const QEnt<T> *q = &list[ei];
		const uint64_t len = q->len, o = (uint64_t)(ti - t.pref[ei]) * C::TILE;
		j->pivot = q->pivot;
		j->start = q->start;
		j->len = len;
		j->o = o;
		j->ei = ei;
		j->cnt = (uint32_t)min((uint64_t)C::TILE, len - o);
		j->flags = q->flags;
	}
}

/*
 * The tiles of one phase-one round over list `cur` (a persistent grid:
 * block b takes tiles b, b + grid, ... of plan_list's numbering). A tile of
 * a partition entry is partitioned with part_tile into the other buffer,
 * its place there reserved by fetch-and-add on the entry's cursors
 * (Algorithm 2), its min/max merged into the entry's by atomic min and
 * max (QW<T>::ATOM) or written to its row of stats (four words); a tile
 * of a fill entry writes the value to d. Warp 0 finds the next tile's
 * sequence while this tile's words load (two jobs in shared memory, one
 * in use, one being fetched): the search's dependent reads are off the
 * tile's chain, and a tile needs no barrier of its own before it starts.
 */
template <class T, class C>
__global__ void __launch_bounds__(C::THREADS, C::RMINB) k_round(QTabs<T> t, int cur)
{
	__shared__ QSmem<T, C> sm;
	__shared__ QJob<T> job[2];
	const uint32_t ne = min(t.ctl->cnt[cur], t.list_cap), total = t.pref[ne];
	QEnt<T> *list = lst(t, cur);
	const uint32_t lane = threadIdx.x & 31;
	const bool w0 = threadIdx.x < 32;
	uint32_t prev = 0; /* warp 0: the entry of the block's last tile */
	if (w0 && blockIdx.x < total)
		job_fetch<T, C>(t, list, ne, blockIdx.x, &prev, lane, &job[0]);
	__syncthreads();
	int k = 0;
	for (uint32_t ti = blockIdx.x; ti < total; ti += gridDim.x, k ^= 1) {
		/* job[k ^ 1] was last read before this block's previous tile's
		 * barriers; it is read next after this tile's first one */
		const uint32_t nx = ti + gridDim.x;
		auto ahead = [&]() {
			if (w0 && nx < total)
				job_fetch<T, C>(t, list, ne, nx, &prev, lane, &job[k ^ 1]);
		};
		const uint32_t flags = job[k].flags, cnt = job[k].cnt;
		const uint64_t start = job[k].start, o = job[k].o;
		const T pivot = job[k].pivot;
		if (flags & F_FILL) {
			ahead();
			block_fill<C>(t.d + start + o, cnt, pivot);
			__syncthreads();
			continue;
		}
		const T *src = flags & F_AUX ? t.aux : t.d;
		T *dst = flags & F_AUX ? t.d : t.aux;
		T mm[4];
		/* the entry's index and length re-read where used: fewer
		 * registers live across the partition */
		const uint32_t ei = job[k].ei;
		part_tile<T, C, false>(src, dst, start, o, cnt, pivot, sm,
				[&](uint32_t tl, uint32_t tg, uint64_t &lb, uint64_t &gb) {
					QEnt<T> *q = &list[ei];
					const uint64_t len = job[k].len;
					lb = atomicAdd(&q->lcur, (unsigned long long)tl);
					gb = len - atomicAdd(&q->gcur, (unsigned long long)tg) - tg;
				},
				mm, ahead);
		if (threadIdx.x == 0) {
			QEnt<T> *q = &list[ei];
			if constexpr (QW<T>::ATOM) {
				QW<T>::amin(&q->mm[0], mm[0]);
				QW<T>::amax(&q->mm[1], mm[1]);
				QW<T>::amin(&q->mm[2], mm[2]);
				QW<T>::amax(&q->mm[3], mm[3]);
			} else {
#pragma unroll
				for (int u = 0; u < 4; ++u)
					t.stats[4 * (uint64_t)ti + u] = mm[u];
			}
		}
	}
}

/*
 * The end of a phase-one round over list `cur`: each partition entry gets
 * its children (finish_seq), a thread an entry where the tiles merged the
 * entry's min/max by atomics (QW<T>::ATOM), else a block an entry, which
 * first reduces its tiles' rows of stats; the last block to finish
 * numbers the next list (plan_list, the block-count check of Algorithm 2
 * moved to the end of the round). last: the final partitioning round.
 */
template <class T, class C>
__global__ void __launch_bounds__(C::THREADS) k_finish(QTabs<T> t, int cur, int last)
{
	__shared__ QRoundSmem<T, C> rs;
	__shared__ typename cub::BlockScan<uint32_t, C::THREADS>::TempStorage tmp;
	const uint32_t ne = min(t.ctl->cnt[cur], t.list_cap);
	if (!ne)
		return; /* a round after the last: the next list is empty and numbered already */
	const QEnt<T> *list = lst(t, cur);
	if constexpr (QW<T>::ATOM) {
		for (uint32_t ei = blockIdx.x * C::THREADS + threadIdx.x; ei < ne; ei += gridDim.x * C::THREADS) {
			const QEnt<T> e = list[ei];
			if (e.flags & F_FILL)
				continue;
			/* the next list full (never, by QSizes::list_cap): this
			 * thread fills the range itself */
			finish_seq(t, cur ^ 1, last, e, e.lcur, e.gcur, (e.flags & F_AUX) ^ F_AUX, e.mm,
				   [&](uint64_t s, uint64_t l, const T &v) {
					   for (uint64_t i = 0; i < l; ++i)
						   t.d[s + i] = v;
				   });
		}
		__threadfence();
		__syncthreads();
	} else {
		for (uint32_t ei = blockIdx.x; ei < ne; ei += gridDim.x) {
			const QEnt<T> e = list[ei];
			if (e.flags & F_FILL)
				continue;
			const uint64_t b = t.pref[ei], nt = t.pref[ei + 1] - b;
			T mm[4];
			mm_init(mm);
#pragma unroll 4
			for (uint64_t k = threadIdx.x; k < nt; k += C::THREADS) {
				T o4[4];
#pragma unroll
				for (int u = 0; u < 4; ++u)
					o4[u] = t.stats[4 * (b + k) + u];
				mm_merge(mm, o4);
			}
			block_mm<T, C>(mm, rs.sm);
			if (threadIdx.x == 0) {
				rs.nf = 0;
				finish_seq(t, cur ^ 1, last, e, e.lcur, e.gcur, (e.flags & F_AUX) ^ F_AUX, mm,
					   [&](uint64_t s, uint64_t l, const T &v) {
						   rs.fv[rs.nf] = v;
						   rs.fs[rs.nf] = s;
						   rs.fl[rs.nf++] = l;
					   });
			}
			__syncthreads();
			for (uint32_t f = 0; f < rs.nf; ++f)
				block_fill<C>(t.d + rs.fs[f], rs.fl[f], rs.fv[f]);
			__syncthreads();
		}
	}
	if (threadIdx.x == 0) {
		__threadfence();
		rs.e = atomicAdd(&t.ctl->fin, 1u) == gridDim.x - 1;
	}
	__syncthreads();
	if (!rs.e)
		return;
	__threadfence();
	if (threadIdx.x == 0)
		t.ctl->fin = 0;
	plan_list<T, C>(t, cur ^ 1, tmp);
}

/* A sequence on phase two's stack; mm: its min and max are known (mn, mx)
 * and give its pivot. */
template <class T>
struct QStk {
	T mn, mx;
	uint64_t start, len;
	uint32_t aux, mm;
};

/* Shared memory of k_phase2. */
template <class T, class C>
struct QP2Smem {
	T buf[C::SORT];
	QSmem<T, C> sm;
	QStk<T> stk[64];
	QStk<T> top;
	T fv[2];
	uint64_t fs[2], fl[2];
	uint64_t lc, gc;
	uint32_t sp, leaf, nf;
};

/*
 * Phase two (Algorithm 3; a persistent grid, each block taking the next
 * leaf from a device counter until none is left): one block sorts one
 * sequence with an explicit stack, always taking the shorter part first
 * (section 3.2.2, "Stack": at most log2(len) entries). A part of at most
 * C::SORT words is sorted in shared memory (block_sort) into d; a longer
 * one is partitioned tile by tile into the other buffer about section
 * 5.2's phase-two pivot, the median of its first, middle and last word,
 * or, for a part from a split worse than 1:15 (median of three is fooled
 * by some inputs), the average of its min and max, which halves its value
 * range and so bounds the depth by the word's bits. The gap and the parts
 * of one value are written to d.
 */
template <class T, class C>
__global__ void __launch_bounds__(C::THREADS, 2) k_phase2(QTabs<T> t)
{
	__shared__ QP2Smem<T, C> s;
	const uint32_t nleaf = min(t.ctl->nleaf, t.leaf_cap);
	for (;;) {
		__syncthreads(); /* every thread is past the last leaf's s.sp, s.leaf */
		if (threadIdx.x == 0) {
			s.leaf = atomicAdd(&t.ctl->leaf_next, 1u);
			if (s.leaf < nleaf) {
				const QLeaf f = t.leaves[s.leaf];
				QStk<T> e;
				e.start = f.start;
				e.len = f.len;
				e.aux = f.aux;
				e.mm = 0;
				s.stk[0] = e;
				s.sp = 1;
			}
		}
		__syncthreads();
		if (s.leaf >= nleaf)
			return;
		for (;;) {
			const uint32_t sp = s.sp;
			__syncthreads(); /* read by all before thread 0 pops */
			if (!sp)
				break;
			if (threadIdx.x == 0)
				s.top = s.stk[--s.sp];
			__syncthreads();
			const QStk<T> e = s.top;
			const T *src = e.aux ? t.aux : t.d;
			if (e.len <= C::SORT) {
				block_sort<T, C>(src + e.start, t.d + e.start, (uint32_t)e.len, s.buf);
				continue;
			}
			T *dst = e.aux ? t.d : t.aux;
			const T *q = src + e.start;
			const T p = e.mm ? QW<T>::avg(e.mn, e.mx) : median3(q[0], q[e.len / 2], q[e.len - 1]);
			if (threadIdx.x == 0)
				s.lc = s.gc = 0;
			T acc[4];
			mm_init(acc);
			/* part_tile's first barrier orders s.lc = 0 before its use */
			for (uint64_t o = 0; o < e.len; o += C::TILE) {
				T mm[4];
				part_tile<T, C>(src, dst, e.start, o, (uint32_t)min((uint64_t)C::TILE, e.len - o), p, s.sm,
						[&](uint32_t tl, uint32_t tg, uint64_t &lb, uint64_t &gb) {
							lb = s.lc;
							s.lc += tl;
							s.gc += tg;
							gb = e.len - s.gc;
						},
						mm);
				if (threadIdx.x == 0)
					mm_merge(acc, mm);
			}
			const uint64_t L = s.lc, G = s.gc;
			block_fill<C>(t.d + e.start + L, e.len - L - G, p);
			if (threadIdx.x == 0) {
				const bool bad = (L > G ? L : G) > e.len - e.len / 16;
				QStk<T> c[2];
				bool has[2] = {false, false};
				s.nf = 0;
#pragma unroll
				for (int side = 0; side < 2; ++side) {
					const uint64_t cs = side ? e.start + e.len - G : e.start, cl = side ? G : L;
					const T &mn = acc[2 * side], &mx = acc[2 * side + 1];
					if (!cl)
						continue;
					if (QW<T>::eq(mn, mx)) {
						if (!e.aux) { /* the part is in aux: write its value to d */
							s.fv[s.nf] = mn;
							s.fs[s.nf] = cs;
							s.fl[s.nf++] = cl;
						}
						continue;
					}
					has[side] = true;
					c[side].mn = mn;
					c[side].mx = mx;
					c[side].start = cs;
					c[side].len = cl;
					c[side].aux = !e.aux;
					c[side].mm = bad;
				}
				/* the longer first, the shorter on top */
				const bool sw = has[0] && has[1] && c[0].len < c[1].len;
				if (has[0] || has[1])
					s.stk[s.sp++] = sw || !has[0] ? c[1] : c[0];
				if (has[0] && has[1])
					s.stk[s.sp++] = sw ? c[0] : c[1];
			}
			__syncthreads();
			for (uint32_t f = 0; f < s.nf; ++f)
				block_fill<C>(t.d + s.fs[f], s.fl[f], s.fv[f]);
			__syncthreads();
		}
	}
}

} // namespace gs_quick

#endif
