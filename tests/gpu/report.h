/*
 * report.h - the result lines of the C++ GPU-side tests (tests/gpu/*.cu),
 * in tests/run.sh's format: `PASS name` or `FAIL name: why` per case, and
 * report_exit() prints `N passed, M failed` and gives the exit status.
 */
#ifndef GPUSORT_TESTS_REPORT_H
#define GPUSORT_TESTS_REPORT_H

#include <cstdio>
#include <string>

inline int g_pass = 0, g_fail = 0;

/* One case: passed when why is empty, else failed because of why. */
inline void result(const std::string &name, const std::string &why)
{
	if (why.empty()) {
		printf("PASS %s\n", name.c_str());
		++g_pass;
	} else {
		printf("FAIL %s: %s\n", name.c_str(), why.c_str());
		++g_fail;
	}
	fflush(stdout);
}

/* The summary line; 1 if any case failed, else 0. */
inline int report_exit()
{
	printf("%d passed, %d failed\n", g_pass, g_fail);
	return g_fail ? 1 : 0;
}

#endif
