package rank

import (
	"strings"
	"unicode"
)

// ExactTitle reports whether query names the section titled title: the
// same TitleKey ("method set" for "Method sets"), or, for a query written
// as code ("--inspect", "Buffer.alloc", "#[repr(C)]"), the title's name as
// written — the title without a label ("Static method: ", "Class: ") and
// without the argument list that follows the name ("util.inspect(object[,
// options])" is util.inspect, "--inspect[=[host:]port]" is --inspect),
// case aside. Code keeps its punctuation: "--inspect" is not "inspect".
// Such a section answers the query before any other (issue 47: exact
// first), in specifications and manuals alike.
func ExactTitle(query, title string) bool { return ExactTitleOf(query)(title) }

// ExactTitleOf is ExactTitle with the query read once, for many titles.
func ExactTitleOf(query string) func(title string) bool {
	e := NewExactTitles(query)
	return func(title string) bool { return e.Names(title, "") }
}

// ExactTitles is ExactTitle with the query read once, for titles whose
// TitleKey may be known already (a manual keeps its headings' keys: a
// search asks of thousands).
type ExactTitles struct {
	q, key string // the query in lower case; its TitleKey, for words
	code   bool
}

// NewExactTitles reads query for ExactTitles.Names.
func NewExactTitles(query string) ExactTitles {
	q := strings.ToLower(strings.Trim(strings.TrimSpace(query), "`"))
	e := ExactTitles{q: q, code: q != "" && isCodeQuery(q)}
	if q != "" && !e.code {
		e.key = TitleKey(q)
	}
	return e
}

// Names reports whether the query names the section titled title, whose
// TitleKey is titleKey ("" to work it out).
func (e ExactTitles) Names(title, titleKey string) bool {
	switch {
	case e.q == "":
		return false
	case e.code:
		return codeNameIs(e.q, title)
	case e.key == "":
		return false
	}
	if titleKey == "" {
		titleKey = TitleKey(title)
	}
	return titleKey == e.key
}

// codeNameIs reports whether title's name, as written, is q (lower case).
func codeNameIs(q, title string) bool {
	name := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(title), "`", ""))
	if label, rest, ok := strings.Cut(name, ": "); ok && titleLabels[label] {
		name = strings.TrimSpace(rest)
	}
	if name == q {
		return true
	}
	// The name ends where its arguments start, unless the query has them.
	if i := strings.IndexAny(name, "([="); i > 0 && !strings.ContainsAny(q, "([=") {
		return strings.TrimSpace(name[:i]) == q
	}
	return false
}

// titleLabels are the words documentation generators put before an API
// heading's name (Node.js: "Static method: Buffer.alloc(size)").
var titleLabels = map[string]bool{
	"class": true, "static method": true, "method": true, "event": true, "property": true,
	"function": true, "module": true, "interface": true, "type": true, "enum": true, "constant": true,
}

// isCodeQuery reports whether a query is one token of code: no space, and
// punctuation that a word does not hold ("--inspect", "buffer.alloc",
// "#[repr(c)]", "fs::read"). A hyphen or apostrophe inside a word
// ("fail-over", "don't") is a word's.
func isCodeQuery(q string) bool {
	if strings.IndexFunc(q, unicode.IsSpace) >= 0 {
		return false
	}
	rs := []rune(q)
	for i, r := range rs {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			continue
		}
		inside := i > 0 && i < len(rs)-1 && isWordRune(rs[i-1]) && isWordRune(rs[i+1])
		if (r == '-' || r == '\'') && inside {
			continue
		}
		return true
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
