//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// cmChannel is an rdma_cm event channel read through Go's netpoller: the
// channel fd is non-blocking and a dup of it sits in an os.File, which gives
// deadlines (Dial's context) and a way to stop a waiting reader (close).
type cmChannel struct {
	ch *C.struct_rdma_event_channel
	f  *os.File
	rc syscall.RawConn
}

func openCM() (*cmChannel, error) {
	ch, err := C.kv_channel_open()
	if ch == nil {
		if errors.Is(err, syscall.ENODEV) || errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENXIO) {
			return nil, noDevice(fmt.Sprintf("rdma_cm: %v; is rdma_ucm loaded?", err))
		}
		return nil, fmt.Errorf("verbs: create event channel: %w", err)
	}
	fd, err := syscall.Dup(int(ch.fd))
	if err != nil {
		C.rdma_destroy_event_channel(ch)
		return nil, fmt.Errorf("verbs: dup event channel: %w", err)
	}
	m := &cmChannel{ch: ch, f: os.NewFile(uintptr(fd), "rdma-cm-channel")}
	if m.rc, err = m.f.SyscallConn(); err != nil {
		m.f.Close()
		C.rdma_destroy_event_channel(ch)
		return nil, fmt.Errorf("verbs: event channel: %w", err)
	}
	return m, nil
}

// next waits for the next event; it fails with os.ErrDeadlineExceeded
// past the deadline and with os.ErrClosed after stop.
func (m *cmChannel) next(ev *C.struct_kv_event) error {
	var r C.int
	err := m.rc.Read(func(uintptr) bool {
		r = C.kv_cm_next(m.ch, ev)
		return r != -C.EAGAIN
	})
	if err != nil {
		return err
	}
	return errno(r)
}

func (m *cmChannel) setDeadline(t time.Time) { m.f.SetReadDeadline(t) }

// stop makes a blocked next return; the channel itself stays.
func (m *cmChannel) stop() { m.f.Close() }

// close destroys the channel; every id on it must be destroyed already.
func (m *cmChannel) close() {
	m.f.Close()
	C.rdma_destroy_event_channel(m.ch)
}

func eventName(e C.int) string {
	return C.GoString(C.rdma_event_str(C.enum_rdma_cm_event_type(e)))
}

// createID makes a reliable-connected (RDMA_PS_TCP) id on m's channel.
func (m *cmChannel) createID() (*C.struct_rdma_cm_id, error) {
	var id *C.struct_rdma_cm_id
	if r, err := C.rdma_create_id(m.ch, &id, nil, C.RDMA_PS_TCP); r != 0 {
		return nil, fmt.Errorf("create cm id: %w", cmErr(err))
	}
	return id, nil
}

func destroyID(id *C.struct_rdma_cm_id) { C.rdma_destroy_id(id) }

// setTOS gives id the type of service asked for (transport.Config.TOS)
// before it resolves its route, whose RoCE traffic class comes from it,
// or listens. Zero leaves rdma_cm's default.
func setTOS(id *C.struct_rdma_cm_id, tos int) error {
	if tos == 0 {
		return nil
	}
	if err := errno(C.kv_set_tos(id, C.uint8_t(tos))); err != nil {
		return fmt.Errorf("set type of service %#x: %w", tos, err)
	}
	return nil
}

// resolveRoute starts route resolution for id, whose address is resolved.
// rdma_resolve_route returns -1 and sets errno, where the kv_ wrappers
// return -errno.
func resolveRoute(id *C.struct_rdma_cm_id, ms C.int) error {
	if r, err := C.rdma_resolve_route(id, ms); r != 0 {
		return fmt.Errorf("resolve route: %w", cmErr(err))
	}
	return nil
}
