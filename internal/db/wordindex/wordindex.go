// Package wordindex keeps a second copy of the word index's postings — for
// each snapshot and each term, the sections holding it and how often in
// each column — in a form Go can rank without SQLite's help, and ranks
// them exactly as FTS5's bm25() does.
//
// Why a copy: FTS5's bm25() reads every matching row's size from a B-tree,
// one seek per row, so a query of two common words over 50,000 sections
// costs 80 ms, and even iterating FTS5's doclists costs 7 ms
// (docs/performance.md). Decoding a few compact byte lists and adding
// floats costs a small fraction of that. FTS5 stays the index of record
// for everything else (phrases, prefixes, the path filter).
//
// The terms are the ones FTS5 stores: tokens as text/tokenize splits and
// folds them (unicode61 remove_diacritics 2), stemmed by tokenize.Stem
// (porter); internal/db's crosscheck tests hold both to the linked SQLite.
package wordindex

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/langspec/langspec/internal/text/tokenize"
)

// Columns is the number of columns of the word index: title, path, body,
// anchors, in that order (internal/db WordColumns).
const Columns = 4

// Builder gathers the postings of one snapshot, section by section in the
// order they are stored. Not safe for concurrent use.
type Builder struct {
	stems    map[string]string // folded word → its stem: most words recur, stemming costs more than a lookup
	lists    map[string]*list
	inRow    map[string]int // the current section's terms → index in counts
	counts   [][Columns]uint32
	order    []string // the current section's terms in first-seen order
	toks     []tokenize.Token
	lengths  []uint32 // each section's tokens, all columns
	tokens   int64
	sections int
}

// list is one term's postings being written: section ordinals as deltas.
type list struct {
	data []byte
	last int // ordinal of the last section added
	df   int
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{stems: map[string]string{}, lists: map[string]*list{}, inRow: map[string]int{}}
}

// Add adds the next section, its columns in order (title, path, body,
// anchors). It returns the folded tokens of every column to fn as well, so
// a caller counting words of its own needs no second tokenization; fn may
// be nil.
func (b *Builder) Add(columns [Columns]string, fn func(folded string)) {
	clear(b.inRow)
	b.order = b.order[:0]
	b.counts = b.counts[:0]
	length := 0
	for c, text := range columns {
		b.toks = tokenize.AppendTokens(b.toks[:0], text)
		length += len(b.toks)
		for _, t := range b.toks {
			if fn != nil {
				fn(t.Folded)
			}
			stem, ok := b.stems[t.Folded]
			if !ok {
				stem = tokenize.Stem(t.Folded)
				b.stems[t.Folded] = stem
			}
			i, ok := b.inRow[stem]
			if !ok {
				i = len(b.counts)
				b.inRow[stem] = i
				b.counts = append(b.counts, [Columns]uint32{})
				b.order = append(b.order, stem)
			}
			b.counts[i][c]++
		}
	}
	ord := b.sections
	for i, term := range b.order {
		l := b.lists[term]
		if l == nil {
			l = &list{last: -1}
			b.lists[term] = l
		}
		l.data = appendPosting(l.data, ord-l.last, b.counts[i])
		l.last = ord
		l.df++
	}
	b.lengths = append(b.lengths, uint32(length))
	b.tokens += int64(length)
	b.sections++
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
}

// Terms returns the snapshot's terms in byte order.
func (b *Builder) Terms() []Term {
	out := make([]Term, 0, len(b.lists))
	for text, l := range b.lists {
		out = append(out, Term{Text: text, DF: l.df, Postings: l.data})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Text < out[j].Text })
	return out
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

	// norms holds each section's length term of bm25's denominator for the
	// last average length asked: it changes only when the table does, and
	// a division per posting less is a fifth of a ranking.
	norms atomic.Pointer[lengthNorms]
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
// rows rows, with its floor for phrases in more than half of them. Go's
// math.Log can differ from the C library's log in the last bit; a caller
// that must equal bm25() to the bit takes the logarithm from SQLite's ln()
// and applies FloorIDF.
func IDF(rows, hits int64) float64 {
	return FloorIDF(math.Log((float64(rows-hits) + 0.5) / (float64(hits) + 0.5)))
}

// FloorIDF is FTS5's floor on an IDF: a phrase in more than half the rows
// still counts for a little.
func FloorIDF(idf float64) float64 {
	if idf <= 0 {
		return 1e-6
	}
	return idf
}

// Query is a ranking request: the phrases (one term each) in query order,
// each with its IDF, the column weights and the average length. The
// statistics are the whole table's, as FTS5 takes them, so that a score
// here equals bm25()'s for the same row.
type Query struct {
	IDF     []float64
	Weights [Columns]float64
	AvgLen  float64
}

// Hit is a ranked section: its row id and score (higher is better; the
// negation of bm25()).
type Hit struct {
	ID    int64
	Score float64
}

// Scorer holds the buffers one ranking uses, to be used again by the next
// (a Scorer over 50,000 sections is half a megabyte). Not safe for
// concurrent use; the zero value is ready.
type Scorer struct {
	scores  []float64
	seen    []uint64 // the sections matched, when a weight of zero or less can leave a match at score 0
	touched []int32
}

// Rank scores the sections of snap holding any of the query's terms
// (lists[i] holds phrase i's postings in snap, nil when snap lacks it)
// and adds them to top.
//
// The arithmetic follows fts5Bm25Function step for step: a phrase's
// frequency adds its column's weight once per occurrence in column order,
// and the phrases' terms are summed in query order (a phrase the section
// lacks adds zero there, which changes no sum). With IDFs from SQLite's
// ln() (see IDF), scores are bm25()'s to the last bit.
func (sc *Scorer) Rank(snap *Snapshot, q Query, lists [][]byte, top *Top) error {
	if len(lists) != len(q.IDF) {
		return errors.New("wordindex: one list per phrase is needed")
	}
	n := len(snap.IDs)
	if len(sc.scores) < n {
		sc.scores = make([]float64, n)
		sc.seen = make([]uint64, (n+63)/64)
	}
	scores, seen := sc.scores[:n], sc.seen
	norms := snap.lengthNorms(q.AvgLen)
	// With every weight positive, every match adds more than zero, and a
	// score of zero says the section is new; the bitset is only needed
	// when a weight can leave a match at zero.
	positive := true
	// A whole-number weight times a count, added to a whole number, is the
	// same number as the weight added count times (every partial sum is a
	// whole number well inside float64's exact range), and one
	// multiplication is cheaper than a chain of additions; otherwise the
	// weight is added as FTS5 adds it.
	var whole [Columns]bool
	for c, w := range q.Weights {
		positive = positive && w > 0
		whole[c] = w == math.Trunc(w) && math.Abs(w) < 1<<20
	}
	touched := sc.touched[:0]
	// Every used entry is cleared on the way out, so the next ranking
	// starts from zeros without clearing the whole buffer.
	defer func() {
		for _, ord := range touched {
			scores[ord] = 0
			seen[ord/64] = 0
		}
		sc.touched = touched[:0]
	}()
	for i, data := range lists {
		idf := q.IDF[i]
		ord := -1
		for len(data) > 0 {
			head, rest, ok := uvarint(data)
			if !ok {
				return errCorrupt
			}
			data = rest
			ord += int(head >> Columns)
			if ord < 0 || ord >= n {
				return errCorrupt
			}
			freq := 0.0
			for c := range Columns {
				if head&(1<<c) == 0 {
					continue
				}
				count, rest, ok := uvarint(data)
				if !ok {
					return errCorrupt
				}
				data = rest
				w := q.Weights[c]
				if whole[c] && count < 1<<20 && freq == math.Trunc(freq) {
					freq += w * float64(count)
					continue
				}
				for range count {
					freq += w
				}
			}
			if positive {
				if scores[ord] == 0 {
					touched = append(touched, int32(ord))
				}
			} else if seen[ord/64]&(1<<(ord%64)) == 0 {
				seen[ord/64] |= 1 << (ord % 64)
				touched = append(touched, int32(ord))
			}
			scores[ord] += TermScore(idf, freq, norms[ord])
		}
	}
	for _, ord := range touched {
		top.Push(Hit{ID: snap.IDs[ord], Score: scores[ord]})
	}
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
