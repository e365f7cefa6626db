package rdmakvstore

import (
	"sync"
	"sync/atomic"

	"github.com/kvbench/kvbench/rdmakv"
)

// adaptiveGroup is the policy a set of adaptive connections shares
// (rdmakv.AdaptiveGroup). A set is the connections open at once: one
// dialled when all of the last set have closed starts a new group, so
// that each cell's connections learn afresh.
type adaptiveGroup struct {
	g    *rdmakv.AdaptiveGroup
	open atomic.Int64
	// reporter is the member whose AdaptiveState stands for the group's:
	// every member's is the same policy's, which counted once each would
	// be counted as many times as there are members.
	reporter atomic.Pointer[groupConn]
}

// adaptiveGroup is the group the next adaptive connection joins. d.mu
// is held.
func (d *Dialer) adaptiveGroup() *adaptiveGroup {
	if d.group == nil || d.group.open.Load() == 0 {
		d.group = &adaptiveGroup{g: rdmakv.NewAdaptiveGroup()}
	}
	return d.group
}

// join makes c, dialled with g's policy, a member.
func (g *adaptiveGroup) join(c *rdmakv.Client) *groupConn {
	g.open.Add(1)
	m := &groupConn{conn: conn{c}, group: g}
	g.reporter.CompareAndSwap(nil, m)
	return m
}

// groupConn is a connection whose policy its group shares.
type groupConn struct {
	conn
	group *adaptiveGroup
	once  sync.Once
}

// AdaptiveState is the group's policy's from its reporter, nil from the
// others (store.AdaptiveReporter). A reporter that closes hands the role
// on to the next member to be asked.
func (m *groupConn) AdaptiveState() []rdmakv.AdaptiveClass {
	r := m.group.reporter.Load()
	if r != m && (r != nil || !m.group.reporter.CompareAndSwap(nil, m)) {
		return nil
	}
	return m.conn.AdaptiveState()
}

// Close leaves the group, once, and closes the connection.
func (m *groupConn) Close() error {
	m.once.Do(func() {
		m.group.open.Add(-1)
		m.group.reporter.CompareAndSwap(m, nil)
	})
	return m.conn.Close()
}
