package transport

import (
	"fmt"
	"strings"
)

// names is the text form of a small enumeration whose values index
// names: what flags, workloads and results files read and write.
type names[T ~uint8] struct {
	what  string // "poll"
	names []string
}

func (n names[T]) want() string {
	if len(n.names) == 2 {
		return n.names[0] + " or " + n.names[1]
	}
	return strings.Join(n.names[:len(n.names)-1], ", ") + " or " + n.names[len(n.names)-1]
}

func (n names[T]) valid(v T) bool { return int(v) < len(n.names) }

func (n names[T]) str(v T, typ string) string {
	if n.valid(v) {
		return n.names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(v))
}

func (n names[T]) parse(s string) (T, error) {
	for i, name := range n.names {
		if s == name {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("%s %q: want %s", n.what, s, n.want())
}

func (n names[T]) marshal(v T) ([]byte, error) {
	if !n.valid(v) {
		return nil, fmt.Errorf("%s %d: want %s", n.what, uint8(v), n.want())
	}
	return []byte(n.names[v]), nil
}

func (n names[T]) unmarshal(b []byte, v *T) error {
	p, err := n.parse(string(b))
	if err != nil {
		return err
	}
	*v = p
	return nil
}
