package rank_test

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/rank/wordindex"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// The word channel's bm25 is worked out here from the store's postings, and
// FTS5's bm25() is what it must equal: these tests keep stores (internal/db)
// and ask SQLite itself for the reference.

// wordSample is the vocabulary the generated sections and queries draw
// from: common and rare words, words one stem apart ("type", "types",
// "typed"), accents (folded away), CJK, digits and code.
var wordSample = strings.Fields(`type types typed typing value values method methods receiver pointer
	interface set sets slice slices expression expressions channel goroutine select defer panic recover
	café cafe naïve Ångström 日本語 テキスト x86 int64 utf8 a[i:j] x.(T) map[string]int len cap
	the of and is in a to for with zzyzx quux frobnicate`)

// genSections makes n sections whose words follow a steep curve (the first
// words of wordSample in most sections, the last in few), with words in
// every field.
func genSections(r *rand.Rand, n int, tag string) []db.Section {
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
	out := make([]db.Section, n)
	for i := range out {
		out[i] = db.Section{SectionID: fmt.Sprintf("%s-%d", tag, i), Level: 2, Title: text(1 + r.IntN(4)),
			Path: text(r.IntN(6)), URL: "u", Text: text(r.IntN(120)), SourcePolicy: db.FullText, Anchors: text(r.IntN(3))}
	}
	return out
}

// goSpecSections cuts the Go spec as the toolchain ships it (HTML, markup
// and all) into sections at its headings: real text with the tokenizer's
// hard cases.
func goSpecSections(t *testing.T) []db.Section {
	t.Helper()
	root := runtime.GOROOT()
	if root == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			t.Fatalf("locating GOROOT: %v", err)
		}
		root = string(bytes.TrimSpace(out))
	}
	b, err := os.ReadFile(filepath.Join(root, "doc", "go_spec.html"))
	if err != nil {
		t.Fatalf("reading the Go spec: %v", err)
	}
	var out []db.Section
	for i, part := range strings.Split(string(b), "<h2") {
		title, body, _ := strings.Cut(part, "</h2>")
		out = append(out, db.Section{SectionID: fmt.Sprintf("go-%d", i), Level: 2, Title: title, Path: "The Go spec > " + title,
			URL: "u", Text: body, SourcePolicy: db.FullText})
	}
	return out
}

// store is a store on a file, which the test also reads with SQL of its
// own (FTS5's bm25, as the reference).
type store struct {
	*db.DB
	raw *sql.DB
}

func openStore(t *testing.T, docs ...doc) store {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	d, err := db.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	s := store{d, raw}
	for _, dc := range docs {
		s.publish(t, dc, dc.doc+"1")
	}
	return s
}

type doc struct {
	lang, doc string
	secs      []db.Section
}

func (s store) publish(t *testing.T, d doc, hash string) {
	t.Helper()
	snap := db.Snapshot{Language: d.lang, Doc: d.doc, DisplayName: d.doc, Version: "1", SourceURL: "test",
		FetchedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ContentHash: hash}
	if _, err := s.Publish(context.Background(), snap, d.secs); err != nil {
		t.Fatal(err)
	}
}

// scope resolves f.
func (s store) scope(t *testing.T, f db.Filter) *db.Scoped {
	t.Helper()
	sc, err := s.Scope(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// ranked is the word channel's ranking of words over f.
func (s store) ranked(t *testing.T, f db.Filter, words []ftsquery.Word, w [wordindex.Columns]float64, limit int) []rank.Posting {
	t.Helper()
	got, err := rank.RankWords(context.Background(), rank.New(rank.DefaultWeights()), s.scope(t, f), words, w, limit)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// fts5 is FTS5's own ranking of words over the whole store: bm25() with
// weights w, the best limit.
func (s store) fts5(t *testing.T, words []ftsquery.Word, w [wordindex.Columns]float64, limit int) []rank.Posting {
	t.Helper()
	rows, err := s.raw.Query(`SELECT rowid, -bm25(sections_fts, ?2, ?3, ?4, ?5) FROM sections_fts
		WHERE sections_fts MATCH ?1 ORDER BY bm25(sections_fts, ?2, ?3, ?4, ?5) LIMIT ?6`,
		ftsquery.AnyWord(words).String(), w[0], w[1], w[2], w[3], limit)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []rank.Posting
	for rows.Next() {
		var p rank.Posting
		if err := rows.Scan(&p.ID, &p.Score); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sectionIDs names the sections of ps, which compare across stores (row
// ids do not).
func (s store) sectionIDs(t *testing.T, f db.Filter, ps []rank.Posting) []string {
	t.Helper()
	ids := make([]int64, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	rows, err := s.scope(t, f).Sections(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = rows[p.ID].SectionID
	}
	return out
}

// defaultFields are DefaultWeights' field weights in column order.
func defaultFields() [wordindex.Columns]float64 {
	var w [wordindex.Columns]float64
	for i, f := range rank.SectionFields() {
		w[i] = rank.DefaultWeights().Fields[f]
	}
	return w
}

// TestWordPostingsRankAsFTS5 holds the engine's ranking of plain word
// lists to FTS5's bm25() of each document on its own, and to nothing else
// stored:
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
	r := rand.New(rand.NewPCG(1, 2))
	docs := []doc{{"go", "spec", goSpecSections(t)}, {"gen", "a", genSections(r, 1500, "a")}, {"gen", "b", genSections(r, 400, "b")}}
	all := openStore(t, docs...)
	alone := map[string]store{}
	for _, d := range docs {
		alone[d.lang+"/"+d.doc] = openStore(t, d)
	}
	check := func(t *testing.T) {
		compared := 0
		for i := range 200 {
			var words []ftsquery.Word
			for range 1 + r.IntN(5) {
				words = append(words, ftsquery.Word{Text: wordSample[r.IntN(len(wordSample))]})
			}
			w := defaultFields()
			if i%3 == 1 {
				w = [wordindex.Columns]float64{r.Float64() * 10, r.Float64() * 5, 1, float64(r.IntN(7))}
			}
			limit := []int{1, 10, 50, 500}[r.IntN(4)]
			if !plain(words) {
				continue // a code word of several tokens, a phrase: TestPhrasesRankedInGo
			}
			compared++
			var merged []rank.Posting
			for _, d := range docs {
				f := db.Filter{Scope: db.Scope{Language: d.lang, Doc: d.doc}}
				one := alone[d.lang+"/"+d.doc]
				got := one.ranked(t, f, words, w, limit)
				if msg := samePostings(got, one.fts5(t, words, w, limit)); msg != "" {
					t.Fatalf("%v, %s alone, weights %v, limit %d: %s", words, d.doc, w, limit, msg)
				}
				inAll := all.ranked(t, f, words, w, limit)
				if !sameScores(got, inAll) {
					t.Fatalf("%v, %s: scores %v alone, %v beside the others", words, d.doc, got, inAll)
				}
				if a, b := one.sectionIDs(t, f, got), all.sectionIDs(t, f, inAll); !sameAboveCut(got, a, b) {
					t.Fatalf("%v, %s: ranked %v alone, %v beside the others", words, d.doc, a, b)
				}
				merged = append(merged, inAll...)
			}
			// Every document at once: the three rankings merged by score.
			slices.SortStableFunc(merged, func(x, y rank.Posting) int { return cmp.Compare(y.Score, x.Score) })
			merged = merged[:min(limit, len(merged))]
			if msg := samePostings(all.ranked(t, db.Filter{}, words, w, limit), merged); msg != "" {
				t.Fatalf("%v over every document, limit %d: %s", words, limit, msg)
			}
		}
		if compared < 100 {
			t.Fatalf("only %d of 200 queries were plain words; the test compares too little", compared)
		}
	}
	t.Run("three documents", check)
	docs[1].secs = genSections(r, 900, "a")
	all.publish(t, docs[1], "a2") // replaces document a
	alone["gen/a"].publish(t, docs[1], "a2")
	var left int
	if err := all.raw.QueryRow(`SELECT count(*) FROM word_postings WHERE snapshot_id NOT IN (SELECT id FROM snapshots)`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("postings of the replaced snapshot: %d left, %v", left, err)
	}
	t.Run("after a replace", check)
}

// plain reports whether every word is one token and no prefix: the lists
// whose ranking equals bm25()'s.
func plain(words []ftsquery.Word) bool {
	for _, w := range words {
		if w.Prefix || len(tokenize.Tokenize(w.Text)) != 1 {
			return false
		}
	}
	return len(words) > 0
}

// sameAboveCut says whether two rankings with the same scores (sameScores)
// name the same sections wherever the score tells them apart from the last
// one kept (equal scores may be cut at the limit differently, and come in
// any order).
func sameAboveCut(ps []rank.Posting, a, b []string) bool {
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
func sameScores(a, b []rank.Posting) bool {
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
func samePostings(got, want []rank.Posting) string {
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

// matched is the sections FTS5 matches for words, all of them.
func (s store) matched(t *testing.T, words []ftsquery.Word) map[int64]bool {
	t.Helper()
	out := map[int64]bool{}
	for _, p := range s.fts5(t, words, defaultFields(), 1<<30) {
		out[p.ID] = true
	}
	return out
}

// TestPhrasesRankedInGo: a word of several tokens (a phrase, or code such
// as x.(T)) and a prefix, a phrase ending in one among them, are ranked
// here too, with their document's statistics: the sections answered are
// the ones FTS5's match finds, the best first by their own score, whatever
// else the store holds.
func TestPhrasesRankedInGo(t *testing.T) {
	secs := genSections(rand.New(rand.NewPCG(3, 4)), 300, "s")
	other := genSections(rand.New(rand.NewPCG(7, 8)), 500, "o")
	alone, both := openStore(t, doc{"l0", "d", secs}), openStore(t, doc{"l0", "d", secs}, doc{"l1", "d", other})
	f := db.Filter{Scope: db.Scope{Language: "l0"}}
	for _, words := range [][]ftsquery.Word{
		{{Text: "method receiver"}},
		{{Text: "value values"}, {Text: "type"}},
		{{Text: "x.(T)"}, {Text: "value"}},
		{{Text: "a[i:j]"}},
		{{Text: "meth", Prefix: true}},
		{{Text: "val", Prefix: true}, {Text: "type"}},
		{{Text: "method rec", Prefix: true}},
		{{Text: "type val", Prefix: true}, {Text: "pointer"}},
	} {
		got := alone.ranked(t, f, words, defaultFields(), 1000)
		gotIDs := map[int64]bool{}
		for _, p := range got {
			gotIDs[p.ID] = true
		}
		if want := alone.matched(t, words); len(want) == 0 || !maps.Equal(gotIDs, want) {
			t.Errorf("%v: Go ranks %d sections, FTS5 matches %d", words, len(gotIDs), len(want))
		}
		for i := 1; i < len(got); i++ {
			if got[i].Score > got[i-1].Score {
				t.Fatalf("%v: not best first at %d", words, i)
			}
		}
		if !sameScores(got, both.ranked(t, f, words, defaultFields(), 1000)) {
			t.Errorf("%v: scores change when another document is stored", words)
		}
	}
}

// TestPathFilterKeepsItsDocumentsStatistics: a scope under a path ranks
// its sections with the statistics of their whole documents, so each keeps
// the score it has without the filter, and no section outside the path
// comes in.
func TestPathFilterKeepsItsDocumentsStatistics(t *testing.T) {
	s := openStore(t, doc{"go", "spec", genSections(rand.New(rand.NewPCG(3, 4)), 400, "s")})
	words := []ftsquery.Word{{Text: "value"}, {Text: "pointer"}}
	whole := s.ranked(t, db.Filter{}, words, defaultFields(), 1000)
	for _, prefix := range []string{"type", "VALUE", "slice expressions", "zzz"} {
		f := db.Filter{PathPrefix: prefix}
		got := s.ranked(t, f, words, defaultFields(), 1000)
		rows, err := s.scope(t, db.Filter{}).Sections(context.Background(), idsOf(whole))
		if err != nil {
			t.Fatal(err)
		}
		var want []rank.Posting
		for _, p := range whole {
			if strings.HasPrefix(strings.ToLower(rows[p.ID].Path), strings.ToLower(prefix)) {
				want = append(want, p)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("under %q: %v, want the whole ranking's sections under it %v", prefix, got, want)
		}
		if prefix == "type" && len(got) == 0 {
			t.Errorf("under %q: no hit; the test compares nothing", prefix)
		}
		if limited := s.ranked(t, f, words, defaultFields(), 3); !slices.Equal(limited, want[:min(3, len(want))]) {
			t.Errorf("under %q, limit 3: %v, want %v", prefix, limited, want[:min(3, len(want))])
		}
	}
}

func idsOf(ps []rank.Posting) []int64 {
	out := make([]int64, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}
