package ingest

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
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

func readLimited(r io.Reader, name string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSourceBytes+1))
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "try again", "cannot read %s", name)
	}
	if len(b) > MaxSourceBytes {
		return nil, apperr.New(apperr.InvalidArgument, "pass the specification itself",
			"%s is larger than %d MiB", name, MaxSourceBytes>>20)
	}
	return b, nil
}

// userAgent says who is asking, as polite crawlers do.
const userAgent = "langspec (+https://github.com/langspec/langspec)"

// HTTPGetter fetches with a plain net/http client. Until the robust
// fetcher is in, it is the Getter the CLI uses.
type HTTPGetter struct{ Client *http.Client }

// Get fetches url once. Errors: apperr.Unavailable, apperr.InvalidArgument
// when the body is over MaxSourceBytes.
func (g HTTPGetter) Get(ctx context.Context, url string) ([]byte, bool, error) {
	b, err := fetch(ctx, g.Client, url)
	return b, false, err
}

func fetch(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, "", "bad URL %q", url)
	}
	req.Header.Set("User-Agent", userAgent)
	if client == nil {
		client = NewHTTPClient()
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "check the network, or pass a local file",
			"cannot fetch %s", url)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, apperr.New(apperr.Unavailable, "check the URL, or pass a local file",
			"fetch %s: %s", url, resp.Status)
	}
	return readLimited(resp.Body, url)
}

// NewHTTPClient is the client ingest uses: bounded in time, so a stalled
// server cannot hang an ingest.
func NewHTTPClient() *http.Client { return &http.Client{Timeout: 60 * time.Second} }
