package db

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/text/shape"
	"modernc.org/sqlite"
)

// Source policies: what a document's licence lets us hand out.
const (
	FullText    = "full_text"    // the whole section text may be returned
	ExcerptOnly = "excerpt_only" // only an excerpt may be returned
)

// Snapshot describes one version of one document, as ingest found it.
type Snapshot struct {
	Language    string // "go"
	Doc         string // "spec"
	DisplayName string // "The Go Programming Language Specification"
	Version     string // taken from the document itself, e.g. "go1.26"
	SourceURL   string // where it was read from (file path or URL)
	FetchedAt   time.Time
	ContentHash string // hash of the source bytes; equal hashes mean nothing to do
	// Incomplete marks a snapshot some of whose pages could not be read. It
	// is stored so `versions` can show it, but never searched by default,
	// and it never replaces a complete snapshot.
	Incomplete bool
}

// Section is one section of a snapshot as ingest produces it.
type Section struct {
	SectionID    string // the document's own anchor
	ParentID     string // SectionID of the parent, "" at the top
	Level        int    // heading level (2 for h2…)
	Title        string
	Path         string // "Expressions > Slice expressions"
	URL          string // canonical URL with #anchor
	Text         string
	SourcePolicy string // FullText or ExcerptOnly
	// Anchors holds, one per line, the texts of links that point at this
	// section from elsewhere in its document: a ranking field (internal/rank).
	Anchors string
}

// PublishStatus says what Publish did.
type PublishStatus string

const (
	Created   PublishStatus = "created"   // a new version was added
	Updated   PublishStatus = "updated"   // an existing version got new content
	Unchanged PublishStatus = "unchanged" // the same content was already there
	// KeptIncomplete: an incomplete snapshot was stored beside the versions
	// already there; the latest complete version stays current.
	KeptIncomplete PublishStatus = "incomplete"
)

// PublishResult reports a Publish.
type PublishResult struct {
	Status   PublishStatus
	Language string
	Doc      string
	Version  string
	Sections int
}

// Publish stores a snapshot and its sections in one transaction, so readers
// see either the previous state or the whole new version, never a part.
// Content already stored complete for the document (same hash, under any
// version name) is left alone and reported Unchanged; a known version with
// new content is replaced. An incomplete snapshot never replaces a complete
// one: it is stored only when its version has no complete snapshot, and is
// reported KeptIncomplete.
func (d *DB) Publish(ctx context.Context, snap Snapshot, sections []Section) (PublishResult, error) {
	return d.PublishFrom(ctx, snap, SectionList(sections), PublishOptions{})
}

// SectionSource is where PublishFrom reads a snapshot's sections from: a
// big document's wait in a file while it is written (internal/ingest), so
// that they are never all in memory at once.
type SectionSource interface {
	// Len is the number of sections.
	Len() int
	// Section returns section i with its text. PublishFrom reads the
	// sections in order, twice, never from two goroutines at once.
	Section(i int) (Section, error)
}

// SectionList is a snapshot's sections held in memory.
type SectionList []Section

// Len is the number of sections.
func (l SectionList) Len() int { return len(l) }

// Section returns section i.
func (l SectionList) Section(i int) (Section, error) { return l[i], nil }

// PublishOptions say how a snapshot is written, never what is stored.
type PublishOptions struct {
	// IndexMemory bounds the memory FTS5 gathers a snapshot's full-text
	// index in before it writes a segment (indexSnapshot); 0 is
	// defaultIndexMemory. FTS5 takes about twice what it is told.
	IndexMemory int
}

// defaultIndexMemory is PublishOptions.IndexMemory's default.
const defaultIndexMemory = 64 << 20

// PublishFrom is Publish with the sections read from src, a batch at a
// time.
func (d *DB) PublishFrom(ctx context.Context, snap Snapshot, src SectionSource, opts PublishOptions) (PublishResult, error) {
	res := PublishResult{Language: snap.Language, Doc: snap.Doc, Version: snap.Version, Sections: src.Len()}
	if err := validateSnapshot(snap, src.Len()); err != nil {
		return res, err
	}
	w, err := d.takeWriter(ctx)
	if err != nil {
		return res, d.classify(err, "start writing to")
	}
	var side *sideIndexes
	if w.direct {
		d.removeSideLeftovers()
		if side, err = d.openSideIndexes(ctx, w.conn); err != nil {
			w.release(ctx)
			return res, d.classify(err, "start writing to")
		}
	}
	res, err = d.publishOn(ctx, w.conn, snap, src, opts, res, side)
	side.close()
	w.release(ctx)
	if ctxErr := ctx.Err(); err != nil && ctxErr != nil && !errors.Is(err, ctxErr) {
		// The driver interrupts a statement when the context ends, and
		// SQLite then reports SQLITE_INTERRUPT, an internal error by
		// itself: say why the write stopped.
		return res, fmt.Errorf("%w: %w", ctxErr, err)
	}
	if err != nil {
		return res, err
	}
	d.reclaimFreePages(ctx)
	return res, nil
}

// publishOn writes the snapshot in one transaction on conn, with side
// building the literal and shape indexes when it is not nil.
func (d *DB) publishOn(ctx context.Context, conn *sql.Conn, snap Snapshot, src SectionSource, opts PublishOptions, res PublishResult, side *sideIndexes) (PublishResult, error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return res, d.classify(err, "start writing to")
	}
	defer tx.Rollback()

	docID, err := upsertDocument(ctx, tx, snap)
	if err != nil {
		return res, d.classify(err, "write document to")
	}
	if !snap.Incomplete {
		// Same content under another name (a date-named version fetched
		// again) is no new version either.
		var sameVersion string
		err = tx.QueryRowContext(ctx, `SELECT version FROM snapshots WHERE document_id = ? AND content_hash = ? AND complete = 1`,
			docID, snap.ContentHash).Scan(&sameVersion)
		switch {
		case err == nil:
			res.Status, res.Version = Unchanged, sameVersion
			return res, nil
		case !errors.Is(err, sql.ErrNoRows):
			return res, d.classify(err, "read snapshots of")
		}
	}
	var existingID int64
	var existingHash string
	err = tx.QueryRowContext(ctx, `SELECT id, content_hash FROM snapshots WHERE document_id = ? AND version = ? AND complete = 1`,
		docID, snap.Version).Scan(&existingID, &existingHash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		res.Status = Created
		if snap.Incomplete {
			res.Status = KeptIncomplete
		}
	case err != nil:
		return res, d.classify(err, "read snapshots of")
	case snap.Incomplete:
		// The complete copy of this version stays; the partial one is dropped.
		res.Status = KeptIncomplete
		return res, nil
	case existingHash == snap.ContentHash:
		res.Status = Unchanged
		return res, nil
	default:
		res.Status = Updated
		// Sections go with the snapshot (ON DELETE CASCADE) and their triggers
		// take them out of both indexes.
		if _, err := tx.ExecContext(ctx, `DELETE FROM snapshots WHERE id = ?`, existingID); err != nil {
			return res, d.classify(err, "replace snapshot in")
		}
	}
	// An incomplete leftover of the same version is replaced too.
	if _, err := tx.ExecContext(ctx, `DELETE FROM snapshots WHERE document_id = ? AND version = ?`, docID, snap.Version); err != nil {
		return res, d.classify(err, "replace snapshot in")
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO snapshots (document_id, version, source_url, fetched_at, content_hash, complete, section_count)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		docID, snap.Version, snap.SourceURL, snap.FetchedAt.UTC().Format(time.RFC3339), snap.ContentHash, !snap.Incomplete, src.Len())
	if err != nil {
		return res, d.classify(err, "write snapshot to")
	}
	snapID, err := r.LastInsertId()
	if err != nil {
		return res, d.classify(err, "write snapshot to")
	}
	if err := d.insertSections(ctx, tx, snapID, src, bulkHashSize(src.Len(), cmp.Or(opts.IndexMemory, defaultIndexMemory)), side); err != nil {
		return res, d.classify(err, "write sections to")
	}
	if err := mergeIndexes(ctx, tx, side.others(sectionIndexes)); err != nil {
		return res, d.classify(err, "merge the indexes of")
	}
	// The side indexes are merged and copied last: building them waited
	// for the words, and merging the writer's own does not wait for them.
	if side != nil {
		if err := side.copyInto(ctx, tx); err != nil {
			return res, d.classify(err, "write sections to")
		}
	}
	if err := tx.Commit(); err != nil {
		return res, d.classify(err, "commit to")
	}
	return res, nil
}

// sectionIndexes are the full-text indexes over sections (migrations).
var sectionIndexes = []string{"sections_fts", "sections_trigram", "sections_shapes"}

// mergeIndexes merges the segments of each full-text index into one, in the
// writer's transaction, so readers never see the index half merged. FTS5
// writes a new segment at every flush and merges only when a level fills
// up, so an index written in several transactions holds a dozen segments,
// and a search seeks every query word in every one of them: a two-word
// search of the Go spec, the Rust Reference and the Python reference took
// 380 µs over 12 segments and 230 µs over one (docs/performance.md). The
// names are constants, never input.
func mergeIndexes(ctx context.Context, tx *sql.Tx, tables []string) error {
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+t+` (`+t+`) VALUES ('optimize')`); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	return nil
}

// validateSnapshot checks what is known before the sections are read;
// each section is checked as it is read (validateSection), and two with one
// id by the table's UNIQUE constraint (insertSections): a million sections'
// ids are not held in memory to compare them.
func validateSnapshot(snap Snapshot, sections int) error {
	for name, v := range map[string]string{"language": snap.Language, "doc": snap.Doc, "version": snap.Version, "content hash": snap.ContentHash} {
		if strings.TrimSpace(v) == "" {
			return apperr.New(apperr.InvalidArgument, "", "snapshot has no %s", name)
		}
	}
	if sections == 0 {
		return apperr.New(apperr.InvalidArgument, "check that the source is the document you meant",
			"%s %s has no sections", snap.Language, snap.Doc)
	}
	return nil
}

func validateSection(s Section) error {
	if s.SectionID == "" {
		return apperr.New(apperr.InvalidArgument, "", "section %q has no id", s.Title)
	}
	if s.SourcePolicy != FullText && s.SourcePolicy != ExcerptOnly {
		return apperr.New(apperr.InvalidArgument, "", "section %q has source policy %q; want %s or %s",
			s.SectionID, s.SourcePolicy, FullText, ExcerptOnly)
	}
	return nil
}

func upsertDocument(ctx context.Context, tx *sql.Tx, snap Snapshot) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO documents (language, doc, display_name) VALUES (?, ?, ?)
		ON CONFLICT (language, doc) DO UPDATE SET display_name = excluded.display_name
		RETURNING id`, snap.Language, snap.Doc, snap.DisplayName).Scan(&id)
	return id, err
}

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

// indexSnapshot writes the rows of snapshot snapID into the section
// indexes named by tables, one statement each (migration 0005): FTS5 then
// gathers the whole snapshot before it writes a segment.
//
// FTS5 writes a segment each time what it gathered passes its hash size and,
// by default, merges segments as they pile up (automerge): a big snapshot's
// index was merged level after level, a third of its writing, and then
// merged into one segment again by mergeIndexes. So merging waits until the
// snapshot is written: automerge is off, and a level is merged only when it
// holds crisisMergeSegments segments, as FTS5 does anyway when automerge
// falls behind. And the hash is hashSize bytes (bulkHashSize), shared by
// the indexes (hashShare), so that there are fewer segments to merge. The
// settings are put back before the transaction ends, so no reader and no
// later write ever sees them.
func indexSnapshot(ctx context.Context, tx *sql.Tx, snapID int64, hashSize int, tables []string) error {
	return withBulkMerging(ctx, tx, hashSize, tables, func() error {
		for _, t := range tables {
			if _, err := tx.ExecContext(ctx, indexRows[t], snapID); err != nil {
				return err
			}
		}
		if slices.Contains(tables, "sections_trigram") {
			_, err := tx.ExecContext(ctx, `DROP TABLE temp.pending_literals`)
			return err
		}
		return nil
	})
}

// withBulkMerging runs fill, which writes rows into the FTS5 tables, with
// their merge settings for a bulk write (see indexSnapshot) and each
// table's share of hashSize (hashShare), and then puts back their defaults
// and their own hash size.
func withBulkMerging(ctx context.Context, tx *sql.Tx, hashSize int, tables []string, fill func() error) error {
	usual := make(map[string]int, len(tables))
	for _, t := range tables {
		size := ftsDefaultHashSize
		err := tx.QueryRowContext(ctx, `SELECT v FROM `+t+`_config WHERE k = 'hashsize'`).Scan(&size)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%s: read hashsize: %w", t, err)
		}
		usual[t] = size
		if err := setMerging(ctx, tx, t, 0, crisisMergeSegments, hashShare(t, hashSize)); err != nil {
			return err
		}
	}
	if err := fill(); err != nil {
		return err
	}
	for _, t := range tables {
		if err := setMerging(ctx, tx, t, ftsDefaultAutomerge, ftsDefaultCrisisMerge, usual[t]); err != nil {
			return err
		}
	}
	return nil
}

// indexRows fills each section index with snapshot ?'s rows.
var indexRows = map[string]string{
	"sections_fts": `INSERT INTO sections_fts (rowid, title, section_path, body, anchors)
		SELECT id, title, section_path, body, anchors FROM sections WHERE snapshot_id = ?`,
	"sections_trigram": `INSERT INTO sections_trigram (rowid, title, section_path, literals)
		SELECT s.id, s.title, s.section_path, coalesce(l.literals, '')
		FROM sections s LEFT JOIN temp.pending_literals l ON l.ord = s.ord WHERE s.snapshot_id = ?`,
	"sections_shapes": `INSERT INTO sections_shapes (rowid, shapes) SELECT id, shapes FROM sections WHERE snapshot_id = ?`,
}

// FTS5's merge settings: its defaults, and the level size at which a bulk
// write merges (indexSnapshot).
const (
	ftsDefaultAutomerge   = 4
	ftsDefaultCrisisMerge = 16
	crisisMergeSegments   = 64

	ftsDefaultHashSize = 1 << 20
	// indexHashSize is the indexes' own hash size (migration 0004).
	indexHashSize = 8 << 20
)

// bulkHashSize is the FTS5 hash size a snapshot of n sections is indexed
// with: 256 bytes a section, at least the indexes' own, at most limit.
// The fewer segments FTS5 writes, the less 'optimize' has to merge: at a
// million sections a 64 MiB hash left 30 s of merging and a 256 MiB one 15
// s (docs/performance.md); a small snapshot does not hold memory it
// cannot fill. FTS5 takes a C int: never past 1 GiB.
func bulkHashSize(n, limit int) int {
	return min(limit, max(indexHashSize, n*256), 1<<30)
}

// hashShare is section index t's share of a bulk write's hash size: three
// quarters for the word index, a quarter for the literal and shape indexes,
// which hold about a fifth of what it holds. In the first snapshot of a
// store the two shares are gathered at once (sideindex.go), and the two
// together take no more than the hash size: with the whole of it each, a
// million sections peaked at 1,072 MB instead of 875 (docs/performance.md).
func hashShare(t string, hashSize int) int {
	if t == "sections_fts" {
		return hashSize / 4 * 3
	}
	return hashSize / 4
}

// setMerging sets FTS5 table t's automerge, crisismerge and hashsize. t is
// a constant of this package, never input.
func setMerging(ctx context.Context, tx *sql.Tx, t string, automerge, crisisMerge, hashSize int) error {
	for key, v := range map[string]int{"automerge": automerge, "crisismerge": crisisMerge, "hashsize": hashSize} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+t+` (`+t+`, rank) VALUES (?, ?)`, key, v); err != nil {
			return fmt.Errorf("%s: set %s: %w", t, key, err)
		}
	}
	return nil
}

// minTermRunes is the shortest word kept in a snapshot's vocabulary: shorter
// words are not corrected (one edit turns any two letters into any other).
const minTermRunes = 3

// insertTerms stores the vocabulary of a snapshot (analyzeSections).
func insertTerms(ctx context.Context, tx *sql.Tx, snapID int64, df map[string]int) error {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO snapshot_terms (snapshot_id, term, df) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, term := range slices.Sorted(maps.Keys(df)) {
		if _, err := stmt.ExecContext(ctx, snapID, term, df[term]); err != nil {
			return fmt.Errorf("term %q: %w", term, err)
		}
	}
	return nil
}

// VersionInfo describes one stored version of a document.
type VersionInfo struct {
	Language     string    `json:"language" jsonschema:"language id"`
	Doc          string    `json:"doc" jsonschema:"document id within the language"`
	DisplayName  string    `json:"display_name" jsonschema:"the document's human-readable name"`
	Version      string    `json:"version" jsonschema:"version label, e.g. go1.26"`
	SourceURL    string    `json:"source_url" jsonschema:"where this version was read from: a URL, a file, or embedded:…"`
	FetchedAt    time.Time `json:"fetched_at" jsonschema:"when it was ingested (RFC 3339)"`
	SectionCount int       `json:"section_count" jsonschema:"number of sections stored"`
	Complete     bool      `json:"complete" jsonschema:"false when some pages failed; an incomplete version is never searched by default"`
	Prerelease   bool      `json:"prerelease,omitempty" jsonschema:"a pre-release (1.97.0-nightly, 2.0.0-beta.1): the default only when ingested with --default"`
	Default      bool      `json:"default" jsonschema:"true for the version searched when none is named"`

	snapshotID int64
}

// Versions lists every stored version, grouped by language and doc, newest
// version first. language "" means all languages. Errors: apperr.NotFound,
// naming the stored languages, for a language with nothing stored.
func (d *DB) Versions(ctx context.Context, language string) ([]VersionInfo, error) {
	vs, err := d.versions(ctx, language)
	if err != nil || language == "" || len(vs) > 0 {
		return vs, err
	}
	all, err := d.versions(ctx, "")
	if err != nil {
		return nil, err
	}
	return nil, unknownLanguage(language, all)
}

// ErrUnknownLanguage is the cause of the not_found error for a language
// with nothing stored, so callers that know where languages come from
// (internal/ingest.NotStored) can add the next step.
var ErrUnknownLanguage = errors.New("unknown language")

// unknownLanguage is the error for a language not in all.
func unknownLanguage(language string, all []VersionInfo) error {
	if len(all) == 0 {
		return apperr.Wrap(ErrUnknownLanguage, apperr.NotFound, "ingest a specification first (langspec ingest go)", "nothing has been ingested yet")
	}
	var langs []string
	for _, v := range all {
		if !slices.Contains(langs, v.Language) {
			langs = append(langs, v.Language)
		}
	}
	return apperr.Wrap(ErrUnknownLanguage, apperr.NotFound, "available languages: "+strings.Join(langs, ", "), "unknown language %q", language)
}

// versions lists the stored versions of language ("" for all) as
// Versions does, from the memo while the store is unchanged.
func (d *DB) versions(ctx context.Context, language string) ([]VersionInfo, error) {
	g, err := d.generation(ctx)
	if err != nil {
		return nil, err
	}
	return d.versionsIn(ctx, g, language)
}

// versionsIn is versions within generation g.
func (d *DB) versionsIn(ctx context.Context, g *generation, language string) ([]VersionInfo, error) {
	all, err := g.allVersions(func() ([]VersionInfo, error) { return d.readVersions(ctx) })
	if err != nil {
		return nil, err
	}
	out := make([]VersionInfo, 0, len(all))
	for _, v := range all {
		if language == "" || v.Language == language {
			out = append(out, v)
		}
	}
	return out, nil
}

// readVersions reads every stored version, sorted and with each
// document's latest marked.
func (d *DB) readVersions(ctx context.Context) ([]VersionInfo, error) {
	rows, err := d.query(ctx, `SELECT s.id, d.language, d.doc, d.display_name, s.version, s.source_url,
			s.fetched_at, s.section_count, s.complete, coalesce(d.default_version, '')
		FROM snapshots s JOIN documents d ON d.id = s.document_id`)
	if err != nil {
		return nil, d.classify(err, "read versions from")
	}
	defer rows.Close()
	var out []VersionInfo
	pinned := map[[2]string]string{} // document -> the version ingested with --default
	for rows.Next() {
		var v VersionInfo
		var fetched, pin string
		if err := rows.Scan(&v.snapshotID, &v.Language, &v.Doc, &v.DisplayName, &v.Version, &v.SourceURL,
			&fetched, &v.SectionCount, &v.Complete, &pin); err != nil {
			return nil, d.classify(err, "read versions from")
		}
		v.FetchedAt, _ = time.Parse(time.RFC3339, fetched)
		v.Prerelease = IsPrerelease(v.Version)
		if pin != "" {
			pinned[[2]string{v.Language, v.Doc}] = pin
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, d.classify(err, "read versions from")
	}
	slices.SortFunc(out, func(a, b VersionInfo) int {
		if c := strings.Compare(a.Language, b.Language); c != 0 {
			return c
		}
		if c := strings.Compare(a.Doc, b.Doc); c != 0 {
			return c
		}
		return -compareVersions(a, b) // newest first
	})
	markDefault(out, pinned)
	return out, nil
}

// compareVersions orders versions of one document: by version string compared
// naturally (go1.9 < go1.10), then by fetch time.
func compareVersions(a, b VersionInfo) int {
	if c := CompareVersionStrings(a.Version, b.Version); c != 0 {
		return c
	}
	return a.FetchedAt.Compare(b.FetchedAt)
}

// markDefault flags, in a list sorted by Versions, the version of each
// document searched when none is named: the one pinned (ingested with
// --default) while it is complete, else the newest complete release, else
// (only pre-releases stored) the newest complete pre-release. An incomplete
// version is never the default.
func markDefault(vs []VersionInfo, pinned map[[2]string]string) {
	chosen := map[[2]string]int{}
	for i, v := range vs {
		if !v.Complete {
			continue
		}
		key := [2]string{v.Language, v.Doc}
		j, seen := chosen[key]
		switch {
		case pinned[key] != "" && v.Version == pinned[key]:
			chosen[key] = i
		case !seen:
			chosen[key] = i
		case vs[j].Prerelease && !v.Prerelease && vs[j].Version != pinned[key]:
			chosen[key] = i // the newest release before a newer pre-release
		}
	}
	for _, i := range chosen {
		vs[i].Default = true
	}
}

// IsPrerelease says whether a version label names a pre-release: a
// semantic-version pre-release part (1.97.0-nightly, 2.0.0-beta.1,
// 3.14.0rc1) or the words nightly, beta, alpha, rc, dev, preview, draft.
func IsPrerelease(version string) bool {
	v := strings.ToLower(version)
	for _, w := range []string{"nightly", "beta", "alpha", "preview", "draft", "dev", "snapshot"} {
		if strings.Contains(v, w) {
			return true
		}
	}
	// rc1, -rc.2: a release candidate after a number.
	for i := 1; i+1 < len(v); i++ {
		if v[i] == 'r' && v[i+1] == 'c' && (v[i-1] >= '0' && v[i-1] <= '9' || v[i-1] == '-' || v[i-1] == '.') {
			return true
		}
	}
	return false
}

// SetDefaultVersion makes version the one a document is searched at when
// none is named ("" returns it to the rule: the newest release). Errors:
// not_found when the document has no such complete version.
func (d *DB) SetDefaultVersion(ctx context.Context, language, doc, version string) error {
	if version != "" {
		vs, err := d.readVersions(ctx)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(vs, func(v VersionInfo) bool {
			return v.Language == language && v.Doc == doc && v.Version == version && v.Complete
		}) {
			return apperr.New(apperr.NotFound, "langspec versions lists the stored versions", "no complete version %s of %s/%s", apperr.Quote(version), language, doc)
		}
	}
	var pin any
	if version != "" {
		pin = version
	}
	_, err := d.sql.ExecContext(ctx, `UPDATE documents SET default_version = ? WHERE language = ? AND doc = ?`, pin, language, doc)
	return d.classify(err, "set the default version in")
}

// CompareVersionStrings compares version strings so that runs of digits
// compare as numbers: "go1.9" < "go1.10" < "go1.26", "se8" < "se21".
func CompareVersionStrings(a, b string) int {
	for a != "" && b != "" {
		da, db := leadingDigits(a), leadingDigits(b)
		switch {
		case da != "" && db != "":
			na, nb := strings.TrimLeft(da, "0"), strings.TrimLeft(db, "0")
			if c := len(na) - len(nb); c != 0 {
				return sign(c)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[len(da):], b[len(db):]
		default:
			if a[0] != b[0] {
				return sign(int(a[0]) - int(b[0]))
			}
			a, b = a[1:], b[1:]
		}
	}
	return sign(len(a) - len(b))
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// Scope selects what a read looks at. Empty fields mean "any"; an empty
// Version means each document's default version (markDefault).
type Scope struct {
	Language string
	Doc      string
	Version  string
}

// snapshotsIn resolves a scope to snapshot ids. Errors: apperr.NotFound naming
// what exists when the language or version is unknown.
func (d *DB) snapshotsIn(ctx context.Context, sc Scope) ([]VersionInfo, error) {
	all, err := d.versions(ctx, "")
	if err != nil {
		return nil, err
	}
	return pickSnapshots(all, sc)
}

// pickSnapshots is snapshotsIn over the stored versions all.
func pickSnapshots(all []VersionInfo, sc Scope) ([]VersionInfo, error) {
	var picked, ofLanguage []VersionInfo
	for _, v := range all {
		if sc.Language != "" && v.Language != sc.Language || sc.Doc != "" && v.Doc != sc.Doc {
			continue
		}
		ofLanguage = append(ofLanguage, v)
		if v.Complete && (sc.Version == "" && v.Default || sc.Version != "" && v.Version == sc.Version) {
			picked = append(picked, v)
		}
	}
	if len(picked) > 0 {
		return picked, nil
	}
	switch {
	case len(all) == 0, sc.Language != "" && !slices.ContainsFunc(all, func(v VersionInfo) bool { return v.Language == sc.Language }):
		return nil, unknownLanguage(sc.Language, all)
	case len(ofLanguage) == 0:
		var docs []string
		for _, v := range all {
			if (sc.Language == "" || v.Language == sc.Language) && !slices.Contains(docs, v.Doc) {
				docs = append(docs, v.Doc)
			}
		}
		return nil, apperr.New(apperr.NotFound, "available documents: "+strings.Join(docs, ", "),
			"no document %q for %s", sc.Doc, describe(sc))
	default:
		var names []string
		for _, v := range ofLanguage {
			if v.Complete && !slices.Contains(names, v.Version) {
				names = append(names, v.Version)
			}
		}
		return nil, apperr.New(apperr.NotFound, "available versions: "+strings.Join(names, ", "),
			"no version %s for %s", apperr.Quote(sc.Version), describe(sc))
	}
}

func describe(sc Scope) string {
	if sc.Language == "" {
		return "any language"
	}
	return sc.Language
}

// Empty reports whether nothing has been ingested yet.
func (d *DB) Empty(ctx context.Context) (bool, error) {
	var n int
	if err := d.sql.QueryRowContext(ctx, `SELECT count(*) FROM snapshots WHERE complete = 1`).Scan(&n); err != nil {
		return false, d.classify(err, "read")
	}
	return n == 0, nil
}

// Prune keeps the newest keep complete versions of each document in scope
// (its Language and Doc; "" for all) and removes the older ones, and every
// incomplete version, in one transaction. It returns what it removed.
// Errors: apperr.InvalidArgument for keep < 1, apperr.NotFound for an unknown
// language.
func (d *DB) Prune(ctx context.Context, sc Scope, keep int) ([]VersionInfo, error) {
	if keep < 1 {
		return nil, apperr.New(apperr.InvalidArgument, "keep at least 1 version", "keep %d is out of range", keep)
	}
	vs, err := d.Versions(ctx, sc.Language)
	if err != nil {
		return nil, err
	}
	var drop []VersionInfo
	kept := map[[2]string]int{}
	for _, v := range vs { // each document's newest first
		if sc.Doc != "" && v.Doc != sc.Doc {
			continue
		}
		key := [2]string{v.Language, v.Doc}
		if v.Complete && kept[key] < keep {
			kept[key]++
			continue
		}
		drop = append(drop, v)
	}
	if len(drop) == 0 {
		return nil, nil
	}
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, d.classify(err, "start writing to")
	}
	defer tx.Rollback()
	for _, v := range drop {
		// Sections go with the snapshot (ON DELETE CASCADE), and their
		// triggers take them out of both indexes.
		if _, err := tx.ExecContext(ctx, `DELETE FROM snapshots WHERE id = ?`, v.snapshotID); err != nil {
			return nil, d.classify(err, "prune")
		}
	}
	if err := mergeIndexes(ctx, tx, sectionIndexes); err != nil {
		return nil, d.classify(err, "merge the indexes of")
	}
	if err := tx.Commit(); err != nil {
		return nil, d.classify(err, "commit to")
	}
	d.reclaimFreePages(ctx)
	return drop, nil
}

// reclaimFreePages gives the pages a write left free back to the file
// system: merging an index into one segment frees the pages of the
// segments merged (18 MB, 2 % of the file, for 200,000 sections), and a
// prune frees the versions it drops. Only stores made with auto_vacuum
// incremental (every store since migration 0012's release; dsn) can; in the
// others it does nothing. It runs after the commit, as its own write, and
// is best effort: the data is written whether or not the file shrinks, so
// its failure (another writer holding the lock) is not the caller's.
func (d *DB) reclaimFreePages(ctx context.Context) {
	_, _ = d.sql.ExecContext(ctx, `PRAGMA incremental_vacuum`)
}
