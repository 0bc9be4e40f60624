-- Vectors of the optional semantic channel (langspec.json "embeddings"):
-- one per model and text, keyed by the text's content hash, so that an
-- unchanged section is never embedded twice and a model change embeds
-- afresh. float32 little-endian, dims of them.
CREATE TABLE embeddings (
    model        TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    dims         INTEGER NOT NULL,
    vector       BLOB NOT NULL,
    PRIMARY KEY (model, content_hash)
) WITHOUT ROWID;
