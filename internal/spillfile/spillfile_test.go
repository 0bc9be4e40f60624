package spillfile

import (
	"bytes"
	"os"
	"testing"
)

// TestAppendAndReadBack: what is appended reads back by its offset after a
// flush; a read past the end is an error; the folder is empty once the
// file is closed (at once on this system, which allows removing an open
// file).
func TestAppendAndReadBack(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, "test-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	parts := [][]byte{[]byte("first"), bytes.Repeat([]byte("x"), 3<<20), []byte("last")}
	var offs []int64
	for i, p := range parts {
		var off int64
		if i%2 == 0 {
			off, err = s.AppendString(string(p))
		} else {
			off, err = s.Append(p)
		}
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, off)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, p := range parts {
		got := make([]byte, len(p))
		if err := s.ReadAt(got, offs[i]); err != nil || !bytes.Equal(got, p) {
			t.Errorf("part %d at %d: %v, %d bytes differ", i, offs[i], err, len(p))
		}
	}
	if err := s.ReadAt(make([]byte, 10), s.Size()-5); err == nil {
		t.Error("a read past the end succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left: %v", left)
	}
}

// TestWindowReadsWhatWasAppended: a Window gives back each piece by its
// offset, read in the order appended, backwards, and one piece bigger than
// a window; a read past the end is an error, and the window still reads
// afterwards.
func TestWindowReadsWhatWasAppended(t *testing.T) {
	s, err := Create(t.TempDir(), "test-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var parts [][]byte
	for i := range 3000 {
		parts = append(parts, bytes.Repeat([]byte{byte('a' + i%26)}, 1+i%700))
	}
	parts = append(parts, bytes.Repeat([]byte("big"), WindowSize)) // three windows long
	parts = append(parts, []byte("last"))
	offs := make([]int64, len(parts))
	for i, p := range parts {
		if offs[i], err = s.Append(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	forward := make([]int, len(parts))
	backward := make([]int, len(parts))
	for i := range parts {
		forward[i], backward[i] = i, len(parts)-1-i
	}
	for name, order := range map[string][]int{"forward": forward, "backward": backward} {
		var w Window
		for _, i := range order {
			got, err := w.Read(s, offs[i], len(parts[i]))
			if err != nil || !bytes.Equal(got, parts[i]) {
				t.Fatalf("%s, part %d at %d: %v, %d bytes read, want %d", name, i, offs[i], err, len(got), len(parts[i]))
			}
		}
		if _, err := w.Read(s, s.Size()-2, 4); err == nil {
			t.Errorf("%s: a read past the end succeeded", name)
		}
		if got, err := w.Read(s, offs[0], len(parts[0])); err != nil || !bytes.Equal(got, parts[0]) {
			t.Errorf("%s: after a failed read: %v, %q", name, err, got)
		}
	}
}
