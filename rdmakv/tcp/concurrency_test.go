package tcp

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// counter is a Handler that checks and releases at once.
type counter struct {
	sends, imms atomic.Int64
	bad         atomic.Value
	closed      chan error
}

func (c *counter) Deliver(_ transport.Conn, m *transport.Message) {
	switch m.Kind {
	case transport.KindRecv:
		// Each SEND is 8 bytes of worker id and sequence, then that many
		// copies of the worker's byte.
		if len(m.Data) < 8 || !bytes.Equal(m.Data[8:], bytes.Repeat([]byte{m.Data[0]}, len(m.Data)-8)) {
			c.bad.Store(fmt.Sprintf("corrupt send %x", m.Data))
		}
		c.sends.Add(1)
	case transport.KindWriteImm:
		c.imms.Add(1)
	}
	m.Release()
}

func (c *counter) Closed(_ transport.Conn, err error) { c.closed <- err }

// Many goroutines mixing every op on one connection.
func TestConcurrentMixedOps(t *testing.T) {
	const workers, iters, slice = 8, 160, 64 << 10 // iters a multiple of 4
	cfg := transport.Config{MaxMessage: 4096, RecvDepth: 8, SendDepth: 4}
	srvH := &counter{closed: make(chan error, 1)}
	ln, err := network{}.Listen("127.0.0.1:0", withMode(cfg), func(transport.Conn) transport.Handler { return srvH })
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	remote := register(t, ln, workers*slice, transport.AccessRemoteRead|transport.AccessRemoteWrite)
	cliH := &counter{closed: make(chan error, 1)}
	c, err := network{}.Dial(t.Context(), ln.Addr(), withMode(cfg), cliH)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	local := register(t, c, 2*workers*slice, transport.AccessLocal)

	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			src := local.Bytes()[2*w*slice : (2*w+1)*slice]
			dst := local.Bytes()[(2*w+1)*slice : (2*w+2)*slice]
			raddr := remote.Addr() + uint64(w*slice)
			msg := make([]byte, 8+w*100)
			for i := range iters {
				n := 1 + (i*977+w*131)%slice
				fill(src[:n], byte(i+w))
				var err error
				switch i % 4 {
				case 0:
					err = c.Write(local, 2*w*slice, n, raddr, remote.RKey())
				case 1:
					err = c.WriteImm(local, 2*w*slice, n, raddr, remote.RKey(), uint32(i))
				case 2:
					binary.LittleEndian.PutUint64(msg, uint64(i))
					for j := range msg {
						if j == 0 || j >= 8 {
							msg[j] = byte(w)
						}
					}
					err = c.Send(msg[:8], msg[8:], nil)
				case 3:
					err = c.Write(local, 2*w*slice, n, raddr, remote.RKey())
					if err == nil {
						clear(dst[:n])
						err = c.Read(local, (2*w+1)*slice, n, raddr, remote.RKey())
					}
					if err == nil && !bytes.Equal(dst[:n], src[:n]) {
						err = fmt.Errorf("worker %d iter %d: read back differs", w, i)
					}
				}
				if err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	// Completions are delivered before the initiator learns of them only
	// for WRITE_IMM; SENDs may still be in flight, so wait for the count.
	deadline := time.Now().Add(hangGuard)
	for srvH.sends.Load() < workers*iters/4 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := srvH.sends.Load(); got != workers*iters/4 {
		t.Fatalf("server saw %d sends, want %d", got, workers*iters/4)
	}
	if got := srvH.imms.Load(); got != workers*iters/4 {
		t.Fatalf("server saw %d write-imm completions, want %d", got, workers*iters/4)
	}
	if bad := srvH.bad.Load(); bad != nil {
		t.Fatal(bad)
	}
}
