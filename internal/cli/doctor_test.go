package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/doctor"
	"github.com/kvbench/kvbench/rdmakv/verbs"
)

// noDevices skips where an RDMA device exists: these tests check what
// doctor says without one, which the build host is.
func noDevices(t *testing.T) {
	if ds, _ := verbs.Devices(); len(ds) != 0 {
		t.Skipf("this machine has %d RDMA device(s); the no-device report needs none", len(ds))
	}
}

// On a machine without a device doctor names it, gives the Soft-RoCE
// advice and exits 1.
func TestDoctorNoDevice(t *testing.T) {
	noDevices(t)
	out, _, err := executeIO(hangGuard(t), nil, "doctor")
	if ExitCode(err) != 1 || err == nil {
		t.Fatalf("doctor: %v (exit %d), want exit 1", err, ExitCode(err))
	}
	for _, want := range []string{"fail  rdma devices: libibverbs lists none", "modprobe rdma_rxe", "locked memory:", "a run would not work"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("doctor printed\n%s\nwithout %q", out, want)
		}
	}
}

// --server --format json reports the server's limits and a timed sample
// of each protocol, as a script reads them; over tcp the missing device
// does not fail the run.
func TestDoctorServerJSON(t *testing.T) {
	noDevices(t)
	out, _, err := executeIO(hangGuard(t), nil, "doctor", "--server", keyServer(t, nil), "--transport", "tcp", "--format", "json")
	if err != nil {
		t.Fatalf("doctor: %v, want exit 0: a tcp run needs no device", err)
	}
	var r doctor.Report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	if !r.OK || r.Server == nil || r.Server.Limits == nil || r.Server.Limits.MaxValue != 4<<20 || len(r.Server.Samples) != 4 {
		t.Fatalf("report %+v, server %+v", r, r.Server)
	}
	for _, c := range r.Checks {
		if c.Section == "server" && c.Status != doctor.OK {
			t.Errorf("server check %+v", c)
		}
	}
}

func TestDoctorFormat(t *testing.T) {
	_, _, err := executeIO(hangGuard(t), nil, "doctor", "--format", "yaml")
	if err == nil || !strings.Contains(err.Error(), `--format "yaml": want text or json`) {
		t.Errorf("--format yaml: %v", err)
	}
}
