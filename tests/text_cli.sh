#!/bin/sh
# tests/text_cli.sh - gpusort on text lines: small cases with their exact
# bytes, messages and exit statuses written out here; the larger-than-memory
# path (-S far below the input: spilled runs, merge passes) and the fake
# GPU's chunk sort, each against `LC_ALL=C sort` (GNU sort) as the
# reference. Prints PASS/FAIL lines (tests/run.sh counts them).
#   TEXT_BIG_MB     MB of lines for the larger-than-memory cases (default 24)
#   TEXT_BIG_S      their -S (default 1M); TEXT_BIG_BATCH their --batch-size
#                   (default 4). The long test, 4 GiB under -S 64M:
#                   TEXT_BIG_MB=4096 TEXT_BIG_S=64M TEXT_BIG_BATCH=16
cd "$(dirname "$0")/.." || exit 2
G=$PWD/gpusort
FG=$PWD/tests/bin/gpusort-fakegpu
d=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-textcli.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
export LC_ALL=C
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=1; }
skip() { echo "SKIP $1: $2"; }

# same NAME EXPECTED-FILE GOT-FILE
same() { if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "output differs ($(od -c "$3" | head -n 3 | tr '\n' ' '))"; fi; }

# bytes NAME 'INPUT' 'EXPECTED' OPTION...: printf INPUT | gpusort OPTION... gives printf EXPECTED, status 0
bytes() {
	_n=$1 _in=$2 _exp=$3
	shift 3
	printf -- "$_in" > "$d/in"
	printf -- "$_exp" > "$d/exp"
	if "$G" "$@" "$d/in" > "$d/got" 2> "$d/err"; then same "$_n" "$d/exp" "$d/got"; else fail "$_n" "status $?: $(cat "$d/err")"; fi
}
bytes last-line-gets-newline 'b\na' 'a\nb\n'
bytes each-input-last-line 'x' 'x\nx\n' - "$d/in" < /dev/null
bytes cr-kept 'b\r\na\r\na\n' 'a\na\r\nb\r\n'
bytes empty-input '' ''
bytes empty-lines '\n\nb\n\n' '\n\n\nb\n'
bytes nul-in-line 'a\000c\na\000b\n' 'a\000b\na\000c\n'
bytes zero-terminated 'b\nx\000a\000' 'a\000b\nx\000' -z
bytes numeric-exact-long '1000000000000000000000000000000001\n1000000000000000000000000000000000\n-5\n' '-5\n1000000000000000000000000000000000\n1000000000000000000000000000000001\n' -n
bytes numeric-equal-values '1.50\n1.5\n01.5\n' '01.5\n1.5\n1.50\n' -n
bytes numeric-stable-equal '1.50\n1.5\n01.5\n' '1.50\n1.5\n01.5\n' -n -s
bytes field-sep-key 'x,3\ny,10\nz,2\n' 'z,2\nx,3\ny,10\n' -t, -k2,2n
bytes reverse-key-last-resort 'a 1\nb 1\nc 2\n' 'c 2\na 1\nb 1\n' -k2,2nr
bytes reverse-last-resort-only 'a 1\nb 1\nc 2\n' 'b 1\na 1\nc 2\n' -r -k2,2n
bytes reverse-inherited 'a 1\nb 1\nc 2\n' 'c 2\nb 1\na 1\n' -r -k2,2
bytes unique-first-kept 'b 1\na 1\nc 2\n' 'b 1\nc 2\n' -u -k2,2
bytes general-nan-inf 'inf\n-inf\nnan\nx\n1e3\n' 'x\nnan\n-inf\n1e3\ninf\n' -g
bytes human '1M\n2K\n3\n1G\n' '3\n2K\n1M\n1G\n' -h
bytes month 'mar\nxyz\n jan\nFeb\n' 'xyz\n jan\nFeb\nmar\n' -M
bytes version 'a1.10\na1.9\na1.9~rc\n' 'a1.9~rc\na1.9\na1.10\n' -V
# sort(1)'s abbreviations of its long options, where gpusort's own options share the prefix
bytes gnu-abbrev-mer 'b\na\n' 'b\na\n' --mer
bytes gnu-abbrev-re 'a\nb\n' 'b\na\n' --re
bytes gnu-abbrev-g '10\n9\n' '9\n10\n' --g
bytes gnu-abbrev-st 'b 2\nb 1\n' 'b 2\nb 1\n' --st -k1,1
bytes gnu-abbrev-di 'a-c\nab\n' 'ab\na-c\n' --di
bytes gnu-abbrev-p 'b\na\n' 'a\nb\n' --p 1
bytes gnu-abbrev-p-eq 'b\na\n' 'a\nb\n' --p=1
bytes sort-word-prefix-gen '10\n9\n1K\n' '1K\n9\n10\n' --sort=gen
bytes sort-word-prefix-h '10\n9\n1K\n' '9\n10\n1K\n' --sort=h
# sort(1)'s obsolete -y: a separate argument of digits is ignored with it, another is not taken
bytes y-digits-ignored 'b\na\n' 'a\nb\n' -y 100
bytes y-next-option-kept 'b\na\n' 'b\na\n' -y -r

# status NAME WANT 'MESSAGE' OPTION...: gpusort OPTION... exits WANT, says MESSAGE (one line), writes nothing
status() {
	_n=$1 _want=$2 _msg=$3
	shift 3
	"$G" "$@" > "$d/got" 2> "$d/err" < "$d/in"
	_rc=$?
	if [ $_rc != "$_want" ]; then
		fail "$_n" "status $_rc, not $_want ($(head -c 200 "$d/err"))"
	elif [ -s "$d/got" ]; then
		fail "$_n" "wrote output"
	elif [ -n "$_msg" ] && [ "$(cat "$d/err")" != "$_msg" ]; then
		fail "$_n" "said '$(cat "$d/err")', not '$_msg'"
	else
		pass "$_n"
	fi
}
printf 'a\nc\nb\n' > "$d/in"
status check-disorder 1 'gpusort: -:3: disorder: b' -c
status check-quiet 1 '' -C
status check-quiet-long 1 '' --check=quiet
printf 'a\na\n' > "$d/in"
status check-unique 1 'gpusort: -:2: disorder: a' -c -u
status check-sorted 0 '' -c
# -c of a regular file: mapped, checked in pieces of a MiB on every
# thread; the first line out of order is the one reported (several out of
# order, in different pieces), as sort(1)'s -c reports it, line number
# and all; -u's ties; a last line without its delimiter; an empty file
awk 'BEGIN { for (i = 0; i < 300000; i++) printf "%07d\n", i }' > "$d/cbig"
awk 'NR == 150001 || NR == 290000 { print "0000000"; next } { print }' "$d/cbig" > "$d/cbig2"
awk 'NR == 290000 { print "0000000"; next } { print }' "$d/cbig" > "$d/cbig3"
awk 'NR == 200000 { print; print; next } { print }' "$d/cbig" > "$d/cbig4"
{ cat "$d/cbig"; printf 0; } > "$d/cbig5"
: > "$d/cempty"
# check_like NAME GNU-STATUS STDIN COMMAND...: COMMAND (gpusort -c), its
# standard input a pipe from the file STDIN (or none: ""), must exit with
# GNU sort's status and say what GNU sort said ($d/exp), output nothing
check_like() {
	_n=$1 _e=$2 _in=$3
	shift 3
	sed 's/^sort: /gpusort: /' "$d/exp" > "$d/exp2"
	if [ -n "$_in" ]; then cat "$_in" | "$@" > "$d/got" 2> "$d/err"; else "$@" > "$d/got" 2> "$d/err"; fi
	_grc=$?
	if [ $_grc = "$_e" ] && cmp -s "$d/exp2" "$d/err" && [ ! -s "$d/got" ]; then pass "$_n"
	else fail "$_n" "status $_grc (GNU $_e): $(head -c 200 "$d/err") / $(head -c 200 "$d/exp2")"; fi
}
for _f in cbig cbig2 cbig3 cbig4 cbig5 cempty; do
	for _o in "" -u -n -r; do
		# shellcheck disable=SC2086
		LC_ALL=C sort -c $_o "$d/$_f" > /dev/null 2> "$d/exp"
		_erc=$?
		for _p in 1 4; do
			# shellcheck disable=SC2086
			check_like "check-mapped($_f,$_o,parallel$_p)" $_erc "" "$G" --parallel=$_p -c $_o "$d/$_f"
		done
	done
done
# -c of a stream (text_check.c check_stream): read by an I/O worker in
# blocks (GPUSORT_CHECK_BLOCK in the test build; 32 MiB by default), each
# checked on every thread after what the block before carried over, the
# report GNU sort's for the same standard input: blocks of 64 KiB (many
# crossings), of 5 bytes (every line longer than a block: each window one
# of its own), the default; lines longer than the 1 MiB room (ctall: 3 and
# 2 MB lines, out of order at the fourth; ctall2 in order)
{ echo a; head -c 3000000 /dev/zero | tr '\0' b; echo; echo c; head -c 2000000 /dev/zero | tr '\0' a; echo; echo d; } > "$d/ctall"
{ echo a; head -c 3000000 /dev/zero | tr '\0' b; echo; echo c; head -c 2000000 /dev/zero | tr '\0' d; printf e; } > "$d/ctall2"
head -n 3000 "$d/cbig2" > "$d/csmall"
awk 'NR == 1500 { print "0000000" } { print }' "$d/csmall" > "$d/csmall2"
GT=$PWD/tests/bin/gpusort-test
for _f in cbig cbig2 cbig3 cbig4 cbig5 cempty ctall ctall2 csmall csmall2; do
	for _o in "" -u -n; do
		# shellcheck disable=SC2086
		LC_ALL=C sort -c $_o < "$d/$_f" > /dev/null 2> "$d/exp"
		_erc=$?
		for _b in 0 65536 5; do
			case $_f$_b in cbig*5 | ctall*5) continue ;; esac # 5-byte reads of MBs: slow, and csmall covers them
			# shellcheck disable=SC2086
			check_like "check-stream($_f,$_o,block$_b)" $_erc "$d/$_f" env GPUSORT_CHECK_BLOCK=$_b "$GT" --parallel=3 -c $_o
		done
	done
done
# standard input from a regular file is mapped from where its offset
# stands (one line read before by the shell), as sort(1) reads it from there
for _f in cbig2 csmall2; do
	{ read -r _x; LC_ALL=C sort -c; } < "$d/$_f" > /dev/null 2> "$d/exp"
	_erc=$?
	sed 's/^sort: /gpusort: /' "$d/exp" > "$d/exp2"
	{ read -r _x; "$G" -c; } < "$d/$_f" > /dev/null 2> "$d/err"
	_grc=$?
	if [ $_grc = $_erc ] && [ $_erc = 1 ] && cmp -s "$d/exp2" "$d/err"; then pass "check-stdin-offset($_f)"
	else fail "check-stdin-offset($_f)" "status $_grc (GNU $_erc): $(head -c 200 "$d/err") / $(head -c 200 "$d/exp2")"; fi
done
# a producer that goes on: the disorder is reported as it arrives (within
# a read's 0.1 s wait), not when the producer ends, as sort(1) would
_t0=$(date +%s)
{ printf 'b\na\n'; sleep 4; } | { "$G" -c 2> "$d/err"; echo $? > "$d/rc"; date +%s > "$d/t1"; }
if [ "$(cat "$d/rc")" = 1 ] && [ $(($(cat "$d/t1") - _t0)) -lt 3 ] && [ "$(cat "$d/err")" = "gpusort: -:2: disorder: a" ]; then
	pass "check-stream-early"
else fail "check-stream-early" "status $(cat "$d/rc") after $(($(cat "$d/t1") - _t0)) s: $(head -c 200 "$d/err")"; fi
# standard output that cannot be written: named as sort(1) names it
if [ -w /dev/full ]; then
	printf 'b\na\n' | "$G" > /dev/full 2> "$d/err"
	_rc=$?
	if [ $_rc = 2 ] && [ "$(cat "$d/err")" = "gpusort: write failed: 'standard output': No space left on device" ]; then
		pass "write-stdout-full"
	else fail "write-stdout-full" "status $_rc: $(cat "$d/err")"; fi
else skip "write-stdout-full" "no /dev/full"; fi
# a read error part way: GNU sort's "read failed", status 2
cat "$d/csmall" | GPUSORT_CHECK_BLOCK=4096 GPUSORT_FAULT=read@3 "$GT" -c > /dev/null 2> "$d/err"
_rc=$?
if [ $_rc = 2 ] && grep -q '^gpusort: read failed: -: ' "$d/err"; then pass "check-stream-read-error"
else fail "check-stream-read-error" "status $_rc: $(head -c 200 "$d/err")"; fi
status key-zero 2 "gpusort: field number is zero: invalid field specification '0'" -k0
status key-char-zero 2 "gpusort: character offset is zero: invalid field specification '1.0'" -k1.0
status key-stray 2 "gpusort: stray character in field spec: invalid field specification '1x'" -k1x
status incompatible 2 "gpusort: options '-Mn' are incompatible" -n -M
status multi-tab 2 "gpusort: multi-character tab 'ab'" -t ab
status incompatible-tabs 2 "gpusort: incompatible tabs" -t a -t b
status no-input 2 "gpusort: cannot read: $d/nofile: No such file or directory" "$d/nofile"
# file names in messages quoted as sort(1) quotes them (gnulib's quotef):
# each message against GNU sort's own, for names a shell would split or expand
gnu_msg() {
	_n=$1
	shift
	LC_ALL=C sort "$@" < /dev/null > /dev/null 2> "$d/exp.err"
	_grc=$?
	"$G" "$@" < /dev/null > /dev/null 2> "$d/got.err"
	_rc=$?
	sed 's/^sort: /gpusort: /' "$d/exp.err" > "$d/exp.err2"
	if [ $_rc != $_grc ]; then fail "$_n" "status $_rc, GNU's $_grc"
	elif cmp -s "$d/exp.err2" "$d/got.err"; then pass "$_n"
	else fail "$_n" "said '$(cat "$d/got.err")', GNU '$(cat "$d/exp.err2")'"; fi
}
i=0
for n in 'a b' "it's" 'a:b' '#x' 'x#' "a'\$b" 'a@b' "$(printf 'a\nb')" "$(printf 'a\303b')" "$(printf "a'\001")"; do
	i=$((i + 1))
	gnu_msg "quoted-name-read-$i" -- "$d/no/$n"
	gnu_msg "quoted-name-check-$i" -c -- "$d/no/$n"
	gnu_msg "quoted-name-output-$i" -o "$d/no/$n" /dev/null
	gnu_msg "quoted-name-merge-$i" -m /dev/null "$d/no/$n"
	gnu_msg "quoted-name-files0-$i" --files0-from="$d/no/$n"
done
status check-extra 2 "gpusort: extra operand '$d/in' not allowed with -c" -c "$d/in" "$d/in"
status check-output 2 "gpusort: options '-co' are incompatible" -c -o "$d/x"
status debug-check 2 "gpusort: options '-c --debug' are incompatible" --debug -c
status debug-records 2 '' --debug --record-size 4
status mixed-keys 2 '' -k 2,2n -k u32
status text-option-records 2 '' -t, --record-size 4
status files0-with-operand 2 '' --files0-from=- "$d/in"
status bad-sort-word 2 '' --sort=nope
status opt-ambiguous 2 "gpusort: option '--m' is ambiguous; possibilities: '--merge' '--month-sort' '--merge-engine' (see gpusort --help)" --m
status opt-no-argument 2 "gpusort: option '--merge' doesn't allow an argument (see gpusort --help)" --merge=x
status opt-abbrev-no-argument 2 "gpusort: option '--merge' doesn't allow an argument (see gpusort --help)" --mer=x
# an option's value that looks like an abbreviation is the value: -o --p writes the file "--p"
printf 'b\na\n' > "$d/in"
if (cd "$d" && "$G" -o --p in) && [ "$(cat "$d/--p")" = "$(printf 'a\nb')" ]; then
	pass output-named-like-option
else
	fail output-named-like-option "no file '--p' with the sorted lines"
fi
rm -f -- "$d/--p"
# a word's unambiguous prefix is the word (sort(1)'s argmatch); the empty one is ambiguous
status sort-word-empty 2 "gpusort: --sort: ambiguous argument '' (valid: general-numeric, human-numeric, month, numeric, random, version)" --sort=
printf '10\n9\n1K\n' > "$d/in"
status check-word-prefix 1 '' --check=q
status check-word-prefix-d 1 "gpusort: -:3: disorder: 1K" --check=d

# a failure leaves the old output and no temporary file
echo old > "$d/out"
"$G" -o "$d/out" "$d/in" "$d/nofile" 2> /dev/null
if [ $? = 2 ] && [ "$(cat "$d/out")" = old ] && [ -z "$(ls -a "$d" | grep gpusort)" ]; then
	pass fault-keeps-output
else
	fail fault-keeps-output "the old output changed or a temporary file is left"
fi
# --verify: the order and the multiset of lines checked before the commit
printf 'b\na\nc\n' > "$d/v"
if "$G" --verify -o "$d/vo" "$d/v" 2> "$d/err" && grep -q "verify: 3 lines, order ok, multiset ok" "$d/err"; then
	pass verify-ok
else
	fail verify-ok "$(cat "$d/err")"
fi
echo old > "$d/vo"
"$G" --verify -m -o "$d/vo" "$d/v" 2> "$d/err"
if [ $? = 2 ] && grep -q "verify: FAILED: output line 2 is out of order" "$d/err" && [ "$(cat "$d/vo")" = old ]; then
	pass verify-unsorted-merge-fails
else
	fail verify-unsorted-merge-fails "$(cat "$d/err")"
fi
# -o onto an input
printf 'b\na\n' > "$d/io"
"$G" -o "$d/io" "$d/io" && printf 'a\nb\n' > "$d/exp" && same output-onto-input "$d/exp" "$d/io"
# --files0-from
printf 'y\nx\n' > "$d/f1"
printf 'z\nw' > "$d/f2"
printf '%s\0%s\0' "$d/f1" "$d/f2" | "$G" --files0-from=- > "$d/got" && printf 'w\nx\ny\nz\n' > "$d/exp" && same files0-from "$d/exp" "$d/got"
# a list naming '-' (standard input): refused as sort(1) 9.1 does, from a file too
printf '%s\0-\0' "$d/f1" > "$d/list0"
if printf 'a\n' | "$G" --files0-from="$d/list0" > "$d/got" 2> "$d/err"; then fail files0-names-stdin "status 0: $(cat "$d/got")"
elif grep -q "no file name of '-' allowed" "$d/err" && [ ! -s "$d/got" ]; then pass files0-names-stdin
else fail files0-names-stdin "$(cat "$d/err")"; fi
# -m of three sorted inputs
printf 'a\nd\n' > "$d/m1"; printf 'b\nd\n' > "$d/m2"; printf 'c\n' > "$d/m3"
"$G" -m "$d/m1" "$d/m2" "$d/m3" > "$d/got" && printf 'a\nb\nc\nd\nd\n' > "$d/exp" && same merge-three "$d/exp" "$d/got"
# -R: GNU sort's order for the same --random-source
seq 1 200 > "$d/r"
printf 'a fixed random source 0123456789\n' > "$d/rs"
sort -R --random-source="$d/rs" "$d/r" > "$d/exp"
"$G" -R --random-source="$d/rs" "$d/r" > "$d/got" && same random-as-gnu "$d/exp" "$d/got"
# a long line (8 MB) among short ones
head -c 8000000 /dev/zero | tr '\0' m > "$d/long"
printf '\nz\na\n' >> "$d/long"
sort "$d/long" > "$d/exp"
"$G" -S 1M "$d/long" > "$d/got" && same long-line "$d/exp" "$d/got"

# runs of equal values, long enough to be refined past the value's code (16
# lines or more): -n/-h/-M values written many ways ("1.5" "1.50" "01.5",
# "-0" "", one that is the start of another: "1.5" "1.501" "15", as many
# digits as a prefix holds and more), ties decided by the next key or
# the whole line, or kept in input order by -s, or dropped by -u
awk 'BEGIN { srand(11)
	split("1.5 1.50 01.5 1.501 1.51 15 -1.5 -1.501 -1.51 -0 0 7 -7.25 12345678901234567 123456789012345678 123456789012345679 1K 1.5K 2M", v, " ")
	split("Jan FEB mar xyz", m, " ")
	for (i = 0; i < 20000; i++) {
		x = v[1 + int(rand() * 19)]; if (rand() < 0.05) x = ""
		printf "%d,%s,%s,%c%c\n", int(rand() * 50), x, m[1 + int(rand() * 4)], 97 + int(rand() * 3), 97 + int(rand() * 3)
	} }' > "$d/ties"
i=0
for o in "-k2,2n" "-k2,2n -k1,1" "-k2,2nr" "-k2,2n -r" "-k2,2n -s" "-k2,2n -u" "-k2,2n -k3,3M -k1,1n" \
	"-k2,2h -k4,4" "-k3,3M -k2,2n" "-k3,3M -s" "-k2,2n -k1,1nr -s" "-k1,1n -k2,2n -u"; do
	i=$((i + 1))
	sort -t, $o "$d/ties" > "$d/exp"
	if "$G" -t, $o "$d/ties" > "$d/got" 2> "$d/err"; then same "value-tie-runs-$i($o)" "$d/exp" "$d/got"; else fail "value-tie-runs-$i" "$(cat "$d/err")"; fi
done

# larger than memory: MB of CSV lines (bench/gen_lines: u32, word, decimal,
# filler), -S far below their size, several merge passes
mb=${TEXT_BIG_MB:-24}
S=${TEXT_BIG_S:-1M}
B=${TEXT_BIG_BATCH:-4}
"$PWD/bench/gen_lines" csv "${mb}M" 7 > "$d/big" || { echo "FAIL text-big: bench/gen_lines is missing (make bench/gen_lines)"; exit 1; }
mkdir -p "$d/t"
# big NAME OPTION...: gpusort -S $S --batch-size=$B -T DIR OPTION... equals sort OPTION..., no temporary file left
big() {
	_n=$1
	shift
	sort "$@" "$d/big" > "$d/exp"
	if "$G" -S "$S" --batch-size="$B" -T "$d/t" --stats "$@" "$d/big" > "$d/got" 2> "$d/err"; then
		if ! grep -q "runs spilled" "$d/err" || grep -q " 0 runs spilled" "$d/err"; then
			fail "$_n" "nothing was spilled: $(cat "$d/err")"
		elif [ -n "$(ls -A "$d/t")" ]; then
			fail "$_n" "temporary files left in -T"
		else
			same "$_n" "$d/exp" "$d/got"
		fi
	else
		fail "$_n" "status $?: $(cat "$d/err")"
	fi
}
big spill-bytes
big spill-numeric -t, -k3,3n
big spill-two-keys -t, -k2,2 -k3,3gr
big spill-unique -t, -k2.1,2.3 -u
big spill-stable-reverse -t, -k2,2f -s -r
big spill-numeric-4-threads --parallel=4 -t, -k3,3n
big spill-narrow-prefix -t, -k2.2,2.4 -k1,1n

# the merge in rounds on every thread (text_merge_par.c): many slices a
# round (--parallel=8 on any machine), lines equal across the slices'
# bounds (-u keeps the first of them, -s their input order), the output
# mapped (a file) or written by its thread (a pipe, -u, --verify), -m of
# files of ours and not, -z, and a line longer than a source's block
awk 'BEGIN { srand(5); for (i = 0; i < 120000; i++) printf "%d,%d,%s\n", int(rand() * 700), i, substr("abcdefghij", 1 + int(rand() * 10), 1 + int(rand() * 5)) }' > "$d/dups"
# rounds NAME OPTION...: gpusort -S 1M -T DIR --parallel=8 OPTION... equals sort OPTION... (file and pipe)
rounds() {
	_n=$1
	shift
	sort $(for a in "$@"; do [ "$a" = --verify ] || printf '%s\n' "$a"; done) > "$d/exp"
	if "$G" -S 1M -T "$d/t" --parallel=8 "$@" -o "$d/got" 2> "$d/err"; then same "$_n" "$d/exp" "$d/got"
	else fail "$_n" "status $?: $(cat "$d/err")"; fi
	if "$G" -S 1M -T "$d/t" --parallel=8 "$@" 2> "$d/err" | cat > "$d/got"; then same "$_n-pipe" "$d/exp" "$d/got"
	else fail "$_n-pipe" "status $?: $(cat "$d/err")"; fi
}
# -u and --verify on a sorted chunk: each part of every batch filtered at
# once (text_gather.c), each line against the one before it
onechunk() {
	_n=$1
	shift
	sort $(for a in "$@"; do [ "$a" = --verify ] || printf '%s\n' "$a"; done) > "$d/exp"
	if "$G" --parallel=8 "$@" -o "$d/got" 2> "$d/err"; then same "$_n" "$d/exp" "$d/got"
	else fail "$_n" "status $?: $(cat "$d/err")"; fi
	if "$G" --parallel=8 "$@" 2> "$d/err" | cat > "$d/got"; then same "$_n-pipe" "$d/exp" "$d/got"
	else fail "$_n-pipe" "status $?: $(cat "$d/err")"; fi
}
onechunk chunk-unique -t, -k1,1n -u "$d/dups"
onechunk chunk-unique-keys -t, -k3,3 -k1,1n -u "$d/dups"
onechunk chunk-verify-unique --verify -t, -k3,3r -u "$d/dups"
onechunk chunk-verify --verify -t, -k3,3 "$d/dups"
rounds merge-rounds-unique -t, -k1,1n -u "$d/dups"
rounds merge-rounds-stable -t, -k1,1n -s "$d/dups"
rounds merge-rounds-unique-reverse -t, -k3,3 -u -r "$d/dups"
rounds merge-rounds-verify --verify -t, -k1,1n -k3,3 "$d/dups"
rounds merge-rounds-verify-unique --verify -u -t, -k3,3 "$d/dups"
tr '\n' '\0' < "$d/dups" > "$d/dupsz"
rounds merge-rounds-zero -z -t, -k3,3 -k1,1nr "$d/dupsz"
awk 'BEGIN { s = "x"; for (i = 0; i < 21; i++) s = s s; print "5," s }' > "$d/longdup"
cat "$d/dups" "$d/longdup" "$d/dups" > "$d/dups2"
rounds merge-rounds-long-line -t, -k1,1n -s "$d/dups2"
sort -t, -k1,1n "$d/dups" > "$d/m1"
sort -t, -k1,1n "$d/dups2" > "$d/m2"
rounds merge-rounds-m -m -t, -k1,1n "$d/m1" "$d/m2" "$d/m1"
rounds merge-rounds-m-unique -m -u -t, -k1,1n "$d/m1" "$d/m2"
# --debug: the key marks under each line and the warnings, as GNU sort's
# (its own tests are make check-gnu's sort-debug-keys.sh and -warn.sh);
# through the gathered chunk, the streamed parts, the merge of spilled
# runs and -m
debug_case() {
	_n=$1 _in=$2
	shift 2
	sort --debug "$@" "$_in" > "$d/exp" 2> "$d/exp.err"
	"$G" --debug "$@" "$_in" > "$d/got" 2> "$d/got.err"
	sed 's/^sort: /gpusort: /' "$d/exp.err" > "$d/exp.err2"
	if ! cmp -s "$d/exp" "$d/got"; then fail "$_n" "marks differ: $(diff "$d/exp" "$d/got" | head -n 5 | tr '\n' ' ')"
	elif ! cmp -s "$d/exp.err2" "$d/got.err"; then fail "$_n" "warnings differ: $(diff "$d/exp.err2" "$d/got.err" | tr '\n' ' ')"
	else pass "$_n"; fi
}
printf '10\tb 2K\n  -3.5e2 x\n\n1\t\tJan 5M\nfeb -0\n 1,5 0x1p4\n+7 junk\n' > "$d/dbg"
debug_case debug-keys-n "$d/dbg" -k1,1n -k3h
debug_case debug-keys-g-b "$d/dbg" -b -k2g -k1,1
debug_case debug-keys-M-stable "$d/dbg" -s -k2M -k1.2,1.3
debug_case debug-keys-unique-t "$d/dbg" -u -t' ' -k2,2 -k1n
debug_case debug-keys-whole "$d/dbg" -fr
debug_case debug-keys-z "$d/dbg" -z -k2
debug_case debug-warn-ignored "$d/dbg" -gbr -k1,1n -k1,1r
debug_case debug-warn-obsolete "$d/dbg" -rb +1 -2.3
debug_case debug-warn-t-dot "$d/dbg" -t. -k1n
debug_case debug-big "$d/dups" -t, -k2,2 -k1,1n
debug_case debug-big-spilled "$d/dups" -S 1M -T "$d/t" -t, -k3,3 -u
debug_case debug-merge "$d/m2" -m -t, -k1,1n "$d/m1"
# a key from the line's start with -b whose end comes before its first
# non-blank: marked where the key ends (GNU skips blanks up to it alone)
printf '  a b\nx y\n\n  \n\t\tq  r\n  -3 4\n b\n' > "$d/dbgb"
debug_case debug-b-key-ends-in-blanks "$d/dbgb" -t' ' -b -k1,1.0 -s
debug_case debug-b-key-ends-in-blanks-k1b "$d/dbgb" -t' ' -k1b,1
debug_case debug-b-key-ends-in-blanks-field2 "$d/dbgb" -t' ' -b -k2,2
# a numeric or month key whose end comes before its start: the blanks at
# its start skipped up to the line's end before "no match" is marked
printf 'abc d\n3 : 1G : Dec\nx  y 1K z\n' > "$d/dbgn"
debug_case debug-numeric-end-before-start "$d/dbgn" -k1.4,1.1n
debug_case debug-month-end-before-start "$d/dbgn" -k1.4,1.1M
debug_case debug-human-end-before-start-b "$d/dbgn" -b -k1.4h,1
debug_case debug-general-end-before-start-t "$d/dbgn" -b -t' ' -k2.4g,2b
if "$G" --debug -o "$d/got" "$d/dbg" 2> "$d/err" || [ $? != 2 ] || ! grep -q "options '-o --debug' are incompatible" "$d/err"; then
	fail debug-with-o "$(cat "$d/err")"
else pass debug-with-o; fi

# --verify finds the same first line out of order as the one-thread merge
# (an -m input out of order: line 60001 of m3 goes before the line before it)
awk -F, 'NR == 60001 { $0 = "0,x" } { print }' "$d/m1" > "$d/m3"
for p in 1 8; do
	"$G" --parallel=$p --verify -m -t, -k1,1n "$d/m1" "$d/m3" -o "$d/got" 2> "$d/err$p"
	echo "status $?" >> "$d/err$p"
done
if grep -q "verify: FAILED: output line [0-9]* is out of order (is every -m input sorted?)" "$d/err1" && cmp -s "$d/err1" "$d/err8"; then
	pass merge-rounds-verify-disorder
else
	fail merge-rounds-verify-disorder "$(cat "$d/err1" "$d/err8")"
fi

# stats_case NAME PATTERN P OPTION...: gpusort --parallel=P --stats
# OPTION... on the big file gives $d/exp, and its --stats line has PATTERN
stats_case() {
	_n=$1 _pat=$2 _p=$3
	shift 3
	if "$G" --parallel="$_p" --stats "$@" "$d/big" > "$d/got" 2> "$d/err"; then
		if grep -q -- "$_pat" "$d/err"; then same "$_n" "$d/exp" "$d/got"
		else fail "$_n" "--stats lacks '$_pat': $(cat "$d/err")"; fi
	else
		fail "$_n" "status $?: $(cat "$d/err")"
	fi
}

# the prefix width: 4 bytes when every line's key prefix is padding after
# them, from the keys (a character range, a short code), else 12; ties
# then go on to the full comparison as with 12 (stable, -r, -u too)
for c in "4:-t, -k2.1,2.3" "4:-t, -s -k2.1,2.3" "12:-t, -k2.2,2.8" "4:-t, -k2.1,2.3r -k1,1n" "4:-t, -u -k2.1,2.2" \
	"4:-t, -r -k2.1,2.4" "12:-t, -k2,2" "12:-t, -k3,3n"; do
	w=${c%%:*} o=${c#*:}
	# shellcheck disable=SC2086
	sort $o "$d/big" > "$d/exp"
	# shellcheck disable=SC2086
	for p in 1 3; do stats_case "prefix-width-$w($o)-parallel$p" " $w-byte key prefixes" $p $o; done
done

# a chunk whose sampled prefixes all end within 4 bytes but one line's key
# is longer (line 2, between the samples): kept at 12 bytes, same order
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "%s,%d\n", i == 1 ? "zyxwvutsrq" : substr("abcd", 1 + i % 4, 2), i % 7 }' > "$d/probe"
sort -t, -k1,1 "$d/probe" > "$d/exp"
if "$G" --stats -t, -k1,1 "$d/probe" > "$d/got" 2> "$d/err"; then
	if grep -q " 12-byte key prefixes" "$d/err"; then same prefix-width-probe-missed "$d/exp" "$d/got"
	else fail prefix-width-probe-missed "not 12 bytes: $(cat "$d/err")"; fi
else
	fail prefix-width-probe-missed "status $?: $(cat "$d/err")"
fi

# ties_case NAME FILE MOST OPTION...: gpusort --stats OPTION... FILE is
# sort's output, with at most MOST lines left to the full comparison (the
# rest ordered by the prefixes; --stats counts them)
ties_case() {
	_n=$1 _f=$2 _most=$3
	shift 3
	sort "$@" "$_f" > "$d/exp"
	if "$G" --stats "$@" "$_f" > "$d/got" 2> "$d/err"; then
		t=$(sed -n 's/.* \([0-9]*\) ties finished by full comparison.*/\1/p' "$d/err")
		if [ -z "$t" ] || [ "$t" -gt "$_most" ]; then fail "$_n" "$t lines left to the full comparison: $(cat "$d/err")"
		else same "$_n" "$d/exp" "$d/got"; fi
	else
		fail "$_n" "status $?: $(cat "$d/err")"
	fi
}

# lines sharing a start longer than the refinements reach (16 prefixes,
# 192 bytes: paths, URLs): refined past it at once
awk 'BEGIN { s = "https://example.org/"; while (length(s) < 300) s = s "abcdefghij/";
	for (i = 0; i < 20000; i++) printf "%s%d,%s%d\n", s, (i * 7919) % 20011, s, (i * 104729) % 20011 }' > "$d/shared"
for o in "" "-r" "-t, -k2,2" "-t, -k2,2r -k1,1" "-s -t, -k2,2"; do
	# shellcheck disable=SC2086
	ties_case "shared-start($o)" "$d/shared" 2000 $o
done

# a run of equal prefixes holding most of a chunk (lines that start
# alike: log lines' dates, paths) refined by every thread (refine_giant),
# the runs inside it too where they are large (two directories of 100000
# paths each; -g's three values, whose codes are whole, then the line),
# or, where no prefix can tell its lines apart (numbers of 500 digits
# that share 497: past the 256 code bytes the refinement reads), by the
# full comparison on every thread (pieces sorted, then merged two by two:
# 2, 3, 4 pieces)
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "2026-11-27T14:00:00 /var/lib/%s/files/%d,%d.5\n",
	i % 2 ? "alpha" : "beta", (i * 7919) % 200003, i % 3 }' > "$d/giant"
for o in "" "-r" "-u" "-t, -k1,1" "-s -t, -k2,2g" "-t, -k2,2g" "-t, -k2,2V -k1,1r"; do
	for p in 2 3 4; do
		# shellcheck disable=SC2086
		ties_case "giant-run($o)-parallel$p" "$d/giant" 200000 --parallel=$p $o
	done
done
ties_case "giant-run-prefixes-decide" "$d/giant" 100 --parallel=4
ties_case "giant-run-g-whole" "$d/giant" 100 --parallel=4 -t, -k2,2g
awk 'BEGIN { n = "1"; while (length(n) < 497) n = n "234567890"; n = substr(n, 1, 497);
	for (i = 0; i < 70000; i++) printf "x,%s%03d,%d\n", n, (i * 7919) % 1000, i % 7 }' > "$d/giantlong"
for o in "-t, -k2,2n" "-s -t, -k2,2nr" "-t, -k2,2n -k3,3n"; do
	for p in 2 3; do
		# shellcheck disable=SC2086
		ties_case "giant-run-full-comparison($o)-parallel$p" "$d/giantlong" 70000 --parallel=$p $o
	done
done
# lines whose keys are all the same (few distinct values, then each
# value's lines): seen as such before any record is made, then ordered by
# the next key, the whole line, or not at all (-s)
awk 'BEGIN { for (i = 0; i < 150000; i++) printf "%s %d\n", i % 3 ? "GET" : "POST", (i * 7919) % 1009 }' > "$d/fewkeys"
for o in "" "-k1,1" "-s -k1,1" "-k1,1 -k2,2nr" "-r -k1,1" "-u -k1,1"; do
	# shellcheck disable=SC2086
	ties_case "same-keys($o)" "$d/fewkeys" 3000 --parallel=4 $o
done
# every line of the chunk sharing key 0's start (chunk_common_start): the
# records' prefixes start past it. Lines that are the shared start alone or
# it and a NUL, -b's blanks before it, a shared field, -z, two chunks
# (each its own start), keys that are values (no start skipped)
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "2026-11-27T%02d:%02d:%02d.%03d host%d\n",
	(i * 7) % 24, (i * 13) % 60, (i * 17) % 60, (i * 7919) % 1000, i % 5 }' > "$d/dated"
for o in "" "-r" "-u" "-s -k1,1" "-k2,2 -k1,1r"; do
	for p in 1 4; do
		# shellcheck disable=SC2086
		ties_case "chunk-start($o)-parallel$p" "$d/dated" 100000 --parallel=$p $o
	done
done
# runs whose chunks each skipped the start, merged (the merge's prefixes
# are its own, from byte 0: about two full comparisons a line)
awk 'BEGIN { for (i = 0; i < 100000; i++) { t = (i * 7919) % 86400000; printf "2026-11-27T%02d:%02d:%02d.%03d host%d\n",
	int(t / 3600000), int(t / 60000) % 60, int(t / 1000) % 60, t % 1000, i % 5 } }' > "$d/stamped"
for o in "" "-r"; do
	# shellcheck disable=SC2086
	ties_case "chunk-start-merged-runs($o)" "$d/stamped" 400000 --parallel=2 -S 3M -T "$d/t" $o
done
awk 'BEGIN { for (i = 0; i < 3000; i++) { if (i % 500 == 7) printf "abcdef\n"; else if (i % 700 == 3) printf "abcdef%c\n", 0;
	else printf "%*sabcdef%s,%d\n", i % 3, "", substr("zyxwvutsrqponm", 1 + i % 13, 1 + i % 5), i % 11 } }' > "$d/edge"
for o in "" "-r" "-u" "-b -k1,1" "-b -k1,1 -u" "-t, -k1,1" "-s -t, -k1,1" "-t, -k2,2n" "-f" "-d" "-z"; do
	# shellcheck disable=SC2086
	ties_case "chunk-start-edge($o)" "$d/edge" 3000 --parallel=2 $o
done
tr '\n' '\000' < "$d/dated" > "$d/dated0"
ties_case "chunk-start-zero-terminated" "$d/dated0" 100000 --parallel=3 -z
# -R on a key with two values: equal keys have equal codes (MD5, key), so
# their lines go on to the next key's bytes, not to the full comparison
printf 'gpusort random source, 16+ bytes\n' > "$d/rs"
for p in 1 3; do
	ties_case "random-two-keys-parallel$p" "$d/giant" 100 --parallel=$p --random-source="$d/rs" -t/ -k4,4R
	ties_case "random-two-keys-then-n-parallel$p" "$d/giant" 100 --parallel=$p --random-source="$d/rs" -t/ -k4,4Rr -k6,6n
done
# two chunks (the lines and their costs under -S 10M), one spilled as a
# run and merged with the other (the merge's comparisons of lines that
# start alike are full ones: about one a line, and the rounds' cuts add a
# binary search a source and splitter)
ties_case "giant-run-spilled" "$d/giant" 204000 --parallel=2 -S 10M -T "$d/t"

# -V ordered by its prefix code (text_version_code): the same order as
# GNU's filevercmp, over leading zeros, '~' pre-releases, file suffixes and
# leading dots
awk 'BEGIN { split("~rc1 ~ a b.1 .tar.gz .txt ~beta2 -1 0", x, " ");
	for (i = 0; i < 20000; i++) { v = (i * 7919) % 20011;
		printf "%slib%d-%d.%d.%03d%s,%d\n", (i % 50 ? "" : "."), v % 3, v % 7, v % 23, v % 97, (i % 3 ? "" : x[1 + v % 10]), v } }' > "$d/versions"
for o in "-V" "-r -V" "-t, -k1,1V" "-t, -k1,1Vr -k2,2n" "-s -t- -k2V"; do
	# shellcheck disable=SC2086
	ties_case "version-code($o)" "$d/versions" 10000 $o
done

# one chunk, no runs: its sorted parts written as the rest is sorted, on 1
# to 4 threads (the -n and -u rows: ties refined within a part, and the
# line-by-line writer)
for o in "" "-t, -k2,2" "-t, -k3,3n" "-t, -k2,2 -k3,3n -r" "-t, -k2.1,2.2 -u"; do
	# shellcheck disable=SC2086
	sort $o "$d/big" > "$d/exp"
	# shellcheck disable=SC2086
	for p in 1 2 4; do stats_case "one-chunk($o)-parallel$p" " 0 runs spilled" $p $o; done
done

# -S counts each line's cost (48 bytes beside its text): 200000 short lines
# (1.3 MB, 11 MB with their costs) under -S 1M make at least 10 chunks, each
# spilled but the last, which stays in memory (a chunk read -S's bytes and
# cost its lines on top before); the output is sort -n's
seq 1 200000 | sort -R --random-source="$d/rs" > "$d/seq"
sort -n "$d/seq" > "$d/seq.exp"
if "$G" -n -S 1M -T "$d/t" --stats "$d/seq" > "$d/got" 2> "$d/err"; then
	_c=$(sed -n 's/.* \([0-9]*\) chunks, \([0-9]*\) runs spilled, 0 merge passes.*/\1 \2/p' "$d/err")
	set -- $_c
	if [ $# = 2 ] && [ "$1" -ge 10 ] && [ "$2" = $(($1 - 1)) ]; then same budget-counts-line-costs "$d/seq.exp" "$d/got"
	else fail budget-counts-line-costs "want 10 or more chunks, all but the last spilled: $(cat "$d/err")"; fi
else
	fail budget-counts-line-costs "status $?: $(cat "$d/err")"
fi

# runs that do not overlap are copied whole (text_concat.h): an input in
# order, in reverse order, and sorted by a key with ties across runs. Its
# reverse must keep those ties in input order, and the last resort compares
# whole lines whose second field is not in order: the runs overlap, and are
# merged line by line. Each against GNU sort, under -S 1M --batch-size=4
# (merge passes too), and whether --stats says the runs were copied whole.
seq 1 200000 > "$d/ord"
awk '{ a[NR] = $0 } END { for (i = NR; i > 0; i--) print a[i] }' "$d/ord" > "$d/rev"
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "%d %d\n", int(i / 1000), (i * 7919) % 100003 }' > "$d/tie"
# concat_case NAME WANT (1: copied whole, 0: merged) INPUT OPTION...
concat_case() {
	_n=$1 _w=$2 _in=$3
	shift 3
	LC_ALL=C sort "$@" "$_in" > "$d/exp"
	if "$G" -S 1M --batch-size=4 -T "$d/t" --stats "$@" "$_in" > "$d/got" 2> "$d/err"; then
		_c=0
		grep -q "copied their runs whole" "$d/err" && _c=1
		if [ $_c = "$_w" ]; then same "$_n" "$d/exp" "$d/got"
		else fail "$_n" "copied whole: $_c, want $_w: $(cat "$d/err")"; fi
	else
		fail "$_n" "status $?: $(cat "$d/err")"
	fi
}
concat_case concat-in-order 1 "$d/ord" -n
concat_case concat-reverse-input 1 "$d/rev" -n
concat_case concat-reverse-order 1 "$d/ord" -rn
concat_case concat-ties-stable 1 "$d/tie" -s -k1,1n
concat_case concat-ties-stable-reverse 0 "$d/tie" -s -k1,1nr
concat_case concat-ties-last-resort 0 "$d/tie" -k1,1n
concat_case concat-unique 0 "$d/ord" -n -u
rm -f "$d/ord" "$d/rev" "$d/tie"

# -m's regular files are read through mappings, as runs are
# (text_reader_map_input): files that do not overlap are copied whole,
# files that do are merged with their blocks read ahead on every free
# thread, into the output's own mapping; a last line without its
# delimiter gets one; -o may name an input; an input cut short while
# mapped is an error (exit 2, the old output kept). Each against GNU sort.
seq 1 100000 > "$d/mm1"
seq 100001 200000 > "$d/mm2"
printf '200001\n200002' > "$d/mm3"
awk 'BEGIN { srand(9); for (i = 0; i < 150000; i++) print int(rand() * 300000) }' | LC_ALL=C sort -n > "$d/mm4"
# mcase NAME WANT (a --stats pattern that must be there) OPTION...
mcase() {
	_n=$1 _pat=$2
	shift 2
	LC_ALL=C sort "$@" > "$d/exp"
	if GPUSORT_TEXT_BLOCK=1048576 "$PWD/tests/bin/gpusort-test" --parallel=4 --stats "$@" -o "$d/got" 2> "$d/err"; then
		if grep -q "$_pat" "$d/err"; then same "$_n" "$d/exp" "$d/got"
		else fail "$_n" "--stats lacks \"$_pat\": $(cat "$d/err")"; fi
	else
		fail "$_n" "status $?: $(cat "$d/err")"
	fi
}
mcase m-mapped-disjoint "copied their runs whole" -m -n "$d/mm2" "$d/mm3" "$d/mm1"
mcase m-mapped-disjoint-lines "text: 200002 lines" -m -n "$d/mm3" "$d/mm1" "$d/mm2"
mcase m-mapped-overlap "blocks read ahead on several threads" -m -n "$d/mm1" "$d/mm4" "$d/mm3"
mcase m-mapped-overlap-unique "lines" -m -n -u "$d/mm4" "$d/mm1" "$d/mm4"
mcase m-mapped-output-mapped "(mapped, every thread)" -m -n "$d/mm4" "$d/mm3" "$d/mm1"
# standard input named twice: read through the first, the second empty
# (as sort(1)); two readers of the one descriptor split each other's lines
# (a line longer than a read cut in two)
{ seq -w 1 70000; printf 'a\n'; head -c 65536 /dev/zero | tr '\0' b; echo; } > "$d/twice"
printf '00005x\nab\nzz\n' > "$d/twice2"
for _o in "-S 256K --parallel=1" "--parallel=3" "--batch-size=2 --parallel=2"; do
	# shellcheck disable=SC2086
	LC_ALL=C sort -m $_o - - "$d/twice2" - < "$d/twice" > "$d/exp"
	# shellcheck disable=SC2086
	if "$G" -m $_o - - "$d/twice2" - < "$d/twice" > "$d/got" 2> "$d/err"; then same "m-stdin-twice($_o)" "$d/exp" "$d/got"
	else fail "m-stdin-twice($_o)" "status $?: $(cat "$d/err")"; fi
done
# -m of inputs out of order merges as sort(1) merges them, a head line at
# a time: on one thread and on several (the merge in rounds takes only
# windows in order; small blocks through the test build: many windows,
# each kind of round), into a file (mapped) and a pipe, with -u and -n;
# inputs that look disjoint by their ends (not copied whole); and more
# inputs than --batch-size, grouped as sort(1) groups them (their order
# depends on which go together)
awk 'BEGIN { for (i = 0; i < 20000; i++) print (i * 37) % 1000 }' > "$d/unsorted"
LC_ALL=C sort "$d/unsorted" > "$d/usorted"
awk 'NR % 997 == 0 { print "0" } { print }' "$d/usorted" > "$d/usorted1"
printf '1\n5\n2\n' > "$d/ue"
printf '3\n4\n' > "$d/uf"
printf '1\n2\n' > "$d/ul1"
printf '7\n6\n' > "$d/ul2"
for _f in "unsorted usorted" "usorted1 unsorted usorted" "ue uf" "ul2 ul1"; do
	_fs=""
	for _x in $_f; do _fs="$_fs $d/$_x"; done
	for _o in "" -u -n "-r -u"; do
		# shellcheck disable=SC2086
		LC_ALL=C sort -m $_o $_fs > "$d/exp"
		for _p in 1 2 4; do
			_n="m-unsorted-as-sort($_f,$_o,parallel$_p)"
			# shellcheck disable=SC2086
			if "$G" -m --parallel=$_p $_o $_fs -o "$d/got" 2> "$d/err"; then same "$_n" "$d/exp" "$d/got"
			else fail "$_n" "status $?: $(cat "$d/err")"; fi
			[ -x "$PWD/tests/bin/gpusort-test" ] || continue
			# shellcheck disable=SC2086
			GPUSORT_TEXT_BLOCK=4096 "$PWD/tests/bin/gpusort-test" -m --parallel=$_p $_o $_fs 2> "$d/err" | cat > "$d/got"
			same "$_n-small-blocks-pipe" "$d/exp" "$d/got"
		done
	done
done
# the last input in output order may be out of order and still be copied
# whole: sort(1) puts its lines out as they are once the others are done
printf '1\n2\n7\n6\n' > "$d/exp"
if "$G" -m --parallel=2 --stats "$d/ul2" "$d/ul1" -o "$d/got" 2> "$d/err" && grep -q "1 of the merges copied" "$d/err"; then
	same m-unsorted-last-copied-whole "$d/exp" "$d/got"
else fail m-unsorted-last-copied-whole "status $?: $(cat "$d/err")"; fi
_fs=""
for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do
	awk -v s=$_i 'BEGIN { for (j = 0; j < 50 * s; j++) print (j * 7919 + s * 31) % 997 }' > "$d/ug$_i"
	[ $((_i % 4)) = 0 ] && LC_ALL=C sort -o "$d/ug$_i" "$d/ug$_i"
	_fs="$_fs $d/ug$_i"
done
for _o in "" --batch-size=2 --batch-size=3 --batch-size=5; do
	# shellcheck disable=SC2086
	LC_ALL=C sort -m $_o $_fs > "$d/exp"
	for _p in 1 3; do
		# shellcheck disable=SC2086
		if "$G" -m --parallel=$_p $_o -T "$d" $_fs -o "$d/got" 2> "$d/err"; then same "m-unsorted-groups($_o,parallel$_p)" "$d/exp" "$d/got"
		else fail "m-unsorted-groups($_o,parallel$_p)" "status $?: $(cat "$d/err")"; fi
	done
done
cp "$d/mm4" "$d/mm5"
LC_ALL=C sort -m -n "$d/mm5" "$d/mm1" > "$d/exp"
if "$G" -m -n "$d/mm5" "$d/mm1" -o "$d/mm5" 2> "$d/err"; then same m-mapped-output-is-input "$d/exp" "$d/mm5"
else fail m-mapped-output-is-input "status $?: $(cat "$d/err")"; fi
if [ -x "$PWD/tests/bin/gpusort-test" ]; then
	for _in in mm4 mm2; do
		cp "$d/$_in" "$d/mcut"
		echo old > "$d/fo"
		# (the switch cuts the first file mapped: the copy, not mm1)
		GPUSORT_FAULT=input-changes "$PWD/tests/bin/gpusort-test" -m -n "$d/mcut" "$d/mm1" -o "$d/fo" 2> "$d/err"
		_rc=$?
		if [ $_rc = 2 ] && [ "$(cat "$d/fo")" = old ] && grep -q "an input file shrank while it was read" "$d/err" &&
			[ -z "$(ls -a "$d" | grep '\.gpusort\.')" ]; then
			pass "m-mapped-input-truncated-$_in"
		else
			fail "m-mapped-input-truncated-$_in" "status $_rc (want 2 and the old output): $(cat "$d/err")"
		fi
	done
	[ "$(wc -l < "$d/mm1")" = 100000 ] || fail m-mapped-input-truncated-kept-mm1 "mm1 was cut"
	# a mapped input's reads (the test build counts its pieces as reads):
	# an error names the file (either: the files are taken on several
	# threads at once), exit 2, the old output kept; interrupted
	# or short, the right output. Copied whole (mm2) and merged (mm4).
	for _in in mm4 mm2; do
		LC_ALL=C sort -m -n "$d/mm1" "$d/$_in" > "$d/exp"
		for _f in read@2:EIO read@2:EINTR read@2:short; do
			echo old > "$d/fo"
			GPUSORT_FAULT=$_f "$PWD/tests/bin/gpusort-test" -m -n "$d/mm1" "$d/$_in" -o "$d/fo" 2> "$d/err"
			_rc=$?
			case $_f in
			*EIO) [ $_rc = 2 ] && [ "$(cat "$d/fo")" = old ] && grep -q "read failed: $d/mm[0-9]: Input/output error" "$d/err" ;;
			*) [ $_rc = 0 ] && cmp -s "$d/exp" "$d/fo" ;;
			esac && pass "m-mapped-$_in-$_f" || fail "m-mapped-$_in-$_f" "status $_rc: $(head -c 200 "$d/err")"
		done
	done
fi
rm -f "$d"/mm[1-5] "$d/mcut"

# input nearly in order: its runs overlap only at their ends, so the merge
# takes one run at a time, and that run's blocks are read ahead by every
# free thread at once (text_ahead.c: a mapped run's pieces counted and
# indexed, the prefixes of other sources' blocks). Numbers each with up to
# 999 added, every 20011th line 231 KB long (longer than a block's range,
# 4 blocks of 32 KiB: a block of its own), against GNU sort, blocks of 32
# KiB (one piece, cut by the block's line count) and 1 MiB (64 pieces
# counted and indexed on several threads: --stats must say so), on 2 and
# 8 threads.
awk 'BEGIN { srand(11); for (i = 1; i <= 300000; i++) { printf "%d", i + int(rand() * 1000);
	if (i % 20011 == 0) { printf " "; for (j = 0; j < 1500; j++) printf "%s", "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789" }
	printf "\n" } }' > "$d/near"
LC_ALL=C sort -n "$d/near" > "$d/near.exp"
for blk in 32768 1048576; do
	for p in 2 8; do
		_n=near-order-block$blk-parallel$p
		if GPUSORT_TEXT_BLOCK=$blk "$PWD/tests/bin/gpusort-test" -n -S 4M --parallel=$p -T "$d/t" --stats "$d/near" \
			> "$d/got" 2> "$d/err"; then
			if [ $blk = 32768 ] || grep -q "blocks read ahead on several threads at once" "$d/err"; then
				same "$_n" "$d/near.exp" "$d/got"
			else
				fail "$_n" "no block read ahead on several threads: $(cat "$d/err")"
			fi
		else
			fail "$_n" "status $?: $(cat "$d/err")"
		fi
	done
done
rm -f "$d/near" "$d/near.exp"

# the merge is held to -S beside the last chunk it keeps in memory: 8 M
# lines (61 MB) under -S 16M make 27 runs, merged once the last chunk is
# sorted; without the mapped runs and output (the test build's
# GPUSORT_OUTMAP=0) the peak resident set is the process's own memory,
# which must stay within 28 MiB: 22 MB measured (-S and the floors:
# writers' buffers, the program), with room for huge pages' rounding. On 8
# threads it also catches blocks filled on the helper threads and freed
# into their malloc arenas, where they stayed beside the next merge's.
# Before, the readers and blocks were sized as if -S were free: 35-56 MB
# on 1-4 threads.
seq 1 8000000 | sort -R --random-source="$d/rs" > "$d/seq8"
sort -n "$d/seq8" > "$d/seq8.exp"
for p in 1 2 8; do
	if GPUSORT_OUTMAP=0 "$PWD/tests/bin/gpusort-test" -n -S 16M --parallel=$p -T "$d/t" --stats=json "$d/seq8" \
		> "$d/got" 2> "$d/err"; then
		_peak=$(sed -n 's/.*"peak_rss_bytes":\([0-9]*\).*/\1/p' "$d/err")
		_runs=$(sed -n 's/.*"runs":\([0-9]*\).*/\1/p' "$d/err")
		if [ -n "${GPUSORT_SANITIZED:-}" ] && [ "${_runs:-0}" -ge 16 ] && cmp -s "$d/seq8.exp" "$d/got"; then
			# the sanitizer's shadow memory is in the resident set too
			skip "merge-held-to-S-parallel$p" "output right; peak $((${_peak:-0} >> 20)) MiB not checked under $GPUSORT_SANITIZED sanitizer"
		elif [ -n "$_peak" ] && [ "$_peak" -le $((28 << 20)) ] && [ "${_runs:-0}" -ge 16 ]; then
			same "merge-held-to-S-parallel$p" "$d/seq8.exp" "$d/got"
		else
			fail "merge-held-to-S-parallel$p" "want 16 runs or more and a peak of 28 MiB or less: $(cat "$d/err")"
		fi
	else
		fail "merge-held-to-S-parallel$p" "status $?: $(cat "$d/err")"
	fi
done
rm -f "$d/seq8" "$d/seq8.exp"

# faults (the test build, tests/README.md): a failed open, read or write of
# an input, a run or the output, or a corrupt run, stops the sort with exit 2,
# the old output kept and no temporary file left; a short transfer changes
# nothing
GST=$PWD/tests/bin/gpusort-test
sort -t, -k2,2 "$d/big" > "$d/exp"
# fault NAME SPEC WANT [-S SIZE]: WANT 2 (an error) or 0 (the right output);
# -S 1M (spills) unless a fourth argument gives another. The input, its
# sorted output and the options: $FIN, $FEXP, $FOPTS (default "$d/big"
# under -t, -k2,2)
fault() {
	echo old > "$d/fo"
	# shellcheck disable=SC2086
	GPUSORT_FAULT=$2 "$GST" -S "${4:-1M}" --batch-size=4 -T "$d/t" ${FOPTS:--t, -k2,2} "${FIN:-$d/big}" -o "$d/fo" 2> "$d/ferr"
	_rc=$?
	_left=$(ls -A "$d/t"; ls -a "$d" | grep '\.gpusort\.')
	if [ -n "$_left" ]; then
		fail "$1" "temporary files left: $_left"
	elif [ "$3" = 2 ] && { [ $_rc != 2 ] || [ "$(cat "$d/fo")" != old ] || [ ! -s "$d/ferr" ]; }; then
		fail "$1" "status $_rc (want 2 and the old output): $(head -c 200 "$d/ferr")"
	elif [ "$3" = 0 ] && { [ $_rc != 0 ] || ! cmp -s "${FEXP:-$d/exp}" "$d/fo"; }; then
		fail "$1" "status $_rc or a wrong output: $(head -c 200 "$d/ferr")"
	else
		pass "$1"
	fi
}
if [ -x "$GST" ]; then
	fault fault-open-input open@1 2
	fault fault-read-input read@2 2
	fault fault-read-run read@60 2
	fault fault-write-run write@2:ENOSPC 2
	fault fault-write-late write@40+:ENOSPC 2
	fault fault-corrupt-run corrupt-spill 2
	grep -q "^gpusort: temporary file $d/t/gpusort\.[^:]*: checksum mismatch" "$d/ferr" &&
		pass fault-corrupt-run-names-file ||
		fail fault-corrupt-run-names-file "$(head -c 200 "$d/ferr")"
	fault fault-read-short read@3:short 0
	fault fault-write-short write@3:short 0
	# one chunk: the output written while its parts are sorted
	fault fault-write-output-streamed write@2:ENOSPC 2 1G
	fault fault-write-output-streamed-late write@5+:ENOSPC 2 1G
	fault fault-write-output-streamed-short write@3:short 0 1G
	# a spilled run read back through a mapping, cut short underneath
	# (SIGBUS, as a disk's read error): exit 2, the old output kept, no temp left
	fault fault-mapped-run-truncated run-shrinks 2
	grep -q "could not be read back: stopped" "$d/ferr" &&
		pass fault-mapped-run-truncated-message ||
		fail fault-mapped-run-truncated-message "$(head -c 200 "$d/ferr")"
	# the only input, mapped, truncated underneath (SIGBUS): exit 2, the old output kept
	fault fault-mapped-input-truncated input-changes 2 1G
	grep -q "gpusort: an input file shrank while it was read, the output while it was written, or a spilled run could not be read back: stopped" "$d/ferr" &&
		pass fault-mapped-input-truncated-message ||
		fail fault-mapped-input-truncated-message "$(head -c 200 "$d/ferr")"
	# read (the budget is smaller than the input), truncated once some of it
	# was read: exit 2, the old output kept, the file named (the records' rule)
	cp "$d/big" "$d/big.keep"
	fault fault-read-input-truncated input-changes 2
	grep -q "gpusort: .*/big: the file changed while it was read (its size or modification time): nothing written" "$d/ferr" &&
		pass fault-read-input-truncated-message ||
		fail fault-read-input-truncated-message "$(head -c 200 "$d/ferr")"
	mv "$d/big.keep" "$d/big"
	# the merge that copies its runs whole (an input in order: text_concat.h):
	# a corrupt run, a run cut short under its mapping, and the output's
	# last writes (the copies into its mapping) failing
	seq 1 300000 > "$d/inorder"
	FIN=$d/inorder FEXP=$d/inorder FOPTS=-n
	fault fault-concat-ok write@1000000 0
	"$GST" -n -S 1M --batch-size=4 -T "$d/t" --stats "$d/inorder" 2>&1 > /dev/null | grep -q "copied their runs whole" &&
		pass fault-concat-path || fail fault-concat-path "the runs were merged line by line"
	fault fault-concat-corrupt-run corrupt-spill 2
	grep -q "^gpusort: temporary file $d/t/gpusort\.[^:]*: checksum mismatch" "$d/ferr" &&
		pass fault-concat-corrupt-run-names-file ||
		fail fault-concat-corrupt-run-names-file "$(head -c 200 "$d/ferr")"
	fault fault-concat-run-truncated run-shrinks 2
	rm -f "$d/cnt"
	GPUSORT_FAULT_COUNT=$d/cnt "$GST" -n -S 1M --batch-size=4 -T "$d/t" "$d/inorder" -o "$d/fo" 2> /dev/null
	_w=$(awk '$1 == "write" { print $2 }' "$d/cnt" 2> /dev/null)
	if [ "${_w:-0}" -gt 3 ]; then
		for _n in $_w $((_w - 1)) $((_w - 2)); do fault "fault-concat-write-$_n-of-$_w" "write@$_n:ENOSPC" 2; done
	else
		fail fault-concat-write "no write calls counted: $(cat "$d/cnt" 2> /dev/null)"
	fi
	unset FIN FEXP FOPTS
fi

# the only regular input is mapped: a last line without its delimiter where
# the file ends just before, on and after a page boundary, with and without
# -z, and standard input left at an unaligned offset by another reader
for n in 1 4095 4096 4097 8191 8192 12289; do
	awk -v n=$n 'BEGIN { srand(n); s = ""; while (length(s) < n) s = s sprintf("%d,%c\n", int(rand() * 1000), 97 + int(rand() * 26)); printf "%s", substr(s, 1, n) }' > "$d/pg"
	for z in "" -z; do
		LC_ALL=C sort $z -t, -k2,2 -k1,1n "$d/pg" > "$d/exp"
		if "$G" $z -t, -k2,2 -k1,1n "$d/pg" > "$d/got" 2> "$d/err"; then same "mapped-end-$n$z" "$d/exp" "$d/got"; else fail "mapped-end-$n$z" "status $?: $(cat "$d/err")"; fi
	done
done
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "%d\n", (i * 7919) % 3001 }' > "$d/pg"
tail -c +1001 "$d/pg" | LC_ALL=C sort -n > "$d/exp"
if (dd bs=1000 count=1 of=/dev/null 2> /dev/null; "$G" -n) < "$d/pg" > "$d/got" 2> "$d/err"; then
	same mapped-stdin-offset "$d/exp" "$d/got"
else
	fail mapped-stdin-offset "status $?: $(cat "$d/err")"
fi

# standard output opened onto the only input (`gpusort f 1<>f`): GNU sort
# reads it all before writing; a mapped input would be read while the output
# overwrites it, so such an input is read into memory (4 MiB: several parts)
"$PWD/bench/gen_lines" csv 4M 3 > "$d/oi.src"
sort -t, -k2,2 "$d/oi.src" > "$d/exp"
for how in file stdin; do
	cp "$d/oi.src" "$d/oi"
	if [ $how = file ]; then "$G" -t, -k2,2 "$d/oi" 1<> "$d/oi" 2> "$d/err"; else "$G" -t, -k2,2 < "$d/oi" 1<> "$d/oi" 2> "$d/err"; fi
	rc=$?
	if [ $rc = 0 ]; then same "stdout-is-input-$how" "$d/exp" "$d/oi"; else fail "stdout-is-input-$how" "status $rc: $(cat "$d/err")"; fi
done

# a regular output is filled through a mapping by every thread (io_outmap):
# standard output's offset is where the lines go and where it is left
# (a group's header and trailer around them), bytes beyond them in a longer
# file stay (as write(2) leaves them), and an appending or a pipe's output is
# written instead; the same bytes each time
{ echo header; "$G" -t, -k2,2 "$d/oi.src"; echo trailer; } > "$d/got" 2> "$d/err"
{ echo header; cat "$d/exp"; echo trailer; } > "$d/exp2"
same stdout-mapped-offset "$d/exp2" "$d/got"
awk 'BEGIN { for (i = 0; i < 70000; i++) print "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz" }' > "$d/long"
cp "$d/long" "$d/got"
"$G" -t, -k2,2 "$d/oi.src" 1<> "$d/got" 2> "$d/err"
{ cat "$d/exp"; tail -c +$(($(wc -c < "$d/exp") + 1)) "$d/long"; } > "$d/exp2"
same stdout-mapped-longer-file "$d/exp2" "$d/got"
echo before > "$d/got"
"$G" -t, -k2,2 "$d/oi.src" >> "$d/got" 2> "$d/err"
{ echo before; cat "$d/exp"; } > "$d/exp2"
same stdout-append "$d/exp2" "$d/got"
"$G" -t, -k2,2 --stats "$d/oi.src" 2> "$d/err" | cat > "$d/got"
same stdout-pipe "$d/exp" "$d/got"
grep -q "(mapped, every thread)" "$d/err" && fail stdout-pipe-not-mapped "$(cat "$d/err")" || pass stdout-pipe-not-mapped
"$G" -t, -k2,2 --stats "$d/oi.src" -o "$d/got" 2> "$d/err"
grep -q "(mapped, every thread)" "$d/err" && pass output-mapped || fail output-mapped "not mapped: $(cat "$d/err")"

# --progress for lines, every line drawn (the test build's
# GPUSORT_PROGRESS_INTERVAL=0): a spilled sort in several merge passes shows
# the sort phase and each pass in turn, bytes never going down within one,
# each reaching 100%, then a done line with the input's bytes; one chunk
# shows sort, write and done; standard output holds only the lines
awk 'BEGIN { srand(7); for (i = 0; i < 1000000; i++) printf "%d,%c\n", int(rand() * 1000000), 97 + int(rand() * 26) }' > "$d/pg.src"
sort -t, -k1,1n "$d/pg.src" > "$d/exp"
progress_check() { # NAME WANT_PHASES (the phases in order, '|'-separated)
	_why=$(awk -v want="$2" '
		!/^gpusort: / { print "not a gpusort line: " $0; exit }
		{ ph = $0; sub(/^gpusort: /, "", ph); sub(/: .*/, "", ph) }
		ph != last { if (seen[ph]++) { print "phase " ph " again"; exit } order = order (order ? "|" : "") ph; last = ph; prev = -1 }
		ph != "done" {
			b = $0; sub(/^gpusort: [^:]*: /, "", b); sub(/ of .*/, "", b); sub(/,.*/, "", b)
			split(b, f, " "); u = f[2] == "KiB" ? 1024 : f[2] == "MiB" ? 1048576 : 1; v = f[1] * u
			if (v < prev) { print "bytes went down: " $0; exit } prev = v
			if ($0 ~ /\(100%\)/) full[ph] = 1
		}
		{ lastline = $0 }
		END {
			if (order != want) { print "phases " order ", want " want; exit }
			n = split(want, w, "|"); for (i = 1; i < n; i++) if (!full[w[i]]) { print w[i] " never reached 100%"; exit }
			if (lastline !~ /^gpusort: done: [0-9.]+ [KM]iB in [0-9.]+ s, [0-9.]+ MB\/s$/) print "last line: " lastline
		}' "$d/perr")
	if [ -n "$_why" ]; then fail "$1" "$_why"; else pass "$1"; fi
}
GPUSORT_PROGRESS_INTERVAL=0 "$GST" --progress -S 1M --batch-size=4 -T "$d/t" -t, -k1,1n "$d/pg.src" > "$d/got" 2> "$d/perr"
rc=$?
if [ $rc != 0 ]; then fail progress-spilled "status $rc: $(head -c 200 "$d/perr")"; else
	same progress-spilled-output "$d/exp" "$d/got"
	np=$(sed -n 's/^gpusort: merge pass 1 of \([0-9]*\):.*/\1/p' "$d/perr" | head -n 1)
	if [ "${np:-0}" -lt 2 ]; then fail progress-spilled "want several merge passes: $(grep -c merge "$d/perr") merge lines, of ${np:-none}"
	else
		want=sort; p=1; while [ $p -le $np ]; do want="$want|merge pass $p of $np"; p=$((p + 1)); done
		progress_check progress-spilled "$want|done"
	fi
fi
GPUSORT_PROGRESS_INTERVAL=0 "$GST" --progress -t, -k1,1n "$d/pg.src" > "$d/got" 2> "$d/perr"
same progress-one-chunk-output "$d/exp" "$d/got"
progress_check progress-one-chunk "sort|write|done"
# the done line's bytes are the input's, as the sort phase's total has them
tot=$(sed -n 's/^gpusort: sort: .* of \(.*\) (100%).*/\1/p' "$d/perr" | head -n 1)
[ -n "$tot" ] && grep -q "^gpusort: done: $tot in" "$d/perr" &&
	pass progress-done-bytes || fail progress-done-bytes "want the input's ${tot:-?}: $(tail -n 1 "$d/perr")"

# a signal while runs are spilled or merged: the sort dies of it (128+N),
# the old output kept, no run and no temporary output left; the runs
# unlinked at once, or, with descriptors short (ulimit -n), named in -T
# and removed by the handler
if env --default-signal=INT,TERM true 2> /dev/null; then
	"$PWD/bench/gen_lines" csv 192M 11 > "$d/sig.in" # 1.5-2 s on 2 cores
	for c in INT:2:0.2:unlinked TERM:15:0.5:unlinked INT:2:0.3:named HUP:1:0.7:named; do
		sg=${c%%:*} num=${c#*:} dl=${num#*:} num=${num%%:*} how=${dl#*:} dl=${dl%:*}
		nm=signal-$sg-$how-runs
		rm -rf "$d/st" "$d/so" && mkdir "$d/st" "$d/so" && echo precious > "$d/so/o"
		(
			[ $how = unlinked ] || ulimit -n 24
			exec env --default-signal=INT,TERM "$G" -t, -k2,2 -S 4M --parallel=1 -T "$d/st" -o "$d/so/o" "$d/sig.in"
		) 2> "$d/err" &
		p=$!
		sleep "$dl"
		kill -s $sg $p 2> /dev/null
		wait $p 2> /dev/null
		rc=$?
		want=$((128 + num))
		if [ $rc = 0 ]; then
			skip "$nm" "the sort ended before the signal"
		elif [ $rc = $want ] && [ "$(head -c 9 "$d/so/o")" != precious ] && sort -C -t, -k2,2 "$d/so/o" &&
			[ "$(wc -c < "$d/so/o")" = "$(wc -c < "$d/sig.in")" ]; then
			skip "$nm" "the signal came after the output was in place (a loaded machine)"
		elif [ $rc != $want ]; then
			fail "$nm" "status $rc, want $want: $(head -c 200 "$d/err")"
		elif [ -n "$(ls -A "$d/st")" ] || [ "$(ls -A "$d/so")" != o ] || [ "$(cat "$d/so/o")" != precious ]; then
			fail "$nm" "left in -T: $(ls -A "$d/st" | head -n 3 | tr '\n' ' '); beside the output: $(ls -A "$d/so" | tr '\n' ' ')"
		else
			pass "$nm"
		fi
	done
	rm -f "$d/sig.in"
else
	skip signals "no env --default-signal to start a sort with SIGINT not ignored"
fi

# the fake GPU (tests/fake_gpu.c) sorts the prefix records of every chunk
# when a GPU engine is named; under auto, lines are sorted on the CPU
if [ -x "$FG" ]; then
	sort -t, -k3,3n "$d/big" > "$d/exp"
	for a in "algorithm:--algorithm=bitonic:engine gpu:bitonic" "device:--device=0:engine gpu:" "auto::engine cpu"; do
		nm=fakegpu-chunks-${a%%:*} a=${a#*:}
		if "$FG" ${a%%:*} -S "${TEXT_BIG_FAKE_S:-4M}" -T "$d/t" --stats -t, -k3,3n "$d/big" > "$d/got" 2> "$d/err"; then
			if grep -q "${a#*:}" "$d/err"; then same "$nm" "$d/exp" "$d/got"; else fail "$nm" "not '${a#*:}': $(cat "$d/err")"; fi
		else
			fail "$nm" "status $?: $(cat "$d/err")"
		fi
	done
	# the device failing mid-sort (every launch from the 2nd): the CPU sorts
	# the rest, and the user is told, as for records
	nm=fakegpu-chunks-gpu-lost
	if GPUSORT_FAULT=gpu-launch@2+ "$FG" --algorithm=bitonic -S "${TEXT_BIG_FAKE_S:-4M}" -T "$d/t" --stats -t, -k3,3n "$d/big" > "$d/got" 2> "$d/err"; then
		if ! grep -q "engine cpu (the GPU failed)" "$d/err"; then fail "$nm" "--stats names no CPU takeover: $(cat "$d/err")"
		elif [ "$(grep -c '^gpusort: warning: the GPU failed, the CPU engine finished the sort: ' "$d/err")" != 1 ]; then
			fail "$nm" "no one warning line: $(cat "$d/err")"
		else same "$nm" "$d/exp" "$d/got"; fi
	else
		fail "$nm" "status $?: $(cat "$d/err")"
	fi
fi
exit $fails
