#!/bin/bash
# sweep-collect.sh: the host half of make sweep-rdma. Copies the runs the
# guest left in SWEEPDIR into RESULTS (as kvbench run -o RESULTS would) and
# draws their plots with KVBENCH into PLOTS/threshold-sweep-rdma (the sweep,
# its results.json and summary.txt, and tune's table and curves) and
# PLOTS/connections-sweep-rdma (throughput against value size at each
# connection count).
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

mkdir -p "$RESULTS"
run=$(runs "$SWEEP/run" | tail -n 1)
tune=$(runs "$SWEEP/tune" | tail -n 1)
mapfile -t conns < <(runs "$SWEEP/conns")
[[ -n $run && -n $tune && ${#conns[@]} -eq 3 ]] || {
	echo "sweep-collect: $SWEEP lacks a sweep run, a tune run or the three connections runs" >&2
	exit 1
}
for d in "$run" "$tune" "${conns[@]}"; do
	rm -rf "${RESULTS:?}/$(basename "$d")"
	cp -r "$d" "$RESULTS/"
done

out=$PLOTS/threshold-sweep-rdma
rm -rf "$out"
mkdir -p "$out"
# The sweep-level charts, plus the percentile curves of two get sizes on
# either side of the crossover and the timeline of the largest.
"$KVBENCH" plot "$run" -o "$out" --format png --percentiles=false --timelines=false
"$KVBENCH" plot "$run" -o "$out/all" --format png
mv "$out"/all/percentiles-get-4KiB.png "$out"/all/percentiles-get-256KiB.png "$out"/all/timeline-get-1MiB.png "$out/"
rm -r "$out/all"
cp "$run/results.json" "$run/summary.txt" "$out/"
cp "$tune"/tune.txt "$tune"/tune.json "$tune"/tune-*.png "$out/"
cp "$SWEEP/kvserver.txt" "$out/"

out=$PLOTS/connections-sweep-rdma
rm -rf "$out"
mkdir -p "$out"
"$KVBENCH" plot "${conns[@]}" -o "$out" --format png
for d in "${conns[@]}"; do
	c=$(basename "$d")
	cp "$d/summary.txt" "$out/summary-$c.txt"
done
echo "sweep-rdma: results in $RESULTS, plots in $PLOTS/threshold-sweep-rdma and $PLOTS/connections-sweep-rdma"
