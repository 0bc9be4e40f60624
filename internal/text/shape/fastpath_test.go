package shape

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/langspec/langspec/fixtures"
)

// The definitions isWordRune, HasCode and Literals were first written as:
// the store keeps the shapes and literals of every section, so the faster
// forms must give the same, byte for byte, or a store written before would
// answer differently from one written after.
func TestIsWordRuneIsItsDefinition(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune+1; r++ {
		if got, want := isWordRune(r), r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r); got != want {
			t.Fatalf("isWordRune(%U) = %v, by definition %v", r, got, want)
		}
	}
}

func hasCodeByDefinition(w string) bool {
	rs := []rune(w)
	for i, r := range rs {
		if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) {
			continue
		}
		if strings.ContainsRune("'’-", r) && i > 0 && i+1 < len(rs) && unicode.IsLetter(rs[i-1]) && unicode.IsLetter(rs[i+1]) {
			continue
		}
		return true
	}
	return false
}

func literalsByDefinition(text string) string {
	var b strings.Builder
	for _, chunk := range strings.Fields(text) {
		code := strings.TrimRight(chunk, "?!.,;:")
		if code == "" {
			code = chunk
		}
		if hasCodeByDefinition(code) || hasCJK(chunk) {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(chunk)
		}
	}
	return b.String()
}

// goSpec is the Go specification langspec ships with, markup and all.
func goSpec(tb testing.TB) string {
	tb.Helper()
	spec, err := fixtures.GoSpec.ReadFile(fixtures.GoSpecPath)
	if err != nil {
		tb.Fatalf("reading the Go spec: %v", err)
	}
	return string(spec)
}

// fastPathTexts are the Go specification's lines and paragraphs, hard cases
// written out, and random strings over runes each path treats apart.
func fastPathTexts(t *testing.T) []string {
	spec := goSpec(t)
	texts := []string{
		"", "-", "'", "a-", "-a", "a-b", "a'b", "a’b", "a’", "’b", "é-ü", "1-2", "a--b", "_-_",
		"nil.", "...", "x.y.", "?!", "a\xffb", "\xff", "a-\xff", "\xff-a", "漢字です。", "한국어", "ｶﾀｶﾅ",
		"x\u00a0+\u00a0y", "a := 1\nb := 2", "  \n\n", "\u2028x\u2029", "Ǆ-ǅ", "٣-٤",
	}
	texts = append(texts, spec)
	texts = append(texts, strings.Split(spec, "\n")...)
	texts = append(texts, strings.Split(spec, "\n\n")...)
	alphabet := []rune("aZ_09 \t\n\u00a0\u3000'’-.,;:?!()[]{}<>=+*&|^%$#@~`\"\\/éß漢カ한٣\uFFFD\u200b")
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		rs := make([]rune, r.IntN(24))
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(rs)
		if r.IntN(8) == 0 { // a byte that is not UTF-8
			i := r.IntN(len(s) + 1)
			s = s[:i] + "\xc3" + s[i:]
		}
		texts = append(texts, s)
	}
	return texts
}

func TestLiteralsAndHasCodeMatchTheDefinitions(t *testing.T) {
	for _, text := range fastPathTexts(t) {
		if got, want := Literals(text), literalsByDefinition(text); got != want {
			t.Fatalf("Literals(%q) = %q, by definition %q", short(text), short(got), short(want))
		}
		for w := range strings.FieldsSeq(text) {
			if got, want := HasCode(w), hasCodeByDefinition(w); got != want {
				t.Fatalf("HasCode(%q) = %v, by definition %v", w, got, want)
			}
		}
	}
}

// short cuts a text to what a failure message can show.
func short(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// BenchmarkLiterals compares Literals with its definition on the Go
// specification, as the store reads it at ingest.
func BenchmarkLiterals(b *testing.B) {
	spec := goSpec(b)
	for _, c := range []struct {
		name string
		fn   func(string) string
	}{{"now", Literals}, {"definition", literalsByDefinition}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(spec)))
			for b.Loop() {
				c.fn(spec)
			}
		})
	}
}
