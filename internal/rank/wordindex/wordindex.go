// Package wordindex keeps a second copy of the word index's postings — for
// each snapshot and each term, the sections holding it and how often in
// each column — in a form Go can rank without SQLite's help, and ranks
// them exactly as FTS5's bm25() does. It is the ranking engine's
// (internal/rank): internal/db builds the lists at ingest (Builder) and
// keeps the stored ones in its memo, and the engine scores them (Scorer,
// Snapshot.Rank).
//
// Why a copy: FTS5's bm25() reads every matching row's size from a B-tree,
// one seek per row, so a query of two common words over 50,000 sections
// costs 80 ms, and even iterating FTS5's doclists costs 7 ms
// (docs/performance.md). Decoding a few compact byte lists and adding
// floats costs a small fraction of that. FTS5 stays the index of record
// for what the lists do not keep: which sections hold a phrase's words
// next to each other.
//
// The terms are the ones FTS5 stores: tokens as text/tokenize splits and
// folds them (unicode61 remove_diacritics 2), stemmed by tokenize.Stem
// (porter); internal/db's crosscheck tests hold both to the linked SQLite.
package wordindex

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/langspec/langspec/internal/spillfile"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// Columns is the number of columns of the word index: title, path, body,
// anchors, in that order (rank.SectionFields).
const Columns = 4

// bodyColumn is the body's column: most postings are in it alone.
const bodyColumn = 2

// Builder gathers the postings of one snapshot, section by section in the
// order they are stored. Not safe for concurrent use.
type Builder struct {
	// words holds every folded word seen: a token costs one lookup here,
	// which leads to its stem's list and its own section count (a map per
	// purpose cost four lookups a token, the most of a million sections'
	// words; docs/performance.md).
	words    map[string]*word
	lists    map[string]*list // stem → its postings
	row      []*list          // the lists of the current section's terms, in first-seen order
	toks     []tokenize.Token
	lengths  []uint32 // each section's tokens, all columns
	tokens   int64
	sections int

	// Spilling (spill.go): where and past how many bytes held; held counts
	// the bytes of the lists in memory; err is the first spill failure.
	spillDir   string
	spillLimit int
	spill      *spillfile.File
	held       int
	err        error
}

// word is one folded word of the snapshot: its stem's list (stemming costs
// more than a lookup, and most words recur) and how many sections hold the
// word itself, for the vocabulary (Words).
type word struct {
	list        *list
	df          int
	lastSection int // the last section counted in df
}

// list is one term's postings being written: section ordinals as deltas.
type list struct {
	data  []byte
	skips []byte // see Term.Skips
	last  int    // ordinal of the last section added
	df    int
	// row counts the term in each column of the section being added;
	// inRow says it is in Builder.row already.
	row   [Columns]uint32
	inRow bool
	// pieces are the list's bytes written to the spill file, in order,
	// spilled bytes in all; data holds what came after them.
	pieces  []piece
	spilled int
}

// SkipEvery is how many postings lie between two entries of a list's
// skips.
const SkipEvery = 1024

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{words: map[string]*word{}, lists: map[string]*list{}}
}

// Add adds the next section, its columns in order (title, path, body,
// anchors).
func (b *Builder) Add(columns [Columns]string) {
	ord := b.sections
	length := 0
	for c, text := range columns {
		b.toks = tokenize.AppendTokens(b.toks[:0], text)
		length += len(b.toks)
		for _, t := range b.toks {
			w := b.words[t.Folded]
			if w == nil {
				w = b.newWord(t.Folded)
			}
			if w.lastSection != ord {
				w.lastSection = ord
				w.df++
			}
			l := w.list
			if !l.inRow {
				l.inRow = true
				b.row = append(b.row, l)
			}
			l.row[c]++
		}
	}
	for _, l := range b.row {
		if l.df > 0 && l.df%SkipEvery == 0 {
			l.skips = appendSkip(l.skips, l.spilled+len(l.data), l.last)
		}
		before := len(l.data)
		l.data = appendPosting(l.data, ord-l.last, l.row)
		b.held += len(l.data) - before
		l.last = ord
		l.df++
		l.row, l.inRow = [Columns]uint32{}, false
	}
	b.row = b.row[:0]
	b.lengths = append(b.lengths, uint32(length))
	b.tokens += int64(length)
	b.sections++
	if b.spillLimit > 0 && b.held > b.spillLimit {
		b.spillLists()
	}
}

// newWord adds the folded word token, first seen, and its stem's list if
// the stem is new too.
func (b *Builder) newWord(token string) *word {
	// The token is a piece of the section's text: a key or stem that kept
	// it would keep the whole text in memory for as long as the builder
	// lives.
	folded := strings.Clone(token)
	stem := tokenize.Stem(folded)
	l := b.lists[stem]
	if l == nil {
		l = &list{last: -1}
		b.lists[stem] = l
	}
	w := &word{list: l, lastSection: -1}
	b.words[folded] = w
	return w
}

// Words yields every folded word added, unstemmed, with the number of
// sections holding it, in no order: the snapshot's vocabulary.
func (b *Builder) Words(yield func(folded string, df int) bool) {
	for folded, w := range b.words {
		if !yield(folded, w.df) {
			return
		}
	}
}

// appendPosting writes one posting: the ordinal's distance from the
// previous one shifted left by Columns with a bit per column holding the
// term, then the count in each of those columns. A section with the word
// once in its body is two bytes, or one when the sections are close.
func appendPosting(dst []byte, delta int, counts [Columns]uint32) []byte {
	var mask uint64
	for c, n := range counts {
		if n > 0 {
			mask |= 1 << c
		}
	}
	dst = binary.AppendUvarint(dst, uint64(delta)<<Columns|mask)
	for _, n := range counts {
		if n > 0 {
			dst = binary.AppendUvarint(dst, uint64(n))
		}
	}
	return dst
}

// Term is one term's postings in a snapshot, as stored.
type Term struct {
	Text     string
	DF       int // sections of the snapshot holding it
	Postings []byte
	// Skips says where to start reading Postings part way: every
	// SkipEvery postings, the byte offset of the next posting and the
	// ordinal it counts from (the previous posting's), both as uvarints.
	// Rank reads two halves of a long list on two cores with it. Empty for
	// lists of SkipEvery postings or fewer.
	Skips []byte
}

func appendSkip(dst []byte, offset, ord int) []byte {
	dst = binary.AppendUvarint(dst, uint64(offset))
	return binary.AppendUvarint(dst, uint64(ord))
}

// Skips works out a list's Term.Skips from its postings, for lists
// stored before skips were.
func Skips(postings []byte) ([]byte, error) {
	var skips []byte
	d := newFreqDecoder([Columns]float64{1, 1, 1, 1})
	c := cursor{ord: -1, rest: postings}
	for count := 0; len(c.rest) > 0; count++ {
		if count > 0 && count%SkipEvery == 0 {
			skips = appendSkip(skips, len(postings)-len(c.rest), c.ord)
		}
		if err := c.stepAny(&d); err != nil {
			return nil, err
		}
		if c.ord < 0 {
			return nil, errCorrupt
		}
	}
	return skips, nil
}

// Sections is how many sections were added.
func (b *Builder) Sections() int { return b.sections }

// Tokens is how many tokens the added sections hold, all columns.
func (b *Builder) Tokens() int64 { return b.tokens }

// Layout encodes the row ids the sections were stored under (ids[i] is the
// i-th added section's) with each section's length in tokens: what a
// search needs to turn ordinals into row ids and to normalise by length.
func (b *Builder) Layout(ids []int64) ([]byte, error) {
	if len(ids) != b.sections {
		return nil, errors.New("wordindex: one row id per section is needed")
	}
	var dst []byte
	prev := int64(0)
	for i, id := range ids {
		if id <= prev {
			return nil, errors.New("wordindex: row ids must increase")
		}
		dst = binary.AppendUvarint(dst, uint64(id-prev))
		dst = binary.AppendUvarint(dst, uint64(b.lengths[i]))
		prev = id
	}
	return dst, nil
}

// Snapshot is a snapshot's layout decoded: row id and length of each
// section, by ordinal. Safe for concurrent use.
type Snapshot struct {
	IDs     []int64
	Lengths []uint32
	// Tokens is the sum of Lengths: with len(IDs), the snapshot's own
	// statistics for bm25's average length.
	Tokens int64

	// norms holds each section's length term of bm25's denominator for the
	// last average length asked: it changes only when the table does, and
	// a division per posting less is a fifth of a ranking.
	norms atomic.Pointer[lengthNorms]
	// scorers are Scorers sized to the snapshot, used again by the next
	// ranking of it: their buffers are as large as the snapshot (Scorer),
	// and the snapshot lives as long as its reader keeps its layout.
	scorers sync.Pool
}

// Rank ranks s with a Scorer of its own (see Scorer.Rank) and says
// whether the impact heads answered.
func (s *Snapshot) Rank(q Query, lists []List, top *Top) (byHeads bool, err error) {
	sc, _ := s.scorers.Get().(*Scorer)
	if sc == nil {
		sc = new(Scorer)
	}
	defer s.scorers.Put(sc)
	before := sc.byHeads
	err = sc.Rank(s, q, lists, top)
	return sc.byHeads > before, err
}

type lengthNorms struct {
	avgLen float64
	k      []float64
}

// lengthNorms returns k1 * (1 - b + b * length / avgLen) for every
// section, computed as fts5Bm25Function computes it.
func (s *Snapshot) lengthNorms(avgLen float64) []float64 {
	if n := s.norms.Load(); n != nil && n.avgLen == avgLen {
		return n.k
	}
	k := make([]float64, len(s.Lengths))
	for i, l := range s.Lengths {
		k[i] = LengthNorm(float64(l), avgLen)
	}
	s.norms.Store(&lengthNorms{avgLen: avgLen, k: k})
	return k
}

// Ordinal returns the ordinal of the section of row id id, and whether the
// snapshot holds it. A snapshot's sections are written in one transaction
// and so mostly hold consecutive ids: the ordinal is then a subtraction,
// checked by one read, instead of a search through an array that a million
// sections make 8 MB.
func (s *Snapshot) Ordinal(id int64) (int, bool) {
	if len(s.IDs) == 0 {
		return 0, false
	}
	if o := id - s.IDs[0]; o >= 0 && o < int64(len(s.IDs)) && s.IDs[o] == id {
		return int(o), true
	}
	return slices.BinarySearch(s.IDs, id)
}

// errCorrupt is returned for bytes no Builder wrote.
var errCorrupt = errors.New("wordindex: corrupt postings")

// DecodeLayout reads what Layout wrote.
func DecodeLayout(data []byte) (*Snapshot, error) {
	s := new(Snapshot)
	id := int64(0)
	for len(data) > 0 {
		d, n := binary.Uvarint(data)
		if n <= 0 {
			return nil, errCorrupt
		}
		data = data[n:]
		l, n := binary.Uvarint(data)
		if n <= 0 || l > math.MaxUint32 {
			return nil, errCorrupt
		}
		data = data[n:]
		id += int64(d)
		s.IDs = append(s.IDs, id)
		s.Lengths = append(s.Lengths, uint32(l))
		s.Tokens += int64(l)
	}
	return s, nil
}

// BM25's constants, as FTS5 fixes them. Variables, not constants: k1+1
// and 1-b must be worked out in float64 at run time as FTS5 works them out,
// not exactly at compile time (2.2 as a constant is not 1.2 + 1.0 in
// float64).
var (
	k1 = 1.2
	b  = 0.75
)

// LengthNorm is bm25's length term for a row of length d: k1 · (1 − b +
// b · d / avgLen), each operation in fts5Bm25Function's order. The
// conversions keep a compiler from fusing a multiply and an add, which
// the C code does not.
func LengthNorm(d, avgLen float64) float64 {
	return float64(k1 * float64(1-b+float64(b*d)/avgLen))
}

// TermScore is what one phrase adds to a row's bm25: idf · (freq · (k1 +
// 1)) / (freq + norm), with norm from LengthNorm.
func TermScore(idf, freq, norm float64) float64 {
	return float64(idf * (float64(freq*(k1+1)) / (freq + norm)))
}

// MaxTermScore is the most one phrase can add to any row's bm25, for
// pruning: idf · (k1 + 1).
func MaxTermScore(idf float64) float64 { return idf * (k1 + 1) }

// IDF is FTS5's inverse document frequency of a phrase held by hits of
// rows rows, ln((rows - hits + 0.5) / (hits + 0.5)), with FTS5's floor: a
// phrase in more than half the rows still counts for a little. The
// logarithm is ln (ln.go), the one bm25() takes, so that a score here is
// bm25()'s to the last bit.
func IDF(rows, hits int64) float64 {
	idf := ln((float64(rows-hits) + 0.5) / (float64(hits) + 0.5))
	if idf <= 0 {
		return 1e-6
	}
	return idf
}

// Query is a ranking request: the phrases (one term each) in query order,
// each with its IDF, the column weights and the average length. The
// statistics are one snapshot's own (internal/db ranks each document with
// its own): over a table holding that snapshot alone, a score here equals
// bm25()'s for the same row.
type Query struct {
	IDF     []float64
	Weights [Columns]float64
	AvgLen  float64
	// EveryPosting scores every posting even where the lists' impact
	// heads would settle the top k (for comparing the two).
	EveryPosting bool
	// Within, when set, is the sections that may be hits, a bit an
	// ordinal: a scope narrower than its documents (a path filter), whose
	// sections are still scored with their documents' statistics. Every
	// posting is scored then; the heads assume every section may be one.
	Within []uint64
}

// Hit is a ranked section: its row id and score (higher is better; the
// negation of bm25()).
type Hit struct {
	ID    int64
	Score float64
}

// Scorer holds the buffers one ranking uses, to be used again by the next
// (8 bytes a section for scores: 0.4 MB over 50,000 sections, 8 MB over a
// million; and once the impact heads ranked, 40 bytes or so for each
// section they found, 0.6 MB for a common query's 16,000 at a million).
// Not safe for concurrent use; the zero value is ready.
type Scorer struct {
	scores []float64
	seen   []uint64    // the sections matched, when a weight of zero or less can leave a match at score 0
	places places      // rankByHeads' places in sums, by ordinal
	sums   []headSum   // rankByHeads' sections found, in the order found
	short  []shortList // the lists rankByHeads reads whole
	parts  [2]scorerPart
	// parallelFrom overrides minParallelBytes when above zero (tests).
	parallelFrom int
	// byHeads counts the rankings the impact heads answered.
	byHeads int
}

// RankedByHeads is how many of this Scorer's rankings the impact heads
// answered (see Impacts); the others scored every posting.
func (sc *Scorer) RankedByHeads() int { return sc.byHeads }

// scorerPart is what one goroutine of a ranking keeps for itself.
type scorerPart struct {
	touched []int32
}

// List is one phrase's postings in a snapshot, with their skips (see
// Term).
type List struct {
	Postings, Skips []byte
	// DF is how many postings the list holds: the sections of the
	// snapshot holding its term.
	DF int
	// Impacts, when set, keeps the list's impact head between rankings:
	// the caller sets it on the lists it keeps that hold ImpactFrom
	// postings or more.
	Impacts *Impacts
}

// minParallelBytes is the size of postings from which Rank reads the two
// halves of the sections on two goroutines: below it, starting one costs
// more than the half it saves.
const minParallelBytes = 32 << 10

// Rank scores the sections of snap holding any of the query's terms
// (lists[i] holds phrase i's postings in snap, empty when snap lacks it)
// and adds them to top.
//
// The arithmetic follows fts5Bm25Function step for step: a phrase's
// frequency adds its column's weight once per occurrence in column order,
// and the phrases' terms are summed in query order (a phrase the section
// lacks adds zero there, which changes no sum). With IDFs from SQLite's
// ln() (see IDF), scores are bm25()'s to the last bit.
//
// When the lists have impact heads (List.Impacts) and those settle the
// top k, the ranking is answered from them with the same scores
// (rankByHeads); otherwise every posting is scored, into one accumulator
// per section, list by list. Walking the lists side by side instead and
// scoring only the sections whose bound could still enter top (MaxScore)
// scored 1 section in 40 on two common words of the generated corpus, and
// still took 1.3 times as long: the merge costs more per section than a
// score does, and BM25's saturation leaves every block of a list nearly
// the same bound. Heads sort by what a posting adds instead. What also
// pays on long lists is the second core: the sections are cut in two
// halves, and each is ranked on its own goroutine, its lists entered
// through their skips.
func (sc *Scorer) Rank(snap *Snapshot, q Query, lists []List, top *Top) error {
	if len(lists) != len(q.IDF) {
		return errors.New("wordindex: one list per phrase is needed")
	}
	dec := newFreqDecoder(q.Weights)
	n := len(snap.IDs)
	if len(sc.scores) < n {
		sc.scores = make([]float64, n)
		sc.seen = make([]uint64, (n+63)/64)
	}
	norms := snap.lengthNorms(q.AvgLen)
	if !q.EveryPosting && q.Within == nil {
		if ok, err := sc.rankByHeads(snap, q, lists, &dec, norms, top); ok || err != nil {
			if ok {
				sc.byHeads++
			}
			return err
		}
	}
	r := ranking{scores: sc.scores[:n], seen: sc.seen, norms: norms, ids: snap.IDs, q: &q, dec: &dec, lists: lists, within: q.Within}
	size := 0
	for _, l := range lists {
		size += len(l.Postings)
	}
	// The halves meet on a multiple of 64, so that no word of the seen
	// bitset is shared.
	half := n / 2 &^ 63
	if size < cmp.Or(sc.parallelFrom, minParallelBytes) || half == 0 || runtime.GOMAXPROCS(0) < 2 {
		return r.part(&sc.parts[0], 0, n, top)
	}
	second := NewTop(top.k)
	var err error
	var wg sync.WaitGroup
	wg.Go(func() { err = r.part(&sc.parts[1], half, n, second) })
	firstErr := r.part(&sc.parts[0], 0, half, top)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err != nil {
		return err
	}
	for _, h := range second.heap {
		top.Push(h)
	}
	return nil
}

// ranking is one call of Rank: what its parts share. Each part writes
// only the accumulators of its own sections.
type ranking struct {
	scores []float64
	seen   []uint64
	norms  []float64
	ids    []int64
	q      *Query
	dec    *freqDecoder
	lists  []List
	within []uint64 // Query.Within
}

// part ranks the sections of ordinals lo to hi (excluded) into top.
func (r *ranking) part(p *scorerPart, lo, hi int, top *Top) error {
	n := len(r.scores)
	scores, seen, norms, dec := r.scores, r.seen, r.norms, r.dec
	touched := p.touched[:0]
	// Every used entry is cleared on the way out, so the next ranking
	// starts from zeros without clearing the whole buffer.
	defer func() {
		// Past an eighth of the sections, clearing all of them at memory
		// speed beats clearing each one touched.
		if len(touched) > (hi-lo)/8 {
			clear(scores[lo:hi])
		} else {
			for _, ord := range touched {
				scores[ord] = 0
			}
		}
		if !dec.positive {
			clear(seen[lo/64 : (hi+63)/64])
		}
		p.touched = touched[:0]
	}()
	body := r.q.Weights[bodyColumn]
	for i, l := range r.lists {
		idf := r.q.IDF[i]
		c, err := seek(l, lo)
		if err != nil {
			return err
		}
		for len(c.rest) > 0 {
			// The common posting inline (stepBody is small enough to be
			// inlined; a call per posting costs a fifth of a ranking), any
			// other through stepAny.
			if !dec.wholeBody || !c.stepBody(body) {
				if err := c.stepAny(dec); err != nil {
					return err
				}
			}
			ord := c.ord
			if uint(ord) >= uint(n) {
				return errCorrupt
			}
			if ord < lo {
				continue
			}
			if ord >= hi {
				break
			}
			// With every weight positive, a score of zero says the section
			// is new; the bitset is only needed when a weight can leave a
			// match at zero.
			if dec.positive {
				if scores[ord] == 0 {
					touched = append(touched, int32(ord))
				}
			} else if seen[ord/64]&(1<<(ord%64)) == 0 {
				seen[ord/64] |= 1 << (ord % 64)
				touched = append(touched, int32(ord))
			}
			scores[ord] += TermScore(idf, c.freq, norms[ord])
		}
	}
	// Most sections score below the worst hit top keeps, and comparing
	// here costs less than offering each.
	worst, full := top.Worst()
	for _, ord := range touched {
		if full && scores[ord] < worst.Score {
			continue
		}
		if r.within != nil && r.within[ord/64]&(1<<(ord%64)) == 0 {
			continue
		}
		top.Push(Hit{ID: r.ids[ord], Score: scores[ord]})
		worst, full = top.Worst()
	}
	return nil
}

// seek returns a cursor on l before its first posting of an ordinal lo or
// more, as far as l's skips lead (at its start without them).
func seek(l List, lo int) (cursor, error) {
	c := cursor{ord: -1, rest: l.Postings}
	for skips := l.Skips; len(skips) > 0; {
		offset, rest, ok := uvarint(skips)
		if !ok {
			return c, errCorrupt
		}
		ord, rest, ok := uvarint(rest)
		if !ok || offset > uint64(len(l.Postings)) || ord > math.MaxInt32 {
			return c, errCorrupt
		}
		skips = rest
		if int(ord) >= lo {
			break
		}
		c = cursor{ord: int(ord), rest: l.Postings[offset:]}
	}
	return c, nil
}

// freqDecoder turns a posting's counts into bm25's weighted frequency.
type freqDecoder struct {
	weights [Columns]float64
	// whole says a column's weight is a whole number: a whole weight
	// times a count, added to a whole number, is the same number as the
	// weight added count times (every partial sum is a whole number well
	// inside float64's exact range), and one multiplication is cheaper
	// than a chain of additions; otherwise the weight is added as FTS5
	// adds it.
	whole     [Columns]bool
	wholeBody bool // whole[bodyColumn], for cursor.stepBody
	allWhole  bool // every weight whole, for cursor.stepSmall
	// positive says every weight is above zero, so every match adds more
	// than zero to a score.
	positive bool
}

func newFreqDecoder(weights [Columns]float64) freqDecoder {
	d := freqDecoder{weights: weights, positive: true}
	for c, w := range weights {
		d.positive = d.positive && w > 0
		d.whole[c] = w == math.Trunc(w) && math.Abs(w) < 1<<20
	}
	d.wholeBody = d.whole[bodyColumn]
	d.allWhole = !slices.Contains(d.whole[:], false)
	return d
}

// cursor is a position in one phrase's postings: the posting at hand
// (ordinal and weighted frequency) and the bytes after it.
type cursor struct {
	ord  int
	freq float64
	rest []byte
}

// stepBody moves c to its next posting when that posting is one count
// below 0x80 in the body column alone, weighed by body, and says whether
// it did. Most postings of a common word are, and decoding them here,
// small enough to be inlined, skips the loop over columns, whose branches
// the processor cannot predict: a third of a ranking.
func (c *cursor) stepBody(body float64) bool {
	r := c.rest
	if len(r) < 2 || r[0]&(0x80|1<<Columns-1) != 1<<bodyColumn || r[1] >= 0x80 {
		return false
	}
	c.ord += int(r[0] >> Columns)
	c.freq, c.rest = body*float64(r[1]), r[2:]
	return true
}

// stepAny moves c to its next posting, whatever its shape.
func (c *cursor) stepAny(d *freqDecoder) error {
	if d.allWhole {
		if c.stepSmall(&d.weights) {
			return nil
		}
	}
	return c.stepVarint(d)
}

// stepSmall moves c to its next posting when its head and counts are
// one byte each and every weight is whole, and says whether it did: the
// frequency is then the sum of weight times count in column order, as
// stepVarint works it out, without its varint decoding.
func (c *cursor) stepSmall(weights *[Columns]float64) bool {
	r := c.rest
	if len(r) == 0 || r[0] >= 0x80 {
		return false
	}
	head := r[0]
	k := 1
	freq := 0.0
	for col := range Columns {
		if head&(1<<col) == 0 {
			continue
		}
		if k >= len(r) || r[k] >= 0x80 {
			return false
		}
		freq += weights[col] * float64(r[k])
		k++
	}
	c.ord += int(head >> Columns)
	c.freq, c.rest = freq, r[k:]
	return true
}

// stepVarint moves c to its next posting, decoding it in full.
func (c *cursor) stepVarint(d *freqDecoder) error {
	head, data, ok := uvarint(c.rest)
	if !ok || head>>Columns > math.MaxInt32 {
		return errCorrupt
	}
	freq := 0.0
	for col := range Columns {
		if head&(1<<col) == 0 {
			continue
		}
		count, rest, ok := uvarint(data)
		if !ok {
			return errCorrupt
		}
		data = rest
		w := d.weights[col]
		if d.whole[col] && count < 1<<20 && freq == math.Trunc(freq) {
			freq += w * float64(count)
			continue
		}
		for range count {
			freq += w
		}
	}
	c.ord += int(head >> Columns)
	c.freq, c.rest = freq, data
	return nil
}

// uvarint is binary.Uvarint with the one-byte case, most of a posting
// list, decoded inline.
func uvarint(data []byte) (uint64, []byte, bool) {
	if len(data) > 0 && data[0] < 0x80 {
		return uint64(data[0]), data[1:], true
	}
	v, n := binary.Uvarint(data)
	if n <= 0 {
		return 0, nil, false
	}
	return v, data[n:], true
}

// Top keeps the best k hits pushed to it: higher score first, then lower
// row id, the order FTS5 returns equal scores in.
type Top struct {
	k    int
	heap []Hit // a min-heap by that order: the root is the worst kept
}

// NewTop keeps the best k.
func NewTop(k int) *Top { return &Top{k: k} }

func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// Push offers h.
func (t *Top) Push(h Hit) {
	if t.k <= 0 || len(t.heap) == t.k && !better(h, t.heap[0]) {
		return
	}
	if len(t.heap) < t.k {
		t.heap = append(t.heap, h)
		for i := len(t.heap) - 1; i > 0; {
			p := (i - 1) / 2
			if !better(t.heap[p], t.heap[i]) {
				break
			}
			t.heap[p], t.heap[i] = t.heap[i], t.heap[p]
			i = p
		}
		return
	}
	if !better(h, t.heap[0]) {
		return
	}
	t.heap[0] = h
	for i := 0; ; {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(t.heap) && better(t.heap[worst], t.heap[l]) {
			worst = l
		}
		if r < len(t.heap) && better(t.heap[worst], t.heap[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		t.heap[i], t.heap[worst] = t.heap[worst], t.heap[i]
		i = worst
	}
}

// Hits returns the hits kept, best first.
func (t *Top) Hits() []Hit {
	out := slices.Clone(t.heap)
	slices.SortFunc(out, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return out
}

// Worst returns the worst hit kept and whether t is full: a hit must
// beat it to be kept.
func (t *Top) Worst() (Hit, bool) {
	if t.k <= 0 || len(t.heap) < t.k {
		return Hit{}, false
	}
	return t.heap[0], true
}

// PhraseList is the postings of a phrase in a snapshot: for each of
// ordinals (ascending; the sections FTS5 found to hold the words next to
// each other), the counts its words have in common — in each column the
// fewest of any of its words, a bound on how often the phrase itself
// occurs there, which the postings (without positions) cannot tell
// exactly. tokens are the postings of the phrase's words.
func PhraseList(tokens []List, ordinals []int) (List, error) {
	want := make(map[int]int, len(ordinals)) // ordinal -> index in ordinals
	for i, o := range ordinals {
		want[o] = i
	}
	counts := make([][Columns]uint32, len(ordinals))
	for i := range counts {
		for c := range Columns {
			counts[i][c] = math.MaxUint32
		}
	}
	for _, l := range tokens {
		seen := make([]bool, len(ordinals))
		ord, data := -1, l.Postings
		for len(data) > 0 {
			head, rest, ok := uvarint(data)
			if !ok || head>>Columns > math.MaxInt32 {
				return List{}, errCorrupt
			}
			ord += int(head >> Columns)
			var cs [Columns]uint32
			for c := range Columns {
				if head&(1<<c) == 0 {
					continue
				}
				n, r, ok := uvarint(rest)
				if !ok || n > math.MaxUint32 {
					return List{}, errCorrupt
				}
				cs[c], rest = uint32(n), r
			}
			data = rest
			if i, ok := want[ord]; ok {
				seen[i] = true
				for c := range Columns {
					counts[i][c] = min(counts[i][c], cs[c])
				}
			}
		}
		for i, ok := range seen {
			if !ok { // a word the section lacks: no phrase, whatever FTS5 said
				counts[i] = [Columns]uint32{}
			}
		}
	}
	var out []byte
	prev := -1
	for i, o := range ordinals {
		c := counts[i]
		if c == ([Columns]uint32{}) {
			continue
		}
		for col := range Columns {
			if c[col] == math.MaxUint32 {
				c[col] = 0
			}
		}
		out = appendPosting(out, o-prev, c)
		prev = o
	}
	skips, err := Skips(out)
	return List{Postings: out, Skips: skips}, err
}

// InColumns lists, ascending, the ordinals of the sections holding l's
// term in any of the columns of mask (a bit a column: 1<<c for column c).
func InColumns(l List, mask uint8) ([]int, error) {
	var out []int
	ord, data := -1, l.Postings
	for len(data) > 0 {
		delta, cols, rest, ok := stepColumns(data)
		if !ok {
			return nil, errCorrupt
		}
		ord, data = ord+delta, rest
		if cols&mask != 0 {
			out = append(out, ord)
		}
	}
	return out, nil
}

// stepColumns reads the posting at the start of data: how far its
// ordinal is from the one before, the columns holding the term (a bit a
// column), and the bytes after it.
func stepColumns(data []byte) (delta int, mask uint8, rest []byte, ok bool) {
	head, rest, ok := uvarint(data)
	if !ok || head>>Columns > math.MaxInt32 {
		return 0, 0, nil, false
	}
	for c := range Columns {
		if head&(1<<c) == 0 {
			continue
		}
		if _, rest, ok = uvarint(rest); !ok {
			return 0, 0, nil, false
		}
	}
	return int(head >> Columns), uint8(head & (1<<Columns - 1)), rest, true
}

// UnionList is the postings of a prefix ("except*"): the sections holding
// any of the terms it stands for (the lists), each with its counts summed
// per column, as FTS5 counts a prefix's occurrences; and how many sections
// that is.
func UnionList(lists []List) (List, int, error) {
	sum := map[int][Columns]uint32{}
	for _, l := range lists {
		ord, data := -1, l.Postings
		for len(data) > 0 {
			head, rest, ok := uvarint(data)
			if !ok || head>>Columns > math.MaxInt32 {
				return List{}, 0, errCorrupt
			}
			ord += int(head >> Columns)
			cs := sum[ord]
			for c := range Columns {
				if head&(1<<c) == 0 {
					continue
				}
				n, r, ok := uvarint(rest)
				if !ok {
					return List{}, 0, errCorrupt
				}
				cs[c] += uint32(n)
				rest = r
			}
			sum[ord] = cs
			data = rest
		}
	}
	ords := make([]int, 0, len(sum))
	for o := range sum {
		ords = append(ords, o)
	}
	slices.Sort(ords)
	var out []byte
	prev := -1
	for _, o := range ords {
		out = appendPosting(out, o-prev, sum[o])
		prev = o
	}
	skips, err := Skips(out)
	return List{Postings: out, Skips: skips}, len(ords), err
}
