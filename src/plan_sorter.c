/*
 * plan_sorter.c - --algorithm=auto's choice of in-device sorter (plan_sorter.h:
 * plan_sorter). Pure: a table and the capacities the engine measured on
 * the opened device.
 */
#include "plan_sorter.h"

#include <string.h>

/* The words the device sorts for s (kernels/gpu_sort_chunk.cu: key_only,
 * pair_bytes): 4 or 8 for records of 4 or 8 bytes that their keys cover,
 * 8 or 16 for (key, index) elements (+1 to tell them from the records'
 * words of one width). */
static int word_class(const keys_spec *s)
{
	const uint32_t rs = s->record_size;
	if ((rs == 4 || rs == 8) && keys_layout_cover(s))
		return (int)rs;
	return s->key_width <= 4 ? 8 + 1 : 16 + 1;
}

/*
 * Order of preference per word class, fastest first, from sorter_bench on
 * the H100 (bench/results/h100-engines-2026-11-25.md; ms at 2^28 words):
 * u32 radix 7.1, sample 14.6, abisort 20.3, quick 22.0, bitonic 24.0; u64
 * radix 18.4, sample 34.4, abisort 36.9, quick 41.1, bitonic 53.9; (key,
 * index) pairs likewise, radix first (u32 radix since 5.7 ms,
 * bench/results/h100-radix-match-2026-11-27.md; abisort 16.3 ms for u32
 * and 15.4 ms for 2^27 u64 since bench/results/h200-engines-tuning-2026-11-27.md,
 * quick 16.1 and 15.6 ms since bench/results/h100-quick-trim-2026-11-27.md,
 * so that both now pass sample for u64 words (16.2 ms) and quick is as
 * fast as abisort for u32: left as it is, as any of the three is chosen
 * only for an input that radix's chunk cannot hold and theirs can, a band
 * of a few percent of the device).
 * Key-only records take the same order:
 * 16 GiB of u64 file to file in one chunk took 6.07 s with radix (device
 * sort 0.17 s) against 6.84 s with bitonic (0.60 s)
 * (bench/results/h100-claims-2026-11-25.md). A sorter missing from the
 * build is skipped.
 */
#define PLAN_SORTER_ORDER { "radix", "sample", "abisort", "quick", "bitonic", NULL }
static const struct {
	int word;
	const char *order[6];
} prefs[] = {
	{ 4, PLAN_SORTER_ORDER },
	{ 8, PLAN_SORTER_ORDER },
	{ 8 + 1, PLAN_SORTER_ORDER },
	{ 16 + 1, PLAN_SORTER_ORDER },
};

static int find(const plan_sorter_info *info, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (info[i].name && !strcmp(info[i].name, name))
			return i;
	return -1;
}

int plan_sorter(const keys_spec *s, uint64_t records, const plan_sorter_info *info, int n)
{
	if (n <= 1)
		return 0;
	const int w = word_class(s);
	for (size_t p = 0; p < sizeof prefs / sizeof prefs[0]; p++) {
		if (prefs[p].word != w)
			continue;
		int first = -1;
		for (int k = 0; prefs[p].order[k]; k++) {
			int i = find(info, n, prefs[p].order[k]);
			if (i < 0 || info[i].capacity == 0)
				continue;
			if (first < 0)
				first = i;
			if (records && info[i].capacity >= records)
				return i; /* the whole input in one chunk: the fastest that takes it */
		}
		if (first < 0)
			return 0;
		if (!records)
			return first;
		/* larger than any chunk: the largest chunks make the fewest runs
		 * (Capannini et al., section 6.2 and section 7, Fig. 8B: the in-place
		 * sort halves the runs) */
		int best = first;
		for (int k = 0; prefs[p].order[k]; k++) {
			int i = find(info, n, prefs[p].order[k]);
			if (i >= 0 && info[i].capacity > info[best].capacity)
				best = i;
		}
		return best;
	}
	return 0;
}
