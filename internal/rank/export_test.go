package rank

import (
	"context"

	"github.com/langspec/langspec/internal/rank/wordindex"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// RankWords is the word channel alone over src, for the tests that hold
// it to FTS5's bm25() and to itself across stores.
func RankWords(ctx context.Context, e *Engine, src SectionSource, words []ftsquery.Word, weights [wordindex.Columns]float64, limit int) ([]Posting, error) {
	terms := make([]Term, len(words))
	for i, w := range words {
		terms[i] = NewTerm(w.Text, w.Prefix)
	}
	return e.rankWords(ctx, src, wordList(terms), weights, limit)
}

// The literal and symbol channels alone, for the tests that hold them to
// what the store's SQL ranked before the engine did.
var (
	LiteralChannel   = substrings
	ShapeChannel     = shapes
	ScanShapeChannel = scanShapes
)
