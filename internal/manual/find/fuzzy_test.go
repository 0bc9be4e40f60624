package find

import (
	"context"
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
		ok       bool
	}{
		{"Failover", "failover", 8, true},
		{"ＳＬＡ ａｂ", "ｓｌａ ａｂ", 6, true}, // full-width capitals fold as FTS5 folds them
		{"火災保険の約款", "火災保険の約款", 7, true},
		{"résumé", "", 0, false}, // é has case: not mirrored
		{"Σ", "", 0, false},
		{"a\x00b", "", 0, false},   // the tokenizer skips a NUL
		{"a\uffffb", "", 0, false}, // read as U+FFFD
		{"abc\xff", "", 0, false},  // not UTF-8
		{"", "", 0, true},
	}
	for _, tc := range tests {
		got, runes, ok := foldTrigramText(tc.in)
		if ok != tc.ok || ok && (got != tc.want || runes != tc.runes) {
			t.Errorf("foldTrigramText(%q) = %q, %d, %v; want %q, %d, %v", tc.in, got, runes, ok, tc.want, tc.runes, tc.ok)
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

// TestTopTrigramRowsIsTheStore compares the fuzzy lookup from a snapshot
// with the store's ranking it stands for, over random manuals: the same
// rows, in the same order, with the same scores to the last bit.
func TestTopTrigramRowsIsTheStore(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 15))
		store, snaps := fuzzyStore(t, r, []string{"a", "b", "c"}, "")
		for _, term := range fuzzyTerms(r, snaps) {
			n := normalize.Normal(term)
			for m, sn := range snaps {
				for _, limit := range []int{1, fuzzyPerTerm, 40} {
					scope := store.ManualRoot("/fuzz").Scope(m)
					want, err := scope.Literal(ctx, ftsquery.AnyTrigram(n), rank.ManualWeights().ByColumn(scope.Columns()), limit)
					if err != nil {
						t.Fatal(err)
					}
					got, ok, err := topTrigramRows(ctx, store, sn, n, limit)
					if err != nil || !ok {
						t.Fatalf("seed %d, %q in %s: ok %v, err %v", seed, n, m, ok, err)
					}
					if !slices.Equal(got, want) {
						t.Errorf("seed %d, %q in %s, limit %d:\n got %v\nwant %v", seed, n, m, limit, got, want)
					}
				}
			}
		}
	}
}

// TestFuzzyHitsFallsBackToTheStore: a manual with a heading the mirror
// cannot fold as FTS5 would is ranked by the store.
func TestFuzzyHitsFallsBackToTheStore(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 15))
	store, snaps := fuzzyStore(t, r, []string{"a", "b"}, "Résumé of the failover")
	s := &stageRun{f: &Finder{Index: &Index{store: store, manuals: store.ManualRoot("/fuzz")}}}
	sn := snaps["a"]
	if sn.trigramRows().ok {
		t.Fatal("a heading with É was mirrored")
	}
	for _, term := range []string{"failover", "resume of", "保険金支払"} {
		n := normalize.Normal(term)
		if _, ok, _ := topTrigramRows(ctx, store, sn, n, fuzzyPerTerm); ok {
			t.Errorf("%q: mirrored", n)
		}
		got, err := s.fuzzyHits(ctx, sn, n, fuzzyPerTerm)
		scope := store.ManualRoot("/fuzz").Scope("a")
		want, err2 := scope.Literal(ctx, ftsquery.AnyTrigram(n), rank.ManualWeights().ByColumn(scope.Columns()), fuzzyPerTerm)
		if err != nil || err2 != nil || !slices.Equal(got, want) {
			t.Errorf("%q: got %v (%v), want %v (%v)", n, got, err, want, err2)
		}
	}
}
