package shape

import (
	"slices"
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct{ text, want string }{
		{"s[i:j:k]", "x[x:x:x]"},
		{"a[low : high : max]", "x[x:x:x]"},
		{"x[1:10:2]", "x[x:x:x]"},
		{"x.(T)", "x.(x)"},
		{"func init()", "x()"}, // identifiers and the spaces between them are one run
		{"<-chan int", "<-x"},
		{"::std::io", "::x::x"},
		{"'\\u00e9'", "'\\x'"},
		{"a := 1\nb := 2", "x:=x x:=x"}, // a line break is a space
		{"  \n\n", ""},
		{"x\u00a0+\u00a0y", "x+x"}, // any Unicode space
	}
	for _, tt := range tests {
		if got := Of(tt.text); got != tt.want {
			t.Errorf("Of(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestQuery(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		{"what is a goroutine?", nil},      // sentence punctuation is not code
		{"someone else's package", nil},    // nor is an apostrophe in a word
		{"run-time panics", nil},           // or a hyphen
		{"s[i:j:k]", []string{"x[x:x:x]"}}, // a short query is code as a whole
		{"switch v := x.(type)", []string{"x:=x.(x)", ":=", "x.(x)"}},
		{"leading :: in a path like ::std::io", []string{"::", "::x::x"}}, // a sentence: only its code words
		{"...", []string{"..."}},
	}
	for _, tt := range tests {
		if got := Query(tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("Query(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestFind(t *testing.T) {
	text := "the primary expression\n\ta[low : high : max]\nconstructs a slice; so does s[1:2:3]."
	var got []string
	for _, r := range Find(text, "x[x:x:x]") {
		got = append(got, text[r[0]:r[1]])
	}
	// "so does s" is one placeholder; the match starts at its last word.
	want := []string{"a[low : high : max]", "s[1:2:3]"}
	if !slices.Equal(got, want) {
		t.Errorf("Find = %q, want %q", got, want)
	}
	if r := Find(text, "x.(x)"); r != nil {
		t.Errorf("Find of an absent shape = %v", r)
	}
}

// TestLiterals: what the literal index keeps of a text, and that every code
// needle or CJK run of the text is still a substring of it.
func TestLiterals(t *testing.T) {
	tests := []struct {
		text, want string
		needles    []string
	}{
		{"The value x.(T) asserts that x is not nil.", "x.(T)", []string{"x.(T)", ".(T"}},
		{"a[low : high : max] is a full slice", "a[low\n:\n:\nmax]", []string{"a[low"}},
		{"use r#match or <-chan int, then c\"hello\".", "r#match\n<-chan\nc\"hello\".", []string{"r#match", "<-chan", `c"hello"`}},
		{"保険金の支払手順は 次のとおり です", "保険金の支払手順は\n次のとおり\nです", []string{"支払手順", "保険金"}},
		{"plain words only, no code here...", "", nil},
		{"variadic ... parameters", "...", []string{"..."}},
		{"run-time else's", "", nil},
		{"", "", nil},
	}
	for _, tt := range tests {
		got := Literals(tt.text)
		if got != tt.want {
			t.Errorf("Literals(%q) = %q, want %q", tt.text, got, tt.want)
		}
		for _, n := range tt.needles {
			if !strings.Contains(got, n) {
				t.Errorf("Literals(%q) lost the needle %q", tt.text, n)
			}
		}
	}
}
