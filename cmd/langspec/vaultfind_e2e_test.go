package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// vault_find through the real binary, on a user's notes (the ops handbook
// fixture copied into the vault folder, as a user keeps notes there): every
// line holding the query is found, and the file most about it comes first —
// not the first in path order — so that a low cap keeps that file's lines
// and says the list was cut, without calling it a shortage.
func TestVaultFindRanksTheNotes(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "l.db")
	notes := copyManuals(t, "ops-handbook")
	vaultNotes := filepath.Join(filepath.Dir(dbPath), "vault", "notes")
	if err := os.MkdirAll(filepath.Dir(vaultNotes), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(notes, "ops-handbook"), vaultNotes); err != nil {
		t.Fatal(err)
	}
	// What a line scan must find: every line holding the words, any case.
	want := 0
	filepath.WalkDir(vaultNotes, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			for line := range strings.Lines(strings.ToLower(string(b))) {
				if strings.Contains(line, "database failover") {
					want++
				}
			}
		}
		return nil
	})
	cs := serveManuals(t, dbPath, t.TempDir())
	type answer struct {
		Candidates []struct {
			Path string `json:"path"`
			Line int    `json:"line"`
		} `json:"candidates"`
		Stats struct {
			NormalizedHits int `json:"normalized_hits"`
			FilesWithHits  int `json:"files_with_hits"`
		} `json:"stats"`
		CutoffReason string   `json:"cutoff_reason"`
		NextActions  []string `json:"next_actions"`
	}
	find := func(args map[string]any) answer {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "vault_find", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("vault_find %v: %v %s", args, err, textOf(res))
		}
		var a answer
		remarshalTo(t, res.StructuredContent, &a)
		return a
	}
	all := find(map[string]any{"query": "database failover"})
	if all.Stats.NormalizedHits != want || len(all.Candidates) < want || all.Stats.FilesWithHits < 2 {
		t.Fatalf("found %d lines in %d files, %d shown; a line scan finds %d", all.Stats.NormalizedHits, all.Stats.FilesWithHits, len(all.Candidates), want)
	}
	if got := all.Candidates[0].Path; got != "notes/runbooks/database-failover.md" {
		t.Errorf("first candidate in %s, want the database failover runbook", got)
	}
	capped := find(map[string]any{"query": "database failover", "budget": map[string]any{"max_candidates": 1}})
	if len(capped.Candidates) != 1 || capped.Candidates[0] != all.Candidates[0] || capped.CutoffReason != "candidate_cap" ||
		strings.Join(capped.NextActions, ",") != "verify_coverage" {
		t.Errorf("capped at 1: %+v, want the best line, candidate_cap and verify_coverage", capped)
	}
}
