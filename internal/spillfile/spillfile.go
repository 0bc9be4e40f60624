// Package spillfile is a temporary file that data too big to hold in memory
// is appended to and read back from by offset: a big document's sections
// while it is read and written (internal/ingest) and its postings while
// they are gathered (internal/rank/wordindex).
//
// The file is made in a folder the caller names (the database's, so that it
// goes to the disk the database is on, not to a /tmp that may be memory)
// and removed at once where the system allows it (every one but Windows),
// so that a crash leaves nothing behind; elsewhere Close removes it.
package spillfile

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
)

// File is a spill file. Not safe for concurrent use.
type File struct {
	f    *os.File
	w    *bufio.Writer
	size int64
	name string // to remove at Close; "" when removed as soon as made
}

// Create makes a spill file in dir ("" for the system's temporary folder);
// pattern is os.CreateTemp's.
func Create(dir, pattern string) (*File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	s := &File{f: f, w: bufio.NewWriterSize(f, 1<<20)}
	if os.Remove(f.Name()) != nil {
		s.name = f.Name()
	}
	return s, nil
}

// Append writes p at the end of the file and returns where it starts.
func (s *File) Append(p []byte) (int64, error) {
	off := s.size
	n, err := s.w.Write(p)
	s.size += int64(n)
	return off, err
}

// AppendString is Append for a string.
func (s *File) AppendString(p string) (int64, error) {
	off := s.size
	n, err := s.w.WriteString(p)
	s.size += int64(n)
	return off, err
}

// Size is how many bytes were appended.
func (s *File) Size() int64 { return s.size }

// Flush writes what Append buffered, so that ReadAt sees it.
func (s *File) Flush() error { return s.w.Flush() }

// ReadAt fills p from offset off; the bytes must have been flushed. A short
// read is an error.
func (s *File) ReadAt(p []byte, off int64) error {
	if n, err := s.f.ReadAt(p, off); n < len(p) {
		return fmt.Errorf("read spilled bytes: %w", cmp.Or(err, io.ErrUnexpectedEOF))
	}
	return nil
}

// Window reads a spill file front to back through one buffer, filled
// WindowSize bytes at a time: a system call per window rather than one per
// piece, when a million small pieces are read back in the order they were
// appended. Any order works; out of order, each read may refill it. The
// zero value is ready for use.
type Window struct {
	off int64
	buf []byte
}

// WindowSize is how much a Window reads at a time.
const WindowSize = 1 << 20

// Read returns the n bytes at offset off of f, which must have been
// flushed. They are good until the next Read.
func (w *Window) Read(f *File, off int64, n int) ([]byte, error) {
	if off >= w.off && off+int64(n) <= w.off+int64(len(w.buf)) {
		return w.buf[off-w.off:][:n], nil
	}
	size := max(n, int(min(int64(WindowSize), f.Size()-off)))
	if cap(w.buf) < size {
		w.buf = make([]byte, size)
	}
	w.buf = w.buf[:size]
	if err := f.ReadAt(w.buf, off); err != nil {
		w.buf = w.buf[:0]
		return nil, err
	}
	w.off = off
	return w.buf[:n], nil
}

// Close closes the file and removes it if it is still there.
func (s *File) Close() error {
	err := s.f.Close()
	if s.name != "" {
		err = errors.Join(err, os.Remove(s.name))
	}
	return err
}
