package ingest

import "testing"

// TestTidy pins what tidy keeps of a section's raw text: the result of the
// regexp `[ \t]+\n|\n{3,}` (blanks before a line break go, three or more
// line breaks become two) it replaced, then trimmed.
func TestTidy(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "",
		"  text  ":                 "text",
		"a \t\nb":                  "a\nb",
		"a\n\nb":                   "a\n\nb",
		"a\n\n\n\n\nb":             "a\n\nb",
		"a  b\tc":                  "a  b\tc",  // blanks inside a line stay
		"a \n\n\nb":                "a\n\n\nb", // the blanks take the first break, leaving two
		"a \n \n \nb":              "a\n\n\nb",
		"a\n\n\n \nb":              "a\n\n\nb",
		"\u00a0a\u00a0\n\n\n\n":    "a", // TrimSpace knows U+00A0
		"é \n ü":                   "é\n ü",
		"code:\n    x := 1   \n\n": "code:\n    x := 1",
	} {
		if got := tidy([]byte(in)); got != want {
			t.Errorf("tidy(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCollapseSpace(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "",
		"plain words here": "plain words here",
		" edges ":          " edges ",
		"a  b":             "a b",
		"a\n\tb\r\n":       "a b ",
		"a\u00a0\u2003b":   "a b",
		"ünï cödé":         "ünï cödé",
		"bad \xff byte":    "bad \ufffd byte",
	} {
		if got := collapseSpace(in); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", in, got, want)
		}
	}
}
