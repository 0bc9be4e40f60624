package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveManuals starts `langspec serve` over stdio on dbPath with the
// manuals of root, and connects the SDK client.
func serveManuals(t *testing.T, dbPath, root string) *mcp.ClientSession {
	t.Helper()
	stderr := &lockedBuffer{}
	cmd := serveCmd(langspecBinary(t), dbPath, stderr)
	cmd.Env = append(cmd.Env, "MANUALS_ROOT="+root)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// copyManuals copies fixtures/manuals/<ids> into a folder of the test's.
func copyManuals(t *testing.T, ids ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, id := range ids {
		src := filepath.Join(fixtureManuals, id)
		err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			dst := filepath.Join(root, id, rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			return os.WriteFile(dst, b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// What an assistant reads of manual_find, through the real binary: the
// best hits come with the answer (item 3), each with the ref every manual
// tool takes back (item 4) and a line of its prose, not of its version
// history; an exact query warns of nothing (item 6); and the trace is paged
// by a second server process, after the first is gone (item 5).
func TestManualFindAnswersInOneCall(t *testing.T) {
	root := copyManuals(t, "nodejs-en")
	dbPath := filepath.Join(t.TempDir(), "l.db")
	first := serveManuals(t, dbPath, root)

	res, err := first.CallTool(context.Background(), &mcp.CallToolParams{Name: "manual_find", Arguments: map[string]any{"manual_id": "nodejs-en", "query": "Buffer.alloc"}})
	if err != nil || res.IsError {
		t.Fatalf("manual_find: %v %s", err, textOf(res))
	}
	text := textOf(res)
	var sum struct {
		TraceID string `json:"trace_id"`
		Hits    []struct {
			Ref, Title string
		} `json:"hits"`
	}
	remarshalTo(t, res.StructuredContent, &sum)
	if len(sum.Hits) != 5 || !strings.HasPrefix(sum.Hits[0].Ref, "nodejs-en/buffer.md#") || !strings.Contains(text, sum.Hits[0].Ref) {
		t.Fatalf("manual_find's hits: %+v\n%s", sum.Hits, text)
	}
	for _, noise := range []string{"<!--", "changes:", "pr-url:", "source_link", "candidate_cap", "fill_gaps", "resolve_conflicts"} {
		if strings.Contains(text, noise) {
			t.Errorf("manual_find's answer holds %q:\n%s", noise, text)
		}
	}
	// A search stopped at its candidate cap says the count is the cap's.
	capped := callText2(t, first, "manual_find", map[string]any{"manual_id": "nodejs-en", "query": "stream", "budget": map[string]any{"max_candidates": 10}})
	if !strings.Contains(capped, "5 more candidates in") || !strings.Contains(capped, "(the best 10 kept; more sections matched)") {
		t.Errorf("a capped manual_find does not say the cap made its count:\n%s", capped)
	}
	// The ref, as printed, reads the section: in manual_id alone.
	read := callText2(t, first, "manual_read", map[string]any{"manual_id": sum.Hits[0].Ref})
	if !strings.Contains(read, sum.Hits[0].Title) || !strings.Contains(read, sum.Hits[0].Ref) {
		t.Errorf("manual_read of a ref: %.400s", read)
	}
	if toc := callText2(t, first, "manual_toc", map[string]any{"manual_id": sum.Hits[0].Ref}); !strings.Contains(toc, sum.Hits[0].Title) {
		t.Errorf("manual_toc of a ref: %.300s", toc)
	}
	page := func(cs *mcp.ClientSession) any {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "manual_hits", Arguments: map[string]any{"trace_id": sum.TraceID, "limit": 30}})
		if err != nil || res.IsError {
			t.Fatalf("manual_hits: %v %s", err, textOf(res))
		}
		return res.StructuredContent
	}
	want := page(first)
	first.Close()

	second := serveManuals(t, dbPath, root)
	if got := page(second); !reflect.DeepEqual(got, want) {
		t.Errorf("a second server pages the trace otherwise:\n%v\nwant\n%v", got, want)
	}
	// Once a manual it searched has changed, the trace says so.
	if err := os.WriteFile(filepath.Join(root, "nodejs-en", "buffer.md"), []byte("# Buffer\n\nRewritten.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = second.CallTool(context.Background(), &mcp.CallToolParams{Name: "manual_hits", Arguments: map[string]any{"trace_id": sum.TraceID}})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), "changed since") {
		t.Errorf("manual_hits of a changed manual: %v %s", err, textOf(res))
	}
}

// remarshalTo decodes a structured result into out.
func remarshalTo(t *testing.T, v, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestExactTitleFirst: a query that is a section's heading, code and its
// punctuation included, gets that section first from the real binary —
// "--inspect" is the option, not util.inspect (issue 47: exact first).
func TestExactTitleFirst(t *testing.T) {
	root := copyManuals(t, "nodejs-en")
	cs := serveManuals(t, filepath.Join(t.TempDir(), "l.db"), root)
	tests := []struct{ query, first string }{
		{"--inspect", "nodejs-en/cli.md#command-line-api/options/--inspecthostport"},
		{"--inspect-brk", "nodejs-en/cli.md#command-line-api/options/--inspect-brkhostport"},
		{"Buffer.alloc", "nodejs-en/buffer.md#buffer/class-buffer/static-method-bufferallocsize-fill-encoding"},
		{"util.inspect", "nodejs-en/util.md#util/utilinspectobject-options"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "manual_find", Arguments: map[string]any{"manual_id": "nodejs-en", "query": tt.query}})
			if err != nil || res.IsError {
				t.Fatalf("manual_find: %v %s", err, textOf(res))
			}
			var sum struct {
				Hits []struct{ Ref string } `json:"hits"`
			}
			remarshalTo(t, res.StructuredContent, &sum)
			if len(sum.Hits) == 0 || sum.Hits[0].Ref != tt.first {
				t.Errorf("first hit %+v, want %s", sum.Hits, tt.first)
			}
		})
	}
}

// TestSnippetReadsWholeItems: manual_read's snippet brings each matching
// line's paragraph or list item, so the sentence the word starts is read
// to its end, and an item holding more of the terms comes first; lines
// keep their indentation (a nested item is read as nested).
func TestSnippetReadsWholeItems(t *testing.T) {
	root := copyManuals(t, "nodejs-en")
	cs := serveManuals(t, filepath.Join(t.TempDir(), "l.db"), root)
	tests := []struct {
		node, query string
		want        []string
	}{
		{"child-process/asynchronous-process-creation/child_processexeccommand-options-callback", "maxBuffer",
			[]string{"199:   * `maxBuffer`", "200:     stderr. If exceeded, the child process is terminated", "202:     **Default:** `1024 * 1024`."}},
		{"errors/class-systemerror/common-system-errors", "EMFILE",
			[]string{"EMFILE", "has been closed. This is encountered when opening many files at once"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			path := strings.SplitN(tt.node, "/", 2)[0]
			file := map[string]string{"child-process": "child_process.md", "errors": "errors.md"}[path]
			text := callText2(t, cs, "manual_read", map[string]any{"manual_id": "nodejs-en", "path": file, "node_id": tt.node, "scope": "snippet", "query": tt.query})
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("snippet lacks %q:\n%s", w, text)
				}
			}
		})
	}
}
