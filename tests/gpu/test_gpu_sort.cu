/*
 * test_gpu_sort.cu - gpu_sort_chunk, the device-resident chunk and the
 * device-resident merge (gpu_resident_merge) against an independent CPU
 * reference.
 *
 * Build: make tests/gpu/test_gpu_sort, or by hand:
 *        nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -Ikernels \
 *            tests/gpu/test_gpu_sort.cu kernels/*.cu kernels/gpu_errors.c -o tests/gpu/test_gpu_sort
 * Run:   tests/gpu/test_gpu_sort [--small]
 *
 * The reference is std::stable_sort over record indices with a comparator
 * that decodes every key field (integers by value, floats by IEEE-754
 * totalOrder written out case by case, bytes by memcmp); it shares no code
 * with the kernels' normalization. Output: one line per case, `PASS name` or
 * `FAIL name: why`, then `N passed, M failed`; exit 1 on any failure.
 * No CUDA device: `SKIP gpu: no CUDA device`, exit 0.
 *
 * Network cases: bitonic_sort<T> straight on words for every log2 n from 1
 * to 23 (u32) / 22 (u64, u128), at n = 2^L, 2^L - 1 - r and 2^(L-1) + 1 + r,
 * so that every shape of the pass plan (tile sort, shared-memory passes,
 * chained passes, the tile-bits pass) meets padded and unpadded sizes, so
 * that both the FULL partitions (no virtual element: arithmetic addresses,
 * no per-element check) and the checked ones run; plus u32 and u64 words
 * that start one element past the allocation (not 16-byte aligned) at
 * 2^14 - 3, 2^18 - 3 and 2^22 - 3; checked against std::sort. The same
 * up to 2^16 / 2^15 / 2^14 again with the 64-bit index kernels
 * (bitonic_sort's wide_index; they run only above 2^31 elements otherwise).
 * And all of it again with the Lean configuration forced (the one GPUs
 * with less shared memory a SM take: bitonic_variant), plus the check
 * that this device gets the configuration its shared memory calls for.
 * --small: few, small cases (for compute-sanitizer memcheck / racecheck).
 *
 * Overlap cases: a second chunk is begun while the first is still being
 * read out (gpu_resident_begin after gpu_resident_sort, before
 * gpu_resident_end), its pieces put between the first chunk's gets; both
 * chunks must come back in the reference order (the puts must wait for the
 * gets of the records they overwrite), and the API must refuse what would
 * overwrite records not yet read out.
 *
 * Sorter registry: gpu_sorter_count / _name / _source and gpu_set_sorter's
 * refusals (index out of range, a chunk held).
 *
 * Merge cases: the input is cut into k segments, each sorted by the
 * reference (stable), and merged on the device; the result must equal the
 * reference's stable sort of the whole input byte for byte (ties: segment
 * order, then position), which is what gpu_resident_sort gives.
 */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bitonic.cuh"     /* bitonic_sort<T>: the network's plans, directly */
#include "report.h"       /* result(), report_exit() */
#include "gpusort_kernels.h"
#include "merge_path.cuh" /* merge_tile<T>(): tile-boundary sizes */

namespace {

struct Field {
	uint32_t off, width;
	int kind;
	bool be, desc;
};
struct Kind {
	std::string name;
	uint32_t rs;
	std::vector<Field> f;
	bool large; /* also run at ~2^22 records */
};

uint64_t g_rng = 0x9e3779b97f4a7c15ull;
uint64_t rnd()
{
	uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ---- reference comparator: decode, compare by value ---- */
uint64_t load_uint(const unsigned char *p, uint32_t w, bool be)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < w; ++i)
		v |= (uint64_t)p[be ? w - 1 - i : i] << (8 * i);
	return v;
}

template <class F, class U>
int total_order(F a, F b)
{
	const bool na = std::isnan(a), nb = std::isnan(b);
	const bool sa = std::signbit(a), sb = std::signbit(b);
	if (!na && !nb) {
		if (a < b)
			return -1;
		if (a > b)
			return 1;
		if (sa != sb) /* -0.0 < +0.0 */
			return sa ? -1 : 1;
		return 0;
	}
	/* -NaN < every number < +NaN */
	const int ra = na ? (sa ? 0 : 2) : 1, rb = nb ? (sb ? 0 : 2) : 1;
	if (ra != rb)
		return ra < rb ? -1 : 1;
	U ua, ub; /* two NaNs of one sign: by payload, reversed when negative */
	memcpy(&ua, &a, sizeof ua);
	memcpy(&ub, &b, sizeof ub);
	ua &= ~((U)1 << (sizeof(U) * 8 - 1));
	ub &= ~((U)1 << (sizeof(U) * 8 - 1));
	if (ua == ub)
		return 0;
	bool lt = ua < ub;
	if (sa)
		lt = !lt;
	return lt ? -1 : 1;
}

int cmp_field(const unsigned char *a, const unsigned char *b, const Field &f)
{
	int r = 0;
	const unsigned char *pa = a + f.off, *pb = b + f.off;
	switch (f.kind) {
	case KEYS_UINT: {
		uint64_t x = load_uint(pa, f.width, f.be), y = load_uint(pb, f.width, f.be);
		r = x < y ? -1 : x > y;
		break;
	}
	case KEYS_SINT: {
		uint64_t x = load_uint(pa, f.width, f.be), y = load_uint(pb, f.width, f.be);
		int sh = 64 - 8 * (int)f.width;
		int64_t sx = (int64_t)(x << sh) >> sh, sy = (int64_t)(y << sh) >> sh;
		r = sx < sy ? -1 : sx > sy;
		break;
	}
	case KEYS_FLOAT:
		if (f.width == 4) {
			uint32_t x = (uint32_t)load_uint(pa, 4, f.be), y = (uint32_t)load_uint(pb, 4, f.be);
			float fx, fy;
			memcpy(&fx, &x, 4);
			memcpy(&fy, &y, 4);
			r = total_order<float, uint32_t>(fx, fy);
		} else {
			uint64_t x = load_uint(pa, 8, f.be), y = load_uint(pb, 8, f.be);
			double fx, fy;
			memcpy(&fx, &x, 8);
			memcpy(&fy, &y, 8);
			r = total_order<double, uint64_t>(fx, fy);
		}
		break;
	default:
		r = memcmp(pa, pb, f.width);
		r = r < 0 ? -1 : r > 0;
		break;
	}
	return f.desc ? -r : r;
}

int cmp_rec(const unsigned char *a, const unsigned char *b, const Kind &k)
{
	for (const Field &f : k.f) {
		int r = cmp_field(a, b, f);
		if (r)
			return r;
	}
	return 0;
}

std::vector<size_t> ref_order(const std::vector<unsigned char> &recs, size_t n, const Kind &k)
{
	std::vector<size_t> idx(n);
	for (size_t i = 0; i < n; ++i)
		idx[i] = i;
	const unsigned char *base = recs.data();
	std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
		return cmp_rec(base + x * k.rs, base + y * k.rs, k) < 0;
	});
	return idx;
}

/* ---- data ---- */
void write_uint(unsigned char *p, uint32_t w, bool be, uint64_t v)
{
	for (uint32_t i = 0; i < w; ++i)
		p[be ? w - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

void random_field(unsigned char *rec, const Field &f)
{
	unsigned char *p = rec + f.off;
	if (f.kind == KEYS_FLOAT && rnd() % 3 == 0) {
		if (f.width == 4) {
			static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1.0f, -1.0f,
						   1e-45f, -1e-45f, 3.4e38f, -3.4e38f};
			float v = sp[rnd() % (sizeof sp / sizeof sp[0])];
			uint32_t u;
			memcpy(&u, &v, 4);
			if (std::isnan(v) && rnd() % 2)
				u ^= (uint32_t)(rnd() & 0x3fffff); /* other payloads */
			write_uint(p, 4, f.be, u);
		} else {
			static const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1.0, -1.0,
						    5e-324, -5e-324, 1.7e308, -1.7e308};
			double v = sp[rnd() % (sizeof sp / sizeof sp[0])];
			uint64_t u;
			memcpy(&u, &v, 8);
			if (std::isnan(v) && rnd() % 2)
				u ^= rnd() & 0x7ffffffffffffull;
			write_uint(p, 8, f.be, u);
		}
		return;
	}
	if (f.kind == KEYS_BYTES && rnd() % 4 == 0) {
		/* long common prefixes exercise the tie refinement */
		for (uint32_t i = 0; i < f.width; ++i)
			p[i] = i + 1 < f.width ? 0x41 : (unsigned char)rnd();
		return;
	}
	for (uint32_t i = 0; i < f.width; ++i)
		p[i] = (unsigned char)rnd();
}

enum Dist { UNIFORM, SORTED, REVERSE, ALLEQ, FEWUNIQ, NDIST };
const char *dist_name[] = {"uniform", "sorted", "reverse", "all-equal", "few-unique"};

std::vector<unsigned char> make_data(const Kind &k, size_t n, Dist d)
{
	std::vector<unsigned char> v(n * k.rs + 1);
	for (size_t i = 0; i < n * k.rs; ++i)
		v[i] = (unsigned char)rnd();
	const int nt = d == ALLEQ ? 1 : 4;
	std::vector<std::vector<unsigned char>> tmpl(nt, std::vector<unsigned char>(k.rs));
	for (auto &t : tmpl)
		for (const Field &f : k.f)
			random_field(t.data(), f);
	for (size_t i = 0; i < n; ++i) {
		unsigned char *r = v.data() + i * k.rs;
		if (d == ALLEQ || d == FEWUNIQ) {
			const auto &t = tmpl[rnd() % nt];
			for (const Field &f : k.f)
				memcpy(r + f.off, t.data() + f.off, f.width);
		} else {
			for (const Field &f : k.f)
				random_field(r, f);
		}
	}
	if (d == SORTED || d == REVERSE) {
		std::vector<size_t> o = ref_order(v, n, k);
		if (d == REVERSE)
			std::reverse(o.begin(), o.end());
		std::vector<unsigned char> w(v.size());
		for (size_t i = 0; i < n; ++i)
			memcpy(w.data() + i * k.rs, v.data() + o[i] * k.rs, k.rs);
		v.swap(w);
	}
	return v;
}

keys_spec layout_of(const Kind &k)
{
	keys_spec L;
	memset(&L, 0, sizeof L);
	for (const Field &f : k.f) {
		keys_field &g = L.f[L.n++];
		g.offset = f.off;
		g.width = f.width;
		g.kind = (uint8_t)f.kind;
		g.big_endian = f.be;
		g.descending = f.desc;
		L.key_width += f.width;
	}
	L.record_size = k.rs;
	return L;
}

void run_case(gpu_ctx *ctx, const Kind &k, size_t n, Dist d, bool inplace)
{
	char nm[256];
	snprintf(nm, sizeof nm, "%s/rs%u/%s/n=%zu%s", k.name.c_str(), k.rs, dist_name[d], n,
		 inplace ? "/in-place" : "");
	std::vector<unsigned char> in = make_data(k, n, d);
	std::vector<size_t> o = ref_order(in, n, k);
	std::vector<unsigned char> want(n * k.rs + 1);
	for (size_t i = 0; i < n; ++i)
		memcpy(want.data() + i * k.rs, in.data() + o[i] * k.rs, k.rs);
	keys_spec L = layout_of(k);
	std::vector<unsigned char> out(n * k.rs + 1, 0xA5); /* poisoned */
	gpu_stage_times t;
	int r;
	if (inplace) {
		out = in;
		r = gpu_sort_chunk(ctx, &L, out.data(), out.data(), n, &t);
	} else {
		r = gpu_sort_chunk(ctx, &L, in.data(), out.data(), n, &t);
	}
	if (r < 0) {
		result(nm, std::string("gpu_sort_chunk: ") + gpu_strerror(r) + ": " + gpu_last_error(ctx));
		return;
	}
	for (size_t i = 0; i < n; ++i)
		if (memcmp(out.data() + i * k.rs, want.data() + i * k.rs, k.rs)) {
			char w[128];
			snprintf(w, sizeof w, "record %zu of %zu differs from the reference", i, n);
			result(nm, w);
			return;
		}
	if (n >= 2 && t.passes == 0) {
		result(nm, "stage times report 0 passes");
		return;
	}
	result(nm, "");
}

/*
 * The resident API as src/resident.c drives it: begin (a merged chunk when
 * merge), the first n records of `in` put in pieces of `piece` records through 3
 * pinned staging buffers, order() (sort or merge), every piece got back the
 * same way into `out`, end (stage times into *t). Then `out` is held
 * against the reference order o byte for byte. Returns "" or what failed:
 * a GPU error's text (prefixed with what) or the first differing record.
 */
template <class Order>
std::string resident_roundtrip(gpu_ctx *ctx, const keys_spec *L, const std::vector<unsigned char> &in, size_t n,
			       const std::vector<size_t> &o, unsigned rs, size_t piece, bool merge, Order order,
			       gpu_stage_times *t, const char *what)
{
	std::vector<unsigned char> out(n * rs + 1, 0xA5);
	unsigned char *stage[3];
	for (int s = 0; s < 3; ++s)
		stage[s] = (unsigned char *)gpu_host_alloc(piece * rs);
	int r = merge ? gpu_resident_begin_merge(ctx, L, n) : gpu_resident_begin(ctx, L, n);
	for (size_t i = 0, p = 0; r == 0 && p < n; ++i, p += piece) {
		int s = (int)(i % 3);
		size_t c = n - p < piece ? n - p : piece;
		if ((r = gpu_slot_wait(ctx, s)) == 0) {
			memcpy(stage[s], in.data() + p * rs, c * rs);
			r = gpu_resident_put(ctx, stage[s], p, c, s);
		}
	}
	if (r == 0)
		r = order();
	for (size_t i = 0, p = 0; r == 0 && p < n; ++i, p += piece) {
		int s = (int)(i % 3);
		size_t c = n - p < piece ? n - p : piece;
		if ((r = gpu_resident_get(ctx, stage[s], p, c, s)) == 0 && (r = gpu_slot_wait(ctx, s)) == 0)
			memcpy(out.data() + p * rs, stage[s], c * rs);
	}
	int e = gpu_resident_end(ctx, t);
	for (int s = 0; s < 3; ++s)
		gpu_host_free(stage[s]);
	if (r < 0 || e < 0)
		return std::string(what) + ": " + gpu_strerror(r < 0 ? r : e) + ": " + gpu_last_error(ctx);
	for (size_t i = 0; i < n; ++i)
		if (memcmp(out.data() + i * rs, in.data() + o[i] * rs, rs))
			return "record " + std::to_string(i) + " of " + std::to_string(n) + " differs";
	return "";
}

/*
 * The device-resident chunk: records go in through 3 pinned staging
 * buffers of `piece` records (slots reused many times), are sorted, and
 * come back the same way; the output must equal the reference order.
 */
void resident_case(gpu_ctx *ctx, const Kind &k, size_t n, Dist d, size_t piece)
{
	char nm[256];
	snprintf(nm, sizeof nm, "resident/%s/rs%u/%s/n=%zu/piece=%zu", k.name.c_str(), k.rs, dist_name[d], n, piece);
	std::vector<unsigned char> in = make_data(k, n, d);
	std::vector<size_t> o = ref_order(in, n, k);
	keys_spec L = layout_of(k);
	gpu_stage_times t;
	std::string why = resident_roundtrip(ctx, &L, in, n, o, k.rs, piece, false, [&] { return gpu_resident_sort(ctx); },
					     &t, "resident");
	if (why.empty() && n >= 2 && (t.passes == 0 || t.h2d <= 0 || t.d2h <= 0))
		why = "stage times not reported";
	result(nm, why);
}

void resident_api_checks(gpu_ctx *ctx)
{
	Kind k = {"u64@8", 16, {{8, 8, KEYS_UINT, 0, 0}}, false};
	keys_spec L = layout_of(k);
	unsigned char buf[64] = {0};
	result("resident-api/put-before-begin",
	       gpu_resident_put(ctx, buf, 0, 1, 0) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("resident-api/begin-n=0", gpu_resident_begin(ctx, &L, 0) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	size_t cap = gpu_chunk_capacity(ctx, &L);
	result("resident-api/begin-over-capacity",
	       gpu_resident_begin(ctx, &L, cap + 1) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	int r = gpu_resident_begin(ctx, &L, 4);
	result("resident-api/begin", r == 0 ? "" : gpu_last_error(ctx));
	result("resident-api/put-past-end",
	       gpu_resident_put(ctx, buf, 3, 2, 0) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("resident-api/bad-slot",
	       gpu_resident_put(ctx, buf, 0, 1, GPU_SLOTS) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("resident-api/get-before-sort",
	       gpu_resident_get(ctx, buf, 0, 1, 0) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("resident-api/end", gpu_resident_end(ctx, NULL) == 0 ? "" : gpu_last_error(ctx));
	result("resident-api/sort-after-end", gpu_resident_sort(ctx) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
}

/* The sorter registry (gpusort_kernels.h: gpu_sorter_*): bitonic first,
 * names and sources for every index in range, NULL outside, and
 * gpu_set_sorter's refusals. */
void sorter_api_checks(gpu_ctx *ctx)
{
	const int n = gpu_sorter_count();
	const char *first = gpu_sorter_name(0);
	result("sorter-api/bitonic-first", n >= 1 && first && !strcmp(first, "bitonic") ? "" : "expected bitonic at 0");
	std::string why;
	for (int i = 0; i < n && why.empty(); ++i)
		if (!gpu_sorter_name(i) || !*gpu_sorter_name(i) || !gpu_sorter_source(i) || !*gpu_sorter_source(i))
			why = "sorter " + std::to_string(i) + " without a name or a source";
	if (why.empty() && (gpu_sorter_name(-1) || gpu_sorter_name(n) || gpu_sorter_source(n)))
		why = "a name or source for an index out of range";
	result("sorter-api/names", why);
	result("sorter-api/set-out-of-range", gpu_set_sorter(ctx, n) == GPU_EINVAL && gpu_set_sorter(ctx, -1) == GPU_EINVAL
						       ? ""
						       : "expected GPU_EINVAL");
	result("sorter-api/set-null-ctx", gpu_set_sorter(NULL, 0) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	Kind k = {"u64", 8, {{0, 8, KEYS_UINT, 0, 0}}, true};
	keys_spec L = layout_of(k);
	int r = gpu_resident_begin(ctx, &L, 4);
	result("sorter-api/set-while-a-chunk-is-held", r == 0 && gpu_set_sorter(ctx, 0) == GPU_EINVAL ? "" :
		r ? gpu_last_error(ctx) : "expected GPU_EINVAL");
	gpu_resident_end(ctx, NULL);
	result("sorter-api/set", gpu_set_sorter(ctx, 0) == 0 ? "" : gpu_last_error(ctx));
}

std::vector<Kind> kinds()
{
	const int U = KEYS_UINT, S = KEYS_SINT, F = KEYS_FLOAT, B = KEYS_BYTES;
	std::vector<Kind> v = {
		/* key-only: record == one 4/8-byte key */
		{"u32", 4, {{0, 4, U, 0, 0}}, true},
		{"u64", 8, {{0, 8, U, 0, 0}}, true},
		{"i32", 4, {{0, 4, S, 0, 0}}, false},
		{"i64", 8, {{0, 8, S, 0, 0}}, false},
		{"f32", 4, {{0, 4, F, 0, 0}}, false},
		{"f64", 8, {{0, 8, F, 0, 0}}, false},
		{"u32be", 4, {{0, 4, U, 1, 0}}, false},
		{"i64be", 8, {{0, 8, S, 1, 0}}, false},
		{"f64be", 8, {{0, 8, F, 1, 0}}, false},
		{"bytes4", 4, {{0, 4, B, 0, 0}}, false},
		{"bytes8", 8, {{0, 8, B, 0, 0}}, false},
		{"u32:r", 4, {{0, 4, U, 0, 1}}, false},
		{"f32:r", 4, {{0, 4, F, 0, 1}}, false},
		{"f64:r", 8, {{0, 8, F, 0, 1}}, true},
		{"i64:r", 8, {{0, 8, S, 0, 1}}, false},
		/* general, key <= 4 bytes: (key, index) in 64 bits */
		{"u8", 1, {{0, 1, U, 0, 0}}, false},
		{"i8", 1, {{0, 1, S, 0, 0}}, false},
		{"u8:r", 1, {{0, 1, U, 0, 1}}, false},
		{"u16", 2, {{0, 2, U, 0, 0}}, false},
		{"i16be", 2, {{0, 2, S, 1, 0}}, true},
		{"u16@3", 5, {{3, 2, U, 0, 0}}, false},
		{"i32@4", 12, {{4, 4, S, 0, 0}}, false},
		{"f32@8:r", 12, {{8, 4, F, 0, 1}}, false},
		{"bytes3@1", 7, {{1, 3, B, 0, 0}}, false},
		{"u8,i8:r", 4, {{3, 1, U, 0, 0}, {0, 1, S, 0, 1}}, false},
		/* general, key 5..12 bytes: (key, index) in 128 bits */
		{"u64@8", 16, {{8, 8, U, 0, 0}}, true},
		{"i64be", 24, {{0, 8, S, 1, 0}}, false},
		{"f64@16", 32, {{16, 8, F, 0, 0}}, false},
		{"bytes10", 100, {{0, 10, B, 0, 0}}, true},
		{"u64@8,i32@0:r", 16, {{8, 8, U, 0, 0}, {0, 4, S, 0, 1}}, false},
		{"u8,f32:r,u16be,bytes3", 13,
		 {{0, 1, U, 0, 0}, {4, 4, F, 0, 1}, {8, 2, U, 1, 0}, {10, 3, B, 0, 0}}, false},
		/* several keys covering 4 or 8 bytes: the records' words, normalized field by field */
		{"u32,u32@4", 8, {{0, 4, U, 0, 0}, {4, 4, U, 0, 0}}, true},
		{"i16@2,u16be@0:r", 4, {{2, 2, S, 0, 0}, {0, 2, U, 1, 1}}, false},
		{"f32@4,bytes4:r", 8, {{4, 4, F, 0, 0}, {0, 4, B, 0, 1}}, true},
		{"u8,i16@1,u8@3,f32be@4:r", 8, {{0, 1, U, 0, 0}, {1, 2, S, 0, 0}, {3, 1, U, 0, 0}, {4, 4, F, 1, 1}},
		 false},
		{"i16@62", 64, {{62, 2, S, 0, 0}}, false},
		{"f64@120:r", 128, {{120, 8, F, 0, 1}}, false},
		{"f32be@3", 7, {{3, 4, F, 1, 0}}, false},
		/* general, key > 12 bytes: tie refinement */
		{"bytes13", 13, {{0, 13, B, 0, 0}}, false},
		{"bytes16", 16, {{0, 16, B, 0, 0}}, false},
		{"bytes20@4", 32, {{4, 20, B, 0, 0}}, true},
		{"u64,u64@8,u32@16", 20, {{0, 8, U, 0, 0}, {8, 8, U, 0, 0}, {16, 4, U, 0, 0}}, false},
		{"f64,bytes9@8:r,i16@40", 48, {{0, 8, F, 0, 0}, {8, 9, B, 0, 1}, {40, 2, S, 0, 0}}, false},
		{"bytes256", 256, {{0, 256, B, 0, 0}}, false},
	};
	return v;
}

void api_checks(gpu_ctx *ctx, int ndev)
{
	Kind k = {"u64@8", 16, {{8, 8, KEYS_UINT, 0, 0}}, false};
	keys_spec L = layout_of(k);
	unsigned char buf[64] = {0};
	{
		gpu_ctx *c = (gpu_ctx *)1;
		int r = gpu_open(&c, ndev, 0, NULL, 0);
		result("api/open-bad-device", r == GPU_ENODEV && c == NULL ? "" : "expected GPU_ENODEV");
	}
	{
		keys_spec bad = L;
		bad.f[0].offset = 12; /* 12 + 8 > 16 */
		result("api/field-outside-record",
		       gpu_sort_chunk(ctx, &bad, buf, buf, 2, NULL) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
		result("api/capacity-bad-layout", gpu_chunk_capacity(ctx, &bad) == 0 ? "" : "expected 0");
		bad = L;
		bad.f[0].kind = KEYS_FLOAT;
		bad.f[0].width = 2;
		bad.key_width = 2;
		result("api/float-width-2",
		       gpu_sort_chunk(ctx, &bad, buf, buf, 2, NULL) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
		bad = L;
		bad.key_width = 9;
		result("api/key-width-mismatch",
		       gpu_sort_chunk(ctx, &bad, buf, buf, 2, NULL) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	}
	{
		size_t cap = gpu_chunk_capacity(ctx, &L);
		int r = cap == (size_t)-1 ? 0 : gpu_sort_chunk(ctx, &L, buf, buf, cap + 1, NULL);
		result("api/over-capacity", cap > 0 && r == GPU_EINVAL ? "" : "expected GPU_EINVAL");
		result("api/strerror", strcmp(gpu_strerror(GPU_ENOMEM), gpu_strerror(GPU_EINVAL)) ? "" : "same text");
		gpu_stage_times t;
		t.passes = 7;
		r = gpu_sort_chunk(ctx, &L, buf, buf, 0, &t);
		result("api/n=0", r == 0 && t.passes == 0 ? "" : "expected 0 and zeroed times");
	}
	{
		void *p = gpu_host_alloc(1 << 20);
		result("api/host-alloc", p ? "" : "gpu_host_alloc returned NULL");
		gpu_host_free(p);
	}
}

/* A ctx with a small budget: sort exactly its capacity (pinned, in place). */
void budget_case(const Kind &k, size_t budget)
{
	char nm[128];
	snprintf(nm, sizeof nm, "budget/%s/%zuMiB/n=capacity", k.name.c_str(), budget >> 20);
	gpu_ctx *c = NULL;
	int r = gpu_open(&c, 0, budget, NULL, 0);
	if (r < 0) {
		result(nm, std::string("gpu_open: ") + gpu_last_error(NULL));
		return;
	}
	keys_spec L = layout_of(k);
	size_t n = gpu_chunk_capacity(c, &L);
	std::vector<unsigned char> in = make_data(k, n, UNIFORM);
	std::vector<size_t> o = ref_order(in, n, k);
	unsigned char *pin = (unsigned char *)gpu_host_alloc(n * k.rs + 1);
	if (!pin) {
		result(nm, "gpu_host_alloc failed");
		gpu_close(c);
		return;
	}
	memcpy(pin, in.data(), n * k.rs);
	r = gpu_sort_chunk(c, &L, pin, pin, n, NULL);
	std::string why;
	if (r < 0)
		why = std::string("gpu_sort_chunk: ") + gpu_strerror(r) + ": " + gpu_last_error(c);
	else
		for (size_t i = 0; i < n; ++i)
			if (memcmp(pin + i * k.rs, in.data() + o[i] * k.rs, k.rs)) {
				why = "record " + std::to_string(i) + " of " + std::to_string(n) + " differs";
				break;
			}
	snprintf(nm, sizeof nm, "budget/%s/%zuMiB/n=capacity(%zu)", k.name.c_str(), budget >> 20, n);
	result(nm, why);
	gpu_host_free(pin);
	gpu_close(c);
}


/* ---- the device-resident merge ---- */

/* Elements per merge tile of the element type the kernels use for k. */
int tile_of(const Kind &k)
{
	uint32_t kw = 0;
	for (const Field &f : k.f)
		kw += f.width;
	const bool key_only = k.f.size() == 1 && k.f[0].off == 0 && k.f[0].width == k.rs && (k.rs == 4 || k.rs == 8);
	if (key_only)
		return k.rs == 4 ? merge_tile<uint32_t>() : merge_tile<uint64_t>();
	return kw <= 4 ? merge_tile<uint64_t>() : merge_tile<gs_u128>();
}

/* Data of distribution d cut into segments of lens[i] records, each sorted
 * (stably) by the reference; starts[i] gets segment i's first record. */
std::vector<unsigned char> make_segments(const Kind &k, const std::vector<size_t> &lens, Dist d,
					 std::vector<size_t> &starts)
{
	size_t n = 0;
	starts.clear();
	for (size_t l : lens) {
		starts.push_back(n);
		n += l;
	}
	std::vector<unsigned char> v = make_data(k, n, d), w(v.size());
	for (size_t i = 0; i < lens.size(); ++i) {
		std::vector<unsigned char> part(v.begin() + starts[i] * k.rs, v.begin() + (starts[i] + lens[i]) * k.rs);
		std::vector<size_t> o = ref_order(part, lens[i], k);
		for (size_t j = 0; j < lens[i]; ++j)
			memcpy(w.data() + (starts[i] + j) * k.rs, part.data() + o[j] * k.rs, k.rs);
	}
	return w;
}

/*
 * Merge on the device: begin_merge, put through 3 pinned staging buffers
 * of `piece` records, merge (or sort, when by_sort), get, end; the output
 * must equal the reference order byte for byte.
 */
void merge_case_on(gpu_ctx *ctx, const Kind &k, const std::vector<size_t> &lens, Dist d, const char *what,
		   bool by_sort = false)
{
	std::vector<size_t> starts;
	std::vector<unsigned char> in = make_segments(k, lens, d, starts);
	const size_t n = in.size() / k.rs;
	char nm[256];
	snprintf(nm, sizeof nm, "merge/%s/rs%u/%s/k=%zu/n=%zu/%s%s", k.name.c_str(), k.rs, dist_name[d], lens.size(), n,
		 what, by_sort ? "/sorted-after-begin-merge" : "");
	std::vector<size_t> o = ref_order(in, n, k);
	keys_spec L = layout_of(k);
	const size_t piece = n > 200000 ? 300007 : 1000;
	gpu_stage_times t;
	std::string why = resident_roundtrip(
		ctx, &L, in, n, o, k.rs, piece, true,
		[&] { return by_sort ? gpu_resident_sort(ctx) : gpu_resident_merge(ctx, starts.data(), (int)starts.size()); },
		&t, "resident merge");
	size_t nonempty = 0;
	for (size_t l : lens)
		nonempty += l > 0;
	if (why.empty() && nonempty >= 2 && (t.passes == 0 || t.h2d <= 0 || t.d2h <= 0))
		why = "stage times not reported";
	result(nm, why);
}

/* The segment shapes every merge kind goes through (tile T of the kind). */
void merge_cases(gpu_ctx *ctx, const Kind &k, bool small)
{
	const size_t T = (size_t)tile_of(k);
	std::vector<size_t> k7 = {3001, 17, 4999, 1, 2500, 0, 777};
	if (small) {
		merge_case_on(ctx, k, {T / 3, T + 1 - T / 3}, UNIFORM, "tile+1");
		merge_case_on(ctx, k, k7, FEWUNIQ, "k7");
		merge_case_on(ctx, k, {0, 100, 0, 0, 50, 0}, ALLEQ, "empty-segments");
		return;
	}
	merge_case_on(ctx, k, {1000}, UNIFORM, "k1");
	merge_case_on(ctx, k, {1}, UNIFORM, "k1-n1");
	merge_case_on(ctx, k, {500, 700}, UNIFORM, "k2");
	merge_case_on(ctx, k, {1, 2, 3000}, FEWUNIQ, "k3");
	merge_case_on(ctx, k, k7, UNIFORM, "k7");
	merge_case_on(ctx, k, k7, FEWUNIQ, "k7");
	merge_case_on(ctx, k, k7, ALLEQ, "k7");
	{
		std::vector<size_t> l64(64);
		for (size_t &l : l64)
			l = rnd() % 4 == 0 ? 0 : rnd() % 300;
		merge_case_on(ctx, k, l64, UNIFORM, "k64");
		merge_case_on(ctx, k, l64, FEWUNIQ, "k64");
	}
	merge_case_on(ctx, k, {0, 100, 0, 0, 50, 0}, UNIFORM, "empty-segments");
	merge_case_on(ctx, k, {0, 0, 1234, 0}, UNIFORM, "one-nonempty-segment");
	merge_case_on(ctx, k, std::vector<size_t>(200, 1), UNIFORM, "200x1"); /* > 64 pairs a round */
	merge_case_on(ctx, k, std::vector<size_t>(200, 1), ALLEQ, "200x1");
	merge_case_on(ctx, k, {100000, 1, 3, 50000}, FEWUNIQ, "unequal");
	merge_case_on(ctx, k, {1, 100000}, UNIFORM, "unequal-2");
	for (size_t n : {T - 1, T, T + 1}) {
		char w[64];
		snprintf(w, sizeof w, "tile%+d", (int)((long)n - (long)T));
		merge_case_on(ctx, k, {n / 3, n - n / 3}, UNIFORM, w);
		merge_case_on(ctx, k, {1, n - 2, 1}, FEWUNIQ, w);
		merge_case_on(ctx, k, {n, n}, UNIFORM, w);
		merge_case_on(ctx, k, {n, 1, n}, ALLEQ, w);
	}
	merge_case_on(ctx, k, {2 * T - 1, 2 * T + 1, T}, UNIFORM, "2tiles");
	merge_case_on(ctx, k, k7, UNIFORM, "k7", true);
	if (k.large) {
		std::vector<size_t> l8(8);
		size_t n = 0;
		for (size_t &l : l8)
			n += (l = (1u << 19) + rnd() % 4096);
		merge_case_on(ctx, k, l8, UNIFORM, "k8-large");
		if (k.rs <= 32)
			merge_case_on(ctx, k, l8, FEWUNIQ, "k8-large");
	}
}

/* A ctx with a small budget: merge exactly its merge capacity. */
void merge_budget_case(const Kind &k, size_t budget)
{
	char nm[128];
	gpu_ctx *c = NULL;
	int r = gpu_open(&c, 0, budget, NULL, 0);
	if (r < 0) {
		snprintf(nm, sizeof nm, "merge-budget/%s/%zuMiB", k.name.c_str(), budget >> 20);
		result(nm, std::string("gpu_open: ") + gpu_last_error(NULL));
		return;
	}
	keys_spec L = layout_of(k);
	const size_t n = gpu_merge_capacity(c, &L);
	snprintf(nm, sizeof nm, "budget=%zuMiB/n=merge-capacity", budget >> 20);
	if (n < 5) {
		result(std::string("merge-budget/") + k.name + "/" + nm, "merge capacity below 5");
	} else {
		std::vector<size_t> l5 = {n / 5, n / 7, n / 3, n / 11, 0};
		l5[4] = n - l5[0] - l5[1] - l5[2] - l5[3];
		merge_case_on(c, k, l5, FEWUNIQ, nm);
	}
	gpu_close(c);
}

void merge_api_checks(gpu_ctx *ctx)
{
	Kind k = {"u64@8", 16, {{8, 8, KEYS_UINT, 0, 0}}, false};
	keys_spec L = layout_of(k);
	unsigned char buf[64] = {0}; /* 4 records of 16 zero bytes: every segment is sorted */
	const size_t s02[] = {0, 2}, s12[] = {1, 2}, s032[] = {0, 3, 2}, s05[] = {0, 5}, s0[] = {0};
	result("merge-api/merge-before-begin",
	       gpu_resident_merge(ctx, s02, 2) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	const size_t cap = gpu_merge_capacity(ctx, &L), scap = gpu_chunk_capacity(ctx, &L);
	result("merge-api/capacity", cap > 0 && cap < scap ? "" : "expected 0 < merge capacity < chunk capacity");
	{
		keys_spec bad = L;
		bad.f[0].offset = 12; /* 12 + 8 > 16 */
		result("merge-api/capacity-bad-layout", gpu_merge_capacity(ctx, &bad) == 0 ? "" : "expected 0");
		result("merge-api/capacity-null-ctx", gpu_merge_capacity(NULL, &L) == 0 ? "" : "expected 0");
	}
	result("merge-api/begin-over-capacity",
	       gpu_resident_begin_merge(ctx, &L, cap + 1) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	gpu_resident_end(ctx, NULL);
	result("merge-api/begin-n=0", gpu_resident_begin_merge(ctx, &L, 0) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	gpu_resident_end(ctx, NULL);
	/* begun for a sort: no merge */
	int r = gpu_resident_begin(ctx, &L, 4);
	if (r == 0)
		r = gpu_resident_put(ctx, buf, 0, 4, 0);
	result("merge-api/merge-after-plain-begin",
	       r == 0 && gpu_resident_merge(ctx, s02, 2) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	gpu_resident_end(ctx, NULL);
	r = gpu_resident_begin_merge(ctx, &L, 4);
	result("merge-api/begin", r == 0 ? "" : gpu_last_error(ctx));
	if (r == 0)
		r = gpu_resident_put(ctx, buf, 0, 4, 0);
	result("merge-api/put", r == 0 ? "" : gpu_last_error(ctx));
	result("merge-api/get-before-merge",
	       gpu_resident_get(ctx, buf, 0, 1, 1) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("merge-api/first-start-not-0",
	       gpu_resident_merge(ctx, s12, 2) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("merge-api/non-monotone-starts",
	       gpu_resident_merge(ctx, s032, 3) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("merge-api/start-past-n", gpu_resident_merge(ctx, s05, 2) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("merge-api/k=0", gpu_resident_merge(ctx, s0, 0) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("merge-api/null-starts", gpu_resident_merge(ctx, NULL, 2) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	/* the failed calls leave the chunk as it was: a good merge still works */
	r = gpu_resident_merge(ctx, s02, 2);
	result("merge-api/merge-after-bad-calls", r == 0 ? "" : gpu_last_error(ctx));
	result("merge-api/merge-twice", gpu_resident_merge(ctx, s02, 2) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("merge-api/sort-after-merge", gpu_resident_sort(ctx) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	unsigned char back[64];
	memset(back, 0xA5, sizeof back);
	r = gpu_resident_get(ctx, back, 0, 4, 1);
	if (r == 0)
		r = gpu_slot_wait(ctx, 1);
	result("merge-api/get", r == 0 && !memcmp(back, buf, sizeof buf) ? "" : "expected the 4 records back");
	result("merge-api/end", gpu_resident_end(ctx, NULL) == 0 ? "" : gpu_last_error(ctx));
	result("merge-api/merge-after-end", gpu_resident_merge(ctx, s02, 2) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
}

/* ---- cross-chunk overlap: a chunk put while the previous one drains ---- */

/* One chunk of a case: its records (merged chunks: sorted segments starting
 * at starts) and the reference order. */
struct Chunk {
	std::vector<unsigned char> in;
	std::vector<size_t> starts;
	std::vector<size_t> order;
	size_t n;
};

Chunk make_chunk(const Kind &k, size_t n, const std::vector<size_t> *lens, Dist d)
{
	Chunk c;
	if (lens) {
		c.in = make_segments(k, *lens, d, c.starts);
		c.n = c.in.size() / k.rs;
	} else {
		c.in = make_data(k, n, d);
		c.n = n;
	}
	c.order = ref_order(c.in, c.n, k);
	return c;
}

/* "" when out holds c's records in the reference order, else why not. */
std::string check_order(const Kind &k, const Chunk &c, const std::vector<unsigned char> &out, const char *who)
{
	for (size_t i = 0; i < c.n; ++i)
		if (memcmp(out.data() + i * k.rs, c.in.data() + c.order[i] * k.rs, k.rs))
			return std::string(who) + ": record " + std::to_string(i) + " of " + std::to_string(c.n) + " differs";
	return "";
}

/* Staging for the overlap cases: puts through buffers 0..2 on slots 0..2,
 * gets through buffers 3..5 on slots 4..6 (each direction its own slots). */
struct Staging {
	unsigned char *b[6];
	size_t piece;
	Staging(size_t piece_, uint32_t rs) : piece(piece_)
	{
		for (int i = 0; i < 6; ++i)
			b[i] = (unsigned char *)gpu_host_alloc(piece * rs);
	}
	~Staging()
	{
		for (int i = 0; i < 6; ++i)
			gpu_host_free(b[i]);
	}
	size_t count(const Chunk &c, size_t p) const { return c.n - p * piece < piece ? c.n - p * piece : piece; }
	size_t pieces(const Chunk &c) const { return (c.n + piece - 1) / piece; }
};

/* Put piece p of c (waiting for its buffer's previous put first). */
int put_piece(gpu_ctx *ctx, const Kind &k, const Chunk &c, size_t p, Staging &st)
{
	const int s = (int)(p % 3);
	int r = gpu_slot_wait(ctx, s);
	if (r == 0) {
		memcpy(st.b[s], c.in.data() + p * st.piece * k.rs, st.count(c, p) * k.rs);
		r = gpu_resident_put(ctx, st.b[s], p * st.piece, st.count(c, p), s);
	}
	return r;
}

/* Issue the get of sorted piece p of c (its buffer must have been collected). */
int get_piece(gpu_ctx *ctx, const Chunk &c, size_t p, Staging &st)
{
	const int s = (int)(p % 3);
	return gpu_resident_get(ctx, st.b[3 + s], p * st.piece, st.count(c, p), 4 + s);
}

/* Wait for the get of piece p of c and copy it into out. */
int collect_piece(gpu_ctx *ctx, const Kind &k, const Chunk &c, size_t p, Staging &st, std::vector<unsigned char> &out)
{
	const int s = (int)(p % 3);
	int r = gpu_slot_wait(ctx, 4 + s);
	if (r == 0)
		memcpy(out.data() + p * st.piece * k.rs, st.b[3 + s], st.count(c, p) * k.rs);
	return r;
}

int order_chunk(gpu_ctx *ctx, const Chunk &c, bool merge)
{
	return merge ? gpu_resident_merge(ctx, c.starts.data(), (int)c.starts.size()) : gpu_resident_sort(ctx);
}

/*
 * Chunk A is put and ordered; chunk B is begun while A is sorted, and B's
 * put of piece p is issued right after A's get of piece p, before that get
 * is waited for (up to 3 of A's gets in flight): where B's records go onto
 * A's sorted records (key-only records; a merge of one segment; a key-only
 * merge of an even number of rounds), the put must wait on the device for
 * A's get, and a missing wait shows as A's records differing. A is ended,
 * B sorted, got and ended (not overlapped); both must equal the reference
 * order, and each must report its own stage times. Merged chunks (lensA,
 * lensB: segment lengths) go through gpu_resident_begin_merge and
 * gpu_resident_merge; sorted ones have nA and nB records.
 */
void overlap_case(gpu_ctx *ctx, const Kind &k, size_t nA, size_t nB, size_t piece, const std::vector<size_t> *lensA = NULL,
		  const std::vector<size_t> *lensB = NULL, const char *what = "")
{
	const bool merge = lensA != NULL;
	const Chunk A = make_chunk(k, nA, lensA, UNIFORM), B = make_chunk(k, nB, lensB, FEWUNIQ);
	char nm[256];
	snprintf(nm, sizeof nm, "overlap/%s/rs%u/%s/nA=%zu/nB=%zu/piece=%zu%s", k.name.c_str(), k.rs,
		 merge ? "merge" : "sort", A.n, B.n, piece, what);
	keys_spec L = layout_of(k);
	Staging st(piece, k.rs);
	std::vector<unsigned char> outA(A.n * k.rs + 1, 0xA5), outB(B.n * k.rs + 1, 0xA5);
	const size_t npA = st.pieces(A), npB = st.pieces(B);
	auto begin = [&](size_t n) { return merge ? gpu_resident_begin_merge(ctx, &L, n) : gpu_resident_begin(ctx, &L, n); };
	std::string why, step = "begin A";
	gpu_stage_times tA, tB;
	memset(&tA, 0, sizeof tA);
	memset(&tB, 0, sizeof tB);
	int r = begin(A.n), held = r == 0;
	for (size_t p = 0; r == 0 && p < npA; ++p)
		r = put_piece(ctx, k, A, p, st), step = "put A";
	if (r == 0)
		r = order_chunk(ctx, A, merge), step = "order A";
	if (r == 0)
		r = begin(B.n), step = "begin B (overlapped)", held += r == 0;
	for (size_t p = 0; r == 0 && p < (npA > npB ? npA : npB); ++p) {
		if (p < npA && p >= 3 && (r = collect_piece(ctx, k, A, p - 3, st, outA)))
			step = "wait for a get of A";
		else if (p < npA && (r = get_piece(ctx, A, p, st)))
			step = "get A";
		else if (p < npB && (r = put_piece(ctx, k, B, p, st)))
			step = "put B while A drains";
	}
	for (size_t p = npA > 3 ? npA - 3 : 0; r == 0 && p < npA; ++p)
		r = collect_piece(ctx, k, A, p, st, outA), step = "wait for a get of A";
	if (r == 0)
		r = gpu_resident_end(ctx, &tA), step = "end A", held--;
	if (r == 0 && (why = check_order(k, A, outA, "A")).empty()) {
		r = order_chunk(ctx, B, merge), step = "order B";
		for (size_t p = 0; r == 0 && p < npB; ++p) {
			if (p >= 3 && (r = collect_piece(ctx, k, B, p - 3, st, outB)))
				break;
			r = get_piece(ctx, B, p, st);
		}
		for (size_t p = npB > 3 ? npB - 3 : 0; r == 0 && p < npB; ++p)
			r = collect_piece(ctx, k, B, p, st, outB), step = "get B";
		if (r == 0)
			r = gpu_resident_end(ctx, &tB), step = "end B", held--;
		if (r == 0)
			why = check_order(k, B, outB, "B");
	}
	if (r < 0)
		why = step + ": " + gpu_strerror(r) + ": " + gpu_last_error(ctx);
	while (held-- > 0)
		gpu_resident_end(ctx, NULL);
	const bool timed = A.n * k.rs >= 4096 && B.n * k.rs >= 4096; /* copies long enough to take a measurable time */
	if (why.empty() && timed && (tA.h2d <= 0 || tA.d2h <= 0 || tB.h2d <= 0 || tB.d2h <= 0))
		why = "stage times not reported for each chunk";
	if (why.empty() && ((A.n >= 2 && !merge && tA.passes == 0) || (B.n >= 2 && !merge && tB.passes == 0)))
		why = "no passes reported";
	result(nm, why);
}

void overlap_cases(gpu_ctx *ctx, const std::vector<Kind> &K, bool small)
{
	auto kind = [&](const char *nm) -> const Kind & {
		for (const Kind &k : K)
			if (k.name == nm)
				return k;
		return K[0];
	};
	const Kind &u32 = kind("u32"), &u64 = kind("u64"), &gen4 = kind("i32@4"), &gen16 = kind("bytes16"),
		   &gen20 = kind("bytes20@4"), &gen12 = kind("u64@8,i32@0:r");
	/* sorted chunks: key-only, general with key <= 4 bytes, general with a
	 * 16-byte key (tie refinement); the second chunk smaller, larger, one piece */
	overlap_case(ctx, u32, 10007, 7001, 1000);
	overlap_case(ctx, gen4, 20011, 3001, 1000);
	overlap_case(ctx, gen16, 30011, 12345, 4096);
	std::vector<size_t> k7 = {3001, 17, 4999, 1, 2500, 0, 777}, k3 = {1000, 2000, 500}, k1 = {7000};
	overlap_case(ctx, u64, 0, 0, 1000, &k3, &k1, "/2-rounds-then-1-segment");
	if (small)
		return;
	overlap_case(ctx, u64, 100003, 99999, 10007);
	overlap_case(ctx, u64, 5000, 9000, 1000, NULL, NULL, "/second-larger");
	overlap_case(ctx, u32, 999, 1, 1000, NULL, NULL, "/one-piece");
	overlap_case(ctx, u32, 1, 1, 1000, NULL, NULL, "/one-record");
	overlap_case(ctx, gen12, 50021, 49999, 2048);
	overlap_case(ctx, gen20, 40009, 777, 1000);
	for (const char *nm : {"u32", "u64"})
		overlap_case(ctx, kind(nm), (1u << 22) + 3, (1u << 21) + 5, 300007, NULL, NULL, "/large");
	overlap_case(ctx, gen16, (1u << 20) + 7, (1u << 19) + 1, 300007, NULL, NULL, "/large");
	/* merged chunks: the result in d_alt (odd rounds) or d_in (even rounds,
	 * one segment: also for the general path), and the general d_out */
	overlap_case(ctx, u32, 0, 0, 1000, &k7, &k3, "/3-rounds-then-2");
	overlap_case(ctx, u64, 0, 0, 1000, &k1, &k7, "/1-segment-then-3-rounds");
	overlap_case(ctx, gen12, 0, 0, 1000, &k1, &k3, "/1-segment-then-2-rounds");
	std::vector<size_t> g2a = {3001, 5000}, g2b = {2500, 2500};
	overlap_case(ctx, gen20, 0, 0, 1000, &g2a, &g2b, "/2-segments");
	overlap_case(ctx, gen4, 0, 0, 1000, &k3, &k7, "/2-rounds-then-3");
}

/*
 * Begin a chunk of the 4 records at recs, put and sort it, get its records
 * [2, 4) into early (when not NULL; out of order, which is fine while the
 * chunk is alone), then begin a second chunk of 4 beside it. 0 or the first
 * failure.
 */
int four_then_begin(gpu_ctx *ctx, const keys_spec *L, const void *recs, void *early, size_t rs)
{
	int r = gpu_resident_begin(ctx, L, 4);
	if (r == 0)
		r = gpu_resident_put(ctx, recs, 0, 4, 0);
	if (r == 0)
		r = gpu_resident_sort(ctx);
	if (r == 0 && early)
		r = gpu_resident_get(ctx, (unsigned char *)early + 2 * rs, 2, 2, 5);
	if (r == 0)
		r = gpu_resident_begin(ctx, L, 4);
	return r;
}

/* The overlapped call sequence's refusals, and its results on 4 records. */
void overlap_api_checks(gpu_ctx *ctx)
{
	Kind k = {"u64", 8, {{0, 8, KEYS_UINT, 0, 0}}, false};
	Kind g = {"u64@8", 16, {{8, 8, KEYS_UINT, 0, 0}}, false};
	keys_spec L = layout_of(k), LG = layout_of(g);
	uint64_t a[4] = {4, 3, 2, 1}, b[4] = {40, 30, 20, 10}, out[4], out2[4], want_a[4] = {1, 2, 3, 4},
		 want_b[4] = {10, 20, 30, 40};
	const size_t s0[] = {0};
	int r = gpu_resident_begin(ctx, &L, 4);
	result("overlap-api/begin-while-receiving",
	       r == 0 && gpu_resident_begin(ctx, &L, 4) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	if (r == 0)
		r = gpu_resident_put(ctx, a, 0, 4, 0);
	if (r == 0)
		r = gpu_resident_sort(ctx);
	result("overlap-api/sort-A", r == 0 ? "" : gpu_last_error(ctx));
	result("overlap-api/begin-merge-while-a-sort-drains",
	       gpu_resident_begin_merge(ctx, &L, 4) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("overlap-api/begin-other-layout",
	       gpu_resident_begin(ctx, &LG, 4) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	r = gpu_resident_begin(ctx, &L, 4);
	result("overlap-api/begin-B-while-A-drains", r == 0 ? "" : gpu_last_error(ctx));
	result("overlap-api/begin-third", gpu_resident_begin(ctx, &L, 4) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("overlap-api/sort-B-before-end-A", gpu_resident_sort(ctx) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("overlap-api/merge-B-before-end-A",
	       gpu_resident_merge(ctx, s0, 1) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("overlap-api/put-B-over-A-not-got",
	       gpu_resident_put(ctx, b, 0, 2, 1) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("overlap-api/get-A-with-a-gap",
	       gpu_resident_get(ctx, out + 2, 2, 2, 5) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	r = gpu_resident_get(ctx, out, 0, 2, 4);
	result("overlap-api/get-A-first-half", r == 0 ? "" : gpu_last_error(ctx));
	r = gpu_resident_put(ctx, b, 0, 2, 1);
	result("overlap-api/put-B-over-A-got", r == 0 ? "" : gpu_last_error(ctx));
	result("overlap-api/put-B-past-A-got",
	       gpu_resident_put(ctx, b + 2, 2, 2, 2) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	result("overlap-api/get-A-overwritten",
	       gpu_resident_get(ctx, out2, 0, 1, 6) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	r = gpu_resident_get(ctx, out + 2, 2, 2, 5);
	if (r == 0)
		r = gpu_resident_put(ctx, b + 2, 2, 2, 2);
	if (r == 0)
		r = gpu_slot_wait(ctx, 4);
	if (r == 0)
		r = gpu_slot_wait(ctx, 5);
	result("overlap-api/A-back", r == 0 && !memcmp(out, want_a, sizeof out) ? "" : "expected A sorted");
	gpu_stage_times t;
	r = gpu_resident_end(ctx, &t);
	result("overlap-api/end-A", r == 0 ? "" : gpu_last_error(ctx));
	result("overlap-api/get-B-before-sort",
	       gpu_resident_get(ctx, out, 0, 4, 4) == GPU_EINVAL ? "" : "expected GPU_EINVAL");
	r = gpu_resident_sort(ctx);
	memset(out, 0xA5, sizeof out);
	if (r == 0)
		r = gpu_resident_get(ctx, out, 0, 4, 4);
	if (r == 0)
		r = gpu_slot_wait(ctx, 4);
	result("overlap-api/B-back", r == 0 && !memcmp(out, want_b, sizeof out) ? "" : "expected B sorted");
	r = gpu_resident_end(ctx, &t);
	result("overlap-api/end-B", r == 0 && t.passes > 0 ? "" : "expected 0 and B's passes");
	result("overlap-api/end-idle", gpu_resident_end(ctx, NULL) == 0 ? "" : gpu_last_error(ctx));
	/* the general path: A's result is in d_out, apart from B's records, so
	 * B may be put before any of A is got; gets out of order are fine
	 * while A is alone */
	unsigned char ga[64], gb[64], gout[64];
	for (int i = 0; i < 4; ++i) {
		memset(ga + 16 * i, 0, 16);
		memset(gb + 16 * i, 0, 16);
		ga[16 * i + 8] = (unsigned char)(4 - i);
		gb[16 * i + 8] = (unsigned char)(40 - i);
	}
	r = four_then_begin(ctx, &LG, ga, gout, 16);
	result("overlap-api/general-begin-B", r == 0 ? "" : gpu_last_error(ctx));
	r = gpu_resident_put(ctx, gb, 0, 4, 1);
	result("overlap-api/general-put-B-before-A-got", r == 0 ? "" : gpu_last_error(ctx));
	r = gpu_resident_get(ctx, gout, 0, 2, 4);
	if (r == 0)
		r = gpu_resident_end(ctx, NULL);
	bool ok = r == 0;
	for (int i = 0; ok && i < 4; ++i)
		ok = gout[16 * i + 8] == i + 1;
	result("overlap-api/general-A-back", ok ? "" : "expected A sorted");
	r = gpu_resident_sort(ctx);
	if (r == 0)
		r = gpu_resident_get(ctx, gout, 0, 4, 4);
	if (r == 0)
		r = gpu_resident_end(ctx, NULL);
	ok = r == 0;
	for (int i = 0; ok && i < 4; ++i)
		ok = gout[16 * i + 8] == 37 + i;
	result("overlap-api/general-B-back", ok ? "" : "expected B sorted");
	/* after a failure, one end per chunk held leaves the ctx idle */
	r = four_then_begin(ctx, &L, a, NULL, 8);
	bool refused = r == 0 && gpu_resident_put(ctx, b, 0, 4, 1) == GPU_EINVAL;
	r = gpu_resident_end(ctx, NULL);
	if (r == 0)
		r = gpu_resident_end(ctx, NULL);
	if (r == 0)
		r = gpu_resident_begin(ctx, &L, 4);
	if (r == 0)
		r = gpu_resident_end(ctx, NULL);
	result("overlap-api/two-ends-after-a-failure", refused && r == 0 ? "" : "expected idle after two ends");
}

/* integers by value; gs_u128 as one 128-bit number, hi first */
bool word_less(uint32_t a, uint32_t b) { return a < b; }
bool word_less(uint64_t a, uint64_t b) { return a < b; }
bool word_less(const gs_u128 &a, const gs_u128 &b) { return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo; }

/* bitonic_sort<T> on n words (few distinct values when `few`, so that
 * ties and the padding sentinel's value meet) against std::sort; wide:
 * with the 64-bit index kernels. */
template <class T>
void network_case(const char *tname, size_t n, bool few, size_t off, bool wide, int variant)
{
	char nm[128];
	snprintf(nm, sizeof nm, "network/%s/n=%zu/%s%s%s%s", tname, n, few ? "fewunique" : "uniform",
		 off ? "/unaligned" : "", wide ? "/wide-index" : "", variant == BITONIC_LEAN ? "/lean" : "");
	std::vector<T> h(n), out(n);
	for (size_t i = 0; i < n; ++i) {
		uint64_t a = rnd(), b = rnd();
		if (few) {
			a = a % 3 == 2 ? ~0ull : a % 3;
			b = a;
		}
		std::memcpy(&h[i], &a, sizeof(T) < 8 ? sizeof(T) : 8);
		if (sizeof(T) > 8)
			std::memcpy(reinterpret_cast<char *>(&h[i]) + 8, &b, 8);
	}
	T *d = NULL;
	std::string why;
	uint64_t passes = 0;
	if (cudaMalloc(&d, (n + off) * sizeof(T)) != cudaSuccess) {
		result(nm, "cudaMalloc failed");
		return;
	}
	/* off > 0: the words start off elements into the allocation, so that
	 * the passes' accesses are not aligned as the tiles are */
	cudaError_t e = cudaMemcpy(d + off, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
	if (e == cudaSuccess)
		e = bitonic_sort<T>(d + off, n, 0, &passes, wide, variant);
	if (e == cudaSuccess)
		e = cudaMemcpy(out.data(), d + off, n * sizeof(T), cudaMemcpyDeviceToHost);
	cudaFree(d);
	if (e != cudaSuccess) {
		result(nm, cudaGetErrorString(e));
		return;
	}
	std::sort(h.begin(), h.end(), [](const T &a, const T &b) { return word_less(a, b); });
	if (passes != bitonic_pass_count<T>(n, variant))
		why = "pass count differs from bitonic_pass_count";
	for (size_t i = 0; i < n && why.empty(); ++i)
		if (std::memcmp(&h[i], &out[i], sizeof(T)))
			why = "differs from std::sort at " + std::to_string(i);
	result(nm, why);
}

template <class T>
void network_cases(const char *tname, int maxl, bool wide = false, int variant = BITONIC_DEF)
{
	for (int L = 1; L <= maxl; ++L) {
		const size_t p = (size_t)1 << L, r = L > 2 ? rnd() % (p / 4) : 0;
		network_case<T>(tname, p, L % 2, 0, wide, variant);
		if (p - 1 - r > 1)
			network_case<T>(tname, p - 1 - r, !(L % 2), 0, wide, variant);
		if (L > 1)
			network_case<T>(tname, p / 2 + 1 + r, L % 3 == 0, 0, wide, variant);
	}
	/* words that do not start on a 16-byte boundary, sizes that run every
	 * kind of pass */
	if (sizeof(T) < 16)
		for (int L = 14; L <= maxl; L += 4)
			network_case<T>(tname, ((size_t)1 << L) - 3, L % 8 == 2, 1, wide, variant);
}

std::vector<Kind> merge_kinds(const std::vector<Kind> &K)
{
	std::vector<Kind> v;
	for (const char *nm : {"u32", "u64", "f32:r", "i64:r", "u16", "i32@4", "bytes10", "bytes20@4", "u64@8,i32@0:r",
			       "u64,u64@8,u32@16", "f32@4,bytes4:r", "i16@2,u16be@0:r"})
		for (const Kind &k : K)
			if (k.name == nm) {
				v.push_back(k);
				break;
			}
	return v;
}

} // namespace

int main(int argc, char **argv)
{
	bool small = argc > 1 && !strcmp(argv[1], "--small");
	int ndev = gpu_device_count();
	if (ndev <= 0) {
		printf("SKIP gpu: no CUDA device\n");
		return 0;
	}
	gpu_ctx *ctx = NULL;
	char name[128];
	int r = gpu_open(&ctx, 0, (size_t)3 << 30, name, sizeof name);
	if (r < 0) {
		printf("FAIL open: %s: %s\n", gpu_strerror(r), gpu_last_error(NULL));
		printf("0 passed, 1 failed\n");
		return 1;
	}
	fprintf(stderr, "device: %s\n", name);
	api_checks(ctx, ndev);
	resident_api_checks(ctx);
	merge_api_checks(ctx);
	overlap_api_checks(ctx);
	sorter_api_checks(ctx);

	network_cases<uint32_t>("u32", small ? 16 : 23);
	network_cases<uint64_t>("u64", small ? 15 : 22);
	network_cases<gs_u128>("u128", small ? 14 : 22);
	network_cases<uint32_t>("u32", 16, true);
	network_cases<uint64_t>("u64", 15, true);
	network_cases<gs_u128>("u128", 14, true);
	/* the configuration for GPUs with less shared memory a SM, forced */
	network_cases<uint32_t>("u32", small ? 15 : 22, false, BITONIC_LEAN);
	network_cases<uint64_t>("u64", small ? 14 : 21, false, BITONIC_LEAN);
	network_cases<gs_u128>("u128", small ? 13 : 21, false, BITONIC_LEAN);
	network_cases<uint64_t>("u64", 14, true, BITONIC_LEAN);
	{
		const int v[3] = {bitonic_variant<uint32_t>(), bitonic_variant<uint64_t>(), bitonic_variant<gs_u128>()};
		int smem = 0, dev = 0;
		cudaGetDevice(&dev);
		cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
		/* every Def wants at most 128 KiB a SM: a GPU with that much takes Def */
		const bool want_def = smem >= 128 * 1024;
		std::string why;
		for (int i = 0; i < 3; ++i)
			if (want_def && v[i] != BITONIC_DEF)
				why = "a device with " + std::to_string(smem / 1024) + " KiB a SM took the lean configuration";
		if (smem < 64 * 1024 && (v[0] != BITONIC_LEAN || v[1] != BITONIC_LEAN))
			why = "a device with " + std::to_string(smem / 1024) + " KiB a SM took the default configuration";
		result("network/variant-for-this-device (" + std::to_string(smem / 1024) + " KiB a SM: " +
			       (v[2] == BITONIC_DEF ? "def" : "lean") + ")",
		       why);
	}

	std::vector<Kind> K = kinds();
	for (const Kind &k : merge_kinds(K))
		merge_cases(ctx, k, small);
	overlap_cases(ctx, K, small);
	const size_t nsmall[] = {0, 1, 2, 3, 5, 17, 31, 33, 255, 1023, 1024, 1025};
	const size_t nmid[] = {4095, 4097, 8191, 8193, 16383, 16385, 65535, 65537, 131073};
	const size_t nlarge[] = {(1u << 20) + 1, (1u << 22) - 1, 1u << 22, (1u << 22) + 1};
	if (small) {
		const size_t ns[] = {0, 1, 2, 3, 33, 1025, 8193, 16385};
		for (const Kind &k : K)
			for (size_t n : ns) {
				if (n > 1025 && !(k.name == "u32" || k.name == "u64" || k.name == "u64@8" ||
						  k.name == "i16be" || k.name == "bytes20@4"))
					continue;
				run_case(ctx, k, n, n % 2 ? UNIFORM : FEWUNIQ, false);
			}
		budget_case(K[0], 1 << 20);
		merge_budget_case(K[0], 1 << 20);
		for (const Kind &k : K)
			if (k.large)
				resident_case(ctx, k, 10007, UNIFORM, 1000);
	} else {
		for (const Kind &k : K)
			for (size_t n : {(size_t)1, (size_t)999, (size_t)1000, (size_t)100003})
				resident_case(ctx, k, n, n % 2 ? UNIFORM : FEWUNIQ, 1000);
		for (const Kind &k : K)
			if (k.large)
				resident_case(ctx, k, (1u << 22) + 3, UNIFORM, 300007);
		for (const Kind &k : K)
			for (int d = 0; d < NDIST; ++d)
				for (size_t n : nsmall)
					run_case(ctx, k, n, (Dist)d, false);
		for (const Kind &k : K)
			for (Dist d : {UNIFORM, REVERSE, FEWUNIQ})
				for (size_t n : nmid)
					run_case(ctx, k, n, d, n == 65537);
		for (const Kind &k : K)
			if (k.large)
				for (Dist d : {UNIFORM, FEWUNIQ})
					for (size_t n : nlarge)
						run_case(ctx, k, n, d, false);
		for (Dist d : {SORTED, REVERSE, ALLEQ})
			run_case(ctx, K[0], (1u << 22) + 1, d, true);
		for (const char *nm : {"u32", "u64", "u64@8", "bytes20@4", "i16be"})
			for (const Kind &k : K)
				if (k.name == nm) {
					budget_case(k, 16 << 20);
					merge_budget_case(k, 16 << 20);
					break;
				}
	}
	gpu_close(ctx);
	return report_exit();
}
