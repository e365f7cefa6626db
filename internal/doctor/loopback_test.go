package doctor

import "testing"

// The loopback check says what the transport will use from what the
// pair did: windows or the region-wide key, WRITE_WITH_IMM or a WRITE
// and a SET_FIN; a window that would not invalidate fails, and a pair
// that could not be made leaves the operations untried.
func TestLoopbackCheck(t *testing.T) {
	caps := func(lb Loopback) Caps {
		return Caps{RC: true, MaxSRQ: 1, MaxSRQWR: 1024, MaxSRQSGE: 2, MaxInline: 256, Loopback: &lb}
	}
	for _, tc := range []struct {
		lb     Loopback
		status Status
		says   []string
	}{
		{Loopback{}, OK, []string{"per-grant windows", "with WRITE_WITH_IMM", "a shared receive queue", "256 bytes inline"}},
		{Loopback{WindowError: "operation not supported", InvalidateError: "untried: no window bound"}, OK,
			[]string{"region-wide key (no window bound: operation not supported)"}},
		{Loopback{WriteImmError: "completed with remote invalid request error"}, OK,
			[]string{"RDMA WRITE and a SET_FIN (no WRITE_WITH_IMM: completed with remote invalid request error)"}},
		{Loopback{InvalidateError: "operation not permitted"}, Fail, []string{"invalidating it failed: operation not permitted"}},
		{Loopback{Error: "no such device"}, Warn, []string{"could not be made (no such device)", "untried"}},
	} {
		r := &Report{}
		checkCaps(r, "dev0", caps(tc.lb))
		wantCheck(t, r, "dev0 loopback", tc.status, tc.says...)
	}
}

// Without a shared receive queue the loopback check says the server
// posts receives per connection, and the srq check warns of the memory
// that costs instead of failing: kvserver serves there.
func TestNoSRQServesPerConnection(t *testing.T) {
	r := &Report{}
	checkCaps(r, "irdma0", Caps{RC: true, MaxInline: 96, MaxQPWR: 4096, MaxSGE: 2, Loopback: &Loopback{}})
	wantCheck(t, r, "irdma0 loopback", OK, "serves from a receive queue per connection (the device has no shared one)")
	wantCheck(t, r, "irdma0 srq", Warn, "each connection --recv-depth receives of its own", "lower kvserver --recv-depth")
	for _, c := range r.Checks {
		if c.Status == Fail {
			t.Errorf("a device without an SRQ fails %s: %s", c.Name, c.Detail)
		}
	}
}
