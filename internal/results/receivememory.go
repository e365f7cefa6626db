package results

// ReceiveMemory is the memory verbs registers for receiving at a cell's
// eager threshold and load, in bytes: the server's receive buffers, each
// sized for an eager message at the threshold and as many as the job's
// connections hold in credit, and the clients' buffers for replies of up
// to the threshold. It is what a higher threshold costs beside its
// latency; a run over tcp records what verbs would register at its
// configuration.
type ReceiveMemory struct {
	Server int64 `json:"server"`
	// Client is this run's connections' together (a merged run's: every
	// rank's).
	Client int64 `json:"client"`
}
