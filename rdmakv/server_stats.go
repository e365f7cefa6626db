package rdmakv

// ServerStats is a snapshot of what a server holds.
type ServerStats struct {
	// Conns is the number of connections open, handshake done or not.
	Conns int
	// Keys is the number of keys stored.
	Keys int
	// PoolUsed is the bytes of the value pool in use: committed values,
	// values still being read after an overwrite or delete, and set grants
	// not yet committed, in the allocator's block sizes.
	PoolUsed int64
	// PoolSize is the value pool's size.
	PoolSize int64
}

// Stats reports what the server holds now. It takes the server's locks
// briefly, one at a time, so the figures are each exact but not taken at
// one instant.
func (s *Server) Stats() ServerStats {
	s.connMu.Lock()
	conns := len(s.conns)
	s.connMu.Unlock()
	s.store.mu.Lock()
	keys := len(s.store.items)
	s.store.mu.Unlock()
	return ServerStats{
		Conns:    conns,
		Keys:     keys,
		PoolUsed: int64(s.store.alloc.Used()),
		PoolSize: s.cfg.PoolSize,
	}
}
