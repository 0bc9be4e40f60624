package wordindex

import "math/bits"

// places maps a section's ordinal to its place in rankByHeads' sums: an
// open-addressing hash table with linear probing, sized to twice the
// sections found. Why not an array with a slot for every section: a common
// query at a million sections finds 16,000, and its postings land at
// random places in that array — 4 MB a ranking reads a slot at a time,
// mostly from memory — where a table of 32,768 entries (256 KB) stays in
// the core's own cache.
//
// A ranking resets it first, which sizes it; the zero value is ready for
// that.
type places struct {
	// entries hold ordinal<<32 | place+1; 0 is a free entry.
	entries []uint64
	shift   uint // 64 - log2(len(entries)), for the hash
}

// minPlaces is the fewest entries a table has: a ranking that finds
// fewer sections than half of it never grows it.
const minPlaces = 1 << 12

// keepPlaces is how many times the entries a ranking needs a table may
// hold and still be kept for it: the first tier of a common query at a
// million sections finds an eighth of what its last one does, and clearing
// a table a few times too big (8 bytes an entry, at memory speed) costs
// less than growing one three times over.
const keepPlaces = 16

// reset empties t for a ranking expected to find about n sections.
func (t *places) reset(n int) {
	size := minPlaces
	for size < 2*n {
		size *= 2
	}
	if size <= len(t.entries) && len(t.entries) <= keepPlaces*size {
		clear(t.entries)
	} else {
		t.entries = make([]uint64, size)
	}
	t.shift = uint(64 - bits.TrailingZeros(uint(len(t.entries))))
}

// slot is where the probe for ord starts: Fibonacci hashing, which spreads
// runs of consecutive ordinals (a document's sections) over the table.
func (t *places) slot(ord int32) int {
	return int(uint64(uint32(ord)) * 0x9E3779B97F4A7C15 >> t.shift)
}

// place returns ord's place, giving it next when it has none yet (isNew).
// The caller grows the table once it is half full
// (full): a call per posting is inlined only without the growing.
func (t *places) place(ord int32, next int) (place int, isNew bool) {
	mask := len(t.entries) - 1
	for i := t.slot(ord); ; i = (i + 1) & mask {
		e := t.entries[i]
		if e == 0 {
			t.entries[i] = uint64(uint32(ord))<<32 | uint64(next+1)
			return next, true
		}
		if int32(e>>32) == ord {
			return int(uint32(e)) - 1, false
		}
	}
}

// lookup returns ord's place, or -1 when it has none.
func (t *places) lookup(ord int32) int {
	mask := len(t.entries) - 1
	for i := t.slot(ord); ; i = (i + 1) & mask {
		switch e := t.entries[i]; {
		case e == 0:
			return -1
		case int32(e>>32) == ord:
			return int(uint32(e)) - 1
		}
	}
}

// full says a table holding held entries is to grow before the next one.
func (t *places) full(held int) bool { return 2*held >= len(t.entries) }

// grow doubles the table, keeping every entry.
func (t *places) grow() {
	old := t.entries
	t.entries = make([]uint64, 2*len(old))
	t.shift--
	mask := len(t.entries) - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := t.slot(int32(e >> 32))
		for t.entries[i] != 0 {
			i = (i + 1) & mask
		}
		t.entries[i] = e
	}
}
