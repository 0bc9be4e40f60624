package semantic

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
)

// Channel is what the semantic channel reads: the query embedded once
// (cached by text), and the vectors of the sections of the scope, read
// once per snapshot and kept. The ranking engine scores them by cosine
// (rank.SemanticSource).
type Channel struct {
	c       *Client
	timeout time.Duration

	mu      sync.Mutex
	queries map[string][]float32 // normalised query vectors, by text
	snaps   map[snapKey][]rank.Vector
}

type snapKey struct {
	path  string
	id    int64
	model string
}

// QueryTimeout is how long a query's embedding may take before search
// answers without the semantic channel.
const QueryTimeout = 2 * time.Second

// maxCachedQueries bounds the query cache; it is emptied when full.
const maxCachedQueries = 4096

// NewChannel searches with c's model.
func NewChannel(c *Client) *Channel {
	return &Channel{c: c, timeout: QueryTimeout, queries: map[string][]float32{}, snaps: map[snapKey][]rank.Vector{}}
}

// Embeddings returns the embedding of query and those of the sections of
// scope, all normalised (rank.SemanticSource). Errors: those of the
// endpoint (unavailable), or a timeout: the caller answers without the
// channel.
func (ch *Channel) Embeddings(ctx context.Context, scope *db.Scoped, query string) ([]float32, []rank.Vector, error) {
	qv, err := ch.queryVector(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	var rows []rank.Vector
	for _, id := range scope.SnapshotIDs() {
		r, err := ch.snapshot(ctx, scope.Store(), id)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, r...)
	}
	return qv, rows, nil
}

func (ch *Channel) queryVector(ctx context.Context, query string) ([]float32, error) {
	ch.mu.Lock()
	v, ok := ch.queries[query]
	ch.mu.Unlock()
	if ok {
		return v, nil
	}
	ctx, cancel := context.WithTimeout(ctx, ch.timeout)
	defer cancel()
	c := *ch.c
	c.o.Attempts, c.o.Timeout = 1, ch.timeout // a search does not wait for retries
	vecs, err := c.Embed(ctx, []string{query}, nil)
	if err != nil {
		return nil, err
	}
	v = normalize(vecs[0])
	ch.mu.Lock()
	if len(ch.queries) >= maxCachedQueries {
		clear(ch.queries)
	}
	ch.queries[query] = v
	ch.mu.Unlock()
	return v, nil
}

// snapshot returns the vectors of a snapshot's sections, read once.
func (ch *Channel) snapshot(ctx context.Context, store *db.DB, id int64) ([]rank.Vector, error) {
	key := snapKey{store.Path(), id, ch.c.Model()}
	ch.mu.Lock()
	rows, ok := ch.snaps[key]
	ch.mu.Unlock()
	if ok {
		return rows, nil
	}
	texts, err := store.SnapshotRows(ctx, id)
	if err != nil {
		return nil, err
	}
	hashes := make([]string, len(texts))
	for i, t := range texts {
		hashes[i] = Hash(Text(db.SectionText{Title: t.Title, Body: t.Body}))
	}
	vecs, err := store.Vectors(ctx, ch.c.Model(), hashes)
	if err != nil {
		return nil, err
	}
	for i, t := range texts {
		if v, ok := vecs[hashes[i]]; ok {
			rows = append(rows, rank.Vector{ID: t.ID, Vec: normalize(v)})
		}
	}
	// Kept only once every section has its vector: an ingest embeds after
	// it stores, and a search in between must not fix a partial set.
	if len(rows) == len(texts) {
		ch.mu.Lock()
		ch.snaps[key] = rows
		ch.mu.Unlock()
	}
	return rows, nil
}

func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if sum == 0 {
		return out
	}
	inv := float32(1 / math.Sqrt(sum))
	for i, x := range v {
		out[i] = x * inv
	}
	return out
}
