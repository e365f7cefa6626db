#!/usr/bin/env bash
# srun-test.sh: kvbench as an MPI job under Slurm (make test-slurm). Sets up
# a one-node Slurm cluster in a temporary directory (munge, slurmctld and
# slurmd from Debian's packages, installed when missing), starts a kvserver
# over TCP, runs `srun --mpi=pmix -n 3 bin/kvbench run` against it and
# checks that rank 0 wrote one merged, verified run of three ranks. The
# daemons it started are stopped on the way out.
#
#   srun-test.sh KVBENCH KVSERVER WORKLOAD
set -euo pipefail
(($# == 3)) || {
	echo "usage: srun-test.sh KVBENCH KVSERVER WORKLOAD" >&2
	exit 2
}
KVBENCH=$(realpath "$1") KVSERVER=$(realpath "$2") WORKLOAD=$(realpath "$3")
die() {
	echo "srun-test: $*" >&2
	exit 1
}

need=()
for p in slurmctld slurmd srun munged; do
	command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || need+=("$p")
done
if ((${#need[@]} > 0)); then
	[ "$(id -u)" -eq 0 ] || die "missing ${need[*]}: run as root or apt-get install slurmd slurmctld slurm-client munge"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurmd slurmctld slurm-client munge >/dev/null
fi
[ "$(id -u)" -eq 0 ] || die "the Slurm daemons need root"

dir=$(mktemp -d /tmp/kvbench-slurm.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -f "$dir/slurmd.pid" ] && kill "$(cat "$dir/slurmd.pid")" 2>/dev/null
	[ -f "$dir/slurmctld.pid" ] && kill "$(cat "$dir/slurmctld.pid")" 2>/dev/null
	[ -n "${munge_started:-}" ] && pkill -x munged 2>/dev/null
	sleep 1
	rm -rf "$dir"
}
trap cleanup EXIT

if ! pgrep -x munged >/dev/null; then
	mkdir -p /run/munge && chown munge:munge /run/munge
	su -s /bin/sh munge -c /usr/sbin/munged
	munge_started=1
fi
host=$(hostname)
mkdir -p "$dir/state" "$dir/spool" "$dir/out"
export SLURM_CONF=$dir/slurm.conf
# One node that claims 8 CPUs, so that three ranks fit on a 2-core machine.
cat >"$SLURM_CONF" <<CONF
ClusterName=kvbench
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
NodeName=$host CPUs=8 State=UNKNOWN
PartitionName=kvbench Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
# The waits below are hang guards: each ends as soon as what it waits for
# is there, and only one that never comes waits the whole minute out.
within=60
/usr/sbin/slurmctld
/usr/sbin/slurmd
deadline=$((SECONDS + within))
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
	((SECONDS < deadline)) || die "the Slurm node did not come up within ${within}s: $(cat "$dir"/*.log)"
	sleep 0.2
done

"$KVSERVER" --transport tcp --listen 127.0.0.1:0 >"$dir/kvserver.log" 2>&1 &
pids+=($!)
addr=
deadline=$((SECONDS + within))
until addr=$(sed -n 's/.*listening on \([^ ]*\) .*/\1/p' "$dir/kvserver.log") && [ -n "$addr" ]; do
	kill -0 "${pids[-1]}" 2>/dev/null || die "kvserver exited: $(cat "$dir/kvserver.log")"
	((SECONDS < deadline)) || die "kvserver did not say where it listens within ${within}s: $(cat "$dir/kvserver.log")"
	sleep 0.1
done

run=$(cd "$(dirname "$WORKLOAD")" && timeout 300 srun --mpi=pmix -n 3 "$KVBENCH" run "$WORKLOAD" --server "$addr" -q -o "$dir/out") ||
	die "srun --mpi=pmix -n 3 kvbench run failed"
res=$run/results.json
for want in '"end_reason": "completed"' '"mismatches": 0' '"rank": 2'; do
	grep -qF "$want" "$res" || die "$res lacks $want"
done
[ "$(grep -c '"rank": ' "$res")" -eq 3 ] || die "$res does not hold three ranks"
echo "srun-test: PASS: srun --mpi=pmix -n 3 kvbench run wrote $(basename "$run") with three ranks, verified"
