package main

import (
	"fmt"
	"net"
	"os/exec"
	"strings"
	"time"
)

// stuckAfter is how long a churn dial may take before kvsoak photographs
// the sockets of the server's port: on loopback a connect takes
// milliseconds, so one that takes seconds has a handshake the kernel is
// not completing, and the state of its 4-tuple on both ends says why.
const stuckAfter = 3 * time.Second

// watchDial calls dial, and if it is still running after stuckAfter,
// returns the sockets of addr's port as they were then ("" otherwise),
// for the failure message.
func watchDial(addr string, dial func()) (stuck string) {
	snap := make(chan string, 1)
	t := time.AfterFunc(stuckAfter, func() { snap <- stuckSockets(addr) })
	dial()
	if !t.Stop() {
		return <-snap
	}
	return ""
}

// stuckSockets lists, from ss, every client socket in SYN-SENT to addr's
// port and every socket of the same 4-tuple on the server's side, with
// their timers and TCP details.
func stuckSockets(addr string) string {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err.Error()
	}
	out, err := exec.Command("ss", "-tanoi", "state", "all", fmt.Sprintf("( dport = :%s or sport = :%s )", port, port)).Output()
	if err != nil {
		return fmt.Sprintf("ss: %v", err)
	}
	return stuckLines(string(out), port)
}

// stuckLines keeps, of ss -tanoi output, the SYN-SENT sockets and every
// other socket whose ports include one of theirs.
func stuckLines(out, port string) string {
	lines := strings.Split(out, "\n")
	var ports []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 4 && f[0] == "SYN-SENT" {
			if _, p, err := net.SplitHostPort(f[3]); err == nil {
				ports = append(ports, ":"+p+" ")
			}
		}
	}
	if len(ports) == 0 {
		return "no socket in SYN-SENT to port " + port
	}
	var keep []string
	for i, l := range lines {
		for _, p := range ports {
			if strings.Contains(l+" ", p) {
				keep = append(keep, l)
				if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
					keep = append(keep, lines[i+1]) // -i's details line
				}
				break
			}
		}
	}
	return "sockets of the stuck connect's 4-tuple:\n" + strings.Join(keep, "\n")
}
