package adaptive

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// clock is the tests' fake clock: time moves only when a test says so.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func mustOpen(tb testing.TB, opts Options) *Stats {
	tb.Helper()
	s, err := Open(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// phase is a run of n finds, one minute apart, each followed by one use:
// one of its candidates, or with miss a ref it did not return.
type phase struct {
	after             time.Duration // clock advance before the phase
	n                 int
	miss, stage4, cut bool
}

// feeder numbers traces across phases so that every find is its own query.
type feeder struct {
	s   *Stats
	c   *clock
	seq int
}

func (f *feeder) run(tb testing.TB, phases ...phase) {
	tb.Helper()
	for _, p := range phases {
		f.c.Advance(p.after)
		for range p.n {
			f.seq++
			trace := fmt.Sprintf("t-%d", f.seq)
			node := fmt.Sprint(f.seq)
			r := FindRecord{TraceID: trace, Intent: "lookup", Candidates: 2, Files: 1, Stage4: p.stage4,
				CharsIn: 40, CharsOut: 400, Refs: []string{Ref("m", "a.md", node), Ref("m", "b.md", node)}}
			if p.cut {
				r.CutoffReason = "time_budget"
			}
			if err := f.s.RecordFind(r); err != nil {
				tb.Fatal(err)
			}
			used := r.Refs[0]
			if p.miss {
				used = Ref("m", "elsewhere.md", node)
			}
			if err := f.s.RecordUse(trace, used); err != nil {
				tb.Fatal(err)
			}
			f.c.Advance(time.Minute)
		}
	}
}

// readLines parses every line of the stats file.
func readLines(tb testing.TB, path string) []map[string]any {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if len(sc.Bytes()) >= maxLine {
			tb.Errorf("line of %d bytes, want under %d", len(sc.Bytes()), maxLine)
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			tb.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// reasons lists the reason of every thresholds record, in order.
func reasons(lines []map[string]any) []string {
	var out []string
	for _, l := range lines {
		if l["kind"] == "thresholds" {
			out = append(out, l["reason"].(string))
		}
	}
	return out
}

func wantCode(tb testing.TB, err error, code apperr.Code) {
	tb.Helper()
	if err == nil || apperr.CodeOf(err) != code {
		tb.Fatalf("err = %v, want code %s", err, code)
	}
}

func TestDefaults(t *testing.T) {
	if got, want := Defaults(), (Thresholds{CandidateLow: 3, FileBias: 0.80}); got != want {
		t.Fatalf("Defaults() = %+v, want %+v", got, want)
	}
	if got := mustOpen(t, Options{}).Thresholds(); got != Defaults() {
		t.Fatalf("new Stats has %+v, want the defaults", got)
	}
}

func TestEstTokens(t *testing.T) {
	tests := []struct {
		in, out               int
		wantIn, wantOut, want int
	}{
		{0, 0, 0, 0, 0},
		{1, 0, 1, 0, 1},
		{5, 3, 2, 1, 2},
		{4, 4, 1, 1, 2},
		{3, 3, 1, 1, 2},
		{-5, 8, 0, 2, 2}, // negative counts are treated as 0
	}
	for _, tt := range tests {
		in, out, total := EstTokens(tt.in, tt.out)
		if in != tt.wantIn || out != tt.wantOut || total != tt.want {
			t.Errorf("EstTokens(%d, %d) = %d, %d, %d; want %d, %d, %d", tt.in, tt.out, in, out, total, tt.wantIn, tt.wantOut, tt.want)
		}
	}
}

func TestRef(t *testing.T) {
	tests := []struct {
		name string
		a, b [3]string
		same bool
	}{
		{"stable", [3]string{"m", "a.md", "n1"}, [3]string{"m", "a.md", "n1"}, true},
		{"node differs", [3]string{"m", "a.md", "n1"}, [3]string{"m", "a.md", "n2"}, false},
		{"manual differs", [3]string{"m1", "a.md", "n"}, [3]string{"m2", "a.md", "n"}, false},
		{"# in path is not a separator", [3]string{"m", "a#b", "c"}, [3]string{"m", "a", "b#c"}, false},
		{"shifted boundary", [3]string{"ab", "c", ""}, [3]string{"a", "bc", ""}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := Ref(tt.a[0], tt.a[1], tt.a[2]), Ref(tt.b[0], tt.b[1], tt.b[2])
			if !validRef(a) || !validRef(b) {
				t.Fatalf("Ref gave %q, %q; want 16 lower-case hex digits", a, b)
			}
			if (a == b) != tt.same {
				t.Fatalf("Ref(%q) = %s, Ref(%q) = %s; same = %v, want %v", tt.a, a, tt.b, b, a == b, tt.same)
			}
		})
	}
}

// alternating is n single-find phases with stage 4 firing on every second
// find, so its share is never more than half.
func alternating(n int) []phase {
	var ps []phase
	for i := range n {
		ps = append(ps, phase{n: 1, stage4: i%2 == 1})
	}
	return ps
}

func concat(pss ...[]phase) []phase {
	var out []phase
	for _, ps := range pss {
		out = append(out, ps...)
	}
	return out
}

func TestPolicy(t *testing.T) {
	day := 24 * time.Hour
	days := func(n int, p phase) []phase {
		var ps []phase
		for range n {
			p.after = day
			ps = append(ps, p)
		}
		return ps
	}
	tests := []struct {
		name    string
		phases  []phase
		want    Thresholds
		reasons []string
	}{
		{"no move with 19 samples", []phase{{n: 20, miss: true}}, Defaults(), nil},
		{"loosen at 20 samples of low recall", []phase{{n: 21, miss: true}}, Thresholds{4, 0.77}, []string{ReasonLoosen}},
		{"loosen once within 24h", []phase{{n: 60, miss: true}}, Thresholds{4, 0.77}, []string{ReasonLoosen}},
		{"no second move 23h later", []phase{{n: 30, miss: true}, {after: 23 * time.Hour, n: 30, miss: true}},
			Thresholds{4, 0.77}, []string{ReasonLoosen}},
		{"second move 24h later", []phase{{n: 30, miss: true}, {after: day, n: 5, miss: true}},
			Thresholds{5, 0.74}, []string{ReasonLoosen, ReasonLoosen}},
		{"loosen clamps at 6 and 0.70", days(6, phase{n: 25, miss: true}),
			Thresholds{6, 0.70}, []string{ReasonLoosen, ReasonLoosen, ReasonLoosen, ReasonLoosen}},
		{"recall exactly at the floor keeps", []phase{{n: 1, miss: true}, {n: 20}}, Defaults(), nil},
		{"tighten when recall is high and stage 4 fires often", []phase{{n: 30, stage4: true}},
			Thresholds{2, 0.83}, []string{ReasonTighten}},
		{"tighten clamps at 2 and 0.90", days(6, phase{n: 25, stage4: true}),
			Thresholds{2, 0.90}, []string{ReasonTighten, ReasonTighten, ReasonTighten, ReasonTighten}},
		{"keep when stage 4 is rare", []phase{{n: 30}}, Defaults(), nil},
		{"keep when stage 4 fires in exactly half", alternating(40), Defaults(), nil},
		{"rollback when recall falls 3 points", []phase{{n: 30, stage4: true}, {n: 2, miss: true, stage4: true}},
			Defaults(), []string{ReasonTighten, ReasonRollback}},
		{"no rollback when recall falls 2.4 points", []phase{{n: 40, stage4: true}, {n: 2, miss: true, stage4: true}},
			Thresholds{2, 0.83}, []string{ReasonTighten}},
		{"rollback when cutoff rate rises 5 points", []phase{{n: 100, stage4: true}, {n: 5, stage4: true, cut: true}},
			Defaults(), []string{ReasonTighten, ReasonRollback}},
		{"no rollback when cutoff rate rises 4 points", []phase{{n: 100, stage4: true}, {n: 4, stage4: true, cut: true}},
			Thresholds{2, 0.83}, []string{ReasonTighten}},
		{"no rollback at the defaults", []phase{{n: 30}, {n: 20, cut: true}}, Defaults(), nil},
		{"a rollback starts a new 24h wait", concat(
			[]phase{{n: 30, stage4: true}, {n: 2, miss: true, stage4: true}, {n: 40, miss: true}},
			[]phase{{after: day, n: 1, miss: true}}),
			Thresholds{4, 0.77}, []string{ReasonTighten, ReasonRollback, ReasonLoosen}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "stats.jsonl")
			c := newClock()
			s := mustOpen(t, Options{Path: path, Now: c.Now})
			(&feeder{s: s, c: c}).run(t, tt.phases...)
			if got := s.Thresholds(); got != tt.want {
				t.Errorf("Thresholds() = %+v, want %+v", got, tt.want)
			}
			if got := s.Summary().Thresholds; got != tt.want {
				t.Errorf("Summary().Thresholds = %+v, want %+v", got, tt.want)
			}
			var got []string
			if _, err := os.Stat(path); err == nil {
				got = reasons(readLines(t, path))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.reasons) {
				t.Errorf("thresholds records %v, want %v", got, tt.reasons)
			}
		})
	}
}

func TestRecordLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stats.jsonl")
	c := newClock()
	s := mustOpen(t, Options{Path: path, Now: c.Now})
	refs := make([]string, 0, 260)
	for i := range 250 {
		refs = append(refs, Ref("m", "a.md", fmt.Sprint(i)))
	}
	// Duplicates are dropped before the cap, and would count twice in recall_q.
	dup := append(append([]string{}, refs[:10]...), refs...)
	if err := s.RecordFind(FindRecord{TraceID: "trace-1", Intent: "lookup", Candidates: 250, Files: 3,
		CutoffReason: "candidate_cap", CharsIn: 5, CharsOut: 3, Refs: dup, DurationMS: 12}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordUse("trace-1", refs[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordUse("unknown-trace", refs[1]); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3", len(lines))
	}
	find := lines[0]
	tests := []struct {
		key  string
		want any
	}{
		{"kind", "find"},
		{"ts", "2026-03-01T09:00:00Z"},
		{"trace_id", "trace-1"},
		{"intent", "lookup"},
		{"cutoff_reason", "candidate_cap"},
		{"candidates", 250.0},
		{"est_tokens_in", 2.0},
		{"est_tokens_out", 1.0},
		{"est_tokens", 2.0},
		{"duration_ms", 12.0},
		{"thresholds", map[string]any{"candidate_low_threshold": 3.0, "file_bias_threshold": 0.8}},
	}
	for _, tt := range tests {
		if got := find[tt.key]; fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("find line %s = %v, want %v", tt.key, got, tt.want)
		}
	}
	if got, want := fmt.Sprint(find["refs"]), fmt.Sprint(refs[:maxRefs]); got != want {
		t.Errorf("find line refs = %s, want the first %d distinct refs", got, maxRefs)
	}
	for i, l := range lines[1:] {
		if l["kind"] != "use" || l["ref"] != refs[i] {
			t.Errorf("line %d = %v, want a use of %s", i+2, l, refs[i])
		}
	}
	if got := s.Summary(); got.Finds != 1 || got.Samples != 1 || got.RecallProxy != 1 || got.CutoffRate != 1 {
		t.Errorf("Summary() = %+v, want 1 find, 1 sample, recall 1, cutoff rate 1", got)
	}
}

func TestPersistence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "stats.jsonl")
	c := newClock()
	s := mustOpen(t, Options{Path: path, Now: c.Now})
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Fatalf("Open created the folder before any write: %v", err)
	}
	f := &feeder{s: s, c: c}
	f.run(t, phase{n: 120, miss: true}, phase{n: 7, stage4: true}, phase{n: 3, cut: true}) // 3 points of cutoff: no rollback
	before := s.Summary()
	if before.Finds != windowSize || before.Thresholds != (Thresholds{4, 0.77}) {
		t.Fatalf("Summary() = %+v, want a full window and one loosening", before)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{path: filePerm, filepath.Dir(path): dirPerm} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode().Perm(), err, want)
			}
		}
	}

	s2 := mustOpen(t, Options{Path: path, Now: c.Now})
	if after := s2.Summary(); after != before {
		t.Fatalf("reopened Summary() = %+v, want %+v", after, before)
	}
	// The restored move time still blocks a second move within 24h...
	f.s = s2
	f.run(t, phase{n: 5, miss: true})
	if got := s2.Thresholds(); got != (Thresholds{4, 0.77}) {
		t.Fatalf("moved again within 24h of the restored move: %+v", got)
	}
	// ...and the restored window allows one after it.
	f.run(t, phase{after: 24 * time.Hour, n: 1, miss: true})
	if got := s2.Thresholds(); got != (Thresholds{5, 0.74}) {
		t.Fatalf("Thresholds() = %+v after 24h of low recall, want {5 0.74}", got)
	}
}

func TestOpenSkipsMalformedLines(t *testing.T) {
	ref := Ref("m", "a.md", "1")
	valid := []string{
		`{"kind":"thresholds","ts":"2026-03-01T09:00:00Z","candidate_low_threshold":5,"file_bias_threshold":0.74,"reason":"adjust_loosen","recall_proxy":0.5,"cutoff_rate":0,"stage4_rate":0,"samples":20,"finds":20}`,
		"BAD",
		`{"kind":"find","ts":"2026-03-01T09:01:00Z","trace_id":"t1","candidates":1,"files":1,"stage4":true,"refs":["` + ref + `"],"est_tokens":3}`,
		`{"kind":"use","ts":"2026-03-01T09:02:00Z","trace_id":"t1","ref":"` + ref + `"}`,
	}
	tests := []struct{ name, line string }{
		{"truncated json", `{"kind":"find","trace_id":"t2",`},
		{"unknown kind", `{"kind":"bogus"}`},
		{"no kind", `{"trace_id":"t2"}`},
		{"find with a path as ref", `{"kind":"find","trace_id":"t2","refs":["manuals/pump.md"]}`},
		{"find with text as trace id", `{"kind":"find","trace_id":"press the red button","refs":[]}`},
		{"use with a bad ref", `{"kind":"use","trace_id":"t1","ref":"ABCDEF0123456789"}`},
		{"thresholds out of range", `{"kind":"thresholds","ts":"2026-03-02T09:00:00Z","candidate_low_threshold":9,"file_bias_threshold":0.8,"reason":"adjust_loosen"}`},
		{"thresholds with an unknown reason", `{"kind":"thresholds","ts":"2026-03-02T09:00:00Z","candidate_low_threshold":3,"file_bias_threshold":0.8,"reason":"manual"}`},
		{"thresholds without ts", `{"kind":"thresholds","candidate_low_threshold":3,"file_bias_threshold":0.8,"reason":"rollback"}`},
		{"line over 64 KiB", `{"kind":"find","trace_id":"t2","pad":"` + strings.Repeat("x", maxLine) + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "stats.jsonl")
			lines := append([]string{}, valid...)
			lines[1] = tt.line // after the thresholds it must not override, before lines that must still count
			if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			s := mustOpen(t, Options{Path: path, Now: newClock().Now, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			got := s.Summary()
			if got.Skipped != 1 || got.Finds != 1 || got.Samples != 1 || got.Thresholds != (Thresholds{5, 0.74}) {
				t.Errorf("Summary() = %+v, want 1 skipped line, 1 find with a use, thresholds {5 0.74}", got)
			}
			if n := strings.Count(logs.String(), "level=WARN"); n != 1 {
				t.Errorf("%d warnings, want 1:\n%s", n, logs.String())
			}
		})
	}
}

func TestNoManualText(t *testing.T) {
	const (
		manual = "pump-x200"
		path   = "manuals/pump-x200/chapter3.md"
		title  = "Chapter 3: Maintenance"
		node   = "sec-3.2.1"
		text   = "Press the red RESET button for 5 seconds"
	)
	ref := Ref(manual, path, node)
	tests := []struct {
		name     string
		call     func(*Stats) error
		wantCode apperr.Code // "" for success
	}{
		{"text as intent and cutoff reason is stored as other", func(s *Stats) error {
			return s.RecordFind(FindRecord{TraceID: "t1", Intent: text, CutoffReason: title, Refs: []string{ref}})
		}, ""},
		{"use of a ref", func(s *Stats) error { return s.RecordUse("t1", ref) }, ""},
		{"path as ref", func(s *Stats) error { return s.RecordFind(FindRecord{TraceID: "t2", Refs: []string{path}}) }, apperr.InvalidArgument},
		{"node id as ref", func(s *Stats) error { return s.RecordUse("t1", node) }, apperr.InvalidArgument},
		{"title as trace id", func(s *Stats) error { return s.RecordFind(FindRecord{TraceID: title}) }, apperr.InvalidArgument},
		{"text as trace id of a use", func(s *Stats) error { return s.RecordUse(text, ref) }, apperr.InvalidArgument},
		{"empty trace id", func(s *Stats) error { return s.RecordFind(FindRecord{}) }, apperr.InvalidArgument},
		{"trace id over 128 bytes", func(s *Stats) error {
			return s.RecordFind(FindRecord{TraceID: strings.Repeat("a", maxID+1)})
		}, apperr.InvalidArgument},
	}
	file := filepath.Join(t.TempDir(), "stats.jsonl")
	s := mustOpen(t, Options{Path: file, Now: newClock().Now})
	secrets := []string{manual, path, title, node, text}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(s)
			if tt.wantCode == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, tt.wantCode)
			for _, sec := range secrets {
				if strings.Contains(err.Error(), sec) {
					t.Errorf("error %q echoes %q", err, sec)
				}
			}
		})
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range secrets {
		if bytes.Contains(bytes.ToLower(data), []byte(strings.ToLower(sec))) {
			t.Errorf("stats file holds %q:\n%s", sec, data)
		}
	}
	lines := readLines(t, file)
	if len(lines) != 2 || lines[0]["intent"] != "other" || lines[0]["cutoff_reason"] != "other" {
		t.Errorf("lines = %v, want a find with intent and cutoff_reason \"other\", and a use", lines)
	}
}

func TestInMemory(t *testing.T) {
	t.Chdir(t.TempDir())
	c := newClock()
	s := mustOpen(t, Options{Now: c.Now})
	(&feeder{s: s, c: c}).run(t, phase{n: 30, miss: true})
	if got := s.Summary(); got.Finds != 30 || got.Thresholds != (Thresholds{4, 0.77}) || got.LastReason != ReasonLoosen {
		t.Fatalf("Summary() = %+v, want 30 finds and one loosening", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir("."); len(ents) != 0 {
		t.Fatalf("in-memory Stats wrote %v", ents)
	}
}

func TestOpenUnavailable(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) string
	}{
		{"folder", func(t *testing.T) string { return t.TempDir() }},
		{"unreadable file", func(t *testing.T) string {
			if runtime.GOOS == "windows" || os.Geteuid() == 0 {
				t.Skip("permissions do not stop this user")
			}
			p := filepath.Join(t.TempDir(), "stats.jsonl")
			if err := os.WriteFile(p, nil, 0o000); err != nil {
				t.Fatal(err)
			}
			return p
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(Options{Path: tt.setup(t)})
			wantCode(t, err, apperr.Unavailable)
			if !strings.Contains(err.Error(), "ADAPTIVE_STATS_PATH") {
				t.Errorf("error %q does not name ADAPTIVE_STATS_PATH", err)
			}
		})
	}
}

func TestWriteFailureKeepsMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stats.jsonl")
	c := newClock()
	s := mustOpen(t, Options{Path: path, Now: c.Now})
	// A folder appearing at the path after Open makes every write fail.
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range 21 {
		trace := fmt.Sprintf("t-%d", i)
		wantCode(t, s.RecordFind(FindRecord{TraceID: trace, Refs: []string{Ref("m", "a.md", trace)}}), apperr.Unavailable)
		wantCode(t, s.RecordUse(trace, Ref("m", "b.md", trace)), apperr.Unavailable)
		c.Advance(time.Minute)
	}
	if got := s.Summary(); got.Finds != 21 || got.Samples != 21 || got.Thresholds != (Thresholds{4, 0.77}) {
		t.Fatalf("Summary() = %+v, want 21 finds, 21 samples and one loosening despite failed writes", got)
	}
}

func TestClosed(t *testing.T) {
	s := mustOpen(t, Options{Path: filepath.Join(t.TempDir(), "stats.jsonl")})
	if err := s.RecordFind(FindRecord{TraceID: "t1"}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		call func() error
	}{
		{"find", func() error { return s.RecordFind(FindRecord{TraceID: "t2"}) }},
		{"use", func() error { return s.RecordUse("t1", Ref("m", "a.md", "1")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantCode(t, tt.call(), apperr.Unavailable) })
	}
	if got := s.Summary().Finds; got != 1 {
		t.Errorf("Summary().Finds = %d after refused records, want 1", got)
	}
}

func TestConcurrentWritersKeepWholeLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stats.jsonl")
	c := newClock()
	// Two Stats on one file stand in for two langspec processes.
	a, b := mustOpen(t, Options{Path: path, Now: c.Now}), mustOpen(t, Options{Path: path, Now: c.Now})
	var wg sync.WaitGroup
	for g := range 8 {
		s := []*Stats{a, b}[g%2]
		wg.Go(func() {
			for i := range 25 {
				trace := fmt.Sprintf("g%d-%d", g, i)
				refs := []string{Ref("m", "a.md", trace), Ref("m", "b.md", trace)}
				if err := s.RecordFind(FindRecord{TraceID: trace, Refs: refs}); err != nil {
					t.Error(err)
				}
				if err := s.RecordUse(trace, refs[0]); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	lines := readLines(t, path)
	if len(lines) != 400 {
		t.Fatalf("%d lines, want 400 whole lines", len(lines))
	}
	r := mustOpen(t, Options{Path: path, Now: c.Now})
	if got := r.Summary(); got.Finds != windowSize || got.Skipped != 0 || got.RecallProxy != 1 {
		t.Fatalf("reopened Summary() = %+v, want a full window, no skipped lines, recall 1", got)
	}
}
