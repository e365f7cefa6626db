package transport

// Poll selects how a transport waits for completions. Its text form
// ("event", "busy") is what flags, workloads and results files use.
type Poll uint8

const (
	// PollEvent sleeps on a completion channel until the RNIC signals.
	PollEvent Poll = iota
	// PollBusy spins on the completion queue for the lowest latency, at the
	// cost of a core.
	PollBusy
)

var pollNames = names[Poll]{what: "poll", names: []string{PollEvent: "event", PollBusy: "busy"}}

func (p Poll) String() string { return pollNames.str(p, "Poll") }

// ParsePoll reads "event" or "busy".
func ParsePoll(s string) (Poll, error) { return pollNames.parse(s) }

// MarshalText writes the name; a Poll without one is an error.
func (p Poll) MarshalText() ([]byte, error) { return pollNames.marshal(p) }

// UnmarshalText reads what MarshalText writes.
func (p *Poll) UnmarshalText(b []byte) error { return pollNames.unmarshal(b, p) }
