package ftsquery

import "github.com/langspec/langspec/internal/text/tokenize"

// stopWords are English words that carry no topic. Questions ("what is a
// goroutine?") are full of them; requiring them would hide the answer.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true,
	"by": true, "can": true, "do": true, "does": true, "for": true, "from": true, "how": true,
	"i": true, "in": true, "is": true, "it": true, "its": true, "of": true, "on": true,
	"or": true, "should": true, "that": true, "the": true, "this": true, "to": true,
	"was": true, "what": true, "when": true, "where": true, "which": true, "who": true,
	"why": true, "will": true, "with": true, "you": true,
}

// isStopTerm reports whether every word of text is a stop word.
func isStopTerm(text string) bool {
	toks := tokenize.Tokenize(text)
	for _, t := range toks {
		if !stopWords[t.Folded] {
			return false
		}
	}
	return len(toks) > 0
}
