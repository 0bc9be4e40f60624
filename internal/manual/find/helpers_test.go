package find

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/manual"
)

// fixturesDir is the repository's sample manuals, and goldDir the gold sets
// written over them.
const (
	fixturesDir = "../../../fixtures/manuals"
	goldDir     = "../../../fixtures/gold"
)

// copyTree copies the folder src into dst (created), so a test can change
// files without touching the fixtures.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
	// step is added after every reading, to make a budget run out.
	step time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now
	c.now = c.now.Add(c.step)
	return t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// newFinder opens a store in a temp folder and a Finder over the manuals in
// dir, with the synonym dictionary at dir/synonyms.json.
func newFinder(t testing.TB, dir string) *Finder {
	t.Helper()
	store, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	lib, err := manual.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return &Finder{Index: NewIndex(store, lib, nil), Synonyms: NewSynonymFile(filepath.Join(dir, "synonyms.json"))}
}
