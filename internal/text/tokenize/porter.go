package tokenize

// This file ports SQLite's FTS5 porter stemmer (ext/fts5/fts5_tokenize.c,
// fts5PorterCb and helpers) byte for byte. It deliberately keeps SQLite's
// departures from the textbook algorithm, because only SQLite's output matches
// the index:
//   - tokens shorter than 3 or longer than 64 bytes are not stemmed at all;
//   - the word is treated as raw bytes: every non-ASCII byte is a consonant;
//   - in the (*v*) test 'y' is a vowel anywhere but at the start of the stem,
//     even after a vowel, whereas the m and (*o) tests use the usual rule
//     (y is a vowel only after a consonant);
//   - within a step, only the first listed suffix that matches is considered;
//     if its condition fails, the step does nothing, even when a shorter
//     suffix would have qualified (e.g. "ement" blocks "ment" and "ent").

import (
	"strings"
	"sync"
)

// porterMaxToken is FTS5_PORTER_MAX_TOKEN.
const porterMaxToken = 64

// Stem applies SQLite FTS5's porter stemmer (sqlite/ext/fts5/fts5_tokenize.c, fts5PorterCb and
// its helpers) to one folded token, byte for byte: same length limits (tokens shorter than 3 or
// longer than 64 bytes pass through unchanged), same steps, same vowel rules.
func Stem(folded string) string {
	if len(folded) > porterMaxToken || len(folded) < 3 {
		return folded
	}
	// Room for the at most one byte the stemmer can add (step 1b's "e").
	w := make([]byte, len(folded), len(folded)+1)
	copy(w, folded)

	w = porterStep1A(w)
	var removed bool
	if w, removed = applyRules(w, porterStep1B); removed {
		var fixed bool
		if w, fixed = applyRules(w, porterStep1B2); !fixed {
			c := w[len(w)-1]
			if !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == at(w, len(w)-2) {
				w = w[:len(w)-1]
			} else if mEq1(w) && oStar(w) {
				w = append(w, 'e')
			}
		}
	}

	// Step 1c.
	if n := len(w); w[n-1] == 'y' && hasVowel(w[:n-1]) {
		w[n-1] = 'i'
	}

	w, _ = applyRules(w, porterStep2)
	w, _ = applyRules(w, porterStep3)
	w, _ = applyRules(w, porterStep4)

	// Step 5a.
	if n := len(w); w[n-1] == 'e' {
		if stem := w[:n-1]; mGt1(stem) || (mEq1(stem) && !oStar(stem)) {
			w = stem
		}
	}

	// Step 5b.
	if n := len(w); n > 1 && w[n-1] == 'l' && w[n-2] == 'l' && mGt1(w[:n-1]) {
		w = w[:n-1]
	}
	return string(w)
}

// at returns w[i], or 0 for i < 0. SQLite reads one byte before its buffer when
// a step leaves a single byte; that byte never changes the outcome (every use
// is guarded by a length check or a test that fails first), and 0 matches no
// letter.
func at(w []byte, i int) byte {
	if i < 0 {
		return 0
	}
	return w[i]
}

// porterStep1A is fts5PorterStep1A: sses->ss, ies->i, ss->ss, s->"".
func porterStep1A(w []byte) []byte {
	n := len(w)
	if w[n-1] != 's' {
		return w
	}
	switch {
	case w[n-2] == 'e':
		if (n > 4 && w[n-4] == 's' && w[n-3] == 's') || (n > 3 && w[n-3] == 'i') {
			return w[:n-2]
		}
		return w[:n-1]
	case w[n-2] != 's':
		return w[:n-1]
	}
	return w
}

// porterRule replaces suffix by repl when the stem left in front of suffix
// satisfies cond (nil: always). signal says whether applying it reports
// success to fts5PorterCb (only step 1b's "ed"/"ing" and step 1b2 do).
type porterRule struct {
	suffix, repl string
	cond         func(stem []byte) bool
	signal       bool
}

// applyRules is one generated fts5PorterStepN function: the first rule whose
// suffix ends w, leaving a non-empty stem, is the only one tried. It returns
// the possibly rewritten word and whether a signalling rule was applied. w may
// be modified in place (the caller's buffer has room for one extra byte).
func applyRules(w []byte, rules []porterRule) ([]byte, bool) {
	n := len(w)
	for _, r := range rules {
		if n <= len(r.suffix) || string(w[n-len(r.suffix):]) != r.suffix {
			continue
		}
		stem := w[:n-len(r.suffix)]
		if r.cond != nil && !r.cond(stem) {
			return w, false
		}
		return append(stem, r.repl...), r.signal
	}
	return w, false
}

// Rule lists are in the order of SQLite's generated switch statements (grouped
// by the suffix's second-to-last letter, then in listed order); since suffixes
// in different groups cannot both match, "first match in this list" is the
// same as SQLite's switch.
var (
	porterStep1B = []porterRule{
		{"eed", "ee", mGt0, false},
		{"ed", "", hasVowel, true},
		{"ing", "", hasVowel, true},
	}
	porterStep1B2 = []porterRule{
		{"at", "ate", nil, true},
		{"bl", "ble", nil, true},
		{"iz", "ize", nil, true},
	}
	porterStep2 = []porterRule{
		{"ational", "ate", mGt0, false},
		{"tional", "tion", mGt0, false},
		{"enci", "ence", mGt0, false},
		{"anci", "ance", mGt0, false},
		{"izer", "ize", mGt0, false},
		{"logi", "log", mGt0, false},
		{"bli", "ble", mGt0, false},
		{"alli", "al", mGt0, false},
		{"entli", "ent", mGt0, false},
		{"eli", "e", mGt0, false},
		{"ousli", "ous", mGt0, false},
		{"ization", "ize", mGt0, false},
		{"ation", "ate", mGt0, false},
		{"ator", "ate", mGt0, false},
		{"alism", "al", mGt0, false},
		{"iveness", "ive", mGt0, false},
		{"fulness", "ful", mGt0, false},
		{"ousness", "ous", mGt0, false},
		{"aliti", "al", mGt0, false},
		{"iviti", "ive", mGt0, false},
		{"biliti", "ble", mGt0, false},
	}
	porterStep3 = []porterRule{
		{"ical", "ic", mGt0, false},
		{"ness", "", mGt0, false},
		{"icate", "ic", mGt0, false},
		{"iciti", "ic", mGt0, false},
		{"ful", "", mGt0, false},
		{"ative", "", mGt0, false},
		{"alize", "al", mGt0, false},
	}
	porterStep4 = []porterRule{
		{"al", "", mGt1, false},
		{"ance", "", mGt1, false},
		{"ence", "", mGt1, false},
		{"er", "", mGt1, false},
		{"ic", "", mGt1, false},
		{"able", "", mGt1, false},
		{"ible", "", mGt1, false},
		{"ant", "", mGt1, false},
		{"ement", "", mGt1, false},
		{"ment", "", mGt1, false},
		{"ent", "", mGt1, false},
		{"ion", "", mGt1AndSOrT, false},
		{"ou", "", mGt1, false},
		{"ism", "", mGt1, false},
		{"ate", "", mGt1, false},
		{"iti", "", mGt1, false},
		{"ous", "", mGt1, false},
		{"ive", "", mGt1, false},
		{"ize", "", mGt1, false},
	}
)

// isVowel is fts5PorterIsVowel; yIsVowel is whether the previous letter was a
// consonant.
func isVowel(c byte, yIsVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || (yIsVowel && c == 'y')
}

// gobbleVC is fts5PorterGobbleVC: it skips to the first vowel, then to the
// first consonant after it, and returns the length consumed (0 if there is no
// such VC sequence). Repeated calls count Porter's m.
func gobbleVC(stem []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(stem); i++ {
		cons = !isVowel(stem[i], cons)
		if !cons {
			break
		}
	}
	for i++; i < len(stem); i++ {
		cons = !isVowel(stem[i], cons)
		if cons {
			return i + 1
		}
	}
	return 0
}

// mGt0 is (m > 0).
func mGt0(stem []byte) bool { return gobbleVC(stem, false) != 0 }

// mGt1 is (m > 1).
func mGt1(stem []byte) bool {
	n := gobbleVC(stem, false)
	return n != 0 && gobbleVC(stem[n:], true) != 0
}

// mEq1 is (m = 1).
func mEq1(stem []byte) bool {
	n := gobbleVC(stem, false)
	return n != 0 && gobbleVC(stem[n:], true) == 0
}

// oStar is (*o): the stem ends consonant-vowel-consonant, the last not w, x or
// y. Like SQLite it classifies every letter from the start, so shorter stems
// count as if preceded by vowels.
func oStar(stem []byte) bool {
	switch stem[len(stem)-1] {
	case 'w', 'x', 'y':
		return false
	}
	var mask uint
	cons := false
	for _, c := range stem {
		cons = !isVowel(c, cons)
		mask <<= 1
		if cons {
			mask |= 1
		}
	}
	return mask&7 == 5
}

// mGt1AndSOrT is (m > 1 and (*S or *T)).
func mGt1AndSOrT(stem []byte) bool {
	c := stem[len(stem)-1]
	return (c == 's' || c == 't') && mGt1(stem)
}

// hasVowel is (*v*), fts5Porter_Vowel: here 'y' counts as a vowel at any
// position but the first, regardless of the letter before it.
func hasVowel(stem []byte) bool {
	for i, c := range stem {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}

// maxKeptStems bounds Stems: the vocabulary of the Go spec, Rust and Python
// references together is about 20,000 words.
const maxKeptStems = 1 << 16

// Stems is Stem with its answers kept, for a process that stems the same
// words over and over: a server highlighting the words of every hit it
// returns. A stem is a function of its word, so what is kept is never
// stale. Safe for concurrent use; the zero value is ready to use.
type Stems struct {
	mu   sync.RWMutex
	kept map[string]string
}

// Stem returns Stem(folded).
func (s *Stems) Stem(folded string) string {
	s.mu.RLock()
	st, ok := s.kept[folded]
	s.mu.RUnlock()
	if ok {
		return st
	}
	st = Stem(folded)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept == nil || len(s.kept) >= maxKeptStems {
		s.kept = map[string]string{}
	}
	// Copies: the word may be a slice of a section's whole text, which the
	// map would otherwise keep alive.
	s.kept[strings.Clone(folded)] = strings.Clone(st)
	return st
}
