// Package metricsrv serves Prometheus metrics on a listener of their own,
// for kvserver and kvbench run's --metrics flag.
package metricsrv

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server serves one registry's metrics at /metrics.
type Server struct {
	ln  net.Listener
	srv *http.Server
}

// Listen binds addr (host:port) for the flag named flag. Binding comes
// first, apart from serving, so a bad address fails the command before it
// starts anything else, with an error that names the flag. An empty addr,
// the flag unset, gives no Server (nil), which Close accepts.
func Listen(flag, addr string) (*Server, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--%s %q: %w", flag, addr, err)
	}
	return &Server{ln: ln}, nil
}

// NewRegistry is a registry holding the process and Go runtime
// collectors, the figures every Prometheus target is expected to have.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector())
	return reg
}

// Addr is the address bound, with the port chosen for port 0.
func (m *Server) Addr() string { return m.ln.Addr().String() }

// Serve starts answering scrapes of reg in the background, until Close.
func (m *Server) Serve(reg *prometheus.Registry) {
	mux := http.NewServeMux()
	// A scrape is about 10 KiB of text: gzip, which Prometheus asks for,
	// was a third of a scrape's CPU (compressing here, decompressing in
	// the scraper) to save a few KiB, microseconds on a LAN.
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, DisableCompression: true}))
	// A scraper that stalls mid-header must not hold a connection forever.
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = m.srv.Serve(m.ln) }()
}

// Close stops serving and releases the address.
func (m *Server) Close() error {
	if m == nil {
		return nil
	}
	if m.srv == nil {
		return m.ln.Close()
	}
	if err := m.srv.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}
