-- A document is one text of one language (the Go spec, the Rust Reference…) or,
-- later, one manual; kind tells which, so search and reading work once for both.
CREATE TABLE documents (
    id           INTEGER PRIMARY KEY,
    kind         TEXT NOT NULL DEFAULT 'spec' CHECK (kind IN ('spec', 'manual')),
    language     TEXT NOT NULL,
    doc          TEXT NOT NULL,
    display_name TEXT NOT NULL,
    UNIQUE (language, doc)
);

-- A snapshot is one version of a document. Only complete snapshots are ever
-- searched, so a half-fetched version can never become the current one.
CREATE TABLE snapshots (
    id            INTEGER PRIMARY KEY,
    document_id   INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    version       TEXT NOT NULL,
    source_url    TEXT NOT NULL,
    fetched_at    TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    complete      INTEGER NOT NULL DEFAULT 0 CHECK (complete IN (0, 1)),
    section_count INTEGER NOT NULL DEFAULT 0,
    UNIQUE (document_id, version)
);

CREATE TABLE sections (
    id            INTEGER PRIMARY KEY,
    snapshot_id   INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    section_id    TEXT NOT NULL,
    parent_id     TEXT NOT NULL DEFAULT '',
    ord           INTEGER NOT NULL,
    level         INTEGER NOT NULL,
    title         TEXT NOT NULL,
    section_path  TEXT NOT NULL,
    url           TEXT NOT NULL,
    body          TEXT NOT NULL,
    char_count    INTEGER NOT NULL,
    content_hash  TEXT NOT NULL,
    source_policy TEXT NOT NULL CHECK (source_policy IN ('full_text', 'excerpt_only')),
    UNIQUE (snapshot_id, section_id)
);
CREATE INDEX sections_by_order ON sections (snapshot_id, ord);

-- Word index: stems English (porter) and folds case and diacritics.
CREATE VIRTUAL TABLE sections_fts USING fts5 (
    title, section_path, body,
    content = 'sections', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Trigram index: substrings, punctuation-heavy queries (x.(T), <-chan), typos and
-- CJK text, which unicode61 would keep as one long token.
CREATE VIRTUAL TABLE sections_trigram USING fts5 (
    title, section_path, body,
    content = 'sections', content_rowid = 'id',
    tokenize = 'trigram'
);

-- External-content FTS tables must be told about every change to sections.
CREATE TRIGGER sections_ai AFTER INSERT ON sections BEGIN
    INSERT INTO sections_fts (rowid, title, section_path, body) VALUES (new.id, new.title, new.section_path, new.body);
    INSERT INTO sections_trigram (rowid, title, section_path, body) VALUES (new.id, new.title, new.section_path, new.body);
END;

CREATE TRIGGER sections_ad AFTER DELETE ON sections BEGIN
    INSERT INTO sections_fts (sections_fts, rowid, title, section_path, body) VALUES ('delete', old.id, old.title, old.section_path, old.body);
    INSERT INTO sections_trigram (sections_trigram, rowid, title, section_path, body) VALUES ('delete', old.id, old.title, old.section_path, old.body);
END;

CREATE TRIGGER sections_au AFTER UPDATE ON sections BEGIN
    INSERT INTO sections_fts (sections_fts, rowid, title, section_path, body) VALUES ('delete', old.id, old.title, old.section_path, old.body);
    INSERT INTO sections_trigram (sections_trigram, rowid, title, section_path, body) VALUES ('delete', old.id, old.title, old.section_path, old.body);
    INSERT INTO sections_fts (rowid, title, section_path, body) VALUES (new.id, new.title, new.section_path, new.body);
    INSERT INTO sections_trigram (rowid, title, section_path, body) VALUES (new.id, new.title, new.section_path, new.body);
END;
