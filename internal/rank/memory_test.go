package rank

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestMemorySource reads a MemorySource as the engine does: each method
// against what its sections hold.
func TestMemorySource(t *testing.T) {
	ctx := context.Background()
	src := memorySource(t,
		MemorySection{ID: 30, Title: "Change windows", Path: "ops.md", Body: "Deploys wait for the change window.\nFreeze on Fridays: x := f(a, b)"},
		MemorySection{ID: 10, Title: "Backups", Path: "backup.md", Body: "Nightly backups of the database; the window closes at six"},
		MemorySection{ID: 20, Title: "火災保険の約款", Path: "約款.md", Body: "保険金の支払い 対象外", Literal: "保険金の支払い 対象外"},
	)
	// Sections are in row id order: 10, 20, 30 are ordinals 0, 1, 2.
	layouts, _ := src.Layouts(ctx)
	if ids := layouts[memoryDoc].IDs; !slices.Equal(ids, []int64{10, 20, 30}) {
		t.Fatalf("layout ids %v", ids)
	}
	counts, _ := src.Counts(ctx, []string{"window", "backups", "nothing"})
	if counts.DF["window"] != 2 || counts.DF["backups"] != 1 || counts.DF["nothing"] != 0 || counts.Sections != 3 {
		t.Errorf("counts %+v", counts)
	}
	phrases := []struct {
		term   Term
		want   []int
		reason string
	}{
		{NewTerm("change window", false), []int{2}, "in the title and the text"},
		{NewTerm("window change", false), nil, "the words apart and out of order"},
		{NewTerm("the chang", true), []int{2}, "a prefix for its last word"},
		{NewTerm("the windows", true), []int{0}, "a prefix is stemmed, as FTS5 stems it: windows* is window*"},
		{NewTerm("the window", false), []int{0}, "next to each other only in the backups text"},
	}
	for _, tc := range phrases {
		got, err := src.Phrase(ctx, tc.term)
		if err != nil || !slices.Equal(got[memoryDoc], tc.want) {
			t.Errorf("Phrase(%q, prefix %v) = %v, %v; want %v (%s)", tc.term.Text, tc.term.Prefix, got, err, tc.want, tc.reason)
		}
	}
	if got, _ := src.PrefixTerms(ctx, "back"); !slices.Equal(got, []string{"backup"}) {
		t.Errorf("PrefixTerms(back) = %v", got)
	}
	if got, _ := src.Titles(ctx, []string{"window"}, 5); len(got) != 1 || got[0].ID != 30 {
		t.Errorf("Titles(window) = %v", got)
	}
	subs := []struct {
		needles []string
		want    []Occurrences
	}{
		{[]string{"window"}, []Occurrences{{ID: 10, Ord: 0, Body: 1}, {ID: 30, Ord: 2, Title: 1, Body: 1}}},
		{[]string{"保険金"}, []Occurrences{{ID: 20, Ord: 1, Body: 1}}},
		{[]string{"ops.md"}, []Occurrences{{ID: 30, Ord: 2, Path: 1}}},
	}
	for _, tc := range subs {
		if got, _ := src.Substrings(ctx, tc.needles); !slices.Equal(got, tc.want) {
			t.Errorf("Substrings(%q) = %+v, want %+v", tc.needles, got, tc.want)
		}
	}
	if got, _ := src.Shapes(ctx, []string{"x(x,x)"}); len(got) != 1 || got[0].ID != 30 {
		t.Errorf("Shapes = %+v", got)
	}
	if got, _ := src.ScanShapes(ctx, []string{":=", "x(x,x)"}); len(got) != 1 || got[0].ID != 30 || got[0].Body != 2 {
		t.Errorf("ScanShapes = %+v", got)
	}
	if got, _ := src.ScanShapes(ctx, []string{":=", "::"}); len(got) != 0 {
		t.Errorf("ScanShapes(every of := and ::) = %+v, want none", got)
	}
}

// TestMemorySourceRefusesRepeatedIDs: ids name the sections, once each.
func TestMemorySourceRefusesRepeatedIDs(t *testing.T) {
	if _, err := NewMemorySource(context.Background(), []MemorySection{{ID: 1, Title: "a"}, {ID: 1, Title: "b"}}); err == nil {
		t.Fatal("two sections of id 1 were taken")
	}
	m, err := NewMemorySource(context.Background(), nil)
	if err != nil {
		t.Fatalf("an empty source: %v", err)
	}
	if c, _ := m.Counts(context.Background(), []string{"a"}); c.Sections != 0 {
		t.Fatalf("an empty source counts %d sections", c.Sections)
	}
}

// TestMemorySourceStopsWhenCancelled: a build whose caller has given up
// (a vault_find out of time) ends with the context's error, not an index.
func TestMemorySourceStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if m, err := NewMemorySource(ctx, []MemorySection{{ID: 1, Body: "some text"}}); !errors.Is(err, context.Canceled) || m != nil {
		t.Fatalf("NewMemorySource after its context ended = %v, %v; want nil, context.Canceled", m, err)
	}
}

// TestLiteralBM25: with Weights.LiteralBM25 a literal scores as bm25
// scores a phrase — a rare run outweighs one every section holds, and a
// short section about it outweighs a long one holding it as often — where
// summed occurrences rank the long section first.
func TestLiteralBM25(t *testing.T) {
	ctx := context.Background()
	long := "保険金の支払い " + strings.Repeat("契約者 の 手続き について の 説明 ", 40)
	src := memorySource(t,
		MemorySection{ID: 1, Title: "支払", Body: long + " 保険金の支払い", Literal: long + " 保険金の支払い"},
		MemorySection{ID: 2, Title: "支払", Body: "保険金の支払い 保険金の支払い", Literal: "保険金の支払い 保険金の支払い"},
		MemorySection{ID: 3, Title: "約款", Body: "約款の条文 約款", Literal: "約款の条文 約款"},
		MemorySection{ID: 4, Title: "約款", Body: "約款 契約者", Literal: "約款 契約者"},
	)
	tests := []struct {
		bm25    bool
		needles []string
		first   int64
		why     string
	}{
		{false, []string{"保険金の支払い"}, 1, "summed: the long section holds it as often, and more besides"},
		{true, []string{"保険金の支払い"}, 2, "bm25: the short section about it"},
		{false, []string{"約款の条文", "契約者"}, 1, "summed: forty of a run half the sections hold"},
		{true, []string{"約款の条文", "契約者"}, 3, "bm25: the run one section holds outweighs the one half of them hold"},
	}
	for _, tc := range tests {
		w := ManualWeights()
		w.LiteralBM25 = tc.bm25
		got, err := substrings(ctx, src, tc.needles, w, 10)
		if err != nil || len(got) == 0 || got[0].ID != tc.first {
			t.Errorf("bm25 %v, %q: got %v, %v; want %d first (%s)", tc.bm25, tc.needles, got, err, tc.first, tc.why)
		}
	}
}

// TestLiteralBM25WithoutWords: a document of punctuation alone has no
// length to weigh by, and its literal is still found.
func TestLiteralBM25WithoutWords(t *testing.T) {
	src := memorySource(t, MemorySection{ID: 1, Body: "->> ->>"})
	got, err := substrings(context.Background(), src, []string{"->>"}, ManualWeights(), 10)
	if err != nil || len(got) != 1 || got[0].ID != 1 || got[0].Score <= 0 {
		t.Fatalf("got %v, %v; want section 1 with a score", got, err)
	}
}
