-- How the section indexes are stored (docs/performance.md), measured on an
-- 80 MB generated corpus of 50,000 sections.
--
-- The literal (trigram) index had the whole text of every section with the
-- position of every trigram: 309 of the database's 516 MB, and most of an
-- ingest. It now holds only what it is searched for, each section's
-- literals (text/shape.Literals: the runs of text with code punctuation or
-- CJK in them; code words and CJK runs are all the ranking engine looks up
-- there), and for each trigram only which sections hold it (detail=none),
-- not where. Without positions FTS5 cannot match a phrase, so a substring
-- is found as all of its trigrams in one section, and the store checks the
-- substring itself in the sections found (db.Scoped.Substrings).
--
-- The literals of the sections already stored are written by the store
-- right after this file, in the same transaction (db.migrationSteps), and
-- 0005 makes the triggers again and fills the new index.
DROP TRIGGER sections_ai;
DROP TRIGGER sections_ad;
DROP TRIGGER sections_au;
DROP TABLE sections_trigram;

ALTER TABLE sections ADD COLUMN literals TEXT NOT NULL DEFAULT '';

CREATE VIRTUAL TABLE sections_trigram USING fts5 (
    title, section_path, literals,
    content = 'sections', content_rowid = 'id',
    tokenize = 'trigram',
    detail = none
);

-- FTS5 keeps what a write adds in memory and writes a segment once that
-- passes its hash size (1 MiB by default), merging segments as they pile
-- up. A snapshot is written in one transaction and merged into one segment
-- afterwards (db.mergeIndexes), so a bigger buffer only saves work.
INSERT INTO sections_fts (sections_fts, rank) VALUES ('hashsize', 8388608);
INSERT INTO sections_trigram (sections_trigram, rank) VALUES ('hashsize', 8388608);
INSERT INTO sections_shapes (sections_shapes, rank) VALUES ('hashsize', 8388608);

-- The store writes a new manual file's rows into its indexes itself, one
-- INSERT … SELECT per index (db.PutManualFile), as it does for sections
-- (0005), instead of a trigger per row: FTS5 writes what it has gathered to
-- disk at every statement savepoint, and a trigger's statement is one, so
-- row by row an 80 MB document became thousands of one-row segments that
-- took most of its ingest to merge. Deletes and updates keep their triggers.
DROP TRIGGER manual_nodes_ai;
