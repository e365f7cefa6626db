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
# that measured; every chart names it in its caption.
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
"$KVBENCH" plot "$run" -o "$out" --format png --percentiles=false --timelines=false
"$KVBENCH" plot "$run" -o "$out/all" --format png
mv "$out"/all/percentiles-get-4KiB.png "$out"/all/percentiles-get-256KiB.png "$out"/all/timeline-get-1MiB.png "$out/"
rm -r "$out/all"
cp "$run/results.json" "$run/summary.txt" "$SWEEP/spread.txt" "$SWEEP/kvserver.txt" "$out/"

for t in tune tune-map tune-cpu tune-slo tune-etc; do
	name=${t#tune-}
	[[ $t == tune ]] && name=p50
	out=$PLOTS/tune-rdma/$name
	fresh "$out"
	cp "${tunes[$t]}"/tune.txt "${tunes[$t]}"/tune.json "${tunes[$t]}"/*.png "$out/"
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
	"$KVBENCH" plot "$d" -o "$out" --format png --percentiles=false --timelines=false
	cp "$d/results.json" "$d/summary.txt" "$SWEEP/$m-by-size.txt" "$out/"
done

out=$PLOTS/connections-sweep-rdma
fresh "$out"
"$KVBENCH" plot "${conns[@]}" -o "$out" --format png
for d in "${conns[@]}"; do
	c=$(basename "$d")
	cp "$d/summary.txt" "$out/summary-$c.txt"
done
echo "sweep-rdma: results in $RESULTS, plots in $PLOTS/threshold-sweep-rdma, $PLOTS/tune-rdma and $PLOTS/connections-sweep-rdma"
echo "p50 spread across thresholds, per value size and protocol ($PLOTS/threshold-sweep-rdma/spread.txt):"
cat "$SWEEP/spread.txt"
