package transport

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

var receivesNames = names[Receives]{what: "receives", names: []string{
	ReceivesAuto: "auto", ReceivesShared: "shared", ReceivesPerConn: "per-connection"}}

func (r Receives) String() string { return receivesNames.str(r, "Receives") }

// ParseReceives reads "auto", "shared" or "per-connection".
func ParseReceives(s string) (Receives, error) { return receivesNames.parse(s) }

// MarshalText writes the name; a Receives without one is an error.
func (r Receives) MarshalText() ([]byte, error) { return receivesNames.marshal(r) }

// UnmarshalText reads what MarshalText writes.
func (r *Receives) UnmarshalText(b []byte) error { return receivesNames.unmarshal(b, r) }
