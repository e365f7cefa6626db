package rdmakv

import (
	"context"
	"errors"
	"testing"
)

// TestGetCutOffByClose: a Get whose eager reply is in when Close begins,
// with every spare receive buffer held by earlier Values, must still copy
// its value out into staging, which Close has taken away. Close promises
// a request it cuts off ErrClosed, whichever part of the client notices.
func TestGetCutOffByClose(t *testing.T) {
	_, c := memPair(t)
	ctx := context.Background()
	key := []byte("k")
	if err := c.Set(ctx, key, []byte("eager")); err != nil {
		t.Fatal(err)
	}
	for range recvSpare {
		v, err := c.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		defer v.Release()
	}
	c.conn.raw.(*memConn).onDeliver(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	v, err := c.Get(ctx, key)
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("Get whose reply came in as Close began: value %v, error %v; want ErrClosed", v, err)
	}
}
