/*
 * test_merge_runs.c - merge_runs (merge.h) writes what a stable sort of the
 * runs' concatenation gives, byte for byte: runs in memory, in a shared
 * file at offsets and read as streams, mixed; windows from a record to
 * whole runs (budgets and output buffers from tiny to ample, down to one
 * that holds fewer records than two a run), so that most rounds carry
 * tails in front of the next window; 1-3 threads; empty runs;
 * key-only u64 (the native tree), 16-byte and 100-byte records whose keys
 * tie often, a serial number in the payload showing the order of ties.
 */
#define _GNU_SOURCE
#include "merge.h"
#include "sink.h"
#include "unit.h"
#include "unit_keys.h"
#include "../io/io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const keys_spec *g_s;

/* (key, serial): the serial, in the last 8 bytes of records of 16 bytes or
 * more, is (run << 32 | position), so this is the stable merge's order */
static int stable_cmp(const void *a, const void *b)
{
	int c = keys_compare(g_s, a, b);
	if (c || g_s->record_size < 16)
		return c;
	uint64_t x, y;
	memcpy(&x, (const uint8_t *)a + g_s->record_size - 8, 8);
	memcpy(&y, (const uint8_t *)b + g_s->record_size - 8, 8);
	return x < y ? -1 : x > y;
}

enum { MEM, FILED, STREAM };

/*
 * k runs of lens[i] records (keys mod `mod`, 0: any), each kind[i], merged
 * with `budget` window bytes, `sinkb`-byte output buffers and `threads`
 * threads. 1 when the output is the reference's bytes; else why says how not.
 */
static int merge_matches(const keys_spec *s, int k, const size_t *lens, const int *kind, uint64_t mod,
			 size_t budget, size_t sinkb, int threads, unsigned long long *seed, char *why, size_t wl)
{
	size_t R = s->record_size, total = 0;
	for (int i = 0; i < k; i++)
		total += lens[i];
	uint8_t *in = malloc(total * R + 1), *all = malloc(total * R + 1), *got = malloc(total * R + 1);
	run *rs = calloc((size_t)k, sizeof *rs);
	run **rp = calloc((size_t)k, sizeof *rp);
	io_file *sf = calloc((size_t)k + 1, sizeof *sf); /* [0]: the shared file; [1 + i]: stream i's */
	int *open = calloc((size_t)k + 1, sizeof *open);
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int ok = 0;
	io_file out;
	int out_open = 0;
	if (!in || !all || !got || !rs || !rp || !sf || !open || io_open_spill(&out, dir)) {
		snprintf(why, wl, "setup failed");
		goto done;
	}
	out_open = 1;
	g_s = s;
	uint64_t shared_off = 0;
	for (int i = 0, at = 0; i < k; at += (int)lens[i], i++) {
		uint8_t *p = in + (size_t)at * R;
		for (size_t j = 0; j < lens[i]; j++) {
			uint8_t *r = p + j * R;
			for (size_t b = 0; b < R; b++)
				r[b] = (uint8_t)unit_rand(seed);
			if (mod) {
				uint64_t v = unit_rand(seed) % mod;
				memcpy(r, &v, 8); /* little-endian: a small key */
			}
			if (R >= 16) {
				uint64_t serial = (uint64_t)i << 32 | j;
				memcpy(r + R - 8, &serial, 8);
			}
		}
		qsort(p, lens[i], R, stable_cmp);
		rs[i].n = lens[i];
		rp[i] = &rs[i];
		if (kind[i] == MEM) {
			rs[i].mem = p;
			continue;
		}
		io_file *f = kind[i] == FILED ? &sf[0] : &sf[1 + i];
		int *o = kind[i] == FILED ? &open[0] : &open[1 + i];
		if (!*o) {
			if (io_open_spill(f, dir)) {
				snprintf(why, wl, "cannot open a run file");
				goto done;
			}
			*o = 1;
		}
		uint64_t off = kind[i] == FILED ? shared_off : 0;
		if (lens[i] && pwrite(f->fd, p, lens[i] * R, (off_t)off) != (ssize_t)(lens[i] * R)) {
			snprintf(why, wl, "cannot write a run");
			goto done;
		}
		rs[i].file = f;
		rs[i].off = off;
		if (kind[i] == FILED) {
			shared_off += lens[i] * R;
		} else {
			rs[i].stream = 1;
			rs[i].n = 0; /* learned by the merge */
			f->pos = 0;
		}
	}
	for (int i = 0; i <= k; i++)
		if (open[i])
			sf[i].size = i == 0 ? shared_off : lens[i - 1] * R;
	memcpy(all, in, total * R);
	qsort(all, total, R, stable_cmp); /* the reference */
	sink snk;
	int rc = sink_open(&snk, s, &out, NULL, 0, sinkb);
	int bad = -1;
	size_t block = 0;
	merge_stats st = { 0 };
	if (!rc)
		rc = merge_runs(s, rp, k, &snk, budget, threads, &st, &bad, &block);
	int crc = sink_close(&snk);
	if (rc || crc) {
		snprintf(why, wl, "merge_runs %d, sink_close %d", rc, crc);
	} else if (out.pos != total * R) {
		snprintf(why, wl, "%llu bytes written, want %zu", (unsigned long long)out.pos, total * R);
	} else if (total && pread(out.fd, got, total * R, 0) != (ssize_t)(total * R)) {
		snprintf(why, wl, "cannot read the output back");
	} else if (memcmp(got, all, total * R)) {
		size_t i = 0;
		while (got[i] == all[i])
			i++;
		snprintf(why, wl, "differs at record %zu of %zu (%llu rounds)", i / R, total,
			 (unsigned long long)st.rounds);
	} else {
		ok = 1;
		for (int i = 0; i < k; i++)
			if (kind[i] == STREAM && rs[i].n != lens[i]) {
				snprintf(why, wl, "stream run %d: n %llu, want %zu", i, (unsigned long long)rs[i].n, lens[i]);
				ok = 0;
			}
	}
done:
	for (int i = 0; sf && open && i <= k; i++)
		if (open[i])
			io_close(&sf[i]);
	if (out_open)
		io_close(&out);
	free(in);
	free(all);
	free(got);
	free(rs);
	free(rp);
	free(sf);
	free(open);
	return ok;
}

int main(void)
{
	static const struct {
		const char *name, *key;
		uint32_t R;
	} layouts[] = { { "u64", "u64", 0 }, { "u32-in-16", "u32", 16 }, { "bytes6-in-100", "bytes6", 100 } };
	unsigned long long seed = 11;
	for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
		keys_spec s = unit_spec1(layouts[l].key, layouts[l].R);
		size_t R = s.record_size;
		char name[128], why[256];
		snprintf(name, sizeof name, "merge_runs/stable-reference/%s", layouts[l].name);
		TEST_BEGIN(name) {
			static const int ks[] = { 1, 2, 3, 5, 17, 64, 70 };
			for (int t = 0; t < 60 && !unit_failed; t++) {
				int k = ks[t % 7];
				size_t lens[70];
				int kind[70];
				size_t maxlen = t % 3 == 0 ? 40 : t % 3 == 1 ? 700 : 3000;
				for (int i = 0; i < k; i++) {
					lens[i] = unit_rand(&seed) % 5 == 0 ? 0 : (size_t)(unit_rand(&seed) % (maxlen + 1));
					kind[i] = (int)(unit_rand(&seed) % 3);
				}
				uint64_t mod = t % 4 == 0 ? 0 : t % 4 == 1 ? 3 : t % 4 == 2 ? 1000 : 1;
				/* windows of 1 record (budget 1 byte; not for the longest
				 * runs, a read a record) up to whole runs; output buffers
				 * from a few windows to ample */
				size_t budget = t % 5 == 0 ? (maxlen > 700 ? 16 * (size_t)k * R : 1) : t % 5 == 1 ? 4096 * R : t % 5 == 2 ? 64 * (size_t)k * R
						 : (size_t)64 << 20;
				/* buffers of IO_ALIGN blocks: with 100-byte records and
				 * k >= 64 the last holds fewer than 2 k records */
				size_t sinkb = t % 3 == 0 ? (size_t)4 << 20 : t % 3 == 1 ? (size_t)(2 * k + 7) * R * 3 + IO_ALIGN
						 : IO_ALIGN + (size_t)k * R * 3 / 2;
				int threads = 1 + t % 3;
				CHECK(merge_matches(&s, k, lens, kind, mod, budget, sinkb, threads, &seed, why, sizeof why),
				      "trial %d: k %d, maxlen %zu, keys mod %llu, budget %zu, sink %zu, %d threads: %s", t, k,
				      maxlen, (unsigned long long)mod, budget, sinkb, threads, why);
			}
		} TEST_END();
	}
	return UNIT_EXIT();
}
