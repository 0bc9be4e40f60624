-- The literal (trigram) index keeps, for each trigram, only which sections
-- hold it (detail=none), not where: positions were 3.9 times the size of the
-- text they index and most of the database (309 of 516 MB for an 80 MB
-- corpus; docs/performance.md). Without positions FTS5 cannot match a
-- phrase, so a substring is found as all of its trigrams in one section,
-- and the store checks the substring itself in the sections it returns
-- (db.Scoped.Literal). The triggers name the table, not its options, and
-- stay as they are.
DROP TABLE sections_trigram;

CREATE VIRTUAL TABLE sections_trigram USING fts5 (
    title, section_path, body,
    content = 'sections', content_rowid = 'id',
    tokenize = 'trigram',
    detail = none
);

INSERT INTO sections_trigram (sections_trigram) VALUES ('rebuild');

-- The store writes a new snapshot's (or manual file's) rows into the
-- indexes itself, one INSERT … SELECT per index (db.Publish,
-- db.PutManualFile), instead of a trigger per row. FTS5 writes what it has
-- gathered to disk at every statement savepoint, and a trigger's statement
-- is one: row by row, an 80 MB document became thousands of one-row
-- segments that took most of its ingest to merge. Deletes and updates keep
-- their triggers.
DROP TRIGGER sections_ai;
DROP TRIGGER manual_nodes_ai;

-- FTS5 keeps what a write adds in memory and writes a segment once that
-- passes its hash size (1 MiB by default), merging segments as they pile
-- up. A snapshot is written in one transaction and merged into one segment
-- afterwards (db.mergeIndexes), so a bigger buffer only saves work: 16 MiB
-- per index.
INSERT INTO sections_fts (sections_fts, rank) VALUES ('hashsize', 16777216);
INSERT INTO sections_trigram (sections_trigram, rank) VALUES ('hashsize', 16777216);
INSERT INTO sections_shapes (sections_shapes, rank) VALUES ('hashsize', 16777216);
