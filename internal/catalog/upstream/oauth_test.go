package upstream

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/langspec/langspec/internal/apperr"
)

// authServer is an OAuth authorization server on httptest that checks
// PKCE, issues access tokens that live ttl, rotates refresh tokens, and
// can revoke; it also publishes RFC 8414 metadata.
type authServer struct {
	*httptest.Server
	mu         sync.Mutex
	challenges map[string]string // code → S256 challenge
	access     map[string]bool   // valid access tokens
	refresh    map[string]bool   // valid refresh tokens
	n          int
	refreshes  int
	ttl        int // seconds
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{challenges: map[string]string{}, access: map[string]bool{}, refresh: map[string]bool{}, ttl: 3600}
	mux := http.NewServeMux()
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "langspec-client" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		a.n++
		code := fmt.Sprintf("code-%d", a.n)
		a.challenges[code] = q.Get("code_challenge")
		a.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		fail := func(code string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": code})
		}
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			want, ok := a.challenges[r.Form.Get("code")]
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != want {
				fail("invalid_grant")
				return
			}
			delete(a.challenges, r.Form.Get("code"))
		case "refresh_token":
			if !a.refresh[r.Form.Get("refresh_token")] {
				fail("invalid_grant")
				return
			}
			delete(a.refresh, r.Form.Get("refresh_token")) // rotated
			a.refreshes++
		default:
			fail("unsupported_grant_type")
			return
		}
		a.n++
		at, rt := fmt.Sprintf("access-%d", a.n), fmt.Sprintf("refresh-%d", a.n)
		a.access[at], a.refresh[rt] = true, true
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": at, "refresh_token": rt, "token_type": "Bearer", "expires_in": a.ttl})
	})
	a.Server = httptest.NewServer(mux)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": a.URL, "authorization_endpoint": a.URL + "/authorize", "token_endpoint": a.URL + "/token"})
	})
	t.Cleanup(a.Close)
	return a
}

func (a *authServer) valid(tok string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.access[tok]
}

func (a *authServer) revokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.access)
	clear(a.refresh)
}

func (a *authServer) revokeAccess() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.access)
}

// memTokens is an OAuthTokens in memory.
type memTokens struct {
	mu    sync.Mutex
	saved map[string]*oauth2.Token
}

// LoadToken and SaveToken copy, as a store that encodes them does.
func (m *memTokens) LoadToken(server, subject string) (*oauth2.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.saved[server+"/"+subject]
	if t == nil {
		return nil, nil
	}
	cp := *t
	return &cp, nil
}

func (m *memTokens) DeleteToken(server, subject string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.saved, server+"/"+subject)
	return nil
}

func (m *memTokens) SaveToken(server, subject string, t *oauth2.Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp := *t
	m.saved[server+"/"+subject] = &cp
	return nil
}

// TestOAuthUpstream logs in with PKCE against an authorization server on
// httptest (endpoints found through the MCP server's RFC 9728 metadata),
// then calls a protected MCP server: a token near its expiry is renewed
// before use, a token the server revoked is renewed on the 401 and the
// call goes through, and a revoked refresh token makes the upstream
// unavailable, saying to log in again.
func TestOAuthUpstream(t *testing.T) {
	as := newAuthServer(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "hello", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello, logged-in user"}}}, nil
		})
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": "x", "authorization_servers": []string{as.URL}})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if !as.valid(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		stream.ServeHTTP(w, r)
	})
	mcpSrv := httptest.NewServer(mux)
	t.Cleanup(mcpSrv.Close)

	tokens := &memTokens{saved: map[string]*oauth2.Token{}}
	m, logs := newTestManager(t, Options{OAuthTokens: tokens})
	if err := m.Add("prot", ServerConfig{Description: "protected", Type: TypeHTTP, URL: mcpSrv.URL + "/mcp",
		OAuth: &OAuthConfig{ClientID: "langspec-client", Scopes: []string{"read"}}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := m.Call(ctx, "prot", "hello", nil); apperr.CodeOf(err) != apperr.UpstreamUnavailable || !strings.Contains(err.Error(), "upstream login prot") {
		t.Fatalf("before the login: %v, want upstream_unavailable saying to log in", err)
	}

	// The browser: follow the authorization URL to the loopback redirect.
	err := m.Login(ctx, "prot", LoginOptions{Timeout: 10 * time.Second, Open: func(u string) {
		go func() {
			resp, err := http.Get(u)
			if err == nil {
				resp.Body.Close()
			}
		}()
	}})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	saved, _ := tokens.LoadToken("prot", "")
	if saved == nil || saved.RefreshToken == "" {
		t.Fatalf("saved token = %+v", saved)
	}
	call := func() (string, error) {
		res, err := m.Call(ctx, "prot", "hello", nil)
		if err != nil {
			return "", err
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	}
	if got, err := call(); err != nil || got != "hello, logged-in user" {
		t.Fatalf("after the login: %q, %v", got, err)
	}

	// Near its expiry, the token is renewed before it is used.
	tokens.mu.Lock()
	tokens.saved["prot/"].Expiry = time.Now().Add(30 * time.Second)
	tokens.mu.Unlock()
	m2, _ := newTestManager(t, Options{OAuthTokens: tokens})
	m2.Add("prot", ServerConfig{Description: "protected", Type: TypeHTTP, URL: mcpSrv.URL + "/mcp",
		OAuth: &OAuthConfig{ClientID: "langspec-client", AuthorizationURL: as.URL + "/authorize", TokenURL: as.URL + "/token"}})
	before := as.refreshes
	if _, err := m2.Call(ctx, "prot", "hello", nil); err != nil {
		t.Fatal(err)
	}
	if as.refreshes != before+1 {
		t.Errorf("a token 30 s from expiry was renewed %d times, want once", as.refreshes-before)
	}

	// The server revokes the access token: the 401 renews it once. (m2
	// renewed the login above and rotated its refresh token: m finds the
	// new one in the store.)
	as.revokeAccess()
	before = as.refreshes
	if got, err := call(); err != nil || got != "hello, logged-in user" {
		t.Errorf("after the access token was revoked: %q, %v", got, err)
	}
	if as.refreshes != before+1 {
		t.Errorf("renewals on a 401: %d, want 1", as.refreshes-before)
	}

	// The refresh token is revoked too: log in again.
	as.revokeAll()
	_, err = call()
	if apperr.CodeOf(err) != apperr.UpstreamUnavailable && apperr.CodeOf(err) != apperr.UpstreamCallError || !strings.Contains(err.Error(), "login prot") {
		t.Errorf("with a revoked refresh token: %v, want a hint to log in again", err)
	}
	for _, tok := range []string{saved.AccessToken, saved.RefreshToken} {
		if strings.Contains(logs.String(), tok) || (err != nil && strings.Contains(err.Error(), tok)) {
			t.Errorf("a token is in the logs or the error")
		}
	}
}
