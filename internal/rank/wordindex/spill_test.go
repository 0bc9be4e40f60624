package wordindex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// Terms returns every term at once, their postings copied: for tests.
func (b *Builder) Terms() []Term {
	var out []Term
	err := b.EachTerm(func(t Term) error {
		t.Postings = slices.Clone(t.Postings)
		out = append(out, t)
		return nil
	})
	if err != nil {
		panic(err)
	}
	return out
}

// TestSpilledListsAreTheListsHeld: a Builder that spills at every few
// hundred bytes gives, term by term, the very bytes and skips of one that
// holds everything, over lists long enough to have skips and postings that
// straddle spills; and its file is gone once it is closed.
func TestSpilledListsAreTheListsHeld(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 35))
	words := []string{"channel", "type", "value", "slice", "map", "rare", "interface", "method"}
	held, spilled := NewBuilder(), NewBuilder()
	dir := t.TempDir()
	spilled.SpillTo(dir, 300)
	defer spilled.Close()
	for i := range 3 * SkipEvery {
		var body []string
		for range 1 + rng.IntN(12) {
			w := words[rng.IntN(len(words))]
			if w == "rare" && i%500 != 0 {
				continue
			}
			body = append(body, w)
		}
		cols := [Columns]string{fmt.Sprintf("Section %d", i), "Part", strings.Join(body, " "), ""}
		held.Add(cols)
		spilled.Add(cols)
	}
	if spilled.spill == nil || spilled.spill.Size() == 0 {
		t.Fatal("the spilling builder wrote nothing to its file")
	}
	want, got := held.Terms(), spilled.Terms()
	if len(got) != len(want) {
		t.Fatalf("%d terms spilled, %d held", len(got), len(want))
	}
	var withSkips int
	for i := range want {
		w, g := want[i], got[i]
		if g.Text != w.Text || g.DF != w.DF || !slices.Equal(g.Postings, w.Postings) || !slices.Equal(g.Skips, w.Skips) {
			t.Errorf("term %q: spilled (df %d, %d bytes, skips %v) differs from held (df %d, %d bytes, skips %v)",
				w.Text, g.DF, len(g.Postings), g.Skips, w.DF, len(w.Postings), w.Skips)
		}
		if len(w.Skips) > 0 {
			withSkips++
		}
	}
	if withSkips == 0 {
		t.Error("no list long enough for skips: the test proves less than it says")
	}
	if err := spilled.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left after Close: %v", left)
	}
}

// TestSpillFailureIsReported: a spill that cannot be written (its folder is
// gone) is an error when the terms are read, never lists with a hole.
func TestSpillFailureIsReported(t *testing.T) {
	b := NewBuilder()
	b.SpillTo(t.TempDir()+"/gone", 10)
	defer b.Close()
	for i := range 50 {
		b.Add([Columns]string{"t", "p", fmt.Sprintf("word%d channel type value", i), ""})
	}
	if err := b.EachTerm(func(Term) error { return nil }); err == nil {
		t.Error("EachTerm succeeded after a spill failed")
	}
}
