/*
 * keys_extract.cu - normalized keys on the device, and the record gather.
 *
 * Normalized key (the rules: key_layout.h): the concatenation of every
 * field's normalized bytes, compared as unsigned bytes. Kernels here
 *   - normalize / de-normalize key-only records in place (records of 4 or 8
 *     bytes that their keys cover: one key, or several): the word's unsigned
 *     value is then the key's order;
 *   - build (key, index) elements: u64 = 4 key bytes . u32 index, or
 *     u128 = 12 key bytes . u32 index, the key bytes big-endian at the top so
 *     that the element's unsigned value orders by (key, index);
 *   - for keys longer than 12 bytes, refine: after a sort on (bytes 0..11,
 *     index), each run of equal 12-byte prefixes gets the number of its first
 *     position (head flags + max-scan); the element is rebuilt as
 *     (run start u32, next 8 key bytes, index) and sorted again, so the order
 *     between runs stays and ties inside a run are broken by the next bytes,
 *     then by index (stable). Repeated per 8 bytes while ties remain;
 *   - gather records into sorted order, a group of lanes moving one record
 *     together with 16-, 8-, 4- or 1-byte accesses (cooperative record moves:
 *     Bandyopadhyay & Sahni, GRS, section IV, Fig. 5).
 */
#include <cub/device/device_scan.cuh>

#include "gpu_internal.cuh"

namespace {

__device__ __forceinline__ uint32_t bswap32(uint32_t v) { return __byte_perm(v, 0, 0x0123); }
__device__ __forceinline__ uint64_t bswap64(uint64_t v)
{
	return ((uint64_t)bswap32((uint32_t)v) << 32) | bswap32((uint32_t)(v >> 32));
}

/* key-only words: stored value -> normalized (order-preserving unsigned) */
template <class W>
__device__ __forceinline__ W bswapw(W v);
template <>
__device__ __forceinline__ uint32_t bswapw<uint32_t>(uint32_t v) { return bswap32(v); }
template <>
__device__ __forceinline__ uint64_t bswapw<uint64_t>(uint64_t v) { return bswap64(v); }

template <class W>
__global__ void k_normalize(W *d, uint64_t n, int kind, int be, int desc, int back)
{
	const W sign = (W)1 << (sizeof(W) * 8 - 1);
	const bool swap = kind == KEYS_BYTES || be;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		W v = d[i];
		if (!back) {
			W r = swap ? bswapw<W>(v) : v;
			if (kind == KEYS_SINT)
				r ^= sign;
			else if (kind == KEYS_FLOAT)
				r = (r & sign) ? (W)~r : (W)(r ^ sign);
			if (desc)
				r = ~r;
			d[i] = r;
		} else {
			W r = desc ? (W)~v : v;
			if (kind == KEYS_SINT)
				r ^= sign;
			else if (kind == KEYS_FLOAT)
				r = (r & sign) ? (W)(r ^ sign) : (W)~r;
			d[i] = swap ? bswapw<W>(r) : r;
		}
	}
}

/*
 * Records of 4 or 8 bytes that several keys cover (keys_layout_cover) <->
 * their normalized keys as one unsigned word: each field taken out of the
 * little-endian word by shift and mask, byte-swapped within its width when
 * stored most significant byte first (bytes, big-endian numbers), ordered as
 * k_normalize orders a whole word, and put at its place in the key (the
 * first field highest). The CPU's keys_word (src/keys.c) is the same map.
 */
template <class W>
__global__ void k_normalize_fields(W *d, uint64_t n, keys_spec L, int back)
{
	const uint32_t R = sizeof(W);
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		const uint64_t v = d[i];
		uint64_t r = 0;
		uint32_t at = 0;
		for (int fi = 0; fi < L.n; fi++) {
			const keys_field f = L.f[fi];
			const uint32_t bits = 8 * f.width; /* < 64: two fields or more */
			const uint64_t mask = (1ull << bits) - 1, sign = 1ull << (bits - 1);
			const uint32_t in_shift = 8 * f.offset, out_shift = 8 * (R - at - f.width);
			const bool swap = f.kind == KEYS_BYTES || f.big_endian;
			at += f.width;
			if (!back) {
				uint64_t x = v >> in_shift & mask;
				if (swap)
					x = bswap64(x) >> (64 - bits);
				if (f.kind == KEYS_SINT)
					x ^= sign;
				else if (f.kind == KEYS_FLOAT)
					x = (x & sign) ? (~x & mask) : (x | sign);
				if (f.descending)
					x = ~x & mask;
				r |= x << out_shift;
			} else {
				uint64_t x = v >> out_shift & mask;
				if (f.descending)
					x = ~x & mask;
				if (f.kind == KEYS_SINT)
					x ^= sign;
				else if (f.kind == KEYS_FLOAT)
					x = (x & sign) ? (x & ~sign) : (~x & mask);
				if (swap)
					x = bswap64(x) >> (64 - bits);
				r |= x << in_shift;
			}
		}
		d[i] = (W)r;
	}
}

/* Put byte v at position p (0 = most significant) of the 16-byte key area
 * hi:lo (positions 12..15 are the index). */
__device__ __forceinline__ void put_byte(uint64_t &hi, uint64_t &lo, uint32_t p, uint32_t v)
{
	if (p < 8)
		hi |= (uint64_t)v << (56 - 8 * p);
	else
		lo |= (uint64_t)v << (56 - 8 * (p - 8));
}

/* Normalized key bytes [kb0, kb0 + nb) of record `rec`, placed at key-area
 * positions p0.. (bytes past the key's end stay 0). */
__device__ void key_bytes(const unsigned char *rec, const keys_spec &L, uint32_t kb0, uint32_t nb,
			  uint32_t p0, uint64_t &hi, uint64_t &lo)
{
	uint32_t kpos = 0;
	const uint32_t kend = kb0 + nb;
	for (uint32_t fi = 0; fi < (uint32_t)L.n && kpos < kend; ++fi) {
		const keys_field f = L.f[fi];
		const uint32_t fend = kpos + f.width;
		if (fend > kb0) {
			const uint32_t b0 = (kb0 > kpos ? kb0 : kpos) - kpos;
			const uint32_t b1 = (kend < fend ? kend : fend) - kpos;
			const bool msb_first = f.kind == KEYS_BYTES || f.big_endian || f.width == 1;
			uint32_t neg = 0;
			if (f.kind == KEYS_FLOAT)
				neg = (msb_first ? rec[f.offset] : rec[f.offset + f.width - 1]) >> 7;
			for (uint32_t b = b0; b < b1; ++b) {
				uint32_t v = rec[f.offset + (msb_first ? b : f.width - 1 - b)];
				if (f.kind == KEYS_SINT && b == 0)
					v ^= 0x80;
				else if (f.kind == KEYS_FLOAT)
					v = neg ? (~v & 0xff) : (b == 0 ? v ^ 0x80 : v);
				if (f.descending)
					v = ~v & 0xff;
				put_byte(hi, lo, p0 + kpos + b - kb0, v);
			}
		}
		kpos = fend;
	}
}

/* Set e to the (key, index) element of key area hi:lo and index i: u64 =
 * key bytes 0..3 . i; u128 = key bytes 0..11 . i (i in positions 12..15). */
__device__ __forceinline__ void set_elem(uint64_t &e, uint64_t hi, uint64_t, uint32_t i)
{
	e = (hi & 0xffffffff00000000ull) | i;
}

__device__ __forceinline__ void set_elem(gs_u128 &e, uint64_t hi, uint64_t lo, uint32_t i)
{
	gs_u128 v;
	v.hi = hi;
	v.lo = (lo & 0xffffffff00000000ull) | i;
	e = v;
}

/* pairs[i] = (the first key bytes of record i, i): E is uint64_t or gs_u128. */
template <class E>
__global__ void k_extract(E *pairs, const unsigned char *__restrict__ recs, uint64_t n,
			  const __grid_constant__ keys_spec L)
{
	constexpr uint32_t nb = sizeof(E) == 8 ? 4 : 12; /* key bytes an element holds */
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		uint64_t hi = 0, lo = 0;
		key_bytes(recs + i * L.record_size, L, 0, nb, 0, hi, lo);
		set_elem(pairs[i], hi, lo, (uint32_t)i);
	}
}

/* head flag of position p: its 12-byte key area differs from p-1's.
 * seg[p] = p at a head, else 0; *any = 1 when some p is no head. */
__global__ void k_tie_flags(const gs_u128 *__restrict__ e, uint32_t *seg, uint64_t n, int *any)
{
	bool tie = false;
	for (uint64_t p = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; p < n;
	     p += (uint64_t)gridDim.x * blockDim.x) {
		bool head = true;
		if (p > 0) {
			gs_u128 a = e[p - 1], b = e[p];
			head = a.hi != b.hi || (a.lo >> 32) != (b.lo >> 32);
		}
		seg[p] = head ? (uint32_t)p : 0u;
		tie |= !head;
	}
	if (tie)
		atomicOr(any, 1);
}

__global__ void k_refine(gs_u128 *e, const uint32_t *__restrict__ seg, const unsigned char *__restrict__ recs,
			 uint64_t n, const __grid_constant__ keys_spec L, uint32_t kb0)
{
	for (uint64_t p = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; p < n;
	     p += (uint64_t)gridDim.x * blockDim.x) {
		const uint32_t idx = (uint32_t)e[p].lo;
		uint64_t hi = (uint64_t)seg[p] << 32, lo = 0;
		key_bytes(recs + (uint64_t)idx * L.record_size, L, kb0, 8, 4, hi, lo);
		set_elem(e[p], hi, lo, idx);
	}
}

struct MaxU32 {
	__device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

/* out record p = in record idx(p); 2^gbits lanes move one record, word by
 * word (GRS section IV, Fig. 5: coalesced on both sides for wide records). */
template <class V>
__global__ void k_gather(V *__restrict__ out, const V *__restrict__ in, const void *__restrict__ pairs,
			 int pair_bytes, uint64_t n, uint32_t wpr, int gbits)
{
	const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	const uint32_t sub = (uint32_t)t & ((1u << gbits) - 1);
	const uint64_t stride = ((uint64_t)gridDim.x * blockDim.x) >> gbits;
	for (uint64_t p = t >> gbits; p < n; p += stride) {
		const uint32_t idx = pair_bytes == 8 ? (uint32_t)((const uint64_t *)pairs)[p]
						     : (uint32_t)((const gs_u128 *)pairs)[p].lo;
		const V *src = in + (uint64_t)idx * wpr;
		V *dst = out + p * wpr;
		for (uint32_t w = sub; w < wpr; w += 1u << gbits)
			dst[w] = src[w];
	}
}

unsigned grid_for(uint64_t threads)
{
	uint64_t b = (threads + 255) / 256;
	if (b > 65536)
		b = 65536; /* grid-stride loops do the rest */
	return b ? (unsigned)b : 1u;
}

} // namespace

cudaError_t gs_keys_normalize(void *d, size_t n, const keys_spec &L, cudaStream_t st, bool back)
{
	if (L.n > 1) {
		if (L.record_size == 4)
			k_normalize_fields<uint32_t><<<grid_for(n), 256, 0, st>>>((uint32_t *)d, n, L, back);
		else
			k_normalize_fields<uint64_t><<<grid_for(n), 256, 0, st>>>((uint64_t *)d, n, L, back);
		return cudaGetLastError();
	}
	const keys_field &f = L.f[0];
	const int be = f.big_endian, desc = f.descending;
	if (f.width == 4)
		k_normalize<uint32_t><<<grid_for(n), 256, 0, st>>>((uint32_t *)d, n, f.kind, be, desc, back);
	else
		k_normalize<uint64_t><<<grid_for(n), 256, 0, st>>>((uint64_t *)d, n, f.kind, be, desc, back);
	return cudaGetLastError();
}

cudaError_t gs_keys_extract_u64(uint64_t *pairs, const unsigned char *recs, size_t n, const keys_spec &L,
				cudaStream_t st)
{
	k_extract<uint64_t><<<grid_for(n), 256, 0, st>>>(pairs, recs, n, L);
	return cudaGetLastError();
}

cudaError_t gs_keys_extract_u128(gs_u128 *pairs, const unsigned char *recs, size_t n, const keys_spec &L,
				 cudaStream_t st)
{
	k_extract<gs_u128><<<grid_for(n), 256, 0, st>>>(pairs, recs, n, L);
	return cudaGetLastError();
}

cudaError_t gs_tie_flags(const gs_u128 *pairs, uint32_t *seg, size_t n, int *d_any, cudaStream_t st)
{
	k_tie_flags<<<grid_for(n), 256, 0, st>>>(pairs, seg, n, d_any);
	return cudaGetLastError();
}

cudaError_t gs_seg_scan(void *temp, size_t &temp_bytes, uint32_t *seg, size_t n, cudaStream_t st)
{
	return cub::DeviceScan::InclusiveScan(temp, temp_bytes, seg, seg, MaxU32(), (uint64_t)n, st);
}

cudaError_t gs_keys_refine(gs_u128 *pairs, const uint32_t *seg, const unsigned char *recs, size_t n,
			   const keys_spec &L, uint32_t kb0, cudaStream_t st)
{
	k_refine<<<grid_for(n), 256, 0, st>>>(pairs, seg, recs, n, L, kb0);
	return cudaGetLastError();
}

cudaError_t gs_gather(unsigned char *out, const unsigned char *in, const void *pairs, int pair_bytes, size_t n,
		      uint32_t rs, cudaStream_t st)
{
	int vb = rs % 16 == 0 ? 16 : rs % 8 == 0 ? 8 : rs % 4 == 0 ? 4 : 1;
	uint32_t wpr = rs / vb;
	int gbits = 0;
	while (gbits < 5 && (1u << gbits) < wpr)
		++gbits;
	const unsigned g = grid_for((uint64_t)n << gbits);
	switch (vb) {
	case 16:
		k_gather<uint4><<<g, 256, 0, st>>>((uint4 *)out, (const uint4 *)in, pairs, pair_bytes, n, wpr, gbits);
		break;
	case 8:
		k_gather<uint2><<<g, 256, 0, st>>>((uint2 *)out, (const uint2 *)in, pairs, pair_bytes, n, wpr, gbits);
		break;
	case 4:
		k_gather<uint32_t><<<g, 256, 0, st>>>((uint32_t *)out, (const uint32_t *)in, pairs, pair_bytes, n,
						      wpr, gbits);
		break;
	default:
		k_gather<unsigned char><<<g, 256, 0, st>>>(out, in, pairs, pair_bytes, n, wpr, gbits);
		break;
	}
	return cudaGetLastError();
}
