/* text_files0.c - --files0-from's list of inputs (text_files0.h). */
#define _GNU_SOURCE
#include "text_files0.h"
#include "quote.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int text_files0_read(const char *from, char ***names, int *n, char *msg, size_t msglen)
{
	int is_stdin = !strcmp(from, "-");
	FILE *f = is_stdin ? stdin : fopen(from, "r");
	if (!f) {
		snprintf(msg, msglen, "open failed: %s: %s", quote_name(from), strerror(errno));
		return -1;
	}
	char **v = NULL, *line = NULL;
	size_t cap = 0, lcap = 0;
	int count = 0, rc = 0;
	ssize_t len;
	while ((len = getdelim(&line, &lcap, '\0', f)) > 0) {
		size_t l = (size_t)len;
		if (line[l - 1] == '\0')
			l--;
		if (!l) {
			snprintf(msg, msglen, "%s:%d: invalid zero-length file name", from, count + 1);
			rc = -1;
			break;
		}
		if (l == 1 && line[0] == '-') { /* sort(1) 9.1 refuses it in any list, whatever its wording says */
			snprintf(msg, msglen, "when reading file names from stdin, no file name of '-' allowed");
			rc = -1;
			break;
		}
		if ((size_t)count == cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(v, cap * sizeof *nv);
			if (!nv) {
				snprintf(msg, msglen, "out of memory");
				rc = -1;
				break;
			}
			v = nv;
		}
		if (!(v[count] = strndup(line, l))) {
			snprintf(msg, msglen, "out of memory");
			rc = -1;
			break;
		}
		count++;
	}
	if (!rc && ferror(f)) {
		snprintf(msg, msglen, "read error: %s: %s", from, strerror(errno));
		rc = -1;
	}
	if (!rc && !count) {
		snprintf(msg, msglen, "no input from '%s'", from);
		rc = -1;
	}
	free(line);
	if (!is_stdin)
		fclose(f);
	*names = v;
	*n = count;
	return rc;
}
