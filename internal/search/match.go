package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/text/ftsquery"
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
// case and diacritics, porter stems; a phrase is consecutive tokens.
type wordMatcher struct {
	terms []wordTerm
	stems map[string]string // folded token → stem, shared across the hits of one search
	// starts holds the first byte of every term's stems and folded forms.
	// The porter stemmer never changes a word's first letter (it rewrites
	// suffixes only; TestStemKeepsFirstByte checks this on every word of
	// the Go spec), so a token starting with another byte cannot match and
	// is not stemmed. Most tokens of a section are skipped this way.
	starts [256]bool
	// toks and stemmed are reused from one text to the next: a search reads
	// the whole text of every hit, and these were a fifth of what a
	// search_spec call allocated.
	toks    []tokenize.Token
	stemmed []string
}

type wordTerm struct {
	stems      []string
	lastFolded string // the last token unstemmed, for prefix terms
	prefix     bool
}

// newWordMatcher builds the matcher for terms. With split, each word of each
// term stands alone, as in the any-term strategy.
func newWordMatcher(terms []ftsquery.Term, split bool) *wordMatcher {
	m := &wordMatcher{stems: map[string]string{}}
	for _, t := range terms {
		toks := tokenize.Tokenize(t.Text)
		if len(toks) == 0 {
			continue
		}
		if split {
			for i, tok := range toks {
				m.terms = append(m.terms, wordTerm{
					stems: []string{m.stem(tok.Folded)}, lastFolded: tok.Folded, prefix: t.Prefix && i == len(toks)-1,
				})
			}
			continue
		}
		wt := wordTerm{lastFolded: toks[len(toks)-1].Folded, prefix: t.Prefix}
		for _, tok := range toks {
			wt.stems = append(wt.stems, m.stem(tok.Folded))
		}
		m.terms = append(m.terms, wt)
	}
	for _, t := range m.terms {
		m.markStart(t.lastFolded)
		for _, st := range t.stems {
			m.markStart(st)
		}
	}
	return m
}

func (m *wordMatcher) stem(folded string) string {
	s, ok := m.stems[folded]
	if !ok {
		s = tokenize.Stem(folded)
		m.stems[folded] = s
	}
	return s
}

func (m *wordMatcher) markStart(s string) {
	if s != "" {
		m.starts[s[0]] = true
	}
}

func (m *wordMatcher) spans(text string) []snippet.Span {
	m.toks = tokenize.AppendTokens(m.toks[:0], text)
	toks := m.toks
	m.stemmed = slices.Grow(m.stemmed[:0], len(toks))[:len(toks)]
	stems := m.stemmed
	for i, t := range toks {
		stems[i] = ""
		if t.Folded == "" || m.starts[t.Folded[0]] {
			stems[i] = m.stem(t.Folded)
		}
	}
	var out []snippet.Span
	for ti, term := range m.terms {
		n := len(term.stems)
		for i := 0; i+n <= len(toks); i++ {
			if m.matchAt(term, toks[i:i+n], stems[i:i+n]) {
				out = append(out, snippet.Span{Start: toks[i].Start, End: toks[i+n-1].End, Term: ti})
			}
		}
	}
	return out
}

func (m *wordMatcher) matchAt(term wordTerm, toks []tokenize.Token, stems []string) bool {
	last := len(term.stems) - 1
	for k := range last {
		if stems[k] != term.stems[k] {
			return false
		}
	}
	if term.prefix {
		return strings.HasPrefix(stems[last], term.stems[last]) || strings.HasPrefix(toks[last].Folded, term.lastFolded)
	}
	return stems[last] == term.stems[last]
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
