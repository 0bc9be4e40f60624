package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
)

type versionsOptions struct {
	io       *ioStreams
	app      func() (*app.App, error)
	language string
	doc      string
	keep     int
	jsonOut  bool
}

func newCmdVersions(f *factory) *cobra.Command {
	opts := &versionsOptions{io: f.io, app: f.specApp}
	cmd := &cobra.Command{
		Use:     "versions [LANGUAGE]",
		Aliases: []string{"list"},
		Short:   "List stored versions, newest first",
		Long: `Versions lists the stored versions of each document, newest first, with
when and where each was read and how many sections it has. "default" marks
the version searched when none is named: the newest complete release, or the
version ingested with --default; "pre-release" marks a nightly or beta, the
default only when asked; "incomplete" marks a version with pages that could
not be read, which is never searched by default.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("versions takes at most one LANGUAGE (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if opts.language != "" {
					return usageErrorf("give the language once: either LANGUAGE or --lang")
				}
				opts.language = args[0]
			}
			return runVersions(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.language, "lang", "", "only this language (same as LANGUAGE)")
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, "print JSON")
	return cmd
}

func runVersions(ctx context.Context, opts *versionsOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	vs, err := a.Versions(ctx, opts.language)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		if vs == nil { // nothing stored at all: print [], not null
			vs = []app.Version{}
		}
		return writeJSON(opts.io.Out, vs)
	}
	return printVersions(opts.io, vs)
}

func printVersions(io *ioStreams, vs []app.Version) error {
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LANGUAGE\tDOC\tVERSION\tSECTIONS\tFETCHED\tSOURCE")
	for _, v := range vs {
		ver := v.Version
		switch {
		case v.Default:
			ver += " (default)"
		case !v.Complete:
			ver += " (incomplete)"
		case v.Prerelease:
			ver += " (pre-release)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", v.Language, v.Doc, ver, v.SectionCount,
			v.FetchedAt.Local().Format(time.DateTime), app.SourceLabel(v.SourceURL))
	}
	return tw.Flush()
}

func newCmdPrune(f *factory) *cobra.Command {
	opts := &versionsOptions{io: f.io, app: f.specApp}
	cmd := &cobra.Command{
		Use:   "prune LANGUAGE --keep N",
		Short: "Remove old versions, keeping the newest N of each document",
		Long: `Prune removes all but the newest N complete versions of each document of
LANGUAGE, and every incomplete version. The latest version is never removed.`,
		Example: `  langspec prune go --keep 2`,
		Args:    exactArgs(1, "one LANGUAGE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.language = args[0]
			if opts.keep < 1 {
				return usageErrorf("--keep %d: keep at least 1 version", opts.keep)
			}
			return runPrune(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.doc, "doc", "", "only this document of the language")
	cmd.Flags().IntVar(&opts.keep, "keep", 1, "versions to keep per document")
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, "print the removed versions as JSON")
	return cmd
}

func runPrune(ctx context.Context, opts *versionsOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	removed, err := a.Prune(ctx, opts.language, opts.doc, opts.keep)
	if err != nil {
		return err
	}
	printPruned(opts.io, removed, opts.jsonOut)
	return nil
}

func printPruned(io *ioStreams, removed []app.Version, jsonOut bool) {
	if jsonOut {
		if removed == nil {
			removed = []app.Version{}
		}
		writeJSON(io.Out, map[string]any{"removed": removed})
		return
	}
	if len(removed) == 0 {
		fmt.Fprintln(io.Out, "pruned nothing")
	}
	for _, v := range removed {
		fmt.Fprintf(io.Out, "removed %s/%s %s (%d sections)\n", v.Language, v.Doc, v.Version, v.SectionCount)
	}
}
