package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// versionInfo is what the binary knows of its own build: the module
// version, and the VCS stamp the go command records when it builds from a
// checkout (absent for `go run` and tests).
type versionInfo struct {
	Version  string `json:"version"`            // module version; "(devel)" for a build from a checkout
	Go       string `json:"go"`                 // the Go release it was built with
	Revision string `json:"revision,omitempty"` // vcs.revision
	Time     string `json:"time,omitempty"`     // vcs.time, RFC 3339
	Modified bool   `json:"modified"`           // vcs.modified: built with uncommitted changes
}

// readVersion reads versionInfo from the build information.
func readVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(bi)
}

// versionFrom is the versionInfo of bi (nil: none recorded).
func versionFrom(bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Version: "dev", Go: runtime.Version()}
	if bi == nil {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one line `langspec version` and `langspec --version` print.
func (v versionInfo) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "langspec %s", v.Version)
	var parts []string
	if v.Revision != "" {
		rev := v.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if v.Modified {
			rev += "+modified"
		}
		parts = append(parts, rev)
	}
	if v.Time != "" {
		parts = append(parts, v.Time)
	}
	parts = append(parts, v.Go)
	fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	return b.String()
}

type versionOptions struct {
	f       *factory
	jsonOut bool
}

func newCmdVersion(f *factory, runF func(context.Context, *versionOptions) error) *cobra.Command {
	opts := &versionOptions{f: f}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print langspec's version and the revision it was built from",
		Long: `Version prints the module version, the VCS revision and its time (with
"+modified" when the build had uncommitted changes) and the Go release,
from the build information the go command records. 'langspec --version'
prints the same line. For the versions of the stored specifications, see
'langspec versions'.`,
		Example: `  langspec version
  langspec version --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runVersion(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, "print JSON")
	return cmd
}

func runVersion(opts *versionOptions) error {
	v := readVersion()
	if opts.jsonOut {
		return writeJSON(opts.f.io.Out, v)
	}
	_, err := fmt.Fprintln(opts.f.io.Out, v)
	return err
}
