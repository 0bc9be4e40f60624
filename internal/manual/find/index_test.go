package find

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/db"
)

func TestRefreshIsIncremental(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	copyTree(t, filepath.Join(fixturesDir, "ops-en"), filepath.Join(dir, "ops"))
	f := newFinder(t, dir)
	x := f.Index

	first, err := x.Refresh(ctx, "ops")
	if err != nil {
		t.Fatal(err)
	}
	if first.Indexed != first.Files || first.Files == 0 {
		t.Fatalf("first refresh = %+v, want every file indexed", first)
	}

	again, err := x.Refresh(ctx, "ops")
	if err != nil {
		t.Fatal(err)
	}
	if again.Indexed != 0 || again.Unchanged != first.Files {
		t.Fatalf("second refresh = %+v, want nothing indexed", again)
	}

	// Touched but unchanged: hashed, not re-indexed.
	runbook := filepath.Join(dir, "ops", "runbooks", "db", "failover.md")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(runbook, later, later); err != nil {
		t.Fatal(err)
	}
	touched, err := x.Refresh(ctx, "ops")
	if err != nil {
		t.Fatal(err)
	}
	if touched.Indexed != 0 {
		t.Fatalf("touch re-indexed: %+v", touched)
	}

	// Changed, added, removed, broken, too large.
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, "ops", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("runbooks/db/failover.md", "# Database failover\n\nPromote the standby with zebrafish-42.\n")
	write("new/added.md", "# Added\n\nA quokka appears.\n")
	write("broken.json", `{"note": "unterminated narwhal`)
	if err := os.Remove(filepath.Join(dir, "ops", "checklists", "oncall-handoff.md")); err != nil {
		t.Fatal(err)
	}
	changed, err := x.Refresh(ctx, "ops")
	if err != nil {
		t.Fatal(err)
	}
	if changed.Indexed != 3 || changed.Removed != 1 {
		t.Fatalf("refresh after edits = %+v, want 3 indexed (changed, added, broken JSON) and 1 removed", changed)
	}

	nodes, _, err := x.Nodes(ctx, "ops")
	if err != nil {
		t.Fatal(err)
	}
	has := func(word string) bool {
		return slices.ContainsFunc(nodes, func(n db.ManualNode) bool { return strings.Contains(n.Norm, word) })
	}
	for word, want := range map[string]bool{"zebrafish-42": true, "quokka": true, "narwhal": true, "split-brain": false, "silenced alerts": false} {
		if has(word) != want {
			t.Errorf("index holds %q = %v, want %v", word, !want, want)
		}
	}
}

func TestNodesOwnTextAndSubsections(t *testing.T) {
	nodes := nodesOf("a.md", []byte("intro\n# A\none\n## B\ntwo\n### C\nthree\n## D\nfour\n"))
	got := map[string][3]int{}
	for _, n := range nodes {
		got[n.NodeID] = [3]int{n.LineStart, n.OwnEnd, n.LineEnd}
	}
	want := map[string][3]int{"_preamble": {1, 1, 1}, "a": {2, 3, 9}, "a/b": {4, 5, 7}, "a/b/c": {6, 7, 7}, "a/d": {8, 9, 9}}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s lines (start, own end, end) = %v, want %v", id, got[id], w)
		}
	}
	for _, n := range nodes {
		if n.NodeID == "a" && strings.Contains(n.Body, "two") {
			t.Errorf("node a's own text holds its subsection: %q", n.Body)
		}
	}
}

func TestNewFilesAreSearchableWithoutRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	copyTree(t, filepath.Join(fixturesDir, "ops-en"), filepath.Join(dir, "ops"))
	f := newFinder(t, dir)
	if _, err := f.Find(ctx, Request{ManualID: "ops", Query: "platypus"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ops", "platypus.md"), []byte("# Platypus care\n\nFeed the platypus.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := f.Find(ctx, Request{ManualID: "ops", Query: "platypus"})
	if err != nil {
		t.Fatal(err)
	}
	page, err := f.Hits(ctx, HitsRequest{TraceID: sum.TraceID})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Candidates) == 0 || page.Candidates[0].Path != "platypus.md" {
		t.Fatalf("new file not found first: %+v", page.Candidates)
	}
}

// TestEditsAreSearchableAtOnce edits, adds and removes files between
// searches of a manual already loaded: a search starts on the snapshot it
// has while the folder is checked (searchCurrent), and must still answer
// from the files as they are when it is called.
func TestEditsAreSearchableAtOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	copyTree(t, filepath.Join(fixturesDir, "ops-en"), filepath.Join(dir, "ops"))
	f := newFinder(t, dir)
	runbook := filepath.Join(dir, "ops", "runbooks", "db", "failover.md")
	later := time.Now()
	write := func(p, text string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		// A later time than any write before, whatever the clock's grain.
		later = later.Add(time.Second)
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
	}
	paths := func(query string) []string {
		t.Helper()
		sum, err := f.Find(ctx, Request{ManualID: "ops", Query: query})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range allHits(t, f, sum.TraceID, KindCandidates) {
			if !slices.Contains(out, c.Path) {
				out = append(out, c.Path)
			}
		}
		return out
	}
	if got := paths("wombat"); len(got) != 0 {
		t.Fatalf("wombat found before any file says it: %v", got)
	}
	steps := []struct {
		name string
		edit func()
		want []string // paths holding wombat
	}{
		{"edited in place", func() { write(runbook, "# Database failover\n\nPromote the wombat.\n") }, []string{"runbooks/db/failover.md"}},
		{"same size, new text", func() { write(runbook, "# Database failover\n\nPromote the koala.\n") }, nil},
		{"added", func() { write(filepath.Join(dir, "ops", "wombat.md"), "# Wombat care\n\nFeed the wombat.\n") }, []string{"wombat.md"}},
		{"removed", func() {
			if err := os.Remove(filepath.Join(dir, "ops", "wombat.md")); err != nil {
				t.Fatal(err)
			}
		}, nil},
	}
	for _, st := range steps {
		st.edit()
		if got := paths("wombat"); !slices.Equal(got, st.want) {
			t.Errorf("%s: wombat in %v, want %v", st.name, got, st.want)
		}
		// And again, now from the snapshot the last search refreshed.
		if got := paths("wombat"); !slices.Equal(got, st.want) {
			t.Errorf("%s, searched again: wombat in %v, want %v", st.name, got, st.want)
		}
	}
}
