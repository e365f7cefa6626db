package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/workload"
)

// workloadFlags are the flags that override a workload file
// (workload.OverrideFlags), shared by run and tune. Only the flags the
// user set override (defaults, then YAML, then flags).
type workloadFlags struct {
	// reads reads each override flag's value, by name.
	reads map[string]func() any
}

// loadLists are the loads tune compares at: every combination.
type loadLists struct {
	conns, depths []int
	rates         []float64
}

// registerTarget adds the flags every workload command has, with the
// command's own help, by flag name, where the overrides' does not fit it.
func (f *workloadFlags) registerTarget(cmd *cobra.Command, help map[string]string) {
	f.register(cmd, false, help)
}

// registerLoad adds the flags that change the load model, the checking and
// the cell order (run).
func (f *workloadFlags) registerLoad(cmd *cobra.Command) { f.register(cmd, true, nil) }

// register adds the override flags whose Load is load, with the command's
// own help where it has one.
func (f *workloadFlags) register(cmd *cobra.Command, load bool, help map[string]string) {
	for _, o := range workload.OverrideFlags() {
		if o.Load != load {
			continue
		}
		h, ok := help[o.Flag]
		if !ok {
			h = o.Help
		}
		f.read(o.Flag, define(cmd, o, h))
		if o.Choices != nil {
			cmd.RegisterFlagCompletionFunc(o.Flag, cobra.FixedCompletions(o.Choices, cobra.ShellCompDirectiveNoFileComp))
		}
	}
}

// define adds o's flag to cmd, of the type of o's value, and returns how
// to read it.
func define(cmd *cobra.Command, o workload.Override, help string) func() any {
	fl := cmd.Flags()
	switch o.Zero().(type) {
	case string:
		return reader(fl.String(o.Flag, "", help))
	case time.Duration:
		return reader(fl.Duration(o.Flag, 0, help))
	case int:
		return reader(fl.Int(o.Flag, 0, help))
	case uint64:
		return reader(fl.Uint64(o.Flag, 0, help))
	case float64:
		return reader(fl.Float64(o.Flag, 0, help))
	case bool:
		return reader(fl.Bool(o.Flag, false, help))
	}
	panic(fmt.Sprintf("--%s: no flag holds a %T", o.Flag, o.Zero()))
}

func reader[T any](p *T) func() any { return func() any { return *p } }

// read makes r how the override flag name is read.
func (f *workloadFlags) read(name string, r func() any) {
	if f.reads == nil {
		f.reads = map[string]func() any{}
	}
	f.reads[name] = r
}

// readFirsts makes tune's --connections, --depth and --rate, lists of the
// loads it compares at, override the workload like run's single ones by
// their first values (a zero when a list is empty, which validation then
// refuses).
func (f *workloadFlags) readFirsts(l *loadLists) {
	f.read("connections", func() any { return *first(l.conns) })
	f.read("depth", func() any { return *first(l.depths) })
	f.read("rate", func() any { return *first(l.rates) })
}

// overrides collects the flags the user set; the rest leave the file alone.
func (f *workloadFlags) overrides(cmd *cobra.Command) workload.Overrides {
	o := workload.Overrides{}
	for name, read := range f.reads {
		if cmd.Flags().Changed(name) {
			o[name] = read()
		}
	}
	return o
}

// first points to a list's first value (to a zero when it is empty, which
// validation then refuses).
func first[T any](list []T) *T {
	if len(list) == 0 {
		return new(T)
	}
	return &list[0]
}

// load reads a workload file, applies the flags the user set, and validates
// the result (errors name the file and line, or the flag).
func (f *workloadFlags) load(cmd *cobra.Command, file string) (*workload.Workload, error) {
	w, err := workload.LoadFile(file)
	if err != nil {
		return nil, err
	}
	w.ApplyOverrides(f.overrides(cmd))
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}
