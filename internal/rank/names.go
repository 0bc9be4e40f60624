package rank

import (
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/text/tokenize"
)

// Name is a section's name as stored, for Nearest: its id and title, and
// the label a suggestion shows for it.
type Name struct {
	ID, Title, Label string
}

// Nearest returns the labels of the names nearest to name, best first, each
// once, at most n: how close each one's id, or the key of its title
// (TitleKey), is to name — edit distance on lower-cased ids and on title
// keys, where containing one another counts as the difference in length.
// Names that share too few letters with name are left out. A section not
// found by its id is suggested so (internal/db's Section).
func Nearest(names []Name, name string, n int) []string {
	type cand struct {
		label string
		dist  int
	}
	want := strings.ToLower(strings.ReplaceAll(name, " ", "_"))
	wantKey := TitleKey(name)
	closeness := func(a, b string) (int, bool) {
		dist := tokenize.EditDistance(a, b)
		if strings.Contains(b, a) || strings.Contains(a, b) {
			// "slice" for Slice_expressions: as close as the letters it lacks.
			dist = min(dist, max(len(b)-len(a), len(a)-len(b)))
		}
		// Suggest only names that share most of their letters with the request.
		return dist, dist <= max(2, len([]rune(a))/2)
	}
	var cands []cand
	for _, s := range names {
		best, ok := closeness(want, strings.ToLower(s.ID))
		if wantKey != "" {
			if d, k := closeness(wantKey, TitleKey(s.Title)); k && (!ok || d < best) {
				best, ok = d, true
			}
		}
		if ok {
			cands = append(cands, cand{s.Label, best})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.label, b.label)
	})
	var out []string
	for _, c := range cands {
		if len(out) == n {
			break
		}
		if !slices.Contains(out, c.label) {
			out = append(out, c.label)
		}
	}
	return out
}
