//go:build !linux

package doctor

import "runtime"

// allowedCPUs lists the CPUs this process may run on: off Linux, every
// one the runtime counts.
func allowedCPUs() ([]int, error) {
	cpus := make([]int, runtime.NumCPU())
	for i := range cpus {
		cpus[i] = i
	}
	return cpus, nil
}
