//go:build linux && cgo

package verbs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

type nopHandler struct{}

func (nopHandler) Deliver(_ transport.Conn, m *transport.Message) { m.Release() }
func (nopHandler) Closed(transport.Conn, error)                   {}

// TestNoDevice runs where no RDMA device exists (the build host): Listen
// and Dial must fail with ErrNoDevice and say how to get Soft-RoCE.
func TestNoDevice(t *testing.T) {
	if n := devCount(); n != 0 {
		t.Skipf("this machine has %d RDMA device(s); the no-device path needs none", n)
	}
	net, err := transport.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, transport.ErrNoDevice) {
			t.Fatalf("%s: got %v, want an error wrapping ErrNoDevice", what, err)
		}
		for _, want := range []string{"no RDMA device: for Soft-RoCE", "modprobe rdma_rxe", "rdma link add rxe0 type rxe netdev"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not mention %q", what, err, want)
			}
		}
	}
	l, err := net.Listen("127.0.0.1:0", transport.Config{}, func(transport.Conn) transport.Handler { return nopHandler{} })
	if l != nil {
		l.Close()
	}
	check("Listen", err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := net.Dial(ctx, "127.0.0.1:7471", transport.Config{}, nopHandler{})
	if c != nil {
		c.Close()
	}
	check("Dial", err)
}

func TestConfigErrors(t *testing.T) {
	_, err := checkConfig(transport.Config{MaxMessage: -1, RecvDepth: -2, SendDepth: MaxDepth + 1, Poll: 9, OpTimeout: -time.Second, BusyIdle: -1})
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{"MaxMessage -1", "RecvDepth -2", "SendDepth", "Poll mode 9", "OpTimeout", "BusyIdle"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	cfg, err := checkConfig(transport.Config{})
	if err != nil || cfg.MaxMessage != transport.DefaultMaxMessage || cfg.RecvDepth != transport.DefaultRecvDepth || cfg.SendDepth != transport.DefaultSendDepth {
		t.Fatalf("zero config: %+v, %v", cfg, err)
	}
}

// TestDevicesNone: where no device exists, Devices lists none and fails
// not, so a report can say what is missing rather than an error.
func TestDevicesNone(t *testing.T) {
	if n := devCount(); n != 0 {
		t.Skipf("this machine has %d RDMA device(s); the no-device path needs none", n)
	}
	ds, err := Devices()
	if err != nil || len(ds) != 0 {
		t.Fatalf("Devices() = %v, %v; want none and no error", ds, err)
	}
	if !strings.Contains(NoDeviceAdvice(), "modprobe rdma_rxe") {
		t.Errorf("NoDeviceAdvice %q does not say how to get Soft-RoCE", NoDeviceAdvice())
	}
}
