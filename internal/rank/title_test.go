package rank

import "testing"

func TestTitleKey(t *testing.T) {
	tests := []struct{ a, b string }{
		{"method set", "Method sets"},
		{"Method_sets", "method sets"},
		{"the yield statement", "7.7. The yield statement"},
		{"the-yield-statement", "7.7. The yield statement"},
		{"yield statements", "7.7 The yield statement"},
		{"Type assertions", "type assertion"},
		{"§ 2.1 Lexical analysis", "lexical analysis"},
	}
	for _, tt := range tests {
		if ka, kb := TitleKey(tt.a), TitleKey(tt.b); ka != kb || ka == "" {
			t.Errorf("TitleKey(%q) = %q, TitleKey(%q) = %q; want equal", tt.a, ka, tt.b, kb)
		}
	}
	for _, tt := range []struct{ a, b string }{{"Slice expressions", "Full slice expressions"}, {"Statements", "Expression statements"}} {
		if TitleKey(tt.a) == TitleKey(tt.b) {
			t.Errorf("TitleKey(%q) = TitleKey(%q)", tt.a, tt.b)
		}
	}
	if k := TitleKey("7.7."); k != "" {
		t.Errorf("TitleKey of a number = %q, want empty", k)
	}
}
