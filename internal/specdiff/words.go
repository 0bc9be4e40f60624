package specdiff

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The marks of a word diff, as `git diff --word-diff=plain` writes them.
const (
	delOpen, delClose = "[-", "-]"
	insOpen, insClose = "{+", "+}"
)

// isMark reports whether s starts with one of the four marks.
func isMark(s string) bool {
	if len(s) < 2 {
		return false
	}
	switch s[:2] {
	case delOpen, delClose, insOpen, insClose:
		return true
	}
	return false
}

// Escape makes s safe to place in a marked string (SentenceChange.Marked):
// it puts a backslash before every backslash, and before the second
// character of every "[-", "-]", "{+" and "+}" in s (overlapping ones too:
// "[-]" becomes `[\-\]`), so the escaped text contains none of the marks.
//
// A marked string is read left to right: a backslash means the character
// after it is text; "[-" opens removed text, which "-]" closes; "{+" opens
// added text, which "+}" closes; everything else is text on both sides.
// Removed text ending in "[" or added text ending in "{" has a backslash
// before that character, so it cannot form a mark with the closing one.
func Escape(s string) string {
	if !strings.ContainsAny(s, `\-+`) {
		return s // no mark nor backslash can be in it: the common case
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || (i > 0 && isMark(s[i-1:])) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// wordToken is one token of a sentence for the word diff: a run of letters,
// digits and underscores (an identifier or a word), or any other single
// character ("[", ":", "."), so that "capacity." and "capacity," differ in
// their last token only. space says whether white space came before it.
type wordToken struct {
	text  string
	space bool
}

func wordTokens(s string) []wordToken {
	var out []wordToken
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			space = true
			i += size
			continue
		case isWordRune(r):
			j := i + size
			for j < len(s) {
				r2, size2 := utf8.DecodeRuneInString(s[j:])
				if !isWordRune(r2) {
					break
				}
				j += size2
			}
			out = append(out, wordToken{s[i:j], space})
			i = j
		default:
			out = append(out, wordToken{s[i : i+size], space})
			i += size
		}
		space = false
	}
	return out
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// markWords diffs two sentences word by word (wordTokens) and writes the
// result as one string: unchanged words as they are, removed ones as
// "[-old words-]", added ones as "{+new words+}", a replacement as the two
// side by side; the text is escaped (Escape). Only the part between the
// common first and last words goes through the diff, and only when neither
// side of it has more than maxWords tokens; otherwise that part is marked as
// replaced whole and truncated is true.
func markWords(oldSentence, newSentence string, maxWords int) (marked string, truncated bool) {
	ot, nt := wordTokens(oldSentence), wordTokens(newSentence)
	ids := interner{}
	a, b := make([]int32, len(ot)), make([]int32, len(nt))
	for i, t := range ot {
		a[i] = ids.id(t.text)
	}
	for j, t := range nt {
		b[j] = ids.id(t.text)
	}
	prefix, suffix := trimCommon(a, b)
	am, bm := a[prefix:len(a)-suffix], b[prefix:len(b)-suffix]
	var del, ins []bool
	if len(am) > maxWords || len(bm) > maxWords {
		truncated = true
		del, ins = make([]bool, len(am)), make([]bool, len(bm))
		for i := range del {
			del[i] = true
		}
		for j := range ins {
			ins[j] = true
		}
	} else {
		del, ins = diffInts(am, bm)
	}

	ops := absorbPunctuation(wordOps(prefix, suffix, len(ot), len(nt), spans(del, ins)), ot)
	var w markWriter
	for _, op := range ops {
		if !op.equal {
			w.change(ot[op.o0:op.o1], nt[op.n0:op.n1])
			continue
		}
		for k := range op.o1 - op.o0 {
			w.equal(ot[op.o0+k], nt[op.n0+k])
		}
	}
	return w.String(), truncated
}

// wordOps is the diff of two token lists as spans, from the spans of
// the part between their common prefix and suffix.
func wordOps(prefix, suffix, nOld, nNew int, middle []span) []span {
	var ops []span
	add := func(s span) {
		if k := len(ops) - 1; k >= 0 && ops[k].equal && s.equal {
			ops[k].o1, ops[k].n1 = s.o1, s.n1
			return
		}
		ops = append(ops, s)
	}
	if prefix > 0 {
		add(span{true, 0, prefix, 0, prefix})
	}
	for _, s := range middle {
		add(span{s.equal, prefix + s.o0, prefix + s.o1, prefix + s.n0, prefix + s.n1})
	}
	if suffix > 0 {
		add(span{true, nOld - suffix, nOld, nNew - suffix, nNew})
	}
	return ops
}

// absorbPunctuation merges a run of unchanged punctuation between two
// changes into one change: the ":" that "core::prelude::v1::derive." and
// ":" share is a coincidence, and marking around it
// ("[-core::prelude:-]:[-v1::derive.-]") is harder to read than the
// replacement it is.
func absorbPunctuation(ops []span, ot []wordToken) []span {
	out := ops[:0:0]
	for k := 0; k < len(ops); k++ {
		op := ops[k]
		if n := len(out); n > 0 && !out[n-1].equal && op.equal && k+1 < len(ops) && punctuationOnly(ot[op.o0:op.o1]) {
			next := ops[k+1]
			out[n-1].o1, out[n-1].n1 = next.o1, next.n1
			k++
			continue
		}
		out = append(out, op)
	}
	return out
}

func punctuationOnly(tokens []wordToken) bool {
	for _, t := range tokens {
		r, _ := utf8.DecodeRuneInString(t.text)
		if isWordRune(r) {
			return false
		}
	}
	return true
}

// markWriter assembles a marked string. Unchanged words are gathered in a
// run and escaped together, so that a mark split over two tokens ("[" then
// "-") is escaped as well.
type markWriter struct {
	b   strings.Builder
	run strings.Builder // unchanged text not yet written
}

func (w *markWriter) equal(o, n wordToken) {
	if (o.space || n.space) && w.b.Len()+w.run.Len() > 0 {
		w.run.WriteByte(' ')
	}
	w.run.WriteString(n.text)
}

func (w *markWriter) change(removed, added []wordToken) {
	w.flush()
	if len(removed) > 0 {
		w.mark(delOpen, removed, delClose, '[')
	}
	if len(added) > 0 {
		// Right after a removal the addition follows without a space:
		// "[-old-]{+new+}" reads as one replacement.
		if len(removed) > 0 {
			added = append([]wordToken{{text: added[0].text}}, added[1:]...)
		}
		w.mark(insOpen, added, insClose, '{')
	}
}

// mark writes tokens between open and close. A space before the first
// token goes outside the mark; a final opener (the first character of
// open) is escaped so it cannot pair with close.
func (w *markWriter) mark(open string, tokens []wordToken, close string, opener byte) {
	if tokens[0].space && w.b.Len() > 0 {
		w.b.WriteByte(' ')
	}
	var text strings.Builder
	for i, t := range tokens {
		if i > 0 && t.space {
			text.WriteByte(' ')
		}
		text.WriteString(t.text)
	}
	esc := Escape(text.String())
	w.b.WriteString(open)
	// Escape never escapes an opener, so a final one is always bare.
	if last := len(esc) - 1; esc[last] == opener {
		w.b.WriteString(esc[:last])
		w.b.WriteByte('\\')
		w.b.WriteByte(opener)
	} else {
		w.b.WriteString(esc)
	}
	w.b.WriteString(close)
}

func (w *markWriter) flush() {
	if w.run.Len() > 0 {
		w.b.WriteString(Escape(w.run.String()))
		w.run.Reset()
	}
}

func (w *markWriter) String() string {
	w.flush()
	return w.b.String()
}
