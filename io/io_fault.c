/* io_fault.c - the test build's fault injection; see io_fault.h. */
#include "io_fault.h"

#if !GPUSORT_TEST_HOOKS
#error "io_fault.c belongs to the test build only (GPUSORT_TEST_HOOKS=1)"
#endif

#include <string.h>

static char fault[64]; /* "": none */

void io_fault_set(const char *what)
{
	fault[0] = 0;
	if (what && strlen(what) < sizeof fault)
		strcpy(fault, what);
}

int io_fault_is(const char *what)
{
	return fault[0] && !strcmp(fault, what);
}
