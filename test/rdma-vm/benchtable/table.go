package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// Sizes of the cases guest-bench.sh runs.
const (
	smallSize = 64
	rdvSize   = 64 << 10
	setSize   = 1 << 20
)

// results holds every figure the table needs; a nil field was missing and
// its error is in errs.
type results struct {
	sendLat, sendLat2, readLat2, readLat64K, writeBW1M *float64 // perftest: us, us, us, us, MiB/s
	eagerGet, rdvGet                                   *float64 // kvperf p50, us
	set1M                                              *float64 // kvperf MiB/s
	// polls is the set of polling modes the kvperf reports name.
	polls map[string]bool
	// rounds is the most kvperf runs any case has.
	rounds int
	errs   []error
}

func run(dir string, w io.Writer) error {
	r := load(dir)
	if err := render(w, r); err != nil {
		return err
	}
	return errors.Join(r.errs...)
}

// load reads every input it can, collecting an error per missing figure so
// one run reports all of them.
func load(dir string) *results {
	r := &results{polls: map[string]bool{}}
	pt := func(file string, bytes int64, col string) *float64 {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			r.errs = append(r.errs, err)
			return nil
		}
		defer f.Close()
		rows, err := parsePerftest(f)
		if err == nil {
			var v float64
			if v, err = perftestValue(rows, bytes, col); err == nil {
				return &v
			}
		}
		r.errs = append(r.errs, fmt.Errorf("%s: %w", file, err))
		return nil
	}
	r.sendLat = pt("ib_send_lat-64.txt", smallSize, colTypicalUsec)
	r.sendLat2 = pt("ib_send_lat-2.txt", 2, colTypicalUsec)
	r.readLat2 = pt("ib_read_lat-2.txt", 2, colTypicalUsec)
	r.readLat64K = pt("ib_read_lat-65536.txt", rdvSize, colTypicalUsec)
	r.writeBW1M = pt("ib_write_bw-1048576.txt", setSize, colBWAverage)

	// A case's report may hold several runs, one JSON line each; the
	// table shows the median of their figures.
	kv := func(name, protocol string, pick func(kvperfResult) (float64, error)) *float64 {
		file := "kvperf-" + name + ".json"
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err == nil {
			var runs []kvperfResult
			if runs, err = parseKvperfRuns(data); err == nil {
				r.rounds = max(r.rounds, len(runs))
				vals := make([]float64, 0, len(runs))
				for i, res := range runs {
					if res.Poll != nil {
						r.polls[*res.Poll] = true
					}
					var v float64
					if err = res.checkProtocol(protocol); err == nil {
						v, err = pick(res)
					}
					if err != nil {
						if len(runs) > 1 {
							err = fmt.Errorf("run %d: %w", i+1, err)
						}
						break
					}
					vals = append(vals, v)
				}
				if err == nil {
					v := median(vals)
					return &v
				}
			}
		}
		r.errs = append(r.errs, fmt.Errorf("%s: %w", file, err))
		return nil
	}
	p50us := func(res kvperfResult) (float64, error) {
		if res.P50NS == nil {
			return 0, errors.New("no p50_ns")
		}
		return *res.P50NS / 1e3, nil
	}
	r.eagerGet = kv("get-eager-64", "eager", p50us)
	r.rdvGet = kv("get-rdv-64k", "rendezvous", p50us)
	r.set1M = kv("set-1m", "rendezvous", func(res kvperfResult) (float64, error) { return res.mibPerSec(setSize) })
	return r
}

// render writes the comparison. Latency ratios are kvbench/baseline (above
// 1 means slower than the verbs floor); the throughput ratio is
// kvbench/baseline (below 1 means slower).
func render(w io.Writer, r *results) error {
	var b strings.Builder
	fmt.Fprintf(&b, "kvbench polling: %s\n\n", pollNote(r.polls))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tmetric\tkvbench\tbaseline\tratio\tbaseline is")
	fmt.Fprintf(tw, "eager GET 64 B\tp50\t%s\t%s\t%s\t2 x ib_send_lat 64 B typical (one round trip)\n",
		us(r.eagerGet), us(scale(r.sendLat, 2)), ratio(r.eagerGet, scale(r.sendLat, 2)))
	rdvBase := sum(scale(r.sendLat, 2), r.readLat64K)
	fmt.Fprintf(tw, "rendezvous GET 64 KiB\tp50\t%s\t%s\t%s\tround trip + ib_read_lat 64 KiB typical\n",
		us(r.rdvGet), us(rdvBase), ratio(r.rdvGet, rdvBase))
	fmt.Fprintf(tw, "SET 1 MiB\tthroughput\t%s\t%s\t%s\tib_write_bw 1 MiB average\n",
		mibs(r.set1M), mibs(r.writeBW1M), ratio(r.set1M, r.writeBW1M))
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\nperftest in the same guest (rxe0, client side):\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  ib_send_lat 64 B\t%s\ttypical one-way\n", us(r.sendLat))
	fmt.Fprintf(tw, "  ib_send_lat 2 B\t%s\ttypical one-way (perftest's default size)\n", us(r.sendLat2))
	fmt.Fprintf(tw, "  ib_read_lat 2 B\t%s\ttypical\n", us(r.readLat2))
	fmt.Fprintf(tw, "  ib_read_lat 64 KiB\t%s\ttypical\n", us(r.readLat64K))
	fmt.Fprintf(tw, "  ib_write_bw 1 MiB\t%s\taverage\n", mibs(r.writeBW1M))
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.rounds > 1 {
		fmt.Fprintf(&b, "\nEach figure is the median of %d rounds; perftest and kvperf take turns in every round.", r.rounds)
	}
	b.WriteString("\nratio = kvbench / baseline; latency above 1x and throughput below 1x are slower than raw verbs.\n")
	b.WriteString("Soft-RoCE under emulation measures the CPU, not a NIC: read the ratios, not the absolutes.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// pollNote says how the kvbench side waited for completions, which the
// comparison depends on: perftest busy-polls its CQ.
func pollNote(polls map[string]bool) string {
	switch {
	case len(polls) == 0:
		return "not reported"
	case len(polls) > 1:
		return "mixed across cases (compare with care; perftest busy-polls)"
	case polls["busy"]:
		return "busy, client and server (as perftest, which busy-polls its CQ)"
	}
	for p := range polls {
		return p + ", client and server (perftest busy-polls: the ratios include the wake-ups)"
	}
	return ""
}

func scale(v *float64, k float64) *float64 {
	if v == nil {
		return nil
	}
	x := *v * k
	return &x
}

func sum(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	x := *a + *b
	return &x
}

func us(v *float64) string {
	if v == nil {
		return "missing"
	}
	return fmt.Sprintf("%.1f us", *v)
}

func mibs(v *float64) string {
	if v == nil {
		return "missing"
	}
	return fmt.Sprintf("%.1f MiB/s", *v)
}

func ratio(a, b *float64) string {
	if a == nil || b == nil || *b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", *a / *b)
}
