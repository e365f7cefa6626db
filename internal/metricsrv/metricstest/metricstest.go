// Package metricstest scrapes a metrics listener in tests and reads
// samples out of the result.
package metricstest

import (
	"errors"
	"flag"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape reads addr's /metrics with the text format's own parser.
func Scrape(t testing.TB, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// Value is the sample of family name whose labels are exactly labels
// ("k=v,k=v", empty for none); a histogram's is its count.
func Value(t testing.TB, fams map[string]*dto.MetricFamily, name, labels string) float64 {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no %s in the scrape", name)
	}
	for _, m := range f.Metric {
		var ls []string
		for _, l := range m.Label {
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		if strings.Join(ls, ",") != labels {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	t.Fatalf("no %s{%s} in the scrape", name, labels)
	return 0
}

// Interval is how often the metrics benchmarks scrape (go test -bench
// Metrics ... -args -scrape-every 1s). Its default, 10 ms, is 100 to 1500
// times as often as Prometheus scrapes (every 1-15 s), so that what
// scrapes cost shows above the noise; at a real interval it is that much
// less.
var Interval = flag.Duration("scrape-every", 10*time.Millisecond, "how often the metrics benchmarks scrape /metrics")

// OffOn runs bench as the sub-benchmarks "off" and "on", so that every
// metrics benchmark names its two sides alike.
func OffOn(b *testing.B, bench func(b *testing.B, on bool)) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "off", true: "on"}[on], func(b *testing.B) { bench(b, on) })
	}
}

// ScrapeEvery reads addr's /metrics every interval in the background, as
// a Prometheus server would, until stop, which returns how many scrapes
// completed. Bodies are read to the end and dropped: the cost measured is
// the server's, rendering them, not a parser's.
func ScrapeEvery(tb testing.TB, addr string, interval time.Duration) (stop func() int) {
	tb.Helper()
	quit := make(chan struct{})
	var wg sync.WaitGroup
	var n int
	var err error
	wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			var resp *http.Response
			if resp, err = http.Get("http://" + addr + "/metrics"); err != nil {
				return
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode != http.StatusOK {
				err = errors.New(resp.Status)
			}
			if err != nil {
				return
			}
			n++
		}
	})
	return func() int {
		close(quit)
		wg.Wait()
		if err != nil {
			tb.Fatalf("scraping %s: %v", addr, err)
		}
		return n
	}
}
