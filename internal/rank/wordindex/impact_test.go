package wordindex

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestRankByHeadsMatchesReference ranks random queries over lists with
// impact heads and holds every answer to the reference, which adds every
// posting: the same sections, in the same order, with scores equal to the
// bit, whether the heads settled the top k or the ranking fell back to
// every posting. It fails when the heads answer no query or every query,
// since then one of the two paths would go untested.
func TestRankByHeadsMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const sections = 8000
	// A few common words and a tail, in sections of very different
	// lengths, as in documents: the heads settle a query when short
	// sections full of its words stand out.
	words := []string{"type", "value", "method", "pointer", "slice", "channel", "map", "rare"}
	b := NewBuilder()
	ids := make([]int64, sections)
	for i := range ids {
		ids[i] = int64(3*i + 2)
		var cols [Columns]string
		for c := range cols {
			n := r.IntN(4)
			if c == bodyColumn {
				n = 1 + r.IntN(1+r.IntN(120))
			}
			var sb strings.Builder
			for range n {
				w := words[min(len(words)-1, int(r.ExpFloat64()*1.5))]
				if w == "rare" && r.IntN(20) != 0 {
					w = "filler"
				}
				sb.WriteString(w + " ")
			}
			cols[c] = sb.String()
		}
		b.Add(cols)
	}
	snap := must(DecodeLayout(must(b.Layout(ids))))
	plain := map[string]List{}
	for _, term := range b.Terms() {
		plain[term.Text] = List{Postings: term.Postings, Skips: term.Skips}
	}
	avgLen := float64(b.Tokens()) / sections
	var sc Scorer
	queries := 400
	for i := range queries {
		var q Query
		var lists, reference []List
		for range 1 + r.IntN(5) {
			l := plain[words[r.IntN(len(words))]]
			reference = append(reference, l)
			if r.IntN(4) != 0 {
				// Heads of at least 64 postings (or an eighth), read in
				// tiers from 16, so that lists of a few thousand go through
				// several; some lists keep none.
				l.Impacts = &Impacts{minHead: 64, firstTier: 16}
			}
			if r.IntN(5) == 0 {
				l.Skips = nil
			}
			lists = append(lists, l)
			q.IDF = append(q.IDF, 0.05+r.Float64()*3)
		}
		q.AvgLen = avgLen
		q.Weights = [Columns]float64{10, 4, 1, 6}
		if i%3 == 1 {
			for c := range q.Weights {
				q.Weights[c] = 0.25 + r.Float64()*8
			}
		}
		k := []int{1, 10, 50, 200}[r.IntN(4)]
		top := NewTop(k)
		if err := sc.Rank(snap, q, lists, top); err != nil {
			t.Fatal(err)
		}
		want := NewTop(k)
		for _, h := range referenceRank(t, snap, q, reference) {
			want.Push(h)
		}
		if got, exp := top.Hits(), want.Hits(); !slices.Equal(got, exp) {
			t.Fatalf("query %d (%d lists, weights %v, k %d): first difference at %d of %d", i, len(lists), q.Weights, k, firstDiff(got, exp), len(exp))
		}
	}
	t.Logf("the heads answered %d of %d queries", sc.byHeads, queries)
	if sc.byHeads == 0 || sc.byHeads == queries {
		t.Fatalf("the heads answered %d of %d queries: one path is untested", sc.byHeads, queries)
	}
}

// TestKthLargest holds the selection to a sort.
func TestKthLargest(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 200 {
		values := make([]float64, 1+r.IntN(300))
		for i := range values {
			values[i] = float64(r.IntN(40)) // ties
		}
		k := 1 + r.IntN(len(values))
		sorted := slices.Clone(values)
		slices.Sort(sorted)
		if got, want := kthLargest(values, k), sorted[len(sorted)-k]; got != want {
			t.Fatalf("kthLargest(%v, %d) = %v, want %v", values, k, got, want)
		}
	}
}

// TestRankByHeadsEdges builds the cases a random corpus seldom holds,
// with heads of a single posting, and checks both the answer (against the
// reference) and which path gave it.
func TestRankByHeadsEdges(t *testing.T) {
	long := strings.Repeat("filler ", 30)
	cases := []struct {
		name     string
		sections []string // bodies; the query is "a b"
		idf      [2]float64
		k        int
		byHeads  bool
	}{{
		// M and N head their lists; U is in neither head, yet holds both
		// words and beats them: the bound of a section found in no list
		// must send the ranking to every posting.
		name:     "a section in no head wins",
		sections: append([]string{"a", "b", "a b " + strings.Repeat("filler ", 8)}, repeat("a b "+long, 20)...),
		idf:      [2]float64{1, 1},
		k:        2,
		byHeads:  false,
	}, {
		// K heads a's list and holds b outside b's head: its score must
		// be completed from b's whole list.
		// K lies between two of the marks a lookup starts from, and b's
		// head is full of sections holding b four times.
		name:     "a member completed from a whole list",
		sections: slices.Concat(repeat("b b b b", 30), repeat("a b "+long, 150), []string{"a b"}, repeat("a b "+long, 150)),
		idf:      [2]float64{3, 0.1},
		k:        1,
		byHeads:  true,
	}, {
		// The shortest section heads both lists and no other can reach it.
		name:     "the heads alone",
		sections: append([]string{"a b"}, repeat("a b "+long, 20)...),
		idf:      [2]float64{1, 1},
		k:        1,
		byHeads:  true,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder()
			ids := make([]int64, len(tc.sections))
			for i, body := range tc.sections {
				ids[i] = int64(i + 1)
				b.Add([Columns]string{bodyColumn: body})
			}
			snap := must(DecodeLayout(must(b.Layout(ids))))
			var plain, lists []List
			for _, w := range []string{"a", "b"} {
				i, ok := slices.BinarySearchFunc(b.Terms(), w, func(t Term, w string) int { return strings.Compare(t.Text, w) })
				if !ok {
					t.Fatalf("no list for %q", w)
				}
				l := List{Postings: b.Terms()[i].Postings}
				plain = append(plain, l)
				l.Impacts = &Impacts{minHead: 1, firstTier: 1}
				lists = append(lists, l)
			}
			q := Query{IDF: tc.idf[:], Weights: [Columns]float64{1, 1, 1, 1}, AvgLen: float64(b.Tokens()) / float64(len(ids))}
			var sc Scorer
			top := NewTop(tc.k)
			if err := sc.Rank(snap, q, lists, top); err != nil {
				t.Fatal(err)
			}
			want := NewTop(tc.k)
			for _, h := range referenceRank(t, snap, q, plain) {
				want.Push(h)
			}
			if got, exp := top.Hits(), want.Hits(); !slices.Equal(got, exp) {
				t.Fatalf("got %v, want %v", got, exp)
			}
			if got := sc.byHeads == 1; got != tc.byHeads {
				t.Fatalf("answered by the heads: %v, want %v", got, tc.byHeads)
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestSettleDecidesNearTiesByExactScores gives settle two sections of the
// same exact score whose floors, added in another order than Rank's,
// differ in the last bits, the worse row id's floor the higher: the k best
// floors then hold the wrong one, and only scoring the sections near the
// floor exactly (ties break by row id) keeps the answer Rank gives.
func TestSettleDecidesNearTiesByExactScores(t *testing.T) {
	b := NewBuilder()
	for range 2 {
		b.Add([Columns]string{bodyColumn: "x y z filler"})
	}
	ids := []int64{10, 20}
	snap := must(DecodeLayout(must(b.Layout(ids))))
	q := Query{IDF: []float64{0.7, 1.3, 2.9}, Weights: [Columns]float64{1, 1, 1, 1}, AvgLen: float64(b.Tokens()) / 2}
	dec := newFreqDecoder(q.Weights)
	norms := snap.lengthNorms(q.AvgLen)
	terms := b.Terms()
	lists := make([]List, 3)
	short := make([]shortList, 3)
	exact := 0.0
	for i, w := range []string{"x", "y", "z"} {
		j, _ := slices.BinarySearchFunc(terms, w, func(t Term, w string) int { return strings.Compare(t.Text, w) })
		lists[i] = List{Postings: terms[j].Postings}
		short[i] = shortList{list: i, ords: []int32{0, 1}, freqs: []float64{1, 1}}
		exact += TermScore(q.IDF[i], 1, norms[0])
	}
	sums := []headSum{
		{score: math.Nextafter(math.Nextafter(exact, 0), 0), found: 0b111, ord: 0}, // row 10: a floor two bits low
		{score: exact, found: 0b111, ord: 1},                                       // row 20
	}
	var places places
	places.reset(len(sums))
	for j, s := range sums {
		places.place(s.ord, j)
	}
	top := NewTop(1)
	settled, err := settle(snap, q, lists, make([]*impactHead, 3), short, &dec, norms, sums, &places, make([]float64, 3), 0, top)
	if err != nil || !settled {
		t.Fatalf("settle: %v, %v", settled, err)
	}
	if got := top.Hits(); len(got) != 1 || got[0] != (Hit{ID: 10, Score: exact}) {
		t.Fatalf("got %v, want row 10 at %v (the exact tie goes to the lower row id)", got, exact)
	}
}
