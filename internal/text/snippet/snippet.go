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
// plain text.
type Marker struct{ Before, After string }

// Markers for marked output.
var (
	Markdown = Marker{"**", "**"}            // JSON and MCP results
	ANSIBold = Marker{"\x1b[1m", "\x1b[22m"} // a colour terminal
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
	rs := toRuneSpans(idx, spans)
	var wins []window
	shown := map[int]bool{}
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
	return render(text, idx, wins, toRuneSpans(idx, spans), opt.Mark)
}

type runeSpan struct{ start, end, term int }

type window struct{ start, end int } // rune offsets, end exclusive

// runeIndex maps between byte and rune offsets of one text. For ASCII text
// (most specification prose) the two are the same and no table is built.
type runeIndex struct {
	byteAt []int // byteAt[r] is the byte offset of rune r; byteAt[runes()] = len(text); nil for ASCII
	text   string
}

func newRuneIndex(text string) runeIndex {
	if isASCII(text) {
		return runeIndex{text: text}
	}
	b := make([]int, 0, len(text)+1)
	for i := range text {
		b = append(b, i)
	}
	return runeIndex{byteAt: append(b, len(text)), text: text}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (x runeIndex) runes() int {
	if x.byteAt == nil {
		return len(x.text)
	}
	return len(x.byteAt) - 1
}

// byteOf returns the byte offset of rune r.
func (x runeIndex) byteOf(r int) int {
	if x.byteAt == nil {
		return r
	}
	return x.byteAt[r]
}

// runeOf returns the rune offset of byte offset b (the rune containing it).
func (x runeIndex) runeOf(b int) int {
	if x.byteAt == nil {
		return max(0, min(b, len(x.text)))
	}
	r, _ := slices.BinarySearch(x.byteAt, b)
	if r < len(x.byteAt) && x.byteAt[r] > b {
		r--
	}
	return max(0, min(r, x.runes()))
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
func best(rs []runeSpan, n int, shown map[int]bool) (window, bool) {
	type score struct{ fresh, distinct, count int }
	var bestScore score
	var bestWin window
	found := false
	for i := range rs {
		terms := map[int]bool{}
		var sc score
		last := rs[i].end
		for j := i; j < len(rs) && rs[j].end-rs[i].start <= n; j++ {
			if !terms[rs[j].term] {
				terms[rs[j].term] = true
				sc.distinct++
				if !shown[rs[j].term] {
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
			writeCollapsed(&b, text[idx.byteOf(pos):idx.byteOf(s.start)])
			end := min(s.end, w.end)
			b.WriteString(mark.Before)
			writeCollapsed(&b, text[idx.byteOf(s.start):idx.byteOf(end)])
			b.WriteString(mark.After)
			pos = end
		}
		writeCollapsed(&b, text[idx.byteOf(pos):idx.byteOf(w.end)])
		if i == len(wins)-1 && w.end < idx.runes() {
			b.WriteString(ellipsis)
		}
	}
	return strings.TrimSpace(b.String())
}

// writeCollapsed writes s with every run of white space as one space, and no
// space after one already written.
func writeCollapsed(b *strings.Builder, s string) {
	for _, r := range s {
		if unicode.IsSpace(r) {
			if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
				b.WriteByte(' ')
			}
			continue
		}
		b.WriteRune(r)
	}
}
