package find

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTracesBounded: traces are kept in memory, so they must not grow
// without end — the oldest go first past either bound, and the newest is
// always kept.
func TestTracesBounded(t *testing.T) {
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	later := now.Add(time.Hour)
	for _, tc := range []struct {
		name            string
		maxBytes, count int
		puts            int
		size            int
		wantKept        []int // indexes of the puts still there
	}{
		{"count", 1 << 20, 3, 5, 10, []int{2, 3, 4}},
		{"bytes", 250, 100, 5, 100, []int{3, 4}},
		{"one larger than the bound is still kept", 10, 100, 2, 100, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTraces(tc.maxBytes, tc.count)
			for i := range tc.puts {
				tr.put(fmt.Sprint(i), []byte(strings.Repeat("x", tc.size)), now, later)
			}
			for i := range tc.puts {
				_, err := tr.get(fmt.Sprint(i), now)
				kept := err == nil
				want := false
				for _, k := range tc.wantKept {
					want = want || k == i
				}
				if kept != want {
					t.Errorf("trace %d kept %v, want %v (%v)", i, kept, want, err)
				}
				if err != nil && !errors.Is(err, errNoTrace) {
					t.Errorf("trace %d: %v, want errNoTrace (its search runs again)", i, err)
				}
			}
		})
	}
}

func TestTracesExpire(t *testing.T) {
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	tr := NewTraces(0, 0)
	tr.put("old", []byte("{}"), now, now.Add(time.Minute))
	if _, err := tr.get("old", now.Add(time.Minute)); !errors.Is(err, errNoTrace) {
		t.Errorf("an expired trace: %v", err)
	}
	// The next put drops it.
	tr.put("new", []byte("{}"), now.Add(2*time.Minute), now.Add(time.Hour))
	if _, ok := tr.byID["old"]; ok {
		t.Error("an expired trace outlived the next put")
	}
}
