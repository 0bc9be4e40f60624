-- The state of a team server: what it writes while it serves, kept apart
-- from the index (../shared/ARCHITECTURE.md), so that shipping a new index
-- to replicas never loses a revocation and a revocation never needs a new
-- index.

-- Bearer tokens (`langspec token create`): the SHA-256 of each token, never
-- the token; the tools its holder may use (a JSON array, NULL for every
-- tool); whether it is an admin's; when it was revoked. A revoked token
-- keeps its row, so that its name is never given to someone else.
CREATE TABLE api_tokens (
    name       TEXT PRIMARY KEY,
    sha256     TEXT NOT NULL UNIQUE,
    tools      TEXT,
    admin      INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);

-- Secrets handed to upstream servers (`langspec secret set`,
-- ${secret:NAME}): AES-256-GCM encrypted under a key never in this file,
-- with the name and subject as associated data. subject is '' for a secret
-- shared by everyone.
CREATE TABLE secrets (
    name       TEXT NOT NULL,
    subject    TEXT NOT NULL DEFAULT '',
    nonce      BLOB NOT NULL,
    ciphertext BLOB NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (name, subject)
);
