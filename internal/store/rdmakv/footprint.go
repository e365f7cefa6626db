package rdmakvstore

import (
	"cmp"
	"fmt"

	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/transport"
)

// ReceiveMemory is what receiving costs in registered memory over verbs
// at an eager threshold, for connections clients of depth requests in
// flight on keys of up to keySize bytes: the server's receive buffers,
// sized for a max eager of threshold and shared by the connections (its
// receive queue grown to their credit), and the clients' receive buffers,
// sized for replies of up to threshold. Both grow with the threshold,
// which is what a higher one costs beside its latency. It asks the verbs
// transport, and fails when the program does not link it in or was built
// without it. At store.AdaptiveThreshold it is what the adaptive policy
// asks for: rdmakv.DefaultMaxEager, the largest threshold it may choose.
func ReceiveMemory(threshold, keySize, connections, depth int) (server, client int64, err error) {
	return ReceiveMemoryOf(rdmakv.AdaptiveConfig{}, threshold, keySize, connections, depth)
}

// ReceiveMemoryOf is ReceiveMemory with the adaptive policy's settings a
// at store.AdaptiveThreshold: it asks for a.MaxThreshold, or
// rdmakv.DefaultMaxEager when that is 0.
func ReceiveMemoryOf(a rdmakv.AdaptiveConfig, threshold, keySize, connections, depth int) (server, client int64, err error) {
	n, err := transport.Lookup(transport.Verbs)
	if err != nil {
		return 0, 0, err
	}
	f, ok := n.(transport.Footprinter)
	if !ok {
		return 0, 0, fmt.Errorf("transport %s cannot say what it registers", n.Name())
	}
	opt := rdmakv.WithEagerThreshold(threshold)
	if threshold == store.AdaptiveThreshold {
		threshold, opt = cmp.Or(a.MaxThreshold, rdmakv.DefaultMaxEager), rdmakv.WithAdaptiveThreshold(a)
	}
	srv := rdmakv.ServerConfig{MaxEager: max(threshold, 1), MaxKey: max(keySize, 1)}
	server, _, err = f.RegisteredBytes(srv.LoadedTransportConfig(connections, depth))
	if err != nil {
		return 0, 0, err
	}
	one, _, err := f.RegisteredBytes(rdmakv.ClientTransportConfig(
		opt, rdmakv.WithDepth(depth)))
	if err != nil {
		return 0, 0, err
	}
	return server, int64(connections) * one, nil
}
