/*
 * text_files0.h - --files0-from=F: the input names, NUL-separated, read
 * from F ("-": standard input), with GNU sort's errors.
 */
#ifndef GPUSORT_TEXT_FILES0_H
#define GPUSORT_TEXT_FILES0_H
#include <stddef.h>

/*
 * Read the names in `from` into *names (malloc'd array of *n malloc'd
 * strings; the process keeps them). Returns 0, or -1 with the message in
 * msg: F cannot be read, a name is empty ("F:N: invalid zero-length file
 * name"), a name "-" (whatever F is, as sort(1) 9.1), no names at all
 * ("no input from F").
 */
int text_files0_read(const char *from, char ***names, int *n, char *msg, size_t msglen);

#endif
