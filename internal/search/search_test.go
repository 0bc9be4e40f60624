package search_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/text/snippet"
)

// goSpecStore is a store holding the embedded Go specification.
func goSpecStore(tb testing.TB) *db.DB {
	tb.Helper()
	ctx := context.Background()
	store, err := db.Open(ctx, filepath.Join(tb.TempDir(), "langspec.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	if _, err := ingest.EnsureDefault(ctx, store, time.Now()); err != nil {
		tb.Fatal(err)
	}
	return store
}

func TestSearchStrategies(t *testing.T) {
	store := goSpecStore(t)
	tests := []struct {
		query     string
		strategy  string
		firstID   string // the section that must rank first ("" = any)
		highlight string // must appear marked in the first snippet
	}{
		{"slice expressions", search.AllTerms, "Slice_expressions", "**Slice** **expressions**"},
		{"slices", search.AllTerms, "", "**slice"},                                     // stemmed
		{`"type assertion"`, search.AllTerms, "Type_assertions", "**type assertion**"}, // phrase
		{"assert*", search.AllTerms, "Type_assertions", "**assert"},                    // prefix
		{"what is a goroutine?", search.AllTerms, "Go_statements", "**goroutine"},      // stop words dropped
		{"goroutine zebra", search.AnyTerm, "Go_statements", "**goroutine"},
		{"x.(T)", search.Trigram, "Type_assertions", "**x.(T)**"},
		{"<-chan", search.Trigram, "Channel_types", "**<-chan**"},
		{"interface{}", search.Trigram, "", "**interface{}**"},
		{"...", search.Trigram, "", "**...**"},
		{"gorutine", search.Fuzzy, "Go_statements", "**goroutine**"},
		{"&^", search.Substring, "", "**&^**"},
		{"NOT", search.AllTerms, "", "**not**"},
		{"c++", search.AllTerms, "", ""},
		{"go-sdk", search.AnyTerm, "", ""},
		{"title:slice", search.AnyTerm, "", "**slice**"}, // a column filter is just words
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := search.Search(context.Background(), store, search.Request{Query: tt.query,
				Snippet: snippet.Options{Mark: snippet.Markdown}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Strategy != tt.strategy || len(res.Hits) == 0 {
				t.Fatalf("strategy %q with %d hits (tried %v), want %q with hits", res.Strategy, len(res.Hits), res.Tried, tt.strategy)
			}
			h := res.Hits[0]
			if tt.firstID != "" && h.SectionID != tt.firstID {
				var ids []string
				for _, h := range res.Hits {
					ids = append(ids, h.SectionID)
				}
				t.Errorf("first hit %s, want %s; all: %v", h.SectionID, tt.firstID, ids)
			}
			if tt.highlight != "" && !strings.Contains(strings.ToLower(h.Snippet), strings.ToLower(tt.highlight)) {
				t.Errorf("snippet lacks %q:\n%s", tt.highlight, h.Snippet)
			}
			if h.Language != "go" || h.Version != "go1.26" || !strings.HasPrefix(h.URL, "https://go.dev/ref/spec#") || h.Strategy != res.Strategy {
				t.Errorf("citation = %+v", h)
			}
			for i := 1; i < len(res.Hits); i++ {
				if res.Hits[i].Score > res.Hits[i-1].Score {
					t.Errorf("hits not ranked: %v after %v", res.Hits[i].Score, res.Hits[i-1].Score)
				}
			}
		})
	}
}

func TestSearchNoMatchAndErrors(t *testing.T) {
	store := goSpecStore(t)
	ctx := context.Background()
	res, err := search.Search(ctx, store, search.Request{Query: "スライス"})
	if err != nil || len(res.Hits) != 0 || res.Strategy != "" || strings.Join(res.Tried, ",") != "all_terms,trigram,fuzzy" {
		t.Errorf("Japanese on the Go spec: %+v, %v", res, err)
	}
	tests := []struct {
		name string
		req  search.Request
		code apperr.Code
		msg  string
	}{
		{"empty", search.Request{Query: ""}, apperr.InvalidArgument, "empty query"},
		{"100 KB", search.Request{Query: strings.Repeat("x", 100<<10)}, apperr.InvalidArgument, "at most 1000"},
		{"limit 0 is default, 51 is not", search.Request{Query: "slice", Limit: 51}, apperr.InvalidArgument, "1 to 50"},
		{"negative limit", search.Request{Query: "slice", Limit: -1}, apperr.InvalidArgument, "1 to 50"},
		{"snippet too long", search.Request{Query: "slice", Snippet: snippet.Options{Chars: 1 << 20}}, apperr.InvalidArgument, "snippet length"},
		{"unknown language", search.Request{Query: "slice", Language: "cobol"}, apperr.NotFound, "available languages: go"},
		{"unknown version", search.Request{Query: "slice", Version: "go1.0"}, apperr.NotFound, "available versions: go1.26"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := search.Search(ctx, store, tt.req)
			if apperr.CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %s with %q", err, tt.code, tt.msg)
			}
		})
	}
}

func TestSearchFilters(t *testing.T) {
	store := goSpecStore(t)
	res, err := search.Search(context.Background(), store, search.Request{Query: "slice", PathPrefix: "types", Limit: 50})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("%+v, %v", res, err)
	}
	for _, h := range res.Hits {
		if !strings.HasPrefix(h.SectionPath, "Types") {
			t.Errorf("hit outside Types: %s", h.SectionPath)
		}
	}
	res, err = search.Search(context.Background(), store, search.Request{Query: "slice", Limit: 3})
	if err != nil || len(res.Hits) != 3 {
		t.Errorf("limit 3 gave %d hits, %v", len(res.Hits), err)
	}
}

func TestSection(t *testing.T) {
	store := goSpecStore(t)
	ctx := context.Background()
	res, err := search.Section(ctx, store, search.SectionRequest{SectionID: "Slice_expressions"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Citation.URL != "https://go.dev/ref/spec#Slice_expressions" || !res.FulltextAvailable || res.IsTruncated {
		t.Errorf("citation = %+v", res)
	}
	if len(res.Children) != 2 || res.Children[0].SectionID != "Simple_slice_expressions" {
		t.Errorf("children = %+v", res.Children)
	}
	if strings.Contains(res.Text, "a[low : high : max]") {
		t.Error("own text includes a subsection")
	}
	whole, err := search.Section(ctx, store, search.SectionRequest{SectionID: "Slice_expressions", WithSubsections: true})
	if err != nil || !strings.Contains(whole.Text, "## Full slice expressions") || !strings.Contains(whole.Text, "a[low : high : max]") {
		t.Errorf("with subsections: %v\n%s", err, whole.Text)
	}
	_, err = search.Section(ctx, store, search.SectionRequest{SectionID: "Slice_expresions"})
	if apperr.CodeOf(err) != apperr.NotFound || !strings.Contains(err.Error(), "Slice_expressions") {
		t.Errorf("typo: %v", err)
	}
}

func BenchmarkSearch(b *testing.B) {
	store := goSpecStore(b)
	ctx := context.Background()
	for _, q := range []string{"slice expressions", "goroutine zebra", "x.(T)", "gorutine"} {
		b.Run(q, func(b *testing.B) {
			req := search.Request{Query: q, Snippet: snippet.Options{Mark: snippet.Markdown}}
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := search.Search(ctx, store, req); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			// The target is on the median, which one slow GC pause cannot move.
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
