package queryplan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/text/normalize"
)

const sample = `{
  "description": "ops and insurance synonyms",
  "groups": [
    ["failover", "switchover", "promote the standby"],
    ["解約", "契約の解除", "中途解約"],
    ["中途解約", "途中解約"],
    ["log", "journal"],
    ["サーバー", "サーバ機"],
    ["引越し", "転居"]
  ]
}`

func mustParse(tb testing.TB, s string) *Dictionary {
	tb.Helper()
	d, err := ParseDictionary([]byte(s), "synonyms.json")
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func TestExpand(t *testing.T) {
	d := mustParse(t, sample)
	tests := []struct {
		term string
		want []string
	}{
		// the term is a member
		{"failover", []string{"switchover", "promote the standby"}},
		{"Fail-Over", []string{"switchover", "promote the standby"}}, // Loose comparison
		{"SWITCHOVER", []string{"failover", "promote the standby"}},
		// a member of two groups; 解約 inside it is not replaced, the whole matched
		{"中途解約", []string{"解約", "契約の解除", "途中解約"}},
		{"契約の解除", []string{"解約", "中途解約"}},
		{"契約・の・解除", []string{"解約", "中途解約"}},
		// the term contains a member
		{"解約手続き", []string{"契約の解除手続き", "中途解約手続き"}},
		// other okurigana of a member: 引っ越す for 引越し
		{"引っ越す", []string{"引越し", "転居"}},
		// 中途解約 goes first; 解約 inside it is not replaced again
		{"中途解約の手続き", []string{"解約の手続き", "契約の解除の手続き", "途中解約の手続き"}},
		{"failover cluster", []string{"switchover cluster", "promote the standby cluster"}},
		{"log rotation", []string{"journal rotation"}},
		{"catalog", nil}, // not at a word boundary
		{"サーバー移行", []string{"サーバ機移行"}},
		{"nothing here", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := d.Expand(tt.term); !slices.Equal(got, tt.want) {
			t.Errorf("Expand(%q) = %q, want %q", tt.term, got, tt.want)
		}
	}
	if d.Len() != 6 {
		t.Errorf("Len() = %d, want 6", d.Len())
	}
}

func TestExpandNilAndEmpty(t *testing.T) {
	var nilDict *Dictionary
	for _, d := range []*Dictionary{nilDict, {}, mustParse(t, `{"groups": []}`)} {
		if got := d.Expand("failover"); got != nil {
			t.Errorf("Expand on an empty dictionary = %q", got)
		}
		if d.Len() != 0 {
			t.Errorf("Len() = %d", d.Len())
		}
	}
}

func TestExpandBound(t *testing.T) {
	group := []string{"x0"}
	for i := 1; i < 40; i++ {
		group = append(group, fmt.Sprintf("x%d", i))
	}
	b, _ := json.Marshal(map[string]any{"groups": [][]string{group}})
	d := mustParse(t, string(b))
	if got := d.Expand("x0"); len(got) != MaxExpansions {
		t.Errorf("Expand gave %d, want %d", len(got), MaxExpansions)
	}
	if got := d.Expand("x0 y"); len(got) != MaxExpansions {
		t.Errorf("substring Expand gave %d, want %d", len(got), MaxExpansions)
	}
	// A long term is read only up to MaxTermRunes, like Analyze's terms.
	long := "x1 " + strings.Repeat("x2 ", 10000)
	if got := d.Expand(long); len(got) != MaxExpansions || utf8.RuneCountInString(got[0]) > MaxTermRunes {
		t.Errorf("Expand of a long term gave %d, first %q", len(got), got[0])
	}
}

func TestParseDictionaryErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // substrings of the message
	}{
		{"syntax", "{\n  \"groups\": [[\"a\", \"b\"],]\n}", []string{"synonyms.json", "line 2, column 25"}},
		{"empty file", "", []string{"synonyms.json", "empty"}},
		{"unknown field", `{"group": [["a", "b"]]}`, []string{"synonyms.json", `unknown field "group"`}},
		{"top level array", `[["a", "b"]]`, []string{"synonyms.json", "line 1, column 1", "want an object"}},
		{"term not a string", "{\"groups\": [[\"a\", 1]]}", []string{"synonyms.json", "line 1", "want a string, got JSON number"}},
		{"trailing data", `{"groups": []} {}`, []string{"synonyms.json", "more data"}},
		{"one term", `{"groups": [["a", "b"], ["lonely"]]}`, []string{"synonyms.json", "groups[1] has 1 term(s)"}},
		{"null group", `{"groups": [null]}`, []string{"groups[0] has 0 term(s)"}},
		{"empty term", `{"groups": [["a", "  "]]}`, []string{"synonyms.json", "groups[0][1] is empty"}},
		{"punctuation term", `{"groups": [["a", "---"]]}`, []string{"groups[0][1] is empty or only punctuation"}},
		{"long term", `{"groups": [["a", "` + strings.Repeat("長", 65) + `"]]}`, []string{"groups[0][1] is 65 characters long; the limit is 64"}},
		{"too many groups", groupsJSON(MaxGroups + 1), []string{"5001 groups; the limit is 5000"}},
		{"too large", `{"description": "` + strings.Repeat("x", MaxDictionaryBytes) + `"}`, []string{"synonyms.json", "over 1048576 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDictionary([]byte(tt.in), "synonyms.json")
			if d != nil || apperr.CodeOf(err) != apperr.InvalidArgument {
				t.Fatalf("got %v, %v; want invalid_argument", d, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), `hint:`) {
				t.Errorf("error %q has no hint", err)
			}
		})
	}
}

func groupsJSON(n int) string {
	groups := make([][]string, n)
	for i := range groups {
		groups[i] = []string{fmt.Sprintf("term%d", i), fmt.Sprintf("同義語%d", i)}
	}
	b, _ := json.Marshal(map[string]any{"groups": groups})
	return string(b)
}

func TestParseDictionaryLimits(t *testing.T) {
	d := mustParse(t, groupsJSON(MaxGroups))
	if d.Len() != MaxGroups {
		t.Fatalf("Len() = %d", d.Len())
	}
	if got := d.Expand("term4999"); !slices.Equal(got, []string{"同義語4999"}) {
		t.Errorf("Expand(term4999) = %q", got)
	}
	if got := d.Expand("同義語12の件"); !slices.Equal(got, []string{"term12の件"}) {
		t.Errorf("Expand(同義語12の件) = %q", got)
	}
	long := `{"groups": [["a", "` + strings.Repeat("長", MaxTermRunes) + `"]]}`
	if _, err := ParseDictionary([]byte(long), "x"); err != nil {
		t.Errorf("a %d-rune term is refused: %v", MaxTermRunes, err)
	}
}

func TestLoadDictionary(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name     string
		path     string
		wantLen  int
		wantCode apperr.Code // "" for success
	}{
		{"no path", "", 0, ""},
		{"missing file", filepath.Join(dir, "none.json"), 0, ""},
		{"valid file", write("ok.json", sample), 6, ""},
		{"bad file names itself", write("bad.json", `{"groups": [["a"]]}`), 0, apperr.InvalidArgument},
		{"too large", write("big.json", strings.Repeat(" ", MaxDictionaryBytes+10)), 0, apperr.InvalidArgument},
		{"a folder", dir, 0, apperr.Unavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := LoadDictionary(tt.path)
			if tt.wantCode != "" {
				if apperr.CodeOf(err) != tt.wantCode || !strings.Contains(err.Error(), tt.path) {
					t.Fatalf("err = %v, want %s naming %s", err, tt.wantCode, tt.path)
				}
				return
			}
			if err != nil || d == nil || d.Len() != tt.wantLen {
				t.Fatalf("got %v, %v; want %d groups", d, err, tt.wantLen)
			}
		})
	}
}

func TestExpandConcurrent(t *testing.T) {
	d := mustParse(t, sample)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if len(d.Expand("解約手続き")) != 2 {
					t.Error("concurrent Expand changed its answer")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestLooseIndexMatchesTextnorm(t *testing.T) {
	for _, s := range []string{"fail-over cluster", "契約・の・解除", "（注意）事項", "a  b", "ﾃﾞｰﾀ"} {
		n := normalForTest(s)
		loose, start, end := looseIndex(n)
		if want := looseForTest(s); loose != want {
			t.Errorf("looseIndex(%q) = %q, normalize.Loose gives %q", s, loose, want)
		}
		// The whole loose string maps back to the span from its first to its last rune.
		if loose != "" && (start[0] > end[len(loose)] || end[len(loose)] > len(n)) {
			t.Errorf("looseIndex(%q): span %d..%d", s, start[0], end[len(loose)])
		}
	}
}

func normalForTest(s string) string { return normalize.Normal(s) }
func looseForTest(s string) string  { return normalize.Loose(s) }
