//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"syscall"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// ackTimeout is the QP's local ACK timeout exponent: 4.096 us * 2^17, about
// 0.5 s, so with 7 retries a vanished peer is noticed in a few seconds.
const ackTimeout = 17

// rnrTimer is how long a peer whose SEND found no receive posted waits
// before it sends again, in the IB encoding: 12 is 0.64 ms, rc_pingpong's
// value. rdma_cm leaves 0, which the encoding makes 655.36 ms, so every
// RNR NAK stalled the sender's queue that long.
const rnrTimer = 12

// rdAtomMax caps outstanding RDMA READs per QP in each direction.
const rdAtomMax = 16

func init() { transport.RegisterNetwork(network{}) }

type network struct{}

func (network) Name() string { return Name }

// LocalAddr is LocalAddr: rdma_cm does not route loopback.
func (network) LocalAddr() (netip.Addr, error) { return LocalAddr() }

// RegisteredBytes is the package's RegisteredBytes: transport.Footprinter.
func (network) RegisteredBytes(cfg transport.Config) (recv, ring int64, err error) {
	return RegisteredBytes(cfg)
}

func checkConfig(cfg transport.Config) (transport.Config, error) {
	cfg, err := cfg.Check("", MaxDepth)
	if err != nil {
		return cfg, fmt.Errorf("verbs: bad config: %w", err)
	}
	return cfg, nil
}

// sockAddr is an address in the form the C side wants.
type sockAddr struct {
	family C.int
	ip     [16]C.uint8_t
	port   int
	scope  C.uint32_t // an IPv6 link-local address's interface index
	host   string
}

func toSockAddr(ip netip.Addr, port int) (sockAddr, error) {
	s := sockAddr{port: port, host: ip.String()}
	if ip.Is4() || ip.Is4In6() {
		s.family = syscall.AF_INET
		b := ip.Unmap().As4()
		for i := range b {
			s.ip[i] = C.uint8_t(b[i])
		}
		return s, nil
	}
	s.family = syscall.AF_INET6
	b := ip.As16()
	for i := range b {
		s.ip[i] = C.uint8_t(b[i])
	}
	scope, err := zoneIndex(ip)
	s.scope = C.uint32_t(scope)
	return s, err
}

// zoneIndex is the interface index an IPv6 address's zone names, by
// number or by name: a link-local address means nothing without one.
func zoneIndex(ip netip.Addr) (int, error) {
	zone := ip.Zone()
	if zone == "" {
		if ip.IsLinkLocalUnicast() {
			return 0, fmt.Errorf("verbs: link-local address %s needs its interface: %s%%IFACE", ip, ip)
		}
		return 0, nil
	}
	if n, err := strconv.Atoi(zone); err == nil && n > 0 {
		return n, nil
	}
	ifi, err := net.InterfaceByName(zone)
	if err != nil {
		return 0, fmt.Errorf("verbs: address %s: zone %q: %w", ip, zone, err)
	}
	return ifi.Index, nil
}

// parseAddr splits host:port; a host name is resolved (ctx bounds it) and
// the first IPv4 address preferred. An empty host is the wildcard.
func parseAddr(ctx context.Context, addr string) (sockAddr, error) {
	host, ps, err := net.SplitHostPort(addr)
	if err != nil {
		return sockAddr{}, fmt.Errorf("verbs: address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 0 || port > 65535 {
		return sockAddr{}, fmt.Errorf("verbs: address %q: bad port %q", addr, ps)
	}
	if host == "" {
		return toSockAddr(netip.IPv4Unspecified(), port)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return toSockAddr(ip, port)
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return sockAddr{}, fmt.Errorf("verbs: address %q: cannot resolve %q: %v", addr, host, err)
	}
	best := ips[0]
	for _, ip := range ips {
		if ip.Is4() || ip.Is4In6() {
			best = ip
			break
		}
	}
	return toSockAddr(best, port)
}
