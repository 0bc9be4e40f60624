package db

import "context"

// OpenReadOnly opens an existing store read-only, as Open does for a file
// it cannot write; tests run as root, which can write any file.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) { return open(ctx, path, true) }
