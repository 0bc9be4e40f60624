package search_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/text/snippet"
)

func TestSearchChannels(t *testing.T) {
	store := search.GoSpecStore(t)
	tests := []struct {
		query     string
		matched   string // a channel the first hit must name
		firstID   string // the section that must rank first ("" = any)
		highlight string // must appear marked in the first snippet
	}{
		{"slice expressions", "title", "Slice_expressions", "**Slice** **expressions**"},
		{"slices", "words", "", "**slice"},                                         // stemmed
		{`"type assertion"`, "words", "Type_assertions", "**type** **assertion**"}, // phrase
		{"assert*", "words", "Type_assertions", "**assert"},                        // prefix
		{"what is a goroutine?", "words", "Go_statements", "**goroutine"},          // intent words dropped
		{"goroutine zebra", "words", "Go_statements", "**goroutine"},               // a word nowhere does not hide the rest
		{"x.(T)", "symbol", "Type_assertions", "**x.(T)**"},
		{"<-chan", "literal", "Channel_types", "**<-chan**"},
		{"s[i:j:k]", "symbol", "Full_slice_expressions", "**a[low : high : max]**"}, // same shape
		{"interface{}", "literal", "", "**interface{}**"},
		{"...", "symbol", "", ""},
		{"gorutine", "typo:goroutine", "Go_statements", "**goroutine**"},
		{"recieve operatr", "typo:receive", "Receive_operator", "**receive**"}, // every word misspelt
		{"&^", "symbol", "", ""},
		{"NOT", "words", "", "**not**"},
		{"c++", "", "", ""},
		{"go-sdk", "", "", ""},
		{"title:slice", "words", "", "**slice**"}, // a column filter is just words
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := search.Search(context.Background(), store, search.Request{Query: tt.query,
				Snippet: snippet.Options{Mark: snippet.Markdown}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 {
				t.Fatalf("no hits (channels %v)", res.Channels)
			}
			h := res.Hits[0]
			if tt.matched != "" && !slices.Contains(h.Matched, tt.matched) {
				t.Errorf("first hit %s matched %v, want %q among them", h.SectionID, h.Matched, tt.matched)
			}
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
			if h.Language != "go" || h.Version != "go1.26" || !strings.HasPrefix(h.URL, "https://go.dev/ref/spec#") || len(h.Matched) == 0 {
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

// TestSearchFusesChannels checks what the old first-strategy-wins chain
// could not do: a misspelt word among correct ones is corrected, and the
// corrected and literal channels rank beside the words.
func TestSearchFusesChannels(t *testing.T) {
	store := search.GoSpecStore(t)
	ctx := context.Background()
	res, err := search.Search(ctx, store, search.Request{Query: "method reciever type"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Corrections) != 1 || res.Corrections[0].Word != "reciever" || res.Corrections[0].To != "receiver" {
		t.Errorf("corrections = %+v, want reciever → receiver", res.Corrections)
	}
	top := ids(res.Hits, 5)
	if !slices.Contains(top, "Method_declarations") && !slices.Contains(top, "Method_sets") {
		t.Errorf("top 5 %v lack the method sections", top)
	}
	// Alternatives are fused: a phrasing the words alone miss brings its
	// section in.
	plain, err := search.Search(ctx, store, search.Request{Query: "shut a chan"})
	if err != nil {
		t.Fatal(err)
	}
	withAlso, err := search.Search(ctx, store, search.Request{Query: "shut a chan", Also: []string{"close channel"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(withAlso.Hits, 3); !slices.Contains(got, "Close") {
		t.Errorf("with also, top 3 = %v (without: %v), want Close", got, ids(plain.Hits, 3))
	}
	// Deterministic: the same request ranks the same way every time.
	again, err := search.Search(ctx, store, search.Request{Query: "method reciever type"})
	if err != nil || !slices.Equal(ids(again.Hits, 10), ids(res.Hits, 10)) {
		t.Errorf("second run ranked %v, first %v (%v)", ids(again.Hits, 10), ids(res.Hits, 10), err)
	}
}

func ids(hs []search.Citation, n int) []string {
	var out []string
	for i, h := range hs {
		if i == n {
			break
		}
		out = append(out, h.SectionID)
	}
	return out
}

func TestSearchNoMatchAndErrors(t *testing.T) {
	store := search.GoSpecStore(t)
	ctx := context.Background()
	res, err := search.Search(ctx, store, search.Request{Query: "スライス"})
	if err != nil || len(res.Hits) != 0 {
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
		{"five alternatives", search.Request{Query: "slice", Also: []string{"a", "b", "c", "d", "e"}}, apperr.InvalidArgument, "at most 4"},
		{"empty alternative", search.Request{Query: "slice", Also: []string{"  "}}, apperr.InvalidArgument, "also[0]: empty query"},
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
	store := search.GoSpecStore(t)
	// Every channel keeps to the path: words, and the heading channel
	// ("Method sets" is a title outside Types too).
	for _, q := range []string{"slice", "method sets", "Slice types"} {
		res, err := search.Search(context.Background(), store, search.Request{Query: q, PathPrefix: "types", Limit: 50})
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("%q: %+v, %v", q, res, err)
		}
		for _, h := range res.Hits {
			if !strings.HasPrefix(h.SectionPath, "Types") {
				t.Errorf("%q: hit outside Types: %s (%v)", q, h.SectionPath, h.Matched)
			}
		}
	}
	res, err := search.Search(context.Background(), store, search.Request{Query: "Method expressions", PathPrefix: "types", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if !strings.HasPrefix(h.SectionPath, "Types") {
			t.Errorf("a title outside the path came in: %s (%v)", h.SectionPath, h.Matched)
		}
	}
	res, err = search.Search(context.Background(), store, search.Request{Query: "slice", Limit: 3})
	if err != nil || len(res.Hits) != 3 {
		t.Errorf("limit 3 gave %d hits, %v", len(res.Hits), err)
	}
}

func TestSection(t *testing.T) {
	store := search.GoSpecStore(t)
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
	store := search.GoSpecStore(b)
	ctx := context.Background()
	for _, q := range []string{"slice expressions", "goroutine zebra", "x.(T)", "gorutine", "reciever methd"} {
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

// TestSearchHostileQueries: whatever is typed, the engine's channels (words,
// related, literal, shapes and the short-shape scan) answer without an
// error — only a query with nothing in it is invalid_argument — and the same
// query ranks the same way twice.
func TestSearchHostileQueries(t *testing.T) {
	store := search.GoSpecStore(t)
	ctx := context.Background()
	queries := []string{
		`''; DROP TABLE sections; --`, `title:slice`, `a OR b`, `NEAR(a b)`, `(x`, `"unbalanced`, `col:"x"*`,
		`^start`, `*`, `**`, `"`, `""`, `::`, `%`, `_`, `?`, `\`, `x\`, `'`, `&^`, `...`, `....`, `<-<-<-`,
		strings.Repeat("(", 500), strings.Repeat("x.(T) ", 30), `スライス式`, `保険金の支払手順`, `😀 slice`,
		"tab\there", "nul\x00byte", `what is it`, `how`, `i++`, `**kwargs`, `c"hello"`, `r#match`, `0x1p-2`,
		`s[i:j:k] "type assertion" assert*`, `ゴルーチン gorutine 1e9`,
	}
	for _, q := range queries {
		res, err := search.Search(ctx, store, search.Request{Query: q, Also: []string{q}})
		if strings.Trim(q, `"`) == "" && apperr.CodeOf(err) == apperr.InvalidArgument {
			continue // quotes around nothing are an empty query
		}
		if err != nil {
			t.Errorf("%q: %v", q, err)
			continue
		}
		again, err := search.Search(ctx, store, search.Request{Query: q, Also: []string{q}})
		if err != nil || !slices.Equal(ids(res.Hits, 10), ids(again.Hits, 10)) {
			t.Errorf("%q ranked %v, then %v (%v)", q, ids(res.Hits, 10), ids(again.Hits, 10), err)
		}
	}
}

// TestExactTitleRanksFirst: a query that is a heading's text, as people
// type it, ranks that section first — for every section of the Go spec
// whose title no other section shares.
func TestExactTitleRanksFirst(t *testing.T) {
	ctx := context.Background()
	store := search.GoSpecStore(t)
	_, rows, err := store.Outline(ctx, db.Scope{Language: "go"})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string][]string{}
	for _, r := range rows {
		byKey[rank.TitleKey(r.Title)] = append(byKey[rank.TitleKey(r.Title)], r.SectionID)
	}
	checked := 0
	for _, r := range rows {
		if len(byKey[rank.TitleKey(r.Title)]) != 1 || len([]rune(r.Title)) < 3 {
			continue
		}
		checked++
		res, err := search.Search(ctx, store, search.Request{Query: r.Title, Language: "go", Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].SectionID != r.SectionID {
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.SectionID)
			}
			t.Errorf("query %q: first %v, want %s", r.Title, got, r.SectionID)
		}
	}
	if checked < 100 {
		t.Fatalf("checked only %d titles", checked)
	}
}

// TestAlsoMatchingNothingChangesNothing: a phrasing no section holds adds
// no list, so the answer is the query's, hit for hit.
func TestAlsoMatchingNothingChangesNothing(t *testing.T) {
	ctx := context.Background()
	store := search.GoSpecStore(t)
	for _, q := range []string{"slice expressions", "how do I close a channel", "x.(T)"} {
		plain, err := search.Search(ctx, store, search.Request{Query: q, Language: "go"})
		if err != nil {
			t.Fatal(err)
		}
		with, err := search.Search(ctx, store, search.Request{Query: q, Also: []string{"zzqqxxv wwkkyy"}, Language: "go"})
		if err != nil {
			t.Fatal(err)
		}
		if len(with.Hits) != len(plain.Hits) {
			t.Fatalf("%q: %d hits with a phrasing matching nothing, %d without", q, len(with.Hits), len(plain.Hits))
		}
		for i := range plain.Hits {
			if with.Hits[i].SectionID != plain.Hits[i].SectionID || with.Hits[i].Score != plain.Hits[i].Score {
				t.Errorf("%q: hit %d %s (%.4f), without the phrasing %s (%.4f)", q, i, with.Hits[i].SectionID, with.Hits[i].Score, plain.Hits[i].SectionID, plain.Hits[i].Score)
			}
		}
	}
}
