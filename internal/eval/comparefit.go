package eval

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
)

// A compare column is judged whole, as its reader takes it: right when it
// says absent for a language the gold says has no section about the
// concept, or when it does not say absent and its first section is one the
// gold expects. Ranking alone (SpecSearch) leaves the absent pairs out.

// Column is what a compare column answered for one pair: its sections,
// best first, and whether it said that none is about the concept.
type Column struct {
	IDs      []string
	Absent   bool
	Evidence float64 // what the absence was judged from (search.CompareColumn)
}

// Comparer runs one concept (with its other phrasings, if any) through
// compare for one language, as the system under test answers it.
type Comparer func(ctx context.Context, language, concept string, also []string) (Column, error)

// FitCaseResult is one (concept, language) pair's outcome.
type FitCaseResult struct {
	CaseID     string  `json:"case_id"`
	Language   string  `json:"language"`
	Concept    string  `json:"concept"`
	GoldAbsent bool    `json:"gold_absent"` // the gold says the language has no section about it
	SaidAbsent bool    `json:"said_absent"` // compare said so
	First      string  `json:"first,omitempty"`
	Evidence   float64 `json:"evidence"`
	// Right: said absent for an absent pair; not said absent, and the
	// first section expected, for a present one.
	Right    bool     `json:"right"`
	Expected []string `json:"expected,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// FitTotals are a report's counts and shares.
type FitTotals struct {
	Pairs      int     `json:"pairs"`
	FirstRight float64 `json:"first_right"` // share of pairs judged right
	Present    int     `json:"present"`
	// PresentRight is the share of present pairs not said absent with
	// their first section expected.
	PresentRight float64 `json:"present_right"`
	Absent       int     `json:"absent"`      // pairs the gold says absent
	SaidAbsent   int     `json:"said_absent"` // pairs compare said absent
	// AbsentPrecision is the share of the pairs said absent that are;
	// AbsentRecall the share of the absent pairs said so (0 when there are
	// none to divide by).
	AbsentPrecision float64 `json:"absent_precision"`
	AbsentRecall    float64 `json:"absent_recall"`
	Errors          int     `json:"errors"`
}

// FitReport is one part of a compare gold set judged column by column:
// totals, by language, and every pair.
type FitReport struct {
	Part       string               `json:"part"`
	Totals     FitTotals            `json:"totals"`
	ByLanguage map[string]FitTotals `json:"by_language"`
	Cases      []FitCaseResult      `json:"cases"`
}

// CompareFit runs the pairs of part through compare and judges each
// column. A pair whose compare fails counts as wrong, with its error.
func CompareFit(ctx context.Context, compare Comparer, cases []SearchCase, part string) (FitReport, error) {
	if !slices.Contains(Parts(), part) {
		return FitReport{}, apperr.New(apperr.InvalidArgument, "part is "+strings.Join(Parts(), ", "), "unknown part %q", part)
	}
	rep := FitReport{Part: part, ByLanguage: map[string]FitTotals{}, Cases: []FitCaseResult{}}
	for _, c := range cases {
		if !inPart(c.CaseID, part) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		col, err := compare(ctx, c.Language, c.Query, c.Also)
		r := FitCaseResult{CaseID: c.CaseID, Language: c.Language, Concept: c.Query, GoldAbsent: c.Absent, SaidAbsent: col.Absent, Evidence: col.Evidence, Expected: c.Expected}
		if err != nil {
			r.Error = err.Error()
		}
		if len(col.IDs) > 0 {
			r.First = col.IDs[0]
		}
		switch {
		case r.Error != "":
		case c.Absent:
			r.Right = col.Absent
		default:
			r.Right = !col.Absent && slices.Contains(c.Expected, r.First)
		}
		rep.Cases = append(rep.Cases, r)
	}
	rep.Totals = fitTotals(rep.Cases)
	byLang := map[string][]FitCaseResult{}
	for _, r := range rep.Cases {
		byLang[r.Language] = append(byLang[r.Language], r)
	}
	for k, rs := range byLang {
		rep.ByLanguage[k] = fitTotals(rs)
	}
	return rep, nil
}

func fitTotals(rs []FitCaseResult) FitTotals {
	t := FitTotals{Pairs: len(rs)}
	var right, presentRight, bothAbsent int
	for _, r := range rs {
		if r.Right {
			right++
		}
		if r.GoldAbsent {
			t.Absent++
		} else {
			t.Present++
			if r.Right {
				presentRight++
			}
		}
		if r.SaidAbsent {
			t.SaidAbsent++
			if r.GoldAbsent {
				bothAbsent++
			}
		}
		if r.Error != "" {
			t.Errors++
		}
	}
	share := func(n, of int) float64 {
		if of == 0 {
			return 0
		}
		return round3(float64(n) / float64(of))
	}
	t.FirstRight = share(right, t.Pairs)
	t.PresentRight = share(presentRight, t.Present)
	t.AbsentPrecision = share(bothAbsent, t.SaidAbsent)
	t.AbsentRecall = share(bothAbsent, t.Absent)
	return t
}

// WriteFitTable renders compare's column judgements as a plain-text table:
// per part the totals and by language, then the pairs judged wrong.
func WriteFitTable(w io.Writer, gold string, reports []FitReport) {
	fmt.Fprintf(w, "gold: %s (each column judged: absent said for an absent pair, or the first section expected)\n\n", gold)
	fmt.Fprintf(w, "%-8s %-12s %5s %11s %7s %13s %6s %10s %9s %7s %6s\n", "part", "group", "pairs", "first_right", "present", "present_right", "absent", "said_abs", "abs_prec", "abs_rec", "errors")
	row := func(part, group string, t FitTotals) {
		fmt.Fprintf(w, "%-8s %-12s %5d %11.3f %7d %13.3f %6d %10d %9.3f %7.3f %6d\n", part, group, t.Pairs, t.FirstRight, t.Present, t.PresentRight, t.Absent, t.SaidAbsent, t.AbsentPrecision, t.AbsentRecall, t.Errors)
	}
	for _, r := range reports {
		row(r.Part, "all", r.Totals)
		for _, k := range slices.Sorted(maps.Keys(r.ByLanguage)) {
			row(r.Part, "lang:"+k, r.ByLanguage[k])
		}
	}
	for _, r := range reports {
		if r.Part != PartAll && len(reports) > 1 {
			continue // the parts' pairs are all's
		}
		var lines []string
		for _, c := range r.Cases {
			if c.Right {
				continue
			}
			var s string
			switch {
			case c.GoldAbsent:
				s = fmt.Sprintf("  %s %-6s %q  absent, not said; first %s", c.CaseID, c.Language, c.Concept, c.First)
			case c.SaidAbsent:
				s = fmt.Sprintf("  %s %-6s %q  said absent; want %s, first %s", c.CaseID, c.Language, c.Concept, strings.Join(c.Expected, ","), c.First)
			default:
				s = fmt.Sprintf("  %s %-6s %q  want %s, first %s", c.CaseID, c.Language, c.Concept, strings.Join(c.Expected, ","), c.First)
			}
			if c.Error != "" {
				s += "  error: " + c.Error
			}
			lines = append(lines, s)
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\njudged wrong (%s)\n%s\n", r.Part, strings.Join(lines, "\n"))
		}
	}
}
