-- The section indexes' triggers again (0004 dropped them to change the
-- literal index), for deletes and updates only: the store writes new
-- sections into the indexes itself, one INSERT … SELECT per index for a
-- whole snapshot (db.Publish; see 0004 on why not a trigger per row).
CREATE TRIGGER sections_ad AFTER DELETE ON sections BEGIN
    INSERT INTO sections_fts (sections_fts, rowid, title, section_path, body, anchors) VALUES ('delete', old.id, old.title, old.section_path, old.body, old.anchors);
    INSERT INTO sections_trigram (sections_trigram, rowid, title, section_path, literals) VALUES ('delete', old.id, old.title, old.section_path, old.literals);
    INSERT INTO sections_shapes (sections_shapes, rowid, shapes) VALUES ('delete', old.id, old.shapes);
END;

CREATE TRIGGER sections_au AFTER UPDATE ON sections BEGIN
    INSERT INTO sections_fts (sections_fts, rowid, title, section_path, body, anchors) VALUES ('delete', old.id, old.title, old.section_path, old.body, old.anchors);
    INSERT INTO sections_trigram (sections_trigram, rowid, title, section_path, literals) VALUES ('delete', old.id, old.title, old.section_path, old.literals);
    INSERT INTO sections_shapes (sections_shapes, rowid, shapes) VALUES ('delete', old.id, old.shapes);
    INSERT INTO sections_fts (rowid, title, section_path, body, anchors) VALUES (new.id, new.title, new.section_path, new.body, new.anchors);
    INSERT INTO sections_trigram (rowid, title, section_path, literals) VALUES (new.id, new.title, new.section_path, new.literals);
    INSERT INTO sections_shapes (rowid, shapes) VALUES (new.id, new.shapes);
END;

INSERT INTO sections_trigram (sections_trigram) VALUES ('rebuild');
INSERT INTO sections_trigram (sections_trigram) VALUES ('optimize');
