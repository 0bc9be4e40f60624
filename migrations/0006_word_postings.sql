-- A second copy of the word index's postings that Go ranks itself
-- (internal/db/wordindex): FTS5's bm25() seeks every matching row's size in
-- a B-tree, which made a search of common words over 50,000 sections cost
-- 80 ms (docs/performance.md). One row per snapshot and term: the sections
-- holding the term (as ordinals in the snapshot) with its count in each
-- column. Snapshots never change once stored, so neither do these rows.
CREATE TABLE word_postings (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    term        TEXT NOT NULL,
    df          INTEGER NOT NULL,
    postings    BLOB NOT NULL
);
-- By term first: a search reads a term's rows of every snapshot, its own
-- for the postings and all of them for the term's frequency in the whole
-- table, which is the one FTS5's bm25() takes.
CREATE UNIQUE INDEX word_postings_term ON word_postings (term, snapshot_id, df);
CREATE INDEX word_postings_snapshot ON word_postings (snapshot_id);

-- Per snapshot: its sections' row ids and lengths in tokens, by ordinal
-- (wordindex.Builder.Layout), and the totals the average length is taken
-- from.
CREATE TABLE word_layouts (
    snapshot_id INTEGER PRIMARY KEY REFERENCES snapshots (id) ON DELETE CASCADE,
    sections    INTEGER NOT NULL,
    tokens      INTEGER NOT NULL,
    layout      BLOB NOT NULL
);
