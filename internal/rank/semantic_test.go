package rank

import (
	"math"
	"math/rand/v2"
	"testing"
)

// unit is v normalised.
func unit(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(sum))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * inv
	}
	return out
}

// BenchmarkNearest is the brute-force scan the semantic channel runs per
// query: 100,000 sections of 768 dimensions (the bound for brute
// force).
//
//	go test ./internal/rank -run '^$' -bench Nearest
func BenchmarkNearest(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([]Vector, 100_000)
	for i := range rows {
		v := make([]float32, 768)
		for j := range v {
			v[j] = r.Float32() - 0.5
		}
		rows[i] = Vector{ID: int64(i + 1), Vec: unit(v)}
	}
	q := rows[42].Vec
	for b.Loop() {
		if got := nearest(q, rows, 50); got[0].ID != 43 {
			b.Fatalf("nearest = %d", got[0].ID)
		}
	}
}

// TestNearestByCosine: the best limit rows by cosine above zero, best first, ties
// by row id, rows of another length left out.
func TestNearestByCosine(t *testing.T) {
	rows := []Vector{
		{ID: 5, Vec: unit([]float32{1, 0})},
		{ID: 2, Vec: unit([]float32{1, 1})},
		{ID: 9, Vec: unit([]float32{-1, 0})},     // opposite: left out
		{ID: 3, Vec: unit([]float32{1, 1})},      // ties with 2
		{ID: 7, Vec: unit([]float32{1, 0.5, 0})}, // another model's length
	}
	got := nearest(unit([]float32{1, 0.2}), rows, 3)
	var ids []int64
	for _, p := range got {
		ids = append(ids, p.ID)
	}
	if len(ids) != 3 || ids[0] != 5 || ids[1] != 2 || ids[2] != 3 {
		t.Errorf("nearest = %v, want [5 2 3]", ids)
	}
}
