package workload

// The baselines' drivers register their kinds, which validation asks for.
import (
	_ "github.com/kvbench/kvbench/internal/store/memcached"
	_ "github.com/kvbench/kvbench/internal/store/redis"
)
