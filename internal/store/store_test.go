package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/store"
	_ "github.com/kvbench/kvbench/internal/store/memcached"
	_ "github.com/kvbench/kvbench/internal/store/redis"
)

// The kinds are rdmakv and the drivers linked in, each once; opening a
// kind no driver registered says which baselines there are.
func TestKinds(t *testing.T) {
	if got, want := store.Kinds(), []string{"rdmakv", "memcached", "redis"}; !slices.Equal(got, want) {
		t.Errorf("Kinds() = %v, want %v", got, want)
	}
	if k, ok := store.Lookup("memcached"); !ok || k.MaxKey != 250 || k.Password {
		t.Errorf("memcached: %+v, %v", k, ok)
	}
	if k, ok := store.Lookup("redis"); !ok || !k.Password {
		t.Errorf("redis: %+v, %v", k, ok)
	}
	_, err := store.Open(context.Background(), store.Config{Kind: "mongodb"})
	if err == nil || !strings.Contains(err.Error(), `"mongodb" is not a baseline (baselines: memcached, redis)`) {
		t.Errorf("Open(mongodb): %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a kind registered twice did not panic")
		}
	}()
	store.Register(store.Kind{Name: "redis", Open: func(context.Context, store.Config) (store.Baseline, error) { return nil, nil }})
}
