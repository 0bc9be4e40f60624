package find

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/normalize"
)

func TestFoldTrigramText(t *testing.T) {
	tests := []struct {
		in, want string
		runes    int
	}{
		{"Failover", "failover", 8},
		{"ＳＬＡ ａｂ", "ｓｌａ ａｂ", 6}, // full-width capitals fold as FTS5 folds them
		{"火災保険の約款", "火災保険の約款", 7},
		{"RÉSUMÉ", "résumé", 6},
		{"Σ", "σ", 1},
		{"ᎠᎡ", "ᎠᎡ", 2},             // Cherokee capitals: SQLite's tables leave them, Go lowers them
		{"a\uffffb", "a\ufffdb", 3}, // read as U+FFFD
		{"a\x00b", "ab", 2},         // the tokenizer skips a NUL
		{"abc\xff", "abc\ufffd", 4}, // not UTF-8: read as U+FFFD
		{"", "", 0},
	}
	for _, tc := range tests {
		got, runes := foldTrigramText(tc.in)
		if got != tc.want || runes != tc.runes {
			t.Errorf("foldTrigramText(%q) = %q, %d; want %q, %d", tc.in, got, runes, tc.want, tc.runes)
		}
	}
}

// fuzzyWords make texts whose trigrams overlap a lot: English, Japanese,
// capitals (folded by the tokenizer), full-width letters, separators.
var fuzzyWords = []string{
	"failover", "fail", "over", "Failover", "FAIL-OVER", "database", "data", "base", "backup", "backups",
	"incident", "incidents", "ＳＬＡ", "ｓｌａ", "sla", "the", "a", "of", "-", "/", "(1)", "1.5",
	"火災", "保険", "火災保険", "地震", "保険金", "約款", "の", "を", "支払", "支払い", "対象外",
}

func fuzzyText(r *rand.Rand, words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 && r.IntN(3) > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(fuzzyWords[r.IntN(len(fuzzyWords))])
	}
	return b.String()
}

// fuzzyStore writes manuals of random nodes into a store, some nodes
// repeated in other files (rows of equal score), and returns it with each
// manual's snapshot.
func fuzzyStore(t *testing.T, r *rand.Rand, manuals []string, extraTitle string) (*db.DB, map[string]*manualSnapshot) {
	t.Helper()
	ctx := context.Background()
	store, err := db.Open(ctx, filepath.Join(t.TempDir(), "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	snaps := map[string]*manualSnapshot{}
	for mi, m := range manuals {
		var last []db.ManualNode
		for f := range 4 + r.IntN(4) {
			var nodes []db.ManualNode
			for k := range 1 + r.IntN(6) {
				var n db.ManualNode
				if len(last) > 0 && r.IntN(4) == 0 {
					n = last[r.IntN(len(last))] // the same text in another file
				} else {
					title := fuzzyText(r, 1+r.IntN(3))
					if mi == 0 && f == 0 && k == 0 && extraTitle != "" {
						title = extraTitle
					}
					body := fuzzyText(r, r.IntN(30))
					n = db.ManualNode{Kind: "heading", Level: 1, Title: title, Body: body,
						Norm: normalize.Normal(title + "\n" + body), Loose: normalize.Loose(title + "\n" + body)}
				}
				n.NodeID = fmt.Sprint(k)
				nodes = append(nodes, n)
			}
			last = nodes
			path := fmt.Sprintf("%s/%s-%d.md", fuzzyText(r, 1), fuzzyText(r, 1), f)
			if err := store.ManualRoot("/fuzz").Put(ctx, db.ManualFile{ManualID: m, Path: path, Hash: fmt.Sprint(f)}, nodes); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, m := range manuals {
		nodes, err := store.ManualRoot("/fuzz").Nodes(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		snaps[m] = &manualSnapshot{manual: m, nodes: nodes, traits: traitsOf(nodes)}
	}
	return store, snaps
}

// fuzzyTerms are terms to look up: pieces of the manuals' texts, with
// typos, and random runs of words.
func fuzzyTerms(r *rand.Rand, snaps map[string]*manualSnapshot) []string {
	var out []string
	for _, sn := range snaps {
		for range 30 {
			rs := []rune(sn.nodes[r.IntN(len(sn.nodes))].Norm)
			if len(rs) < 4 {
				continue
			}
			i := r.IntN(len(rs) - 3)
			piece := rs[i:min(len(rs), i+4+r.IntN(12))]
			if r.IntN(2) == 0 {
				piece[r.IntN(len(piece))] = 'x' // a typo
			}
			out = append(out, string(piece))
		}
	}
	for range 30 {
		out = append(out, fuzzyText(r, 1+r.IntN(3)))
	}
	return out
}

// storeTrigramBM25 is FTS5's own ranking of a manual's rows for the
// trigrams of term — bm25() over the store's trigram index with the
// manual weights — read with SQL from the database file: with the manual
// alone in it, its statistics are the manual's, and topTrigramRows must
// give the same rows in the same order with the same scores.
func storeTrigramBM25(t *testing.T, store *db.DB, term string, limit int) []rank.Posting {
	t.Helper()
	conn, err := sql.Open("sqlite", store.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if ftsquery.AnyTrigram(term).IsZero() {
		return nil // no trigram: nothing is found
	}
	w := rank.ManualWeights().Fields
	score := fmt.Sprintf("bm25(manual_nodes_trigram, %g, %g, %g)", w[rank.FieldTitle], w[rank.FieldBody], w[rank.FieldPath])
	return sqlPostings(t, conn, `SELECT rowid, -`+score+` FROM manual_nodes_trigram WHERE manual_nodes_trigram MATCH ?1 ORDER BY `+score+`, rowid LIMIT ?2`,
		ftsquery.AnyTrigram(term).String(), limit)
}

// sqlPostings runs query, whose rows are a row id and a score.
func sqlPostings(t *testing.T, conn *sql.DB, query string, args ...any) []rank.Posting {
	t.Helper()
	rows, err := conn.Query(query, args...)
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

// TestTopTrigramRowsIsFTS5sBM25 compares the fuzzy lookup with FTS5's bm25
// over random manuals, each alone in its store: the same rows, in the same
// order, with the same scores to the last bit.
func TestTopTrigramRowsIsFTS5sBM25(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 15))
		store, snaps := fuzzyStore(t, r, []string{"a"}, "")
		sn := snaps["a"]
		for _, term := range fuzzyTerms(r, snaps) {
			n := normalize.Normal(term)
			for _, limit := range []int{1, fuzzyPerTerm, 40} {
				got, err := topTrigramRows(ctx, store, sn, n, limit)
				if err != nil {
					t.Fatal(err)
				}
				if want := storeTrigramBM25(t, store, n, limit); !slices.Equal(got, want) {
					t.Errorf("seed %d, %q, limit %d:\n got %v\nwant %v", seed, n, limit, got, want)
				}
			}
		}
	}
}

// TestTopTrigramRowsKeepToTheirManual: a manual's fuzzy ranking is the
// same whether other manuals share the store or not — its statistics are
// its own.
func TestTopTrigramRowsKeepToTheirManual(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(3) {
		alone, aloneSnaps := fuzzyStore(t, rand.New(rand.NewPCG(seed, 15)), []string{"a"}, "")
		shared, sharedSnaps := fuzzyStore(t, rand.New(rand.NewPCG(seed, 15)), []string{"a", "b", "c"}, "")
		for _, term := range fuzzyTerms(rand.New(rand.NewPCG(seed, 16)), aloneSnaps) {
			n := normalize.Normal(term)
			want, err := topTrigramRows(ctx, alone, aloneSnaps["a"], n, 40)
			if err != nil {
				t.Fatal(err)
			}
			got, err := topTrigramRows(ctx, shared, sharedSnaps["a"], n, 40)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("seed %d, %q: beside other manuals %v, alone %v", seed, n, got, want)
			}
		}
	}
}

// TestTopTrigramRowsFoldAsTheIndex: a heading with capitals beyond ASCII
// is found by its trigrams as the store's index folds them — "RÉSUMÉ" in
// lower case, Cherokee and dotted İ as SQLite's tables fold them, which is
// not as Go lowers them — with FTS5's scores.
func TestTopTrigramRowsFoldAsTheIndex(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ title, term string }{
		{"RÉSUMÉ of the failover", "résumé"},
		{"ᎠᎡᎢᎣ failover", "ᎠᎡᎢ"},
		{"İSTANBUL failover", "istanbul"},
	} {
		store, snaps := fuzzyStore(t, rand.New(rand.NewPCG(7, 15)), []string{"a"}, tc.title)
		sn := snaps["a"]
		for _, term := range []string{tc.term, "failover"} {
			got, err := topTrigramRows(ctx, store, sn, normalize.Normal(term), 40)
			if err != nil {
				t.Fatal(err)
			}
			if want := storeTrigramBM25(t, store, normalize.Normal(term), 40); !slices.Equal(got, want) {
				t.Errorf("%q, %q: got %v, FTS5's bm25 %v", tc.title, term, got, want)
			}
		}
	}
	store, snaps := fuzzyStore(t, rand.New(rand.NewPCG(7, 15)), []string{"a"}, "RÉSUMÉ of the failover")
	sn := snaps["a"]
	got, err := topTrigramRows(ctx, store, sn, normalize.Normal("résumé"), fuzzyPerTerm)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !slices.ContainsFunc(sn.nodes, func(n db.ManualNode) bool { return n.RowID == got[0].ID && n.Title == "RÉSUMÉ of the failover" }) {
		t.Fatalf("résumé: got %v, want the heading's node first", got)
	}
}
