package specdiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// unmark reads a marked string back into its two sides, as Escape's doc
// comment says to: left to right, a backslash makes the next character
// text, "[-"…"-]" is removed text, "{+"…"+}" added text. It is strict: a
// mark where none can stand (an opener inside a mark, a closer outside
// one, an empty or unclosed mark) is an error, so a string it reads
// without error has its marks only where markWords put them.
func unmark(marked string) (oldSide, newSide string, err error) {
	var o, n strings.Builder
	state := ""    // "", delOpen or insOpen
	var cur []byte // text of the open mark
	for i := 0; i < len(marked); i++ {
		c := marked[i]
		if c == '\\' {
			if i+1 == len(marked) {
				return "", "", fmt.Errorf("backslash at the end")
			}
			i++
			c = marked[i]
		} else if isMark(marked[i:]) {
			m := marked[i : i+2]
			switch {
			case state == "" && (m == delOpen || m == insOpen):
				state, cur = m, nil
			case state == delOpen && m == delClose, state == insOpen && m == insClose:
				if len(cur) == 0 {
					return "", "", fmt.Errorf("empty mark at %d", i)
				}
				state = ""
			default:
				return "", "", fmt.Errorf("mark %q at %d inside %q", m, i, state)
			}
			i++
			continue
		}
		switch state {
		case "":
			o.WriteByte(c)
			n.WriteByte(c)
		case delOpen:
			o.WriteByte(c)
			cur = append(cur, c)
		case insOpen:
			n.WriteByte(c)
			cur = append(cur, c)
		}
	}
	if state != "" {
		return "", "", fmt.Errorf("unclosed %q", state)
	}
	return o.String(), n.String(), nil
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a-b c+d [x] {y}", "a-b c+d [x] {y}"},
		{`back\slash`, `back\\slash`},
		{"[-old-]", `[\-old-\]`},
		{"{+new+}", `{\+new+\}`},
		{"[-]", `[\-\]`}, // overlapping marks: both escaped
		{"{+}", `{\+\}`}, // likewise
		{"--]", `--\]`},  // only the pair that forms a mark
		{`\[-`, `\\[\-`}, // a backslash before a mark is text too
		{"x[-+}y", `x[\-+\}y`},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		for _, m := range []string{delOpen, delClose, insOpen, insClose} {
			if strings.Contains(Escape(tt.in), m) {
				t.Errorf("Escape(%q) = %q still holds %q", tt.in, Escape(tt.in), m)
			}
		}
	}
}

func TestMarkWords(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"one word replaced", "the low bound", "the high bound", "the [-low-]{+high+} bound"},
		{"word inserted", "a low and high bound", "a low and a high bound", "a low and {+a+} high bound"},
		{"words removed", "a b c d", "a d", "a [-b c-] d"},
		{"at the start", "Rust has releases", "Go has releases", "[-Rust-]{+Go+} has releases"},
		{"removed at the start", "x a", "a", "[-x-] a"},
		{"at the end", "ends here.", "ends there.", "ends [-here-]{+there+}."},
		{"punctuation only", "a bound on the capacity.", "a bound on the capacity,", "a bound on the capacity[-.-]{+,+}"},
		{"case counts", "The rule", "the rule", "[-The-]{+the+} rule"},
		{"all new", "one two", "three four", "[-one two-]{+three four+}"},
		{"code", "a[low : high]", "a[low : high : max]", "a[low : high {+: max+}]"},
		{"shared punctuation between changes is absorbed", "exported as core::prelude::v1::derive.", "exported as:", "exported as [-core::prelude::v1::derive.-]{+:+}"},
		{"shared words between changes are kept", "a b c d e", "a x c y e", "a [-b-]{+x+} c [-d-]{+y+} e"},
		{"marks in the text", "x [-y-] z", "x {+y+} z", `x [-[\--]{+{\++}y[--\]-]{++\}+} z`},
		{"backslash", `a\b`, `a\c`, `a\\[-b-]{+c+}`},
		{"removed text ending in [", "a [ b", "a b", `a [-\[-] b`},
		{"added text ending in {", "a b", "a { b", `a {+\{+} b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, truncated := markWords(tt.old, tt.new, DefaultMaxWords)
			if got != tt.want || truncated {
				t.Errorf("markWords(%q, %q) = %q, %v; want %q", tt.old, tt.new, got, truncated, tt.want)
			}
			checkRoundTrip(t, tt.old, tt.new, got)
		})
	}
}

// checkRoundTrip asserts that marked reads back as the two sentences
// (spacing aside: marks eat the space around them as git's do not).
func checkRoundTrip(t *testing.T, oldSentence, newSentence, marked string) {
	t.Helper()
	o, n, err := unmark(marked)
	if err != nil {
		t.Fatalf("unmark(%q): %v", marked, err)
	}
	if squeeze(o) != squeeze(oldSentence) || squeeze(n) != squeeze(newSentence) {
		t.Fatalf("%q reads back as\n old %q\n new %q\nwant\n old %q\n new %q", marked, o, n, oldSentence, newSentence)
	}
}

// squeeze drops all white space: markWords keeps the words and their
// order, and spaces only where a side had them.
func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }

// Random sentences made of the mark characters, backslashes and words:
// every marked string reads back unambiguously as its two sentences.
func TestMarkWordsRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"[", "]", "{", "}", "-", "+", `\`, "a", "b", "word", " ", " ", "[-", "-]", "{+", "+}"}
	gen := func() string {
		var b strings.Builder
		for range rng.IntN(14) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for range 20000 {
		o, n := gen(), gen()
		if o == n {
			continue
		}
		marked, _ := markWords(o, n, DefaultMaxWords)
		checkRoundTrip(t, o, n, marked)
	}
}

func FuzzMarkWords(f *testing.F) {
	f.Add("a [-b-] c", "a {+b+} c")
	f.Add(`x\[`, `x\{`)
	f.Add("[-]", "{+}")
	f.Fuzz(func(t *testing.T, o, n string) {
		o, n = collapseSpace(o), collapseSpace(n)
		marked, _ := markWords(o, n, DefaultMaxWords)
		checkRoundTrip(t, o, n, marked)
	})
}

// Past maxWords the middle of the pair is marked as replaced whole.
func TestMarkWordsBound(t *testing.T) {
	got, truncated := markWords("keep a b c d keep", "keep e f g h keep", 3)
	if want := "keep [-a b c d-]{+e f g h+} keep"; got != want || !truncated {
		t.Errorf("got %q, %v; want %q, true", got, truncated, want)
	}
	// The common ends do not count: one word changed in a long sentence
	// is diffed whatever its length.
	long := strings.Repeat("word ", 5000)
	got, truncated = markWords(long+"old "+long, long+"new "+long, 3)
	if truncated || !strings.Contains(got, "word [-old-]{+new+} word") {
		t.Errorf("long sentence: truncated %v, marks missing", truncated)
	}
}
