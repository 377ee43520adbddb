#!/bin/sh
# tests/install.sh - `make install` and `make uninstall` into a DESTDIR: the
# binary and the man page land under PREFIX, the installed binary runs, and
# uninstall leaves no file behind; then the Debian package (pkg/mkdeb.sh)
# installs into an empty dpkg root and is purged from it. Prints PASS/FAIL lines.
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

# the Debian package (pkg/mkdeb.sh, what `make deb` runs, here on the binary
# already built): its files and dependencies, then installed into and
# removed from an empty dpkg root, leaving none of its files behind
if ! command -v dpkg-deb > /dev/null 2>&1; then echo "SKIP deb: no dpkg-deb here"; exit $fails; fi
ver=$(./gpusort --version | sed -n '1s/^gpusort //p')
if ! sh pkg/mkdeb.sh ./gpusort man/gpusort.1 "$ver" "$d/g.deb" 2> "$d/deb.err"; then
	echo "FAIL deb-build: $(head -n 1 "$d/deb.err")"; exit 1
fi
files=$(dpkg-deb -c "$d/g.deb" | awk '$1 !~ /^d/ { print $6 }' | sort | tr '\n' ' ')
want="./usr/bin/gpusort ./usr/share/doc/gpusort/copyright ./usr/share/man/man1/gpusort.1.gz "
if [ "$files" = "$want" ]; then echo "PASS deb-files"
else echo "FAIL deb-files: $files"; fails=1; fi
deps=$(dpkg-deb -f "$d/g.deb" Depends)
case "$deps" in
*'libc6 (>= 2.'*) case "$deps" in *cuda* | *nvidia* | *uring*) echo "FAIL deb-depends: $deps"; fails=1 ;;
	*) echo "PASS deb-depends" ;; esac ;;
*) echo "FAIL deb-depends: $deps"; fails=1 ;;
esac
if [ "$(dpkg-deb -f "$d/g.deb" Version)" = "$ver" ]; then echo "PASS deb-version"
else echo "FAIL deb-version: $(dpkg-deb -f "$d/g.deb" Version), not $ver"; fails=1; fi
r=$d/root
mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates"
: > "$r/var/lib/dpkg/status"
# the empty root has none of the dependencies: --force-depends
if dpkg --root="$r" --force-depends --force-not-root --force-script-chrootless -i "$d/g.deb" > "$d/deb.err" 2>&1 &&
	[ -x "$r/usr/bin/gpusort" ] && "$r/usr/bin/gpusort" --version | grep -q "^gpusort $ver\$" &&
	dpkg --root="$r" -s gpusort 2> /dev/null | grep -q '^Status: install ok installed'; then
	echo "PASS deb-installs"
else echo "FAIL deb-installs: $(tail -n 1 "$d/deb.err")"; fails=1; fi
if dpkg --root="$r" --force-not-root --force-script-chrootless --purge gpusort > "$d/deb.err" 2>&1 &&
	[ -z "$(find "$r" -path "$r/var/lib/dpkg" -prune -o -type f -print)" ]; then
	echo "PASS deb-removes"
else echo "FAIL deb-removes: $(find "$r" -path "$r/var/lib/dpkg" -prune -o -type f -print | head -n 3 | tr '\n' ' ') $(tail -n 1 "$d/deb.err")"
	fails=1; fi
exit $fails
