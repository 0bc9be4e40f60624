package normalize

import (
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
