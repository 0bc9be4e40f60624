package queryplan

import (
	"unicode/utf8"

	"github.com/langspec/langspec/internal/text/normalize"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// Fragments returns smaller pieces of term for the widening stage, which
// runs only when the whole term found too little. Pieces are in Normal
// form, never term itself (cut to MaxTermRunes), deduplicated, at most
// MaxFragments, each at least 2 runes.
//
// The term is cut at separators and where the script changes (kanji,
// katakana, hiragana, Latin letters and digits), and each piece is kept
// when it can stand alone:
//   - a Latin word of 3 or more runes that is not a stop word or particle;
//   - a kanji or katakana run of 2 or more runes;
//   - a hiragana run of 3 or more (shorter ones are okurigana or particles).
//
// Then, so that whole pieces win when the bound cuts the list: the porter
// stem (tokenize.Stem, the stemmer of the FTS index) of each English word
// when it differs and has 3 or more runes (policies → polici), and every
// overlapping 2-rune window of each kanji run of 4 or more runes
// (保険金請求 → 保険, 険金, 金請, 請求): without a lexicon the word
// boundaries of a kanji compound are unknown, and trying every pair finds
// whichever one the text shares.
func Fragments(term string) []string {
	n := clip(normalize.Normal(term))
	l := &list{max: MaxFragments, skip: n}
	var later []string
	for rs := []rune(n); len(rs) > 0; {
		c, j := classOf(rs[0]), 1
		for j < len(rs) && classOf(rs[j]) == c {
			j++
		}
		run, w := rs[:j], string(rs[:j])
		rs = rs[j:]
		if c == other || len(run) < map[class]int{latin: 3, kanji: 2, katakana: 2, hiragana: 3}[c] || stopWords[w] || particles[w] {
			continue
		}
		l.add(w)
		if s := w; c == latin && isASCIIWord(w) {
			if s = tokenize.Stem(w); s != w && utf8.RuneCountInString(s) >= 3 {
				later = append(later, s)
			}
		}
		for k := 0; c == kanji && len(run) >= 4 && k+2 <= len(run); k++ {
			later = append(later, string(run[k:k+2]))
		}
	}
	for _, s := range later {
		l.add(s)
	}
	return l.items
}
