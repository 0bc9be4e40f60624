package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/ingest"
)

type ingestOptions struct {
	f        *factory
	language string
	from     string // PATH or URL; "" picks the local toolchain's copy or the built-in one
}

func newCmdIngest(f *factory, runF func(context.Context, *ingestOptions) error) *cobra.Command {
	opts := &ingestOptions{f: f}
	cmd := &cobra.Command{
		Use:   "ingest LANGUAGE [PATH|URL]",
		Short: "Read a specification into the database",
		Long: `Ingest reads a specification, splits it into sections and stores it as a new
version (taken from the document itself). Ingesting the same content again
changes nothing. A version becomes searchable only once it is stored whole.

go: with no PATH or URL, the spec shipped with your Go toolchain
($(go env GOROOT)/doc/go_spec.html), else the copy built into langspec.`,
		Example: `  langspec ingest go
  langspec ingest go ./go_spec.html
  langspec ingest go https://go.dev/ref/spec`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageErrorf("ingest takes LANGUAGE and an optional PATH or URL (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.language = args[0]
			if len(args) == 2 {
				opts.from = args[1]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runIngest(cmd.Context(), opts)
		},
	}
	return cmd
}

func runIngest(ctx context.Context, opts *ingestOptions) error {
	if opts.language != ingest.GoLanguage {
		return apperr.New(apperr.InvalidArgument, "supported languages: go",
			"cannot ingest %q yet", opts.language)
	}
	src := ingest.ResolveGoSource(opts.from, opts.f.goroot(ctx))
	store, err := opts.f.openStore(ctx, false)
	if err != nil {
		return err
	}
	defer store.Close()
	res, err := ingest.Go(ctx, store, opts.f.httpClient(), src, opts.f.now())
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.f.io.Out, "%s %s %s: %s, %d sections (from %s)\n",
		res.Language, res.Doc, res.Version, res.Status, res.Sections, src)
	return nil
}
