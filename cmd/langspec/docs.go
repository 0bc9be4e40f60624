package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/apperr"
)

type docsOptions struct {
	io     *ioStreams
	readme string
	check  bool
}

// newCmdDocs is "docs": the tool tables, written from the tool values.
func newCmdDocs(f *factory) *cobra.Command {
	opts := &docsOptions{io: f.io}
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "Print the MCP tools as Markdown tables, or rewrite them in a README",
		Long: `Docs writes one Markdown table per tool family (spec, manual, vault, bridge,
meta): what each tool does, its arguments with their bounds and defaults, and
the fields of its result, all taken from the tool definitions langspec
serves.

With --readme, it rewrites every block between "<!-- tools:FAMILY -->" and
"<!-- /tools -->" in that file instead; with --check as well, it changes
nothing and fails when the file is not what it would write (CI runs this).`,
		Example: `  langspec docs
  langspec docs --readme README.md
  langspec docs --readme README.md --check`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.check && opts.readme == "" {
				return usageErrorf("--check needs --readme FILE")
			}
			return runDocs(opts)
		},
	}
	cmd.Flags().StringVar(&opts.readme, "readme", "", "rewrite the generated blocks of this Markdown file")
	cmd.Flags().BoolVar(&opts.check, "check", false, "with --readme: change nothing, fail when the file differs")
	return cmd
}

func runDocs(opts *docsOptions) error {
	out := opts.io.Out
	if opts.readme == "" {
		_, err := out.Write(app.ToolTables())
		return err
	}
	old, err := os.ReadFile(opts.readme)
	if err != nil {
		return apperr.Wrap(err, apperr.NotFound, "pass --readme with an existing file", "cannot read %s", opts.readme)
	}
	updated, err := app.UpdateToolTables(old)
	if err != nil {
		return err
	}
	switch {
	case bytes.Equal(old, updated):
		fmt.Fprintf(out, "%s: tool tables up to date\n", opts.readme)
		return nil
	case opts.check:
		return apperr.New(apperr.InvalidArgument, "run: go run ./cmd/langspec docs --readme "+opts.readme,
			"%s: the tool tables differ from the tool definitions (first at line %d)", opts.readme, firstDiffLine(old, updated))
	}
	if err := os.WriteFile(opts.readme, updated, 0o644); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "check the file's permissions", "cannot write %s", opts.readme)
	}
	fmt.Fprintf(out, "%s: tool tables rewritten\n", opts.readme)
	return nil
}

// firstDiffLine is the 1-based line where a and b first differ.
func firstDiffLine(a, b []byte) int {
	line := 1
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '\n' {
			line++
		}
	}
	return line
}
