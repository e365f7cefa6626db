package bench

import (
	"github.com/kvbench/kvbench/internal/hwcounters"
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/rdmakv"
)

// DeviceCounters is the Config.DeviceCounters of a run against this
// harness: the hardware counters, under sysfs, of the RDMA device and
// port the run's connections use, as the store describes its link
// (store.LinkDescriber: rdmakv's first connection names them). It reads
// nothing before a connection settled the transport or over tcp, and is
// nil for a store that describes no link; the run calls it once its
// connections are dialed.
func (s *Harness) DeviceCounters() func() (hwcounters.Counters, error) {
	if _, ok := s.Store.(store.LinkDescriber); !ok {
		return nil
	}
	root := s.sysfs
	if root == "" {
		root = hwcounters.Root
	}
	return func() (hwcounters.Counters, error) {
		t := s.Link()
		if t.Name != rdmakv.TransportVerbs || t.Device == "" {
			return nil, nil
		}
		return hwcounters.Read(root, t.Device, t.Port)
	}
}
