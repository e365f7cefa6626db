package cli

// The stores kvbench drives, rdmakv and the baselines beside it: each
// driver registers its kind with internal/store as it is linked in. A new
// store is one package and one line here.
import (
	_ "github.com/kvbench/kvbench/internal/store/memcached"
	_ "github.com/kvbench/kvbench/internal/store/rdmakv"
	_ "github.com/kvbench/kvbench/internal/store/redis"
)
