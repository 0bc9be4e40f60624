package rank

import (
	"cmp"

	"github.com/langspec/langspec/internal/rank/wordindex"
)

// TrigramBM25 scores a manual's rows for a query of trigrams by bm25 over
// their trigrams — FTS5's bm25() step for step, with the manual's own
// statistics and the manual weights (ManualWeights: title, normal text,
// file name as the path field) — for manual_find's fuzzy heading lookup,
// which reads only the rows that could be among the first.
type TrigramBM25 struct {
	idf     []float64 // by trigram
	avgdl   float64
	weights [3]float64 // title, text, file name: the trigram index's columns
}

// NewTrigramBM25 scores for the query's trigrams with a manual's
// statistics: its rows, their trigrams in all, and how many rows hold each
// of the query's trigrams (held, in query order), from which each
// trigram's idf is worked out as FTS5 works it out (wordindex.IDF).
func NewTrigramBM25(held []int64, rows, tokens int64) *TrigramBM25 {
	t := &TrigramBM25{idf: make([]float64, len(held)), avgdl: float64(tokens) / float64(rows)}
	for i, n := range held {
		t.idf[i] = wordindex.IDF(rows, n)
	}
	w := ManualWeights().Fields
	for c, f := range [3]Field{FieldTitle, FieldBody, FieldPath} {
		t.weights[c] = cmp.Or(w[f], 1)
	}
	return t
}

// IDF is trigram i's idf as the score takes it.
func (t *TrigramBM25) IDF(i int) float64 { return t.idf[i] }

// Term is what trigram i adds to the score of a row whose title, text and
// file name hold it counts times, the row having size tokens in all.
func (t *TrigramBM25) Term(i int, counts [3]int, size int32) float64 {
	// Whole weights and counts: the sum is exact in any order.
	f := t.weights[0]*float64(counts[0]) + t.weights[1]*float64(counts[1]) + t.weights[2]*float64(counts[2])
	return wordindex.TermScore(t.idf[i], f, wordindex.LengthNorm(float64(size), t.avgdl))
}

// Max is the most trigram i adds to any row's score, however often the row
// holds it.
func (t *TrigramBM25) Max(i int) float64 { return wordindex.MaxTermScore(t.idf[i]) }

// Below reports whether a row whose score is at most bound cannot reach
// score: a margin stands for the rounding of sums made in another order,
// far below it.
func Below(bound, score float64) bool { return bound*(1+1e-9) < score }
