package search

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/snippet"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// referenceWordSpans is what wordMatcher must find, worked out the plain
// way: every token of the text folded and stemmed, each term compared with
// each token.
func referenceWordSpans(terms []ftsquery.Term, text string) []snippet.Span {
	type word struct {
		stem, folded string
		prefix       bool
	}
	var words []word
	for _, t := range terms {
		toks := tokenize.Tokenize(t.Text)
		for i, tok := range toks {
			words = append(words, word{tokenize.Stem(tok.Folded), tok.Folded, t.Prefix && i == len(toks)-1})
		}
	}
	toks := tokenize.Tokenize(text)
	var out []snippet.Span
	for wi, w := range words {
		for _, tok := range toks {
			stem := tokenize.Stem(tok.Folded)
			if stem == w.stem || w.prefix && (strings.HasPrefix(stem, w.stem) || strings.HasPrefix(tok.Folded, w.folded)) {
				out = append(out, snippet.Span{Start: tok.Start, End: tok.End, Term: wi})
			}
		}
	}
	return out
}

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

// goSpecScope is a scope over goSpecStore.
func goSpecScope(tb testing.TB) *db.Scoped {
	tb.Helper()
	scoped, err := goSpecStore(tb).Scope(context.Background(), db.Filter{})
	if err != nil {
		tb.Fatal(err)
	}
	return scoped
}

// rankedHits is the engine's ranking of query over scoped, with the rows of
// its hits.
func rankedHits(tb testing.TB, scoped *db.Scoped, query string, limit int) (rank.Result, map[int64]db.SectionRow) {
	tb.Helper()
	ctx := context.Background()
	q, err := ftsquery.Parse(query)
	if err != nil {
		tb.Fatal(err)
	}
	ranked, err := rank.New(rank.DefaultWeights()).Search(ctx, scoped, q, limit)
	if err != nil {
		tb.Fatal(err)
	}
	var ids []int64
	for _, h := range ranked.Hits {
		ids = append(ids, h.ID)
	}
	rows, err := scoped.Sections(ctx, ids)
	if err != nil {
		tb.Fatal(err)
	}
	return ranked, rows
}

// TestWordMatcherMatchesReference holds the highlighter's word matcher,
// which skips the tokens that cannot match without folding them, to the
// plain comparison of every token, over every section of the Go spec and
// texts with accents, capitals and Japanese.
func TestWordMatcherMatchesReference(t *testing.T) {
	scoped := goSpecScope(t)
	var ids []int64
	for id := range int64(3000) {
		ids = append(ids, id+1)
	}
	rows, err := scoped.Sections(context.Background(), ids)
	if err != nil || len(rows) < 100 {
		t.Fatalf("%d sections, %v", len(rows), err)
	}
	texts := []string{
		"Café CAFÉ cafe\u0301 Ångström ångströms", "日本語のテキスト、型の変換。", "Slices SLICED slicing re-slice",
		"ÉXPRESSIONS expressions Expression's", "", "   ", "x.(T) i++ <-chan",
	}
	for _, r := range rows {
		texts = append(texts, r.Text, r.Title+"\n"+r.Path)
	}
	queries := [][]ftsquery.Term{
		{{Text: "slice expressions"}},
		{{Text: "receiver"}, {Text: "methods"}, {Text: "method"}},
		{{Text: "gorout", Prefix: true}},
		{{Text: "conversions"}, {Text: "happy"}, {Text: "ability"}, {Text: "relational"}},
		{{Text: "café"}, {Text: "ÉXPRESSION"}, {Text: "ångström", Prefix: true}},
		{{Text: "型"}, {Text: "日本語のテキスト"}},
		{{Text: "x.(T)"}, {Text: "i"}, {Text: "chan"}},
		{{Text: "a"}, {Text: "e", Prefix: true}, {Text: "the"}},
	}
	found := 0
	for _, q := range queries {
		m := newWordMatcher(q, nil)
		for _, text := range texts {
			got, want := m.spans(text), referenceWordSpans(q, text)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("terms %v in %.80q:\n got  %v\n want %v", q, text, got, want)
			}
			found += len(want)
		}
	}
	if found < 5000 {
		t.Errorf("only %d matches in all: the texts do not exercise the matcher", found)
	}
}

// TestCiteAllSameOnEveryCore: citations made on one goroutine and shared
// among the cores are the same, in the same order.
func TestCiteAllSameOnEveryCore(t *testing.T) {
	scoped := goSpecScope(t)
	for _, query := range []string{"slice expressions", "reciever methd", "x.(T)", "type assertion panics"} {
		ranked, rows := rankedHits(t, scoped, query, 20)
		opt := snippet.Options{Chars: snippet.DefaultChars, Windows: snippet.DefaultWindows, Mark: snippet.Markdown}
		one := citeAll(ranked, nil, rows, opt, nil, 1<<30)
		shared := citeAll(ranked, nil, rows, opt, &tokenize.Stems{}, 1)
		if len(one) == 0 || !reflect.DeepEqual(one, shared) {
			t.Errorf("%q: %d citations on one goroutine differ from %d shared", query, len(one), len(shared))
		}
	}
}

// BenchmarkWordMatcher finds "slice expressions" in the ten sections a
// search for it cites: the highlighter's share of a search_spec call.
func BenchmarkWordMatcher(b *testing.B) {
	ranked, rows := rankedHits(b, goSpecScope(b), "slice expressions", 10)
	size := 0
	for _, r := range rows {
		size += len(r.Text)
	}
	b.SetBytes(int64(size))
	stems := &tokenize.Stems{} // as a server keeps it
	b.Run("spans", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			m := newWordMatcher([]ftsquery.Term{{Text: "slice"}, {Text: "expressions"}}, stems)
			for _, r := range rows {
				m.spans(r.Text)
			}
		}
	})
	b.Run("cite", func(b *testing.B) {
		b.SetBytes(int64(size))
		opt := snippet.Options{Chars: snippet.DefaultChars, Windows: snippet.DefaultWindows, Mark: snippet.Markdown}
		for b.Loop() {
			citeAll(ranked, nil, rows, opt, stems, minBytesPerWorker)
		}
	})
}
