package ingest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// A local folder is listed whole (every subfolder: the predecessor missed
// nested files), and nothing outside it can be read or listed through it.
func TestDirReader(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	for _, f := range []string{"b.md", "a/z.md", "a/deeper/y.MD", "notes.txt"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte("# "+f), 0o644)
	}
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# secret"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	r, err := openDirReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	got, err := r.List(ctx, ".md")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a/deeper/y.MD", "a/z.md", "b.md"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	p, err := r.Read(ctx, "a/z.md#section")
	if err != nil || string(p.Body) != "# a/z.md" || p.Rel != "a/z.md" {
		t.Errorf("Read = %+v, %v", p, err)
	}
	for _, bad := range []string{"../" + filepath.Base(outside) + "/secret.md", "link.md", "/etc/passwd"} {
		if _, err := r.Read(ctx, bad); apperr.CodeOf(err) != apperr.Unavailable {
			t.Errorf("Read(%q) escaped the folder: %v", bad, err)
		}
	}
}
