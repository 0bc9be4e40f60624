package rank

import "github.com/langspec/langspec/internal/rank/wordindex"

// TrigramBM25 scores a manual's rows for a query of trigrams exactly as the
// store's bm25() over its trigram index does with the manual weights
// (db.ManualScope.Literal given ManualWeights): manual_find's fuzzy heading
// lookup ranks in memory what the index would, to the last bit, reading
// only the rows that could be among the first.
type TrigramBM25 struct {
	idf     []float64 // by trigram
	avgdl   float64
	weights [3]float64 // title, text, file name: the trigram index's columns
}

// NewTrigramBM25 scores for the query's trigrams with the index's
// statistics: each trigram's idf as FTS5 works it out, and the index's rows
// and tokens.
func NewTrigramBM25(idf []float64, rows, tokens int64) *TrigramBM25 {
	t := &TrigramBM25{idf: make([]float64, len(idf)), avgdl: float64(tokens) / float64(rows)}
	for i, v := range idf {
		if v <= 0 {
			v = 1e-6 // FTS5 raises an idf it finds not positive (a trigram in most rows)
		}
		t.idf[i] = v
	}
	copy(t.weights[:], ManualWeights().ByColumn([]Field{FieldTitle, FieldBody, FieldFileName}))
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
