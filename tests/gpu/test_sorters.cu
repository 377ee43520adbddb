/*
 * test_sorters.cu - every in-device sorter of the registry (sorter.cuh,
 * sorters.cu) against std::sort, through the gs_sorter interface alone.
 *
 * Build: make tests/gpu/test_sorters
 * Run:   tests/gpu/test_sorters [--small] [--huge] [--sorter NAME] [--max-log L]
 *
 * For each sorter, each word width (4, 8, 16 bytes) and each size: the
 * words are copied in on a non-blocking stream, sorted there with scratch
 * of exactly extra_bytes(n, width) bytes (rounded up to 256), copied out on
 * the same stream and compared with std::sort's result word for word. The
 * data and the scratch sit between guard areas of a known pattern that must
 * come back untouched (a sorter may touch only d[0..n) and its scratch).
 *
 * Sizes: 0..40, every power of two 2^6..2^L with 2^k - 1, 2^k + 1 and a
 * random size between, so that each engine's thresholds (tile sizes,
 * block-sort sizes, small-sequence cut-offs) meet sizes just under and
 * over them. Distributions (the seed papers' and bench/gen's): uniform,
 * sorted, reverse, all-equal, few-unique, gaussian, zipf, bucket,
 * staggered, sorted with a few swaps, only-low-bits and only-high-bits
 * (a radix sort's empty and full digits), every width; 16-byte words
 * also as the pipeline makes them, (key, index) with distinct indices.
 * Each distribution runs at a few sizes; uniform and few-unique at all.
 *
 * (key, index = position) words are sorted with key_bits 32 (8-byte) and
 * 96 (16-byte), as gpu_sort_chunk.cu sorts them, and at two sizes with
 * key_bits that cut into the index (33, 36, 63 / 97, 100, 127); all
 * others with 8 * width.
 *
 * Interface checks per sorter: a width it does not take (3), key_bits out
 * of 1..8*width and too little scratch give cudaErrorInvalidValue; extra_bytes never decreases as n
 * grows; n >= 2 counts at least one pass.
 *
 * --small: few, small cases (for compute-sanitizer memcheck / racecheck).
 * --huge: also 2^32 + 5 four-byte words (16 GiB plus the sorter's scratch;
 *   skipped, saying so, where the device has too little memory), checked
 *   for order and, against the input, by an order-free hash of the words.
 * No CUDA device: `SKIP gpu: no CUDA device`, exit 0.
 */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "report.h"
#include "sorter.cuh"

namespace {

uint64_t g_rng = 0x2545f4914f6cdd1dull;
uint64_t rnd()
{
	uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
double urand() { return (double)(rnd() >> 11) / 9007199254740992.0; }

enum Dist {
	UNIFORM,
	SORTED,
	REVERSE,
	ALLEQ,
	FEWUNIQ,
	GAUSS,
	ZIPF,
	BUCKET,
	STAGGERED,
	NEARSORTED,
	LOWBITS,
	HIGHBITS,
	KEYINDEX, /* 16-byte words only: (key, index), shuffled: the refinement's words */
	PAIRS,    /* 8- and 16-byte words: (key, index = position), sorted with key_bits 32 / 96 */
	NDIST
};
const char *dist_name[NDIST] = {"uniform",   "sorted",     "reverse", "all-equal", "few-unique",
				"gaussian",  "zipf",       "bucket",  "staggered", "near-sorted",
				"low-bits",  "high-bits",  "key-index", "pairs"};

/* A 64-bit value of distribution d for position i of n; the high bits
 * carry the order (so that 4-byte words keep it: see put()). */
uint64_t value(Dist d, size_t i, size_t n)
{
	const size_t nn = n ? n : 1;
	switch (d) {
	case UNIFORM: return rnd();
	case SORTED: return (uint64_t)((double)i / nn * 18446744073709549568.0);
	case REVERSE: return (uint64_t)((double)(nn - i) / nn * 18446744073709549568.0);
	case ALLEQ: return 0x5a5a5a5a5a5a5a5aull;
	case FEWUNIQ: return (rnd() % 5) << 61;
	case GAUSS: {
		double s = 0;
		for (int k = 0; k < 4; ++k)
			s += urand();
		return (uint64_t)(s / 4 * 18446744073709549568.0);
	}
	case ZIPF: { /* P(rank k) ~ 1/k over 2^20 ranks, by inversion */
		double r = std::exp(urand() * std::log(1048576.0));
		return (uint64_t)r << 40;
	}
	case BUCKET: { /* Dehne & Zaboli's bucket: p blocks, block-part j from range j */
		const size_t p = 64, per = nn / p + 1, j = (i % per) * p / per;
		return ((uint64_t)j << 58) + (rnd() >> 6);
	}
	case STAGGERED: { /* ... and staggered: block b takes range (2b+1) mod p */
		const size_t p = 64, per = nn / p + 1, b = i / per;
		const uint64_t r = b < p / 2 ? 2 * b + 1 : 2 * b - p;
		return (r << 58) + (rnd() >> 6);
	}
	case NEARSORTED: return (uint64_t)((double)i / nn * 18446744073709549568.0);
	case LOWBITS: return (rnd() & 0xff) << 32; /* after put(): one low byte differs (4- and 8-byte words) */
	case HIGHBITS: return rnd() & 0xff00000000000000ull;
	default: return rnd();
	}
}

/* Words of width sizeof(T) from 64-bit values (4 bytes: the high half, so
 * the value's order and ties survive; 16 bytes: value high, random or index
 * low). */
void put(uint32_t &w, uint64_t v, size_t, Dist) { w = (uint32_t)(v >> 32); }
void put(uint64_t &w, uint64_t v, size_t i, Dist d)
{
	w = d == LOWBITS ? v >> 32 : v;
	if (d == PAIRS) /* gs_keys_extract_u64's element: key << 32 | index */
		w = (v & 0xffffffff00000000ull) | (uint32_t)i;
}
void put(gs_u128 &w, uint64_t v, size_t i, Dist d)
{
	w.hi = v;
	w.lo = d == KEYINDEX ? (uint64_t)i : d == ALLEQ ? 0x1234 : rnd();
	if (d == LOWBITS) {
		w.hi = 0;
		w.lo = v >> 32;
	}
	if (d == PAIRS) /* 12 key bytes (few values), then the index */
		w.lo = (rnd() % 3) << 32 | (uint32_t)i;
}

bool word_less(uint32_t a, uint32_t b) { return a < b; }
bool word_less(uint64_t a, uint64_t b) { return a < b; }
bool word_less(const gs_u128 &a, const gs_u128 &b) { return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo; }

template <class T>
std::vector<T> make_words(Dist d, size_t n)
{
	std::vector<T> h(n);
	for (size_t i = 0; i < n; ++i)
		put(h[i], value(d, i, n), i, d);
	if (d == NEARSORTED)
		for (size_t k = 0; n > 1 && k < n / 100 + 1; ++k)
			std::swap(h[rnd() % n], h[rnd() % n]);
	if (d == PAIRS)
		for (size_t i = 0; i < n; ++i)
			put(h[i], (rnd() % 9) << 61 | (rnd() & 0xffffffff00000000ull) >> 3, i, PAIRS);
	if (d == KEYINDEX) /* keys from few values, indices distinct, shuffled */
		for (size_t i = n; i > 1; --i) {
			std::swap(h[i - 1], h[rnd() % i]);
			put(h[i - 1], (rnd() % 7) << 60, i - 1, KEYINDEX);
		}
	return h;
}

const size_t GUARD = 4096;
const unsigned char PAT = 0xa5;

bool guard_ok(const unsigned char *dev, size_t bytes)
{
	std::vector<unsigned char> g(bytes);
	if (cudaMemcpy(g.data(), dev, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
		return false;
	for (unsigned char c : g)
		if (c != PAT)
			return false;
	return true;
}

size_t al256(size_t x) { return (x + 255) & ~(size_t)255; }

/*
 * Sort h with sorter s on a non-blocking stream; out gets the result.
 * Returns "" or why it failed (a CUDA error, a guard area touched).
 */
template <class T>
std::string device_sort(const gs_sorter *s, const std::vector<T> &h, int key_bits, std::vector<T> &out,
			uint64_t *passes)
{
	const size_t n = h.size(), bytes = n * sizeof(T), x = s->extra_bytes(n, (int)sizeof(T));
	const size_t xs = x ? al256(x) : 0;
	unsigned char *buf = NULL, *scr = NULL;
	cudaStream_t st = NULL;
	std::string why;
	cudaError_t e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
	if (e == cudaSuccess)
		e = cudaMalloc(&buf, al256(bytes) + 2 * GUARD);
	if (e == cudaSuccess)
		e = cudaMalloc(&scr, xs + 2 * GUARD);
	if (e == cudaSuccess)
		e = cudaMemset(buf, PAT, al256(bytes) + 2 * GUARD);
	if (e == cudaSuccess)
		e = cudaMemset(scr, PAT, xs + 2 * GUARD);
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	T *d = (T *)(buf + GUARD);
	if (e == cudaSuccess && n)
		e = cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, st);
	if (e == cudaSuccess)
		e = s->sort(d, n, (int)sizeof(T), key_bits, xs ? scr + GUARD : NULL, xs, st, passes);
	out.assign(n, T());
	if (e == cudaSuccess && n)
		e = cudaMemcpyAsync(out.data(), d, bytes, cudaMemcpyDeviceToHost, st);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(st);
	if (e != cudaSuccess)
		why = std::string("CUDA: ") + cudaGetErrorString(e);
	else if (!guard_ok(buf, GUARD) || !guard_ok(buf + GUARD + bytes, al256(bytes) - bytes + GUARD))
		why = "wrote outside d[0..n)";
	else if (!guard_ok(scr, GUARD) || !guard_ok(scr + GUARD + xs, GUARD))
		why = "wrote outside its scratch";
	cudaFree(buf);
	cudaFree(scr);
	if (st)
		cudaStreamDestroy(st);
	return why;
}

/* key_bits 0: as gpu_sort_chunk.cu sorts distribution d (32 / 96 for
 * pairs, else 8 * width); else that many (named in the case). */
template <class T>
void sort_case(const gs_sorter *s, const char *tname, Dist d, size_t n, int key_bits = 0)
{
	const std::string nm = std::string(s->name) + "/" + tname + "/" + dist_name[d] + "/n=" + std::to_string(n) +
			       (key_bits ? "/key_bits=" + std::to_string(key_bits) : "");
	std::vector<T> h = make_words<T>(d, n), out;
	uint64_t passes = 0;
	const int kb = key_bits ? key_bits : d != PAIRS ? 8 * (int)sizeof(T) : sizeof(T) == 8 ? 32 : 96;
	std::string why = device_sort(s, h, kb, out, &passes);
	if (why.empty()) {
		std::sort(h.begin(), h.end(), [](const T &a, const T &b) { return word_less(a, b); });
		for (size_t i = 0; i < n && why.empty(); ++i)
			if (std::memcmp(&h[i], &out[i], sizeof(T)))
				why = "differs from std::sort at " + std::to_string(i) + " of " + std::to_string(n);
		if (why.empty() && n >= 2 && passes == 0)
			why = "counted no pass";
	}
	result(nm, why);
}

std::vector<size_t> sizes(int maxl)
{
	std::vector<size_t> v;
	for (size_t n = 0; n <= 40; ++n)
		v.push_back(n);
	for (int L = 6; L <= maxl; ++L) {
		const size_t p = (size_t)1 << L;
		v.push_back(p - 1);
		v.push_back(p);
		v.push_back(p + 1);
		v.push_back(p + 1 + rnd() % (p - 2));
	}
	return v;
}

template <class T>
void width_cases(const gs_sorter *s, const char *tname, int maxl, bool small)
{
	for (size_t n : sizes(maxl))
		sort_case<T>(s, tname, n % 2 ? UNIFORM : FEWUNIQ, n);
	const size_t few[] = {1000, small ? (size_t)20001 : 65537, (size_t)3 << 17, small ? 70001 : (size_t)1 << 22};
	for (int d = 0; d < NDIST; ++d) {
		if ((d == KEYINDEX && sizeof(T) != 16) || (d == PAIRS && sizeof(T) == 4))
			continue;
		for (size_t n : few)
			if (!small || n < 50000)
				sort_case<T>(s, tname, (Dist)d, n);
	}
	/* key_bits not a multiple of 8 (a radix sort's partial top digit) and
	 * beyond the key: pairs' words equal in those top bits still ascend in
	 * the rest (8 bytes: key, index; 16 bytes: 96 key bits, index) */
	if (sizeof(T) > 4)
		for (int kb : sizeof(T) == 8 ? std::vector<int>{33, 36, 63} : std::vector<int>{97, 100, 127})
			for (size_t n : {(size_t)1000, (size_t)65537})
				sort_case<T>(s, tname, PAIRS, n, kb);
}

/* A width the sorter does not take, too little scratch: refused, and the
 * words left alone. extra_bytes: never decreasing in n. */
void interface_cases(const gs_sorter *s)
{
	const std::string p = std::string(s->name) + "/interface/";
	uint32_t *d = NULL;
	cudaError_t e = cudaMalloc(&d, 1 << 20);
	if (e != cudaSuccess) {
		result(p + "alloc", cudaGetErrorString(e));
		return;
	}
	result(p + "width-3", s->sort(d, 1000, 3, 24, NULL, 0, 0, NULL) == cudaErrorInvalidValue ? "" :
			      "expected cudaErrorInvalidValue for width 3");
	std::string why;
	for (int w : {4, 8, 16})
		for (int kb : {0, 8 * w + 1})
			if (s->sort(d, 4096, w, kb, NULL, 1 << 30, 0, NULL) != cudaErrorInvalidValue)
				why = "width " + std::to_string(w) + ": key_bits " + std::to_string(kb) + " not refused";
	result(p + "key-bits-out-of-range", why);
	why.clear();
	for (int w : {4, 8, 16}) {
		const size_t x = s->extra_bytes(4096, w);
		if (x && s->sort(d, 4096, w, 8 * w, NULL, 0, 0, NULL) != cudaErrorInvalidValue)
			why = "width " + std::to_string(w) + ": no scratch for " + std::to_string(x) + " bytes not refused";
	}
	result(p + "too-little-scratch", why);
	cudaGetLastError();
	cudaDeviceSynchronize();
	cudaFree(d);
	why.clear();
	for (int w : {4, 8, 16}) {
		size_t prev = 0;
		for (size_t n = 0; n < ((size_t)1 << 36) && why.empty(); n = n * 3 + 1) {
			const size_t x = s->extra_bytes(n, w);
			if (x < prev)
				why = "extra_bytes(" + std::to_string(n) + ", " + std::to_string(w) + ") decreased";
			prev = x;
		}
	}
	result(p + "extra-bytes-monotone", why);
	result(p + "source", s->source && *s->source ? "" : "no paper named");
}

/* An order-free hash of a multiset of words. */
uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

void huge_case(const gs_sorter *s)
{
	const size_t n = ((size_t)1 << 32) + 5, bytes = n * 4, x = s->extra_bytes(n, 4);
	const std::string nm = std::string(s->name) + "/u32/uniform/n=" + std::to_string(n);
	size_t fr = 0, tot = 0;
	cudaMemGetInfo(&fr, &tot);
	if (bytes + al256(x) + ((size_t)1 << 30) > fr) {
		printf("SKIP %s: needs %zu MiB of device memory, %zu free\n", nm.c_str(), (bytes + x) >> 20, fr >> 20);
		return;
	}
	std::vector<uint32_t> h(n);
	uint64_t hin = 0;
	for (size_t i = 0; i < n; ++i) {
		h[i] = (uint32_t)rnd();
		hin += mix(h[i]);
	}
	uint32_t *d = NULL;
	unsigned char *scr = NULL;
	cudaError_t e = cudaMalloc(&d, bytes);
	if (e == cudaSuccess && x)
		e = cudaMalloc(&scr, al256(x));
	if (e == cudaSuccess)
		e = cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice);
	if (e == cudaSuccess)
		e = s->sort(d, n, 4, 32, scr, x ? al256(x) : 0, 0, NULL);
	if (e == cudaSuccess)
		e = cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost);
	cudaFree(d);
	cudaFree(scr);
	std::string why;
	if (e != cudaSuccess)
		why = cudaGetErrorString(e);
	uint64_t hout = 0;
	for (size_t i = 0; i < n && why.empty(); ++i) {
		hout += mix(h[i]);
		if (i && h[i - 1] > h[i])
			why = "out of order at " + std::to_string(i);
	}
	if (why.empty() && hin != hout)
		why = "not the input's multiset of words";
	result(nm, why);
}

} // namespace

int main(int argc, char **argv)
{
	bool small = false, huge = false;
	const char *only = NULL;
	int maxl = 0;
	for (int i = 1; i < argc; ++i) {
		if (!strcmp(argv[i], "--small"))
			small = true;
		else if (!strcmp(argv[i], "--huge"))
			huge = true;
		else if (!strcmp(argv[i], "--sorter") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--max-log") && i + 1 < argc)
			maxl = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--small] [--huge] [--sorter NAME] [--max-log L]\n", argv[0]);
			return 2;
		}
	}
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev <= 0) {
		printf("SKIP gpu: no CUDA device\n");
		return 0;
	}
	bool found = false;
	for (int i = 0; gs_sorter_at(i); ++i) {
		const gs_sorter *s = gs_sorter_at(i);
		if (only && strcmp(only, s->name))
			continue;
		found = true;
		interface_cases(s);
		width_cases<uint32_t>(s, "u32", maxl ? maxl : small ? 14 : 23, small);
		width_cases<uint64_t>(s, "u64", maxl ? maxl : small ? 13 : 22, small);
		width_cases<gs_u128>(s, "u128", maxl ? maxl : small ? 12 : 21, small);
		if (huge)
			huge_case(s);
	}
	if (!found) {
		printf("FAIL sorter %s: not in the registry\n", only ? only : "(any)");
		return 1;
	}
	return report_exit();
}
