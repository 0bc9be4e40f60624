package upstream

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/langspec/langspec/internal/apperr"
)

// OAuthConfig is how langspec logs in to an http or sse upstream that asks
// for OAuth: the authorization-code flow with PKCE, its tokens kept
// encrypted (Options.OAuthTokens) and refreshed before they expire. The
// endpoints may be left out for a server that publishes them (RFC 9728
// protected resource metadata naming an RFC 8414 authorization server).
type OAuthConfig struct {
	AuthorizationURL string   `json:"authorizationUrl,omitempty" jsonschema:"the authorization endpoint; found from the server's metadata when left out"`
	TokenURL         string   `json:"tokenUrl,omitempty" jsonschema:"the token endpoint; found from the server's metadata when left out"`
	ClientID         string   `json:"clientId" jsonschema:"the OAuth client id registered for langspec"`
	ClientSecret     string   `json:"clientSecret,omitempty" jsonschema:"the client secret, as ${secret:NAME} or ${VAR}; none for a public client"`
	Scopes           []string `json:"scopes,omitempty" jsonschema:"scopes to ask for"`
}

// OAuthTokens keeps each upstream's tokens (per subject, "" for shared).
type OAuthTokens interface {
	LoadToken(server, subject string) (*oauth2.Token, error) // nil, nil when there is none
	SaveToken(server, subject string, t *oauth2.Token) error
	DeleteToken(server, subject string) error // upstream logout
}

// earlyRefresh is how long before it expires an access token is renewed.
const earlyRefresh = time.Minute

// endpoints fills in the authorization and token endpoints from the
// server's metadata when the configuration leaves them out.
func (o OAuthConfig) endpoints(ctx context.Context, client *http.Client, serverURL string) (OAuthConfig, error) {
	if o.AuthorizationURL != "" && o.TokenURL != "" {
		return o, nil
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return o, err
	}
	base := u.Scheme + "://" + u.Host
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := getJSON(ctx, client, base+"/.well-known/oauth-protected-resource"+strings.TrimSuffix(u.Path, "/"), &prm); err != nil {
		if err := getJSON(ctx, client, base+"/.well-known/oauth-protected-resource", &prm); err != nil {
			return o, fmt.Errorf("no protected resource metadata at %s: %w", base, err)
		}
	}
	if len(prm.AuthorizationServers) == 0 {
		return o, fmt.Errorf("the protected resource metadata of %s names no authorization server", base)
	}
	issuer := strings.TrimSuffix(prm.AuthorizationServers[0], "/")
	var asm struct {
		AuthorizationEndpoint string `json:"authorization_endpoint"`
		TokenEndpoint         string `json:"token_endpoint"`
	}
	iu, err := url.Parse(issuer)
	if err != nil {
		return o, err
	}
	if err := getJSON(ctx, client, iu.Scheme+"://"+iu.Host+"/.well-known/oauth-authorization-server"+iu.Path, &asm); err != nil {
		return o, fmt.Errorf("no authorization server metadata for %s: %w", issuer, err)
	}
	if o.AuthorizationURL == "" {
		o.AuthorizationURL = asm.AuthorizationEndpoint
	}
	if o.TokenURL == "" {
		o.TokenURL = asm.TokenEndpoint
	}
	if o.AuthorizationURL == "" || o.TokenURL == "" {
		return o, fmt.Errorf("the authorization server metadata of %s lacks an endpoint", issuer)
	}
	return o, nil
}

func getJSON(ctx context.Context, client *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

func (o OAuthConfig) config(redirect string) *oauth2.Config {
	return &oauth2.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scopes: o.Scopes, RedirectURL: redirect,
		Endpoint: oauth2.Endpoint{AuthURL: o.AuthorizationURL, TokenURL: o.TokenURL}}
}

// LoginOptions are what Manager.Login needs besides the server's name.
type LoginOptions struct {
	Subject string
	// Open is handed the authorization URL to show it to the person:
	// print it, open a browser. It must not block.
	Open func(authURL string)
	// Timeout bounds the wait for the person; 0 is five minutes.
	Timeout time.Duration
}

// PendingLogin is an authorization-code flow under way: send the person
// to AuthURL, then hand the redirect's query to Complete.
type PendingLogin struct {
	AuthURL string
	m       *Manager
	name    string
	subject string
	state   string
	conf    *oauth2.Config
	verify  string
	client  *http.Client
}

// BeginLogin starts the authorization-code flow with PKCE for the
// upstream name and subject, the authorization server to send the person
// back to redirect. Errors: not_found for an unknown upstream,
// invalid_argument for one without oauth, unavailable when its endpoints
// cannot be found.
func (m *Manager) BeginLogin(ctx context.Context, name, subject, redirect string) (*PendingLogin, error) {
	m.mu.Lock()
	cfg, ok := m.configs[name]
	m.mu.Unlock()
	if !ok {
		return nil, apperr.New(apperr.NotFound, "name an mcpServers entry of langspec.json", "no upstream named %q", name)
	}
	if cfg.OAuth == nil {
		return nil, apperr.New(apperr.InvalidArgument, "give the server an \"oauth\" block in mcpServers", "upstream %q does not use OAuth", name)
	}
	if m.opts.OAuthTokens == nil {
		return nil, apperr.New(apperr.InvalidArgument, "", "no token store to keep the login in")
	}
	exp, _, err := cfg.expand(name, m.lookupFor(subject))
	if err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: 30 * time.Second}
	o, err := exp.OAuth.endpoints(ctx, client, exp.URL)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "give authorizationUrl and tokenUrl in the oauth block", "finding where to log in to %q: %v", name, err)
	}
	p := &PendingLogin{m: m, name: name, subject: subject, state: randomState(), conf: o.config(redirect),
		verify: oauth2.GenerateVerifier(), client: client}
	p.AuthURL = p.conf.AuthCodeURL(p.state, oauth2.S256ChallengeOption(p.verify), oauth2.AccessTypeOffline)
	return p, nil
}

// State is the flow's state parameter, to find the flow a redirect
// belongs to.
func (p *PendingLogin) State() string { return p.state }

// Complete checks the redirect's query (its state, an error the
// authorization server sent), exchanges the code with the PKCE verifier
// and saves the tokens; a server that failed for want of a login is tried
// at once afterwards.
func (p *PendingLogin) Complete(ctx context.Context, q url.Values) error {
	switch {
	case q.Get("state") != p.state:
		return apperr.New(apperr.InvalidArgument, "start the login again", "the redirect's state does not match this login")
	case q.Get("error") != "":
		return apperr.New(apperr.Unavailable, "start the login again", "the authorization server said %s: %s", q.Get("error"), q.Get("error_description"))
	case q.Get("code") == "":
		return apperr.New(apperr.InvalidArgument, "start the login again", "the redirect carries no code")
	}
	tok, err := p.conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, p.client), q.Get("code"), oauth2.VerifierOption(p.verify))
	if err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "run the login again", "exchanging the code of %q: %s", p.name, oauthErrorText(err))
	}
	if err := p.m.opts.OAuthTokens.SaveToken(p.name, p.subject, tok); err != nil {
		return err
	}
	if s, err := p.m.server(p.name); err == nil {
		s.mu.Lock()
		s.failures, s.nextAttempt, s.lastErr = 0, time.Time{}, nil
		s.mu.Unlock()
	}
	return nil
}

// Login runs the authorization-code flow with PKCE for the upstream name
// from a terminal: a one-request listener on a loopback port takes the
// redirect, and the tokens are saved through Options.OAuthTokens. Errors:
// those of BeginLogin and Complete, and unavailable when the person does
// not finish within the timeout.
func (m *Manager) Login(ctx context.Context, name string, lo LoginOptions) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	p, err := m.BeginLogin(ctx, name, lo.Subject, "http://"+ln.Addr().String()+"/callback")
	if err != nil {
		return err
	}
	done := make(chan url.Values, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "<!doctype html><title>langspec</title><p>%s</p>", html.EscapeString("langspec got the answer for "+name+". You can close this tab."))
		select {
		case done <- r.URL.Query():
		default:
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()
	if lo.Open != nil {
		lo.Open(p.AuthURL)
	}
	timeout := lo.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	select {
	case q := <-done:
		return p.Complete(ctx, q)
	case <-time.After(timeout):
		return apperr.New(apperr.Unavailable, "run the login again and finish it in the browser", "no answer from the browser within %s", timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Logout forgets the OAuth tokens of name for subject.
func (m *Manager) Logout(name, subject string) error {
	if m.opts.OAuthTokens == nil {
		return nil
	}
	if d, ok := m.opts.OAuthTokens.(interface {
		DeleteToken(server, subject string) error
	}); ok {
		return d.DeleteToken(name, subject)
	}
	return nil
}

// UsesOAuth says whether the upstream name logs in with OAuth.
func (m *Manager) UsesOAuth(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.configs[name].OAuth != nil
}

func randomState() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// oauthErrorText describes an OAuth failure by its error code only: a
// token endpoint's body may echo what was sent.
func oauthErrorText(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return "the token endpoint said " + re.ErrorCode
		}
		if re.Response != nil {
			return "the token endpoint answered " + re.Response.Status
		}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return "the token endpoint could not be reached: " + ue.Err.Error()
	}
	return "the token request failed"
}

// oauthSource hands out access tokens for one upstream and subject,
// refreshing them before they expire and saving what the token endpoint
// returns (a rotated refresh token must not be lost).
type oauthSource struct {
	server, subject string
	conf            *oauth2.Config
	store           OAuthTokens
	client          *http.Client

	mu      sync.Mutex
	tok     *oauth2.Token
	lastErr error // why the last token could not be had; nil after a success
}

// failure is why the last request went without a token, if it did: the
// SDK reports a failed request by its own words, and the person needs
// these (log in again).
func (s *oauthSource) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// token returns a valid access token; force renews it even when it looks
// valid (the server answered 401).
func (s *oauthSource) token(ctx context.Context, force bool) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.tokenLocked(ctx, force)
	s.lastErr = err
	return t, err
}

func (s *oauthSource) tokenLocked(ctx context.Context, force bool) (*oauth2.Token, error) {
	if s.tok == nil {
		t, err := s.store.LoadToken(s.server, s.subject)
		if err != nil {
			return nil, err
		}
		if t == nil {
			return nil, apperr.New(apperr.UpstreamUnavailable, "log in with: langspec upstream login "+s.server,
				"upstream %q needs an OAuth login", s.server)
		}
		s.tok = t
	}
	if !force && s.tok.Valid() && (s.tok.Expiry.IsZero() || time.Until(s.tok.Expiry) > earlyRefresh) {
		return s.tok, nil
	}
	if s.tok.RefreshToken == "" {
		return nil, apperr.New(apperr.UpstreamUnavailable, "log in again with: langspec upstream login "+s.server,
			"the OAuth login of %q expired and cannot be renewed", s.server)
	}
	nt, err := s.refresh(ctx, s.tok)
	if err != nil {
		// Another holder of the same login (a replica, a second langspec)
		// may have renewed it first and rotated the refresh token: take
		// what the store has now, once.
		stored, lerr := s.store.LoadToken(s.server, s.subject)
		if lerr == nil && stored != nil && stored.RefreshToken != s.tok.RefreshToken {
			s.tok = stored
			if !force && stored.Valid() && time.Until(stored.Expiry) > earlyRefresh {
				return stored, nil
			}
			nt, err = s.refresh(ctx, stored)
		}
	}
	if err != nil {
		return nil, apperr.Wrap(err, apperr.UpstreamUnavailable, "log in again with: langspec upstream login "+s.server,
			"renewing the OAuth login of %q failed (%s); it may have been revoked", s.server, oauthErrorText(err))
	}
	old := *s.tok
	if nt.RefreshToken == "" {
		nt.RefreshToken = old.RefreshToken
	}
	if err := s.store.SaveToken(s.server, s.subject, nt); err != nil {
		return nil, err
	}
	s.tok = nt
	return nt, nil
}

// refresh renews t with its refresh token.
func (s *oauthSource) refresh(ctx context.Context, t *oauth2.Token) (*oauth2.Token, error) {
	old := *t
	old.Expiry = time.Unix(1, 0) // make the source refresh
	return s.conf.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, s.client), &old).Token()
}

// oauthTransport sets the bearer token on every request, and on a 401
// renews it once and sends the request again.
type oauthTransport struct {
	base http.RoundTripper
	src  *oauthSource
}

func (t *oauthTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	tok, err := t.src.token(r.Context(), false)
	if err != nil {
		return nil, err
	}
	if r.Body != nil && r.Body != http.NoBody && r.GetBody == nil {
		// Keep the body, to send it again after a renewal: a JSON-RPC
		// message, small.
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.Body, _ = r.GetBody()
	}
	resp, err := t.base.RoundTrip(withBearer(r, tok))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	tok, err = t.src.token(r.Context(), true)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	retry := r.Clone(r.Context())
	if r.GetBody != nil {
		if retry.Body, err = r.GetBody(); err != nil {
			resp.Body.Close()
			return nil, err
		}
	}
	resp.Body.Close()
	return t.base.RoundTrip(withBearer(retry, tok))
}

func withBearer(r *http.Request, tok *oauth2.Token) *http.Request {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return r
}
