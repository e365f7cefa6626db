package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/valuegen"
	"github.com/kvbench/kvbench/rdmakv"
)

func TestKeyStateAccepts(t *testing.T) {
	var k keyState
	if !k.accepts(0) || k.accepts(1) {
		t.Fatal("a fresh key must read as absent only")
	}
	k.ack(3)
	k.fail(4) // a set that timed out may or may not have landed
	k.fail(0) // so may a delete
	for v, want := range map[uint64]bool{3: true, 4: true, 0: true, 2: false, 5: false} {
		if k.accepts(v) != want {
			t.Errorf("after ack 3, failed set 4, failed delete: accepts(%d) = %v, want %v", v, !want, want)
		}
	}
	k.ack(6)
	if k.accepts(4) || k.accepts(0) || !k.accepts(6) {
		t.Fatal("an acknowledged set must end what failed operations before it left open")
	}
}

// TestWriterCatchesDamage: a writer's reads find a value rolled back, a
// value deleted behind its back and a value damaged in place, and nothing
// on keys left alone.
func TestWriterCatchesDamage(t *testing.T) {
	s, err := rdmakv.Listen(rdmakv.ServerConfig{Listen: "127.0.0.1:0", Transport: "tcp", PoolSize: 64 << 20, MaxValue: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dial := func(ctx context.Context) (*rdmakv.Client, error) {
		return rdmakv.Dial(ctx, s.Addr(), rdmakv.WithTransport("tcp"))
	}
	led := newLedger(1, 1, dial)
	w := led.writers[0]
	w.limit = 2000 // a count, not a time: the same run on any host
	led.start(context.Background())
	led.wg.Wait()
	if w.f.Ops != w.limit || w.f.Lost+w.f.Wrong+w.f.Torn+w.f.Failed != 0 {
		t.Fatalf("undisturbed writer: %+v, want %d operations and no findings", w.f, w.limit)
	}
	// Make sure keys 0-2 hold values, then damage them from outside.
	bg := context.Background()
	for k := range 3 {
		v := w.next
		w.next++
		val := w.buf[:sizeOf(k, v)]
		valuegen.Fill(val, keyName(0, k), v)
		if err := w.c.Set(bg, keyName(0, k), val); err != nil {
			t.Fatal(err)
		}
		w.keys[k].ack(v)
	}
	other, err := dial(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	old := make([]byte, sizeOf(0, 0))
	valuegen.Fill(old, keyName(0, 0), 0) // intact, but a version never written
	if err := other.Set(bg, keyName(0, 0), old); err != nil {
		t.Fatal(err)
	}
	if err := other.Delete(bg, keyName(0, 1)); err != nil {
		t.Fatal(err)
	}
	v, err := other.Get(bg, keyName(0, 2))
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), v.Bytes()...)
	v.Release()
	bad[len(bad)-1] ^= 0xff
	if err := other.Set(bg, keyName(0, 2), bad); err != nil {
		t.Fatal(err)
	}

	f, err := led.finish()
	if err != nil {
		t.Fatal(err)
	}
	if f.Lost != 2 || f.Wrong+f.Torn != 1 {
		t.Fatalf("findings %+v, want 2 lost (rolled back, deleted) and 1 wrong or torn", f)
	}
	for _, want := range []string{"ledger-0-000: read version", "ledger-0-001: read version 0"} {
		if !strings.Contains(strings.Join(f.Examples, "\n"), want) {
			t.Errorf("examples %q lack %q", f.Examples, want)
		}
	}
}

// TestWriterStopIsNoFailure: a dial that fails because the run is ending
// is not a failure; one that fails while the run goes on is.
func TestWriterStopIsNoFailure(t *testing.T) {
	for _, refusals := range []int64{0, 1, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		var dials int64
		led := newLedger(1, 1, func(ctx context.Context) (*rdmakv.Client, error) {
			if dials++; dials <= refusals {
				return nil, errors.New("refused")
			}
			cancel() // the run ends while this dial is under way
			<-ctx.Done()
			return nil, ctx.Err()
		})
		led.start(ctx)
		led.wg.Wait()
		if f := led.writers[0].f; f.Failed != refusals || f.Ops != 0 {
			t.Errorf("%d dials refused, then one cut off by the end of the run: %d failed, %d operations; want %d failed",
				refusals, f.Failed, f.Ops, refusals)
		}
	}
}

// TestFailures: a report with every figure in bounds passes; each figure
// out of bounds is named.
func TestFailures(t *testing.T) {
	good := func() *report {
		r := &report{
			start: sample{fds: 10, goroutines: 8}, end: sample{fds: 10, goroutines: 8},
			warm: sample{mem: memory{anon: 110 << 20, retained: 10 << 20}}, settled: sample{mem: memory{anon: 125 << 20, retained: 20 << 20}},
		}
		for range loaderSpecs {
			r.loaders = append(r.loaders, loaderTally{Runs: 3, Errors: map[string]int64{"not_found": 5}})
		}
		for _, c := range []interface{ Add(int64) int64 }{&r.ft.Stops, &r.ft.Kills, &r.ft.Floods, &r.ft.Garbage, &r.ft.Churned} {
			c.Add(1)
		}
		return r
	}
	if f := good().failures(); len(f) != 0 {
		t.Fatalf("a clean report fails: %q", f)
	}
	for name, c := range map[string]struct {
		mod  func(*report)
		want string
	}{
		"fd leak":        {func(r *report) { r.end.fds = 11 }, "open files leaked: 10 before the load, 11 after"},
		"goroutine leak": {func(r *report) { r.end.goroutines = 9 }, "goroutines leaked"},
		"memory growth":  {func(r *report) { r.settled.mem.retained = 14 << 20 }, "memory held grew from 100.0 MiB after warm-up to 111.0 MiB"},
		"pool left":      {func(r *report) { r.cleaned.poolUsed = 4096 }, "still holds 0 keys and 4096 pool bytes"},
		"lost value":     {func(r *report) { r.ledger.Lost = 1 }, "writers found 1 lost"},
		"loader timeout": {func(r *report) { r.loaders[0].Errors["timeout"] = 2 }, "kvbench eager: 2 timeout errors"},
		"loader verify":  {func(r *report) { r.loaders[1].Verify.Torn = 1 }, "kvbench mixed verify: 0 mismatches, 0 missing, 1 torn"},
		"no kill":        {func(r *report) { r.ft.Kills.Store(0) }, "did not run every fault"},
	} {
		r := good()
		c.mod(r)
		if f := strings.Join(r.failures(), "\n"); !strings.Contains(f, c.want) {
			t.Errorf("%s: failures %q lack %q", name, f, c.want)
		}
	}
}

// TestDialTally keeps the slowest of connects added from many goroutines.
func TestDialTally(t *testing.T) {
	var d dialTally
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); d.add(time.Duration(i) * time.Millisecond) }()
	}
	wg.Wait()
	if n, s := d.n.Load(), time.Duration(d.slowest.Load()); n != 50 || s != 49*time.Millisecond {
		t.Fatalf("50 connects of 0..49 ms: tally %d, slowest %v", n, s)
	}
}

// TestScrape reads unlabelled figures, in Prometheus's float notation,
// from a metrics page and names the one it lacks.
func TestScrape(t *testing.T) {
	page := `# HELP go_memstats_heap_idle_bytes Number of heap bytes waiting to be used.
# TYPE go_memstats_heap_idle_bytes gauge
go_memstats_heap_idle_bytes 4.42368e+06
go_memstats_heap_inuse_bytes 3.538944e+06
rdmakv_requests_total{op="get",protocol="eager"} 7
go_memstats_heap_released_bytes 4.194304e+06
`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, page) }))
	defer srv.Close()
	got, err := scrape(srv.URL, "go_memstats_heap_idle_bytes", "go_memstats_heap_released_bytes")
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 4423680 || got[1] != 4194304 {
		t.Fatalf("scrape = %v, want [4423680 4194304]", got)
	}
	if _, err := scrape(srv.URL, "go_memstats_heap_idle_bytes", "go_memstats_stack_sys_bytes"); err == nil || !strings.Contains(err.Error(), "go_memstats_stack_sys_bytes") {
		t.Fatalf("a figure the page lacks: error %v, want one naming it", err)
	}
}

// TestProcStatus reads this process's own resident figures.
func TestProcStatus(t *testing.T) {
	got, err := procStatus(os.Getpid(), "RssAnon", "VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	if got[0] <= 0 || got[1] < got[0] {
		t.Fatalf("RssAnon %d, VmRSS %d: want 0 < RssAnon <= VmRSS", got[0], got[1])
	}
	if _, err := procStatus(os.Getpid(), "RssAnon", "NoSuchLine"); err == nil {
		t.Fatal("a line /proc/self/status lacks: no error")
	}
}
