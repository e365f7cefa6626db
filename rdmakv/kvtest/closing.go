package kvtest

import (
	"errors"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// testClose checks Close is idempotent and that a closed client refuses
// work with ErrClosed instead of hanging or panicking.
func testClose(t *testing.T, env Env) {
	s, c := startWithClient(t, env, serverConfig(env))
	mustSet(t, c, []byte("k"), []byte("v"))
	held, err := c.Get(opCtx(t), []byte("k"))
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("first Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v, want nil (idempotent)", err)
	}
	held.Release() // a Value outliving its client must release harmlessly
	held.Release()
	if err := c.Set(opCtx(t), []byte("k"), []byte("v2")); !errors.Is(err, rdmakv.ErrClosed) {
		t.Errorf("Set after Close: %v, want ErrClosed", err)
	}
	if err := c.Set(opCtx(t), []byte("k"), make([]byte, 10000)); !errors.Is(err, rdmakv.ErrClosed) {
		t.Errorf("rendezvous Set after Close: %v, want ErrClosed", err)
	}
	if v, err := c.Get(opCtx(t), []byte("k")); !errors.Is(err, rdmakv.ErrClosed) {
		if err == nil {
			v.Release()
		}
		t.Errorf("Get after Close: %v, want ErrClosed", err)
	}
	if err := c.Delete(opCtx(t), []byte("k")); !errors.Is(err, rdmakv.ErrClosed) {
		t.Errorf("Delete after Close: %v, want ErrClosed", err)
	}
	// The server did not notice anything wrong: a new client sees the data.
	c2 := dial(t, env, s.Addr())
	mustGetEqual(t, c2, []byte("k"), []byte("v"))

	// Server Close is idempotent too, and its clients fail rather than hang.
	s2, c3 := startWithClient(t, env, serverConfig(env))
	mustSet(t, c3, []byte("x"), []byte("y"))
	if err := s2.Close(); err != nil {
		t.Errorf("server Close: %v", err)
	}
	if err := s2.Close(); err != nil {
		t.Errorf("second server Close: %v, want nil (idempotent)", err)
	}
	if v, err := c3.Get(opCtx(t), []byte("x")); err == nil {
		v.Release()
		t.Errorf("Get from a client whose server closed succeeded")
	}
	if err := c3.Close(); err != nil && !errors.Is(err, rdmakv.ErrClosed) {
		t.Errorf("client Close after server Close: %v", err)
	}
}
