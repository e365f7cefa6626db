package memcached_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/internal/store/memcached"
	"github.com/kvbench/kvbench/internal/testutil"
)

// A value whose item memcached cannot hold is refused before anything is
// measured, naming the size and the server setting that decides it; a
// larger -I admits it.
func TestItemSizeChecked(t *testing.T) {
	cells := store.Cells{KeySize: 16, ValueSizes: []int{64, 1048501, 1048502, 2 << 20}}
	check := func(addr string) error {
		b, err := store.Open(context.Background(), store.Config{Kind: memcached.Kind, Addr: addr})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		return b.Check(context.Background(), cells)
	}
	err := check(testutil.Memcached(t, "-I", "1m"))
	if err == nil || !strings.Contains(err.Error(), "values 1048502B, 2MiB:") || !strings.Contains(err.Error(), "-I") {
		t.Errorf("with -I 1m: %v", err)
	}
	if err := check(testutil.Memcached(t, "-I", "4m")); err != nil {
		t.Errorf("with -I 4m: %v", err)
	}
}
