package rank

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/langspec/langspec/internal/rank/wordindex"
)

// TestBestPhraseHitsIsTheSortedSums holds bestPhraseHits to what the
// phrase channel did before it: every section's idfs summed in phrase
// order into a map, all of them sorted by score and row id, the first
// limit kept. Random snapshots of one to three phrases, with ties.
func TestBestPhraseHitsIsTheSortedSums(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 1))
	for range 500 {
		layouts := map[int64]*wordindex.Snapshot{}
		bySnap := map[int64][]heldPhrase{}
		nextID := int64(1)
		for snapID := range int64(1 + r.IntN(3)) {
			snap := &wordindex.Snapshot{}
			for range 1 + r.IntN(300) {
				nextID += 1 + int64(r.IntN(3))
				snap.IDs = append(snap.IDs, nextID)
			}
			layouts[snapID] = snap
			for range 1 + r.IntN(3) {
				var ords []int
				for o := range snap.IDs {
					if r.IntN(3) == 0 {
						ords = append(ords, o)
					}
				}
				if len(ords) > 0 {
					// Few distinct idfs, so that scores tie.
					bySnap[snapID] = append(bySnap[snapID], heldPhrase{ords, []float64{0.5, 1.25, 3}[r.IntN(3)]})
				}
			}
		}
		limit := 1 + r.IntN(60)

		score := map[int64]float64{}
		for snapID, lists := range bySnap {
			for _, l := range lists {
				for _, o := range l.ords {
					score[layouts[snapID].IDs[o]] += l.idf
				}
			}
		}
		want := []Posting{}
		for id, x := range score {
			want = append(want, Posting{ID: id, Score: x})
		}
		slices.SortFunc(want, func(a, b Posting) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
		want = want[:min(limit, len(want))]
		if got := bestPhraseHits(bySnap, layouts, limit); !reflect.DeepEqual(got, want) {
			t.Fatalf("limit %d:\n got %v\nwant %v", limit, got, want)
		}
	}
}
