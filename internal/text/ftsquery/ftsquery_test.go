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
		in       string
		all, any string
	}{
		{in: "slice expressions", all: `"slice" AND "expressions"`, any: `"slice" OR "expressions"`},
		{in: "what is a goroutine?", all: `"goroutine?"`},
		{in: "the", all: `"the"`},
		{in: `x.(T)`, all: `"x.(T)"`, any: `"x" OR "T"`},
		{in: `say "hi"`, all: `"say" AND "hi"`, any: `"say" OR "hi"`},
		// A quote inside a word starts a phrase; "a" is a stop word next to "b".
		{in: `a"b`, all: `"b"`},
		// Empty phrases vanish; the word between them stays.
		{in: `he said ""quoted""`, all: `"he" AND "said" AND "quoted"`, any: `"he" OR "said" OR "quoted"`},
		{in: "...", all: ""},
		{in: "NOT", all: `"NOT"`},
		{in: `"type assertion"`, all: `"type assertion"`, any: `"type" OR "assertion"`},
		{in: "assert*", all: `"assert"*`},
		{in: `quote"inside`, all: `"quote" AND "inside"`, any: `"quote" OR "inside"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := q.AllTerms().String(); got != tt.all {
				t.Errorf("AllTerms = %s, want %s", got, tt.all)
			}
			if got := q.AnyTerm().String(); got != tt.any {
				t.Errorf("AnyTerm = %s, want %s", got, tt.any)
			}
		})
	}
}

func TestRankingExpressions(t *testing.T) {
	tests := []struct {
		name string
		got  Expr
		want string
	}{
		{"words", AnyWord([]Word{{Text: "slice"}, {Text: "expressions"}, {Text: "slice"}}), `"slice" OR "expressions"`},
		{"prefix and phrase", AnyWord([]Word{{Text: "assert", Prefix: true}, {Text: "type assertion"}}), `"assert"* OR "type assertion"`},
		{"no words", AnyWord([]Word{{Text: "..."}, {Text: "<-"}}), ""},
		{"texts", AnyText([]string{"x.(T)", "::", "<-chan", "x.(T)"}), `"x.(T)" OR "<-chan"`}, // "::" is too short
	}
	for _, tt := range tests {
		if tt.got.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.name, tt.got, tt.want)
		}
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
		for _, e := range []Expr{q.AllTerms(), q.AnyTerm(), AnyWord([]Word{{Text: in}}), AnyText([]string{in})} {
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
