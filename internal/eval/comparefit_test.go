package eval

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

func TestReadCompareGoldAbsent(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"case_id":"a","concept":"goto","expected":{"go":["X"]},"absent":["go"]}`, "go is both expected and absent"},
		{`{"case_id":"a","concept":"goto","expected":{},"absent":[]}`, "missing expected"},
		{`{"case_id":"a","concept":"goto","absent":["rust","rust"]}`, "repeated"},
		{`{"case_id":"a","concept":"goto","absent":[""]}`, "empty"},
	}
	for _, tt := range tests {
		_, err := ReadCompareGold(strings.NewReader(tt.text), "c.jsonl")
		if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.text, err, tt.want)
		}
	}
	cases, err := ReadCompareGold(strings.NewReader(`{"case_id":"a","concept":"goto","expected":{"go":["Goto_statements"]},"absent":["rust","python"]}
{"case_id":"b","concept":"macros","absent":["go"]}`), "c.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cases {
		got = append(got, c.CaseID+"/"+c.Language+"/"+strings.Join(c.Expected, ",")+"/"+map[bool]string{true: "absent"}[c.Absent])
	}
	want := []string{"a/go/Goto_statements/", "a/python//absent", "a/rust//absent", "b/go//absent"}
	if !slices.Equal(got, want) {
		t.Errorf("cases %q, want %q", got, want)
	}
	// Ranking measures leave the absent pairs out: they have no section.
	rep, err := SpecSearch(context.Background(), func(context.Context, string, string, []string) ([]string, error) {
		return []string{"Goto_statements"}, nil
	}, cases, PartAll)
	if err != nil || rep.Totals.Cases != 1 || rep.Totals.HitAt1 != 1 {
		t.Errorf("ranking over absent pairs: %+v %v", rep.Totals, err)
	}
}

func TestCompareFitJudgesColumnsWhole(t *testing.T) {
	cases := []SearchCase{
		{CaseID: "p-right", Language: "go", Query: "present, first expected", Expected: []string{"A"}},
		{CaseID: "p-second", Language: "go", Query: "present, expected second", Expected: []string{"A"}},
		{CaseID: "p-said", Language: "rust", Query: "present, said absent", Expected: []string{"A"}},
		{CaseID: "a-said", Language: "rust", Query: "absent, said", Absent: true},
		{CaseID: "a-missed", Language: "python", Query: "absent, not said", Absent: true},
		{CaseID: "a-error", Language: "python", Query: "absent, error", Absent: true},
	}
	answers := map[string]Column{
		"present, first expected":  {IDs: []string{"A", "B"}},
		"present, expected second": {IDs: []string{"B", "A"}},
		"present, said absent":     {IDs: []string{"A"}, Absent: true}, // right section, wrong word: wrong
		"absent, said":             {IDs: []string{"B"}, Absent: true},
		"absent, not said":         {IDs: []string{"B"}},
	}
	compare := func(_ context.Context, _, concept string, _ []string) (Column, error) {
		if c, ok := answers[concept]; ok {
			return c, nil
		}
		return Column{Absent: true}, errors.New("boom") // an error is wrong, whatever it says
	}
	rep, err := CompareFit(context.Background(), compare, cases, PartAll)
	if err != nil {
		t.Fatal(err)
	}
	var right []string
	for _, c := range rep.Cases {
		if c.Right {
			right = append(right, c.CaseID)
		}
	}
	if want := []string{"p-right", "a-said"}; !slices.Equal(right, want) {
		t.Errorf("right: %q, want %q", right, want)
	}
	want := FitTotals{Pairs: 6, FirstRight: 0.333, Present: 3, PresentRight: 0.333, Absent: 3, SaidAbsent: 3,
		AbsentPrecision: 0.667, AbsentRecall: 0.667, Errors: 1}
	if rep.Totals != want {
		t.Errorf("totals %+v, want %+v", rep.Totals, want)
	}
	if g := rep.ByLanguage["rust"]; g.Pairs != 2 || g.FirstRight != 0.5 || g.AbsentPrecision != 0.5 || g.AbsentRecall != 1 {
		t.Errorf("rust %+v", g)
	}
	var b bytes.Buffer
	WriteFitTable(&b, "c.jsonl", []FitReport{rep})
	for _, s := range []string{"first_right", "lang:rust", `p-said rust   "present, said absent"  said absent`, `a-missed python "absent, not said"  absent, not said`} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, b.String())
		}
	}
	if _, err := CompareFit(context.Background(), compare, cases, "most"); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("unknown part: %v", err)
	}
}
