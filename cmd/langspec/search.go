package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/text/snippet"
)

type searchOptions struct {
	f       *factory
	req     search.Request
	jsonOut bool
}

func newCmdSearch(f *factory, runF func(context.Context, *searchOptions) error) *cobra.Command {
	opts := &searchOptions{f: f}
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Search specifications; print ranked sections with snippets",
		Long: `Search ranks sections by BM25 (title above path above body) and shows the
parts of each section that matched.

Words are matched by stem ("slices" finds "slice"), "quoted words" as a phrase,
and word* as a prefix. Operators and punctuation are plain text. When no
section has every word, langspec falls back to any word, then to substrings
(x.(T), <-chan, Japanese text), then to close spellings, and says which answered.`,
		Example: `  langspec search slice expressions
  langspec search '"type assertion"' --limit 3
  langspec search 'x.(T)' --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("search needs a query")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.req.Query = strings.Join(args, " ")
			// 0 means "default" to search.Search; on the command line it is a mistake.
			if opts.req.Limit < 1 || opts.req.Limit > search.MaxLimit {
				return usageErrorf("--limit %d is out of range; use 1 to %d", opts.req.Limit, search.MaxLimit)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSearch(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.req.Language, "lang", "", "language to search (default: all)")
	fl.StringVar(&opts.req.Doc, "doc", "", "document within the language (default: all)")
	fl.StringVar(&opts.req.Version, "version", "", "version (default: the latest complete one)")
	fl.StringVar(&opts.req.PathPrefix, "path-prefix", "", `only sections under this path, e.g. "Expressions"`)
	fl.IntVarP(&opts.req.Limit, "limit", "n", search.DefaultLimit, fmt.Sprintf("results to show (1-%d)", search.MaxLimit))
	fl.IntVar(&opts.req.Snippet.Chars, "snippet-chars", snippet.DefaultChars, "characters per snippet window")
	fl.IntVar(&opts.req.Snippet.Windows, "snippets", snippet.DefaultWindows, "snippet windows per result")
	fl.BoolVar(&opts.jsonOut, "json", false, "print a JSON array of citations")
	fl.StringArrayVar(&opts.req.Also, "also", nil, "another phrasing of the same question, ranked together with the query (repeat, up to 4)")
	return cmd
}

func runSearch(ctx context.Context, opts *searchOptions) error {
	io := opts.f.io
	switch {
	case opts.jsonOut:
		opts.req.Snippet.Mark = snippet.Markdown
	case io.colorOut:
		opts.req.Snippet.Mark = snippet.ANSIBold
	}
	a := opts.f.specApp()
	defer a.Close()
	res, err := a.Search(ctx, opts.req)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(io.Out, res.Hits)
	}
	for _, c := range res.Corrections {
		fmt.Fprintf(io.ErrOut, "langspec: %q is not in the documents; searched %q too\n", c.Word, c.To)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(io.ErrOut, "langspec: no sections match %q\n", res.Query)
		return nil
	}
	for i, h := range res.Hits {
		title := h.Title
		if io.colorOut {
			title = snippet.ANSIBold.Before + title + snippet.ANSIBold.After
		}
		fmt.Fprintf(io.Out, "%d. %s  [%s %s %s]  (%s)\n   %s\n   %s\n   %s\n\n", i+1, title, h.Language, h.Doc, h.Version,
			strings.Join(h.Matched, ", "), h.SectionPath, h.URL, h.Snippet)
	}
	noun := "results"
	if len(res.Hits) == 1 {
		noun = "result"
	}
	fmt.Fprintf(io.Out, "%d %s\n", len(res.Hits), noun)
	return nil
}
