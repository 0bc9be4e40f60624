-- Secrets langspec hands to upstream servers (`langspec secret set`,
-- ${secret:NAME} in mcpServers): each value AES-256-GCM encrypted under a
-- key that is never in this file, with a random nonce, its name and subject
-- as associated data (so a value moved to another row does not decrypt).
-- subject is '' for a secret shared by everyone; a subject's own wins.
CREATE TABLE secrets (
    name       TEXT NOT NULL,
    subject    TEXT NOT NULL DEFAULT '',
    nonce      BLOB NOT NULL,
    ciphertext BLOB NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (name, subject)
);
