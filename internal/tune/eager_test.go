package tune

import "testing"

func TestEagerThreshold(t *testing.T) {
	c := Config{KeySize: 16, Sizes: []int{256, 64 << 10, 4096}}
	if got := EagerThreshold(16, 256); got != 273 {
		t.Errorf("EagerThreshold(16, 256) = %d, want 273: key and value, plus one", got)
	}
	if got := c.MaxEagerThreshold(); got != 16+64<<10+1 {
		t.Errorf("MaxEagerThreshold = %d, want the largest size's", got)
	}
	// The limit check and the threshold agree at the boundary.
	if c.CheckEagerLimit(c.MaxEagerThreshold()) != nil || c.CheckEagerLimit(c.MaxEagerThreshold()-1) == nil {
		t.Error("CheckEagerLimit disagrees with MaxEagerThreshold")
	}
}
