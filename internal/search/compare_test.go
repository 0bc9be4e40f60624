package search_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/search"
)

// TestCompareSaysAbsent runs compare over the real Go spec embedded in the
// binary: a feature Go lacks gets a column said absent, with its nearest
// sections named in words; a feature the spec has a section on does not,
// and its section still comes first. The column's absence is the engine's
// (rank.Fits of the evidence), never decided here.
func TestCompareSaysAbsent(t *testing.T) {
	store := search.GoSpecStore(t)
	tests := []struct {
		concept string
		also    []string // the caller's other phrasings
		absent  bool
		first   string // the section that must come first ("" = any)
	}{
		{"defer statement", nil, false, "Defer_statements"},
		{"jump to a label with goto", nil, false, "Goto_statements"},
		{"integer overflow", nil, false, "Integer_overflow"},
		{"type assertion", nil, false, "Type_assertions"},
		{"destructor", nil, true, ""}, // no word of it in the spec
		{"build a list with a comprehension", nil, true, ""},
		{"embed assembly instructions inside a function", nil, true, ""},
		{"optional function arguments with default values", nil, true, ""},
		// Phrasings for every language at once (as fixtures/gold/also has
		// them): one names a feature Go has (a function declared without a
		// body), which alone must not make the column fit.
		{"embed assembly instructions inside a function", []string{"inline assembly asm! macro", "asm operands registers", "function declaration without body"}, true, ""},
		{"defer statement", []string{"deferred function calls", "run code when the surrounding function returns"}, false, "Defer_statements"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d phrasings", tt.concept, len(tt.also)), func(t *testing.T) {
			res, err := search.Compare(context.Background(), store, search.CompareRequest{Concept: tt.concept, Also: tt.also, Languages: []string{"go"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Columns) != 1 {
				t.Fatalf("%d columns, want 1", len(res.Columns))
			}
			col := res.Columns[0]
			if col.Absent != tt.absent || col.Absent == rank.Fits(col.Evidence, len(tt.also)) {
				t.Errorf("absent = %v (evidence %.3f), want %v", col.Absent, col.Evidence, tt.absent)
			}
			if tt.first != "" && (len(col.Hits) == 0 || col.Hits[0].SectionID != tt.first) {
				t.Errorf("first hit is not %s: %+v", tt.first, col.Hits)
			}
			note := col.AbsentNote(res.Concept)
			joined := strings.Join(res.Notices, "\n")
			switch {
			case !tt.absent && (note != "" || strings.Contains(joined, "has no section")):
				t.Errorf("a present column says it is absent: %q; notices %q", note, res.Notices)
			case tt.absent:
				want := `The Go Programming Language Specification has no section that clearly matches "` + tt.concept + `"`
				if !strings.HasPrefix(note, want) {
					t.Errorf("note = %q, want it to start %q", note, want)
				}
				if len(col.Hits) > 0 && !strings.Contains(note, "; nearest: "+col.Hits[0].Title+" ("+col.Hits[0].SectionID+")") {
					t.Errorf("note %q does not name the nearest section %s", note, col.Hits[0].SectionID)
				}
				if len(col.Hits) > 0 && !strings.Contains(joined, note) {
					t.Errorf("notices %q lack the note %q", res.Notices, note)
				}
			}
		})
	}
}

// TestCompareEvidenceIgnoresLimit: whether a column is absent does not
// depend on how many sections were asked for, and asking for more sections
// never changes those a smaller answer ranks first.
func TestCompareEvidenceIgnoresLimit(t *testing.T) {
	store := search.GoSpecStore(t)
	for _, concept := range []string{"defer statement", "destructor", "closures capturing variables", "send on a channel"} {
		var cols []search.CompareColumn
		for _, n := range []int{1, 3, 10} {
			res, err := search.Compare(context.Background(), store, search.CompareRequest{Concept: concept, Languages: []string{"go"}, PerDoc: n})
			if err != nil {
				t.Fatal(err)
			}
			cols = append(cols, res.Columns[0])
		}
		for i, c := range cols[1:] {
			if c.Absent != cols[0].Absent || c.Evidence != cols[0].Evidence {
				t.Errorf("%q: absent %v evidence %.3f with %d sections, %v %.3f with 1", concept, c.Absent, c.Evidence, []int{3, 10}[i], cols[0].Absent, cols[0].Evidence)
			}
			for k, h := range cols[0].Hits {
				if k < len(c.Hits) && c.Hits[k].SectionID != h.SectionID {
					t.Errorf("%q: hit %d is %s with more sections, %s with fewer", concept, k+1, c.Hits[k].SectionID, h.SectionID)
				}
			}
		}
	}
}
