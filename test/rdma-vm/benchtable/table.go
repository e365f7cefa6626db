package main

import (
	"errors"
	"fmt"
	"io"
	"math"
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

// series is one figure's value per round, in the order the rounds ran; nil
// when the figure is missing (its error is then in figures.errs).
type series []float64

// med is the median over the rounds, nil when missing.
func (s series) med() *float64 {
	if len(s) == 0 {
		return nil
	}
	v := median(s)
	return &v
}

// figures holds every figure the table needs.
type figures struct {
	sendLat, sendLat2, readLat2, readLat64K, writeBW1M series // perftest: us, us, us, us, MiB/s
	eagerGet, rdvGet                                   series // kvbench p50, us
	set1M                                              series // kvbench MiB/s
	// every holds each draw of the compared figures in run order, and draws
	// how many draws make a round; the series above keep each round's
	// fastest draw.
	every drawn
	draws int
	// polls is the set of polling modes the kvbench reports name.
	polls map[string]bool
	// rounds is the most rounds any kvbench case has.
	rounds int
	// clock is the guest's clock source and aslr its randomize_va_space
	// setting, "" when not recorded.
	clock, aslr string
	// pin is where the servers and clients ran (pin.txt).
	pin string
	// server is the kvserver flags guest-bench.sh measured with.
	server string
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
func load(dir string) *figures {
	r := &figures{polls: map[string]bool{}}
	var err error
	if r.draws, err = readDraws(dir); err != nil {
		r.errs = append(r.errs, err)
		r.draws = 1
	}
	pt := func(file string, bytes int64, col string) series {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			r.errs = append(r.errs, err)
			return nil
		}
		defer f.Close()
		rows, err := parsePerftest(f)
		if err == nil {
			var v series
			if v, err = perftestValues(rows, bytes, col); err == nil {
				return v
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

	// A case's directory holds one kvbench run directory per draw.
	kv := func(name, op string, size int, protocol string, pick func(kvbenchRound) float64) series {
		sub := "kvbench-" + name
		runs, err := loadKvbenchRuns(filepath.Join(dir, sub), op, size, protocol)
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("%s: %w", sub, err))
			return nil
		}
		r.rounds = max(r.rounds, len(runs)/r.draws)
		vals := make(series, len(runs))
		for i, run := range runs {
			r.polls[run.poll] = true
			vals[i] = pick(run)
		}
		return vals
	}
	p50us := func(k kvbenchRound) float64 { return k.p50NS / 1e3 }
	r.eagerGet = kv("get-eager-64", "get", smallSize, "eager", p50us)
	r.rdvGet = kv("get-rdv-64k", "get", rdvSize, "rendezvous", p50us)
	r.set1M = kv("set-1m", "set", setSize, "rendezvous", func(k kvbenchRound) float64 { return k.mibPerSec })
	r.every = drawn{r.sendLat, r.readLat64K, r.writeBW1M, r.eagerGet, r.rdvGet, r.set1M}
	best := func(name string, s series, higher bool) series {
		b, err := bestOfDraws(s, r.draws, higher)
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("%s: %w", name, err))
		}
		return b
	}
	r.sendLat = best("ib_send_lat-64.txt", r.sendLat, false)
	r.readLat64K = best("ib_read_lat-65536.txt", r.readLat64K, false)
	r.writeBW1M = best("ib_write_bw-1048576.txt", r.writeBW1M, true)
	r.eagerGet = best("kvbench-get-eager-64", r.eagerGet, false)
	r.rdvGet = best("kvbench-get-rdv-64k", r.rdvGet, false)
	r.set1M = best("kvbench-set-1m", r.set1M, true)
	r.clock = readNote(dir, "clocksource.txt")
	r.aslr = readNote(dir, "aslr.txt")
	r.pin = readNote(dir, "pin.txt")
	r.server = readNote(dir, "kvserver.txt")
	return r
}

// drawn is every draw of the compared figures, in run order.
type drawn struct {
	sendLat, readLat64K, writeBW1M, eagerGet, rdvGet, set1M series
}

// comparison is one row of the table: a kvbench case against its perftest
// baseline, both per round.
type comparison struct {
	name, metric, baselineIs string
	kv, base                 series
	// everyKV and everyBase hold every draw: each kvbench draw pairs with
	// the baseline draw just before it.
	everyKV, everyBase series
	format             func(*float64) string
	goal               goal
}

// goal is the target for a row's ratio: at most limit for a
// latency, at least limit for a throughput.
type goal struct {
	limit   float64
	atLeast bool
}

// verdict says whether ratio v, as printed (two decimals), meets g; "-"
// when there is no ratio.
func (g goal) verdict(v *float64) string {
	var shown float64
	if v != nil {
		shown = math.Round(*v*100) / 100
	}
	op, met := "<=", v != nil && shown <= g.limit
	if g.atLeast {
		op, met = ">=", v != nil && shown >= g.limit
	}
	switch {
	case v == nil:
		return fmt.Sprintf("%s %.1fx: -", op, g.limit)
	case met:
		return fmt.Sprintf("%s %.1fx: met", op, g.limit)
	}
	return fmt.Sprintf("%s %.1fx: missed", op, g.limit)
}

// ratio compares the case with its baseline. When both have a value for
// every round, each kvbench run is paired with the perftest runs of its own
// round, taken just before it, and the ratio is the median of those
// per-round ratios: a stretch of host noise then slows both sides of one
// ratio instead of one side of the median. Otherwise it is the ratio of
// the medians. perRound is nil in that case.
func (c comparison) ratio() (v *float64, perRound []float64) {
	if len(c.kv) == 0 || len(c.base) == 0 {
		return nil, nil
	}
	if len(c.kv) == len(c.base) {
		for i := range c.kv {
			if c.base[i] == 0 {
				return nil, nil
			}
			perRound = append(perRound, c.kv[i]/c.base[i])
		}
		m := median(perRound)
		return &m, perRound
	}
	if b := median(c.base); b != 0 {
		m := median(c.kv) / b
		return &m, nil
	}
	return nil, nil
}

// roundTrip is 2 x ib_send_lat per round, plus extra's value of the same
// round when extra is given; nil when a term is missing or the rounds do
// not line up.
func roundTrip(sendLat series, extra ...series) series {
	if len(sendLat) == 0 {
		return nil
	}
	out := make(series, len(sendLat))
	for i, v := range sendLat {
		out[i] = 2 * v
	}
	for _, e := range extra {
		if len(e) != len(out) {
			if len(e) == 0 {
				return nil
			}
			// Rounds differ in count: compare medians only.
			return series{2*median(sendLat) + median(e)}
		}
		for i := range out {
			out[i] += e[i]
		}
	}
	return out
}

// render writes the comparison. Latency ratios are kvbench/baseline (above
// 1 means slower than the verbs floor); the throughput ratio is
// kvbench/baseline (below 1 means slower).
func render(w io.Writer, r *figures) error {
	var b strings.Builder
	fmt.Fprintf(&b, "kvbench polling: %s\n", pollNote(r.polls))
	fmt.Fprintf(&b, "guest clock source: %s\n", clockNote(r.clock))
	fmt.Fprintf(&b, "guest address space randomisation: %s\n", aslrNote(r.aslr))
	fmt.Fprintf(&b, "CPU pinning: %s\n", pinNote(r.pin))
	fmt.Fprintf(&b, "kvserver flags: %s\n\n", serverNote(r.server))
	e := r.every
	rows := []comparison{
		{"eager GET 64 B", "p50", "2 x ib_send_lat 64 B typical (one round trip)", r.eagerGet, roundTrip(r.sendLat),
			e.eagerGet, roundTrip(e.sendLat), us, goal{limit: 1.3}},
		{"rendezvous GET 64 KiB", "p50", "round trip + ib_read_lat 64 KiB typical", r.rdvGet, roundTrip(r.sendLat, r.readLat64K),
			e.rdvGet, roundTrip(e.sendLat, e.readLat64K), us, goal{limit: 1.3}},
		{"SET 1 MiB", "throughput", "ib_write_bw 1 MiB average", r.set1M, r.writeBW1M,
			e.set1M, e.writeBW1M, mibs, goal{limit: 0.8, atLeast: true}},
	}
	drawCol := func(c comparison) string { return "" }
	header := "case\tmetric\tkvbench\tbaseline\tratio\tgoal\tbaseline is"
	if r.draws > 1 {
		header = "case\tmetric\tkvbench\tbaseline\tratio\tgoal\tevery draw\tbaseline is"
		drawCol = func(c comparison) string {
			v, _ := comparison{kv: c.everyKV, base: c.everyBase}.ratio()
			return ratio(v) + "\t"
		}
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	paired := true
	var perRound []string
	for _, c := range rows {
		v, per := c.ratio()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n", c.name, c.metric, c.format(c.kv.med()), c.format(c.base.med()),
			ratio(v), c.goal.verdict(v), drawCol(c), c.baselineIs)
		if per == nil {
			paired = false
			continue
		}
		parts := make([]string, len(per))
		for i, x := range per {
			parts[i] = fmt.Sprintf("%.2f", x)
		}
		perRound = append(perRound, fmt.Sprintf("  %s\t%s", c.name, strings.Join(parts, " ")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\nperftest in the same guest (rxe0, client side):\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  ib_send_lat 64 B\t%s\ttypical one-way\n", us(r.sendLat.med()))
	fmt.Fprintf(tw, "  ib_send_lat 2 B\t%s\ttypical one-way (perftest's default size)\n", us(r.sendLat2.med()))
	fmt.Fprintf(tw, "  ib_read_lat 2 B\t%s\ttypical\n", us(r.readLat2.med()))
	fmt.Fprintf(tw, "  ib_read_lat 64 KiB\t%s\ttypical\n", us(r.readLat64K.med()))
	fmt.Fprintf(tw, "  ib_write_bw 1 MiB\t%s\taverage\n", mibs(r.writeBW1M.med()))
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.rounds > 1 && paired && len(perRound) > 0 {
		b.WriteString("\nratio per round, in the order the rounds ran:\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, l := range perRound {
			fmt.Fprintln(tw, l)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if r.rounds > 1 {
		fmt.Fprintf(&b, "\nEach figure is the median of %d rounds; in every round each kvbench case runs right after its perftest baselines.", r.rounds)
		if r.draws > 1 {
			fmt.Fprintf(&b, "\nA round runs each case %d times, a fresh process pair each time, and keeps each side's fastest draw;"+
				"\n\"every draw\" is the median ratio of each kvbench draw to the perftest draw just before it.", r.draws)
		}
		if paired {
			b.WriteString("\nEach ratio is the median of the per-round ratios.")
		} else {
			b.WriteString("\nRounds differ in count between reports, so each ratio is of the medians.")
		}
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

// clockNote flags a guest whose clock reads are slow: Go reads the clock
// in its scheduler and kvbench per operation, perftest times with rdtsc, so
// a slow clock source weighs on one side of every ratio only.
func clockNote(cs string) string {
	switch cs {
	case "":
		return "not recorded"
	case "tsc", "kvm-clock":
		return cs
	}
	return cs + " (slow to read under emulation, and only the Go side reads it: ratios are pessimistic)"
}

// aslrNote says whether each process got the same address layout. Under
// TCG the emulated TLB is direct-mapped by virtual page, so a layout's
// conflicts set a process's speed: with randomisation one build's eager
// GET p50 varies from run to run by up to half.
func aslrNote(v string) string {
	switch v {
	case "":
		return "not recorded"
	case "0":
		return "off (every process gets the same layout, so a rerun repeats it)"
	}
	return "on, randomize_va_space=" + v + " (each process's layout changes its speed under emulation)"
}

// pinNote says where guest-bench.sh placed the two ends of every pair,
// perftest's and rdmakv's alike.
func pinNote(v string) string {
	switch v {
	case "":
		return "not recorded"
	case "off":
		return "off (the guest places threads; a Go thread on the other end's CPU slows some runs)"
	}
	return v + " (perftest and rdmakv alike)"
}

// serverNote is the kvserver flags of the run, which the table would
// otherwise not show.
func serverNote(v string) string {
	if v == "" {
		return "not recorded"
	}
	return v
}

// readNote is the trimmed content of a note file guest-bench.sh writes,
// "" when it is missing.
func readNote(dir, name string) string {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
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

func ratio(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2fx", *v)
}
