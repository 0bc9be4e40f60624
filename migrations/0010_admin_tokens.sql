-- An admin token may also read the team server's /metrics (and, later, its
-- management page); a token made before this migration is not one.
ALTER TABLE api_tokens ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
