package snippet

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// spansOf marks every occurrence of each word (term i = words[i]).
func spansOf(text string, words ...string) []Span {
	var out []Span
	for i, w := range words {
		for off := 0; ; {
			j := strings.Index(text[off:], w)
			if j < 0 {
				break
			}
			out = append(out, Span{Start: off + j, End: off + j + len(w), Term: i})
			off += j + len(w)
		}
	}
	return out
}

func TestBuild(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 20) // 540 runes
	jaFiller := strings.Repeat("これは日本語の説明文です。", 30)             // 390 runes, no spaces
	tests := []struct {
		name   string
		text   string
		words  []string
		opt    Options
		want   []string // substrings the snippet must contain
		reject []string // substrings it must not contain
		max    int      // most runes allowed (0: no check)
	}{
		{
			name: "short text whole", text: "A slice is a descriptor.", words: []string{"slice"},
			opt: Options{Chars: 100, Mark: Markdown}, want: []string{"A **slice** is a descriptor."}, reject: []string{"…"},
		},
		{
			name:  "window with most distinct terms wins",
			text:  "slice here. " + filler + "slice and capacity together. " + filler,
			words: []string{"slice", "capacity"}, opt: Options{Chars: 80, Windows: 1, Mark: Markdown},
			want: []string{"**slice** and **capacity** together"}, reject: []string{"here"}, max: 80 + 2*boundarySlack + 2,
		},
		{
			name:  "second window shows the missing term",
			text:  "alpha " + filler + "beta " + filler + "alpha again " + filler,
			words: []string{"alpha", "beta"}, opt: Options{Chars: 60, Windows: 2, Mark: Markdown},
			want: []string{"**alpha**", "**beta**", " … "},
		},
		{
			name: "cuts at word boundaries", text: filler + "needle " + filler, words: []string{"needle"},
			opt: Options{Chars: 50, Windows: 1}, want: []string{"…", "needle"},
			reject: []string{"…orem", "…psum", "…olor", "…met", "orem…", "psum…", "olor…"},
		},
		{
			name: "ANSI marks", text: "the range clause", words: []string{"range"},
			opt: Options{Mark: ANSIBold}, want: []string{"the \x1b[1mrange\x1b[22m clause"},
		},
		{
			name: "collapses white space", text: "func f() {\n\treturn  x\n}", words: []string{"return"},
			opt: Options{Mark: Markdown}, want: []string{"func f() { **return** x }"},
		},
		{
			name: "japanese counted in runes", text: jaFiller + "スライス式は部分文字列を作る。" + jaFiller,
			words: []string{"スライス式"}, opt: Options{Chars: 40, Windows: 1, Mark: Markdown},
			want: []string{"**スライス式**は部分文字列"}, max: 40 + 2,
		},
		{
			name:  "punctuation-heavy",
			text:  filler + "v, ok := x.(T) // type assertion; ch <-chan int " + filler,
			words: []string{"x.(T)", "<-chan"}, opt: Options{Chars: 80, Windows: 1, Mark: Markdown},
			want: []string{"**x.(T)**", "**<-chan**"},
		},
		{
			name: "no spans gives the start", text: filler, opt: Options{Chars: 40},
			want: []string{"lorem ipsum"}, reject: []string{"…lorem"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(tt.text, spansOf(tt.text, tt.words...), tt.opt)
			if !utf8.ValidString(got) {
				t.Fatalf("invalid UTF-8: %q", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("snippet lacks %q:\n%s", w, got)
				}
			}
			for _, r := range tt.reject {
				if strings.Contains(got, r) {
					t.Errorf("snippet has %q:\n%s", r, got)
				}
			}
			plain := strings.NewReplacer("**", "", "\x1b[1m", "", "\x1b[22m", "").Replace(got)
			if n := utf8.RuneCountInString(plain); tt.max > 0 && n > tt.max {
				t.Errorf("snippet is %d runes, want at most %d:\n%s", n, tt.max, got)
			}
		})
	}
}

// Spans that fall mid-rune or outside the text must not break the output.
func TestBuildBadSpans(t *testing.T) {
	text := "日本語のテキスト"
	spans := []Span{{Start: 1, End: 4}, {Start: -5, End: 2}, {Start: 3, End: 999}, {Start: 6, End: 6}}
	got := Build(text, spans, Options{Mark: Markdown})
	if !utf8.ValidString(got) || !strings.Contains(strings.ReplaceAll(got, "**", ""), text) {
		t.Fatalf("Build = %q", got)
	}
}

// TestBuildOverlappingSpans: a word and the code holding it start at the
// same place ("interface" and "interface{}"); the longer is marked whole,
// whichever order the matchers gave them in.
func TestBuildOverlappingSpans(t *testing.T) {
	text := "var x interface{} = 7"
	word, code := Span{Start: 6, End: 15, Term: 0}, Span{Start: 6, End: 17, Term: 1}
	for _, spans := range [][]Span{{word, code}, {code, word}} {
		if got := Build(text, spans, Options{Mark: Markdown}); !strings.Contains(got, "**interface{}**") {
			t.Errorf("Build(%v) = %q, want interface{} marked whole", spans, got)
		}
	}
}

// TestRuneIndexMatchesDenseTable holds the sparse rune index to a table of
// every rune's byte offset, at every byte and rune offset (and past both
// ends) of texts mixing ASCII, kana, accents, emoji and invalid bytes,
// longer and shorter than one step of the index.
func TestRuneIndexMatchesDenseTable(t *testing.T) {
	texts := []string{
		"日本語のテキスト",
		strings.Repeat("型の変換 conversion é ", 20),
		strings.Repeat("a", 31) + "é" + strings.Repeat("b", 64) + "😀",
		"bad \xff\xfe bytes \xc3 and a trailing \xe6\x97",
		strings.Repeat("\u0301x", 50),
	}
	for _, text := range texts {
		var dense []int
		for i := range text {
			dense = append(dense, i)
		}
		dense = append(dense, len(text))
		x := newRuneIndex(text)
		if x.runes() != len(dense)-1 {
			t.Fatalf("%q: %d runes, want %d", text, x.runes(), len(dense)-1)
		}
		for r, b := range dense {
			if got := x.byteOf(r); got != b {
				t.Errorf("%q: byteOf(%d) = %d, want %d", text, r, got, b)
			}
		}
		for b := -1; b <= len(text)+1; b++ {
			want := 0
			for r, at := range dense {
				if at <= b {
					want = r
				}
			}
			if got := x.runeOf(b); got != want {
				t.Errorf("%q: runeOf(%d) = %d, want %d", text, b, got, want)
			}
		}
	}
}

// TestBuildInvalidUTF8 keeps what the reader sees of bad bytes: each one
// shown as U+FFFD, never passed through.
func TestBuildInvalidUTF8(t *testing.T) {
	got := Build("bad \xff\xfe  bytes", nil, Options{})
	if got != "bad \ufffd\ufffd bytes" {
		t.Errorf("Build = %q", got)
	}
}

// TestMarksNeverMeetTheText: with Markdown's "**" marks, the text's own
// asterisks are escaped, so every "**" in a snippet is a mark (the Python
// reference's -2**2 and **kwargs were read as marks).
func TestMarksNeverMeetTheText(t *testing.T) {
	for _, tc := range []struct {
		text  string
		spans []Span
		want  string
	}{
		{"the power -2**2 results in -4", []Span{{Start: 4, End: 9}}, `the **power** -2\*\*2 results in -4`},
		{"call f(**kwargs) here", []Span{{Start: 7, End: 15}}, `call f(**\*\*kwargs**) here`},
		{"pointer *T and x * y", nil, `pointer \*T and x \* y`},
	} {
		got := Build(tc.text, tc.spans, Options{Chars: MaxChars, Mark: Markdown})
		if got != tc.want {
			t.Errorf("Build(%q) = %q, want %q", tc.text, got, tc.want)
		}
		// Every "**" left, once the escapes are taken out, is a mark.
		unescaped := strings.ReplaceAll(got, `\*`, "")
		if n := strings.Count(unescaped, "**"); n != 2*len(tc.spans) {
			t.Errorf("Build(%q) = %q: %d marks, want %d", tc.text, got, n, 2*len(tc.spans))
		}
	}
}

// With Marker.Break set, a run of white space holding a line break becomes
// the break, any other run one space; without it, every run is one space.
func TestBuildBreaks(t *testing.T) {
	text := "the primary expression\n\na[low : high : max]\n\nconstructs  a slice"
	spans := []Span{{Start: strings.Index(text, "slice"), End: strings.Index(text, "slice") + 5, Term: 0}}
	for _, tc := range []struct {
		mark Marker
		want string
	}{
		{Marker{Before: "[", After: "]", Break: "|"}, "the primary expression|a[low : high : max]|constructs a [slice]"},
		{Marker{Before: "[", After: "]"}, "the primary expression a[low : high : max] constructs a [slice]"},
		{Marker{Break: "|"}, "the primary expression|a[low : high : max]|constructs a slice"},
	} {
		if got := Build(text, spans, Options{Chars: 200, Mark: tc.mark}); got != tc.want {
			t.Errorf("Build with %+v = %q, want %q", tc.mark, got, tc.want)
		}
	}
	// Invalid UTF-8 takes the rune-by-rune path: the same separators.
	if got := Build("a\xff\n\nb c", nil, Options{Chars: 200, Mark: Marker{Break: "|"}}); got != "a\ufffd|b c" {
		t.Errorf("invalid UTF-8: %q", got)
	}
}
