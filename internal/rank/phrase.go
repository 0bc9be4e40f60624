package rank

import (
	"context"
	"math"

	"github.com/langspec/langspec/internal/rank/wordindex"
)

// phrases is the phrase channel over spec sections: the sections holding
// any of pairs ("object safety") as a phrase — the words next to each
// other, in that order, stemmed as the word index stems them — scored by
// the pairs each holds, each weighed by how rare it is in the section's own
// document (log(1 + sections / sections holding it)); ties in document
// order. Only the document's own statistics count, so its phrase ranking
// is its own.
func phrases(ctx context.Context, src SectionSource, pairs []Term, limit int) ([]Posting, error) {
	if len(pairs) == 0 || limit <= 0 {
		return nil, nil
	}
	layouts, err := src.Layouts(ctx)
	if err != nil {
		return nil, err
	}
	// Each document's sections holding a pair, pair by pair.
	byDoc := map[int64][]heldPhrase{}
	for _, p := range pairs {
		ords, err := src.Phrase(ctx, p)
		if err != nil {
			return nil, err
		}
		for doc, os := range ords {
			idf := math.Log(1 + float64(len(layouts[doc].IDs))/float64(len(os)))
			byDoc[doc] = append(byDoc[doc], heldPhrase{os, idf})
		}
	}
	return bestPhraseHits(byDoc, layouts, limit), nil
}

// heldPhrase is the sections of a document holding a phrase, as ascending
// ordinals, and what each adds to their score.
type heldPhrase struct {
	ords []int
	idf  float64
}

// bestPhraseHits returns the best limit sections of byDoc by the sum of
// the idfs of the phrases they hold (added in the phrases' order), then by
// row id. The lists are merged in ordinal order (row ids grow with it): a
// phrase in a hundred thousand sections costs one pass over their
// ordinals, and where a document has one phrase only its first limit, since
// every score is the same there and the lowest ids win.
func bestPhraseHits(byDoc map[int64][]heldPhrase, layouts map[int64]*wordindex.Snapshot, limit int) []Posting {
	top := wordindex.NewTop(limit)
	for doc, lists := range byDoc {
		ids := layouts[doc].IDs
		if len(lists) == 1 {
			for _, o := range lists[0].ords[:min(limit, len(lists[0].ords))] {
				top.Push(wordindex.Hit{ID: ids[o], Score: lists[0].idf})
			}
			continue
		}
		next := make([]int, len(lists))
		for {
			ord := -1
			for i, l := range lists {
				if next[i] < len(l.ords) && (ord < 0 || l.ords[next[i]] < ord) {
					ord = l.ords[next[i]]
				}
			}
			if ord < 0 {
				break
			}
			score := 0.0
			for i, l := range lists {
				if next[i] < len(l.ords) && l.ords[next[i]] == ord {
					score += l.idf
					next[i]++
				}
			}
			top.Push(wordindex.Hit{ID: ids[ord], Score: score})
		}
	}
	out := make([]Posting, 0, limit)
	for _, h := range top.Hits() {
		out = append(out, Posting{ID: h.ID, Score: h.Score})
	}
	return out
}
