package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// The full-text indexes of a published snapshot: filled in bulk with merging
// held off, then merged into one segment; and its vocabulary.

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
