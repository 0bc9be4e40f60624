package db

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/db/wordindex"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// wordSample is the vocabulary the generated sections and queries draw
// from: common and rare words, words one stem apart ("type", "types",
// "typed"), accents (folded away), CJK, digits and code.
var wordSample = strings.Fields(`type types typed typing value values method methods receiver pointer
	interface set sets slice slices expression expressions channel goroutine select defer panic recover
	café cafe naïve Ångström 日本語 テキスト x86 int64 utf8 a[i:j] x.(T) map[string]int len cap
	the of and is in a to for with zzyzx quux frobnicate`)

// genSections makes n sections whose words follow a steep curve (the first
// words of wordSample in most sections, the last in few), with words in
// every column.
func genSections(r *rand.Rand, n int, tag string) []Section {
	word := func() string {
		i := int(math.Floor(math.Pow(r.Float64(), 3) * float64(len(wordSample))))
		return wordSample[i]
	}
	text := func(words int) string {
		parts := make([]string, words)
		for i := range parts {
			parts[i] = word()
		}
		return strings.Join(parts, " ")
	}
	out := make([]Section, n)
	for i := range out {
		out[i] = Section{SectionID: fmt.Sprintf("%s-%d", tag, i), Level: 2, Title: text(1 + r.IntN(4)),
			Path: text(r.IntN(6)), URL: "u", Text: text(r.IntN(120)), SourcePolicy: FullText, Anchors: text(r.IntN(3))}
	}
	return out
}

// goSpecSections cuts the Go spec (HTML as it ships, markup and all) into
// sections at its headings: real text with the tokenizer's hard cases.
func goSpecSections(t *testing.T) []Section {
	t.Helper()
	var out []Section
	for i, part := range strings.Split(GoSpecHTML(t), "<h2") {
		title, body, _ := strings.Cut(part, "</h2>")
		out = append(out, Section{SectionID: fmt.Sprintf("go-%d", i), Level: 2, Title: title, Path: "The Go spec > " + title,
			URL: "u", Text: body, SourcePolicy: FullText})
	}
	return out
}

// TestWordPostingsRankAsFTS5 holds the Go ranking of plain word lists to
// FTS5's bm25() on the same store: for random queries, weights and scopes,
// the same sections with the same scores in the same order (sections of
// equal score may be cut at the limit differently). It runs again after a
// snapshot is replaced, which changes the whole table's statistics.
func TestWordPostingsRankAsFTS5(t *testing.T) {
	ctx := context.Background()
	store, err := Open(ctx, filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	r := rand.New(rand.NewPCG(1, 2))
	publish := func(lang, doc, version, hash string, secs []Section) {
		t.Helper()
		snap := Snapshot{Language: lang, Doc: doc, DisplayName: doc, Version: version, SourceURL: "test",
			FetchedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ContentHash: hash}
		if _, err := store.Publish(ctx, snap, secs); err != nil {
			t.Fatal(err)
		}
	}
	publish("go", "spec", "go1.26", "g", goSpecSections(t))
	publish("gen", "a", "1", "a1", genSections(r, 1500, "a"))
	publish("gen", "b", "1", "b1", genSections(r, 400, "b"))

	scopes := []Filter{
		{Scope: Scope{Language: "go"}},
		{Scope: Scope{Language: "gen", Doc: "a"}},
		{Scope: Scope{Language: "gen"}}, // two snapshots
		{},                              // everything
	}
	check := func(t *testing.T) {
		compared := 0
		for i := range 200 {
			f := scopes[i%len(scopes)]
			var words []ftsquery.Word
			for range 1 + r.IntN(5) {
				words = append(words, ftsquery.Word{Text: wordSample[r.IntN(len(wordSample))]})
			}
			var weights []float64
			if i%3 == 1 {
				weights = []float64{r.Float64() * 10, r.Float64() * 5, 1, float64(r.IntN(7))}
			}
			limit := []int{1, 10, 50, 500}[r.IntN(4)]
			sc, err := store.Scope(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			e := ftsquery.AnyWord(words)
			w := bm25Weights(weights, len(WordColumns()), wordWeights)
			got, ok, err := sc.rankWords(ctx, e, w, limit)
			if err != nil {
				t.Fatalf("%q: rankWords: %v", e, err)
			}
			if _, plain := plainTerms(e); ok != plain {
				t.Fatalf("%q: rankWords answered %v; a plain word list is %v", e, ok, plain)
			}
			if !ok {
				continue // a code word of several tokens: FTS5's (TestWordsFallsBackToFTS5)
			}
			compared++
			want, err := sc.match(ctx, "sections_fts", w, e, limit)
			if err != nil {
				t.Fatal(err)
			}
			if msg := samePostings(got, want); msg != "" {
				t.Fatalf("%q over %+v, weights %s, limit %d: %s", e, f.Scope, w, limit, msg)
			}
		}
		if compared < 100 {
			t.Fatalf("only %d of 200 queries were plain words; the test compares too little", compared)
		}
	}
	t.Run("three snapshots", check)
	publish("gen", "a", "1", "a2", genSections(r, 900, "a")) // replaces snapshot a
	var left int
	if err := store.sql.QueryRowContext(ctx, `SELECT count(*) FROM word_postings WHERE snapshot_id NOT IN (SELECT id FROM snapshots)`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("postings of the replaced snapshot: %d left, %v", left, err)
	}
	t.Run("after a replace", check)
}

// samePostings compares a ranking with FTS5's: equal lengths and scores
// (to the last bit), and the same sections wherever the score tells them
// apart from the last one kept.
func samePostings(got, want []Posting) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d hits, FTS5 %d", len(got), len(want))
	}
	if len(got) == 0 {
		return ""
	}
	last := want[len(want)-1].Score
	gotIDs, wantIDs := map[int64]bool{}, map[int64]bool{}
	for i := range got {
		if got[i].Score != want[i].Score {
			return fmt.Sprintf("hit %d: score %.17g, FTS5 %.17g", i, got[i].Score, want[i].Score)
		}
		if got[i].Score != last {
			gotIDs[got[i].ID] = true
		}
		if want[i].Score != last {
			wantIDs[want[i].ID] = true
		}
	}
	for id := range wantIDs {
		if !gotIDs[id] {
			return fmt.Sprintf("section %d missing (FTS5 ranks it above the cut)", id)
		}
	}
	return ""
}

// TestWordsFallsBackToFTS5 checks what the Go ranking leaves to FTS5: a
// prefix, a word of several tokens (a phrase) and a path filter still
// answer, as FTS5 does.
func TestWordsFallsBackToFTS5(t *testing.T) {
	ctx := context.Background()
	store, err := Open(ctx, filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	snap := Snapshot{Language: "go", Doc: "spec", DisplayName: "Go", Version: "1", SourceURL: "t",
		FetchedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ContentHash: "h"}
	if _, err := store.Publish(ctx, snap, genSections(rand.New(rand.NewPCG(3, 4)), 200, "s")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		filter Filter
		words  []ftsquery.Word
	}{
		{"prefix", Filter{}, []ftsquery.Word{{Text: "meth", Prefix: true}}},
		{"phrase", Filter{}, []ftsquery.Word{{Text: "pointer receiver"}}},
		{"code of two tokens", Filter{}, []ftsquery.Word{{Text: "x.(T)"}, {Text: "value"}}},
		{"path filter", Filter{PathPrefix: "type"}, []ftsquery.Word{{Text: "value"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := store.Scope(ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			e := ftsquery.AnyWord(tc.words)
			if _, ok, err := sc.rankWords(ctx, e, wordWeights, 10); ok || err != nil {
				t.Fatalf("rankWords took %q (ok %v, %v); FTS5 should", e, ok, err)
			}
			got, err := sc.Words(ctx, e, nil, 10)
			if err != nil || len(got) == 0 {
				t.Fatalf("Words(%q) = %v, %v; want FTS5's hits", e, got, err)
			}
		})
	}
}

// TestUpgradeFillsSkips opens a store whose posting lists were written
// before migration 0007: the migration adds the skips of every long list,
// the same bytes an ingest writes, and leaves short lists without.
func TestUpgradeFillsSkips(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	store, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	snap := Snapshot{Language: "gen", Doc: "a", DisplayName: "a", Version: "1", SourceURL: "test",
		FetchedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ContentHash: "a1"}
	if _, err := store.Publish(ctx, snap, genSections(rand.New(rand.NewPCG(5, 6)), 3000, "a")); err != nil {
		t.Fatal(err)
	}
	skipsByTerm := func(store *DB) map[string]string {
		t.Helper()
		rows, err := store.sql.QueryContext(ctx, `SELECT term, df, coalesce(hex(skips), '') FROM word_postings`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var term, skips string
			var df int
			if err := rows.Scan(&term, &df, &skips); err != nil {
				t.Fatal(err)
			}
			if (skips != "") != (df > wordindex.SkipEvery) {
				t.Errorf("%q in %d sections has skips %q", term, df, skips)
			}
			out[term] = skips
		}
		return out
	}
	written := skipsByTerm(store)
	if written["type"] == "" {
		t.Fatal("the commonest word has no skips; the test needs a list longer than SkipEvery")
	}
	for _, q := range []string{
		`ALTER TABLE word_postings DROP COLUMN skips`,
		`DELETE FROM schema_migrations WHERE name = '0007_word_skips.sql'`,
	} {
		if _, err := store.sql.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()

	store, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if filled := skipsByTerm(store); !maps.Equal(filled, written) {
		t.Errorf("skips after the migration differ from those the ingest wrote")
	}
}
