package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/text/snippet"
)

type compareOptions struct {
	io      *ioStreams
	app     func() (*app.App, error)
	req     search.CompareRequest
	jsonOut bool
}

func newCmdCompare(f *factory) *cobra.Command {
	opts := &compareOptions{io: f.io, app: f.specApp}
	cmd := &cobra.Command{
		Use:   "compare CONCEPT...",
		Short: "One concept across languages: each specification's best sections, side by side",
		Long: `Compare searches every stored language's specification (or those named with
--lang) for one concept, each document ranked by its own statistics, and
prints their best sections side by side with snippets and citations.
--also adds other phrasings — each language's own terms help most.
A document with no section about the concept says so ("… has no section
about …; nearest: …") and lists the nearest sections; --json marks its
column "absent": true.

A concept that starts with - goes after --.`,
		Example: `  langspec compare integer overflow
  langspec compare loop variable scope --lang go --lang python
  langspec compare "catch a panic or exception" --also "recover deferred function" --also "try statement except clause"`,
		Args: someArgs("compare", "a concept"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.req.Concept = strings.Join(args, " ")
			if err := limitInRange(opts.req.PerDoc, search.MaxComparePerDoc); err != nil {
				return err
			}
			return runCompare(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.req.Languages, "lang", nil, "a language to compare (repeat; default: every stored language)")
	fl.IntVarP(&opts.req.PerDoc, "limit", "n", search.DefaultComparePerDoc, fmt.Sprintf("sections per document (1-%d)", search.MaxComparePerDoc))
	fl.StringArrayVar(&opts.req.Also, "also", nil, "another phrasing of the concept, ranked together with it (repeat, up to 4)")
	fl.BoolVar(&opts.jsonOut, "json", false, "print the comparison as JSON")
	return cmd
}

func runCompare(ctx context.Context, opts *compareOptions) error {
	io := opts.io
	opts.req.Snippet = snippet.Options{Chars: snippet.DefaultChars, Windows: 1}
	switch {
	case opts.jsonOut:
		opts.req.Snippet.Mark = snippet.Markdown
	case io.colorOut:
		opts.req.Snippet.Mark = snippet.ANSIBold
	}
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	res, err := a.Compare(ctx, opts.req)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(io.Out, res)
	}
	for _, col := range res.Columns {
		fmt.Fprintf(io.Out, "== %s (%s/%s %s)\n", col.DisplayName, col.Language, col.Doc, col.Version)
		switch {
		case len(col.Hits) == 0:
			fmt.Fprintln(io.Out, "   no section matches")
		case col.Absent:
			// The hits still follow: the nearest sections, said to be no more.
			fmt.Fprintf(io.Out, "   %s\n", col.AbsentNote(res.Concept))
		}
		for i, h := range col.Hits {
			title := h.Title
			if io.colorOut {
				title = snippet.ANSIBold.Before + title + snippet.ANSIBold.After
			}
			fmt.Fprintf(io.Out, "%d. %s  (%s)\n   %s\n   %s\n", i+1, title, strings.Join(h.Matched, ", "), h.URL, h.Snippet)
		}
		fmt.Fprintln(io.Out)
	}
	printNotes(io.Out, res.Context)
	return nil
}
