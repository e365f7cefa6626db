package rdmakv

import "fmt"

// Protocol says how a request travelled; the zero value, a request that
// failed before choosing one, prints as "unknown".
type Protocol uint8

const (
	// Eager: key and value inline in one message.
	Eager Protocol = 1
	// Rendezvous: the value moved by one-sided RDMA.
	Rendezvous Protocol = 2
)

// ProtocolAt is the protocol a request of keyLen and valueLen bytes
// takes under an eager threshold: eager when key plus value is below it.
func ProtocolAt(threshold, keyLen, valueLen int) Protocol {
	if keyLen+valueLen < threshold {
		return Eager
	}
	return Rendezvous
}

// EagerThresholdFor is the smallest eager threshold under which a request
// of keyLen and valueLen bytes goes eager (ProtocolAt).
func EagerThresholdFor(keyLen, valueLen int) int { return keyLen + valueLen + 1 }

// LargestEagerValue is the largest value a request with a key of keyLen
// bytes carries eager under threshold (ProtocolAt); negative when even an
// empty value goes rendezvous.
func LargestEagerValue(threshold, keyLen int) int { return threshold - EagerThresholdFor(keyLen, 0) }

func (p Protocol) String() string {
	switch p {
	case Eager:
		return "eager"
	case Rendezvous:
		return "rendezvous"
	case 0:
		return "unknown"
	}
	return fmt.Sprintf("Protocol(%d)", uint8(p))
}
