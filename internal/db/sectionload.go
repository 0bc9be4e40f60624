package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"unicode/utf8"

	"modernc.org/sqlite"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/text/shape"
)

// The rows of a snapshot being published: sections read from their source a
// batch at a time, their derived columns made on every core, written in the
// source's order.

func (d *DB) insertSections(ctx context.Context, tx *sql.Tx, snapID int64, src SectionSource, hashSize int, side *sideIndexes) error {
	// SQLite works on one core, so everything it is handed is prepared
	// ahead of it on every core: the sections are read a batch at a time
	// and their columns derived (shapes, literals, hash; loadSections). The
	// words (vocabulary and postings) are read in a second pass over src while
	// SQLite fills the full-text indexes, longer than the rows take and on
	// one core: read beside the rows, the words held them back (at 200,000
	// sections the rows took 24 s with them, 9.6 s without; see
	// docs/performance.md). When side is not nil, it builds the literal and
	// shape indexes from the rows the writer hands it, beside the writer
	// (sideindex.go). Only the batches in flight are held, and the
	// postings spill to a file beside the database past postingsHeld bytes,
	// so a snapshot bigger than memory can be written.
	words := newSnapshotWords(filepath.Dir(d.path))
	defer words.postings.Close()
	stop := make(chan struct{})
	var helpers sync.WaitGroup
	// On every return the helpers have ended: the caller may reuse src.
	defer helpers.Wait()
	defer close(stop)
	toWriter, loadErr := loadSections(&helpers, src, stop)
	var wordsErr error

	stmt, err := tx.PrepareContext(ctx, `INSERT INTO sections
		(snapshot_id, section_id, parent_id, ord, level, title, section_path, url, body, char_count, content_hash, source_policy, anchors, shapes)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	// The literal index keeps the only copy of each section's literals
	// (migration 0012); those not empty wait in a temporary table of this
	// connection until the index is written in one statement with every
	// section's title and path (indexSnapshot), unless side builds it.
	var literals *sql.Stmt
	if side == nil {
		if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE pending_literals (ord INTEGER PRIMARY KEY, literals TEXT NOT NULL)`); err != nil {
			return err
		}
		if literals, err = tx.PrepareContext(ctx, `INSERT INTO temp.pending_literals (ord, literals) VALUES (?, ?)`); err != nil {
			return err
		}
		defer literals.Close()
	}
	ids := make([]int64, 0, src.Len())
	for b := range toWriter {
		<-b.derived
		if b.err != nil {
			return b.err
		}
		for j, c := range b.columns {
			i := b.start + j
			s := &b.sections[j]
			r, err := stmt.ExecContext(ctx, snapID, s.SectionID, s.ParentID, i, s.Level, s.Title, s.Path, s.URL,
				s.Text, c.runes, c.hash, s.SourcePolicy, s.Anchors, c.shapes)
			if se, ok := errors.AsType[*sqlite.Error](err); ok && se.Code() == sqliteCONSTRAINTUNIQUE {
				return apperr.New(apperr.InvalidArgument, "", "section id %q occurs twice", s.SectionID)
			}
			var id int64
			if err == nil {
				id, err = r.LastInsertId()
			}
			if err == nil && side == nil && c.literals != "" {
				_, err = literals.ExecContext(ctx, i, c.literals)
			}
			if err != nil {
				return fmt.Errorf("section %q: %w", s.SectionID, err)
			}
			ids = append(ids, id)
		}
		if side != nil {
			rows := make([]sideRow, len(b.sections))
			for j, c := range b.columns {
				s := &b.sections[j]
				rows[j] = sideRow{id: ids[b.start+j], title: s.Title, path: s.Path, literals: c.literals, shapes: c.shapes}
			}
			if err := side.add(ctx, rows); err != nil {
				return err
			}
		}
	}
	if err := loadErr(); err != nil {
		return err
	}
	// The loader has ended (it closed toWriter): src is the words' now.
	wordsRead := make(chan struct{})
	helpers.Go(func() {
		defer close(wordsRead)
		for i := range src.Len() {
			s, err := src.Section(i)
			if err != nil {
				wordsErr = fmt.Errorf("section %d: %w", i, err)
				return
			}
			words.add(s)
			if i%sectionBatchSize == 0 {
				select {
				case <-stop:
					return
				default:
				}
			}
		}
	})
	if side != nil {
		side.build(hashSize, wordsRead)
	}
	if err := indexSnapshot(ctx, tx, snapID, hashSize, side.others(sectionIndexes)); err != nil {
		return fmt.Errorf("index sections: %w", err)
	}
	<-wordsRead
	if wordsErr != nil {
		return wordsErr
	}
	if err := writeWordPostings(ctx, tx, snapID, words.postings, ids); err != nil {
		return fmt.Errorf("index sections: %w", err)
	}
	if err := insertTerms(ctx, tx, snapID, words.vocabulary()); err != nil {
		return err
	}
	return nil
}

// sectionBatchSize sections are loaded at a time, and at most batchesAhead
// batches wait for the writer: enough to keep it busy, few enough that a
// big snapshot's texts are never all held at once.
const (
	sectionBatchSize = 256
	batchesAhead     = 4
)

// sectionBatch is sections start to start+len(sections) with what is
// derived from their texts: columns, or err, once derived is closed.
type sectionBatch struct {
	start    int
	sections []Section
	columns  []derivedColumns
	err      error
	derived  chan struct{}
}

// derivedColumns are what a section's row and indexes hold that is
// computed from its text.
type derivedColumns struct {
	runes            int
	hash             string
	shapes, literals string
}

// loadSections reads src a batch at a time, in order, on one goroutine (a
// source has one reader), and derives the batches' columns on one
// goroutine a core: on one goroutine, deriving held the writer back (at
// 200,000 sections the loader took 10.5 s, nearly all of it deriving, and
// the writer 3.1 s; at a million 42.7 s and 27.3 s; docs/performance.md).
// The batches reach the returned channel in src's order; each may still be
// being derived (sectionBatch.derived). The channel is closed after the
// last batch, or early when stop is closed or src fails: loadErr then says
// why. Every goroutine is started through helpers.
func loadSections(helpers *sync.WaitGroup, src SectionSource, stop <-chan struct{}) (batches <-chan *sectionBatch, loadErr func() error) {
	inOrder := make(chan *sectionBatch, batchesAhead)
	toDerive := make(chan *sectionBatch)
	var readErr error
	helpers.Go(func() {
		// Each batch is queued for the writer before it is handed to a
		// deriver, so the batch the writer waits on is always being derived.
		defer close(inOrder)
		defer close(toDerive)
		for start := 0; start < src.Len(); start += sectionBatchSize {
			b, err := readBatch(src, start, min(start+sectionBatchSize, src.Len()))
			if err != nil {
				readErr = err
				return
			}
			for _, to := range []chan<- *sectionBatch{inOrder, toDerive} {
				select {
				case to <- b:
				case <-stop:
					return
				}
			}
		}
	})
	for range runtime.GOMAXPROCS(0) {
		helpers.Go(func() {
			for b := range toDerive {
				b.derive()
				close(b.derived)
			}
		})
	}
	return inOrder, func() error { return readErr }
}

// readBatch reads sections start to end of src.
func readBatch(src SectionSource, start, end int) (*sectionBatch, error) {
	b := &sectionBatch{start: start, sections: make([]Section, end-start), derived: make(chan struct{})}
	for j := range b.sections {
		s, err := src.Section(start + j)
		if err != nil {
			return nil, fmt.Errorf("section %d: %w", start+j, err)
		}
		b.sections[j] = s
	}
	return b, nil
}

// derive checks the batch's sections and derives their columns.
func (b *sectionBatch) derive() {
	b.columns = make([]derivedColumns, len(b.sections))
	for j, s := range b.sections {
		if err := validateSection(s); err != nil {
			b.err = err
			return
		}
		b.columns[j] = derivedColumns{
			runes: utf8.RuneCountInString(s.Text), hash: TextHash(s.Text),
			shapes: shape.Of(s.Text), literals: shape.Literals(s.Text),
		}
	}
}
