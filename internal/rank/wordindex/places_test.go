package wordindex

import (
	"math/rand/v2"
	"testing"
)

// TestPlacesKeepsEveryOrdinal puts runs of ordinals through a table, the
// way rankByHeads does (consecutive ones, as a document's sections; spread
// ones; ordinals that share a hash slot's neighbourhood), growing it
// through several sizes, and checks that each keeps the place it was first
// given, that an ordinal given none is not found, and that a reset table
// (kept or new) holds nothing.
func TestPlacesKeepsEveryOrdinal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name     string
		expected int // reset's estimate
		ords     func(i int) int32
		n        int
	}{
		{"consecutive", 10, func(i int) int32 { return int32(i) }, 50_000},
		{"spread", 1 << 15, func(i int) int32 { return int32(i) * 977 % 1_000_003 }, 40_000},
		{"strided by the table size", 100, func(i int) int32 { return int32(i) << 12 }, 20_000},
		{"random with repeats", 2048, func(int) int32 { return rng.Int32N(30_000) }, 60_000},
		{"ordinal zero only", 1, func(int) int32 { return 0 }, 3},
	}
	var tab places // one table through every case: each starts from a reset
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab.reset(c.expected)
			for _, e := range tab.entries {
				if e != 0 {
					t.Fatalf("a reset table holds %#x", e)
				}
			}
			want := map[int32]int{}
			for i := range c.n {
				ord := c.ords(i)
				p, isNew := tab.place(ord, len(want))
				if old, ok := want[ord]; ok {
					if isNew || p != old {
						t.Fatalf("ordinal %d placed again at %d (new %v); it was at %d", ord, p, isNew, old)
					}
					continue
				}
				if !isNew || p != len(want) {
					t.Fatalf("new ordinal %d placed at %d (new %v), want %d", ord, p, isNew, len(want))
				}
				want[ord] = p
				if tab.full(len(want)) {
					tab.grow()
				}
			}
			if 2*len(want) > len(tab.entries) {
				t.Fatalf("%d ordinals in %d entries: more than half full", len(want), len(tab.entries))
			}
			for ord, p := range want {
				if got := tab.lookup(ord); got != p {
					t.Fatalf("lookup(%d) = %d, want %d", ord, got, p)
				}
			}
			for _, absent := range []int32{-1, 1_000_004, 1 << 30} {
				if _, ok := want[absent]; !ok {
					if got := tab.lookup(absent); got != -1 {
						t.Fatalf("lookup(%d) = %d for an ordinal never placed", absent, got)
					}
				}
			}
		})
	}
}

// TestPlacesResetSize checks which tables reset keeps: one big enough and
// not keepPlaces times too big, so that a huge one found once is not
// cleared for every small ranking after it.
func TestPlacesResetSize(t *testing.T) {
	cases := []struct {
		have, expected int
		want           int
	}{
		{0, 0, minPlaces},
		{0, 10_000, 32_768},
		{minPlaces, 100, minPlaces},
		{32_768, 100, 32_768},       // 8 times what is needed: kept
		{1 << 20, 100, minPlaces},   // far too big: a new one
		{minPlaces, 10_000, 32_768}, // too small: a new one
		{keepPlaces * 32_768, 10_000, keepPlaces * 32_768},
	}
	for _, c := range cases {
		var tab places
		if c.have > 0 {
			tab.entries = make([]uint64, c.have)
		}
		tab.reset(c.expected)
		if len(tab.entries) != c.want {
			t.Errorf("reset(%d) of a table of %d: %d entries, want %d", c.expected, c.have, len(tab.entries), c.want)
		}
		if 1<<(64-tab.shift) != len(tab.entries) {
			t.Errorf("reset(%d) of a table of %d: shift %d for %d entries", c.expected, c.have, tab.shift, len(tab.entries))
		}
	}
}
