package upstream

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// stdioDial runs cfg.Command afresh for every attempt, through the
// Manager's spawner, with the environment childEnv makes and its stderr
// redacted by red.
func (m *Manager) stdioDial(name string, cfg ServerConfig, red redactor) dialFunc {
	env := childEnv(cfg, runtime.GOOS, m.opts.Getenv, os.Environ)
	return func(context.Context) (dialed, error) {
		// exec.Command, not CommandContext: the child must outlive the
		// attempt's context and end only when its session does.
		cmd := exec.Command(cfg.Command, cfg.Args...)
		cmd.Env = env
		var pw *prefixWriter
		if m.opts.Stderr != nil {
			pw = &prefixWriter{mu: &m.stderrMu, out: m.opts.Stderr, prefix: "[" + name + "] ", red: red}
		}
		ownProcessGroup(cmd)
		ch, err := startChild(cmd, pw, m.spawn.start)
		if err != nil {
			return dialed{}, err
		}
		return dialed{
			t:       &mcp.IOTransport{Reader: stdoutPipe{ch}, Writer: stdinPipe{ch}},
			cleanup: func() { ch.stop(stdioGrace) },
			kill:    ch.stop,
		}, nil
	}
}

// httpDial reaches cfg.URL over streamable HTTP or SSE. Headers go through
// the http.Client's RoundTripper, the one hook both SDK transports take;
// they never pass through the SDK, so its logs cannot show them.
func httpDial(cfg ServerConfig) dialFunc {
	return httpDialVia(cfg, nil)
}

// httpDialVia is httpDial with wrap, when set, between the configured
// headers and the connection: what it returns (an error stops the dial)
// sees every request, as the OAuth transport does.
func httpDialVia(cfg ServerConfig, wrap func(ctx context.Context, base http.RoundTripper) (http.RoundTripper, error)) dialFunc {
	header := make(http.Header, len(cfg.Headers))
	for k, v := range cfg.Headers {
		header.Set(k, v)
	}
	return func(ctx context.Context) (dialed, error) {
		base := newHTTPTransport()
		var rt http.RoundTripper = base
		if wrap != nil {
			var err error
			if rt, err = wrap(ctx, base); err != nil {
				return dialed{}, err
			}
		}
		client := &http.Client{Transport: &headerTransport{base: rt, header: header}}
		if cfg.Type == TypeSSE {
			return dialed{t: &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}, cleanup: base.CloseIdleConnections}, nil
		}
		return dialed{t: &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}, cleanup: base.CloseIdleConnections}, nil
	}
}

// oauthDial is httpDial for a server that logs in with OAuth: every
// request carries the access token of m's subject, renewed before it
// expires and once on a 401. The endpoints are looked up on the first
// dial when the configuration leaves them out.
func (m *Manager) oauthDial(name string, cfg ServerConfig, holder *oauthHolder) dialFunc {
	return httpDialVia(cfg, func(ctx context.Context, base http.RoundTripper) (http.RoundTripper, error) {
		if m.opts.OAuthTokens == nil {
			return nil, apperr.New(apperr.UpstreamUnavailable, "", "upstream %q logs in with OAuth, and there is no token store", name)
		}
		holder.mu.Lock()
		defer holder.mu.Unlock()
		if holder.src == nil {
			client := &http.Client{Transport: newHTTPTransport(), Timeout: 30 * time.Second}
			o, err := cfg.OAuth.endpoints(ctx, client, cfg.URL)
			if err != nil {
				return nil, apperr.Wrap(err, apperr.UpstreamUnavailable, "give authorizationUrl and tokenUrl in the oauth block",
					"finding the OAuth endpoints of %q: %v", name, err)
			}
			holder.src = &oauthSource{server: name, subject: m.subject, conf: o.config(""), store: m.opts.OAuthTokens, client: client}
		}
		return &oauthTransport{base: base, src: holder.src}, nil
	})
}

// oauthHolder is a server's oauthSource, made on its first dial.
type oauthHolder struct {
	mu  sync.Mutex
	src *oauthSource
}

// failure is the source's failure; nil before the first dial.
func (h *oauthHolder) failure() error {
	h.mu.Lock()
	src := h.src
	h.mu.Unlock()
	if src == nil {
		return nil
	}
	return src.failure()
}

// newHTTPTransport is a private copy of the default transport, so a
// session's idle connections can be closed with it.
func newHTTPTransport() *http.Transport {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return t.Clone()
	}
	return &http.Transport{Proxy: http.ProxyFromEnvironment}
}

// headerTransport sets the configured headers on every request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context()) // a RoundTripper must not change the caller's request
	for k, v := range t.header {
		r.Header[k] = v
	}
	return t.base.RoundTrip(r)
}

// detachedTransport gives the inner transport a context that lives as long
// as the session rather than the attempt: the SDK passes Client.Connect's
// context to Transport.Connect, and the SSE client transport ties its
// event stream to it, so the ConnectTimeout would cut a healthy session.
// The attempt's context still aborts a Connect that is under way.
type detachedTransport struct {
	inner mcp.Transport
	life  context.Context    // ends with the session or the Manager
	end   context.CancelFunc // ends life
}

func (t *detachedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stop := context.AfterFunc(ctx, t.end)
	conn, err := t.inner.Connect(t.life)
	if !stop() && err == nil {
		// The attempt ended while connecting: life is gone, and with it
		// the connection.
		_ = conn.Close()
		return nil, ctx.Err()
	}
	return conn, err
}
