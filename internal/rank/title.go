package rank

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// Title match strengths, the heading channel's scores.
const (
	TitleContains = 1.0 // the title holds the query as written, case aside
	TitleStarts   = 2.0 // … at its start
	TitleEquals   = 3.0 // the title is the query (ExactTitle): such a section comes first
)

// maxTitleCandidates bounds the sections whose titles the heading channel
// reads in each document: the first in document order of those whose
// titles hold every word.
const maxTitleCandidates = 200

// titleMatches is the heading channel over spec sections: the sections
// whose title holds the query as written (case aside) — "#[repr(C)]" in
// "#[repr(C)] Structs" — or is it (TitleKey), scored TitleEquals,
// TitleStarts or TitleContains; ties by row id, which is document order.
// The candidates are the sections whose title holds every word of the
// query (the word index's title field), so neither the candidates nor the
// scores depend on anything but the document. A query under three runes,
// or of no word, matches nothing.
func titleMatches(ctx context.Context, src SectionSource, a Query, limit int) ([]Posting, error) {
	query := strings.TrimSpace(a.Raw)
	if utf8.RuneCountInString(query) < ftsquery.MinSubstringRunes || len(a.Tokens) == 0 || limit <= 0 {
		return nil, nil
	}
	var stems []string
	for _, t := range a.Tokens {
		if !slices.Contains(stems, t.Stem) {
			stems = append(stems, t.Stem)
		}
	}
	titles, err := src.Titles(ctx, stems, maxTitleCandidates)
	if err != nil || len(titles) == 0 {
		return nil, err
	}
	lower, exact := strings.ToLower(query), ExactTitleOf(query)
	var out []Posting
	for _, r := range titles {
		title := strings.ToLower(r.Title)
		switch {
		case exact(r.Title):
			out = append(out, Posting{ID: r.ID, Score: TitleEquals})
		case strings.HasPrefix(title, lower):
			out = append(out, Posting{ID: r.ID, Score: TitleStarts})
		case strings.Contains(title, lower):
			out = append(out, Posting{ID: r.ID, Score: TitleContains})
		}
	}
	slices.SortStableFunc(out, func(a, b Posting) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out[:min(limit, len(out))], nil
}

// TitleKey is how a section's name reads once what varies between the way
// people type it and the way documents print it is set aside: case and
// diacritics, separators (spaces, "_", "-"), section numbers ("7.7."), a
// leading article ("The yield statement") and word endings (porter stems:
// "Method sets" is "method set"). "" when nothing is left.
func TitleKey(s string) string {
	toks := tokenize.Tokenize(s)
	words := make([]string, 0, len(toks))
	for _, t := range toks {
		if len(words) > 0 || !leading(t.Folded) {
			words = append(words, tokenize.Stem(t.Folded))
		}
	}
	return strings.Join(words, " ")
}

// leading reports whether a word at the start of a title is left out of
// its key: a section number or an article.
func leading(folded string) bool {
	return isNumber(folded) || folded == "the" || folded == "a" || folded == "an"
}
