package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/fixtures"
	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/catalog/upstream"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/mcpserver/middleware"
	"github.com/langspec/langspec/internal/plan"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/tools/toolsnaps"
	"github.com/langspec/langspec/internal/tools/toolstest"
	"github.com/langspec/langspec/internal/vault"
)

var testNow = toolstest.Now

// mustOpenDB opens a fresh store holding the embedded Go specification.
func mustOpenDB(tb testing.TB) *db.DB { return toolstest.OpenDB(tb) }

// addExcerptDoc stores the Go specification a second time as language
// "golicensed", with the excerpt_only policy, so the licence rules can be
// tested on real text.
func addExcerptDoc(tb testing.TB, store *db.DB) {
	tb.Helper()
	src, err := fixtures.GoSpec.ReadFile(fixtures.GoSpecPath)
	if err != nil {
		tb.Fatal(err)
	}
	parsed, err := ingest.ParseGoSpec(src)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range parsed.Sections {
		parsed.Sections[i].SourcePolicy = db.ExcerptOnly
	}
	_, err = store.Publish(context.Background(), db.Snapshot{Language: "golicensed", Doc: "spec", DisplayName: "Go spec, excerpt only",
		Version: "v1", SourceURL: "test", FetchedAt: testNow, ContentHash: "excerpt"}, parsed.Sections)
	if err != nil {
		tb.Fatal(err)
	}
}

// connect serves store over the SDK's in-memory transport and returns a
// connected client session and the server's log.
func connect(tb testing.TB, store *db.DB) (*mcp.ClientSession, *syncBuffer) {
	return connectDeps(tb, Deps{Store: store})
}

// connectDeps is connect with the server's dependencies given whole (a vault,
// say); Logger and Version are filled in.
func connectDeps(tb testing.TB, d Deps) (*mcp.ClientSession, *syncBuffer) {
	tb.Helper()
	logs := &syncBuffer{}
	d.Logger = slog.New(slog.NewTextHandler(logs, nil))
	if d.Manuals != nil && d.Finder == nil {
		d.Finder = toolstest.Finder(d.Store, d.Manuals)
	}
	langs, err := search.LanguageIDs(context.Background(), d.Store)
	if err != nil {
		tb.Fatal(err)
	}
	d.Languages = langs
	return toolstest.Connect(tb, newServer(&d), OutputSchemas()), logs
}

// newServer is the flat server over d, as package mcpserver builds it: every
// available tool, with the middleware.
func newServer(d *Deps) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "langspec", Version: "test"}, nil)
	schemas := Register(s, d, Available(d))
	s.AddReceivingMiddleware(middleware.LogCalls(d.Logger), middleware.ExplainArgs(schemas))
	return s
}

// mustOpenVault opens a vault in a fresh folder.
func mustOpenVault(tb testing.TB) *vault.Vault { return toolstest.OpenVault(tb) }

type syncBuffer = toolstest.SyncBuffer

func call(tb testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	tb.Helper()
	return toolstest.Call(tb, cs, name, args)
}

func text(res *mcp.CallToolResult) string { return toolstest.Text(res) }

// decode reads a successful result's structured content into out.
func decode(tb testing.TB, res *mcp.CallToolResult, out any) {
	tb.Helper()
	if res.IsError {
		tb.Fatalf("unexpected error result: %s", text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		tb.Fatalf("structured content %s: %v", b, err)
	}
}

// Every tool declares what a client needs to call it safely, and every field
// of its input and output says what it is for.
func TestToolDefinitions(t *testing.T) {
	store := mustOpenDB(t)
	lib := mustOpenManuals(t)
	deps := Deps{Store: store, Vault: mustOpenVault(t), Manuals: lib, Finder: toolstest.Finder(store, lib)}
	cs, _ := connectDeps(t, deps)
	listed := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed[tool.Name] = tool
	}
	all := Available(&deps)
	if len(listed) != len(all) {
		t.Errorf("listed %d tools, Available has %d", len(listed), len(all))
	}
	// Tools that change something: the vault writes. Everything else reads.
	writers := map[string]bool{"vault_create": true, "vault_write": true, "vault_replace": true,
		"bridge_copy_section": true, "bridge_copy_file": true}
	destructive := map[string]bool{"vault_write": true, "vault_replace": true}
	for _, tool := range all {
		t.Run(tool.Def.Name, func(t *testing.T) {
			got := listed[tool.Def.Name]
			if got == nil {
				t.Fatal("not listed")
			}
			a := got.Annotations
			name := tool.Def.Name
			// The listing says each fact once: the title at the top, not again
			// in the annotations; no destructiveHint for a tool that only
			// reads, where MCP gives it no meaning.
			switch {
			case got.Title == "" || a == nil:
				t.Error("no title or annotations")
			case a.Title != "":
				t.Errorf("annotations repeat the title %q", a.Title)
			case a.ReadOnlyHint == writers[name]:
				t.Errorf("readOnlyHint %v", a.ReadOnlyHint)
			case !writers[name] && !a.IdempotentHint:
				t.Error("read-only tools are idempotent")
			case a.OpenWorldHint == nil || *a.OpenWorldHint:
				t.Error("openWorldHint must be false: the tools touch only the local store and vault")
			case writers[name] && (a.DestructiveHint == nil || *a.DestructiveHint != destructive[name]):
				t.Errorf("destructiveHint must be %v", destructive[name])
			case !writers[name] && a.DestructiveHint != nil:
				t.Error("a read-only tool lists a destructiveHint")
			}
			wantCategory := CategorySpec
			switch {
			case strings.HasPrefix(name, "vault_"), name == "artifact_audit":
				wantCategory = CategoryVault
			case strings.HasPrefix(name, "bridge_"):
				wantCategory = CategoryBridge
			case strings.HasPrefix(name, "manual_"):
				wantCategory = CategoryManual
			}
			if tool.Category != wantCategory {
				t.Errorf("category %q, want %q", tool.Category, wantCategory)
			}
			if names := slices.Contains([]string{"search_spec", "compare", "get_section"}, name); strings.Contains(got.Description, "Languages stored: go.") != names {
				t.Errorf("description lists the stored languages: %v, want %v: %q", !names, names, got.Description)
			}
			// Every argument is described where the model reads it, in the
			// listing; every result field in the complete output schema,
			// which the README's tables and the tests take (the listing
			// types the top-level fields only).
			for _, sch := range []struct {
				name   string
				schema any
			}{{"input", got.InputSchema}, {"output", tool.out}} {
				var s jsonschema.Schema
				remarshal(t, sch.schema, &s)
				for _, path := range undescribed(&s, sch.name) {
					t.Errorf("%s has no description", path)
				}
			}
			snapshot(t, got)
		})
	}
}

// The inventory is the static table every listing comes from: each family
// appears with its tools, each tool knows what it needs, and what is
// available follows the dependencies given.
func TestInventory(t *testing.T) {
	perFamily := map[string]int{}
	names := map[string]bool{}
	for _, tool := range Inventory() {
		perFamily[tool.Category]++
		if names[tool.Def.Name] {
			t.Errorf("tool %s listed twice", tool.Def.Name)
		}
		names[tool.Def.Name] = true
		if tool.needs == nil || tool.register == nil {
			t.Errorf("tool %s is not bindable", tool.Def.Name)
		}
	}
	want := map[string]int{CategorySpec: 7, CategoryManual: 7, CategoryVault: 10, CategoryBridge: 2, CategoryMetaTools: 3}
	if !maps.Equal(perFamily, want) {
		t.Errorf("tools per family %v, want %v", perFamily, want)
	}
	store := mustOpenDB(t)
	lib := mustOpenManuals(t)
	for _, tt := range []struct {
		name string
		deps Deps
		want int
	}{
		{"store only", Deps{Store: store}, 7},
		{"store and vault", Deps{Store: store, Vault: mustOpenVault(t)}, 17},
		{"manuals without a finder", Deps{Store: store, Manuals: lib}, 7},
		{"everything", Deps{Store: store, Vault: mustOpenVault(t), Manuals: lib, Finder: toolstest.Finder(store, lib)}, 26},
	} {
		if got := len(Available(&tt.deps)); got != tt.want {
			t.Errorf("%s: %d tools available, want %d", tt.name, got, tt.want)
		}
	}
}

// TestMetaToolSnapshots snapshots the three tools a client sees in
// categories mode, as listed, over langspec's own four categories (an
// upstream's state would change get-category-tools' description), and
// checks their annotations as TestToolDefinitions does for the others.
func TestMetaToolSnapshots(t *testing.T) {
	store, lib := mustOpenDB(t), mustOpenManuals(t)
	d := Deps{Store: store, Vault: mustOpenVault(t), Manuals: lib, Finder: toolstest.Finder(store, lib)}
	mgr := upstream.NewManager(upstream.Options{})
	t.Cleanup(func() { mgr.Close() })
	d.Catalog = &catalog.Catalog{Categories: BuiltinCategories(Available(&d)), Upstreams: mgr}
	s := mcp.NewServer(&mcp.Implementation{Name: "langspec", Version: "test"}, nil)
	Register(s, &d, Meta())
	cs := toolstest.Connect(t, s, OutputSchemas())
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		a := tool.Annotations
		if tool.Title == "" || a == nil || a.OpenWorldHint == nil || a.ReadOnlyHint == (a.DestructiveHint != nil) {
			t.Errorf("%s: a title, openWorldHint and, unless it only reads, destructiveHint must be set: %+v", tool.Name, a)
		}
		snapshot(t, tool)
	}
	slices.Sort(names)
	if want := []string{Batch, CallCategoryTool, GetCategoryTools}; !slices.Equal(names, want) {
		t.Errorf("listed %v, want %v", names, want)
	}
}

// undescribed lists the properties, at any depth, without a description.
func undescribed(s *jsonschema.Schema, path string) []string {
	var out []string
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.Properties {
			if !yield(k) {
				return
			}
		}
	}) {
		p := s.Properties[name]
		if p.Description == "" {
			out = append(out, path+"."+name)
		}
		out = append(out, undescribed(p, path+"."+name)...)
	}
	if s.Items != nil {
		out = append(out, undescribed(s.Items, path+"[]")...)
	}
	return out
}

// snapshot compares the tool as listed with testdata/toolsnaps/NAME.json, so
// a change to a tool's contract shows in review.
func snapshot(t *testing.T, tool *mcp.Tool) {
	t.Helper()
	toolsnaps.Check(t, filepath.Join("testdata", "toolsnaps"), tool.Name, tool)
}

func remarshal(tb testing.TB, from, to any) {
	tb.Helper()
	toolstest.Remarshal(tb, from, to)
}

func TestListLanguagesAndVersions(t *testing.T) {
	store := mustOpenDB(t)
	addExcerptDoc(t, store)
	cs, _ := connect(t, store)

	var langs ListLanguagesOut
	res := call(t, cs, "list_languages", map[string]any{})
	decode(t, res, &langs)
	var ids []string
	for _, l := range langs.Languages {
		ids = append(ids, l.Language)
	}
	if !slices.Equal(ids, []string{"go", "golicensed"}) {
		t.Fatalf("languages %v", ids)
	}
	goDoc := langs.Languages[0].Docs[0]
	if goDoc.Doc != "spec" || goDoc.LatestVersion != "go1.26" || goDoc.SectionCount != 165 || goDoc.Versions != 1 {
		t.Errorf("go doc %+v", goDoc)
	}
	if !strings.Contains(text(res), "go/spec — The Go Programming Language Specification: latest go1.26, 165 sections") {
		t.Errorf("text:\n%s", text(res))
	}
	// A server a client started without the user's environment reads the
	// default database: the answer names the file and the way out.
	if langs.Database != store.Path() || !strings.Contains(langs.Hint, "langspec ingest LANG (rust, java, ecmascript, python, typescript)") ||
		!strings.Contains(langs.Hint, "--db PATH or LANGSPEC_DB") {
		t.Errorf("database %q, hint %q", langs.Database, langs.Hint)
	}
	for _, want := range []string{"Database: " + store.Path(), "Hint: add a language with langspec ingest LANG"} {
		if !strings.Contains(text(res), want) {
			t.Errorf("text lacks %q:\n%s", want, text(res))
		}
	}

	var vs ListVersionsOut
	res = call(t, cs, "list_versions", map[string]any{"language": "go"})
	decode(t, res, &vs)
	if len(vs.Versions) != 1 || vs.Versions[0].Version != "go1.26" || !vs.Versions[0].Default ||
		vs.Versions[0].SourceURL != "embedded:gospec/go_spec.html" || !vs.Versions[0].FetchedAt.Equal(testNow) {
		t.Errorf("versions %+v", vs.Versions)
	}
	if !strings.Contains(text(res), "go/spec go1.26 (default): 165 sections, fetched 2026-11-22T09:00:00Z") {
		t.Errorf("text:\n%s", text(res))
	}
}

func TestSearchSpec(t *testing.T) {
	store := mustOpenDB(t)
	addExcerptDoc(t, store)
	cs, _ := connect(t, store)
	tests := []struct {
		name      string
		args      map[string]any
		wantFirst string   // section_id of the first hit
		wantLangs []string // languages among the hits, sorted
		matched   string   // a channel the first hit must name
		count     int      // exact number of hits, when not 0
	}{
		{name: "default limit, one language", args: map[string]any{"query": "slice expressions", "language": "go"},
			wantFirst: "Slice_expressions", wantLangs: []string{"go"}, matched: "title"},
		{name: "every language when none is named", args: map[string]any{"query": "slice expressions", "limit": 4},
			wantLangs: []string{"go", "golicensed"}, matched: "words", count: 4},
		{name: "limit", args: map[string]any{"query": "type", "language": "go", "limit": 3}, wantLangs: []string{"go"}, count: 3},
		{name: "path prefix", args: map[string]any{"query": "range", "language": "go", "section_path_prefix": "Statements"},
			wantLangs: []string{"go"}},
		{name: "symbolic query", args: map[string]any{"query": "x.(T)", "language": "go", "limit": 1},
			wantFirst: "Type_assertions", matched: "symbol", count: 1},
		{name: "also", args: map[string]any{"query": "shut a chan", "also": []string{"close channel"}, "language": "go", "limit": 3},
			matched: "words"},
		{name: "version named", args: map[string]any{"query": "goroutine", "language": "go", "version": "go1.26", "limit": 1},
			wantFirst: "Go_statements", count: 1},
		{name: "no match is a result, not an error", args: map[string]any{"query": "zzqqxx", "language": "go"}, count: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "search_spec", tt.args)
			var out SearchSpecOut
			decode(t, res, &out)
			switch {
			case tt.count == -1 && len(out.Results) != 0:
				t.Fatalf("want no hits, got %d", len(out.Results))
			case tt.count == -1:
				if !strings.Contains(text(res), `No sections match "zzqqxx"`) {
					t.Errorf("text: %s", text(res))
				}
				return
			case len(out.Results) == 0:
				t.Fatal("no hits")
			case tt.count > 0 && len(out.Results) != tt.count:
				t.Errorf("%d hits, want %d", len(out.Results), tt.count)
			case len(out.Results) > search.DefaultLimit:
				t.Errorf("%d hits over the default limit", len(out.Results))
			}
			if tt.wantFirst != "" && out.Results[0].SectionID != tt.wantFirst {
				t.Errorf("first hit %s, want %s", out.Results[0].SectionID, tt.wantFirst)
			}
			if tt.matched != "" && !slices.Contains(out.Results[0].Matched, tt.matched) {
				t.Errorf("first hit matched %v, want %s among them", out.Results[0].Matched, tt.matched)
			}
			docs := map[string]SearchDocument{}
			var langs []string
			for _, d := range out.Documents {
				docs[d.ID] = d
				langs = append(langs, d.Language)
				if d.Version == "" || !strings.Contains(text(res), d.ID+" "+d.Version+"\n") {
					t.Errorf("document %+v incomplete or not in the text", d)
				}
			}
			for _, h := range out.Results {
				doc := h.Document
				if doc == "" {
					if len(out.Documents) != 1 {
						t.Fatalf("hit %s names no document among %d", h.SectionID, len(out.Documents))
					}
					doc = out.Documents[0].ID
				}
				if _, ok := docs[doc]; !ok {
					t.Errorf("hit %s names document %q, not among %v", h.SectionID, doc, out.Documents)
				}
				if p, ok := tt.args["section_path_prefix"].(string); ok && !strings.HasPrefix(h.Path+" > "+h.Title, p) {
					t.Errorf("hit %s > %s outside prefix %s", h.Path, h.Title, p)
				}
				if len(h.Matched) == 0 || h.Snippet != "" || h.Score != nil {
					t.Errorf("hit %+v: want matched channels, and no snippet or score without verbose", h)
				}
				if !strings.Contains(text(res), ". "+h.SectionID) {
					t.Errorf("text rendering lacks hit %s", h.SectionID)
				}
			}
			slices.Sort(langs)
			if tt.wantLangs != nil && !slices.Equal(langs, tt.wantLangs) {
				t.Errorf("languages %v, want %v", langs, tt.wantLangs)
			}
		})
	}
}

func TestGetSection(t *testing.T) {
	store := mustOpenDB(t)
	addExcerptDoc(t, store)
	cs, _ := connect(t, store)

	t.Run("whole section with children", func(t *testing.T) {
		var out search.SectionResult
		res := call(t, cs, "get_section", map[string]any{"language": "go", "section_id": "Slice_expressions"})
		decode(t, res, &out)
		if out.Citation.URL != "https://go.dev/ref/spec#Slice_expressions" || !out.FulltextAvailable || out.IsTruncated ||
			out.NextOffset != 0 || out.Offset != 0 || out.TotalChars != len([]rune(out.Text)) || out.Notice != "" {
			t.Errorf("%+v", out)
		}
		if len(out.Children) != 2 || out.Children[1].SectionID != "Full_slice_expressions" {
			t.Errorf("children %+v", out.Children)
		}
		if !strings.Contains(text(res), "Full slice expressions (section_id=Full_slice_expressions)") {
			t.Errorf("text:\n%s", text(res))
		}
	})

	t.Run("pages join to the whole text", func(t *testing.T) {
		var whole search.SectionResult
		decode(t, call(t, cs, "get_section", map[string]any{"language": "go", "section_id": "Types",
			"with_subsections": true, "max_chars": search.MaxPageChars}), &whole)
		if whole.TotalChars < 20000 || whole.IsTruncated {
			t.Fatalf("Types with subsections: %d chars, truncated %v", whole.TotalChars, whole.IsTruncated)
		}
		var joined strings.Builder
		offset, pages := 0, 0
		for {
			var page search.SectionResult
			decode(t, call(t, cs, "get_section", map[string]any{"language": "go", "section_id": "Types",
				"with_subsections": true, "offset": offset, "max_chars": 3000}), &page)
			pages++
			if n := len([]rune(page.Text)); n > 3000 || page.Offset != offset {
				t.Fatalf("page at %d: %d chars, offset %d", offset, n, page.Offset)
			}
			joined.WriteString(page.Text)
			if page.NextOffset == 0 {
				if page.IsTruncated {
					t.Error("last page says it is truncated")
				}
				break
			}
			if !page.IsTruncated || page.NextOffset != offset+len([]rune(page.Text)) {
				t.Fatalf("page at %d: next_offset %d after %d chars", offset, page.NextOffset, len([]rune(page.Text)))
			}
			offset = page.NextOffset
		}
		if joined.String() != whole.Text {
			t.Error("pages do not join to the whole text")
		}
		if pages < whole.TotalChars/3000 {
			t.Errorf("%d pages for %d chars", pages, whole.TotalChars)
		}
	})

	t.Run("excerpt_only returns at most the excerpt and says so", func(t *testing.T) {
		var out search.SectionResult
		res := call(t, cs, "get_section", map[string]any{"language": "golicensed", "section_id": "Types", "with_subsections": true})
		decode(t, res, &out)
		if n := len([]rune(out.Text)); n != search.ExcerptChars || out.FulltextAvailable || !out.IsTruncated ||
			out.NextOffset != 0 || out.AvailableChars != search.ExcerptChars || out.SourcePolicy != db.ExcerptOnly {
			t.Errorf("excerpt: %d chars, %+v", n, out)
		}
		if !strings.Contains(out.Notice, "excerpt_only") || !strings.Contains(text(res), out.Notice) {
			t.Errorf("notice %q not in text", out.Notice)
		}
		decode(t, call(t, cs, "get_section", map[string]any{"language": "golicensed", "section_id": "Types",
			"with_subsections": true, "offset": 1000, "max_chars": 5000}), &out)
		if n := len([]rune(out.Text)); n != 200 || out.NextOffset != 0 {
			t.Errorf("paging past the excerpt: %d chars, next %d", n, out.NextOffset)
		}
	})
}

func TestBuildLearningPlan(t *testing.T) {
	store := mustOpenDB(t)
	cs, _ := connect(t, store)
	var got plan.Plan
	res := call(t, cs, "build_learning_plan", map[string]any{"language": "go", "total_weeks": 3, "focus_areas": []string{"Statements"}})
	decode(t, res, &got)
	want, err := plan.Build(context.Background(), store, plan.Request{Language: "go", Weeks: 3, Focus: []string{"Statements"}})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Errorf("tool plan differs from langspec plan:\n%s\n%s", g, w)
	}
	if !strings.Contains(text(res), "Week 3") || !strings.Contains(text(res), "[focus]") {
		t.Errorf("text:\n%s", text(res))
	}
	decode(t, call(t, cs, "build_learning_plan", map[string]any{"language": "go"}), &got)
	if got.TotalWeeks != plan.DefaultWeeks {
		t.Errorf("default weeks %d", got.TotalWeeks)
	}
}

func mustJSON(tb testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// Every mistake a caller can make comes back as a tool error that says what
// was wrong and what to do, and the session goes on.
func TestToolErrors(t *testing.T) {
	store := mustOpenDB(t)
	addExcerptDoc(t, store)
	cs, logs := connect(t, store)
	huge := strings.Repeat("slice ", 200_000) // 1.2 MB
	tests := []struct {
		tool string
		args any
		want []string // substrings of the error text
	}{
		{"search_spec", map[string]any{"query": ""}, []string{"invalid_argument: argument query", "1 to 1000 characters"}},
		{"search_spec", map[string]any{"query": "   "}, []string{"invalid_argument: empty query"}},
		{"search_spec", map[string]any{}, []string{`missing required argument "query"`, "query (required)"}},
		{"search_spec", map[string]any{"query": "x", "limit": 0}, []string{"argument limit: got 0", "from 1 to 50"}},
		{"search_spec", map[string]any{"query": "x", "limit": 51}, []string{"argument limit: got 51", "from 1 to 50 (default 10)"}},
		{"search_spec", map[string]any{"query": "x", "limit": "ten"}, []string{`argument limit: got "ten"`}},
		{"search_spec", map[string]any{"query": "x", "snippet_chars": 5}, []string{"snippet_chars", "from 40 to 2000"}},
		{"search_spec", map[string]any{"query": "x", "lang": "go"}, []string{`unknown argument "lang"`, "language"}},
		{"search_spec", map[string]any{"query": huge}, []string{"argument query: got a string of 1200000 characters", "1 to 1000 characters"}},
		{"search_spec", map[string]any{"query": "x", "language": "cobol"}, []string{`not_found: unknown language "cobol"`, "available languages: go, golicensed"}},
		{"search_spec", map[string]any{"query": "x", "language": "go", "version": "go0.1"}, []string{`no version "go0.1"`, "available versions: go1.26"}},
		{"search_spec", map[string]any{"query": "x", "language": "go", "doc": "book"}, []string{`no document "book"`, "available documents: spec"}},
		{"search_spec", "not an object", []string{"arguments must be a JSON object"}},
		{"list_versions", map[string]any{"language": "cobol"}, []string{`unknown language "cobol"`, "available languages: go, golicensed"}},
		{"list_versions", map[string]any{"language": ""}, []string{"argument language"}},
		{"get_section", map[string]any{"language": "go", "section_id": "Slice_expresion"}, []string{`not_found: no section "Slice_expresion"`, "nearest ids: Slice_expressions"}},
		{"get_section", map[string]any{"language": "go", "section_id": "qqqqqqqqqqqqqqqq"}, []string{"search for the topic"}},
		{"get_section", map[string]any{"language": "cobol", "section_id": "Types"}, []string{`unknown language "cobol"`}},
		// A language langspec has a source for names the ingest that adds it.
		{"get_section", map[string]any{"language": "rust", "section_id": "Types"}, []string{`language "rust" is not stored yet`, "run langspec ingest rust to add The Rust Reference", "available languages: go, golicensed"}},
		{"search_spec", map[string]any{"query": "x", "language": "java"}, []string{"run langspec ingest java"}},
		{"list_versions", map[string]any{"language": "typescript"}, []string{"run langspec ingest typescript"}},
		{"build_learning_plan", map[string]any{"language": "ecmascript"}, []string{"run langspec ingest ecmascript"}},
		// get_section finds a title as people type it: case, plurals.
		{"get_section", map[string]any{"language": "go", "section_id": "metod sets"}, []string{`no section "metod sets"`, "nearest ids: Method_sets"}},
		{"get_section", map[string]any{"section_id": "Types"}, []string{`missing required argument "language"`}},
		{"get_section", map[string]any{"language": "go", "section_id": "Types", "offset": 99999}, []string{"offset 99999 is past the end", "use an offset from 0 to"}},
		{"get_section", map[string]any{"language": "golicensed", "section_id": "Types", "with_subsections": true, "offset": 1300},
			[]string{"past the end of the 1200 characters available"}},
		{"get_section", map[string]any{"language": "go", "section_id": "Types", "offset": -1}, []string{"argument offset: got -1"}},
		{"get_section", map[string]any{"language": "go", "section_id": "Types", "max_chars": 0}, []string{"argument max_chars: got 0", "from 1 to 100000"}},
		{"build_learning_plan", map[string]any{"language": "go", "total_weeks": 13}, []string{"argument total_weeks: got 13", "from 1 to 12"}},
		{"build_learning_plan", map[string]any{"language": "go", "focus_areas": []string{"Monads"}}, []string{`focus area "Monads"`, "top-level topics"}},
		{"build_learning_plan", map[string]any{"language": "cobol"}, []string{`unknown language "cobol"`}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+mustJSON(t, tt.args)[:min(60, len(mustJSON(t, tt.args)))], func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args)
			if !res.IsError {
				t.Fatalf("want an error result, got %.200s", text(res))
			}
			for _, w := range tt.want {
				if !strings.Contains(text(res), w) {
					t.Errorf("error %q lacks %q", text(res), w)
				}
			}
			if strings.Contains(strings.ToLower(text(res)), "sql") || strings.Contains(text(res), "validating root") {
				t.Errorf("error leaks internals: %s", text(res))
			}
		})
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil ||
		!strings.Contains(err.Error(), `unknown tool "no_such_tool"`) {
		t.Errorf("unknown tool: %v", err)
	}
	// The session still works, and each call was logged once.
	var out search.Result
	decode(t, call(t, cs, "search_spec", map[string]any{"query": "defer"}), &out)
	log := logs.String()
	if n := strings.Count(log, `msg="tool call"`); n != len(tests)+2 {
		t.Errorf("%d tool call log lines for %d calls:\n%s", n, len(tests)+2, log)
	}
	for _, w := range []string{"tool=search_spec", "outcome=ok", "outcome=error code=not_found", "outcome=protocol_error", "ms="} {
		if !strings.Contains(log, w) {
			t.Errorf("log lacks %q", w)
		}
	}
}

// The SDK may run calls in parallel; they share the store's pool and no
// other state.
func TestConcurrentCalls(t *testing.T) {
	store := mustOpenDB(t)
	cs, _ := connect(t, store)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"search_spec", map[string]any{"query": "channel types"}},
		{"get_section", map[string]any{"language": "go", "section_id": "Channel_types"}},
		{"build_learning_plan", map[string]any{"language": "go"}},
		{"list_languages", map[string]any{}},
		{"search_spec", map[string]any{"query": "x.(T)"}},
	}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for i := range 100 {
		c := calls[i%len(calls)]
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			switch {
			case err != nil:
				errs <- err.Error()
			case res.IsError:
				errs <- text(res)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestResultsAreCheckedAgainstOutputSchema: the server no longer validates
// its results on each call, so the test client must; a result that breaks
// its tool's output schema fails the call, one that keeps it passes.
func TestResultsAreCheckedAgainstOutputSchema(t *testing.T) {
	schema := &jsonschema.Schema{Type: "object", Required: []string{"n"},
		Properties: map[string]*jsonschema.Schema{"n": {Type: "integer"}}}
	tests := []struct {
		name    string
		result  string
		wantErr string
	}{
		{"keeps the schema", `{"n": 3}`, ""},
		{"wrong type", `{"n": "three"}`, "does not match its output schema"},
		{"missing property", `{}`, "does not match its output schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
			s.AddTool(&mcp.Tool{Name: "count", InputSchema: &jsonschema.Schema{Type: "object"}, OutputSchema: schema},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{StructuredContent: json.RawMessage(tt.result)}, nil
				})
			cs := toolstest.Connect(t, s)
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "count"})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestInputSchemasResolve resolves every tool's input schema, as its first
// call does: a schema that cannot be resolved fails here, not in a session.
func TestInputSchemasResolve(t *testing.T) {
	resolved := 0
	for _, tool := range append(Inventory(), Meta()...) {
		if tool.resolveIn == nil {
			continue
		}
		if _, err := tool.resolveIn(); err != nil {
			t.Errorf("%s: %v", tool.Def.Name, err)
		}
		resolved++
	}
	if resolved < 20 {
		t.Errorf("only %d tools have an input schema to resolve", resolved)
	}
}
