// Package stats holds the tests and estimates kvbench decides by, so that
// every command judges noise the same way: the sign test over paired
// repeats that tune uses to pick a protocol, the Mann-Whitney U test and
// Holm's correction that compare uses over several runs a side, the
// confidence intervals compare uses within one run, medians, and the
// tests behind a cell's checks: Spearman's rank correlation of consecutive
// latencies and Kolmogorov-Smirnov's of inter-arrivals.
//
// Latency distributions are skewed and multi-modal, so the tests are
// rank-based and the quantile intervals distribution-free; only MeanCI
// assumes normality, for per-interval rates, whose means are close to
// normal.
package stats
