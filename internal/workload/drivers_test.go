package workload

// The stores' drivers register their kinds, which validation asks for.
import (
	_ "github.com/kvbench/kvbench/internal/store/memcached"
	_ "github.com/kvbench/kvbench/internal/store/rdmakv"
	_ "github.com/kvbench/kvbench/internal/store/redis"
)
