package audit

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// auditFixtures is a vault with artifacts covering every finding kind.
// notes/a.md has 30 lines.
var auditFixtures = map[string]string{
	"notes/a.md": numbered(30),
	"artifacts/clean.json": `{
  "nodes": [
    {"id": "n1", "label": "start", "source_lines": {"path": "notes/a.md", "start": 1, "end": 5}, "refs": ["n3"]},
    {"id": "n2", "label": "ok?", "kind": "decision", "source_lines": [{"path": "notes/a.md", "start": 6}, {"path": "notes/a.md", "start": 7, "end": 8}]},
    {"id": "n3", "label": "yes", "source_lines": {"path": "notes/a.md", "start": 9, "end": 9}, "refs": ["n1"]},
    {"id": "n4", "label": "no", "source_lines": {"path": "notes/a.md", "start": 10, "end": 12}}
  ],
  "edges": [
    {"from": "n1", "to": "n2"},
    {"from": "n2", "to": "n3", "label": "yes"},
    {"from": "n2", "to": "n4", "label": "no"}
  ]
}`,
	"artifacts/sub/clean.md": "# Flow\n\nSome prose.\n\n```mermaid\nflowchart TD\n" +
		"  A[start] --> B{ok?}\n" +
		"  B -- yes --> C((done))\n" +
		"  B -->|no| D([retry]) --> A\n" +
		"  %% source A: notes/a.md#L13-L14\n" +
		"  %% source B: notes/a.md#L15\n" +
		"  %% source C: notes/a.md#L16-L16\n" +
		"  %% source D: notes/a.md#L17\n" +
		"  %% a plain comment\n" +
		"  classDef warn fill:#f00;\n" +
		"```\n",
	"artifacts/bad.json": `{
  "nodes": [
    {"id": "x1"},
    {"id": "x2", "source_lines": {"path": "notes/missing.md", "start": 1, "end": 2}},
    {"id": "x3", "source_lines": {"path": "notes/a.md", "start": 25, "end": 40}},
    {"id": "x4", "kind": "decision", "source_lines": {"path": "notes/a.md", "start": 1}},
    {"id": "x5", "source_lines": {"path": "notes/a.md", "start": 2}},
    {"id": "x6", "source_lines": {"path": "notes/a.md", "start": 3}, "refs": ["x1", "ghost"]},
    {"id": "x7", "source_lines": {"path": "notes/a.md", "start": 0, "end": 2}}
  ],
  "edges": [
    {"from": "x4", "to": "x1"},
    {"from": "x1", "to": "x2"},
    {"from": "x2", "to": "x3"},
    {"from": "x3", "to": "x6"},
    {"from": "x6", "to": "x7"},
    {"from": "x1", "to": "ghost"}
  ]
}`,
	"artifacts/bad.md": "```mermaid\ngraph LR\n" + // P is line 3
		"P{choice} --> Q[only]\n" +
		"Q --> S\n" +
		"R[alone]\n" +
		"??? nonsense\n" +
		"%% source P: notes/a.md#L1\n" +
		"%% source Q: notes/a.md#L2\n" +
		"%% source R: notes/a.md#L3\n" +
		"%% source Z: notes/a.md#L4\n" +
		"%% source Q: notes/a.md\n" +
		"%% source\n" +
		"```\n",
	"artifacts/broken.json":           `{"nodes": [`,
	"artifacts/notgraph.json":         `{"foo": 1}`,
	"artifacts/prose.md":              "# Just notes\n\nNo chart here.\n",
	"artifacts/daily/2026-01-01.md":   "```mermaid\nflowchart TD\nA --> B\n```\n",
	"artifacts/only_orphan.json":      `{"nodes": [{"id": "a", "source_lines": {"path": "notes/a.md", "start": 1}}, {"id": "b", "source_lines": {"path": "notes/a.md", "start": 2}}, {"id": "c", "source_lines": {"path": "notes/a.md", "start": 3}}], "edges": [{"from": "a", "to": "b"}]}`,
	"artifacts/only_nosource.json":    `{"nodes": [{"id": "a"}], "edges": []}`,
	"artifacts/only_oneway.json":      `{"nodes": [{"id": "a", "source_lines": {"path": "notes/a.md", "start": 1}, "refs": ["b"]}, {"id": "b", "source_lines": {"path": "notes/a.md", "start": 2}}], "edges": [{"from": "a", "to": "b"}]}`,
	"artifacts/empty_graph.json":      `{"nodes": []}`,
	"artifacts/sub/two_charts.md":     "```mermaid\nflowchart TD\nA[a] --> B[b]\n%% source A: notes/a.md#L1\n%% source B: notes/a.md#L2\n```\n\n```mermaid\nflowchart TD\nA[other]\n%% source A: notes/a.md#L3\n```\n",
	"artifacts/unclosed.md":           "```mermaid\nflowchart TD\nA[x]\n",
	"artifacts/bidirectional.md":      "```mermaid\nflowchart LR\nA[a] <--> B[b] & C[c]\n%% source A: notes/a.md#L1\n%% source B: notes/a.md#L2\n%% source C: notes/a.md#L3\n```\n",
	"artifacts/quoted_and_class.md":   "```mermaid\nflowchart LR\nA[\"has ] inside\"]:::warn ==> B>flag] -.-> C{{hex}} --- D[(db)];\n%% source A: notes/a.md#L1\n%% source B: notes/a.md#L2\n%% source C: notes/a.md#L3\n%% source D: notes/a.md#L4\n```\n",
	"artifacts/decision_text_link.md": "```mermaid\nflowchart TD\nQ{q?} -. maybe .-> R[r]\nQ == sure ==> S[s]\n%% source Q: notes/a.md#L1\n%% source R: notes/a.md#L2\n%% source S: notes/a.md#L3\n```\n",
}

// findingKeys renders findings as "artifact|element|kind" for comparison.
func findingKeys(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Artifact+"|"+f.Element+"|"+f.Kind)
	}
	return out
}

func TestAudit(t *testing.T) {
	badJSON := []string{
		"artifacts/bad.json|x1|no_source",
		"artifacts/bad.json|x2|bad_source",
		"artifacts/bad.json|x3|bad_source",
		"artifacts/bad.json|x4|orphan_branch",
		"artifacts/bad.json|x5|orphan_branch",
		"artifacts/bad.json|x6|one_way_reference",
		"artifacts/bad.json|x6|one_way_reference",
		"artifacts/bad.json|x7|bad_source",
		"artifacts/bad.json|x1 -> ghost|one_way_reference",
	}
	badMD := []string{
		"artifacts/bad.md|line 6|parse_error",
		"artifacts/bad.md|line 12|parse_error",
		"artifacts/bad.md|Z|bad_source",
		"artifacts/bad.md|P|orphan_branch",
		"artifacts/bad.md|Q|bad_source",
		"artifacts/bad.md|R|orphan_branch",
		"artifacts/bad.md|Q -> S|one_way_reference",
	}
	tests := []struct {
		name      string
		paths     []string
		wantN     int
		want      []string
		wantNext  []string
		wantError apperr.Code
	}{
		{
			name:     "clean JSON and Mermaid",
			paths:    []string{"artifacts/clean.json", "Artifacts/sub/clean.md", "artifacts/clean.json"},
			wantN:    2,
			want:     []string{},
			wantNext: []string{},
		},
		{
			name:  "more clean Mermaid syntax",
			paths: []string{"artifacts/sub/two_charts.md", "artifacts/bidirectional.md", "artifacts/quoted_and_class.md", "artifacts/decision_text_link.md", "artifacts/empty_graph.json"},
			wantN: 5, want: []string{}, wantNext: []string{},
		},
		{name: "bad JSON", paths: []string{"artifacts/bad.json"}, wantN: 1, want: badJSON, wantNext: []string{"vault_scan", "fill_gaps"}},
		{name: "bad Mermaid", paths: []string{"artifacts/bad.md"}, wantN: 1, want: badMD, wantNext: []string{"vault_scan", "fill_gaps"}},
		{
			name:  "unreadable artifacts",
			paths: []string{"artifacts/broken.json", "artifacts/notgraph.json", "artifacts/prose.md", "artifacts/unclosed.md", "artifacts/none.json"},
			wantN: 5,
			want: []string{
				"artifacts/broken.json||parse_error", "artifacts/notgraph.json||parse_error", "artifacts/prose.md||parse_error",
				"artifacts/unclosed.md||parse_error", "artifacts/none.json||parse_error",
			},
			wantNext: []string{},
		},
		{name: "orphan only", paths: []string{"artifacts/only_orphan.json"}, wantN: 1, want: []string{"artifacts/only_orphan.json|c|orphan_branch"}, wantNext: []string{"fill_gaps"}},
		{name: "one-way only", paths: []string{"artifacts/only_oneway.json"}, wantN: 1, want: []string{"artifacts/only_oneway.json|a|one_way_reference"}, wantNext: []string{"fill_gaps"}},
		{name: "no source only", paths: []string{"artifacts/only_nosource.json"}, wantN: 1, want: []string{"artifacts/only_nosource.json|a|no_source"}, wantNext: []string{"vault_scan"}},
		{name: "not an artifact", paths: []string{"notes/a.md"}, wantError: apperr.InvalidArgument},
		{name: "daily log", paths: []string{"artifacts/daily/2026-01-01.md"}, wantError: apperr.InvalidArgument},
		{name: "outside", paths: []string{"../x.json"}, wantError: apperr.PathOutsideVault},
	}
	v := mustOpenVault(t)
	for p, c := range auditFixtures {
		mustPut(t, v, p, c)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Audit(context.Background(), v, tt.paths)
			if tt.wantError != "" {
				if apperr.CodeOf(err) != tt.wantError {
					t.Fatalf("Audit error = %v, want %s", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Artifacts != tt.wantN {
				t.Errorf("Artifacts = %d, want %d", got.Artifacts, tt.wantN)
			}
			if keys := findingKeys(got.Findings); !reflect.DeepEqual(keys, tt.want) {
				t.Errorf("findings:\n %s\nwant\n %s\ndetails: %+v", strings.Join(keys, "\n "), strings.Join(tt.want, "\n "), got.Findings)
			}
			if !reflect.DeepEqual(got.NextActions, tt.wantNext) {
				t.Errorf("NextActions = %#v, want %#v", got.NextActions, tt.wantNext)
			}
			for _, f := range got.Findings {
				if f.Detail == "" {
					t.Errorf("finding %+v has no detail", f)
				}
			}
		})
	}

	t.Run("every artifact", func(t *testing.T) {
		got, err := Audit(context.Background(), v, nil)
		if err != nil {
			t.Fatal(err)
		}
		// prose.md (no chart) and the daily log are skipped.
		if want := len(auditFixtures) - 3; got.Artifacts != want {
			t.Errorf("Artifacts = %d, want %d", got.Artifacts, want)
		}
		kinds := map[string]bool{}
		for _, f := range got.Findings {
			kinds[f.Kind] = true
			if strings.HasPrefix(f.Artifact, "artifacts/daily/") || f.Artifact == "artifacts/prose.md" {
				t.Errorf("finding in a skipped file: %+v", f)
			}
		}
		for _, k := range []string{KindNoSource, KindBadSource, KindOrphanBranch, KindOneWayReference, KindParseError} {
			if !kinds[k] {
				t.Errorf("no %s finding", k)
			}
		}
		if !reflect.DeepEqual(got.NextActions, []string{"vault_scan", "fill_gaps"}) {
			t.Errorf("NextActions = %#v", got.NextActions)
		}
	})

	t.Run("empty vault", func(t *testing.T) {
		got, err := Audit(context.Background(), mustOpenVault(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Artifacts != 0 || got.Findings == nil || len(got.Findings) != 0 || got.NextActions == nil || len(got.NextActions) != 0 {
			t.Errorf("got %#v, want an empty report with non-nil slices", got)
		}
	})
}

func TestCoverageCitations(t *testing.T) {
	tests := []struct {
		name      string
		artifacts map[string]string
		records   [][2]int
		want      Report
	}{
		{
			name: "JSON and Mermaid citations, clamped, other files ignored",
			artifacts: map[string]string{
				"artifacts/a.json": `{"nodes": [
					{"id": "n1", "source_lines": [{"path": "notes/a.md", "start": 2, "end": 3}, {"path": "notes/b.md", "start": 5, "end": 6}]},
					{"id": "n2", "source_lines": {"path": "notes/a.md", "start": 9, "end": 40}}]}`,
				"artifacts/b.md":                "```mermaid\nflowchart TD\nA[x] --> B[y]\n%% source A: notes/a.md#L5-L6\n%% source B: ./notes//a.md#L5\n```\n",
				"artifacts/broken.json":         "{",
				"artifacts/daily/2026-01-01.md": "```mermaid\nflowchart TD\nA[x]\n%% source A: notes/a.md#L7\n```\n",
			},
			records: [][2]int{{1, 1}},
			want: Report{
				TotalLines: 10, Covered: [][2]int{{1, 1}}, CitedByArtifacts: [][2]int{{2, 3}, {5, 6}, {9, 10}},
				Uncovered: [][2]int{{4, 4}, {7, 8}}, CoverageRatio: 0.7, NextActions: []string{"vault_scan"},
			},
		},
		{
			name:      "citations alone reach the threshold",
			artifacts: map[string]string{"artifacts/a.json": `{"nodes": [{"id": "n1", "source_lines": {"path": "notes/a.md", "start": 1, "end": 9}}]}`},
			want: Report{
				TotalLines: 10, Covered: [][2]int{}, CitedByArtifacts: [][2]int{{1, 9}},
				Uncovered: [][2]int{{10, 10}}, CoverageRatio: 0.9, NextActions: []string{},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustOpenVault(t)
			mustPut(t, v, "notes/a.md", numbered(10))
			mustPut(t, v, "notes/b.md", numbered(10))
			for p, c := range tt.artifacts {
				mustPut(t, v, p, c)
			}
			for _, r := range tt.records {
				if err := Record(v, "notes/a.md", r[0], r[1]); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Coverage(context.Background(), v, "notes/a.md")
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Path = "notes/a.md"
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Coverage =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

// A cancelled audit, coverage report or scan stops before the next
// artifact it would read and says why (context.Canceled); a scan so
// stopped records nothing.
func TestAuditStopsWhenCancelled(t *testing.T) {
	v := mustOpenVault(t)
	mustPut(t, v, "notes/a.md", numbered(10))
	for i := range 3 {
		mustPut(t, v, fmt.Sprintf("artifacts/a%d.json", i), `{"nodes": [{"id": "n1", "source_lines": {"path": "notes/a.md", "start": 1, "end": 9}}]}`)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep, err := Audit(ctx, v, nil); !errors.Is(err, context.Canceled) || rep.Artifacts != 0 {
		t.Errorf("Audit: err %v after %d artifacts", err, rep.Artifacts)
	}
	if _, err := Coverage(ctx, v, "notes/a.md"); !errors.Is(err, context.Canceled) {
		t.Errorf("Coverage: err %v", err)
	}
	if _, err := Scan(ctx, v, "notes/a.md", "", 4); !errors.Is(err, context.Canceled) {
		t.Errorf("Scan: err %v", err)
	}
	if r, err := Coverage(context.Background(), v, "notes/a.md"); err != nil || len(r.Covered) != 0 {
		t.Errorf("a cancelled scan recorded %v (err %v)", r.Covered, err)
	}
}
