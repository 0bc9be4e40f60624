package manualfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// n is a compact expected node: kind is derived from the level (0: file).
type n struct {
	id, title  string
	level      int
	parent     string
	start, end int
}

func checkNodes(t *testing.T, rel string, got []Node, want []n) {
	t.Helper()
	if len(got) != len(want) {
		var ids []string
		for _, g := range got {
			ids = append(ids, g.NodeID)
		}
		t.Fatalf("%s: got %d nodes %q, want %d", rel, len(got), ids, len(want))
	}
	for i, w := range want {
		kind := KindHeading
		if w.level == 0 {
			kind = KindFile
		}
		exp := Node{Kind: kind, NodeID: w.id, Path: rel, Title: w.title, Level: w.level, ParentID: w.parent, LineStart: w.start, LineEnd: w.end}
		if got[i] != exp {
			t.Errorf("%s node %d:\n got %+v\nwant %+v", rel, i, got[i], exp)
		}
	}
}

func TestParseMarkdown(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []n
	}{
		{name: "empty file", src: "", want: nil},
		{name: "no headings", src: "just text\nmore\n", want: []n{{"file", "x.md", 0, "", 1, 2}}},
		{name: "no final newline", src: "# A\ntext", want: []n{{"a", "A", 1, "", 1, 2}}},
		{name: "crlf", src: "intro\r\n\r\n# A\r\ntext\r\n## B\r\nb\r\n", want: []n{
			{"_preamble", "x.md", 0, "", 1, 2},
			{"a", "A", 1, "", 3, 6},
			{"a/b", "B", 2, "a", 5, 6},
		}},
		{name: "lone cr (old Mac files)", src: "intro\r\r# A\rtext\r## B\rb\r", want: []n{
			{"_preamble", "x.md", 0, "", 1, 2},
			{"a", "A", 1, "", 3, 6},
			{"a/b", "B", 2, "a", 5, 6},
		}},
		{name: "mixed line ends", src: "# A\r\ntext\r## B\nb\n", want: []n{
			{"a", "A", 1, "", 1, 4},
			{"a/b", "B", 2, "a", 3, 4},
		}},
		{name: "bom", src: "\ufeff# A\n", want: []n{{"a", "A", 1, "", 1, 1}}},
		{name: "blank lines before first heading are no preamble", src: "\n\n# A\n", want: []n{{"a", "A", 1, "", 3, 3}}},
		{name: "front matter only", src: "---\ntitle: x\n---\n", want: []n{{"file", "x.md", 0, "", 1, 3}}},
		{name: "front matter is no setext heading", src: "---\ntitle: x\n---\n# A\n", want: []n{
			{"_preamble", "x.md", 0, "", 1, 3},
			{"a", "A", 1, "", 4, 4},
		}},
		{name: "thematic break later is no front matter", src: "# A\n\n---\n\ntext\n", want: []n{{"a", "A", 1, "", 1, 5}}},
		{name: "front matter not on line 1", src: "\n---\ntitle: x\n---\n", want: []n{
			{"_preamble", "x.md", 0, "", 1, 2},
			{"title-x", "title: x", 2, "", 3, 4},
		}},
		{name: "unclosed front matter is Markdown", src: "---\n# A\n", want: []n{
			{"_preamble", "x.md", 0, "", 1, 1},
			{"a", "A", 1, "", 2, 2},
		}},
		{name: "setext after paragraph text", src: "# A\n\ntext\n\nB\n---\nc\n", want: []n{
			{"a", "A", 1, "", 1, 7},
			{"a/b", "B", 2, "a", 5, 7},
		}},
		{name: "link definitions after the last section are no section's", src: "# A\ntext\n## B\nb [x][]\n\n[x]: https://example.com\n  [y]: #a\n", want: []n{
			{"a", "A", 1, "", 1, 4},
			{"a/b", "B", 2, "a", 3, 4},
		}},
		{name: "link definitions between sections stay", src: "# A\n[x]: #y\n# B\nb\n", want: []n{
			{"a", "A", 1, "", 1, 2},
			{"b", "B", 1, "", 3, 4},
		}},
		{name: "a last section of link definitions alone", src: "# A\n\n[x]: #y\n", want: []n{{"a", "A", 1, "", 1, 1}}},
		{name: "a footnote at the end is text", src: "# A\n\nSee the note.[^1]\n\n[^1]: The limit is 42.\n", want: []n{{"a", "A", 1, "", 1, 5}}},
		{name: "a paragraph's line shaped like a definition is text", src: "# A\nSee also\n[the guide]: read it first.\n", want: []n{{"a", "A", 1, "", 1, 3}}},
		{name: "a definition's look-alike in an open fence is code", src: "# A\n```ini\n[core]: editor = vim\n", want: []n{{"a", "A", 1, "", 1, 3}}},
		{name: "blank lines at the end", src: "# A\ntext\n\n\n", want: []n{{"a", "A", 1, "", 1, 2}}},
		{name: "multi-line setext", src: "one\ntwo\n===\n", want: []n{{"one-two", "one two", 1, "", 1, 3}}},
		{name: "fence hides headings", src: "# A\n~~~\n# no\n~~~\n## B\n", want: []n{
			{"a", "A", 1, "", 1, 5},
			{"a/b", "B", 2, "a", 5, 5},
		}},
		{name: "unclosed fence runs to the end", src: "# A\n```\n# no\n", want: []n{{"a", "A", 1, "", 1, 3}}},
		{name: "headings in quotes and lists are not sections", src: "# A\n> # q\n- # l\n", want: []n{{"a", "A", 1, "", 1, 3}}},
		{name: "skipped level", src: "# A\n### C\n## B\n", want: []n{
			{"a", "A", 1, "", 1, 3},
			{"a/c", "C", 3, "a", 2, 2},
			{"a/b", "B", 2, "a", 3, 3},
		}},
		{name: "starts below top level", src: "### C\n# A\n", want: []n{
			{"c", "C", 3, "", 1, 1},
			{"a", "A", 1, "", 2, 2},
		}},
		{name: "collisions", src: "# FAQ\n# faq\n# FAQ-2\n# faq\n", want: []n{
			{"faq", "FAQ", 1, "", 1, 1},
			{"faq-2", "faq", 1, "", 2, 2},
			{"faq-2-2", "FAQ-2", 1, "", 3, 3},
			{"faq-3", "faq", 1, "", 4, 4},
		}},
		{name: "children of a renamed duplicate", src: "# A\n## X\n# A\n## X\n", want: []n{
			{"a", "A", 1, "", 1, 2},
			{"a/x", "X", 2, "a", 2, 2},
			{"a-2", "A", 1, "", 3, 4},
			{"a-2/x", "X", 2, "a-2", 4, 4},
		}},
		{name: "preamble name is taken", src: "text\n# _preamble\n", want: []n{
			{"_preamble", "x.md", 0, "", 1, 1},
			{"_preamble-2", "_preamble", 1, "", 2, 2},
		}},
		{name: "empty and punctuation-only headings", src: "#\n# ?!\n## ...\n", want: []n{
			{"section", "", 1, "", 1, 1},
			{"section-2", "?!", 1, "", 2, 3},
			{"section-2/section", "...", 2, "section-2", 3, 3},
		}},
		{name: "inline markup in titles", src: "# Use `kubectl` and **[docs](http://x)** #\n", want: []n{
			{"use-kubectl-and-docs", "Use kubectl and docs", 1, "", 1, 1},
		}},
		{name: "closing hashes", src: "## 第2条 ###\n", want: []n{{"第2条", "第2条", 2, "", 1, 1}}},
		{name: "indented heading up to three spaces", src: "   # A\n    # code\n", want: []n{{"a", "A", 1, "", 1, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("x.md", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			checkNodes(t, "x.md", got, tt.want)
		})
	}
}

func TestParseStable(t *testing.T) {
	src := []byte("# A\n## A\n# A\n## A\n## A\n")
	first, _ := Parse("x.md", src)
	for range 5 {
		again, _ := Parse("x.md", src)
		for i := range first {
			if again[i] != first[i] {
				t.Fatalf("parse %d differs: %+v vs %+v", i, again[i], first[i])
			}
		}
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"支払いの対象外", "支払いの対象外"},
		{"Install on Linux", "install-on-linux"},
		{"第3条（保険金を支払わない場合）", "第3条保険金を支払わない場合"},
		{"免責事項・ただし書", "免責事項ただし書"},
		{"Q&A: what/why?", "qa-whatwhy"},
		{"snake_case-and-dash", "snake_case-and-dash"},
		{"全角　スペース", "全角-スペース"},
		{"ＡＢＣ１２３", "ＡＢＣ１２３"}, // non-ASCII letters keep their case
		{"Café Über", "café-Über"},
		{"カタカナー長音", "カタカナー長音"},
		{"!!!", "section"},
		{"", "section"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := slug(tt.in); got != tt.want {
				t.Errorf("slug(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseJSON(t *testing.T) {
	tests := []struct {
		name, src string
		end       int
		msg       string // for invalid JSON: a part of the message
	}{
		{name: "object", src: "{\n  \"a\": 1\n}\n", end: 3},
		{name: "array one line", src: `[1,2,3]`, end: 1},
		{name: "crlf", src: "{\r\n\"a\": 1\r\n}\r\n", end: 3},
		{name: "bom", src: "\ufeff{}", end: 1},
		{name: "trailing comma", src: "{\n  \"a\": 1,\n}\n", msg: "line 3, column 1"},
		{name: "bad value", src: "{\n  \"a\": tru\n}\n", msg: "line 2"},
		{name: "truncated", src: "{\n  \"a\": [1,\n", msg: "unexpected end of JSON input"},
		{name: "two values", src: "{}\n{}\n", msg: "line 2, column 1"},
		{name: "empty", src: "", msg: "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("a/t.json", []byte(tt.src))
			if tt.msg != "" {
				if got := apperr.CodeOf(err); err == nil || got != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("error %v (code %s), want invalid_argument with %q", err, got, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkNodes(t, "a/t.json", got, []n{{"file", "t.json", 0, "", 1, tt.end}})
		})
	}
}

// TestParseFixtures parses the fixture manuals' files (fixtures/manuals,
// real shapes of Japanese insurance and English operations manuals).
func TestParseFixtures(t *testing.T) {
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
			raw, err := os.ReadFile(filepath.Join("..", "..", "..", "fixtures", "manuals", tt.id, tt.rel))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(tt.rel, raw)
			if err != nil {
				t.Fatal(err)
			}
			checkNodes(t, tt.rel, got, tt.want)
		})
	}
}
