package rank

import (
	"context"
	"math/bits"
	"slices"

	"github.com/langspec/langspec/internal/rank/wordindex"
)

// Fused scores are normalised per query — each channel divided by its best
// one — so a document's first hit scores about the same whether the
// document has a section about the query or only one that mentions two of
// its words. Evidence is the absolute measure beside them: how much of what
// the query asks about a section holds, in its own document's statistics.
// It never changes the order of hits; a caller reads it to say that nothing
// fits (compare's absent columns).

// The weights of Evidence, chosen with FitEvidence on the tune part of the
// compare gold sets (fixtures/gold/compare-absent.README.md).
const (
	// evidenceTitle and evidenceBody are what a query word counts in a
	// section's title or headings — the section is about it — and only in
	// its text, where it may merely come up.
	evidenceTitle = 1.0
	evidenceBody  = 0.2
	// evidenceUnknown is the share of its IDF a query word its document
	// never holds weighs: that the document lacks "goto" says much about
	// whether it has goto, yet a paraphrase's own words ("tighter" for
	// precedence) are missing from documents that answer it too.
	evidenceUnknown = 0.75
	// evidenceDepth is how many of the best hits the evidence of a whole
	// answer is read over (Result.Evidence): the section about the query
	// need not be ranked first to show that there is one.
	evidenceDepth = 10
)

// FitEvidence is the Evidence below which no section of a scope is taken
// to be about the query: a language without the feature, or a reference
// that does not cover it. Chosen on the tune part of the compare gold sets
// (fixtures/gold/compare.jsonl and compare-absent.jsonl, question alone;
// compare-absent.README.md gives the split and the figures), reported on
// the held-out part.
const FitEvidence = 0.24

// FitEvidenceWithPhrasings is FitEvidence for an answer searched with other
// phrasings (alternatives): its Evidence is their mean, which a phrasing in
// another language's words pulls down where the feature exists too. Chosen
// on the tune part of the same gold sets, with the phrasings of
// fixtures/gold/also/compare*.jsonl.
const FitEvidenceWithPhrasings = 0.20

// Fits reports whether an answer's Evidence says that a section is about
// the query, searched with the given number of other phrasings.
func Fits(evidence float64, alternatives int) bool {
	if alternatives > 0 {
		return evidence >= FitEvidenceWithPhrasings
	}
	return evidence >= FitEvidence
}

// allFields is every field of a section's word postings (SectionFields).
const allFields = 1<<wordindex.Columns - 1

// evidence sets each hit's Evidence, and the result's (the most of them).
// A hit's Evidence is, for each phrasing (the query and each alternative),
// the share of its content words' IDF the hit's section holds — a word in
// its title or headings counting evidenceTitle, only in its text
// evidenceBody; a word counts as held when the section holds it or a word
// specs use for it (related.go) — and the mean over the phrasings that
// have content words. The mean, not the best: a caller's phrasings for
// one concept across languages name each language's feature ("variadic
// parameters" beside "default parameter values"), and the best of them
// fits in a language that lacks the concept as asked. The IDF
// is the hit's document's own (wordindex.IDF over its sections, as the
// word channel ranks it); a word the document never holds weighs
// evidenceUnknown of the most a word can weigh there.
func evidence(ctx context.Context, src SectionSource, res *Result) error {
	if len(res.Hits) == 0 {
		return nil
	}
	phrasings := [][][]string{evidenceWords(res.Query)}
	for _, a := range res.Alternatives {
		phrasings = append(phrasings, evidenceWords(a))
	}
	places, err := hitPlaces(ctx, src, res.Hits)
	if err != nil {
		return err
	}
	layouts, err := src.Layouts(ctx)
	if err != nil {
		return err
	}
	anywhere, titled := map[string]map[int64]Bits{}, map[string]map[int64]Bits{}
	for _, ws := range phrasings {
		for _, stems := range ws {
			for _, st := range stems {
				if _, ok := anywhere[st]; ok {
					continue
				}
				if anywhere[st], err = src.Holding(ctx, st, allFields); err != nil {
					return err
				}
				if titled[st], err = src.Holding(ctx, st, column(FieldTitle)|column(FieldPath)); err != nil {
					return err
				}
			}
		}
	}
	for i := range res.Hits {
		at := places[i]
		if at.doc == 0 {
			continue
		}
		rows := int64(len(layouts[at.doc].IDs))
		sum, counted := 0.0, 0
		for _, ws := range phrasings {
			var mass, held float64
			for _, stems := range ws {
				df := wordDF(stems, anywhere, at.doc)
				var inTitle, inText bool
				for _, st := range stems {
					inTitle = inTitle || at.in(titled[st])
					inText = inText || at.in(anywhere[st])
				}
				idf := wordindex.IDF(rows, int64(df))
				switch {
				case df == 0:
					mass += evidenceUnknown * idf
				case inTitle:
					mass += idf
					held += evidenceTitle * idf
				case inText:
					mass += idf
					held += evidenceBody * idf
				default:
					mass += idf
				}
			}
			if mass > 0 {
				sum += held / mass
				counted++
			}
		}
		if counted > 0 {
			res.Hits[i].Evidence = sum / float64(counted)
		}
		res.Evidence = max(res.Evidence, res.Hits[i].Evidence)
	}
	return nil
}

// evidenceWords are the content words of a phrasing, each as the index
// terms that stand for it: its stem, then the stems of the words specs use
// for it. A phrase's words count one by one, each once.
func evidenceWords(a Query) [][]string {
	var out [][]string
	seen := map[string]bool{}
	for _, t := range a.Content {
		for _, tok := range t.Tokens {
			if seen[tok.Stem] {
				continue
			}
			seen[tok.Stem] = true
			stems := []string{tok.Stem}
			for _, r := range related[tok.Folded] {
				for _, rt := range NewTerm(r, false).Tokens {
					if !slices.Contains(stems, rt.Stem) {
						stems = append(stems, rt.Stem)
					}
				}
			}
			out = append(out, stems)
		}
	}
	return out
}

// wordDF is how many sections of document doc hold a word (stems: its own
// stem, then those of the words specs use for it): its own count, or when
// the document never writes it, that of the rarest word for it the
// document does write; 0 when it writes none.
func wordDF(stems []string, held map[string]map[int64]Bits, doc int64) int {
	if n := count(held[stems[0]][doc]); n > 0 {
		return n
	}
	df := 0
	for _, st := range stems[1:] {
		if n := count(held[st][doc]); n > 0 && (df == 0 || n < df) {
			df = n
		}
	}
	return df
}

// count is how many sections b holds.
func count(b Bits) int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}
