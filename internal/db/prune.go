package db

import (
	"context"

	"github.com/langspec/langspec/internal/apperr"
)

// Removing old versions, and giving their pages back to the file system.

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
