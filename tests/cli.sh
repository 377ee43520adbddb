#!/bin/sh
# tests/cli.sh - command-line tests of gpusort (POSIX sh).
#
# Checks ./gpusort against the independent reference sorter tests/refsort
# (byte-for-byte, with cmp) and against the CLI contract: key types, layouts,
# sizes, distributions, stability, -u, spills, pipes, -o, -c/-C, -m, errors,
# --verify/--stats, signals, and one larger input.
# Needs ./gpusort, bench/gen and tests/refsort built (make check does it).
# Prints one line per case: PASS name / FAIL name: why / SKIP name: why.
# Exit status: 0 when no case failed, 1 otherwise.
# Environment: CLI_QUICK=1 leaves out the signal and 64 MiB cases;
# CLI_LAYOUTS=N random record layouts sorted, and as many merged (-m) and
# checked (-c) (default 30); CLI_SEED=S their seed;
# CLI_TIMEOUT=S per gpusort run (default 300, 0 = none); GPUSORT, GEN,
# REFSORT: other binaries.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_built cli.sh

mkdir spill t1 t2

# private device nodes for -o tests (root only; empty when not permitted)
DEVNULL= DEVFULL=
mkdir devdir
if mknod -m 666 devdir/null c 1 3 2>/dev/null && mknod -m 666 devdir/full c 1 7 2>/dev/null &&
	[ -c devdir/null ] && [ -c devdir/full ]; then
	DEVNULL=$T/devdir/null DEVFULL=$T/devdir/full
fi

# ---------------------------------------------------------------------------
# 1. Byte-for-byte equality with refsort

# Every key type: alone (the record is the key, default record size), at an
# unaligned offset inside a larger record, and descending (:r).
for t in u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 \
	u16be u32be u64be i16be i32be i64be f32be f64be \
	bytes1 bytes3 bytes10 bytes16 bytes33; do
	case $t in
	bytes*) w=${t#bytes} ;;
	*8) w=1 ;; *16 | *16be) w=2 ;; *32 | *32be) w=4 ;; *) w=8 ;;
	esac
	sp= n=3000
	case $t in f*) sp=--specials n=30000 ;; esac
	gen -n $n -k "$t" $sp --seed 11 -o k.bin &&
		sortcase "key-$t" k.bin "-k $t"
	rs=$((w + 7))
	gen -n $n --record-size $rs -k "$t@3" $sp --seed 12 -o k.bin &&
		sortcase "key-$t@3-rs$rs" k.bin "--record-size $rs -k $t@3" &&
		sortcase "key-$t@3:r" k.bin "--record-size $rs -k $t@3:r"
	# a few duplicates of small keys: -u on every type
	gen -n 3000 --record-size $rs -k "$t@3" --dist fewunique --seed 13 -o k.bin &&
		sortcase "key-$t-unique" k.bin "--record-size $rs -k $t@3 -u"
done

# Floats with --specials behind a narrow first key.
gen -n 30000 --record-size 24 -k u8@0 -k f64@8 -k f32be@16 --specials --seed 14 -o k.bin &&
	sortcase "key-f64-f32be-specials-multi" k.bin "--record-size 24 -k u8@0 -k f64@8:r -k f32be@16"

# Every special value class, many times over, crafted here (not by bench/gen):
# 18 patterns (zeros, infinities, NaNs with payloads and signs, subnormals,
# extremes) in a scrambled order, a one-byte tag after each value.
for w in 4 8; do
	for be in 0 1; do
		mkspecials $w $be 500 sp.bin
		t=f$((w * 8)); [ $be = 1 ] && t=${t}be
		sortcase "specials-crafted-$t" sp.bin "--record-size $((w + 1)) -k $t"
		sortcase "specials-crafted-$t:r" sp.bin "--record-size $((w + 1)) -k $t:r"
		sortcase "specials-crafted-$t-S64K" sp.bin "--record-size $((w + 1)) -k $t -k u8@$w:r" "-S 64K -T spill"
	done
done

# -r, alone and combined with :r
gen -n 3000 --record-size 16 -k u32@4 --dist fewunique --seed 15 -o r.bin &&
	sortcase "reverse" r.bin "--record-size 16 -k u32@4 -r" &&
	sortcase "reverse-with-:r" r.bin "--record-size 16 -k u32@4:r -r" &&
	sortcase "reverse-whole-record" r.bin "--record-size 16 -r"
gen -n 3000 -k i16 --seed 16 -o r.bin &&
	sortcase "reverse-i16" r.bin "-k i16 -r"

# Multiple keys
gen -n 5000 --record-size 16 -k u64@8 -k i32@0 --dist fewunique --seed 17 -o m.bin &&
	sortcase "multikey-u64@8-i32@0:r" m.bin "--record-size 16 -k u64@8 -k i32@0:r" &&
	sortcase "multikey-i32@0-u64@8" m.bin "--record-size 16 -k i32@0 -k u64@8"
gen -n 5000 -k u32 -k u16 --dist fewunique --seed 18 -o m.bin &&
	sortcase "multikey-default-offsets" m.bin "-k u32 -k u16" &&
	sortcase "multikey-default-offsets-:r" m.bin "-k u32:r -k u16"
gen -n 5000 --record-size 12 -k u8@0 --dist fewunique --seed 19 -o m.bin &&
	sortcase "multikey-overlapping" m.bin "--record-size 12 -k u8@0 -k u32be@0:r -k bytes3@9"
gen -n 5000 --record-size 16 -k bytes2@0 --dist fewunique --seed 20 -o m.bin &&
	sortcase "multikey-later-offset-first" m.bin "--record-size 16 -k u16@14 -k bytes2@0 -k i64@2"

# Keys that cover the record exactly, in any order: the CPU engine sorts the
# records' own bytes, encoded in place (keys_inplace), not (prefix, index) entries
gen -n 20000 -k u32 -k u32 --dist fewunique --seed 23 -o m.bin &&
	sortcase "cover-u32-u32" m.bin "-k u32 -k u32" &&
	sortcase "cover-u32@4-i32@0:r" m.bin "-k u32@4 -k i32@0:r" &&
	sortcase "cover-i16-f32:r-u16be" m.bin "-k i16 -k f32:r -k u16be" &&
	sortcase "cover-u32-u32-u" m.bin "-k u32 -k u32 -u" &&
	sortcase "cover-u32-u32-r-S64K" m.bin "-k u32 -k u32 -r" "-S 64K -T spill" &&
	sortcase "cover-u32-u32-pipe" - "-k u32 -k u32" < m.bin
gen -n 20000 --record-size 16 -k u64 -k bytes8 --dist fewunique --seed 24 -o m.bin &&
	sortcase "cover-u64-bytes8:r" m.bin "-k u64 -k bytes8:r" &&
	sortcase "cover-bytes8@8-f64@0" m.bin "-k bytes8@8 -k f64@0" "--parallel=1"
gen -n 20000 --record-size 3 -k u8 --dist uniform --seed 25 -o m.bin &&
	sortcase "cover-u8@2-i16@0:r" m.bin "-k u8@2 -k i16@0:r"

# Records of 1 or 2 bytes that are their keys: counted, not sorted
# (runs_count.c): every type and order, -u, -r, pipes, several inputs, an
# input far larger than -S (nothing spilled), and --verify; --stats names it
gen -n 300000 -k u16 --dist zipf --seed 26 -o c2.bin &&
	gen -n 70001 -k u8 --dist uniform --seed 27 -o c1.bin &&
	gen -n 5 -k u16 --dist uniform --seed 28 -o c2s.bin && {
	for k in "-k u16" "-k i16" "-k u16be:r" "-k i16be" "-k bytes2" "-k bytes2:r" "-k u8 -k i8:r" "-k i8@1 -k u8@0" \
		"--record-size 2" "-k u16 -r" "-k u16 -u" "-k i16:r -u"; do
		sortcase "counted-2-$(echo "$k" | sed 's/:r/desc/g; s/@/at/g; s/[ -]//g')" c2.bin "$k"
	done
	for k in "-k u8" "-k i8" "-k i8:r" "-k bytes1:r" "--record-size 1 -u"; do
		sortcase "counted-1-$(echo "$k" | sed 's/:r/desc/g; s/@/at/g; s/[ -]//g')" c1.bin "$k"
	done
	sortcase "counted-pipe" - "-k i16" < c2.bin
	cat c2.bin c2s.bin c2.bin > c2all.bin
	"$REF" -k i16:r < c2all.bin > exp.bin
	gsrun -k i16:r c2.bin - c2.bin -o got.bin < c2s.bin 2> gs.err
	check_ok "counted-inputs-file-pipe-file" $? got.bin exp.bin gs.err
	rm -rf spill && mkdir spill
	gsrun -k u16 -S 64K -T spill --stats c2.bin > got.bin 2> gs.err
	"$REF" -k u16 < c2.bin > exp.bin
	check_ok "counted-larger-than-S" $? got.bin exp.bin gs.err
	if grep -q "engine cpu (counted)" gs.err && grep -q " 0 runs (0 spilled)" gs.err && isempty spill; then
		pass "counted-stats-no-runs"
	else
		fail "counted-stats-no-runs" "$(grep -m1 'engine\|runs' gs.err)"
	fi
	gsrun -k u16 --verify c2.bin > got.bin 2> gs.err
	check_ok "counted-verify" $? got.bin exp.bin gs.err
	# into a pipe, in many pieces (blocks of -S/8: 1 MiB), filled while the last is written
	gen -n 4000000 -k u16 --dist gaussian --seed 30 -o c2b.bin && "$REF" -k u16:r < c2b.bin > exp.bin &&
		"$REF" -k u16:r -u < c2b.bin > expu.bin && {
		{ gsrun -k u16:r -S 8M c2b.bin 2> gs.err; echo $? > rc.pipe; } | cat > got.bin
		check_ok "counted-pipe-out" "$(cat rc.pipe)" got.bin exp.bin gs.err
		cat c2b.bin | { gsrun -k u16:r -S 8M 2> gs.err; echo $? > rc.pipe; } | cat > got.bin
		check_ok "counted-pipe-in-out" "$(cat rc.pipe)" got.bin exp.bin gs.err
		{ gsrun -k u16:r -u -S 8M c2b.bin 2> gs.err; echo $? > rc.pipe; } | cat > got.bin
		check_ok "counted-pipe-out-u" "$(cat rc.pipe)" got.bin expu.bin gs.err
		{ gsrun -k u16:r -S 8M --verify c2b.bin 2> gs.err; echo $? > rc.pipe; } | cat > got.bin
		check_ok "counted-pipe-out-verify" "$(cat rc.pipe)" got.bin exp.bin gs.err
	}
	"$REF" -k u16 < c2.bin > exp.bin
	: > empty.bin
	gsrun -k u8 empty.bin > got.bin 2> gs.err
	check_ok "counted-empty" $? got.bin empty.bin gs.err
	# a typed GPU engine asked for by name is not bypassed; a 3-byte record is sorted
	gsrun -k u16 --algorithm=cpu --stats c2.bin 2>&1 > /dev/null | grep -q "engine cpu (counted)" &&
		pass "counted-algorithm-cpu" || fail "counted-algorithm-cpu" "not counted under --algorithm=cpu"
	gen -n 1000 --record-size 3 --seed 29 -o c3.bin &&
		gsrun --record-size 3 --stats c3.bin 2>&1 > /dev/null | grep -q "counted" &&
		fail "counted-not-3-bytes" "3-byte records counted" || pass "counted-not-3-bytes"
	# the same bytes as the sort it replaces (the test build's GPUSORT_COUNT=0)
	gstrun -k u16be:r c2.bin > got.bin 2> gs.err
	rc=$?
	(export GPUSORT_COUNT=0; gstrun -k u16be:r --stats c2.bin > exp.bin 2> st.err)
	if grep -q "counted" st.err || ! grep -q "engine cpu" st.err; then
		fail "counted-as-sorted" "GPUSORT_COUNT=0: $(grep -m1 engine st.err)"
	else
		check_ok "counted-as-sorted" $rc got.bin exp.bin gs.err
	fi
}

# Default record size: the end of the furthest key, not of the last one
gen -n 3000 --record-size 12 -k u32@8 -k u8@0 --dist fewunique --seed 21 -o m.bin &&
	sortcase "default-record-size-furthest-key" m.bin "-k u32@8 -k u8@0"
gen -n 3000 --record-size 7 -k u16@4 -k u8@6 --dist fewunique --seed 22 -o m.bin &&
	sortcase "default-offset-after-explicit" m.bin "-k u16@4 -k u8"

# No -k (whole record) and keyed records, for record sizes 1..256
for rs in 1 3 4 8 16 100 256; do
	gen -n 2000 --record-size $rs --seed $((30 + rs)) -o w.bin &&
		sortcase "whole-record-rs$rs" w.bin "--record-size $rs"
	gen -n 2000 --record-size $rs -k "u8@$((rs - 1))" --dist fewunique --seed $((40 + rs)) -o w.bin &&
		sortcase "last-byte-key-rs$rs" w.bin "--record-size $rs -k u8@$((rs - 1))"
done
gen -n 3 --record-size 1048576 --seed 50 -o w.bin &&
	sortcase "record-size-1MiB" w.bin "--record-size 1048576 -k u32@1048572"

# Random layouts
types="u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 u16be u32be u64be i16be i32be i64be f32be f64be bytes1 bytes2 bytes5 bytes9"
dists="uniform gaussian zipf sorted reverse equal bucket staggered fewunique"
nt=$(echo $types | wc -w)
# rand_layout MAX_RECORD_SIZE MAX_KEYS: a random record size (rs) and 1..MAX_KEYS
# keys of $types at random offsets, some descending: keys (gpusort's and
# refsort's -k arguments), gkeys (bench/gen's) and desc (for case names)
rand_layout() {
	rnd $1; rs=$((R + 1))
	rnd $2; nk=$((R + 1))
	keys= gkeys= desc= k=0
	while [ $k -lt $nk ]; do
		k=$((k + 1))
		rnd $nt; t=$(echo $types | cut -d' ' -f$((R + 1)))
		case $t in
		bytes*) w=${t#bytes} ;;
		*8) w=1 ;; *16 | *16be) w=2 ;; *32 | *32be) w=4 ;; *) w=8 ;;
		esac
		[ $w -gt $rs ] && { t=u8; w=1; }
		rnd $((rs - w + 1)); off=$R
		rnd 4; r=; [ $R = 0 ] && r=:r
		keys="$keys -k $t@$off$r"
		gkeys="$gkeys -k $t@$off"
		desc="$desc,$t@$off$r"
	done
}
i=0
while [ $i -lt "${CLI_LAYOUTS:-30}" ]; do
	i=$((i + 1))
	rand_layout 40 3
	rnd 9; d=$(echo $dists | cut -d' ' -f$((R + 1)))
	rnd 5; flags=; [ $R = 0 ] && flags=-r; [ $R = 1 ] && flags=-u
	rnd 3000; n=$R
	rnd 4; [ $R = 0 ] && n=$((n * 10))
	rnd 3; xa=; [ $R = 0 ] && xa="-S 64K -T t1"
	# bench/gen may not take overlapping keys: fall back to payload only
	sp=; [ $d = uniform ] && sp=--specials
	"$GEN" -n $n --record-size $rs $gkeys --dist $d $sp --seed $i -o l.bin 2>/dev/null ||
		gen -n $n --record-size $rs --seed $i -o l.bin || continue
	sortcase "layout-$i[rs$rs$desc${flags:+,$flags},n$n,$d${xa:+,S64K}]" l.bin "--record-size $rs$keys $flags" "$xa"
done

# The merge's fast key prefixes (losertree.c): each first-field shape that
# takes one, through a spilled multi-run merge, against the reference.
for t in u32 i32 f32 u32be u64 i64 f64 i64be f64be u32:r f32:r i64:r f64:r bytes8 bytes12 bytes12:r; do
	base=${t%:r}
	w=$(case $base in *32*) echo 4 ;; *64*) echo 8 ;; bytes8) echo 8 ;; *) echo 12 ;; esac)
	sp=; case $base in f*) sp=--specials ;; esac
	d=fewunique; [ -n "$sp" ] && d=uniform
	gen -n 20000 --record-size $w -k $base --dist $d $sp --seed 31 -o pf.bin &&
		sortcase "merge-prefix-$t" pf.bin "-k $t" "-S 64K -T t1"
	gen -n 20000 --record-size $((w + 4)) -k $base -k u32@$w --dist uniform $sp --seed 32 -o pf2.bin &&
		sortcase "merge-prefix-$t-then-u32" pf2.bin "--record-size $((w + 4)) -k $t -k u32@$w" "-S 64K -T t1"
done

# Every distribution, two key shapes
for d in $dists; do
	gen -n 5000 --record-size 16 -k u32@4 --dist $d --seed 60 -o d.bin &&
		sortcase "dist-$d-u32" d.bin "--record-size 16 -k u32@4"
	gen -n 5000 --record-size 16 -k f64@8 --dist $d --seed 61 -o d.bin &&
		sortcase "dist-$d-f64:r" d.bin "--record-size 16 -k f64@8:r"
done

# Small sizes
for n in 0 1 2 3; do
	gen -n $n --record-size 16 -k u64@8 --seed 70 -o s.bin &&
		sortcase "n$n-u64@8" s.bin "--record-size 16 -k u64@8" &&
		sortcase "n$n-u64@8-stdin" - "--record-size 16 -k u64@8" "-" < s.bin
	gen -n $n -k u32 --seed 71 -o s.bin &&
		sortcase "n$n-u32" s.bin "-k u32"
done

# Sizes around power-of-two buffer edges (records of 16 bytes: 1 and 4 MiB)
for n in 255 256 257 4095 4096 4097 65535 65536 65537 262143 262144 262145; do
	gen -n $n --record-size 16 -k u32@0 --seed $n -o e.bin &&
		sortcase "edge-n$n" e.bin "--record-size 16 -k u32@0"
done
gen -n 262145 --record-size 16 -k u32@0 --seed 9 -o e.bin &&
	sortcase "edge-n262145-stdin" - "--record-size 16 -k u32@0" "-" < e.bin

# Sizes around chunk edges with a small budget (several runs, merged)
for n in 1023 1024 1025 2047 2048 2049 4095 4096 4097 8191 8192 8193 12287 12288 12289 16384 16385 32769; do
	gen -n $n --record-size 16 -k u64@0 --dist fewunique --seed $n -o e.bin &&
		sortcase "chunk-edge-S64K-n$n" e.bin "--record-size 16 -k u64@0" "-S 64K -T spill"
done
isempty spill && pass "chunk-edge-temp-removed" || fail "chunk-edge-temp-removed" "left in -T dir: $(ls -A spill)"
rm -rf spill/*

# ---------------------------------------------------------------------------
# 2. Stability, checked directly (no refsort): key byte + input position

# check_stable NAME FILE DIR(asc|desc) [UNIQUE]
# keys in order; within a key, positions increasing (input order).
check_stable() {
	idxdump "$2" | awk -v dir="$3" -v uniq="$4" '
		NR > 1 {
			if ((dir == "asc" && $1 < pk) || (dir == "desc" && $1 > pk)) { print "key order broken at record " NR; exit 1 }
			if ($1 == pk && uniq) { print "duplicate key " $1 " at record " NR; exit 1 }
			if ($1 == pk && $2 <= pi) { print "input order broken at record " NR " (key " $1 ")"; exit 1 }
		}
		{ pk = $1; pi = $2 }' > stable.why
}

mkidx 60000 5 idx.bin
mkidx 60000 251 idx251.bin
for v in "asc:-k u8" "desc:-k u8:r" "desc:-r -k u8" "asc:-k u8 -S 64K" "desc:-k u8:r -S 64K" "asc:-k u8 -S 1M" "asc:-k u8 --parallel=1" "asc:-k u8 --parallel=2"; do
	dir=${v%%:*} a=${v#*:}
	for f in idx.bin idx251.bin; do
		name="stable-direct($f $a)"
		if gsrun --record-size 4 $a -T spill "$f" > got.bin 2> gs.err; then
			if [ "$(fsize got.bin)" != "$(fsize "$f")" ]; then
				fail "$name" "output size $(fsize got.bin), want $(fsize "$f")"
			elif check_stable "$name" got.bin "$dir"; then
				pass "$name"
			else
				fail "$name" "$(cat stable.why)"
			fi
		else
			fail "$name" "exit status $?: $(first gs.err)"
		fi
	done
done

# all keys equal: the output is the input
gen -n 20000 --record-size 16 -k u32@0 --dist equal --seed 80 -o eq.bin
for S in "" "-S 64K"; do
	if gsrun --record-size 16 -k u32@0 $S -T spill eq.bin > got.bin 2> gs.err && cmp -s got.bin eq.bin; then
		pass "stable-all-equal$S"
	else
		fail "stable-all-equal$S" "output is not the input: $(first gs.err)"
	fi
done
gen -n 20000 --record-size 16 -k u16@2 --dist fewunique --seed 81 -o fu.bin &&
	sortcase "stable-fewunique" fu.bin "--record-size 16 -k u16@2" &&
	sortcase "stable-fewunique-S64K" fu.bin "--record-size 16 -k u16@2" "-S 64K -T spill"
# -0.0 and +0.0 are different keys, 0.0 and 0.0 are ties
printf '\000\000\000\200\001\000\000\000\000\000\000\000\002\000\000\000\000\000\000\200\003\000\000\000\000\000\000\000\004\000\000\000' > z.bin
sortcase "float-zero-order" z.bin "--record-size 8 -k f32@0"
printf '\000\000\000\200\000\000\000\000\000\000\000\000\000\000\000\200' > z.bin
printf '\000\000\000\200\000\000\000\200\000\000\000\000\000\000\000\000' > zexp.bin
gsrun -k f32 z.bin > got.bin 2> gs.err
if cmp -s got.bin zexp.bin; then pass "float-minus-zero-first"; else fail "float-minus-zero-first" "-0.0 not before +0.0: $(od -An -tx1 got.bin)"; fi

# ---------------------------------------------------------------------------
# 3. -u

gen -n 20000 --record-size 16 -k u16@2 --dist fewunique --seed 90 -o u.bin &&
	sortcase "unique" u.bin "--record-size 16 -k u16@2 -u" &&
	sortcase "unique-r" u.bin "--record-size 16 -k u16@2 -u -r" &&
	sortcase "unique-S64K" u.bin "--record-size 16 -k u16@2 -u" "-S 64K -T spill" &&
	sortcase "unique-whole-record" u.bin "--record-size 16 -u"
gen -n 20000 --record-size 2 --seed 91 -o u.bin &&
	sortcase "unique-whole-record-rs2" u.bin "--record-size 2 -u"
for a in "-k u8" "-k u8 -S 64K"; do
	name="unique-direct($a)"
	if gsrun --record-size 4 -u $a -T spill idx251.bin > got.bin 2> gs.err; then
		# first occurrence of key v in mkidx is the smallest i with i*7919 % 251 == v
		idxdump got.bin | awk 'BEGIN { for (i = 59999; i >= 0; i--) f[(i * 7919) % 251] = i }
			{ n++; if ($2 != f[$1]) { print "key " $1 ": kept record " $2 ", want " f[$1]; exit 1 }
			  if (n > 1 && $1 <= pk) { print "keys not strictly increasing"; exit 1 } pk = $1 }
			END { if (n != 251) { print n " records, want 251"; exit 1 } }' > stable.why &&
			pass "$name" || fail "$name" "$(cat stable.why)"
	else
		fail "$name" "exit status $?: $(first gs.err)"
	fi
done
isempty spill && pass "stable-unique-temp-removed" || { fail "stable-unique-temp-removed" "left in -T: $(ls -A spill)"; rm -rf spill/*; }

# ---------------------------------------------------------------------------
# 4. Forced multiple runs and spills

gen -n 200000 --record-size 16 -k u64@8 --seed 100 -o big.bin      # 3.2 MB
gen -n 70000 --record-size 100 -k bytes10@0 --seed 101 -o gs100.bin # 7 MB
for S in 64K 1M; do
	sortcase "spill-S$S" big.bin "--record-size 16 -k u64@8" "-S $S -T t1"
	isempty t1 && pass "spill-S$S-temp-removed" || fail "spill-S$S-temp-removed" "left in -T: $(ls -A t1)"
	sortcase "spill-S$S-rs100" gs100.bin "--record-size 100 -k bytes10@0" "-S $S -T t1"
	isempty t1 && pass "spill-S$S-rs100-temp-removed" || fail "spill-S$S-rs100-temp-removed" "left in -T: $(ls -A t1)"
done
sortcase "spill-two-T-dirs" big.bin "--record-size 16 -k u64@8" "-S 64K -T t1 -T t2"
isempty t1 && isempty t2 && pass "spill-two-T-dirs-temp-removed" || fail "spill-two-T-dirs-temp-removed" "left: $(ls -A t1 t2)"
sortcase "spill-TMPDIR" big.bin "--record-size 16 -k u64@8" "-S 64K"
no_stray_temps "spill-TMPDIR-temp-removed" && pass "spill-TMPDIR-temp-removed"
sortcase "spill-long-options" big.bin "--record-size=16 --key=u64@8" "--buffer-size=1M --temporary-directory=t1"
sortcase "spill-S-bytes-suffix" big.bin "--record-size 16 -k u64@8" "-S 300000b -T t1"
sortcase "spill-S-plain-KiB" big.bin "--record-size 16 -k u64@8" "-S 256 -T t1"
sortcase "spill-S-percent" big.bin "--record-size 16 -k u64@8" "-S 1% -T t1"
sortcase "spill-stdin" - "--record-size 16 -k u64@8" "-S 64K -T t1" < big.bin
sortcase "pipe-S-past-memory" - "--record-size 16 -k u64@8" "-S 1P -T t1" < big.bin
sortcase "in-memory-default-S" big.bin "--record-size 16 -k u64@8" "-T t1"
sortcase "in-memory-S1G" gs100.bin "--record-size 100 -k bytes10@0" "-S 1G -T t1"
sortcase "spill-direct-io" big.bin "--record-size 16 -k u64@8" "-S 64K -T t1 --direct-io"
sortcase "in-memory-direct-io" big.bin "--record-size 16 -k u64@8" "-T t1 --direct-io"
sortcase "spill-direct-io-spill" big.bin "--record-size 16 -k u64@8" "-S 64K -T t1 -T t2 --direct-io=spill"
# key-only 4/8-byte numbers: chunks past the MSD pass's threshold (2^17
# records: -S 8M makes 256Ki-record chunks of u64), the native merge of
# their runs, -u across run boundaries, descending keys, O_DIRECT spills
gen -n 600000 -k u64 --seed 101 -o u64.bin
gen -n 600000 -k u32 --dist fewunique --seed 102 -o u32f.bin
sortcase "spill-u64-S8M-msd" u64.bin "-k u64" "-S 8M -T t1"
sortcase "spill-i64r-S8M-msd" u64.bin "-k i64:r" "-S 8M -T t1"
sortcase "spill-u32-fewunique-u" u32f.bin "-k u32 -u" "-S 4M -T t1"
sortcase "spill-u32-fewunique-u-S64K" u32f.bin "-k u32:r -u" "-S 64K -T t1"
sortcase "spill-direct-io-spill-u64" u64.bin "-k u64" "-S 64K -T t1 --direct-io=spill"
isempty t1 && isempty t2 && pass "spill-direct-io-temp-removed" || fail "spill-direct-io-temp-removed" "left: $(ls -A t1 t2)"
sortcase "spill-direct-io-all" big.bin "--record-size 16 -k u64@8" "-S 64K -T t1 --direct-io=all"
# io_uring registered buffers off (the test build's GPUSORT_FIXED=0), refused
# (GPUSORT_FAULT=fixed-enomem, as RLIMIT_MEMLOCK would), and on: the same
# bytes in -o files (the sink's buffers are registered only for a regular
# output), in one chunk and through spills
for S in 64K 1G; do
	for e in GPUSORT_FIXED=0 GPUSORT_FAULT=fixed-enomem; do
		gsrun --record-size 16 -k u64@8 -S $S -T t1 -o fx-default.bin big.bin 2> gs.err &&
			(export "$e"; gstrun --record-size 16 -k u64@8 -S $S -T t1 -o fx-env.bin big.bin) 2>> gs.err
		rc=$?
		if [ $rc = 0 ] && cmp -s fx-default.bin fx-env.bin; then pass "fixed-S$S-$e-same-bytes"
		else fail "fixed-S$S-$e-same-bytes" "exit status $rc, or the outputs differ: $(first gs.err)"; fi
	done
done
"$REF" --record-size 16 -k u64@8 < big.bin > exp.bin
cmp -s fx-default.bin exp.bin && pass "fixed-default-matches-refsort" || fail "fixed-default-matches-refsort" "differs"
rm -f fx-default.bin fx-env.bin
# many runs (about 256 of 16 KiB), also under a low limit on open files
gen -n 1048576 -k u32 --seed 102 -o runs.bin &&
	sortcase "spill-many-runs" runs.bin "-k u32" "-S 64K -T t1"
GS_NOFILE=32
sortcase "spill-many-runs-ulimit-n-32" runs.bin "-k u32" "-S 64K -T t1"
GS_NOFILE=
# records larger than the whole budget
gen -n 50 --record-size 100000 --seed 103 -o bigrec.bin &&
	sortcase "spill-record-larger-than-S" bigrec.bin "--record-size 100000 -k u64@50000" "-S 64K -T t1"
# whole-record keys of odd sizes through spills
gen -n 100000 --record-size 3 --seed 104 -o rs3.bin &&
	sortcase "spill-whole-record-rs3" rs3.bin "--record-size 3" "-S 64K -T t1"
gen -n 300 --record-size 1000 -k bytes7@993 --dist fewunique --seed 105 -o rs1000.bin &&
	sortcase "spill-rs1000-last-bytes" rs1000.bin "--record-size 1000 -k bytes7@993" "-S 64K -T t1"
# --batch-size (issue 18): the merge takes at most NMERGE runs at once, so
# more runs take more passes through temp files; the plan in --stats=json
# shows the capped fan-in and the fewest passes it needs, and the run made them
bs_plan() { python3 -c '
import json, sys
d = json.load(sys.stdin); p = d["plan"]; f = int(sys.argv[1])
k, passes = d["runs"], 1
while k > f:
    k, passes = (k + f - 1) // f, passes + 1
ok = p["merge_fanin"] == f and p["runs"] == d["runs"] and p["merge_passes"] == passes == d["merge_passes"]
# the passes before the last write runs of their own, counted apart from the chunk runs
mid = d["merge_pass_spilled_runs"]
ok = ok and d["spilled_runs"] <= d["runs"] and mid >= passes - 1 and (mid > 0) == (passes > 1)
print("runs %d (%d spilled) fan-in %d passes %d (run: %d, want %d), intermediate runs %d" % (d["runs"],
      d["spilled_runs"], p["merge_fanin"], p["merge_passes"], d["merge_passes"], passes, mid))
sys.exit(0 if ok and d["runs"] > f else 1)' "$1" < gs.err; }
"$REF" --record-size 16 -k u64@8 < big.bin > exp.bin
for b in 2 3; do
	gsrun --record-size 16 -k u64@8 -S 256K -T t1 --batch-size=$b --stats=json big.bin > got.bin 2> gs.err
	rc=$?
	if [ $rc != 0 ] || ! cmp -s got.bin exp.bin; then
		fail "batch-size-$b" "exit status $rc, or the output differs from refsort: $(head -c 200 gs.err)"
	elif [ $HAVE_PY = 0 ]; then
		pass "batch-size-$b"; skip "batch-size-$b-plan" "no python3 to read the JSON"
	elif why=$(bs_plan $b); then
		pass "batch-size-$b"; pass "batch-size-$b-plan"
	else
		pass "batch-size-$b"; fail "batch-size-$b-plan" "$why"
	fi
done
sortcase "batch-size-2-rs100" gs100.bin "--record-size 100 -k bytes10@0" "-S 1M -T t1 --batch-size 2"
sortcase "batch-size-1024" big.bin "--record-size 16 -k u64@8" "-S 64K -T t1 --batch-size=1024"
isempty t1 && pass "batch-size-temp-removed" || fail "batch-size-temp-removed" "left in -T: $(ls -A t1)"
# --compress-program (issue 18): spilled runs go through PROG into their
# temp files and come back through PROG -d, checksummed on the uncompressed
# bytes; the output is refsort's, and no temp file is left in -T. noop.sh
# is the no-op compressor (cat itself refuses -d); -S 256K makes about 70
# runs, --batch-size=2 adds passes whose runs are compressed in turn
mkdir zt
mkfilter() { printf '#!/bin/sh\n%s\n' "$2" > "$1" && chmod +x "$1"; }
mkfilter noop.sh 'exec cat'
for z in gzip zstd "$T/noop.sh"; do
	zn=$(basename "$z" .sh)
	if ! command -v "$z" > /dev/null 2>&1; then
		skip "compress-$zn" "$z is not installed"
		continue
	fi
	sortcase "compress-$zn" big.bin "--record-size 16 -k u64@8" "-S 256K -T zt --compress-program=$z"
	sortcase "compress-$zn-batch-size-2" gs100.bin "--record-size 100 -k bytes10@0" \
		"-S 1M -T zt --batch-size=2 --compress-program=$z"
	isempty zt && pass "compress-$zn-temp-removed" || fail "compress-$zn-temp-removed" "left in -T: $(ls -A zt)"
done
sortcase "compress-stdin-two-T" - "--record-size 16 -k u64@8" "-S 256K -T zt -T t1 --compress-program=$T/noop.sh" < big.bin
sortcase "compress-not-spilled" big.bin "--record-size 16 -k u64@8" "-T zt --compress-program=nosuchprog"
# a compressor that fails: exit 2 naming it, the old -o kept, nothing left
# in -T (errcase checks the output; a PROG that is missing, one that exits 1,
# one that fails only with -d, one that flips bytes on the way back (the
# checksums name the temp file and block), one that gives too little)
mkfilter zfail.sh 'exit 1'
mkfilter zfaild.sh '[ "$1" = -d ] && exit 1; exec cat'
mkfilter zflip.sh '[ "$1" = -d ] && LC_ALL=C exec tr A B; exec cat'
mkfilter zshort.sh '[ "$1" = -d ] && { head -c 1000; cat > /dev/null; exit 0; }; exec cat'
zerr() {
	errcase "$1" "--record-size 16 -k u64@8 -S 256K -T zt --compress-program=$2 big.bin" || return
	case $ERRLINE in
	$3) isempty zt && pass "$1" || fail "$1" "left in -T: $(ls -A zt)" ;;
	*) fail "$1" "message: $ERRLINE" ;;
	esac
}
zerr "compress-missing-program" nosuchprog "gpusort: cannot run --compress-program 'nosuchprog': No such file or directory"
zerr "compress-exit-1" "$T/zfail.sh" "gpusort: --compress-program '$T/zfail.sh' exited with status 1 (temporary file 'zt/gpusort.*')"
zerr "compress-d-exit-1" "$T/zfaild.sh" "gpusort: --compress-program '$T/zfaild.sh -d' exited with status 1 (temporary file 'zt/gpusort.*')"
zerr "compress-corrupting" "$T/zflip.sh" "gpusort: temporary file zt/gpusort.*: checksum mismatch in block 0 *"
zerr "compress-short" "$T/zshort.sh" "gpusort: temporary file zt/gpusort.*: --compress-program '$T/zshort.sh -d' gave less than was written*"
isempty t1 && pass "spill-all-temp-removed" || fail "spill-all-temp-removed" "left in -T: $(ls -A t1)"
no_stray_temps "no-temp-in-TMPDIR" && pass "no-temp-in-TMPDIR"

# ---------------------------------------------------------------------------
# 5. Pipes and several inputs

gen -n 3000 --record-size 16 -k u32@0 --dist fewunique --seed 110 -o a.bin
gen -n 5000 --record-size 16 -k u32@0 --dist fewunique --seed 111 -o b.bin
gen -n 0 --record-size 16 -o empty.bin
cat a.bin b.bin > ab.bin
cat a.bin b.bin a.bin > aba.bin
K="--record-size 16 -k u32@0"
"$REF" $K < a.bin > expa.bin
"$REF" $K < ab.bin > expab.bin
"$REF" $K < aba.bin > expaba.bin

cat a.bin | gsrun $K > got.bin 2> gs.err
check_ok "pipe-stdin-implicit" $? got.bin expa.bin gs.err
gsrun $K - < a.bin > got.bin 2> gs.err
check_ok "pipe-stdin-dash" $? got.bin expa.bin gs.err
# standard input named twice, a regular file there: read once (the second
# "-" finds it at its end, as sort(1) does), sorted, merged (-m of the
# sorted file) and in a merge beside a file; it was read by offset twice
for o in "" "--cpu" "-S 64K -T t1"; do
	# shellcheck disable=SC2086
	gsrun $K $o - - < a.bin > got.bin 2> gs.err
	check_ok "stdin-twice-file[$o]" $? got.bin expa.bin gs.err
done
gsrun $K -m - - < expa.bin > got.bin 2> gs.err
check_ok "stdin-twice-file-merge" $? got.bin expa.bin gs.err
{ gsrun $K a.bin 2> gs.err; echo $? > pipe.rc; } | cat > got.bin
check_ok "pipe-stdout" "$(cat pipe.rc)" got.bin expa.bin gs.err
{ gsrun $K -S 64K -T t1 ab.bin 2> gs.err; echo $? > pipe.rc; } | cat > got.bin
check_ok "pipe-stdout-spill" "$(cat pipe.rc)" got.bin expab.bin gs.err
gsrun $K a.bin b.bin > got.bin 2> gs.err
check_ok "several-files" $? got.bin expab.bin gs.err
gsrun $K a.bin b.bin -S 64K -T t1 > got.bin 2> gs.err
check_ok "several-files-spill" $? got.bin expab.bin gs.err
gsrun $K a.bin - a.bin < b.bin > got.bin 2> gs.err
check_ok "dash-between-files" $? got.bin expaba.bin gs.err
gsrun $K empty.bin a.bin empty.bin b.bin > got.bin 2> gs.err
check_ok "empty-files-among-inputs" $? got.bin expab.bin gs.err
cat b.bin | gsrun $K a.bin - > got.bin 2> gs.err
check_ok "file-then-pipe" $? got.bin expab.bin gs.err
# a record split across two reads of a slow pipe
{ head -c 1000 a.bin; sleep 0.2; tail -c +1001 a.bin; } | gsrun $K > got.bin 2> gs.err
check_ok "pipe-record-split-across-reads" $? got.bin expa.bin gs.err
# named pipes as input and as -o (not a regular file: written directly)
if mkfifo fifo.in fifo.out 2>/dev/null; then
	cat a.bin > fifo.in &
	gsrun $K fifo.in b.bin > got.bin 2> gs.err
	rc=$?
	wait
	check_ok "fifo-input" $rc got.bin expab.bin gs.err
	cat fifo.out > got.bin &
	gsrun $K -o fifo.out a.bin b.bin 2> gs.err
	rc=$?
	wait
	check_ok "fifo-output" $rc got.bin expab.bin gs.err
	[ -p fifo.out ] && pass "fifo-output-still-a-fifo" || fail "fifo-output-still-a-fifo" "-o replaced the named pipe"
	rm -f fifo.in fifo.out
else
	skip "fifo-input" "mkfifo failed"
	skip "fifo-output" "mkfifo failed"
	skip "fifo-output-still-a-fifo" "mkfifo failed"
fi
# reader goes away: SIGPIPE or an error, but no temp files left
mkdir -p pipeT
{ gsrun $K -S 64K -T pipeT big.bin 2> gs.err; echo $? > pipe.rc; } | head -c 16 > /dev/null
rc=$(cat pipe.rc)
if [ "$rc" = 0 ]; then
	fail "closed-stdout" "exit status 0 after the reader went away"
elif ! isempty pipeT; then
	fail "closed-stdout" "temp files left: $(ls -A pipeT)"
else
	pass "closed-stdout"
fi
# full disk: standard output on /dev/full (opened by the shell), and -o to a
# private full device node (never /dev/full itself: see output-char-device)
for o in stdout o; do
	name="write-error-$o-dev-full"
	if [ $o = stdout ]; then
		if [ ! -c /dev/full ]; then skip "$name" "no /dev/full"; continue; fi
		gsrun $K big.bin > /dev/full 2> gs.err; rc=$?
	else
		if [ -z "$DEVFULL" ]; then skip "$name" "mknod not permitted"; continue; fi
		gsrun $K -o "$DEVFULL" big.bin > got.bin 2> gs.err; rc=$?
	fi
	if [ $rc != 2 ]; then fail "$name" "exit status $rc, want 2"
	elif ! grep -q '^gpusort: .*[Nn]o space' gs.err; then fail "$name" "no 'gpusort: ... No space' message: $(tr '\n' '|' < gs.err)"
	elif [ $o = o ] && [ ! -c "$DEVFULL" ]; then fail "$name" "-o replaced the device node"
	else pass "$name"; fi
done

# closed standard streams: an error, not data written into some other file
gsrun $K -S 64K -T t1 big.bin >&- 2> gs.err
rc=$?
if [ $rc != 2 ]; then fail "closed-stdout-fd" "exit status $rc, want 2"
elif ! isempty t1; then fail "closed-stdout-fd" "files left in -T: $(ls -A t1)"
else pass "closed-stdout-fd"; fi
gsrun $K <&- > got.bin 2> gs.err
rc=$?
[ $rc = 2 ] && [ ! -s got.bin ] && pass "closed-stdin-fd" || fail "closed-stdin-fd" "exit status $rc, want 2"
gsrun $K a.bin -o got.bin <&- >&- 2> gs.err
check_ok "closed-std-fds-with-o" $? got.bin expa.bin gs.err
# option syntax: "--" ends options, attached arguments, options after files
cp a.bin ./-dash.bin
gsrun $K -- -dash.bin > got.bin 2> gs.err
check_ok "double-dash-file" $? got.bin expa.bin gs.err
gsrun --record-size=16 -ku32@0 -S64K -Tt1 a.bin > got.bin 2> gs.err
check_ok "attached-option-arguments" $? got.bin expa.bin gs.err
gsrun a.bin $K > got.bin 2> gs.err
check_ok "options-after-file" $? got.bin expa.bin gs.err
# empty input: an empty output file is still written
gsrun $K -o eout.bin empty.bin 2> gs.err
rc=$?
[ $rc = 0 ] && [ -f eout.bin ] && [ ! -s eout.bin ] && pass "empty-input-o" || fail "empty-input-o" "exit status $rc, or no empty eout.bin"
gsrun $K < /dev/null > got.bin 2> gs.err
check_ok "empty-stdin" $? got.bin empty.bin gs.err

# inputs that are not multiples on their own but are together: per-file error
head -c 24 a.bin > h1.bin; tail -c +25 a.bin > h2.bin
if errcase "split-record-across-files" "$K h1.bin h2.bin"; then
	case $ERRLINE in
	*h1.bin*) pass "split-record-across-files" ;;
	*) fail "split-record-across-files" "message does not name h1.bin: $ERRLINE" ;;
	esac
fi

# ---------------------------------------------------------------------------
# 6. -o

cp ab.bin inplace.bin
gsrun $K -o inplace.bin inplace.bin 2> gs.err
check_ok "output-is-input" $? inplace.bin expab.bin gs.err
cp ab.bin inplace.bin
gsrun $K -S 64K -T t1 -o inplace.bin inplace.bin 2> gs.err
check_ok "output-is-input-spill" $? inplace.bin expab.bin gs.err
cp a.bin inplace.bin
gsrun $K inplace.bin b.bin --output=inplace.bin 2> gs.err
check_ok "output-is-second-of-inputs" $? inplace.bin expab.bin gs.err
mkdir -p odir
gsrun $K -o odir/new.bin ab.bin > got.bin 2> gs.err
rc=$?
if [ -s got.bin ]; then
	fail "output-new-file" "data written to stdout with -o"
else
	check_ok "output-new-file" $rc odir/new.bin expab.bin gs.err
fi
[ "$(ls -A odir)" = new.bin ] && pass "output-no-temp-beside" || fail "output-no-temp-beside" "odir holds: $(ls -A odir)"
printf 'old content that is longer than nothing\n' > odir/new.bin
gsrun $K -o odir/new.bin a.bin 2> gs.err
check_ok "output-replaces-existing" $? odir/new.bin expa.bin gs.err
gsrun $K -o odir/new.bin odir/new.bin 2> gs.err
check_ok "output-is-input-already-sorted" $? odir/new.bin expa.bin gs.err
# -o to a character device: written directly, the device stays (a private
# node made here, never /dev/null itself: a bug must not replace that)
if [ -n "$DEVNULL" ]; then
	gsrun $K -o "$DEVNULL" a.bin > got.bin 2> gs.err
	rc=$?
	if [ $rc != 0 ] || [ -s got.bin ]; then fail "output-char-device" "exit status $rc: $(first gs.err)"
	elif [ ! -c "$DEVNULL" ]; then fail "output-char-device" "-o replaced the device node with a $(stat -c %F "$DEVNULL" 2>/dev/null)"
	elif [ "$(ls -A devdir | tr '\n' ' ')" != "full null " ]; then fail "output-char-device" "files beside it: $(ls -A devdir)"
	else pass "output-char-device"; fi
else
	skip "output-char-device" "mknod not permitted"
fi

# -o through a symbolic link, as sort(1): the link stays, its target gets the data
rm -rf lnk && mkdir -p lnk/real && printf 'old\n' > lnk/real/target.bin && ln -s real/target.bin lnk/link.bin
gsrun $K -o lnk/link.bin a.bin 2> gs.err
rc=$?
if [ $rc != 0 ]; then fail "output-through-symlink" "exit status $rc: $(first gs.err)"
elif [ ! -L lnk/link.bin ]; then fail "output-through-symlink" "the symbolic link was replaced by a file"
elif ! cmp -s lnk/real/target.bin expa.bin; then fail "output-through-symlink" "the link's target does not hold the output"
elif [ "$(ls -A lnk/real)" != target.bin ]; then fail "output-through-symlink" "files beside the target: $(ls -A lnk/real)"
else pass "output-through-symlink"; fi

# modes, as sort(1): a new file gets 0666 & ~umask, a replaced one keeps its mode
rm -f odir/mode.bin
(umask 022; gsrun $K -o odir/mode.bin a.bin 2> gs.err)
m=$(ls -l odir/mode.bin 2>/dev/null | cut -c1-10)
[ "$m" = "-rw-r--r--" ] && pass "output-mode-new" || fail "output-mode-new" "mode $m, want -rw-r--r-- (0666 & ~022)"
chmod 640 odir/mode.bin
(umask 022; gsrun $K -o odir/mode.bin b.bin 2> gs.err)
m=$(ls -l odir/mode.bin 2>/dev/null | cut -c1-10)
[ "$m" = "-rw-r-----" ] && pass "output-mode-kept" || fail "output-mode-kept" "mode $m, want -rw-r----- (kept)"

# -o into a directory that does not exist / a path through a regular file
for o in nodir/out.bin a.bin/out.bin; do
	name="output-unwritable($o)"
	gsrun $K -o "$o" a.bin > got.bin 2> gs.err
	rc=$?
	if [ $rc != 2 ]; then
		fail "$name" "exit status $rc, want 2"
	elif [ -e nodir ] || [ -s got.bin ]; then
		fail "$name" "something was created or written"
	elif ! grep -q '^gpusort: ' gs.err || [ "$(nlines gs.err)" != 1 ]; then
		fail "$name" "want one 'gpusort: ' line on stderr: $(tr '\n' '|' < gs.err)"
	else
		pass "$name"
	fi
done
mkdir -p rodir
chmod 555 rodir
if [ $IS_ROOT = 1 ]; then
	skip "output-dir-not-writable" "running as root (root can write there)"
else
	gsrun $K -o rodir/out.bin a.bin > got.bin 2> gs.err
	rc=$?
	if [ $rc != 2 ]; then
		fail "output-dir-not-writable" "exit status $rc, want 2"
	elif ! isempty rodir; then
		fail "output-dir-not-writable" "created: $(ls -A rodir)"
	elif ! grep -q '^gpusort: .*rodir/out.bin' gs.err; then
		fail "output-dir-not-writable" "message does not name the file: $(first gs.err)"
	else
		pass "output-dir-not-writable"
	fi
fi
chmod 755 rodir

# existing output untouched on every error: see errcase (section 9), and:
printf 'precious\n' > keep.bin
for a in "$K nosuchfile.bin" "--record-size 16 -k u64@12 a.bin" "-k u31 a.bin" "$K h1.bin"; do
	name="output-untouched-on-error($a)"
	gsrun $a -o keep.bin > /dev/null 2> gs.err
	rc=$?
	if [ $rc != 2 ]; then fail "$name" "exit status $rc, want 2"
	elif [ "$(cat keep.bin)" != precious ]; then fail "$name" "output changed"
	else pass "$name"; fi
done
# the output is one of the inputs and the other input is bad
cp a.bin keep2.bin
gsrun $K -o keep2.bin keep2.bin h1.bin > /dev/null 2> gs.err
rc=$?
if [ $rc = 2 ] && cmp -s keep2.bin a.bin; then pass "output-is-input-untouched-on-error"
else fail "output-is-input-untouched-on-error" "exit status $rc, or the input/output was changed"; fi

# ---------------------------------------------------------------------------
# 7. -c / -C

# cstatus NAME WANT-RC WANT-STDERR GPUSORT-ARGS... (stdin from $CIN)
CIN=/dev/null
cstatus() {
	_cn=$1 _cw=$2 _ce=$3
	shift 3
	gsrun "$@" < "$CIN" > c.out 2> c.err
	_crc=$?
	if [ $_crc != "$_cw" ]; then
		fail "$_cn" "exit status $_crc, want $_cw (stderr: $(first c.err))"
	elif [ -s c.out ]; then
		fail "$_cn" "$(fsize c.out) bytes on stdout"
	elif [ "$(cat c.err)" != "$_ce" ]; then
		fail "$_cn" "stderr '$(tr '\n' '|' < c.err)', want '$_ce'"
	else
		pass "$_cn"
	fi
}

"$REF" $K < ab.bin > sorted.bin
cstatus "check-sorted" 0 "" $K -c sorted.bin
cstatus "check-sorted-C" 0 "" $K -C sorted.bin
cstatus "check-empty" 0 "" $K -c empty.bin
n=$("$REF" $K -c < ab.bin)
cstatus "check-unsorted" 1 "gpusort: ab.bin: record $n: disorder" $K -c ab.bin
cstatus "check-unsorted-C" 1 "" $K -C ab.bin
cstatus "check-unsorted-quiet" 1 "" $K --check=quiet ab.bin
cstatus "check-unsorted-silent" 1 "" $K --check=silent ab.bin
cstatus "check-unsorted-diagnose-first" 1 "gpusort: ab.bin: record $n: disorder" $K --check=diagnose-first ab.bin
cstatus "check-unsorted-long" 1 "gpusort: ab.bin: record $n: disorder" $K --check ab.bin
printf '\001\002\003\002\005' > c5.bin
cstatus "check-crafted" 1 "gpusort: c5.bin: record 4: disorder" -k u8 -c c5.bin
CIN=c5.bin
cstatus "check-stdin" 1 "gpusort: -: record 4: disorder" -k u8 -c
cstatus "check-stdin-dash" 1 "gpusort: -: record 4: disorder" -k u8 -c -
CIN=/dev/null
printf '\005\003\002\002\001' > c5r.bin
cstatus "check-reverse-sorted" 0 "" -k u8 -r -c c5r.bin
cstatus "check-reverse-:r-sorted" 0 "" -k u8:r -c c5r.bin
cstatus "check-reverse-dup-u" 1 "gpusort: c5r.bin: record 4: disorder" -k u8 -r -u -c c5r.bin
cstatus "check-dup-without-u" 0 "" $K -c sorted.bin
n=$("$REF" $K -u -c < sorted.bin)
cstatus "check-dup-with-u" 1 "gpusort: sorted.bin: record $n: disorder" $K -u -c sorted.bin
cstatus "check-dup-with-u-C" 1 "" $K -u -C sorted.bin
"$REF" $K -u < ab.bin > usorted.bin
cstatus "check-strict-with-u" 0 "" $K -u -c usorted.bin
# disorder only at the very end of a large input (after many buffers)
gen -n 300000 --record-size 16 -k u64@0 --dist sorted --seed 120 -o cs.bin
"$REF" --record-size 16 -k u64@0 < cs.bin > cs2.bin
cstatus "check-large-sorted" 0 "" --record-size 16 -k u64@0 -c cs2.bin
head -c 16 cs2.bin > first.bin
cat cs2.bin first.bin > cs3.bin
n=$("$REF" --record-size 16 -k u64@0 -c < cs3.bin)
cstatus "check-large-disorder-at-end" 1 "gpusort: cs3.bin: record $n: disorder" --record-size 16 -k u64@0 -c cs3.bin
# floats: -0.0 then +0.0 is sorted, +0.0 then -0.0 is not
printf '\000\000\000\200\000\000\000\000' > cz.bin
cstatus "check-float-zeros-sorted" 0 "" -k f32 -c cz.bin
printf '\000\000\000\000\000\000\000\200' > cz.bin
cstatus "check-float-zeros-disorder" 1 "gpusort: cz.bin: record 2: disorder" -k f32 -c cz.bin
gen -n 3000 -k f64 --specials --seed 121 -o cf.bin
"$REF" -k f64 < cf.bin > cf2.bin
cstatus "check-float-specials-sorted" 0 "" -k f64 -c cf2.bin
n=$("$REF" -k f64 -c < cf.bin)
cstatus "check-float-specials-unsorted" 1 "gpusort: cf.bin: record $n: disorder" -k f64 -c cf.bin
# A regular file is checked through a mapping on every thread, in pieces of
# 1 MiB taken in order: the first record out of order must be the one
# reported (refsort's) when later pieces hold others too, when it is the
# first of a piece (its pair spans two), and on each way neighbours are
# compared (native 4- and 8-byte keys, descending and floats; covering
# keys as one word; keys_compare); a pipe of the same bytes too.
# overwrite FILE RECSIZE INDEX: record INDEX (0-based) := record 0 (the least)
overwrite() {
	dd if="$1" of="$1" bs="$2" count=1 seek="$3" conv=notrunc 2>/dev/null
}
for spec in "u32:4" "i32:4" "f32:4" "u64:8" "u32:r:4" "f64:r:8" "u32@0 -k u32@4:8" "u64@0 -k u32@8:16" "bytes10@2:12"; do
	rs=${spec##*:} ks=${spec%:*}
	lay="--record-size $rs -k $ks"
	nm=$(printf '%s' "$spec" | tr ' @:' '_..')
	n=$((3 * 1048576 / rs))
	# shellcheck disable=SC2086
	gen -n $n $lay --seed 140 -o cm.bin && "$REF" $lay < cm.bin > cms.bin || continue
	cstatus "check-mapped-$nm-sorted" 0 "" $lay --parallel=4 -c cms.bin
	# equal neighbours: in order, out of order under -u
	cp cms.bin cmu.bin
	dd if=cms.bin of=cmu.bin bs="$rs" count=1 skip=$((n / 2)) seek=$((n / 2 + 1)) conv=notrunc 2>/dev/null
	"$REF" $lay < cmu.bin > cmu2.bin
	cstatus "check-mapped-$nm-tie" 0 "" $lay --parallel=4 -c cmu2.bin
	want=$("$REF" $lay -u -c < cmu2.bin)
	cstatus "check-mapped-$nm-tie-u" 1 "gpusort: cmu2.bin: record $want: disorder" $lay -u --parallel=4 -c cmu2.bin
	# two records out of order, the first in the second piece, the other in the third
	cp cms.bin cmd.bin
	overwrite cmd.bin "$rs" $((n * 2 / 5))
	overwrite cmd.bin "$rs" $((n * 4 / 5))
	want=$("$REF" $lay -c < cmd.bin)
	for par in 1 3 8; do
		cstatus "check-mapped-$nm-two-p$par" 1 "gpusort: cmd.bin: record $want: disorder" $lay --parallel=$par -c cmd.bin
	done
	# shellcheck disable=SC2086
	cat cmd.bin | gsrun $lay -c - > c.out 2> c.err
	_crc=$?
	if [ $_crc = 1 ] && [ "$(cat c.err)" = "gpusort: -: record $want: disorder" ]; then
		pass "check-mapped-$nm-two-pipe"
	else
		fail "check-mapped-$nm-two-pipe" "exit status $_crc, stderr '$(tr '\n' '|' < c.err)', want 1 and record $want"
	fi
	# the first record of a piece out of order: its pair spans two pieces
	cp cms.bin cmb.bin
	overwrite cmb.bin "$rs" $((1048576 / rs))
	want=$("$REF" $lay -c < cmb.bin)
	cstatus "check-mapped-$nm-boundary" 1 "gpusort: cmb.bin: record $want: disorder" $lay --parallel=4 -c cmb.bin
done
# A pipe is read in buffers of 8 MiB and one record (2097153 4-byte records,
# 699051 12-byte ones): the first record of the second buffer out of order
# is compared with the last of the first
for spec in "u32:4" "bytes10@2:12"; do
	rs=${spec##*:} ks=${spec%:*} lay="--record-size ${spec##*:} -k ${spec%:*}"
	nm=$(printf '%s' "$spec" | tr ' @:' '_..')
	per=$((8388608 / rs + 1))
	# shellcheck disable=SC2086
	gen -n $((per * 5 / 4)) $lay --seed 141 -o cm.bin && "$REF" $lay < cm.bin > cms.bin || continue
	overwrite cms.bin "$rs" "$per"
	want=$("$REF" $lay -c < cms.bin)
	# shellcheck disable=SC2086
	cat cms.bin | gsrun $lay -c > c.out 2> c.err
	_crc=$?
	if [ $_crc = 1 ] && [ "$(cat c.err)" = "gpusort: -: record $want: disorder" ] && [ "$want" = $((per + 1)) ]; then
		pass "check-pipe-$nm-buffer-boundary"
	else
		fail "check-pipe-$nm-buffer-boundary" "exit status $_crc, stderr '$(tr '\n' '|' < c.err)', want 1 and record $want ($((per + 1)))"
	fi
	# out of order in the first buffer, the second one's read in flight
	"$REF" $lay < cm.bin > cms.bin
	overwrite cms.bin "$rs" 1000
	want=$("$REF" $lay -c < cms.bin)
	# shellcheck disable=SC2086
	cat cms.bin cms.bin | gsrun $lay -c > c.out 2> c.err
	_crc=$?
	if [ $_crc = 1 ] && [ "$(cat c.err)" = "gpusort: -: record $want: disorder" ]; then
		pass "check-pipe-$nm-first-buffer"
	else
		fail "check-pipe-$nm-first-buffer" "exit status $_crc, stderr '$(tr '\n' '|' < c.err)', want 1 and record $want"
	fi
done
# A slow producer: its records arrive in pieces that end inside a record,
# 0.2 s apart, and each read hands back what came (IO_JOB_READ_ARRIVED):
# the part of a record is carried to the next window. Sorted, and out of
# order at record 26 and 27, against refsort -c; and a disorder is reported
# while the producer still runs (exit 1 long before it ends)
slow_feed() { # FILE: its bytes in pieces of 7, 30, 31, 39, 33 and the rest
	_o=0
	for _l in 7 30 31 39 33; do
		dd if="$1" bs=1 skip=$_o count=$_l 2>/dev/null
		_o=$((_o + _l))
		sleep 0.2
	done
	dd if="$1" bs=1 skip=$_o 2>/dev/null
}
for spec in "u32:4" "bytes10@2:12"; do
	rs=${spec##*:} lay="--record-size ${spec##*:} -k ${spec%:*}"
	nm=$(printf '%s' "$spec" | tr ' @:' '_..')
	# shellcheck disable=SC2086
	gen -n 40 $lay --seed 142 -o cm.bin && "$REF" $lay < cm.bin > cms.bin || continue
	# shellcheck disable=SC2086
	slow_feed cms.bin | gsrun $lay -c > c.out 2> c.err
	_crc=$?
	if [ $_crc = 0 ] && [ ! -s c.err ]; then pass "check-pipe-$nm-slow-sorted"
	else fail "check-pipe-$nm-slow-sorted" "exit status $_crc, stderr '$(tr '\n' '|' < c.err)'"; fi
	overwrite cms.bin "$rs" 25
	want=$("$REF" $lay -c < cms.bin)
	# shellcheck disable=SC2086
	slow_feed cms.bin | gsrun $lay -c > c.out 2> c.err
	_crc=$?
	if [ $_crc = 1 ] && [ "$(cat c.err)" = "gpusort: -: record $want: disorder" ]; then pass "check-pipe-$nm-slow-disorder"
	else fail "check-pipe-$nm-slow-disorder" "exit status $_crc, stderr '$(tr '\n' '|' < c.err)', want record $want"; fi
	_t0=$(date +%s)
	# shellcheck disable=SC2086
	{ cat cms.bin; sleep 4; } | { gsrun $lay -c > c.out 2> c.err; echo $? > c.rc; date +%s > c.t1; }
	if [ "$(cat c.rc)" = 1 ] && [ $(($(cat c.t1) - _t0)) -lt 3 ] && [ "$(cat c.err)" = "gpusort: -: record $want: disorder" ]; then
		pass "check-pipe-$nm-early"
	else fail "check-pipe-$nm-early" "exit $(cat c.rc) after $(($(cat c.t1) - _t0)) s: $(tr '\n' '|' < c.err)"; fi
done
rm -f c.rc c.t1
rm -f cm.bin cms.bin cmu.bin cmu2.bin cmd.bin cmb.bin

CIN=h1.bin
errcase "check-bad-size" "--record-size 16 -k u32 -c" h1.bin
[ $? = 0 ] && pass "check-bad-size"
CIN=/dev/null

# ---------------------------------------------------------------------------
# 8. -m

for f in 1 2 3; do
	gen -n $((1000 * f)) --record-size 16 -k u32@0 --dist fewunique --seed $((130 + f)) -o m$f.raw
	"$REF" $K < m$f.raw > m$f.bin
	"$REF" $K -r < m$f.raw > m${f}r.bin
done
cat m1.bin m2.bin m3.bin | "$REF" $K > mexp.bin
gsrun $K -m m1.bin m2.bin m3.bin > got.bin 2> gs.err
check_ok "merge-3" $? got.bin mexp.bin gs.err
cat m3.bin m1.bin m2.bin | "$REF" $K > mexp2.bin
gsrun $K -m m3.bin m1.bin m2.bin > got.bin 2> gs.err
check_ok "merge-3-other-order" $? got.bin mexp2.bin gs.err
gsrun $K -m m1.bin m2.bin m3.bin -S 64K -T t1 > got.bin 2> gs.err
check_ok "merge-3-S64K" $? got.bin mexp.bin gs.err
gsrun $K -m m1.bin m2.bin m3.bin -T t1 --batch-size=2 > got.bin 2> gs.err
check_ok "merge-3-batch-size-2" $? got.bin mexp.bin gs.err
gsrun $K -m m1.bin - m3.bin < m2.bin > got.bin 2> gs.err
check_ok "merge-stdin" $? got.bin mexp.bin gs.err
gsrun $K -m m1.bin empty.bin m2.bin m3.bin -o mout.bin 2> gs.err
check_ok "merge-empty-and-o" $? mout.bin mexp.bin gs.err
cat m1r.bin m2r.bin m3r.bin | "$REF" $K -r > mexpr.bin
gsrun $K -r -m m1r.bin m2r.bin m3r.bin > got.bin 2> gs.err
check_ok "merge-reverse" $? got.bin mexpr.bin gs.err
cat m1.bin m2.bin m3.bin | "$REF" $K -u > mexpu.bin
gsrun $K -u -m m1.bin m2.bin m3.bin > got.bin 2> gs.err
check_ok "merge-unique" $? got.bin mexpu.bin gs.err
gsrun $K -m m2.bin > got.bin 2> gs.err
check_ok "merge-one-file" $? got.bin m2.bin gs.err
cp m1.bin mio.bin
cat mio.bin m2.bin m3.bin | "$REF" $K > mexp3.bin
gsrun $K -m mio.bin m2.bin m3.bin -o mio.bin 2> gs.err
check_ok "merge-output-is-input" $? mio.bin mexp3.bin gs.err
# regular inputs are mapped and merged from the page cache; one that is
# also the output (opened onto it: written in place) is read instead
cp m1.bin mio.bin
gsrun $K -m mio.bin m2.bin m3.bin 2> gs.err 1<> mio.bin
check_ok "merge-output-is-input-in-place" $? mio.bin mexp3.bin gs.err
# larger mapped inputs on several threads: interleaved, disjoint (the
# sorted whole cut in four), with -u, and a pipe among them (read)
gen -n 1200000 --record-size 12 -k u64@4 --dist fewunique --seed 139 -o ml.raw
"$REF" --record-size 12 -k u64@4 < ml.raw > ml.exp
"$REF" --record-size 12 -k u64@4 -u < ml.raw > ml.expu
split -n 4 ml.raw ml.part. && for p in ml.part.*; do "$REF" --record-size 12 -k u64@4 < "$p" > "$p.s"; done
split -n 4 ml.exp ml.cut.
for par in 1 4; do
	gsrun --record-size 12 -k u64@4 --parallel=$par -m ml.part.aa.s ml.part.ab.s ml.part.ac.s ml.part.ad.s > got.bin 2> gs.err
	check_ok "merge-mapped-interleaved-p$par" $? got.bin ml.exp gs.err
	gsrun --record-size 12 -k u64@4 --parallel=$par -m ml.cut.aa ml.cut.ab ml.cut.ac ml.cut.ad > got.bin 2> gs.err
	check_ok "merge-mapped-disjoint-p$par" $? got.bin ml.exp gs.err
	gsrun --record-size 12 -k u64@4 --parallel=$par -u -m ml.part.aa.s ml.part.ab.s ml.part.ac.s ml.part.ad.s > got.bin 2> gs.err
	check_ok "merge-mapped-unique-p$par" $? got.bin ml.expu gs.err
	cat ml.part.ab.s | gsrun --record-size 12 -k u64@4 --parallel=$par -m ml.part.aa.s - ml.part.ac.s ml.part.ad.s > got.bin 2> gs.err
	check_ok "merge-mapped-and-pipe-p$par" $? got.bin ml.exp gs.err
done
rm -f ml.raw ml.exp ml.expu ml.part.* ml.cut.*
# Random layouts merged (-m) and checked (-c): 2-4 inputs of 0-1999
# records, each sorted by refsort, merged against refsort of their
# concatenation (ties in file order); -c of that output passes, and of it
# with two neighbours swapped names the record refsort -c names
i=0
while [ $i -lt "${CLI_LAYOUTS:-30}" ]; do
	i=$((i + 1))
	rand_layout 24 2
	rnd 4; rf=; uf=; [ $R = 0 ] && rf=-r; [ $R = 1 ] && uf=-u; [ $R = 2 ] && { rf=-r; uf=-u; }
	rnd 3; nin=$((R + 2))
	name="merge-layout-$i[rs$rs$desc$rf$uf,$nin inputs]"
	j=0 rlfiles=
	: > rlcat.bin
	while [ $j -lt $nin ]; do
		j=$((j + 1))
		rnd 2000; n=$R
		rnd 9; d=$(echo $dists | cut -d' ' -f$((R + 1)))
		"$GEN" -n $n --record-size $rs $gkeys --dist $d --seed $((i * 10 + j)) -o rl.raw 2>/dev/null ||
			gen -n $n --record-size $rs --seed $((i * 10 + j)) -o rl.raw || break
		"$REF" --record-size $rs $keys $rf < rl.raw > rl$j.bin && cat rl$j.bin >> rlcat.bin || break
		rlfiles="$rlfiles rl$j.bin"
	done
	[ $j = $nin ] && "$REF" --record-size $rs $keys $rf $uf < rlcat.bin > rlexp.bin || { fail "$name" "inputs or refsort failed"; continue; }
	gsrun --record-size $rs $keys $rf $uf -m $rlfiles > got.bin 2> gs.err
	check_ok "$name" $? got.bin rlexp.bin gs.err
	gsrun --record-size $rs $keys $rf $uf -c rlexp.bin 2> gs.err
	rc=$?
	[ $rc = 0 ] && pass "$name-c" || fail "$name-c" "exit $rc on the merged output: $(first gs.err)"
	nrec=$(( $(wc -c < rlexp.bin) / rs ))
	[ $nrec -ge 2 ] || continue
	rnd $((nrec - 1)); p=$R
	{ dd if=rlexp.bin bs=$rs count=$p; dd if=rlexp.bin bs=$rs skip=$((p + 1)) count=1
	  dd if=rlexp.bin bs=$rs skip=$p count=1; dd if=rlexp.bin bs=$rs skip=$((p + 2)); } 2>/dev/null > rlsw.bin
	want=$("$REF" --record-size $rs $keys $rf $uf -c < rlsw.bin)
	gsrun --record-size $rs $keys $rf $uf -c rlsw.bin 2> gs.err
	rc=$?
	if [ "$want" = 0 ]; then
		[ $rc = 0 ] && pass "$name-c-swap" || fail "$name-c-swap" "exit $rc on equal keys swapped: $(first gs.err)"
	elif [ $rc = 1 ] && grep -q "record $want: disorder" gs.err; then
		pass "$name-c-swap"
	else
		fail "$name-c-swap" "exit $rc, want 1 at record $want: $(first gs.err)"
	fi
done
rm -f rl.raw rl[0-9]*.bin rlcat.bin rlexp.bin rlsw.bin
# many inputs, sorted and merged, also under a low limit on open files
i=0 mfiles=
while [ $i -lt 60 ]; do
	i=$((i + 1))
	gen -n $((i * 10)) --record-size 8 -k u16@0 --dist fewunique --seed $((200 + i)) |
		"$REF" --record-size 8 -k u16@0 > mm$i.bin
	mfiles="$mfiles mm$i.bin"
done
cat $mfiles | "$REF" --record-size 8 -k u16@0 > mmexp.bin
gsrun --record-size 8 -k u16@0 -m $mfiles > got.bin 2> gs.err
check_ok "merge-60-files" $? got.bin mmexp.bin gs.err
gsrun --record-size 8 -k u16@0 $mfiles > got.bin 2> gs.err
check_ok "sort-60-files" $? got.bin mmexp.bin gs.err
GS_NOFILE=24
gsrun --record-size 8 -k u16@0 $mfiles > got.bin 2> gs.err
check_ok "sort-60-files-ulimit-n-24" $? got.bin mmexp.bin gs.err
# -m reads its inputs side by side, so it needs one descriptor per input: a
# documented limit (man page, BUGS); it must fail cleanly, naming the cause
gsrun --record-size 8 -k u16@0 -m $mfiles > got.bin 2> gs.err
rc=$?
if [ $rc = 2 ] && [ "$(wc -l < gs.err)" = 1 ] && grep -q "^gpusort: cannot read: mm[0-9]*.bin: Too many open files" gs.err; then
	pass "merge-60-files-ulimit-n-24-clean-error"
else
	fail "merge-60-files-ulimit-n-24-clean-error" "exit $rc: $(tr '\n' '|' < gs.err)"
fi
GS_NOFILE=
isempty t1 && pass "merge-temp-removed" || fail "merge-temp-removed" "left in -T: $(ls -A t1)"

# ---------------------------------------------------------------------------
# 9. Bad input: exit 2, one 'gpusort: ' line, empty stdout, -o untouched

printf '0123456789abcdefX' > bad17.bin
if errcase "bad-size" "--record-size 16 bad17.bin"; then
	want="gpusort: bad17.bin: size 17 is not a multiple of the record size 16 (1 bytes left over)"
	[ "$ERRLINE" = "$want" ] && pass "bad-size" || fail "bad-size" "message '$ERRLINE', want '$want'"
fi
# records' I/O messages are worded and quoted as GNU sort's (and text
# lines') are: an input that cannot be opened, an output that cannot be
# opened or written, each against sort(1)'s message for the same name
like_gnu() { # NAME ARGS...: `gpusort -k u32 ARGS` says what `sort ARGS` says, status 2
	_n=$1
	shift
	LC_ALL=C sort "$@" < /dev/null > /dev/null 2> gnu.err
	gsrun -k u32 "$@" < /dev/null > /dev/null 2> gs.err
	_rc=$?
	if [ $_rc = 2 ] && [ "$(sed 's/^sort: /gpusort: /' gnu.err)" = "$(cat gs.err)" ]; then pass "$_n"
	else fail "$_n" "exit $_rc, said '$(cat gs.err)', GNU sort '$(cat gnu.err)'"; fi
}
like_gnu "gnu-msg-missing" nofile.bin
like_gnu "gnu-msg-missing-space" "no file.bin"
like_gnu "gnu-msg-missing-newline" "$(printf 'no\nfile')"
like_gnu "gnu-msg-output-open" a.bin -o nodir/o.bin
if [ -w /dev/full ]; then
	gsrun -k u32 a.bin > /dev/full 2> gs.err
	rc=$?
	if [ $rc = 2 ] && [ "$(cat gs.err)" = "gpusort: write failed: 'standard output': No space left on device" ]; then
		pass "msg-write-stdout"
	else fail "msg-write-stdout" "exit $rc: $(cat gs.err)"; fi
	# sort(1) says "fflush failed: /dev/full: ...", then "write error"
	gsrun -k u32 a.bin -o /dev/full 2> gs.err
	rc=$?
	if [ $rc = 2 ] && [ "$(cat gs.err)" = "gpusort: write failed: /dev/full: No space left on device" ]; then
		pass "msg-write-output"
	else fail "msg-write-output" "exit $rc: $(cat gs.err)"; fi
else
	skip "msg-write-stdout" "no /dev/full"
	skip "msg-write-output" "no /dev/full"
fi
if errcase "bad-size-second-file" "--record-size 16 -k u32 a.bin bad17.bin"; then
	case $ERRLINE in
	*bad17.bin*17*16*"1 bytes left over"*) pass "bad-size-second-file" ;;
	*) fail "bad-size-second-file" "message: $ERRLINE" ;;
	esac
fi
head -c 100 a.bin > bad100.bin
if errcase "bad-size-stdin" "--record-size 16 -k u32" bad100.bin; then
	case $ERRLINE in
	*"100"*"16"*"4 bytes left over"*) pass "bad-size-stdin" ;;
	*) fail "bad-size-stdin" "message: $ERRLINE" ;;
	esac
fi
errcase "bad-size-default-record-size" "-k u64 bad17.bin" && pass "bad-size-default-record-size"
errcase "bad-size-merge" "--record-size 16 -m a.bin bad17.bin" && pass "bad-size-merge"

e() { errcase "$1" "$2" "$3" && pass "$1"; }
e "key-beyond-record" "-k u64@12 --record-size 16 a.bin"
e "key-beyond-record-bytes" "-k bytes17 --record-size 16 a.bin"
e "key-beyond-record-second" "--record-size 16 -k u64@8 -k u8 a.bin"
e "unknown-type-u31" "-k u31 a.bin"
e "unknown-type-f16" "-k f16 a.bin"
e "unknown-type-u8be" "-k u8be a.bin"
e "unknown-type-u128" "-k u128 a.bin"
e "unknown-type-bytes0" "-k bytes0 a.bin"
e "unknown-type-bytes" "-k bytes a.bin"
e "unknown-type-bytesx" "-k bytesx a.bin"
e "unknown-type-empty" "-k @4 a.bin"
e "bad-offset-letters" "-k u32@x a.bin"
e "bad-offset-empty" "-k u32@ a.bin"
e "bad-offset-negative" "-k u32@-4 a.bin"
e "bad-offset-trailing" "-k u32@4x a.bin"
e "bad-offset-huge" "-k u32@99999999999999999999999 a.bin"
e "bad-key-modifier" "-k u32@0:x a.bin"
e "bad-key-modifier-rr" "-k u32@0:rr a.bin"
e "key-missing-argument" "-k"
# en NAME ARGS WORD: an error whose message names WORD (the file)
en() {
	errcase "$1" "$2" || return
	case $ERRLINE in
	*"$3"*) pass "$1" ;;
	*) fail "$1" "message does not name $3: $ERRLINE" ;;
	esac
}
en "missing-input" "$K nosuchfile.bin" nosuchfile.bin
en "missing-input-after-good" "$K a.bin nosuchfile.bin" nosuchfile.bin
mkdir -p adir
en "directory-input" "$K adir" adir
cp a.bin unreadable.bin
chmod 000 unreadable.bin
if [ $IS_ROOT = 1 ]; then
	skip "unreadable-input" "running as root (root can read it)"
else
	en "unreadable-input" "$K unreadable.bin" unreadable.bin
fi
chmod 644 unreadable.bin
e "unknown-long-option" "$K --frobnicate a.bin"
e "unknown-short-option" "$K -Z a.bin"
e "text-key-with-record-size" "--record-size 4 -k 1,1 a.bin"
e "text-option-with-typed-key" "-k u32 -t, a.bin"
e "record-size-0" "--record-size 0 a.bin"
e "record-size-too-big" "--record-size 1048577 a.bin"
e "record-size-letters" "--record-size abc a.bin"
e "record-size-negative" "--record-size -16 a.bin"
e "record-size-missing" "--record-size"
e "bad-S-letters" "$K -S abc a.bin"
e "bad-S-suffix" "$K -S 10X a.bin"
e "bad-S-negative" "$K -S -5 a.bin"
e "bad-S-empty" "$K --buffer-size= a.bin"
e "bad-S-past-64-bits" "$K -S 1Z a.bin"
[ "$ERRLINE" = "gpusort: -S: size '1Z' is too large" ] || fail "bad-S-past-64-bits-message" "said: $ERRLINE"
e "bad-S-lowercase-p" "$K -S 1p a.bin"
e "bad-S-lowercase-e" "$K -S 1e a.bin"
e "parallel-0" "$K --parallel=0 a.bin"
e "parallel-letters" "$K --parallel=abc a.bin"
e "parallel-past-int" "$K --parallel=99999999999 a.bin"
e "bad-algorithm" "$K --algorithm=nope a.bin"
e "bad-merge-where" "$K --merge-engine=nope a.bin"
e "merge-gpu-with-cpu" "$K --cpu --merge-engine=gpu a.bin"
e "bad-check-argument" "$K --check=loud a.bin"
e "bad-stats-argument" "$K --stats=xml a.bin"
e "device-does-not-exist" "$K --device=99 a.bin"
e "T-dir-missing" "$K -S 64K -T nosuchdir big.bin"
e "bad-size-after-spill" "$K -S 64K -T t1 big.bin bad17.bin"
e "bad-gpu-memory" "$K --gpu-memory=lots a.bin"
# --batch-size: sort(1)'s wording (GNU's own tests match it)
ebs() {
	errcase "$1" "$2" || return
	[ "$ERRLINE" = "$3" ] && pass "$1" || fail "$1" "message '$ERRLINE', want '$3'"
}
# ebs2 NAME ARGS LINE1 LINE2: exit 2, no output, sort(1)'s two lines on stderr
ebs2() {
	# shellcheck disable=SC2086
	gsrun $2 > ebs2.out 2> ebs2.err
	_rc=$?
	_want=$(printf '%s\n%s' "$3" "$4")
	if [ $_rc = 2 ] && [ ! -s ebs2.out ] && [ "$(cat ebs2.err)" = "$_want" ]; then
		pass "$1"
	else
		fail "$1" "status $_rc, message '$(cat ebs2.err)', want '$_want'"
	fi
}
ebs2 "batch-size-1" "$K --batch-size=1 a.bin" "gpusort: invalid --batch-size argument '1'" "gpusort: minimum --batch-size argument is '2'"
ebs2 "batch-size-0" "$K --batch-size=0 a.bin" "gpusort: invalid --batch-size argument '0'" "gpusort: minimum --batch-size argument is '2'"
ebs "batch-size-letters" "$K --batch-size=two a.bin" "gpusort: invalid --batch-size argument 'two'"
ebs "batch-size-empty" "$K --batch-size= a.bin" "gpusort: invalid --batch-size argument ''"
ebs2 "batch-size-too-large" "$K --batch-size=1025 a.bin" "gpusort: --batch-size argument '1025' too large" "gpusort: maximum --batch-size argument with current rlimit is 1024"
e "batch-size-missing" "$K a.bin --batch-size"
e "compress-empty-program" "$K --compress-program= a.bin"
e "compress-two-programs" "$K --compress-program=gzip --compress-program=zstd a.bin"
e "check-missing-file" "$K -c nosuchfile.bin"
e "merge-missing-file" "$K -m a.bin nosuchfile.bin"
isempty t1 && pass "error-temp-removed" || fail "error-temp-removed" "left in -T: $(ls -A t1)"
no_stray_temps "error-no-temp-in-TMPDIR" && pass "error-no-temp-in-TMPDIR"

# ---------------------------------------------------------------------------
# 10. --verify, --stats, --help, --version, other options

gsrun $K --verify ab.bin > got.bin 2> gs.err
rc=$?
if [ $rc != 0 ]; then
	fail "verify" "exit status $rc: $(first gs.err)"
elif ! cmp -s got.bin expab.bin; then
	fail "verify" "output differs from refsort"
elif ! grep 'verify' gs.err | grep -q 'ok'; then
	fail "verify" "no 'verify ... ok' line on stderr: $(tr '\n' '|' < gs.err)"
elif ! grep -q "^gpusort: verify: 8000 records, order ok, multiset ok" gs.err; then
	fail "verify" "verify line not as in the contract: $(grep verify gs.err)"
else
	pass "verify"
fi
gsrun $K --verify -S 64K -T t1 -o vout.bin ab.bin > got.bin 2> gs.err
rc=$?
if [ $rc = 0 ] && cmp -s vout.bin expab.bin && [ ! -s got.bin ] &&
	grep -q "^gpusort: verify: 8000 records, order ok, multiset ok" gs.err; then
	pass "verify-spill-o"
else
	fail "verify-spill-o" "exit status $rc: $(tr '\n' '|' < gs.err)"
fi
gsrun $K -u --verify a.bin > got.bin 2> gs.err
rc=$?
"$REF" $K -u < a.bin > exp.bin
if [ $rc = 0 ] && cmp -s got.bin exp.bin; then pass "verify-unique"
else fail "verify-unique" "exit status $rc: $(tr '\n' '|' < gs.err)"; fi
# --verify must catch what it checks: -m of an input out of order (1 M
# ascending u32, record 600001 made the greatest) fails at record 600002,
# the old output kept; summed on every thread over the mapped output (-o),
# and by the writer's threads into a pipe; under -u a tie is disorder
# to the check, so the tie -u drops must not be reported
"$GEN" -n 1M -k u32 --dist sorted -o vsorted.bin 2>/dev/null
printf '\377\377\377\377' | dd of=vsorted.bin bs=4 seek=600000 conv=notrunc 2>/dev/null
for how in o pipe; do
	printf 'old\n' > vout.bin
	if [ $how = o ]; then
		gsrun -k u32 -m --verify vsorted.bin -o vout.bin 2> gs.err
		rc=$?
	else
		{ gsrun -k u32 -m --verify vsorted.bin 2> gs.err; echo $? > rc.pipe; } | cat > /dev/null
		rc=$(cat rc.pipe)
	fi
	if [ "$rc" = 2 ] && grep -q "^gpusort: verify: FAILED: output record 600002 is out of order" gs.err &&
		[ "$(cat vout.bin)" = old ]; then
		pass "verify-catches-disorder-$how"
	else
		fail "verify-catches-disorder-$how" "exit $rc: $(tr '\n' '|' < gs.err)"
	fi
done
printf '\001\000\000\000\002\000\000\000\002\000\000\000' > vtie.bin
gsrun -k u32 -m -u --verify vtie.bin > got.bin 2> gs.err
rc=$?
if [ $rc = 0 ] && [ "$(od -An -tu4 got.bin | tr -s ' ')" = " 1 2" ]; then pass "verify-unique-tie-dropped"
else fail "verify-unique-tie-dropped" "exit $rc: $(tr '\n' '|' < gs.err)"; fi
rm -f vsorted.bin vtie.bin

gsrun $K --stats ab.bin > got.bin 2> gs.err
rc=$?
if [ $rc != 0 ]; then
	fail "stats" "exit status $rc: $(first gs.err)"
elif ! cmp -s got.bin expab.bin; then
	fail "stats" "stdout is not the sorted data"
elif ! grep -q read gs.err || ! grep -q sort gs.err || ! grep -q write gs.err; then
	fail "stats" "stderr lacks read/sort/write stage times: $(tr '\n' '|' < gs.err)"
else
	pass "stats"
fi
# an input of less than 64 KiB is sorted on one thread, unless --parallel says how many
"$GEN" -n 1000 -k u64 -o st1.bin 2>/dev/null && "$REF" -k u64 < st1.bin > st1.exp
for p in "" 3; do
	gsrun -k u64 ${p:+--parallel $p} --stats st1.bin > got.bin 2> gs.err
	rc=$?
	if [ $rc = 0 ] && cmp -s got.bin st1.exp && grep -q "^gpusort: stats: 1000 records of 8 bytes .*, ${p:-1} threads$" gs.err; then
		pass "small-input-threads${p:+-parallel-$p}"
	else
		fail "small-input-threads${p:+-parallel-$p}" "exit $rc, want ${p:-1} threads: $(first gs.err)"
	fi
done
rm -f st1.bin st1.exp
gsrun $K --stats=text -S 64K -T t1 ab.bin > got.bin 2> gs.err
rc=$?
if [ $rc = 0 ] && cmp -s got.bin expab.bin && grep -q merge gs.err; then pass "stats-text-spill"
else fail "stats-text-spill" "exit status $rc, or no merge stage: $(tr '\n' '|' < gs.err)"; fi
# the registered-buffers line: yes (or no io_uring here), and why not when off
gsrun $K --stats -S 64K -T t1 -o fx.bin ab.bin 2> gs.err
rc=$?
if [ $rc = 0 ] && cmp -s fx.bin expab.bin &&
	grep -Eq '^gpusort: stats: I/O buffers registered with io_uring: (yes|no \(io_uring unavailable\))' gs.err
then pass "stats-fixed-buffers"
else fail "stats-fixed-buffers" "exit status $rc: $(grep registered gs.err)"; fi
(GPUSORT_FIXED=0; export GPUSORT_FIXED; gstrun $K --stats -S 64K -T t1 -o fx.bin ab.bin) 2> gs.err
rc=$?
if [ $rc = 0 ] && cmp -s fx.bin expab.bin &&
	grep -Eq '^gpusort: stats: I/O buffers registered with io_uring: no \((disabled by GPUSORT_FIXED=0|io_uring unavailable)\)' gs.err
then pass "stats-fixed-buffers-off"
else fail "stats-fixed-buffers-off" "exit status $rc: $(grep registered gs.err)"; fi
rm -f fx.bin
gsrun $K --stats=json ab.bin > got.bin 2> gs.err
rc=$?
if [ $HAVE_PY = 0 ]; then
	skip "stats-json" "no python3 to check the JSON"
elif [ $rc != 0 ]; then
	fail "stats-json" "exit status $rc: $(first gs.err)"
elif ! cmp -s got.bin expab.bin; then
	fail "stats-json" "stdout is not the sorted data"
elif ! python3 -m json.tool < gs.err > /dev/null 2> json.err; then
	fail "stats-json" "stderr is not valid JSON: $(first json.err): $(head -c 200 gs.err | tr '\n' ' ')"
elif ! python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(d["fixed_buffers"] not in ("yes", "no", "partly") or d["io_fixed_bytes"] > d["io_bytes"])' < gs.err; then
	fail "stats-json" "no fixed_buffers / io_bytes fields: $(head -c 300 gs.err)"
else
	pass "stats-json"
fi
# the plan in --stats=json: a spilling sort under -S 64K is chunked, its
# shares within -S, its runs and passes those the text stats report
gsrun $K --stats=json -S 64K -T t1 ab.bin > got.bin 2> gs.err
rc=$?
if [ $HAVE_PY = 0 ]; then
	skip "stats-json-plan" "no python3 to check the JSON"
elif [ $rc != 0 ] || ! cmp -s got.bin expab.bin; then
	fail "stats-json-plan" "exit status $rc, or stdout is not the sorted data: $(first gs.err)"
elif ! python3 -c '
import json, sys
d = json.load(sys.stdin); p = d["plan"]
host = p["share_buffers"] + p["share_scratch"] + p["share_staging"] + p["share_kept"]
ok = (p["path"] == "chunked" and not p["single"] and host <= 64 * 1024 and p["chunk_records"] == d["chunk_records"]
      and p["runs"] == d["runs"] and p["merge_passes"] == d["merge_passes"] and p["merge_fanin"] >= 2)
sys.exit(0 if ok else 1)' < gs.err; then
	fail "stats-json-plan" "plan disagrees with -S 64K or the run: $(tr -d '\n' < gs.err | sed 's/.*"plan"/"plan"/' | head -c 400)"
else
	pass "stats-json-plan"
fi
gsrun --help > help.out 2> gs.err
rc=$?
[ $rc = 0 ] && grep -q -- '-k' help.out && pass "help" || fail "help" "exit status $rc, or stdout does not mention -k"
# --version in the GNU format (coreutils' version_etc), on stdout only
gsrun --version > version.out 2> gs.err
rc=$?
if [ $rc != 0 ] || [ -s gs.err ]; then
	fail "version" "exit status $rc, stderr: $(first gs.err)"
elif ! sed -n 1p version.out | grep -Eq '^gpusort [0-9]+\.[0-9]+\.[0-9]+$'; then
	fail "version" "first line is not 'gpusort VERSION': $(sed -n 1p version.out)"
elif ! sed -n 2p version.out | grep -Eq '^Copyright \(C\) [0-9]{4} the gpusort authors\.$'; then
	fail "version" "second line is not the copyright: $(sed -n 2p version.out)"
elif [ "$(sed -n 3p version.out)" != "License MIT: see the LICENSE file that comes with gpusort." ]; then
	fail "version" "third line is not the licence: $(sed -n 3p version.out)"
elif [ "$(sed -n 4p version.out)" != "This is free software: you are free to change and redistribute it." ] ||
	[ "$(sed -n 5p version.out)" != "There is NO WARRANTY, to the extent permitted by law." ] ||
	[ "$(nlines version.out)" != 5 ]; then
	fail "version" "lines 4-5 are not GNU's free software and warranty lines: $(tr '\n' '|' < version.out)"
elif [ ! -f "$ROOT/LICENSE" ] || ! grep -q '^MIT License' "$ROOT/LICENSE"; then
	fail "version" "no MIT LICENSE file at the repository root"
else
	pass "version"
fi

sortcase "progress" ab.bin "$K" "--progress"
# --progress off a terminal (a file here), every line drawn (the test build's
# GPUSORT_PROGRESS_INTERVAL=0): a spilled sort in several merge passes shows
# each phase with its bytes rising, each pass's 100% line, and a done line
(GPUSORT_PROGRESS_INTERVAL=0; export GPUSORT_PROGRESS_INTERVAL
gstrun --record-size 16 -k u64@8 -S 64K -T t1 --progress -o prog.bin big.bin) 2> prog.err
rc=$?
"$REF" --record-size 16 -k u64@8 < big.bin > exp.bin
why=$(awk '
	!/^gpusort: / { print "not a gpusort line: " $0; exit }
	{ ph = $0; sub(/^gpusort: /, "", ph); sub(/: .*/, "", ph) }
	ph != last { if (seen[ph]++) { print "phase " ph " again"; exit } last = ph; prev = -1 }
	ph != "done" {
		b = $0; sub(/^[^:]*: [^:]*: /, "", b); sub(/ of .*/, "", b); sub(/,.*/, "", b)
		split(b, f, " "); u = f[2] == "KiB" ? 1024 : f[2] == "MiB" ? 1048576 : 1; v = f[1] * u
		if (v < prev) { print "bytes went down: " $0; exit } prev = v
	}
	/^gpusort: merge pass [0-9]+ of [0-9]+: .* \(100%\)/ { full++ }
	{ lastline = $0 }
	END { if (!seen["sort"]) print "no sort phase"
		else if (!seen["merge pass 1 of " np()]) print "no merge pass 1"
		else if (full < 2) print "fewer than two merge passes reached 100%"
		else if (lastline !~ /^gpusort: done: 3\.1 MiB in [0-9.]+ s, [0-9.]+ MB\/s$/) print "last line: " lastline }
	function np(  k) { for (k in seen) if (k ~ /^merge pass 1 of /) { sub(/^merge pass 1 of /, "", k); return k } return "?" }
' prog.err)
if [ $rc != 0 ] || ! cmp -s prog.bin exp.bin; then fail "progress-lines" "exit status $rc, or wrong output: $(first prog.err)"
elif [ -n "$why" ]; then fail "progress-lines" "$why"
else pass "progress-lines"; fi
# the default interval (5 s off a terminal): a short sort prints each phase's
# final line once, then done; without --progress, nothing
gsrun --record-size 16 -k u64@8 -S 64K -T t1 --progress -o prog.bin big.bin 2> prog.err
rc=$?
if [ $rc = 0 ] && [ "$(sed 's/^gpusort: //; s/: .*//' prog.err | sort | uniq -d)" = "" ] &&
	grep -Eq '^gpusort: merge pass 1 of [0-9]+: ([0-9.]+ [KM]iB) of \1 \(100%\)' prog.err &&
	[ "$(tail -n 1 prog.err | cut -c1-15)" = "gpusort: done: " ]; then pass "progress-phase-lines"
else fail "progress-phase-lines" "status $rc: $(tr '\n' '|' < prog.err)"; fi
gsrun --record-size 16 -k u64@8 -S 64K -T t1 -o prog.bin big.bin 2> prog.err
rc=$?
[ $rc = 0 ] && [ ! -s prog.err ] && pass "progress-off-is-silent" || fail "progress-off-is-silent" "status $rc: $(first prog.err)"
# on a terminal (script(1) gives one): one line redrawn in place, erased to
# its end, and one newline at the end
esc=$(printf '\033')
if ! command -v script > /dev/null 2>&1; then
	skip "progress-terminal" "no script(1) here (tests/test_progress.c checks the terminal form)"
else
	script -qc "$GS --record-size 16 -k u64@8 -S 64K -T t1 --progress -o prog.bin big.bin" /dev/null < /dev/null > prog.tty 2>&1
	rc=$?
	# script turns the one newline into \r\n
	if [ $rc = 0 ] && grep -q "${esc}\[K" prog.tty && [ "$(tr -cd '\n' < prog.tty | wc -c)" = 1 ] &&
		tr '\r' '\n' < prog.tty | grep -q '^gpusort: done: 3\.1 MiB' && cmp -s prog.bin exp.bin; then
		pass "progress-terminal"
	else
		fail "progress-terminal" "status $rc: $(od -c prog.tty | head -n 3 | tr '\n' ' ')"
	fi
fi
rm -f prog.bin prog.err prog.tty
sortcase "gpu-memory-budget" big.bin "--record-size 16 -k u64@8" "--gpu-memory=1M"
sortcase "stable-flag" ab.bin "$K" "-s"
sortcase "cpu-flag" ab.bin "$K" "--cpu"
sortcase "algorithm-cpu" ab.bin "$K" "--algorithm=cpu"
sortcase "algorithm-auto" ab.bin "$K" "--algorithm=auto"
sortcase "merge-cpu" big.bin "--record-size 16 -k u64@8" "--merge-engine=cpu -S 64K -T t1"
sortcase "merge-auto" big.bin "--record-size 16 -k u64@8" "--merge-engine=auto -S 64K -T t1"
for p in 1 2 3 64; do
	sortcase "parallel-$p" big.bin "--record-size 16 -k u64@8" "--parallel=$p"
	sortcase "parallel-$p-spill" big.bin "--record-size 16 -k u64@8" "--parallel=$p -S 64K -T t1"
done
sortcase "parallel-5000-is-1024" big.bin "--record-size 16 -k u64@8" "--parallel=5000"
sortcase "long-options" u.bin "--record-size=2 --unique --reverse" "--stable"
sortcase "key-equals-form" ab.bin "--record-size 16 --key=u32@0 --key=u8@15:r"
gsrun --cpu $K a.bin > got.bin 2> gs.err
rc=$?
[ $rc = 0 ] && [ ! -s gs.err ] && pass "cpu-success-is-silent" || fail "cpu-success-is-silent" "exit status $rc, stderr: $(tr '\n' '|' < gs.err)"
isempty t1 && pass "options-temp-removed" || fail "options-temp-removed" "left in -T: $(ls -A t1)"

# ---------------------------------------------------------------------------
# 11/12. Larger input: signals while spilling, then a 64 MiB sort

if [ "${CLI_QUICK:-0}" = 1 ]; then
	skip "signals" "CLI_QUICK=1"
	skip "large-64MiB" "CLI_QUICK=1"
else
	: > large.want
fi

[ -e large.want ] && gen -n 16777216 -k u32 --seed 140 -o large.bin

# sigcase NAME SIGNAL PRE-EXISTING-OUTPUT(0|1) DELAY-SECONDS
sigcase() {
	_gn=$1 _gs=$2
	rm -rf sigT sigO && mkdir sigT sigO
	[ "$3" = 1 ] && printf 'precious\n' > sigO/out.bin
	if [ $HAVE_SIGDFL = 0 ] && [ "$_gs" = INT ]; then
		skip "$_gn" "no way to start a background job with SIGINT not ignored"
		return
	fi
	sigdfl_exec "$GS" -k u32 -S 64K --parallel=1 -T sigT -o sigO/out.bin large.bin 2> sig.err &
	_gp=$!
	# spill files may be unlinked at once (invisible): wait a fixed time, in
	# the middle of a sort that takes several seconds
	sleep "$4"
	if ! kill -s "$_gs" $_gp 2>/dev/null; then
		wait $_gp
		skip "$_gn" "the sort ended before the signal (status $?)"
		return
	fi
	_w=0
	while [ $_w -lt 100 ] && kill -0 $_gp 2>/dev/null; do
		sleep 0.1
		_w=$((_w + 1))
	done
	if kill -0 $_gp 2>/dev/null; then
		kill -s KILL $_gp
		wait $_gp
		fail "$_gn" "still running 10 s after SIG$_gs"
		return
	fi
	wait $_gp
	_grc=$?
	if [ $_grc = 0 ]; then
		# it may have finished between the check and the signal
		skip "$_gn" "exited 0: the signal came too late"
	elif ! isempty sigT; then
		fail "$_gn" "temp files left in -T dir: $(ls -A sigT | tr '\n' ' ')"
	elif [ "$3" = 1 ] && [ "$(head -c 9 sigO/out.bin)" != precious ] &&
		"$REF" -k u32 < large.bin | cmp -s - sigO/out.bin; then
		# the signal came after the output was committed (a loaded machine)
		skip "$_gn" "the output was committed before the signal (status $_grc)"
	elif [ "$3" = 1 ] && [ "$(cat sigO/out.bin)" != precious ]; then
		fail "$_gn" "existing output changed"
	elif [ "$3" = 1 ] && [ "$(ls -A sigO)" != out.bin ]; then
		fail "$_gn" "files beside the output: $(ls -A sigO | tr '\n' ' ')"
	elif [ "$3" = 0 ] && ! isempty sigO; then
		fail "$_gn" "output or temp files created: $(ls -A sigO | tr '\n' ' ')"
	else
		pass "$_gn"
	fi
}
if [ -s large.bin ]; then
	# the signals' times as parts of the whole sort's on this machine (a
	# fixed 2.5 s came after the end once the merge got faster): its runs
	# are formed in about the first eighth, its merge passes fill the rest
	rm -rf sigT && mkdir sigT
	_t0=$(date +%s.%N)
	"$GS" -k u32 -S 64K --parallel=1 -T sigT -o sig.full large.bin 2> sig.err
	_t=$(awk -v a="$_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	rm -f sig.full
	sigcase "signal-INT" INT 0 "$(awk -v t="$_t" 'BEGIN { printf "%.2f", t * 0.3 }')"
	sigcase "signal-TERM-existing-output" TERM 1 "$(awk -v t="$_t" 'BEGIN { printf "%.2f", t * 0.3 }')"
	sigcase "signal-INT-existing-output-later" INT 1 "$(awk -v t="$_t" 'BEGIN { printf "%.2f", t * 0.7 }')"
	sigcase "signal-TERM-early" TERM 0 0.2
	no_stray_temps "signal-no-temp-in-TMPDIR" && pass "signal-no-temp-in-TMPDIR"

	mkdir -p bigT
	"$REF" -k u32 < large.bin > large.exp
	gsrun -k u32 -S 4M -T bigT --verify large.bin -o large.out 2> gs.err
	rc=$?
	if [ $rc != 0 ]; then
		fail "large-64MiB" "exit status $rc: $(first gs.err)"
	elif ! cmp -s large.out large.exp; then
		fail "large-64MiB" "output differs from refsort: $(cmp large.out large.exp 2>&1 | head -n1)"
	elif ! grep -q "^gpusort: verify: 16777216 records, order ok, multiset ok" gs.err; then
		fail "large-64MiB" "no verify line: $(tr '\n' '|' < gs.err)"
	elif ! isempty bigT; then
		fail "large-64MiB" "temp files left: $(ls -A bigT)"
	else
		pass "large-64MiB"
	fi
	rm -f large.out
	cstatus "large-64MiB-check" 0 "" -k u32 -c large.exp
	# the same through pipes at both ends
	cat large.bin | { gsrun -k u32 -S 4M -T bigT 2> gs.err; echo $? > pipe.rc; } | cat > large.out
	check_ok "large-64MiB-pipes" "$(cat pipe.rc)" large.out large.exp gs.err
	rm -f large.out large.exp
fi

# --verify through a spilled merge with records that do not divide the I/O
# block (100 bytes): the writer cuts at whole records, the carried tail is large
gen -n 60000 --record-size 100 -k bytes10 --seed 5 -o v100.bin
for S in 1M 3M; do
	sortcase "verify-merge-rs100-S$S" v100.bin "--record-size 100 -k bytes10" "--verify -S $S -T t1"
	grep -q "^gpusort: verify: 60000 records, order ok, multiset ok" gs.err && pass "verify-merge-rs100-S$S-line" ||
		fail "verify-merge-rs100-S$S-line" "$(tr '\n' '|' < gs.err)"
done
rm -f v100.bin

# A spilled block that comes back different (the test build's
# GPUSORT_FAULT=corrupt-spill flips a byte of spilled data read back, as a
# bad disk would): exit 2, one line naming the temp file, the block and its
# bytes, the output left untouched.
gen -n 50000 -k u32 --seed 99 -o fault.bin
printf 'keep' > fault.out
(GPUSORT_FAULT=corrupt-spill; export GPUSORT_FAULT; gstrun -k u32 -S 64K -T t1 -o fault.out fault.bin) > /dev/null 2> gs.err
rc=$?
if [ $rc = 2 ] && [ "$(wc -l < gs.err)" = 1 ] &&
   grep -Eq "^gpusort: temporary file t1/gpusort\.[A-Za-z0-9]{6}: checksum mismatch in block [0-9]+ of the run at byte [0-9]+ \(bytes [0-9]+\.\.[0-9]+\)" gs.err &&
   # the bytes are the named block's: the run's offset + block * 1 MiB, at most 1 MiB
   sed 's/.* in block \([0-9]*\) of the run at byte \([0-9]*\) (bytes \([0-9]*\)\.\.\([0-9]*\)).*/\1 \2 \3 \4/' gs.err |
	awk '{ exit !($3 == $2 + $1 * 1048576 && $4 >= $3 && $4 - $3 < 1048576) }' &&
   [ "$(cat fault.out)" = keep ]; then
	pass "spill-corruption-detected"
else
	fail "spill-corruption-detected" "exit $rc, output '$(head -c 8 fault.out)': $(tr '\n' '|' < gs.err)"
fi
ls -A . | grep -q '^\.fault\.out\.gpusort' && fail "spill-corruption-temp-removed" "temp output left" ||
	pass "spill-corruption-temp-removed"
# and without the fault the same command succeeds: the test above is not vacuous
"$REF" -k u32 < fault.bin > fault.exp
gsrun -k u32 -S 64K -T t1 -o fault.out fault.bin 2> gs.err
check_ok "spill-corruption-control" $? fault.out fault.exp gs.err
# the installed gpusort has no fault injection and no registration switch:
# it ignores the test build's variables
(GPUSORT_FAULT=corrupt-spill GPUSORT_FIXED=0; export GPUSORT_FAULT GPUSORT_FIXED
 gsrun -k u32 -S 64K -T t1 --stats -o fault.out fault.bin) 2> gs.err
rc=$?
if grep -q 'disabled by' gs.err; then fail "installed-ignores-test-variables" "$(grep registered gs.err)"
else check_ok "installed-ignores-test-variables" $rc fault.out fault.exp gs.err; fi
rm -f fault.bin fault.out fault.exp

# canary: no test may have replaced the system's device nodes
for d in /dev/null /dev/full; do
	[ -e $d ] || continue
	[ -c $d ] && pass "intact-$d" || fail "intact-$d" "$d is no longer a character device (restore: mknod)"
done

# --algorithm takes auto, cpu and the names --help lists as the build's GPU
# engines (the in-device sorter registry); anything else is a usage error
# that lists them
names=$(gsrun --help | sed -n 's/^GPU engines in this build (--algorithm)://p')
case "$names" in
"") fail "algorithm-list" "--help has no line of GPU engines" ;;
*"none (built without CUDA)"*) pass "algorithm-list (no CUDA build)"; names= ;;
*) pass "algorithm-list:$names" ;;
esac
gsrun -k u32 --algorithm=no-such-engine /dev/null > err.out 2> err.err
rc=$?
want="auto, cpu"
for nm in $names; do want="$want, $nm"; done
if [ $rc = 2 ] && [ ! -s err.out ] &&
	grep -qx "gpusort: --algorithm: invalid argument 'no-such-engine' (valid: $want)" err.err
then pass "algorithm-unknown"
else fail "algorithm-unknown" "status $rc: $(first err.err) (want the list: $want)"; fi
for nm in $names; do
	gsrun -k u32 --cpu --algorithm="$nm" /dev/null > err.out 2> err.err
	rc=$?
	if [ $rc = 2 ] && grep -qx "gpusort: --cpu contradicts --algorithm" err.err; then pass "algorithm-$nm-vs-cpu"
	else fail "algorithm-$nm-vs-cpu" "status $rc: $(first err.err)"; fi
done
# a GPU engine named where no GPU can be used: exit 2 saying why, nothing
# written; with a GPU: the CPU engine's bytes
gen -n 100000 -k u32 --dist fewunique --seed 7 -o alg.bin
gsrun -k u32 --cpu alg.bin > alg.cpu 2> /dev/null
for nm in $names; do
	gsrun -k u32 --algorithm="$nm" alg.bin > alg.out 2> err.err
	rc=$?
	if [ $rc = 0 ] && cmp -s alg.out alg.cpu; then pass "algorithm-$nm (a GPU: the CPU engine's output)"
	elif [ $rc = 2 ] && [ ! -s alg.out ] && grep -q "^gpusort: cannot use the GPU: " err.err; then
		pass "algorithm-$nm-without-a-gpu"
	else fail "algorithm-$nm" "status $rc: $(first err.err)"; fi
done


# An input that changes while it is read (issue 17): every path gives exit 2,
# names the file, writes nothing (the old -o untouched) and leaves no temp
# file. The test build's fault input-changes truncates the input to half
# once some of it was read, as `truncate -s` from another shell would.
gen -n 1000000 -k u32 --seed 91 -o chg.src
for mode in "spilled:-S 1M -T t1" "streamed:--cpu" "kept:-S 6M --parallel=2"; do
	nm=input-changes-${mode%%:*}
	cp chg.src chg.bin
	printf 'old output\n' > chg.out
	(GPUSORT_FAULT=input-changes; export GPUSORT_FAULT; gstrun -k u32 ${mode#*:} chg.bin -o chg.out) > /dev/null 2> gs.err
	rc=$?
	if [ $rc != 2 ]; then fail "$nm" "exit status $rc (want 2): $(first gs.err)"
	elif ! grep -q "^gpusort: .*chg.bin: the file changed while it was read" gs.err; then
		fail "$nm" "message: $(grep -v 'no CUDA' gs.err | head -n 1)"
	elif [ "$(cat chg.out)" != "old output" ]; then fail "$nm" "the old output was replaced"
	elif ls -A . | grep -q '^\.chg\.out'; then fail "$nm" "temp output left: $(ls -A . | grep chg.out)"
	elif ! isempty t1; then fail "$nm" "left in -T: $(ls -A t1)"
	else pass "$nm"; fi
done
# -c and -m read their inputs in place: the same rule
"$REF" -k u32 < chg.src > chg.sorted
cp chg.sorted chg.bin
printf 'old output\n' > chg.out
(GPUSORT_FAULT=input-changes; export GPUSORT_FAULT; gstrun -k u32 -m -o chg.out chg.bin chg.sorted) > /dev/null 2> gs.err
rc=$?
if [ $rc = 2 ] && grep -q "chg.bin: the file changed while it was read" gs.err && [ "$(cat chg.out)" = "old output" ]
then pass "input-changes-merge"; else fail "input-changes-merge" "exit status $rc: $(grep -v 'no CUDA' gs.err | head -n 1)"; fi
cp chg.sorted chg.bin
(GPUSORT_FAULT=input-changes; export GPUSORT_FAULT; gstrun -k u32 -c chg.bin) > /dev/null 2> gs.err
rc=$?
if [ $rc = 2 ] && grep -q "chg.bin: the file changed while it was read" gs.err; then pass "input-changes-check"
else fail "input-changes-check" "exit status $rc: $(grep -v 'no CUDA' gs.err | head -n 1)"; fi
# standard output opened onto the input itself (`gpusort f 1<>f`), as GNU
# sort allows: every input is read before the first byte is written, and the
# output's blocks are not reserved in it (that changes its modification time)
"$REF" -k u32 < chg.src > exp.bin
for mode in "spilled:-S 1M -T t1" "streamed:--cpu" "kept:-S 6M --parallel=2"; do
	nm=stdout-is-input-${mode%%:*}
	cp chg.src chg.bin
	gsrun -k u32 ${mode#*:} chg.bin 1<> chg.bin 2> gs.err
	check_ok "$nm" $? chg.bin exp.bin gs.err
done
# The output filled through a mapping (sink_map) by the threads that merge
# or copy records, not by the writer thread: the same bytes as the writer
# writes (the test build's GPUSORT_OUTMAP=0) and as refsort sorts, where the
# mapping starts mid-page (an offset left by a command before), over a
# longer file (`1<>`: the rest kept, as write(2)s keep it) and with -u
# (fewer bytes than mapped: the file cut back); --stats says which it was.
# These spilled merges run on 4 threads: on one or two the CPU merge of
# spilled runs goes through the writer thread (job.c merge_maps_output),
# which the outmap-spilled-threads cases check.
gen -n 300000 -k u32 --dist fewunique --seed 93 -o om.bin
"$REF" -k u32 -u < om.bin > om.expu
"$REF" -k u32 < chg.src > om.exp
for m in 1 0; do
	GPUSORT_OUTMAP=$m gstrun -k u32 -S 1M -T t1 --parallel=4 --stats chg.src -o om.$m 2> gs.err
	rc=$?
	mapped=$(grep -c 'output mapped' gs.err)
	if [ $rc = 0 ] && [ "$mapped" != $m ]; then fail "outmap-$m-stats" "'output mapped' said $mapped times (want $m)"
	else check_ok "outmap-$m-spilled" $rc om.$m om.exp gs.err; fi
	GPUSORT_OUTMAP=$m gstrun -k u32 -u -S 1M -T t1 --parallel=4 om.bin -o om.u$m 2> gs.err
	check_ok "outmap-$m-unique" $? om.u$m om.expu gs.err
	{ printf 'abc'; GPUSORT_OUTMAP=$m gstrun -k u32 -u -S 1M -T t1 --parallel=4 --stats om.bin; } > om.off$m 2> gs.err
	rc=$?
	{ printf 'abc'; cat om.expu; } > om.offexp
	if [ $rc = 0 ] && [ "$(grep -c 'output mapped' gs.err)" != $m ]; then fail "outmap-$m-stdout-at-offset" "not mapped"
	else check_ok "outmap-$m-stdout-at-offset" $rc om.off$m om.offexp gs.err; fi
	# over a longer file: sorted records, then -u's (the rest kept)
	head -c 5000000 /dev/urandom > om.long
	{ cat om.exp; tail -c +$(( $(fsize om.exp) + 1 )) om.long; } > om.longexp
	GPUSORT_OUTMAP=$m gstrun -k u32 -S 1M -T t1 --parallel=4 chg.src 1<> om.long 2> gs.err
	check_ok "outmap-$m-over-longer-file" $? om.long om.longexp gs.err
	{ cat om.expu; tail -c +$(( $(fsize om.expu) + 1 )) om.long; } > om.longexp
	GPUSORT_OUTMAP=$m gstrun -k u32 -u -S 1M -T t1 --parallel=4 om.bin 1<> om.long 2> gs.err
	check_ok "outmap-$m-unique-over-longer-file" $? om.long om.longexp gs.err
done
# the CPU merge of spilled runs on one or two threads writes through the
# writer thread, on three the mapping (merge_maps_output): --stats=json
# says which, and the bytes are refsort's either way
for p in 1 2 3; do
	want=$([ $p -le 2 ] && echo 0 || echo 1)
	gstrun -k u32 -S 1M -T t1 --parallel=$p --stats=json chg.src -o om.p$p 2> gs.err
	rc=$?
	if [ $rc = 0 ] && ! grep -q "\"output_mapped\":$want" gs.err; then
		fail "outmap-spilled-threads-$p" "want output_mapped $want: $(grep -o '"output_mapped":[0-9]*' gs.err)"
	else check_ok "outmap-spilled-threads-$p" $rc om.p$p om.exp gs.err; fi
done
rm -f om.p1 om.p2 om.p3
# a spilled job's mapped output handed to writeback as it is stored
# (sink_writeback_early; the test build's GPUSORT_WRITEBACK_PIECE cuts it
# into 4 KiB pieces, so that a small output has many): the same bytes, and
# --stats says how many were handed over, at most the output's; an output
# through the writer thread (GPUSORT_OUTMAP=0) and a job that kept its runs
# leave every byte to the kernel's writeback
for wb in "mapped:1:-S 1M -T t1 --parallel=4" "written:0:-S 1M -T t1 --parallel=4" "kept:1:"; do
	nm=outmap-writeback-${wb%%:*}
	a=${wb#*:}
	GPUSORT_OUTMAP=${a%%:*} GPUSORT_WRITEBACK_PIECE=4096 gstrun -k u32 ${a#*:} --stats=json chg.src -o om.wb 2> gs.err
	rc=$?
	n=$(sed -n 's/.*"output_writeback_bytes":\([0-9]*\).*/\1/p' gs.err)
	if [ $rc = 0 ] && [ -z "$n" ]; then fail "$nm" "no output_writeback_bytes in --stats=json: $(first gs.err)"
	elif [ $rc = 0 ] && [ "${wb%%:*}" = mapped ] && { [ "$n" -le 0 ] || [ "$n" -gt "$(fsize om.exp)" ]; }; then
		fail "$nm" "$n bytes handed to writeback (want 1..$(fsize om.exp))"
	elif [ $rc = 0 ] && [ "${wb%%:*}" != mapped ] && [ "$n" != 0 ]; then fail "$nm" "$n bytes handed to writeback (want 0)"
	else check_ok "$nm" $rc om.wb om.exp gs.err; fi
done
GPUSORT_WRITEBACK_PIECE=4096 gstrun -k u32 -S 1M -T t1 --parallel=4 --stats chg.src -o om.wb 2> gs.err
if ! grep -q '^gpusort: stats: output handed to writeback as it was stored: [0-9.]* [KM]iB, the writer.s [0-9.]* s$' gs.err; then
	fail "outmap-writeback-stats" "--stats: $(grep -i 'writeback\|output mapped' gs.err | head -n 2 | tr '\n' '|')"
else check_ok "outmap-writeback-stats" 0 om.wb om.exp gs.err; fi
# the CPU merge's rounds cut into more parts than threads, which the
# threads take as each finishes one (merge.c): a spilled merge of 16-byte
# records with few distinct keys (ties everywhere: the parts' order and
# their cuts must keep input order) on 4 threads, mapped and through the
# writer thread, equals the stable reference, and --stats=json counts more
# parts than 4 a round
"$GEN" -n 400000 --record-size 16 -k u32 -d fewunique -o mp.bin 2>/dev/null && "$REF" --record-size 16 -k u32 < mp.bin > mp.exp
for m in 1 0; do
	GPUSORT_OUTMAP=$m gstrun --record-size 16 -k u32 -S 2M -T t1 --parallel=4 --stats=json mp.bin -o mp.out 2> gs.err
	rc=$?
	r=$(sed -n 's/.*"merge_rounds":\([0-9]*\).*/\1/p' gs.err)
	n=$(sed -n 's/.*"merge_parts":\([0-9]*\).*/\1/p' gs.err)
	if [ $rc = 0 ] && { [ -z "$r" ] || [ -z "$n" ] || [ "$n" -le $((4 * r)) ]; }; then
		fail "merge-parts-outmap-$m" "want more than 4 parts a round: rounds '$r', parts '$n'"
	else check_ok "merge-parts-outmap-$m" $rc mp.out mp.exp gs.err; fi
done
rm -f mp.bin mp.exp mp.out
# another process truncating the output under the mapping (the test build's
# output-shrinks): SIGBUS ends gpusort with its message, exit 2, the old
# output kept, no temporary output left
printf 'old output\n' > om.shr
(GPUSORT_FAULT=output-shrinks; export GPUSORT_FAULT; gstrun -k u32 -S 1M -T t1 --parallel=4 chg.src -o om.shr) > /dev/null 2> gs.err
rc=$?
if [ $rc != 2 ]; then fail "outmap-output-shrinks" "exit status $rc (want 2): $(first gs.err)"
elif [ "$(cat gs.err)" != "gpusort: an input file shrank while it was read, or the output file while it was written: stopped" ]; then
	fail "outmap-output-shrinks" "message: $(first gs.err)"
elif [ "$(cat om.shr)" != "old output" ] || ls -A . | grep -q '^\.om\.shr'; then
	fail "outmap-output-shrinks" "old output replaced or temp output left: $(ls -A . | grep om.shr | tr '\n' ' ')"
else pass "outmap-output-shrinks"; fi
gsrun -k u32 -S 1M -T t1 --stats chg.src 2> gs.err | cat > om.pipe
if grep -q 'output mapped' gs.err; then fail "outmap-not-into-pipe" "--stats: $(grep 'output mapped' gs.err)"
else check_ok "outmap-not-into-pipe" 0 om.pipe om.exp gs.err; fi
# --verify's sums run over the complete mapping (sink_close)
gsrun -k u32 -S 1M -T t1 --parallel=4 --verify --stats=json chg.src -o om.v 2> gs.err
if ! grep -q '"output_mapped":1' gs.err; then fail "outmap-under-verify" "JSON: output not mapped: $(first gs.err)"
elif ! grep -q 'verify: [0-9]* records, order ok, multiset ok' gs.err; then fail "outmap-under-verify" "no verify notice: $(first gs.err)"
else check_ok "outmap-under-verify" 0 om.v om.exp gs.err; fi
# a pipe has no size to keep: a producer that stops early is simply the end
head -c 400000 chg.src | gsrun -k u32 -S 1M -T t1 > got.bin 2> gs.err
rc=$?
head -c 400000 chg.src | "$REF" -k u32 > exp.bin
check_ok "input-pipe-ends-early" $rc got.bin exp.bin gs.err


# A -T directory that fills (issue 17): the message names that directory,
# also when it is the second of two; exit 2, nothing written. A 1 MiB tmpfs
# where this machine lets the tests mount one (root), else SKIP.
mkdir -p tfull troomy
if mount -t tmpfs -o size=1M tmpfs tfull 2> /dev/null; then
	gen -n 2000000 -k u32 --seed 92 -o full.bin
	for dirs in "-T tfull" "-T troomy -T tfull"; do
		nm="full-T-dir-named[$dirs]"
		gsrun -k u32 -S 1M $dirs full.bin -o full.out > /dev/null 2> gs.err
		rc=$?
		if [ $rc != 2 ]; then fail "$nm" "exit status $rc (want 2)"
		elif ! grep -q "^gpusort: cannot write a temporary file in 'tfull': No space left on device" gs.err; then
			fail "$nm" "message: $(first gs.err)"
		elif [ -e full.out ] || ! isempty tfull || ! isempty troomy; then fail "$nm" "output or temp files left"
		else pass "$nm"; fi
	done
	# the output's file system full: the mapping's blocks are refused at
	# once (fallocate), the writer meets the same error; exit 2, the old
	# output kept, no temporary output left beside it
	for m in "" "--verify"; do
		nm="full-output-dir[${m:-mapped}]"
		printf 'old\n' > tfull/full.out
		gsrun -k u32 -S 1M -T troomy $m full.bin -o tfull/full.out > /dev/null 2> gs.err
		rc=$?
		if [ $rc != 2 ]; then fail "$nm" "exit status $rc (want 2)"
		elif ! grep -q "^gpusort: .*full.out.*No space left on device" gs.err; then fail "$nm" "message: $(first gs.err)"
		elif [ "$(cat tfull/full.out)" != old ] || [ "$(ls -A tfull)" != full.out ] || ! isempty troomy; then
			fail "$nm" "old output or temp files: $(ls -A tfull troomy | tr '\n' ' ')"
		else pass "$nm"; fi
	done
	rm -f tfull/full.out
	umount tfull
else
	skip "full-T-dir-named" "cannot mount a tmpfs here (not root, or not permitted)"
fi


# -c / -C with -o: refused as sort(1) refuses them; nothing created
gen -n 100 -k u32 --seed 93 -o co.bin
for c in c C; do
	rm -f co.out
	gsrun -k u32 -$c -o co.out co.bin > err.out 2> err.err
	rc=$?
	if [ $rc = 2 ] && [ ! -e co.out ] && [ ! -s err.out ] &&
		[ "$(cat err.err)" = "gpusort: options '-${c}o' are incompatible" ]; then pass "check-with-o-$c"
	else fail "check-with-o-$c" "status $rc: $(first err.err)"; fi
done
# an input that cannot be opened for want of descriptors says "cannot read"
# like every other open failure, also when the reader reopens it late (the
# test build's fault reopen-emfile: the second input's open fails; the
# chunked reader, as GPUSORT_STREAM=0 makes it)
gen -n 10 -k u32 --seed 94 -o fd1.bin
cp fd1.bin fd2.bin
(GPUSORT_FAULT=reopen-emfile GPUSORT_STREAM=0; export GPUSORT_FAULT GPUSORT_STREAM; gstrun -k u32 -S 1M -T t1 fd1.bin fd2.bin -o fd.out) > /dev/null 2> gs.err
rc=$?
if [ $rc = 2 ] && [ ! -e fd.out ] && grep -qx "gpusort: cannot read: fd2.bin: Too many open files" gs.err
then pass "emfile-message"
else fail "emfile-message" "status $rc: $(grep -v 'no CUDA' gs.err | head -n 1)"; fi


# -o onto an existing file (issue 17): the new file keeps owner, group and
# mode (owner and group where the user may give them: root here, else only
# the mode is checked); a target with two hard links is written through
# them, so both names see the sorted data; names of 240-255 bytes work.
gen -n 5000 -k u32 --seed 95 -o own.bin
"$REF" -k u32 < own.bin > own.exp
printf 'old\n' > own.out
chmod 640 own.out
if [ "$(id -u)" = 0 ]; then chown 1234:5678 own.out; want="640 1234 5678"; else want="640 $(id -u) $(id -g)"; fi
gsrun -k u32 own.bin -o own.out 2> gs.err
rc=$?
got=$(stat -c '%a %u %g' own.out)
if [ $rc = 0 ] && cmp -s own.out own.exp && [ "$got" = "$want" ]; then pass "o-keeps-owner-group-mode"
else fail "o-keeps-owner-group-mode" "status $rc, mode/owner/group '$got' (want '$want')"; fi
# extended attributes (and so POSIX ACLs, which are kept as system.posix_acl_*)
# go with the replaced file, where the file system has them
printf 'old\n' > xa.out
if ! command -v python3 > /dev/null 2>&1; then skip "o-keeps-xattrs" "no python3 to set an extended attribute"
elif ! python3 -c "import os; os.setxattr('xa.out', 'user.gpusort', b'kept')" 2> /dev/null; then
	skip "o-keeps-xattrs" "this file system takes no user.* extended attributes"
else
	gsrun -k u32 own.bin -o xa.out 2> gs.err
	rc=$?
	got=$(python3 -c "import os; print(os.getxattr('xa.out', 'user.gpusort').decode())" 2>&1)
	if [ $rc = 0 ] && cmp -s xa.out own.exp && [ "$got" = kept ]; then pass "o-keeps-xattrs"
	else fail "o-keeps-xattrs" "status $rc, user.gpusort '$got' (want 'kept')"; fi
fi
printf 'old\n' > lnk.a
ln lnk.a lnk.b
gsrun -k u32 own.bin -o lnk.a 2> gs.err
rc=$?
if [ $rc = 0 ] && cmp -s lnk.a own.exp && cmp -s lnk.b own.exp && [ "$(stat -c %h lnk.a)" = 2 ] &&
	[ -z "$(ls -A . | grep gpusort)" ]; then pass "o-through-hard-links"
else fail "o-through-hard-links" "status $rc, links $(stat -c %h lnk.a): $(first gs.err)"; fi
for len in 240 250 255; do
	nm=$(printf "%${len}s" | tr ' ' n)
	gsrun -k u32 own.bin -o "$nm" 2> gs.err
	rc=$?
	if [ $rc = 0 ] && cmp -s "$nm" own.exp && [ -z "$(ls -A . | grep gpusort)" ]; then pass "o-name-$len-bytes"
	else fail "o-name-$len-bytes" "status $rc: $(first gs.err)"; fi
	rm -f "$nm"
done


# --sync: the output is flushed before the rename (the test build's fault
# fsync-eio fails that flush: exit 2 naming the output, old contents kept,
# no temp file); and a plain --sync run sorts
printf 'old\n' > sy.out
gsrun -k u32 --sync own.bin -o sy.out 2> gs.err
rc=$?
if [ $rc = 0 ] && cmp -s sy.out own.exp; then pass "sync"; else fail "sync" "status $rc: $(first gs.err)"; fi
printf 'old\n' > sy.out
(GPUSORT_FAULT=fsync-eio; export GPUSORT_FAULT; gstrun -k u32 --sync own.bin -o sy.out) 2> gs.err
rc=$?
if [ $rc = 2 ] && [ "$(cat sy.out)" = old ] && grep -q "^gpusort: write failed: sy.out: Input/output error" gs.err &&
	[ -z "$(ls -A . | grep gpusort)" ]; then pass "sync-flush-fails"
else fail "sync-flush-fails" "status $rc: $(grep -v 'no CUDA' gs.err | head -n 1)"; fi
(GPUSORT_FAULT=fsync-eio; export GPUSORT_FAULT; gstrun -k u32 own.bin -o sy.out) 2> gs.err
rc=$?
if [ $rc = 0 ] && cmp -s sy.out own.exp; then pass "no-sync-no-flush"; else fail "no-sync-no-flush" "status $rc: $(first gs.err)"; fi


# --clean-temp (issue 17): a run killed outright (SIGKILL) leaves its
# temporary output, named with its process id; --clean-temp removes it, but
# never a live run's, nor files that only look alike
mkdir -p ct && (
	cd ct || exit 1
	mkfifo stall || exit 1
	sleep 30 > stall &
	hold=$!
	"$GS" -k u32 stall -o dead.out 2> /dev/null & victim=$!
	"$GS" -k u32 stall -o live.out 2> /dev/null & live=$!
	i=0
	while [ $i -lt 50 ] && [ "$(ls -A | grep -c '\.gpusort\.')" -lt 2 ]; do sleep 0.1; i=$((i + 1)); done
	kill -9 $victim; wait $victim 2> /dev/null
	touch .dead.out.gpusort.notapid.AbC123 keep.gpusort.1.AbC123
	# named runs (text lines, descriptors short): the dead run's, a live one's
	touch gpusort.$victim.DeAd12 gpusort.$live.LiVe12 gpusort.$victim.toolong7
	"$GS" --clean-temp -T . 2> ../gs.err
	rc=$?
	left=$(ls -A | tr '\n' ' ')
	kill $live $hold 2> /dev/null; wait 2> /dev/null
	if [ $rc != 0 ]; then echo "FAIL clean-temp: exit status $rc: $(head -n 1 ../gs.err)"
	elif echo "$left" | grep -q "\.dead\.out\.gpusort\.$victim\."; then echo "FAIL clean-temp: the killed run's temp is still there: $left"
	elif echo "$left" | grep -q "gpusort\.$victim\.DeAd12"; then echo "FAIL clean-temp: the killed run's named run is still there: $left"
	elif ! echo "$left" | grep -q "gpusort\.$live\.LiVe12" || ! echo "$left" | grep -q "toolong7"; then echo "FAIL clean-temp: a live run's named run or a look-alike was removed: $left"
	elif ! echo "$left" | grep -q "\.live\.out\.gpusort\.$live\."; then echo "FAIL clean-temp: the live run's temp was removed (or never made): $left"
	elif ! echo "$left" | grep -q "notapid" || ! echo "$left" | grep -q "keep.gpusort"; then echo "FAIL clean-temp: a look-alike was removed: $left"
	else echo "PASS clean-temp"; fi
) | tee ct.log
grep -q '^FAIL' ct.log && NFAIL=$((NFAIL + 1))
errcase "clean-temp-operand" "--clean-temp somefile" &&
	[ "$ERRLINE" = "gpusort: extra operand 'somefile' not allowed with --clean-temp" ] && pass "clean-temp-operand"


# Quiet on success (issue 18): a plain sort writes nothing on standard error,
# with a GPU or without one (the CPU engine taking over silently); --stats
# says which engine ran and, when the GPU was wanted but not used, why
gsrun -k u32 own.bin -o quiet.out 2> gs.err
rc=$?
if [ $rc = 0 ] && [ ! -s gs.err ] && cmp -s quiet.out own.exp; then pass "quiet-on-success"
else fail "quiet-on-success" "status $rc, stderr: $(tr '\n' '|' < gs.err)"; fi
gsrun -k u32 own.bin -o quiet.out --stats 2> gs.err
if grep -q "^gpusort: stats: .*engine gpu" gs.err || grep -q "^gpusort: stats: GPU not used: ." gs.err ||
	grep -q "engine cpu (streamed; small input)" gs.err; then pass "stats-says-why-no-gpu"
else fail "stats-says-why-no-gpu" "$(grep engine gs.err)"; fi


# The default -S (issue 18; issue 19 raised it from 25%): half of the
# smaller of RAM and the cgroup's memory limit (the test build reads the
# limit from a stand-in file); "max" (no limit) leaves half of RAM; an
# explicit -S wins
if [ $HAVE_PY = 1 ]; then
	bs() { python3 -c 'import json, sys; print(json.load(sys.stdin)["buffer_size"])' < gs.err; }
	printf '1073741824\n' > cg.max
	GPUSORT_CGROUP_MEMORY_FILE=cg.max gstrun -k u32 own.bin --stats=json > /dev/null 2> gs.err
	a=$(bs)
	printf 'max\n' > cg.max
	GPUSORT_CGROUP_MEMORY_FILE=cg.max gstrun -k u32 own.bin --stats=json > /dev/null 2> gs.err
	b=$(bs)
	phys=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024))
	printf '1073741824\n' > cg.max
	GPUSORT_CGROUP_MEMORY_FILE=cg.max gstrun -k u32 -S 3M own.bin --stats=json > /dev/null 2> gs.err
	c=$(bs)
	if [ "$a" = 536870912 ] && [ "$b" = $((phys / 2)) ] && [ "$c" = 3145728 ]; then pass "S-default-cgroup"
	else fail "S-default-cgroup" "limited $a (want 536870912), unlimited $b (want $((phys / 2))), -S 3M $c"; fi
	# sort(1)'s -S rules: 0 is the least, the largest of several counts, and
	# more than the machine or the cgroup has is what it has (200%, 1P)
	want="1 2097152 2097152 1073741824 1073741824 $phys"
	got=
	for S in "0" "1M -S 2M" "2M -S 1M" "200%" "1P" "1E"; do
		cgf=cg.max; [ "$S" = 1E ] && cgf=/nonexistent
		GPUSORT_CGROUP_MEMORY_FILE=$cgf gstrun -k u32 -S $S own.bin --stats=json > /dev/null 2> gs.err
		got="$got${got:+ }$(bs)"
	done
	if [ "$got" = "$want" ]; then pass "S-sort1-rules"; else fail "S-sort1-rules" "buffer sizes $got, want $want"; fi
else
	skip "S-default-cgroup" "no python3 to read the JSON"
fi

exit $((NFAIL > 0))
