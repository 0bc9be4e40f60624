// Package snippet cuts short windows out of a section's text around the words
// a search matched, so a reader (or a model) sees why a section was found
// without reading all of it.
//
// FTS5's snippet() cannot serve: it needs the index's own content table and
// counts tokens, not characters. This package counts runes, so CJK text is cut
// at character boundaries and never mid-UTF-8.
package snippet

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is one match in a text: byte offsets and which query term it stands
// for (spans with the same Term count once when windows are compared).
type Span struct {
	Start, End int
	Term       int
}

// Marker is written around each match; the zero Marker writes nothing, for
// plain text. Escape lists the characters of the text that a backslash goes
// before, so that a mark is never read in the text: with Markdown's "**",
// a Python `**kwargs` or `-2**2` is written `\*\*kwargs`, `-2\*\*2`.
//
// Break, when set, is written instead of a space where the white space of
// the text holds a line break: a page can then set code lines and
// paragraphs apart instead of running them into the prose around them.
type Marker struct{ Before, After, Escape, Break string }

// Markers for marked output.
var (
	Markdown = Marker{Before: "**", After: "**", Escape: "*"} // JSON and MCP results
	ANSIBold = Marker{Before: "\x1b[1m", After: "\x1b[22m"}   // a colour terminal
)

// Options shape the output. Zero values take the defaults.
type Options struct {
	Chars   int // window length in runes, before widening to word boundaries
	Windows int // at most this many windows, joined by " … "
	Mark    Marker
}

// Defaults and bounds for Options.
const (
	DefaultChars   = 240
	DefaultWindows = 2
	MinChars       = 40
	MaxChars       = 2000
	MaxWindows     = 5
	ellipsis       = "…"
	// boundarySlack is how far a window may grow to avoid cutting a word;
	// text without spaces (Japanese) is cut where the count ends.
	boundarySlack = 20
)

// Build returns up to opt.Windows windows of text. Each window is placed where
// it holds the most distinct terms (then the most matches); later windows
// prefer terms the earlier ones lack. Windows appear in text order, runs of
// white space become one space, and text cut off is shown as "…". With no
// spans it returns the start of the text.
func Build(text string, spans []Span, opt Options) string {
	if opt.Chars <= 0 {
		opt.Chars = DefaultChars
	}
	if opt.Windows <= 0 {
		opt.Windows = DefaultWindows
	}
	idx := newRuneIndex(text)
	all := toRuneSpans(idx, spans)
	rs := slices.Clone(all)
	var wins []window
	terms := 0
	for _, s := range rs {
		terms = max(terms, s.term+1)
	}
	shown := make([]bool, terms)
	for len(wins) < opt.Windows && len(rs) > 0 {
		w, ok := best(rs, opt.Chars, shown)
		if !ok {
			break
		}
		w = widen(idx, w, opt.Chars)
		wins = append(wins, w)
		rs = slices.DeleteFunc(rs, func(s runeSpan) bool {
			if s.start >= w.start && s.end <= w.end {
				shown[s.term] = true
				return true
			}
			return false
		})
	}
	if len(wins) == 0 {
		wins = append(wins, widen(idx, window{0, min(opt.Chars, idx.runes())}, opt.Chars))
	}
	wins = merge(wins)
	return render(text, idx, wins, all, opt.Mark)
}

type runeSpan struct{ start, end, term int }

type window struct{ start, end int } // rune offsets, end exclusive

// runeIndex maps between byte and rune offsets of one text. For ASCII text
// (most specification prose) the two are the same and no table is built;
// otherwise it keeps the byte offset of every runeStep-th rune and decodes
// the few runes between, so a long hit costs a small table, not eight bytes
// a character.
type runeIndex struct {
	every []int // every[k] is the byte offset of rune k·runeStep; nil for ASCII
	total int   // runes in text
	text  string
}

const runeStep = 32

func newRuneIndex(text string) runeIndex {
	if isASCII(text) {
		return runeIndex{text: text, total: len(text)}
	}
	x := runeIndex{text: text, every: make([]int, 0, len(text)/runeStep+1)}
	if !utf8.ValidString(text) {
		// Each bad byte is a rune of its own, as ranging over the text
		// reads it.
		for i := range text {
			if x.total%runeStep == 0 {
				x.every = append(x.every, i)
			}
			x.total++
		}
		return x
	}
	// In valid UTF-8 a rune starts at every byte that does not continue
	// one: no decoding needed.
	next := 0 // runes until the next kept offset
	for i := 0; i < len(text); i++ {
		if text[i]&0xC0 == 0x80 {
			continue
		}
		if next == 0 {
			x.every = append(x.every, i)
			next = runeStep
		}
		next--
		x.total++
	}
	return x
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (x runeIndex) runes() int { return x.total }

// byteOf returns the byte offset of rune r (len(text) for r = runes()).
func (x runeIndex) byteOf(r int) int {
	if x.every == nil {
		return r
	}
	if r >= x.total {
		return len(x.text)
	}
	b := x.every[r/runeStep]
	for range r % runeStep {
		_, size := utf8.DecodeRuneInString(x.text[b:])
		b += size
	}
	return b
}

// runeOf returns the rune offset of byte offset b (the rune containing it).
func (x runeIndex) runeOf(b int) int {
	if x.every == nil {
		return max(0, min(b, len(x.text)))
	}
	if b >= len(x.text) {
		return x.total
	}
	k, found := slices.BinarySearch(x.every, b)
	if found {
		return k * runeStep
	}
	k-- // every[k] < b; every[0] is 0, so k >= 0 for b > 0
	if k < 0 {
		return 0
	}
	r, at := k*runeStep, x.every[k]
	for {
		_, size := utf8.DecodeRuneInString(x.text[at:])
		if at+size > b {
			return r
		}
		at += size
		r++
	}
}

func (x runeIndex) at(r int) rune {
	c, _ := utf8.DecodeRuneInString(x.text[x.byteOf(r):])
	return c
}

func toRuneSpans(idx runeIndex, spans []Span) []runeSpan {
	out := make([]runeSpan, 0, len(spans))
	for _, s := range spans {
		if s.Start < 0 || s.End > len(idx.text) || s.Start >= s.End {
			continue
		}
		out = append(out, runeSpan{idx.runeOf(s.Start), idx.runeOf(s.End-1) + 1, s.Term})
	}
	// Of spans starting together, the longest first: render marks the first
	// and skips what it covers, so "interface{}" as typed is marked whole,
	// not just its word "interface".
	slices.SortFunc(out, func(a, b runeSpan) int { return cmp.Or(a.start-b.start, b.end-a.end) })
	return out
}

// best slides a window of n runes over the spans (sorted by start) and returns
// the placement with the most distinct terms not yet shown, then the most
// distinct terms, then the most spans; earliest wins ties.
func best(rs []runeSpan, n int, shown []bool) (window, bool) {
	type score struct{ fresh, distinct, count int }
	var bestScore score
	var bestWin window
	found := false
	// seen[t] == i+1 marks term t as counted for the placement at rs[i]:
	// one slice for all placements instead of a set each.
	seen := make([]int, len(shown))
	for i := range rs {
		var sc score
		last := rs[i].end
		for j := i; j < len(rs) && rs[j].end-rs[i].start <= n; j++ {
			if t := rs[j].term; seen[t] != i+1 {
				seen[t] = i + 1
				sc.distinct++
				if !shown[t] {
					sc.fresh++
				}
			}
			sc.count++
			last = max(last, rs[j].end)
		}
		if !found || sc.fresh > bestScore.fresh ||
			sc.fresh == bestScore.fresh && (sc.distinct > bestScore.distinct ||
				sc.distinct == bestScore.distinct && sc.count > bestScore.count) {
			bestScore, found = sc, true
			// Centre the matched stretch in the window.
			slack := max(0, n-(last-rs[i].start))
			bestWin = window{rs[i].start - slack/2, rs[i].start - slack/2 + n}
		}
	}
	return bestWin, found
}

// widen clamps w to the text and grows it to word boundaries, at most
// boundarySlack runes each way.
func widen(idx runeIndex, w window, n int) window {
	total := idx.runes()
	if w.start < 0 {
		w.end -= w.start
		w.start = 0
	}
	if w.end > total {
		w.start = max(0, w.start-(w.end-total))
		w.end = total
	}
	if w.end-w.start > n && n > 0 {
		w.end = w.start + n
	}
	for k := 0; k < boundarySlack && w.start > 0 && !unicode.IsSpace(idx.at(w.start-1)); k++ {
		w.start--
	}
	if w.start > 0 && !unicode.IsSpace(idx.at(w.start-1)) {
		w.start += boundarySlack // no space nearby: cut where the count said
	}
	for k := 0; k < boundarySlack && w.end < total && !unicode.IsSpace(idx.at(w.end)); k++ {
		w.end++
	}
	if w.end < total && !unicode.IsSpace(idx.at(w.end)) {
		w.end -= boundarySlack
	}
	return w
}

// merge sorts windows and joins those that touch or overlap.
func merge(ws []window) []window {
	slices.SortFunc(ws, func(a, b window) int { return a.start - b.start })
	out := ws[:1]
	for _, w := range ws[1:] {
		last := &out[len(out)-1]
		if w.start <= last.end {
			last.end = max(last.end, w.end)
			continue
		}
		out = append(out, w)
	}
	return out
}

func render(text string, idx runeIndex, wins []window, spans []runeSpan, mark Marker) string {
	var b strings.Builder
	size := len(mark.Before+mark.After) * len(spans)
	for _, w := range wins {
		size += idx.byteOf(w.end) - idx.byteOf(w.start) + len(ellipsis) + 2
	}
	b.Grow(size)
	for i, w := range wins {
		if i > 0 {
			b.WriteString(" " + ellipsis + " ")
		}
		if w.start > 0 && i == 0 {
			b.WriteString(ellipsis)
		}
		pos := w.start
		for _, s := range spans {
			if s.end <= w.start || s.start >= w.end || s.start < pos {
				continue
			}
			writeCollapsed(&b, escaped(text[idx.byteOf(pos):idx.byteOf(s.start)], mark.Escape), mark.Break)
			end := min(s.end, w.end)
			b.WriteString(mark.Before)
			writeCollapsed(&b, escaped(text[idx.byteOf(s.start):idx.byteOf(end)], mark.Escape), mark.Break)
			b.WriteString(mark.After)
			pos = end
		}
		writeCollapsed(&b, escaped(text[idx.byteOf(pos):idx.byteOf(w.end)], mark.Escape), mark.Break)
		if i == len(wins)-1 && w.end < idx.runes() {
			b.WriteString(ellipsis)
		}
	}
	return strings.TrimSpace(b.String())
}

// escaped is s with a backslash before each character of esc.
func escaped(s, esc string) string {
	if esc == "" || !strings.ContainsAny(s, esc) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(esc, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeCollapsed writes s with every run of white space as one space (or
// brk, when set, for a run that holds a line break), and no space after
// one already written.
func writeCollapsed(b *strings.Builder, s, brk string) {
	// gap writes the separator of one run of white space.
	gap := func(lineBreak bool) {
		if b.Len() == 0 || strings.HasSuffix(b.String(), " ") || brk != "" && strings.HasSuffix(b.String(), brk) {
			return
		}
		if lineBreak && brk != "" {
			b.WriteString(brk)
			return
		}
		b.WriteByte(' ')
	}
	if !utf8.ValidString(s) {
		// Rune by rune, so each bad byte becomes one U+FFFD as the
		// reader would see it.
		inRun, lineBreak := false, false
		for _, r := range s {
			if unicode.IsSpace(r) {
				inRun, lineBreak = true, lineBreak || r == '\n'
				continue
			}
			if inRun {
				gap(lineBreak)
				inRun, lineBreak = false, false
			}
			b.WriteRune(r)
		}
		if inRun {
			gap(lineBreak)
		}
		return
	}
	if singleSpaced(s) {
		// The common case, prose: only a space written right after
		// another (or first) is left out.
		if s != "" && s[0] == ' ' && (b.Len() == 0 || strings.HasSuffix(b.String(), " ") || brk != "" && strings.HasSuffix(b.String(), brk)) {
			s = s[1:]
		}
		b.WriteString(s)
		return
	}
	start := 0 // where the text not yet written begins
	for i := 0; i < len(s); {
		c, size := rune(s[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(s[i:])
		} else if !asciiSpace[c] {
			i++
			continue
		}
		if !unicode.IsSpace(c) {
			i += size
			continue
		}
		b.WriteString(s[start:i])
		// The whole run of white space, then one separator for it.
		lineBreak := false
		for i < len(s) {
			c, size := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsSpace(c) {
				break
			}
			lineBreak = lineBreak || c == '\n'
			i += size
		}
		gap(lineBreak)
		start = i
	}
	b.WriteString(s[start:])
}

// singleSpaced reports whether s is ASCII whose only white space is single
// spaces: writeCollapsed has nothing to change inside it.
func singleSpaced(s string) bool {
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c != ' ' && asciiSpace[c] || c == ' ' && space {
			return false
		}
		space = c == ' '
	}
	return true
}

// asciiSpace is unicode.IsSpace for ASCII.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
