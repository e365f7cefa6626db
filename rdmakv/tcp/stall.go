package tcp

import (
	"fmt"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// An accepted connection's peer may leave its socket full, reading
// nothing of what is sent to it, for Config.StallTimeout before it is
// dropped. Each connection has goroutines of its own, so a stuck peer
// holds up no other; the bound frees what the stuck one holds.

// stallChecks is how many times per StallTimeout the watchdog looks.
const stallChecks = 4

// watch drops accepted connections whose socket write has been stuck for
// StallTimeout, until the accept loop ends.
func (l *listener) watch() {
	t := time.NewTicker(l.cfg.StallTimeout / stallChecks)
	defer t.Stop()
	var stuck []*conn
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
		}
		stuck = stuck[:0]
		l.mu.Lock()
		for c := range l.conns {
			if c.writeStuck() {
				stuck = append(stuck, c)
			}
		}
		l.mu.Unlock()
		for _, c := range stuck {
			c.closeWith(fmt.Errorf("%w: peer read nothing for %v", transport.ErrTimeout, l.cfg.StallTimeout), nil)
		}
	}
}

// writeStuck reports whether the same socket write has been under way at
// the last stallChecks+1 looks. Only the watchdog calls it.
func (c *conn) writeStuck() bool {
	n := c.w.writes.Load()
	if !c.w.busy.Load() || n != c.stallSeen {
		c.stallSeen, c.stallLooks = n, 0
		return false
	}
	c.stallLooks++
	return c.stallLooks > stallChecks
}
