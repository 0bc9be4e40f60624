package webui

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/spec"
	"github.com/langspec/langspec/internal/teamauth"
)

// uiStore is a test page's index and, beside it, its state file, where
// tokens are made.
type uiStore struct {
	*db.DB
	state *db.State
}

// CreateToken makes a token in the state file.
func (s uiStore) CreateToken(ctx context.Context, name, hash string, tools []string, admin bool, now time.Time) error {
	return s.state.CreateToken(ctx, name, hash, tools, admin, now)
}

// testState opens a state file of the test's.
func testState(t *testing.T) *db.State {
	t.Helper()
	state, err := db.OpenState(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { state.Close() })
	return state
}

// newTestUI serves the page over a real store holding the Go
// specification, with an admin and a plain token.
func newTestUI(t *testing.T) (srv *httptest.Server, store uiStore, admin, plain string) {
	return newTestUIWith(t, nil)
}

// newTestUIWith is newTestUI with options changed by set.
func newTestUIWith(t *testing.T, set func(*Options)) (srv *httptest.Server, store uiStore, admin, plain string) {
	t.Helper()
	ctx := context.Background()
	index, err := db.Open(ctx, filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { index.Close() })
	if _, err := ingest.EnsureDefault(ctx, index, time.Now()); err != nil {
		t.Fatal(err)
	}
	store = uiStore{DB: index, state: testState(t)}
	admin, h1 := teamauth.NewToken()
	plain, h2 := teamauth.NewToken()
	store.CreateToken(ctx, "ops", h1, nil, true, time.Now())
	store.CreateToken(ctx, "alice", h2, nil, false, time.Now())
	o := Options{StateOf: teamauth.Fixed(store.state), Verifier: teamauth.Verifier(teamauth.Fixed(store.state))}
	if set != nil {
		set(&o)
	}
	// The page's calls over the index, with the notes a test gave it.
	svc := spec.New(spec.Options{Store: index, Notes: o.Notes})
	o.SpecOf = func(context.Context) *spec.Service { return svc }
	u, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	// Routed as the team server routes it (mcpserver.PathUI): a browser's
	// /favicon.ico never reaches the page, whose login form it would
	// otherwise answer with a new CSRF cookie.
	mux := http.NewServeMux()
	mux.Handle("/ui/", u)
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, store, admin, plain
}

func TestPageGuards(t *testing.T) {
	srv, _, admin, plain := newTestUI(t)
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
		{"not an admin, on the tokens page", "GET", "/ui/tokens", plain, nil, http.StatusForbidden},
		{"not an admin, making a token", "POST", "/ui/tokens", plain, url.Values{"name": {"x"}}, http.StatusForbidden},
		{"not an admin, searching", "GET", "/ui/", plain, nil, http.StatusOK},
		{"not an admin, reading a section", "GET", "/ui/section?lang=go&id=Slice_expressions", plain, nil, http.StatusOK},
		{"admin", "GET", "/ui/tokens", admin, nil, http.StatusOK},
		{"an admin's bearer header needs no CSRF token: no browser sends it by itself", "POST", "/ui/tokens", admin, url.Values{"name": {"x"}}, http.StatusOK},
		{"the login form without its cookie", "POST", "/ui/login", "", url.Values{"token": {admin}, "csrf": {"guess"}}, http.StatusForbidden},
	} {
		resp := do(tc.method, tc.path, tc.token, tc.form)
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", tc.name, csp)
		}
		if resp.StatusCode == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
			t.Errorf("%s: 401 without a Bearer challenge: %q", tc.name, resp.Header.Get("WWW-Authenticate"))
		}
	}
}

// login logs in through the form as a browser would and returns a client
// holding the session cookie.
func login(t *testing.T, srv *httptest.Server, token string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(srv.URL + "/ui/login")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token in the login form:\n%s", body)
	}
	resp, err = c.PostForm(srv.URL+"/ui/login", url.Values{"token": {token}, "csrf": {string(m[1])}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	return c
}

// TestSessionFormsNeedCSRF: a session cookie goes with any request a
// browser makes, a forged cross-site form's too, so every form sent with
// the cookie needs the page's CSRF token.
func TestSessionFormsNeedCSRF(t *testing.T) {
	srv, _, admin, _ := newTestUI(t)
	c := login(t, srv, admin)
	for name, form := range map[string]url.Values{
		"without its CSRF token":  {"name": {"x"}},
		"with a wrong CSRF token": {"name": {"alice"}, "csrf": {"guess"}},
	} {
		resp, err := c.PostForm(srv.URL+"/ui/tokens", form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("a form %s: %d, want 403", name, resp.StatusCode)
		}
	}
}

// TestSessionEndsWithItsToken: a page session is its token, checked again
// on every request — revoked, the session ends at once (the attacker's
// path: log in, get revoked, keep minting admin tokens with the cookie).
func TestSessionEndsWithItsToken(t *testing.T) {
	srv, store, admin, _ := newTestUI(t)
	c := login(t, srv, admin)
	get := func() int {
		resp, err := c.Get(srv.URL + "/ui/tokens")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(); code != http.StatusOK {
		t.Fatalf("logged in: %d", code)
	}
	if err := store.state.RevokeToken(context.Background(), "ops", time.Now()); err != nil {
		t.Fatal(err)
	}
	if code := get(); code != http.StatusUnauthorized {
		t.Errorf("after revocation: %d, want 401", code)
	}
	// Logging in again with the revoked token does not work either.
	resp, err := c.Get(srv.URL + "/ui/tokens")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the old cookie again: %d, want 401", resp.StatusCode)
	}
}

func TestMarkSnippet(t *testing.T) {
	got := string(markSnippet("a <b> " + htmlMark.Before + "slice" + htmlMark.After + " **kwargs"))
	if want := "a &lt;b&gt; <mark>slice</mark> **kwargs"; got != want {
		t.Errorf("markSnippet = %q, want %q", got, want)
	}
}

// TestPagesEscapeStoredText: a document's text, titles and the user's own
// query are data on every page: markup in them is shown, never run.
func TestPagesEscapeStoredText(t *testing.T) {
	srv, store, admin, _ := newTestUI(t)
	const payload = `<script>alert(1)</script><img src=x onerror=alert(2)>`
	snap := db.Snapshot{Language: "evil", Doc: "spec", DisplayName: "Evil " + payload, Version: "1", SourceURL: "test",
		FetchedAt: time.Now(), ContentHash: "e1"}
	if _, err := store.Publish(context.Background(), snap, []db.Section{{SectionID: "Hostile", Level: 2, Title: "Hostile " + payload,
		Path: "Hostile", URL: "javascript:alert(3)", Text: "The hostile words are " + payload, SourcePolicy: db.FullText}}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"/ui/search?q=" + url.QueryEscape("hostile "+payload),
		"/ui/section?lang=evil&id=Hostile",
		"/ui/sources",
		"/ui/compare?concept=" + url.QueryEscape("hostile "+payload),
		"/ui/search?q=" + url.QueryEscape(`"><script>alert(4)</script>`),
	} {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
		if !strings.Contains(path, "alert(4)") && !strings.Contains(string(body), "&lt;script&gt;") {
			t.Errorf("%s: the hostile text is not shown (escaped) at all:\n%.2000s", path, body)
		}
		for _, raw := range []string{"<script>", "<img src=x", `href="javascript:`} {
			if strings.Contains(string(body), raw) {
				t.Errorf("%s: the page holds %q unescaped", path, raw)
			}
		}
	}
}

// TestPageSessionsCappedAndSwept: one subject's logins past the cap end its
// oldest sessions, another subject's are untouched, and sessions past their
// time are dropped by the sweep without a request.
func TestPageSessionsCappedAndSwept(t *testing.T) {
	ctx := context.Background()
	index, err := db.Open(ctx, filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { index.Close() })
	state := testState(t)
	flood, h1 := teamauth.NewToken()
	other, h2 := teamauth.NewToken()
	state.CreateToken(ctx, "flood", h1, nil, false, time.Now())
	state.CreateToken(ctx, "other", h2, nil, false, time.Now())
	now := time.Now()
	svc := spec.New(spec.Options{Store: index})
	u, err := New(Options{SpecOf: func(context.Context) *spec.Service { return svc }, StateOf: teamauth.Fixed(state), Verifier: teamauth.Verifier(teamauth.Fixed(state)),
		SessionsPerSubject: 3, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	login := func(token string) {
		t.Helper()
		form := url.Values{"token": {token}, "csrf": {"pair"}}
		req := httptest.NewRequest("POST", "/ui/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: loginCookie, Value: "pair"}) // a double-submit pair of the caller's choosing
		rec := httptest.NewRecorder()
		u.ServeHTTP(rec, req)
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("login: %d %s", rec.Code, rec.Body)
		}
	}
	login(other)
	for range 1000 {
		login(flood)
	}
	if n := u.sessionCount(); n != 3+1 {
		t.Errorf("%d sessions after 1000 logins of one token and one of another, want the cap (3) and 1", n)
	}
	now = now.Add(sessionTTL + time.Minute)
	u.sweep()
	if n := u.sessionCount(); n != 0 {
		t.Errorf("%d sessions after their time and a sweep, want 0", n)
	}
}

// The page sets a snippet's code lines apart from its prose: a line that
// reads as code is in <code>, a sentence is not, and marks stay marks.
func TestMarkSnippetSetsCodeApart(t *testing.T) {
	br := htmlMark.Break
	for _, tc := range []struct{ in, want string }{
		{"the primary expression" + br + "a[low : high : max]" + br + "constructs a " + htmlMark.Before + "slice" + htmlMark.After + ".",
			`the primary expression <code class="snip">a[low : high : max]</code> constructs a <mark>slice</mark>.`},
		{"a := [5]int{1, 2, 3, 4, 5}" + br + "t := a[1:3:5]",
			`<code class="snip">a := [5]int{1, 2, 3, 4, 5}</code> <code class="snip">t := a[1:3:5]</code>`},
		{"It has type []int, length 2, capacity 4, and elements.", "It has type []int, length 2, capacity 4, and elements."},
		{"if x.(T) holds" + br + "the assertion is true", "if x.(T) holds the assertion is true"},
		{br + "t[0] == " + htmlMark.Before + "2" + htmlMark.After + br, `<code class="snip">t[0] == <mark>2</mark></code>`},
	} {
		if got := string(markSnippet(tc.in)); got != tc.want {
			t.Errorf("markSnippet(%q)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}
