package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// version and revision may be set at link time:
//
//	go build -ldflags "-X github.com/kvbench/kvbench/internal/cli.version=v1.0.0 -X github.com/kvbench/kvbench/internal/cli.revision=abc123"
//
// Without -ldflags, the module version and the VCS revision Go stamps into
// the binary (vcs.revision, with "-dirty" for uncommitted changes) are used.
var (
	version  = ""
	revision = ""
)

// buildVersion returns the kvbench version and git revision.
func buildVersion() (ver, rev string) {
	ver, rev = version, revision
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return orUnknown(ver, "devel"), orUnknown(rev, "unknown")
	}
	if ver == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		ver = bi.Main.Version
	}
	if rev == "" {
		var dirty bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" && dirty {
			rev += "-dirty"
		}
	}
	return orUnknown(ver, "devel"), orUnknown(rev, "unknown")
}

func orUnknown(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

func init() { register(newVersionCmd) }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the kvbench version, git revision, rdmakv protocol version and Go version",
		Example: `  kvbench version`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ver, rev := buildVersion()
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "kvbench %s\ngit revision %s\nrdmakv protocol %d\n%s %s/%s\n",
				ver, rev, wire.ProtocolVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
