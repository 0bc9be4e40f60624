package rank

import (
	"iter"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/text/tokenize"
)

// Vocabulary is the words of a corpus (folded, VocabularyMinRunes or
// more) with the number of sections holding each, indexed for typo
// correction. The store reads the counts of spec sections
// (snapshot_terms); a corpus held in memory (a manual, MemorySource)
// counts them as it builds its postings. The index over them is the
// engine's.
type Vocabulary struct {
	df     map[string]int
	stemDF map[string]int // by porter stem, as the word index stems
	byLen  [][]string     // ASCII words by byte length, each list sorted
}

// NewVocabulary indexes df.
func NewVocabulary(df map[string]int) *Vocabulary {
	v := &Vocabulary{df: df, stemDF: map[string]int{}}
	for t, n := range df {
		v.stemDF[tokenize.Stem(t)] += n
		if !isASCII(t) {
			continue
		}
		for len(v.byLen) <= len(t) {
			v.byLen = append(v.byLen, nil)
		}
		v.byLen[len(t)] = append(v.byLen[len(t)], t)
	}
	for _, ts := range v.byLen {
		slices.Sort(ts)
	}
	return v
}

// DF is the number of sections holding term.
func (v *Vocabulary) DF(term string) int { return v.df[term] }

// StemDF is how often words with this porter stem occur (summed over the
// words, so an upper bound on the sections holding any of them).
func (v *Vocabulary) StemDF(stem string) int { return v.stemDF[stem] }

// ASCIIWords returns the ASCII words of n bytes that start with first,
// sorted; callers must not change the slice. Typo correction keeps the
// first letter, so it reads only the words that could be the one meant: the
// list is sorted, and those words are one run of it, found by binary search
// instead of a scan that grows with the corpus.
func (v *Vocabulary) ASCIIWords(n int, first byte) []string {
	if n < 1 || n >= len(v.byLen) {
		return nil
	}
	words := v.byLen[n]
	lo, _ := slices.BinarySearch(words, string(first))
	hi := lo + sort.Search(len(words)-lo, func(i int) bool { return words[lo+i][0] != first })
	return words[lo:hi]
}

// VocabularyWords are the words of words (folded, with the sections
// holding each) a vocabulary keeps: those of VocabularyMinRunes or more.
func VocabularyWords(words iter.Seq2[string, int]) map[string]int {
	df := map[string]int{}
	for w, n := range words {
		if utf8.RuneCountInString(w) >= VocabularyMinRunes {
			df[w] = n
		}
	}
	return df
}

// VocabularyMinRunes is the shortest word a vocabulary keeps: shorter words
// are not corrected (one edit turns any two letters into any other).
const VocabularyMinRunes = 3

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
