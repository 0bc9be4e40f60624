package db

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/rank/wordindex"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/tokenize"
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
// FTS5's bm25() of each document on its own, and to nothing else stored:
//   - over a store that holds one document, the same sections with the
//     same scores in the same order as FTS5 (sections of equal score may be
//     cut at the limit differently);
//   - over a store that holds three, each document's ranking is the one it
//     has alone (by section id and score), and a scope of several documents
//     is their rankings merged by score.
//
// It runs again after a document is replaced, which changes that
// document's statistics and no other's.
func TestWordPostingsRankAsFTS5(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	open := func() *DB {
		store, err := Open(ctx, filepath.Join(t.TempDir(), "w.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		return store
	}
	type doc struct {
		lang, doc string
		secs      []Section
	}
	docs := []doc{{"go", "spec", goSpecSections(t)}, {"gen", "a", genSections(r, 1500, "a")}, {"gen", "b", genSections(r, 400, "b")}}
	all := open()
	alone := map[string]*DB{}
	publish := func(store *DB, d doc, hash string) {
		t.Helper()
		snap := Snapshot{Language: d.lang, Doc: d.doc, DisplayName: d.doc, Version: "1", SourceURL: "test",
			FetchedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ContentHash: hash}
		if _, err := store.Publish(ctx, snap, d.secs); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range docs {
		publish(all, d, d.doc+"1")
		alone[d.lang+"/"+d.doc] = open()
		publish(alone[d.lang+"/"+d.doc], d, d.doc+"1")
	}
	// ranked is a ranking as section ids and scores, which compare across
	// stores (row ids do not).
	ranked := func(store *DB, f Filter, e ftsquery.Expr, w string, limit int, fts bool) []Posting {
		t.Helper()
		sc, err := store.Scope(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var got []Posting
		if fts {
			got, err = sc.match(ctx, "sections_fts", w, e, limit)
		} else {
			var ok bool
			got, ok, err = sc.rankWords(ctx, e, w, limit)
			if !ok && err == nil {
				return nil
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	sectionIDs := func(store *DB, f Filter, ps []Posting) []string {
		sc, err := store.Scope(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, len(ps))
		for i, p := range ps {
			ids[i] = p.ID
		}
		rows, err := sc.Sections(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = rows[p.ID].SectionID
		}
		return out
	}
	check := func(t *testing.T) {
		compared := 0
		for i := range 200 {
			var words []ftsquery.Word
			for range 1 + r.IntN(5) {
				words = append(words, ftsquery.Word{Text: wordSample[r.IntN(len(wordSample))]})
			}
			var weights []float64
			if i%3 == 1 {
				weights = []float64{r.Float64() * 10, r.Float64() * 5, 1, float64(r.IntN(7))}
			}
			limit := []int{1, 10, 50, 500}[r.IntN(4)]
			e := ftsquery.AnyWord(words)
			w := bm25Weights(weights, len(WordColumns()), wordWeights)
			if _, plain := plainTerms(e); !plain {
				continue // a code word of several tokens: FTS5's (TestWordsFallsBackToFTS5)
			}
			compared++
			var merged []Posting
			for _, d := range docs {
				f := Filter{Scope: Scope{Language: d.lang, Doc: d.doc}}
				store := alone[d.lang+"/"+d.doc]
				got := ranked(store, f, e, w, limit, false)
				if msg := samePostings(got, ranked(store, f, e, w, limit, true)); msg != "" {
					t.Fatalf("%q, %s alone, weights %s, limit %d: %s", e, d.doc, w, limit, msg)
				}
				inAll := ranked(all, f, e, w, limit, false)
				if !sameScores(got, inAll) {
					t.Fatalf("%q, %s: scores %v alone, %v beside the others", e, d.doc, got, inAll)
				}
				if a, b := sectionIDs(store, f, got), sectionIDs(all, f, inAll); !sameAboveCut(got, a, b) {
					t.Fatalf("%q, %s: ranked %v alone, %v beside the others", e, d.doc, a, b)
				}
				merged = append(merged, inAll...)
			}
			// Every document at once: the three rankings merged by score.
			slices.SortStableFunc(merged, func(x, y Posting) int { return cmp.Compare(y.Score, x.Score) })
			merged = merged[:min(limit, len(merged))]
			if msg := samePostings(ranked(all, Filter{}, e, w, limit, false), merged); msg != "" {
				t.Fatalf("%q over every document, limit %d: %s", e, limit, msg)
			}
		}
		if compared < 100 {
			t.Fatalf("only %d of 200 queries were plain words; the test compares too little", compared)
		}
	}
	t.Run("three documents", check)
	docs[1].secs = genSections(r, 900, "a")
	publish(all, docs[1], "a2") // replaces document a
	publish(alone["gen/a"], docs[1], "a2")
	var left int
	if err := all.sql.QueryRowContext(ctx, `SELECT count(*) FROM word_postings WHERE snapshot_id NOT IN (SELECT id FROM snapshots)`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("postings of the replaced snapshot: %d left, %v", left, err)
	}
	t.Run("after a replace", check)
}

// sameAboveCut says whether two rankings with the same scores (sameScores)
// name the same sections wherever the score tells them apart from the last
// one kept (equal scores may be cut at the limit differently, and come in
// any order).
func sameAboveCut(ps []Posting, a, b []string) bool {
	if len(ps) == 0 {
		return true
	}
	last := ps[len(ps)-1].Score
	seen := map[string]int{}
	for i, p := range ps {
		if p.Score != last {
			seen[a[i]]++
			seen[b[i]]--
		}
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// sameScores says whether two rankings have the same scores, in order.
func sameScores(a, b []Posting) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Score != b[i].Score {
			return false
		}
	}
	return true
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
// phrase ending in a prefix and a path filter still answer, as FTS5 does.
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
		{"prefix of a phrase", Filter{}, []ftsquery.Word{{Text: "method rec", Prefix: true}}},
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

// TestPhrasesRankedInGo: a word of several tokens (a phrase, or code such
// as x.(T)) and a prefix are ranked in Go too, with their document's
// statistics: the sections answered are the ones FTS5's match finds, the
// best first by their own score, whatever else the store holds.
func TestPhrasesRankedInGo(t *testing.T) {
	ctx := context.Background()
	secs := genSections(rand.New(rand.NewPCG(3, 4)), 300, "s")
	other := genSections(rand.New(rand.NewPCG(7, 8)), 500, "o")
	open := func(docs ...[]Section) *DB {
		store, err := Open(ctx, filepath.Join(t.TempDir(), "w.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		for i, d := range docs {
			snap := Snapshot{Language: fmt.Sprint("l", i), Doc: "d", DisplayName: "d", Version: "1", SourceURL: "t",
				FetchedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ContentHash: fmt.Sprint("h", i)}
			if _, err := store.Publish(ctx, snap, d); err != nil {
				t.Fatal(err)
			}
		}
		return store
	}
	alone, both := open(secs), open(secs, other)
	f := Filter{Scope: Scope{Language: "l0"}}
	for _, words := range [][]ftsquery.Word{
		{{Text: "method receiver"}},
		{{Text: "value values"}, {Text: "type"}},
		{{Text: "x.(T)"}, {Text: "value"}},
		{{Text: "a[i:j]"}},
		{{Text: "meth", Prefix: true}},
		{{Text: "val", Prefix: true}, {Text: "type"}},
	} {
		e := ftsquery.AnyWord(words)
		scA, err := alone.Scope(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := scA.rankWords(ctx, e, wordWeights, 1000)
		if !ok || err != nil {
			t.Fatalf("rankWords(%q): ok %v, %v", e, ok, err)
		}
		all, err := scA.match(ctx, "sections_fts", wordWeights, e, 1000)
		if err != nil {
			t.Fatal(err)
		}
		gotIDs, wantIDs := map[int64]bool{}, map[int64]bool{}
		for _, p := range got {
			gotIDs[p.ID] = true
		}
		for _, p := range all {
			wantIDs[p.ID] = true
		}
		if !maps.Equal(gotIDs, wantIDs) {
			t.Errorf("%q: Go ranks %d sections, FTS5 matches %d", e, len(gotIDs), len(wantIDs))
		}
		for i := 1; i < len(got); i++ {
			if got[i].Score > got[i-1].Score {
				t.Fatalf("%q: not best first at %d", e, i)
			}
		}
		scB, err := both.Scope(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		inBoth, _, err := scB.rankWords(ctx, e, wordWeights, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if !sameScores(got, inBoth) {
			t.Errorf("%q: scores change when another document is stored", e)
		}
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

// plainTerms returns the index term of each of e's words when e is a plain
// list of words (ftsquery.AnyWord) whose every word is one token and no
// prefix: the expressions wordindex ranks. ok is false otherwise, and FTS5
// answers.
func plainTerms(e ftsquery.Expr) (terms []string, ok bool) {
	words := e.Words()
	if len(words) == 0 {
		return nil, false
	}
	for _, w := range words {
		toks := tokenize.Tokenize(w.Text)
		if w.Prefix || len(toks) != 1 {
			return nil, false
		}
		terms = append(terms, tokenize.Stem(toks[0].Folded))
	}
	return terms, true
}
