package main

import (
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// Stamped by the linker in release builds (.goreleaser.yaml):
//
//	-X main.version={{.Version}} -X main.commit={{.FullCommit}} -X main.date={{.CommitDate}}
//
// Empty in every other build: then the build information the go command
// records answers (versionFrom).
var (
	version string
	commit  string
	date    string
)

// stamp is what the linker set: version, commit and date.
type stamp struct{ version, commit, date string }

// versionInfo is what the binary knows of its own build: the version, the
// commit and its date, from the linker's stamp when there is one, else from
// the build information: the module version (a pseudo-version names its
// commit and date, so `go install …@latest` says them too) and the VCS stamp
// the go command records when it builds from a checkout (absent for `go
// run`, tests, and -buildvcs=false).
type versionInfo struct {
	Version  string `json:"version"`            // release or module version; "(devel)" for a build from a checkout
	Go       string `json:"go"`                 // the Go release it was built with
	Revision string `json:"revision,omitempty"` // the commit
	Time     string `json:"time,omitempty"`     // the commit's date, RFC 3339
	Modified bool   `json:"modified"`           // vcs.modified: built with uncommitted changes
}

// readVersion reads versionInfo from the linker's stamp and the build
// information.
func readVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(bi, stamp{version: version, commit: commit, date: date})
}

// pseudoVersion matches the tail of a Go pseudo-version
// (v0.0.0-20261127120000-c6783ae1abc1, v1.2.4-0.2026…, v1.2.3-pre.0.2026…):
// the commit's UTC time and the first 12 hex digits of its hash.
var pseudoVersion = regexp.MustCompile(`[-.](\d{14})-([0-9a-f]{12})(?:\+incompatible)?$`)

// versionFrom is the versionInfo of bi (nil: none recorded) under the
// linker's stamp s: each stamped field wins over what bi says.
func versionFrom(bi *debug.BuildInfo, s stamp) versionInfo {
	v := versionInfo{Version: "dev", Go: runtime.Version()}
	if bi != nil {
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			v.Go = bi.GoVersion
		}
		if m := pseudoVersion.FindStringSubmatch(v.Version); m != nil {
			if t, err := time.Parse("20060102150405", m[1]); err == nil {
				v.Revision, v.Time = m[2], t.UTC().Format(time.RFC3339)
			}
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
	}
	if s.version != "" {
		v.Version = s.version
	}
	if s.commit != "" {
		v.Revision = s.commit
	}
	if s.date != "" {
		v.Time = s.date
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
	io      *ioStreams
	jsonOut bool
}

func newCmdVersion(f *factory) *cobra.Command {
	opts := &versionOptions{io: f.io}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print langspec's version and the revision it was built from",
		Long: `Version prints the version, the commit and its date (with "+modified"
when the build had uncommitted changes) and the Go release. A release
archive has them stamped at build; 'go install …@VERSION' takes them from
the module version, a build in a clone from the checkout. 'langspec
--version' prints the same line. For the versions of the stored specifications, see
'langspec versions'.`,
		Example: `  langspec version
  langspec version --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersion(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, "print JSON")
	return cmd
}

func runVersion(opts *versionOptions) error {
	v := readVersion()
	if opts.jsonOut {
		return writeJSON(opts.io.Out, v)
	}
	_, err := fmt.Fprintln(opts.io.Out, v)
	return err
}
