package rdmakv

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// noImmNetwork dials connections that carry no immediate data, as an
// iWARP device's: WriteImm fails, and WriteSend is a Write then a Send.
type noImmNetwork struct {
	transport.Network
	writeSends *atomic.Int64
}

func (n noImmNetwork) Dial(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Conn, error) {
	c, err := n.Network.Dial(ctx, addr, cfg, h)
	if err != nil {
		return nil, err
	}
	return noImmConn{c, n.writeSends}, nil
}

type noImmConn struct {
	transport.Conn
	writeSends *atomic.Int64
}

func (noImmConn) NoWriteImm() bool { return true }

func (noImmConn) WriteImm(transport.Region, int, int, uint64, uint32, uint32) error {
	return errors.New("WriteImm on a connection without immediate data")
}

func (c noImmConn) WriteSend(local transport.Region, off, n int, raddr uint64, rkey uint32, a, b, d []byte) error {
	c.writeSends.Add(1)
	if err := c.Conn.Write(local, off, n, raddr, rkey); err != nil {
		return err
	}
	return c.Conn.Send(a, b, d)
}

// On a connection without immediate data a rendezvous set goes as a
// WRITE and a SET_FIN, and what it stored reads back whole.
func TestRendezvousSetWithoutWriteImm(t *testing.T) {
	tcp, err := transport.Lookup("tcp")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := coreServer(t, nil)
	var writeSends atomic.Int64
	transport.RegisterNetwork(noImmNetwork{tcp, &writeSends})
	t.Cleanup(func() { transport.RegisterNetwork(tcp) })
	c := coreDial(t, s, WithEagerThreshold(64))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sizes := []int{0, 100, 4096, 1 << 20}
	for i, n := range sizes {
		coreRoundTrip(t, ctx, c, []byte{'k', byte(i)}, coreFill(n, byte(i)))
	}
	if got := writeSends.Load(); got != int64(len(sizes)-1) {
		t.Errorf("%d WRITE and SET_FIN posts for %d non-empty rendezvous sets", got, len(sizes)-1)
	}
}
