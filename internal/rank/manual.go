package rank

import (
	"math"
	"strings"

	"github.com/langspec/langspec/internal/text/ftsquery"
)

// Manual sections are ranked from what manual_find's stages saw of them
// (internal/manual/find): which query terms a section holds and how — as
// written, loosely, as a synonym, in its heading, under a heading that
// names them. The stages find; what they saw becomes lists of three
// channels (ChannelTerms, ChannelNamed, ChannelAsked), which Fuse weighs
// with the engine's own lists of stage 0 (words, literal) and the phrasings'
// in one fusion, as every search is fused.

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

// The channels manual_find's stages feed, beside the engine's own (words,
// literal) that its stage 0 runs: Fuse weighs them all at once, with
// ManualWeights.
const (
	// ChannelTerms is the query terms a section holds, each by the best
	// way it holds it (Sighting.Weight) times how rare it is (ManualIDF).
	ChannelTerms = "terms"
	// ChannelNamed is the terms its heading names, by how rare they are:
	// a heading naming a rare term says the section is about it.
	ChannelNamed = "named"
	// ChannelAsked is a section of the kind the question asks for: one
	// stating an exception when exceptions are asked for, a numbered list
	// for a procedure, one the heading stage found for a definition.
	ChannelAsked = "asked"
)

// ManualEvidence is what the stages saw of one section.
type ManualEvidence struct {
	// Named are the IDFs of the terms its heading names, in query order.
	Named []float64
	// Terms are the query terms it holds, in the order first seen.
	Terms []TermEvidence
	// Asked is what the question asks for; the section's traits answer it.
	Asked                 Ask
	HasExceptions, IsList bool // it states an exception; it is a numbered list
	ByHeading             bool // the heading stage found it
}

// ManualScores are a section's scores in the channels the stages feed.
type ManualScores struct{ Terms, Named, Asked float64 }

// Scores are e's scores in ChannelTerms, ChannelNamed and ChannelAsked.
// A section found only as context (an exception nearby, a parent) holds
// no term, and scores a little in ChannelTerms all the same.
func (e ManualEvidence) Scores() ManualScores {
	var sc ManualScores
	for _, idf := range e.Named {
		sc.Named += idf
	}
	for _, t := range e.Terms {
		idf := t.IDF
		if idf == 0 {
			idf = 1
		}
		sc.Terms += t.Best.Weight() * idf
	}
	if len(e.Terms) == 0 {
		sc.Terms = contextOnly
	}
	// Rounded to thousandths, so that sums made in another order (or
	// with a fused multiply-add on another machine) tie as they should:
	// a trace is recomputed on any replica.
	sc.Terms, sc.Named = math.Round(sc.Terms*1000)/1000, math.Round(sc.Named*1000)/1000
	switch e.Asked {
	case AskExceptions:
		if e.HasExceptions {
			sc.Asked = 1
		}
	case AskProcedure:
		if e.IsList {
			sc.Asked = 1
		}
	case AskDefinition:
		if e.ByHeading && len(e.Terms) > 0 {
			sc.Asked = 1
		}
	}
	return sc
}

// contextOnly is ChannelTerms' score of a section that holds no term: a
// fifth of a term as written that every section holds.
const contextOnly = 0.2

// channelScore is one of a section's scores, with its channel.
type channelScore struct {
	channel string
	score   float64
}

// byChannel are sc's scores with their channels, in the one order the
// stages' lists have (ManualLists).
func (sc ManualScores) byChannel() [3]channelScore {
	return [3]channelScore{{ChannelTerms, sc.Terms}, {ChannelNamed, sc.Named}, {ChannelAsked, sc.Asked}}
}

// Lists appends to lists (ManualLists'), for section id, its scores as
// entries of the stages' channels (a zero score adds none).
func (sc ManualScores) Lists(lists []List, id int64) {
	for i, c := range sc.byChannel() {
		if c.score > 0 {
			lists[i].Postings = append(lists[i].Postings, Posting{ID: id, Score: c.score})
		}
	}
}

// ManualLists are the empty lists of the stages' channels for phrasing,
// in ManualScores.Lists' order; the first, which every section is on,
// with room for n sections.
func ManualLists(phrasing, n int) []List {
	var out []List
	for i, c := range (ManualScores{}).byChannel() {
		l := List{Channel: c.channel, Phrasing: phrasing}
		if i == 0 {
			l.Postings = make([]Posting, 0, n)
		}
		out = append(out, l)
	}
	return out
}

// Bound returns the most a section holding sc and found by no list could
// score fused with lists: each score counts as a share of its channel's
// best in lists, as Fuse counts it (more than 1 when it beats that best).
// What a search reports of sections its caps left unread
// (internal/manual/find): the bests are read once, for the thousands of
// sections a cap may leave.
func (e *Engine) Bound(lists []List) func(sc ManualScores) float64 {
	best := map[string]float64{}
	for _, l := range lists {
		for _, p := range l.Postings {
			best[l.Channel] = max(best[l.Channel], p.Score)
		}
	}
	return func(sc ManualScores) float64 {
		total := 0.0
		for _, c := range sc.byChannel() {
			if c.score > 0 {
				total += e.w.Channels[c.channel] * ShareOf(c.score, best[c.channel], 1)
			}
		}
		return total
	}
}

// ManualIDF is how rare a term is among a search's sections: of sections,
// holding hold some form of it. A term few sections hold says more than
// one most hold.
func ManualIDF(sections, holding int) float64 {
	return math.Log(1 + float64(sections)/float64(1+holding))
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
// Fuse counts every list: its scores divided by its best one, summed per
// hit (CombSUM). Lists whose scores do not compare — one phrasing's channel
// and another's, one manual's and another's — compare as shares. A list
// whose best is not positive says nothing by its scores: each of its n
// entries counts 1/n. Reciprocal rank fusion was measured against it on
// both kinds of gold and lost (docs/evaluation.md).
func ShareOf(score, best float64, n int) float64 {
	if best <= 0 {
		return 1 / float64(max(n, 1))
	}
	return score / best
}
