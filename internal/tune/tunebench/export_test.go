package tunebench

// The fake harness's configuration and the failure count, for the external
// test (package tunebench_test) that renders a run with report and merge.
var (
	BenchConfig = benchConfig
	Failures    = failures
)
