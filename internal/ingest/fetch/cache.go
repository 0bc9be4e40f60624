package fetch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
)

// cacheMagic starts every cache file, so a format change can tell old files
// from new ones, and stray files are not mistaken for entries.
const cacheMagic = "langspec-fetch-cache 1\n"

// cache keeps, per request URL, the last body with its validators, in one
// file named by the URL's SHA-256: the magic line, one JSON line of
// metadata, then the body. The metadata records the body's size and hash,
// so a file cut short or altered is detected and ignored, never returned.
type cache struct {
	dir      string // "" disables the cache
	maxBytes int64
}

// entry is one cached response.
type entry struct {
	URL          string `json:"url"`
	FinalURL     string `json:"final_url"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	Size         int64  `json:"size"`
	SHA256       string `json:"sha256"`
	Body         []byte `json:"-"`
}

func (c cache) path(rawURL string) string {
	sum := sha256.Sum256([]byte(rawURL))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:]))
}

// load returns the entry for rawURL, or nil when there is none or it is
// unusable; the Get then fetches unconditionally and rewrites it.
func (c cache) load(rawURL string, log *slog.Logger) *entry {
	if c.dir == "" {
		return nil
	}
	file := c.path(rawURL)
	data, err := os.ReadFile(file)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("fetch cache: cannot read entry", "url", rawURL, "file", file, "err", err)
		}
		return nil
	}
	e, err := decodeEntry(data, rawURL, c.maxBytes)
	if err != nil {
		log.Warn("fetch cache: ignoring entry", "url", rawURL, "file", file, "err", err)
		return nil
	}
	return e
}

func decodeEntry(data []byte, rawURL string, maxBytes int64) (*entry, error) {
	rest, ok := bytes.CutPrefix(data, []byte(cacheMagic))
	if !ok {
		return nil, errors.New("not a cache file")
	}
	meta, body, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return nil, errors.New("no metadata line")
	}
	var e entry
	if err := json.Unmarshal(meta, &e); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	sum := sha256.Sum256(body)
	switch {
	case e.URL != rawURL:
		return nil, fmt.Errorf("entry is for %q", e.URL)
	case e.ETag == "" && e.LastModified == "":
		return nil, errors.New("no validators")
	case int64(len(body)) != e.Size:
		return nil, fmt.Errorf("body is %d bytes, metadata says %d", len(body), e.Size)
	case e.Size > maxBytes:
		return nil, fmt.Errorf("body is over the %d-byte limit", maxBytes)
	case hex.EncodeToString(sum[:]) != e.SHA256:
		return nil, errors.New("body does not match its hash")
	}
	e.Body = body
	return &e, nil
}

// update records a 2xx response for rawURL. A response without validators
// cannot be revalidated, so any older entry goes instead. Failures are only
// logged: the page itself was fetched, and the cache only saves a later
// download.
func (c cache) update(rawURL, finalURL string, h http.Header, body []byte, log *slog.Logger) {
	if c.dir == "" {
		return
	}
	e := entry{URL: rawURL, FinalURL: finalURL, ETag: h.Get("ETag"), LastModified: h.Get("Last-Modified"), Body: body}
	if e.ETag == "" && e.LastModified == "" {
		if err := os.Remove(c.path(rawURL)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			log.Warn("fetch cache: cannot remove stale entry", "url", rawURL, "err", err)
		}
		return
	}
	if err := c.store(&e); err != nil {
		log.Warn("fetch cache: cannot write entry", "url", rawURL, "err", err)
	}
}

// store writes e through a temporary file and a rename, so a reader (or a
// crash) sees the old entry or the new one, never half of one.
func (c cache) store(e *entry) (err error) {
	sum := sha256.Sum256(e.Body)
	e.Size, e.SHA256 = int64(len(e.Body)), hex.EncodeToString(sum[:])
	meta, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	final := c.path(e.URL)
	tmp, err := os.CreateTemp(c.dir, "."+filepath.Base(final)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	for _, b := range [][]byte{[]byte(cacheMagic), meta, []byte("\n"), e.Body} {
		if _, err := tmp.Write(b); err != nil {
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), final)
}
