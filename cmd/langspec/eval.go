package main

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/eval"
)

type evalOptions struct {
	io      *ioStreams
	logger  *slog.Logger
	ws      workspaceFlags
	gold    string
	also    string
	context string // context notes, as langspec.json's "context" writes them
	modes   []string
	jsonOut bool
}

func newCmdEval(f *factory) *cobra.Command {
	cmd := asGroup(&cobra.Command{
		Use:   "eval",
		Short: "Measure search quality against a gold set",
	})
	cmd.AddCommand(newCmdEvalManualFind(f), newCmdEvalSearch(f), newCmdEvalCompare(f))
	return cmd
}

func newCmdEvalManualFind(f *factory) *cobra.Command {
	opts := &evalOptions{io: f.io, logger: f.logger}
	cmd := &cobra.Command{
		Use:   "manual-find --gold FILE.jsonl",
		Short: "Run manual_find over a gold set and report recall, precision and tokens",
		Long: `Eval runs every case of a gold file through manual_find over the manuals in
MANUALS_ROOT, as serve would, and reports per mode and facet:

  recall      share of expected_paths some candidate lies in (at the candidate cap)
  precision   share of the first 10 candidates that lie in an expected path
  forbidden   first-page candidates lying in a forbidden path (summed)
  req_terms   share of required_terms found in the candidates' text
  tokens      est_tokens of manual_find plus the first manual_hits page
  p50_ms      median manual_find time

Modes: staged (manual_find as served), bm25-terms (BM25 over the terms
manual_find extracts, any of them: stage 0 as it was before the ranking
engine) and bm25 (plain BM25 over the words of the query as typed, any of
them), so the gain of the staged search is visible.

A gold line is {"case_id", "query", "manual_id", "expected_paths": [...],
"forbidden_paths": [...], "required_terms": [...], "facet"}; paths are
relative to MANUALS_ROOT/<manual_id>/, "file.md" for any section of the file,
"file.md#node_id" for a section or its subsections. The manuals are indexed
into a temporary database; the gold run writes no statistics, and reads no
context notes but those of --context (a JSON object as langspec.json's
"context"), so its figures do not depend on the user's state.`,
		Example: `  langspec eval manual-find --gold fixtures/gold/ops-handbook.jsonl --manuals-root fixtures/manuals
  langspec eval manual-find --gold my-gold.jsonl --mode staged --json`,
		Args: exactArgs(0, "no arguments; give the gold file with --gold"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.gold == "" {
				return usageErrorf("--gold FILE.jsonl is required")
			}
			for _, m := range opts.modes {
				if !slices.Contains(eval.Modes(), m) {
					return usageErrorf("--mode %q is not a mode; use %s", m, strings.Join(eval.Modes(), ", "))
				}
			}
			return runEval(cmd.Context(), opts)
		},
	}
	opts.ws.addManualFlags(cmd, f)
	fl := cmd.Flags()
	fl.StringVar(&opts.gold, "gold", "", "gold file, JSON Lines")
	fl.StringVar(&opts.also, "also", "", `phrasings a calling model sends beside each question, JSON Lines of {"case_id", "also": [...]}`)
	fl.StringVar(&opts.context, "context", "", `context notes to search with, a JSON object {"TARGET": {"text": …, "aside": true}} as langspec.json's "context"`)
	fl.StringSliceVar(&opts.modes, "mode", eval.Modes(), "modes to run: "+strings.Join(eval.Modes(), ", "))
	fl.BoolVar(&opts.jsonOut, "json", false, "print the reports as JSON")
	return cmd
}

func runEval(ctx context.Context, opts *evalOptions) error {
	cases, err := eval.ReadManualFindCases(opts.gold, opts.also)
	if err != nil {
		return err
	}
	ws, err := opts.ws.Resolve(false)
	if err != nil {
		return err
	}
	finder, done, err := app.GoldFinder(ctx, ws, opts.logger, opts.context)
	if err != nil {
		return err
	}
	defer done()
	reports, err := eval.RunManualFind(ctx, finder, cases, opts.modes)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(opts.io.Out, reports)
	}
	eval.WriteTable(opts.io.Out, opts.gold, reports)
	return nil
}
