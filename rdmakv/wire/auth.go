package wire

import (
	"crypto/hmac"
	"crypto/sha256"
)

// ChallengeSize is the length of the nonce a server that requires
// authentication sends in a HELLO_REPLY with status AUTH_REQUIRED.
const ChallengeSize = 32

// ProofSize is the length of the proof a client appends to its second
// HELLO body.
const ProofSize = sha256.Size

// proofLabel separates these MACs from any other use of the secret.
const proofLabel = "rdmakv hello proof v1\x00"

// Proof is the client's answer to challenge: HMAC-SHA256, keyed by the
// shared secret, over a label, the challenge and the HELLO body it is sent
// with. It shows the secret without revealing it, and holds only for that
// connection's challenge and those HELLO terms.
func Proof(secret, challenge, body []byte) [ProofSize]byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(proofLabel))
	m.Write(challenge)
	m.Write(body)
	var p [ProofSize]byte
	m.Sum(p[:0])
	return p
}

// CheckProof reports, in constant time, whether proof answers challenge
// for body under secret.
func CheckProof(secret, challenge, body, proof []byte) bool {
	want := Proof(secret, challenge, body)
	return hmac.Equal(want[:], proof)
}
