// Package fetch downloads specification pages politely and robustly.
//
// Retries. A Get makes up to 1+Retries attempts. It retries what is likely to
// pass on a second try: 429, 500, 502, 503 and 504 responses; timeouts while
// connecting, while waiting for headers and while the body has stopped
// arriving; and broken connections (resets, EOF before a response, bodies
// shorter than their Content-Length). It does not retry what would fail the
// same way again: other 4xx statuses, bodies over MaxBytes, redirects to a
// scheme other than http(s), malformed URLs.
//
// Between attempts it waits as long as the server asked with Retry-After
// (seconds or an HTTP date), up to MaxRetryAfter; a longer ask fails at once,
// naming the wait, because stalling an ingest for many minutes is worse than
// telling the user. Without Retry-After it waits a full-jitter exponential
// backoff, a random time in [0, min(MaxDelay, BaseDelay·2ⁿ)), which spreads
// out clients that failed together instead of sending them back in step.
//
// Politeness. Each host has its own token bucket (Rate, Burst). A 429 halves
// that host's rate, down to MinRate, for the rest of the Client's life, even
// when the retry succeeds: the server said we were too fast, and one Client
// is one crawl of a few hundred pages, so creeping back up would only earn
// the next 429. Every request names the tool (UserAgent) and, with a
// CacheDir, asks only for pages that changed (If-None-Match,
// If-Modified-Since).
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"golang.org/x/time/rate"
)

// Defaults for the zero Options.
const (
	DefaultUserAgent      = "langspec/dev (+https://github.com/langspec/langspec)"
	DefaultMaxBytes       = 32 << 20
	DefaultConnectTimeout = 10 * time.Second
	DefaultHeaderTimeout  = 30 * time.Second
	DefaultReadTimeout    = 30 * time.Second
	DefaultRetries        = 4
	DefaultBaseDelay      = 500 * time.Millisecond
	DefaultMaxDelay       = 30 * time.Second
	DefaultMaxRetryAfter  = 120 * time.Second
	DefaultRate           = rate.Limit(4)
	DefaultBurst          = 4
	DefaultMinRate        = rate.Limit(0.25)
)

// maxRedirects matches net/http's own default, which a custom CheckRedirect
// replaces.
const maxRedirects = 10

// hint is what a user can do when the network lets them down.
const hint = "check the network, or pass a local copy with --from"

// Options configure a Client. A zero field takes its Default; so the zero
// Options is a sensible client.
type Options struct {
	UserAgent string
	// CacheDir holds one file per URL for conditional requests; "" means no
	// cache. It is created when first written.
	CacheDir string
	// MaxBytes bounds a body; a larger one fails with apperr.InvalidArgument.
	MaxBytes int64

	ConnectTimeout time.Duration // dialing, and the TLS handshake
	HeaderTimeout  time.Duration // from sending the request to the response headers
	ReadTimeout    time.Duration // longest wait for the next body bytes, not for the whole body

	// Retries is how many attempts follow a failed first one; negative
	// means none.
	Retries       int
	BaseDelay     time.Duration // first backoff ceiling, doubled per retry
	MaxDelay      time.Duration // largest backoff ceiling
	MaxRetryAfter time.Duration // longest Retry-After honoured; a longer one fails the Get

	// Rate and Burst limit requests per host (rate.Inf disables the limit).
	// MinRate is the floor a 429 can push a host's rate down to.
	Rate    rate.Limit
	Burst   int
	MinRate rate.Limit

	// Logger hears about cache files that could not be written or were
	// ignored as corrupt; nil discards.
	Logger *slog.Logger

	// Sleep waits d or until ctx is done (then it returns ctx.Err()); it is
	// used for retry waits and rate-limit waits. Now is the clock for
	// HTTP-date Retry-After and the rate limiter. Rand returns a number in
	// [0, 1] for backoff jitter. Tests replace all three; the defaults are a
	// timer, time.Now and math/rand/v2.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	Rand  func() float64
}

func (o Options) withDefaults() Options {
	setDefault(&o.UserAgent, DefaultUserAgent)
	setDefault(&o.MaxBytes, DefaultMaxBytes)
	setDefault(&o.ConnectTimeout, DefaultConnectTimeout)
	setDefault(&o.HeaderTimeout, DefaultHeaderTimeout)
	setDefault(&o.ReadTimeout, DefaultReadTimeout)
	setDefault(&o.Retries, DefaultRetries)
	if o.Retries < 0 {
		o.Retries = 0
	}
	setDefault(&o.BaseDelay, DefaultBaseDelay)
	setDefault(&o.MaxDelay, DefaultMaxDelay)
	setDefault(&o.MaxRetryAfter, DefaultMaxRetryAfter)
	setDefault(&o.Rate, DefaultRate)
	setDefault(&o.Burst, DefaultBurst)
	setDefault(&o.MinRate, DefaultMinRate)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	return o
}

func setDefault[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}

// Result is a fetched page.
type Result struct {
	URL       string // the final URL, after redirects
	Body      []byte
	FromCache bool // the server answered 304 and Body is the cached copy
	Attempts  int  // HTTP attempts made, including the successful one
	Status    int  // status of the last response: 200, or 304 when FromCache; 0 if none came
}

// Stats counts Get outcomes over a Client's life.
type Stats struct {
	Fetched int64 // pages downloaded
	Cached  int64 // pages the server said were unchanged (304)
	Failed  int64 // Gets that returned an error
	Retries int64 // attempts after a failed one, over all Gets
}

// Client fetches pages. It is safe for concurrent use.
type Client struct {
	opts      Options
	transport *http.Transport
	http      *http.Client
	cache     cache

	mu       sync.Mutex
	limiters map[string]*rate.Limiter // by URL host (host[:port])

	fetched, cached, failed, retries atomic.Int64
}

// New returns a Client; zero fields of opts take their defaults.
func New(opts Options) *Client {
	opts = opts.withDefaults()
	c := &Client{
		opts:     opts,
		cache:    cache{dir: opts.CacheDir, maxBytes: opts.MaxBytes},
		limiters: map[string]*rate.Limiter{},
	}
	dialer := &net.Dialer{Timeout: opts.ConnectTimeout, KeepAlive: 30 * time.Second}
	// Clone keeps the environment's proxy settings and HTTP/2.
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = dialer.DialContext
	t.TLSHandshakeTimeout = opts.ConnectTimeout
	t.ResponseHeaderTimeout = opts.HeaderTimeout
	c.transport = t
	c.http = &http.Client{Transport: t, CheckRedirect: c.checkRedirect}
	return c
}

// Close releases idle connections.
func (c *Client) Close() { c.transport.CloseIdleConnections() }

// Stats returns the counters so far.
func (c *Client) Stats() Stats {
	return Stats{
		Fetched: c.fetched.Load(),
		Cached:  c.cached.Load(),
		Failed:  c.failed.Load(),
		Retries: c.retries.Load(),
	}
}

// HostLimit is the current request rate for host, as a URL spells it
// (host or host:port): Options.Rate until a 429 from that host lowers it.
func (c *Client) HostLimit(host string) rate.Limit {
	c.mu.Lock()
	defer c.mu.Unlock()
	if lim, ok := c.limiters[host]; ok {
		return lim.Limit()
	}
	return c.opts.Rate
}

func (c *Client) limiter(host string) *rate.Limiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	lim, ok := c.limiters[host]
	if !ok {
		lim = rate.NewLimiter(c.opts.Rate, c.opts.Burst)
		c.limiters[host] = lim
	}
	return lim
}

// waitHost takes host's next request slot, sleeping until it is due.
func (c *Client) waitHost(ctx context.Context, host string) error {
	lim := c.limiter(host)
	now := c.opts.Now()
	r := lim.ReserveN(now, 1)
	if !r.OK() { // only when Burst is below 1, which withDefaults prevents
		return apperr.New(apperr.Internal, "", "rate limit for %s allows no requests", host)
	}
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	if err := c.opts.Sleep(ctx, d); err != nil {
		r.CancelAt(c.opts.Now()) // give the slot back to other Gets
		return err
	}
	return nil
}

// slowDown halves host's rate after a 429, not below MinRate (nor above
// what it was, should Rate start below MinRate). rate.Inf, limiting turned
// off, stays off: half of "unlimited" means nothing.
func (c *Client) slowDown(host string) {
	lim := c.limiter(host)
	c.mu.Lock() // so two 429s at once halve twice, not once
	defer c.mu.Unlock()
	cur := lim.Limit()
	if cur == rate.Inf {
		return
	}
	next := min(cur, max(cur/2, c.opts.MinRate))
	lim.SetLimitAt(c.opts.Now(), next)
}

// redirectError is a redirect Get must not follow; it is never retried.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return e.msg }

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return &redirectError{fmt.Sprintf("stopped after %d redirects", maxRedirects)}
	}
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return &redirectError{fmt.Sprintf("redirected to %s, which is not http(s)", req.URL.Redacted())}
	}
	// A redirect is one more request to a host, maybe another one.
	return c.waitHost(req.Context(), req.URL.Host)
}

// Get fetches rawURL (http or https), retrying as the package doc says. On
// error the Result still reports Attempts and the last Status.
//
// Errors: apperr.InvalidArgument for a URL that is not http(s) or a body over
// MaxBytes; apperr.NotFound for 404 and 410; apperr.Unavailable for other
// statuses, refused redirects, too long a Retry-After, network failures not
// worth retrying (refused connection, unknown host) and failures that
// outlived every attempt; ctx's error, wrapped, when ctx ends first.
func (c *Client) Get(ctx context.Context, rawURL string) (Result, error) {
	res, err := c.get(ctx, rawURL)
	if err != nil {
		c.failed.Add(1)
	}
	return res, err
}

func (c *Client) get(ctx context.Context, rawURL string) (Result, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Result{}, apperr.New(apperr.InvalidArgument, "pass an http(s) URL, or a local copy with --from",
			"cannot fetch %q: not an http(s) URL", rawURL)
	}
	// u.String() is the cache key update uses too; Redacted keeps any
	// password out of messages.
	cached := c.cache.load(u.String(), c.opts.Logger)
	shown := u.Redacted()
	var res Result
	for {
		res.Attempts++
		out := c.attempt(ctx, u, cached)
		res.Status = out.status
		if out.err == nil {
			out.result.Attempts = res.Attempts
			if out.result.FromCache {
				c.cached.Add(1)
			} else {
				c.fetched.Add(1)
			}
			return out.result, nil
		}
		// An attempt cut short by ctx fails in many guises (a timeout, EOF);
		// report ctx's own error, and never retry it.
		if ctx.Err() != nil {
			return res, fmt.Errorf("fetch %s: %w", shown, ctx.Err())
		}
		if _, ok := errors.AsType[*apperr.Error](out.err); ok {
			return res, out.err // already says what went wrong; never retried
		}
		if !out.retry || res.Attempts > c.opts.Retries {
			return res, apperr.Wrap(out.err, apperr.Unavailable, hint,
				"fetch %s failed after %s: %v", shown, attempts(res.Attempts), out.err)
		}
		wait := backoff(res.Attempts-1, c.opts.BaseDelay, c.opts.MaxDelay, c.opts.Rand())
		if out.hasRetryAfter {
			if out.retryAfter > c.opts.MaxRetryAfter {
				return res, apperr.Wrap(out.err, apperr.Unavailable, "try again later, or pass a local copy with --from",
					"fetch %s: %v; the server asked to wait %v before retrying, more than the %v this tool waits",
					shown, out.err, out.retryAfter, c.opts.MaxRetryAfter)
			}
			wait = out.retryAfter
		}
		c.retries.Add(1)
		if err := c.opts.Sleep(ctx, wait); err != nil {
			return res, fmt.Errorf("fetch %s: %w", shown, err)
		}
	}
}

// outcome is one attempt: a result, or an error and whether to retry it.
// An *apperr.Error is final as it is; any other error is reported as the
// last attempt's, and retried when retry says so.
type outcome struct {
	result        Result
	status        int // 0 when no response came
	err           error
	retry         bool
	retryAfter    time.Duration // what the server's Retry-After asked, if hasRetryAfter
	hasRetryAfter bool
}

func (c *Client) attempt(ctx context.Context, u *url.URL, cached *entry) outcome {
	if err := c.waitHost(ctx, u.Host); err != nil {
		return outcome{err: err}
	}
	// The attempt's own context lets the body watchdog abort a stalled read.
	actx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	req, err := http.NewRequestWithContext(actx, http.MethodGet, u.String(), nil)
	if err != nil {
		return outcome{err: apperr.Wrap(err, apperr.InvalidArgument, "", "cannot fetch %s", u.Redacted())}
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	if cached != nil {
		if cached.ETag != "" {
			req.Header.Set("If-None-Match", cached.ETag)
		}
		if cached.LastModified != "" {
			req.Header.Set("If-Modified-Since", cached.LastModified)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if re, ok := errors.AsType[*redirectError](err); ok {
			return outcome{err: apperr.Wrap(err, apperr.Unavailable, "pass a local copy with --from",
				"fetch %s: %s", u.Redacted(), re.msg)}
		}
		return outcome{err: netError(err), retry: retryable(err)}
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()
	out := outcome{status: resp.StatusCode}

	switch code := resp.StatusCode; {
	case code == http.StatusNotModified && cached != nil:
		out.result = Result{URL: final, Body: cached.Body, FromCache: true, Status: code}
		return out
	case code >= 200 && code < 300:
		body, err := c.readBody(actx, stop, resp)
		if err != nil {
			return outcome{status: code, err: netError(err), retry: retryable(err)}
		}
		c.cache.update(u.String(), final, resp.Header, body, c.opts.Logger)
		out.result = Result{URL: final, Body: body, Status: code}
		return out
	case retryableStatus(code):
		if code == http.StatusTooManyRequests {
			c.slowDown(resp.Request.URL.Host)
		}
		out.retryAfter, out.hasRetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), c.opts.Now())
		out.err = statusError{resp.Status}
		out.retry = true
		return out
	case code == http.StatusNotFound || code == http.StatusGone:
		out.err = apperr.New(apperr.NotFound, "check the URL, or pass a local copy with --from",
			"fetch %s: %s", u.Redacted(), resp.Status)
		return out
	default:
		out.err = apperr.New(apperr.Unavailable, "check the URL, or pass a local copy with --from",
			"fetch %s: %s", u.Redacted(), resp.Status)
		return out
	}
}

// byteSize spells a limit as users set it: "32 MiB", or "1000-byte".
func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d-byte", n)
}

func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}

// statusError is a retryable HTTP status, as "503 Service Unavailable".
type statusError struct{ status string }

func (e statusError) Error() string { return e.status }

// stallError is a body that sent nothing for ReadTimeout. It is a timeout,
// so retryable says yes.
type stallError struct{ d time.Duration }

func (e *stallError) Error() string   { return fmt.Sprintf("body stalled: no data for %v", e.d) }
func (e *stallError) Timeout() bool   { return true }
func (e *stallError) Temporary() bool { return true }

// readBody reads resp's body up to MaxBytes, failing it when no bytes come for
// ReadTimeout. net/http has no such idle timeout of its own, and
// http.Client.Timeout would also cut off a big page that is arriving slowly
// but steadily.
func (c *Client) readBody(actx context.Context, stop context.CancelCauseFunc, resp *http.Response) ([]byte, error) {
	tooLarge := func() error {
		return apperr.New(apperr.InvalidArgument, "pass a smaller document, or a local copy with --from",
			"%s is larger than the %s limit", resp.Request.URL.Redacted(), byteSize(c.opts.MaxBytes))
	}
	if resp.ContentLength > c.opts.MaxBytes {
		return nil, tooLarge()
	}
	stall := &stallError{c.opts.ReadTimeout}
	watchdog := time.AfterFunc(stall.d, func() { stop(stall) })
	defer watchdog.Stop()
	r := &progressReader{r: io.LimitReader(resp.Body, c.opts.MaxBytes+1), watchdog: watchdog, d: stall.d}
	body, err := io.ReadAll(r)
	if err != nil {
		if context.Cause(actx) == error(stall) {
			return nil, stall
		}
		return nil, err
	}
	if int64(len(body)) > c.opts.MaxBytes {
		return nil, tooLarge()
	}
	return body, nil
}

// progressReader rearms the watchdog whenever bytes arrive.
type progressReader struct {
	r        io.Reader
	watchdog *time.Timer
	d        time.Duration
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.watchdog.Reset(p.d)
	}
	return n, err
}

// netError drops net/http's `Get "url": ` prefix, which the final message
// already carries.
func netError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}
