package db

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// Publishing a snapshot: a document's version and its sections, checked and
// written in one transaction (the rows in sectionload.go, the full-text
// indexes in ftsbuild.go).

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
