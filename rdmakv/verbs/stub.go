//go:build !linux || !cgo

package verbs

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Without cgo, or off Linux, there is no libibverbs to call: the
// transport registers itself all the same, and every use of it fails with
// transport.ErrNoDevice, so that "auto" takes tcp and a program that asks
// for verbs learns why it cannot have it.

const noVerbs = "this build has no verbs transport: it needs Linux and cgo, with rdma-core's headers (make setup); use tcp"

var errNoVerbs = fmt.Errorf("verbs: %w: %s", transport.ErrNoDevice, noVerbs)

func init() { transport.RegisterNetwork(network{}) }

type network struct{}

func (network) Name() string                   { return Name }
func (network) LocalAddr() (netip.Addr, error) { return LocalAddr() }

// RegisteredBytes is the package's RegisteredBytes: transport.Footprinter.
func (network) RegisteredBytes(cfg transport.Config) (recv, ring int64, err error) {
	return RegisteredBytes(cfg)
}

func (network) Listen(string, transport.Config, transport.AcceptFunc) (transport.Listener, error) {
	return nil, errNoVerbs
}

func (network) Dial(context.Context, string, transport.Config, transport.Handler) (transport.Conn, error) {
	return nil, errNoVerbs
}

// LocalAddr fails with transport.ErrNoDevice: this build has no verbs.
func LocalAddr() (netip.Addr, error) { return netip.Addr{}, errNoVerbs }

// Devices fails with transport.ErrNoDevice: this build cannot ask
// libibverbs.
func Devices() ([]DeviceInfo, error) { return nil, errNoVerbs }

// NoDeviceAdvice is what to do without an RDMA device: here, a build
// with verbs.
func NoDeviceAdvice() string { return noVerbs }

// RegisteredBytes fails with transport.ErrNoDevice: this build has no
// verbs.
func RegisteredBytes(transport.Config) (recv, ring int64, err error) { return 0, 0, errNoVerbs }

// WindowsEnforced is false: no connection is a verbs one.
func WindowsEnforced(transport.Conn) bool { return false }
