//go:build !amd64

package traceclock

func rdtsc() int64 { return 0 }

func haveTSC() bool { return false }
