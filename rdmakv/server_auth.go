package rdmakv

import (
	"crypto/rand"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// authState is where a connection is in the challenge and response that
// precede HELLO on a server with an AuthSecret.
type authState uint8

const (
	authNone       authState = iota
	authChallenged           // a challenge went out; one answer is allowed
	authFailed               // the answer was wrong; nothing more is
)

// authenticate runs the challenge and response ahead of HELLO and reports
// whether this HELLO, whose body and proof are given, may go on to be
// accepted. A first HELLO gets a fresh challenge; the second must carry
// its proof. Each challenge takes one answer, so a proof seen on one
// connection is worth nothing on another, and a wrong one ends the
// attempt: the connection is then served nothing, and dropped by the
// handshake timeout if the client does not hang up first.
func (sc *sconn) authenticate(reqID uint32, body, proof []byte) bool {
	switch {
	case sc.auth == authFailed:
		sc.fault("HELLO after failed authentication")
		return false
	case proof == nil && sc.auth == authChallenged:
		sc.fault("second HELLO without the answer to the challenge")
		return false
	case proof == nil:
		sc.nonce = make([]byte, wire.ChallengeSize)
		_, _ = rand.Read(sc.nonce) // never fails (crypto/rand)
		sc.auth = authChallenged
		sc.send(wire.Header{Type: wire.HelloReply, Status: wire.AuthRequired, ReqID: reqID}, nil, sc.nonce)
		return false
	case sc.auth != authChallenged:
		sc.fault("HELLO with an answer before any challenge")
		return false
	}
	ok := wire.CheckProof(sc.s.cfg.AuthSecret, sc.nonce, body, proof)
	sc.nonce = nil
	if !ok {
		sc.auth = authFailed
		sc.refuse(RefusedAuth)
		sc.s.log.Warn("rdmakv: authentication failed", "remote", sc.c.RemoteAddr())
		sc.send(wire.Header{Type: wire.HelloReply, Status: wire.AuthFailed, ReqID: reqID}, nil, nil)
		return false
	}
	return true
}
