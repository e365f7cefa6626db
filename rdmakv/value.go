package rdmakv

import (
	"sync/atomic"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Value is a value returned by Get. Its bytes are a view into the client's
// registered memory (the receive buffer of an eager reply, or the staging
// region after a rendezvous READ), valid until Release.
//
// Values are recycled through a free list: Release is idempotent until
// the Value is handed out again by a later Get, so do not call Release on
// a Value after its first Release has had time to be reused.
type Value struct {
	c     *Client
	data  []byte
	proto Protocol
	msg   *transport.Message
	buf   stageBuf
	live  atomic.Bool
}

// Bytes is the value; nil after Release. Holding a Value holds a receive
// buffer (eager) or staging memory (rendezvous), so release promptly.
func (v *Value) Bytes() []byte { return v.data }

// Protocol says how the server answered: Eager (inline) or Rendezvous.
func (v *Value) Protocol() Protocol { return v.proto }

// Release returns the memory behind the value (kv_release). A second call
// is harmless (see the type's note on reuse).
func (v *Value) Release() {
	if v == nil || !v.live.CompareAndSwap(true, false) {
		return
	}
	if v.msg != nil {
		v.msg.Release()
	}
	if v.buf.n > 0 {
		v.c.staging.put(v.buf)
	}
	v.c.putValue(v)
}

func (c *Client) newValue() *Value {
	c.valMu.Lock()
	var v *Value
	if k := len(c.values); k > 0 {
		v = c.values[k-1]
		c.values = c.values[:k-1]
	}
	c.valMu.Unlock()
	if v == nil {
		v = &Value{c: c}
	}
	v.live.Store(true)
	return v
}

// putValue clears v and returns it to the free list.
func (c *Client) putValue(v *Value) {
	v.live.Store(false)
	v.data, v.msg, v.buf, v.proto = nil, nil, stageBuf{}, 0
	c.valMu.Lock()
	c.values = append(c.values, v)
	c.valMu.Unlock()
}
