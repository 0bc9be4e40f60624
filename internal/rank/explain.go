package rank

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// What a hit says of itself beside the channels that found it (Hit.Matched),
// worked out from the word index as the engine scored it: where the query's
// words are (the field rule of a ranking), whether a correction is what it
// holds (the typo rule), and which phrasings found it.
const (
	// LabelTitle comes first when the hit's title or path holds a word of
	// Result.Terms, as the word index matches it.
	LabelTitle = "title"
	// labelTypo and labelAlso prefix a correction the hit's text holds
	// ("typo:receiver") and another phrasing that found it ("also:2").
	labelTypo = ChannelTypo + ":"
	labelAlso = "also:"
)

// matchTerms are the terms a hit is said to match and a reader would see
// marked in it: the content words of the query and of each other phrasing,
// then the corrections, in that order.
func matchTerms(res *Result) []Term {
	terms := slices.Clone(res.Query.Content)
	for _, a := range res.Alternatives {
		terms = append(terms, a.Content...)
	}
	for _, c := range res.Corrections {
		terms = append(terms, NewTerm(c.To, false))
	}
	return terms
}

// labelToken is one token of Result.Terms with the index terms it
// matches: its stem, or for a prefix every index term that starts with its
// stem or its folded form.
type labelToken struct {
	Token
	prefix bool
	index  []string
}

// column is the bit of field f in the columns a posting holds its term in
// (SectionFields' order).
func column(f Field) uint8 {
	fields := SectionFields()
	return 1 << slices.Index(fields[:], f)
}

// explain completes each hit's Matched: LabelTitle before its channels, then
// "typo:W" for each correction W its text holds, in the order of the terms
// that mark it (as the highlighter of internal/search finds them), then
// "also:N" for each other phrasing that found it. The title and typo
// labels are read from the postings (the sections holding a term in some
// fields).
func explain(ctx context.Context, src SectionSource, res *Result) error {
	if len(res.Hits) == 0 {
		addAlso(res.Hits)
		return nil
	}
	var toks []labelToken
	var needed []string
	for _, t := range res.Terms {
		for i, tok := range t.Tokens {
			lt := labelToken{Token: tok, prefix: t.Prefix && i == len(t.Tokens)-1}
			if !lt.prefix {
				lt.index = []string{tok.Stem}
			} else {
				for _, p := range []string{tok.Stem, tok.Folded} {
					more, err := src.PrefixTerms(ctx, p)
					if err != nil {
						return err
					}
					for _, m := range more {
						if !slices.Contains(lt.index, m) {
							lt.index = append(lt.index, m)
						}
					}
				}
			}
			needed = append(needed, lt.index...)
			toks = append(toks, lt)
		}
	}
	// A corrected word's stem stands for the word (the last correction of
	// that stem, as a map keeps it), in the order the corrections came.
	fixed := map[string]string{}
	var fixedStems []string
	for _, c := range res.Corrections {
		st := NewTerm(c.To, false).Tokens[0].Stem
		if _, ok := fixed[st]; !ok {
			fixedStems = append(fixedStems, st)
		}
		fixed[st] = c.To
	}
	places, err := hitPlaces(ctx, src, res.Hits)
	if err != nil {
		return err
	}
	// The sections holding each index term in a title or path, and each
	// correction in a text: read once for all the hits.
	titled, texts := map[string]map[int64]Bits{}, map[string]map[int64]Bits{}
	for _, t := range needed {
		if _, ok := titled[t]; !ok {
			if titled[t], err = src.Holding(ctx, t, column(FieldTitle)|column(FieldPath)); err != nil {
				return err
			}
		}
	}
	for _, st := range fixedStems {
		if texts[st], err = src.Holding(ctx, st, column(FieldBody)); err != nil {
			return err
		}
	}
	for i := range res.Hits {
		h := &res.Hits[i]
		at := places[i]
		var labels []string
		if slices.ContainsFunc(toks, func(lt labelToken) bool {
			return slices.ContainsFunc(lt.index, func(t string) bool { return at.in(titled[t]) })
		}) {
			labels = append(labels, LabelTitle)
		}
		labels = append(labels, h.Matched...)
		var typos []string
		addTypo := func(stem string) {
			if w := fixed[stem]; w != "" && at.in(texts[stem]) && !slices.Contains(typos, w) {
				typos = append(typos, w)
			}
		}
		for _, lt := range toks {
			if !lt.prefix {
				addTypo(lt.Stem)
				continue
			}
			// A prefix marks the corrections it starts, in their order
			// (where the highlighter goes by their places in the text).
			for _, st := range fixedStems {
				if strings.HasPrefix(st, lt.Stem) || strings.HasPrefix(st, lt.Folded) {
					addTypo(st)
				}
			}
		}
		for _, w := range typos {
			labels = append(labels, labelTypo+w)
		}
		h.Matched = labels
	}
	addAlso(res.Hits)
	return nil
}

// addAlso names in each hit's Matched the other phrasings that found it.
func addAlso(hits []Hit) {
	for i := range hits {
		for _, p := range hits[i].Phrasings {
			if p > 0 {
				hits[i].Matched = append(hits[i].Matched, fmt.Sprintf("%s%d", labelAlso, p))
			}
		}
	}
}

// place is a hit's document and ordinal there; doc is 0 for a hit no
// document of the scope holds.
type place struct {
	doc int64
	ord int
}

// in reports whether the hit is among held.
func (p place) in(held map[int64]Bits) bool { return p.doc != 0 && held[p.doc].Has(p.ord) }

// hitPlaces finds each hit's document and ordinal in the scope's layouts.
func hitPlaces(ctx context.Context, src SectionSource, hits []Hit) ([]place, error) {
	layouts, err := src.Layouts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]place, len(hits))
	for i, h := range hits {
		for doc, snap := range layouts {
			if o, ok := snap.Ordinal(h.ID); ok {
				out[i] = place{doc, o}
				break
			}
		}
	}
	return out, nil
}
