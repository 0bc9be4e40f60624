// Package toolstest has what tests of the tools and of the servers share:
// real parts over temporary folders (a store seeded with the Go
// specification, a vault, the fixture manuals and a finder over them) and a
// client session's calls. Only tests import it.
package toolstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/vault"
)

// Now is the fixed clock of the stored fixtures.
var Now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// repoRoot is the repository's root, found from this file, so tests in any
// package reach fixtures/ the same way.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// OpenDB opens a store in a temporary folder with the embedded Go
// specification loaded.
func OpenDB(tb testing.TB) *db.DB {
	tb.Helper()
	ctx := context.Background()
	store, err := db.Open(ctx, filepath.Join(tb.TempDir(), "langspec.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	if _, err := ingest.EnsureDefault(ctx, store, Now); err != nil {
		tb.Fatal(err)
	}
	return store
}

// OlderGoSpec writes, into dir, the real Go specification langspec embeds
// (go1.26) made into an older version with four known differences from it,
// and returns its path. The copy states its own version, go1.25, as a real
// older spec does, so it is stored as that. From go1.25 to go1.26 a diff
// must find exactly: Blocks changed (one sentence), Empty_statements
// added, Old_rule removed, and "Sets of methods" (Sets_of_methods) renamed
// to "Method sets" (Method_sets).
func OlderGoSpec(tb testing.TB, dir string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "fixtures", "gospec", "go_spec.html"))
	if err != nil {
		tb.Fatal(err)
	}
	s := string(b)
	for _, e := range []struct{ old, new string }{
		{`"Subtitle": "Language version go1.26 (Jan 12, 2026)"`, `"Subtitle": "Language version go1.25 (Aug 12, 2025)"`},
		{"In addition to explicit blocks in the source code, there are implicit blocks:", "Besides the explicit blocks in the source code, there are implicit blocks:"},
		{"<h3 id=\"Empty_statements\">Empty statements</h3>\n\n<p>\nThe empty statement does nothing.\n</p>\n\n<pre class=\"ebnf\">\nEmptyStmt = .\n</pre>\n",
			"<h3 id=\"Old_rule\">An old rule</h3>\n\n<p>\nThis rule of the older language was dropped from the newer one, and nothing took its place in the specification.\n</p>\n"},
		{`<h3 id="Method_sets">Method sets</h3>`, `<h3 id="Sets_of_methods">Sets of methods</h3>`},
	} {
		if n := strings.Count(s, e.old); n != 1 {
			tb.Fatalf("the Go spec fixture holds %q %d times, want once: the fixture changed, update the edits", e.old, n)
		}
		s = strings.Replace(s, e.old, e.new, 1)
	}
	p := filepath.Join(dir, "go_spec_go1.25.html")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// Chromium finds a Chromium or Chrome for a browser test to drive; the
// test skips without one, saying what to install (.ci/run installs
// Debian's chromium).
func Chromium(tb testing.TB) string {
	tb.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	tb.Skip("no Chromium: skipping a browser test (install Debian's chromium)")
	return ""
}

// OpenVault opens a vault in a fresh folder.
func OpenVault(tb testing.TB) *vault.Vault {
	tb.Helper()
	v, err := vault.Open(filepath.Join(tb.TempDir(), "vault"), vault.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { v.Close() })
	return v
}

// OpenManuals opens the repository's fixture manuals, read-only.
func OpenManuals(tb testing.TB) *manual.Library {
	tb.Helper()
	lib, err := manual.Open(filepath.Join(repoRoot(), "fixtures", "manuals"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { lib.Close() })
	return lib
}

// Finder is manual_find over lib, indexed into store, with no synonyms and
// fixed thresholds.
func Finder(store *db.DB, lib *manual.Library) *find.Finder {
	return &find.Finder{Index: find.NewIndex(store, lib, nil)}
}

// Connect connects a client to s over the SDK's in-memory transport; the
// session closes when the test ends. Every structured result the client
// receives is checked against the output schema the tool lists: the server
// does not validate its results on each call (internal/tools), so the tests
// do, and a result that breaks its schema fails the call.
//
// A tool's listing shows only the top level of its output schema
// (internal/tools listedOutput); full holds the complete schemas by tool
// name (tools.OutputSchemas), and a result is checked against its tool's
// complete schema when full has one, else against the listed one.
func Connect(tb testing.TB, s *mcp.Server, full ...map[string]*jsonschema.Schema) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	outputs := &outputSchemas{}
	for _, m := range full {
		for name, schema := range m {
			if outputs.full == nil {
				outputs.full = map[string]*jsonschema.Schema{}
			}
			outputs.full[name] = schema
		}
	}
	client.AddSendingMiddleware(outputs.check)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	if err := outputs.load(ctx, cs); err != nil {
		tb.Fatal(err)
	}
	return cs
}

// outputSchemas are the resolved output schemas of a server's tools, by
// name, read once after connecting.
type outputSchemas struct {
	full   map[string]*jsonschema.Schema // complete schemas, preferred to the listed ones
	mu     sync.Mutex
	byName map[string]*jsonschema.Resolved
}

func (o *outputSchemas) load(ctx context.Context, cs *mcp.ClientSession) error {
	byName := map[string]*jsonschema.Resolved{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		if t.OutputSchema == nil {
			continue
		}
		schema := o.full[t.Name]
		if schema == nil {
			schema = new(jsonschema.Schema)
			b, err := json.Marshal(t.OutputSchema)
			if err == nil {
				err = json.Unmarshal(b, schema)
			}
			if err != nil {
				return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
			}
		}
		r, err := schema.Resolve(nil)
		if err != nil {
			return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
		}
		byName[t.Name] = r
	}
	o.mu.Lock()
	o.byName = byName
	o.mu.Unlock()
	return nil
}

// check is a client middleware: a tools/call result with structured
// content must match the tool's output schema.
func (o *outputSchemas) check(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		call, isCall := req.GetParams().(*mcp.CallToolParams)
		r, isResult := res.(*mcp.CallToolResult)
		if err != nil || !isCall || !isResult || r.IsError || r.StructuredContent == nil {
			return res, err
		}
		o.mu.Lock()
		schema := o.byName[call.Name]
		o.mu.Unlock()
		if schema == nil {
			return res, nil
		}
		v := r.StructuredContent
		if err := schema.Validate(&v); err != nil {
			return nil, fmt.Errorf("tool %s: result does not match its output schema: %w", call.Name, err)
		}
		return res, nil
	}
}

// Call calls a tool and fails the test on a protocol error.
func Call(tb testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		tb.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// Text is a result's text content, parts joined by newlines.
func Text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Remarshal converts from into to through JSON.
func Remarshal(tb testing.TB, from, to any) {
	tb.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, to); err != nil {
		tb.Fatal(err)
	}
}

// SyncBuffer is a bytes.Buffer a server's logger and a test can share.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
