package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/db"
)

type listOptions struct {
	f       *factory
	lang    string
	jsonOut bool
}

func newCmdList(f *factory, runF func(context.Context, *listOptions) error) *cobra.Command {
	opts := &listOptions{f: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List stored languages, documents and versions",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runList(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.lang, "lang", "", "only this language")
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, "print JSON")
	return cmd
}

func runList(ctx context.Context, opts *listOptions) error {
	store, err := opts.f.openStore(ctx, true)
	if err != nil {
		return err
	}
	defer store.Close()
	vs, err := store.Versions(ctx, opts.lang)
	if err != nil {
		return err
	}
	out := opts.f.io.Out
	if opts.jsonOut {
		if vs == nil { // nothing stored at all: print [], not null
			vs = []db.VersionInfo{}
		}
		return writeJSON(out, vs)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LANGUAGE\tDOC\tVERSION\tSECTIONS\tFETCHED\tSOURCE")
	for _, v := range vs {
		ver := v.Version
		if v.Latest {
			ver += " (latest)"
		} else if !v.Complete {
			ver += " (incomplete)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", v.Language, v.Doc, ver, v.SectionCount,
			v.FetchedAt.Local().Format(time.DateTime), v.SourceURL)
	}
	return tw.Flush()
}
