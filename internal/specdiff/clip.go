package specdiff

import (
	"strings"
	"unicode/utf8"
)

// clipPlain cuts s to about limit characters at a word boundary, with "…"
// after it; limit 0 keeps it whole.
func clipPlain(s string, limit int) (string, bool) {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s, false
	}
	cut := byteOfRune(s, limit)
	if i := strings.LastIndexByte(s[:cut], ' '); i > limit/2 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " ") + " …", true
}

// clipMarked cuts a marked sentence (Marked) to its changes with some
// words either side, so that a page of many sections shows what changed
// and not the whole paragraph around it. The cuts fall only in unmarked
// text, never inside a mark or right after a backslash, so what is left
// reads back as the marks say; "…" stands for what was cut. limit 0, or a
// sentence short enough, keeps it whole. The changes themselves are
// never cut.
func clipMarked(s string, limit int) (string, bool) {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s, false
	}
	first, last := -1, -1 // byte offsets: the first mark's start, the last mark's end
	depth := false
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if !isMark(s[i:]) {
			continue
		}
		switch s[i : i+2] {
		case delOpen, insOpen:
			if !depth && first < 0 {
				first = i
			}
			depth = true
		case delClose, insClose:
			depth = false
			last = i + 2
		}
		i++
	}
	if first < 0 {
		return clipPlain(s, limit)
	}
	context := max(0, (limit-utf8.RuneCountInString(s[first:last]))/2)
	context = min(max(context, 40), limit/2)
	start := boundaryBefore(s, first, context)
	end := boundaryAfter(s, last, context)
	if start == 0 && end == len(s) {
		return s, false
	}
	out := s[start:end]
	if start > 0 {
		out = "… " + out
	}
	if end < len(s) {
		out += " …"
	}
	return out, true
}

// boundaryBefore is a byte offset at most n characters before at, at the
// start of a word, in the unmarked text before the first mark; 0 when the
// start is that near.
func boundaryBefore(s string, at, n int) int {
	i := at
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	if i == 0 {
		return 0
	}
	for i < at && s[i] != ' ' {
		i++
	}
	for i < at && s[i] == ' ' {
		i++
	}
	if i > 0 && s[i-1] == '\\' { // never start on an escaped character
		return 0
	}
	return i
}

// boundaryAfter is a byte offset at most n characters after at, at the end
// of a word, in the unmarked text after the last mark; len(s) when the end
// is that near.
func boundaryAfter(s string, at, n int) int {
	i := at
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i >= len(s) {
		return len(s)
	}
	for i > at && s[i-1] != ' ' {
		i--
	}
	for i > at && s[i-1] == ' ' {
		i--
	}
	// A backslash escapes the character after it: cutting between the
	// two would leave a backslash that escapes nothing.
	if i > at && s[i-1] == '\\' {
		return len(s)
	}
	return i
}

func byteOfRune(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
