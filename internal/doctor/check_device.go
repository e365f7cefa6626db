package doctor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/kvbench/kvbench/rdmakv/verbs"
)

const secDevices = "devices"

// checkDevices fills r.Devices and checks them and the device files; it
// returns the devices the other sections look at (only the one asked for,
// when one is).
func checkDevices(r *Report, env Env, want string) []Device {
	infos, err := env.Devices()
	if err != nil {
		r.add(secDevices, "rdma devices", Fail, "libibverbs cannot list devices: "+err.Error(),
			"install rdma-core (libibverbs and its providers)")
	}
	listed := map[string]bool{}
	for _, vi := range infos {
		listed[vi.Name] = true
		r.Devices = append(r.Devices, env.device(vi))
	}
	checkUnlisted(r, env, listed)
	if len(r.Devices) == 0 && err == nil {
		r.add(secDevices, "rdma devices", Fail, "libibverbs lists none and "+sysIB+" is empty", verbs.NoDeviceAdvice())
	}
	checkDeviceFiles(r, env, len(infos) > 0)
	if len(r.Devices) == 0 {
		return nil
	}
	devs := r.Devices
	if want != "" {
		i := slices.IndexFunc(devs, func(d Device) bool { return d.Name == want })
		if i < 0 {
			r.add(secDevices, "device "+want, Fail, "no device "+want+" among "+names(devs),
				"give --device one of: "+names(devs))
			return nil
		}
		devs = devs[i : i+1]
	}
	usable := 0
	for _, d := range devs {
		if checkDevice(r, d) {
			usable++
		}
	}
	if usable == 0 {
		r.add(secDevices, "usable device", Fail, "no device with an active port that libibverbs can open",
			"see the device checks above")
	}
	return devs
}

func names(devs []Device) string {
	var s []string
	for _, d := range devs {
		s = append(s, d.Name)
	}
	return strings.Join(s, ", ")
}

// checkDevice reports one device and says whether rdmakv can use it.
func checkDevice(r *Report, d Device) bool {
	name := "device " + d.Name
	if d.Error != "" {
		fix := "look at `dmesg` for the driver's complaint"
		if strings.Contains(d.Error, "permission") {
			fix = "give this user read and write access to /dev/infiniband/uverbs* (the rdma group, or a udev rule)"
		}
		r.add(secDevices, name, Fail, "libibverbs cannot open it: "+d.Error, fix)
		return false
	}
	r.add(secDevices, name, OK, describe(d), "")
	if d.Software != "" {
		r.add(secDevices, name+" provider", Warn, d.Software+" is a software provider: the CPU moves every byte, so latencies are not a NIC's",
			"measure on an RNIC for hardware figures")
	}
	active := slices.ContainsFunc(d.Ports, func(p Port) bool { return p.State == "ACTIVE" })
	if !active {
		fix := "check the cable and that a subnet manager runs (opensm)"
		if d.Transport != "InfiniBand" {
			fix = "bring its network interface up: `ip link set IFACE up`"
		}
		r.add(secDevices, name+" ports", Warn, "no port is ACTIVE", fix)
		return false
	}
	if d.Transport == "RoCE" && !hasIPGID(d) {
		r.add(secDevices, name+" address", Warn, "no GID holds an IP address: rdma_cm routes by IP, so rdmakv cannot connect over it",
			"give its network interface an IP address (`ip addr add ADDR/LEN dev IFACE`)")
	}
	return true
}

// describe is the one-line summary of a device.
func describe(d Device) string {
	s := d.Transport
	if d.Software != "" {
		s += ", " + d.Software
	} else if d.Driver != "" {
		s += ", driver " + d.Driver
	}
	if d.Firmware != "" {
		s += ", firmware " + d.Firmware
	}
	for _, p := range d.Ports {
		s += fmt.Sprintf("; port %d %s %s MTU %d", p.Num, p.State, p.LinkLayer, p.MTU)
		for _, g := range p.GIDs {
			s += fmt.Sprintf(", GID %d %s", g.Index, g.GID)
			if g.Type != "" {
				s += " " + g.Type
			}
			if g.Netdev != "" {
				s += " on " + g.Netdev
			}
		}
	}
	return s
}

// hasIPGID: some GID is an IP address (not link-local), as RoCE needs for
// rdma_cm to route.
func hasIPGID(d Device) bool {
	for _, p := range d.Ports {
		for _, g := range p.GIDs {
			if !strings.HasPrefix(g.GID, "fe80:") {
				return true
			}
		}
	}
	return false
}

// checkUnlisted reports devices the kernel has but libibverbs did not list:
// their user-space provider is missing.
func checkUnlisted(r *Report, env Env, listed map[string]bool) {
	dirs, _ := filepath.Glob(env.path(filepath.Join(sysIB, "*")))
	for _, dir := range dirs {
		name := filepath.Base(dir)
		if listed[name] {
			continue
		}
		d := env.device(verbs.DeviceInfo{Name: name, Err: errors.New("libibverbs does not list it")})
		r.Devices = append(r.Devices, d)
		r.add(secDevices, "device "+name, Fail, "the kernel has it but libibverbs does not list it: no user-space provider for it",
			"install the rdma-core providers (package ibverbs-providers or rdma-core)")
	}
}

// checkDeviceFiles checks /dev/infiniband: uverbs files (one a device)
// and rdma_cm, which rdmakv opens to connect.
func checkDeviceFiles(r *Report, env Env, haveDevices bool) {
	cm := "/dev/infiniband/rdma_cm"
	checkFile(r, env, cm, "load the connection manager's user-space module: `modprobe rdma_ucm`")
	if !haveDevices {
		return
	}
	uverbs, _ := filepath.Glob(env.path("/dev/infiniband/uverbs*"))
	if len(uverbs) == 0 {
		r.add(secDevices, "/dev/infiniband/uverbs*", Fail, "missing", "load the verbs user-space module: `modprobe ib_uverbs`")
	}
	for _, f := range uverbs {
		checkFile(r, env, "/dev/infiniband/"+filepath.Base(f), "")
	}
}

func checkFile(r *Report, env Env, p, missingFix string) {
	_, err := os.Stat(env.path(p))
	switch {
	case err != nil:
		r.add(secDevices, p, Fail, "missing", missingFix)
	case syscall.Access(env.path(p), 6) != nil: // read and write
		r.add(secDevices, p, Fail, "not readable and writable by this user",
			"add this user to the file's group (usually rdma) or allow it with a udev rule")
	default:
		r.add(secDevices, p, OK, "present and accessible", "")
	}
}
