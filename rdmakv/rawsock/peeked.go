package rawsock

// Peeked is what a look at a socket's receive queue found. Its type
// builds everywhere, so that a reader which peeks in a buffer of its own
// (off Linux) can say the same.
type Peeked struct {
	// N bytes at the head of the queue were copied, not taken.
	N int
	// Queued is how many bytes the queue holds in all.
	Queued int
	// Hup: the peer has shut its side down, so no more bytes will come.
	Hup bool
}
