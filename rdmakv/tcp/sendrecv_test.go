package tcp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

func TestSendRecvOrder(t *testing.T) {
	p := newPair(t, smallCfg())
	const n = 2000
	key := []byte("key-")
	go func() {
		var hdr [8]byte
		val := make([]byte, 3000)
		for i := range n {
			binary.LittleEndian.PutUint64(hdr[:], uint64(i))
			fill(val, byte(i))
			if err := p.cli.Send(hdr[:], key, val[:i%len(val)]); err != nil {
				t.Errorf("send %d: %v", i, err)
				return
			}
		}
	}()
	val := make([]byte, 3000)
	for i := range n {
		m := p.srec.next(t)
		if m.Kind != transport.KindRecv {
			t.Fatalf("message %d kind %d", i, m.Kind)
		}
		if got := binary.LittleEndian.Uint64(m.Data); got != uint64(i) {
			t.Fatalf("message %d arrived as number %d", i, got)
		}
		fill(val, byte(i))
		want := append([]byte("key-"), val[:i%len(val)]...)
		if !bytes.Equal(m.Data[8:], want) {
			t.Fatalf("message %d: payload differs", i)
		}
		m.Release()
	}
}

func TestSendBothWaysNilParts(t *testing.T) {
	p := newPair(t, smallCfg())
	if err := p.cli.Send(nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	m := p.srec.next(t)
	if len(m.Data) != 0 {
		t.Fatalf("empty send arrived with %d bytes", len(m.Data))
	}
	m.Release()
	m.Release() // nothing else in flight, so the Message is not reused yet: a no-op
	// The buffer was reposted once, not twice: a full round of RecvDepth
	// held messages still arrives intact.
	for i := range smallCfg().RecvDepth + 1 {
		if err := p.cli.Send([]byte{byte(i)}, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	held := make([]*transport.Message, 0, smallCfg().RecvDepth)
	for i := range smallCfg().RecvDepth {
		m := p.srec.next(t)
		if len(m.Data) != 1 || m.Data[0] != byte(i) {
			t.Fatalf("message %d reads %v", i, m.Data)
		}
		held = append(held, m)
	}
	for i, m := range held {
		if m.Data[0] != byte(i) {
			t.Fatalf("held message %d overwritten with %v", i, m.Data)
		}
		m.Release()
	}
	p.srec.next(t).Release()
	if err := p.sc.Send([]byte("pong"), nil, []byte("!")); err != nil {
		t.Fatal(err)
	}
	m = p.crec.next(t)
	if string(m.Data) != "pong!" {
		t.Fatalf("client got %q", m.Data)
	}
	m.Release()
}

// A receiver holding every buffer stops reading; the sender stalls behind
// it and resumes, in order, as buffers come back.
func TestBackpressure(t *testing.T) {
	cfg := transport.Config{MaxMessage: 64 << 10, RecvDepth: 4, SendDepth: 4}
	p := newPair(t, cfg)
	// Enough data to fill both socket buffers many times over.
	const total = 400
	sent := make(chan int, total)
	errc := make(chan error, 1)
	go func() {
		payload := make([]byte, cfg.MaxMessage-8)
		var hdr [8]byte
		for i := range total {
			binary.LittleEndian.PutUint64(hdr[:], uint64(i))
			if err := p.cli.Send(hdr[:], payload, nil); err != nil {
				errc <- err
				return
			}
			sent <- i
		}
		errc <- nil
	}()
	held := make([]*transport.Message, 0, cfg.RecvDepth)
	for i := range cfg.RecvDepth {
		m := p.srec.next(t)
		if got := binary.LittleEndian.Uint64(m.Data); got != uint64(i) {
			t.Fatalf("message %d arrived as %d", i, got)
		}
		held = append(held, m)
	}
	// All buffers held: nothing more may arrive, and the sender must stall
	// well before it has sent everything.
	select {
	case m := <-p.srec.msgs:
		t.Fatalf("message delivered while all %d buffers were held (len %d)", cfg.RecvDepth, len(m.Data))
	case <-time.After(300 * time.Millisecond):
	}
	select {
	case err := <-errc:
		t.Fatalf("sender finished while the receiver held every buffer: %v", err)
	default:
	}
	// The held views still show their bytes.
	for i, m := range held {
		if got := binary.LittleEndian.Uint64(m.Data); got != uint64(i) {
			t.Fatalf("held message %d now reads %d", i, got)
		}
	}
	// One release lets exactly the next message in.
	held[0].Release()
	m := p.srec.next(t)
	if got := binary.LittleEndian.Uint64(m.Data); got != uint64(cfg.RecvDepth) {
		t.Fatalf("after one release got message %d, want %d", got, cfg.RecvDepth)
	}
	held[0] = m
	for _, m := range held {
		m.Release()
	}
	for i := cfg.RecvDepth + 1; i < total; i++ {
		m := p.srec.next(t)
		if got := binary.LittleEndian.Uint64(m.Data); got != uint64(i) {
			t.Fatalf("message %d arrived as %d", i, got)
		}
		m.Release()
	}
	if err := await(t, errc, "sender never finished after release"); err != nil {
		t.Fatal(err)
	}
}

func TestTooLargeSend(t *testing.T) {
	p := newPair(t, smallCfg())
	big := make([]byte, smallCfg().MaxMessage+1)
	// The sender does not know the peer's limit; the receiver drops it.
	_ = p.cli.Send(big, nil, nil)
	err := p.srec.waitClosed(t)
	wantErr(t, err, transport.ErrTooLarge)
	if !bytes.Contains([]byte(err.Error()), []byte(fmt.Sprint(len(big)))) {
		t.Fatalf("error %q does not name the size", err)
	}
	cerr := p.crec.waitClosed(t)
	if !errors.Is(cerr, transport.ErrTooLarge) && !errors.Is(cerr, transport.ErrClosed) {
		t.Fatalf("sender's Closed got %v", cerr)
	}
	wantErr(t, p.cli.Send([]byte("x"), nil, nil), transport.ErrClosed)
	// Exactly MaxMessage is fine on a fresh connection.
	fresh := p.srv.pair(t, smallCfg())
	if err := fresh.cli.Send(big[:smallCfg().MaxMessage], nil, nil); err != nil {
		t.Fatal(err)
	}
	m := fresh.srec.next(t)
	if len(m.Data) != smallCfg().MaxMessage {
		t.Fatalf("got %d bytes", len(m.Data))
	}
	m.Release()
}
