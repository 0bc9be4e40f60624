// Package ftsquery turns what a user typed into FTS5 MATCH expressions.
//
// It is the only way text reaches MATCH: an Expr can only be built here, and every
// piece of user text in it is a double-quoted FTS5 string, so operators (AND, NOT,
// NEAR), column filters, parentheses and stray quotes in a query are just words.
package ftsquery

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// Limits on a query. A query is a few words; anything longer is a paste, and
// running it would only spend time on a result nobody can use.
const (
	MaxQueryRunes = 1000
	MaxTerms      = 32
)

// Term is one thing the user asked for.
type Term struct {
	Text   string // as typed, without surrounding quotes or a trailing '*'
	Phrase bool   // the user wrapped it in double quotes
	Prefix bool   // the user ended it with '*'
}

// Query is a parsed user query.
type Query struct {
	Raw   string // the query after control characters were removed and space trimmed
	Terms []Term
}

// Expr is an FTS5 MATCH expression made only of quoted strings and the
// operators this package writes. The zero Expr matches nothing and is not run.
type Expr struct{ s string }

// String returns the expression to bind as the MATCH parameter.
func (e Expr) String() string { return e.s }

// IsZero reports whether there is nothing to run.
func (e Expr) IsZero() bool { return e.s == "" }

// Parse splits a query into terms: whitespace separates terms, "double quotes"
// make a phrase, and a trailing * makes a prefix term. An unterminated quote runs
// to the end of the query. Errors are apperr.InvalidArgument.
func Parse(raw string) (Query, error) {
	clean := strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return ' ' // NUL and friends would truncate or confuse SQLite's text handling
		}
		return r
	}, raw))
	if clean == "" {
		return Query{}, apperr.New(apperr.InvalidArgument, `type a word or "a phrase"`, "empty query")
	}
	if n := utf8.RuneCountInString(clean); n > MaxQueryRunes {
		return Query{}, apperr.New(apperr.InvalidArgument, "shorten the query to the words that matter",
			"query is %d characters; at most %d are allowed", n, MaxQueryRunes)
	}
	q := Query{Raw: clean}
	rest := clean
	for rest != "" {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		var t Term
		if rest[0] == '"' {
			body, after, _ := strings.Cut(rest[1:], `"`)
			t = Term{Text: strings.TrimSpace(body), Phrase: true}
			rest = after
			if strings.HasPrefix(rest, "*") {
				t.Prefix, rest = true, rest[1:]
			}
		} else {
			end := strings.IndexFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
			if end < 0 {
				end = len(rest)
			}
			t.Text, rest = rest[:end], rest[end:]
			// A lone "*" or "**" stays a literal term; "slic*" is a prefix.
			if trimmed := strings.TrimRight(t.Text, "*"); trimmed != "" && trimmed != t.Text {
				t.Text, t.Prefix = trimmed, true
			}
		}
		if t.Text == "" {
			continue
		}
		if len(q.Terms) == MaxTerms {
			return Query{}, apperr.New(apperr.InvalidArgument, "keep the words that matter",
				"query has more than %d terms", MaxTerms)
		}
		q.Terms = append(q.Terms, t)
	}
	if len(q.Terms) == 0 {
		return Query{}, apperr.New(apperr.InvalidArgument, `type a word or "a phrase"`, "empty query")
	}
	return q, nil
}

// quote makes s one FTS5 string: inside it, the table's tokenizer splits the
// text, so punctuation separates words and nothing is an operator.
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func (t Term) expr() string {
	s := quote(t.Text)
	if t.Prefix {
		s += "*"
	}
	return s
}

// hasWords reports whether the word tokenizer sees anything in t; "..." or "<-"
// have no words, and an empty FTS5 string would only match nothing.
func (t Term) hasWords() bool { return len(tokenize.Tokenize(t.Text)) > 0 }

// WordTerms are the terms the word index searches: terms with at least one word,
// without stop words unless the query has nothing else ("what is a goroutine?"
// searches goroutine; "the" alone still searches the).
func (q Query) WordTerms() []Term {
	var content, stop []Term
	for _, t := range q.Terms {
		switch {
		case !t.hasWords():
		case !t.Phrase && !t.Prefix && isStopTerm(t.Text):
			stop = append(stop, t)
		default:
			content = append(content, t)
		}
	}
	if len(content) == 0 {
		return stop
	}
	return content
}

// AllTerms matches sections that hold every word term (phrases as phrases).
func (q Query) AllTerms() Expr {
	var parts []string
	for _, t := range q.WordTerms() {
		parts = append(parts, t.expr())
	}
	return Expr{s: strings.Join(parts, " AND ")}
}

// AnyTerm matches sections that hold any single word of the word terms. It is
// zero when it could only repeat AllTerms (one word and no phrase).
func (q Query) AnyTerm() Expr {
	var parts []string
	seen := map[string]bool{}
	for _, t := range q.WordTerms() {
		toks := tokenize.Tokenize(t.Text)
		for i, tok := range toks {
			w := t.Text[tok.Start:tok.End]
			if i == len(toks)-1 && t.Prefix {
				w += "*"
			}
			if q := quoteWord(w); !seen[q] {
				seen[q] = true
				parts = append(parts, q)
			}
		}
	}
	if len(parts) < 2 {
		return Expr{}
	}
	return Expr{s: strings.Join(parts, " OR ")}
}

func quoteWord(w string) string {
	if trimmed, ok := strings.CutSuffix(w, "*"); ok {
		return quote(trimmed) + "*"
	}
	return quote(w)
}

// MinSubstringRunes is the shortest text the trigram index can find.
const MinSubstringRunes = 3

// AllTrigrams matches texts holding every trigram of any of texts, for an
// index that keeps no positions (FTS5 detail=none cannot match a phrase):
// each text is its trigrams joined by AND, and the texts are joined by OR.
// A text matched so may hold the trigrams apart, so callers check the
// substring itself. Texts shorter than MinSubstringRunes are left out.
func AllTrigrams(texts []string) Expr {
	var parts []string
	seen := map[string]bool{}
	for _, t := range texts {
		grams := Trigrams(t)
		if len(grams) == 0 {
			continue
		}
		var all []string
		inText := map[string]bool{}
		for _, g := range grams {
			if q := quote(g); !inText[q] {
				inText[q] = true
				all = append(all, q)
			}
		}
		if e := "(" + strings.Join(all, " AND ") + ")"; !seen[e] {
			seen[e] = true
			parts = append(parts, e)
		}
	}
	return Expr{s: strings.Join(parts, " OR ")}
}

// Trigrams lists the three-rune windows of w, in order.
func Trigrams(w string) []string {
	r := []rune(w)
	var out []string
	for i := 0; i+3 <= len(r); i++ {
		out = append(out, string(r[i:i+3]))
	}
	return out
}

// AnyPhrase matches sections holding any of texts as a phrase (its words in
// order) in the word index; bm25 ranks sections holding more of them first.
// Texts without a word are left out; none left is the zero Expr.
func AnyPhrase(texts []string) Expr {
	var parts []string
	seen := map[string]bool{}
	for _, s := range texts {
		t := Term{Text: strings.Map(func(r rune) rune {
			if r == utf8.RuneError || unicode.IsControl(r) {
				return ' '
			}
			return r
		}, s), Phrase: true}
		if !t.hasWords() {
			continue
		}
		if e := t.expr(); !seen[e] {
			seen[e] = true
			parts = append(parts, e)
		}
	}
	return Expr{s: strings.Join(parts, " OR ")}
}

// AnyTrigram matches texts sharing any three-rune run with s in the trigram
// index, for a fuzzy lookup; callers check the hits, as for Trigrams.
func AnyTrigram(s string) Expr {
	var parts []string
	seen := map[string]bool{}
	for _, g := range Trigrams(s) {
		if q := quote(g); !seen[q] {
			seen[q] = true
			parts = append(parts, q)
		}
	}
	return Expr{s: strings.Join(parts, " OR ")}
}

// Word is one word of a MATCH expression: its text (quoted when written)
// and whether it is a prefix. The ranking engine writes its terms so for
// an index that ranks a match itself (a manual's).
type Word struct {
	Text   string
	Prefix bool
}

func (w Word) expr() string {
	if w.Prefix {
		return quote(w.Text) + "*"
	}
	return quote(w.Text)
}

// AnyWord matches texts holding any of words; bm25 ranks texts holding more,
// and rarer, of them first. Each word may itself be several words (a phrase).
func AnyWord(words []Word) Expr {
	var parts []string
	seen := map[string]bool{}
	for _, w := range words {
		if (Term{Text: w.Text}).hasWords() {
			if e := w.expr(); !seen[e] {
				seen[e] = true
				parts = append(parts, e)
			}
		}
	}
	return Expr{s: strings.Join(parts, " OR ")}
}

// AnyText matches texts holding any of texts as a substring, for the trigram
// indexes; texts shorter than MinSubstringRunes are left out.
func AnyText(texts []string) Expr {
	var parts []string
	seen := map[string]bool{}
	for _, t := range texts {
		if utf8.RuneCountInString(t) < MinSubstringRunes {
			continue
		}
		if q := quote(t); !seen[q] {
			seen[q] = true
			parts = append(parts, q)
		}
	}
	return Expr{s: strings.Join(parts, " OR ")}
}
