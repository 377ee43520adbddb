#!/bin/sh
# pkg/mkdeb.sh - build the Debian package of a built gpusort (`make deb`).
#
#   sh pkg/mkdeb.sh BINARY MANPAGE VERSION OUT.deb
#
# Installs BINARY as /usr/bin/gpusort and MANPAGE as
# /usr/share/man/man1/gpusort.1.gz, with the licence as the package's
# copyright file, and declares as dependencies the packages that hold the
# shared libraries BINARY loads (ldd, then dpkg -S: libc6, libstdc++6,
# libgcc-s1), libc6 at least at the newest GLIBC_ symbol version it uses.
# The CUDA runtime and liburing are linked statically, so neither the CUDA
# toolkit nor a driver is needed to install it; without a driver gpusort
# sorts on the CPU. Exit status 0, or 2 with a message.
set -eu
[ $# = 4 ] || { echo "usage: sh pkg/mkdeb.sh BINARY MANPAGE VERSION OUT.deb" >&2; exit 2; }
bin=$1 man=$2 ver=$3 out=$4
here=$(cd "$(dirname "$0")/.." && pwd)
for f in "$bin" "$man" "$here/LICENSE"; do
	[ -f "$f" ] || { echo "mkdeb: $f: no such file" >&2; exit 2; }
done
arch=$(dpkg --print-architecture)
root=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-deb.XXXXXX")
trap 'rm -rf "$root"' EXIT

install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/doc/gpusort"
install -m 755 "$bin" "$root/usr/bin/gpusort"
strip --strip-unneeded "$root/usr/bin/gpusort" 2> /dev/null || true
gzip -9n < "$man" > "$root/usr/share/man/man1/gpusort.1.gz"
chmod 644 "$root/usr/share/man/man1/gpusort.1.gz"
install -m 644 "$here/LICENSE" "$root/usr/share/doc/gpusort/copyright"

deps=""
for lib in $(ldd "$bin" | awk '/=>/ { print $3 }'); do
	p=$(dpkg -S "$lib" 2> /dev/null || dpkg -S "$(readlink -f "$lib")" 2> /dev/null) ||
		{ echo "mkdeb: no package holds $lib" >&2; exit 2; }
	p=${p%%:*}
	case " $deps " in *" $p "*) ;; *) deps="$deps $p" ;; esac
done
glibc=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
depends=""
for p in $deps; do
	[ "$p" = libc6 ] && [ -n "$glibc" ] && p="libc6 (>= $glibc)"
	depends="${depends:+$depends, }$p"
done
size=$(du -sk "$root/usr" | cut -f1)
cat > "$root/DEBIAN/control" << CTL
Package: gpusort
Version: $ver
Architecture: $arch
Maintainer: the gpusort authors <gpusort@localhost>
Installed-Size: $size
Depends: $depends
Section: utils
Priority: optional
Description: sort(1)-style external-memory sort of binary records, on the GPU
 gpusort sorts files of fixed-width binary records (typed, multi-key,
 stable) far larger than GPU and host memory: chunks are sorted on an
 NVIDIA GPU of compute capability 7.5 or later when there is one, or on
 all CPU cores, spilled to checksummed temporary files and merged into an
 output written atomically. Without a GPU or a driver it sorts on the CPU.
CTL
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" > /dev/null
