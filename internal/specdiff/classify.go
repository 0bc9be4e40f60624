package specdiff

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Classes of a change: what it means to a reader, not what happened to the
// text (Kind says that). A page lists them in this order (classRank).
const (
	// ClassRule: the prose or the grammar says something else — a rule
	// added, removed or reworded. Rewording that keeps the meaning is a
	// rule change too: telling the two apart takes a reader.
	ClassRule = "rule"
	// ClassExample: code in an example changed, beyond its comments.
	ClassExample = "example"
	// ClassMoved: the same sentences left one section for another.
	ClassMoved = "moved"
	// ClassEditorial: links, typos, punctuation, hyphenation, case, the
	// comments of examples, a heading renamed with its text unchanged.
	ClassEditorial = "editorial"
)

// Classes lists the classes in page order.
var Classes = []string{ClassRule, ClassExample, ClassMoved, ClassEditorial}

// classRank orders classes on a page: substance first.
func classRank(class string) int {
	for i, c := range Classes {
		if c == class {
			return i
		}
	}
	return len(Classes)
}

// versionRefRE is a reference to a language version, the link the Go spec
// puts after a rule ("[Go 1.22]"), as the stored text has it.
var versionRefRE = regexp.MustCompile(`\[\s*Go\s+1\.\d+\s*\]`)

// ebnfRE is a line of grammar as the Go spec writes it
// ("RangeClause = [ ExpressionList "=" | IdentifierList ":=" ] "range" Expression ."):
// a production's name, "=", and the rest. A change there changes the
// language, so it is a rule even though it looks like code.
var ebnfRE = regexp.MustCompile(`^[A-Z][A-Za-z_]*\s+=\s.*`)

// looksLikeCode reports whether one unit of a section's text (a line of
// an example: stored text keeps one code line per line) is code rather
// than prose. Prose ends like a sentence and has plain words in a row;
// code starts with a comment or a keyword, holds tabs or ":=", or has code
// punctuation without prose's runs of words. Grammar is not code here
// (ebnfRE): it states the rules.
func looksLikeCode(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || ebnfRE.MatchString(s) {
		return false
	}
	if strings.HasPrefix(s, "//") || strings.HasPrefix(s, "/*") || strings.Contains(s, "\t") || strings.Contains(s, ":=") {
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	if strings.ContainsRune(".:?!", last) && wordRun(s) >= 3 {
		return false
	}
	for _, p := range []string{"func ", "func(", "type ", "var ", "const ", "package ", "import ", "return", "case ", "default:",
		"for ", "if ", "go ", "defer ", "switch ", "select ", "}", "{"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	if strings.Contains(s, " // ") || strings.ContainsRune("{};", last) {
		return true
	}
	return strings.ContainsAny(s, "(){}[]=*&<>") && wordRun(s) < 6
}

// wordRun is the longest run of plain lower-case words in s: sentences
// have them, code rarely does.
func wordRun(s string) int {
	run, best := 0, 0
	for _, f := range strings.Fields(s) {
		if isPlainWord(f) {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// codeAndComment splits a code line at its comment: what the compiler
// reads, and what only a reader does.
func codeAndComment(s string) (code, comment string) {
	if i := strings.Index(s, "//"); i >= 0 {
		return strings.TrimSpace(s[:i]), s[i:]
	}
	return strings.TrimSpace(s), ""
}

// classifySentence is the class of one sentence added or removed (other
// is "" then) or reworded (both sides given).
func classifySentence(oldS, newS string) string {
	if strings.TrimSpace(versionRefRE.ReplaceAllString(oldS+" "+newS, "")) == "" {
		return ClassEditorial // a version link alone
	}
	// A reworded line is code when either side is: a comment added to a
	// line of an example ("+x" → "+x // x") turns it into code only then.
	code := (oldS == "" || looksLikeCode(oldS) || newS != "" && looksLikeCode(newS)) &&
		(newS == "" || looksLikeCode(newS) || oldS != "" && looksLikeCode(oldS))
	if code {
		if oldS != "" && newS != "" {
			oc, _ := codeAndComment(oldS)
			nc, _ := codeAndComment(newS)
			if collapseSpace(oc) == collapseSpace(nc) {
				return ClassEditorial // only the comment changed
			}
		} else if c, _ := codeAndComment(oldS + newS); c == "" {
			return ClassEditorial // a comment line added or removed
		}
		return ClassExample
	}
	if ebnfRE.MatchString(strings.TrimSpace(oldS)) || ebnfRE.MatchString(strings.TrimSpace(newS)) {
		return ClassRule // grammar: its punctuation is the syntax
	}
	if oldS == "" || newS == "" {
		s := oldS + newS
		if strings.TrimSpace(versionRefRE.ReplaceAllString(s, "")) == "" {
			return ClassEditorial
		}
		return ClassRule
	}
	if editorialEdit(oldS, newS) {
		return ClassEditorial
	}
	return ClassRule
}

// editorialEdit reports whether two sides of a reworded sentence differ
// only in what an editor changes without changing a rule: version links,
// punctuation, hyphens and spacing, case, and typos (editorialWords).
func editorialEdit(oldS, newS string) bool {
	oldS, newS = versionRefRE.ReplaceAllString(oldS, " "), versionRefRE.ReplaceAllString(newS, " ")
	ow, nw := lettersOnly(oldS), lettersOnly(newS)
	if strings.EqualFold(strings.Join(ow, ""), strings.Join(nw, "")) {
		return true // punctuation, hyphens, spacing, case: "IEEE-754" and "IEEE 754"
	}
	// Word by word: every changed word must be a typo fixed.
	ids := interner{}
	a, b := make([]int32, len(ow)), make([]int32, len(nw))
	for i, w := range ow {
		a[i] = ids.id(strings.ToLower(w))
	}
	for j, w := range nw {
		b[j] = ids.id(strings.ToLower(w))
	}
	del, ins := diffInts(a, b)
	for _, s := range spans(del, ins) {
		if s.equal {
			continue
		}
		if !editorialWords(ow[s.o0:s.o1], nw[s.n0:s.n1]) {
			return false
		}
	}
	return true
}

// lettersOnly is s's words: runs of letters and digits.
func lettersOnly(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// editorialWords: one run of replaced words is a spelling fix — the same
// number of words, each pair a typo (isTypo) — or words joined or split
// ("floating point", "floating-point" and "floatingpoint" spell one word).
func editorialWords(removed, added []string) bool {
	if strings.EqualFold(strings.Join(removed, ""), strings.Join(added, "")) {
		return true
	}
	if len(removed) == 2 && len(added) == 2 && isTLD(removed[1]) && isTLD(added[1]) {
		return true // a link's host: golang.org → go.dev
	}
	if len(removed) != len(added) {
		return false
	}
	for i := range removed {
		if !isTypo(strings.ToLower(removed[i]), strings.ToLower(added[i])) {
			return false
		}
	}
	return true
}

// isTypo: two spellings of one word. One edit (a letter added, dropped,
// changed, or two swapped) in a word of four letters or more, or two in
// one of eight or more; never a prefix that negates ("signed",
// "unsigned"), a number, or a word that is another word's start or end
// plus letters, which is grammar ("value", "values" counts: that is one
// edit and the rule reads the same).
func isTypo(a, b string) bool {
	if a == b {
		return true
	}
	ra, rb := []rune(a), []rune(b)
	if min(len(ra), len(rb)) < 4 || hasDigit(a) || hasDigit(b) {
		return false
	}
	for _, p := range []string{"un", "in", "im", "non", "dis", "ir"} {
		if strings.TrimPrefix(a, p) == b || strings.TrimPrefix(b, p) == a {
			return false
		}
	}
	d := editDistance(ra, rb)
	if d == 1 {
		return true
	}
	if d == 2 && min(len(ra), len(rb)) >= 8 && !strings.HasPrefix(a, b) && !strings.HasPrefix(b, a) &&
		!strings.HasSuffix(a, b) && !strings.HasSuffix(b, a) {
		return true
	}
	return false
}

// isTLD: the last label of a host name as the specs write links.
func isTLD(s string) bool {
	switch strings.ToLower(s) {
	case "org", "com", "dev", "net", "io":
		return true
	}
	return false
}

func hasDigit(s string) bool {
	return strings.ContainsFunc(s, unicode.IsDigit)
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours each count one.
func editDistance(a, b []rune) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// itemClass is an item's class from its sentences' and what else
// happened to it: a rule if any sentence is one, else an example, else
// moved when sentences moved, else editorial.
func itemClass(it *Item) string {
	best := ""
	for _, s := range it.Sentences {
		if best == "" || classRank(s.Class) < classRank(best) {
			best = s.Class
		}
	}
	if len(it.MovedOut) > 0 && (best == "" || classRank(ClassMoved) < classRank(best)) {
		best = ClassMoved
	}
	if best == "" {
		// No sentence differs: a heading renamed, or text that differs only
		// in white space.
		return ClassEditorial
	}
	return best
}

// minMovedWords is the least a sentence must have to be taken for moved:
// shorter lines ("}", "x := 1") stand in many sections by chance.
const minMovedWords = 4

// movedKey is how a sentence is recognised in another section: its words
// and punctuation with the spacing collapsed and version links left out
// (a moved rule often gains its "[Go 1.22]").
func movedKey(s string) (string, bool) {
	k := collapseSpace(versionRefRE.ReplaceAllString(s, " "))
	return k, len(wordBag(k)) >= minMovedWords
}

// markMoved finds sentences that left one section and stand, word for
// word, in another: a removed sentence (of a changed or removed section)
// and an added one (of a changed or added section) of different items.
// The added one becomes KindMoved with From naming the section it left;
// the removed one is dropped from its item, which counts it in MovedOut
// instead. Each sentence pairs at most once, in document order.
func markMoved(items []Item) {
	type at struct{ item, sentence int }
	removed := map[string][]at{}
	for i := range items {
		for k, s := range items[i].Sentences {
			if s.Kind != KindRemoved {
				continue
			}
			if key, ok := movedKey(s.Old); ok {
				removed[key] = append(removed[key], at{i, k})
			}
		}
	}
	if len(removed) == 0 {
		return
	}
	gone := map[at]bool{}
	for i := range items {
		for k := range items[i].Sentences {
			s := &items[i].Sentences[k]
			if s.Kind != KindAdded {
				continue
			}
			key, ok := movedKey(s.New)
			if !ok {
				continue
			}
			list := removed[key]
			j := slices.IndexFunc(list, func(a at) bool { return a.item != i && !gone[a] })
			if j < 0 {
				continue
			}
			from := list[j]
			gone[from] = true
			src := &items[from.item]
			s.Kind, s.Class, s.From = KindMoved, ClassMoved, src.Old.SectionID
			dst := items[i].New
			if n := slices.IndexFunc(src.MovedOut, func(m MovedOut) bool { return m.To == dst.SectionID }); n >= 0 {
				src.MovedOut[n].Sentences++
			} else {
				src.MovedOut = append(src.MovedOut, MovedOut{To: dst.SectionID, Title: dst.Title, Sentences: 1})
			}
		}
	}
	for i := range items {
		kept := items[i].Sentences[:0]
		for k, s := range items[i].Sentences {
			if !gone[at{i, k}] {
				kept = append(kept, s)
			}
		}
		items[i].Sentences = kept
	}
}

// isPlainWord: a word of lower-case letters, as prose has ("a" counts),
// trailing punctuation aside.
func isPlainWord(f string) bool {
	f = strings.TrimRight(f, ",.;:")
	if len(f) < 2 {
		return f == "a"
	}
	for _, r := range f {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return true
}
