package ingest

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/ingest/fetch"
)

// Goroot asks the go command for GOROOT, as `go env GOROOT` would answer; ""
// when there is no go command (a release binary on a machine without Go).
func Goroot(ctx context.Context) string {
	if g := os.Getenv("GOROOT"); g != "" {
		return g
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// MaxSourceBytes bounds what is read from one file or page: the largest
// specification page (the Rust Reference's print.html) is under 5 MB.
const MaxSourceBytes = 32 << 20

// readLimited reads r whole, refusing more than MaxSourceBytes. size is
// how many bytes r holds when that is known (a file's size), else -1: the
// buffer is then made that big at once, where io.ReadAll grows one as it
// fills, through 28 allocations and 2.5 times the size of an 800 KB page.
func readLimited(r io.Reader, name string, size int64) ([]byte, error) {
	var buf bytes.Buffer
	if size >= 0 && size <= MaxSourceBytes {
		// ReadFrom wants MinRead bytes free before each read, the last one
		// (which finds the end) too.
		buf.Grow(int(size) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(io.LimitReader(r, MaxSourceBytes+1))
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "try again", "cannot read %s", name)
	}
	b := buf.Bytes()
	if len(b) > MaxSourceBytes {
		return nil, apperr.New(apperr.InvalidArgument, "pass the specification itself",
			"%s is larger than %d MiB", name, MaxSourceBytes>>20)
	}
	return b, nil
}

// FetchGetter adapts the robust fetcher (retries, per-host limits, the
// on-disk HTTP cache) to Getter.
type FetchGetter struct{ Client *fetch.Client }

// Get fetches url; fromCache reports a 304 answered from the HTTP cache.
func (g FetchGetter) Get(ctx context.Context, url string) ([]byte, bool, error) {
	res, err := g.Client.Get(ctx, url)
	return res.Body, res.FromCache, err
}
