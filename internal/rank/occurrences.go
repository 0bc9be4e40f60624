package rank

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/rank/wordindex"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// substrings is the literal channel: the sections holding any of needles
// as a substring of their title, path or text, case aside, scored by where
// the needles occur, each occurrence weighed as the word index weighs its
// field (w.Fields: a title counts ten times the text) — summed, or with
// w.LiteralBM25 as bm25 scores a phrase (literalBM25). The occurrences are
// counted in the sections themselves, never from the store's statistics,
// so a document's ranking is its own whatever else is stored. A section
// whose trigrams hold a needle's but whose text does not (the trigrams
// apart) scores 0 and is left out.
func substrings(ctx context.Context, src SectionSource, needles []string, w Weights, limit int) ([]Posting, error) {
	var kept []string
	for _, n := range needles {
		if utf8.RuneCountInString(n) >= ftsquery.MinSubstringRunes && !slices.Contains(kept, strings.ToLower(n)) {
			kept = append(kept, strings.ToLower(n))
		}
	}
	if len(kept) == 0 || limit <= 0 {
		return nil, nil
	}
	title, path, body := cmp.Or(w.Fields[FieldTitle], 1), cmp.Or(w.Fields[FieldPath], 1), cmp.Or(w.Fields[FieldBody], 1)
	weighed := func(o Occurrences) float64 {
		return title*float64(o.Title) + path*float64(o.Path) + body*float64(o.Body)
	}
	if w.LiteralBM25 {
		return literalBM25(ctx, src, kept, weighed, limit)
	}
	found, err := src.Substrings(ctx, kept)
	if err != nil {
		return nil, err
	}
	return best(found, weighed, limit), nil
}

// literalBM25 scores each needle as bm25 scores a phrase in the section's
// document — its weighed occurrences as the frequency, the section's
// length in words, and an idf from how many of the document's sections
// hold it — and sums over the needles.
func literalBM25(ctx context.Context, src SectionSource, needles []string, weighed func(Occurrences) float64, limit int) ([]Posting, error) {
	layouts, err := src.Layouts(ctx)
	if err != nil {
		return nil, err
	}
	type doc struct {
		snap *wordindex.Snapshot
		held int
	}
	hits := map[int64]Occurrences{} // the sections scored, for best's order
	score := map[int64]float64{}
	for _, n := range needles {
		found, err := src.Substrings(ctx, []string{n})
		if err != nil {
			return nil, err
		}
		// Each found section's document, and how many of its sections
		// hold the needle.
		docs := map[int64]*doc{}
		of := make([]*doc, len(found))
		for i, o := range found {
			for id, snap := range layouts {
				if o.Ord < len(snap.IDs) && snap.IDs[o.Ord] == o.ID {
					if docs[id] == nil {
						docs[id] = &doc{snap: snap}
					}
					of[i] = docs[id]
					break
				}
			}
			if of[i] != nil && weighed(o) > 0 {
				of[i].held++
			}
		}
		for i, o := range found {
			d, f := of[i], weighed(o)
			if d == nil || f <= 0 {
				continue
			}
			rows := int64(len(d.snap.IDs))
			norm := 1.0 // a document of no words at all (only punctuation): no length to weigh
			if d.snap.Tokens > 0 {
				norm = wordindex.LengthNorm(float64(d.snap.Lengths[o.Ord]), float64(d.snap.Tokens)/float64(rows))
			}
			score[o.ID] += wordindex.TermScore(wordindex.IDF(rows, int64(d.held)), f, norm)
			hits[o.ID] = Occurrences{ID: o.ID, Ord: o.Ord}
		}
	}
	all := make([]Occurrences, 0, len(hits))
	for _, o := range hits {
		all = append(all, o)
	}
	return best(all, func(o Occurrences) float64 { return score[o.ID] }, limit), nil
}

// shapes is the symbol channel for shapes of three runes or more: the
// sections whose shape (text/shape) holds any of needles, best first by how
// often, then in document order. The score counts occurrences, never the
// store's statistics, so a document's ranking is its own whatever else is
// stored.
func shapes(ctx context.Context, src SectionSource, needles []string, limit int) ([]Posting, error) {
	if len(needles) == 0 || limit <= 0 {
		return nil, nil
	}
	found, err := src.Shapes(ctx, needles)
	if err != nil {
		return nil, err
	}
	return best(found, shapeCount, limit), nil
}

// scanShapes is shapes for shapes too short for the shape index ("::",
// ":="): the sections whose shape holds every one of needles.
func scanShapes(ctx context.Context, src SectionSource, needles []string, limit int) ([]Posting, error) {
	if len(needles) == 0 || limit <= 0 {
		return nil, nil
	}
	found, err := src.ScanShapes(ctx, needles)
	if err != nil {
		return nil, err
	}
	return best(found, shapeCount, limit), nil
}

func shapeCount(o Occurrences) float64 { return float64(o.Body) }

// best returns the limit sections of found that score above zero, best
// first: by score, then in document order, then by row id (the order the
// store lists them in).
func best(found []Occurrences, score func(Occurrences) float64, limit int) []Posting {
	type scored struct {
		Occurrences
		score float64
	}
	all := make([]scored, 0, len(found))
	for _, o := range found {
		if s := score(o); s > 0 {
			all = append(all, scored{o, s})
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Ord, b.Ord); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	out := make([]Posting, min(limit, len(all)))
	for i := range out {
		out[i] = Posting{ID: all[i].ID, Score: all[i].score}
	}
	return out
}
