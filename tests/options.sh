#!/bin/sh
# tests/options.sh - every option is documented, and only real options are:
# the long options of src/main.c's getopt table (longopts[]) and the letters
# of its short option string must each appear in `gpusort --help` and in the
# OPTIONS section of man/gpusort.1; every option --help lists and every
# option the man page's OPTIONS section gives an entry must be in the table.
# Needs ./gpusort built. Prints PASS/FAIL lines (tests/run.sh counts them).
cd "$(dirname "$0")/.." || exit 2
d=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-options.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
fails=0
bad() { echo "FAIL $1: $2"; fails=1; }

if [ ! -x ./gpusort ]; then
	echo "FAIL options: ./gpusort is missing (run make first)"
	exit 1
fi

# the table: one name a line, from `{ "name", has_arg, ... }` rows of longopts[]
sed -n '/^static const struct option longopts\[\]/,/^};/p' src/main.c |
	sed -n 's/^[[:space:]]*{ "\([a-z][a-z0-9-]*\)",.*/\1/p' | sort -u > "$d/table"
# the short options: the letters of getopt_long's option string
sed -n 's/^#define SHORTOPTS "\([^"]*\)".*/\1/p' src/main.c | sed 's/^[-+]//' | tr -d ':' | fold -w1 | sort -u > "$d/short"
if [ "$(wc -l < "$d/table")" -lt 10 ] || [ ! -s "$d/short" ]; then
	bad "options-table" "cannot read longopts[] or the option string from src/main.c"
	exit 1
fi

./gpusort --help > "$d/help" 2>&1 || bad "options-help" "gpusort --help failed"
# the man page's OPTIONS section, roff hyphens and font escapes removed
sed -n '/^\.SH OPTIONS/,/^\.SH [^O]/p' man/gpusort.1 | sed 's/\\-/-/g; s/\\f[BIRP]//g' > "$d/man"
# the lines that start an option's entry: the line after each .TP
awk 'prev == ".TP" { print } { prev = $0 }' "$d/man" > "$d/man.tags"

# has FILE OPTION: FILE names OPTION as a whole word (--merge, not --merge-x)
has() { grep -Eq -- "(^|[^a-z0-9-])$2([^a-z0-9-]|\$)" "$1"; }

while read -r o; do
	has "$d/help" "--$o" || bad "help-lists-$o" "--$o is in longopts[] but not in --help"
	has "$d/man.tags" "--$o" || bad "man-documents-$o" "--$o is in longopts[] but has no entry in the man page's OPTIONS"
done < "$d/table"
while read -r c; do
	has "$d/help" "-$c" || bad "help-lists-$c" "-$c is in the option string but not in --help"
	has "$d/man.tags" "-$c" || bad "man-documents-$c" "-$c is in the option string but has no entry in the man page's OPTIONS"
done < "$d/short"

# the other way: --help's option column and the man page's entries
sed -n 's/^ \{2,6\}\(-[A-Za-z], \)\{0,1\}--\([a-z][a-z0-9-]*\).*/\2/p' "$d/help" | sort -u > "$d/help.long"
grep -o -- '--[a-z][a-z0-9-]*' "$d/man.tags" | sed 's/^--//' | sort -u > "$d/man.long"
sed -n 's/^ \{2,6\}-\([A-Za-z]\)[, ].*/\1/p' "$d/help" | sort -u > "$d/help.short"
grep -o -- '\(^\|[^a-z-]\)-[A-Za-z]\([^A-Za-z0-9-]\|$\)' "$d/man.tags" | sed 's/^[^-]*-\(.\).*/\1/' | sort -u > "$d/man.short"
# extras KIND TABLE DASHES WHAT: options help and man list as KIND (long,
# short) that TABLE lacks
extras() {
	for f in help man; do
		comm -23 "$d/$f.$1" "$d/$2" > "$d/extra"
		while read -r o; do
			bad "$f-option-$o-exists" "$f documents $3$o, which $4 does not have"
		done < "$d/extra"
	done
}
extras long table -- "longopts[]"
extras short short - "the option string"

[ $fails = 0 ] && echo "PASS options-documented ($(wc -l < "$d/table") long, $(wc -l < "$d/short") short, in --help and the man page)"
exit $fails
