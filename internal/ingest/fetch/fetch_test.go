package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"golang.org/x/time/rate"
)

// These tests talk to real httptest servers, so testing/synctest's fake
// time does not apply (a goroutine blocked on a socket is not durably
// blocked). Instead retry and rate-limit waits go through fakeClock, which
// records them and advances at once; only the stall timeouts run on real
// time, in hundreds of milliseconds.

// epoch is the fake clock's start, the reference for HTTP-date Retry-After.
var epoch = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// fakeClock is Options.Now and Options.Sleep: a sleep is recorded and moves
// the clock on, with no real waiting.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sleeps = append(f.sleeps, d)
	f.now = f.now.Add(d)
	return nil
}

func (f *fakeClock) Sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sleeps)
}

// testRate is generous enough that the limiter never waits unless a test
// means it to.
const testRate = 1000

// newTestClient builds a Client on a fake clock with jitter fixed at 1 (so
// a backoff is its ceiling), generous rate limits and timeouts, then lets
// edit change any of that.
func newTestClient(t *testing.T, edit func(*Options)) (*Client, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: epoch}
	opts := Options{
		ConnectTimeout: 5 * time.Second,
		HeaderTimeout:  5 * time.Second,
		ReadTimeout:    5 * time.Second,
		Rate:           testRate,
		Burst:          testRate,
		Sleep:          clock.Sleep,
		Now:            clock.Now,
		Rand:           func() float64 { return 1 },
	}
	if edit != nil {
		edit(&opts)
	}
	c := New(opts)
	t.Cleanup(c.Close)
	return c, clock
}

// scripted serves request i with steps[i], and the last step to any request
// after that. hits counts requests.
func scripted(t *testing.T, steps ...http.HandlerFunc) (srv *httptest.Server, hits *atomic.Int32) {
	t.Helper()
	hits = new(atomic.Int32)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(hits.Add(1)) - 1
		steps[min(i, len(steps)-1)](w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, hits
}

func ok(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }
}

func status(code int, retryAfter string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		http.Error(w, http.StatusText(code), code)
	}
}

// hijack takes the connection from net/http, after flushing what the
// handler wrote, and hands it to f.
func hijack(t *testing.T, w http.ResponseWriter, f func(net.Conn)) {
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	conn, _, err := rc.Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	f(conn)
}

// release returns a channel closed when the test ends, so a handler that
// stalls "forever" still returns.
func release(t *testing.T) chan struct{} {
	ch := make(chan struct{})
	t.Cleanup(func() { close(ch) })
	return ch
}

func hostOf(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	return strings.TrimPrefix(srv.URL, "http://")
}

func wantCode(t *testing.T, err error, code apperr.Code, substrings ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want %s", code)
	}
	if got := apperr.CodeOf(err); got != code {
		t.Errorf("code = %s, want %s (err: %v)", got, code, err)
	}
	for _, s := range substrings {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("err = %q, want it to mention %q", err, s)
		}
	}
}

// TestGetRetriesStatuses: retryable statuses are retried, waiting what
// Retry-After asks (seconds, or a date against Options.Now) or else the
// jittered backoff; a 429 lowers the host's rate even though the retry
// succeeds.
func TestGetRetriesStatuses(t *testing.T) {
	tests := []struct {
		name       string
		steps      []http.HandlerFunc
		rand       float64
		wantSleeps []time.Duration
		wantLimit  rate.Limit
	}{
		{
			name:       "429 Retry-After seconds",
			steps:      []http.HandlerFunc{status(429, "2")},
			rand:       1,
			wantSleeps: []time.Duration{2 * time.Second},
			wantLimit:  testRate / 2,
		},
		{
			name:       "429 Retry-After HTTP date",
			steps:      []http.HandlerFunc{status(429, epoch.Add(90*time.Second).Format(http.TimeFormat))},
			rand:       1,
			wantSleeps: []time.Duration{90 * time.Second},
			wantLimit:  testRate / 2,
		},
		{
			name:       "503 Retry-After date in the past",
			steps:      []http.HandlerFunc{status(503, epoch.Add(-time.Hour).Format(http.TimeFormat))},
			rand:       1,
			wantSleeps: []time.Duration{0},
			wantLimit:  testRate,
		},
		{
			name:       "unreadable Retry-After falls back to backoff",
			steps:      []http.HandlerFunc{status(503, "soon")},
			rand:       1,
			wantSleeps: []time.Duration{500 * time.Millisecond},
			wantLimit:  testRate,
		},
		{
			name:       "500 then 503, jitter at its top",
			steps:      []http.HandlerFunc{status(500, ""), status(503, "")},
			rand:       1,
			wantSleeps: []time.Duration{500 * time.Millisecond, time.Second},
			wantLimit:  testRate,
		},
		{
			name:       "500 then 503, jitter at its bottom",
			steps:      []http.HandlerFunc{status(500, ""), status(503, "")},
			rand:       0,
			wantSleeps: []time.Duration{0, 0},
			wantLimit:  testRate,
		},
		{
			name:       "502, 504, 500, jitter halfway",
			steps:      []http.HandlerFunc{status(502, ""), status(504, ""), status(500, "")},
			rand:       0.5,
			wantSleeps: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second},
			wantLimit:  testRate,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hits := scripted(t, append(tt.steps, ok("page"))...)
			c, clock := newTestClient(t, func(o *Options) { o.Rand = func() float64 { return tt.rand } })

			res, err := c.Get(t.Context(), srv.URL)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			wantAttempts := len(tt.steps) + 1
			if string(res.Body) != "page" || res.Attempts != wantAttempts || res.Status != 200 || res.FromCache {
				t.Errorf("Result = %+v, want body %q, %d attempts, status 200, not from cache", res, "page", wantAttempts)
			}
			if int(hits.Load()) != wantAttempts {
				t.Errorf("server saw %d requests, want %d", hits.Load(), wantAttempts)
			}
			if got := clock.Sleeps(); !slices.Equal(got, tt.wantSleeps) {
				t.Errorf("sleeps = %v, want %v", got, tt.wantSleeps)
			}
			if got := c.HostLimit(hostOf(t, srv)); got != tt.wantLimit {
				t.Errorf("HostLimit = %v, want %v", got, tt.wantLimit)
			}
			if got, want := c.Stats(), (Stats{Fetched: 1, Retries: int64(len(tt.steps))}); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
		})
	}
}

// TestGetFails: statuses that will not change are not retried; retryable
// failures give up after 1+Retries attempts; a Retry-After over the cap
// fails at once, naming the wait. Each error says what went wrong.
func TestGetFails(t *testing.T) {
	tests := []struct {
		name         string
		step         http.HandlerFunc
		retries      int
		wantCode     apperr.Code
		wantMsg      []string
		wantAttempts int
		wantSleeps   int
	}{
		{"404", status(404, ""), 0, apperr.NotFound, []string{"404"}, 1, 0},
		{"410", status(410, ""), 0, apperr.NotFound, []string{"410"}, 1, 0},
		{"403", status(403, ""), 0, apperr.Unavailable, []string{"403"}, 1, 0},
		{"400", status(400, ""), 0, apperr.Unavailable, []string{"400"}, 1, 0},
		{"503 every time", status(503, ""), 2, apperr.Unavailable, []string{"503", "after 3 attempts"}, 3, 2},
		{"default retries", status(500, ""), 0, apperr.Unavailable, []string{"500", "after 5 attempts"}, 5, 4},
		{"no retries", status(500, ""), -1, apperr.Unavailable, []string{"500", "after 1 attempt:"}, 1, 0},
		{"Retry-After seconds over the cap", status(429, "3600"), 0, apperr.Unavailable, []string{"429", "1h0m0s", "2m0s"}, 1, 0},
		{
			"Retry-After date over the cap",
			status(503, epoch.Add(10*time.Minute).Format(http.TimeFormat)), 0,
			apperr.Unavailable, []string{"503", "10m0s"}, 1, 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hits := scripted(t, tt.step)
			c, clock := newTestClient(t, func(o *Options) { o.Retries = tt.retries })

			res, err := c.Get(t.Context(), srv.URL)
			wantCode(t, err, tt.wantCode, append(tt.wantMsg, srv.URL)...)
			if res.Attempts != tt.wantAttempts || int(hits.Load()) != tt.wantAttempts {
				t.Errorf("Attempts = %d, server saw %d requests; want %d", res.Attempts, hits.Load(), tt.wantAttempts)
			}
			if got := len(clock.Sleeps()); got != tt.wantSleeps {
				t.Errorf("slept %d times, want %d", got, tt.wantSleeps)
			}
			if got := c.Stats(); got.Failed != 1 || got.Fetched != 0 {
				t.Errorf("Stats = %+v, want 1 failed, 0 fetched", got)
			}
		})
	}
}

// TestGetRetriesBrokenTransfers: headers that never come, bodies that stop
// coming, bodies cut short and connections closed or reset are retried,
// and the next good attempt wins; a body cut short every time ends in
// Unavailable after all attempts.
func TestGetRetriesBrokenTransfers(t *testing.T) {
	const timeout = 300 * time.Millisecond // stall tests take this long, really
	modes := map[string]func(*testing.T, chan struct{}) http.HandlerFunc{
		"headers stall": func(t *testing.T, done chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				select { // until the client gives up and hangs up
				case <-r.Context().Done():
				case <-done:
				}
			}
		},
		"body stalls": func(t *testing.T, done chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "100")
				fmt.Fprint(w, "0123456789")
				_ = http.NewResponseController(w).Flush()
				select {
				case <-r.Context().Done():
				case <-done:
				}
			}
		},
		"body truncated": func(t *testing.T, _ chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "1000")
				fmt.Fprint(w, "0123456789")
				hijack(t, w, func(c net.Conn) { c.Close() })
			}
		},
		"closed before a response": func(t *testing.T, _ chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				hijack(t, w, func(c net.Conn) { c.Close() })
			}
		},
		"connection reset": func(t *testing.T, _ chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				hijack(t, w, func(c net.Conn) {
					_ = c.(*net.TCPConn).SetLinger(0) // close with RST, not FIN
					c.Close()
				})
			}
		},
	}
	tests := []struct {
		mode     string
		failures int // requests that misbehave before good ones
		wantErr  []string
	}{
		{mode: "headers stall", failures: 1},
		{mode: "body stalls", failures: 1},
		{mode: "body truncated", failures: 1},
		{mode: "closed before a response", failures: 1},
		{mode: "connection reset", failures: 1},
		{mode: "body truncated", failures: 3, wantErr: []string{"unexpected EOF", "after 3 attempts"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %d times", tt.mode, tt.failures), func(t *testing.T) {
			bad := modes[tt.mode](t, release(t))
			steps := slices.Repeat([]http.HandlerFunc{bad}, tt.failures)
			srv, hits := scripted(t, append(steps, ok("page"))...)
			c, clock := newTestClient(t, func(o *Options) {
				o.HeaderTimeout, o.ReadTimeout, o.Retries = timeout, timeout, 2
			})

			res, err := c.Get(t.Context(), srv.URL)
			wantAttempts := min(tt.failures+1, 3)
			if tt.wantErr != nil {
				wantCode(t, err, apperr.Unavailable, tt.wantErr...)
			} else if err != nil {
				t.Fatalf("Get: %v", err)
			} else if string(res.Body) != "page" {
				t.Errorf("Body = %q, want %q", res.Body, "page")
			}
			if res.Attempts != wantAttempts || int(hits.Load()) != wantAttempts {
				t.Errorf("Attempts = %d, server saw %d requests; want %d", res.Attempts, hits.Load(), wantAttempts)
			}
			if got := len(clock.Sleeps()); got != wantAttempts-1 {
				t.Errorf("slept %d times, want %d", got, wantAttempts-1)
			}
		})
	}
}

// TestGetConnectFailures: a connect timeout is retried (a 1 ns timeout
// makes every dial time out, for real and at once); a refused connection is
// not, since nothing listens there.
func TestGetConnectFailures(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := l.Addr().String()
	l.Close()
	live, hits := scripted(t, ok("page"))

	tests := []struct {
		name         string
		url          string
		timeout      time.Duration
		wantMsg      []string
		wantAttempts int
	}{
		{"connect timeout", live.URL, time.Nanosecond, []string{"timeout", "after 3 attempts"}, 3},
		{"connection refused", "http://" + closedAddr, 5 * time.Second, []string{"refused", "after 1 attempt:"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, clock := newTestClient(t, func(o *Options) { o.ConnectTimeout, o.Retries = tt.timeout, 2 })
			res, err := c.Get(t.Context(), tt.url)
			wantCode(t, err, apperr.Unavailable, tt.wantMsg...)
			if res.Attempts != tt.wantAttempts || len(clock.Sleeps()) != tt.wantAttempts-1 {
				t.Errorf("Attempts = %d, slept %d times; want %d, %d", res.Attempts, len(clock.Sleeps()), tt.wantAttempts, tt.wantAttempts-1)
			}
		})
	}
	if hits.Load() != 0 {
		t.Errorf("a request reached the server through a timed-out dial")
	}
}

// TestGetRevalidatesFromCache: a cached page is asked for with its
// validators, a 304 returns the cached body, a changed page replaces the
// entry, and the cache lives on disk (a new Client uses it).
func TestGetRevalidatesFromCache(t *testing.T) {
	const lastModified = "Tue, 04 Mar 2025 05:06:07 GMT"
	var (
		mu      sync.Mutex
		version = "v1"
		seen    []string // If-None-Match | If-Modified-Since, per request
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Header.Get("If-None-Match")+"|"+r.Header.Get("If-Modified-Since"))
		etag := `"` + version + `"`
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", lastModified)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, "spec "+version)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cached := func(o *Options) { o.CacheDir = dir }
	first, _ := newTestClient(t, cached)
	second, _ := newTestClient(t, cached)

	steps := []struct {
		client        *Client
		newVersion    string // "" keeps it
		wantSeen      string
		wantBody      string
		wantFromCache bool
		wantStatus    int
	}{
		{first, "", "|", "spec v1", false, 200},
		{second, "", `"v1"|` + lastModified, "spec v1", true, 304},
		{second, "v2", `"v1"|` + lastModified, "spec v2", false, 200},
		{first, "", `"v2"|` + lastModified, "spec v2", true, 304},
	}
	for i, st := range steps {
		if st.newVersion != "" {
			mu.Lock()
			version = st.newVersion
			mu.Unlock()
		}
		res, err := st.client.Get(t.Context(), srv.URL+"/spec")
		if err != nil {
			t.Fatalf("step %d: Get: %v", i, err)
		}
		mu.Lock()
		gotSeen := seen[len(seen)-1]
		mu.Unlock()
		if gotSeen != st.wantSeen {
			t.Errorf("step %d: server saw If-None-Match|If-Modified-Since %q, want %q", i, gotSeen, st.wantSeen)
		}
		if string(res.Body) != st.wantBody || res.FromCache != st.wantFromCache || res.Status != st.wantStatus || res.URL != srv.URL+"/spec" {
			t.Errorf("step %d: Result = {URL %s, Body %q, FromCache %v, Status %d}, want {%s, %q, %v, %d}",
				i, res.URL, res.Body, res.FromCache, res.Status, srv.URL+"/spec", st.wantBody, st.wantFromCache, st.wantStatus)
		}
	}
	if got, want := first.Stats(), (Stats{Fetched: 1, Cached: 1}); got != want {
		t.Errorf("first Stats = %+v, want %+v", got, want)
	}
	if got, want := second.Stats(), (Stats{Fetched: 1, Cached: 1}); got != want {
		t.Errorf("second Stats = %+v, want %+v", got, want)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Errorf("cache holds %d files, want 1 (no temporary files left)", len(files))
	}
}

// TestGetIgnoresBadCacheEntry: an entry cut short, altered, empty, not ours
// or for another URL is never returned; the Get fetches without validators
// and rewrites it.
func TestGetIgnoresBadCacheEntry(t *testing.T) {
	tests := []struct {
		name   string
		damage func(entry []byte, otherURLEntry []byte) []byte
	}{
		{"empty", func(b, _ []byte) []byte { return nil }},
		{"cut short", func(b, _ []byte) []byte { return b[:len(b)-3] }},
		{"cut in the metadata", func(b, _ []byte) []byte { return b[:len(cacheMagic)+10] }},
		{"body altered", func(b, _ []byte) []byte {
			b = slices.Clone(b)
			b[len(b)-1] ^= 1
			return b
		}},
		{"garbage", func(b, _ []byte) []byte { return []byte("<html>not a cache file</html>") }},
		{"another URL's entry", func(_, other []byte) []byte { return other }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				mu   sync.Mutex
				seen []string
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen = append(seen, r.Header.Get("If-None-Match"))
				mu.Unlock()
				w.Header().Set("ETag", `"e"`)
				if r.Header.Get("If-None-Match") == `"e"` {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, "fresh body for "+r.URL.Path)
			}))
			t.Cleanup(srv.Close)
			c, _ := newTestClient(t, func(o *Options) { o.CacheDir = t.TempDir() })
			page, other := srv.URL+"/page", srv.URL+"/other"
			for _, u := range []string{page, other} {
				if _, err := c.Get(t.Context(), u); err != nil {
					t.Fatalf("priming Get %s: %v", u, err)
				}
			}
			entry, err := os.ReadFile(c.cache.path(page))
			if err != nil {
				t.Fatal(err)
			}
			otherEntry, err := os.ReadFile(c.cache.path(other))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(c.cache.path(page), tt.damage(entry, otherEntry), 0o644); err != nil {
				t.Fatal(err)
			}

			for i, want := range []struct {
				seen      string
				fromCache bool
			}{{"", false}, {`"e"`, true}} { // refetched, then the repaired entry is used
				res, err := c.Get(t.Context(), page)
				if err != nil {
					t.Fatalf("Get %d: %v", i, err)
				}
				mu.Lock()
				gotSeen := seen[len(seen)-1]
				mu.Unlock()
				if gotSeen != want.seen || res.FromCache != want.fromCache || string(res.Body) != "fresh body for /page" {
					t.Errorf("Get %d: sent If-None-Match %q, FromCache %v, Body %q; want %q, %v, %q",
						i, gotSeen, res.FromCache, res.Body, want.seen, want.fromCache, "fresh body for /page")
				}
			}
		})
	}
}

// TestGetRedirects: redirects are followed and the final URL reported;
// redirects off http(s), or too many of them, fail without a retry.
func TestGetRedirects(t *testing.T) {
	target := httptest.NewServer(ok("elsewhere"))
	t.Cleanup(target.Close)
	mux := http.NewServeMux()
	mux.Handle("/old", http.RedirectHandler("/new", http.StatusMovedPermanently))
	mux.Handle("/new", ok("new page"))
	mux.Handle("/away", http.RedirectHandler(target.URL+"/there", http.StatusFound))
	mux.Handle("/ftp", http.RedirectHandler("ftp://ftp.example.com/spec.html", http.StatusFound))
	mux.Handle("/loop", http.RedirectHandler("/loop", http.StatusFound))
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	tests := []struct {
		path     string
		wantURL  string
		wantBody string
		wantErr  []string
		wantHits int32
	}{
		{path: "/old", wantURL: srv.URL + "/new", wantBody: "new page", wantHits: 2},
		{path: "/away", wantURL: target.URL + "/there", wantBody: "elsewhere", wantHits: 1},
		{path: "/ftp", wantErr: []string{"ftp://ftp.example.com/spec.html", "not http(s)"}, wantHits: 1},
		{path: "/loop", wantErr: []string{"10 redirects"}, wantHits: 10},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			hits.Store(0)
			c, _ := newTestClient(t, nil)
			res, err := c.Get(t.Context(), srv.URL+tt.path)
			if tt.wantErr != nil {
				wantCode(t, err, apperr.Unavailable, tt.wantErr...)
			} else if err != nil {
				t.Fatalf("Get: %v", err)
			} else if res.URL != tt.wantURL || string(res.Body) != tt.wantBody {
				t.Errorf("Result URL %s, Body %q; want %s, %q", res.URL, res.Body, tt.wantURL, tt.wantBody)
			}
			if res.Attempts != 1 || hits.Load() != tt.wantHits {
				t.Errorf("Attempts = %d, server saw %d requests; want 1, %d", res.Attempts, hits.Load(), tt.wantHits)
			}
		})
	}
}

// TestGetMaxBytes: a body over the limit fails at once, whether it
// announces its length or not; a body at the limit passes.
func TestGetMaxBytes(t *testing.T) {
	const limit = 1000
	tests := []struct {
		name    string
		size    int
		chunked bool
		wantErr bool
	}{
		{"at the limit", limit, false, false},
		{"over, with Content-Length", limit + 1, false, true},
		{"over, chunked", 5 * limit, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hits := scripted(t, func(w http.ResponseWriter, r *http.Request) {
				body := bytes.Repeat([]byte("x"), tt.size)
				if !tt.chunked {
					w.Header().Set("Content-Length", strconv.Itoa(tt.size))
				}
				for chunk := range slices.Chunk(body, 100) {
					w.Write(chunk)
					if tt.chunked {
						_ = http.NewResponseController(w).Flush()
					}
				}
			})
			c, _ := newTestClient(t, func(o *Options) { o.MaxBytes = limit })
			res, err := c.Get(t.Context(), srv.URL)
			if tt.wantErr {
				wantCode(t, err, apperr.InvalidArgument, "1000-byte limit")
			} else if err != nil || len(res.Body) != tt.size {
				t.Fatalf("Get: %d bytes, %v; want %d bytes", len(res.Body), err, tt.size)
			}
			if res.Attempts != 1 || hits.Load() != 1 {
				t.Errorf("Attempts = %d, server saw %d requests; want 1", res.Attempts, hits.Load())
			}
		})
	}
}

// TestGetCancelledDuringRetryWait: cancelling ctx ends a long Retry-After
// wait at once, with ctx's error.
func TestGetCancelledDuringRetryWait(t *testing.T) {
	srv, hits := scripted(t, status(503, "100"))
	ctx, cancel := context.WithCancel(t.Context())
	waiting := make(chan struct{})
	c, _ := newTestClient(t, func(o *Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			close(waiting)
			return sleepCtx(ctx, d) // the real sleeper: 100 s unless cancelled
		}
	})
	go func() {
		<-waiting
		cancel()
	}()

	start := time.Now()
	res, err := c.Get(ctx, srv.URL)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("Get took %v after cancel, want prompt", elapsed)
	}
	if res.Attempts != 1 || hits.Load() != 1 {
		t.Errorf("Attempts = %d, server saw %d; want 1", res.Attempts, hits.Load())
	}
}

// TestGetUserAgent: every request names the tool.
func TestGetUserAgent(t *testing.T) {
	tests := []struct{ set, want string }{
		{"", DefaultUserAgent},
		{"langspec/1.2 (+mailto:ops@example.com)", "langspec/1.2 (+mailto:ops@example.com)"},
	}
	for _, tt := range tests {
		var got atomic.Value
		srv, _ := scripted(t, func(w http.ResponseWriter, r *http.Request) { got.Store(r.UserAgent()) })
		c, _ := newTestClient(t, func(o *Options) { o.UserAgent = tt.set })
		if _, err := c.Get(t.Context(), srv.URL); err != nil {
			t.Fatal(err)
		}
		if got.Load() != tt.want {
			t.Errorf("User-Agent = %q, want %q", got.Load(), tt.want)
		}
	}
}

// TestGetRejectsBadURL: only http(s) URLs are fetched.
func TestGetRejectsBadURL(t *testing.T) {
	c, _ := newTestClient(t, nil)
	for _, u := range []string{"ftp://example.com/spec", "file:///etc/passwd", "http://", "::not a url", "spec.html"} {
		_, err := c.Get(t.Context(), u)
		wantCode(t, err, apperr.InvalidArgument, "not an http(s) URL")
	}
}

// TestHostRateLimit: requests to one host are spaced by its limiter (the
// waits go through Options.Sleep), while another host is not held up.
func TestHostRateLimit(t *testing.T) {
	a, _ := scripted(t, ok("a"))
	b, _ := scripted(t, ok("b"))
	c, clock := newTestClient(t, func(o *Options) { o.Rate, o.Burst = 2, 1 })
	for _, u := range []string{a.URL, a.URL, b.URL, a.URL} {
		if _, err := c.Get(t.Context(), u); err != nil {
			t.Fatal(err)
		}
	}
	// a: the first is free, then one every 500 ms; b's first is free.
	want := []time.Duration{500 * time.Millisecond, 500 * time.Millisecond}
	if got := clock.Sleeps(); !slices.Equal(got, want) {
		t.Errorf("sleeps = %v, want %v", got, want)
	}
}

// TestSlowDown: each 429 halves a host's rate down to MinRate, never
// raising a rate already below it.
func TestSlowDown(t *testing.T) {
	tests := []struct {
		rate, minRate rate.Limit
		times         int
		want          rate.Limit
	}{
		{4, 0.25, 1, 2},
		{4, 0.25, 3, 0.5},
		{4, 0.25, 10, 0.25},
		{0.1, 0.25, 1, 0.1},
		{rate.Inf, 0.25, 1, rate.Inf},
	}
	for _, tt := range tests {
		c, _ := newTestClient(t, func(o *Options) { o.Rate, o.MinRate = tt.rate, tt.minRate })
		for range tt.times {
			c.slowDown("example.com")
		}
		if got := c.HostLimit("example.com"); got != tt.want {
			t.Errorf("rate %v after %d 429s = %v, want %v", tt.rate, tt.times, got, tt.want)
		}
		if got := c.HostLimit("other.example.com"); got != tt.rate {
			t.Errorf("untouched host's rate = %v, want %v", got, tt.rate)
		}
	}
}

// TestBackoff: the ceiling doubles from BaseDelay up to MaxDelay and the
// jitter scales it.
func TestBackoff(t *testing.T) {
	const base, cap = 500 * time.Millisecond, 30 * time.Second
	tests := []struct {
		n    int
		rnd  float64
		want time.Duration
	}{
		{0, 1, 500 * time.Millisecond},
		{1, 1, time.Second},
		{3, 1, 4 * time.Second},
		{6, 1, 30 * time.Second}, // 32 s, capped
		{100, 1, 30 * time.Second},
		{3, 0, 0},
		{3, 0.25, time.Second},
	}
	for _, tt := range tests {
		if got := backoff(tt.n, base, cap, tt.rnd); got != tt.want {
			t.Errorf("backoff(%d, rand %v) = %v, want %v", tt.n, tt.rnd, got, tt.want)
		}
	}
}

// TestParseRetryAfter: both RFC 9110 forms; junk and negatives are ignored.
func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{" 7 ", 7 * time.Second, true},
		{"-3", 0, false},
		{"1.5", 0, false},
		{"later", 0, false},
		{epoch.Add(time.Minute).Format(http.TimeFormat), time.Minute, true},
		{epoch.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"Tuesday, 04-Mar-25 05:08:07 GMT", 2 * time.Minute, true}, // RFC 850, still accepted
		{"99999999999999999", time.Duration(1<<63 - 1), true},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, epoch)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

// TestGetConcurrent: one Client serves many goroutines sharing limiters,
// counters and cache files (run with -race).
func TestGetConcurrent(t *testing.T) {
	srv, _ := scripted(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"`+r.URL.Path+`"`)
		if r.Header.Get("If-None-Match") != "" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, r.URL.Path)
	})
	c, _ := newTestClient(t, func(o *Options) { o.CacheDir = t.TempDir() })
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			path := fmt.Sprintf("/p%d", i%4)
			res, err := c.Get(t.Context(), srv.URL+path)
			if err != nil || string(res.Body) != path {
				t.Errorf("Get %s = %q, %v", path, res.Body, err)
			}
		})
	}
	wg.Wait()
	if s := c.Stats(); s.Fetched+s.Cached != 40 || s.Failed != 0 {
		t.Errorf("Stats = %+v, want 40 fetched or cached, none failed", s)
	}
}
