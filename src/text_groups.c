/* text_groups.c - the groups of a text merge pass (text_groups.h). */
#include "text_groups.h"

int text_group_size(int F, int excess, int n, int i)
{
	if (excess + 1 <= F)
		return i ? 1 : excess + 1;
	return n - i < F ? n - i : F;
}

int text_group_size_gnu(int F, int n, int i)
{
	int full = n / F * F, rest = n - full, cheap = F - n / F % F;
	int shrt = cheap < rest ? rest - cheap + 1 : 0;
	return i < full ? F : i == full && shrt ? shrt : 1;
}

int text_groups_same(int F, int n)
{
	while (n > F) {
		int out = 0;
		for (int i = 0, k; i < n; i += k, out++)
			if ((k = text_group_size(F, n - F, n, i)) != text_group_size_gnu(F, n, i))
				return 0;
		n = out;
	}
	return 1;
}
