package bench

import "github.com/kvbench/kvbench/internal/hwcounters"

// readCounters reads the device's counters at a measure phase's start or
// end (Config.DeviceCounters): nil when the run reads none or there is
// no device. A reading that fails in part keeps what it read, and the
// first such failure in the run is logged.
func (r *runner) readCounters(th, size int) hwcounters.Counters {
	f := r.cfg.DeviceCounters
	if f == nil {
		return nil
	}
	c, err := f()
	if err != nil {
		r.readingFailed(&r.countersWarned, "RDMA device counters not all read", th, size, err)
	}
	return c
}

// attachCounters gives every Measurement of a phase what the counters grew
// by between the phase's two readings: the phase's, like its CPU time,
// since the device counts for all of them at once.
func attachCounters(ms []Measurement, before, after hwcounters.Counters) {
	d := hwcounters.Delta(before, after)
	if d == nil {
		return
	}
	for i := range ms {
		ms[i].HWCounters = d
	}
}
