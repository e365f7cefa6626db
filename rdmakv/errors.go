package rdmakv

import (
	"errors"
	"fmt"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// Errors returned by the client; test with errors.Is.
var (
	ErrNotFound      = errors.New("rdmakv: key not found")
	ErrKeyTooLong    = errors.New("rdmakv: key too long")
	ErrValueTooLarge = errors.New("rdmakv: value too large")
	ErrNoSpace       = errors.New("rdmakv: server pool full")
	ErrClosed        = errors.New("rdmakv: client closed")
	ErrTimeout       = errors.New("rdmakv: request timed out")
	ErrProtocol      = errors.New("rdmakv: protocol error")
	ErrThreshold     = errors.New("rdmakv: eager threshold above the server's maximum")
	ErrAuth          = errors.New("rdmakv: authentication failed")
	// ErrFatal, beside ErrClosed, is a connection its RDMA device said
	// broke: a fatal queue pair event, its port going down, or the
	// device failing.
	ErrFatal = transport.ErrFatal
)

// statusErr maps a reply status to the client's sentinel errors.
func statusErr(op string, s wire.Status) error {
	switch s {
	case wire.OK:
		return nil
	case wire.NotFound:
		return ErrNotFound
	case wire.KeyTooLong:
		return ErrKeyTooLong
	case wire.ValueTooLarge:
		return ErrValueTooLarge
	case wire.NoSpace:
		return ErrNoSpace
	case wire.Threshold:
		return ErrThreshold
	case wire.AuthRequired, wire.AuthFailed:
		return ErrAuth
	}
	return fmt.Errorf("%w: %s answered %s", ErrProtocol, op, s)
}
