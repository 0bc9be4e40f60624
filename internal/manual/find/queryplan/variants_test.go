package queryplan

import (
	"slices"
	"testing"
	"unicode/utf8"
)

func TestVariants(t *testing.T) {
	tests := []struct {
		term string
		want []string
	}{
		// Arabic ↔ kanji numerals in Japanese text
		{"30日", []string{"三十日"}},
		{"三十日", []string{"30日"}},
		{"15日以内", []string{"十五日以内"}},
		{"十五日以内", []string{"15日以内"}},
		{"第3条", []string{"第三条"}},
		{"第三条", []string{"第3条"}},
		{"2年", []string{"二年"}},
		{"２年", []string{"二年"}}, // full width is folded first
		{"百二十", []string{"120"}},
		{"120", []string{"百二十"}},
		{"0日", []string{"〇日", "零日"}},
		{"〇日", []string{"0日"}},
		{"零日", []string{"0日"}},
		{"二〇二四年", []string{"2024年"}},
		{"2024年4月1日", []string{"二千二十四年四月一日"}},
		{"一千万円", []string{"1000万円"}},
		// okurigana: the kanji skeleton is in every spelling of the word
		{"引っ越す", []string{"引越"}},
		{"払い込み", []string{"払込"}},
		{"支払われない", []string{"支払"}},
		{"出ない", nil},    // one kanji left: too little to search
		{"保険金の請求", nil}, // の is a particle: two words, not one
		// numeral kanji that spell words, and numbers that are not counts
		{"一般", nil},
		{"一覧", nil},
		{"千葉", nil},
		{"10:30から", nil},
		{"1.5倍", nil},
		{"10000円", nil},
		{"007号", nil},
		// katakana long vowel
		{"サーバー", []string{"サーバ"}},
		{"サーバ", []string{"サーバー"}},
		{"メモリー", []string{"メモリ"}},
		{"メモリ", []string{"メモリー"}},
		{"エラー", nil},
		{"ルー", nil},
		{"システム", nil},
		{"サーバーのメモリ", []string{"サーバのメモリ", "サーバーのメモリー"}},
		// English compounds and number words
		{"fail over", []string{"failover"}},
		{"failover", []string{"fail over"}},
		{"fail-over", []string{"fail over", "failover"}},
		{"Back Up", []string{"backup"}},
		{"cover", nil},
		{"primary database", nil},
		{"thirty minutes", []string{"30 minutes"}},
		{"30 minutes", []string{"thirty minutes"}},
		{"one to twenty", []string{"1 to 20"}},
		{"5 or thirty", []string{"five or 30"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := Variants(tt.term); !slices.Equal(got, tt.want) {
			t.Errorf("Variants(%q) = %q, want %q", tt.term, got, tt.want)
		}
	}
}

func TestVariantsBounds(t *testing.T) {
	for _, term := range []string{"サーバー fail-over backup 30日 thirty 一日", "fail-over one サーバ 0日"} {
		got := Variants(term)
		if len(got) == 0 || len(got) > MaxVariants {
			t.Errorf("Variants(%q) gave %d", term, len(got))
		}
		if slices.Contains(got, term) {
			t.Errorf("Variants(%q) holds the term", term)
		}
		slices.Sort(got)
		if len(slices.Compact(got)) != len(got) {
			t.Errorf("Variants(%q) has duplicates", term)
		}
	}
}

func TestKanjiNumeralRoundTrip(t *testing.T) {
	tests := []struct {
		v    int
		want string
	}{
		{0, "〇"}, {1, "一"}, {10, "十"}, {11, "十一"}, {20, "二十"}, {100, "百"}, {101, "百一"},
		{120, "百二十"}, {1000, "千"}, {1001, "千一"}, {2024, "二千二十四"}, {9999, "九千九百九十九"},
	}
	for _, tt := range tests {
		k := kanjiNumeral(tt.v, "〇")
		if k != tt.want {
			t.Errorf("kanjiNumeral(%d) = %q, want %q", tt.v, k, tt.want)
		}
		if v, ok := parseKanji([]rune(k)); !ok || v != tt.v {
			t.Errorf("parseKanji(%q) = %d, %v; want %d", k, v, ok, tt.v)
		}
	}
	// Every number survives the trip through Variants both ways.
	for v := 0; v <= 9999; v++ {
		k := kanjiNumeral(v, "〇") + "日"
		back, ok := parseKanji([]rune(kanjiNumeral(v, "〇")))
		if !ok || back != v || kanjiToDigits(k) == k {
			t.Fatalf("%d: %q parses as %d, %v; kanjiToDigits %q", v, k, back, ok, kanjiToDigits(k))
		}
	}
}

func TestParseKanji(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"零", 0, true}, {"〇", 0, true}, {"二〇二四", 2024, true}, {"一〇", 10, true}, {"一千", 1000, true},
		{"三千五", 3005, true}, {"百十", 110, true},
		{"一二", 0, false},  // digit by digit only with a 〇 in it
		{"〇一", 0, false},  // leading zero
		{"二三十", 0, false}, // two digits before a unit
		{"十百", 0, false},  // units must fall
		{"千〇一", 0, false},
		{"二〇二四〇", 0, false}, // over 4 digits
	}
	for _, tt := range tests {
		if got, ok := parseKanji([]rune(tt.in)); ok != tt.ok || ok && got != tt.want {
			t.Errorf("parseKanji(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFragments(t *testing.T) {
	tests := []struct {
		term string
		want []string
	}{
		{"保険金請求", []string{"保険", "険金", "金請", "請求"}},
		{"支払い手続き", []string{"支払", "手続"}},
		{"解約返戻金の支払い", []string{"解約返戻金", "支払", "解約", "約返", "返戻", "戻金"}},
		{"解約", nil},
		{"api連携", []string{"api", "連携"}},
		{"サーバー移行", []string{"サーバー", "移行"}},
		{"ごくまれな場合", []string{"ごくまれな", "場合"}},
		{"fail over the primary databases", []string{"fail", "primary", "databases", "primari", "databas"}},
		{"databases", []string{"databas"}},
		{"fail-over", []string{"fail"}},
		{"Grace Period", []string{"grace", "period"}},
		{"an ox", nil},
		{"", nil},
	}
	for _, tt := range tests {
		got := Fragments(tt.term)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Fragments(%q) = %q, want %q", tt.term, got, tt.want)
		}
		for _, f := range got {
			if utf8.RuneCountInString(f) < 2 {
				t.Errorf("Fragments(%q): %q is too short", tt.term, f)
			}
		}
	}
	if got := Fragments("長期継続契約特約付帯保険金請求手続書類一式確認"); len(got) != MaxFragments {
		t.Errorf("long kanji run gave %d fragments, want the bound %d", len(got), MaxFragments)
	}
}
