package rdmakv

import (
	"errors"
	"log/slog"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// withNetwork runs try on the named transport. For "auto" it tries verbs
// and falls back to tcp when verbs is not linked in or reports that no RDMA
// device is usable; either way it logs the choice, so that a run over auto
// says what it measured.
func withNetwork(name string, log *slog.Logger, try func(transport.Network) (Info, error)) error {
	if name != TransportAuto {
		n, err := transport.Lookup(name)
		if err != nil {
			return err
		}
		_, err = try(n)
		return err
	}
	why := "verbs is not linked into this program"
	if n, err := transport.Lookup(TransportVerbs); err == nil {
		info, err := try(n)
		if err == nil {
			log.Info("rdmakv: transport auto: using verbs", "device", info.Device)
			return nil
		}
		if !errors.Is(err, transport.ErrNoDevice) {
			return err
		}
		why = err.Error()
	}
	n, err := transport.Lookup(TransportTCP)
	if err != nil {
		return err
	}
	if _, err := try(n); err != nil {
		return err
	}
	log.Warn("rdmakv: transport auto: using tcp", "why", why)
	return nil
}
