package tools

import (
	"fmt"
	"strings"
	"testing"
)

// The vault tools through a real client session: one scenario, step by
// step, each asserting the result or the error a model would read.
func TestVaultTools(t *testing.T) {
	v := mustOpenVault(t)
	cs, _ := connectDeps(t, Deps{Store: mustOpenDB(t), Vault: v})
	var long strings.Builder
	for i := 1; i <= 450; i++ {
		fmt.Fprintf(&long, "line %d of the long note\n", i)
	}
	steps := []struct {
		name string
		tool string
		args map[string]any
		want []string // substrings of the text content
		err  bool     // want an error result
	}{
		{"empty vault lists nothing", "vault_ls", map[string]any{}, []string{"The folder is empty."}, false},
		{"create a note", "vault_create", map[string]any{"path": "notes/topic.md", "content": "# Topic\nSlices share arrays.\n"},
			[]string{"notes/topic.md: create, now 29 bytes, 2 lines"}, false},
		{"create never replaces", "vault_create", map[string]any{"path": "notes/topic.md", "content": "x"},
			[]string{"already_exists", "notes/topic.md"}, true},
		{"append", "vault_write", map[string]any{"path": "notes/topic.md", "content": "Maps are references.\n", "mode": "append"},
			[]string{"append, now 50 bytes, 3 lines"}, false},
		{"write needs an existing file", "vault_write", map[string]any{"path": "notes/none.md", "content": "x", "mode": "overwrite"},
			[]string{"not_found"}, true},
		{"bad mode", "vault_write", map[string]any{"path": "notes/topic.md", "content": "x", "mode": "insert"},
			[]string{"invalid_argument", "mode"}, true},
		{"replace once", "vault_replace", map[string]any{"path": "notes/topic.md", "old": "share", "new": "view"},
			[]string{"replace"}, false},
		{"replace refuses a different count", "vault_replace", map[string]any{"path": "notes/topic.md", "old": "a", "new": "A"},
			[]string{"match_count_mismatch"}, true},
		{"read a range", "vault_read", map[string]any{"path": "notes/topic.md", "start_line": 2, "end_line": 3},
			[]string{"lines 2–3 of 3", "Slices view arrays.", "Maps are references."}, false},
		{"escape with ..", "vault_read", map[string]any{"path": "../outside.md"}, []string{"path_outside_vault"}, true},
		{"absolute path", "vault_create", map[string]any{"path": "/etc/passwd", "content": "x"}, []string{"path_outside_vault"}, true},
		{"artifacts take md and json", "vault_create", map[string]any{"path": "artifacts/run.sh", "content": "x"},
			[]string{"extension_not_allowed"}, true},
		{"daily log created", "vault_create", map[string]any{"path": "artifacts/daily/2026-11-22.md", "content": "- started\n"},
			[]string{"create"}, false},
		{"daily log appends", "vault_write", map[string]any{"path": "Artifacts/Daily/2026-11-22.md", "content": "- slices\n", "mode": "append"},
			[]string{"append"}, false},
		{"daily log is append-only", "vault_write", map[string]any{"path": "artifacts//daily/2026-11-22.md", "content": "", "mode": "overwrite"},
			[]string{"append_only"}, true},
		{"long note", "vault_create", map[string]any{"path": "drafts/long.md", "content": long.String()}, []string{"450 lines"}, false},
		{"reads default to 200 lines", "vault_read", map[string]any{"path": "drafts/long.md"},
			[]string{"lines 1–200 of 450", "line 200 of", "more with start_line=201"}, false},
		{"coverage after one read", "vault_coverage", map[string]any{"path": "drafts/long.md"},
			[]string{"covered [[1 200]]", "uncovered [[201 450]]", "next_actions: vault_scan"}, false},
		{"a scan visits what is uncovered", "vault_scan", map[string]any{"path": "drafts/long.md", "chunk_lines": 100},
			[]string{"drafts/long.md lines 201–300", "line 201 of", "more with cursor="}, false},
		{"a bad cursor", "vault_scan", map[string]any{"path": "drafts/long.md", "cursor": "garbage"}, []string{"invalid_argument"}, true},
		{"an artifact without sources", "vault_create", map[string]any{"path": "artifacts/flow.json",
			"content": `{"nodes": [{"id": "a", "label": "start", "source_lines": {"path": "drafts/long.md", "start": 1, "end": 3}}, {"id": "b", "label": "end"}], "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}]}`},
			[]string{"create"}, false},
		{"audit finds it", "artifact_audit", map[string]any{},
			[]string{"1 artifacts audited", "artifacts/flow.json b: no_source", "one_way_reference", "next_actions: vault_scan"}, false},
		{"whole file still capped", "vault_read", map[string]any{"path": "drafts/long.md", "whole_file": true, "max_chars": 1000},
			[]string{"lines 1–", "more with start_line="}, false},
		{"past the end", "vault_read", map[string]any{"path": "drafts/long.md", "start_line": 451}, []string{"past the end"}, true},
		{"search with line numbers", "vault_search", map[string]any{"query": "SLICES"},
			[]string{"artifacts/daily/2026-11-22.md:2: - slices", "notes/topic.md:2: Slices view arrays."}, false},
		{"search without the daily log", "vault_search", map[string]any{"query": "slices", "path": "notes"},
			[]string{"notes/topic.md:2:"}, false},
		{"search by glob", "vault_search", map[string]any{"query": "line 45", "glob": "drafts/*.md", "max_results": 1},
			[]string{"drafts/long.md:45:", "more matches"}, false},
		{"bad glob", "vault_search", map[string]any{"query": "x", "glob": "["}, []string{"bad glob"}, true},
		{"find across files", "vault_find", map[string]any{"query": "ＳＬＩＣＥＳ", "scope": map[string]any{"relative_dir": "notes"}},
			[]string{"1 candidates", "notes/topic.md (1 line)\n  2 [normalized] Slices view arrays.", "shortage", "next_actions: fill_gaps, verify_coverage"}, false},
		{"find says which phrasing a line holds", "vault_find", map[string]any{"query": "slices", "also": []string{"maps"}, "scope": map[string]any{"relative_dir": "notes"}},
			[]string{"notes/topic.md (2 lines)\n  2 [normalized: query] Slices view arrays.\n  3 [normalized: also:1] Maps are references."}, false},
		{"find leaves the daily log out by glob", "vault_find", map[string]any{"query": "slices", "scope": map[string]any{"glob": "notes/*.md"}},
			[]string{"in 1 of 1 files"}, false},
		{"list recursively", "vault_ls", map[string]any{"recursive": true},
			[]string{"artifacts/daily/2026-11-22.md", "drafts/long.md", "notes/topic.md"}, false},
		// langspec's own state (the coverage noted above) is read-only here.
		{"state can be read", "vault_read", map[string]any{"path": ".system/coverage.json"},
			[]string{"drafts/long.md"}, false},
		{"state is not created", "vault_create", map[string]any{"path": ".system/adaptive_stats.jsonl", "content": "{}\n"},
			[]string{"invalid_path", "read-only", "notes/"}, true},
		{"state is not overwritten", "vault_write", map[string]any{"path": ".system/coverage.json", "content": "{}", "mode": "overwrite"},
			[]string{"invalid_path", ".system/"}, true},
		{"state is not appended to", "vault_write", map[string]any{"path": ".SYSTEM/coverage.json", "content": "x", "mode": "append"},
			[]string{"invalid_path"}, true},
		{"state is not replaced", "vault_replace", map[string]any{"path": ".system/coverage.json", "old": "version", "new": "v"},
			[]string{"invalid_path"}, true},
		// Spellings from other systems get a hint instead of an odd name.
		{"no home folder", "vault_create", map[string]any{"path": "~/x.md", "content": "x"},
			[]string{"invalid_path", "~ is not your home folder here"}, true},
		{"no backslash", "vault_create", map[string]any{"path": `notes\x.md`, "content": "x"},
			[]string{"invalid_path", `use "/" between names`}, true},
		{"one name, two spellings", "vault_create", map[string]any{"path": "notes/cafe\u0301.md", "content": "x"},
			[]string{"notes/caf\u00e9.md: create"}, false},
		{"the other spelling is taken", "vault_create", map[string]any{"path": "notes/caf\u00e9.md", "content": "y"},
			[]string{"already_exists"}, true},
	}
	for _, st := range steps {
		res := call(t, cs, st.tool, st.args)
		got := text(res)
		if res.IsError != st.err {
			t.Errorf("%s: isError %v, want %v: %s", st.name, res.IsError, st.err, got)
		}
		for _, w := range st.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", st.name, got, w)
			}
		}
		if st.name == "search without the daily log" && strings.Contains(got, "daily") {
			t.Errorf("%s: searched outside path: %s", st.name, got)
		}
	}
	// The structured results agree with the vault itself.
	var out VaultReadOut
	decode(t, call(t, cs, "vault_read", map[string]any{"path": "drafts/long.md", "start_line": 449}), &out)
	if out.StartLine != 449 || out.EndLine != 450 || out.NextLine != 0 || out.TotalLines != 450 {
		t.Errorf("end of file: %+v", out)
	}
	data, err := v.ReadFile("artifacts/daily/2026-11-22.md")
	if err != nil || string(data) != "- started\n- slices\n" {
		t.Errorf("daily log = %q, %v", data, err)
	}
	var ls VaultLsOut
	decode(t, call(t, cs, "vault_ls", map[string]any{"recursive": true, "limit": 2}), &ls)
	if len(ls.Entries) != 2 || !ls.Truncated {
		t.Errorf("limit: %+v", ls)
	}
}
