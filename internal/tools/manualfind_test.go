package tools

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/manual/find/adaptive"
)

// TestManualFindFlow walks what a model does: find, page the hits, read a
// snippet of one with the trace id, and re-search what was left unscanned.
func TestManualFindFlow(t *testing.T) {
	store, lib := mustOpenDB(t), mustOpenManuals(t)
	statsPath := filepath.Join(t.TempDir(), "adaptive_stats.jsonl")
	stats, err := adaptive.Open(adaptive.Options{Path: statsPath})
	if err != nil {
		t.Fatal(err)
	}
	defer stats.Close()
	finder := &find.Finder{Index: find.NewIndex(store, lib, nil), Stats: stats}
	cs, _ := connectDeps(t, Deps{Store: store, Manuals: lib, Finder: finder})

	res := call(t, cs, "manual_find", map[string]any{"manual_id": "insurance-ja", "query": "免責事項について全部集めて",
		"budget": map[string]any{"max_candidates": 2}})
	if res.IsError {
		t.Fatalf("manual_find: %s", text(res))
	}
	var sum find.Summary
	remarshal(t, res.StructuredContent, &sum)
	if !strings.HasPrefix(sum.TraceID, "mf2.") || sum.Candidates != 2 || sum.CutoffReason != "candidate_cap" || len(sum.NextActions) == 0 {
		t.Fatalf("summary %+v", sum)
	}
	// The best hits come with the answer: refs and lines in the structured
	// result, a line of each in the text.
	if len(sum.Hits) != 2 || sum.Hits[0].Ref != sum.Hits[0].ManualID+"/"+sum.Hits[0].Path+"#"+sum.Hits[0].NodeID || sum.Hits[0].Snippet != "" ||
		!strings.Contains(text(res), sum.Hits[0].Ref) || !strings.Contains(text(res), "保険契約者または被保険者の故意") {
		t.Fatalf("manual_find's hits: %+v\n%s", sum.Hits, text(res))
	}
	// Past the candidate cap, nothing ranks higher: no warning about it.
	if strings.Contains(text(res), "candidate_cap") || strings.Contains(text(res), "not searched") && sum.Unsearched == 0 {
		t.Fatalf("manual_find warns of the candidate cap: %s", text(res))
	}
	none := call(t, cs, "manual_find", map[string]any{"manual_id": "insurance-ja", "query": "免責事項について全部集めて", "hits": 0,
		"budget": map[string]any{"max_candidates": 2}})
	var noHits find.Summary
	remarshal(t, none.StructuredContent, &noHits)
	if len(noHits.Hits) != 0 || noHits.TraceID != sum.TraceID || strings.Contains(text(none), "保険契約者") {
		t.Fatalf("manual_find with hits 0: %+v\n%s", noHits.Hits, text(none))
	}

	res = call(t, cs, "manual_hits", map[string]any{"trace_id": sum.TraceID, "limit": 1})
	var page find.HitsPage
	remarshal(t, res.StructuredContent, &page)
	if res.IsError || len(page.Candidates) != 1 || page.NextOffset != 1 || page.Total != 2 {
		t.Fatalf("manual_hits: %s", text(res))
	}
	top := page.Candidates[0]
	// The snippet is in the text; the structured copy has it with verbose only.
	if top.Snippet != "" || !strings.Contains(text(res), "line ") {
		t.Fatalf("manual_hits without verbose: structured snippet %q, text %s", top.Snippet, text(res))
	}
	verbose := call(t, cs, "manual_hits", map[string]any{"trace_id": sum.TraceID, "limit": 1, "verbose": true})
	var full find.HitsPage
	remarshal(t, verbose.StructuredContent, &full)
	if len(full.Candidates) != 1 || full.Candidates[0].Snippet == "" || !strings.Contains(text(res), full.Candidates[0].Snippet) {
		t.Fatalf("manual_hits with verbose: %+v; text %s", full.Candidates, text(res))
	}

	res = call(t, cs, "manual_read", map[string]any{"manual_id": "insurance-ja", "path": top.Path, "scope": "snippet",
		"node_id": top.NodeID, "trace_id": sum.TraceID})
	if res.IsError || !strings.Contains(text(res), ": ") {
		t.Fatalf("manual_read snippet: %s", text(res))
	}
	if s := stats.Summary(); s.Thresholds != adaptive.Defaults() {
		t.Errorf("thresholds moved after one find: %+v", s)
	}

	res = call(t, cs, "manual_hits", map[string]any{"trace_id": sum.TraceID, "kind": "unscanned"})
	remarshal(t, res.StructuredContent, &page)
	if res.IsError || page.Total == 0 || !slices.ContainsFunc(page.Unscanned, func(u find.Unscanned) bool { return u.Reason == "candidate_cap" }) {
		t.Fatalf("unscanned: %s", text(res))
	}
	res = call(t, cs, "manual_find", map[string]any{"only_unscanned_from_trace_id": sum.TraceID})
	if res.IsError || !strings.Contains(text(res), "candidates") {
		t.Fatalf("re-search: %s", text(res))
	}
}

func TestManualFindErrors(t *testing.T) {
	cs, _ := connectDeps(t, Deps{Store: mustOpenDB(t), Manuals: mustOpenManuals(t)})
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"no query", "manual_find", map[string]any{"manual_id": "ops-en"}, "invalid_argument: empty query"},
		{"bad intent", "manual_find", map[string]any{"query": "x", "intent": "summarise"}, "intent"},
		{"budget too big", "manual_find", map[string]any{"query": "x", "budget": map[string]any{"time_ms": 10_000_000}}, "time_ms"},
		{"unknown manual", "manual_find", map[string]any{"query": "x", "manual_id": "medical"}, "not_found"},
		{"unknown trace", "manual_hits", map[string]any{"trace_id": "mf_00000000000000000000"}, "not_found"},
		{"not a trace", "manual_find", map[string]any{"only_unscanned_from_trace_id": "latest"}, "invalid_argument"},
		{"made-up trace on read", "manual_read", map[string]any{"manual_id": "ops-en", "path": "README.md", "scope": "file", "trace_id": "abc"}, "not a trace id"},
		{"node_ids of two files", "manual_read", map[string]any{"manual_id": "ops-en", "scope": "sections",
			"node_ids": []string{"ops-en/runbooks/db/failover.md#database-failover", "ops-en/README.md#ops-en"}}, "two files"},
		{"snippet needs node_id", "manual_read", map[string]any{"manual_id": "ops-en", "path": "README.md", "scope": "snippet"}, "needs node_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Fatalf("got %s, want an error with %q", text(res), tt.want)
			}
		})
	}
}

func TestManualReadSnippet(t *testing.T) {
	cs, _ := connectDeps(t, Deps{Store: mustOpenDB(t), Manuals: mustOpenManuals(t)})
	res := call(t, cs, "manual_read", map[string]any{"manual_id": "ops-en", "path": "runbooks/db/failover.md",
		"scope": "snippet", "node_id": "database-failover", "query": "replication lag"})
	got := text(res)
	if res.IsError || !strings.Contains(got, "21: Check lag is below 30 s") || strings.Contains(got, "Freeze deploys") {
		t.Fatalf("snippet: %s", got)
	}
}

// TestManualReadSectionsByRefs: scope sections takes the refs manual_find
// prints as node_ids, the file named by them, and reads each.
func TestManualReadSectionsByRefs(t *testing.T) {
	cs, _ := connectDeps(t, Deps{Store: mustOpenDB(t), Manuals: mustOpenManuals(t)})
	res := call(t, cs, "manual_read", map[string]any{"manual_id": "ops-en", "scope": "sections", "node_ids": []string{
		"ops-en/runbooks/db/failover.md#database-failover/promote-the-replica", "ops-en/runbooks/db/failover.md#database-failover/promote-the-replica/verify-replication-lag"}})
	got := text(res)
	if res.IsError || !strings.Contains(got, "runbooks/db/failover.md#database-failover/promote-the-replica,") || !strings.Contains(got, "Check lag is below 30 s") {
		t.Fatalf("sections by refs: %s", got)
	}
}

// TestManualReadSnippetKeepsIndentation: scope snippet shows code as it is
// written, indented, not flattened.
func TestManualReadSnippetKeepsIndentation(t *testing.T) {
	cs, _ := connectDeps(t, Deps{Store: mustOpenDB(t), Manuals: mustOpenManuals(t)})
	res := call(t, cs, "manual_read", map[string]any{"manual_id": "nodejs-en/readline.md#readline/example-read-file-stream-line-by-line",
		"scope": "snippet", "query": "crlfDelay"})
	got := text(res)
	if res.IsError || !strings.Contains(got, "1188:     crlfDelay: Infinity,\n") || !strings.Contains(got, "1187:     input: fileStream,\n") {
		t.Fatalf("snippet lost the code's indentation:\n%s", got)
	}
}
