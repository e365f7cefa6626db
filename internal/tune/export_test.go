package tune

import "testing"

// The fake systems and helpers of this package's tests, for its external
// tests (package tune_test), which render results with report and plot:
// those import this package, so only a test outside it can use them.
var (
	NewLinear    = newLinear
	NewLoadModel = newLoadModel
	Pow2         = pow2
	ByOp         = byOp
	C1C16        = c1c16
)

// LimitedRun is limitedRun.
func LimitedRun(t *testing.T, m *linear) *Result { return limitedRun(t, m) }

// DistRun is distRun.
func DistRun(t *testing.T) *Result { return distRun(t) }

// TiedRun is tiedRun.
func TiedRun(t *testing.T) *Result { return tiedRun(t) }

// SLODistRun is sloDistRun.
func SLODistRun(t *testing.T) *Result { return sloDistRun(t) }
