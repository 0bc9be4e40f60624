-- Manuals (MANUALS_ROOT/<manual_id>/**.md|json) live beside the specs but in
-- their own tables: a manual has one live state that follows the files on disk
-- (no versions to keep), each node needs its line range for reading and
-- copying, and the thorough search matches normalised and separator-free
-- forms of the text, which are stored once here instead of per query.

-- One row per indexed file. size and mtime_ns let a refresh skip unchanged
-- files without reading them; content_hash lets it skip a touched but
-- unchanged file without re-indexing it.
CREATE TABLE manual_files (
    id           INTEGER PRIMARY KEY,
    manual_id    TEXT NOT NULL,
    path         TEXT NOT NULL,
    size         INTEGER NOT NULL,
    mtime_ns     INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    indexed_at   TEXT NOT NULL,
    UNIQUE (manual_id, path)
);

-- One row per node (a Markdown section or a whole JSON file). body is the
-- node's own text, from its heading line to the line before its first
-- subsection (own_end), so a word is indexed once, in the deepest section
-- that holds it. norm is textnorm.Normal(title + "\n" + body) and loose is
-- textnorm.Loose of the same.
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
    UNIQUE (file_id, node_id)
);
CREATE INDEX manual_nodes_by_file ON manual_nodes (file_id, ord);

-- Word index over the text as written (BM25, stage 0 of manual_find).
CREATE VIRTUAL TABLE manual_nodes_fts USING fts5 (
    title, body,
    content = 'manual_nodes', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Trigram index over the normalised text: substrings and CJK, and the fuzzy
-- heading completion of the later stages.
CREATE VIRTUAL TABLE manual_nodes_trigram USING fts5 (
    title, norm,
    content = 'manual_nodes', content_rowid = 'id',
    tokenize = 'trigram'
);

CREATE TRIGGER manual_nodes_ai AFTER INSERT ON manual_nodes BEGIN
    INSERT INTO manual_nodes_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
    INSERT INTO manual_nodes_trigram (rowid, title, norm) VALUES (new.id, new.title, new.norm);
END;

CREATE TRIGGER manual_nodes_ad AFTER DELETE ON manual_nodes BEGIN
    INSERT INTO manual_nodes_fts (manual_nodes_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO manual_nodes_trigram (manual_nodes_trigram, rowid, title, norm) VALUES ('delete', old.id, old.title, old.norm);
END;

CREATE TRIGGER manual_nodes_au AFTER UPDATE ON manual_nodes BEGIN
    INSERT INTO manual_nodes_fts (manual_nodes_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO manual_nodes_trigram (manual_nodes_trigram, rowid, title, norm) VALUES ('delete', old.id, old.title, old.norm);
    INSERT INTO manual_nodes_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
    INSERT INTO manual_nodes_trigram (rowid, title, norm) VALUES (new.id, new.title, new.norm);
END;

-- A manual_find trace: its candidates and unscanned sections, read back by
-- manual_hits and by a later manual_find(only_unscanned_from_trace_id). It
-- holds paths, node ids and short snippets, and expires.
CREATE TABLE manual_traces (
    trace_id   TEXT PRIMARY KEY,
    manual_id  TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    payload    TEXT NOT NULL
);
CREATE INDEX manual_traces_by_expiry ON manual_traces (expires_at);
