package transport

import (
	"fmt"
	"sort"
	"sync"
)

// Names of the transports this module ships. Each lives in the package of
// that name under rdmakv and registers under it; they are spelled here
// because this layer is the lowest that every transport, and rdmakv above
// them, imports.
const (
	TCP   = "tcp"
	Verbs = "verbs"
)

var (
	regMu    sync.RWMutex
	networks = map[string]Network{}
)

// RegisterNetwork makes a transport available by name. Transport packages
// call it from init, so a binary offers exactly the transports it imports.
func RegisterNetwork(n Network) {
	regMu.Lock()
	defer regMu.Unlock()
	networks[n.Name()] = n
}

// Lookup returns the named transport.
func Lookup(name string) (Network, error) {
	regMu.RLock()
	defer regMu.RUnlock()
	if n, ok := networks[name]; ok {
		return n, nil
	}
	if name == TCP || name == Verbs {
		return nil, fmt.Errorf("transport %q is not linked into this program (have %v): a transport registers itself when its package is imported, so import _ %q",
			name, namesLocked(), "github.com/kvbench/kvbench/rdmakv/"+name)
	}
	return nil, fmt.Errorf("transport %q is not linked into this program (have %v)", name, namesLocked())
}

// Names lists the registered transports, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	out := make([]string, 0, len(networks))
	for k := range networks {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
