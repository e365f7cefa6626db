package doctor

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/kvbench/kvbench/rdmakv/verbs"
)

// Env is the machine the checks read. Tests fake it: a root directory
// holding sys, dev and proc, and functions standing in for the system
// calls.
type Env struct {
	// Root is where sys, dev and proc are found: "/" on the real machine.
	Root string
	// Devices lists the RDMA devices (verbs.Devices).
	Devices func() ([]verbs.DeviceInfo, error)
	// Rlimit returns a resource's soft and hard limit (getrlimit).
	Rlimit func(resource int) (cur, max uint64, err error)
	// AllowedCPUs lists the CPUs this process may run on.
	AllowedCPUs func() ([]int, error)
}

// System is the machine this process runs on.
func System() Env {
	return Env{
		Root:    "/",
		Devices: verbs.Devices,
		Rlimit: func(res int) (uint64, uint64, error) {
			var l unix.Rlimit
			err := unix.Getrlimit(res, &l)
			return uint64(l.Cur), uint64(l.Max), err // int64 on some systems
		},
		AllowedCPUs: allowedCPUs,
	}
}

// path is p (absolute, as on the real machine) under the env's root.
func (e Env) path(p string) string { return filepath.Join(e.Root, p) }

// read returns a file's contents under the root, trimmed; "" when absent.
func (e Env) read(p string) string {
	b, err := os.ReadFile(e.path(p))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
