#!/bin/sh
# tests/install.sh - `make install` and `make uninstall` into a DESTDIR: the
# binary and the man page land under PREFIX, the installed binary runs, and
# uninstall leaves no file behind. Prints PASS/FAIL lines.
cd "$(dirname "$0")/.." || exit 2
d=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-install.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
fails=0
if ! make -s install DESTDIR="$d" PREFIX=/usr > "$d.log" 2>&1; then
	echo "FAIL install: make install failed: $(tail -n 1 "$d.log")"; rm -f "$d.log"; exit 1
fi
rm -f "$d.log"
if [ -x "$d/usr/bin/gpusort" ] && [ -f "$d/usr/share/man/man1/gpusort.1" ] &&
	[ "$(find "$d" -type f | wc -l)" = 2 ]; then echo "PASS install-files"
else echo "FAIL install-files: $(find "$d" -type f | tr '\n' ' ')"; fails=1; fi
if printf '\003\000\000\000\001\000\000\000\002\000\000\000' | "$d/usr/bin/gpusort" -k u32 | od -An -tu4 |
	tr -s ' ' | grep -qx ' 1 2 3'; then echo "PASS install-runs"
else echo "FAIL install-runs: the installed gpusort did not sort"; fails=1; fi
if ! command -v man > /dev/null 2>&1; then echo "SKIP install-man: no man(1) here"
elif man -l "$d/usr/share/man/man1/gpusort.1" 2> /dev/null | grep -q "gpusort"; then echo "PASS install-man"
else echo "FAIL install-man: man -l cannot read the installed page"; fails=1; fi
make -s uninstall DESTDIR="$d" PREFIX=/usr > /dev/null 2>&1
if [ -z "$(find "$d" -type f)" ]; then echo "PASS uninstall-leaves-nothing"
else echo "FAIL uninstall-leaves-nothing: $(find "$d" -type f | tr '\n' ' ')"; fails=1; fi
exit $fails
