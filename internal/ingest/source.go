package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/langspec/langspec/fixtures"
	"github.com/langspec/langspec/internal/apperr"
)

// SourceKind says where a document is read from.
type SourceKind string

const (
	FromFile     SourceKind = "file"
	FromURL      SourceKind = "url"
	FromGoroot   SourceKind = "goroot"   // the spec shipped with the local Go toolchain
	FromEmbedded SourceKind = "embedded" // the snapshot compiled into langspec
)

// Source is one place to read a document from.
type Source struct {
	Kind     SourceKind
	Location string // file path or URL; for FromEmbedded, the name inside the binary
}

// MaxSourceBytes bounds what is read from a file or URL: the Go spec is about
// 300 KB, so anything near this is not a specification.
const MaxSourceBytes = 32 << 20

// ResolveGoSource picks the source for `langspec ingest go [arg]`: arg when
// given (a URL when it has an http(s) scheme, otherwise a file), else the spec
// in the Go toolchain at goroot when it exists, else the embedded snapshot.
func ResolveGoSource(arg, goroot string) Source {
	switch {
	case strings.HasPrefix(arg, "http://"), strings.HasPrefix(arg, "https://"):
		return Source{Kind: FromURL, Location: arg}
	case arg != "":
		return Source{Kind: FromFile, Location: arg}
	}
	if goroot != "" {
		p := filepath.Join(goroot, "doc", "go_spec.html")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return Source{Kind: FromGoroot, Location: p}
		}
	}
	return EmbeddedGoSpec()
}

// EmbeddedGoSpec is the snapshot compiled into the binary.
func EmbeddedGoSpec() Source { return Source{Kind: FromEmbedded, Location: fixtures.GoSpecPath} }

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

// Read returns the source's bytes; a nil client means NewHTTPClient. Errors: apperr.Unavailable when it cannot
// be read, apperr.InvalidArgument when it is larger than MaxSourceBytes.
func (s Source) Read(ctx context.Context, client *http.Client) ([]byte, error) {
	switch s.Kind {
	case FromEmbedded:
		return fixtures.GoSpec.ReadFile(s.Location)
	case FromURL:
		return fetch(ctx, client, s.Location)
	default:
		return readFile(s.Location)
	}
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		hint := "check the path"
		if errors.Is(err, os.ErrNotExist) {
			hint = "check the path; with no path, langspec uses the spec in your Go toolchain or its built-in copy"
		}
		return nil, apperr.Wrap(err, apperr.Unavailable, hint, "cannot read %s", path)
	}
	defer f.Close()
	return readLimited(f, path)
}

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

func (s Source) String() string {
	if s.Kind == FromEmbedded {
		return "built-in snapshot"
	}
	return fmt.Sprintf("%s %s", s.Kind, s.Location)
}
