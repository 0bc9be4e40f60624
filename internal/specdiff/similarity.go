package specdiff

import (
	"cmp"
	"context"
	"math"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Text similarity is the Dice coefficient of the two texts' multisets of
// word bigrams: 2·|A∩B| / (|A|+|B|), where words are runs of letters,
// digits and "_", lower-cased. Bigrams keep some word order, so two
// sections that merely use the same vocabulary (every "Examples" section of
// the Rust Reference says "let", "fn", "x") score low, while a text moved
// under a new heading scores 1 and one reworded sentence in a paragraph
// costs only the two or three bigrams it touches. A multiset rather than a
// set keeps repeated lines (code) counting. Dice rather than Jaccard reads
// as "the share of bigrams the two have in common". Both empty: 1.
//
// Bigrams are kept as 64-bit hashes, sorted, so a similarity is one merge,
// linear in the texts' lengths, and no table of strings is built.

// shingles returns a text's word bigram hashes, sorted, and its number of
// words. A one-word text has that word as its only shingle.
func shingles(text string) (bag []uint64, words int) {
	var prev uint64
	forEachWord(text, func(h uint64) {
		words++
		if words > 1 {
			bag = append(bag, mix(prev*0x9e3779b97f4a7c15^h))
		}
		prev = h
	})
	if words == 1 {
		bag = append(bag, mix(prev))
	}
	slices.Sort(bag)
	return bag, words
}

// wordBag returns the hashes of a sentence's words, sorted: the word overlap
// that decides whether a removed and an added sentence are one reworded.
func wordBag(s string) []uint64 {
	var bag []uint64
	forEachWord(s, func(h uint64) { bag = append(bag, h) })
	slices.Sort(bag)
	return bag
}

// forEachWord calls f with the hash (FNV-1a over the lower-cased runes) of
// each word of s, in order.
func forEachWord(s string, f func(uint64)) {
	const offset, prime = 14695981039346656037, 1099511628211
	h, in := uint64(offset), false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if isWordRune(r) {
			h = (h ^ uint64(unicode.ToLower(r))) * prime
			in = true
			continue
		}
		if in {
			f(h)
			h, in = offset, false
		}
	}
	if in {
		f(h)
	}
}

// mix spreads a combination of word hashes over all 64 bits (the
// splitmix64 finaliser), so that bigram hashes do not cluster.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// dice is the Dice coefficient of two sorted multisets.
func dice(a, b []uint64) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	return 2 * float64(overlap(a, b)) / float64(len(a)+len(b))
}

// overlap is the size of the multiset intersection of sorted a and b.
func overlap(a, b []uint64) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n, i, j = n+1, i+1, j+1
		}
	}
	return n
}

// candidate is a pair of unmatched sections, by index into the old and new
// versions, with their similarity.
type candidate struct {
	old, new int
	sim      float64
}

// similarPairs finds every pair of an old and a new section, among olds
// and news (indexes into the sides' sections), whose similarity is at
// least threshold and for which also(old, new) holds, without comparing
// every pair.
//
// It is the prefix filter of set-similarity joins (Chaudhuri, Ganti and
// Kaushik 2006; Bayardo, Ma and Srikant 2007): order every text's shingles
// rarest first, by how many of the sections at hand hold them. Dice ≥ t
// needs an overlap of at least ⌈t·|A|/(2−t)⌉ shingles (the least when B is
// as small as Dice allows), and two multisets that share o shingles share
// one among the first |A|−o+1 of A and the first |B|−o+1 of B. So only
// pairs sharing a shingle of those prefixes are compared: with the rarest
// shingles first, that is few pairs, and none is missed. For t = 0.8 the
// prefix is a third of the text plus one. Texts without words never meet
// here; callers handle them. Once ctx has ended it stops, its pairs partial.
func similarPairs(ctx context.Context, oldSecs, newSecs []section, olds, news []int, threshold float64, also func(o, n int) bool) []candidate {
	df := map[uint64]int32{}
	count := func(bag []uint64) {
		for k, h := range bag {
			if k == 0 || bag[k-1] != h {
				df[h]++
			}
		}
	}
	for _, o := range olds {
		count(oldSecs[o].bag)
	}
	for _, n := range news {
		count(newSecs[n].bag)
	}
	type ranked struct {
		df int32
		h  uint64
	}
	var buf []ranked
	prefix := func(bag []uint64) []ranked {
		minOverlap := max(1, int(math.Ceil(threshold*float64(len(bag))/(2-threshold)-1e-9)))
		buf = buf[:0]
		for _, h := range bag {
			buf = append(buf, ranked{df[h], h})
		}
		slices.SortFunc(buf, func(x, y ranked) int {
			if c := cmp.Compare(x.df, y.df); c != 0 {
				return c
			}
			return cmp.Compare(x.h, y.h)
		})
		return buf[:max(0, len(buf)-minOverlap+1)]
	}

	index := map[uint64][]int{} // shingle → olds (as positions in olds) whose prefix holds it
	for k, o := range olds {
		for _, r := range prefix(oldSecs[o].bag) {
			if list := index[r.h]; len(list) == 0 || list[len(list)-1] != k {
				index[r.h] = append(list, k)
			}
		}
	}
	var out []candidate
	seen := make([]int, len(olds)) // the new section (plus one) that last compared each old one
	for i, n := range news {
		if i%checkEvery == 0 && ctx.Err() != nil {
			break
		}
		nb := newSecs[n].bag
		for _, r := range prefix(nb) {
			for _, k := range index[r.h] {
				if seen[k] == n+1 {
					continue
				}
				seen[k] = n + 1
				o := olds[k]
				ob := oldSecs[o].bag
				// Dice can reach threshold only when the sizes are close.
				small, large := float64(min(len(ob), len(nb))), float64(max(len(ob), len(nb)))
				if 2*small < threshold*(small+large)-1e-9 || !also(o, n) {
					continue
				}
				if sim := dice(ob, nb); sim >= threshold {
					out = append(out, candidate{o, n, sim})
				}
			}
		}
	}
	return out
}
