#!/bin/bash
# selftest.sh: prove the rig end to end.
#   1. a host-built C program linked against libibverbs opens rxe0,
#      registers memory and creates a QP; rping and ib_send_lat run as
#      client and server on 10.0.0.1; the guest must report 0.
#   2. a command that fails must come back with its own status (7), through
#      argument quoting that would break it if the command line were mangled.
#   3. a command that hangs must be cut off by --timeout with status 124.
# Exits 0 only if all three hold. Extra arguments go to run.sh (e.g. --kvm).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUN=$HERE/run.sh
SHARE=$(mktemp -d "${TMPDIR:-/tmp}/rdma-vm-selftest.XXXXXX")
trap 'rm -rf "$SHARE"' EXIT
FAILED=0

"$HERE/setup.sh" || exit 1

cat >"$SHARE/devcheck.c" <<'EOF'
/* devcheck: open the first RDMA device, register a buffer, create an RC QP. */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (list == NULL || n == 0) { fprintf(stderr, "devcheck: no RDMA device\n"); return 1; }
	struct ibv_context *ctx = ibv_open_device(list[0]);
	if (ctx == NULL) { perror("devcheck: ibv_open_device"); return 1; }
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	if (pd == NULL) { perror("devcheck: ibv_alloc_pd"); return 1; }
	static char buf[1 << 20];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof buf,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (mr == NULL) { perror("devcheck: ibv_reg_mr"); return 1; }
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (cq == NULL) { perror("devcheck: ibv_create_cq"); return 1; }
	struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *qp = ibv_create_qp(pd, &qa);
	if (qp == NULL) { perror("devcheck: ibv_create_qp"); return 1; }
	printf("devcheck: %s ok: mr rkey 0x%x, qp %u\n", ibv_get_device_name(list[0]), mr->rkey, qp->qp_num);
	ibv_destroy_qp(qp); ibv_destroy_cq(cq); ibv_dereg_mr(mr); ibv_dealloc_pd(pd);
	ibv_close_device(ctx); ibv_free_device_list(list);
	return 0;
}
EOF
gcc -O2 -o "$SHARE/devcheck" "$SHARE/devcheck.c" -libverbs || exit 1

cat >"$SHARE/pass.sh" <<'EOF'
#!/bin/sh
# Runs in the guest, in the share.
set -e
./devcheck
# A client may race its server's listen; a refused connect fails fast, so retry.
client() {
	i=0
	until timeout 60 "$@"; do
		i=$((i + 1)); [ $i -lt 20 ] || return 1; sleep 0.5
	done
}
timeout 60 rping -s -a 10.0.0.1 -C 3 & srv=$!
client rping -c -a 10.0.0.1 -C 3 -v
wait $srv
echo "selftest: rping ok"
timeout 60 ib_send_lat -d rxe0 -F -n 200 >/tmp/srv.log 2>&1 & srv=$!
client ib_send_lat -d rxe0 -F -n 200 10.0.0.1
wait $srv
echo "selftest: ib_send_lat ok"
EOF
chmod +x "$SHARE/pass.sh"

expect() {
	local want=$1 name=$2
	shift 2
	local t0=$SECONDS got
	"$RUN" "$@"
	got=$?
	if [[ $got == "$want" ]]; then
		printf 'selftest: PASS %s (status %s, %ss)\n' "$name" "$got" $((SECONDS - t0))
	else
		printf 'selftest: FAIL %s: want status %s, got %s\n' "$name" "$want" "$got"
		FAILED=1
	fi
}

expect 0 "rdma traffic passes" "$@" "$SHARE" -- ./pass.sh
# shellcheck disable=SC2016
expect 7 "failure propagates" "$@" "$SHARE" -- sh -c '[ "$1" = "a b'"'"'c" ] && exit 7; exit 1' _ "a b'c"
expect 124 "hang is cut off" "$@" --timeout 25 "$SHARE" -- sleep 600

if ((FAILED)); then
	echo "selftest: FAILED"
	exit 1
fi
echo "selftest: ALL PASS"
