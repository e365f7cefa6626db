package rdmakv

import "github.com/kvbench/kvbench/rdmakv/transport"

// clientConn is the client's side of its transport connection. Requests
// reach the transport only through it, and it hands back every error the
// transport returns as one of the client's (connError), so that no path
// through the client, however it got there, can give a caller the
// transport's own "connection closed" where Close promises ErrClosed.
// Its callers pass its errors on as they are: mapping one twice would
// take ErrClosed for a protocol error. Only Close and the handshake
// (where a closed connection is the server's refusal, worded by
// helloRefused) use raw.
type clientConn struct {
	c   *Client
	raw transport.Conn
	// inval is raw when the transport can close a read window with the
	// release itself (transport.PeerInvalidator); else nil.
	inval transport.PeerInvalidator
	// noImm is raw when its device carries no immediate data
	// (transport.WriteSender): a rendezvous set then goes as a WRITE and
	// a SET_FIN. Else nil.
	noImm transport.WriteSender
}

func (cc *clientConn) mapped(err error) error {
	if err == nil {
		return nil
	}
	return cc.c.connError(err)
}

// closed is the error of a request the connection's end cut off, for
// what the client tears down with the connection (staging).
func (cc *clientConn) closed() error { return cc.c.connError(transport.ErrClosed) }

// Send, WriteImm and the sends of ReadInvalidate, WriteInvalidate and
// WriteSend each take a receive of the server's: each first takes a
// credit (client_credit.go).
func (cc *clientConn) Send(a, b, d []byte) error {
	if err := cc.c.takeCredit(); err != nil {
		return err
	}
	return cc.mapped(cc.raw.Send(a, b, d))
}

func (cc *clientConn) WriteImm(local transport.Region, off, n int, raddr uint64, rkey, imm uint32) error {
	if err := cc.c.takeCredit(); err != nil {
		return err
	}
	return cc.mapped(cc.raw.WriteImm(local, off, n, raddr, rkey, imm))
}

func (cc *clientConn) Read(local transport.Region, off, n int, raddr uint64, rkey uint32) error {
	return cc.mapped(cc.raw.Read(local, off, n, raddr, rkey))
}

func (cc *clientConn) ReadInvalidate(local transport.Region, off, n int, raddr uint64, rkey uint32, a, b, d []byte) error {
	if err := cc.c.takeCredit(); err != nil {
		return err
	}
	return cc.mapped(cc.inval.ReadInvalidate(local, off, n, raddr, rkey, a, b, d))
}

func (cc *clientConn) WriteInvalidate(local transport.Region, off, n int, raddr uint64, rkey uint32, a, b, d []byte) error {
	if err := cc.c.takeCredit(); err != nil {
		return err
	}
	return cc.mapped(cc.inval.WriteInvalidate(local, off, n, raddr, rkey, a, b, d))
}

func (cc *clientConn) WriteSend(local transport.Region, off, n int, raddr uint64, rkey uint32, a, b, d []byte) error {
	if err := cc.c.takeCredit(); err != nil {
		return err
	}
	return cc.mapped(cc.noImm.WriteSend(local, off, n, raddr, rkey, a, b, d))
}

func (cc *clientConn) Register(size int, access transport.Access) (transport.Region, error) {
	r, err := cc.raw.Register(size, access)
	return r, cc.mapped(err)
}
