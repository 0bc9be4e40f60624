package ingest

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/langspec/langspec/fixtures"
	"github.com/langspec/langspec/internal/apperr"
)

// Getter fetches a URL; internal/fetch's client is the real one.
type Getter interface {
	Get(ctx context.Context, url string) (body []byte, fromCache bool, err error)
}

// PageStats counts what a reader did, for the ingest summary.
type PageStats struct {
	Read    int // local files
	Fetched int // downloaded
	Cached  int // answered 304 from the HTTP cache
	Failed  int
}

// dirReader reads pages below a local folder. Reads go through os.Root, so a
// link in a document ("../../etc/passwd") cannot leave the folder.
type dirReader struct {
	root *os.Root
	dir  string
}

func openDirReader(dir string) (*dirReader, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "check the path", "cannot open folder %s", dir)
	}
	return &dirReader{root: root, dir: dir}, nil
}

func (d *dirReader) Read(ctx context.Context, rel string) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	rel = stripFragment(rel)
	f, err := d.root.Open(rel)
	if err != nil {
		return Page{}, apperr.Wrap(err, apperr.Unavailable, "check the folder", "cannot read %s in %s", rel, d.dir)
	}
	defer f.Close()
	size := int64(-1)
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
		size = info.Size()
	}
	body, err := readLimited(f, rel, size)
	if err != nil {
		return Page{}, err
	}
	return Page{Location: d.dir + string(os.PathSeparator) + rel, Rel: rel, Body: body}, nil
}

func (d *dirReader) Close() error { return d.root.Close() }

// List returns every file below the folder whose name ends in ext, in every
// subfolder, sorted. Symbolic links are left out; reads refuse any that
// leave the folder anyway (os.Root).
func (d *dirReader) List(ctx context.Context, ext string) ([]string, error) {
	var out []string
	err := fs.WalkDir(d.root.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		// Only regular files: a link may point out of the folder, and
		// reading it would fail the page.
		if e.Type().IsRegular() && strings.HasSuffix(strings.ToLower(p), ext) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "check the folder", "cannot list %s", d.dir)
	}
	slices.Sort(out)
	return out, nil
}

// urlReader reads pages below a base URL (a folder URL ending in "/").
type urlReader struct {
	base   *url.URL
	getter Getter
	stats  *PageStats
}

func newURLReader(base string, g Getter, stats *PageStats) (*urlReader, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, apperr.New(apperr.InvalidArgument, "use an http(s) URL", "bad URL %q", base)
	}
	return &urlReader{base: u, getter: g, stats: stats}, nil
}

func (r *urlReader) Read(ctx context.Context, rel string) (Page, error) {
	ref, err := url.Parse(stripFragment(rel))
	if err != nil {
		return Page{}, apperr.Wrap(err, apperr.InvalidArgument, "", "bad page path %q", rel)
	}
	u := r.base.ResolveReference(ref)
	body, cached, err := r.getter.Get(ctx, u.String())
	if err != nil {
		return Page{}, err
	}
	if cached {
		r.stats.Cached++
	} else {
		r.stats.Fetched++
	}
	return Page{Location: u.String(), Rel: stripFragment(rel), Body: body}, nil
}

// embeddedReader reads the documents compiled into the binary.
type embeddedReader struct{ dir string }

func (e embeddedReader) Read(ctx context.Context, rel string) (Page, error) {
	name := path.Join(e.dir, stripFragment(rel))
	body, err := fs.ReadFile(fixtures.GoSpec, name)
	if err != nil {
		return Page{}, apperr.Wrap(err, apperr.NotFound, "", "no built-in page %s", name)
	}
	return Page{Location: "embedded:" + name, Rel: stripFragment(rel), Body: body}, nil
}

func stripFragment(rel string) string {
	if i := strings.IndexByte(rel, '#'); i >= 0 {
		rel = rel[:i]
	}
	return rel
}

// countingReader counts pages and failures, hashes what was read (the
// content hash of a multi-page document), and reports progress.
type countingReader struct {
	inner    PageReader
	stats    *PageStats
	local    bool
	entry    string // the entry page's rel: hashed without its name
	hash     io.Writer
	progress func(rel string, failed bool)
}

func (c *countingReader) Read(ctx context.Context, rel string) (Page, error) {
	p, err := c.inner.Read(ctx, rel)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			c.stats.Failed++
		}
		if c.progress != nil {
			c.progress(rel, true)
		}
		return p, err
	}
	if c.local {
		c.stats.Read++
	}
	// A chapter's name goes into the hash too: the same bytes moved to
	// another chapter are a different document. The entry's name does not,
	// so one page read from a file, a URL or the built-in copy hashes the same.
	name := p.Rel
	if stripFragment(rel) == c.entry {
		name = ""
	}
	io.WriteString(c.hash, name+"\x00")
	c.hash.Write(p.Body)
	if c.progress != nil {
		c.progress(rel, false)
	}
	return p, nil
}

// List lists through the inner reader when it can list.
func (c *countingReader) List(ctx context.Context, ext string) ([]string, error) {
	if l, ok := c.inner.(Lister); ok {
		return l.List(ctx, ext)
	}
	return nil, apperr.New(apperr.InvalidArgument, "list the files in the source's \"files\"",
		"a web location cannot be listed")
}
