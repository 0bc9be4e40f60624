// Package normalize makes two spellings of the same words compare equal, for
// the searches that match text literally (vault_find, and later the manual
// search): full-width and half-width forms, letter case, runs of white space.
//
// Two levels, applied to the query and the text alike:
//   - Normal: NFKC (full-width "ＡＢＣ１２３" is "ABC123", half-width
//     katakana is full-width), case folding, and every run of white space as
//     one space.
//   - Loose: Normal without separators — spaces, hyphens and dashes, middle
//     dots, slashes, brackets and other punctuation — so "pre-authorisation",
//     "pre authorisation" and "preauthorisation", or "医療・保険" and
//     "医療保険", match.
package normalize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Normal returns s in its normal form.
func Normal(s string) string {
	if isASCII(s) {
		// NFKC leaves ASCII as it is and case folding only lowers A–Z:
		// the same result without the two transforms' passes and copies,
		// which were most of a manual_find on English manuals.
		return collapseSpace(s, true)
	}
	return collapseSpace(cases.Fold().String(norm.NFKC.String(s)), false)
}

// collapseSpace writes s with every run of white space as one space and
// none at either end, lowering A–Z when lower is set.
func collapseSpace(s string, lower bool) string {
	var b strings.Builder
	// The result is never longer than s: one allocation, where growing
	// as it went copied a long text once for each doubling of its size.
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if lower && 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Loose returns the normal form of s without separators.
func Loose(s string) string {
	return strings.Map(func(r rune) rune {
		if isSeparator(r) {
			return -1
		}
		return r
	}, Normal(s))
}

// isSeparator reports characters that only separate words: white space,
// punctuation (hyphens, dashes, dots, middle dots, slashes, brackets,
// quotes) and the wave dash, tilde and bar. The long-vowel mark ー is part
// of a word (データ) and stays.
func isSeparator(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsPunct(r) || r == '〜' || r == '~' || r == '|'
}

// Joined is a text's loose form that remembers where separators were
// dropped, so that a loose match can be told from one that cuts into a
// word: "rpo" is in the loose form of "or pointer", but only by taking the
// end of one word and the start of another.
type Joined struct {
	text  string // Loose's form of the text
	joint []bool // joint[i]: a separator stood before byte i of text
}

// LooseJoined returns Loose(s) with its joints.
func LooseJoined(s string) Joined {
	n := Normal(s)
	var b strings.Builder
	b.Grow(len(n))
	joint := make([]bool, 0, len(n)+1)
	sep := false
	for _, r := range n {
		if isSeparator(r) {
			sep = true
			continue
		}
		for range utf8.RuneLen(r) {
			joint = append(joint, sep)
			sep = false
		}
		b.WriteRune(r)
	}
	return Joined{text: b.String(), joint: joint}
}

// Holds reports whether j holds needle (a loose form) at a place that
// does not start inside a run of Latin letters and digits that had no
// separator in it: "pre-authorisation" and "pre-authorisations" hold
// "preauthorisation", "or too slow" does not hold "rto" (its "r" is the
// end of "or"). A match may end inside a word, as the normalized match
// may ("retention" in "retentions"). Other scripts have no spaces between
// words (医療・保険の手続き holds 医療保険), so only letters and digits of
// ASCII on both sides of the start count.
func (j Joined) Holds(needle string) bool {
	if needle == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(j.text[from:], needle)
		if i < 0 {
			return false
		}
		if j.boundary(from + i) {
			return true
		}
		from += i + 1
	}
}

// boundary reports whether a match may start at byte i of j.text.
func (j Joined) boundary(i int) bool {
	if i == 0 || j.joint[i] {
		return true
	}
	return !isASCIIWordByte(j.text[i-1]) || !isASCIIWordByte(j.text[i])
}

func isASCIIWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
