package normalize

import (
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

func TestNormalAndLoose(t *testing.T) {
	tests := []struct {
		a, b          string
		normal, loose bool // whether a and b match at each level
	}{
		{"ＡＢＣ１２３", "abc123", true, true},
		{"ﾃﾞｰﾀ", "データ", true, true},
		{"Pre-Authorisation", "pre-authorisation", true, true},
		{"pre-authorisation", "pre authorisation", false, true},
		{"pre authorisation", "preauthorisation", false, true},
		{"医療・保険", "医療保険", false, true},
		{"支払い　の対象外", "支払い の対象外", true, true}, // ideographic space
		{"（注意）", "(注意)", true, true},
		{"データ", "デタ", false, false}, // the long-vowel mark is part of the word
		{"slice", "slices", false, false},
	}
	for _, tt := range tests {
		if got := Normal(tt.a) == Normal(tt.b); got != tt.normal {
			t.Errorf("Normal(%q)=%q vs Normal(%q)=%q: equal %v, want %v", tt.a, Normal(tt.a), tt.b, Normal(tt.b), got, tt.normal)
		}
		if got := Loose(tt.a) == Loose(tt.b); got != tt.loose {
			t.Errorf("Loose(%q)=%q vs Loose(%q)=%q: equal %v, want %v", tt.a, Loose(tt.a), tt.b, Loose(tt.b), got, tt.loose)
		}
	}
}

// TestNormalASCIIFastPath: ASCII text skips NFKC and case folding; the result
// must be what the two transforms give, for every ASCII byte.
func TestNormalASCIIFastPath(t *testing.T) {
	var all strings.Builder
	for c := 0; c < 128; c++ {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{"", "  Mixed CASE\tand\n\nspace  ", "RPO-RTO/Change_Window (v2.0)", all.String(), "\x00\x1f\x7f"} {
		want := collapseSpace(cases.Fold().String(norm.NFKC.String(s)), false)
		if got := Normal(s); got != want {
			t.Errorf("Normal(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestNormalOfLines: the normal form of lines joined by "\n" is their own
// normal forms, the empty ones left out, joined by a space. A line end is
// white space, and no transform reaches across it: "\n" is a starter that
// composes with nothing (NFKC), folds to itself, and ends a run of spaces.
// So a text can be normalised a line at a time (manual.Library.Exceptions
// does, so it can stop between lines). The alphabet holds what could break
// it: marks at a line's start, characters NFKC turns into spaces or
// sequences (¨, ⑴, ﬀ), half-width kana and voiced marks that compose
// (ｶﾞ), folds that grow (ß, İ), every kind of space, and ASCII-only lines
// (the fast path) beside others.
func TestNormalOfLines(t *testing.T) {
	alphabet := []string{"a", "B", " ", "\t", "\u00a0", "\u3000", "\u2028", "\u0085", "\u0301", "\u0308", "¨", "⑴", "ﬀ", "ｶ", "ﾞ", "ﾟ", "ß", "İ", "Σ", "ς", "Ａ", "１", "－", "データ", "x y", "\u200b", "\ufeff", "e\u0301"}
	r := rand.New(rand.NewPCG(46, 1))
	for range 5_000 {
		lines := make([]string, 1+r.IntN(5))
		for i := range lines {
			var b strings.Builder
			for range r.IntN(6) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			lines[i] = b.String()
		}
		var parts []string
		for _, l := range lines {
			if n := Normal(l); n != "" {
				parts = append(parts, n)
			}
		}
		if whole, joined := Normal(strings.Join(lines, "\n")), strings.Join(parts, " "); whole != joined {
			t.Fatalf("lines %q: whole %q, line by line %q", lines, whole, joined)
		}
	}
}

func TestLooseJoinedHolds(t *testing.T) {
	for _, tt := range []struct {
		text, query string
		want        bool
	}{
		{"the pre-authorisation step", "preauthorisation", true},
		{"the pre authorisation step", "pre-authorisation", true},
		{"pre-authorisations", "preauthorisation", true}, // ends inside a word, as a normalized match may
		{"regular access paths are broken or too slow", "rto", false},
		{"if a TLS-cert on the gateway", "rto", false},
		{"For points older than seven days", "rpo", false},
		{"R-P-O targets", "rpo", true},
		{"the R.P.O. target", "RPO", true},
		{"x retrybudget y", "retry budget", true},
		{"医療・保険の手続き", "医療保険", true},
		{"支払い の 対象外 の例", "支払いの対象外", true},
		{"Ｐｒｅ－ａｕｔｈｏｒｉｓａｔｉｏｎ is required", "preauthorisation", true},
		{"or po and rpo", "rpo", true}, // the second place holds it whole
		{"", "x", false},
	} {
		needle := Loose(tt.query)
		if got := LooseJoined(tt.text).Holds(needle); got != tt.want {
			t.Errorf("LooseJoined(%q).Holds(%q) = %v, want %v", tt.text, needle, got, tt.want)
		}
		if LooseJoined(tt.text).text != Loose(tt.text) {
			t.Errorf("LooseJoined(%q).Text = %q, want Loose's %q", tt.text, LooseJoined(tt.text).text, Loose(tt.text))
		}
	}
}
