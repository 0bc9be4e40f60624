package find

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/langspec/langspec/internal/progress"
)

type refreshReporter struct{ expected, done int }

func (r *refreshReporter) Expect(n int)         { r.expected += n }
func (r *refreshReporter) Done(n int, _ string) { r.done += n }

// TestRefreshReportsProgress: a refresh inside a call reports one unit per
// file it reads, and nothing when the folder has not changed.
func TestRefreshReportsProgress(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.md", "b.md", "sub/c.md"} {
		p := filepath.Join(dir, "m", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# "+name+"\n\ntext\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	x := newFinder(t, dir).Index
	for _, tc := range []struct {
		name string
		want int
	}{{"first index", 3}, {"unchanged", 0}} {
		r := &refreshReporter{}
		if _, err := x.Refresh(progress.NewContext(context.Background(), r), "m"); err != nil {
			t.Fatal(err)
		}
		if r.expected != tc.want || r.done != tc.want {
			t.Errorf("%s: expected %d, done %d; want %d", tc.name, r.expected, r.done, tc.want)
		}
	}
}
