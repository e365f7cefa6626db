package doctor

import (
	"context"
	"testing"

	"github.com/kvbench/kvbench/internal/units"
)

// The defaults' footprint is what docs/USAGE.md's table says a client
// registers (879 KiB) and a server's ring per connection (1 MiB).
func TestDefaultFootprint(t *testing.T) {
	f := defaultFootprint()
	if f.Client != 900576 || f.ServerRing != 1<<20 || f.Pool != 256<<20 {
		t.Errorf("footprint %+v; want a client of 879.47KiB, a 1MiB ring and a 256MiB pool", f)
	}
}

// A locked-memory limit below what the defaults register fails, naming
// the amount needed and how to raise it; CAP_IPC_LOCK or no limit pass.
func TestMemlock(t *testing.T) {
	need := units.Bytes(defaultFootprint().oneProcess())
	env := newFakeEnv(t)
	env.memlock = 8 << 20
	r := Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "locked memory", Fail, "limit 8MiB, below the "+need+" needed", "at least "+need, "ulimit -l unlimited", "LimitMEMLOCK")

	env.write("/proc/self/status", "CapEff:\t00000000a80c75fb\n") // a root shell's
	r = Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "locked memory", OK, "CAP_IPC_LOCK")

	env.write("/proc/self/status", "CapEff:\t0000000000000000\n")
	env.memlock = unlimited
	r = Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "locked memory", OK, "unlimited")
}

// A slow clock source, a governor other than performance and a device
// on another NUMA node than this process's CPUs are warnings with fixes.
func TestSettings(t *testing.T) {
	env := newFakeEnv(t)
	d := env.rxe()
	env.Env.Devices = fakeDevices(d)
	env.write("/sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet")
	for _, c := range []string{"0", "1"} {
		env.write("/sys/devices/system/cpu/cpu"+c+"/cpufreq/scaling_governor", "performance")
	}
	for _, c := range []string{"2", "3"} {
		env.write("/sys/devices/system/cpu/cpu"+c+"/cpufreq/scaling_governor", "powersave")
	}
	env.write(sysIB+"/rxe0/device/numa_node", "1")
	env.write("/sys/devices/system/node/node1/cpulist", "4-7")
	r := Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "clock source", Warn, "hpet", "dmesg | grep -i clocksource")
	wantCheck(t, r, "cpu governor", Warn, "performance on CPUs 0-1; powersave on CPUs 2-3", "cpupower frequency-set -g performance")
	wantCheck(t, r, "device rxe0 NUMA", Warn, "node 1 (CPUs 4-7), but this process may run only on CPUs 0-3", "numactl --cpunodebind=1")
	if !r.OK {
		t.Errorf("warnings failed the run: %+v", r.Checks)
	}
	env.write("/sys/devices/system/node/node1/cpulist", "0-3")
	r = Run(context.Background(), env.Env, Options{})
	wantCheck(t, r, "device rxe0 NUMA", OK, "only on its CPUs (0-3)")
}

func TestCPUList(t *testing.T) {
	got := parseCPUList("0-2,5,7-8")
	if cpuList(got) != "0-2,5,7-8" || len(got) != 6 {
		t.Errorf("parse and write of 0-2,5,7-8: %v, %q", got, cpuList(got))
	}
}
