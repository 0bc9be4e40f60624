package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/search"
)

type sectionOptions struct {
	io      *ioStreams
	app     func() (*app.App, error)
	req     search.SectionRequest
	jsonOut bool
}

func newCmdSection(f *factory) *cobra.Command {
	opts := &sectionOptions{io: f.io, app: f.specApp}
	cmd := &cobra.Command{
		Use:   "section SECTION_ID",
		Short: "Print one section with its citation",
		Long: `Print a section's text, its path and canonical URL, and its subsections.
SECTION_ID is the id search prints (Slice_expressions); the title works too.`,
		Example: `  langspec section Slice_expressions
  langspec section "Slice expressions" --with-subsections --json`,
		Args: exactArgs(1, "one SECTION_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.req.SectionID = args[0]
			return runSection(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.req.Language, "lang", "", "language (needed only when several have the id)")
	fl.StringVar(&opts.req.Doc, "doc", "", "document within the language")
	fl.StringVar(&opts.req.Version, "version", "", "version (default: the latest complete one)")
	fl.BoolVar(&opts.req.WithSubsections, "with-subsections", false, "include the text of every subsection")
	fl.IntVar(&opts.req.Offset, "offset", 0, "first character to print (from a previous page's next offset)")
	fl.IntVar(&opts.req.MaxChars, "max-chars", 0, fmt.Sprintf("print at most this many characters (1-%d; default: all)", search.MaxPageChars))
	fl.BoolVar(&opts.jsonOut, "json", false, "print JSON")
	return cmd
}

func runSection(ctx context.Context, opts *sectionOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	res, err := a.Section(ctx, opts.req)
	if err != nil {
		return err
	}
	out := opts.io.Out
	if opts.jsonOut {
		return writeJSON(out, res)
	}
	c := res.Citation
	fmt.Fprintf(out, "%s  [%s %s %s]\n%s\n%s\n\n%s\n", c.Title, c.Language, c.Doc, c.Version, c.SectionPath, c.URL, res.Text)
	switch {
	case res.NextOffset > 0:
		fmt.Fprintf(out, "\n[characters %d–%d of %d; read on with --offset %d]\n", res.Offset, res.NextOffset, res.TotalChars, res.NextOffset)
	case res.Notice != "":
		fmt.Fprintf(out, "\n[%s]\n", res.Notice)
	}
	if len(res.Children) > 0 {
		fmt.Fprintln(out, "\nSubsections:")
		for _, ch := range res.Children {
			fmt.Fprintf(out, "  %-40s %s\n", ch.SectionID, ch.Title)
		}
	}
	printNotes(out, res.Context)
	return nil
}
