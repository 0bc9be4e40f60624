package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
)

type ingestManualsOptions struct {
	io      *ioStreams
	ws      workspaceFlags
	app     func() (*app.App, error)
	jsonOut bool
}

// newCmdIngestManuals is "ingest manuals": index (or re-index) the manuals
// folder now, rather than on the next serve start or tool call.
func newCmdIngestManuals(f *factory) *cobra.Command {
	opts := &ingestManualsOptions{io: f.io}
	opts.app = f.appFor(&opts.ws)
	cmd := &cobra.Command{
		Use:   "manuals",
		Short: "Index the manuals folder for manual find (and manual_find)",
		Long: `Index every manual under the manuals folder (one folder per manual, .md and
.json files at any depth) into the database, incrementally: files whose size
and modification time are unchanged are skipped, and files whose content is
unchanged are not re-indexed. Files that are gone are dropped.

The manuals folder is --manuals-root, else MANUALS_ROOT, else
WORKSPACE_ROOT/manuals (WORKSPACE_ROOT: --workspace-root, or the working
directory). A folder that is missing or holds no manual is an error
(not_found, exit 1): nothing was indexed.

Search the manuals with 'langspec manual find'; 'langspec search' searches
the specifications only. serve indexes the same way when it starts and
whenever a tool finds a manual changed, so this command is only needed to
index ahead of time.`,
		Example: `  langspec ingest manuals
  langspec ingest manuals --manuals-root ~/work/manuals --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIngestManuals(cmd.Context(), opts)
		},
	}
	opts.ws.addManualFlags(cmd, f)
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, "print the report as JSON")
	return cmd
}

func runIngestManuals(ctx context.Context, opts *ingestManualsOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	reports, err := a.IngestManuals(ctx)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(opts.io.Out, reports)
	}
	for _, r := range reports {
		fmt.Fprintf(opts.io.Out, "%s: %d files, %d indexed, %d unchanged, %d removed", r.ManualID, r.Files, r.Indexed, r.Unchanged, r.Removed)
		if len(r.Skipped) > 0 {
			fmt.Fprintf(opts.io.Out, ", %d skipped", len(r.Skipped))
		}
		fmt.Fprintln(opts.io.Out)
		for _, s := range r.Skipped {
			fmt.Fprintf(opts.io.Out, "  skipped %s: %s\n", s.Path, s.Reason)
		}
	}
	return nil
}
