/*
 * quote.h - a file name in a message quoted as sort(1) quotes it: gnulib's
 * quotef (shell-escape style, ':' quoted too) in the C locale. A name
 * that a shell would take as one word comes as it is (data.csv, a@b,
 * x#), others in single quotes ('a b', 'a:b', '#x'), or double quotes
 * when they hold a ' and nothing a shell expands there ("it's"); bytes
 * that are not printable ASCII as $'\n' or $'\303' between the quotes
 * ('a'$'\n''b').
 */
#ifndef GPUSORT_QUOTE_H
#define GPUSORT_QUOTE_H
#include <stddef.h>

/*
 * name quoted into out (cap >= 1 bytes, NUL-terminated; a longer result is
 * cut). Returns the length the whole result needs, without its NUL.
 */
size_t quote_name_into(const char *name, char *out, size_t cap);

/*
 * name quoted into one of a few buffers of the calling thread (up to 4 KiB,
 * longer cut), for a message formatted at once: a pointer stays valid until
 * the fourth call after it on the same thread.
 */
const char *quote_name(const char *name);

#endif
