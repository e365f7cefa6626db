package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"syscall"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/verbs"
)

// With no device the report says so with the transport's advice, and a
// run would not work.
func TestNoDevice(t *testing.T) {
	env := newFakeEnv(t)
	r := Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "rdma devices", Fail, "libibverbs lists none", "modprobe rdma_rxe", "rdma link add rxe0 type rxe")
	wantCheck(t, r, "/dev/infiniband/rdma_cm", Fail, "missing", "modprobe rdma_ucm")
	if r.OK || len(r.Devices) != 0 {
		t.Errorf("OK %v with devices %+v; want not OK and none", r.OK, r.Devices)
	}
}

// A Soft-RoCE device is described from libibverbs and sysfs (RoCE, its
// GIDs with type and interface, skipping empty entries), named as software,
// and a run works.
func TestSoftRoCE(t *testing.T) {
	env := newFakeEnv(t)
	env.Env.Devices = fakeDevices(env.rxe())
	r := Run(context.Background(), env.Env, Options{})
	if !r.OK {
		t.Fatalf("not OK: %+v", r.Checks)
	}
	d := r.Devices[0]
	if d.Transport != "RoCE" || d.Software != "rxe (Soft-RoCE)" || d.NUMANode != -1 || d.Caps == nil || !d.Caps.Windows {
		t.Errorf("device %+v", d)
	}
	want := []GID{{0, "fe80::5054:ff:fe12:3456", "IB/RoCE v1", "eth0"}, {1, "10.0.2.15", "RoCE v2", "eth0"}}
	if g := d.Ports[0].GIDs; !slices.Equal(g, want) {
		t.Errorf("GIDs %+v, want %+v", g, want)
	}
	wantCheck(t, r, "device rxe0", OK, "RoCE, rxe (Soft-RoCE)", "port 1 ACTIVE Ethernet MTU 1024", "GID 1 10.0.2.15 RoCE v2 on eth0")
	wantCheck(t, r, "device rxe0 provider", Warn, "software provider")
	wantCheck(t, r, "/dev/infiniband/uverbs0", OK)
	wantCheck(t, r, "rxe0 memory windows", OK, "type-2")
	wantCheck(t, r, "rxe0 inline", OK, "256 bytes")
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.Devices[0].Software != "rxe (Soft-RoCE)" || !back.OK {
		t.Errorf("JSON round trip: %v, %+v", err, back)
	}
}

// A device the kernel has but libibverbs does not list lacks its
// provider library; one libibverbs cannot open says why.
func TestUnusableDevices(t *testing.T) {
	env := newFakeEnv(t)
	env.write(sysIB+"/mlx5_0/ports/1/state", "1: DOWN")
	r := Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "device mlx5_0", Fail, "no user-space provider", "ibverbs-providers")
	if r.OK {
		t.Error("OK without a usable device")
	}
}

// A port that is not active is named, with how to bring it up; no usable
// device fails the run.
func TestPortDown(t *testing.T) {
	env := newFakeEnv(t)
	d := env.rxe()
	d.Ports[0].State = "DOWN"
	env.Env.Devices = fakeDevices(d)
	r := Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "device rxe0 ports", Warn, "no port is ACTIVE", "ip link set IFACE up")
	wantCheck(t, r, "usable device", Fail)
}

// --device names one device; an unknown one is a failure listing those
// there are.
func TestDeviceChoice(t *testing.T) {
	env := newFakeEnv(t)
	env.Env.Devices = fakeDevices(env.rxe())
	r := Run(context.Background(), env.Env, Options{Device: "mlx5_1"})
	wantCheck(t, r, "device mlx5_1", Fail, "no device mlx5_1 among rxe0", "--device one of: rxe0")
}

// Device limits below what the defaults ask are failures naming the
// figure to lower; missing windows are a warning.
func TestCapabilities(t *testing.T) {
	env := newFakeEnv(t)
	d := env.rxe()
	d.MaxSRQWR, d.Windows, d.WindowsClaimed, d.MaxQPWR = 128, false, false, 256
	env.Env.Devices = fakeDevices(d)
	r := Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "rxe0 srq", Fail, "128 WRs", "--recv-depth 128")
	wantCheck(t, r, "rxe0 queue pairs", Fail, "QPs of 256 WRs", "the defaults need 513")
	wantCheck(t, r, "rxe0 memory windows", Warn, "region-wide key")
	if r.OK {
		t.Error("OK with an SRQ too small")
	}
}

// A device whose limits promise shared receive queues but that makes none
// fails the srq check with the error it gave; the probe asks the depth a
// kvserver does.
func TestSRQProbe(t *testing.T) {
	if verbs.ProbeSRQWR != rdmakv.DefaultRecvDepth {
		t.Errorf("the probe makes an SRQ of %d WRs, kvserver's default is %d", verbs.ProbeSRQWR, rdmakv.DefaultRecvDepth)
	}
	env := newFakeEnv(t)
	d := env.rxe()
	d.SRQErr = syscall.EOPNOTSUPP
	env.Env.Devices = fakeDevices(d)
	r := Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "rxe0 srq", Fail, "making one of 256 WRs and 2 SGEs failed", "operation not supported", "--receives per-connection")
	if r.OK {
		t.Error("OK without a shared receive queue")
	}
}

// A device that makes no RC queue pairs (EFA: transport unspecified) is
// named for that, not called InfiniBand, and fails the run.
func TestNoRC(t *testing.T) {
	env := newFakeEnv(t)
	d := env.rxe()
	d.Transport = "unknown"
	env.Env.Devices = fakeDevices(d)
	r := Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "rxe0 queue pairs", Fail, "no reliable connected queue pairs", "--transport tcp")
	if r.Devices[0].Transport != "unknown" || r.OK {
		t.Errorf("transport %q, OK %v: want unknown, not OK", r.Devices[0].Transport, r.OK)
	}
}

// Windows without SEND_WITH_INV are a warning naming what a release uses;
// with it, the check passes.
func TestSendWithInv(t *testing.T) {
	env := newFakeEnv(t)
	env.Env.Devices = fakeDevices(env.rxe())
	wantCheck(t, Run(context.Background(), env.Env, Options{}), "rxe0 send with invalidate", OK, "SEND_WITH_INV")
	d := env.rxe()
	d.SendWithInv = false
	env.Env.Devices = fakeDevices(d)
	r := Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "rxe0 send with invalidate", Warn, "does not claim SEND_WITH_INV", "update the driver")
	if !r.OK {
		t.Errorf("not OK for a warning: %+v", r.Checks)
	}
}
