package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// A page is read whole whatever size it is said to have (a file that grew
// since it was looked at, a reader of unknown length), and one over
// MaxSourceBytes is refused however it is read: from a folder, with its size
// known, or through a reader that does not say.
func TestReadLimited(t *testing.T) {
	page := bytes.Repeat([]byte("# A heading\n\nsome text\n"), 40000) // 920 KB
	over := make([]byte, MaxSourceBytes+1)
	for _, tc := range []struct {
		name string
		body []byte
		size int64
		want []byte // nil: refused as too large
	}{
		{name: "size known", body: page, size: int64(len(page)), want: page},
		{name: "size unknown", body: page, size: -1, want: page},
		{name: "grew since its size was read", body: page, size: 100, want: page},
		{name: "shrank since its size was read", body: page[:10], size: int64(len(page)), want: page[:10]},
		{name: "empty", body: nil, size: 0, want: []byte{}},
		{name: "over the limit, size known", body: over, size: int64(len(over))},
		{name: "over the limit, size unknown", body: over, size: -1},
		{name: "over the limit, said to be small", body: over, size: 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readLimited(bytes.NewReader(tc.body), "page.md", tc.size)
			if tc.want == nil {
				if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), "larger than 32 MiB") {
					t.Fatalf("err = %v, want an invalid argument naming the limit", err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(tc.want))
			}
		})
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "huge.md"), over, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := openDirReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Read(t.Context(), "huge.md"); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("a file over the limit from a folder: err = %v, want an invalid argument", err)
	}
}
