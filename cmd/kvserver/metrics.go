package main

import (
	"fmt"
	"io"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kvbench/kvbench/internal/metricsrv"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// serverCollector reads a server's Stats and Counters when scraped, so
// the server's data path does no more for metrics than keep its counters.
type serverCollector struct{ s *rdmakv.Server }

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("rdmakv_"+name, help, labels, nil)
}

var (
	connsOpenDesc     = desc("connections_open", "Connections open, handshake done or not.")
	connsAcceptedDesc = desc("connections_accepted_total", "Connections admitted under --max-conns.")
	connsRefusedDesc  = desc("connections_refused_total", "Connections refused or dropped before they were done, by reason.", "reason")
	keysDesc          = desc("keys", "Keys stored.")
	poolUsedDesc      = desc("pool_used_bytes", "Value pool bytes in use, open grants included.")
	poolSizeDesc      = desc("pool_size_bytes", "Value pool size.")
	grantsDesc        = desc("grants_open", "Set grants open: rendezvous SETs whose value has not landed.")
	grantBytesDesc    = desc("grants_open_bytes", "Pool bytes held by open set grants.")
	requestsDesc      = desc("requests_total", "Requests served, by operation and protocol.", "op", "protocol")
	bySizeDesc        = desc("requests_by_size_total", "Requests served, by operation, protocol and size class of key plus value "+
		"(size_class: below this size, at least half of it).", "op", "protocol", "size_class")
	errorsDesc   = desc("errors_total", "Replies with a failure status, by status.", "kind")
	payloadDesc  = desc("payload_bytes_total", "Value bytes stored by SETs (in) and served by GETs (out).", "direction")
	expiriesDesc = desc("lease_expiries_total", "Rendezvous windows revoked because their lease ran out.")
)

func (serverCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{connsOpenDesc, connsAcceptedDesc, connsRefusedDesc, keysDesc, poolUsedDesc,
		poolSizeDesc, grantsDesc, grantBytesDesc, requestsDesc, bySizeDesc, errorsDesc, payloadDesc, expiriesDesc} {
		ch <- d
	}
}

func (c serverCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	st, ct := c.s.Stats(), c.s.Counters()
	gauge(connsOpenDesc, float64(st.Conns))
	gauge(keysDesc, float64(st.Keys))
	gauge(poolUsedDesc, float64(st.PoolUsed))
	gauge(poolSizeDesc, float64(st.PoolSize))
	gauge(grantsDesc, float64(st.Grants))
	gauge(grantBytesDesc, float64(st.GrantBytes))
	counter(connsAcceptedDesc, ct.Accepted)
	for r, n := range ct.Refused {
		counter(connsRefusedDesc, n, r.String())
	}
	for op, byProto := range ct.Requests {
		for p, n := range byProto {
			counter(requestsDesc, n, op.String(), p.String())
		}
	}
	for rc, n := range ct.RequestsBySize {
		counter(bySizeDesc, n, rc.Op.String(), rc.Protocol.String(), sizeClassLabel(rc.Class))
	}
	for kind, n := range ct.Errors {
		counter(errorsDesc, n, kind)
	}
	counter(payloadDesc, ct.BytesIn, "in")
	counter(payloadDesc, ct.BytesOut, "out")
	counter(expiriesDesc, ct.LeaseExpiries)
}

// sizeClassLabel names a size class by its bound, which its sizes are
// below: "4KiB" holds 2 KiB to 4 KiB less a byte; the last class, "+Inf",
// everything from 4 GiB.
func sizeClassLabel(k rdmakv.SizeClass) string {
	if k == rdmakv.LastSizeClass {
		return "+Inf"
	}
	return units.Bytes(k.Upper())
}

// metrics is kvserver's --metrics listener; nil when the flag is unset.
type metrics struct{ srv *metricsrv.Server }

func listenMetrics(addr string) (*metrics, error) {
	srv, err := metricsrv.Listen("metrics", addr)
	if srv == nil {
		return nil, err
	}
	return &metrics{srv: srv}, nil
}

// serve starts answering scrapes of s and says where on out.
func (m *metrics) serve(s *rdmakv.Server, out io.Writer) {
	if m == nil {
		return
	}
	reg := metricsrv.NewRegistry()
	reg.MustRegister(serverCollector{s})
	m.srv.Serve(reg)
	fmt.Fprintf(out, "kvserver metrics on http://%s/metrics\n", m.srv.Addr())
}

func (m *metrics) close() error {
	if m == nil {
		return nil
	}
	return m.srv.Close()
}
