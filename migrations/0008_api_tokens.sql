-- Bearer tokens of the team server (`langspec token create`, `serve --http`):
-- the SHA-256 of each token, never the token; the tools its holder may use
-- (a JSON array of tool names, NULL for every tool); when it was revoked.
-- A revoked token keeps its row, so that `token list` shows it and its name
-- is not given to someone else.
CREATE TABLE api_tokens (
    name       TEXT PRIMARY KEY,
    sha256     TEXT NOT NULL UNIQUE,
    tools      TEXT,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
