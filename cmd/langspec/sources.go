package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
)

type sourcesOptions struct {
	io      *ioStreams
	app     func() (*app.App, error)
	jsonOut bool
}

func newCmdSources(f *factory) *cobra.Command {
	opts := &sourcesOptions{io: f.io, app: f.plainApp}
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "List the specifications langspec can ingest, where from, and what is stored",
		Long: `Sources lists the built-in sources and those in langspec.json, where each
would be read from (local copies first, then the network), and the latest
version stored.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSources(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, "print JSON")
	return cmd
}

func runSources(ctx context.Context, opts *sourcesOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	rows, err := a.Sources(ctx)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(opts.io.Out, rows)
	}
	tw := tabwriter.NewWriter(opts.io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tKIND\tPOLICY\tSTORED\tREAD FROM")
	for _, r := range rows {
		from := "(nowhere: pass --from)"
		if len(r.ReadFrom) > 0 {
			from = r.ReadFrom[0].String()
			if r.ReadFrom[0].Kind == app.AtFolder {
				from += " (local)"
			}
		}
		stored := r.Stored
		if stored == "" {
			stored = "-"
		}
		policy := "full"
		if r.SourcePolicy == app.PolicyExcerptOnly {
			policy = "excerpts"
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\n", r.Language, r.Doc, r.Kind, policy, stored, from)
	}
	return tw.Flush()
}

func newCmdConfig(f *factory) *cobra.Command {
	cmd := asGroup(&cobra.Command{
		Use:   "config",
		Short: "The config file: its JSON Schema and where it is read from",
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of langspec.json",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := app.ConfigSchema()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(f.io.Out, "%s\n", b)
			return err
		},
	}, &cobra.Command{
		Use:   "path",
		Short: "Print the config file's path, and check it",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, _ := app.ConfigFile(f.configFlag, f.getenv)
			if _, err := app.LoadConfig(f.configFlag, f.getenv); err != nil {
				return err
			}
			_, err := fmt.Fprintln(f.io.Out, p)
			return err
		},
	})
	return cmd
}
