package results

import "strings"

// Why a run ended, as results.json's end_reason says; a run that an error
// ended says so with EndError.
const (
	EndCompleted   = "completed"
	EndInterrupted = "interrupted"
	// EndPartial marks the cells a rank of an MPI job keeps on its own
	// disk as it goes: they are left behind only when the job dies before
	// rank 0 gathers them.
	EndPartial = "partial: this rank's cells so far; the job ended before rank 0 gathered them"
)

// endErrorPrefix begins the reason of a run an error ended, and the
// error's text follows.
const endErrorPrefix = "error: "

// EndError is the end reason of a run that the error msg ended.
func EndError(msg string) string { return endErrorPrefix + msg }

// EndFailure reports whether reason is a run's failure (EndError) and
// then the error's text; otherwise it returns reason itself, so that a
// merged run can quote a rank's reason either way.
func EndFailure(reason string) (msg string, failed bool) {
	return strings.CutPrefix(reason, endErrorPrefix)
}
