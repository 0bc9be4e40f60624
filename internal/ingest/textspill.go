package ingest

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/spillfile"
)

// A document's sections get their ids only once every page is read (ids
// count over the whole document, in-links come from later pages), so a
// reader holds all of them until the end. Their texts were nine tenths of
// that: 1.5 GB of a million sections. A reader given a textSpill keeps the
// first textsHeld bytes of text in the sections, as before, and writes the
// rest to a temporary file as each section is sealed. Once the document is
// final the rest of each section follows (pack), and Publish reads them
// back in order (db.SectionSource) a batch at a time.

// spillConfig says where a reader may spill its sections' texts, and past
// how many bytes held; the zero value never spills.
type spillConfig struct {
	dir  string // "" for the system's temporary folder
	held int    // bytes of text kept in memory; 0: never spill
}

// textsHeld is how many bytes of section text a reader holds before it
// spills the rest: a document of a few thousand sections (every built-in
// one) never touches the disk.
const textsHeld = 8 << 20

// textSpill holds the texts of a document's sections, in memory up to its
// limit and then in a file; section i's is at spans[i]. Not safe for
// concurrent use.
type textSpill struct {
	cfg   spillConfig
	kept  int // bytes held in sections' Text
	spans []textSpan
	f     *spillfile.File // nil until the first text goes to it
	err   error
	buf   []byte // what keep and pack append, reused

	// sections are the document's, set by the reader once they are final:
	// the texts held are read from them. pack moves them to the file, to
	// records.
	sections   []db.Section
	records    []textSpan
	textWindow spillfile.Window
	// recordWindow reads records as textWindow reads texts.
	recordWindow spillfile.Window
}

// textSpan is where one section's text went: n < 0 means it is held in
// the section itself.
type textSpan struct {
	off int64
	n   int
}

func newTextSpill(cfg spillConfig) *textSpill {
	if cfg.held <= 0 {
		return nil
	}
	return &textSpill{cfg: cfg}
}

// keep stores text, the sealed text of the next section, and its path
// (nothing reads a sealed section's path before Publish), and says what
// that section's Path and Text are to be: the same while the bound allows,
// else "" (they are in the file). After a failure to write, texts are held
// again, and finish reports the failure: the texts written before it may
// be lost.
func (t *textSpill) keep(path, text string) (string, string) {
	if t.kept+len(text) <= t.cfg.held || t.err != nil {
		t.kept += len(text)
		t.spans = append(t.spans, textSpan{n: -1})
		return path, text
	}
	if t.f == nil {
		f, err := spillfile.Create(t.cfg.dir, "langspec-texts-*.tmp")
		if err != nil {
			t.err = fmt.Errorf("spill section texts: %w", err)
			return t.keep(path, text)
		}
		t.f = f
	}
	t.buf = binary.AppendUvarint(t.buf[:0], uint64(len(path)))
	t.buf = append(append(t.buf, path...), text...)
	off, err := t.f.Append(t.buf)
	if err != nil {
		t.err = fmt.Errorf("spill section texts: %w", err)
		return t.keep(path, text)
	}
	t.spans = append(t.spans, textSpan{off: off, n: len(t.buf)})
	return "", ""
}

// spilled reports whether any text went to the file: until then the
// sections hold every text.
func (t *textSpill) spilled() bool { return t != nil && t.f != nil }

// finish is the reader's last call: sections are the document's, in the
// order their texts were kept.
func (t *textSpill) finish(sections []db.Section) error {
	if t.err != nil {
		return t.err
	}
	if len(sections) != len(t.spans) {
		return fmt.Errorf("spill section texts: %d texts kept for %d sections", len(t.spans), len(sections))
	}
	t.sections = sections
	if t.f != nil {
		if err := t.f.Flush(); err != nil {
			return fmt.Errorf("spill section texts: %w", err)
		}
	}
	return nil
}

// pack writes the rest of every section (id, title, URL, in-link anchors,
// and the paths and texts still held) to the file after the texts, once
// they are final, and lets go of the sections: from then on Section reads
// each back. Once the texts had gone to the file, a million sections still
// held 500 MB of ids, titles, paths and URLs, which the Go collector
// scanned again and again while they were written (docs/performance.md).
// Only a document whose texts were spilled is packed: the others are small.
func (t *textSpill) pack() error {
	if !t.spilled() || t.records != nil {
		return nil
	}
	records := make([]textSpan, len(t.sections))
	for i := range t.sections {
		t.buf = appendSectionRecord(t.buf[:0], &t.sections[i])
		off, err := t.f.Append(t.buf)
		if err != nil {
			return fmt.Errorf("spill sections: %w", err)
		}
		records[i] = textSpan{off: off, n: len(t.buf)}
	}
	if err := t.f.Flush(); err != nil {
		return fmt.Errorf("spill sections: %w", err)
	}
	t.records, t.sections = records, nil
	return nil
}

// Section returns section i with its text (db.SectionSource). Reading the
// sections in order reads the file front to back.
func (t *textSpill) Section(i int) (db.Section, error) {
	if i < 0 || i >= len(t.spans) {
		return db.Section{}, fmt.Errorf("spill section texts: no section %d of %d", i, len(t.spans))
	}
	var s db.Section
	if t.records == nil {
		s = t.sections[i]
	} else {
		r := t.records[i]
		b, err := t.recordWindow.Read(t.f, r.off, r.n)
		if err == nil {
			s, err = sectionRecord(b)
		}
		if err != nil {
			return db.Section{}, fmt.Errorf("section %d: %w", i, err)
		}
	}
	if sp := t.spans[i]; sp.n >= 0 {
		b, err := t.textWindow.Read(t.f, sp.off, sp.n)
		if err == nil {
			s.Path, s.Text, err = pathAndText(b)
		}
		if err != nil {
			return db.Section{}, fmt.Errorf("section text: %w", err)
		}
	}
	return s, nil
}

// pathAndText reads what keep wrote into b, in one allocation.
func pathAndText(b []byte) (path, text string, err error) {
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n) {
		return "", "", errBadRecord
	}
	rec := string(b[n:])
	return rec[:l], rec[l:], nil
}

// Len is the number of sections (db.SectionSource).
func (t *textSpill) Len() int { return len(t.spans) }

// appendSectionRecord appends s, each string after its length.
func appendSectionRecord(buf []byte, s *db.Section) []byte {
	buf = binary.AppendUvarint(buf, uint64(s.Level))
	for _, f := range [...]string{s.SectionID, s.ParentID, s.Title, s.Path, s.URL, s.SourcePolicy, s.Anchors, s.Text} {
		buf = binary.AppendUvarint(buf, uint64(len(f)))
		buf = append(buf, f...)
	}
	return buf
}

// sectionRecord reads what appendSectionRecord wrote into b. Its strings
// share one copy of b: one allocation per section rather than eight.
func sectionRecord(b []byte) (db.Section, error) {
	var s db.Section
	rec := string(b)
	level, n := binary.Uvarint(b)
	if n <= 0 {
		return s, errBadRecord
	}
	s.Level = int(level)
	pos := n
	for _, f := range [...]*string{&s.SectionID, &s.ParentID, &s.Title, &s.Path, &s.URL, &s.SourcePolicy, &s.Anchors, &s.Text} {
		l, n := binary.Uvarint(b[pos:])
		if n <= 0 || l > uint64(len(b)-pos-n) {
			return s, errBadRecord
		}
		pos += n
		*f = rec[pos : pos+int(l)]
		pos += int(l)
	}
	if pos != len(b) {
		return s, errBadRecord
	}
	return s, nil
}

var errBadRecord = errors.New("a spilled section does not read back")

// Close removes the file, if one was made.
func (t *textSpill) Close() error {
	if t == nil || t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}
