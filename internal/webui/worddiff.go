package webui

import (
	"html/template"
	"strings"
)

// WordDiffHTML renders a sentence's word diff, marked as
// specdiff.SentenceChange.Marked is (git diff --word-diff=plain), as HTML:
// removed words in <del>, added ones in <ins>, everything else as text,
// all of it escaped.
//
// It reads the marks as specdiff.Escape says: left to right, a backslash
// makes the character after it text; "[-" opens removed text, which "-]"
// closes; "{+" opens added text, which "+}" closes. Inside a mark only its
// own closer counts. It never fails: a closer outside a mark is text, a
// backslash at the end is one, and a mark left open is closed at the end,
// so a string specdiff did not make still renders as all of its text.
func WordDiffHTML(marked string) template.HTML {
	var b, run strings.Builder
	state := "" // "", "del" or "ins"
	flush := func() {
		if run.Len() == 0 {
			return
		}
		text := template.HTMLEscapeString(run.String())
		if state == "" {
			b.WriteString(text)
		} else {
			b.WriteString("<" + state + ">" + text + "</" + state + ">")
		}
		run.Reset()
	}
	for i := 0; i < len(marked); i++ {
		c := marked[i]
		if c == '\\' && i+1 < len(marked) {
			i++
			run.WriteByte(marked[i])
			continue
		}
		if i+1 < len(marked) {
			switch m := marked[i : i+2]; {
			case state == "" && (m == "[-" || m == "{+"):
				flush()
				state = "del"
				if m == "{+" {
					state = "ins"
				}
				i++
				continue
			case state == "del" && m == "-]", state == "ins" && m == "+}":
				flush()
				state = ""
				i++
				continue
			}
		}
		run.WriteByte(c)
	}
	flush()
	return template.HTML(b.String())
}
