package db

import (
	"context"
	"database/sql"
	"sync"

	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/rank/wordindex"
)

// maxMemoBytes bounds the texts and posting lists one generation keeps;
// past it the generation starts over (the hot ones come back at once).
const maxMemoBytes = 64 << 20

// memo keeps what every search used to read from SQLite — the stored
// versions, the counts of the query's words, the word index's size, their
// posting lists and the hits' rows — for as long as the store is
// unchanged. Five queries were
// about half of a search of the Go spec under load (docs/performance.md);
// a warm search now asks SQLite one question: PRAGMA data_version, on a
// connection of its own, which changes whenever any other connection, of
// this process or another (an ingest run beside a server), commits. A
// change starts a new generation; a search holds the generation it began
// with, as it held one snapshot of each table before.
type memo struct {
	mu   sync.Mutex // guards conn, stmt and cur
	conn *sql.Conn
	stmt *sql.Stmt
	cur  *generation
}

// generation is what the memo keeps for one data_version.
type generation struct {
	dataVersion int64

	mu       sync.Mutex
	versions []VersionInfo // nil until read
	counts   map[string]int
	postings map[string]map[int64]wordindex.List
	// ordinals are derived from the store but dearer than a posting list
	// to recompute on every search: the sections holding a phrase (an
	// FTS5 query) and those whose title holds a term (a decoded list),
	// as ordinals by snapshot. Keys are ordinalKey's.
	ordinals map[string]map[int64][]int
	// holding are the sections holding a term in some fields, as a set
	// by snapshot (Scoped.Holding). Keys are ordinalKey's.
	holding map[string]map[int64]rank.Bits
	rows    map[int64]SectionRow
	bytes   int
}

// memoKey names a word or term within a scope.
func memoKey(set snapshotSet, word string) string { return set.json + "\x00" + word }

// generation returns the memo for the store as it is now.
func (d *DB) generation(ctx context.Context) (*generation, error) {
	m := &d.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conn == nil {
		conn, err := d.sql.Conn(ctx)
		if err != nil {
			return nil, d.classify(err, "read")
		}
		stmt, err := conn.PrepareContext(ctx, `PRAGMA data_version`)
		if err != nil {
			conn.Close()
			return nil, d.classify(err, "read")
		}
		m.conn, m.stmt = conn, stmt
	}
	var v int64
	if err := m.stmt.QueryRowContext(ctx).Scan(&v); err != nil {
		// The connection may be broken: the next call opens another.
		m.closeLocked()
		return nil, d.classify(err, "read")
	}
	if m.cur == nil || m.cur.dataVersion != v {
		m.cur = &generation{dataVersion: v}
	}
	return m.cur, nil
}

func (m *memo) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closeLocked()
}

func (m *memo) closeLocked() {
	if m.stmt != nil {
		m.stmt.Close()
	}
	if m.conn != nil {
		m.conn.Close()
	}
	m.conn, m.stmt, m.cur = nil, nil, nil
}

// allVersions returns the generation's versions, reading them on first use.
func (g *generation) allVersions(read func() ([]VersionInfo, error)) ([]VersionInfo, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.versions == nil {
		vs, err := read()
		if err != nil {
			return nil, err
		}
		g.versions = append(make([]VersionInfo, 0, len(vs)), vs...)
	}
	return g.versions, nil
}

// kept returns what the generation keeps in *m for k.
func kept[K comparable, V any](g *generation, m *map[K]V, k K) (V, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	v, ok := (*m)[k]
	return v, ok
}

// keep keeps v for k in *m, about size bytes.
func keep[K comparable, V any](g *generation, m *map[K]V, k K, v V, size int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.make(size)
	(*m)[k] = v
}

func (g *generation) count(key string) (int, bool) { return kept(g, &g.counts, key) }

func (g *generation) keepCount(key string, n int) { keep(g, &g.counts, key, n, len(key)) }

// termPostings is one term's posting lists in each snapshot of a scope
// holding it. A term no section holds is kept too, empty, so it is not
// asked for again.
func (g *generation) termPostings(key string) (map[int64]wordindex.List, bool) {
	return kept(g, &g.postings, key)
}

func (g *generation) keepPostings(key string, p map[int64]wordindex.List) {
	size := len(key)
	for _, l := range p {
		size += len(l.Postings) + len(l.Skips) + 64
	}
	keep(g, &g.postings, key, p, size)
}

// ordinalKey names what a list of ordinals holds (kind: "phrase",
// "title") for a phrase or term within a scope.
func ordinalKey(set snapshotSet, kind, term string) string {
	return memoKey(set, "\x01"+kind+"\x00"+term)
}

func (g *generation) ordinalsOf(key string) (map[int64][]int, bool) {
	return kept(g, &g.ordinals, key)
}

func (g *generation) heldBy(key string) (map[int64]rank.Bits, bool) {
	return kept(g, &g.holding, key)
}

func (g *generation) keepHeld(key string, held map[int64]rank.Bits) {
	size := len(key)
	for _, b := range held {
		size += 8*len(b) + 32
	}
	keep(g, &g.holding, key, held, size)
}

func (g *generation) keepOrdinals(key string, ords map[int64][]int) {
	size := len(key)
	for _, os := range ords {
		size += 8*len(os) + 32
	}
	keep(g, &g.ordinals, key, ords, size)
}

func (g *generation) row(id int64) (SectionRow, bool) { return kept(g, &g.rows, id) }

func (g *generation) keepRow(id int64, r SectionRow) {
	size := len(r.Text) + len(r.Title) + len(r.Path) + len(r.URL) + len(r.SectionID) + len(r.ParentID) + 128
	keep(g, &g.rows, id, r, size)
}

// make makes room for size more bytes, starting over when the bound would
// be passed. The versions stay: they are small and every search needs them.
func (g *generation) make(size int) {
	if g.bytes+size > maxMemoBytes || g.counts == nil {
		g.counts = map[string]int{}
		g.postings = map[string]map[int64]wordindex.List{}
		g.ordinals = map[string]map[int64][]int{}
		g.holding = map[string]map[int64]rank.Bits{}
		g.rows = map[int64]SectionRow{}
		g.bytes = 0
	}
	g.bytes += size
}
