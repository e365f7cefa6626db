package doctor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kvbench/kvbench/rdmakv/verbs"
)

// fakeEnv is a machine made of files under a temporary root, no device
// unless a test gives some, a memlock limit and the CPUs 0-3.
type fakeEnv struct {
	Env
	t       *testing.T
	memlock uint64
}

func newFakeEnv(t *testing.T) *fakeEnv {
	f := &fakeEnv{t: t, memlock: unlimited}
	f.Env = Env{
		Root:    t.TempDir(),
		Devices: fakeDevices(),
		Rlimit: func(res int) (uint64, uint64, error) {
			switch res {
			case unix.RLIMIT_MEMLOCK:
				return f.memlock, f.memlock, nil
			case unix.RLIMIT_NOFILE:
				return 1 << 20, 1 << 20, nil
			}
			return 0, 0, errors.New("unexpected resource")
		},
		AllowedCPUs: func() ([]int, error) { return []int{0, 1, 2, 3}, nil },
	}
	f.write("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc")
	f.write("/proc/self/status", "Name:\tkvbench\nCapEff:\t0000000000000000\n")
	return f
}

func fakeDevices(devs ...verbs.DeviceInfo) func() ([]verbs.DeviceInfo, error) {
	return func() ([]verbs.DeviceInfo, error) { return devs, nil }
}

// write creates a file under the root, with its directories.
func (f *fakeEnv) write(p, content string) {
	f.t.Helper()
	full := f.path(p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// rxe is a Soft-RoCE device on eth0 as the guest has it, with its
// sysfs and device files.
func (f *fakeEnv) rxe() verbs.DeviceInfo {
	port := sysIB + "/rxe0/ports/1/"
	f.write(port+"state", "4: ACTIVE")
	f.write(port+"link_layer", "Ethernet")
	f.write(port+"gids/0", "fe80:0000:0000:0000:5054:00ff:fe12:3456")
	f.write(port+"gids/1", "0000:0000:0000:0000:0000:ffff:0a00:020f")
	f.write(port+"gids/2", "0000:0000:0000:0000:0000:0000:0000:0000")
	f.write(port+"gid_attrs/types/0", "IB/RoCE v1")
	f.write(port+"gid_attrs/types/1", "RoCE v2")
	f.write(port+"gid_attrs/ndevs/0", "eth0")
	f.write(port+"gid_attrs/ndevs/1", "eth0")
	f.write("/dev/infiniband/uverbs0", "")
	f.write("/dev/infiniband/rdma_cm", "")
	return verbs.DeviceInfo{
		Name: "rxe0", Firmware: "0.0.0", NodeType: "CA", Transport: "InfiniBand", VendorID: 0xffffff,
		MaxQPWR: 1048576, MaxSGE: 32, MaxCQE: 32767, MaxMR: 262144, MaxSRQ: 917504, MaxSRQWR: 1048576, MaxSRQSGE: 27,
		WindowsClaimed: true, Windows: true, SendWithInv: true, MaxInline: 256,
		Ports: []verbs.PortInfo{{Num: 1, State: "ACTIVE", LinkLayer: "Ethernet", MTU: 1024, GIDs: 1024}},
	}
}

// check returns the report's check named name, failing the test if none.
func check(t *testing.T, r *Report, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q among %+v", name, r.Checks)
	return Check{}
}

// wantCheck asserts a check's status and that its detail and fix say
// each of says.
func wantCheck(t *testing.T, r *Report, name string, s Status, says ...string) {
	t.Helper()
	c := check(t, r, name)
	if c.Status != s {
		t.Errorf("%s: status %s, want %s (%s)", name, c.Status, s, c.Detail)
	}
	for _, w := range says {
		if !strings.Contains(c.Detail+" fix: "+c.Fix, w) {
			t.Errorf("%s: %q (fix %q) does not say %q", name, c.Detail, c.Fix, w)
		}
	}
}
