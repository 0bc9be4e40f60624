// Package queryplan turns a request to search the manuals ("how do I fail
// over the primary database?", 解約返戻金の支払い手続きについて全部集めて)
// into a plan for manual_find: the kind of answer wanted (Intent), the
// strings to look for first (Terms) and, for the later and wider stages,
// other spellings of a term (Variants), synonyms from the user's dictionary
// (Dictionary.Expand) and smaller pieces (Fragments).
//
// Everything works on and returns normalize.Normal forms, the form the
// search compares. Nothing does I/O but LoadDictionary, and every result is
// bounded so that a long or hostile query cannot make a search fan out.
package queryplan

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/text/normalize"
)

// Bounds on inputs and results.
const (
	MaxQueryRunes = 1000 // Analyze reads at most this much of a query
	MaxTerms      = 12   // terms in a Plan
	MaxTermRunes  = 64   // length of a term and of a dictionary entry
	MaxVariants   = 8    // results of Variants
	MaxExpansions = 16   // results of Dictionary.Expand
	MaxFragments  = 12   // results of Fragments
)

// Intent is the kind of answer a request asks for; it decides which search
// stages manual_find favours, e.g. the exception-vocabulary scan.
type Intent string

const (
	IntentDefinition Intent = "definition" // what is X, X とは, 定義, 意味
	IntentProcedure  Intent = "procedure"  // how to, steps, 手順, 方法, 手続き, 流れ, やり方
	IntentExceptions Intent = "exceptions" // exceptions, excluded, not covered, unless, 例外, 除外, 対象外, 免責, ただし
	IntentCompare    Intent = "compare"    // difference, vs, compare, 違い, 比較, 差異
	IntentLookup     Intent = "lookup"     // anything else: collect everything about X
)

// intentPriority decides between several cues: "what are the exceptions to
// the steps" wants exceptions, the answer hardest to find by topic alone.
var intentPriority = [...]Intent{IntentExceptions, IntentCompare, IntentProcedure, IntentDefinition}

// ParseIntent checks an explicit intent argument, ignoring case and
// surrounding space; "" means "infer it" and gives ("", nil).
// Errors: InvalidArgument for any other value, listing the allowed ones.
func ParseIntent(s string) (Intent, error) {
	v := Intent(strings.ToLower(strings.TrimSpace(s)))
	if v == "" || v == IntentLookup || slices.Contains(intentPriority[:], v) {
		return v, nil
	}
	return "", apperr.New(apperr.InvalidArgument, "leave intent empty to infer it from the query",
		"unknown intent %q; allowed: definition, procedure, exceptions, compare, lookup", s)
}

// Plan is what Analyze makes of a request.
type Plan struct {
	Query  string   // the request, trimmed and cut to MaxQueryRunes
	Intent Intent   // never empty
	Terms  []string // exact-match candidates in Normal form; never nil
}

// Analyze reads a request and plans the search. It is deterministic and
// never fails; at worst the whole request is the one term.
//
// Terms come in two tiers, each in query order, deduplicated, at most
// MaxTerms in all, each at most MaxTermRunes runes (longer ones are cut: a
// prefix still finds what the whole would):
//  1. quoted text ("…", '…', 「…」, 『…』, “…”, ‘…’) as it is; English
//     phrases, i.e. runs of content words between stop words and
//     punctuation ("fail over", "primary database"); Japanese segments
//     between particles and function words (解約返戻金, 支払い手続き);
//  2. each word of a multi-word English phrase (fail, primary, database)
//     and each word of a Japanese segment (支払い; see wordPieces).
//
// The specific tier comes first so that the bound drops the general one.
// Words that only state the intent (steps, exceptions, 手順, 違い) are terms
// only when nothing else is left (例外について教えて → 例外); inside a larger
// word they stay (免責事項). Compared things are separate terms anyway,
// since vs, and, と and の separate them.
func Analyze(query string) Plan {
	q := strings.TrimSpace(strings.ToValidUTF8(query, "\uFFFD"))
	if rs := []rune(q); len(rs) > MaxQueryRunes {
		q = strings.TrimSpace(string(rs[:MaxQueryRunes]))
	}
	n := normalize.Normal(q)
	var b termBuilder
	var unquoted []string
	for i, p := range splitQuotes(n) {
		if i%2 == 1 {
			b.primary = append(b.primary, p)
			continue
		}
		unquoted = append(unquoted, p)
		for _, c := range chunks(p) {
			if c.japanese || c.brk {
				b.flush()
			}
			if c.japanese {
				b.japanese([]rune(c.text))
			} else {
				b.word(c.text)
			}
		}
		b.flush()
	}
	// One token of code is a term as written, before its words: the
	// leading "--" of "--inspect" is what sets it apart from util.inspect.
	if tok := strings.TrimSpace(n); codeToken(tok) {
		b.primary = append([]string{tok}, b.primary...)
	}
	// Quoted text is a term, not a request: `the "exceptions" table` is a lookup.
	return Plan{Query: q, Intent: detectIntent(strings.Join(unquoted, "\n")), Terms: b.terms(n)}
}

// codeToken reports whether s is one token of code: ASCII, no space or
// quote, and
// punctuation a word does not hold — at its ends ("--inspect", "-r") or
// anywhere a word never has it ("#[repr(c)]", "fs::read", "a=b"). A dot,
// hyphen, apostrophe or underscore inside a word is the word's
// ("buffer.alloc" is kept whole by chunks already).
func codeToken(s string) bool {
	if s == "" || strings.IndexFunc(s, isAlnum) < 0 || strings.ContainsAny(s, "\"'`") {
		return false
	}
	for _, r := range s {
		if r > unicode.MaxASCII || unicode.IsSpace(r) {
			return false // code is ASCII; Japanese punctuation ends a phrase
		}
	}
	return strings.TrimFunc(s, func(r rune) bool { return !isAlnum(r) }) != s || strings.ContainsAny(s, "()[]{}#:<>/=!&*@$%^~|+,;")
}

// detectIntent finds intent cues: English words and word pairs, Japanese
// substrings.
func detectIntent(s string) Intent {
	found := map[Intent]bool{}
	prev := ""
	for _, c := range chunks(s) {
		if !c.japanese {
			found[enCues[c.text]], found[enCues[prev+" "+c.text]] = true, true
			prev = c.text
		}
	}
	for cue, intent := range jaCues {
		found[intent] = found[intent] || strings.Contains(s, cue)
	}
	for _, it := range intentPriority {
		if found[it] {
			return it
		}
	}
	return IntentLookup
}

var quotePairs = map[rune]rune{'"': '"', '\'': '\'', '「': '」', '『': '』', '“': '”', '‘': '’'}

// splitQuotes cuts s into unquoted and quoted pieces, alternating, the
// quoted ones at odd indices. An opening quote never closed stays as
// punctuation; an ASCII apostrophe in a word ("don't") is not a quote.
func splitQuotes(s string) []string {
	rs := []rune(s)
	var out []string
	last := 0
	for i := 0; i < len(rs); i++ {
		closer, ok := quotePairs[rs[i]]
		if !ok || rs[i] == '\'' && isAlnum(runeAt(rs, i-1)) {
			continue
		}
		j := i + 1
		for j < len(rs) && (rs[j] != closer || closer == '\'' && isAlnum(runeAt(rs, j+1))) {
			j++
		}
		if j < len(rs) {
			out = append(out, string(rs[last:i]), strings.TrimSpace(string(rs[i+1:j])))
			last, i = j+1, j
		}
	}
	return append(out, string(rs[last:]))
}

// chunk is an English word, or Japanese text with any Latin letters or
// digits written against it (api連携).
type chunk struct {
	text     string
	japanese bool
	brk      bool // punctuation, not just space, comes before it
}

// chunks splits s at space and punctuation, except hyphens, dots,
// apostrophes and underscores inside a word ("fail-over", "v1.2",
// "max_connections").
func chunks(s string) []chunk {
	rs := []rune(s)
	var out []chunk
	start, brk, ja := -1, false, false
	flush := func(end int) {
		if start >= 0 {
			out = append(out, chunk{string(rs[start:end]), ja, brk})
			start, brk, ja = -1, false, false
		}
	}
	for i, r := range rs {
		switch c := classOf(r); {
		case c != other:
			if start < 0 {
				start = i
			}
			ja = ja || c != latin
		case unicode.IsSpace(r):
			flush(i)
		case start < 0 || !strings.ContainsRune("-.'’_", r) || classOf(runeAt(rs, i+1)) == other:
			flush(i)
			brk = true
		}
	}
	flush(len(rs))
	return out
}

// termBuilder collects terms while Analyze walks the query.
type termBuilder struct {
	primary, sub []string // the two tiers of Plan.Terms
	cues         []string // words that only state the intent: terms of last resort
	phrase       []string // the English phrase being read
}

// word adds an English word to the phrase being read, or ends the phrase.
func (b *termBuilder) word(w string) {
	stop, cue := stopWords[w], isCue(w) && !stopWords[w]
	if stop || cue || utf8.RuneCountInString(strings.Join(b.phrase, " ")+" "+w) > MaxTermRunes {
		b.flush()
	}
	switch {
	case cue:
		b.cues = append(b.cues, w)
	case !stop:
		b.phrase = append(b.phrase, w)
	}
}

// flush ends the English phrase. Particles complete the word before them
// ("fail over") but are no terms alone, so leading ones go ("over the
// network" gives network) unless another particle follows ("back up").
func (b *termBuilder) flush() {
	p := b.phrase
	for len(p) > 1 && particles[p[0]] && !particles[p[1]] {
		p = p[1:]
	}
	b.phrase = nil
	if len(p) == 0 || len(p) == 1 && particles[p[0]] {
		return
	}
	b.primary = append(b.primary, strings.Join(p, " "))
	for _, w := range p {
		if len(p) > 1 && !particles[w] && utf8.RuneCountInString(w) >= 2 && strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			b.sub = append(b.sub, w)
		}
	}
}

// japanese splits Japanese text into segments at particles and function
// words. Hiragana after kanji or katakana is okurigana (支払い) until a
// function word starts; the rest of that hiragana run is then grammar
// (について, できない, されます) and goes with it.
func (b *termBuilder) japanese(rs []rune) {
	var seg []rune
	for i := 0; i < len(rs); {
		n := jaFunctionWordAt(rs, i)
		if n == 0 {
			seg = append(seg, rs[i])
			i++
			continue
		}
		b.segment(string(seg))
		seg = seg[:0]
		for i += n; classOf(rs[i-1]) == hiragana && i < len(rs) && classOf(rs[i]) == hiragana; i++ {
		}
	}
	b.segment(string(seg))
}

// segment adds one Japanese segment and its word pieces. Hiragana-only
// segments of 1 or 2 runes are leftover grammar.
func (b *termBuilder) segment(s string) {
	switch {
	case s == "", jaRequests[s], utf8.RuneCountInString(s) <= 2 && allHiragana(s):
	case isCue(s):
		b.cues = append(b.cues, s)
	default:
		b.primary = append(b.primary, s)
		for _, p := range wordPieces(s) {
			if p != s && utf8.RuneCountInString(p) >= 2 && !allHiragana(p) && !isCue(p) && !jaRequests[p] {
				b.sub = append(b.sub, p)
			}
		}
	}
}

// wordPieces splits a Japanese segment where a new word plausibly starts:
// where the script changes, except into hiragana (okurigana: 支払い), next
// to a digit (30日, 第3条) and after an honorific お or ご (お客様).
// 支払い手続き → 支払い, 手続き; api連携 → api, 連携. A compound of one
// script (解約返戻金) stays whole: splitting it needs a lexicon.
func wordPieces(s string) []string {
	rs := []rune(s)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		p, c := classOf(rs[i-1]), classOf(rs[i])
		if p != c && p != other && c != other && c != hiragana && !unicode.IsDigit(rs[i-1]) && !unicode.IsDigit(rs[i]) &&
			!(i == 1 && (rs[0] == 'お' || rs[0] == 'ご')) {
			out, start = append(out, string(rs[start:i])), i
		}
	}
	return append(out, string(rs[start:]))
}

// terms returns both tiers, else the cue words, else the whole query.
func (b *termBuilder) terms(normal string) []string {
	l := list{max: MaxTerms, items: []string{}}
	for _, set := range [][]string{append(b.primary, b.sub...), b.cues, {strings.TrimFunc(normal, func(r rune) bool { return !isAlnum(r) })}} {
		for _, t := range set {
			l.add(clip(t))
		}
		if len(l.items) > 0 {
			break
		}
	}
	return l.items
}

// clip trims t and cuts it to MaxTermRunes. Every function here clips its
// term, so a caller cannot make one scan a long string many times.
func clip(t string) string {
	if t = strings.TrimSpace(t); utf8.RuneCountInString(t) > MaxTermRunes {
		t = strings.TrimSpace(string([]rune(t)[:MaxTermRunes]))
	}
	return t
}

// list is a bounded, deduplicated result list that leaves out skip (the
// term the results are for). Lists are short, so a linear search will do.
type list struct {
	max   int
	skip  string
	items []string
}

func (l *list) add(s string) {
	if s != "" && s != l.skip && len(l.items) < l.max && !slices.Contains(l.items, s) {
		l.items = append(l.items, s)
	}
}
