package queryplan

import (
	"slices"
	"strconv"
	"strings"

	"github.com/langspec/langspec/internal/text/normalize"
)

// Variants returns spellings of term that normalize.Normal and Loose do not
// already make equal, in Normal form, without term itself, deduplicated, at
// most MaxVariants:
//   - numbers from 0 to 9999 written against Japanese text, Arabic ↔ kanji
//     (30日 ↔ 三十日, 第3条 ↔ 第三条; 0 ↔ 〇 and 零; 二〇二四年 → 2024年);
//   - katakana words with and without a final long-vowel mark
//     (サーバー ↔ サーバ, メモリ ↔ メモリー);
//   - English compounds joined or spaced (fail over ↔ failover; fail-over →
//     both; the hyphenated form is Loose's business);
//   - English number words one to twenty, thirty and sixty ↔ digits
//     (thirty minutes ↔ 30 minutes).
//
// Each kind of change is applied to the whole term at once, so a term
// gives one variant per kind, not every combination. Like every function
// taking a term, it reads at most MaxTermRunes runes of it.
func Variants(term string) []string {
	n := clip(normalize.Normal(term))
	l := &list{max: MaxVariants, skip: n}
	l.add(digitsToKanji(n, "〇"))
	l.add(digitsToKanji(n, "零"))
	l.add(kanjiToDigits(n))
	l.add(longVowel(n, false))
	l.add(longVowel(n, true))
	for _, v := range compounds(n) {
		l.add(v)
	}
	l.add(numberWords(n))
	l.add(okurigana(n))
	return l.items
}

// okurigana returns a Japanese word without its okurigana — the kana
// written after or between the kanji of a verb or noun, which manuals spell
// in several ways (引っ越す, 引越し, 引越; 払い込み, 払込み, 払込): the kanji
// runs joined where a single kana other than a particle separates them, the
// kana after the last run dropped. The result is a substring of every
// spelling. "" when the term has no such kana or fewer than two kanji
// would be left.
func okurigana(n string) string {
	rs := []rune(n)
	var b strings.Builder
	kanjiRunes, dropped := 0, false
	for i := 0; i < len(rs); i++ {
		switch c := classOf(rs[i]); {
		case c == kanji:
			b.WriteRune(rs[i])
			kanjiRunes++
		case c == hiragana && kanjiRunes > 0 && i+1 < len(rs) && classOf(rs[i+1]) == kanji && !strings.ContainsRune("のがをにでとはへやも", rs[i]):
			dropped = true // one kana between kanji: 引っ越, 払い込
		case c == hiragana && kanjiRunes > 0:
			// kana after the kanji: the word's ending, unless more kanji follow
			// after more than one kana (then it is two words; keep the first).
			j := i
			for j < len(rs) && classOf(rs[j]) == hiragana {
				j++
			}
			if j < len(rs) {
				return ""
			}
			dropped = true
			i = j
		default:
			return ""
		}
	}
	if !dropped || kanjiRunes < 2 {
		return ""
	}
	return b.String()
}

// digitsToKanji writes in kanji each run of ASCII digits that touches
// Japanese text or is the whole term. Runs in English text ("30 minutes"),
// decimals, times and dates ("1.5", "10:30", "2024/4/1"), numbers with a
// leading zero and numbers over 9999 are left alone.
func digitsToKanji(n, zero string) string {
	return mapRuns(n, func(r rune) bool { return '0' <= r && r <= '9' }, func(run []rune, before rune, rest []rune) string {
		after := runeAt(rest, 0)
		v, err := strconv.Atoi(string(run))
		if err != nil || v > 9999 || len(run) > 1 && run[0] == '0' || strings.ContainsRune(".,:/", before) || strings.ContainsRune(".,:/", after) ||
			!isJapanese(before) && !isJapanese(after) && (before != 0 || after != 0) {
			return string(run)
		}
		return kanjiNumeral(v, zero)
	})
}

// mapRuns rewrites each maximal run of runes of s for which in is true,
// passing f the rune before the run (0 at the start) and the runes after.
func mapRuns(s string, in func(rune) bool, f func(run []rune, before rune, rest []rune) string) string {
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && in(rs[j]) {
			j++
		}
		if j == i {
			b.WriteRune(rs[i])
			j++
		} else {
			b.WriteString(f(rs[i:j], runeAt(rs, i-1), rs[j:]))
		}
		i = j
	}
	return b.String()
}

// kanjiValues are the values of numeral kanji: digits, then the units.
var kanjiValues = map[rune]int{'〇': 0, '零': 0, '一': 1, '二': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9,
	'十': 10, '百': 100, '千': 1000}

// kanjiNumeral writes v (0–9999) in the 十/百/千 form of running text:
// 10 十, 11 十一, 120 百二十, 2024 二千二十四.
func kanjiNumeral(v int, zero string) string {
	if v == 0 {
		return zero
	}
	digits, out := []rune("〇一二三四五六七八九"), []rune{}
	for p, units := 1000, []rune("千百十"); p >= 10; p, units = p/10, units[1:] {
		if d := v / p % 10; d > 1 {
			out = append(out, digits[d], units[0])
		} else if d == 1 {
			out = append(out, units[0])
		}
	}
	if d := v % 10; d > 0 {
		out = append(out, digits[d])
	}
	return string(out)
}

// parseKanji reads a non-empty kanji numeral: the 十/百/千 form (百二十,
// 二千二十四) or, with a 〇 and at most 4 digits, digit by digit (二〇二四).
// A lone digit is either.
func parseKanji(rs []rune) (int, bool) {
	if !slices.ContainsFunc(rs, func(r rune) bool { return kanjiValues[r] >= 10 }) {
		v := 0
		for _, r := range rs {
			v = v*10 + kanjiValues[r]
		}
		zero := slices.ContainsFunc(rs, func(r rune) bool { return kanjiValues[r] == 0 })
		return v, len(rs) == 1 || len(rs) <= 4 && zero && kanjiValues[rs[0]] != 0
	}
	total, cur, last := 0, -1, 10000
	for _, r := range rs {
		switch u := kanjiValues[r]; {
		case u >= 10 && u < last && cur != 0:
			total, cur, last = total+max(cur, 1)*u, -1, u
		case u > 0 && u < 10 && cur < 0:
			cur = u
		default:
			return 0, false // 二三十, 十百, 千〇一: not numbers in this form
		}
	}
	return total + max(cur, 0), true
}

// counters are what follows a number in Japanese. A kanji numeral becomes
// digits only before one of them, after 第, or as the whole term, because
// numeral kanji also spell ordinary words: 一般, 一覧, 千葉, 統一.
var counters = strings.Fields(`日 年 月 条 項 号 回 件 人 名 歳 才 時間 分 秒 円 割 週 ヶ ヵ か月 カ月 ケ月 箇 個 本 台 枚 倍 度 章 節 営業日 万 億 % 位 番 社 期 点 級 つ 桁 文字`)

func kanjiToDigits(n string) string {
	numeral := func(r rune) bool { _, ok := kanjiValues[r]; return ok }
	return mapRuns(n, numeral, func(run []rune, before rune, rest []rune) string {
		v, ok := parseKanji(run)
		next := string(rest[:min(len(rest), 3)]) // the longest counter is 3 runes
		counted := before == '第' || before == 0 && len(rest) == 0 ||
			slices.ContainsFunc(counters, func(c string) bool { return strings.HasPrefix(next, c) })
		if !ok || !counted {
			return string(run)
		}
		return strconv.Itoa(v)
	})
}

// longVowel drops (add false) or adds (add true) the final ー of each
// katakana word. Dropping needs 3 runes before the ー, so エラー and コピー
// keep theirs. Adding needs 3 runes ending in an a- or i-column kana, the
// endings of the English -er, -or, -ar and -y words that JIS Z 8301 lets
// writers shorten (サーバ, メモリ, コンピュータ); システム gets none.
func longVowel(n string, add bool) string {
	return mapRuns(n, func(r rune) bool { return classOf(r) == katakana }, func(w []rune, _ rune, _ []rune) string {
		last := w[len(w)-1]
		switch {
		case !add && last == 'ー' && len(w) > 3:
			w = w[:len(w)-1]
		case add && len(w) >= 3 && strings.ContainsRune("アカガサザタダナハバパマヤラワイキギシジチヂニヒビピミリ", last):
			w = append(w[:len(w):len(w)], 'ー')
		}
		return string(w)
	})
}

// joinParticles end a compound written as two words (fail over, log in);
// splitParticles are those safe to split off a joined word: splitting at
// in or on would turn "button" into "butt on".
var joinParticles = wordSet(`over up out off down back in on`)
var splitParticles = []string{"over", "up", "out", "off", "down", "back"}

// compounds returns the English compound forms of n: hyphens as spaces
// and removed (e-mail → e mail, email), word + particle joined (fail over →
// failover), and word + particle split (failover → fail over, when at
// least 3 letters remain: "cover" stays).
func compounds(n string) []string {
	var out []string
	if strings.Contains(n, "-") && isASCIIWord(strings.NewReplacer("-", "", " ", "").Replace(n)) { // not 第3-1条
		out = append(out, strings.ReplaceAll(n, "-", " "), strings.ReplaceAll(n, "-", ""))
	}
	words := strings.Split(n, " ")
	joined, split := slices.Clone(words[:1]), slices.Clone(words)
	for i, w := range words {
		if i > 0 && joinParticles[w] && isASCIIWord(words[i-1]) {
			joined[len(joined)-1] += w
		} else if i > 0 {
			joined = append(joined, w)
		}
		for _, p := range splitParticles {
			if rest, ok := strings.CutSuffix(w, p); ok && len(rest) >= 3 && isASCIIWord(w) {
				split[i] = rest + " " + p
				break
			}
		}
	}
	return append(out, strings.Join(joined, " "), strings.Join(split, " "))
}

// isASCIIWord reports a word of ASCII letters (Normal forms are lower case).
func isASCIIWord(w string) bool {
	return w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == ""
}

// numberSwap maps English number names to digits and back.
var numberSwap = func() map[string]string {
	m := map[string]string{"thirty": "30", "30": "thirty", "sixty": "60", "60": "sixty"}
	names := "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"
	for i, w := range strings.Fields(names) {
		m[w], m[strconv.Itoa(i+1)] = strconv.Itoa(i+1), w
	}
	return m
}()

// numberWords swaps whole words between number names and digits.
func numberWords(n string) string {
	words := strings.Split(n, " ")
	for i, w := range words {
		if s, ok := numberSwap[w]; ok {
			words[i] = s
		}
	}
	return strings.Join(words, " ")
}
