package bench

import (
	"github.com/kvbench/kvbench/internal/hwcounters"
	"github.com/kvbench/kvbench/rdmakv"
)

// DeviceCounters is the Config.DeviceCounters of a run against this
// harness: the hardware counters, under sysfs, of the RDMA device and
// port the run's connections use, as the first connection's Info named
// them. It reads nothing before a connection settled the transport, over
// tcp, or for a baseline (nil); the run calls it once its connections are
// dialed.
func (s *Harness) DeviceCounters() func() (hwcounters.Counters, error) {
	if s.Baseline != nil {
		return nil
	}
	root := s.sysfs
	if root == "" {
		root = hwcounters.Root
	}
	return func() (hwcounters.Counters, error) {
		info, _, ok := s.Rdmakv.Info()
		if !ok || info.Transport != rdmakv.TransportVerbs || info.Device == "" {
			return nil, nil
		}
		return hwcounters.Read(root, info.Device, info.Port)
	}
}
