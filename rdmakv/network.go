package rdmakv

import (
	"errors"
	"log/slog"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// withNetwork runs try on the named transport. For "auto" it tries verbs
// (when built in) and falls back to tcp, with one warning, if verbs reports
// that no RDMA device is usable.
func withNetwork(name string, log *slog.Logger, try func(transport.Network) error) error {
	if name != "auto" {
		n, err := transport.Lookup(name)
		if err != nil {
			return err
		}
		return try(n)
	}
	if n, err := transport.Lookup("verbs"); err == nil {
		err := try(n)
		if err == nil || !errors.Is(err, transport.ErrNoDevice) {
			return err
		}
		log.Warn("rdmakv: no RDMA device, falling back to the tcp transport", "err", err)
	}
	n, err := transport.Lookup("tcp")
	if err != nil {
		return err
	}
	return try(n)
}
