package specdiff

import "math"

// diffInts finds a shortest edit script turning a into b and reports it as
// flags: deleted[i] for each element of a it removes, inserted[j] for each
// element of b it adds; the unflagged elements of a and b, in order, are the
// longest common subsequence.
//
// It is Myers' O(ND) algorithm in its linear-space form, splitting each
// problem at the middle of an optimal path and solving both halves (as GNU
// diff's diffseq.h does, without its speed heuristics, so the script is
// always minimal): time O((N+M)·D) for D differences, memory O(N+M). Callers
// bound N and M (Options), which bounds D.
func diffInts(a, b []int32) (deleted, inserted []bool) {
	n, m := len(a), len(b)
	d := &myers{
		a: a, b: b,
		deleted: make([]bool, n), inserted: make([]bool, m),
		// Diagonals k = x−y run from −m−1 to n+1, counting the sentinels
		// either side of the range a search step may reach.
		fwd: make([]int, n+m+3), bwd: make([]int, n+m+3), off: m + 1,
	}
	d.compare(0, n, 0, m)
	return d.deleted, d.inserted
}

type myers struct {
	a, b              []int32
	deleted, inserted []bool
	// fwd and bwd hold, per diagonal (index k+off), the furthest x the
	// forward and the backward search have reached on it.
	fwd, bwd []int
	off      int
}

// compare flags the differences between a[xlo:xhi] and b[ylo:yhi].
func (d *myers) compare(xlo, xhi, ylo, yhi int) {
	for xlo < xhi && ylo < yhi && d.a[xlo] == d.b[ylo] {
		xlo, ylo = xlo+1, ylo+1
	}
	for xlo < xhi && ylo < yhi && d.a[xhi-1] == d.b[yhi-1] {
		xhi, yhi = xhi-1, yhi-1
	}
	switch {
	case xlo == xhi:
		for y := ylo; y < yhi; y++ {
			d.inserted[y] = true
		}
	case ylo == yhi:
		for x := xlo; x < xhi; x++ {
			d.deleted[x] = true
		}
	default:
		// With common ends trimmed, a one-element difference leaves one
		// side empty, so here D ≥ 2 and both halves are strictly smaller.
		x, y := d.middle(xlo, xhi, ylo, yhi)
		d.compare(xlo, x, ylo, y)
		d.compare(x, xhi, y, yhi)
	}
}

// middle runs the forward search from (xlo, ylo) and the backward search
// from (xhi, yhi) one edit at a time until they meet, and returns the point
// where they do: it lies on a shortest path.
func (d *myers) middle(xlo, xhi, ylo, yhi int) (int, int) {
	fwd, bwd, off := d.fwd, d.bwd, d.off
	kmin, kmax := xlo-yhi, xhi-ylo // the diagonals inside the box
	fmid, bmid := xlo-ylo, xhi-yhi // where each search starts
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	odd := (fmid-bmid)&1 != 0
	fwd[off+fmid] = xlo
	bwd[off+bmid] = xhi
	for {
		// One more edit widens the forward search by a diagonal each
		// side, until it reaches the box's corners; beyond its range
		// stand sentinels that lose every comparison.
		if fmin > kmin {
			fmin--
			fwd[off+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < kmax {
			fmax++
			fwd[off+fmax+1] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			lo, hi := fwd[off+k-1], fwd[off+k+1]
			x := lo + 1
			if lo < hi {
				x = hi
			}
			y := x - k
			for x < xhi && y < yhi && d.a[x] == d.b[y] {
				x, y = x+1, y+1
			}
			fwd[off+k] = x
			if odd && bmin <= k && k <= bmax && bwd[off+k] <= x {
				return x, y
			}
		}
		if bmin > kmin {
			bmin--
			bwd[off+bmin-1] = math.MaxInt
		} else {
			bmin++
		}
		if bmax < kmax {
			bmax++
			bwd[off+bmax+1] = math.MaxInt
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			lo, hi := bwd[off+k-1], bwd[off+k+1]
			x := hi - 1
			if lo < hi {
				x = lo
			}
			y := x - k
			for xlo < x && ylo < y && d.a[x-1] == d.b[y-1] {
				x, y = x-1, y-1
			}
			bwd[off+k] = x
			if !odd && fmin <= k && k <= fmax && x <= fwd[off+k] {
				return x, y
			}
		}
	}
}

// span is a run of a diff: unchanged elements, a[o0:o1] equal to b[n0:n1],
// or a change that removes a[o0:o1] and adds b[n0:n1].
type span struct {
	equal          bool
	o0, o1, n0, n1 int
}

// spans turns diffInts' flags into runs that alternate between unchanged
// elements and changes; a change holds everything removed and added between
// two unchanged elements, whatever order the script took them in.
func spans(deleted, inserted []bool) []span {
	var out []span
	i, j := 0, 0
	for i < len(deleted) || j < len(inserted) {
		if i < len(deleted) && j < len(inserted) && !deleted[i] && !inserted[j] {
			if k := len(out) - 1; k >= 0 && out[k].equal {
				out[k].o1, out[k].n1 = i+1, j+1
			} else {
				out = append(out, span{true, i, i + 1, j, j + 1})
			}
			i, j = i+1, j+1
			continue
		}
		i0, j0 := i, j
		for (i < len(deleted) && deleted[i]) || (j < len(inserted) && inserted[j]) {
			for i < len(deleted) && deleted[i] {
				i++
			}
			for j < len(inserted) && inserted[j] {
				j++
			}
		}
		out = append(out, span{false, i0, i, j0, j})
	}
	return out
}

// trimCommon is the length of the common prefix of a and b, and of the
// common suffix of what remains: the cheap part of a diff, done before
// deciding whether the rest is small enough to diff.
func trimCommon(a, b []int32) (prefix, suffix int) {
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

// interner numbers strings, so that diffs compare ints.
type interner map[string]int32

func (in interner) id(s string) int32 {
	if id, ok := in[s]; ok {
		return id
	}
	id := int32(len(in))
	in[s] = id
	return id
}
