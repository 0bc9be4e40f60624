package ingest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/fixtures"
	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/fetch"
	"github.com/langspec/langspec/internal/ingest"
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
		{"embedded", ingest.Options{From: ingest.FromEmbedded}, db.Created, "https://go.dev/ref/spec", ingest.PageStats{Read: 1}},
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
