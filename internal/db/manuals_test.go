package db

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/text/normalize"
)

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

// TestManualTrigramRows: the rows the trigram index lists for a trigram
// are those holding it in their title, normal text or file name (every
// manual's, of every folder), by id.
func TestManualTrigramRows(t *testing.T) {
	ctx := context.Background()
	d := manualTestStoreOf(t, []string{testRoot, "/other"}, "a", "b")
	type row struct {
		id   int64
		cols [3]string
	}
	var rows []row
	for _, root := range []string{testRoot, "/other"} {
		for _, m := range []string{"a", "b"} {
			nodes, err := d.ManualRoot(root).Nodes(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range nodes {
				rows = append(rows, row{n.RowID, [3]string{strings.ToLower(n.Title), n.Norm, strings.ToLower(n.FileName)}})
			}
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return int(a.id - b.id) })
	for _, g := range []string{"fai", "ail", "l o", "zzz", "dir", "the"} {
		var want []int64
		for _, r := range rows {
			if slices.ContainsFunc(r.cols[:], func(c string) bool { return strings.Contains(c, g) }) {
				want = append(want, r.id)
			}
		}
		got, err := d.ManualTrigramRows(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", g, got, want)
		}
	}
}
