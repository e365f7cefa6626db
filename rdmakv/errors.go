// Package rdmakv is a key-value store over RDMA verbs (or a TCP emulation
// of them). Small requests travel eager, inline in one SEND; large ones
// rendezvous: the server hands out an address and a remote key and the
// client moves the value with one-sided RDMA WRITE_WITH_IMM (set) or READ
// (get). The switch point is the client's eager threshold.
//
// docs/PROTOCOL.md describes the wire protocol.
package rdmakv

import (
	"errors"
	"fmt"

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
	}
	return fmt.Errorf("%w: %s answered %s", ErrProtocol, op, s)
}

// Protocol says how a request travelled.
type Protocol uint8

const (
	// Eager: key and value inline in one message.
	Eager Protocol = 1
	// Rendezvous: the value moved by one-sided RDMA.
	Rendezvous Protocol = 2
)

func (p Protocol) String() string {
	switch p {
	case Eager:
		return "eager"
	case Rendezvous:
		return "rendezvous"
	}
	return fmt.Sprintf("Protocol(%d)", uint8(p))
}
