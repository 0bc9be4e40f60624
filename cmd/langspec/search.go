package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/text/snippet"
)

type searchOptions struct {
	io      *ioStreams
	app     func() (*app.App, error)
	req     search.Request
	jsonOut bool
}

func newCmdSearch(f *factory, runF func(context.Context, *searchOptions) error) *cobra.Command {
	opts := &searchOptions{io: f.io, app: f.specApp}
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Search specifications; print ranked sections with snippets",
		Long: `Search ranks the sections of the stored specifications. Several channels run
at once and their scores are fused, so no channel hides another; each hit
says in parentheses which ones found it:

  words     the query's words by stem ("slices" finds "slice"), BM25 over
            title, path, body and the words other sections link it with
  title     (a label, not a channel) a query word is in the title or path
  related   the same, with the words specifications use for yours ("shut a
            chan" also searches close, channel; "-2**2" the power operator)
  literal   code and Japanese or Chinese text as written: x.(T), <-chan
  symbol    code of the same shape as a short code query: s[i:j:k]
  typo:W    W, the closest spelling of a word the documents do not hold
            (langspec says so on stderr)
  semantic  by meaning, when langspec.json configures an embeddings endpoint

Question words (how, what, the, …) are left out of the match. "quoted words"
are one term and word* a prefix; operators and punctuation are plain text.
--also adds other phrasings, ranked together with the query.

A query that starts with - goes after --, and flags before it:
langspec search -n 3 -- -2**2.
Manuals are searched with 'langspec manual find'.`,
		Example: `  langspec search slice expressions
  langspec search '"type assertion"' --limit 3
  langspec search 'x.(T)' --json
  langspec search -n 3 -- -2**2
  langspec search "shut a chan" --also "close channel"`,
		Args: someArgs("search", "a query"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.req.Query = strings.Join(args, " ")
			// 0 means "default" to search.Search; on the command line it is a mistake.
			if err := limitInRange(opts.req.Limit, search.MaxLimit); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSearch(cmd.Context(), opts)
		},
	}
	// A query that starts with - reads as flags; say how to search for it.
	cmd.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		if !strings.HasPrefix(err.Error(), "unknown ") || nearFlag(cmd, err) != "" { // "unknown flag", "unknown shorthand flag"
			return flagError(cmd, err)
		}
		return usageErrorf("%v; to search for text that starts with -, put -- before it: langspec search -- %s", err, dashedArg(err))
	})
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

// dashedArg is the argument a flag error names ("unknown shorthand flag:
// '2' in -2**2", "unknown flag: --release"), quoted for a shell; a
// placeholder when the error names none.
func dashedArg(err error) string {
	msg := err.Error()
	arg := ""
	if i := strings.LastIndex(msg, " in -"); i >= 0 {
		arg = msg[i+len(" in "):]
	} else if i := strings.LastIndex(msg, ": -"); i >= 0 {
		arg = msg[i+len(": "):]
	}
	if arg == "" || strings.ContainsAny(arg, " \t") {
		return "'-QUERY'"
	}
	return shellQuote(arg)
}

func runSearch(ctx context.Context, opts *searchOptions) error {
	io := opts.io
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
		if ids := a.ManualsAround(ctx); len(ids) > 0 {
			fmt.Fprintf(io.ErrOut, "langspec: search reads the specifications only; to search the manuals (%s), run: langspec manual find %s\n",
				strings.Join(ids, ", "), shellQuote(res.Query))
		}
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
	printNotes(io.Out, res.Context)
	return nil
}

// printNotes writes the context notes an answer carries, each once, with
// the results it covers.
func printNotes(w io.Writer, notes []contextnote.Covered) {
	if len(notes) == 0 {
		return
	}
	fmt.Fprintln(w, "\ncontext notes:")
	for _, n := range notes {
		hits := make([]string, len(n.Hits))
		for i, h := range n.Hits {
			hits[i] = strconv.Itoa(h)
		}
		aside := ""
		if n.Aside {
			aside = ", aside"
		}
		fmt.Fprintf(w, "  %s (results %s%s): %s\n", n.Target, strings.Join(hits, ","), aside, strings.ReplaceAll(n.Text, "\n", " "))
	}
}
