package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

func TestRankScores(t *testing.T) {
	tests := []struct {
		name     string
		got      []string
		expected []string
		rank     int
		rr5      float64
		ndcg     float64
	}{
		{"first", []string{"a", "b"}, []string{"a"}, 1, 1, 1},
		{"third", []string{"x", "y", "a"}, []string{"a"}, 3, 1.0 / 3, 1 / math.Log2(4)},
		{"sixth: no reciprocal rank at 5", []string{"1", "2", "3", "4", "5", "a"}, []string{"a"}, 6, 0, 1 / math.Log2(7)},
		{"missed", []string{"x"}, []string{"a"}, 0, 0, 0},
		{"nothing ranked", nil, []string{"a"}, 0, 0, 0},
		{"two relevant, both found", []string{"b", "a"}, []string{"a", "b"}, 1, 1, 1},
		{"two relevant, one found", []string{"a"}, []string{"a", "b"}, 1, 1, 1 / (1 + 1/math.Log2(3))},
		{"beyond 10 is a miss", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "a"}, []string{"a"}, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rank, rr5, ndcg := rankScores(tt.got, tt.expected)
			if rank != tt.rank || math.Abs(rr5-tt.rr5) > 1e-9 || math.Abs(ndcg-tt.ndcg) > 1e-9 {
				t.Errorf("rankScores = %d, %.4f, %.4f; want %d, %.4f, %.4f", rank, rr5, ndcg, tt.rank, tt.rr5, tt.ndcg)
			}
		})
	}
}

// The held-out third is fixed by case_id and is about a third.
func TestHeldOutIsAStableThird(t *testing.T) {
	n := 0
	for i := range 3000 {
		if HeldOut(fmt.Sprintf("case-%d", i)) {
			n++
		}
	}
	if n < 900 || n > 1100 {
		t.Errorf("%d of 3000 held out", n)
	}
	if HeldOut("go-001") != HeldOut("go-001") {
		t.Error("not deterministic")
	}
}

func TestSpecSearchTotals(t *testing.T) {
	var cases []SearchCase
	for i := range 30 {
		kind := KindTerm
		if i%2 == 0 {
			kind = KindParaphrase
		}
		cases = append(cases, SearchCase{CaseID: fmt.Sprintf("c%d", i), Language: "go", Query: fmt.Sprintf("q%d", i), Expected: []string{"want"}, Kind: kind})
	}
	// Paraphrases rank the answer first; terms miss, one with an error.
	search := func(_ context.Context, _, query string, _ []string) ([]string, error) {
		var i int
		fmt.Sscanf(query, "q%d", &i)
		switch {
		case i == 1:
			return nil, errors.New("boom")
		case i%2 == 0:
			return []string{"want", "other"}, nil
		}
		return []string{"other"}, nil
	}
	all, err := SpecSearch(context.Background(), search, cases, PartAll)
	if err != nil {
		t.Fatal(err)
	}
	if tt := all.Totals; tt.Cases != 30 || tt.HitAt1 != 0.5 || tt.HitAt5 != 0.5 || tt.MRRAt5 != 0.5 || tt.Errors != 1 {
		t.Errorf("totals %+v", tt)
	}
	if k := all.ByKind[KindParaphrase]; k.HitAt5 != 1 || k.Cases != 15 {
		t.Errorf("paraphrase %+v", k)
	}
	tune, _ := SpecSearch(context.Background(), search, cases, PartTune)
	held, _ := SpecSearch(context.Background(), search, cases, PartHeldOut)
	if tune.Totals.Cases+held.Totals.Cases != 30 || held.Totals.Cases == 0 || tune.Totals.Cases == 0 {
		t.Errorf("parts: %d tune + %d held out", tune.Totals.Cases, held.Totals.Cases)
	}
	for _, c := range held.Cases {
		if !HeldOut(c.CaseID) {
			t.Errorf("%s is in the held-out report but not held out", c.CaseID)
		}
	}
	if _, err := SpecSearch(context.Background(), search, cases, "most"); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("unknown part: %v", err)
	}
}

func TestReadSearchGoldRefusesBadLines(t *testing.T) {
	good := `{"case_id":"a","language":"go","query":"q","expected":["X"],"kind":"term"}`
	tests := []struct{ text, want string }{
		{`{"case_id":"a"`, "line 1"},
		{`{"case_id":"a","language":"go","query":"q","expected":[],"kind":"term"}`, "missing expected"},
		{`{"case_id":"a","language":"go","query":"q","expected":["X"],"kind":"vibes"}`, `kind "vibes"`},
		{good + "\n" + good, `case_id "a" already used on line 1`},
		{`{"case_id":"a","language":"go","query":"q","expected":["X"],"kind":"term","extra":1}`, "unknown field"},
		{"", "has no cases"},
	}
	for _, tt := range tests {
		_, err := ReadSearchGold(strings.NewReader(tt.text), "g.jsonl")
		if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.text, err, tt.want)
		}
	}
	cases, err := ReadSearchGold(strings.NewReader(good+"\n"), "g.jsonl")
	if err != nil || len(cases) != 1 {
		t.Errorf("good line: %v %v", cases, err)
	}
}
