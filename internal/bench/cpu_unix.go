//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU is this process's CPU time so far, every thread's.
func processCPU() (CPUTime, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return CPUTime{}, err
	}
	return CPUTime{User: time.Duration(ru.Utime.Nano()), Sys: time.Duration(ru.Stime.Nano())}, nil
}
