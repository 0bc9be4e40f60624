package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/app"
)

// writeManual makes manual id under root with one file holding text.
func writeManual(t *testing.T, root, id, text string) {
	t.Helper()
	dir := filepath.Join(root, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "guide.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A manual is (root, id). Two projects' manuals of one id live in one
// database side by side: ingesting one folder, serving from a folder
// without manuals, and two servers of two folders at once on one database
// never remove or replace the other folder's manual, and each server finds
// its own.
func TestManualsKeyedByTheirRoot(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "l.db")
	alpha, beta, empty := filepath.Join(dir, "alpha"), filepath.Join(dir, "beta"), filepath.Join(dir, "empty")
	writeManual(t, alpha, "m1", "# Guide\n\n## Failover\n\nThe alpha team promotes the replica with zebrafish.\n")
	writeManual(t, beta, "m1", "# Guide\n\n## Backups\n\nThe beta team restores snapshots with kingfisher.\n")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir}
	for _, root := range []string{alpha, beta} {
		if code, _, errOut := run(t, env, "--db", dbPath, "ingest", "manuals", "--manuals-root", root); code != 0 {
			t.Fatalf("ingest manuals %s: %s", root, errOut)
		}
	}
	list := func() app.ManualListing {
		t.Helper()
		code, out, errOut := run(t, env, "--db", dbPath, "manual", "list", "--manuals-root", alpha, "--json")
		var l app.ManualListing
		if code != 0 || json.Unmarshal([]byte(out), &l) != nil {
			t.Fatalf("manual list: %d %s %s", code, out, errOut)
		}
		return l
	}
	if l := list(); !strings.HasSuffix(l.Root, "alpha") || len(l.OtherRoots) != 1 || !strings.HasSuffix(l.OtherRoots[0].Root, "beta") {
		t.Fatalf("manual list after ingesting both folders: %+v", l)
	}

	// A server started in a project without manuals removes nothing.
	ctx := context.Background()
	bin := langspecBinary(t)
	serve := func(root string) (*mcp.ClientSession, *lockedBuffer) {
		t.Helper()
		stderr := &lockedBuffer{}
		cmd := exec.Command(bin, "--db", dbPath, "serve")
		cmd.Env = []string{"HOME=" + dir, "LANGSPEC_LOG=info", "WORKSPACE_ROOT=" + filepath.Dir(root), "MANUALS_ROOT=" + root}
		cmd.Stderr = stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "roots", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("serve %s: %v\n%s", root, err, stderr)
		}
		t.Cleanup(func() { cs.Close() })
		return cs, stderr
	}
	cs, stderr := serve(empty)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	if l := list(); len(l.Manuals) != 1 || len(l.OtherRoots) != 1 {
		t.Errorf("manual list after a server in a folder without manuals: %+v\nits log:\n%s", l, stderr)
	}

	// Two servers of the two folders at once, each searching in turn.
	a, aLog := serve(alpha)
	b, bLog := serve(beta)
	for range 3 {
		for _, tc := range []struct {
			cs            *mcp.ClientSession
			query, theirs string
		}{{a, "zebrafish", "kingfisher"}, {b, "kingfisher", "zebrafish"}} {
			text := callText2(t, tc.cs, "manual_read", map[string]any{"manual_id": "m1", "path": "guide.md", "scope": "file"})
			if !strings.Contains(text, tc.query) || strings.Contains(text, tc.theirs) {
				t.Fatalf("manual_read m1 holds %q", text)
			}
			var found struct {
				TraceID    string `json:"trace_id"`
				Candidates int    `json:"candidates"`
			}
			callJSON(t, tc.cs, "manual_find", map[string]any{"manual_id": "m1", "query": tc.query}, &found)
			if found.Candidates == 0 {
				t.Errorf("manual_find %q in its own folder found nothing", tc.query)
			}
			callJSON(t, tc.cs, "manual_find", map[string]any{"manual_id": "m1", "query": tc.theirs}, &found)
			if found.Candidates != 0 {
				t.Errorf("manual_find %q found the other folder's manual", tc.theirs)
			}
		}
	}
	for _, log := range []*lockedBuffer{aLog, bLog} {
		if strings.Contains(log.String(), "manual removed from index") || strings.Count(log.String(), "manual index refreshed") > 0 {
			t.Errorf("a server re-indexed or removed a manual the other holds:\n%s", log)
		}
	}
}

// callText2 calls a tool and returns its text, failing on an error.
func callText2(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	text, isErr := callText(t, cs, name, args)
	if isErr {
		t.Fatalf("%s: %s", name, text)
	}
	return text
}

// A manual is ranked with its own statistics: indexing another folder's
// manual of the same id, whose sections are full of the query's words,
// changes neither the order nor the scores of this folder's hits. (When
// manuals were ranked by the store's full-text index of every manual, the
// second folder moved them: "replica database" scored Replica lag 1.271,
// then 1.879.)
func TestManualRankingIsItsOwn(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "l.db")
	alpha, beta := filepath.Join(dir, "alpha"), filepath.Join(dir, "beta")
	writeManual(t, alpha, "m1", "# Guide\n\n## Failover\n\nPromote the replica database when the primary fails.\n\n"+
		"## Backups\n\nThe database backup runs nightly; restore the database from the backup.\n\n"+
		"## Replica lag\n\nA replica behind the primary by minutes.\n")
	var notes strings.Builder
	notes.WriteString("# Notes\n\n")
	for i := range 30 {
		fmt.Fprintf(&notes, "## Note %d\n\nThe replica replica database database notes %d.\n\n", i, i)
	}
	writeManual(t, beta, "m1", notes.String())
	env := map[string]string{"HOME": dir}
	type hit struct {
		NodeID string  `json:"node_id"`
		Score  float64 `json:"score"`
	}
	find := func(query string) []hit {
		t.Helper()
		code, out, errOut := run(t, env, "--db", dbPath, "manual", "find", query, "--manual", "m1", "--manuals-root", alpha, "--json")
		var res struct {
			Summary struct {
				Hits []hit `json:"hits"`
			} `json:"summary"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Summary.Hits) == 0 {
			t.Fatalf("manual find %q: %d %s %s", query, code, out, errOut)
		}
		return res.Summary.Hits
	}
	queries := []string{"replica database", "database backup restore", "primary"}
	alone := map[string][]hit{}
	for _, q := range queries {
		alone[q] = find(q)
	}
	if code, _, errOut := run(t, env, "--db", dbPath, "ingest", "manuals", "--manuals-root", beta); code != 0 {
		t.Fatalf("ingest manuals %s: %s", beta, errOut)
	}
	for _, q := range queries {
		if got := find(q); !slices.Equal(got, alone[q]) {
			t.Errorf("%q beside the other folder's manual: %v; alone: %v", q, got, alone[q])
		}
	}
}

// TestNodesOfAnOlderParserAreReparsed: an index whose nodes an older
// langspec cut — a file's last section running over the link definitions
// after it — is indexed again once this langspec opens it (migration 0017),
// so that manual find cites the lines manual_toc and manual_read see, and
// two servers never cut one file two ways.
func TestNodesOfAnOlderParserAreReparsed(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "l.db")
	root := filepath.Join(dir, "manuals")
	writeManual(t, root, "m1", "# Deprecations\n\n## DEP0001: stale()\n\nUse [`fresh()`][] instead.\n\n"+
		"[`fresh()`]: #fresh\n[other]: https://example.com/other\n")
	env := map[string]string{"HOME": dir}
	lines := func() string {
		t.Helper()
		code, out, errOut := run(t, env, "--db", dbPath, "manual", "find", "stale()", "--manual", "m1", "--manuals-root", root, "--json")
		var res struct {
			Summary struct {
				Hits []struct {
					NodeID    string `json:"node_id"`
					LineStart int    `json:"line_start"`
					LineEnd   int    `json:"line_end"`
				} `json:"hits"`
			} `json:"summary"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Summary.Hits) == 0 {
			t.Fatalf("manual find: %d %s %s", code, out, errOut)
		}
		h := res.Summary.Hits[0]
		return fmt.Sprintf("%s %d-%d", h.NodeID, h.LineStart, h.LineEnd)
	}
	const want = "deprecations/dep0001-stale 3-5"
	if got := lines(); got != want {
		t.Fatalf("first hit %s, want %s", got, want)
	}
	// What an older parser stored: the sections over the definitions, and
	// no migration 0017 yet.
	raw, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE manual_nodes SET line_end = 8`,
		`DELETE FROM schema_migrations WHERE name = '0017_manual_nodes_reparsed.sql'`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	if got := lines(); got != want {
		t.Errorf("after an older langspec's index, first hit %s, want %s", got, want)
	}
}
