package specdiff

import (
	"math/rand/v2"
	"testing"
)

// lcsLength is the textbook O(n·m) dynamic programme, the reference
// diffInts must agree with.
func lcsLength(a, b []int32) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			default:
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkScript asserts that the flags describe a valid edit script (what
// is kept of a equals what is kept of b) of minimal length.
func checkScript(t *testing.T, a, b []int32, del, ins []bool) {
	t.Helper()
	var keptA, keptB []int32
	for i, x := range a {
		if !del[i] {
			keptA = append(keptA, x)
		}
	}
	for j, y := range b {
		if !ins[j] {
			keptB = append(keptB, y)
		}
	}
	if len(keptA) != len(keptB) {
		t.Fatalf("a=%v b=%v: kept %v and %v", a, b, keptA, keptB)
	}
	for k := range keptA {
		if keptA[k] != keptB[k] {
			t.Fatalf("a=%v b=%v: kept %v and %v", a, b, keptA, keptB)
		}
	}
	if want := lcsLength(a, b); len(keptA) != want {
		t.Fatalf("a=%v b=%v: kept %d in common, the LCS has %d", a, b, len(keptA), want)
	}
}

func TestDiffInts(t *testing.T) {
	tests := []struct {
		name string
		a, b []int32
	}{
		{"both empty", nil, nil},
		{"all inserted", nil, []int32{1, 2, 3}},
		{"all deleted", []int32{1, 2, 3}, nil},
		{"equal", []int32{1, 2, 3}, []int32{1, 2, 3}},
		{"one replaced", []int32{1, 2, 3}, []int32{1, 9, 3}},
		{"disjoint", []int32{1, 2, 3, 4}, []int32{5, 6, 7}},
		{"Myers' example", []int32{'a', 'b', 'c', 'a', 'b', 'b', 'a'}, []int32{'c', 'b', 'a', 'b', 'a', 'c'}},
		{"repeats", []int32{1, 1, 1, 2, 1, 1}, []int32{1, 2, 1, 1, 1, 1, 2}},
		{"moved block", []int32{1, 2, 3, 4, 5, 6}, []int32{4, 5, 6, 1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			del, ins := diffInts(tt.a, tt.b)
			checkScript(t, tt.a, tt.b, del, ins)
		})
	}
}

// Random sequences over small alphabets, where many alignments tie: the
// script is always valid and minimal.
func TestDiffIntsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		alphabet := int32(1 + rng.IntN(5))
		gen := func() []int32 {
			s := make([]int32, rng.IntN(40))
			for i := range s {
				s[i] = rng.Int32N(alphabet)
			}
			return s
		}
		a, b := gen(), gen()
		del, ins := diffInts(a, b)
		checkScript(t, a, b, del, ins)
	}
}

func TestTrimCommon(t *testing.T) {
	tests := []struct {
		a, b           []int32
		prefix, suffix int
	}{
		{nil, nil, 0, 0},
		{[]int32{1, 2, 3}, []int32{1, 2, 3}, 3, 0},
		{[]int32{1, 2, 3}, []int32{1, 9, 3}, 1, 1},
		{[]int32{1, 1}, []int32{1}, 1, 0}, // the suffix never overlaps the prefix
		{[]int32{5, 1, 2}, []int32{1, 2}, 0, 2},
	}
	for _, tt := range tests {
		p, s := trimCommon(tt.a, tt.b)
		if p != tt.prefix || s != tt.suffix {
			t.Errorf("trimCommon(%v, %v) = %d, %d; want %d, %d", tt.a, tt.b, p, s, tt.prefix, tt.suffix)
		}
	}
}
