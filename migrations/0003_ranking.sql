-- Retrieval v2 (internal/rank): the fields and indexes its channels read.
--
-- anchors: the words of links that point at a section from elsewhere in the
-- same document ("a slice expression", "the blank identifier"): other
-- people's words for the same thing, indexed as a field of the target.
-- shapes: the section's text with every run of identifiers and numbers
-- written as x and spaces dropped (text/shape), so that the query s[i:j:k]
-- meets a[low : high : max] as the same x[x:x:x].
ALTER TABLE sections ADD COLUMN anchors TEXT NOT NULL DEFAULT '';
ALTER TABLE sections ADD COLUMN shapes TEXT NOT NULL DEFAULT '';

-- The word index gains the anchors field; FTS5 cannot add a column, so it is
-- made again and rebuilt from the sections.
DROP TRIGGER sections_ai;
DROP TRIGGER sections_ad;
DROP TRIGGER sections_au;
DROP TABLE sections_fts;

CREATE VIRTUAL TABLE sections_fts USING fts5 (
    title, section_path, body, anchors,
    content = 'sections', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Shapes are matched as substrings, like the literal text.
CREATE VIRTUAL TABLE sections_shapes USING fts5 (
    shapes,
    content = 'sections', content_rowid = 'id',
    tokenize = 'trigram'
);

CREATE TRIGGER sections_ai AFTER INSERT ON sections BEGIN
    INSERT INTO sections_fts (rowid, title, section_path, body, anchors) VALUES (new.id, new.title, new.section_path, new.body, new.anchors);
    INSERT INTO sections_trigram (rowid, title, section_path, body) VALUES (new.id, new.title, new.section_path, new.body);
    INSERT INTO sections_shapes (rowid, shapes) VALUES (new.id, new.shapes);
END;

CREATE TRIGGER sections_ad AFTER DELETE ON sections BEGIN
    INSERT INTO sections_fts (sections_fts, rowid, title, section_path, body, anchors) VALUES ('delete', old.id, old.title, old.section_path, old.body, old.anchors);
    INSERT INTO sections_trigram (sections_trigram, rowid, title, section_path, body) VALUES ('delete', old.id, old.title, old.section_path, old.body);
    INSERT INTO sections_shapes (sections_shapes, rowid, shapes) VALUES ('delete', old.id, old.shapes);
END;

CREATE TRIGGER sections_au AFTER UPDATE ON sections BEGIN
    INSERT INTO sections_fts (sections_fts, rowid, title, section_path, body, anchors) VALUES ('delete', old.id, old.title, old.section_path, old.body, old.anchors);
    INSERT INTO sections_trigram (sections_trigram, rowid, title, section_path, body) VALUES ('delete', old.id, old.title, old.section_path, old.body);
    INSERT INTO sections_shapes (sections_shapes, rowid, shapes) VALUES ('delete', old.id, old.shapes);
    INSERT INTO sections_fts (rowid, title, section_path, body, anchors) VALUES (new.id, new.title, new.section_path, new.body, new.anchors);
    INSERT INTO sections_trigram (rowid, title, section_path, body) VALUES (new.id, new.title, new.section_path, new.body);
    INSERT INTO sections_shapes (rowid, shapes) VALUES (new.id, new.shapes);
END;

INSERT INTO sections_fts (sections_fts) VALUES ('rebuild');
-- Every row must be in the shapes index too, even with no shape yet: the
-- delete trigger removes a row's old shape, and FTS5 takes the removal of a
-- row it never indexed for corruption.
INSERT INTO sections_shapes (sections_shapes) VALUES ('rebuild');

-- The words of each snapshot with the number of its sections that hold them
-- (folded, three letters or more): the vocabulary a misspelt query word is
-- corrected against. Snapshots never change once stored, so neither does
-- this, and readers may cache it by snapshot.
CREATE TABLE snapshot_terms (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    term        TEXT NOT NULL,
    df          INTEGER NOT NULL,
    PRIMARY KEY (snapshot_id, term)
) WITHOUT ROWID;

-- Sections stored before this migration have no anchors, shapes or
-- vocabulary, and their source has not changed, so the next ingest would call
-- them unchanged and keep them so. Marking the stored hashes makes that ingest
-- store the document again, with the new fields.
UPDATE snapshots SET content_hash = content_hash || ':before-0003';

-- Manuals: the file a node is in names its topic as often as its heading
-- does (a chapter number, a rider's name), so it becomes a field of both
-- indexes. file_name is the path without its extension, normalised like
-- norm; rows indexed before this take their path as it is until their file
-- is indexed again.
DROP TRIGGER manual_nodes_ai;
DROP TRIGGER manual_nodes_ad;
DROP TRIGGER manual_nodes_au;
DROP TABLE manual_nodes_fts;
DROP TABLE manual_nodes_trigram;
ALTER TABLE manual_nodes ADD COLUMN file_name TEXT NOT NULL DEFAULT '';
UPDATE manual_nodes SET file_name = (SELECT path FROM manual_files f WHERE f.id = manual_nodes.file_id);

CREATE VIRTUAL TABLE manual_nodes_fts USING fts5 (
    title, body, file_name,
    content = 'manual_nodes', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE manual_nodes_trigram USING fts5 (
    title, norm, file_name,
    content = 'manual_nodes', content_rowid = 'id',
    tokenize = 'trigram'
);

CREATE TRIGGER manual_nodes_ai AFTER INSERT ON manual_nodes BEGIN
    INSERT INTO manual_nodes_fts (rowid, title, body, file_name) VALUES (new.id, new.title, new.body, new.file_name);
    INSERT INTO manual_nodes_trigram (rowid, title, norm, file_name) VALUES (new.id, new.title, new.norm, new.file_name);
END;

CREATE TRIGGER manual_nodes_ad AFTER DELETE ON manual_nodes BEGIN
    INSERT INTO manual_nodes_fts (manual_nodes_fts, rowid, title, body, file_name) VALUES ('delete', old.id, old.title, old.body, old.file_name);
    INSERT INTO manual_nodes_trigram (manual_nodes_trigram, rowid, title, norm, file_name) VALUES ('delete', old.id, old.title, old.norm, old.file_name);
END;

CREATE TRIGGER manual_nodes_au AFTER UPDATE ON manual_nodes BEGIN
    INSERT INTO manual_nodes_fts (manual_nodes_fts, rowid, title, body, file_name) VALUES ('delete', old.id, old.title, old.body, old.file_name);
    INSERT INTO manual_nodes_trigram (manual_nodes_trigram, rowid, title, norm, file_name) VALUES ('delete', old.id, old.title, old.norm, old.file_name);
    INSERT INTO manual_nodes_fts (rowid, title, body, file_name) VALUES (new.id, new.title, new.body, new.file_name);
    INSERT INTO manual_nodes_trigram (rowid, title, norm, file_name) VALUES (new.id, new.title, new.norm, new.file_name);
END;

INSERT INTO manual_nodes_fts (manual_nodes_fts) VALUES ('rebuild');
INSERT INTO manual_nodes_trigram (manual_nodes_trigram) VALUES ('rebuild');
