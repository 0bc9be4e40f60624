package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/specdiff"
)

type diffOptions struct {
	f       *factory
	req     specdiff.Request
	jsonOut bool
}

func newCmdDiff(f *factory, runF func(context.Context, *diffOptions) error) *cobra.Command {
	opts := &diffOptions{f: f}
	cmd := &cobra.Command{
		Use:   "diff LANGUAGE [--from VERSION] [--to VERSION]",
		Short: "What changed in a specification between two stored versions",
		Long: `Diff compares two stored versions of a document (default: the two newest
complete ones) and prints the sections added, removed, renamed (matched by
anchor, then by title and text) and changed, counted by chapter, then a page
of them; a changed section shows its changed sentences with the words marked
[-old-]{+new+}, and both versions' citations.

--section narrows it to one section with all its changed sentences, --query
to the sections a search for those words finds in either version.

Versions come from 'langspec ingest' (--keep decides how many are kept); an
older one from its file: langspec ingest go --from go_spec.html
--version-label go1.21 (docs/search.md, "Older versions").`,
		Example: `  langspec diff go
  langspec diff go --from go1.21 --to go1.22 --query "loop variable"
  langspec diff rust --section "Integer overflow"
  langspec diff python --json`,
		Args: exactArgs(1, "the LANGUAGE whose versions to compare"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.req.Language = args[0]
			if err := limitInRange(opts.req.Limit, specdiff.MaxLimit); err != nil {
				return err
			}
			if opts.req.Offset < 0 {
				return usageErrorf("--offset %d is negative", opts.req.Offset)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDiff(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.req.Doc, "doc", "", "document, when the language has several")
	fl.StringVar(&opts.req.From, "from", "", "the older version (default: the one before --to)")
	fl.StringVar(&opts.req.To, "to", "", "the newer version (default: the newest)")
	fl.StringVar(&opts.req.SectionID, "section", "", "only this section (id or title), with all its changed sentences")
	fl.StringVar(&opts.req.Query, "query", "", "only the sections these words find in either version")
	fl.IntVar(&opts.req.Offset, "offset", 0, "first changed section to print")
	fl.IntVarP(&opts.req.Limit, "limit", "n", specdiff.DefaultLimit, fmt.Sprintf("changed sections to print (1-%d)", specdiff.MaxLimit))
	fl.BoolVar(&opts.jsonOut, "json", false, "print the diff as JSON")
	return cmd
}

func runDiff(ctx context.Context, opts *diffOptions) error {
	a := opts.f.specApp()
	defer a.Close()
	ans, err := a.Diff(ctx, opts.req)
	if err != nil {
		return err
	}
	out := opts.f.io.Out
	if opts.jsonOut {
		return writeJSON(out, ans)
	}
	s := ans.Summary
	fmt.Fprintf(out, "%s/%s %s → %s (%s)\n", ans.Language, ans.Doc, ans.From.Version, ans.To.Version, ans.Scope)
	for _, n := range ans.Notices {
		fmt.Fprintf(opts.f.io.ErrOut, "langspec: %s\n", n)
	}
	if ans.Unchanged {
		fmt.Fprintln(out, "nothing changed")
		printNotes(out, ans.Context)
		return nil
	}
	fmt.Fprintf(out, "%d added, %d removed, %d renamed, %d changed, %d unchanged\n", s.Added, s.Removed, s.Renamed, s.Changed, s.Unchanged)
	if len(s.Chapters) > 1 {
		for _, c := range s.Chapters {
			title := c.Title
			if title == "" {
				title = c.ID
			}
			fmt.Fprintf(out, "  %-40s %s\n", title, c.Counts())
		}
	}
	width := max(len(ans.From.Version), len(ans.To.Version))
	for i, it := range ans.Items {
		fmt.Fprintf(out, "\n%d. %s: %s\n", ans.Offset+i+1, it.Kind, it.Name())
		if it.Old != nil {
			fmt.Fprintf(out, "   %-*s  %s\n", width, ans.From.Version, it.Old.URL)
		}
		if it.New != nil {
			fmt.Fprintf(out, "   %-*s  %s\n", width, ans.To.Version, it.New.URL)
		}
		for _, sc := range it.Sentences {
			switch sc.Kind {
			case specdiff.KindChanged:
				fmt.Fprintf(out, "   ~ %s\n", sc.Marked)
			case specdiff.KindRemoved:
				fmt.Fprintf(out, "   - %s\n", sc.Old)
			case specdiff.KindAdded:
				fmt.Fprintf(out, "   + %s\n", sc.New)
			}
		}
		if it.MoreSentences > 0 {
			fmt.Fprintf(out, "   … %d more: langspec diff %s --section %s\n", it.MoreSentences, ans.Language, shellQuote(it.ID()))
		}
	}
	if ans.Next > 0 {
		fmt.Fprintf(out, "\n%d–%d of %d changed sections; more with --offset %d\n", ans.Offset+1, ans.Next, ans.Total, ans.Next)
	}
	printNotes(out, ans.Context)
	return nil
}
