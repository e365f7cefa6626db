#!/bin/bash
# sweep-collect.sh: the host half of make sweep-rdma. Copies the runs the
# guest left in SWEEPDIR into RESULTS (as kvbench run -o RESULTS would) and
# draws their plots with KVBENCH into PLOTS: threshold-sweep-rdma (the
# sweep's charts, results.json, summary.txt and the p50 spread across
# thresholds), tune-rdma/{p50,map,cpu,slo,etc} (each tune's table, tune.json
# and charts) and connections-sweep-rdma (throughput against value size at
# each connection count), and mixed-rdma and etc-rdma (the mixed-size
# sweep's and ETC's charts, the whole-workload figure among them, and
# their cells by size class). Every directory gets build.txt, the kvbench
# that measured; every chart names it in its caption. The charts are drawn
# from the cells that passed every check (plot --trusted-only, whose
# captions say what was left out), and every directory gets checks.txt,
# which cells pass and which fail and why, tallied on one line here
# (docs/TRUST.md, "Publishing"). The sweeps and every tune also get their
# page (run.html, tune.html): the whole run, untrusted cells marked.
#
#   sweep-collect.sh SWEEPDIR KVBENCH RESULTS PLOTS
set -euo pipefail
(($# == 4)) || {
	echo "usage: sweep-collect.sh SWEEPDIR KVBENCH RESULTS PLOTS" >&2
	exit 2
}
SWEEP=$1 KVBENCH=$2 RESULTS=$3 PLOTS=$4

# runs DIR: the run directories kvbench made under DIR, oldest first (their
# names end in the start time), without the latest link.
runs() {
	find "$1" -mindepth 1 -maxdepth 1 -type d -name '*-[0-9]*-[0-9]*' | sort
}

# fresh DIR: DIR emptied, with the build beside what goes into it.
fresh() {
	rm -rf "$1"
	mkdir -p "$1"
	cp "$SWEEP/build.txt" "$1/"
}

# runchecks OUT RUN...: OUT/checks.txt, the checks kvbench report gives
# of each run's cells (a line per cell that failed one, naming what
# failed and why, then a count of those that passed every check), and
# the line tallying them.
runchecks() {
	local out=$1 d
	shift
	: >"$out/checks.txt"
	for d in "$@"; do
		{
			echo "== $(basename "$d")"
			"$KVBENCH" report "$d" | sed -n '/^checks (/,$p'
		} >>"$out/checks.txt"
	done
	# A cell whose only failure is tail_precision has its median and rate
	# drawn (docs/TRUST.md): counted apart.
	awk -v dir="$out" '/every check passed in/ {pass += $(NF - 1)}
		/ failed: / {if (gsub(/ failed: /, "&") == 1 && / tail_precision failed: /) tail++; else fail++}
		END {printf "%s: %d cells pass every check, %d fail only tail_precision, %d fail another (checks.txt)\n", dir, pass, tail, fail}' "$out/checks.txt"
}

# tunechecks OUT TUNE: OUT/checks.txt, the tally tune.txt gives of the
# tune's measurements and the failed checks among its warnings, and the
# tally's line.
tunechecks() {
	local out=$1 tally
	tally=$(grep '^checks (' "$2/tune.txt" || echo "no measurement carries checks")
	{
		echo "$tally"
		grep ' check failed' "$2/tune.txt" || true
	} >"$out/checks.txt"
	echo "$out: $tally"
}

# page OUT RUN: OUT/run.html, the run as one page (kvbench report --format
# html), made from its copy under RESULTS so that its links to
# results.json and the interval logs stay good in the repository.
page() {
	"$KVBENCH" report "$RESULTS/$(basename "$2")" --format html -o "$1/run.html"
}

mkdir -p "$RESULTS"
run=$(runs "$SWEEP/run" | tail -n 1)
mapfile -t conns < <(runs "$SWEEP/conns")
declare -A tunes
for t in tune tune-map tune-cpu tune-slo tune-etc; do
	tunes[$t]=$(runs "$SWEEP/$t" | tail -n 1)
	[[ -n ${tunes[$t]} ]] || {
		echo "sweep-collect: $SWEEP/$t holds no tune run" >&2
		exit 1
	}
done
[[ -n $run && ${#conns[@]} -eq 3 ]] || {
	echo "sweep-collect: $SWEEP lacks a sweep run or the three connections runs" >&2
	exit 1
}
for d in "$run" "${tunes[@]}" "${conns[@]}"; do
	rm -rf "${RESULTS:?}/$(basename "$d")"
	cp -r "$d" "$RESULTS/"
done

out=$PLOTS/threshold-sweep-rdma
fresh "$out"
# The sweep-level charts, plus the percentile curves of two get sizes on
# either side of the crossover and the timeline of the largest.
# A figure of a cell that failed a check is not drawn: say so and go on.
"$KVBENCH" plot "$run" -o "$out" --format png --percentiles=false --timelines=false --trusted-only
"$KVBENCH" plot "$run" -o "$out/all" --format png --trusted-only
for f in percentiles-get-4KiB percentiles-get-256KiB timeline-get-1MiB; do
	if [[ -f $out/all/$f.png ]]; then
		mv "$out/all/$f.png" "$out/"
	else
		echo "sweep-collect: $f not drawn: its cell failed a check (checks.txt)" >&2
	fi
done
rm -r "$out/all"
cp "$run/results.json" "$run/summary.txt" "$SWEEP/spread.txt" "$SWEEP/kvserver.txt" "$out/"
runchecks "$out" "$run"
page "$out" "$run"

for t in tune tune-map tune-cpu tune-slo tune-etc; do
	name=${t#tune-}
	[[ $t == tune ]] && name=p50
	out=$PLOTS/tune-rdma/$name
	fresh "$out"
	cp "${tunes[$t]}"/tune.txt "${tunes[$t]}"/tune.json "${tunes[$t]}"/tune.html "$out/"
	[[ ! -f ${tunes[$t]}/profile.json ]] || cp "${tunes[$t]}/profile.json" "$out/"
	"$KVBENCH" plot "${tunes[$t]}" -o "$out" --format png --trusted-only
	tunechecks "$out" "${tunes[$t]}"
done
cp "$SWEEP/kvserver.txt" "$PLOTS/tune-rdma/"

for m in mixed etc; do
	d=$(runs "$SWEEP/$m" | tail -n 1)
	[[ -n $d ]] || {
		echo "sweep-collect: $SWEEP/$m holds no run" >&2
		exit 1
	}
	rm -rf "${RESULTS:?}/$(basename "$d")"
	cp -r "$d" "$RESULTS/"
	out=$PLOTS/$m-rdma
	fresh "$out"
	"$KVBENCH" plot "$d" -o "$out" --format png --percentiles=false --timelines=false --trusted-only
	cp "$d/results.json" "$d/summary.txt" "$SWEEP/$m-by-size.txt" "$out/"
	runchecks "$out" "$d"
	page "$out" "$d"
done

out=$PLOTS/connections-sweep-rdma
fresh "$out"
"$KVBENCH" plot "${conns[@]}" -o "$out" --format png --trusted-only ||
	echo "sweep-collect: connections sweep: nothing drawn, no cell passed its checks (checks.txt)" >&2
for d in "${conns[@]}"; do
	c=$(basename "$d")
	cp "$d/summary.txt" "$out/summary-$c.txt"
done
runchecks "$out" "${conns[@]}"
echo "sweep-rdma: results in $RESULTS, plots in $PLOTS/threshold-sweep-rdma, $PLOTS/tune-rdma and $PLOTS/connections-sweep-rdma"
echo "p50 spread across thresholds, per value size and protocol ($PLOTS/threshold-sweep-rdma/spread.txt):"
cat "$SWEEP/spread.txt"
