package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/eval"
)

type evalSearchOptions struct {
	io      *ioStreams
	app     func() (*app.App, error)
	compare bool // the gold files are compare's; the answers come from compare
	gold    []string
	also    []string
	parts   []string
	jsonOut bool
}

func newCmdEvalSearch(f *factory) *cobra.Command {
	opts := &evalSearchOptions{io: f.io, app: f.plainApp}
	cmd := &cobra.Command{
		Use:   "search --gold FILE.jsonl [--gold FILE.jsonl...]",
		Short: "Run spec search over a gold set and report hit@1, hit@5, MRR@5 and nDCG@10",
		Long: `Eval search runs every case of the gold files through spec search, as
search_spec answers it (10 hits), over the documents stored in the database,
and reports per part, kind and language:

  hit@1, hit@5   share of cases whose first expected section is ranked first, or in the top 5
  mrr@5          mean reciprocal rank of the first expected section, 0 below rank 5
  ndcg@10        nDCG at 10, every expected section relevant
  p50_ms         median search time

then lists the cases not in the top 5. A gold line is {"case_id", "language",
"query", "expected": [section ids], "kind"} with kind paraphrase, term, typo or
multiword. Parts: a fixed third of the cases, chosen by a hash of case_id, is
held out ("heldout"); tune ranking on "tune" and report both. Cases of a
language the database does not hold are skipped, and the command says so.`,
		Example: `  langspec eval search --gold fixtures/gold/spec-go.jsonl
  langspec eval search --gold fixtures/gold/spec-go.jsonl --also fixtures/gold/also/spec-go.jsonl
  langspec ingest rust && langspec eval search --gold fixtures/gold/spec-go.jsonl --gold fixtures/gold/spec-rust.jsonl --json`,
		Args: exactArgs(0, "no arguments; give the gold files with --gold"),
		RunE: evalSearchRunE(opts),
	}
	addEvalSearchFlags(cmd, opts)
	return cmd
}

// evalSearchRunE checks eval search's and eval compare's flags and runs them.
func evalSearchRunE(opts *evalSearchOptions) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if len(opts.gold) == 0 {
			return usageErrorf("--gold FILE.jsonl is required")
		}
		for _, p := range opts.parts {
			if !slices.Contains(eval.Parts(), p) {
				return usageErrorf("--part %q is not a part; use %s", p, strings.Join(eval.Parts(), ", "))
			}
		}
		return runEvalSearch(cmd.Context(), opts)
	}
}

func addEvalSearchFlags(cmd *cobra.Command, opts *evalSearchOptions) {
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.gold, "gold", nil, "gold file, JSON Lines; repeat for several")
	fl.StringSliceVar(&opts.also, "also", nil, `phrasings a calling model sends beside each case, JSON Lines of {"case_id", "also": [...]}; repeat for several`)
	fl.StringSliceVar(&opts.parts, "part", eval.Parts(), "parts to report: "+strings.Join(eval.Parts(), ", "))
	fl.BoolVar(&opts.jsonOut, "json", false, "print the reports as JSON")
}

func runEvalSearch(ctx context.Context, opts *evalSearchOptions) error {
	a, err := opts.app() // the configuration says whether a semantic channel is there
	if err != nil {
		return err
	}
	defer a.Close()
	specs, err := a.Spec(ctx)
	if err != nil {
		return err
	}
	res, err := eval.RunSearch(ctx, specs, eval.SearchRun{Gold: opts.gold, Also: opts.also, Parts: opts.parts, Compare: opts.compare})
	for lang, n := range res.Skipped {
		fmt.Fprintf(opts.io.ErrOut, "langspec: skipped %d cases: language %q is not stored (langspec ingest %s)\n", n, lang, lang)
	}
	if err != nil {
		return err
	}
	gold := strings.Join(opts.gold, ", ")
	if opts.compare {
		if opts.jsonOut {
			return writeJSON(opts.io.Out, struct {
				Columns []eval.FitReport    `json:"columns"`
				Ranking []eval.SearchReport `json:"ranking"`
			}{res.Fit, res.Reports})
		}
		eval.WriteFitTable(opts.io.Out, gold, res.Fit)
		fmt.Fprintln(opts.io.Out)
		eval.WriteSearchTable(opts.io.Out, gold+" (ranking of the present pairs)", res.Reports)
		return nil
	}
	if opts.jsonOut {
		return writeJSON(opts.io.Out, res.Reports)
	}
	eval.WriteSearchTable(opts.io.Out, gold, res.Reports)
	return nil
}

func newCmdEvalCompare(f *factory) *cobra.Command {
	opts := &evalSearchOptions{io: f.io, app: f.plainApp, compare: true}
	cmd := &cobra.Command{
		Use:   "compare --gold FILE.jsonl",
		Short: "Run compare over a gold set and report first-right per language, absent precision and recall, hit@1 and hit@5",
		Long: `Eval compare runs every concept of a compare gold file through compare (as
the compare tool answers it, 10 sections per document) over the documents
stored, and judges each (concept, language) column whole:

  first_right     share of pairs judged right: for a language the gold says
                  is absent, compare said absent; otherwise it did not, and
                  its first section is expected
  present_right   the same over the present pairs
  abs_prec        share of the columns said absent that the gold says are
  abs_rec         share of the absent pairs said absent

then scores the present pairs' ranking as eval search scores a search
(hit@1, hit@5, mrr@5, ndcg@10). With --json: {"columns": [...], "ranking": [...]}.

A gold line is {"case_id", "concept", "expected": {"LANGUAGE": [section ids]},
"absent": [LANGUAGE]}, "absent" optional. A concept is tuned or held out
whole, by a hash of its case_id. Languages the database does not hold are
skipped, and the command says so.`,
		Example: `  langspec ingest rust && langspec ingest python
  langspec eval compare --gold fixtures/gold/compare.jsonl --gold fixtures/gold/compare-absent.jsonl`,
		Args: exactArgs(0, "no arguments; give the gold file with --gold"),
		RunE: evalSearchRunE(opts),
	}
	addEvalSearchFlags(cmd, opts)
	return cmd
}
