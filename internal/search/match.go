package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/shape"
	"github.com/langspec/langspec/internal/text/snippet"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// A matcher finds, in a section's text, what the strategy that found the
// section matched, so snippets highlight exactly that.
type matcher interface {
	spans(text string) []snippet.Span
}

// wordMatcher matches the way the word index does: unicode61 tokens, folded
// case and diacritics, porter stems. Each term is one word (a phrase's words
// are highlighted one by one, as the any-word strategy finds them).
type wordMatcher struct {
	terms []wordTerm
	stems *tokenize.Stems // kept by the caller across searches; a new one for one search
	// starts holds the first byte of every term's stem and folded form.
	// The porter stemmer never changes a word's first letter (it rewrites
	// suffixes only; TestStemKeepsFirstByte checks this on every word of
	// the Go spec), so a token starting with another byte cannot match: the
	// tokenizer skips it without folding or keeping it
	// (tokenize.AppendTokensStarting), and that is most tokens of a hit.
	starts [256]bool
	// toks and stemmed are reused from one text to the next: a search
	// reads the whole text of every hit.
	toks    []tokenize.Token
	stemmed []string
}

type wordTerm struct {
	stem, folded string
	prefix       bool
}

// newWordMatcher builds the matcher for terms, each token of each term a
// term of its own (its folded form and stem as the engine worked them
// out); stems may be nil.
func newWordMatcher(terms []rank.Term, stems *tokenize.Stems) *wordMatcher {
	if stems == nil {
		stems = &tokenize.Stems{}
	}
	m := &wordMatcher{stems: stems}
	for _, t := range terms {
		for i, tok := range t.Tokens {
			m.terms = append(m.terms, wordTerm{stem: tok.Stem, folded: tok.Folded, prefix: t.Prefix && i == len(t.Tokens)-1})
		}
	}
	for _, t := range m.terms {
		if t.stem == "" || t.folded == "" {
			// A word that folds to nothing: every token can match it.
			for b := range m.starts {
				m.starts[b] = true
			}
			break
		}
		m.starts[t.stem[0]] = true
		m.starts[t.folded[0]] = true
	}
	return m
}

func (m *wordMatcher) stem(folded string) string { return m.stems.Stem(folded) }

func (m *wordMatcher) spans(text string) []snippet.Span {
	if len(m.terms) == 0 {
		return nil
	}
	m.toks = tokenize.AppendTokensStarting(m.toks[:0], text, &m.starts)
	m.stemmed = slices.Grow(m.stemmed[:0], len(m.toks))
	for _, tok := range m.toks {
		m.stemmed = append(m.stemmed, m.stem(tok.Folded))
	}
	var out []snippet.Span
	for ti, term := range m.terms {
		for i, tok := range m.toks {
			stem := m.stemmed[i]
			if stem == term.stem || term.prefix && (strings.HasPrefix(stem, term.stem) || strings.HasPrefix(tok.Folded, term.folded)) {
				out = append(out, snippet.Span{Start: tok.Start, End: tok.End, Term: ti})
			}
		}
	}
	return out
}

// substringMatcher matches the way the trigram index does: a case-insensitive
// substring, punctuation included.
type substringMatcher struct{ needles [][]rune }

func newSubstringMatcher(needles []string) substringMatcher {
	var m substringMatcher
	for _, n := range needles {
		m.needles = append(m.needles, []rune(strings.Map(unicode.ToLower, n)))
	}
	return m
}

func (m substringMatcher) spans(text string) []snippet.Span {
	if len(m.needles) == 0 {
		return nil
	}
	var out []snippet.Span
	var lowerASCII string // text with A–Z lowered: same length, same offsets
	var lower []rune
	var offs []int
	for ni, n := range m.needles {
		if len(n) == 0 {
			continue
		}
		if needle := string(n); isASCII(needle) {
			// An ASCII needle can only meet ASCII bytes, and lowering
			// them keeps every offset, so a byte search is exact.
			if lowerASCII == "" {
				lowerASCII = lowerASCIIBytes(text)
			}
			for at := 0; ; {
				i := strings.Index(lowerASCII[at:], needle)
				if i < 0 {
					break
				}
				out = append(out, snippet.Span{Start: at + i, End: at + i + len(needle), Term: ni})
				at += i + len(needle)
			}
			continue
		}
		if lower == nil {
			lower = make([]rune, 0, len(text))
			offs = make([]int, 0, len(text)+1)
			for i, r := range text {
				lower = append(lower, unicode.ToLower(r))
				offs = append(offs, i)
			}
			offs = append(offs, len(text))
		}
		for i := 0; i+len(n) <= len(lower); i++ {
			if runesEqual(lower[i:i+len(n)], n) {
				out = append(out, snippet.Span{Start: offs[i], End: offs[i+len(n)], Term: ni})
				i += len(n) - 1
			}
		}
	}
	return out
}

// lowerASCIIBytes lowers A–Z and leaves every other byte as it is.
func lowerASCIIBytes(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func runesEqual(a, b []rune) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// shapeMatcher marks the code whose shape matched (text/shape): the
// spec's a[low : high : max] for the query s[i:j:k].
type shapeMatcher struct{ shapes []string }

func (m shapeMatcher) spans(text string) []snippet.Span {
	var out []snippet.Span
	for i, sh := range m.shapes {
		for _, r := range shape.Find(text, sh) {
			out = append(out, snippet.Span{Start: r[0], End: r[1], Term: i})
		}
	}
	return out
}

// multiMatcher is the spans of several matchers, the terms of each numbered
// after the ones before so snippets tell them apart.
type multiMatcher []matcher

func (ms multiMatcher) spans(text string) []snippet.Span {
	var out []snippet.Span
	base := 0
	for _, m := range ms {
		top := -1
		for _, s := range m.spans(text) {
			top = max(top, s.Term)
			s.Term += base
			out = append(out, s)
		}
		base += top + 1
	}
	return out
}
