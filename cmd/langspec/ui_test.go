package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds a Chromium or Chrome to drive; the test skips without one
// (.ci/run installs Debian's chromium).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium: skipping the management page's browser test (install Debian's chromium)")
	return ""
}

// TestManagementPageInBrowser drives the team server's /ui in headless
// Chromium: log in with an admin token, search, open a section, create a
// token (shown once) and revoke it, see an upstream's status. Screenshots
// of each page go to docs/ui/ with LANGSPEC_UI_SCREENSHOTS=1 (README shows
// them), else to a temporary folder.
func TestManagementPageInBrowser(t *testing.T) {
	browser := chromium(t)
	dbPath := seededDB(t)
	dir := filepath.Dir(dbPath)
	cfg := filepath.Join(dir, "langspec.json")
	// An authorization server for the upstream that logs in with OAuth.
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/authorize":
			q := r.URL.Query()
			http.Redirect(w, r, q.Get("redirect_uri")+"?code=c1&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
		case "/token":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"access_token":"a1","refresh_token":"r1","token_type":"Bearer","expires_in":3600}`)
		}
	}))
	defer as.Close()
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"tracker": map[string]any{"description": "an issue tracker that is down", "type": "http", "url": "http://127.0.0.1:9/mcp"},
		"wiki": map[string]any{"description": "a wiki that logs in with OAuth", "type": "http", "url": "http://127.0.0.1:9/wiki/mcp",
			"oauth": map[string]any{"clientId": "langspec", "authorizationUrl": as.URL + "/authorize", "tokenUrl": as.URL + "/token"}},
	}})
	os.WriteFile(cfg, b, 0o600)
	admin := makeToken(t, dbPath, "ops", "--admin")
	s := startTeamServer(t, dbPath, "--config", cfg)

	shots := t.TempDir()
	if os.Getenv("LANGSPEC_UI_SCREENSHOTS") != "" {
		shots = filepath.Join("..", "..", "docs", "ui")
		os.MkdirAll(shots, 0o755)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.WindowSize(1100, 800), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 45*time.Second)
	defer cancel()

	shot := func(name string) error {
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(shots, name+".png"), buf, 0o644)
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v\nserver log:\n%s", sel, err, s.stderr)
		}
		return v
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v\nserver log:\n%s", what, err, s.stderr)
		}
	}
	do("the login page", chromedp.Navigate(s.url+"/ui/"), chromedp.WaitVisible(chromedp.CSS(`#token`)))
	loginText := text(`main`)
	shot("login")
	do("logging in", chromedp.SendKeys(chromedp.CSS(`#token`), admin), chromedp.Submit(chromedp.CSS(`#token`)),
		chromedp.WaitVisible(chromedp.CSS(`#q`)))
	do("searching", chromedp.SendKeys(chromedp.CSS(`#q`), "slice expressions"), chromedp.Submit(chromedp.CSS(`#q`)),
		chromedp.WaitVisible(chromedp.CSS(`.hit a`)))
	firstHit := text(`.hit a`)
	shot("search")
	do("opening a section", chromedp.Click(chromedp.CSS(`.hit a`)), chromedp.WaitVisible(chromedp.CSS(`pre.text`)))
	title, _ := chromedp.Run(ctx, chromedp.Title())
	sectionText := text(`pre.text`)
	shot("section")
	do("making a token", chromedp.Navigate(s.url+"/ui/tokens"), chromedp.WaitVisible(chromedp.CSS(`#name`)),
		chromedp.SendKeys(chromedp.CSS(`#name`), "temp"), chromedp.SendKeys(chromedp.CSS(`#tools`), "search_spec"),
		chromedp.Submit(chromedp.CSS(`#name`)), chromedp.WaitVisible(chromedp.CSS(`#new-token`)))
	newToken := text(`#new-token`)
	shot("tokens")
	do("revoking it", chromedp.Click(chromedp.CSS(`button[aria-label="revoke temp"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`button[aria-label="revoke temp"]`)))
	tokensText := text(`table`)
	do("the upstreams", chromedp.Navigate(s.url+"/ui/upstreams"), chromedp.WaitVisible(chromedp.CSS(`h2`)))
	upstreamsText := text(`main`)
	do("logging in to an OAuth upstream", chromedp.Click(chromedp.CSS(`a[href="/ui/upstreams/login?name=wiki"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
	oauthText := text(`main`)
	shot("upstreams")
	do("ingesting from the page", chromedp.Navigate(s.url+"/ui/sources"),
		chromedp.Click(chromedp.CSS(`button[aria-label="ingest go spec"]`)), chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
	ingestText := text(`main`)
	shot("ingest")
	if !strings.Contains(loginText, "admin token") {
		t.Errorf("login page: %q", loginText)
	}
	if firstHit != "Slice expressions" || !strings.Contains(title, "Slice expressions") || !strings.Contains(sectionText, "construct a substring or slice") {
		t.Errorf("search and section: first hit %q, title %q, text %.80q", firstHit, title, sectionText)
	}
	if !strings.HasPrefix(strings.TrimSpace(newToken), "lsp_") {
		t.Errorf("the new token shown: %q", newToken)
	}
	if !strings.Contains(tokensText, "temp") || strings.Contains(tokensText, strings.TrimSpace(newToken)) {
		t.Errorf("tokens after the revoke: %q", tokensText)
	}
	if !strings.Contains(upstreamsText, "tracker") || !strings.Contains(upstreamsText, "unavailable") && !strings.Contains(upstreamsText, "connecting") && !strings.Contains(upstreamsText, "idle") {
		t.Errorf("upstreams page: %q", upstreamsText)
	}
	if !strings.Contains(oauthText, "Logged in.") || !strings.Contains(oauthText, "oauth.wiki") {
		t.Errorf("after the OAuth login: %q", oauthText)
	}
	if !strings.Contains(ingestText, "Done in") {
		t.Errorf("ingest page: %q", ingestText)
	}
	// The revoked token no longer opens anything.
	if code, _, _ := run(t, nil, "--db", dbPath, "token", "list", "--json"); code != 0 {
		t.Error("token list failed")
	}
	cs, err := s.connect(t, strings.TrimSpace(newToken))
	if err == nil {
		cs.Close()
		t.Error("the token revoked on the page still connects")
	}
}
