package rank

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/shape"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// Query is what the engine makes of what was typed: the words that carry
// the topic, the words that only say what kind of answer is wanted, the code
// in it and the code's shapes, and runs of text no word index can split.
// It is the one reading of the query: every channel, the store's reads and
// the caller's highlighting take their words from it, tokenized and stemmed
// here once.
type Query struct {
	Raw     string
	Content []Term   // topic words, folded, in order, each once; phrases as typed
	Intent  []string // intent words met ("how", "what", "手順"), matched as nothing
	Code    []string // words holding code punctuation, as typed (x.(T), ::std::io)
	Shapes  []string // shapes of the code (text/shape)
	Runs    []string // CJK runs and other text the word index keeps whole
	// Named are the words specs use for the operators and numbers in the
	// query: "-2**2" is about the power operator, a bare 42 in a sentence
	// about integer literals. They join the related channel.
	Named []string
	// InCode are the content words written inside code ("match" of
	// r#match), which the literal channel matches as written.
	InCode map[string]bool
	// Pairs are two topic words next to each other in the query, as a
	// phrase: "object safety" of "what is object safety" (the phrase
	// channel).
	Pairs []Term
	// Tokens are every token of Raw, in order, as the word index splits
	// and folds them (the heading channel's words).
	Tokens []Token
}

// Term is a word or a phrase of a query as the word index matches it.
type Term struct {
	// Text is the word folded, or a phrase as typed: what a MATCH
	// expression quotes (text/ftsquery) and the vocabulary counts.
	Text string
	// Prefix says the term's last token stands for every word that starts
	// with it ("assert*").
	Prefix bool
	// Tokens are Text's tokens, folded and stemmed: one for a word,
	// several for a phrase; none for text the word index does not see
	// ("...").
	Tokens []Token
}

// Token is a token of a term as the word index keeps it: folded, and its
// porter stem, the index term.
type Token struct {
	Folded string
	Stem   string
}

// NewTerm is the term of text, tokenized and stemmed as the word index
// tokenizes and stems.
func NewTerm(text string, prefix bool) Term {
	return termOf(text, prefix, tokenize.Tokenize(text))
}

// termOf is the term of text, whose tokens are toks.
func termOf(text string, prefix bool, toks []tokenize.Token) Term {
	t := Term{Text: text, Prefix: prefix, Tokens: make([]Token, len(toks))}
	for i, tok := range toks {
		t.Tokens[i] = Token{Folded: tok.Folded, Stem: tokenize.Stem(tok.Folded)}
	}
	return t
}

// wordTerm is the term of one folded token. A folded token is one token
// folded to itself (TestTermsAreTheQuerysTokens), so it is not tokenized
// again.
func wordTerm(folded string, prefix bool) Term {
	return Term{Text: folded, Prefix: prefix, Tokens: []Token{{Folded: folded, Stem: tokenize.Stem(folded)}}}
}

// matchWords are terms as text/ftsquery writes them into MATCH.
func matchWords(terms []Term) []ftsquery.Word {
	out := make([]ftsquery.Word, len(terms))
	for i, t := range terms {
		out[i] = ftsquery.Word{Text: t.Text, Prefix: t.Prefix}
	}
	return out
}

// intentWords say what kind of answer is wanted, not what it is about. They
// are matched as nothing: "how do I close a channel" is about closing
// channels, and every section of a spec could answer "how".
var intentWords = map[string]bool{
	// English question and filler words.
	"a": true, "about": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true,
	"by": true, "can": true, "could": true, "did": true, "do": true, "does": true, "for": true,
	"from": true, "get": true, "got": true, "happen": true, "happens": true, "has": true, "have": true,
	"how": true, "i": true, "if": true, "in": true, "into": true, "is": true, "it": true, "its": true,
	"me": true, "my": true, "of": true, "on": true, "or": true, "should": true, "so": true,
	"some": true, "that": true, "the": true, "their": true, "them": true, "there": true, "these": true,
	"this": true, "those": true, "to": true, "was": true, "way": true, "we": true, "what": true,
	"when": true, "where": true, "whether": true, "which": true, "who": true, "why": true,
	"will": true, "with": true, "would": true, "you": true, "your": true, "just": true, "still": true,
	// Filler verbs and adverbs of questions.
	"use": true, "used": true, "using": true, "make": true, "makes": true, "give": true, "gives": true,
	"put": true, "want": true, "need": true, "able": true, "possible": true, "already": true,
	"really": true, "actually": true, "exactly": true, "mean": true, "means": true, "thing": true,
	"things": true, "something": true, "anything": true, "one": true, "two": true, "write": true,
	// What is left of contractions and possessives ("don't", "else's").
	"s": true, "t": true, "don": true, "doesn": true, "isn": true, "aren": true, "didn": true,
	"won": true, "wasn": true, "ll": true, "ve": true, "re": true,
	// Japanese intent words: definitions, procedures, scope, "about".
	"定義": true, "手順": true, "対象": true, "方法": true, "とは": true, "について": true, "やり方": true, "一覧": true,
}

// Analyze reads q (already checked by ftsquery.Parse). Each term is
// tokenized once; the query's tokens are its terms' (Parse splits at white
// space and quotes, which the tokenizer splits at too).
func Analyze(q ftsquery.Query) Query {
	out := Query{Raw: q.Raw}
	seen := map[string]bool{}
	var stop []Term
	addWord := func(w Term) {
		if !seen[w.Text] {
			seen[w.Text] = true
			out.Content = append(out.Content, w)
		}
	}
	var code []string // the terms, as typed, that are not phrases: their shape is matched
	sentence := len(q.Terms) > maxShapeWords
	prev := "" // the topic word just before, for Pairs; "" after anything else
	pair := func(w string) {
		if prev != "" && prev != w {
			p := prev + " " + w
			if !slices.ContainsFunc(out.Pairs, func(t Term) bool { return t.Text == p }) {
				out.Pairs = append(out.Pairs, NewTerm(p, false))
			}
		}
		prev = w
	}
	for _, t := range q.Terms {
		toks := tokenize.Tokenize(t.Text)
		for _, tok := range toks {
			out.Tokens = append(out.Tokens, Token{Folded: tok.Folded, Stem: tokenize.Stem(tok.Folded)})
		}
		if t.Phrase && len(toks) > 1 {
			addWord(termOf(t.Text, t.Prefix, toks))
			prev = ""
			continue
		}
		code = append(code, t.Text)
		isCode := hasCode(t.Text)
		if isCode {
			out.Code = append(out.Code, strings.TrimRight(t.Text, "?!.,;"))
			out.Named = append(out.Named, operatorNames(t.Text)...)
		}
		for i, tok := range toks {
			prefix := t.Prefix && i == len(toks)-1
			switch {
			case isCode && utf8.RuneCountInString(tok.Folded) < 2:
				// s, i, j and k in s[i:j:k] are placeholders, not topics.
			case sentence && isNumber(tok.Folded):
				// In a sentence, "a bare 42" or "casting 3.9" is about a
				// kind of literal, not about the digits.
				out.Named = append(out.Named, numberNames(t.Text)...)
			case intentWords[tok.Folded] && !prefix:
				out.Intent = append(out.Intent, tok.Folded)
				stop = append(stop, wordTerm(tok.Folded, prefix))
				prev = ""
			case isRun(tok.Folded):
				// A run holds its intent words inside it ("支払手順"): they
				// are cut out, and the pieces around them searched.
				pieces, intent := cutIntent(tok.Folded)
				out.Intent = append(out.Intent, intent...)
				for _, p := range pieces {
					out.Runs = append(out.Runs, p)
					addWord(NewTerm(p, false))
				}
			default:
				w := wordTerm(tok.Folded, prefix)
				addWord(w)
				if !isCode && !w.Prefix && pairable(w.Text) {
					pair(w.Text)
				} else {
					prev = ""
				}
				if isCode {
					if out.InCode == nil {
						out.InCode = map[string]bool{}
					}
					out.InCode[w.Text] = true
				}
			}
		}
	}
	if len(out.Content) == 0 && len(out.Code) == 0 {
		// "what is it" asks about nothing but its words; search them.
		for _, w := range stop {
			addWord(w)
		}
		out.Intent = nil
	}
	for _, sh := range shape.Query(strings.Join(code, " ")) {
		if distinctive(sh) {
			out.Shapes = append(out.Shapes, sh)
		}
	}
	return out
}

// pairable reports whether a word can make a phrase with its neighbour: a
// word of letters, three or more ("x" and "1" of "|x| x + 1" are not).
func pairable(w string) bool {
	if utf8.RuneCountInString(w) < 3 {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// hasCode reports whether a typed term holds punctuation beyond sentence
// punctuation at its end.
func hasCode(text string) bool {
	t := strings.TrimRight(text, "?!.,;:")
	if t == "" {
		t = text // "..." and "::" are meant
	}
	return shape.HasCode(t)
}

// distinctive reports whether a shape says enough to be matched: quotes and
// commas say nothing, a lone bracket pair or dot occurs everywhere (x(), x.x),
// but two operators (x++, ::, <-x) or three code characters (x.(x),
// x[x:x:x]) pick out code.
func distinctive(sh string) bool {
	ops, brackets := 0, 0
	for _, r := range sh {
		switch {
		case r == shape.Placeholder || r == ' ' || r == '"' || r == '\'' || r == ',':
		case strings.ContainsRune("()[]{}", r):
			ops++
			brackets++
		default:
			ops++
		}
	}
	return ops >= 3 || ops-brackets >= 2
}

// runIntentWords are the intent words that occur inside CJK runs, longest
// first so that one inside another is cut whole.
var runIntentWords = []string{"について", "やり方", "定義", "手順", "対象", "方法", "とは", "一覧"}

// cutIntent splits a CJK run at its intent words and returns the pieces of
// two runes or more, and the intent words it found.
func cutIntent(run string) (pieces, intent []string) {
	rest := []string{run}
	for _, iw := range runIntentWords {
		var next []string
		for _, r := range rest {
			parts := strings.Split(r, iw)
			if len(parts) > 1 {
				intent = append(intent, iw)
			}
			next = append(next, parts...)
		}
		rest = next
	}
	for _, r := range rest {
		if utf8.RuneCountInString(r) >= 2 {
			pieces = append(pieces, r)
		}
	}
	return pieces, intent
}

// isRun reports whether a token is a run of CJK text, which the word
// tokenizer keeps as one long token: only a substring match finds a word in
// it.
func isRun(tok string) bool {
	if utf8.RuneCountInString(tok) < 2 {
		return false
	}
	for _, r := range tok {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

func isNumber(tok string) bool {
	return tok != "" && strings.IndexFunc(tok, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// numberNames are the words for the kind of number a term writes.
func numberNames(term string) []string {
	if strings.ContainsAny(term, ".eE") && strings.ContainsFunc(term, unicode.IsDigit) {
		return []string{"floating", "literal"}
	}
	return []string{"integer", "literal"}
}

// operators maps the operators of Go, Rust and Python to the words their
// specifications use for them.
var operators = map[string][]string{
	"**": {"power", "exponent"}, "//": {"floor", "division"}, "%": {"remainder", "modulo"},
	"&&": {"logical", "and", "lazy"}, "||": {"logical", "or", "lazy"}, "!": {"not", "negation", "macro"},
	"&^": {"bit", "clear"}, "<<": {"shift"}, ">>": {"shift"}, "^": {"xor", "complement"},
	"<-": {"receive", "send", "channel"}, ":=": {"short", "variable", "declaration", "walrus", "assignment"},
	"...": {"variadic", "ellipsis"}, "..": {"range", "rest"}, "..=": {"range", "inclusive"},
	"::": {"path"}, "->": {"return", "type"}, "=>": {"match", "arm"}, "?": {"try", "propagation", "question"},
	"++": {"increment"}, "--": {"decrement"}, "+=": {"compound", "assignment"}, "-=": {"compound", "assignment"},
	"==": {"equality", "comparison"}, "!=": {"equality", "comparison"}, "<=": {"comparison"}, ">=": {"comparison"},
	"@": {"decorator", "binding"}, "#[": {"attribute"}, "#![": {"attribute", "inner"}, "r#": {"raw", "identifier"}, "$": {"metavariable"}, "'": {"lifetime", "rune", "character"},
	"|": {"or", "pattern", "closure", "union"}, "&": {"reference", "address", "borrow"}, "*": {"pointer", "dereference", "star", "unpacking"},
	"~": {"approximation", "constraint", "invert"},
}

// prefixOperators name an operator written before an operand, where it
// means something else than between two: "**kwargs" unpacks, "2**3" raises.
var prefixOperators = map[string][]string{
	"**": {"unpacking", "keyword", "arguments"}, "*": {"unpacking", "star", "pointer", "dereference"},
	"..": {"rest", "functional", "update"}, "|": {"closure", "parameters"}, "-": {"negation", "unary"},
	"&": {"reference", "borrow", "address"}, "!": {"not", "negation"},
}

// stringPrefixes name the literal a letter before a quote opens: c"…" is a
// C string, b'…' a byte, f"…" a formatted string.
var stringPrefixes = map[string][]string{
	`c"`: {"c", "string", "literal"}, `b"`: {"byte", "string", "literal"}, `b'`: {"byte", "literal"},
	`r"`: {"raw", "string", "literal"}, `r#"`: {"raw", "string", "literal"}, `br"`: {"raw", "byte", "string"},
	`f"`: {"formatted", "string", "literal"}, `f'`: {"formatted", "string", "literal"}, `rb"`: {"raw", "bytes", "literal"},
}

// operatorNames are the words for the operators written in a code term, the
// longest operator at each point first; an operator with nothing before it
// but an opening bracket or separator and an operand after it is a prefix.
func operatorNames(term string) []string {
	var out []string
	for p, names := range stringPrefixes {
		if strings.HasPrefix(term, p) {
			out = append(out, names...)
			term = term[len(p):]
			break
		}
	}
	for i := 0; i < len(term); {
		matched := 0
		for n := 3; n >= 1; n-- {
			if i+n > len(term) {
				continue
			}
			op := term[i : i+n]
			prefix := (i == 0 || strings.IndexByte("([{,; ", term[i-1]) >= 0) && i+n < len(term) && isWordByte(term[i+n])
			if names := prefixOperators[op]; prefix && names != nil {
				out = append(out, names...)
				matched = n
				break
			}
			if names := operators[op]; names != nil {
				out = append(out, names...)
				matched = n
				break
			}
		}
		i += max(matched, 1)
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
