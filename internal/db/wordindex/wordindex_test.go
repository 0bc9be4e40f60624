package wordindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBuilderPostingsAndLayout(t *testing.T) {
	b := NewBuilder()
	var folded []string
	b.Add([Columns]string{"Method sets", "", "A type has a method set; types.", "method"}, func(f string) { folded = append(folded, f) })
	b.Add([Columns]string{"Café", "Types", "", ""}, nil)
	if want := []string{"method", "sets", "a", "type", "has", "a", "method", "set", "types", "method"}; !slices.Equal(folded, want) {
		t.Errorf("folded tokens = %q, want %q", folded, want)
	}
	if b.Sections() != 2 || b.Tokens() != 12 {
		t.Errorf("sections %d, tokens %d; want 2 and 12", b.Sections(), b.Tokens())
	}
	terms := map[string]Term{}
	for _, term := range b.Terms() {
		terms[term.Text] = term
	}
	for _, tc := range []struct {
		term string
		df   int
	}{
		{"method", 1}, // title, body and anchors of section 0
		{"set", 1},    // "sets" and "set" share the stem
		{"type", 2},   // "type", "types" in section 0, "Types" in the path of section 1
		{"cafe", 1},   // diacritics folded away
	} {
		if got := terms[tc.term]; got.DF != tc.df {
			t.Errorf("term %q: df %d, want %d", tc.term, got.DF, tc.df)
		}
	}
	layout, err := b.Layout([]int64{7, 9})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := DecodeLayout(layout)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(snap.IDs, []int64{7, 9}) || !slices.Equal(snap.Lengths, []uint32{10, 2}) {
		t.Errorf("layout = %v, %v; want ids 7, 9 and lengths 10, 2", snap.IDs, snap.Lengths)
	}
	for _, ids := range [][]int64{{7}, {9, 7}, {0, 1}} {
		if _, err := b.Layout(ids); err == nil {
			t.Errorf("Layout(%v) accepted ids that are not one increasing id per section", ids)
		}
	}
}

// TestRankCountsEveryColumn checks the frequency Rank takes: each
// occurrence adds its column's weight, so a word twice in the title of a
// short section outranks it once in a long body.
func TestRankCountsEveryColumn(t *testing.T) {
	b := NewBuilder()
	b.Add([Columns]string{"slice slice", "", "", ""}, nil)
	b.Add([Columns]string{"", "", "slice and much more text about other things", ""}, nil)
	b.Add([Columns]string{"nothing", "", "here", ""}, nil)
	snap, err := DecodeLayout(must(b.Layout([]int64{1, 2, 3})))
	if err != nil {
		t.Fatal(err)
	}
	var list []byte
	for _, term := range b.Terms() {
		if term.Text == "slice" {
			list = term.Postings
		}
	}
	top := NewTop(10)
	q := Query{IDF: []float64{IDF(3, 2)}, Weights: [Columns]float64{10, 4, 1, 6}, AvgLen: 12.0 / 3}
	var sc Scorer
	if err := sc.Rank(snap, q, [][]byte{list}, top); err != nil {
		t.Fatal(err)
	}
	hits := top.Hits()
	if len(hits) != 2 || hits[0].ID != 1 || hits[1].ID != 2 || !(hits[0].Score > hits[1].Score) {
		t.Fatalf("hits = %+v; want section 1 above section 2, section 3 absent", hits)
	}
	// The scorer's buffers are clean for the next query.
	top = NewTop(10)
	if err := sc.Rank(snap, q, [][]byte{nil}, top); err != nil || len(top.Hits()) != 0 {
		t.Fatalf("an empty list ranked %+v, %v", top.Hits(), err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestRankRejectsCorruptLists feeds Rank bytes no Builder wrote: it
// answers errCorrupt, never a panic or a section that does not exist.
func TestRankRejectsCorruptLists(t *testing.T) {
	snap := &Snapshot{IDs: []int64{1, 2}, Lengths: []uint32{3, 4}}
	q := Query{IDF: []float64{1}, Weights: [Columns]float64{1, 1, 1, 1}, AvgLen: 3.5}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"ordinal past the end", []byte{5<<Columns | 1, 1}},
		{"count missing", []byte{1<<Columns | 1}},
		{"varint cut", []byte{0xff}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sc Scorer
			if err := sc.Rank(snap, q, [][]byte{tc.data}, NewTop(5)); err != errCorrupt {
				t.Errorf("Rank = %v, want errCorrupt", err)
			}
		})
	}
	if _, err := DecodeLayout([]byte{0x80}); err != errCorrupt {
		t.Errorf("DecodeLayout of a cut varint = %v, want errCorrupt", err)
	}
}

// TestTopKeepsTheBest compares Top with sorting everything.
func TestTopKeepsTheBest(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{0, 1, 3, 50} {
		var all []Hit
		top := NewTop(k)
		for i := range 500 {
			h := Hit{ID: int64(i), Score: float64(r.IntN(40))} // many equal scores
			all = append(all, h)
			top.Push(h)
		}
		slices.SortFunc(all, func(a, b Hit) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		if got, want := top.Hits(), all[:k]; !slices.Equal(got, want) {
			t.Errorf("k=%d: got %v, want %v", k, got, want)
		}
	}
}

// BenchmarkRank ranks two common words over 50,000 sections, the shape of
// BenchmarkScaleSearch/common, and reports the cost per posting.
func BenchmarkRank(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	bld := NewBuilder()
	words := []string{"type", "value", "other", "text", "more"}
	ids := make([]int64, 50000)
	for i := range ids {
		ids[i] = int64(i + 1)
		var body []byte
		for range 20 + r.IntN(200) {
			body = append(body, words[r.IntN(len(words))]...)
			body = append(body, ' ')
		}
		title := ""
		if r.IntN(10) == 0 {
			title = "type"
		}
		bld.Add([Columns]string{title, "", string(body), ""}, nil)
	}
	snap := must(DecodeLayout(must(bld.Layout(ids))))
	var lists [][]byte
	postings := 0
	for _, t := range bld.Terms() {
		if t.Text == "type" || t.Text == "valu" {
			lists = append(lists, t.Postings)
			postings += t.DF
		}
	}
	q := Query{IDF: []float64{1e-6, 1e-6}, Weights: [Columns]float64{10, 4, 1, 6}, AvgLen: float64(bld.Tokens()) / 50000}
	var sc Scorer
	for b.Loop() {
		if err := sc.Rank(snap, q, lists, NewTop(50)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(postings), "ns/posting")
}
