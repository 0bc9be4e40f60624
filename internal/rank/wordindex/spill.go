package wordindex

import (
	"fmt"
	"maps"
	"slices"

	"github.com/langspec/langspec/internal/spillfile"
)

// Spilling. A Builder holds every posting of its snapshot until the snapshot
// is written; at a million sections that was half a gigabyte, beside the
// rest of an ingest. A Builder told to spill (SpillTo) writes the lists it
// holds to a temporary file whenever their bytes pass a bound, and keeps of
// each term only where its pieces went; EachTerm reads a term's pieces back
// when the term is written. A list is its pieces joined: each posting is a
// delta from the one before, which list.last carries across a spill, and
// skips count bytes from the list's start (list.spilled + len(list.data)).

// piece is one spilled run of a list's bytes.
type piece struct {
	off int64
	n   int
}

// SpillTo makes the Builder write what it holds to a temporary file in dir
// whenever its lists pass limit bytes. Call Close when the Builder is done
// with.
func (b *Builder) SpillTo(dir string, limit int) {
	b.spillDir, b.spillLimit = dir, limit
}

// Close removes the Builder's spill file, if it made one.
func (b *Builder) Close() error {
	s := b.spill
	if s == nil {
		return nil
	}
	b.spill = nil
	return s.Close()
}

// spillLists writes every list's bytes held in memory to the spill file.
// A failure is kept in b.err, reported by EachTerm, and ends spilling.
func (b *Builder) spillLists() {
	if b.err != nil {
		return
	}
	if b.spill == nil {
		s, err := spillfile.Create(b.spillDir, "langspec-postings-*.tmp")
		if err != nil {
			b.err = fmt.Errorf("wordindex: spill postings: %w", err)
			return
		}
		b.spill = s
	}
	for _, l := range b.lists {
		if len(l.data) == 0 {
			continue
		}
		off, err := b.spill.Append(l.data)
		if err != nil {
			b.err = fmt.Errorf("wordindex: spill postings: %w", err)
			return
		}
		l.pieces = append(l.pieces, piece{off: off, n: len(l.data)})
		l.spilled += len(l.data)
		l.data = nil
	}
	b.held = 0
}

// EachTerm calls fn with each term of the snapshot in byte order, its
// postings read back whole. fn must not keep t.Postings or t.Skips past its
// return. It stops at fn's first error and returns it.
func (b *Builder) EachTerm(fn func(t Term) error) error {
	if b.err != nil {
		return b.err
	}
	if b.spill != nil {
		if err := b.spill.Flush(); err != nil {
			return fmt.Errorf("wordindex: spill postings: %w", err)
		}
	}
	for _, text := range slices.Sorted(maps.Keys(b.lists)) {
		l := b.lists[text]
		postings := l.data
		if len(l.pieces) > 0 {
			postings = make([]byte, 0, l.spilled+len(l.data))
			for _, p := range l.pieces {
				start := len(postings)
				postings = postings[:start+p.n]
				if err := b.spill.ReadAt(postings[start:], p.off); err != nil {
					return fmt.Errorf("wordindex: %w", err)
				}
			}
			postings = append(postings, l.data...)
		}
		if err := fn(Term{Text: text, DF: l.df, Postings: postings, Skips: l.skips}); err != nil {
			return err
		}
	}
	return nil
}
