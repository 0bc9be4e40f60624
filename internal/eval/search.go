package eval

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// Kinds of spec search cases: what the question looks like.
const (
	KindParaphrase = "paraphrase" // a question in the asker's words, avoiding the title's
	KindTerm       = "term"       // code and punctuation as typed: s[i:j:k], ::, x.(T)
	KindTypo       = "typo"       // a real query, misspelt
	KindMultiword  = "multiword"  // several words the section holds
)

// Parts of a gold set. A third of the cases, chosen by a fixed hash of their
// case_id, is held out: ranking is tuned on the rest, and a gain counts
// only when the held-out part shows it too.
const (
	PartTune    = "tune"
	PartHeldOut = "heldout"
	PartAll     = "all"
)

// Parts lists the parts a report can cover.
func Parts() []string { return []string{PartTune, PartHeldOut, PartAll} }

// HeldOut reports whether a case belongs to the held-out third.
func HeldOut(caseID string) bool {
	h := fnv.New32a()
	h.Write([]byte(caseID))
	return h.Sum32()%3 == 0
}

// SearchCase is one line of a spec search gold file.
type SearchCase struct {
	CaseID   string   `json:"case_id"`
	Language string   `json:"language"`
	Query    string   `json:"query"`
	Expected []string `json:"expected"` // section ids that answer it, best first
	Kind     string   `json:"kind"`
	// Also are other phrasings of the query, as a calling model would send
	// them (ReadAlso); never in a gold file itself.
	Also []string `json:"-"`
	// Absent marks a compare pair whose language has no section about the
	// concept (a compare gold line's "absent"): Expected is empty, ranking
	// measures (SpecSearch) leave it out, and CompareFit counts it right
	// only when compare says the column is absent.
	Absent bool `json:"absent,omitempty"`
}

// ReadSearchGold parses a spec search gold file (JSON Lines; blank lines
// skipped); name is used in errors. Errors: invalid_argument naming the line.
func ReadSearchGold(r io.Reader, name string) ([]SearchCase, error) {
	kinds := []string{KindParaphrase, KindTerm, KindTypo, KindMultiword}
	hint := `each line is {"case_id", "language", "query", "expected": [section ids], "kind": "paraphrase" | "term" | "typo" | "multiword"}`
	return readGold(r, name, hint, func(c *SearchCase) string {
		if m := missing(field{"case_id", c.CaseID == ""}, field{"language", c.Language == ""},
			field{"query", strings.TrimSpace(c.Query) == ""}, field{"expected", len(c.Expected) == 0}); m != "" {
			return m
		}
		if !slices.Contains(kinds, c.Kind) {
			return fmt.Sprintf("kind %q is not one of %s", c.Kind, strings.Join(kinds, ", "))
		}
		return ""
	})
}

// Searcher runs one query (with its other phrasings, if any) the way the
// system under test answers it and returns the section ids it ranked, best
// first.
type Searcher func(ctx context.Context, language, query string, also []string) ([]string, error)

// searchDepth is how many hits a case asks for: nDCG is measured at 10.
const searchDepth = 10

// SearchCaseResult is one case's outcome.
type SearchCaseResult struct {
	CaseID    string   `json:"case_id"`
	Language  string   `json:"language"`
	Kind      string   `json:"kind"`
	Query     string   `json:"query"`
	Rank      int      `json:"rank"` // of the first expected section, from 1; 0 when not in the first 10
	RR5       float64  `json:"rr_at_5"`
	NDCG10    float64  `json:"ndcg_at_10"`
	Expected  []string `json:"expected"`
	Got       []string `json:"got"` // the first five ids ranked
	ElapsedMS float64  `json:"elapsed_ms"`
	Error     string   `json:"error,omitempty"`
}

// SearchTotals are means over a report's cases.
type SearchTotals struct {
	Cases    int     `json:"cases"`
	HitAt1   float64 `json:"hit_at_1"`
	HitAt5   float64 `json:"hit_at_5"`
	MRRAt5   float64 `json:"mrr_at_5"`
	NDCGAt10 float64 `json:"ndcg_at_10"`
	Errors   int     `json:"errors"`
	P50MS    float64 `json:"p50_ms"`
}

// SearchReport is one part of a gold set: totals, by kind, by language, and
// every case (the misses are the cases with rank 0 or above 5).
type SearchReport struct {
	Part       string                  `json:"part"`
	Totals     SearchTotals            `json:"totals"`
	ByKind     map[string]SearchTotals `json:"by_kind"`
	ByLanguage map[string]SearchTotals `json:"by_language"`
	Cases      []SearchCaseResult      `json:"cases"`
}

// SpecSearch runs the cases of part (PartTune, PartHeldOut or PartAll)
// through search. A case whose search fails counts as a miss, with its
// error, so a broken document shows in the figures.
func SpecSearch(ctx context.Context, search Searcher, cases []SearchCase, part string) (SearchReport, error) {
	if !slices.Contains(Parts(), part) {
		return SearchReport{}, apperr.New(apperr.InvalidArgument, "part is "+strings.Join(Parts(), ", "), "unknown part %q", part)
	}
	rep := SearchReport{Part: part, ByKind: map[string]SearchTotals{}, ByLanguage: map[string]SearchTotals{}, Cases: []SearchCaseResult{}}
	for _, c := range cases {
		if !inPart(c.CaseID, part) || c.Absent {
			continue // an absent pair has no section to rank
		}
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		start := time.Now()
		got, err := search(ctx, c.Language, c.Query, c.Also)
		r := SearchCaseResult{CaseID: c.CaseID, Language: c.Language, Kind: c.Kind, Query: c.Query, Expected: c.Expected,
			ElapsedMS: float64(time.Since(start).Microseconds()) / 1000}
		if err != nil {
			r.Error = err.Error()
		}
		r.Got = got[:min(5, len(got))]
		r.Rank, r.RR5, r.NDCG10 = rankScores(got, c.Expected)
		rep.Cases = append(rep.Cases, r)
	}
	rep.Totals = searchTotals(rep.Cases)
	byKind, byLang := map[string][]SearchCaseResult{}, map[string][]SearchCaseResult{}
	for _, r := range rep.Cases {
		byKind[r.Kind] = append(byKind[r.Kind], r)
		byLang[r.Language] = append(byLang[r.Language], r)
	}
	for k, rs := range byKind {
		rep.ByKind[k] = searchTotals(rs)
	}
	for k, rs := range byLang {
		rep.ByLanguage[k] = searchTotals(rs)
	}
	return rep, nil
}

// inPart reports whether the case caseID is in part.
func inPart(caseID, part string) bool {
	return part == PartAll || (part == PartHeldOut) == HeldOut(caseID)
}

// rankScores is the rank of the first expected id in got (0: not in the
// first 10), the reciprocal rank at 5, and nDCG at 10 with every expected
// id relevant (binary gains).
func rankScores(got, expected []string) (rank int, rr5, ndcg10 float64) {
	var dcg float64
	for i, id := range got[:min(searchDepth, len(got))] {
		if !slices.Contains(expected, id) {
			continue
		}
		if rank == 0 {
			rank = i + 1
		}
		dcg += 1 / math.Log2(float64(i+2))
	}
	var ideal float64
	for i := range min(len(expected), searchDepth) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	if rank >= 1 && rank <= 5 {
		rr5 = 1 / float64(rank)
	}
	return rank, rr5, dcg / ideal
}

func searchTotals(rs []SearchCaseResult) SearchTotals {
	t := SearchTotals{Cases: len(rs)}
	if len(rs) == 0 {
		return t
	}
	ms := make([]float64, 0, len(rs))
	for _, r := range rs {
		if r.Rank == 1 {
			t.HitAt1++
		}
		if r.Rank >= 1 && r.Rank <= 5 {
			t.HitAt5++
		}
		t.MRRAt5 += r.RR5
		t.NDCGAt10 += r.NDCG10
		if r.Error != "" {
			t.Errors++
		}
		ms = append(ms, r.ElapsedMS)
	}
	n := float64(len(rs))
	t.HitAt1, t.HitAt5 = round3(t.HitAt1/n), round3(t.HitAt5/n)
	t.MRRAt5, t.NDCGAt10 = round3(t.MRRAt5/n), round3(t.NDCGAt10/n)
	slices.Sort(ms)
	t.P50MS = round3(percentile(ms, 0.5))
	return t
}

// WriteSearchTable renders reports as a plain-text table: per part the
// totals, by kind and by language, then the cases not in the top 5.
func WriteSearchTable(w io.Writer, gold string, reports []SearchReport) {
	fmt.Fprintf(w, "gold: %s\n\n", gold)
	fmt.Fprintf(w, "%-8s %-16s %5s %6s %6s %7s %8s %6s %7s\n", "part", "group", "cases", "hit@1", "hit@5", "mrr@5", "ndcg@10", "errors", "p50_ms")
	row := func(part, group string, t SearchTotals) {
		fmt.Fprintf(w, "%-8s %-16s %5d %6.3f %6.3f %7.3f %8.3f %6d %7.2f\n", part, group, t.Cases, t.HitAt1, t.HitAt5, t.MRRAt5, t.NDCGAt10, t.Errors, t.P50MS)
	}
	for _, r := range reports {
		row(r.Part, "all", r.Totals)
		for _, k := range slices.Sorted(maps.Keys(r.ByKind)) {
			row(r.Part, "kind:"+k, r.ByKind[k])
		}
		for _, k := range slices.Sorted(maps.Keys(r.ByLanguage)) {
			row(r.Part, "lang:"+k, r.ByLanguage[k])
		}
	}
	for _, r := range reports {
		if r.Part != PartAll && len(reports) > 1 {
			continue // the parts' misses are all's
		}
		var lines []string
		for _, c := range r.Cases {
			if c.Rank >= 1 && c.Rank <= 5 {
				continue
			}
			s := fmt.Sprintf("  %s [%s] %q  want %s  got %s", c.CaseID, c.Kind, c.Query, strings.Join(c.Expected, ","), strings.Join(c.Got, ","))
			if c.Rank > 5 {
				s += fmt.Sprintf("  (rank %d)", c.Rank)
			}
			if c.Error != "" {
				s += "  error: " + c.Error
			}
			lines = append(lines, s)
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\nnot in the top 5 (%s)\n%s\n", r.Part, strings.Join(lines, "\n"))
		}
	}
}

// compareCase is one line of a compare gold file: a concept and, per
// language, the sections that answer it, best first, and the languages
// with no section about it.
type compareCase struct {
	CaseID   string              `json:"case_id"`
	Concept  string              `json:"concept"`
	Expected map[string][]string `json:"expected"`
	Absent   []string            `json:"absent"`
}

func (c compareCase) id() string { return c.CaseID }

// ReadCompareGold parses a compare gold file (JSON Lines of {"case_id",
// "concept", "expected": {"LANGUAGE": [section ids]}, "absent":
// [LANGUAGE]}, "absent" optional) into one search case per language, each
// keeping the concept's case_id, so a concept is tuned or held out whole;
// an absent language's case has Absent set and no Expected. Errors:
// invalid_argument naming the line.
func ReadCompareGold(r io.Reader, name string) ([]SearchCase, error) {
	hint := `each line is {"case_id", "concept", "expected": {"LANGUAGE": [section ids], …}, "absent": [LANGUAGE, …]}`
	cs, err := readGold(r, name, hint, func(c *compareCase) string {
		if m := missing(field{"case_id", c.CaseID == ""}, field{"concept", strings.TrimSpace(c.Concept) == ""},
			field{"expected", len(c.Expected) == 0 && len(c.Absent) == 0}); m != "" {
			return m
		}
		for lang, ids := range c.Expected {
			if len(ids) == 0 {
				return fmt.Sprintf("expected.%s names no section", lang)
			}
		}
		for i, lang := range c.Absent {
			if _, ok := c.Expected[lang]; ok {
				return fmt.Sprintf("%s is both expected and absent", lang)
			}
			if strings.TrimSpace(lang) == "" || slices.Contains(c.Absent[:i], lang) {
				return fmt.Sprintf("absent[%d] %q is empty or repeated", i, lang)
			}
		}
		return ""
	})
	if err != nil {
		return nil, err
	}
	var out []SearchCase
	for _, c := range cs {
		langs := slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(c.Expected)), c.Absent...)))
		for _, lang := range langs {
			out = append(out, SearchCase{CaseID: c.CaseID, Language: lang, Query: c.Concept, Expected: c.Expected[lang],
				Kind: KindParaphrase, Absent: slices.Contains(c.Absent, lang)})
		}
	}
	return out, nil
}
