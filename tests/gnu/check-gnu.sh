#!/bin/sh
# tests/gnu/check-gnu.sh - `make check-gnu`: GNU coreutils' own sort tests
# (tests/misc/sort*.sh, sort*.pl of Debian's coreutils 9.1; tests/sort/ in
# later releases) with gpusort in place of their sort, gpusort's
# "gpusort: " messages read as "sort: " (a wrapper script).
#
#   1. the source: build/gnu/coreutils-*/, from `apt-get source coreutils`
#      (needs deb-src in the apt sources: add "deb-src" to the Types: line
#      of /etc/apt/sources.list.d/debian.sources, then apt-get update);
#   2. built once: ./configure and make (the tests need its helper getlimits)
#      (build/gnu/.built marks it done; rm it to build again);
#   3. each test file run in automake's test environment, sort.pl and the
#      other .pl files with VERBOSE=1 so that each case is named.
# The expensive tests run; the very expensive ones with
# CHECK_GNU_VERY_EXPENSIVE=yes. Writes the table (per test file, per
# failing .pl case) to stdout and to
# build/gnu/GNU-SORT.md; tests/GNU-SORT.md is the committed copy with the
# reasons. Exit status 0 when every test passes, else 1.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
top=$root/build/gnu
mkdir -p "$top" || exit 2
cd "$top" || exit 2
src=$(ls -d coreutils-*/ 2>/dev/null | head -n 1)
if [ -z "$src" ]; then
	echo "check-gnu: fetching the coreutils source (apt-get source coreutils)" >&2
	if ! apt-get source -qq coreutils > apt.log 2>&1; then
		cat apt.log >&2
		echo "check-gnu: apt-get source failed: add deb-src to the apt sources (see the top of $0)" >&2
		exit 2
	fi
	src=$(ls -d coreutils-*/ | head -n 1)
fi
src=$top/${src%/}
if [ ! -e "$top/.built" ]; then
	echo "check-gnu: building $src's test helpers (once; minutes)" >&2
	(cd "$src" && FORCE_UNSAFE_CONFIGURE=1 ./configure --quiet --disable-nls > "$top/build.log" 2>&1 &&
		make -j"$(nproc)" >> "$top/build.log" 2>&1) || { tail -20 "$top/build.log" >&2; exit 2; }
	touch "$top/.built"
fi
# the sort the tests run: gpusort's test build under the name sort, its
# messages under that name too (GPUSORT_PROGRAM_NAME, tests/README.md)
bin=$top/bin
mkdir -p "$bin"
[ -x "$root/tests/bin/gpusort-test" ] || { echo "check-gnu: tests/bin/gpusort-test is missing (make tests/bin/gpusort-test)" >&2; exit 2; }
ln -sf "$root/tests/bin/gpusort-test" "$bin/sort"
export GPUSORT_PROGRAM_NAME=sort
cp "$src/src/getlimits" "$bin/" 2>/dev/null

cd "$src" || exit 2
tests=$(ls tests/misc/sort*.sh tests/misc/sort*.pl tests/sort/*.sh tests/sort/*.pl 2>/dev/null)
out=$top/GNU-SORT.md
log=$top/logs
rm -rf "$log"
mkdir -p "$log"
{
	echo "| test | result | failing cases |"
	echo "|---|---|---|"
} > "$out"
fails=0
for t in $tests; do
	name=$(basename "$t")
	(
		. tests/lang-default
		export VERSION=9.1 abs_top_builddir="$top/ab" abs_top_srcdir="$src" abs_srcdir="$src" built_programs="sort printf"
		export CONFIG_HEADER="$src/lib/config.h" RUN_EXPENSIVE_TESTS=yes RUN_VERY_EXPENSIVE_TESTS=${CHECK_GNU_VERY_EXPENSIVE:-no}
		export fail=0 srcdir=. top_srcdir=. PERL=perl SHELL=/bin/bash CU_TEST_NAME="misc,$name" VERBOSE=1 MAKE=make
		export PATH="$bin:$src/src:$PATH"
		mkdir -p "$top/ab" && ln -sfn "$bin" "$top/ab/src"
		case $t in
		*.pl) exec timeout 600 perl -w -Itests -MCuSkip -MCoreutils -M"CuTmpdir qw($t)" "$t" ;;
		*)
			# init.sh puts "$PWD/src" first in PATH: run where src/ is our bin;
			# its trace goes to descriptor 9
			cd "$top/ab" && export srcdir="$src" VERBOSE=yes && exec timeout 600 bash "$src/$t" 9>&2 ;;
		esac
	) > "$log/$name.log" 2>&1
	rc=$?
	case $rc in 0) res=PASS ;; 77) res=SKIP ;; *) res=FAIL; fails=$((fails + 1)) ;; esac
	cases=""
	case $t in
	*.pl)
		total=$(grep -c '^[^ :]*\.\.\.$' "$log/$name.log")
		bad=$(sed -n "s/^[^ ]*: test \([^ :]*\).*/\1/p" "$log/$name.log" | sort -u | tr '\n' ' ')
		nbad=$(printf '%s' "$bad" | wc -w)
		cases="$((total - nbad)) of $total cases pass${bad:+; failing: $bad}"
		;;
	*) [ $res = SKIP ] && cases="skipped: $(grep -m1 'skipped test:' "$log/$name.log" | sed 's/.*skipped test: //' | head -c 120)" ;;
	esac
	echo "| $name | $res | $cases |" >> "$out"
	echo "check-gnu: $name: $res ${cases}" >&2
done
cat "$out"
echo "check-gnu: logs in $log" >&2
[ $fails = 0 ]
