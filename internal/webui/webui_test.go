package webui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/teamauth"
)

// newTestUI serves the page over a real store with an admin and a plain
// token.
func newTestUI(t *testing.T) (srv *httptest.Server, admin, plain string) {
	t.Helper()
	ctx := context.Background()
	store, err := db.Open(ctx, filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	admin, h1 := teamauth.NewToken()
	plain, h2 := teamauth.NewToken()
	store.CreateToken(ctx, "ops", h1, nil, true, time.Now())
	store.CreateToken(ctx, "alice", h2, nil, false, time.Now())
	u, err := New(Options{StoreOf: func(context.Context) *db.DB { return store }, Verifier: teamauth.Verifier(store)})
	if err != nil {
		t.Fatal(err)
	}
	srv = httptest.NewServer(u)
	t.Cleanup(srv.Close)
	return srv, admin, plain
}

func TestPageGuards(t *testing.T) {
	srv, admin, plain := newTestUI(t)
	do := func(method, path, token string, form url.Values) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(form.Encode()))
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, tc := range []struct {
		name, method, path, token string
		form                      url.Values
		want                      int
	}{
		{"no token", "GET", "/ui/tokens", "", nil, http.StatusUnauthorized},
		{"made-up token", "GET", "/ui/tokens", "lsp_nope", nil, http.StatusUnauthorized},
		{"not an admin", "GET", "/ui/tokens", plain, nil, http.StatusForbidden},
		{"admin", "GET", "/ui/tokens", admin, nil, http.StatusOK},
		{"a form without its CSRF token", "POST", "/ui/tokens", admin, url.Values{"name": {"x"}}, http.StatusForbidden},
		{"a form with a wrong CSRF token", "POST", "/ui/tokens/revoke", admin, url.Values{"name": {"alice"}, "csrf": {"guess"}}, http.StatusForbidden},
		{"the login form without its cookie", "POST", "/ui/login", "", url.Values{"token": {admin}, "csrf": {"guess"}}, http.StatusForbidden},
	} {
		resp := do(tc.method, tc.path, tc.token, tc.form)
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", tc.name, csp)
		}
	}
}

func TestMarkSnippet(t *testing.T) {
	got := string(markSnippet("a <b> " + htmlMark.Before + "slice" + htmlMark.After + " **kwargs"))
	if want := "a &lt;b&gt; <mark>slice</mark> **kwargs"; got != want {
		t.Errorf("markSnippet = %q, want %q", got, want)
	}
}
