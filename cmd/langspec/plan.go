package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/plan"
)

type planOptions struct {
	io      *ioStreams
	app     func() (*app.App, error)
	req     plan.Request
	jsonOut bool
}

func newCmdPlan(f *factory) *cobra.Command {
	opts := &planOptions{io: f.io, app: f.specApp}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Split a specification into weeks of reading",
		Long: `Plan splits a specification into weeks of about equal reading time, in
document order. Focus areas (section titles, or words in them) move forward,
right after the introductory sections.`,
		Example: `  langspec plan --lang go --weeks 6
  langspec plan --lang go --focus Types,Statements --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlan(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.req.Language, "lang", "", "language (default: the only one stored, else go)")
	fl.StringVar(&opts.req.Doc, "doc", "", "document within the language")
	fl.StringVar(&opts.req.Version, "version", "", "version (default: the latest complete one)")
	fl.IntVar(&opts.req.Weeks, "weeks", plan.DefaultWeeks, fmt.Sprintf("number of weeks (1-%d)", plan.MaxWeeks))
	fl.StringSliceVar(&opts.req.Focus, "focus", nil, "comma-separated section titles to read early")
	fl.BoolVar(&opts.jsonOut, "json", false, "print JSON")
	return cmd
}

func runPlan(ctx context.Context, opts *planOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	p, err := a.Plan(ctx, opts.req)
	if err != nil {
		return err
	}
	out := opts.io.Out
	if opts.jsonOut {
		return writeJSON(out, p)
	}
	fmt.Fprintf(out, "Reading plan: %s %s %s, %d weeks, about %d minutes\n", p.Language, p.Doc, p.Version, p.TotalWeeks, p.TotalMinutes)
	for _, w := range p.Weeks {
		fmt.Fprintf(out, "\nWeek %d — %s (%d sections, about %d min)\n", w.Week, w.Theme, len(w.Sections), w.EstimatedMinutes)
		for _, s := range w.Sections {
			mark := " "
			if s.Focus {
				mark = "*"
			}
			fmt.Fprintf(out, "  %s %s  %s\n", mark, s.SectionPath, s.URL)
		}
	}
	if len(p.FocusAreas) > 0 {
		fmt.Fprintln(out, "\n* moved forward for focus areas")
	}
	return nil
}
