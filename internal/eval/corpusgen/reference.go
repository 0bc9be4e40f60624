package corpusgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// referenceHead is the head of an API reference's vocabulary: function
// words, then the words of a runtime's API documentation. "error" is
// among the most frequent, as in the Node.js docs, so a query for it
// keeps most of a page in scope.
var referenceHead = []string{
	"the", "a", "to", "of", "is", "and", "in", "be", "if", "error",
	"that", "for", "an", "are", "it", "callback", "will", "with", "by", "as",
	"or", "not", "this", "when", "on", "returns", "string", "options", "buffer", "object",
	"stream", "file", "path", "event", "data", "promise", "default", "function", "value", "argument",
	"process", "signal", "listener", "encoding", "descriptor", "mode", "flag", "thrown", "emitted", "handle",
	"method", "property", "instance", "class", "module", "integer", "number", "boolean", "length", "offset",
	"size", "read", "write", "open", "close", "chunk", "byte", "bytes", "undefined", "null",
	"async", "sync", "operation", "system", "platform", "user", "directory", "symlink", "permission", "timeout",
}

// referenceTail is how many made-up words follow referenceHead.
const referenceTail = 2000

// streamReferenceFile is the random streams of WriteReference's files.
const streamReferenceFile = 4 << 40

// exceptionSentences are the sentences of a reference that state an
// exception or a warning; %s is a word of the vocabulary.
var exceptionSentences = []string{
	"Throws an error unless the `%s` argument is a %s.",
	"Warning: calling this method more than once on the same %s is not supported.",
	"Every %s is passed to the callback except the %s.",
	"Caution: the %s is not covered by the %s check.",
	"Values of %s are excluded from the %s.",
	"The %s does not apply to a %s opened in sync mode.",
	"ただし、%s の %s は対象外です。",
}

// WriteReference writes files API reference pages into dir, about size
// bytes each, as reference-01.md, reference-02.md, … They are shaped like
// the Node.js API docs (fs.md, buffer.md): one "# Module" heading over the
// whole page, "## Class" sections, "### name.method(…)" subsections with a
// YAML comment, an argument list, prose in which errors and exceptions
// ("throws an error unless…", "Warning:", "except", a Japanese ただし
// now and then) come up often, and fenced examples. One top-level section
// per page is what makes a page-wide question (manual_excepts with a query)
// read the whole page. dir is created if needed.
func WriteReference(dir string, files, size int) (Stats, error) {
	if files < 1 || size < 1 {
		return Stats{}, fmt.Errorf("corpusgen: want at least 1 file of 1 byte, got %d of %d", files, size)
	}
	vocab := vocabulary(referenceHead, referenceTail)
	var st Stats
	var buf []byte
	for file := range files {
		r := newRand(streamReferenceFile | uint64(file))
		ref := referenceWriter{r: r, w: newWords(r, vocab)}
		buf = ref.appendPage(buf[:0], file, size)
		if err := writeFile(dir, fmt.Sprintf("reference-%02d.md", file+1), buf); err != nil {
			return st, err
		}
		st.Files++
		st.Sections += ref.sections
		st.Bytes += int64(len(buf))
	}
	return st, nil
}

// referenceWriter writes one reference page.
type referenceWriter struct {
	r        *rand.Rand
	w        words
	sections int
}

func (p *referenceWriter) appendPage(buf []byte, file, size int) []byte {
	p.sections++
	buf = fmt.Appendf(buf, "# Module %d: %s\n\n<!--introduced_in=v0.10.0-->\n\n> Stability: 2 - Stable\n\n", file+1, capitalize(p.name()))
	buf = p.paragraph(buf)
	for len(buf) < size {
		p.sections++
		class := capitalize(p.name())
		buf = fmt.Appendf(buf, "## Class: `%s`\n\n", class)
		buf = p.paragraph(buf)
		for range 1 + p.r.IntN(6) {
			p.sections++
			method := p.name()
			arg := p.w.next()
			buf = fmt.Appendf(buf, "### `%s.%s(%s[, options])`\n\n<!-- YAML\nadded: v%d.%d.0\n-->\n\n",
				strings.ToLower(class[:1])+class[1:], method, arg, 1+p.r.IntN(20), p.r.IntN(12))
			buf = fmt.Appendf(buf, "* `%s` {string|Buffer|URL}\n* `options` {Object}\n  * `%s` {integer} **Default:** `0`\n* Returns: {Promise}\n\n", arg, p.w.next())
			for range 1 + p.r.IntN(3) {
				buf = p.paragraph(buf)
			}
			if p.r.IntN(3) == 0 {
				buf = fmt.Appendf(buf, "```js\nconst { %s } = require('node:%s');\n\n%s(%s, (err) => {\n  if (err) throw err;\n});\n```\n\n",
					method, p.name(), method, p.w.next())
			}
		}
	}
	return buf
}

// name is an identifier made of one or two words of the vocabulary.
func (p *referenceWriter) name() string {
	n := p.w.next()
	if p.r.IntN(2) == 0 {
		n += capitalize(p.w.next())
	}
	return n
}

// paragraph appends two to five sentences, one in twelve of them stating
// an exception, and a blank line.
func (p *referenceWriter) paragraph(buf []byte) []byte {
	for s := range 2 + p.r.IntN(4) {
		if s > 0 {
			buf = append(buf, ' ')
		}
		if p.r.IntN(12) == 0 {
			buf = fmt.Appendf(buf, exceptionSentences[p.r.IntN(len(exceptionSentences))], p.w.next(), p.w.next())
			continue
		}
		buf = appendSentence(buf, p.r, p.w)
	}
	return append(buf, "\n\n"...)
}
