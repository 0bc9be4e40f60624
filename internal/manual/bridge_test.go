package manual

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/ingest/manualfile"
)

var copiedAt = time.Date(2026, 11, 22, 9, 30, 0, 0, time.FixedZone("JST", 9*60*60))

func TestSectionCopy(t *testing.T) {
	tests := []struct {
		name string
		text string
		ref  SourceRef
		want string
	}{
		{
			name: "japanese section",
			text: "## 支払いの対象外\n\n次の損害は除く。\n",
			ref:  SourceRef{ManualID: "insurance-ja", Path: "約款/普通保険約款.md", NodeID: "保険金の支払い/支払いの対象外", LineStart: 18, LineEnd: 31},
			want: "---\n" +
				"source_manual_ids: [\"insurance-ja\"]\n" +
				"source: \"insurance-ja/約款/普通保険約款.md#保険金の支払い/支払いの対象外\"\n" +
				"source_lines: \"18-31\"\n" +
				"copied_at: \"2026-11-22T00:30:00Z\"\n" +
				"---\n\n" +
				"## 支払いの対象外\n\n次の損害は除く。\n",
		},
		{
			name: "whole file without final newline",
			text: "# Rollback\ntext",
			ref:  SourceRef{ManualID: "ops-en", Path: "runbooks/db/failover.md", LineStart: 1, LineEnd: 2},
			want: "---\n" +
				"source_manual_ids: [\"ops-en\"]\n" +
				"source: \"ops-en/runbooks/db/failover.md\"\n" +
				"source_lines: \"1-2\"\n" +
				"copied_at: \"2026-11-22T00:30:00Z\"\n" +
				"---\n\n" +
				"# Rollback\ntext\n",
		},
		{
			name: "quotes in names cannot break the block",
			text: "x\n",
			ref:  SourceRef{ManualID: `a"b`, Path: "c: d.md", NodeID: "e", LineStart: 1, LineEnd: 1},
			want: "---\n" +
				"source_manual_ids: [\"a\\\"b\"]\n" +
				"source: \"a\\\"b/c: d.md#e\"\n" +
				"source_lines: \"1-1\"\n" +
				"copied_at: \"2026-11-22T00:30:00Z\"\n" +
				"---\n\n" +
				"x\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(SectionCopy(tt.text, tt.ref, copiedAt)); got != tt.want {
				t.Errorf("SectionCopy =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestSectionCopyRoundTrip copies a fixture section and parses the copy:
// the front matter must not turn into a heading, and the section's own
// headings must survive.
func TestSectionCopyRoundTrip(t *testing.T) {
	l := openFixtures(t)
	text, node, err := l.Section("ops-en", "runbooks/db/failover.md", "database-failover/promote-the-replica")
	if err != nil {
		t.Fatal(err)
	}
	ref := SourceRef{ManualID: "ops-en", Path: node.Path, NodeID: node.NodeID, LineStart: node.LineStart, LineEnd: node.LineEnd}
	nodes, err := manualfile.Parse("copy.md", SectionCopy(text, ref, copiedAt))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range nodes {
		ids = append(ids, n.NodeID)
	}
	want := []string{"_preamble", "promote-the-replica", "promote-the-replica/verify-replication-lag", "promote-the-replica/update-dns"}
	if len(ids) != len(want) {
		t.Fatalf("copy parses to %q, want %q", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Errorf("copy parses to %q, want %q", ids, want)
		}
	}
}

func TestJSONCopy(t *testing.T) {
	l := openFixtures(t)
	raw, err := l.Read("ops-en", "alerts/thresholds.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		raw  []byte
		code apperr.Code
	}{
		{name: "fixture", raw: raw},
		{name: "top-level array", raw: []byte(`[1, 2.50, {"z": 1, "a": 2}]`)},
		{name: "object using our keys", raw: []byte(`{"source": "theirs", "content": 1}`)},
		{name: "invalid", raw: []byte(`{"a":`), code: apperr.InvalidArgument},
	}
	ref := SourceRef{ManualID: "ops-en", Path: "alerts/thresholds.json", NodeID: manualfile.FileID, LineStart: 1, LineEnd: 8}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSONCopy(tt.raw, ref, copiedAt)
			if !checkCode(t, err, tt.code) || err != nil {
				return
			}
			var w struct {
				IDs      []string        `json:"source_manual_ids"`
				Source   string          `json:"source"`
				Lines    string          `json:"source_lines"`
				CopiedAt string          `json:"copied_at"`
				Content  json.RawMessage `json:"content"`
			}
			if err := json.Unmarshal(got, &w); err != nil {
				t.Fatalf("copy is not JSON: %v\n%s", err, got)
			}
			if len(w.IDs) != 1 || w.IDs[0] != "ops-en" || w.Source != "ops-en/alerts/thresholds.json#file" ||
				w.Lines != "1-8" || w.CopiedAt != "2026-11-22T00:30:00Z" {
				t.Errorf("metadata = %+v", w)
			}
			// The content is the original value: same keys in the same order,
			// same number literals; only whitespace may differ.
			var a, b bytes.Buffer
			if err := json.Compact(&a, tt.raw); err != nil {
				t.Fatal(err)
			}
			if err := json.Compact(&b, w.Content); err != nil {
				t.Fatal(err)
			}
			if a.String() != b.String() {
				t.Errorf("content = %s, want %s", b.String(), a.String())
			}
		})
	}
}
