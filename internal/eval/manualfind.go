// Package eval measures retrieval against gold sets: which expected
// sections a search finds, how high, and at what cost, per mode and facet,
// with the misses listed. It drives the engines through their public API, as
// a client would, and is what "langspec eval" runs.
package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/manual/find/adaptive"
	"github.com/langspec/langspec/internal/text/normalize"
)

// Evaluation modes.
const (
	ModeStaged    = "staged"               // manual_find as served: stages 0–4
	ModeBM25      = find.BaselineBM25      // plain BM25: the words of the query as typed, any of them
	ModeBM25Terms = find.BaselineBM25Terms // BM25 over the extracted terms, any of them: stage 0 before the ranking engine
)

// Modes lists the evaluation modes, the staged search first.
func Modes() []string { return []string{ModeStaged, ModeBM25Terms, ModeBM25} }

// FirstPage is the page size precision is measured on: what a model sees
// from the first manual_hits call it is likely to make.
const FirstPage = 10

// GoldCase is one line of a gold file: a query and where its answer is.
// Paths are relative to MANUALS_ROOT/<manual_id>/; "file.md" accepts any
// section of the file, "file.md#node_id" that section or a subsection.
type GoldCase struct {
	CaseID         string   `json:"case_id"`
	Query          string   `json:"query"`
	ManualID       string   `json:"manual_id"`
	ExpectedPaths  []string `json:"expected_paths"`
	ForbiddenPaths []string `json:"forbidden_paths"`
	RequiredTerms  []string `json:"required_terms"`
	Facet          string   `json:"facet"`
	// Also are other phrasings of the query, as a calling model would send
	// them (ReadAlso); never in a gold file itself.
	Also []string `json:"-"`
}

// ReadGold parses a manual_find gold file (JSON Lines; blank lines are
// skipped). name is used in errors. Errors: invalid_argument naming the
// line and field.
func ReadGold(r io.Reader, name string) ([]GoldCase, error) {
	hint := `each line is {"case_id", "query", "manual_id", "expected_paths": [...], "forbidden_paths": [...], "required_terms": [...], "facet"}`
	return readGold(r, name, hint, func(c *GoldCase) string {
		if c.Facet == "" {
			c.Facet = "other"
		}
		return missing(
			field{"case_id", c.CaseID == ""}, field{"query", strings.TrimSpace(c.Query) == ""},
			field{"manual_id", c.ManualID == ""}, field{"expected_paths", len(c.ExpectedPaths) == 0})
	})
}

// CaseResult is one case under one mode.
type CaseResult struct {
	CaseID        string   `json:"case_id"`
	Facet         string   `json:"facet"`
	Recall        float64  `json:"recall"`           // expected entries found among all candidates
	FirstRank     int      `json:"first_rank"`       // 1-based rank of the first candidate inside an expected entry; 0 when none is
	Hit1          float64  `json:"hit_at_1"`         // 1 when FirstRank is 1
	Hit5          float64  `json:"hit_at_5"`         // 1 when FirstRank is 5 or better
	MRR10         float64  `json:"mrr_at_10"`        // 1/FirstRank when it is 10 or better, else 0
	RecallAt20    float64  `json:"recall_at_20"`     // expected entries found among the first 20 (manual_hits\' default page)
	Precision     float64  `json:"precision"`        // first-page candidates inside an expected entry
	ForbiddenHits int      `json:"forbidden_hits"`   // first-page candidates inside a forbidden entry
	RequiredFound int      `json:"required_found"`   // required terms present in the candidates' text
	RequiredTotal int      `json:"required_total"`   //
	Candidates    int      `json:"candidates"`       //
	Missed        []string `json:"missed,omitempty"` // expected entries no candidate was in
	EstTokens     int      `json:"est_tokens"`       // manual_find plus the first manual_hits page
	ElapsedMS     float64  `json:"elapsed_ms"`       // wall time of manual_find
	Stage4        bool     `json:"stage4"`           // the widening stage ran
	Error         string   `json:"error,omitempty"`  //
}

// Totals are a mode's means over cases (sums for forbidden hits).
type Totals struct {
	Cases          int     `json:"cases"`
	Hit1           float64 `json:"hit_at_1"`
	Hit5           float64 `json:"hit_at_5"`
	MRR10          float64 `json:"mrr_at_10"`
	Recall         float64 `json:"recall"`
	RecallAt20     float64 `json:"recall_at_20"`
	Precision      float64 `json:"precision"`
	ForbiddenHits  int     `json:"forbidden_hits"`
	RequiredTerms  float64 `json:"required_terms"` // share of required terms found
	EstTokens      float64 `json:"est_tokens"`
	P50MS          float64 `json:"p50_ms"`
	P95MS          float64 `json:"p95_ms"`
	PerfectRecall  int     `json:"perfect_recall_cases"`
	Stage4Fired    int     `json:"stage4_fired"`
	Errors         int     `json:"errors"`
	MeanCandidates float64 `json:"mean_candidates"`
}

// ModeReport is one mode over a gold set.
type ModeReport struct {
	Mode    string            `json:"mode"`
	Totals  Totals            `json:"totals"`
	ByFacet map[string]Totals `json:"by_facet"`
	// ByPart splits the cases as spec search does (HeldOut): tune ranking
	// on "tune", and count a gain only when "heldout" shows it too.
	ByPart map[string]Totals `json:"by_part"`
	Cases  []CaseResult      `json:"cases"`
	// GoldPathsNormalized counts the expected and forbidden paths that
	// had to be brought to NFC with "/" separators before comparing: a
	// gold file written on a Mac spells 「がん保険.md」 decomposed, and byte
	// for byte it would never match the file found.
	GoldPathsNormalized int `json:"gold_paths_normalized"`
}

// ManualFind runs every case under mode through f. A case whose search
// fails is counted with recall 0 and its error, so a broken manual shows in
// the figures.
func ManualFind(ctx context.Context, f *find.Finder, cases []GoldCase, mode string) (ModeReport, error) {
	if !slices.Contains(Modes(), mode) {
		return ModeReport{}, apperr.New(apperr.InvalidArgument, "mode is "+strings.Join(Modes(), ", "), "unknown mode %q", mode)
	}
	rep := ModeReport{Mode: mode, ByFacet: map[string]Totals{}, ByPart: map[string]Totals{}}
	for _, c := range cases {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		var n int
		c.ExpectedPaths, n = normalizePaths(c.ExpectedPaths)
		rep.GoldPathsNormalized += n
		c.ForbiddenPaths, n = normalizePaths(c.ForbiddenPaths)
		rep.GoldPathsNormalized += n
		rep.Cases = append(rep.Cases, evalCase(ctx, f, c, mode))
	}
	rep.Totals = totals(rep.Cases)
	facets := map[string][]CaseResult{}
	for _, r := range rep.Cases {
		facets[r.Facet] = append(facets[r.Facet], r)
	}
	for k, rs := range facets {
		rep.ByFacet[k] = totals(rs)
	}
	parts := map[string][]CaseResult{}
	for _, r := range rep.Cases {
		part := PartTune
		if HeldOut(r.CaseID) {
			part = PartHeldOut
		}
		parts[part] = append(parts[part], r)
	}
	for k, rs := range parts {
		rep.ByPart[k] = totals(rs)
	}
	return rep, nil
}

func evalCase(ctx context.Context, f *find.Finder, c GoldCase, mode string) CaseResult {
	res := CaseResult{CaseID: c.CaseID, Facet: c.Facet, RequiredTotal: len(c.RequiredTerms)}
	req := find.Request{ManualID: c.ManualID, Query: c.Query, Also: c.Also}
	if mode != ModeStaged {
		req.Baseline = mode
	}
	t0 := time.Now()
	sum, err := f.Find(ctx, req)
	res.ElapsedMS = float64(time.Since(t0).Microseconds()) / 1000
	if err != nil {
		res.Error = err.Error()
		res.Missed = c.ExpectedPaths
		return res
	}
	cands, err := f.TraceCandidates(ctx, sum.TraceID)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Candidates = len(cands)
	res.Stage4 = sum.Retries > 0
	found := 0
	for _, e := range c.ExpectedPaths {
		if slices.ContainsFunc(cands, func(k find.Candidate) bool { return inEntry(k, e) }) {
			found++
		} else {
			res.Missed = append(res.Missed, e)
		}
	}
	res.Recall = float64(found) / float64(len(c.ExpectedPaths))
	// How high the answer is: what a reader of the first hits sees.
	res.FirstRank = firstRank(cands, c.ExpectedPaths)
	if r := res.FirstRank; r > 0 {
		res.Hit1 = b2f(r == 1)
		res.Hit5 = b2f(r <= 5)
		if r <= 10 {
			res.MRR10 = 1 / float64(r)
		}
	}
	top := cands[:min(find.DefaultHitsLimit, len(cands))]
	foundTop := 0
	for _, e := range c.ExpectedPaths {
		if slices.ContainsFunc(top, func(k find.Candidate) bool { return inEntry(k, e) }) {
			foundTop++
		}
	}
	res.RecallAt20 = float64(foundTop) / float64(len(c.ExpectedPaths))
	page := cands[:min(FirstPage, len(cands))]
	relevant := 0
	for _, k := range page {
		if slices.ContainsFunc(c.ExpectedPaths, func(e string) bool { return inEntry(k, e) }) {
			relevant++
		}
		if slices.ContainsFunc(c.ForbiddenPaths, func(e string) bool { return inEntry(k, e) }) {
			res.ForbiddenHits++
		}
	}
	if len(page) > 0 {
		res.Precision = float64(relevant) / float64(len(page))
	}
	if len(c.RequiredTerms) > 0 {
		text := candidateText(ctx, f, cands)
		for _, t := range c.RequiredTerms {
			if strings.Contains(text, normalize.Normal(t)) {
				res.RequiredFound++
			}
		}
	}
	// What a model pays: the manual_find call and the first page of hits.
	hitsIn, _ := json.Marshal(find.HitsRequest{TraceID: sum.TraceID, Kind: find.KindCandidates, Limit: FirstPage})
	hitsOut, _ := json.Marshal(page)
	_, _, hitTokens := adaptive.EstTokens(len(hitsIn), len(hitsOut))
	res.EstTokens = sum.EstTokens + hitTokens
	return res
}

// firstRank is the 1-based rank of the first candidate inside one of the
// expected entries, 0 when none is.
func firstRank(cands []find.Candidate, expected []string) int {
	for i, k := range cands {
		if slices.ContainsFunc(expected, func(e string) bool { return inEntry(k, e) }) {
			return i + 1
		}
	}
	return 0
}

// candidateText is the normalised text of the candidates, to check the
// required terms against.
func candidateText(ctx context.Context, f *find.Finder, cands []find.Candidate) string {
	want := map[string]bool{}
	manualsSeen := map[string]bool{}
	for _, c := range cands {
		want[c.ManualID+"\x00"+c.Path+"#"+c.NodeID] = true
		manualsSeen[c.ManualID] = true
	}
	var b strings.Builder
	for m := range manualsSeen {
		nodes, _, err := f.Index.Nodes(ctx, m)
		if err != nil {
			continue
		}
		for _, n := range nodes {
			if want[m+"\x00"+n.Path+"#"+n.NodeID] {
				b.WriteString(n.Norm)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// normalizePaths brings gold paths to the form files are compared in: NFC,
// "/" between names. It returns them and how many changed.
func normalizePaths(paths []string) ([]string, int) {
	out := make([]string, len(paths))
	changed := 0
	for i, p := range paths {
		out[i] = norm.NFC.String(strings.ReplaceAll(p, `\`, "/"))
		if out[i] != p {
			changed++
		}
	}
	return out, changed
}

// inEntry reports whether candidate k lies inside a gold entry (already
// normalised): the file for "path", the section or a subsection for
// "path#node_id". The candidate's path is compared in NFC too, whatever form
// the file's name has on disk.
func inEntry(k find.Candidate, entry string) bool {
	p, node, _ := strings.Cut(entry, "#")
	if norm.NFC.String(k.Path) != p {
		return false
	}
	return node == "" || k.NodeID == node || strings.HasPrefix(k.NodeID, node+"/")
}

func totals(rs []CaseResult) Totals {
	t := Totals{Cases: len(rs)}
	if len(rs) == 0 {
		return t
	}
	var req, reqTotal int
	var ms []float64
	for _, r := range rs {
		t.Hit1 += r.Hit1
		t.Hit5 += r.Hit5
		t.MRR10 += r.MRR10
		t.Recall += r.Recall
		t.RecallAt20 += r.RecallAt20
		t.Precision += r.Precision
		t.ForbiddenHits += r.ForbiddenHits
		t.EstTokens += float64(r.EstTokens)
		t.MeanCandidates += float64(r.Candidates)
		req += r.RequiredFound
		reqTotal += r.RequiredTotal
		ms = append(ms, r.ElapsedMS)
		if r.Recall == 1 {
			t.PerfectRecall++
		}
		if r.Stage4 {
			t.Stage4Fired++
		}
		if r.Error != "" {
			t.Errors++
		}
	}
	n := float64(len(rs))
	t.Hit1 = round3(t.Hit1 / n)
	t.Hit5 = round3(t.Hit5 / n)
	t.MRR10 = round3(t.MRR10 / n)
	t.Recall = round3(t.Recall / n)
	t.RecallAt20 = round3(t.RecallAt20 / n)
	t.Precision = round3(t.Precision / n)
	t.EstTokens = math.Round(t.EstTokens / n)
	t.MeanCandidates = math.Round(t.MeanCandidates/n*10) / 10
	if reqTotal > 0 {
		t.RequiredTerms = round3(float64(req) / float64(reqTotal))
	}
	slices.Sort(ms)
	t.P50MS = round3(percentile(ms, 0.50))
	t.P95MS = round3(percentile(ms, 0.95))
	return t
}

// percentile is the nearest-rank percentile of sorted xs.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// WriteTable renders reports as a plain-text table: one row per mode, then
// per facet, then the cases a mode missed something in.
func WriteTable(w io.Writer, gold string, reports []ModeReport) {
	fmt.Fprintf(w, "gold: %s\n\n", gold)
	fmt.Fprintf(w, "%-10s %-11s %5s %6s %6s %7s %7s %9s %9s %9s %9s %6s %7s %7s %6s\n", "mode", "facet", "cases", "hit@1", "hit@5", "mrr@10", "recall", "recall@20", "precision", "forbidden", "req_terms", "cands", "tokens", "p50_ms", "stage4")
	row := func(mode, facet string, t Totals) {
		fmt.Fprintf(w, "%-10s %-11s %5d %6.3f %6.3f %7.3f %7.3f %9.3f %9.3f %9d %9.3f %6.1f %7.0f %7.2f %6d\n", mode, facet, t.Cases, t.Hit1, t.Hit5, t.MRR10, t.Recall, t.RecallAt20, t.Precision, t.ForbiddenHits, t.RequiredTerms, t.MeanCandidates, t.EstTokens, t.P50MS, t.Stage4Fired)
	}
	if len(reports) > 0 && reports[0].GoldPathsNormalized > 0 {
		fmt.Fprintf(w, "(%d gold paths were brought to NFC with / separators before comparing)\n", reports[0].GoldPathsNormalized)
	}
	for _, r := range reports {
		row(r.Mode, "all", r.Totals)
		for _, k := range []string{PartTune, PartHeldOut} {
			if t, ok := r.ByPart[k]; ok {
				row(r.Mode, "part:"+k, t)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(r.ByFacet)) {
			row(r.Mode, k, r.ByFacet[k])
		}
	}
	for _, r := range reports {
		var lines []string
		for _, c := range r.Cases {
			if c.Recall < 1 || c.Error != "" {
				s := fmt.Sprintf("  %s  recall %.2f  missed %s", c.CaseID, c.Recall, strings.Join(c.Missed, ", "))
				if c.Error != "" {
					s += "  error: " + c.Error
				}
				lines = append(lines, s)
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\n%s: cases with misses\n%s\n", r.Mode, strings.Join(lines, "\n"))
		}
	}
}
