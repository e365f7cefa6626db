package transport

import "fmt"

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

var pollNames = [...]string{PollEvent: "event", PollBusy: "busy"}

func (p Poll) String() string {
	if int(p) < len(pollNames) {
		return pollNames[p]
	}
	return fmt.Sprintf("Poll(%d)", uint8(p))
}

// ParsePoll reads "event" or "busy".
func ParsePoll(s string) (Poll, error) {
	for p, name := range pollNames {
		if s == name {
			return Poll(p), nil
		}
	}
	return 0, fmt.Errorf("poll %q: want event or busy", s)
}

// MarshalText writes the name; a Poll without one is an error.
func (p Poll) MarshalText() ([]byte, error) {
	if int(p) >= len(pollNames) {
		return nil, fmt.Errorf("poll %d: want event or busy", uint8(p))
	}
	return []byte(pollNames[p]), nil
}

// UnmarshalText reads what MarshalText writes.
func (p *Poll) UnmarshalText(b []byte) error {
	v, err := ParsePoll(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}
