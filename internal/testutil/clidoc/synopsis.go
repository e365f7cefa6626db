// Package clidoc lets a test hold a program's documented command lines to
// its cobra commands: the long flags a Markdown synopsis names against the
// flags a command defines.
package clidoc

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

var flagToken = regexp.MustCompile(`(?:^|[\s\[|])--([a-z][a-z0-9-]*)`)

var subcommand = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// Synopses reads the command synopses of program prog from the fenced
// blocks of a Markdown file: a line "prog [SUB] ..." and the indented lines
// after it. It returns the long flags each names, keyed by subcommand (""
// for prog itself, "group sub" for a nested one: a command's name is lower
// case, its arguments upper).
func Synopses(file, prog string) (map[string][]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]string{}
	fenced, cur := false, ""
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fenced, in = !fenced, false
			continue
		}
		if !fenced {
			continue
		}
		switch {
		case strings.HasPrefix(line, prog+" ") || line == prog:
			fields := strings.Fields(line)
			cur, in = "", true
			if len(fields) > 1 && !strings.HasPrefix(fields[1], "[") {
				cur = fields[1]
				// A nested command: "prog group sub ARGS", the words in
				// lower case naming commands and arguments in upper.
				for _, f := range fields[2:] {
					if !subcommand.MatchString(f) {
						break
					}
					cur += " " + f
				}
			}
			if _, ok := out[cur]; !ok {
				out[cur] = nil
			}
		case in && strings.HasPrefix(line, "    "):
		default:
			in = false
			continue
		}
		for _, m := range flagToken.FindAllStringSubmatch(line, -1) {
			if !slices.Contains(out[cur], m[1]) {
				out[cur] = append(out[cur], m[1])
			}
		}
	}
	return out, sc.Err()
}

// Flags lists a command's own long flags, help excluded, sorted.
func Flags(cmd *cobra.Command) []string {
	var names []string
	cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			names = append(names, f.Name)
		}
	})
	slices.Sort(names)
	return names
}
