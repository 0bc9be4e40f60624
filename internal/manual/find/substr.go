package find

import (
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// gramIndex tells which of a list of texts may hold a needle, so that a
// substring stage reads the few texts that can match instead of every text
// of the manual (issue 15: every stage scanning every node was most of a
// manual_find over thousands of files). It is a hint, never the answer:
// callers check each candidate with strings.Contains, so a search finds
// exactly what a scan of every text finds.
//
// The keys are the byte trigrams that begin on a rune start (a byte that is
// not a UTF-8 continuation byte): every trigram of ASCII text, and in
// Japanese text one key per character, a kanji or kana being three bytes, so
// a one-character needle such as 火 is looked up by its own key. Whether a
// byte is a continuation byte depends on the byte alone, so each key of a
// needle is a key of every text that holds the needle, valid UTF-8 or not.
// A needle of one or two bytes (db, p1, 1) is found through the trigrams it
// begins, and through each text's last two bytes and last byte, indexed as
// keys of their own: an occurrence either starts a trigram or ends the text.
//
// A key more than one text in denseShare has is kept as a bitset over the
// texts rather than a list of them: never larger than the list, far smaller
// for the commonest keys (a 5,000-file manual's index shrank from 29 to 11
// MB), and faster to intersect.
//
// Immutable once built; safe for concurrent use.
type gramIndex struct {
	keys  []uint32 // ascending
	start []int32  // the list of keys[k] is post[start[k]:start[k+1]], empty when it has a bitset
	post  []int32  // text numbers, ascending within a list
	df    []int32  // by key, the texts holding it
	set   []int32  // by key, the number of its bitset in sets, or -1
	sets  []uint64 // the bitsets, each words long
	words int      // (n+63)/64
	n     int      // texts
}

// denseShare is the share of the texts above which a key gets a bitset:
// one bit a text against 32 for each text in a list.
const denseShare = 32

// Key spaces: trigrams take the low 24 bits; a text's last two bytes and
// its last byte are tagged above them.
const (
	tail2Tag = 1 << 24
	tail1Tag = 2 << 24
)

// gramKey is the trigram at t[p:p+3], or false when p is not a rune start
// or fewer than three bytes are left.
func gramKey(t string, p int) (uint32, bool) {
	if p+3 > len(t) || !utf8.RuneStart(t[p]) {
		return 0, false
	}
	return uint32(t[p])<<16 | uint32(t[p+1])<<8 | uint32(t[p+2]), true
}

// asciiKeys is the size of the table that numbers ASCII trigrams while an
// index is built: seven bits a byte, looked up without hashing.
const asciiKeys = 1 << 21

// newGramIndex indexes the n texts text(0)…text(n-1).
func newGramIndex(n int, text func(int) string) *gramIndex {
	// Keys are numbered as they are first met, then put in order. Most
	// keys of most manuals are ASCII: numbering those through a table
	// rather than a map halves the time to build a large index; a small
	// one is built faster without clearing the table's 8 MB.
	size := 0
	for i := range n {
		size += len(text(i))
	}
	var ascii []int32 // ASCII trigram -> 1 + key number
	if size >= asciiKeys {
		ascii = make([]int32, asciiKeys)
	}
	other := map[uint32]int32{}   // any other key (every key without the table) -> key number
	var keys []uint32             // by key number
	var counts, last []int32      // by key number: texts holding it; 1 + the last text counted
	ids := make([]int32, 0, 1024) // each text's distinct key numbers, texts in order
	ends := make([]int32, n)      // text i's are ids[ends[i-1]:ends[i]]
	newID := func(k uint32) int32 {
		keys, counts, last = append(keys, k), append(counts, 0), append(last, 0)
		return int32(len(keys) - 1)
	}
	for i := range n {
		t := text(i)
		add := func(id int32) {
			if last[id] != int32(i+1) {
				last[id] = int32(i + 1)
				counts[id]++
				ids = append(ids, id)
			}
		}
		addKey := func(k uint32) {
			id, ok := other[k]
			if !ok {
				id = newID(k)
				other[k] = id
			}
			add(id)
		}
		for p := 0; p+3 <= len(t); p++ {
			k, ok := gramKey(t, p)
			if !ok {
				continue
			}
			if ascii != nil && t[p]|t[p+1]|t[p+2] < utf8.RuneSelf {
				slot := &ascii[uint32(t[p])<<14|uint32(t[p+1])<<7|uint32(t[p+2])]
				if *slot == 0 {
					*slot = newID(k) + 1
				}
				add(*slot - 1)
				continue
			}
			addKey(k)
		}
		if len(t) >= 2 {
			addKey(tail2Tag | uint32(t[len(t)-2])<<8 | uint32(t[len(t)-1]))
		}
		if len(t) >= 1 {
			addKey(tail1Tag | uint32(t[len(t)-1]))
		}
		ends[i] = int32(len(ids))
	}
	order := make([]int32, len(keys)) // key numbers in key order
	for id := range order {
		order[id] = int32(id)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmpUint32(keys[a], keys[b]) })
	x := &gramIndex{keys: make([]uint32, len(keys)), start: make([]int32, len(keys)+1), df: make([]int32, len(keys)),
		set: make([]int32, len(keys)), words: (n + 63) / 64, n: n}
	rank := make([]int32, len(keys)) // key number -> place in key order
	sets := int32(0)
	for r, id := range order {
		rank[id] = int32(r)
		x.keys[r] = keys[id]
		x.df[r] = counts[id]
		x.set[r] = -1
		listed := counts[id]
		if int(counts[id]) > n/denseShare && n >= 64 {
			x.set[r] = sets
			sets++
			listed = 0
		}
		x.start[r+1] = x.start[r] + listed
	}
	x.post = make([]int32, x.start[len(keys)])
	x.sets = make([]uint64, int(sets)*x.words)
	next := slices.Clone(x.start[:len(keys)])
	from := int32(0)
	for i := range n {
		for _, id := range ids[from:ends[i]] {
			r := rank[id]
			if b := x.set[r]; b >= 0 {
				x.sets[int(b)*x.words+i>>6] |= 1 << (i & 63)
				continue
			}
			x.post[next[r]] = int32(i)
			next[r]++
		}
		from = ends[i]
	}
	return x
}

func cmpUint32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// posting is the texts holding one key: a list, or a bitset.
type posting struct {
	list []int32
	set  bitset
	df   int
}

func (x *gramIndex) posting(k int) posting {
	if b := x.set[k]; b >= 0 {
		return posting{set: bitset(x.sets[int(b)*x.words : int(b+1)*x.words]), df: int(x.df[k])}
	}
	return posting{list: x.post[x.start[k]:x.start[k+1]], df: int(x.df[k])}
}

// keyPostings returns the postings of the keys of needle (three bytes or
// more, beginning on a rune start), which every text holding it has; false
// when no text has one of them.
func (x *gramIndex) keyPostings(needle string) ([]posting, bool) {
	var ps []posting
	for p := range len(needle) {
		k, ok := gramKey(needle, p)
		if !ok {
			continue
		}
		i, j := x.keyRange(k, k)
		if i == j {
			return nil, false
		}
		ps = append(ps, x.posting(i))
	}
	return ps, true
}

// has reports whether text i holds the key.
func (p posting) has(i int32) bool {
	if p.set != nil {
		return p.set.has(int(i))
	}
	_, ok := slices.BinarySearch(p.list, i)
	return ok
}

// keyRange returns the places in keys of the keys from lo to hi, inclusive.
func (x *gramIndex) keyRange(lo, hi uint32) (int, int) {
	i, _ := slices.BinarySearch(x.keys, lo)
	j, _ := slices.BinarySearch(x.keys, hi+1)
	return i, j
}

// fewEnough is the number of candidates below which intersecting more
// postings costs more than checking the candidates' texts.
const fewEnough = 16

// candidates returns, ascending, the texts that may hold needle; all is set
// when every text may (an empty needle, or one that starts inside a
// character). The slice may be the index's own: callers only read it.
func (x *gramIndex) candidates(needle string) (cands []int32, all bool) {
	if needle == "" || !utf8.RuneStart(needle[0]) {
		return nil, true
	}
	switch len(needle) {
	case 1:
		c := uint32(needle[0])
		return x.union([2]uint32{c << 16, c<<16 | 0xffff}, [2]uint32{tail2Tag | c<<8, tail2Tag | c<<8 | 0xff}, [2]uint32{tail1Tag | c, tail1Tag | c}), false
	case 2:
		k := uint32(needle[0])<<8 | uint32(needle[1])
		return x.union([2]uint32{k << 8, k<<8 | 0xff}, [2]uint32{tail2Tag | k, tail2Tag | k}), false
	}
	var ps []posting
	for p := range len(needle) {
		k, ok := gramKey(needle, p)
		if !ok {
			continue
		}
		i, j := x.keyRange(k, k)
		if i == j {
			return nil, false // a key no text has
		}
		ps = append(ps, x.posting(i))
	}
	slices.SortFunc(ps, func(a, b posting) int { return a.df - b.df })
	if ps[0].set != nil {
		// Every key is common: the texts with all of them.
		in := slices.Clone(ps[0].set)
		for _, p := range ps[1:] {
			for w := range in {
				in[w] &= p.set[w]
			}
		}
		return in.list(), false
	}
	cands = ps[0].list
	for i, p := range ps[1:] {
		if len(cands) <= fewEnough {
			break
		}
		var out []int32
		if i == 0 {
			out = make([]int32, 0, len(cands)) // never write into a posting
		} else {
			out = cands[:0]
		}
		if p.set != nil {
			for _, v := range cands {
				if p.set.has(int(v)) {
					out = append(out, v)
				}
			}
			cands = out
			continue
		}
		cands = intersect(out, cands, p.list)
	}
	return cands, false
}

// union returns, ascending and once each, the texts holding a key in any
// of the ranges of keys, each from its first key to its last.
func (x *gramIndex) union(ranges ...[2]uint32) []int32 {
	in := newBitset(x.n)
	for _, rg := range ranges {
		i, j := x.keyRange(rg[0], rg[1])
		for k := i; k < j; k++ {
			p := x.posting(k)
			if p.set != nil {
				in.or(p.set)
				continue
			}
			for _, t := range p.list {
				in.set(int(t))
			}
		}
	}
	return in.list()
}

// intersect appends to out the members of a that are in b, both ascending;
// out may share a's array.
func intersect(out, a, b []int32) []int32 {
	if len(b) > 8*len(a) {
		// A short list against a long one: look each member up.
		for _, v := range a {
			if _, ok := slices.BinarySearch(b, v); ok {
				out = append(out, v)
			}
		}
		return out
	}
	j := 0
	for _, v := range a {
		for j < len(b) && b[j] < v {
			j++
		}
		if j < len(b) && b[j] == v {
			out = append(out, v)
		}
	}
	return out
}

// wordIndex finds the texts holding a needle that has no separator
// (isSeparatorRune) exactly, without reading the texts: in valid UTF-8 such
// a needle can only occur inside a word, a longest run of characters that
// are not separators, so the texts holding it are those of the words
// holding it, and the words are few and short to check. Most needles are
// words or parts of one (incident, 再調達価額): reading every text that
// holds a common one was most of what was left of a search of a large
// manual once the gram index had found the candidates.
type wordIndex struct {
	words []string   // distinct words
	grams *gramIndex // over words
	start []int32    // the texts of words[k] are post[start[k]:start[k+1]]
	post  []int32
	n     int     // texts
	odd   []int32 // texts that are not valid UTF-8, to check directly
}

// wordly reports whether needle is non-empty, valid UTF-8 and without a
// separator: what a wordIndex finds exactly.
func wordly(needle string) bool {
	if needle == "" || !utf8.ValidString(needle) {
		return false
	}
	for _, r := range needle {
		if isSeparatorRune(r) {
			return false
		}
	}
	return true
}

// newWordIndex indexes the words of the n texts text(0)…text(n-1).
func newWordIndex(n int, text func(int) string) *wordIndex {
	x := &wordIndex{n: n}
	ids := map[string]int32{}
	var counts, last []int32
	var pairs []int32 // each text's distinct words, texts in order
	ends := make([]int32, n)
	for i := range n {
		t := text(i)
		if !utf8.ValidString(t) {
			x.odd = append(x.odd, int32(i))
			ends[i] = int32(len(pairs))
			continue
		}
		from := -1 // start of the word being read
		for p, r := range t {
			sep := isSeparatorRune(r)
			if sep && from >= 0 || !sep && from < 0 {
				if from >= 0 {
					pairs = x.addWord(ids, &counts, &last, pairs, t[from:p], i)
					from = -1
				} else {
					from = p
				}
			}
		}
		if from >= 0 {
			pairs = x.addWord(ids, &counts, &last, pairs, t[from:], i)
		}
		ends[i] = int32(len(pairs))
	}
	x.start = make([]int32, len(x.words)+1)
	for k, c := range counts {
		x.start[k+1] = x.start[k] + c
	}
	x.post = make([]int32, len(pairs))
	next := slices.Clone(x.start[:len(x.words)])
	from := int32(0)
	for i := range n {
		for _, id := range pairs[from:ends[i]] {
			x.post[next[id]] = int32(i)
			next[id]++
		}
		from = ends[i]
	}
	x.grams = newGramIndex(len(x.words), func(k int) string { return x.words[k] })
	return x
}

// addWord counts word w in text i, once.
func (x *wordIndex) addWord(ids map[string]int32, counts, last *[]int32, pairs []int32, w string, i int) []int32 {
	id, ok := ids[w]
	if !ok {
		id = int32(len(x.words))
		ids[w] = id
		x.words = append(x.words, w)
		*counts, *last = append(*counts, 0), append(*last, 0)
	}
	if (*last)[id] == int32(i+1) {
		return pairs
	}
	(*last)[id] = int32(i + 1)
	(*counts)[id]++
	return append(pairs, id)
}

// holding returns, ascending, the valid texts holding needle, which must
// be wordly.
func (x *wordIndex) holding(needle string) []int32 {
	cands, all := x.grams.candidates(needle)
	var in bitset
	k := 0
	check := func(w int32) {
		if !strings.Contains(x.words[w], needle) {
			return
		}
		if in == nil {
			in = newBitset(x.n)
		}
		for _, i := range x.post[x.start[w]:x.start[w+1]] {
			if !in.has(int(i)) {
				in.set(int(i))
				k++
			}
		}
	}
	if all {
		for w := range int32(len(x.words)) {
			check(w)
		}
	} else {
		for _, w := range cands {
			check(w)
		}
	}
	out := make([]int32, 0, k)
	in.each(func(i int) { out = append(out, int32(i)) })
	return out
}

// isSeparatorRune is normalize.Loose's test of the characters it removes
// (white space, punctuation, 〜 ~ |). The text index keeps only the loose
// texts and finds a normal-form needle through the needle without them;
// a node whose loose text is not its normal text without these characters
// (were normalize ever to change) is checked directly, so a difference
// costs speed, never an answer.
func isSeparatorRune(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsPunct(r) || r == '〜' || r == '~' || r == '|'
}

// stripSeparators returns s without isSeparatorRune's characters, and
// false when s is not valid UTF-8 (there the two forms are not comparable).
func stripSeparators(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if !isSeparatorRune(r) {
			b = utf8.AppendRune(b, r)
		}
	}
	return string(b), true
}

// looseOfNorm reports whether loose is norm without isSeparatorRune's
// characters, without building the stripped string.
func looseOfNorm(norm, loose string) bool {
	if !utf8.ValidString(norm) {
		return false
	}
	j := 0
	for i, r := range norm {
		if isSeparatorRune(r) {
			continue
		}
		w := utf8.RuneLen(r) // norm is valid: the bytes of r
		if j+w > len(loose) || loose[j:j+w] != norm[i:i+w] {
			return false
		}
		j += w
	}
	return j == len(loose)
}

// bitset is a set of positions in a search's node list.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)      { b[i>>6] |= 1 << (i & 63) }
func (b bitset) has(i int) bool { return b != nil && b[i>>6]&(1<<(i&63)) != 0 }

// or adds the members of c.
func (b bitset) or(c bitset) {
	for i, w := range c {
		b[i] |= w
	}
}

func (b bitset) count() int {
	k := 0
	for _, w := range b {
		k += bits.OnesCount64(w)
	}
	return k
}

// list returns the members, ascending.
func (b bitset) list() []int32 {
	out := make([]int32, 0, b.count())
	b.each(func(i int) { out = append(out, int32(i)) })
	return out
}

// each calls fn with each member, ascending.
func (b bitset) each(fn func(int)) {
	for i, w := range b {
		for ; w != 0; w &= w - 1 {
			fn(i<<6 | bits.TrailingZeros64(w))
		}
	}
}
