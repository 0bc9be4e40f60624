package search

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
		var terms []rank.Term
		for _, t := range q {
			terms = append(terms, rank.NewTerm(t.Text, t.Prefix))
		}
		m := newWordMatcher(terms, nil)
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
		one := citeAll(ranked, rows, opt, nil, 1<<30)
		shared := citeAll(ranked, rows, opt, &tokenize.Stems{}, 1)
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
			m := newWordMatcher([]rank.Term{rank.NewTerm("slice", false), rank.NewTerm("expressions", false)}, stems)
			for _, r := range rows {
				m.spans(r.Text)
			}
		}
	})
	b.Run("cite", func(b *testing.B) {
		b.SetBytes(int64(size))
		opt := snippet.Options{Chars: snippet.DefaultChars, Windows: snippet.DefaultWindows, Mark: snippet.Markdown}
		for b.Loop() {
			citeAll(ranked, rows, opt, stems, minBytesPerWorker)
		}
	})
}

// TestLabelsAreWhatTheTextShows holds the labels the engine reads from the
// word index (rank's explain.go) to the rule search applied to each cited
// text before: "title" when the highlighter finds a word of the query, its
// other phrasings or its corrections in the title or path, and "typo:W"
// for each correction W among the words it marks in the text, in the order
// it marks them. Every question of the Go gold set, with its phrasings,
// and misspellings and prefixes, over the Go spec.
func TestLabelsAreWhatTheTextShows(t *testing.T) {
	scoped := goSpecScope(t)
	ctx := context.Background()
	type gold struct {
		ID    string   `json:"case_id"`
		Query string   `json:"query"`
		Also  []string `json:"also"`
	}
	read := func(path string) []gold {
		b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "gold", path))
		if err != nil {
			t.Fatal(err)
		}
		var out []gold
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var g gold
			if err := json.Unmarshal([]byte(line), &g); err != nil {
				t.Fatal(err)
			}
			out = append(out, g)
		}
		return out
	}
	also := map[string][]string{}
	for _, g := range read("also/spec-go.jsonl") {
		also[g.ID] = g.Also
	}
	var requests [][]string // the query, then its phrasings
	for _, g := range read("spec-go.jsonl") {
		requests = append(requests, []string{g.Query}, append([]string{g.Query}, also[g.ID]...))
	}
	for _, q := range []string{"reciever methd", "gorutine", "recieve operatr", "method reciever type", "slic* expresions",
		"meth* reciever", "recei* channel", "conversiosn", "interfce typs", `"method set" reciever`} {
		requests = append(requests, []string{q}, []string{q, "receiver method"})
	}
	labelled := map[string]int{}
	for _, req := range requests {
		var qs []ftsquery.Query
		for _, s := range req {
			q, err := ftsquery.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			qs = append(qs, q)
		}
		ranked, err := rank.New(rank.DefaultWeights()).Search(ctx, scoped, qs[0], 20, qs[1:]...)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, len(ranked.Hits))
		for i, h := range ranked.Hits {
			ids[i] = h.ID
		}
		rows, err := scoped.Sections(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		// The rule as search applied it.
		words := newWordMatcher(ranked.Terms, nil)
		all := newHighlighter(ranked, nil).all
		fixed := map[string]string{}
		for _, c := range ranked.Corrections {
			fixed[tokenize.Stem(c.To)] = c.To
		}
		for _, h := range ranked.Hits {
			r := rows[h.ID]
			var want []string
			if len(words.spans(r.Title+"\n"+r.Path)) > 0 {
				want = append(want, rank.LabelTitle)
			}
			seen := map[string]bool{}
			for _, sp := range all.spans(r.Text) {
				if w := fixed[tokenize.Stem(tokenize.Fold(r.Text[sp.Start:sp.End]))]; w != "" && !seen[w] {
					seen[w] = true
					want = append(want, "typo:"+w)
				}
			}
			var got []string
			for _, m := range h.Matched {
				if m == rank.LabelTitle || strings.HasPrefix(m, "typo:") {
					got = append(got, m)
					labelled[m]++
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q, %s: labels %v, the text shows %v (matched %v)", req, r.SectionID, got, want, h.Matched)
			}
		}
	}
	t.Logf("labels: %v", labelled)
	if labelled[rank.LabelTitle] < 100 || len(labelled) < 5 {
		t.Errorf("labels seen %v: the queries do not exercise them", labelled)
	}
}
