//go:build !race

package rawsock

// RaceWrote tells the race detector that the caller wrote the socket
// bytes a Sock is to read.
func RaceWrote() {}
func raceRead()  {}
