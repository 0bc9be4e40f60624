package rank

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/text/ftsquery"
)

// substrings is the literal channel over spec sections: the sections
// holding any of needles as a substring of their title, path or text, case
// aside, scored by where the needles occur, each occurrence weighed as the
// word index weighs its field (weights: a title counts ten times the
// text). The occurrences are counted in the sections
// themselves, never from the store's statistics, so a document's ranking
// is its own whatever else is stored. A section whose trigrams hold a
// needle's but whose text does not (the trigrams apart) scores 0 and is
// left out.
func substrings(ctx context.Context, src SectionSource, needles []string, weights map[Field]float64, limit int) ([]Posting, error) {
	var kept []string
	for _, n := range needles {
		if utf8.RuneCountInString(n) >= ftsquery.MinSubstringRunes && !slices.Contains(kept, strings.ToLower(n)) {
			kept = append(kept, strings.ToLower(n))
		}
	}
	if len(kept) == 0 || limit <= 0 {
		return nil, nil
	}
	found, err := src.Substrings(ctx, kept)
	if err != nil {
		return nil, err
	}
	title, path, body := cmp.Or(weights[FieldTitle], 1), cmp.Or(weights[FieldPath], 1), cmp.Or(weights[FieldBody], 1)
	return best(found, func(o Occurrences) float64 {
		return title*float64(o.Title) + path*float64(o.Path) + body*float64(o.Body)
	}, limit), nil
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
