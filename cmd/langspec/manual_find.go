package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/manual/find"
)

// defaultManualFindLimit is how many candidates manual find prints: a
// screen, where manual_hits pages 20 to a model.
const defaultManualFindLimit = 10

type manualFindOptions struct {
	*manualBase
	req     find.Request
	limit   int
	jsonOut bool
}

func newCmdManualFind(base *manualBase) *cobra.Command {
	opts := &manualFindOptions{manualBase: base}
	cmd := &cobra.Command{
		Use:   "find QUERY...",
		Short: "Collect everything about a topic in the manuals (manual_find)",
		Long: `Find collects the sections of the manuals about a topic, built not to miss
(as manual_find does): BM25 over headings, file names and text, normalised
and separator-free matching (Japanese text included), the synonym dictionary,
exception wording (except, 対象外, ただし…), headings with their subsections,
and a widening pass when too little is found.

Each candidate is printed best first with its manual id, path, node id,
lines and the first line that matched; read one with
'langspec manual read MANUAL_ID PATH --node NODE_ID'. The manuals' index is
brought up to date first (as 'langspec ingest manuals' does).`,
		Example: `  langspec manual find 給与
  langspec manual find 地震 保険金 --manual kasai-hoken
  langspec manual find "replication lag" --limit 3 --json`,
		Args: someArgs("manual find", "a query"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.req.Query = strings.Join(args, " ")
			if strings.TrimSpace(opts.req.Query) == "" {
				return usageErrorf("manual find needs a query")
			}
			if err := limitInRange(opts.limit, find.MaxHitsLimit); err != nil {
				return err
			}
			opts.folders = folderFlags(cmd)
			return runManualFind(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.req.ManualID, "manual", "", "only this manual (an id from manual list; default: every manual)")
	fl.StringArrayVar(&opts.req.Also, "also", nil, "another phrasing of the same question, in the manual's words, searched too and fused (repeat, up to 4)")
	fl.IntVarP(&opts.limit, "limit", "n", defaultManualFindLimit, fmt.Sprintf("candidates to print (1-%d)", find.MaxHitsLimit))
	fl.BoolVar(&opts.jsonOut, "json", false, `print JSON: {"summary": manual_find's result, "hits": manual_hits' page with snippets}`)
	return cmd
}

func runManualFind(ctx context.Context, opts *manualFindOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	// The best hits in the summary too, as manual_find shows them.
	opts.req.Hits = find.DefaultShownHits
	found, err := a.ManualFind(ctx, opts.req, opts.limit)
	if err != nil {
		return err
	}
	io := opts.io
	if opts.jsonOut {
		return writeJSON(io.Out, found)
	}
	sum, page := found.Summary, found.Hits
	for _, c := range sum.Corrections {
		fmt.Fprintf(io.ErrOut, "langspec: %q is not in the manuals searched; searched %q too\n", c.Word, c.To)
	}
	if page.Total == 0 {
		fmt.Fprintf(io.ErrOut, "langspec: nothing in the manuals matches %q\n", opts.req.Query)
		return nil
	}
	w := io.Out
	for i, c := range page.Candidates {
		fmt.Fprintf(w, "%d. %s  [%s]  (%s)\n   %s#%s, lines %d-%d\n", i+1, c.Title, c.ManualID, strings.Join(append(find.NotableStages(c.Stages), c.Phrasings...), ", "),
			c.Path, c.NodeID, c.LineStart, c.LineEnd)
		if c.Snippet != "" {
			fmt.Fprintf(w, "   line %d: %s\n", c.SnippetLine, c.Snippet)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d of %d candidates in %d files", len(page.Candidates), sum.Candidates, sum.Files)
	if page.NextOffset > 0 {
		fmt.Fprintf(w, " (more with --limit %d)", min(sum.Candidates, find.MaxHitsLimit))
	}
	fmt.Fprintln(w)
	// Only sections that could have ranked among these are worth a word:
	// those past the candidate cap ranked below all of them.
	if sum.Unsearched > 0 {
		fmt.Fprintf(w, "cut short (%s): %d sections that could rank among these were not searched\n", sum.CutoffReason, sum.Unsearched)
	}
	for _, warn := range sum.Warnings {
		fmt.Fprintf(w, "note: %s\n", warn)
	}
	printNotes(w, page.Context)
	first := page.Candidates[0]
	fmt.Fprintf(w, "read one: langspec manual read %s %s --node %s%s\n", shellQuote(first.ManualID), shellQuote(first.Path), shellQuote(first.NodeID), opts.folders)
	return nil
}
