package ftsquery

import (
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		terms []Term
	}{
		{"words", "slice expressions", []Term{{Text: "slice"}, {Text: "expressions"}}},
		{"phrase", `"type assertion" x`, []Term{{Text: "type assertion", Phrase: true}, {Text: "x"}}},
		{"prefix", "assert*", []Term{{Text: "assert", Prefix: true}}},
		{"phrase prefix", `"type assert"*`, []Term{{Text: "type assert", Phrase: true, Prefix: true}}},
		{"lone star is literal", "*", []Term{{Text: "*"}}},
		{"unterminated quote", `"open phrase`, []Term{{Text: "open phrase", Phrase: true}}},
		{"operators are words", "NOT OR AND NEAR", []Term{{Text: "NOT"}, {Text: "OR"}, {Text: "AND"}, {Text: "NEAR"}}},
		{"control characters removed", "slice\x00types\t", []Term{{Text: "slice"}, {Text: "types"}}},
		{"punctuation kept", "x.(T) <-chan", []Term{{Text: "x.(T)"}, {Text: "<-chan"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if len(q.Terms) != len(tt.terms) {
				t.Fatalf("Parse(%q) = %+v, want %+v", tt.in, q.Terms, tt.terms)
			}
			for i := range tt.terms {
				if q.Terms[i] != tt.terms[i] {
					t.Errorf("term %d = %+v, want %+v", i, q.Terms[i], tt.terms[i])
				}
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name, in, msg string
	}{
		{"empty", "", "empty query"},
		{"blank", " \t\n", "empty query"},
		{"only quotes", `""`, "empty query"},
		{"100 KB", strings.Repeat("slice ", 100<<10/6), "at most 1000"},
		{"too many terms", strings.Repeat("a ", MaxTerms+1), "more than 32 terms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.in)
			if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Parse = %v, want invalid_argument containing %q", err, tt.msg)
			}
		})
	}
}

func TestExpressions(t *testing.T) {
	tests := []struct {
		in                          string
		all, any, substrings, trigr string
		short                       []string
		symbolic                    bool
	}{
		{in: "slice expressions", all: `"slice" AND "expressions"`, any: `"slice" OR "expressions"`,
			substrings: `"slice" AND "expressions"`, trigr: `"sli" OR "lic" OR "ice" OR "exp" OR "xpr" OR "pre" OR "res" OR "ess" OR "ssi" OR "sio" OR "ion" OR "ons"`},
		{in: "what is a goroutine?", all: `"goroutine?"`, substrings: `"what" AND "goroutine?"`,
			trigr: `"gor" OR "oro" OR "rou" OR "out" OR "uti" OR "tin" OR "ine"`},
		{in: "the", all: `"the"`, substrings: `"the"`},
		{in: `x.(T)`, all: `"x.(T)"`, any: `"x" OR "T"`, substrings: `"x.(T)"`, symbolic: true},
		{in: `say "hi"`, all: `"say" AND "hi"`, any: `"say" OR "hi"`, substrings: `"say"`},
		// A quote inside a word starts a phrase; "a" is a stop word next to "b".
		{in: `a"b`, all: `"b"`, short: []string{"a", "b"}},
		// Empty phrases vanish; the word between them stays.
		{in: `he said ""quoted""`, all: `"he" AND "said" AND "quoted"`, any: `"he" OR "said" OR "quoted"`,
			substrings: `"said" AND "quoted"`, trigr: `"sai" OR "aid" OR "quo" OR "uot" OR "ote" OR "ted"`},
		{in: "...", substrings: `"..."`, symbolic: true},
		{in: "&^", short: []string{"&^"}, symbolic: true},
		{in: "NOT", all: `"NOT"`, substrings: `"NOT"`},
		{in: `"type assertion"`, all: `"type assertion"`, any: `"type" OR "assertion"`, substrings: `"type assertion"`,
			trigr: `"typ" OR "ype" OR "ass" OR "sse" OR "ser" OR "ert" OR "rti" OR "tio" OR "ion"`},
		{in: "assert*", all: `"assert"*`, substrings: `"assert"`, trigr: `"ass" OR "sse" OR "ser" OR "ert"`},
		{in: `quote"inside`, all: `"quote" AND "inside"`, any: `"quote" OR "inside"`, substrings: `"quote" AND "inside"`,
			trigr: `"quo" OR "uot" OR "ote" OR "ins" OR "nsi" OR "sid" OR "ide"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			check := func(name string, got Expr, want string) {
				t.Helper()
				if got.String() != want {
					t.Errorf("%s = %s, want %s", name, got, want)
				}
			}
			check("AllTerms", q.AllTerms(), tt.all)
			check("AnyTerm", q.AnyTerm(), tt.any)
			check("Substrings", q.Substrings(), tt.substrings)
			if tt.trigr != "" {
				check("Trigrams", q.Trigrams(), tt.trigr)
			}
			if got := q.ShortNeedles(); strings.Join(got, "|") != strings.Join(tt.short, "|") {
				t.Errorf("ShortNeedles = %q, want %q", got, tt.short)
			}
			if q.Symbolic() != tt.symbolic {
				t.Errorf("Symbolic = %v, want %v", q.Symbolic(), tt.symbolic)
			}
		})
	}
}

// Every piece of user text in an expression is inside an FTS5 string: strip
// the strings and only our operators may remain.
func TestExpressionsQuoteEverything(t *testing.T) {
	hostile := []string{`x.(T)`, `<-chan`, `interface{}`, `go-sdk`, `c++`, `...`, `NOT`, `what is a goroutine?`,
		`title:slice`, `a OR b`, `(x`, `"unbalanced`, `NEAR(a b)`, `^start`, `col:"x"*`, `''; DROP TABLE sections; --`}
	for _, in := range hostile {
		q, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		for _, e := range []Expr{q.AllTerms(), q.AnyTerm(), q.Substrings(), q.Trigrams()} {
			rest := outsideStrings(e.String())
			for _, tok := range strings.Fields(rest) {
				if tok != "AND" && tok != "OR" && tok != "*" {
					t.Errorf("%q: expression %s has %q outside quotes", in, e, tok)
				}
			}
		}
	}
}

// outsideStrings removes FTS5 strings ("..." with "" as an escaped quote).
func outsideStrings(s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"' && in && i+1 < len(s) && s[i+1] == '"':
			i++
		case s[i] == '"':
			in = !in
			b.WriteByte(' ')
		case !in:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
