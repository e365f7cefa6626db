//go:build !unix

package bench

import (
	"errors"
	"runtime"
)

// processCPU has no getrusage to read here: cells go without CPU figures.
func processCPU() (CPUTime, error) {
	return CPUTime{}, errors.New("no getrusage on " + runtime.GOOS)
}
