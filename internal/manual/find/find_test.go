package find

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/manual/find/adaptive"
	"github.com/langspec/langspec/internal/rank"
)

// sampleManual is a small manual where each stage has something only it
// can find for the query "cancellation" (or its Japanese counterpart).
var sampleManual = map[string]string{
	"cancel.md": "# Cancellation\n\nHow to ask for a cancellation.\n\n## Documents\n\nBring the signed form.\n",
	"terms.md":  "# Termination of the contract\n\nThe contract ends on the date agreed.\n",
	"fees.md":   "# Fees\n\nA CANCEL-LATION fee of 10 USD applies.\n",
	"changes.md": "# Policy changes\n\n## Window\n\nA cancellation within 14 days is free.\n\n" +
		"## Limits\n\nThis does not apply to group plans.\n",
	"unrelated.md":  "# Billing\n\nInvoices are sent monthly.\n",
	"解約.md":         "# 解約の受付\n\n３０日以内に書面で届け出てください。\n\n# 保険金\n\n保険金の支払いについて。\n\n# 請求書\n\n請求書の書き方。\n",
	"settings.json": `{"cancellation": {"notice_days": 30}}`,
}

func writeManual(t testing.TB, dir, id string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(dir, id, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sampleFinder(t testing.TB) (*Finder, string) {
	t.Helper()
	dir := t.TempDir()
	writeManual(t, dir, "m", sampleManual)
	if err := os.WriteFile(filepath.Join(dir, "synonyms.json"), []byte(`{"groups": [["cancellation", "termination"]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return newFinder(t, dir), dir
}

// allHits pages through a whole trace.
func allHits(t testing.TB, f *Finder, traceID, kind string) []Candidate {
	t.Helper()
	var out []Candidate
	for off := 0; ; {
		p, err := f.Hits(context.Background(), HitsRequest{TraceID: traceID, Kind: kind, Offset: off, Limit: MaxHitsLimit})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Candidates...)
		for _, u := range p.Unscanned {
			out = append(out, Candidate{ManualID: u.ManualID, Path: u.Path, NodeID: u.NodeID, Stages: []string{u.Reason}})
		}
		if p.NextOffset == 0 {
			return out
		}
		off = p.NextOffset
	}
}

func find(t testing.TB, f *Finder, req Request) (Summary, []Candidate) {
	t.Helper()
	sum, err := f.Find(context.Background(), req)
	if err != nil {
		t.Fatalf("Find(%+v): %v", req, err)
	}
	return sum, allHits(t, f, sum.TraceID, KindCandidates)
}

func stagesOf(cands []Candidate, path, node string) []string {
	for _, c := range cands {
		if c.Path == path && c.NodeID == node {
			return c.Stages
		}
	}
	return nil
}

func TestEachStageAddsWhatOnlyItFinds(t *testing.T) {
	f, _ := sampleFinder(t)
	_, cands := find(t, f, Request{ManualID: "m", Query: "Collect everything about cancellation"})
	tests := []struct {
		path, node, stage string
	}{
		{"cancel.md", "cancellation", StageExact},
		{"settings.json", "file", StageNormalized},
		{"fees.md", "fees", StageLoose},
		{"terms.md", "termination-of-the-contract", StageSynonym},
		{"cancel.md", "cancellation/documents", StageHeading},
		{"changes.md", "policy-changes/limits", StageException},
	}
	for _, tt := range tests {
		got := stagesOf(cands, tt.path, tt.node)
		if !slices.Contains(got, tt.stage) {
			t.Errorf("%s#%s: stages %v, want %s among them", tt.path, tt.node, got, tt.stage)
		}
	}
	if s := stagesOf(cands, "unrelated.md", "billing"); s != nil {
		t.Errorf("unrelated section found by %v", s)
	}
	// The direct hit ranks above what only came along as context.
	if cands[0].Path != "cancel.md" && cands[0].Path != "changes.md" {
		t.Errorf("first candidate %s#%s, want a section that says cancellation", cands[0].Path, cands[0].NodeID)
	}
}

func TestJapaneseNotationVariants(t *testing.T) {
	f, _ := sampleFinder(t)
	// 三十日 (kanji numerals) finds ３０日 (full-width digits).
	_, cands := find(t, f, Request{ManualID: "m", Query: "三十日以内の届け出"})
	if s := stagesOf(cands, "解約.md", "解約の受付"); !slices.Contains(s, StageNormalized) {
		t.Fatalf("解約の受付 stages %v, want normalized; candidates %+v", s, cands)
	}
}

func TestStage4WidensAThinResult(t *testing.T) {
	f, _ := sampleFinder(t)
	// No section holds the compound; its parts are headings of their own.
	sum, cands := find(t, f, Request{ManualID: "m", Query: "保険金請求書"})
	if sum.Retries != 1 || len(sum.Stage4Reasons) == 0 {
		t.Fatalf("stage 4 did not run: %+v", sum)
	}
	for _, node := range []string{"保険金", "請求書"} {
		if s := stagesOf(cands, "解約.md", node); !slices.Contains(s, StageWiden) {
			t.Errorf("%s stages %v, want widen", node, s)
		}
	}
}

func TestZeroHitsStillAnswers(t *testing.T) {
	f, _ := sampleFinder(t)
	sum, _ := find(t, f, Request{ManualID: "m", Query: "xylophone"})
	if sum.Candidates != 0 || sum.TraceID == "" {
		t.Fatalf("summary %+v", sum)
	}
	if len(sum.NextActions) == 0 || sum.NextActions[0].Action != ActionInsufficient {
		t.Fatalf("next actions %+v, want insufficient_candidates first", sum.NextActions)
	}
	if !slices.Contains(sum.StagesRun, StageWiden) {
		t.Errorf("stages run %v, want widen after zero candidates", sum.StagesRun)
	}
}

func TestExceptionsIntentFindsExceptionsInTheFile(t *testing.T) {
	f, _ := sampleFinder(t)
	sum, cands := find(t, f, Request{ManualID: "m", Query: "exceptions to the policy window"})
	if sum.Intent != "exceptions" {
		t.Fatalf("intent %q", sum.Intent)
	}
	if !slices.Contains(stagesOf(cands, "changes.md", "policy-changes/limits"), StageException) {
		t.Errorf("Limits not found as an exception: %+v", cands)
	}
	if sum.ExceptionHits == 0 {
		t.Errorf("exception_hits 0")
	}
}

func TestBudgetsCutAndReportUnscanned(t *testing.T) {
	t.Run("candidate cap", func(t *testing.T) {
		f, _ := sampleFinder(t)
		sum, cands := find(t, f, Request{ManualID: "m", Query: "cancellation", MaxCandidates: 2})
		if sum.CutoffReason != ReasonCandidateCap || len(cands) != 2 || sum.Unscanned == 0 {
			t.Fatalf("cutoff %q, %d candidates, %d unscanned", sum.CutoffReason, len(cands), sum.Unscanned)
		}
		un := allHits(t, f, sum.TraceID, KindUnscanned)
		if len(un) != sum.Unscanned || un[0].Stages[0] != ReasonCandidateCap {
			t.Fatalf("unscanned %+v", un)
		}
		// Searching only what was left finds it, and nothing of the first page.
		_, again := find(t, f, Request{OnlyUnscannedFromTraceID: sum.TraceID})
		if len(again) == 0 {
			t.Fatal("re-search of the unscanned sections found nothing")
		}
		for _, c := range again {
			if slices.ContainsFunc(cands, func(k Candidate) bool { return k.Path == c.Path && k.NodeID == c.NodeID }) {
				t.Errorf("re-search returned %s#%s, which the first search already had", c.Path, c.NodeID)
			}
		}
	})
	t.Run("time budget", func(t *testing.T) {
		f, _ := sampleFinder(t)
		clk := &clock{now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), step: 400 * time.Millisecond}
		f.Now = clk.Now
		sum, err := f.Find(context.Background(), Request{ManualID: "m", Query: "cancellation", TimeMS: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if sum.CutoffReason != ReasonTimeBudget || sum.Unscanned == 0 {
			t.Fatalf("cutoff %q, unscanned %d", sum.CutoffReason, sum.Unscanned)
		}
		un := allHits(t, f, sum.TraceID, KindUnscanned)
		if !slices.ContainsFunc(un, func(c Candidate) bool { return c.Stages[0] == ReasonTimeBudget }) {
			t.Fatalf("no time_budget entry in %+v", un)
		}
		if !slices.ContainsFunc(sum.NextActions, func(a NextAction) bool {
			return a.Action == ActionFillGaps && a.Arguments["only_unscanned_from_trace_id"] == sum.TraceID
		}) {
			t.Errorf("next actions %+v, want fill_gaps re-searching the trace", sum.NextActions)
		}
	})
	t.Run("no cut, no cutoff_reason", func(t *testing.T) {
		f, _ := sampleFinder(t)
		sum, _ := find(t, f, Request{ManualID: "m", Query: "cancellation"})
		if sum.CutoffReason != "" || sum.Unscanned != 0 {
			t.Fatalf("cutoff %q, unscanned %d", sum.CutoffReason, sum.Unscanned)
		}
	})
}

// TestTraces: a trace id carries its search. Past the time a server keeps
// it, after a restart (a Finder of its own over the same store) and on
// another server holding the same manuals, it pages the same candidates;
// once a manual it searched has changed, it says so.
func TestTraces(t *testing.T) {
	f, dir := sampleFinder(t)
	clk := &clock{now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	f.Now = clk.Now
	sum, want := find(t, f, Request{ManualID: "m", Query: "cancellation", Also: []string{"termination"}})
	clk.advance(DefaultTraceTTL + time.Second)
	restarted := &Finder{Index: f.Index, Synonyms: f.Synonyms, Now: clk.Now}
	for name, g := range map[string]*Finder{"expired": f, "restarted": restarted} {
		page, err := g.Hits(context.Background(), HitsRequest{TraceID: sum.TraceID, Limit: MaxHitsLimit})
		if err != nil || !reflect.DeepEqual(page.Candidates, want[:min(len(want), MaxHitsLimit)]) {
			t.Errorf("%s: the trace pages %v (%v), want the candidates it found", name, page.Candidates, err)
		}
	}
	// A trace of manuals that changed since says so.
	if err := os.WriteFile(filepath.Join(dir, "m", "cancel.md"), []byte("# Cancellation\n\nChanged since.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := &Finder{Index: f.Index, Synonyms: f.Synonyms, Now: clk.Now}
	if _, err := later.Hits(context.Background(), HitsRequest{TraceID: sum.TraceID}); apperr.CodeOf(err) != apperr.NotFound || !strings.Contains(err.Error(), "changed since") {
		t.Errorf("a trace of a changed manual: %v, want not_found saying it changed", err)
	}
	// Neither is a trace of manuals that changed silently replaced by a
	// whole-manual search.
	if _, err := later.Find(context.Background(), Request{OnlyUnscannedFromTraceID: sum.TraceID}); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("re-search of an outdated trace: %v, want not_found", err)
	}
	mangled := sum.TraceID[:len(sum.TraceID)-3] + "AAA"
	tests := []struct {
		name string
		req  HitsRequest
		code apperr.Code
		msg  string
	}{
		{"an older langspec's", HitsRequest{TraceID: "mf_" + strings.Repeat("0", 20)}, apperr.NotFound, "older langspec"},
		{"malformed", HitsRequest{TraceID: "'; DROP TABLE x"}, apperr.InvalidArgument, "not a trace id"},
		{"mangled", HitsRequest{TraceID: mangled}, apperr.InvalidArgument, "cut or changed"},
		{"cut", HitsRequest{TraceID: sum.TraceID[:40]}, apperr.InvalidArgument, "not a trace id"},
		{"bad kind", HitsRequest{TraceID: sum.TraceID, Kind: "all"}, apperr.InvalidArgument, "unknown kind"},
		{"bad limit", HitsRequest{TraceID: sum.TraceID, Limit: 101}, apperr.InvalidArgument, "limit 101"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := later.Hits(context.Background(), tt.req)
			if apperr.CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %s with %q", err, tt.code, tt.msg)
			}
		})
	}
}

func TestFindRefusesBadRequests(t *testing.T) {
	f, _ := sampleFinder(t)
	tests := []struct {
		name string
		req  Request
		code apperr.Code
		msg  string
	}{
		{"empty query", Request{ManualID: "m", Query: "  "}, apperr.InvalidArgument, "empty query"},
		{"long query", Request{ManualID: "m", Query: strings.Repeat("a ", 600)}, apperr.InvalidArgument, "characters"},
		{"bad intent", Request{ManualID: "m", Query: "x", Intent: "summary"}, apperr.InvalidArgument, "summary"},
		{"time budget", Request{ManualID: "m", Query: "x", TimeMS: -1}, apperr.InvalidArgument, "time_ms"},
		{"candidate cap", Request{ManualID: "m", Query: "x", MaxCandidates: 5000}, apperr.InvalidArgument, "max_candidates"},
		{"unknown manual", Request{ManualID: "nope", Query: "x"}, apperr.NotFound, "nope"},
		{"escaping manual", Request{ManualID: "../m", Query: "x"}, apperr.PathOutsideManuals, "../m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Find(context.Background(), tt.req)
			if apperr.CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %s with %q", err, tt.code, tt.msg)
			}
		})
	}
}

func TestBrokenDictionaryIsAPartialSuccess(t *testing.T) {
	f, dir := sampleFinder(t)
	if err := os.WriteFile(filepath.Join(dir, "synonyms.json"), []byte(`{"groups": [["cancellation"`), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, cands := find(t, f, Request{ManualID: "m", Query: "cancellation"})
	if !slices.Contains(sum.StagesFailed, StageSynonym) || !slices.ContainsFunc(sum.Warnings, func(w string) bool { return strings.Contains(w, "synonyms.json") }) {
		t.Fatalf("failed %v warnings %v", sum.StagesFailed, sum.Warnings)
	}
	if stagesOf(cands, "cancel.md", "cancellation") == nil {
		t.Fatal("stage 0-1 results lost")
	}
	if stagesOf(cands, "terms.md", "termination-of-the-contract") != nil {
		t.Fatal("synonym found with a broken dictionary")
	}
}

func TestStatsHoldNoManualText(t *testing.T) {
	f, _ := sampleFinder(t)
	path := filepath.Join(t.TempDir(), ".system", "adaptive_stats.jsonl")
	stats, err := adaptive.Open(adaptive.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer stats.Close()
	f.Stats = stats
	sum, cands := find(t, f, Request{ManualID: "m", Query: "cancellation"})
	f.RecordUse(sum.TraceID, "m", cands[0].Path, cands[0].NodeID)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.Contains(text, statsKey(sum.TraceID)) || strings.Contains(text, sum.TraceID) || !strings.Contains(text, `"kind":"use"`) {
		t.Fatalf("stats file lacks the find or the use:\n%s", text)
	}
	for _, s := range []string{"cancel", "Cancellation", "cancel.md", "signed form", "解約", "mf2."} {
		if strings.Contains(text, s) {
			t.Errorf("stats file holds manual text %q", s)
		}
	}
}

// TestConcurrentFinds runs searches in parallel while a manual changes:
// every search must succeed and see a whole index (run with -race).
func TestConcurrentFinds(t *testing.T) {
	f, dir := sampleFinder(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				if i == 0 {
					text := fmt.Sprintf("# Cancellation %d\n\nA cancellation note.\n", j)
					if err := os.WriteFile(filepath.Join(dir, "m", "notes.md"), []byte(text), 0o644); err != nil {
						errs <- err
						return
					}
				}
				if _, err := f.Find(context.Background(), Request{ManualID: "m", Query: "cancellation"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A store that cannot be searched is an error, not "0 candidates": the
// manuals' tables are dropped under the finder, as a corrupt file would
// lose them.
func TestFindFailsOnABrokenIndex(t *testing.T) {
	ctx := context.Background()
	f := newFinder(t, fixturesDir)
	if _, err := f.Find(ctx, Request{ManualID: "ops-en", Query: "failover"}); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", f.Index.store.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `DROP TABLE manual_nodes_trigram; DROP TABLE manual_nodes; DROP TABLE manual_files`); err != nil {
		t.Fatal(err)
	}
	sum, err := f.Find(ctx, Request{ManualID: "ops-en", Query: "failover"})
	if err == nil {
		t.Fatalf("a broken index answered %d candidates, warnings %q", sum.Candidates, sum.Warnings)
	}
	if code := apperr.CodeOf(err); code != apperr.CorruptDatabase {
		t.Errorf("code %s (%v), want corrupt_database", code, err)
	}
	if strings.Contains(strings.ToLower(err.Error()), "sql") {
		t.Errorf("error leaks SQL: %v", err)
	}
}

// TestFindWithAlso: other phrasings run the whole search and are fused
// with the query's (shares of each run's best, summed); a candidate says which phrasings
// found it; a phrasing that matches nothing changes no candidate or its
// order; bad phrasings are refused with what is allowed.
func TestFindWithAlso(t *testing.T) {
	f, _ := sampleFinder(t)
	_, plain := find(t, f, Request{ManualID: "m", Query: "cancellation"})
	_, nothing := find(t, f, Request{ManualID: "m", Query: "cancellation", Also: []string{"zzqqxxv wwkkyy"}})
	if len(plain) == 0 || len(nothing) != len(plain) {
		t.Fatalf("a phrasing matching nothing: %d candidates, %d without it", len(nothing), len(plain))
	}
	for i := range plain {
		if plain[i].Path != nothing[i].Path || plain[i].NodeID != nothing[i].NodeID {
			t.Fatalf("a phrasing matching nothing moved candidate %d: %s#%s, was %s#%s", i, nothing[i].Path, nothing[i].NodeID, plain[i].Path, plain[i].NodeID)
		}
		if !slices.Equal(nothing[i].Phrasings, []string{"query"}) {
			t.Errorf("candidate %d found by %v, want the query", i, nothing[i].Phrasings)
		}
	}
	_, withAlso := find(t, f, Request{ManualID: "m", Query: "zzqqxxv wwkkyy", Also: []string{"cancellation"}})
	if len(withAlso) == 0 {
		t.Fatal("a query matching nothing with a phrasing that matches found nothing")
	}
	for _, c := range withAlso {
		if !slices.Equal(c.Phrasings, []string{"also:1"}) {
			t.Errorf("%s#%s found by %v, want also:1", c.Path, c.NodeID, c.Phrasings)
		}
	}
	for _, tc := range []struct {
		also []string
		msg  string
	}{
		{[]string{"a", "b", "c", "d", "e"}, "at most 4"},
		{[]string{"ok", "  "}, "also[1] is empty"},
	} {
		if _, err := f.Find(context.Background(), Request{ManualID: "m", Query: "cancellation", Also: tc.also}); apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("also %q: %v, want invalid_argument %q", tc.also, err, tc.msg)
		}
	}
}

// A cancelled call's search stops at its next look at the budget, as one
// out of time does, instead of running its stages to the time budget
// (a minute by default), and Find says why: context.Canceled.
func TestFindStopsWhenCancelled(t *testing.T) {
	f, _ := sampleFinder(t)
	if _, err := f.Index.RefreshAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	var mu sync.Mutex
	readings, afterCancel := 0, 0
	f.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		readings++
		if ctx.Err() != nil {
			afterCancel++
		}
		// The call's start, then the first stage's look at the budget:
		// the call is cancelled during the search.
		if readings == 2 {
			cancel()
		}
		return clk.Now()
	}
	_, err := f.Find(ctx, Request{ManualID: "m", Query: "cancellation"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if afterCancel > 0 {
		t.Errorf("the search looked at the clock %d times after the call was cancelled: its stages went on", afterCancel)
	}
}

// TestProseLines: a snippet comes from what a section says, not from the
// metadata around it (a Node.js version history in an HTML comment, front
// matter, a code block, a table's rule).
func TestProseLines(t *testing.T) {
	for _, tc := range []struct {
		name      string
		text      string
		heading   bool
		fileStart bool
		want      []int // the prose lines
	}{
		{"node version history", "### `Buffer.alloc(size)`\n\n<!-- YAML\nadded: v5.10.0\nchanges:\n  - pr-url: https://github.com/nodejs/node/pull/1\n-->\n\nAllocates a new `Buffer` of `size` bytes.", true, false, []int{8}},
		{"one-line comment", "# Buffer\n<!-- source_link=lib/buffer.js -->\nBuffer objects represent bytes.", true, false, []int{2}},
		{"front matter", "---\ntitle: Guide\n---\nThe guide.", false, true, []int{3}},
		{"front matter only at the start of a file", "---\ntitle: x\n---", false, false, []int{1}},
		{"code fence", "# Run\n```sh\nnode --inspect app.js\n```\nStart with the inspector.", true, false, []int{4}},
		{"table rule", "| flag | meaning |\n|---|:---:|\n| -r | require |", false, false, []int{0, 2}},
		{"html table", "<table>\n  <tr>\n    <th>Constant</th>\n  </tr>\n</table>\nThe constants are exported.\n<kbd>Ctrl</kbd>+<kbd>C</kbd> exits.\n<TD>upper case</TD>", false, false, []int{5, 6}},
		{"link definitions", "See [`fs.stat()`][].\n\n[`fs.stat()`]: fs.md#fsstat\n[RFC 4122]: https://www.rfc-editor.org/rfc/rfc4122.txt\n[not a definition] says more.", false, false, []int{0, 4}},
	} {
		lines := strings.Split(tc.text, "\n")
		var got []int
		for i, p := range proseLines(lines, tc.heading, tc.fileStart) {
			if p {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: prose lines %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestUnsearchedOnlyWhenItCouldBeShown: a heading's subsections past the
// heading stage's cap are listed as unscanned, but warned of only when
// one of them could have ranked among the hits shown (issue 47: warnings
// only when they change what to do).
func TestUnsearchedOnlyWhenItCouldBeShown(t *testing.T) {
	var a, b strings.Builder
	a.WriteString("# Timers\n\nTimers schedule work.\n\n")
	for k := range 40 {
		fmt.Fprintf(&a, "## Part %d\n\nPlain words, number %d.\n\n", k, k)
	}
	for k := range 8 {
		fmt.Fprintf(&b, "# Timers guide %d\n\nTimers run later; timers repeat.\n\n", k)
	}
	dir := t.TempDir()
	writeManual(t, dir, "m", map[string]string{"a.md": a.String(), "b.md": b.String()})
	f := newFinder(t, dir)
	for _, tt := range []struct {
		name       string
		hits       int
		unsearched bool
	}{
		{"the hits shown outrank every subsection left out", 5, false},
		{"a subsection left out could be among the hits shown", 19, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sum, err := f.Find(context.Background(), Request{ManualID: "m", Query: "timers", MaxCandidates: 20, Hits: tt.hits})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Unscanned < 20 {
				t.Fatalf("unscanned %d: the heading stage's cap left out too little for the test", sum.Unscanned)
			}
			if got := sum.Unsearched > 0; got != tt.unsearched {
				t.Errorf("unsearched %d of %d unscanned, warnings %q", sum.Unsearched, sum.Unscanned, sum.Warnings)
			}
			if warned := slices.ContainsFunc(sum.Warnings, func(w string) bool { return strings.Contains(w, "not searched") }); warned != tt.unsearched {
				t.Errorf("warnings %q", sum.Warnings)
			}
		})
	}
}

func TestSentenceAround(t *testing.T) {
	tests := []struct {
		name, text string
		line       int
		start      int
		want       string
	}{
		{"a line in mid-sentence is read from its sentence's start to its end",
			"One important caveat is that if the `Readable` stream emits an error during\nprocessing, the `Writable` destination _is not closed_ automatically. If an\nerror occurs, it will be necessary to manually close each stream.", 1, 0,
			"One important caveat is that if the `Readable` stream emits an error during processing, the `Writable` destination _is not closed_ automatically. If an error occurs, it will be necessary to manually close each stream."},
		{"a whole sentence stays as it is", "First sentence.\nSecond sentence.\nThird.", 1, 1, "Second sentence."},
		{"a list item is its own", "* `maxBuffer` {number} Largest amount of data allowed on stdout or\n  stderr. If exceeded, the child process is terminated.\n* `killSignal` {string}", 0, 0,
			"* `maxBuffer` {number} Largest amount of data allowed on stdout or stderr. If exceeded, the child process is terminated."},
		{"not across a paragraph", "The end of one\n\nThe start of another", 2, 2, "The start of another"},
		{"a quotation's markers are not text", "> Use it with `server.close` to reap\n> `keep-alive` connections.", 1, 0,
			"Use it with `server.close` to reap `keep-alive` connections."},
		{"a sentence too long keeps its line's part and says it starts inside",
			strings.Repeat("word ", 80) + "\nthe line that matched ends it.", 1, 1, "…the line that matched ends it."},
		{"Japanese full stops", "保険金は、次の場合に\n支払いません。\n次の段落。", 0, 0, "保険金は、次の場合に支払いません。"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.Split(tt.text, "\n")
			start, got := sentenceAround(lines, proseLines(lines, false, false), tt.line)
			if start != tt.start || got != tt.want {
				t.Errorf("sentenceAround = %d, %q; want %d, %q", start, got, tt.start, tt.want)
			}
		})
	}
}

// TestFileBiasOnlyWhenHitsAreOneFile: most candidates in one file is
// worth a warning only when the hits shown all come from it; hits from
// several files already show the others.
func TestFileBiasOnlyWhenHitsAreOneFile(t *testing.T) {
	dir := t.TempDir()
	var a strings.Builder
	a.WriteString("# Widget parts\n\n")
	for i := range 12 {
		fmt.Fprintf(&a, "## Widget part %d\n\nThe widget part %d is fitted with care.\n\n", i, i)
	}
	writeManual(t, dir, "m", map[string]string{"a.md": a.String(), "b.md": "# Widget\n\nAbout the widget.\n"})
	// The same, the file named for what the query asks.
	writeManual(t, dir, "named", map[string]string{"widget-parts.md": a.String(), "b.md": "# Widget\n\nAbout the widget.\n"})
	f := newFinder(t, dir)
	tests := []struct {
		manual   string
		query    string
		warn     bool
		hitFiles int
	}{
		{"m", "widget", false, 2},          // b.md's heading is the query: first, beside a.md's
		{"m", "widget part", true, 1},      // only a.md's sections hold both words
		{"named", "widget part", false, 1}, // widget-parts.md is what the query names
	}
	for _, tt := range tests {
		t.Run(tt.manual+"/"+tt.query, func(t *testing.T) {
			sum, _ := find(t, f, Request{ManualID: tt.manual, Query: tt.query, Hits: DefaultShownHits})
			files := map[string]bool{}
			for _, h := range sum.Hits {
				files[h.Path] = true
			}
			if len(files) != tt.hitFiles {
				t.Fatalf("hits from %d files (%v), want %d", len(files), files, tt.hitFiles)
			}
			if sum.TopFileShare < 0.8 {
				t.Fatalf("top file share %.2f: the case needs most candidates in one file", sum.TopFileShare)
			}
			warned := slices.ContainsFunc(sum.NextActions, func(a NextAction) bool { return a.Action == ActionReduceFileBias })
			if warned != tt.warn {
				t.Errorf("reduce_file_bias = %v, want %v (next actions %+v)", warned, tt.warn, sum.NextActions)
			}
		})
	}
}

// filler is a paragraph that no query of these tests holds a word of,
// making a section too long to be shown whole (shortProse).
var filler = strings.Repeat("Further notes follow on the page below. ", 14) + "\n\n"

// TestFirstHitShowsAShortSectionWhole: the first hit of a short section is
// its whole prose, not only the sentence holding the most terms; the
// other hits keep one sentence.
func TestFirstHitShowsAShortSectionWhole(t *testing.T) {
	dir := t.TempDir()
	writeManual(t, dir, "m", map[string]string{"timers.md": "# Timers\n\n## timeout.refresh()\n\n" +
		"Sets the timer's start time to the current time and reschedules it.\n\n" +
		"Using this on a timer that has already fired will reactivate the timer.\n\n" +
		"## timeout.unref()\n\nThe object will not keep the event loop alive.\nA timer that has fired stays fired.\n"})
	f := newFinder(t, dir)
	sum, _ := find(t, f, Request{ManualID: "m", Query: "timeout.refresh timer already fired", Hits: 2})
	if len(sum.Hits) != 2 {
		t.Fatalf("%d hits, want 2", len(sum.Hits))
	}
	if want := "Sets the timer's start time to the current time and reschedules it. Using this on a timer that has already fired will reactivate the timer."; sum.Hits[0].Snippet != want {
		t.Errorf("first hit's snippet = %q, want the whole section %q", sum.Hits[0].Snippet, want)
	}
	if got := sum.Hits[1].Snippet; strings.Contains(got, "not keep") && strings.Contains(got, "stays fired") {
		t.Errorf("second hit's snippet is its whole section: %q", got)
	}
}

// TestFirstHitSnippetAddsWhatItLacks: the first hit's snippet is its best
// sentence and, when another line holds terms that sentence and the title
// lack, that line's sentence too, with its line number — of equals, the nearest after it (the
// default of the option asked about, not the section's first default);
// the other hits keep one sentence.
func TestFirstHitSnippetAddsWhatItLacks(t *testing.T) {
	dir := t.TempDir()
	exec := "# Child process\n\n## exec(command[, options])\n\n" +
		"* `options` {Object}\n" +
		"  * `timeout` {number} **Default:** `0`\n" +
		"  * `maxBuffer` {number} The most bytes allowed on stdout or stderr. If exceeded,\n" +
		"    the child process is terminated and any output is truncated.\n" +
		"    **Default:** `1024 * 1024`.\n" +
		"  * `killSignal` {string} **Default:** `'SIGTERM'`\n\n" + filler +
		"## execSync(command)\n\n" +
		"* `maxBuffer` {number} Largest amount of data in bytes allowed on stdout or\n" +
		"  stderr. If exceeded, the child process is terminated.\n" +
		"  **Default:** `1024 * 1024`.\n"
	writeManual(t, dir, "m", map[string]string{"child_process.md": exec})
	f := newFinder(t, dir)
	sum, _ := find(t, f, Request{ManualID: "m", Query: "exec maxBuffer exceeded default", Hits: 2})
	if len(sum.Hits) < 2 {
		t.Fatalf("%d hits, want 2", len(sum.Hits))
	}
	first := sum.Hits[0].Snippet
	if !strings.Contains(first, "If exceeded, the child process is terminated") || !strings.HasSuffix(first, "truncated. … line 9: **Default:** `1024 * 1024`.") {
		t.Errorf("first hit's snippet = %q, want the maxBuffer sentence, then its default", first)
	}
	if strings.Contains(sum.Hits[1].Snippet, " … ") {
		t.Errorf("second hit's snippet has a second sentence: %q", sum.Hits[1].Snippet)
	}
}

// TestFirstHitSecondSentence: the first hit's second sentence, one hit
// asked for.
//   - A question asking for a default gets the line stating it, before a
//     line holding two of its terms.
//   - It is another sentence, never the first one's lines left out when
//     it was cut short.
//   - The terms of every line of the first sentence count as shown, so
//     "By default … output" is not taken for holding more than the
//     option's own default line.
func TestFirstHitSecondSentence(t *testing.T) {
	long := "## --heap-limit\n\nThe zebra option" + strings.Repeat(" writes more words here", 12) + "\n" +
		strings.Repeat("and keeps on going with more words\n", 3) + "until the snapshot and the heap limit end it.\n\n" + filler
	tests := []struct {
		name, file, text, query string
		prefix, suffix, lacks   string // of the snippet; "" for no check
	}{
		{"the default asked for", "http.md", "# HTTP\n\n## server.keepAliveTimeout\n\n" +
			"* {number} Timeout in milliseconds. **Default:** `5000`.\n\n" +
			"The milliseconds of inactivity a server waits for before its socket is\n" +
			"destroyed.\n\n" +
			"A value of `0` turns the timeout off for incoming connections.\n\n" + filler,
			"how long is a socket kept on inactivity on incoming connections by default",
			"", "connections. … line 5: * {number} Timeout in milliseconds. **Default:** `5000`.", "inactivity"},
		{"never its own sentence again", "cli.md", "# CLI\n\n" + long, "zebra snapshot heap limit",
			"…", "", " … "},
		{"the whole first sentence counts", "cp.md", "# CP\n\n## exec(command)\n\n" +
			"* `maxBuffer` {number} The most bytes exec allows on stdout or\n" +
			"  stderr. If exceeded, any output is truncated.\n" +
			"  **Default:** `1024 * 1024`.\n\n" +
			"By default, the output is decoded as UTF-8.\n\n" + filler,
			"exec maxBuffer output default", "", "truncated. … line 7: **Default:** `1024 * 1024`.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeManual(t, dir, "m", map[string]string{tt.file: tt.text})
			f := newFinder(t, dir)
			sum, _ := find(t, f, Request{ManualID: "m", Query: tt.query, Hits: 1})
			if len(sum.Hits) != 1 {
				t.Fatalf("%d hits, want 1", len(sum.Hits))
			}
			got := sum.Hits[0].Snippet
			if !strings.HasPrefix(got, tt.prefix) || !strings.HasSuffix(got, tt.suffix) || tt.lacks != "" && strings.Contains(got, tt.lacks) {
				t.Errorf("snippet = %q, want prefix %q, suffix %q, and no %q", got, tt.prefix, tt.suffix, tt.lacks)
			}
		})
	}
}

// TestMisspeltWordsAreCorrected: a query word no section of the manual
// holds is searched as the manual's nearest word too, and the summary says
// so; a word the manual holds is never corrected, and Japanese words are
// left alone.
func TestMisspeltWordsAreCorrected(t *testing.T) {
	dir := t.TempDir()
	writeManual(t, dir, "m", map[string]string{
		"process.md": "# Process\n\n## Event: 'uncaughtException'\n\nEmitted when an uncaughtException bubbles up to the event loop.\n\n" +
			"## Event: 'exit'\n\nEmitted when the process is about to exit.\n\n## process.kill(pid)\n\nSends a signal to the process.\n",
		"ja.md": "# 火災保険\n\n## 保険金の請求\n\n請求の手順を説明します。\n",
	})
	f := newFinder(t, dir)
	tests := []struct {
		query   string
		first   string // title of the first hit
		correct []rank.Correction
	}{
		{"process.on uncaugthException", "Event: 'uncaughtException'", []rank.Correction{{Word: "uncaugthexception", To: "uncaughtexception"}}},
		{"uncaughtException", "Event: 'uncaughtException'", nil},
		{"process kill", "process.kill(pid)", nil},
		{"保険金の請求", "保険金の請求", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			sum, _ := find(t, f, Request{ManualID: "m", Query: tt.query, Hits: DefaultShownHits})
			if len(sum.Hits) == 0 || sum.Hits[0].Title != tt.first {
				t.Fatalf("hits %+v, want %q first", sum.Hits, tt.first)
			}
			if !slices.Equal(sum.Corrections, tt.correct) {
				t.Errorf("corrections %+v, want %+v", sum.Corrections, tt.correct)
			}
		})
	}
}

// TestHeadingWithoutTextShowsItsSections: a hit whose heading has no line
// of its own shows its subsections' titles, where it showed nothing.
func TestHeadingWithoutTextShowsItsSections(t *testing.T) {
	dir := t.TempDir()
	writeManual(t, dir, "m", map[string]string{"buffer.md": "# Buffer\n\n## Class: Buffer\n\n" +
		"### Static method: Buffer.alloc(size)\n\nAllocates a new Buffer of size bytes.\n\n" +
		"### Static method: Buffer.from(array)\n\nAllocates a new Buffer using an array of bytes.\n"})
	f := newFinder(t, dir)
	sum, _ := find(t, f, Request{ManualID: "m", Query: "Class: Buffer", Hits: DefaultShownHits})
	if len(sum.Hits) == 0 || sum.Hits[0].Title != "Class: Buffer" {
		t.Fatalf("hits %+v, want Class: Buffer first", sum.Hits)
	}
	h := sum.Hits[0]
	if want := "sections: Static method: Buffer.alloc(size); Static method: Buffer.from(array)"; h.Snippet != want || h.SnippetLine != 5 {
		t.Errorf("snippet %q at line %d, want %q at line 5", h.Snippet, h.SnippetLine, want)
	}
	// Lines of markup alone (Node.js's zlib page, a version history) are
	// no text of its own.
	writeManual(t, dir, "m", map[string]string{"zlib.md": "# zlib\n\n## Memory usage tuning\n\n<!--type=misc-->\n<!-- YAML\nadded: v0.5.8\n-->\n\n" +
		"### For zlib-based streams\n\nThe memory requirements for deflate are (in bytes):\n\n" +
		"### For Brotli-based streams\n\nThere are equivalents to the zlib options for Brotli-based streams.\n"})
	sum, _ = find(t, f, Request{ManualID: "m", Query: "Memory usage tuning", Hits: DefaultShownHits})
	if len(sum.Hits) == 0 || sum.Hits[0].Title != "Memory usage tuning" {
		t.Fatalf("hits %+v, want Memory usage tuning first", sum.Hits)
	}
	h = sum.Hits[0]
	if want := "sections: For zlib-based streams; For Brotli-based streams"; h.Snippet != want || h.SnippetLine != 10 {
		t.Errorf("snippet %q at line %d, want %q at line 10", h.Snippet, h.SnippetLine, want)
	}
}

// TestNotableStages: of the stages that find a term as written, only the
// first is shown; the others are kept in order.
func TestNotableStages(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{[]string{"exact", "normalized", "loose", "heading"}, []string{"exact", "heading"}},
		{[]string{"normalized", "loose", "synonym", "exception"}, []string{"normalized", "synonym", "exception"}},
		{[]string{"loose"}, []string{"loose"}},
		{[]string{"heading", "widen"}, []string{"heading", "widen"}},
		{nil, []string{}},
	}
	for _, tt := range tests {
		if got := NotableStages(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("NotableStages(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestShortSectionMarksWhatItLeavesOut: a short section shown whole marks
// a code block where it stood and parts two paragraphs the first of which
// does not end a sentence, instead of running them together.
func TestShortSectionMarksWhatItLeavesOut(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"code between sentences", "# Read lines\n\nConsume a file one line at a time with a loop:\n\n```js\nfor await (const l of rl) {}\n```\n\nAlternatively, use the line event.\n",
			"Consume a file one line at a time with a loop: [code] Alternatively, use the line event."},
		{"code at the end", "# Read lines\n\nUse a loop:\n\n```js\nfor await (const l of rl) {}\n```\n", "Use a loop: [code]"},
		{"list item then paragraph", "# timeout.refresh()\n\n* Returns: {Timeout} a reference to `timeout`\n\nSets the timer's start time to now.\n",
			"* Returns: {Timeout} a reference to `timeout` ¶ Sets the timer's start time to now."},
		{"lines of one paragraph", "# Timers\n\nA timer is\nan object.\n\nIt fires once.\n", "A timer is an object. It fires once."},
		{"Japanese", "# 解約\n\n解約の手続きは\n書面で行います。\n", "解約の手続きは書面で行います。"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.Split(strings.TrimSuffix(tt.text, "\n"), "\n")
			got, _, ok := shortProse(lines, proseLines(lines, true, true))
			if !ok || got != tt.want {
				t.Errorf("shortProse = %q (%v), want %q", got, ok, tt.want)
			}
		})
	}
}

// TestFillGapsNamesTheToolThatFillsIt: a word no section holds sends the
// caller back to manual_find with the manual's own words; an exceptions
// question with no exception found, to manual_excepts.
func TestFillGapsNamesTheToolThatFillsIt(t *testing.T) {
	f, _ := sampleFinder(t)
	tests := []struct {
		query string
		tool  string // of the fill_gaps action; "" for none
		says  string
	}{
		{"xylophone zither", "manual_find", "in also"},
		{"what are the exceptions for xylophone", "manual_excepts", "no exception wording"},
		{"cancellation", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			sum, _ := find(t, f, Request{ManualID: "m", Query: tt.query})
			i := slices.IndexFunc(sum.NextActions, func(a NextAction) bool { return a.Action == ActionFillGaps })
			switch {
			case tt.tool == "" && i >= 0:
				t.Fatalf("fill_gaps %+v, want none", sum.NextActions[i])
			case tt.tool != "" && i < 0:
				t.Fatalf("next actions %+v, want fill_gaps", sum.NextActions)
			case i >= 0 && (sum.NextActions[i].Tool != tt.tool || !strings.Contains(sum.NextActions[i].Reason, tt.says)):
				t.Errorf("fill_gaps %+v, want tool %s saying %q", sum.NextActions[i], tt.tool, tt.says)
			}
		})
	}
}
