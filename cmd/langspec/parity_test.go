package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/search"
)

// The front ends are adapters over one call per use case (internal/spec,
// find.Service, through app for the command line): the same request gets
// the same answer and the same error, with the same hint, from the built
// binary's --json, from an MCP tool called over stdio by the go-sdk client,
// and from the management page over HTTP on loopback. Each test below
// asks all three and compares them pair by pair.

// parityWorld is one store served three ways: the command line, a stdio
// MCP server and a team server's page, as separate processes over the
// same database, with the same environment (no PATH: no process finds a
// toolchain the others would not).
type parityWorld struct {
	bin, db, manuals string
	env              []string // beside HOME and MANUALS_ROOT, for every process
	mcp              *mcp.ClientSession
	page             string // the team server's base URL
}

// newParityWorld serves db (seededDB when "") three ways, env added to
// every process's environment.
func newParityWorld(t *testing.T, db string, env ...string) *parityWorld {
	t.Helper()
	if db == "" {
		db = seededDB(t)
	}
	w := &parityWorld{bin: langspecBinary(t), db: db, env: env}
	w.manuals, _ = filepath.Abs(filepath.Join("..", "..", "fixtures", "manuals"))
	// The manuals are indexed before any server starts: the servers' first
	// refresh, running while a command searches, would change the word
	// index's statistics (bm25 counts every manual's rows) under it.
	if code, _, errOut := w.cli(t, "ingest", "manuals"); code != 0 {
		t.Fatalf("ingest manuals: exit %d\n%s", code, errOut)
	}
	stderr := &lockedBuffer{}
	cmd := serveCmd(w.bin, w.db, stderr) // MANUALS_ROOT is the fixture manuals
	cmd.Env = append(cmd.Env, env...)
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "parity", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	t.Cleanup(func() { cs.Close() })
	w.mcp = cs
	w.page = startTeamServerEnv(t, w.db, append([]string{"MANUALS_ROOT=" + w.manuals}, env...)).url
	return w
}

// cli runs the built binary on the world's store.
func (w *parityWorld) cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(w.bin, append([]string{"--db", w.db}, args...)...)
	cmd.Env = append([]string{"HOME=" + filepath.Dir(w.db), "MANUALS_ROOT=" + w.manuals}, w.env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errOut.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errOut.String()
}

// cliJSON runs the binary and decodes its --json answer into v.
func (w *parityWorld) cliJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	code, out, errOut := w.cli(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("langspec %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("langspec %s --json: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// cliError is the error the binary reports for args: its message and
// hint, the two lines a person reads ("langspec: …", "hint: …").
func (w *parityWorld) cliError(t *testing.T, args ...string) shownError {
	t.Helper()
	code, _, errOut := w.cli(t, args...)
	if code == 0 {
		t.Fatalf("langspec %s: no error", strings.Join(args, " "))
	}
	var e shownError
	for _, line := range strings.Split(errOut, "\n") {
		if m, ok := strings.CutPrefix(line, "langspec: "); ok && e.message == "" {
			e.message = m
		}
		if h, ok := strings.CutPrefix(line, "hint: "); ok {
			e.hint = h
		}
	}
	return e
}

// call calls an MCP tool and decodes its structured result into v.
func (w *parityWorld) call(t *testing.T, v any, tool string, args map[string]any) {
	t.Helper()
	res, err := w.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: %s", tool, args, res.Content[0].(*mcp.TextContent).Text)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, b)
	}
}

// callError is the error an MCP tool answers args with.
func (w *parityWorld) callError(t *testing.T, tool string, args map[string]any) shownError {
	t.Helper()
	res, err := w.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if !res.IsError {
		t.Fatalf("%s %v: no error", tool, args)
	}
	return parseShown(res.Content[0].(*mcp.TextContent).Text)
}

// get fetches a page of the management page.
func (w *parityWorld) get(t *testing.T, path string, q url.Values) (status int, body string) {
	t.Helper()
	resp, err := http.Get(w.page + path + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

var pageErrorRE = regexp.MustCompile(`<p class="error" role="alert">([^<]*)</p>`)

// pageError is the error a page shows.
func (w *parityWorld) pageError(t *testing.T, path string, q url.Values) shownError {
	t.Helper()
	_, body := w.get(t, path, q)
	m := pageErrorRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("%s %v shows no error:\n%s", path, q, body)
	}
	return parseShown(html.UnescapeString(m[1]))
}

// shownError is an error as a front end shows it: what went wrong and
// the next step. The command line says the tools' argument names in
// words (humanWords); the others are compared in those words too.
type shownError struct{ message, hint string }

// parseShown reads "code: message; hint: next step" (apperr.Error).
func parseShown(s string) shownError {
	_, s, _ = strings.Cut(s, ": ") // the code: the command line shows it as its exit code
	msg, hint, _ := strings.Cut(s, "; hint: ")
	return shownError{humanWords.Replace(msg), humanWords.Replace(hint)}
}

// sameError checks that every front end showed one error, and that its
// hint says want.
func sameError(t *testing.T, want string, shown map[string]shownError) {
	t.Helper()
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range shown {
			if !yield(k) {
				return
			}
		}
	})
	first := shown[names[0]]
	if first.message == "" || !strings.Contains(first.hint, want) {
		t.Errorf("%s: %+v, want a message and a hint saying %q", names[0], first, want)
	}
	for _, n := range names[1:] {
		if shown[n] != first {
			t.Errorf("%s and %s differ:\n%s: %+v\n%s: %+v", names[0], n, names[0], first, n, shown[n])
		}
	}
}

// pageHit is a search hit as the page lists it.
type pageHit struct{ SectionID, URL, Matched string }

var pageHitRE = regexp.MustCompile(`(?s)<li class="hit">\s*<a href="/ui/section\?[^"]*id=([^"&]+)">.*?(?:found by ([^<]*))?</span>.*?cite: <a href="([^"]+)"`)

func pageHits(body string) []pageHit {
	var hits []pageHit
	for _, m := range pageHitRE.FindAllStringSubmatch(body, -1) {
		id, _ := url.QueryUnescape(html.UnescapeString(m[1]))
		hits = append(hits, pageHit{SectionID: id, URL: html.UnescapeString(m[3]), Matched: html.UnescapeString(m[2])})
	}
	return hits
}

// sameSearch checks that a search for query is answered alike by the three:
// the same sections in the same order, with the same urls, channels and
// snippets. One window of 140 characters is search_spec's default, asked
// of the command line; the page marks its snippets in HTML, so from it
// the ranking and the channels are compared.
func sameSearch(t *testing.T, w *parityWorld, query string) []search.Citation {
	t.Helper()
	var cli []search.Citation
	w.cliJSON(t, &cli, "search", query, "--snippets", "1", "--snippet-chars", "140")
	var tool struct {
		Results []struct {
			SectionID string   `json:"section_id"`
			URL       string   `json:"url"`
			Snippet   string   `json:"snippet"`
			Matched   []string `json:"matched"`
		} `json:"results"`
	}
	w.call(t, &tool, "search_spec", map[string]any{"query": query, "verbose": true})
	_, body := w.get(t, "/ui/search", url.Values{"q": {query}})
	page := pageHits(body)
	if len(cli) < 3 || len(tool.Results) != len(cli) || len(page) != len(cli) {
		t.Fatalf("hits: command line %d, tool %d, page %d", len(cli), len(tool.Results), len(page))
	}
	for i, c := range cli {
		r, p := tool.Results[i], page[i]
		matched := strings.Join(c.Matched, ", ")
		if r.SectionID != c.SectionID || r.URL != c.URL || strings.Join(r.Matched, ", ") != matched || r.Snippet != c.Snippet {
			t.Errorf("hit %d: command line %s %s (%s) %q\ntool %s %s (%s) %q", i+1, c.SectionID, c.URL, matched, c.Snippet,
				r.SectionID, r.URL, strings.Join(r.Matched, ", "), r.Snippet)
		}
		if p.SectionID != c.SectionID || p.URL != c.URL || p.Matched != matched {
			t.Errorf("hit %d: command line %s %s (%s), page %s %s (%s)", i+1, c.SectionID, c.URL, matched, p.SectionID, p.URL, p.Matched)
		}
	}
	return cli
}

func TestParity(t *testing.T) {
	w := newParityWorld(t, "")

	t.Run("search", func(t *testing.T) { sameSearch(t, w, "slice expressions") })

	t.Run("section", func(t *testing.T) {
		var cli, tool search.SectionResult
		w.cliJSON(t, &cli, "section", "Slice_expressions", "--lang", "go")
		w.call(t, &tool, "get_section", map[string]any{"language": "go", "section_id": "Slice_expressions"})
		if !reflect.DeepEqual(cli.Citation, tool.Citation) || cli.Text != tool.Text || !slices.Equal(cli.Children, tool.Children) || cli.Text == "" {
			t.Errorf("command line %+v\ntool %+v", cli, tool)
		}
		status, body := w.get(t, "/ui/section", url.Values{"lang": {"go"}, "id": {"Slice_expressions"}})
		if status != http.StatusOK || !strings.Contains(body, "<h2>"+html.EscapeString(cli.Citation.Title)+"</h2>") ||
			!strings.Contains(body, `Cite: <a href="`+cli.Citation.URL+`"`) {
			t.Errorf("the page's section (%d) does not cite %s %s:\n%s", status, cli.Citation.Title, cli.Citation.URL, body)
		}
		for _, ch := range cli.Children {
			if !strings.Contains(body, "id="+ch.SectionID+`">`+html.EscapeString(ch.Title)+"<") {
				t.Errorf("the page's section lacks the subsection %s", ch.SectionID)
			}
		}
	})

	t.Run("unknown section", func(t *testing.T) {
		sameError(t, "nearest ids: Slice_expressions", map[string]shownError{
			"command line": w.cliError(t, "section", "Slice_expresion", "--lang", "go"),
			"tool":         w.callError(t, "get_section", map[string]any{"language": "go", "section_id": "Slice_expresion"}),
			"page":         w.pageError(t, "/ui/section", url.Values{"lang": {"go"}, "id": {"Slice_expresion"}}),
		})
	})

	// A misspelt language langspec has a source for: the command line
	// said "did you mean rust", and the tools and the page did not.
	t.Run("unknown language in a search", func(t *testing.T) {
		sameError(t, "did you mean rust?", map[string]shownError{
			"command line": w.cliError(t, "search", "integer overflow", "--lang", "rsut"),
			"tool":         w.callError(t, "search_spec", map[string]any{"query": "integer overflow", "language": "rsut"}),
			"page":         w.pageError(t, "/ui/search", url.Values{"q": {"integer overflow"}, "lang": {"rsut"}}),
		})
	})

	t.Run("unknown language in a section", func(t *testing.T) {
		sameError(t, "did you mean rust?", map[string]shownError{
			"command line": w.cliError(t, "section", "Overflow", "--lang", "rsut"),
			"tool":         w.callError(t, "get_section", map[string]any{"language": "rsut", "section_id": "Overflow"}),
			"page":         w.pageError(t, "/ui/section", url.Values{"lang": {"rsut"}, "id": {"Overflow"}}),
		})
	})

	// A language langspec knows and has not stored: the hint names the
	// ingest that adds it, alike everywhere (the tools passed no sources
	// and no toolchains, and so said less).
	t.Run("language not stored", func(t *testing.T) {
		sameError(t, "run langspec ingest rust", map[string]shownError{
			"command line": w.cliError(t, "search", "integer overflow", "--lang", "rust"),
			"tool":         w.callError(t, "search_spec", map[string]any{"query": "integer overflow", "language": "rust"}),
			"page":         w.pageError(t, "/ui/search", url.Values{"q": {"integer overflow"}, "lang": {"rust"}}),
		})
	})

	t.Run("manual find", func(t *testing.T) {
		var cli struct {
			Summary find.Summary  `json:"summary"`
			Hits    find.HitsPage `json:"hits"`
		}
		w.cliJSON(t, &cli, "manual", "find", "replication lag", "--limit", "5")
		var tool find.Summary
		w.call(t, &tool, "manual_find", map[string]any{"query": "replication lag"})
		var page find.HitsPage
		w.call(t, &page, "manual_hits", map[string]any{"trace_id": tool.TraceID, "limit": 5})
		refs := func(cs []find.Candidate) []string {
			var out []string
			for _, c := range cs {
				out = append(out, c.Ref)
			}
			return out
		}
		if cli.Summary.Candidates == 0 || cli.Summary.Candidates != tool.Candidates || cli.Summary.Files != tool.Files ||
			!slices.Equal(cli.Summary.Terms, tool.Terms) || !slices.Equal(refs(cli.Summary.Hits), refs(tool.Hits)) {
			t.Errorf("summary: command line %d candidates in %d files %v %v\ntool %d in %d %v %v", cli.Summary.Candidates, cli.Summary.Files,
				cli.Summary.Terms, refs(cli.Summary.Hits), tool.Candidates, tool.Files, tool.Terms, refs(tool.Hits))
		}
		if got, want := refs(page.Candidates), refs(cli.Hits.Candidates); len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("first page: command line %v, manual_hits %v", want, got)
		}
	})

	// The page's manual search is manual_find and manual_hits' first page,
	// as the command line's: the same candidates in the same order, each
	// read through the ref it lists.
	for _, q := range []struct{ query, manual string }{
		{"replication lag", ""},
		{"EADDRINUSE", ""},
		{"地震 保険金", "kasai-hoken"},
		{"backpressure", "nodejs-en"},
	} {
		t.Run("manual find on the page: "+q.query, func(t *testing.T) { sameManualFind(t, w, q.query, q.manual) })
	}

	t.Run("manual find in an unknown manual", func(t *testing.T) {
		sameError(t, "manual ids: ", map[string]shownError{
			"command line": w.cliError(t, "manual", "find", "replication lag", "--manual", "ops-em"),
			"tool":         w.callError(t, "manual_find", map[string]any{"query": "replication lag", "manual_id": "ops-em"}),
			"page":         w.pageError(t, "/ui/manuals/search", url.Values{"q": {"replication lag"}, "manual": {"ops-em"}}),
		})
	})

	t.Run("manual read of an unknown section", func(t *testing.T) {
		sameError(t, "", map[string]shownError{
			"command line": w.cliError(t, "manual", "read", "ops-en", "runbooks/db/failover.md", "--node", "database-failovr"),
			"tool":         w.callError(t, "manual_read", map[string]any{"manual_id": "ops-en/runbooks/db/failover.md#database-failovr"}),
			"page":         w.pageError(t, "/ui/manuals/read", url.Values{"ref": {"ops-en/runbooks/db/failover.md#database-failovr"}}),
		})
	})

	t.Run("manual read out of the manuals folder", func(t *testing.T) {
		sameError(t, "relative to the manual's folder", map[string]shownError{
			"command line": w.cliError(t, "manual", "read", "ops-en", "../../etc/passwd"),
			"tool":         w.callError(t, "manual_read", map[string]any{"manual_id": "ops-en/../../etc/passwd"}),
			"page":         w.pageError(t, "/ui/manuals/read", url.Values{"ref": {"ops-en/../../etc/passwd"}}),
		})
	})

	t.Run("manual read", func(t *testing.T) {
		var cli, tool find.ReadResult
		w.cliJSON(t, &cli, "manual", "read", "ops-en", "runbooks/db/failover.md", "--node", "database-failover", "--query", "lag")
		w.call(t, &tool, "manual_read", map[string]any{"manual_id": "ops-en", "path": "runbooks/db/failover.md", "node_id": "database-failover", "query": "lag"})
		cj, _ := json.Marshal(cli)
		tj, _ := json.Marshal(tool)
		if string(cj) != string(tj) || cli.Scope != find.ScopeSnippet {
			t.Errorf("command line %s\ntool %s", cj, tj)
		}
	})
}

var pageManualHitRE = regexp.MustCompile(`<li class="hit" data-ref="([^"]+)">`)

// sameManualFind checks that the page's manual search lists what
// `langspec manual find --json` pages (its default ten), in its order, and
// that the page reads the first hit as manual_read does.
func sameManualFind(t *testing.T, w *parityWorld, query, manualID string) {
	t.Helper()
	var cli struct {
		Summary find.Summary  `json:"summary"`
		Hits    find.HitsPage `json:"hits"`
	}
	args := []string{"manual", "find", query}
	if manualID != "" {
		args = append(args, "--manual", manualID)
	}
	w.cliJSON(t, &cli, args...)
	status, body := w.get(t, "/ui/manuals/search", url.Values{"q": {query}, "manual": {manualID}})
	var page, want []string
	for _, m := range pageManualHitRE.FindAllStringSubmatch(body, -1) {
		page = append(page, html.UnescapeString(m[1]))
	}
	for _, c := range cli.Hits.Candidates {
		want = append(want, c.Ref)
	}
	if status != http.StatusOK || len(want) == 0 || !slices.Equal(page, want) {
		t.Fatalf("%q: command line %v\npage (%d) %v", query, want, status, page)
	}
	if !strings.Contains(body, fmt.Sprintf("%d sections in %d files", cli.Summary.Candidates, cli.Summary.Files)) {
		t.Errorf("%q: the page does not say the command line's %d candidates in %d files", query, cli.Summary.Candidates, cli.Summary.Files)
	}
	first := cli.Hits.Candidates[0]
	var tool find.ReadResult
	w.call(t, &tool, "manual_read", map[string]any{"manual_id": first.Ref})
	status, read := w.get(t, "/ui/manuals/read", url.Values{"ref": {first.Ref}})
	if status != http.StatusOK || len(tool.Parts) != 1 || !strings.Contains(read, "<h2>"+html.EscapeString(tool.Parts[0].Title)+"</h2>") ||
		!strings.Contains(read, fmt.Sprintf("lines %d–%d", tool.Parts[0].LineStart, tool.Parts[0].LineEnd)) {
		t.Errorf("%q: the page's read of %s (%d) is not manual_read's %+v", query, first.Ref, status, tool.Parts)
	}
}

// With an embeddings endpoint configured, every front end searches with
// the semantic channel: the page's search used to leave it out.
func TestParitySemantic(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		data := []map[string]any{}
		for i, text := range req.Input {
			// A vector from the text's length: the same text, the same
			// vector, whichever process asks.
			data = append(data, map[string]any{"index": i, "embedding": []float32{1, float32(len(text) % 7), float32(len(text) % 5)}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "langspec.json")
	b, _ := json.Marshal(map[string]any{"embeddings": map[string]any{"url": srv.URL, "model": "fake", "api_key": "${EMBED_KEY}", "dimensions": 3}})
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"LANGSPEC_CONFIG=" + cfg, "EMBED_KEY=k"}
	db := filepath.Join(dir, "langspec.db")
	if code, out, errOut := run(t, map[string]string{"HOME": dir, "LANGSPEC_CONFIG": cfg, "EMBED_KEY": "k"}, "--db", db, "ingest", "go", "--from", "embedded"); code != 0 ||
		!strings.Contains(out, "sections embedded") {
		t.Fatalf("ingest with embeddings: %d\n%s%s", code, out, errOut)
	}
	w := newParityWorld(t, db, env...)
	hits := sameSearch(t, w, "how do I cut part of an array")
	if !slices.ContainsFunc(hits, func(c search.Citation) bool { return slices.Contains(c.Matched, "semantic") }) {
		t.Errorf("no hit was found by the semantic channel: %+v", hits)
	}
}

// A token reaches the manual pages when /mcp serves it the manual tools
// they call (manual_find for the list and the search, manual_read for a
// section), and a server that serves no manual tools (--toolsets spec)
// has no manual pages: the page and /mcp follow one mask.
func TestParityManualPagesFollowTheTools(t *testing.T) {
	dbPath := seededDB(t)
	admin := makeToken(t, dbPath, "ops", "--admin")
	specs := makeToken(t, dbPath, "specs", "--tools", "search_spec,get_section")
	finder := makeToken(t, dbPath, "finder", "--tools", "manual_find,manual_hits")
	reader := makeToken(t, dbPath, "reader", "--tools", "manual_find,manual_read")
	manuals, _ := filepath.Abs(filepath.Join("..", "..", "fixtures", "manuals"))
	env := []string{"MANUALS_ROOT=" + manuals}
	s := startTeamServerEnv(t, dbPath, env)
	search := "/ui/manuals/search?q=" + url.QueryEscape("replication lag")
	read := "/ui/manuals/read?ref=" + url.QueryEscape("ops-en/runbooks/db/failover.md#database-failover")
	for _, tc := range []struct {
		who, token string
	}{{"admin", admin}, {"search_spec,get_section", specs}, {"manual_find,manual_hits", finder}, {"manual_find,manual_read", reader}} {
		cs, err := s.connect(t, tc.token)
		if err != nil {
			t.Fatal(err)
		}
		tools := toolNames(t, cs)
		cs.Close()
		for _, p := range []struct{ path, tool string }{{"/ui/manuals", "manual_find"}, {search, "manual_find"}, {read, "manual_read"}} {
			want := http.StatusForbidden
			if slices.Contains(tools, p.tool) {
				want = http.StatusOK
			}
			if got := pageGet(t, s, p.path, "Bearer", tc.token); got != want {
				t.Errorf("%s on %s: %d, want %d (its MCP tools: %v)", tc.who, p.path, got, want, tools)
			}
		}
	}
	specOnly := startTeamServerEnv(t, dbPath, env, "--toolsets", "spec")
	for _, path := range []string{"/ui/manuals", search, read} {
		if got := pageGet(t, specOnly, path, "Bearer", admin); got != http.StatusNotFound {
			t.Errorf("--toolsets spec, %s: %d, want 404", path, got)
		}
	}
}
