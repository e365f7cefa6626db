package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/store"
	_ "github.com/kvbench/kvbench/internal/store/memcached"
	_ "github.com/kvbench/kvbench/internal/store/rdmakv"
	_ "github.com/kvbench/kvbench/internal/store/redis"
)

// The kinds are the drivers linked in, each once, rdmakv (the default)
// first; opening a kind no driver registered says which there are.
func TestKinds(t *testing.T) {
	if got, want := store.Kinds(), []string{"rdmakv", "memcached", "redis"}; !slices.Equal(got, want) {
		t.Errorf("Kinds() = %v, want %v", got, want)
	}
	if k, ok := store.Lookup("rdmakv"); !ok || k.MaxKey != 0 || k.Password {
		t.Errorf("rdmakv: %+v, %v", k, ok)
	}
	if k, ok := store.Lookup("memcached"); !ok || k.MaxKey != 250 || k.Password {
		t.Errorf("memcached: %+v, %v", k, ok)
	}
	if k, ok := store.Lookup("redis"); !ok || !k.Password {
		t.Errorf("redis: %+v, %v", k, ok)
	}
	_, err := store.Open(context.Background(), store.Config{Kind: "mongodb"})
	if err == nil || !strings.Contains(err.Error(), `"mongodb" is not a kind of store (kinds: rdmakv, memcached, redis)`) {
		t.Errorf("Open(mongodb): %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a kind registered twice did not panic")
		}
	}()
	store.Register(store.Kind{Name: "redis", Open: func(context.Context, store.Config) (store.Store, error) { return nil, nil }})
}

// A store kvbench starts no server of refuses a config without one.
func TestBaselinesNeedAServer(t *testing.T) {
	for _, kind := range []string{"redis", "memcached"} {
		if _, err := store.Open(context.Background(), store.Config{Kind: kind}); err == nil || !strings.Contains(err.Error(), "starts only rdmakv servers") {
			t.Errorf("%s without an address: %v", kind, err)
		}
	}
}
