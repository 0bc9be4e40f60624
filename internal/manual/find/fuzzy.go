package find

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// The fuzzy heading lookup (stage 3) ranks the nodes of a manual holding
// any trigram of a term by bm25 over their trigrams (title, normal text,
// file name, with the manual weights), and keeps the first fuzzyPerTerm.
// The statistics are the manual's own — its nodes, their trigrams, and how
// many of them hold each trigram — so that another manual, or another
// folder's, never moves its ranking; the score is rank.TrigramBM25's. The
// store's trigram index only lists the rows holding a trigram (typed terms
// in, rows out); the scores are worked out here, in memory, and only for
// the rows that could still be among the first (see topTrigramRows).

// trigramRows are a manual snapshot's rows as FTS5's trigram tokenizer sees
// them: each column folded as it folds, and each row's token count.
// Immutable once built.
type trigramRows struct {
	cols [][3]string // by node: title, norm, file name, folded
	size []int32     // by node: the tokens of its three columns, bm25's D
	// tokens is the sum of size: with the nodes, the manual's own
	// statistics for bm25's average length.
	tokens int64
	// names finds the nodes whose folded title or file name may hold a
	// trigram (a hint, like every gramIndex); the snapshot's text index
	// finds those of the normal text, and normOdd are the nodes whose
	// folded normal text is not their normal text, which it cannot vouch
	// for.
	names   *gramIndex
	normOdd []int32
}

// trigramRows returns the snapshot's trigramRows, building them on first
// use (a fuzzy lookup is rare: most searches never need them).
func (sn *manualSnapshot) trigramRows() *trigramRows {
	sn.trigramOnce.Do(func() { sn.trigram = newTrigramRows(sn.nodes) })
	return sn.trigram
}

func newTrigramRows(nodes []db.ManualNode) *trigramRows {
	r := &trigramRows{cols: make([][3]string, len(nodes)), size: make([]int32, len(nodes))}
	names := make([]string, len(nodes))
	for i, n := range nodes {
		for c, t := range [3]string{n.Title, n.Norm, n.FileName} {
			f, runes := foldTrigramText(t)
			r.cols[i][c] = f
			r.size[i] += int32(max(0, runes-2))
		}
		r.tokens += int64(r.size[i])
		if r.cols[i][1] != n.Norm {
			r.normOdd = append(r.normOdd, int32(i))
		}
		// No trigram holds a NUL (foldTrigramText drops it), so none is
		// found across the two.
		names[i] = r.cols[i][0] + "\x00" + r.cols[i][2]
	}
	r.names = newGramIndex(len(nodes), func(i int) string { return names[i] })
	return r
}

// foldTrigramRune is FTS5's trigram tokenizer's folding of r (its default:
// case folded from SQLite's tables, diacritics kept; tokenize.FoldCase),
// so that a row's folded text holds a trigram exactly where the store's
// trigram index lists the row for it. U+FFFE and U+FFFF are read as
// U+FFFD, as SQLite reads them.
func foldTrigramRune(r rune) rune {
	if r == 0xFFFE || r == 0xFFFF {
		return utf8.RuneError
	}
	return tokenize.FoldCase(r)
}

// foldTrigramText folds t as foldTrigramRune does, without NULs (the
// tokenizer skips them) and with invalid UTF-8 read as U+FFFD, and counts
// its characters. The string is t itself when folding leaves it as it is.
func foldTrigramText(t string) (string, int) {
	if !utf8.ValidString(t) {
		t = strings.ToValidUTF8(t, "\uFFFD")
	}
	t = strings.ReplaceAll(t, "\x00", "")
	n := 0
	same := true
	for _, r := range t {
		same = same && foldTrigramRune(r) == r
		n++
	}
	if same {
		return t, n
	}
	b := make([]byte, 0, len(t))
	for _, r := range t {
		b = utf8.AppendRune(b, foldTrigramRune(r))
	}
	return string(b), n
}

// maxKeptGrams bounds the trigrams a snapshot keeps the rows of.
const maxKeptGrams = 4096

// rowsHolding returns the snapshot's nodes the store's trigram index lists
// for gram, kept with the snapshot: the index lists every manual's rows, and
// the same trigrams come back query after query ("the", "ion").
func (sn *manualSnapshot) rowsHolding(ctx context.Context, store *db.DB, gram string) ([]int32, error) {
	sn.gramMu.Lock()
	held, ok := sn.gramRows[gram]
	sn.gramMu.Unlock()
	if ok {
		return held, nil
	}
	ids, err := store.ManualTrigramRows(ctx, gram)
	if err != nil {
		return nil, err
	}
	held = []int32{}
	rowOf := sn.nodeTree().rows
	for _, id := range ids {
		if p, ok := rowOf[id]; ok {
			held = append(held, p)
		}
	}
	sn.gramMu.Lock()
	if sn.gramRows == nil || len(sn.gramRows) >= maxKeptGrams {
		sn.gramRows = map[string][]int32{}
	}
	sn.gramRows[gram] = held
	sn.gramMu.Unlock()
	return held, nil
}

// fuzzyHits returns the first limit nodes of the manual for the trigrams
// of term (normalised), best first (topTrigramRows).
func (s *stageRun) fuzzyHits(ctx context.Context, snap *manualSnapshot, term string, limit int) ([]rank.Posting, error) {
	return topTrigramRows(ctx, s.f.Index.store, snap, term, limit)
}

// topTrigramRows ranks the snapshot's rows for the trigrams of term by
// bm25 over the manual's own trigram statistics (rank.TrigramBM25) and
// returns the first limit, best first, ties in row order.
//
// bm25 sums over the query's trigrams, each scoring at most idf·(k1+1)
// however often a row holds it. The trigrams are taken rarest first (the
// highest idf), and with each, the rows that may hold it are scored; once
// the trigrams left could not lift a row that has none of those taken so
// far to the score of the last of the first limit, no other row can be
// among them (MaxScore). The common trigrams, in most rows and worth little
// (bm25 gives a trigram in more than half the rows an idf of 1e-6), then
// add no row, and few rows are scored.
func topTrigramRows(ctx context.Context, store *db.DB, snap *manualSnapshot, term string, limit int) ([]rank.Posting, error) {
	grams := distinctTrigrams(term)
	if len(grams) == 0 || limit <= 0 || len(snap.nodes) == 0 {
		return nil, nil
	}
	rows := snap.trigramRows()
	// The manual's rows holding each trigram, as the store's index lists
	// them, and from their number the trigram's idf in this manual alone.
	held := make([][]int32, len(grams))
	counts := make([]int64, len(grams))
	for i, g := range grams {
		var err error
		if held[i], err = snap.rowsHolding(ctx, store, g); err != nil {
			return nil, err
		}
		counts[i] = int64(len(held[i]))
	}
	bm := rank.NewTrigramBM25(counts, int64(len(snap.nodes)), rows.tokens)
	r := rowScorer{rows: rows, grams: grams, bm: bm}

	order := make([]int, len(grams)) // rarest first
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case bm.IDF(a) > bm.IDF(b):
			return -1
		case bm.IDF(a) < bm.IDF(b):
			return 1
		}
		return 0
	})
	// rest[j] bounds what the trigrams after order[j] add to any row.
	rest := make([]float64, len(order))
	for j := len(order) - 2; j >= 0; j-- {
		rest[j] = rest[j+1] + bm.Max(order[j+1])
	}

	var top []rank.Posting
	full := func() bool { return len(top) == limit }
	insert := func(hit rank.Posting) {
		at, _ := slices.BinarySearchFunc(top, hit, func(a, b rank.Posting) int {
			switch {
			case a.Score > b.Score:
				return -1
			case a.Score < b.Score:
				return 1
			}
			return cmpInt64(a.ID, b.ID)
		})
		if at < limit {
			top = slices.Insert(top, at, hit)
			top = top[:min(len(top), limit)]
		}
	}
	// below reports whether a row scoring at most bound cannot be among
	// the first; the margin stands for the rounding of the sums, far below
	// it.
	below := func(bound float64) bool { return full() && rank.Below(bound, top[limit-1].Score) }

	hints := make([]gramHint, len(grams))
	for i, g := range grams {
		hints[i] = newGramHint(snap.textIndex(), rows, g)
	}
	r.hints = hints
	place := make([]int, len(grams)) // gram -> its place in order
	for j, i := range order {
		place[i] = j
	}
	seen := newBitset(len(snap.nodes))
	type fresh struct {
		p     int32
		bound float64
	}
	var rowsAt []fresh
	for j, i := range order {
		if j > 0 && below(rest[j-1]) {
			break // no row without the trigrams taken can be among the first
		}
		// The rows first met here hold none of the rarer trigrams: each
		// scores at most what this one gives it and what the later ones it
		// may hold could.
		rowsAt = rowsAt[:0]
		for _, p := range held[i] {
			if seen.has(int(p)) {
				continue
			}
			seen.set(int(p))
			// What the others may add first (reading no text), and what
			// this one does only for the rows that could still rise high
			// enough.
			later := r.rest(p, place, j)
			if below(bm.Max(i) + later) {
				continue
			}
			rowsAt = append(rowsAt, fresh{p, r.term(p, i) + later})
		}
		slices.SortFunc(rowsAt, func(a, b fresh) int {
			switch {
			case a.bound > b.bound:
				return -1
			case a.bound < b.bound:
				return 1
			}
			return 0
		})
		for _, f := range rowsAt {
			if below(f.bound) {
				break
			}
			insert(rank.Posting{ID: snap.nodes[f.p].RowID, Score: r.score(f.p, place, j)})
		}
	}
	return top, nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// distinctTrigrams are the trigrams of s once each, in order: the phrases
// of ftsquery.AnyTrigram(s), in its order.
func distinctTrigrams(s string) []string {
	var out []string
	for _, g := range ftsquery.Trigrams(s) {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// rowScorer reads a snapshot's rows for rank.TrigramBM25, which scores
// them.
type rowScorer struct {
	rows  *trigramRows
	hints []gramHint // by trigram
	grams []string
	bm    *rank.TrigramBM25
}

// score returns row p's bm25 (higher is better), p
// holding none of the trigrams whose rank is below from (they add exactly
// nothing: a row's score is the sum of the trigrams' terms in query order).
func (r *rowScorer) score(p int32, rank []int, from int) float64 {
	score := 0.0
	for i := range r.grams {
		if rank[i] >= from && r.hints[i].may(p) {
			score = score + r.term(p, i)
		}
	}
	return score
}

// rest is at most what the trigrams ranked after j add to row p's score:
// idf·(k1+1) for each the row may hold.
func (r *rowScorer) rest(p int32, rank []int, j int) float64 {
	b := 0.0
	for i := range r.grams {
		if rank[i] > j && r.hints[i].may(p) {
			b += r.bm.Max(i)
		}
	}
	return b
}

// term is what trigram i adds to row p's bm25.
func (r *rowScorer) term(p int32, i int) float64 {
	cols := &r.rows.cols[p]
	g := r.grams[i]
	return r.bm.Term(i, [3]int{countOverlapping(cols[0], g), countOverlapping(cols[1], g), countOverlapping(cols[2], g)}, r.rows.size[p])
}

// countOverlapping counts the places where g starts in t, overlapping ones
// included (FTS5 has a token at every character). Both are valid UTF-8, so
// a match starts on a character.
func countOverlapping(t, g string) int {
	n := 0
	for {
		i := strings.Index(t, g)
		if i < 0 {
			return n
		}
		n++
		t = t[i+1:]
	}
}

// gramHint tells the rows that may hold a trigram in a column from the
// snapshot's indexes, without reading their texts: a row is left out only
// when one of the byte trigrams the trigram would bring to its loose text
// (the normal text without separators), and one of those it would bring to
// its folded title and file name, is not there.
type gramHint struct {
	all   bool      // every row may (a key too short to look up)
	loose []posting // each a key of the trigram without separators
	names []posting // each a key of the trigram
	odd   []int32   // rows the loose index cannot vouch for, ascending
}

func newGramHint(t *textIndex, rows *trigramRows, g string) gramHint {
	key, ok := stripSeparators(g)
	if !ok || len(key) < 3 {
		return gramHint{all: true}
	}
	h := gramHint{odd: mergeAsc(t.normOut, rows.normOdd)}
	h.loose, ok = t.loose.keyPostings(key)
	if !ok {
		h.loose = nil // no loose text holds it
		h.loose = append(h.loose, posting{})
	}
	h.names, ok = rows.names.keyPostings(g)
	if !ok {
		h.names = append(h.names[:0], posting{})
	}
	return h
}

// may reports whether row p may hold the trigram.
func (h *gramHint) may(p int32) bool {
	if h.all {
		return true
	}
	if _, odd := slices.BinarySearch(h.odd, p); odd {
		return true
	}
	return holdsAll(h.loose, p) || holdsAll(h.names, p)
}

func holdsAll(ps []posting, p int32) bool {
	for _, q := range ps {
		if !q.has(p) {
			return false
		}
	}
	return true
}
