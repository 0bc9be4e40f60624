package find

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest/manualfile"
	"github.com/langspec/langspec/internal/text/normalize"
)

// holders returns, ascending, the texts holding needle: what an index must
// stand in for.
func holders(texts []string, needle string) []int32 {
	var out []int32
	for i, t := range texts {
		if strings.Contains(t, needle) {
			out = append(out, int32(i))
		}
	}
	return out
}

// isSubset reports whether every member of a (ascending) is in b (ascending).
func isSubset(a, b []int32) bool {
	for _, v := range a {
		if _, ok := slices.BinarySearch(b, v); !ok {
			return false
		}
	}
	return true
}

var gramTexts = []string{
	"failover",           // 0
	"fail over",          // 1
	"火災保険の約款",            // 2
	"水",                  // 3: one kanji, a single key
	"db",                 // 4: shorter than a trigram
	"d",                  // 5
	"xdb",                // 6
	"é",                  // 7: two bytes
	"abc\xff",            // 8: not UTF-8
	"地震火災費用特約",           // 9
	"the db is up",       // 10
	"ends with db",       // 11
	"ＡＢＣ",                // 12: full width, three bytes a character
	"\x80\x80\x80\x80ab", // 13: continuation bytes first
}

func TestGramIndexCandidates(t *testing.T) {
	x := newGramIndex(len(gramTexts), func(i int) string { return gramTexts[i] })
	tests := []struct {
		needle string
		want   []int32 // the candidates, when the index can tell them exactly
		all    bool
	}{
		{"failover", []int32{0}, false},
		{"fail", []int32{0, 1}, false},
		{"火", []int32{2, 9}, false},  // a kanji is its own key
		{"水", []int32{3}, false},     // the whole text is one key
		{"火災", []int32{2, 9}, false}, // both keys
		{"保険", []int32{2}, false},
		{"db", []int32{4, 6, 10, 11}, false}, // starts a trigram, or ends the text
		{"d", []int32{4, 5, 6, 10, 11}, false},
		{"b", []int32{4, 6, 8, 10, 11, 13}, false},
		{"é", []int32{7}, false}, // two bytes: the tail keys
		{"zzz", nil, false},      // a key no text has
		{"", nil, true},          // every text holds it
		{"\x80", nil, true},      // starts inside a character
		{"Ｂ", []int32{12}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.needle), func(t *testing.T) {
			got, all := x.candidates(tt.needle)
			if all != tt.all {
				t.Fatalf("all = %v, want %v", all, tt.all)
			}
			if all {
				return
			}
			if !slices.IsSorted(got) {
				t.Errorf("candidates %v not ascending", got)
			}
			if truth := holders(gramTexts, tt.needle); !isSubset(truth, got) {
				t.Errorf("candidates %v miss some of the holders %v", got, truth)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("candidates %v, want %v", got, tt.want)
			}
		})
	}
}

// TestGramIndexDenseAndSparse checks candidates when keys most texts have
// are bitsets and the others lists, against the texts that hold each
// needle, for an index small enough to build without the ASCII table and
// one large enough to use it.
func TestGramIndexDenseAndSparse(t *testing.T) {
	for _, pieces := range []int{12, 4000} {
		r := rand.New(rand.NewPCG(1, 15))
		words := []string{"the ", "db ", "fail", "over", "火災", "保険", "の", "x", "é", "-", "a", "b", "c", "d", "e"}
		texts := make([]string, 500)
		size := 0
		for i := range texts {
			var b strings.Builder
			for range r.IntN(pieces) {
				b.WriteString(words[r.IntN(len(words))])
			}
			if i%3 == 0 {
				b.WriteString("rare" + fmt.Sprint(i%11))
			}
			texts[i] = b.String()
			size += len(texts[i])
		}
		if pieces > 100 && size < asciiKeys {
			t.Fatalf("%d bytes: too few to build with the ASCII table", size)
		}
		x := newGramIndex(len(texts), func(i int) string { return texts[i] })
		if len(x.sets) == 0 || len(x.post) == 0 {
			t.Fatalf("%d bytes: %d bitset words and %d listed: want both kinds", size, len(x.sets), len(x.post))
		}
		needles := []string{"the", "the db", "failover", "fail-over", "火災保険", "の", "rare3", "rare10", "e", "db", "é", "x", "zz", "保険の火"}
		for range 300 {
			tx := texts[r.IntN(len(texts))]
			if tx == "" {
				continue
			}
			i := r.IntN(len(tx))
			needles = append(needles, tx[i:min(len(tx), i+1+r.IntN(8))])
		}
		for _, needle := range needles {
			got, all := x.candidates(needle)
			if all {
				if needle != "" && utf8.RuneStart(needle[0]) {
					t.Errorf("%d bytes: candidates(%q): all", size, needle)
				}
				continue // a needle that starts inside a character
			}
			truth := holders(texts, needle)
			if !slices.IsSorted(got) || !isSubset(truth, got) {
				t.Errorf("%d bytes: candidates(%q) = %d texts, not ascending or missing some of the %d holders", size, needle, len(got), len(truth))
			}
			if len(needle) < 3 && !slices.Equal(got, truth) {
				// One or two bytes: every text found holds the needle.
				t.Errorf("%d bytes: candidates(%q) = %d texts, want the %d holders", size, needle, len(got), len(truth))
			}
		}
	}
}

func TestWordIndexHolding(t *testing.T) {
	texts := []string{
		"the failover runbook",
		"fail-over, then fail back",
		"再調達価額とは、同等の物を新たに建築・購入するのに必要な額",
		"incident incidents",
		"bad \xff byte incident", // not UTF-8: left to the caller
		"",
	}
	x := newWordIndex(len(texts), func(i int) string { return texts[i] })
	if !slices.Equal(x.odd, []int32{4}) {
		t.Fatalf("odd = %v, want [4]", x.odd)
	}
	for _, needle := range []string{"fail", "failover", "over", "incident", "再調達価額", "建築", "購入する", "i", "t", "zz"} {
		var valid []string
		for i, tx := range texts {
			if !slices.Contains(x.odd, int32(i)) {
				valid = append(valid, tx)
			} else {
				valid = append(valid, "")
			}
		}
		if got, want := x.holding(needle), holders(valid, needle); !slices.Equal(got, want) {
			t.Errorf("holding(%q) = %v, want %v", needle, got, want)
		}
	}
	for _, needle := range []string{"", "fail over", "fail-over", "a\xff", "、"} {
		if wordly(needle) {
			t.Errorf("wordly(%q) = true: it has a separator or is not a word", needle)
		}
	}
}

// TestSeparatorsAreNormalizes checks that the index's separators are
// normalize.Loose's, so that nodes are not needlessly checked one by one
// (a difference costs speed, not answers).
func TestSeparatorsAreNormalizes(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		s := string(r)
		if normalize.Normal(s) != s {
			continue // never in normal text on its own
		}
		if got, want := isSeparatorRune(r), normalize.Loose(s) == ""; got != want {
			t.Fatalf("isSeparatorRune(%U) = %v, normalize.Loose drops it: %v", r, got, want)
		}
	}
	for _, text := range []string{"Pre-Authorisation (see §3)", "医療・保険 〜 ３０日", "a | b ~ c", "  x  "} {
		if !looseOfNorm(normalize.Normal(text), normalize.Loose(text)) {
			t.Errorf("looseOfNorm(%q) = false", text)
		}
	}
	if looseOfNorm("a b", "ab c") || looseOfNorm("a\xffb", "a\xffb") {
		t.Error("looseOfNorm accepts a loose text that is not the normal one without separators")
	}
}

// randomManual is a manual of random nodes built from pieces that stress
// the index: ASCII, kana and kanji, full-width letters, separators, bytes
// that are not UTF-8. Most nodes are stored as the indexer stores them;
// some have a loose text or a title that does not follow from their text.
func randomManual(r *rand.Rand, n int) []db.ManualNode {
	pieces := []string{"a", "b", "ab", "db", "fail", "over", "e", "é", "火", "災", "保険", "の", "ー", "水", "Ａ",
		" ", "-", "・", "、", "/", "\n", "(", "〜", "|", "\xff", "\xe3\x81"}
	word := func(k int) string {
		var b strings.Builder
		for range k {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	nodes := make([]db.ManualNode, n)
	for i := range nodes {
		title, body := word(r.IntN(5)), word(r.IntN(40))
		text := title + "\n" + body
		kind := manualfile.KindHeading
		if r.IntN(4) == 0 {
			kind = manualfile.KindFile
		}
		nodes[i] = db.ManualNode{RowID: int64(i + 1), Path: fmt.Sprintf("f%03d.md", i/5), Ord: i % 5, NodeID: fmt.Sprint(i),
			Kind: kind, Title: title, Body: body, Norm: normalize.Normal(text), Loose: normalize.Loose(text)}
		switch r.IntN(20) {
		case 0:
			nodes[i].Loose = word(r.IntN(10)) // not its text's
		case 1:
			nodes[i].Norm = word(r.IntN(10)) // raw, maybe not UTF-8
		}
	}
	return nodes
}

// bruteHolds is the test a scan of every node makes, for each hay.
func bruteHolds(h hay, n *workNode, needle string) bool {
	switch h {
	case hayNorm:
		return strings.Contains(n.Norm, needle)
	case hayLoose:
		return strings.Contains(n.Loose, needle)
	case hayTitle:
		return strings.Contains(n.normTitle, needle)
	case hayTitleIn:
		return n.Kind == manualfile.KindHeading && utf8.RuneCountInString(n.looseTitle) >= minTitleInTerm && strings.Contains(needle, n.looseTitle)
	}
	panic("unknown hay")
}

// TestWhereIsAScan compares search.where, for every hay, with a scan of
// every node over random manuals and needles, for a search of the whole
// manual and of part of it.
func TestWhereIsAScan(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2026))
	for round := range 4 {
		nodes := randomManual(r, 300)
		snap := &manualSnapshot{manual: "m", nodes: nodes, traits: traitsOf(nodes)}
		whole := &stageRun{nodes: snap.nodeTree().nodes, segs: []segment{{snap: snap, taken: len(nodes)}}}
		// Part of it: every third node, as only_unscanned takes them.
		part := &stageRun{segs: []segment{{snap: snap, pos: make([]int32, len(nodes))}}}
		for i, n := range snap.nodeTree().nodes {
			part.segs[0].pos[i] = -1
			if i%3 == 0 {
				part.segs[0].pos[i] = int32(len(part.nodes))
				part.nodes = append(part.nodes, n)
			}
		}
		part.segs[0].taken = len(part.nodes)

		var needles []string
		for range 300 {
			n := nodes[r.IntN(len(nodes))]
			tr := snap.traits[r.IntN(len(nodes))]
			for _, src := range []string{n.Norm, n.Loose, tr.normTitle, tr.looseTitle + n.Loose} {
				if src == "" {
					continue
				}
				i := r.IntN(len(src))
				j := min(len(src), i+1+r.IntN(12))
				needles = append(needles, src[i:j])
			}
		}
		needles = append(needles, "", "a", "db", "火", "保険", "fail over", "fail-over", "\xff", "\x81", "zzzz", "ー水")
		for _, s := range []*stageRun{whole, part} {
			for _, needle := range needles {
				for _, h := range []hay{hayNorm, hayLoose, hayTitle, hayTitleIn} {
					got := s.where(h, needle)
					for p, n := range s.nodes {
						if want := bruteHolds(h, n, needle); got.has(p) != want {
							t.Fatalf("round %d, %d nodes: where(%d, %q) has node %d (norm %q, loose %q, title %q) = %v, a scan says %v",
								round, len(s.nodes), h, needle, p, n.Norm, n.Loose, n.normTitle, !want, want)
						}
					}
				}
			}
		}
	}
}

// TestScanChecksTheBudgetAsBefore checks that a scan over the nodes a stage
// has anything to do with reads the clock as often, and records the same
// nodes unscanned, as the scan of every node it replaced.
func TestScanChecksTheBudgetAsBefore(t *testing.T) {
	for _, tt := range []struct{ nodes, budget int }{{0, 10}, {10, 10}, {200, 2}, {200, 3}, {64, 1}, {65, 1}, {130, 100}} {
		t.Run(fmt.Sprintf("%d nodes, %d readings", tt.nodes, tt.budget), func(t *testing.T) {
			setup := func() (*stageRun, bitset, *int) {
				readings := 0
				clk := &clock{step: time.Nanosecond}
				s := &stageRun{f: &Finder{Now: func() time.Time { readings++; return clk.Now() }}, sum: &Summary{},
					deadline: time.Time{}.Add(time.Duration(tt.budget))}
				visit := newBitset(tt.nodes)
				for i := range tt.nodes {
					s.nodes = append(s.nodes, &workNode{ManualNode: db.ManualNode{Path: "a.md", NodeID: fmt.Sprint(i)}, manual: "m"})
					if i%7 == 3 {
						visit.set(i)
					}
				}
				return s, visit, &readings
			}
			result := func(s *stageRun, visited []int, readings int) string {
				var un []string
				for _, u := range s.unscanned {
					un = append(un, u.NodeID+"/"+u.Stage)
				}
				return fmt.Sprintf("visited %v, unscanned %v, %d readings", visited, un, readings)
			}
			// The scan as it was: every node, the budget checked before
			// each run of 64.
			old, visit, oldReadings := setup()
			var oldVisited []int
			for i, n := range old.nodes {
				if i%64 == 0 && old.expired() {
					for _, m := range old.nodes[i:] {
						old.addUnscanned(Unscanned{ManualID: m.manual, Path: m.Path, NodeID: m.NodeID, Reason: ReasonTimeBudget, Stage: StageNormalized})
					}
					break
				}
				if visit.has(i) {
					oldVisited = append(oldVisited, i)
				}
				_ = n
			}
			cur, visit, curReadings := setup()
			var curVisited []int
			cur.scan(StageNormalized, visit, func(p int, _ *workNode) { curVisited = append(curVisited, p) })
			if a, b := result(old, oldVisited, *oldReadings), result(cur, curVisited, *curReadings); a != b {
				t.Errorf("scan of every node: %s\nindexed scan: %s", a, b)
			}
		})
	}
}
