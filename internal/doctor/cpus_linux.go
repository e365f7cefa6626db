package doctor

import "golang.org/x/sys/unix"

// allowedCPUs lists the CPUs this process may run on: its affinity mask.
func allowedCPUs() ([]int, error) {
	var s unix.CPUSet
	if err := unix.SchedGetaffinity(0, &s); err != nil {
		return nil, err
	}
	var cpus []int
	for i := range len(s) * 64 {
		if s.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus, nil
}
