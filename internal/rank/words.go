package rank

import (
	"context"
	"fmt"

	"github.com/langspec/langspec/internal/rank/wordindex"
)

// rankWords is the word channels over spec sections: the sections holding
// any of terms, best first by bm25 over their fields with weights (in
// SectionFields order), scored from the word postings (wordindex) the
// store keeps. A word's score is FTS5's bm25() of the same row to the last
// bit (TestWordPostingsRankAsFTS5 in internal/db holds the two together).
//
// Each document is ranked with its own statistics — its sections, their
// average length, and how many of them hold each term — never the whole
// store's: a language's answers must not change when another language is
// stored beside it. Their hits then meet in one list by score. A scope
// narrower than its documents (a path filter) is ranked with its
// documents' statistics too, and keeps only its own sections.
//
// A term is a word (its stem's list), a prefix (the lists of the index
// terms it stands for, summed, as FTS5 counts a prefix), or a phrase: the
// sections holding its words next to each other (the store's phrase
// match), with the counts its words have in common (wordindex.PhraseList),
// its last word a prefix when the term is one.
func (e *Engine) rankWords(ctx context.Context, src SectionSource, terms []Term, weights [wordindex.Columns]float64, limit int) ([]Posting, error) {
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	layouts, err := src.Layouts(ctx)
	if err != nil {
		return nil, err
	}
	within, err := src.Within(ctx)
	if err != nil {
		return nil, err
	}
	var stems []string
	expanded := make([][]string, len(terms)) // a prefix's index terms
	for i, t := range terms {
		toks := t.Tokens
		if t.Prefix {
			last := toks[len(toks)-1]
			// FTS5's porter tokenizer stems a prefix too ("running*" is
			// run*): the index terms it stands for start with its stem.
			if expanded[i], err = src.PrefixTerms(ctx, last.Stem); err != nil {
				return nil, err
			}
			stems = append(stems, expanded[i]...)
			toks = toks[:len(toks)-1]
		}
		for _, tok := range toks {
			stems = append(stems, tok.Stem)
		}
	}
	lists, err := src.Postings(ctx, stems)
	if err != nil {
		return nil, err
	}
	phraseOrds := make([]map[int64][]int, len(terms))
	for i, t := range terms {
		if len(t.Tokens) > 1 {
			if phraseOrds[i], err = src.Phrase(ctx, t); err != nil {
				return nil, err
			}
		}
	}
	top := wordindex.NewTop(limit)
	for id, snap := range layouts {
		rows := int64(len(snap.IDs))
		if rows == 0 {
			continue
		}
		q := wordindex.Query{Weights: weights, AvgLen: float64(snap.Tokens) / float64(rows), IDF: make([]float64, len(terms)), EveryPosting: e.everyPosting}
		if within != nil {
			kept := within[id]
			if len(kept) == 0 {
				continue
			}
			within := NewBits(len(snap.IDs))
			for _, o := range kept {
				within.Add(o)
			}
			q.Within = within
		}
		perTerm := make([]wordindex.List, len(terms))
		any := false
		for i, t := range terms {
			var df int
			switch {
			case len(t.Tokens) > 1:
				ords := phraseOrds[i][id]
				if len(ords) == 0 {
					break
				}
				tokens := make([]wordindex.List, len(t.Tokens))
				for k, tok := range t.Tokens {
					tokens[k] = lists[tok.Stem][id]
				}
				if t.Prefix {
					if tokens[len(tokens)-1], _, err = union(lists, expanded[i], id); err != nil {
						return nil, fmt.Errorf("document %d: %w", id, err)
					}
				}
				if perTerm[i], err = wordindex.PhraseList(tokens, ords); err != nil {
					return nil, fmt.Errorf("document %d: %w", id, err)
				}
				df = len(ords)
			case t.Prefix:
				if perTerm[i], df, err = union(lists, expanded[i], id); err != nil {
					return nil, fmt.Errorf("document %d: %w", id, err)
				}
			default:
				perTerm[i] = lists[t.Tokens[0].Stem][id]
				df = perTerm[i].DF
			}
			if df == 0 {
				continue // no postings here: its IDF is never used
			}
			q.IDF[i] = wordindex.IDF(rows, int64(df))
			any = true
		}
		if !any {
			continue
		}
		byHeads, err := snap.Rank(q, perTerm, top)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", id, err)
		}
		e.rankings.Add(1)
		if byHeads {
			e.byHeads.Add(1)
		}
	}
	hits := top.Hits()
	out := make([]Posting, len(hits))
	for i, h := range hits {
		out[i] = Posting{ID: h.ID, Score: h.Score}
	}
	return out, nil
}

// union is the postings of a prefix in document doc: the lists of the
// index terms it stands for, summed (wordindex.UnionList), and how many
// sections hold any of them.
func union(lists map[string]map[int64]wordindex.List, terms []string, doc int64) (wordindex.List, int, error) {
	var parts []wordindex.List
	for _, t := range terms {
		if l, ok := lists[t][doc]; ok {
			parts = append(parts, l)
		}
	}
	return wordindex.UnionList(parts)
}
