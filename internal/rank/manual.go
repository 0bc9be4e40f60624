package rank

import (
	"math"
	"strings"

	"github.com/langspec/langspec/internal/text/ftsquery"
)

// Manual sections are ranked from what manual_find's stages saw of them
// (internal/manual/find): which query terms a section holds and how — as
// written, loosely, as a synonym, in its heading, under a heading that
// names them — with the word channel's say (stage 0 runs this engine's
// channels over the manual). The stages find; the weights below and
// ManualScore decide.

// Where is what of a section holds a query term.
type Where uint8

const (
	// WhereText is its text: as written, normalised, or without
	// separators (Sighting.Loose).
	WhereText Where = iota
	// WhereHeading is its heading: the heading names the term.
	WhereHeading
	// WhereHeadingWithin is a heading that is part of the term: the
	// glossary's 地震火災費用 for 地震火災費用特約.
	WhereHeadingWithin
	// WhereUnderHeading is a heading above it (Sighting.Depth levels up)
	// naming the term: subsections rarely repeat their parent's subject.
	WhereUnderHeading
	// WhereNearHeading is a heading sharing most of its trigrams with a
	// term nothing matched as written: a typo or another spelling.
	WhereNearHeading
	// WhereFragment is a fragment of the term (the widening stage): a
	// compound nothing held whole.
	WhereFragment
)

// Sighting is how a section holds a query term.
type Sighting struct {
	Where   Where
	Synonym bool // a synonym's form from the dictionary, not the term's own
	// Corrected is the term with a word stage 0 corrected (a Correction):
	// what was likely meant, as weak as a synonym, since a real word the
	// manual lacks ("meant") is corrected too ("means").
	Corrected bool
	Loose     bool // found only with separators removed
	Depth     int  // WhereUnderHeading: levels below the heading naming the term
}

// Weight is how much a sighting says of the section being about the term,
// at most 1 (the term as written, in the text or the heading). A weaker
// sighting never outweighs a stronger one of the same term: a section
// keeps its best (Better).
func (s Sighting) Weight() float64 {
	switch s.Where {
	case WhereUnderHeading:
		return 0.6 / float64(max(s.Depth, 1))
	case WhereNearHeading:
		return 0.4
	case WhereFragment:
		return 0.3
	}
	w := 1.0
	if s.Where == WhereHeadingWithin {
		w = 0.6
	}
	if s.Synonym || s.Corrected {
		w *= 0.8
	}
	if s.Loose {
		w *= 0.9
	}
	return w
}

// Better reports whether s says more than t.
func (s Sighting) Better(t Sighting) bool { return s.Weight() > t.Weight() }

// Ask is what a question asks for, as far as the ranking cares.
type Ask uint8

const (
	AskLookup Ask = iota
	AskDefinition
	AskProcedure
	AskExceptions
)

// TermEvidence is one query term a section holds.
type TermEvidence struct {
	IDF  float64  // ManualIDF of the term
	Best Sighting // the best way the section holds it
}

// ManualEvidence is what the stages saw of one section.
type ManualEvidence struct {
	// Words is the word channel's score for the section as a share of the
	// best section's (ShareOfBest), 0 when the channel did not find it.
	Words float64
	// Named are the IDFs of the terms its heading names, in query order:
	// a heading naming a rare term says the section is about it.
	Named []float64
	// Terms are the query terms it holds, in the order first seen.
	Terms []TermEvidence
	// Asked is what the question asks for; the section's traits answer it.
	Asked                 Ask
	HasExceptions, IsList bool // it states an exception; it is a numbered list
	ByHeading             bool // the heading stage found it
}

// ManualScore ranks a manual section from its evidence: each term it
// holds, weighted by how rare the term is and how directly the section
// holds it, plus the word channel's say, its heading's names and what the
// question asks for. Rounded to thousandths, so that sums made in another
// order tie as they should.
func ManualScore(e ManualEvidence) float64 {
	named := 0.0
	for _, idf := range e.Named {
		named += 0.5 * idf
	}
	sc := e.Words + named
	for _, t := range e.Terms {
		idf := t.IDF
		if idf == 0 {
			idf = 1
		}
		sc += t.Best.Weight() * idf
	}
	if len(e.Terms) == 0 {
		sc += 0.2 // found only as context (an exception nearby, a parent)
	}
	switch e.Asked {
	case AskExceptions:
		if e.HasExceptions {
			sc += 1
		}
	case AskProcedure:
		if e.IsList {
			sc += 0.5
		}
	case AskDefinition:
		if e.ByHeading && len(e.Terms) > 0 {
			sc += 0.5
		}
	}
	return math.Round(sc*1000) / 1000
}

// ManualIDF is how rare a term is among a search's sections: of sections,
// holding hold some form of it. A term few sections hold says more than
// one most hold.
func ManualIDF(sections, holding int) float64 {
	return math.Log(1 + float64(sections)/float64(1+holding))
}

// ShareOfBest rescales a ranked list's scores as shares of its best one,
// so that one manual's list and another's weigh alike.
func ShareOfBest(ps []Posting) {
	best := 0.0
	for _, p := range ps {
		best = max(best, p.Score)
	}
	if best <= 0 {
		return
	}
	for i := range ps {
		ps[i].Score /= best
	}
}

// NearHeading reports whether a heading's normalised text holds at least
// half of a term's trigrams: close enough for a term nothing matched as
// written to be taken for it (WhereNearHeading).
func NearHeading(term, heading string) bool {
	grams := ftsquery.Trigrams(term)
	if len(grams) == 0 {
		return false
	}
	hit := 0
	for _, g := range grams {
		if strings.Contains(heading, g) {
			hit++
		}
	}
	return float64(hit)/float64(len(grams)) >= 0.5
}

// ShareOf is a score as a share of its list's best, the unit in which
// every list of phrasings is fused, here as in Engine.fuse: each list
// counts as its scores divided by its best one, summed per hit (CombSUM).
// Lists whose scores do not compare — one phrasing's channel and another's,
// or two manual runs made of their own terms and stages — compare as
// shares. A list whose best is not positive says nothing by its scores:
// each of its n entries counts 1/n. Reciprocal rank fusion was measured
// against it on both kinds of gold and lost (docs/evaluation.md).
func ShareOf(score, best float64, n int) float64 {
	if best <= 0 {
		return 1 / float64(max(n, 1))
	}
	return score / best
}

// RoundFused rounds a fused score to millionths, so that sums made in
// another order tie as they should.
func RoundFused(score float64) float64 { return math.Round(score*1e6) / 1e6 }
