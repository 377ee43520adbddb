/*
 * unit_keys.h - a key spec for the unit tests: one -k key (keys_parse's
 * syntax) at byte 0 of records of record_size bytes (0: the key's end).
 * Aborts on a key the parser refuses: the tests' keys are fixed.
 */
#ifndef GPUSORT_UNIT_KEYS_H
#define GPUSORT_UNIT_KEYS_H
#include "keys.h"

#include <stdlib.h>
#include <string.h>

static inline keys_spec unit_spec1(const char *key, uint32_t record_size)
{
	keys_spec s;
	char msg[256];
	memset(&s, 0, sizeof s);
	if (keys_parse(key, 0, &s.f[0], msg, sizeof msg))
		abort();
	s.n = 1;
	if (keys_finish(&s, record_size, 0, msg, sizeof msg))
		abort();
	return s;
}
#endif
