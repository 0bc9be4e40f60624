package corpusgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// SectionsPerFile is how many sections WriteSpec puts in one file. Big
// specifications come as many pages, and the markdown reader holds a file
// whole while it parses it, so one 80 MB file would measure something no
// user has.
const SectionsPerFile = 500

// specTail is how many made-up words follow specHead: with them the
// 50,000-section corpus's index has a vocabulary of the size of a real
// 80 MB technical text's, which is what a typo fallback that scans the
// vocabulary pays for.
const specTail = 60_000

// Section text sizes: prose is drawn until a section holds at least
// minProse + IntN(spanProse) bytes; with headings, code and links a
// section averages about 1.6 KB, so 50,000 sections are about 79 MB.
const (
	minProse  = 880
	spanProse = 1000
)

// titleStop are the head words a heading does not use.
var titleStop = map[string]bool{
	"the": true, "of": true, "a": true, "is": true, "to": true, "and": true, "in": true, "that": true,
	"an": true, "for": true, "be": true, "as": true, "are": true, "it": true, "by": true, "with": true,
	"or": true, "not": true, "if": true, "may": true, "on": true, "this": true, "which": true, "from": true,
	"must": true, "each": true, "any": true, "has": true, "all": true, "can": true, "other": true,
	"same": true, "its": true, "only": true, "following": true, "when": true, "there": true, "than": true,
	"but": true, "such": true, "no": true, "one": true,
}

// specTitleWords are the words headings are made of: the head of the
// vocabulary without its function words.
var specTitleWords = func() []string {
	var out []string
	for _, w := range specHead {
		if !titleStop[w] {
			out = append(out, w)
		}
	}
	return out
}()

// WriteSpec writes a Markdown specification of sections sections into dir,
// SectionsPerFile to a file, as chapter-00001.md, chapter-00002.md, … A
// file is chapter N: its "# N Title" heading is the page's section, "##
// N.S Title" headings open ten-section groups and "### N.S.U Title" the
// rest, so every heading, and so every anchor, is unique. Sections hold
// Zipf-distributed prose over specHead and a long tail of made-up words,
// and now and then a fenced code block, a list, or a link to an earlier
// section (of the same file or an earlier one), whose text is the target's
// title as the anchors channel expects.
//
// No front matter is written: the markdown reader titles a page by its
// leading "# heading". dir is created if needed; existing files of the
// same names are overwritten.
func WriteSpec(dir string, sections int) (Stats, error) {
	if sections < 1 {
		return Stats{}, fmt.Errorf("corpusgen: want at least 1 section, got %d", sections)
	}
	vocab := vocabulary(specHead, specTail)
	var st Stats
	var buf []byte
	for file := 0; file*SectionsPerFile < sections; file++ {
		n := min(SectionsPerFile, sections-file*SectionsPerFile)
		buf = appendSpecFile(buf[:0], file, n, vocab)
		if err := writeFile(dir, specFileName(file), buf); err != nil {
			return st, err
		}
		st.Files++
		st.Sections += n
		st.Bytes += int64(len(buf))
	}
	return st, nil
}

func specFileName(file int) string { return fmt.Sprintf("chapter-%05d.md", file+1) }

// specHeading is the heading of section idx of a file: its level (1 for
// the page), and its text, a section number and two to four title words.
// It is a function of (file, idx) alone, drawn from a stream of its own,
// so a link can name any earlier section without keeping them all.
func specHeading(file, idx int) (level int, text string) {
	r := newRand(streamSpecTitle | uint64(file)<<20 | uint64(idx))
	n := 2 + r.IntN(3)
	ws := make([]string, n)
	for i := range ws {
		// The first 150 title words: headings name the main topics.
		ws[i] = specTitleWords[r.IntN(min(150, len(specTitleWords)))]
	}
	num := strconv.Itoa(file + 1)
	switch {
	case idx == 0:
		level = 1
	case (idx-1)%10 == 0:
		level = 2
		num += "." + strconv.Itoa((idx-1)/10+1)
	default:
		level = 3
		num += "." + strconv.Itoa((idx-1)/10+1) + "." + strconv.Itoa((idx-1)%10)
	}
	return level, num + " " + capitalize(strings.Join(ws, " "))
}

// appendSpecFile appends the Markdown of file (n sections) to buf.
func appendSpecFile(buf []byte, file, n int, vocab []string) []byte {
	r := newRand(streamSpecFile | uint64(file))
	w := newWords(r, vocab)
	for idx := range n {
		level, heading := specHeading(file, idx)
		if idx > 0 {
			buf = append(buf, '\n')
		}
		buf = append(buf, strings.Repeat("#", level)...)
		buf = append(buf, ' ')
		buf = append(buf, heading...)
		buf = append(buf, "\n\n"...)
		start := len(buf)
		target := minProse + r.IntN(spanProse)
		for len(buf)-start < target {
			buf = appendParagraph(buf, r, w)
			switch x := r.IntN(20); {
			case x == 0:
				buf = appendCode(buf, r)
			case x == 1:
				buf = appendList(buf, r, w)
			case x < 5:
				buf = appendSpecLink(buf, r, file, idx)
			}
		}
	}
	return buf
}

// appendParagraph appends two to five sentences and a blank line.
func appendParagraph(buf []byte, r *rand.Rand, w words) []byte {
	sentences := 2 + r.IntN(4)
	for s := range sentences {
		if s > 0 {
			buf = append(buf, ' ')
		}
		buf = appendSentence(buf, r, w)
	}
	return append(buf, "\n\n"...)
}

// appendSentence appends six to eighteen words, capitalised, with a comma
// or an inline code span now and then, ending in a full stop.
func appendSentence(buf []byte, r *rand.Rand, w words) []byte {
	n := 6 + r.IntN(13)
	for i := range n {
		if i > 0 {
			buf = append(buf, ' ')
		}
		word := w.next()
		switch {
		case i == 0:
			buf = append(buf, capitalize(word)...)
		case r.IntN(25) == 0:
			buf = append(buf, '`')
			buf = append(buf, word...)
			buf = append(buf, '.')
			buf = append(buf, w.next()...)
			buf = append(buf, "()`"...)
		default:
			buf = append(buf, word...)
		}
		if i < n-1 && r.IntN(12) == 0 {
			buf = append(buf, ',')
		}
	}
	return append(buf, '.')
}

// appendList appends a bulleted list of three to five short items.
func appendList(buf []byte, r *rand.Rand, w words) []byte {
	for range 3 + r.IntN(3) {
		buf = append(buf, "- "...)
		buf = appendSentence(buf, r, w)
		buf = append(buf, '\n')
	}
	return append(buf, '\n')
}

// codeLines are the shapes of the lines of a code block; %s is an
// identifier from the head of the vocabulary.
var codeLines = []string{
	"\tx := make([]%s, n)\n",
	"\tv := %s.%s(x[i:j])\n",
	"\tif %s == nil {\n\t\treturn %s\n\t}\n",
	"\tfor i, %s := range %s {\n\t\t_ = i\n\t}\n",
	"\tch <- %s{}\n",
	"\tvar _ interface{ %s() } = (*%s)(nil)\n",
}

// appendCode appends a fenced Go block of a function with a few lines.
func appendCode(buf []byte, r *rand.Rand) []byte {
	ident := func() string { return specTitleWords[r.IntN(60)] }
	buf = append(buf, "```go\n"...)
	buf = fmt.Appendf(buf, "func (r *%s) %s(v %s) %s {\n", capitalize(ident()), capitalize(ident()), ident(), ident())
	for range 2 + r.IntN(4) {
		line := codeLines[r.IntN(len(codeLines))]
		args := make([]any, strings.Count(line, "%s"))
		for i := range args {
			args[i] = ident()
		}
		buf = fmt.Appendf(buf, line, args...)
	}
	return append(buf, "\treturn v\n}\n```\n\n"...)
}

// appendSpecLink appends a sentence linking to an earlier section: of the
// same file (a fragment link) or of an earlier file (a relative link to
// it), with the target's title words as the link's text. Earlier only, so
// a file's bytes do not depend on how many files follow it.
func appendSpecLink(buf []byte, r *rand.Rand, file, idx int) []byte {
	target := r.IntN(file + 1)
	var href string
	var tidx int
	if target == file {
		if idx < 2 {
			return buf
		}
		tidx = 1 + r.IntN(idx-1)
	} else {
		tidx = 1 + r.IntN(SectionsPerFile-1)
		href = specFileName(target)
	}
	_, heading := specHeading(target, tidx)
	_, title, _ := strings.Cut(heading, " ")
	buf = append(buf, "See ["...)
	buf = append(buf, strings.ToLower(title)...)
	buf = append(buf, "]("...)
	buf = append(buf, href...)
	buf = append(buf, '#')
	buf = append(buf, githubSlug(heading)...)
	return append(buf, ") for the rules that apply.\n\n"...)
}
