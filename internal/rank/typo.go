package rank

import (
	"strings"
	"unicode"

	"github.com/langspec/langspec/internal/text/tokenize"
)

// Correction is a query word the corpus does not hold and the word it most
// likely meant. The corrected word joins the query; the original stays.
type Correction struct {
	Word string `json:"word" jsonschema:"the word as typed (folded)"`
	To   string `json:"to" jsonschema:"the word of the documents searched as well"`
}

// maxEdits is how many edits a word of n runes may be from its correction:
// none under four runes (one edit turns "map" into "max" or "cap"), one up
// to nine, two beyond. Real slips are one edit ("reciever", "goroutne",
// "paramter"); allowing two on shorter words turned "casting" into
// "calling" and "crashes" into "classes".
func maxEdits(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 10:
		return 1
	default:
		return 2
	}
}

// corrections returns, for each content word missing from vocab, the
// vocabulary words closest to it by edit distance (a swap of neighbours is
// one edit): the nearest, most common first, at most two per word.
func corrections(words []Term, vocab *Vocabulary) []Correction {
	var out []Correction
	var osa osaRows
	type cand struct {
		term string
		dist int
		df   int
	}
	better := func(a, b cand) bool {
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		if a.df != b.df {
			return a.df > b.df
		}
		return a.term < b.term
	}
	for _, w := range words {
		// Query words are ASCII (plainWord), so only ASCII words can be
		// within reach, and byte lengths are rune counts.
		n := len(w.Text)
		k := maxEdits(n)
		if k == 0 || w.Prefix || !plainWord(w.Text) || vocab.DF(w.Text) > 0 {
			continue
		}
		// A word whose stem the corpus knows ("loops" of "loop") is found
		// by the index's stemming; only a word that goes on from that stem
		// may correct it ("descripter" is "descriptor", not "description"),
		// never another word ("looks").
		stem := tokenize.Stem(w.Text)
		known := vocab.StemDF(stem) > 0
		letters := newLetterBag(w.Text)
		var best []cand
		for m := n - k; m <= n+k; m++ {
			// Slips keep the first letter: "header" is not a misspelt
			// "reader", nor "wipe" of "pipe".
			for _, term := range vocab.ASCIIWords(m, w.Text[0]) {
				if known && (!strings.HasPrefix(term, stem) || tokenize.Stem(term) == stem) {
					continue
				}
				if letters.distance(term) > k {
					continue // too many letters differ: no need for the table
				}
				d := osa.distance(w.Text, term, k)
				if d > k {
					continue
				}
				best = append(best, cand{term, d, vocab.DF(term)})
				for i := len(best) - 1; i > 0 && better(best[i], best[i-1]); i-- {
					best[i], best[i-1] = best[i-1], best[i]
				}
				if len(best) > 2 {
					best = best[:2]
				}
			}
		}
		for i, c := range best {
			if i > 0 && c.dist > best[0].dist {
				break
			}
			out = append(out, Correction{Word: w.Text, To: c.term})
		}
	}
	return out
}

// mayCorrect reports whether some word could be corrected: one the corpus
// lacks that is long and plain enough (the vocabulary is read only then).
func mayCorrect(words []Term, counts WordCounts) bool {
	for _, w := range words {
		if maxEdits(len(w.Text)) > 0 && !w.Prefix && plainWord(w.Text) && counts.DF[w.Text] == 0 {
			return true
		}
	}
	return false
}

// plainWord reports whether w is ASCII letters only: numbers, identifiers
// with digits and CJK runs are not corrected.
func plainWord(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) }) < 0
}

// letterBag counts the letters of a word, to bound its edit distance to
// another word cheaply from below: the letters either has that the other
// lacks, the larger count of the two sides. An insertion or a deletion
// changes that count by one at most, a substitution by one, a swap not at
// all, so it is never more than the optimal string alignment distance. At
// 200,000 generated sections the table for every word of the right length
// and first letter was a fifth of a misspelt query's time; most words are
// ruled out by their letters alone.
type letterBag struct {
	count [128]int8
	size  int
}

func newLetterBag(word string) letterBag {
	b := letterBag{size: len(word)}
	for i := 0; i < len(word); i++ {
		b.count[word[i]&0x7f]++ // word is ASCII (plainWord)
	}
	return b
}

// distance is the bound for the bag's word against other, any string.
func (b *letterBag) distance(other string) int {
	count := b.count
	unmatched := 0 // bytes of other the bag does not have
	for i := 0; i < len(other); i++ {
		c := other[i]
		if c < 0x80 && count[c] > 0 {
			count[c]--
		} else {
			unmatched++
		}
	}
	missing := b.size - (len(other) - unmatched) // letters other lacks
	return max(unmatched, missing)
}

// osaRows holds the rows of the distance table, reused across the
// vocabulary of one correction.
type osaRows struct{ prev2, prev, cur []int }

// distance is the optimal string alignment distance between ASCII strings a
// and b (edits are insert, delete, substitute, and swap of two neighbours),
// or a number above limit as soon as it must exceed it.
func (o *osaRows) distance(a, b string, limit int) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > limit {
		return limit + 1
	}
	if cap(o.prev) < len(b)+1 {
		o.prev2, o.prev, o.cur = make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev2, prev, cur := o.prev2[:len(b)+1], o.prev[:len(b)+1], o.cur[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
