//go:build rdmavm && linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"context"
	"fmt"
	"time"
)

// routedID resolves a fresh id's address and route to addr, for the
// device tests: a second rdma_resolve_route on it fails in the kernel
// (EINVAL), which is how TestResolveRouteError makes the call fail. It is
// compiled into the test binary only (build tag rdmavm), since test files
// cannot call C.
func routedID(ctx context.Context, cm *cmChannel, addr string) (_ *C.struct_rdma_cm_id, err error) {
	sa, err := parseAddr(ctx, addr)
	if err != nil {
		return nil, err
	}
	id, err := cm.createID()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			destroyID(id)
		}
	}()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(resolveTimeout)
	}
	cm.setDeadline(deadline)
	if err := errno(C.kv_resolve_addr(id, sa.family, &sa.ip[0], C.int(sa.port), sa.scope, 2000)); err != nil {
		return nil, fmt.Errorf("resolve address: %w", err)
	}
	if err := awaitEvent(ctx, cm, C.RDMA_CM_EVENT_ADDR_RESOLVED); err != nil {
		return nil, err
	}
	if err := resolveRoute(id, 2000); err != nil {
		return nil, err
	}
	if err := awaitEvent(ctx, cm, C.RDMA_CM_EVENT_ROUTE_RESOLVED); err != nil {
		return nil, err
	}
	return id, nil
}
