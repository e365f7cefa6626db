#!/bin/bash
# host-load.sh: run CMD while writing the host's load average and how many
# qemu guests run on it (this one included) to OUT every 10 s, and exit
# with CMD's status. Under emulation a guest's latencies follow how much
# of the host's CPU its vCPU threads get: a round that disagrees with the
# others can then be matched with what else the host ran at the time,
# another emulated guest above all. The guest's own two vCPUs count about
# 2 of the load.
#
#   host-load.sh OUT -- CMD...
set -euo pipefail
(($# >= 3)) && [[ $2 == -- ]] || {
	echo "usage: host-load.sh OUT -- CMD..." >&2
	exit 2
}
OUT=$1
shift 2
: >"$OUT"
(
	while :; do
		printf '%s load %s qemu %s\n' "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
			"$(pgrep -c qemu-system || true)" >>"$OUT"
		sleep 10
	done
) &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true' EXIT
"$@"
