package eval

import (
	"context"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/spec"
)

// The gold, phrasing and note files a run reads, by name: one error each
// for a file that is not there or not what it should be, whichever front
// end runs the evaluation.

// ReadGoldFile reads a manual_find gold file (ReadGold). Errors: not_found
// for a file that cannot be opened; those of ReadGold.
func ReadGoldFile(name string) ([]GoldCase, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.NotFound, "pass --gold with an existing JSON Lines file", "cannot open gold file %s", name)
	}
	defer f.Close()
	return ReadGold(f, filepath.Base(name))
}

// ReadSearchGoldFiles reads spec search gold files (ReadSearchGold), or
// with compare compare's (ReadCompareGold), into one list of cases.
func ReadSearchGoldFiles(names []string, compare bool) ([]SearchCase, error) {
	var cases []SearchCase
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.NotFound, "pass --gold with an existing JSON Lines file", "cannot open gold file %s", name)
		}
		read := ReadSearchGold
		if compare {
			read = ReadCompareGold
		}
		cs, err := read(f, filepath.Base(name))
		f.Close()
		if err != nil {
			return nil, err
		}
		cases = append(cases, cs...)
	}
	return cases, nil
}

// ReadAlsoFiles reads phrasings files (ReadAlso) into one map, and refuses
// a file that names a case none of ids has: written for another gold set,
// or out of date.
func ReadAlsoFiles(names []string, ids iter.Seq[string]) (map[string][]string, error) {
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
		also, err := ReadAlso(af, filepath.Base(name))
		af.Close()
		if err != nil {
			return nil, err
		}
		if unknown := UnknownAlso(also, known); len(unknown) > 0 {
			slices.Sort(unknown)
			return nil, apperr.New(apperr.InvalidArgument, "give --also the phrasings of the gold files given with --gold",
				"%s names %d cases no gold file has, e.g. %q", name, len(unknown), unknown[0])
		}
		maps.Copy(all, also)
	}
	return all, nil
}

// ReadManualFindCases reads a manual_find gold file, with the phrasings
// of the file also names beside each question ("": none).
func ReadManualFindCases(gold, also string) ([]GoldCase, error) {
	cases, err := ReadGoldFile(gold)
	if err != nil || also == "" {
		return cases, err
	}
	phrasings, err := ReadAlsoFiles([]string{also}, func(yield func(string) bool) {
		for _, c := range cases {
			if !yield(c.CaseID) {
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for i := range cases {
		cases[i].Also = phrasings[cases[i].CaseID]
	}
	return cases, nil
}

// RunManualFind runs every case through f, once per mode (Modes). f should
// be over a store of its own that records no statistics (app.GoldFinder),
// so that the figures do not depend on the user's state.
func RunManualFind(ctx context.Context, f *find.Finder, cases []GoldCase, modes []string) ([]ModeReport, error) {
	var reports []ModeReport
	for _, m := range modes {
		r, err := ManualFind(ctx, f, cases, m)
		if err != nil {
			return nil, err
		}
		reports = append(reports, r)
	}
	return reports, nil
}

// SearchRun is a run of spec search or compare over gold files (`langspec
// eval search`, `eval compare`).
type SearchRun struct {
	Gold    []string // gold files, JSON Lines
	Also    []string // phrasings files
	Parts   []string // Parts
	Compare bool     // the gold files are compare's; the answers come from Compare
}

// SearchRunResult is what a SearchRun measured, and the cases it left out.
type SearchRunResult struct {
	Reports []SearchReport
	// Fit is compare's columns judged whole, per part (CompareFit): a
	// compare run only.
	Fit []FitReport
	// Skipped counts the cases of each language the store does not hold.
	Skipped map[string]int
}

// RunSearch runs every case of the gold files through specs' Search (10
// hits, as search_spec answers) or Compare (10 sections a document), the
// calls every front end makes, per part; with a semantic channel
// configured, each part again with it, beside the lexical one. Errors:
// not_found when no case names a stored language, and those of the files.
func RunSearch(ctx context.Context, specs *spec.Service, run SearchRun) (SearchRunResult, error) {
	cases, err := ReadSearchGoldFiles(run.Gold, run.Compare)
	if err != nil {
		return SearchRunResult{}, err
	}
	also, err := ReadAlsoFiles(run.Also, func(yield func(string) bool) {
		for _, c := range cases {
			if !yield(c.CaseID) {
				return
			}
		}
	})
	if err != nil {
		return SearchRunResult{}, err
	}
	for i := range cases {
		cases[i].Also = also[cases[i].CaseID]
	}
	versions, err := specs.Versions(ctx, "")
	if err != nil {
		return SearchRunResult{}, err
	}
	stored := map[string]bool{}
	for _, v := range versions {
		stored[v.Language] = true
	}
	out := SearchRunResult{Skipped: map[string]int{}}
	cases = slices.DeleteFunc(cases, func(c SearchCase) bool {
		if !stored[c.Language] {
			out.Skipped[c.Language]++
			return true
		}
		return false
	})
	if len(cases) == 0 {
		return out, apperr.New(apperr.NotFound, "ingest the languages the gold files name", "no gold case names a stored language")
	}
	comparer := func(lexical bool) Comparer {
		return func(ctx context.Context, language, concept string, also []string) (Column, error) {
			res, err := specs.Compare(ctx, search.CompareRequest{Concept: concept, Also: also, Languages: []string{language}, PerDoc: 10, Lexical: lexical})
			var out Column
			for _, col := range res.Columns {
				out.Absent = out.Absent || col.Absent
				out.Evidence = max(out.Evidence, col.Evidence)
				for _, h := range col.Hits {
					out.IDs = append(out.IDs, h.SectionID)
				}
			}
			return out, err
		}
	}
	searcher := func(lexical bool) Searcher {
		return func(ctx context.Context, language, query string, also []string) ([]string, error) {
			if run.Compare {
				col, err := comparer(lexical)(ctx, language, query, also)
				return col.IDs, err
			}
			res, err := specs.Search(ctx, search.Request{Query: query, Also: also, Language: language, Limit: 10, Lexical: lexical})
			ids := make([]string, len(res.Hits))
			for i, h := range res.Hits {
				ids[i] = h.SectionID
			}
			return ids, err
		}
	}
	lexical := []bool{true}
	if specs.Semantic() != nil {
		// With an embeddings endpoint configured, each part again with the
		// semantic channel, beside it.
		lexical = append(lexical, false)
	}
	for _, part := range run.Parts {
		for _, lex := range lexical {
			name := part
			if !lex {
				name += "+semantic"
			}
			r, err := SpecSearch(ctx, searcher(lex), cases, part)
			if err != nil {
				return out, err
			}
			r.Part = name
			out.Reports = append(out.Reports, r)
			if run.Compare {
				f, err := CompareFit(ctx, comparer(lex), cases, part)
				if err != nil {
					return out, err
				}
				f.Part = name
				out.Fit = append(out.Fit, f)
			}
		}
	}
	return out, nil
}
