package teamauth

import (
	"fmt"
	"testing"
	"time"
)

// TestRefreshGate runs the gate on a clock of its own: which claims lead a
// fetch, which share one a key id made within its window, which the limit
// across key ids refuses.
func TestRefreshGate(t *testing.T) {
	type step struct {
		after time.Duration // on the clock, since the step before
		kid   string
		want  string // "fetch", "share" or "refused"
	}
	// junkThenReal is the attack: a new made-up key id every 2 s, n times,
	// then the key id of a key the issuer just rotated in.
	junkThenReal := func(n int) []step {
		var steps []step
		for i := range n {
			steps = append(steps, step{2 * time.Second, fmt.Sprintf("junk-%d", i), "fetch"})
		}
		return append(steps, step{0, "rotated", "fetch"}, step{time.Millisecond, "rotated", "share"})
	}
	flood := func(n int) []step {
		var steps []step
		for i := range n {
			want := "refused"
			if i < unknownKeyBurst {
				want = "fetch"
			}
			steps = append(steps, step{0, fmt.Sprintf("junk-%d", i), want})
		}
		return append(steps, step{0, "rotated", "refused"}, step{unknownKeyRefreshAll, "rotated", "fetch"})
	}
	for _, tc := range []struct {
		name          string
		window, every time.Duration
		max           int
		steps         []step
	}{
		{"one key id, once per window", 30 * time.Second, time.Second, 1024, []step{
			{0, "a", "fetch"}, {time.Second, "a", "share"}, {28 * time.Second, "a", "share"}, {time.Second, "a", "fetch"},
			{0, "a", "share"},
		}},
		{"the limit across key ids", 30 * time.Second, time.Second, 1024, []step{
			{0, "a", "fetch"}, {0, "b", "fetch"}, {0, "c", "fetch"}, {0, "d", "refused"}, {0, "a", "share"},
			// A refused key id is not remembered: it fetches once the limit allows.
			{time.Second, "d", "fetch"}, {0, "e", "refused"}, {time.Second, "e", "fetch"},
		}},
		{"the oldest key id forgotten first", 30 * time.Second, time.Millisecond, 2, []step{
			{0, "a", "fetch"}, {time.Second, "b", "fetch"}, {time.Second, "c", "fetch"}, {0, "b", "share"},
			{0, "a", "fetch"}, {0, "c", "share"}, {0, "b", "fetch"},
		}},
		{"junk every 2 s leaves room for a rotation", unknownKeyRefresh, unknownKeyRefreshAll, unknownKeyMemory, junkThenReal(500)},
		{"a flood of distinct key ids", unknownKeyRefresh, unknownKeyRefreshAll, unknownKeyMemory, flood(200)},
	} {
		g := newRefreshGate(tc.window, tc.every, unknownKeyBurst, tc.max)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i, s := range tc.steps {
			now = now.Add(s.after)
			f, lead := g.claim(s.kid, now)
			got := "refused"
			switch {
			case lead:
				got = "fetch"
				close(f.done)
			case f != nil:
				got = "share"
			}
			if got != s.want {
				t.Errorf("%s: step %d (%s after %v): %s, want %s", tc.name, i, s.kid, s.after, got, s.want)
			}
		}
		if n := g.order.Len(); n > tc.max || n != len(g.kids) {
			t.Errorf("%s: %d key ids listed, %d mapped, at most %d", tc.name, n, len(g.kids), tc.max)
		}
	}
}
