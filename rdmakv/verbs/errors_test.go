//go:build linux && cgo

package verbs

import (
	"errors"
	"syscall"
	"testing"
)

// TestCmErr: a librdmacm call that failed reports the errno cgo read with
// it, and EIO when the library set none; never the -1 it returned taken
// as an errno (EPERM).
func TestCmErr(t *testing.T) {
	if err := cmErr(syscall.ENETUNREACH); !errors.Is(err, syscall.ENETUNREACH) {
		t.Errorf("cmErr(ENETUNREACH) = %v", err)
	}
	if err := cmErr(nil); !errors.Is(err, syscall.EIO) {
		t.Errorf("cmErr(nil) = %v, want EIO", err)
	}
}
