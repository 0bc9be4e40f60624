package queryplan

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/text/normalize"
)

func TestParseIntent(t *testing.T) {
	tests := []struct {
		in      string
		want    Intent
		wantErr bool
	}{
		{"", "", false},
		{"  ", "", false},
		{"definition", IntentDefinition, false},
		{"Procedure", IntentProcedure, false},
		{" exceptions ", IntentExceptions, false},
		{"compare", IntentCompare, false},
		{"lookup", IntentLookup, false},
		{"exception", "", true},
		{"定義", "", true},
	}
	for _, tt := range tests {
		got, err := ParseIntent(tt.in)
		if tt.wantErr {
			if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), "allowed: definition, procedure, exceptions, compare, lookup") {
				t.Errorf("ParseIntent(%q) error = %v, want invalid_argument listing the values", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseIntent(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestAnalyzeIntent(t *testing.T) {
	tests := []struct {
		query string
		want  Intent
	}{
		{"What is a recovery point objective?", IntentDefinition},
		{"define RPO", IntentDefinition},
		{"解約返戻金とは", IntentDefinition},
		{"保険金額の定義", IntentDefinition},
		{"免責金額の定義", IntentExceptions}, // 免責 outranks 定義
		{"How do I fail over the primary database?", IntentProcedure},
		{"HOW TO rotate the keys", IntentProcedure},
		{"steps to restore a backup", IntentProcedure},
		{"解約の手順", IntentProcedure},
		{"保険金の請求方法", IntentProcedure},
		{"解約返戻金の支払い手続きについて全部集めて", IntentProcedure},
		{"What is not covered by the warranty?", IntentExceptions},
		{"exceptions to the retention policy", IntentExceptions},
		{"backups are kept unless deleted", IntentExceptions},
		{"対象外となる損害", IntentExceptions},
		{"免責事項を全部", IntentExceptions},
		{"保険金が支払われない場合", IntentExceptions},
		{"ただし書きの条件", IntentExceptions},
		{"difference between RPO and RTO", IntentCompare},
		{"RPO vs. RTO", IntentCompare},
		{"compare gold and silver plans", IntentCompare},
		{"解約と中途解約の違い", IntentCompare},
		{"プランの比較", IntentCompare},
		{"料金の差は", IntentCompare},
		{"collect everything about failover", IntentLookup},
		{"差押えの通知", IntentLookup},           // a bare 差 is not a cue
		{"vsphere settings", IntentLookup}, // word boundaries: not "vs"
		{"how long is the warranty", IntentLookup},
		{`the "exceptions" table`, IntentLookup}, // quoted text is a term, not a cue
		// several cues: exceptions > compare > procedure > definition
		{"what are the exceptions to the steps", IntentExceptions},
		{"how to compare plans", IntentCompare},
		{"what is the procedure", IntentProcedure},
		{"手順の例外と違い", IntentExceptions},
		{"failover の手順", IntentProcedure},
		{"", IntentLookup},
	}
	for _, tt := range tests {
		if got := Analyze(tt.query).Intent; got != tt.want {
			t.Errorf("Analyze(%q).Intent = %q, want %q", tt.query, got, tt.want)
		}
	}
}

func TestAnalyzeTerms(t *testing.T) {
	tests := []struct {
		query string
		want  []string
	}{
		{"How do I fail over the primary database?", []string{"fail over", "primary database", "fail", "primary", "database"}},
		{"解約返戻金の支払い手続きについて全部集めて", []string{"解約返戻金", "支払い手続き", "支払い"}},
		{"解約の手順を教えて", []string{"解約"}},
		{"免責事項", []string{"免責事項"}},
		{"免責について教えて", []string{"免責"}},    // a cue is the term when nothing else is left
		{"免責になるケースを一覧で", []string{"免責"}}, // ケース only asks for cases
		{"時価ってどういう意味？", []string{"時価"}},
		{"What are the exceptions?", []string{"exceptions"}}, // likewise in English
		{"what is it", []string{"what is it"}},               // nothing but stop words: the whole query
		{"???", []string{}},
		{"", []string{}},
		// quotes keep a term whole, stop words and all
		{`"fail over the primary" steps`, []string{"fail over the primary"}},
		{"「解約返戻金の支払い」の例外", []string{"解約返戻金の支払い"}},
		{"『保険金を支払わない場合』", []string{"保険金を支払わない場合"}},
		{"“grace period” and 'late fee'", []string{"grace period", "late fee"}},
		{"don't 'fail over' now", []string{"fail over"}}, // apostrophes inside words are not quotes
		{`"unclosed quote here`, []string{"unclosed quote", "unclosed", "quote"}},
		// compared things are both terms
		{"difference between RPO and RTO", []string{"rpo", "rto"}},
		{"Gold plan vs. silver plan", []string{"gold plan", "silver plan", "gold", "plan", "silver"}},
		{"解約と中途解約の違い", []string{"解約", "中途解約"}},
		{"AとBの比較", []string{"a", "b"}},
		// Japanese segments, okurigana, function words
		{"保険金請求の必要書類を教えて", []string{"保険金請求", "必要書類"}},
		{"解約できない場合", []string{"解約"}},
		{"料金等の支払い", []string{"料金", "支払い"}},
		{"お客様情報の変更", []string{"お客様情報", "変更"}},
		{"等級の変更", []string{"等級", "変更"}},
		// mixed English and Japanese
		{"failover の手順", []string{"failover"}},
		{"API連携の設定方法", []string{"api連携", "設定方法", "api", "連携"}},
		{"Kubernetesクラスタのアップグレード手順", []string{"kubernetesクラスタ", "アップグレード手順", "kubernetes", "クラスタ", "アップグレード"}},
		// particles
		{"How to back up the server", []string{"back up", "server"}},
		{"send it over the network", []string{"send", "network"}},
		// punctuation ends a phrase; full width is folded; duplicates go
		{"primary database, replica; primary database", []string{"primary database", "replica", "primary", "database"}},
		{"ＡＰＩ　ｋｅｙ", []string{"api key", "api", "key"}},
		{"max_connections and v1.2", []string{"max_connections", "v1.2"}},
		// one token of code is a term as written, before its words
		{"--inspect", []string{"--inspect", "inspect"}},
		{"#[repr(C)]", []string{"#[repr(c)]", "repr", "c"}},
		{"fs::read", []string{"fs::read", "fs", "read"}},
		{"Buffer.alloc", []string{"buffer.alloc"}},
		{"fail-over", []string{"fail-over"}},
	}
	for _, tt := range tests {
		got := Analyze(tt.query).Terms
		if got == nil || !slices.Equal(got, tt.want) {
			t.Errorf("Analyze(%q).Terms = %q, want %q", tt.query, got, tt.want)
		}
	}
}

func TestAnalyzeBounds(t *testing.T) {
	long := strings.Repeat("word ", 300) // 1500 runes
	many := "alpha, bravo, charlie, delta, echo, foxtrot, golf, hotel, india, juliet, kilo, lima, mike, november"
	tests := []struct {
		name      string
		query     string
		wantQuery int // runes in Plan.Query
		wantTerms []string
	}{
		// 200 words: phrases of 13 words (64 runes) and one of 5, deduplicated
		{"long query is cut", long, 999, []string{strings.Repeat("word ", 12) + "word", strings.Repeat("word ", 4) + "word", "word"}},
		{"1000 runes of Japanese", strings.Repeat("保険", 600), 1000, []string{strings.Repeat("保険", 32)}},
		{"at most 12 terms", many, utf8.RuneCountInString(many), strings.Fields(strings.ReplaceAll(many, ",", ""))[:12]},
		{"a long quoted term is cut", `"` + strings.Repeat("x", 100) + `"`, 102, []string{strings.Repeat("x", 64)}},
		{"surrounding space is trimmed", "  failover  ", 8, []string{"failover"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Analyze(tt.query)
			if n := utf8.RuneCountInString(p.Query); n != tt.wantQuery {
				t.Errorf("Query has %d runes, want %d", n, tt.wantQuery)
			}
			if !slices.Equal(p.Terms, tt.wantTerms) {
				t.Errorf("Terms = %q, want %q", p.Terms, tt.wantTerms)
			}
			checkPlan(t, p)
		})
	}
}

func TestWordPieces(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"支払い手続き", []string{"支払い", "手続き"}},
		{"解約返戻金", []string{"解約返戻金"}},
		{"api連携", []string{"api", "連携"}},
		{"サーバー移行", []string{"サーバー", "移行"}},
		{"お客様", []string{"お客様"}},
		{"30日以内", []string{"30日以内"}},
		{"第3条", []string{"第3条"}},
	}
	for _, tt := range tests {
		if got := wordPieces(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("wordPieces(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// checkPlan asserts what every plan promises.
func checkPlan(t *testing.T, p Plan) {
	t.Helper()
	if utf8.RuneCountInString(p.Query) > MaxQueryRunes {
		t.Errorf("Query has %d runes", utf8.RuneCountInString(p.Query))
	}
	if p.Intent == "" {
		t.Error("empty intent")
	}
	if p.Terms == nil || len(p.Terms) > MaxTerms {
		t.Errorf("%d terms (nil %v)", len(p.Terms), p.Terms == nil)
	}
	seen := map[string]bool{}
	for _, term := range p.Terms {
		if term == "" || strings.TrimSpace(term) != term || utf8.RuneCountInString(term) > MaxTermRunes || !utf8.ValidString(term) {
			t.Errorf("bad term %q", term)
		}
		if seen[term] {
			t.Errorf("duplicate term %q", term)
		}
		seen[term] = true
	}
	if len(p.Terms) == 0 && strings.IndexFunc(p.Query, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
		t.Errorf("no terms for %q", p.Query)
	}
}

// FuzzAnalyze checks that Analyze never panics and keeps its bounds, and
// so do Variants, Fragments and Expand on every term it finds and on the
// raw input. Run it with:
//
//	go test ./internal/queryplan -run '^$' -fuzz FuzzAnalyze -fuzztime 20s
func FuzzAnalyze(f *testing.F) {
	d := mustParse(f, sample)
	for _, s := range []string{
		"How do I fail over the primary database?", "解約返戻金の支払い手続きについて全部集めて",
		`"quoted" 「引用」 'x'`, "AとBの違い", "over up out", "\xff\xfe", "「", "'", "等", "  ", "ﾃﾞｰﾀ１２３",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		p := Analyze(q)
		checkPlan(t, p)
		for _, term := range append(p.Terms, q) {
			n := normalize.Normal(term)
			for _, c := range []struct {
				name string
				got  []string
				max  int
			}{{"Variants", Variants(term), MaxVariants}, {"Fragments", Fragments(term), MaxFragments}, {"Expand", d.Expand(term), MaxExpansions}} {
				if len(c.got) > c.max || slices.Contains(c.got, n) || slices.Contains(c.got, "") {
					t.Errorf("%s(%q) = %q", c.name, term, c.got)
				}
			}
			for _, fr := range Fragments(term) {
				if utf8.RuneCountInString(fr) < 2 {
					t.Errorf("Fragments(%q) has %q", term, fr)
				}
			}
		}
	})
}
