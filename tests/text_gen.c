/*
 * text_gen.c - one random case of tests/text_diff.sh: text_gen SEED DIR
 * writes DIR/in (lines of fields, numbers of every -n/-g/-h form, months,
 * versions, blanks, empty and long lines, odd bytes) and prints sort(1)
 * options, one a line, that both gpusort and GNU sort are then run with.
 * Deterministic in SEED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long st;
static unsigned rnd(unsigned n)
{
	st = st * 6364136223846793005ull + 1442695040888963407ull;
	return n ? (unsigned)((st >> 33) % n) : 0;
}

static const char *const words[] = { "a", "B", "abc", "ABC", "zeta", "Jan", "feb", "MAR", "apr", "dec", "x y",
				     "nan", "-nan", "inf", "-inf", "0x1p3", "1e3", "-1e-3", "+5", "1.2.10", "1.2.9",
				     "v1.10a", "v1.9~rc1", "file.tar.gz", ".hidden", "..", ".", "é", "\x01\x7f", "\xff" };
static const char seps[] = ",: \t";

static void number(FILE *f)
{
	if (rnd(3) == 0)
		fputs(rnd(2) ? " " : "  ", f);
	if (rnd(3) == 0)
		fputc('-', f);
	int nd = (int)rnd(rnd(6) == 0 ? 30 : 4);
	if (rnd(4) == 0)
		fputs("00", f);
	for (int i = 0; i < nd; i++) {
		fputc('0' + (int)rnd(10), f);
		/* GNU's -n skips a 0x80 among the digits (its thousands separator
		 * under LC_ALL=C, text_num.h), and -h's unit search does not */
		if (rnd(16) == 0)
			fputc(rnd(2) ? 0x80 : 0xff, f);
	}
	if (rnd(3) == 0) {
		fputc('.', f);
		int nf = (int)rnd(5);
		for (int i = 0; i < nf; i++)
			fputc('0' + (int)rnd(10), f);
		if (rnd(3) == 0)
			fputs("00", f);
	}
	if (rnd(4) == 0)
		fputc("kKMGTPEZYx"[rnd(10)], f);
}

static void field(FILE *f, int z)
{
	switch (rnd(8)) {
	case 0: break; /* empty */
	case 1: case 2: case 3: number(f); break;
	case 4: {
		/* "nan" and "-nan" once each a file: GNU's -g orders two NaNs of
		 * the same bits by the padding bytes of their long doubles, which
		 * it never sets (DESIGN.md section 11) */
		static int nan_used[2];
		const char *w = words[rnd(sizeof words / sizeof *words)];
		int neg = w[0] == '-';
		if (!strcmp(w + neg, "nan") && nan_used[neg]++)
			w = "x";
		fputs(w, f);
		break;
	}
	case 5: {
		int n = (int)rnd(12);
		for (int i = 0; i < n; i++)
			fputc("aAbBzZ09 _-.~"[rnd(13)], f);
		break;
	}
	case 6: fputc(z ? '\n' : '\r', f); break;
	default: {
		int n = (int)rnd(rnd(20) == 0 ? 3000 : 20);
		for (int i = 0; i < n; i++)
			fputc('a' + (int)rnd(3), f);
	}
	}
}

static void keydef(char *out, size_t len)
{
	static const char letters[] = "bdfghiMnRrV";
	char o1[8] = "", o2[8] = "";
	for (int i = 0, n = (int)rnd(3); i < n; i++)
		o1[strlen(o1)] = letters[rnd(rnd(2) ? 11 : 2)];
	if (rnd(4) == 0)
		o2[0] = rnd(2) ? 'b' : letters[rnd(11)];
	int f1 = 1 + (int)rnd(4), f2 = f1 + (int)rnd(3) - (rnd(6) == 0);
	if (f2 < 1)
		f2 = 1;
	char c1[8] = "", c2[8] = "";
	if (rnd(3) == 0)
		snprintf(c1, sizeof c1, ".%u", 1 + rnd(4));
	if (rnd(3) == 0)
		snprintf(c2, sizeof c2, ".%u", rnd(5));
	if (rnd(4) == 0)
		snprintf(out, len, "-k%d%s%s", f1, c1, o1);
	else
		snprintf(out, len, "-k%d%s%s,%d%s%s", f1, c1, o1, f2, c2, o2);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	st = strtoull(argv[1], NULL, 10) * 2654435761ull + 1;
	rnd(1);
	char path[4096];
	snprintf(path, sizeof path, "%s/in", argv[2]);
	FILE *f = fopen(path, "wb");
	if (!f)
		return 2;
	int z = rnd(8) == 0;
	int lines = (int)rnd(rnd(5) == 0 ? 400 : 40);
	char sep = seps[rnd(4)];
	/* a start most lines share (timestamps, URLs): long runs of equal key prefixes */
	char pfx[48] = "";
	if (rnd(3) == 0)
		for (int i = 0, n = 10 + (int)rnd(30); i < n; i++)
			pfx[i] = "aab0-:"[rnd(6)];
	for (int i = 0; i < lines; i++) {
		if (rnd(5))
			fputs(pfx, f);
		int nf = (int)rnd(5);
		for (int j = 0; j < nf; j++) {
			if (j)
				fputc(rnd(6) ? sep : seps[rnd(4)], f);
			field(f, z);
		}
		if (i + 1 < lines || rnd(4))
			fputc(z ? '\0' : '\n', f);
	}
	fclose(f);
	/* options */
	if (z)
		puts("-z");
	if (rnd(2)) {
		char t[2] = { rnd(5) ? sep : seps[rnd(4)], 0 };
		printf("-t%s\n", t);
	}
	static const char global[] = "bdfghiMnRrV";
	if (rnd(3) == 0) {
		char g[4] = "-";
		g[1] = global[rnd(11)];
		puts(g);
	}
	if (rnd(4) == 0)
		puts("-r");
	for (int i = 0, n = (int)rnd(4); i < n; i++) {
		char k[64];
		keydef(k, sizeof k);
		puts(k);
	}
	if (rnd(4) == 0)
		puts("-s");
	if (rnd(4) == 0)
		puts("-u");
	return 0;
}
