package tokenize

import (
	"strings"
	"testing"

	"github.com/langspec/langspec/fixtures"
)

// Expected stems are SQLite's (checked by the cross-check in internal/db),
// which mostly agree with Porter's paper and deviate where noted.

func TestStem(t *testing.T) {
	tests := []struct {
		group string
		pairs [][2]string
	}{
		{"porter step 1a", [][2]string{
			{"caresses", "caress"}, {"ponies", "poni"}, {"ties", "ti"}, {"caress", "caress"}, {"cats", "cat"},
		}},
		{"porter step 1b", [][2]string{
			{"feed", "feed"}, {"agreed", "agre"}, {"plastered", "plaster"}, {"bled", "bled"},
			{"motoring", "motor"}, {"sing", "sing"}, {"conflated", "conflat"}, {"troubled", "troubl"},
			{"sized", "size"}, {"hopping", "hop"}, {"tanned", "tan"}, {"falling", "fall"},
			{"hissing", "hiss"}, {"fizzed", "fizz"}, {"failing", "fail"}, {"filing", "file"},
		}},
		{"porter step 1c", [][2]string{{"happy", "happi"}, {"sky", "sky"}, {"playing", "plai"}}},
		{"porter step 2", [][2]string{
			{"relational", "relat"}, {"conditional", "condit"}, {"rational", "ration"},
			{"valenci", "valenc"}, {"hesitanci", "hesit"}, {"digitizer", "digit"},
			{"conformabli", "conform"}, {"radicalli", "radic"}, {"differentli", "differ"},
			{"vileli", "vile"}, {"analogousli", "analog"}, {"vietnamization", "vietnam"},
			{"predication", "predic"}, {"operator", "oper"}, {"feudalism", "feudal"},
			{"decisiveness", "decis"}, {"hopefulness", "hope"}, {"callousness", "callous"},
			{"formaliti", "formal"}, {"sensitiviti", "sensit"}, {"sensibiliti", "sensibl"},
		}},
		{"porter step 3", [][2]string{
			{"triplicate", "triplic"}, {"formative", "form"}, {"formalize", "formal"},
			{"electriciti", "electr"}, {"electrical", "electr"}, {"hopeful", "hope"}, {"goodness", "good"},
		}},
		{"porter step 4", [][2]string{
			{"revival", "reviv"}, {"allowance", "allow"}, {"inference", "infer"}, {"airliner", "airlin"},
			{"gyroscopic", "gyroscop"}, {"adjustable", "adjust"}, {"defensible", "defens"},
			{"irritant", "irrit"}, {"replacement", "replac"}, {"adjustment", "adjust"},
			{"dependent", "depend"}, {"adoption", "adopt"}, {"homologou", "homolog"},
			{"communism", "commun"}, {"activate", "activ"}, {"angulariti", "angular"},
			{"homologous", "homolog"}, {"effective", "effect"}, {"bowdlerize", "bowdler"},
		}},
		{"porter step 5", [][2]string{
			{"probate", "probat"}, {"rate", "rate"}, {"cease", "ceas"}, {"controll", "control"}, {"roll", "roll"},
		}},
		{"whole words", [][2]string{
			{"generalizations", "gener"}, {"oscillators", "oscil"}, {"running", "run"},
		}},
		{"shorter than 3 bytes passes through", [][2]string{
			{"", ""}, {"a", "a"}, {"s", "s"}, {"is", "is"}, {"as", "as"}, {"ss", "ss"}, {"by", "by"},
		}},
		{"three-byte words", [][2]string{{"ies", "ie"}, {"sss", "sss"}, {"aed", "a"}, {"yed", "yed"}}},
		{"single-letter stems", [][2]string{{"oing", "o"}, {"aed", "a"}}},
		{"y is a vowel in (*v*) anywhere but first", [][2]string{
			{"ying", "ying"}, {"lying", "ly"}, {"dying", "dy"}, {"eyed", "ei"}, {"syzygy", "syzygi"}, {"yyyy", "yyyi"},
		}},
		{"y after a vowel is a consonant for m", [][2]string{{"buyer", "buyer"}, {"spy", "spy"}}},
		{"first matching suffix blocks shorter ones", [][2]string{
			{"agreement", "agreement"}, {"cement", "cement"}, {"ement", "ement"},
		}},
		{"digits are consonants", [][2]string{
			{"int64", "int64"}, {"utf8", "utf8"}, {"3rd", "3rd"}, {"x86", "x86"},
			{"ing123ing", "ing123"}, {"hoping123", "hoping123"},
		}},
		{"non-ASCII bytes are consonants", [][2]string{
			{"naïve", "naïv"}, {"études", "étude"}, {"σίσυφοσ", "σίσυφοσ"}, {"日本語", "日本語"},
		}},
		{"length limits", [][2]string{
			{strings.Repeat("a", 61) + "ing", strings.Repeat("a", 61)},         // 64 bytes: stemmed
			{strings.Repeat("a", 62) + "ing", strings.Repeat("a", 62) + "ing"}, // 65 bytes: not
			{strings.Repeat("é", 31) + "es", strings.Repeat("é", 31) + "e"},    // 64 bytes
			{strings.Repeat("é", 31) + "ing", strings.Repeat("é", 31) + "ing"}, // 65 bytes
		}},
	}
	for _, tt := range tests {
		t.Run(tt.group, func(t *testing.T) {
			for _, p := range tt.pairs {
				if got := Stem(p[0]); got != p[1] {
					t.Errorf("Stem(%q) = %q, want %q", p[0], got, p[1])
				}
			}
		})
	}
}

// TestStemLengthCutoffs walks the limits byte by byte with a word the stemmer
// would always shorten.
func TestStemLengthCutoffs(t *testing.T) {
	for n := 0; n <= 70; n++ {
		w := strings.Repeat("s", n)
		if n >= 2 {
			w = strings.Repeat("a", n-2) + "ts" // step 1a drops the s
		}
		got := Stem(w)
		stemmed := got != w
		if want := n >= 3 && n <= 64; stemmed != want {
			t.Errorf("len %d: Stem(%q) = %q; stemmed %v, want %v", n, w, got, stemmed, want)
		}
	}
}

// FuzzStem checks that arbitrary bytes never crash the port (SQLite's C reads
// one byte before its buffer on some short stems; the Go port must not index
// out of range there) and that the length cut-offs hold.
func FuzzStem(f *testing.F) {
	for _, s := range []string{"aed", "oing", "yyyy", "eed", "ing", "ed", "ies", "sses", "ation", "\xff\xfeing", "yed"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Stem(s)
		if (len(s) < 3 || len(s) > 64) && got != s {
			t.Fatalf("Stem(%q) = %q, want it unchanged", s, got)
		}
		if len(got) > len(s)+1 || (len(s) >= 3 && got == "") {
			t.Fatalf("Stem(%q) = %q", s, got)
		}
	})
}

// internal/search skips stemming tokens whose first byte no query stem
// starts with; that is sound only if stemming keeps the first byte. Check it
// on every distinct word of the Go spec and on words built to reach each
// porter rule with the shortest possible stem.
func TestStemKeepsFirstByte(t *testing.T) {
	src, err := fixtures.GoSpec.ReadFile(fixtures.GoSpecPath)
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	for _, tok := range Tokenize(string(src)) {
		words[tok.Folded] = true
	}
	suffixes := []string{"s", "es", "ies", "ed", "ing", "eed", "y", "ational", "ization", "ement", "ness", "ful", "ive", "ize", "e", "ll"}
	for _, first := range "abcdefghijklmnopqrstuvwxyz" {
		for _, mid := range []string{"", "a", "y", "ay", "ey", "b", "at", "bl", "iz"} {
			for _, suf := range suffixes {
				words[string(first)+mid+suf] = true
			}
		}
	}
	if len(words) < 3000 {
		t.Fatalf("only %d words", len(words))
	}
	for w := range words {
		if s := Stem(w); s == "" || s[0] != w[0] {
			t.Errorf("Stem(%q) = %q changes the first byte", w, s)
		}
	}
}
