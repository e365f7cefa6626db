// Package metricstest scrapes a metrics listener in tests and reads
// samples out of the result.
package metricstest

import (
	"net/http"
	"strings"
	"testing"

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
