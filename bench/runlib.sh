# bench/runlib.sh - helpers of bench/run.sh (sourced; POSIX sh): the
# workloads, how each tool is run and checked, gpusort's --stats in one cell.
# Uses run.sh's variables: W (scratch dir of this run), WL (workload), g
# and B (size in GiB and bytes), RUNS, PY, MEM, BUDGET, BASELINE, NPROC, REF,
# SUM (checkrec --sum of the input), and its functions now, say, stat_of,
# calc, csv.  A tool ID ending in -base is the same gpusort tool run with the
# --baseline binary.

# workload NAME: sets R (record bytes), GENK (bench/gen's record and key
# arguments), KEYS (gpusort's and checkrec's), TEXT (how GNU sort gets the
# data: gen = `gen --format text`, conv = `checkrec --to-text`, same = the
# binary file is already text), SORTK (GNU sort's key options), TITLE.
workload() {
	case $1 in
	u32 | u64)
		R=$(( ${1#u} / 8 )) GENK="-k $1" KEYS="-k $1" TEXT=gen SORTK="-n"
		TITLE="$1 keys (arrays of $R-byte integers); GNU sort: the same keys as decimal lines, sort -n" ;;
	rec100)
		# Sort Benchmark layout; gen --format lines makes every byte printable
		# and the last one '\n', so the SAME file is both the binary records
		# and GNU sort's lines.  GNU sort compares whole lines: byte order of
		# the line is key order (the key is its first 10 bytes), and it is
		# GNU sort's fastest correct command (a keyed stable
		# `-s -t TAB -k1.1,1.10` measured 1.1-1.3x slower on 2 cores).
		R=100 GENK="--record-size 100 -k bytes10 --format lines"
		KEYS="--record-size 100 -k bytes10" TEXT=same SORTK=""
		TITLE="rec100: 100-byte records, 10-byte key at 0 (Sort Benchmark layout, printable, one line each); GNU sort: the same file as lines" ;;
	rec16)
		# the i32 (descending) decides only between equal u64 keys: rare
		# with --dist uniform, common with --dist fewunique.  The text form
		# "u64 i32 payload-hex" is made from the binary file by checkrec
		R=16 GENK="--record-size 16 -k u64 -k i32"
		KEYS="--record-size 16 -k u64 -k i32:r" TEXT=conv SORTK="-s -k1,1n -k2,2nr"
		TITLE="rec16: 16-byte records, u64 at 0 ascending then i32 at 8 descending, 4-byte payload; GNU sort: lines \"u64 i32 payload\", -s -k1,1n -k2,2nr" ;;
	pair8)
		# two keys that cover the record: gpusort sorts the records as
		# words (keys_layout_cover), no (key, index) entries
		R=8 GENK="-k u32 -k u32"
		KEYS="-k u32 -k i32:r" TEXT=conv SORTK="-s -k1,1n -k2,2nr"
		TITLE="pair8: 8-byte records, u32 at 0 ascending then i32 at 4 descending, nothing else; GNU sort: lines \"u32 i32\", -s -k1,1n -k2,2nr" ;;
	*) return 1 ;;
	esac
}

label() {
	case $1 in
	cat) echo "cat" ;;
	sort) echo "GNU sort" ;;
	numpy) echo "NumPy" ;;
	cupy) echo "CuPy" ;;
	gpusort-cpu) echo "gpusort --cpu" ;;
	gpusort) echo "gpusort" ;;
	gpusort-budget) echo "gpusort --gpu-memory $BUDGET" ;;
	gpusort*-base) echo "$(label "${1%-base}") (baseline)" ;;
	esac
}

# gpusort_bin ID: the binary a gpusort tool runs
gpusort_bin() {
	case $1 in
	*-base) echo "$BASELINE" ;;
	*) echo ./gpusort ;;
	esac
}

# make_text: GNU sort's input, $W/in.txt, holding the records of $W/in.bin
make_text() {
	case $TEXT in
	gen) bench/gen -n "$N" $GENK --dist "$DIST" --seed "$SEED" --format text -o "$W/in.txt" ;;
	conv) bench/checkrec $KEYS --to-text "$W/in.bin" > "$W/in.txt" ;;
	same) ln -s in.bin "$W/in.txt" ;;
	esac
}

# run_tool ID: one run of a tool, input $W/in.*, output $W/out.* on the
# same file system; GNU sort and gpusort get the same memory (-S $MEM) and
# temporary directory
run_tool() {
	case $1 in
	sort | numpy | cupy) [ "$PEERMAX" != 0 ] && set -- "$1" timeout "$PEERMAX" ;;
	*) set -- "$1" ;;
	esac
	case $1 in
	cat) cat "$W/in.bin" > "$W/out.bin" ;;
	sort) LC_ALL=C ${2:-} ${3:-} sort $SORTK -S "$MEM" --parallel="$NPROC" -T "$W" -o "$W/out.txt" "$W/in.txt" ;;
	numpy) ${2:-} ${3:-} "$PY" bench/peers/numpy_sort.py "$WL" "$W/in.bin" "$W/out.bin" ;;
	cupy) ${2:-} ${3:-} "$PY" bench/peers/cupy_sort.py "$WL" "$W/in.bin" "$W/out.bin" ;;
	gpusort-cpu | gpusort-cpu-base)
		"$(gpusort_bin $1)" --cpu $KEYS -S "$MEM" -T "$W" --stats "$W/in.bin" -o "$W/out.bin" ;;
	gpusort | gpusort-base)
		"$(gpusort_bin $1)" $KEYS -S "$MEM" -T "$W" --stats "$W/in.bin" -o "$W/out.bin" ;;
	gpusort-budget | gpusort-budget-base)
		"$(gpusort_bin $1)" --gpu-memory "$BUDGET" $KEYS -S "$MEM" -T "$W" --stats "$W/in.bin" -o "$W/out.bin" ;;
	esac
}

# check_out ID: is the tool's output sorted by the keys and the input's
# records?  By bench/checkrec, not by gpusort's code; a text output is
# parsed back into records and held against the binary input's sum.
# cat is the floor, not a sort: its output is not checked.
check_out() {
	case $1 in
	cat) return 0 ;;
	sort) if [ "$TEXT" = same ]; then
		bench/checkrec $KEYS -e "$SUM" "$W/out.txt"
	else
		bench/checkrec $KEYS -t -e "$SUM" "$W/out.txt"
	fi ;;
	*) bench/checkrec $KEYS -e "$SUM" "$W/out.bin" ;;
	esac
}

# stats_summary LOG: gpusort's --stats text in one table cell: engine, runs,
# the stages that took time, the device stages, start-up, wall
stats_summary() {
	sed -n 's/^gpusort: stats: //p' "$1" | awk -F', ' '
	function keep(s,   f) { split(s, f, " "); return f[2] + 0 >= 0.0005 ? f[1] " " f[2] : "" }
	/^[0-9]+ records of/ { e = $0; sub(/.*engine /, "", e); sub(/,.*/, "", e); out = "engine " e }
	/^chunk/ { split($2, f, " ")
		out = out (f[1] > 0 ? "; " f[1] " runs (" substr(f[3], 2) " spilled)" : "; 1 chunk") }
	/^read / { s = ""; for (i = 1; i <= NF; i++) if ((k = keep($i)) != "") s = s (s ? ", " : "") k
		out = out "; " s }
	/^gpu: / { sub(/^gpu: /, ""); s = ""
		for (i = 1; i <= NF; i++) if ($i ~ /^(h2d|sort|d2h) /) s = s (s ? ", " : "") keep($i)
		for (i = 1; i <= NF; i++) {
			if ($i ~ /sorted on the CPU/ && $i + 0 > 0) s = s ", " ($i + 0) " chunks on the CPU (device out of memory)"
			if ($i ~ /retries/ && $i + 0 > 0) s = s ", " ($i + 0) " retries in smaller chunks"
		}
		out = out "; gpu " s }
	/^start-up / { split($1, u, " "); out = out "; start-up " u[2] }
	/wall / { for (i = 1; i <= NF; i++) if ($i ~ /^wall /) { split($i, w, " "); out = out "; wall " w[2] } }
	END { print out }'
}

# disk_need ID... : bytes this size needs in $W at once: the input, its
# text form, one output (outputs are deleted between runs), spilled runs
disk_need() {
	awk -v n="$N" -v r="$R" -v text="$TEXT" -v tools=" $* " -v wl="$WL" 'BEGIN {
		b = n * r; t = 0; out = b
		if (tools ~ / sort / && text != "same") {
			t = n * (wl == "u32" ? 11 : wl == "u64" ? 21 : 42) # longest line
			out = t > b ? t : b
		}
		printf "%.0f\n", b + t + out + (tools ~ / gpusort-budget / ? b : 0) }'
}

# time_tools ID...: RUNS runs of each tool, interleaved so that noise from
# other load is shared out; the first run's output is checked.  Leaves
# $W/times.ID (seconds a line) or $W/status.ID (why not), $W/log.ID.
time_tools() {
	rm -f "$W"/times.* "$W"/status.* "$W"/log.*
	r=1
	while [ $r -le "$RUNS" ]; do
		# every other run a tool's baseline twin goes first: the first GPU
		# process after an idle GPU (cat, a CPU tool) starts ~0.1 s slower
		# on the H200 machine, which a fixed order charges to one binary
		order=$*
		[ $((r % 2)) = 0 ] && order=$(echo "$*" | awk '{
			for (i = 1; i <= NF; i++)
				if (i < NF && $(i + 1) == $i "-base") { printf "%s %s ", $(i + 1), $i; i++ }
				else printf "%s ", $i }')
		for t in $order; do
			[ -s "$W/status.$t" ] && continue # failed: no more runs
			rm -f "$W/out.bin" "$W/out.txt"
			say "$WL $g GiB: $(label $t), run $r/$RUNS"
			s=$(now)
			run_tool $t > "$W/log.$t" 2>&1
			rc=$?
			e=$(now)
			if [ $rc != 0 ]; then
				tail -n 3 "$W/log.$t" >&2
				why=$(tail -n 1 "$W/log.$t" | tr '|' '/' | cut -c 1-80)
				if [ $rc = 124 ] && [ "$PEERMAX" != 0 ]; then
					echo "stopped after $PEERMAX s" > "$W/status.$t"
				elif [ $rc = 3 ]; then
					echo "out of memory" > "$W/status.$t"
				else
					echo "failed (exit $rc): $why" > "$W/status.$t"
				fi
			elif [ $r = 1 ] && ! check_out $t > "$W/check.$t" 2>&1; then
				cat "$W/check.$t" >&2
				echo "WRONG OUTPUT" > "$W/status.$t"
			else
				awk -v s="$s" -v e="$e" 'BEGIN {printf "%.3f\n", e - s}' >> "$W/times.$t"
			fi
		done
		r=$((r + 1))
	done
	rm -f "$W/out.bin" "$W/out.txt"
}

# report_rows "TOOLS" "SKIPPED": this size's table rows and CSV lines, in
# table order; x cat and / gpusort are ratios of medians
report_rows() {
	tcat=$(stat_of cat median) tref=$(stat_of $REF median)
	for t in cat $RUN_TOOLS; do
		case " $1 $2 " in *" $t "*) ;; *) continue ;; esac
		m=$(stat_of $t median)
		if [ -z "$m" ]; then
			st=$(cat "$W/status.$t" 2> /dev/null)
			case " $2 " in *" $t "*) st="not run: over --text-max $TEXTMAX GiB" ;; esac
			case $st in
			"stopped after"*) # a lower bound: the run took more than PEERMAX s
				xc="" xr=""
				[ -n "$tcat" ] && xc="> $(calc "$PEERMAX / $tcat")"
				[ -n "$tref" ] && xr="> $(calc "$PEERMAX / $tref")"
				echo "| $g | $(label $t) | $st | > $PEERMAX | | $xc | $xr | |" ;;
			*) echo "| $g | $(label $t) | $st | | | | | |" ;;
			esac
			csv "$(label $t)" "" "$st" "" "" ""
			continue
		fi
		lo=$(stat_of $t min) hi=$(stat_of $t max)
		gbs=$(awk -v b="$B" -v m="$m" 'BEGIN {x = b / 1e9 / m; printf (x >= 1 ? "%.2f" : "%.3f"), x}')
		xc="" xr="" stats=""
		[ -n "$tcat" ] && xc=$(calc "$m / $tcat")
		[ -n "$tref" ] && xr=$(calc "$m / $tref")
		case $t in gpusort*) stats=$(stats_summary "$W/log.$t") ;; esac
		echo "| $g | $(label $t) | $m | $lo-$hi | $gbs | $xc | $xr | $stats |"
		csv "$(label $t)" "$m" ok "$lo" "$hi" "$gbs"
	done
}
