package ingest_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/langspec/langspec/fixtures"
	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/ingest/fetch"
)

func mustOpenDB(tb testing.TB) *db.DB {
	tb.Helper()
	d, err := db.Open(context.Background(), filepath.Join(tb.TempDir(), "langspec.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	return d
}

func TestGoFromEverySource(t *testing.T) {
	spec, err := fixtures.GoSpec.ReadFile(fixtures.GoSpecPath)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.UserAgent(), "langspec") {
			http.Error(w, "no user agent", http.StatusForbidden)
			return
		}
		switch r.URL.Path {
		case "/ref/spec":
			w.Write(spec)
		case "/huge":
			chunk := []byte(strings.Repeat("x", 1<<20))
			for range ingest.MaxSourceBytes>>20 + 2 {
				w.Write(chunk)
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	goroot := t.TempDir()
	os.MkdirAll(filepath.Join(goroot, "doc"), 0o755)
	os.WriteFile(filepath.Join(goroot, "doc", "go_spec.html"), spec, 0o644)
	ctx := context.Background()
	store := mustOpenDB(t)
	goSrc, err := ingest.Resolve(nil, "go", "")
	if err != nil {
		t.Fatal(err)
	}
	getter := ingest.FetchGetter{Client: fetch.New(fetch.Options{CacheDir: t.TempDir(), Retries: -1})}
	steps := []struct {
		name   string
		opts   ingest.Options
		want   db.PublishStatus
		source string
		pages  ingest.PageStats
	}{
		{"embedded", ingest.Options{From: ingest.FromEmbedded}, db.Created, "embedded:gospec/go_spec.html", ingest.PageStats{Read: 1}},
		{"same bytes from a file", ingest.Options{From: filepath.Join("..", "..", "fixtures", "gospec", "go_spec.html")}, db.Unchanged,
			filepath.Join("..", "..", "fixtures", "gospec", "go_spec.html"), ingest.PageStats{Read: 1}},
		{"same bytes from a URL", ingest.Options{From: srv.URL + "/ref/spec", Getter: getter}, db.Unchanged,
			srv.URL + "/ref/spec", ingest.PageStats{Fetched: 1}},
		{"GOROOT first", ingest.Options{Env: ingest.Env{Goroot: goroot}, Getter: getter}, db.Unchanged,
			filepath.Join(goroot, "doc", "go_spec.html"), ingest.PageStats{Read: 1}},
	}
	for _, s := range steps {
		rep, err := ingest.Ingest(ctx, store, goSrc, s.opts)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if rep.Status != s.want || rep.Version != "go1.26" || rep.Source != s.source || rep.Pages != s.pages {
			t.Errorf("%s: %+v, want %s go1.26 from %s, pages %+v", s.name, rep, s.want, s.source, s.pages)
		}
		if s.want == db.Created && rep.Sections.Added != 165 {
			t.Errorf("%s: sections %+v", s.name, rep.Sections)
		}
		if s.want == db.Unchanged && rep.Sections.Unchanged != 165 {
			t.Errorf("%s: sections %+v", s.name, rep.Sections)
		}
	}
	failures := []struct {
		name string
		opts ingest.Options
		code apperr.Code
	}{
		{"missing file", ingest.Options{From: filepath.Join(t.TempDir(), "nope.html")}, apperr.Unavailable},
		{"not the spec", ingest.Options{From: filepath.Join("..", "..", "go.mod")}, apperr.InvalidArgument},
		{"404", ingest.Options{From: srv.URL + "/missing", Getter: getter}, apperr.NotFound},
		{"too large", ingest.Options{From: srv.URL + "/huge", Getter: getter}, apperr.InvalidArgument},
		{"no server", ingest.Options{From: "http://127.0.0.1:1/spec", Getter: getter}, apperr.Unavailable},
	}
	for _, f := range failures {
		_, err := ingest.Ingest(ctx, store, goSrc, f.opts)
		if apperr.CodeOf(err) != f.code {
			t.Errorf("%s: err = %v, want %s", f.name, err, f.code)
		}
	}
}

func TestEnsureDefault(t *testing.T) {
	ctx := context.Background()
	store := mustOpenDB(t)
	for i, want := range []bool{true, false} {
		loaded, err := ingest.EnsureDefault(ctx, store, time.Now())
		if err != nil || loaded != want {
			t.Fatalf("call %d: loaded = %v, %v; want %v", i, loaded, err, want)
		}
	}
}

func BenchmarkIngestGoSpec(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		store, err := db.Open(ctx, filepath.Join(b.TempDir(), "langspec.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := ingest.EnsureDefault(ctx, store, time.Now()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		store.Close()
		b.StartTimer()
	}
}

func BenchmarkParseGoSpec(b *testing.B) {
	spec, err := fixtures.GoSpec.ReadFile(fixtures.GoSpecPath)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ingest.ParseGoSpec(spec); err != nil {
			b.Fatal(err)
		}
	}
}

// A multi-page document over HTTP: a first ingest fetches every page; the
// next is answered from the HTTP cache (304s) and changes nothing; one that
// loses a chapter is stored as incomplete and never becomes the latest
// version (the predecessor published such a re-ingest as "latest").
func TestChaptersOverHTTP(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "jls")
	var failChapter atomic.Bool
	var notModified atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Path)
		if failChapter.Load() && name == "jls-4.html" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		etag := fmt.Sprintf(`"%x"`, sha256.Sum256(body))
		if r.Header.Get("If-None-Match") == etag {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Write(body)
	}))
	defer srv.Close()
	src := ingest.SourceSpec{Language: "java", Doc: "jls", DisplayName: "JLS", Kind: ingest.KindHTMLChapters,
		URL: srv.URL + "/jls/", Entry: "index.html", CanonicalURL: "https://docs.oracle.com/javase/specs/jls/se21/html/",
		ChapterPattern: `^jls-\d+\.html$`, SourcePolicy: db.ExcerptOnly}
	ctx := context.Background()
	store := mustOpenDB(t)
	cache := t.TempDir()
	getter := func() ingest.Getter {
		return ingest.FetchGetter{Client: fetch.New(fetch.Options{CacheDir: cache, Retries: -1})}
	}
	rep, err := ingest.Ingest(ctx, store, src, ingest.Options{Getter: getter()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != db.Created || rep.Version != "se21" || rep.Pages != (ingest.PageStats{Fetched: 3}) || rep.Sections.Added == 0 {
		t.Fatalf("first ingest: %+v", rep)
	}
	sections := rep.Sections.Added

	rep, err = ingest.Ingest(ctx, store, src, ingest.Options{Getter: getter()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != db.Unchanged || rep.Pages != (ingest.PageStats{Cached: 3}) || notModified.Load() != 3 ||
		rep.Sections.Unchanged != sections {
		t.Errorf("re-ingest from the cache: %+v (%d 304s)", rep, notModified.Load())
	}

	failChapter.Store(true)
	src.Version = "se22" // a new version, with a chapter missing
	rep, err = ingest.Ingest(ctx, store, src, ingest.Options{Getter: getter()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != db.KeptIncomplete || len(rep.Failed) != 1 || rep.Failed[0].Page != "jls-4.html" || rep.Pages.Failed != 1 {
		t.Fatalf("lost chapter: %+v", rep)
	}
	vs, err := store.Versions(ctx, "java")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Version != "se22" || vs[0].Complete || vs[0].Default || vs[1].Version != "se21" || !vs[1].Default {
		t.Errorf("versions after a partial fetch: %+v", vs)
	}
	if _, err := store.Section(ctx, db.Scope{Language: "java"}, "jls-4.1"); err != nil {
		t.Errorf("the complete version is not the one read: %v", err)
	}
}

// Every preset's kind, ingested from its fixture through the same pipeline
// the CLI uses, with the preset's own settings.
func TestEveryKindFromFixtures(t *testing.T) {
	fx := func(p ...string) string { return filepath.Join(append([]string{"..", "..", "fixtures"}, p...)...) }
	tests := []struct {
		language, from string
		version        string // "" when the document states none (the fetch date is used)
		wantID         string // a section that must be there
		wantURL        string // its citation URL
		minSections    int
	}{
		{"go", fx("gospec", "go_spec.html"), "go1.26", "Slice_expressions", "https://go.dev/ref/spec#Slice_expressions", 165},
		{"java", fx("jls"), "se21", "jls-4.1", "https://docs.oracle.com/javase/specs/jls/se21/html/jls-4.html#jls-4.1", 5},
		{"ecmascript", fx("ecmarkup", "index.html"), "", "", "", 10},
		{"python", fx("sphinx"), "3.11", "", "", 5},
		{"typescript", fx("markdown", "handbook-v2"), "2026-11-22", "", "", 3}, // states none: the fetch date
	}
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.language, func(t *testing.T) {
			ctx := context.Background()
			store := mustOpenDB(t)
			src, err := ingest.Resolve(nil, tt.language, "")
			if err != nil {
				t.Fatal(err)
			}
			rep, err := ingest.Ingest(ctx, store, src, ingest.Options{From: tt.from, Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != db.Created || tt.version != "" && rep.Version != tt.version || rep.Version == "" || len(rep.Failed) > 0 ||
				rep.Sections.Added < tt.minSections {
				t.Fatalf("%+v", rep)
			}
			_, rows, err := store.Outline(ctx, db.Scope{Language: tt.language})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.Title == "" || !strings.Contains(r.URL, "#") && r.Level > 1 || r.SourcePolicy != src.SourcePolicy {
					t.Errorf("section %s: title %q url %q policy %s", r.SectionID, r.Title, r.URL, r.SourcePolicy)
				}
			}
			if tt.wantID != "" {
				row, err := store.Section(ctx, db.Scope{Language: tt.language}, tt.wantID)
				if err != nil || row.URL != tt.wantURL {
					t.Errorf("section %s: %+v %v", tt.wantID, row.URL, err)
				}
			}
		})
	}
}

// The quality bar on the real Go spec of the local toolchain: ids unique,
// titles present, and every citation's anchor is an id in the page.
func TestRealGoSpecAnchors(t *testing.T) {
	goroot := ingest.Goroot(context.Background())
	page, err := os.ReadFile(filepath.Join(goroot, "doc", "go_spec.html"))
	if goroot == "" || err != nil {
		t.Skip("no Go spec in GOROOT")
	}
	parsed, err := ingest.ParseGoSpec(page)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, s := range parsed.Sections {
		if ids[s.SectionID] || s.Title == "" {
			t.Errorf("section %q: duplicate id or empty title", s.SectionID)
		}
		ids[s.SectionID] = true
		_, anchor, ok := strings.Cut(s.URL, "#")
		if !ok || !strings.Contains(string(page), `id="`+anchor+`"`) {
			t.Errorf("section %s: URL %s has no anchor in the page", s.SectionID, s.URL)
		}
	}
	t.Logf("%s: %d sections", parsed.Version, len(parsed.Sections))
}

// BenchmarkIngestRustReference is the whole pipeline on the Rust Reference
// of the local rustup toolchain: read print.html (4.4 MB), split it, store
// it in a new database.
func BenchmarkIngestRustReference(b *testing.B) {
	ctx := context.Background()
	env := ingest.DetectEnv(ctx)
	src, err := ingest.Resolve(nil, "rust", "")
	if err != nil {
		b.Fatal(err)
	}
	locs, err := ingest.Candidates(src, "", env)
	if err != nil || locs[0].Kind != ingest.AtFolder {
		b.Skip("no local Rust Reference")
	}
	for b.Loop() {
		b.StopTimer()
		store, err := db.Open(ctx, filepath.Join(b.TempDir(), "langspec.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := ingest.Ingest(ctx, store, src, ingest.Options{Env: env})
		if err != nil || rep.Sections.Added < 700 {
			b.Fatal(rep, err)
		}
		b.StopTimer()
		store.Close()
		b.StartTimer()
	}
}

// Without a Getter the network is not used: a source with no local copy
// says so instead of publishing nothing.
func TestIngestWithoutNetwork(t *testing.T) {
	src, err := ingest.Resolve(nil, "java", "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ingest.Ingest(context.Background(), mustOpenDB(t), src, ingest.Options{})
	if apperr.CodeOf(err) != apperr.Unavailable || !strings.Contains(err.Error(), "java/jls has no local copy") {
		t.Errorf("err = %v", err)
	}
}

// TestVersionNeverTodayInSilence (issue 49): a document's version comes
// from --version-label, else the document; a Go spec that states only a
// date is refused, naming the flag, and nothing is stored; a living
// handbook is stored under the date, with a notice that says so.
func TestVersionNeverTodayInSilence(t *testing.T) {
	fx := func(p ...string) string { return filepath.Join(append([]string{"..", "..", "fixtures"}, p...)...) }
	now := func() time.Time { return time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name, language, from, label string
		version, notice, err        string // want
	}{
		{"a spec that states its version", "go", fx("gospec-history", "go1.22.html"), "", "go1.22", "", ""},
		{"a spec that states a date", "go", fx("gospec-history", "go1.21.html"), "", "", "",
			`states no version of go/spec (it says "Version of Aug 2, 2023"); hint: name its version: langspec ingest go --from`},
		{"the same, named", "go", fx("gospec-history", "go1.21.html"), "go1.21", "go1.21", "", ""},
		{"a living handbook", "typescript", fx("markdown", "handbook-v2"), "", "2026-11-22", "typescript/handbook states no version: stored as 2026-11-22", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			store := mustOpenDB(t)
			src, err := ingest.Resolve(nil, tc.language, "")
			if err != nil {
				t.Fatal(err)
			}
			rep, err := ingest.Ingest(ctx, store, src, ingest.Options{From: tc.from, Version: tc.label, Now: now})
			if tc.err != "" {
				if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want invalid_argument with %q", err, tc.err)
				}
				if vs, _ := store.Versions(ctx, ""); len(vs) != 0 {
					t.Errorf("stored anyway: %+v", vs)
				}
				return
			}
			if err != nil || rep.Version != tc.version {
				t.Fatalf("version %q, %v; want %s", rep.Version, err, tc.version)
			}
			if got := strings.Join(rep.Notices, "\n"); tc.notice == "" && got != "" || !strings.Contains(got, tc.notice) {
				t.Errorf("notices %q, want %q", got, tc.notice)
			}
		})
	}
}
