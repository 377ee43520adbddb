/*
 * test_capacity.cu - gpu_chunk_capacity and gpu_merge_capacity for every
 * sorter of the registry, without a GPU: a ctx whose arena is a number
 * (no device memory is touched; the capacities are arithmetic over the
 * arena's size and the sorter's extra_bytes).
 *
 * Properties, for arenas of 64 MiB .. 16 GiB and layouts key-only u32 and
 * u64, a 16-byte record with a 4-byte key, a 100-byte record with a
 * 10-byte key:
 *   - the records and the sorter's scratch fit the arena: per-record bytes
 *     times the capacity plus extra_bytes(capacity) plus the alignment pads
 *     is at most the arena less its slack;
 *   - a sorter whose scratch is at most the words' bytes (every one of the
 *     build) gets at least 45% of the in-place sorter's records, never 0
 *     (a capacity of 0 sends every chunk to the CPU engine, silently: the
 *     bug this test was written for).
 * And for n records of every layout above and of a 16-byte record with a
 * 12-byte key (u64 and i32: the widest (key, index) words against the
 * record), an arena of the planner's device budget for them
 * (plan_device_budget: PLAN_DEVICE_PER_INPUT bytes a byte of input, plus
 * PLAN_DEVICE_SLACK) takes all n in one chunk with radix, the sorter
 * --algorithm=auto prefers (src/plan_sorter.c): a budget that left it out
 * made auto fall back to a slower sorter on one layout.
 * Output: report.h's lines.
 */
#include <cstdio>
#include <cstring>
#include <string>

#include "gpu_internal.cuh"
#include "report.h"

extern "C" {
#include "../../src/plan.h"
}

namespace {

/* slack_bytes as gpu_ctx.cu's open sets it for an arena of a bytes */
size_t slack_of(size_t a)
{
	return a / 64 < ((size_t)64 << 10) ? (size_t)64 << 10 : a / 64 > ((size_t)8 << 20) ? (size_t)8 << 20 : a / 64;
}

keys_spec layout(uint32_t rs, uint32_t off, uint32_t width, int kind)
{
	keys_spec L;
	memset(&L, 0, sizeof L);
	L.record_size = rs;
	L.n = 1;
	L.f[0].offset = off;
	L.f[0].width = width;
	L.f[0].kind = (uint8_t)kind;
	L.key_width = width;
	L.key_only = off == 0 && width == rs;
	return L;
}

} // namespace

int main()
{
	struct {
		const char *name;
		keys_spec L;
		size_t word; /* the sorter's word bytes */
	} lays[] = {
		{ "u32", layout(4, 0, 4, KEYS_UINT), 4 },
		{ "u64", layout(8, 0, 8, KEYS_UINT), 8 },
		{ "rec16-u32@4", layout(16, 4, 4, KEYS_UINT), 8 },
		{ "rec100-bytes10", layout(100, 0, 10, KEYS_BYTES), 16 },
	};
	const size_t arenas[] = { (size_t)64 << 20, (size_t)1 << 30, (size_t)16 << 30 };
	for (int i = 0; gs_sorter_at(i); ++i) {
		const gs_sorter *s = gs_sorter_at(i);
		for (const auto &l : lays)
			for (size_t a : arenas) {
				gpu_ctx c;
				memset(&c, 0, sizeof c);
				c.sorter = s;
				c.arena_bytes = a;
				c.slack_bytes = slack_of(a);
				gpu_ctx b = c;
				b.sorter = gs_sorter_at(0); /* bitonic: in place */
				const std::string nm = std::string("capacity/") + s->name + "/" + l.name + "/arena=" +
						       std::to_string(a >> 20) + "M";
				std::string why;
				for (int merge = 0; merge < 2 && why.empty(); ++merge) {
					const size_t cap = merge ? gpu_merge_capacity(&c, &l.L) : gpu_chunk_capacity(&c, &l.L);
					const size_t inplace = merge ? gpu_merge_capacity(&b, &l.L) : gpu_chunk_capacity(&b, &l.L);
					const size_t x = s->extra_bytes(cap, (int)l.word);
					const char *what = merge ? "merge capacity" : "chunk capacity";
					if (cap == 0)
						why = std::string(what) + " 0";
					else if (cap < inplace * 45 / 100)
						why = std::string(what) + " " + std::to_string(cap) + " < 45% of in-place " +
						      std::to_string(inplace);
					else if (x > a)
						why = std::string(what) + ": scratch larger than the arena";
					/* the records, the scratch, its pads and the slack fit the arena */
					if (why.empty() && !merge) {
						const size_t per = l.L.key_only ? l.L.record_size : 2 * l.L.record_size + l.word;
						/* arena needed for cap records: records + scratch + slack + pads */
						const size_t need = cap * per + ((x + 255) & ~(size_t)255) + 256 + c.slack_bytes + 4 * 256;
						if (need > a + 4096)
							why = "chunk: " + std::to_string(cap) + " records and the scratch need " +
							      std::to_string(need) + " bytes of " + std::to_string(a);
					}
				}
				result(nm, why);
			}
	}

	keys_spec k12 = layout(16, 0, 8, KEYS_UINT); /* u64 at 0, i32 at 8 */
	k12.n = 2;
	k12.f[1].offset = 8;
	k12.f[1].width = 4;
	k12.f[1].kind = KEYS_SINT;
	k12.key_width = 12;
	k12.key_only = 0;
	const gs_sorter *radix = NULL;
	for (int i = 0; gs_sorter_at(i); ++i)
		if (!strcmp(gs_sorter_at(i)->name, "radix"))
			radix = gs_sorter_at(i);
	const keys_spec *all[] = { &lays[0].L, &lays[1].L, &lays[2].L, &lays[3].L, &k12 };
	const char *names[] = { lays[0].name, lays[1].name, lays[2].name, lays[3].name, "rec16-u64i32" };
	for (int j = 0; radix && j < 5; ++j)
		for (size_t n : { (size_t)1000, (size_t)1 << 20, (size_t)1 << 26, (size_t)1 << 28 }) {
			gpu_ctx c;
			memset(&c, 0, sizeof c);
			c.sorter = radix;
			/* plan_device_budget for a known input of n records */
			c.arena_bytes = PLAN_DEVICE_PER_INPUT * n * all[j]->record_size + PLAN_DEVICE_SLACK;
			c.slack_bytes = slack_of(c.arena_bytes);
			const size_t cap = gpu_chunk_capacity(&c, all[j]);
			result(std::string("budget/radix/") + names[j] + "/n=" + std::to_string(n),
			       cap >= n ? "" : "chunk capacity " + std::to_string(cap) + " < " + std::to_string(n));
		}
	if (!radix)
		printf("SKIP budget/radix: no radix sorter in this build\n");
	return report_exit();
}
