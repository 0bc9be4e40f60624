package db

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/normalize"
)

func TestSqliteVarint(t *testing.T) {
	tests := []struct {
		in   []byte
		want uint64
		n    int
	}{
		{[]byte{0x00}, 0, 1},
		{[]byte{0x7f, 0xff}, 127, 1},
		{[]byte{0x81, 0x00}, 128, 2},
		{[]byte{0xff, 0x7f}, 1<<14 - 1, 2},
		{[]byte{0x82, 0x80, 0x00}, 1 << 15, 3},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, math.MaxUint64, 9}, // the ninth byte is whole
		{[]byte{0x81}, 0, 0}, // ends inside
		{nil, 0, 0},
	}
	for _, tc := range tests {
		if got, n := sqliteVarint(tc.in); got != tc.want || n != tc.n {
			t.Errorf("sqliteVarint(% x) = %d, %d; want %d, %d", tc.in, got, n, tc.want, tc.n)
		}
	}
}

// manualTestStore holds manuals of a few files each, every text ASCII (so
// the trigram index folds them as strings.ToLower does).
func manualTestStore(t *testing.T, manuals ...string) *DB {
	t.Helper()
	return manualTestStoreOf(t, []string{testRoot}, manuals...)
}

// testRoot is the manuals folder of manualTestStore.
const testRoot = "/work/manuals"

// manualTestStoreOf is manualTestStore with the manuals in each of roots.
func manualTestStoreOf(t *testing.T, roots []string, manuals ...string) *DB {
	t.Helper()
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	words := []string{"Failover", "fail over", "database", "backup", "incident", "the", "Change Window", "freeze"}
	for ri, root := range roots {
		for mi, m := range manuals {
			mi += ri // another folder's manual of the same id holds other words
			for f := range 3 {
				var nodes []ManualNode
				for k := range 4 {
					title := words[(mi+f+k)%len(words)]
					body := strings.Repeat(words[(f*k+mi)%len(words)]+" ", k+1)
					nodes = append(nodes, ManualNode{NodeID: fmt.Sprint(k), Kind: "heading", Title: title, Body: body,
						Norm: normalize.Normal(title + "\n" + body), Loose: normalize.Loose(title + "\n" + body)})
				}
				if err := d.ManualRoot(root).Put(ctx, ManualFile{ManualID: m, Path: fmt.Sprintf("dir/%s-%d.md", words[f], f), Hash: "h"}, nodes); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return d
}

// TestManualTrigramStats checks the statistics against the rows as
// stored: the row count, the trigrams of every column, the rows holding
// each trigram.
func TestManualTrigramStats(t *testing.T) {
	ctx := context.Background()
	d := manualTestStore(t, "a", "b")
	var rows [][3]string
	for _, m := range []string{"a", "b"} {
		nodes, err := d.ManualRoot(testRoot).Nodes(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			rows = append(rows, [3]string{strings.ToLower(n.Title), n.Norm, n.FileName})
		}
	}
	grams := []string{"fai", "ail", "l o", "zzz", "dir", "the"}
	st, ok, err := d.ManualTrigramStats(ctx, grams)
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	tokens := int64(0)
	for _, r := range rows {
		for _, c := range r {
			tokens += int64(max(0, utf8.RuneCountInString(c)-2))
		}
	}
	if st.Rows != int64(len(rows)) || st.Tokens != tokens {
		t.Errorf("rows %d, tokens %d; want %d, %d", st.Rows, st.Tokens, len(rows), tokens)
	}
	for i, g := range grams {
		docs := int64(0)
		for _, r := range rows {
			if slices.ContainsFunc(r[:], func(c string) bool { return strings.Contains(c, g) }) {
				docs++
			}
		}
		idf := math.Log((float64(st.Rows-docs) + 0.5) / (float64(docs) + 0.5))
		if st.Docs[i] != docs || math.Abs(st.IDF[i]-idf) > 1e-12 {
			t.Errorf("%q: docs %d, idf %v; want %d, %v", g, st.Docs[i], st.IDF[i], docs, idf)
		}
	}
}

// TestManualScopeKeepsToItsManual compares the manual queries with the
// join they used to make on every row, with one manual indexed (where the
// join is skipped), with several, and with a second folder holding
// manuals of the same ids.
func TestManualScopeKeepsToItsManual(t *testing.T) {
	ctx := context.Background()
	joined := func(d *DB, table string, weights []float64, manual string, e ftsquery.Expr, limit int) []rank.Posting {
		score := fmt.Sprintf("bm25(%s, %g, %g, %g)", table, weights[0], weights[1], weights[2])
		rows, err := d.sql.QueryContext(ctx, `SELECT `+table+`.rowid, -`+score+`
			FROM `+table+` JOIN manual_nodes n ON n.id = `+table+`.rowid JOIN manual_files f ON f.id = n.file_id
			WHERE `+table+` MATCH ?1 AND f.root = ?4 AND f.manual_id = ?2
			ORDER BY `+score+` LIMIT ?3`, e.String(), manual, limit, testRoot)
		ps, err := d.collectPostings(rows, err)
		if err != nil {
			t.Fatal(err)
		}
		return ps
	}
	for _, tc := range []struct {
		roots   []string
		manuals []string
	}{{[]string{testRoot}, []string{"a"}}, {[]string{testRoot}, []string{"a", "b", "c"}}, {[]string{"/other", testRoot}, []string{"a"}}, {[]string{testRoot, "/z"}, []string{"a", "b"}}} {
		manuals := tc.manuals
		d := manualTestStoreOf(t, tc.roots, manuals...)
		for _, m := range append(manuals, "none") {
			sc := d.ManualRoot(testRoot).Scope(m)
			weights := rank.ManualWeights().ByColumn(sc.Columns())
			for _, q := range []string{"failover", "fail over database", "the freeze", "backup incident window"} {
				words := ftsquery.AnyWord([]ftsquery.Word{{Text: "fail"}, {Text: "database"}, {Text: q}})
				for _, limit := range []int{1, 3, 200} {
					got, err := sc.Words(ctx, words, weights, limit)
					if err != nil {
						t.Fatal(err)
					}
					if want := joined(d, "manual_nodes_fts", weights, m, words, limit); !slices.Equal(got, want) {
						t.Errorf("%v, %s: words %q, limit %d: got %v, want %v", manuals, m, q, limit, got, want)
					}
					tri := ftsquery.AnyTrigram(q)
					got, err = sc.Literal(ctx, tri, weights, limit)
					if err != nil {
						t.Fatal(err)
					}
					if want := joined(d, "manual_nodes_trigram", weights, m, tri, limit); !slices.Equal(got, want) {
						t.Errorf("%v, %s: trigrams of %q, limit %d: got %v, want %v", manuals, m, q, limit, got, want)
					}
				}
			}
		}
	}
}
