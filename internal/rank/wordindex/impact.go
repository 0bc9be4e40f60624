package wordindex

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
)

// ImpactFrom is the number of postings from which a list is worth an
// impact head (see Impacts): below it, scoring every posting costs less
// than the head's bookkeeping.
const ImpactFrom = 4096

// A long list's head keeps its 1/headShare postings that add the most to a
// score (never fewer than minHead), best first; a ranking goes through
// them in tiers, the first of firstTier postings, each next one up to
// twice as far, until the top k is settled (Scorer.rankByHeads). Measured on the
// generated corpus (docs/performance.md, "Answering from impact heads"):
// a head of a sixteenth left a typo's two very common corrections to the
// full ranking, which an eighth settles; tiers that double rather than
// quadruple settle "type value" with half the postings read.
const (
	headShare = 8
	minHead   = 1024
	firstTier = 1024
)

// Impacts holds a long list's impact head once a ranking has worked it
// out: the postings that add the most to a section's score, best first,
// each a bound on what any posting after it adds. A query whose top k the
// heads settle is answered from them, at a cost that follows the postings
// it had to read, not the sections holding its words.
//
// Why worked out at the first ranking and not stored: what a posting adds
// depends on the column weights, which the ranking's caller tunes, and on
// the snapshot's average length; a head stored at ingest would have to be
// rebuilt whenever either changed, and would add to the database what the
// memo of a generation (internal/db) keeps in memory instead. The first
// ranking of a long list pays one pass over it and a sort of its head.
// A head takes 12 bytes for each of its postings (an eighth of the list)
// and 8 for every 64 of the list's, about 1.6 bytes a posting, beside the
// list's own 2 or so: the memo that keeps the list (maxMemoBytes) keeps
// the head with it.
//
// The zero value is ready; safe for concurrent use.
type Impacts struct {
	head atomic.Pointer[impactHead]
	// minHead and firstTier override the constants when above zero
	// (tests).
	minHead, firstTier int
}

// impactHead is a list's head for one set of weights and one average
// length.
type impactHead struct {
	weights [Columns]float64
	avgLen  float64
	// ords and values are the head's postings, the one adding the most
	// to a score first: the sections' ordinals and what each adds at an
	// IDF of one. TermScore multiplies by the IDF last, and 1·x is x, so
	// idf·value is to the bit what TermScore gives: adding a head posting
	// needs neither its section's length norm (a read at a random place
	// in a million) nor a division.
	ords   []int32
	values []float64
	// restValue is what a posting after the head that adds the most adds
	// at an IDF of one: no other posting after it adds more. rest is
	// false when the head holds the whole list.
	restValue float64
	rest      bool
	// marks lead into the whole list every markEvery postings, for
	// looking a section up in it: the byte offset of a posting and the
	// ordinal of the one before it (as Term.Skips, finer).
	markOffsets []uint32
	markOrds    []int32
	firstTier   int
}

// markEvery is how many postings lie between two of a head's marks: a
// lookup decodes fewer than that.
const markEvery = 64

// headFor returns l's head for the weights of dec and the length norms of
// norms (worked out for avgLen), building it when l has none for them.
func (im *Impacts) headFor(l List, dec *freqDecoder, avgLen float64, norms []float64) (*impactHead, error) {
	if h := im.head.Load(); h != nil && h.weights == dec.weights && h.avgLen == avgLen {
		return h, nil
	}
	h, err := buildHead(l, dec, avgLen, norms, cmp.Or(im.minHead, minHead))
	if err != nil {
		return nil, err
	}
	h.firstTier = cmp.Or(im.firstTier, firstTier)
	im.head.Store(h)
	return h, nil
}

// buildHead decodes l once and keeps its size postings whose
// contribution at an IDF of one is the largest, sorted by it: what a
// posting adds is the IDF times that contribution, and multiplying by the
// same positive number keeps the order (rounding is monotonic), so the
// head serves every IDF.
func buildHead(l List, dec *freqDecoder, avgLen float64, norms []float64, least int) (*impactHead, error) {
	if len(l.Postings) > math.MaxUint32 {
		return nil, errCorrupt
	}
	h := &impactHead{weights: dec.weights, avgLen: avgLen}
	var ords []int32
	var values []float64
	c := cursor{ord: -1, rest: l.Postings}
	for len(c.rest) > 0 {
		if len(ords)%markEvery == 0 {
			h.markOffsets = append(h.markOffsets, uint32(len(l.Postings)-len(c.rest)))
			h.markOrds = append(h.markOrds, int32(c.ord))
		}
		if err := c.stepAny(dec); err != nil {
			return nil, err
		}
		if uint(c.ord) >= uint(len(norms)) {
			return nil, errCorrupt
		}
		ords = append(ords, int32(c.ord))
		values = append(values, TermScore(1, c.freq, norms[c.ord]))
	}
	order := make([]int, 0, len(ords)) // the postings kept, by index
	size := max(least, len(ords)/headShare)
	if len(ords) <= size {
		for i := range ords {
			order = append(order, i)
		}
	} else {
		threshold := kthLargest(values, size+1)
		for i, v := range values {
			switch {
			case v > threshold:
				order = append(order, i)
			case v == threshold && !h.rest:
				h.restValue, h.rest = v, true
			}
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(values[b], values[a]) })
	h.ords, h.values = make([]int32, len(order)), make([]float64, len(order))
	for j, i := range order {
		h.ords[j], h.values[j] = ords[i], values[i]
	}
	return h, nil
}

// kthLargest returns the k-th largest of values (1 ≤ k ≤ len(values)),
// keeping the k largest seen in a min-heap.
func kthLargest(values []float64, k int) float64 {
	heap := make([]float64, 0, k)
	down := func(i int) {
		for {
			least, l, r := i, 2*i+1, 2*i+2
			if l < len(heap) && heap[l] < heap[least] {
				least = l
			}
			if r < len(heap) && heap[r] < heap[least] {
				least = r
			}
			if least == i {
				return
			}
			heap[i], heap[least] = heap[least], heap[i]
			i = least
		}
	}
	for _, v := range values {
		if len(heap) < k {
			heap = append(heap, v)
			for i := len(heap) - 1; i > 0 && heap[(i-1)/2] > heap[i]; i = (i - 1) / 2 {
				heap[i], heap[(i-1)/2] = heap[(i-1)/2], heap[i]
			}
			continue
		}
		if v > heap[0] {
			heap[0] = v
			down(0)
		}
	}
	return heap[0]
}

// bound returns what a posting of h's list after its first t head
// postings adds at most, at IDF idf: the next head posting's
// contribution, or the rest's past the head, or 0 when the head holds the
// whole list.
func (h *impactHead) bound(t int, idf float64) float64 {
	switch {
	case t < len(h.ords):
		return float64(idf * h.values[t])
	case h.rest:
		return float64(idf * h.restValue)
	}
	return 0
}

// The scores rankByHeads adds up go in another order than Rank's, so a
// floor or a ceiling may differ from the same sum in Rank's order by its
// rounding: a sum of n terms in float64 lies within n·2⁻⁵³ of the same
// sum in another order, relatively, and n is at most 64 here. below and
// above widen a floor and a ceiling by far more than that.
func below(x float64) float64 { return x - x*1e-12 }
func above(x float64) float64 { return x + x*1e-12 }

// rankByHeads ranks the sections of snap holding any of the query's
// terms into top from the heads of the long lists, and says whether it
// could: it answers only when the heads settle which k sections are the
// best, and then with their exact scores, the very ones Rank adds up.
//
// How: every posting of a short list is added to its section's score,
// and then the long lists' head postings, best first, a tier at a time;
// each section records the lists it was found in. A section's score so
// far is a floor of its score; the floor plus the bound of each long list
// it was not found in is a ceiling, and a section found in no list has
// the sum of the bounds as its ceiling. After each tier, when the k best
// floors beat the ceiling of every section that could still gain, the top
// k lies among those k and the sections found in every list near them:
// their exact scores (each list's posting looked up and added in query
// order, as Rank adds them) decide. When no tier settles it, it answers
// nothing and Rank ranks every posting.
func (sc *Scorer) rankByHeads(snap *Snapshot, q Query, lists []List, dec *freqDecoder, norms []float64, top *Top) (bool, error) {
	k := top.k
	if k <= 0 || !dec.positive || len(lists) > maxHeadLists {
		return false, nil
	}
	heads := make([]*impactHead, len(lists))
	var longLists uint64 // lists whose head leaves postings out
	for i, l := range lists {
		if l.Impacts == nil {
			continue
		}
		h, err := l.Impacts.headFor(l, dec, q.AvgLen, norms)
		if err != nil {
			return false, err
		}
		heads[i] = h
		if h.rest || len(h.ords) > h.firstTier {
			longLists |= 1 << i
		}
	}
	// Lists without a head are read whole: when they are most of the
	// postings (a prefix's union, a phrase), the heads cannot save much.
	headless, all := 0, 0
	for i, l := range lists {
		all += len(l.Postings)
		if heads[i] == nil {
			headless += len(l.Postings)
		}
	}
	if longLists == 0 || headless > all/2 {
		return false, nil
	}

	n := len(snap.IDs)
	places := &sc.places
	places.reset(len(lists) * firstTier) // the first tier's; it grows from there
	sums := sc.sums[:0]
	defer func() { sc.sums = sums[:0] }()
	add := func(i int, ord int32, score float64) {
		j, isNew := places.place(ord, len(sums))
		if isNew {
			sums = append(sums, headSum{ord: ord})
			if places.full(len(sums)) {
				places.grow()
			}
		}
		s := &sums[j]
		s.found |= 1 << i
		s.score += score
	}
	// The short lists whole, and their postings kept for the lookups.
	short := sc.short[:0]
	defer func() { sc.short = short }() // their buffers, for the next ranking
	for i, l := range lists {
		if heads[i] != nil {
			continue
		}
		var s shortList
		if len(short) < len(sc.short) {
			s = sc.short[len(short)]
		}
		s.list, s.ords, s.freqs = i, s.ords[:0], s.freqs[:0]
		c := cursor{ord: -1, rest: l.Postings}
		for len(c.rest) > 0 {
			if err := c.stepAny(dec); err != nil {
				return false, err
			}
			if uint(c.ord) >= uint(n) {
				return false, errCorrupt
			}
			add(i, int32(c.ord), TermScore(q.IDF[i], c.freq, norms[c.ord]))
			s.ords, s.freqs = append(s.ords, int32(c.ord)), append(s.freqs, c.freq)
		}
		short = append(short, s)
	}

	read := make([]int, len(lists)) // head postings added, by list
	bounds := make([]float64, len(lists))
	for tier := 0; ; tier++ {
		more := false
		for i, h := range heads {
			if h == nil {
				continue
			}
			end := min(len(h.ords), h.firstTier<<tier)
			idf := q.IDF[i]
			for t := read[i]; t < end; t++ {
				add(i, h.ords[t], float64(idf*h.values[t]))
			}
			read[i] = end
			bounds[i] = h.bound(end, idf)
			more = more || end < len(h.ords)
		}
		settled, err := settle(snap, q, lists, heads, short, dec, norms, sums, places, bounds, longLists, top)
		if settled || err != nil {
			return settled, err
		}
		if !more {
			return false, nil
		}
	}
}

// shortList is a list rankByHeads read whole: its postings, in list
// order, for looking sections up.
type shortList struct {
	list  int
	ords  []int32
	freqs []float64
}

// settle is rankByHeads' test after a tier: it pushes the top k to top and
// says true when the floors and ceilings (see rankByHeads) settle it. sums
// are the sections found so far, places their places in it by ordinal.
func settle(snap *Snapshot, q Query, lists []List, heads []*impactHead, short []shortList, dec *freqDecoder, norms []float64, sums []headSum, places *places, bounds []float64, longLists uint64, top *Top) (bool, error) {
	k := top.k
	unseen := 0.0 // the ceiling of a section found in no list
	for _, b := range bounds {
		unseen += b
	}
	best := NewTop(k)
	worst, full := best.Worst()
	for _, s := range sums {
		if full && s.score < worst.Score {
			continue
		}
		best.Push(Hit{ID: snap.IDs[s.ord], Score: s.score})
		worst, full = best.Worst()
	}
	floor := below(worst.Score)
	if !full || above(unseen) >= floor {
		return false, nil
	}
	candidates := make([]int32, 0, k) // places in sums
	for _, h := range best.heap {
		ord, _ := slices.BinarySearch(snap.IDs, h.ID)
		j := places.lookup(int32(ord))
		sums[j].found |= memberBit
		candidates = append(candidates, int32(j))
	}
	defer func() {
		for _, j := range candidates {
			sums[j].found &^= memberBit
		}
	}()
	lookups := 0
	for j := range sums {
		s := &sums[j]
		f := s.found
		if f&memberBit != 0 || above(s.score+unseen) < floor {
			continue // a member, or below the floor whatever it lacks
		}
		ceiling := s.score
		missing := longLists &^ f
		for m := missing; m != 0; m &= m - 1 {
			ceiling += bounds[bits.TrailingZeros64(m)]
		}
		if above(ceiling) < floor {
			continue
		}
		// It may still gain from a list it was not found in so far: its
		// exact score decides, looked up, unless so many are in that case
		// that reading the next tier costs less. Found in every list it
		// can be in and near the floor: its exact score decides too.
		if missing != 0 {
			if lookups++; lookups > maxLookups {
				return false, nil
			}
		}
		s.found |= memberBit
		candidates = append(candidates, int32(j))
	}
	ranked := NewTop(k)
	for _, j := range candidates {
		s := sums[j]
		score, err := exactScore(lists, heads, short, q, dec, norms, int(s.ord), s.score, s.found)
		if err != nil {
			return false, err
		}
		ranked.Push(Hit{ID: snap.IDs[s.ord], Score: score})
	}
	for _, h := range ranked.heap {
		top.Push(h)
	}
	return true, nil
}

// headSum is what rankByHeads has added up for one section found so far:
// its score so far, the lists it was found in, and its ordinal. The sums
// lie in the order their sections were found, and a section's place among
// them is kept in a small hash table (places): settle reads them from end
// to end, not at random places in an array of a million (a cache miss
// each, most of a common query's time at a million sections when it did),
// and a posting added probes a table that stays in the core's cache.
type headSum struct {
	score float64
	found uint64
	ord   int32
}

// maxLookups is how many sections a tier may complete by looking them up
// in the lists they were not found in (about 0.2 µs a list each) before
// settle gives up and reads the next tier.
const maxLookups = 2048

// memberBit marks, in headSum.found, the sections settle ranks by their
// exact scores; the bits below it are lists.
const (
	memberBit    uint64 = 1 << 63
	maxHeadLists        = 63
)

// exactScore returns the score of the section of ordinal ord, whose floor
// is floor and which was found in the lists of the bits of found: each
// list's posting for it looked up — in a long list through its head's
// marks, in a short one among the postings rankByHeads kept — and the
// lists' contributions added in query order, as Rank adds them. With two
// lists holding postings or one, the order of adding cannot change a sum
// (float addition is commutative, and an empty list adds nothing), so
// only the lists it was not found in are looked up, and added to its
// floor.
func exactScore(lists []List, heads []*impactHead, short []shortList, q Query, dec *freqDecoder, norms []float64, ord int, floor float64, found uint64) (float64, error) {
	held := 0
	for _, l := range lists {
		if len(l.Postings) > 0 {
			held++
		}
	}
	if held <= 2 {
		score := floor
		for i, l := range lists {
			if found&(1<<i) != 0 || heads[i] == nil || len(l.Postings) == 0 {
				continue // in floor already; a short list was read whole
			}
			freq, ok, err := heads[i].lookup(l, dec, ord)
			if err != nil {
				return 0, err
			}
			if ok {
				score += TermScore(q.IDF[i], freq, norms[ord])
			}
		}
		return score, nil
	}
	score := 0.0
	s := 0
	for i, l := range lists {
		var freq float64
		var ok bool
		if h := heads[i]; h != nil {
			var err error
			if freq, ok, err = h.lookup(l, dec, ord); err != nil {
				return 0, err
			}
		} else {
			for short[s].list != i {
				s++
			}
			var j int
			j, ok = slices.BinarySearch(short[s].ords, int32(ord))
			if ok {
				freq = short[s].freqs[j]
			}
		}
		if ok {
			score += TermScore(q.IDF[i], freq, norms[ord])
		}
	}
	return score, nil
}

// lookup finds the section of ordinal ord in l, the whole list h is the
// head of, from the last mark before it.
func (h *impactHead) lookup(l List, dec *freqDecoder, ord int) (float64, bool, error) {
	if len(h.markOrds) == 0 {
		return 0, false, nil // an empty list
	}
	m, _ := slices.BinarySearch(h.markOrds, int32(ord)) // the first mark not before ord
	m = max(m-1, 0)
	c := cursor{ord: int(h.markOrds[m]), rest: l.Postings[h.markOffsets[m]:]}
	body := dec.weights[bodyColumn]
	for len(c.rest) > 0 && c.ord < ord {
		if !dec.wholeBody || !c.stepBody(body) {
			if err := c.stepAny(dec); err != nil {
				return 0, false, err
			}
		}
	}
	return c.freq, c.ord == ord, nil
}
