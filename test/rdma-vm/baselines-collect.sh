#!/bin/bash
# baselines-collect.sh: the host half of make baselines-rdma. Copies the
# runs the guest left in SRCDIR (one directory per store, one run per
# round) into RESULTS, each named STORE-RUN, and writes into
# PLOTS:
#   spread.txt   each store's p50 per (op, value size) across the rounds:
#                lowest, median, highest and highest/lowest
#   ratios.txt   the stores' median p50s side by side and as ratios
#   compare-*    kvbench plot of the last round's four runs, their
#                cells that pass every check (checks.txt says which fail)
#   results-STORE.json, summary-STORE.txt   the plotted runs
#   build.txt, servers.txt                  what measured, what was measured
#   host-load.txt   the host's load average while the guest ran, when
#                   SRCDIR has it (make baselines-rdma samples it)
#
#   baselines-collect.sh SRCDIR KVBENCH RESULTS PLOTS
set -euo pipefail
(($# == 4)) || {
	echo "usage: baselines-collect.sh SRCDIR KVBENCH RESULTS PLOTS" >&2
	exit 2
}
SRC=$1 KVBENCH=$2 RESULTS=$3 PLOTS=$4
STORES=(verbs tcp redis memcached)

die() {
	echo "baselines-collect: $*" >&2
	exit 1
}

. "$(dirname "$0")/collect-lib.sh"

# Every store must have run every round: a missing run would leave the
# spread of a store measured fewer times than the others.
declare -A last
rounds=
for s in "${STORES[@]}"; do
	mapfile -t rs < <(runs "$SRC/$s")
	((${#rs[@]} > 0)) || die "$SRC/$s holds no run"
	[[ -z $rounds || $rounds == "${#rs[@]}" ]] || die "$SRC/$s holds ${#rs[@]} runs, the others $rounds"
	rounds=${#rs[@]}
	last[$s]=${rs[-1]}
	mkdir -p "$RESULTS"
	for d in "${rs[@]}"; do
		rm -rf "${RESULTS:?}/$s-$(basename "$d")"
		cp -r "$d" "$RESULTS/$s-$(basename "$d")"
	done
done

# p50s: "store op size p50_ns" for every cell of every round, from the
# report's csv (columns op, value_size, ..., p50_ns).
p50s() {
	local s d
	for s in "${STORES[@]}"; do
		while IFS= read -r d; do
			"$KVBENCH" report "$d" --format csv |
				awk -F, -v s="$s" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
					{ print s, $col["op"], $col["value_size"], $col["p50_ns"] }'
		done < <(runs "$SRC/$s")
	done
}
p50s | sort -k1,1 -k2,2 -k3,3n -k4,4n >"$SRC/p50s.txt"

rm -rf "$PLOTS"
mkdir -p "$PLOTS"
cp "$SRC/build.txt" "$SRC/servers.txt" "$PLOTS/"
[[ ! -f $SRC/host-load.txt ]] || cp "$SRC/host-load.txt" "$PLOTS/"

# Each group of rounds of one (store, op, size) is sorted by p50, so its
# first line is the lowest and its middle the median.
awk -v rounds="$rounds" '
	function flush() {
		if (n == 0) return
		med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%-10s %-4s %8d %9.1f %9.1f %9.1f %6.2f\n", key[1], key[2], key[3], v[1] / 1000, med / 1000, v[n] / 1000, v[n] / v[1]
		n = 0
	}
	BEGIN { printf "p50 across %d rounds, us\n%-10s %-4s %8s %9s %9s %9s %6s\n", rounds, "store", "op", "size", "lowest", "median", "highest", "hi/lo" }
	{ k = $1 " " $2 " " $3; if (k != cur) { flush(); cur = k; split(k, key, " ") } v[++n] = $4 }
	END { flush() }' "$SRC/p50s.txt" >"$PLOTS/spread.txt"

# The stores' median p50s per (op, size) and the ratios the comparison is
# about: verbs and tcp against each baseline, and verbs against tcp.
awk '
	function med(k,   n) { n = cnt[k]; return (n % 2) ? val[k, (n + 1) / 2] : (val[k, n / 2] + val[k, n / 2 + 1]) / 2 }
	{ k = $1 SUBSEP $2 SUBSEP $3; val[k, ++cnt[k]] = $4; if (!(($2, $3) in seen)) { seen[$2, $3] = 1; rows[++nrows] = $2 SUBSEP $3 } }
	END {
		printf "median p50, us, and ratios of median p50s\n"
		printf "%-4s %8s %8s %8s %8s %9s %12s %12s %10s %10s %11s\n", "op", "size", "verbs", "tcp", "redis", "memcached",
			"verbs/redis", "verbs/memc", "tcp/redis", "tcp/memc", "verbs/tcp"
		for (i = 1; i <= nrows; i++) {
			split(rows[i], r, SUBSEP)
			vb = med("verbs" SUBSEP rows[i]); tc = med("tcp" SUBSEP rows[i])
			rd = med("redis" SUBSEP rows[i]); mc = med("memcached" SUBSEP rows[i])
			printf "%-4s %8d %8.1f %8.1f %8.1f %9.1f %12.2f %12.2f %10.2f %10.2f %11.2f\n", r[1], r[2],
				vb / 1000, tc / 1000, rd / 1000, mc / 1000, vb / rd, vb / mc, tc / rd, tc / mc, vb / tc
		}
	}' "$SRC/p50s.txt" >"$PLOTS/ratios.txt"

# The figure is one round's four runs, the last: measured within minutes
# of each other in a guest that had settled, its agreement with the other
# rounds shown by spread.txt.
plotted=()
for s in "${STORES[@]}"; do
	plotted+=("${last[$s]}")
	cp "${last[$s]}/results.json" "$PLOTS/results-$s.json"
	cp "${last[$s]}/summary.txt" "$PLOTS/summary-$s.txt"
done
# Drawn from the cells that pass their checks (docs/TRUST.md,
# "Publishing"); checks.txt says which of the plotted runs' cells fail
# and why.
"$KVBENCH" plot "${plotted[@]}" -o "$PLOTS" --format png --trusted-only ||
	echo "baselines-collect: nothing drawn: no cell passed its checks (checks.txt)" >&2
runchecks "$PLOTS" "${plotted[@]}"
echo "baselines-rdma: $rounds rounds in $RESULTS, plots in $PLOTS"
cat "$PLOTS/spread.txt" "$PLOTS/ratios.txt"
# Two emulated guests on one host take each other's CPU: rounds measured
# beside another are not to be trusted (docs/MEASUREMENTS.md, 2026-11-26).
if [[ -f $PLOTS/host-load.txt ]] && awk '$NF > 1 { found = 1 } END { exit !found }' "$PLOTS/host-load.txt"; then
	echo "baselines-rdma: warning: another qemu guest ran on the host during this run (host-load.txt)" >&2
fi
