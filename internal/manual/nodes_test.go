package manual

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/ingest/manualfile"
)

// n is a compact expected node: kind is derived from the level (0: file).
type n struct {
	id, title  string
	level      int
	parent     string
	start, end int
}

func checkNodes(t *testing.T, rel string, got []manualfile.Node, want []n) {
	t.Helper()
	if len(got) != len(want) {
		var ids []string
		for _, g := range got {
			ids = append(ids, g.NodeID)
		}
		t.Fatalf("%s: got %d nodes %q, want %d", rel, len(got), ids, len(want))
	}
	for i, w := range want {
		kind := manualfile.KindHeading
		if w.level == 0 {
			kind = manualfile.KindFile
		}
		exp := manualfile.Node{Kind: kind, NodeID: w.id, Path: rel, Title: w.title, Level: w.level, ParentID: w.parent, LineStart: w.start, LineEnd: w.end}
		if got[i] != exp {
			t.Errorf("%s node %d:\n got %+v\nwant %+v", rel, i, got[i], exp)
		}
	}
}

func TestNodesFixtures(t *testing.T) {
	l := openFixtures(t)
	tests := []struct {
		id, rel string
		want    []n
	}{
		{id: "insurance-ja", rel: "約款/普通保険約款.md", want: []n{
			// Front matter (lines 1-4) is part of the preamble, not a heading.
			{"_preamble", "普通保険約款.md", 0, "", 1, 8},
			{"保険金の支払い", "保険金の支払い", 1, "", 9, 42},
			{"保険金の支払い/保険金を支払う場合", "保険金を支払う場合", 2, "保険金の支払い", 13, 17},
			{"保険金の支払い/支払いの対象外", "支払いの対象外", 2, "保険金の支払い", 18, 31},
			{"保険金の支払い/支払いの対象外/免責事項", "免責事項", 3, "保険金の支払い/支払いの対象外", 22, 27},
			{"保険金の支払い/支払いの対象外/支払いの対象外となる家財", "支払いの対象外となる家財", 3, "保険金の支払い/支払いの対象外", 28, 31},
			// Lines 36-41 hold "#" lines in fenced and indented code: not headings.
			{"保険金の支払い/保険金の請求", "保険金の請求", 2, "保険金の支払い", 32, 42},
			{"賠償責任特約", "賠償責任特約", 1, "", 43, 56},
			{"賠償責任特約/保険金を支払う場合", "保険金を支払う場合", 2, "賠償責任特約", 45, 48},
			{"賠償責任特約/支払いの対象外", "支払いの対象外", 2, "賠償責任特約", 49, 52},
			{"賠償責任特約/支払いの対象外-2", "支払いの対象外", 2, "賠償責任特約", 53, 56},
			// Setext headings: "====" is level 1, "----" level 2.
			{"手続きの流れ", "手続きの流れ", 1, "", 57, 65},
			{"手続きの流れ/手続きの連絡先", "手続きの連絡先", 2, "手続きの流れ", 62, 65},
		}},
		{id: "insurance-ja", rel: "faq/よくある質問.md", want: []n{
			{"よくある質問", "よくある質問", 1, "", 1, 9},
			{"よくある質問/q1-保険金はいつ支払われますか", "Q1. 保険金はいつ支払われますか？", 2, "よくある質問", 3, 6},
			{"よくある質問/q2-免責事項とは何ですか", "Q2. 免責事項とは何ですか？", 2, "よくある質問", 7, 9},
		}},
		{id: "ops-en", rel: "README.md", want: []n{
			{"operations-runbook", "Operations Runbook", 1, "", 1, 12},
			{"operations-runbook/scope", "Scope", 2, "operations-runbook", 5, 8},
			{"operations-runbook/conventions", "Conventions", 2, "operations-runbook", 9, 12},
		}},
		{id: "ops-en", rel: "runbooks/db/failover.md", want: []n{
			{"_preamble", "failover.md", 0, "", 1, 2},
			{"database-failover", "Database failover", 1, "", 3, 30},
			{"database-failover/before-you-start", "Before you start", 2, "database-failover", 7, 11},
			{"database-failover/promote-the-replica", "Promote the replica", 2, "database-failover", 12, 26},
			{"database-failover/promote-the-replica/verify-replication-lag", "Verify replication lag", 3, "database-failover/promote-the-replica", 19, 22},
			{"database-failover/promote-the-replica/update-dns", "Update DNS", 3, "database-failover/promote-the-replica", 23, 26},
			{"database-failover/faq", "FAQ", 2, "database-failover", 27, 30},
			{"rollback", "Rollback", 1, "", 31, 35},
			{"rollback/faq", "FAQ", 2, "rollback", 33, 35},
		}},
		{id: "ops-en", rel: "checklists/oncall-handoff.md", want: []n{
			{"file", "oncall-handoff.md", 0, "", 1, 7},
		}},
		{id: "ops-en", rel: "alerts/thresholds.json", want: []n{
			{"file", "thresholds.json", 0, "", 1, 8},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			got, err := l.Nodes(tt.id, tt.rel)
			if err != nil {
				t.Fatal(err)
			}
			checkNodes(t, tt.rel, got, tt.want)
			// Every node's Section is exactly its lines of the file.
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
