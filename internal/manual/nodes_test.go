package manual

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/ingest/manualfile"
)

// Library.Nodes is manualfile's parse of the file as read through the
// library, and every node's Section is exactly its lines of the file.
func TestNodesFixtures(t *testing.T) {
	l := openFixtures(t)
	files := []struct{ id, rel string }{
		{"insurance-ja", "約款/普通保険約款.md"}, {"insurance-ja", "faq/よくある質問.md"},
		{"ops-en", "README.md"}, {"ops-en", "runbooks/db/failover.md"},
		{"ops-en", "checklists/oncall-handoff.md"}, {"ops-en", "alerts/thresholds.json"},
	}
	for _, tt := range files {
		t.Run(tt.rel, func(t *testing.T) {
			got, err := l.Nodes(tt.id, tt.rel)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(fixturesDir, tt.id, tt.rel))
			if err != nil {
				t.Fatal(err)
			}
			want, err := manualfile.Parse(tt.rel, raw)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) || len(got) == 0 {
				t.Fatalf("Nodes = %+v, want manualfile.Parse's %+v", got, want)
			}
			for _, g := range got {
				text, node, err := l.Section(tt.id, tt.rel, g.NodeID)
				if err != nil {
					t.Fatalf("Section(%q): %v", g.NodeID, err)
				}
				if node != g {
					t.Errorf("Section(%q) node = %+v, want %+v", g.NodeID, node, g)
				}
				want := fileLines(t, filepath.Join(fixturesDir, tt.id, tt.rel), g.LineStart, g.LineEnd)
				if text != want {
					t.Errorf("Section(%q) =\n%s\nwant\n%s", g.NodeID, text, want)
				}
			}
		})
	}
}

func TestSectionIncludesDescendants(t *testing.T) {
	text, _, err := openFixtures(t).Section("insurance-ja", "約款/普通保険約款.md", "保険金の支払い/支払いの対象外")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"## 支払いの対象外\n", "### 免責事項\n", "ただし、地震火災費用特約を付帯した場合を除きます。", "盗難による通貨の損害は除く。\n"} {
		if !strings.Contains(text, s) {
			t.Errorf("section lacks %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "保険金の請求") {
		t.Errorf("section runs into the next sibling:\n%s", text)
	}
}

func TestSectionUnknownNode(t *testing.T) {
	l := openFixtures(t)
	tests := []struct {
		name, rel, id string
		hint          string
	}{
		{name: "typo", rel: "runbooks/db/failover.md", id: "database-failover/promote-replica", hint: "database-failover/promote-the-replica"},
		{name: "leaf only", rel: "runbooks/db/failover.md", id: "update-dns", hint: "database-failover/promote-the-replica/update-dns"},
		{name: "empty", rel: "runbooks/db/failover.md", id: "", hint: "nearest node ids"},
		{name: "json", rel: "alerts/thresholds.json", id: "alerts", hint: "file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := l.Section("ops-en", tt.rel, tt.id)
			ae, ok := errors.AsType[*apperr.Error](err)
			if !ok || ae.Code != apperr.NotFound || !strings.Contains(ae.Hint, tt.hint) {
				t.Errorf("Section(%q) = %v; want not_found with %q in the hint", tt.id, err, tt.hint)
			}
		})
	}
}

func TestLines(t *testing.T) {
	l := openFixtures(t)
	const rel = "runbooks/db/failover.md"
	tests := []struct {
		name       string
		rel        string
		start, end int
		code       apperr.Code
		msg        string
	}{
		{name: "one line", rel: rel, start: 3, end: 3},
		{name: "whole file", rel: rel, start: 1, end: 35},
		{name: "json", rel: "alerts/thresholds.json", start: 2, end: 3},
		{name: "past the end", rel: rel, start: 30, end: 36, code: apperr.InvalidArgument, msg: "which has 35 lines"},
		{name: "zero start", rel: rel, start: 0, end: 2, code: apperr.InvalidArgument, msg: "which has 35 lines"},
		{name: "reversed", rel: rel, start: 5, end: 4, code: apperr.InvalidArgument, msg: "which has 35 lines"},
		{name: "negative", rel: rel, start: -1, end: -1, code: apperr.InvalidArgument},
		{name: "missing file", rel: "nope.md", start: 1, end: 1, code: apperr.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := l.Lines("ops-en", tt.rel, tt.start, tt.end)
			if !checkCode(t, err, tt.code) {
				return
			}
			if err != nil {
				if !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("error %q lacks %q", err, tt.msg)
				}
				return
			}
			if want := fileLines(t, filepath.Join(fixturesDir, "ops-en", tt.rel), tt.start, tt.end); got != want {
				t.Errorf("Lines = %q, want %q", got, want)
			}
		})
	}
}

func TestInvalidJSONInLibrary(t *testing.T) {
	e := newEnv(t)
	mustWrite(t, filepath.Join(e.dir, "ops-en", "alerts", "broken.json"), "{\n  \"warn\": 10,\n  \"critical\": \n}\n")
	for name, call := range map[string]func() error{
		"nodes":   func() error { _, err := e.lib.Nodes("ops-en", "alerts/broken.json"); return err },
		"section": func() error { _, _, err := e.lib.Section("ops-en", "alerts/broken.json", "file"); return err },
	} {
		err := call()
		if checkCode(t, err, apperr.InvalidArgument) && !strings.Contains(err.Error(), "line 4") {
			t.Errorf("%s: error %q does not give the position", name, err)
		}
	}
	// Lines does not need to parse, so a broken file can still be shown.
	if _, err := e.lib.Lines("ops-en", "alerts/broken.json", 1, 4); err != nil {
		t.Errorf("Lines on broken JSON: %v", err)
	}
}
