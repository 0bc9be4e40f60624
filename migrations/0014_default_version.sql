-- The version a document is searched at when none is named: its newest
-- complete release, unless a version was ingested with --default. A
-- pre-release (1.97.0-nightly, 2.0.0-beta.1) is the default only when
-- asked: ingesting rustup's nightly Reference beside the stable one must
-- not make every Rust search read the nightly in silence. NULL: the rule.
ALTER TABLE documents ADD COLUMN default_version TEXT;
