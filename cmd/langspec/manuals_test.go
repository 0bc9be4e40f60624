package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/eval"
	"github.com/langspec/langspec/internal/manual/find"
)

// fixtureManuals is the repository's sample manuals folder.
var fixtureManuals, _ = filepath.Abs("../../fixtures/manuals")

func TestIngestManuals(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "ops"), 0o755); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "ops", "runbook.md")
	os.WriteFile(page, []byte("# Failover\n\nPromote the standby.\n"), 0o644)
	env := map[string]string{"HOME": home, "MANUALS_ROOT": dir}

	code, out, errOut := run(t, env, "ingest", "manuals")
	if code != 0 || !strings.Contains(out, "ops: 1 files, 1 indexed, 0 unchanged, 0 removed") {
		t.Fatalf("first: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = run(t, env, "ingest", "manuals")
	if code != 0 || !strings.Contains(out, "ops: 1 files, 0 indexed, 1 unchanged") {
		t.Fatalf("second: exit %d\n%s", code, out)
	}
	os.Remove(page)
	code, out, _ = run(t, env, "ingest", "manuals", "--json")
	var reports []find.RefreshReport
	if code != 0 || json.Unmarshal([]byte(out), &reports) != nil || len(reports) != 1 || reports[0].Removed != 1 {
		t.Fatalf("after removal: exit %d\n%s", code, out)
	}
	code, _, errOut = run(t, env, "ingest", "manuals", "extra")
	if code != 2 || !strings.Contains(errOut, "no arguments") {
		t.Fatalf("extra argument: exit %d: %s", code, errOut)
	}
}

func TestEvalManualFind(t *testing.T) {
	gold := filepath.Join(t.TempDir(), "gold.jsonl")
	os.WriteFile(gold, []byte(`{"case_id":"lag","query":"replication lag","manual_id":"ops-en","expected_paths":["runbooks/db/failover.md#database-failover/promote-the-replica/verify-replication-lag"],"forbidden_paths":[],"required_terms":["30 s"],"facet":"definition"}`+"\n"), 0o644)
	env := map[string]string{"HOME": t.TempDir(), "MANUALS_ROOT": fixtureManuals}
	code, out, errOut := run(t, env, "eval", "manual-find", "--gold", gold)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"recall", "hit@5", "mrr@10", "staged     all             1  1.000  1.000   1.000   1.000", "bm25-terms", "bm25 "} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, env, "eval", "manual-find", "--gold", gold, "--mode", "staged", "--json")
	var reports []eval.ModeReport
	if code != 0 || json.Unmarshal([]byte(out), &reports) != nil || len(reports) != 1 || reports[0].Totals.RequiredTerms != 1 {
		t.Fatalf("json: exit %d\n%s", code, out)
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"case_id":"x"}`+"\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no gold", []string{"eval", "manual-find"}, 2, "--gold FILE.jsonl is required"},
		{"missing gold", []string{"eval", "manual-find", "--gold", "/nonexistent.jsonl"}, 1, "cannot open gold file"},
		{"bad gold line", []string{"eval", "manual-find", "--gold", bad}, 2, "bad.jsonl line 1: missing query, manual_id, expected_paths"},
		{"bad mode", []string{"eval", "manual-find", "--gold", gold, "--mode", "magic"}, 2, `--mode "magic" is not a mode`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, env, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.err) {
				t.Fatalf("exit %d, stderr %q; want %d with %q", code, errOut, tt.code, tt.err)
			}
		})
	}
}

func TestEvalSearch(t *testing.T) {
	dir := t.TempDir()
	gold := filepath.Join(dir, "g.jsonl")
	lines := `{"case_id":"t1","language":"go","query":"slice expressions","expected":["Slice_expressions"],"kind":"multiword"}
{"case_id":"t2","language":"go","query":"zzqqxx","expected":["Slice_expressions"],"kind":"typo"}
{"case_id":"t3","language":"cobol","query":"x","expected":["y"],"kind":"term"}
`
	if err := os.WriteFile(gold, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir}
	code, out, errOut := run(t, env, "eval", "search", "--gold", gold, "--part", "all", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var reports []eval.SearchReport
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatal(err)
	}
	if len(reports) != 1 || reports[0].Totals.Cases != 2 || reports[0].Totals.HitAt5 != 0.5 || reports[0].Cases[0].Rank != 1 {
		t.Errorf("reports %+v", reports)
	}
	if !strings.Contains(errOut, `skipped 1 cases: language "cobol" is not stored`) {
		t.Errorf("stderr: %s", errOut)
	}
	code, out, _ = run(t, env, "eval", "search", "--gold", gold)
	if code != 0 || !strings.Contains(out, "not in the top 5 (all)") || !strings.Contains(out, "t2 [typo]") {
		t.Errorf("table (exit %d):\n%s", code, out)
	}
	for _, args := range [][]string{{"eval", "search"}, {"eval", "search", "--gold", gold, "--part", "most"}} {
		if code, _, _ := run(t, env, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestReadsCreateNoVault: in a folder with manuals and no VAULT_ROOT, a
// manual_find records its statistics in the user's state folder, not in
// ./vault, and creates nothing there; so the next plain `langspec serve` in
// that folder serves the same tools as the first (a vault folder turns the
// vault's writing tools on).
func TestReadsCreateNoVault(t *testing.T) {
	work := t.TempDir()
	manuals, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "manuals", "ops-en"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(work, "manuals"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(manuals, filepath.Join(work, "manuals", "ops-en")); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(work, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(home, "l.db")
	copyFile(t, seededDB(t), dbPath)
	serve := func() *mcp.ClientSession {
		cmd := exec.Command(langspecBinary(t), "--db", dbPath, "serve")
		cmd.Dir = work
		cmd.Env = []string{"HOME=" + home, "LANGSPEC_LOG=info"}
		stderr := &lockedBuffer{}
		cmd.Stderr = stderr
		ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("serve: %v\n%s", err, stderr)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	first := serve()
	before := listedNames(t, first)
	if slices.Contains(before, "vault_write") {
		t.Fatalf("without a vault, serve lists the vault's tools: %v", before)
	}
	var found struct {
		TraceID string `json:"trace_id"`
	}
	if text := callJSON(t, first, "manual_find", map[string]any{"query": "failover"}, &found); found.TraceID == "" {
		t.Fatalf("manual_find: %s", text)
	}
	first.Close()
	if _, err := os.Stat(filepath.Join(work, "vault")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a manual_find created ./vault (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "state", "langspec", "adaptive_stats.jsonl")); err != nil {
		t.Errorf("the statistics are not in the state folder: %v", err)
	}
	if after := listedNames(t, serve()); !slices.Equal(after, before) {
		t.Errorf("the next serve lists %v, the first listed %v", after, before)
	}
}
