package wordindex

import (
	"bytes"
	"encoding/binary"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBuilderPostingsAndLayout(t *testing.T) {
	b := NewBuilder()
	b.Add([Columns]string{"Method sets", "", "A type has a method set; types.", "method"})
	b.Add([Columns]string{"Café", "Types", "", ""})
	// The vocabulary counts folded words, not stems, once a section.
	words := maps.Collect(b.Words)
	if want := map[string]int{"method": 1, "sets": 1, "a": 1, "type": 1, "has": 1, "set": 1, "types": 2, "cafe": 1}; !maps.Equal(words, want) {
		t.Errorf("words = %v, want %v", words, want)
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
	b.Add([Columns]string{"slice slice", "", "", ""})
	b.Add([Columns]string{"", "", "slice and much more text about other things", ""})
	b.Add([Columns]string{"nothing", "", "here", ""})
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
	if err := sc.Rank(snap, q, []List{{Postings: list}}, top); err != nil {
		t.Fatal(err)
	}
	hits := top.Hits()
	if len(hits) != 2 || hits[0].ID != 1 || hits[1].ID != 2 || !(hits[0].Score > hits[1].Score) {
		t.Fatalf("hits = %+v; want section 1 above section 2, section 3 absent", hits)
	}
	// The scorer's buffers are clean for the next query.
	top = NewTop(10)
	if err := sc.Rank(snap, q, []List{{}}, top); err != nil || len(top.Hits()) != 0 {
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
		{"ordinal before the first", []byte{0<<Columns | 1<<bodyColumn, 1}},
		{"body count cut", []byte{1<<Columns | 1<<bodyColumn}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sc Scorer
			if err := sc.Rank(snap, q, []List{{Postings: tc.data}}, NewTop(5)); err != errCorrupt {
				t.Errorf("Rank = %v, want errCorrupt", err)
			}
		})
	}
	if _, err := DecodeLayout([]byte{0x80}); err != errCorrupt {
		t.Errorf("DecodeLayout of a cut varint = %v, want errCorrupt", err)
	}
}

// TestRankMatchesReference holds Rank's fast paths (one-byte postings,
// whole weights, the clearing of its buffers, the skipping of sections
// below top's worst) to a reference that reads every posting the slow way
// and adds each weight once per occurrence, as fts5Bm25Function does: the
// same sections with the same scores to the bit, over weights whole and
// fractional, zero and negative, counts of one byte and more, and
// sections near and far apart.
func TestRankMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const sections = 6000
	words := []string{"alpha", "beta", "gamma", "delta"}
	b := NewBuilder()
	ids := make([]int64, sections)
	for i := range ids {
		ids[i] = int64(2*i + 1)
		var cols [Columns]string
		for c := range cols {
			for range r.IntN(3) {
				w := words[r.IntN(len(words))]
				// A few sections hold a word hundreds of times: counts
				// past one byte.
				n := 1 + r.IntN(3)
				if r.IntN(100) == 0 {
					n = 130 + r.IntN(200)
				}
				for range n {
					cols[c] += w + " "
				}
			}
		}
		// Rare words leave sections far apart in their lists.
		if r.IntN(40) == 0 {
			cols[bodyColumn] += "rare "
		}
		b.Add(cols)
	}
	snap := must(DecodeLayout(must(b.Layout(ids))))
	lists := map[string]List{}
	for _, term := range b.Terms() {
		lists[term.Text] = List{Postings: term.Postings, Skips: term.Skips}
		if skips := must(Skips(term.Postings)); !bytes.Equal(skips, term.Skips) {
			t.Fatalf("Skips(%q) = %x, the builder wrote %x", term.Text, skips, term.Skips)
		}
	}
	if len(lists["alpha"].Skips) == 0 {
		t.Fatal("no skips in a list of most sections; the test would not enter a list part way")
	}
	avgLen := float64(b.Tokens()) / sections
	// One Scorer for every query, so its buffers must come back clean; every
	// other query on two goroutines, however short its lists.
	var sc Scorer
	for i := range 300 {
		sc.parallelFrom = []int{0, 1}[i%2]
		var q Query
		var phrases []List
		for range 1 + r.IntN(4) {
			w := append(words, "rare")[r.IntN(len(words)+1)]
			l := lists[w]
			if r.IntN(3) == 0 {
				l.Skips = nil // stored before skips were: read from the start
			}
			phrases = append(phrases, l)
			q.IDF = append(q.IDF, 0.1+r.Float64())
		}
		q.AvgLen = avgLen
		for c := range q.Weights {
			switch i % 4 {
			case 0:
				q.Weights[c] = float64(1 + r.IntN(10))
			case 1:
				q.Weights[c] = r.Float64() * 8
			case 2:
				q.Weights[c] = float64(r.IntN(5) - 2) // zero and negative
			default:
				q.Weights[c] = []float64{10, 4, 1, 6}[c]
			}
		}
		k := []int{1, 10, 50, sections}[r.IntN(4)]
		top := NewTop(k)
		if err := sc.Rank(snap, q, phrases, top); err != nil {
			t.Fatal(err)
		}
		want := NewTop(k)
		for _, h := range referenceRank(t, snap, q, phrases) {
			want.Push(h)
		}
		got, exp := top.Hits(), want.Hits()
		if !slices.Equal(got, exp) {
			t.Fatalf("query %d (weights %v, k %d): Rank gave %d hits, the reference %d; first difference at %d",
				i, q.Weights, k, len(got), len(exp), firstDiff(got, exp))
		}
	}
}

// referenceRank scores every section holding a phrase the plain way.
func referenceRank(t *testing.T, snap *Snapshot, q Query, lists []List) []Hit {
	t.Helper()
	scores := map[int]float64{}
	for i, l := range lists {
		data := l.Postings
		ord := -1
		for len(data) > 0 {
			head, n := binary.Uvarint(data)
			data = data[n:]
			ord += int(head >> Columns)
			freq := 0.0
			for c := range Columns {
				if head&(1<<c) == 0 {
					continue
				}
				count, n := binary.Uvarint(data)
				data = data[n:]
				for range count {
					freq += q.Weights[c]
				}
			}
			scores[ord] += TermScore(q.IDF[i], freq, LengthNorm(float64(snap.Lengths[ord]), q.AvgLen))
		}
	}
	var out []Hit
	for ord, s := range scores {
		out = append(out, Hit{ID: snap.IDs[ord], Score: s})
	}
	return out
}

func firstDiff(a, b []Hit) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
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
		bld.Add([Columns]string{title, "", string(body), ""})
	}
	snap := must(DecodeLayout(must(bld.Layout(ids))))
	var lists []List
	postings := 0
	for _, t := range bld.Terms() {
		if t.Text == "type" || t.Text == "valu" {
			lists = append(lists, List{Postings: t.Postings, Skips: t.Skips})
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

// TestInColumns: the sections holding a term in some columns are the
// ones each posting names, for every mask of columns.
func TestInColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 2))
	b := NewBuilder()
	const sections = 3000
	want := map[uint8][]int{} // columns of "word" in a section -> its ordinals
	for o := range sections {
		var cols [Columns]string
		var mask uint8
		for c := range Columns {
			if r.IntN(4) == 0 {
				cols[c] = "word"
				mask |= 1 << c
			}
		}
		b.Add(cols)
		want[mask] = append(want[mask], o)
	}
	var l List
	for _, term := range b.Terms() {
		if term.Text == "word" {
			l = List{Postings: term.Postings, Skips: term.Skips, DF: term.DF}
		}
	}
	for mask := uint8(1); mask < 1<<Columns; mask++ {
		var ords []int
		for held, os := range want {
			if held&mask != 0 {
				ords = append(ords, os...)
			}
		}
		slices.Sort(ords)
		got, err := InColumns(l, mask)
		if err != nil || !slices.Equal(got, ords) {
			t.Fatalf("mask %04b: %d sections, want %d (%v)", mask, len(got), len(ords), err)
		}
	}
}
