-- A manual's words are ranked by the engine from postings it builds from the
-- manual's nodes in memory (rank.MemorySource), with the manual's own
-- statistics: the word index over every manual's nodes is read no more.
-- The trigram index stays: it lists the nodes holding a trigram for the
-- fuzzy heading lookup (db.ManualTrigramRows), which scores them itself.
DROP TRIGGER manual_nodes_ad;
DROP TRIGGER manual_nodes_au;
DROP TABLE manual_nodes_fts;

CREATE TRIGGER manual_nodes_ad AFTER DELETE ON manual_nodes BEGIN
    INSERT INTO manual_nodes_trigram (manual_nodes_trigram, rowid, title, norm, file_name) VALUES ('delete', old.id, old.title, old.norm, old.file_name);
END;

CREATE TRIGGER manual_nodes_au AFTER UPDATE ON manual_nodes BEGIN
    INSERT INTO manual_nodes_trigram (manual_nodes_trigram, rowid, title, norm, file_name) VALUES ('delete', old.id, old.title, old.norm, old.file_name);
    INSERT INTO manual_nodes_trigram (rowid, title, norm, file_name) VALUES (new.id, new.title, new.norm, new.file_name);
END;
