// Package rawsock reads and writes TCP sockets with raw system calls under
// Go's poller, for the data paths whose cost per request is the point:
// rdmakv's TCP transport and the clients of the baselines kvbench drives.
//
// The raw system calls are Linux's (golang.org/x/sys/unix): Sock, its
// Peek, and the blocking sockets of BlockConn exist on Linux only. Off
// Linux the package keeps what its callers dial with, over the standard
// net.Conn: Dial's Conns keep their slack on deadlines, and a
// BlockDialer dials them too, under the poller, as there is no blocking
// socket to give. rdmakv's TCP transport has a net.Conn path of its own
// (transport.Config.NetConn), which it takes off Linux.
package rawsock
