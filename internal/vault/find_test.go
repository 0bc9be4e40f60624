package vault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

func TestFind(t *testing.T) {
	e := newEnv(t, Options{})
	files := map[string]string{
		"notes/claims.md":               "# 保険金の請求\n支払いの対象外となる場合があります。\n医療・保険の手続き\n",
		"notes/policy.md":               "## 免責事項\n支払い の 対象外 の例\nＰｒｅ－ａｕｔｈｏｒｉｓａｔｉｏｎ is required\n",
		"drafts/flow.md":                "pre authorisation step\npreauthorisation again\n",
		"artifacts/daily/2026-11-22.md": "- 対象外 noted\n",
	}
	for p, c := range files {
		if _, err := e.v.Create(p, []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		if _, err := e.v.Create(fmt.Sprintf("drafts/bias%d.md", i), []byte("alpha\n")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.v.Create("notes/many.md", []byte(strings.Repeat("beta\n", 9))); err != nil {
		t.Fatal(err)
	}
	e.v.Create("notes/one.md", []byte("beta\n"))
	tests := []struct {
		name    string
		req     FindRequest
		want    []string // path:line:stage of every candidate, sorted
		actions []string
		cutoff  string
	}{
		{"normalized and loose, Japanese", FindRequest{Query: "支払いの対象外", Dir: "notes"},
			[]string{"notes/claims.md:2:normalized", "notes/policy.md:2:loose"}, []string{ActionFillGaps, ActionVerifyCoverage}, ""},
		{"width and case", FindRequest{Query: "pre-authorisation"},
			[]string{"drafts/flow.md:1:loose", "drafts/flow.md:2:loose", "notes/policy.md:3:normalized"}, []string{ActionCompleted}, ""},
		{"middle dot", FindRequest{Query: "医療保険"}, []string{"notes/claims.md:3:loose"}, []string{ActionFillGaps, ActionVerifyCoverage}, ""},
		{"scope leaves the daily log out", FindRequest{Query: "対象外", Glob: "notes/*.md"},
			[]string{"notes/claims.md:2:normalized", "notes/policy.md:2:normalized"}, []string{ActionFillGaps, ActionVerifyCoverage}, ""},
		{"nothing found", FindRequest{Query: "zzqq"}, nil, []string{ActionFillGaps}, ""},
		{"bias to one file", FindRequest{Query: "beta"}, nil, []string{ActionReduceFileBias}, ""},
		{"spread out", FindRequest{Query: "alpha"}, nil, []string{ActionCompleted}, ""},
		// Six lines match, two are shown: not a shortage, but a list to
		// check (or to ask again with a higher cap).
		{"candidate cap", FindRequest{Query: "alpha", MaxCandidates: 2}, nil, []string{ActionVerifyCoverage}, "candidate_cap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.v.Find(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range res.Candidates {
				got = append(got, fmt.Sprintf("%s:%d:%s", c.Path, c.Line, c.Stage))
			}
			slices.Sort(got)
			if tt.want != nil && !slices.Equal(got, tt.want) {
				t.Errorf("candidates %v, want %v", got, tt.want)
			}
			if !slices.Equal(res.NextActions, tt.actions) || res.CutoffReason != tt.cutoff {
				t.Errorf("next %v cutoff %q, want %v %q (stats %+v)", res.NextActions, res.CutoffReason, tt.actions, tt.cutoff, res.Stats)
			}
			if res.NextActions == nil || res.Warnings == nil || res.Candidates == nil {
				t.Error("lists must be empty, not null")
			}
		})
	}
	if _, err := e.v.Find(context.Background(), FindRequest{Query: "  "}); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("empty query: %v", err)
	}
	if _, err := e.v.Find(context.Background(), FindRequest{Query: "x", Glob: "["}); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("bad glob: %v", err)
	}
	if _, err := e.v.Find(context.Background(), FindRequest{Query: "x", Dir: "../outside"}); apperr.CodeOf(err) != apperr.PathOutsideVault {
		t.Errorf("escape: %v", err)
	}
}

// TestFindWithAlso: a line holding any phrasing is found, and says which;
// a phrasing that holds nothing changes nothing.
func TestFindWithAlso(t *testing.T) {
	e := newEnv(t, Options{})
	e.v.Create("notes/a.md", []byte("cancel the contract\nterminate early\nnothing here\n"))
	lines := func(req FindRequest) []string {
		t.Helper()
		res, err := e.v.Find(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range res.Candidates {
			out = append(out, fmt.Sprintf("%d:%s", c.Line, strings.Join(c.Phrasings, ",")))
		}
		return out
	}
	if got := lines(FindRequest{Query: "cancel"}); !slices.Equal(got, []string{"1:"}) {
		t.Errorf("query alone: %v", got)
	}
	if got := lines(FindRequest{Query: "cancel", Also: []string{"terminate", "zzqq"}}); !slices.Equal(got, []string{"1:query", "2:also:1"}) {
		t.Errorf("with also: %v", got)
	}
	if got := lines(FindRequest{Query: "cancel", Also: []string{"zzqq"}}); !slices.Equal(got, []string{"1:query"}) {
		t.Errorf("a phrasing holding nothing: %v", got)
	}
	if _, err := e.v.Find(context.Background(), FindRequest{Query: "cancel", Also: []string{" "}}); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("an empty phrasing: %v", err)
	}
}

// endingCtx is a context that ends after its Err has said "go on" a given
// number of times: a search is cancelled at a known point of its work, with
// no clock in the test.
type endingCtx struct {
	context.Context
	left int
}

func (c *endingCtx) Err() error {
	if c.left <= 0 {
		return context.Canceled
	}
	c.left--
	return nil
}

// A cancelled Find stops where it stands, inside a file, and says why
// (context.Canceled), instead of reading on to its time budget (a minute
// by default).
func TestFindStopsWhenCancelled(t *testing.T) {
	e := newEnv(t, Options{})
	for _, p := range []string{"notes/a.md", "notes/b.md"} {
		if _, err := e.v.Create(p, []byte(strings.Repeat("a line to find\n", 3*findCheckEvery))); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.v.Find(ctx, FindRequest{Query: "find"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the call: err %v", err)
	}
	// The first file's first look passes, the next ends the call: inside
	// notes/a.md, at its first check.
	res, err := e.v.Find(&endingCtx{Context: context.Background(), left: 1}, FindRequest{Query: "find", MaxCandidates: 10_000})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during the search: err %v", err)
	}
	if res.Stats.FilesScanned != 1 || res.Stats.NormalizedHits != findCheckEvery {
		t.Errorf("stopped after %d files and %d lines, want 1 and %d", res.Stats.FilesScanned, res.Stats.NormalizedHits, findCheckEvery)
	}
}

// TestFindRanksFiles: every matching line is found, and the files holding
// them come in the search engine's order — the file most about the query
// first, whatever its path — so that a cap keeps the best file's lines. A
// phrasing ranks as the query does.
func TestFindRanksFiles(t *testing.T) {
	e := newEnv(t, Options{})
	files := map[string]string{
		// Sorted first, and mentions the topic once in passing.
		"notes/a-misc.md": "# Misc\nshopping list\nthe retry budget came up at lunch\nbuy milk\n",
		// Sorted last, and is about it: heading, file name and text.
		"notes/z-retry-budget.md": "# Retry budget\nThe retry budget caps retries per client.\nSpend the retry budget before paging.\n",
		"notes/m-other.md":        "# Other\nnothing to see\n",
		"notes/b-japanese.md":     "# 免責\n支払いの対象外となる場合\n",
		"notes/y-japanese.md":     "# 支払いの対象外\n対象外の一覧。支払いの対象外となる場合は次のとおり。\n",
	}
	for p, c := range files {
		if _, err := e.v.Create(p, []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	find := func(req FindRequest) ([]string, FindResult) {
		t.Helper()
		res, err := e.v.Find(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range res.Candidates {
			got = append(got, fmt.Sprintf("%s:%d", c.Path, c.Line))
		}
		return got, res
	}
	tests := []struct {
		name string
		req  FindRequest
		want []string
		cut  string
	}{
		{"the file about it first", FindRequest{Query: "retry budget"},
			[]string{"notes/z-retry-budget.md:1", "notes/z-retry-budget.md:2", "notes/z-retry-budget.md:3", "notes/a-misc.md:3"}, ""},
		{"a cap keeps the best file's lines", FindRequest{Query: "retry budget", MaxCandidates: 2},
			[]string{"notes/z-retry-budget.md:1", "notes/z-retry-budget.md:2"}, "candidate_cap"},
		{"Japanese", FindRequest{Query: "支払いの対象外"},
			[]string{"notes/y-japanese.md:1", "notes/y-japanese.md:2", "notes/b-japanese.md:2"}, ""},
		{"a phrasing ranks too", FindRequest{Query: "zzqq", Also: []string{"retry budget"}},
			[]string{"notes/z-retry-budget.md:1", "notes/z-retry-budget.md:2", "notes/z-retry-budget.md:3", "notes/a-misc.md:3"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, res := find(tt.req)
			if !slices.Equal(got, tt.want) || res.CutoffReason != tt.cut {
				t.Errorf("got %v cut %q, want %v %q", got, res.CutoffReason, tt.want, tt.cut)
			}
		})
	}
}

// Whatever a caller sends as query and phrasings, Find answers with the
// lines that hold it, ranked or, when the engine cannot read the query, in
// path order: never an error of the ranking's own.
func TestFindRanksOddQueries(t *testing.T) {
	e := newEnv(t, Options{})
	for p, c := range map[string]string{
		"notes/a.md": "# A\n\"quoted\" -- AND OR NOT * ( ) ^ x\n\x00nul\n" + strings.Repeat("long ", 300) + "\n",
		"notes/b.md": "-- AND OR NOT * ( ) ^ \"quoted\"\n\x00nul\n" + strings.Repeat("long ", 300) + "\n",
	} {
		if _, err := e.v.Create(p, []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name    string
		req     FindRequest
		lines   int
		warning string // a warning that must be given, "" for none
	}{
		{"operators only", FindRequest{Query: "-- AND OR NOT * ( ) ^"}, 2, ""},
		{"an open quote", FindRequest{Query: "\"quoted"}, 2, ""},
		{"a NUL", FindRequest{Query: "\x00nul"}, 2, ""},
		{"longer than a search query", FindRequest{Query: strings.TrimSpace(strings.Repeat("long ", 300))}, 2,
			"not ranked: query is 1499 characters; at most 1000 are allowed; lines are in path order"},
		{"phrasings of punctuation", FindRequest{Query: "quoted", Also: []string{"*", "(", "\""}}, 2, ""},
		{"a phrasing the engine cannot read", FindRequest{Query: "quoted", Also: []string{strings.Repeat("long ", 300)}}, 4,
			"also[0] left out of the ranking: query is 1499 characters; at most 1000 are allowed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.v.Find(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Candidates) != tt.lines {
				t.Errorf("%d lines, want %d: %+v", len(res.Candidates), tt.lines, res.Candidates)
			}
			if tt.warning != "" && !slices.Contains(res.Warnings, tt.warning) {
				t.Errorf("warnings %q, want %q among them", res.Warnings, tt.warning)
			}
		})
	}
}

// A Find cut short says why, and which cut matters most: files left
// unread (the time budget, the most lines a Find holds) before lines left
// out (the caller's cap). What was read is still ranked when time allows,
// and every file holding a match is ranked, however many there are.
func TestFindCutShort(t *testing.T) {
	create := func(t *testing.T, v *Vault, p, content string) {
		t.Helper()
		if _, err := v.Create(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("the most lines a Find holds", func(t *testing.T) {
		e := newEnv(t, Options{})
		create(t, e.v, "notes/a-best.md", "# Retry budget\nthe retry budget\n")
		create(t, e.v, "notes/b-mid.md", "# Misc\nretry budget\nbuy milk\n")
		// Read last, and cut in its middle: its lines hold the words only
		// without the space (a loose match), so the engine, which reads
		// words, does not find the file.
		create(t, e.v, "notes/z-huge.md", strings.Repeat("x retrybudget y\n", maxFoundLines+5))
		res, err := e.v.Find(context.Background(), FindRequest{Query: "retry budget", MaxCandidates: 4})
		if err != nil {
			t.Fatal(err)
		}
		if lines := res.Stats.NormalizedHits + res.Stats.LooseHits; res.CutoffReason != CutoffLineCap || lines != maxFoundLines {
			t.Errorf("cutoff %q after %d lines, want %q after %d", res.CutoffReason, lines, CutoffLineCap, maxFoundLines)
		}
		// The file the cap cut is ranked like the others — after those the
		// engine found — not put first for want of a place.
		var got []string
		for _, c := range res.Candidates {
			got = append(got, fmt.Sprintf("%s:%d", c.Path, c.Line))
		}
		if want := []string{"notes/a-best.md:1", "notes/a-best.md:2", "notes/b-mid.md:2", "notes/z-huge.md:1"}; !slices.Equal(got, want) {
			t.Errorf("lines %v, want %v", got, want)
		}
		// Nearly every line is in one file, but files were left unread:
		// not a bias to reduce, a search to check.
		if !slices.Equal(res.NextActions, []string{ActionVerifyCoverage}) {
			t.Errorf("next_actions %v, want [verify_coverage]", res.NextActions)
		}
	})
	t.Run("the time budget", func(t *testing.T) {
		// A clock that moves a second each time it is read, once the files
		// are written: the budget of 2.5 s lets two files be read.
		var ticking bool
		now := fixedNow()
		e := newEnv(t, Options{Now: func() time.Time {
			if ticking {
				now = now.Add(time.Second)
			}
			return now
		}})
		for i := range 5 {
			create(t, e.v, fmt.Sprintf("notes/%d.md", i), "alpha\nalpha\nalpha\n")
		}
		// Only the files the budget leaves unread hold "beta".
		if _, err := e.v.Overwrite("notes/3.md", []byte("beta\n")); err != nil {
			t.Fatal(err)
		}
		ticking = true
		res, err := e.v.Find(context.Background(), FindRequest{Query: "alpha", MaxCandidates: 2, TimeBudget: 2500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if res.CutoffReason != CutoffTimeBudget || res.Stats.FilesScanned != 2 || len(res.Candidates) != 2 {
			t.Errorf("cutoff %q after %d files, %d lines shown; want %q after 2 files, 2 lines", res.CutoffReason, res.Stats.FilesScanned, len(res.Candidates), CutoffTimeBudget)
		}
		if !slices.Contains(res.Warnings, "not ranked: the time budget ran out; lines are in path order") {
			t.Errorf("warnings %q: the order is not said to be the paths'", res.Warnings)
		}
		// Nothing found in what was read is no shortage: the rest was
		// not read.
		now = fixedNow()
		res, err = e.v.Find(context.Background(), FindRequest{Query: "beta", TimeBudget: 2500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.NextActions, []string{ActionVerifyCoverage}) || !slices.Contains(res.Warnings, "incomplete: time_budget stopped the scan after 2 files; the others were not read") {
			t.Errorf("nothing in the files read: next_actions %v, warnings %q; want [verify_coverage] and the scan said incomplete", res.NextActions, res.Warnings)
		}
	})
	t.Run("more files than a channel's depth", func(t *testing.T) {
		// 250 files the engine finds, and one it does not (the words
		// only without their space), whose path sorts first: every file
		// the engine finds comes before it, the 250th too — past the
		// manuals' channel depth of 200.
		e := newEnv(t, Options{})
		for i := range 250 {
			create(t, e.v, fmt.Sprintf("notes/%03d.md", i+1), "a note on the retry budget"+strings.Repeat(" and much else", i)+"\n")
		}
		create(t, e.v, "notes/000-loose.md", "retrybudget\n")
		res, err := e.v.Find(context.Background(), FindRequest{Query: "retry budget", MaxCandidates: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(res.Candidates); n != 251 || res.Candidates[n-1].Path != "notes/000-loose.md" {
			t.Errorf("%d lines, the last in %s; want 251, the last in notes/000-loose.md", n, res.Candidates[n-1].Path)
		}
	})
}

func TestFirstHeading(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"# Retry budget\ntext\n", "Retry budget"},
		{"intro\n\n## Second level ##\n", "Second level"},
		{"# C#\n", "C#"},
		{"#\tTabbed\n", "Tabbed"},
		{"#hashtag\n# Title\n", "Title"},
		{"    # indented code\n# Title\n", "Title"},
		{"```sh\n# install\n```\n# Title\n", "Title"},
		{"````md\n```sh\n# inside\n```\n# still inside\n````\n# Title\n", "Title"},
		{"~~~\n# inside\n```\n# inside too\n~~~\n# Title\n", "Title"},
		{"---\ntitle: x\n# draft\n---\n# Title\n", "Title"},
		{"no heading\n", ""},
		{"", ""},
	} {
		if got := firstHeading(tt.text); got != tt.want {
			t.Errorf("firstHeading(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// langspec's own state (.system/, whose coverage lists every path read) is
// left out of a search of the whole vault, by vault_find and vault_search
// alike, and read when the search names that folder.
func TestSearchesLeaveTheStateOut(t *testing.T) {
	e := newEnv(t, Options{})
	if _, err := e.v.Create("notes/retention.md", []byte("# Retention\nbackup retention is 35 days\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.v.System().Create(".system/coverage.json", []byte(`{"files":{"notes/retention.md":{}}}`+"\n")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dir  string
		want []string // the files a search for "retention" reads lines of
	}{
		{"", []string{"notes/retention.md"}},
		{".system", []string{".system/coverage.json"}},
		{"./.SYSTEM/", []string{".system/coverage.json"}},
	} {
		found, err := e.v.Find(context.Background(), FindRequest{Query: "retention", Dir: tt.dir})
		if err != nil {
			t.Fatal(err)
		}
		searched, err := e.v.Search(context.Background(), SearchRequest{Query: "retention", Path: tt.dir})
		if err != nil {
			t.Fatal(err)
		}
		var byFind, bySearch []string
		for _, c := range found.Candidates {
			if !slices.Contains(byFind, c.Path) {
				byFind = append(byFind, c.Path)
			}
		}
		for _, m := range searched.Matches {
			if !slices.Contains(bySearch, m.Path) {
				bySearch = append(bySearch, m.Path)
			}
		}
		if !slices.Equal(byFind, tt.want) || !slices.Equal(bySearch, tt.want) {
			t.Errorf("dir %q: vault_find read %v, vault_search %v; want %v", tt.dir, byFind, bySearch, tt.want)
		}
	}
}

// A loose match (separators ignored) is a term written with separators in
// it, not the end of one word and the start of the next: "RTO" is not in
// "or too slow", and "R-T-O" and "R.T.O." are.
func TestFindLooseKeepsToWords(t *testing.T) {
	e := newEnv(t, Options{})
	if _, err := e.v.Create("notes/a.md", []byte("paths broken or too slow\nthe R-T-O target\nthe R.T.O. again\nFor points older\n")); err != nil {
		t.Fatal(err)
	}
	res, err := e.v.Find(context.Background(), FindRequest{Query: "RTO"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Candidates {
		got = append(got, fmt.Sprintf("%d:%s", c.Line, c.Stage))
	}
	if want := []string{"2:loose", "3:loose"}; !slices.Equal(got, want) {
		t.Errorf("lines %v, want %v", got, want)
	}
}
