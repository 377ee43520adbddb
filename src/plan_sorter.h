#ifndef GPUSORT_PLAN_SORTER_H
#define GPUSORT_PLAN_SORTER_H
/*
 * plan_sorter.h - --algorithm=auto's choice of in-device sorter, apart
 * from the rest of the planner (plan.h): the engine asks it on the opened
 * device, and it needs nothing but the record layout.
 */
#include <stdint.h>
#include "keys.h"

/* An in-device sorter of the build as --algorithm=auto weighs it. */
typedef struct plan_sorter_info {
	const char *name;  /* gpu_sorter_name(i) */
	uint64_t capacity; /* records one chunk of the layout holds with it on the opened device
			    * (gpu_chunk_capacity: its scratch counted), 0: none */
} plan_sorter_info;

/*
 * --algorithm=auto's in-device sorter for records of layout s (src/
 * plan_sorter.c has the table and DESIGN.md section 6 the measurements):
 * the words the device sorts (key-only 4- or 8-byte records, or (key,
 * index) elements of 8 or 16 bytes) pick an order of preference; the first
 * sorter in it that takes the whole input (records, 0 when unknown) in one
 * chunk wins; when none does, the one whose chunks hold the most records
 * (fewest runs to merge); when the size is unknown, the first present.
 * info[0..n): the build's sorters in registry order. Returns an index into
 * info, 0 when n <= 1 or no sorter of the table is present. Pure.
 */
int plan_sorter(const keys_spec *s, uint64_t records, const plan_sorter_info *info, int n);

#endif
