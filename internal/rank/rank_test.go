package rank

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/tokenize"
)

func parse(t *testing.T, q string) ftsquery.Query {
	t.Helper()
	pq, err := ftsquery.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	return pq
}

func words(ws []Term) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Text)
	}
	return out
}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		q                     string
		content, intent, code []string
		shapes                []string
	}{
		{q: "how do I close a channel?", content: []string{"close", "channel"}, intent: []string{"how", "do", "i", "a"}},
		{q: "what is it", content: []string{"what", "is", "it"}}, // nothing but intent words: search them
		{q: "someone else's package", content: []string{"someone", "else", "package"}, intent: []string{"s"}},
		{q: "s[i:j:k]", code: []string{"s[i:j:k]"}, shapes: []string{"x[x:x:x]"}}, // one-letter names are placeholders
		{q: "*bytes.Buffer", content: []string{"bytes", "buffer"}, code: []string{"*bytes.Buffer"}, shapes: []string{"*x.x"}},
		{q: `"type assertion" x.(T)`, content: []string{"type assertion"}, code: []string{"x.(T)"}, shapes: []string{"x.(x)"}},
		{q: "recover()", content: []string{"recover"}, code: []string{"recover()"}}, // x() says nothing
		{q: "保険金 支払 手順", content: []string{"保険金", "支払"}, intent: []string{"手順"}},
		{q: "先進医療特約の支払手順", content: []string{"先進医療特約の支払"}, intent: []string{"手順"}}, // cut out of a run
		{q: "入院給付金とは", content: []string{"入院給付金"}, intent: []string{"とは"}},
	}
	for _, tt := range tests {
		a := Analyze(parse(t, tt.q))
		if got := words(a.Content); !slices.Equal(got, tt.content) {
			t.Errorf("%q: content %q, want %q", tt.q, got, tt.content)
		}
		if !slices.Equal(a.Intent, tt.intent) {
			t.Errorf("%q: intent %q, want %q", tt.q, a.Intent, tt.intent)
		}
		if !slices.Equal(a.Code, tt.code) {
			t.Errorf("%q: code %q, want %q", tt.q, a.Code, tt.code)
		}
		if !slices.Equal(a.Shapes, tt.shapes) {
			t.Errorf("%q: shapes %q, want %q", tt.q, a.Shapes, tt.shapes)
		}
	}
}

func TestOperatorNames(t *testing.T) {
	tests := []struct {
		term string
		want []string
	}{
		{"-2**2", []string{"negation", "unary", "power", "exponent"}}, // between operands ** raises
		{"**kwargs", []string{"unpacking", "keyword", "arguments"}},   // before one it unpacks
		{"i++", []string{"increment"}},
		{"&^", []string{"bit", "clear"}},
		{`c"hello"`, []string{"c", "string", "literal"}},
		{"r#match", []string{"raw", "identifier"}},
		{"#[derive(Debug)]", []string{"attribute"}},
		{"|x|", []string{"closure", "parameters", "or", "pattern", "closure", "union"}},
		{"x.(T)", nil},
	}
	for _, tt := range tests {
		if got := operatorNames(tt.term); !slices.Equal(got, tt.want) {
			t.Errorf("operatorNames(%q) = %q, want %q", tt.term, got, tt.want)
		}
	}
}

func TestCorrections(t *testing.T) {
	vocab := NewVocabulary(map[string]int{"reader": 9, "loop": 12, "looks": 3, "description": 5, "descriptor": 4, "calling": 8, "receiver": 40, "receive": 12, "method": 90, "goroutine": 30, "map": 80, "max": 5, "switch": 20, "swatch": 1})
	tests := []struct {
		words []string
		want  []Correction
	}{
		{[]string{"reciever"}, []Correction{{"reciever", "receiver"}}},     // a swap is one edit
		{[]string{"methd", "receiver"}, []Correction{{"methd", "method"}}}, // known words stay
		{[]string{"gorutine"}, []Correction{{"gorutine", "goroutine"}}},
		{[]string{"swich"}, []Correction{{"swich", "switch"}}}, // nearest, then most common
		{[]string{"mab"}, nil},   // under four letters: too many neighbours
		{[]string{"zebra"}, nil}, // nothing close
		{[]string{"u00e9"}, nil}, // not a plain word
	}
	for _, tt := range tests {
		var ws []Term
		for _, w := range tt.words {
			ws = append(ws, NewTerm(w, false))
		}
		if got := corrections(ws, vocab); !slices.Equal(got, tt.want) {
			t.Errorf("%v: %v, want %v", tt.words, got, tt.want)
		}
	}
}

func TestOSADistance(t *testing.T) {
	var o osaRows
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"receiver", "reciever", 2, 1},
		{"kitten", "sitting", 3, 3},
		{"abc", "abc", 1, 0},
		{"abc", "", 1, 2}, // past the limit: limit+1
		{"goroutine", "gorutine", 2, 1},
	}
	for _, tt := range tests {
		if got := o.distance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("distance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}

// TestLetterBagBoundsOSA: the letter bound is the count it should be, and
// never more than the distance it lets corrections skip.
func TestLetterBagBoundsOSA(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"receiver", "reciever", 0}, // a swap keeps the letters
		{"method", "methd", 1},
		{"kitten", "sitting", 3}, // k, e missing; s, i, g extra; n shared
		{"abc", "", 3},
		{"abc", "xyz_9\u00e9", 7}, // bytes outside ASCII count as unmatched
	} {
		bag := newLetterBag(tt.a)
		if got := bag.distance(tt.b); got != tt.want {
			t.Errorf("letter bound of %q against %q = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	// Random pairs over a small alphabet, so that many are close.
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, 1+r.IntN(10))
		for i := range b {
			b[i] = "abcde"[r.IntN(5)]
		}
		return string(b)
	}
	var o osaRows
	for range 20000 {
		a, b := word(), word()
		bag := newLetterBag(a)
		if bound, d := bag.distance(b), o.distance(a, b, 20); bound > d {
			t.Fatalf("letter bound of %q against %q is %d, over their distance %d", a, b, bound, d)
		}
	}
}

// memorySource is a MemorySource of secs, or the test fails.
func memorySource(t *testing.T, secs ...MemorySection) *MemorySource {
	t.Helper()
	m, err := NewMemorySource(context.Background(), secs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFuseNoChannelHidesAnother(t *testing.T) {
	lists := []List{
		{Channel: ChannelWords, Postings: []Posting{{ID: 1, Score: 9}, {ID: 2, Score: 3}}},
		{Channel: ChannelLiteral, Postings: []Posting{{ID: 3, Score: 5}}},
		{Channel: ChannelSymbol, Postings: []Posting{{ID: 3, Score: 2}, {ID: 2, Score: 1}}},
	}
	even := Weights{Channels: map[string]float64{ChannelWords: 1, ChannelLiteral: 1, ChannelSymbol: 1}}
	hits := New(even).Fuse(lists, 10)
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	// Section 3 holds the literal code and its shape: two channels beat one.
	if !slices.Equal(ids, []int64{3, 1, 2}) {
		t.Fatalf("List %v, want [3 1 2]", ids)
	}
	if m := hits[0].Matched; !slices.Equal(m, []string{ChannelLiteral, ChannelSymbol}) {
		t.Errorf("first hit matched %v", m)
	}
	if m := hits[2].Matched; !slices.Contains(m, ChannelWords) || !slices.Contains(m, ChannelSymbol) {
		t.Errorf("third hit matched %v", m)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("not List by score: %+v", hits)
		}
	}
}

func TestFuseTiesAreDeterministic(t *testing.T) {
	src := memorySource(t, MemorySection{ID: 7, Title: "Slices", Body: "a slice of it"}, MemorySection{ID: 5, Title: "Slices", Body: "a slice of it"})
	for range 20 {
		res, err := New(DefaultWeights()).Search(context.Background(), src, parse(t, "slice"), 10)
		if err != nil || len(res.Hits) != 2 || res.Hits[0].ID != 5 {
			t.Fatalf("%+v, %v: of equal scores, the earlier section first", res.Hits, err)
		}
	}
}

// TestManualWeightsKeepWords: manuals have no related channel, so a short
// code query with named operators must still run its words.
func TestManualWeightsKeepWords(t *testing.T) {
	src := memorySource(t, MemorySection{ID: 4, Title: "Counters", Body: "the counter counts"}, MemorySection{ID: 9, Title: "Other", Body: "nothing here"})
	res, err := New(ManualWeights()).Search(context.Background(), src, parse(t, "counter++"), 10)
	if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != 4 {
		t.Fatalf("%+v, %v; want the word channel's hit", res.Hits, err)
	}
}

func TestDropCommon(t *testing.T) {
	counts := WordCounts{DF: map[string]int{"type": 90, "package": 40, "method": 20}, Sections: 100}
	tests := []struct{ in, want []string }{
		{[]string{"method", "type", "package"}, []string{"method", "package"}}, // "type" is in 90 of 100 sections
		{[]string{"type"}, []string{"type"}},                                   // nothing else: kept
		{[]string{"type", "zebra"}, []string{"zebra"}},
	}
	for _, tt := range tests {
		var ws []Term
		for _, w := range tt.in {
			ws = append(ws, NewTerm(w, false))
		}
		if got := words(dropCommon(ws, counts)); !slices.Equal(got, tt.want) {
			t.Errorf("dropCommon(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestTermsAreTheQuerysTokens holds up what Analyze relies on to tokenize
// a query once: the tokens of the raw query are its terms' tokens (Parse
// splits at white space and quotes, where the tokenizer splits too), and a
// folded token is one token, folded to itself (wordTerm).
func TestTermsAreTheQuerysTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 1))
	queries := []string{"slice expressions", `"type assertion" x.(T)`, "assert*", `ab"cd"ef*`, "Ⅻ ǅemal İstanbul ﬁnance", "e\u0301te\u0301 \u0301x",
		"保険金の支払手順", "x²  ½ ｆｕｌｌ", `"unbalanced`, "a\tb\u00a0c", "ΣΊΣΥΦΟΣ σίσυφος"}
	for range 5000 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			switch r.IntN(4) {
			case 0:
				b.WriteRune(rune(r.IntN(0x3000)))
			case 1:
				b.WriteRune(rune(r.IntN(0x30000)))
			case 2:
				b.WriteByte(" \"*ab.()_-"[r.IntN(10)])
			default:
				b.WriteRune(rune(0x300 + r.IntN(0x70))) // combining marks
			}
		}
		queries = append(queries, b.String())
	}
	for _, raw := range queries {
		q, err := ftsquery.Parse(raw)
		if err != nil {
			continue
		}
		var want []string
		for _, tok := range tokenize.Tokenize(q.Raw) {
			want = append(want, tok.Folded)
			if again := tokenize.Tokenize(tok.Folded); len(again) != 1 || again[0].Folded != tok.Folded {
				t.Errorf("%q: the folded token %q tokenizes to %v", raw, tok.Folded, again)
			}
		}
		var got []string
		for _, tok := range Analyze(q).Tokens {
			got = append(got, tok.Folded)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: Analyze's tokens %q, the query's %q", raw, got, want)
		}
	}
}
