package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/specdiff"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// twoGoVersions makes a database holding go1.25 (toolstest.OlderGoSpec) and go1.26,
// both ingested as a user would.
func twoGoVersions(t *testing.T) (env map[string]string, dbPath string) {
	t.Helper()
	home := t.TempDir()
	dbPath = filepath.Join(home, "langspec.db")
	env = map[string]string{"HOME": home}
	older := toolstest.OlderGoSpec(t, home)
	for _, args := range [][]string{{"ingest", "go", "--from", older}, {"ingest", "go", "--from", "embedded"}} {
		if code, _, stderr := run(t, env, append([]string{"--db", dbPath}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
	}
	return env, dbPath
}

// twoVersionDB is seededDB (go1.26) with toolstest.OlderGoSpec's go1.25 ingested
// beside it.
func twoVersionDB(t *testing.T) string {
	t.Helper()
	dbPath := seededDB(t)
	home := filepath.Dir(dbPath)
	if code, _, stderr := run(t, map[string]string{"HOME": home}, "--db", dbPath, "ingest", "go", "--from", toolstest.OlderGoSpec(t, t.TempDir())); code != 0 {
		t.Fatalf("ingest go1.25: exit %d\n%s", code, stderr)
	}
	return dbPath
}

// TestDiffFindsExactlyTheEdits: from the terminal, the diff of two real
// versions finds the four edits and nothing else, with word marks and
// both citations; narrowing, paging and every bad request give a clear
// answer.
func TestDiffFindsExactlyTheEdits(t *testing.T) {
	env, dbPath := twoGoVersions(t)
	diff := func(args ...string) (int, string, string) {
		return run(t, env, append([]string{"--db", dbPath, "diff", "go"}, args...)...)
	}
	code, stdout, stderr := diff("--json")
	if code != 0 {
		t.Fatalf("diff: exit %d\n%s", code, stderr)
	}
	var ans specdiff.Answer
	if err := json.Unmarshal([]byte(stdout), &ans); err != nil {
		t.Fatal(err)
	}
	if ans.From.Version != "go1.25" || ans.To.Version != "go1.26" {
		t.Fatalf("compared %s → %s, want the two newest: go1.25 → go1.26", ans.From.Version, ans.To.Version)
	}
	var got []string
	for _, it := range ans.Items {
		got = append(got, it.Kind+" "+it.Class+" "+it.Name())
	}
	// Rule changes first, the new section first among them; the rename
	// alone is editorial, so last.
	want := []string{
		"added rule Empty statements (Empty_statements)",
		"changed rule Blocks (Blocks)",
		"removed rule An old rule (Old_rule)",
		"renamed editorial Sets of methods (Sets_of_methods) → Method sets (Method_sets)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("items\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s := ans.Summary
	if s.Added != 1 || s.Removed != 1 || s.Renamed != 1 || s.Changed != 1 || s.Unchanged != ans.To.Sections-3 || len(s.Chapters) < 2 ||
		s.Classes["rule"] != 3 || s.Classes["editorial"] != 1 {
		t.Errorf("summary %+v; want one of each kind, every other section of %d unchanged, counts by chapter and class", s, ans.To.Sections)
	}
	blocks := ans.Items[1]
	if len(blocks.Sentences) != 1 || blocks.Sentences[0].Text != "[-Besides the-]{+In addition to+} explicit blocks in the source code, there are implicit blocks:" {
		t.Errorf("Blocks' sentences %+v", blocks.Sentences)
	}
	if blocks.URL != "https://go.dev/ref/spec#Blocks" || blocks.Old != nil || blocks.Similarity >= 1 {
		t.Errorf("Blocks' citation %+v, old side %+v (the same url: said once), similarity %v", blocks.URL, blocks.Old, blocks.Similarity)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		out  []string // in stdout, or stderr when code != 0
	}{
		{"text", nil, 0, []string{"go/spec go1.25 → go1.26, document: 1 added, 1 removed, 1 renamed, 1 changed", "3 rule, 1 editorial",
			"~ [-Besides the-]{+In addition to+} explicit blocks", "changed Blocks [rule] https://go.dev/ref/spec#Blocks"}},
		{"one section by its title", []string{"--section", "blocks"}, 0, []string{"section blocks:", "1. changed Blocks [rule]"}},
		{"a section the same in both", []string{"--section", "Slice_expressions"}, 0, []string{"nothing changed"}},
		{"a section only in the older version", []string{"--section", "Old_rule"}, 0, []string{"removed An old rule [rule]"}},
		{"a query", []string{"--query", "implicit blocks"}, 0, []string{"sections about \"implicit blocks\"", "changed Blocks"}},
		{"one class", []string{"--class", "editorial"}, 0, []string{"renamed Method sets [editorial]", "was Sets of methods (Sets_of_methods)"}},
		// Bug 49.1: the hint for the next page names the versions compared,
		// so run as printed it shows the same diff.
		{"a page", []string{"--from", "go1.25", "--limit", "1", "--offset", "1"}, 0, []string{"2. changed Blocks",
			"2–2 of 4 sections that differ; more: langspec diff go --from go1.25 --to go1.26 --offset 2"}},
		// Bug 49.3: versions in the wrong order are refused, the right order in the hint.
		{"backwards", []string{"--from", "go1.26", "--to", "go1.25"}, 2, []string{"from go1.26 is newer than to go1.25", "the older version goes first: from go1.25, to go1.26"}},
		// Bug 49.6: versions as people write them.
		{"aliases", []string{"--from", "1.25", "--to", "go1.26.0", "--section", "Blocks"}, 0, []string{"go1.25 → go1.26", "changed Blocks"}},
		// Bug 49.4: a query that finds nothing says so and fails.
		{"a query that finds nothing", []string{"--query", "zzxqv wibblefrotz"}, 1, []string{"no section of go1.25 or go1.26 matches", "leave the query out"}},
		// Bug 49.5: an offset names an item: the last is total-1.
		{"offset at the end", []string{"--offset", "4"}, 2, []string{"offset 4 is past the 4 sections that differ", "use an offset from 0 to 3"}},
		{"the last offset", []string{"--offset", "3"}, 0, []string{"4. renamed Method sets"}},
		{"no such class", []string{"--class", "rules"}, 2, []string{`--class "rules": use one of rule, example, moved, editorial`}},
		{"unknown version", []string{"--from", "go1.20"}, 1, []string{`no complete version "go1.20" of go/spec (from)`, "stored versions: go1.26, go1.25"}},
		{"the same version twice", []string{"--from", "go1.26", "--to", "go1.26"}, 2, []string{"from and to are both go1.26"}},
		{"the oldest has no version before it", []string{"--to", "go1.25"}, 2, []string{"go1.25 is the oldest version stored"}},
		{"a section in neither", []string{"--section", "Slice_expresions"}, 1, []string{"no section", "Slice_expressions"}},
		{"section and query", []string{"--section", "Blocks", "--query", "x"}, 2, []string{"section id and query are both given"}},
		{"offset past the end", []string{"--offset", "9"}, 2, []string{"offset 9 is past the 4 sections that differ"}},
		{"limit out of range", []string{"--limit", "0"}, 2, []string{"--limit 0 is out of range; use 1 to 100"}},
		{"unknown language", []string{"--doc", "x"}, 1, []string{`no document "x" for go`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := diff(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			out := stdout
			if tc.code != 0 {
				out = stderr
			}
			for _, w := range tc.out {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}

	// One version only: nothing to compare, and the hint says how to get another.
	home := t.TempDir()
	one := map[string]string{"HOME": home}
	code, _, stderr = run(t, one, "--db", filepath.Join(home, "one.db"), "diff", "go")
	if code != 1 || !strings.Contains(stderr, "only one version of go/spec is stored (go1.26)") || !strings.Contains(stderr, "--version-label") {
		t.Errorf("one version: exit %d\n%s", code, stderr)
	}
}

// TestDiffOverMCP: spec_diff and the diff resource give the same answer as
// the terminal through a real client over stdio, the resource's versions
// complete, and the what-changed prompt names the tool.
func TestDiffOverMCP(t *testing.T) {
	_, dbPath := twoGoVersions(t)
	bin := langspecBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	stderr := &lockedBuffer{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: serveCmd(bin, dbPath, stderr)}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spec_diff", Arguments: map[string]any{"language": "go", "section_id": "Blocks"}})
	if err != nil || res.IsError {
		t.Fatalf("spec_diff: %v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	for _, w := range []string{"go/spec go1.25 → go1.26, section Blocks: 0 added, 0 removed, 0 renamed, 1 changed", "~ [-Besides the-]{+In addition to+}", "changed Blocks [rule] https://go.dev/ref/spec#Blocks"} {
		if !strings.Contains(text, w) {
			t.Errorf("spec_diff text lacks %q:\n%s", w, text)
		}
	}
	bad, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spec_diff", Arguments: map[string]any{"language": "go", "from": "go1.1"}})
	if err != nil || !bad.IsError || !strings.Contains(bad.Content[0].(*mcp.TextContent).Text, "stored versions: go1.26, go1.25") {
		t.Errorf("an unknown version: %v %+v", err, bad)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "langspec://go/spec/diff/go1.25/go1.26"})
	if err != nil || len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "1 added, 1 removed, 1 renamed, 1 changed") {
		t.Errorf("diff resource: %v %+v", err, read)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "langspec://go/spec/diff/go1.25/go1.9"}); err == nil || !strings.Contains(err.Error(), "go1.9") {
		t.Errorf("diff resource of an unknown version: %v", err)
	}
	done, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "langspec://{language}/{doc}/diff/{from}/{to}"},
		Argument: mcp.CompleteParamsArgument{Name: "from", Value: "go1.2"},
		Context:  &mcp.CompleteContext{Arguments: map[string]string{"language": "go", "doc": "spec"}},
	})
	if err != nil || !slices.Equal(done.Completion.Values, []string{"go1.26", "go1.25"}) {
		t.Errorf("completions of from: %v %+v", err, done)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "what-changed", Arguments: map[string]string{"language": "go", "topic": "implicit blocks"}})
	if err != nil || !strings.Contains(p.Messages[0].Content.(*mcp.TextContent).Text, `spec_diff {"language":"go","query":"implicit blocks"}`) {
		t.Errorf("what-changed: %v %+v", err, p)
	}
}
