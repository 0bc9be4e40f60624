package eval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/search"
)

// TestCompareGold runs the compare gold set over the real documents this
// machine has: each language's column is exactly what a search of that
// document alone ranks (its own statistics), and hit@5 per language holds
// its floor, with and without the phrasings a model wrote from the
// concepts alone. The figures were, 2026-11-27, over all 24 concepts:
// without phrasings Go 0.917, Rust 0.625, Python 0.714; with them 1.000,
// 1.000, 0.952 (docs/evaluation.md); the floors are about 0.05 lower
// (the pairs the gold says are absent have no section to rank and are left
// out). Then compare's columns are judged whole over compare.jsonl and
// compare-absent.jsonl: absent said where the gold says so, the first
// section expected elsewhere (CompareFit).
func TestCompareGold(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests real documents")
	}
	ctx := context.Background()
	a := app.New(app.Options{DBPath: filepath.Join(t.TempDir(), "compare.db")})
	t.Cleanup(func() { a.Close() })
	if _, _, err := a.SeededStore(ctx); err != nil {
		t.Fatal(err)
	}
	floors := map[string][2]float64{"go": {0.87, 0.95}, "rust": {0.58, 0.95}, "python": {0.66, 0.90}}
	stored := []string{"go"}
	for lang, from := range map[string]func() string{"rust": rustReferenceDir, "python": pythonReferenceDir} {
		if dir := from(); dir != "" {
			if _, err := a.Ingest(ctx, lang, "", ingest.Options{From: dir, Now: time.Now}); err != nil {
				t.Fatal(err)
			}
			stored = append(stored, lang)
		}
	}
	read := func(name string) []SearchCase {
		f, err := os.Open(filepath.Join(goldDir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cases, err := ReadCompareGold(f, name)
		if err != nil {
			t.Fatal(err)
		}
		return slices.DeleteFunc(cases, func(c SearchCase) bool { return !slices.Contains(stored, c.Language) })
	}
	cases := read("compare.jsonl")
	phrasings := readPhrasings(t, "compare.jsonl")
	searcher := func(ctx context.Context, language, concept string, also []string) ([]string, error) {
		res, err := a.Compare(ctx, search.CompareRequest{Concept: concept, Also: also, Languages: []string{language}, PerDoc: 10})
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, col := range res.Columns {
			alone, err := a.Search(ctx, search.Request{Query: concept, Also: also, Language: col.Language, Doc: col.Doc, Limit: 10})
			if err != nil {
				return nil, err
			}
			for i, h := range col.Hits {
				if i >= len(alone.Hits) || alone.Hits[i].SectionID != h.SectionID {
					t.Errorf("%q in %s: compare ranks %s at %d, a search of the document alone does not", concept, language, h.SectionID, i+1)
				}
				ids = append(ids, h.SectionID)
			}
		}
		return ids, nil
	}
	for i, mode := range []string{"question alone", "with phrasings"} {
		t.Run(mode, func(t *testing.T) {
			cs := slices.Clone(cases)
			if i == 1 {
				for j := range cs {
					cs[j].Also = phrasings[cs[j].CaseID]
				}
			}
			var reports []SearchReport
			for _, part := range Parts() {
				r, err := SpecSearch(ctx, searcher, cs, part)
				if err != nil {
					t.Fatal(err)
				}
				reports = append(reports, r)
			}
			var table bytes.Buffer
			WriteSearchTable(&table, "compare.jsonl ("+mode+")", reports)
			t.Log("\n" + table.String())
			for lang, tot := range reports[2].ByLanguage {
				if tot.Errors > 0 {
					t.Errorf("%s: %d cases failed", lang, tot.Errors)
				}
				if floor := floors[lang][i]; tot.HitAt5 < floor {
					t.Errorf("%s: hit@5 %.3f is below its floor %.2f", lang, tot.HitAt5, floor)
				}
			}
		})
	}
	// Each column judged whole, over both gold sets, question alone: right
	// when it says absent for a language the gold says has no section on
	// the concept, or does not and ranks an expected section first. The
	// figures were, 2026-12-04, over 132 pairs (all three languages):
	// first-right 0.477 (tune 0.489, held out 0.452), absent precision
	// 0.510, recall 0.781; the floors are about 0.05 lower. They hold only
	// with every language stored: with Go alone the pairs are others.
	t.Run("columns judged", func(t *testing.T) {
		all := append(slices.Clone(cases), read("compare-absent.jsonl")...)
		compare := func(ctx context.Context, language, concept string, also []string) (Column, error) {
			res, err := a.Compare(ctx, search.CompareRequest{Concept: concept, Also: also, Languages: []string{language}, PerDoc: 10})
			if err != nil {
				return Column{}, err
			}
			var col Column
			for _, c := range res.Columns {
				col.Absent = col.Absent || c.Absent
				col.Evidence = max(col.Evidence, c.Evidence)
				for _, h := range c.Hits {
					col.IDs = append(col.IDs, h.SectionID)
				}
			}
			return col, nil
		}
		var reports []FitReport
		for _, part := range Parts() {
			r, err := CompareFit(ctx, compare, all, part)
			if err != nil {
				t.Fatal(err)
			}
			reports = append(reports, r)
		}
		var table bytes.Buffer
		WriteFitTable(&table, "compare.jsonl, compare-absent.jsonl (question alone)", reports)
		t.Log("\n" + table.String())
		tot := reports[2].Totals
		if tot.Errors > 0 {
			t.Errorf("%d pairs failed", tot.Errors)
		}
		if len(stored) < 3 {
			t.Skipf("floors are for Go, Rust and Python together; stored: %v", stored)
		}
		for _, f := range []struct {
			name       string
			got, floor float64
		}{
			{"first-right", tot.FirstRight, 0.42},
			{"absent precision", tot.AbsentPrecision, 0.45},
			{"absent recall", tot.AbsentRecall, 0.70},
		} {
			if f.got < f.floor {
				t.Errorf("%s %.3f is below its floor %.2f", f.name, f.got, f.floor)
			}
		}
	})
}
