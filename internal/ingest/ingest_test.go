package ingest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/fixtures"
	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
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
		case "/spec":
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
	ctx := context.Background()
	now := time.Now()
	store := mustOpenDB(t)
	steps := []struct {
		name string
		src  ingest.Source
		want db.PublishStatus
	}{
		{"embedded", ingest.EmbeddedGoSpec(), db.Created},
		{"same bytes from a file", ingest.Source{Kind: ingest.FromFile, Location: filepath.Join("..", "..", "fixtures", "gospec", "go_spec.html")}, db.Unchanged},
		{"same bytes from a URL", ingest.Source{Kind: ingest.FromURL, Location: srv.URL + "/spec"}, db.Unchanged},
	}
	for _, s := range steps {
		res, err := ingest.Go(ctx, store, srv.Client(), s.src, now)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if res.Status != s.want || res.Version != "go1.26" || res.Sections != 165 {
			t.Errorf("%s: %+v, want %s go1.26 with 165 sections", s.name, res, s.want)
		}
	}
	failures := []struct {
		name string
		src  ingest.Source
		code apperr.Code
	}{
		{"missing file", ingest.Source{Kind: ingest.FromFile, Location: filepath.Join(t.TempDir(), "nope.html")}, apperr.Unavailable},
		{"not the spec", ingest.Source{Kind: ingest.FromFile, Location: filepath.Join("..", "..", "go.mod")}, apperr.InvalidArgument},
		{"404", ingest.Source{Kind: ingest.FromURL, Location: srv.URL + "/missing"}, apperr.Unavailable},
		{"too large", ingest.Source{Kind: ingest.FromURL, Location: srv.URL + "/huge"}, apperr.InvalidArgument},
		{"no server", ingest.Source{Kind: ingest.FromURL, Location: "http://127.0.0.1:1/spec"}, apperr.Unavailable},
	}
	for _, f := range failures {
		_, err := ingest.Go(ctx, store, srv.Client(), f.src, now)
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
		if _, err := ingest.Go(ctx, store, nil, ingest.EmbeddedGoSpec(), time.Now()); err != nil {
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
