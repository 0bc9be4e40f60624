package specdiff

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitSentences cuts a section's text into the units the sentence diff
// aligns. Stored section text keeps one paragraph, list item, table row or
// code line per line, so every line is a unit of its own and blank lines
// are dropped. A line is cut further after ".", "!" or "?" (and any closing
// quotes or brackets right after it) when white space follows and the next
// character is not a lower-case letter, so "e.g. the" stays whole. Lines
// inside a ``` or ~~~ fence are code and are never cut. Units are trimmed.
func splitSentences(text string) []string {
	var out []string
	fenced := false
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fenced = !fenced
			out = append(out, line)
			continue
		}
		if fenced {
			out = append(out, line)
			continue
		}
		out = appendSentences(out, line)
	}
	return out
}

// appendSentences appends the sentences of one trimmed line.
func appendSentences(out []string, line string) []string {
	start := 0
	for i := 0; i < len(line); i++ {
		if c := line[i]; c != '.' && c != '!' && c != '?' {
			continue
		}
		end := i + 1
		for end < len(line) {
			r, size := utf8.DecodeRuneInString(line[end:])
			if !strings.ContainsRune(`"')]}’”»`, r) {
				break
			}
			end += size
		}
		next := end
		for next < len(line) && (line[next] == ' ' || line[next] == '\t') {
			next++
		}
		if next == end || next == len(line) {
			continue // no space after it, or the end of the line
		}
		if r, _ := utf8.DecodeRuneInString(line[next:]); unicode.IsLower(r) {
			continue
		}
		out = append(out, line[start:end])
		start = next
		i = next - 1
	}
	return append(out, line[start:])
}

// collapseSpace replaces each run of white space by one space and trims
// the ends: texts equal after it are unchanged.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// equalCollapsed is collapseSpace(a) == collapseSpace(b), without building
// either: most sections of two versions are the same, and whole texts are
// up to 50 KB.
func equalCollapsed(a, b string) bool {
	if a == b {
		return true
	}
	i, j := skipSpace(a, 0), skipSpace(b, 0)
	for i < len(a) && j < len(b) {
		ra, sa := utf8.DecodeRuneInString(a[i:])
		rb, sb := utf8.DecodeRuneInString(b[j:])
		spaceA, spaceB := unicode.IsSpace(ra), unicode.IsSpace(rb)
		switch {
		case spaceA && spaceB:
			i, j = skipSpace(a, i), skipSpace(b, j)
			// A run of space at the end of one and not of the other is
			// trailing space there, which collapseSpace drops.
			if (i == len(a)) != (j == len(b)) {
				return false
			}
		case spaceA || spaceB || ra != rb:
			return false
		default:
			i, j = i+sa, j+sb
		}
	}
	return skipSpace(a, i) == len(a) && skipSpace(b, j) == len(b)
}

func skipSpace(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// pairLookahead is how many added sentences of a hunk a removed one is
// compared with, from the first one not yet used: edits keep sentences in
// their order, and the window keeps pairing linear in the hunk's size.
const pairLookahead = 8

// minPairSimilarity is the word overlap (Dice over lower-cased words) at
// which a removed and an added sentence are one sentence reworded rather
// than one sentence gone and another new: a reworded sentence keeps most
// of its words, while two unrelated ones share mostly "the", "a", "of".
const minPairSimilarity = 0.5

// diffSentences lists the sentences that differ between two texts. It
// aligns their sentences (splitSentences, compared after collapseSpace)
// with diffInts; in each run of removed sentences next to a run of added
// ones, a removed sentence is paired with the most similar added one among
// the next pairLookahead, when they share at least minPairSimilarity of
// their words, and reported as changed with word marks; the others are
// reported removed or added.
//
// Only the sentences between the common first and last ones go through the
// diff, at most opts.MaxSentences a side. When there are more, the first
// MaxSentences of each side are aligned, and only the changes before their
// last common sentence are reported (later ones may be artefacts of the
// cut); when they have none in common, only the first differing sentence
// of each side is, paired if alike. Either way truncated is true; it is
// also true when a pair of sentences was too long to diff word by word
// (markWords). The work is thus linear in the texts' length plus a diff of
// at most MaxSentences a side and of at most MaxWords a side per pair.
func diffSentences(oldText, newText string, opts Options) (changes []SentenceChange, truncated bool) {
	olds, news := splitSentences(oldText), splitSentences(newText)
	ids := interner{}
	a, b := make([]int32, len(olds)), make([]int32, len(news))
	for i, s := range olds {
		a[i] = ids.id(collapseSpace(s))
	}
	for j, s := range news {
		b[j] = ids.id(collapseSpace(s))
	}
	prefix, suffix := trimCommon(a, b)
	olds, news = olds[prefix:len(olds)-suffix], news[prefix:len(news)-suffix]
	a, b = a[prefix:len(a)-suffix], b[prefix:len(b)-suffix]
	cut := len(a) > opts.MaxSentences || len(b) > opts.MaxSentences
	if cut {
		truncated = true
		olds, news = olds[:min(len(olds), opts.MaxSentences)], news[:min(len(news), opts.MaxSentences)]
		a, b = a[:len(olds)], b[:len(news)]
	}
	del, ins := diffInts(a, b)

	runs := spans(del, ins)
	if cut && len(a) > 0 && len(b) > 0 {
		lastCommon := -1
		for k, r := range runs {
			if r.equal {
				lastCommon = k
			}
		}
		if lastCommon < 0 {
			// Nothing in common within reach: the first sentences that
			// differ are all that can be said.
			runs = []span{{o0: 0, o1: 1, n0: 0, n1: 1}}
		} else {
			runs = runs[:lastCommon]
		}
	}
	for _, r := range runs {
		if r.equal {
			continue
		}
		var t bool
		changes, t = appendHunk(changes, olds[r.o0:r.o1], news[r.n0:r.n1], opts.MaxWords)
		truncated = truncated || t
	}
	return changes, truncated
}

// appendHunk appends the changes of one hunk: removed sentences next to
// added ones, paired as diffSentences describes.
func appendHunk(changes []SentenceChange, removed, added []string, maxWords int) ([]SentenceChange, bool) {
	truncated := false
	if len(removed) == 0 || len(added) == 0 {
		for _, s := range removed {
			changes = append(changes, SentenceChange{Kind: KindRemoved, Class: classifySentence(s, ""), Old: s})
		}
		for _, s := range added {
			changes = append(changes, SentenceChange{Kind: KindAdded, Class: classifySentence("", s), New: s})
		}
		return changes, false
	}
	addedWords := make([][]uint64, len(added))
	for k, s := range added {
		addedWords[k] = wordBag(s)
	}
	next := 0 // first added sentence not yet reported
	for _, r := range removed {
		rw := wordBag(r)
		best, bestSim := -1, minPairSimilarity
		for k := next; k < len(added) && k < next+pairLookahead; k++ {
			if sim := dice(rw, addedWords[k]); sim >= bestSim && (best < 0 || sim > bestSim) {
				best, bestSim = k, sim
			}
		}
		if best < 0 {
			changes = append(changes, SentenceChange{Kind: KindRemoved, Class: classifySentence(r, ""), Old: r})
			continue
		}
		for ; next < best; next++ {
			changes = append(changes, SentenceChange{Kind: KindAdded, Class: classifySentence("", added[next]), New: added[next]})
		}
		marked, t := markWords(collapseSpace(r), collapseSpace(added[best]), maxWords)
		truncated = truncated || t
		changes = append(changes, SentenceChange{Kind: KindChanged, Class: classifySentence(r, added[best]), Old: r, New: added[best], Marked: marked})
		next = best + 1
	}
	for ; next < len(added); next++ {
		changes = append(changes, SentenceChange{Kind: KindAdded, Class: classifySentence("", added[next]), New: added[next]})
	}
	return changes, truncated
}
