package main

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/eval"
	"github.com/langspec/langspec/internal/search"
)

type evalSearchOptions struct {
	f       *factory
	compare bool // the gold files are compare's; the answers come from compare
	gold    []string
	also    []string
	parts   []string
	jsonOut bool
}

func newCmdEvalSearch(f *factory, runF func(context.Context, *evalSearchOptions) error) *cobra.Command {
	opts := &evalSearchOptions{f: f}
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
		RunE: evalSearchRunE(opts, runF),
	}
	addEvalSearchFlags(cmd, opts)
	return cmd
}

// evalSearchRunE checks eval search's and eval compare's flags and runs them.
func evalSearchRunE(opts *evalSearchOptions, runF func(context.Context, *evalSearchOptions) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if len(opts.gold) == 0 {
			return usageErrorf("--gold FILE.jsonl is required")
		}
		for _, p := range opts.parts {
			if !slices.Contains(eval.Parts(), p) {
				return usageErrorf("--part %q is not a part; use %s", p, strings.Join(eval.Parts(), ", "))
			}
		}
		if runF != nil {
			return runF(cmd.Context(), opts)
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
	f := opts.f
	var cases []eval.SearchCase
	for _, name := range opts.gold {
		gf, err := os.Open(name)
		if err != nil {
			return apperr.Wrap(err, apperr.NotFound, "pass --gold with an existing JSON Lines file", "cannot open gold file %s", name)
		}
		read := eval.ReadSearchGold
		if opts.compare {
			read = eval.ReadCompareGold
		}
		cs, err := read(gf, filepath.Base(name))
		gf.Close()
		if err != nil {
			return err
		}
		cases = append(cases, cs...)
	}
	also, err := readAlsoFiles(opts.also, func(yield func(string) bool) {
		for _, c := range cases {
			if !yield(c.CaseID) {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	for i := range cases {
		cases[i].Also = also[cases[i].CaseID]
	}
	a, err := f.newApp(app.Workspace{}, nil) // the configuration says whether a semantic channel is there
	if err != nil {
		return err
	}
	defer a.Close()
	versions, err := a.Versions(ctx, "")
	if err != nil {
		return err
	}
	stored := map[string]bool{}
	for _, v := range versions {
		stored[v.Language] = true
	}
	skipped := map[string]int{}
	cases = slices.DeleteFunc(cases, func(c eval.SearchCase) bool {
		if !stored[c.Language] {
			skipped[c.Language]++
			return true
		}
		return false
	})
	for lang, n := range skipped {
		fmt.Fprintf(f.io.ErrOut, "langspec: skipped %d cases: language %q is not stored (langspec ingest %s)\n", n, lang, lang)
	}
	if len(cases) == 0 {
		return apperr.New(apperr.NotFound, "ingest the languages the gold files name", "no gold case names a stored language")
	}
	searcher := func(lexical bool) eval.Searcher {
		return func(ctx context.Context, language, query string, also []string) ([]string, error) {
			if opts.compare {
				res, err := a.Compare(ctx, search.CompareRequest{Concept: query, Also: also, Languages: []string{language}, PerDoc: 10, Lexical: lexical})
				var ids []string
				for _, col := range res.Columns {
					for _, h := range col.Hits {
						ids = append(ids, h.SectionID)
					}
				}
				return ids, err
			}
			res, err := a.Search(ctx, search.Request{Query: query, Also: also, Language: language, Limit: 10, Lexical: lexical})
			ids := make([]string, len(res.Hits))
			for i, h := range res.Hits {
				ids[i] = h.SectionID
			}
			return ids, err
		}
	}
	var reports []eval.SearchReport
	for _, part := range opts.parts {
		r, err := eval.SpecSearch(ctx, searcher(true), cases, part)
		if err != nil {
			return err
		}
		reports = append(reports, r)
		// With an embeddings endpoint configured, the same part again with
		// the semantic channel, beside it.
		if a.Semantic() != nil {
			r, err := eval.SpecSearch(ctx, searcher(false), cases, part)
			if err != nil {
				return err
			}
			r.Part += "+semantic"
			reports = append(reports, r)
		}
	}
	if opts.jsonOut {
		return writeJSON(f.io.Out, reports)
	}
	eval.WriteSearchTable(f.io.Out, strings.Join(opts.gold, ", "), reports)
	return nil
}

func newCmdEvalCompare(f *factory) *cobra.Command {
	opts := &evalSearchOptions{f: f, compare: true}
	cmd := &cobra.Command{
		Use:   "compare --gold FILE.jsonl",
		Short: "Run compare over a gold set and report, per language, hit@1, hit@5 and MRR@5",
		Long: `Eval compare runs every concept of a compare gold file through compare (as
the compare tool answers it, 10 sections per document) over the documents
stored, and scores each language's column as eval search scores a search:

  hit@1, hit@5   share of (concept, language) pairs whose first expected section is ranked first, or in the top 5
  mrr@5          mean reciprocal rank of the first expected section, 0 below rank 5

A gold line is {"case_id", "concept", "expected": {"LANGUAGE": [section ids]}}.
A concept is tuned or held out whole, by a hash of its case_id. Languages
the database does not hold are skipped, and the command says so.`,
		Example: `  langspec ingest rust && langspec ingest python
  langspec eval compare --gold fixtures/gold/compare.jsonl`,
		Args: exactArgs(0, "no arguments; give the gold file with --gold"),
		RunE: evalSearchRunE(opts, nil),
	}
	addEvalSearchFlags(cmd, opts)
	return cmd
}

// readAlsoFiles reads phrasings files (eval.ReadAlso) into one map, and
// refuses a file that names a case none of ids has: written for another
// gold set, or out of date.
func readAlsoFiles(names []string, ids iter.Seq[string]) (map[string][]string, error) {
	known := map[string]bool{}
	for id := range ids {
		known[id] = true
	}
	all := map[string][]string{}
	for _, name := range names {
		af, err := os.Open(name)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.NotFound, "pass --also with an existing JSON Lines file", "cannot open phrasings file %s", name)
		}
		also, err := eval.ReadAlso(af, filepath.Base(name))
		af.Close()
		if err != nil {
			return nil, err
		}
		if unknown := eval.UnknownAlso(also, known); len(unknown) > 0 {
			slices.Sort(unknown)
			return nil, apperr.New(apperr.InvalidArgument, "give --also the phrasings of the gold files given with --gold",
				"%s names %d cases no gold file has, e.g. %q", name, len(unknown), unknown[0])
		}
		maps.Copy(all, also)
	}
	return all, nil
}
