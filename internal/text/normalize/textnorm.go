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
