//go:build linux && !race

package rawsock

import "net"

// raceSync tells the race detector, in race builds, what the kernel
// orders on one connection (race.go); here it does nothing.
type raceSync struct{}

func raceSyncOf(net.Addr, net.Addr) raceSync { return raceSync{} }
func (raceSync) wrote()                      {}
func (raceSync) read()                       {}
