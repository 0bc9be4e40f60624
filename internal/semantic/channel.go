package semantic

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/langspec/langspec/internal/db"
)

// Channel is the semantic channel's search: the query embedded once
// (cached by text), the sections of the scope by cosine to it. Their
// vectors are read once per snapshot and kept; a brute-force scan is a few
// milliseconds at 100,000 sections of 768 dimensions.
type Channel struct {
	c       *Client
	timeout time.Duration

	mu      sync.Mutex
	queries map[string][]float32 // normalised query vectors, by text
	snaps   map[snapKey][]rowVector
}

type snapKey struct {
	path  string
	id    int64
	model string
}

type rowVector struct {
	id  int64
	vec []float32 // normalised
}

// QueryTimeout is how long a query's embedding may take before search
// answers without the semantic channel.
const QueryTimeout = 2 * time.Second

// maxCachedQueries bounds the query cache; it is emptied when full.
const maxCachedQueries = 4096

// NewChannel searches with c's model.
func NewChannel(c *Client) *Channel {
	return &Channel{c: c, timeout: QueryTimeout, queries: map[string][]float32{}, snaps: map[snapKey][]rowVector{}}
}

// Nearest returns the limit sections of scope nearest to query, best
// first, scored by cosine. Errors: those of the endpoint (unavailable),
// or a timeout: the caller answers without the channel.
func (ch *Channel) Nearest(ctx context.Context, scope *db.Scoped, query string, limit int) ([]db.Posting, error) {
	qv, err := ch.queryVector(ctx, query)
	if err != nil {
		return nil, err
	}
	var rows []rowVector
	for _, id := range scope.SnapshotIDs() {
		r, err := ch.snapshot(ctx, scope.Store(), id)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return nearest(qv, rows, limit), nil
}

// nearest scores every row by cosine to qv (both normalised) and returns
// the limit best above zero, best first: a min-heap of limit while
// scanning, rather than sorting every row.
func nearest(qv []float32, rows []rowVector, limit int) []db.Posting {
	worse := func(a, b db.Posting) bool { return a.Score < b.Score || a.Score == b.Score && a.ID > b.ID }
	heap := make([]db.Posting, 0, limit)
	for _, r := range rows {
		if len(r.vec) != len(qv) {
			continue // another model's length: not comparable
		}
		p := db.Posting{ID: r.id, Score: dot(qv, r.vec)}
		switch {
		case p.Score <= 0 || limit <= 0:
			continue
		case len(heap) < limit:
			heap = append(heap, p)
			for i := len(heap) - 1; i > 0; {
				parent := (i - 1) / 2
				if !worse(heap[i], heap[parent]) {
					break
				}
				heap[i], heap[parent] = heap[parent], heap[i]
				i = parent
			}
		case worse(heap[0], p):
			heap[0] = p
			for i := 0; ; {
				w, l, rr := i, 2*i+1, 2*i+2
				if l < len(heap) && worse(heap[l], heap[w]) {
					w = l
				}
				if rr < len(heap) && worse(heap[rr], heap[w]) {
					w = rr
				}
				if w == i {
					break
				}
				heap[i], heap[w] = heap[w], heap[i]
				i = w
			}
		}
	}
	slices.SortFunc(heap, func(a, b db.Posting) int {
		if worse(b, a) {
			return -1
		}
		if worse(a, b) {
			return 1
		}
		return 0
	})
	return heap
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
func (ch *Channel) snapshot(ctx context.Context, store *db.DB, id int64) ([]rowVector, error) {
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
			rows = append(rows, rowVector{id: t.ID, vec: normalize(v)})
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

// dot is the dot product, four lanes at a time: the scan's whole cost.
func dot(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0 + s1 + s2 + s3)
}
