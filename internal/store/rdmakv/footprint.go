package rdmakvstore

import (
	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/verbs"
)

// ReceiveMemory is what receiving costs in registered memory over verbs
// at an eager threshold, for connections clients of depth requests in
// flight on keys of up to keySize bytes: the server's receive buffers,
// sized for a max eager of threshold and shared by the connections (its
// receive queue grown to their credit), and the clients' receive buffers,
// sized for replies of up to threshold. Both grow with the threshold,
// which is what a higher one costs beside its latency. It fails without
// verbs in the build.
func ReceiveMemory(threshold, keySize, connections, depth int) (server, client int64, err error) {
	srv := rdmakv.ServerConfig{MaxEager: max(threshold, 1), MaxKey: max(keySize, 1)}
	server, _, err = verbs.RegisteredBytes(srv.LoadedTransportConfig(connections, depth))
	if err != nil {
		return 0, 0, err
	}
	one, _, err := verbs.RegisteredBytes(rdmakv.ClientTransportConfig(
		rdmakv.WithEagerThreshold(threshold), rdmakv.WithDepth(depth)))
	if err != nil {
		return 0, 0, err
	}
	return server, int64(connections) * one, nil
}
