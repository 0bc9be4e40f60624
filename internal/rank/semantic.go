package rank

import (
	"context"
	"slices"
)

// SemanticSource is a Source that also gives the embeddings of a query and
// of the sections in scope (the optional semantic channel), both
// normalised: the engine ranks the sections by cosine. It answers nothing,
// rather than an error, when its endpoint fails: the lexical channels
// answer alone.
type SemanticSource interface {
	Source
	Embeddings(ctx context.Context, query string) (q []float32, sections []Vector, err error)
}

// Vector is a section's embedding, normalised, by row id.
type Vector struct {
	ID  int64
	Vec []float32
}

// semantic is the semantic channel: the limit sections nearest to the
// query by cosine, above zero, best first. A brute-force scan is a few
// milliseconds at 100,000 sections of 768 dimensions.
func semantic(ctx context.Context, src SemanticSource, query string, limit int) ([]Posting, error) {
	q, sections, err := src.Embeddings(ctx, query)
	if err != nil || len(q) == 0 {
		return nil, err
	}
	return nearest(q, sections, limit), nil
}

// nearest scores every row by cosine to qv (both normalised) and returns
// the limit best above zero, best first: a min-heap of limit while
// scanning, rather than sorting every row.
func nearest(qv []float32, rows []Vector, limit int) []Posting {
	worse := func(a, b Posting) bool { return a.Score < b.Score || a.Score == b.Score && a.ID > b.ID }
	heap := make([]Posting, 0, limit)
	for _, r := range rows {
		if len(r.Vec) != len(qv) {
			continue // another model's length: not comparable
		}
		p := Posting{ID: r.ID, Score: dot(qv, r.Vec)}
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
	slices.SortFunc(heap, func(a, b Posting) int {
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
