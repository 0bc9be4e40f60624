package tokenize

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// Expected values follow SQLite's unicode61 tokenizer; the cross-check in
// internal/db confirms them (and much more) against the real thing.

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Token
	}{
		{"empty", "", nil},
		{"only separators", "  ,;\t\n()_-", nil},
		{"english", "Hello, World! It's fine.", []Token{
			{0, 5, "hello"}, {7, 12, "world"}, {14, 16, "it"}, {17, 18, "s"}, {19, 23, "fine"},
		}},
		{"type assertion", "x.(T)", []Token{{0, 1, "x"}, {3, 4, "t"}}},
		{"channel type", "<-chan int", []Token{{2, 6, "chan"}, {7, 10, "int"}}},
		{"empty interface", "interface{}", []Token{{0, 9, "interface"}}},
		{"underscore separates", "snake_case camelCase", []Token{
			{0, 5, "snake"}, {6, 10, "case"}, {11, 20, "camelcase"},
		}},
		{"digits", "go1.22 and 0x1F, 1_000", []Token{
			{0, 3, "go1"}, {4, 6, "22"}, {7, 10, "and"}, {11, 15, "0x1f"}, {17, 18, "1"}, {19, 22, "000"},
		}},
		{"japanese run is one token", "日本語のテキストです。次の文", []Token{
			{0, 30, "日本語のテキストです"}, {33, 42, "次の文"},
		}},
		{"accented latin", "café Ångström", []Token{{0, 5, "cafe"}, {6, 16, "angstrom"}}},
		{"offsets after multibyte separators", "«ÉTÉ» — naïve", []Token{
			{2, 7, "ete"}, {14, 20, "naive"},
		}},
		{"combining diacritic continues a word", "e\u0301te\u0301!", []Token{{0, 7, "ete"}}},
		{"combining diacritic cannot start a word", "\u0301abc", []Token{{2, 5, "abc"}}},
		{"non-diacritic mark separates", "e\u0305x", []Token{{0, 1, "e"}, {3, 4, "x"}}},
		{"greek final sigma folds to sigma", "ΣΊΣΥΦΟΣ", []Token{{0, 14, "σίσυφοσ"}}},
		{"cyrillic keeps breve", "Йод", []Token{{0, 6, "йод"}}},
		{"emoji separates", "go😀lang", []Token{{0, 2, "go"}, {6, 10, "lang"}}},
		{"fullwidth", "ＡＢＣ", []Token{{0, 9, "ａｂｃ"}}},
		{"deseret is lowered", "𐐀𐐨", []Token{{0, 8, "𐐨𐐨"}}},
		{"private use is a token", "\ue000x", []Token{{0, 4, "\ue000x"}}},
		{"numbers of all kinds", "x² Ⅻ ½", []Token{{0, 3, "x²"}, {4, 7, "ⅻ"}, {8, 10, "½"}}},
		{"stray continuation byte read as U+00AA", "ab\xaacd", []Token{{0, 5, "ab\u00aacd"}}},
		{"stray continuation byte read as U+0080", "ab\x80cd", []Token{{0, 2, "ab"}, {3, 5, "cd"}}},
		{"truncated sequence at end", "ab\xc3", []Token{{0, 2, "ab"}}},
		{"NUL separates", "a\x00b", []Token{{0, 1, "a"}, {2, 3, "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Tokenize(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tokenize(%q)\n got  %v\n want %v", tt.text, got, tt.want)
			}
		})
	}
}

// TestTokenizeInvariants checks what callers rely on when mapping terms back
// to text: tokens are in order, do not overlap, sit on rune boundaries of valid
// UTF-8, and fold to their Folded field.
func TestTokenizeInvariants(t *testing.T) {
	texts := []string{
		"The Go Programming Language Specification — Version of Aug 2024",
		`func (p *Point) Scale(factor float64) { p.x *= factor; p.y *= factor }`,
		"Ünïcödé façade crème brûlée Škoda Łódź Straße ǅemal",
		"日本語のテキスト、中文字符。한국어 텍스트",
		"مرحبا بالعالم שלום עולם हिन्दी ไทย",
		"a\u0308\u0301b e\u0301 \u0301 \u0301\u0301x",
		strings.Repeat("x", 100) + " " + strings.Repeat("é", 40),
	}
	for _, text := range texts {
		prev := 0
		for _, tok := range Tokenize(text) {
			if tok.Start < prev || tok.End <= tok.Start || tok.End > len(text) {
				t.Fatalf("%q: bad token span [%d,%d) after %d", text, tok.Start, tok.End, prev)
			}
			raw := text[tok.Start:tok.End]
			if !utf8.ValidString(raw) {
				t.Errorf("%q: token [%d,%d) splits a character", text, tok.Start, tok.End)
			}
			if got := Fold(raw); got != tok.Folded {
				t.Errorf("%q: Fold(%q) = %q, token says %q", text, raw, got, tok.Folded)
			}
			prev = tok.End
		}
	}
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"HeLLo", "hello"},
		{"x.(T)", "x.(t)"},
		{"Ångström", "angstrom"},
		{"ÉCOLE", "ecole"},
		{"Łódź", "łodz"},     // stroke is not a diacritic to SQLite
		{"ǖ", "u"},           // two diacritics: only remove_diacritics=2 strips them
		{"e\u0301", "e"},     // combining acute disappears
		{"Straße", "straße"}, // no expansion to "ss"
		{"ﬁnance", "ﬁnance"}, // ligatures stay
		{"Æsir Øresund", "æsir øresund"},
		{"ΣΊΣΥΦΟΣ", "σίσυφοσ"}, // Greek keeps its accents
		{"ς", "σ"},             // final sigma folds
		{"µ", "μ"},             // micro sign becomes mu
		{"ſ", "s"},             // long s
		{"Йй", "йй"},           // Cyrillic keeps its breve
		{"İ", "i"},
		{"ǅ", "ǆ"}, // titlecase digraph
		{"Ꭰ", "Ꭰ"}, // Cherokee: SQLite's tables predate its case mapping
		{"ＡＢＣ", "ａｂｃ"},
		{"Ⅻ", "ⅻ"},
		{"𐐀", "𐐨"},           // Deseret, the one script folded outside the BMP
		{"\xaa", "\u00aa"},   // stray continuation byte
		{"\xc3(", "\ufffd("}, // truncated sequence
		{"a\x00b", "ab"},     // NUL folds to nothing
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestASCIITokenChars pins the table SQLite derives for ASCII: letters and
// digits only (so '_' and '$' separate words, unlike in Go identifiers).
func TestASCIITokenChars(t *testing.T) {
	for c := 0; c < 128; c++ {
		want := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if asciiTokenChar[c] != want {
			t.Errorf("asciiTokenChar[%q] = %v, want %v", rune(c), asciiTokenChar[c], want)
		}
	}
}

// TestAppendTokensStarting holds the filtered tokenizer to the whole one:
// on every text of TestTokenize and TestTokenizeInvariants, and on random
// texts of the same characters, with random sets of first bytes, it keeps
// exactly the tokens of AppendTokens whose Folded is empty or starts with a
// marked byte, with the same offsets and folded forms.
func TestAppendTokensStarting(t *testing.T) {
	pieces := []string{
		"a", "S", "e", "Q", "z", "0", "9", " ", ".", "_", "(", "\n",
		"é", "É", "Å", "ß", "日本", "語", "\u0301", "\u0308", "Σ", "Й", "😀", "\ue000",
		"\xaa", "\x80", "\xc3", "\x00", "ＡＢ", "x²", "Ⅻ", "ǅ",
	}
	rng := rand.New(rand.NewPCG(7, 15))
	texts := []string{
		"Hello, World! It's fine.", "café Ångström", "«ÉTÉ» — naïve", "e\u0301te\u0301!",
		"\u0301abc", "ΣΊΣΥΦΟΣ", "ab\xaacd", "ab\xc3", "a\x00b", "go😀lang",
		"Ünïcödé façade crème brûlée Škoda Łódź Straße ǅemal",
		"a\u0308\u0301b e\u0301 \u0301 \u0301\u0301x",
	}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for i, text := range texts {
		var first [256]bool
		for range 1 + rng.IntN(6) {
			marks := "aseqz09\xc3\xce\xe6\xd0\xef"
			first[marks[rng.IntN(len(marks))]] = true
		}
		if i%5 == 0 {
			first[rng.IntN(256)] = true
		}
		var want []Token
		for _, tok := range AppendTokens(nil, text) {
			if tok.Folded == "" || first[tok.Folded[0]] {
				want = append(want, tok)
			}
		}
		if got := AppendTokensStarting(nil, text, &first); !reflect.DeepEqual(got, want) {
			t.Fatalf("AppendTokensStarting(%q)\n got  %v\n want %v", text, got, want)
		}
	}
}
