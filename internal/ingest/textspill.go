package ingest

import (
	"fmt"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/spillfile"
)

// A document's sections get their ids only once every page is read (ids
// count over the whole document, in-links come from later pages), so a
// reader holds all of them until the end. Their texts were nine tenths of
// that: 1.5 GB of a million sections. A reader given a textSpill keeps the
// first textsHeld bytes of text in the sections, as before, and writes the
// rest to a temporary file as each section is sealed; Publish reads them
// back in order (db.TextSource) a batch at a time.

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

	// sections are the document's, set by the reader once they are final:
	// the texts held are read from them.
	sections []db.Section
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

// keep stores text, the sealed text of the next section, and says what
// that section's Text is to be: the text itself while the bound allows,
// else "". After a failure to write, texts are held again, and finish
// reports the failure: the texts written before it may be lost.
func (t *textSpill) keep(text string) string {
	if t.kept+len(text) <= t.cfg.held || t.err != nil {
		t.kept += len(text)
		t.spans = append(t.spans, textSpan{n: -1})
		return text
	}
	if t.f == nil {
		f, err := spillfile.Create(t.cfg.dir, "langspec-texts-*.tmp")
		if err != nil {
			t.err = fmt.Errorf("spill section texts: %w", err)
			return t.keep(text)
		}
		t.f = f
	}
	off, err := t.f.AppendString(text)
	if err != nil {
		t.err = fmt.Errorf("spill section texts: %w", err)
		return t.keep(text)
	}
	t.spans = append(t.spans, textSpan{off: off, n: len(text)})
	return ""
}

// spilled reports whether any text went to the file: until then the
// sections hold every text and no TextSource is needed.
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

// Text returns section i's text (db.TextSource).
func (t *textSpill) Text(i int) (string, error) {
	if i < 0 || i >= len(t.spans) {
		return "", fmt.Errorf("spill section texts: no section %d of %d", i, len(t.spans))
	}
	sp := t.spans[i]
	if sp.n < 0 {
		return t.sections[i].Text, nil
	}
	buf := make([]byte, sp.n)
	if err := t.f.ReadAt(buf, sp.off); err != nil {
		return "", fmt.Errorf("section text: %w", err)
	}
	return string(buf), nil
}

// Close removes the file, if one was made.
func (t *textSpill) Close() error {
	if t == nil || t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}
