/*
 * text_debug.h - sort(1)'s --debug for text lines, as GNU sort 9 gives it
 * under LC_ALL=C (its key_warnings and debug_key): warnings about keys
 * that will not do what they seem to, and each output line followed by a
 * line under each key's part of it, so that a user sees what was compared.
 */
#ifndef GPUSORT_TEXT_DEBUG_H
#define GPUSORT_TEXT_DEBUG_H
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include "text_spec.h"

/*
 * Write --debug's warnings about spec s (after text_spec_finish) to f, a
 * line "PROG: ..." each: the byte order used, then for each key an
 * obsolescent +POS syntax, a zero width, leading blanks that count, a
 * numeric key spanning fields, a -t separator that numbers take in, the
 * decimal point, global letters no key uses, and a -r that orders only
 * the last-resort comparison. locale_failed: the environment's locale
 * could not be set (GNU's "failed to set locale" comes first).
 */
void text_debug_warnings(const text_spec *s, const char *prog, int locale_failed, FILE *f);

/*
 * The line [line, line + len) (no delimiter) as --debug writes it: its
 * bytes with each tab as '>' and a '\n' after them (whatever -z), then one
 * line per key (and one for the whole line, the last-resort comparison,
 * unless -s or -u) of spaces up to the key's start and '_' under it, or
 * "^ no match for key" where it is empty. Widths count a byte as a
 * column, a control byte as none, a tab as one. Into *buf (*cap bytes,
 * grown with realloc). Returns the bytes written there, or -1 without
 * memory.
 */
long text_debug_line(const text_spec *s, const uint8_t *line, size_t len, uint8_t **buf, size_t *cap);

#endif
