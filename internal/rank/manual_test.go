package rank

import "testing"

func TestSightingWeight(t *testing.T) {
	tests := []struct {
		name string
		s    Sighting
		want float64
	}{
		{"as written", Sighting{Where: WhereText}, 1},
		{"in the heading", Sighting{Where: WhereHeading}, 1},
		{"without separators", Sighting{Where: WhereText, Loose: true}, 0.9},
		{"a synonym", Sighting{Where: WhereText, Synonym: true}, 0.8},
		{"a heading within the term", Sighting{Where: WhereHeadingWithin}, 0.6},
		{"a synonym's heading within", Sighting{Where: WhereHeadingWithin, Synonym: true}, 0.6 * 0.8},
		{"under the heading", Sighting{Where: WhereUnderHeading, Depth: 1}, 0.6},
		{"two levels under", Sighting{Where: WhereUnderHeading, Depth: 2}, 0.3},
		{"a near heading", Sighting{Where: WhereNearHeading}, 0.4},
		{"a fragment", Sighting{Where: WhereFragment}, 0.3},
	}
	for _, tt := range tests {
		if got := tt.s.Weight(); got != tt.want {
			t.Errorf("%s: weight %v, want %v", tt.name, got, tt.want)
		}
	}
	if !(Sighting{Where: WhereText}).Better(Sighting{Where: WhereText, Synonym: true}) {
		t.Error("the term as written is not better than its synonym")
	}
}

func TestManualScore(t *testing.T) {
	text := TermEvidence{IDF: 2, Best: Sighting{Where: WhereText}}
	tests := []struct {
		name string
		e    ManualEvidence
		want float64
	}{
		{"a term, its rarity", ManualEvidence{Terms: []TermEvidence{text}}, 2},
		{"the word channel adds its share", ManualEvidence{Words: 0.5, Terms: []TermEvidence{text}}, 2.5},
		{"a heading naming a term adds half its idf", ManualEvidence{Named: []float64{2}, Terms: []TermEvidence{text}}, 3},
		{"an unknown idf counts 1", ManualEvidence{Terms: []TermEvidence{{Best: Sighting{Where: WhereFragment}}}}, 0.3},
		{"found as context only", ManualEvidence{}, 0.2},
		{"exceptions asked, and stated", ManualEvidence{Asked: AskExceptions, HasExceptions: true}, 1.2},
		{"a procedure asked, a list", ManualEvidence{Asked: AskProcedure, IsList: true, Terms: []TermEvidence{text}}, 2.5},
		{"a definition asked, found by heading", ManualEvidence{Asked: AskDefinition, ByHeading: true, Terms: []TermEvidence{text}}, 2.5},
		{"a definition asked, by heading but no term", ManualEvidence{Asked: AskDefinition, ByHeading: true}, 0.2},
		{"rounded to thousandths", ManualEvidence{Words: 1.0 / 3}, 0.533},
	}
	for _, tt := range tests {
		if got := ManualScore(tt.e); got != tt.want {
			t.Errorf("%s: score %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestManualIDF(t *testing.T) {
	if ManualIDF(100, 1) <= ManualIDF(100, 50) {
		t.Error("a term in one section of 100 says no more than one in 50")
	}
	if ManualIDF(100, 100) <= 0 {
		t.Error("a term in every section weighs nothing")
	}
}

// TestShareOf: every list of phrasings is fused in shares of its best, so a
// list's scale says nothing; a list that says nothing by its scores counts
// each entry alike.
func TestShareOf(t *testing.T) {
	tests := []struct {
		name        string
		score, best float64
		n           int
		want        float64
	}{
		{"the best is 1", 7.42, 7.42, 3, 1},
		{"half the best", 0.015, 0.03, 3, 0.5},
		{"scale does not matter", 3.71, 7.42, 3, 0.5},
		{"scores all 0: 1/n each", 0, 0, 4, 0.25},
		{"an empty list's best", 0, 0, 0, 1},
	}
	for _, tt := range tests {
		if got := ShareOf(tt.score, tt.best, tt.n); got != tt.want {
			t.Errorf("%s: ShareOf(%v, %v, %d) = %v, want %v", tt.name, tt.score, tt.best, tt.n, got, tt.want)
		}
	}
}
