package audit

import (
	"context"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// scanStep is one Scan call in a sequence; the cursor is the previous step's
// NextCursor (or "" for the first step).
type scanStep struct {
	chunk      int
	maxChars   int // 0 = DefaultMaxChars
	wantRange  [2]int
	wantEOF    bool
	wantReason string
	wantNext   []string
}

func TestScanSequence(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		records  [][2]int // recorded before the scan
		cite     string   // artifact JSON written before the scan, if set
		steps    []scanStep
		wantText map[int]string // step index → expected Text
	}{
		{
			name:    "first pass chunks to EOF",
			content: numbered(5),
			steps: []scanStep{
				{chunk: 2, wantRange: [2]int{1, 2}, wantReason: "chunk_lines", wantNext: []string{}},
				{chunk: 2, wantRange: [2]int{3, 4}, wantReason: "chunk_lines", wantNext: []string{}},
				{chunk: 2, wantRange: [2]int{5, 5}, wantEOF: true, wantNext: []string{}},
			},
			wantText: map[int]string{0: "line 1\nline 2\n", 2: "line 5\n"},
		},
		{
			name:    "default chunk takes a small file at once",
			content: numbered(3),
			steps:   []scanStep{{chunk: 0, wantRange: [2]int{1, 3}, wantEOF: true, wantNext: []string{}}},
		},
		{
			name:    "chunk over max is cut to max",
			content: numbered(MaxChunkLines + 1),
			steps: []scanStep{
				{chunk: 5000, wantRange: [2]int{1, MaxChunkLines}, wantReason: "chunk_lines", wantNext: []string{}},
				{chunk: 5000, wantRange: [2]int{MaxChunkLines + 1, MaxChunkLines + 1}, wantEOF: true, wantNext: []string{}},
			},
		},
		{
			name:    "empty file is EOF at once",
			content: "",
			steps:   []scanStep{{wantRange: [2]int{0, 0}, wantEOF: true, wantNext: []string{}}},
		},
		{
			name:    "second pass visits uncovered ranges only",
			content: numbered(10),
			records: [][2]int{{1, 3}, {6, 7}},
			steps: []scanStep{
				{chunk: 10, wantRange: [2]int{4, 5}, wantNext: []string{}},
				{chunk: 10, wantRange: [2]int{8, 10}, wantEOF: true, wantNext: []string{}},
			},
			wantText: map[int]string{0: "line 4\nline 5\n"},
		},
		{
			name:    "second pass chunks inside a range",
			content: numbered(10),
			records: [][2]int{{1, 2}},
			steps: []scanStep{
				{chunk: 5, wantRange: [2]int{3, 7}, wantReason: "chunk_lines", wantNext: []string{}},
				{chunk: 5, wantRange: [2]int{8, 10}, wantEOF: true, wantNext: []string{}},
			},
		},
		{
			name:    "second pass skips cited lines",
			content: numbered(10),
			records: [][2]int{{1, 2}},
			cite:    `{"nodes":[{"id":"n","source_lines":{"path":"notes/a.md","start":4,"end":9}}]}`,
			steps: []scanStep{
				{chunk: 10, wantRange: [2]int{3, 3}, wantNext: []string{}},
				{chunk: 10, wantRange: [2]int{10, 10}, wantEOF: true, wantNext: []string{}},
			},
		},
		{
			name:    "fully covered file has nothing to scan",
			content: numbered(4),
			records: [][2]int{{1, 4}},
			steps:   []scanStep{{wantRange: [2]int{0, 0}, wantEOF: true, wantNext: []string{}}},
		},
		{
			name:    "max_chars cuts at a line boundary",
			content: numbered(5), // 7 characters a line
			steps: []scanStep{
				{chunk: 5, maxChars: 15, wantRange: [2]int{1, 2}, wantReason: "max_chars", wantNext: []string{}},
				{chunk: 5, maxChars: 15, wantRange: [2]int{3, 4}, wantReason: "max_chars", wantNext: []string{}},
				{chunk: 5, maxChars: 15, wantRange: [2]int{5, 5}, wantEOF: true, wantNext: []string{}},
			},
		},
		{
			name:    "one line over max_chars is cut inside and passed",
			content: strings.Repeat("é", 30) + "\nshort\n",
			steps: []scanStep{
				{chunk: 5, maxChars: 10, wantRange: [2]int{1, 1}, wantReason: "max_chars", wantNext: []string{}},
				{chunk: 5, maxChars: 10, wantRange: [2]int{2, 2}, wantEOF: true, wantNext: []string{}},
			},
			wantText: map[int]string{0: strings.Repeat("é", 10)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustOpenVault(t)
			mustPut(t, v, "notes/a.md", tt.content)
			for _, r := range tt.records {
				if err := Record(v, "notes/a.md", r[0], r[1]); err != nil {
					t.Fatal(err)
				}
			}
			if tt.cite != "" {
				mustPut(t, v, "artifacts/cite.json", tt.cite)
			}
			cursor := ""
			for i, st := range tt.steps {
				mc := st.maxChars
				if mc == 0 {
					mc = DefaultMaxChars
				}
				got, err := scan(context.Background(), v, "notes/a.md", cursor, st.chunk, mc)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if got.AppliedRange != st.wantRange || got.EOF != st.wantEOF || got.TruncatedReason != st.wantReason ||
					!reflect.DeepEqual(got.NextActions, st.wantNext) || (got.NextCursor == "") != st.wantEOF {
					t.Fatalf("step %d: got range %v eof %v reason %q next %#v cursor %q; want %v %v %q %#v",
						i, got.AppliedRange, got.EOF, got.TruncatedReason, got.NextActions, got.NextCursor,
						st.wantRange, st.wantEOF, st.wantReason, st.wantNext)
				}
				if want, ok := tt.wantText[i]; ok && got.Text != want {
					t.Errorf("step %d: text %q, want %q", i, got.Text, want)
				}
				cursor = got.NextCursor
			}
			// A scan to EOF leaves the file fully covered.
			r, err := Coverage(context.Background(), v, "notes/a.md")
			if err != nil {
				t.Fatal(err)
			}
			if r.CoverageRatio != 1 || len(r.NextActions) != 0 {
				t.Errorf("after scan: coverage %v, next %v; want 1, []", r.CoverageRatio, r.NextActions)
			}
		})
	}
}

// TestScanRecords: each chunk is recorded, so a fresh scan (no cursor)
// after a partial first pass resumes at the first unread line.
func TestScanRecords(t *testing.T) {
	v := mustOpenVault(t)
	mustPut(t, v, "notes/a.md", numbered(10))
	if _, err := Scan(context.Background(), v, "notes/a.md", "", 4); err != nil {
		t.Fatal(err)
	}
	r, err := Coverage(context.Background(), v, "notes/a.md")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Covered, [][2]int{{1, 4}}) || !reflect.DeepEqual(r.NextActions, []string{"vault_scan"}) {
		t.Fatalf("coverage after one chunk: %+v", r)
	}
	got, err := Scan(context.Background(), v, "notes/a.md", "", 4)
	if err != nil {
		t.Fatal(err)
	}
	if got.AppliedRange != [2]int{5, 8} {
		t.Errorf("restart without cursor: range %v, want [5 8]", got.AppliedRange)
	}
}

// TestScanNextActionsLowCoverage: a pass that reaches EOF with coverage still
// under the threshold suggests vault_coverage. A resumed uncovered pass
// that started past the holes is the way to get there.
func TestScanNextActionsLowCoverage(t *testing.T) {
	v := mustOpenVault(t)
	mustPut(t, v, "notes/a.md", numbered(10))
	if err := Record(v, "notes/a.md", 9, 9); err != nil {
		t.Fatal(err)
	}
	c, err := readContent(v, "notes/a.md")
	if err != nil {
		t.Fatal(err)
	}
	cur := encodeCursor(scanCursor{Start: 10, Mode: modeUncovered, Hash: c.hash[:cursorHashLen]})
	got, err := Scan(context.Background(), v, "notes/a.md", cur, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !got.EOF || got.AppliedRange != [2]int{10, 10} || !reflect.DeepEqual(got.NextActions, []string{"vault_coverage"}) {
		t.Errorf("got %+v; want EOF at [10 10] with vault_coverage", got)
	}
}

func TestScanErrors(t *testing.T) {
	v := mustOpenVault(t)
	mustPut(t, v, "notes/a.md", numbered(10))
	mustPut(t, v, "notes/b.md", numbered(9)+"other\n") // a cursor binds to content, so b must differ
	first, err := Scan(context.Background(), v, "notes/a.md", "", 3)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	c, _ := readContent(v, "notes/a.md")
	h := c.hash[:cursorHashLen]
	tests := []struct {
		name   string
		path   string
		cursor string
		chunk  int
		setup  func()
		want   apperr.Code
	}{
		{name: "not base64", path: "notes/a.md", cursor: "!!!", want: apperr.InvalidArgument},
		{name: "not json", path: "notes/a.md", cursor: enc("nope"), want: apperr.InvalidArgument},
		{name: "unknown mode", path: "notes/a.md", cursor: enc(`{"s":1,"m":"all","h":"` + h + `"}`), want: apperr.InvalidArgument},
		{name: "start 0", path: "notes/a.md", cursor: enc(`{"s":0,"m":"first","h":"` + h + `"}`), want: apperr.InvalidArgument},
		{name: "start past end", path: "notes/a.md", cursor: enc(`{"s":50,"m":"first","h":"` + h + `"}`), want: apperr.InvalidArgument},
		{name: "other file's cursor", path: "notes/b.md", cursor: first.NextCursor, want: apperr.InvalidArgument},
		{name: "negative chunk", path: "notes/a.md", chunk: -1, want: apperr.InvalidArgument},
		{name: "missing file", path: "notes/none.md", want: apperr.NotFound},
		{name: "outside", path: "../a.md", want: apperr.PathOutsideVault},
		{
			name: "file changed since cursor", path: "notes/a.md", cursor: first.NextCursor,
			setup: func() { mustPut(t, v, "notes/a.md", numbered(11)) }, want: apperr.InvalidArgument,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup()
			}
			if _, err := Scan(context.Background(), v, tt.path, tt.cursor, tt.chunk); apperr.CodeOf(err) != tt.want {
				t.Errorf("Scan error = %v, want %s", err, tt.want)
			}
		})
	}
}
