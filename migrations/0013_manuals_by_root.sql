-- A manual is (root, id): the manuals folder it lives in, and its folder's
-- name there. Until now a manual was its id alone, so a server started in a
-- project without manuals/ removed every other project's manuals from the
-- index, and two projects with a manual "m1" replaced each other on every
-- refresh; with one user-scope registration (claude mcp add --scope user)
-- every project switch re-indexed. root is the manuals folder's absolute
-- path as the index saw it (symbolic links resolved, NFC).
--
-- The manual tables are an index of files on disk, rebuilt from them by the
-- next refresh, so they are made anew rather than rewritten in place:
-- SQLite cannot change a UNIQUE constraint, and rebuilding manual_files
-- under its children's foreign keys would cascade. The first refresh after
-- this migration indexes each manual again. The unused manual_traces table
-- goes too: traces are state, not index (../shared/ARCHITECTURE.md).
DROP TRIGGER manual_nodes_ad;
DROP TRIGGER manual_nodes_au;
DROP TABLE manual_nodes_fts;
DROP TABLE manual_nodes_trigram;
DROP TABLE manual_nodes;
DROP TABLE manual_files;
DROP TABLE manual_traces;

-- One row per indexed file of a manual of a root.
CREATE TABLE manual_files (
    id           INTEGER PRIMARY KEY,
    root         TEXT NOT NULL,
    manual_id    TEXT NOT NULL,
    path         TEXT NOT NULL,
    size         INTEGER NOT NULL,
    mtime_ns     INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    indexed_at   TEXT NOT NULL,
    UNIQUE (root, manual_id, path)
);

CREATE TABLE manual_nodes (
    id            INTEGER PRIMARY KEY,
    file_id       INTEGER NOT NULL REFERENCES manual_files (id) ON DELETE CASCADE,
    ord           INTEGER NOT NULL,
    node_id       TEXT NOT NULL,
    parent_id     TEXT NOT NULL DEFAULT '',
    kind          TEXT NOT NULL,
    level         INTEGER NOT NULL,
    title         TEXT NOT NULL,
    line_start    INTEGER NOT NULL,
    line_end      INTEGER NOT NULL,
    own_end       INTEGER NOT NULL,
    body          TEXT NOT NULL,
    norm          TEXT NOT NULL,
    loose         TEXT NOT NULL,
    source_policy TEXT NOT NULL DEFAULT 'full_text' CHECK (source_policy IN ('full_text', 'excerpt_only')),
    file_name     TEXT NOT NULL DEFAULT '',
    UNIQUE (file_id, node_id)
);
CREATE INDEX manual_nodes_by_file ON manual_nodes (file_id, ord);

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

-- The indexes are written with one statement per file (db.PutManualFile);
-- deletes and updates go through triggers.
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
