package cli

import "errors"

// ExitError carries a specific process exit code (for example 2 for an
// interrupted run, 3 for a regression found by compare).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode maps an error from a command to the process exit status.
func ExitCode(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return 1
}
