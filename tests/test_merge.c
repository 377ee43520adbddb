/* test_merge.c - loser tree, splitters (splitters.h), and the CPU radix engine, against qsort. */
#include "cpusort.h"
#include "keys.h"
#include "losertree.h"
#include "merge.h"
#include "splitters.h"
#include "unit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* records: u32 key, u32 serial (input order); ordered by key then serial */
static int rec_cmp(const void *a, const void *b)
{
	uint32_t x[2], y[2];
	memcpy(x, a, 8);
	memcpy(y, b, 8);
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int memcmp_40(const void *a, const void *b)
{
	return memcmp(a, b, 40);
}

/*
 * The ranges r[0..k) (records as rec_cmp orders them) cut into P parts at
 * cuts ((P + 1) * k entries, splitters.h): each part merged on its own (by
 * qsort, stable here as serials are unique) and the parts concatenated must
 * give the stable merge of all the ranges. Returns NULL, or what is wrong
 * (in a static buffer); *big: the records of the largest part.
 */
static const char *parts_merge_stably(const splitters_run *r, int k, int P, const uint64_t *cuts, size_t *big)
{
	static char why[200];
	size_t total = 0, o = 0;
	for (int i = 0; i < k; i++)
		total += r[i].hi - r[i].lo;
	uint32_t *ref = malloc(total * 8 + 8), *got = malloc(total * 8 + 8);
	for (int i = 0; i < k; i++) {
		memcpy(ref + 2 * o, r[i].base + r[i].lo * 8, (r[i].hi - r[i].lo) * 8);
		o += r[i].hi - r[i].lo;
	}
	qsort(ref, total, 8, rec_cmp);
	const char *ret = NULL;
	o = *big = 0;
	for (int p = 0; p < P && !ret; p++) {
		size_t p0 = o;
		for (int i = 0; i < k && !ret; i++) {
			uint64_t a = cuts[(size_t)p * k + i], b = cuts[(size_t)(p + 1) * k + i];
			if (a < r[i].lo || a > b || b > r[i].hi || (p == 0 && a != r[i].lo) || (p == P - 1 && b != r[i].hi)) {
				snprintf(why, sizeof why, "part %d of run %d: [%llu, %llu) of [%llu, %llu)", p, i,
					 (unsigned long long)a, (unsigned long long)b, (unsigned long long)r[i].lo,
					 (unsigned long long)r[i].hi);
				ret = why;
			} else {
				memcpy(got + 2 * o, r[i].base + a * 8, (b - a) * 8);
				o += b - a;
			}
		}
		qsort(got + 2 * p0, o - p0, 8, rec_cmp);
		if (o - p0 > *big)
			*big = o - p0;
	}
	if (!ret && (o != total || memcmp(got, ref, total * 8)))
		ret = "the concatenated parts differ from the stable merge";
	free(ref);
	free(got);
	return ret;
}

/* n 8-byte records (a u32 key below mod, then *serial, counting up:
 * where each record came from), sorted by key then serial */
static uint32_t *sorted_run(unsigned long long *seed, size_t n, uint32_t mod, uint32_t *serial)
{
	uint32_t *v = malloc(n * 8 + 8);
	for (size_t j = 0; j < n; j++) {
		v[2 * j] = (uint32_t)(unit_rand(seed) % mod);
		v[2 * j + 1] = (*serial)++;
	}
	qsort(v, n, 8, rec_cmp);
	return v;
}

static keys_spec u32_in_8(void)
{
	keys_spec s;
	char m[128];
	memset(&s, 0, sizeof s);
	keys_parse("u32", 0, &s.f[0], m, sizeof m);
	s.n = 1;
	keys_finish(&s, 8, 0, m, sizeof m);
	return s;
}

static const keys_spec *g_spec; /* for spec_cmp */

static int spec_cmp(const void *a, const void *b)
{
	return keys_compare(g_spec, a, b);
}

/* The spec of the keys in `types`, comma-separated, each after the one before. */
static keys_spec key_only(const char *types)
{
	keys_spec s;
	char m[128], buf[128], *save = NULL;
	memset(&s, 0, sizeof s);
	snprintf(buf, sizeof buf, "%s", types);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), s.n++)
		keys_parse(t, s.n ? s.f[s.n - 1].offset + s.f[s.n - 1].width : 0, &s.f[s.n], m, sizeof m);
	keys_finish(&s, 0, 0, m, sizeof m);
	return s;
}

int main(void)
{
	keys_spec s = u32_in_8();
	unsigned long long seed = 3;

	TEST_BEGIN("losertree/k-way-stable") {
		for (int k = 1; k <= 70; k += (k < 10 ? 1 : 13)) {
			size_t per = 1 + unit_rand(&seed) % 300, total = 0;
			uint32_t *runs[70];
			lt_range r[70];
			uint32_t serial = 0, mod = k % 3 ? 50 : 1000000; /* many ties when mod is small */
			for (int i = 0; i < k; i++) {
				size_t n = (i == 2) ? 0 : per + unit_rand(&seed) % 50;
				runs[i] = malloc(n * 8 + 8);
				for (size_t j = 0; j < n; j++) {
					runs[i][2 * j] = (uint32_t)(unit_rand(&seed) % mod);
					runs[i][2 * j + 1] = serial++;
				}
				/* sort run i by key, keeping serial order among ties (serials ascend) */
				qsort(runs[i], n, 8, rec_cmp);
				r[i] = (lt_range){ (uint8_t *)runs[i], n };
				total += n;
			}
			uint32_t *out = malloc(total * 8 + 8), *ref = malloc(total * 8 + 8);
			size_t o = 0;
			for (int i = 0; i < k; i++) {
				memcpy(ref + 2 * o, runs[i], r[i].n * 8);
				o += r[i].n;
			}
			qsort(ref, total, 8, rec_cmp); /* serials ascend in run order: the stable result */
			size_t got = lt_merge(&s, r, k, (uint8_t *)out);
			CHECK(got == total, "k=%d count %zu != %zu", k, got, total);
			CHECK(!memcmp(out, ref, total * 8), "k=%d merged order differs from the stable reference", k);
			for (int i = 0; i < k; i++)
				free(runs[i]);
			free(out);
			free(ref);
		}
	} TEST_END();

	TEST_BEGIN("losertree/native-keys") {
		/* key-only records of one 4- or 8-byte number take the native tree
		 * (keys_native), records of several keys covering 4 or 8 bytes the
		 * same tree on their words (keys_word): every type and direction, ties across runs, runs
		 * of 0 and 1 record beside long ones, fan-ins past the tree's stack
		 * arrays (65, 70), against qsort of everything (equal keys are equal
		 * bytes, so the stable merge is that order) */
		static const char *types[] = { "u64",	      "i64:r",	 "f64",		 "u64be",
					       "u32",	      "i32",	 "f32:r",	 "u32be:r",
					       "u32,i32:r",   "f32,u32", "i16be,u8,bytes1:r", "u8@7,bytes7@0" };
		static const int ks[] = { 2, 3, 5, 16, 64, 65, 70 };
		/* the two trees meet in the middle: totals of 1 to 6 records over
		 * three ranges, each split every way, of all-zero, all-ones and
		 * random records (the extremes tie the exhausted leaves' words) */
		for (size_t ti = 0; ti < 2; ti++) {
			keys_spec w = key_only(types[ti * 4]);
			size_t R = w.record_size;
			g_spec = &w;
			for (int v = 0; v < 3; v++)
			for (int total = 1; total <= 6; total++)
				for (int a = 0; a <= total; a++)
					for (int b = 0; a + b <= total; b++) {
						size_t n[3] = { (size_t)a, (size_t)b, (size_t)(total - a - b) };
						uint8_t in[3][48], out[56], ref[48];
						lt_range r[3];
						size_t o = 0;
						for (int i = 0; i < 3; i++) {
							for (size_t j = 0; j < n[i] * R; j++) /* zeros, ones or any */
								in[i][j] = (uint8_t)(v == 0 ? 0 : v == 1 ? 0xff : unit_rand(&seed));
							qsort(in[i], n[i], R, spec_cmp);
							memcpy(ref + o * R, in[i], n[i] * R);
							o += n[i];
							r[i] = (lt_range){ in[i], n[i] };
						}
						qsort(ref, (size_t)total, R, spec_cmp);
						memset(out, 0xa5, sizeof out);
						size_t got = lt_merge(&w, r, 3, out);
						CHECK(got == (size_t)total && !memcmp(out, ref, (size_t)total * R) &&
							      out[total * R] == 0xa5,
						      "%s total %d as %d+%d+%d: merged wrongly", types[ti * 4], total, a, b,
						      total - a - b);
					}
		}
		for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++) {
			keys_spec w = key_only(types[ti]);
			size_t R = w.record_size;
			g_spec = &w;
			for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++) {
				int k = ks[ki];
				/* keys from 5 values, or any bits; every third case
				 * also all-zero and all-ones records (the extremes,
				 * which tie the exhausted leaves' words in both trees) */
				int ties = (int)(ki % 2), extremes = (int)((ti + ki) % 3 == 0);
				uint8_t *runs[70];
				lt_range r[70];
				size_t total = 0, n[70];
				for (int i = 0; i < k; i++) {
					int shape = (int)(unit_rand(&seed) % 4);
					n[i] = shape == 0 ? 0 : shape == 1 ? 1 : shape == 2 ? 1 + unit_rand(&seed) % 5
											  : 500 + unit_rand(&seed) % 1500;
					runs[i] = malloc(n[i] * R + 8);
					for (size_t j = 0; j < n[i] * R; j++)
						runs[i][j] = (uint8_t)unit_rand(&seed);
					if (ties)
						for (size_t j = 0; j < n[i]; j++) {
							memset(runs[i] + j * R, 0, R);
							runs[i][j * R + (j % 2 ? 0 : R - 1)] = (uint8_t)(unit_rand(&seed) % 5);
						}
					if (extremes)
						for (size_t j = 0; j < n[i]; j++)
							if (unit_rand(&seed) % 3 == 0)
								memset(runs[i] + j * R, unit_rand(&seed) % 2 ? 0xff : 0, R);
					qsort(runs[i], n[i], R, spec_cmp);
					r[i] = (lt_range){ runs[i], n[i] };
					total += n[i];
				}
				uint8_t *out = malloc(total * R + 8), *ref = malloc(total * R + 8);
				size_t o = 0;
				for (int i = 0; i < k; i++) {
					memcpy(ref + o * R, runs[i], n[i] * R);
					o += n[i];
				}
				qsort(ref, total, R, spec_cmp);
				size_t got = lt_merge(&w, r, k, out);
				CHECK(got == total, "%s k=%d count %zu != %zu", types[ti], k, got, total);
				CHECK(!memcmp(out, ref, total * R), "%s k=%d: merged order differs from qsort", types[ti], k);
				for (int i = 0; i < k; i++) {
					CHECK(r[i].n == 0 && r[i].p == runs[i] + n[i] * R, "%s k=%d: range %d not consumed",
					      types[ti], k, i);
					free(runs[i]);
				}
				free(out);
				free(ref);
			}
		}
	} TEST_END();

	TEST_BEGIN("merge/plan-groups") {
		/* groups cut at sampled splitters: merging each group's slices on its
		 * own and concatenating must give the stable merge of everything,
		 * and no group may be much larger than total / groups */
		for (int trial = 0; trial < 60; trial++) {
			int k = 1 + (int)(unit_rand(&seed) % 9), G = 1 + (int)(unit_rand(&seed) % 12);
			uint32_t mod = trial % 3 == 0 ? 3 : trial % 3 == 1 ? 1000 : 4000000000u, serial = 0;
			run rs[9], *rp[9];
			size_t total = 0;
			for (int i = 0; i < k; i++) {
				size_t n = trial % 5 == 0 && i == 1 ? 0 : unit_rand(&seed) % 3000;
				uint32_t *v = sorted_run(&seed, n, mod, &serial);
				memset(&rs[i], 0, sizeof rs[i]);
				rs[i].mem = (uint8_t *)v;
				rs[i].n = n;
				rp[i] = &rs[i];
				total += n;
			}
			uint64_t *cuts = malloc((size_t)(G + 1) * k * sizeof *cuts);
			CHECK(merge_plan_groups(&s, rp, k, G, 8 * G, cuts) == 0, "plan failed");
			splitters_run r[9];
			for (int i = 0; i < k; i++)
				r[i] = (splitters_run){ rs[i].mem, 0, rs[i].n, 0 };
			size_t big;
			const char *why = parts_merge_stably(r, k, G, cuts, &big);
			CHECK(!why, "trial %d (k %d, %d groups): %s", trial, k, G, why);
			CHECK(total < 1000 || big <= total * 3 / (2 * (size_t)G) + (size_t)k,
			      "trial %d: largest group %zu of %zu records in %d groups", trial, big, total, G);
			for (int i = 0; i < k; i++)
				free(rs[i].mem);
			free(cuts);
		}
	} TEST_END();

	TEST_BEGIN("splitters/cut-subranges") {
		/* as the CPU merge cuts a round: ranges [lo, hi) inside each run,
		 * the same number of samples from each; the parts, each merged on
		 * its own and concatenated, must be the stable merge of the ranges */
		for (int trial = 0; trial < 80; trial++) {
			int k = 1 + (int)(unit_rand(&seed) % 7), P = 1 + (int)(unit_rand(&seed) % 9);
			uint32_t mod = trial % 2 ? 4 : 100000, serial = 0;
			uint32_t *v[7];
			splitters_run r[7];
			for (int i = 0; i < k; i++) {
				size_t n = unit_rand(&seed) % 2000;
				v[i] = malloc(n * 8 + 8);
				for (size_t j = 0; j < n; j++) {
					v[i][2 * j] = (uint32_t)(unit_rand(&seed) % mod);
					v[i][2 * j + 1] = serial++;
				}
				qsort(v[i], n, 8, rec_cmp);
				uint64_t lo = unit_rand(&seed) % (n + 1), hi = lo + unit_rand(&seed) % (n - lo + 1);
				r[i] = (splitters_run){ (uint8_t *)v[i], lo, hi, (uint64_t)P };
			}
			uint64_t *cuts = malloc((size_t)(P + 1) * k * sizeof *cuts);
			size_t big;
			CHECK(splitters_cut(&s, r, k, P, cuts) == 0, "cut failed");
			const char *why = parts_merge_stably(r, k, P, cuts, &big);
			CHECK(!why, "trial %d (k %d, %d parts): %s", trial, k, P, why);
			for (int i = 0; i < k; i++)
				free(v[i]);
			free(cuts);
		}
	} TEST_END();

	TEST_BEGIN("splitters/sample-bands") {
		/* the GPU merge of spilled runs (gpumerge_spill.c): splitters
		 * chosen among spilled runs' samples (run_sample_*) and kept
		 * runs' records; each splitter's band in a spilled run, from its
		 * samples alone, must hold its exact rank, and be at most
		 * sample_every records wide */
		for (int trial = 0; trial < 120; trial++) {
			int k = 1 + (int)(unit_rand(&seed) % 6), G = 2 + (int)(unit_rand(&seed) % 9);
			uint32_t mod = trial % 3 == 0 ? 5 : 1000000, serial = 0;
			run rs[6];
			splitters_run sr[6];
			for (int i = 0; i < k; i++) {
				size_t n = trial % 7 == 0 && i == 0 ? 0 : unit_rand(&seed) % 50000;
				uint32_t *v = sorted_run(&seed, n, mod, &serial);
				memset(&rs[i], 0, sizeof rs[i]);
				rs[i].mem = (uint8_t *)v;
				rs[i].n = n;
				rs[i].spilled = unit_rand(&seed) % 3 != 0;
				if (rs[i].spilled) {
					CHECK(run_sample_start(&rs[i], 8) == 0, "no memory for samples");
					/* in pieces, as the resident path hands them over */
					for (size_t at = 0; at < n;) {
						size_t m = 1 + unit_rand(&seed) % 700;
						m = m < n - at ? m : n - at;
						run_sample_add(&rs[i], (uint8_t *)v + at * 8, at, m, 8);
						at += m;
					}
					CHECK(rs[i].nsample == (n + rs[i].sample_every - 1) / rs[i].sample_every,
					      "%llu samples of %zu records every %llu", (unsigned long long)rs[i].nsample, n,
					      (unsigned long long)rs[i].sample_every);
					sr[i] = (splitters_run){ rs[i].sample, 0, rs[i].nsample, rs[i].nsample };
				} else {
					sr[i] = (splitters_run){ rs[i].mem, 0, n, n / 4 };
				}
			}
			splitters_key sp[10];
			CHECK(splitters_choose(&s, sr, k, G, sp) == 0, "choose failed");
			for (int q = 0; q < G - 1 && sp[q].rec; q++) {
				splitters_key x = sp[q];
				if (rs[x.run].spilled) {
					x.pos *= rs[x.run].sample_every;
					CHECK(!memcmp(x.rec, rs[x.run].mem + x.pos * 8, 8), "sample %d is not its record", q);
				}
				for (int i = 0; i < k; i++) {
					uint64_t exact = splitters_rank(&s, rs[i].mem, 0, rs[i].n, i, x.rec, x.run, x.pos, 0), lo, hi;
					if (!rs[i].spilled)
						continue;
					splitters_band(&s, rs[i].sample, rs[i].nsample, rs[i].sample_every, rs[i].n, i, &x, &lo, &hi);
					CHECK(lo <= exact && exact <= hi && hi - lo <= rs[i].sample_every,
					      "trial %d splitter %d run %d: rank %llu, band [%llu, %llu] (every %llu)", trial, q, i,
					      (unsigned long long)exact, (unsigned long long)lo, (unsigned long long)hi,
					      (unsigned long long)rs[i].sample_every);
				}
			}
			for (int i = 0; i < k; i++) {
				free(rs[i].mem);
				free(rs[i].sample);
			}
		}
	} TEST_END();

	TEST_BEGIN("splitters/rank-splits-consistently") {
		/* cutting every run at one splitter: the left parts hold exactly the
		 * records that order before it in (key, run, position) order */
		for (int trial = 0; trial < 200; trial++) {
			int k = 1 + (int)(unit_rand(&seed) % 6);
			uint32_t *runs[6];
			size_t n[6];
			for (int i = 0; i < k; i++) {
				n[i] = unit_rand(&seed) % 40;
				runs[i] = malloc(n[i] * 8 + 8);
				for (size_t j = 0; j < n[i]; j++) {
					runs[i][2 * j] = (uint32_t)(unit_rand(&seed) % 8);
					runs[i][2 * j + 1] = (uint32_t)(i * 1000 + j);
				}
				qsort(runs[i], n[i], 8, rec_cmp);
			}
			int sr = (int)(unit_rand(&seed) % (unsigned)k);
			if (!n[sr])
				goto next;
			size_t sp = unit_rand(&seed) % n[sr];
			const uint8_t *spl = (uint8_t *)runs[sr] + sp * 8;
			uint32_t skey;
			memcpy(&skey, spl, 4);
			for (int incl = 0; incl < 2; incl++) {
				for (int i = 0; i < k; i++) {
					size_t c = splitters_rank(&s, (uint8_t *)runs[i], 0, n[i], i, spl, sr, sp, incl);
					size_t want = 0;
					for (size_t j = 0; j < n[i]; j++) {
						uint32_t key = runs[i][2 * j];
						int before = key < skey || (key == skey && (i < sr || (i == sr && (j < sp || (incl && j == sp)))));
						want += before;
					}
					CHECK(c == want, "trial %d run %d incl %d cut %zu want %zu", trial, i, incl, c, want);
				}
			}
		next:
			for (int i = 0; i < k; i++)
				free(runs[i]);
		}
	} TEST_END();

	TEST_BEGIN("cpusort/radix-stable-vs-qsort") {
		for (size_t n = 0; n < 200000; n = n * 3 + 1) {
			for (int threads = 1; threads <= 3; threads += 2) {
				uint32_t *a = malloc(n * 8 + 8), *b = malloc(n * 8 + 8), *ref = malloc(n * 8 + 8);
				void *scr = malloc(cpusort_scratch_bytes(&s, n) + 16);
				for (size_t j = 0; j < n; j++) {
					a[2 * j] = (uint32_t)(n % 2 ? unit_rand(&seed) : unit_rand(&seed) % 5);
					a[2 * j + 1] = (uint32_t)j;
				}
				memcpy(ref, a, n * 8);
				qsort(ref, n, 8, rec_cmp);
				uint8_t *res = cpusort_sort(&s, (uint8_t *)a, (uint8_t *)b, n, scr, threads);
				CHECK(!memcmp(res, ref, n * 8), "n=%zu threads=%d", n, threads);
				free(a);
				free(b);
				free(ref);
				free(scr);
			}
		}
	} TEST_END();

	TEST_BEGIN("cpusort/long-keys-fixup") {
		/* 40-byte records, whole-record key: beyond the 16-byte radix prefix */
		keys_spec w;
		char m[128];
		memset(&w, 0, sizeof w);
		keys_finish(&w, 40, 0, m, sizeof m);
		size_t n = 5000;
		uint8_t *a = malloc(n * 40), *b = malloc(n * 40), *ref = malloc(n * 40);
		void *scr = malloc(cpusort_scratch_bytes(&w, n));
		for (size_t j = 0; j < n; j++) {
			memset(a + j * 40, 'x', 40); /* long common prefix */
			for (int q = 30; q < 40; q++)
				a[j * 40 + q] = (uint8_t)(unit_rand(&seed) % 3);
		}
		memcpy(ref, a, n * 40);
		qsort(ref, n, 40, memcmp_40); /* whole-record memcmp; ties are identical bytes */
		uint8_t *res = cpusort_sort(&w, a, b, n, scr, 2);
		CHECK(!memcmp(res, ref, n * 40), "40-byte keys");
		free(a); free(b); free(ref); free(scr);
	} TEST_END();
	return UNIT_EXIT();
}
