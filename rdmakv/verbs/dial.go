//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// defaultDialTimeout bounds a Dial whose context has no deadline, so an
// unreachable server is an error, never a hang.
const defaultDialTimeout = 15 * time.Second

// resolveTimeout bounds address and route resolution inside rdma_cm.
const resolveTimeout = 5 * time.Second

// ladder is a reverse cleanup ladder: each acquired resource pushes its
// release, and unwind runs them last-in first-out.
type ladder []func()

func (l *ladder) push(f func()) { *l = append(*l, f) }

func (l ladder) unwind() {
	for i := len(l) - 1; i >= 0; i-- {
		l[i]()
	}
}

// Dial connects to addr. ctx bounds the whole connect (defaultDialTimeout
// when it has no deadline). The connection gets its own CQs and receive
// queue; its regions live in the device's shared protection domain.
func (network) Dial(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Conn, error) {
	cfg, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, errors.New("verbs: dial: nil Handler")
	}
	if err := checkDevices(); err != nil {
		return nil, fmt.Errorf("verbs: %w", err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultDialTimeout)
		defer cancel()
	}
	c, err := dial(ctx, addr, cfg, h)
	if err != nil {
		return nil, fmt.Errorf("verbs: %w", err)
	}
	return c, nil
}

func dial(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (_ *conn, err error) {
	sa, err := parseAddr(ctx, addr)
	if err != nil {
		return nil, err
	}
	var undo ladder
	defer func() {
		if err != nil {
			undo.unwind()
		}
	}()

	cm, err := openCM()
	if err != nil {
		return nil, err
	}
	undo.push(cm.close)
	deadline, _ := ctx.Deadline()
	cm.setDeadline(deadline)
	stopCancel := context.AfterFunc(ctx, func() { cm.setDeadline(time.Unix(1, 0)) })
	defer stopCancel()

	id, err := cm.createID()
	if err != nil {
		return nil, err
	}
	undo.push(func() { destroyID(id) })
	if err := setTOS(id, cfg.TOS); err != nil {
		return nil, err
	}

	ms := C.int(min(max(time.Until(deadline), time.Millisecond), resolveTimeout) / time.Millisecond)
	if err := errno(C.kv_resolve_addr(id, sa.family, &sa.ip[0], C.int(sa.port), sa.scope, ms)); err != nil {
		return nil, fmt.Errorf("resolve address: %w", err)
	}
	if err := awaitEvent(ctx, cm, C.RDMA_CM_EVENT_ADDR_RESOLVED); err != nil {
		return nil, err
	}
	dev, err := acquireDevice(id.verbs)
	if err != nil {
		return nil, err
	}
	undo.push(dev.release)
	if err := dev.caps.dial(); err != nil {
		return nil, err
	}
	if cfg.Device != "" && cfg.Device != dev.name {
		return nil, fmt.Errorf("%s is reached through device %s, not the configured %s", sa.host, dev.name, cfg.Device)
	}
	if err := resolveRoute(id, ms); err != nil {
		return nil, err
	}
	if err := awaitEvent(ctx, cm, C.RDMA_CM_EVENT_ROUTE_RESOLVED); err != nil {
		return nil, err
	}

	g := newGroup(dev)
	if g.scq, err = openCQ(dev, 2*cfg.SendDepth+2, cfg.Poll, 0); err != nil {
		return nil, err
	}
	undo.push(g.scq.close)
	nrecv := recvBuffers(cfg.RecvDepth, cfg.Poll)
	if g.rcq, err = openCQ(dev, nrecv+1, cfg.Poll, cfg.BusyIdle); err != nil {
		return nil, err
	}
	undo.push(g.rcq.close)
	g.wire()
	if g.rq, err = newRecvQueue(dev, cfg.RecvDepth, cfg.MaxMessage, cfg.Poll, 1); err != nil {
		return nil, err
	}
	undo.push(g.rq.free)
	g.rcq.rq = g.rq
	c, err := newConn(g, dev, cfg)
	if err != nil {
		return nil, err
	}
	c.sendStall = cfg.OpTimeout
	if err := c.createQP(id, nil); err != nil {
		return nil, err
	}
	undo.push(func() { C.rdma_destroy_qp(id) })
	g.rq.setQP(c.qp)
	if err := g.rq.postAll(); err != nil {
		return nil, err
	}
	c.h = h
	c.markReady()
	c.cm = cm
	g.addConn(c)
	g.final = func(c *conn) {
		c.release()
		g.rcq.stop.Store(true)
	}

	C.kv_set_ack_timeout(id, ackTimeout)
	rd := min(int(dev.d.max_qp_rd_atom), rdAtomMax)
	init := min(int(dev.d.max_qp_init_rd_atom), rdAtomMax)
	if err := errno(C.kv_connect(id, C.int(rd), C.int(init))); err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if err := awaitEvent(ctx, cm, C.RDMA_CM_EVENT_ESTABLISHED); err != nil {
		return nil, err
	}
	if !stopCancel() {
		return nil, ctx.Err()
	}
	cm.setDeadline(time.Time{})
	c.shortenRNR()
	c.describe()

	c.cmDone = make(chan struct{})
	go c.watchCM()
	go g.scq.run(nil)
	go c.runClient()
	return c, nil
}

// awaitEvent waits for the event want on the dial's channel; anything else
// is the reason the dial failed.
func awaitEvent(ctx context.Context, cm *cmChannel, want C.int) error {
	var ev C.struct_kv_event
	if err := cm.next(&ev); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if cerr := ctx.Err(); cerr != nil {
				return fmt.Errorf("waiting for %s: %w", eventName(want), cerr)
			}
			return fmt.Errorf("waiting for %s: %w", eventName(want), context.DeadlineExceeded)
		}
		return err
	}
	if ev.event == want {
		return nil
	}
	st := ev.status
	switch ev.event {
	case C.RDMA_CM_EVENT_REJECTED:
		return fmt.Errorf("connection refused (rejected, reason %d): %w", int(st), syscall.ECONNREFUSED)
	case C.RDMA_CM_EVENT_ADDR_ERROR:
		if st == -C.ENODEV {
			return noDevice("the address resolves to an interface without an RDMA device")
		}
	}
	if st < 0 {
		return fmt.Errorf("%s: %w", eventName(ev.event), syscall.Errno(-st))
	}
	return fmt.Errorf("%s (status %d) while waiting for %s", eventName(ev.event), int(st), eventName(want))
}

// watchCM turns rdma_cm events on a client connection into shutdowns.
func (c *conn) watchCM() {
	defer close(c.cmDone)
	var ev C.struct_kv_event
	for c.cm.next(&ev) == nil {
		switch ev.event {
		case C.RDMA_CM_EVENT_DISCONNECTED:
			c.shutdown(errPeerClosed)
		case C.RDMA_CM_EVENT_DEVICE_REMOVAL:
			c.shutdown(errRemoved)
		}
	}
}

// runClient is the receive poller of a client connection; when the
// connection is finished it tears the rest down in reverse order.
func (c *conn) runClient() {
	g := c.g
	g.rcq.run(g.control)
	g.scq.halt(true)
	g.scq.close()
	g.rcq.close()
	g.rq.free()
	c.cm.stop()
	<-c.cmDone
	C.rdma_destroy_id(c.id)
	c.cm.close()
	c.dev.release()
	close(c.done)
}
