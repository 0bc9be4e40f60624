package find

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// The fuzzy heading lookup (stage 3) asks for the rows of a manual holding
// any trigram of a term, best first by bm25 over the store's trigram index
// (ManualScope.Literal with ftsquery.AnyTrigram), and keeps the first
// fuzzyPerTerm. Short trigrams such as "es " or "t i" are in nearly every
// row, so the store scored every row of the manual, through its index and
// two joins: about 60 ms a term at 5,000 files, most of a search that
// reached it (docs/performance.md). fuzzyHits gives the same rows, in the
// same order with the same scores, from the manual's snapshot: bm25 is
// worked out in memory with the index's own statistics, and only for the
// rows that could still be among the first (see topTrigramRows).

// trigramRows are a manual snapshot's rows as FTS5's trigram tokenizer sees
// them: each column folded as it folds, and each row's token count.
// Immutable once built.
type trigramRows struct {
	// ok is false when some text has a character whose folding the
	// tokenizer may do differently from foldTrigramRune (a capital
	// letter beyond ASCII and the full-width alphabet, a NUL, invalid
	// UTF-8): that manual is ranked by the store.
	ok   bool
	cols [][3]string // by node: title, norm, file name, folded
	size []int32     // by node: the tokens of its three columns, bm25's D
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
			f, runes, ok := foldTrigramText(t)
			if !ok {
				return &trigramRows{}
			}
			r.cols[i][c] = f
			r.size[i] += int32(max(0, runes-2))
		}
		if r.cols[i][1] != n.Norm {
			r.normOdd = append(r.normOdd, int32(i))
		}
		// No trigram holds a NUL (foldTrigramText refuses it), so none is
		// found across the two.
		names[i] = r.cols[i][0] + "\x00" + r.cols[i][2]
	}
	r.names = newGramIndex(len(nodes), func(i int) string { return names[i] })
	r.ok = true
	return r
}

// foldTrigramRune is FTS5's trigram tokenizer's folding of r (its default:
// case folded, diacritics kept), and false for a character it may fold
// otherwise or read as another: ASCII and full-width capitals become small
// letters, and characters without case are left as they are (a letter that
// has no case in Go's tables had none in any older Unicode, the tables FTS5
// was built from). A NUL is skipped by the tokenizer and U+FFFE and U+FFFF
// are read as U+FFFD, so neither can be mirrored.
func foldTrigramRune(r rune) (rune, bool) {
	switch {
	case r == 0:
		return r, false
	case 'A' <= r && r <= 'Z', 'Ａ' <= r && r <= 'Ｚ':
		return r + 'a' - 'A', true
	case r < utf8.RuneSelf, 'ａ' <= r && r <= 'ｚ':
		return r, true
	case r == 0xFFFE || r == 0xFFFF:
		return r, false
	}
	return r, unicode.SimpleFold(r) == r
}

// foldTrigramText folds t as foldTrigramRune does and counts its
// characters; false when t is not valid UTF-8 or a character cannot be
// folded. The string is t itself when folding leaves it as it is.
func foldTrigramText(t string) (string, int, bool) {
	if !utf8.ValidString(t) {
		return "", 0, false
	}
	n := 0
	same := true
	for _, r := range t {
		f, ok := foldTrigramRune(r)
		if !ok {
			return "", 0, false
		}
		same = same && f == r
		n++
	}
	if same {
		return t, n, true
	}
	b := make([]byte, 0, len(t))
	for _, r := range t {
		f, _ := foldTrigramRune(r)
		b = utf8.AppendRune(b, f)
	}
	return string(b), n, true
}

// fuzzyHits returns what the manual's Scope(manual).Literal(ctx,
// ftsquery.AnyTrigram(term), limit) returns, term being normalised: from
// the snapshot when it and term can be mirrored, else from the store.
func (s *stageRun) fuzzyHits(ctx context.Context, snap *manualSnapshot, term string, limit int) ([]rank.Posting, error) {
	store := s.f.Index.store
	if hits, ok, err := topTrigramRows(ctx, store, snap, term, limit); ok || err != nil {
		return hits, err
	}
	scope := s.f.Index.manuals.Scope(snap.manual)
	return scope.Literal(ctx, ftsquery.AnyTrigram(term), rank.ManualWeights().ByColumn(scope.Columns()), limit)
}

// topTrigramRows ranks the snapshot's rows for the trigrams of term as
// FTS5's bm25 over the trigram index does, and returns the first limit,
// best first, ties in row order (the index lists rows by id and the sort
// keeps the first of equals); false when the snapshot or term cannot be
// mirrored, or the store's statistics cannot be read.
//
// bm25 sums over the query's trigrams, each scoring at most idf·(k1+1)
// however often a row holds it. The trigrams are taken rarest first (the
// highest idf), and with each, the rows that may hold it are scored; once
// the trigrams left could not lift a row that has none of those taken so
// far to the score of the last of the first limit, no other row can be
// among them (MaxScore). The common trigrams, in most rows and worth little
// (FTS5 gives a trigram in more than half the rows an idf of 1e-6), are
// then never looked up, and few rows are scored. A row is scored exactly as
// bm25() scores it, every operation in its order, so that the scores, and
// therefore the order, are FTS5's to the last bit.
func topTrigramRows(ctx context.Context, store *db.DB, snap *manualSnapshot, term string, limit int) ([]rank.Posting, bool, error) {
	grams := distinctTrigrams(term)
	if len(grams) == 0 || limit <= 0 {
		return nil, true, nil // the store matches nothing either
	}
	for _, g := range grams {
		if f, _, ok := foldTrigramText(g); !ok || f != g {
			return nil, false, nil
		}
	}
	rows := snap.trigramRows()
	if !rows.ok {
		return nil, false, nil
	}
	st, ok, err := store.ManualTrigramStats(ctx, grams)
	if err != nil || !ok {
		return nil, false, err
	}
	bm := rank.NewTrigramBM25(st.IDF, st.Rows, st.Tokens)
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
	rowOf := snap.nodeTree().rows
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
		ids, err := store.ManualTrigramRows(ctx, grams[i])
		if err != nil {
			return nil, false, err
		}
		// The rows first met here hold none of the rarer trigrams: each
		// scores at most what this one gives it and what the later ones it
		// may hold could.
		rowsAt = rowsAt[:0]
		for _, id := range ids {
			p, ok := rowOf[id]
			if !ok || seen.has(int(p)) {
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
	return top, true, nil
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

// rowScorer reads a snapshot's rows for rank.TrigramBM25, which scores them
// as the store's bm25() over the trigram index does.
type rowScorer struct {
	rows  *trigramRows
	hints []gramHint // by trigram
	grams []string
	bm    *rank.TrigramBM25
}

// score returns row p's bm25 (the store's score, bm25() negated), p
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
