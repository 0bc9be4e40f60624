-- Tokens and secrets are state, not index: they move to the state file
-- (migrations/state), which the first open of it after this migration fills
-- from these tables before it drops them (db.State.Adopt). Renamed, not
-- dropped, here: an index opened by this version before any state file has
-- taken its tokens must not lose one.
ALTER TABLE api_tokens RENAME TO legacy_api_tokens;
ALTER TABLE secrets RENAME TO legacy_secrets;
