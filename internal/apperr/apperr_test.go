package apperr

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ascii", `notes/a "b".md`, `"notes/a \"b\".md"`},
		{"japanese stays readable", "約款/がん保険.md", `"約款/がん保険.md"`},
		{"decomposed kana keeps its mark", "か\u3099", `"か` + "\u3099" + `"`},
		{"look-alike slash is escaped", "notes\u2215..\u2215x", `"notes\u2215..\u2215x"`},
		{"fullwidth slash is escaped", "a\uff0fb", `"a\uff0fb"`},
		{"bidi override is escaped", "a\u202etxt.md", `"a\u202etxt.md"`},
		{"control characters", "a\x00\nb", `"a\x00\nb"`},
		{"invalid UTF-8", "a\xffb", `"a\xffb"`},
		{"no-break space", "a\u00a0b", `"a\u00a0b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quote(tt.in); got != tt.want {
				t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestQuoteCutsLongNamesAtACharacter(t *testing.T) {
	long := strings.Repeat("あ", 100) // 300 bytes
	got := Quote(long)
	if !strings.HasSuffix(got, "… (300 bytes)") {
		t.Fatalf("no length suffix: %s", got)
	}
	if want := `"` + strings.Repeat("あ", 40) + `"`; !strings.HasPrefix(got, want) || strings.Contains(got, `\x`) {
		t.Errorf("cut mid-character or at the wrong place: %s", got)
	}
}

func TestJSONKind(t *testing.T) {
	tests := []struct {
		json, want string
	}{
		{`null`, "null"}, {`{"a":1}`, "an object"}, {`[1]`, "an array"}, {`"x"`, "a string"},
		{`true`, "a boolean"}, {`1.5`, "a number"},
	}
	for _, tt := range tests {
		var plain, numbered any
		if err := json.Unmarshal([]byte(tt.json), &plain); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(tt.json))
		dec.UseNumber()
		if err := dec.Decode(&numbered); err != nil {
			t.Fatal(err)
		}
		if got := JSONKind(plain); got != tt.want {
			t.Errorf("JSONKind(%s) = %q, want %q", tt.json, got, tt.want)
		}
		if got := JSONKind(numbered); got != tt.want {
			t.Errorf("JSONKind(%s, UseNumber) = %q, want %q", tt.json, got, tt.want)
		}
	}
}
