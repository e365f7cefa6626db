//go:build !race

package tcp

func raceWrote() {}
func raceRead()  {}
