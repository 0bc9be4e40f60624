package queryplan

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The word lists below are immutable metadata: read-only after package
// initialisation, so every function here is safe for concurrent use.

// stopWords separate English phrases and are never terms: function words
// and the words of a request itself ("please collect everything about").
var stopWords = wordSet(`a an the of to for in on at by from into onto with without within about as
	is are was were be been being am do does did done doing have has had having
	can could should would will shall may might must i me my mine we us our you your
	he she it its they them their this that these those there here
	what what's whats which who whom whose when where why how how's
	and or but not no nor if then than so any some all every everything anything something
	each both either neither more most other such only also just very now
	please collect list show find tell explain describe give get need want know let search look see
	summarize summarise regarding related relating concerning between via per i'm i'd don't doesn't can't`)

// particles complete a phrasal verb ("fail over", "back up"), so they stay
// in a phrase, but are too common to be terms alone.
var particles = wordSet(`over up out off down back`)

// enCues and jaCues are the intent cues: English words and word pairs,
// and Japanese substrings. A segment or word that is only a cue is dropped
// from the terms unless nothing else is left. "covered" and a bare 差 name
// no intent — "not covered" does, and 差 is part of too many unrelated
// words (差押え, 差出人) — but are as much a part of the request.
var enCues = cueTable(map[Intent]string{
	IntentDefinition: "define, definition, definitions, meaning, mean, means, what is, what are, what's",
	IntentProcedure:  "step, steps, procedure, procedures, instructions, how to, how do, how does, how can, how should",
	IntentExceptions: "exception, exceptions, excluded, exclude, excludes, excluding, exclusion, exclusions, unless, except, " +
		"not covered, not included, not apply, not eligible",
	IntentCompare: "difference, differences, differ, compare, compared, comparison, vs, versus",
	"":            "covered",
})

var jaCues = cueTable(map[Intent]string{
	IntentDefinition: "とは, 定義, 意味, って何, ってなに",
	IntentProcedure:  "手順, 方法, 手続, 手続き, 流れ, やり方, 仕方, どうやって, どうすれば",
	IntentExceptions: "例外, 除外, 対象外, 支払われない, 支払わない, 免責, ただし, 但し, 除く",
	IntentCompare:    "違い, ちがい, 比較, 差異, の差, 差は, 差分",
	"":               "差",
})

func cueTable(m map[Intent]string) map[string]Intent {
	t := map[string]Intent{}
	for intent, cues := range m {
		for _, c := range strings.Split(cues, ", ") {
			t[c] = intent
		}
	}
	return t
}

// isCue reports a word or segment that only states the intent.
func isCue(w string) bool {
	_, en := enCues[w]
	_, ja := jaCues[w]
	return en || ja
}

// jaRequests are segments that only make the request; they are never terms.
var jaRequests = wordSet(`何 なに 知りたい 調べて 探して 見せて 説明 詳しく ケース パターン どんな どういう いつ どこ どれ どの`)

// jaFunctionWords end a Japanese segment and are dropped. Those starting
// with hiragana are particles and endings; the others are request words
// written in kanji. 等 is handled in jaFunctionWordAt.
var jaFunctionWords = strings.Fields(`について における に関する に対する によって による において としての として
	とは には では への からの から まで より など ください ですか です ますか ます したい します する した して
	って どういう どうやって どうすれば どんな 何に 何の 何を 何が
	される できる の は が を に で と や へ も 場合 全部 全て すべて 集めて 教えて 一覧`)

// jaFunctionWordAt returns the length in runes of the longest function word
// at rs[i:], or 0. 等 counts only at the end of a kanji run (料金等), not in
// 等級 or 平等.
func jaFunctionWordAt(rs []rune, i int) int {
	head, best := string(rs[i:min(len(rs), i+5)]), 0 // function words are at most 5 runes
	for _, w := range jaFunctionWords {
		if n := utf8.RuneCountInString(w); n > best && strings.HasPrefix(head, w) {
			best = n
		}
	}
	if best == 0 && rs[i] == '等' && classOf(runeAt(rs, i-1)) == kanji && classOf(runeAt(rs, i+1)) != kanji {
		best = 1
	}
	return best
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// class is the script of a rune, as far as splitting text into words cares.
type class uint8

const (
	other    class = iota // space, punctuation, symbols
	latin                 // letters and digits of every script but Japanese
	kanji                 // including 々, 〆 and 〇
	katakana              // including the long-vowel mark ー
	hiragana
)

func classOf(r rune) class {
	switch {
	case r == 'ー' || unicode.Is(unicode.Katakana, r):
		return katakana
	case r == '々' || r == '〆' || r == '〇' || unicode.Is(unicode.Han, r) && unicode.IsLetter(r):
		return kanji
	case unicode.Is(unicode.Hiragana, r) && unicode.IsLetter(r):
		return hiragana
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
		return latin
	}
	return other
}

func isJapanese(r rune) bool {
	c := classOf(r)
	return c == kanji || c == katakana || c == hiragana
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func allHiragana(s string) bool {
	for _, r := range s {
		if classOf(r) != hiragana {
			return false
		}
	}
	return true
}

// runeAt returns rs[i], or 0 outside rs.
func runeAt(rs []rune, i int) rune {
	if i < 0 || i >= len(rs) {
		return 0
	}
	return rs[i]
}
