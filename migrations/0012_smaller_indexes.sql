-- Smaller section indexes: the database was 2.7 times the text at 200,000
-- sections and more (issue 35 asks for 2.5 at most). Measured on a
-- 200,000-section generated corpus (docs/performance.md):
--
-- The shape index kept every trigram's position, to match a needle as a
-- phrase: 38 MB. It now keeps only which sections hold each trigram
-- (detail=none), like the literal index, and the store checks the needle
-- in the section's shapes itself, as it already counted it there
-- (db.Scoped.Shapes): 5 MB.
--
-- A section's literals were stored twice: in the sections table, as the
-- content the literal index is read from, and in the index. Nothing reads
-- them from the table (a substring is checked in title, path and body), so
-- the literal index now keeps its own (contentless; contentless_delete lets
-- a snapshot's rows be removed by rowid) and the column goes: 28 MB.
--
-- The shape index is not ranked by bm25, so it does not keep the sizes of
-- its rows (columnsize=0): 2 MB. The literal index must (FTS5 allows no
-- columnsize=0 beside contentless_delete).
DROP TRIGGER sections_ad;
DROP TRIGGER sections_au;

DROP TABLE sections_trigram;
CREATE VIRTUAL TABLE sections_trigram USING fts5 (
    title, section_path, literals,
    content = '', contentless_delete = 1,
    tokenize = 'trigram',
    detail = none
);
INSERT INTO sections_trigram (sections_trigram, rank) VALUES ('hashsize', 8388608);
INSERT INTO sections_trigram (rowid, title, section_path, literals)
    SELECT id, title, section_path, literals FROM sections;
INSERT INTO sections_trigram (sections_trigram) VALUES ('optimize');

ALTER TABLE sections DROP COLUMN literals;

DROP TABLE sections_shapes;
CREATE VIRTUAL TABLE sections_shapes USING fts5 (
    shapes,
    content = 'sections', content_rowid = 'id',
    tokenize = 'trigram',
    detail = none, columnsize = 0
);
INSERT INTO sections_shapes (sections_shapes, rank) VALUES ('hashsize', 8388608);
INSERT INTO sections_shapes (sections_shapes) VALUES ('rebuild');
INSERT INTO sections_shapes (sections_shapes) VALUES ('optimize');

CREATE TRIGGER sections_ad AFTER DELETE ON sections BEGIN
    INSERT INTO sections_fts (sections_fts, rowid, title, section_path, body, anchors) VALUES ('delete', old.id, old.title, old.section_path, old.body, old.anchors);
    DELETE FROM sections_trigram WHERE rowid = old.id;
    INSERT INTO sections_shapes (sections_shapes, rowid, shapes) VALUES ('delete', old.id, old.shapes);
END;

-- A stored section never changes (a new version of a document is a new
-- snapshot), and the literal index could not follow a change: its literals
-- are worked out in Go (text/shape.Literals) and kept nowhere else.
CREATE TRIGGER sections_au BEFORE UPDATE ON sections BEGIN
    SELECT RAISE(ABORT, 'a stored section is never updated: publish a new snapshot');
END;
