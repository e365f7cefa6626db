//go:build linux && race

package rawsock

import (
	"net"
	"testing"
	"time"
)

// The race detector's ordering is per connection: both ends of one
// connection share it, whichever end asks, and another connection's is
// its own, so that ordering one does not hide races on the other.
func TestRaceSyncPerConnection(t *testing.T) {
	a, pa := dialPair(t, BlockDialer{Timeout: time.Second}.DialContext)
	b, pb := dialPair(t, (&net.Dialer{}).DialContext)
	defer func() { a.Close(); pa.Close(); b.Close(); pb.Close() }()
	ra, rpa := raceSyncOf(a.LocalAddr(), a.RemoteAddr()), raceSyncOf(pa.LocalAddr(), pa.RemoteAddr())
	rb := raceSyncOf(b.LocalAddr(), b.RemoteAddr())
	if ra.p != rpa.p {
		t.Error("the two ends of one connection are ordered apart")
	}
	if ra.p == rb.p {
		t.Error("two connections share one ordering")
	}
	if a.(*BlockConn).race.p != ra.p {
		t.Error("a BlockConn does not order by its connection")
	}
}
