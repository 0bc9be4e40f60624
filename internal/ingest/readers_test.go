package ingest

import (
	"context"
	"io/fs"
	"os"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
)

// Page readers the kinds' tests share.

// fsReader reads a document's pages from a file system: a fixture folder
// (os.DirFS) or pages written in the test (fstest.MapFS).
type fsReader struct{ fsys fs.FS }

func newFSReader(dir string) fsReader { return fsReader{os.DirFS(dir)} }

func (d fsReader) Read(ctx context.Context, rel string) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	rel, _, _ = strings.Cut(rel, "#")
	b, err := fs.ReadFile(d.fsys, rel)
	if err != nil {
		return Page{}, apperr.Wrap(err, apperr.Unavailable, "check the path", "cannot read %s", rel)
	}
	return Page{Location: rel, Rel: rel, Body: b}, nil
}

// memPages is an in-memory document: rel → content.
type memPages map[string]string

func (m memPages) Read(ctx context.Context, rel string) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	rel, _, _ = strings.Cut(rel, "#")
	body, ok := m[rel]
	if !ok {
		return Page{}, apperr.New(apperr.Unavailable, "", "no page %q", rel)
	}
	return Page{Location: "mem:" + rel, Rel: rel, Body: []byte(body)}, nil
}
