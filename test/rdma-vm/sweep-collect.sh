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
# Only the parts SWEEPDIR holds are published (make sweep-rdma
# SWEEP_PARTS=...), each replacing its own directory.
#
#   sweep-collect.sh SWEEPDIR KVBENCH RESULTS PLOTS
set -euo pipefail
(($# == 4)) || {
	echo "usage: sweep-collect.sh SWEEPDIR KVBENCH RESULTS PLOTS" >&2
	exit 2
}
SWEEP=$1 KVBENCH=$2 RESULTS=$3 PLOTS=$4

. "$(dirname "$0")/collect-lib.sh"

# fresh DIR: DIR emptied, with the build beside what goes into it.
fresh() {
	rm -rf "$1"
	mkdir -p "$1"
	cp "$SWEEP/build.txt" "$1/"
}

# page OUT RUN: OUT/run.html, the run as one page (kvbench report --format
# html), made from OUT once RUN's interval logs are beside its
# results.json there, so that the page's links stay within the published
# directory (RESULTS is not kept in the repository).
page() {
	rm -rf "$1/hlog"
	cp -r "$2/hlog" "$1/"
	"$KVBENCH" report "$1" --format html -o "$1/run.html"
}

mkdir -p "$RESULTS"
# keep RUN...: each run copied into RESULTS, as kvbench run -o RESULTS
# would have left it.
keep() {
	local d
	for d in "$@"; do
		rm -rf "${RESULTS:?}/$(basename "$d")"
		cp -r "$d" "$RESULTS/"
	done
}

# The parts the guest ran (make sweep-rdma SWEEP_PARTS=...); each part
# published replaces that part's directory alone.
published=0
run=$(runs "$SWEEP/run" | tail -n 1)
if [[ -n $run ]]; then
	keep "$run"
	published=$((published + 1))
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
fi

for t in tune tune-map tune-cpu tune-slo tune-etc; do
	d=$(runs "$SWEEP/$t" | tail -n 1)
	[[ -n $d ]] || continue
	keep "$d"
	published=$((published + 1))
	name=${t#tune-}
	[[ $t == tune ]] && name=p50
	out=$PLOTS/tune-rdma/$name
	fresh "$out"
	publishtune "$out" "$d"
	cp "$SWEEP/kvserver.txt" "$PLOTS/tune-rdma/"
done

for m in mixed etc; do
	d=$(runs "$SWEEP/$m" | tail -n 1)
	[[ -n $d ]] || continue
	keep "$d"
	published=$((published + 1))
	out=$PLOTS/$m-rdma
	fresh "$out"
	"$KVBENCH" plot "$d" -o "$out" --format png --percentiles=false --timelines=false --trusted-only
	cp "$d/results.json" "$d/summary.txt" "$SWEEP/$m-by-size.txt" "$out/"
	runchecks "$out" "$d"
	page "$out" "$d"
done

mapfile -t conns < <(runs "$SWEEP/conns")
if ((${#conns[@]} > 0)); then
	((${#conns[@]} == 3)) || {
		echo "sweep-collect: $SWEEP/conns holds ${#conns[@]} runs, not the three connection counts" >&2
		exit 1
	}
	keep "${conns[@]}"
	published=$((published + 1))
	out=$PLOTS/connections-sweep-rdma
	fresh "$out"
	"$KVBENCH" plot "${conns[@]}" -o "$out" --format png --trusted-only ||
		echo "sweep-collect: connections sweep: nothing drawn, no cell passed its checks (checks.txt)" >&2
	for d in "${conns[@]}"; do
		c=$(basename "$d")
		cp "$d/summary.txt" "$out/summary-$c.txt"
	done
	runchecks "$out" "${conns[@]}"
fi
((published > 0)) || {
	echo "sweep-collect: $SWEEP holds no run of any part" >&2
	exit 1
}
echo "sweep-rdma: $published parts, results in $RESULTS, plots under $PLOTS"
if [[ -n $run ]]; then
	echo "p50 spread across thresholds, per value size and protocol ($PLOTS/threshold-sweep-rdma/spread.txt):"
	cat "$SWEEP/spread.txt"
fi
