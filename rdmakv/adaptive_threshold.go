package rdmakv

// ChosenThreshold is the eager threshold that op's classes in classes
// (AdaptiveState) amount to: the Lower of op's smallest class whose Choice
// is Rendezvous, so that, where the choices rise with size, exactly the
// requests below it are chosen eager. It reads the choices alone, so one
// class out of line shows as a lower threshold; the gets' threshold the
// server answers by is the boundary the get classes disagree with least
// (docs/DESIGN.md), the same where the choices rise with size. The last
// class of each op is always rendezvous, so ok is false only when classes
// has none of op's.
func ChosenThreshold(classes []AdaptiveClass, op Op) (threshold int, ok bool) {
	for _, c := range classes {
		if c.Op == op && c.Choice == Rendezvous {
			return c.Lower, true
		}
	}
	return 0, false
}
