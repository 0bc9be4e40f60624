// Package shape writes code as its shape: every run of identifiers, numbers
// and the spaces between them becomes one x, and spaces around punctuation
// go, so s[i:j:k], a[low : high : max] and x[1:10:2] are all x[x:x:x]. The
// store keeps the shape of every section (internal/db) and the ranking
// engine matches a code-shaped query's shape against it (internal/rank), so
// code meets code whatever the names in it.
package shape

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Placeholder stands for a run of identifiers and numbers.
const Placeholder = 'x'

// Of returns the shape of text. Line breaks become one space each, so a
// shape never runs from one line of code into the next; punctuation is kept
// as it is, except the placeholder letter itself, which cannot occur any
// other way.
func Of(text string) string {
	return string(index(text, false).runes)
}

// Find returns the byte ranges of text whose shape is needle, in order: the
// code a shape match found, for a snippet to show.
func Find(text, needle string) [][2]int {
	n := []rune(needle)
	if len(n) == 0 {
		return nil
	}
	sh := index(text, true)
	var out [][2]int
	for k := 0; k+len(n) <= len(sh.runes); k++ {
		if slices.Equal(sh.runes[k:k+len(n)], n) {
			// A placeholder that opens the match stands for the name
			// right before the code, not the prose that ran into it.
			out = append(out, [2]int{sh.lastStarts[k], sh.ends[k+len(n)-1]})
			k += len(n) - 1
		}
	}
	return out
}

// shaped is a text's shape and, when asked for, the byte range of the text
// each of its runes stands for.
type shaped struct {
	runes        []rune
	starts, ends []int
	lastStarts   []int // for a placeholder, where the last word of its run starts
}

func index(text string, offsets bool) shaped {
	var s shaped
	s.runes = make([]rune, 0, len(text)/4)
	put := func(r rune, start, end int) {
		s.runes = append(s.runes, r)
		if offsets {
			s.starts = append(s.starts, start)
			s.ends = append(s.ends, end)
			s.lastStarts = append(s.lastStarts, start)
		}
	}
	inWord := false // the last thing written is a placeholder, maybe followed by spaces
	lineBreak := false
	prevSpace := false
	for i, r := range text {
		end := i + utf8.RuneLen(r)
		wasSpace := prevSpace
		prevSpace = false
		switch {
		case isWordRune(r):
			if lineBreak {
				put(' ', i, i)
				lineBreak = false
			}
			if !inWord {
				put(Placeholder, i, end)
				inWord = true
			} else if offsets {
				last := len(s.ends) - 1
				s.ends[last] = end // the run goes on, across spaces
				if wasSpace {
					s.lastStarts[last] = i
				}
			}
		case r == '\n':
			if len(s.runes) > 0 {
				lineBreak = true
			}
			inWord = false
		case unicode.IsSpace(r):
			// A space between two identifiers keeps them one run
			// ("func init" is x); around punctuation it is dropped.
			prevSpace = true
		default:
			if lineBreak {
				put(' ', i, i)
				lineBreak = false
			}
			put(r, i, end)
			inWord = false
		}
	}
	return s
}

func isWordRune(r rune) bool {
	// ASCII first: nearly every rune of a specification is, and the store
	// asks this of every rune of every section it writes.
	if r < utf8.RuneSelf {
		return r == '_' || 'a' <= r|0x20 && r|0x20 <= 'z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// maxWholeWords is the most words a query may have for its whole shape to
// be matched: a short query ("for i := range 10") is code as a whole, a long
// one is a sentence with code in it, and only its code words have a shape.
const maxWholeWords = 4

// Query returns the shapes worth matching for a query: its whole shape when
// it is short and holds code punctuation, and the shape of each word that
// holds code punctuation. Sentence punctuation at the end of a word
// ("goroutine?") is not code. Shapes that are only a placeholder are left
// out; nil means the query has no code in it.
func Query(q string) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || s == string(Placeholder) {
			return
		}
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	words := strings.Fields(q)
	var codeWords []string
	for _, w := range words {
		if t := strings.TrimRight(w, "?!.,;"); t != "" && HasCode(t) {
			codeWords = append(codeWords, t)
		} else if t == "" && HasCode(w) {
			codeWords = append(codeWords, w) // "..." alone is meant
		}
	}
	if len(codeWords) == 0 {
		return nil
	}
	if len(words) <= maxWholeWords {
		add(Of(q))
	}
	for _, w := range codeWords {
		add(Of(w))
	}
	return out
}

// HasCode reports whether w holds a rune that is neither part of a word nor
// a space. An apostrophe or hyphen between letters ("else's", "run-time")
// is part of a word.
func HasCode(w string) bool {
	prev := utf8.RuneError // the rune before r; at the start, a rune that is no letter
	for i, r := range w {
		if isWordRune(r) || unicode.IsSpace(r) {
			prev = r
			continue
		}
		if r == '\'' || r == '’' || r == '-' {
			next, _ := utf8.DecodeRuneInString(w[i+utf8.RuneLen(r):])
			if unicode.IsLetter(prev) && unicode.IsLetter(next) {
				continue // the next rune, a letter, is the next prev
			}
		}
		return true
	}
	return false
}

// Literals returns the parts of text a substring search is asked for: the
// runs of text between white space that hold code punctuation (HasCode) or
// CJK, one per line. The literal index (internal/db) keeps only these: the
// ranking engine looks up code words and CJK runs there (internal/rank),
// never a plain word, which the word index finds, and a needle with no
// white space in it can only occur inside one such run. Indexing the whole
// text instead made that index the largest part of the database and of an
// ingest (docs/performance.md).
func Literals(text string) string {
	var b strings.Builder
	for chunk := range strings.FieldsSeq(text) {
		// Sentence punctuation at the end is not code ("nil."), as the
		// query side reads it too; "..." alone is.
		code := trimSentenceEnd(chunk)
		if code == "" {
			code = chunk
		}
		if HasCode(code) || hasCJK(chunk) {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(chunk)
		}
	}
	return b.String()
}

// trimSentenceEnd is strings.TrimRight(s, "?!.,;:") without building the
// set of cut bytes again for every word of every section.
func trimSentenceEnd(s string) string {
	for len(s) > 0 && strings.IndexByte("?!.,;:", s[len(s)-1]) >= 0 {
		s = s[:len(s)-1]
	}
	return s
}

// hasCJK reports whether s holds Han, kana or Hangul, which the word index
// keeps as one long token.
func hasCJK(s string) bool {
	for _, r := range s {
		if r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}
