package rank

import (
	"slices"
	"testing"
)

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

func TestManualScores(t *testing.T) {
	text := TermEvidence{IDF: 2, Best: Sighting{Where: WhereText}}
	tests := []struct {
		name string
		e    ManualEvidence
		want ManualScores
	}{
		{"a term, its rarity", ManualEvidence{Terms: []TermEvidence{text}}, ManualScores{Terms: 2}},
		{"two terms add up", ManualEvidence{Terms: []TermEvidence{text, {IDF: 1, Best: Sighting{Where: WhereText, Synonym: true}}}}, ManualScores{Terms: 2.8}},
		{"a heading naming a term", ManualEvidence{Named: []float64{2}, Terms: []TermEvidence{text}}, ManualScores{Terms: 2, Named: 2}},
		{"an unknown idf counts 1", ManualEvidence{Terms: []TermEvidence{{Best: Sighting{Where: WhereFragment}}}}, ManualScores{Terms: 0.3}},
		{"found as context only", ManualEvidence{}, ManualScores{Terms: 0.2}},
		{"exceptions asked, and stated", ManualEvidence{Asked: AskExceptions, HasExceptions: true}, ManualScores{Terms: 0.2, Asked: 1}},
		{"exceptions asked, none stated", ManualEvidence{Asked: AskExceptions, Terms: []TermEvidence{text}}, ManualScores{Terms: 2}},
		{"a procedure asked, a list", ManualEvidence{Asked: AskProcedure, IsList: true, Terms: []TermEvidence{text}}, ManualScores{Terms: 2, Asked: 1}},
		{"a list, nothing asked", ManualEvidence{IsList: true, Terms: []TermEvidence{text}}, ManualScores{Terms: 2}},
		{"a definition asked, found by heading", ManualEvidence{Asked: AskDefinition, ByHeading: true, Terms: []TermEvidence{text}}, ManualScores{Terms: 2, Asked: 1}},
		{"a definition asked, by heading but no term", ManualEvidence{Asked: AskDefinition, ByHeading: true}, ManualScores{Terms: 0.2}},
	}
	for _, tt := range tests {
		if got := tt.e.Scores(); got != tt.want {
			t.Errorf("%s: scores %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestManualListsFuse: the stages' scores become lists Fuse weighs with the
// engine's, in shares of each list's best: a section holding the rare term
// beats one holding the common one however the engine's words ranked them,
// and a section the query names comes first whatever it holds.
func TestManualListsFuse(t *testing.T) {
	rare := ManualEvidence{Terms: []TermEvidence{{IDF: 3, Best: Sighting{Where: WhereText}}}}
	common := ManualEvidence{Terms: []TermEvidence{{IDF: 0.5, Best: Sighting{Where: WhereText}}}}
	lists := ManualLists(0, 3)
	rare.Scores().Lists(lists, 1)
	common.Scores().Lists(lists, 2)
	ManualEvidence{}.Scores().Lists(lists, 3)
	words := List{Channel: ChannelWords, Postings: []Posting{{ID: 2, Score: 9}, {ID: 1, Score: 6}}}
	e := New(ManualWeights())
	ids := func(hits []Hit) []int64 {
		var out []int64
		for _, h := range hits {
			out = append(out, h.ID)
		}
		return out
	}
	if got := ids(e.Fuse(append(lists, words), 10)); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Errorf("fused %v, want [1 2 3]: the rare term first, context last", got)
	}
	named := List{Channel: ChannelHeading, Postings: []Posting{{ID: 3, Score: TitleEquals}}}
	if got := ids(e.Fuse(append(lists, words, named), 10)); !slices.Equal(got, []int64{3, 1, 2}) {
		t.Errorf("fused %v, want [3 1 2]: the section the query names first", got)
	}
	// A section left unread that would hold the rare term twice over
	// bounds above every one found; one found as context, below them.
	if b, best := e.Bound(lists)(ManualScores{Terms: 6}), e.Fuse(lists, 1)[0].Score; b <= best {
		t.Errorf("bound %v of a section holding twice the best terms, not above the best %v", b, best)
	}
	if b, worst := e.Bound(lists)(ManualScores{Terms: 0.1}), e.Fuse(lists, 3)[2].Score; b >= worst {
		t.Errorf("bound %v of a section holding less than context, not below the last %v", b, worst)
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

// TestShareOf: every list is fused in shares of its best, so a
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
