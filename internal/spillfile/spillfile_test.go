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
