package rdmakv

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Transport names for WithTransport and ServerConfig.Transport.
const (
	TransportTCP   = transport.TCP
	TransportVerbs = transport.Verbs
	// TransportAuto takes verbs when it is linked in and an RDMA device is
	// usable, else tcp.
	TransportAuto = "auto"
)

// DefaultTransport is the transport of clients and servers that name none.
// It is tcp rather than auto on both sides: a server on auto would take
// verbs wherever a device is usable and then refuse tcp clients.
const DefaultTransport = TransportTCP

// Transports lists the names WithTransport and ServerConfig.Transport
// accept.
func Transports() []string { return []string{TransportTCP, TransportVerbs, TransportAuto} }

// CheckTransport refuses a name that WithTransport and
// ServerConfig.Transport do not accept, listing those they do.
func CheckTransport(name string) error {
	names := Transports()
	if slices.Contains(names, name) {
		return nil
	}
	last := len(names) - 1
	return fmt.Errorf("transport %q: want %s or %s", name, strings.Join(names[:last], ", "), names[last])
}
