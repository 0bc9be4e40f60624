package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/specdiff"
)

type sinceOptions struct {
	io      *ioStreams
	app     func() (*app.App, error)
	req     specdiff.SinceRequest
	jsonOut bool
}

func newCmdSince(f *factory) *cobra.Command {
	opts := &sinceOptions{io: f.io, app: f.specApp}
	cmd := &cobra.Command{
		Use:   "since LANGUAGE (--section ID | --query WORDS)",
		Short: "When each rule of a section came into a specification",
		Long: `Since walks every stored complete version of a document, oldest first,
compares each with the next as 'langspec diff' does, and dates the sentences
of one section (--section, an id or title in any version) or of the sections
a search finds in the newest version (--query): the release each first
appeared in, was last reworded in (by more than an editorial edit), moved in
from another section, or was removed in, with citations. A sentence dated to
the oldest stored version may be older still; the rest of the section is
counted as unchanged since then.`,
		Example: `  langspec since go --section For_range
  langspec since go --query "range over an integer"`,
		Args: exactArgs(1, "the LANGUAGE whose history to read"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.req.Language = args[0]
			if (opts.req.SectionID == "") == (opts.req.Query == "") {
				return usageErrorf("give --section for one section or --query for the sections about a topic (one of the two)")
			}
			return runSince(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.req.Doc, "doc", "", "document, when the language has several")
	fl.StringVar(&opts.req.SectionID, "section", "", "the section (id or title, in any stored version)")
	fl.StringVar(&opts.req.Query, "query", "", "the sections these words find in the newest version")
	fl.BoolVar(&opts.jsonOut, "json", false, "print the answer as JSON")
	return cmd
}

func runSince(ctx context.Context, opts *sinceOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	ans, err := a.Since(ctx, opts.req)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(opts.io.Out, ans)
	}
	// spec_diff's since text, with the flag in the hint.
	text := specdiff.SinceText(ans)
	text = moreSentencesRE.ReplaceAllStringFunc(text, func(m string) string {
		sub := moreSentencesRE.FindStringSubmatch(m)
		return fmt.Sprintf("(%s more: langspec since %s --section %s)", sub[1], shellQuote(ans.Language), shellQuote(sub[2]))
	})
	fmt.Fprint(opts.io.Out, text)
	return nil
}
