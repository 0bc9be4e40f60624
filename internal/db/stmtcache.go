package db

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStatements bounds the statement cache. The read queries are a
// fixed set of texts (the substring scan varies only by its number of
// needles), so the bound is never reached in practice; it keeps a future
// query built from user input from growing the cache without end.
const maxCachedStatements = 128

// stmtCache keeps the read queries prepared. Parsing and planning a query
// costs SQLite about a third of a millisecond here, as much as running a
// typical search, and the same few texts run on every call. A *sql.Stmt is
// safe for concurrent use: database/sql prepares it on each pooled
// connection as needed.
type stmtCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// query runs a read query through a cached prepared statement.
func (d *DB) query(ctx context.Context, text string, args ...any) (*sql.Rows, error) {
	stmt, err := d.prepared(ctx, text)
	if err != nil {
		return nil, err
	}
	if stmt == nil {
		return d.readPool().QueryContext(ctx, text, args...)
	}
	return stmt.QueryContext(ctx, args...)
}

// prepared returns the cached statement for text, preparing it on first use;
// nil when the cache is full.
func (d *DB) prepared(ctx context.Context, text string) (*sql.Stmt, error) {
	c := &d.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.stmts[text]; ok {
		return s, nil
	}
	if len(c.stmts) >= maxCachedStatements {
		return nil, nil
	}
	s, err := d.readPool().PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[text] = s
	return s, nil
}

// close closes every cached statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.stmts {
		s.Close()
	}
	c.stmts = nil
}
