/*
 * gen_lines.c - text lines for the text workloads of bench/text.sh,
 * reproducible from a seed:
 *   gen_lines csv SIZE [SEED]      CSV lines "u32,word,decimal,filler\n"
 *                                  (a string key in field 2, a -n key in 3)
 *   gen_lines gensort SIZE [SEED]  100-byte lines as `gensort -a` writes
 *                                  them: a 10-byte printable key, the row
 *                                  number in hex, filler, "\r\n"
 *   gen_lines paths SIZE [SEED]    file paths "DIR/u32-word.log\n", DIR one
 *                                  of 8 directories of about 230 bytes:
 *                                  lines that share a start longer than
 *                                  the text sort's 16 prefix refinements
 * SIZE: bytes, with K, M, G (x1024^n); the output stops at the first line
 * end at or past it. Writes to standard output.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t st;
static uint64_t rnd(void)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return st;
}

/* Decimal digits of v at p; returns their count (sprintf's "%llu", without its cost:
 * two calls a line made a 10 GiB file take over a minute). */
static int put_u(char *p, uint64_t v)
{
	char t[20];
	int k = 0;
	do {
		t[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = 0; i < k; i++)
		p[i] = t[k - 1 - i];
	return k;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "csv") && strcmp(argv[1], "gensort") && strcmp(argv[1], "paths"))) {
		fprintf(stderr, "usage: gen_lines csv|gensort|paths SIZE[K|M|G] [SEED]\n");
		return 2;
	}
	char *end;
	double v = strtod(argv[2], &end);
	uint64_t size = (uint64_t)(v * (*end == 'G' ? 1 << 30 : *end == 'M' ? 1 << 20 : *end == 'K' ? 1 << 10 : 1));
	st = argc > 3 ? strtoull(argv[3], NULL, 10) * 0x9E3779B97F4A7C15ull + 1 : 7;
	int csv = !strcmp(argv[1], "csv"), paths = !strcmp(argv[1], "paths");
	static char dir[8][256];
	for (int k = 0; k < 8; k++) {
		int len = sprintf(dir[k], "/srv/archive/project-%d", k);
		for (int seg = 0; len < 224; seg++)
			len += sprintf(dir[k] + len, "/segment-%02d", seg);
	}
	static char buf[1 << 20];
	size_t n = 0;
	uint64_t out = 0, row = 0;
	while (out < size) {
		char *p = buf + n;
		if (paths) {
			uint64_t r = rnd(), s = rnd();
			int len = sprintf(p, "%s/", dir[r % 8]);
			len += put_u(p + len, (unsigned)(r >> 32));
			p[len++] = '-';
			for (int i = 0, wl = 4 + (int)(s % 9); i < wl; i++)
				p[len++] = (char)('a' + (s >> (4 + i * 5 % 55)) % 26);
			memcpy(p + len, ".log\n", 5);
			len += 5;
			n += (size_t)len;
			out += (uint64_t)len;
		} else if (csv) {
			uint64_t r = rnd(), s = rnd();
			int wl = 6 + (int)(r % 11);
			int len = put_u(p, (unsigned)(r >> 32));
			p[len++] = ',';
			for (int i = 0; i < wl; i++)
				p[len++] = (char)('a' + (s >> (i * 4 % 60)) % 26);
			p[len++] = ',';
			if (r & 8)
				p[len++] = '-';
			len += put_u(p + len, (s >> 40) % 1000000);
			p[len++] = '.';
			p[len++] = (char)('0' + s % 100 / 10);
			p[len++] = (char)('0' + s % 10);
			p[len++] = ',';
			int fl = 10 + (int)((r >> 8) % 30);
			for (int i = 0; i < fl; i++)
				p[len++] = (char)('A' + (r >> (i % 50)) % 26);
			p[len++] = '\n';
			n += (size_t)len;
			out += (uint64_t)len;
		} else {
			uint64_t a = rnd(), b = rnd();
			for (int i = 0; i < 10; i++)
				p[i] = (char)(' ' + ((i < 8 ? a >> (8 * i) : b >> (8 * i)) & 0xff) % 95);
			int len = 10 + sprintf(p + 10, "  %016llX%016llX  ", 0ull, (unsigned long long)row++);
			for (; len < 98; len++)
				p[len] = (char)('0' + len % 10);
			p[98] = '\r';
			p[99] = '\n';
			n += 100;
			out += 100;
		}
		if (n > sizeof buf - 512) {
			fwrite(buf, 1, n, stdout);
			n = 0;
		}
	}
	fwrite(buf, 1, n, stdout);
	return ferror(stdout) ? 1 : 0;
}
