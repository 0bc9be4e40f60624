package spec

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/plan"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/specdiff"
)

// mustOpenDB is a store holding the Go specification built into langspec.
func mustOpenDB(tb testing.TB) *db.DB {
	tb.Helper()
	ctx := context.Background()
	store, err := db.Open(ctx, filepath.Join(tb.TempDir(), "spec.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	if _, err := ingest.EnsureDefault(ctx, store, time.Now()); err != nil {
		tb.Fatal(err)
	}
	return store
}

// Every use case names the next step for a language with nothing stored
// with the one hint: a misspelt one langspec knows, a built-in source not
// ingested, a source the configuration declares.
func TestNotStoredHints(t *testing.T) {
	declared := ingest.SourceSpec{Language: "cobol", Doc: "std", DisplayName: "COBOL standard", Kind: "html",
		URL: "https://cobol.example/std.html", CanonicalURL: "https://cobol.example/std.html", SourcePolicy: "full_text"}
	svc := New(Options{Store: mustOpenDB(t), Known: ingest.Known{Sources: []ingest.SourceSpec{declared}}})
	ctx := context.Background()
	calls := map[string]func(language string) error{
		"search": func(l string) error {
			_, err := svc.Search(ctx, search.Request{Query: "integer overflow", Language: l})
			return err
		},
		"section": func(l string) error {
			_, err := svc.Section(ctx, search.SectionRequest{Language: l, SectionID: "Overflow"})
			return err
		},
		"plan": func(l string) error { _, err := svc.Plan(ctx, plan.Request{Language: l}); return err },
		"diff": func(l string) error { _, err := svc.Diff(ctx, specdiff.Request{Language: l}); return err },
		"since": func(l string) error {
			_, err := svc.Since(ctx, specdiff.SinceRequest{Language: l, SectionID: "Overflow"})
			return err
		},
		"versions": func(l string) error { _, err := svc.Versions(ctx, l); return err },
	}
	tests := []struct {
		language, message, hint string
	}{
		{"rsut", `unknown language "rsut"`, "did you mean rust?"},
		{" rust ", `language "rust" is not stored yet`, "run langspec ingest rust to add The Rust Reference"},
		{"cobol", `language "cobol" is not stored yet`, "run langspec ingest cobol to add COBOL standard"},
	}
	for name, call := range calls {
		for _, tt := range tests {
			err := call(tt.language)
			e, ok := errors.AsType[*apperr.Error](err)
			if !ok || e.Code != apperr.NotFound || e.Message != tt.message || !strings.Contains(e.Hint, tt.hint) {
				t.Errorf("%s in %q: %v; want not_found %s, hint %q", name, tt.language, err, tt.message, tt.hint)
			}
		}
	}
}

// The notes in force come with every answer without the caller asking.
func TestNotesByDefault(t *testing.T) {
	notes := &contextnote.Source{Config: map[string]contextnote.ConfigNote{"langspec://go/spec": {Text: "The Go our services build with."}}}
	svc := New(Options{Store: mustOpenDB(t), Notes: notes})
	ctx := context.Background()
	res, err := svc.Search(ctx, search.Request{Query: "slice expressions"})
	if err != nil || len(res.Context) != 1 || !strings.HasSuffix(res.Context[0].Target, "go/spec") {
		t.Errorf("search: %+v, %v", res.Context, err)
	}
	sec, err := svc.Section(ctx, search.SectionRequest{SectionID: "Slice_expressions"})
	if err != nil || len(sec.Context) != 1 {
		t.Errorf("section: %+v, %v", sec.Context, err)
	}
}
