package find

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// TestManualWordsRankAsFTS5: a manual's word channel, worked out by the
// engine from the postings of its snapshot (rank.MemorySource), gives the
// rows, order and scores FTS5's bm25() gives over a word index of the same
// manual alone — the index the store kept for manuals before — with the
// manual weights.
func TestManualWordsRankAsFTS5(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 21))
		store, snaps := fuzzyStore(t, r, []string{"a"}, "")
		sn := snaps["a"]
		conn, err := sql.Open("sqlite", store.Path())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.Exec(`CREATE VIRTUAL TABLE words USING fts5 (title, body, file_name, tokenize = 'porter unicode61 remove_diacritics 2')`); err != nil {
			t.Fatal(err)
		}
		for _, n := range sn.nodes {
			if _, err := conn.Exec(`INSERT INTO words (rowid, title, body, file_name) VALUES (?, ?, ?, ?)`, n.RowID, n.Title, n.Body, n.FileName); err != nil {
				t.Fatal(err)
			}
		}
		src, err := sn.source()
		if err != nil {
			t.Fatal(err)
		}
		w := rank.ManualWeights().Fields
		score := fmt.Sprintf("bm25(words, %g, %g, %g)", w[rank.FieldTitle], w[rank.FieldBody], w[rank.FieldPath])
		for _, query := range []string{"failover", "fail over database", "保険金 支払", "data base backups", "incident sla", "the of a"} {
			var words []ftsquery.Word
			var terms []rank.Term
			for _, f := range strings.Fields(query) {
				words = append(words, ftsquery.Word{Text: f})
				terms = append(terms, rank.NewTerm(f, false))
			}
			want := sqlPostings(t, conn, `SELECT rowid, -`+score+` FROM words WHERE words MATCH ?1 ORDER BY `+score+`, rowid`, ftsquery.AnyWord(words).String())
			got, err := rank.New(rank.ManualWeights()).Words(ctx, src, terms, 1000)
			if err != nil {
				t.Fatal(err)
			}
			byScore := func(a, b rank.Posting) int {
				return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
			}
			slices.SortFunc(got, byScore)
			slices.SortFunc(want, byScore)
			if !slices.Equal(got, want) {
				t.Errorf("seed %d, %q:\n got %v\nwant %v", seed, query, got, want)
			}
		}
	}
}

// TestBaselineIsPlainBM25: `langspec eval manual-find --mode bm25` measures
// against plain BM25, so its candidates come in the order FTS5's bm25()
// gives the query's words over the same manual alone (best first, then by
// row), and nothing the stages would see of a section — a term held
// elsewhere in its text, its heading — moves one.
func TestBaselineIsPlainBM25(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	copyTree(t, filepath.Join(fixturesDir, "ops-handbook"), filepath.Join(dir, "ops-handbook"))
	f := newFinder(t, dir)
	sn, err := f.Index.snapshot(ctx, "ops-handbook")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "words.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec(`CREATE VIRTUAL TABLE words USING fts5 (title, body, file_name, tokenize = 'porter unicode61 remove_diacritics 2')`); err != nil {
		t.Fatal(err)
	}
	rowOf := map[string]int64{}
	for _, n := range sn.nodes {
		rowOf[n.Path+"#"+n.NodeID] = n.RowID
		if _, err := conn.Exec(`INSERT INTO words (rowid, title, body, file_name) VALUES (?, ?, ?, ?)`, n.RowID, n.Title, n.Body, n.FileName); err != nil {
			t.Fatal(err)
		}
	}
	w := rank.ManualWeights().Fields
	score := fmt.Sprintf("bm25(words, %g, %g, %g)", w[rank.FieldTitle], w[rank.FieldBody], w[rank.FieldPath])
	for _, query := range []string{"database failover", "backup restore drill", "incident severity escalation", "change freeze exceptions"} {
		sum, err := f.Find(ctx, Request{ManualID: "ops-handbook", Query: query, Baseline: BaselineBM25})
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for off := 0; ; {
			p, err := f.Hits(ctx, HitsRequest{TraceID: sum.TraceID, Kind: KindCandidates, Offset: off, Limit: MaxHitsLimit})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range p.Candidates {
				got = append(got, rowOf[c.Path+"#"+c.NodeID])
			}
			if off = p.NextOffset; off == 0 {
				break
			}
		}
		var words []ftsquery.Word
		for _, f := range strings.Fields(query) {
			words = append(words, ftsquery.Word{Text: f})
		}
		var want []int64
		for _, p := range sqlPostings(t, conn, `SELECT rowid, -`+score+` FROM words WHERE words MATCH ?1 ORDER BY `+score+`, rowid`, ftsquery.AnyWord(words).String()) {
			want = append(want, p.ID)
		}
		want = want[:min(len(want), DefaultMaxCandidates)]
		if len(got) < 5 || !slices.Equal(got, want) {
			t.Errorf("%q: baseline rows\n %v\nFTS5 bm25 rows\n %v", query, got, want)
		}
	}
}
