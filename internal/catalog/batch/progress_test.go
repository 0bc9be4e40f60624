package batch

import (
	"sync"
	"testing"

	"github.com/langspec/langspec/internal/progress"
)

// countingReporter adds up what Run reports.
type countingReporter struct {
	mu       sync.Mutex
	expected int
	done     []int
}

func (r *countingReporter) Expect(n int) { r.mu.Lock(); r.expected += n; r.mu.Unlock() }
func (r *countingReporter) Done(n int, _ string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n > 0 {
		r.done = append(r.done, n)
	}
}

// TestRunReportsProgress: one unit per task, whether it ran, failed or was
// skipped, so the count ends on the total.
func TestRunReportsProgress(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lines []string
		steps int // reports of tasks that ran, plus one for those that did not
	}{
		{"all run", []string{tl("a", ""), tl("b", ""), tl("c", `"after":"a"`)}, 3},
		{"a failure skips two", []string{tl("fail", ""), tl("b", `"after":"fail"`), tl("c", `"after":"b"`), tl("d", "")}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &countingReporter{}
			tasks := mustParse(t, tt.lines...)
			Run(progress.NewContext(t.Context(), r), tasks, scripted(map[string]any{}), Options{})
			sum := 0
			for _, n := range r.done {
				sum += n
			}
			if r.expected != len(tasks) || sum != len(tasks) || len(r.done) != tt.steps {
				t.Errorf("expected %d, done %v; want %d tasks in %d reports", r.expected, r.done, len(tasks), tt.steps)
			}
		})
	}
}
