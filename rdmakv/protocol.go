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
