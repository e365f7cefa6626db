package transport

import "fmt"

// Receives selects where a listener posts its receive buffers. Its text
// form ("auto", "shared", "per-connection") is what flags use.
type Receives uint8

const (
	// ReceivesAuto shares one receive queue among a listener's
	// connections where the device offers one (verbs' SRQ), and gives each
	// connection its own otherwise.
	ReceivesAuto Receives = iota
	// ReceivesShared requires the shared queue: a listener on a device
	// without one fails.
	ReceivesShared
	// ReceivesPerConn gives each connection a receive queue of
	// Config.RecvDepth buffers of its own, as tcp always does.
	ReceivesPerConn
)

var receivesNames = [...]string{ReceivesAuto: "auto", ReceivesShared: "shared", ReceivesPerConn: "per-connection"}

func (r Receives) String() string {
	if int(r) < len(receivesNames) {
		return receivesNames[r]
	}
	return fmt.Sprintf("Receives(%d)", uint8(r))
}

// MarshalText writes the name; a Receives without one is an error.
func (r Receives) MarshalText() ([]byte, error) {
	if int(r) >= len(receivesNames) {
		return nil, fmt.Errorf("receives %d: want auto, shared or per-connection", uint8(r))
	}
	return []byte(receivesNames[r]), nil
}

// UnmarshalText reads what MarshalText writes.
func (r *Receives) UnmarshalText(b []byte) error {
	v, err := ParseReceives(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// ParseReceives reads "auto", "shared" or "per-connection".
func ParseReceives(s string) (Receives, error) {
	for r, name := range receivesNames {
		if s == name {
			return Receives(r), nil
		}
	}
	return 0, fmt.Errorf("receives %q: want auto, shared or per-connection", s)
}
